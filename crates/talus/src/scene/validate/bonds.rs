//! `[[bonds]]`: times and gaps ≥ 0, a positive radius ratio, modulus and
//! stiffness ratio, strengths > 0 where given, damping ≥ 0, a valid region.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{BondPairs, Scene};

pub(super) fn check_bonds(s: &Scene) -> Result<(), SceneError> {
    for (i, b) in s.bonds.iter().enumerate() {
        let key = |k: &str| format!("bonds[{i}].{k}");
        let finite = |x: f64| x.is_finite();
        let checks: [(&str, f64, bool, &str); 6] = [
            ("at", b.at, b.at >= 0.0 && finite(b.at), "a time >= 0 s"),
            ("gap", b.gap, b.gap >= 0.0 && finite(b.gap), "a gap >= 0 m"),
            (
                "radius_ratio",
                b.radius_ratio,
                b.radius_ratio > 0.0 && finite(b.radius_ratio),
                "a ratio > 0 (the bond's radius over the smaller particle's)",
            ),
            (
                "youngs_modulus",
                b.youngs_modulus,
                b.youngs_modulus > 0.0 && finite(b.youngs_modulus),
                "a modulus > 0 Pa",
            ),
            (
                "stiffness_ratio",
                b.stiffness_ratio,
                b.stiffness_ratio > 0.0 && finite(b.stiffness_ratio),
                "a ratio > 0 (normal over shear stiffness)",
            ),
            (
                "damping",
                b.damping,
                b.damping >= 0.0 && finite(b.damping),
                "a fraction of critical damping >= 0",
            ),
        ];
        for (k, v, ok, want) in checks {
            if !ok {
                return Err(s.error(&key(k), format!("expected {want}, got {v}")));
            }
        }
        for (k, v) in [
            ("tensile_strength", b.tensile_strength),
            ("shear_strength", b.shear_strength),
        ] {
            if let Some(x) = v {
                if !(x > 0.0 && x.is_finite()) {
                    return Err(s.error(
                        &key(k),
                        format!("expected a strength > 0 Pa (leave the key out for a bond that never breaks), got {x}"),
                    ));
                }
            }
        }
        if let BondPairs::Region(r) = &b.pairs {
            super::flow::check_region(s, &key("region"), r)?;
        }
    }
    Ok(())
}
