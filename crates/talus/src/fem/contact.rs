//! Node-to-plane penalty contact of FEM bodies with rigid planes, with
//! Coulomb friction, after Petocz (1998), chapters 5 and 6.
//!
//! Gap g = (x − p)·n (m, negative when the node penetrates), penalty
//! potential U(g) = ½ κ g² for g < 0 (J), κ in N/m per node.
//!
//! - Explicit: normal force κ(−g) n; U is stored contact energy.
//! - Energy–momentum (mid-point): the normal force is the discrete
//!   gradient t = −[U(g₁) − U(g₀)]/(g₁ − g₀) (U′ at the mid gap when
//!   g₁ ≈ g₀), so its work over a step is exactly −ΔU and the energy taken
//!   during contact is given back at release (Petocz eq. 5.9). For a rigid
//!   plane with a fixed normal, Petocz's dynamic gap (eq. 5.18,
//!   g_{n+1} = g_n + n·(x_{n+1} − x_n)) coincides with the real gap, as it
//!   does in 1-D (Remark 5.5), so the real gap is used. Optional controlled
//!   dissipation (eq. 5.47): in persistent contact (g₀, g₁ < 0)
//!   t = −κ(ϑ g₁ + (1−ϑ) g₀), ϑ ≥ ½, dissipating κ(ϑ−½)(g₁−g₀)² per step;
//!   ϑ = ½ is the energy-restoring scheme. The gap-velocity penalty of
//!   §5.3 is not implemented.
//! - Friction (ch. 6): a stick point (anchor) a is set where contact
//!   starts; the trial tangential force is the tangential penalty κ_t on
//!   the slip from the anchor, evaluated at the mid-point,
//!   −κ_t P(x_{n+½} − a) with P = I − n⊗n; beyond the cone μ t it is
//!   returned onto it and the anchor moves so that the spring carries the
//!   returned force. The spring's energy ½κ_t|P(x − a)|² is part of the
//!   contact energy; the slip dissipation (always ≥ 0) and the spring
//!   energy left at release are counted as dissipated.

use glam::{DMat3, DVec3};

use super::mesh::outer;

/// A rigid plane the body's nodes cannot pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidPlane {
    /// A point on the plane (m).
    pub point: DVec3,
    /// Unit normal pointing toward the body (the allowed side).
    pub normal: DVec3,
    /// Normal penalty stiffness κ (N/m per node).
    pub stiffness: f64,
    /// Coulomb friction coefficient μ (0 = frictionless).
    pub friction: f64,
    /// Tangential penalty stiffness κ_t of the stick spring (N/m per node).
    pub tangential_stiffness: f64,
    /// Controlled dissipation ϑ ≥ ½ of the energy–momentum contact force in
    /// persistent contact (Petocz eq. 5.47); ½ restores the energy exactly.
    pub theta: f64,
}

impl RigidPlane {
    /// A frictionless, energy-restoring plane through `point` with unit
    /// `normal` (normalised here) toward the body and penalty `stiffness`
    /// (N/m per node); κ_t = κ, ϑ = ½.
    pub fn new(point: DVec3, normal: DVec3, stiffness: f64) -> RigidPlane {
        RigidPlane {
            point,
            normal: normal.normalize(),
            stiffness,
            friction: 0.0,
            tangential_stiffness: stiffness,
            theta: 0.5,
        }
    }

    /// The same plane with Coulomb friction `mu`.
    pub fn with_friction(mut self, mu: f64) -> RigidPlane {
        self.friction = mu;
        self
    }

    /// Gap g = (x − p)·n (m) of a node at `x`: negative when penetrating.
    pub fn gap(&self, x: DVec3) -> f64 {
        (x - self.point).dot(self.normal)
    }

    /// Penalty potential U(g) = ½ κ g² for g < 0, else 0 (J).
    pub fn potential(&self, g: f64) -> f64 {
        if g < 0.0 {
            0.5 * self.stiffness * g * g
        } else {
            0.0
        }
    }

    /// Tangential projector P = I − n⊗n.
    pub fn projector(&self) -> DMat3 {
        DMat3::IDENTITY - outer(self.normal, self.normal)
    }

    /// Energy (J) stored in the stick spring of a node at `x` with anchor
    /// `anchor` (NaN anchor: none).
    pub fn spring_energy(&self, x: DVec3, anchor: DVec3) -> f64 {
        if anchor.is_nan() || self.friction <= 0.0 {
            return 0.0;
        }
        let s = self.projector() * (x - anchor);
        0.5 * self.tangential_stiffness * s.length_squared()
    }

    /// Total contact energy stored at a node: penalty + stick spring (J).
    pub fn stored_energy(&self, x: DVec3, anchor: DVec3) -> f64 {
        self.potential(self.gap(x)) + self.spring_energy(x, anchor)
    }

