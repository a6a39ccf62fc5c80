//! Particles in and out of a run: the insertion schedule and its
//! candidates ([`plan`]), the outlet regions and the open domain's
//! boundary ([`outlets`]), and what went in and out ([`tally`]). Backend
//! independent: both paths take their batches from one [`InsertPlan`],
//! accept candidates by the same rule ([`plan`]'s module doc) and report
//! the same [`FlowEvent`]s.

pub mod outlets;
pub mod plan;
pub mod tally;

pub use outlets::{OutletSet, OutletShape};
pub use plan::{Batch, InsertPlan, ScheduledBatch};
pub use tally::{Counter, FlowEvent, FlowKind, FlowTally};
