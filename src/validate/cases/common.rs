//! Helpers shared by the cases: time step, error mapping, plot series.

use crate::validate::result::Series;

/// A backend or scene error as the cases' error type.
pub fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Time step: the shortest contact time / `per`.
pub fn dt_for(tcs: &[f64], per: f64) -> f64 {
    tcs.iter().cloned().fold(f64::INFINITY, f64::min) / per
}

/// Time steps per (shortest) contact in the impact cases.
pub const PER_CONTACT: f64 = 200.0;

/// A theory series (a line, drawn once).
pub fn theory_series(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: true,
    }
}

/// A measured series (markers, one per backend).
pub fn measured(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: false,
    }
}
