//! The GPU half of the grain–FEM-body coupling against its CPU twin: the
//! surfaces posed on the device (`move_surfaces`, `mark_surfaces_built`)
//! against `WallSet::pose_surfaces` / `Surfaces::mark_built`; the contact
//! stage's nodal forces (64-bit fixed point by integer atomics) against
//! the CPU's `surfaces.force`, and the same bits over two runs; a coupled
//! run through `GpuBackend` against `CpuBackend`. Skips without an adapter
//! unless TALUS_REQUIRE_GPU=1.

use glam::DVec3;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::context::test_context;
use talus::gpu::data::{surf_force_words, CTL_REBUILD, CTL_STEP};
use talus::gpu::layout::Wall;
use talus::gpu::{FixedPoint, GpuBackend, GpuInit};
use talus::grid::Grid;
use talus::rng::Rng;
use talus::scene::{Body, BodyElement, BodyIntegrator, BodyMesh, BodyModel, Material, Scene};
use talus::state::Particles;
use talus::walls::WallSet;
use talus::SceneBuilder;

fn glass() -> Material {
    let mut m = Material::new("glass", 2500.0, 1e7);
    m.restitution = 0.5;
    m.friction = 0.3;
    m
}

/// A square sheet of `k` × `k` cells (2 triangles each) of side `h` at
/// z = 0, centred on the origin, counter-clockwise seen from above; its
/// interior nodes jittered in the plane.
fn sheet(k: u32, h: f64, rng: &mut Rng) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let c = h / k as f64;
    let mut nodes = Vec::new();
    for j in 0..=k {
        for i in 0..=k {
            let inner = i > 0 && j > 0 && i < k && j < k;
            let (dx, dy) = if inner {
                (rng.range(-0.2, 0.2) * c, rng.range(-0.2, 0.2) * c)
            } else {
                (0.0, 0.0)
            };
            nodes.push(DVec3::new(
                i as f64 * c - 0.5 * h + dx,
                j as f64 * c - 0.5 * h + dy,
                0.0,
            ));
        }
    }
    let at = |i: u32, j: u32| j * (k + 1) + i;
    let mut tris = Vec::new();
    for j in 0..k {
        for i in 0..k {
            tris.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            tris.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (nodes, tris)
}

/// A bed of `r`-spheres on the sheet (the lowest layer pressed 1e-3 r into
/// it), f32-exact positions and small random velocities.
fn bed(r: f64, layers: u32, seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let q = |v: f64| v as f32 as f64;
    let mut b = SceneBuilder::new("sheet bed")
        .domain([-0.012, -0.012, -0.004], [0.012, 0.012, 0.012])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(0.2)
        .steps(1)
        .material(glass());
    for layer in 0..layers {
        let z = r * 0.999 + layer as f64 * 2.01 * r;
        for i in -4..=4 {
            for j in -4..=4 {
                let (x, y) = (i as f64 * 2.1 * r, j as f64 * 2.1 * r);
                let v = [rng.range(-0.02, 0.02), rng.range(-0.02, 0.02), 0.0].map(q);
                b = b.particle([q(x), q(y), q(z)], v, r, "glass");
            }
        }
    }
    b.build().expect("scene")
}

/// The scene's walls plus the sheet as a deforming surface moving from
/// `x0` with velocities `v` over an interval that started at `step0`.
fn with_sheet(scene: &Scene, seed: u64, step0: u64, speed: f64) -> WallSet {
    let mut rng = Rng::new(seed);
    let mut set = talus::Setup::new(scene.clone()).unwrap().walls;
    let (nodes, tris) = sheet(6, 0.02, &mut rng);
    let reach = (scene.radius_range().1 + scene.skin()) * talus::walls::set::GRID_REACH_MARGIN;
    set.add_surface(&nodes, &tris, 0, reach, &scene.domain);
    let v: Vec<DVec3> = nodes
        .iter()
        .map(|_| {
            DVec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            ) * speed
        })
        .collect();
    set.start_interval(&nodes, &v, step0, 10.0, scene.dt());
    set.pose_surfaces(step0, scene.dt(), f64::INFINITY);
    set
}

