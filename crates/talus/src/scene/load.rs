//! A scene file in, a checked scene out: read and parse (particles
//! generated), then validate.

use super::error::SceneError;
use super::types::Scene;
use std::path::Path;

impl Scene {
    /// Reads, parses, generates and validates a scene file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let scene = super::parse::load(path)?;
        scene.validate()?;
        Ok(scene)
    }
}
