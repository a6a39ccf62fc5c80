//! `talus bench`: the table, `bench.json`, and the LIGGGHTS export.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use talus::backend::Backend;
use talus::backend::Stage;
use talus::cpu::CpuBackend;
use talus::gpu::{GpuBackend, GpuContext};
use talus::state::Particles;
use talus::Setup;
use talus_studies::bench::{bed, measure, solid_fraction, Bed, BenchRow, FemRow};

/// A row's bed and the grid levels it runs with (None: the scene's
/// automatic levels; `--grid-levels`).
#[derive(Debug, Clone, Copy)]
struct Case {
    bed: Bed,
    levels: Option<u64>,
}

impl Case {
    fn name(self) -> String {
        match self.levels {
            None => self.bed.name(),
            Some(l) => format!("{} [grid_levels {l}]", self.bed.name()),
        }
    }

    fn scene(self, n: usize) -> Result<talus::Scene, String> {
        let mut s = bed(self.bed, n, 1)?;
        s.simulation.grid_levels = self.levels;
        Ok(s)
    }
}

/// The size ratios `--beds wide` runs, beside the 1:1 beds.
const WIDE_RATIOS: [u32; 3] = [3, 10, 35];

pub struct Opts {
    pub cpu: bool,
    pub gpu: bool,
    pub sizes: Vec<usize>,
    pub steps: u64,
    pub warmup: u64,
    pub repeats: usize,
    pub beds: String,
    /// The grid levels each bed runs with, side by side (None: automatic).
    pub grid_levels: Vec<Option<u64>>,
    pub json: PathBuf,
    pub adapter: Option<String>,
    pub export_liggghts: Option<PathBuf>,
}

/// The memory talus may count on ([`talus::memory::host`]: available,
/// capped by `TALUS_MEMORY`).
fn mem_available() -> Option<u64> {
    talus::memory::host().ok().flatten().map(|h| h.usable)
}

