//! `talus validate`: the validation cases (Chung & Ooi 2011 benchmarks and
//! analytic checks) on every backend, with a table, `report.md` and plots.
//!
//! Each case builds one scene per backend holding all of its impacts (far
//! apart, so they never touch), runs it in a few `advance` chunks and reads
//! the results back with `snapshot()`. What each case checks, its source and
//! tolerance are in `docs/validation.md`; `tests/validation.rs` runs the same
//! cases.

pub mod cases;
pub mod liggghts;
pub mod plot;
pub mod report;
pub mod setup;
pub mod theory;

use crate::backend::Backend;
use crate::cpu::CpuBackend;
use crate::gpu::{GpuBackend, GpuContext};
use crate::scene::Scene;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How a row is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tol {
    /// |measured - expected| / |expected| ≤ tol.
    Rel(f64),
    /// |measured - expected| ≤ tol.
    Abs(f64),
    /// Reported, not judged (e.g. a rigid-body value the compliant model is
    /// not expected to reach).
    Info,
}

/// One line of the table.
#[derive(Debug, Clone)]
pub struct Row {
    pub case: String,
    pub quantity: String,
    pub expected: f64,
    pub measured: f64,
    pub tol: Tol,
    pub backend: String,
}

impl Row {
    pub fn new(case: &str, quantity: &str, expected: f64, measured: f64, tol: Tol) -> Row {
        Row {
            case: case.to_string(),
            quantity: quantity.to_string(),
            expected,
            measured,
            tol,
            backend: String::new(),
        }
    }
    /// The error in the tolerance's own measure (relative or absolute).
    pub fn error(&self) -> f64 {
        let d = (self.measured - self.expected).abs();
        match self.tol {
            Tol::Rel(_) | Tol::Info => {
                if self.expected != 0.0 {
                    d / self.expected.abs()
                } else {
                    d
                }
            }
            Tol::Abs(_) => d,
        }
    }
    /// error / tolerance (0 for info rows).
    pub fn score(&self) -> f64 {
        match self.tol {
            Tol::Rel(t) | Tol::Abs(t) => self.error() / t,
            Tol::Info => 0.0,
        }
    }
    pub fn pass(&self) -> bool {
        self.measured.is_finite() && self.score() <= 1.0
    }
}

/// Of several rows of the same quantity, the one furthest out (largest
/// error / tolerance), its quantity suffixed with `(worst of N: at)`.
pub fn worst(mut rows: Vec<(String, Row)>) -> Option<Row> {
    let n = rows.len();
    rows.sort_by(|a, b| {
        b.1.score()
            .partial_cmp(&a.1.score())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                b.1.error()
                    .partial_cmp(&a.1.error())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    let (at, mut r) = rows.into_iter().next()?;
    if n > 1 {
        r.quantity = format!("{} (worst of {n}: {at})", r.quantity);
    } else if !at.is_empty() {
        r.quantity = format!("{} ({at})", r.quantity);
    }
    Some(r)
}

/// A measured value at one point of a sweep (written to the data CSV and
/// joined with the LIGGGHTS results).
#[derive(Debug, Clone)]
pub struct Point {
    pub case: String,
    pub point: String,
    pub quantity: String,
    pub value: f64,
}

/// A data series of a plot.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Theory (a line, drawn once) or measured (markers, one per backend).
    pub theory: bool,
}

/// One plot of a case.
#[derive(Debug, Clone)]
pub struct Plot {
    /// File stem (`<stem>.png`).
    pub stem: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub caption: String,
    pub series: Vec<Series>,
}

/// What one case produced on one backend.
#[derive(Debug, Clone, Default)]
pub struct CaseResult {
    pub rows: Vec<Row>,
    pub points: Vec<Point>,
    pub plots: Vec<Plot>,
    /// Time step(s), particle counts, steps: one line each, for the report.
    pub notes: Vec<String>,
    pub seconds: f64,
}

impl CaseResult {
    pub fn row(&mut self, r: Row) {
        self.rows.push(r);
    }
    pub fn point(&mut self, case: &str, point: &str, quantity: &str, value: f64) {
        self.points.push(Point {
            case: case.into(),
            point: point.into(),
            quantity: quantity.into(),
            value,
        });
    }
    pub fn failures(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.pass()).collect()
    }
}

/// Makes a backend for a scene.
pub trait Maker {
    fn name(&self) -> &'static str;
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String>;
}

pub struct CpuMaker;

impl Maker for CpuMaker {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(CpuBackend::new(scene)?))
    }
}

/// GPU backends on one device (the context's handles are shared, not
/// re-opened per scene).
pub struct GpuMaker {
    pub ctx: GpuContext,
}

