//! A run directory written while its [`Simulation`] advances ([`Driver`]):
//! the [`Outputs`] at output steps, checkpoints every
//! `checkpoint_interval` seconds and at the end, `final.csv` and
//! `summary.json` last; progress and notices go to a [`Watch`]. It reads
//! a GPU back only at output steps and checkpoints. A run resumed from a
//! checkpoint ([`RunConfig::resume`]) continues every file where it
//! stood. `talus run`'s loop ([`drive`]) advances it to the end at once;
//! a stop request ([`RunConfig::stop`], set by a signal) ends it after the
//! current chunk with a checkpoint. The Python package advances it call by
//! call, into the same files.

use super::folder::{self, FolderError, FolderLock};
use super::outputs::Outputs;
use super::simulation::{Pace, Simulation};
use crate::backend::{Backend, Diagnostics, RunError};
use crate::checkpoint::{self, DriverState, Header};
use crate::io::csv;
use crate::io::table::WriteError;
use crate::io::walls::{Triangle, WallSeries};
use crate::scene::{ParticleInit, Scene};
use crate::setup::Setup;
use crate::state::Particles;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Whoever watches a run: told of its progress after each advance and of
/// the notices a user should see (a full insertion region, particles
/// leaving the open domain). The engine draws nothing itself: the CLI's
/// progress bar is one watcher, [`Quiet`] another.
pub trait Watch {
    /// `done` of `total` steps, `first` the step this part of the run
    /// started from, `particle_steps` advanced since then.
    fn progress(&mut self, done: u64, total: u64, first: u64, particle_steps: f64) {
        let _ = (done, total, first, particle_steps);
    }
    /// A one-line notice about the run (printed to stderr by default).
    fn notice(&mut self, line: &str) {
        eprintln!("{line}");
    }
    /// The run has ended (clear a bar).
    fn finish(&mut self) {}
}

/// A watcher that shows nothing, notices included.
#[derive(Debug, Default, Clone, Copy)]
pub struct Quiet;

impl Watch for Quiet {
    fn notice(&mut self, _line: &str) {}
}

#[derive(Debug, Clone)]
pub struct RunConfig {
    pub out_dir: PathBuf,
    /// The step to run to, counted from t = 0 (a resumed run too).
    pub steps: u64,
    pub output_every: u64,
    /// Wall-clock seconds between checkpoints (one is also written at the
    /// end and on a stop request).
    pub checkpoint_interval: f64,
    /// The scene file's hash for the checkpoint header
    /// ([`checkpoint::scene_hash`]; empty for a scene built in code).
    pub scene_hash: String,
    /// Continue from this driver state (the backend was restored from the
    /// same checkpoint).
    pub resume: Option<DriverState>,
    /// Becomes the signal's number when the run should stop (0: go on).
    pub stop: Option<Arc<AtomicI32>>,
}

impl RunConfig {
    /// A fresh run with checkpoints every `scene`'s interval and no stop
    /// flag.
    pub fn new(setup: &Setup, out_dir: PathBuf, steps: u64) -> Self {
        RunConfig {
            out_dir,
            steps,
            output_every: setup.output_every,
            checkpoint_interval: setup.scene.simulation.checkpoint_interval,
            scene_hash: String::new(),
            resume: None,
            stop: None,
        }
    }
}

