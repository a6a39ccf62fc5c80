//! The grid of the broad phase: uniform grids over the domain, one per
//! size class ("level"), cell edge halving from one level to the next.
//!
//! Level 0's cells are at least the largest neighbour cutoff wide (largest
//! diameter + the Verlet skin). Level k's nominal half cutoff is
//! H_k = H_0 / 2^k, and a particle goes to the finest level whose H_k is at
//! least its own half cutoff h = r + skin / 2 ([`Grid::level_of`]), so a
//! cell is never narrower than twice the half cutoff of what it holds.
//! Levels stop at the smallest particle, and a level that would be no finer
//! than the one above (a large, sparse domain grows the cells, below) is
//! not made: a narrow size distribution (largest / smallest h < 2) has one
//! level, the uniform grid of before.
//!
//! A particle's candidates in level l lie within h + H_l of it, so it visits
//! the cells of each level within that reach ([`Grid::for_ranges`]): 3 per
//! axis in its own level and coarser ones, more in finer ones (a large
//! particle among small ones visits the small ones' cells around it). The
//! search is symmetric (i finds j exactly when j finds i) and in a fixed
//! order, level by level, so both backends list the same candidates in the
//! same order. With one grid for all sizes, a few large particles made
//! every small one search cells as wide as the large ones (≈ (d_max/d)³
//! particles each): the cost per particle grew with the size ratio cubed.
//!
//! Cells are numbered x fastest inside a level, levels one after another:
//! `key = first_l + ix + nx (iy + ny iz)`. Particles outside a non-periodic
//! domain are clamped into the edge cells: clamping moves no two particles
//! further apart in cell units, so contact detection stays exact (just
//! slower if many leave).

use crate::scene::types::{Domain, Scene};

pub mod pairs;

/// Most cells a grid may have (two u32 per cell: 2 GiB).
pub const MAX_CELLS: u64 = 1 << 28;

/// Most levels a grid has: half cutoffs down to 1/128 of the largest (the
/// GPU's `Params` holds this many; `shaders/common.wgsl`'s `MAX_LEVELS` is
/// checked equal). Smaller particles share the finest level.
pub const MAX_LEVELS: usize = 8;

/// Relative slack on a search reach: a cell range always holds every
/// particle within the reach even when positions are rounded to f32 (the
/// GPU's ranges and distances); it only ever adds a cell.
pub const REACH_SLACK: f64 = 1e-5;

/// Absolute slack on a periodic axis, in domain lengths: the cell of a
/// particle's image one period away may round one cell off.
pub const PERIOD_SLACK: f64 = 1e-6;

/// One level of the grid: a uniform grid over the domain.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Level {
    pub dims: [u32; 3],
    pub cell: [f64; 3],
    pub inv_cell: [f64; 3],
    /// The key of its first cell.
    pub first: u32,
    /// H: the largest half cutoff (radius + skin / 2) it holds; its cells
    /// are at least 2 H wide.
    pub half_cut: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub min: [f64; 3],
    pub len: [f64; 3],
    pub periodic: [bool; 3],
    /// Half the Verlet skin: a particle's half cutoff is r + this.
    pub half_skin: f64,
    /// The largest half cutoff the grid was made for (level 0's H may
    /// exceed it when the levels are anchored at the smallest class).
    pub hmax: f64,
    /// The levels, coarsest first; `levels[n_levels..]` unused.
    pub levels: [Level; MAX_LEVELS],
    pub n_levels: usize,
}

/// The cells of one level within reach of a point, per axis `lo..=hi`. On
/// a periodic axis `lo` may be below 0 and `hi` past the last cell (wrap
/// them); a reach as long as the axis is the whole axis once. Non-periodic
/// axes are clamped into the grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellRange {
    pub lo: [i64; 3],
    pub hi: [i64; 3],
}

impl Grid {
    /// A one-level grid over `domain` whose cells are at least `2 rmax`
    /// wide (`rmax`: half the largest neighbour cutoff, i.e. the largest
    /// radius plus half the skin). When `target_cells` is given the cell
    /// edge grows so that there are at most about that many cells (large
    /// empty domains, e.g. two spheres in a big box).
    pub fn with_target(
        domain: &Domain,
        rmax: f64,
        target_cells: Option<u64>,
    ) -> Result<Grid, String> {
        Grid::with_levels(domain, rmax, rmax, 0.0, target_cells, 1, None)
    }

