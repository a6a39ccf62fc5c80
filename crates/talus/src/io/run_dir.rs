//! A run directory read back: what `talus run` wrote there (the
//! snapshot series, `summary.json`) and the scene it ran, when its file
//! still loads. The viewer's replay and the analysis both open runs here.

use crate::scene::Scene;
use std::path::{Path, PathBuf};

/// A run directory's listing.
#[derive(Debug, Clone)]
pub struct RunFiles {
    pub dir: PathBuf,
    /// `particles.pvd`'s (time, file) entries: at least one.
    pub particles: Vec<(f64, String)>,
    /// `walls.pvd`'s and `bodies.pvd`'s (empty when the run had none).
    pub walls: Vec<(f64, String)>,
    pub bodies: Vec<(f64, String)>,
    /// `summary.json`, when there and readable (a run still going has
    /// none yet).
    pub summary: Option<serde_json::Value>,
    /// The scene, if `summary.json` (or the checkpoint) names a file that
    /// still loads ([`scene_of`]).
    pub scene: Option<Scene>,
}

impl RunFiles {
    /// Opens `dir`: `particles.pvd` is required and must list a snapshot;
    /// each failure one line naming the file and what was expected.
    pub fn open(dir: &Path) -> Result<RunFiles, String> {
        if !dir.is_dir() {
            return Err(format!(
                "{}: no such run directory (expected the output directory of `talus run`)",
                dir.display()
            ));
        }
        let pvd = dir.join("particles.pvd");
        if !pvd.is_file() {
            return Err(format!(
                "{}: no particles.pvd (is this a talus run's output directory?)",
                dir.display()
            ));
        }
        let particles = super::vtk::read_pvd(&pvd)?;
        if particles.is_empty() {
            return Err(format!(
                "{}: no snapshots listed (expected particles_NNNNN.vtu entries)",
                pvd.display()
            ));
        }
        let series = |name: &str| -> Result<Vec<(f64, String)>, String> {
            let p = dir.join(name);
            if p.is_file() {
                super::vtk::read_pvd(&p)
            } else {
                Ok(Vec::new())
            }
        };
        let summary: Option<serde_json::Value> = std::fs::read_to_string(dir.join("summary.json"))
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok());
        let scene = scene_of(dir, summary.as_ref());
        Ok(RunFiles {
            dir: dir.to_path_buf(),
            particles,
            walls: series("walls.pvd")?,
            bodies: series("bodies.pvd")?,
            summary,
            scene,
        })
    }
}

/// The scene the run in `dir` ran: `summary.json`'s `scene_file` (pass the
/// parsed summary) or the checkpoint's, as given when absolute, else
/// relative to where the run was started: tried as given, then against
/// the run directory and each of its parents. None when no file names one
/// or none of the candidates loads.
pub fn scene_of(dir: &Path, summary: Option<&serde_json::Value>) -> Option<Scene> {
    let mut files: Vec<String> = Vec::new();
    if let Some(f) = summary
        .and_then(|s| s.get("scene_file"))
        .and_then(|f| f.as_str())
    {
        files.push(f.to_string());
    }
    if dir.join(crate::checkpoint::CHECKPOINT_FILE).exists() {
        if let Ok((h, _)) = crate::checkpoint::read(dir) {
            files.extend(h.scene_file);
        }
    }
    files.into_iter().find_map(|f| {
        scene_files(dir, &f)
            .into_iter()
            .find_map(|c| Scene::load(&c).ok())
    })
}

/// The files a run in `dir` may mean by scene file `named`: as given
/// when absolute, else tried as given (relative to where the run was
/// started), then against the run directory and each of its parents;
/// those that exist, in that order.
pub fn scene_files(dir: &Path, named: &str) -> Vec<PathBuf> {
    let p = PathBuf::from(named);
    let mut cands = vec![p.clone()];
    if !p.is_absolute() {
        let mut d = Some(dir);
        while let Some(x) = d {
            cands.push(x.join(&p));
            d = x.parent();
        }
    }
    cands.retain(|c| c.is_file());
    cands
}
