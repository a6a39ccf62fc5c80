//! The scene file's schema: which tables and keys exist, what type each
//! value has and the default when a key is left out. One reader per table
//! (`[[particles]]` sources are read in `particles.rs`).

use super::reader::{join, kind, Reader, Tab, V};
use crate::scene::error::SceneError;
use crate::scene::mesh_file;
use crate::scene::radius::RadiusDist;
use crate::scene::types::{
    unit_or_given, Cohesion, Contact, ContactModel, Domain, Dt, End, Interaction, Material,
    Oscillation, Rolling, Servo, Shape, Side, Simulation, Wall, WallMotion,
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
    "insert",
    "outlets",
    "bodies",
    "shapes",
    "fixed",
    "bonds",
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
    "grid_levels",
    "gravity_rotation",
    "checkpoint_interval",
];
pub(super) const GRAVITY_ROTATION_KEYS: &[&str] =
    &["axis", "angular_velocity", "start", "angle", "every"];
pub(super) const DOMAIN_KEYS: &[&str] = &["min", "max", "periodic"];
pub(super) const CONTACT_KEYS: &[&str] = &[
    "model",
    "cohesion",
    "rolling",
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
    "rolling_viscous_damping",
    "cohesion_energy_density",
    "surface_energy",
];
pub(super) const INTERACTION_KEYS: &[&str] = &[
    "materials",
    "restitution",
    "friction",
    "rolling_friction",
    "rolling_viscous_damping",
    "cohesion_energy_density",
    "surface_energy",
];
pub(super) const WALL_KEYS: &[&str] = &[
    "type",
    "name",
    "material",
    "point",
    "normal",
    "center",
    "axis",
    "radius",
    "length",
    "side",
    "file",
    "scale",
    "translate",
    "rotate",
    "one_sided",
    "motion",
    "servo",
];
pub(super) const MOTION_KEYS: &[&str] = &[
    "velocity",
    "axis_point",
    "axis",
    "angular_velocity",
    "oscillation",
    "start",
    "stop",
];
pub(super) const OSCILLATION_KEYS: &[&str] = &["amplitude", "frequency", "direction"];
pub(super) const SERVO_KEYS: &[&str] = &["force", "max_speed", "direction"];
pub(super) const ROTATE_KEYS: &[&str] = &["axis", "angle_deg"];
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
pub(super) const RADIUS_ITEM_KEYS: &[&str] = &["radius", "fraction", "mass_fraction"];

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
        if let Some(v) = self.get(&mut t, "grid_levels") {
            s.grid_levels = match v.get_ref() {
                DeValue::String(x) if x.as_ref() == "auto" => None,
                _ => Some(self.int("simulation.grid_levels", v).map_err(|mut e| {
                    e.message = format!(
                        "expected \"auto\" or a number of levels from 1 to {}",
                        crate::grid::MAX_LEVELS
                    );
                    e
                })?),
            };
        }
        if let Some(v) = self.get(&mut t, "gravity_rotation") {
            let mut g = self.tab("simulation.gravity_rotation", v, GRAVITY_ROTATION_KEYS)?;
            let v = self.required(&mut g, "axis", "[x, y, z]")?;
            let axis = self.vec3("simulation.gravity_rotation.axis", v)?;
            let w = self.req_num(&mut g, "angular_velocity", "a rate in rad/s")?;
            let start = self.opt_num(&mut g, "start")?.unwrap_or(0.0);
            let angle = self.opt_num(&mut g, "angle")?;
            let every = self.opt_num(&mut g, "every")?;
            self.finish(g)?;
            s.gravity_rotation = Some(crate::scene::GravityRotation {
                axis: unit_or_given(axis),
                angular_velocity: w,
                start,
                angle,
                every,
            });
        }
        if let Some(x) = self.opt_num(&mut t, "checkpoint_interval")? {
            s.checkpoint_interval = x;
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
        if let Some(v) = self.get(&mut t, "cohesion") {
            c.cohesion = match self.string("contact.cohesion", v)? {
                "none" => Cohesion::None,
                "sjkr" => Cohesion::Sjkr,
                "sjkr2" => Cohesion::Sjkr2,
                "jkr" => Cohesion::Jkr,
                other => {
                    return Err(self.err(
                        self.vline(v),
                        "contact.cohesion",
                        format!(
                            "unknown cohesion model \"{other}\" (expected \"none\", \"sjkr\", \"sjkr2\" or \"jkr\")"
                        ),
                    ))
                }
            };
        }
        if let Some(v) = self.get(&mut t, "rolling") {
            c.rolling = match self.string("contact.rolling", v)? {
                "cdt" => Rolling::Cdt,
                "epsd" => Rolling::Epsd,
                "epsd2" => Rolling::Epsd2,
                other => {
                    return Err(self.err(
                        self.vline(v),
                        "contact.rolling",
                        format!(
                            "unknown rolling model \"{other}\" (expected \"cdt\", \"epsd\" or \"epsd2\")"
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
            rolling_viscous_damping: self.opt_num(t, "rolling_viscous_damping")?.unwrap_or(0.0),
            cohesion_energy_density: self.opt_num(t, "cohesion_energy_density")?.unwrap_or(0.0),
            surface_energy: self.opt_num(t, "surface_energy")?.unwrap_or(0.0),
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
            rolling_viscous_damping: self.opt_num(t, "rolling_viscous_damping")?,
            cohesion_energy_density: self.opt_num(t, "cohesion_energy_density")?,
            surface_energy: self.opt_num(t, "surface_energy")?,
        })
    }

    pub(super) fn wall(&self, t: &mut Tab, materials: &[Material]) -> Result<Wall, SceneError> {
        let types = "\"plane\", \"cylinder\", \"cone\" or \"mesh\"";
        let v = self.required(t, "type", types)?;
        let ty = self.string(&join(&t.path, "type"), v)?;
        let ty_line = self.vline(v);
        let name = match self.get(t, "name") {
            Some(v) => Some(self.string(&join(&t.path, "name"), v)?.to_string()),
            None => None,
        };
        let shape = match ty {
            "plane" => {
                let point = self.req_vec3(t, "point", "[x, y, z] in m")?;
                let normal = self.req_vec3(t, "normal", "[x, y, z]")?;
                Shape::Plane {
                    point,
                    normal: unit_or_given(normal),
                }
            }
            "cylinder" => Shape::Cylinder {
                center: self.req_vec3(t, "center", "[x, y, z] in m")?,
                axis: unit_or_given(self.req_vec3(t, "axis", "[x, y, z]")?),
                radius: self.req_num(t, "radius", "a radius in m")?,
                length: self.opt_num(t, "length")?,
                side: self.side(t)?,
            },
            "cone" => {
                let center = self.req_vec3(t, "center", "[x, y, z] in m")?;
                let axis = unit_or_given(self.req_vec3(t, "axis", "[x, y, z]")?);
                let path = join(&t.path, "radius");
                let v = self.required(t, "radius", "[r0, r1] in m")?;
                let a = self.array(&path, v)?;
                if a.len() != 2 {
                    return Err(self.err(
                        self.vline(v),
                        &path,
                        format!(
                            "expected 2 radii [r0, r1] (at center and at center + length × axis), found {} values",
                            a.len()
                        ),
                    ));
                }
                let radius = [
                    self.num(&format!("{path}[0]"), &a[0])?,
                    self.num(&format!("{path}[1]"), &a[1])?,
                ];
                Shape::Cone {
                    center,
                    axis,
                    radius,
                    length: self.req_num(t, "length", "a length in m")?,
                    side: self.side(t)?,
                }
            }
            "mesh" => self.mesh(t)?,
            other => {
                return Err(self.err(
                    ty_line,
                    &join(&t.path, "type"),
                    format!("unknown wall type \"{other}\" (expected {types})"),
                ))
            }
        };
        let v = self.required(t, "material", "a material name")?;
        let material = self.material_ref(&join(&t.path, "material"), v, materials)?;
        let motion = match self.get(t, "motion") {
            Some(v) => Some(self.motion(&join(&t.path, "motion"), v)?),
            None => None,
        };
        let servo = match self.get(t, "servo") {
            Some(v) => Some(self.servo(&join(&t.path, "servo"), v, &shape)?),
            None => None,
        };
        Ok(Wall {
            name,
            shape,
            material,
            motion,
            servo,
        })
    }

    pub(super) fn req_vec3(
        &self,
        t: &mut Tab,
        key: &'static str,
        what: &str,
    ) -> Result<[f64; 3], SceneError> {
        let v = self.required(t, key, what)?;
        self.vec3(&join(&t.path, key), v)
    }

    /// `side = "inside" | "outside"` (default inside).
    fn side(&self, t: &mut Tab) -> Result<Side, SceneError> {
        let Some(v) = self.get(t, "side") else {
            return Ok(Side::Inside);
        };
        let path = join(&t.path, "side");
        match self.string(&path, v)? {
            "inside" => Ok(Side::Inside),
            "outside" => Ok(Side::Outside),
            other => Err(self.err(
                self.vline(v),
                &path,
                format!("unknown side \"{other}\" (expected \"inside\" or \"outside\")"),
            )),
        }
    }

    /// `type = "mesh"`: the file read, transformed, degenerate triangles
    /// dropped. Errors about the file are reported at the `file` key.
    fn mesh(&self, t: &mut Tab) -> Result<Shape, SceneError> {
        let fpath = join(&t.path, "file");
        let v = self.required(t, "file", "a mesh file name, \"*.stl\" or \"*.obj\"")?;
        let fname = self.string(&fpath, v)?;
        let file_line = self.vline(v);
        let file = self.beside_scene(fname);
        let scale = match self.get(t, "scale") {
            Some(v) => {
                let spath = join(&t.path, "scale");
                let x = self.num(&spath, v)?;
                if x <= 0.0 {
                    return Err(self.err(
                        self.vline(v),
                        &spath,
                        format!("expected a scale factor > 0, got {x}"),
                    ));
                }
                x
            }
            None => 1.0,
        };
        let translate = match self.get(t, "translate") {
            Some(v) => self.vec3(&join(&t.path, "translate"), v)?,
            None => [0.0; 3],
        };
        let rotation = match self.get(t, "rotate") {
            Some(v) => {
                let rpath = join(&t.path, "rotate");
                let mut r = self.tab(&rpath, v, ROTATE_KEYS)?;
                let av = self.required(&mut r, "axis", "[x, y, z]")?;
                let axis = self.vec3(&join(&rpath, "axis"), av)?;
                let angle = self.req_num(&mut r, "angle_deg", "an angle in degrees")?;
                self.finish(r)?;
                let unit = unit_or_given(axis);
                let n2 = unit.iter().map(|x| x * x).sum::<f64>();
                if (n2 - 1.0).abs() > 1e-9 {
                    return Err(self.err(
                        self.vline(av),
                        &join(&rpath, "axis"),
                        "expected a non-zero rotation axis",
                    ));
                }
                Some((unit, angle.to_radians()))
            }
            None => None,
        };
        let one_sided = match self.get(t, "one_sided") {
            Some(v) => self.boolean(&join(&t.path, "one_sided"), v)?,
            None => false,
        };
        let mut triangles = mesh_file::read(&file).map_err(|m| self.err(file_line, &fpath, m))?;
        mesh_file::transform(&mut triangles, scale, rotation, translate);
        let degenerate = mesh_file::drop_degenerate(&mut triangles);
        if triangles.is_empty() {
            return Err(self.err(
                file_line,
                &fpath,
                format!(
                    "mesh file {}: no triangles left: all {degenerate} are degenerate (zero area)",
                    file.display()
                ),
            ));
        }
        Ok(Shape::Mesh {
            file,
            triangles,
            one_sided,
            degenerate,
        })
    }

    /// `[walls.motion]`: every key optional.
    fn motion(&self, path: &str, v: &V) -> Result<WallMotion, SceneError> {
        let mut t = self.tab(path, v, MOTION_KEYS)?;
        let mut m = WallMotion::default();
        if let Some(v) = self.get(&mut t, "velocity") {
            m.velocity = self.vec3(&join(path, "velocity"), v)?;
        }
        if let Some(v) = self.get(&mut t, "axis_point") {
            m.axis_point = self.vec3(&join(path, "axis_point"), v)?;
        }
        if let Some(v) = self.get(&mut t, "axis") {
            m.axis = unit_or_given(self.vec3(&join(path, "axis"), v)?);
        }
        if let Some(x) = self.opt_num(&mut t, "angular_velocity")? {
            m.angular_velocity = x;
        }
        if let Some(v) = self.get(&mut t, "oscillation") {
            let opath = join(path, "oscillation");
            let mut o = self.tab(&opath, v, OSCILLATION_KEYS)?;
            let amplitude = self.req_num(&mut o, "amplitude", "an amplitude in m")?;
            let frequency = self.req_num(&mut o, "frequency", "a frequency in Hz")?;
            let direction = unit_or_given(self.req_vec3(&mut o, "direction", "[x, y, z]")?);
            self.finish(o)?;
            m.oscillation = Some(Oscillation {
                amplitude,
                frequency,
                direction,
            });
        }
        if let Some(x) = self.opt_num(&mut t, "start")? {
            m.start = x;
        }
        if let Some(x) = self.opt_num(&mut t, "stop")? {
            m.stop = x;
        }
        self.finish(t)?;
        Ok(m)
    }

    /// `[walls.servo]`: `direction` defaults to a plane's normal.
    fn servo(&self, path: &str, v: &V, shape: &Shape) -> Result<Servo, SceneError> {
        let mut t = self.tab(path, v, SERVO_KEYS)?;
        let force = self.req_num(&mut t, "force", "a force in N")?;
        let max_speed = self.req_num(&mut t, "max_speed", "a speed in m/s")?;
        let direction =
            match (self.get(&mut t, "direction"), shape) {
                (Some(v), _) => unit_or_given(self.vec3(&join(path, "direction"), v)?),
                (None, Shape::Plane { normal, .. }) => *normal,
                (None, _) => return Err(self.err(
                    t.line,
                    &join(path, "direction"),
                    "missing key (expected [x, y, z]; only a plane's servo defaults to its normal)",
                )),
            };
        self.finish(t)?;
        Ok(Servo {
            force,
            max_speed,
            direction,
        })
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
                // every item by number (`fraction`) or every item by mass
                // (`mass_fraction`), the first item deciding
                let mut list = Vec::new();
                let mut by_mass = None;
                for (i, item) in a.iter().enumerate() {
                    let ipath = format!("{path}[{i}]");
                    let mut t = self.tab(&ipath, item, RADIUS_ITEM_KEYS)?;
                    let mass = self.has(&t, "mass_fraction");
                    if mass && self.has(&t, "fraction") {
                        return Err(self.err(
                            t.line,
                            &ipath,
                            "give either fraction (by number) or mass_fraction, not both",
                        ));
                    }
                    let r = self.req_num(&mut t, "radius", "a radius in m")?;
                    let first = *by_mass.get_or_insert(mass);
                    let f = if mass {
                        self.req_num(&mut t, "mass_fraction", "a mass fraction > 0")?
                    } else {
                        self.req_num(
                            &mut t,
                            "fraction",
                            "fraction = <number fraction > 0> or mass_fraction = <mass fraction > 0>",
                        )?
                    };
                    if mass != first {
                        let key = if mass { "mass_fraction" } else { "fraction" };
                        let line = self.lines.borrow().get(&join(&ipath, key)).copied();
                        return Err(self.err(
                            line.or(t.line),
                            &join(&ipath, key),
                            "a list gives every fraction by number (fraction) or every one by mass (mass_fraction), not a mix",
                        ));
                    }
                    self.finish(t)?;
                    list.push((r, f));
                }
                if by_mass == Some(true) {
                    RadiusDist::Discrete(list.clone())
                        .check()
                        .map_err(|m| self.err(self.vline(v), path, m))?;
                    list = number_fractions(&list);
                }
                Ok(RadiusDist::Discrete(list))
            }
            other => Err(self.err(
                self.vline(v),
                path,
                format!(
                    "expected a radius (m), {{ min, max }} or a list of {{ radius, fraction }} or {{ radius, mass_fraction }}, found {}",
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

/// (radius, mass fraction) pairs as (radius, number fraction): a size
/// class of mass fraction w_i holds a number of particles ∝ w_i / r_i³
/// (one material, one density), normalised to sum 1.
pub(super) fn number_fractions(by_mass: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let n: Vec<f64> = by_mass.iter().map(|&(r, w)| w / (r * r * r)).collect();
    let total: f64 = n.iter().sum();
    by_mass
        .iter()
        .zip(n)
        .map(|(&(r, _), x)| (r, x / total))
        .collect()
}
