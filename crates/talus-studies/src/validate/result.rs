//! What a case produces on one backend: its rows, per-point values, plots
//! and notes.

use super::row::Row;

/// A measured value at one point of a sweep (written to the data CSV and
/// joined with the LIGGGHTS results).
#[derive(Debug, Clone)]
pub struct Point {
    pub case: String,
    pub point: String,
    pub quantity: String,
    pub value: f64,
}

/// A data series of a plot.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Theory (a line, drawn once) or measured (markers, one per backend).
    pub theory: bool,
}

/// One plot of a case.
#[derive(Debug, Clone)]
pub struct Plot {
    /// File stem (`<stem>.png`).
    pub stem: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub caption: String,
    pub series: Vec<Series>,
}

/// What one case produced on one backend.
#[derive(Debug, Clone, Default)]
pub struct CaseResult {
    pub rows: Vec<Row>,
    pub points: Vec<Point>,
    pub plots: Vec<Plot>,
    /// Time step(s), particle counts, steps: one line each, for the report.
    pub notes: Vec<String>,
    pub seconds: f64,
}

impl CaseResult {
    pub fn row(&mut self, r: Row) {
        self.rows.push(r);
    }
    pub fn point(&mut self, case: &str, point: &str, quantity: &str, value: f64) {
        self.points.push(Point {
            case: case.into(),
            point: point.into(),
            quantity: quantity.into(),
            value,
        });
    }
    pub fn failures(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.pass()).collect()
    }
}
