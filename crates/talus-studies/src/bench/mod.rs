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
//! - `settled`: ≥ 4 contacts per particle, as in the bulk of a bed at
//!   rest: a jammed random packing, periodic ([`settled_bed`]).
//! - `chute`: a periodic inclined chute started as a dense shear flow
//!   ([`chute_bed`]): the flowing bed possible without mesh walls.
//! - `discharge`: the hopper bed draining through its orifice into an
//!   outlet while beads are poured back at the top ([`discharge_bed`]).
//!
//! Timings are medians over repeats of the timed block; nothing here asserts
//! a speed.

pub mod yardstick;

use std::fmt::Write as _;
use std::time::Instant;
use talus::backend::Backend;
use talus::rng::Rng;
use talus::scene::{Material, Scene, SceneBuilder};

/// The bed kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bed {
    Mono,
    Poly,
    /// A jammed random packing, periodic, ≥ 4 contacts per particle
    /// ([`settled_bed`]).
    Settled,
    /// A periodic inclined chute, sheared as it flows ([`chute_bed`]).
    Chute,
    /// The hopper draining through an outlet, refilled at the top: the
    /// flowing bed users run ([`discharge_bed`]).
    Discharge,
    /// The `settled` packing in a conical hopper, analytic cone walls
    /// ([`hopper_bed`]).
    Hopper,
    /// The same bed in the same hopper as a ~10⁴-triangle mesh.
    HopperMesh,
    /// The `settled` packing with large spheres among it, their diameter
    /// this many times the small ones' mean ([`wide_bed`]).
    SettledWide(u32),
    /// The `chute` flow with large spheres among it ([`wide_bed`]).
    ChuteWide(u32),
    /// The `mono` lattice with a 4-sphere tetrahedral clump at each site
    /// instead of a sphere, randomly turned ([`clump_bed`]); its size is
    /// counted in member spheres.
    Clumps,
}

impl Bed {
    pub fn name(self) -> String {
        match self {
            Bed::Mono => "mono".into(),
            Bed::Poly => "poly 1:4".into(),
            Bed::Settled => "settled".into(),
            Bed::Chute => "chute".into(),
            Bed::Discharge => "discharge".into(),
            Bed::Hopper => "hopper".into(),
            Bed::HopperMesh => "hopper mesh".into(),
            Bed::SettledWide(k) => format!("settled 1:{k}"),
            Bed::ChuteWide(k) => format!("chute 1:{k}"),
            Bed::Clumps => "clumps 4-sphere".into(),
        }
    }
}

/// Largest radius of the beds (m).
pub const R: f64 = 0.001;

/// Walls of the bench bed: the floor and four sides.
pub const BED_WALLS: usize = 5;

/// Builds a bed of about `n` particles (exactly `n` for mono and chute); an error for a bed that cannot be built yet.
pub fn bed(kind: Bed, n: usize, seed: u64) -> Result<Scene, String> {
    match kind {
        Bed::Mono | Bed::Poly => Ok(lattice_bed(kind, n, seed)),
        Bed::Settled => Ok(settled_bed(&cached_cell()?, n)),
        Bed::Chute => Ok(chute_bed(&cached_cell()?, n)),
        Bed::Discharge => discharge_bed(n, seed),
        Bed::Hopper => Ok(hopper_bed(&cached_cell()?, n, false)),
        Bed::HopperMesh => Ok(hopper_bed(&cached_cell()?, n, true)),
        Bed::SettledWide(k) => wide_bed(&cached_cell()?, n, k, false),
        Bed::ChuteWide(k) => wide_bed(&cached_cell()?, n, k, true),
        Bed::Clumps => clump_bed(n, seed),
    }
}

/// `n` member spheres (rounded down to fours) as tetrahedral clumps on the
/// `mono` bed's lattice: members of radius R/2 at the vertices of a
/// tetrahedron of circumradius 0.45 R (they overlap; the clump reaches
/// 0.95 R from its centre, within the site's share), each clump turned at
/// random from `seed`, settling under gravity in the same box.
pub fn clump_bed(n: usize, seed: u64) -> Result<Scene, String> {
    use talus::shapes::{mass, table};
    let sites = (n / 4).max(1);
    let mut s = lattice_bed(Bed::Mono, sites, seed);
    let c = 0.45 * R / 3f64.sqrt();
    let spheres: Vec<[f64; 4]> = [
        [1.0, 1.0, 1.0],
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0],
    ]
    .iter()
    .map(|v| [c * v[0], c * v[1], c * v[2], 0.5 * R])
    .collect();
    let props =
        mass::union_of_spheres(&spheres, mass::Accuracy::default()).map_err(|e| e.to_string())?;
    s.shapes.push(talus::scene::types::ClumpShape {
        name: "tetra".into(),
        source: talus::scene::types::ClumpSource::Spheres(spheres.clone()),
        body: table::Shape::new("tetra", &spheres, &props),
    });
    let mut rng = Rng::new(seed ^ 0x7e7a);
    for p in &mut s.particles {
        p.shape = Some(0);
        p.radius = 0.5 * R;
        p.orientation = talus::flow::plan::uniform_rotation([rng.f64(), rng.f64(), rng.f64()]);
    }
    s.name = format!("bed-clumps-{}", 4 * sites);
    Ok(s)
}

