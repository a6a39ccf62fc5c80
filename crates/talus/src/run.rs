//! The run driver: advances a backend, writes snapshots, the energy table,
//! `walls.csv`, `flow.csv`, checkpoints, `final.csv` and `summary.json`,
//! and shows progress. Backend-agnostic: it only reads back at output
//! intervals and checkpoints. A run resumed from a checkpoint
//! ([`RunConfig::resume`]) cuts every table back to the length it had at
//! that checkpoint and continues it; a stop request ([`RunConfig::stop`],
//! set by a signal) ends the run at the next chunk with a checkpoint.

use crate::backend::{Backend, Diagnostics, RunError};
use crate::checkpoint::{self, DriverState, Header};
use crate::flow::{FlowTally, InsertPlan, OutletSet};
use crate::io::bodies::{BodiesCsv, BodyFrame, BodyRow, BodySeries};
use crate::io::walls::{Triangle, WallSeries, WallsCsv, WriteError};
use crate::io::{csv, vtk};
use crate::scene::{ParticleInit, Scene};
use crate::state::Particles;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    pub fn new(scene: &Scene, out_dir: PathBuf, steps: u64) -> Self {
        RunConfig {
            out_dir,
            steps,
            output_every: scene.output_every(),
            checkpoint_interval: scene.simulation.checkpoint_interval,
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
}

/// A failed run: the error and the summary written beside the last good
/// state.
#[derive(Debug)]
pub enum RunFailure {
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
            RunFailure::Io(e, p) => write!(f, "{}: {e}", p.display()),
            RunFailure::Blowup(e, _) => write!(f, "run stopped at {e}"),
            RunFailure::Interrupted { signal, summary } => {
                write!(f, "interrupted (signal {signal}) at step {}", summary.steps)
            }
        }
    }
}

impl std::error::Error for RunFailure {}

fn wio<T>(r: Result<T, WriteError>) -> Result<T, RunFailure> {
    r.map_err(|e| RunFailure::Io(e.source, e.path))
}

fn io<T>(r: std::io::Result<T>, p: &Path) -> Result<T, RunFailure> {
    r.map_err(|e| RunFailure::Io(e, p.to_path_buf()))
}

/// Converts a state back into scene particles (for `final.csv`).
pub fn to_inits(p: &Particles<f64>) -> Vec<ParticleInit> {
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
            }
        })
        .collect()
}

/// What a checkpoint's header needs besides the backend.
fn header(
    scene: &Scene,
    cfg: &RunConfig,
    b: &dyn Backend,
    saved: &checkpoint::Saved,
    driver: DriverState,
) -> Header {
    Header {
        talus: env!("CARGO_PKG_VERSION").to_string(),
        scene: scene.name.clone(),
        scene_file: scene.file.as_ref().map(|f| f.display().to_string()),
        scene_hash: cfg.scene_hash.clone(),
        backend: b.name().to_string(),
        adapter: b.adapter(),
        dt: scene.dt(),
        state: saved.scalars.clone(),
        driver,
    }
}

/// Cuts `path` back to `len` bytes (a resumed run's table).
fn cut_back(path: &Path, len: u64) -> Result<(), RunFailure> {
    let f = io(std::fs::OpenOptions::new().write(true).open(path), path)?;
    io(f.set_len(len), path)
}

/// Bytes in `path` now (0 when missing).
fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// The tables whose length a checkpoint keeps.
const TABLES: [&str; 4] = ["energy.csv", "walls.csv", "flow.csv", "bodies.csv"];

/// `flow.csv`'s header: cumulative removals per outlet.
pub const FLOW_CSV_HEADER: &str = "t,outlet,count,mass";

/// Called with each snapshot the driver takes: the particles, the walls
/// as world triangles per wall, the time and the step (`talus run
/// --render-every` draws from it). An error is reported once and the hook
/// dropped; the run goes on.
pub type SnapshotHook<'a> =
    dyn FnMut(&Particles<f64>, &[(usize, Vec<Triangle>)], f64, u64) -> Result<(), String> + 'a;

/// Runs `scene` on `backend` up to step `cfg.steps`, writing outputs into
/// `cfg.out_dir` (continuing them when `cfg.resume` is given).
pub fn run(
    scene: &Scene,
    backend: &mut dyn Backend,
    cfg: &RunConfig,
) -> Result<Summary, RunFailure> {
    run_with(scene, backend, cfg, None, &mut Quiet)
}

