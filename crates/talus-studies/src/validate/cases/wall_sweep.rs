//! The sphere–wall sweep harness of Chung & Ooi tests 4–6: every impact of
//! a sweep in one scene, and the gross-sliding / sticking rows.

use super::common::{dt_for, PER_CONTACT};
use crate::validate::maker::Maker;
use crate::validate::readback::{wall_state, WallState};
use crate::validate::result::CaseResult;
use crate::validate::row::{worst, Row, Tol};
use crate::validate::setup::Lab;
use crate::validate::theory::{self, e_star, hertz, oblique, sphere_mass};
use talus::scene::Material;

/// One impact of a sweep.
#[derive(Clone)]
pub struct SweepPoint {
    pub label: String,
    /// Plot abscissa.
    pub x: f64,
    pub v_n: f64,
    pub v_t: f64,
    pub spin: f64,
}

/// Per impact: before, after (wall frame), and the rigid-body prediction.
pub struct SweepResult {
    pub fam: String,
    pub pt: SweepPoint,
    pub after: WallState,
    pub radius: f64,
    pub e: f64,
    pub mu: f64,
}

impl SweepResult {
    pub fn u0(&self) -> f64 {
        self.pt.v_t - self.radius * self.pt.spin
    }
    /// The prediction with the law's compressive normal impulse κ(e).
    pub fn theory(&self) -> theory::Oblique {
        oblique(self.pt.v_n, self.u0(), self.kappa(), self.mu)
    }
    pub fn kappa(&self) -> f64 {
        theory::compressive_impulse_factor(self.e)
    }
    /// Predicted (v_t', spin') for a wall (m* = m).
    pub fn predicted(&self) -> (f64, f64) {
        let j = self.theory().j_per_mstar;
        (self.pt.v_t - j, self.pt.spin + 2.5 * j / self.radius)
    }
    pub fn gross(&self) -> bool {
        self.theory().gross_sliding
    }
    /// How far into gross sliding: |u0| / (3.5 μ κ v_n).
    pub fn slide_ratio(&self) -> f64 {
        self.u0().abs() / (3.5 * self.mu * self.kappa() * self.pt.v_n)
    }
    /// Contact-point slip after / before.
    pub fn slip_ratio(&self) -> f64 {
        (self.after.v_t - self.radius * self.after.spin) / self.u0()
    }
}

/// Runs every (family, point) as a sphere–wall impact in one scene.
pub fn wall_sweep(
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
pub fn sliding_rows(out: &mut CaseResult, case: &str, res: &[SweepResult], tol: f64) {
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
