//! Rust twins of the structs in `shaders/common.wgsl`. `tests/shaders.rs`
//! checks with naga that sizes and field offsets agree.

use crate::grid::MAX_LEVELS;
use bytemuck::{Pod, Zeroable};

/// Invocations per workgroup of every kernel (`WG`; `kernel::groups`).
pub const WG: u32 = 256;
/// "None" in a u32 word (`NONE`: no error, not frozen).
pub const NONE: u32 = u32::MAX;
/// Words of `ctl` (`CTL_LEN` in common.wgsl).
pub const CTL_LEN: usize = 20;
/// Indices into `ctl` (`CTL_*` in common.wgsl).
pub const CTL_STEP: usize = 0;
pub const CTL_FROZEN: usize = 1;
pub const CTL_ERR_OVERLAP: usize = 2;
pub const CTL_KEPT: usize = 3;
pub const CTL_ERR_NONFINITE: usize = 4;
pub const CTL_MAX_OVERLAP: usize = 5;
pub const CTL_REBUILD: usize = 6;
pub const CTL_BUILDS: usize = 7;
pub const CTL_LIST_LEN: usize = 8;
pub const CTL_LIST_NEED: usize = 9;
pub const CTL_LIST_CAP: usize = 10;
/// Active particles: indices `0..count` of the per-particle buffers,
/// which hold `Params::sizes[0]` (the capacity).
pub const CTL_COUNT: usize = 11;
/// The id the next inserted particle gets (ids are never reused).
pub const CTL_NEXT_ID: usize = 12;
// Word 13 is unused: the list's row count, which nothing reads since the
// kept table (2026-11-28); checkpoints keep their layout.
/// The step whose contact stage reduces the wall loads (the last of an
/// `advance`: what walls.csv reads), besides every step when a wall has a
/// servo.
pub const CTL_LOADS_AT: usize = 14;
/// Records in the flow log (`GpuData::flow_log`): the cursor the
/// insertion and outlet kernels append through (`atomicAdd`); the host
/// reads it with the other words at the end of `advance` and resets it.
pub const CTL_LOG: usize = 15;
/// Particles in the grid's large levels (`Params::level_count[1]` of
/// them, coarsest first): the first this many in cell order, set by each
/// list build. Their rows (hundreds to thousands of entries) go through
/// `contacts_large`, a workgroup per row, not a thread; 0 before the first
/// build (every row then takes the thread path: still right).
pub const CTL_LARGE: usize = 16;
/// Entries of the previous list with history a build keeps (to move their
/// history into the new list), the kept table's capacity, and what a build
/// needed beyond it (0: none; the build froze, the host grows the table).
pub const CTL_KEPT_LEN: usize = 17;
pub const CTL_KEPT_CAP: usize = 18;
pub const CTL_KEPT_NEED: usize = 19;

/// A [`FlowRecord`]'s `kind` flag: a removal (by the outlet in the low
/// bits), else an insertion (by the `[[insert]]` entry in the low bits).
pub const LOG_REMOVED: u32 = 0x8000_0000;
/// [`OutletRegion::kind`]: removed when the centre is inside the box
/// `a..b` / inside the cylinder (`a`: centre and radius, `b`: unit axis
/// and length) / outside the box `a..b` (the open domain).
pub const OUTLET_BOX: u32 = 0;
pub const OUTLET_CYLINDER: u32 = 1;
pub const OUTLET_OUTSIDE: u32 = 2;

/// Per scene wall, the u32 words of its load's exact sums on the device
/// (`wall_acc`): force and torque, 4 words per component (a 128-bit
/// integer in units of 2⁻⁸⁰, `crate::sums::Exact`), then an error word.
pub const WALL_ACC_WORDS: u32 = 25;

/// Per particle, the u32 words of its pair sums on the device (`acc`):
/// force and torque x, y, z as 64-bit fixed point (word pairs lo, hi,
/// [`Sums`](crate::sums)' units), then its halves of the pairs' elastic and
/// dissipated energy the same way. Each pair is evaluated once and adds to
/// both partners by integer atomics: exact, so the sum is the same in any
/// order. The error bits (a term out of range) are in `acc_bad`, two bits
/// a particle (force and torque; energy).
pub const ACC_WORDS: u32 = 16;

/// On a run of several ranks, the top bit of a motion record's material
/// word: the particle is a copy of one another rank owns (a ghost). Its
/// pairs are evaluated (its owner's partners need them), but it is not
/// integrated and no sum over particles (wall loads, energies) counts it.
pub const GHOST: u32 = 0x8000_0000;

/// Words of a ghost's refresh row (`shaders/ghosts.wgsl`): the f32
/// position, the motion record, the fixed-point position.
pub const GHOST_WORDS: u32 = 4 + 16 + FX_WORDS as u32;

