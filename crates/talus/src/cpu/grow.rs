//! Growing and shrinking the particle set on the CPU path: what pouring
//! (insertion) and outlets (removal) are built on. The arrays are `Vec`s,
//! so the active count is their length and the capacity theirs to manage;
//! ids are stable and new ones come from `Step::next_id`.
//!
//! - [`Step::insert`] appends particles with fresh ids and their motion
//!   records, and makes the next step rebuild the neighbour list (the new
//!   particles have no row yet; the build gives them one, with no history).
//! - [`Step::remove`] drops particles by id, keeping the others in their
//!   order, and keeps the neighbour list valid without a rebuild: rows of
//!   removed particles go, entries naming them go, the other entries are
//!   renumbered, history stays beside its entry.
//!
//! Neither changes a bit of the particles it does not touch beyond what
//! their contacts with the added or removed ones do
//! (`tests/physics.rs`: `insertion_and_removal_leave_the_others_bit_for_bit`).

use super::data::Step;
use crate::state::{Particles, INDEX, MAX_PARTICLES, WALL};
use std::collections::HashSet;

impl Step {
    /// Appends `add` (positions, velocities, radii, 1/m, 1/I, materials,
    /// energy so far; its ids are replaced) with ids `next_id..` and
    /// returns them. Their motion records start as at a run's start (no
    /// contact force before this step); the next step rebuilds the list.
    pub fn insert(&mut self, add: &Particles<f64>) -> Result<std::ops::Range<u32>, String> {
        let (n, k) = (self.particles.len(), add.len());
        if n + k > MAX_PARTICLES {
            return Err(format!(
                "{} particles: at most {MAX_PARTICLES} fit the neighbour list's indices",
                n + k
            ));
        }
        let ids = self.next_id..self.next_id + k as u32;
        let mut add = add.clone();
        add.id = ids.clone().collect();
        let motion = add.initial_motion(self.gravity_now(), self.law.dt);
        let p = &mut self.particles;
        p.pos_rad.extend_from_slice(&add.pos_rad);
        p.vel_invm.extend_from_slice(&add.vel_invm);
        p.omega_invi.extend_from_slice(&add.omega_invi);
        p.material.extend_from_slice(&add.material);
        p.id.extend_from_slice(&add.id);
        p.dissipated.extend_from_slice(&add.dissipated);
        let w = &mut self.work;
        w.motion.extend_from_slice(&motion);
        w.force.resize(n + k, [0.0; 4]);
        w.torque.resize(n + k, [0.0; 4]);
        w.pos_ref
            .extend(add.pos_rad.iter().map(|x| [x[0], x[1], x[2]]));
        if w.ghost.len() == n {
            w.ghost.resize(n + k, false);
        }
        // spheres among clumps
        if n > 0 && w.body.len() == n {
            w.body.resize(n + k, crate::shapes::clumps::NONE);
            w.member.resize(n + k, 0);
            w.lever.resize(n + k, [0.0; 6]);
        }
        self.next_id = ids.end;
        self.rebuild = true;
        Ok(ids)
    }

