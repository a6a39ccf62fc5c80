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
        // the held copies ([[fixed]]) share their material's name
        if i < s.held_from() && s.materials[..i].iter().any(|o| o.name == m.name) {
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
        check_damping(
            s,
            &key("rolling_viscous_damping"),
            m.rolling_viscous_damping,
        )?;
        check_cohesion(
            s,
            &key("cohesion_energy_density"),
            m.cohesion_energy_density,
        )?;
        check_surface_energy(s, &key("surface_energy"), m.surface_energy)?;
    }
    Ok(())
}

/// Cohesion given where the model will not use it (a cohesion energy
/// density without `sjkr`/`sjkr2`, a surface energy without `jkr`), or a
/// cohesion model with nothing to pull: each a warning, located.
pub(super) fn cohesion_warnings(s: &Scene) -> Vec<SceneError> {
    use crate::scene::types::Cohesion;
    let mut out = Vec::new();
    // the keys (materials', then interactions') giving a value > 0
    let given = |key: &str,
                 m: fn(&crate::scene::types::Material) -> f64,
                 it: fn(&crate::scene::types::Interaction) -> Option<f64>|
     -> Vec<String> {
        s.materials
            .iter()
            .enumerate()
            .filter(|(_, x)| m(x) > 0.0)
            .map(|(i, _)| format!("materials[{i}].{key}"))
            .chain(
                s.interactions
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| it(x).is_some_and(|v| v > 0.0))
                    .map(|(i, _)| format!("interactions[{i}].{key}")),
            )
            .collect()
    };
    let k = given(
        "cohesion_energy_density",
        |m| m.cohesion_energy_density,
        |it| it.cohesion_energy_density,
    );
    let gamma = given(
        "surface_energy",
        |m| m.surface_energy,
        |it| it.surface_energy,
    );
    let model = s.contact.cohesion;
    let sjkr = matches!(model, Cohesion::Sjkr | Cohesion::Sjkr2);
    if let (Some(key), false) = (k.first(), sjkr) {
        out.push(s.error(
            key,
            format!(
                "a cohesion energy density is given but [contact] cohesion is \"{}\": only \"sjkr\" and \"sjkr2\" use it, it has no effect",
                model.name()
            ),
        ));
    }
    if let (Some(key), false) = (gamma.first(), model == Cohesion::Jkr) {
        out.push(s.error(
            key,
            format!(
                "a surface energy is given but [contact] cohesion is \"{}\": only \"jkr\" uses it, it has no effect",
                model.name()
            ),
        ));
    }
    let (wanted, none) = match model {
        Cohesion::None => (None, true),
        Cohesion::Sjkr | Cohesion::Sjkr2 => (Some("cohesion_energy_density"), k.is_empty()),
        Cohesion::Jkr => (Some("surface_energy"), gamma.is_empty()),
    };
    if let (Some(key), true) = (wanted, none) {
        out.push(s.error(
            "contact.cohesion",
            format!(
                "cohesion = \"{}\" but no material or interaction has a {key} > 0: nothing is cohesive",
                model.name()
            ),
        ));
    }
    out
}

/// A rolling dashpot given where the model has none (only `epsd` has
/// one), or a rolling spring with nothing to resist (every rolling
/// friction zero: its cap, μ_r R* F_n, holds no torque): each a warning,
/// located.
pub(super) fn rolling_warnings(s: &Scene) -> Vec<SceneError> {
    use crate::scene::types::Rolling;
    let mut out = Vec::new();
    let damped = s
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.rolling_viscous_damping > 0.0)
        .map(|(i, _)| format!("materials[{i}].rolling_viscous_damping"))
        .chain(
            s.interactions
                .iter()
                .enumerate()
                .filter(|(_, it)| it.rolling_viscous_damping.is_some_and(|d| d > 0.0))
                .map(|(i, _)| format!("interactions[{i}].rolling_viscous_damping")),
        )
        .next();
    if let (Some(key), false) = (damped, s.contact.rolling == Rolling::Epsd) {
        out.push(s.error(
            &key,
            format!(
                "a rolling dashpot is given but [contact] rolling is \"{}\": only \"epsd\" has one, it has no effect",
                s.contact.rolling.name()
            ),
        ));
    }
    let resists = s.materials.iter().any(|m| m.rolling_friction > 0.0)
        || s.interactions
            .iter()
            .any(|it| it.rolling_friction.is_some_and(|f| f > 0.0));
    if s.contact.rolling.has_memory() && !resists {
        out.push(s.error(
            "contact.rolling",
            format!(
                "rolling = \"{}\" but no material or interaction has a rolling_friction > 0: its torque is capped at μ_r R* F_n = 0, nothing resists rolling",
                s.contact.rolling.name()
            ),
        ));
    }
    out
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
        if let Some(d) = it.rolling_viscous_damping {
            check_damping(s, &key("rolling_viscous_damping"), d)?;
        }
        if let Some(k) = it.cohesion_energy_density {
            check_cohesion(s, &key("cohesion_energy_density"), k)?;
        }
        if let Some(g) = it.surface_energy {
            check_surface_energy(s, &key("surface_energy"), g)?;
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

fn check_cohesion(s: &Scene, key: &str, k: f64) -> Result<(), SceneError> {
    if !(k >= 0.0 && k.is_finite()) {
        return Err(s.error(
            key,
            format!("expected a cohesion energy density >= 0 J/m³, got {k}"),
        ));
    }
    Ok(())
}

fn check_surface_energy(s: &Scene, key: &str, g: f64) -> Result<(), SceneError> {
    if !(g >= 0.0 && g.is_finite()) {
        return Err(s.error(key, format!("expected a surface energy >= 0 J/m², got {g}")));
    }
    Ok(())
}

/// A fraction of critical damping: ≥ 0 and finite.
fn check_damping(s: &Scene, key: &str, d: f64) -> Result<(), SceneError> {
    if !(d >= 0.0 && d.is_finite()) {
        return Err(s.error(
            key,
            format!("expected a fraction of critical damping >= 0, got {d}"),
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