/// `summary.json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub scene: String,
    /// The scene file the run loaded (None: a scene built in code), which
    /// `talus analyze` and `talus view` load again.
    pub scene_file: Option<String>,
    /// "ok", "failed" or "interrupted".
    pub status: String,
    pub error: Option<String>,
    /// Particles at the start (of the run, not of a resumed part).
    pub particles: usize,
    /// Particles at the end.
    pub particles_end: u64,
    /// Particles poured in by `[[insert]]` and taken out by the outlets
    /// and the open domain, since t = 0.
    pub inserted: u64,
    pub removed: u64,
    pub inserted_mass: f64,
    pub removed_mass: f64,
    /// Per `[[insert]]` entry: particles asked for by its rate up to the
    /// end and not placed (the region was full).
    pub insert_shortfall: Vec<u64>,
    /// Per outlet (the domain's boundary last): particles removed.
    pub removed_by_outlet: Vec<(String, u64)>,
    /// Step the run was resumed from (None: started at t = 0).
    pub resumed_from: Option<u64>,
    /// The checkpoint written at the end (None: none written), its size
    /// (bytes) and the seconds taken to save and write it.
    pub checkpoint: Option<String>,
    pub checkpoint_bytes: u64,
    pub checkpoint_seconds: f64,
    pub steps: u64,
    pub dt: f64,
    pub simulated_time: f64,
    pub wall_seconds: f64,
    pub particle_steps_per_second: f64,
    pub backend: String,
    pub adapter: String,
    pub max_overlap_ratio: f64,
    /// |residual| / max(dissipated, kinetic + elastic at the start, now):
    /// the energy-balance error relative to the energy that moved.
    pub energy_residual_relative: f64,
    pub final_energy: Diagnostics,
    /// What makes the results doubtful though the run ended as asked, one
    /// sentence each ([`warnings`]); empty when nothing does.
    pub warnings: Vec<String>,
    /// A run on several ranks: how they shared it (absent: one process).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<crate::backend::RanksInfo>,
}

pub use super::folder::SUMMARY_FILE;

/// The energy-balance error (`energy_residual_relative`) beyond which a run
/// is flagged: a dt too large for the contacts, or energy stored in
/// initial overlaps, show there first.
pub const WARN_RESIDUAL: f64 = 0.05;

/// The overlap (of the smaller radius) beyond which a run is flagged: the
/// run stops at [`crate::backend::MAX_OVERLAP_RATIO`].
pub const WARN_OVERLAP: f64 = 0.8 * crate::backend::MAX_OVERLAP_RATIO;

/// `summary.json`'s `warnings` for a run with this energy residual
/// (relative), largest overlap ratio, particles removed by the open
/// domain's faces, and shortfall per `[[insert]]` entry.
pub fn warnings(residual: f64, overlap: f64, left_domain: u64, shortfall: &[u64]) -> Vec<String> {
    let mut w = Vec::new();
    if residual.is_nan() || residual > WARN_RESIDUAL {
        w.push(format!(
            "the energy balance is off by {:.1} % of the energy that moved (more than {} %): dt may be too large for the contacts, or particles started overlapping (energy.csv's residual column)",
            100.0 * residual,
            100.0 * WARN_RESIDUAL
        ));
    }
    if overlap > WARN_OVERLAP {
        w.push(format!(
            "the largest overlap reached {overlap:.3} of the smaller radius (the run stops at {}): the contacts are too soft, or too fast, for a linear-elastic small-overlap law",
            crate::backend::MAX_OVERLAP_RATIO
        ));
    }
    if left_domain > 0 {
        w.push(format!(
            "{left_domain} particles left the domain through its open faces and were removed (flow.csv, outlet \"domain\")"
        ));
    }
    for (k, &n) in shortfall.iter().enumerate().filter(|(_, n)| **n > 0) {
        w.push(format!(
            "insert[{k}] placed {n} fewer particles than its rate asked: its region was full"
        ));
    }
    w
}

/// A failed run: the error and the summary written beside the last good
/// state.
#[derive(Debug)]
pub enum RunFailure {
    /// The scene could not be resolved for the run ([`Setup::new`]).
    Scene(crate::scene::SceneError),
    /// The output folder is held by another run, or cannot be cleared.
    Folder(FolderError),
    Io(std::io::Error, PathBuf),
    Blowup(RunError, Box<Summary>),
    /// Stopped on request (signal `signal`), checkpoint written.
    Interrupted {
        signal: i32,
        summary: Box<Summary>,
    },
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::Scene(e) => write!(f, "{e}"),
            RunFailure::Folder(e) => write!(f, "{e}"),
            RunFailure::Io(e, p) => write!(f, "{}: {e}", p.display()),
            RunFailure::Blowup(e, _) => write!(f, "run stopped at {e}"),
            RunFailure::Interrupted { signal, summary } => {
                write!(f, "interrupted (signal {signal}) at step {}", summary.steps)
            }
        }
    }
}

