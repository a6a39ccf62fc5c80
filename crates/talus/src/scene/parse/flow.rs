//! `[[insert]]` and `[[outlets]]`: where particles are poured in and where
//! they leave, and the region both are given in (a box or a solid
//! cylinder). Shapes and types only; `Scene::validate` checks the values.

use super::reader::{join, Reader, Tab, V};
use crate::scene::error::SceneError;
use crate::scene::types::{
    unit_or_given, Insert, InsertRate, Material, Orientation, Outlet, Region,
};
use toml::de::DeValue;

pub(super) const INSERT_KEYS: &[&str] = &[
    "region",
    "rate",
    "mass_rate",
    "radius",
    "shape",
    "orientation",
    "material",
    "velocity",
    "start",
    "stop",
    "count",
    "interval",
];
pub(super) const OUTLET_KEYS: &[&str] = &["name", "region"];
pub(super) const FIXED_KEYS: &[&str] = &["region"];
/// A box's keys and a cylinder's: the form found takes its own, the
/// other's are then refused as unknown.
const REGION_KEYS: &[&str] = &["min", "max", "center", "axis", "radius", "length"];
const REGION_FORMS: &str =
    "{ min = [x, y, z], max = [x, y, z] } (a box) or { center = [x, y, z], axis = [x, y, z], radius = R, length = L } (a solid cylinder)";

