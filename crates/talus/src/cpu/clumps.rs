//! The clumps' part of the integrate stage (and their bookkeeping through
//! sort and removal): see `shapes::clumps` for how a clump is held.
//!
//! Per clump, with F and T the sums over its members in member order
//! (T = Σ q b_m × f_m + t_m, about the centre of mass; member order, not
//! row order, so the bits do not depend on the sort):
//!
//! ```text
//! V(n+½) = V(n−½) + (F/M + g) dt           X(n+1) = X(n) + V(n+½) dt
//! L(n+½) = L(n−½) + T dt                   q(n+1) = drift(q(n), L(n+½), dt)
//! V*(n+1) = V(n+½) + (F/M + g) dt/2        L*(n+1) = L(n+½) + T dt/2
//! ```
//!
//! (the spheres' kick–drift–kick; the drift is the exact-rotation
//! splitting of `shapes::rotation`, which keeps L and bounds the energy
//! error), ω* from L* and q(n+1). Then every member is re-posed:
//! x_m = X + q b_m, v*_m = V* + ω* × q b_m, and its v(n+½) is the chord
//! (x_m(n+1) − x_m(n))/dt, its ω(n+½) the rotation from q(n) to q(n+1)
//! over dt: what moved it, as a sphere's half-step values are.

use super::data::Step;
use super::integrate::IntegrateReport;
use crate::shapes::clumps::{in_world, NONE};
use crate::shapes::rotation::Rotor;
use glam::{DQuat, DVec3};
use rayon::prelude::*;

/// The force and torque (about the centre) on clump `k` from its
/// members' contacts: in member order, arms from `q`.
pub fn load(st: &Step, k: usize, q: DQuat) -> (DVec3, DVec3) {
    let c = &st.clumps;
    let members = &st.shapes[c.shape[k] as usize].members;
    let rows = &c.rows[c.first[k] as usize..c.first[k + 1] as usize];
    load_of(members, rows, &st.work.force, &st.work.torque, q)
}

/// [`load`] from its parts: the shape's `members`, the clump's member
/// `rows`, the rows' forces and torques.
fn load_of(
    members: &[[f64; 4]],
    rows: &[u32],
    force: &[[f64; 4]],
    torque: &[[f64; 4]],
    q: DQuat,
) -> (DVec3, DVec3) {
    let (mut f, mut t) = (DVec3::ZERO, DVec3::ZERO);
    for (b, &row) in members.iter().zip(rows) {
        let arm = q * DVec3::new(b[0], b[1], b[2]);
        let (fr, tr) = (force[row as usize], torque[row as usize]);
        let fm = DVec3::new(fr[0], fr[1], fr[2]);
        f += fm;
        t += arm.cross(fm) + DVec3::new(tr[0], tr[1], tr[2]);
    }
    (f, t)
}