impl std::error::Error for RunFailure {}

impl From<WriteError> for RunFailure {
    fn from(e: WriteError) -> Self {
        RunFailure::Io(e.source, e.path)
    }
}

fn io<T>(r: std::io::Result<T>, p: &Path) -> Result<T, RunFailure> {
    r.map_err(|e| RunFailure::Io(e, p.to_path_buf()))
}

/// Converts a state back into scene particles (for `final.csv`): a
/// sphere's row as it is, a clump's members (the rows with its id) as the
/// one particle of `clumps` (its centre, velocity, spin, shape and
/// orientation).
pub fn to_inits(
    p: &Particles<f64>,
    clumps: &[crate::shapes::clumps::ClumpRow],
) -> Vec<ParticleInit> {
    if !clumps.is_empty() {
        let by_id: std::collections::HashMap<u32, &crate::shapes::clumps::ClumpRow> =
            clumps.iter().map(|c| (c.id, c)).collect();
        let mut out = Vec::with_capacity(p.len());
        let mut last = None;
        let spheres = to_inits(p, &[]);
        for (i, s) in spheres.into_iter().enumerate() {
            match by_id.get(&p.id[i]) {
                None => out.push(s),
                Some(c) if last != Some(c.id) => {
                    last = Some(c.id);
                    out.push(ParticleInit {
                        position: c.pos,
                        velocity: c.vel,
                        angular_velocity: c.omega,
                        radius: c.radius,
                        material: c.material as usize,
                        source: 0,
                        id: Some(c.id),
                        shape: Some(c.shape as usize),
                        orientation: c.orientation,
                    });
                }
                Some(_) => {}
            }
        }
        return out;
    }
    (0..p.len())
        .map(|i| {
            let a = p.pos_rad[i];
            let v = p.vel_invm[i];
            let w = p.omega_invi[i];
            ParticleInit {
                position: [a[0], a[1], a[2]],
                velocity: [v[0], v[1], v[2]],
                angular_velocity: [w[0], w[1], w[2]],
                radius: a[3],
                material: p.material[i] as usize,
                source: 0,
                id: Some(p.id[i]),
                shape: None,
                orientation: crate::scene::types::IDENTITY,
            }
        })
        .collect()
}

/// What a checkpoint's header needs besides the backend's state.
fn header<B: Backend>(
    sim: &Simulation<B>,
    cfg: &RunConfig,
    saved: &checkpoint::Saved,
    driver: DriverState,
) -> Header {
    let scene = sim.scene();
    Header {
        talus: env!("CARGO_PKG_VERSION").to_string(),
        scene: scene.name.clone(),
        scene_file: scene.file.as_ref().map(|f| f.display().to_string()),
        scene_hash: cfg.scene_hash.clone(),
        backend: sim.backend().name().to_string(),
        adapter: sim.backend().adapter(),
        dt: sim.dt(),
        materials: scene.materials.iter().map(|m| m.name.clone()).collect(),
        state: saved.scalars.clone(),
        driver,
    }
}

/// Writes a checkpoint of `sim` with driver state `st` into the run
/// directory: its size (bytes) and the seconds it took.
fn save_checkpoint<B: Backend>(
    sim: &mut Simulation<B>,
    cfg: &RunConfig,
    st: DriverState,
) -> Result<(u64, f64), RunFailure> {
    let t = Instant::now();
    let saved = sim.save();
    let h = header(sim, cfg, &saved, st);
    let bytes = io(checkpoint::write(&cfg.out_dir, &h, &saved), &cfg.out_dir)?;
    Ok((bytes, t.elapsed().as_secs_f64()))
}

/// The driver state of a checkpoint taken now.
fn driver_state<B: Backend>(sim: &Simulation<B>, out: &Outputs, wall_seconds: f64) -> DriverState {
    let mut st = DriverState {
        wall_seconds,
        ..Default::default()
    };
    sim.save_driver(&mut st);
    out.save_driver(&mut st);
    st
}

