//! Time-step estimates: the Rayleigh time (Hertz), the Hertz contact time at
//! a characteristic impact speed, and the linear model's contact time.
//!
//! `dt = "auto"` is `dt_safety × min(t_Rayleigh, t_contact / 4)` (Hertz) or
//! `dt_safety × t_contact / 4` (linear): with the default safety 0.2, at
//! most 20 % of the Rayleigh time and at least 20 steps per contact. A fixed
//! dt above the *stable limit* `min(t_Rayleigh, t_contact / 4)` (4 steps per
//! contact; leapfrog itself goes unstable near t_contact / 1.6) is refused.

use crate::pair::PairTable;
use crate::scene::types::{ContactModel, Scene};
use glam::DVec3;
use std::f64::consts::PI;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Smallest Rayleigh time over the particles and the `[[insert]]`
    /// distributions (Hertz only; ∞ for linear).
    pub rayleigh: f64,
    /// Shortest contact duration over the particle sizes present or
    /// inserted, at `impact_speed`.
    pub contact_time: f64,
    /// Characteristic impact speed used for the Hertz contact time: the
    /// largest of 2 × the fastest initial or inserted particle, the
    /// free-fall speed over the domain, [`Estimate::release_speed`] and
    /// 0.1 m/s.
    pub impact_speed: f64,
    /// The relative speed the most loaded initial overlap (particles read
    /// from files may start overlapping) gives its pair when released: the
    /// impact that would reach that overlap (Hertz: ½ m* v² = 8/15 E* √R*
    /// δ^{5/2}; linear: ½ m* v² = ½ k δ²). 0 without overlaps.
    pub release_speed: f64,
    /// The bonds' limit (s): half the damped stability limit of the bonds
    /// formed at t = 0 (`bonds::form::BondStep::critical`: the stiffest
    /// bond's, its springs and dashpots added over the most bonds a sphere
    /// has); half, because bonded spheres that also touch add their
    /// contacts' springs to the bonds'. ∞ without bonds.
    pub bond_limit: f64,
    /// Largest dt accepted.
    pub stable_limit: f64,
    /// What `dt = "auto"` picks.
    pub auto_dt: f64,
}

/// Rayleigh time π r √(ρ/G) / (0.1631 ν + 0.8766).
pub fn rayleigh_time(radius: f64, density: f64, youngs: f64, poisson: f64) -> f64 {
    let g = youngs / (2.0 * (1.0 + poisson));
    PI * radius * (density / g).sqrt() / (0.1631 * poisson + 0.8766)
}

/// Hertz maximum overlap for a head-on impact at relative speed `v`:
/// δ_max = (15 m* v² / (16 E* √R*))^(2/5).
pub fn hertz_max_overlap(m_star: f64, r_star: f64, e_star: f64, v: f64) -> f64 {
    (15.0 * m_star * v * v / (16.0 * e_star * r_star.sqrt())).powf(0.4)
}

/// Hertz contact duration: t_c = 2.9432 δ_max / v.
pub fn hertz_contact_time(m_star: f64, r_star: f64, e_star: f64, v: f64) -> f64 {
    2.9432 * hertz_max_overlap(m_star, r_star, e_star, v) / v
}

/// Linear spring–dashpot: (k_n, c_n) for a pair of effective mass m* and
/// restitution e, from a fixed stiffness or a contact time. Exact: the
/// damped oscillator lasts t_c and rebounds with e (no force clamping).
pub fn linear_coefficients(
    m_star: f64,
    e: f64,
    stiffness: Option<f64>,
    contact_time: Option<f64>,
) -> (f64, f64) {
    let l = e.ln();
    match (contact_time, stiffness) {
        (Some(tc), _) => {
            let k = m_star * (PI * PI + l * l) / (tc * tc);
            (k, -2.0 * l * m_star / tc)
        }
        (None, Some(k)) => {
            let c = -2.0 * l * (m_star * k).sqrt() / (PI * PI + l * l).sqrt();
            (k, c)
        }
        (None, None) => (0.0, 0.0),
    }
}

/// Linear-model contact time for a pair: π / √(k/m* − (c/2m*)²).
pub fn linear_contact_time(m_star: f64, k: f64, c: f64) -> f64 {
    let w2 = k / m_star - (c / (2.0 * m_star)).powi(2);
    if w2 > 0.0 {
        PI / w2.sqrt()
    } else {
        f64::INFINITY
    }
}

