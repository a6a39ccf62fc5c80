//! The walls' tables on the device, in f32, from the run's [`WallSet`]:
//! primitives (`walls`), per scene wall where its primitives are and how a
//! particle finds them (`wall_info`), its motion and servo (`wall_motion`,
//! static) and its pose (`wall_pose`, written on the device every step by
//! `move_walls` in `shaders/integrate.wgsl`), and the meshes' grids
//! (`mesh_cells`: every mesh's cell starts, then the triangles they point
//! into). Also reads the poses and loads back. The FEM bodies' deforming
//! surfaces add their node table (`surf_nodes`: x0, v, built per node) and
//! triangle table (`surf_tris`: three nodes and the primitive), which
//! `shaders/surfaces.wgsl` poses the triangles from every step.

use super::layout::{Wall, WallInfo, WallMotion, WallPose};
use crate::walls::surface::Surfaces;
use crate::walls::{Pose, WallLoad, WallSet};
use glam::DVec3;

/// Everything the device holds of the walls (each vector at least one
/// element: a binding cannot be empty).
#[derive(Debug, Clone)]
pub struct WallTables {
    pub prims: Vec<Wall>,
    pub info: Vec<WallInfo>,
    pub motion: Vec<WallMotion>,
    pub pose: Vec<WallPose>,
    pub mesh_cells: Vec<u32>,
    /// Scene walls (bodies) and primitives (the vectors hold one dummy
    /// each when there are none).
    pub bodies: u32,
    pub n_prims: u32,
    /// Some wall has a servo / moves.
    pub servo: bool,
    pub moving: bool,
    /// The deforming surfaces: the nodes' x0, v, built ([`surface_nodes`];
    /// three records of one dummy node when there is none), per surface
    /// triangle its three nodes and its primitive (one dummy when none),
    /// the node and triangle counts and the interval's start.
    pub surf_nodes: Vec<[f32; 4]>,
    pub surf_tris: Vec<[u32; 4]>,
    pub n_nodes: u32,
    pub n_tris: u32,
    pub step0: u64,
    /// The unit of the surface nodes' force words per newton
    /// (`gpu::surfaces::force_scale` of the scene; 1 from [`WallTables::new`]).
    pub force_scale: f64,
}

/// The device's node records of `s` in f32 (w 0): every node's x0, then
/// every v, then every built (x0 and v are rewritten together at an
/// exchange, built only by the device).
pub fn surface_nodes(s: &Surfaces) -> Vec<[f32; 4]> {
    let mut out = surface_motion(s);
    out.extend(s.built.iter().map(|&x| f4(x, 0.0)));
    out
}

/// The first two thirds of [`surface_nodes`]: every node's x0, then every
/// v (what an exchange uploads; `built` is the device's own).
pub fn surface_motion(s: &Surfaces) -> Vec<[f32; 4]> {
    [&s.x0, &s.v]
        .into_iter()
        .flat_map(|a| a.iter().map(|&x| f4(x, 0.0)))
        .collect()
}

/// The device's triangle table of `s`: each surface triangle's nodes and
/// its primitive.
pub fn surface_tris(s: &Surfaces) -> Vec<[u32; 4]> {
    let mut out = Vec::with_capacity(s.tri_nodes.len());
    for w in &s.walls {
        for t in w.tris.0..w.tris.1 {
            let [a, b, c] = s.tri_nodes[t as usize];
            out.push([a, b, c, w.first_prim + t - w.tris.0]);
        }
    }
    out
}

fn f4(v: DVec3, w: f64) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, w as f32]
}

/// The f32 pose of a wall (the device's layout of [`Pose`]).
pub fn pose_to_gpu(p: &Pose, servo: (f64, f64), load: &WallLoad) -> WallPose {
    WallPose {
        origin: f4(p.origin, p.angle),
        rot: [
            p.cos as f32,
            p.sin as f32,
            if p.moving { 1.0 } else { 0.0 },
            0.0,
        ],
        velocity: f4(p.velocity, 0.0),
        omega: f4(p.omega, 0.0),
        servo: [servo.0 as f32, servo.1 as f32, 0.0, 0.0],
        built: f4(p.translation, p.angle),
        force: f4(DVec3::from(load.force), 0.0),
        torque: f4(DVec3::from(load.torque), 0.0),
    }
}

