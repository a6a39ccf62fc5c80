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

use super::geometry::gap;
use super::mesh_grid::MeshGrid;
use super::motion::{pose_at, reach, Pose};
use super::primitive::Primitive;
use super::surface::{SurfaceWall, Surfaces};
use crate::fem::mesh::TetMesh;
use crate::scene::{Scene, Servo, Shape, WallMotion};
use crate::sums::Exact;
use glam::DVec3;

/// The force the particles exert on a wall and their torque about its
/// (moved) axis point, summed over its contacts at one step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WallLoad {
    pub force: [f64; 3],
    pub torque: [f64; 3],
}

/// A wall's load summed over its contacts exactly ([`crate::sums::Exact`]):
/// the same whatever order the particles come in.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadSum {
    force: [Exact; 3],
    torque: [Exact; 3],
}

impl LoadSum {
    /// Adds one contact's force on the wall and its torque.
    #[inline]
    pub fn add(&mut self, force: [f64; 3], torque: [f64; 3]) {
        for k in 0..3 {
            self.force[k].add(force[k]);
            self.torque[k].add(torque[k]);
        }
    }

    /// Adds another partial sum.
    pub fn merge(&mut self, other: &LoadSum) {
        for k in 0..3 {
            self.force[k].merge(&other.force[k]);
            self.torque[k].merge(&other.torque[k]);
        }
    }

    /// The partial sums as words ([`Exact::to_words`], force then torque).
    pub fn to_words(&self) -> [u64; 18] {
        let mut w = [0u64; 18];
        for (k, s) in self.force.iter().chain(&self.torque).enumerate() {
            w[3 * k..3 * k + 3].copy_from_slice(&s.to_words());
        }
        w
    }

    /// The sums [`LoadSum::to_words`] gave.
    pub fn from_words(w: &[u64]) -> LoadSum {
        let e = |k: usize| Exact::from_words([w[3 * k], w[3 * k + 1], w[3 * k + 2]]);
        LoadSum {
            force: [e(0), e(1), e(2)],
            torque: [e(3), e(4), e(5)],
        }
    }