/// The lattice beds, `mono` and `poly`.
fn lattice_bed(kind: Bed, n: usize, seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let nn = match kind {
        Bed::Poly => 1.95 * R,
        _ => 1.9 * R,
    };
    let a = nn * std::f64::consts::SQRT_2; // cubic FCC cell
    let per_cell = match kind {
        Bed::Poly => 8,
        _ => 4,
    };
    let cells = n.div_ceil(per_cell);
    let nx = ((cells as f64).cbrt().ceil() as usize).max(2);
    let nz = cells.div_ceil(nx * nx).max(1);
    let (lx, lz) = (nx as f64 * a + R, nz as f64 * a + R);
    let mut b = SceneBuilder::new(&format!("bed-{}-{n}", kind.name()))
        .domain([0.0; 3], [lx, lx, 1.5 * lz + 4.0 * R])
        .dt_auto(0.2)
        .steps(1)
        .material(bead())
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
                    Bed::Poly => {
                        let mut v: Vec<([f64; 3], f64)> =
                            fcc.iter().map(|o| (*o, rng.range(0.95, 1.0) * R)).collect();
                        v.extend(octa.iter().map(|o| (*o, rng.range(0.2375, 0.25) * R)));
                        v
                    }
                    _ => fcc.iter().map(|o| (*o, rng.range(0.8, 1.0) * R)).collect(),
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

/// The material of every bench bed.
fn bead() -> Material {
    Material {
        friction: 0.5,
        restitution: 0.5,
        ..Material::new("bead", 2500.0, 5e6)
    }
}

/// Spheres of `cell` tiled over `[0, lx) × [0, ly)` and upwards, those
/// `keep` accepts, the `n` lowest of them, lowered onto z = 0 (metres;
/// the cell is scaled by [`R`]). Panics if the tiles hold fewer than `n`, which the callers'
/// height estimate rules out.
fn tile(
    cell: &JammedCell,
    n: usize,
    lx: f64,
    ly: f64,
    keep: impl Fn([f64; 4]) -> bool,
) -> Vec<[f64; 4]> {
    let l = cell.side * R;
    let per_volume = cell.spheres.len() as f64 / l.powi(3);
    // candidates up to a height that holds n with 10 % to spare, more if
    // the cut at the walls took more than that
    let mut h = 1.1 * n as f64 / (per_volume * lx * ly) + 4.0 * R;
    loop {
        let mut out = Vec::with_capacity(n + n / 8);
        let (tx, ty, tz) = (
            (lx / l).ceil() as usize,
            (ly / l).ceil() as usize,
            (h / l).ceil() as usize,
        );
        for k in 0..tz {
            for j in 0..ty {
                for i in 0..tx {
                    let base = [i as f64 * l, j as f64 * l, k as f64 * l];
                    for s in &cell.spheres {
                        let p = [
                            base[0] + s[0] * R,
                            base[1] + s[1] * R,
                            base[2] + s[2] * R,
                            s[3] * R,
                        ];
                        if p[0] < lx && p[1] < ly && p[2] < h && keep(p) {
                            out.push(p);
                        }
                    }
                }
            }
        }
        if out.len() >= n {
            if n > 0 {
                out.select_nth_unstable_by(n - 1, |a, b| a[2].total_cmp(&b[2]));
            }
            out.truncate(n);
            // down onto the floor: a gap below would let the bed fall
            // freely, and a falling packing springs apart
            let gap = out
                .iter()
                .map(|p| p[2] - p[3])
                .fold(f64::INFINITY, f64::min);
            if gap.is_finite() && gap > 0.0 {
                out.iter_mut().for_each(|p| p[2] -= gap);
            }
            return out;
        }
        h *= 1.25;
    }
}

/// `settled`: the bulk of a bed at rest, with a settled bed's coordination
/// (≥ 4 contacts per particle; ≈ 1.3 for `mono`), built in O(n) without
/// settling: whole tiles of the [`JammedCell`] (frictionless, just jammed,
/// radii as `mono`'s), about as many as make `n`, in a box periodic in all
/// three directions, so there is no seam, no wall and no gravity. The
/// packing's own small overlaps (≈ [`PACK_OVERLAP`], about one sphere's
/// weight) keep it jammed; friction then holds it. A tiled packing cut
/// against a floor instead rests on a few spheres and falls (a bed built
/// that way lost 2/3 of its contacts in 200 steps). The tiles repeat
/// every ~11 diameters; a poured frictional bed is looser (solid fraction
/// 0.60–0.62, 4–5 contacts) than this one (≈ 0.645, ≈ 6).
pub fn settled_bed(cell: &JammedCell, n: usize) -> Scene {
    settled_bed_tiles(cell, n, 1)
}

/// [`settled_bed`] at least `min_tiles` tiles along each axis.
fn settled_bed_tiles(cell: &JammedCell, n: usize, min_tiles: usize) -> Scene {
    let m = cell.spheres.len();
    let k = (n as f64 / m as f64).max(1.0);
    let t = k.cbrt().round().max(min_tiles as f64) as usize;
    // tiles a × b × c near a cube with a product nearest n / m
    let mut best = (t, t, t);
    for a in t.saturating_sub(1).max(min_tiles)..=t + 1 {
        for b in t.saturating_sub(1).max(min_tiles)..=a {
            let c = (k / (a * b) as f64).round().max(min_tiles as f64) as usize;
            let err = |(a, b, c): (usize, usize, usize)| ((a * b * c) as f64 - k).abs();
            if err((a, b, c)) < err(best) {
                best = (a, b, c);
            }
        }
    }
    let l = cell.side * R;
    let dims = [best.0, best.1, best.2];
    let mut b = SceneBuilder::new(&format!("bed-settled-{n}"))
        .domain([0.0; 3], dims.map(|d| d as f64 * l))
        .periodic([true; 3])
        .gravity([0.0; 3])
        .dt_auto(0.2)
        .steps(1)
        .material(bead());
    for kz in 0..dims[2] {
        for ky in 0..dims[1] {
            for kx in 0..dims[0] {
                let base = [kx as f64 * l, ky as f64 * l, kz as f64 * l];
                for s in &cell.spheres {
                    let c = [0, 1, 2].map(|i| base[i] + s[i] * R);
                    b = b.particle(c, [0.0; 3], s[3] * R, "bead");
                }
            }
        }
    }
    b.build_unchecked()
}

/// Slope of the `chute` bed (degrees): inside the window where chute flows
/// of frictional spheres (μ = 0.5) neither stop nor run away (about
/// 20–26° for Silbert et al. 2001's rough base; this base is a flat
/// frictional plane).
pub const CHUTE_ANGLE_DEG: f64 = 24.0;
/// Downslope speed of the `chute` bed's free surface at the start (m/s).
pub const CHUTE_SURFACE_SPEED: f64 = 0.5;
/// Depth the `chute` bed aims at: about 22 mean diameters; larger beds
/// are wider, not deeper.
pub const CHUTE_DEPTH: f64 = 40.0 * R;

/// `chute`: a bed that flows, with what talus has today: the
/// [`JammedCell`] tiled over a square periodic in x and y (whole tiles, so
/// no seam), on a floor plane, gravity tilted by [`CHUTE_ANGLE_DEG`] down
/// +x, every sphere started with the Bagnold profile of a dense chute flow
/// u(z) = U (1 − (1 − z/h)^{3/2}) with U = [`CHUTE_SURFACE_SPEED`]. Over
/// the bench's steps (~0.01 s) it is a dense sheared flow: contacts open
/// and close, the lists are rebuilt every few steps. Whether it would
/// reach a steady flow over seconds is not what it is for and not claimed.
pub fn chute_bed(cell: &JammedCell, n: usize) -> Scene {
    chute_bed_deep(cell, n, CHUTE_DEPTH, 1)
}

/// [`chute_bed`] `depth` deep (about), at least `min_tiles` tiles wide.
fn chute_bed_deep(cell: &JammedCell, n: usize, depth: f64, min_tiles: usize) -> Scene {
    let l = cell.side * R;
    let m = cell.spheres.len() as f64;
    let tiles = ((n as f64 * l / (m * depth)).sqrt().round() as usize).max(min_tiles);
    let lx = tiles as f64 * l;
    let p = tile(cell, n, lx, lx, |p| p[2] >= p[3]);
    let h = p.iter().map(|p| p[2] + p[3]).fold(0.0, f64::max);
    let (s, c) = CHUTE_ANGLE_DEG.to_radians().sin_cos();
    let mut b = SceneBuilder::new(&format!("bed-chute-{n}"))
        .domain([0.0; 3], [lx, lx, 3.0 * h + 4.0 * R])
        .periodic([true, true, false])
        .gravity([9.81 * s, 0.0, -9.81 * c])
        .dt_auto(0.2)
        .steps(1)
        .material(bead())
        .wall([0.0; 3], [0.0, 0.0, 1.0], "bead");
    for q in p {
        let u = CHUTE_SURFACE_SPEED * (1.0 - (1.0 - q[2] / h).max(0.0).powf(1.5));
        b = b.particle([q[0], q[1], q[2]], [u, 0.0, 0.0], q[3], "bead");
    }
    b.build_unchecked()
}

/// Share of the solid volume the large spheres of a wide bed take (about:
/// they replace the small ones they would overlap).
pub const WIDE_LARGE_SHARE: f64 = 0.3;

/// `settled 1:k` / `chute 1:k`: the `settled` packing (or the `chute` flow)
/// with large spheres among the small ones, their diameter `ratio` times
/// the small ones' mean, about [`WIDE_LARGE_SHARE`] of the solid volume:
/// placed at random, at least 2.05 radii apart, every small sphere they
/// would overlap by more than [`PACK_OVERLAP`] removed, so the large ones
/// sit in the packing touching their neighbours as the packing's own
/// contacts do. The chute is deep enough for 2.5 large diameters. The bed
/// is about `n` particles before the carving; its periodic sides must hold
/// 2 neighbour cutoffs of the large spheres, so a large ratio needs many
/// (an error names how many). What the rows price is the broad phase of a
/// wide size distribution: the small spheres' lists and the large ones'
/// long ones.
pub fn wide_bed(cell: &JammedCell, n: usize, ratio: u32, flowing: bool) -> Result<Scene, String> {
    let mean_r =
        cell.spheres.iter().map(|s| s[3]).sum::<f64>() / cell.spheres.len().max(1) as f64 * R;
    let big = ratio as f64 * mean_r;
    let l = cell.side * R;
    let skin = talus::scene::AUTO_SKIN_DIAMETERS * 2.0 * 0.8 * R;
    let need = 2.0 * (2.0 * big + skin);
    let min_tiles = (need / l).ceil() as usize;
    let per_tile = cell.spheres.len();
    let mut s = if flowing {
        let depth = CHUTE_DEPTH.max(5.0 * big);
        let fewest = (min_tiles * min_tiles) as f64 * per_tile as f64 * depth / l;
        if (n as f64) < 0.7 * fewest {
            return Err(format!(
                "chute 1:{ratio} needs about {fewest:.0} particles or more (periodic sides of 2 cutoffs)"
            ));
        }
        chute_bed_deep(cell, n, depth, min_tiles)
    } else {
        let fewest = min_tiles.pow(3) * per_tile;
        if n < fewest * 7 / 10 {
            return Err(format!(
                "settled 1:{ratio} needs about {fewest} particles or more (periodic sides of 2 cutoffs)"
            ));
        }
        settled_bed_tiles(cell, n, min_tiles)
    };
    s.name = format!("bed-{}-{n}", if flowing { "chute" } else { "settled" });
    let len: [f64; 3] = std::array::from_fn(|k| s.domain.max[k] - s.domain.min[k]);
    if (0..2).any(|k| len[k] < need) || (!flowing && len[2] < need) {
        return Err(format!(
            "1:{ratio}: the bed's periodic sides ({:.3} m) hold fewer than 2 cutoffs ({need:.3} m)",
            len[0]
        ));
    }
    // where the bed is: the chute's top, the whole settled box
    let top = s
        .particles
        .iter()
        .map(|p| p.position[2] + p.radius)
        .fold(0.0, f64::max);
    let zmax = if flowing { top } else { len[2] };
    let solid: f64 = s
        .particles
        .iter()
        .map(|p| 4.0 / 3.0 * std::f64::consts::PI * p.radius.powi(3))
        .sum();
    let v_big = 4.0 / 3.0 * std::f64::consts::PI * big.powi(3);
    let want = ((WIDE_LARGE_SHARE * solid / v_big).round() as usize).max(1);
    let image = |a: [f64; 3], b: [f64; 3]| -> f64 {
        let mut d2 = 0.0;
        for k in 0..3 {
            let mut d = b[k] - a[k];
            if s.domain.periodic[k] {
                d -= len[k] * (d / len[k]).round();
            }
            d2 += d * d;
        }
        d2.sqrt()
    };
    let mut rng = Rng::new(7 + ratio as u64);
    let mut centres: Vec<[f64; 3]> = Vec::new();
    let (zlo, zhi) = if flowing {
        (big, zmax - big)
    } else {
        (0.0, zmax)
    };
    for _ in 0..100 * want {
        if centres.len() == want || zhi <= zlo {
            break;
        }
        let c = [
            rng.range(0.0, len[0]),
            rng.range(0.0, len[1]),
            rng.range(zlo, zhi),
        ];
        if centres.iter().all(|q| image(c, *q) > 2.05 * big) {
            centres.push(c);
        }
    }
    if centres.is_empty() {
        return Err(format!("1:{ratio}: no room for a large sphere"));
    }
    let overlap = PACK_OVERLAP * R;
    s.particles.retain(|p| {
        centres
            .iter()
            .all(|c| image(p.position, *c) >= big + p.radius - overlap)
    });
    let template = s.particles[0];
    for c in centres {
        let u = if flowing {
            CHUTE_SURFACE_SPEED * (1.0 - (1.0 - c[2] / top).max(0.0).powf(1.5))
        } else {
            0.0
        };
        s.particles.push(talus::scene::ParticleInit {
            position: c,
            velocity: [u, 0.0, 0.0],
            angular_velocity: [0.0; 3],
            radius: big,
            ..template
        });
    }
    Ok(s)
}

/// Half-angle of the `hopper` beds' cone from the vertical (degrees).
pub const HOPPER_HALF_ANGLE_DEG: f64 = 30.0;
/// Triangles around and rings up the `hopper mesh` bed's cone: 2 × 100 ×
/// 50 = 10⁴ triangles.
pub const HOPPER_MESH: (usize, usize) = (100, 50);

/// `hopper` / `hopper mesh`: the [`JammedCell`] cut to a conical hopper
/// (half-angle [`HOPPER_HALF_ANGLE_DEG`], outlet radius 6 R closed by a
/// floor plane), the `n` lowest spheres, those at the cone pressed 1e-3 r
/// into it (as the packing's own contacts are), no gravity. Not a bed at
/// rest: cut out of its periodic cell the packing loosens (0.05–0.16
/// contacts per particle over the bench's steps; with gravity it falls
/// apart for thousands of steps, 0.1–2), so what the rows price is the
/// list traversal and the wall entries along the cone, where a mesh costs
/// more than the cone: that is the comparison they are for. A settled
/// hopper bed needs pouring (issue 15). With `mesh` the cone is
/// [`HOPPER_MESH`] triangles with their vertices on the cone (every quad of
/// the grid split along a diagonal), the same bed: the two rows price a
/// mesh wall against the analytic one it tessellates.
pub fn hopper_bed(cell: &JammedCell, n: usize, mesh: bool) -> Scene {
    use talus::scene::{Shape, Side, Wall};
    let tan = HOPPER_HALF_ANGLE_DEG.to_radians().tan();
    let r_out = 6.0 * R;
    // the height that holds n at the packing's solid fraction, with room
    let v = 4.0 / 3.0 * std::f64::consts::PI * (0.9 * R).powi(3);
    let vol = 1.6 * n as f64 * v / cell.solid_fraction.max(0.5);
    let z0 = r_out / tan;
    let h =
        ((3.0 * vol / (std::f64::consts::PI * tan * tan) + z0.powi(3)).cbrt() - z0).max(10.0 * R);
    let r_top = r_out + h * tan;
    let lx = 2.0 * r_top + 2.0 * R;
    let c = 0.5 * lx;
    // inside the cone by the sphere's radius, judged 2 R lower (the bed is
    // lowered onto the floor by about that), then again where it landed
    let inside = |p: [f64; 4], drop: f64| {
        let rho = ((p[0] - c).powi(2) + (p[1] - c).powi(2)).sqrt();
        let z = (p[2] - drop).max(0.0);
        let wall = r_out + z * tan;
        (wall - rho) * HOPPER_HALF_ANGLE_DEG.to_radians().cos() > p[3] * (1.0 - 1e-3)
    };
    let mut p = tile(cell, n + n / 10 + 10, lx, lx, |p| {
        p[2] >= p[3] && inside(p, 2.0 * R)
    });
    p.retain(|&q| inside(q, 0.0));
    p.sort_by(|a, b| a[2].total_cmp(&b[2]));
    p.truncate(n);
    let top = p.iter().map(|p| p[2] + p[3]).fold(0.0, f64::max);
    let mut b = SceneBuilder::new(&format!(
        "bed-hopper{}-{n}",
        if mesh { "-mesh" } else { "" }
    ))
    .domain([0.0, 0.0, -2.0 * R], [lx, lx, h.max(top) + 4.0 * R])
    .gravity([0.0; 3])
    .dt_auto(0.2)
    .steps(1)
    .material(bead())
    .wall([c, c, 0.0], [0.0, 0.0, 1.0], "bead");
    for q in &p {
        b = b.particle([q[0], q[1], q[2]], [0.0; 3], q[3], "bead");
    }
    let mut s = b.build_unchecked();
    let shape = if mesh {
        let (around, rings) = HOPPER_MESH;
        let cut = talus::io::walls::Cut {
            around,
            rings,
            alternate: true,
            equal_area: false,
        };
        let t = talus::io::walls::frustum_triangles(
            glam::DVec3::new(c, c, 0.0),
            glam::DVec3::Z,
            [0.0, h],
            [r_out, r_top],
            cut,
            Side::Outside,
        );
        Shape::Mesh {
            file: "hopper (bench)".into(),
            triangles: t,
            one_sided: false,
            degenerate: 0,
        }
    } else {
        Shape::Cone {
            center: [c, c, 0.0],
            axis: [0.0, 0.0, 1.0],
            radius: [r_out, r_top],
            length: h,
            side: Side::Inside,
        }
    };
    s.walls.push(Wall {
        name: Some("hopper".into()),
        shape,
        material: 0,
        motion: None,
        servo: None,
    });
    s
}

/// `discharge`: the flowing bed users run. The `hopper` bed (analytic
/// cone) under gravity with its floor taken away: the packing drains
/// through the 12 R orifice into an outlet below it, and beads are poured
/// back in at the top at the rate Beverloo gives for that orifice
/// (C = 0.58, k = 1.5, bulk density 0.6 ρ), so the count stays near `n`
/// and the timed steps see insertion, removal and a steady discharge.
pub fn discharge_bed(n: usize, seed: u64) -> Result<Scene, String> {
    use talus::scene::{Insert, InsertRate, Outlet, RadiusDist, Region, Shape};
    let cell = cached_cell()?;
    let mut s = hopper_bed(&cell, n, false);
    s.name = format!("bed-discharge-{n}");
    s.simulation.gravity = [0.0, 0.0, -9.81];
    s.simulation.seed = seed;
    // no floor: the orifice opens into the outlet
    s.walls.retain(|w| !matches!(w.shape, Shape::Plane { .. }));
    let (lo, hi) = (s.domain.min, s.domain.max);
    s.domain.min[2] = -12.0 * R;
    s.outlets.push(Outlet {
        name: Some("orifice".into()),
        region: Region::Box {
            min: [lo[0], lo[1], -12.0 * R],
            max: [hi[0], hi[1], -4.0 * R],
        },
    });
    let rho = s.materials[0].density;
    let (d, orifice) = (1.8 * R, 12.0 * R);
    let w = 0.58 * 0.6 * rho * 9.81f64.sqrt() * (orifice - 1.5 * d).powf(2.5);
    let m = rho * 4.0 / 3.0 * std::f64::consts::PI * (0.9 * R).powi(3);
    let c = 0.5 * (lo[0] + hi[0]);
    let top = s
        .particles
        .iter()
        .map(|p| p.position[2])
        .fold(0.0, f64::max);
    s.domain.max[2] = s.domain.max[2].max(top + 14.0 * R);
    s.inserts.push(Insert {
        region: Region::Cylinder {
            center: [c, c, top + 3.0 * R],
            axis: [0.0, 0.0, 1.0],
            radius: 0.35 * (hi[0] - lo[0]),
            length: 8.0 * R,
        },
        rate: InsertRate::Count(w / m),
        radius: RadiusDist::Uniform {
            min: 0.8 * R,
            max: R,
        },
        material: 0,
        velocity: [0.0, 0.0, -0.2],
        start: 0.0,
        stop: None,
        count: None,
        interval: None,
        shape: None,
        orientation: Default::default(),
    });
    Ok(s)
}

/// Version of the cached [`JammedCell`]: bump it when the cell's recipe
/// changes.
pub const PACK_VERSION: u32 = 1;

/// Where the packing cell is cached: `$TALUS_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/talus`, else `~/.cache/talus`, else the temp dir.
pub fn cache_dir() -> std::path::PathBuf {
    use std::path::PathBuf;
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = var("TALUS_CACHE_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = var("XDG_CACHE_HOME") {
        PathBuf::from(d).join("talus")
    } else if let Some(d) = var("HOME") {
        PathBuf::from(d).join(".cache").join("talus")
    } else {
        std::env::temp_dir().join("talus")
    }
}

/// The [`JammedCell`] of [`PACK_CELL`] spheres (seed 1), read from
/// [`cache_dir`] or built (~20 s on one core, once) and written there:
/// `side,coordination,solid_fraction`, then one `x,y,z,r` a line.
pub fn cached_cell() -> Result<JammedCell, String> {
    let path = cache_dir().join(format!("jammed-cell-v{PACK_VERSION}-{PACK_CELL}-seed1.csv"));
    if let Some(c) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| parse_cell(&t))
    {
        return Ok(c);
    }
    eprintln!(
        "building the jammed packing the settled and chute beds are tiled from (once, ~20 s) -> {}",
        path.display()
    );
    let c = jammed_cell(PACK_CELL, 1);
    let mut text = format!("{},{},{}\n", c.side, c.coordination, c.solid_fraction);
    for s in &c.spheres {
        let _ = writeln!(text, "{},{},{},{}", s[0], s[1], s[2], s[3]);
    }
    if let Err(e) = std::fs::create_dir_all(cache_dir()).and_then(|_| std::fs::write(&path, text)) {
        eprintln!("warning: not cached: {}: {e}", path.display());
    }
    Ok(c)
}

