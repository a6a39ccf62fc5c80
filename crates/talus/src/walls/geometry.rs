//! The gap between a sphere centre and a wall primitive (CPU, f64; the
//! GPU's twin is `wall_gap` in `shaders/walls.wgsl`, the same arithmetic
//! in the same order). Positions are in the wall's body frame (its pose at
//! time 0); a moving wall's pose maps a particle there first
//! (`walls::motion`).

use super::primitive::{Kind, Primitive};
use glam::DVec3;

/// Which feature of a primitive is closest to the centre. Analytic
/// surfaces are smooth (`Face`); a triangle's closest point may be inside
/// it, on an edge or at a vertex (what the mesh's contact reduction reads:
/// docs/ARCHITECTURE.md, "Walls").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Feature {
    Face = 0,
    Edge = 1,
    Vertex = 2,
}

/// What [`gap`] finds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallGap {
    /// The distance from the centre along the contact normal. A sphere of
    /// radius r touches the primitive when it is below r; the overlap is r
    /// − dist. The neighbour list lists a primitive for a particle when it
    /// is below r + skin.
    pub dist: f64,
    /// Unit, from the particle toward the wall.
    pub normal: [f64; 3],
    pub feature: Feature,
}

/// The gap between centre `x` (body frame) and primitive `p`.
///
/// - Plane: the signed distance (x − a)·n, normal −n.
/// - Cylinder and cone (lateral surface, [`cone_gap`]): signed on the
///   particles' side where the closest point is inside the surface,
///   unsigned to the nearest rim point past a finite one's ends.
/// - Triangle ([`triangle_gap`]): the distance to the closest point of the
///   triangle (face, edge or vertex); a one-sided triangle seen from
///   behind is never near (`f64::INFINITY`).
#[inline]
pub fn gap(p: &Primitive, x: [f64; 3]) -> WallGap {
    match p.kind {
        Kind::Plane => {
            // (x − a)·n, summed x, y, z in that order as the GPU's dot
            let n = DVec3::new(p.b[0], p.b[1], p.b[2]);
            let dist = (DVec3::from_array(x) - DVec3::new(p.a[0], p.a[1], p.a[2])).dot(n);
            WallGap {
                dist,
                normal: (-n).to_array(),
                feature: Feature::Face,
            }
        }
        Kind::Cylinder | Kind::Cone => cone_gap(p, DVec3::from_array(x)),
        Kind::Triangle => triangle_gap(p, DVec3::from_array(x), p.a[3] == 1.0),
    }
}

/// Whether point `c` lies within `tol` of primitive `p`: for a triangle,
/// its (two-sided) distance to the closest point of the triangle, whatever
/// the triangle's sidedness; for the other kinds |[`gap`]`.dist`|. What the
/// mesh's contact reduction asks of a contact point found on another
/// triangle. GPU twin: `on_triangle` in `shaders/walls.wgsl`.
pub fn on_triangle(p: &Primitive, c: [f64; 3], tol: f64) -> bool {
    let d = match p.kind {
        Kind::Triangle => triangle_gap(p, DVec3::from_array(c), false).dist,
        _ => gap(p, c).dist.abs(),
    };
    d <= tol
}

/// A fixed unit vector perpendicular to unit `u`: u × x̂ normalised, or
/// u × ŷ when u is within ~25° of x (|u.x| ≥ 0.9). The radial direction a
/// cylinder or cone uses for a centre on its axis (ρ = 0).
pub fn perpendicular(u: DVec3) -> DVec3 {
    let w = if u.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
    let v = u.cross(w);
    v / v.length()
}