    pub fn value(&self) -> WallLoad {
        WallLoad {
            force: self.force.map(|s| s.value()),
            torque: self.torque.map(|s| s.value()),
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
    /// The scene's walls, then one per FEM body (its surface).
    pub bodies: Vec<WallBody>,
    /// The FEM bodies' surfaces (their triangles are the last primitives).
    pub surfaces: Surfaces,
}

/// The margin of the "within reach" test of a mesh grid over the largest
/// radius + skin: room for a particle a little larger than the scene's
/// largest (inserted later) and for f32 rounding on the GPU.
pub const GRID_REACH_MARGIN: f64 = 1.05;

impl WallSet {
    /// Each body's state that a run carries on (a checkpoint's `walls`
    /// section, [`crate::checkpoint::WALL_WORDS`] words each): servo
    /// displacement and velocity, translation and angle at the last build,
    /// load force and torque.
    pub fn state_words(&self) -> Vec<f64> {
        self.bodies
            .iter()
            .flat_map(|b| {
                let (t, a) = b.built;
                let (f, q) = (b.load.force, b.load.torque);
                [
                    b.servo_s, b.servo_v, t.x, t.y, t.z, a, f[0], f[1], f[2], q[0], q[1], q[2],
                ]
            })
            .collect()
    }

    /// Takes up [`WallSet::state_words`] (the bodies in order; words for
    /// fewer bodies set those).
    pub fn set_state_words(&mut self, w: &[f64]) {
        for (b, x) in self
            .bodies
            .iter_mut()
            .zip(w.chunks(crate::checkpoint::WALL_WORDS))
        {
            b.servo_s = x[0];
            b.servo_v = x[1];
            b.built = (DVec3::new(x[2], x[3], x[4]), x[5]);
            b.load.force = [x[6], x[7], x[8]];
            b.load.torque = [x[9], x[10], x[11]];
        }
    }

    /// The walls of `scene` at t = 0: its walls, then one wall body per
    /// FEM body, `body_meshes[i]` the tetrahedra of `scene.bodies[i]`
    /// ([`crate::fem::build::body_mesh`]; a run's are
    /// [`crate::setup::Setup::body_meshes`]), its surface at rest.
    pub fn new(scene: &Scene, body_meshes: &[TetMesh]) -> WallSet {
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
        debug_assert_eq!(body_meshes.len(), scene.bodies.len());
        for (i, mesh) in body_meshes.iter().enumerate() {
            let surf = crate::fem::mesh::surface(mesh);
            let nodes: Vec<DVec3> = surf.nodes.iter().map(|&k| mesh.nodes[k as usize]).collect();
            let local = |k: u32| surf.nodes.binary_search(&k).expect("a surface node") as u32;
            let tris: Vec<[u32; 3]> = surf.tris.iter().map(|t| t.map(local)).collect();
            set.add_surface(&nodes, &tris, scene.bodies[i].material as u32, reach_r, d);
        }
        set.pose_at(0.0);
        set
    }

    /// Appends a deforming surface (nodes, triangles by node index,
    /// counter-clockwise seen from outside) as a wall body of one-sided
    /// triangles, at rest where `nodes` are. Its grid lists what is within
    /// `reach_r` + a margin, the distance the surface may then deform
    /// before it is binned again: twice `reach_r`.
    pub fn add_surface(
        &mut self,
        nodes: &[DVec3],
        tris: &[[u32; 3]],
        material: u32,
        reach_r: f64,
        d: &crate::scene::Domain,
    ) {
        let wall = self.bodies.len() as u32;
        let first = self.prims.len() as u32;
        let s = &mut self.surfaces;
        let (n0, t0) = (s.x0.len() as u32, s.tri_nodes.len() as u32);
        for (k, t) in tris.iter().enumerate() {
            let v = t.map(|i| nodes[i as usize].to_array());
            let mut p = Primitive::triangle(v, true, material, wall);
            p.b[3] = (t0 as usize + k + 1) as f64;
            self.prims.push(p);
            s.tri_nodes.push(t.map(|i| i + n0));
        }
        s.x0.extend_from_slice(nodes);
        s.v.extend(nodes.iter().map(|_| DVec3::ZERO));
        s.built.extend_from_slice(nodes);
        s.force.extend(nodes.iter().map(|_| DVec3::ZERO));
        let (lo, hi) = nodes.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), &x| (lo.min(x), hi.max(x)),
        );
        // the margin costs every list build (a cell lists what is within
        // reach + margin: at 5 % of a 0.3 m plate's diagonal, the tests of
        // those triangles were 40 % of a coupled step); straying past it
        // costs one binning, O(triangles), at an exchange
        let _ = (lo, hi);
        let margin = 2.0 * reach_r;
        let end = self.prims.len() as u32;
        let grid = super::mesh_grid::build(&self.prims[first as usize..], first, reach_r + margin);
        s.walls.push(SurfaceWall {
            wall,
            nodes: (n0, n0 + nodes.len() as u32),
            tris: (t0, t0 + tris.len() as u32),
            first_prim: first,
            margin,
            binned: nodes.to_vec(),
            reach: reach_r,
        });
        let motion = WallMotion::default();
        let reach = reach(
            &self.prims[first as usize..end as usize],
            motion.axis_point,
            d,
        );
        self.bodies.push(WallBody {
            first,
            end,
            grid: Some(grid),
            motion,
            servo: None,
            moves: false,
            reach,
            pose: Pose::identity(),
            servo_s: 0.0,
            servo_v: 0.0,
            built: (DVec3::ZERO, 0.0),
            load: WallLoad::default(),
        });
    }

    /// Poses the surfaces' triangles at step `step` (their primitives'
    /// vertices on the interval's straight lines). Returns whether some
    /// node has moved more than `half_skin` since the last build.
    pub fn pose_surfaces(&mut self, step: u64, dt: f64, half_skin: f64) -> bool {
        let s = &self.surfaces;
        if s.is_empty() {
            return false;
        }
        for w in &s.walls {
            for t in w.tris.0..w.tris.1 {
                let v = s.triangle_at(t as usize, step, dt);
                let p = &mut self.prims[(w.first_prim + t - w.tris.0) as usize];
                for (q, x) in [&mut p.a, &mut p.b, &mut p.c].into_iter().zip(v) {
                    q[0] = x.x;
                    q[1] = x.y;
                    q[2] = x.z;
                }
            }
        }
        s.moved_since_build(step, dt) > half_skin
    }

