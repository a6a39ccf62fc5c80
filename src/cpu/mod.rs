//! The CPU reference path (f64, rayon). A step is the fixed list of stages
//! bin → sort → neighbours → contacts → integrate (→ diagnostics on
//! demand), each in its own module with the same name as its GPU twin in
//! `src/gpu/` and `shaders/`. The first three run only on the steps that
//! rebuild the neighbour list (some particle moved more than skin / 2).

pub mod bin;
pub mod contacts;
pub mod diagnostics;
pub mod integrate;
pub mod lanes;
pub mod neighbours;
pub mod sort;

use crate::backend::{Backend, RunError, RunErrorKind};
use crate::grid::Grid;
use crate::pair::PairTable;
use crate::scene::Scene;
use crate::state::{Motion, Particles};
use contacts::LawParams;
pub use diagnostics::Diagnostics;

/// A wall as the stages see it (unit normal).
#[derive(Debug, Clone, Copy)]
pub struct WallData {
    pub point: [f64; 3],
    pub normal: [f64; 3],
    pub material: u32,
}

/// Work arrays, allocated once.
#[derive(Debug, Clone, Default)]
pub struct Work {
    pub keys: Vec<u32>,
    pub counts: Vec<u32>,
    pub starts: Vec<u32>,
    pub order: Vec<u32>,
    /// xyz force; w = elastic energy share of the particle's contacts
    /// (this step's until the next contact stage: diagnostics read it).
    pub force: Vec<[f64; 4]>,
    /// xyz torque; w = energy dissipated this step (share).
    pub torque: Vec<[f64; 4]>,
    /// What contacts read of a partner ([`Motion`]), written by integrate:
    /// integration state too (v(n−½)), so it moves with its particle in
    /// the sort.
    pub motion: Vec<Motion<f64>>,
    /// Neighbour list (CSR): candidates of particle i are
    /// `nbr[nbr_start[i]..nbr_start[i + 1]]` (index, and the
    /// `neighbours::HAS_HISTORY` flag in the top bit); `nbr_count` is the
    /// first pass.
    pub nbr_count: Vec<u32>,
    pub nbr_start: Vec<u32>,
    pub nbr: Vec<u32>,
    /// Tangential history of each entry's pair (ξ xyz, k_t; zero: no
    /// contact), in the pair's canonical orientation.
    pub nbr_hist: Vec<[f64; 4]>,
    /// The previous list during a build (swapped out of the above): the
    /// source of the history it moves over; `new_at[o]` is where the
    /// particle that stood at `o` in the previous order stands now.
    pub old_start: Vec<u32>,
    pub old_nbr: Vec<u32>,
    pub old_hist: Vec<[f64; 4]>,
    pub new_at: Vec<u32>,
    /// Each chunk's candidates during a build (see `neighbours::build`).
    pub build_chunks: Vec<Vec<u32>>,
    /// Positions at the last build of the list (the rebuild test).
    pub pos_ref: Vec<[f64; 3]>,
    /// The walls each particle can reach until the next build (bit w;
    /// walls past the 32nd always tested), found at the build
    /// (`neighbours::wall_candidates`); empty: every wall.
    pub wall_near: Vec<u32>,
    /// Target of the rebuild's permutation (swapped with the state).
    pub scratch: Option<Particles<f64>>,
    pub scratch_motion: Vec<Motion<f64>>,
}

/// Everything one step needs: parameters (built once) and data.
#[derive(Debug, Clone)]
pub struct Step {
    pub grid: Grid,
    pub law: LawParams,
    pub gravity: [f64; 3],
    pub pairs: PairTable,
    pub walls: Vec<WallData>,
    pub particles: Particles<f64>,
    pub work: Work,
    pub step: u64,
    /// Largest overlap ratio seen in the run so far.
    pub max_overlap_ratio: f64,
    /// Verlet skin of the neighbour list (m).
    pub skin: f64,
    /// The next step rebuilds the neighbour list (bin, sort, neighbours).
    pub rebuild: bool,
    /// Neighbour-list builds so far.
    pub builds: u64,
    /// Wall time spent per stage ([`STAGES`]) so far.
    pub stage_seconds: [f64; 4],
}

