//! Shared scenes and measurements for the physics tests. Measurements take a
//! `&mut dyn Backend` so the same checks run on every backend.
#![allow(dead_code)]

use talus::backend::Backend;
use talus::grid::Grid;
use talus::rng::Rng;
use talus::scene::Domain;
use talus::scene::{Material, Scene, SceneBuilder};
use talus::timestep::{hertz_contact_time, hertz_max_overlap};

pub fn glass(e: f64, mu: f64) -> Material {
    Material {
        name: "glass".into(),
        density: 2800.0,
        youngs_modulus: 4.8e10,
        poisson_ratio: 0.2,
        restitution: e,
        friction: mu,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// Two equal spheres of radius `r` approaching head-on along x at ±v/2
/// (relative speed v), 1e-4 r apart (well above f32 resolution, so every
/// backend starts out of contact); no gravity.
pub fn head_on(builder: SceneBuilder, r: f64, v: f64, m: Material) -> SceneBuilder {
    let name = m.name.clone();
    builder
        .domain([0.0; 3], [10.0 * r, 6.0 * r, 6.0 * r])
        .gravity([0.0; 3])
        .material(m)
        .particle([4.0 * r, 3.0 * r, 3.0 * r], [0.5 * v, 0.0, 0.0], r, &name)
        .particle(
            [6.0 * r + 1e-4 * r, 3.0 * r, 3.0 * r],
            [-0.5 * v, 0.0, 0.0],
            r,
            &name,
        )
}

/// What a head-on impact of two particles looked like.
#[derive(Debug, Clone, Copy)]
pub struct Impact {
    pub contact_time: f64,
    pub max_overlap: f64,
    pub max_force: f64,
    /// Relative speed after / before.
    pub restitution: f64,
    pub v_in: f64,
    pub v_out: f64,
}

/// Steps a two-particle head-on impact (along x) until the spheres have
/// separated, reading positions and velocities back every step. The force is
/// measured from the momentum change of particle 0 over a step.
pub fn measure_head_on(b: &mut dyn Backend, dt: f64, max_steps: u64) -> Impact {
    let s0 = b.snapshot();
    let v_in = (s0.vel_invm[0][0] - s0.vel_invm[1][0]).abs();
    let m0 = 1.0 / s0.vel_invm[0][3];
    let mut prev_v = s0.vel_invm[0][0];
    let mut steps_in_contact = 0u64;
    let mut max_overlap = 0.0f64;
    let mut max_force = 0.0f64;
    let mut touched = false;
    let mut v_out = 0.0;
    for _ in 0..max_steps {
        b.advance(1).expect("impact step");
        let s = b.snapshot();
        let (p, q) = (s.pos_rad[0], s.pos_rad[1]);
        let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        let overlap = p[3] + q[3] - d;
        let v = s.vel_invm[0][0];
        // force on particle 0 during the step just done
        max_force = max_force.max((m0 * (v - prev_v) / dt).abs());
        prev_v = v;
        if overlap > 0.0 {
            touched = true;
            steps_in_contact += 1;
            max_overlap = max_overlap.max(overlap);
        } else if touched {
            // separated: run a few more steps so the stored velocity is the
            // free-flight one
            b.advance(2).expect("step");
            let s = b.snapshot();
            v_out = (s.vel_invm[0][0] - s.vel_invm[1][0]).abs();
            break;
        }
    }
    assert!(
        touched && v_out > 0.0,
        "the spheres never collided and separated"
    );
    Impact {
        contact_time: steps_in_contact as f64 * dt,
        max_overlap,
        max_force,
        restitution: v_out / v_in,
        v_in,
        v_out,
    }
}

/// Relative error.
pub fn rel(measured: f64, expected: f64) -> f64 {
    (measured - expected).abs() / expected.abs()
}

/// Build a scene or fail the test with the scene error.
pub fn build(b: SceneBuilder) -> Scene {
    b.build()
        .unwrap_or_else(|e| panic!("test scene invalid: {e}"))
}

/// Hertz head-on impact of two glass spheres (R = 10 mm, 2 m/s, e = 1,
/// μ = 0) on the backend `make` builds, resolved with `steps_per_contact`
/// steps: contact time, maximum overlap and maximum force within 1 % of
/// Hertz theory, rebound speed within 0.1 % of the impact speed.
pub fn check_hertz_impact(steps_per_contact: f64, make: impl FnOnce(&Scene) -> Box<dyn Backend>) {
    let (r, v): (f64, f64) = (0.01, 2.0);
    let m = glass(1.0, 0.0);
    // effective properties of two identical spheres
    let e_star = m.youngs_modulus / (2.0 * (1.0 - m.poisson_ratio.powi(2)));
    let mass = m.density * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let (m_star, r_star) = (0.5 * mass, 0.5 * r);
    let tc = hertz_contact_time(m_star, r_star, e_star, v);
    let dmax = hertz_max_overlap(m_star, r_star, e_star, v);
    let fmax = 4.0 / 3.0 * e_star * r_star.sqrt() * dmax.powf(1.5);
    let dt = tc / steps_per_contact;
    let scene = build(head_on(SceneBuilder::new("hertz").dt(dt).steps(1), r, v, m));
    let mut b = make(&scene);
    let imp = measure_head_on(b.as_mut(), dt, (2.5 * steps_per_contact) as u64);
    println!("{imp:?}; theory tc {tc:e} dmax {dmax:e} fmax {fmax:e}");
    assert!(
        rel(imp.contact_time, tc) < 0.01,
        "contact time {} vs {tc}",
        imp.contact_time
    );
    assert!(
        rel(imp.max_overlap, dmax) < 0.01,
        "max overlap {} vs {dmax}",
        imp.max_overlap
    );
    assert!(
        rel(imp.max_force, fmax) < 0.01,
        "max force {} vs {fmax}",
        imp.max_force
    );
    assert!(
        rel(imp.v_out, imp.v_in) < 0.001,
        "rebound {} vs impact {}",
        imp.v_out,
        imp.v_in
    );
}

/// Linear spring–dashpot calibrated from a contact time t_c = 1e-4 s, for
/// e = 0.2, 0.5, 0.9, on the backends `make` builds: measured restitution
/// within 0.5 % of e and contact time within 1 % of t_c.
pub fn check_linear_restitution(
    steps_per_contact: f64,
    mut make: impl FnMut(&Scene) -> Box<dyn Backend>,
) {
    for e in [0.2, 0.5, 0.9] {
        let tc = 1e-4;
        let dt = tc / steps_per_contact;
        let scene = build(head_on(
            SceneBuilder::new("linear")
                .linear_contact_time(tc)
                .dt(dt)
                .steps(1),
            0.001,
            1.0,
            glass(e, 0.0),
        ));
        let mut b = make(&scene);
        let imp = measure_head_on(b.as_mut(), dt, (10.0 * steps_per_contact) as u64);
        println!("e = {e}: {imp:?}");
        assert!(
            rel(imp.restitution, e) < 0.005,
            "e = {e}: measured {}",
            imp.restitution
        );
        assert!(
            rel(imp.contact_time, tc) < 0.01,
            "e = {e}: contact time {}",
            imp.contact_time
        );
    }
}

/// 150 spheres (r 0.4–0.8 mm, soft, e = μ = 0.5) flying at up to 2 m/s in a
/// 12 mm box of six walls, no gravity: wall contacts start and end all the
/// time, from every side.
pub fn walled_box(seed: u64) -> Scene {
    let l = 0.012;
    let mut rng = talus::rng::Rng::new(seed);
    let mut b = SceneBuilder::new("box")
        .domain([0.0; 3], [l; 3])
        .gravity([0.0; 3])
        .dt_auto(0.1)
        .steps(1)
        .material(Material {
            name: "m".into(),
            density: 2500.0,
            youngs_modulus: 5e6,
            poisson_ratio: 0.25,
            restitution: 0.5,
            friction: 0.5,
            rolling_friction: 0.0,
            rolling_viscous_damping: 0.0,
            cohesion_energy_density: 0.0,
            surface_energy: 0.0,
        });
    for (k, s) in [
        (0, 1.0),
        (1, 1.0),
        (2, 1.0),
        (0, -1.0),
        (1, -1.0),
        (2, -1.0),
    ] {
        let mut normal = [0.0; 3];
        normal[k] = s;
        let point = if s > 0.0 { [0.0; 3] } else { [l; 3] };
        b = b.wall(point, normal, "m");
    }
    let mut placed: Vec<([f64; 3], f64)> = Vec::new();
    while placed.len() < 150 {
        let r = rng.range(0.0004, 0.0008);
        let p = [0, 1, 2].map(|_| rng.range(r, l - r));
        let free = placed.iter().all(|(q, rq)| {
            let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() > r + rq
        });
        if free {
            let v = rng.in_unit_ball().map(|x| 2.0 * x);
            b = b.particle(p, v, r, "m");
            placed.push((p, r));
        }
    }
    build(b)
}

/// Whether a sphere at `x` (xyz, radius) touches the wall (`point`,
/// unit `normal`).
pub fn touches_wall(x: [f64; 4], point: [f64; 3], normal: [f64; 3]) -> bool {
    let d = [0, 1, 2].map(|k| x[k] - point[k]);
    d[0] * normal[0] + d[1] * normal[1] + d[2] * normal[2] < x[3]
}

/// 300 spheres thrown down at 1 m/s into a 2 cm box (floor and four sides): contacts form within a
/// few hundred steps (the insertion and removal tests of both paths).
pub fn falling_bed() -> Scene {
    build(
        SceneBuilder::new("grow")
            .domain([0.0; 3], [0.02, 0.02, 0.1])
            .gravity([0.0, 0.0, -9.81])
            .dt_auto(0.2)
            .steps(1)
            .material(Material::new("glass", 2500.0, 5e7))
            .wall([0.0; 3], [0.0, 0.0, 1.0], "glass")
            // side walls: the open domain would remove what spills over
            .wall([0.0; 3], [1.0, 0.0, 0.0], "glass")
            .wall([0.02, 0.0, 0.0], [-1.0, 0.0, 0.0], "glass")
            .wall([0.0; 3], [0.0, 1.0, 0.0], "glass")
            .wall([0.0, 0.02, 0.0], [0.0, -1.0, 0.0], "glass")
            .generate(
                "random",
                ([0.0; 3], [0.02, 0.02, 0.02]),
                talus::scene::RadiusDist::Uniform {
                    min: 0.0007,
                    max: 0.001,
                },
                "glass",
                Some(300),
                [0.0, 0.0, -1.0],
            ),
    )
}

/// `k` spheres like particle 0 of `p` (radius, mass, material), at rest at
/// (0.01, 0.01, 0.09): far above [`falling_bed`], which they never meet.
/// Their ids are for the inserting step to give.
pub fn spheres_at_rest_above(
    p: &talus::state::Particles<f64>,
    k: usize,
) -> talus::state::Particles<f64> {
    talus::state::Particles {
        pos_rad: vec![[0.01, 0.01, 0.09, p.pos_rad[0][3]]; k],
        vel_invm: vec![[0.0, 0.0, 0.0, p.vel_invm[0][3]]; k],
        omega_invi: vec![[0.0, 0.0, 0.0, p.omega_invi[0][3]]; k],
        material: vec![p.material[0]; k],
        id: vec![0; k],
        dissipated: vec![0.0; k],
    }
}

/// Spheres of radius `r` and `ratio` r: `n_big` large ones apart from each
/// other, then `n_small` small ones, half of them crowding the large ones'
/// surfaces (centres at R + (0.85–1.3) r: contacts with the large ones and
/// among themselves), half anywhere (on an open axis also up to 2 r outside
/// the domain: clamped cells). Periodic axes are wrapped.
pub fn wide_mixture(
    dom: &Domain,
    r: f64,
    ratio: f64,
    n_big: usize,
    n_small: usize,
    seed: u64,
) -> Vec<[f64; 4]> {
    let mut rng = Rng::new(seed);
    let big = ratio * r;
    let mut out: Vec<[f64; 4]> = Vec::new();
    let grid = Grid::for_radii(dom, r, big, 1).unwrap();
    while out.len() < n_big {
        let p: [f64; 3] = std::array::from_fn(|k| rng.range(dom.min[k] + big, dom.max[k] - big));
        let apart = out.iter().all(|q| {
            let d = grid.min_image(p, [q[0], q[1], q[2]]);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() > 2.2 * big
        });
        if apart {
            out.push([p[0], p[1], p[2], big]);
        }
    }
    for s in 0..n_small {
        let mut p: [f64; 3] = if s % 2 == 0 {
            let c = out[(rng.next_u64() % n_big as u64) as usize];
            let u = loop {
                let v = rng.in_unit_ball();
                let n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
                if n2 > 1e-4 {
                    break v.map(|x| x / n2.sqrt());
                }
            };
            let at = big + r * rng.range(0.85, 1.3);
            std::array::from_fn(|k| c[k] + at * u[k])
        } else {
            std::array::from_fn(|k| {
                let m = if dom.periodic[k] { 0.0 } else { 2.0 * r };
                rng.range(dom.min[k] - m, dom.max[k] + m)
            })
        };
        grid.wrap(&mut p);
        out.push([p[0], p[1], p[2], r * rng.range(0.9, 1.0)]);
    }
    out
}

/// A bead spinning about the axis of a frictionless V-groove (two rigid
/// planes at ±45°), with rolling friction: both contacts' rolling torques
/// oppose the spin, I dω/dt = −2 μ_r R F_n with F_n = m g / √2, so it
/// stops at t = ω0 R / (2.5 √2 μ_r g) ≈ 29 ms. Returns the scene and the
/// steps to run (the stop plus 50 %).
pub fn spinning_in_groove() -> (Scene, u64) {
    let (r, w0, mu_r, dt) = (0.005, 20.0, 0.1, 4e-5);
    let m = Material {
        name: "bead".into(),
        density: 2500.0,
        youngs_modulus: 1e7,
        poisson_ratio: 0.25,
        restitution: 0.5,
        friction: 0.0,
        rolling_friction: mu_r,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    };
    let c = 0.05;
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let t_stop = w0 * r / (2.5 * 2f64.sqrt() * mu_r * 9.81);
    let steps = (1.5 * t_stop / dt).ceil() as u64;
    let scene = build(
        SceneBuilder::new("groove")
            .domain([0.0; 3], [2.0 * c, 2.0 * c, 2.0 * c])
            .gravity([0.0, 0.0, -9.81])
            .dt(dt)
            .steps(steps + 100)
            .material(m)
            .wall([0.0, c, 0.0], [0.0, s, s], "bead")
            .wall([0.0, c, 0.0], [0.0, -s, s], "bead")
            // touching both planes: the centre √2 R above the groove
            .particle_spin([c, c, 2f64.sqrt() * r], [0.0; 3], [w0, 0.0, 0.0], r, "bead"),
    );
    (scene, steps)
}

/// Runs [`spinning_in_groove`] to the end and then 100 more steps, and
/// returns the largest |ω| / ω0 over those 100 steps and how often ω·x
/// changed sign between two of them. Rolling friction must bring the bead
/// to rest: with each contact's cap at a whole stop (the law before
/// `talus::pair::ROLLING_SHARE`), the two contacts reversed the spin every
/// step and it rocked at ~10⁻³ ω0 for good.
pub fn spin_left_in_groove(b: &mut dyn Backend, steps: u64) -> (f64, usize) {
    let w0 = b.snapshot().omega_invi[0][0];
    b.advance(steps).unwrap();
    let (mut worst, mut flips) = (0.0f64, 0);
    let mut last = b.snapshot().omega_invi[0];
    for _ in 0..100 {
        b.advance(1).unwrap();
        let w = b.snapshot().omega_invi[0];
        worst = worst.max((w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt() / w0);
        flips += (w[0] * last[0] < 0.0) as usize;
        last = w;
    }
    (worst, flips)
}

/// A twin test's check of itself: each (from, to) edit of `src` (each
/// `from` found exactly once) run through `disagree` (the edited source →
/// (cases, cases that disagree)); asserts every edit made some case
/// disagree. `what` names the shader in the messages.
pub fn assert_each_perturbation_caught(
    what: &str,
    src: &str,
    perturbations: &[(&str, &str)],
    mut disagree: impl FnMut(&str) -> (usize, usize),
) {
    let mut missed = Vec::new();
    for &(from, to) in perturbations {
        assert_eq!(src.matches(from).count(), 1, "{what} changed: {from}");
        let (total, bad) = disagree(&src.replacen(from, to, 1));
        eprintln!("{from} -> {to}: {bad} of {total} cases disagree");
        if bad == 0 {
            missed.push(from);
        }
    }
    assert!(
        missed.is_empty(),
        "perturbations of {what} the test misses: {missed:?}"
    );
}

/// How many of the pairs with history (`pair_history`: ids and history)
/// have their surfaces apart among `particles`: JKR's contacts held past
/// touching.
pub fn held_apart(
    particles: &talus::state::Particles<f64>,
    pair_history: &[(u32, u32, talus::state::Hist)],
) -> usize {
    let at: std::collections::HashMap<u32, usize> = particles
        .id
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    pair_history
        .iter()
        .filter(|(a, b, _)| {
            let (p, q) = (particles.pos_rad[at[a]], particles.pos_rad[at[b]]);
            let d = ((0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>()).sqrt();
            d > p[3] + q[3]
        })
        .count()
}
