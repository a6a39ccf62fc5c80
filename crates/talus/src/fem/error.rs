//! Errors of advancing a FEM body (a leaf file: both the body and the
//! mid-point integrator return them).

use thiserror::Error;

/// Why a FEM body could not advance or restore; each message is one line.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FemError {
    /// An element turned inside out (det F ≤ 0) or produced a non-finite
    /// value.
    #[error("element {element} inverted or not finite at t = {time} s")]
    Inverted {
        /// Element index.
        element: usize,
        /// Simulated time of the failing (sub-)step (s).
        time: f64,
    },
    /// A position or velocity became NaN or infinite.
    #[error("node {node}: position or velocity not finite at t = {time} s")]
    NotFinite {
        /// Node index.
        node: usize,
        /// Simulated time (s).
        time: f64,
    },
    /// Newton's method did not reach the tolerance.
    #[error("energy-momentum step at t = {time} s: Newton did not converge in {iterations} iterations (relative residual {residual:e})")]
    NoConvergence {
        /// Simulated time at the start of the step (s).
        time: f64,
        /// Iterations done.
        iterations: usize,
        /// Relative residual reached.
        residual: f64,
    },
    /// The linear solver failed (zero pivot or no convergence).
    #[error("linear solver at t = {time} s: {reason}")]
    Solver {
        /// Simulated time (s).
        time: f64,
        /// What went wrong.
        reason: String,
    },
    /// A per-node input has the wrong length.
    #[error("{what} has {got} entries, the body has {expected}")]
    Length {
        /// Which input.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Length given.
        got: usize,
    },
    /// A step size or other input is out of range.
    #[error("{0}")]
    Input(String),
}
