//! The accuracy a scene's time step gives, measured rather than promised:
//! a head-on impact of two of its smallest particles at the scene's impact
//! speed, run on the CPU path with the scene's dt, materials and contact
//! law, and the largest energy-balance error it shows (what `talus run`
//! warns about past [`super::driver::WARN_RESIDUAL`]). `talus check`
//! prints it beside the stability limit: a dt just under the limit is
//! stable and still far off.

use super::simulation::Simulation;
use crate::cpu::CpuBackend;
use crate::scene::types::{Dt, End, ParticleInit, SourceInfo};
use crate::setup::Setup;
use std::sync::Arc;

/// The impact measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairImpact {
    /// Relative speed (m/s) and radius (m) of the pair.
    pub speed: f64,
    pub radius: f64,
    /// Steps the contact lasted.
    pub steps_in_contact: u64,
    /// |residual| / energy that moved once the pair has parted: what the
    /// impact leaves in a run's balance.
    pub residual: f64,
    /// The largest of it while in contact (the integration's error of the
    /// moment, undone in part as the pair parts).
    pub residual_peak: f64,
}

/// The most steps the measurement runs (a dt far below the contact time
/// needs no measuring).
const MAX_STEPS: u64 = 20_000;

/// Measures [`PairImpact`] for `setup`'s scene (None: it has no particles
/// to pair, or the pair cannot be set up).
pub fn pair_impact(setup: &Setup) -> Option<PairImpact> {
    let scene = &setup.scene;
    // the smallest particle present or poured, and its material
    let smallest = scene
        .particles
        .iter()
        .map(|p| (p.radius, p.material))
        .chain(scene.inserts.iter().map(|i| (i.radius.min(), i.material)))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    let (r, material) = smallest;
    let v = setup.estimate.impact_speed;
    let dt = setup.dt;
    let tc = setup.estimate.contact_time;
    if !(r > 0.0 && v > 0.0 && tc.is_finite()) {
        return None;
    }
    let gap = 0.05 * r;
    let steps = ((gap / v + 2.0 * tc) / dt).ceil() as u64 + 2;
    if steps > MAX_STEPS {
        return None;
    }
    let mut s = scene.clone();
    let at = |x: f64, vx: f64| ParticleInit {
        position: [x, 0.0, 0.0],
        velocity: [vx, 0.0, 0.0],
        angular_velocity: [0.0; 3],
        radius: r,
        material,
        source: 0,
        id: None,
        shape: None,
        orientation: crate::scene::types::IDENTITY,
    };
    s.particles = vec![at(-r - 0.5 * gap, 0.5 * v), at(r + 0.5 * gap, -0.5 * v)];
    s.sources = vec![SourceInfo {
        label: "pair".into(),
        generated: false,
    }];
    s.walls.clear();
    s.inserts.clear();
    s.outlets.clear();
    s.bodies.clear();
    let reach = 4.0 * r + v * steps as f64 * dt;
    s.domain.min = [-reach, -2.0 * r, -2.0 * r];
    s.domain.max = [reach, 2.0 * r, 2.0 * r];
    s.domain.periodic = [false; 3];
    s.simulation.gravity = [0.0; 3];
    s.simulation.gravity_rotation = None;
    s.simulation.dt = Dt::Fixed(dt);
    s.simulation.end = End::Steps(steps);
    let pair = Arc::new(Setup::new(s).ok()?);
    let cpu = CpuBackend::from_setup(&pair).ok()?;
    let mut sim = Simulation::new(pair.clone(), cpu);
    // the reference at step 1, as a run's first energy row
    sim.advance(1).ok()?;
    sim.balance();
    let (mut worst, mut touching, mut last) = (0.0f64, 0, 0.0);
    while sim.step() < steps {
        sim.advance(1).ok()?;
        let b = sim.balance();
        worst = worst.max(b.residual_ratio);
        last = b.residual_ratio;
        if b.particles.elastic > 0.0 {
            touching += 1;
        }
    }
    Some(PairImpact {
        speed: v,
        radius: r,
        steps_in_contact: touching,
        residual: last,
        residual_peak: worst,
    })
}