    /// Explicit contact force on a node at `x` (N): κ(−g)n plus the
    /// friction force. `anchor` is the node's stick point (NaN: none) and
    /// is updated (set where contact starts, moved on slip, cleared at
    /// release). Returns the force and the energy dissipated by slip or
    /// lost from the spring at release (J, ≥ 0).
    pub fn explicit_force(&self, x: DVec3, anchor: &mut DVec3) -> (DVec3, f64) {
        let g = self.gap(x);
        if g >= 0.0 {
            let lost = self.spring_energy(x, *anchor);
            *anchor = DVec3::NAN;
            return (DVec3::ZERO, lost);
        }
        let fnorm = self.stiffness * (-g);
        let mut f = fnorm * self.normal;
        let mut diss = 0.0;
        if self.friction > 0.0 {
            if anchor.is_nan() {
                *anchor = x;
            }
            let kt = self.tangential_stiffness;
            let trial = -kt * (self.projector() * (x - *anchor));
            let r = self.friction * fnorm;
            let tl = trial.length();
            if tl <= r {
                f += trial;
            } else {
                let ft = trial * (r / tl);
                diss = (tl * tl - r * r) / (2.0 * kt);
                *anchor = x + ft / kt;
                f += ft;
            }
        }
        (f, diss)
    }
}

/// One node's mid-point contact with one plane over a step.
#[derive(Debug, Clone, Copy)]
pub struct MidContact {
    /// Algorithmic contact force on the node (N).
    pub force: DVec3,
    /// ∂force/∂x_{n+1} (N/m), for the Newton tangent.
    pub tangent: DMat3,
    /// Anchor after the step (NaN: none).
    pub anchor: DVec3,
    /// Energy dissipated over the step (J, ≥ 0): controlled normal
    /// dissipation, friction slip, spring energy lost at release.
    pub dissipated: f64,
}

impl RigidPlane {
    /// Mid-point (energy–momentum) contact of a node moving from `x0` to
    /// `x1` with stick point `anchor` at the start of the step (NaN: none).
    pub fn midpoint(&self, x0: DVec3, x1: DVec3, anchor: DVec3) -> MidContact {
        let n = self.normal;
        let k = self.stiffness;
        let (g0, g1) = (self.gap(x0), self.gap(x1));
        let mut out = MidContact {
            force: DVec3::ZERO,
            tangent: DMat3::ZERO,
            anchor: DVec3::NAN,
            dissipated: 0.0,
        };
        if g0 >= 0.0 && g1 >= 0.0 {
            out.dissipated = self.spring_energy(x0, anchor);
            return out;
        }
        // Normal pressure t (N, > 0 pushes along n) and dt/dg1.
        let (t, dtdg) = if g0 < 0.0 && g1 < 0.0 && self.theta != 0.5 {
            out.dissipated += k * (self.theta - 0.5) * (g1 - g0).powi(2);
            (
                -k * (self.theta * g1 + (1.0 - self.theta) * g0),
                -k * self.theta,
            )
        } else {
            let (u0, u1) = (self.potential(g0), self.potential(g1));
            let dg = g1 - g0;
            if dg.abs() > 1e-12 * (g0.abs() + g1.abs()) && dg != 0.0 {
                let du1 = if g1 < 0.0 { k * g1 } else { 0.0 };
                (-(u1 - u0) / dg, -(du1 * dg - (u1 - u0)) / (dg * dg))
            } else {
                let gm = 0.5 * (g0 + g1);
                if gm < 0.0 {
                    (-k * gm, -0.5 * k)
                } else {
                    (0.0, 0.0)
                }
            }
        };
        out.force = t * n;
        out.tangent = dtdg * outer(n, n);
        if self.friction > 0.0 {
            let kt = self.tangential_stiffness;
            let a = if anchor.is_nan() { x0 } else { anchor };
            let p = self.projector();
            let w0 = 0.5 * kt * (p * (x0 - a)).length_squared();
            let xm = 0.5 * (x0 + x1);
            let trial = -kt * (p * (xm - a));
            let r = self.friction * t.max(0.0);
            let tl = trial.length();
            let (ft, a1) = if tl <= r {
                out.tangent -= 0.5 * kt * p;
                (trial, a)
            } else {
                let dir = trial / tl;
                let ft = r * dir;
                if t > 0.0 {
                    out.tangent += self.friction * dtdg * outer(dir, n);
                }
                out.tangent -= (r * kt / (2.0 * tl)) * ((DMat3::IDENTITY - outer(dir, dir)) * p);
                (ft, x1 + ft / kt)
            };
            let w1 = 0.5 * kt * (p * (x1 - a1)).length_squared();
            out.force += ft;
            if tl > r {
                out.dissipated += -ft.dot(x1 - x0) - (w1 - w0);
            }
            if g1 >= 0.0 {
                // Released: the spring's energy is lost.
                out.dissipated += w1;
            } else {
                out.anchor = a1;
            }
        }
        out
    }
}
