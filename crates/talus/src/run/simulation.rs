//! A simulation one can drive from outside the CLI: a scene opened on a
//! backend, advanced by steps or to a time, read between advances (state,
//! energies and their balance, walls, the flow tally), saved and resumed.
//! It writes nothing: the run directory's files are a separate part
//! ([`super::outputs::Outputs`]) that a caller attaches or not, and the
//! run driver ([`super::driver`]: `talus run`, the Python package) is one
//! caller among others (the validation cases, the live view, MPI's rank
//! 0). Between advances particles come and go
//! ([`Simulation::insert_particles`], [`Simulation::remove_particles`])
//! and walls change ([`Simulation::set_wall_motion`] and its siblings).
//!
//! Advancing reads nothing back from a GPU backend; the readers
//! ([`Simulation::particles`], [`Simulation::balance`],
//! [`Simulation::walls`]) each copy their data back once.

use crate::backend::{Backend, Diagnostics, RunError};
use crate::checkpoint::{DriverState, Saved};
use crate::fem::coupling::BodyNow;
use crate::flow::{FlowTally, OutletSet};
use crate::scene::error::SceneError;
use crate::scene::types::ParticleInit;
use crate::scene::{Dt, Scene, Wall, WallMotion};
use crate::setup::Setup;
use crate::state::Particles;
use crate::walls::{Pose, WallEdit, WallLoad};
use std::sync::Arc;

/// The energy balance at one instant: the particles' energies, the FEM
/// bodies' (zero without bodies), and the residual of the total against
/// its reference at the first balance, particles brought in and taken out
/// counted with the energy they carried.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Balance {
    pub particles: Diagnostics,
    /// Each FEM body as it stands (empty without bodies): what the
    /// bodies' table and snapshots report.
    pub body_states: Vec<BodyNow>,
    /// The bodies' kinetic, strain, contact, potential and dissipated
    /// energy (J), summed over the bodies.
    pub bodies: [f64; 5],
    /// Total now (with what the flow carried) − the reference (J).
    pub residual: f64,
    /// |residual| / the largest energy that moved (dissipated, moving at
    /// the reference, moving now): `summary.json`'s
    /// `energy_residual_relative` at the last balance.
    pub residual_ratio: f64,
}

/// A wall pose as an affine map of body points to the world.
fn affine(p: &Pose) -> glam::DAffine3 {
    let o = p.to_world(glam::DVec3::ZERO);
    let col = |e: glam::DVec3| p.to_world(e) - o;
    glam::DAffine3::from_cols(
        col(glam::DVec3::X),
        col(glam::DVec3::Y),
        col(glam::DVec3::Z),
        o,
    )
}

/// The energy the balance counts for row `i` of `p` under gravity `g`:
/// kinetic, rotational, potential (−m g·x) and what it dissipated so far.
fn row_energy(p: &Particles<f64>, i: usize, g: [f64; 3]) -> f64 {
    let (v, w, x) = (p.vel_invm[i], p.omega_invi[i], p.pos_rad[i]);
    let sq = |a: [f64; 4]| a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    let gx = g[0] * x[0] + g[1] * x[1] + g[2] * x[2];
    0.5 * sq(v) / v[3] + 0.5 * sq(w) / w[3] - gx / v[3] + p.dissipated[i]
}

/// Why an edit (walls, particles) was refused (the simulation is left as
/// it was).
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("{0}")]
    Particles(String),
    #[error("no wall {index}: the scene has {count}")]
    NoWall { index: usize, count: usize },
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error("the backend could not take the new walls: {0}")]
    Backend(String),
}

/// A client that runs a simulation's steps its own way and works between
/// them: the live view draws between a GPU backend's submissions (from its
/// buffers, nothing read back) and paces a CPU one. The simulation tallies
/// what was inserted and removed after it, as after a plain advance.
pub trait Observe<B> {
    /// Runs `steps` steps of `backend`.
    fn advance(&mut self, backend: &mut B, steps: u64) -> Result<(), RunError>;
    /// The simulation lets it go (the live view takes its last picture).
    fn finish(&mut self, backend: &mut B) {
        let _ = backend;
    }
}

