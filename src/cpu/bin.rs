//! Stage 1, bin: the cell key of every particle and the particle count of
//! every cell.

use crate::grid::Grid;

/// Writes `keys[i]` and counts particles per cell into `counts` (resized to
/// the number of cells and zeroed).
pub fn bin(grid: &Grid, pos_rad: &[[f64; 4]], keys: &mut Vec<u32>, counts: &mut Vec<u32>) {
    use rayon::prelude::*;
    keys.resize(pos_rad.len(), 0);
    keys.par_iter_mut()
        .zip(pos_rad.par_iter())
        .for_each(|(k, p)| *k = grid.key([p[0], p[1], p[2]]));
    counts.clear();
    counts.resize(grid.n_cells(), 0);
    for &k in keys.iter() {
        counts[k as usize] += 1;
    }
}

/// All pairs (i < j) of spheres that overlap or touch (distance < r_i + r_j),
/// found through the grid; sorted. Used for input checks and as the twin of
/// the brute-force search in tests.
pub fn contact_pairs(pos_rad: &[[f64; 4]], grid: &Grid) -> Vec<(usize, usize)> {
    let mut keys = Vec::new();
    let mut counts = Vec::new();
    bin(grid, pos_rad, &mut keys, &mut counts);
    let mut starts = Vec::new();
    let mut order = Vec::new();
    super::sort::sort(&keys, &mut counts, &mut starts, &mut order);
    let mut out = Vec::new();
    for i in 0..pos_rad.len() {
        let p = pos_rad[i];
        let c = grid.coord([p[0], p[1], p[2]]);
        grid.for_neighbour_ranges(c, &starts, |range| {
            for &j in &order[range] {
                let j = j as usize;
                if j <= i {
                    continue;
                }
                let q = pos_rad[j];
                let d = grid.min_image([p[0], p[1], p[2]], [q[0], q[1], q[2]]);
                let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if d2 < (p[3] + q[3]) * (p[3] + q[3]) {
                    out.push((i, j));
                }
            }
        });
    }
    out.sort_unstable();
    out
}

/// O(N²) reference for [`contact_pairs`].
pub fn brute_force_pairs(pos_rad: &[[f64; 4]], grid: &Grid) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..pos_rad.len() {
        for j in i + 1..pos_rad.len() {
            let (p, q) = (pos_rad[i], pos_rad[j]);
            let d = grid.min_image([p[0], p[1], p[2]], [q[0], q[1], q[2]]);
            let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if d2 < (p[3] + q[3]) * (p[3] + q[3]) {
                out.push((i, j));
            }
        }
    }
    out
}
