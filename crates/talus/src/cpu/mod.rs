//! The CPU reference path (f64, rayon). A step is the fixed list of stages
//! of [`crate::backend::Stage::STEP`] — bin → sort → neighbours → contacts
//! → integrate (→ diagnostics on demand) — each in its own module with the
//! same name as its GPU twin in `src/gpu/` and `shaders/`. The first three
//! run only on the steps that rebuild the neighbour list (some particle
//! moved more than skin / 2).
//!
//! | file | job |
//! |------|-----|
//! | `data.rs` | `Step` (parameters + arrays), `Work` |
//! | `step.rs` | the driver (`Step::step`) and `CpuBackend` |
//! | `grow.rs` | inserting and removing particles (`Step::insert`, `Step::remove`) |
//! | `flow.rs` | pouring and outlets: the batches due inserted at a step's start, the particles outlets take removed at its end (`CpuFlow`) |
//! | `law.rs` | the pair law (twin of `shaders/law.wgsl`) |
//! | `lanes.rs` | f64 lanes the law runs on, four contacts at a time |
//! | `jkr.rs` | JKR adhesion's contact radius (Newton's method) and closed forms, for the law, the checks and `talus check` |
//! | `hist.rs` | the history beside the list entries (`HistVec`: the rolling half only in runs that keep one) |
//! | `bin.rs`, `sort.rs`, `neighbours.rs`, `contacts.rs`, `integrate.rs`, `diagnostics.rs` | the stages |
//! | `clumps.rs` | the clumps' part of integrate (reduction, rigid-body step, members re-posed) and their rows' bookkeeping |
//! | `wall_contacts.rs` | the wall part of the contact stage: moving walls, the mesh reduction, wall loads |

pub mod bin;
pub mod bonds;
pub mod clumps;
pub mod contacts;
pub mod data;
pub mod diagnostics;
pub mod flow;
pub mod grow;
pub mod hist;
pub mod integrate;
pub mod jkr;
pub mod lanes;
pub mod law;
pub mod neighbours;
pub mod save;
pub mod sort;
pub mod step;
pub mod wall_contacts;

pub use data::{Step, Work};
pub use step::CpuBackend;