/// Words a ghost's refresh row adds in a run with clumps: its part in a
/// clump (`MemberRow`: lever, body, member).
pub const GHOST_PART_WORDS: u32 = 8;

/// Words of a fixed-point position on the device (`pos_fx`): x, y, z as
/// (hi, lo) u32 pairs of a biased 64-bit integer (`data::FixedPoint`).
pub const FX_WORDS: usize = 6;

/// A fixed-point position's words.
pub type FixedWords = [u32; FX_WORDS];

/// Workgroups of the large particles' kernels (`contacts_large`, and the
/// build's `*_large`): each takes every this-many-th large particle's row
/// (enough to fill a GPU while few rows are long; a workgroup with no row
/// left returns at once).
pub const LARGE_GROUPS: u32 = 256;

/// When the arming (`slot_groups`) gives an indirect dispatch its workgroups
/// ([`ArgSlot::when`]): on a step that rebuilds the neighbour list, on
/// every step, or on a step that wants the wall loads (every step with a
/// servo, else the last of an `advance`). Any other step gets zero: no
/// workgroup launches, where a direct dispatch of a kernel that returns at
/// once still costs a launch (~50 µs each on lavapipe).
pub const ARM_REBUILD: u32 = 0;
pub const ARM_ALWAYS: u32 = 1;
pub const ARM_LOADS: u32 = 2;
/// Per workgroup, the u32 words of the diagnostics' partial (`partials`):
/// five energies as 4-word exact sums, an error word, the largest speed's
/// f32 bits.
pub const DIAG_WORDS: u32 = 22;

/// Every constant `shaders/common.wgsl` shares with Rust, by its WGSL
/// name: `tests/shaders.rs` checks that each WGSL `const` there has this
/// value and that nothing here is missing from the WGSL (no constant is
/// kept in agreement by a comment).
pub fn shared_constants() -> Vec<(&'static str, u32)> {
    use crate::state::{HAS_HISTORY, INDEX, WALL};
    use crate::walls::Kind;
    vec![
        ("WG", WG),
        ("MAX_LEVELS", MAX_LEVELS as u32),
        ("NONE", NONE),
        ("ROLLING_SHARE", crate::pair::ROLLING_SHARE),
        ("CTL_STEP", CTL_STEP as u32),
        ("CTL_FROZEN", CTL_FROZEN as u32),
        ("CTL_ERR_OVERLAP", CTL_ERR_OVERLAP as u32),
        ("CTL_KEPT", CTL_KEPT as u32),
        ("CTL_ERR_NONFINITE", CTL_ERR_NONFINITE as u32),
        ("CTL_MAX_OVERLAP", CTL_MAX_OVERLAP as u32),
        ("CTL_REBUILD", CTL_REBUILD as u32),
        ("CTL_BUILDS", CTL_BUILDS as u32),
        ("CTL_LIST_LEN", CTL_LIST_LEN as u32),
        ("CTL_LIST_NEED", CTL_LIST_NEED as u32),
        ("CTL_LIST_CAP", CTL_LIST_CAP as u32),
        ("CTL_COUNT", CTL_COUNT as u32),
        ("CTL_NEXT_ID", CTL_NEXT_ID as u32),
        ("CTL_LOADS_AT", CTL_LOADS_AT as u32),
        ("CTL_LOG", CTL_LOG as u32),
        ("CTL_LARGE", CTL_LARGE as u32),
        ("CTL_KEPT_LEN", CTL_KEPT_LEN as u32),
        ("CTL_KEPT_CAP", CTL_KEPT_CAP as u32),
        ("CTL_KEPT_NEED", CTL_KEPT_NEED as u32),
        ("LOG_REMOVED", LOG_REMOVED),
        ("OUTLET_BOX", OUTLET_BOX),
        ("OUTLET_CYLINDER", OUTLET_CYLINDER),
        ("OUTLET_OUTSIDE", OUTLET_OUTSIDE),
        ("CTL_LEN", CTL_LEN as u32),
        ("WALL_ACC_WORDS", WALL_ACC_WORDS),
        ("ACC_WORDS", ACC_WORDS),
        ("FX_WORDS", FX_WORDS as u32),
        ("GHOST", GHOST),
        ("GHOST_WORDS", GHOST_WORDS),
        ("GHOST_PART_WORDS", GHOST_PART_WORDS),
        ("DIAG_WORDS", DIAG_WORDS),
        ("ARM_REBUILD", ARM_REBUILD),
        ("ARM_ALWAYS", ARM_ALWAYS),
        ("ARM_LOADS", ARM_LOADS),
        ("HAS_HISTORY", HAS_HISTORY),
        ("INDEX", INDEX),
        ("WALL", WALL),
        ("COHESION_SJKR", crate::scene::Cohesion::Sjkr.code()),
        ("COHESION_SJKR2", crate::scene::Cohesion::Sjkr2.code()),
        ("COHESION_JKR", crate::scene::Cohesion::Jkr.code()),
        ("JKR_NEWTON_STEPS", crate::pair::JKR_NEWTON_STEPS),
        ("ROLLING_CDT", crate::scene::Rolling::Cdt.code()),
        ("ROLLING_EPSD", crate::scene::Rolling::Epsd.code()),
        ("ROLLING_EPSD2", crate::scene::Rolling::Epsd2.code()),
        ("WALL_PLANE", Kind::Plane.tag()),
        ("WALL_CYLINDER", Kind::Cylinder.tag()),
        ("WALL_CONE", Kind::Cone.tag()),
        ("WALL_TRIANGLE", Kind::Triangle.tag()),
    ]
}

