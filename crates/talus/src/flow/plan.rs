//! The insertion schedule of a run and its candidates.
//!
//! **Batches.** Each `[[insert]]` entry pours in batches, one every
//! `interval` (rounded to whole steps; `"auto"`: [`auto_interval`]),
//! from the first step at or after `start` to the last before `stop`
//! (a time within 10⁻⁹ of a step's is that step's: 0.1 s / 10⁻⁵ s is
//! step 10 000, not 10 001). A batch is activated at the *start* of its
//! step, before that step's rebuild test (so the step lists the new
//! particles at once), and pours the share of the time it covers: from
//! its step to the next batch's, or to `stop` for the last. After batch b
//! the entry should have inserted `target(b) = min(count, floor(rate ·
//! T_b))` particles, T_b the time its batches 0..=b cover (rate in
//! particles per second; `mass_rate` is turned into one with the
//! distribution's mean particle mass), so by `stop` it has asked for
//! rate · (stop − start) within one particle. A batch asks for the
//! difference between its target and what the entry has inserted so far,
//! so a batch that fell short (the region was full) is made up by the next
//! ones when room appears.
//!
//! **Candidates.** A batch offers candidates on a cubic lattice over the
//! region's bounding box with cell edge 2.1 r_max: each candidate takes
//! one lattice cell, a radius drawn from the distribution and a uniform
//! jitter that keeps it inside its cell, so candidates never overlap each
//! other whatever subset is accepted. Cells are drawn at random; a
//! candidate must lie wholly inside the region and clear of every wall at
//! the batch's time (gap ≥ its radius, walls at their prescribed pose).
//! A batch offers min(2 × its share + 16, cells that qualify) candidates.
//! Everything here depends only on the scene and the batch's index (one
//! random stream per entry and batch: [`batch_seed`]), never on the
//! state, so both backends, every run, and a resumed run see the same
//! candidates: the insertion's random state is the batch counter.
//!
//! **Acceptance** (both backends, in order): candidate c is accepted when
//! the batch still wants particles and no particle present (removed ones
//! aside) is closer than r_c + r_j to it (the CPU tests in f64, the GPU
//! in f32 from its exact fixed-point positions: they differ only for a
//! candidate within rounding of touching). Inserted particles therefore
//! start with no overlap at all; their first step brings them at most
//! their relative speed × dt together.

use crate::rng::Rng;
use crate::scene::{step_at_or_after, Insert, InsertRate, RadiusDist, Region, Scene};
use crate::state::Particles;
use crate::walls::{gap, pose_at, Pose, WallSet};
use glam::DVec3;
use std::f64::consts::PI;

/// Lattice cell edge over the largest diameter: room for a jitter of
/// 5 % of the largest radius per side.
pub const CELL_OVER_DIAMETER: f64 = 1.05;

/// `interval = "auto"`: the time a particle released in the region with
/// the entry's velocity takes to cross the region's extent along its
/// fall (velocity and gravity), so a batch has left the region when the
/// next comes; at most 0.05 s, at least one step.
pub fn auto_interval(ins: &Insert, gravity: [f64; 3], dt: f64) -> f64 {
    let v = DVec3::from(ins.velocity);
    let g = DVec3::from(gravity);
    // the direction of travel: the velocity's, else gravity's
    let dir = if v.length() > 0.0 {
        v.normalize()
    } else if g.length() > 0.0 {
        g.normalize()
    } else {
        return 0.05f64.max(dt);
    };
    let (lo, hi) = ins.region.bounds();
    let ext = DVec3::from(hi) - DVec3::from(lo);
    let h = ext.x * dir.x.abs() + ext.y * dir.y.abs() + ext.z * dir.z.abs();
    // h = u t + ½ a t², u and a along dir
    let (u, a) = (v.dot(dir), g.dot(dir));
    let t = if a.abs() < 1e-12 {
        if u > 0.0 {
            h / u
        } else {
            f64::INFINITY
        }
    } else {
        let disc = u * u + 2.0 * a * h;
        if disc < 0.0 {
            f64::INFINITY
        } else {
            (-u + disc.sqrt()) / a
        }
    };
    let t = if t.is_finite() && t > 0.0 { t } else { 0.05 };
    t.min(0.05).max(dt)
}

