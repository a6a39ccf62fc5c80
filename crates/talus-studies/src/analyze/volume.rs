//! Exact volumes of a sphere cut by a slab, a finite circular cylinder and
//! an axis-aligned box (f64, no sampling).
//!
//! The closed forms cover a sphere wholly inside or outside and a
//! cylinder's axis through the centre; otherwise the cross-section area
//! (circle ∩ circle, circle ∩ rectangle: closed forms) is integrated along
//! the axis, split where the area stops being analytic (where a cut circle
//! starts containing or touching the other, or passes a corner). On each
//! piece the substitution z = m − h cos θ turns the half-integer power
//! singularities at its ends into analytic functions of θ, and adaptive
//! Gauss–Legendre integrates to rounding.

use std::f64::consts::PI;
use std::sync::OnceLock;

/// Volume of the sphere of radius `r` below the plane at height `h`
/// relative to its centre (`h` clamped to [−r, r]): π (r + h)² (2r − h) / 3.
pub fn sphere_below(r: f64, h: f64) -> f64 {
    if r <= 0.0 {
        return 0.0;
    }
    let h = h.clamp(-r, r);
    PI * (r + h) * (r + h) * (2.0 * r - h) / 3.0
}

/// Volume of the sphere between the heights `a` ≤ `b` relative to its
/// centre: the difference of two caps, written to keep small slabs
/// accurate (∫ π (r² − z²) dz).
fn sphere_between(r: f64, a: f64, b: f64) -> f64 {
    let (a, b) = (a.clamp(-r, r), b.clamp(-r, r));
    if b <= a {
        return 0.0;
    }
    PI * (r * r * (b - a) - (b * b * b - a * a * a) / 3.0)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Volume of the sphere (`center`, `r`) inside the slab
/// lo ≤ x·axis ≤ hi (`axis` a unit vector).
pub fn sphere_slab(center: [f64; 3], r: f64, axis: [f64; 3], lo: f64, hi: f64) -> f64 {
    let c = dot(center, axis);
    sphere_between(r, lo - c, hi - c)
}

/// Area of the intersection of two discs of radii `a`, `b` whose centres
/// are `d` apart.
pub fn lens_area(a: f64, b: f64, d: f64) -> f64 {
    if a <= 0.0 || b <= 0.0 || d >= a + b {
        return 0.0;
    }
    if d <= (a - b).abs() {
        let m = a.min(b);
        return PI * m * m;
    }
    let ca = ((d * d + a * a - b * b) / (2.0 * d * a)).clamp(-1.0, 1.0);
    let cb = ((d * d + b * b - a * a) / (2.0 * d * b)).clamp(-1.0, 1.0);
    let k = (-d + a + b) * (d + a - b) * (d - a + b) * (d + a + b);
    a * a * ca.acos() + b * b * cb.acos() - 0.5 * k.max(0.0).sqrt()
}

/// Volume of the sphere (`center`, `r`) inside the finite circular
/// cylinder {distance to the axis ≤ `radius`, lo ≤ (x − axis_point)·axis ≤ hi}
/// (`axis` a unit vector). Relative error below 1e-10.
pub fn sphere_in_cylinder(
    center: [f64; 3],
    r: f64,
    axis_point: [f64; 3],
    axis: [f64; 3],
    radius: f64,
    lo: f64,
    hi: f64,
) -> f64 {
    if r <= 0.0 || radius <= 0.0 || hi <= lo {
        return 0.0;
    }
    let rel = [
        center[0] - axis_point[0],
        center[1] - axis_point[1],
        center[2] - axis_point[2],
    ];
    let t = dot(rel, axis);
    let perp = [
        rel[0] - t * axis[0],
        rel[1] - t * axis[1],
        rel[2] - t * axis[2],
    ];
    let d = dot(perp, perp).sqrt();
    // heights relative to the sphere's centre
    let (a, b) = ((lo - t).max(-r), (hi - t).min(r));
    if b <= a || d >= radius + r {
        return 0.0;
    }
    if d + r <= radius {
        return sphere_between(r, a, b);
    }
    if d == 0.0 {
        // πρ² where ρ = √(r² − z²) ≤ radius, π radius² in between
        let w = (r * r - radius * radius).max(0.0).sqrt();
        let mid = (b.min(w) - a.max(-w)).max(0.0) * PI * radius * radius;
        return sphere_between(r, a, b.min(-w)) + mid + sphere_between(r, a.max(w), b);
    }
    let area = |z: f64| lens_area((r * r - z * z).max(0.0).sqrt(), radius, d);
    // the kinks: ρ(z) = |radius − d| (one circle starts containing the
    // other or they part) and ρ = radius + d (the disc covers the circle)
    let kinks = [(radius - d).abs(), radius + d];
    let mut cuts = vec![a, b];
    for rho in kinks {
        if rho < r {
            let z = (r * r - rho * rho).sqrt();
            cuts.extend([-z, z]);
        }
    }
    integrate_pieces(
        &mut cuts,
        a,
        b,
        r * r,
        |lo, hi| {
            // closed forms where the section is a whole disc or none
            let z = 0.5 * (lo + hi);
            let rho = (r * r - z * z).max(0.0).sqrt();
            if rho + d <= radius {
                Some(sphere_between(r, lo, hi))
            } else if radius + d <= rho {
                Some(PI * radius * radius * (hi - lo))
            } else if d >= rho + radius {
                Some(0.0)
            } else {
                None
            }
        },
        &area,
    )
}

/// Area of {x ≤ a, y ≤ b} inside the disc of radius `rho` centred at the
/// origin.
fn quadrant_area(a: f64, b: f64, rho: f64) -> f64 {
    if rho <= 0.0 {
        return 0.0;
    }
    let x_hi = a.min(rho);
    if x_hi <= -rho || b <= -rho {
        return 0.0;
    }
    // ∫ √(ρ² − x²) dx
    let s = |x: f64| {
        let x = x.clamp(-rho, rho);
        0.5 * (x * (rho * rho - x * x).max(0.0).sqrt()
            + rho * rho * (x / rho).clamp(-1.0, 1.0).asin())
    };
    if b >= rho {
        return 2.0 * (s(x_hi) - s(-rho));
    }
    let w = (rho * rho - b * b).max(0.0).sqrt();
    // chord length below y = b: b + s(x) for |x| ≤ w; 2 s(x) (b ≥ 0) or 0 outside
    let mut total = 0.0;
    let clip = |p: f64, q: f64| (p.max(-rho), q.min(x_hi));
    let (p, q) = clip(-w, w);
    if q > p {
        total += b * (q - p) + s(q) - s(p);
    }
    if b > 0.0 {
        for (p, q) in [clip(-rho, -w), clip(w, rho)] {
            if q > p {
                total += 2.0 * (s(q) - s(p));
            }
        }
    }
    total
}

/// Area of the disc (centre (cx, cy), radius `rho`) inside the rectangle
/// [x0, x1] × [y0, y1].
pub fn disc_in_rect(c: [f64; 2], rho: f64, x: [f64; 2], y: [f64; 2]) -> f64 {
    let (x0, x1) = (x[0] - c[0], x[1] - c[0]);
    let (y0, y1) = (y[0] - c[1], y[1] - c[1]);
    if x1 <= x0 || y1 <= y0 {
        return 0.0;
    }
    let v = quadrant_area(x1, y1, rho) - quadrant_area(x0, y1, rho) - quadrant_area(x1, y0, rho)
        + quadrant_area(x0, y0, rho);
    v.clamp(0.0, PI * rho * rho)
}

/// Volume of the sphere (`center`, `r`) inside the axis-aligned box
/// [min, max]. Relative error below 1e-10.
pub fn sphere_in_box(center: [f64; 3], r: f64, min: [f64; 3], max: [f64; 3]) -> f64 {
    if r <= 0.0 {
        return 0.0;
    }
    for k in 0..3 {
        if center[k] - r >= max[k] || center[k] + r <= min[k] || max[k] <= min[k] {
            return 0.0;
        }
    }
    let (a, b) = ((min[2] - center[2]).max(-r), (max[2] - center[2]).min(r));
    let inside_xy = (0..2).all(|k| center[k] - r >= min[k] && center[k] + r <= max[k]);
    if inside_xy {
        return sphere_between(r, a, b);
    }
    let (c, xs, ys) = ([center[0], center[1]], [min[0], max[0]], [min[1], max[1]]);
    let ex = [(min[0] - center[0]).abs(), (max[0] - center[0]).abs()];
    let ey = [(min[1] - center[1]).abs(), (max[1] - center[1]).abs()];
    let mut kinks = vec![ex[0], ex[1], ey[0], ey[1]];
    for x in ex {
        for y in ey {
            kinks.push((x * x + y * y).sqrt());
        }
    }
    let mut cuts = vec![a, b];
    for rho in kinks {
        if rho < r {
            let z = (r * r - rho * rho).sqrt();
            cuts.extend([-z, z]);
        }
    }
    let centre_in = (0..2).all(|k| center[k] > min[k] && center[k] < max[k]);
    let e_min = ex[0].min(ex[1]).min(ey[0]).min(ey[1]);
    let area = |z: f64| disc_in_rect(c, (r * r - z * z).max(0.0).sqrt(), xs, ys);
    integrate_pieces(
        &mut cuts,
        a,
        b,
        r * r,
        |lo, hi| {
            let z = 0.5 * (lo + hi);
            let rho = (r * r - z * z).max(0.0).sqrt();
            (centre_in && rho <= e_min).then(|| sphere_between(r, lo, hi))
        },
        &area,
    )
}

/// ∫ area(z) dz over [a, b], split at the `cuts` inside it; `exact` gives a
/// piece's integral in closed form where it can.
fn integrate_pieces(
    cuts: &mut Vec<f64>,
    a: f64,
    b: f64,
    area_scale: f64,
    exact: impl Fn(f64, f64) -> Option<f64>,
    area: &dyn Fn(f64) -> f64,
) -> f64 {
    cuts.retain(|&z| z >= a && z <= b);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let mut total = 0.0;
    for w in cuts.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        if hi <= lo {
            continue;
        }
        total += match exact(lo, hi) {
            Some(v) => v,
            None => smooth_integral(area, lo, hi, 1e-13 * area_scale * (hi - lo)),
        };
    }
    total
}

