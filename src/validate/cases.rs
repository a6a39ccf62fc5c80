//! The validation cases. Chung & Ooi (2011), "Benchmark tests for verifying
//! discrete element modelling codes at particle impact level", Granular
//! Matter 13:643–656, tests 1–8, plus analytic checks. Expected values come
//! from Hertz theory and from rigid-body impact mechanics with Coulomb
//! friction (exact in the gross-sliding regime), see `theory.rs` and
//! `docs/validation.md`.

use super::case::CaseDef;
use super::maker::Maker;
use super::result::{CaseResult, Plot, Series};
use super::row::{worst, Row, Tol};
use super::setup::*;
use super::theory::{self, e_star, hertz, oblique, sphere_mass};
use crate::scene::{Material, RadiusDist, SceneBuilder};

pub static CASES: &[CaseDef] = &[
    CaseDef {
        id: "1",
        title: "elastic normal impact of two identical spheres",
        source: "Chung & Ooi 2011 test 1; Hertz theory",
        full: false,
        run: case1,
    },
    CaseDef {
        id: "2",
        title: "elastic normal impact of a sphere on a rigid plane",
        source: "Chung & Ooi 2011 test 2; Hertz theory",
        full: false,
        run: case2,
    },
    CaseDef {
        id: "3",
        title: "normal restitution on a rigid plane",
        source: "Chung & Ooi 2011 test 3; requested e",
        full: false,
        run: case3,
    },
    CaseDef {
        id: "4",
        title: "oblique impact on a rigid plane, 5–85°",
        source: "Chung & Ooi 2011 test 4; rigid-body impact with Coulomb friction",
        full: false,
        run: case4,
    },
    CaseDef {
        id: "5",
        title: "oblique impact at constant v_n, v_t = 0.1–21 m/s",
        source: "Chung & Ooi 2011 test 5; rigid-body impact with Coulomb friction",
        full: false,
        run: case5,
    },
    CaseDef {
        id: "6",
        title: "spinning sphere dropped on a rigid plane",
        source: "Chung & Ooi 2011 test 6; rigid-body impact with Coulomb friction",
        full: false,
        run: case6,
    },
    CaseDef {
        id: "7",
        title: "two counter-spinning identical spheres",
        source: "Chung & Ooi 2011 test 7; rigid-body impact with Coulomb friction",
        full: false,
        run: case7,
    },
    CaseDef {
        id: "8",
        title: "spinning sphere on a large heavy sphere",
        source: "Chung & Ooi 2011 test 8; rigid-body impact with Coulomb friction",
        full: false,
        run: case8,
    },
    CaseDef {
        id: "linear",
        title: "linear spring–dashpot: restitution and contact time",
        source: "damped harmonic oscillator (exact)",
        full: false,
        run: case_linear,
    },
    CaseDef {
        id: "rolling",
        title: "rolling resistance and the end of sliding",
        source: "rigid-body dynamics (exact)",
        full: false,
        run: case_rolling,
    },
    CaseDef {
        id: "energy",
        title: "energy balance of a settling column",
        source: "conservation of energy",
        full: false,
        run: case_energy,
    },
    CaseDef {
        id: "packing",
        title: "solid fraction of a settled random packing",
        source: "random close / loose packing (Scott & Kilgour 1969; Silbert 2010)",
        full: true,
        run: case_packing,
    },
];

/// The case with this id.
pub fn case(id: &str) -> &'static CaseDef {
    CASES
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no validation case {id}"))
}

/// A material whose pair constants (e, μ, μ_r) come from interactions.
fn mat(name: &str, youngs: f64, nu: f64, rho: f64) -> Material {
    Material {
        name: name.into(),
        density: rho,
        youngs_modulus: youngs,
        poisson_ratio: nu,
        restitution: 1.0,
        friction: 0.0,
        rolling_friction: 0.0,
    }
}

fn glass() -> Material {
    mat("glass", 48e9, 0.20, 2800.0)
}
fn limestone() -> Material {
    mat("limestone", 20e9, 0.25, 2500.0)
}
fn aluminium() -> Material {
    mat("Al alloy", 70e9, 0.30, 2699.0)
}
fn magnesium() -> Material {
    mat("Mg alloy", 40e9, 0.35, 1800.0)
}
fn alox() -> Material {
    mat("Al oxide", 380e9, 0.23, 4000.0)
}
fn cast_iron() -> Material {
    mat("cast iron", 100e9, 0.25, 7000.0)
}
fn steel() -> Material {
    mat("steel", 208e9, 0.30, 7850.0)
}
fn polyethylene() -> Material {
    mat("polyethylene", 1e9, 0.40, 1400.0)
}
fn nylon() -> Material {
    mat("nylon", 2.5e9, 0.40, 1000.0)
}
fn copper() -> Material {
    mat("copper", 120e9, 0.35, 8900.0)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Time step: the shortest contact time / `per`.
fn dt_for(tcs: &[f64], per: f64) -> f64 {
    tcs.iter().cloned().fold(f64::INFINITY, f64::min) / per
}

const PER_CONTACT: f64 = 200.0;

fn theory_series(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: true,
    }
}
fn measured(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: false,
    }
}

