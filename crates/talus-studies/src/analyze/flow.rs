//! Mass flow: the discharge rate from `flow.csv`'s cumulative removals, and
//! the net mass crossing a plane between consecutive snapshots.

use super::rundir::FlowRow;
use talus::scene::Domain;
use talus::state::Particles;

/// The cumulative mass removed by time, summed over the outlets (or the
/// one named), one point per time of `flow.csv`.
pub fn cumulative_mass(rows: &[FlowRow], outlet: Option<&str>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for r in rows.iter().filter(|r| outlet.is_none_or(|o| o == r.outlet)) {
        match out.last_mut() {
            Some(last) if last.0 == r.t => last.1 += r.mass,
            _ => out.push((r.t, r.mass)),
        }
    }
    out
}

/// The rate dM/dt at each point: centred differences inside, one-sided
/// at the ends.
pub fn rate(m: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let n = m.len();
    (0..n)
        .filter_map(|k| {
            let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
            (m[b].0 > m[a].0).then(|| (m[k].0, (m[b].1 - m[a].1) / (m[b].0 - m[a].0)))
        })
        .collect()
}

/// A least-squares line y = a + b t through the points: (a, b).
pub fn fit_line(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    fit_line_stats(pts).map(|f| (f.a, f.b))
}

/// A least-squares line y = a + b t with what its residuals say of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    /// Intercept and slope.
    pub a: f64,
    pub b: f64,
    /// Coefficient of determination.
    pub r2: f64,
    /// Variances of a and b and their covariance, from the residual
    /// variance over n − 2 degrees of freedom (NaN with two points).
    pub var_a: f64,
    pub var_b: f64,
    pub cov_ab: f64,
}

/// [`fit_line`] with the fit's R² and parameter (co)variances; None with
/// fewer than two points or all at one t.
pub fn fit_line_stats(pts: &[(f64, f64)]) -> Option<LineFit> {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    let a = my - b * mx;
    let ss_res: f64 = pts.iter().map(|p| (p.1 - a - b * p.0).powi(2)).sum();
    let ss_tot: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    let s2 = if pts.len() > 2 {
        ss_res / (n - 2.0)
    } else {
        f64::NAN
    };
    Some(LineFit {
        a,
        b,
        r2: 1.0 - ss_res / ss_tot,
        var_a: s2 * (1.0 / n + mx * mx / sxx),
        var_b: s2 / sxx,
        cov_ab: -mx * s2 / sxx,
    })
}

/// The steady discharge rate.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyRate {
    /// kg/s: the slope of the least-squares line through M(t) in the window.
    pub rate: f64,
    pub from: f64,
    pub to: f64,
    /// Points in the window.
    pub points: usize,
    /// Final cumulative mass (kg).
    pub total: f64,
}

/// The steady rate over [from, to]; by default the window where the
/// cumulative mass lies between 20 % and 80 % of its final value.
pub fn steady_rate(
    m: &[(f64, f64)],
    from: Option<f64>,
    to: Option<f64>,
) -> Result<SteadyRate, String> {
    let total = m.last().map_or(0.0, |p| p.1);
    if total <= 0.0 {
        return Err("no mass left through the outlets (flow.csv's mass stays 0)".into());
    }
    let first_at = |frac: f64| {
        m.iter()
            .find(|p| p.1 >= frac * total)
            .map_or(f64::NAN, |p| p.0)
    };
    let from = from.unwrap_or_else(|| first_at(0.2));
    let to = to.unwrap_or_else(|| first_at(0.8));
    let pts: Vec<(f64, f64)> = m
        .iter()
        .copied()
        .filter(|p| p.0 >= from && p.0 <= to)
        .collect();
    let (_, b) = fit_line(&pts).ok_or_else(|| {
        format!(
            "--from/--to: the window [{from:e}, {to:e}] s holds {} rows of flow.csv: at least 2 are needed",
            pts.len()
        )
    })?;
    Ok(SteadyRate {
        rate: b,
        from,
        to,
        points: pts.len(),
        total,
    })
}

/// Mass through a plane between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneFlux {
    pub t0: f64,
    pub t1: f64,
    /// kg crossing along +normal, and along −normal.
    pub forward: f64,
    pub backward: f64,
    /// Particles present in both snapshots that crossed (either way).
    pub crossings: usize,
}

impl PlaneFlux {
    pub fn net(&self) -> f64 {
        self.forward - self.backward
    }
    pub fn rate(&self) -> f64 {
        self.net() / (self.t1 - self.t0)
    }
}

/// The particles (matched by id) whose centres went from one side of the
/// plane {x·normal = at} to the other between snapshots `a` and `b`
/// (periodic axes unwrapped to the shorter displacement). Particles
/// inserted or removed in between are not counted.
pub fn plane_flux(
    a: &Particles<f64>,
    b: &Particles<f64>,
    t: (f64, f64),
    normal: [f64; 3],
    at: f64,
    domain: &Domain,
) -> PlaneFlux {
    let mut index = std::collections::HashMap::with_capacity(a.id.len());
    for (k, &id) in a.id.iter().enumerate() {
        index.insert(id, k);
    }
    let dot = |p: [f64; 3]| p[0] * normal[0] + p[1] * normal[1] + p[2] * normal[2];
    let mut f = PlaneFlux {
        t0: t.0,
        t1: t.1,
        forward: 0.0,
        backward: 0.0,
        crossings: 0,
    };
    for (k, id) in b.id.iter().enumerate() {
        let Some(&i) = index.get(id) else { continue };
        let p0 = [a.pos_rad[i][0], a.pos_rad[i][1], a.pos_rad[i][2]];
        let mut p1 = [b.pos_rad[k][0], b.pos_rad[k][1], b.pos_rad[k][2]];
        for d in 0..3 {
            if domain.periodic[d] {
                let len = domain.max[d] - domain.min[d];
                let step = p1[d] - p0[d];
                p1[d] = p0[d] + step - len * (step / len).round();
            }
        }
        let (s0, s1) = (dot(p0) - at, dot(p1) - at);
        let m = if b.vel_invm[k][3] > 0.0 {
            1.0 / b.vel_invm[k][3]
        } else {
            0.0
        };
        if s0 < 0.0 && s1 >= 0.0 {
            f.forward += m;
            f.crossings += 1;
        } else if s0 >= 0.0 && s1 < 0.0 {
            f.backward += m;
            f.crossings += 1;
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three points worked by hand: the line y = 0.5 + 0.5 t, residuals
    /// −0.5, 1, −0.5 (variance 1.5 over one degree of freedom).
    #[test]
    fn line_fit_reports_its_variances() {
        let f = fit_line_stats(&[(0.0, 0.0), (1.0, 2.0), (2.0, 1.0)]).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(f.a, 0.5) && close(f.b, 0.5), "{f:?}");
        assert!(close(f.r2, 0.25) && close(f.var_b, 0.75), "{f:?}");
        assert!(close(f.var_a, 1.25) && close(f.cov_ab, -0.75), "{f:?}");
        assert!(fit_line_stats(&[(0.0, 1.0), (1.0, 3.0)])
            .unwrap()
            .var_a
            .is_nan());
        assert!(fit_line_stats(&[(1.0, 1.0), (1.0, 3.0)]).is_none());
    }
}
