//! The typed scene: plain data, with the defaults of a scene file (every
//! key, unit and default is documented in `docs/scenes.md`). Reading TOML,
//! generating particles, checking and resolving `"auto"` values live in the
//! sibling files; this one imports none of them (only the reader's type
//! for what a body's mesh file holds, [`MshTets`]).

use super::error::SceneError;
use crate::fem::msh::MshTets;
use glam::DVec3;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How long to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum End {
    /// Simulated time in seconds.
    Duration(f64),
    /// A fixed number of steps.
    Steps(u64),
}

/// Time step choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dt {
    /// `safety` × the smallest contact-time estimate (see [`crate::timestep`]).
    Auto,
    Fixed(f64),
}

/// `[simulation]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    pub end: End,
    pub dt: Dt,
    /// Fraction of the Rayleigh time used by `dt = "auto"` (default 0.2, the
    /// usual LIGGGHTS/EDEM advice of 10–40 %).
    pub dt_safety: f64,
    pub gravity: [f64; 3],
    /// Seconds between snapshots and energy rows (default: duration / 50).
    pub output_interval: Option<f64>,
    /// Seed of the random generators (default 1).
    pub seed: u64,
    /// Verlet skin of the neighbour list (m): candidates are kept within
    /// r_i + r_j + skin, and the list is rebuilt once any particle has moved
    /// more than skin / 2 since the last build. None = `"auto"`:
    /// [`AUTO_SKIN_DIAMETERS`] × the smallest diameter (the small
    /// particles are the many: a skin of the large ones' size would give
    /// each small one hundreds of candidates in a wide size distribution).
    pub neighbour_skin: Option<f64>,
    /// Most levels of the broad-phase grid (one per size class, see
    /// `grid`). None = `"auto"`: as many as the size distribution needs
    /// (up to `grid::MAX_LEVELS`); 1: one uniform grid, cells as wide as
    /// the largest particle (for comparison: it costs a wide distribution
    /// ~ (d_max / d_min)³ per small particle).
    pub grid_levels: Option<u64>,
    /// `gravity_rotation = { axis, angular_velocity, start, angle, every }`:
    /// gravity turns about `axis` (an hourglass turned over, a scene seen
    /// from a rotating drum). None: fixed.
    pub gravity_rotation: Option<GravityRotation>,
    /// Wall-clock seconds between checkpoints of a run (default
    /// [`DEFAULT_CHECKPOINT_INTERVAL`]); a run also writes one at its end
    /// and when it is interrupted.
    pub checkpoint_interval: f64,
}

/// `checkpoint_interval` by default: ten minutes of wall clock, what a
/// pre-empted cloud run can afford to lose.
pub const DEFAULT_CHECKPOINT_INTERVAL: f64 = 600.0;

/// `[simulation] gravity_rotation`: gravity turns about `axis` at
/// `angular_velocity` from `start`; with `angle`, each turn stops after
/// that angle (a turn takes angle / |ω|), and with `every` it starts again
/// every so many seconds (an hourglass turned over at 4, 8, 12 s...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GravityRotation {
    /// Unit axis (normalised on reading).
    pub axis: [f64; 3],
    /// rad/s, right-hand rule about `axis`.
    pub angular_velocity: f64,
    /// s: when the first turn starts (default 0).
    pub start: f64,
    /// rad (> 0): how far each turn goes. None: it never stops.
    pub angle: Option<f64>,
    /// s: the period of the turns (≥ the time a turn takes). None: once.
    pub every: Option<f64>,
}

impl GravityRotation {
    /// Turning about `axis` at `angular_velocity` from t = 0, for ever.
    pub fn steady(axis: [f64; 3], angular_velocity: f64) -> Self {
        GravityRotation {
            axis,
            angular_velocity,
            start: 0.0,
            angle: None,
            every: None,
        }
    }

    /// Seconds one turn takes (angle / |ω|); None: it never stops.
    pub fn turn_time(&self) -> Option<f64> {
        self.angle.map(|a| a / self.angular_velocity.abs())
    }

    /// The angle (rad, signed as ω) turned by time `t`.
    pub fn angle_at(&self, t: f64) -> f64 {
        let s = t - self.start;
        if s <= 0.0 {
            return 0.0;
        }
        let turning = match (self.turn_time(), self.every) {
            (None, _) => s,
            (Some(tt), None) => s.min(tt),
            (Some(tt), Some(p)) => {
                let k = (s / p).floor();
                k * tt + (s - k * p).min(tt)
            }
        };
        self.angular_velocity * turning
    }
}

/// `gravity` turned by `rotation` at time `t` (s): what gravity is at that
/// time (the CPU step, the insertion plan, the FEM bodies; the GPU's twin
/// is `gravity_at` in `common.wgsl`).
pub fn gravity_at(gravity: [f64; 3], rotation: Option<GravityRotation>, t: f64) -> [f64; 3] {
    match rotation {
        Some(r) => {
            let q = glam::DQuat::from_axis_angle(DVec3::from(r.axis), r.angle_at(t));
            (q * DVec3::from(gravity)).to_array()
        }
        None => gravity,
    }
}

