//! Particle–particle overlaps, found through the run's grid.

use crate::grid::pairs::first_contact_where;
use crate::grid::Grid;
use crate::scene::error::SceneError;
use crate::scene::types::{ParticleInit, Scene};
use glam::DVec3;

/// Generated particles may not overlap at all; particles read from files
/// (e.g. a settled bed from `final.csv`) may touch, up to the same limit the
/// run enforces (half the smaller radius). The first offending pair is
/// reported (the lowest i, then j), found without listing every touching
/// pair (a file of many copies of one row would hold ~N²/2).
pub(super) fn check_overlaps(s: &Scene, grid: &Grid) -> Result<(), SceneError> {
    let pos: Vec<[f64; 4]> = s
        .particles
        .iter()
        .map(|p| [p.position[0], p.position[1], p.position[2], p.radius])
        .collect();
    let generated = |p: &ParticleInit| s.sources.get(p.source).is_some_and(|src| src.generated);
    let too_much = |i: usize, j: usize| {
        let (a, b) = (&s.particles[i], &s.particles[j]);
        let dist = DVec3::from(grid.min_image(a.position, b.position)).length();
        let overlap = a.radius + b.radius - dist;
        let limit = if generated(a) || generated(b) {
            1e-12 * (a.radius + b.radius)
        } else {
            0.5 * a.radius.min(b.radius)
        };
        (overlap > limit).then_some(overlap)
    };
    if let Some((i, j)) = first_contact_where(&pos, grid, |i, j, _| too_much(i, j).is_some()) {
        let (a, b) = (&s.particles[i], &s.particles[j]);
        let overlap = too_much(i, j).expect("the pair found");
        return Err(s.error(
            &format!("particles[{}]", b.source),
            format!(
                "particles {i} ({}) and {j} ({}) overlap by {overlap:e} m (radii {} and {})",
                s.sources
                    .get(a.source)
                    .map(|x| x.label.as_str())
                    .unwrap_or("?"),
                s.sources
                    .get(b.source)
                    .map(|x| x.label.as_str())
                    .unwrap_or("?"),
                a.radius,
                b.radius
            ),
        ));
    }
    Ok(())
}
