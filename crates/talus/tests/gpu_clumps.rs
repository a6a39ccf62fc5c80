//! Clumps on the GPU (`gpu::clumps`, `shaders/clumps.wgsl`) against their
//! CPU twin (`cpu::clumps`): a bed of dumbbells, tetrahedra and spheres
//! falling and colliding on a floor follows the CPU's trajectory to f32's
//! rounding; a free clump keeps its angular momentum bit for bit; the
//! tilted impact gives the rigid-body impulse solution (the lever in the
//! damping); two runs give the same bits; an outlet takes a clump whole.
//! Each test skips with a printed reason when no adapter exists, unless
//! TALUS_REQUIRE_GPU=1 (CI, on lavapipe).

use crate::clumps::{free_dumbbell, one_insert, tilted_drop, tilted_rebound_matches};
use crate::common::glass;
use glam::{DQuat, DVec3};
use std::collections::HashMap;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{context::test_context, GpuBackend};
use talus::rng::Rng;
use talus::scene::{Scene, SceneBuilder};
use talus::shapes::clumps::ClumpRow;

const DUMBBELL: [[f64; 4]; 2] = [[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]];
/// Four spheres of 0.8 mm on a regular tetrahedron's corners, 0.7 mm from
/// its centre (they overlap).
const TETRA: [[f64; 4]; 4] = [
    [0.000404, 0.000404, 0.000404, 0.0008],
    [0.000404, -0.000404, -0.000404, 0.0008],
    [-0.000404, 0.000404, -0.000404, 0.0008],
    [-0.000404, -0.000404, 0.000404, 0.0008],
];

/// A box 12 × 12 × 20 mm, periodic across, with a floor: `n` particles (every third a
/// sphere, the others dumbbells and tetrahedra in turn) on a lattice of
/// 2.9 mm (they reach 1.3 mm from their centres: neighbours meet soon), random orientations, velocities and spins, starting in f32's
/// numbers (both paths begin from the same state).
pub(crate) fn clump_bed(n: usize, seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let mut m = glass(0.5, 0.4);
    m.youngs_modulus = 5e7;
    let mut b = SceneBuilder::new("bed")
        .domain([-0.006, -0.006, 0.0], [0.006, 0.006, 0.02])
        .periodic([true, true, false])
        .material(m)
        .shape("dumbbell", &DUMBBELL)
        .shape("tetra", &TETRA)
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(0.05)
        .steps(1)
        .wall([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], "glass");
    let f = |x: f64| x as f32 as f64;
    for k in 0..n {
        let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
        let x = [
            f(-0.0029 + 0.0029 * i as f64 + rng.range(-1e-4, 1e-4)),
            f(-0.0029 + 0.0029 * j as f64 + rng.range(-1e-4, 1e-4)),
            f(0.0022 + 0.0029 * l as f64),
        ];
        let v = [
            f(rng.range(-0.2, 0.2)),
            f(rng.range(-0.2, 0.2)),
            f(rng.range(-0.5, 0.0)),
        ];
        if k % 3 == 0 {
            b = b.particle(x, v, 0.0009, "glass");
            continue;
        }
        let q = DQuat::from_euler(
            glam::EulerRot::XYZ,
            rng.range(0.0, 6.3),
            rng.range(0.0, 6.3),
            rng.range(0.0, 6.3),
        );
        let w = [
            f(rng.range(-50.0, 50.0)),
            f(rng.range(-50.0, 50.0)),
            f(rng.range(-50.0, 50.0)),
        ];
        let shape = if k % 3 == 1 { "dumbbell" } else { "tetra" };
        b = b.clump(shape, x, v, w, [q.w, q.x, q.y, q.z], "glass");
    }
    b.build().unwrap()
}

fn by_id(c: Vec<ClumpRow>) -> HashMap<u32, ClumpRow> {
    c.into_iter().map(|c| (c.id, c)).collect()
}

