//! A run directory's scene: the file `summary.json` (or the checkpoint's
//! header) names, when it still loads. The viewer's replay and the
//! analysis both find it here.

use crate::scene::Scene;
use std::path::{Path, PathBuf};

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
        let p = PathBuf::from(&f);
        let mut cands = vec![p.clone()];
        if !p.is_absolute() {
            let mut d = Some(dir);
            while let Some(x) = d {
                cands.push(x.join(&p));
                d = x.parent();
            }
        }
        cands
            .into_iter()
            .filter(|c| c.is_file())
            .find_map(|c| Scene::load(&c).ok())
    })
}
