//! The FEM bodies of a run and their exchange with the grains, the same for
//! both backends (the bodies are integrated on the CPU in f64 either way).
//!
//! **Exchange every K grain steps.** The grains see each body's surface as
//! triangles whose nodes move on straight lines over an interval of K grain
//! steps (`walls::surface`); over the interval they add each contact's
//! force to the nodes. At the interval's end the backend hands the summed
//! nodal forces to [`BodySet::exchange`], and the bodies advance.
//!
//! **Grains and bodies meet at every exchange.** At an exchange step s
//! both stand at t_s. Over the next interval each surface node moves on
//! from where the body stands with the body's velocity there, x(t) = x_s +
//! v_s (t − t_s), while the grains add up their forces; at s + K the body
//! advances over [s, s + K] under the interval's mean force and the
//! surfaces start again from where it then stands. With K = 1 this is the
//! plain synchronous explicit coupling (the contact stage of step s sees
//! the surface exactly where the body is); with K > 1 the surface's
//! straight path departs from the body's by about ½ a (K dt)² by the
//! interval's end, where it steps back onto the body: the error is second
//! order in K dt, measured against K = 1 in `tests/bodies.rs` and
//! `docs/performance.md`. Every impulse is handed over whole and at once,
//! so total momentum is exact at every exchange. (An earlier design let
//! the body run one interval ahead so that the surface's whole path was
//! known: the force then reached the body one interval late, and that
//! delay pumped energy into a bed resting on a soft plate until it blew
//! up.)
//!
//! **K.** `exchange_every` of the scene, or "auto": the largest K with K dt
//! at most half the body's critical explicit step (at least 1, at most
//! [`AUTO_EXCHANGE_MAX`]); a body whose critical step is below the grains'
//! dt sub-cycles inside one grain step. All bodies of a run share the
//! smallest K.
//!
//! **What is reported** (bodies.csv, energy.csv, the VTU series) is the
//! body as it stands after the last exchange ([`BodySet::now`], computed
//! when asked): the run driver rounds the output interval up to a
//! multiple of K, so an output row at step m·every + 1 (t = m·every·dt)
//! finds the body of the exchange at m·every (K > 1) or m·every + 1
//! (K = 1: one grain step later than the row's time).

use super::body::FemBody;
use super::contact::RigidPlane;
use super::error::FemError;
use crate::setup::Setup;
use glam::DVec3;

/// The largest "auto" exchange interval, in grain steps.
pub const AUTO_EXCHANGE_MAX: u64 = 10;

/// A body's quantities at one instant (what the outputs read).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyNow {
    pub positions: Vec<DVec3>,
    pub velocities: Vec<DVec3>,
    pub com: DVec3,
    pub com_velocity: DVec3,
    pub kinetic: f64,
    pub strain: f64,
    /// Penalty energy stored in its contacts with rigid walls.
    pub contact: f64,
    /// −Σ m g·x over its nodes (gravity of the interval).
    pub potential: f64,
    /// Cumulative: damping, friction.
    pub dissipated: f64,
    /// The grains' mean force on it over the last interval handed over,
    /// plus the rigid walls' (N).
    pub force: DVec3,
    /// Cauchy von Mises stress per element (Pa).
    pub von_mises: Vec<f64>,
}

/// One body of the run.
pub struct Coupled {
    pub name: String,
    pub body: FemBody,
    /// Its surface nodes (mesh node indices, in the order of its nodes
    /// among the run's surface nodes).
    pub surface_nodes: Vec<u32>,
    /// The grains' mean force on it over the last interval plus the rigid
    /// walls' (N).
    pub force: DVec3,
}

/// The FEM bodies of a run.
pub struct BodySet {
    pub bodies: Vec<Coupled>,
    /// K: grain steps per exchange.
    pub every: u64,
    /// The grains' step (s).
    pub dt: f64,
    gravity: [f64; 3],
    gravity_rotation: Option<crate::scene::GravityRotation>,
    /// The scene's resting plane walls, for every body.
    planes: Vec<Vec<RigidPlane>>,
    /// Exchanges done.
    pub exchanges: u64,
    /// The grain step of the last exchange (where the bodies stand).
    pub start_step: u64,
}

