//! Real geometry on both backends: triangle meshes against the analytic
//! plane they tessellate (impacts at a vertex, on an edge and inside a face,
//! sliding and sticking; rolling across many edges), cylinders and cones
//! against theory, moving walls and their loads, a servo. Each check runs
//! on the CPU and, where a GPU (or lavapipe) is present, on the GPU with a
//! tolerance that f32 explains.

use crate::common;

use common::*;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{context::test_context, GpuBackend};
use talus::rng::Rng;
use talus::scene::{Material, Scene, SceneBuilder, Servo, Shape, Side, Wall, WallMotion};

/// Which path a test runs on: each check is two tests (`NAME::cpu`,
/// `NAME::gpu`), so that the test threads run the two halves side by side.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    Cpu,
    Gpu,
}

/// The scene on the CPU, or on the GPU when there is one (none: nothing,
/// the GPU half of a check then passes empty, as the tests' pool says).
fn backends(path: Path, scene: &Scene) -> Vec<Box<dyn Backend>> {
    match path {
        Path::Cpu => vec![Box::new(CpuBackend::new(scene).unwrap())],
        Path::Gpu => test_context()
            .map(|ctx| Box::new(GpuBackend::new(scene, ctx).unwrap()) as Box<dyn Backend>)
            .into_iter()
            .collect(),
    }
}

/// `NAME::cpu` and `NAME::gpu` tests of the checks `NAME(path)`.
macro_rules! both_paths {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn cpu() {
                    super::$name(super::Path::Cpu)
                }
                #[test]
                fn gpu() {
                    super::$name(super::Path::Gpu)
                }
            }
        )*
    };
}

/// Relative tolerance of a comparison on backend `b`: the CPU's f64 gap
/// of a face agrees with the plane's to rounding; the GPU's f32 overlap of
/// ~1e-5 m from positions of ~0.05 m carries ~3e-4 relative error.
fn tol(b: &dyn Backend, cpu: f64, gpu: f64) -> f64 {
    if b.name() == "cpu" {
        cpu
    } else {
        gpu
    }
}

fn mesh_wall(triangles: Vec<[[f64; 3]; 3]>, material: usize) -> Wall {
    Wall {
        name: Some("mesh".into()),
        shape: Shape::Mesh {
            file: "test.stl".into(),
            triangles,
            one_sided: false,
            degenerate: 0,
        },
        material,
        motion: None,
        servo: None,
    }
}

/// An irregular triangulation of the square [−h, h]² at z = 0: a jittered
/// grid of `k` × `k` cells (the inner vertices moved by up to 30 % of a
/// cell), each quad cut along a random diagonal. Returns the triangles and
/// the vertices.
fn irregular_floor(h: f64, k: usize, seed: u64) -> (Vec<[[f64; 3]; 3]>, Vec<[f64; 3]>) {
    let mut rng = Rng::new(seed);
    let c = 2.0 * h / k as f64;
    let mut v = vec![[0.0; 3]; (k + 1) * (k + 1)];
    for j in 0..=k {
        for i in 0..=k {
            let inner = i > 0 && i < k && j > 0 && j < k;
            let jx = if inner { rng.range(-0.3, 0.3) * c } else { 0.0 };
            let jy = if inner { rng.range(-0.3, 0.3) * c } else { 0.0 };
            v[j * (k + 1) + i] = [-h + i as f64 * c + jx, -h + j as f64 * c + jy, 0.0];
        }
    }
    let mut t = Vec::new();
    for j in 0..k {
        for i in 0..k {
            let a = v[j * (k + 1) + i];
            let b = v[j * (k + 1) + i + 1];
            let cc = v[(j + 1) * (k + 1) + i + 1];
            let d = v[(j + 1) * (k + 1) + i];
            if rng.range(0.0, 1.0) < 0.5 {
                t.push([a, b, cc]);
                t.push([a, cc, d]);
            } else {
                t.push([a, b, d]);
                t.push([b, cc, d]);
            }
        }
    }
    (t, v)
}

