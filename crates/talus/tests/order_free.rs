//! A particle's sums do not depend on where its partners sit in memory:
//! the same spheres run with different neighbour skins (so different grid
//! cells, rebuild steps, candidate rows and memory orders) end with the
//! same bits, on each path (on the CPU the contacts summed in the
//! partners' id order, on the GPU the fixed-point `Sums` of
//! `shaders/contacts.wgsl`: `talus::sums`), and the same energy totals and
//! wall loads (exact sums over the particles). With a servo floor the
//! loads feed back into the motion.

use talus::backend::{Backend, Diagnostics, ListStats};
use talus::cpu::CpuBackend;
use talus::gpu::{context::test_context, GpuBackend, Pairs};
use talus::scene::{Scene, Servo};
use talus::state::Particles;

/// The README's scene: 4000 beads falling onto the floor of a walled box
/// (pairs, walls, a rebuild every few steps).
fn settle() -> Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/settle.toml");
    Scene::load(&path).unwrap()
}

/// The settle scene with its floor on a servo: pushed up with a third of
/// the bed's weight, it sinks as the bed lands on it (every step's load
/// moves it, so a load summed in memory order would change the bits).
fn servo_floor() -> Scene {
    let mut s = settle();
    s.walls[0].servo = Some(Servo {
        force: 0.14,
        max_speed: 0.05,
        direction: [0.0, 0.0, 1.0],
    });
    s
}

type Run = (f64, ListStats, Particles<f64>, Diagnostics, Vec<[u64; 6]>);

/// Runs `steps` of `scene()` with each skin (fractions of the 2 mm mean
/// diameter) on the backend `open` makes, and checks that the lists differ
/// and the states, energies and wall loads do not.
fn same_bits_whatever_the_skin(
    scene: fn() -> Scene,
    skins: &[f64],
    steps: u64,
    mut open: impl FnMut(&Scene) -> Option<Box<dyn Backend>>,
) {
    let mut runs: Vec<Run> = Vec::new();
    for &skin in skins {
        let mut scene = scene();
        scene.simulation.neighbour_skin = Some(skin * 0.002);
        let Some(mut b) = open(&scene) else { return };
        b.advance(steps).unwrap();
        let loads = b
            .walls()
            .iter()
            .map(|(_, l)| {
                let v = [l.force, l.torque].concat();
                std::array::from_fn(|k| v[k].to_bits())
            })
            .collect();
        runs.push((skin, b.list_stats(), b.snapshot(), b.diagnostics(), loads));
    }
    let (_, s0, p0, d0, l0) = &runs[0];
    println!("{} particles, {s0:?}, {d0:?}", p0.len());
    assert!(s0.contacts > 500, "a bed in contact: {s0:?}");
    assert!(l0[0] != [0; 6], "the floor carries the bed");
    for (skin, stats, p, d, l) in &runs[1..] {
        assert!(
            stats.builds != s0.builds && stats.entries != s0.entries,
            "skin {skin} d: other lists ({stats:?} against {s0:?})"
        );
        assert_eq!(
            stats.contacts, s0.contacts,
            "skin {skin} d: the same contacts"
        );
        let first = (0..p0.len()).find(|&k| {
            p.pos_rad[k] != p0.pos_rad[k]
                || p.vel_invm[k] != p0.vel_invm[k]
                || p.omega_invi[k] != p0.omega_invi[k]
        });
        assert_eq!(
            first, None,
            "skin {skin} d: the first particle whose bits differ"
        );
        let bits = |d: &Diagnostics| {
            [
                d.kinetic_translational,
                d.kinetic_rotational,
                d.potential,
                d.elastic,
                d.dissipated,
                d.max_speed,
            ]
            .map(f64::to_bits)
        };
        assert_eq!(
            bits(d),
            bits(d0),
            "skin {skin} d: energies {d:?} against {d0:?}"
        );
        assert_eq!(l, l0, "skin {skin} d: the wall loads' bits");
    }
}