// ---------------------------------------------------------------- 1 and 2

struct NormalImpact {
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
fn normal_history(
    snaps: &[crate::state::Particles<f64>],
    dt: f64,
    mass: f64,
    overlap: impl Fn(&crate::state::Particles<f64>) -> f64,
    vel_n: impl Fn(&crate::state::Particles<f64>) -> f64,
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
fn hertz_rows(
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

fn case1(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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
            (m, r, [v, 0.0, 0.0], [0.0; 3]),
            (m, r, [-v, 0.0, 0.0], [0.0; 3]),
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
        plot.series.push(theory_series(
            &format!("{label} Hertz"),
            curve.iter().map(|(t, f)| (t * 1e6, f * 1e-3)).collect(),
        ));
        plot.series.push(measured(
            label,
            imp.force
                .iter()
                .step_by(3)
                .map(|(t, f)| (t * 1e6, f * 1e-3))
                .collect(),
        ));
    }
    out.plots.push(plot);
    Ok(out)
}

fn case2(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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
        plot.series.push(theory_series(
            &format!("{label} Hertz"),
            curve.iter().map(|(t, f)| (t * 1e3, f * 1e-3)).collect(),
        ));
        plot.series.push(measured(
            label,
            imp.force
                .iter()
                .step_by(3)
                .map(|(t, f)| (t * 1e3, f * 1e-3))
                .collect(),
        ));
    }
    out.plots.push(plot);
    Ok(out)
}

// ---------------------------------------------------------------- 3

fn case3(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.0025;
    let v = 3.9;
    let es = [0.2, 0.4, 0.6, 0.8, 1.0];
    let fams = [alox(), cast_iron()];
    let tcs: Vec<f64> = fams
        .iter()
        .map(|m| hertz(sphere_mass(m, r), r, e_star(m, &Lab::rigid(m)), v).contact_time)
        .collect();
    let dt = dt_for(&tcs, PER_CONTACT);
    let t_gap = 10.0 * dt;
    let mut lab = Lab::new("case3", r, dt);
    for (slot, fam) in fams.iter().enumerate() {
        lab.wall(slot, fam);
        for &e in &es {
            let m = Material {
                name: format!("{} e={e}", fam.name),
                ..fam.clone()
            };
            lab.wall_impact(slot, &m, r, v, 0.0, 0.0, t_gap, (e, 0.0, 0.0));
        }
    }
    let steps = ((t_gap + 1.2 * tcs.iter().cloned().fold(0.0, f64::max)) / dt).ceil() as u64;
    let scene = lab.scene(steps)?;
    let mut be = mk.make(&scene)?;
    let (p, done) = lab.run_to_separation(be.as_mut(), steps)?;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {r} m, {v} m/s normal to the plane, μ = 0; {} spheres in one scene; dt = {dt:.4e} s, {done} steps",
        lab.wall_impacts.len()
    ));
    let mut plot = Plot {
        stem: "case3_restitution".into(),
        title: "Case 3: measured vs requested restitution".into(),
        x_label: "requested e".into(),
        y_label: "measured e".into(),
        caption: "Normal restitution coefficient measured (v_n after / before) against the requested e; line: y = x".into(),
        series: vec![theory_series("e = e_requested", vec![(0.1, 0.1), (1.0, 1.0)])],
    };
    for (k, fam) in fams.iter().enumerate() {
        let mut pts = Vec::new();
        for (i, &e) in es.iter().enumerate() {
            let w = &lab.wall_impacts[k * es.len() + i];
            let s = wall_state(&p, w);
            let em = s.v_n / v;
            out.row(Row::new(
                &format!("3 {}", fam.name),
                &format!("e (requested {e})"),
                e,
                em,
                Tol::Rel(0.01),
            ));
            out.point("3", &format!("{} e={e}", fam.name), "e", em);
            pts.push((e, em));
        }
        plot.series.push(measured(&fam.name, pts));
    }
    out.plots.push(plot);
    Ok(out)
}

// ---------------------------------------------------------------- 4–6: sphere–wall sweeps

/// One impact of a sweep.
#[derive(Clone)]
struct SweepPoint {
    label: String,
    /// Plot abscissa.
    x: f64,
    v_n: f64,
    v_t: f64,
    spin: f64,
}

/// Per impact: before, after (wall frame), and the rigid-body prediction.
struct SweepResult {
    fam: String,
    pt: SweepPoint,
    after: WallState,
    radius: f64,
    e: f64,
    mu: f64,
}

