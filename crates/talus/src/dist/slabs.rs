//! The decomposition of space among ranks: slabs of whole grid cells along
//! one axis ([`Slabs`]), each rank owning the particles whose centre lies
//! in its slab and holding copies (ghosts) of those within one neighbour
//! cutoff of it. The cuts follow the work: each slab gets about the same
//! cost, recomputed from a histogram over the cells of the axis when the
//! costs drift apart ([`Slabs::balanced`]).
//!
//! Why slabs: one exchange partner on each side (two for a periodic axis
//! of two ranks), cuts computed from one histogram, and with a slab at
//! least a cutoff thick (one grid cell) a ghost is never more than one
//! rank away. Recursive bisection pays off beyond a few tens of ranks, when
//! slabs grow thin against their cross-section; not needed at the counts
//! this targets yet (see docs/ARCHITECTURE.md).

use crate::grid::Grid;

/// The slabs: along `axis`, rank r owns the grid cells `cuts[r]..cuts[r +
/// 1]` of level 0 (`cuts[0]` = 0, `cuts[ranks]` = the cell count).
#[derive(Debug, Clone, PartialEq)]
pub struct Slabs {
    pub axis: usize,
    pub cuts: Vec<u32>,
    /// The domain along the axis: start, cell width, cell count, length,
    /// periodic.
    min: f64,
    cell: f64,
    cells: u32,
    len: f64,
    periodic: bool,
    /// A particle within this distance of a slab (its centre) is held
    /// there: the largest neighbour cutoff (2 × the largest half cutoff),
    /// with the grid's slack.
    pub halo: f64,
}

impl Slabs {
    /// Even slabs over `grid` for `ranks` ranks, along the longest
    /// non-periodic axis (the longest axis when all are periodic). Err
    /// when the axis has fewer cells than there are ranks.
    pub fn new(grid: &Grid, ranks: usize) -> Result<Slabs, String> {
        let lv = &grid.levels[0];
        let axis = (0..3)
            .filter(|&a| !grid.periodic[a])
            .max_by(|&a, &b| grid.len[a].total_cmp(&grid.len[b]))
            .unwrap_or_else(|| {
                (0..3)
                    .max_by(|&a, &b| grid.len[a].total_cmp(&grid.len[b]))
                    .expect("three axes")
            });
        let cells = lv.dims[axis];
        // a periodic axis of two ranks: each is the other's neighbour on
        // both sides, which the exchange handles; one cell per rank at least
        if (cells as usize) < ranks {
            return Err(format!(
                "{ranks} ranks, but the domain is only {cells} grid cells long along {} (the longest axis the ranks can split): at most {cells} ranks for this scene",
                ["x", "y", "z"][axis]
            ));
        }
        let cuts = (0..=ranks)
            .map(|r| (r as u64 * cells as u64 / ranks as u64) as u32)
            .collect();
        Ok(Slabs {
            axis,
            cuts,
            min: grid.min[axis],
            cell: lv.cell[axis],
            cells,
            len: grid.len[axis],
            periodic: grid.periodic[axis],
            halo: 2.0 * grid.hmax * (1.0 + crate::grid::REACH_SLACK),
        })
    }

    pub fn ranks(&self) -> usize {
        self.cuts.len() - 1
    }

    /// The cell along the axis of coordinate `x` (clamped into the grid).
    pub fn cell_of(&self, x: f64) -> u32 {
        let c = ((x - self.min) / self.cell).floor();
        if c.is_nan() || c < 0.0 {
            0
        } else {
            (c as u64).min(self.cells as u64 - 1) as u32
        }
    }

    /// The rank that owns a particle at `p`.
    pub fn owner(&self, p: [f64; 3]) -> usize {
        let c = self.cell_of(p[self.axis]);
        // the last cut at or below c (cuts are strictly increasing)
        self.cuts.partition_point(|&k| k <= c) - 1
    }

