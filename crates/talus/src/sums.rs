//! Sums that do not depend on the order of their terms.
//!
//! A particle's force and torque are sums over its contacts. Summed in the
//! order of its neighbour-list row, they would depend on where the partners
//! sit in memory, when the list was last rebuilt and what else the row
//! holds: change the neighbour skin and the bits change. So the CPU path
//! sums a particle's contacts in its partners' (id, member) order
//! (`cpu::contacts`), and the GPU path adds them as 64-bit fixed-point
//! integers, exact in any order (`Sums` in `shaders/contacts.wgsl`), in
//! the units set here. Sums over particles (wall loads, nodal forces,
//! energy totals) are [`Exact`]: 128-bit integers on both paths.

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

/// An exact sum of f64 terms, the same whatever their order: each term is
/// rounded toward zero to a multiple of 2⁻⁸⁰ (of its unit: N, N m, J) and
/// added as a 128-bit integer. Used where the CPU path sums over particles
/// in memory order (wall loads, the FEM surfaces' nodal forces, the
/// energy totals), so a different neighbour skin, grid or rank count does
/// not change a bit. The range is ±2⁴⁷ (1.4·10¹⁴); a term beyond it, or
/// not finite, makes the sum NaN. (Terms below 2⁻⁸⁰ ≈ 8·10⁻²⁵ count as
/// zero.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exact {
    sum: i128,
    bad: bool,
}

/// 2⁸⁰: [`Exact`]'s units per unit.
const EXACT_SCALE: f64 = (1u128 << 80) as f64;
/// The largest magnitude [`Exact`] takes a term of (2⁴⁷).
const EXACT_MAX: f64 = (1u64 << 47) as f64;

/// `x` in units of 2⁻⁸⁰, truncated toward zero: `(x * 2⁸⁰) as i128`, but
/// from the bits with integer shifts (the float-to-i128 conversion is a
/// library call); None beyond [`EXACT_MAX`] or not finite.
#[inline]
fn units(x: f64) -> Option<i128> {
    // (NaN fails the test too)
    if x.abs().partial_cmp(&EXACT_MAX) != Some(std::cmp::Ordering::Less) {
        return None;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // zero or subnormal: far below 2⁻⁸⁰
        return Some(0);
    }
    // |x| = m 2^(exp − 1075), so m 2^(exp − 995) units
    let m = ((bits & ((1 << 52) - 1)) | (1 << 52)) as i128;
    let shift = exp - 995;
    let u = if shift >= 0 {
        m << shift
    } else if shift > -64 {
        m >> -shift
    } else {
        0
    };
    Some(if bits >> 63 != 0 { -u } else { u })
}

impl Exact {
    /// The sum of `terms`.
    pub fn of(terms: impl IntoIterator<Item = f64>) -> Exact {
        let mut s = Exact::default();
        for x in terms {
            s.add(x);
        }
        s
    }

    /// Adds `x`.
    #[inline]
    pub fn add(&mut self, x: f64) {
        match units(x).and_then(|u| self.sum.checked_add(u)) {
            Some(s) => self.sum = s,
            None => self.bad = true,
        }
    }

    /// A sum of `units` (2⁻⁸⁰ each), as the GPU's exact sums hold it.
    pub fn from_units(units: i128) -> Exact {
        Exact {
            sum: units,
            bad: false,
        }
    }

    /// Adds another sum.
    pub fn merge(&mut self, other: &Exact) {
        self.bad |= other.bad;
        match self.sum.checked_add(other.sum) {
            Some(s) => self.sum = s,
            None => self.bad = true,
        }
    }

    /// The sum as three words (low and high halves of the integer, the
    /// out-of-range flag): how the ranks of a distributed run send their
    /// partial sums to each other (`dist`).
    pub fn to_words(&self) -> [u64; 3] {
        [self.sum as u64, (self.sum >> 64) as u64, self.bad as u64]
    }

    /// The sum [`Exact::to_words`] gave.
    pub fn from_words(w: [u64; 3]) -> Exact {
        Exact {
            sum: (w[0] as u128 | (w[1] as u128) << 64) as i128,
            bad: w[2] != 0,
        }
    }

    /// The sum, rounded to f64 (NaN when a term was out of range).
    pub fn value(&self) -> f64 {
        if self.bad {
            f64::NAN
        } else {
            self.sum as f64 / EXACT_SCALE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Exact;

    #[test]
    fn exact_sums_do_not_depend_on_order() {
        let mut r = crate::rng::Rng::new(7);
        let terms: Vec<f64> = (0..10_000)
            .map(|k| (r.f64() - 0.5) * 10f64.powi(k % 20 - 10))
            .collect();
        let forward = Exact::of(terms.iter().copied());
        let backward = Exact::of(terms.iter().rev().copied());
        let mut halves = Exact::of(terms[5000..].iter().copied());
        halves.merge(&Exact::of(terms[..5000].iter().copied()));
        assert_eq!(forward, backward);
        assert_eq!(forward, halves);
        // the words a rank sends give the sum back, bit for bit
        for s in [forward, Exact::of([-1.0]), Exact::of([f64::NAN])] {
            assert_eq!(Exact::from_words(s.to_words()), s);
        }
        // and it is the sum (to f64's rounding of the terms' sum)
        let plain: f64 = terms.iter().sum();
        assert!(
            (forward.value() - plain).abs() <= 1e-12 * terms.iter().map(|x| x.abs()).sum::<f64>()
        );
        assert!(Exact::of([1.0, f64::NAN]).value().is_nan());
        assert!(Exact::of([1e15]).value().is_nan());
        assert_eq!(Exact::of([1.5, -0.25]).value(), 1.25);
        // the shifts are the float conversion's truncation, bit for bit
        for x in terms
            .iter()
            .chain(&[0.0, -0.0, 1e-30, -3e-24, 7e-25, 1.4e14, -1.4e14])
        {
            assert_eq!(
                super::units(*x),
                Some((x * super::EXACT_SCALE) as i128),
                "{x:e}"
            );
        }
    }
}