impl SweepResult {
    fn u0(&self) -> f64 {
        self.pt.v_t - self.radius * self.pt.spin
    }
    /// The prediction with the law's compressive normal impulse κ(e).
    fn theory(&self) -> theory::Oblique {
        oblique(self.pt.v_n, self.u0(), self.kappa(), self.mu)
    }
    fn kappa(&self) -> f64 {
        theory::compressive_impulse_factor(self.e)
    }
    /// Predicted (v_t', spin') for a wall (m* = m).
    fn predicted(&self) -> (f64, f64) {
        let j = self.theory().j_per_mstar;
        (self.pt.v_t - j, self.pt.spin + 2.5 * j / self.radius)
    }
    fn gross(&self) -> bool {
        self.theory().gross_sliding
    }
    /// How far into gross sliding: |u0| / (3.5 μ κ v_n).
    fn slide_ratio(&self) -> f64 {
        self.u0().abs() / (3.5 * self.mu * self.kappa() * self.pt.v_n)
    }
    /// Contact-point slip after / before.
    fn slip_ratio(&self) -> f64 {
        (self.after.v_t - self.radius * self.after.spin) / self.u0()
    }
}

/// Runs every (family, point) as a sphere–wall impact in one scene.
fn wall_sweep(
    mk: &mut dyn Maker,
    name: &str,
    fams: &[Material],
    r: f64,
    (e, mu): (f64, f64),
    points: &[SweepPoint],
    out: &mut CaseResult,
) -> Result<Vec<SweepResult>, String> {
    let mut tcs = Vec::new();
    for m in fams {
        for p in points {
            tcs.push(hertz(sphere_mass(m, r), r, e_star(m, &Lab::rigid(m)), p.v_n).contact_time);
        }
    }
    let dt = dt_for(&tcs, PER_CONTACT);
    let t_gap = 10.0 * dt;
    let mut lab = Lab::new(name, r, dt);
    // sideways travel during the run stays well inside a lane
    let vmax = points
        .iter()
        .map(|p| p.v_t.abs() + p.v_n)
        .fold(0.0, f64::max);
    let t_run = 3.0 * (t_gap + tcs.iter().cloned().fold(0.0, f64::max));
    lab.spacing = lab.spacing.max(4.0 * r + 2.0 * vmax * t_run);
    for (slot, fam) in fams.iter().enumerate() {
        lab.wall(slot, fam);
        for p in points {
            lab.wall_impact(slot, fam, r, p.v_n, p.v_t, p.spin, t_gap, (e, mu, 0.0));
        }
    }
    let steps = ((t_gap + 1.2 * tcs.iter().cloned().fold(0.0, f64::max)) / dt).ceil() as u64;
    let scene = lab.scene(steps)?;
    let mut be = mk.make(&scene)?;
    let (snap, done) = lab.run_to_separation(be.as_mut(), steps)?;
    out.notes.push(format!(
        "{} impacts in one scene (R = {r} m, e = {e}, μ = {mu}); dt = {dt:.4e} s (shortest t_c / {PER_CONTACT}), {done} steps",
        lab.wall_impacts.len()
    ));
    let mut res = Vec::new();
    for (k, w) in lab.wall_impacts.iter().enumerate() {
        let fam = &fams[k / points.len()];
        res.push(SweepResult {
            fam: fam.name.clone(),
            pt: points[k % points.len()].clone(),
            after: wall_state(&snap, w),
            radius: r,
            e,
            mu,
        });
    }
    Ok(res)
}

/// Rows of a sphere–wall sweep. Gross sliding (|u0| ≥ 1.1 × 3.5 μ κ v_n):
/// Δv_t = -μ κ v_n and Δω = 5 μ κ v_n / (2R), exact for a contact that
/// slides throughout (κ = the law's compressive normal impulse / m v_n,
/// = 1 + e for e = 1), judged at `tol`; the rigid-body values with 1 + e
/// are info rows when e < 1. Sticking: the contact-point slip ratio u'/u
/// lies in [-1, 1] (the tangential compliance can at most reverse it).
fn sliding_rows(out: &mut CaseResult, case: &str, res: &[SweepResult], tol: f64) {
    let mut fams: Vec<String> = res.iter().map(|r| r.fam.clone()).collect();
    fams.dedup();
    for fam in &fams {
        let c = format!("{case} {fam}");
        let of: Vec<&SweepResult> = res.iter().filter(|r| &r.fam == fam).collect();
        let (mut en, mut dv, mut dw, mut dv_rigid, mut dw_rigid, mut stick) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for r in &of {
            let (vt_p, s_p) = r.predicted();
            let dvt = r.after.v_t - r.pt.v_t;
            let dws = r.after.spin - r.pt.spin;
            let at = r.pt.label.clone();
            en.push((
                at.clone(),
                Row::new(
                    &c,
                    "e_n = v_n'/v_n",
                    r.e,
                    r.after.v_n / r.pt.v_n,
                    Tol::Rel(0.01),
                ),
            ));
            // with a margin: at the threshold the slip just stops at
            // separation, and the tangential compliance moves that
            if r.gross() && r.slide_ratio() > 1.1 {
                dv.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "Δv_t [m/s], gross sliding",
                        vt_p - r.pt.v_t,
                        dvt,
                        Tol::Rel(tol),
                    ),
                ));
                dw.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "Δω [rad/s], gross sliding",
                        s_p - r.pt.spin,
                        dws,
                        Tol::Rel(tol),
                    ),
                ));
                if r.e < 1.0 {
                    let o = oblique(r.pt.v_n, r.u0(), 1.0 + r.e, r.mu);
                    dv_rigid.push((
                        at.clone(),
                        Row::new(
                            &c,
                            "Δv_t [m/s] vs rigid -μ(1+e)v_n",
                            -o.j_per_mstar,
                            dvt,
                            Tol::Info,
                        ),
                    ));
                    dw_rigid.push((
                        at.clone(),
                        Row::new(
                            &c,
                            "Δω [rad/s] vs rigid 5μ(1+e)v_n/2R",
                            2.5 * o.j_per_mstar / r.radius,
                            dws,
                            Tol::Info,
                        ),
                    ));
                }
            } else if !r.gross() {
                stick.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "slip u'/u, sticking (|u'/u| ≤ 1)",
                        0.0,
                        r.slip_ratio(),
                        Tol::Abs(1.0),
                    ),
                ));
            }
        }
        for set in [en, dv, dw, dv_rigid, dw_rigid, stick] {
            if let Some(row) = worst(set) {
                out.row(row);
            }
        }
    }
}

