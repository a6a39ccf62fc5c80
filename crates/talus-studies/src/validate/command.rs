//! The `talus validate` command: every case on the chosen backends, the
//! table, and `report.md`.

use super::case_def::{run_case, CaseRun};
use super::cases::{catalogue, check_options, CASES};
use super::liggghts;
use super::maker::{CpuMaker, GpuMaker, Maker};
use super::options::Options;
use super::report;
use super::table::table;
use std::path::PathBuf;
use std::process::ExitCode;
use talus::gpu::GpuContext;

/// `talus validate`'s command line.
pub struct Args {
    /// `cpu`, `gpu` or `all`.
    pub backend: String,
    /// `--full`: the long cases too.
    pub full: bool,
    pub out: PathBuf,
    /// `--cases 1,4,energy`: only those (long ones included).
    pub cases: Option<String>,
    /// `--set KEY=VALUE` words.
    pub set: Vec<String>,
    /// `--list-options`: print the options and exit.
    pub list_options: bool,
}

/// What one `talus validate` run does.
pub struct Config {
    pub cpu: bool,
    pub gpu: bool,
    pub full: bool,
    pub out: PathBuf,
    pub adapter: Option<String>,
    /// Only these case ids, long ones included; None: every case (the
    /// long ones with `full`).
    pub cases: Option<Vec<String>>,
    /// The cases' options (`--set`).
    pub options: Options,
}

/// The command: runs every case on the chosen backends, prints the table,
/// writes `<out>/report.md` with plots; non-zero exit if a row fails. A
/// bad `--cases` or `--set` fails before anything runs.
pub fn cli(args: &Args) -> ExitCode {
    if args.list_options {
        // a closed pipe (`| head`) is not an error of the listing
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), "{}", catalogue().listing());
        return ExitCode::SUCCESS;
    }
    let result = config(args).and_then(|c| run(&c, args.backend == "gpu"));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The run the command line asks for, its options checked.
pub fn config(args: &Args) -> Result<Config, String> {
    let (cpu, gpu) = match args.backend.as_str() {
        "cpu" => (true, false),
        "gpu" => (false, true),
        _ => (true, true),
    };
    let options = catalogue()
        .parse(&args.set)
        .map_err(|e| format!("--set {e}"))?;
    check_options(&options).map_err(|e| format!("--set {e}"))?;
    let cases = match &args.cases {
        Some(s) => Some(parse_cases(s).map_err(|e| format!("--cases: {e}"))?),
        None => None,
    };
    Ok(Config {
        cpu,
        gpu,
        full: args.full,
        out: args.out.clone(),
        adapter: std::env::var("TALUS_ADAPTER").ok(),
        cases,
        options,
    })
}

/// `--cases 1,4,energy`: comma-separated case ids, each a case's.
pub fn parse_cases(s: &str) -> Result<Vec<String>, String> {
    let ids: Vec<String> = s.split(',').map(|x| x.trim().to_string()).collect();
    if ids.iter().all(|id| CASES.iter().any(|c| c.id == id)) {
        Ok(ids)
    } else {
        let all: Vec<&str> = CASES.iter().map(|c| c.id).collect();
        Err(format!(
            "expected a comma-separated list of case ids ({}), got {s:?}",
            all.join(", ")
        ))
    }
}

/// Runs the cases; `Ok(all passed)`. Without a GPU adapter the GPU column
/// is skipped with the reason (a note atop the report), unless
/// `gpu_required`.
pub fn run(cfg: &Config, gpu_required: bool) -> Result<bool, String> {
    let (all, notes, ok) = run_cases(cfg, gpu_required)?;
    let lig = liggghts::load(&cfg.out);
    print!("{}", table(&all));
    report::write(&cfg.out, &all, lig.as_ref(), &notes, cfg.full)
        .map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    println!(
        "{}: {}",
        if ok { "all cases pass" } else { "FAILED" },
        cfg.out.join("report.md").display()
    );
    Ok(ok)
}

/// The cases' runs (each on every chosen backend, progress on stderr),
/// the report's notes and whether every row passed: what [`run`] prints
/// and reports, and the Python package returns as rows.
pub fn run_cases(
    cfg: &Config,
    gpu_required: bool,
) -> Result<(Vec<CaseRun>, Vec<String>, bool), String> {
    let mut makers: Vec<Box<dyn Maker>> = Vec::new();
    let mut notes = Vec::new();
    if cfg.cpu {
        makers.push(Box::new(CpuMaker));
    }
    if cfg.gpu {
        match GpuContext::new(cfg.adapter.as_deref()) {
            Ok(ctx) => {
                eprintln!("gpu: {}", ctx.describe());
                makers.push(Box::new(GpuMaker { ctx }));
            }
            Err(e) if gpu_required => return Err(format!("--backend gpu: {e}")),
            Err(e) => {
                eprintln!("gpu: skipped: {e}");
                notes.push(format!("GPU skipped: {e}"));
            }
        }
    }
    let mut all: Vec<CaseRun> = Vec::new();
    let mut ok = true;
    if !cfg.options.is_empty() {
        notes.push(format!(
            "Options set (`--set`): {}; every other option at the judged case's default.",
            cfg.options.words().join(", ")
        ));
    }
    // --cases 1,4,energy runs only those (long ones too)
    for def in CASES.iter().filter(|c| {
        cfg.cases
            .as_ref()
            .map_or(cfg.full || !c.full, |o| o.iter().any(|x| x == c.id))
    }) {
        let mut per = Vec::new();
        for m in makers.iter_mut() {
            eprint!("case {} ({}) on {} ... ", def.id, def.title, m.name());
            match run_case(def, m.as_mut(), &cfg.options) {
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
    Ok((all, notes, ok))
}
