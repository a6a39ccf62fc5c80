//! Stage 1, bin: the cell key of every particle (in the level of its size,
//! see `grid`) and the particle count of every cell.

use crate::grid::Grid;

/// Writes `keys[i]` and counts particles per cell into `counts` (resized to
/// the number of cells and zeroed).
pub fn bin(grid: &Grid, pos_rad: &[[f64; 4]], keys: &mut Vec<u32>, counts: &mut Vec<u32>) {
    use rayon::prelude::*;
    keys.resize(pos_rad.len(), 0);
    keys.par_iter_mut()
        .zip(pos_rad.par_iter())
        .with_min_len(crate::state::PAR_MIN)
        .for_each(|(k, p)| *k = grid.particle_key([p[0], p[1], p[2]], p[3]));
    counts.clear();
    counts.resize(grid.n_cells(), 0);
    for &k in keys.iter() {
        counts[k as usize] += 1;
    }
}