fn case4(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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

/// Tolerance on v_t'/v_t against the rigid rolling limit 5/7 in the
/// sticking regime (absolute): v_t'/v_t = 1 - (1 - u'/u)/3.5, and the
/// tangential compliance keeps the contact-point slip ratio u'/u between
/// -1 (full reversal) and 1, so v_t'/v_t ∈ [3/7, 1] = 5/7 ± 2/7.
pub const STICK_TOL: f64 = 2.0 / 7.0;

fn case5(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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

fn case6(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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

// ---------------------------------------------------------------- 7, 8: pairs

/// A pair impact along x (a → b) with spins about z: slip of the contact
/// point along y, u = v_ay + R_a ω_az − v_by + R_b ω_bz.
struct PairSweep {
    fam: String,
    x: f64,
    label: String,
    before: ([f64; 3], [f64; 3], [f64; 3], [f64; 3]),
    after: PairState,
    q: PairImpact,
}

impl PairSweep {
    fn slip(v_a: [f64; 3], w_a: [f64; 3], v_b: [f64; 3], w_b: [f64; 3], q: &PairImpact) -> f64 {
        v_a[1] + q.r_a * w_a[2] - v_b[1] + q.r_b * w_b[2]
    }
    fn u0(&self) -> f64 {
        let (va, wa, vb, wb) = self.before;
        Self::slip(va, wa, vb, wb, &self.q)
    }
    fn u1(&self) -> f64 {
        let s = &self.after;
        Self::slip(s.v_a, s.w_a, s.v_b, s.w_b, &self.q)
    }
    fn m_star(&self) -> f64 {
        self.q.m_a * self.q.m_b / (self.q.m_a + self.q.m_b)
    }
}

#[allow(clippy::type_complexity)]
fn pair_sweep(
    mk: &mut dyn Maker,
    name: &str,
    pairs: &[(
        String,
        f64,
        String,
        Material,
        f64,
        Material,
        f64,
        [f64; 3],
        [f64; 3],
        [f64; 3],
        [f64; 3],
    )],
    (e, mu): (f64, f64),
    out: &mut CaseResult,
) -> Result<Vec<PairSweep>, String> {
    let mut tcs = Vec::new();
    let mut rmax = 0.0f64;
    for (_, _, _, ma, ra, mb, rb, va, _, vb, _) in pairs {
        let (m1, m2) = (sphere_mass(ma, *ra), sphere_mass(mb, *rb));
        let vrel = va[0] - vb[0];
        tcs.push(
            hertz(
                m1 * m2 / (m1 + m2),
                ra * rb / (ra + rb),
                e_star(ma, mb),
                vrel,
            )
            .contact_time,
        );
        rmax = rmax.max(ra.max(*rb));
    }
    let dt = dt_for(&tcs, PER_CONTACT);
    let t_gap = 10.0 * dt;
    let mut lab = Lab::new(name, rmax, dt);
    for (_, _, _, ma, ra, mb, rb, va, wa, vb, wb) in pairs {
        lab.pair(
            (ma, *ra, *va, *wa),
            (mb, *rb, *vb, *wb),
            t_gap,
            (e, mu, 0.0),
        );
    }
    let steps = ((t_gap + 1.2 * tcs.iter().cloned().fold(0.0, f64::max)) / dt).ceil() as u64;
    let scene = lab.scene(steps)?;
    let mut be = mk.make(&scene)?;
    let (snap, done) = lab.run_to_separation(be.as_mut(), steps)?;
    out.notes.push(format!(
        "{} pairs in one scene (e = {e}, μ = {mu}); dt = {dt:.4e} s (shortest t_c / {PER_CONTACT}), {done} steps",
        lab.pairs.len()
    ));
    Ok(pairs
        .iter()
        .zip(&lab.pairs)
        .map(|(p, q)| PairSweep {
            fam: p.0.clone(),
            x: p.1,
            label: p.2.clone(),
            before: (p.7, p.8, p.9, p.10),
            after: pair_state(&snap, q),
            q: q.clone(),
        })
        .collect())
}

/// Rows of a pair sweep, as [`sliding_rows`]: sphere 1's Δv_t and Δω and
/// the slip ratio u'/u when sliding throughout (κ from the law's
/// compressive impulse), the rigid-body values as info, |u'/u| ≤ 1 when
/// sticking.
fn pair_rows(out: &mut CaseResult, case: &str, res: &[PairSweep], e: f64, mu: f64, v_rel: f64) {
    let kappa = theory::compressive_impulse_factor(e);
    let mut fams: Vec<String> = res.iter().map(|r| r.fam.clone()).collect();
    fams.dedup();
    for fam in &fams {
        let c = format!("{case} {fam}");
        let (mut dv, mut dw, mut du, mut rig, mut st) = (vec![], vec![], vec![], vec![], vec![]);
        for s in res.iter().filter(|s| &s.fam == fam) {
            let o = oblique(v_rel, s.u0(), kappa, mu);
            let j = o.j_per_mstar * s.m_star();
            let dva = -j / s.q.m_a;
            let dwa = -2.5 * j / (s.q.m_a * s.q.r_a);
            let ratio = s.u0().abs() / (3.5 * mu * kappa * v_rel);
            let at = s.label.clone();
            let meas_dv = s.after.v_a[1] - s.before.0[1];
            if o.gross_sliding && ratio > 1.1 {
                dv.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "Δv_t of sphere 1 [m/s], gross sliding",
                        dva,
                        meas_dv,
                        Tol::Rel(0.02),
                    ),
                ));
                dw.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "Δω of sphere 1 [rad/s], gross sliding",
                        dwa,
                        s.after.w_a[2] - s.before.1[2],
                        Tol::Rel(0.02),
                    ),
                ));
                du.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "slip u'/u, gross sliding",
                        o.u_after / s.u0(),
                        s.u1() / s.u0(),
                        Tol::Abs(0.02),
                    ),
                ));
                let r = oblique(v_rel, s.u0(), 1.0 + e, mu);
                rig.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "Δv_t of sphere 1 [m/s] vs rigid -μ(1+e)v m*/m",
                        -r.j_per_mstar * s.m_star() / s.q.m_a,
                        meas_dv,
                        Tol::Info,
                    ),
                ));
            } else if !o.gross_sliding {
                st.push((
                    at.clone(),
                    Row::new(
                        &c,
                        "slip u'/u, sticking (|u'/u| ≤ 1)",
                        0.0,
                        s.u1() / s.u0(),
                        Tol::Abs(1.0),
                    ),
                ));
            }
        }
        for set in [dv, dw, du, rig, st] {
            if let Some(r) = worst(set) {
                out.row(r);
            }
        }
    }
}

