//! A validation case (its id, title, source and run function), and running
//! it on one backend.

use super::maker::Maker;
use super::options::{Options, Spec};
use super::result::CaseResult;

/// A validation case.
pub struct CaseDef {
    pub id: &'static str,
    pub title: &'static str,
    /// Source and what the expected values come from (for the report).
    pub source: &'static str,
    /// Only with `--full` (a long case: its test in
    /// `tests/validation.rs` is `#[ignore = "long: …"]`).
    pub full: bool,
    /// The options it reads (`--set`, `--list-options`).
    pub options: &'static [Spec],
    pub run: fn(&mut dyn Maker, &Options) -> Result<CaseResult, String>,
}

/// One case on every backend.
pub struct CaseRun {
    pub def: &'static CaseDef,
    pub results: Vec<(String, Result<CaseResult, String>)>,
}

/// Runs one case on one backend with `opts`; rows get the backend's name.
pub fn run_case(
    def: &CaseDef,
    maker: &mut dyn Maker,
    opts: &Options,
) -> Result<CaseResult, String> {
    let t0 = std::time::Instant::now();
    let mut r = (def.run)(maker, opts).map_err(|e| format!("case {}: {e}", def.id))?;
    r.seconds = t0.elapsed().as_secs_f64();
    for row in &mut r.rows {
        row.backend = maker.name().to_string();
    }
    Ok(r)
}