/// E[r³] of a distribution (number-weighted).
pub fn mean_r3(d: &RadiusDist) -> f64 {
    match d {
        RadiusDist::Constant(r) => r * r * r,
        RadiusDist::Uniform { min, max } => {
            if max > min {
                (max.powi(4) - min.powi(4)) / (4.0 * (max - min))
            } else {
                min * min * min
            }
        }
        RadiusDist::Discrete(l) => {
            let total: f64 = l.iter().map(|x| x.1).sum();
            l.iter().map(|(r, f)| f * r * r * r).sum::<f64>() / total
        }
    }
}

/// The random stream of batch `b` of entry `k` under `seed`.
pub fn batch_seed(seed: u64, k: usize, b: u64) -> u64 {
    let mut r = Rng::new(seed ^ 0x1A5E_77ED_0000_0000 ^ ((k as u64) << 40));
    let base = r.next_u64();
    base ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// One entry's schedule.
#[derive(Debug, Clone)]
pub struct EntryPlan {
    pub insert: Insert,
    /// Particles per second.
    pub rate: f64,
    /// Steps between batches (≥ 1).
    pub every: u64,
    /// The first batch's step.
    pub first: u64,
    /// Steps from the first batch's to `stop`'s (None: no stop): the
    /// last batch covers up to it.
    pub span: Option<u64>,
    pub density: f64,
    /// Lattice cell edge (m), dims and origin.
    pub cell: f64,
    pub dims: [u64; 3],
    pub origin: [f64; 3],
    /// A clump entry's shape: (its index, its reach from the centre (m),
    /// its volume (m³)); None: spheres.
    pub clump: Option<(usize, f64, f64)>,
    /// Rows a particle of the entry takes: its shape's members (1: a
    /// sphere).
    pub members: u64,
}

impl EntryPlan {
    /// Its batches: those at steps first + b·every before `stop`'s step
    /// (None: until the run ends).
    pub fn batches(&self) -> Option<u64> {
        self.span.map(|s| s.div_ceil(self.every))
    }
}

/// A batch without its candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduledBatch {
    pub entry: usize,
    /// Its index among the entry's batches.
    pub index: u64,
    /// Activated at the start of this step.
    pub step: u64,
    /// What the entry should have inserted after it (cumulative).
    pub target: u64,
}

/// A batch with its candidates (ids 0: the backend gives them theirs).
#[derive(Debug, Clone)]
pub struct Batch {
    pub at: ScheduledBatch,
    pub candidates: Particles<f64>,
    /// Each candidate's energy at insertion: kinetic + potential in the
    /// gravity of that step (J).
    pub energy: Vec<f64>,
    /// A clump entry's: its shape, and each candidate's orientation as
    /// written (w, x, y, z); its candidates' `pos_rad` hold the centre of
    /// mass and the shape's reach (the bounding sphere the placement and
    /// acceptance keep clear), `vel_invm` the clump's 1/M.
    pub shape: Option<usize>,
    pub orientation: Vec<[f64; 4]>,
}

impl Batch {
    /// The candidates `picked` (indices, in that order) as particles to
    /// insert: ids 0, nothing dissipated yet.
    pub fn pick(&self, picked: &[usize]) -> Particles<f64> {
        let c = &self.candidates;
        let of = |v: &[[f64; 4]]| picked.iter().map(|&i| v[i]).collect();
        Particles {
            pos_rad: of(&c.pos_rad),
            vel_invm: of(&c.vel_invm),
            omega_invi: of(&c.omega_invi),
            material: picked.iter().map(|&i| c.material[i]).collect(),
            id: vec![0; picked.len()],
            dissipated: vec![0.0; picked.len()],
        }
    }

    /// The event of candidate `i` inserted at `step` as particle `id`.
    pub fn inserted(&self, i: usize, step: u64, id: u32) -> crate::flow::FlowEvent {
        crate::flow::FlowEvent {
            step,
            id,
            kind: crate::flow::FlowKind::Inserted(self.at.entry),
            mass: 1.0 / self.candidates.vel_invm[i][3],
            energy: self.energy[i],
        }
    }
}