/// The shaders' `Params` uniform.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct Params {
    /// xyz: the domain's lower corner; w: `grid::REACH_SLACK`.
    pub grid_min: [f32; 4],
    /// xyz: the domain's lengths; w: `grid::PERIOD_SLACK`.
    pub grid_len: [f32; 4],
    /// x: the grid's levels (`grid::Grid::n_levels`); y: how many of
    /// them are large (`grid::Grid::large_levels`: their particles' rows go
    /// through `contacts_large`); z: the words of a particle's work record
    /// (`GpuData::acc`: `data::work_words`, set for the device); w unused.
    pub level_count: [u32; 4],
    /// xyz gravity, w dt.
    pub gravity_dt: [f32; 4],
    /// x: the clumps (their table's length, `GpuData::clumps`; 0: none,
    /// and no kernel reads a `clump_row`); y: the bonds (their table's
    /// length); z: 1 when the scene has `[[bonds]]` (every row's pair
    /// sums go through its work record); w: the cells of all levels.
    pub dims: [u32; 4],
    /// periodic x, y, z; w: model (0 Hertz–Mindlin, 1 linear).
    pub periodic: [u32; 4],
    /// particle capacity, scene walls (bodies), wall primitives, materials.
    pub sizes: [u32; 4],
    /// linear stiffness (0: none), contact time (0: none), k_t/k_n, overlap limit.
    pub linear: [f32; 4],
    /// x: Verlet skin (m), y: (skin / 2)², the squared displacement that
    /// triggers a rebuild; z: 1 when some wall has a servo (the wall loads
    /// are reduced every step), else 0; w: 1 when some wall moves.
    pub nbr: [f32; 4],
    /// xyz: the unit axis gravity turns about; w: its rate (rad/s; 0: fixed).
    pub gravity_rot: [f32; 4],
    /// The turns' schedule (`GravityRotation`): x: start (s), y: seconds a
    /// turn takes (< 0: it never stops), z: their period (s; 0: once).
    pub gravity_turn: [f32; 4],
    /// x: the cohesion model (`scene::Cohesion::code`: 0 none, 1 sjkr, 2
    /// sjkr2); y: the first held material (`Scene::held_from`: integrate
    /// leaves particles of a material from it on at rest); z, w unused.
    pub models: [u32; 4],
    /// x: how far past touching (m) an entry with history is still
    /// evaluated (`pair::stage_reach`: the skin in a JKR run, 0
    /// otherwise); y, z, w unused.
    pub contact: [f32; 4],
    /// The pair sums' fixed point (`shaders/contacts.wgsl`, `Sums`): x
    /// units per newton ([`crate::sums::force_unit`]), y units per newton
    /// metre ([`crate::sums::torque_unit`]), z = 1 / x, w = 1 / y.
    pub sums: [f32; 4],
    /// The grid's levels, coarsest first (`level_count` used).
    pub levels: [GridLevel; MAX_LEVELS],
}

impl Params {
    /// Whether the run's rolling model keeps a torque per contact
    /// (`models.z`: `epsd`, `epsd2`), so the history holds it
    /// (`pages::hist_bytes`).
    pub fn keeps_rolling_torque(&self) -> bool {
        self.models[2] != crate::scene::Rolling::Cdt.code()
    }
}

/// One level of the broad-phase grid (`grid::Level`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct GridLevel {
    /// xyz: 1 / cell edge; w: H, the largest half cutoff it holds.
    pub inv_cell: [f32; 4],
    /// nx, ny, nz; w: the key of its first cell.
    pub dims: [u32; 4],
}