/// A soft glass-like material (contacts last ~100 steps at dt auto 0.2).
fn beads(e: f64, mu: f64) -> Material {
    Material {
        name: "glass".into(),
        density: 2500.0,
        youngs_modulus: 5e7,
        poisson_ratio: 0.25,
        restitution: e,
        friction: mu,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// One sphere of radius `r` at `x` with velocity `v` and spin `w` over a
/// floor at z = 0, either the analytic plane or `mesh`, gravity `g`.
fn one_sphere(
    x: [f64; 3],
    v: [f64; 3],
    w: [f64; 3],
    r: f64,
    g: [f64; 3],
    m: Material,
    mesh: Option<Vec<[[f64; 3]; 3]>>,
) -> Scene {
    let b = SceneBuilder::new("one")
        .domain([-0.05, -0.05, -0.01], [0.05, 0.05, 0.05])
        .gravity(g)
        .dt_auto(0.1)
        .steps(1)
        .material(m);
    let b = match mesh {
        None => b.wall([0.0; 3], [0.0, 0.0, 1.0], "glass"),
        Some(_) => b,
    };
    let mut s = build(b.particle(x, v, r, "glass"));
    s.particles[0].angular_velocity = w;
    if let Some(t) = mesh {
        s.walls.push(mesh_wall(t, 0));
    }
    s
}

/// (vz after / vz before, vx after, ωy after) of an impact on the floor.
fn rebound(b: &mut dyn Backend, max_steps: u64) -> [f64; 3] {
    let v_in = b.snapshot().vel_invm[0][2];
    let mut touched = false;
    for _ in 0..max_steps {
        b.advance(10).unwrap();
        let s = b.snapshot();
        let (z, r) = (s.pos_rad[0][2], s.pos_rad[0][3]);
        if z < r {
            touched = true;
        } else if touched && z > r * 1.0001 {
            return [
                s.vel_invm[0][2] / v_in,
                s.vel_invm[0][0],
                s.omega_invi[0][1],
            ];
        }
    }
    panic!("no rebound within {max_steps} x 10 steps");
}

/// A sphere meeting an irregularly triangulated flat floor at a vertex,
/// across an edge (its contact point crosses the edge during the impact,
/// so the tangential spring is handed from one triangle to the next) and
/// inside a face rebounds as on the analytic plane: the same restitution,
/// tangential velocity and spin, in a sliding (μ = 0.1, steep tangential
/// speed) and a sticking (μ = 0.8) impact.
fn mesh_floor_rebounds_like_the_plane(path: Path) {
    let (tris, verts) = irregular_floor(0.04, 8, 7);
    let r = 0.004;
    // impact points: an inner vertex, a point on an edge shared by two
    // triangles (mid-edge), a triangle's centroid
    let vertex = verts[4 * 9 + 4];
    let tri = tris[37];
    let edge_mid = [0, 1].map(|k| 0.5 * (tri[0][k] + tri[2][k]));
    let centroid = [0, 1].map(|k| (tri[0][k] + tri[1][k] + tri[2][k]) / 3.0);
    let spots = [
        ("vertex", [vertex[0], vertex[1]]),
        ("edge", edge_mid),
        ("face", centroid),
    ];
    for (mu, vt, label) in [(0.1, 0.6, "sliding"), (0.8, 0.1, "sticking")] {
        for (spot, p) in spots {
            let v = [vt, 0.0, -0.5];
            // start a hair above the floor, so that the contact begins at
            // `p` (the edge case crosses the edge during the contact)
            let x = [p[0] - 0.0, p[1], r * 1.0002];
            let go = |mesh| one_sphere(x, v, [0.0; 3], r, [0.0; 3], beads(0.7, mu), mesh);
            let plane = go(None);
            let meshed = go(Some(tris.clone()));
            for (mut a, mut b) in backends(path, &plane)
                .into_iter()
                .zip(backends(path, &meshed))
            {
                let ra = rebound(a.as_mut(), 2000);
                let rb = rebound(b.as_mut(), 2000);
                let t = tol(a.as_ref(), 1e-9, 2e-3);
                for (k, name) in ["e", "vx", "wy"].iter().enumerate() {
                    let d = (ra[k] - rb[k]).abs() / ra[k].abs().max(1e-12);
                    assert!(
                        d < t,
                        "{} {label} impact at a {spot}: {name} plane {} mesh {} (rel {d:.2e} > {t:.0e})",
                        a.name(),
                        ra[k],
                        rb[k]
                    );
                }
            }
        }
    }
}

/// A sphere rolling down a 10° slope (gravity tilted) across an irregular
/// mesh floor crosses ~20 triangle edges and moves exactly as on the plane:
/// the static friction that keeps it rolling is carried by the tangential
/// spring, which would slip if the history were lost at an edge. Speed
/// follows 5/7 g sinθ t, and it never leaves the floor.
fn sphere_rolls_across_mesh_edges_like_on_the_plane(path: Path) {
    let (tris, _) = irregular_floor(0.04, 16, 11);
    let r = 0.003;
    let th = 10f64.to_radians();
    let g = [9.81 * th.sin(), 0.0, -9.81 * th.cos()];
    let x = [-0.03, 0.0013, r - 2e-6];
    let go = |mesh| one_sphere(x, [0.0; 3], [0.0; 3], r, g, beads(0.5, 0.5), mesh);
    let (plane, meshed) = (go(None), go(Some(tris.clone())));
    for (mut a, mut b) in backends(path, &plane)
        .into_iter()
        .zip(backends(path, &meshed))
    {
        let dt = plane.dt();
        // 0.3 s: ~0.055 m along x, past ~20 edges of 5 mm cells
        let steps = (0.3 / dt) as u64;
        let mut max_up: f64 = 0.0;
        let chunk = steps / 100;
        for _ in 0..100 {
            a.advance(chunk).unwrap();
            b.advance(chunk).unwrap();
            let sb = b.snapshot();
            max_up = max_up.max(sb.vel_invm[0][2]);
        }
        let (sa, sb) = (a.snapshot(), b.snapshot());
        let t = (100 * chunk) as f64 * dt;
        let theory = 5.0 / 7.0 * 9.81 * th.sin() * t;
        let (va, vb) = (sa.vel_invm[0][0], sb.vel_invm[0][0]);
        let travelled = sb.pos_rad[0][0] - x[0];
        assert!(travelled > 0.05, "rolled only {travelled} m");
        let tl = tol(a.as_ref(), 1e-6, 2e-3);
        assert!(
            rel(vb, va) < tl,
            "{}: mesh {vb} vs plane {va} m/s",
            a.name()
        );
        assert!(
            rel(va, theory) < 0.01,
            "{}: plane {va} vs 5/7 g sinθ t {theory}",
            a.name()
        );
        assert!(
            max_up < 1e-3 * vb,
            "{}: bounced (vz up to {max_up} m/s at {vb} m/s)",
            a.name()
        );
    }
}

fn cylinder(
    axis: [f64; 3],
    center: [f64; 3],
    radius: f64,
    side: Side,
    motion: Option<WallMotion>,
) -> Wall {
    Wall {
        name: Some("drum".into()),
        shape: Shape::Cylinder {
            center,
            axis,
            radius,
            length: None,
            side,
        },
        material: 0,
        motion,
        servo: None,
    }
}

/// A sphere displaced inside a horizontal cylinder rolls back and forth
/// about the bottom: small oscillations of period 2π √(7 (R − r) / (5 g))
/// (rolling without slipping). At rest at the bottom, the load on the
/// cylinder is the sphere's weight, straight down.
fn sphere_rolls_inside_a_cylinder_as_theory_says(path: Path) {
    let (big_r, r) = (0.02, 0.002);
    let g = 9.81;
    let theta0: f64 = 0.05;
    let x0 = [
        (big_r - r) * theta0.sin(),
        0.0,
        -(big_r - r) * theta0.cos() + 1e-7,
    ];
    let mut s = build(
        SceneBuilder::new("cyl")
            .domain([-0.03, -0.01, -0.03], [0.03, 0.01, 0.03])
            .gravity([0.0, 0.0, -g])
            .dt_auto(0.2)
            .steps(1)
            .material(beads(0.3, 0.8))
            .particle(x0, [0.0; 3], r, "glass"),
    );
    s.walls.push(cylinder(
        [0.0, 1.0, 0.0],
        [0.0; 3],
        big_r,
        Side::Inside,
        None,
    ));
    let period = 2.0 * std::f64::consts::PI * (7.0 * (big_r - r) / (5.0 * g)).sqrt();
    for mut b in backends(path, &s) {
        let dt = s.dt();
        let per = 50u64;
        let mut prev = b.snapshot().pos_rad[0][0];
        let mut crossings = Vec::new();
        let mut step = 0u64;
        while crossings.len() < 3 && (step as f64) * dt < 2.0 * period {
            b.advance(per).unwrap();
            step += per;
            let x = b.snapshot().pos_rad[0][0];
            if prev > 0.0 && x <= 0.0 || prev < 0.0 && x >= 0.0 {
                // linear interpolation of the crossing
                let f = prev / (prev - x);
                crossings.push((step - per) as f64 * dt + f * per as f64 * dt);
            }
            prev = x;
        }
        assert!(crossings.len() >= 3, "{}: {crossings:?}", b.name());
        let measured = crossings[2] - crossings[0];
        assert!(
            rel(measured, period) < 0.01,
            "{}: period {measured} s vs theory {period} s",
            b.name()
        );
    }
    // at rest at the bottom: the load is the weight
    let mut s0 = s.clone();
    s0.particles[0].position = [0.0, 0.0, -(big_r - r) + 1e-7];
    for mut b in backends(path, &s0) {
        b.advance((0.05 / s0.dt()) as u64).unwrap();
        let m = 1.0 / b.snapshot().vel_invm[0][3];
        let (_, load) = b.walls()[0];
        let w = m * g;
        assert!(
            rel(-load.force[2], w) < 1e-3 && load.force[0].abs() < 1e-3 * w,
            "{}: load {:?} vs weight {w}",
            b.name(),
            load.force
        );
    }
}

/// A sphere inside a cone lying on its side (axis horizontal, gravity
/// down) rolls along the cone's lowest line, an incline of angle α =
/// atan((r1 − r0) / L): its speed along the axis grows as 5/7 g sin α cos α
/// t (rolling without slipping down the incline, projected on the axis),
/// and it stays on the lowest line (y = 0).
fn sphere_rolls_down_the_inside_of_a_cone_as_theory_says(path: Path) {
    let r = 0.001;
    let (r0, r1, len): (f64, f64, f64) = (0.01, 0.02, 0.06);
    let alpha = ((r1 - r0) / len).atan();
    // on the lowest line near the narrow end, one radius inside
    let s0 = 0.01;
    let rho = r0 + (r1 - r0) * s0 / len;
    let x0 = [s0 + r * alpha.sin(), 0.0, -(rho - r * alpha.cos()) + 1e-7];
    let g = 9.81;
    let mut s = build(
        SceneBuilder::new("cone")
            .domain([-0.01, -0.03, -0.03], [0.07, 0.03, 0.03])
            .gravity([0.0, 0.0, -g])
            .dt_auto(0.1)
            .steps(1)
            .material(beads(0.3, 0.8))
            .particle(x0, [0.0; 3], r, "glass"),
    );
    s.walls.push(Wall {
        name: Some("hopper".into()),
        shape: Shape::Cone {
            center: [0.0; 3],
            axis: [1.0, 0.0, 0.0],
            radius: [r0, r1],
            length: len,
            side: Side::Inside,
        },
        material: 0,
        motion: None,
        servo: None,
    });
    for mut b in backends(path, &s) {
        let t = 0.1;
        b.advance((t / s.dt()) as u64).unwrap();
        let p = b.snapshot();
        let theory = 5.0 / 7.0 * g * alpha.sin() * alpha.cos() * t;
        let vx = p.vel_invm[0][0];
        assert!(
            rel(vx, theory) < 0.01 && p.pos_rad[0][1].abs() < 1e-6,
            "{}: vx {vx} m/s, theory {theory} m/s; at {:?}",
            b.name(),
            p.pos_rad[0]
        );
    }
}

/// A random bed of `n` spheres of radius ~r in a box [−h, h]² × [0, top].
fn bed(n: usize, h: f64, top: f64, r: f64, seed: u64) -> SceneBuilder {
    let mut rng = Rng::new(seed);
    let mut b = SceneBuilder::new("bed")
        .domain([-h, -h, -0.005], [h, h, top + 0.01])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(0.2)
        .steps(1)
        .material(beads(0.3, 0.5));
    let mut placed: Vec<[f64; 3]> = Vec::new();
    while placed.len() < n {
        let ri = r * rng.range(0.9, 1.0);
        let p = [
            rng.range(-h + ri, h - ri),
            rng.range(-h + ri, h - ri),
            rng.range(ri * 1.01, top),
        ];
        if placed
            .iter()
            .all(|q| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>() > (2.0 * r).powi(2))
        {
            placed.push(p);
            b = b.particle(p, [0.0; 3], ri, "glass");
        }
    }
    b
}

/// A bed settled on a mesh floor (inside four side planes): the floor's
/// load (walls.csv's column) carries the bed's weight, on both backends.
/// At 0.3 s the bed still trembles (speeds of ~mm/s) and one step's load
/// swings by a few % about the weight (a mean of 20 steps 0.0025 s apart
/// was 3 % off on lavapipe), so the load is averaged over every step of
/// the last 0.01 s (0.2 % from the weight on the CPU, 0.08 % on lavapipe).
fn settled_bed_on_a_mesh_floor_weighs_on_it(path: Path) {
    let h = 0.01;
    let (tris, _) = irregular_floor(h * 1.5, 6, 3);
    let mut b = bed(100, h, 0.015, 0.001, 5);
    for (p, n) in [
        ([-h, 0.0, 0.0], [1.0, 0.0, 0.0]),
        ([h, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        ([0.0, -h, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, h, 0.0], [0.0, -1.0, 0.0]),
    ] {
        b = b.wall(p, n, "glass");
    }
    let mut s = build(b);
    s.walls.push(mesh_wall(tris, 0));
    let mass = s.total_mass();
    for mut be in backends(path, &s) {
        be.advance((0.29 / s.dt()) as u64).unwrap();
        // every step's load over the last 0.01 s
        let steps = (0.01 / s.dt()) as u64;
        let mut load = 0.0;
        for _ in 0..steps {
            be.advance(1).unwrap();
            load += -be.walls()[4].1.force[2] / steps as f64;
        }
        let w = mass * 9.81;
        assert!(
            rel(load, w) < 0.01,
            "{}: the floor carries {load} N on average, the bed weighs {w} N",
            be.name()
        );
    }
}

/// A servo piston (a plane above a bed, pushing down) reaches its force
/// and holds it: over the second half of the run (0.15–0.3 s) the force it
/// exerts stays within 2 % of the target.
fn servo_piston_reaches_and_holds_its_force(path: Path) {
    let h = 0.008;
    let mut b = bed(80, h, 0.006, 0.001, 9);
    for (p, n) in [
        ([-h, 0.0, 0.0], [1.0, 0.0, 0.0]),
        ([h, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        ([0.0, -h, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, h, 0.0], [0.0, -1.0, 0.0]),
        ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ] {
        b = b.wall(p, n, "glass");
    }
    let mut s = build(b);
    let target = 2.0;
    s.walls.push(Wall {
        name: Some("piston".into()),
        shape: Shape::Plane {
            point: [0.0, 0.0, 0.009],
            normal: [0.0, 0.0, -1.0],
        },
        material: 0,
        motion: None,
        servo: Some(Servo {
            force: target,
            max_speed: 0.1,
            direction: [0.0, 0.0, -1.0],
        }),
    });
    for mut be in backends(path, &s) {
        let dt = s.dt();
        let rows = 60;
        let per = (0.3 / dt) as u64 / rows;
        let mut pushes = Vec::new();
        for _ in 0..rows {
            be.advance(per).unwrap();
            let (_, load) = be.walls()[5];
            // the force the piston exerts on the bed along its direction
            pushes.push(load.force[2]);
        }
        let tail = &pushes[rows as usize / 2..];
        for f in tail {
            assert!(
                rel(*f, target) < 0.02,
                "{}: piston pushes {f} N, target {target} N (history {pushes:?})",
                be.name()
            );
        }
    }
}

/// A rotating drum drags its bed up the rising side: the analytic cylinder
/// and an STL-like polygon of 96 facets of the same radius (its end plates
/// planes turning with it) give the same mean angular position of the bed
/// within 2° after 0.5 s, and the torque the bed puts on the drum opposes
/// its rotation.
fn rotating_drum_drags_its_bed_the_same_analytic_or_meshed(path: Path) {
    let (big_r, len) = (0.02, 0.01);
    let omega = 3.0;
    let motion = WallMotion {
        axis_point: [0.0; 3],
        axis: [0.0, 1.0, 0.0],
        angular_velocity: omega,
        ..Default::default()
    };
    let mut rng = Rng::new(3);
    let mut b = SceneBuilder::new("drum")
        .domain([-0.025, -0.001, -0.025], [0.025, len + 0.001, 0.025])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(0.2)
        .steps(1)
        .material(beads(0.3, 0.5));
    let r = 0.0012;
    let mut placed: Vec<[f64; 3]> = Vec::new();
    while placed.len() < 80 {
        let p = [
            rng.range(-0.015, 0.015),
            rng.range(r * 1.01, len - r * 1.01),
            rng.range(-0.015, 0.0),
        ];
        if (p[0] * p[0] + p[2] * p[2]).sqrt() < big_r - 1.5 * r
            && placed
                .iter()
                .all(|q| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>() > (2.05 * r).powi(2))
        {
            placed.push(p);
            b = b.particle(p, [0.0; 3], r, "glass");
        }
    }
    let base = build(b);
    let plate = |y: f64, n: f64| Wall {
        name: None,
        shape: Shape::Plane {
            point: [0.0, y, 0.0],
            normal: [0.0, n, 0.0],
        },
        material: 0,
        motion: Some(motion),
        servo: None,
    };
    let mut analytic = base.clone();
    analytic.walls.push(cylinder(
        [0.0, 1.0, 0.0],
        [0.0; 3],
        big_r,
        Side::Inside,
        Some(motion),
    ));
    analytic.walls.push(plate(0.0, 1.0));
    analytic.walls.push(plate(len, -1.0));
    // the polygon's facets touch the cylinder (inscribed circle radius R)
    let k = 96;
    let rc = big_r / (std::f64::consts::PI / k as f64).cos();
    let mut tris = Vec::new();
    for i in 0..k {
        let a0 = 2.0 * std::f64::consts::PI * i as f64 / k as f64;
        let a1 = 2.0 * std::f64::consts::PI * (i + 1) as f64 / k as f64;
        let p = |a: f64, y: f64| [rc * a.cos(), y, rc * a.sin()];
        let (y0, y1) = (-0.001, len + 0.001);
        tris.push([p(a0, y0), p(a1, y0), p(a1, y1)]);
        tris.push([p(a0, y0), p(a1, y1), p(a0, y1)]);
    }
    let mut meshed = base.clone();
    let mut m = mesh_wall(tris, 0);
    m.motion = Some(motion);
    meshed.walls.push(m);
    meshed.walls.push(plate(0.0, 1.0));
    meshed.walls.push(plate(len, -1.0));
    let angle = |p: &talus::state::Particles<f64>| {
        let n = p.len() as f64;
        let (sx, sz) = p
            .pos_rad
            .iter()
            .fold((0.0, 0.0), |(a, b), q| (a + q[0] / n, b + q[2] / n));
        sx.atan2(-sz).to_degrees()
    };
    // the bed's mean angle over [t0, t1] (one sample per 10 ms: the flowing
    // bed fluctuates by several degrees)
    let mean_angle = |b: &mut dyn Backend, t0: f64, t1: f64| {
        let per = (0.01 / analytic.dt()) as u64;
        b.advance((t0 / 0.01) as u64 * per).unwrap();
        let k = ((t1 - t0) / 0.01) as usize;
        let mut sum = 0.0;
        for _ in 0..k {
            b.advance(per).unwrap();
            sum += angle(&b.snapshot());
        }
        sum / k as f64
    };
    // the CPU: the analytic drum, the same with one sphere moved by 1 µm
    // (the flow's own scatter), and the meshed drum, averaged over 1 s
    if path == Path::Cpu {
        let mut perturbed = analytic.clone();
        perturbed.particles[0].position[0] += 1e-6;
        let run = |s: &Scene| {
            let mut c = CpuBackend::new(s).unwrap();
            let m = mean_angle(&mut c, 0.3, 1.3);
            (m, c.walls()[0].1)
        };
        let ((aa, load), (ap, _), (am, _)) = (run(&analytic), run(&perturbed), run(&meshed));
        println!("cpu: bed at {aa}° (analytic), {ap}° (perturbed), {am}° (mesh)");
        // ω along +y turns +z toward +x: the wall rises at x < 0, where the bed
        // is dragged
        assert!(aa < -10.0, "analytic drum bed at {aa}°: not dragged");
        assert!(
            (aa - am).abs() < 2.0,
            "bed at {aa}° (analytic) vs {am}° (mesh); the same drum perturbed: {ap}°"
        );
        assert!(
            load.torque[1] * omega < 0.0,
            "the bed's torque on the drum {:?} does not oppose ω",
            load.torque
        );
        return;
    }
    // the GPU (slow on lavapipe: 0.2 s of it): the meshed drum drags its bed
    // as the CPU's does, early in the same flow
    if let Some(ctx) = test_context() {
        let mut g = GpuBackend::new(&meshed, ctx).unwrap();
        let mut c = CpuBackend::new(&meshed).unwrap();
        let (gm, cm) = (mean_angle(&mut g, 0.1, 0.2), mean_angle(&mut c, 0.1, 0.2));
        println!("gpu: meshed bed at {gm}° over 0.1–0.2 s (cpu {cm}°)");
        assert!(
            (gm - cm).abs() < 2.0,
            "meshed drum bed at {gm}° on the GPU, {cm}° on the CPU"
        );
        let (_, load) = g.walls()[0];
        assert!(
            load.torque[1] * omega < 0.0,
            "gpu: torque {:?}",
            load.torque
        );
    }
}

/// `gravity_rotation` with `start`, `angle` and `every` (an hourglass
/// turned over and back): gravity (0, 0, −g) turned about x by θ is
/// (0, g sin θ, −g cos θ). Turns of π at ω = 2π rad/s (0.5 s each) start at
/// 0.1 s and every 0.6 s (0.1–0.6 s, 0.7–1.2 s, ...). A free sphere's
/// velocity is ∫ g dt: at 0.65 s (after one turn, held upside down) v =
/// (0, 2g/ω, −0.05 g), and at 1.25 s (after the turn back) v = (0, 0,
/// −0.05 g); on both backends.
fn gravity_turns_over_and_back_on_schedule(path: Path) {
    let (g, w) = (9.81, 2.0 * std::f64::consts::PI);
    let mut s = build(
        SceneBuilder::new("hourglass turns")
            .domain([-20.0; 3], [20.0; 3])
            .gravity([0.0, 0.0, -g])
            .dt(1e-3)
            .steps(1)
            .material(Material::new("soft", 1000.0, 1e5))
            .particle([0.0; 3], [0.0; 3], 0.01, "soft"),
    );
    s.simulation.gravity_rotation = Some(talus::scene::GravityRotation {
        axis: [1.0, 0.0, 0.0],
        angular_velocity: w,
        start: 0.1,
        angle: Some(std::f64::consts::PI),
        every: Some(0.6),
    });
    for mut b in backends(path, &s) {
        let mut done = 0;
        for (t, want) in [
            (0.65, [0.0, 2.0 * g / w, -0.05 * g]),
            (1.25, [0.0, 0.0, -0.05 * g]),
        ] {
            let steps = (t / 1e-3_f64).round() as u64;
            b.advance(steps - done).unwrap();
            done = steps;
            let v = b.snapshot().vel_invm[0];
            println!("{} at {t} s: v {:?}, theory {want:?}", b.name(), &v[..3]);
            // the rate of the steady test's error (~1e-5 m/s), plus at most
            // g ω dt² / 8 ≈ 8e-6 m/s at each of the four kinks
            for k in 1..3 {
                assert!(
                    (v[k] - want[k]).abs() < 1e-4,
                    "{} at {t} s: v {:?}, theory {want:?}",
                    b.name(),
                    &v[..3]
                );
            }
        }
    }
}

/// `gravity_rotation`: a free sphere under gravity g turning about x at ω
/// has v(t) = ∫ g(τ) dτ = (0, g (1 − cos ωt) / ω, −g sin ωt / ω), on both
/// backends (a soft, large sphere, so a 1 ms step is stable).
fn gravity_turns_as_asked(path: Path) {
    let (g, w) = (9.81, 2.0);
    let mut s = build(
        SceneBuilder::new("turning gravity")
            .domain([-10.0; 3], [10.0; 3])
            .gravity([0.0, 0.0, -g])
            .dt(1e-3)
            .steps(1)
            .material(Material::new("soft", 1000.0, 1e5))
            .particle([0.0; 3], [0.0; 3], 0.01, "soft"),
    );
    s.simulation.gravity_rotation = Some(talus::scene::GravityRotation::steady([1.0, 0.0, 0.0], w));
    for mut b in backends(path, &s) {
        b.advance(500).unwrap();
        let t = 0.5;
        let v = b.snapshot().vel_invm[0];
        let want = [0.0, g * (1.0 - (w * t).cos()) / w, -g * (w * t).sin() / w];
        println!("{}: v {:?}, theory {want:?}", b.name(), &v[..3]);
        // velocity Verlet with the predicted velocity is second order: an
        // error of order g (ω dt)² t ≈ 2e-5 m/s (measured: 7e-6)
        for k in 1..3 {
            assert!(
                (v[k] - want[k]).abs() < 1e-4,
                "{}: v {:?}, theory {want:?}",
                b.name(),
                &v[..3]
            );
        }
    }
}

both_paths!(
    mesh_floor_rebounds_like_the_plane,
    sphere_rolls_across_mesh_edges_like_on_the_plane,
    sphere_rolls_inside_a_cylinder_as_theory_says,
    sphere_rolls_down_the_inside_of_a_cone_as_theory_says,
    settled_bed_on_a_mesh_floor_weighs_on_it,
    servo_piston_reaches_and_holds_its_force,
    rotating_drum_drags_its_bed_the_same_analytic_or_meshed,
    gravity_turns_over_and_back_on_schedule,
    gravity_turns_as_asked,
);
