//! The scene file's schema: which tables and keys exist, what type each
//! value has and the default when a key is left out. One reader per table
//! (`[[particles]]` sources are read in `particles.rs`).

use super::reader::{join, kind, Reader, Tab, V};
use crate::scene::error::SceneError;
use crate::scene::radius::RadiusDist;
use crate::scene::types::{
    Contact, ContactModel, Domain, Dt, End, Interaction, Material, Simulation, Wall,
};
use toml::de::DeValue;

pub(super) const ROOT_KEYS: &[&str] = &[
    "simulation",
    "domain",
    "contact",
    "materials",
    "interactions",
    "walls",
    "particles",
];
pub(super) const SIMULATION_KEYS: &[&str] = &[
    "duration",
    "steps",
    "dt",
    "dt_safety",
    "gravity",
    "output_interval",
    "seed",
    "neighbour_skin",
];
pub(super) const DOMAIN_KEYS: &[&str] = &["min", "max", "periodic"];
pub(super) const CONTACT_KEYS: &[&str] = &[
    "model",
    "history_slots",
    "stiffness",
    "contact_time",
    "tangential_stiffness_ratio",
];
pub(super) const MATERIAL_KEYS: &[&str] = &[
    "name",
    "density",
    "youngs_modulus",
    "poisson_ratio",
    "restitution",
    "friction",
    "rolling_friction",
];
pub(super) const INTERACTION_KEYS: &[&str] =
    &["materials", "restitution", "friction", "rolling_friction"];
pub(super) const WALL_KEYS: &[&str] = &["type", "point", "normal", "material"];
pub(super) const PARTICLES_KEYS: &[&str] = &[
    "file",
    "generator",
    "region",
    "radius",
    "material",
    "count",
    "velocity",
    "spacing",
];
pub(super) const MIN_MAX_KEYS: &[&str] = &["min", "max"];
pub(super) const RADIUS_ITEM_KEYS: &[&str] = &["radius", "fraction"];

