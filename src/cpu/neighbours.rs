//! Stage 3, neighbours: the Verlet candidate list. Each particle lists every
//! other particle within r_i + r_j + skin (indices into the arrays in cell
//! order), found through the 27 cells around it in the fixed cell order of
//! [`Grid::for_neighbour_ranges`]. The list is a CSR: `start[i]..start[i+1]`
//! of `list`, built in three passes that the GPU runs the same way
//! (`shaders/neighbours.wgsl`): count per particle, exclusive scan, fill.
//!
//! The list (and the cell order with it: bin, sort and the reorder run only
//! then) is rebuilt when some particle has moved more than skin / 2 since
//! the last build; `integrate` measures that. Until then no pair can come
//! into contact unlisted: two particles not listed were ≥ r_i + r_j + skin
//! apart and each has moved at most skin / 2.
//!
//! Each entry carries the tangential history of its pair (zero while the
//! pair is not in contact). A build moves it over from the previous list:
//! the entry (i, j) finds j among i's entries there, through the ids (the
//! rebuild has reordered the particles since).
//!
//! Walls are not listed: every particle tests every wall each step (a few
//! dot products).

use crate::grid::Grid;
use rayon::prelude::*;

/// Particles per parallel chunk of the fill pass.
const CHUNK: usize = 1024;

/// Calls `f(j)` for every candidate of particle `i` (j ≠ i, centre distance
/// < r_i + r_j + skin), in the fixed order of the cell scan.
#[inline]
pub fn for_candidates(
    i: usize,
    pos_rad: &[[f64; 4]],
    grid: &Grid,
    starts: &[u32],
    skin: f64,
    mut f: impl FnMut(usize),
) {
    let p = pos_rad[i];
    let xi = [p[0], p[1], p[2]];
    grid.for_neighbour_ranges(grid.coord(xi), starts, |range| {
        for j in range {
            if j == i {
                continue;
            }
            let q = pos_rad[j];
            let d = grid.min_image(xi, [q[0], q[1], q[2]]);
            let cut = p[3] + q[3] + skin;
            if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < cut * cut {
                f(j);
            }
        }
    });
}

/// The list a build moves the pair history from: the previous list (its
/// CSR `start` and `nbr` over the previous order, and the history beside
/// each entry) and `at[id]`, where each particle stood in that order.
/// `start` is empty before the first build.
pub struct OldList<'a> {
    pub start: &'a [u32],
    pub nbr: &'a [u32],
    pub hist: &'a [[f64; 4]],
    pub at: &'a [u32],
}

impl OldList<'_> {
    /// The history the old list holds for the pair of ids (`a`, `b`), seen
    /// from `a`'s entry; zero if the pair was not listed.
    #[inline]
    pub fn carried(&self, a: u32, b: u32) -> [f64; 4] {
        if self.start.is_empty() {
            return [0.0; 4];
        }
        let (oa, ob) = (self.at[a as usize] as usize, self.at[b as usize]);
        let (lo, hi) = (self.start[oa] as usize, self.start[oa + 1] as usize);
        match self.nbr[lo..hi].iter().position(|&x| x == ob) {
            Some(k) => self.hist[lo + k],
            None => [0.0; 4],
        }
    }
}

/// The list being built: per-particle counts, their exclusive scan (n + 1
/// entries), the candidates and the pair history beside them.
pub struct NewList<'a> {
    pub count: &'a mut Vec<u32>,
    pub start: &'a mut Vec<u32>,
    pub nbr: &'a mut Vec<u32>,
    pub hist: &'a mut Vec<[f64; 4]>,
}

/// Builds the list over particles already in cell order (`starts` indexes
/// the arrays directly, `id` are their ids) and moves each listed pair's
/// history over from `old` (zero for a pair new to the list). Reuses the
/// vectors' capacity: nothing is allocated once the list has reached its
/// size, except the chunk table of the fill (n / 1024 slices).
pub fn build(
    grid: &Grid,
    pos_rad: &[[f64; 4]],
    id: &[u32],
    starts: &[u32],
    skin: f64,
    old: &OldList,
    new: NewList,
) {
    let n = pos_rad.len();
    let NewList {
        count,
        start,
        nbr: list,
        hist,
    } = new;
    count.resize(n, 0);
    count.par_iter_mut().enumerate().for_each(|(i, c)| {
        let mut k = 0u32;
        for_candidates(i, pos_rad, grid, starts, skin, |_| k += 1);
        *c = k;
    });
    super::sort::exclusive_scan(count, start);
    let len = start[n] as usize;
    list.resize(len, 0);
    hist.resize(len, [0.0; 4]);
    // cut the list into the slices of each chunk of particles
    let mut slices: Vec<(&mut [u32], &mut [[f64; 4]])> = Vec::with_capacity(n.div_ceil(CHUNK));
    let (mut rest, mut rest_h) = (list.as_mut_slice(), hist.as_mut_slice());
    for c in (0..n).step_by(CHUNK) {
        let hi = (c + CHUNK).min(n);
        let k = (start[hi] - start[c]) as usize;
        let (head, tail) = rest.split_at_mut(k);
        let (head_h, tail_h) = rest_h.split_at_mut(k);
        slices.push((head, head_h));
        rest = tail;
        rest_h = tail_h;
    }
    slices
        .into_par_iter()
        .enumerate()
        .for_each(|(ci, (out, out_h))| {
            let lo = ci * CHUNK;
            let base = start[lo] as usize;
            let hi = (lo + CHUNK).min(n);
            for (i, &s) in start.iter().enumerate().take(hi).skip(lo) {
                let mut k = s as usize - base;
                for_candidates(i, pos_rad, grid, starts, skin, |j| {
                    out[k] = j as u32;
                    out_h[k] = old.carried(id[i], id[j]);
                    k += 1;
                });
            }
        });
}

/// Square of the largest displacement since the reference positions (the
/// rebuild test; `integrate` computes the same inline).
#[inline]
pub fn displacement2(grid: &Grid, reference: [f64; 3], pos: [f64; 3]) -> f64 {
    let d = grid.min_image(reference, pos);
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}
