//! Many independent impacts in one scene, and reading them back.
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

use super::theory::RIGID_FACTOR;
use crate::backend::Backend;
use crate::scene::{Material, Scene, SceneBuilder};
use crate::state::Particles;

pub type V3 = [f64; 3];

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}
fn axpy(s: f64, a: V3, b: V3) -> V3 {
    [s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2]]
}
fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
pub fn xyz(a: [f64; 4]) -> V3 {
    [a[0], a[1], a[2]]
}

/// Frame of a wall slot: (normal n, tangent t, spin axis b = n × t). A
/// sphere spinning with ω = s b has contact-point velocity v_t - R s along t.
pub fn wall_frame(slot: usize) -> (V3, V3, V3) {
    match slot {
        0 => ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        _ => ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]),
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
    pub gravity: V3,
    pub spacing: f64,
    pub far: f64,
    lanes: [usize; 2],
    pair_lanes: usize,
    pub dt: f64,
    /// (position, velocity, spin, radius, material) in id order.
    pub particles: Vec<(V3, V3, V3, f64, String)>,
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
            gravity: [0.0; 3],
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
        let (n, t, b) = wall_frame(slot);
        let lane = self.lanes[slot];
        self.lanes[slot] += 1;
        let y = self.spacing * (lane as f64 + 1.0);
        let base = match slot {
            0 => [self.far, y, 0.0],
            _ => [0.0, y, self.far],
        };
        let gap = v_n * t_gap;
        let pos = axpy(radius + gap, n, base);
        let vel = axpy(v_t, t, scale(n, -v_n));
        let id = self.particles.len() as u32;
        self.particles
            .push((pos, vel, scale(b, spin), radius, material.name.clone()));
        self.wall_impacts.push(WallImpact {
            id,
            slot,
            radius,
            mass: super::theory::sphere_mass(material, radius),
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
        let (n, ..) = wall_frame(slot);
        let p = &mut self.particles[id as usize].0;
        *p = axpy(-overlap, n, *p);
        id
    }

    /// Two spheres approaching along x (a from -x with `v_a`, b from +x with
    /// `v_b`, vectors), spins `w_a`, `w_b`, touching after `t_gap`.
    #[allow(clippy::too_many_arguments)]
    pub fn pair(
        &mut self,
        (ma, ra, va, wa): (&Material, f64, V3, V3),
        (mb, rb, vb, wb): (&Material, f64, V3, V3),
        t_gap: f64,
        (e, mu, mu_r): (f64, f64, f64),
    ) -> (u32, u32) {
        self.material(ma);
        self.material(mb);
        self.interaction(&ma.name, &mb.name, e, mu, mu_r);
        let lane = self.pair_lanes;
        self.pair_lanes += 1;
        let y = self.spacing * (lane as f64 + 1.0);
        let closing = (va[0] - vb[0]).max(0.0);
        let gap = closing * t_gap;
        let xa = 2.0 * self.far;
        let pa = [xa, y, 2.0 * self.far];
        let pb = [xa + ra + rb + gap, y, 2.0 * self.far];
        let a = self.particles.len() as u32;
        self.particles.push((pa, va, wa, ra, ma.name.clone()));
        self.particles.push((pb, vb, wb, rb, mb.name.clone()));
        self.pairs.push(PairImpact {
            a,
            b: a + 1,
            r_a: ra,
            r_b: rb,
            m_a: super::theory::sphere_mass(ma, ra),
            m_b: super::theory::sphere_mass(mb, rb),
        });
        (a, a + 1)
    }

    /// The scene (validated; `steps` only sets its nominal end).
    pub fn scene(&self, steps: u64) -> Result<Scene, String> {
        let mut hi = [0.0f64; 3];
        let mut rmax = 0.0f64;
        for (p, _, _, r, _) in &self.particles {
            for k in 0..3 {
                hi[k] = hi[k].max(p[k]);
            }
            rmax = rmax.max(*r);
        }
        let max = [
            hi[0] + self.spacing,
            hi[1] + self.spacing,
            hi[2] + self.spacing,
        ];
        let mut b = SceneBuilder::new(&self.name)
            .domain([0.0; 3], max)
            .gravity(self.gravity)
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
                let (n, ..) = wall_frame(slot);
                b = b.wall([0.0; 3], n, w);
            }
        }
        for (p, v, w, r, m) in &self.particles {
            b = b.particle_spin(*p, *v, *w, *r, m);
        }
        let _ = rmax;
        b.build().map_err(|e| e.to_string())
    }
}

