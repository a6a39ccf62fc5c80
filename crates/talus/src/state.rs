//! Particle state as a structure of arrays of plain `Pod` values. The CPU
//! reference path holds `Particles<f64>`; the GPU path holds the same arrays
//! as `f32` in storage buffers (one buffer per array, same packing).
//!
//! | array        | per particle            | meaning                                   |
//! |--------------|-------------------------|-------------------------------------------|
//! | `pos_rad`    | `[T; 4]`                | x, y, z (m), radius (m)                   |
//! | `vel_invm`   | `[T; 4]`                | vx, vy, vz (m/s, predicted full step), 1/m|
//! | `omega_invi` | `[T; 4]`                | ωx, ωy, ωz (rad/s, predicted), 1/I        |
//! | `material`   | `u32`                   | index into the material table             |
//! | `id`         | `u32`                   | stable identity (input order)             |
//! | `dissipated` | `T`                     | energy dissipated in its contacts so far (J, half of each pair) |
//!
//! The tangential history of particle pairs is not per particle: it lives
//! beside the neighbour list, one entry per listed partner (`cpu::Work::
//! nbr_hist`, the GPU's `nbr_hist`), and moves to the new list when the
//! list is rebuilt. It is stored in the *canonical* orientation of a pair
//! (as seen from the lower id), so both partners hold the same bits and
//! compute the same force with opposite signs. Walls are list entries too
//! ([`WALL`]): their history sits beside the entry, seen from the particle.
//!
//! Beside the state, each path keeps one [`Motion`] record per particle
//! (CPU `cpu::Work::motion`, GPU `motion` in each particle set), written by
//! integrate and moved by the rebuild's reorder: everything a contact needs
//! of its partner besides the position, packed in one place.

use crate::scene::Scene;
use crate::shapes::clumps::{Clumps, NONE};
use bytemuck::Pod;

/// Neighbour-list entries (both paths; `HAS_HISTORY`, `WALL` and `INDEX`
/// in `shaders/common.wgsl`, checked equal by `tests/shaders.rs`).
/// Flag bit of a list entry: the entry's pair history is non-zero (the
/// pair was in contact at the last step). Contacts read the history only
/// of flagged entries, and clear history and flag when a contact ends;
/// without it they read 32 bytes (CPU) per candidate to find the 1 in 8
/// with history, and the GPU wrote 16 bytes of zero per candidate each
/// step. Particle indices stay below 2³¹.
pub const HAS_HISTORY: u32 = 1 << 31;
/// The history beside a list entry (both paths, in the pair's canonical
/// orientation, a wall's from the particle): the tangential spring ξ
/// (0..3) and the k_t it was stored with (3), then the rolling spring's
/// torque M (4..7, `epsd`/`epsd2`; zero otherwise) and a zero. All zero:
/// no contact. The GPU keeps the rolling half only in runs whose rolling
/// model has memory (`gpu::pages::Paging::roll`); checkpoints keep it in a
/// section of its own (`nbr_roll`).
pub type Hist<T = f64> = [T; 8];
/// Flag bit of a list entry: the entry names a wall primitive
/// (`walls::Primitive`, by its index), not a particle. A particle's row
/// lists its particle partners first, then the primitives within reach,
/// in primitive order; a wall's history sits beside its entry like a
/// pair's.
pub const WALL: u32 = 1 << 30;
/// The partner's index in a list entry (a particle's, or with [`WALL`] a
/// primitive's). Particle counts stay below 2³⁰ ([`MAX_PARTICLES`]).
pub const INDEX: u32 = WALL - 1;
/// Overlap / smaller radius above which a run stops (both backends; the
/// GPU gets it through `Params`; the set-up refuses particles a mesh cuts
/// deeper).
pub const MAX_OVERLAP_RATIO: f64 = 0.5;

/// The largest particle id an input may give (`final.csv`'s `id` column):
/// the ids above are left to particles inserted later.
pub const MAX_GIVEN_ID: u32 = (1 << 31) - 1;
/// The most particles a run may hold: indices 0..n must fit [`INDEX`]
/// (the scene refuses more, and so does insertion).
pub const MAX_PARTICLES: usize = INDEX as usize + 1;

/// The fewest particles (or rows) a parallel loop of the CPU path hands
/// one task: a smaller bed's loop runs on the thread that reached it
/// (inside `CpuBackend::advance`, one of rayon's workers) without waking
/// the others. On 80 beads, waking the pool at each stage of each step
/// was most of a step's time, in the kernel.
pub const PAR_MIN: usize = 1024;

