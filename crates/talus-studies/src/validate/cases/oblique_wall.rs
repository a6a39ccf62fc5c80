//! Chung & Ooi tests 4–6: oblique sphere–wall impacts (incident angle,
//! tangential speed, initial spin) against rigid-body impact with Coulomb
//! friction.

use super::common::{measured, theory_series};
use super::materials::{alox, aluminium, mat, nylon, polyethylene, steel};
use super::wall_sweep::{sliding_rows, wall_sweep, SweepPoint, SweepResult};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{worst, Row, Tol};
use crate::validate::theory::oblique;

/// Tolerance on v_t'/v_t against the rigid rolling limit 5/7 in the
/// sticking regime (absolute): v_t'/v_t = 1 - (1 - u'/u)/3.5, and the
/// tangential compliance keeps the contact-point slip ratio u'/u between
/// -1 (full reversal) and 1, so v_t'/v_t ∈ [3/7, 1] = 5/7 ± 2/7.
pub const STICK_TOL: f64 = 2.0 / 7.0;

pub fn case4(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.0025;
    let v = 3.9;
    let (e, mu) = (0.98, 0.092);
    let pts: Vec<SweepPoint> = (1..=17)
        .map(|k| {
            let th = (5 * k) as f64;
            let a = th.to_radians();
            SweepPoint {
                label: format!("θ={th}°"),
                x: th,
                v_n: v * a.cos(),
                v_t: v * a.sin(),
                spin: 0.0,
            }
        })
        .collect();
    let fams = [alox(), mat("Al alloy", 70e9, 0.33, 2700.0)];
    let mut out = CaseResult::default();
    let res = wall_sweep(mk, "case4", &fams, r, (e, mu), &pts, &mut out)?;
    out.notes.push(format!(
        "|v| = {v} m/s at 5–85° from the normal; gross sliding for tan θ ≥ 3.5 μ (1+e) = {:.4} (θ ≥ {:.1}°)",
        3.5 * mu * (1.0 + e),
        (3.5 * mu * (1.0 + e)).atan().to_degrees()
    ));
    sliding_rows(&mut out, "4", &res, 0.02);
    // the small-angle regime: v_t'/v_t against the rigid rolling limit 5/7
    for fam in &fams {
        let mut rows = Vec::new();
        for s in res.iter().filter(|s| s.fam == fam.name && !s.gross()) {
            rows.push((
                s.pt.label.clone(),
                Row::new(
                    &format!("4 {}", fam.name),
                    "v_t'/v_t, sticking (rigid 5/7)",
                    5.0 / 7.0,
                    s.after.v_t / s.pt.v_t,
                    Tol::Abs(STICK_TOL),
                ),
            ));
        }
        if let Some(row) = worst(rows) {
            out.row(row);
        }
    }
    let th_et: Vec<(f64, f64)> = (1..=170)
        .map(|k| {
            let th = k as f64 * 0.5;
            let a = th.to_radians();
            let o = oblique(v * a.cos(), v * a.sin(), 1.0 + e, mu);
            (th, (v * a.sin() - o.j_per_mstar) / (v * a.sin()))
        })
        .collect();
    let th_w: Vec<(f64, f64)> = th_et
        .iter()
        .map(|&(th, _)| {
            let a = th.to_radians();
            let o = oblique(v * a.cos(), v * a.sin(), 1.0 + e, mu);
            (th, 2.5 * o.j_per_mstar / r)
        })
        .collect();
    let th_ang: Vec<(f64, f64)> = th_et
        .iter()
        .map(|&(th, et)| {
            let a = th.to_radians();
            (th, (et * v * a.sin()).atan2(e * v * a.cos()).to_degrees())
        })
        .collect();
    let mut p_et = Plot {
        stem: "case4_et".into(),
        title: "Case 4: tangential restitution v_t'/v_t vs incident angle".into(),
        x_label: "incident angle [deg]".into(),
        y_label: "v_t'/v_t".into(),
        caption: "Tangential restitution of the centre velocity; line: rigid body with Coulomb friction (5/7 while sticking, 1 - μ(1+e)/tan θ when sliding)".into(),
        series: vec![theory_series("rigid body", th_et)],
    };
    let mut p_w = Plot {
        stem: "case4_spin".into(),
        title: "Case 4: rebound spin vs incident angle".into(),
        x_label: "incident angle [deg]".into(),
        y_label: "ω' [rad/s]".into(),
        caption: "Angular velocity after the impact; line: rigid body (5 v_t/(7R) sticking, 5μ(1+e)v_n/(2R) sliding)".into(),
        series: vec![theory_series("rigid body", th_w)],
    };
    let mut p_a = Plot {
        stem: "case4_angle".into(),
        title: "Case 4: rebound angle vs incident angle".into(),
        x_label: "incident angle [deg]".into(),
        y_label: "rebound angle [deg]".into(),
        caption: "Angle of the centre's rebound velocity from the normal; line: rigid body".into(),
        series: vec![theory_series("rigid body", th_ang)],
    };
    for fam in &fams {
        let of: Vec<&SweepResult> = res.iter().filter(|s| s.fam == fam.name).collect();
        let et: Vec<(f64, f64)> = of
            .iter()
            .map(|s| (s.pt.x, s.after.v_t / s.pt.v_t))
            .collect();
        let w: Vec<(f64, f64)> = of.iter().map(|s| (s.pt.x, s.after.spin)).collect();
        let ang: Vec<(f64, f64)> = of
            .iter()
            .map(|s| (s.pt.x, s.after.v_t.atan2(s.after.v_n).to_degrees()))
            .collect();
        for s in &of {
            out.point(
                "4",
                &format!("{} {}", fam.name, s.pt.label),
                "vt_ratio",
                s.after.v_t / s.pt.v_t,
            );
            out.point(
                "4",
                &format!("{} {}", fam.name, s.pt.label),
                "omega",
                s.after.spin,
            );
            out.point(
                "4",
                &format!("{} {}", fam.name, s.pt.label),
                "en",
                s.after.v_n / s.pt.v_n,
            );
        }
        p_et.series.push(measured(&fam.name, et));
        p_w.series.push(measured(&fam.name, w));
        p_a.series.push(measured(&fam.name, ang));
    }
    out.plots.extend([p_et, p_w, p_a]);
    Ok(out)
}

