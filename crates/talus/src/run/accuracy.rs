//! The accuracy a scene's time step gives, measured rather than promised:
//! a head-on impact of two of its smallest particles at the scene's impact
//! speed, run on the CPU path with the scene's dt, materials and contact
//! law, and the largest energy-balance error it shows (what `talus run`
//! warns about past [`super::driver::WARN_RESIDUAL`]). `talus check`
//! prints it beside the stability limit: a dt just under the limit is
//! stable and still far off.

use super::simulation::Simulation;
use crate::cpu::CpuBackend;
use crate::scene::types::{Dt, End, ParticleInit, Scene, SourceInfo};
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

/// What cohesion does to the contacts most exposed to it: those of the
/// smallest particle of each material, with its own kind and with each
/// wall ([`cohesion_estimate`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CohesionEstimate {
    /// The pull's stiffness k dA/dδ at δ → 0 (N/m): 2π k R* for `sjkr`
    /// (particles and walls) and at a wall for `sjkr2`, 4π k R* between
    /// particles for `sjkr2`. A negative spring in the contact.
    pub pull_stiffness: f64,
    /// √(pull stiffness / m*) (1/s): the rate at which the pull draws a
    /// pair in at first contact; dt times it should stay well below 1 for
    /// the snap-in to be resolved (the Rayleigh step usually keeps it
    /// below 0.1).
    pub rate: f64,
    /// The most tension the contact holds: the largest k A(δ) − F_el(δ)
    /// over the overlap (N); ∞ when the pull outgrows the linear spring
    /// (k_n below the pull's stiffness: the contact would collapse).
    pub hold: f64,
    /// `hold` over the particle's weight (the granular Bond number; ∞
    /// without gravity).
    pub bond_number: f64,
    /// The particle's radius (m), and whether the partner is a wall.
    pub radius: f64,
    pub wall: bool,
}

/// One contact most exposed to cohesion: the smallest particle of a
/// material with its own kind (R* = r/2, m* = m/2) or with a wall (R* = r,
/// m* = m), and the pair's parameters.
struct Exposed {
    radius: f64,
    mass: f64,
    wall: bool,
    pair: crate::pair::PairParams,
    r_star: f64,
    m_star: f64,
}

/// The contacts cohesion is judged on: each material's smallest particle
/// with its own kind and with each wall.
fn exposed_contacts(scene: &Scene, table: &crate::pair::PairTable) -> Vec<Exposed> {
    let rmin = crate::timestep::smallest_radii(scene);
    let mut out = Vec::new();
    for (mi, &r) in rmin.iter().enumerate() {
        if !(r.is_finite() && r > 0.0) {
            continue;
        }
        let m = scene.materials[mi].density * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let mut partners = vec![(mi, false)];
        partners.extend(scene.walls.iter().map(|w| (w.material, true)));
        for (mj, wall) in partners {
            let (r_star, m_star) = if wall { (r, m) } else { (0.5 * r, 0.5 * m) };
            out.push(Exposed {
                radius: r,
                mass: m,
                wall,
                pair: *table.get(mi as u32, mj as u32),
                r_star,
                m_star,
            });
        }
    }
    out
}

