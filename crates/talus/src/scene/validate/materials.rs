//! `[[materials]]` and `[[interactions]]`: unique names, positive density
//! and modulus, Poisson ratio, restitution and friction coefficients in
//! range, one override per material pair.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::Scene;

fn in_open(x: f64, lo: f64, hi: f64) -> bool {
    x > lo && x < hi
}

pub(super) fn check_materials(s: &Scene) -> Result<(), SceneError> {
    for (i, m) in s.materials.iter().enumerate() {
        let key = |k: &str| format!("materials[{i}].{k}");
        if s.materials[..i].iter().any(|o| o.name == m.name) {
            return Err(s.error(
                &key("name"),
                format!("material \"{}\" is defined twice", m.name),
            ));
        }
        if !(m.density > 0.0) {
            return Err(s.error(
                &key("density"),
                format!("expected a density > 0 kg/m³, got {}", m.density),
            ));
        }
        if !(m.youngs_modulus > 0.0) {
            return Err(s.error(
                &key("youngs_modulus"),
                format!("expected a modulus > 0 Pa, got {}", m.youngs_modulus),
            ));
        }
        if !in_open(m.poisson_ratio, -1.0, 0.5) {
            return Err(s.error(
                &key("poisson_ratio"),
                format!("expected a value in (-1, 0.5), got {}", m.poisson_ratio),
            ));
        }
        check_restitution(s, &key("restitution"), m.restitution)?;
        check_friction(s, &key("friction"), m.friction)?;
        check_friction(s, &key("rolling_friction"), m.rolling_friction)?;
    }
    Ok(())
}

pub(super) fn check_interactions(s: &Scene) -> Result<(), SceneError> {
    for (i, it) in s.interactions.iter().enumerate() {
        let key = |k: &str| format!("interactions[{i}].{k}");
        if let Some(e) = it.restitution {
            check_restitution(s, &key("restitution"), e)?;
        }
        if let Some(f) = it.friction {
            check_friction(s, &key("friction"), f)?;
        }
        if let Some(f) = it.rolling_friction {
            check_friction(s, &key("rolling_friction"), f)?;
        }
        let mut pair = it.materials;
        pair.sort();
        if s.interactions[..i].iter().any(|o| {
            let mut q = o.materials;
            q.sort();
            q == pair
        }) {
            return Err(s.error(
                &key("materials"),
                "this material pair already has an [[interactions]] entry",
            ));
        }
    }
    Ok(())
}

fn check_restitution(s: &Scene, key: &str, e: f64) -> Result<(), SceneError> {
    if !(e > 0.0 && e <= 1.0) {
        return Err(s.error(
            key,
            format!("expected a restitution coefficient in (0, 1], got {e}"),
        ));
    }
    Ok(())
}

fn check_friction(s: &Scene, key: &str, f: f64) -> Result<(), SceneError> {
    if !(f >= 0.0 && f.is_finite()) {
        return Err(s.error(key, format!("expected a coefficient >= 0, got {f}")));
    }
    Ok(())
}
