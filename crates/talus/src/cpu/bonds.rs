//! The bonds' part of the contacts stage (CPU, f64; twin of `bonds` in
//! `shaders/bonds.wgsl`): after the pairs and walls, each intact bond of
//! `Step::bonds` through [`crate::bonds::law::bond_law`] in its canonical
//! orientation (lower id as a), its force and torques added to both
//! particles, half its strain energy to each one's elastic share and half
//! of what it dissipated (damping, or the energy held when it broke) to
//! each one's dissipated share, so the energy balance sees bonds as it
//! sees contacts.
//!
//! The laws run in parallel; their results are added in the table's
//! order (the order the bonds formed, by ids), after the contacts' sums:
//! no row order, skin or sort changes a bit. A bond whose particle left
//! the run (an outlet) is `Gone`, and what it held is released.

use super::data::Step;
use super::law::body;
use crate::bonds::law::{bond_law, strain_energy, BondResult, Status};
use rayon::prelude::*;

/// The id → row map, refreshed when rows moved.
fn refresh_rows(st: &mut Step) {
    let b = &mut st.bonds;
    if !b.stale && b.row_of.len() >= st.next_id as usize {
        return;
    }
    b.row_of.clear();
    b.row_of.resize(st.next_id as usize, u32::MAX);
    for (i, &id) in st.particles.id.iter().enumerate() {
        // a clump's members share its id: bonds join spheres only
        b.row_of[id as usize] = i as u32;
    }
    b.stale = false;
}

/// Forms the bonds of the entries whose `at` falls at this step's start,
/// from the particles where they stand (`bonds::form`, as at t = 0).
pub fn form_due(st: &mut Step) {
    let later = &st.bonds.later;
    if !later.due(st.step) {
        return;
    }
    let (p, body) = (&st.particles, &st.work.body);
    let spheres: Vec<_> = (0..p.len())
        .map(|i| {
            let clump = body
                .get(i)
                .is_some_and(|&c| c != crate::shapes::clumps::NONE);
            later.sphere(p.pos_rad[i], p.material[i], clump)
        })
        .collect();
    later.form(st.step, &mut st.bonds.table, &spheres, &p.id);
    st.bonds.stale = true;
}

/// One step of every intact bond.
pub fn bonds(st: &mut Step) {
    if st.bonds.table.is_empty() {
        return;
    }
    refresh_rows(st);
    let mut out = std::mem::take(&mut st.bonds.results);
    let (p, w, b) = (&st.particles, &st.work, &st.bonds);
    let t = &b.table;
    let dt = st.law.dt;
    let grid = &st.grid;
    let row = |id: u32| {
        b.row_of
            .get(id as usize)
            .copied()
            .filter(|&r| r != u32::MAX)
    };
    // (rows, result): None where the bond does nothing (broken before)
    (0..t.len())
        .into_par_iter()
        .with_min_len(256)
        .map(|k| {
            if t.status[k] != Status::Intact {
                return None;
            }
            let rows = t.ids[k].map(row);
            let bp = t.params(&b.specs, k);
            let [Some(ra), Some(rb)] = rows else {
                // a particle left: what the bond held is released
                let gone = BondResult {
                    force_a: [0.0; 3],
                    torque_a: [0.0; 3],
                    torque_b: [0.0; 3],
                    state: Default::default(),
                    broke: Status::Gone,
                    elastic: 0.0,
                    dissipated: strain_energy(&bp, &t.state[k]),
                };
                return Some((rows, gone));
            };
            let (ra, rb) = (ra as usize, rb as usize);
            let (xa, xb) = (p.pos_rad[ra], p.pos_rad[rb]);
            let d = grid.min_image([xa[0], xa[1], xa[2]], [xb[0], xb[1], xb[2]]);
            let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let n = d.map(|x| x / dist);
            let (a, bb) = (body(&w.motion[ra], xa[3]), body(&w.motion[rb], xb[3]));
            Some((rows, bond_law(&bp, dt, &a, &bb, n, dist, &t.state[k])))
        })
        .collect_into_vec(&mut out);
    let (t, w) = (&mut st.bonds.table, &mut st.work);
    for (k, o) in out.iter().enumerate() {
        let Some((rows, r)) = *o else { continue };
        t.state[k] = r.state;
        t.status[k] = r.broke;
        let add = |f: &mut [f64; 4], v: [f64; 3], sign: f64, e: f64| {
            for c in 0..3 {
                f[c] += sign * v[c];
            }
            f[3] += e;
        };
        let live = rows.iter().flatten().count() as f64;
        let share = |e: f64| e / live;
        if let Some(ra) = rows[0] {
            let ra = ra as usize;
            add(&mut w.force[ra], r.force_a, 1.0, share(r.elastic));
            add(&mut w.torque[ra], r.torque_a, 1.0, share(r.dissipated));
        }
        if let Some(rb) = rows[1] {
            let rb = rb as usize;
            add(&mut w.force[rb], r.force_a, -1.0, share(r.elastic));
            add(&mut w.torque[rb], r.torque_b, 1.0, share(r.dissipated));
        }
    }
    st.bonds.results = out;
}