/// `neighbour_skin = "auto"`: this fraction of the smallest diameter. Small
/// enough that a dense monodisperse bed keeps only its first shell (12
/// candidates), large enough that a bed flowing at 20 steps per contact
/// rebuilds every few tens of steps, not every step. The smallest, not the
/// largest: in a wide size distribution the small grains are the many, and
/// a skin of the large ones' size multiplies their candidates.
pub const AUTO_SKIN_DIAMETERS: f64 = 0.1;

impl Default for Simulation {
    fn default() -> Self {
        Simulation {
            end: End::Duration(0.1),
            dt: Dt::Auto,
            dt_safety: 0.2,
            gravity: [0.0, 0.0, -9.81],
            output_interval: None,
            seed: 1,
            neighbour_skin: None,
            grid_levels: None,
            gravity_rotation: None,
            checkpoint_interval: DEFAULT_CHECKPOINT_INTERVAL,
        }
    }
}

/// `[domain]`: the box the grid covers. Non-periodic faces are open unless a
/// wall is placed there; particles that leave stay in the edge cells (contact
/// detection stays exact, only slower).
#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    pub min: [f64; 3],
    pub max: [f64; 3],
    pub periodic: [bool; 3],
}

impl Domain {
    /// `p` brought into the box along its periodic axes (as
    /// `Grid::wrap` does for a run): a clump's member may stick out of
    /// the box its centre is in.
    pub fn wrap(&self, p: &mut [f64; 3]) {
        for (k, pk) in p.iter_mut().enumerate() {
            let len = self.max[k] - self.min[k];
            if self.periodic[k] && !(0.0..len).contains(&(*pk - self.min[k])) {
                *pk = self.min[k] + (*pk - self.min[k]).rem_euclid(len);
                if *pk >= self.max[k] {
                    *pk = self.min[k];
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactModel {
    /// Hertz normal + Mindlin tangential with viscoelastic damping (LIGGGHTS
    /// `hertz` / `tangential history`).
    HertzMindlin,
    /// Cundall–Strack linear spring–dashpot with exact restitution.
    Linear,
}

/// `[contact] cohesion`: the attraction of touching surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cohesion {
    /// Dry, cohesionless contacts (the default).
    #[default]
    None,
    /// LIGGGHTS' `cohesion sjkr`: a pull k A along the normal while the
    /// surfaces overlap, k the pair's cohesion energy density (J/m³), A the
    /// area of the circle where the two spheres' surfaces cross (a wall:
    /// where the sphere crosses the plane).
    Sjkr,
    /// LIGGGHTS' `cohesion sjkr2`: the same pull with the area 2π (2R*) δ
    /// between particles and 2π R δ at a wall.
    Sjkr2,
    /// Johnson–Kendall–Roberts adhesion (`cpu::jkr`): JKR's force–overlap
    /// relation with the pair's work of adhesion γ (`surface_energy`;
    /// pull-off 1.5 π γ R*), snap-in at touch, and contacts that hold past
    /// touching until JKR's separation. Hertz–Mindlin only.
    Jkr,
}

impl Cohesion {
    /// The scene's word for it.
    pub fn name(self) -> &'static str {
        match self {
            Cohesion::None => "none",
            Cohesion::Sjkr => "sjkr",
            Cohesion::Sjkr2 => "sjkr2",
            Cohesion::Jkr => "jkr",
        }
    }
    /// Its code in `Params::models` (x) on the GPU (`COHESION_*` in
    /// `shaders/common.wgsl`, checked equal by `tests/shaders.rs`).
    pub fn code(self) -> u32 {
        match self {
            Cohesion::None => 0,
            Cohesion::Sjkr => 1,
            Cohesion::Sjkr2 => 2,
            Cohesion::Jkr => 3,
        }
    }
}

/// `[contact] rolling`: the rolling resistance (LIGGGHTS' rolling models).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rolling {
    /// A constant directional torque μ_r R* F_n against the relative
    /// rolling spin (LIGGGHTS' `cdt`; the default). No memory: a static
    /// torque creeps.
    #[default]
    Cdt,
    /// Elastic–plastic spring–dashpot (Ai et al. 2011, LIGGGHTS' `epsd`): a
    /// rolling spring of stiffness k_r = 2.25 k_n μ_r² R*², its torque kept
    /// per contact and capped at μ_r R* |F_n|, plus a dashpot of
    /// `rolling_viscous_damping` × 2 √(I_r k_r) while the spring holds.
    Epsd,
    /// LIGGGHTS' `epsd2` (Ai et al.'s type C, the calibration standard):
    /// the spring alone, k_r = k_t R*², capped at μ_r R* |F_n|.
    Epsd2,
}

impl Rolling {
    /// The scene's word for it.
    pub fn name(self) -> &'static str {
        match self {
            Rolling::Cdt => "cdt",
            Rolling::Epsd => "epsd",
            Rolling::Epsd2 => "epsd2",
        }
    }
    /// Its code in `Params::models` (z) on the GPU (`ROLLING_*` in
    /// `shaders/common.wgsl`, checked equal by `tests/shaders.rs`).
    pub fn code(self) -> u32 {
        match self {
            Rolling::Cdt => 0,
            Rolling::Epsd => 1,
            Rolling::Epsd2 => 2,
        }
    }
    /// Whether the model keeps a rolling spring per contact (a second
    /// history beside the tangential one).
    pub fn has_memory(self) -> bool {
        self != Rolling::Cdt
    }
}

/// `[contact]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    pub model: ContactModel,
    /// The cohesion model (default none).
    pub cohesion: Cohesion,
    /// The rolling resistance model (default cdt).
    pub rolling: Rolling,
    /// Linear model: fixed normal stiffness k_n (N/m).
    pub stiffness: Option<f64>,
    /// Linear model: contact duration t_c (s); k_n and c_n then follow per
    /// pair from m* so every pair lasts t_c and rebounds with exactly e.
    pub contact_time: Option<f64>,
    /// Linear model: k_t / k_n (default 2/7).
    pub tangential_stiffness_ratio: f64,
}