/// Names of `Step::stage_seconds`.
pub const STAGES: [&str; 4] = ["bin+sort", "neighbours", "contacts", "integrate"];

/// Overlap / smaller radius above which a run stops.
pub const MAX_OVERLAP_RATIO: f64 = 0.5;

impl Step {
    pub fn new(scene: &Scene) -> Result<Step, String> {
        let particles = Particles::from_scene(scene);
        let grid = Grid::for_scene(scene)?;
        let n = particles.len();
        let work = Work {
            force: vec![[0.0; 4]; n],
            torque: vec![[0.0; 4]; n],
            motion: particles.initial_motion(scene.simulation.gravity, scene.dt()),
            pos_ref: vec![[0.0; 3]; n],
            ..Default::default()
        };
        Ok(Step {
            grid,
            law: LawParams {
                model: scene.contact.model,
                dt: scene.dt(),
                lin_stiffness: scene.contact.stiffness,
                lin_contact_time: scene.contact.contact_time,
                lin_kt_ratio: scene.contact.tangential_stiffness_ratio,
            },
            gravity: scene.simulation.gravity,
            pairs: PairTable::new(scene),
            walls: scene
                .walls
                .iter()
                .map(|w| WallData {
                    point: w.point,
                    normal: w.normal,
                    material: w.material as u32,
                })
                .collect(),
            particles,
            work,
            step: 0,
            max_overlap_ratio: 0.0,
            skin: scene.skin(),
            rebuild: true,
            builds: 0,
            stage_seconds: [0.0; 4],
        })
    }

    /// Stages 1–2: bin, sort, and reorder the particle arrays into cell order.
    pub fn bin_and_sort(&mut self) {
        let w = &mut self.work;
        bin::bin(
            &self.grid,
            &self.particles.pos_rad,
            &mut w.keys,
            &mut w.counts,
        );
        sort::sort(&w.keys, &mut w.counts, &mut w.starts, &mut w.order);
        let scratch = w.scratch.get_or_insert_with(|| self.particles.clone());
        self.particles.permute_into(&w.order, scratch);
        std::mem::swap(&mut self.particles, scratch);
        // the motion record holds integration state: it moves with its particle
        use rayon::prelude::*;
        let (order, m) = (&w.order, &w.motion);
        w.scratch_motion.resize(m.len(), [[0.0; 4]; 4]);
        w.scratch_motion
            .par_iter_mut()
            .zip(order.par_iter())
            .for_each(|(d, &i)| *d = m[i as usize]);
        std::mem::swap(&mut w.motion, &mut w.scratch_motion);
    }

    /// Stage 3: the neighbour list over the particles in cell order (after
    /// [`Step::bin_and_sort`]: `work.order` maps the new order to the one
    /// the previous list indexes), with each pair's history moved over from
    /// the previous list, and the reference positions of the rebuild test.
    pub fn build_neighbours(&mut self) {
        let w = &mut self.work;
        let p = &self.particles;
        std::mem::swap(&mut w.nbr_start, &mut w.old_start);
        std::mem::swap(&mut w.nbr, &mut w.old_nbr);
        std::mem::swap(&mut w.nbr_hist, &mut w.old_hist);
        w.new_at.resize(p.len(), 0);
        for (j, &o) in w.order.iter().enumerate() {
            w.new_at[o as usize] = j as u32;
        }
        let old = neighbours::OldList {
            start: &w.old_start,
            nbr: &w.old_nbr,
            hist: &w.old_hist,
            new_at: &w.new_at,
        };
        let pos = &p.pos_rad;
        neighbours::build(
            &self.grid,
            pos,
            &w.order,
            &w.starts,
            self.skin,
            &old,
            neighbours::NewList {
                count: &mut w.nbr_count,
                start: &mut w.nbr_start,
                nbr: &mut w.nbr,
                hist: &mut w.nbr_hist,
                chunks: &mut w.build_chunks,
            },
        );
        for (r, p) in w.pos_ref.iter_mut().zip(pos) {
            *r = [p[0], p[1], p[2]];
        }
        w.wall_near.resize(pos.len(), 0);
        let p = &mut self.particles;
        neighbours::wall_candidates(
            &p.pos_rad,
            &self.walls,
            self.skin,
            &mut w.wall_near,
            &mut p.wall_hist,
        );
        self.builds += 1;
        self.rebuild = false;
    }