/// The cohesive contact with the fastest snap-in over the smallest
/// particle of each material, its own kind and the walls as partners
/// (None without a cohesion model or with nothing cohesive). Cohesion does
/// not enter `dt = "auto"`: its pull lowers the contact's stiffness.
pub fn cohesion_estimate(scene: &Scene) -> Option<CohesionEstimate> {
    use crate::scene::types::ContactModel;
    use crate::scene::Cohesion;
    use crate::timestep::linear_coefficients;
    let model = scene.contact.cohesion;
    if model == Cohesion::None {
        return None;
    }
    let table = crate::pair::PairTable::new(scene);
    let g = glam::DVec3::from(scene.simulation.gravity).length();
    let mut worst: Option<CohesionEstimate> = None;
    for c in exposed_contacts(scene, &table) {
        let (r, m, wall, pp, r_star, m_star) =
            (c.radius, c.mass, c.wall, &c.pair, c.r_star, c.m_star);
        let k = pp.cohesion_energy_density;
        if k <= 0.0 {
            continue;
        }
        // the law's own pull (equal spheres between particles), and its
        // stiffness at first touch (the pull is linear in δ there: its
        // slope at 10⁻⁹ r is the limit's to ~10⁻⁹)
        let rb = if wall { f64::INFINITY } else { r };
        let pull = |d: f64| crate::cpu::law::cohesion_one(model, k, r, rb, d).0;
        let pull_stiffness = pull(1e-9 * r) / (1e-9 * r);
        let elastic = |d: f64| match scene.contact.model {
            ContactModel::HertzMindlin => 4.0 / 3.0 * pp.e_star * (r_star * d).sqrt() * d,
            ContactModel::Linear => {
                linear_coefficients(
                    m_star,
                    pp.restitution,
                    scene.contact.stiffness,
                    scene.contact.contact_time,
                )
                .0 * d
            }
        };
        // the largest net pull over overlaps up to half the radius
        let hold = if scene.contact.model == ContactModel::Linear && elastic(1.0) <= pull_stiffness
        {
            f64::INFINITY
        } else {
            (0..2000)
                .map(|i| 0.5 * r * 1e-12f64.powf(1.0 - i as f64 / 1999.0))
                .map(|d| pull(d) - elastic(d))
                .fold(0.0, f64::max)
        };
        let e = CohesionEstimate {
            pull_stiffness,
            rate: (pull_stiffness / m_star).sqrt(),
            hold,
            bond_number: if g > 0.0 {
                hold / (m * g)
            } else {
                f64::INFINITY
            },
            radius: r,
            wall,
        };
        if worst.is_none_or(|w| e.rate > w.rate) {
            worst = Some(e);
        }
    }
    worst
}

/// What JKR adhesion does to the contacts most exposed to it (the
/// smallest particle of each material, with its own kind and with each
/// wall; [`jkr_estimate`]): the weakest such contact against its
/// particle's weight, and the stiffest at rest against the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JkrEstimate {
    /// The particle's radius (m), whether the partner is a wall, and the
    /// contact's pull-off force 1.5 π γ R* (N) over the particle's weight
    /// (the granular Bond number; ∞ without gravity), the smallest over
    /// the contacts.
    pub radius: f64,
    pub wall: bool,
    pub pull_off: f64,
    pub bond_number: f64,
    /// The largest √(k/m*) (1/s) over the contacts, k = dF/dδ at JKR's
    /// zero-load overlap: dt times it should stay well below 1.
    pub rate: f64,
    /// How far apart (m) surfaces may get before a held contact parts, at
    /// most over the run (`PairTable::jkr_reach`): under the skin.
    pub reach: f64,
}