pub fn case5(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 1e-5;
    let vn = 5.0;
    let (e, mu) = (1.0, 0.3);
    let vts = [
        0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 14.0, 16.0, 18.0,
        21.0,
    ];
    let pts: Vec<SweepPoint> = vts
        .iter()
        .map(|&vt| SweepPoint {
            label: format!("v_t={vt}"),
            x: vt / (mu * vn),
            v_n: vn,
            v_t: vt,
            spin: 0.0,
        })
        .collect();
    let fams = [steel(), polyethylene()];
    let mut out = CaseResult::default();
    let res = wall_sweep(mk, "case5", &fams, r, (e, mu), &pts, &mut out)?;
    out.notes.push(format!(
        "R = {r} m, v_n = {vn} m/s; gross sliding for v_t/(μ v_n) ≥ 3.5(1+e) = {}",
        3.5 * (1.0 + e)
    ));
    sliding_rows(&mut out, "5", &res, 0.02);
    // normalised: Ψ = v_t/(μ v_n); rebound angle of the contact point
    // tan θ'/μ = (v_t' - R ω')/(μ v_n'); spin R ω'/(μ v_n)
    let th = |x: f64| {
        let o = oblique(vn, x * mu * vn, 1.0 + e, mu);
        let vt2 = x * mu * vn - o.j_per_mstar;
        let w2 = 2.5 * o.j_per_mstar / r;
        ((vt2 - r * w2) / (mu * e * vn), r * w2 / (mu * vn))
    };
    let xs: Vec<f64> = (0..=150).map(|k| k as f64 * 0.1).collect();
    let mut p_a = Plot {
        stem: "case5_angle".into(),
        title: "Case 5: normalised rebound angle vs normalised incident angle".into(),
        x_label: "v_t/(μ v_n)".into(),
        y_label: "(v_t' - Rω')/(μ v_n')".into(),
        caption: "Tangent of the contact point's rebound angle over μ; line: rigid body (0 while sticking, v_t/(μv_n) - 3.5(1+e) when sliding); the compliant (Mindlin) model reverses the contact point at small angles".into(),
        series: vec![theory_series("rigid body", xs.iter().map(|&x| (x, th(x).0)).collect())],
    };
    let mut p_w = Plot {
        stem: "case5_spin".into(),
        title: "Case 5: normalised rebound spin vs normalised incident angle".into(),
        x_label: "v_t/(μ v_n)".into(),
        y_label: "R ω'/(μ v_n)".into(),
        caption: "Normalised angular velocity after the impact; line: rigid body".into(),
        series: vec![theory_series(
            "rigid body",
            xs.iter().map(|&x| (x, th(x).1)).collect(),
        )],
    };
    for fam in &fams {
        let of: Vec<&SweepResult> = res.iter().filter(|s| s.fam == fam.name).collect();
        p_a.series.push(measured(
            &fam.name,
            of.iter()
                .map(|s| {
                    (
                        s.pt.x,
                        (s.after.v_t - r * s.after.spin) / (mu * s.after.v_n),
                    )
                })
                .collect(),
        ));
        p_w.series.push(measured(
            &fam.name,
            of.iter()
                .map(|s| (s.pt.x, r * s.after.spin / (mu * vn)))
                .collect(),
        ));
        for s in &of {
            let lab = format!("{} {}", fam.name, s.pt.label);
            out.point(
                "5",
                &lab,
                "angle_norm",
                (s.after.v_t - r * s.after.spin) / (mu * s.after.v_n),
            );
            out.point("5", &lab, "spin_norm", r * s.after.spin / (mu * vn));
        }
    }
    out.plots.extend([p_a, p_w]);
    Ok(out)
}

