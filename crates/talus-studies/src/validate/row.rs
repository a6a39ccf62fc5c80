//! One line of the validation table: expected vs measured and how it is
//! judged, and the pick of the worst of several.

/// How a row is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tol {
    /// |measured - expected| / |expected| ≤ tol.
    Rel(f64),
    /// |measured - expected| ≤ tol.
    Abs(f64),
    /// Reported, not judged (e.g. a rigid-body value the compliant model is
    /// not expected to reach).
    Info,
}

/// One line of the table.
#[derive(Debug, Clone)]
pub struct Row {
    pub case: String,
    pub quantity: String,
    pub expected: f64,
    pub measured: f64,
    pub tol: Tol,
    pub backend: String,
}

impl Row {
    pub fn new(case: &str, quantity: &str, expected: f64, measured: f64, tol: Tol) -> Row {
        Row {
            case: case.to_string(),
            quantity: quantity.to_string(),
            expected,
            measured,
            tol,
            backend: String::new(),
        }
    }
    /// The error in the tolerance's own measure (relative or absolute).
    pub fn error(&self) -> f64 {
        let d = (self.measured - self.expected).abs();
        match self.tol {
            Tol::Rel(_) | Tol::Info => {
                if self.expected != 0.0 {
                    d / self.expected.abs()
                } else {
                    d
                }
            }
            Tol::Abs(_) => d,
        }
    }
    /// error / tolerance (0 for info rows).
    pub fn score(&self) -> f64 {
        match self.tol {
            Tol::Rel(t) | Tol::Abs(t) => self.error() / t,
            Tol::Info => 0.0,
        }
    }
    pub fn pass(&self) -> bool {
        self.measured.is_finite() && self.score() <= 1.0
    }
}

/// Of several rows of the same quantity, the one furthest out (largest
/// error / tolerance), its quantity suffixed with `(worst of N: at)`.
pub fn worst(mut rows: Vec<(String, Row)>) -> Option<Row> {
    let n = rows.len();
    rows.sort_by(|a, b| {
        b.1.score()
            .partial_cmp(&a.1.score())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                b.1.error()
                    .partial_cmp(&a.1.error())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    let (at, mut r) = rows.into_iter().next()?;
    if n > 1 {
        r.quantity = format!("{} (worst of {n}: {at})", r.quantity);
    } else if !at.is_empty() {
        r.quantity = format!("{} ({at})", r.quantity);
    }
    Some(r)
}