/// [`run`], handing every snapshot to `hook`.
pub fn run_with(
    scene: &Scene,
    backend: &mut dyn Backend,
    cfg: &RunConfig,
    mut hook: Option<&mut SnapshotHook>,
    watch: &mut dyn Watch,
) -> Result<Summary, RunFailure> {
    let out = &cfg.out_dir;
    io(std::fs::create_dir_all(out), out)?;
    let n0 = scene.particles.len();
    let dt = scene.dt();
    // with FEM bodies, outputs fall on exchange steps (where the bodies'
    // state is known): the interval rounded up to a multiple of K
    let every = match backend.bodies() {
        Some(b) => cfg.output_every.max(1).div_ceil(b.every) * b.every,
        None => cfg.output_every.max(1),
    };
    let resumed = cfg.resume.clone();
    let mut st = resumed.clone().unwrap_or_else(|| DriverState {
        flow: FlowTally::new(scene.inserts.len(), scene.outlets.len()),
        ..Default::default()
    });
    let first_step = backend.steps_done();
    // the tables: cut back to the checkpoint and appended to, or new
    let open_table = |name: &str, header: &str| -> Result<std::fs::File, RunFailure> {
        let path = out.join(name);
        let len = resumed
            .as_ref()
            .and_then(|r| r.tables.iter().find(|t| t.0 == name))
            .map_or(0, |t| t.1);
        if len > 0 && path.exists() {
            cut_back(&path, len)?;
            return io(std::fs::OpenOptions::new().append(true).open(&path), &path);
        }
        let mut f = io(std::fs::File::create(&path), &path)?;
        io(writeln!(f, "{header}"), &path)?;
        Ok(f)
    };
    let energy_path = out.join("energy.csv");
    let has_bodies = backend.bodies().is_some();
    let mut energy = open_table(
        "energy.csv",
        if has_bodies {
            "t,kinetic_translational,kinetic_rotational,potential,elastic,dissipated,body_kinetic,body_strain,body_contact,body_potential,body_dissipated,residual"
        } else {
            "t,kinetic_translational,kinetic_rotational,potential,elastic,dissipated,residual"
        },
    )?;
    // the FEM bodies: bodies.csv beside the energy rows, their meshes
    // beside each particle snapshot (bodies.pvd)
    let body_names: Vec<String> = (0..scene.bodies.len())
        .map(|i| scene.bodies[i].label(i))
        .collect();
    let bodies_csv_path = out.join("bodies.csv");
    let mut bodies_out = if has_bodies {
        let mut series = BodySeries::new(out, &body_names);
        let resumed_len = resumed
            .as_ref()
            .and_then(|r| r.tables.iter().find(|t| t.0 == "bodies.csv"))
            .map_or(0, |t| t.1);
        let csv = if resumed_len > 0 && bodies_csv_path.exists() {
            cut_back(&bodies_csv_path, resumed_len)?;
            series.resume(
                resumed
                    .as_ref()
                    .map(|r| r.bodies_pvd.clone())
                    .unwrap_or_default(),
            );
            io(
                BodiesCsv::append(&bodies_csv_path, &body_names),
                &bodies_csv_path,
            )?
        } else {
            io(
                BodiesCsv::create(&bodies_csv_path, &body_names),
                &bodies_csv_path,
            )?
        };
        Some((csv, series))
    } else {
        None
    };
    let write_bodies = |series: &mut BodySeries,
                        b: &dyn Backend,
                        k: usize,
                        now: &[crate::fem::coupling::BodyNow]|
     -> Result<(), RunFailure> {
        let Some(set) = b.bodies() else { return Ok(()) };
        let mut refs = Vec::new();
        for (c, n) in set.bodies.iter().zip(now) {
            let mesh = c.body.mesh();
            refs.push((
                mesh.nodes.iter().map(|x| x.to_array()).collect::<Vec<_>>(),
                n.positions.iter().map(|x| x.to_array()).collect::<Vec<_>>(),
                n.velocities
                    .iter()
                    .map(|x| x.to_array())
                    .collect::<Vec<_>>(),
                mesh.order == crate::fem::mesh::Order::Quadratic,
            ));
        }
        let frames: Vec<BodyFrame> = set
            .bodies
            .iter()
            .zip(&refs)
            .zip(now)
            .map(|((c, r), n)| BodyFrame {
                reference: &r.0,
                positions: &r.1,
                velocities: &r.2,
                tets: &c.body.mesh().tets,
                quadratic: r.3,
                von_mises: &n.von_mises,
            })
            .collect();
        let pvd = series.pvd_path();
        let t = set.start_step as f64 * set.dt;
        io(series.write(k, t, &frames), &pvd)
    };
    if resumed.is_none() {
        if let (Some((_, series)), Some(set)) = (bodies_out.as_mut(), backend.bodies()) {
            write_bodies(series, backend, 0, &set.now())?;
        }
    }
    let flow_path = out.join("flow.csv");
    let mut flow_csv = open_table("flow.csv", FLOW_CSV_HEADER)?;
    let outlets = OutletSet::new(scene);
    let plan = InsertPlan::new(scene);
    let pvd_path = out.join("particles.pvd");
    let mut last_good = backend.snapshot();
    let write_snapshot = |p: &Particles<f64>,
                          k: usize,
                          t: f64,
                          pvd: &mut Vec<(f64, String)>|
     -> Result<(), RunFailure> {
        let name = format!("particles_{k:05}.vtu");
        let path = out.join(&name);
        io(vtk::write_vtu(&path, p, scene), &path)?;
        pvd.push((t, name));
        io(vtk::write_pvd(&pvd_path, pvd), &pvd_path)
    };
    // the walls: their loads beside the energy rows (walls.csv), their
    // geometry at its pose beside each particle snapshot (walls.pvd)
    let walls_csv_path = out.join("walls.csv");
    let mut walls_out = if scene.walls.is_empty() {
        None
    } else {
        let mut series = WallSeries::new(out, &scene.walls, &scene.domain);
        let csv = match &resumed {
            Some(r) if walls_csv_path.exists() => {
                let len = r
                    .tables
                    .iter()
                    .find(|t| t.0 == "walls.csv")
                    .map_or(0, |t| t.1);
                cut_back(&walls_csv_path, len)?;
                series.resume(r.walls_pvd.clone());
                wio(WallsCsv::append(&walls_csv_path, &scene.walls))?
            }
            _ => wio(WallsCsv::for_walls(&walls_csv_path, &scene.walls))?,
        };
        Some((csv, series))
    };
    let write_walls = |series: &mut WallSeries,
                       b: &mut dyn Backend,
                       k: usize,
                       t: f64|
     -> Result<(), RunFailure> {
        let poses = b.walls();
        wio(series.write(k, t, |w, p| {
            poses[w].0.to_world(glam::DVec3::from(p)).to_array()
        }))
    };
    // the walls where they are, for the hook (tessellated once)
    let hook_walls = WallSeries::new(out, &scene.walls, &scene.domain);
    let call_hook = |hook: &mut Option<&mut SnapshotHook>,
                     b: &mut dyn Backend,
                     p: &Particles<f64>,
                     t: f64,
                     step: u64| {
        if let Some(h) = hook.as_mut() {
            let poses = b.walls();
            let mut tris =
                hook_walls.world(|w, x| poses[w].0.to_world(glam::DVec3::from(x)).to_array());
            if let Some(set) = b.bodies() {
                tris.extend(set.surface_triangles(scene.walls.len()));
            }
            if let Err(e) = h(p, &tris, t, step) {
                eprintln!("warning: {e}; no more pictures for this run");
                *hook = None;
            }
        }
    };
    if resumed.is_none() {
        st.snapshot_k = 1;
        write_snapshot(&last_good, 0, 0.0, &mut st.pvd)?;
        call_hook(&mut hook, backend, &last_good, 0.0, 0);
        if let Some((_, series)) = walls_out.as_mut() {
            write_walls(series, backend, 0, 0.0)?;
        }
    } else {
        io(vtk::write_pvd(&pvd_path, &st.pvd), &pvd_path)?;
    }

    let start = Instant::now();
    let wall_before = st.wall_seconds;
    let mut last_diag = Diagnostics::default();
    let mut chunk = 1u64;
    let mut failure: Option<RunError> = None;
    let mut stop_signal = 0;
    let mut particle_steps = 0.0;
    let mut last_checkpoint = Instant::now();
    let mut told_short = vec![false; scene.inserts.len()];
    let mut told_domain = st.flow.removed[outlets.domain()].count;
    let mut pre_end: Option<DriverState> = None;
    let tables_now = || -> Vec<(String, u64)> {
        TABLES
            .iter()
            .map(|t| (t.to_string(), file_len(&out.join(t))))
            .collect()
    };
    let save = |b: &mut dyn Backend, st: &DriverState| -> Result<(u64, f64), RunFailure> {
        let t = Instant::now();
        let saved = b.save();
        let h = header(scene, cfg, b, &saved, st.clone());
        let bytes = io(checkpoint::write(out, &h, &saved), out)?;
        Ok((bytes, t.elapsed().as_secs_f64()))
    };
    while backend.steps_done() < cfg.steps {
        let done = backend.steps_done();
        // run up to the step after which the next energy row is due
        let target = (st.next_row + 1).min(cfg.steps);
        let todo = chunk.min(target.saturating_sub(done)).max(1);
        let t0 = Instant::now();
        let n_before = backend.particle_count();
        let res = backend.advance(todo);
        let mut events = backend.flow_events();
        st.flow.add(&mut events);
        if let Err(e) = res {
            failure = Some(e);
            break;
        }
        particle_steps += n_before as f64 * todo as f64;
        if t0.elapsed() < Duration::from_millis(100) {
            chunk = (chunk * 2).min(1 << 20);
        } else if chunk > 1 {
            chunk /= 2;
        }
        let done = backend.steps_done();
        // a region too full to place what the rate asks: said once per entry
        for (k, told) in told_short.iter_mut().enumerate() {
            let asked = plan.target_before(k, done);
            let placed = st.flow.inserted[k].count;
            if placed < asked && !*told {
                *told = true;
                watch.notice(&format!(
                    "insert[{k}]: the region is too full: {placed} of {asked} particles placed by t = {:.4e} s (the shortfall is made up when room appears; summary.json reports what is left)",
                    done as f64 * dt
                ));
            } else if placed >= asked {
                *told = false;
            }
        }
        let at_row = done == st.next_row + 1;
        let at_end = done == cfg.steps;
        if at_end && !at_row {
            // the outputs of the end alone: a run resumed from this end's
            // checkpoint writes over them, so its tables and snapshots are
            // those of a run that went straight on
            let mut before = st.clone();
            before.tables = tables_now();
            pre_end = Some(before);
        }
        if at_row || at_end {
            let d = backend.diagnostics();
            // the bodies at the row's time (the start of an exchange
            // interval): their energies join the balance
            let body_now = backend.bodies().map(|b| b.now());
            let be = body_now.as_ref().map_or([0.0; 5], |now| {
                now.iter().fold([0.0; 5], |a, n| {
                    [
                        a[0] + n.kinetic,
                        a[1] + n.strain,
                        a[2] + n.contact,
                        a[3] + n.potential,
                        a[4] + n.dissipated,
                    ]
                })
            });
            let total = d.total() + be.iter().sum::<f64>();
            let moving = d.kinetic_translational + d.kinetic_rotational + d.elastic + be[0] + be[1];
            // particles brought in or taken out carry their energy: the
            // balance counts what is present against its reference plus
            // what came in minus what went out
            let own = total - st.flow.net_energy();
            let (e_ref, moving0) = *st.e0.get_or_insert((own, moving));
            let residual = own - e_ref;
            st.residual_ratio = residual.abs() / d.dissipated.max(moving0).max(moving).max(1e-300);
            last_diag = d;
            let t = (done - 1) as f64 * dt;
            let body_cols = if has_bodies {
                be.iter().map(|x| format!("{x:e},")).collect::<String>()
            } else {
                String::new()
            };
            io(
                writeln!(
                    energy,
                    "{t:e},{:e},{:e},{:e},{:e},{:e},{body_cols}{:e}",
                    d.kinetic_translational,
                    d.kinetic_rotational,
                    d.potential,
                    d.elastic,
                    d.dissipated,
                    residual
                ),
                &energy_path,
            )?;
            if let (Some((csv, _)), Some(now)) = (bodies_out.as_mut(), body_now.as_ref()) {
                let rows: Vec<BodyRow> = now
                    .iter()
                    .map(|n| BodyRow {
                        com: n.com.to_array(),
                        com_velocity: n.com_velocity.to_array(),
                        kinetic: n.kinetic,
                        strain: n.strain,
                        force: n.force.to_array(),
                    })
                    .collect();
                io(csv.row(t, &rows), &bodies_csv_path)?;
            }
            io(energy.flush(), &energy_path)?;
            let mut rows = String::new();
            for (name, c) in outlets.names.iter().zip(&st.flow.removed) {
                rows += &format!("{t:e},{name},{},{:e}\n", c.count, c.mass);
            }
            io(flow_csv.write_all(rows.as_bytes()), &flow_path)?;
            io(flow_csv.flush(), &flow_path)?;
            let gone = st.flow.removed[outlets.domain()].count;
            if gone > told_domain {
                watch.notice(&format!(
                    "{} particles left the open domain and were removed by t = {:.4e} s (flow.csv, outlet \"domain\")",
                    gone - told_domain,
                    done as f64 * dt
                ));
                told_domain = gone;
            }
            if let Some((csv, _)) = walls_out.as_mut() {
                let loads: Vec<_> = backend.walls().iter().map(|w| w.1).collect();
                wio(csv.row(t, &loads))?;
            }
            if done > 1 || at_end {
                last_good = backend.snapshot();
                write_snapshot(&last_good, st.snapshot_k, done as f64 * dt, &mut st.pvd)?;
                call_hook(&mut hook, backend, &last_good, done as f64 * dt, done);
                if let Some((_, series)) = walls_out.as_mut() {
                    write_walls(series, backend, st.snapshot_k, done as f64 * dt)?;
                    st.walls_pvd = series.entries().to_vec();
                }
                if let (Some((_, series)), Some(now)) = (bodies_out.as_mut(), body_now.as_ref()) {
                    write_bodies(series, backend, st.snapshot_k, now)?;
                    st.bodies_pvd = series.pvd();
                }
                st.snapshot_k += 1;
            }
            st.next_row += every;
        }
        watch.progress(done, cfg.steps, first_step, particle_steps);
        if let Some(flag) = &cfg.stop {
            stop_signal = flag.load(Ordering::SeqCst);
            if stop_signal != 0 {
                break;
            }
        }
        if last_checkpoint.elapsed().as_secs_f64() >= cfg.checkpoint_interval && !at_end {
            st.tables = tables_now();
            st.wall_seconds = wall_before + start.elapsed().as_secs_f64();
            save(backend, &st)?;
            last_checkpoint = Instant::now();
        }
    }
    watch.finish();
    let wall = start.elapsed().as_secs_f64();
    let done = backend.steps_done();
    st.wall_seconds = wall_before + wall;
    // the end (or the stop) gets a checkpoint; a failed run keeps its
    // last good one
    let mut ckpt = None;
    let mut ckpt_cost = (0, 0.0);
    if failure.is_none() {
        st.tables = tables_now();
        let mut at = pre_end.take().unwrap_or_else(|| st.clone());
        at.wall_seconds = st.wall_seconds;
        at.flow = st.flow.clone();
        at.residual_ratio = st.residual_ratio;
        ckpt_cost = save(backend, &at)?;
        ckpt = Some(out.join(checkpoint::CHECKPOINT_FILE).display().to_string());
    }
    let ins = st.flow.inserted_total();
    let rem = st.flow.removed_total();
    let particles_end = if failure.is_some() {
        last_good.len() as u64
    } else {
        backend.particle_count()
    };
    let summary = Summary {
        scene: scene.name.clone(),
        status: if failure.is_some() {
            "failed"
        } else if stop_signal != 0 {
            "interrupted"
        } else {
            "ok"
        }
        .into(),
        error: failure.map(|e| e.to_string()),
        particles: n0,
        particles_end,
        inserted: ins.count,
        removed: rem.count,
        inserted_mass: ins.mass,
        removed_mass: rem.mass,
        insert_shortfall: (0..scene.inserts.len())
            .map(|k| {
                plan.target_before(k, done)
                    .saturating_sub(st.flow.inserted[k].count)
            })
            .collect(),
        removed_by_outlet: outlets
            .names
            .iter()
            .zip(&st.flow.removed)
            .map(|(n, c)| (n.clone(), c.count))
            .collect(),
        resumed_from: resumed.as_ref().map(|_| first_step),
        checkpoint: ckpt,
        checkpoint_bytes: ckpt_cost.0,
        checkpoint_seconds: ckpt_cost.1,
        steps: done,
        dt,
        simulated_time: done as f64 * dt,
        wall_seconds: st.wall_seconds,
        particle_steps_per_second: particle_steps / wall.max(1e-9),
        backend: backend.name().into(),
        adapter: backend.adapter(),
        max_overlap_ratio: backend.max_overlap_ratio(),
        energy_residual_relative: st.residual_ratio,
        final_energy: last_diag,
    };
    // On failure the last good state is the last snapshot taken.
    let final_state = if failure.is_some() {
        last_good
    } else {
        backend.snapshot()
    };
    let csv_path = out.join("final.csv");
    io(
        csv::write_particles(&csv_path, &to_inits(&final_state), &scene.materials),
        &csv_path,
    )?;
    let sum_path = out.join("summary.json");
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
