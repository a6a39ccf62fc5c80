//! Physical checks of a scene, shared by files and the builder: one check
//! per section, run in a fixed order so the first violation reported is
//! always the same one.

mod bodies;
mod bonds;
mod contact;
mod domain;
mod flow;
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
        bodies::check_body_materials(self)?;
        materials::check_materials(self)?;
        materials::check_interactions(self)?;
        contact::check_jkr_reach(self)?;
        walls::check_walls(self)?;
        flow::check_flow(self)?;
        flow::check_fixed(self)?;
        bonds::check_bonds(self)?;
        let meshes = bodies::check_bodies(self)?;
        particles::check_particles(self)?;
        let grid = domain::check_grid(self)?;
        overlaps::check_overlaps(self, &grid)?;
        stability::check_dt_limit(self, &meshes)
    }

    /// What is allowed but probably not meant, one located line each
    /// (print it as `warning: {w}`): an outlet holding initial particle
    /// centres at t = 0, a `[[fixed]]` region or a body's fixed box holding
    /// nothing, cohesion given
    /// to a dry model or a cohesion model with nothing cohesive. Call it on a
    /// valid scene (after [`Scene::validate`]); an empty list when there
    /// is nothing to say.
    pub fn warnings(&self) -> Vec<SceneError> {
        let mut out = flow::outlet_warnings(self);
        out.extend(bodies::body_warnings(self));
        out.extend(materials::cohesion_warnings(self));
        out.extend(materials::rolling_warnings(self));
        out.extend(flow::fixed_warnings(self));
        out
    }
}
