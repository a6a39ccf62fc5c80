//! The CPU step driver: the stages of [`Stage::STEP`] in order on a
//! [`Step`], timed per stage, and the CPU [`Backend`].

use super::data::{Step, Work};
use super::hist::HistVec;
use super::law::LawParams;
use super::{bin, contacts, diagnostics, integrate, neighbours, sort};
use crate::backend::{
    body_error, list_counts, Backend, Diagnostics, ListStats, RunError, RunErrorKind, Stage,
};
use crate::fem::coupling::BodySet;
use crate::scene::Scene;
use crate::setup::Setup;
use crate::state::{Hist, Particles, INDEX, MAX_PARTICLES, WALL};
use std::time::Instant;

impl Step {
    /// The step of `scene` at step 0, resolving a [`Setup`] for it (tests;
    /// a run resolves one and calls [`Step::from_setup`]).
    pub fn new(scene: &Scene) -> Result<Step, String> {
        Step::from_setup(&Setup::new(scene.clone()).map_err(|e| e.to_string())?)
    }

    /// The step of `setup`'s scene at step 0: its particles, its `dt`,
    /// grid, pair table, walls, plan and outlets (clones of the set-up's).
    pub fn from_setup(setup: &Setup) -> Result<Step, String> {
        let (particles, clumps, body, member) = Particles::with_clumps(&setup.scene);
        let mut st = Step::with_particles(setup, particles)?;
        st.clumps = clumps;
        st.work.body = body;
        st.work.member = member;
        st.refresh_levers();
        st.bonds.table = setup.bonds.clone();
        Ok(st)
    }

    /// The step of `setup`'s scene at step 0 holding `particles` instead
    /// of the scene's (none: a rank of a distributed run, before the first
    /// migration hands it its own).
    pub fn with_particles(setup: &Setup, particles: Particles<f64>) -> Result<Step, String> {
        let scene = &setup.scene;
        let grid = setup.grid;
        let n = particles.len();
        if n > MAX_PARTICLES {
            return Err(format!(
                "{n} particles: at most {MAX_PARTICLES} fit the neighbour list's indices"
            ));
        }
        // ids given by the input (final.csv's) are kept: new ones follow
        let next_id = particles.id.iter().max().map_or(0, |m| m + 1);
        let work = Work {
            force: vec![[0.0; 4]; n],
            torque: vec![[0.0; 4]; n],
            motion: particles.initial_motion(scene.simulation.gravity, setup.dt),
            pos_ref: vec![[0.0; 3]; n],
            nbr_hist: HistVec::new(scene.contact.rolling.has_memory()),
            old_hist: HistVec::new(scene.contact.rolling.has_memory()),
            ..Default::default()
        };
        Ok(Step {
            grid,
            law: LawParams {
                model: scene.contact.model,
                dt: setup.dt,
                lin_stiffness: scene.contact.stiffness,
                lin_contact_time: scene.contact.contact_time,
                lin_kt_ratio: scene.contact.tangential_stiffness_ratio,
                cohesion: scene.contact.cohesion,
                rolling: scene.contact.rolling,
                reach: crate::pair::stage_reach(scene.contact.cohesion, setup.skin),
            },
            gravity: scene.simulation.gravity,
            pairs: setup.pairs.clone(),
            walls: setup.walls.clone(),
            gravity_rotation: scene.simulation.gravity_rotation,
            particles,
            work,
            step: 0,
            max_overlap_ratio: 0.0,
            skin: setup.skin,
            held_from: scene.held_from(),
            rebuild: true,
            builds: 0,
            stage_seconds: Default::default(),
            next_id,
            flow: super::data::CpuFlow::new(setup),
            clumps: Default::default(),
            shapes: std::sync::Arc::new(scene.shape_bodies()),
            bonds: super::data::CpuBonds {
                specs: std::sync::Arc::new(scene.bonds.clone()),
                later: crate::bonds::table::Later::of(scene, setup.dt),
                stale: true,
                ..Default::default()
            },
        })
    }

    /// Gravity at the current step: `gravity` turned by
    /// `gravity_rotation` (rate × t about its axis) when it rotates.
    pub fn gravity_now(&self) -> [f64; 3] {
        let t = self.step as f64 * self.law.dt;
        crate::scene::gravity_at(self.gravity, self.gravity_rotation, t)
    }

    /// Stages 1–2: bin, sort, and reorder the particle arrays into cell order.
    pub fn bin_and_sort(&mut self) {
        self.bin_stage();
        self.sort_stage();
    }

