//! The run driver: advances a backend, writes snapshots, the energy table,
//! `final.csv` and `summary.json`, and shows progress. Backend-agnostic: it
//! only reads back at output intervals.

use crate::backend::{Backend, Diagnostics, RunError};
use crate::io::walls::{WallSeries, WallsCsv, WriteError};
use crate::io::{csv, vtk};
use crate::scene::{ParticleInit, Scene};
use crate::state::Particles;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar on a terminal (after the first second), plain lines otherwise.
    Auto,
    Quiet,
}

#[derive(Debug, Clone)]
pub struct RunConfig {
    pub out_dir: PathBuf,
    pub steps: u64,
    pub output_every: u64,
    pub progress: Progress,
}

/// `summary.json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub scene: String,
    pub status: String,
    pub error: Option<String>,
    pub particles: usize,
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
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::Io(e, p) => write!(f, "{}: {e}", p.display()),
            RunFailure::Blowup(e, _) => write!(f, "run stopped at {e}"),
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

struct Reporter {
    bar: ProgressBar,
    shown: bool,
    plain: bool,
    quiet: bool,
    start: Instant,
    last_plain: Instant,
    total: u64,
    n: usize,
}

impl Reporter {
    fn new(progress: Progress, total: u64, n: usize) -> Self {
        let quiet = progress == Progress::Quiet;
        let plain = !std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} steps, ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        Reporter {
            bar,
            shown: false,
            plain,
            quiet,
            start: Instant::now(),
            last_plain: Instant::now(),
            total,
            n,
        }
    }

    fn update(&mut self, done: u64) {
        if self.quiet {
            return;
        }
        let el = self.start.elapsed();
        let rate = self.n as f64 * done as f64 / el.as_secs_f64().max(1e-9);
        if self.plain {
            if el > Duration::from_secs(1) && self.last_plain.elapsed() >= Duration::from_secs(5) {
                self.last_plain = Instant::now();
                let eta = el.as_secs_f64() * (self.total - done) as f64 / done.max(1) as f64;
                eprintln!(
                    "step {done}/{} ({:.0}%), {:.1} s elapsed, ETA {:.0} s, {:.3e} particle-steps/s",
                    self.total,
                    100.0 * done as f64 / self.total.max(1) as f64,
                    el.as_secs_f64(),
                    eta,
                    rate
                );
            }
            return;
        }
        if !self.shown && el > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(done);
        self.bar.set_message(format!("{rate:.3e} particle-steps/s"));
    }

    fn finish(&self) {
        if self.shown {
            self.bar.finish_and_clear();
        }
    }
}

/// Runs `cfg.steps` steps of `scene` on `backend`, writing outputs into
/// `cfg.out_dir`.
pub fn run(
    scene: &Scene,
    backend: &mut dyn Backend,
    cfg: &RunConfig,
) -> Result<Summary, RunFailure> {
    let out = &cfg.out_dir;
    io(std::fs::create_dir_all(out), out)?;
    let n = scene.particles.len();
    let dt = scene.dt();
    let every = cfg.output_every.max(1);
    let energy_path = out.join("energy.csv");
    let mut energy = io(std::fs::File::create(&energy_path), &energy_path)?;
    io(
        writeln!(
            energy,
            "t,kinetic_translational,kinetic_rotational,potential,elastic,dissipated,residual"
        ),
        &energy_path,
    )?;
    let mut pvd: Vec<(f64, String)> = Vec::new();
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
    write_snapshot(&last_good, 0, 0.0, &mut pvd)?;
    // the walls: their loads beside the energy rows (walls.csv), their
    // geometry at its pose beside each particle snapshot (walls.pvd)
    let mut walls_out = if scene.walls.is_empty() {
        None
    } else {
        let csv = wio(WallsCsv::for_walls(&out.join("walls.csv"), &scene.walls))?;
        Some((csv, WallSeries::new(out, &scene.walls, &scene.domain)))
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
    if let Some((_, series)) = walls_out.as_mut() {
        write_walls(series, backend, 0, 0.0)?;
    }

    let mut rep = Reporter::new(cfg.progress, cfg.steps, n);
    let start = Instant::now();
    let mut e0: Option<(f64, f64)> = None;
    let mut last_diag = Diagnostics::default();
    let mut residual_ratio = 0.0;
    let mut chunk = 1u64;
    let mut next_row = 0u64; // step index of the next energy row
    let mut snapshot_k = 1usize;
    let mut failure: Option<RunError> = None;
    while backend.steps_done() < cfg.steps {
        let done = backend.steps_done();
        // run up to the step after which the next energy row is due
        let target = (next_row + 1).min(cfg.steps);
        let todo = chunk.min(target - done).max(1);
        let t0 = Instant::now();
        if let Err(e) = backend.advance(todo) {
            failure = Some(e);
            break;
        }
        if t0.elapsed() < Duration::from_millis(100) {
            chunk = (chunk * 2).min(1 << 20);
        } else if chunk > 1 {
            chunk /= 2;
        }
        let done = backend.steps_done();
        let at_row = done == next_row + 1;
        let at_end = done == cfg.steps;
        if at_row || at_end {
            let d = backend.diagnostics();
            let total = d.total();
            let moving = d.kinetic_translational + d.kinetic_rotational + d.elastic;
            let (e_ref, moving0) = *e0.get_or_insert((total, moving));
            let residual = total - e_ref;
            residual_ratio = residual.abs() / d.dissipated.max(moving0).max(moving).max(1e-300);
            last_diag = d;
            let t = (done - 1) as f64 * dt;
            io(
                writeln!(
                    energy,
                    "{t:e},{:e},{:e},{:e},{:e},{:e},{:e}",
                    d.kinetic_translational,
                    d.kinetic_rotational,
                    d.potential,
                    d.elastic,
                    d.dissipated,
                    residual
                ),
                &energy_path,
            )?;
            io(energy.flush(), &energy_path)?;
            if let Some((csv, _)) = walls_out.as_mut() {
                let loads: Vec<_> = backend.walls().iter().map(|w| w.1).collect();
                wio(csv.row(t, &loads))?;
            }
            if done > 1 || at_end {
                last_good = backend.snapshot();
                write_snapshot(&last_good, snapshot_k, done as f64 * dt, &mut pvd)?;
                if let Some((_, series)) = walls_out.as_mut() {
                    write_walls(series, backend, snapshot_k, done as f64 * dt)?;
                }
                snapshot_k += 1;
            }
            next_row += every;
        }
        rep.update(done);
    }
    rep.finish();
    let wall = start.elapsed().as_secs_f64();
    let done = backend.steps_done();
    let summary = Summary {
        scene: scene.name.clone(),
        status: if failure.is_some() { "failed" } else { "ok" }.into(),
        error: failure.map(|e| e.to_string()),
        particles: n,
        steps: done,
        dt,
        simulated_time: done as f64 * dt,
        wall_seconds: wall,
        particle_steps_per_second: n as f64 * done as f64 / wall.max(1e-9),
        backend: backend.name().into(),
        adapter: backend.adapter(),
        max_overlap_ratio: backend.max_overlap_ratio(),
        energy_residual_relative: residual_ratio,
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
        None => Ok(summary),
    }
}
