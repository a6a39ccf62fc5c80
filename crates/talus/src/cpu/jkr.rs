//! The JKR adhesive contact (Johnson, Kendall & Roberts 1971), the CPU
//! twin of `jkr_*` in `shaders/law.wgsl`: what [`super::law`] uses for
//! `[contact] cohesion = "jkr"`, and the closed forms `talus check`, the
//! scene's checks and the tests read.
//!
//! With R* the effective radius, E* the effective modulus and γ the pair's
//! work of adhesion (the pair's `surface_energy`, so that the pull-off force
//! is 1.5 π γ R*), a contact of radius a has
//! - the overlap δ(a) = a²/R* − √(2πγa/E*),
//! - the normal force F(a) = 4E*a³/(3R*) − √(8πγE*a³) (> 0 repulsive): the
//!   Hertz force of radius a less the adhesion's,
//! - the potential Φ(a) = ∫ F dδ = 8E*a⁵/(15R*²) − (4/(3R*)) √(2πγE*)
//!   a^(7/2) + πγa² (Φ(0) = 0).
//!
//! In s = √a and C = √(2πγ/E*): δ = s⁴/R* − C s, F = 4E*s⁶/(3R*) − 2E*C s³
//! and Φ = s⁴ (8E*s⁶/(15R*²) − 4E*C s³/(3R*) + πγ), written so that no
//! power of a below a³ is formed (10 µm powders stay clear of f32's range).
//!
//! The path of a contact:
//! - *Snap-in*: surfaces that touch (δ = 0) jump to a₀ (a₀³ = 2πγR*²/E*,
//!   F = −(4/3)πγR*): the potential drops from 0 to Φ(a₀) = −0.6πγa₀², an
//!   energy released (dissipated) at once.
//! - *Hold*: the contact then follows δ(a) both ways, and holds past
//!   touching while δ > δ_c = −3a_s²/R*, a_s³ = πγR*²/(8E*) (where dδ/da
//!   = 0). The force reaches its most tensile, −1.5πγR* (the pull-off
//!   force), at a_c³ = 9πγR*²/(8E*), δ(a_c) ≈ −1.44 a_s²/R*, and is
//!   −(5/6)πγR* at δ_c.
//! - *Parting*: past δ_c the contact ends; its potential Φ(a_s) =
//!   0.4πγa_s² is released.
//!
//! a(δ) is found by Newton's method on f(s) = s⁴/R* − C s − δ, which is
//! convex and has its minimum δ_c − δ at s_s = √a_s. It starts from the
//! nearer of two points never left of the root, (R*δ⁺)^(1/4) + (R*C)^(1/3)
//! (f there ≥ δ⁺ − δ ≥ 0: good for large overlaps) and s_s + √((δ − δ_c)
//! R*/(6 s_s²)) (where f's quadratic part about s_s reaches zero, every
//! higher derivative being positive: good near δ_c, where the root turns
//! double and Newton from afar would only halve its error a step), so the
//! iterates fall to the root and stay on the branch a ≥ a_s. A fixed
//! [`NEWTON_STEPS`] steps (lanes and the GPU run the same count); the unit
//! test measures what they leave.

use super::lanes::{Mask, L};

/// Newton steps for a(δ) ([`crate::pair::JKR_NEWTON_STEPS`], shared with
/// the GPU).
pub const NEWTON_STEPS: u32 = crate::pair::JKR_NEWTON_STEPS;

/// One pair's JKR constants in lanes: R*, E*, γ, and C = √(2πγ/E*).
#[derive(Debug, Clone, Copy)]
pub struct Jkr<const W: usize> {
    pub r_star: L<W>,
    pub e_star: L<W>,
    pub gamma: L<W>,
    pub c: L<W>,
}

/// A contact's state from [`Jkr::at`].
#[derive(Debug, Clone, Copy)]
pub struct JkrState<const W: usize> {
    /// The contact radius a (m).
    pub a: L<W>,
    /// The Hertz part of the force, 4E*a³/(3R*) (N, ≥ 0), and the
    /// adhesion's pull, √(8πγE*a³) (N, ≥ 0): F = hertz − pull.
    pub hertz: L<W>,
    pub pull: L<W>,
    /// The potential Φ(a) (J).
    pub potential: L<W>,
    /// Where the contact holds: δ > δ_c.
    pub holds: Mask<W>,
}

impl<const W: usize> Jkr<W> {
    #[inline(always)]
    pub fn new(r_star: L<W>, e_star: L<W>, gamma: L<W>) -> Self {
        let c = (L::splat(2.0 * std::f64::consts::PI) * gamma / e_star).sqrt();
        Jkr {
            r_star,
            e_star,
            gamma,
            c,
        }
    }

    /// √a_s, where the contact parts: s_s³ = C R*/4.
    #[inline(always)]
    pub fn s_part(&self) -> L<W> {
        (self.c * self.r_star * L::splat(0.25)).map(f64::cbrt)
    }

