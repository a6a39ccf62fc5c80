//! A finished (or running) run's snapshots on disk: `particles.pvd` and
//! its `particles_NNNNN.vtu`, `walls.pvd` and its `walls_NNNNN.vtu` when
//! the scene has walls, `bodies.pvd` and its `body_<name>_NNNNN.vtu` when
//! it has FEM bodies (drawn as their surface triangles, as walls after
//! the scene's), `summary.json` for the time step, and the scene
//! file (named by `summary.json`'s `scene_file` or the checkpoint's
//! header, when it still loads) for the domain and gravity.

use super::frame::Frame;
use std::path::{Path, PathBuf};
use talus::io::run_dir::RunFiles;
use talus::io::vtk;

/// A run directory opened for replay.
#[derive(Debug, Clone)]
pub struct Run {
    dir: PathBuf,
    /// (time, particles file, walls file if any) per snapshot.
    entries: Vec<(f64, String, Option<String>)>,
    /// The FEM bodies' files of each snapshot (none without bodies).
    bodies: Vec<Vec<String>>,
    /// The scene's wall count (the bodies are drawn as walls after them).
    first_body: u32,
    dt: Option<f64>,
    domain: ([f64; 3], [f64; 3]),
    gravity: [f64; 3],
    name: String,
}

fn grow(b: &mut ([f64; 3], [f64; 3]), p: [f64; 3], r: f64) {
    for (k, x) in p.iter().enumerate() {
        if x.is_finite() && r.is_finite() {
            b.0[k] = b.0[k].min(x - r);
            b.1[k] = b.1[k].max(x + r);
        }
    }
}

impl Run {
    /// Opens `dir`: reads `particles.pvd` (required), `walls.pvd` (when
    /// there), `summary.json` (when there) and the scene file if one is
    /// named; the domain is the scene's, else the bounds of the first and
    /// last snapshots' particles and walls.
    pub fn open(dir: &Path) -> Result<Run, String> {
        let f = RunFiles::open(dir)?;
        let (parts, walls, body_files) = (f.particles, f.walls, f.bodies);
        // a wall snapshot is written beside each particle one, same k
        let entries: Vec<(f64, String, Option<String>)> = parts
            .into_iter()
            .enumerate()
            .map(|(k, (t, f))| {
                let w = walls
                    .get(k)
                    .filter(|w| w.0 == t)
                    .or_else(|| walls.iter().find(|w| w.0 == t))
                    .map(|w| w.1.clone());
                (t, f, w)
            })
            .collect();
        // the bodies' files: one per body at each snapshot's time
        let bodies: Vec<Vec<String>> = entries
            .iter()
            .map(|(t, _, _)| {
                body_files
                    .iter()
                    .filter(|b| b.0 == *t)
                    .map(|b| b.1.clone())
                    .collect()
            })
            .collect();
        let (summary, scene) = (f.summary, f.scene);
        let dt = summary
            .as_ref()
            .and_then(|s| s.get("dt"))
            .and_then(|d| d.as_f64())
            .filter(|d| d.is_finite() && *d > 0.0);
        let name = summary
            .as_ref()
            .and_then(|s| s.get("scene"))
            .and_then(|s| s.as_str())
            .map(str::to_string)
            .or_else(|| scene.as_ref().map(|s| s.name.clone()))
            .unwrap_or_else(|| {
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
        let first_body = scene.as_ref().map_or(0, |s| s.walls.len() as u32);
        let mut run = Run {
            dir: dir.to_path_buf(),
            entries,
            bodies,
            first_body,
            // without it in the summary: the scene's, resolved as a run does
            dt: dt.or_else(|| {
                let setup = talus::Setup::new(scene.clone()?).ok()?;
                Some(setup.dt)
            }),
            domain: ([0.0; 3], [0.0; 3]),
            gravity: scene
                .as_ref()
                .map_or([0.0, 0.0, -9.81], |s| s.simulation.gravity),
            name,
        };
        run.domain = match &scene {
            Some(s) => (s.domain.min, s.domain.max),
            None => {
                let mut b = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
                let last = run.len() - 1;
                for k in [0, last] {
                    let f = run.frame(k)?;
                    for p in &f.pos_rad {
                        grow(
                            &mut b,
                            p.map(|x| x as f64)[..3].try_into().unwrap(),
                            p[3] as f64,
                        );
                    }
                    for (t, _) in &f.walls {
                        for v in t {
                            grow(&mut b, v.map(|x| x as f64), 0.0);
                        }
                    }
                }
                if b.0[0] > b.1[0] {
                    ([-0.5; 3], [0.5; 3])
                } else {
                    b
                }
            }
        };
        Ok(run)
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The scene's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Snapshots.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Snapshot `k`'s simulated time (s).
    pub fn time(&self, k: usize) -> f64 {
        self.entries.get(k).map_or(f64::NAN, |e| e.0)
    }

    /// Snapshot `k`'s step: time / dt rounded, when dt is known (else 0).
    pub fn step(&self, k: usize) -> u64 {
        match self.dt {
            Some(dt) => (self.time(k) / dt).round().max(0.0) as u64,
            None => 0,
        }
    }

    /// The domain box (m).
    pub fn domain(&self) -> ([f64; 3], [f64; 3]) {
        self.domain
    }

    /// Gravity (m/s²): the scene's, else −9.81 along z.
    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    /// Reads snapshot `k`: its particles and walls, in f32.
    pub fn frame(&self, k: usize) -> Result<Frame, String> {
        let (t, pf, wf) = self
            .entries
            .get(k)
            .ok_or_else(|| format!("snapshot {k} of {}", self.len()))?;
        let p = vtk::read_vtu(&self.dir.join(pf))?;
        let parts = p
            .particles()
            .map_err(|e| format!("{}: {e}", self.dir.join(pf).display()))?;
        let mut walls: Vec<([[f32; 3]; 3], u32)> = match wf {
            Some(w) => {
                let path = self.dir.join(w);
                vtk::read_vtu(&path)?
                    .triangles()
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .into_iter()
                    .map(|(t, w)| (t.map(|v| v.map(|x| x as f32)), w))
                    .collect()
            }
            None => Vec::new(),
        };
        // the FEM bodies: their meshes' surface triangles where they stood
        for (i, b) in self.bodies.get(k).into_iter().flatten().enumerate() {
            let path = self.dir.join(b);
            let mesh = vtk::read_vtu(&path)?
                .tetrahedra()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let x = &mesh.nodes;
            let label = self.first_body + i as u32;
            walls.extend(
                talus::fem::mesh::surface(&mesh)
                    .tris
                    .iter()
                    .map(|t| (t.map(|n| x[n as usize].as_vec3().to_array()), label)),
            );
        }
        Ok(Frame {
            walls,
            time: *t,
            step: self.step(k),
            ..Frame::from_particles(&parts)
        })
    }
}
