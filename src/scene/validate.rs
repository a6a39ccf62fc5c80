//! Physical checks of a scene, shared by files and the builder.
// `!(x > 0.0)` is deliberate throughout: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::error::SceneError;
use super::types::{ContactModel, Dt, End, ParticleInit, Scene};
use crate::grid::Grid;

/// Most particles (ids and list indices stay far from u32::MAX).
pub const MAX_PARTICLES: usize = 1 << 30;

fn in_open(x: f64, lo: f64, hi: f64) -> bool {
    x > lo && x < hi
}

impl Scene {
    /// Checks every physical constraint; the first violation is returned.
    pub fn validate(&self) -> Result<(), SceneError> {
        validate(self)
    }
}

fn validate(s: &Scene) -> Result<(), SceneError> {
    let sim = &s.simulation;
    match sim.end {
        End::Duration(d) if !(d > 0.0) => {
            return Err(s.error(
                "simulation.duration",
                format!("expected a duration > 0 s, got {d}"),
            ))
        }
        End::Steps(0) => return Err(s.error("simulation.steps", "expected at least 1 step")),
        _ => {}
    }
    if let Dt::Fixed(dt) = sim.dt {
        if !(dt > 0.0) {
            return Err(s.error(
                "simulation.dt",
                format!("expected a time step > 0 s or \"auto\", got {dt}"),
            ));
        }
    }
    if !(sim.dt_safety > 0.0 && sim.dt_safety <= 1.0) {
        return Err(s.error(
            "simulation.dt_safety",
            format!("expected a number in (0, 1], got {}", sim.dt_safety),
        ));
    }
    if let Some(skin) = sim.neighbour_skin {
        if !(skin > 0.0 && skin.is_finite()) {
            return Err(s.error(
                "simulation.neighbour_skin",
                format!("expected a length > 0 m or \"auto\", got {skin}"),
            ));
        }
    }
    if let Some(oi) = sim.output_interval {
        if !(oi > 0.0) {
            return Err(s.error(
                "simulation.output_interval",
                format!("expected an interval > 0 s, got {oi}"),
            ));
        }
    }
    let d = &s.domain;
    for k in 0..3 {
        if !(d.max[k] > d.min[k]) {
            return Err(s.error(
                "domain.max",
                format!(
                    "expected max > min on every axis; {} has min {} and max {}",
                    ["x", "y", "z"][k],
                    d.min[k],
                    d.max[k]
                ),
            ));
        }
    }
    let c = &s.contact;
    match c.model {
        ContactModel::HertzMindlin => {
            for (key, v) in [("stiffness", c.stiffness), ("contact_time", c.contact_time)] {
                if v.is_some() {
                    return Err(s.error(
                        &format!("contact.{key}"),
                        "only used by model = \"linear\" (Hertz–Mindlin stiffness follows from the materials)",
                    ));
                }
            }
        }
        ContactModel::Linear => {
            match (c.stiffness, c.contact_time) {
                (Some(_), Some(_)) => {
                    return Err(s.error(
                        "contact",
                        "give either stiffness or contact_time for the linear model, not both",
                    ))
                }
                (None, None) => return Err(s.error(
                    "contact.stiffness",
                    "missing key: the linear model needs stiffness = <N/m> or contact_time = <s>",
                )),
                (Some(k), None) if !(k > 0.0) => {
                    return Err(s.error(
                        "contact.stiffness",
                        format!("expected a stiffness > 0 N/m, got {k}"),
                    ))
                }
                (None, Some(t)) if !(t > 0.0) => {
                    return Err(s.error(
                        "contact.contact_time",
                        format!("expected a contact time > 0 s, got {t}"),
                    ))
                }
                _ => {}
            }
            if !(c.tangential_stiffness_ratio >= 0.0) {
                return Err(s.error(
                    "contact.tangential_stiffness_ratio",
                    format!(
                        "expected a ratio >= 0, got {}",
                        c.tangential_stiffness_ratio
                    ),
                ));
            }
        }
    }
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
    for (i, w) in s.walls.iter().enumerate() {
        let n2: f64 = w.normal.iter().map(|x| x * x).sum();
        if !(n2 > 0.0) || !n2.is_finite() {
            return Err(s.error(
                &format!("walls[{i}].normal"),
                "expected a non-zero normal vector",
            ));
        }
        if (n2 - 1.0).abs() > 1e-12 {
            return Err(s.error(
                &format!("walls[{i}].normal"),
                "internal: wall normals must be normalised before validation",
            ));
        }
    }
    if s.particles.is_empty() {
        return Err(s.error("particles", "the scene has no particles"));
    }
    if s.particles.len() > MAX_PARTICLES {
        return Err(s.error(
            "particles",
            format!(
                "{} particles; talus supports at most {MAX_PARTICLES}",
                s.particles.len()
            ),
        ));
    }
    let src_key = |p: &ParticleInit| format!("particles[{}]", p.source);
    for (i, p) in s.particles.iter().enumerate() {
        if !(p.radius > 0.0 && p.radius.is_finite()) {
            return Err(s.error(
                &src_key(p),
                format!("particle {i}: expected a radius > 0 m, got {}", p.radius),
            ));
        }
        if p.material >= s.materials.len() {
            return Err(s.error(
                &src_key(p),
                format!("particle {i}: material index {} out of range", p.material),
            ));
        }
        let all_finite = p
            .position
            .iter()
            .chain(&p.velocity)
            .chain(&p.angular_velocity)
            .all(|x| x.is_finite());
        if !all_finite {
            return Err(s.error(
                &src_key(p),
                format!("particle {i}: non-finite position or velocity"),
            ));
        }
        for k in 0..3 {
            let x = p.position[k];
            let outside = if d.periodic[k] {
                x < d.min[k] || x >= d.max[k]
            } else {
                x < d.min[k] || x > d.max[k]
            };
            if outside {
                return Err(s.error(
                    &src_key(p),
                    format!(
                        "particle {i} at [{}, {}, {}] is outside the domain ({} = {x} not in [{}, {}])",
                        p.position[0], p.position[1], p.position[2], ["x", "y", "z"][k], d.min[k], d.max[k]
                    ),
                ));
            }
        }
        let generated = s.sources.get(p.source).is_some_and(|src| src.generated);
        for (wi, w) in s.walls.iter().enumerate() {
            let dist: f64 = (0..3)
                .map(|k| (p.position[k] - w.point[k]) * w.normal[k])
                .sum();
            // generated particles may not touch a wall; file particles (a
            // settled bed) may, up to the run's overlap limit
            let min_dist = if generated {
                p.radius * (1.0 - 1e-12)
            } else {
                0.5 * p.radius
            };
            if dist < min_dist {
                return Err(s.error(
                    &src_key(p),
                    format!(
                        "particle {i} (radius {}) is {dist} m from walls[{wi}]: behind it or overlapping it{}",
                        p.radius,
                        if generated { "" } else { " by more than half its radius" }
                    ),
                ));
            }
        }
    }
    let cutoff = 2.0 * s.radius_range().1 + s.skin();
    for k in 0..3 {
        let len = d.max[k] - d.min[k];
        if d.periodic[k] && len < 3.0 * cutoff {
            return Err(s.error(
                "domain.periodic",
                format!(
                    "periodic axis {} is {len} m long: it must be at least 3 × (the largest diameter + the neighbour skin) ({} m), i.e. {} m",
                    ["x", "y", "z"][k],
                    cutoff,
                    3.0 * cutoff
                ),
            ));
        }
    }
    let grid = Grid::for_scene(s).map_err(|m| s.error("domain", m))?;
    check_overlaps(s, &grid)?;

    let est = crate::timestep::estimate(s);
    if let Dt::Fixed(dt) = sim.dt {
        if dt > est.stable_limit {
            return Err(s.error(
                "simulation.dt",
                format!(
                    "dt = {dt:e} s is above the stable limit {:.4e} s (min of the Rayleigh time {:.4e} s and a quarter of the contact time {:.4e} s at {:.3} m/s); use dt <= {:.4e} or \"auto\"",
                    est.stable_limit, est.rayleigh, est.contact_time, est.impact_speed, est.stable_limit
                ),
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

/// Generated particles may not overlap at all; particles read from files
/// (e.g. a settled bed from `final.csv`) may touch, up to the same limit the
/// run enforces (half the smaller radius).
fn check_overlaps(s: &Scene, grid: &Grid) -> Result<(), SceneError> {
    let pos: Vec<[f64; 4]> = s
        .particles
        .iter()
        .map(|p| [p.position[0], p.position[1], p.position[2], p.radius])
        .collect();
    let pairs = crate::grid::pairs::contact_pairs(&pos, grid);
    for (i, j) in pairs {
        let (a, b) = (&s.particles[i], &s.particles[j]);
        let dx = grid.min_image(a.position, b.position);
        let dist = (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]).sqrt();
        let overlap = a.radius + b.radius - dist;
        let generated = |p: &ParticleInit| s.sources.get(p.source).is_some_and(|src| src.generated);
        let limit = if generated(a) || generated(b) {
            1e-12 * (a.radius + b.radius)
        } else {
            0.5 * a.radius.min(b.radius)
        };
        if overlap > limit {
            return Err(s.error(
                &format!("particles[{}]", b.source),
                format!(
                    "particles {i} ({}) and {j} ({}) overlap by {overlap:e} m (radii {} and {})",
                    s.sources
                        .get(a.source)
                        .map(|x| x.label.as_str())
                        .unwrap_or("?"),
                    s.sources
                        .get(b.source)
                        .map(|x| x.label.as_str())
                        .unwrap_or("?"),
                    a.radius,
                    b.radius
                ),
            ));
        }
    }
    Ok(())
}