fn parse_cell(text: &str) -> Option<JammedCell> {
    let mut lines = text.lines();
    let head: Vec<f64> = lines
        .next()?
        .split(',')
        .map(|v| v.parse().ok())
        .collect::<Option<_>>()?;
    let spheres: Vec<[f64; 4]> = lines
        .map(|l| {
            let v: Vec<f64> = l
                .split(',')
                .map(|v| v.parse().ok())
                .collect::<Option<_>>()?;
            v.try_into().ok()
        })
        .collect::<Option<_>>()?;
    (head.len() == 3 && spheres.len() == PACK_CELL).then_some(JammedCell {
        side: head[0],
        coordination: head[1],
        solid_fraction: head[2],
        spheres,
    })
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
    /// Steps per second: what a small bed (10⁴ particles, where a step
    /// costs its dispatches more than its particles) is judged by.
    pub steps_per_second: f64,
    pub bytes_per_particle: u64,
    pub contacts_per_particle: f64,
    /// Neighbour-list candidates per particle at the end of the run.
    pub candidates_per_particle: f64,
    /// Timed steps per neighbour-list build (∞ shows as "-": no rebuild).
    pub steps_per_build: f64,
    /// Wall time of one list build (bin, sort, neighbours) per particle,
    /// ns, over every build of the run (warm-up included: a settled bed
    /// may build only once); where the stages are timed (the CPU).
    pub build_ns_per_particle: Option<f64>,
    pub solid_fraction: f64,
    /// (stage, share of the step time), where measured.
    pub stages: Vec<(String, f64)>,
    pub skipped: Option<String>,
}

