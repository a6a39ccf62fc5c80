//! `talus run`: the scene, a checkpoint to continue, the backend (or the
//! live view around it), the pictures, then the engine's run loop
//! ([`talus::run::drive`]) and what it says at the end.

use crate::args::{fail, load, BackendChoice, Scripted};
use crate::progress;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use talus::backend::Backend;
use talus::gpu::GpuContext;
use talus::run::{self, open, AnyBackend, RunConfig, RunFailure};
use talus::scene::Scene;
use talus::state::Particles;
use talus::Setup;
use talus_view::record::Recorder;
use talus_view::window::Live;

pub struct RunArgs<'a> {
    pub path: &'a Path,
    pub choice: BackendChoice,
    pub out: Option<PathBuf>,
    pub steps: Option<u64>,
    pub duration: Option<f64>,
    pub quiet: bool,
    pub adapter: Option<&'a str>,
    pub resume: Option<PathBuf>,
    pub force: bool,
    /// `--view`: the colour field and camera spec.
    pub view: Option<(String, Option<String>)>,
    /// `--render-every` and the picture options (also present without it,
    /// to refuse options given without --view or --render-every).
    pub render: Option<Render>,
    /// With `view`: close after frames, a screenshot, offscreen.
    pub scripted: Scripted,
}

pub struct Render {
    pub every: Option<f64>,
    pub size: String,
    pub color_by: String,
    pub camera: Option<String>,
}

/// SIGINT and SIGTERM: the first asks the run to stop at the next chunk
/// (the flag becomes the signal's number), a second exits at once.
pub fn stop_flag(quiet: bool) -> Arc<AtomicI32> {
    let flag = Arc::new(AtomicI32::new(0));
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            let f = flag.clone();
            std::thread::spawn(move || {
                for sig in signals.forever() {
                    if f.load(Ordering::SeqCst) != 0 {
                        eprintln!("\nsecond signal: exiting at once, without a checkpoint now (an earlier one, if any, stays)");
                        std::process::exit(128 + sig);
                    }
                    f.store(sig, Ordering::SeqCst);
                    if !quiet {
                        eprintln!(
                            "\nstopping at the next chunk to write a checkpoint (send it again to quit at once)"
                        );
                    }
                }
            });
        }
    }
    #[cfg(not(unix))]
    let _ = quiet;
    flag
}

/// `talus run --view`'s options: the colour field, the camera and the
/// scripted ones (`--frames`, `--screenshot`, `--offscreen`).
fn live_view(
    color_by: &str,
    camera: Option<String>,
    scripted: &Scripted,
    scene: &Scene,
) -> Result<talus_view::window::ViewOpts, String> {
    use talus_view::{colormap::ColorBy, window};
    let mut opts = scripted.opts(PathBuf::new())?;
    if opts.offscreen.is_none() && !window::has_display() {
        return Err(window::NO_DISPLAY.into());
    }
    if let Some(spec) = &camera {
        // checked before the run starts
        let d = &scene.domain;
        talus_view::camera::Camera::frame(d.min, d.max, scene.simulation.gravity)
            .apply_spec(spec)?;
    }
    opts.by = ColorBy::parse(color_by)?;
    opts.camera = camera;
    Ok(opts)
}

pub use talus::run::open::Ckpt;

/// A checkpoint to continue (`--resume DIR`), checked against the scene
/// ([`talus::run::open::checkpoint_for`]).
fn checkpoint_for(a: &RunArgs, setup: &Setup, hash: &str) -> Result<Option<Ckpt>, String> {
    let Some(dir) = &a.resume else {
        return Ok(None);
    };
    let (ckpt, note) = open::checkpoint_for(dir, setup, hash, a.force)?;
    if let (Some(note), false) = (note, a.quiet) {
        eprintln!("note: {note}");
    }
    open::before_end(&ckpt, setup)?;
    Ok(Some(ckpt))
}

/// The backend the run goes on (`--backend` or the checkpoint's), the
/// live view that watches it (`--view`), and why it was chosen (said on
/// stderr).
type Opened = (AnyBackend, Option<Live>, String);

fn open_backend(a: &RunArgs, setup: &Setup, ckpt: &Option<Ckpt>) -> Result<Opened, String> {
    let scene = &setup.scene;
    let choice = match a.choice {
        BackendChoice::Auto => open::Choice::Auto,
        BackendChoice::Gpu => open::Choice::Gpu,
        BackendChoice::Cpu => open::Choice::Cpu,
    };
    let Some((color_by, camera)) = &a.view else {
        return open::open_backend(choice, a.adapter, setup, ckpt.as_ref())
            .map(|(b, why)| (b, None, why));
    };
    let opts = live_view(color_by, camera.clone(), &a.scripted, scene)?;
    let ctx = GpuContext::new(a.adapter).map_err(|e| format!("--view: {e}"))?;
    // the CPU path is drawn from its state at each picture, on the
    // window's own device; the GPU path from its buffers
    let (mut b, own) = if open::resolve_choice(choice, ckpt.as_ref()) == open::Choice::Cpu {
        let cpu = open::cpu_backend(setup, ckpt.as_ref())?;
        (AnyBackend::Cpu(Box::new(cpu)), Some(ctx))
    } else {
        let gpu = open::gpu_backend(setup, ctx, ckpt.as_ref())?;
        (AnyBackend::Gpu(Box::new(gpu)), None)
    };
    let live = Live::new(&mut b, own, scene, &opts)?;
    Ok((b, Some(live), " (--view)".to_string()))
}