/// One entry of the material-pair table.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct Pair {
    pub e_star: f32,
    pub g_star: f32,
    pub restitution: f32,
    pub beta: f32,
    pub friction: f32,
    pub rolling_friction: f32,
    pub damp_n: f32,
    pub damp_t: f32,
    /// The cohesion energy density, J/m³ (`cohesion_energy_density`).
    pub cohesion: f32,
    /// The `epsd` rolling dashpot (`rolling_viscous_damping`).
    pub rolling_damping: f32,
    /// JKR's work of adhesion, J/m² (`surface_energy`).
    pub surface_energy: f32,
    pub pad: f32,
}

impl Pair {
    /// The f32 twin of one material pair.
    pub fn from_params(p: &crate::pair::PairParams) -> Pair {
        Pair {
            e_star: p.e_star as f32,
            g_star: p.g_star as f32,
            restitution: p.restitution as f32,
            beta: p.beta as f32,
            friction: p.friction as f32,
            rolling_friction: p.rolling_friction as f32,
            damp_n: p.damp_n as f32,
            damp_t: p.damp_t as f32,
            cohesion: p.cohesion_energy_density as f32,
            rolling_damping: p.rolling_damping as f32,
            surface_energy: p.surface_energy as f32,
            pad: 0.0,
        }
    }
}

/// A wall primitive: `walls::Primitive` in f32, the same fields (`Wall`
/// in `shaders/common.wgsl`; its gap to a sphere in `shaders/walls.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct Wall {
    pub a: [f32; 4],
    pub b: [f32; 4],
    pub c: [f32; 4],
    /// `walls::Kind::tag`.
    pub kind: u32,
    pub material: u32,
    /// The scene wall it belongs to.
    pub wall: u32,
    pub pad: u32,
}

impl Wall {
    /// The f32 twin of a primitive.
    pub fn from_primitive(p: &crate::walls::Primitive) -> Wall {
        let f = |v: [f64; 4]| v.map(|x| x as f32);
        Wall {
            a: f(p.a),
            b: f(p.b),
            c: f(p.c),
            kind: p.kind.tag(),
            material: p.material,
            wall: p.wall,
            pad: 0,
        }
    }
}

/// A scene wall's prescribed motion and servo, static (`WallMotion` in
/// `shaders/common.wgsl`; the f64 twin is `scene::WallMotion` and
/// `scene::Servo`, the pose they give in `walls::motion`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct WallMotion {
    /// xyz: the rotation axis' point; w: angular velocity (rad/s).
    pub axis_point: [f32; 4],
    /// xyz: the unit rotation axis; w: the motion's start (s).
    pub axis: [f32; 4],
    /// xyz: translation velocity (m/s); w: the motion's stop (s).
    pub velocity: [f32; 4],
    /// xyz: oscillation direction × amplitude (m); w: 2π × frequency.
    pub oscillation: [f32; 4],
    /// xyz: the servo's unit direction; w: its target force (N; 0: none).
    pub servo: [f32; 4],
    /// x: the servo's max speed (m/s); y: the largest distance of the
    /// wall's geometry from the axis point within the domain (m; bounds a
    /// rotation's displacement); z: 1 when the wall moves at all, else 0.
    pub extra: [f32; 4],
}

/// A scene wall's pose at the current step, written on the device by
/// `wall_motion` (`WallPose` in `shaders/common.wgsl`; `walls::Pose` is
/// the f64 twin). World x = origin + R(angle)(x_body − axis_point).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct WallPose {
    /// xyz: the moved axis point (axis point + translation); w: angle.
    pub origin: [f32; 4],
    /// x: cos(angle), y: sin(angle), z: 1 when not the identity.
    pub rot: [f32; 4],
    /// xyz: translation velocity (servo included).
    pub velocity: [f32; 4],
    /// xyz: angular velocity vector.
    pub omega: [f32; 4],
    /// x: the servo's displacement along its direction, y: its velocity.
    pub servo: [f32; 4],
    /// xyz: the translation at the last list build; w: the angle then.
    pub built: [f32; 4],
    /// xyz: the force the particles exert on the wall (at the last step
    /// that reduced it); w: its step.
    pub force: [f32; 4],
    /// xyz: their torque about `origin`.
    pub torque: [f32; 4],
}

/// One outlet's test (`OutletRegion` in `shaders/common.wgsl`), the f32
/// twin of a `flow::OutletShape`, in `OutletSet` order (the open domain
/// last); `integrate` marks a particle whose new centre the first of them
/// takes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct OutletRegion {
    /// Box: min (xyz). Cylinder: the centre of its base (xyz), radius (w).
    pub a: [f32; 4],
    /// Box: max (xyz). Cylinder: unit axis (xyz), length (w).
    pub b: [f32; 4],
    /// [`OUTLET_BOX`], [`OUTLET_CYLINDER`] or [`OUTLET_OUTSIDE`].
    pub kind: u32,
    pub pad: [u32; 3],
}

