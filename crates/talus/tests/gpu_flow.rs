//! Insertion, outlets and checkpoints on the GPU against the CPU twin
//! (`cpu/flow.rs`, `cpu/save.rs`). Each test skips with a printed reason
//! when no adapter exists, unless TALUS_REQUIRE_GPU=1 (CI, on lavapipe).

use crate::common;

use common::build;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::flow::{FlowEvent, FlowKind};
use talus::gpu::{context::test_context, GpuBackend, Pairs};
use talus::scene::types::WallMotion;
use talus::scene::{Insert, InsertRate, Material, Outlet, RadiusDist, Region, Scene, SceneBuilder};
use talus::state::Particles;

const R: f64 = 0.0008;

fn glass() -> Material {
    Material::new("glass", 2500.0, 5e7)
}

/// The time step `dt_auto(0.2)` gives spheres of radius [`R`].
fn dt() -> f64 {
    build(
        SceneBuilder::new("probe")
            .domain([0.0; 3], [0.02; 3])
            .dt_auto(0.2)
            .steps(1)
            .material(glass())
            .particle([0.01; 3], [0.0; 3], R, "glass"),
    )
    .dt()
}

/// An `[[insert]]` of spheres of radius [`R`] into `region` moving at `v`:
/// a batch every `every` steps of `per` particles, `total` at most, from
/// step `start`.
fn insert(region: Region, v: [f64; 3], every: u64, per: u64, total: u64, start: u64) -> Insert {
    let dt = dt();
    Insert {
        region,
        rate: InsertRate::Count(per as f64 / (every as f64 * dt)),
        radius: RadiusDist::Constant(R),
        material: 0,
        velocity: v,
        start: start as f64 * dt,
        stop: None,
        count: Some(total),
        interval: Some(every as f64 * dt),
        shape: None,
        orientation: Default::default(),
    }
}

/// A 2 × 2 cm box (floor and four sides) that batches of 30 spheres are
/// poured into every 40 steps at 2 m/s, from a layer 3 mm above the floor:
/// the layer is still partly occupied by the batch before when the next
/// comes, so batches fall short and later ones make up for it; they meet
/// the floor and each other after ~150 steps. `floor_speed`: the floor
/// moves up (a moving wall).
fn pour(floor_speed: f64, total: u64) -> Scene {
    let mut b = SceneBuilder::new("pour")
        .domain([0.0; 3], [0.02, 0.02, 0.03])
        .gravity([0.0, 0.0, -9.81])
        .dt(dt())
        .steps(1000)
        .material(glass())
        .wall([0.0; 3], [0.0, 0.0, 1.0], "glass");
    if floor_speed != 0.0 {
        b = b.wall_motion(WallMotion {
            velocity: [0.0, 0.0, floor_speed],
            ..Default::default()
        });
    }
    b = b
        .wall([0.0; 3], [1.0, 0.0, 0.0], "glass")
        .wall([0.02, 0.0, 0.0], [-1.0, 0.0, 0.0], "glass")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "glass")
        .wall([0.0, 0.02, 0.0], [0.0, -1.0, 0.0], "glass")
        .add_insert(insert(
            Region::Box {
                min: [0.001, 0.001, 0.003],
                max: [0.019, 0.019, 0.006],
            },
            [0.0, 0.0, -2.0],
            40,
            30,
            total,
            0,
        ));
    build(b)
}

/// Events in a canonical order (step, insertions first, id).
fn sorted(mut e: Vec<FlowEvent>) -> Vec<FlowEvent> {
    e.sort_by_key(|e| (e.step, matches!(e.kind, FlowKind::Removed(_)), e.id));
    e
}

