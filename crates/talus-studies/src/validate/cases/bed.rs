//! What the `settle` and `compaction` cases share: a bed of beads in a
//! square box of plane walls, its weight, height and interior, the loads
//! on its walls, and Janssen's slice model of a column whose walls carry
//! part of the vertical load by friction.
//!
//! Janssen (1895): in a column of width D (square: perimeter / area =
//! 4 / D) a horizontal slice of depth ds is held by the vertical stress
//! above and below it and by the wall friction μ_w σ_h around it, with
//! σ_h = K σ_v. With a top load F_top and the bed's weight W spread over
//! its height H (γ = W / (D² H)), the vertical stress at depth s is
//! σ_v(s) = σ_top e^{−a s} + (γ / a)(1 − e^{−a s}), a = 4 μ_w K / D, and
//! the floor carries F_floor = F_top e^{−x} + W (1 − e^{−x}) / x,
//! x = a H. The model needs the wall friction fully mobilised (every
//! wall contact sliding, |F_t| = μ_w F_n).

use std::f64::consts::PI;
use talus::backend::Backend;
use talus::scene::{Region, Scene, Shape};

/// Mass of a sphere of radius `r` and density `rho`, kg.
pub fn sphere_mass(r: f64, rho: f64) -> f64 {
    rho * 4.0 / 3.0 * PI * r.powi(3)
}

/// Weight of the beads (one density), N.
pub fn weight(pos_rad: &[[f64; 4]], rho: f64, g: f64) -> f64 {
    pos_rad.iter().map(|p| sphere_mass(p[3], rho) * g).sum()
}

/// Potential energy Σ m g z of the beads (one density), J.
pub fn potential(pos_rad: &[[f64; 4]], rho: f64, g: f64) -> f64 {
    pos_rad
        .iter()
        .map(|p| sphere_mass(p[3], rho) * g * p[2])
        .sum()
}

/// Height of a bed on a floor at z = 0: twice the mean height of the
/// centres (exact for a bed of uniform density; one stray bead on the
/// surface moves it by a diameter / the number of beads).
pub fn bed_height(pos_rad: &[[f64; 4]]) -> f64 {
    if pos_rad.is_empty() {
        return 0.0;
    }
    2.0 * pos_rad.iter().map(|p| p[2]).sum::<f64>() / pos_rad.len() as f64
}

/// The interior of a bed of height `h` in the box [0, d]² × [0, h]:
/// `margin` in from the four side walls, the floor and the top (the walls
/// order the first few layers of beads; the interior is what a large
/// bed would be).
pub fn interior(d: f64, h: f64, margin: f64) -> Region {
    Region::Box {
        min: [margin, margin, margin],
        max: [d - margin, d - margin, (h - margin).max(2.0 * margin)],
    }
}

/// The loads of a box's walls at one instant, from [`Backend::walls`]:
/// `normal[i]` = −F_i · n_i (how hard the beads press wall i along its
/// normal, ≥ 0), `fz[i]` the z-component of the force the beads exert on
/// it (a floor under a bed at rest reads −weight; a side wall's fz is its
/// friction), `z[i]` its translation along z, m.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loads {
    pub normal: Vec<f64>,
    pub fz: Vec<f64>,
    pub z: Vec<f64>,
}

impl Loads {
    /// Reads the loads now; `scene` gives the planes' normals (a wall
    /// that is not a plane counts as normal +z).
    pub fn read(be: &mut dyn Backend, scene: &Scene) -> Loads {
        let walls = be.walls();
        let mut l = Loads::default();
        for ((pose, load), w) in walls.iter().zip(&scene.walls) {
            let n = match w.shape {
                Shape::Plane { normal, .. } => normal,
                _ => [0.0, 0.0, 1.0],
            };
            let f = load.force;
            l.normal.push(-(f[0] * n[0] + f[1] * n[1] + f[2] * n[2]));
            l.fz.push(f[2]);
            l.z.push(pose.translation.z);
        }
        l
    }

    /// The mean of several readings (empty: all zero).
    pub fn mean(all: &[Loads]) -> Loads {
        let Some(first) = all.first() else {
            return Loads::default();
        };
        let n = all.len() as f64;
        let avg = |pick: &dyn Fn(&Loads) -> &Vec<f64>| -> Vec<f64> {
            (0..pick(first).len())
                .map(|i| all.iter().map(|l| pick(l)[i]).sum::<f64>() / n)
                .collect()
        };
        Loads {
            normal: avg(&|l| &l.normal),
            fz: avg(&|l| &l.fz),
            z: avg(&|l| &l.z),
        }
    }

    /// Σ over the walls `ids` of the normal load, N.
    pub fn normal_of(&self, ids: &[usize]) -> f64 {
        ids.iter().map(|&i| self.normal[i]).sum()
    }

    /// Σ over the walls `ids` of fz, N.
    pub fn fz_of(&self, ids: &[usize]) -> f64 {
        ids.iter().map(|&i| self.fz[i]).sum()
    }
}

/// Janssen's model of a column, fitted to what the walls read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Janssen {
    /// σ_h / σ_v: the side walls' mean normal stress N / (4 D H) over the
    /// mean of the vertical stresses at the top and the bottom,
    /// (F_top + F_floor) / (2 D²).
    pub k: f64,
    /// x = 4 μ_w K H / D.
    pub x: f64,
    /// The floor's load Janssen predicts: F_top e^{−x} + W (1 − e^{−x}) / x.
    pub floor: f64,
}

