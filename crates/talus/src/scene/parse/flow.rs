//! `[[insert]]` and `[[outlets]]`: where particles are poured in and where
//! they leave, and the region both are given in (a box or a solid
//! cylinder). Shapes and types only; `Scene::validate` checks the values.

use super::reader::{join, Reader, Tab, V};
use crate::scene::error::SceneError;
use crate::scene::types::{unit_or_given, Insert, InsertRate, Material, Outlet, Region};
use toml::de::DeValue;

pub(super) const INSERT_KEYS: &[&str] = &[
    "region",
    "rate",
    "mass_rate",
    "radius",
    "material",
    "velocity",
    "start",
    "stop",
    "count",
    "interval",
];
pub(super) const OUTLET_KEYS: &[&str] = &["name", "region"];
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
    pub(super) fn insert(&self, t: &mut Tab, materials: &[Material]) -> Result<Insert, SceneError> {
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
        let v = self.required(t, "radius", "a radius in m, { min, max } or a list")?;
        let radius = self.radius_dist(&join(&t.path, "radius"), v)?;
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
        })
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
