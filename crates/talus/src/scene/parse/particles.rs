//! `[[particles]]` sources: particles read from a CSV file or made by a
//! generator (lattice or random), as the table asks.

use super::reader::{join, Reader, Tab};
use super::schema::MIN_MAX_KEYS;
use crate::scene::error::SceneError;
use crate::scene::generate::{generate_lattice, generate_random};
use crate::scene::types::{Material, ParticleInit, SourceInfo};
use std::path::Path;

impl Reader<'_> {
    pub(super) fn particle_source(
        &self,
        t: &mut Tab,
        si: usize,
        materials: &[Material],
        shapes: &[crate::scene::types::ClumpShape],
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
                let ps =
                    crate::io::csv::read_particles(&path, materials, shapes, si).map_err(|e| {
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