impl OutletRegion {
    /// The f32 twin of an outlet (infinite bounds become ±`f32::MAX`,
    /// which every finite coordinate lies within).
    pub fn from_shape(s: &crate::flow::OutletShape) -> OutletRegion {
        use crate::flow::OutletShape;
        use crate::scene::Region;
        let f = |v: [f64; 3], w: f64| {
            let c = |x: f64| (x as f32).clamp(-f32::MAX, f32::MAX);
            [c(v[0]), c(v[1]), c(v[2]), w as f32]
        };
        let (a, b, kind) = match *s {
            OutletShape::Inside(Region::Box { min, max }) => (f(min, 0.0), f(max, 0.0), OUTLET_BOX),
            OutletShape::Inside(Region::Cylinder {
                center,
                axis,
                radius,
                length,
            }) => (f(center, radius), f(axis, length), OUTLET_CYLINDER),
            OutletShape::Outside { min, max } => (f(min, 0.0), f(max, 0.0), OUTLET_OUTSIDE),
        };
        OutletRegion {
            a,
            b,
            kind,
            pad: [0; 3],
        }
    }
}

/// One record of the flow log (`FlowRecord` in `shaders/common.wgsl`): a
/// particle inserted (`kind` = its entry) or removed (`kind` =
/// [`LOG_REMOVED`] | its outlet) at the start of step `step`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct FlowRecord {
    pub id: u32,
    pub kind: u32,
    pub step: u32,
    /// A removal's mass (f32 bits; an insertion's comes from the host's
    /// f64 candidate), or an insertion's candidate (`InsertBatch::tag` +
    /// its index in the batch: the host's list of the candidates uploaded
    /// since the log was last read).
    pub mass_or_cand: u32,
    /// A removal's energy (as diagnostics counts it).
    pub energy: f32,
}

/// One insertion batch of a submission (`InsertBatch` in
/// `shaders/flow.wgsl`): its candidates `first..first + count` of the
/// candidate buffers, the entry, its cumulative target and index; a clump
/// batch's members and records too.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct InsertBatch {
    pub step: u32,
    pub first: u32,
    pub count: u32,
    pub entry: u32,
    /// The entry's cumulative target after it (`ScheduledBatch::target`).
    pub goal: u32,
    /// Its index among the entry's batches (a batch whose index is below
    /// the entry's batches done is not applied again: a step re-run after
    /// a list growth).
    pub index: u32,
    /// Index of its first candidate in the host's list (`FlowRecord::cand`).
    pub tag: u32,
    /// Rows a candidate places: 1 for a sphere, a clump's members.
    pub members: u32,
    /// A clump batch's member rows in the candidate buffers: candidate c's
    /// member j at `rows_at + c · members + j` (a sphere batch: its own
    /// candidates', `first`).
    pub rows_at: u32,
    /// A clump batch's records (`Clump`) in the clump candidates' buffer:
    /// candidate c's at `clump_at + c`; `NONE`: a sphere batch.
    pub clump_at: u32,
    pub pad: [u32; 2],
}

impl InsertBatch {
    /// A batch of spheres (members and records: none).
    pub fn spheres(
        step: u32,
        first: u32,
        count: u32,
        entry: u32,
        goal: u32,
        index: u32,
        tag: u32,
    ) -> Self {
        InsertBatch {
            step,
            first,
            count,
            entry,
            goal,
            index,
            tag,
            members: 1,
            rows_at: first,
            clump_at: NONE,
            pad: [0; 2],
        }
    }
}

/// Where a scene wall's primitives are and how a particle finds the ones
/// near it (`WallInfo` in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct WallInfo {
    /// A mesh's grid in the wall's body frame: xyz its lower corner, w
    /// 1 / cell edge.
    pub grid_min: [f32; 4],
    /// xyz: cells along x, y, z (0 for analytic walls: every particle tests
    /// its primitives); w: offset of the mesh's cell starts in `mesh_start`.
    pub grid_dims: [u32; 4],
    /// x: first primitive, y: one past the last; z, w: unused.
    pub prims: [u32; 4],
}

/// The deforming surfaces' uniform (`SurfInfo` in `shaders/common.wgsl`;
/// `gpu::surfaces`): what `move_surfaces`, `mark_surfaces_built` and the
/// contact stage need besides the node and triangle tables.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct SurfInfo {
    /// x: surface nodes, y: surface triangles, z: the current interval's
    /// start (step0, a step count), w: unused.
    pub sizes: [u32; 4],
    /// x: the force words' unit per newton (a power of two: the fixed
    /// point is round-toward-zero(f · x)), y: its inverse; z, w: unused.
    pub scale: [f32; 4],
}