fn case7(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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
                [v, 0.0, 0.0],
                [0.0, 0.0, w],
                [-v, 0.0, 0.0],
                [0.0, 0.0, w],
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
            of.iter().map(|s| (s.x, s.after.w_a[2])).collect(),
        ));
        p_v.series.push(measured(
            &fam.name,
            of.iter().map(|s| (s.x, s.after.v_a[1].abs())).collect(),
        ));
        for s in &of {
            let lab = format!("{} {}", fam.name, s.label);
            out.point("7", &lab, "omega", s.after.w_a[2]);
            out.point("7", &lab, "vt", s.after.v_a[1].abs());
        }
    }
    out.plots.extend([p_w, p_v]);
    Ok(out)
}

fn case8(mk: &mut dyn Maker) -> Result<CaseResult, String> {
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
                [v, 0.0, 0.0],
                [0.0, 0.0, w],
                [0.0; 3],
                [0.0; 3],
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

// ---------------------------------------------------------------- analytic checks

fn case_linear(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.001;
    let v = 0.5;
    let tc = 1e-4;
    // the dashpot force jumps to c v_n at first touch: the start and end of
    // the contact fall inside a step, an O(dt/t_c) error in e (1.6 % at
    // e = 0.2 with t_c/200), so finer steps here
    let dt = tc / 500.0;
    let es = [0.2, 0.5, 0.8, 1.0];
    let mut lab = Lab::new("linear", r, dt);
    let g = mat("glass", 48e9, 0.2, 2800.0);
    for &e in &es {
        let m = Material {
            name: format!("glass e={e}"),
            ..g.clone()
        };
        lab.pair(
            (&m, r, [v, 0.0, 0.0], [0.0; 3]),
            (&m, r, [-v, 0.0, 0.0], [0.0; 3]),
            10.0 * dt,
            (e, 0.0, 0.0),
        );
    }
    let steps = (1.2 * tc / dt).ceil() as u64 + 20;
    let mut scene = lab.scene(steps)?;
    scene.contact.model = crate::scene::ContactModel::Linear;
    scene.contact.contact_time = Some(tc);
    scene.validate().map_err(err)?;
    let mut be = mk.make(&scene)?;
    let snaps = record(be.as_mut(), steps)?;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "linear model from contact_time = {tc} s (k_n = m*(π² + ln²e)/t_c², c_n = -2 ln e m*/t_c); R = {r} m, ±{v} m/s; dt = {dt:.1e} s, every step read back"
    ));
    for (k, &e) in es.iter().enumerate() {
        let q = &lab.pairs[k];
        let ov: Vec<f64> = snaps.iter().map(|p| pair_state(p, q).overlap).collect();
        let (t, _) = contact_time_and_max(&ov, dt).ok_or("linear: no complete contact")?;
        let last = pair_state(&snaps[snaps.len() - 1], q);
        let em = last.v_sep / (2.0 * v);
        let c = format!("linear e={e}");
        // one step of the dashpot force c v_n at first touch (the overlap
        // is found at the step's end, the force acts for the whole step):
        // a first-order error of at most 2|ln e| dt/t_c in e
        let tol = 2.0 * e.ln().abs() * dt / tc + 0.002;
        out.row(Row::new(&c, "e", e, em, Tol::Rel(tol)));
        out.row(Row::new(&c, "t_c [s]", tc, t, Tol::Rel(0.005)));
        out.point("linear", &format!("e={e}"), "e", em);
        out.point("linear", &format!("e={e}"), "t_c", t);
    }
    Ok(out)
}

