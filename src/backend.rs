//! What the run driver needs from a backend (CPU reference or GPU).

use crate::cpu::Diagnostics;
use crate::state::Particles;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunErrorKind {
    NonFinite,
    Overlap {
        ratio: f64,
    },
    /// The GPU's neighbour list would need more entries than one storage
    /// binding of the adapter holds (`particle` is meaningless then).
    ListTooLarge {
        entries: u64,
    },
}

/// A run that blew up: which step, which particle (by id), what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunError {
    pub step: u64,
    pub particle: u32,
    pub kind: RunErrorKind,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {}: ", self.step)?;
        if !matches!(self.kind, RunErrorKind::ListTooLarge { .. }) {
            write!(f, "particle {}: ", self.particle)?;
        }
        match self.kind {
            RunErrorKind::ListTooLarge { entries } => write!(
                f,
                "the neighbour list needs {entries} entries, more than one storage binding of this GPU holds; lower [simulation] neighbour_skin or use --backend cpu"
            ),
            RunErrorKind::NonFinite => write!(
                f,
                "position or velocity became non-finite (dt too large for the stiffness?)"
            ),
            RunErrorKind::Overlap { ratio } => write!(
                f,
                "overlap reached {ratio:.3} of the smaller radius (limit {}): dt too large, material too soft or particles too fast",
                crate::cpu::MAX_OVERLAP_RATIO
            ),
        }
    }
}

impl std::error::Error for RunError {}

pub trait Backend {
    /// "cpu" or "gpu".
    fn name(&self) -> &'static str;
    /// Human description of the device.
    fn adapter(&self) -> String;
    /// Runs `steps` steps.
    fn advance(&mut self, steps: u64) -> Result<(), RunError>;
    /// Energies at the last completed step.
    fn diagnostics(&mut self) -> Diagnostics;
    /// The state in id order, in f64.
    fn snapshot(&mut self) -> Particles<f64>;
    fn max_overlap_ratio(&self) -> f64;
    fn steps_done(&self) -> u64;
    /// Neighbour-list builds so far and the current list's length.
    fn list_stats(&mut self) -> ListStats;
}

/// How the neighbour list is doing (benchmarks print it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ListStats {
    /// Builds since the start (the first step builds).
    pub builds: u64,
    /// Candidates in the list now (each pair counted twice: full list).
    pub entries: u64,
    /// Contacts now: list entries with tangential history (each pair
    /// counted twice) plus particle–wall contacts.
    pub contacts: u64,
}
