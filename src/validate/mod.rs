//! `talus validate`: the validation cases (Chung & Ooi 2011 benchmarks and
//! analytic checks) on every backend, with a table, `report.md` and plots.
//!
//! Each case builds one scene per backend holding all of its impacts (far
//! apart, so they never touch), runs it in a few `advance` chunks and reads
//! the results back with `snapshot()`. What each case checks, its source and
//! tolerance are in `docs/validation.md`; `tests/validation.rs` runs the same
//! cases.

pub mod case;
pub mod cases;
pub mod command;
pub mod liggghts;
pub mod maker;
pub mod plot;
pub mod readback;
pub mod report;
pub mod result;
pub mod row;
pub mod setup;
pub mod table;
pub mod theory;

pub use case::{run_case, CaseDef, CaseRun};
pub use cases::case;
pub use command::{cli, run, Options};
pub use maker::{CpuMaker, GpuMaker, Maker};
pub use result::{CaseResult, Plot, Point, Series};
pub use row::{worst, Row, Tol};