fn angle(a: [f64; 4], b: [f64; 4]) -> f64 {
    let q = |o: [f64; 4]| DQuat::from_xyzw(o[1], o[2], o[3], o[0]);
    let d = q(a) * q(b).inverse();
    2.0 * d.w.abs().min(1.0).acos()
}

/// The bed falls, hits the floor and each other for 6000 steps (dt at a
/// twentieth of the contact time: an impact with friction resolved in a
/// few steps turns on where its start falls between two steps, and f32
/// against f64 moves it; seen at a fifth, 10 % in a sphere's spin after
/// its bounce on the floor, no clump involved). Every clump's centre
/// within 5·10⁻³ of a member radius of the CPU's (seen 1.2·10⁻³), its
/// orientation within 10⁻² rad (2.1·10⁻³), every row within 10⁻² r
/// (2.2·10⁻³); the same particles, the energies within 10⁻⁴. (Without
/// the lever in the GPU's damping: centres 0.6 r apart.)
#[test]
fn gpu_clumps_follow_the_cpu_through_impacts() {
    let Some(ctx) = test_context() else { return };
    let scene = clump_bed(27, 5);
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    assert_eq!(gpu.particle_count(), 27);
    let steps = 6000;
    // contacts met along the way (the bed falls, hits the floor, bounces)
    let mut met = 0;
    for _ in 0..60 {
        cpu.advance(steps / 60).unwrap();
        gpu.advance(steps / 60).unwrap();
        met += cpu.list_stats().contacts;
    }
    let (c, g) = (by_id(cpu.clumps()), by_id(gpu.clumps()));
    assert_eq!(c.len(), 18);
    assert_eq!(g.len(), c.len());
    let r = 0.0008;
    let (mut worst_x, mut worst_q) = (0.0f64, 0.0f64);
    for (id, a) in &c {
        let b = &g[id];
        assert_eq!((a.shape, a.material), (b.shape, b.material));
        let d = (DVec3::from(a.pos) - DVec3::from(b.pos)).length();
        worst_x = worst_x.max(d);
        worst_q = worst_q.max(angle(a.orientation, b.orientation));
    }
    let (pc, pg) = (cpu.snapshot(), gpu.snapshot());
    assert_eq!(pc.id, pg.id, "the same rows, in (id, member) order");
    let mut worst_row = 0.0f64;
    for i in 0..pc.len() {
        let d = (0..3)
            .map(|k| (pc.pos_rad[i][k] - pg.pos_rad[i][k]).powi(2))
            .sum::<f64>();
        worst_row = worst_row.max(d.sqrt());
    }
    let (dc, dg) = (cpu.diagnostics(), gpu.diagnostics());
    println!(
        "clumps: centres {:.2e} r, orientations {worst_q:.2e} rad, rows {:.2e} r apart; {met} contacts seen; energy CPU {:e} GPU {:e}",
        worst_x / r,
        worst_row / r,
        dc.total(),
        dg.total()
    );
    assert!(met > 50, "{met} contacts seen: the bed did not meet");
    assert!(worst_x < 5e-3 * r, "centres {:e} r apart", worst_x / r);
    assert!(worst_q < 1e-2, "orientations {worst_q:e} rad apart");
    assert!(worst_row < 1e-2 * r, "rows {:e} r apart", worst_row / r);
    let scale = dc.kinetic_translational + dc.kinetic_rotational + dc.potential.abs();
    assert!(
        (dc.total() - dg.total()).abs() < 1e-4 * scale,
        "{dc:?} vs {dg:?}"
    );
    assert!(
        (dc.kinetic_rotational - dg.kinetic_rotational).abs() < 1e-3 * dc.kinetic_rotational,
        "{dc:?} vs {dg:?}"
    );
}