/// Called with each snapshot the driver takes: the particles, the walls
/// as world triangles per wall, the time and the step (`talus run
/// --render-every` draws from it). An error is reported once and the hook
/// dropped; the run goes on.
pub type SnapshotHook<'a> =
    dyn FnMut(&Particles<f64>, &[(usize, Vec<Triangle>)], f64, u64) -> Result<(), String> + 'a;

/// The snapshot hook and the walls it is shown (tessellated once).
struct Pictures<'h, 'a> {
    hook: Option<&'h mut SnapshotHook<'a>>,
    walls: Option<WallSeries>,
}

impl Pictures<'_, '_> {
    fn show<B: Backend>(
        &mut self,
        sim: &mut Simulation<B>,
        p: &Particles<f64>,
        t: f64,
        step: u64,
        watch: &mut dyn Watch,
    ) {
        let (Some(h), Some(walls)) = (self.hook.as_mut(), self.walls.as_ref()) else {
            return;
        };
        let poses = sim.walls();
        let mut tris = walls.world(|w, x| poses[w].0.to_world(glam::DVec3::from(x)).to_array());
        if let Some(set) = sim.backend().bodies() {
            tris.extend(set.surface_triangles(sim.scene().walls.len()));
        }
        if let Err(e) = h(p, &tris, t, step) {
            watch.notice(&format!("warning: {e}; no more pictures for this run"));
            self.hook = None;
        }
    }
}

/// Runs `scene` on `backend` up to step `cfg.steps`, writing outputs into
/// `cfg.out_dir` (continuing them when `cfg.resume` is given), quietly.
/// A convenience over [`drive`] for callers that hold a scene and a
/// backend (it resolves a copy of the scene).
pub fn run(
    scene: &Scene,
    backend: &mut dyn Backend,
    cfg: &RunConfig,
) -> Result<Summary, RunFailure> {
    let setup = Arc::new(Setup::new(scene.clone()).map_err(RunFailure::Scene)?);
    let mut sim = match &cfg.resume {
        Some(d) => Simulation::resume(setup, backend, d),
        None => Simulation::new(setup, backend),
    };
    drive(&mut sim, cfg, None, &mut Quiet)
}

/// Said once per `[[insert]]` entry while its region is too full to place
/// what its rate asks.
fn shortfall_notices<B: Backend>(sim: &Simulation<B>, told: &mut [bool], watch: &mut dyn Watch) {
    let short = sim.insert_shortfall();
    for (k, told) in told.iter_mut().enumerate() {
        let placed = sim.flow().inserted[k].count;
        if short[k] > 0 && !*told {
            *told = true;
            watch.notice(&format!(
                "insert[{k}]: the region is too full: {placed} of {} particles placed by t = {:.4e} s (the shortfall is made up when room appears; summary.json reports what is left)",
                placed + short[k],
                sim.time()
            ));
        } else if short[k] == 0 {
            *told = false;
        }
    }
}

/// The loop's own counters.
struct Progress {
    start: Instant,
    /// Wall-clock seconds of the run's earlier parts (a resumed run).
    wall_before: f64,
    first_step: u64,
    particle_steps: f64,
    last_diag: Diagnostics,
    last_good: Particles<f64>,
    /// The clumps at `last_good` (empty: spheres only).
    last_good_clumps: Vec<crate::shapes::clumps::ClumpRow>,
}