impl Default for Contact {
    fn default() -> Self {
        Contact {
            model: ContactModel::HertzMindlin,
            cohesion: Cohesion::None,
            rolling: Rolling::Cdt,
            stiffness: None,
            contact_time: None,
            tangential_stiffness_ratio: 2.0 / 7.0,
        }
    }
}

/// `[[materials]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    /// kg/m³
    pub density: f64,
    /// Pa
    pub youngs_modulus: f64,
    pub poisson_ratio: f64,
    /// Coefficient of restitution in (0, 1].
    pub restitution: f64,
    /// Sliding friction coefficient μ ≥ 0.
    pub friction: f64,
    /// Rolling friction coefficient μ_r ≥ 0 (the rolling torque's cap,
    /// μ_r R* F_n, in every rolling model).
    pub rolling_friction: f64,
    /// The `epsd` model's rolling dashpot, a fraction of critical damping
    /// (LIGGGHTS' `coeffRollVisc`); a pair's is the mean of its materials'.
    pub rolling_viscous_damping: f64,
    /// Cohesion energy density k (J/m³) of the SJKR models (LIGGGHTS'
    /// `cohesionEnergyDensity`); a pair's is the mean of its materials'
    /// unless `[[interactions]]` gives it. 0: none.
    pub cohesion_energy_density: f64,
    /// Surface energy γ (J/m²) of the JKR model, taken as the pair's work
    /// of adhesion (pull-off 1.5 π γ R*); a pair's is the mean of its
    /// materials' unless `[[interactions]]` gives it. 0: none.
    pub surface_energy: f64,
}

impl Material {
    /// A material with the given name, density and Young's modulus; ν = 0.25,
    /// e = 0.5, μ = 0.5, μ_r = 0.
    pub fn new(name: &str, density: f64, youngs_modulus: f64) -> Self {
        Material {
            name: name.to_string(),
            density,
            youngs_modulus,
            poisson_ratio: 0.25,
            restitution: 0.5,
            friction: 0.5,
            rolling_friction: 0.0,
            rolling_viscous_damping: 0.0,
            cohesion_energy_density: 0.0,
            surface_energy: 0.0,
        }
    }
}

/// `[[interactions]]`: a pair override (indices into `materials`).
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    pub materials: [usize; 2],
    pub restitution: Option<f64>,
    pub friction: Option<f64>,
    pub rolling_friction: Option<f64>,
    pub rolling_viscous_damping: Option<f64>,
    pub cohesion_energy_density: Option<f64>,
    pub surface_energy: Option<f64>,
}

/// One particle of the initial state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParticleInit {
    pub position: [f64; 3],
    pub velocity: [f64; 3],
    pub angular_velocity: [f64; 3],
    pub radius: f64,
    pub material: usize,
    /// Index of the `[[particles]]` source it came from (for messages).
    pub source: usize,
    /// Its id, where the input gives one (`final.csv`'s `id` column read
    /// back, so a run continued from it keeps every particle's identity);
    /// None: numbered after the largest id given ([`Scene::particle_ids`]).
    pub id: Option<u32>,
    /// A clump's shape (index into `Scene::shapes`); None: a sphere. A
    /// clump's `position` is its centre of mass, its `radius` the shape's
    /// largest member radius (what the grid and the time step see).
    pub shape: Option<usize>,
    /// A clump's orientation (w, x, y, z, unit): the shape's frame as
    /// written to the world ([1, 0, 0, 0] for a sphere).
    pub orientation: [f64; 4],
}

/// The identity orientation of [`ParticleInit::orientation`].
pub const IDENTITY: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

/// Which side of a cylinder or cone surface the particles are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Inside the surface (a drum, a silo, a hopper).
    Inside,
    /// Outside it (a pin, a shaft).
    Outside,
}