    /// Stage 1: each particle's cell key and the cells' counts.
    pub fn bin_stage(&mut self) {
        let w = &mut self.work;
        bin::bin(
            &self.grid,
            &self.particles.pos_rad,
            &mut w.keys,
            &mut w.counts,
        );
    }

    /// Stage 2: the cell order, and every per-particle array (the motion
    /// record too) permuted into it.
    pub fn sort_stage(&mut self) {
        let w = &mut self.work;
        sort::sort(&w.keys, &mut w.counts, &mut w.starts, &mut w.order);
        // the scratch set follows the particle count (insertion, removal)
        if w.scratch.as_ref().map(|s| s.len()) != Some(self.particles.len()) {
            w.scratch = Some(self.particles.clone());
        }
        let scratch = w.scratch.as_mut().expect("just set");
        self.particles.permute_into(&w.order, scratch);
        std::mem::swap(&mut self.particles, scratch);
        // the motion record holds integration state: it moves with its particle
        use rayon::prelude::*;
        let (order, m) = (&w.order, &w.motion);
        w.scratch_motion.resize(m.len(), [[0.0; 4]; 4]);
        w.scratch_motion
            .par_iter_mut()
            .zip(order.par_iter())
            .with_min_len(crate::state::PAR_MIN)
            .for_each(|(d, &i)| *d = m[i as usize]);
        std::mem::swap(&mut w.motion, &mut w.scratch_motion);
        if w.ghost.len() == w.order.len() {
            w.ghost = w.order.iter().map(|&i| w.ghost[i as usize]).collect();
        }
        self.clumps_follow_sort();
        self.bonds.stale = true;
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
            hist: w.old_hist.as_ref(),
            new_at: &w.new_at,
            order: &w.order,
        };
        let pos = &p.pos_rad;
        neighbours::build(
            &self.grid,
            pos,
            &self.walls,
            &w.starts,
            self.skin,
            &w.body,
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
        self.walls.mark_built();
        self.walls.surfaces.mark_built(self.step, self.law.dt);
        self.builds += 1;
        self.rebuild = false;
    }

    /// Stage 5: the spheres, then the clumps (their members re-posed);
    /// what the serial step and each CPU rank integrate.
    pub fn integrate_stage(&mut self) -> integrate::IntegrateReport {
        let spheres = integrate::integrate(self);
        spheres.merge(super::clumps::integrate(self))
    }

    /// The pair history now, by ids: (the entry's particle, its partner,
    /// ξ xyz and k_t) for every particle entry with history, so each pair
    /// in contact twice, in list order.
    pub fn pair_history(&self) -> Vec<(u32, u32, Hist)> {
        self.history(false)
    }

    /// The wall history now: (the particle's id, the primitive's index,
    /// ξ xyz and k_t) for every wall entry with history, in list order.
    pub fn wall_history(&self) -> Vec<(u32, u32, Hist)> {
        self.history(true)
    }

    fn history(&self, walls: bool) -> Vec<(u32, u32, Hist)> {
        let (w, id) = (&self.work, &self.particles.id);
        let mut out = Vec::new();
        for i in 0..w.nbr_start.len().saturating_sub(1) {
            let (lo, hi) = (w.nbr_start[i] as usize, w.nbr_start[i + 1] as usize);
            for (q, &e) in w.nbr[lo..hi].iter().enumerate() {
                let h = w.nbr_hist.get(lo + q);
                if h == crate::cpu::hist::ZERO || (e & WALL != 0) != walls {
                    continue;
                }
                let k = e & INDEX;
                out.push((id[i], if walls { k } else { id[k as usize] }, h));
            }
        }
        out
    }

    /// Runs stage `s` (one of [`Stage::STEP`]) and adds its wall time to
    /// `stage_seconds`.
    pub(crate) fn timed<R>(&mut self, s: Stage, f: impl FnOnce(&mut Step) -> R) -> R {
        let t = Instant::now();
        let r = f(self);
        self.stage_seconds[s.index()] += t.elapsed().as_secs_f64();
        r
    }

