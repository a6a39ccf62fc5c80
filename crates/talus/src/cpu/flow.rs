//! Particles in and out on the CPU path (the twin of the GPU's insertion
//! kernels in `shaders/flow.wgsl` and the outlet test in
//! `shaders/integrate.wgsl`):
//!
//! - at the end of a step, every particle whose centre is in an outlet or
//!   has left the open domain is removed ([`Step::remove`]: the list stays
//!   valid);
//! - at the start of a step, the batches of `flow::InsertPlan` due then
//!   are accepted by the rule of `flow::plan` (in order, no overlap with a
//!   particle present, up to the entry's target) and appended
//!   ([`Step::insert`]: the step rebuilds the list).
//!
//! Each particle in or out is a [`FlowEvent`] kept in `CpuFlow::events`
//! until the backend hands them to the run driver (`data::CpuFlow`).

use super::data::Step;
use super::diagnostics::particle_energy;
use crate::flow::{FlowEvent, FlowKind};
use crate::shapes::clumps::NONE;
use crate::state::Particles;
use std::collections::{HashMap, HashSet};

impl Step {
    /// Removes the particles the outlets take (their centre now), with an
    /// event each (energy as the diagnostics would count it now).
    pub fn drain_outlets(&mut self) {
        let taken = self.outlet_takes();
        self.take_out(&taken, &HashSet::new());
    }

    /// The particles (not ghosts: their owners judge them) whose centre is
    /// in an outlet now, as (index, outlet), in index order.
    pub(crate) fn outlet_takes(&self) -> Vec<(usize, usize)> {
        let outlets = &self.flow.outlets;
        let w = &self.work;
        // every step, over every particle: in parallel (collected in index
        // order)
        use rayon::prelude::*;
        let member = |i: usize| w.body.get(i).is_some_and(|&b| b != NONE);
        let mut taken: Vec<(usize, usize)> = self
            .particles
            .pos_rad
            .par_iter()
            .with_min_len(crate::state::PAR_MIN)
            .enumerate()
            .filter_map(|(i, p)| {
                let k = outlets.which([p[0], p[1], p[2]])?;
                (!w.is_ghost(i) && !member(i)).then_some((i, k))
            })
            .collect();
        // a clump by its centre of mass (named by its first member's row)
        if !self.clumps.is_empty() {
            let c = &self.clumps;
            for k in 0..c.len() {
                if let Some(o) = outlets.which(c.pos[k].to_array()) {
                    taken.push((c.rows[c.first[k] as usize] as usize, o));
                }
            }
            taken.sort_unstable();
        }
        taken
    }

    /// Removes `taken` ([`Step::outlet_takes`]), with an event each, and
    /// the particles whose ids are in `more` (a rank's copies of those
    /// other ranks' outlets took: their owners tell of them).
    pub(crate) fn take_out(&mut self, taken: &[(usize, usize)], more: &HashSet<u32>) {
        if taken.is_empty() && more.is_empty() {
            return;
        }
        let g = self.gravity_now();
        let mut ids = more.clone();
        for &(i, k) in taken {
            let id = self.particles.id[i];
            ids.insert(id);
            let e = self.whole_particle_energy(i, g);
            self.flow.events.push(FlowEvent {
                step: self.step,
                id,
                kind: FlowKind::Removed(k),
                mass: 1.0 / self.particles.vel_invm[i][3],
                energy: e.total(),
            });
        }
        self.remove(&ids);
    }

    /// The energy [`crate::cpu::diagnostics::diagnostics`] counts for the
    /// particle of row `i`: a sphere's, or its clump's body and all its
    /// members' contacts.
    pub(crate) fn whole_particle_energy(
        &self,
        i: usize,
        g: [f64; 3],
    ) -> crate::backend::Diagnostics {
        let Some(&k) = self.work.body.get(i).filter(|&&b| b != NONE) else {
            return particle_energy(self, i, g);
        };
        let k = k as usize;
        let mut e = super::clumps::energy(self, k, g.into());
        let c = &self.clumps;
        for &row in &c.rows[c.first[k] as usize..c.first[k + 1] as usize] {
            let m = particle_energy(self, row as usize, g);
            e.elastic += m.elastic;
            e.dissipated += m.dissipated;
        }
        e
    }

