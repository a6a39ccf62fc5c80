//! A run directory read back for analysis: the snapshots listed in
//! `particles.pvd` (f64, bit-exact), `summary.json`, the scene the run
//! ran when its file still loads (materials, contact law, periodic axes,
//! gravity) and `flow.csv`.

use std::path::{Path, PathBuf};
use talus::io::run_dir::RunFiles;
use talus::io::vtk;
use talus::scene::{Domain, Scene};
use talus::state::Particles;

/// An opened run directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub dir: PathBuf,
    /// (time, file) per snapshot, in `particles.pvd`'s order.
    pub snapshots: Vec<(f64, PathBuf)>,
    pub summary: Option<serde_json::Value>,
    /// The scene, if `summary.json` (or the checkpoint) names a file that
    /// still loads.
    pub scene: Option<Scene>,
}

/// One row of `flow.csv`: cumulative removals of one outlet at time t.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRow {
    pub t: f64,
    pub outlet: String,
    pub count: u64,
    pub mass: f64,
}

impl RunDir {
    /// Opens `dir`: `particles.pvd` is required and must list a snapshot.
    pub fn open(dir: &Path) -> Result<RunDir, String> {
        let f = RunFiles::open(dir)?;
        Ok(RunDir {
            snapshots: f
                .particles
                .into_iter()
                .map(|(t, p)| (t, dir.join(p)))
                .collect(),
            dir: f.dir,
            summary: f.summary,
            scene: f.scene,
        })
    }

    /// Snapshot `k`'s particles.
    pub fn read(&self, k: usize) -> Result<Particles<f64>, String> {
        let (_, path) = self.snapshots.get(k).ok_or_else(|| {
            format!(
                "{}: snapshot {k} asked, the run has {}",
                self.dir.join("particles.pvd").display(),
                self.snapshots.len()
            )
        })?;
        let vtu = vtk::read_vtu(path)?;
        // a clump's members overlap: summed as spheres they would count
        // their lenses twice (fractions, volumes), and their rows are not
        // particles (counts, contacts)
        if vtu
            .ints("shape", false)
            .is_ok_and(|s| s.iter().any(|&k| k >= 0))
        {
            return Err(format!(
                "{}: the run holds clumps; talus analyze reads spheres only so far (a clump's overlapping members would be counted as separate spheres)",
                path.display()
            ));
        }
        vtu.particles()
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Snapshot `k`'s time (s).
    pub fn time(&self, k: usize) -> f64 {
        self.snapshots.get(k).map_or(f64::NAN, |s| s.0)
    }

    /// `--snapshot`: `last`, `first` or an index (negative counts from the
    /// end: −1 is the last).
    pub fn pick(&self, spec: &str) -> Result<usize, String> {
        let n = self.snapshots.len() as i64;
        let k = match spec {
            "last" => n - 1,
            "first" => 0,
            s => {
                let v: i64 = s.parse().map_err(|_| {
                    format!("--snapshot: expected an index, `first` or `last`, got \"{s}\"")
                })?;
                if v < 0 {
                    n + v
                } else {
                    v
                }
            }
        };
        if k < 0 || k >= n {
            return Err(format!(
                "--snapshot: {spec} is out of range: the run has {n} snapshots (0 to {})",
                n - 1
            ));
        }
        Ok(k as usize)
    }

    /// The domain: the scene's, else the particles' bounds (not periodic).
    pub fn domain(&self, pos_rad: &[[f64; 4]]) -> Domain {
        if let Some(s) = &self.scene {
            return s.domain.clone();
        }
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for p in pos_rad {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k] - p[3]);
                hi[k] = hi[k].max(p[k] + p[3]);
            }
        }
        if lo[0] > hi[0] {
            (lo, hi) = ([0.0; 3], [1.0; 3]);
        }
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        }
    }

    /// Gravity: the scene's, else −9.81 along z.
    pub fn gravity(&self) -> [f64; 3] {
        self.scene
            .as_ref()
            .map_or([0.0, 0.0, -9.81], |s| s.simulation.gravity)
    }

    /// `flow.csv` (`t,outlet,count,mass`).
    pub fn flow_rows(&self) -> Result<Vec<FlowRow>, String> {
        let path = self.dir.join("flow.csv");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (the run writes it at every energy row)",
                path.display()
            )
        })?;
        parse_flow_csv(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Parses `flow.csv`'s text (header `t,outlet,count,mass`).
pub fn parse_flow_csv(text: &str) -> Result<Vec<FlowRow>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim() == "t,outlet,count,mass" => {}
        _ => return Err("line 1: expected the header `t,outlet,count,mass`".into()),
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let bad = || {
            format!(
                "line {}: expected t,outlet,count,mass, got \"{}\"",
                i + 1,
                talus::text::snippet(line)
            )
        };
        if f.len() != 4 {
            return Err(bad());
        }
        out.push(FlowRow {
            t: f[0].trim().parse().map_err(|_| bad())?,
            outlet: f[1].trim().to_string(),
            count: f[2].trim().parse().map_err(|_| bad())?,
            mass: f[3].trim().parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A damaged row is named by its line and quoted in a few printable
    /// characters: a row of 13 000 NUL bytes (a file cut by a crash and
    /// padded by the file system) printed all of them before.
    #[test]
    fn damaged_flow_rows_are_quoted_short() {
        let good = "t,outlet,count,mass\n0,domain,0,0\n";
        assert_eq!(parse_flow_csv(good).unwrap().len(), 1);
        let text = format!("{good}{}\n", "\0".repeat(13_000));
        let e = parse_flow_csv(&text).unwrap_err();
        assert!(e.starts_with("line 3: expected t,outlet,count,mass"), "{e}");
        assert!(
            e.contains("\\0\\0") && e.len() < 200,
            "{} bytes: {e}",
            e.len()
        );
    }
}