fn case_rolling(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.005;
    let g = 9.81;
    let m = mat("soft", 1e7, 0.25, 2500.0);
    let dt = 4e-5;
    let mut lab = Lab::new("rolling", r, dt);
    lab.gravity = [0.0, 0.0, -g];
    lab.wall(0, &m);
    let es = e_star(&m, &Lab::rigid(&m));
    let mass = sphere_mass(&m, r);
    let d_eq = theory::resting_overlap(mass, r, es, g);
    let mu_r = 0.1;
    let (w0, v_roll, v_slide) = (20.0, 0.05, 0.1);
    // (a) spinning in place, μ = 0: I dω/dt = -μ_r R m g
    let a = lab.resting(
        0,
        &Material {
            name: "spin".into(),
            ..m.clone()
        },
        r,
        0.0,
        w0,
        d_eq,
        (0.5, 0.0, mu_r),
    );
    // (b) rolling, μ = 0.5: (I + m R²) dω/dt = -μ_r R m g
    let b = lab.resting(
        0,
        &Material {
            name: "roll".into(),
            ..m.clone()
        },
        r,
        v_roll,
        v_roll / r,
        d_eq,
        (0.5, 0.5, mu_r),
    );
    // (c) sliding without spin, μ = 0.3, no rolling friction
    let c = lab.resting(
        0,
        &Material {
            name: "slide".into(),
            ..m.clone()
        },
        r,
        v_slide,
        0.0,
        d_eq,
        (0.5, 0.3, 0.0),
    );
    let rate_spin = 2.5 * mu_r * g / r;
    let rate_roll = 5.0 / 7.0 * mu_r * g / r;
    let t_end = 1.15 * (v_roll / r / rate_roll).max(w0 / rate_spin);
    let every = 50u64;
    let chunks = (t_end / dt / every as f64).ceil() as u64;
    let scene = lab.scene(chunks * every)?;
    let mut be = mk.make(&scene)?;
    let mut hist = Vec::new();
    let p0 = be.snapshot();
    hist.push((0.0, p0));
    for k in 1..=chunks {
        be.advance(every).map_err(err)?;
        hist.push(((k * every) as f64 * dt, be.snapshot()));
    }
    let spin = |p: &crate::state::Particles<f64>, id: u32| {
        wall_state(p, &lab.wall_impacts[id as usize]).spin
    };
    let vt = |p: &crate::state::Particles<f64>, id: u32| {
        wall_state(p, &lab.wall_impacts[id as usize]).v_t
    };
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {r} m, E = 1e7 Pa, resting at the Hertz overlap {d_eq:.3e} m under g; μ_r = {mu_r}; dt = {dt:.0e} s, {} steps, read back every {every}",
        chunks * every
    ));
    // slope of ω(t) over the samples while ω > 0.2 ω0 (least squares)
    let slope = |id: u32, w_start: f64| {
        let pts: Vec<(f64, f64)> = hist
            .iter()
            .map(|(t, p)| (*t, spin(p, id)))
            .filter(|&(t, w)| t > 0.0 && w > 0.2 * w_start)
            .collect();
        let n = pts.len() as f64;
        let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
        let (mx, my) = (sx / n, sy / n);
        let (sxy, sxx) = pts.iter().fold((0.0, 0.0), |a, p| {
            (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx).powi(2))
        });
        sxy / sxx
    };
    let last = &hist[hist.len() - 1].1;
    out.row(Row::new(
        "rolling spin, μ = 0",
        "dω/dt [rad/s²] = -5μ_r g/(2R)",
        -rate_spin,
        slope(a, w0),
        Tol::Rel(0.01),
    ));
    out.row(Row::new(
        "rolling spin, μ = 0",
        "ω at the end [rad/s] (stopped)",
        0.0,
        spin(last, a),
        Tol::Abs(1e-3 * w0),
    ));
    out.row(Row::new(
        "rolling, μ = 0.5",
        "dω/dt [rad/s²] = -5μ_r g/(7R)",
        -rate_roll,
        slope(b, v_roll / r),
        Tol::Rel(0.02),
    ));
    out.row(Row::new(
        "rolling, μ = 0.5",
        "ω at the end [rad/s] (stopped)",
        0.0,
        spin(last, b),
        Tol::Abs(1e-2 * v_roll / r),
    ));
    // (c): once the slip stops, v = Rω = 5 v0 / 7 for good
    let t_stick = 2.0 * v_slide / (7.0 * 0.3 * g);
    out.row(Row::new(
        "sliding, μ = 0.3",
        "v after slipping [m/s] = 5 v0/7",
        5.0 * v_slide / 7.0,
        vt(last, c),
        Tol::Rel(0.005),
    ));
    out.row(Row::new(
        "sliding, μ = 0.3",
        "R ω after slipping [m/s] = 5 v0/7",
        5.0 * v_slide / 7.0,
        r * spin(last, c),
        Tol::Rel(0.005),
    ));
    // the time the slip stops: first sample with |v - Rω| < 1 % of v0
    let t_meas = hist
        .iter()
        .find(|(_, p)| (vt(p, c) - r * spin(p, c)).abs() < 0.01 * v_slide)
        .map(|(t, _)| *t)
        .unwrap_or(f64::NAN);
    out.row(Row::new(
        "sliding, μ = 0.3",
        "time to roll [s] = 2v0/(7μg)",
        t_stick,
        t_meas,
        Tol::Abs(1.5 * every as f64 * dt),
    ));
    out.point("rolling", "spin", "rate", slope(a, w0));
    out.point("rolling", "roll", "rate", slope(b, v_roll / r));
    out.point("rolling", "slide", "v_final", vt(last, c));
    let ts: Vec<f64> = hist.iter().map(|(t, _)| *t).collect();
    out.plots.push(Plot {
        stem: "rolling".into(),
        title: "Rolling resistance and the end of sliding".into(),
        x_label: "t [ms]".into(),
        y_label: "ω [rad/s]".into(),
        caption: "Angular velocity vs time: spinning in place with μ = 0 (decays at 5μ_r g/(2R)), rolling with μ = 0.5 (decays at 5μ_r g/(7R)), sliding without spin with μ_r = 0 (spins up to 5v0/(7R)); lines: theory, markers: talus".into(),
        series: vec![
            theory_series("spin, theory", ts.iter().map(|&t| (t * 1e3, (w0 - rate_spin * t).max(0.0))).collect()),
            theory_series("roll, theory", ts.iter().map(|&t| (t * 1e3, (v_roll / r - rate_roll * t).max(0.0))).collect()),
            theory_series("slide, theory", ts.iter().map(|&t| (t * 1e3, (2.5 * 0.3 * g * t / r).min(5.0 * v_slide / (7.0 * r)))).collect()),
            measured("spin", hist.iter().map(|(t, p)| (t * 1e3, spin(p, a))).collect()),
            measured("roll", hist.iter().map(|(t, p)| (t * 1e3, spin(p, b))).collect()),
            measured("slide", hist.iter().map(|(t, p)| (t * 1e3, spin(p, c))).collect()),
        ],
    });
    Ok(out)
}

