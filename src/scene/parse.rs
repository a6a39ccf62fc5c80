//! TOML → [`Scene`], keeping the line of every key so that each error names
//! file, line and key. Unknown keys are errors (a typo must not silently fall
//! back to a default). Shapes and types only; physics checks are in
//! `validate.rs`.

use super::error::SceneError;
use super::generate::{generate_lattice, generate_random};
use super::radius::RadiusDist;
use super::types::{
    Contact, ContactModel, Domain, Dt, End, Interaction, Material, ParticleInit, Scene, Simulation,
    SourceInfo, Wall,
};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

type V<'i> = Spanned<DeValue<'i>>;

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

struct Reader<'a> {
    text: &'a str,
    file: Option<PathBuf>,
    lines: std::cell::RefCell<HashMap<String, usize>>,
}

/// A table being read: remembers which keys were taken so the rest can be
/// reported as unknown.
struct Tab<'t, 'i> {
    path: String,
    table: &'t DeTable<'i>,
    line: Option<usize>,
    /// Every key this table may hold, checked as soon as the table is opened
    /// so that a typo (`densty`) is reported as the unknown key it is, not as
    /// the required key it hides (`density`).
    known: &'static [&'static str],
    used: BTreeSet<&'static str>,
}

const ROOT_KEYS: &[&str] = &[
    "simulation",
    "domain",
    "contact",
    "materials",
    "interactions",
    "walls",
    "particles",
];
const SIMULATION_KEYS: &[&str] = &[
    "duration",
    "steps",
    "dt",
    "dt_safety",
    "gravity",
    "output_interval",
    "seed",
    "neighbour_skin",
];
const DOMAIN_KEYS: &[&str] = &["min", "max", "periodic"];
const CONTACT_KEYS: &[&str] = &[
    "model",
    "history_slots",
    "stiffness",
    "contact_time",
    "tangential_stiffness_ratio",
];
const MATERIAL_KEYS: &[&str] = &[
    "name",
    "density",
    "youngs_modulus",
    "poisson_ratio",
    "restitution",
    "friction",
    "rolling_friction",
];
const INTERACTION_KEYS: &[&str] = &["materials", "restitution", "friction", "rolling_friction"];
const WALL_KEYS: &[&str] = &["type", "point", "normal", "material"];
const PARTICLES_KEYS: &[&str] = &[
    "file",
    "generator",
    "region",
    "radius",
    "material",
    "count",
    "velocity",
    "spacing",
];
const MIN_MAX_KEYS: &[&str] = &["min", "max"];
const RADIUS_ITEM_KEYS: &[&str] = &["radius", "fraction"];

impl<'a> Reader<'a> {
    fn new(text: &'a str, path: Option<&Path>) -> Self {
        Reader {
            text,
            file: path.map(Path::to_path_buf),
            lines: Default::default(),
        }
    }

    fn line_of(&self, byte: usize) -> usize {
        let end = byte.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    fn err(&self, line: Option<usize>, key: &str, msg: impl Into<String>) -> SceneError {
        SceneError {
            file: self.file.clone(),
            line,
            key: key.to_string(),
            message: msg.into(),
        }
    }

    fn tab<'t, 'i>(
        &self,
        path: &str,
        v: &'t V<'i>,
        known: &'static [&'static str],
    ) -> Result<Tab<'t, 'i>, SceneError> {
        let l = self.line_of(v.span().start);
        let line = Some(l);
        match v.get_ref() {
            DeValue::Table(t) => {
                self.lines.borrow_mut().insert(path.to_string(), l);
                let t = Tab {
                    path: path.to_string(),
                    table: t,
                    line,
                    known,
                    used: BTreeSet::new(),
                };
                self.check_known(&t)?;
                Ok(t)
            }
            other => Err(self.err(
                line,
                path,
                format!("expected a table, found {}", kind(other)),
            )),
        }
    }

