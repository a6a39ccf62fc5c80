//! `[[bodies]]`: deformable finite-element bodies, their tetrahedra from a
//! Gmsh file (`mesh`) or a generated box (`generator = "box"`). Shapes and
//! types only; `Scene::validate` checks the values and the mesh.

use super::reader::{join, Reader, Tab, V};
use crate::scene::error::SceneError;
use crate::scene::types::{Body, BodyElement, BodyIntegrator, BodyMesh, BodyModel, Material};
use toml::de::DeValue;

pub(super) const BODY_KEYS: &[&str] = &[
    "name",
    "mesh",
    "generator",
    "min",
    "max",
    "divisions",
    "material",
    "element",
    "model",
    "integrator",
    "velocity",
    "damping",
    "fixed",
    "exchange_every",
    "wall_stiffness",
];
const DAMPING_KEYS: &[&str] = &["alpha", "beta"];
const FIXED_KEYS: &[&str] = &["min", "max"];
/// The keys of `generator = "box"`, refused beside `mesh`.
const BOX_KEYS: [&str; 3] = ["min", "max", "divisions"];

impl Reader<'_> {
    /// One `[[bodies]]` table.
    pub(super) fn body(&self, t: &mut Tab, materials: &[Material]) -> Result<Body, SceneError> {
        let name = match self.get(t, "name") {
            Some(v) => Some(self.string(&join(&t.path, "name"), v)?.to_string()),
            None => None,
        };
        let mesh = self.body_mesh(t)?;
        let v = self.required(t, "material", "a material name")?;
        let material = self.material_ref(&join(&t.path, "material"), v, materials)?;
        let element = match self.word(
            t,
            "element",
            &[("tet4", BodyElement::Tet4), ("tet10", BodyElement::Tet10)],
        )? {
            Some(e) => e,
            None => BodyElement::Tet10,
        };
        let model = match self.word(
            t,
            "model",
            &[("stvk", BodyModel::Stvk), ("linear", BodyModel::Linear)],
        )? {
            Some(m) => m,
            None => BodyModel::Stvk,
        };
        let integrator = match self.word(
            t,
            "integrator",
            &[
                ("explicit", BodyIntegrator::Explicit),
                ("energy_momentum", BodyIntegrator::EnergyMomentum),
            ],
        )? {
            Some(i) => i,
            None => BodyIntegrator::Explicit,
        };
        let velocity = match self.get(t, "velocity") {
            Some(v) => self.vec3(&join(&t.path, "velocity"), v)?,
            None => [0.0; 3],
        };
        let damping = match self.get(t, "damping") {
            Some(v) => {
                let mut d = self.tab(&join(&t.path, "damping"), v, DAMPING_KEYS)?;
                let alpha = self.opt_num(&mut d, "alpha")?.unwrap_or(0.0);
                let beta = self.opt_num(&mut d, "beta")?.unwrap_or(0.0);
                self.finish(d)?;
                [alpha, beta]
            }
            None => [0.0; 2],
        };
        let mut fixed = Vec::new();
        if let Some(v) = self.get(t, "fixed") {
            let path = join(&t.path, "fixed");
            let a = self.array(&path, v).map_err(|mut e| {
                e.message = format!(
                    "{} (write fixed = [{{ min = [x, y, z], max = [x, y, z] }}, ...])",
                    e.message
                );
                e
            })?;
            for (k, item) in a.iter().enumerate() {
                let mut b = self.tab(&format!("{path}[{k}]"), item, FIXED_KEYS)?;
                let min = self.req_vec3(&mut b, "min", "[x, y, z] in m")?;
                let max = self.req_vec3(&mut b, "max", "[x, y, z] in m")?;
                self.finish(b)?;
                fixed.push((min, max));
            }
        }
        let exchange_every = match self.get(t, "exchange_every") {
            None => None,
            Some(v) => match v.get_ref() {
                DeValue::String(x) if x.as_ref() == "auto" => None,
                _ => {
                    let path = join(&t.path, "exchange_every");
                    let n = self.int(&path, v).map_err(|mut e| {
                        e.message = format!(
                            "expected a positive number of grain steps or \"auto\", {}",
                            e.message
                                .trim_start_matches("expected a non-negative integer, ")
                        );
                        e
                    })?;
                    Some(u32::try_from(n).map_err(|_| {
                        self.err(
                            self.vline(v),
                            &path,
                            format!("expected at most {} grain steps, got {n}", u32::MAX),
                        )
                    })?)
                }
            },
        };
        let wall_stiffness = match self.get(t, "wall_stiffness") {
            None => None,
            Some(v) => match v.get_ref() {
                DeValue::String(x) if x.as_ref() == "auto" => None,
                _ => Some(
                    self.num(&join(&t.path, "wall_stiffness"), v)
                        .map_err(|mut e| {
                            e.message = "expected a stiffness in N/m or \"auto\"".into();
                            e
                        })?,
                ),
            },
        };
        Ok(Body {
            name,
            mesh,
            material,
            element,
            model,
            integrator,
            velocity,
            damping,
            fixed,
            exchange_every,
            wall_stiffness,
        })
    }

    /// `mesh = "file.msh"` (relative to the scene file) or `generator =
    /// "box"` with `min`, `max`, `divisions`: exactly one of the two.
    fn body_mesh(&self, t: &mut Tab) -> Result<BodyMesh, SceneError> {
        let mesh = self.get(t, "mesh");
        let generator = self.get(t, "generator");
        match (mesh, generator) {
            (Some(_), Some(g)) => Err(self.err(
                self.vline(g),
                &join(&t.path, "generator"),
                "give either mesh (a Gmsh file) or generator = \"box\", not both",
            )),
            (None, None) => Err(self.err(
                t.line,
                &join(&t.path, "mesh"),
                "missing key (expected mesh = \"<file>.msh\" (Gmsh MSH 4.1) or generator = \"box\")",
            )),
            (Some(v), None) => {
                let fname = self.string(&join(&t.path, "mesh"), v)?;
                for k in BOX_KEYS {
                    if self.has(t, k) {
                        let kv = self.get(t, k).expect("present");
                        return Err(self.err(
                            self.vline(kv),
                            &join(&t.path, k),
                            "only with generator = \"box\" (a mesh file gives its own nodes)",
                        ));
                    }
                }
                Ok(BodyMesh::File(self.beside_scene(fname)))
            }
            (None, Some(v)) => {
                let path = join(&t.path, "generator");
                match self.string(&path, v)? {
                    "box" => {}
                    other => {
                        return Err(self.err(
                            self.vline(v),
                            &path,
                            format!("unknown generator \"{other}\" (expected \"box\")"),
                        ))
                    }
                }
                let min = self.req_vec3(t, "min", "[x, y, z] in m")?;
                let max = self.req_vec3(t, "max", "[x, y, z] in m")?;
                let v = self.required(t, "divisions", "[nx, ny, nz], positive integers")?;
                let divisions = self.divisions(&join(&t.path, "divisions"), v)?;
                Ok(BodyMesh::Box {
                    min,
                    max,
                    divisions,
                })
            }
        }
    }

    /// `divisions = [nx, ny, nz]`: non-negative integers here (zero is
    /// left for validation to report).
    fn divisions(&self, path: &str, v: &V) -> Result<[u32; 3], SceneError> {
        let a = self.array(path, v)?;
        if a.len() != 3 {
            return Err(self.err(
                self.vline(v),
                path,
                format!("expected 3 integers [nx, ny, nz], found {} values", a.len()),
            ));
        }
        let mut out = [0; 3];
        for (i, x) in a.iter().enumerate() {
            let p = format!("{path}[{i}]");
            let n = self.int(&p, x).map_err(|mut e| {
                e.message = e
                    .message
                    .replace("a non-negative integer", "a positive integer");
                e
            })?;
            out[i] = u32::try_from(n).map_err(|_| {
                self.err(
                    self.vline(x),
                    &p,
                    format!("expected at most {} divisions, got {n}", u32::MAX),
                )
            })?;
        }
        Ok(out)
    }

    /// A key whose value is one of a few words, None when left out.
    fn word<T: Copy>(
        &self,
        t: &mut Tab,
        key: &'static str,
        words: &[(&str, T)],
    ) -> Result<Option<T>, SceneError> {
        let Some(v) = self.get(t, key) else {
            return Ok(None);
        };
        let path = join(&t.path, key);
        let s = self.string(&path, v)?;
        match words.iter().find(|(w, _)| *w == s) {
            Some((_, x)) => Ok(Some(*x)),
            None => {
                let list: Vec<String> = words.iter().map(|(w, _)| format!("\"{w}\"")).collect();
                let expected = match list.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => list.join(""),
                };
                Err(self.err(
                    self.vline(v),
                    &path,
                    format!("unknown {key} \"{s}\" (expected {expected})"),
                ))
            }
        }
    }
}