pub fn run(o: Opts) -> ExitCode {
    let mut beds = Vec::new();
    let mut fem = Vec::new();
    for b in o.beds.split(',') {
        match b.trim() {
            "mono" => beds.push(Bed::Mono),
            "poly" => beds.push(Bed::Poly),
            "settled" => beds.push(Bed::Settled),
            "chute" => beds.push(Bed::Chute),
            "discharge" => beds.push(Bed::Discharge),
            "hopper" => beds.push(Bed::Hopper),
            "hopper-mesh" => beds.push(Bed::HopperMesh),
            "clumps" => beds.push(Bed::Clumps),
            k @ ("fem-tet4" | "fem-tet10" | "fem-coupled") => fem.push(k),
            // the broad phase's rows: size ratios 1:1 to 1:35, settled and
            // flowing, side by side
            "wide" => {
                for flowing in [false, true] {
                    beds.push(if flowing { Bed::Chute } else { Bed::Settled });
                    for k in WIDE_RATIOS {
                        beds.push(if flowing {
                            Bed::ChuteWide(k)
                        } else {
                            Bed::SettledWide(k)
                        });
                    }
                }
            }
            other => {
                let ratio = |prefix: &str| {
                    other
                        .strip_prefix(prefix)
                        .and_then(|k| k.parse::<u32>().ok())
                        .filter(|&k| (2..=100).contains(&k))
                };
                if let Some(k) = ratio("settled-1:") {
                    beds.push(Bed::SettledWide(k));
                } else if let Some(k) = ratio("chute-1:") {
                    beds.push(Bed::ChuteWide(k));
                } else {
                    eprintln!(
                        "error: --beds: unknown bed \"{other}\" (expected mono, poly, settled, chute, settled-1:K, chute-1:K (K = 2..100), wide, discharge, hopper, hopper-mesh, clumps, fem-tet4, fem-tet10, fem-coupled)"
                    );
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    if let Some(dir) = &o.export_liggghts {
        return export(dir, o.sizes[0], o.warmup);
    }
    if !fem.is_empty() && o.cpu {
        let rows = fem_rows(&fem, &o);
        println!();
        print!("{}", fem_table(&rows));
        let path = o.json.with_file_name(format!(
            "{}-fem.json",
            o.json
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("bench")
        ));
        match serde_json::to_string_pretty(&rows) {
            Ok(j) => {
                if let Err(e) = std::fs::write(&path, j + "\n") {
                    eprintln!("error: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                println!("written {}", path.display());
            }
            Err(e) => eprintln!("error: {e}"),
        }
        if beds.is_empty() {
            return ExitCode::SUCCESS;
        }
    }
    let mut rows: Vec<BenchRow> = Vec::new();
    // one device for every GPU row and the bandwidth
    let gpu = o
        .gpu
        .then(|| GpuContext::new(o.adapter.as_deref()).map_err(|e| e.to_string()));
    let threads = rayon::current_num_threads();
    for &bed in &beds {
        for &n in &o.sizes {
            for &levels in &o.grid_levels {
                let kind = Case { bed, levels };
                if o.cpu {
                    rows.push(cpu_row(kind, n, &o, threads));
                    print_row(rows.last().unwrap());
                }
                if let Some(ctx) = &gpu {
                    rows.push(gpu_row(kind, n, &o, ctx));
                    print_row(rows.last().unwrap());
                }
            }
        }
    }
    println!();
    print!("{}", table(&rows));
    if let Some(Ok(ctx)) = &gpu {
        let bw = talus_studies::bench::yardstick::bandwidth(ctx);
        // bytes moved per particle-step by the current design (see
        // docs/ARCHITECTURE.md: c = 6, k = 12 with the walls within
        // reach, a rebuild every 20 steps) and by a fused design
        let (now, floor) = (730.0, 300.0);
        let best = bw.best();
        println!(
            "\n{}: bandwidth {:.1} GB/s (compute copy {:.1}, copy engine {:.1}) -> bandwidth-bound ceilings: {:.2e} particle-steps/s at ~{now} B/particle-step (this design), {:.2e} at ~{floor} B (fused floor)",
            ctx.info.name,
            best / 1e9,
            bw.compute / 1e9,
            bw.copy_engine / 1e9,
            best / now,
            best / floor
        );
    }
    match serde_json::to_string_pretty(&rows) {
        Ok(j) => {
            if let Err(e) = std::fs::write(&o.json, j + "\n") {
                eprintln!("error: {}: {e}", o.json.display());
                return ExitCode::FAILURE;
            }
            println!("written {}", o.json.display());
        }
        Err(e) => eprintln!("error: {e}"),
    }
    ExitCode::SUCCESS
}

fn skipped(backend: &str, adapter: String, kind: Case, n: usize, why: String) -> BenchRow {
    BenchRow {
        backend: backend.into(),
        adapter,
        bed: kind.name(),
        particles: n,
        steps: 0,
        wall_seconds: 0.0,
        particle_steps_per_second: 0.0,
        steps_per_second: 0.0,
        bytes_per_particle: 0,
        contacts_per_particle: 0.0,
        candidates_per_particle: 0.0,
        steps_per_build: 0.0,
        build_ns_per_particle: None,
        solid_fraction: 0.0,
        stages: Vec::new(),
        skipped: Some(why),
    }
}

fn cpu_row(kind: Case, n: usize, o: &Opts, threads: usize) -> BenchRow {
    let adapter = format!("CPU, {threads} threads");
    // 16 entries per particle: the mono bed has 12, poly 1:4 about 11
    let bpp = Particles::<f64>::bytes_per_particle(8, 16) as u64;
    if let Some(avail) = mem_available() {
        // the scene, the state and the work arrays, with room to spare
        let need = n as u64 * (bpp + 400);
        if need > avail / 2 {
            return skipped(
                "cpu",
                adapter,
                kind,
                n,
                format!(
                    "needs ~{:.1} GB, {:.1} GB available",
                    need as f64 / 1e9,
                    avail as f64 / 1e9
                ),
            );
        }
    }
    let setup = match kind
        .scene(n)
        .and_then(|s| Setup::new(s).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return skipped("cpu", adapter, kind, n, e),
    };
    let n = setup.scene.particles.len();
    let mut b = match CpuBackend::from_setup(&setup) {
        Ok(b) => b,
        Err(e) => return skipped("cpu", adapter, kind, n, e),
    };
    // spheres: a clump's members each count (the rows the step runs)
    let n = b.st.particles.len();
    b.advance(o.warmup).ok();
    let before = b.st.stage_seconds;
    let res = measure(&mut b, 0, o.steps, o.repeats);
    let spent: Vec<f64> = (0..Stage::STEP.len())
        .map(|k| b.st.stage_seconds[k] - before[k])
        .collect();
    let total: f64 = spent.iter().sum();
    let timing = match res {
        Ok(r) => r,
        Err(e) => return skipped("cpu", adapter, kind, n, format!("run failed: {e}")),
    };
    let bpp =
        Particles::<f64>::bytes_per_particle(8, (timing.candidates / n as f64).ceil() as usize)
            as u64;
    let stages = Stage::STEP
        .iter()
        .zip(&spent)
        .map(|(s, t)| (s.name().to_string(), t / total))
        .collect();
    // every build of the run: bin, sort and neighbours are the first three
    let build_s: f64 = b.st.stage_seconds[..3].iter().sum();
    let builds = b.list_stats().builds.max(1);
    let mut row = measured_row(
        "cpu",
        adapter,
        kind,
        o.steps,
        &timing,
        bpp,
        &b.st.particles,
        stages,
    );
    row.build_ns_per_particle = Some(1e9 * build_s / (builds as f64 * n.max(1) as f64));
    row
}

/// One row on the GPU, on the run's one device (`ctx`, opened once: a
/// process on an NVIDIA H100 found no adapter after opening 30 devices,
/// docs/performance.md). Each row's buffers are its backend's, freed when
/// it drops.
fn gpu_row(kind: Case, n: usize, o: &Opts, ctx: &Result<GpuContext, String>) -> BenchRow {
    let setup = match kind
        .scene(n)
        .and_then(|s| Setup::new(s).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return skipped("gpu", "-".into(), kind, n, e),
    };
    let ctx = match ctx {
        Ok(c) => c.share(),
        Err(e) => return skipped("gpu", "-".into(), kind, n, e.clone()),
    };
    let adapter = ctx.describe();
    let n = setup.scene.particles.len();
    let mut b = match GpuBackend::from_setup(&setup, ctx) {
        Ok(b) => b,
        Err(e) => return skipped("gpu", adapter, kind, n, e.to_string()),
    };
    let timing = match measure(&mut b, o.warmup, o.steps, o.repeats) {
        Ok(r) => r,
        Err(e) => return skipped("gpu", adapter, kind, n, format!("run failed: {e}")),
    };
    // as allocated: the list's and the kept table's capacities, not their
    // lengths; per row (a clump's members each count), with a clump run's
    // per-row part and its share of the clumps' table
    let rows = b.data.n.max(1);
    let entry_bytes = (20 * (b.data.nbr_cap + b.data.kept_cap)).div_ceil(rows);
    let clump_bytes = if b.data.b.clumped {
        let table = std::mem::size_of::<talus::gpu::clump_data::Clump>() as u64;
        32 + (table * b.data.clumps.count).div_ceil(rows)
    } else {
        0
    };
    let bpp =
        talus::gpu::data::bytes_per_particle_held(b.data.pair_mode, entry_bytes) + clump_bytes;
    let stages = match b.profile_stages(20) {
        Some(t) => {
            let total: f64 = t.iter().sum();
            Stage::STEP
                .iter()
                .zip(t)
                .map(|(s, x)| (s.name().to_string(), x / total))
                .collect()
        }
        None => Vec::new(),
    };
    measured_row(
        "gpu",
        adapter,
        kind,
        o.steps,
        &timing,
        bpp,
        &b.snapshot(),
        stages,
    )
}

/// A row from a timed run: rate from the median block, bed statistics from
/// the final state.
#[allow(clippy::too_many_arguments)]
fn measured_row(
    backend: &str,
    adapter: String,
    kind: Case,
    steps: u64,
    timing: &talus_studies::bench::Timing,
    bytes_per_particle: u64,
    state: &Particles<f64>,
    stages: Vec<(String, f64)>,
) -> BenchRow {
    let n = state.len();
    let contacts_per_particle = timing.contacts / n.max(1) as f64;
    let solid_fraction = solid_fraction(state);
    BenchRow {
        backend: backend.into(),
        adapter,
        bed: kind.name(),
        particles: n,
        steps,
        wall_seconds: timing.median,
        particle_steps_per_second: n as f64 * steps as f64 / timing.median,
        steps_per_second: steps as f64 / timing.median,
        bytes_per_particle,
        contacts_per_particle,
        candidates_per_particle: timing.candidates / n.max(1) as f64,
        steps_per_build: timing.steps_per_build,
        build_ns_per_particle: None,
        solid_fraction,
        stages,
        skipped: None,
    }
}

fn print_row(r: &BenchRow) {
    match &r.skipped {
        Some(why) => eprintln!("{} {} {}: skipped: {why}", r.backend, r.bed, r.particles),
        None => eprintln!(
            "{} {} {}: {:.3e} particle-steps/s, {:.0} steps/s",
            r.backend, r.bed, r.particles, r.particle_steps_per_second, r.steps_per_second
        ),
    }
}

/// The table as Markdown.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = String::from(
        "| backend | adapter | bed | particles | steps | median s | steps/s | particle-steps/s | ns/particle-step | B/particle | contacts/particle | candidates/particle | steps/rebuild | build ns/particle | solid fraction | stages |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        if let Some(why) = &r.skipped {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | | | | skipped: {why} | | | | | | | | |",
                r.backend, r.adapter, r.bed, r.particles
            );
            continue;
        }
        let stages = if r.stages.is_empty() {
            "not timed per stage".to_string()
        } else {
            r.stages
                .iter()
                .map(|(n, f)| format!("{n} {:.0}%", 100.0 * f))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.3} | {:.0} | {:.3e} | {:.1} | {} | {:.2} | {:.1} | {} | {} | {:.3} | {} |",
            r.backend,
            r.adapter,
            r.bed,
            r.particles,
            r.steps,
            r.wall_seconds,
            r.steps_per_second,
            r.particle_steps_per_second,
            1e9 / r.particle_steps_per_second,
            r.bytes_per_particle,
            r.contacts_per_particle,
            r.candidates_per_particle,
            if r.steps_per_build.is_finite() {
                format!("{:.1}", r.steps_per_build)
            } else {
                "-".into()
            },
            r.build_ns_per_particle
                .map_or("-".into(), |v| format!("{v:.0}")),
            r.solid_fraction,
            stages
        );
    }
    s
}

/// Writes the mono bed as LIGGGHTS sees it: `bed.data` (atom_style
/// granular: id type diameter density x y z) and `in.bed` with the same
/// material, contact model, walls, gravity and dt. The bed is written as
/// generated (not warmed up) so both codes start from the same state.
/// `processors * * 1` keeps LIGGGHTS from splitting its domain along
/// gravity: the bed fills the box's lower part, and its default split on
/// 2 ranks gave one of them 82 % of the spheres (half its speed).
fn export(dir: &std::path::Path, n: usize, warmup: u64) -> ExitCode {
    let setup = Setup::new(bed(Bed::Mono, n, 1).expect("the mono bed always builds"))
        .expect("the mono bed resolves");
    let (scene, dt) = (&setup.scene, setup.dt);
    let m = &scene.materials[0];
    let d = &scene.domain;
    let mut data = format!(
        "LIGGGHTS data file: talus bench bed, {} spheres\n\n{} atoms\n1 atom types\n\n{:e} {:e} xlo xhi\n{:e} {:e} ylo yhi\n{:e} {:e} zlo zhi\n\nAtoms\n\n",
        scene.particles.len(),
        scene.particles.len(),
        d.min[0], d.max[0], d.min[1], d.max[1], d.min[2], d.max[2]
    );
    for (i, p) in scene.particles.iter().enumerate() {
        let _ = writeln!(
            data,
            "{} 1 {:e} {:e} {:e} {:e} {:e}",
            i + 1,
            2.0 * p.radius,
            m.density,
            p.position[0],
            p.position[1],
            p.position[2]
        );
    }
    let input = format!(
        "# talus bench bed for LIGGGHTS 3.8: same spheres, material, model, walls, dt
atom_style granular
atom_modify map array
boundary f f f
processors * * 1
newton off
communicate single vel yes
units si
read_data bed.data
neighbor {skin:e} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype {e:e}
fix m2 all property/global poissonsRatio peratomtype {nu}
fix m3 all property/global coefficientRestitution peratomtypepair 1 {rest}
fix m4 all property/global coefficientFriction peratomtypepair 1 {mu}
pair_style gran model hertz tangential history
pair_coeff * *
timestep {dt:e}
fix gravi all gravity 9.81 vector 0.0 0.0 -1.0
fix zwall all wall/gran model hertz tangential history primitive type 1 zplane 0.0
fix xw0 all wall/gran model hertz tangential history primitive type 1 xplane 0.0
fix xw1 all wall/gran model hertz tangential history primitive type 1 xplane {lx:e}
fix yw0 all wall/gran model hertz tangential history primitive type 1 yplane 0.0
fix yw1 all wall/gran model hertz tangential history primitive type 1 yplane {lx:e}
fix integr all nve/sphere
thermo 1000
run {warmup}
variable steps index 100
run ${{steps}}
",
        skin = setup.skin,
        e = m.youngs_modulus,
        nu = m.poisson_ratio,
        rest = m.restitution,
        mu = m.friction,
        lx = d.max[0],
    );
    if let Err(e) = std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(dir.join("bed.data"), data))
        .and_then(|_| std::fs::write(dir.join("in.bed"), input))
    {
        eprintln!("error: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    println!(
        "{} spheres, dt {dt:e} s -> {}/bed.data, in.bed",
        scene.particles.len(),
        dir.display()
    );
    ExitCode::SUCCESS
}

/// The FEM rows (CPU): for `fem-tet4` / `fem-tet10` each size is an
/// element count, timed sequential and parallel (`--steps` explicit
/// sub-steps per block); for `fem-coupled` each size is a grain count,
/// timed alone on the rigid floor, then on the plate with K = auto and
/// K = 1 (`--steps` grain steps per block after `--warmup`).
fn fem_rows(kinds: &[&str], o: &Opts) -> Vec<FemRow> {
    use talus::fem::mesh::Order;
    use talus_studies::bench::{fem_coupled_bed, fem_substep_row};
    let mut rows = Vec::new();
    for &kind in kinds {
        for &n in &o.sizes {
            match kind {
                "fem-tet4" | "fem-tet10" => {
                    let order = if kind == "fem-tet4" {
                        Order::Linear
                    } else {
                        Order::Quadratic
                    };
                    for parallel in [false, true] {
                        let r = fem_substep_row(order, n, parallel, o.steps, o.repeats);
                        print_fem_row(&r);
                        rows.push(r);
                    }
                }
                _ => {
                    for (body, every) in [(false, None), (true, None), (true, Some(1))] {
                        let r = coupled_row(fem_coupled_bed(n, body, every), body, o);
                        print_fem_row(&r);
                        rows.push(r);
                    }
                }
            }
        }
    }
    rows
}

fn coupled_row(scene: talus::scene::Scene, body: bool, o: &Opts) -> FemRow {
    let threads = rayon::current_num_threads();
    let grains = scene.particles.len();
    let mut row = FemRow {
        case: "coupled".into(),
        mode: "grains alone".into(),
        elements: 0,
        nodes: 0,
        grains,
        threads,
        steps: o.steps,
        wall_seconds: 0.0,
        ms_per_step: 0.0,
        ns_per_element_substep: 0.0,
        skipped: None,
    };
    let setup = match Setup::new(scene).map_err(|e| e.to_string()) {
        Ok(s) => s,
        Err(e) => {
            row.skipped = Some(e);
            return row;
        }
    };
    let mut b = match CpuBackend::from_setup(&setup) {
        Ok(b) => b,
        Err(e) => {
            row.skipped = Some(e);
            return row;
        }
    };
    if body {
        if let Some(set) = b.bodies() {
            let k = set.every;
            row.mode = if setup.scene.bodies[0].exchange_every.is_some() {
                format!("K = {k}")
            } else {
                format!("K = auto ({k})")
            };
            let c = &set.bodies[0].body;
            row.elements = c.mesh().tets.len();
            row.nodes = c.positions().len();
        }
    }
    match measure(&mut b, o.warmup, o.steps, o.repeats) {
        Ok(t) => {
            row.wall_seconds = t.median;
            row.ms_per_step = 1e3 * t.median / o.steps.max(1) as f64;
        }
        Err(e) => row.skipped = Some(format!("run failed: {e}")),
    }
    row
}

fn print_fem_row(r: &FemRow) {
    match &r.skipped {
        Some(why) => eprintln!("fem {} {} {}: skipped: {why}", r.case, r.mode, r.elements),
        None => eprintln!(
            "fem {} {} {} elements, {} grains: {:.4} ms/step",
            r.case, r.mode, r.elements, r.grains, r.ms_per_step
        ),
    }
}

/// The FEM rows as Markdown.
pub fn fem_table(rows: &[FemRow]) -> String {
    let mut s = String::from(
        "| case | mode | threads | elements | nodes | grains | steps | median s | ms/step | ns/element/sub-step |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        if let Some(why) = &r.skipped {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | | | | skipped: {why} | | |",
                r.case, r.mode, r.threads, r.elements
            );
            continue;
        }
        let per_element = if r.ns_per_element_substep > 0.0 {
            format!("{:.1}", r.ns_per_element_substep)
        } else {
            "-".into()
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {:.4} | {:.4} | {} |",
            r.case,
            r.mode,
            r.threads,
            r.elements,
            r.nodes,
            r.grains,
            r.steps,
            r.wall_seconds,
            r.ms_per_step,
            per_element
        );
    }
    s
}