/// The estimates of `scene`, each body's lightest free surface node built
/// from its mesh ([`crate::fem::build::body_mesh`]: from the file the scene
/// read at load, no I/O; a body whose mesh fails counts as none). A run
/// takes its numbers from [`crate::setup::Setup`], which builds the meshes
/// once and calls [`estimate_with`]: the same arithmetic.
pub fn estimate(scene: &Scene) -> Estimate {
    let lightest: Vec<Option<f64>> = (0..scene.bodies.len())
        .map(|k| {
            let mesh = crate::fem::build::body_mesh(scene, k).ok()?;
            crate::fem::build::lightest_surface_node(scene, k, &mesh)
        })
        .collect();
    estimate_with(scene, &lightest)
}

/// [`Estimate::release_speed`] of `scene`: the largest over its
/// overlapping particle pairs (only particles read from files may overlap;
/// none are looked for without them).
pub fn release_speed(scene: &Scene, table: &PairTable) -> f64 {
    let from_file = scene
        .particles
        .iter()
        .any(|p| scene.sources.get(p.source).is_some_and(|s| !s.generated));
    if !from_file {
        return 0.0;
    }
    let Ok(grid) = crate::grid::Grid::for_scene(scene) else {
        return 0.0;
    };
    let mut v: f64 = 0.0;
    let (pos, owner) = scene.member_spheres();
    crate::grid::pairs::for_each_contact(&pos, &grid, |i, j, d| {
        let delta = pos[i][3] + pos[j][3] - d;
        let (i, j) = (owner[i], owner[j]);
        if i == j {
            return;
        }
        let (a, b) = (&scene.particles[i], &scene.particles[j]);
        if delta <= 0.0 || delta.is_nan() {
            return;
        }
        let (ma, mb) = (scene.particle_mass(a), scene.particle_mass(b));
        let m_star = ma * mb / (ma + mb);
        let r_star = a.radius * b.radius / (a.radius + b.radius);
        let pp = table.get(a.material as u32, b.material as u32);
        let energy = match scene.contact.model {
            ContactModel::HertzMindlin => 8.0 / 15.0 * pp.e_star * r_star.sqrt() * delta.powf(2.5),
            ContactModel::Linear => {
                let (k, _) = linear_coefficients(
                    m_star,
                    pp.restitution,
                    scene.contact.stiffness,
                    scene.contact.contact_time,
                );
                0.5 * k * delta * delta
            }
        };
        v = v.max((2.0 * energy / m_star).sqrt());
    });
    v
}

/// Per material, the smallest radius present or poured (∞: none): the
/// critical particle of each estimate.
pub fn smallest_radii(scene: &Scene) -> Vec<f64> {
    let mut rmin = vec![f64::INFINITY; scene.materials.len()];
    for p in &scene.particles {
        rmin[p.material] = rmin[p.material].min(p.radius);
    }
    for i in &scene.inserts {
        if let Some(r) = rmin.get_mut(i.material) {
            *r = r.min(i.radius.min());
        }
    }
    rmin
}

