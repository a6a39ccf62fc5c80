//! The particles, one by one: how many, positive finite radius, a known
//! material, finite state, inside the domain and on the right side of every
//! wall.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{ParticleInit, Scene};
use crate::state::MAX_PARTICLES;
use glam::DVec3;

pub(super) fn check_particles(s: &Scene) -> Result<(), SceneError> {
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
    let d = &s.domain;
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
            let Some((point, normal)) = w.as_plane() else {
                continue;
            };
            let dist = (DVec3::from(p.position) - DVec3::from(point)).dot(DVec3::from(normal));
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
    Ok(())
}