impl GpuMaker {
    fn share(&self) -> GpuContext {
        let c = &self.ctx;
        GpuContext {
            instance: c.instance.clone(),
            adapter: c.adapter.clone(),
            device: c.device.clone(),
            queue: c.queue.clone(),
            info: c.info.clone(),
            limits: c.limits.clone(),
        }
    }
}

impl Maker for GpuMaker {
    fn name(&self) -> &'static str {
        "gpu"
    }
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(
            GpuBackend::new(scene, self.share()).map_err(|e| e.to_string())?,
        ))
    }
}

/// A validation case.
pub struct CaseDef {
    pub id: &'static str,
    pub title: &'static str,
    /// Source and what the expected values come from (for the report).
    pub source: &'static str,
    /// Only with `--full` (or TALUS_FULL=1 in the tests).
    pub full: bool,
    pub run: fn(&mut dyn Maker) -> Result<CaseResult, String>,
}

/// Runs one case on one backend; rows get the backend's name.
pub fn run_case(def: &CaseDef, maker: &mut dyn Maker) -> Result<CaseResult, String> {
    let t0 = std::time::Instant::now();
    let mut r = (def.run)(maker).map_err(|e| format!("case {}: {e}", def.id))?;
    r.seconds = t0.elapsed().as_secs_f64();
    for row in &mut r.rows {
        row.backend = maker.name().to_string();
    }
    Ok(r)
}

/// The case with this id.
pub fn case(id: &str) -> &'static CaseDef {
    cases::CASES
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no validation case {id}"))
}

/// `talus validate` options.
pub struct Options {
    pub cpu: bool,
    pub gpu: bool,
    pub full: bool,
    pub out: PathBuf,
    pub adapter: Option<String>,
}

/// The command: runs every case on the chosen backends, prints the table,
/// writes `<out>/report.md` with plots; non-zero exit if a row fails.
pub fn cli(backend: &str, full: bool, out: &Path) -> ExitCode {
    let (cpu, gpu) = match backend {
        "cpu" => (true, false),
        "gpu" => (false, true),
        _ => (true, true),
    };
    let opts = Options {
        cpu,
        gpu,
        full,
        out: out.to_path_buf(),
        adapter: std::env::var("TALUS_ADAPTER").ok(),
    };
    match run(&opts, backend == "gpu") {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the cases; `Ok(all passed)`. Without a GPU adapter the GPU column
/// is skipped with the reason, unless `gpu_required`.
pub fn run(opts: &Options, gpu_required: bool) -> Result<bool, String> {
    let mut makers: Vec<Box<dyn Maker>> = Vec::new();
    let mut skipped = Vec::new();
    if opts.cpu {
        makers.push(Box::new(CpuMaker));
    }
    if opts.gpu {
        match GpuContext::new(opts.adapter.as_deref()) {
            Ok(ctx) => {
                eprintln!("gpu: {}", ctx.describe());
                makers.push(Box::new(GpuMaker { ctx }));
            }
            Err(e) if gpu_required => return Err(format!("--backend gpu: {e}")),
            Err(e) => {
                eprintln!("gpu: skipped: {e}");
                skipped.push(format!("GPU skipped: {e}"));
            }
        }
    }
    let mut all: Vec<report::CaseRun> = Vec::new();
    let mut ok = true;
    // TALUS_VALIDATE_CASES=1,4,energy runs only those (for development)
    let only: Option<Vec<String>> = std::env::var("TALUS_VALIDATE_CASES")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    for def in cases::CASES.iter().filter(|c| {
        only.as_ref()
            .map_or(opts.full || !c.full, |o| o.iter().any(|x| x == c.id))
    }) {
        let mut per = Vec::new();
        for m in makers.iter_mut() {
            eprint!("case {} ({}) on {} ... ", def.id, def.title, m.name());
            match run_case(def, m.as_mut()) {
                Ok(r) => {
                    let f = r.failures().len();
                    eprintln!(
                        "{:.1} s, {}",
                        r.seconds,
                        if f == 0 {
                            "pass".to_string()
                        } else {
                            format!("{f} FAILED")
                        }
                    );
                    ok &= f == 0;
                    per.push((m.name().to_string(), Ok(r)));
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ok = false;
                    per.push((m.name().to_string(), Err(e)));
                }
            }
        }
        all.push(report::CaseRun { def, results: per });
    }
    let lig = liggghts::load(&opts.out);
    print!("{}", report::table(&all));
    report::write(&opts.out, &all, lig.as_ref(), &skipped, opts.full)
        .map_err(|e| format!("{}: {e}", opts.out.display()))?;
    println!(
        "{}: {}",
        if ok { "all cases pass" } else { "FAILED" },
        opts.out.join("report.md").display()
    );
    Ok(ok)
}