/// The estimates of `scene` with `lightest[k]` the mass (kg) of body k's
/// lightest free surface node
/// ([`crate::fem::build::lightest_surface_nodes`]; None: the body adds no
/// partner).
pub fn estimate_with(scene: &Scene, lightest: &[Option<f64>]) -> Estimate {
    let table = PairTable::new(scene);
    let gmag = DVec3::from(scene.simulation.gravity).length();
    let ext = (DVec3::from(scene.domain.max) - DVec3::from(scene.domain.min)).length();
    // insertions count like particles: their velocity, their smallest
    // radius (a scene that starts empty gets the same dt as one that
    // starts with what it pours)
    let vmax = scene
        .particles
        .iter()
        .map(|p| p.velocity)
        .chain(scene.inserts.iter().map(|i| i.velocity))
        .map(|v| DVec3::from(v).length())
        .fold(0.0, f64::max);
    // the energy stored in initial overlaps is released as speed: a dt
    // for the scene's speeds alone integrates a pair that starts half a
    // radius deep with far too few steps (measured: a 39-122 % energy
    // residual and beads at ~1000 m/s)
    let release = release_speed(scene, &table);
    let v = (2.0 * vmax)
        .max((2.0 * gmag * ext).sqrt())
        .max(release)
        .max(0.1);

    // Smallest particle per material is the critical one for every estimate.
    let rmin = smallest_radii(scene);
    let mut rayleigh = f64::INFINITY;
    let mut contact = f64::INFINITY;
    for (mi, &r) in rmin.iter().enumerate() {
        if !r.is_finite() || r <= 0.0 {
            continue;
        }
        let mat = &scene.materials[mi];
        let m = mat.density * 4.0 / 3.0 * PI * r.powi(3);
        if scene.contact.model == ContactModel::HertzMindlin {
            rayleigh = rayleigh.min(rayleigh_time(
                r,
                mat.density,
                mat.youngs_modulus,
                mat.poisson_ratio,
            ));
        }
        // partners: the same particle (R* = r/2, m* = m/2) and every wall
        // material (R* = r, m* = m).
        let mut partners = vec![(mi, 0.5 * r, 0.5 * m)];
        for w in &scene.walls {
            partners.push((w.material, r, m));
        }
        // a FEM body's surface: a wall whose lightest free node is what
        // the grains push, with m* = m m_n / (m + m_n) for m_n a quarter
        // of that node's mass: up to four grains of a layer bear on one
        // node (the triangles around it), and their springs add. Measured
        // on a heap poured onto a clamped rubber sheet (E = 2e7 Pa,
        // tet10, K = 1): the node's own mass gave dt = 9.4e-6 s and a
        // vibration that grew until the balance's residual passed 100 %;
        // dt = 6e-6 s kept it at 6e-4 (a quarter of the mass: 5.4e-6 s).
        for (b, node) in scene.bodies.iter().zip(lightest) {
            if let Some(node) = *node {
                let mn = 0.25 * node;
                partners.push((b.material, r, m * mn / (m + mn)));
            }
        }
        for (mj, r_star, m_star) in partners {
            let pp = table.get(mi as u32, mj as u32);
            let tc = match scene.contact.model {
                ContactModel::HertzMindlin => hertz_contact_time(m_star, r_star, pp.e_star, v),
                ContactModel::Linear => {
                    let (k, c) = linear_coefficients(
                        m_star,
                        pp.restitution,
                        scene.contact.stiffness,
                        scene.contact.contact_time,
                    );
                    linear_contact_time(m_star, k, c)
                }
            };
            contact = contact.min(tc);
        }
    }
    let bond_limit =
        crate::bonds::form::at_start(scene).map_or(f64::INFINITY, |b| 0.5 * b.critical);
    let stable_limit = rayleigh.min(contact / 4.0).min(bond_limit);
    let auto_dt = scene.simulation.dt_safety * stable_limit;
    Estimate {
        bond_limit,
        rayleigh,
        contact_time: contact,
        impact_speed: v,
        release_speed: release,
        stable_limit,
        auto_dt,
    }
}

#[cfg(test)]
mod tests {
    use super::estimate;
    use crate::scene::types::{Insert, InsertRate, Material, Region};
    use crate::scene::{RadiusDist, SceneBuilder};

    /// A scene that starts empty and pours gets the time step of one that
    /// starts with the smallest, fastest particle it pours.
    #[test]
    fn insertions_count_like_particles() {
        let base = || {
            SceneBuilder::new("pour")
                .domain([0.0; 3], [0.02, 0.02, 0.04])
                .material(Material::new("m", 2500.0, 1e7))
                .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
        };
        let insert = Insert {
            region: Region::Box {
                min: [0.0, 0.0, 0.03],
                max: [0.02, 0.02, 0.04],
            },
            rate: InsertRate::Count(100.0),
            radius: RadiusDist::Uniform {
                min: 0.0005,
                max: 0.001,
            },
            material: 0,
            velocity: [0.0, 0.0, -3.0],
            start: 0.0,
            stop: None,
            count: None,
            interval: None,
            shape: None,
            orientation: Default::default(),
        };
        let empty = base().add_insert(insert.clone()).build().unwrap();
        let present = base()
            .particle([0.01, 0.01, 0.035], [0.0, 0.0, -3.0], 0.0005, "m")
            .build()
            .unwrap();
        let e = estimate(&empty);
        assert_eq!(e, estimate(&present));
        assert_eq!(e.impact_speed, 6.0);
        assert!(e.auto_dt.is_finite() && e.auto_dt > 0.0);
        // large slow particles present, small fast ones poured: the poured
        // ones set the step
        let both = base()
            .particle([0.01, 0.01, 0.01], [0.0; 3], 0.002, "m")
            .add_insert(insert)
            .build()
            .unwrap();
        assert_eq!(estimate(&both), e);
    }
}