/// Skins of 0.02, 0.1 and 0.5 diameters, 2500 steps (the sums in row order
/// fail this).
#[test]
fn the_skin_changes_the_lists_not_the_bits_cpu() {
    same_bits_whatever_the_skin(settle, &[0.02, 0.1, 0.5], 2500, |s| {
        Some(Box::new(CpuBackend::new(s).unwrap()))
    });
}

/// A servo floor: its loads are exact sums, so it moves the same whatever
/// the skin (summed in memory order, the loads fail this).
#[test]
fn the_skin_changes_the_lists_not_a_servo_wall_cpu() {
    same_bits_whatever_the_skin(servo_floor, &[0.05, 0.4], 2500, |s| {
        Some(Box::new(CpuBackend::new(s).unwrap()))
    });
}

/// The same on the GPU at hand, each pair once (a GPU's default; from
/// both sides it gives these bits too:
/// `gpu.rs::gpu_each_pair_once_gives_the_bits_of_both_sides`), with the
/// servo floor: it fails with the loads summed in memory order, and with
/// each particle's pair sums in row order (checked 2026-11-29 by turning
/// `sums_add` of `shaders/contacts.wgsl` into an f32 running sum: at skin
/// 0.4 d the first particle's bits differ), so the settle scene without
/// the servo, which took 3 more runs on lavapipe, is left to the CPU.
#[test]
fn the_skin_changes_the_lists_not_a_servo_wall_gpu() {
    same_bits_whatever_the_skin(servo_floor, &[0.05, 0.4], 2500, |s| {
        let mut ctx = test_context()?;
        ctx.pairs = Pairs::Once;
        Some(Box::new(GpuBackend::new(s, ctx).unwrap()))
    });
}

/// A bed of dumbbells, tetrahedra and spheres on the CPU: a member's
/// contacts with another clump's members meet one id, so its sum runs in
/// (id, member) order (by id alone the ties fall to the row's order, and
/// another skin changes the bits: the clumps' bodies differed at skin
/// 0.1 d, checked 2026-11-29 with the member left out of the key). The clumps' bodies, every row, the energies and the
/// floor's load end with the same bits whatever the skin.
#[test]
fn the_skin_changes_the_lists_not_the_bits_of_clumps_cpu() {
    const STEPS: u64 = 6000;
    let mut runs = Vec::new();
    for skin in [0.02, 0.1, 0.5] {
        let mut scene = crate::gpu_clumps::clump_bed(54, 11);
        scene.simulation.neighbour_skin = Some(skin * 0.002);
        // softer, and a strong pull: the bed packs on the floor within
        // the run (dt 0.05 of the contact time: 4.8 µs)
        scene.materials[0].youngs_modulus = 5e5;
        scene.simulation.gravity = [0.0, 0.0, -100.0];
        let mut b = CpuBackend::new(&scene).unwrap();
        b.advance(STEPS).unwrap();
        let d = b.diagnostics();
        let energies =
            [d.kinetic_translational, d.kinetic_rotational, d.potential].map(f64::to_bits);
        let load = b.walls()[0].1.force.map(f64::to_bits);
        runs.push((
            skin,
            b.list_stats(),
            b.clumps(),
            b.snapshot(),
            energies,
            load,
        ));
    }
    let (_, s0, c0, p0, e0, l0) = &runs[0];
    println!("{} rows, {} clumps, {s0:?}", p0.len(), c0.len());
    assert!(s0.contacts > 100, "a bed in contact: {s0:?}");
    assert!(l0.iter().any(|&x| x != 0), "the floor carries the bed");
    for (skin, s, c, p, e, l) in &runs[1..] {
        assert!(s.entries != s0.entries, "skin {skin} d: other lists");
        assert_eq!(s.contacts, s0.contacts, "skin {skin} d: the same contacts");
        assert_eq!(c, c0, "skin {skin} d: the clumps' bodies");
        assert_eq!(p, p0, "skin {skin} d: the rows");
        assert_eq!(e, e0, "skin {skin} d: the energies' bits");
        assert_eq!(l, l0, "skin {skin} d: the floor's load");
    }
}