    /// One whole step. On error the step is not counted and positions and
    /// velocities are left as they were (the driver keeps the last good
    /// snapshot).
    pub fn step(&mut self) -> Result<(), RunError> {
        if let Err(count) = self.insert_due() {
            return Err(RunError {
                step: self.step,
                particle: u32::MAX,
                kind: RunErrorKind::TooManyParticles { count },
            });
        }
        super::bonds::form_due(self);
        if self.rebuild {
            self.timed(Stage::Bin, Step::bin_stage);
            self.timed(Stage::Sort, Step::sort_stage);
            self.timed(Stage::Neighbours, Step::build_neighbours);
        }
        let rep = self.timed(Stage::Contacts, |st| {
            let rep = contacts::contacts(st);
            super::bonds::bonds(st);
            rep
        });
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
        let done = self.timed(Stage::Integrate, Step::integrate_stage);
        if let Some(id) = done.nonfinite {
            return Err(err(RunErrorKind::NonFinite, id, self));
        }
        self.step += 1;
        // the walls at the next step's time (servos moved by this step's
        // load); a wall that moved more than skin / 2 rebuilds the list
        let t = self.step as f64 * self.law.dt;
        let walls_moved = self.walls.advance(t, self.law.dt, 0.5 * self.skin);
        let surfaces_moved = self
            .walls
            .pose_surfaces(self.step, self.law.dt, 0.5 * self.skin);
        self.rebuild = done.rebuild || walls_moved || surfaces_moved;
        // outlets and the open domain take their particles (the list stays
        // valid); insertion comes at the next step's start
        self.drain_outlets();
        Ok(())
    }
}

/// After a step: at the end of an exchange interval, the bodies take the
/// grains' forces and advance, and the surfaces start their next interval
/// (posed at this step). Every rank of a distributed run does this on its
/// copy of the bodies, with the forces of all.
pub fn exchange(st: &mut Step, bodies: Option<&mut BodySet>) -> Result<(), RunError> {
    let Some(b) = bodies else {
        return Ok(());
    };
    if st.step % b.every != 0 {
        return Ok(());
    }
    let (x0, v) = b
        .exchange(&st.walls.surfaces.force, st.step)
        .map_err(|message| body_error(st.step, message))?;
    let dt = st.law.dt;
    st.walls
        .start_interval(&x0, &v, st.step, b.every as f64, dt);
    st.rebuild |= st.walls.pose_surfaces(st.step, dt, 0.5 * st.skin);
    Ok(())
}

/// The CPU backend.
pub struct CpuBackend {
    pub st: Step,
    /// The FEM bodies (None: the scene has none).
    pub bodies: Option<BodySet>,
    threads: usize,
}

impl CpuBackend {
    /// The backend for `scene` at step 0, resolving a [`Setup`] for it
    /// first ([`Setup::new`] on a clone of the scene): for callers with a
    /// scene alone (tests, tools). A run resolves one set-up and calls
    /// [`CpuBackend::from_setup`].
    pub fn new(scene: &Scene) -> Result<Self, String> {
        Self::from_setup(&Setup::new(scene.clone()).map_err(|e| e.to_string())?)
    }

    /// The backend for `setup` at step 0: the grains' step, and the FEM
    /// bodies started with their surfaces on their first interval.
    pub fn from_setup(setup: &Setup) -> Result<Self, String> {
        // before anything large is allocated
        crate::setup::MemoryPlan::of(setup).admit_cpu()?;
        Self::start(setup, Step::from_setup(setup)?)
    }

    /// The backend of `setup` without the scene's particles, and without
    /// asking for their memory: a rank of a distributed run other than 0,
    /// whose particles come with the first migration.
    pub fn without_particles(setup: &Setup) -> Result<Self, String> {
        Self::start(setup, Step::with_particles(setup, Particles::default())?)
    }

    /// `st` with the set-up's FEM bodies started (their surfaces on their
    /// first interval).
    fn start(setup: &Setup, mut st: Step) -> Result<Self, String> {
        let mut bodies = BodySet::new(setup)?;
        if let Some(b) = bodies.as_mut() {
            let (x0, v) = b.start()?;
            let (k, dt) = (b.every as f64, st.law.dt);
            st.walls.start_interval(&x0, &v, 0, k, dt);
            st.walls.pose_surfaces(0, dt, f64::INFINITY);
        }
        Ok(CpuBackend {
            st,
            bodies,
            threads: rayon::current_num_threads(),
        })
    }

    fn exchange(&mut self) -> Result<(), RunError> {
        exchange(&mut self.st, self.bodies.as_mut())
    }
    /// Continues a saved run of `scene` (either backend's checkpoint),
    /// resolving a [`Setup`] for it first (as [`CpuBackend::new`]).
    pub fn restore(scene: &Scene, saved: &crate::checkpoint::Saved) -> Result<Self, String> {
        let setup = Setup::new(scene.clone()).map_err(|e| e.to_string())?;
        Self::restore_setup(&setup, saved)
    }