#[cfg(feature = "test-kernels")]
/// One input of the wall twin test (`WallCase` in
/// `shaders/wall_eval.wgsl`; `gpu::wall_eval::WallEval`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct WallCase {
    pub wall: Wall,
    pub motion: WallMotion,
    /// xyz: the point; w: `on_triangle`'s tolerance.
    pub x: [f32; 4],
    /// x: time; y: servo displacement; z: servo velocity; w: unused.
    pub t: [f32; 4],
}

#[cfg(feature = "test-kernels")]
/// What `wall_eval` finds for a [`WallCase`] (`WallOut` in
/// `shaders/wall_eval.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct WallOut {
    /// `wall_gap`: normal xyz, dist w.
    pub gap: [f32; 4],
    /// x: the feature; y: `on_triangle` (1 or 0).
    pub flags: [u32; 4],
    /// `pose_at`.
    pub pose: WallPose,
    /// `to_body(x)`.
    pub body: [f32; 4],
    /// `dir_to_world(x)`.
    pub dir: [f32; 4],
    /// `wall_velocity_at(x)`.
    pub vel: [f32; 4],
}

impl WallMotion {
    /// The lanes of a scene wall's motion (`None`: it rests,
    /// `scene::WallMotion::default()`) and servo, with `reach`
    /// (`walls::reach`); `extra.z` is 1 when either is given.
    pub fn from_scene(
        motion: Option<&crate::scene::types::WallMotion>,
        servo: Option<&crate::scene::types::Servo>,
        reach: f64,
    ) -> WallMotion {
        let m = motion.copied().unwrap_or_default();
        let f = |v: [f64; 3], w: f64| [v[0] as f32, v[1] as f32, v[2] as f32, w as f32];
        let (osc, w) = match m.oscillation {
            Some(o) => (
                o.direction.map(|d| d * o.amplitude),
                2.0 * std::f64::consts::PI * o.frequency,
            ),
            None => ([0.0; 3], 0.0),
        };
        let (sdir, sforce, sspeed) = match servo {
            Some(s) => (s.direction, s.force, s.max_speed),
            None => ([0.0; 3], 0.0, 0.0),
        };
        WallMotion {
            axis_point: f(m.axis_point, m.angular_velocity),
            axis: f(m.axis, m.start),
            velocity: f(m.velocity, m.stop),
            oscillation: f(osc, w),
            servo: f(sdir, sforce),
            extra: [
                sspeed as f32,
                reach as f32,
                (motion.is_some() || servo.is_some()) as u32 as f32,
                0.0,
            ],
        }
    }
}

#[cfg(feature = "test-kernels")]
/// One contact for the law alone (`LawCase` in `shaders/law_eval.wgsl`),
/// in the canonical orientation a → b.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct LawCase {
    pub pair: Pair,
    /// The two bodies' motion records (`state::Motion<f32>`).
    pub a: [[f32; 4]; 4],
    pub b: [[f32; 4]; 4],
    /// a's radius, b's radius (< 0: b is a wall), overlap, unused.
    pub radii: [f32; 4],
    /// xyz: unit normal from a to b.
    pub normal: [f32; 4],
    /// Stored ξ (xyz) and last k_t (w); zero: a first contact.
    pub hist: [f32; 4],
    /// Stored rolling torque (xyz; epsd, epsd2), 0.
    pub roll: [f32; 4],
}

#[cfg(feature = "test-kernels")]
/// What the law returns for a [`LawCase`] (`LawOut` in law_eval.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct LawOut {
    pub force_a: [f32; 4],
    pub torque_a: [f32; 4],
    pub torque_b: [f32; 4],
    /// ξ (xyz), k_t (w).
    pub xi_kt: [f32; 4],
    /// elastic, dissipated, 0, 0.
    pub energy: [f32; 4],
    /// The new rolling torque (xyz), 0.
    pub roll: [f32; 4],
}

/// One bond of a run's table on the device (`Bond` in
/// `shaders/bonds.wgsl`; the CPU's row of `bonds::table::Bonds`), 48 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct Bond {
    /// The particles' ids, lower first.
    pub ids: [u32; 2],
    /// The `[[bonds]]` entry (low 16 bits) and the status code
    /// (`bonds::law::Status::code`, high 16 bits).
    pub info: u32,
    /// L, the centres' distance at formation (m).
    pub length: f32,
    /// F_s (xyz), F_n (w).
    pub shear_normal: [f32; 4],
    /// M_b (xyz), M_t (w).
    pub bend_twist: [f32; 4],
}

/// One `[[bonds]]` entry on the device (`BondSpec` in
/// `shaders/bonds.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct BondSpecGpu {
    /// E (Pa), the stiffness ratio, the radius ratio, the damping.
    pub k: [f32; 4],
    /// σ_c, τ_c (Pa; < 0: never), 0, 0.
    pub strength: [f32; 4],
}