    /// Bins surface `k`'s grid again where its `binned` nodes say (the
    /// surfaces posed there first; call [`WallSet::pose_surfaces`] after).
    pub fn rebin_surface(&mut self, k: usize) {
        let w = &self.surfaces.walls[k];
        let (first, body, reach) = (w.first_prim as usize, w.wall as usize, w.reach + w.margin);
        let end = self.bodies[body].end as usize;
        let mut prims = self.prims[first..end].to_vec();
        for (p, t) in prims.iter_mut().zip(w.tris.0..w.tris.1) {
            let nodes = self.surfaces.tri_nodes[t as usize];
            let v = nodes.map(|n| w.binned[(n - w.nodes.0) as usize]);
            for (q, x) in [&mut p.a, &mut p.b, &mut p.c].into_iter().zip(v) {
                q[0] = x.x;
                q[1] = x.y;
                q[2] = x.z;
            }
        }
        self.bodies[body].grid = Some(super::mesh_grid::build(&prims, first as u32, reach));
    }

    /// At an exchange (step `step0`): the surfaces' motion over the next
    /// interval (nodes from `x0` with velocities `v`), the nodal forces
    /// cleared. A surface whose nodes would stray more than its margin from
    /// where its grid was binned (by the interval's end, `steps` later) is
    /// binned again where it stands; returns whether any was.
    pub fn start_interval(
        &mut self,
        x0: &[DVec3],
        v: &[DVec3],
        step0: u64,
        steps: f64,
        dt: f64,
    ) -> bool {
        let s = &mut self.surfaces;
        s.x0.copy_from_slice(x0);
        s.v.copy_from_slice(v);
        s.step0 = step0;
        s.force.iter_mut().for_each(|f| *f = DVec3::ZERO);
        let strays: Vec<usize> = (0..s.walls.len())
            .filter(|&k| {
                let w = &s.walls[k];
                // no grain can ever reach it (FEM bodies alone: reach 0):
                // never binned again
                if w.reach <= 0.0 {
                    return false;
                }
                let (a, b) = (w.nodes.0 as usize, w.nodes.1 as usize);
                (a..b).any(|i| {
                    let end = x0[i] + v[i] * (steps * dt);
                    let from = w.binned[i - a];
                    x0[i].distance(from).max(end.distance(from)) > w.margin
                })
            })
            .collect();
        if strays.is_empty() {
            return false;
        }
        for k in strays {
            let w = &mut self.surfaces.walls[k];
            let (a, b) = (w.nodes.0 as usize, w.nodes.1 as usize);
            w.binned = x0[a..b].to_vec();
            self.rebin_surface(k);
        }
        true
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
/// is what a neighbour-list entry names), the FEM bodies' surfaces last.
/// Builds the bodies' meshes from the scene (for tests and tools; a run
/// has them in [`crate::setup::Setup::walls`]). Panics on a body whose
/// mesh fails, which a validated scene does not have.
pub fn primitives(scene: &Scene) -> Vec<Primitive> {
    let meshes = crate::fem::build::body_meshes(scene)
        .unwrap_or_else(|e| panic!("a validated scene's body mesh: {e}"));
    WallSet::new(scene, &meshes).prims
}

/// The first particle (by index) a mesh wall (or an FEM body's surface)
/// cuts through at the start: overlapping its nearest triangle by more
/// than `limit` of its radius (the run's overlap limit: it would stop on
/// its first step, as if dt were too large). Returns (wall body, particle,
/// overlap in m). Analytic walls are checked with the scene
/// (`scene::validate`).
pub fn first_cut_by_mesh(
    walls: &WallSet,
    pos_rad: &[[f64; 4]],
    limit: f64,
) -> Option<(usize, usize, f64)> {
    for (i, p) in pos_rad.iter().enumerate() {
        let x = [p[0], p[1], p[2]];
        for (k, b) in walls.bodies.iter().enumerate() {
            let Some(grid) = &b.grid else { continue };
            let xb = if b.pose.moving {
                b.pose.to_body(DVec3::from(x)).to_array()
            } else {
                x
            };
            for &w in grid.candidates(xb) {
                let overlap = p[3] - gap(&walls.prims[w as usize], xb).dist;
                if overlap > limit * p[3] {
                    return Some((k, i, overlap));
                }
            }
        }
    }
    None
}