/// The geometry of one `[[walls]]` entry, at time 0 (in the scene's frame;
/// motion moves it rigidly from there).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// `type = "plane"`: infinite; the particles are on the side `normal`
    /// (unit) points to.
    Plane { point: [f64; 3], normal: [f64; 3] },
    /// `type = "cylinder"`: the lateral surface of a circular cylinder (no
    /// end caps). `axis` is unit; finite from `center` to `center + length
    /// * axis` when `length` is given, infinite both ways otherwise.
    Cylinder {
        center: [f64; 3],
        axis: [f64; 3],
        radius: f64,
        length: Option<f64>,
        side: Side,
    },
    /// `type = "cone"`: the lateral surface of a frustum, radius `radius[0]`
    /// at `center` and `radius[1]` at `center + length * axis` (axis unit).
    Cone {
        center: [f64; 3],
        axis: [f64; 3],
        radius: [f64; 2],
        length: f64,
        side: Side,
    },
    /// `type = "mesh"`: triangles read from an STL (or OBJ) file, already
    /// scaled, rotated and translated, degenerate (zero-area) triangles
    /// left out. A particle touches a triangle from either side unless
    /// `one_sided` (then only from the side of the triangle's normal, i.e.
    /// counter-clockwise vertex order).
    Mesh {
        file: PathBuf,
        triangles: Vec<[[f64; 3]; 3]>,
        one_sided: bool,
        /// Degenerate triangles dropped while reading (reported once).
        degenerate: usize,
    },
}

/// `oscillation = { amplitude, frequency, direction }`: a displacement
/// `amplitude * sin(2π frequency t') * direction` (direction unit), t' the
/// time since the motion's start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Oscillation {
    pub amplitude: f64,
    pub frequency: f64,
    pub direction: [f64; 3],
}

/// `[walls.motion]`: a prescribed rigid motion, active from `start` to
/// `stop` (s; the wall rests before and keeps its pose after). The pose at
/// time t, with t' = clamp(t, start, stop) − start: rotation by
/// `angular_velocity * t'` about the line through `axis_point` along
/// `axis` (right-hand rule), then translation by `velocity * t'` plus the
/// oscillation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallMotion {
    pub velocity: [f64; 3],
    pub axis_point: [f64; 3],
    /// Unit.
    pub axis: [f64; 3],
    /// rad/s.
    pub angular_velocity: f64,
    pub oscillation: Option<Oscillation>,
    pub start: f64,
    pub stop: f64,
}

impl Default for WallMotion {
    fn default() -> Self {
        WallMotion {
            velocity: [0.0; 3],
            axis_point: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            angular_velocity: 0.0,
            oscillation: None,
            start: 0.0,
            stop: 1.0e9,
        }
    }
}

/// `[walls.servo]`: the wall moves along `direction` (unit; a plane's
/// normal by default) so that the force it exerts on the particles along
/// that direction reaches `force` (N), at most `max_speed` (m/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Servo {
    pub force: f64,
    pub max_speed: f64,
    pub direction: [f64; 3],
}

/// `[[walls]]`: one piece of equipment.
#[derive(Debug, Clone, PartialEq)]
pub struct Wall {
    /// `name` (walls.csv and `talus check` use it; else `wall<index>`).
    pub name: Option<String>,
    pub shape: Shape,
    pub material: usize,
    pub motion: Option<WallMotion>,
    pub servo: Option<Servo>,
}

impl Wall {
    /// A resting plane wall with its normal scaled to unit length (each
    /// component divided by the length). A zero or non-finite normal is
    /// kept as given for [`Scene::validate`] to report.
    pub fn plane(point: [f64; 3], normal: [f64; 3], material: usize) -> Wall {
        Wall {
            name: None,
            shape: Shape::Plane {
                point,
                normal: unit_or_given(normal),
            },
            material,
            motion: None,
            servo: None,
        }
    }

    /// The plane's point and unit normal, if it is a plane.
    pub fn as_plane(&self) -> Option<([f64; 3], [f64; 3])> {
        match self.shape {
            Shape::Plane { point, normal } => Some((point, normal)),
            _ => None,
        }
    }

    /// The name walls.csv and `talus check` give wall `index`.
    pub fn label(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("wall{index}"))
    }
}

/// `v` scaled to unit length (each component divided by the length), or
/// `v` as given when its length is zero or not finite (left for
/// validation to report).
pub fn unit_or_given(v: [f64; 3]) -> [f64; 3] {
    let n = DVec3::from(v);
    let l = n.length();
    // divided, not `normalize()` (a multiplication by 1 / l): the same
    // bits as the scenes have always had
    if l > 0.0 && l.is_finite() {
        (n / l).to_array()
    } else {
        v
    }
}

/// Which pairs a `[[bonds]]` entry bonds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BondPairs {
    /// Pairs of these two materials (indices into `materials`; either
    /// order).
    Materials([usize; 2]),
    /// Pairs with both centres inside the region.
    Region(Region),
}

