//! TOML → [`Scene`], keeping the line of every key so that each error names
//! file, line and key. Unknown keys are errors (a typo must not silently fall
//! back to a default). Shapes and types only; physics checks are in
//! `Scene::validate`.
//!
//! `reader.rs` is the line-keeping TOML reader, `schema.rs` the tables and
//! keys of a scene with their types and defaults, `particles.rs` the
//! particle sources, `flow.rs` the insertions and outlets (and their
//! regions), `bodies.rs` the deformable bodies; this file reads a whole
//! document in order. `tests.rs` reads whole scene texts.

mod bodies;
mod bonds;
mod flow;
mod particles;
mod reader;
mod schema;
mod shapes;
#[cfg(test)]
mod shapes_tests;
#[cfg(test)]
mod tests;

use crate::scene::error::SceneError;
use crate::scene::types::{Contact, Scene};
use bodies::BODY_KEYS;
use flow::{FIXED_KEYS, INSERT_KEYS, OUTLET_KEYS};
use reader::Reader;
use schema::{INTERACTION_KEYS, MATERIAL_KEYS, PARTICLES_KEYS, ROOT_KEYS, WALL_KEYS};
use std::path::Path;
use toml::de::DeTable;

/// Reads and parses `path` (particles generated, not yet validated).
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError {
        file: Some(path.to_path_buf()),
        line: None,
        key: String::new(),
        message: format!("cannot read scene file: {e}"),
    })?;
    parse_str(&text, Some(path))
}

/// Parses scene text; `path` (if any) names the file in errors and anchors
/// relative paths (CSV particle files).
pub fn parse_str(text: &str, path: Option<&Path>) -> Result<Scene, SceneError> {
    let r = Reader::new(text, path);
    let root = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| r.line_of(s.start));
        SceneError {
            file: path.map(Path::to_path_buf),
            line,
            key: String::new(),
            message: format!("invalid TOML: {}", e.message().trim()),
        }
    })?;
    r.scene(root.get_ref())
}

impl Reader<'_> {
    /// The whole scene, tables read in a fixed order (so the first error is
    /// always the same one).
    fn scene(&self, root: &DeTable) -> Result<Scene, SceneError> {
        let mut root = self.root(root, ROOT_KEYS)?;
        let name = self
            .file
            .as_ref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scene".to_string());

        let simulation = match self.get(&mut root, "simulation") {
            Some(v) => self.simulation(v)?,
            None => {
                return Err(self.err(None, "simulation", "missing table [simulation]"));
            }
        };
        let domain = match self.get(&mut root, "domain") {
            Some(v) => self.domain(v)?,
            None => return Err(self.err(None, "domain", "missing table [domain]")),
        };
        let contact = match self.get(&mut root, "contact") {
            Some(v) => self.contact(v)?,
            None => Contact::default(),
        };
        let mut materials = Vec::new();
        for mut t in self.table_array(&mut root, "materials", MATERIAL_KEYS)? {
            materials.push(self.material(&mut t)?);
            self.finish(t)?;
        }
        if materials.is_empty() {
            return Err(self.err(
                None,
                "materials",
                "no [[materials]] table: at least one material is needed",
            ));
        }
        let mut interactions = Vec::new();
        for mut t in self.table_array(&mut root, "interactions", INTERACTION_KEYS)? {
            interactions.push(self.interaction(&mut t, &materials)?);
            self.finish(t)?;
        }
        let mut walls = Vec::new();
        for mut t in self.table_array(&mut root, "walls", WALL_KEYS)? {
            walls.push(self.wall(&mut t, &materials)?);
            self.finish(t)?;
        }
        // shapes first: particle files name them
        let mut shapes = Vec::new();
        for mut t in self.table_array(&mut root, "shapes", shapes::SHAPE_KEYS)? {
            let s = self.shape(&mut t, &shapes, &domain)?;
            self.finish(t)?;
            shapes.push(s);
        }
        let mut particles = Vec::new();
        let mut sources = Vec::new();
        let mut rng_seed = simulation.seed;
        let sources_t = self.table_array(&mut root, "particles", PARTICLES_KEYS)?;
        for (si, mut t) in sources_t.into_iter().enumerate() {
            rng_seed = rng_seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let (label, ps) =
                self.particle_source(&mut t, si, &materials, &shapes, &particles, rng_seed)?;
            self.finish(t)?;
            sources.push(label);
            // moved, not copied, when it is the first: a generated list may
            // be most of the machine's memory
            if particles.is_empty() {
                particles = ps;
            } else {
                particles.extend(ps);
            }
        }
        let mut inserts = Vec::new();
        for mut t in self.table_array(&mut root, "insert", INSERT_KEYS)? {
            inserts.push(self.insert(&mut t, &materials, &shapes)?);
            self.finish(t)?;
        }
        let mut outlets = Vec::new();
        for mut t in self.table_array(&mut root, "outlets", OUTLET_KEYS)? {
            outlets.push(self.outlet(&mut t)?);
            self.finish(t)?;
        }
        let mut fixed = Vec::new();
        for mut t in self.table_array(&mut root, "fixed", FIXED_KEYS)? {
            fixed.push(self.fixed(&mut t)?);
            self.finish(t)?;
        }
        let mut bonds = Vec::new();
        for mut t in self.table_array(&mut root, "bonds", bonds::BOND_KEYS)? {
            bonds.push(self.bond(&mut t, &materials)?);
            self.finish(t)?;
        }
        let mut bodies = Vec::new();
        for mut t in self.table_array(&mut root, "bodies", BODY_KEYS)? {
            bodies.push(self.body(&mut t, &materials)?);
            self.finish(t)?;
        }
        if sources.is_empty() && inserts.is_empty() && bodies.is_empty() {
            return Err(self.err(
                None,
                "particles",
                "no [[particles]], [[insert]] or [[bodies]] table: give a CSV file, a generator, an insertion or an FEM body",
            ));
        }
        self.finish(root)?;
        Ok(Scene {
            name,
            file: self.file.clone(),
            simulation,
            domain,
            contact,
            materials,
            interactions,
            particles,
            walls,
            inserts,
            outlets,
            bodies,
            shapes,
            sources,
            key_lines: self.lines.borrow().clone(),
            fixed,
            bonds,
            held: Vec::new(),
            mesh_files: Default::default(),
        })
    }
}
