//! `[[shapes]]`: the rigid clumps particles may take (issue 37): a name and
//! its member spheres, or a closed mesh and how many spheres fill it. Read
//! and checked here — the members' radii and centres, the mesh closed and
//! enclosing a volume, the count, the names unique, the shape no larger
//! than the domain — nothing runs them yet.

use super::reader::{join, Reader, Tab};
use crate::scene::error::SceneError;
use crate::scene::mesh_file;
use crate::scene::types::{ClumpShape, ClumpSource, Domain};
use crate::shapes::table::Shape;
use crate::shapes::{fill, mass};

pub(super) const SHAPE_KEYS: &[&str] = &["name", "spheres", "file", "spheres_count"];

const SHAPE_FORMS: &str =
    "spheres = [[x, y, z, radius], ...] (m, in the shape's frame) or file = \"mesh.stl\" with spheres_count = N";

impl Reader<'_> {
    /// One `[[shapes]]` table (`earlier`: the shapes before it).
    pub(super) fn shape(
        &self,
        t: &mut Tab,
        earlier: &[ClumpShape],
        domain: &Domain,
    ) -> Result<ClumpShape, SceneError> {
        let npath = join(&t.path, "name");
        let v = self.required(t, "name", "a name for the shape")?;
        let name = self.string(&npath, v)?.to_string();
        let name_line = self.vline(v);
        if let Some(k) = earlier.iter().position(|s| s.name == name) {
            return Err(self.err(
                name_line,
                &npath,
                format!("shapes[{k}] is already named \"{name}\""),
            ));
        }
        let spheres = self.get(t, "spheres");
        let file = self.get(t, "file");
        let (source, extent): (ClumpSource, [f64; 3]) = match (spheres, file) {
            (Some(v), None) => {
                let spath = join(&t.path, "spheres");
                let mut list = Vec::new();
                for (k, s) in self.array(&spath, v)?.iter().enumerate() {
                    let kpath = format!("{spath}[{k}]");
                    let a = self.array(&kpath, s)?;
                    if a.len() != 4 {
                        return Err(self.err(
                            self.vline(s),
                            &kpath,
                            format!("expected [x, y, z, radius] (m), found {} values", a.len()),
                        ));
                    }
                    let mut x = [0.0; 4];
                    for (i, n) in a.iter().enumerate() {
                        x[i] = self.num(&format!("{kpath}[{i}]"), n)?;
                    }
                    list.push(x);
                }
                mass::check(&list).map_err(|e| {
                    let at = match &e {
                        mass::ShapeError::Empty => spath.clone(),
                        mass::ShapeError::Radius { index, .. }
                        | mass::ShapeError::Centre { index, .. } => format!("{spath}[{index}]"),
                    };
                    self.err(self.vline(v), &at, e.to_string())
                })?;
                let lo = list.iter().fold([f64::INFINITY; 3], |m, s| {
                    std::array::from_fn(|k| m[k].min(s[k] - s[3]))
                });
                let hi = list.iter().fold([f64::NEG_INFINITY; 3], |m, s| {
                    std::array::from_fn(|k| m[k].max(s[k] + s[3]))
                });
                (
                    ClumpSource::Spheres(list),
                    std::array::from_fn(|k| hi[k] - lo[k]),
                )
            }
            (None, Some(v)) => {
                let fpath = join(&t.path, "file");
                let fname = self.string(&fpath, v)?;
                let line = self.vline(v);
                let path = self.beside_scene(fname);
                let cpath = join(&t.path, "spheres_count");
                let c =
                    self.required(t, "spheres_count", "the number of spheres to fill it with")?;
                let count = self.int(&cpath, c)?;
                if count < 1 {
                    return Err(self.err(
                        self.vline(c),
                        &cpath,
                        format!("{}", fill::FillError::Count(count as usize)),
                    ));
                }
                let mut triangles =
                    mesh_file::read(&path).map_err(|m| self.err(line, &fpath, m))?;
                mesh_file::drop_degenerate(&mut triangles);
                fill::solid_properties(&triangles).map_err(|e| {
                    self.err(line, &fpath, format!("mesh file {}: {e}", path.display()))
                })?;
                let (lo, hi) = mesh_file::bounds(&triangles).expect("a closed mesh has triangles");
                let extent: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
                let source = ClumpSource::Mesh {
                    file: path,
                    triangles,
                    count: count as usize,
                };
                (source, extent)
            }
            (Some(_), Some(f)) => {
                return Err(self.err(
                    self.vline(f),
                    &join(&t.path, "file"),
                    "give either spheres or file (with spheres_count), not both",
                ))
            }
            (None, None) => {
                return Err(self.err(t.line, &t.path, format!("expected {SHAPE_FORMS}")))
            }
        };
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            let room = domain.max[k] - domain.min[k];
            if extent[k] > room {
                return Err(self.err(
                    name_line,
                    &npath,
                    format!(
                        "shape \"{name}\" is {:.4} m across along {axis}, more than the domain's {room:.4} m",
                        extent[k]
                    ),
                ));
            }
        }
        // the body the engine moves: its members in the principal frame,
        // the union's mass properties (a list) or the solid's (a mesh)
        let body = match &source {
            ClumpSource::Spheres(list) => {
                let props = mass::union_of_spheres(list, mass::Accuracy::default())
                    .map_err(|e| self.err(name_line, &npath, e.to_string()))?;
                Shape::new(&name, list, &props)
            }
            ClumpSource::Mesh {
                triangles, count, ..
            } => {
                let f = fill::fill(triangles, *count)
                    .map_err(|e| self.err(name_line, &npath, e.to_string()))?;
                Shape::new(&name, &f.spheres, &f.solid)
            }
        };
        Ok(ClumpShape { name, source, body })
    }
}