/// `[[bonds]]`: parallel bonds (Potyondy & Cundall 2004) formed at time
/// `at` between the pairs `pairs` names whose surfaces are closer than
/// `gap`. A bond is a cylinder of radius `radius_ratio` × the smaller
/// radius between the two centres: normal stiffness per area E/L (L the
/// centres' distance at formation), shear stiffness per area that over
/// `stiffness_ratio`; it carries a force and a moment from the relative
/// motion since it formed and breaks where its stress reaches a strength.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BondSpec {
    pub pairs: BondPairs,
    /// s: when the bonds form (default 0).
    pub at: f64,
    /// m: the surface gap below which a pair bonds.
    pub gap: f64,
    /// The bond's radius over the smaller particle's (default 1).
    pub radius_ratio: f64,
    /// Pa: the normal stiffness per area times L.
    pub youngs_modulus: f64,
    /// Normal over shear stiffness (default 2.5).
    pub stiffness_ratio: f64,
    /// Pa; None: the bond never breaks in tension (or in shear).
    pub tensile_strength: Option<f64>,
    pub shear_strength: Option<f64>,
    /// A fraction of critical damping on the bond's relative motion
    /// (default 0).
    pub damping: f64,
}

/// A region of space (insertion, outlets): `{ min, max }` (a box) or
/// `{ center, axis, radius, length }` (a solid cylinder from `center` to
/// `center + length * axis`, axis unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Region {
    Box {
        min: [f64; 3],
        max: [f64; 3],
    },
    Cylinder {
        center: [f64; 3],
        axis: [f64; 3],
        radius: f64,
        length: f64,
    },
}

impl Region {
    /// Whether `p` lies inside (boundary included).
    pub fn contains(&self, p: [f64; 3]) -> bool {
        match *self {
            Region::Box { min, max } => (0..3).all(|k| p[k] >= min[k] && p[k] <= max[k]),
            Region::Cylinder {
                center,
                axis,
                radius,
                length,
            } => {
                let d = DVec3::from(p) - DVec3::from(center);
                let a = DVec3::from(axis);
                let h = d.dot(a);
                h >= 0.0 && h <= length && (d - h * a).length_squared() <= radius * radius
            }
        }
    }

    /// The axis-aligned bounding box (min, max).
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        match *self {
            Region::Box { min, max } => (min, max),
            Region::Cylinder {
                center,
                axis,
                radius,
                length,
            } => {
                let (c0, a) = (DVec3::from(center), DVec3::from(axis));
                let c1 = c0 + length * a;
                // the disc of radius r normal to a reaches r·sqrt(1 − a_k²) along k
                let e = DVec3::new(
                    (1.0 - a.x * a.x).max(0.0).sqrt(),
                    (1.0 - a.y * a.y).max(0.0).sqrt(),
                    (1.0 - a.z * a.z).max(0.0).sqrt(),
                ) * radius;
                ((c0.min(c1) - e).to_array(), (c0.max(c1) + e).to_array())
            }
        }
    }

    /// Volume (m³).
    pub fn volume(&self) -> f64 {
        match *self {
            Region::Box { min, max } => (0..3).map(|k| (max[k] - min[k]).max(0.0)).product(),
            Region::Cylinder { radius, length, .. } => {
                std::f64::consts::PI * radius * radius * length
            }
        }
    }
}

/// How fast a `[[insert]]` pours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InsertRate {
    /// `rate`: particles per second.
    Count(f64),
    /// `mass_rate`: kg per second (turned into particles per second with
    /// the distribution's mean particle mass).
    Mass(f64),
}

/// `[[insert]]`: particles poured into `region` from `start` to `stop` at
/// `rate`, in batches every `interval`, never overlapping what is there
/// (see `flow::plan`).
#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    pub region: Region,
    pub rate: InsertRate,
    /// Radii (number fractions; `mass_fraction` lists are converted to
    /// number fractions when read).
    pub radius: super::radius::RadiusDist,
    pub material: usize,
    /// m/s, every inserted particle.
    pub velocity: [f64; 3],
    /// s.
    pub start: f64,
    /// s; None: until the run ends.
    pub stop: Option<f64>,
    /// Total cap on the particles this entry inserts.
    pub count: Option<u64>,
    /// s between batches; None: `"auto"` (see `flow::plan::auto_interval`).
    pub interval: Option<f64>,
    /// `shape`: clumps of this `[[shapes]]` entry instead of spheres
    /// (`radius` is then the shape's largest member radius: what the grid
    /// and the time step see).
    pub shape: Option<usize>,
    /// `orientation` of the clumps.
    pub orientation: Orientation,
}

/// `[[insert]] orientation`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Orientation {
    /// `"random"` (the default): uniform over rotations, from the run's
    /// seed.
    #[default]
    Random,
    /// `[w, x, y, z]` (normalised): the shape's frame as written to the
    /// world.
    Fixed([f64; 4]),
}

