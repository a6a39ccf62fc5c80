//! A wall's rigid pose in time: where its body frame (its geometry at time
//! 0, what [`super::gap`] reads) is at time t, and how fast each of its
//! points moves. The GPU's twins are `pose_at`, `to_body`, `dir_to_world`
//! and `wall_velocity_at` in `shaders/walls.wgsl` (the same arithmetic in
//! the same order; `WallMotion` and `WallPose` in `src/gpu/layout.rs`).
//!
//! World x = origin + R(angle)(x_body − axis_point), R the rotation about
//! the unit `axis` (right-hand rule, Rodrigues' formula).

use super::primitive::{Kind, Primitive};
use crate::scene::types::WallMotion;
use crate::scene::Domain;
use glam::DVec3;

/// A wall's pose at one time (f64; the GPU's f32 twin is
/// `gpu::layout::WallPose`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Axis point + translation: where the body frame's `axis_point` is.
    pub origin: DVec3,
    /// The rotation's centre in the body frame.
    pub axis_point: DVec3,
    /// Unit rotation axis.
    pub axis: DVec3,
    pub angle: f64,
    /// cos(angle), sin(angle).
    pub cos: f64,
    pub sin: f64,
    /// Translation velocity (servo included).
    pub velocity: DVec3,
    /// Angular velocity vector.
    pub omega: DVec3,
    /// origin − axis_point: the displacement of the axis point.
    pub translation: DVec3,
    /// The pose is not the identity: translation ≠ 0 or angle ≠ 0. When
    /// false the frame maps ([`Pose::to_body`], [`Pose::to_world`],
    /// [`Pose::dir_to_world`]) return their input unchanged, bit for bit,
    /// so a resting wall's results are those of a wall with no pose at all.
    /// (A wall may have velocity while `moving` is false, at the instant
    /// its motion starts: [`Pose::velocity_at`] reads `velocity` and
    /// `omega` whatever `moving` says.)
    pub moving: bool,
}

impl Pose {
    /// The pose of a wall that does not move.
    pub fn identity() -> Pose {
        Pose {
            origin: DVec3::ZERO,
            axis_point: DVec3::ZERO,
            axis: DVec3::Z,
            angle: 0.0,
            cos: 1.0,
            sin: 0.0,
            velocity: DVec3::ZERO,
            omega: DVec3::ZERO,
            translation: DVec3::ZERO,
            moving: false,
        }
    }

    /// R(angle) v (`forward`) or R(−angle) v: v cos ± (u × v) sin +
    /// u (u·v)(1 − cos).
    #[inline]
    fn rotate(&self, v: DVec3, forward: bool) -> DVec3 {
        let u = self.axis;
        let s = if forward { self.sin } else { -self.sin };
        v * self.cos + u.cross(v) * s + u * (u.dot(v) * (1.0 - self.cos))
    }

    /// World → body frame: axis_point + R(−angle)(x − origin).
    #[inline]
    pub fn to_body(&self, x: DVec3) -> DVec3 {
        if !self.moving {
            return x;
        }
        self.axis_point + self.rotate(x - self.origin, false)
    }

    /// Body → world frame: origin + R(angle)(x_body − axis_point).
    #[inline]
    pub fn to_world(&self, x_body: DVec3) -> DVec3 {
        if !self.moving {
            return x_body;
        }
        self.origin + self.rotate(x_body - self.axis_point, true)
    }

    /// A direction (a gap's normal) from the body frame to the world's:
    /// R(angle) n.
    #[inline]
    pub fn dir_to_world(&self, n: DVec3) -> DVec3 {
        if !self.moving {
            return n;
        }
        self.rotate(n, true)
    }

    /// The velocity of the wall's point at world position `c`: velocity +
    /// omega × (c − origin).
    #[inline]
    pub fn velocity_at(&self, c: DVec3) -> DVec3 {
        self.velocity + self.omega.cross(c - self.origin)
    }
}

