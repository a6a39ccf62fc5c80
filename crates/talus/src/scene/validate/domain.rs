//! `[domain]`: a box with max > min, and a grid that fits it (periodic axes
//! at least 2 neighbour cutoffs long, not too many cells).
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::grid::Grid;
use crate::scene::error::SceneError;
use crate::scene::types::Scene;

/// max > min on every axis (checked before anything uses the domain).
pub(super) fn check_domain(s: &Scene) -> Result<(), SceneError> {
    let d = &s.domain;
    for k in 0..3 {
        if !(d.max[k] > d.min[k]) {
            return Err(s.error(
                "domain.max",
                format!(
                    "expected max > min on every axis; {} has min {} and max {}",
                    ["x", "y", "z"][k],
                    d.min[k],
                    d.max[k]
                ),
            ));
        }
    }
    Ok(())
}

/// The grid a run of the scene uses, once the particles are known to be
/// valid: periodic axes must hold 2 neighbour cutoffs (no pair within a
/// cutoff of two images of the same partner: the minimum image is exact).
pub(super) fn check_grid(s: &Scene) -> Result<Grid, SceneError> {
    let d = &s.domain;
    let cutoff = 2.0 * s.radius_range().1 + s.skin();
    for k in 0..3 {
        let len = d.max[k] - d.min[k];
        if d.periodic[k] && len < 2.0 * cutoff {
            return Err(s.error(
                "domain.periodic",
                format!(
                    "periodic axis {} is {len} m long: it must be at least 2 × (the largest diameter + the neighbour skin) ({} m), i.e. {} m",
                    ["x", "y", "z"][k],
                    cutoff,
                    2.0 * cutoff
                ),
            ));
        }
    }
    Grid::for_scene(s).map_err(|m| s.error("domain", m))
}