    /// The ranks other than its owner that hold a copy of a particle at
    /// `p`: those whose slab lies within [`Slabs::halo`] of it (through
    /// the periodic boundary too).
    pub fn ghost_ranks(&self, p: [f64; 3], owner: usize) -> impl Iterator<Item = usize> + '_ {
        let x = p[self.axis];
        (0..self.ranks()).filter(move |&r| r != owner && self.distance(x, r) <= self.halo)
    }

    /// Distance along the axis from `x` to rank r's slab (0 inside). The
    /// first and last slabs of a non-periodic axis reach out to infinity
    /// (particles outside the grid belong to them).
    fn distance(&self, x: f64, r: usize) -> f64 {
        let lo = if r == 0 && !self.periodic {
            f64::NEG_INFINITY
        } else {
            self.min + self.cuts[r] as f64 * self.cell
        };
        let hi = if r + 1 == self.ranks() && !self.periodic {
            f64::INFINITY
        } else {
            self.min + self.cuts[r + 1] as f64 * self.cell
        };
        let d = |x: f64| (lo - x).max(x - hi).max(0.0);
        if self.periodic {
            d(x).min(d(x - self.len)).min(d(x + self.len))
        } else {
            d(x)
        }
    }

    /// The weights of particles at `pos` added per cell along the axis
    /// (what the ranks add up to rebalance: counts, or costs).
    pub fn histogram<'a>(&self, items: impl Iterator<Item = (&'a [f64; 4], f64)>) -> Vec<f64> {
        let mut h = vec![0.0; self.cells as usize];
        for (p, w) in items {
            h[self.cell_of(p[self.axis]) as usize] += w;
        }
        h
    }

    /// Each slab's share of histogram `h`.
    pub fn counts(&self, h: &[f64]) -> Vec<f64> {
        self.cuts
            .windows(2)
            .map(|w| h[w[0] as usize..w[1] as usize].iter().sum())
            .collect()
    }

    /// Largest slab's share over the mean (1: balanced) for histogram `h`.
    pub fn imbalance(&self, h: &[f64]) -> f64 {
        let c = self.counts(h);
        let total: f64 = c.iter().sum();
        if total <= 0.0 {
            return 1.0;
        }
        c.iter().fold(0.0f64, |m, &x| m.max(x)) * c.len() as f64 / total
    }

    /// The slabs with cuts where the histogram's running sum passes each
    /// rank's equal share, every slab at least one cell thick.
    pub fn balanced(&self, h: &[f64]) -> Slabs {
        let ranks = self.ranks();
        let total: f64 = h.iter().sum();
        let mut cuts = vec![0u32; ranks + 1];
        cuts[ranks] = self.cells;
        let mut run = 0.0;
        let mut c = 0usize;
        for (r, cut) in cuts.iter_mut().enumerate().take(ranks).skip(1) {
            let share = total * r as f64 / ranks as f64;
            while c < h.len() && run + h[c] <= share {
                run += h[c];
                c += 1;
            }
            // take the cell that crosses the share when that lands closer
            if c < h.len() && share - run > run + h[c] - share {
                run += h[c];
                c += 1;
            }
            *cut = c as u32;
        }
        // strictly increasing, room for the ranks after each
        for r in 1..ranks {
            let lo = cuts[r - 1] + 1;
            let hi = self.cells - (ranks - r) as u32;
            cuts[r] = cuts[r].clamp(lo, hi);
        }
        Slabs {
            cuts,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Domain;

    fn grid(periodic: bool) -> Grid {
        let domain = Domain {
            min: [0.0, 0.0, 0.0],
            max: [1.0, 0.2, 0.1],
            periodic: [periodic; 3],
        };
        Grid::with_target(&domain, 0.01, None).unwrap()
    }

    #[test]
    fn owners_and_ghosts() {
        let s = Slabs::new(&grid(false), 4).unwrap();
        assert_eq!(s.axis, 0);
        assert_eq!(s.cuts, vec![0, 12, 25, 37, 50]);
        assert_eq!(s.owner([0.3, 0.0, 0.0]), 1);
        assert_eq!(s.owner([-5.0, 0.0, 0.0]), 0);
        assert_eq!(s.owner([5.0, 0.0, 0.0]), 3);
        // cells of 0.02: 0.23 is half a cell below rank 1's slab at 0.24
        let g: Vec<_> = s.ghost_ranks([0.23, 0.0, 0.0], 0).collect();
        assert_eq!(g, vec![1]);
        assert_eq!(s.ghost_ranks([0.3, 0.0, 0.0], 1).count(), 0);
        // all axes periodic: the longest, x, is cut, and the first slab's
        // particles near x = 0 are ghosts of the last
        let p = Slabs::new(&grid(true), 4).unwrap();
        assert_eq!(
            p.ghost_ranks([0.001, 0.0, 0.0], 0).collect::<Vec<_>>(),
            vec![3]
        );
        assert!(Slabs::new(&grid(false), 51).is_err());
    }

    #[test]
    fn balanced_cuts_share_the_particles() {
        let s = Slabs::new(&grid(false), 3).unwrap();
        // all particles in the first ten cells, one per cell
        let mut h = vec![0.0; 50];
        for c in h.iter_mut().take(10) {
            *c = 6.0;
        }
        assert!(s.imbalance(&h) > 2.9);
        let b = s.balanced(&h);
        assert_eq!(b.counts(&h).iter().sum::<f64>(), 60.0);
        // cells of 6 against shares of 20: at best 18, 24, 18
        assert!(b.imbalance(&h) <= 1.2 + 1e-12, "{:?}", b.cuts);
        assert!(b.counts(&h).iter().all(|&c| (c - 20.0).abs() <= 6.0));
        // all in one cell: still strictly increasing cuts
        let mut one = vec![0.0; 50];
        one[49] = 10.0;
        let b = s.balanced(&one);
        assert!(b.cuts.windows(2).all(|w| w[0] < w[1]), "{:?}", b.cuts);
    }
}