impl BodySet {
    /// The set-up's bodies at t = 0 (not yet started: [`BodySet::start`]),
    /// built on its meshes ([`Setup::body_meshes`]) at its `dt`. None when
    /// the scene has no body.
    pub fn new(setup: &Setup) -> Result<Option<BodySet>, String> {
        let scene = &setup.scene;
        if scene.bodies.is_empty() {
            return Ok(None);
        }
        let dt = setup.dt;
        let mut bodies = Vec::new();
        let mut every = u64::MAX;
        let mut planes = Vec::new();
        for (i, b) in scene.bodies.iter().enumerate() {
            let mesh = setup.body_meshes[i].clone();
            let body = super::build::build_body(scene, i, mesh).map_err(|e| e.to_string())?;
            let surf = super::mesh::surface(body.mesh());
            let k = match b.exchange_every {
                Some(k) => k as u64,
                None => auto_every(body.critical_dt().0, dt),
            };
            every = every.min(k);
            planes.push(rigid_planes(scene, &setup.pairs, i, &body));
            bodies.push(Coupled {
                name: b.label(i),
                body,
                surface_nodes: surf.nodes,
                force: DVec3::ZERO,
            });
        }
        Ok(Some(BodySet {
            bodies,
            every,
            dt,
            gravity: scene.simulation.gravity,
            gravity_rotation: scene.simulation.gravity_rotation,
            planes,
            exchanges: 0,
            start_step: 0,
        }))
    }

    /// Surface nodes of all bodies (the length of the surfaces' arrays).
    pub fn surface_len(&self) -> usize {
        self.bodies.iter().map(|c| c.surface_nodes.len()).sum()
    }

    /// The surfaces' motion over the interval that starts now: every
    /// surface node where the body stands, with its velocity.
    pub fn surface_motion(&self) -> (Vec<DVec3>, Vec<DVec3>) {
        let mut x0 = Vec::with_capacity(self.surface_len());
        let mut v = Vec::with_capacity(self.surface_len());
        for c in &self.bodies {
            let (x, u) = (c.body.positions(), c.body.velocities());
            for &k in &c.surface_nodes {
                x0.push(x[k as usize]);
                v.push(u[k as usize]);
            }
        }
        (x0, v)
    }

    /// At t = 0: the surfaces' first motion.
    pub fn start(&mut self) -> Result<(Vec<DVec3>, Vec<DVec3>), String> {
        Ok(self.surface_motion())
    }

    /// At the end of an interval (step `step`, a multiple of K): the grains'
    /// forces on the surface nodes summed over the interval's K steps; the
    /// bodies advance over the interval, to step `step`, under their mean.
    /// Returns the surfaces' motion over the next interval.
    pub fn exchange(
        &mut self,
        force_sum: &[DVec3],
        step: u64,
    ) -> Result<(Vec<DVec3>, Vec<DVec3>), String> {
        let mean: Vec<DVec3> = force_sum.iter().map(|f| *f / self.every as f64).collect();
        self.advance_bodies(&mean, step)?;
        self.exchanges += 1;
        Ok(self.surface_motion())
    }

    /// Every body from step `step` − K to `step` under the surface forces
    /// `mean` (all bodies' surface nodes in order).
    fn advance_bodies(&mut self, mean: &[DVec3], step: u64) -> Result<(), String> {
        let span = self.every as f64 * self.dt;
        let t_mid = step as f64 * self.dt - 0.5 * span;
        let g = DVec3::from(crate::scene::gravity_at(
            self.gravity,
            self.gravity_rotation,
            t_mid,
        ));
        let mut at = 0;
        for (c, planes) in self.bodies.iter_mut().zip(&self.planes) {
            let n = c.body.positions().len();
            let mut ext = vec![DVec3::ZERO; n];
            let mut grains = DVec3::ZERO;
            for (&k, f) in c.surface_nodes.iter().zip(&mean[at..]) {
                ext[k as usize] = *f;
                grains += *f;
            }
            at += c.surface_nodes.len();
            c.body
                .advance(span, &ext, g, planes)
                .map_err(|e: FemError| format!("body \"{}\": {e}", c.name))?;
            c.force = grains + c.body.wall_force();
        }
        self.start_step = step;
        Ok(())
    }

    /// Each body as it stands now (after the exchange at
    /// [`BodySet::start_step`]): positions, energies, stresses.
    pub fn now(&self) -> Vec<BodyNow> {
        let t = self.start_step as f64 * self.dt;
        let g = DVec3::from(crate::scene::gravity_at(
            self.gravity,
            self.gravity_rotation,
            t,
        ));
        self.bodies
            .iter()
            .map(|c| now(&c.body, g, c.force))
            .collect()
    }