/// A free tumbling dumbbell: no torque, so the world angular momentum the
/// drift holds keeps its bits, the centre moves at its velocity's bits,
/// and the members stay where the body puts them (1.2 mm apart, to f32).
#[test]
fn gpu_free_clump_keeps_its_momenta() {
    let Some(ctx) = test_context() else { return };
    let scene = free_dumbbell();
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    g.advance(1).unwrap();
    let t1 = g.clump_table()[0];
    g.advance(2000).unwrap();
    let t2 = g.clump_table()[0];
    assert_eq!(t1.l_half, t2.l_half, "L bit for bit");
    assert_eq!(t1.vel, t2.vel, "V bit for bit");
    let p = g.snapshot();
    let d: f64 = (0..3)
        .map(|k| (p.pos_rad[0][k] - p.pos_rad[1][k]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!((d - 0.0012).abs() < 1e-9, "members {d} apart");
    let mut cpu = CpuBackend::new(&scene).unwrap();
    cpu.advance(2001).unwrap();
    let (a, b) = (cpu.clumps()[0], g.clumps()[0]);
    let turned = angle(a.orientation, b.orientation);
    println!("free dumbbell: orientation {turned:.2e} rad from the CPU's after 2001 steps");
    assert!(turned < 1e-4, "{turned:e} rad");
}

/// The tilted dumbbell's impact on the GPU: the rebound and spin of the
/// impulse solution within 2 % (as on the CPU), which needs the lever in
/// the contact's damping; off-axis spin at f32's rounding (seen 1.7·10⁻⁵
/// of the spin; the CPU's below 10⁻⁹ rad/s, 3·10⁻¹² of it, f64's).
#[test]
fn gpu_tilted_dumbbell_rebounds_as_the_impulse_solution() {
    let Some(ctx) = test_context() else { return };
    let (scene, want) = tilted_drop(0.6, 0.5, 30.0);
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    tilted_rebound_matches(&mut g, want, 0.02, 1e-4 * want.1.length());
}

/// Two runs of the bed: the same bits (the clumps' table and every row).
#[test]
fn gpu_clump_runs_are_deterministic() {
    let Some(ctx) = test_context() else { return };
    let scene = clump_bed(18, 7);
    let run = |ctx| {
        let mut g = GpuBackend::new(&scene, ctx).unwrap();
        g.advance(600).unwrap();
        (g.clump_table(), g.snapshot())
    };
    let (t1, p1) = run(ctx.share());
    let (t2, p2) = run(ctx);
    assert_eq!(t1, t2);
    assert_eq!(p1, p2);
}

/// Clumps and spheres falling out of the open bottom of a box: each clump
/// leaves whole (one event, with its mass; its rows gone at the next
/// build), the GPU's events as the CPU's, and the particles counted once.
#[test]
fn gpu_outlets_take_clumps_whole() {
    let Some(ctx) = test_context() else { return };
    let mut sb = SceneBuilder::new("out")
        .domain([-0.02, -0.02, -0.01], [0.02, 0.02, 0.02])
        .material(glass(0.5, 0.0))
        .shape("dumbbell", &DUMBBELL)
        .gravity([0.0, 0.0, -9.81])
        .dt(5e-7)
        .steps(1);
    for i in 0..4 {
        let x = [-0.006 + 0.004 * i as f64, 0.0, -0.004 - 0.001 * i as f64];
        let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.5 * i as f64, 0.3, 0.9);
        sb = sb.clump(
            "dumbbell",
            x,
            [0.0, 0.0, -1.0],
            [0.0; 3],
            [q.w, q.x, q.y, q.z],
            "glass",
        );
    }
    let scene = sb
        .particle([0.01, 0.0, -0.005], [0.0, 0.0, -1.0], 0.001, "glass")
        .build()
        .unwrap();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let (mut ec, mut eg) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        cpu.advance(2000).unwrap();
        gpu.advance(2000).unwrap();
        ec.extend(cpu.flow_events());
        eg.extend(gpu.flow_events());
        assert_eq!(gpu.particle_count(), cpu.particle_count());
    }
    ec.sort_by_key(|e| e.id);
    eg.sort_by_key(|e| e.id);
    println!("events CPU {ec:?}\nGPU {eg:?}");
    assert_eq!(ec.len(), 5, "every particle left");
    assert_eq!(eg.len(), 5, "every particle left, once");
    for (a, b) in ec.iter().zip(&eg) {
        // f32 velocities: each kick rounds to v's ulp, ~10⁻⁴ of v after
        // 10⁴ steps of free fall, which may move a crossing by a step
        assert_eq!((a.id, a.kind), (b.id, b.kind));
        assert!(a.step.abs_diff(b.step) <= 2, "{a:?} vs {b:?}");
        assert!((a.mass - b.mass).abs() < 1e-6 * a.mass, "{a:?} vs {b:?}");
        assert!(
            (a.energy - b.energy).abs() < 5e-4 * a.energy.abs(),
            "{a:?} vs {b:?}"
        );
    }
    assert_eq!(gpu.particle_count(), 0);
    assert!(gpu.clumps().is_empty());
    assert_eq!(gpu.snapshot().len(), 0);
}

