//! `talus bench`: throughput of the step on dense beds, per backend and size.
//!
//! Beds are built directly (no slow settling): spheres on an FCC lattice in a
//! box with a floor and four side walls, Hertz–Mindlin with history, friction
//! 0.5, gravity, then warmed up so contacts and history are live before the
//! timed steps.
//! - `mono`: radii uniform in [0.8, 1] r at nearest-neighbour distance 1.9 r,
//!   so the larger pairs start in contact (solid fraction ≈ 0.64).
//! - `poly`: radius ratio 1:4 — FCC spheres of radius r (−5 %) at 1.95 r and
//!   one sphere of r/4 (±5 %) in every octahedral hole: twice the particles
//!   per grid cell, which is what a wide size ratio costs a uniform grid.
//!
//! Timings are medians over repeats of the timed block; nothing here asserts
//! a speed.

use crate::backend::Backend;
use crate::rng::Rng;
use crate::scene::{Material, Scene, SceneBuilder};
use std::time::Instant;

/// The two bed kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bed {
    Mono,
    Poly,
}

impl Bed {
    pub fn name(self) -> &'static str {
        match self {
            Bed::Mono => "mono",
            Bed::Poly => "poly 1:4",
        }
    }
}

/// Largest radius of the beds (m).
pub const R: f64 = 0.001;

/// Walls of the bench bed: the floor and four sides.
pub const BED_WALLS: usize = 5;

/// Builds a bed of about `n` particles (exactly `n` for mono).
pub fn bed(kind: Bed, n: usize, seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let nn = match kind {
        Bed::Mono => 1.9 * R,
        Bed::Poly => 1.95 * R,
    };
    let a = nn * std::f64::consts::SQRT_2; // cubic FCC cell
    let per_cell = match kind {
        Bed::Mono => 4,
        Bed::Poly => 8,
    };
    let cells = n.div_ceil(per_cell);
    let nx = ((cells as f64).cbrt().ceil() as usize).max(2);
    let nz = cells.div_ceil(nx * nx).max(1);
    let (lx, lz) = (nx as f64 * a + R, nz as f64 * a + R);
    let mut b = SceneBuilder::new(&format!("bed-{}-{n}", kind.name()))
        .domain([0.0; 3], [lx, lx, 1.5 * lz + 4.0 * R])
        .dt_auto(0.2)
        .steps(1)
        .material(Material {
            friction: 0.5,
            restitution: 0.5,
            ..Material::new("bead", 2500.0, 5e6)
        })
        .wall([0.0; 3], [0.0, 0.0, 1.0], "bead")
        .wall([0.0; 3], [1.0, 0.0, 0.0], "bead")
        .wall([lx, 0.0, 0.0], [-1.0, 0.0, 0.0], "bead")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "bead")
        .wall([0.0, lx, 0.0], [0.0, -1.0, 0.0], "bead");
    let fcc = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    // octahedral holes of the FCC cell: cube centre and edge midpoints
    let octa = [
        [0.5, 0.5, 0.5],
        [0.5, 0.0, 0.0],
        [0.0, 0.5, 0.0],
        [0.0, 0.0, 0.5],
    ];
    let mut count = 0;
    'fill: for iz in 0..nz {
        for iy in 0..nx {
            for ix in 0..nx {
                let base = [ix as f64, iy as f64, iz as f64];
                let sites: Vec<([f64; 3], f64)> = match kind {
                    Bed::Mono => fcc.iter().map(|o| (*o, rng.range(0.8, 1.0) * R)).collect(),
                    Bed::Poly => {
                        let mut v: Vec<([f64; 3], f64)> =
                            fcc.iter().map(|o| (*o, rng.range(0.95, 1.0) * R)).collect();
                        v.extend(octa.iter().map(|o| (*o, rng.range(0.2375, 0.25) * R)));
                        v
                    }
                };
                for (o, r) in sites {
                    if count == n {
                        break 'fill;
                    }
                    let c = [0, 1, 2].map(|k| (base[k] + o[k]) * a + R);
                    b = b.particle(c, [0.0; 3], r, "bead");
                    count += 1;
                }
            }
        }
    }
    b.build_unchecked()
}

/// One row of the table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchRow {
    pub backend: String,
    pub adapter: String,
    pub bed: String,
    pub particles: usize,
    pub steps: u64,
    /// Median wall time of one timed block of `steps` steps.
    pub wall_seconds: f64,
    /// Particle-steps per second (the "Cundall number").
    pub particle_steps_per_second: f64,
    pub bytes_per_particle: u64,
    pub contacts_per_particle: f64,
    /// Neighbour-list candidates per particle at the end of the run.
    pub candidates_per_particle: f64,
    /// Timed steps per neighbour-list build (∞ shows as "-": no rebuild).
    pub steps_per_build: f64,
    pub solid_fraction: f64,
    /// (stage, share of the step time), where measured.
    pub stages: Vec<(String, f64)>,
    pub skipped: Option<String>,
}

/// The bulk solid fraction of the lower half of the bed, away from the
/// side walls.
pub fn solid_fraction(p: &crate::state::Particles<f64>) -> f64 {
    let zmax = p.pos_rad.iter().map(|x| x[2]).fold(0.0, f64::max);
    let xmax = p.pos_rad.iter().map(|x| x[0]).fold(0.0, f64::max);
    let (lo, hi) = (3.0 * R, xmax - 3.0 * R);
    let (zlo, zhi) = (3.0 * R, 0.5 * zmax);
    let mut solid = 0.0;
    for x in &p.pos_rad {
        if (0..2).all(|k| x[k] >= lo && x[k] < hi) && x[2] >= zlo && x[2] < zhi {
            solid += 4.0 / 3.0 * std::f64::consts::PI * x[3].powi(3);
        }
    }
    let vol = (hi - lo).max(0.0).powi(2) * (zhi - zlo).max(0.0);
    if vol > 0.0 {
        solid / vol
    } else {
        0.0
    }
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// What [`measure`] found.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Median seconds of one block.
    pub median: f64,
    pub times: Vec<f64>,
    /// Neighbour-list entries at the end (all particles).
    pub candidates: f64,
    /// Contacts at the end ([`crate::backend::ListStats::contacts`]).
    pub contacts: f64,
    /// Timed steps per list build (∞ when none was built).
    pub steps_per_build: f64,
}

/// Warms up, then times `repeats` blocks of `steps` steps; the median block
/// gives the rate.
pub fn measure(
    b: &mut dyn Backend,
    warmup: u64,
    steps: u64,
    repeats: usize,
) -> Result<Timing, String> {
    b.advance(warmup).map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    let builds = b.list_stats().builds;
    for _ in 0..repeats {
        let t = Instant::now();
        b.advance(steps).map_err(|e| e.to_string())?;
        times.push(t.elapsed().as_secs_f64());
    }
    let med = median(&mut times.clone());
    let stats = b.list_stats();
    let timed = steps * repeats as u64;
    Ok(Timing {
        median: med,
        times,
        candidates: stats.entries as f64,
        contacts: stats.contacts as f64,
        steps_per_build: timed as f64 / (stats.builds - builds) as f64,
    })
}
