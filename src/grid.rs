//! The uniform grid of the broad phase. Cell edge ≥ the largest neighbour
//! cutoff (largest diameter + the Verlet skin), so every neighbour-list
//! candidate of a particle lies in its own or one of the 26 neighbouring
//! cells. Cells are numbered x fastest: `key = ix + nx (iy + ny iz)`.
//!
//! Particles outside a non-periodic domain are clamped into the edge cells:
//! clamping moves no two particles further apart in cell units, so contact
//! detection stays exact (just slower if many leave).

use crate::scene::types::{Domain, Scene};

pub mod pairs;

/// Most cells a grid may have (two u32 per cell: 2 GiB).
pub const MAX_CELLS: u64 = 1 << 28;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub min: [f64; 3],
    pub len: [f64; 3],
    pub dims: [u32; 3],
    pub cell: [f64; 3],
    pub inv_cell: [f64; 3],
    pub periodic: [bool; 3],
}

impl Grid {
    /// A grid over `domain` whose cells are at least `2 rmax` wide (`rmax`:
    /// half the largest neighbour cutoff, i.e. the largest radius plus half
    /// the skin). When `target_cells` is
    /// given the cell edge grows so that there are at most about that many
    /// cells (large empty domains, e.g. two spheres in a big box).
    pub fn with_target(
        domain: &Domain,
        rmax: f64,
        target_cells: Option<u64>,
    ) -> Result<Grid, String> {
        let len = [
            domain.max[0] - domain.min[0],
            domain.max[1] - domain.min[1],
            domain.max[2] - domain.min[2],
        ];
        let mut edge = 2.0 * rmax;
        if let Some(t) = target_cells {
            let vol = len[0] * len[1] * len[2];
            edge = edge.max((vol / t.max(1) as f64).cbrt());
        }
        let mut dims = [1u32; 3];
        for k in 0..3 {
            // a periodic axis needs 3 cells; the enlarged edge of a sparse
            // domain may shrink to len/3 there, never below the diameter
            let e = if domain.periodic[k] {
                edge.min(len[k] / 3.0).max(2.0 * rmax)
            } else {
                edge
            };
            let n = (len[k] / e).floor();
            dims[k] = if n >= 1.0 {
                n.min(u32::MAX as f64 / 4.0) as u32
            } else {
                1
            };
            if domain.periodic[k] && dims[k] < 3 {
                return Err(format!(
                    "periodic axis {} is {} m long: it must be at least 3 neighbour cutoffs (largest diameter + neighbour skin: {} m)",
                    ["x", "y", "z"][k],
                    len[k],
                    3.0 * 2.0 * rmax
                ));
            }
        }
        let total = dims.iter().map(|&d| d as u64).product::<u64>();
        if total > MAX_CELLS {
            return Err(format!(
                "the grid would need {total} cells (largest diameter {} m in a {} × {} × {} m domain); at most {MAX_CELLS} are supported: shrink the domain",
                2.0 * rmax, len[0], len[1], len[2]
            ));
        }
        let cell = [
            len[0] / dims[0] as f64,
            len[1] / dims[1] as f64,
            len[2] / dims[2] as f64,
        ];
        Ok(Grid {
            min: domain.min,
            len,
            dims,
            cell,
            inv_cell: [1.0 / cell[0], 1.0 / cell[1], 1.0 / cell[2]],
            periodic: domain.periodic,
        })
    }

    /// A grid with at most ~max(4 n, 65 536) cells, for `n` particles.
    pub fn for_particles(domain: &Domain, rmax: f64, n: usize) -> Result<Grid, String> {
        Grid::with_target(domain, rmax, Some((4 * n as u64).max(1 << 16)))
    }

    /// The grid a run of `scene` uses: cells of at least the largest
    /// diameter plus the neighbour skin.
    pub fn for_scene(scene: &Scene) -> Result<Grid, String> {
        let (_, rmax) = scene.radius_range();
        Grid::for_particles(
            &scene.domain,
            rmax + 0.5 * scene.skin(),
            scene.particles.len(),
        )
    }

    pub fn new(domain: &Domain, rmax: f64) -> Result<Grid, String> {
        Grid::with_target(domain, rmax, Some(1 << 22))
    }

    pub fn n_cells(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }

    /// Integer cell coordinates of a position (clamped into the grid).
    #[inline]
    pub fn coord(&self, p: [f64; 3]) -> [u32; 3] {
        let mut c = [0u32; 3];
        for k in 0..3 {
            let f = ((p[k] - self.min[k]) * self.inv_cell[k]).floor();
            c[k] = f.clamp(0.0, (self.dims[k] - 1) as f64) as u32;
        }
        c
    }

    #[inline]
    pub fn key_of(&self, c: [u32; 3]) -> u32 {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    #[inline]
    pub fn key(&self, p: [f64; 3]) -> u32 {
        self.key_of(self.coord(p))
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
    /// cell, `starts` from the scan) of the cells around `c`, visiting the
    /// up to 27 cells in a fixed order (dz, dy, dx from -1 to 1, periodic
    /// axes wrapped) and merging each row's x-neighbours, which are
    /// consecutive in memory: 9 ranges instead of 27 cells (more only where
    /// a periodic x axis wraps).
    #[inline]
    pub fn for_neighbour_ranges(
        &self,
        c: [u32; 3],
        starts: &[u32],
        mut f: impl FnMut(std::ops::Range<usize>),
    ) {
        let d = self.dims;
        let nx = d[0];
        let x = c[0];
        let wraps = self.periodic[0] && (x == 0 || x + 1 == nx);
        for dz in -1i32..=1 {
            let Some(z) = self.offset(c[2], dz, 2) else {
                continue;
            };
            for dy in -1i32..=1 {
                let Some(y) = self.offset(c[1], dy, 1) else {
                    continue;
                };
                let row = d[0] * (y + d[1] * z);
                let span = |lo: u32, hi: u32| {
                    starts[(row + lo) as usize] as usize..starts[(row + hi + 1) as usize] as usize
                };
                if !wraps {
                    f(span(x.saturating_sub(1), (x + 1).min(nx - 1)));
                } else if x == 0 {
                    f(span(nx - 1, nx - 1));
                    f(span(0, 1.min(nx - 1)));
                } else {
                    f(span(x - 1, x));
                    f(span(0, 0));
                }
            }
        }
    }

    #[inline]
    fn offset(&self, c: u32, d: i32, k: usize) -> Option<u32> {
        let n = self.dims[k] as i32;
        let v = c as i32 + d;
        if v >= 0 && v < n {
            Some(v as u32)
        } else if self.periodic[k] {
            Some(v.rem_euclid(n) as u32)
        } else {
            None
        }
    }
}
