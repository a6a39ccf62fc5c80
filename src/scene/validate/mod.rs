//! Physical checks of a scene, shared by files and the builder: one check
//! per section, run in a fixed order so the first violation reported is
//! always the same one.

mod contact;
mod domain;
mod materials;
mod overlaps;
mod particles;
mod simulation;
mod stability;
mod walls;

use crate::scene::error::SceneError;
use crate::scene::types::Scene;

impl Scene {
    /// Checks every physical constraint; the first violation is returned.
    pub fn validate(&self) -> Result<(), SceneError> {
        simulation::check_simulation(self)?;
        domain::check_domain(self)?;
        contact::check_contact(self)?;
        materials::check_materials(self)?;
        materials::check_interactions(self)?;
        walls::check_walls(self)?;
        particles::check_particles(self)?;
        let grid = domain::check_grid(self)?;
        overlaps::check_overlaps(self, &grid)?;
        stability::check_dt_limit(self)
    }
}