fn case_energy(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.001;
    let m = Material {
        name: "beads".into(),
        density: 2500.0,
        youngs_modulus: 2e6,
        poisson_ratio: 0.25,
        restitution: 0.5,
        friction: 0.5,
        rolling_friction: 0.02,
    };
    let l = 0.012;
    let scene = SceneBuilder::new("energy")
        .domain([0.0; 3], [l, l, 0.03])
        .periodic([true, true, false])
        .dt_auto(0.1)
        .duration(0.08)
        .material(m)
        .wall([0.0; 3], [0.0, 0.0, 1.0], "beads")
        .generate(
            "lattice",
            ([0.0, 0.0, 0.001], [l, l, 0.03]),
            RadiusDist::Uniform {
                min: 0.9 * r,
                max: r,
            },
            "beads",
            Some(150),
            [0.0, 0.0, -0.2],
        )
        .build()
        .map_err(err)?;
    let dt = scene.dt();
    let steps = scene.steps();
    let chunks = 12u64;
    let per = steps.div_ceil(chunks);
    let mut be = mk.make(&scene)?;
    be.advance(1).map_err(err)?;
    let e0 = be.diagnostics().total();
    let mut worst = 0.0f64;
    let mut series = Vec::new();
    let mut last = be.diagnostics();
    for k in 1..=chunks {
        be.advance(per).map_err(err)?;
        let d = be.diagnostics();
        let res = (d.total() - e0).abs() / d.dissipated.max(1e-300);
        worst = worst.max(res);
        series.push((
            (k * per) as f64 * dt,
            100.0 * (d.total() - e0) / d.dissipated.max(1e-300),
        ));
        last = d;
    }
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "{} spheres (R 0.9–1 mm, E = 2e6 Pa, e = 0.5, μ = 0.5, μ_r = 0.02) falling onto a floor, periodic in x and y; dt = {dt:.3e} s (auto, safety 0.1), {} steps; energies read {chunks} times",
        scene.particles.len(),
        chunks * per
    ));
    out.row(Row::new(
        "energy",
        "|E(t) - E(0)| / dissipated, worst",
        0.0,
        worst,
        Tol::Abs(0.01),
    ));
    out.row(Row::new(
        "energy",
        "kinetic / dissipated at the end (settled)",
        0.0,
        (last.kinetic_translational + last.kinetic_rotational) / last.dissipated,
        Tol::Abs(0.05),
    ));
    out.point("energy", "residual", "worst", worst);
    out.plots.push(Plot {
        stem: "energy".into(),
        title: "Energy balance of a settling column".into(),
        x_label: "t [s]".into(),
        y_label: "(E(t) - E(0)) / dissipated [%]".into(),
        caption: "Energy residual (kinetic + rotational + potential + elastic + dissipated, minus its initial value) relative to the energy dissipated so far".into(),
        series: vec![
            theory_series("±1 %", vec![(0.0, 1.0), (steps as f64 * dt, 1.0)]),
            theory_series("-1 %", vec![(0.0, -1.0), (steps as f64 * dt, -1.0)]),
            measured("residual", series),
        ],
    });
    Ok(out)
}

