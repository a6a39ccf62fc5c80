//! Particle–particle overlaps, found through the run's grid.

use crate::grid::pairs::first_contact_where;
use crate::grid::Grid;
use crate::scene::error::SceneError;
use crate::scene::types::{ParticleInit, Scene};

/// Generated particles may not overlap at all; particles read from files
/// (e.g. a settled bed from `final.csv`) may touch, up to the same limit the
/// run enforces (half the smaller radius). The first offending pair is
/// reported (the lowest i, then j), found without listing every touching
/// pair (a file of many copies of one row would hold ~N²/2).
pub(super) fn check_overlaps(s: &Scene, grid: &Grid) -> Result<(), SceneError> {
    // a clump's members are spheres here, never against each other
    let (pos, owner) = s.member_spheres();
    let generated = |p: &ParticleInit| s.sources.get(p.source).is_some_and(|src| src.generated);
    let limit = |i: usize, j: usize| {
        let (a, b) = (&s.particles[owner[i]], &s.particles[owner[j]]);
        let (ra, rb) = (pos[i][3], pos[j][3]);
        if generated(a) || generated(b) {
            1e-12 * (ra + rb)
        } else {
            0.5 * ra.min(rb)
        }
    };
    let overlap = |i: usize, j: usize, dist: f64| pos[i][3] + pos[j][3] - dist;
    let found = first_contact_where(&pos, grid, |i, j, d| {
        owner[i] != owner[j] && overlap(i, j, d) > limit(i, j)
    });
    if let Some((mi, mj, dist)) = found {
        let overlap = overlap(mi, mj, dist);
        let (i, j) = (owner[mi], owner[mj]);
        let (a, b) = (&s.particles[i], &s.particles[j]);
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
                pos[mi][3],
                pos[mj][3]
            ),
        ));
    }
    Ok(())
}