/// (1 − e^{−x}) / x, 1 at x = 0.
fn g(x: f64) -> f64 {
    if x.abs() < 1e-8 {
        1.0 - 0.5 * x
    } else {
        -(-x).exp_m1() / x
    }
}

impl Janssen {
    /// From the top load, the weight, the side walls' total normal load
    /// and the floor's measured load, in a square column of width `d` and
    /// bed height `h`, with wall friction `mu_w`. None for a bed of no
    /// height or no vertical load.
    pub fn fit(
        top: f64,
        weight: f64,
        side_normal: f64,
        floor: f64,
        mu_w: f64,
        d: f64,
        h: f64,
    ) -> Option<Janssen> {
        let sigma_v = (top + floor) / (2.0 * d * d);
        if h <= 0.0 || d <= 0.0 || sigma_v <= 0.0 {
            return None;
        }
        let k = side_normal / (4.0 * d * h) / sigma_v;
        let x = 4.0 * mu_w * k * h / d;
        Some(Janssen {
            k,
            x,
            floor: top * (-x).exp() + weight * g(x),
        })
    }
}

/// Hertz's elastic normal force of a sphere of radius `r` pressed `delta`
/// into a plane, E* the pair's effective modulus, N (0 out of contact).
pub fn hertz_wall_force(e_star: f64, r: f64, delta: f64) -> f64 {
    if delta <= 0.0 {
        0.0
    } else {
        4.0 / 3.0 * e_star * r.sqrt() * delta.powf(1.5)
    }
}

/// E* of two materials: 1 / ((1 − ν₁²)/E₁ + (1 − ν₂²)/E₂), Pa.
pub fn e_star(e1: f64, nu1: f64, e2: f64, nu2: f64) -> f64 {
    1.0 / ((1.0 - nu1 * nu1) / e1 + (1.0 - nu2 * nu2) / e2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// σ_h = K σ_v at depth `s` below the top of a Janssen column, Pa.
    fn sigma_h(j: &Janssen, top: f64, weight: f64, d: f64, h: f64, s: f64) -> f64 {
        let a = j.x / h;
        let gamma = weight / (d * d * h);
        j.k * (top / (d * d) * (-a * s).exp() + gamma * s * g(a * s))
    }

    /// Janssen's floor load is F_top + W − (wall friction): with the
    /// friction fully mobilised, μ_w × the walls' normal load. With K
    /// from the walls' load it reduces to that to second order in x.
    #[test]
    fn janssen_balances_to_second_order() {
        let (d, h, mu): (f64, f64, f64) = (0.03, 0.0128, 0.3);
        let (top, w): (f64, f64) = (20.0, 0.155);
        // the side walls' load of an exact Janssen column with K = 0.6
        let k: f64 = 0.6;
        let x = 4.0 * mu * k * h / d;
        let floor = top * (-x).exp() + w * g(x);
        let exact = Janssen { k, x, floor };
        let n = 200;
        let ds = h / n as f64;
        let side: f64 = (0..n)
            .map(|i| sigma_h(&exact, top, w, d, h, (i as f64 + 0.5) * ds) * 4.0 * d * ds)
            .sum();
        // the friction balances the loads
        assert!((mu * side - (top + w - floor)).abs() < 1e-4 * top);
        let fit = Janssen::fit(top, w, side, floor, mu, d, h).unwrap();
        assert!((fit.floor - floor).abs() < 0.01 * floor, "{fit:?}");
        // so the fitted law is the balance with the friction at μ_w N
        assert!((fit.floor - (top + w - mu * side)).abs() < 0.01 * floor);
        assert!((fit.k - k).abs() < 0.02 * k, "{fit:?}");
        // no friction: the floor carries it all
        let none = Janssen::fit(top, w, side, top + w, 0.0, d, h).unwrap();
        assert!((none.floor - (top + w)).abs() < 1e-12);
        assert!(Janssen::fit(0.0, w, side, 0.0, mu, d, h).is_none());
        assert!((g(1e-10) - 1.0).abs() < 1e-9 && (g(1.0) - (1.0 - (-1f64).exp())).abs() < 1e-15);
    }

    #[test]
    fn heights_and_weights() {
        // two layers of beads of 1 mm at z = 1 and 3 mm: a bed 4 mm deep
        let beads: Vec<[f64; 4]> = [0.001, 0.003]
            .iter()
            .map(|&z| [0.0, 0.0, z, 0.001])
            .collect();
        assert!((bed_height(&beads) - 0.004).abs() < 1e-15);
        let m = sphere_mass(0.001, 2500.0);
        assert!((weight(&beads, 2500.0, 9.81) - 2.0 * m * 9.81).abs() < 1e-15);
        assert!((potential(&beads, 2500.0, 9.81) - m * 9.81 * 0.004).abs() < 1e-15);
        assert_eq!(bed_height(&[]), 0.0);
        // Hertz: F = 4/3 E* √r δ^1.5
        assert!((hertz_wall_force(1e6, 1e-2, 1e-4) - 4.0 / 3.0 * 1e6 * 0.1 * 1e-6).abs() < 1e-12);
        assert_eq!(hertz_wall_force(1e6, 1e-2, -1e-4), 0.0);
    }
}
