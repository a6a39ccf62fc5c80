//! Runs across ranks: the domain cut into slabs, one per rank, each rank
//! stepping the particles it owns beside copies of its neighbours' within
//! a cutoff, exchanged every step — the serial run's bits on any number of
//! ranks (the CPU path; see docs/ARCHITECTURE.md, "Ranks").
//!
//! | file | job |
//! |------|-----|
//! | `comm.rs` | the collectives ([`Comm`]): over MPI (in `talus-cli`) or threads |
//! | `slabs.rs` | the decomposition: owners, ghosts, balanced cuts |
//! | `records.rs` | a particle as words; a rank's `Step` from records |
//! | `part.rs` | what every rank does ([`Part`]); rank 0's backend over all ([`Dist`]); the others' loop ([`serve`]) |
//! | `rank.rs` | a CPU rank's step and migration ([`Rank`]) |
//! | `gpu_rank.rs` | a GPU rank's ([`GpuRank`]): the device steps, the host exchanges |

pub mod comm;
pub mod gpu_rank;
pub mod part;
pub mod rank;
pub mod records;
pub mod slabs;

pub use crate::backend::RanksInfo;
pub use comm::{on_threads, Comm, Threads};
pub use gpu_rank::GpuRank;
pub use part::{serve, Dist, Part};
pub use rank::{agree, unsupported, DistCpu, Rank};
pub use slabs::Slabs;
