//! `[[bonds]]`: which pairs bond (two materials, or a region holding both
//! centres), when, and the bond's stiffness and strengths. Shapes and types
//! only; `Scene::validate` checks the values.

use super::reader::{join, Reader, Tab};
use crate::scene::error::SceneError;
use crate::scene::types::{BondPairs, BondSpec, Material};

pub(super) const BOND_KEYS: &[&str] = &[
    "materials",
    "region",
    "at",
    "gap",
    "radius_ratio",
    "youngs_modulus",
    "stiffness_ratio",
    "tensile_strength",
    "shear_strength",
    "damping",
];

impl Reader<'_> {
    /// One `[[bonds]]` table.
    pub(super) fn bond(&self, t: &mut Tab, materials: &[Material]) -> Result<BondSpec, SceneError> {
        let pairs = match (self.get(t, "materials"), self.get(t, "region")) {
            (Some(v), None) => {
                let path = join(&t.path, "materials");
                let a = self.array(&path, v)?;
                if a.len() != 2 {
                    return Err(self.err(
                        self.vline(v),
                        &path,
                        format!("expected two material names, found {}", a.len()),
                    ));
                }
                BondPairs::Materials([
                    self.material_ref(&format!("{path}[0]"), &a[0], materials)?,
                    self.material_ref(&format!("{path}[1]"), &a[1], materials)?,
                ])
            }
            (None, Some(v)) => BondPairs::Region(self.region(&join(&t.path, "region"), v)?),
            (Some(_), Some(_)) => {
                return Err(self.err(
                    t.line,
                    &t.path,
                    "give either materials = [\"a\", \"b\"] or region = { min, max }, not both",
                ))
            }
            (None, None) => {
                return Err(self.err(
                    t.line,
                    &join(&t.path, "materials"),
                    "missing key: the pairs to bond, materials = [\"a\", \"b\"] or region = { min = [x, y, z], max = [x, y, z] }",
                ))
            }
        };
        Ok(BondSpec {
            pairs,
            at: self.opt_num(t, "at")?.unwrap_or(0.0),
            gap: self.req_num(t, "gap", "a surface gap in m (pairs closer than it bond)")?,
            radius_ratio: self.opt_num(t, "radius_ratio")?.unwrap_or(1.0),
            youngs_modulus: self.req_num(t, "youngs_modulus", "the bond's modulus in Pa")?,
            stiffness_ratio: self.opt_num(t, "stiffness_ratio")?.unwrap_or(2.5),
            tensile_strength: self.opt_num(t, "tensile_strength")?,
            shear_strength: self.opt_num(t, "shear_strength")?,
            damping: self.opt_num(t, "damping")?.unwrap_or(0.0),
        })
    }
}