#[cfg(feature = "test-kernels")]
/// One bond for the bond law alone (`BondCase` in
/// `shaders/bond_eval.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct BondCase {
    /// `BondParams` (shaders/bond_law.wgsl): kn, ks, R, damping; σ_c, τ_c
    /// (< 0: never), 0, 0.
    pub params: [[f32; 4]; 2],
    pub a: [[f32; 4]; 4],
    pub b: [[f32; 4]; 4],
    /// a's radius, b's radius, centre distance, dt.
    pub geom: [f32; 4],
    pub normal: [f32; 4],
    /// Stored normal force, twisting moment, 0, 0.
    pub nt: [f32; 4],
    pub shear: [f32; 4],
    pub bend: [f32; 4],
}

#[cfg(feature = "test-kernels")]
/// What the bond law returns for a [`BondCase`].
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct BondOut {
    pub force_a: [f32; 4],
    pub torque_a: [f32; 4],
    pub torque_b: [f32; 4],
    /// New normal force, twisting moment, how it broke (`Status::code`), 0.
    pub nt: [f32; 4],
    pub shear: [f32; 4],
    pub bend: [f32; 4],
    /// elastic, dissipated, 0, 0.
    pub energy: [f32; 4],
}

#[cfg(feature = "test-kernels")]
/// A free top for the clumps' rotation alone (`RotorCase` in
/// `shaders/rotor_eval.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct RotorCase {
    /// Start orientation (x, y, z, w).
    pub q: [f32; 4],
    /// xyz: world angular momentum.
    pub l: [f32; 4],
    /// xyz: principal moments; w: dt.
    pub inertia: [f32; 4],
    /// x: steps.
    pub steps: [u32; 4],
}

#[cfg(feature = "test-kernels")]
/// What a [`RotorCase`] ends with (`RotorOut` in rotor_eval.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct RotorOut {
    pub q: [f32; 4],
    pub l: [f32; 4],
    /// Sign changes of the body-frame spin about axis 2: count, first and
    /// last (s); the worst |ΔE| / E.
    pub flips: [f32; 4],
}

/// A clump on the device (`Clump` in `shaders/clumps.wgsl`; the host's f64
/// twin is `shapes::clumps::Clumps`): its state in f32, its centre in the
/// particles' 64-bit fixed point. Written by `clump_bodies` each step.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct Clump {
    /// V*(n), the predicted full-step velocity; w: 1/M.
    pub vel: [f32; 4],
    /// V(n−½), which moved the centre to x(n).
    pub vel_half: [f32; 4],
    /// q(n), principal frame to world (x, y, z, w), and q(n−1).
    pub q: [f32; 4],
    pub q_prev: [f32; 4],
    /// World angular momentum L(n−½).
    pub l_half: [f32; 4],
    /// ω*(n), world; w: the largest 1/I_k (the members' rolling cap).
    pub omega: [f32; 4],
    /// Principal moments (kg m²).
    pub moments: [f32; 4],
    /// The last step's turn q(n) q(n−1)⁻¹ as an angle vector over dt: its
    /// members' ω(n−½).
    pub turn: [f32; 4],
    /// The last step's load: force (N) and torque about the centre (N m),
    /// which the diagnostics recover the start of the step's state from.
    pub force: [f32; 4],
    pub torque: [f32; 4],
    /// The particle's id, the first of its member rows in the rows table,
    /// its shape's first member in the members table, its members.
    pub info: [u32; 4],
    /// The centre x(n) (`data::FixedPoint`).
    pub pos_fx: [u32; FX_WORDS],
    /// Its `[[shapes]]` entry and material (outputs read them back).
    pub shape: u32,
    pub material: u32,
}

/// A particle row's part in a clump (`MemberRow` in `shaders/common.wgsl`,
/// the per-row array `clump_row`, which the rebuild's reorder moves with
/// the row): its lever S = [b]ₓᵀ I⁻¹ [b]ₓ (xx, yy, zz, xy; xz, yz), its
/// clump (`NONE`: a sphere) and its member index.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct MemberRow {
    pub lever_a: [f32; 4],
    pub lever_b: [f32; 2],
    pub body: u32,
    pub member: u32,
}

impl MemberRow {
    /// A sphere's row.
    pub const SPHERE: MemberRow = MemberRow {
        lever_a: [0.0; 4],
        lever_b: [0.0; 2],
        body: NONE,
        member: 0,
    };
}

/// A scan level's uniform (`ScanParams` in `shaders/sort.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct ScanParams {
    pub len: u32,
    pub pad: [u32; 3],
}