    /// Appends clumps of shape `shape` (index into the scene's shapes):
    /// `add`'s rows give each one's centre of mass, velocity and 1/M (its
    /// radius is ignored), `orientation` each one's as written. Ids
    /// `next_id..`, one a clump, returned; its members' rows carry it. The
    /// next step rebuilds the list.
    pub fn insert_clumps(
        &mut self,
        shape: usize,
        add: &Particles<f64>,
        orientation: &[[f64; 4]],
    ) -> Result<std::ops::Range<u32>, String> {
        use crate::shapes::clumps::NONE;
        let sh = &self.shapes[shape];
        let n = self.particles.len();
        let k = add.len() * sh.members.len();
        if n + k > MAX_PARTICLES {
            return Err(format!(
                "{} particles: at most {MAX_PARTICLES} fit the neighbour list's indices",
                n + k
            ));
        }
        let ids = self.next_id..self.next_id + add.len() as u32;
        let grid = &self.grid;
        let (g, dt) = (self.gravity_now(), self.law.dt);
        let poured = crate::shapes::pour::pour(
            sh,
            shape,
            add,
            orientation,
            ids.start,
            n as u32,
            g,
            dt,
            |x| grid.wrap(x),
        );
        // spheres so far: every row becomes one of no clump
        let w = &mut self.work;
        if w.body.len() != n {
            w.body = vec![NONE; n];
            w.member = vec![0; n];
        }
        let k0 = self.clumps.len() as u32;
        w.body
            .extend(poured.rows.id.iter().map(|id| k0 + (id - ids.start)));
        w.member.extend_from_slice(&poured.member);
        self.clumps.append(&poured.clumps);
        self.particles.append(&poured.rows);
        let w = &mut self.work;
        w.motion.extend_from_slice(&poured.motion);
        w.force.resize(n + k, [0.0; 4]);
        w.torque.resize(n + k, [0.0; 4]);
        w.pos_ref
            .extend(poured.rows.pos_rad.iter().map(|x| [x[0], x[1], x[2]]));
        if w.ghost.len() == n {
            w.ghost.resize(n + k, false);
        }
        self.next_id = ids.end;
        self.rebuild = true;
        self.refresh_levers();
        Ok(ids)
    }

    /// Removes the particles whose id is in `ids` and returns how many
    /// there were. The others keep their order and history; the list stays
    /// valid (no rebuild is needed: fewer particles cannot bring a pair
    /// into reach).
    pub fn remove(&mut self, ids: &HashSet<u32>) -> usize {
        let n = self.particles.len();
        let keep: Vec<bool> = self
            .particles
            .id
            .iter()
            .map(|id| !ids.contains(id))
            .collect();
        let kept = keep.iter().filter(|&&k| k).count();
        if kept == n {
            return 0;
        }
        // new index of each kept particle
        let mut new_index = vec![u32::MAX; n];
        let mut next = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                new_index[i] = next;
                next += 1;
            }
        }
        fn compact<X: Copy>(v: &mut Vec<X>, keep: &[bool]) {
            let mut it = keep.iter();
            v.retain(|_| *it.next().unwrap());
        }
        let p = &mut self.particles;
        compact(&mut p.pos_rad, &keep);
        compact(&mut p.vel_invm, &keep);
        compact(&mut p.omega_invi, &keep);
        compact(&mut p.material, &keep);
        compact(&mut p.id, &keep);
        compact(&mut p.dissipated, &keep);
        let w = &mut self.work;
        compact(&mut w.motion, &keep);
        compact(&mut w.force, &keep);
        compact(&mut w.torque, &keep);
        compact(&mut w.pos_ref, &keep);
        if w.ghost.len() == n {
            compact(&mut w.ghost, &keep);
        }
        self.clumps_follow_removal(&keep);
        self.bonds.stale = true;
        let w = &mut self.work;
        // the list over the kept particles: their rows, without the
        // entries of removed partners, renumbered; history beside its entry
        if w.nbr_start.len() == n + 1 {
            let mut hist = super::hist::HistVec::new(w.nbr_hist.roll);
            let (mut start, mut nbr) = (vec![0u32], Vec::new());
            for i in (0..n).filter(|&i| keep[i]) {
                let row = w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize;
                for (q, &e) in w.nbr[row.clone()].iter().enumerate() {
                    let h = w.nbr_hist.get(row.start + q);
                    if e & WALL != 0 {
                        nbr.push(e);
                    } else {
                        let j = new_index[(e & INDEX) as usize];
                        if j == u32::MAX {
                            continue;
                        }
                        nbr.push((e & !INDEX) | j);
                    }
                    hist.push(h);
                }
                start.push(nbr.len() as u32);
            }
            w.nbr_start = start;
            w.nbr = nbr;
            w.nbr_hist = hist;
            w.nbr_count.truncate(kept);
        }
        n - kept
    }
}