/// Runs `sim` up to step `cfg.steps`, writing outputs into `cfg.out_dir`
/// (continuing them when `cfg.resume` is given; `sim` must then have been
/// resumed from the same checkpoint), each snapshot also handed to `hook`,
/// progress and notices to `watch`: a [`Driver`] opened, advanced to the
/// end (or a stop request) and finished.
pub fn drive<B: Backend>(
    sim: &mut Simulation<B>,
    cfg: &RunConfig,
    hook: Option<&mut SnapshotHook>,
    watch: &mut dyn Watch,
) -> Result<Summary, RunFailure> {
    let mut d = Driver::open(sim, cfg.clone(), hook, watch)?;
    let stop = cfg.stop.clone();
    let mut signal = 0;
    let mut asked = || {
        signal = stop.as_ref().map_or(0, |f| f.load(Ordering::SeqCst));
        signal != 0
    };
    let ended = d.advance(sim, cfg.steps, &mut asked, watch);
    let end = match ended {
        Ok(_) | Err(Halt::Failed) => d.finish(sim, watch, signal),
        Err(Halt::Io(e)) => Err(e),
    };
    if let Err(RunFailure::Io(e, path)) = &end {
        // the outputs could not be written (a full disk, a folder gone):
        // say so where the summary stands, if anything can be written
        failed_summary(sim, cfg, &format!("{}: {e}", path.display()));
    }
    end
}

/// What a checkpoint's scene hash ends with when the run's walls were
/// edited after its scene was loaded ([`Driver::walls_edited`]).
pub const EDITED: &str = "+walls-edited";

/// Why [`Driver::advance`] stopped before its target step.
#[derive(Debug)]
pub enum Halt {
    /// The run blew up ([`Driver::failure`] says how); [`Driver::finish`]
    /// writes its last good state.
    Failed,
    /// An output could not be written.
    Io(RunFailure),
}

/// A run directory being written while its simulation advances, in as
/// many parts as its caller likes: opened (the folder held and cleared,
/// the outputs opened, the snapshot of t = 0), advanced (rows and
/// snapshots at output steps, checkpoints every `checkpoint_interval`
/// wall-clock seconds), finished (the row and snapshot of the last step,
/// a checkpoint, `final.csv`, `summary.json`). `talus run` advances it
/// once to the end ([`drive`]); the Python package call by call: the
/// files are the same, bit for bit, however the advances are cut.
pub struct Driver<'h, 'a> {
    cfg: RunConfig,
    lock: Option<FolderLock>,
    out: Outputs,
    pictures: Pictures<'h, 'a>,
    pg: Progress,
    /// Steps per advance (~0.1 s each).
    pace: Pace,
    last_checkpoint: Instant,
    told_short: Vec<bool>,
    told_domain: u64,
    /// The steps of the last energy row and the last snapshot written.
    last_row: Option<u64>,
    last_snapshot: u64,
    failure: Option<RunError>,
}

impl<'h, 'a> Driver<'h, 'a> {
    /// Holds and clears `cfg.out_dir` (continuing it when `cfg.resume` is
    /// given: `sim` must have been resumed from the same checkpoint),
    /// opens the outputs and, for a fresh run, writes the snapshot of
    /// t = 0 (also handed to `hook`).
    pub fn open<B: Backend>(
        sim: &mut Simulation<B>,
        cfg: RunConfig,
        hook: Option<&'h mut SnapshotHook<'a>>,
        watch: &mut dyn Watch,
    ) -> Result<Self, RunFailure> {
        let resumed = cfg.resume.as_ref();
        // one run at a time in a folder, holding one run's files: an
        // earlier run's checkpoint, snapshots, final.csv or "ok"
        // summary.json must not outlive this one's start (summary.json and
        // final.csv are written when a run ends)
        let lock = FolderLock::claim(&cfg.out_dir).map_err(RunFailure::Folder)?;
        if let Some(h) = &lock.took_over {
            watch.notice(&format!(
                "{}: took over the lock of {h}, which is no longer running",
                cfg.out_dir.display()
            ));
        }
        let cleared = match resumed {
            None => folder::clear_earlier_run(&cfg.out_dir),
            Some(r) => folder::clear_after_checkpoint(&cfg.out_dir, r.snapshot_k),
        }
        .map_err(RunFailure::Folder)?;
        if resumed.is_none() && !cleared.is_empty() {
            watch.notice(&folder::cleared_notice(&cfg.out_dir, &cleared));
        }
        let mut out = Outputs::open(&cfg.out_dir, sim, cfg.output_every, resumed)?;
        let walls = hook.is_some().then(|| {
            let s = sim.scene();
            WallSeries::new(&cfg.out_dir, &s.walls, &s.domain)
        });
        let mut pictures = Pictures { hook, walls };
        let pg = Progress {
            start: Instant::now(),
            wall_before: resumed.map_or(0.0, |r| r.wall_seconds),
            first_step: sim.step(),
            particle_steps: 0.0,
            last_diag: Diagnostics::default(),
            last_good: sim.particles(),
            last_good_clumps: sim.clumps(),
        };
        if resumed.is_none() {
            let states = sim.backend().bodies().map(|b| b.now());
            out.snapshot(sim, &pg.last_good, states.as_deref(), 0.0)?;
            pictures.show(sim, &pg.last_good, 0.0, 0, watch);
        }
        let domain = sim.outlets().domain();
        Ok(Driver {
            told_short: vec![false; sim.scene().inserts.len()],
            told_domain: sim.flow().removed[domain].count,
            last_row: None,
            last_snapshot: sim.step(),
            failure: None,
            pace: Pace::default(),
            last_checkpoint: Instant::now(),
            lock: Some(lock),
            out,
            pictures,
            pg,
            cfg,
        })
    }

