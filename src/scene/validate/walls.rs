//! `[[walls]]`: non-zero normals, normalised before validation.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::Scene;
use glam::DVec3;

pub(super) fn check_walls(s: &Scene) -> Result<(), SceneError> {
    for (i, w) in s.walls.iter().enumerate() {
        let Some((_, normal)) = w.as_plane() else {
            continue;
        };
        let n2 = DVec3::from(normal).length_squared();
        if !(n2 > 0.0) || !n2.is_finite() {
            return Err(s.error(
                &format!("walls[{i}].normal"),
                "expected a non-zero normal vector",
            ));
        }
        if (n2 - 1.0).abs() > 1e-12 {
            return Err(s.error(
                &format!("walls[{i}].normal"),
                "internal: wall normals must be normalised before validation",
            ));
        }
    }
    Ok(())
}