    /// The pair history now, by ids: (the entry's particle, its partner,
    /// ξ xyz and k_t) for every list entry with history, so each pair in
    /// contact twice, in list order.
    pub fn pair_history(&self) -> Vec<(u32, u32, [f64; 4])> {
        let (w, id) = (&self.work, &self.particles.id);
        let mut out = Vec::new();
        for i in 0..w.nbr_start.len().saturating_sub(1) {
            let (lo, hi) = (w.nbr_start[i] as usize, w.nbr_start[i + 1] as usize);
            for (&j, h) in w.nbr[lo..hi].iter().zip(&w.nbr_hist[lo..hi]) {
                if *h != [0.0; 4] {
                    out.push((id[i], id[(j & neighbours::INDEX) as usize], *h));
                }
            }
        }
        out
    }

    /// One whole step. On error the step is not counted and positions and
    /// velocities are left as they were (the driver keeps the last good
    /// snapshot).
    pub fn step(&mut self) -> Result<(), RunError> {
        let t0 = std::time::Instant::now();
        let rebuild = self.rebuild;
        if rebuild {
            self.bin_and_sort();
        }
        let t1 = std::time::Instant::now();
        if rebuild {
            self.build_neighbours();
        }
        let t2 = std::time::Instant::now();
        let rep = contacts::contacts(self);
        let t3 = std::time::Instant::now();
        self.stage_seconds[0] += (t1 - t0).as_secs_f64();
        self.stage_seconds[1] += (t2 - t1).as_secs_f64();
        self.stage_seconds[2] += (t3 - t2).as_secs_f64();
        let err = |kind, particle: u32, this: &Step| RunError {
            step: this.step,
            particle,
            kind,
        };
        self.max_overlap_ratio = self.max_overlap_ratio.max(rep.max_overlap_ratio);
        if let Some(id) = rep.overlap {
            let ratio = rep.max_overlap_ratio;
            return Err(err(RunErrorKind::Overlap { ratio }, id, self));
        }
        let done = integrate::integrate(self);
        self.stage_seconds[3] += t3.elapsed().as_secs_f64();
        if let Some(id) = done.nonfinite {
            return Err(err(RunErrorKind::NonFinite, id, self));
        }
        self.rebuild = done.rebuild;
        self.step += 1;
        Ok(())
    }
}

/// The CPU backend.
pub struct CpuBackend {
    pub st: Step,
    threads: usize,
}

impl CpuBackend {
    pub fn new(scene: &Scene) -> Result<Self, String> {
        Ok(CpuBackend {
            st: Step::new(scene)?,
            threads: rayon::current_num_threads(),
        })
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn adapter(&self) -> String {
        format!("CPU reference path (f64, {} threads)", self.threads)
    }

    fn advance(&mut self, steps: u64) -> Result<(), RunError> {
        for _ in 0..steps {
            self.st.step()?;
        }
        Ok(())
    }

    fn diagnostics(&mut self) -> Diagnostics {
        diagnostics::diagnostics(&self.st)
    }

    fn snapshot(&mut self) -> Particles<f64> {
        let mut p = self.st.particles.clone();
        p.sort_by_id();
        p
    }

    fn max_overlap_ratio(&self) -> f64 {
        self.st.max_overlap_ratio
    }

    fn steps_done(&self) -> u64 {
        self.st.step
    }

    fn list_stats(&mut self) -> crate::backend::ListStats {
        crate::backend::ListStats {
            builds: self.st.builds,
            entries: self.st.work.nbr.len() as u64,
            contacts: contacts_in(&self.st.work.nbr_hist)
                + contacts_in(&self.st.particles.wall_hist),
        }
    }
}

/// History entries in use (a contact has non-zero history).
pub fn contacts_in<T: bytemuck::Pod + Default + PartialEq>(hist: &[[T; 4]]) -> u64 {
    let zero = [T::default(); 4];
    hist.iter().filter(|h| **h != zero).count() as u64
}
