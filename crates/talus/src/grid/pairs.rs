//! Pair search on the grid: every pair of spheres that overlap or touch.
//! Used by the scene checks (overlapping input) and, with its brute-force
//! twin, by the tests.

use crate::grid::Grid;

/// All pairs (i < j) of spheres that overlap or touch (distance < r_i + r_j),
/// found through the grid; sorted. Used for input checks and as the twin of
/// the brute-force search in tests.
pub fn contact_pairs(pos_rad: &[[f64; 4]], grid: &Grid) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for_each_contact(pos_rad, grid, |i, j, _| out.push((i, j)));
    out.sort_unstable();
    out
}

/// Calls `f(i, j, distance)` for every pair (i < j) of spheres that
/// overlap or touch, the distance the minimum image's (periodic axes),
/// without collecting them.
pub fn for_each_contact(pos_rad: &[[f64; 4]], grid: &Grid, mut f: impl FnMut(usize, usize, f64)) {
    let (starts, order) = cell_order(pos_rad, grid);
    for i in 0..pos_rad.len() {
        touching(pos_rad, grid, (&starts, &order), i, |j, d| f(i, j, d));
    }
}

/// The first pair (i < j, in [`contact_pairs`]' order) that overlaps or
/// touches and for which `pick(i, j, distance)` holds, with its distance,
/// found without collecting the others: a file of 10⁶ copies of one row
/// holds ~5·10¹¹ touching pairs, which [`contact_pairs`] would collect;
/// here the scan stops after the first particle that has one.
pub fn first_contact_where(
    pos_rad: &[[f64; 4]],
    grid: &Grid,
    mut pick: impl FnMut(usize, usize, f64) -> bool,
) -> Option<(usize, usize, f64)> {
    let (starts, order) = cell_order(pos_rad, grid);
    for i in 0..pos_rad.len() {
        let mut first: Option<(usize, f64)> = None;
        touching(pos_rad, grid, (&starts, &order), i, |j, d| {
            if first.is_none_or(|(f, _)| j < f) && pick(i, j, d) {
                first = Some((j, d));
            }
        });
        if let Some((j, d)) = first {
            return Some((i, j, d));
        }
    }
    None
}

/// Calls `f(j, distance)` for every j > i whose sphere overlaps or touches
/// i's (distance < r_i + r_j), in the grid's cell order (`cells`: what
/// [`cell_order`] gives).
fn touching(
    pos_rad: &[[f64; 4]],
    grid: &Grid,
    cells: (&[u32], &[u32]),
    i: usize,
    mut f: impl FnMut(usize, f64),
) {
    let (starts, order) = cells;
    let p = pos_rad[i];
    grid.for_ranges([p[0], p[1], p[2]], p[3], starts, |range| {
        for &j in &order[range] {
            let j = j as usize;
            if j <= i {
                continue;
            }
            let q = pos_rad[j];
            let d = grid.min_image([p[0], p[1], p[2]], [q[0], q[1], q[2]]);
            let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if d2 < (p[3] + q[3]) * (p[3] + q[3]) {
                f(j, d2.sqrt());
            }
        }
    });
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

/// The particles in cell order (a counting sort by cell key, ascending
/// index inside each cell) and `starts[c]`, the first slot of cell `c`
/// (`starts[n_cells]` = the particle count), as the ranges
/// [`Grid::for_ranges`] walks.
fn cell_order(pos_rad: &[[f64; 4]], grid: &Grid) -> (Vec<u32>, Vec<u32>) {
    let keys: Vec<u32> = pos_rad
        .iter()
        .map(|p| grid.particle_key([p[0], p[1], p[2]], p[3]))
        .collect();
    let mut starts = vec![0u32; grid.n_cells() + 1];
    for &k in &keys {
        starts[k as usize + 1] += 1;
    }
    for c in 0..grid.n_cells() {
        starts[c + 1] += starts[c];
    }
    let mut next = starts.clone();
    let mut order = vec![0u32; keys.len()];
    for (i, &k) in keys.iter().enumerate() {
        order[next[k as usize] as usize] = i as u32;
        next[k as usize] += 1;
    }
    (starts, order)
}