/// The bulk solid fraction of the lower half of the bed, away from the
/// side walls.
/// (The sphere volume inside that box, exact: `analyze::fraction`.)
pub fn solid_fraction(p: &talus::state::Particles<f64>) -> f64 {
    let zmax = p.pos_rad.iter().map(|x| x[2]).fold(0.0, f64::max);
    let xmax = p.pos_rad.iter().map(|x| x[0]).fold(0.0, f64::max);
    let (lo, hi) = (3.0 * R, xmax - 3.0 * R);
    let (zlo, zhi) = (3.0 * R, 0.5 * zmax);
    if hi <= lo || zhi <= zlo {
        return 0.0;
    }
    let region = talus::scene::Region::Box {
        min: [lo, lo, zlo],
        max: [hi, hi, zhi],
    };
    crate::analyze::fraction::solid_fraction(&p.pos_rad, &region)
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
    /// Contacts at the end ([`talus::backend::ListStats::contacts`]).
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

/// A jammed, triply periodic random packing: what the `settled` and
/// `chute` beds are cut from.
///
/// Spheres with radii uniform in [0.8, 1] (the `mono` distribution, in
/// units of the largest radius) are dropped at random into a periodic cube
/// at solid fraction 0.66, where they overlap a lot, and the harmonic
/// overlap energy is minimised (FIRE). The radii are then shrunk step by
/// step, re-minimising each time, until the mean overlap of the contacts
/// is about [`PACK_OVERLAP`]: a frictionless packing just above jamming
/// (solid fraction ≈ 0.64–0.65, about 6 contacts per non-rattler). A
/// shrink that unjams it is undone and halved. Deterministic for a seed;
/// costs about a second for [`PACK_CELL`] spheres whatever the bed size,
/// since beds are tiles of it.
#[derive(Debug, Clone)]
pub struct JammedCell {
    /// Side of the periodic cube (units of the largest radius).
    pub side: f64,
    /// x, y, z in [0, side), radius (largest radius 1).
    pub spheres: Vec<[f64; 4]>,
    /// Mean contacts per sphere (each pair counted twice).
    pub coordination: f64,
    pub solid_fraction: f64,
}

/// Spheres in the periodic cell the dense beds are tiled from: the cell is
/// about 11 mean diameters wide.
pub const PACK_CELL: usize = 2000;

/// Target mean overlap of the packing's contacts (units of the largest
/// radius): about what the weight of one sphere makes with the bench
/// material (E = 5 MPa, 1 mm), so gravity loads the packing without it
/// springing apart or collapsing.
pub const PACK_OVERLAP: f64 = 1e-3;

struct Overlaps {
    /// Pairs with an overlap above the contact threshold.
    contacts: usize,
    /// Sum of those overlaps.
    sum: f64,
    /// Largest force component.
    fmax: f64,
}

/// Harmonic repulsion (stiffness 1) between overlapping spheres in the
/// periodic cube; forces into `f`. Cells of at least the largest diameter,
/// each pair once (its own cell and 13 of the 26 around, with the
/// periodic image's shift).
fn overlap_forces(x: &[[f64; 4]], side: f64, f: &mut [[f64; 3]], threshold: f64) -> Overlaps {
    let nc = ((side / 2.0).floor() as usize).max(3);
    let cell = side / nc as f64;
    let mut head = vec![usize::MAX; nc * nc * nc];
    let mut next = vec![usize::MAX; x.len()];
    let coord = |v: f64| ((v / cell) as usize).min(nc - 1);
    for (i, p) in x.iter().enumerate() {
        let k = coord(p[0]) + nc * (coord(p[1]) + nc * coord(p[2]));
        next[i] = head[k];
        head[k] = i;
    }
    f.iter_mut().for_each(|v| *v = [0.0; 3]);
    let mut o = Overlaps {
        contacts: 0,
        sum: 0.0,
        fmax: 0.0,
    };
    let mut pair = |i: usize, j: usize, shift: [f64; 3], f: &mut [[f64; 3]]| {
        let d = [0, 1, 2].map(|k| x[j][k] + shift[k] - x[i][k]);
        let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        let reach = x[i][3] + x[j][3];
        if d2 < reach * reach && d2 > 0.0 {
            let dist = d2.sqrt();
            let ov = reach - dist;
            for k in 0..3 {
                let fk = ov * d[k] / dist;
                f[i][k] -= fk;
                f[j][k] += fk;
            }
            if ov > threshold {
                o.contacts += 1;
                o.sum += ov;
            }
        }
    };
    // the 13 forward neighbour offsets
    let offsets: Vec<[isize; 3]> = (-1..=1)
        .flat_map(|z| (-1..=1).flat_map(move |y| (-1..=1).map(move |x| [x, y, z])))
        .filter(|o| (o[2], o[1], o[0]) > (0, 0, 0))
        .collect();
    for cz in 0..nc {
        for cy in 0..nc {
            for cx in 0..nc {
                let c = [cx, cy, cz];
                let mut i = head[cx + nc * (cy + nc * cz)];
                while i != usize::MAX {
                    let mut j = next[i];
                    while j != usize::MAX {
                        pair(i, j, [0.0; 3], f);
                        j = next[j];
                    }
                    for off in &offsets {
                        let mut q = [0; 3];
                        let mut shift = [0.0; 3];
                        for k in 0..3 {
                            let v = c[k] as isize + off[k];
                            q[k] = v.rem_euclid(nc as isize) as usize;
                            shift[k] = if v < 0 {
                                -side
                            } else if v >= nc as isize {
                                side
                            } else {
                                0.0
                            };
                        }
                        let mut j = head[q[0] + nc * (q[1] + nc * q[2])];
                        while j != usize::MAX {
                            pair(i, j, shift, f);
                            j = next[j];
                        }
                    }
                    i = next[i];
                }
            }
        }
    }
    o.fmax = f.iter().flatten().fold(0.0, |m: f64, v| m.max(v.abs()));
    o
}

/// FIRE minimisation of the overlap energy (unit masses) until no force
/// component exceeds `ftol`.
fn relax(x: &mut [[f64; 4]], side: f64, ftol: f64, threshold: f64) -> Overlaps {
    let n = x.len();
    let mut f = vec![[0.0; 3]; n];
    let mut v = vec![[0.0; 3]; n];
    let (mut dt, dt_max, mut alpha, mut positive) = (0.05, 0.3, 0.1, 0);
    let mut o = overlap_forces(x, side, &mut f, threshold);
    for _ in 0..200_000 {
        if o.fmax < ftol {
            break;
        }
        let p: f64 = (0..n)
            .map(|i| (0..3).map(|k| f[i][k] * v[i][k]).sum::<f64>())
            .sum();
        if p > 0.0 {
            let vn = v.iter().flatten().map(|a| a * a).sum::<f64>().sqrt();
            let fn_ = f.iter().flatten().map(|a| a * a).sum::<f64>().sqrt();
            for i in 0..n {
                for k in 0..3 {
                    v[i][k] = (1.0 - alpha) * v[i][k] + alpha * vn * f[i][k] / fn_;
                }
            }
            positive += 1;
            if positive > 5 {
                dt = f64::min(dt * 1.1, dt_max);
                alpha *= 0.99;
            }
        } else {
            v.iter_mut().for_each(|a| *a = [0.0; 3]);
            dt *= 0.5;
            alpha = 0.1;
            positive = 0;
        }
        for i in 0..n {
            for k in 0..3 {
                v[i][k] += dt * f[i][k];
                x[i][k] = (x[i][k] + dt * v[i][k]).rem_euclid(side);
            }
        }
        o = overlap_forces(x, side, &mut f, threshold);
    }
    o
}

/// Builds the [`JammedCell`] of `m` spheres (see there).
pub fn jammed_cell(m: usize, seed: u64) -> JammedCell {
    let mut rng = Rng::new(seed);
    let r: Vec<f64> = (0..m).map(|_| rng.range(0.8, 1.0)).collect();
    let ball = |r: f64| 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let vol: f64 = r.iter().map(|&r| ball(r)).sum();
    let side = (vol / 0.66f64).cbrt();
    let mut x: Vec<[f64; 4]> = r
        .iter()
        .map(|&r| [rng.f64() * side, rng.f64() * side, rng.f64() * side, r])
        .collect();
    let (ftol, threshold) = (0.01 * PACK_OVERLAP, 0.05 * PACK_OVERLAP);
    let mean_r = r.iter().sum::<f64>() / m as f64;
    let mut o = relax(&mut x, side, ftol, threshold);
    let mut good = (x.clone(), o.contacts, o.sum);
    let mut frac = 1.0;
    for _ in 0..60 {
        let mean = good.2 / good.1.max(1) as f64;
        if mean <= 2.0 * PACK_OVERLAP || frac < 1e-3 {
            break;
        }
        // shrinking every radius by s takes about s (r_i + r_j) off each
        // overlap before the packing relaxes
        let s = frac * (mean - PACK_OVERLAP) / (2.0 * mean_r);
        x = good.0.clone();
        for p in x.iter_mut() {
            p[3] *= 1.0 - s;
        }
        o = relax(&mut x, side, ftol, threshold);
        if 2 * o.contacts >= 5 * m {
            good = (x.clone(), o.contacts, o.sum);
        } else {
            frac *= 0.5; // unjammed: back to the last jammed state
        }
    }
    let mut x = good.0;
    // the largest radius back to 1: the overlaps scale with it
    let scale = 1.0 / x.iter().map(|p| p[3]).fold(0.0, f64::max);
    for p in x.iter_mut() {
        p.iter_mut().for_each(|v| *v *= scale);
    }
    let side = side * scale;
    JammedCell {
        side,
        solid_fraction: x.iter().map(|p| ball(p[3])).sum::<f64>() / side.powi(3),
        coordination: 2.0 * good.1 as f64 / m as f64,
        spheres: x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use talus::cpu::CpuBackend;

    /// A smaller cell than the bench's (500 spheres: ~3 s), same recipe.
    fn small_cell() -> JammedCell {
        let c = jammed_cell(500, 1);
        assert!(
            c.coordination >= 5.0,
            "cell coordination {}",
            c.coordination
        );
        c
    }

    #[test]
    fn settled_bed_has_four_contacts_per_particle() {
        let scene = settled_bed(&small_cell(), 3000);
        let n = scene.particles.len();
        assert_eq!(n, 3000);
        let mut b = CpuBackend::new(&scene).unwrap();
        b.advance(200).unwrap();
        let z = b.list_stats().contacts as f64 / n as f64;
        assert!(z >= 4.0, "settled bed: {z:.2} contacts per particle");
    }

    #[test]
    fn chute_bed_flows_and_shears() {
        let n = 3000;
        let scene = chute_bed(&small_cell(), n);
        let mut b = CpuBackend::new(&scene).unwrap();
        b.advance(200).unwrap();
        let p = &b.st.particles;
        let h = p.pos_rad.iter().map(|x| x[2]).fold(0.0, f64::max);
        let mean_vx = |lo: f64, hi: f64| {
            let v: Vec<f64> = (0..p.len())
                .filter(|&i| (lo..hi).contains(&(p.pos_rad[i][2] / h)))
                .map(|i| p.vel_invm[i][0])
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        let (bottom, top) = (mean_vx(0.0, 0.25), mean_vx(0.75, 1.01));
        assert!(
            top > 0.2 && top - bottom > 0.1,
            "vx bottom {bottom}, top {top}"
        );
    }

    #[test]
    fn discharge_bed_drains_and_refills() {
        let s = bed(Bed::Discharge, 2000, 1).unwrap();
        s.validate().unwrap();
        assert_eq!(s.outlets.len(), 1);
        assert_eq!(s.inserts.len(), 1);
        let plan = talus::Setup::new(s).unwrap().inserts;
        let rate = plan.entries[0].rate;
        assert!((1000.0..10000.0).contains(&rate), "{rate} beads/s");
    }
}

/// One row of the FEM table (`talus bench --beds fem-tet4,fem-tet10,fem-coupled`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct FemRow {
    /// "tet4", "tet10" (explicit sub-steps of a body alone) or "coupled".
    pub case: String,
    /// "sequential" / "parallel" for a body alone; "grains alone",
    /// "K = 1" or "K = auto (k)" for the coupled bed.
    pub mode: String,
    pub elements: usize,
    pub nodes: usize,
    pub grains: usize,
    pub threads: usize,
    /// Timed explicit sub-steps (body alone) or grain steps (coupled) per
    /// block.
    pub steps: u64,
    /// Median wall time of one block (s).
    pub wall_seconds: f64,
    /// Milliseconds per sub-step (body alone) or per grain step (coupled).
    pub ms_per_step: f64,
    /// Nanoseconds per element and explicit sub-step (body alone).
    pub ns_per_element_substep: f64,
    pub skipped: Option<String>,
}

/// Divisions of a box mesh with about `elements` tetrahedra (6 per cell),
/// near a cube.
pub fn fem_box_divisions(elements: usize) -> [u32; 3] {
    let cells = (elements as f64 / 6.0).max(1.0);
    let a = cells.cbrt().round().max(1.0) as u32;
    let c = (cells / (a * a) as f64).round().max(1.0) as u32;
    [a, a, c]
}

/// The body the FEM rows time: a 0.1 m rubber cube (E = 50 MPa, ν = 0.3,
/// ρ = 1200 kg/m³, St Venant–Kirchhoff, Rayleigh α = 100 /s, β = 0) of
/// about `elements` tetrahedra, its bottom face clamped, explicit.
pub fn fem_bench_body(
    order: talus::fem::mesh::Order,
    elements: usize,
) -> Result<talus::fem::body::FemBody, String> {
    use glam::DVec3;
    use talus::fem::body::{Damping, FemBody, Integrator};
    use talus::fem::material::{FemMaterial, Model};
    let mesh = talus::fem::mesh::box_mesh(
        DVec3::ZERO,
        DVec3::splat(0.1),
        fem_box_divisions(elements),
        order,
    );
    let fixed = mesh.nodes.iter().map(|p| p.z < 1e-9).collect();
    FemBody::new(
        mesh,
        FemMaterial {
            young: 5e7,
            poisson: 0.3,
            density: 1200.0,
        },
        Model::Stvk,
        Integrator::Explicit,
        Damping {
            alpha: 100.0,
            beta: 0.0,
        },
        fixed,
        DVec3::ZERO,
    )
    .map_err(|e| e.to_string())
}

/// Times explicit sub-steps of [`fem_bench_body`]: `repeats` advances of
/// `substeps` sub-steps each (after one untimed advance), under gravity,
/// on the calling thread (`parallel` false) or the rayon pool; the median
/// advance gives the cost per sub-step.
pub fn fem_substep_row(
    order: talus::fem::mesh::Order,
    elements: usize,
    parallel: bool,
    substeps: u64,
    repeats: usize,
) -> FemRow {
    use glam::DVec3;
    use talus::fem::mesh::Order;
    let case = match order {
        Order::Linear => "tet4",
        Order::Quadratic => "tet10",
    };
    let mut row = FemRow {
        case: case.into(),
        mode: if parallel { "parallel" } else { "sequential" }.into(),
        elements,
        nodes: 0,
        grains: 0,
        threads: if parallel {
            rayon::current_num_threads()
        } else {
            1
        },
        steps: substeps,
        wall_seconds: 0.0,
        ms_per_step: 0.0,
        ns_per_element_substep: 0.0,
        skipped: None,
    };
    let mut body = match fem_bench_body(order, elements) {
        Ok(b) => b,
        Err(e) => {
            row.skipped = Some(e);
            return row;
        }
    };
    body.parallel_min_elements = if parallel { 0 } else { usize::MAX };
    let ne = body.mesh().tets.len();
    let n = body.positions().len();
    row.elements = ne;
    row.nodes = n;
    // the sub-step bound without planes is safety × the stable step
    let dt = substeps.max(1) as f64 * body.safety * body.critical_dt().0 * 0.999;
    let ext = vec![DVec3::ZERO; n];
    let g = DVec3::new(0.0, 0.0, -9.81);
    if let Err(e) = body.advance(dt, &ext, g, &[]) {
        row.skipped = Some(e.to_string());
        return row;
    }
    let mut times = Vec::new();
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        if let Err(e) = body.advance(dt, &ext, g, &[]) {
            row.skipped = Some(e.to_string());
            return row;
        }
        times.push(t.elapsed().as_secs_f64());
    }
    let med = median(&mut times);
    row.wall_seconds = med;
    row.ms_per_step = 1e3 * med / substeps.max(1) as f64;
    row.ns_per_element_substep = 1e9 * med / (substeps.max(1) as f64 * ne as f64);
    row
}

/// Tetrahedra of the `fem-coupled` bed's plate: 41 × 41 × 1 cells.
pub const COUPLED_PLATE: [u32; 3] = [41, 41, 1];

/// `fem-coupled`: about `n` `mono` spheres (the lattice, 60 × 60 cubic
/// cells wide, as deep as `n` needs) resting on a deformable plate of
/// [`COUPLED_PLATE`] cells (10 086 tet4, 4 mm thick, its bottom face
/// clamped) that replaces the floor: a soft silicone (E = 0.2 MPa, ν =
/// 0.3, ρ = 1000 kg/m³, α = 50 /s) so that its stable step spans several
/// grain steps and "auto" picks K > 1. `every`: the exchange interval (None:
/// auto). `body` false: the same spheres on the rigid floor.
pub fn fem_coupled_bed(n: usize, body: bool, every: Option<u32>) -> Scene {
    use talus::scene::{Body, BodyElement, BodyIntegrator, BodyMesh, BodyModel};
    let a = 1.9 * R * std::f64::consts::SQRT_2;
    let nx = 60;
    let nz = n.div_ceil(4 * nx * nx).max(1);
    let (lx, lz) = (nx as f64 * a + R, nz as f64 * a + R);
    let thick = 0.004;
    let mut rng = Rng::new(1);
    let mut b = SceneBuilder::new(&format!("bed-fem-coupled-{n}"))
        .domain([0.0, 0.0, -thick - 2.0 * R], [lx, lx, 1.5 * lz + 4.0 * R])
        .dt_auto(0.2)
        .steps(1)
        .material(bead())
        .material(Material {
            friction: 0.5,
            restitution: 0.5,
            ..Material::new("silicone", 1000.0, 2e5)
        })
        .wall([0.0; 3], [1.0, 0.0, 0.0], "bead")
        .wall([lx, 0.0, 0.0], [-1.0, 0.0, 0.0], "bead")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "bead")
        .wall([0.0, lx, 0.0], [0.0, -1.0, 0.0], "bead");
    if !body {
        b = b.wall([0.0; 3], [0.0, 0.0, 1.0], "bead");
    }
    let fcc = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    let mut count = 0;
    'fill: for iz in 0..nz {
        for iy in 0..nx {
            for ix in 0..nx {
                for o in &fcc {
                    if count == n {
                        break 'fill;
                    }
                    let base = [ix as f64, iy as f64, iz as f64];
                    let c = [0, 1, 2].map(|k| (base[k] + o[k]) * a + R);
                    b = b.particle(c, [0.0; 3], rng.range(0.8, 1.0) * R, "bead");
                    count += 1;
                }
            }
        }
    }
    let mut s = b.build_unchecked();
    if body {
        s.bodies.push(Body {
            name: Some("plate".into()),
            mesh: BodyMesh::Box {
                min: [0.0, 0.0, -thick],
                max: [lx, lx, 0.0],
                divisions: COUPLED_PLATE,
            },
            material: 1,
            element: BodyElement::Tet4,
            model: BodyModel::Stvk,
            integrator: BodyIntegrator::Explicit,
            velocity: [0.0; 3],
            damping: [50.0, 0.0],
            fixed: vec![([-1.0, -1.0, -1.0], [lx + 1.0, lx + 1.0, -thick + 1e-6])],
            exchange_every: every,
            wall_stiffness: None,
        });
    }
    s
}