    /// δ_c = −3 a_s²/R* (≤ 0): the overlap at which a held contact parts.
    #[inline(always)]
    pub fn delta_part(&self) -> L<W> {
        let s = self.s_part();
        let a = s * s;
        -(L::splat(3.0) * a * a / self.r_star)
    }

    /// The contact at overlap `delta` (on the branch a ≥ a_s; `holds`
    /// false below δ_c, where the rest is meaningless).
    #[inline(always)]
    pub fn at(&self, delta: L<W>) -> JkrState<W> {
        let (r, c, e) = (self.r_star, self.c, self.e_star);
        let k = L::<W>::splat;
        let s_part = self.s_part();
        let d_plus = delta.max(k(0.0));
        // two starts right of the root: the nearer
        let far = (r * d_plus).sqrt().sqrt() + (r * c).map(f64::cbrt);
        let t = ((delta - self.delta_part()).max(k(0.0)) * r / (k(6.0) * s_part * s_part)).sqrt();
        let mut s = far.min(s_part + t);
        for _ in 0..NEWTON_STEPS {
            let s3 = s * s * s;
            let f = s3 * s / r - c * s - delta;
            let fp = k(4.0) * s3 / r - c;
            let next = s - f / fp;
            // only rounding at a double root (δ ≈ δ_c) can step left of
            // a_s (or stand on it, f' = 0), where the root then lies:
            // stay there
            let ahead = super::lanes::and(next.gt(s_part), fp.gt(k(0.0)));
            s = L::select(ahead, next, s_part);
        }
        let s3 = s * s * s;
        let hertz = k(4.0 / 3.0) * e * s3 * s3 / r;
        let pull = k(2.0) * e * c * s3;
        let potential = s
            * s
            * s
            * s
            * (k(8.0 / 15.0) * e * s3 * s3 / (r * r) - k(4.0 / 3.0) * e * c * s3 / r
                + k(std::f64::consts::PI) * self.gamma);
        JkrState {
            a: s * s,
            hertz,
            pull,
            potential,
            holds: delta.gt(self.delta_part()),
        }
    }

    /// The energy released when touching surfaces snap in: −Φ(a₀) =
    /// 0.6 π γ a₀², a₀ = (C R*)^(2/3).
    #[inline(always)]
    pub fn snap_in_loss(&self) -> L<W> {
        let a0 = (self.c * self.r_star).map(|x| x.cbrt() * x.cbrt());
        L::splat(0.6 * std::f64::consts::PI) * self.gamma * a0 * a0
    }

    /// The energy released when a contact parts at δ_c: Φ(a_s) = 0.4 π γ
    /// a_s².
    #[inline(always)]
    pub fn parting_loss(&self) -> L<W> {
        let s = self.s_part();
        let a = s * s;
        L::splat(0.4 * std::f64::consts::PI) * self.gamma * a * a
    }
}

/// One pair's JKR contact on one lane: for `talus check`, the scene's
/// checks and the tests.
#[derive(Debug, Clone, Copy)]
pub struct JkrPair(Jkr<1>);

impl JkrPair {
    /// The pair of effective radius `r_star` (a wall: the particle's
    /// radius), modulus `e_star` and work of adhesion `gamma`.
    pub fn new(r_star: f64, e_star: f64, gamma: f64) -> Self {
        JkrPair(Jkr::new(L([r_star]), L([e_star]), L([gamma])))
    }
    /// The force (N, > 0 repulsive) and potential (J) at overlap `delta`
    /// of a contact that holds (None past δ_c).
    pub fn at(&self, delta: f64) -> Option<(f64, f64)> {
        let s = self.0.at(L([delta]));
        (s.holds[0] != 0).then(|| (s.hertz.0[0] - s.pull.0[0], s.potential.0[0]))
    }
    /// The contact radius at overlap `delta` (≥ δ_c).
    pub fn radius(&self, delta: f64) -> f64 {
        self.0.at(L([delta])).a.0[0]
    }
    /// −δ_c (m): how far apart the surfaces may get before a held contact
    /// parts, the reach the neighbour list must cover.
    pub fn reach(&self) -> f64 {
        -self.0.delta_part().0[0]
    }
    /// 1.5 π γ R*: the most tension the contact holds.
    pub fn pull_off(&self) -> f64 {
        1.5 * std::f64::consts::PI * self.0.gamma.0[0] * self.0.r_star.0[0]
    }
    /// The force at first touch, −(4/3) π γ R* (N).
    pub fn snap_in_force(&self) -> f64 {
        -4.0 / 3.0 * std::f64::consts::PI * self.0.gamma.0[0] * self.0.r_star.0[0]
    }
    pub fn snap_in_loss(&self) -> f64 {
        self.0.snap_in_loss().0[0]
    }
    pub fn parting_loss(&self) -> f64 {
        self.0.parting_loss().0[0]
    }
}

#[cfg(test)]
mod tests {
    use super::JkrPair;
    use std::f64::consts::PI;

