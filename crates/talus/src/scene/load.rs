//! A scene file in, a checked scene out: read and parse (particles
//! generated), read the bodies' mesh files, then validate.

use super::error::SceneError;
use super::types::{BodyMesh, Scene};
use std::path::Path;

impl Scene {
    /// Reads, parses, generates, reads the bodies' mesh files
    /// ([`Scene::read_mesh_files`]) and validates a scene file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let mut scene = super::parse::load(path)?;
        scene.read_mesh_files();
        scene.validate()?;
        Ok(scene)
    }

    /// Parses, generates, reads the bodies' mesh files and validates scene
    /// text given in memory (the Python package's scenes given as dicts):
    /// `path`, when given, names the scene in errors and anchors relative
    /// paths; without it errors say `scene:` and paths are relative to the
    /// working directory.
    pub fn from_text(text: &str, path: Option<&Path>) -> Result<Scene, SceneError> {
        let mut scene = super::parse::parse_str(text, path)?;
        scene.read_mesh_files();
        scene.validate()?;
        Ok(scene)
    }

    /// Reads every `.msh` file a body names into [`Scene::mesh_files`]
    /// (those already there are not read again; those no body names any
    /// more are dropped): after it, the checks, the time step and the
    /// run's set-up build each body's tetrahedra from memory. A file that
    /// cannot be read or parsed is left out without an error: validation
    /// reads it again and reports it, at the body's `mesh` key and in the
    /// order of its checks (a mesh error after the body's other keys).
    pub fn read_mesh_files(&mut self) {
        let named: Vec<&Path> = self
            .bodies
            .iter()
            .filter_map(|b| match &b.mesh {
                BodyMesh::File(path) => Some(path.as_path()),
                BodyMesh::Box { .. } => None,
            })
            .collect();
        self.mesh_files.retain(|p| named.contains(&p));
        for path in named {
            if !self.mesh_files.contains(path) {
                if let Ok(mesh) = crate::fem::msh::read_msh(path) {
                    self.mesh_files.insert(path.to_path_buf(), mesh);
                }
            }
        }
    }
}