    /// Marks the run's walls as edited since its scene was loaded (the
    /// Python package's `set_wall_motion`): its checkpoints then record a
    /// scene hash with [`EDITED`] after it, and resuming one from the scene
    /// file alone is refused ([`super::open::check_checkpoint`]): the file
    /// no longer says where the walls are or how they move.
    pub fn walls_edited(&mut self) {
        if !self.cfg.scene_hash.ends_with(EDITED) {
            self.cfg.scene_hash.push_str(EDITED);
        }
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.cfg.out_dir
    }

    /// How the run blew up, if it did (it advances no further).
    pub fn failure(&self) -> Option<&RunError> {
        self.failure.as_ref()
    }

    /// Advances `sim` to step `to` (nothing when there already), in chunks
    /// of ~0.1 s, writing the rows and snapshots due on the way; between
    /// chunks it asks `stop` whether to stop there (Ok: stopped early or
    /// not, the outputs written up to where it stands).
    pub fn advance<B: Backend>(
        &mut self,
        sim: &mut Simulation<B>,
        to: u64,
        stop: &mut dyn FnMut() -> bool,
        watch: &mut dyn Watch,
    ) -> Result<(), Halt> {
        if self.failure.is_some() {
            return Err(Halt::Failed);
        }
        let io = |e: RunFailure| Halt::Io(e);
        let domain = sim.outlets().domain();
        while sim.step() < to {
            let done = sim.step();
            // run up to the step after which the next energy row is due
            let target = (self.out.next_row() + 1).min(to);
            let todo = self.pace.next(target.saturating_sub(done));
            let t0 = Instant::now();
            let n_before = sim.particle_count();
            if let Err(e) = sim.advance(todo) {
                self.failure = Some(e);
                return Err(Halt::Failed);
            }
            self.pg.particle_steps += n_before as f64 * todo as f64;
            // chunks of ~0.1 s between looks at the clock and the stop flag
            self.pace.tune(t0.elapsed());
            let done = sim.step();
            shortfall_notices(sim, &mut self.told_short, watch);
            if done == self.out.next_row() + 1 {
                let b = sim.balance();
                self.pg.last_diag = b.particles;
                self.out.row(sim, &b, done).map_err(|e| io(e.into()))?;
                self.last_row = Some(done);
                let gone = sim.flow().removed[domain].count;
                if gone > self.told_domain {
                    watch.notice(&format!(
                        "{} particles left the open domain and were removed by t = {:.4e} s (flow.csv, outlet \"domain\")",
                        gone - self.told_domain,
                        sim.time()
                    ));
                    self.told_domain = gone;
                }
                if done > 1 {
                    self.snapshot(sim, &b, watch).map_err(io)?;
                }
            }
            watch.progress(
                done,
                self.cfg.steps,
                self.pg.first_step,
                self.pg.particle_steps,
            );
            if done < to && stop() {
                break;
            }
            if self.last_checkpoint.elapsed().as_secs_f64() >= self.cfg.checkpoint_interval
                && done < self.cfg.steps
            {
                self.checkpoint(sim).map_err(io)?;
            }
        }
        Ok(())
    }

