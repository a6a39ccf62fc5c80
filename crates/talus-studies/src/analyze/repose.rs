//! The angle of repose from the free surface: in a slab of particles, bin
//! along the horizontal direction normal to the slab's axis, take each
//! bin's highest particle top, and fit straight lines over the central
//! part of each flank.

use super::flow::fit_line;

/// One surface bin: bounds along the downhill direction and the highest
/// particle top (NaN for an empty bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfaceBin {
    pub lo: f64,
    pub hi: f64,
    pub top: f64,
}

/// The line fitted to one flank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flank {
    /// Bins fitted (first, last; inclusive).
    pub bins: (usize, usize),
    /// Slope dh/ds and the angle atan |slope| (degrees).
    pub slope: f64,
    pub intercept: f64,
    pub angle: f64,
}

/// The surface and its fitted flanks.
#[derive(Debug, Clone, PartialEq)]
pub struct Repose {
    /// The unit vectors: up (−g), along the bins (horizontal, normal to
    /// the axis).
    pub up: [f64; 3],
    pub along: [f64; 3],
    pub surface: Vec<SurfaceBin>,
    /// The flank before the highest bin and the one after (a heap has
    /// both, a drum's surface one).
    pub flanks: Vec<Flank>,
    /// The angle: the mean of the flanks' angles weighted by their fitted
    /// bins (degrees).
    pub angle: f64,
}

fn norm(a: [f64; 3]) -> Option<[f64; 3]> {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    (l > 0.0 && l.is_finite()).then(|| a.map(|x| x / l))
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The angle of repose of the particles `pos_rad` (already restricted to
/// the slab of interest): up = −gravity; the bins run along
/// up × `axis` (horizontal, normal to `axis`), `n` of them over the
/// particles' extent. The highest bin splits the surface into two flanks;
/// each flank with at least 3 bins left after dropping `trim` (a fraction,
/// e.g. 0.2) of its bins at each end (the toe at the wall or floor and the
/// rounded crest) gets a least-squares line, angle = atan |slope|.
pub fn angle_of_repose(
    pos_rad: &[[f64; 4]],
    gravity: [f64; 3],
    axis: [f64; 3],
    n: usize,
    trim: f64,
) -> Result<Repose, String> {
    let up = norm(gravity.map(|g| -g)).ok_or("gravity is zero: no \"up\" to measure from")?;
    let axis = norm(axis).ok_or("--axis: expected a non-zero vector")?;
    let along = norm(cross(up, axis))
        .filter(|v| dot(*v, *v) > 0.5)
        .ok_or("--axis: the axis is parallel to gravity; expected a horizontal axis (the slab's normal, e.g. a drum's axis)")?;
    if n < 3 {
        return Err(format!("--bins: expected at least 3 bins, got {n}"));
    }
    if pos_rad.is_empty() {
        return Err("no particles in the slab (check --region)".into());
    }
    let s: Vec<f64> = pos_rad
        .iter()
        .map(|p| dot([p[0], p[1], p[2]], along))
        .collect();
    let (lo, hi) = s
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let w = ((hi - lo) / n as f64).max(f64::MIN_POSITIVE);
    let mut surface: Vec<SurfaceBin> = (0..n)
        .map(|k| SurfaceBin {
            lo: lo + k as f64 * w,
            hi: lo + (k + 1) as f64 * w,
            top: f64::NAN,
        })
        .collect();
    for (p, &x) in pos_rad.iter().zip(&s) {
        let k = (((x - lo) / w) as usize).min(n - 1);
        let top = dot([p[0], p[1], p[2]], up) + p[3];
        let b = &mut surface[k];
        if b.top.is_nan() || top > b.top {
            b.top = top;
        }
    }
    let filled: Vec<usize> = (0..n).filter(|&k| surface[k].top.is_finite()).collect();
    let peak = *filled
        .iter()
        .max_by(|&&a, &&b| surface[a].top.total_cmp(&surface[b].top))
        .unwrap();
    let mut flanks = Vec::new();
    let sides: [Vec<usize>; 2] = [
        filled.iter().copied().filter(|&k| k <= peak).collect(),
        filled.iter().copied().filter(|&k| k >= peak).collect(),
    ];
    for side in sides {
        let drop = (trim.clamp(0.0, 0.45) * side.len() as f64).round() as usize;
        if side.len() < 2 * drop + 3 {
            continue;
        }
        let kept = &side[drop..side.len() - drop];
        let pts: Vec<(f64, f64)> = kept
            .iter()
            .map(|&k| (0.5 * (surface[k].lo + surface[k].hi), surface[k].top))
            .collect();
        if let Some((a, b)) = fit_line(&pts) {
            flanks.push(Flank {
                bins: (kept[0], kept[kept.len() - 1]),
                slope: b,
                intercept: a,
                angle: b.abs().atan().to_degrees(),
            });
        }
    }
    if flanks.is_empty() {
        return Err(format!(
            "the surface has too few filled bins ({} of {n}) for a line on either side of its highest point: raise --bins or widen --region",
            filled.len()
        ));
    }
    let wsum: f64 = flanks
        .iter()
        .map(|f| (f.bins.1 - f.bins.0 + 1) as f64)
        .sum();
    let angle = flanks
        .iter()
        .map(|f| f.angle * (f.bins.1 - f.bins.0 + 1) as f64)
        .sum::<f64>()
        / wsum;
    Ok(Repose {
        up,
        along,
        surface,
        flanks,
        angle,
    })
}
