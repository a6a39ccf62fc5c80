//! Checkpoints: everything a run's next step depends on, written
//! atomically and read back with every check a damaged or foreign file
//! needs, so that a run resumed from one continues bit for bit.
//!
//! - [`Saved`]: a backend's state, in its own order and precision (the
//!   backends save and restore it: `Backend::save`, `CpuBackend::restore`,
//!   `GpuBackend::restore`); a backend restores the other's precision
//!   too, not bit for bit.
//! - [`Header`]: what the file is (format version, the scene and its
//!   file's hash, backend, step) and the run driver's own state
//!   ([`DriverState`]: output counters, the energy reference, the flow
//!   tally, the length of every table written so far).
//! - [`file`]: the container (magic, version, header, named sections,
//!   checksum), its atomic write and its checked read.
//! - [`remap`]: a checkpoint fitted to a scene changed since (`--force`):
//!   materials followed by name, a changed number of walls refused.

pub mod file;
pub mod remap;
pub mod state;

pub use file::{read, write, CheckpointError, CHECKPOINT_FILE, FORMAT_VERSION};
pub use remap::fit_scene;
pub use state::{
    hash64, scene_hash, DriverState, Header, Precision, Saved, SavedScalars, WALL_WORDS,
};
