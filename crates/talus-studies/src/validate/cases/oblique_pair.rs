//! Chung & Ooi tests 7 and 8: oblique sphere–sphere impacts (counter-spinning
//! identical spheres, a spinning sphere on a large heavy one).

use super::common::{measured, theory_series};
use super::materials::{aluminium, copper, nylon};
use super::pair_sweep::{pair_rows, pair_sweep, PairSweep};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::theory::oblique;
use glam::DVec3;
use talus::scene::Material;

pub fn case7(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.1;
    let v = 0.2;
    let (e, mu) = (0.5, 0.4);
    let ws = [
        0.175, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 21.0,
    ];
    let fams = [aluminium(), copper()];
    let mut pairs = Vec::new();
    for m in &fams {
        for &w in &ws {
            // same ω about z on both: the surfaces move against each other
            // at the contact (slip 2Rω0)
            pairs.push((
                m.name.clone(),
                w,
                format!("ω0={w}"),
                m.clone(),
                r,
                m.clone(),
                r,
                DVec3::new(v, 0.0, 0.0),
                DVec3::new(0.0, 0.0, w),
                DVec3::new(-v, 0.0, 0.0),
                DVec3::new(0.0, 0.0, w),
            ));
        }
    }
    let mut out = CaseResult::default();
    let res = pair_sweep(mk, "case7", &pairs, (e, mu), &mut out)?;
    out.notes.push(format!(
        "R = {r} m, ±{v} m/s, spins ω0 about z on both spheres (contact-point slip 2Rω0); gross sliding for R ω0 ≥ 3.5 μ(1+e) v (ω0 ≥ {:.2} rad/s)",
        3.5 * mu * (1.0 + e) * v / r
    ));
    pair_rows(&mut out, "7", &res, e, mu, 2.0 * v);
    let th = |w: f64| {
        let o = oblique(2.0 * v, 2.0 * r * w, 1.0 + e, mu);
        let j_over_m = 0.5 * o.j_per_mstar; // m* = m/2
        (w - 2.5 * j_over_m / r, j_over_m)
    };
    let xs: Vec<f64> = (0..=220).map(|k| k as f64 * 0.1).collect();
    let mut p_w = Plot {
        stem: "case7_spin".into(),
        title: "Case 7: spin after the impact vs initial spin".into(),
        x_label: "ω0 [rad/s]".into(),
        y_label: "ω' [rad/s]".into(),
        caption: "Angular velocity of either sphere after the impact; line: rigid body (2ω0/7 sticking, ω0 - 5μ(1+e)v/(2R) sliding, v = 0.2 m/s)".into(),
        series: vec![theory_series("rigid body", xs.iter().map(|&w| (w, th(w).0)).collect())],
    };
    let mut p_v = Plot {
        stem: "case7_vt".into(),
        title: "Case 7: tangential velocity after the impact vs initial spin".into(),
        x_label: "ω0 [rad/s]".into(),
        y_label: "|v_t'| [m/s]".into(),
        caption: "Tangential velocity of either sphere after the impact; line: rigid body (2Rω0/7 sticking, μ(1+e)v sliding)".into(),
        series: vec![theory_series("rigid body", xs.iter().map(|&w| (w, th(w).1)).collect())],
    };
    for fam in &fams {
        let of: Vec<&PairSweep> = res.iter().filter(|s| s.fam == fam.name).collect();
        p_w.series.push(measured(
            &fam.name,
            of.iter().map(|s| (s.x, s.after.w_a.z)).collect(),
        ));
        p_v.series.push(measured(
            &fam.name,
            of.iter().map(|s| (s.x, s.after.v_a.y.abs())).collect(),
        ));
        for s in &of {
            let lab = format!("{} {}", fam.name, s.label);
            out.point("7", &lab, "omega", s.after.w_a.z);
            out.point("7", &lab, "vt", s.after.v_a.y.abs());
        }
    }
    out.plots.extend([p_w, p_v]);
    Ok(out)
}

pub fn case8(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r1 = 0.1;
    let r2 = 5.0 * r1;
    let v = 0.2;
    let (e, mu) = (0.5, 0.4);
    let ws = [
        0.175, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 21.0,
    ];
    let fams = [aluminium(), nylon()];
    let mut pairs = Vec::new();
    for m in &fams {
        let heavy = Material {
            name: format!("{} ×1000 ρ", m.name),
            density: 1000.0 * m.density,
            ..m.clone()
        };
        for &w in &ws {
            pairs.push((
                m.name.clone(),
                w,
                format!("ω0={w}"),
                m.clone(),
                r1,
                heavy.clone(),
                r2,
                DVec3::new(v, 0.0, 0.0),
                DVec3::new(0.0, 0.0, w),
                DVec3::ZERO,
                DVec3::ZERO,
            ));
        }
    }
    let mut out = CaseResult::default();
    let res = pair_sweep(mk, "case8", &pairs, (e, mu), &mut out)?;
    out.notes.push(format!(
        "R1 = {r1} m at {v} m/s with spin ω0, R2 = 5 R1 at rest with 1000× the density; contact-point tangential restitution u'/u = 1 - 3.5μ(1+e)v/(R1 ω0) when sliding (ω0 ≥ {:.2} rad/s), 0 when sticking (rigid)",
        3.5 * mu * (1.0 + e) * v / r1
    ));
    pair_rows(&mut out, "8", &res, e, mu, v);
    let xs: Vec<f64> = (1..=220).map(|k| k as f64 * 0.1).collect();
    let mut p = Plot {
        stem: "case8_et".into(),
        title: "Case 8: contact-point tangential restitution vs initial spin".into(),
        x_label: "ω0 [rad/s]".into(),
        y_label: "u'/u".into(),
        caption: "Slip velocity of the contact point after / before; line: rigid body (0 sticking, 1 - 3.5μ(1+e)v/(R1ω0) sliding)".into(),
        series: vec![theory_series(
            "rigid body",
            xs.iter()
                .map(|&w| {
                    let o = oblique(v, r1 * w, 1.0 + e, mu);
                    (w, o.u_after / (r1 * w))
                })
                .collect(),
        )],
    };
    for fam in &fams {
        let of: Vec<&PairSweep> = res.iter().filter(|s| s.fam == fam.name).collect();
        p.series.push(measured(
            &fam.name,
            of.iter().map(|s| (s.x, s.u1() / s.u0())).collect(),
        ));
        for s in &of {
            out.point(
                "8",
                &format!("{} {}", fam.name, s.label),
                "et",
                s.u1() / s.u0(),
            );
        }
    }
    out.plots.push(p);
    Ok(out)
}