/// A sphere's state relative to its wall.
#[derive(Debug, Clone, Copy)]
pub struct WallState {
    /// Velocity along n (away from the wall > 0), along t, along b.
    pub v_n: f64,
    pub v_t: f64,
    pub v_b: f64,
    /// Spin about b.
    pub spin: f64,
    pub overlap: f64,
}

pub fn wall_state(p: &Particles<f64>, w: &WallImpact) -> WallState {
    let i = w.id as usize;
    let (n, t, b) = wall_frame(w.slot);
    let x = xyz(p.pos_rad[i]);
    let v = xyz(p.vel_invm[i]);
    let om = xyz(p.omega_invi[i]);
    WallState {
        v_n: dot(v, n),
        v_t: dot(v, t),
        v_b: dot(v, b),
        spin: dot(om, b),
        overlap: w.radius - dot(x, n),
    }
}

/// A pair's state: normal n = (b - a)/|b - a|.
#[derive(Debug, Clone, Copy)]
pub struct PairState {
    pub overlap: f64,
    /// Relative velocity of b w.r.t. a along n (separating > 0).
    pub v_sep: f64,
    pub v_a: V3,
    pub v_b: V3,
    pub w_a: V3,
    pub w_b: V3,
}

pub fn pair_state(p: &Particles<f64>, q: &PairImpact) -> PairState {
    let (a, b) = (q.a as usize, q.b as usize);
    let d = sub(xyz(p.pos_rad[b]), xyz(p.pos_rad[a]));
    let dist = norm(d);
    let n = scale(d, 1.0 / dist);
    let v_a = xyz(p.vel_invm[a]);
    let v_b = xyz(p.vel_invm[b]);
    PairState {
        overlap: q.r_a + q.r_b - dist,
        v_sep: dot(sub(v_b, v_a), n),
        v_a,
        v_b,
        w_a: xyz(p.omega_invi[a]),
        w_b: xyz(p.omega_invi[b]),
    }
}

impl Lab {
    /// True when every impact has happened and separated.
    pub fn all_separated(&self, p: &Particles<f64>) -> bool {
        self.wall_impacts.iter().all(|w| {
            let s = wall_state(p, w);
            s.overlap < 0.0 && s.v_n > 0.0
        }) && self.pairs.iter().all(|q| {
            let s = pair_state(p, q);
            s.overlap < 0.0 && s.v_sep > 0.0
        })
    }

    /// Runs `steps`, then on until every impact has separated (checked in
    /// chunks of `steps / 8`, at most 4 × `steps` in all), then 4 more steps
    /// so the stored velocities are free-flight ones. Returns the snapshot
    /// and the steps run.
    pub fn run_to_separation(
        &self,
        be: &mut dyn Backend,
        steps: u64,
    ) -> Result<(Particles<f64>, u64), String> {
        be.advance(steps).map_err(|e| e.to_string())?;
        let mut done = steps;
        let chunk = (steps / 8).max(20);
        loop {
            let p = be.snapshot();
            if self.all_separated(&p) {
                break;
            }
            if done > 4 * steps {
                return Err(format!(
                    "{}: impacts not separated after {done} steps",
                    self.name
                ));
            }
            be.advance(chunk).map_err(|e| e.to_string())?;
            done += chunk;
        }
        be.advance(4).map_err(|e| e.to_string())?;
        Ok((be.snapshot(), done + 4))
    }
}

/// Every step's snapshot for `steps` steps (for force and overlap histories).
pub fn record(be: &mut dyn Backend, steps: u64) -> Result<Vec<Particles<f64>>, String> {
    let mut out = vec![be.snapshot()];
    for _ in 0..steps {
        be.advance(1).map_err(|e| e.to_string())?;
        out.push(be.snapshot());
    }
    Ok(out)
}

/// From an overlap history δ_k at t_k = k dt: the contact time from the
/// linearly interpolated zero crossings, and the largest overlap.
pub fn contact_time_and_max(overlaps: &[f64], dt: f64) -> Option<(f64, f64)> {
    let first = overlaps.iter().position(|&d| d > 0.0)?;
    let last = first + overlaps[first..].iter().position(|&d| d <= 0.0)? - 1;
    if first == 0 {
        return None;
    }
    let cross = |i: usize, j: usize| {
        // zero of the line through (i, δ_i), (j, δ_j)
        let (di, dj) = (overlaps[i], overlaps[j]);
        i as f64 + (j as f64 - i as f64) * di / (di - dj)
    };
    let t0 = cross(first - 1, first);
    let t1 = cross(last, last + 1);
    let max = overlaps[first..=last].iter().cloned().fold(0.0, f64::max);
    Some(((t1 - t0) * dt, max))
}