/// How many steps to advance between looks at the clock and a stop
/// request: doubled while an advance takes under 0.1 s, halved above
/// (from 1, at most 2^20). Where the advances are cut changes no bit.
#[derive(Debug, Clone, Copy)]
pub struct Pace(u64);

impl Default for Pace {
    fn default() -> Self {
        Pace(1)
    }
}

impl Pace {
    /// The next advance's steps, at most `left` (at least 1).
    pub fn next(&self, left: u64) -> u64 {
        self.0.min(left).max(1)
    }

    /// Adjusts to an advance that took `elapsed`.
    pub fn tune(&mut self, elapsed: std::time::Duration) {
        if elapsed < std::time::Duration::from_millis(100) {
            self.0 = (self.0 * 2).min(1 << 20);
        } else if self.0 > 1 {
            self.0 /= 2;
        }
    }
}

/// A scene on a backend. `B` is any [`Backend`]: a `Box<dyn Backend>`
/// (the default: chosen at run time), a `&mut` one, or a concrete type.
pub struct Simulation<B: Backend = Box<dyn Backend>> {
    setup: Arc<Setup>,
    backend: B,
    flow: FlowTally,
    /// The tally as of the step before the last (what a row written now,
    /// dated a step back, counts: [`flow_at_row`](Self::flow_at_row)).
    flow_lag: FlowTally,
    /// Total and moving energy at the first balance.
    e0: Option<(f64, f64)>,
    residual_ratio: f64,
    observer: Option<Box<dyn Observe<B>>>,
    /// Per scene wall, where its scene geometry was moved by re-basings
    /// ([`set_wall_motion`](Self::set_wall_motion)): identity until then.
    rebased: Vec<glam::DAffine3>,
}

impl<B: Backend> Simulation<B> {
    /// The resolved scene `setup` on `backend`, built from it and not yet
    /// advanced.
    pub fn new(setup: Arc<Setup>, backend: B) -> Self {
        let s = &setup.scene;
        let flow = FlowTally::new(s.inserts.len(), s.outlets.len());
        Simulation {
            flow_lag: flow.clone(),
            flow,
            e0: None,
            residual_ratio: 0.0,
            observer: None,
            rebased: vec![glam::DAffine3::IDENTITY; s.walls.len()],
            setup,
            backend,
        }
    }

    /// Continues a run: `backend` restored from a checkpoint, `driver` the
    /// same checkpoint's driver state (the flow tally and the energy
    /// reference carry on from it).
    pub fn resume(setup: Arc<Setup>, backend: B, driver: &DriverState) -> Self {
        let mut sim = Simulation::new(setup, backend);
        sim.flow = driver.flow.clone();
        sim.flow_lag = driver.flow.clone();
        sim.e0 = driver.e0;
        sim.residual_ratio = driver.residual_ratio;
        sim
    }

    pub fn scene(&self) -> &Scene {
        &self.setup.scene
    }

    /// The resolved set-up (dt, steps, output interval, …).
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// How the ranks share the run (None: one process runs it).
    pub fn ranks(&mut self) -> Option<crate::backend::RanksInfo> {
        self.backend.ranks()
    }

    /// Hands the advances to `o` from now on (until the simulation is
    /// dropped, or [`release`](Self::release)).
    pub fn observe(&mut self, o: Box<dyn Observe<B>>) {
        self.release();
        self.observer = Some(o);
    }

    /// Lets the observer go ([`Observe::finish`]); advances are plain
    /// again.
    pub fn release(&mut self) {
        if let Some(mut o) = self.observer.take() {
            o.finish(&mut self.backend);
        }
    }