    /// The Newton solve against the closed forms: a(δ) reproduces δ, the
    /// force and the potential match F(a) and Φ(a) from a directly, the
    /// potential's slope is the force, the extremes sit where the theory
    /// puts them (most tension 1.5πγR*, −(4/3)πγR* at δ = 0, −(5/6)πγR*
    /// at δ_c), and the two losses are −Φ(a₀) and Φ(a_s).
    #[test]
    fn jkr_contact_follows_its_closed_forms() {
        for &(r, e, g) in &[
            (1e-3, 1e7, 0.05),
            (5e-4, 7e10, 0.2),
            (1e-5, 1e9, 0.1),
            (2e-3, 1e6, 1.0),
        ] {
            let p = JkrPair::new(r, e, g);
            let c = (2.0 * PI * g / e).sqrt();
            let delta_of = |a: f64| a * a / r - (2.0 * PI * g * a / e).sqrt();
            let force_of =
                |a: f64| 4.0 * e * a.powi(3) / (3.0 * r) - (8.0 * PI * g * e * a.powi(3)).sqrt();
            let a_s = (PI * g * r * r / (8.0 * e)).cbrt();
            let d_c = -3.0 * a_s * a_s / r;
            assert!((p.reach() / -d_c - 1.0).abs() < 1e-12);
            assert!((crate::pair::jkr_separation(r, e, g) / p.reach() - 1.0).abs() < 1e-12);
            assert!((delta_of(a_s) / d_c - 1.0).abs() < 1e-12);
            let fu = PI * g * r;
            // a sweep in a, from a_s to 30 a_s (compression), each δ(a)
            // handed to the solve: a, F and Φ against their closed forms
            let phi_of = |a: f64| {
                8.0 * e * a.powi(5) / (15.0 * r * r)
                    - 4.0 / (3.0 * r) * (2.0 * PI * g * e).sqrt() * a.powf(3.5)
                    + PI * g * a * a
            };
            let (mut worst_a, mut worst_f, mut worst_u) = (0.0f64, 0.0f64, 0.0f64);
            for i in 0..=4000 {
                let t = i as f64 / 4000.0;
                let a = a_s * (1.0 + 29.0 * t * t * t);
                let delta = delta_of(a);
                let Some((f, u)) = p.at(delta) else {
                    // only rounding may put δ(a ≈ a_s) below δ_c
                    assert!(
                        delta - d_c < 1e-12 * -d_c,
                        "a {a}: δ {delta} does not hold (δ_c {d_c})"
                    );
                    continue;
                };
                worst_a = worst_a.max((p.radius(delta) / a - 1.0).abs());
                worst_f = worst_f.max((force_of(a) - f).abs() / (fu + force_of(a).abs()));
                worst_u = worst_u.max((phi_of(a) - u).abs() / (PI * g * a * a));
                // the potential's slope is the force (away from δ_c, where
                // F has a square-root edge a difference cannot follow)
                let h = 1e-6 * -d_c;
                if delta - d_c > 1e-2 * -d_c {
                    let (up, um) = (p.at(delta + h).unwrap().1, p.at(delta - h).unwrap().1);
                    let slope = (up - um) / (2.0 * h);
                    assert!(
                        (slope - f).abs() < 1e-5 * (fu + f.abs()),
                        "r {r} δ {delta}: dΦ/dδ {slope:e} vs F {f:e}"
                    );
                }
            }
            eprintln!("r {r} e {e} g {g}: a off by {worst_a:.2e}, F by {worst_f:.2e} (πγR* + |F|), Φ by {worst_u:.2e} πγa²");
            // near a_s the root is double: there a follows δ(a)'s own
            // rounding only to its square root, ~10⁻⁸ (F'(a) is finite:
            // F's error is as small); elsewhere to the last bits
            assert!(worst_a < 1e-7 && worst_f < 1e-7 && worst_u < 1e-9);
            assert!(p.at(d_c * 1.000001).is_none());
            // the extremes
            let (f0, u0) = p.at(0.0).unwrap();
            assert!(
                (f0 / p.snap_in_force() - 1.0).abs() < 1e-10,
                "{f0} {}",
                p.snap_in_force()
            );
            assert!((-u0 / p.snap_in_loss() - 1.0).abs() < 1e-10);
            let a0 = (c * r).powf(2.0 / 3.0);
            assert!((p.snap_in_loss() / (0.6 * PI * g * a0 * a0) - 1.0).abs() < 1e-12);
            let most = (0..20000)
                .map(|i| d_c * (1.0 - i as f64 / 20000.0))
                .filter_map(|d| p.at(d))
                .map(|(f, _)| f)
                .fold(f64::INFINITY, f64::min);
            assert!(
                (most / -p.pull_off() - 1.0).abs() < 1e-6,
                "{most} {}",
                p.pull_off()
            );
            let (f_c, u_c) = p.at(d_c * (1.0 - 1e-12)).unwrap();
            assert!((f_c / (-5.0 / 6.0 * fu) - 1.0).abs() < 1e-5, "{f_c} {fu}");
            assert!(
                (u_c / p.parting_loss() - 1.0).abs() < 1e-5,
                "{u_c} {}",
                p.parting_loss()
            );
        }
    }
}
