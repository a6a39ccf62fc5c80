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
//! | `wall_hist`  | `[T; 4]` × walls        | tangential history with each wall: ξ (m), xyz; w = k_t of the last step (N/m); zero: no contact |
//!
//! The tangential history of particle pairs is not per particle: it lives
//! beside the neighbour list, one entry per listed partner (`cpu::Work::
//! nbr_hist`, the GPU's `nbr_hist`), and moves to the new list when the
//! list is rebuilt. It is stored in the *canonical* orientation of a pair
//! (as seen from the lower id), so both partners hold the same bits and
//! compute the same force with opposite signs; wall history is seen from
//! the particle.

use crate::scene::Scene;
use bytemuck::Pod;

#[derive(Debug, Clone, PartialEq)]
pub struct Particles<T: Pod> {
    pub pos_rad: Vec<[T; 4]>,
    pub vel_invm: Vec<[T; 4]>,
    pub omega_invi: Vec<[T; 4]>,
    pub material: Vec<u32>,
    pub id: Vec<u32>,
    pub dissipated: Vec<T>,
    /// `walls` entries per particle.
    pub wall_hist: Vec<[T; 4]>,
    pub walls: usize,
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

    /// Gathers `self` permuted by `order` into `out` (same length and
    /// walls), in parallel and without allocating.
    pub fn permute_into(&self, order: &[u32], out: &mut Particles<T>) {
        use rayon::prelude::*;
        fn g<X: Copy + Send + Sync>(src: &[X], dst: &mut [X], order: &[u32]) {
            dst.par_iter_mut()
                .zip(order.par_iter())
                .for_each(|(d, &i)| *d = src[i as usize]);
        }
        g(&self.pos_rad, &mut out.pos_rad, order);
        g(&self.vel_invm, &mut out.vel_invm, order);
        g(&self.omega_invi, &mut out.omega_invi, order);
        g(&self.material, &mut out.material, order);
        g(&self.id, &mut out.id, order);
        g(&self.dissipated, &mut out.dissipated, order);
        let w = self.walls;
        if w > 0 {
            out.wall_hist
                .par_chunks_mut(w)
                .zip(order.par_iter())
                .for_each(|(d, &i)| {
                    let i = i as usize;
                    d.copy_from_slice(&self.wall_hist[i * w..(i + 1) * w]);
                });
        }
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
            wall_hist: m4(&self.wall_hist),
            walls: self.walls,
        }
    }
}

impl Particles<f64> {
    /// The initial state of a scene: ids in input order, no history.
    pub fn from_scene(scene: &Scene) -> Self {
        let n = scene.particles.len();
        let walls = scene.walls.len();
        let mut s = Particles {
            pos_rad: Vec::with_capacity(n),
            vel_invm: Vec::with_capacity(n),
            omega_invi: Vec::with_capacity(n),
            material: Vec::with_capacity(n),
            id: (0..n as u32).collect(),
            dissipated: vec![0.0; n],
            wall_hist: vec![[0.0; 4]; n * walls],
            walls,
        };
        for p in &scene.particles {
            let m = scene.particle_mass(p);
            let inertia = 0.4 * m * p.radius * p.radius;
            let [x, y, z] = p.position;
            let [vx, vy, vz] = p.velocity;
            let [wx, wy, wz] = p.angular_velocity;
            s.pos_rad.push([x, y, z, p.radius]);
            s.vel_invm.push([vx, vy, vz, 1.0 / m]);
            s.omega_invi.push([wx, wy, wz, 1.0 / inertia]);
            s.material.push(p.material as u32);
        }
        s
    }

    /// Converts to the GPU's f32 layout (same arrays, same order).
    pub fn to_f32(&self) -> Particles<f32> {
        self.map_real(|x| x as f32)
    }

    /// Bytes per particle of the CPU path's arrays for scalar size `real`,
    /// `walls` walls and `candidates` neighbour-list entries per particle
    /// (the GPU's: `gpu::data::bytes_per_particle`): state, wall history,
    /// force/torque work arrays, the reference positions of the list, and
    /// the list with its pair history, twice (the current list and the one
    /// the next build moves the history from).
    pub fn bytes_per_particle(real: usize, walls: usize, candidates: usize) -> usize {
        let state = 3 * 4 * real + 4 + 4 + real; // pos, vel, omega, material, id, dissipated
        let wall_history = walls * 4 * real;
        // force, torque (+ prev), pos_ref, key/order/count/start, the list's
        // count and start (+ old start) and the id → old index map
        let work = 4 * 4 * real + 3 * real + 4 * 4 + 3 * 4 + 4;
        state + wall_history + work + 2 * candidates * (4 + 4 * real)
    }
}
