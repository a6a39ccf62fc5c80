//! Stage 5, integrate: velocity Verlet (kick–drift–kick) for translation and
//! rotation, with the velocity the contact stage sees predicted to the full
//! step.
//!
//! The arrays hold x(n) and the *predicted* full-step velocity
//! v*(n) = v(n-½) + a(n-1) dt/2, so damping forces see a velocity at the same
//! instant as the positions (second order; with the half-step velocity the
//! damping work is off by a·dt/2, ≈8 % at 20 steps per contact). With
//! a(n) from this step's forces:
//!
//! ```text
//! v(n+½) = v(n-½) + a(n) dt
//! x(n+1) = x(n) + v(n+½) dt
//! v*(n+1) = v(n+½) + a(n) dt/2
//! ```
//!
//! with v(n-½) kept in the motion record ([`crate::state::Motion`], which
//! integrate rewrites for the next step's contacts: v*, ω*, v(n+½),
//! ω(n+½)). Positions follow plain leapfrog. On the first step a(n-1) =
//! a(n), i.e. v(-½) = v(0) - a(0) dt/2: the initial velocity is v(0). The
//! same for ω with torques. Adds this step's dissipated energy to each
//! particle's total, wraps periodic axes, and reports the lowest id with a
//! non-finite value (as the GPU's atomicMin) and whether some particle has
//! now moved more than skin / 2 from where the neighbour list was built
//! (then the next step rebuilds it).

use super::data::Step;
use rayon::prelude::*;

/// What integrate reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IntegrateReport {
    /// Lowest id with a non-finite position or velocity.
    pub nonfinite: Option<u32>,
    /// Some particle moved more than skin / 2 since the list was built.
    pub rebuild: bool,
}

impl IntegrateReport {
    /// Both reports': the lower id, either's rebuild.
    pub fn merge(self, o: IntegrateReport) -> IntegrateReport {
        let nonfinite = match (self.nonfinite, o.nonfinite) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        IntegrateReport {
            nonfinite,
            rebuild: self.rebuild || o.rebuild,
        }
    }
}

pub fn integrate(st: &mut Step) -> IntegrateReport {
    let dt = st.law.dt;
    let half_skin2 = 0.25 * st.skin * st.skin;
    let g = st.gravity_now();
    let grid = st.grid;
    let first = st.step == 0;
    let w = &mut st.work;
    let (force, torque) = (&w.force, &w.torque);
    let pos_ref = &w.pos_ref;
    let ghost = &w.ghost;
    // a clump's members are moved by their clump (`clumps::integrate`)
    let body = &w.body;
    // materials from `held` on are held by [[fixed]]: at rest where they
    // are (their forces are summed all the same)
    let held = st.held_from;
    let p = &mut st.particles;
    let ids = &p.id;
    let mats = &p.material;
    p.pos_rad
        .par_iter_mut()
        .zip(p.vel_invm.par_iter_mut())
        .zip(p.omega_invi.par_iter_mut())
        .zip(p.dissipated.par_iter_mut())
        .zip(w.motion.par_iter_mut())
        .with_min_len(crate::state::PAR_MIN)
        .enumerate()
        .map(|(i, ((((x, v), om), diss), m))| {
            // a rank's copy of another's particle: its owner moves it
            // (the ghosts' refresh), not tested here
            if ghost.get(i) == Some(&true)
                || body
                    .get(i)
                    .is_some_and(|&b| b != crate::shapes::clumps::NONE)
            {
                return IntegrateReport::default();
            }
            let (f, t) = (force[i], torque[i]);
            let free = (mats[i] as usize) < held;
            let mut pos = [0.0; 3];
            for k in 0..3 {
                let a = if free { f[k] * v[3] + g[k] } else { 0.0 };
                // v(n-½): stored, or on the first step v(0) - a(0) dt/2
                let v_prev = if !free {
                    0.0
                } else if first {
                    v[k] - 0.5 * a * dt
                } else {
                    m[2][k]
                };
                let v_half = v_prev + a * dt;
                pos[k] = x[k] + v_half * dt;
                v[k] = v_half + 0.5 * a * dt;
                let al = if free { t[k] * om[3] } else { 0.0 };
                let w_prev = if !free {
                    0.0
                } else if first {
                    om[k] - 0.5 * al * dt
                } else {
                    m[3][k]
                };
                let w_half = w_prev + al * dt;
                om[k] = w_half + 0.5 * al * dt;
                m[0][k] = v[k];
                m[1][k] = om[k];
                m[2][k] = v_half;
                m[3][k] = w_half;
            }
            grid.wrap(&mut pos);
            x[0] = pos[0];
            x[1] = pos[1];
            x[2] = pos[2];
            *diss += t[3];
            // x · 0 is NaN for ±∞ and NaN, ±0 otherwise: the sum is 0
            // exactly when all nine are finite (no branch per value)
            let zero = (0..3).fold(0.0, |s, k| s + x[k] * 0.0 + v[k] * 0.0 + om[k] * 0.0);
            let finite = zero == 0.0;
            let moved = super::neighbours::displacement2(&grid, pos_ref[i], pos) > half_skin2;
            IntegrateReport {
                nonfinite: (!finite).then_some(ids[i]),
                rebuild: moved,
            }
        })
        .reduce(IntegrateReport::default, IntegrateReport::merge)
}