    /// The last good state taken now, written as the next snapshot (and
    /// shown to the hook).
    fn snapshot<B: Backend>(
        &mut self,
        sim: &mut Simulation<B>,
        b: &super::simulation::Balance,
        watch: &mut dyn Watch,
    ) -> Result<(), RunFailure> {
        self.pg.last_good = sim.particles();
        self.pg.last_good_clumps = sim.clumps();
        let t = sim.time();
        let states = sim
            .backend()
            .bodies()
            .is_some()
            .then_some(&b.body_states[..]);
        self.out.snapshot(sim, &self.pg.last_good, states, t)?;
        self.last_snapshot = sim.step();
        let (p, step) = (&self.pg.last_good, sim.step());
        self.pictures.show(sim, p, t, step, watch);
        Ok(())
    }

    /// Writes a checkpoint of where the run stands (the tables as they
    /// are: a run resumed from it continues them): its size (bytes) and
    /// the seconds it took.
    pub fn checkpoint<B: Backend>(
        &mut self,
        sim: &mut Simulation<B>,
    ) -> Result<(u64, f64), RunFailure> {
        let wall = self.pg.wall_before + self.pg.start.elapsed().as_secs_f64();
        let cost = save_checkpoint(sim, &self.cfg, driver_state(sim, &self.out, wall))?;
        self.last_checkpoint = Instant::now();
        Ok(cost)
    }

    /// Ends the run where `sim` stands: the row and snapshot of its last
    /// step (unless stopped by signal `stop_signal` ≠ 0, or failed), a
    /// checkpoint (none after a failure: the last good one stays),
    /// `final.csv` (the last good state after a failure) and
    /// `summary.json`; the folder is let go.
    pub fn finish<B: Backend>(
        mut self,
        sim: &mut Simulation<B>,
        watch: &mut dyn Watch,
        stop_signal: i32,
    ) -> Result<Summary, RunFailure> {
        watch.finish();
        let done = sim.step();
        let (mut pre_end, mut bal) = (None, None);
        if self.failure.is_none() && stop_signal == 0 {
            if self.last_row != Some(done) && done > self.pg.first_step {
                // the outputs of the end alone: a run resumed from this
                // end's checkpoint writes over them, so its tables and
                // snapshots are those of a run that went straight on
                pre_end = Some(driver_state(sim, &self.out, 0.0));
                let b = sim.balance();
                self.pg.last_diag = b.particles;
                self.out.row(sim, &b, done)?;
                self.last_row = Some(done);
                bal = Some(b);
            }
            if self.last_snapshot != done {
                let b = bal.unwrap_or_else(|| sim.balance());
                self.snapshot(sim, &b, watch)?;
            }
        }
        let failure = self.failure.take();
        let summary = finish(
            sim,
            &self.cfg,
            &self.out,
            self.pg,
            pre_end,
            failure,
            stop_signal,
        );
        drop(self.lock.take());
        summary
    }
}

/// `summary.json` of a run whose outputs could not be written: its status
/// "failed" and why, the step it reached (best effort: the disk that
/// refused the outputs may refuse this too).
fn failed_summary<B: Backend>(sim: &mut Simulation<B>, cfg: &RunConfig, error: &str) {
    let scene = sim.scene();
    let json = serde_json::json!({
        "scene": scene.name,
        "scene_file": scene.file.as_ref().map(|f| f.display().to_string()),
        "status": "failed",
        "error": error,
        "steps": sim.step(),
        "dt": sim.dt(),
        "simulated_time": sim.step() as f64 * sim.dt(),
        "backend": sim.backend().name(),
        "adapter": sim.backend().adapter(),
    });
    let text = serde_json::to_string_pretty(&json).expect("summary serialises");
    let _ = std::fs::write(cfg.out_dir.join(SUMMARY_FILE), text + "\n");
}