    /// The time step (s).
    pub fn dt(&self) -> f64 {
        self.setup.dt
    }

    /// Steps done since t = 0.
    pub fn step(&self) -> u64 {
        self.backend.steps_done()
    }

    /// Simulated time (s).
    pub fn time(&self) -> f64 {
        self.step() as f64 * self.setup.dt
    }

    /// Runs `steps` steps. The particles inserted and removed on the way
    /// are tallied, also when the advance fails (a failed advance leaves
    /// the backend's state where it stopped).
    pub fn advance(&mut self, steps: u64) -> Result<(), RunError> {
        let res = match self.observer.as_mut() {
            Some(o) => o.advance(&mut self.backend, steps),
            None => self.backend.advance(steps),
        };
        let mut events = self.backend.flow_events();
        // the events of the last step apart: a row written now is dated
        // the step before (its energies are that state's)
        let last = self.backend.steps_done();
        let mut early: Vec<_> = events.iter().filter(|e| e.step < last).copied().collect();
        self.flow_lag = self.flow.clone();
        self.flow_lag.add(&mut early);
        self.flow.add(&mut events);
        res
    }

    /// Runs `steps` steps in chunks of about 0.1 s ([`Pace`]), asking
    /// `stop` between chunks whether to stop there: the steps done (all
    /// of them, or fewer when stopped). A failed chunk is an error (the
    /// backend's state where it stopped).
    pub fn advance_paced(
        &mut self,
        steps: u64,
        pace: &mut Pace,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<u64, RunError> {
        let mut done = 0;
        while done < steps {
            let n = pace.next(steps - done);
            let t0 = std::time::Instant::now();
            self.advance(n)?;
            pace.tune(t0.elapsed());
            done += n;
            if done < steps && stop() {
                break;
            }
        }
        Ok(done)
    }

    /// What was inserted and removed up to the step before the last: the
    /// tally of the time `(step − 1) dt` an output row is dated (a
    /// particle an outlet takes at the end of step 1 is not yet gone at
    /// t = 0).
    pub fn flow_at_row(&self) -> &FlowTally {
        &self.flow_lag
    }

    /// Runs to the first step at or after time `t` (nothing when already
    /// there).
    pub fn advance_to(&mut self, t: f64) -> Result<(), RunError> {
        let target = (t / self.setup.dt - 1e-9).ceil().max(0.0) as u64;
        match target.checked_sub(self.step()) {
            Some(n) if n > 0 => self.advance(n),
            _ => Ok(()),
        }
    }

    /// The particles now, in id order, in f64 (read back from a GPU).
    pub fn particles(&mut self) -> Particles<f64> {
        self.backend.snapshot()
    }

    /// The clumps now, in id order (empty: spheres only): what a
    /// snapshot's rows with one id make together.
    pub fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        self.backend.clumps()
    }

    /// The bonds now (empty without `[[bonds]]`).
    pub fn bonds(&mut self) -> crate::bonds::table::Bonds {
        self.backend.bonds()
    }

    /// Particles present now.
    pub fn particle_count(&mut self) -> u64 {
        self.backend.particle_count()
    }

    /// Each scene wall's pose and the particles' load on it.
    pub fn walls(&mut self) -> Vec<(Pose, WallLoad)> {
        self.backend.walls()
    }

    /// What was inserted and removed since t = 0, per entry and outlet.
    pub fn flow(&self) -> &FlowTally {
        &self.flow
    }

    /// The outlets' names (the open domain last) and which one is the
    /// domain's.
    pub fn outlets(&self) -> &OutletSet {
        &self.setup.outlets
    }

    /// Per `[[insert]]` entry: particles its rate asked for up to now and
    /// not yet placed (its region was full).
    pub fn insert_shortfall(&self) -> Vec<u64> {
        let done = self.step();
        (0..self.setup.scene.inserts.len())
            .map(|k| {
                self.setup
                    .inserts
                    .target_before(k, done)
                    .saturating_sub(self.flow.inserted[k].count)
            })
            .collect()
    }