fn case_packing(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.001;
    let l = 0.02;
    let mut out = CaseResult::default();
    for (mu, lo, hi) in [(0.0, 0.62, 0.66), (0.5, 0.58, 0.62)] {
        let m = Material {
            name: "p".into(),
            density: 2500.0,
            youngs_modulus: 5e6,
            poisson_ratio: 0.25,
            restitution: 0.1,
            friction: mu,
            rolling_friction: 0.0,
        };
        let scene = SceneBuilder::new("packing")
            .domain([0.0; 3], [l, l, 0.2])
            .periodic([true, true, false])
            .dt_auto(0.25)
            .duration(0.4)
            .material(m)
            .wall([0.0; 3], [0.0, 0.0, 1.0], "p")
            .generate(
                "random",
                ([0.0, 0.0, 0.0], [l, l, 0.2]),
                RadiusDist::Constant(r),
                "p",
                Some(2000),
                [0.0, 0.0, 0.0],
            )
            .build()
            .map_err(err)?;
        let dt = scene.dt();
        let steps = scene.steps();
        let mut be = mk.make(&scene)?;
        be.advance(steps).map_err(err)?;
        let p = be.snapshot();
        let d = be.diagnostics();
        // solid fraction in a slab away from the floor and the free surface:
        // exact sphere–slab intersection volumes
        let mut ztop = 0.0f64;
        for x in &p.pos_rad {
            ztop = ztop.max(x[2]);
        }
        let (z0, z1) = (4.0 * 2.0 * r, ztop - 4.0 * 2.0 * r);
        let cap = |h: f64| {
            // volume of a sphere of radius r below height h (relative to its centre)
            let h = h.clamp(-r, r);
            std::f64::consts::PI * (r * r * (h + r) - (h.powi(3) + r.powi(3)) / 3.0)
        };
        let vol: f64 = p
            .pos_rad
            .iter()
            .map(|x| cap(z1 - x[2]) - cap(z0 - x[2]))
            .sum();
        let phi = vol / (l * l * (z1 - z0));
        out.notes.push(format!(
            "μ = {mu}: {} spheres R = {r} m (E = 5e6 Pa, e = 0.1) poured into a {l} m periodic box; dt = {dt:.2e} s, {steps} steps; slab z = {z0:.4}..{z1:.4} m; kinetic energy at the end {:.2e} J",
            p.len(),
            d.kinetic_translational
        ));
        out.row(Row::new(
            &format!("packing μ = {mu}"),
            "solid fraction",
            0.5 * (lo + hi),
            phi,
            Tol::Abs(0.5 * (hi - lo)),
        ));
        out.point("packing", &format!("mu={mu}"), "phi", phi);
    }
    Ok(out)
}
