//! Driving a run, in parts: a [`Simulation`] (a scene on a backend,
//! advanced and read between advances), its [`Outputs`] (the run
//! directory's tables and snapshot series, attached or not), and the loop
//! of `talus run` that joins them with checkpoints, progress and the
//! summary ([`drive`]).

pub mod accuracy;
pub mod any;
pub mod driver;
pub mod folder;
pub mod open;
pub mod outputs;
pub mod simulation;

pub use any::AnyBackend;
pub use driver::{
    drive, run, to_inits, Driver, Halt, Quiet, RunConfig, RunFailure, SnapshotHook, Summary, Watch,
};
pub use outputs::{Outputs, FLOW_CSV_HEADER};
pub use simulation::{Balance, EditError, Observe, Pace, Simulation};
