//! The CPU list's history beside its entries, in two halves: the
//! tangential spring (ξ, k_t) of every run, and the rolling spring's
//! torque only in runs whose rolling model keeps one (`epsd`, `epsd2`).
//! A `cdt` run holds and moves 32 bytes an entry, not 64: a history of 8
//! f64 in every run cost the CPU path 55 % more memory a particle
//! (docs/performance.md). Every reader and writer goes
//! through these types, as one [`Hist`] an entry, so no mover can move one
//! half without the other.

use crate::state::Hist;

/// The zero history (no contact).
pub const ZERO: Hist = [0.0; 8];

/// One half of an entry's history.
type Half = [f64; 4];

fn join(t: Half, r: Option<&Half>) -> Hist {
    let r = r.copied().unwrap_or([0.0; 4]);
    [t[0], t[1], t[2], t[3], r[0], r[1], r[2], r[3]]
}

fn halves(h: &Hist) -> (Half, Half) {
    ([h[0], h[1], h[2], h[3]], [h[4], h[5], h[6], h[7]])
}

/// A list's history: `t` an entry, and `r` an entry when the run keeps a
/// rolling torque (`roll`), else empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistVec {
    pub t: Vec<Half>,
    pub r: Vec<Half>,
    pub roll: bool,
}

impl HistVec {
    /// An empty history; with the rolling half when `roll`.
    pub fn new(roll: bool) -> Self {
        HistVec {
            roll,
            ..Default::default()
        }
    }

    /// `hist` as a history of this kind (the rolling halves dropped
    /// without `roll`).
    pub fn from_hists(roll: bool, hist: &[Hist]) -> Self {
        let mut v = HistVec::new(roll);
        for h in hist {
            v.push(*h);
        }
        v
    }

    /// Every entry's history, whole.
    pub fn to_hists(&self) -> Vec<Hist> {
        (0..self.len()).map(|e| self.get(e)).collect()
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    pub fn get(&self, e: usize) -> Hist {
        join(self.t[e], self.r.get(e))
    }

    pub fn push(&mut self, h: Hist) {
        let (t, r) = halves(&h);
        self.t.push(t);
        if self.roll {
            self.r.push(r);
        }
    }

    /// `len` entries, those added zero.
    pub fn resize(&mut self, len: usize) {
        self.t.resize(len, [0.0; 4]);
        if self.roll {
            self.r.resize(len, [0.0; 4]);
        }
    }

    pub fn as_ref(&self) -> HistRef<'_> {
        HistRef {
            t: &self.t,
            r: &self.r,
        }
    }

    pub fn as_mut(&mut self) -> HistMut<'_> {
        HistMut {
            t: &mut self.t,
            r: &mut self.r,
        }
    }
}

/// A run of entries' history to read.
#[derive(Debug, Clone, Copy)]
pub struct HistRef<'a> {
    t: &'a [Half],
    r: &'a [Half],
}

impl<'a> HistRef<'a> {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    pub fn get(&self, k: usize) -> Hist {
        join(self.t[k], self.r.get(k))
    }

    /// Entries `range`.
    pub fn slice(&self, range: std::ops::Range<usize>) -> HistRef<'a> {
        let r = if self.r.is_empty() {
            self.r
        } else {
            &self.r[range.clone()]
        };
        HistRef {
            t: &self.t[range],
            r,
        }
    }

    /// The memory of entry `k`'s history (a prefetch's targets).
    pub fn parts(&self, k: usize) -> (&'a Half, Option<&'a Half>) {
        (&self.t[k], self.r.get(k))
    }
}

/// A run of entries' history to write.
#[derive(Debug)]
pub struct HistMut<'a> {
    t: &'a mut [Half],
    r: &'a mut [Half],
}

impl<'a> HistMut<'a> {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    pub fn get(&self, k: usize) -> Hist {
        join(self.t[k], self.r.get(k))
    }

    /// Sets entry `k` (its rolling half dropped where none is kept: zero
    /// in such a run).
    pub fn set(&mut self, k: usize, h: Hist) {
        let (t, r) = halves(&h);
        self.t[k] = t;
        if let Some(x) = self.r.get_mut(k) {
            *x = r;
        }
    }

    /// Every entry zero.
    pub fn fill_zero(&mut self) {
        self.t.fill([0.0; 4]);
        self.r.fill([0.0; 4]);
    }

    pub fn as_ref(&self) -> HistRef<'_> {
        HistRef {
            t: self.t,
            r: self.r,
        }
    }

    /// Entries `range`, to write.
    pub fn slice(&mut self, range: std::ops::Range<usize>) -> HistMut<'_> {
        let r: &mut [Half] = if self.r.is_empty() {
            &mut []
        } else {
            &mut self.r[range.clone()]
        };
        HistMut {
            t: &mut self.t[range],
            r,
        }
    }

    /// The first `k` entries and the rest.
    pub fn split_at_mut(self, k: usize) -> (HistMut<'a>, HistMut<'a>) {
        let (t0, t1) = self.t.split_at_mut(k);
        let (r0, r1) = if self.r.is_empty() {
            (self.r, &mut [][..])
        } else {
            self.r.split_at_mut(k)
        };
        (HistMut { t: t0, r: r0 }, HistMut { t: t1, r: r1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both kinds keep what is set (without the rolling half: its ξ, k_t
    /// only), split and slice alike, and convert to whole histories.
    #[test]
    fn halves_move_together() {
        let h = |x: f64| [x, x + 1.0, x + 2.0, x + 3.0, x + 4.0, x + 5.0, x + 6.0, 0.0];
        for roll in [false, true] {
            let mut v = HistVec::new(roll);
            v.resize(4);
            assert_eq!(v.to_hists(), vec![ZERO; 4]);
            {
                let (mut a, mut b) = v.as_mut().split_at_mut(1);
                a.set(0, h(1.0));
                b.slice(1..3).set(1, h(10.0));
            }
            let want = |x: f64| {
                let mut w = h(x);
                if !roll {
                    w[4..].fill(0.0);
                }
                w
            };
            assert_eq!(v.get(0), want(1.0));
            assert_eq!(v.get(3), want(10.0));
            assert_eq!(v.as_ref().slice(2..4).get(1), want(10.0));
            assert_eq!(HistVec::from_hists(roll, &v.to_hists()), v);
            v.as_mut().fill_zero();
            assert_eq!(v.to_hists(), vec![ZERO; 4]);
        }
    }
}