/// The JKR summary of a scene (None without JKR or with no surface
/// energy anywhere).
pub fn jkr_estimate(scene: &Scene) -> Option<JkrEstimate> {
    use crate::cpu::jkr::JkrPair;
    use std::f64::consts::PI;
    if scene.contact.cohesion != crate::scene::Cohesion::Jkr {
        return None;
    }
    let table = crate::pair::PairTable::new(scene);
    let g = glam::DVec3::from(scene.simulation.gravity).length();
    let mut out: Option<JkrEstimate> = None;
    let mut rate = 0.0f64;
    for c in exposed_contacts(scene, &table) {
        let (r, m, wall, pp, r_star, m_star) =
            (c.radius, c.mass, c.wall, &c.pair, c.r_star, c.m_star);
        if pp.surface_energy <= 0.0 {
            continue;
        }
        let jkr = JkrPair::new(r_star, pp.e_star, pp.surface_energy);
        // the zero-load overlap: F = 0 where a³ = 9πγR*²/(2E*)
        let a = (9.0 * PI * pp.surface_energy * r_star * r_star / (2.0 * pp.e_star)).cbrt();
        let d0 = a * a / r_star - (2.0 * PI * pp.surface_energy * a / pp.e_star).sqrt();
        let h = 1e-4 * jkr.reach();
        let k = match (jkr.at(d0 + h), jkr.at(d0 - h)) {
            (Some((fp, _)), Some((fm, _))) => (fp - fm) / (2.0 * h),
            _ => 0.0,
        };
        rate = rate.max((k / m_star).sqrt());
        let pull_off = jkr.pull_off();
        let bond_number = if g > 0.0 {
            pull_off / (m * g)
        } else {
            f64::INFINITY
        };
        if out.is_none_or(|o| bond_number < o.bond_number) {
            out = Some(JkrEstimate {
                radius: r,
                wall,
                pull_off,
                bond_number,
                rate: 0.0,
                reach: table.jkr_reach(scene),
            });
        }
    }
    out.map(|o| JkrEstimate { rate, ..o })
}

#[cfg(test)]
mod cohesion_tests {
    use super::cohesion_estimate;
    use crate::scene::{Cohesion, Material, SceneBuilder};
    use std::f64::consts::PI;

    /// The pull's stiffness at first touch is 2π k R* (sjkr; R* = r/2
    /// between equal spheres) and 4π k R* (sjkr2), the hold is finite for
    /// Hertz and unbounded for a linear spring softer than the pull, and a
    /// dry scene has no estimate.
    #[test]
    fn cohesion_estimates() {
        let (k, r) = (1e5, 1e-3);
        let scene = |model, linear: Option<f64>| {
            let mut b = SceneBuilder::new("c")
                .domain([0.0; 3], [0.01; 3])
                .steps(1)
                .material(Material {
                    cohesion_energy_density: k,
                    ..Material::new("m", 2500.0, 5e6)
                })
                .cohesion(model)
                .particle([0.005; 3], [0.0; 3], r, "m");
            if let Some(kn) = linear {
                b = b.linear_stiffness(kn);
            }
            b.build().unwrap()
        };
        assert!(cohesion_estimate(&scene(Cohesion::None, None)).is_none());
        for (model, want) in [
            (Cohesion::Sjkr, PI * k * r),
            (Cohesion::Sjkr2, 2.0 * PI * k * r),
        ] {
            let e = cohesion_estimate(&scene(model, None)).unwrap();
            assert!(
                (e.pull_stiffness / want - 1.0).abs() < 1e-6,
                "{model:?} {e:?}"
            );
            assert!(
                e.hold.is_finite() && e.hold > 0.0 && e.bond_number > 1.0,
                "{e:?}"
            );
            assert!(!e.wall);
        }
        // JKR: the pull-off of two equal spheres, 1.5 π γ r/2
        let mut sticky = scene(Cohesion::Jkr, None);
        sticky.materials[0].surface_energy = 0.05;
        let j = super::jkr_estimate(&sticky).unwrap();
        assert!(
            (j.pull_off / (1.5 * PI * 0.05 * 0.5 * r) - 1.0).abs() < 1e-12,
            "{j:?}"
        );
        assert!(
            j.bond_number > 1.0 && j.rate > 0.0 && j.reach > 0.0,
            "{j:?}"
        );
        assert!(super::jkr_estimate(&scene(Cohesion::Sjkr, None)).is_none());
        let soft = cohesion_estimate(&scene(Cohesion::Sjkr, Some(100.0))).unwrap();
        assert!(soft.hold.is_infinite(), "{soft:?}");
        let stiff = cohesion_estimate(&scene(Cohesion::Sjkr, Some(1e6))).unwrap();
        assert!(stiff.hold.is_finite(), "{stiff:?}");
    }
}