/// The pose of a wall with prescribed motion `m` (a wall without
/// `[walls.motion]`: `WallMotion::default()`, which rests) at time `t`,
/// plus a servo's displacement `servo_offset` (direction × distance moved)
/// and velocity `servo_velocity` (both zero without a servo). With t' =
/// clamp(t, start, stop) − start, ω_f = 2π frequency and A = direction ×
/// amplitude:
///
/// - angle = angular_velocity · t'
/// - translation = velocity · t' + A sin(ω_f t') + servo_offset
/// - velocity = (velocity + A (ω_f cos(ω_f t')) while start ≤ t < stop,
///   else 0) + servo_velocity
/// - omega = axis · angular_velocity while start ≤ t < stop, else 0
/// - moving = translation ≠ 0 or angle ≠ 0 (a wall with no motion and no
///   servo, or one before its start with the servo at rest: false).
pub fn pose_at(m: &WallMotion, t: f64, servo_offset: DVec3, servo_velocity: DVec3) -> Pose {
    let tp = t.max(m.start).min(m.stop) - m.start;
    let active = t >= m.start && t < m.stop;
    let axis = DVec3::from_array(m.axis);
    let axis_point = DVec3::from_array(m.axis_point);
    let v = DVec3::from_array(m.velocity);
    let (osc, w) = match m.oscillation {
        Some(o) => (
            DVec3::from_array(o.direction) * o.amplitude,
            2.0 * std::f64::consts::PI * o.frequency,
        ),
        None => (DVec3::ZERO, 0.0),
    };
    let angle = m.angular_velocity * tp;
    let translation = v * tp + osc * (w * tp).sin() + servo_offset;
    let own = if active {
        v + osc * (w * (w * tp).cos())
    } else {
        DVec3::ZERO
    };
    let omega = if active {
        axis * m.angular_velocity
    } else {
        DVec3::ZERO
    };
    Pose {
        origin: axis_point + translation,
        axis_point,
        axis,
        angle,
        cos: angle.cos(),
        sin: angle.sin(),
        velocity: own + servo_velocity,
        omega,
        translation,
        moving: translation != DVec3::ZERO || angle != 0.0,
    }
}