/// The gap to the lateral surface of a cylinder or cone (a cylinder is a
/// cone with equal radii; `a.w < 0` an infinite one). In the half-plane of
/// the centre, with s its coordinate along the axis from `a.xyz` and ρ its
/// distance from the axis, the surface is the generatrix segment from
/// (0, r0) to (L, r1) (infinite: the line ρ = r0). Let τ be the parameter
/// of the centre's foot on the generatrix' line (s·L + (ρ − r0)(r1 − r0)) /
/// |(L, r1 − r0)|², for a cylinder s / L.
///
/// - 0 ≤ τ ≤ 1 (always for an infinite one; for a cylinder the axial range
///   0 ≤ s ≤ L): the perpendicular distance to the generatrix, signed
///   positive on the particles' side (inside, `b.w > 0`: toward the axis,
///   R − ρ for a cylinder; outside, `b.w < 0`: away from it); normal the
///   surface normal toward the wall (inside a cylinder +radial).
/// - τ < 0 or τ > 1 (past a finite one's rim): the unsigned distance to
///   the rim circle's nearest point, normal toward it (the face normal if
///   the centre is on the rim).
///
/// The distance is continuous across τ = 0 and 1 on the particles' side
/// (both equal the distance to the rim point there); behind the surface
/// it changes sign there (a centre that has gone through the wall past
/// the rim is taken as being beyond the end). At ρ = 0 the radial
/// direction is [`perpendicular`]`(axis)`. Feature: always `Face`.
pub fn cone_gap(p: &Primitive, x: DVec3) -> WallGap {
    let a = DVec3::new(p.a[0], p.a[1], p.a[2]);
    let u = DVec3::new(p.b[0], p.b[1], p.b[2]);
    let (len, side, r0) = (p.a[3], p.b[3], p.c[0]);
    let d = x - a;
    let s = d.dot(u);
    let radial = d - u * s;
    let rho = radial.length();
    let e = if rho > 0.0 {
        radial / rho
    } else {
        perpendicular(u)
    };
    let infinite = len < 0.0;
    // the generatrix' direction in (s, ρ), its length and outward normal
    let (gs, gr) = if infinite {
        (1.0, 0.0)
    } else {
        (len, p.c[1] - r0)
    };
    let g2 = gs * gs + gr * gr;
    let glen = g2.sqrt();
    let face_normal = (u * (-gr / glen) + e * (gs / glen)) * side;
    let tau = if infinite {
        0.5
    } else {
        (s * gs + (rho - r0) * gr) / g2
    };
    if (0.0..=1.0).contains(&tau) {
        let dperp = (s * gr - (rho - r0) * gs) / glen;
        return WallGap {
            dist: side * dperp,
            normal: face_normal.to_array(),
            feature: Feature::Face,
        };
    }
    let (sr, rr) = if tau < 0.0 { (0.0, r0) } else { (len, p.c[1]) };
    let ds = sr - s;
    let dr = rr - rho;
    let dist = (ds * ds + dr * dr).sqrt();
    let normal = if dist > 0.0 {
        (u * ds + e * dr) / dist
    } else {
        face_normal
    };
    WallGap {
        dist,
        normal: normal.to_array(),
        feature: Feature::Face,
    }
}