/// `[[shapes]]`: a rigid clump of spheres particles may take (issue 37).
#[derive(Debug, Clone, PartialEq)]
pub struct ClumpShape {
    pub name: String,
    pub source: ClumpSource,
    /// What the engine moves: members in the principal frame, mass
    /// properties at unit density (resolved when the scene is read).
    pub body: crate::shapes::table::Shape,
}

/// Where a clump's spheres come from.
#[derive(Debug, Clone, PartialEq)]
pub enum ClumpSource {
    /// `spheres = [[x, y, z, r], ...]` in the shape's own frame (m).
    Spheres(Vec<[f64; 4]>),
    /// `file = "mesh.stl"` (a closed surface) filled with `spheres_count`
    /// spheres (`shapes::fill`).
    Mesh {
        file: PathBuf,
        triangles: Vec<super::mesh_file::Triangle>,
        count: usize,
    },
}

/// `[[outlets]]`: particles whose centre enters `region` are removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Outlet {
    /// `name` (flow.csv; else `outlet<index>`).
    pub name: Option<String>,
    pub region: Region,
}

impl Outlet {
    /// The name flow.csv gives outlet `index`.
    pub fn label(&self, index: usize) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("outlet{index}"))
    }
}

/// `[[bodies]]`: a deformable finite-element body (tetrahedra, integrated
/// on the CPU in f64; its surface triangles are a moving mesh wall for the
/// grains). Defaults: `element = "tet10"`, `model = "stvk"`,
/// `integrator = "explicit"`, no velocity, no damping, nothing fixed,
/// `exchange_every = "auto"`, `wall_stiffness = "auto"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// `name` (bodies.csv, `body_<name>_NNNNN.vtu`; else `body<index>`).
    pub name: Option<String>,
    /// Where its tetrahedra come from.
    pub mesh: BodyMesh,
    /// Index into `materials`: density, Young's modulus and Poisson's
    /// ratio of the body; restitution and friction of its contacts with
    /// grains (the pair table, as for a wall).
    pub material: usize,
    pub element: BodyElement,
    pub model: BodyModel,
    pub integrator: BodyIntegrator,
    /// Initial velocity of every node, m/s.
    pub velocity: [f64; 3],
    /// Rayleigh damping C = alpha M + beta K (alpha in 1/s, beta in s).
    pub damping: [f64; 2],
    /// `fixed = [{ min, max }, ...]`: nodes inside any box are clamped.
    pub fixed: Vec<([f64; 3], [f64; 3])>,
    /// Grain steps between two exchanges with the body (None: "auto", from
    /// the body's stable step and the grains' dt).
    pub exchange_every: Option<u32>,
    /// Penalty stiffness of the body's nodes against rigid walls, N/m
    /// (None: "auto", from the material and the mesh size).
    pub wall_stiffness: Option<f64>,
}

impl Body {
    /// A generated box of `divisions` cells of material index `material`
    /// with the scene file's defaults (tet10, St Venant–Kirchhoff,
    /// explicit, at rest, undamped, nothing fixed, K and the wall
    /// stiffness "auto"): the body a `SceneBuilder` adds.
    pub fn generated_box(
        min: [f64; 3],
        max: [f64; 3],
        divisions: [u32; 3],
        material: usize,
    ) -> Body {
        Body {
            name: None,
            mesh: BodyMesh::Box {
                min,
                max,
                divisions,
            },
            material,
            element: BodyElement::Tet10,
            model: BodyModel::Stvk,
            integrator: BodyIntegrator::Explicit,
            velocity: [0.0; 3],
            damping: [0.0, 0.0],
            fixed: Vec::new(),
            exchange_every: None,
            wall_stiffness: None,
        }
    }

    /// The name bodies.csv and the VTU files give body `index`.
    pub fn label(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("body{index}"))
    }
}

/// `mesh = "file.msh"` (Gmsh MSH 4.1, relative to the scene file) or
/// `generator = "box"` with `min`, `max`, `divisions`.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyMesh {
    File(PathBuf),
    Box {
        min: [f64; 3],
        max: [f64; 3],
        divisions: [u32; 3],
    },
}

/// The `.msh` files a scene's bodies name, each read once, by path: the
/// tetrahedra as the file gives them (before the body's `element` kind is
/// applied). [`Scene::load`] and [`crate::scene::SceneBuilder::build`]
/// fill it before validating ([`Scene::read_mesh_files`]), so that the
/// checks, the time step and the run's set-up all use the same read and
/// no later step touches the file again. A file that could not be read is
/// absent: validation reads it then, to report it at the body's `mesh` key.
/// Shared (`Arc`): cloning a scene does not copy its meshes.
#[derive(Clone, Default, PartialEq)]
pub struct MeshFiles(BTreeMap<PathBuf, Arc<MshTets>>);

impl MeshFiles {
    /// The tetrahedra read from `path`, if it was read.
    pub fn get(&self, path: &Path) -> Option<&MshTets> {
        self.0.get(path).map(|m| &**m)
    }

    /// Whether `path` was read.
    pub fn contains(&self, path: &Path) -> bool {
        self.0.contains_key(path)
    }