pub fn case6(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.1;
    let vn = 0.2;
    let (e, mu) = (0.5, 0.4);
    let ws = [
        0.175, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 18.0, 21.0,
    ];
    // spin s = -ω0 about b: the contact point moves along +t at R ω0
    let pts: Vec<SweepPoint> = ws
        .iter()
        .map(|&w| SweepPoint {
            label: format!("ω0={w}"),
            x: w,
            v_n: vn,
            v_t: 0.0,
            spin: -w,
        })
        .collect();
    let fams = [aluminium(), nylon()];
    let mut out = CaseResult::default();
    let res = wall_sweep(mk, "case6", &fams, r, (e, mu), &pts, &mut out)?;
    out.notes.push(format!(
        "R = {r} m, v_n = {vn} m/s, initial spin ω0 about a tangent axis; gross sliding for R ω0 ≥ 3.5 μ(1+e) v_n (ω0 ≥ {:.2} rad/s)",
        3.5 * mu * (1.0 + e) * vn / r
    ));
    sliding_rows(&mut out, "6", &res, 0.02);
    let th = |w: f64| {
        let o = oblique(vn, r * w, 1.0 + e, mu);
        (o.j_per_mstar, w - 2.5 * o.j_per_mstar / r)
    };
    let xs: Vec<f64> = (0..=220).map(|k| k as f64 * 0.1).collect();
    let mut p_w = Plot {
        stem: "case6_spin".into(),
        title: "Case 6: spin after the impact vs initial spin".into(),
        x_label: "ω0 [rad/s]".into(),
        y_label: "ω' [rad/s]".into(),
        caption: "Angular velocity after the impact (same sense as ω0); line: rigid body (2ω0/7 while sticking, ω0 - 5μ(1+e)v_n/(2R) when sliding)".into(),
        series: vec![theory_series("rigid body", xs.iter().map(|&w| (w, th(w).1)).collect())],
    };
    let mut p_v = Plot {
        stem: "case6_vt".into(),
        title: "Case 6: tangential velocity after the impact vs initial spin".into(),
        x_label: "ω0 [rad/s]".into(),
        y_label: "v_t' [m/s]".into(),
        caption: "Tangential velocity of the centre after the impact; line: rigid body (2Rω0/7 sticking, μ(1+e)v_n sliding)".into(),
        series: vec![theory_series("rigid body", xs.iter().map(|&w| (w, th(w).0)).collect())],
    };
    for fam in &fams {
        let of: Vec<&SweepResult> = res.iter().filter(|s| s.fam == fam.name).collect();
        p_w.series.push(measured(
            &fam.name,
            of.iter().map(|s| (s.pt.x, -s.after.spin)).collect(),
        ));
        p_v.series.push(measured(
            &fam.name,
            of.iter().map(|s| (s.pt.x, -s.after.v_t)).collect(),
        ));
        for s in &of {
            let lab = format!("{} {}", fam.name, s.pt.label);
            out.point("6", &lab, "omega", -s.after.spin);
            out.point("6", &lab, "vt", -s.after.v_t);
        }
    }
    out.plots.extend([p_w, p_v]);
    Ok(out)
}
