//! FEM bodies coupled to the grains on the CPU path: momentum across the
//! exchange, the load a resting bed puts on a clamped plate, the exchange
//! interval's error against K = 1, and an exact resume.

use glam::DVec3;
use talus::backend::Backend;
use talus::cpu::step::CpuBackend;
use talus::scene::{Body, BodyElement, Material, RadiusDist};
use talus::SceneBuilder;

fn rubber(e: f64) -> Material {
    let mut m = Material::new("rubber", 1200.0, e);
    m.poisson_ratio = 0.3;
    m.restitution = 0.5;
    m.friction = 0.5;
    m
}

fn glass() -> Material {
    let mut m = Material::new("glass", 2500.0, 1e7);
    m.restitution = 0.5;
    m.friction = 0.3;
    m
}

fn block(min: [f64; 3], max: [f64; 3], divisions: [u32; 3], material: usize) -> Body {
    Body {
        name: Some("block".into()),
        element: BodyElement::Tet4,
        ..Body::generated_box(min, max, divisions, material)
    }
}

/// Σ m v of the grains.
fn grain_momentum(b: &CpuBackend) -> DVec3 {
    let p = &b.st.particles;
    p.vel_invm
        .iter()
        .map(|v| DVec3::new(v[0], v[1], v[2]) / v[3])
        .sum()
}

#[test]
fn a_sphere_hitting_a_free_block_conserves_total_momentum() {
    // no gravity, nothing fixed: the sphere's impulse all goes to the body
    let b = SceneBuilder::new("hit")
        .domain([-0.05, -0.05, -0.05], [0.05, 0.05, 0.05])
        .gravity([0.0; 3])
        .material(glass())
        .material(rubber(2e6))
        .dt_auto(0.2)
        .steps(4000)
        .particle([0.004, 0.003, 0.02], [0.0, 0.0, -1.0], 0.004, "glass")
        .body(block(
            [-0.02, -0.02, -0.005],
            [0.02, 0.02, 0.01],
            [4, 4, 2],
            1,
        ));
    let scene = b.build().expect("scene");
    let mut cpu = CpuBackend::new(&scene).expect("backend");
    let p0 = grain_momentum(&cpu);
    let mut touched = false;
    for _ in 0..40 {
        cpu.advance(50).expect("advance");
        let pb = cpu.bodies.as_ref().unwrap().bodies[0].body.momentum();
        touched |= pb.length() > 1e-3 * p0.length();
        if grain_momentum(&cpu).z > 0.0 && touched {
            // until the contact is over and its last interval handed over
            for _ in 0..100 {
                cpu.advance(10).expect("advance");
                if cpu.bodies.as_ref().unwrap().bodies[0].force == DVec3::ZERO {
                    break;
                }
            }
            cpu.advance(10).expect("advance");
            break;
        }
    }
    let pg = grain_momentum(&cpu);
    let pb = cpu.bodies.as_ref().unwrap().bodies[0].body.momentum();
    assert!(touched, "the sphere never reached the block");
    assert!(pg.z > p0.z * 0.9 + 1e-12, "the sphere did not bounce: {pg}");
    let err = (pg + pb - p0).length() / p0.length();
    assert!(
        err < 1e-9,
        "total momentum changed by {err:e} of p0: grains {pg}, body {pb}"
    );
}

/// A bed of spheres over a plate clamped at its edges (exchange interval
/// `every`, None: auto).
fn plate_scene(every: Option<u32>) -> talus::Scene {
    let mut plate = block([-0.03, -0.03, -0.004], [0.03, 0.03, 0.0], [8, 8, 1], 1);
    plate.fixed = vec![
        ([-0.031, -0.031, -0.005], [-0.0299, 0.031, 0.001]),
        ([0.0299, -0.031, -0.005], [0.031, 0.031, 0.001]),
        ([-0.031, -0.031, -0.005], [0.031, -0.0299, 0.001]),
        ([-0.031, 0.0299, -0.005], [0.031, 0.031, 0.001]),
    ];
    plate.damping = [400.0, 0.0];
    plate.exchange_every = every;
    let mut g = glass();
    g.restitution = 0.2;
    SceneBuilder::new("plate")
        .domain([-0.035, -0.035, -0.01], [0.035, 0.035, 0.03])
        .gravity([0.0, 0.0, -9.81])
        .material(g)
        .material(rubber(5e7))
        .dt_auto(0.2)
        .steps(10_000)
        .generate(
            "lattice",
            ([-0.022, -0.022, 0.0025], [0.022, 0.022, 0.012]),
            RadiusDist::Constant(0.0025),
            "glass",
            None,
            [0.0; 3],
        )
        .body(plate)
        .build()
        .expect("scene")
}

