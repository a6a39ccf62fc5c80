//! Chung & Ooi tests 1 and 2: elastic normal impacts (sphere–sphere and
//! sphere–wall) against Hertz theory.

use super::common::{dt_for, measured, theory_series, PER_CONTACT};
use super::materials::{aluminium, glass, limestone, magnesium};
use crate::validate::maker::Maker;
use crate::validate::readback::{contact_time_and_max, pair_state, record, wall_state};
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use crate::validate::setup::Lab;
use crate::validate::theory::{self, e_star, hertz, sphere_mass};
use glam::DVec3;
use talus::state::Particles;

pub struct NormalImpact {
    label: &'static str,
    contact_time: f64,
    max_overlap: f64,
    max_force: f64,
    restitution: f64,
    /// (t - t_start, F) samples
    force: Vec<(f64, f64)>,
}

/// Reads overlap and force histories of pair or wall impacts from every
/// step's snapshot. `overlap(k, snapshot)` and `vel_n(snapshot)` (normal
/// velocity of the moving sphere, signed) and its mass.
pub fn normal_history(
    snaps: &[Particles<f64>],
    dt: f64,
    mass: f64,
    overlap: impl Fn(&Particles<f64>) -> f64,
    vel_n: impl Fn(&Particles<f64>) -> f64,
    label: &'static str,
) -> Result<NormalImpact, String> {
    let ov: Vec<f64> = snaps.iter().map(&overlap).collect();
    let (tc, dmax) =
        contact_time_and_max(&ov, dt).ok_or_else(|| format!("{label}: no complete contact"))?;
    let first = ov.iter().position(|&d| d > 0.0).unwrap_or(0);
    let vn: Vec<f64> = snaps.iter().map(&vel_n).collect();
    let mut force = Vec::new();
    let mut fmax = 0.0f64;
    for k in 0..vn.len() - 1 {
        let f = mass * (vn[k + 1] - vn[k]).abs() / dt;
        fmax = fmax.max(f);
        if k + 2 >= first {
            force.push(((k as f64 - first as f64 + 1.0) * dt, f));
        }
    }
    let v_in = vn[0].abs();
    let v_out = vn[vn.len() - 1].abs();
    Ok(NormalImpact {
        label,
        contact_time: tc,
        max_overlap: dmax,
        max_force: fmax,
        restitution: v_out / v_in,
        force,
    })
}

/// Hertz checks (theory, optionally the paper's numbers) for one impact.
#[allow(clippy::too_many_arguments)]
pub fn hertz_rows(
    out: &mut CaseResult,
    case: &str,
    m: &NormalImpact,
    th: &theory::Hertz,
    paper: Option<(f64, f64, f64)>,
) {
    let c = format!("{case} {}", m.label);
    let tol = Tol::Rel(0.01);
    out.row(Row::new(&c, "F_max [N]", th.max_force, m.max_force, tol));
    out.row(Row::new(
        &c,
        "δ_max [m]",
        th.max_overlap,
        m.max_overlap,
        tol,
    ));
    out.row(Row::new(
        &c,
        "t_c [s]",
        th.contact_time,
        m.contact_time,
        tol,
    ));
    out.row(Row::new(
        &c,
        "e (elastic)",
        1.0,
        m.restitution,
        Tol::Rel(0.005),
    ));
    if let Some((f, d, t)) = paper {
        out.row(Row::new(
            &c,
            "F_max vs paper [N]",
            f,
            m.max_force,
            Tol::Rel(0.01),
        ));
        out.row(Row::new(
            &c,
            "δ_max vs paper [m]",
            d,
            m.max_overlap,
            Tol::Rel(0.01),
        ));
        out.row(Row::new(
            &c,
            "t_c vs paper [s]",
            t,
            m.contact_time,
            Tol::Rel(0.01),
        ));
    }
    for (q, v) in [
        ("F_max", m.max_force),
        ("delta_max", m.max_overlap),
        ("t_c", m.contact_time),
        ("e", m.restitution),
    ] {
        out.point(case, m.label, q, v);
    }
}

