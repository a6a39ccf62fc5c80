//! `[[insert]]` and `[[outlets]]`: valid regions (a box with max > min, a
//! cylinder with a unit axis, positive radius and length); an insertion
//! inside the domain, large enough for its largest particle, clear of
//! every wall at t = 0, with a positive rate, a known material, a valid
//! radius distribution, start ≥ 0, stop > start, count ≥ 1, interval > 0;
//! an outlet that meets the domain. Warnings (not errors): an outlet
//! holding initial particle centres.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{Insert, InsertRate, Region, Scene, Shape};
use crate::walls::geometry::{gap, perpendicular};
use crate::walls::primitive::Primitive;
use glam::{DVec2, DVec3};

const XYZ: [&str; 3] = ["x", "y", "z"];

pub(super) fn check_flow(s: &Scene) -> Result<(), SceneError> {
    for (i, ins) in s.inserts.iter().enumerate() {
        check_insert(s, i, ins)?;
    }
    for (i, o) in s.outlets.iter().enumerate() {
        let key = format!("outlets[{i}].region");
        check_region(s, &key, &o.region)?;
        let (lo, hi) = o.region.bounds();
        let d = &s.domain;
        if (0..3).any(|k| hi[k] < d.min[k] || lo[k] > d.max[k]) {
            return Err(s.error(
                &key,
                format!(
                    "outlet region entirely outside the domain: its bounding box {} .. {} does not meet the domain {} .. {}",
                    v3(lo),
                    v3(hi),
                    v3(d.min),
                    v3(d.max)
                ),
            ));
        }
    }
    Ok(())
}

fn check_insert(s: &Scene, i: usize, ins: &Insert) -> Result<(), SceneError> {
    let key = |k: &str| format!("insert[{i}].{k}");
    check_region(s, &key("region"), &ins.region)?;
    ins.radius.check().map_err(|m| s.error(&key("radius"), m))?;
    if ins.material >= s.materials.len() {
        return Err(s.error(
            &key("material"),
            format!("material index {} out of range", ins.material),
        ));
    }
    match ins.rate {
        InsertRate::Count(r) if !(r > 0.0 && r.is_finite()) => {
            return Err(s.error(
                &key("rate"),
                format!("expected a rate > 0 particles/s, got {r}"),
            ))
        }
        InsertRate::Mass(r) if !(r > 0.0 && r.is_finite()) => {
            return Err(s.error(
                &key("mass_rate"),
                format!("expected a mass rate > 0 kg/s, got {r}"),
            ))
        }
        _ => {}
    }
    if !ins.velocity.iter().all(|x| x.is_finite()) {
        return Err(s.error(&key("velocity"), "expected a finite velocity in m/s"));
    }
    if !(ins.start >= 0.0 && ins.start.is_finite()) {
        return Err(s.error(
            &key("start"),
            format!("expected a start time >= 0 s, got {}", ins.start),
        ));
    }
    if let Some(stop) = ins.stop {
        if !stop.is_finite() {
            return Err(s.error(
                &key("stop"),
                format!("expected a finite stop time in s (leave stop out to pour until the end), got {stop}"),
            ));
        }
        if !(stop > ins.start) {
            return Err(s.error(
                &key("stop"),
                format!(
                    "expected stop > start, got start = {} s and stop = {stop} s",
                    ins.start
                ),
            ));
        }
    }
    if ins.count == Some(0) {
        return Err(s.error(&key("count"), "expected a count >= 1, got 0"));
    }
    if let Some(dt) = ins.interval {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(s.error(
                &key("interval"),
                format!("expected an interval > 0 s or \"auto\", got {dt}"),
            ));
        }
    }
    let region = &ins.region;
    let (lo, hi) = region.bounds();
    let d = &s.domain;
    let inside = (0..3).all(|k| {
        let eps = 1e-12 * (d.max[k] - d.min[k]);
        lo[k] >= d.min[k] - eps && hi[k] <= d.max[k] + eps
    });
    if !inside {
        return Err(s.error(
            &key("region"),
            format!(
                "insertion region outside the domain: its bounding box {} .. {} must lie within the domain {} .. {}",
                v3(lo),
                v3(hi),
                v3(d.min),
                v3(d.max)
            ),
        ));
    }
    // room for one particle of the largest radius (a relative 1e-9 for
    // round-off in max − min)
    let rmax = ins.radius.max();
    let dmax = 2.0 * rmax;
    let short = |x: f64, need: f64| x < need * (1.0 - 1e-9);
    let too_small = match *region {
        Region::Box { min, max } => (0..3).find(|&k| short(max[k] - min[k], dmax)).map(|k| {
            format!(
                "the region is {} m wide along {}: it must be at least the largest diameter {dmax} m to hold one particle",
                round12(max[k] - min[k]),
                XYZ[k]
            )
        }),
        Region::Cylinder { radius, length, .. } => {
            if short(radius, rmax) {
                Some(format!(
                    "the region's radius {radius} m is under the largest particle radius {rmax} m: it cannot hold one particle"
                ))
            } else if short(length, dmax) {
                Some(format!(
                    "the region's length {length} m is under the largest diameter {dmax} m: it cannot hold one particle"
                ))
            } else {
                None
            }
        }
    };
    if let Some(m) = too_small {
        return Err(s.error(&key("region"), m));
    }
    for (wi, w) in s.walls.iter().enumerate() {
        if let Some(why) = wall_through_region(&w.shape, region) {
            return Err(s.error(
                &key("region"),
                format!(
                    "insertion region overlaps wall \"{}\" (walls[{wi}], {}): {why}",
                    w.label(wi),
                    w.shape.kind()
                ),
            ));
        }
    }
    Ok(())
}

