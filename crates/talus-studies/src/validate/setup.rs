//! Many independent impacts in one scene (reading them back:
//! `readback.rs`).
//!
//! Sphere–wall impacts use one of two wall *slots*: slot 0 is the floor
//! z = 0 (normal +z, tangent +x), slot 1 the wall x = 0 (normal +x, tangent
//! +z). Spheres of slot 0 sit in lanes along y at x = `far`, those of slot 1
//! at z = `far`, so no sphere ever reaches the other slot's wall and
//! coordinates stay small along each wall normal (f32 overlaps on the GPU
//! keep their precision). Sphere pairs collide along x, in lanes along y at
//! x = z = 2 `far`. Walls are infinite planes; spheres of one scene never
//! touch each other (lanes are `spacing` apart, several radii more than
//! any sphere travels sideways in a run).
//!
//! A wall's material is the sphere family's with Young's modulus ×
//! [`RIGID_FACTOR`] and the same ν: a "rigid" wall.

use super::theory::{sphere_mass, RIGID_FACTOR};
use glam::{DMat3, DVec3};
use talus::scene::{Material, Scene, SceneBuilder};

/// The frame of a wall slot: a matrix whose columns are the normal n, the
/// tangent t and the spin axis b = n × t, so `frame * local` turns (along n,
/// along t, about b) into world coordinates and `frame.transpose() * world`
/// turns them back. A sphere spinning with ω = s b has contact-point
/// velocity v_t - R s along t.
pub fn wall_frame(slot: usize) -> DMat3 {
    match slot {
        0 => DMat3::from_cols(DVec3::Z, DVec3::X, DVec3::Y),
        _ => DMat3::from_cols(DVec3::X, DVec3::Z, DVec3::NEG_Y),
    }
}

/// A sphere–wall impact placed in a scene.
#[derive(Debug, Clone)]
pub struct WallImpact {
    pub id: u32,
    pub slot: usize,
    pub radius: f64,
    pub mass: f64,
    pub material: String,
    /// Approach speed along -n (> 0), tangential speed along t, spin s.
    pub v_n: f64,
    pub v_t: f64,
    pub spin: f64,
}

/// A sphere–sphere impact along x: a at lower x, b at higher x.
#[derive(Debug, Clone)]
pub struct PairImpact {
    pub a: u32,
    pub b: u32,
    pub r_a: f64,
    pub r_b: f64,
    pub m_a: f64,
    pub m_b: f64,
}

/// A scene under construction: materials, walls, impacts.
pub struct Lab {
    pub name: String,
    pub materials: Vec<Material>,
    pub interactions: Vec<(String, String, f64, f64, f64)>,
    pub walls: [Option<String>; 2],
    pub gravity: DVec3,
    pub spacing: f64,
    pub far: f64,
    lanes: [usize; 2],
    pair_lanes: usize,
    pub dt: f64,
    /// (position, velocity, spin, radius, material) in id order.
    pub particles: Vec<(DVec3, DVec3, DVec3, f64, String)>,
    pub wall_impacts: Vec<WallImpact>,
    pub pairs: Vec<PairImpact>,
}

impl Lab {
    /// `r_max`: the largest radius (sets lane spacing and distances).
    pub fn new(name: &str, r_max: f64, dt: f64) -> Lab {
        Lab {
            name: name.into(),
            materials: Vec::new(),
            interactions: Vec::new(),
            walls: [None, None],
            gravity: DVec3::ZERO,
            spacing: 6.0 * r_max,
            far: 10.0 * r_max,
            lanes: [0; 2],
            pair_lanes: 0,
            dt,
            particles: Vec::new(),
            wall_impacts: Vec::new(),
            pairs: Vec::new(),
        }
    }

    pub fn material(&mut self, m: &Material) {
        if !self.materials.iter().any(|x| x.name == m.name) {
            self.materials.push(m.clone());
        }
    }

    pub fn mat(&self, name: &str) -> &Material {
        self.materials
            .iter()
            .find(|m| m.name == name)
            .expect("material added")
    }

    /// Restitution, friction and rolling friction of a material pair.
    pub fn interaction(&mut self, a: &str, b: &str, e: f64, mu: f64, mu_r: f64) {
        self.interactions
            .retain(|(x, y, ..)| !((x == a && y == b) || (x == b && y == a)));
        self.interactions.push((a.into(), b.into(), e, mu, mu_r));
    }

    /// The rigid wall material of a family: E × RIGID_FACTOR, same ν, ρ.
    pub fn rigid(m: &Material) -> Material {
        Material {
            name: format!("{} wall", m.name),
            youngs_modulus: m.youngs_modulus * RIGID_FACTOR,
            ..m.clone()
        }
    }

    /// Puts the wall of `slot`, made of the rigid version of `family`.
    pub fn wall(&mut self, slot: usize, family: &Material) -> String {
        let w = Lab::rigid(family);
        self.material(&w);
        self.walls[slot] = Some(w.name.clone());
        w.name
    }

