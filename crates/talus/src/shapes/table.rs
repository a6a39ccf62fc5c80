//! The scene's shapes as the engine uses them: each `[[shapes]]` entry's
//! members in its principal frame, with its mass properties at unit
//! density. A clump's orientation `q` turns the principal frame into the
//! world; the orientation a user writes (`[[particles]]` `qw..qz`,
//! `[[insert]] orientation`, `final.csv`) turns the shape's frame *as
//! written* into the world: `q = q_written · frame`.
//!
//! Sphere-list shapes take the union's properties ([`super::mass`]);
//! mesh-filled shapes the solid's, exact ([`super::fill`]): the filling
//! spheres carry the contacts, the solid the mass (at 24 spheres the
//! union's inertia is off by ~6 %, the solid's is the grain's). The scene
//! resolves each `[[shapes]]` entry into one (`ClumpShape::body`).

use super::mass::MassProperties;
use glam::{DMat3, DQuat, DVec3};

/// One shape, ready to move.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub name: String,
    /// Members: offset from the centre of mass in the principal frame
    /// (m), radius (m), in the order written.
    pub members: Vec<[f64; 4]>,
    /// The principal frame in the written one (principal → written).
    pub frame: DQuat,
    /// The centre of mass in the written frame (m).
    pub centre: DVec3,
    /// Volume (m³) and principal moments at unit density (m⁵; × density:
    /// kg m²).
    pub volume: f64,
    pub moments: DVec3,
    /// The farthest member surface from the centre (m).
    pub reach: f64,
    /// The largest member radius (m): what the grid and the time step
    /// see of the shape, and the `radius` column of its CSV rows.
    pub max_radius: f64,
}

impl Shape {
    /// The shape of `spheres` (x, y, z, radius in the frame as written)
    /// whose body has the mass properties `props` (unit density: the
    /// union's, [`mass::union_of_spheres`], or a filled mesh's solid,
    /// [`super::fill::Filled::solid`]).
    pub fn new(name: &str, spheres: &[[f64; 4]], props: &MassProperties) -> Shape {
        let (axes, moments) = principal(props.inertia);
        let frame = DQuat::from_mat3(&axes).normalize();
        let inv = frame.inverse();
        let members: Vec<[f64; 4]> = spheres
            .iter()
            .map(|s| {
                let b = inv * (DVec3::new(s[0], s[1], s[2]) - props.centre);
                [b.x, b.y, b.z, s[3]]
            })
            .collect();
        let reach = members
            .iter()
            .map(|m| DVec3::new(m[0], m[1], m[2]).length() + m[3])
            .fold(0.0, f64::max);
        let max_radius = members.iter().map(|m| m[3]).fold(0.0, f64::max);
        Shape {
            name: name.to_string(),
            members,
            frame,
            centre: props.centre,
            volume: props.volume,
            moments,
            reach,
            max_radius,
        }
    }

    /// The members' centres and radii in the world for a clump at `x`
    /// with engine orientation `q`.
    pub fn members_at(&self, x: DVec3, q: DQuat) -> impl Iterator<Item = [f64; 4]> + '_ {
        self.members.iter().map(move |m| {
            let c = x + q * DVec3::new(m[0], m[1], m[2]);
            [c.x, c.y, c.z, m[3]]
        })
    }

    /// The orientation a clump of this shape has in the engine (principal
    /// frame to world) for `written` (the shape's frame as written to
    /// world, unit).
    pub fn engine_orientation(&self, written: DQuat) -> DQuat {
        (written * self.frame).normalize()
    }

    /// The orientation as written for the engine's `q` (inverse of
    /// [`Shape::engine_orientation`]).
    pub fn written_orientation(&self, q: DQuat) -> DQuat {
        (q * self.frame.inverse()).normalize()
    }
}

/// A written orientation [w, x, y, z] as a unit quaternion.
pub fn written(o: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(o[1], o[2], o[3], o[0]).normalize()
}

/// A unit quaternion as written, [w, x, y, z], with w ≥ 0.
pub fn as_written(q: DQuat) -> [f64; 4] {
    let q = if q.w < 0.0 { -q } else { q };
    [q.w, q.x, q.y, q.z]
}

/// The principal axes (columns, a right-handed rotation) and moments of a
/// symmetric tensor, by cyclic Jacobi rotations (to rounding: ~6 sweeps),
/// moments in ascending order.
pub fn principal(t: DMat3) -> (DMat3, DVec3) {
    let mut a = [[0.0f64; 3]; 3];
    for (c, col) in a.iter_mut().enumerate() {
        for (r, x) in col.iter_mut().enumerate() {
            *x = 0.5 * (t.col(c)[r] + t.col(r)[c]);
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= 1e-300 || off <= f64::EPSILON * 1e-3 * scale {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // the rotation in the (p, q) plane that zeroes a[p][q]
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (ap, aq) = (a[p], a[q]);
            for k in 0..3 {
                a[p][k] = c * ap[k] - s * aq[k];
                a[q][k] = s * ap[k] + c * aq[k];
            }
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let mut idx = [0usize, 1, 2];
    idx.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let col = |k: usize| DVec3::new(v[0][k], v[1][k], v[2][k]);
    let (e0, e1) = (col(idx[0]), col(idx[1]));
    // right-handed: the third axis is the cross product of the first two
    let axes = DMat3::from_cols(e0, e1, e0.cross(e1));
    (
        axes,
        DVec3::new(a[idx[0]][idx[0]], a[idx[1]][idx[1]], a[idx[2]][idx[2]]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principal_axes_diagonalise_a_rotated_tensor() {
        let d = DMat3::from_diagonal(DVec3::new(1.0, 2.5, 4.0));
        let r = DMat3::from_quat(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
        let t = r * d * r.transpose();
        let (axes, m) = principal(t);
        assert!(
            (m - DVec3::new(1.0, 2.5, 4.0)).abs().max_element() < 1e-12,
            "{m}"
        );
        assert!((axes.determinant() - 1.0).abs() < 1e-12);
        let back = axes.transpose() * t * axes;
        for c in 0..3 {
            for r in 0..3 {
                let want = if c == r { m[c] } else { 0.0 };
                assert!((back.col(c)[r] - want).abs() < 1e-12, "{back}");
            }
        }
    }

    #[test]
    fn a_dumbbell_along_y_has_its_long_axis_first_and_its_centre_moved() {
        let spheres = [[0.0, 0.0, 0.0, 1e-3], [0.0, 3e-3, 0.0, 1e-3]];
        let props = super::super::mass::union_of_spheres(&spheres, Default::default()).unwrap();
        let s = Shape::new("d", &spheres, &props);
        assert!((s.centre - DVec3::new(0.0, 1.5e-3, 0.0)).length() < 1e-9);
        // smallest moment about the long axis: principal x is written y
        let x_written = s.frame * DVec3::X;
        assert!(x_written.y.abs() > 1.0 - 1e-9, "{x_written}");
        // members in the principal frame: ±1.5 mm along x
        assert!((s.members[0][0].abs() - 1.5e-3).abs() < 1e-12);
        assert!((s.members[0][0] + s.members[1][0]).abs() < 1e-12);
        assert!((s.reach - 2.5e-3).abs() < 1e-12);
        // a written orientation survives the round trip
        let w = DQuat::from_rotation_z(0.7);
        let back = s.written_orientation(s.engine_orientation(w));
        assert!(back.dot(w).abs() > 1.0 - 1e-12);
    }
}