/// Moves the clumps one step and re-poses their members (after the
/// spheres' pass, which skips member rows).
pub fn integrate(st: &mut Step) -> IntegrateReport {
    if st.clumps.is_empty() {
        return IntegrateReport::default();
    }
    let dt = st.law.dt;
    let g = DVec3::from(st.gravity_now());
    let first = st.step == 0;
    let grid = st.grid;
    let half_skin2 = 0.25 * st.skin * st.skin;
    let Step {
        clumps: c,
        work: w,
        shapes,
        particles: p,
        ..
    } = st;
    // the bodies, in place: each clump's new state from its members' load,
    // and what its members need of it once (the step's turn, their ω(n+½);
    // the world inverse inertia, their lever) in `Work::clump_step`
    w.clump_step.resize(c.len(), Default::default());
    let (cfirst, crows, cshape) = (&c.first, &c.rows, &c.shape);
    let (inv_mass, moments) = (&c.inv_mass, &c.moments);
    let (force, torque) = (&w.force, &w.torque);
    c.pos
        .par_iter_mut()
        .zip(c.vel.par_iter_mut())
        .zip(c.vel_half.par_iter_mut())
        .zip(c.q.par_iter_mut())
        .zip(c.q_prev.par_iter_mut())
        .zip(c.l_half.par_iter_mut())
        .zip(c.omega.par_iter_mut())
        .zip(w.clump_step.par_iter_mut())
        .with_min_len(crate::state::PAR_MIN / 4)
        .enumerate()
        .for_each(|(k, (((((((x, v), vh), q), q_prev), lh), omega), once))| {
            let members = &shapes[cshape[k] as usize].members;
            let rows = &crows[cfirst[k] as usize..cfirst[k + 1] as usize];
            let (f, t) = load_of(members, rows, force, torque, *q);
            let a = f * inv_mass[k] + g;
            // on the first step: v(−½) = v(0) − a dt/2, and l_half holds
            // L(0): L(−½) = L(0) − T dt/2
            let v_prev = if first { *v - 0.5 * dt * a } else { *vh };
            *vh = v_prev + a * dt;
            let mut xn = (*x + *vh * dt).to_array();
            grid.wrap(&mut xn);
            *x = DVec3::from(xn);
            *v = *vh + 0.5 * dt * a;
            let l_prev = if first { *lh - 0.5 * dt * t } else { *lh };
            *lh = l_prev + t * dt;
            let mut r = Rotor { q: *q, l: *lh };
            r.drift(moments[k], dt);
            *omega = Rotor {
                q: r.q,
                l: *lh + 0.5 * dt * t,
            }
            .omega(moments[k]);
            let dq = r.q * q.inverse();
            let dq = if dq.w < 0.0 { -dq } else { dq };
            *once = (
                dq.to_scaled_axis() / dt,
                in_world(r.q, DVec3::ONE / moments[k]),
            );
            *q_prev = *q;
            *q = r.q;
        });
    // the members, each from its clump
    let c = &*c;
    let (body, member, torque, pos_ref) = (&w.body, &w.member, &w.torque, &w.pos_ref);
    let (ghost, per) = (&w.ghost, &w.clump_step);
    let ids = &p.id;
    w.lever.resize(body.len(), [0.0; 6]);
    p.pos_rad
        .par_iter_mut()
        .zip(p.vel_invm.par_iter_mut())
        .zip(p.omega_invi.par_iter_mut())
        .zip(p.dissipated.par_iter_mut())
        .zip(w.motion.par_iter_mut())
        .zip(w.lever.par_iter_mut())
        .with_min_len(crate::state::PAR_MIN)
        .enumerate()
        .map(|(i, (((((x, v), om), diss), mo), lever))| {
            let k = body[i];
            if k == NONE || ghost.get(i) == Some(&true) {
                return IntegrateReport::default();
            }
            let k = k as usize;
            let b = shapes[c.shape[k] as usize].members[member[i] as usize];
            let b = DVec3::new(b[0], b[1], b[2]);
            let (arm, arm_prev) = (c.q[k] * b, c.q_prev[k] * b);
            let mut pos = (c.pos[k] + arm).to_array();
            grid.wrap(&mut pos);
            let vm = c.vel[k] + c.omega[k].cross(arm);
            let vh = c.vel_half[k] + (arm - arm_prev) / dt;
            let (turn, inv_i) = per[k];
            *lever = crate::shapes::clumps::lever(arm, inv_i);
            x[..3].copy_from_slice(&pos);
            v[..3].copy_from_slice(&vm.to_array());
            om[..3].copy_from_slice(&c.omega[k].to_array());
            mo[0] = *v;
            mo[1] = *om;
            mo[2][..3].copy_from_slice(&vh.to_array());
            mo[3][..3].copy_from_slice(&turn.to_array());
            *diss += torque[i][3];
            let zero = (0..3).fold(0.0, |s, k| s + x[k] * 0.0 + v[k] * 0.0 + om[k] * 0.0);
            let moved = super::neighbours::displacement2(&grid, pos_ref[i], pos) > half_skin2;
            IntegrateReport {
                nonfinite: (zero != 0.0).then_some(ids[i]),
                rebuild: moved,
            }
        })
        .reduce(IntegrateReport::default, IntegrateReport::merge)
}

/// Clump `k`'s kinetic (translational, rotational) and potential energy
/// at the step just integrated (its speed in `max_speed`), recovered as
/// the spheres' are: V(n) = V(n+½) − a dt/2, X(n) = X(n+1) − V(n+½) dt,
/// L(n) = L(n+½) − T dt/2 with the load of that step, ½ ωᵀIω from L(n)
/// and q(n). Before the first step, the initial state.
pub fn energy(st: &Step, k: usize, g: DVec3) -> crate::backend::Diagnostics {
    let c = &st.clumps;
    let dt = st.law.dt;
    let m = 1.0 / c.inv_mass[k];
    let (v, x, l, q) = if st.step == 0 {
        (c.vel[k], c.pos[k], c.l_half[k], c.q[k])
    } else {
        let q = c.q_prev[k];
        let (f, t) = load(st, k, q);
        let a = f * c.inv_mass[k] + g;
        (
            c.vel_half[k] - 0.5 * dt * a,
            c.pos[k] - c.vel_half[k] * dt,
            c.l_half[k] - 0.5 * dt * t,
            q,
        )
    };
    let pi = q.inverse() * l;
    crate::backend::Diagnostics {
        kinetic_translational: 0.5 * m * v.length_squared(),
        kinetic_rotational: 0.5 * (pi * pi / c.moments[k]).element_sum(),
        potential: -m * g.dot(x),
        elastic: 0.0,
        dissipated: 0.0,
        max_speed: v.length(),
    }
}