    /// Largest overlap / smaller radius seen.
    pub fn max_overlap_ratio(&self) -> f64 {
        self.backend.max_overlap_ratio()
    }

    /// The energy balance now. The first call sets the reference the
    /// residuals are measured against (the energy table's first row).
    pub fn balance(&mut self) -> Balance {
        self.balance_of(true)
    }

    /// The energy balance now, without setting the reference when none is
    /// set yet (its residual is then 0): a look that leaves the run's
    /// tables as they would be without it.
    pub fn peek_balance(&mut self) -> Balance {
        self.balance_of(false)
    }

    fn balance_of(&mut self, set_reference: bool) -> Balance {
        let d = self.backend.diagnostics();
        let body_states = self.backend.bodies().map_or(Vec::new(), |b| b.now());
        let be = body_states.iter().fold([0.0; 5], |a, n| {
            [
                a[0] + n.kinetic,
                a[1] + n.strain,
                a[2] + n.contact,
                a[3] + n.potential,
                a[4] + n.dissipated,
            ]
        });
        let total = d.total() + be.iter().sum::<f64>();
        let moving = d.kinetic_translational + d.kinetic_rotational + d.elastic + be[0] + be[1];
        // particles brought in or taken out carry their energy: the
        // balance counts what is present against its reference plus what
        // came in minus what went out
        let own = total - self.flow.net_energy();
        let (e_ref, moving0) = match (self.e0, set_reference) {
            (Some(e0), _) => e0,
            (None, true) => *self.e0.insert((own, moving)),
            (None, false) => (own, moving),
        };
        let residual = own - e_ref;
        let ratio = residual.abs() / d.dissipated.max(moving0).max(moving).max(1e-300);
        if set_reference {
            self.residual_ratio = ratio;
        }
        Balance {
            particles: d,
            body_states,
            bodies: be,
            residual,
            residual_ratio: ratio,
        }
    }

    /// |residual| / the energy that moved at the last [`balance`](
    /// Self::balance) (0 before the first).
    pub fn residual_ratio(&self) -> f64 {
        self.residual_ratio
    }

    /// Adds `wall` after the scene's walls (its index returned), from the
    /// next step on; the list is rebuilt then. A wall placed into particles
    /// pushes them out as hard as the overlap says: place it clear.
    pub fn insert_wall(&mut self, wall: Wall) -> Result<usize, EditError> {
        let mut walls = self.setup.scene.walls.clone();
        let k = walls.len();
        walls.push(wall);
        let map = (0..k).map(Some).collect();
        self.edit_walls(walls, map, &[k])?;
        self.rebased.push(glam::DAffine3::IDENTITY);
        Ok(k)
    }

    /// Takes scene wall `k` away (returned), from the next step on: its
    /// contacts end, the walls after it move down an index.
    pub fn remove_wall(&mut self, k: usize) -> Result<Wall, EditError> {
        let mut walls = self.setup.scene.walls.clone();
        self.check_wall(k)?;
        let gone = walls.remove(k);
        let map = (0..walls.len() + 1)
            .map(|j| match j.cmp(&k) {
                std::cmp::Ordering::Less => Some(j),
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Greater => Some(j - 1),
            })
            .collect();
        self.edit_walls(walls, map, &[])?;
        self.rebased.remove(k);
        Ok(gone)
    }

