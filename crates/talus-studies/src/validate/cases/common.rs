//! Helpers shared by the cases: time step, error mapping, plot series.

use crate::validate::result::Series;

/// A backend or scene error as the cases' error type.
pub fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Time step: the shortest contact time / `per`.
pub fn dt_for(tcs: &[f64], per: f64) -> f64 {
    tcs.iter().cloned().fold(f64::INFINITY, f64::min) / per
}

/// Time steps per (shortest) contact in the impact cases.
pub const PER_CONTACT: f64 = 200.0;

/// A theory series (a line, drawn once).
pub fn theory_series(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: true,
    }
}

/// A measured series (markers, one per backend).
pub fn measured(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: false,
    }
}

/// LIGGGHTS' results for a case, `validation/liggghts/<name>_results.csv`
/// (header, then `quantity,value` lines): quantity → value. A missing file
/// is an empty map (the case then reports its rows unjudged); a line that
/// is not `quantity,number` is an error naming the file and the line.
pub fn liggghts_results(name: &str) -> Result<std::collections::BTreeMap<String, f64>, String> {
    let file = crate::repo_root().join(format!("validation/liggghts/{name}_results.csv"));
    match std::fs::read_to_string(&file) {
        Ok(text) => results_csv(&file.display().to_string(), &text),
        Err(_) => Ok(Default::default()),
    }
}

/// The lines of a `quantity,value` results file (`liggghts_results`).
fn results_csv(file: &str, text: &str) -> Result<std::collections::BTreeMap<String, f64>, String> {
    let mut v = std::collections::BTreeMap::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let parsed = line
            .split_once(',')
            .and_then(|(q, x)| Some((q.trim(), x.trim().parse::<f64>().ok()?)));
        match parsed {
            Some((q, x)) if !q.is_empty() => {
                v.insert(q.to_string(), x);
            }
            _ => {
                return Err(format!(
                    "{file}: line {}: expected quantity,number, found {line:?}",
                    i + 1
                ))
            }
        }
    }
    Ok(v)
}

/// A scene file shipped in `scenes/` (the tests that check a case and its
/// file agree).
#[cfg(test)]
pub fn shipped(file: &str) -> talus::scene::Scene {
    let path = crate::repo_root().join("scenes").join(file);
    talus::scene::parse::load(&path).unwrap()
}

/// The two scenes are the same scene: simulation, domain, contact law,
/// materials, walls and particles all equal (a shipped scene file written
/// with exact numbers).
#[cfg(test)]
pub fn assert_same_scene(shipped: &talus::scene::Scene, ours: &talus::scene::Scene) {
    assert_eq!(shipped.simulation, ours.simulation);
    assert_eq!(shipped.domain, ours.domain);
    assert_eq!(shipped.contact, ours.contact);
    assert_eq!(shipped.materials, ours.materials);
    assert_eq!(shipped.walls, ours.walls);
    assert_same_particles(shipped, ours);
}

/// The two scenes start from the same particles: count, positions, radii,
/// velocities and materials.
#[cfg(test)]
pub fn assert_same_particles(shipped: &talus::scene::Scene, ours: &talus::scene::Scene) {
    assert_eq!(shipped.particles.len(), ours.particles.len());
    for (a, b) in shipped.particles.iter().zip(&ours.particles) {
        assert_eq!((a.position, a.radius), (b.position, b.radius));
        assert_eq!((a.velocity, a.material), (b.velocity, b.material));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_files_are_read_strictly() {
        let v = results_csv("f.csv", "quantity,value\nangle, 23.5\nfraction,0.6\n").unwrap();
        assert_eq!(v["angle"], 23.5);
        assert_eq!(v["fraction"], 0.6);
        let e = results_csv("f.csv", "quantity,value\nangle,23.5\nfraction,n/a\n").unwrap_err();
        assert_eq!(
            e,
            "f.csv: line 3: expected quantity,number, found \"fraction,n/a\""
        );
        assert!(results_csv("f.csv", "quantity,value\n,1\n").is_err());
        // every shipped file reads
        for name in ["slope", "clump_heap"] {
            assert!(!liggghts_results(name).unwrap().is_empty(), "{name}");
        }
    }
}
