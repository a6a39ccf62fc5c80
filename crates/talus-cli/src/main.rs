//! The `talus` command line.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod args;
mod bench_cmd;
#[cfg(feature = "mpi")]
mod mpi_comm;
mod progress;
mod ranks;
mod run_cmd;
use args::{fail, load, BackendChoice, Scripted};
use ranks::cmd_run;
use run_cmd::{Render, RunArgs};
use talus::scene::Scene;

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
enum BenchBackend {
    Cpu,
    Gpu,
    All,
}

fn parse_sizes(s: &str) -> Result<Vec<usize>, String> {
    s.split(',')
        .map(|x| {
            let v: f64 = x
                .trim()
                .parse()
                .map_err(|_| format!("\"{x}\" is not a number"))?;
            if (1.0..=1e9).contains(&v) && v.fract() == 0.0 {
                Ok(v as usize)
            } else {
                Err(format!(
                    "\"{x}\": expected a particle count between 1 and 1e9"
                ))
            }
        })
        .collect()
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
        #[arg(long, allow_negative_numbers = true)]
        duration: Option<f64>,
        /// No progress output.
        #[arg(long)]
        quiet: bool,
        /// Use the GPU adapter whose name contains this (see `talus info`).
        #[arg(long)]
        adapter: Option<String>,
        /// Continue the run whose outputs are in this folder from its last
        /// checkpoint, writing into it (--steps / --duration count from t = 0).
        #[arg(long, value_name = "DIR", conflicts_with = "out")]
        resume: Option<PathBuf>,
        /// With --resume: accept a checkpoint written for another version of
        /// the scene file.
        #[arg(long, requires = "resume")]
        force: bool,
        /// Watch it run: a window drawing the GPU path's particles between
        /// steps (space pauses; mouse and keys as in `talus view`; closing
        /// the window lets the run go on).
        #[arg(long)]
        view: bool,
        /// Pictures without a window: a PNG every T seconds of simulated
        /// time (at the first snapshot at or after each multiple), in
        /// OUT/frames, ready for a video (works on lavapipe and cloud GPUs).
        #[arg(long, value_name = "T", allow_negative_numbers = true)]
        render_every: Option<f64>,
        /// With --render-every: the pictures' size, WxH.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// With --view or --render-every: colour by speed, material, id,
        /// radius or height.
        #[arg(long, default_value = "speed")]
        color_by: String,
        /// With --view or --render-every: camera changes to the framed view
        /// (see `talus view --help`).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// With --view.
        #[command(flatten)]
        scripted: Scripted,
    },
    /// List the GPU adapters with the limits that matter for talus.
    Info,
    /// Time the step on dense beds (particle-steps per second, per stage).
    Bench {
        #[arg(long, value_enum, default_value = "all")]
        backend: BenchBackend,
        /// Particle counts, comma-separated (1e4 notation accepted).
        #[arg(long, default_value = "1e4,1e5,1e6")]
        sizes: String,
        /// Timed steps per block.
        #[arg(long, default_value_t = 100)]
        steps: u64,
        /// Steps before timing (contacts and history form under gravity).
        #[arg(long, default_value_t = 200)]
        warmup: u64,
        /// Timed blocks; the median is reported.
        #[arg(long, default_value_t = 3)]
        repeats: usize,
        /// Beds, comma-separated: mono, poly (the dense lattice beds compared
        /// across versions), settled (a jammed periodic bed, ~6 contacts per
        /// particle), chute (a dense flow down a tilted periodic floor),
        /// hopper and hopper-mesh (that packing at rest in a conical
        /// hopper: analytic cone walls, or the cone as 10^4 triangles),
        /// discharge (the hopper draining into an outlet, refilled at the
        /// top), settled-1:K and chute-1:K (those beds with large spheres K
        /// times the small ones' diameter, 30 % of the solid volume), wide
        /// (settled and chute at 1:1, 1:3, 1:10, 1:35: the broad phase's
        /// rows; 1:35 needs ~4e5 particles or more), clumps (the mono
        /// lattice of 4-sphere clumps; sizes and rates in member spheres).
        #[arg(long, default_value = "mono,poly")]
        beds: String,
        /// Grid levels, comma-separated: each bed runs once per entry, side
        /// by side ("auto": the scene's automatic levels; 1: one uniform
        /// grid, as before the levels).
        #[arg(long, default_value = "auto")]
        grid_levels: String,
        /// Where to write the table as JSON.
        #[arg(long, default_value = "bench.json")]
        json: PathBuf,
        #[arg(long)]
        adapter: Option<String>,
        /// Instead of timing: write the first size's mono bed, warmed up, as a
        /// LIGGGHTS data file and input script into this directory.
        #[arg(long)]
        export_liggghts: Option<PathBuf>,
    },
    /// Run the validation cases (Chung & Ooi 2011 and analytic checks), print
    /// the table and write <out>/report.md with plots; fails if a case fails.
    Validate {
        #[arg(long, default_value = "all", value_parser = ["cpu", "gpu", "all"])]
        backend: String,
        /// Also the long cases (settled packings, flows).
        #[arg(long)]
        full: bool,
        #[arg(long, default_value = "validation")]
        out: PathBuf,
        /// Only these cases, comma-separated ids (e.g. 1,4,energy); long
        /// ones run without --full.
        #[arg(long, value_name = "IDS")]
        cases: Option<String>,
        /// Set a case's option (repeatable), e.g. ferrez.mono_count=26000;
        /// --list-options lists them.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// List the cases' options (key, type, default, help) and exit.
        #[arg(long)]
        list_options: bool,
    },
    /// Open a window on a run's snapshots: arrows / Home / End scrub,
    /// space plays, left drag orbits, right (or shift) drag pans, the wheel
    /// zooms, C cycles the colour field, X toggles a clip plane, R resets
    /// the camera, Q / Esc quits.
    View {
        /// The run's output folder (with particles.pvd).
        run: PathBuf,
        /// Colour by: speed, material, id, radius or height.
        #[arg(long, default_value = "speed")]
        color_by: String,
        /// Camera changes to the framed view, comma-separated key=value,
        /// angles in degrees: yaw=A, pitch=A, zoom=F, distance=D, fov=A,
        /// target=x,y,z, eye=x,y,z (e.g. "yaw=30,pitch=20,zoom=1.5").
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Start at this snapshot (0: the first; past the end: the last).
        #[arg(long, default_value_t = 0)]
        start: usize,
        #[arg(long)]
        adapter: Option<String>,
        #[command(flatten)]
        scripted: Scripted,
    },
    /// Render a run's snapshots to PNG pictures (one per snapshot, in
    /// order: frame_00000.png, …), the colour range fixed over the run.
    Render {
        /// The run's output folder (with particles.pvd).
        run: PathBuf,
        /// Where to write the pictures (default: RUN/frames).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Colour by: speed, material, id, radius or height.
        #[arg(long, default_value = "speed")]
        color_by: String,
        /// Picture size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// Camera changes to the framed view (see `talus view --help`).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Every Nth snapshot.
        #[arg(long, default_value_t = 1)]
        every: usize,
        /// Use the GPU adapter whose name contains this (see `talus info`).
        #[arg(long)]
        adapter: Option<String>,
    },
    /// Parse and validate a scene, and print what a run would do.
    Check {
        /// Scene file (TOML).
        scene: PathBuf,
    },
    /// Analyse a run's output: solid fraction (whole, layers, rings),
    /// coordination, normal forces, mass flow, velocity profile, angle of
    /// repose. Writes VERB.csv and VERB.png into --out (default
    /// RUN_DIR/analysis); see docs/analysis.md.
    Analyze {
        /// The run's output directory.
        run: PathBuf,
        /// fraction, layers, radial, coordination, forces, flow,
        /// plane-flow, velocity, repose or all.
        verb: String,
        /// Options: --region box:x0,y0,z0,x1,y1,z1 |
        /// cylinder:cx,cy,cz,ax,ay,az,radius,length, --axis x|y|z|ax,ay,az,
        /// --bins N, --snapshot K|first|last, --out DIR, --from T0, --to T1,
        /// --at X, --outlet NAME, --min-contacts N, --trim F.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        options: Vec<String>,
    },
}

