//! Stage 3, neighbours: the Verlet candidate list. Each particle lists every
//! other particle within r_i + r_j + skin (indices into the arrays in cell
//! order), found through the cells around it in each level of the grid, in
//! the fixed order of [`Grid::for_ranges`]. The list is a CSR: `start[i]..start[i+1]`
//! of `list`: counts per particle, their exclusive scan, the entries (the
//! GPU, `shaders/neighbours.wgsl`, in three passes: count, scan, fill).
//!
//! The list (and the cell order with it: bin, sort and the reorder run only
//! then) is rebuilt when some particle has moved more than skin / 2 since
//! the last build; `integrate` measures that. Until then no pair can come
//! into contact unlisted: two particles not listed were ≥ r_i + r_j + skin
//! apart and each has moved at most skin / 2.
//!
//! Each entry carries the tangential history of its pair (zero while the
//! pair is not in contact), and flags in its top bit ([`HAS_HISTORY`])
//! whether that history is non-zero. A build moves it over from the
//! previous list: each of i's old entries with history finds its partner's
//! new index among i's new entries (the rebuild has reordered the
//! particles since).
//!
//! Wall primitives are listed too: after its particle partners, each row
//! lists the primitives within r + skin of the particle, in primitive
//! order, flagged [`WALL`] ([`for_walls`]). Their history sits beside the
//! entry like a pair's and moves over the same way (a primitive keeps its
//! index), so the contact stage tests only the walls a particle can reach
//! (most particles are away from every wall) and wall history costs memory
//! only where a particle is near a wall: a mesh of 10⁴ triangles costs
//! nothing per particle but its listed triangles.

use super::hist::{HistMut, HistRef, HistVec};
use crate::grid::Grid;
use crate::state::{HAS_HISTORY, INDEX, WALL};
use crate::walls::{gap, WallSet};
use bytemuck::Pod;
use rayon::prelude::*;

/// The first list entry whose [`HAS_HISTORY`] flag disagrees with its
/// history (flag set ⇔ history non-zero), if any.
pub fn flag_mismatch<T: Pod + Default + PartialEq, const N: usize>(
    nbr: &[u32],
    hist: &[[T; N]],
) -> Option<usize> {
    let zero = [T::default(); N];
    nbr.iter()
        .zip(hist)
        .position(|(e, h)| (e & HAS_HISTORY != 0) != (*h != zero))
}

/// Particles per parallel chunk of the build.
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
    grid.for_ranges(xi, p[3], starts, |range| {
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

/// Calls `f(w)` for every wall primitive within r + skin of particle `p`
/// (x, y, z, r), in primitive order: a particle and a wall each move at
/// most skin / 2 before the next build, so a primitive farther away cannot
/// touch it in between. Each wall is searched in its body frame at its
/// current pose: an analytic wall's primitive is tested, a mesh's
/// triangles are those its grid lists for the particle's cell.
#[inline]
pub fn for_walls(p: [f64; 4], walls: &WallSet, skin: f64, mut f: impl FnMut(usize)) {
    let x = [p[0], p[1], p[2]];
    let reach = p[3] + skin;
    for b in &walls.bodies {
        let xb = if b.pose.moving {
            b.pose.to_body(glam::DVec3::from(x)).to_array()
        } else {
            x
        };
        match &b.grid {
            Some(grid) => {
                for &w in grid.candidates(xb) {
                    if gap(&walls.prims[w as usize], xb).dist < reach {
                        f(w as usize);
                    }
                }
            }
            None => {
                for w in b.first..b.end {
                    if gap(&walls.prims[w as usize], xb).dist < reach {
                        f(w as usize);
                    }
                }
            }
        }
    }
}

/// The list a build moves the pair history from: the previous list (its
/// CSR `start` and `nbr` over the previous order, and the history beside
/// each entry), `new_at[o]`, where the particle that stood at `o` in that
/// order stands now, and `order[i]`, where particle i stood. `start` is
/// empty before the first build.
pub struct OldList<'a> {
    pub start: &'a [u32],
    pub nbr: &'a [u32],
    pub hist: HistRef<'a>,
    pub new_at: &'a [u32],
    pub order: &'a [u32],
}

impl OldList<'_> {
    /// Moves the history of the particle that stood at `o` in the previous
    /// order into its new row: `row` holds its new entries (no history
    /// flags), `hist` the history beside them (zero on entry). Only the old
    /// entries flagged [`HAS_HISTORY`] are looked at (a contact is ~1
    /// candidate in 8): each finds its partner among `row` (a particle by
    /// its new index, a wall primitive by its own), and the entry there
    /// gets the history and the flag. A contact is always listed again (it
    /// is within reach), so no history is dropped.
    #[inline]
    pub fn carry_into(&self, o: usize, row: &mut [u32], hist: &mut HistMut) {
        // before the first build, and particles inserted since the last
        // one, have no row in the previous list
        if o + 1 >= self.start.len() {
            return;
        }
        let (lo, hi) = (self.start[o] as usize, self.start[o + 1] as usize);
        for (q, &ob) in self.nbr[lo..hi].iter().enumerate() {
            if ob & HAS_HISTORY == 0 {
                continue;
            }
            let jn = if ob & WALL != 0 {
                ob & !HAS_HISTORY
            } else {
                self.new_at[(ob & INDEX) as usize]
            };
            if let Some(k) = row.iter().position(|&x| x == jn) {
                hist.set(k, self.hist.get(lo + q));
                row[k] |= HAS_HISTORY;
            }
        }
    }
}

