//! What the run driver needs from a backend (CPU reference or GPU).

use crate::cpu::Diagnostics;
use crate::state::Particles;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunErrorKind {
    NonFinite,
    Overlap { ratio: f64 },
    HistoryOverflow { slots: usize },
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
        write!(f, "step {}: particle {}: ", self.step, self.particle)?;
        match self.kind {
            RunErrorKind::NonFinite => write!(
                f,
                "position or velocity became non-finite (dt too large for the stiffness?)"
            ),
            RunErrorKind::Overlap { ratio } => write!(
                f,
                "overlap reached {ratio:.3} of the smaller radius (limit {}): dt too large, material too soft or particles too fast",
                crate::cpu::MAX_OVERLAP_RATIO
            ),
            RunErrorKind::HistoryOverflow { slots } => write!(
                f,
                "has more than {slots} contacts, the history slots per particle; raise [contact] history_slots"
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
}