    /// Inserts the batches due at the start of this step; Err(count) when
    /// the particles would exceed `state::MAX_PARTICLES`.
    pub fn insert_due(&mut self) -> Result<(), u64> {
        let due = self.flow.plan.schedule(self.step, self.step + 1);
        for at in due {
            let batch = self.flow.plan.batch(at);
            let want = at.target.saturating_sub(self.flow.inserted[at.entry]);
            let c = &batch.candidates;
            let accepted = accept(&self.particles, c, want as usize);
            if accepted.is_empty() {
                continue;
            }
            let count = (self.particles.len() + accepted.len()) as u64;
            let ids = self.insert_picked(&batch, &accepted).map_err(|_| count)?;
            for (&i, id) in accepted.iter().zip(ids) {
                let e = batch.inserted(i, self.step, id);
                self.flow.events.push(e);
            }
            self.flow.inserted[at.entry] += accepted.len() as u64;
        }
        Ok(())
    }
}

impl Step {
    /// Appends candidates `picked` of `batch` (spheres, or clumps of its
    /// shape in their orientations) with ids `next_id..`, returned: what a
    /// serial run and each CPU rank insert of a batch.
    pub(crate) fn insert_picked(
        &mut self,
        batch: &crate::flow::plan::Batch,
        picked: &[usize],
    ) -> Result<std::ops::Range<u32>, String> {
        let add = batch.pick(picked);
        match batch.shape {
            None => self.insert(&add),
            Some(s) => {
                let q: Vec<[f64; 4]> = picked.iter().map(|&i| batch.orientation[i]).collect();
                self.insert_clumps(s, &add, &q)
            }
        }
    }
}

/// The candidates accepted, in order: at most `want`, each at least
/// r_c + r_j from every particle of `present` (f64).
pub fn accept(present: &Particles<f64>, cand: &Particles<f64>, want: usize) -> Vec<usize> {
    if want == 0 || cand.is_empty() {
        return Vec::new();
    }
    free_of(&present.pos_rad, &cand.pos_rad)
        .iter()
        .enumerate()
        .filter(|(_, &f)| f)
        .map(|(c, _)| c)
        .take(want)
        .collect()
}

/// For each candidate (position and radius), whether it is at least
/// r_c + r_j from every particle of `present`. The candidates of a batch
/// never overlap each other (`flow::plan`). A decision depends only on the
/// particles within reach of the candidate: a rank that holds those
/// decides as a serial run does (`dist`).
pub fn free_of(present: &[[f64; 4]], cand: &[[f64; 4]]) -> Vec<bool> {
    let mut out = vec![false; cand.len()];
    if cand.is_empty() {
        return out;
    }
    // the present particles near the candidates, hashed in cells of the
    // largest reach
    let r_max = |p: &[[f64; 4]]| p.iter().map(|x| x[3]).fold(0.0, f64::max);
    let cell = (r_max(present) + r_max(cand)).max(1e-300);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for x in cand {
        for k in 0..3 {
            lo[k] = lo[k].min(x[k] - cell);
            hi[k] = hi[k].max(x[k] + cell);
        }
    }
    let key = |x: &[f64; 4]| -> [i64; 3] { std::array::from_fn(|k| (x[k] / cell).floor() as i64) };
    let mut cells: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (j, x) in present.iter().enumerate() {
        if (0..3).all(|k| x[k] >= lo[k] && x[k] <= hi[k]) {
            cells.entry(key(x)).or_default().push(j);
        }
    }
    for (c, x) in cand.iter().enumerate() {
        let k = key(x);
        let mut free = true;
        'search: for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(js) = cells.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &j in js {
                        let y = present[j];
                        let d2 = (0..3).map(|a| (x[a] - y[a]) * (x[a] - y[a])).sum::<f64>();
                        let reach = x[3] + y[3];
                        if d2 < reach * reach {
                            free = false;
                            break 'search;
                        }
                    }
                }
            }
        }
        out[c] = free;
    }
    out
}