/// The largest distance between the particles of `a` and `b` (same ids,
/// in id order).
fn worst_distance(a: &Particles<f64>, b: &Particles<f64>) -> f64 {
    assert_eq!(a.id, b.id, "different particles");
    a.pos_rad
        .iter()
        .zip(&b.pos_rad)
        .map(|(p, q)| {
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
}

/// Insertion events agree: the same particles (ids) at the same steps by
/// the same entries, with the same mass and energy (both from the plan's
/// f64 candidates).
fn assert_same_insertions(cpu: &[FlowEvent], gpu: &[FlowEvent]) {
    let ins = |e: &[FlowEvent]| -> Vec<FlowEvent> {
        e.iter()
            .filter(|e| matches!(e.kind, FlowKind::Inserted(_)))
            .copied()
            .collect()
    };
    assert_eq!(ins(cpu), ins(gpu), "insertions differ");
}

/// Pouring into a box with walls: the GPU inserts the same particles as
/// the CPU (ids, steps, masses and energies exactly; batches that fall
/// short included), and they move as the CPU's (within 1e-3 of the radius
/// after they have met the floor and each other).
#[test]
fn gpu_pours_like_cpu() {
    let scene = pour(0.0, 300);
    let Some(ctx) = test_context() else { return };
    let t = std::time::Instant::now();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let steps = 360;
    cpu.advance(steps).unwrap();
    // in uneven calls: a batch at the first step of a call, submissions
    // cut anywhere
    for k in [1, 39, 120, 200] {
        gpu.advance(k).unwrap();
    }
    let (ce, ge) = (sorted(cpu.flow_events()), sorted(gpu.flow_events()));
    assert_same_insertions(&ce, &ge);
    assert!(ge.iter().all(|e| matches!(e.kind, FlowKind::Inserted(0))));
    // batches fell short (the layer was still occupied) and were made up
    let mut per_step = std::collections::BTreeMap::new();
    for e in &ce {
        *per_step.entry(e.step).or_insert(0) += 1;
    }
    println!("inserted per batch step: {per_step:?}");
    assert!(per_step.values().any(|&k| k < 30), "no batch fell short");
    assert!(per_step.values().any(|&k| k > 30), "no batch made up");
    assert_eq!(cpu.particle_count(), gpu.particle_count());
    assert_eq!(cpu.particle_count(), ce.len() as u64);
    let (c, g) = (cpu.snapshot(), gpu.snapshot());
    let worst = worst_distance(&c, &g);
    println!(
        "{} particles; worst position difference {:e} of the radius; {} contacts; {:.1} s",
        c.len(),
        worst / R,
        cpu.list_stats().contacts,
        t.elapsed().as_secs_f64()
    );
    assert!(cpu.list_stats().contacts > 20, "the pour met nothing");
    assert!(worst < 1e-3 * R, "positions differ by {:e} R", worst / R);
    let (dc, dg) = (cpu.diagnostics(), gpu.diagnostics());
    assert!((dc.total() - dg.total()).abs() < 1e-4 * dc.total().abs());
}

/// An entry whose `stop` falls 5.5 steps after its third batch (batches of
/// 10 every 40 steps; `stop` at 85.5 steps) pours rate × (stop − start) =
/// 21.4 → 21 particles on both paths, the same ones: the third batch asks
/// only for the 6 steps it covers, 1 (it asked for a whole interval's 10
/// before, 30 in all).
#[test]
fn gpu_and_cpu_pour_what_the_rate_asks_by_stop() {
    let mut scene = pour(0.0, 1000);
    let dt = scene.dt();
    let ins = &mut scene.inserts[0];
    ins.rate = InsertRate::Count(10.0 / (40.0 * dt));
    ins.stop = Some(85.5 * dt);
    let Some(ctx) = test_context() else { return };
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    cpu.advance(150).unwrap();
    gpu.advance(150).unwrap();
    let (ce, ge) = (sorted(cpu.flow_events()), sorted(gpu.flow_events()));
    assert_same_insertions(&ce, &ge);
    let steps: std::collections::BTreeSet<u64> = ce.iter().map(|e| e.step).collect();
    assert_eq!(steps.len(), 3, "batch steps {steps:?}");
    assert_eq!((ce.len(), ge.len()), (21, 21), "inserted by stop");
}

/// A batch into a region partly occupied: spheres at rest (no gravity)
/// fill some of the lattice's cells; two entries pour into the same
/// region at the same step (after the first build: the GPU searches the
/// cells of that build, and the second entry's candidates meet the first
/// entry's new particles, which are in no cell yet). Both backends accept
/// exactly the same candidates.
#[test]
fn gpu_batch_into_occupied_region_accepts_like_cpu() {
    let region = Region::Box {
        min: [0.0, 0.0, 0.0],
        max: [0.02, 0.02, 0.006],
    };
    let mut rng = talus::rng::Rng::new(5);
    let mut b = SceneBuilder::new("occupied")
        .domain([0.0; 3], [0.02, 0.02, 0.006])
        .periodic([true, true, false])
        .gravity([0.0; 3])
        .dt(dt())
        .steps(100)
        .material(glass());
    let mut placed: Vec<[f64; 3]> = Vec::new();
    while placed.len() < 40 {
        let p = [
            rng.range(R, 0.02 - R),
            rng.range(R, 0.02 - R),
            rng.range(R, 0.006 - R),
        ];
        if placed
            .iter()
            .all(|q| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>() > 4.2 * R * R)
        {
            b = b.particle(p, [0.0; 3], R, "glass");
            placed.push(p);
        }
    }
    for _ in 0..2 {
        b = b.add_insert(insert(region, [0.0; 3], 1000, 150, 150, 3));
    }
    let scene = build(b);
    let Some(ctx) = test_context() else { return };
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    cpu.advance(6).unwrap();
    gpu.advance(6).unwrap();
    let (ce, ge) = (sorted(cpu.flow_events()), sorted(gpu.flow_events()));
    let by = |k: usize| {
        ce.iter()
            .filter(|e| e.kind == FlowKind::Inserted(k))
            .count()
    };
    println!("inserted by entry: {} and {}", by(0), by(1));
    assert!(by(0) > 10 && by(1) > 5, "too few accepted to tell");
    assert!(by(0) < 150 || by(1) < 150, "nothing was refused");
    assert_same_insertions(&ce, &ge);
    let (c, g) = (cpu.snapshot(), gpu.snapshot());
    let worst = worst_distance(&c, &g);
    assert!(worst < 1e-9, "positions differ by {worst:e}");
}

/// A column falling through an outlet and out of the open domain while
/// batches are poured in above: the same particles leave by the same
/// outlets at the same steps on both backends (mass and energy as the
/// diagnostics counted them), and initial + inserted = present + removed
/// exactly throughout; the GPU's diagnostics no longer count the
/// particles it has marked.
#[test]
fn gpu_outlets_remove_like_cpu() {
    let mut b = SceneBuilder::new("through")
        .domain([0.0; 3], [0.02, 0.02, 0.015])
        .gravity([0.0, 0.0, -9.81])
        .dt(dt())
        .steps(1000)
        .material(glass())
        .add_outlet(Outlet {
            name: Some("left".into()),
            region: Region::Box {
                min: [0.0, 0.0, 0.005],
                max: [0.01, 0.02, 0.006],
            },
        })
        .add_insert(insert(
            Region::Box {
                min: [0.001, 0.001, 0.010],
                max: [0.019, 0.019, 0.013],
            },
            [0.0, 0.0, -10.0],
            30,
            20,
            100,
            0,
        ));
    for k in 0..10 {
        let x = 0.002 + 0.0017 * k as f64;
        b = b.particle([x, 0.01, 0.008], [0.0, 0.0, -10.0], R, "glass");
    }
    let scene = build(b);
    let Some(ctx) = test_context() else { return };
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let n0 = scene.particles.len() as u64;
    let (mut ce, mut ge) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        cpu.advance(50).unwrap();
        gpu.advance(50).unwrap();
        ce.extend(cpu.flow_events());
        ge.extend(gpu.flow_events());
        for (name, b, e) in [
            ("cpu", &mut cpu as &mut dyn Backend, &ce),
            ("gpu", &mut gpu as &mut dyn Backend, &ge),
        ] {
            let ins = e
                .iter()
                .filter(|e| matches!(e.kind, FlowKind::Inserted(_)))
                .count();
            let out = e.len() - ins;
            assert_eq!(
                n0 + ins as u64,
                b.particle_count() + out as u64,
                "{name}: the count does not balance"
            );
            assert_eq!(b.snapshot().len() as u64, b.particle_count(), "{name}");
        }
        let (dc, dg) = (cpu.diagnostics(), gpu.diagnostics());
        assert!(
            (dc.kinetic_translational - dg.kinetic_translational).abs()
                <= 1e-4 * dc.kinetic_translational.abs() + 1e-12,
            "kinetic energy {} vs {}",
            dc.kinetic_translational,
            dg.kinetic_translational
        );
    }
    let (ce, ge) = (sorted(ce), sorted(ge));
    assert_same_insertions(&ce, &ge);
    let removed = |e: &[FlowEvent]| -> Vec<(u64, u32, FlowKind)> {
        e.iter()
            .filter(|e| matches!(e.kind, FlowKind::Removed(_)))
            .map(|e| (e.step, e.id, e.kind))
            .collect()
    };
    assert_eq!(removed(&ce), removed(&ge), "removals differ");
    let by = |k: usize| ce.iter().filter(|e| e.kind == FlowKind::Removed(k)).count();
    println!("removed by the outlet {}, by the domain {}", by(0), by(1));
    assert!(by(0) > 20 && by(1) > 20);
    assert_eq!(gpu.particle_count(), 0, "everything has left");
    for (c, g) in ce
        .iter()
        .zip(&ge)
        .filter(|(c, _)| matches!(c.kind, FlowKind::Removed(_)))
    {
        assert!((c.mass - g.mass).abs() < 1e-6 * c.mass);
        assert!(
            (c.energy - g.energy).abs() < 1e-4 * c.energy.abs(),
            "energy {} vs {}",
            c.energy,
            g.energy
        );
    }
}

/// The GPU state in full: set B as stored, the fixed-point positions, the
/// list and its history, the counters (less the list's capacity, a buffer
/// size, and the step the wall loads were last reduced at).
struct DeviceState {
    state: Particles<f32>,
    pos_fx: Vec<talus::gpu::data::FixedWords>,
    nbr_start: Vec<u32>,
    nbr: Vec<u32>,
    hist: Vec<[f32; 4]>,
    ctl: Vec<u32>,
}

fn device_state(g: &GpuBackend) -> DeviceState {
    use talus::gpu::data::*;
    let mut c = g.ctl().to_vec();
    c[CTL_LOADS_AT] = 0;
    c[CTL_LIST_CAP] = 0;
    c[CTL_KEPT_CAP] = 0;
    let n = c[CTL_COUNT] as u64;
    let len = c[CTL_LIST_LEN] as u64;
    DeviceState {
        state: g.state_f32(),
        pos_fx: g.read_vec(&g.data.b.pos_fx, n),
        nbr_start: g.read_vec(&g.data.nbr_start, n + 1),
        nbr: g.read_vec(&g.data.nbr, len),
        hist: g.read_vec(&g.data.nbr_hist, len),
        ctl: c,
    }
}

/// Every bit of two device states is the same (the first difference
/// named).
fn assert_same_bits(a: &DeviceState, b: &DeviceState) {
    assert_eq!(a.ctl, b.ctl, "control words");
    let (p, q) = (&a.state, &b.state);
    assert_eq!(p.id, q.id, "ids (set B's order)");
    let bits =
        |v: &[[f32; 4]]| -> Vec<[u32; 4]> { v.iter().map(|x| x.map(f32::to_bits)).collect() };
    for (name, x, y) in [
        ("pos_rad", &p.pos_rad, &q.pos_rad),
        ("vel_invm", &p.vel_invm, &q.vel_invm),
        ("omega_invi", &p.omega_invi, &q.omega_invi),
        ("nbr_hist", &a.hist, &b.hist),
    ] {
        let (x, y) = (bits(x), bits(y));
        if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
            panic!("{name}[{i}]: {:?} vs {:?}", x[i], y[i]);
        }
    }
    assert_eq!(p.material, q.material);
    assert!(p
        .dissipated
        .iter()
        .map(|x| x.to_bits())
        .eq(q.dissipated.iter().map(|x| x.to_bits())));
    assert!(a.pos_fx == b.pos_fx, "fixed-point positions");
    assert!(a.nbr_start == b.nbr_start, "list starts");
    assert!(a.nbr == b.nbr, "list entries");
}