impl WallTables {
    pub fn new(set: &WallSet) -> WallTables {
        let mut prims: Vec<Wall> = set.prims.iter().map(Wall::from_primitive).collect();
        if prims.is_empty() {
            prims.push(Wall::from_primitive(&crate::walls::Primitive::plane(
                [0.0; 3],
                [0.0, 0.0, 1.0],
                0,
                0,
            )));
        }
        // the meshes' cell starts first (each offset to where its
        // triangles will lie), then all triangles
        let starts_len: usize = set
            .bodies
            .iter()
            .filter_map(|b| b.grid.as_ref().map(|g| g.start.len()))
            .sum();
        let mut mesh_cells: Vec<u32> = Vec::with_capacity(starts_len);
        let mut tris: Vec<u32> = Vec::new();
        let mut info = Vec::new();
        let mut motion = Vec::new();
        let mut pose = Vec::new();
        for b in &set.bodies {
            let (grid_min, grid_dims) = match &b.grid {
                Some(g) => {
                    let at = mesh_cells.len() as u32;
                    let base = (starts_len + tris.len()) as u32;
                    mesh_cells.extend(g.start.iter().map(|s| s + base));
                    tris.extend_from_slice(&g.tris);
                    (
                        f4(DVec3::from(g.min), 1.0 / g.cell),
                        [g.dims[0], g.dims[1], g.dims[2], at],
                    )
                }
                None => ([0.0; 4], [0; 4]),
            };
            info.push(WallInfo {
                grid_min,
                grid_dims,
                prims: [b.first, b.end, 0, 0],
            });
            // a body that moves has its motion (the default when only a
            // servo moves it)
            let m = b.moves.then_some(&b.motion);
            motion.push(WallMotion::from_scene(m, b.servo.as_ref(), b.reach));
            let mut p = pose_to_gpu(&b.pose, (b.servo_s, b.servo_v), &b.load);
            p.built = f4(b.built.0, b.built.1);
            pose.push(p);
        }
        mesh_cells.extend(tris);
        if mesh_cells.is_empty() {
            mesh_cells.push(0);
        }
        let bodies = info.len() as u32;
        if info.is_empty() {
            use bytemuck::Zeroable;
            info.push(WallInfo::zeroed());
            motion.push(WallMotion::zeroed());
            pose.push(WallPose::zeroed());
        }
        let s = &set.surfaces;
        let mut surf_nodes = surface_nodes(s);
        if surf_nodes.is_empty() {
            surf_nodes = vec![[0.0; 4]; 3];
        }
        let mut surf_tris = surface_tris(s);
        if surf_tris.is_empty() {
            surf_tris.push([0; 4]);
        }
        WallTables {
            prims,
            info,
            motion,
            pose,
            mesh_cells,
            bodies,
            n_prims: set.prims.len() as u32,
            servo: set.bodies.iter().any(|b| b.servo.is_some()),
            moving: set.any_moving(),
            surf_nodes,
            surf_tris,
            n_nodes: s.x0.len() as u32,
            n_tris: s.tri_nodes.len() as u32,
            step0: s.step0,
            force_scale: 1.0,
        }
    }
}

/// A wall's pose and load as read back from the device (f64), given its
/// static motion.
pub fn pose_from_gpu(p: &WallPose, m: &WallMotion) -> (Pose, WallLoad) {
    let v3 = |a: [f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
    let axis_point = v3(m.axis_point);
    let origin = v3(p.origin);
    let pose = Pose {
        origin,
        axis_point,
        axis: v3(m.axis),
        angle: p.origin[3] as f64,
        cos: p.rot[0] as f64,
        sin: p.rot[1] as f64,
        velocity: v3(p.velocity),
        omega: v3(p.omega),
        translation: origin - axis_point,
        moving: p.rot[2] != 0.0,
    };
    let load = WallLoad {
        force: v3(p.force).to_array(),
        torque: v3(p.torque).to_array(),
    };
    (pose, load)
}