/// A GPU checkpoint of a clump run taken midway continues bit for bit
/// (the clumps' table, every row); the CPU backend refuses it in one line
/// (its clumps are f64), and the GPU one a CPU checkpoint with clumps.
#[test]
fn gpu_clump_checkpoints_resume_bit_for_bit() {
    let Some(ctx) = test_context() else { return };
    let scene = clump_bed(18, 11);
    let mut a = GpuBackend::new(&scene, ctx.share()).unwrap();
    a.advance(400).unwrap();
    let saved = a.save();
    a.advance(400).unwrap();
    let mut b = GpuBackend::restore(&scene, ctx.share(), &saved).unwrap();
    b.advance(400).unwrap();
    assert_eq!(a.clump_table(), b.clump_table());
    assert_eq!(a.snapshot(), b.snapshot());
    assert_eq!(a.clumps(), b.clumps());
    assert_eq!(a.diagnostics(), b.diagnostics());
    let e = CpuBackend::restore(&scene, &saved).err().expect("refused");
    assert!(e.contains("--backend gpu") && !e.contains('\n'), "{e}");
    let mut c = CpuBackend::new(&scene).unwrap();
    c.advance(10).unwrap();
    let e = GpuBackend::restore(&scene, ctx, &c.save())
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("--backend cpu") && !e.contains('\n'), "{e}");
}

/// Removing a clump's id takes it whole on the GPU as on the CPU (its
/// rows and its entry: nothing moves or counts it again); spheres
/// inserted into a run with clumps are rows of no clump, on both paths.
#[test]
fn gpu_removal_takes_a_clump_whole_and_spheres_join_clumps() {
    let Some(ctx) = test_context() else { return };
    let scene = clump_bed(9, 3);
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx.share()).unwrap();
    cpu.advance(100).unwrap();
    gpu.advance(100).unwrap();
    let gone = std::collections::HashSet::from([1u32, 3]);
    cpu.st.remove(&gone);
    assert_eq!(gpu.remove(&gone), 3, "a dumbbell's 2 rows and a sphere's");
    cpu.advance(100).unwrap();
    gpu.advance(100).unwrap();
    assert_eq!(gpu.particle_count(), 7);
    assert_eq!(gpu.particle_count(), cpu.particle_count());
    let ids = |c: Vec<ClumpRow>| c.iter().map(|c| c.id).collect::<Vec<_>>();
    assert_eq!(ids(gpu.clumps()), ids(cpu.clumps()));
    assert_eq!(gpu.snapshot().id, cpu.snapshot().id);
    // a sphere inserted among them: id 9 on both, a row of no clump
    let mut one = talus::state::Particles::<f64>::from_scene(&clump_bed(1, 3));
    one.pos_rad[0][2] = 0.015;
    assert_eq!(cpu.st.insert(&one).unwrap(), 9..10);
    assert_eq!(gpu.insert(&one).unwrap(), 9..10);
    cpu.advance(300).unwrap();
    gpu.advance(300).unwrap();
    let rows = gpu.member_rows();
    let snap = gpu.snapshot();
    let at = snap.id.iter().position(|&i| i == 9).unwrap();
    let (c, s) = (cpu.snapshot(), &snap);
    let i = c.id.iter().position(|&i| i == 9).unwrap();
    assert!(
        (c.pos_rad[i][2] - s.pos_rad[at][2]).abs() < 1e-7,
        "{:?} {:?}",
        c.pos_rad[i],
        s.pos_rad[at]
    );
    let order = gpu.ids();
    let row = order.iter().position(|&i| i == 9).unwrap();
    assert_eq!(rows[row], talus::gpu::layout::MemberRow::SPHERE);
    assert_eq!(gpu.particle_count(), 8);
}