    /// A grid with a level per size class for half cutoffs (r + skin / 2)
    /// from `hmin` to `hmax` (see the module): level k's cells are at
    /// least 2 H_0 / 2^k wide, grown like [`Grid::with_target`]'s; at
    /// most `max_levels` (≥ 1) levels. H_0 is `hmax`, unless `finest`
    /// (in [hmin, hmax)) names the half cutoff the finest level should
    /// have — the top of the smallest size class, so that the many small
    /// particles share one level with cells just wide enough — and then H_0
    /// is `finest` × the power of 2 that reaches `hmax` (the coarsest
    /// cells up to twice as wide as the largest particle needs: few
    /// particles). With 0.8–1 mm spheres among 31 mm ones the top-down
    /// ladder put the small ones' boundary at 0.91 mm: 45 % of them in
    /// cells twice too wide.
    pub fn with_levels(
        domain: &Domain,
        hmin: f64,
        hmax: f64,
        half_skin: f64,
        target_cells: Option<u64>,
        max_levels: usize,
        finest: Option<f64>,
    ) -> Result<Grid, String> {
        let len = [
            domain.max[0] - domain.min[0],
            domain.max[1] - domain.min[1],
            domain.max[2] - domain.min[2],
        ];
        let grown = match target_cells {
            Some(t) => (len[0] * len[1] * len[2] / t.max(1) as f64).cbrt(),
            None => 0.0,
        };
        // a periodic axis must be 2 cutoffs long: then no pair is within a
        // cutoff of two images of the same partner, and the minimum image
        // is exact
        for a in 0..3 {
            if domain.periodic[a] && len[a] < 2.0 * 2.0 * hmax * (1.0 - 1e-12) {
                return Err(format!(
                    "periodic axis {} is {} m long: it must be at least 2 neighbour cutoffs (largest diameter + neighbour skin: {} m)",
                    ["x", "y", "z"][a],
                    len[a],
                    2.0 * hmax
                ));
            }
        }
        let max_levels = max_levels.clamp(1, MAX_LEVELS);
        let top = match finest {
            Some(a) if a >= hmin && a < hmax => {
                let above = (hmax / a).log2().ceil().max(0.0) as usize;
                if above < max_levels {
                    a * (1u64 << above) as f64
                } else {
                    hmax
                }
            }
            _ => hmax,
        };
        let mut levels = [Level::default(); MAX_LEVELS];
        let mut n_levels = 0;
        let mut first = 0u64;
        let mut prev_edge = f64::INFINITY;
        for (k, level) in levels.iter_mut().enumerate() {
            let h = top / (1u64 << k) as f64;
            if k > 0 && (h < hmin * (1.0 - 1e-12) || k >= max_levels) {
                break;
            }
            let edge = (2.0 * h).max(grown);
            // a level no finer than the one above (grown cells) is no level
            if k > 0 && edge > 0.75 * prev_edge {
                break;
            }
            prev_edge = edge;
            let dims: [u32; 3] = std::array::from_fn(|a| {
                // the enlarged edge of a sparse domain may shrink to len/3
                // on a periodic axis, never below the cutoff
                let e = if domain.periodic[a] {
                    edge.min(len[a] / 3.0).max(2.0 * h)
                } else {
                    edge
                };
                let n = (len[a] / e).floor();
                if n >= 1.0 {
                    n.min(u32::MAX as f64 / 4.0) as u32
                } else {
                    1
                }
            });
            let cell: [f64; 3] = std::array::from_fn(|a| len[a] / dims[a] as f64);
            *level = Level {
                dims,
                cell,
                inv_cell: cell.map(|c| 1.0 / c),
                first: first.min(u32::MAX as u64) as u32,
                half_cut: h,
            };
            first += dims.iter().map(|&d| d as u64).product::<u64>();
            if first > MAX_CELLS {
                return Err(format!(
                    "the grid would need {first} cells (largest diameter {} m in a {} × {} × {} m domain); at most {MAX_CELLS} are supported: shrink the domain",
                    2.0 * hmax, len[0], len[1], len[2]
                ));
            }
            n_levels += 1;
        }
        Ok(Grid {
            min: domain.min,
            len,
            periodic: domain.periodic,
            half_skin,
            hmax,
            levels,
            n_levels,
        })
    }

    /// A grid with at most ~max(4 n, 65 536) cells, for `n` particles.
    pub fn for_particles(domain: &Domain, rmax: f64, n: usize) -> Result<Grid, String> {
        Grid::with_target(domain, rmax, Some((4 * n as u64).max(1 << 16)))
    }

