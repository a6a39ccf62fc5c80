//! Radius distributions of the particle generators: constant, uniform or
//! a discrete list (drawn by [`RadiusDist::sample`], with the generators).

/// Radius distribution of a generator.
#[derive(Debug, Clone, PartialEq)]
pub enum RadiusDist {
    Constant(f64),
    /// Uniform in [min, max].
    Uniform {
        min: f64,
        max: f64,
    },
    /// (radius, number fraction) pairs; fractions are normalised.
    Discrete(Vec<(f64, f64)>),
}

impl RadiusDist {
    pub fn max(&self) -> f64 {
        match self {
            RadiusDist::Constant(r) => *r,
            RadiusDist::Uniform { max, .. } => *max,
            RadiusDist::Discrete(l) => l.iter().map(|x| x.0).fold(0.0, f64::max),
        }
    }

    pub fn min(&self) -> f64 {
        match self {
            RadiusDist::Constant(r) => *r,
            RadiusDist::Uniform { min, .. } => *min,
            RadiusDist::Discrete(l) => l.iter().map(|x| x.0).fold(f64::INFINITY, f64::min),
        }
    }

    /// Checks the distribution itself (positive, ordered, fractions > 0).
    pub fn check(&self) -> Result<(), String> {
        let bad = |r: f64| !(r.is_finite() && r > 0.0);
        match self {
            RadiusDist::Constant(r) if bad(*r) => Err(format!("expected a radius > 0 m, got {r}")),
            RadiusDist::Uniform { min, max } if bad(*min) || bad(*max) || min > max => Err(
                format!("expected 0 < min <= max, got min = {min}, max = {max}"),
            ),
            RadiusDist::Discrete(l) if l.is_empty() => Err("empty radius list".into()),
            RadiusDist::Discrete(l) => {
                for (r, f) in l {
                    if bad(*r) {
                        return Err(format!("expected a radius > 0 m, got {r}"));
                    }
                    if !(f.is_finite() && *f > 0.0) {
                        return Err(format!("expected a fraction > 0, got {f}"));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}