const GL_N: usize = 20;

/// Gauss–Legendre nodes and weights on [−1, 1] (Newton on P_n).
fn gauss_legendre() -> &'static [(f64, f64); GL_N] {
    static NODES: OnceLock<[(f64, f64); GL_N]> = OnceLock::new();
    NODES.get_or_init(|| {
        let n = GL_N;
        let mut out = [(0.0, 0.0); GL_N];
        for (i, slot) in out.iter_mut().enumerate() {
            let mut x = (PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=n {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            *slot = (x, 2.0 / ((1.0 - x * x) * dp * dp));
        }
        out
    })
}

fn gl(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let (m, h) = (0.5 * (a + b), 0.5 * (b - a));
    gauss_legendre()
        .iter()
        .map(|&(x, w)| w * f(m + h * x))
        .sum::<f64>()
        * h
}

/// Splits [a, b] until the two halves agree with the whole to `tol`
/// (absolute; not halved with the halves: rounding sets a floor) or the
/// depth runs out.
fn adapt(f: &dyn Fn(f64) -> f64, a: f64, b: f64, whole: f64, tol: f64, depth: u32) -> f64 {
    let m = 0.5 * (a + b);
    let (l, r) = (gl(f, a, m), gl(f, m, b));
    if depth == 0 || (l + r - whole).abs() <= tol {
        l + r
    } else {
        adapt(f, a, m, l, tol, depth - 1) + adapt(f, m, b, r, tol, depth - 1)
    }
}

/// ∫ f over [lo, hi] where f is analytic inside and may behave like a
/// half-integer power at the ends: z = m − h cos θ, θ ∈ [0, π].
fn smooth_integral(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64, tol: f64) -> f64 {
    let (m, h) = (0.5 * (lo + hi), 0.5 * (hi - lo));
    let g = |th: f64| f(m - h * th.cos()) * h * th.sin();
    let whole = gl(&g, 0.0, PI);
    adapt(&g, 0.0, PI, whole, tol, 12)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_legendre_integrates_polynomials() {
        let f = |x: f64| x.powi(30) + 3.0 * x.powi(7);
        let want = 2.0 / 31.0;
        assert!((gl(&f, -1.0, 1.0) - want).abs() < 1e-15);
        let w: f64 = gauss_legendre().iter().map(|p| p.1).sum();
        assert!((w - 2.0).abs() < 1e-14);
    }

    #[test]
    fn quadrant_and_rectangle_areas() {
        let rho = 1.3;
        assert!((quadrant_area(5.0, 5.0, rho) - PI * rho * rho).abs() < 1e-14);
        assert!((quadrant_area(0.0, 0.0, rho) - PI * rho * rho / 4.0).abs() < 1e-14);
        assert!((quadrant_area(0.0, 5.0, rho) - PI * rho * rho / 2.0).abs() < 1e-14);
        // a rectangle cutting a half disc: brute force
        let (c, x, y) = ([0.2, -0.1], [-0.5, 1.7], [0.3, 0.9]);
        let n = 2000;
        let mut s = 0.0;
        for i in 0..n {
            for j in 0..n {
                let px = x[0] + (x[1] - x[0]) * (i as f64 + 0.5) / n as f64;
                let py = y[0] + (y[1] - y[0]) * (j as f64 + 0.5) / n as f64;
                if (px - c[0]).powi(2) + (py - c[1]).powi(2) <= 0.8 * 0.8 {
                    s += 1.0;
                }
            }
        }
        let brute = s * (x[1] - x[0]) * (y[1] - y[0]) / (n * n) as f64;
        assert!((disc_in_rect(c, 0.8, x, y) - brute).abs() < 2e-4, "{brute}");
    }
}