    /// Gives scene wall `k` the prescribed motion `motion` (None: at rest)
    /// from the next step on, from where it stands: a wall its motion has
    /// moved is first re-based there ([`crate::walls::edit::rebased`]:
    /// its geometry moved to its pose now, so a piston stopped stays
    /// down). Like the scene's `[walls.motion]`, the new motion is a law of
    /// the run's time, so to set it going without a jump start it now
    /// (`start` = [`time`](Self::time)). Its contacts keep their history;
    /// the list is rebuilt at the next step.
    pub fn set_wall_motion(
        &mut self,
        k: usize,
        motion: Option<WallMotion>,
    ) -> Result<(), EditError> {
        self.check_wall(k)?;
        let mut walls = self.setup.scene.walls.clone();
        let pose = self.backend.walls()[k].0;
        if pose.moving {
            walls[k] = crate::walls::edit::rebased(&walls[k], &pose);
        }
        walls[k].motion = motion;
        let map = (0..walls.len()).map(Some).collect();
        self.edit_walls(walls, map, &[k])?;
        if pose.moving {
            self.rebased[k] = affine(&pose) * self.rebased[k];
        }
        Ok(())
    }

    /// Per scene wall, the rigid transform from its geometry in the scene
    /// to where it stands now (its motion's pose after any re-basing of
    /// [`set_wall_motion`](Self::set_wall_motion)). One read-back.
    pub fn wall_placements(&mut self) -> Vec<glam::DAffine3> {
        let poses = self.backend.walls();
        poses
            .iter()
            .zip(&self.rebased)
            .map(|((p, _), b)| affine(p) * *b)
            .collect()
    }

    fn check_wall(&self, index: usize) -> Result<(), EditError> {
        let count = self.setup.scene.walls.len();
        if index >= count {
            return Err(EditError::NoWall { index, count });
        }
        Ok(())
    }

    /// The scene with `walls` for its walls, resolved (its time step kept)
    /// and taken up by the backend: `map` says which old scene wall became
    /// which, `fresh` the new walls posed afresh. The FEM bodies' surfaces
    /// follow the scene's walls and keep their order. An observer is let
    /// go first (it may hold the backend's old buffers).
    fn edit_walls(
        &mut self,
        walls: Vec<Wall>,
        mut map: Vec<Option<usize>>,
        fresh: &[usize],
    ) -> Result<(), EditError> {
        let mut scene = self.setup.scene.clone();
        scene.walls = walls;
        scene.simulation.dt = Dt::Fixed(self.setup.dt);
        scene.validate()?;
        let setup = Setup::new(scene)?;
        let (old_n, new_n) = (self.setup.scene.walls.len(), setup.scene.walls.len());
        let surfaces = self.setup.walls.bodies.len() - old_n;
        map.extend((0..surfaces).map(|j| Some(new_n + j)));
        let mut is_fresh = vec![false; setup.walls.bodies.len()];
        for &k in fresh {
            is_fresh[k] = true;
        }
        let edit = WallEdit::new(&self.setup.walls, &setup.walls, map, is_fresh)
            .map_err(EditError::Backend)?;
        self.release();
        self.backend
            .rewall(&setup, &edit)
            .map_err(EditError::Backend)?;
        self.setup = Arc::new(setup);
        Ok(())
    }

    /// Adds spheres `add` (each one's position, velocity, spin, radius and
    /// material index; ids and sources ignored) between two advances,
    /// from the next step on: their new ids. Each must lie inside the
    /// domain's box with a radius > 0, its material one of the scene's.
    /// Placed into particles, they push out as hard as the overlap says
    /// (`overlapping` gives the first such). The energy balance counts
    /// them as brought in (kinetic, rotational, potential), as a pour's.
    pub fn insert_particles(&mut self, add: &[ParticleInit]) -> Result<Vec<u32>, EditError> {
        let scene = &self.setup.scene;
        let d = &scene.domain;
        for (k, p) in add.iter().enumerate() {
            let finite = p
                .position
                .iter()
                .chain(&p.velocity)
                .chain(&p.angular_velocity);
            let why = if !finite.clone().all(|x| x.is_finite()) {
                Some("a position, velocity or spin that is not finite".to_string())
            } else if !(p.radius > 0.0 && p.radius.is_finite()) {
                Some(format!("radius {} (expected > 0 m)", p.radius))
            } else if p.material >= scene.materials.len() {
                Some(format!(
                    "material index {} (the scene has {})",
                    p.material,
                    scene.materials.len()
                ))
            } else if (0..3).any(|c| p.position[c] < d.min[c] || p.position[c] > d.max[c]) {
                Some(format!(
                    "position {:?} outside the domain {:?} .. {:?}",
                    p.position, d.min, d.max
                ))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(EditError::Particles(format!("particle {k}: {why}")));
            }
        }
        let rows = Particles::spheres(scene, add);
        let g = self.gravity_now();
        let ids = self
            .backend
            .insert_particles(&rows)
            .map_err(EditError::Particles)?;
        let e: f64 = (0..rows.len()).map(|i| row_energy(&rows, i, g)).sum();
        if let Some(e0) = self.e0.as_mut() {
            e0.0 += e;
        }
        Ok(ids)
    }

