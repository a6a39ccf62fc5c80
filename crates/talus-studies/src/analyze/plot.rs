//! The PNG of each analysis (plotters, bitmap backend; text when
//! `validate::plot` finds a font, else axes without labels; the frame,
//! legend, colours and ranges are `validate::plot`'s).

use crate::validate::plot::{frame, legend, range, COLORS};
use plotters::prelude::*;
use std::path::Path;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Line,
    Points,
    /// Bars between consecutive x of (x_lo, y) points; the last bar's
    /// right edge is `Chart::bar_end`.
    Bars,
}

/// One series: its legend, points and style.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

/// A chart: title, axis labels, series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Where the last bar ends (bars only).
    pub bar_end: Option<f64>,
}

/// Draws `chart` into `path` (800 × 520 PNG).
pub fn draw(chart: &Chart, path: &Path) -> Result<(), String> {
    let text = crate::validate::plot::have_font();
    let e = |x: &dyn std::fmt::Display| format!("{}: {x}", path.display());
    let root = BitMapBackend::new(path, (800, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let xs = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(chart.bar_end);
    let bars = chart.series.iter().any(|s| s.style == Style::Bars);
    let (x0, x1) = range(xs, false, 1e-12);
    let (y0, y1) = range(
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1)),
        bars,
        1e-12,
    );
    // headroom for the legend in the upper right
    let y1 = y1 + 0.15 * (y1 - y0);
    let mut c = frame(
        &root,
        &chart.title,
        &chart.x_label,
        &chart.y_label,
        (x0, x1),
        (y0, y1),
        80,
        &e,
    )?;
    for (k, s) in chart.series.iter().enumerate() {
        let col = COLORS[k % COLORS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        let drawn = match s.style {
            Style::Line => c
                .draw_series(LineSeries::new(pts, col.stroke_width(2)))
                .map_err(|x| e(&x))?,
            Style::Points => c
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, col.filled())))
                .map_err(|x| e(&x))?,
            Style::Bars => {
                let end = chart.bar_end.unwrap_or(x1);
                let rects: Vec<Rectangle<(f64, f64)>> = (0..pts.len())
                    .map(|i| {
                        let right = pts.get(i + 1).map_or(end, |q| q.0);
                        Rectangle::new([(pts[i].0, 0.0), (right, pts[i].1)], col.mix(0.6).filled())
                    })
                    .collect();
                c.draw_series(rects).map_err(|x| e(&x))?
            }
        };
        if text && !s.label.is_empty() {
            drawn
                .label(s.label.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 14, y + 4)], col.filled()));
        }
    }
    if chart.series.iter().any(|s| !s.label.is_empty()) {
        legend(&mut c, &e)?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(())
}