    /// Keeps `mesh` as what `path` holds.
    pub fn insert(&mut self, path: PathBuf, mesh: MshTets) {
        self.0.insert(path, Arc::new(mesh));
    }

    /// Keeps only the files `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&Path) -> bool) {
        self.0.retain(|p, _| keep(p));
    }

    /// How many files are held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Each file with its counts, not its coordinates (a scene's `Debug` stays
/// readable).
impl std::fmt::Debug for MeshFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(p, m)| {
                (
                    p.display().to_string(),
                    format!("{} nodes, {} tetrahedra", m.nodes.len(), m.tets.len()),
                )
            }))
            .finish()
    }
}

/// `element`: "tet4" (linear: cheap, stiff in bending, locks) or "tet10"
/// (quadratic: accurate in bending at modest meshes). A linear mesh file
/// read with "tet10" gets mid-edge nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyElement {
    Tet4,
    Tet10,
}

/// `model`: "stvk" (St Venant–Kirchhoff: large rotations, frame
/// invariant) or "linear" (small strain: rotations create strain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyModel {
    Stvk,
    Linear,
}

/// `integrator`: "explicit" (central difference, lumped mass; the
/// coupling partner of the grains) or "energy_momentum" (implicit
/// mid-point, seed 001: energy and momentum conserving).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyIntegrator {
    Explicit,
    EnergyMomentum,
}

/// One `[[particles]]` source.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    /// e.g. `particles[1] (lattice)`.
    pub label: String,
    /// Generated particles may not overlap at all; file particles may touch.
    pub generated: bool,
}

/// A whole scene, particles generated.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub name: String,
    /// The file it was read from (None when built in code).
    pub file: Option<PathBuf>,
    pub simulation: Simulation,
    pub domain: Domain,
    pub contact: Contact,
    pub materials: Vec<Material>,
    pub interactions: Vec<Interaction>,
    pub particles: Vec<ParticleInit>,
    pub walls: Vec<Wall>,
    /// `[[insert]]` entries, in order.
    pub inserts: Vec<Insert>,
    /// `[[outlets]]` entries, in order.
    pub outlets: Vec<Outlet>,
    /// `[[bodies]]` entries, in order.
    pub bodies: Vec<Body>,
    /// `[[shapes]]` entries, in order.
    pub shapes: Vec<ClumpShape>,
    /// The particle sources, in order.
    pub sources: Vec<SourceInfo>,
    /// TOML line of each key path, for error messages.
    pub key_lines: HashMap<String, usize>,
    /// The bodies' `.msh` files as read when the scene was loaded (empty
    /// for a scene only parsed, or without mesh files).
    pub mesh_files: MeshFiles,
    /// `[[fixed]]` regions, in order: the particles whose centre is inside
    /// one at t = 0 are held still for the whole run.
    pub fixed: Vec<Region>,
    /// `[[bonds]]` entries, in order.
    pub bonds: Vec<BondSpec>,
    /// Held materials, once [`Scene::hold_fixed`] has run (the set-up does):
    /// the last `held.len()` entries of `materials` are copies of
    /// `materials[held[k]]` that the particles held by `[[fixed]]` were
    /// given, and integrate leaves every particle of such a material where
    /// it is, at rest. Empty in a scene as read.
    pub held: Vec<usize>,
}

impl Scene {
    /// The index of the first held material (`materials.len()` when none
    /// is): materials from it on are held (`[[fixed]]`).
    pub fn held_from(&self) -> usize {
        self.materials.len() - self.held.len()
    }

    /// The material a held copy stands for (itself for any other).
    pub fn base_material(&self, m: usize) -> usize {
        let from = self.held_from();
        if m >= from {
            self.held[m - from]
        } else {
            m
        }
    }

    /// Holds the particles `[[fixed]]` names: each sphere whose centre is
    /// inside a fixed region gets a held copy of its material (appended to
    /// `materials`, the same name and properties) and zero velocity and
    /// spin. Done once (a scene already resolved is returned as it is);
    /// the set-up calls it, so every backend, rank and resumed run holds
    /// the same particles. Clumps are not held (validation refuses a fixed
    /// region over one's centre).
    pub fn hold_fixed(mut self) -> Scene {
        if self.fixed.is_empty() || !self.held.is_empty() {
            return self;
        }
        let n = self.materials.len();
        let mut copy: Vec<Option<usize>> = vec![None; n];
        for p in &mut self.particles {
            if p.shape.is_some() || !self.fixed.iter().any(|r| r.contains(p.position)) {
                continue;
            }
            let m = p.material;
            let c = *copy[m].get_or_insert_with(|| {
                self.materials.push(self.materials[m].clone());
                self.held.push(m);
                self.materials.len() - 1
            });
            p.material = c;
            p.velocity = [0.0; 3];
            p.angular_velocity = [0.0; 3];
        }
        self
    }
}