/// A GPU backend over `scene`'s particles with the walls of `set`.
fn gpu_with(scene: &Scene, set: &WallSet) -> Option<GpuBackend> {
    let ctx = test_context()?;
    let grid = Grid::for_scene(scene).unwrap();
    let exact = Particles::from_scene(scene);
    let fp = FixedPoint::new(&grid);
    let fx: Vec<talus::gpu::data::FixedWords> = exact
        .pos_rad
        .iter()
        .map(|p| fp.encode([p[0], p[1], p[2]]))
        .collect();
    let motion =
        talus::state::convert_motion(&exact.initial_motion(scene.simulation.gravity, scene.dt()));
    let init = GpuInit {
        state: &exact.to_f32(),
        pos_fx: &fx,
        motion: &motion,
        list: None,
        capacity: None,
        clumps: None,
    };
    let setup = talus::Setup::new(scene.clone()).unwrap();
    Some(GpuBackend::with_walls(&setup, &grid, &init, ctx, Some(set.clone())).unwrap())
}

fn word(g: &GpuBackend, k: usize, v: u32) {
    g.ctx
        .queue
        .write_buffer(&g.data.ctl, 4 * k as u64, bytemuck::bytes_of(&v));
}

#[test]
fn move_surfaces_poses_like_the_cpu() {
    let scene = bed(0.001, 1, 3);
    let (step0, dt) = (3, scene.dt());
    // a node moves ~skin/2 in ~10 steps
    let speed = 0.5 * scene.skin() / (10.0 * dt);
    let mut set = with_sheet(&scene, 11, step0, speed);
    let Some(g) = gpu_with(&scene, &set) else {
        return;
    };
    let half = 0.5 * scene.skin();
    let first = set.surfaces.walls[0].first_prim as usize;
    let (mut worst, mut flags) = (0.0f64, [0, 0]);
    for (i, step) in [3u64, 4, 5, 8, 11, 13, 17, 24].into_iter().enumerate() {
        word(&g, CTL_STEP, step as u32);
        word(&g, CTL_REBUILD, 0);
        g.submit("move", |pass| {
            g.pipes
                .surfaces
                .encode_move(&g.binds.surfaces, pass, &g.data)
        });
        let rebuild = set.pose_surfaces(step, dt, half);
        let moved = set.surfaces.moved_since_build(step, dt);
        let walls: Vec<Wall> = g.read_vec(&g.data.walls, set.prims.len() as u64);
        for (p, w) in set.prims[first..].iter().zip(&walls[first..]) {
            for (h, d) in [(p.a, w.a), (p.b, w.b), (p.c, w.c)] {
                for k in 0..3 {
                    let e = (h[k] - d[k] as f64).abs() / (1e-3 + h[k].abs());
                    worst = worst.max(e);
                }
                assert_eq!(h[3] as f32, d[3], "a w lane changed");
            }
        }
        let flag = g.ctl()[CTL_REBUILD] != 0;
        flags[flag as usize] += 1;
        if (moved - half).abs() > 1e-5 * half {
            assert_eq!(flag, rebuild, "step {step}: moved {moved} vs skin/2 {half}");
        }
        // every other step, a build records the nodes (mark_surfaces_built)
        if i % 2 == 1 {
            word(&g, CTL_REBUILD, 1);
            g.submit("mark", |pass| {
                g.pipes
                    .surfaces
                    .encode_mark(&g.binds.surfaces, pass, &g.data)
            });
            set.surfaces.mark_built(step, dt);
            let n = set.surfaces.x0.len();
            let nodes: Vec<[f32; 4]> = g.read_vec(&g.data.surf_nodes, 3 * n as u64);
            for (b, d) in set.surfaces.built.iter().zip(&nodes[2 * n..]) {
                for k in 0..3 {
                    let e = (b[k] - d[k] as f64).abs() / (1e-3 + b[k].abs());
                    worst = worst.max(e);
                }
            }
        }
    }
    println!("vertices and built nodes within {worst:e} (relative to 1e-3 m + |x|); rebuild flag clear/set {flags:?}");
    assert!(worst < 1e-6, "{worst:e}");
    assert!(
        flags[0] > 0 && flags[1] > 0,
        "the flag never changed: {flags:?}"
    );
}

