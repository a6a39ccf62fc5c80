//! The sphere–sphere sweep harness of Chung & Ooi tests 7 and 8: every pair
//! of a sweep in one scene, and the gross-sliding / sticking rows.

use super::common::{dt_for, PER_CONTACT};
use crate::validate::maker::Maker;
use crate::validate::readback::{pair_state, PairState};
use crate::validate::result::CaseResult;
use crate::validate::row::{worst, Row, Tol};
use crate::validate::setup::{Lab, PairImpact};
use crate::validate::theory::{self, e_star, hertz, oblique, sphere_mass};
use glam::DVec3;
use talus::scene::Material;

/// A pair impact along x (a → b) with spins about z: slip of the contact
/// point along y, u = v_ay + R_a ω_az − v_by + R_b ω_bz.
pub struct PairSweep {
    pub fam: String,
    pub x: f64,
    pub label: String,
    pub before: (DVec3, DVec3, DVec3, DVec3),
    pub after: PairState,
    pub q: PairImpact,
}

impl PairSweep {
    pub fn slip(v_a: DVec3, w_a: DVec3, v_b: DVec3, w_b: DVec3, q: &PairImpact) -> f64 {
        v_a.y + q.r_a * w_a.z - v_b.y + q.r_b * w_b.z
    }
    pub fn u0(&self) -> f64 {
        let (va, wa, vb, wb) = self.before;
        Self::slip(va, wa, vb, wb, &self.q)
    }
    pub fn u1(&self) -> f64 {
        let s = &self.after;
        Self::slip(s.v_a, s.w_a, s.v_b, s.w_b, &self.q)
    }
    pub fn m_star(&self) -> f64 {
        self.q.m_a * self.q.m_b / (self.q.m_a + self.q.m_b)
    }
}

#[allow(clippy::type_complexity)]
pub fn pair_sweep(
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
        DVec3,
        DVec3,
        DVec3,
        DVec3,
    )],
    (e, mu): (f64, f64),
    out: &mut CaseResult,
) -> Result<Vec<PairSweep>, String> {
    let mut tcs = Vec::new();
    let mut rmax = 0.0f64;
    for (_, _, _, ma, ra, mb, rb, va, _, vb, _) in pairs {
        let (m1, m2) = (sphere_mass(ma, *ra), sphere_mass(mb, *rb));
        let vrel = va.x - vb.x;
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
pub fn pair_rows(out: &mut CaseResult, case: &str, res: &[PairSweep], e: f64, mu: f64, v_rel: f64) {
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
            let meas_dv = s.after.v_a.y - s.before.0.y;
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
                        s.after.w_a.z - s.before.1.z,
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
