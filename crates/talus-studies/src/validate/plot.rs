//! PNG plots with plotters (bitmap backend, no system font library). Text
//! is drawn in the font the `dejavu` crate ships, the same on every
//! machine; the captions in `report.md` also give the axes.

use super::result::Plot;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// Registers the shipped font (DejaVu Sans, from the `dejavu` crate) once;
/// true when text can be drawn (the plots fall back to no text otherwise).
pub fn have_font() -> bool {
    static FONT: OnceLock<bool> = OnceLock::new();
    *FONT.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    })
}

/// The series colours, in order (the analysis plots use them too).
pub const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// An axis range over the finite values, padded by 5 % (`min_pad` when
/// they are all equal), from 0 when `zero` (bar charts).
pub fn range(vals: impl Iterator<Item = f64>, zero: bool, min_pad: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if zero {
        lo = lo.min(0.0);
    }
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        0.5 * lo.abs().max(min_pad)
    };
    (lo - pad, hi + pad)
}

/// A chart's plotting area in data coordinates.
pub type Frame<'a> = ChartContext<
    'a,
    BitMapBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// A chart on `root` with the given ranges: the title and axis labels
/// when a font was found (`y_area` px for the y labels), a light grid.
/// The validation plots and the analysis plots share it.
#[allow(clippy::too_many_arguments)]
pub fn frame<'a>(
    root: &DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    x: (f64, f64),
    y: (f64, f64),
    y_area: u32,
    e: &dyn Fn(&dyn std::fmt::Display) -> String,
) -> Result<Frame<'a>, String> {
    let text = have_font();
    let mut builder = ChartBuilder::on(root);
    builder.margin(12);
    if text {
        builder
            .caption(title, ("sans-serif", 20))
            .x_label_area_size(42)
            .y_label_area_size(y_area);
    } else {
        builder.x_label_area_size(6).y_label_area_size(6);
    }
    let mut chart = builder
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
        .map_err(|x| e(&x))?;
    {
        let mut mesh = chart.configure_mesh();
        mesh.light_line_style(RGBColor(235, 235, 235));
        if text {
            mesh.x_desc(x_label)
                .y_desc(y_label)
                .label_style(("sans-serif", 14));
        } else {
            mesh.disable_x_axis().disable_y_axis();
        }
        mesh.draw().map_err(|x| e(&x))?;
    }
    Ok(chart)
}

/// The series' legend in the upper right (drawn only with a font).
pub fn legend(
    chart: &mut Frame<'_>,
    e: &dyn Fn(&dyn std::fmt::Display) -> String,
) -> Result<(), String> {
    if !have_font() {
        return Ok(());
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|x| e(&x))
}

/// Draws `plot` into `path` (800 × 520 PNG).
pub fn draw(plot: &Plot, path: &Path) -> Result<(), String> {
    let text = have_font();
    let root = BitMapBackend::new(path, (800, 520)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let all = || plot.series.iter().flat_map(|s| s.points.iter());
    let x = range(all().map(|p| p.0), false, 1.0);
    let y = range(all().map(|p| p.1), false, 1.0);
    let mut chart = frame(
        &root,
        &plot.title,
        &plot.x_label,
        &plot.y_label,
        x,
        y,
        70,
        &e,
    )?;
    for (k, s) in plot.series.iter().enumerate() {
        let c = COLORS[k % COLORS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .cloned()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        if s.theory {
            let series = chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))
                .map_err(|x| e(&x))?;
            if text {
                series.label(s.label.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            }
        } else {
            let series = chart
                .draw_series(PointSeries::of_element(
                    pts,
                    4,
                    c.filled(),
                    &|p, size, st| EmptyElement::at(p) + Circle::new((0, 0), size, st),
                ))
                .map_err(|x| e(&x))?;
            if text {
                series
                    .label(s.label.as_str())
                    .legend(move |(x, y)| Circle::new((x + 9, y), 4, c.filled()));
            }
        }
    }
    legend(&mut chart, &e)?;
    root.present().map_err(|x| e(&x))?;
    Ok(())
}
