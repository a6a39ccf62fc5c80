//! The walls of a run (CPU, f64): every primitive, and per scene wall its
//! *body*: the primitives it owns, how particles find them (a mesh's grid
//! in its body frame, else a test of each primitive), its motion and servo,
//! its pose at the current step, the pose at the last list build, and the
//! load the particles put on it. The GPU holds the same tables
//! (`gpu::layout::{Wall, WallInfo, WallMotion, WallPose}`), filled from
//! this set.
//!
//! Time: the contact stage of step n sees every wall at its pose at t_n =
//! n dt. After the step, [`WallSet::advance`] moves the servos with the
//! load that stage measured and poses every wall at t_(n+1); a wall that has
//! moved more than skin / 2 since the last build asks for a rebuild, as a
//! particle does (each side moves at most skin / 2, so nothing within
//! reach is missed).

use super::mesh_grid::MeshGrid;
use super::motion::{pose_at, reach, Pose};
use super::primitive::Primitive;
use crate::scene::{Scene, Servo, Shape, WallMotion};
use glam::DVec3;

/// The force the particles exert on a wall and their torque about its
/// (moved) axis point, summed over its contacts at one step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WallLoad {
    pub force: [f64; 3],
    pub torque: [f64; 3],
}

impl WallLoad {
    /// Adds `other` (a fixed order of additions keeps sums deterministic).
    pub fn add(&mut self, other: &WallLoad) {
        for k in 0..3 {
            self.force[k] += other.force[k];
            self.torque[k] += other.torque[k];
        }
    }
}

/// One scene wall at run time.
#[derive(Debug, Clone)]
pub struct WallBody {
    /// Its primitives: `first..end` of [`WallSet::prims`].
    pub first: u32,
    pub end: u32,
    /// A mesh's triangles by cell of its body frame (None: analytic, each
    /// particle tests its primitive).
    pub grid: Option<MeshGrid>,
    /// Prescribed motion (the default: at rest).
    pub motion: WallMotion,
    pub servo: Option<Servo>,
    /// Whether it ever moves (motion or servo given).
    pub moves: bool,
    /// The largest distance of its geometry from the motion's axis point
    /// that can meet particles (bounds a rotation's displacement).
    pub reach: f64,
    /// The pose at the current step.
    pub pose: Pose,
    /// Servo: displacement along its direction and velocity.
    pub servo_s: f64,
    pub servo_v: f64,
    /// Translation and angle at the last list build.
    pub built: (DVec3, f64),
    /// The load at the last contact stage.
    pub load: WallLoad,
}

impl WallBody {
    /// Whether it is a mesh (its primitives are triangles found through
    /// the grid, reduced to one contact per smooth region).
    pub fn is_mesh(&self) -> bool {
        self.grid.is_some()
    }

    /// The servo's translation and velocity now.
    fn servo_motion(&self) -> (DVec3, DVec3) {
        match self.servo {
            Some(s) => {
                let d = DVec3::from(s.direction);
                (d * self.servo_s, d * self.servo_v)
            }
            None => (DVec3::ZERO, DVec3::ZERO),
        }
    }

    /// Poses the wall at time `t`.
    fn pose_at(&mut self, t: f64) {
        if self.moves {
            let (off, vel) = self.servo_motion();
            self.pose = pose_at(&self.motion, t, off, vel);
        }
    }

    /// How far any point of the wall has moved since the last build (an
    /// upper bound).
    pub fn moved_since_build(&self) -> f64 {
        if !self.moves {
            return 0.0;
        }
        (self.pose.translation - self.built.0).length()
            + (self.pose.angle - self.built.1).abs() * self.reach
    }
}

/// All walls of a run.
#[derive(Debug, Clone, Default)]
pub struct WallSet {
    /// Every primitive, in wall order (list entries flagged `WALL` index
    /// it).
    pub prims: Vec<Primitive>,
    pub bodies: Vec<WallBody>,
}

/// The margin of the "within reach" test of a mesh grid over the largest
/// radius + skin: room for a particle a little larger than the scene's
/// largest (inserted later) and for f32 rounding on the GPU.
pub const GRID_REACH_MARGIN: f64 = 1.05;

impl WallSet {
    /// The walls of `scene` at t = 0.
    pub fn new(scene: &Scene) -> WallSet {
        let reach_r = (scene.radius_range().1 + scene.skin()) * GRID_REACH_MARGIN;
        let d = &scene.domain;
        let mut set = WallSet::default();
        for (k, w) in scene.walls.iter().enumerate() {
            let (mat, wall) = (w.material as u32, k as u32);
            let first = set.prims.len() as u32;
            let mut grid = None;
            match &w.shape {
                Shape::Mesh {
                    triangles,
                    one_sided,
                    ..
                } => {
                    for t in triangles {
                        set.prims
                            .push(Primitive::triangle(*t, *one_sided, mat, wall));
                    }
                    grid = Some(super::mesh_grid::build(
                        &set.prims[first as usize..],
                        first,
                        reach_r,
                    ));
                }
                analytic => set.prims.extend(Primitive::analytic(analytic, mat, wall)),
            }
            let end = set.prims.len() as u32;
            let moves = w.motion.is_some() || w.servo.is_some();
            let motion = w.motion.unwrap_or_default();
            let reach = reach(
                &set.prims[first as usize..end as usize],
                motion.axis_point,
                d,
            );
            set.bodies.push(WallBody {
                first,
                end,
                grid,
                motion,
                servo: w.servo,
                moves,
                reach,
                pose: Pose::identity(),
                servo_s: 0.0,
                servo_v: 0.0,
                built: (DVec3::ZERO, 0.0),
                load: WallLoad::default(),
            });
        }
        set.pose_at(0.0);
        set
    }

    /// Poses every moving wall at time `t` (servos where they stand).
    pub fn pose_at(&mut self, t: f64) {
        for b in &mut self.bodies {
            b.pose_at(t);
        }
    }

    /// After the contact stage of a step that ended at time `t` (the next
    /// step's): each servo's speed from the load just measured,
    /// max_speed × clamp((target − F) / target, −1, 1) with F the force
    /// the wall exerts on the particles along its direction, its
    /// displacement advanced by that speed × dt; then every wall posed at
    /// `t`. Returns whether some wall has moved more than `half_skin` since
    /// the last build.
    pub fn advance(&mut self, t: f64, dt: f64, half_skin: f64) -> bool {
        let mut rebuild = false;
        for b in &mut self.bodies {
            if let Some(s) = b.servo {
                let push = -DVec3::from(b.load.force).dot(DVec3::from(s.direction));
                b.servo_v = s.max_speed * ((s.force - push) / s.force).clamp(-1.0, 1.0);
                b.servo_s += b.servo_v * dt;
            }
            b.pose_at(t);
            rebuild |= b.moved_since_build() > half_skin;
        }
        rebuild
    }

    /// Records the poses the list was just built at.
    pub fn mark_built(&mut self) {
        for b in &mut self.bodies {
            b.built = (b.pose.translation, b.pose.angle);
        }
    }

    /// Whether any wall moves (then the list's rebuild test and the contact
    /// stage look at poses).
    pub fn any_moving(&self) -> bool {
        self.bodies.iter().any(|b| b.moves)
    }
}

/// The primitives of a scene's walls, in wall order (a primitive's index
/// is what a neighbour-list entry names).
pub fn primitives(scene: &Scene) -> Vec<Primitive> {
    WallSet::new(scene).prims
}