    /// A grid with a level per size class for radii `rmin..=rmax` (no
    /// skin) and at most ~max(4 n, 65 536) cells per level: the pair search
    /// of a finished run (`analyze`), whatever its size ratio.
    pub fn for_radii(domain: &Domain, rmin: f64, rmax: f64, n: usize) -> Result<Grid, String> {
        let target = (4 * n as u64).max(1 << 16);
        Grid::with_levels(domain, rmin, rmax, 0.0, Some(target), MAX_LEVELS, None)
    }

    /// The grid a run of `scene` uses: a level per size class of its
    /// particles and insertions, level 0's cells at least the largest
    /// diameter plus the neighbour skin.
    pub fn for_scene(scene: &Scene) -> Result<Grid, String> {
        let (rmin, rmax) = scene.radius_range();
        let half_skin = 0.5 * scene.skin();
        // the top of the smallest size class: the largest half cutoff under
        // twice the smallest (an insertion range across that bound: just
        // under it)
        let hmin = rmin + half_skin;
        let mut small = hmin;
        for p in &scene.particles {
            let h = p.radius + half_skin;
            if h < 2.0 * hmin {
                small = small.max(h);
            }
        }
        for i in &scene.inserts {
            let (a, b) = (i.radius.min() + half_skin, i.radius.max() + half_skin);
            if b < 2.0 * hmin {
                small = small.max(b);
            } else if a < 2.0 * hmin {
                small = small.max(2.0 * hmin * (1.0 - 1e-9));
            }
        }
        let target = (4 * scene.particles.len() as u64).max(1 << 16);
        Grid::with_levels(
            &scene.domain,
            rmin + half_skin,
            rmax + half_skin,
            half_skin,
            Some(target),
            scene
                .simulation
                .grid_levels
                .map_or(MAX_LEVELS, |l| (l as usize).clamp(1, MAX_LEVELS)),
            Some(small),
        )
    }

    pub fn new(domain: &Domain, rmax: f64) -> Result<Grid, String> {
        Grid::with_target(domain, rmax, Some(1 << 22))
    }

    /// Cells of every level together.
    pub fn n_cells(&self) -> usize {
        let last = self.levels[self.n_levels - 1];
        last.first as usize + last.dims.iter().map(|&d| d as usize).product::<usize>()
    }

    /// The levels whose particles are large: half cutoff (H, or the
    /// largest particle's where that is smaller) ≥ 4 × the finest level's,
    /// so a row of theirs among the small ones holds ≳ 200 entries (the GPU
    /// gives each such row a workgroup, not a thread: `contacts_large`).
    /// 0 in a grid of fewer than 3 levels. (By H alone, 1100 spheres 2.6 ×
    /// the small ones' size in a level anchored 4 × above took the
    /// workgroup path on lavapipe with rows of ~80: 2.5 × slower.)
    pub fn large_levels(&self) -> usize {
        let finest = self.levels[self.n_levels - 1].half_cut;
        self.levels[..self.n_levels]
            .iter()
            .take_while(|l| l.half_cut.min(self.hmax) >= 4.0 * finest * (1.0 - 1e-9))
            .count()
    }

    /// The key after level `l`'s last cell (the next level's first).
    #[inline]
    pub fn level_end(&self, l: usize) -> u32 {
        if l + 1 < self.n_levels {
            self.levels[l + 1].first
        } else {
            self.n_cells() as u32
        }
    }

    /// The level of a particle of radius `r`: the finest whose half cutoff
    /// H is at least r + skin / 2 (twin of `level_of` in
    /// `shaders/common.wgsl`).
    #[inline]
    pub fn level_of(&self, r: f64) -> usize {
        let h = r + self.half_skin;
        let mut l = 0;
        while l + 1 < self.n_levels && self.levels[l + 1].half_cut >= h {
            l += 1;
        }
        l
    }

    /// The cell key of a particle at `x` of radius `r`: its level's cell,
    /// clamped into the grid (twin of `particle_key` in `common.wgsl`).
    #[inline]
    pub fn particle_key(&self, x: [f64; 3], r: f64) -> u32 {
        let lv = &self.levels[self.level_of(r)];
        let mut c = [0u32; 3];
        for k in 0..3 {
            let f = ((x[k] - self.min[k]) * lv.inv_cell[k]).floor();
            c[k] = f.clamp(0.0, (lv.dims[k] - 1) as f64) as u32;
        }
        lv.first + c[0] + lv.dims[0] * (c[1] + lv.dims[1] * c[2])
    }