/// [`plate_scene`] run `seconds` of simulated time; returns (backend,
/// total grain weight).
fn loaded_plate(every: Option<u32>, seconds: f64) -> (CpuBackend, f64) {
    let scene = plate_scene(every);
    let steps = (seconds / scene.dt()).ceil() as u64;
    let mut cpu = CpuBackend::new(&scene).expect("backend");
    let weight: f64 = cpu.st.particles.vel_invm.iter().map(|v| 9.81 / v[3]).sum();
    cpu.advance(steps).expect("advance");
    (cpu, weight)
}

#[test]
fn a_resting_bed_loads_a_clamped_plate_with_its_weight() {
    let (cpu, weight) = loaded_plate(None, 0.15);
    let set = cpu.bodies.as_ref().unwrap();
    let fz = set.bodies[0].force.z;
    // the grains' mean force over the last interval, downward
    let err = (-fz - weight).abs() / weight;
    assert!(
        err < 2e-3,
        "plate load {fz:e} N against the bed's weight {weight:e} N ({err:e})"
    );
    // no grain below the plate's top, none through it
    let lowest = cpu
        .st
        .particles
        .pos_rad
        .iter()
        .map(|p| p[2] - p[3])
        .fold(f64::MAX, f64::min);
    assert!(
        lowest > -0.002,
        "a grain went through the plate: bottom at {lowest:e}"
    );
    // the plate sags under it
    let sag = set.bodies[0].body.center_of_mass().z - (-0.002);
    assert!(sag < 0.0, "the plate did not sag: {sag:e}");
}

#[test]
fn exchanging_every_k_steps_stays_near_k_1() {
    // settled (the same time as the load test): the static sag
    let (a, _) = loaded_plate(Some(1), 0.15);
    let (b, _) = loaded_plate(Some(4), 0.15);
    let k = b.bodies.as_ref().unwrap().every;
    let za = a.bodies.as_ref().unwrap().bodies[0].body.center_of_mass().z + 0.002;
    let zb = b.bodies.as_ref().unwrap().bodies[0].body.center_of_mass().z + 0.002;
    let rel = ((zb - za) / za).abs();
    eprintln!("K = {k}: plate sag {zb:e} m against {za:e} m with K = 1 ({rel:e})");
    assert!(
        rel < 1e-3,
        "K = {k} moved the settled sag by {rel:e} of K = 1's"
    );
}

#[test]
fn a_coupled_run_resumes_bit_for_bit() {
    let scene = plate_scene(Some(3));
    let mut straight = CpuBackend::new(&scene).expect("backend");
    let mut first = CpuBackend::new(&scene).expect("backend");
    straight.advance(1201).expect("straight");
    first.advance(601).expect("first half");
    let saved = first.save();
    let mut resumed = CpuBackend::restore(&scene, &saved).expect("restore");
    resumed.advance(600).expect("second half");
    let (a, b) = (straight.snapshot(), resumed.snapshot());
    assert_eq!(
        a.pos_rad, b.pos_rad,
        "grain positions differ after the resume"
    );
    let (ba, bb) = (
        &straight.bodies.as_ref().unwrap().bodies[0],
        &resumed.bodies.as_ref().unwrap().bodies[0],
    );
    assert_eq!(
        ba.body.positions(),
        bb.body.positions(),
        "body nodes differ"
    );
    assert_eq!(ba.force, bb.force, "the reported body force differs");
}