/// Saved at step k and restored into a fresh backend, a GPU run with
/// insertion and a moving floor continues bit for bit: the straight run's
/// state (set B, fixed point, list, history, counters) and its flow events
/// after step k. A batch falls at the first step after the restore.
#[test]
fn gpu_restart_is_exact_with_insertion_and_a_moving_wall() {
    let scene = pour(0.2, 300);
    let Some(ctx) = test_context() else { return };
    let k = 200;
    let mut straight = GpuBackend::new(&scene, ctx).unwrap();
    straight.advance(k).unwrap();
    let before = straight.flow_events();
    straight.advance(k).unwrap();
    let after = sorted(straight.flow_events());
    let Some(ctx) = test_context() else { return };
    let mut first = GpuBackend::new(&scene, ctx).unwrap();
    first.advance(k).unwrap();
    assert_eq!(sorted(first.flow_events()), sorted(before));
    let saved = first.save();
    drop(first);
    let Some(ctx) = test_context() else { return };
    let mut resumed = GpuBackend::restore(&scene, ctx, &saved).unwrap();
    assert_eq!(resumed.steps_done(), k);
    resumed.advance(k).unwrap();
    assert_eq!(
        sorted(resumed.flow_events()),
        after,
        "flow after the restart"
    );
    assert!(after.iter().any(|e| e.step == k), "no batch at the restart");
    assert_same_bits(&device_state(&straight), &device_state(&resumed));
    assert_eq!(straight.snapshot(), resumed.snapshot());
    assert_eq!(straight.walls(), resumed.walls());
    // the checkpoints agree but for the list's and the kept table's
    // capacities (buffer sizes)
    let (a, b) = (straight.save(), resumed.save());
    assert_eq!(a.scalars, b.scalars);
    for ((name, x), (_, y)) in a.sections.iter().zip(&b.sections) {
        if name == "ctl" {
            let (mut x, mut y): (Vec<u32>, Vec<u32>) = (
                bytemuck::pod_collect_to_vec(x),
                bytemuck::pod_collect_to_vec(y),
            );
            for k in [
                talus::gpu::data::CTL_LIST_CAP,
                talus::gpu::data::CTL_KEPT_CAP,
            ] {
                x[k] = 0;
                y[k] = 0;
            }
            assert_eq!(x, y, "section ctl");
        } else {
            assert!(x == y, "section {name}");
        }
    }
}