impl Reader<'_> {
    /// `region = { min, max }` or `{ center, axis, radius, length }` (axis
    /// normalised; a zero axis is left for validation to report).
    pub(super) fn region(&self, path: &str, v: &V) -> Result<Region, SceneError> {
        let mut t = self.tab(path, v, REGION_KEYS)?;
        let region = if self.has(&t, "min") || self.has(&t, "max") {
            Region::Box {
                min: self.req_vec3(&mut t, "min", "[x, y, z] in m")?,
                max: self.req_vec3(&mut t, "max", "[x, y, z] in m")?,
            }
        } else if ["center", "axis", "radius", "length"]
            .iter()
            .any(|k| self.has(&t, k))
        {
            Region::Cylinder {
                center: self.req_vec3(&mut t, "center", "[x, y, z] in m")?,
                axis: unit_or_given(self.req_vec3(&mut t, "axis", "[x, y, z]")?),
                radius: self.req_num(&mut t, "radius", "a radius in m")?,
                length: self.req_num(&mut t, "length", "a length in m")?,
            }
        } else {
            return Err(self.err(t.line, path, format!("expected {REGION_FORMS}")));
        };
        self.finish(t)?;
        Ok(region)
    }

    /// One `[[insert]]` table.
    pub(super) fn insert(
        &self,
        t: &mut Tab,
        materials: &[Material],
        shapes: &[crate::scene::types::ClumpShape],
    ) -> Result<Insert, SceneError> {
        let v = self.required(t, "region", REGION_FORMS)?;
        let region = self.region(&join(&t.path, "region"), v)?;
        let rate = match (self.get(t, "rate"), self.get(t, "mass_rate")) {
            (Some(_), Some(m)) => {
                return Err(self.err(
                    self.vline(m),
                    &join(&t.path, "mass_rate"),
                    "give either rate (particles/s) or mass_rate (kg/s), not both",
                ))
            }
            (Some(v), None) => InsertRate::Count(self.num(&join(&t.path, "rate"), v)?),
            (None, Some(v)) => InsertRate::Mass(self.num(&join(&t.path, "mass_rate"), v)?),
            (None, None) => {
                return Err(self.err(
                    t.line,
                    &join(&t.path, "rate"),
                    "missing key (expected rate = <particles/s> or mass_rate = <kg/s>)",
                ))
            }
        };
        // spheres of a radius, or clumps of a shape
        let (radius, shape) = match (self.get(t, "radius"), self.get(t, "shape")) {
            (Some(_), Some(s)) => {
                return Err(self.err(
                    self.vline(s),
                    &join(&t.path, "shape"),
                    "give either radius (spheres) or shape (clumps), not both",
                ))
            }
            (Some(v), None) => (self.radius_dist(&join(&t.path, "radius"), v)?, None),
            (None, Some(v)) => {
                let spath = join(&t.path, "shape");
                let name = self.string(&spath, v)?;
                let Some(k) = shapes.iter().position(|s| s.name == name) else {
                    let names: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
                    return Err(self.err(
                        self.vline(v),
                        &spath,
                        format!(
                            "unknown shape \"{name}\" (defined in [[shapes]]: {})",
                            if names.is_empty() { "none".into() } else { names.join(", ") }
                        ),
                    ));
                };
                let r = shapes[k].body.max_radius;
                (crate::scene::radius::RadiusDist::Constant(r), Some(k))
            }
            (None, None) => {
                return Err(self.err(
                    t.line,
                    &join(&t.path, "radius"),
                    "missing key (expected radius = <m>, { min, max } or a list; or shape = \"<a [[shapes]] name>\")",
                ))
            }
        };
        let orientation = match self.get(t, "orientation") {
            None => Orientation::Random,
            Some(v) => {
                let opath = join(&t.path, "orientation");
                if shape.is_none() {
                    return Err(self.err(
                        self.vline(v),
                        &opath,
                        "orientation is a clump's: give shape too (spheres have none)",
                    ));
                }
                match v.get_ref() {
                    DeValue::String(x) if x.as_ref() == "random" => Orientation::Random,
                    DeValue::Array(_) => {
                        let a = self.array(&opath, v)?;
                        if a.len() != 4 {
                            return Err(self.err(
                                self.vline(v),
                                &opath,
                                format!("expected \"random\" or a quaternion [w, x, y, z], found {} values", a.len()),
                            ));
                        }
                        let mut q = [0.0; 4];
                        for (i, n) in a.iter().enumerate() {
                            q[i] = self.num(&format!("{opath}[{i}]"), n)?;
                        }
                        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                        if norm.is_nan() || norm <= 1e-12 {
                            return Err(self.err(
                                self.vline(v),
                                &opath,
                                "the quaternion is zero: give a rotation [w, x, y, z], e.g. [1, 0, 0, 0]",
                            ));
                        }
                        Orientation::Fixed(q.map(|x| x / norm))
                    }
                    _ => {
                        return Err(self.err(
                            self.vline(v),
                            &opath,
                            "expected \"random\" or a quaternion [w, x, y, z]",
                        ))
                    }
                }
            }
        };
        let v = self.required(t, "material", "a material name")?;
        let material = self.material_ref(&join(&t.path, "material"), v, materials)?;
        let velocity = match self.get(t, "velocity") {
            Some(v) => self.vec3(&join(&t.path, "velocity"), v)?,
            None => [0.0; 3],
        };
        let start = self.opt_num(t, "start")?.unwrap_or(0.0);
        let stop = self.opt_num(t, "stop")?;
        let count = match self.get(t, "count") {
            Some(v) => Some(self.int(&join(&t.path, "count"), v)?),
            None => None,
        };
        let interval = match self.get(t, "interval") {
            None => None,
            Some(v) => match v.get_ref() {
                DeValue::String(x) if x.as_ref() == "auto" => None,
                _ => Some(self.num(&join(&t.path, "interval"), v).map_err(|mut e| {
                    e.message = "expected an interval in seconds or \"auto\"".into();
                    e
                })?),
            },
        };
        Ok(Insert {
            region,
            rate,
            radius,
            material,
            velocity,
            start,
            stop,
            count,
            interval,
            shape,
            orientation,
        })
    }

    /// One `[[fixed]]` table: its region.
    pub(super) fn fixed(&self, t: &mut Tab) -> Result<Region, SceneError> {
        let v = self.required(t, "region", REGION_FORMS)?;
        self.region(&join(&t.path, "region"), v)
    }

    /// One `[[outlets]]` table.
    pub(super) fn outlet(&self, t: &mut Tab) -> Result<Outlet, SceneError> {
        let name = match self.get(t, "name") {
            Some(v) => Some(self.string(&join(&t.path, "name"), v)?.to_string()),
            None => None,
        };
        let v = self.required(t, "region", REGION_FORMS)?;
        let region = self.region(&join(&t.path, "region"), v)?;
        Ok(Outlet { name, region })
    }
}