/// Dumbbells, tetrahedra and spheres poured (three `[[insert]]` entries)
/// onto a bed of clumps on both paths: the same candidates accepted at the
/// same steps with the same ids (acceptance tests the bounding sphere
/// against every row present), each poured clump starting as the CPU's
/// (its record and rows from `shapes::pour`, rounded once), and the bed
/// then following the CPU's through impacts as the bed of particles does.
#[test]
fn gpu_pours_clumps_as_the_cpu() {
    let Some(ctx) = test_context() else { return };
    let scene = poured_bed(5, 1);
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx.share()).unwrap();
    let mut events = (Vec::new(), Vec::new());
    let key =
        |e: &talus::flow::FlowEvent| (e.step, e.id, format!("{:?}", e.kind), e.mass, e.energy);
    for _ in 0..6 {
        cpu.advance(1000).unwrap();
        gpu.advance(1000).unwrap();
        events.0.extend(cpu.flow_events().iter().map(key));
        events.1.extend(gpu.flow_events().iter().map(key));
    }
    assert_eq!(events.0, events.1, "insertions differ");
    let poured = events.0.len();
    assert!(poured >= 20, "{poured} poured");
    let (c, g) = (by_id(cpu.clumps()), by_id(gpu.clumps()));
    assert_eq!(c.len(), g.len());
    assert!(c.len() >= 15, "{} clumps", c.len());
    let r = 0.0008;
    let (mut worst_x, mut worst_q) = (0.0f64, 0.0f64);
    for (id, a) in &c {
        let b = &g[id];
        let dx = (DVec3::from(a.pos) - DVec3::from(b.pos)).length() / r;
        worst_x = worst_x.max(dx);
        worst_q = worst_q.max(angle(a.orientation, b.orientation));
        assert_eq!(a.shape, b.shape);
    }
    println!("poured: {poured} particles, {} clumps; centres {worst_x:.2e} r, orientations {worst_q:.2e} rad", c.len());
    assert!(worst_x < 5e-3, "centres {worst_x:e} r apart");
    assert!(worst_q < 1e-2, "orientations {worst_q:e} rad apart");
    // f32's velocity kicks round by ~0.2 ulp a step in free fall (seen in
    // the outlets' test too): ~2·10⁻⁴ of the kinetic energy over these
    // 6000 steps (seen 1.2·10⁻⁴ of the total)
    let (dc, dg) = (cpu.diagnostics(), gpu.diagnostics());
    let de = (dc.total() - dg.total()).abs() / dc.total().abs();
    assert!(de < 5e-4, "{de:e}: {dc:?} {dg:?}");
    assert_eq!(cpu.particle_count(), gpu.particle_count());
}