impl Scene {
    /// An error located at `key` (line looked up when the scene has a file).
    pub fn error(&self, key: &str, message: impl Into<String>) -> SceneError {
        let line = self.key_lines.get(key).copied().or_else(|| {
            // fall back to the enclosing table: "materials[0].density" -> "materials[0]"
            let mut k = key;
            while let Some(pos) = k.rfind(['.', '[']) {
                k = &k[..pos];
                if let Some(l) = self.key_lines.get(k) {
                    return Some(*l);
                }
            }
            None
        });
        SceneError {
            file: self.file.clone(),
            line,
            key: key.to_string(),
            message: message.into(),
        }
    }

    pub fn material_index(&self, name: &str) -> Option<usize> {
        self.materials.iter().position(|m| m.name == name)
    }

    /// A particle's mass: a sphere's, or its clump's (the shape's volume
    /// at the material's density).
    pub fn particle_mass(&self, p: &ParticleInit) -> f64 {
        let rho = self.materials[p.material].density;
        match p.shape {
            Some(s) => rho * self.shapes[s].body.volume,
            None => {
                let r = p.radius;
                rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r
            }
        }
    }

    pub fn total_mass(&self) -> f64 {
        self.particles.iter().map(|p| self.particle_mass(p)).sum()
    }

    /// Every particle's [x, y, z, radius], in order (what the pair search
    /// and the wall checks take).
    pub fn pos_rad(&self) -> Vec<[f64; 4]> {
        self.particles
            .iter()
            .map(|p| [p.position[0], p.position[1], p.position[2], p.radius])
            .collect()
    }

    /// The `[[shapes]]` bodies in order (a clump's members in its
    /// principal frame, its moments): what both backends move clumps by.
    pub fn shape_bodies(&self) -> Vec<crate::shapes::table::Shape> {
        self.shapes.iter().map(|s| s.body.clone()).collect()
    }

    /// Every particle's spheres, [x, y, z, radius], in order: a sphere's
    /// one, a clump's members at its pose; with the index of the particle
    /// each belongs to (what the overlap and wall checks take: a clump's
    /// members never count against each other).
    pub fn member_spheres(&self) -> (Vec<[f64; 4]>, Vec<usize>) {
        use crate::shapes::table::written;
        if self.particles.iter().all(|p| p.shape.is_none()) {
            return (self.pos_rad(), (0..self.particles.len()).collect());
        }
        let (mut pos, mut owner) = (Vec::new(), Vec::new());
        for (i, p) in self.particles.iter().enumerate() {
            match p.shape {
                None => {
                    pos.push([p.position[0], p.position[1], p.position[2], p.radius]);
                    owner.push(i);
                }
                Some(s) => {
                    let body = &self.shapes[s].body;
                    let q = body.engine_orientation(written(p.orientation));
                    for mut m in body.members_at(glam::DVec3::from(p.position), q) {
                        let mut x = [m[0], m[1], m[2]];
                        self.domain.wrap(&mut x);
                        m[..3].copy_from_slice(&x);
                        pos.push(m);
                        owner.push(i);
                    }
                }
            }
        }
        (pos, owner)
    }

    /// (smallest, largest) radius of the particles present at the start
    /// and of every `[[insert]]`'s distribution: what the grid, the skin
    /// and the walls' reach are sized for; (0, 0) without either.
    pub fn radius_range(&self) -> (f64, f64) {
        let parts = self.particles.iter().map(|p| (p.radius, p.radius));
        let ins = self
            .inserts
            .iter()
            .map(|i| (i.radius.min(), i.radius.max()));
        let (lo, hi) = parts
            .chain(ins)
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), (a, b)| {
                (lo.min(a), hi.max(b))
            });
        if lo.is_finite() {
            (lo, hi)
        } else {
            (0.0, 0.0)
        }
    }

    /// The neighbour-list skin the run will use (auto resolved).
    pub fn skin(&self) -> f64 {
        match self.simulation.neighbour_skin {
            Some(s) => s,
            None => AUTO_SKIN_DIAMETERS * 2.0 * self.radius_range().0,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::types::Wall;

    /// `Wall::plane` (glam) gives the bits of the hand-written division it
    /// replaced, for unit and non-unit normals.
    #[test]
    fn wall_normal_bits_match_component_division() {
        let old = |n: [f64; 3]| {
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if l > 0.0 && l.is_finite() {
                [n[0] / l, n[1] / l, n[2] / l]
            } else {
                n
            }
        };
        let mut normals = vec![
            [0.0, 0.0, 1.0],
            [-1.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [0.3, -2.0, 7.0],
            [0.0, 0.0, 0.0],
            [f64::NAN, 1.0, 0.0],
            [1e-300, 1e-300, 0.0],
        ];
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..10_000 {
            let mut n = [0.0; 3];
            for c in &mut n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *c = (x >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0;
            }
            normals.push(n);
        }
        for n in normals {
            let got = Wall::plane([0.0; 3], n, 0).as_plane().unwrap().1;
            let want = old(n);
            assert_eq!(
                got.map(f64::to_bits),
                want.map(f64::to_bits),
                "normal {n:?}"
            );
        }
    }
}
