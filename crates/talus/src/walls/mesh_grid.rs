//! A mesh wall's static uniform grid in its body frame: each cell lists the
//! triangles that may lie within `reach` of any point of the cell, so a
//! particle finds the triangles near it in O(1) whatever the mesh's size.
//! Built once per mesh (the frame is the body's: motion never rebuilds it).
//! The GPU reads the same grid (`WallInfo::grid_min`, `grid_dims`, the cell
//! starts and lists) and finds a centre's cell as `floor((x − min) ·
//! inv_cell)` in f32, clamped into the grid; the lists carry a margin for
//! the difference that rounding can make (see [`build`]).

use super::geometry::triangle_gap;
use super::primitive::Primitive;
use glam::DVec3;

/// Cells at most (a bigger mesh gets bigger cells).
pub const MAX_CELLS: u64 = 1 << 22;
/// Cell–triangle pairs at most, counted over each triangle's grown box
/// before refinement (an upper bound on the entries).
pub const MAX_ENTRIES: u64 = 1 << 24;

/// A static uniform grid over a mesh's triangles (CSR: the triangles of
/// cell k are `tris[start[k]..start[k + 1]]`, cells numbered x fastest).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshGrid {
    /// The grid's lower corner (body frame).
    pub min: [f64; 3],
    /// The cell edge.
    pub cell: f64,
    pub dims: [u32; 3],
    /// cells + 1 offsets into `tris`.
    pub start: Vec<u32>,
    /// Primitive indices (`first` + position in the mesh), ascending within
    /// each cell.
    pub tris: Vec<u32>,
}

/// The grid of a mesh whose triangles are `prims` (`prims[0]` is primitive
/// `first` of the scene), listing each triangle in every cell it may come
/// within `reach` of (the largest particle radius + the skin).
///
/// - Coverage: the mesh's bounding box grown by `reach` (a centre outside
///   it is farther than `reach` from every triangle).
/// - Cell edge: `reach`, raised (by factors of 1.25) until the grid has at
///   most [`MAX_CELLS`] cells and the triangles' grown boxes cover at most
///   [`MAX_ENTRIES`] cells in all; at least 1e-6 of the mesh's extent (a
///   `reach` of 0).
/// - Listing: triangle T is in cell B when T's bounding box grown by
///   r = reach + margin overlaps B and T's distance to B's centre is at
///   most r + B's half-diagonal: every triangle within r of some point of
///   B is listed (conservative; a few farther ones too).
/// - Margin, for the GPU's f32 cell index: a centre whose f32 cell differs
///   from its exact one is within δ of that cell's box, δ the rounding of
///   the f32 inputs (`min`, 1 / cell, x: ~6e-8 relative each) and of the
///   index arithmetic: δ ≤ 2.5e-7 · (|min| + |max|) + 2.5e-7 · max dims ·
///   cell. The margin is 1e-4 · cell plus that bound, so triangles within
///   `reach` of a centre are listed in the cell the GPU finds for it too.
pub fn build(prims: &[Primitive], first: u32, reach: f64) -> MeshGrid {
    let v = |q: [f64; 4]| DVec3::new(q[0], q[1], q[2]);
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in prims {
        for q in [p.a, p.b, p.c] {
            lo = lo.min(v(q));
            hi = hi.max(v(q));
        }
    }
    if prims.is_empty() {
        (lo, hi) = (DVec3::ZERO, DVec3::ZERO);
    }
    let extent = (hi - lo).max_element();
    let reach = reach.max(0.0);
    let mut cell = reach.max(1e-6 * extent).max(f64::MIN_POSITIVE);
    let (mut min, mut dims, mut margin);
    loop {
        // margin first from the grid this cell edge would give
        let span = hi - lo + DVec3::splat(2.0 * reach);
        let d = (span / cell).ceil().max(DVec3::ONE) + DVec3::ONE;
        let max_dim = d.max_element();
        let coord = lo.abs().max(hi.abs()).max_element() + reach + cell;
        margin = 1e-4 * cell + 2.5e-7 * 2.0 * coord + 2.5e-7 * max_dim * cell;
        let grow = reach + margin;
        min = lo - DVec3::splat(grow);
        let span = hi - lo + DVec3::splat(2.0 * grow);
        let d = (span / cell).ceil().max(DVec3::ONE);
        dims = [d.x as u64, d.y as u64, d.z as u64];
        let cells = dims[0] * dims[1] * dims[2];
        let entries: u64 = prims
            .iter()
            .map(|p| {
                let (a, b) = tri_box(p, grow);
                let (i0, i1) = (index(a, min, cell, dims), index(b, min, cell, dims));
                (0..3).map(|k| (i1[k] - i0[k] + 1) as u64).product::<u64>()
            })
            .sum();
        if cells <= MAX_CELLS && entries <= MAX_ENTRIES {
            break;
        }
        cell *= 1.25;
    }
    let r = reach + margin;
    let half_diag = 0.5 * cell * 3f64.sqrt();
    let n_cells = (dims[0] * dims[1] * dims[2]) as usize;
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (t, p) in prims.iter().enumerate() {
        let (a, b) = tri_box(p, r);
        let (i0, i1) = (index(a, min, cell, dims), index(b, min, cell, dims));
        for z in i0[2]..=i1[2] {
            for y in i0[1]..=i1[1] {
                for x in i0[0]..=i1[0] {
                    let centre = min + (DVec3::new(x as f64, y as f64, z as f64) + 0.5) * cell;
                    if triangle_gap(p, centre, false).dist <= r + half_diag {
                        let k = x + dims[0] as i64 * (y + dims[1] as i64 * z);
                        pairs.push((k as u32, first + t as u32));
                    }
                }
            }
        }
    }
    // counting sort by cell; triangles stay ascending within a cell
    let mut start = vec![0u32; n_cells + 1];
    for &(k, _) in &pairs {
        start[k as usize + 1] += 1;
    }
    for k in 0..n_cells {
        start[k + 1] += start[k];
    }
    let mut fill = start.clone();
    let mut tris = vec![0u32; pairs.len()];
    for &(k, t) in &pairs {
        tris[fill[k as usize] as usize] = t;
        fill[k as usize] += 1;
    }
    MeshGrid {
        min: min.to_array(),
        cell,
        dims: dims.map(|d| d as u32),
        start,
        tris,
    }
}