/// A run whose buffers start with room for two particles grows them as
/// its batches need (save, larger buffers, restore) and keeps every bit
/// of a run that had room from the start.
#[test]
fn gpu_capacity_growth_keeps_bits() {
    let scene = pour(0.0, 300);
    let Some(ctx) = test_context() else { return };
    let mut roomy = GpuBackend::new(&scene, ctx).unwrap();
    let Some(ctx) = test_context() else { return };
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let mut tight = GpuBackend::with_capacity(&setup, ctx, Some(2)).unwrap();
    assert_eq!(tight.data.cap, 2);
    let mut caps = Vec::new();
    for _ in 0..6 {
        roomy.advance(60).unwrap();
        tight.advance(60).unwrap();
        caps.push(tight.data.cap);
    }
    println!(
        "capacity after each call: {caps:?} (roomy: {})",
        roomy.data.cap
    );
    assert!(caps.windows(2).any(|w| w[1] > w[0]), "grew only once");
    assert_same_bits(&device_state(&roomy), &device_state(&tight));
    assert_eq!(sorted(roomy.flow_events()), sorted(tight.flow_events()));
}

/// Across backends: a CPU checkpoint continues on the GPU, and a GPU one
/// on the CPU, within f32 of the straight run (positions within 1e-3 of
/// the radius, the same particles inserted after the switch).
#[test]
fn gpu_and_cpu_checkpoints_cross_over() {
    let scene = pour(0.0, 300);
    let Some(ctx) = test_context() else { return };
    let k = 180;
    // CPU → GPU
    let mut cpu = CpuBackend::new(&scene).unwrap();
    cpu.advance(k).unwrap();
    let saved = cpu.save();
    cpu.advance(k).unwrap();
    let mut gpu = GpuBackend::restore(&scene, ctx, &saved).unwrap();
    gpu.advance(k).unwrap();
    let (c, g) = (cpu.snapshot(), gpu.snapshot());
    let worst = worst_distance(&c, &g);
    println!(
        "CPU → GPU: worst {:e} R over {} particles",
        worst / R,
        c.len()
    );
    assert!(worst < 1e-3 * R);
    // GPU → CPU
    let Some(ctx) = test_context() else { return };
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    gpu.advance(k).unwrap();
    let saved = gpu.save();
    gpu.advance(k).unwrap();
    let mut cpu = CpuBackend::restore(&scene, &saved).unwrap();
    cpu.advance(k).unwrap();
    let (c, g) = (cpu.snapshot(), gpu.snapshot());
    let worst = worst_distance(&c, &g);
    println!(
        "GPU → CPU: worst {:e} R over {} particles",
        worst / R,
        c.len()
    );
    assert!(worst < 1e-3 * R);
    assert_same_insertions(
        &sorted(cpu.flow_events()),
        &sorted(
            gpu.flow_events()
                .into_iter()
                .filter(|e| e.step >= k)
                .collect(),
        ),
    );
}

