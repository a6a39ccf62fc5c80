//! The `talus` command line.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::run::{self, Progress, RunConfig, RunFailure};
use talus::scene::{End, Scene};
use talus::state::Particles;

#[derive(Parser)]
#[command(
    name = "talus",
    version,
    about = "Discrete element method simulator for granular materials (GPU via wgpu, f64 CPU reference)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendChoice {
    /// The GPU when one is found, otherwise the CPU.
    Auto,
    Gpu,
    Cpu,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene and write snapshots, energy.csv, final.csv and summary.json.
    Run {
        /// Scene file (TOML).
        scene: PathBuf,
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Output directory (default: out/<scene name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run this many steps instead of the scene's end.
        #[arg(long, conflicts_with = "duration")]
        steps: Option<u64>,
        /// Run this much simulated time (s) instead of the scene's end.
        #[arg(long)]
        duration: Option<f64>,
        /// No progress output.
        #[arg(long)]
        quiet: bool,
    },
    /// Parse and validate a scene, and print what a run would do.
    Check {
        /// Scene file (TOML).
        scene: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            scene,
            backend,
            out,
            steps,
            duration,
            quiet,
        } => cmd_run(&scene, backend, out, steps, duration, quiet),
        Command::Check { scene } => cmd_check(&scene),
    }
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::FAILURE
}

fn load(path: &Path, steps: Option<u64>, duration: Option<f64>) -> Result<Scene, String> {
    let mut scene = Scene::load(path).map_err(|e| e.to_string())?;
    if let Some(n) = steps {
        if n == 0 {
            return Err("--steps: expected at least 1 step".into());
        }
        scene.simulation.end = End::Steps(n);
    }
    if let Some(t) = duration {
        if !(t > 0.0 && t.is_finite()) {
            return Err(format!("--duration: expected a time > 0 s, got {t}"));
        }
        scene.simulation.end = End::Duration(t);
    }
    Ok(scene)
}

fn cmd_run(
    path: &Path,
    choice: BackendChoice,
    out: Option<PathBuf>,
    steps: Option<u64>,
    duration: Option<f64>,
    quiet: bool,
) -> ExitCode {
    let scene = match load(path, steps, duration) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut backend: Box<dyn Backend> = match choice {
        BackendChoice::Gpu => return fail(talus::gpu::UNAVAILABLE),
        BackendChoice::Auto | BackendChoice::Cpu => match CpuBackend::new(&scene) {
            Ok(b) => Box::new(b),
            Err(e) => return fail(e),
        },
    };
    let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    let n_steps = scene.steps();
    if !quiet {
        let why = if choice == BackendChoice::Auto {
            " (auto: no GPU backend in this build)"
        } else {
            ""
        };
        eprintln!("backend: {}{why}", backend.adapter());
        eprintln!(
            "{}: {} particles, dt = {:.4e} s, {} steps ({:.4e} s), output every {} steps -> {}",
            path.display(),
            scene.particles.len(),
            scene.dt(),
            n_steps,
            n_steps as f64 * scene.dt(),
            scene.output_every(),
            out_dir.display()
        );
    }
    let cfg = RunConfig {
        out_dir,
        steps: n_steps,
        output_every: scene.output_every(),
        progress: if quiet {
            Progress::Quiet
        } else {
            Progress::Auto
        },
    };
    match run::run(&scene, backend.as_mut(), &cfg) {
        Ok(s) => {
            if !quiet {
                eprintln!(
                    "done: {} steps in {:.2} s, {:.3e} particle-steps/s, max overlap {:.4} of the smaller radius, energy residual {:.2e} (relative); outputs in {}",
                    s.steps,
                    s.wall_seconds,
                    s.particle_steps_per_second,
                    s.max_overlap_ratio,
                    s.energy_residual_relative,
                    cfg.out_dir.display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(RunFailure::Blowup(e, _)) => fail(format!(
            "run stopped at {e}; the last good state is in {}",
            cfg.out_dir.join("final.csv").display()
        )),
        Err(e) => fail(e),
    }
}

fn human_bytes(b: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    format!("{x:.1} {}", units[u])
}

fn cmd_check(path: &Path) -> ExitCode {
    let scene = match load(path, None, None) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let est = talus::timestep::estimate(&scene);
    let (rmin, rmax) = scene.radius_range();
    let n = scene.particles.len();
    let dt = scene.dt();
    let steps = scene.steps();
    let slots = scene.contact.history_slots as usize;
    let grid = talus::grid::Grid::for_particles(&scene.domain, rmax, n).expect("validated");
    let cells = grid.n_cells() as f64 * 8.0;
    let cpu_mem = n as f64 * Particles::<f64>::bytes_per_particle(8, slots) as f64 + cells;
    let gpu_mem = n as f64 * Particles::<f64>::bytes_per_particle(4, slots) as f64 + cells;
    println!("scene        {} ({})", scene.name, path.display());
    println!("particles    {n} from {} source(s)", scene.sources.len());
    for s in &scene.sources {
        let k = scene
            .particles
            .iter()
            .filter(|p| scene.sources[p.source].label == s.label)
            .count();
        println!("             {}: {k}", s.label);
    }
    println!("total mass   {:.6e} kg", scene.total_mass());
    println!(
        "radius       {rmin:.4e} .. {rmax:.4e} m (ratio {:.2})",
        rmax / rmin
    );
    println!(
        "materials    {}",
        scene
            .materials
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("walls        {}", scene.walls.len());
    println!(
        "contact      {:?}, {} history slots per particle",
        scene.contact.model, slots
    );
    if est.rayleigh.is_finite() {
        println!("rayleigh     {:.4e} s (smallest particle)", est.rayleigh);
    }
    println!(
        "contact time {:.4e} s (shortest pair, at impact speed {:.3} m/s)",
        est.contact_time, est.impact_speed
    );
    println!(
        "dt           {dt:.4e} s ({}; stable limit {:.4e} s, {:.0} steps per contact)",
        match scene.simulation.dt {
            talus::scene::Dt::Auto => format!("auto, safety {}", scene.simulation.dt_safety),
            talus::scene::Dt::Fixed(_) => "fixed".to_string(),
        },
        est.stable_limit,
        est.contact_time / dt
    );
    println!(
        "steps        {steps} ({:.4e} s simulated), output every {} steps",
        steps as f64 * dt,
        scene.output_every()
    );
    println!(
        "grid         {} × {} × {} cells of {:.3e} m",
        grid.dims[0], grid.dims[1], grid.dims[2], grid.cell[0]
    );
    println!(
        "memory       {} on the CPU path (f64), {} on a GPU (f32)",
        human_bytes(cpu_mem),
        human_bytes(gpu_mem)
    );
    println!(
        "work         {:.3e} particle-steps",
        n as f64 * steps as f64
    );
    ExitCode::SUCCESS
}
