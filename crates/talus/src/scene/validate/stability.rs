//! A fixed `dt` must be under the stable limit of [`crate::timestep`].

use crate::fem::mesh::TetMesh;
use crate::scene::error::SceneError;
use crate::scene::types::{Dt, Scene};

/// `meshes`: the bodies' tetrahedra, as the bodies' check built them (the
/// lightest surface nodes are the partners of a grain–body contact).
pub(super) fn check_dt_limit(s: &Scene, meshes: &[TetMesh]) -> Result<(), SceneError> {
    let lightest = crate::fem::build::lightest_surface_nodes(s, meshes);
    let est = crate::timestep::estimate_with(s, &lightest);
    if let Dt::Fixed(dt) = s.simulation.dt {
        if dt > est.stable_limit {
            let bonds = if est.bond_limit.is_finite() {
                format!(" and the bonds' {:.4e} s", est.bond_limit)
            } else {
                String::new()
            };
            return Err(s.error(
                "simulation.dt",
                format!(
                    "dt = {dt:e} s is above the stable limit {:.4e} s (min of the Rayleigh time {:.4e} s, a quarter of the contact time {:.4e} s at {:.3} m/s{bonds}); use dt <= {:.4e} or \"auto\"",
                    est.stable_limit, est.rayleigh, est.contact_time, est.impact_speed, est.stable_limit
                ),
            ));
        }
    }
    Ok(())
}