/// The particles' and the list's arrays split into pages of one lowered
/// binding each (60 KiB: 960 particles, 3 840 list entries a page; 40 KiB,
/// 640 and 2 560, for a list of each pair once): a bed of 1 000 particles
/// in two pages, a pour adding 100 more into the second (the capacity,
/// 1 100, is what lavapipe's 32 storage bindings a stage allow beside the
/// pages of the list's first size; a skin of 0.25 d lists ~6 a particle
/// from both sides, ~3 once, in two pages). Each pair once and from both
/// sides. The run
/// keeps every bit of an unpaged one; saved (read back a page at a time)
/// and restored into paged buffers, it continues on the same bits.
#[test]
fn gpu_pages_keep_bits_through_insertion_and_restart() {
    let b = SceneBuilder::new("bed and pour")
        .domain([0.0; 3], [0.02, 0.02, 0.03])
        .gravity([0.0, 0.0, -9.81])
        .dt(dt())
        .steps(1000)
        .material(glass())
        .wall([0.0; 3], [0.0, 0.0, 1.0], "glass")
        .wall([0.0; 3], [1.0, 0.0, 0.0], "glass")
        .wall([0.02, 0.0, 0.0], [-1.0, 0.0, 0.0], "glass")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "glass")
        .wall([0.0, 0.02, 0.0], [0.0, -1.0, 0.0], "glass")
        .generate(
            "lattice",
            ([0.0; 3], [0.02, 0.02, 0.018]),
            RadiusDist::Constant(R),
            "glass",
            Some(1000),
            [0.0; 3],
        )
        .add_insert(insert(
            Region::Box {
                min: [0.001, 0.001, 0.022],
                max: [0.019, 0.019, 0.026],
            },
            [0.0, 0.0, -2.0],
            40,
            30,
            100,
            0,
        ));
    let mut scene = build(b);
    // a skin of 0.25 d: ~6 entries a particle, the list over two pages
    scene.simulation.neighbour_skin = Some(0.5 * R);
    for pairs in [Pairs::Once, Pairs::Both] {
        paged_run(&scene, pairs);
    }
}