    /// The cells of level `l` within `reach` of `x` (slack added: see
    /// [`REACH_SLACK`]); twin of `level_range` in `common.wgsl`.
    #[inline]
    pub fn level_range(&self, l: usize, x: [f64; 3], reach: f64) -> CellRange {
        let lv = &self.levels[l];
        let mut r = CellRange {
            lo: [0; 3],
            hi: [0; 3],
        };
        for (k, &xk) in x.iter().enumerate() {
            let n = lv.dims[k] as i64;
            let m = reach * (1.0 + REACH_SLACK) + PERIOD_SLACK * self.len[k];
            let at = |v: f64| {
                ((v - self.min[k]) * lv.inv_cell[k])
                    .floor()
                    .clamp(-1e9, 1e9) as i64
            };
            let (lo, hi) = (at(xk - m), at(xk + m));
            (r.lo[k], r.hi[k]) = if !self.periodic[k] {
                (lo.clamp(0, n - 1), hi.clamp(0, n - 1))
            } else if hi - lo + 1 >= n {
                (0, n - 1)
            } else {
                (lo, hi)
            };
        }
        r
    }

    /// `b - a`, taken through the periodic boundaries (minimum image).
    #[inline]
    pub fn min_image(&self, a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        let mut d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        // the common case: one predictable branch instead of one per axis
        if self.periodic == [false; 3] {
            return d;
        }
        for (k, dk) in d.iter_mut().enumerate() {
            if self.periodic[k] {
                *dk -= self.len[k] * (*dk / self.len[k]).round();
            }
        }
        d
    }

    /// Wraps a position into [min, max) on periodic axes.
    #[inline]
    pub fn wrap(&self, p: &mut [f64; 3]) {
        if self.periodic == [false; 3] {
            return;
        }
        for (k, pk) in p.iter_mut().enumerate() {
            if self.periodic[k] {
                let rel = *pk - self.min[k];
                if !(0.0..self.len[k]).contains(&rel) {
                    *pk = self.min[k] + rel.rem_euclid(self.len[k]);
                    if *pk >= self.min[k] + self.len[k] {
                        *pk = self.min[k];
                    }
                }
            }
        }
    }

    /// Calls `f(range)` with the particle index ranges (into arrays sorted by
    /// cell, `starts` from the scan) of every cell that can hold a
    /// neighbour-list candidate of a particle of radius `r` at `x`: in each
    /// level with particles (coarsest first), the cells within
    /// r + skin / 2 + H_l ([`Grid::level_range`]), rows in z then y order,
    /// each row's x-cells merged into one range (they are consecutive in
    /// memory; two where a periodic x axis wraps). In the one-level grid of
    /// a monodisperse bed that is the 27 cells around, as 9 ranges.
    #[inline]
    pub fn for_ranges(
        &self,
        x: [f64; 3],
        r: f64,
        starts: &[u32],
        mut f: impl FnMut(std::ops::Range<usize>),
    ) {
        let h = r + self.half_skin;
        for l in 0..self.n_levels {
            let lv = &self.levels[l];
            let (a, b) = (
                starts[lv.first as usize],
                starts[self.level_end(l) as usize],
            );
            if a == b {
                continue;
            }
            let c = self.level_range(l, x, h + lv.half_cut);
            let d = lv.dims.map(|v| v as i64);
            let wrap = |v: i64, n: i64| v.rem_euclid(n) as usize;
            for z in c.lo[2]..=c.hi[2] {
                for y in c.lo[1]..=c.hi[1] {
                    let row = lv.first as usize
                        + d[0] as usize * (wrap(y, d[1]) + d[1] as usize * wrap(z, d[2]));
                    let span = |lo: i64, hi: i64| {
                        starts[row + lo as usize] as usize..starts[row + hi as usize + 1] as usize
                    };
                    let (lo, hi) = (c.lo[0], c.hi[0]);
                    if lo < 0 {
                        f(span(lo + d[0], d[0] - 1));
                        f(span(0, hi));
                    } else if hi >= d[0] {
                        f(span(lo, d[0] - 1));
                        f(span(0, hi - d[0]));
                    } else {
                        f(span(lo, hi));
                    }
                }
            }
        }
    }
}