/// Pouring clumps on the GPU gives the same bits whether the clumps'
/// tables had room for the whole plan from the start or grew segment by
/// segment (the scene's own end at step 1), and a checkpoint taken
/// between batches resumes bit for bit.
#[test]
fn gpu_poured_clumps_keep_their_bits_through_growth_and_checkpoints() {
    let Some(ctx) = test_context() else { return };
    let run = |scene: &Scene| {
        let mut g = GpuBackend::new(scene, ctx.share()).unwrap();
        g.advance(1500).unwrap();
        let saved = g.save();
        let _ = g.flow_events();
        g.advance(2500).unwrap();
        (
            g.clump_table(),
            g.snapshot(),
            g.diagnostics(),
            g.flow_events(),
            saved,
        )
    };
    let short = poured_bed(5, 1);
    let mut long = short.clone();
    long.simulation.end = talus::scene::End::Steps(4000);
    // room from the start for what the plan pours by its end: its rows
    // (a clump's members a row each) and its clumps' records
    let g = GpuBackend::new(&long, ctx.share()).unwrap();
    let plan = talus::flow::InsertPlan::new(&long);
    let rows = g.data.n + plan.max_rows(4000);
    assert!(plan.max_rows(4000) > plan.max_inserted(4000));
    assert!(
        g.data.cap >= rows,
        "{} rows of room, {rows} needed",
        g.data.cap
    );
    assert!(
        g.data.clumps.count >= 3 + 16,
        "{} records",
        g.data.clumps.count
    );
    drop(g);
    let a = run(&short);
    let b = run(&long);
    assert!(a.0.len() >= 10, "{} clumps", a.0.len());
    assert_eq!(a.0, b.0, "clumps differ");
    assert_eq!(a.1, b.1, "rows differ");
    assert_eq!(a.2, b.2, "diagnostics differ");
    let mut c = GpuBackend::restore(&long, ctx.share(), &a.4).unwrap();
    c.advance(2500).unwrap();
    assert_eq!(c.clump_table(), a.0, "resumed clumps differ");
    assert_eq!(c.snapshot(), a.1, "resumed rows differ");
    assert_eq!(c.diagnostics(), a.2, "resumed diagnostics differ");
    let key = |e: &talus::flow::FlowEvent| (e.step, e.id);
    let after: Vec<_> = a.3.iter().map(key).collect();
    assert!(!after.is_empty(), "nothing poured after the checkpoint");
    assert_eq!(c.flow_events().iter().map(key).collect::<Vec<_>>(), after);
}

/// [`clump_bed`] of `n` with dumbbells, tetrahedra and spheres poured
/// onto it from above (8 of each, one batch every 200 steps).
pub(crate) fn poured_bed(n: usize, seed: u64) -> Scene {
    let mut scene = clump_bed(n, seed);
    let region = talus::scene::Region::Box {
        min: [-0.006, -0.006, 0.011],
        max: [0.006, 0.006, 0.019],
    };
    for (shape, radius) in [(Some(0), 0.001), (Some(1), 0.0008), (None, 0.0007)] {
        let mut ins = one_insert(region, radius, shape);
        ins.rate = talus::scene::InsertRate::Count(4000.0);
        ins.count = Some(8);
        ins.interval = Some(200.0 * scene.dt());
        ins.velocity = [0.0, 0.0, -0.3];
        scene.inserts.push(ins);
    }
    scene
}

/// Each pair once or from both sides (`Pairs`; a card's default is the
/// faster): the same bits for a bed of clumps (the list from both sides
/// keeps a clump's members apart by their ids, a check of its own).
#[test]
fn gpu_clumps_give_the_same_bits_each_pair_once_or_from_both_sides() {
    let scene = clump_bed(27, 13);
    let run = |pairs: talus::gpu::Pairs| {
        let mut ctx = test_context()?;
        ctx.pairs = pairs;
        let mut g = GpuBackend::new(&scene, ctx).unwrap();
        g.advance(1500).unwrap();
        Some((
            g.clump_table(),
            g.snapshot(),
            g.diagnostics(),
            g.list_stats(),
        ))
    };
    let Some(once) = run(talus::gpu::Pairs::Once) else {
        return;
    };
    let Some(both) = run(talus::gpu::Pairs::Both) else {
        return;
    };
    println!("clumps, 1500 steps: {:?}", once.3);
    assert!(once.3.contacts > 0, "{:?}", once.3);
    assert_eq!(once.0, both.0, "clumps differ");
    assert_eq!(once.1, both.1, "rows differ");
    assert_eq!(once.2, both.2, "diagnostics differ");
}