/// A triangle's bounding box grown by `r`.
fn tri_box(p: &Primitive, r: f64) -> (DVec3, DVec3) {
    let v = |q: [f64; 4]| DVec3::new(q[0], q[1], q[2]);
    let lo = v(p.a).min(v(p.b)).min(v(p.c)) - DVec3::splat(r);
    let hi = v(p.a).max(v(p.b)).max(v(p.c)) + DVec3::splat(r);
    (lo, hi)
}

/// The cell of `x`, clamped into the grid.
fn index(x: DVec3, min: DVec3, cell: f64, dims: [u64; 3]) -> [i64; 3] {
    let f = ((x - min) / cell).floor();
    let c = |v: f64, n: u64| (v.max(0.0) as i64).min(n as i64 - 1);
    [c(f.x, dims[0]), c(f.y, dims[1]), c(f.z, dims[2])]
}

impl MeshGrid {
    /// 1 / cell, what the GPU multiplies by (`WallInfo::grid_min.w`).
    pub fn inv_cell(&self) -> f64 {
        1.0 / self.cell
    }

    /// The cell of body-frame point `x` as the GPU computes it, floor((x −
    /// min) · inv_cell) (here in f64), or None outside the grid.
    pub fn cell_of(&self, x_body: [f64; 3]) -> Option<[u32; 3]> {
        let inv = self.inv_cell();
        let mut c = [0u32; 3];
        for k in 0..3 {
            let f = ((x_body[k] - self.min[k]) * inv).floor();
            if !(f >= 0.0 && f < self.dims[k] as f64) {
                return None;
            }
            c[k] = f as u32;
        }
        Some(c)
    }