/// A particle's motion as its contact partners read it, packed so that a
/// contact touches one 128-byte block (f64; 64 bytes in f32) of its
/// partner instead of six arrays (velocity, spin, the previous force and
/// torque, material and id: `perf` showed those misses as a quarter of the
/// contact stage).
///
/// | lane | xyz                              | w                   |
/// |------|----------------------------------|---------------------|
/// | 0    | v*(n), predicted full-step velocity (= `vel_invm`) | 1/m |
/// | 1    | ω*(n) (= `omega_invi`)           | 1/I                 |
/// | 2    | v(n−½), the velocity that moved x(n−1) to x(n) | material index (bits) |
/// | 3    | ω(n−½)                           | id (bits)           |
///
/// The integer lanes carry a `u32` in the float's bits ([`Real::from_bits32`]):
/// never computed with, only copied.
pub type Motion<T> = [[T; 4]; 4];

/// The two float types of the paths (f64 CPU, f32 GPU).
pub trait Real: Pod + Send + Sync + PartialEq {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    /// A `u32` carried in the float's bits.
    fn from_bits32(u: u32) -> Self;
    fn bits32(self) -> u32;
}

impl Real for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn from_bits32(u: u32) -> Self {
        f64::from_bits(u64::from(u))
    }
    fn bits32(self) -> u32 {
        self.to_bits() as u32
    }
}

impl Real for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_bits32(u: u32) -> Self {
        f32::from_bits(u)
    }
    fn bits32(self) -> u32 {
        self.to_bits()
    }
}