/// The list being built: per-particle counts, their exclusive scan (n + 1
/// entries), the candidates and the pair history beside them.
pub struct NewList<'a> {
    pub count: &'a mut Vec<u32>,
    pub start: &'a mut Vec<u32>,
    pub nbr: &'a mut Vec<u32>,
    pub hist: &'a mut HistVec,
    /// Each chunk's candidates while counting (scratch).
    pub chunks: &'a mut Vec<Vec<u32>>,
}

/// Builds the list (particle candidates, then the wall primitives within
/// reach; `body`, each row's clump or empty, keeps a clump's members off
/// each other's rows) over particles already in cell order (`starts` indexes
/// the arrays directly; particle i stood at `old.order[i]` in the previous
/// order) and moves each listed pair's history over from `old` (zero for a
/// pair new to the list). One search per particle: each chunk of `CHUNK`
/// (1024) particles gathers its candidates into its own buffer
/// (`NewList::chunks`, kept between builds) while counting, and after the
/// scan the buffers are copied into place (the GPU, which cannot grow a
/// buffer inside a kernel, searches twice: count, then fill; the list is
/// the same). Nothing is allocated once the vectors have reached their size,
/// except the chunk table of the copy (n / 1024 slices).
#[allow(clippy::too_many_arguments)]
pub fn build(
    grid: &Grid,
    pos_rad: &[[f64; 4]],
    walls: &WallSet,
    starts: &[u32],
    skin: f64,
    body: &[u32],
    old: &OldList,
    new: NewList,
) {
    let n = pos_rad.len();
    let NewList {
        count,
        start,
        nbr: list,
        hist,
        chunks,
    } = new;
    count.resize(n, 0);
    chunks.resize(n.div_ceil(CHUNK), Vec::new());
    chunks
        .par_iter_mut()
        .zip(count.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(ci, (buf, counts))| {
            buf.clear();
            for (k, c) in counts.iter_mut().enumerate() {
                let before = buf.len();
                let i = ci * CHUNK + k;
                if body.is_empty() || body[i] == crate::shapes::clumps::NONE {
                    for_candidates(i, pos_rad, grid, starts, skin, |j| buf.push(j as u32));
                } else {
                    // a clump's members never meet each other
                    let own = body[i];
                    for_candidates(i, pos_rad, grid, starts, skin, |j| {
                        if body[j] != own {
                            buf.push(j as u32)
                        }
                    });
                }
                for_walls(pos_rad[i], walls, skin, |w| buf.push(w as u32 | WALL));
                *c = (buf.len() - before) as u32;
            }
        });
    super::sort::exclusive_scan(count, start);
    let len = start[n] as usize;
    list.resize(len, 0);
    hist.resize(len);
    // cut the list into the slices of each chunk of particles
    let mut slices: Vec<(&mut [u32], HistMut)> = Vec::with_capacity(chunks.len());
    let (mut rest, mut rest_h) = (list.as_mut_slice(), hist.as_mut());
    for buf in chunks.iter() {
        let (head, tail) = rest.split_at_mut(buf.len());
        let (head_h, tail_h) = rest_h.split_at_mut(buf.len());
        slices.push((head, head_h));
        rest = tail;
        rest_h = tail_h;
    }
    slices
        .into_par_iter()
        .zip(chunks.par_iter())
        .enumerate()
        .for_each(|(ci, ((out, mut out_h), buf))| {
            out.copy_from_slice(buf);
            out_h.fill_zero();
            let lo = ci * CHUNK;
            let base = start[lo] as usize;
            let hi = (lo + CHUNK).min(n);
            for i in lo..hi {
                let (k0, k1) = (start[i] as usize - base, start[i + 1] as usize - base);
                old.carry_into(
                    old.order[i] as usize,
                    &mut out[k0..k1],
                    &mut out_h.slice(k0..k1),
                );
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