/// The gap to a triangle (vertices `a`, `b`, `c` of `p`): the closest
/// point q of the triangle by its Voronoi regions (Ericson, *Real-Time
/// Collision Detection* §5.1.5: vertex, edge or face, reported in
/// `feature`); dist = |x − q| (in the face region computed as |(x − a)·n̂|,
/// the same value better conditioned), normal (q − x)/dist. When x lies on
/// the triangle (dist = 0) the normal is −n̂ (n̂ = (b − a) × (c − a)
/// normalised, flipped to n̂ when x is behind). One-sided and x behind the
/// triangle's plane ((x − a)·n̂ < 0): dist = `f64::INFINITY` (the GPU's
/// 3.0e38), normal −n̂, `Face`.
pub fn triangle_gap(p: &Primitive, x: DVec3, one_sided: bool) -> WallGap {
    let a = DVec3::new(p.a[0], p.a[1], p.a[2]);
    let b = DVec3::new(p.b[0], p.b[1], p.b[2]);
    let c = DVec3::new(p.c[0], p.c[1], p.c[2]);
    let ab = b - a;
    let ac = c - a;
    let ap = x - a;
    let nc = ab.cross(ac);
    let n = nc / nc.length();
    let sd = ap.dot(n);
    if one_sided && sd < 0.0 {
        return WallGap {
            dist: f64::INFINITY,
            normal: (-n).to_array(),
            feature: Feature::Face,
        };
    }
    let face_normal = if sd >= 0.0 { -n } else { n };
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    let bp = x - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    let cp = x - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    let vc = d1 * d4 - d3 * d2;
    let vb = d5 * d2 - d1 * d6;
    let va = d3 * d6 - d5 * d4;
    let (q, feature) = if d1 <= 0.0 && d2 <= 0.0 {
        (a, Feature::Vertex)
    } else if d3 >= 0.0 && d4 <= d3 {
        (b, Feature::Vertex)
    } else if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        (a + ab * (d1 / (d1 - d3)), Feature::Edge)
    } else if d6 >= 0.0 && d5 <= d6 {
        (c, Feature::Vertex)
    } else if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        (a + ac * (d2 / (d2 - d6)), Feature::Edge)
    } else if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        (b + (c - b) * w, Feature::Edge)
    } else {
        return WallGap {
            dist: sd.abs(),
            normal: face_normal.to_array(),
            feature: Feature::Face,
        };
    };
    let diff = q - x;
    let dist = diff.length();
    let normal = if dist > 0.0 { diff / dist } else { face_normal };
    WallGap {
        dist,
        normal: normal.to_array(),
        feature,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cyl(len: f64, r0: f64, r1: f64, side: f64) -> Primitive {
        // axis along z from (1, 2, 3)
        Primitive {
            kind: if r0 == r1 { Kind::Cylinder } else { Kind::Cone },
            material: 0,
            wall: 0,
            a: [1.0, 2.0, 3.0, len],
            b: [0.0, 0.0, 1.0, side],
            c: [r0, r1, 0.0, 0.0],
        }
    }

    fn tri(one_sided: bool) -> Primitive {
        Primitive {
            kind: Kind::Triangle,
            material: 0,
            wall: 0,
            a: [0.0, 0.0, 0.0, if one_sided { 1.0 } else { 0.0 }],
            b: [1.0, 0.0, 0.0, 0.0],
            c: [0.0, 1.0, 0.0, 0.0],
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn close3(a: [f64; 3], b: [f64; 3]) -> bool {
        (0..3).all(|k| close(a[k], b[k]))
    }

    #[test]
    fn cylinder_inside_and_outside() {
        for len in [-1.0, 4.0] {
            let g = gap(&cyl(len, 2.0, 2.0, 1.0), [1.5, 2.0, 4.0]);
            assert!(close(g.dist, 1.5), "{g:?}");
            assert!(close3(g.normal, [1.0, 0.0, 0.0]));
            assert_eq!(g.feature, Feature::Face);
            // behind the wall: negative
            let g = gap(&cyl(len, 2.0, 2.0, 1.0), [1.0, 5.0, 4.0]);
            assert!(close(g.dist, -1.0) && close3(g.normal, [0.0, 1.0, 0.0]));
            let g = gap(&cyl(len, 2.0, 2.0, -1.0), [1.0, 5.0, 4.0]);
            assert!(close(g.dist, 1.0) && close3(g.normal, [0.0, -1.0, 0.0]));
        }
        // infinite: far along the axis still the face
        let g = gap(&cyl(-1.0, 2.0, 2.0, 1.0), [1.5, 2.0, -100.0]);
        assert!(close(g.dist, 1.5));
        // finite, beyond the end: the rim point
        let g = gap(&cyl(4.0, 2.0, 2.0, 1.0), [2.0, 2.0, 10.0]);
        assert!(close(g.dist, (1.0f64 + 9.0).sqrt()), "{g:?}");
        let n = [1.0 / 10f64.sqrt(), 0.0, -3.0 / 10f64.sqrt()];
        assert!(close3(g.normal, n), "{g:?}");
        let g = gap(&cyl(4.0, 2.0, 2.0, 1.0), [1.0, 0.5, 1.0]);
        assert!(close(g.dist, (0.25f64 + 4.0).sqrt()), "{g:?}");
        // on the axis: a fixed perpendicular, dist R
        let g = gap(&cyl(4.0, 2.0, 2.0, 1.0), [1.0, 2.0, 5.0]);
        assert!(close(g.dist, 2.0));
        let e = perpendicular(DVec3::Z).to_array();
        assert!(close3(g.normal, e) && close(e[2], 0.0) && close(DVec3::from(e).length(), 1.0));
    }

    #[test]
    fn cylinder_is_continuous_at_the_ends() {
        let p = cyl(4.0, 2.0, 2.0, 1.0);
        for (rho, s) in [(1.0, 0.0), (0.3, 4.0), (1.9, 0.0)] {
            let a = gap(&p, [1.0 + rho, 2.0, 3.0 + s - 1e-9]);
            let b = gap(&p, [1.0 + rho, 2.0, 3.0 + s + 1e-9]);
            assert!((a.dist - b.dist).abs() < 1e-8, "{a:?} {b:?}");
        }
    }

    #[test]
    fn cone_known_values() {
        // a hopper: radius 2 at s = 0 down to 1 at s = 1 (45°), inside
        let p = cyl(1.0, 2.0, 1.0, 1.0);
        let h = 0.5f64.sqrt();
        // on the axis at s = 0.5 the foot on the generatrix' line is past
        // the narrow end (τ = 1.25): the rim (s, ρ) = (1, 1)
        let g = gap(&p, [1.0, 2.0, 3.5]);
        assert!(close(g.dist, 1.25f64.sqrt()), "{g:?}");
        let e = perpendicular(DVec3::Z);
        let n = ((DVec3::Z * 0.5 + e) / 1.25f64.sqrt()).to_array();
        assert!(close3(g.normal, n), "{g:?}");
        // off the axis along +x: foot inside the segment
        let g = gap(&p, [2.0, 2.0, 3.5]);
        assert!(
            close(g.dist, 0.5 * h) && close3(g.normal, [h, 0.0, h]),
            "{g:?}"
        );
        // outside cone: the opposite sign and normal
        let q = cyl(1.0, 2.0, 1.0, -1.0);
        let g = gap(&q, [2.0, 2.0, 3.5]);
        assert!(
            close(g.dist, -0.5 * h) && close3(g.normal, [-h, 0.0, -h]),
            "{g:?}"
        );
        // past the narrow end: the rim (ρ = 1, s = 1)
        let g = gap(&p, [1.5, 2.0, 5.0]);
        assert!(close(g.dist, 1.25f64.sqrt()), "{g:?}");
        // continuous where the foot leaves the segment (τ = 0 from inside)
        let p0 = [1.0 + 2.0 - 0.5, 2.0, 3.0 + 0.5];
        let g = gap(&p, [p0[0] + 0.5, p0[1], p0[2] - 0.5]); // on the rim
        assert!(close(g.dist, 0.0));
        let above = gap(&p, [2.2, 2.0, 3.0 - 0.8 + 1e-9]);
        let below = gap(&p, [2.2, 2.0, 3.0 - 0.8 - 1e-9]);
        assert!(
            (above.dist - below.dist).abs() < 1e-8,
            "{above:?} {below:?}"
        );
    }

    #[test]
    fn triangle_regions() {
        let p = tri(false);
        let g = gap(&p, [0.2, 0.3, 0.5]);
        assert!(close(g.dist, 0.5) && close3(g.normal, [0.0, 0.0, -1.0]));
        assert_eq!(g.feature, Feature::Face);
        let g = gap(&p, [0.2, 0.3, -0.5]);
        assert!(close(g.dist, 0.5) && close3(g.normal, [0.0, 0.0, 1.0]));
        // edge AB (y < 0)
        let g = gap(&p, [0.5, -0.3, 0.4]);
        assert!(close(g.dist, 0.5) && g.feature == Feature::Edge, "{g:?}");
        assert!(close3(g.normal, [0.0, 0.6, -0.8]));
        // edge BC (x + y > 1)
        let g = gap(&p, [1.0, 1.0, 0.0]);
        assert!(close(g.dist, 0.5f64.sqrt()) && g.feature == Feature::Edge);
        // edge AC
        let g = gap(&p, [-1.0, 0.5, 0.0]);
        assert!(close(g.dist, 1.0) && g.feature == Feature::Edge);
        // vertices
        for (x, d) in [
            ([-1.0, -1.0, 0.0], 2f64.sqrt()),
            ([2.0, -1.0, 1.0], 3f64.sqrt()),
            ([-0.5, 2.0, 0.0], 1.25f64.sqrt()),
        ] {
            let g = gap(&p, x);
            assert!(
                close(g.dist, d) && g.feature == Feature::Vertex,
                "{x:?} {g:?}"
            );
        }
        // on it: the face normal, no NaN
        let g = gap(&p, [0.2, 0.2, 0.0]);
        assert!(g.dist == 0.0 && close3(g.normal, [0.0, 0.0, -1.0]));
        let g = gap(&p, [0.5, 0.0, 0.0]);
        assert!(g.dist == 0.0 && close3(g.normal, [0.0, 0.0, -1.0]));
        // one-sided: behind is never near, in front as two-sided
        let q = tri(true);
        assert_eq!(gap(&q, [0.2, 0.3, -0.01]).dist, f64::INFINITY);
        assert_eq!(gap(&q, [2.0, 2.0, -0.01]).dist, f64::INFINITY);
        assert_eq!(gap(&q, [0.2, 0.3, 0.5]), gap(&p, [0.2, 0.3, 0.5]));
        // on_triangle ignores sidedness
        assert!(on_triangle(&q, [0.2, 0.3, -0.01], 0.02));
        assert!(!on_triangle(&q, [0.2, 0.3, -0.03], 0.02));
        assert!(on_triangle(&p, [1.01, 0.0, 0.0], 0.02));
        assert!(!on_triangle(&p, [0.6, 0.6, 0.0], 0.05));
    }
}
