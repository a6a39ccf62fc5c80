//! The particles, one by one: how many (none only with an `[[insert]]`),
//! positive finite radius, a known material, finite state, inside the
//! domain and on the right side of every plane, cylinder and cone (meshes
//! are left to the run's overlap limit).
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{ParticleInit, Scene, Shape};
use crate::state::MAX_PARTICLES;
use crate::walls::geometry::gap;
use crate::walls::primitive::Primitive;
use glam::DVec3;

pub(super) fn check_particles(s: &Scene) -> Result<(), SceneError> {
    if s.particles.is_empty() && s.inserts.is_empty() && s.bodies.is_empty() {
        return Err(s.error(
            "particles",
            "the scene has no particles, no [[insert]] and no [[bodies]]: nothing to simulate",
        ));
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
    // ids given by two sources (a file's own repeats are refused as it is
    // read, with their lines)
    let mut given: Vec<(u32, usize)> = s
        .particles
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.id.map(|id| (id, i)))
        .collect();
    given.sort_unstable();
    if let Some(w) = given.windows(2).find(|w| w[0].0 == w[1].0) {
        let (a, b) = (&s.particles[w[0].1], &s.particles[w[1].1]);
        return Err(s.error(
            &src_key(b),
            format!(
                "particle {}: id {} is also given to particle {} ({}): ids name one particle each",
                w[1].1,
                w[0].0,
                w[0].1,
                src_key(a)
            ),
        ));
    }
    let d = &s.domain;
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
            let Some(dist) = distance_to(&w.shape, DVec3::from(p.position)) else {
                continue;
            };
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
    check_clump_members(s)
}

/// A clump's members (its centre passed the checks above): inside the
/// domain along its closed axes, and clear of the walls as a file
/// particle is (up to half the member's radius).
fn check_clump_members(s: &Scene) -> Result<(), SceneError> {
    if s.particles.iter().all(|p| p.shape.is_none()) {
        return Ok(());
    }
    let d = &s.domain;
    let (pos, owner) = s.member_spheres();
    for (x, &i) in pos.iter().zip(&owner) {
        let p = &s.particles[i];
        let Some(shape) = p.shape else { continue };
        let key = format!("particles[{}]", p.source);
        let name = &s.shapes[shape].name;
        for k in 0..3 {
            if !d.periodic[k] && (x[k] < d.min[k] || x[k] > d.max[k]) {
                return Err(s.error(
                    &key,
                    format!(
                        "particle {i} (a \"{name}\" clump): a member at [{:.4e}, {:.4e}, {:.4e}] is outside the domain ({} not in [{}, {}])",
                        x[0], x[1], x[2], ["x", "y", "z"][k], d.min[k], d.max[k]
                    ),
                ));
            }
        }
        for (wi, w) in s.walls.iter().enumerate() {
            let Some(dist) = distance_to(&w.shape, DVec3::new(x[0], x[1], x[2])) else {
                continue;
            };
            if dist < 0.5 * x[3] {
                return Err(s.error(
                    &key,
                    format!(
                        "particle {i} (a \"{name}\" clump): a member (radius {}) is {dist} m from walls[{wi}]: behind it or overlapping it by more than half its radius",
                        x[3]
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The distance from `p` to a wall's surface at time 0, positive on the
/// particles' side and negative behind it (`walls::gap`, what the run
/// uses); None for a mesh. Beyond the end of a finite cylinder or cone
/// (where no side applies) the distance to its rim.
fn distance_to(shape: &Shape, p: DVec3) -> Option<f64> {
    Primitive::analytic(shape, 0, 0).map(|prim| gap(&prim, p.to_array()).dist)
}

#[cfg(test)]
mod tests {
    use super::distance_to;
    use crate::scene::types::{Shape, Side};
    use glam::DVec3;

    #[test]
    fn distances_to_cylinders_and_cones() {
        let cyl = |side, length| Shape::Cylinder {
            center: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            radius: 1.0,
            length,
            side,
        };
        let d = |s: &Shape, p: [f64; 3]| distance_to(s, DVec3::from(p)).unwrap();
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        close(d(&cyl(Side::Inside, None), [0.25, 0.0, -5.0]), 0.75);
        close(d(&cyl(Side::Inside, None), [1.5, 0.0, 5.0]), -0.5);
        close(d(&cyl(Side::Outside, None), [1.5, 0.0, 5.0]), 0.5);
        close(d(&cyl(Side::Outside, Some(1.0)), [0.0, 0.0, 0.5]), -1.0);
        // below a finite drum: the distance to its rim
        close(d(&cyl(Side::Inside, Some(1.0)), [1.0, 0.0, -0.5]), 0.5);
        let cone = |side| Shape::Cone {
            center: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            radius: [0.0, 1.0],
            length: 1.0,
            side,
        };
        // on the axis at h = 0.5: ρ = 0 and the wall at 45°: 0.5 / √2
        close(d(&cone(Side::Inside), [0.0, 0.0, 0.5]), 0.5 / 2f64.sqrt());
        close(d(&cone(Side::Outside), [0.0, 0.0, 0.5]), -0.5 / 2f64.sqrt());
        close(d(&cone(Side::Outside), [1.0, 0.0, 0.0]), 0.5 * 2f64.sqrt());
        close(d(&cone(Side::Inside), [0.0, 0.0, 2.0]), 2f64.sqrt());
    }
}