    /// Reports the first key of `t` that is not in its list of known keys.
    fn check_known(&self, t: &Tab) -> Result<(), SceneError> {
        for (k, _) in t.table.iter() {
            let name: &str = k.get_ref().as_ref();
            if !t.known.contains(&name) {
                let hint = t
                    .known
                    .iter()
                    .map(|c| (edit_distance(name, c), *c))
                    .filter(|&(d, c)| d <= (c.len() / 3).max(1))
                    .min()
                    .map(|(_, c)| format!("did you mean \"{c}\"? "))
                    .unwrap_or_default();
                return Err(self.err(
                    Some(self.line_of(k.span().start)),
                    &join(&t.path, name),
                    format!(
                        "unknown key ({hint}known keys here: {})",
                        t.known.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn get<'t, 'i>(&self, t: &mut Tab<'t, 'i>, key: &'static str) -> Option<&'t V<'i>> {
        debug_assert!(
            t.known.contains(&key),
            "{key} missing from the known keys of {}",
            t.path
        );
        t.used.insert(key);
        let (k, v) = t.table.get_key_value(key)?;
        let path = join(&t.path, key);
        self.lines
            .borrow_mut()
            .insert(path, self.line_of(k.span().start));
        Some(v)
    }

    fn finish(&self, t: Tab) -> Result<(), SceneError> {
        for (k, _) in t.table.iter() {
            if !t.used.contains(k.get_ref().as_ref()) {
                let mut known: Vec<&str> = t.used.iter().copied().collect();
                known.sort();
                return Err(self.err(
                    Some(self.line_of(k.span().start)),
                    &join(&t.path, k.get_ref()),
                    format!("unknown key (known keys here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }

    fn required<'t, 'i>(
        &self,
        t: &mut Tab<'t, 'i>,
        key: &'static str,
        what: &str,
    ) -> Result<&'t V<'i>, SceneError> {
        self.get(t, key).ok_or_else(|| {
            self.err(
                t.line,
                &join(&t.path, key),
                format!("missing key (expected {what})"),
            )
        })
    }

    fn vline(&self, v: &V) -> Option<usize> {
        Some(self.line_of(v.span().start))
    }

    fn num(&self, path: &str, v: &V) -> Result<f64, SceneError> {
        let x = match v.get_ref() {
            DeValue::Float(f) => parse_float(f.as_str()),
            DeValue::Integer(i) => parse_int(i.as_str(), i.radix()).map(|x| x as f64),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() => Ok(x),
            Some(_) => Err(self.err(self.vline(v), path, "expected a finite number")),
            None => Err(self.err(
                self.vline(v),
                path,
                format!("expected a number, found {}", kind(v.get_ref())),
            )),
        }
    }

    fn int(&self, path: &str, v: &V) -> Result<u64, SceneError> {
        let x = match v.get_ref() {
            DeValue::Integer(i) => parse_int(i.as_str(), i.radix()),
            _ => None,
        };
        match x {
            Some(x) if x >= 0 => Ok(x as u64),
            _ => Err(self.err(
                self.vline(v),
                path,
                format!(
                    "expected a non-negative integer, found {}",
                    describe(v.get_ref())
                ),
            )),
        }
    }

    fn string<'t>(&self, path: &str, v: &'t V) -> Result<&'t str, SceneError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.as_ref()),
            other => Err(self.err(
                self.vline(v),
                path,
                format!("expected a string, found {}", kind(other)),
            )),
        }
    }

    fn boolean(&self, path: &str, v: &V) -> Result<bool, SceneError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            other => Err(self.err(
                self.vline(v),
                path,
                format!("expected true or false, found {}", kind(other)),
            )),
        }
    }

    fn array<'t, 'i>(&self, path: &str, v: &'t V<'i>) -> Result<&'t DeArray<'i>, SceneError> {
        match v.get_ref() {
            DeValue::Array(a) => Ok(a),
            other => Err(self.err(
                self.vline(v),
                path,
                format!("expected an array, found {}", kind(other)),
            )),
        }
    }

    fn vec3(&self, path: &str, v: &V) -> Result<[f64; 3], SceneError> {
        let a = self.array(path, v)?;
        if a.len() != 3 {
            return Err(self.err(
                self.vline(v),
                path,
                format!("expected 3 numbers [x, y, z], found {} values", a.len()),
            ));
        }
        let mut out = [0.0; 3];
        for (i, x) in a.iter().enumerate() {
            out[i] = self.num(&format!("{path}[{i}]"), x)?;
        }
        Ok(out)
    }

    fn bool3(&self, path: &str, v: &V) -> Result<[bool; 3], SceneError> {
        let a = self.array(path, v)?;
        if a.len() != 3 {
            return Err(self.err(
                self.vline(v),
                path,
                format!("expected 3 booleans [x, y, z], found {} values", a.len()),
            ));
        }
        let mut out = [false; 3];
        for (i, x) in a.iter().enumerate() {
            out[i] = self.boolean(&format!("{path}[{i}]"), x)?;
        }
        Ok(out)
    }

    fn opt_num(&self, t: &mut Tab, key: &'static str) -> Result<Option<f64>, SceneError> {
        match self.get(t, key) {
            Some(v) => Ok(Some(self.num(&join(&t.path, key), v)?)),
            None => Ok(None),
        }
    }

    fn req_num(&self, t: &mut Tab, key: &'static str, what: &str) -> Result<f64, SceneError> {
        let v = self.required(t, key, what)?;
        self.num(&join(&t.path, key), v)
    }

    fn table_array<'t, 'i>(
        &self,
        root: &mut Tab<'t, 'i>,
        key: &'static str,
        known: &'static [&'static str],
    ) -> Result<Vec<Tab<'t, 'i>>, SceneError> {
        let Some(v) = self.get(root, key) else {
            return Ok(Vec::new());
        };
        let a = self.array(key, v).map_err(|mut e| {
            e.message = format!("{} (write [[{key}]] tables)", e.message);
            e
        })?;
        a.iter()
            .enumerate()
            .map(|(i, v)| self.tab(&format!("{key}[{i}]"), v, known))
            .collect()
    }

    fn material_ref(&self, path: &str, v: &V, materials: &[Material]) -> Result<usize, SceneError> {
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

    fn scene(&self, root: &DeTable) -> Result<Scene, SceneError> {
        let mut root = Tab {
            path: String::new(),
            table: root,
            line: None,
            known: ROOT_KEYS,
            used: BTreeSet::new(),
        };
        self.check_known(&root)?;
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
        let mut particles = Vec::new();
        let mut sources = Vec::new();
        let mut rng_seed = simulation.seed;
        let sources_t = self.table_array(&mut root, "particles", PARTICLES_KEYS)?;
        if sources_t.is_empty() {
            return Err(self.err(
                None,
                "particles",
                "no [[particles]] table: give a CSV file or a generator",
            ));
        }
        for (si, mut t) in sources_t.into_iter().enumerate() {
            rng_seed = rng_seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let (label, ps) = self.particle_source(&mut t, si, &materials, &particles, rng_seed)?;
            self.finish(t)?;
            sources.push(label);
            particles.extend(ps);
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
            sources,
            key_lines: self.lines.borrow().clone(),
        })
    }

    fn simulation(&self, v: &V) -> Result<Simulation, SceneError> {
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

    fn domain(&self, v: &V) -> Result<Domain, SceneError> {
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

    fn contact(&self, v: &V) -> Result<Contact, SceneError> {
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

    fn material(&self, t: &mut Tab) -> Result<Material, SceneError> {
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

    fn interaction(&self, t: &mut Tab, materials: &[Material]) -> Result<Interaction, SceneError> {
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

    fn wall(&self, t: &mut Tab, materials: &[Material]) -> Result<Wall, SceneError> {
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

    fn radius_dist(&self, path: &str, v: &V) -> Result<RadiusDist, SceneError> {
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

    fn particle_source(
        &self,
        t: &mut Tab,
        si: usize,
        materials: &[Material],
        existing: &[ParticleInit],
        seed: u64,
    ) -> Result<(SourceInfo, Vec<ParticleInit>), SceneError> {
        let file = self.get(t, "file");
        let generator = self.get(t, "generator");
        match (file, generator) {
            (Some(_), Some(_)) => Err(self.err(
                t.line,
                &t.path,
                "give either file or generator in one [[particles]] table, not both",
            )),
            (None, None) => Err(self.err(
                t.line,
                &join(&t.path, "generator"),
                "missing key (expected file = \"x.csv\" or generator = \"lattice\"|\"random\")",
            )),
            (Some(f), None) => {
                let fname = self.string(&join(&t.path, "file"), f)?;
                let base = self
                    .file
                    .as_ref()
                    .and_then(|p| p.parent())
                    .unwrap_or(Path::new("."));
                let path = base.join(fname);
                let ps = crate::io::csv::read_particles(&path, materials, si).map_err(|e| {
                    // Errors in a CSV row name the CSV file, line and column;
                    // errors about the whole file (missing, empty) point at
                    // the `file` key of the scene.
                    if e.line.is_some() {
                        e
                    } else {
                        self.err(
                            self.vline(f),
                            &join(&t.path, "file"),
                            format!("{}: {}", path.display(), e.message),
                        )
                    }
                })?;
                let label = format!("{} ({})", t.path, fname);
                Ok((
                    SourceInfo {
                        label,
                        generated: false,
                    },
                    ps,
                ))
            }
            (None, Some(g)) => {
                let gpath = join(&t.path, "generator");
                let kind_s = self.string(&gpath, g)?.to_string();
                if kind_s != "lattice" && kind_s != "random" {
                    return Err(self.err(
                        self.vline(g),
                        &gpath,
                        format!(
                            "unknown generator \"{kind_s}\" (expected \"lattice\" or \"random\")"
                        ),
                    ));
                }
                let rv = self.required(t, "region", "{ min = [x, y, z], max = [x, y, z] }")?;
                let rpath = join(&t.path, "region");
                let mut rt = self.tab(&rpath, rv, MIN_MAX_KEYS)?;
                let v = self.required(&mut rt, "min", "[x, y, z] in m")?;
                let rmin = self.vec3(&join(&rpath, "min"), v)?;
                let v = self.required(&mut rt, "max", "[x, y, z] in m")?;
                let rmax = self.vec3(&join(&rpath, "max"), v)?;
                self.finish(rt)?;
                let v = self.required(t, "radius", "a radius in m, { min, max } or a list")?;
                let dist = self.radius_dist(&join(&t.path, "radius"), v)?;
                dist.check()
                    .map_err(|m| self.err(self.vline(v), &join(&t.path, "radius"), m))?;
                let v = self.required(t, "material", "a material name")?;
                let material = self.material_ref(&join(&t.path, "material"), v, materials)?;
                let count = match self.get(t, "count") {
                    Some(v) => Some(self.int(&join(&t.path, "count"), v)? as usize),
                    None => None,
                };
                let velocity = match self.get(t, "velocity") {
                    Some(v) => self.vec3(&join(&t.path, "velocity"), v)?,
                    None => [0.0; 3],
                };
                let spacing = match self.get(t, "spacing") {
                    Some(v) => {
                        let path = join(&t.path, "spacing");
                        let s = self.num(&path, v)?;
                        if kind_s != "lattice" {
                            return Err(self.err(
                                self.vline(v),
                                &path,
                                "only used by generator = \"lattice\"",
                            ));
                        }
                        let dmax = 2.0 * dist.max();
                        if s < dmax {
                            return Err(self.err(
                                self.vline(v),
                                &path,
                                format!(
                                    "expected a spacing >= the largest diameter {dmax} m, got {s}"
                                ),
                            ));
                        }
                        Some(s)
                    }
                    None => None,
                };
                let label = format!("{} ({kind_s})", t.path);
                let err = |key: &str, msg: String| {
                    let path = join(&t.path, key);
                    let line = self.lines.borrow().get(&path).copied().or(t.line);
                    self.err(line, &path, msg)
                };
                let region = (rmin, rmax);
                let mut ps = if kind_s == "lattice" {
                    generate_lattice(region, &dist, count, spacing, seed)
                        .map_err(|m| err("region", m))?
                } else {
                    let Some(n) = count else {
                        return Err(err(
                            "count",
                            "missing key (the random generator needs count = <number of particles>)".into(),
                        ));
                    };
                    generate_random(region, &dist, n, existing, seed)
                        .map_err(|m| err("count", m))?
                };
                for p in &mut ps {
                    p.velocity = velocity;
                    p.material = material;
                    p.source = si;
                }
                Ok((
                    SourceInfo {
                        label,
                        generated: true,
                    },
                    ps,
                ))
            }
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Levenshtein distance (for "did you mean" hints).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn kind(v: &DeValue) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn describe(v: &DeValue) -> Cow<'static, str> {
    match v {
        DeValue::Integer(i) => i.as_str().to_string().into(),
        DeValue::Float(f) => f.as_str().to_string().into(),
        other => kind(other).into(),
    }
}

fn parse_int(s: &str, radix: u32) -> Option<i64> {
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    let body = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0o"))
        .or_else(|| clean.strip_prefix("0b"))
        .unwrap_or(&clean);
    i64::from_str_radix(body, radix).ok()
}

fn parse_float(s: &str) -> Option<f64> {
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    match clean.as_str() {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        x => x.parse().ok(),
    }
}