/// The insertion schedule of a scene.
#[derive(Debug, Clone)]
pub struct InsertPlan {
    pub entries: Vec<EntryPlan>,
    dt: f64,
    seed: u64,
    gravity: [f64; 3],
    gravity_rotation: Option<crate::scene::GravityRotation>,
    walls: WallSet,
}

impl InsertPlan {
    /// The schedule of `scene`, resolving the time step ([`Scene::dt`])
    /// and the walls (the bodies' meshes built from the scene) itself: for
    /// tools and tests. A run takes [`crate::setup::Setup::inserts`],
    /// resolved once with the run's `dt` and walls ([`InsertPlan::resolved`]).
    /// Panics on a body whose mesh fails, which a validated scene does not
    /// have.
    pub fn new(scene: &Scene) -> Self {
        let meshes = crate::fem::build::body_meshes(scene)
            .unwrap_or_else(|e| panic!("a validated scene's body mesh: {e}"));
        Self::resolved(scene, scene.dt(), WallSet::new(scene, &meshes))
    }

    /// The schedule of `scene` at time step `dt`, candidates placed clear
    /// of `walls` (the scene's at t = 0 with its bodies' surfaces: a clone
    /// of [`crate::setup::Setup::walls`]).
    pub fn resolved(scene: &Scene, dt: f64, walls: WallSet) -> Self {
        let g = scene.simulation.gravity;
        let entries = scene
            .inserts
            .iter()
            .map(|ins| {
                let density = scene.materials[ins.material].density;
                let clump = ins.shape.map(|k| {
                    let b = &scene.shapes[k].body;
                    (k, b.reach, b.volume)
                });
                let volume = match clump {
                    Some((_, _, v)) => v,
                    None => 4.0 / 3.0 * PI * mean_r3(&ins.radius),
                };
                let rate = match ins.rate {
                    InsertRate::Count(r) => r,
                    InsertRate::Mass(m) => m / (density * volume),
                };
                let interval = ins.interval.unwrap_or_else(|| auto_interval(ins, g, dt));
                let every = ((interval / dt).round() as u64).max(1);
                let first = step_at_or_after(ins.start, dt);
                // the steps from the first batch to stop's: the batches fall before it
                let span = ins
                    .stop
                    .map(|stop| step_at_or_after(stop, dt).saturating_sub(first));
                // a clump's cell holds its bounding sphere, any orientation
                let reach = clump.map_or(ins.radius.max(), |c| c.1);
                let cell = 2.0 * reach * CELL_OVER_DIAMETER;
                let (lo, hi) = ins.region.bounds();
                let dims =
                    std::array::from_fn(|k| (((hi[k] - lo[k]) / cell).floor() as u64).max(1));
                EntryPlan {
                    insert: ins.clone(),
                    rate,
                    every,
                    first,
                    span,
                    density,
                    cell,
                    dims,
                    origin: lo,
                    clump,
                    members: ins
                        .shape
                        .map_or(1, |k| scene.shapes[k].body.members.len() as u64),
                }
            })
            .collect();
        InsertPlan {
            entries,
            dt,
            seed: scene.simulation.seed,
            gravity: g,
            gravity_rotation: scene.simulation.gravity_rotation,
            walls,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// An upper bound on the candidates one step's batches offer
    /// together: each batch min(2 × its share + 16, its lattice's cells),
    /// a share at most ⌈rate × interval⌉ + 1 (and the entry's count); a
    /// clump candidate counts its members (the rows it would place).
    pub fn most_candidates_per_step(&self) -> u64 {
        self.entries
            .iter()
            .map(|e| {
                let share = (e.rate * e.every as f64 * self.dt).ceil() as u64 + 1;
                let share = e.insert.count.map_or(share, |c| share.min(c));
                e.members * (2 * share + 16).min(e.dims[0] * e.dims[1] * e.dims[2])
            })
            .sum()
    }

    /// Entry `k`'s cumulative target after its batch `b`: its rate over
    /// the time its batches 0..=b cover (the last one's up to `stop`).
    pub fn target(&self, k: usize, b: u64) -> u64 {
        let e = &self.entries[k];
        let mut steps = (b + 1) * e.every;
        if let Some(s) = e.span {
            steps = steps.min(s);
        }
        let t = steps as f64 * self.dt;
        let n = (e.rate * t + 1e-9).floor() as u64;
        e.insert.count.map_or(n, |c| n.min(c))
    }

    /// The batches activated at steps `from..to`, by step then entry.
    pub fn schedule(&self, from: u64, to: u64) -> Vec<ScheduledBatch> {
        let mut out = Vec::new();
        for (k, e) in self.entries.iter().enumerate() {
            let b0 = if from <= e.first {
                0
            } else {
                (from - e.first).div_ceil(e.every)
            };
            let mut b = b0;
            loop {
                if e.batches().is_some_and(|n| b >= n) {
                    break;
                }
                let step = e.first + b * e.every;
                if step >= to {
                    break;
                }
                out.push(ScheduledBatch {
                    entry: k,
                    index: b,
                    step,
                    target: self.target(k, b),
                });
                b += 1;
            }
        }
        out.sort_by_key(|s| (s.step, s.entry));
        out
    }

    /// Entry `k`'s target after its last batch before step `to` (what it
    /// was asked to insert by then; 0 before its first batch).
    pub fn target_before(&self, k: usize, to: u64) -> u64 {
        let e = &self.entries[k];
        if to <= e.first {
            return 0;
        }
        let mut n = (to - e.first).div_ceil(e.every);
        if let Some(m) = e.batches() {
            n = n.min(m);
        }
        if n == 0 {
            0
        } else {
            self.target(k, n - 1)
        }
    }

    /// The most particles the entries can insert before step `to` (their
    /// targets: what `talus check` and the GPU's capacity plan for).
    pub fn max_inserted(&self, to: u64) -> u64 {
        (0..self.entries.len())
            .map(|k| self.target_before(k, to))
            .sum()
    }

    /// The most rows those take: a clump's members are a row each (what a
    /// run's memory plans for).
    pub fn max_rows(&self, to: u64) -> u64 {
        self.rows_to_come(&vec![0; self.entries.len()], to)
    }

    /// The rows the entries' targets before step `to` still ask for, with
    /// `inserted` particles per entry so far.
    pub fn rows_to_come(&self, inserted: &[u64], to: u64) -> u64 {
        (0..self.entries.len())
            .map(|k| {
                let n = self.target_before(k, to);
                self.entries[k].members * n.saturating_sub(inserted[k])
            })
            .sum()
    }

    /// Gravity at step `s` (turned by `gravity_rotation`).
    pub fn gravity_at(&self, s: u64) -> [f64; 3] {
        crate::scene::gravity_at(self.gravity, self.gravity_rotation, s as f64 * self.dt)
    }

    /// The candidates of a scheduled batch. `previous_target`: the entry's
    /// target after its batch before (0 for the first).
    pub fn batch(&self, at: ScheduledBatch) -> Batch {
        let e = &self.entries[at.entry];
        let prev = if at.index == 0 {
            0
        } else {
            self.target(at.entry, at.index - 1)
        };
        let share = at.target.saturating_sub(prev);
        let want = 2 * share + 16;
        // the walls where their prescribed motion has them (servos at
        // their start)
        let t = at.step as f64 * self.dt;
        let poses: Vec<Pose> = self
            .walls
            .bodies
            .iter()
            .map(|b| {
                if b.moves {
                    pose_at(&b.motion, t, DVec3::ZERO, DVec3::ZERO)
                } else {
                    b.pose
                }
            })
            .collect();
        let mut rng = Rng::new(batch_seed(self.seed, at.entry, at.index));
        let cells = e.dims[0] * e.dims[1] * e.dims[2];
        let g = self.gravity_at(at.step);
        let mut c = Particles::<f64>::default();
        let mut energy = Vec::new();
        let mut orientation = Vec::new();
        let mut take = |cell: u64, rng: &mut Rng| -> bool {
            // four draws per cell tried, whether it qualifies or not (a
            // clump's: three more, its orientation)
            let r = e.insert.radius.sample(rng);
            let (r, q) = match e.clump {
                None => (r, None),
                Some((_, reach, _)) => {
                    let q = match e.insert.orientation {
                        crate::scene::types::Orientation::Fixed(q) => q,
                        crate::scene::types::Orientation::Random => {
                            uniform_rotation([rng.f64(), rng.f64(), rng.f64()])
                        }
                    };
                    (reach, Some(q))
                }
            };
            let j = [rng.f64(), rng.f64(), rng.f64()];
            let ijk = [
                cell % e.dims[0],
                (cell / e.dims[0]) % e.dims[1],
                cell / (e.dims[0] * e.dims[1]),
            ];
            let room = 0.5 * e.cell - r;
            let p: [f64; 3] = std::array::from_fn(|k| {
                e.origin[k] + (ijk[k] as f64 + 0.5) * e.cell + (2.0 * j[k] - 1.0) * room
            });
            if !fits(&e.insert.region, p, r) || !clear_of_walls(&self.walls, &poses, p, r) {
                return false;
            }
            let m = match e.clump {
                Some((_, _, volume)) => e.density * volume,
                None => e.density * 4.0 / 3.0 * PI * r * r * r,
            };
            orientation.extend(q);
            let v = e.insert.velocity;
            c.pos_rad.push([p[0], p[1], p[2], r]);
            c.vel_invm.push([v[0], v[1], v[2], 1.0 / m]);
            c.omega_invi.push([0.0, 0.0, 0.0, 1.0 / (0.4 * m * r * r)]);
            c.material.push(e.insert.material as u32);
            c.id.push(0);
            c.dissipated.push(0.0);
            let ke = 0.5 * m * DVec3::from(v).length_squared();
            energy.push(ke - m * DVec3::from(g).dot(DVec3::from(p)));
            true
        };
        let attempts = 4 * want + 64;
        let mut got = 0;
        if cells <= 2 * attempts {
            // every cell, in a random order (Fisher–Yates)
            let mut order: Vec<u64> = (0..cells).collect();
            for i in 0..order.len() {
                if got == want {
                    break;
                }
                let j = i + (rng.next_u64() % (order.len() - i) as u64) as usize;
                order.swap(i, j);
                if take(order[i], &mut rng) {
                    got += 1;
                }
            }
        } else {
            let mut seen = std::collections::HashSet::new();
            for _ in 0..attempts {
                if got == want {
                    break;
                }
                let cell = rng.next_u64() % cells;
                if seen.insert(cell) && take(cell, &mut rng) {
                    got += 1;
                }
            }
        }
        Batch {
            at,
            candidates: c,
            energy,
            shape: e.clump.map(|c| c.0),
            orientation,
        }
    }
}

/// A rotation uniform over SO(3) from three uniform draws in [0, 1)
/// (Shoemake 1992), as a unit quaternion [w, x, y, z].
pub fn uniform_rotation(u: [f64; 3]) -> [f64; 4] {
    let (a, b) = ((1.0 - u[0]).sqrt(), u[0].sqrt());
    let (t1, t2) = (2.0 * PI * u[1], 2.0 * PI * u[2]);
    [b * t2.cos(), a * t1.sin(), a * t1.cos(), b * t2.sin()]
}

/// A sphere of radius `r` at `p` lies wholly inside the region.
fn fits(region: &Region, p: [f64; 3], r: f64) -> bool {
    match *region {
        Region::Box { min, max } => (0..3).all(|k| p[k] - r >= min[k] && p[k] + r <= max[k]),
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            let d = DVec3::from(p) - DVec3::from(center);
            let a = DVec3::from(axis);
            let h = d.dot(a);
            let rad = (d - h * a).length();
            h >= r && h <= length - r && rad <= radius - r
        }
    }
}

/// No wall primitive is closer than `r` to `p` (wall k at `poses[k]`).
fn clear_of_walls(walls: &WallSet, poses: &[Pose], p: [f64; 3], r: f64) -> bool {
    for (b, pose) in walls.bodies.iter().zip(poses) {
        let x = pose.to_body(DVec3::from(p)).to_array();
        let near = |i: u32| gap(&walls.prims[i as usize], x).dist >= r;
        let ok = match &b.grid {
            Some(g) => g.candidates(x).iter().all(|&i| near(i)),
            None => (b.first..b.end).all(near),
        };
        if !ok {
            return false;
        }
    }
    true
}
