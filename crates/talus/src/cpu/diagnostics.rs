//! Stage 5, diagnostics: energies and extrema at the step just integrated.
//! Full-step quantities are recovered from the arrays without storing more:
//! with v(n+½) from the motion record and a(n) from the force just used
//! (`force`, which the next contact stage overwrites), v(n) = v(n+½) -
//! a(n) dt/2 and x(n) = x(n+1) - v(n+½) dt; the same for ω. The totals
//! are exact sums (`sums::Exact`), so they depend neither on the thread
//! count nor on the particles' order in memory.

use super::data::Step;
use crate::backend::Diagnostics;
use crate::sums::Exact;

pub fn diagnostics(st: &Step) -> Diagnostics {
    let (sums, max_speed) = sums(st);
    let mut d = Diagnostics {
        max_speed,
        ..Default::default()
    };
    [
        d.kinetic_translational,
        d.kinetic_rotational,
        d.potential,
        d.elastic,
        d.dissipated,
    ] = sums.map(|s| s.value());
    d
}

/// The exact sums of [`diagnostics`] (kinetic translational and
/// rotational, potential, elastic, dissipated) over the particles that are
/// not ghosts (`Work::ghost`), and the largest speed among them: the
/// partial totals of one rank of a distributed run.
pub fn sums(st: &Step) -> ([Exact; 5], f64) {
    let g = st.gravity_now();
    let mut max_speed = 0.0f64;
    let mut sums = [Exact::default(); 5];
    for i in 0..st.particles.len() {
        if st.work.is_ghost(i) {
            continue;
        }
        let e = particle_energy(st, i, g);
        let terms = [
            e.kinetic_translational,
            e.kinetic_rotational,
            e.potential,
            e.elastic,
            e.dissipated,
        ];
        for (s, x) in sums.iter_mut().zip(terms) {
            s.add(x);
        }
        max_speed = max_speed.max(e.max_speed);
    }
    // the clumps' bodies (their members' rows count their contacts only)
    for k in 0..st.clumps.len() {
        let e = super::clumps::energy(st, k, g.into());
        sums[0].add(e.kinetic_translational);
        sums[1].add(e.kinetic_rotational);
        sums[2].add(e.potential);
        max_speed = max_speed.max(e.max_speed);
    }
    (sums, max_speed)
}

/// Particle `i`'s share of [`diagnostics`] in gravity `g` (its speed in
/// `max_speed`): what the run's energy total loses when an outlet takes it.
pub fn particle_energy(st: &Step, i: usize, g: [f64; 3]) -> Diagnostics {
    let dt = st.law.dt;
    let p = &st.particles;
    let w = &st.work;
    let mo = w.motion[i];
    let (inv_m, inv_i) = (mo[0][3], mo[1][3]);
    let f = w.force[i];
    let t = w.torque[i];
    let m = 1.0 / inv_m;
    let inertia = 1.0 / inv_i;
    let mut v2 = 0.0;
    let mut w2 = 0.0;
    let mut gx = 0.0;
    for k in 0..3 {
        let a = f[k] * inv_m + g[k];
        let v_half = mo[2][k];
        let vn = v_half - 0.5 * dt * a;
        let wn = mo[3][k] - 0.5 * dt * t[k] * inv_i;
        let xn = p.pos_rad[i][k] - v_half * dt;
        v2 += vn * vn;
        w2 += wn * wn;
        gx += g[k] * xn;
    }
    if w.body
        .get(i)
        .is_some_and(|&b| b != crate::shapes::clumps::NONE)
    {
        // a clump's member: its contacts' energy; the body's is its clump's
        return Diagnostics {
            elastic: f[3],
            dissipated: p.dissipated[i],
            max_speed: v2.sqrt(),
            ..Default::default()
        };
    }
    Diagnostics {
        kinetic_translational: 0.5 * m * v2,
        kinetic_rotational: 0.5 * inertia * w2,
        potential: -(m * gx),
        elastic: f[3],
        dissipated: p.dissipated[i],
        max_speed: v2.sqrt(),
    }
}