impl Reader<'_> {
    pub(super) fn simulation(&self, v: &V) -> Result<Simulation, SceneError> {
        let mut t = self.tab("simulation", v, SIMULATION_KEYS)?;
        let mut s = Simulation::default();
        let duration = self.opt_num(&mut t, "duration")?;
        let steps = match self.get(&mut t, "steps") {
            Some(v) => Some(self.int("simulation.steps", v)?),
            None => None,
        };
        s.end = match (duration, steps) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    t.line,
                    "simulation",
                    "give either duration or steps, not both",
                ))
            }
            (Some(d), None) => End::Duration(d),
            (None, Some(n)) => End::Steps(n),
            (None, None) => {
                return Err(self.err(
                    t.line,
                    "simulation.duration",
                    "missing key (expected duration = <seconds> or steps = <count>)",
                ))
            }
        };
        if let Some(v) = self.get(&mut t, "dt") {
            s.dt = match v.get_ref() {
                DeValue::String(x) if x.as_ref() == "auto" => Dt::Auto,
                _ => Dt::Fixed(self.num("simulation.dt", v).map_err(|mut e| {
                    e.message = "expected a time step in seconds or \"auto\"".into();
                    e
                })?),
            };
        }
        if let Some(x) = self.opt_num(&mut t, "dt_safety")? {
            s.dt_safety = x;
        }
        if let Some(v) = self.get(&mut t, "gravity") {
            s.gravity = self.vec3("simulation.gravity", v)?;
        }
        s.output_interval = self.opt_num(&mut t, "output_interval")?;
        if let Some(v) = self.get(&mut t, "seed") {
            s.seed = self.int("simulation.seed", v)?;
        }
        if let Some(v) = self.get(&mut t, "neighbour_skin") {
            s.neighbour_skin = match v.get_ref() {
                DeValue::String(x) if x.as_ref() == "auto" => None,
                _ => Some(self.num("simulation.neighbour_skin", v).map_err(|mut e| {
                    e.message = "expected a length in metres or \"auto\"".into();
                    e
                })?),
            };
        }
        self.finish(t)?;
        Ok(s)
    }

    pub(super) fn domain(&self, v: &V) -> Result<Domain, SceneError> {
        let mut t = self.tab("domain", v, DOMAIN_KEYS)?;
        let min = self.required(&mut t, "min", "[x, y, z] in m")?;
        let min = self.vec3("domain.min", min)?;
        let max = self.required(&mut t, "max", "[x, y, z] in m")?;
        let max = self.vec3("domain.max", max)?;
        let periodic = match self.get(&mut t, "periodic") {
            Some(v) => self.bool3("domain.periodic", v)?,
            None => [false; 3],
        };
        self.finish(t)?;
        Ok(Domain { min, max, periodic })
    }

    pub(super) fn contact(&self, v: &V) -> Result<Contact, SceneError> {
        let mut t = self.tab("contact", v, CONTACT_KEYS)?;
        let mut c = Contact::default();
        if let Some(v) = self.get(&mut t, "model") {
            c.model = match self.string("contact.model", v)? {
                "hertz_mindlin" => ContactModel::HertzMindlin,
                "linear" => ContactModel::Linear,
                other => {
                    return Err(self.err(
                        self.vline(v),
                        "contact.model",
                        format!(
                            "unknown model \"{other}\" (expected \"hertz_mindlin\" or \"linear\")"
                        ),
                    ))
                }
            };
        }
        if let Some(v) = self.get(&mut t, "history_slots") {
            // gone since the history moved into the neighbour list: say so
            // rather than "unknown key"
            return Err(self.err(
                self.vline(v),
                "contact.history_slots",
                "no longer used: tangential history is kept per neighbour pair, with no limit; remove the key",
            ));
        }
        c.stiffness = self.opt_num(&mut t, "stiffness")?;
        c.contact_time = self.opt_num(&mut t, "contact_time")?;
        if let Some(x) = self.opt_num(&mut t, "tangential_stiffness_ratio")? {
            c.tangential_stiffness_ratio = x;
        }
        self.finish(t)?;
        Ok(c)
    }

    pub(super) fn material(&self, t: &mut Tab) -> Result<Material, SceneError> {
        let v = self.required(t, "name", "a string")?;
        let name = self.string(&join(&t.path, "name"), v)?.to_string();
        Ok(Material {
            name,
            density: self.req_num(t, "density", "a density in kg/m³")?,
            youngs_modulus: self.req_num(t, "youngs_modulus", "a Young's modulus in Pa")?,
            poisson_ratio: self.req_num(t, "poisson_ratio", "a number in (-1, 0.5)")?,
            restitution: self.req_num(t, "restitution", "a number in (0, 1]")?,
            friction: self.req_num(t, "friction", "a number ≥ 0")?,
            rolling_friction: self.opt_num(t, "rolling_friction")?.unwrap_or(0.0),
        })
    }

    pub(super) fn interaction(
        &self,
        t: &mut Tab,
        materials: &[Material],
    ) -> Result<Interaction, SceneError> {
        let path = join(&t.path, "materials");
        let v = self.required(t, "materials", "[\"name1\", \"name2\"]")?;
        let a = self.array(&path, v)?;
        if a.len() != 2 {
            return Err(self.err(
                self.vline(v),
                &path,
                format!("expected two material names, found {}", a.len()),
            ));
        }
        let m0 = self.material_ref(&format!("{path}[0]"), &a[0], materials)?;
        let m1 = self.material_ref(&format!("{path}[1]"), &a[1], materials)?;
        Ok(Interaction {
            materials: [m0, m1],
            restitution: self.opt_num(t, "restitution")?,
            friction: self.opt_num(t, "friction")?,
            rolling_friction: self.opt_num(t, "rolling_friction")?,
        })
    }

    pub(super) fn wall(&self, t: &mut Tab, materials: &[Material]) -> Result<Wall, SceneError> {
        let v = self.required(t, "type", "\"plane\"")?;
        let ty = self.string(&join(&t.path, "type"), v)?;
        if ty != "plane" {
            return Err(self.err(
                self.vline(v),
                &join(&t.path, "type"),
                format!("unknown wall type \"{ty}\" (expected \"plane\")"),
            ));
        }
        let v = self.required(t, "point", "[x, y, z] in m")?;
        let point = self.vec3(&join(&t.path, "point"), v)?;
        let v = self.required(t, "normal", "[x, y, z]")?;
        let normal = self.vec3(&join(&t.path, "normal"), v)?;
        let v = self.required(t, "material", "a material name")?;
        let material = self.material_ref(&join(&t.path, "material"), v, materials)?;
        Ok(Wall::plane(point, normal, material))
    }

    pub(super) fn radius_dist(&self, path: &str, v: &V) -> Result<RadiusDist, SceneError> {
        match v.get_ref() {
            DeValue::Float(_) | DeValue::Integer(_) => Ok(RadiusDist::Constant(self.num(path, v)?)),
            DeValue::Table(_) => {
                let mut t = self.tab(path, v, MIN_MAX_KEYS)?;
                let min = self.req_num(&mut t, "min", "a radius in m")?;
                let max = self.req_num(&mut t, "max", "a radius in m")?;
                self.finish(t)?;
                Ok(RadiusDist::Uniform { min, max })
            }
            DeValue::Array(a) => {
                let mut list = Vec::new();
                for (i, item) in a.iter().enumerate() {
                    let mut t = self.tab(&format!("{path}[{i}]"), item, RADIUS_ITEM_KEYS)?;
                    let r = self.req_num(&mut t, "radius", "a radius in m")?;
                    let f = self.req_num(&mut t, "fraction", "a number fraction > 0")?;
                    self.finish(t)?;
                    list.push((r, f));
                }
                Ok(RadiusDist::Discrete(list))
            }
            other => Err(self.err(
                self.vline(v),
                path,
                format!(
                    "expected a radius (m), {{ min, max }} or a list of {{ radius, fraction }}, found {}",
                    kind(other)
                ),
            )),
        }
    }

    pub(super) fn material_ref(
        &self,
        path: &str,
        v: &V,
        materials: &[Material],
    ) -> Result<usize, SceneError> {
        let name = self.string(path, v)?;
        materials
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = materials.iter().map(|m| m.name.as_str()).collect();
                self.err(
                    self.vline(v),
                    path,
                    format!(
                        "unknown material \"{name}\" (defined: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                )
            })
    }
}