impl Step {
    /// Every row's lever (`Work::lever`) from its clump's pose now: after
    /// every step that moves clumps and every change of the rows.
    pub(crate) fn refresh_levers(&mut self) {
        let w = &mut self.work;
        if w.body.is_empty() {
            w.lever.clear();
            return;
        }
        let c = &self.clumps;
        let shapes = &self.shapes;
        let inv: Vec<glam::DMat3> = (0..c.len()).map(|k| c.world_inverse_inertia(k)).collect();
        let (body, member, ghost) = (&w.body, &w.member, &w.ghost);
        w.lever.resize(body.len(), [0.0; 6]);
        w.lever
            .par_iter_mut()
            .with_min_len(crate::state::PAR_MIN)
            .enumerate()
            .for_each(|(i, s)| {
                let k = body[i];
                *s = if ghost.get(i) == Some(&true) {
                    // a rank's copy of another's row: its owner's lever
                    *s
                } else if k == NONE {
                    [0.0; 6]
                } else {
                    let k = k as usize;
                    let b = shapes[c.shape[k] as usize].members[member[i] as usize];
                    let arm = c.q[k] * DVec3::new(b[0], b[1], b[2]);
                    crate::shapes::clumps::lever(arm, inv[k])
                };
            });
    }

    /// After the sort's permutation (`work.order`: new row j held old row
    /// `order[j]`): the member rows of every clump follow their rows.
    pub(crate) fn clumps_follow_sort(&mut self) {
        let w = &mut self.work;
        if w.body.len() != w.order.len() {
            return;
        }
        w.body = w.order.iter().map(|&i| w.body[i as usize]).collect();
        w.member = w.order.iter().map(|&i| w.member[i as usize]).collect();
        // the poses did not change: each row's lever moves with it
        w.lever = w.order.iter().map(|&i| w.lever[i as usize]).collect();
        let c = &mut self.clumps;
        for (j, &k) in w.body.iter().enumerate() {
            if k != NONE {
                let at = c.first[k as usize] + w.member[j];
                c.rows[at as usize] = j as u32;
            }
        }
    }

    /// After a removal that kept rows `keep` (old index → kept?): drops the
    /// clumps whose rows went (a clump's rows go together: they share its
    /// id) and renumbers the rest.
    pub(crate) fn clumps_follow_removal(&mut self, keep: &[bool]) {
        let w = &mut self.work;
        if w.body.len() != keep.len() {
            return;
        }
        let c = &mut self.clumps;
        let alive: Vec<bool> = (0..c.len())
            .map(|k| keep[c.rows[c.first[k] as usize] as usize])
            .collect();
        let mut new_k = vec![NONE; c.len()];
        let mut n = 0u32;
        for (k, &a) in alive.iter().enumerate() {
            if a {
                new_k[k] = n;
                n += 1;
            }
        }
        fn compact<X: Copy>(v: &mut Vec<X>, keep: &[bool]) {
            let mut it = keep.iter();
            v.retain(|_| *it.next().unwrap());
        }
        compact(&mut w.body, keep);
        compact(&mut w.member, keep);
        // (a rank's copies keep their owners' levers: `refresh_levers`)
        if w.lever.len() == keep.len() {
            compact(&mut w.lever, keep);
        }
        for b in &mut w.body {
            if *b != NONE {
                *b = new_k[*b as usize];
            }
        }
        let sizes: Vec<u32> = (0..c.len())
            .filter(|&k| alive[k])
            .map(|k| c.first[k + 1] - c.first[k])
            .collect();
        compact(&mut c.id, &alive);
        compact(&mut c.shape, &alive);
        compact(&mut c.material, &alive);
        compact(&mut c.pos, &alive);
        compact(&mut c.vel, &alive);
        compact(&mut c.vel_half, &alive);
        compact(&mut c.inv_mass, &alive);
        compact(&mut c.moments, &alive);
        compact(&mut c.q, &alive);
        compact(&mut c.q_prev, &alive);
        compact(&mut c.l_half, &alive);
        compact(&mut c.omega, &alive);
        c.first = std::iter::once(0)
            .chain(sizes.iter().scan(0u32, |s, &x| {
                *s += x;
                Some(*s)
            }))
            .collect();
        c.rows = vec![0; *c.first.last().unwrap() as usize];
        for (j, &k) in w.body.iter().enumerate() {
            if k != NONE {
                c.rows[(c.first[k as usize] + w.member[j]) as usize] = j as u32;
            }
        }
        self.refresh_levers();
    }
}