/// The GPU's nodal forces after one step, in f64.
fn gpu_node_forces(g: &GpuBackend) -> (Vec<u32>, Vec<DVec3>) {
    let n = g.data.n_surf_nodes;
    let words: Vec<u32> = g.read_vec(&g.data.surf_force, surf_force_words(n));
    let (f, overflow) = talus::gpu::surfaces::node_forces(&words, n as usize, g.data.force_scale);
    assert!(!overflow);
    (words, f)
}

#[test]
fn contact_stage_hands_the_same_nodal_forces() {
    let scene = bed(0.001, 2, 7);
    let set = with_sheet(&scene, 5, 0, 0.02);
    let Some(mut g) = gpu_with(&scene, &set) else {
        return;
    };
    let mut g2 = gpu_with(&scene, &set).unwrap();
    let mut c = CpuBackend::new(&scene).unwrap();
    c.st.walls = set.clone();
    c.advance(1).unwrap();
    g.advance(1).unwrap();
    g2.advance(1).unwrap();
    let (w1, gf) = gpu_node_forces(&g);
    let (w2, _) = gpu_node_forces(&g2);
    assert_eq!(w1, w2, "the fixed-point sums differ between two runs");
    let cf = &c.st.walls.surfaces.force;
    let (mut d2, mut n2, mut loaded) = (0.0, 0.0, 0);
    for (a, b) in cf.iter().zip(&gf) {
        d2 += (*a - *b).length_squared();
        n2 += a.length_squared();
        loaded += (a.length() > 0.0) as u32;
    }
    let e = (d2 / n2).sqrt();
    let total = cf.iter().sum::<DVec3>();
    println!(
        "{loaded} nodes loaded, total {total:?} N; nodal forces norm-wise within {e:e}; unit 1/{:e} N",
        g.data.force_scale
    );
    assert!(loaded > 20, "too few nodes carry load: {loaded}");
    // overlaps of 1e-6 m from f32 coordinates (ulp ~1e-9 m): ~1e-3
    assert!(e < 2e-3, "nodal forces differ by {e:e}");
}

/// A few spheres dropped on a small clamped FEM box.
fn dropped_on_a_box() -> Scene {
    let q = |v: f64| v as f32 as f64;
    let mut b = SceneBuilder::new("drop on a box")
        .domain([-0.03, -0.03, -0.01], [0.03, 0.03, 0.04])
        .gravity([0.0, 0.0, -9.81])
        .material(glass())
        .material({
            let mut m = Material::new("rubber", 1200.0, 1e6);
            m.poisson_ratio = 0.3;
            m.restitution = 0.5;
            m.friction = 0.5;
            m
        })
        .dt_auto(0.2)
        .steps(400);
    // off the mesh's node lines: a sphere landing exactly on a vertex of
    // the deforming surface sits on a tie of the mesh reduction (which
    // triangles' closest points are "the same point"), decided differently
    // in f32 and f64 once the triangles are no longer coplanar (measured:
    // 1.9e-3 r apart after the bounce with K = 4, against 6e-6 r off the
    // vertex)
    for (k, (x, y)) in [
        (0.0013, 0.0011),
        (0.006, 0.0023),
        (-0.0051, 0.0041),
        (0.0021, -0.0068),
    ]
    .into_iter()
    .enumerate()
    {
        b = b.particle(
            [q(x), q(y), q(0.0125 + 0.0005 * k as f64)],
            [0.0, 0.0, -0.3],
            0.002,
            "glass",
        );
    }
    b = b.body(Body {
        name: Some("box".into()),
        mesh: BodyMesh::Box {
            min: [-0.02, -0.02, -0.005],
            max: [0.02, 0.02, 0.01],
            divisions: [4, 4, 2],
        },
        material: 1,
        element: BodyElement::Tet4,
        model: BodyModel::Stvk,
        integrator: BodyIntegrator::Explicit,
        velocity: [0.0; 3],
        damping: [0.0, 0.0],
        fixed: vec![([-1.0, -1.0, -1.0], [1.0, 1.0, -0.0049])],
        exchange_every: None,
        wall_stiffness: None,
    });
    b.build().expect("scene")
}