pub fn case1(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.01;
    let v = 10.0;
    let fams = [
        (glass(), "glass", (10.70e3, 274.1e-6, 40.3e-6)),
        (limestone(), "limestone", (7.11e3, 368.3e-6, 54.2e-6)),
    ];
    let th: Vec<theory::Hertz> = fams
        .iter()
        .map(|(m, ..)| {
            let mass = sphere_mass(m, r);
            hertz(0.5 * mass, 0.5 * r, e_star(m, m), 2.0 * v)
        })
        .collect();
    let tcs: Vec<f64> = th.iter().map(|h| h.contact_time).collect();
    let dt = dt_for(&tcs, PER_CONTACT);
    let t_gap = 10.0 * dt;
    let mut lab = Lab::new("case1", r, dt);
    for (m, ..) in &fams {
        lab.pair(
            (m, r, DVec3::new(v, 0.0, 0.0), DVec3::ZERO),
            (m, r, DVec3::new(-v, 0.0, 0.0), DVec3::ZERO),
            t_gap,
            (1.0, 0.35, 0.0),
        );
    }
    let steps = ((t_gap + 1.15 * tcs.iter().cloned().fold(0.0, f64::max)) / dt).ceil() as u64 + 6;
    let scene = lab.scene(steps)?;
    let mut be = mk.make(&scene)?;
    let snaps = record(be.as_mut(), steps)?;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {r} m, ±{v} m/s (relative 20 m/s), e = 1, μ = 0.35; dt = {dt:.4e} s (t_c/{PER_CONTACT} of the shorter contact), {steps} steps, every step read back"
    ));
    let mut plot = Plot {
        stem: "case1_force".into(),
        title: "Case 1: normal force during a head-on impact".into(),
        x_label: "t [µs]".into(),
        y_label: "F [kN]".into(),
        caption: "Normal force vs time since first contact; lines: Hertz theory (RK4 of m*δ'' = -(4/3)E*√R* δ^{3/2}); markers: talus (m Δv/dt of one sphere)".into(),
        series: Vec::new(),
    };
    for (k, ((m, label, paper), h)) in fams.iter().zip(&th).enumerate() {
        let q = &lab.pairs[k];
        let mass = q.m_a;
        let imp = normal_history(
            &snaps,
            dt,
            mass,
            |p| pair_state(p, q).overlap,
            |p| p.vel_invm[q.a as usize][0],
            label,
        )?;
        hertz_rows(&mut out, "1", &imp, h, Some(*paper));
        let curve = theory::hertz_force_curve(0.5 * mass, 0.5 * r, e_star(m, m), 2.0 * v);
        force_curves(&mut plot, label, &curve, &imp.force, 1e6);
    }
    out.plots.push(plot);
    Ok(out)
}

/// The Hertz force curve and the measured one (every third point) of one
/// impact, time scaled by `t_scale`, force in kN.
fn force_curves(
    plot: &mut Plot,
    label: &str,
    theory: &[(f64, f64)],
    measured_force: &[(f64, f64)],
    t_scale: f64,
) {
    let pts = |v: &mut dyn Iterator<Item = &(f64, f64)>| -> Vec<(f64, f64)> {
        v.map(|(t, f)| (t * t_scale, f * 1e-3)).collect()
    };
    plot.series.push(theory_series(
        &format!("{label} Hertz"),
        pts(&mut theory.iter()),
    ));
    plot.series
        .push(measured(label, pts(&mut measured_force.iter().step_by(3))));
}

pub fn case2(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.1;
    let v = 0.2;
    let fams = [(aluminium(), "Al alloy"), (magnesium(), "Mg alloy")];
    let th: Vec<theory::Hertz> = fams
        .iter()
        .map(|(m, _)| hertz(sphere_mass(m, r), r, e_star(m, &Lab::rigid(m)), v))
        .collect();
    let tcs: Vec<f64> = th.iter().map(|h| h.contact_time).collect();
    let dt = dt_for(&tcs, PER_CONTACT);
    let t_gap = 10.0 * dt;
    let mut lab = Lab::new("case2", r, dt);
    for (slot, (m, _)) in fams.iter().enumerate() {
        lab.wall(slot, m);
        lab.wall_impact(slot, m, r, v, 0.0, 0.0, t_gap, (1.0, 0.0, 0.0));
    }
    let steps = ((t_gap + 1.15 * tcs.iter().cloned().fold(0.0, f64::max)) / dt).ceil() as u64 + 6;
    let scene = lab.scene(steps)?;
    let mut be = mk.make(&scene)?;
    let snaps = record(be.as_mut(), steps)?;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {r} m, {v} m/s, e = 1, μ = 0; wall E = {:.0e} × the sphere's, same ν (E* = {:.4e} Pa for Al, {:.4e} Pa for Mg); dt = {dt:.4e} s, {steps} steps, every step read back",
        theory::RIGID_FACTOR,
        e_star(&fams[0].0, &Lab::rigid(&fams[0].0)),
        e_star(&fams[1].0, &Lab::rigid(&fams[1].0)),
    ));
    let mut plot = Plot {
        stem: "case2_force".into(),
        title: "Case 2: normal force, sphere on a rigid plane".into(),
        x_label: "t [ms]".into(),
        y_label: "F [kN]".into(),
        caption: "Normal force vs time since first contact; lines: Hertz theory; markers: talus"
            .into(),
        series: Vec::new(),
    };
    for (k, ((m, label), h)) in fams.iter().zip(&th).enumerate() {
        let w = lab.wall_impacts[k].clone();
        let imp = normal_history(
            &snaps,
            dt,
            w.mass,
            |p| wall_state(p, &w).overlap,
            |p| wall_state(p, &w).v_n,
            label,
        )?;
        hertz_rows(&mut out, "2", &imp, h, None);
        let curve = theory::hertz_force_curve(w.mass, r, e_star(m, &Lab::rigid(m)), v);
        force_curves(&mut plot, label, &curve, &imp.force, 1e3);
    }
    out.plots.push(plot);
    Ok(out)
}
