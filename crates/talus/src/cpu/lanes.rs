//! `W` f64 lanes that the contact law runs on: one contact per lane, the
//! same IEEE operations in every lane (no fused multiply–add, no
//! approximate square root), so a law evaluated four contacts at a time
//! gives each the bits it gets alone (`W` = 1). The compiler turns the
//! lane loops into SIMD instructions; branches of the law become
//! per-lane selects.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// `W` values, one per contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct L<const W: usize>(pub [f64; W]);

impl<const W: usize> Default for L<W> {
    fn default() -> Self {
        L::splat(0.0)
    }
}

/// A per-lane condition: all bits set (true) or none, so that a select is
/// bit operations, never a branch per lane.
pub type Mask<const W: usize> = [u64; W];

#[inline(always)]
fn mask(b: bool) -> u64 {
    0u64.wrapping_sub(b as u64)
}

/// Lanes where both masks hold.
#[inline(always)]
pub fn and<const W: usize>(a: Mask<W>, b: Mask<W>) -> Mask<W> {
    let mut r = a;
    for (x, y) in r.iter_mut().zip(b) {
        *x &= y;
    }
    r
}

/// Lanes where either mask holds.
#[inline(always)]
pub fn or<const W: usize>(a: Mask<W>, b: Mask<W>) -> Mask<W> {
    let mut r = a;
    for (x, y) in r.iter_mut().zip(b) {
        *x |= y;
    }
    r
}

impl<const W: usize> L<W> {
    #[inline(always)]
    pub fn splat(x: f64) -> Self {
        L([x; W])
    }
    #[inline(always)]
    pub fn map(self, f: impl Fn(f64) -> f64) -> Self {
        L(self.0.map(f))
    }
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        let mut r = self.0;
        for (x, y) in r.iter_mut().zip(o.0) {
            *x = f(*x, y);
        }
        L(r)
    }
    #[inline(always)]
    pub fn sqrt(self) -> Self {
        self.map(f64::sqrt)
    }
    #[inline(always)]
    pub fn abs(self) -> Self {
        self.map(f64::abs)
    }
    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        self.zip(o, f64::max)
    }
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        self.zip(o, f64::min)
    }
    /// Lanes where `self > o`.
    #[inline(always)]
    pub fn gt(self, o: Self) -> Mask<W> {
        let mut m = [0; W];
        for ((mk, x), y) in m.iter_mut().zip(self.0).zip(o.0) {
            *mk = mask(x > y);
        }
        m
    }
    #[inline(always)]
    pub fn is_finite(self) -> Mask<W> {
        self.0.map(|x| mask(x.is_finite()))
    }
    /// `a` where `m`, else `b`.
    #[inline(always)]
    pub fn select(m: Mask<W>, a: Self, b: Self) -> Self {
        let mut r = b.0;
        for k in 0..W {
            r[k] = f64::from_bits((a.0[k].to_bits() & m[k]) | (b.0[k].to_bits() & !m[k]));
        }
        L(r)
    }
    /// True in any lane.
    #[inline(always)]
    pub fn any(m: Mask<W>) -> bool {
        m.iter().any(|&x| x != 0)
    }
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<const W: usize> $tr for L<W> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                self.zip(o, |x, y| x $op y)
            }
        }
    };
}
lane_op!(Add, add, +);
lane_op!(Sub, sub, -);
lane_op!(Mul, mul, *);
lane_op!(Div, div, /);

impl<const W: usize> Neg for L<W> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.map(|x| -x)
    }
}

/// A vector of lanes.
pub type V<const W: usize> = [L<W>; 3];

#[inline(always)]
pub fn dot<const W: usize>(a: V<W>, b: V<W>) -> L<W> {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline(always)]
pub fn cross<const W: usize>(a: V<W>, b: V<W>) -> V<W> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
#[inline(always)]
pub fn add<const W: usize>(a: V<W>, b: V<W>) -> V<W> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline(always)]
pub fn sub<const W: usize>(a: V<W>, b: V<W>) -> V<W> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline(always)]
pub fn scale<const W: usize>(a: V<W>, s: L<W>) -> V<W> {
    [a[0] * s, a[1] * s, a[2] * s]
}
/// `a` where `m`, else `b`, per lane.
#[inline(always)]
pub fn select<const W: usize>(m: Mask<W>, a: V<W>, b: V<W>) -> V<W> {
    [
        L::select(m, a[0], b[0]),
        L::select(m, a[1], b[1]),
        L::select(m, a[2], b[2]),
    ]
}
/// A vector of one lane.
#[inline(always)]
pub fn v1(a: [f64; 3]) -> V<1> {
    [L([a[0]]), L([a[1]]), L([a[2]])]
}
/// The lane `k` of a vector.
#[inline(always)]
pub fn lane<const W: usize>(a: V<W>, k: usize) -> [f64; 3] {
    [a[0].0[k], a[1].0[k], a[2].0[k]]
}