    /// Every body's surface triangles where it stands now (outward,
    /// counter-clockwise), labelled `first_label + body index` (the
    /// viewer draws them as walls after the scene's).
    pub fn surface_triangles(&self, first_label: usize) -> Vec<(usize, Vec<[[f64; 3]; 3]>)> {
        self.bodies
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let x = c.body.positions();
                let tris = c
                    .body
                    .surface()
                    .tris
                    .iter()
                    .map(|t| t.map(|k| x[k as usize].to_array()))
                    .collect();
                (first_label + i, tris)
            })
            .collect()
    }

    /// Everything needed to continue bit for bit (the bodies' states and
    /// the exchange count), as f64 words.
    pub fn save(&self) -> Vec<f64> {
        let mut out = vec![
            self.exchanges as f64,
            self.bodies.len() as f64,
            self.start_step as f64,
        ];
        for c in &self.bodies {
            let s = c.body.state();
            out.push(s.len() as f64);
            out.extend(s);
            out.extend(c.force.to_array());
        }
        out
    }

    /// Restores what [`BodySet::save`] wrote.
    pub fn restore(&mut self, words: &[f64]) -> Result<(), String> {
        let bad = || "the checkpoint's FEM bodies section does not fit this scene".to_string();
        let mut at = 3;
        if words.len() < 3 || words[1] as usize != self.bodies.len() {
            return Err(bad());
        }
        self.exchanges = words[0] as u64;
        self.start_step = words[2] as u64;
        for c in &mut self.bodies {
            let take = |at: &mut usize| -> Result<&[f64], String> {
                let n = *words.get(*at).ok_or_else(bad)? as usize;
                let s = words.get(*at + 1..*at + 1 + n).ok_or_else(bad)?;
                *at += 1 + n;
                Ok(s)
            };
            let s = take(&mut at)?;
            c.body.set_state(s).map_err(|e| e.to_string())?;
            let f = words.get(at..at + 3).ok_or_else(bad)?;
            c.force = DVec3::new(f[0], f[1], f[2]);
            at += 3;
        }
        Ok(())
    }
}

/// "auto" K for a body of critical explicit step `critical` and grains of
/// step `dt`.
pub fn auto_every(critical: f64, dt: f64) -> u64 {
    let k = (0.5 * critical / dt).floor();
    if k.is_finite() {
        (k as u64).clamp(1, AUTO_EXCHANGE_MAX)
    } else {
        1
    }
}

/// The body's quantities now, gravity `g`, under total force `force`.
fn now(b: &FemBody, g: DVec3, force: DVec3) -> BodyNow {
    let x = b.positions();
    let m = b.masses();
    let potential = -x.iter().zip(m).map(|(x, m)| m * g.dot(*x)).sum::<f64>();
    BodyNow {
        positions: x.to_vec(),
        velocities: b.velocities().to_vec(),
        com: b.center_of_mass(),
        com_velocity: b.com_velocity(),
        kinetic: b.kinetic_energy(),
        strain: b.strain_energy(),
        contact: b.contact_energy(),
        potential,
        dissipated: b.dissipated(),
        force,
        von_mises: b.von_mises(),
    }
}

/// The rigid walls body `index` meets: the scene's resting planes, with the
/// body's `wall_stiffness` ("auto": E ℓ, ℓ the mean edge of its surface
/// triangles: about the stiffness of the elements under the node) and the
/// pair's friction coefficient (from `table`, the scene's pair table).
fn rigid_planes(
    scene: &crate::scene::Scene,
    table: &crate::pair::PairTable,
    index: usize,
    body: &FemBody,
) -> Vec<RigidPlane> {
    let b = &scene.bodies[index];
    let stiffness = b.wall_stiffness.unwrap_or_else(|| {
        let e = scene.materials[b.material].youngs_modulus;
        e * mean_surface_edge(body)
    });
    scene
        .walls
        .iter()
        .filter(|w| w.motion.is_none() && w.servo.is_none())
        .filter_map(|w| {
            let (point, normal) = w.as_plane()?;
            let mu = table.get(b.material as u32, w.material as u32).friction;
            Some(
                RigidPlane::new(DVec3::from(point), DVec3::from(normal), stiffness)
                    .with_friction(mu),
            )
        })
        .collect()
}

/// The mean edge length of a body's surface triangles (m).
fn mean_surface_edge(body: &FemBody) -> f64 {
    let x = body.positions();
    let s = super::mesh::surface(body.mesh());
    let (sum, n) = s.tris.iter().fold((0.0, 0usize), |(sum, n), t| {
        let [a, b, c] = t.map(|k| x[k as usize]);
        (sum + a.distance(b) + b.distance(c) + c.distance(a), n + 3)
    });
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}