    /// A sphere of `material` heading for the wall of `slot` at normal speed
    /// `v_n`, tangential `v_t`, spin `spin` (about b), reaching it after
    /// `t_gap` seconds. The pair (material, wall) gets restitution `e`,
    /// friction `mu`, rolling friction `mu_r`.
    #[allow(clippy::too_many_arguments)]
    pub fn wall_impact(
        &mut self,
        slot: usize,
        material: &Material,
        radius: f64,
        v_n: f64,
        v_t: f64,
        spin: f64,
        t_gap: f64,
        (e, mu, mu_r): (f64, f64, f64),
    ) -> u32 {
        let wall = self.walls[slot].clone().expect("wall slot set first");
        self.material(material);
        self.interaction(&material.name, &wall, e, mu, mu_r);
        let frame = wall_frame(slot);
        let lane = self.lanes[slot];
        self.lanes[slot] += 1;
        let y = self.spacing * (lane as f64 + 1.0);
        let base = match slot {
            0 => DVec3::new(self.far, y, 0.0),
            _ => DVec3::new(0.0, y, self.far),
        };
        let gap = v_n * t_gap;
        let pos = base + (radius + gap) * frame.x_axis;
        // (along n, along t, about b) in world coordinates
        let vel = frame * DVec3::new(-v_n, v_t, 0.0);
        let omega = frame * DVec3::new(0.0, 0.0, spin);
        let id = self.particles.len() as u32;
        self.particles
            .push((pos, vel, omega, radius, material.name.clone()));
        self.wall_impacts.push(WallImpact {
            id,
            slot,
            radius,
            mass: sphere_mass(material, radius),
            material: material.name.clone(),
            v_n,
            v_t,
            spin,
        });
        id
    }

    /// A sphere resting on the wall of `slot` (at the Hertz equilibrium
    /// overlap under gravity `g` along -n), moving with v_t and spin.
    #[allow(clippy::too_many_arguments)]
    pub fn resting(
        &mut self,
        slot: usize,
        material: &Material,
        radius: f64,
        v_t: f64,
        spin: f64,
        overlap: f64,
        (e, mu, mu_r): (f64, f64, f64),
    ) -> u32 {
        let id = self.wall_impact(slot, material, radius, 0.0, v_t, spin, 0.0, (e, mu, mu_r));
        let n = wall_frame(slot).x_axis;
        self.particles[id as usize].0 -= overlap * n;
        id
    }

    /// Two spheres approaching along x (a from -x with `v_a`, b from +x with
    /// `v_b`, vectors), spins `w_a`, `w_b`, touching after `t_gap`.
    #[allow(clippy::too_many_arguments)]
    pub fn pair(
        &mut self,
        (ma, ra, va, wa): (&Material, f64, DVec3, DVec3),
        (mb, rb, vb, wb): (&Material, f64, DVec3, DVec3),
        t_gap: f64,
        (e, mu, mu_r): (f64, f64, f64),
    ) -> (u32, u32) {
        self.material(ma);
        self.material(mb);
        self.interaction(&ma.name, &mb.name, e, mu, mu_r);
        let lane = self.pair_lanes;
        self.pair_lanes += 1;
        let y = self.spacing * (lane as f64 + 1.0);
        let closing = (va.x - vb.x).max(0.0);
        let gap = closing * t_gap;
        let xa = 2.0 * self.far;
        let pa = DVec3::new(xa, y, 2.0 * self.far);
        let pb = DVec3::new(xa + ra + rb + gap, y, 2.0 * self.far);
        let a = self.particles.len() as u32;
        self.particles.push((pa, va, wa, ra, ma.name.clone()));
        self.particles.push((pb, vb, wb, rb, mb.name.clone()));
        self.pairs.push(PairImpact {
            a,
            b: a + 1,
            r_a: ra,
            r_b: rb,
            m_a: sphere_mass(ma, ra),
            m_b: sphere_mass(mb, rb),
        });
        (a, a + 1)
    }

    /// The scene (validated; `steps` only sets its nominal end).
    pub fn scene(&self, steps: u64) -> Result<Scene, String> {
        let hi = self
            .particles
            .iter()
            .fold(DVec3::ZERO, |hi, (p, ..)| hi.max(*p));
        let max = hi + self.spacing;
        let mut b = SceneBuilder::new(&self.name)
            .domain([0.0; 3], max.to_array())
            .gravity(self.gravity.to_array())
            .dt(self.dt)
            .steps(steps.max(1));
        for m in &self.materials {
            b = b.material(m.clone());
        }
        for (x, y, e, mu, mr) in &self.interactions {
            b = b.interaction(x, y, Some(*e), Some(*mu), Some(*mr));
        }
        for (slot, w) in self.walls.iter().enumerate() {
            if let Some(w) = w {
                let n = wall_frame(slot).x_axis;
                b = b.wall([0.0; 3], n.to_array(), w);
            }
        }
        for (p, v, w, r, m) in &self.particles {
            b = b.particle_spin(p.to_array(), v.to_array(), w.to_array(), *r, m);
        }
        b.build().map_err(|e| e.to_string())
    }
}