/// Motion records converted to another float type (velocities rounded,
/// material and id lanes carried over exactly).
pub fn convert_motion<T: Real, U: Real>(m: &[Motion<T>]) -> Vec<Motion<U>> {
    m.iter()
        .map(|r| {
            let mut o = r.map(|l| l.map(|x| U::from_f64(x.to_f64())));
            o[2][3] = U::from_bits32(r[2][3].bits32());
            o[3][3] = U::from_bits32(r[3][3].bits32());
            o
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct Particles<T: Pod> {
    pub pos_rad: Vec<[T; 4]>,
    pub vel_invm: Vec<[T; 4]>,
    pub omega_invi: Vec<[T; 4]>,
    pub material: Vec<u32>,
    pub id: Vec<u32>,
    pub dissipated: Vec<T>,
}

/// No particles (not derived: `T` needs no `Default`).
impl<T: Pod> Default for Particles<T> {
    fn default() -> Self {
        Particles {
            pos_rad: Vec::new(),
            vel_invm: Vec::new(),
            omega_invi: Vec::new(),
            material: Vec::new(),
            id: Vec::new(),
            dissipated: Vec::new(),
        }
    }
}

impl<T: Pod + Send + Sync> Particles<T> {
    pub fn len(&self) -> usize {
        self.pos_rad.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos_rad.is_empty()
    }

    /// Applies a permutation: new index `j` takes old index `order[j]`.
    /// Allocates; the step uses [`Particles::permute_into`].
    pub fn permute(&mut self, order: &[u32]) {
        let mut out = self.clone();
        self.permute_into(order, &mut out);
        *self = out;
    }

    /// Gathers `self` permuted by `order` into `out` (same length), in
    /// parallel and without allocating.
    pub fn permute_into(&self, order: &[u32], out: &mut Particles<T>) {
        use rayon::prelude::*;
        fn g<X: Copy + Send + Sync>(src: &[X], dst: &mut [X], order: &[u32]) {
            dst.par_iter_mut()
                .zip(order.par_iter())
                .with_min_len(PAR_MIN)
                .for_each(|(d, &i)| *d = src[i as usize]);
        }
        g(&self.pos_rad, &mut out.pos_rad, order);
        g(&self.vel_invm, &mut out.vel_invm, order);
        g(&self.omega_invi, &mut out.omega_invi, order);
        g(&self.material, &mut out.material, order);
        g(&self.id, &mut out.id, order);
        g(&self.dissipated, &mut out.dissipated, order);
    }

    /// Reorders into id order (outputs are written in id order).
    pub fn sort_by_id(&mut self) {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_by_key(|&i| self.id[i as usize]);
        self.permute(&order);
    }
}

impl<T: Pod> Particles<T> {
    /// The same arrays with every real converted by `f` (ids and
    /// materials unchanged).
    pub fn map_real<U: Pod>(&self, f: impl Fn(T) -> U + Copy) -> Particles<U> {
        let m4 = |v: &Vec<[T; 4]>| v.iter().map(|a| a.map(f)).collect();
        Particles {
            pos_rad: m4(&self.pos_rad),
            vel_invm: m4(&self.vel_invm),
            omega_invi: m4(&self.omega_invi),
            material: self.material.clone(),
            id: self.id.clone(),
            dissipated: self.dissipated.iter().map(|&x| f(x)).collect(),
        }
    }
}

impl<T: Real> Particles<T> {
    /// The motion records before the first step: v(−½) = v(0) − g dt/2
    /// and ω(−½) = ω(0), i.e. no contact force before the start (the first
    /// step's integrate then takes a(−1) = a(0), see `cpu/integrate.rs`).
    pub fn initial_motion(&self, gravity: [f64; 3], dt: f64) -> Vec<Motion<T>> {
        (0..self.len())
            .map(|i| {
                let (v, w) = (self.vel_invm[i], self.omega_invi[i]);
                let mut vh = [T::from_f64(0.0); 4];
                for k in 0..3 {
                    vh[k] = T::from_f64(v[k].to_f64() - 0.5 * gravity[k] * dt);
                }
                vh[3] = T::from_bits32(self.material[i]);
                let mut wh = w;
                wh[3] = T::from_bits32(self.id[i]);
                [v, w, vh, wh]
            })
            .collect()
    }

    /// The first particle whose motion record disagrees with the state (v*
    /// and 1/m, ω* and 1/I, material, id: bit for bit), if any: the record
    /// must follow its particle through every step and reorder.
    pub fn motion_mismatch(&self, m: &[Motion<T>]) -> Option<usize> {
        if m.len() != self.len() {
            return Some(m.len().min(self.len()));
        }
        (0..self.len()).find(|&i| {
            let r = &m[i];
            r[0] != self.vel_invm[i]
                || r[1] != self.omega_invi[i]
                || r[2][3].bits32() != self.material[i]
                || r[3][3].bits32() != self.id[i]
        })
    }
}

impl Particles<f64> {
    /// The initial state of a scene: ids as given, the others in input
    /// order after them ([`Scene::particle_ids`]), no history.
    pub fn from_scene(scene: &Scene) -> Self {
        let n = scene.particles.len();
        let mut s = Particles {
            pos_rad: Vec::with_capacity(n),
            vel_invm: Vec::with_capacity(n),
            omega_invi: Vec::with_capacity(n),
            material: Vec::with_capacity(n),
            id: scene.particle_ids(),
            dissipated: vec![0.0; n],
        };
        for p in &scene.particles {
            s.push_sphere(scene, p);
        }
        s
    }

    /// The rows of spheres `inits` of `scene`'s materials (mass and moment
    /// of inertia from their radius and density), ids 0 (the caller's),
    /// no energy dissipated.
    pub fn spheres(scene: &Scene, inits: &[crate::scene::types::ParticleInit]) -> Self {
        let mut s = Particles {
            pos_rad: Vec::with_capacity(inits.len()),
            vel_invm: Vec::with_capacity(inits.len()),
            omega_invi: Vec::with_capacity(inits.len()),
            material: Vec::with_capacity(inits.len()),
            id: vec![0; inits.len()],
            dissipated: vec![0.0; inits.len()],
        };
        for p in inits {
            s.push_sphere(scene, p);
        }
        s
    }

    /// Appends the row of sphere `p` of `scene` (its id and energy are the
    /// caller's).
    fn push_sphere(&mut self, scene: &Scene, p: &crate::scene::types::ParticleInit) {
        let m = scene.particle_mass(p);
        let inertia = 0.4 * m * p.radius * p.radius;
        let [x, y, z] = p.position;
        let [vx, vy, vz] = p.velocity;
        let [wx, wy, wz] = p.angular_velocity;
        self.pos_rad.push([x, y, z, p.radius]);
        self.vel_invm.push([vx, vy, vz, 1.0 / m]);
        self.omega_invi.push([wx, wy, wz, 1.0 / inertia]);
        self.material.push(p.material as u32);
    }

    /// The initial state of a scene with clumps: a sphere's row as
    /// [`Particles::from_scene`] makes it, a clump's members' rows (its
    /// id, its 1/M and largest 1/I, each member's point velocity), the
    /// clumps' state, and each row's clump and member index (both empty
    /// when the scene has no clumps).
    pub fn with_clumps(scene: &Scene) -> (Self, Clumps, Vec<u32>, Vec<u32>) {
        use glam::DVec3;
        if scene.particles.iter().all(|p| p.shape.is_none()) {
            return (Self::from_scene(scene), Clumps::default(), vec![], vec![]);
        }
        let ids = scene.particle_ids();
        let mut s = Particles::default();
        let mut clumps = Clumps::default();
        let (mut body, mut member) = (Vec::new(), Vec::new());
        for (p, &id) in scene.particles.iter().zip(&ids) {
            let Some(shape) = p.shape else {
                s.push_sphere(scene, p);
                s.id.push(id);
                s.dissipated.push(0.0);
                body.push(NONE);
                member.push(0);
                continue;
            };
            let sh = &scene.shapes[shape].body;
            let m = scene.particle_mass(p);
            let rho = scene.materials[p.material].density;
            let q = sh.engine_orientation(crate::shapes::table::written(p.orientation));
            let (x, v, w) = (
                DVec3::from(p.position),
                DVec3::from(p.velocity),
                DVec3::from(p.angular_velocity),
            );
            let k = clumps.len() as u32;
            let first = s.len() as u32;
            clumps.push(
                id,
                shape as u32,
                p.material as u32,
                m,
                sh.moments * rho,
                x,
                v,
                q,
                w,
                first..first + sh.members.len() as u32,
            );
            let inv_i = clumps.max_inv_moment(k as usize);
            for (j, mut c) in sh.members_at(x, q).enumerate() {
                let vm = v + w.cross(DVec3::new(c[0], c[1], c[2]) - x);
                let mut at = [c[0], c[1], c[2]];
                scene.domain.wrap(&mut at);
                c[..3].copy_from_slice(&at);
                s.pos_rad.push(c);
                s.vel_invm.push([vm.x, vm.y, vm.z, 1.0 / m]);
                s.omega_invi.push([w.x, w.y, w.z, inv_i]);
                s.material.push(p.material as u32);
                s.id.push(id);
                s.dissipated.push(0.0);
                body.push(k);
                member.push(j as u32);
            }
        }
        (s, clumps, body, member)
    }

    /// Appends `o`'s rows.
    pub fn append(&mut self, o: &Particles<f64>) {
        self.pos_rad.extend_from_slice(&o.pos_rad);
        self.vel_invm.extend_from_slice(&o.vel_invm);
        self.omega_invi.extend_from_slice(&o.omega_invi);
        self.material.extend_from_slice(&o.material);
        self.id.extend_from_slice(&o.id);
        self.dissipated.extend_from_slice(&o.dissipated);
    }

    /// Converts to the GPU's f32 layout (same arrays, same order).
    pub fn to_f32(&self) -> Particles<f32> {
        self.map_real(|x| x as f32)
    }

    /// Bytes per particle of the CPU path's arrays for scalar size `real`
    /// and `entries` neighbour-list entries per particle (particle partners
    /// and the wall primitives within reach; the GPU's:
    /// `gpu::data::bytes_per_particle`): state, force/torque work arrays,
    /// the motion record, the reference positions of the list, and the
    /// list with its history, twice (the current list and the one the next
    /// build moves the history from), and the build's scratch.
    /// A run whose rolling model keeps a torque holds
    /// [`Particles::rolling_bytes_per_particle`] more.
    pub fn bytes_per_particle(real: usize, entries: usize) -> usize {
        let state = 3 * 4 * real + 4 + 4 + real; // pos, vel, omega, material, id, dissipated
                                                 // force, torque, the motion record, pos_ref, key/order/count/start,
                                                 // the list's count and start (+ old start), the old → new index map
        let work = 2 * 4 * real + 16 * real + 3 * real + 4 * 4 + 3 * 4 + 4;
        // the list with its history (ξ, k_t: 4 reals) twice, and the
        // build's chunk buffers
        state + work + 2 * entries * (4 + 4 * real) + 4 * entries
    }

    /// The rolling torques' half of the history (`cpu::hist`), 4 reals an
    /// entry in both lists, in runs of `epsd` or `epsd2`.
    pub fn rolling_bytes_per_particle(real: usize, entries: usize) -> usize {
        2 * entries * 4 * real
    }
}
