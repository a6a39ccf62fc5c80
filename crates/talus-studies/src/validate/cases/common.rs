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
