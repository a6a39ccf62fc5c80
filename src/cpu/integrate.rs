//! Stage 5, integrate: velocity Verlet (kick–drift–kick) for translation and
//! rotation, with the velocity the contact stage sees predicted to the full
//! step.
//!
//! The arrays hold x(n) and the *predicted* full-step velocity
//! v*(n) = v(n-½) + a(n-1) dt/2, so damping forces see a velocity at the same
//! instant as the positions (second order; with the half-step velocity the
//! damping work is off by a·dt/2, ≈8 % at 20 steps per contact). With
//! a(n) from this step's forces and a(n-1) from the previous step's:
//!
//! ```text
//! v(n-½) = v*(n) - a(n-1) dt/2
//! v(n+½) = v(n-½) + a(n) dt
//! x(n+1) = x(n) + v(n+½) dt
//! v*(n+1) = v(n+½) + a(n) dt/2
//! ```
//!
//! Positions follow plain leapfrog. On the first step a(n-1) = a(n), i.e.
//! the initial velocity is v(0). The same for ω with torques. Adds this
//! step's dissipated energy to each particle's total, wraps periodic axes,
//! and reports the lowest id with a non-finite value (as the GPU's
//! atomicMin) and whether some particle has now moved more than skin / 2
//! from where the neighbour list was built (then the next step rebuilds it).

use super::Step;
use rayon::prelude::*;

/// What integrate reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IntegrateReport {
    /// Lowest id with a non-finite position or velocity.
    pub nonfinite: Option<u32>,
    /// Some particle moved more than skin / 2 since the list was built.
    pub rebuild: bool,
}

pub fn integrate(st: &mut Step) -> IntegrateReport {
    let dt = st.law.dt;
    let half_skin2 = 0.25 * st.skin * st.skin;
    let g = st.gravity;
    let grid = st.grid;
    let first = st.step == 0;
    let w = &mut st.work;
    let (force, torque) = (&w.force, &w.torque);
    let (force_prev, torque_prev) = if first {
        (&w.force, &w.torque)
    } else {
        (&w.force_prev, &w.torque_prev)
    };
    let pos_ref = &w.pos_ref;
    let p = &mut st.particles;
    let ids = &p.id;
    let (bad, rebuild) = p
        .pos_rad
        .par_iter_mut()
        .zip(p.vel_invm.par_iter_mut())
        .zip(p.omega_invi.par_iter_mut())
        .zip(p.dissipated.par_iter_mut())
        .enumerate()
        .map(|(i, (((x, v), om), diss))| {
            let (f, fp, t, tp) = (force[i], force_prev[i], torque[i], torque_prev[i]);
            let mut pos = [0.0; 3];
            for k in 0..3 {
                let a = f[k] * v[3] + g[k];
                let a_prev = fp[k] * v[3] + g[k];
                let v_half = v[k] - 0.5 * a_prev * dt + a * dt;
                pos[k] = x[k] + v_half * dt;
                v[k] = v_half + 0.5 * a * dt;
                let al = t[k] * om[3];
                let al_prev = tp[k] * om[3];
                om[k] += (-0.5 * al_prev + 1.5 * al) * dt;
            }
            grid.wrap(&mut pos);
            x[0] = pos[0];
            x[1] = pos[1];
            x[2] = pos[2];
            *diss += t[3];
            let finite = x
                .iter()
                .chain(v.iter())
                .chain(om.iter())
                .all(|a| a.is_finite());
            let moved = super::neighbours::displacement2(&grid, pos_ref[i], pos) > half_skin2;
            ((!finite).then_some(ids[i]), moved)
        })
        .reduce(
            || (None, false),
            |a, b| {
                let id = match (a.0, b.0) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
                (id, a.1 || b.1)
            },
        );
    // this step's forces become the previous ones
    std::mem::swap(&mut w.force, &mut w.force_prev);
    std::mem::swap(&mut w.torque, &mut w.torque_prev);
    IntegrateReport {
        nonfinite: bad,
        rebuild,
    }
}