/// The largest distance from `axis_point` of any point of a wall (its
/// primitives `prims`, body frame) that can meet particles: a triangle's
/// farthest vertex, a finite cylinder's or cone's farthest rim point; an
/// infinite plane or cylinder reaches the farthest corner of the domain
/// box. A rotation by Δangle moves the wall by at most |Δangle| × reach,
/// so a wall has moved at most |ΔT| + |Δangle| · reach.
pub fn reach(prims: &[Primitive], axis_point: [f64; 3], domain: &Domain) -> f64 {
    let o = DVec3::from_array(axis_point);
    let corners = || {
        (0..8).map(move |k| {
            let c = |i: usize| {
                if k >> i & 1 == 0 {
                    domain.min[i]
                } else {
                    domain.max[i]
                }
            };
            DVec3::new(c(0), c(1), c(2)).distance(o)
        })
    };
    let v = |q: [f64; 4]| DVec3::new(q[0], q[1], q[2]);
    // the farthest point from o of the circle around `centre` (axis u)
    let rim = |centre: DVec3, u: DVec3, r: f64| {
        let d = o - centre;
        let along = d.dot(u);
        let across = (d - u * along).length();
        (along * along + (across + r) * (across + r)).sqrt()
    };
    prims
        .iter()
        .map(|p| match p.kind {
            Kind::Plane => corners().fold(0.0, f64::max),
            Kind::Cylinder | Kind::Cone if p.a[3] < 0.0 => corners().fold(0.0, f64::max),
            Kind::Cylinder | Kind::Cone => {
                let (a, u) = (v(p.a), v(p.b));
                rim(a, u, p.c[0]).max(rim(a + u * p.a[3], u, p.c[1]))
            }
            Kind::Triangle => [p.a, p.b, p.c]
                .iter()
                .map(|q| v(*q).distance(o))
                .fold(0.0, f64::max),
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::types::Oscillation;

    fn close(a: DVec3, b: DVec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn a_resting_wall_is_the_identity_bit_for_bit() {
        let p = pose_at(&WallMotion::default(), 3.7, DVec3::ZERO, DVec3::ZERO);
        assert!(!p.moving);
        let x = DVec3::new(0.1, -2.3, 1e-17);
        assert_eq!(p.to_body(x), x);
        assert_eq!(p.to_world(x), x);
        assert_eq!(p.dir_to_world(x), x);
        assert_eq!(p.velocity_at(x), DVec3::ZERO);
        assert!(!Pose::identity().moving);
    }

    #[test]
    fn rotation_translation_and_oscillation() {
        let m = WallMotion {
            velocity: [1.0, 0.0, 0.0],
            axis_point: [0.0, 1.0, 0.0],
            axis: [0.0, 0.0, 1.0],
            angular_velocity: std::f64::consts::FRAC_PI_2,
            oscillation: Some(Oscillation {
                amplitude: 0.1,
                frequency: 0.25,
                direction: [0.0, 0.0, 1.0],
            }),
            start: 1.0,
            stop: 3.0,
        };
        // before the start: rests
        let p = pose_at(&m, 0.5, DVec3::ZERO, DVec3::ZERO);
        assert!(!p.moving && p.velocity == DVec3::ZERO);
        // t' = 1: a quarter turn, 1 m along x, 0.1 sin(π/2) along z
        let p = pose_at(&m, 2.0, DVec3::ZERO, DVec3::ZERO);
        assert!(p.moving);
        assert!(close(p.translation, DVec3::new(1.0, 0.0, 0.1)));
        let xb = DVec3::new(1.0, 1.0, 0.0); // 1 m from the axis along x
        let xw = p.to_world(xb);
        assert!(close(xw, DVec3::new(1.0, 2.0, 0.1)), "{xw}");
        assert!(close(p.to_body(xw), xb));
        assert!(close(p.dir_to_world(DVec3::X), DVec3::Y));
        // velocity: 1 along x (the oscillation's cos(π/2) = 0) + ω × r
        let v = p.velocity_at(xw);
        assert!(
            close(v, DVec3::new(1.0 - std::f64::consts::FRAC_PI_2, 0.0, 0.0)),
            "{v}"
        );
        // after the stop: the pose at stop, still
        let q = pose_at(&m, 10.0, DVec3::ZERO, DVec3::ZERO);
        assert_eq!(
            q.translation,
            pose_at(&m, 3.0, DVec3::ZERO, DVec3::ZERO).translation
        );
        assert!(q.velocity == DVec3::ZERO && q.omega == DVec3::ZERO);
        // a servo alone moves it
        let s = pose_at(
            &WallMotion::default(),
            0.0,
            DVec3::new(0.0, 0.0, -0.01),
            DVec3::new(0.0, 0.0, -0.1),
        );
        assert!(s.moving && close(s.velocity, DVec3::new(0.0, 0.0, -0.1)));
    }

    #[test]
    fn reach_of_each_kind() {
        let domain = Domain {
            min: [-1.0, -1.0, -1.0],
            max: [1.0, 1.0, 1.0],
            periodic: [false; 3],
        };
        let plane = Primitive::plane([0.0; 3], [0.0, 0.0, 1.0], 0, 0);
        assert!((reach(&[plane], [1.0, 1.0, 1.0], &domain) - 12f64.sqrt()).abs() < 1e-12);
        let cyl = Primitive {
            kind: Kind::Cylinder,
            material: 0,
            wall: 0,
            a: [0.0, 0.0, 0.0, 2.0],
            b: [0.0, 0.0, 1.0, 1.0],
            c: [0.5, 0.5, 0.0, 0.0],
        };
        // from (1, 0, 0): the far rim at (−0.5, 0, 2)
        let r = reach(&[cyl], [1.0, 0.0, 0.0], &domain);
        assert!((r - (1.5f64 * 1.5 + 4.0).sqrt()).abs() < 1e-12, "{r}");
        let tri = Primitive {
            kind: Kind::Triangle,
            a: [0.0, 0.0, 0.0, 0.0],
            b: [3.0, 0.0, 0.0, 0.0],
            c: [0.0, 4.0, 0.0, 0.0],
            ..cyl
        };
        assert_eq!(reach(&[tri, cyl], [0.0; 3], &domain), 4.0);
    }
}