    /// The triangles of cell `c` (x fastest).
    pub fn cell_tris(&self, c: [u32; 3]) -> &[u32] {
        let k = (c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])) as usize;
        &self.tris[self.start[k] as usize..self.start[k + 1] as usize]
    }

    /// The triangles (primitive indices) that may be within `reach` of
    /// body-frame point `x_body`: its cell's list; empty outside the grid
    /// (no triangle is within reach there).
    pub fn candidates(&self, x_body: [f64; 3]) -> &[u32] {
        match self.cell_of(x_body) {
            Some(c) => self.cell_tris(c),
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::walls::primitive::Kind;

    /// A UV sphere of radius `r` about `c`, `n` bands.
    fn sphere(c: [f64; 3], r: f64, n: usize) -> Vec<Primitive> {
        let pt = |i: usize, j: usize| {
            let th = std::f64::consts::PI * i as f64 / n as f64;
            let ph = 2.0 * std::f64::consts::PI * j as f64 / (2 * n) as f64;
            [
                c[0] + r * th.sin() * ph.cos(),
                c[1] + r * th.sin() * ph.sin(),
                c[2] + r * th.cos(),
                0.0,
            ]
        };
        let mut v = Vec::new();
        for i in 0..n {
            for j in 0..2 * n {
                let (a, b, cc, d) = (pt(i, j), pt(i + 1, j), pt(i + 1, j + 1), pt(i, j + 1));
                for t in [[a, b, cc], [a, cc, d]] {
                    let p = Primitive {
                        kind: Kind::Triangle,
                        material: 0,
                        wall: 0,
                        a: t[0],
                        b: t[1],
                        c: t[2],
                    };
                    let e = |u: [f64; 4], w: [f64; 4]| {
                        DVec3::new(u[0] - w[0], u[1] - w[1], u[2] - w[2])
                    };
                    if e(t[1], t[0]).cross(e(t[2], t[0])).length() > 1e-12 {
                        v.push(p);
                    }
                }
            }
        }
        v
    }

    #[test]
    fn candidates_hold_every_triangle_within_reach() {
        let mut rng = Rng::new(7);
        for (reach, n) in [(0.05, 12), (0.2, 24), (0.011, 40)] {
            let prims = sphere([0.3, -1.2, 2.0], 0.8, n);
            let first = 5;
            let g = build(&prims, first, reach);
            assert_eq!(g.start.len() as u32, g.dims.iter().product::<u32>() + 1);
            assert!(g.start.windows(2).all(|w| w[0] <= w[1]));
            for k in 0..g.start.len() - 1 {
                let l = &g.tris[g.start[k] as usize..g.start[k + 1] as usize];
                assert!(l.windows(2).all(|w| w[0] < w[1]));
            }
            let mut listed = 0usize;
            for _ in 0..4000 {
                // points near the surface (inside and out) and around it
                let u = DVec3::from(rng.in_unit_ball());
                let dir = if u.length() > 0.0 {
                    u / u.length()
                } else {
                    DVec3::X
                };
                let rr = 0.8 + rng.range(-3.0, 3.0) * reach;
                let x = (DVec3::new(0.3, -1.2, 2.0) + dir * rr).to_array();
                let cand = g.candidates(x);
                // the cell the GPU finds, in f32 (clamped)
                let inv = g.inv_cell() as f32;
                let cf: [u32; 3] = std::array::from_fn(|k| {
                    let f = ((x[k] as f32 - g.min[k] as f32) * inv).floor();
                    f.clamp(0.0, (g.dims[k] - 1) as f32) as u32
                });
                let cand32 = g.cell_tris(cf);
                for (t, p) in prims.iter().enumerate() {
                    if triangle_gap(p, DVec3::from(x), false).dist < reach {
                        let id = first + t as u32;
                        assert!(cand.contains(&id), "reach {reach}: {x:?} misses {t}");
                        assert!(cand32.contains(&id), "f32 cell of {x:?} misses {t}");
                        listed += 1;
                    }
                }
            }
            assert!(listed > 1000, "{listed}");
            // far away: nothing
            assert!(g.candidates([10.0, 0.0, 0.0]).is_empty());
        }
    }

    #[test]
    fn big_meshes_get_bigger_cells() {
        let prims = sphere([0.0; 3], 100.0, 20);
        let g = build(&prims, 0, 0.001);
        let cells: u64 = g.dims.iter().map(|&d| d as u64).product();
        assert!(
            cells <= MAX_CELLS && g.cell > 0.001,
            "{:?} {}",
            g.dims,
            g.cell
        );
        assert!(g.tris.len() as u64 <= MAX_ENTRIES);
    }
}