    /// Continues a saved run of `setup`'s scene (either backend's
    /// checkpoint).
    pub fn restore_setup(setup: &Setup, saved: &crate::checkpoint::Saved) -> Result<Self, String> {
        let mut b = Self::from_setup(setup)?;
        b.st.restore(saved)?;
        if let Some(bodies) = b.bodies.as_mut() {
            bodies.restore(&saved.array_any::<f64>("bodies")?)?;
            let walls = &mut b.st.walls;
            for k in walls
                .surfaces
                .restore_words(&saved.array_any::<f64>("surfaces")?)?
            {
                walls.rebin_surface(k);
            }
            walls.pose_surfaces(b.st.step, b.st.law.dt, f64::INFINITY);
        }
        Ok(b)
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
        // the steps on one of rayon's workers: each stage's parallel loop
        // starts there, and a small bed's stays there (`PAR_MIN`) instead
        // of crossing to the pool and back at every stage
        rayon::scope(|_| {
            for _ in 0..steps {
                self.st.step()?;
                self.exchange()?;
            }
            Ok(())
        })
    }

    fn diagnostics(&mut self) -> Diagnostics {
        diagnostics::diagnostics(&self.st)
    }

    fn snapshot(&mut self) -> Particles<f64> {
        let mut p = self.st.particles.clone();
        if self.st.work.body.len() == p.len() {
            // a clump's members in member order, whatever the rows' order
            let w = &self.st.work;
            let mut order: Vec<u32> = (0..p.len() as u32).collect();
            order.sort_by_key(|&i| (p.id[i as usize], w.member[i as usize]));
            p.permute(&order);
        } else {
            p.sort_by_id();
        }
        p
    }

    fn bonds(&mut self) -> crate::bonds::table::Bonds {
        self.st.bonds.table.clone()
    }

    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        self.st.clumps.rows_out(&self.st.shapes)
    }

    fn particle_forces(&mut self) -> Result<Vec<[[f64; 3]; 2]>, String> {
        let (p, w) = (&self.st.particles, &self.st.work);
        let mut order: Vec<u32> = (0..p.len() as u32).collect();
        let member = |i: usize| {
            if w.body.len() == p.len() {
                w.member[i]
            } else {
                0
            }
        };
        order.sort_by_key(|&i| (p.id[i as usize], member(i as usize)));
        let row = |v: Option<&[f64; 4]>| v.map_or([0.0; 3], |f| [f[0], f[1], f[2]]);
        Ok(order
            .iter()
            .map(|&i| [row(w.force.get(i as usize)), row(w.torque.get(i as usize))])
            .collect())
    }

    fn insert_particles(&mut self, add: &Particles<f64>) -> Result<Vec<u32>, String> {
        self.st.insert(add).map(|r| r.collect())
    }

    fn remove_particles(&mut self, ids: &std::collections::HashSet<u32>) -> Result<usize, String> {
        Ok(self.st.remove(ids))
    }

    fn max_overlap_ratio(&self) -> f64 {
        self.st.max_overlap_ratio
    }

    fn steps_done(&self) -> u64 {
        self.st.step
    }

    fn walls(&mut self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)> {
        // the scene's walls (the bodies' surfaces follow them)
        let n = self.st.walls.bodies.len() - self.st.walls.surfaces.walls.len();
        let b = &self.st.walls.bodies[..n];
        b.iter().map(|b| (b.pose, b.load)).collect()
    }

    fn bodies(&self) -> Option<&BodySet> {
        self.bodies.as_ref()
    }

    fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent> {
        std::mem::take(&mut self.st.flow.events)
    }

    fn particle_count(&mut self) -> u64 {
        // a clump is one particle however many rows its members take
        let w = &self.st.work;
        if w.body.len() == self.st.particles.len() && !self.st.clumps.is_empty() {
            let spheres = w.body.iter().filter(|&&k| k == crate::shapes::clumps::NONE);
            return (spheres.count() + self.st.clumps.len()) as u64;
        }
        self.st.particles.len() as u64
    }

    fn rewall(&mut self, setup: &Setup, edit: &crate::walls::WallEdit) -> Result<(), String> {
        let mut saved = self.save();
        edit.remap(&mut saved)?;
        let threads = self.threads;
        *self = CpuBackend::restore_setup(setup, &saved)?;
        self.threads = threads;
        Ok(())
    }

    fn save(&mut self) -> crate::checkpoint::Saved {
        let mut s = self.st.save();
        if let Some(b) = &self.bodies {
            s.put("bodies", &b.save());
            s.put("surfaces", &self.st.walls.surfaces.save_words());
        }
        s
    }

    fn list_stats(&mut self) -> ListStats {
        let w = &self.st.work;
        let (entries, contacts) = list_counts(&w.nbr, &w.nbr_hist.t, 1);
        ListStats {
            builds: self.st.builds,
            entries,
            contacts,
        }
    }
}
