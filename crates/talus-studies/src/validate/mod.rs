//! `talus validate`: the validation cases (Chung & Ooi 2011 benchmarks and
//! analytic checks) on every backend, with a table, `report.md` and plots.
//!
//! Each case builds one scene per backend holding all of its impacts (far
//! apart, so they never touch), runs it in a few `advance` chunks and reads
//! the results back with `snapshot()`. What each case checks, its source and
//! tolerance are in `docs/validation.md`; `tests/validation.rs` runs the same
//! cases.
//!
//! Files: `mod.rs` only declares and re-exports; `row.rs` (a table row and
//! how it is judged), `result.rs` (what a case produces), `maker.rs` (CPU
//! and GPU backends), `case_def.rs` (a case and running it), `cases/` (the
//! registry and one file per family of cases), `setup.rs` (placing impacts
//! in a scene), `readback.rs` (reading them back), `theory.rs` (closed-form
//! references), `table.rs` (the printed table), `report.rs` (`report.md`,
//! plots, data files), `plot.rs` (PNGs), `liggghts.rs` (LIGGGHTS results),
//! `options.rs` (the cases' options, `--set` and `--list-options`),
//! `command.rs` (the `talus validate` command).

pub mod case_def;
pub mod cases;
pub mod command;
pub mod liggghts;
pub mod maker;
pub mod options;
pub mod plot;
pub mod readback;
pub mod report;
pub mod result;
pub mod row;
pub mod setup;
pub mod table;
pub mod theory;

pub use case_def::{run_case, CaseDef, CaseRun};
pub use cases::case;
pub use command::{cli, run, run_cases, Args, Config};
pub use maker::{CpuMaker, GpuMaker, Maker};
pub use options::Options;
pub use result::{CaseResult, Plot, Point, Series};
pub use row::{worst, Row, Tol};