/// `--render-every`: the pictures taken during the run (None without it;
/// the picture options without --view or --render-every are refused).
fn recorder(a: &RunArgs, scene: &Scene, out: &Path) -> Result<Option<Recorder>, String> {
    if let Some(r) = &a.render {
        match r.every {
            None => {
                if r.color_by != "speed" || r.camera.is_some() || r.size != "1280x720" {
                    return Err(
                        "--color-by, --camera and --size need --view or --render-every".into(),
                    );
                }
            }
            Some(every) => {
                let made = talus_view::colormap::ColorBy::parse(&r.color_by)
                    .map_err(|e| format!("--color-by: {e}"))
                    .and_then(|by| {
                        let size = talus_view::headless::parse_size(&r.size)
                            .map_err(|e| format!("--size: {e}"))?;
                        talus_view::record::Recorder::new(
                            scene,
                            every,
                            out.join(talus::run::folder::FRAMES_DIR),
                            by,
                            size,
                            r.camera.as_deref(),
                            a.adapter,
                        )
                    });
                match made {
                    Ok(rec) => return Ok(Some(rec)),
                    Err(e) => return Err(e),
                }
            }
        }
    }
    Ok(None)
}

/// What the run's end says: done, interrupted (and how to resume), or
/// stopped (where the last good state is).
fn report(
    a: &RunArgs,
    result: Result<run::Summary, RunFailure>,
    out: &Path,
    n_steps: u64,
) -> ExitCode {
    match result {
        Ok(s) => {
            if !a.quiet {
                eprintln!(
                    "done: {} steps in {:.2} s, {:.3e} particle-steps/s, max overlap {:.4} of the smaller radius, energy residual {:.2e} (relative); outputs in {}",
                    s.steps,
                    s.wall_seconds,
                    s.particle_steps_per_second,
                    s.max_overlap_ratio,
                    s.energy_residual_relative,
                    out.display()
                );
            }
            // not progress: said even with --quiet
            for w in &s.warnings {
                eprintln!("warning: {w} (summary.json)");
            }
            ExitCode::SUCCESS
        }
        Err(RunFailure::Interrupted { signal, summary }) => {
            let ranks = match &summary.ranks {
                Some(r) => format!("mpirun -np {} ", r.ranks),
                None => String::new(),
            };
            let mut cmd = format!(
                "{ranks}talus run {} --resume {} --backend {}",
                a.path.display(),
                out.display(),
                summary.backend
            );
            if let Some(n) = a.steps {
                cmd += &format!(" --steps {n}");
            }
            if let Some(t) = a.duration {
                cmd += &format!(" --duration {t}");
            }
            if let Some(ad) = a.adapter {
                cmd += &format!(" --adapter '{ad}'");
            }
            eprintln!(
                "interrupted ({}) at step {} of {} (t = {:.4e} s); checkpoint, final.csv and summary.json written; resume with: {cmd}",
                match signal {
                    2 => "SIGINT".to_string(),
                    15 => "SIGTERM".to_string(),
                    s => format!("signal {s}"),
                },
                summary.steps,
                n_steps,
                summary.simulated_time
            );
            ExitCode::from((128 + signal).clamp(0, 255) as u8)
        }
        Err(RunFailure::Blowup(e, _)) => fail(format!(
            "run stopped at {e}; the last good state is in {}",
            out.join("final.csv").display()
        )),
        Err(e) => fail(e),
    }
}

/// What a run starts from: the scene resolved, its file's hash, the
/// checkpoint it continues.
pub struct Prepared {
    pub setup: Setup,
    pub hash: String,
    pub ckpt: Option<Ckpt>,
}

/// The scene loaded and resolved (its warnings said when `talk`), the
/// options checked, the checkpoint read and checked when `read_ckpt`.
pub fn prepare(a: &RunArgs, talk: bool, read_ckpt: bool) -> Result<Prepared, String> {
    let path = a.path;
    let scene = load(path, a.steps, a.duration)?;
    if talk {
        for w in scene.warnings() {
            eprintln!("warning: {w}");
        }
    }
    if a.scripted.any() && a.view.is_none() {
        return Err("--frames, --screenshot and --offscreen need --view".into());
    }
    let hash = open::file_hash(path)?;
    // the scene resolved once: dt, steps, meshes, walls, the insertion plan
    let setup = match Setup::new(scene) {
        Ok(s) => s,
        // the command line's duration, not the file's
        Err(e) if e.key == "simulation.duration" && a.duration.is_some() => {
            return Err(format!("{}: --duration: {}", path.display(), e.message));
        }
        Err(e) => return Err(e.to_string()),
    };
    // a resumed run: its checkpoint, checked against the scene
    let ckpt = if read_ckpt {
        checkpoint_for(a, &setup, &hash)?
    } else {
        None
    };
    Ok(Prepared { setup, hash, ckpt })
}

