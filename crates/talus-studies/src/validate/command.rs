//! The `talus validate` command: every case on the chosen backends, the
//! table, and `report.md`.

use super::case_def::{run_case, CaseRun};
use super::cases::CASES;
use super::liggghts;
use super::maker::{CpuMaker, GpuMaker, Maker};
use super::report;
use super::table::table;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use talus::gpu::GpuContext;

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
    let mut all: Vec<CaseRun> = Vec::new();
    let mut ok = true;
    // TALUS_VALIDATE_CASES=1,4,energy runs only those (for development)
    let only: Option<Vec<String>> = std::env::var("TALUS_VALIDATE_CASES")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    for def in CASES.iter().filter(|c| {
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
        all.push(CaseRun { def, results: per });
    }
    let lig = liggghts::load(&opts.out);
    print!("{}", table(&all));
    report::write(&opts.out, &all, lig.as_ref(), &skipped, opts.full)
        .map_err(|e| format!("{}: {e}", opts.out.display()))?;
    println!(
        "{}: {}",
        if ok { "all cases pass" } else { "FAILED" },
        opts.out.join("report.md").display()
    );
    Ok(ok)
}