/// One part of a per-particle array for the reorder (`Gather` in
/// `shaders/reorder.wgsl`): `words` u32 words of each particle's record,
/// from word `offset` of a record `stride` words long (the words in all
/// follow the active count on the device).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct Gather {
    pub words: u32,
    pub stride: u32,
    pub offset: u32,
    pub pad: u32,
}

/// The most u32 words of a particle the reorder moves at once with a
/// scratch array of its own: an array wider than this (the 16-word motion
/// record) is moved in parts, so the scratch holds this many words per
/// particle (32 B, not 64). Where the pair sums ([`ACC_WORDS`]) are the
/// scratch, it moves 16.
pub const REORDER_WORDS: u64 = 8;

/// What one indirect dispatch runs over (`ArgSlot` in `shaders/common.wgsl`,
/// read by `arm_rebuild` and `finish_step`): `scale` × the active
/// count + `fixed` invocations, on the steps `when` says (`ARM_*`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Hash)]
pub struct ArgSlot {
    pub scale: u32,
    pub fixed: u32,
    pub when: u32,
    pub pad: u32,
}

/// One struct's layout: (name, [(field, offset)], size).
pub type StructLayout = (&'static str, Vec<(&'static str, usize)>, usize);

/// `(name, [(field, offset)], size)` of a Rust struct, each field named
/// once.
macro_rules! layout {
    ($t:ident { $($f:ident),* $(,)? }) => {
        (
            stringify!($t),
            vec![$((stringify!($f), std::mem::offset_of!($t, $f))),*],
            std::mem::size_of::<$t>(),
        )
    };
}

/// Field offsets of the twins, for the layout test.
pub fn rust_layouts() -> Vec<StructLayout> {
    vec![
        layout!(Params {
            grid_min,
            grid_len,
            level_count,
            gravity_dt,
            dims,
            periodic,
            sizes,
            linear,
            nbr,
            gravity_rot,
            gravity_turn,
            models,
            contact,
            sums,
            levels
        }),
        layout!(GridLevel { inv_cell, dims }),
        layout!(Pair {
            e_star,
            g_star,
            restitution,
            beta,
            friction,
            rolling_friction,
            damp_n,
            damp_t,
            cohesion,
            rolling_damping,
            surface_energy
        }),
        layout!(Wall {
            a,
            b,
            c,
            kind,
            material,
            wall
        }),
        layout!(WallMotion {
            axis_point,
            axis,
            velocity,
            oscillation,
            servo,
            extra
        }),
        layout!(WallPose {
            origin,
            rot,
            velocity,
            omega,
            servo,
            built,
            force,
            torque
        }),
        layout!(WallInfo {
            grid_min,
            grid_dims,
            prims
        }),
        #[cfg(feature = "test-kernels")]
        layout!(WallCase { wall, motion, x, t }),
        #[cfg(feature = "test-kernels")]
        layout!(WallOut {
            gap,
            flags,
            pose,
            body,
            dir,
            vel
        }),
        #[cfg(feature = "test-kernels")]
        layout!(LawCase {
            pair,
            a,
            b,
            radii,
            normal,
            hist,
            roll
        }),
        #[cfg(feature = "test-kernels")]
        layout!(RotorCase {
            q,
            l,
            inertia,
            steps
        }),
        #[cfg(feature = "test-kernels")]
        layout!(RotorOut { q, l, flips }),
        #[cfg(feature = "test-kernels")]
        layout!(LawOut {
            force_a,
            torque_a,
            torque_b,
            xi_kt,
            energy,
            roll
        }),
        #[cfg(feature = "test-kernels")]
        layout!(BondCase {
            params,
            a,
            b,
            geom,
            normal,
            nt,
            shear,
            bend
        }),
        #[cfg(feature = "test-kernels")]
        layout!(BondOut {
            force_a,
            torque_a,
            torque_b,
            nt,
            shear,
            bend,
            energy
        }),
        layout!(OutletRegion { a, b, kind }),
        layout!(FlowRecord {
            id,
            kind,
            step,
            mass_or_cand,
            energy
        }),
        layout!(InsertBatch {
            step,
            first,
            count,
            entry,
            goal,
            index,
            tag,
            members,
            rows_at,
            clump_at
        }),
        layout!(SurfInfo { sizes, scale }),
        layout!(ScanParams { len }),
        layout!(Gather {
            words,
            stride,
            offset
        }),
        layout!(ArgSlot { scale, fixed, when }),
        layout!(Clump {
            vel,
            vel_half,
            q,
            q_prev,
            l_half,
            omega,
            moments,
            turn,
            force,
            torque,
            info,
            pos_fx,
            shape,
            material
        }),
        layout!(MemberRow {
            lever_a,
            lever_b,
            body,
            member
        }),
    ]
}