/// `talus run` in one process (`ranks::cmd_run` sends a run on several
/// ranks elsewhere).
pub fn cmd_run(a: RunArgs) -> ExitCode {
    let prep = match prepare(&a, true, true) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let chosen = open_backend(&a, &prep.setup, &prep.ckpt);
    let (backend, live, why) = match chosen {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    run_on(a, prep, backend, live, &why)
}

/// The run of `prep` on `backend` (rank 0's, on several ranks): what it
/// says at the start, the pictures, the loop, what it says at the end.
pub fn run_on(
    a: RunArgs,
    prep: Prepared,
    mut backend: AnyBackend,
    live: Option<Live>,
    why: &str,
) -> ExitCode {
    let Prepared { setup, hash, ckpt } = prep;
    let path = a.path;
    let scene = &setup.scene;
    let precision = ckpt.as_ref().map(|c| c.2.scalars.precision);
    let written_by = ckpt.as_ref().map(|c| c.1.backend.clone());
    if let (Some(p), Some(by)) = (precision, &written_by) {
        if by != backend.name() && !a.quiet {
            eprintln!(
                "note: continuing a {by} ({}) checkpoint on the {} path: the run goes on within the usual tolerances, not bit for bit",
                p.name(),
                backend.name()
            );
        }
    }
    for (i, w) in scene.walls.iter().enumerate() {
        if let talus::scene::Shape::Mesh {
            file, degenerate, ..
        } = &w.shape
        {
            if *degenerate > 0 {
                eprintln!(
                    "warning: {}: {degenerate} degenerate (zero-area) triangles of {} skipped",
                    w.label(i),
                    file.display()
                );
            }
        }
    }
    let out_dir = match &ckpt {
        Some((dir, _, _)) => dir.clone(),
        None => a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("out").join(&scene.name)),
    };
    let n_steps = setup.steps;
    let from = backend.steps_done();
    if !a.quiet {
        eprintln!("backend: {} on {}{why}", backend.name(), backend.adapter());
        eprintln!(
            "{}: {} particles{}, dt = {:.4e} s, {} steps ({:.4e} s){}, output every {} steps -> {}",
            path.display(),
            backend.particle_count(),
            if scene.inserts.is_empty() {
                String::new()
            } else {
                format!(" (+ {} [[insert]])", scene.inserts.len())
            },
            setup.dt,
            n_steps,
            n_steps as f64 * setup.dt,
            if from > 0 {
                format!(", resumed at step {from}")
            } else {
                String::new()
            },
            setup.output_every,
            out_dir.display()
        );
    }
    let mut cfg = RunConfig::new(&setup, out_dir, n_steps);
    cfg.scene_hash = hash;
    cfg.resume = ckpt.map(|c| c.1.driver);
    cfg.stop = Some(stop_flag(a.quiet));
    // headless pictures during the run
    let mut recorder = match recorder(&a, scene, &cfg.out_dir) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let mut draw =
        |p: &Particles<f64>, w: &[(usize, Vec<[[f64; 3]; 3]>)], t: f64, step: u64| match recorder
            .as_mut()
        {
            Some(r) => r.snapshot(p, w, t, step),
            None => Ok(()),
        };
    let hook: Option<&mut run::SnapshotHook> =
        if a.render.as_ref().is_some_and(|r| r.every.is_some()) {
            Some(&mut draw)
        } else {
            None
        };
    let mut bar = progress::Bar::new();
    let mut quiet = run::Quiet;
    let watch: &mut dyn run::Watch = if a.quiet { &mut quiet } else { &mut bar };
    let setup = std::sync::Arc::new(setup);
    let mut sim = match &cfg.resume {
        Some(d) => run::Simulation::resume(setup, backend, d),
        None => run::Simulation::new(setup, backend),
    };
    if let Some(live) = live {
        sim.observe(Box::new(live));
    }
    let result = run::drive(&mut sim, &cfg, hook, watch);
    if let Some(r) = &recorder {
        if !a.quiet && r.count() > 0 {
            eprintln!(
                "pictures: {} in {} (video: ffmpeg -framerate 25 -i {}/frame_%05d.png -pix_fmt yuv420p run.mp4)",
                r.count(),
                r.out.display(),
                r.out.display()
            );
        }
    }
    report(&a, result, &cfg.out_dir, n_steps)
}
