//! `[[walls]]`: unit axes and normals (normalised before validation),
//! positive radii and lengths, a mesh with finite triangles that reaches
//! into the domain, a motion that starts before it stops, a servo with a
//! positive force and speed.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::mesh_file;
use crate::scene::types::{Scene, Shape};
use glam::DVec3;

/// A unit vector (zero, non-finite and un-normalised vectors refused).
fn check_unit(s: &Scene, key: &str, v: [f64; 3], what: &str) -> Result<(), SceneError> {
    let n2 = DVec3::from(v).length_squared();
    if !(n2 > 0.0) || !n2.is_finite() {
        return Err(s.error(key, format!("expected a non-zero {what} vector")));
    }
    if (n2 - 1.0).abs() > 1e-12 {
        return Err(s.error(
            key,
            format!("internal: wall {what} vectors must be normalised before validation"),
        ));
    }
    Ok(())
}

fn check_positive(s: &Scene, key: &str, x: f64, what: &str) -> Result<(), SceneError> {
    if !(x > 0.0 && x.is_finite()) {
        return Err(s.error(key, format!("expected a {what} > 0 m, got {x}")));
    }
    Ok(())
}

pub(super) fn check_walls(s: &Scene) -> Result<(), SceneError> {
    for (i, w) in s.walls.iter().enumerate() {
        let key = |k: &str| format!("walls[{i}].{k}");
        match &w.shape {
            Shape::Plane { normal, .. } => check_unit(s, &key("normal"), *normal, "normal")?,
            Shape::Cylinder {
                axis,
                radius,
                length,
                ..
            } => {
                check_unit(s, &key("axis"), *axis, "axis")?;
                check_positive(s, &key("radius"), *radius, "radius")?;
                if let Some(l) = length {
                    check_positive(s, &key("length"), *l, "length")?;
                }
            }
            Shape::Cone {
                axis,
                radius,
                length,
                ..
            } => {
                check_unit(s, &key("axis"), *axis, "axis")?;
                let ok = radius.iter().all(|r| *r >= 0.0 && r.is_finite())
                    && (radius[0] > 0.0 || radius[1] > 0.0);
                if !ok {
                    return Err(s.error(
                        &key("radius"),
                        format!(
                            "expected two radii >= 0 m, not both zero, got [{}, {}]",
                            radius[0], radius[1]
                        ),
                    ));
                }
                check_positive(s, &key("length"), *length, "length")?;
            }
            Shape::Mesh {
                file, triangles, ..
            } => {
                if triangles.is_empty() {
                    return Err(s.error(
                        &key("file"),
                        format!("mesh {}: no triangles", file.display()),
                    ));
                }
                if let Some(t) = triangles
                    .iter()
                    .position(|t| !t.iter().flatten().all(|x| x.is_finite()))
                {
                    return Err(s.error(
                        &key("file"),
                        format!(
                            "mesh {}: triangle {} has a non-finite coordinate",
                            file.display(),
                            t + 1
                        ),
                    ));
                }
                let (lo, hi) = mesh_file::bounds(triangles).expect("not empty");
                let d = &s.domain;
                if (0..3).any(|k| hi[k] < d.min[k] || lo[k] > d.max[k]) {
                    return Err(s.error(
                        &key("file"),
                        format!(
                            "mesh {} lies wholly outside the domain: its bounding box [{}, {}, {}] .. [{}, {}, {}] does not meet [{}, {}, {}] .. [{}, {}, {}] (check scale, rotate and translate)",
                            file.display(),
                            lo[0], lo[1], lo[2], hi[0], hi[1], hi[2],
                            d.min[0], d.min[1], d.min[2], d.max[0], d.max[1], d.max[2]
                        ),
                    ));
                }
            }
        }
        if let Some(m) = &w.motion {
            let key = |k: &str| format!("walls[{i}].motion.{k}");
            let finite = m
                .velocity
                .iter()
                .chain(&m.axis_point)
                .chain([&m.angular_velocity, &m.start, &m.stop])
                .all(|x| x.is_finite());
            if !finite {
                return Err(s.error(&format!("walls[{i}].motion"), "non-finite value"));
            }
            check_unit(s, &key("axis"), m.axis, "rotation axis")?;
            if let Some(o) = &m.oscillation {
                let key = |k: &str| format!("walls[{i}].motion.oscillation.{k}");
                if !(o.amplitude >= 0.0 && o.amplitude.is_finite()) {
                    return Err(s.error(
                        &key("amplitude"),
                        format!("expected an amplitude >= 0 m, got {}", o.amplitude),
                    ));
                }
                if !(o.frequency >= 0.0 && o.frequency.is_finite()) {
                    return Err(s.error(
                        &key("frequency"),
                        format!("expected a frequency >= 0 Hz, got {}", o.frequency),
                    ));
                }
                check_unit(s, &key("direction"), o.direction, "direction")?;
            }
            if !(m.stop >= m.start) {
                return Err(s.error(
                    &key("stop"),
                    format!(
                        "expected stop >= start, got start = {} s and stop = {} s",
                        m.start, m.stop
                    ),
                ));
            }
        }
        if let Some(sv) = &w.servo {
            let key = |k: &str| format!("walls[{i}].servo.{k}");
            if !(sv.force > 0.0 && sv.force.is_finite()) {
                return Err(s.error(
                    &key("force"),
                    format!("expected a target force > 0 N, got {}", sv.force),
                ));
            }
            if !(sv.max_speed > 0.0 && sv.max_speed.is_finite()) {
                return Err(s.error(
                    &key("max_speed"),
                    format!("expected a speed > 0 m/s, got {}", sv.max_speed),
                ));
            }
            check_unit(s, &key("direction"), sv.direction, "direction")?;
        }
    }
    Ok(())
}