/// The end of a run: its checkpoint (none after a failure: the last good
/// one stays), `final.csv` (the last good state after a failure) and
/// `summary.json`.
fn finish<B: Backend>(
    sim: &mut Simulation<B>,
    cfg: &RunConfig,
    out: &Outputs,
    pg: Progress,
    pre_end: Option<DriverState>,
    failure: Option<RunError>,
    stop_signal: i32,
) -> Result<Summary, RunFailure> {
    let wall = pg.start.elapsed().as_secs_f64();
    let wall_seconds = pg.wall_before + wall;
    let done = sim.step();
    let mut ckpt = None;
    let mut ckpt_cost = (0, 0.0);
    if failure.is_none() {
        let now = driver_state(sim, out, wall_seconds);
        let mut at = pre_end.unwrap_or_else(|| now.clone());
        at.wall_seconds = wall_seconds;
        at.flow = now.flow;
        at.residual_ratio = now.residual_ratio;
        ckpt_cost = save_checkpoint(sim, cfg, at)?;
        ckpt = Some(
            cfg.out_dir
                .join(checkpoint::CHECKPOINT_FILE)
                .display()
                .to_string(),
        );
    }
    let flow = sim.flow().clone();
    let (ins, rem) = (flow.inserted_total(), flow.removed_total());
    let (particles_end, final_state) = match failure {
        Some(_) => (
            // particles, not rows: a clump's members share its id
            pg.last_good.id.windows(2).filter(|w| w[0] != w[1]).count() as u64
                + u64::from(!pg.last_good.id.is_empty()),
            (pg.last_good, pg.last_good_clumps),
        ),
        None => (sim.particle_count(), (sim.particles(), sim.clumps())),
    };
    let scene = sim.scene();
    let summary = Summary {
        scene: scene.name.clone(),
        scene_file: scene.file.as_ref().map(|f| f.display().to_string()),
        status: if failure.is_some() {
            "failed"
        } else if stop_signal != 0 {
            "interrupted"
        } else {
            "ok"
        }
        .into(),
        error: failure.as_ref().map(|e| e.to_string()),
        particles: scene.particles.len(),
        particles_end,
        inserted: ins.count,
        removed: rem.count,
        inserted_mass: ins.mass,
        removed_mass: rem.mass,
        insert_shortfall: sim.insert_shortfall(),
        removed_by_outlet: sim
            .outlets()
            .names
            .iter()
            .zip(&flow.removed)
            .map(|(n, c)| (n.clone(), c.count))
            .collect(),
        resumed_from: cfg.resume.as_ref().map(|_| pg.first_step),
        checkpoint: ckpt,
        checkpoint_bytes: ckpt_cost.0,
        checkpoint_seconds: ckpt_cost.1,
        steps: done,
        dt: sim.dt(),
        simulated_time: done as f64 * sim.dt(),
        wall_seconds,
        particle_steps_per_second: pg.particle_steps / wall.max(1e-9),
        backend: sim.backend().name().into(),
        adapter: sim.backend().adapter(),
        max_overlap_ratio: sim.max_overlap_ratio(),
        energy_residual_relative: sim.residual_ratio(),
        final_energy: pg.last_diag,
        ranks: sim.ranks(),
        warnings: warnings(
            sim.residual_ratio(),
            sim.max_overlap_ratio(),
            flow.removed[sim.outlets().domain()].count,
            &sim.insert_shortfall(),
        ),
    };
    let csv_path = cfg.out_dir.join("final.csv");
    io(
        csv::write_particles(
            &csv_path,
            &to_inits(&final_state.0, &final_state.1),
            &sim.scene().materials,
            &sim.scene().shapes,
        ),
        &csv_path,
    )?;
    let sum_path = cfg.out_dir.join(SUMMARY_FILE);
    let json = serde_json::to_string_pretty(&summary).expect("summary serialises");
    io(std::fs::write(&sum_path, json + "\n"), &sum_path)?;
    match failure {
        Some(e) => Err(RunFailure::Blowup(e, Box::new(summary))),
        None if stop_signal != 0 => Err(RunFailure::Interrupted {
            signal: stop_signal,
            summary: Box::new(summary),
        }),
        None => Ok(summary),
    }
}