fn paged_run(scene: &talus::scene::Scene, pairs: Pairs) {
    let scene = scene.clone();
    let Some(mut ctx) = test_context() else {
        return;
    };
    ctx.pairs = pairs;
    let mut plain = GpuBackend::new(&scene, ctx).unwrap();
    let paged_ctx = || {
        let mut ctx = test_context()?;
        // each pair once: half the list, so smaller pages split it
        ctx.limits.max_storage_buffer_binding_size = match pairs {
            Pairs::Once => 40 << 10,
            Pairs::Both => 60 << 10,
        };
        ctx.pairs = pairs;
        Some(ctx)
    };
    let Some(ctx) = paged_ctx() else { return };
    let mut paged = GpuBackend::new(&scene, ctx).unwrap();
    assert_eq!(plain.data.b.pos.pages.len(), 1);
    assert_eq!(paged.data.b.pos.pages.len(), 2);
    for _ in 0..3 {
        plain.advance(100).unwrap();
        paged.advance(100).unwrap();
    }
    let len = paged.ctl()[talus::gpu::data::CTL_LIST_LEN];
    println!(
        "{pairs:?}: {} particles in {} pages of {}, a list of {len} in {} pages of {}",
        paged.data.n,
        paged.data.b.pos.pages.len(),
        paged.data.paging.particle_page,
        paged.data.nbr.pages.len(),
        paged.data.paging.entry_page
    );
    assert!(paged.data.n > 1000, "nothing inserted");
    assert!(
        len as u64 > paged.data.paging.entry_page,
        "one page holds the list"
    );
    assert_same_bits(&device_state(&plain), &device_state(&paged));
    assert_eq!(sorted(plain.flow_events()), sorted(paged.flow_events()));
    let saved = paged.save();
    let Some(ctx) = paged_ctx() else { return };
    let mut resumed = GpuBackend::restore(&scene, ctx, &saved).unwrap();
    plain.advance(100).unwrap();
    resumed.advance(100).unwrap();
    assert_same_bits(&device_state(&plain), &device_state(&resumed));
}