fn main() -> ExitCode {
    // On a headless machine Mesa's Vulkan drivers probe Wayland while wgpu
    // opens an instance and print "error: XDG_RUNTIME_DIR is invalid" when
    // it is unset; give the process a private one (before any thread starts).
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join(format!("talus-runtime-{}", std::process::id()));
        if std::fs::create_dir_all(&dir).is_ok() {
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    }
    let cli = Cli::parse();
    // a memory cap that is not a size is refused before any command
    if let Err(e) = talus::memory::host() {
        return fail(e);
    }
    match cli.command {
        Command::Run {
            scene,
            backend,
            out,
            steps,
            duration,
            quiet,
            adapter,
            resume,
            force,
            view,
            render_every,
            size,
            color_by,
            camera,
            scripted,
        } => cmd_run(RunArgs {
            path: &scene,
            choice: backend,
            out,
            steps,
            duration,
            quiet,
            adapter: adapter.as_deref(),
            resume,
            force,
            render: (render_every.is_some() || !view).then(|| Render {
                every: render_every,
                size: size.clone(),
                color_by: color_by.clone(),
                camera: camera.clone(),
            }),
            view: view.then_some((color_by, camera)),
            scripted,
        }),
        Command::View {
            run,
            color_by,
            camera,
            start,
            adapter,
            scripted,
        } => cmd_view(run, &color_by, camera, start, adapter, &scripted),
        Command::Render {
            run,
            out,
            color_by,
            size,
            camera,
            every,
            adapter,
        } => cmd_render(run, out, &color_by, &size, camera, every, adapter),
        Command::Check { scene } => cmd_check(&scene),
        Command::Analyze { run, verb, options } => {
            match talus_studies::analyze::command::run(&run, &verb, &options) {
                Ok(summary) => {
                    // a closed pipe (`| head`) is not an error of the analysis
                    use std::io::Write as _;
                    let _ = writeln!(std::io::stdout(), "{summary}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            }
        }
        Command::Info => cmd_info(),
        Command::Validate {
            backend,
            full,
            out,
            cases,
            set,
            list_options,
        } => talus_studies::validate::cli(&talus_studies::validate::Args {
            backend,
            full,
            out,
            cases,
            set,
            list_options,
        }),
        Command::Bench {
            backend,
            sizes,
            steps,
            warmup,
            repeats,
            beds,
            grid_levels,
            json,
            adapter,
            export_liggghts,
        } => match (parse_sizes(&sizes), parse_grid_levels(&grid_levels)) {
            (Err(e), _) => fail(format!("--sizes: {e}")),
            (_, Err(e)) => fail(format!("--grid-levels: {e}")),
            (Ok(sizes), Ok(grid_levels)) => bench_cmd::run(bench_cmd::Opts {
                cpu: backend != BenchBackend::Gpu,
                gpu: backend != BenchBackend::Cpu,
                sizes,
                steps,
                warmup,
                repeats: repeats.max(1),
                beds,
                grid_levels,
                json,
                adapter,
                export_liggghts,
            }),
        },
    }
}

/// `--grid-levels`: "auto" or level counts from 1 to `grid::MAX_LEVELS`,
/// comma-separated.
fn parse_grid_levels(s: &str) -> Result<Vec<Option<u64>>, String> {
    let max = talus::grid::MAX_LEVELS as u64;
    s.split(',')
        .map(|t| match t.trim() {
            "auto" => Ok(None),
            t => match t.parse::<u64>() {
                Ok(l) if (1..=max).contains(&l) => Ok(Some(l)),
                _ => Err(format!(
                    "\"{t}\": expected \"auto\" or a number of levels from 1 to {max}"
                )),
            },
        })
        .collect()
}

/// `talus view`: the window (`view::window::view`).
fn cmd_view(
    run: PathBuf,
    color_by: &str,
    camera: Option<String>,
    start: usize,
    adapter: Option<String>,
    scripted: &Scripted,
) -> ExitCode {
    use talus_view::{colormap::ColorBy, window};
    let by = match ColorBy::parse(color_by) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    if scripted.offscreen.is_some() {
        return fail("--offscreen: only with `talus run --view` (talus render draws a run's snapshots without a window)");
    }
    let mut opts = match scripted.opts(run) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    opts.by = by;
    opts.camera = camera;
    opts.start = start;
    opts.adapter = adapter;
    match window::view(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        // the one line, as is
        Err(e) if e.starts_with("no display") => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        Err(e) => fail(e),
    }
}

/// `talus render`: one PNG per snapshot (`view::headless::render_run`).
fn cmd_render(
    run: PathBuf,
    out: Option<PathBuf>,
    color_by: &str,
    size: &str,
    camera: Option<String>,
    every: usize,
    adapter: Option<String>,
) -> ExitCode {
    use talus_view::{colormap::ColorBy, headless};
    let by = match ColorBy::parse(color_by) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    let (width, height) = match headless::parse_size(size) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if every == 0 {
        return fail("--every: must be at least 1");
    }
    let opts = headless::RenderOpts {
        run,
        out,
        by,
        width,
        height,
        camera,
        every,
        adapter,
    };
    match headless::render_run(&opts) {
        Err(e) => fail(e),
        Ok(r) => {
            println!(
                "{} pictures {}x{} in {} ({} {} .. {}, on {})",
                r.files.len(),
                width,
                height,
                r.dir.display(),
                by.name(),
                r.legend.min,
                r.legend.max,
                r.adapter
            );
            println!(
                "video: ffmpeg -framerate 30 -i {}/frame_%05d.png -c:v libx264 -pix_fmt yuv420p -vf \"pad=ceil(iw/2)*2:ceil(ih/2)*2\" {}/movie.mp4",
                r.dir.display(),
                r.dir.display()
            );
            ExitCode::SUCCESS
        }
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

/// List entries per particle `talus check` plans memory for.
const PLANNED_ENTRIES: usize = talus::memory::PLANNED_ENTRIES;

fn cmd_check(path: &Path) -> ExitCode {
    let scene = match load(path, None, None) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    for w in scene.warnings() {
        eprintln!("warning: {w}");
    }
    // Written in one go, ignoring errors: `talus check scene | head` must not
    // panic on the closed pipe.
    let mut report = String::new();
    macro_rules! outln {
        ($($t:tt)*) => {{
            use std::fmt::Write as _;
            let _ = writeln!(report, $($t)*);
        }};
    }
    // the scene resolved once, as the run will
    let setup = match talus::Setup::new(scene) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let scene = &setup.scene;
    let est = setup.estimate;
    if !scene.bonds.is_empty() {
        let later = talus::bonds::table::Later::of(scene, setup.dt).at;
        let when: Vec<String> = later
            .iter()
            .map(|&(k, n)| {
                format!(
                    "bonds[{k}] forms its bonds at t = {:e} s (the start of step {n})",
                    scene.bonds[k].at
                )
            })
            .collect();
        let now = talus::bonds::form::at_start(scene);
        let formed = setup.bonds.len();
        let entries = scene.bonds.len() - later.len();
        match now {
            Some(b) if formed > 0 => println!(
                "bonds        {formed} formed at t = 0 by {entries} [[bonds]] entr{}, up to {} on a sphere; the fastest mode they allow is below {:.4e} 1/s, stable (damped) below {:.4e} s: a step is held to half that, {:.4e} s (contacts beside the bonds add their springs)",
                if entries == 1 { "y" } else { "ies" },
                b.most_bonds,
                b.rate,
                b.critical,
                est.bond_limit
            ),
            Some(_) => println!(
                "bonds        none formed at t = 0: no pair its [[bonds]] entries name is closer than the entry's gap"
            ),
            None => println!("bonds        none at t = 0"),
        }
        for w in when {
            println!(
                "             {w}; dt = \"auto\" cannot see those bonds: keep dt below their limit"
            );
        }
    }
    let (rmin, rmax) = scene.radius_range();
    let n = scene.particles.len();
    let (dt, steps) = (setup.dt, setup.steps);
    let grid = &setup.grid;
    let plan = &setup.inserts;
    let poured = plan.max_inserted(steps);
    // the plan `talus run` admits each path with: the most particles the
    // run can hold (pouring's total, no removal counted), the bytes
    // whatever the count (cells, walls, FEM bodies)
    let mem_plan = talus::setup::MemoryPlan::of(&setup);
    let n_max = mem_plan.particles as f64;
    let fixed = mem_plan.fixed as f64;
    let cpu_mem = (mem_plan.cpu_bytes() + mem_plan.scene) as f64;
    // a GPU's bytes as its adapter sums pairs (a discrete one each once)
    let roll = scene.contact.rolling.has_memory();
    let gpu_bytes = |pairs: talus::gpu::Pairs| {
        let entries = pairs.entries_of(PLANNED_ENTRIES as u64);
        (
            talus::gpu::data::bytes_per_particle_with(entries, pairs, roll),
            entries,
        )
    };
    let (gpu_per, gpu_entries) = gpu_bytes(talus::gpu::Pairs::Once);
    let gpu_mem = n_max * gpu_per as f64 + fixed;
    outln!("scene        {} ({})", scene.name, path.display());
    outln!("particles    {n} from {} source(s)", scene.sources.len());
    for s in &scene.sources {
        let k = scene
            .particles
            .iter()
            .filter(|p| scene.sources[p.source].label == s.label)
            .count();
        outln!("             {}: {k}", s.label);
    }
    outln!("total mass   {:.6e} kg", scene.total_mass() + 0.0);
    if !scene.shapes.is_empty() {
        outln!("shapes       (clumps: both backends run and pour them)");
        for l in scene.describe_shapes() {
            outln!("             {l}");
        }
    }
    if !scene.inserts.is_empty() || !scene.outlets.is_empty() {
        outln!("flow");
        for l in scene.describe_flow() {
            outln!("             {l}");
        }
    }
    if !scene.inserts.is_empty() {
        for (k, e) in plan.entries.iter().enumerate() {
            outln!(
                "             insert[{k}]: {:.4e} particles/s in batches every {} steps ({:.3e} s), {} particles by the end",
                e.rate,
                e.every,
                e.every as f64 * dt,
                plan.target_before(k, steps)
            );
        }
        outln!(
            "particles    at most {} at the end ({n} + {poured} poured, before any removal)",
            n + poured as usize
        );
    }
    // FEM bodies alone: no grain sets the step or needs a contact
    let grains = n > 0 || !scene.inserts.is_empty();
    if grains {
        outln!(
            "radius       {rmin:.4e} .. {rmax:.4e} m (ratio {:.2})",
            rmax / rmin
        );
    } else {
        outln!("radius       none: FEM bodies alone");
    }
    outln!(
        "materials    {}",
        scene.materials[..scene.held_from()]
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !scene.fixed.is_empty() {
        let from = scene.held_from();
        let held = scene
            .particles
            .iter()
            .filter(|p| p.material >= from)
            .count();
        outln!(
            "fixed        {held} particles held at rest by {} [[fixed]] region(s)",
            scene.fixed.len()
        );
    }
    outln!("walls        {}", scene.walls.len());
    for i in 0..scene.walls.len() {
        outln!("             {}", wall_line(scene, i));
    }
    if !scene.bodies.is_empty() {
        outln!("bodies       {}", scene.bodies.len());
        for l in scene.describe_bodies() {
            outln!("             {l}");
        }
    }
    let g = scene.simulation.gravity;
    match scene.simulation.gravity_rotation {
        None => outln!("gravity      [{}, {}, {}] m/s²", g[0], g[1], g[2]),
        Some(r) => {
            let a = r.axis;
            let turns = match (r.angle, r.turn_time()) {
                (Some(x), Some(tt)) => format!(
                    "by {x:.4} rad ({tt:.4} s), {}",
                    r.every.map_or("once".into(), |p| format!("every {p} s"))
                ),
                _ => "for ever".to_string(),
            };
            outln!(
                "gravity      [{}, {}, {}] m/s², turning about [{:.3}, {:.3}, {:.3}] at {} rad/s from {} s, {turns}",
                g[0], g[1], g[2], a[0], a[1], a[2], r.angular_velocity, r.start
            )
        }
    }
    outln!("contact      {:?}", scene.contact.model);
    outln!(
        "rolling      {}{}",
        scene.contact.rolling.name(),
        match scene.contact.rolling {
            talus::scene::Rolling::Cdt => " (a constant torque μ_r R* F_n, no memory)",
            _ => " (a rolling spring per contact, capped at μ_r R* |F_n|: 16 B more per list entry on a GPU)",
        }
    );
    if let Some(c) = talus::run::accuracy::cohesion_estimate(scene) {
        outln!(
            "cohesion     {}: the fastest snap-in, a {:.3e} m particle {}: pull stiffness {:.3e} N/m, dt × √(k/m*) = {:.3}{}; it holds {} in tension (Bond number {}); no effect on dt",
            scene.contact.cohesion.name(),
            c.radius,
            if c.wall { "at a wall" } else { "with its own kind" },
            c.pull_stiffness,
            dt * c.rate,
            if dt * c.rate > 0.2 { " (over 0.2: the snap-in is under-resolved, lower dt)" } else { "" },
            if c.hold.is_finite() { format!("{:.3e} N", c.hold) } else { "without limit: the pull outgrows the linear spring, contacts collapse (raise stiffness)".into() },
            if c.bond_number.is_finite() { format!("{:.3}", c.bond_number) } else { "∞".into() },
        );
    }
    if let Some(j) = talus::run::accuracy::jkr_estimate(scene) {
        outln!(
            "cohesion     jkr: the weakest contact, a {:.3e} m particle {}: pull-off 1.5 π γ R* = {:.3e} N (Bond number {}); contacts hold until their surfaces are {:.3e} m apart (skin {:.3e} m); at rest dt × √(k/m*) = {:.3}{}; no effect on dt",
            j.radius,
            if j.wall { "at a wall" } else { "with its own kind" },
            j.pull_off,
            if j.bond_number.is_finite() { format!("{:.3}", j.bond_number) } else { "∞".into() },
            j.reach,
            scene.skin(),
            dt * j.rate,
            if dt * j.rate > 0.2 { " (over 0.2: the contact's vibration is under-resolved, lower dt)" } else { "" },
        );
    }
    if est.rayleigh.is_finite() {
        outln!("rayleigh     {:.4e} s (smallest particle)", est.rayleigh);
    }
    if grains {
        outln!(
            "contact time {:.4e} s (shortest pair, at impact speed {:.3} m/s)",
            est.contact_time,
            est.impact_speed
        );
        if est.release_speed > 0.0 {
            outln!(
                "overlaps     particles start overlapping: the deepest pair, released, parts at {:.3} m/s (counted in the impact speed)",
                est.release_speed
            );
        }
        outln!(
            "dt           {dt:.4e} s ({}; stable limit {:.4e} s, {:.0} steps per contact)",
            match scene.simulation.dt {
                talus::scene::Dt::Auto => format!("auto, safety {}", scene.simulation.dt_safety),
                talus::scene::Dt::Fixed(_) => "fixed".to_string(),
            },
            est.stable_limit,
            est.contact_time / dt
        );
        if let Some(p) = talus::run::accuracy::pair_impact(&setup) {
            let warn = talus::run::driver::WARN_RESIDUAL;
            outln!(
                "accuracy     two {:.3e} m particles meeting head-on at {:.3} m/s: {} steps in contact, energy balance off by {:.2} % after it ({:.2} % at most during it){}",
                p.radius,
                p.speed,
                p.steps_in_contact,
                100.0 * p.residual,
                100.0 * p.residual_peak,
                if p.residual.max(p.residual_peak) > warn {
                    format!(" (a run warns past {} %: lower dt or dt_safety)", 100.0 * warn)
                } else {
                    String::new()
                }
            );
        }
    } else {
        outln!(
            "dt           {dt:.4e} s ({})",
            match scene.simulation.dt {
                talus::scene::Dt::Auto =>
                    "auto: half the bodies' smallest critical explicit step".to_string(),
                talus::scene::Dt::Fixed(_) => "fixed".to_string(),
            }
        );
    }
    outln!(
        "steps        {steps} ({:.4e} s simulated), output every {} steps",
        steps as f64 * dt,
        setup.output_every
    );
    for (l, lv) in grid.levels[..grid.n_levels].iter().enumerate() {
        outln!(
            "{}{} × {} × {} cells of {:.3e} m (radii up to {:.3e} m)",
            if l == 0 {
                "grid         "
            } else {
                "             "
            },
            lv.dims[0],
            lv.dims[1],
            lv.dims[2],
            lv.cell[0],
            lv.half_cut - grid.half_skin
        );
    }
    // what a run allocates before its list grows (a settled monodisperse
    // bed fits it)
    let first = talus::gpu::Pairs::Once.list_entries();
    outln!(
        "memory       {} on the CPU path (f64), {} on a GPU (f32; {gpu_per} B per particle at {gpu_entries} list entries, each pair once; {} B at the first list size, {first})",
        human_bytes(cpu_mem),
        human_bytes(gpu_mem),
        talus::gpu::data::bytes_per_particle_with(first, talus::gpu::Pairs::Once, roll)
    );
    outln!(
        "work         {:.3e} particle-steps{}",
        if poured > 0 {
            0.5 * (n as f64 + n_max)
        } else {
            n as f64
        } * steps as f64,
        if poured > 0 {
            " (pouring at a steady rate)"
        } else {
            ""
        }
    );
    outln!(
        "checkpoints  every {} s of wall clock, at the end and when interrupted ({} in the output folder)",
        scene.simulation.checkpoint_interval,
        talus::checkpoint::CHECKPOINT_FILE
    );
    // what fits, on this machine's memory and on each usable adapter's:
    // the verdicts `talus run` gives (the same plan, the same admission)
    let fits_in = |memory: f64, per: f64| ((memory - fixed) / per).max(0.0).floor();
    let mut any_fits = false;
    let host = match talus::memory::host() {
        Ok(h) => h,
        Err(e) => return fail(e),
    };
    let host_fit = |per: u64| host.map(|h| (h.usable.saturating_sub(mem_plan.fixed) / per) as f64);
    let cpu_admitted = mem_plan.admit_cpu();
    any_fits |= cpu_admitted.is_ok();
    match host {
        Some(h) => {
            let per = mem_plan.cpu_per;
            let most = host_fit(per).unwrap_or(0.0);
            outln!(
                "fits         CPU path: needs {} more, {}; {per} B per particle: at most {most:.3e} particles{}",
                human_bytes(mem_plan.cpu_bytes() as f64),
                h.describe(),
                if cpu_admitted.is_ok() { "" } else { " (this scene does not fit)" }
            );
        }
        None => outln!("fits         CPU path: this machine's memory is unknown"),
    }
    let gpu_host = mem_plan.admit_gpu_host();
    for a in talus::gpu::context::list_adapters() {
        if a.lacks.is_some() {
            continue;
        }
        // the particles' and the list's arrays (at the planned entries) in
        // as many pages of one storage binding as the adapter binds
        let pairs = match talus::gpu::Pairs::for_adapter(&a.info) {
            Ok(p) => p,
            Err(e) => return fail(e),
        };
        let (gpu_per, entries) = gpu_bytes(pairs);
        let by_binding =
            talus::gpu::fit::max_particles_by_bindings(&a.limits, entries, false) as f64;
        let bound = format!(
            "the pages its {} storage bindings a stage hold, {} MiB each",
            a.limits.max_storage_buffers_per_shader_stage,
            talus::gpu::context::max_binding(&a.limits) >> 20
        );
        let by_host = host_fit(talus::memory::GPU_HOST_BYTES_PER_PARTICLE);
        let (most, limit) = match a.memory {
            Some(m) if fits_in(m as f64, gpu_per as f64) < by_binding => (
                fits_in(m as f64, gpu_per as f64),
                format!("{} memory", human_bytes(m as f64)),
            ),
            _ => (by_binding, bound),
        };
        let (most, limit) = match (by_host, host) {
            (Some(x), Some(h)) if x < most => (x, format!("the host side: {}", h.describe())),
            _ => (most, limit),
        };
        let too_long = steps > talus::gpu::GPU_MAX_STEPS;
        any_fits |= most >= n_max && gpu_host.is_ok() && !too_long;
        outln!(
            "             {}: at most {most:.3e} particles ({limit}; {gpu_per} B each, {}){}",
            a.info.name,
            pairs.describe(),
            if too_long {
                format!(
                    ": the run's {steps} steps are more than the GPU path counts ({})",
                    talus::gpu::GPU_MAX_STEPS
                )
            } else if most >= n_max && gpu_host.is_ok() {
                String::new()
            } else {
                ": this scene does not fit".to_string()
            }
        );
    }
    use std::io::Write as _;
    let _ = std::io::stdout().write_all(report.as_bytes());
    if any_fits {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: {}: {n_max} particles fit neither this machine's memory nor a GPU's{}",
            path.display(),
            cpu_admitted
                .err()
                .map_or(String::new(), |e| format!(" ({e})"))
        );
        ExitCode::FAILURE
    }
}

/// One wall for `talus check`: index, name, kind (triangles for a mesh),
/// bounding box, material and motion.
fn wall_line(scene: &Scene, i: usize) -> String {
    use talus::scene::Shape;
    let w = &scene.walls[i];
    let mut kind = w.shape.kind().to_string();
    match &w.shape {
        Shape::Mesh {
            file,
            triangles,
            one_sided,
            degenerate,
        } => {
            kind += &format!(
                " {} ({} triangles{}{})",
                file.display(),
                triangles.len(),
                if *degenerate > 0 {
                    format!(", {degenerate} degenerate skipped")
                } else {
                    String::new()
                },
                if *one_sided { ", one-sided" } else { "" }
            );
        }
        Shape::Cylinder { side, .. } | Shape::Cone { side, .. } => {
            kind += &format!(" ({})", side.as_str());
        }
        Shape::Plane { .. } => {}
    }
    format!(
        "[{i}] {}: {kind}, box {}, {}, {}",
        w.label(i),
        w.shape.bounding_box_summary(),
        scene.materials[w.material].name,
        w.motion_summary()
    )
}

fn cmd_info() -> ExitCode {
    let adapters = talus::gpu::context::list_adapters();
    if adapters.is_empty() {
        println!("no GPU adapters found (talus runs on the CPU path; for a software Vulkan driver install mesa-vulkan-drivers)");
    }
    for a in adapters {
        println!("{}", talus::gpu::context::describe(&a.info));
        if let Some(what) = a.lacks {
            println!("    not usable by talus: {what}");
        }
        let l = &a.limits;
        println!(
            "    memory {}, max storage binding {} MiB, max buffer {} MiB, storage buffers per stage {}, workgroups per dimension {}, invocations per workgroup {}",
            a.memory.map_or("unknown".into(), |m| human_bytes(m as f64)),
            l.max_storage_buffer_binding_size >> 20,
            l.max_buffer_size >> 20,
            l.max_storage_buffers_per_shader_stage,
            l.max_compute_workgroups_per_dimension,
            l.max_compute_invocations_per_workgroup
        );
    }
    ExitCode::SUCCESS
}