    /// Index into `add` of the first sphere that overlaps a particle
    /// present now or one before it in `add` (None: all clear). One
    /// read-back.
    pub fn overlapping(&mut self, add: &[ParticleInit]) -> Option<usize> {
        let mut present: Vec<[f64; 4]> = self.particles().pos_rad;
        for (k, p) in add.iter().enumerate() {
            let [x, y, z] = p.position;
            let cand = [x, y, z, p.radius];
            if !crate::cpu::flow::free_of(&present, &[cand])[0] {
                return Some(k);
            }
            present.push(cand);
        }
        None
    }

    /// Removes the particles (a clump whole) whose id is in `ids` between
    /// two advances, from the next step on: how many rows went (a clump's
    /// members each a row); an id not present is refused before any goes.
    /// Their bonds end as gone. The energy balance counts what they
    /// carried as taken out, as an outlet's (a clump's rows each with its
    /// clump's mass: an overcount).
    pub fn remove_particles(&mut self, ids: &[u32]) -> Result<usize, EditError> {
        let set: std::collections::HashSet<u32> = ids.iter().copied().collect();
        let p = self.backend.snapshot();
        let present: std::collections::HashSet<u32> = p.id.iter().copied().collect();
        if let Some(id) = ids.iter().find(|id| !present.contains(id)) {
            return Err(EditError::Particles(format!("no particle {id} is present")));
        }
        let g = self.gravity_now();
        let e: f64 = (0..p.len())
            .filter(|&i| set.contains(&p.id[i]))
            .map(|i| row_energy(&p, i, g))
            .sum();
        let n = self
            .backend
            .remove_particles(&set)
            .map_err(EditError::Particles)?;
        if let Some(e0) = self.e0.as_mut() {
            e0.0 -= e;
        }
        Ok(n)
    }

    /// Each particle's force and torque from its contacts and walls at the
    /// last step (N, N m; gravity not counted), in the order of
    /// [`particles`](Self::particles). Read back between advances (on
    /// the GPU three buffers: ids, work records, clump rows).
    pub fn forces(&mut self) -> Result<Vec<[[f64; 3]; 2]>, EditError> {
        self.backend.particle_forces().map_err(EditError::Particles)
    }

    /// Gravity now (the scene's, turned by its rotation at this time).
    fn gravity_now(&self) -> [f64; 3] {
        let s = &self.setup.scene.simulation;
        crate::scene::gravity_at(s.gravity, s.gravity_rotation, self.time())
    }

    /// Everything the backend's next step depends on.
    pub fn save(&mut self) -> Saved {
        self.backend.save()
    }

    /// The simulation's part of a checkpoint's driver state (the flow
    /// tally and the energy reference) written into `st`.
    pub fn save_driver(&self, st: &mut DriverState) {
        st.flow = self.flow.clone();
        st.e0 = self.e0;
        st.residual_ratio = self.residual_ratio;
    }
}

impl<B: Backend> Drop for Simulation<B> {
    fn drop(&mut self) {
        self.release();
    }
}