/// A box with max > min, or a cylinder with a finite centre, a unit axis
/// and a positive radius and length; all finite.
pub(super) fn check_region(s: &Scene, key: &str, r: &Region) -> Result<(), SceneError> {
    match *r {
        Region::Box { min, max } => {
            for (k, p) in [("min", min), ("max", max)] {
                if !p.iter().all(|x| x.is_finite()) {
                    return Err(s.error(&format!("{key}.{k}"), "expected a finite point"));
                }
            }
            if let Some(k) = (0..3).find(|&k| !(max[k] > min[k])) {
                return Err(s.error(
                    &format!("{key}.max"),
                    format!(
                        "expected max > min on every axis; {} has min {} and max {}",
                        XYZ[k], min[k], max[k]
                    ),
                ));
            }
        }
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            if !center.iter().all(|x| x.is_finite()) {
                return Err(s.error(&format!("{key}.center"), "expected a finite point"));
            }
            let n2 = DVec3::from(axis).length_squared();
            if !(n2 > 0.0 && n2.is_finite()) {
                return Err(s.error(&format!("{key}.axis"), "expected a non-zero axis vector"));
            }
            if (n2 - 1.0).abs() > 1e-12 {
                return Err(s.error(
                    &format!("{key}.axis"),
                    "internal: region axes must be normalised before validation (types::unit_or_given)",
                ));
            }
            for (k, x) in [("radius", radius), ("length", length)] {
                if !(x > 0.0 && x.is_finite()) {
                    return Err(s.error(
                        &format!("{key}.{k}"),
                        format!("expected a {k} > 0 m, got {x}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Why the wall's surface (at its t = 0 pose) passes through `region`, or
/// None. A surface that only touches the region's boundary does not: the
/// region is shrunk by 10⁻⁶ of its smallest size first.
///
/// - plane: exact, the smallest signed distance over the region (a box's
///   corners; a cylinder's end rims) is negative;
/// - cylinder, cone: some point of a lattice of the region (33 × 33 × 33
///   for a box; 33 layers × 8 rings × 64 angles plus the axis for a
///   cylinder, boundary included) is behind the surface where it has a
///   side (`walls::gap` < 0: within the surface's axial extent);
/// - mesh: exact, a triangle meets the region (separating axes for a box;
///   for a cylinder the triangle clipped to the cylinder's slab comes
///   within the radius of its axis).
fn wall_through_region(shape: &Shape, region: &Region) -> Option<String> {
    let region = shrunk(region);
    match shape {
        Shape::Plane { point, normal } => {
            let (p, n) = (DVec3::from(*point), DVec3::from(*normal));
            let lowest = match region {
                Region::Box { min, max } => corners(min, max)
                    .map(|c| (c - p).dot(n))
                    .fold(f64::INFINITY, f64::min),
                Region::Cylinder {
                    center,
                    axis,
                    radius,
                    length,
                } => {
                    let (c, a) = (DVec3::from(center), DVec3::from(axis));
                    let reach = radius * (1.0 - a.dot(n).powi(2)).max(0.0).sqrt();
                    (c - p).dot(n).min((c + length * a - p).dot(n)) - reach
                }
            };
            (lowest < 0.0)
                .then(|| "the plane passes through the region or the region lies behind it".into())
        }
        Shape::Cylinder { .. } | Shape::Cone { .. } => {
            let prim = Primitive::analytic(shape, 0, 0)?;
            samples(&region)
                .into_iter()
                .any(|x| gap(&prim, x.to_array()).dist < 0.0)
                .then(|| {
                    "its surface passes through the region or the region lies on the wrong side of it"
                        .into()
                })
        }
        Shape::Mesh {
            file, triangles, ..
        } => {
            let hit = triangles.iter().position(|t| match region {
                Region::Box { min, max } => triangle_meets_box(t, min, max),
                Region::Cylinder {
                    center,
                    axis,
                    radius,
                    length,
                } => triangle_meets_cylinder(t, center, axis, radius, length),
            })?;
            Some(format!(
                "triangle {} of {} passes through the region",
                hit + 1,
                file.display()
            ))
        }
    }
}

/// The region shrunk by 10⁻⁶ of its smallest size on every side.
fn shrunk(r: &Region) -> Region {
    match *r {
        Region::Box { min, max } => {
            let size = (0..3)
                .map(|k| max[k] - min[k])
                .fold(f64::INFINITY, f64::min);
            let d = 1e-6 * size;
            Region::Box {
                min: min.map(|x| x + d),
                max: max.map(|x| x - d),
            }
        }
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            let d = 1e-6 * radius.min(length);
            Region::Cylinder {
                center: (DVec3::from(center) + d * DVec3::from(axis)).to_array(),
                axis,
                radius: radius - d,
                length: length - 2.0 * d,
            }
        }
    }
}

fn corners(min: [f64; 3], max: [f64; 3]) -> impl Iterator<Item = DVec3> {
    (0..8).map(move |c: usize| {
        DVec3::new(
            if c & 1 == 0 { min[0] } else { max[0] },
            if c & 2 == 0 { min[1] } else { max[1] },
            if c & 4 == 0 { min[2] } else { max[2] },
        )
    })
}

/// Points of a lattice of the region, its boundary included.
fn samples(r: &Region) -> Vec<DVec3> {
    const N: usize = 32;
    let t = |i: usize| i as f64 / N as f64;
    let mut out = Vec::new();
    match *r {
        Region::Box { min, max } => {
            let (lo, hi) = (DVec3::from(min), DVec3::from(max));
            for i in 0..=N {
                for j in 0..=N {
                    for k in 0..=N {
                        out.push(lo + (hi - lo) * DVec3::new(t(i), t(j), t(k)));
                    }
                }
            }
        }
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            let (c, a) = (DVec3::from(center), DVec3::from(axis));
            let e1 = perpendicular(a);
            let e2 = a.cross(e1);
            for j in 0..=N {
                let base = c + a * (length * t(j));
                out.push(base);
                for ring in 1..=8 {
                    let rho = radius * ring as f64 / 8.0;
                    for k in 0..2 * N {
                        let phi = std::f64::consts::PI * k as f64 / N as f64;
                        out.push(base + rho * (phi.cos() * e1 + phi.sin() * e2));
                    }
                }
            }
        }
    }
    out
}

/// Whether triangle `t` meets the box `min`..`max`: no separating axis
/// among the box's 3 face normals, the triangle's normal and the 9 cross
/// products of box and triangle edges (Akenine-Möller's test).
fn triangle_meets_box(t: &[[f64; 3]; 3], min: [f64; 3], max: [f64; 3]) -> bool {
    let (lo, hi) = (DVec3::from(min), DVec3::from(max));
    let (c, h) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
    let v = t.map(|p| DVec3::from(p) - c);
    let separated = |a: DVec3| {
        let p = v.map(|x| x.dot(a));
        let r = h.dot(a.abs());
        p[0].min(p[1]).min(p[2]) > r || p[0].max(p[1]).max(p[2]) < -r
    };
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    if axes.iter().any(|&a| separated(a)) || separated(e[0].cross(e[1])) {
        return false;
    }
    !e.iter()
        .any(|&ei| axes.iter().any(|&a| separated(a.cross(ei))))
}

/// Whether triangle `t` meets the solid cylinder from `center` to `center
/// + length × axis` (axis unit) of radius `radius`: the triangle clipped
/// to the slab 0 ≤ (x − center)·axis ≤ length is a convex polygon (or
/// nothing); it meets the cylinder when it comes within `radius` of the
/// axis, i.e. when its projection onto the plane normal to the axis (a
/// convex polygon about the axis' trace, the origin) holds the origin or
/// has an edge within `radius` of it.
fn triangle_meets_cylinder(
    t: &[[f64; 3]; 3],
    center: [f64; 3],
    axis: [f64; 3],
    radius: f64,
    length: f64,
) -> bool {
    let (c, a) = (DVec3::from(center), DVec3::from(axis));
    let poly: Vec<DVec3> = t.iter().map(|&p| DVec3::from(p) - c).collect();
    let poly = clip(&poly, |x| x.dot(a));
    let poly = clip(&poly, |x| length - x.dot(a));
    if poly.is_empty() {
        return false;
    }
    let e1 = perpendicular(a);
    let e2 = a.cross(e1);
    let q: Vec<DVec2> = poly
        .iter()
        .map(|x| DVec2::new(x.dot(e1), x.dot(e2)))
        .collect();
    let n = q.len();
    let edge = |i: usize| (q[i], q[(i + 1) % n]);
    // twice the signed area: the projection is a proper polygon (not a
    // segment or a point) when it is clearly non-zero
    let area2: f64 = (0..n).map(|i| edge(i).0.perp_dot(edge(i).1)).sum();
    let scale = q.iter().map(|p| p.length_squared()).fold(0.0, f64::max);
    if area2.abs() > 1e-12 * scale {
        let inside = (0..n).all(|i| {
            let (p0, p1) = edge(i);
            (p1 - p0).perp_dot(-p0) * area2.signum() >= 0.0
        });
        if inside {
            return true;
        }
    }
    (0..n).any(|i| {
        let (p0, p1) = edge(i);
        let d = p1 - p0;
        let l2 = d.length_squared();
        let s = if l2 > 0.0 {
            (-p0.dot(d) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (p0 + s * d).length() <= radius
    })
}

/// The part of convex polygon `poly` where `f` ≥ 0 (f linear;
/// Sutherland–Hodgman against one plane).
fn clip(poly: &[DVec3], f: impl Fn(DVec3) -> f64) -> Vec<DVec3> {
    let n = poly.len();
    let mut out = Vec::with_capacity(n + 1);
    for i in 0..n {
        let (p, q) = (poly[i], poly[(i + 1) % n]);
        let (fp, fq) = (f(p), f(q));
        if fp >= 0.0 {
            out.push(p);
        }
        if (fp >= 0.0) != (fq >= 0.0) {
            out.push(p + (q - p) * (fp / (fp - fq)));
        }
    }
    out
}

/// Outlets that hold initial particle centres at t = 0 (those particles
/// leave at once): one warning per such outlet, with the count, or saying
/// that it holds every one.
/// `[[fixed]]`: each region well formed; none over a clump's centre (a
/// clump is not held); not every particle held when nothing is poured
/// either (nothing would move).
pub(super) fn check_fixed(s: &Scene) -> Result<(), SceneError> {
    for (i, r) in s.fixed.iter().enumerate() {
        let key = format!("fixed[{i}].region");
        check_region(s, &key, r)?;
        if let Some(p) = s
            .particles
            .iter()
            .find(|p| p.shape.is_some() && r.contains(p.position))
        {
            return Err(s.error(
                &key,
                format!(
                    "holds the centre of a clump (at [{}, {}, {}]): [[fixed]] holds spheres only",
                    p.position[0], p.position[1], p.position[2]
                ),
            ));
        }
    }
    let n = s.particles.len();
    if !s.fixed.is_empty() && n > 0 && s.inserts.is_empty() && s.bodies.is_empty() {
        let held = s
            .particles
            .iter()
            .filter(|p| s.fixed.iter().any(|r| r.contains(p.position)))
            .count();
        if held == n {
            return Err(s.error(
                "fixed",
                format!("the [[fixed]] regions hold every particle ({n}) and nothing is poured: nothing would move"),
            ));
        }
    }
    Ok(())
}

/// A `[[fixed]]` region that holds no particle at t = 0.
pub(super) fn fixed_warnings(s: &Scene) -> Vec<SceneError> {
    let mut out = Vec::new();
    for (i, r) in s.fixed.iter().enumerate() {
        if !s.particles.iter().any(|p| r.contains(p.position)) {
            out.push(s.error(
                &format!("fixed[{i}].region"),
                "holds no particle's centre at t = 0: it holds nothing (particles poured later are never held)",
            ));
        }
    }
    out
}

pub(super) fn outlet_warnings(s: &Scene) -> Vec<SceneError> {
    let n = s.particles.len();
    let mut out = Vec::new();
    for (i, o) in s.outlets.iter().enumerate() {
        let k = s
            .particles
            .iter()
            .filter(|p| o.region.contains(p.position))
            .count();
        if k == 0 {
            continue;
        }
        let label = o.label(i);
        let message = if k == n {
            format!(
                "outlet \"{label}\" holds the centre of every initial particle ({n}) at t = 0: all of them are removed when the run starts"
            )
        } else {
            format!(
                "outlet \"{label}\" holds the centres of {k} of the {n} initial particles at t = 0: they are removed when the run starts"
            )
        };
        out.push(s.error(&format!("outlets[{i}].region"), message));
    }
    out
}

/// `x` to 12 significant digits (a width `max − min` without its
/// round-off: 0.0005, not 0.0004999999999999996).
fn round12(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// `[x, y, z]`, each as Rust prints it.
fn v3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", v[0], v[1], v[2])
}

#[cfg(test)]
mod tests {
    use super::{triangle_meets_box, triangle_meets_cylinder, wall_through_region};
    use crate::scene::types::{Region, Shape, Side};

    const UNIT: Region = Region::Box {
        min: [0.0; 3],
        max: [1.0; 3],
    };
    const CYL: Region = Region::Cylinder {
        center: [0.0; 3],
        axis: [0.0, 0.0, 1.0],
        radius: 1.0,
        length: 2.0,
    };

    #[test]
    fn triangles_and_boxes() {
        let meets = |t: [[f64; 3]; 3]| triangle_meets_box(&t, [0.0; 3], [1.0; 3]);
        // through the middle
        assert!(meets([
            [-1.0, -1.0, 0.5],
            [3.0, -1.0, 0.5],
            [-1.0, 3.0, 0.5]
        ]));
        // in the plane z = 0.5 through the box, beyond its edge x + y = 2
        // (only an edge cross product separates them)
        assert!(!meets([[2.2, 0.0, 0.5], [0.0, 2.2, 0.5], [3.0, 3.0, 0.5]]));
        assert!(meets([[1.8, 0.0, 0.5], [0.0, 1.8, 0.5], [3.0, 3.0, 0.5]]));
        // above it
        assert!(!meets([[0.0, 0.0, 1.5], [1.0, 0.0, 1.5], [0.0, 1.0, 1.5]]));
        // tilted, inside a corner
        assert!(meets([[0.9, 0.9, 0.9], [2.0, 0.9, 0.9], [0.9, 2.0, 2.0]]));
        // a small triangle wholly inside
        assert!(meets([[0.4, 0.4, 0.4], [0.6, 0.4, 0.4], [0.4, 0.6, 0.5]]));
        // outside along the diagonal, near the corner (1, 1, 1): the
        // plane x + y + z = 3.2 misses the box
        assert!(!meets([[3.2, 0.0, 0.0], [0.0, 3.2, 0.0], [0.0, 0.0, 3.2]]));
        assert!(meets([[2.9, 0.0, 0.0], [0.0, 2.9, 0.0], [0.0, 0.0, 2.9]]));
    }

    #[test]
    fn triangles_and_cylinders() {
        let meets =
            |t: [[f64; 3]; 3]| triangle_meets_cylinder(&t, [0.0; 3], [0.0, 0.0, 1.0], 1.0, 2.0);
        // a large triangle across the cylinder, its plane normal to the axis
        assert!(meets([
            [-5.0, -5.0, 1.0],
            [5.0, -5.0, 1.0],
            [0.0, 5.0, 1.0]
        ]));
        // the same below the cylinder
        assert!(!meets([
            [-5.0, -5.0, -0.1],
            [5.0, -5.0, -0.1],
            [0.0, 5.0, -0.1]
        ]));
        // vertical, 0.9 from the axis: cuts the side
        assert!(meets([
            [0.9, -5.0, -1.0],
            [0.9, 5.0, -1.0],
            [0.9, 0.0, 5.0]
        ]));
        // vertical, 1.1 from the axis: misses
        assert!(!meets([
            [1.1, -5.0, -1.0],
            [1.1, 5.0, -1.0],
            [1.1, 0.0, 5.0]
        ]));
        // within the radius of the axis line but beyond the end caps: a
        // capsule test would say yes
        assert!(!meets([[0.0, 0.0, 2.3], [0.5, 0.0, 2.3], [0.0, 0.5, 2.9]]));
        // near the rim corner: within the box around the cylinder, not in it
        assert!(!meets([
            [0.8, 0.8, 0.5],
            [0.99, 0.8, 0.5],
            [0.8, 0.99, 0.5]
        ]));
        // a sliver crossing the top cap from above
        assert!(meets([[0.0, 0.0, 1.9], [0.01, 0.0, 3.0], [0.0, 0.01, 3.0]]));
        // a triangle in a plane containing the axis (its projection is a
        // segment through the origin)
        assert!(meets([[-3.0, 0.0, 0.5], [3.0, 0.0, 0.5], [0.0, 0.0, 5.0]]));
    }

    #[test]
    fn walls_through_regions() {
        let plane = |z: f64, nz: f64| Shape::Plane {
            point: [0.0, 0.0, z],
            normal: [0.0, 0.0, nz],
        };
        // a floor under the box, touching it, through it, above it
        assert!(wall_through_region(&plane(-0.5, 1.0), &UNIT).is_none());
        assert!(wall_through_region(&plane(0.0, 1.0), &UNIT).is_none());
        assert!(wall_through_region(&plane(0.5, 1.0), &UNIT).is_some());
        assert!(wall_through_region(&plane(2.0, 1.0), &UNIT).is_some());
        // a lid touching its top, and one cutting it
        assert!(wall_through_region(&plane(1.0, -1.0), &UNIT).is_none());
        assert!(wall_through_region(&plane(0.999, -1.0), &UNIT).is_some());
        // a tilted plane z − x + off = 0 (normal (−1, 0, 1) / √2), the
        // region above it: it passes 1e-3 clear of the cylinder's bottom
        // rim at (1, 0, 0), or clips it by 1e-3
        let s = 0.5f64.sqrt();
        let tilted = |off: f64| Shape::Plane {
            point: [off, 0.0, 0.0],
            normal: [-s, 0.0, s],
        };
        assert!(wall_through_region(&tilted(1.001), &CYL).is_none());
        assert!(wall_through_region(&tilted(0.999), &CYL).is_some());
        // a silo around the region, one through it, a pin in it
        let cyl = |r: f64, side| Shape::Cylinder {
            center: [0.5, 0.5, -1.0],
            axis: [0.0, 0.0, 1.0],
            radius: r,
            length: Some(3.0),
            side,
        };
        assert!(wall_through_region(&cyl(0.75, Side::Inside), &UNIT).is_none());
        assert!(wall_through_region(&cyl(0.6, Side::Inside), &UNIT).is_some());
        assert!(wall_through_region(&cyl(0.1, Side::Outside), &UNIT).is_some());
        assert!(wall_through_region(&cyl(0.75, Side::Outside), &UNIT).is_some());
        // a silo that ends below the region: the region is past its rim
        let short = Shape::Cylinder {
            center: [0.5, 0.5, -1.0],
            axis: [0.0, 0.0, 1.0],
            radius: 0.6,
            length: Some(1.0),
            side: Side::Inside,
        };
        assert!(wall_through_region(&short, &UNIT).is_none());
        // a hopper (cone) below a cylindrical region, its top rim wider
        let cone = |top: f64| Shape::Cone {
            center: [0.0, 0.0, -1.0],
            axis: [0.0, 0.0, 1.0],
            radius: [0.2, 1.5],
            length: top + 1.0,
            side: Side::Inside,
        };
        assert!(wall_through_region(&cone(0.0), &CYL).is_none());
        assert!(wall_through_region(&cone(1.0), &CYL).is_some());
        // a mesh triangle through a cylinder region
        let mesh = |z: f64| Shape::Mesh {
            file: "m.stl".into(),
            triangles: vec![[[-5.0, -5.0, z], [5.0, -5.0, z], [0.0, 5.0, z]]],
            one_sided: false,
            degenerate: 0,
        };
        assert!(wall_through_region(&mesh(0.0), &CYL).is_none());
        let why = wall_through_region(&mesh(1.0), &CYL).unwrap();
        assert!(why.contains("triangle 1 of m.stl"), "{why}");
        assert!(wall_through_region(&mesh(1.0), &UNIT).is_none());
        assert!(wall_through_region(&mesh(0.5), &UNIT).is_some());
    }
}