#[test]
fn coupled_run_matches_the_cpu() {
    let scene = dropped_on_a_box();
    let Some(ctx) = test_context() else { return };
    let mut c = CpuBackend::new(&scene).unwrap();
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    let every = c.bodies.as_ref().unwrap().every;
    // in pieces that do not fall on the exchanges
    let mut touched = 0;
    for k in [7, 50, 43, 50, 50, 50, 50, 50, 50] {
        c.advance(k).unwrap();
        g.advance(k).unwrap();
        touched += (c.bodies().unwrap().bodies[0].force.z < 0.0) as u32;
    }
    let (cp, gp) = (c.snapshot(), g.snapshot());
    let (cb, gb) = (c.bodies().unwrap(), g.bodies().unwrap());
    println!("K = {every}, {} exchanges", cb.exchanges);
    assert_eq!(cb.exchanges, gb.exchanges);
    assert_eq!(cb.exchanges, 400 / every);
    let mut worst = 0.0f64;
    let mut fell = 0.0f64;
    for (a, b) in cp.pos_rad.iter().zip(&gp.pos_rad) {
        let d = DVec3::new(a[0] - b[0], a[1] - b[1], a[2] - b[2]).length();
        worst = worst.max(d / a[3]);
    }
    for (a, p) in cp.pos_rad.iter().zip(&scene.particles) {
        fell = fell.max(p.position[2] - a[2]);
    }
    let (ca, ga) = (&cb.now()[0], &gb.now()[0]);
    let dc = (ca.com - ga.com).length();
    // how far the body's centre of mass has moved (sagged under the grains)
    let com0 = CpuBackend::new(&scene).unwrap().bodies.unwrap().bodies[0]
        .body
        .center_of_mass();
    let moved = (ca.com - com0).length();
    println!(
        "particles within {worst:e} r (they fell {fell:e} m); body com {:?} vs {:?}: {dc:e} m of a {moved:e} m move; grains' force {:?} vs {:?}",
        ca.com, ga.com, ca.force, ga.force
    );
    println!("the grains pressed on the body at {touched} of 9 checks");
    assert!(touched > 0, "the grains never touched the body");
    assert!(worst < 1e-4, "particles differ by {worst:e} r");
    assert!(
        dc <= 1e-2 * moved + 1e-12,
        "com differs by {dc:e} of a {moved:e} move"
    );
}

#[test]
fn coupled_gpu_run_resumes_bit_for_bit_and_across_backends() {
    let scene = dropped_on_a_box();
    let Some(ctx) = test_context() else { return };
    let ctx2 = test_context().expect("a second context");
    let ctx3 = test_context().expect("a third context");
    let mut straight = GpuBackend::new(&scene, ctx).unwrap();
    let mut first = GpuBackend::new(&scene, ctx2).unwrap();
    // 150 is not a multiple of K: the checkpoint holds a part-summed interval
    straight.advance(300).unwrap();
    first.advance(150).unwrap();
    let saved = first.save();
    let mut resumed = GpuBackend::restore(&scene, ctx3, &saved).unwrap();
    resumed.advance(150).unwrap();
    let (a, b) = (straight.snapshot(), resumed.snapshot());
    assert_eq!(
        a.pos_rad, b.pos_rad,
        "GPU grain positions differ after the resume"
    );
    let (ba, bb) = (straight.bodies().unwrap(), resumed.bodies().unwrap());
    assert_eq!(ba.bodies[0].body.positions(), bb.bodies[0].body.positions());
    assert_eq!(ba.exchanges, bb.exchanges);
    // the GPU's checkpoint continued on the CPU: within f32 tolerance of
    // the straight GPU run
    let mut cpu = CpuBackend::restore(&scene, &saved).unwrap();
    cpu.advance(150).unwrap();
    let c = cpu.snapshot();
    let worst = a
        .pos_rad
        .iter()
        .zip(&c.pos_rad)
        .map(|(x, y)| DVec3::new(x[0] - y[0], x[1] - y[1], x[2] - y[2]).length() / x[3])
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-4,
        "GPU→CPU resume {worst:e} r from the straight GPU run"
    );
    let dc = (cpu.bodies.as_ref().unwrap().bodies[0].body.center_of_mass()
        - ba.bodies[0].body.center_of_mass())
    .length();
    assert!(dc < 1e-9, "body centre {dc:e} m apart");
}