/// A pour whose step may offer more candidates than llvmpipe runs loop
/// iterations (`gpu::SOFTWARE_LOOP_MAX`): refused in one line on a
/// software adapter (CI's lavapipe), which would drop candidates past it
/// without a word; built on a hardware one.
#[test]
fn gpu_software_adapter_refuses_batches_past_its_loop_limit() {
    let Some(ctx) = test_context() else { return };
    let scene = build(
        SceneBuilder::new("flood")
            .domain([0.0; 3], [0.2, 0.2, 0.1])
            .gravity([0.0, 0.0, -9.81])
            .dt(dt())
            .steps(100)
            .material(glass())
            .add_insert(insert(
                Region::Box {
                    min: [0.0; 3],
                    max: [0.2, 0.2, 0.05],
                },
                [0.0; 3],
                50,
                40_000,
                40_000,
                0,
            )),
    );
    let setup = talus::Setup::new(scene).unwrap();
    let most = setup.inserts.most_candidates_per_step();
    assert!(most > talus::gpu::SOFTWARE_LOOP_MAX, "{most} candidates");
    let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
    match GpuBackend::from_setup(&setup, ctx) {
        Err(e) => {
            assert!(software, "a hardware adapter refused it: {e}");
            let e = e.to_string();
            assert!(
                e.contains("ends a shader loop after 65535 iterations")
                    && e.contains("--backend cpu"),
                "{e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        Ok(_) => assert!(
            !software,
            "a software adapter took {most} candidates a step"
        ),
    }
}
