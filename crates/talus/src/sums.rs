//! Sums that do not depend on the order of their terms.
//!
//! A particle's force, torque and contact energies are sums over its
//! contacts. Summed one after the other in floating point, they depend on
//! the order of the terms, that is on where the partners sit in memory,
//! when the list was last rebuilt and what else its row holds: change the
//! neighbour skin and the bits change. [`exact_sum`] makes them order-free:
//! per component, the terms are scaled by one power of two chosen from the
//! largest of them (2¹⁰⁰ / that term's binade, exact) and added as 128-bit
//! integers (exact in any order), then the total is rounded once. Each term
//! keeps 100 bits below the largest term's leading bit (f64 has 53), so the
//! result is the exact sum correctly rounded, up to a truncation of each
//! term at 2⁻¹⁰⁰ of the largest: more accurate than the sum in order, and
//! the same bits in every order. Up to 2²⁶ terms cannot overflow.

/// The GPU's fixed point for its pair sums (and the FEM surfaces' forces):
/// units per newton, a power of two, 2^round(log2(1 / (10⁻⁷ m_min
/// max(|g|, 1)))) with m_min the smallest particle mass the scene can hold
/// (present or inserted), within [2⁰, 2⁶⁰]. A resolution of 10⁻⁷ of the
/// lightest grain's weight; 2⁶² units (the 64-bit words' limit, checked on
/// the device) are then ≥ 4.6·10¹¹ such weights.
pub fn force_unit(scene: &crate::scene::Scene) -> f64 {
    let ball = |rho: f64, r: f64| rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let present = scene.particles.iter().map(|p| scene.particle_mass(p));
    let inserted = scene
        .inserts
        .iter()
        .map(|i| ball(scene.materials[i.material].density, i.radius.min()));
    let m_min = present.chain(inserted).fold(f64::INFINITY, f64::min);
    let g = glam::DVec3::from(scene.simulation.gravity)
        .length()
        .max(1.0);
    let unit = 1.0 / (1e-7 * m_min * g);
    if !(unit.is_finite() && unit > 0.0) {
        return 1.0;
    }
    2f64.powi(unit.log2().round().clamp(0.0, 60.0) as i32)
}

/// Units per newton metre of the GPU's torque sums: the force unit over
/// the smallest radius the scene can hold, as a power of two (a contact's
/// torque is a force times at most a radius: the same resolution).
pub fn torque_unit(scene: &crate::scene::Scene) -> f64 {
    let present = scene.particles.iter().map(|p| p.radius);
    let inserted = scene.inserts.iter().map(|i| i.radius.min());
    let r_min = present.chain(inserted).fold(f64::INFINITY, f64::min);
    let unit = force_unit(scene) / r_min;
    if !(unit.is_finite() && unit > 0.0) {
        return force_unit(scene);
    }
    2f64.powi(unit.log2().round().clamp(0.0, 80.0) as i32)
}

/// Bits kept below the largest term's leading bit.
const HEADROOM: i32 = 100;

/// The sums of `terms`, component by component, whatever their order. A
/// component with a non-finite term is the plain sum in order (NaN or ±∞:
/// a blow-up stays visible).
pub fn exact_sum<const N: usize>(terms: &[[f64; N]]) -> [f64; N] {
    let mut out = [0.0; N];
    for (k, o) in out.iter_mut().enumerate() {
        let big = terms.iter().fold(0.0f64, |m, t| m.max(t[k].abs()));
        if !big.is_finite() || terms.iter().any(|t| t[k].is_nan()) {
            *o = terms.iter().map(|t| t[k]).sum();
            continue;
        }
        if big == 0.0 {
            continue;
        }
        // big < 2^e: each scaled term < 2^HEADROOM
        let e = exponent(big);
        let (up, down) = (pow2(HEADROOM - e), pow2(e - HEADROOM));
        let acc: i128 = terms.iter().map(|t| (t[k] * up) as i128).sum();
        *o = acc as f64 * down;
    }
    out
}

/// The e with 2^(e−1) ≤ x < 2^e, for finite x > 0.
fn exponent(x: f64) -> i32 {
    if x >= f64::MIN_POSITIVE {
        ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022
    } else {
        // subnormal: 2^-1074 × the mantissa
        -1074 + (64 - x.to_bits().leading_zeros() as i32)
    }
}

/// 2^k as an f64 (exact; the two halves keep it finite and normal where
/// the product is).
fn pow2(k: i32) -> f64 {
    let half = |h: i32| f64::from_bits(((h + 1023) as u64) << 52);
    half(k / 2) * half(k - k / 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn exponents_and_powers() {
        for x in [1.0, 1.5, 2.0, 0.75, 3.0e-300, 5.0e-324, 1.0e300, f64::MAX] {
            let e = exponent(x);
            assert!(pow2(e - 1) <= x && x < pow2(e), "{x} {e}");
        }
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-1074), 5.0e-324);
        assert_eq!(pow2(1023), 2.0f64.powi(1023));
    }

    /// Any order, the same bits; and the exact sum, correctly rounded,
    /// where the plain sum in order is not (cancellation).
    #[test]
    fn the_order_does_not_matter_and_the_sum_is_exact() {
        let mut rng = Rng::new(7);
        for n in [1usize, 2, 6, 13, 40, 300] {
            let mut terms: Vec<[f64; 3]> = (0..n)
                .map(|_| {
                    let s = 10f64.powi((rng.range(-6.0, 3.0)) as i32);
                    [rng.range(-1.0, 1.0) * s, rng.range(-1.0, 1.0), -0.0]
                })
                .collect();
            let first = exact_sum(&terms);
            for _ in 0..20 {
                for i in (1..terms.len()).rev() {
                    let j = (rng.range(0.0, 1.0) * (i + 1) as f64) as usize % (i + 1);
                    terms.swap(i, j);
                }
                assert_eq!(exact_sum(&terms).map(f64::to_bits), first.map(f64::to_bits));
            }
            assert_eq!(first[2], 0.0);
        }
        // 1e16 + 1 − 1e16 + 1: in order 2 or 0 depending on the order; exact 2
        let t = [[1e16], [1.0], [-1e16], [1.0]];
        assert_eq!(exact_sum(&t), [2.0]);
        let t = [[1.0], [1e16], [1.0], [-1e16]];
        assert_eq!(exact_sum(&t), [2.0]);
        // a blow-up stays visible
        assert!(exact_sum(&[[1.0], [f64::NAN]])[0].is_nan());
        assert_eq!(exact_sum(&[[1.0], [f64::INFINITY]])[0], f64::INFINITY);
        assert_eq!(exact_sum::<2>(&[]), [0.0, 0.0]);
    }
}
