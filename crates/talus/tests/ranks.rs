//! Runs on several ranks (`talus::dist`) give the serial run's bits. The
//! ranks here are threads of the test ([`talus::dist::on_threads`]): the
//! same code as under `mpirun` but the transport (the MPI runs are in
//! `crates/talus-cli/tests/mpi.rs`, feature `mpi`).

use talus::backend::{Backend, Diagnostics};
use talus::checkpoint::Saved;
use talus::cpu::CpuBackend;
use talus::dist::{on_threads, serve, Comm, Dist, DistCpu, GpuRank, Rank, RanksInfo, Threads};
use talus::scene::{Scene, Servo};
use talus::setup::Setup;
use talus::state::Particles;

fn scene(name: &str) -> Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(name);
    Scene::load(&path).unwrap()
}

/// The settle scene (4000 beads falling onto the floor of a box, cut
/// along z) with its floor on a servo: every step's load, summed over the
/// ranks, moves it.
fn servo_settle() -> Scene {
    let mut s = scene("settle.toml");
    s.walls[0].servo = Some(Servo {
        force: 0.14,
        max_speed: 0.05,
        direction: [0.0, 0.0, 1.0],
    });
    s
}

/// What a run ends with, as bits: particles, energies, wall poses and loads.
#[derive(Debug, PartialEq)]
struct End {
    particles: Particles<f64>,
    energies: [u64; 6],
    walls: Vec<[u64; 9]>,
    count: u64,
}

fn end(b: &mut dyn Backend) -> End {
    let d: Diagnostics = b.diagnostics();
    End {
        particles: b.snapshot(),
        energies: [
            d.kinetic_translational,
            d.kinetic_rotational,
            d.potential,
            d.elastic,
            d.dissipated,
            d.max_speed,
        ]
        .map(f64::to_bits),
        walls: b
            .walls()
            .iter()
            .map(|(p, l)| {
                let v = [p.origin.to_array(), l.force, l.torque].concat();
                std::array::from_fn(|k| v[k].to_bits())
            })
            .collect(),
        count: b.particle_count(),
    }
}

/// `f` on rank 0's backend over `ranks` thread ranks (from `saved` when
/// given); the others serve.
fn on_ranks<R: Send>(
    setup: &Setup,
    ranks: usize,
    saved: Option<&Saved>,
    f: impl Fn(&mut DistCpu<Threads>) -> R + Sync,
) -> R {
    let mut out = on_threads(ranks, |comm| {
        let rank = Rank::new(comm, setup, saved).unwrap();
        if rank.comm.rank() == 0 {
            let mut b = DistCpu::new(rank);
            Some(f(&mut b))
        } else {
            serve(rank);
            None
        }
    });
    out.swap_remove(0).expect("rank 0's result")
}

fn first_difference(a: &Particles<f64>, b: &Particles<f64>) -> Option<usize> {
    (0..a.len().min(b.len())).find(|&k| {
        a.id[k] != b.id[k]
            || a.pos_rad[k] != b.pos_rad[k]
            || a.vel_invm[k] != b.vel_invm[k]
            || a.omega_invi[k] != b.omega_invi[k]
    })
}

fn assert_same(serial: &End, other: &End, what: &str) {
    assert_eq!(other.count, serial.count, "{what}: particle count");
    assert_eq!(
        first_difference(&serial.particles, &other.particles),
        None,
        "{what}: the first particle whose bits differ"
    );
    assert_eq!(other.particles, serial.particles, "{what}: particles");
    assert_eq!(other.energies, serial.energies, "{what}: energies' bits");
    assert_eq!(other.walls, serial.walls, "{what}: wall poses and loads");
}

/// 1, 2 and 3 ranks: the serial run's bits after 2500 steps of the
/// settling bed on a servo floor (particles crossing the cuts as they
/// fall, the cuts moving with them, contacts across every cut).
#[test]
fn ranks_give_the_serial_bits_settle() {
    let setup = Setup::new(servo_settle()).unwrap();
    let steps = 2500;
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let contacts = serial.list_stats().contacts;
    assert!(contacts > 500, "a bed in contact");
    for ranks in [1, 2, 3] {
        let (got, info, stats) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), b.ranks().unwrap(), b.list_stats())
        });
        let info: RanksInfo = info;
        // the owned particles' rows hold every contact (pairs and walls)
        // the serial list holds: none across a cut is missed
        assert_eq!(stats.contacts, contacts, "{ranks} ranks: the contacts");
        println!("{ranks} ranks: {info:?}");
        assert_eq!(info.ranks, ranks);
        assert_eq!(info.owned.iter().sum::<u64>(), want.count);
        if ranks > 1 {
            assert!(info.ghosts.iter().all(|&g| g > 0), "ghosts on every rank");
            // (the cost imbalance is measured time: not asserted here)
            assert!(info.rebalances > 0, "the cuts follow the falling bed");
        }
        assert_same(&want, &got, &format!("{ranks} ranks"));
    }
}

/// A checkpoint written on 2 ranks at half the steps continues on 3 ranks
/// and serially to the serial run's bits.
#[test]
fn a_checkpoint_of_two_ranks_resumes_on_three_and_serially() {
    let setup = Setup::new(servo_settle()).unwrap();
    let (half, steps) = (700, 1400);
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let saved = on_ranks(&setup, 2, None, |b| {
        b.advance(half).unwrap();
        b.save()
    });
    let on_three = on_ranks(&setup, 3, Some(&saved), |b| {
        assert_eq!(b.steps_done(), half);
        b.advance(steps - half).unwrap();
        end(b)
    });
    assert_same(&want, &on_three, "2 ranks, then 3");
    let mut alone = CpuBackend::restore_setup(&setup, &saved).unwrap();
    alone.advance(steps - half).unwrap();
    assert_same(&want, &end(&mut alone), "2 ranks, then serially");
}

/// Particles leaving the open domain (the settle box without its floor)
/// and an outlet's region: taken out by their owners, the copies on the
/// other ranks going with them; the same events (step, id, mass, energy)
/// and the serial run's bits on 2 and 3 ranks. Twice: with the scene's
/// skin (the falling beads rebuild the list nearly every step, and a
/// migration renews every ghost), and with a skin of two diameters and a
/// band across the box taking the beads that sink into it (few rebuilds:
/// the copies of the beads taken between them go by their owners' word, a
/// step before their refresh would show them inside).
#[test]
fn outlets_and_the_open_domain_take_the_same_particles() {
    outlets_take_the_same_particles(None, 2500, &[2, 3]);
    outlets_take_the_same_particles(Some(0.004), 1500, &[2]);
}

fn outlets_take_the_same_particles(skin: Option<f64>, steps: u64, ranks: &[usize]) {
    let mut s = scene("settle.toml");
    s.walls.remove(0);
    s.outlets.push(talus::scene::Outlet {
        name: Some("corner".into()),
        region: talus::scene::Region::Box {
            min: [0.0, 0.0, 0.0],
            max: [0.02, 0.02, 0.004],
        },
    });
    if skin.is_some() {
        s.simulation.neighbour_skin = skin;
        s.outlets.push(talus::scene::Outlet {
            name: Some("band".into()),
            region: talus::scene::Region::Box {
                min: [0.0, 0.0, 0.010],
                max: [0.04, 0.04, 0.014],
            },
        });
    }
    let setup = Setup::new(s).unwrap();
    type Ev = Vec<(u64, u32, String, u64, u64)>;
    let events = |mut e: Vec<talus::flow::FlowEvent>| -> Ev {
        e.sort_by_key(|e| (e.step, e.id));
        e.iter()
            .map(|e| {
                (
                    e.step,
                    e.id,
                    format!("{:?}", e.kind),
                    e.mass.to_bits(),
                    e.energy.to_bits(),
                )
            })
            .collect()
    };
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let want_events = events(serial.flow_events());
    let removed_by = |k: &str| want_events.iter().filter(|e| e.2.contains(k)).count();
    assert!(
        removed_by("Removed(0)") > 20,
        "the outlet takes beads: {}",
        want_events.len()
    );
    assert!(
        removed_by("Removed(1)") > 20,
        "the open floor lets beads out: {}",
        want_events.len()
    );
    let builds = serial.list_stats().builds;
    if skin.is_some() {
        assert!(
            builds * 4 < want_events.len() as u64,
            "few rebuilds ({builds}) for {} beads out",
            want_events.len()
        );
    }
    for &ranks in ranks {
        let (got, ev) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), events(b.flow_events()))
        });
        assert_eq!(
            ev, want_events,
            "{ranks} ranks, skin {skin:?}: the flow events"
        );
        assert_same(&want, &got, &format!("{ranks} ranks, skin {skin:?}"));
    }
}

/// Flow events in the order of (step, id).
fn in_order(mut e: Vec<talus::flow::FlowEvent>) -> Vec<talus::flow::FlowEvent> {
    e.sort_by_key(|e| (e.step, e.id));
    e
}

/// How many of `events` are insertions (by `entry`, or by any).
fn poured(events: &[talus::flow::FlowEvent], entry: Option<usize>) -> usize {
    let by = |e: &talus::flow::FlowEvent| match e.kind {
        talus::flow::FlowKind::Inserted(k) => entry.is_none_or(|n| n == k),
        _ => false,
    };
    events.iter().filter(|e| by(e)).count()
}

/// Pouring (`[[insert]]`) on 2 and 3 ranks: a box 2 × 2 × 4 cm filled
/// by batches every 200 steps from a region the cuts cross, each batch
/// finding the last one's beads still in the way (the rate asks for more
/// than fits), an outlet in a corner of the floor and a shaking wall:
/// each rank accepts the candidates in its slab as a serial run would
/// (what is in reach of them is on the rank), with the serial ids; the
/// same events and bits.
#[test]
fn pouring_accepts_the_serial_candidates() {
    let path =
        std::env::temp_dir().join(format!("talus_ranks_pouring_{}.toml", std::process::id()));
    std::fs::write(&path, POURING).unwrap();
    let setup = Setup::new(Scene::load(&path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    let steps = 2400;
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let want_events = in_order(serial.flow_events());
    let inserted = poured(&want_events, None);
    assert!(inserted > 150, "{inserted} poured in");
    assert!(
        inserted < 12 * 160,
        "the region was full at times: {inserted} of 12 batches"
    );
    for ranks in [2, 3] {
        let (got, ev) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), in_order(b.flow_events()))
        });
        assert_eq!(ev, want_events, "{ranks} ranks: the insertion events");
        assert_same(&want, &got, &format!("{ranks} ranks"));
    }
}

const POURING: &str = r#"
[simulation]
duration = 0.2
dt = 2e-5
gravity = [0.0, 0.0, -9.81]
output_interval = 0.002

[domain]
min = [0.0, 0.0, 0.0]
max = [0.02, 0.02, 0.04]

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.3

[[insert]]
region = { min = [0.002, 0.002, 0.012], max = [0.018, 0.018, 0.035] }
rate = 60000.0
count = 2000
radius = { min = 0.0008, max = 0.001 }
material = "glass"
velocity = [0.0, 0.0, -0.1]
interval = 0.004

[[outlets]]
name = "corner"
region = { min = [0.0, 0.0, 0.0], max = [0.006, 0.006, 0.002] }

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"

[[walls]]
name = "shaker"
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
material = "glass"
motion = { oscillation = { amplitude = 0.001, frequency = 20.0, direction = [1.0, 0.0, 0.0] } }

[[walls]]
type = "plane"
point = [0.02, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.02, 0.0]
normal = [0.0, -1.0, 0.0]
material = "glass"
"#;

/// A FEM body (the rubber sheet of `scenes/membrane.toml`, beads poured
/// just above it, so that they land within the test): every rank advances
/// its copy under the grains' forces of all ranks (exact sums per node),
/// so the sheet and the beads are the serial run's, bit for bit, on 2 and
/// 3 ranks, and after a checkpoint of 2 ranks resumed on 3.
#[test]
fn a_fem_body_under_grains_of_every_rank() {
    let mut s = scene("membrane.toml");
    s.inserts[0].region = talus::scene::Region::Box {
        min: [-0.02, -0.02, 0.003],
        max: [0.02, 0.02, 0.015],
    };
    s.inserts[0].velocity = [0.0, 0.0, -1.0];
    let setup = Setup::new(s).unwrap();
    let steps = 1000;
    let bodies = |b: &dyn Backend| -> (Vec<u64>, f64) {
        let set = b.bodies().expect("a body");
        let force = set.now()[0].force.length();
        (set.save().iter().map(|x| x.to_bits()).collect(), force)
    };
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let (want_body, force) = bodies(&serial);
    let weight: f64 = want.particles.vel_invm.iter().map(|v| 9.81 / v[3]).sum();
    println!(
        "{} beads ({weight:.3e} N), grains and walls on the sheet: {force:.3e} N",
        want.count
    );
    assert!(want.count > 40, "beads poured");
    assert!(force > 0.2 * weight, "the beads lie on the sheet");
    for ranks in [2, 3] {
        let (got, body) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), bodies(b).0)
        });
        assert_same(&want, &got, &format!("{ranks} ranks"));
        assert!(body == want_body, "{ranks} ranks: the body's state differs");
    }
    // cut on 2 ranks at half, resumed on 3: the body handed on too
    let saved = on_ranks(&setup, 2, None, |b| {
        b.advance(steps / 2).unwrap();
        b.save()
    });
    let (got, body) = on_ranks(&setup, 3, Some(&saved), |b| {
        b.advance(steps - steps / 2).unwrap();
        (end(b), bodies(b).0)
    });
    assert_same(&want, &got, "2 ranks, then 3");
    assert!(
        body == want_body,
        "2 ranks, then 3: the body's state differs"
    );
}

/// A box periodic on every axis (no walls, no gravity), its beads given
/// random velocities: the slabs cut the periodic z axis, so the first and
/// last ranks hold each other's particles as ghosts through the boundary
/// (with 2 ranks each is the other's neighbour on both sides), and pairs
/// meet across it; the serial bits on 2 and 3 ranks.
#[test]
fn ranks_across_a_periodic_boundary() {
    let mut s = scene("settle.toml");
    s.walls.clear();
    s.simulation.gravity = [0.0, 0.0, 0.0];
    s.domain.periodic = [true; 3];
    let mut r = talus::rng::Rng::new(11);
    for p in &mut s.particles {
        p.velocity = [r.f64() - 0.5, r.f64() - 0.5, r.f64() - 0.5];
    }
    let setup = Setup::new(s).unwrap();
    let steps = 1500;
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    assert!(serial.list_stats().contacts > 50, "collisions");
    for ranks in [2, 3] {
        let (got, info) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), b.ranks().unwrap())
        });
        assert_eq!(info.axis, "z");
        assert_same(&want, &got, &format!("{ranks} ranks, periodic"));
    }
}

/// A GPU context (lavapipe in CI: a missing adapter fails) from the test
/// binary's pool: a device an earlier test or run of ranks opened is lent
/// again, with its kernels already built (on lavapipe a fresh device
/// costs seconds).
fn gpu_ctx() -> talus::gpu::GpuContext {
    talus::gpu::context::test_context().expect("a GPU adapter (lavapipe in CI)")
}

/// [`on_ranks`] on the GPU path: each thread rank on a device of its own
/// (from the pool: [`gpu_ctx`]).
fn on_gpu_ranks<R: Send>(
    setup: &Setup,
    ranks: usize,
    saved: Option<&Saved>,
    f: impl Fn(&mut Dist<GpuRank<Threads>>) -> R + Sync,
) -> R {
    let mut out = on_threads(ranks, |comm| {
        let ctx = Ok(gpu_ctx());
        let rank = GpuRank::new(comm, setup, saved, ctx).unwrap();
        if rank.comm.rank() == 0 {
            let mut b = Dist::new(rank);
            Some(f(&mut b))
        } else {
            serve(rank);
            None
        }
    });
    out.swap_remove(0).expect("rank 0's result")
}

/// A crystal of 2000 beads in a tall box (cut along z), in contact from
/// the first step, squeezed by servos on its x1 and y1 walls: every rank's
/// particles press on the side walls, so each wall's load and the servo's
/// motion come from every rank's sums.
fn squeezed_column() -> Scene {
    let text = r#"
[simulation]
steps = 400
dt = "auto"
gravity = [0.0, 0.0, -9.81]
[domain]
min = [0.0, 0.0, 0.0]
max = [0.02, 0.02, 0.04]
[contact]
model = "hertz_mindlin"
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.5
rolling_friction = 0.01
[[particles]]
generator = "lattice"
region = { min = [0.0, 0.0, 0.0], max = [0.02, 0.02, 0.04] }
spacing = 0.002
radius = { min = 0.00094, max = 0.001 }
material = "glass"
[[walls]]
name = "floor"
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"
[[walls]]
name = "x0"
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
material = "glass"
[[walls]]
name = "x1"
type = "plane"
point = [0.02, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
material = "glass"
[walls.servo]
force = 0.5
max_speed = 0.5
[[walls]]
name = "y0"
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
material = "glass"
[[walls]]
name = "y1"
type = "plane"
point = [0.0, 0.02, 0.0]
normal = [0.0, -1.0, 0.0]
material = "glass"
[walls.servo]
force = 0.5
max_speed = 0.5
"#;
    let dir = std::env::temp_dir().join(format!("talus-ranks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("squeezed.toml");
    std::fs::write(&path, text).unwrap();
    Scene::load(&path).unwrap()
}

/// The GPU path on 1, 2 and 3 ranks: the serial GPU run's bits (f32 and
/// fixed point on the same adapter): particles, energies, every wall's
/// pose and load (the servo's too), contacts; and a checkpoint of 2 ranks
/// resumed on 3 and serially ends on them too.
#[test]
fn gpu_ranks_give_the_serial_gpu_bits() {
    let setup = Setup::new(squeezed_column()).unwrap();
    let steps = 400;
    let mut serial = talus::gpu::GpuBackend::from_setup(&setup, gpu_ctx()).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let contacts = serial.list_stats().contacts;
    assert!(contacts > 1000, "a column in contact: {contacts}");
    let pushed = want
        .walls
        .iter()
        .filter(|w| f64::from_bits(w[3]) != 0.0)
        .count();
    assert_eq!(pushed, 5, "every wall pressed on: {:?}", want.walls);
    // the 2-rank run also saves at half the steps (which changes no bit)
    let mut half = None;
    for ranks in 1..=3 {
        let (got, info, c, saved) = on_gpu_ranks(&setup, ranks, None, |b| {
            b.advance(steps / 2).unwrap();
            let saved = (ranks == 2).then(|| b.save());
            b.advance(steps - steps / 2).unwrap();
            (end(b), b.ranks().unwrap(), b.list_stats().contacts, saved)
        });
        assert_same(&want, &got, &format!("{ranks} GPU ranks"));
        assert_eq!(c, contacts, "{ranks} GPU ranks: contacts");
        if ranks > 1 {
            assert!(info.ghosts.iter().all(|&g| g > 0), "ghosts: {info:?}");
            assert!(info.owned.iter().all(|&g| g > 300), "owned: {info:?}");
            assert!(info.migrations > 1, "migrations: {info:?}");
        }
        half = half.or(saved);
    }
    // stopped on 2 ranks at half the steps, resumed on 3 and serially
    let half = half.expect("saved on 2 ranks");
    let got = on_gpu_ranks(&setup, 3, Some(&half), |b| {
        b.advance(steps / 2).unwrap();
        end(b)
    });
    assert_same(&want, &got, "2 GPU ranks resumed on 3");
    let mut alone = talus::gpu::GpuBackend::restore_setup(&setup, gpu_ctx(), &half).unwrap();
    alone.advance(steps / 2).unwrap();
    assert_same(&want, &end(&mut alone), "2 GPU ranks resumed serially");
}

/// The rubber sheet of `scenes/membrane.toml` with a lattice of beads
/// thrown onto it instead of its pouring: a FEM body under the grains of
/// several GPU ranks (its surface's node forces summed over them).
fn beads_on_a_sheet() -> Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/membrane.toml");
    let text = std::fs::read_to_string(path).unwrap();
    // forces handed over every 4 steps: a checkpoint can fall inside an
    // interval
    let text = text.replacen(
        "element = \"tet10\"",
        "element = \"tet10\"\nexchange_every = 4",
        1,
    );
    let cut = text.find("[[insert]]").expect("the membrane pours");
    let text = format!(
        "{}{}",
        &text[..cut],
        r#"[[particles]]
generator = "lattice"
region = { min = [-0.03, -0.03, 0.0002], max = [0.03, 0.03, 0.03] }
radius = { min = 0.0018, max = 0.0022 }
material = "glass"
velocity = [0.0, 0.0, -1.0]
"#
    );
    let dir = std::env::temp_dir().join(format!("talus-ranks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sheet.toml");
    std::fs::write(&path, text).unwrap();
    Scene::load(&path).unwrap()
}

/// FEM bodies on GPU ranks: every rank advances its copy of the sheet
/// under the node forces of all ranks' grains (a ghost's are its owner's
/// to add): the serial GPU run's grains, energies and body, and a
/// checkpoint of 3 ranks resumed serially and on 2 ends on them too.
#[test]
fn gpu_ranks_with_a_fem_body() {
    let setup = Setup::new(beads_on_a_sheet()).unwrap();
    let steps = 300;
    let body = |b: &dyn Backend| -> Vec<u64> {
        let s = b.bodies().expect("the sheet").save();
        s.iter().map(|x| x.to_bits()).collect()
    };
    let mut serial = talus::gpu::GpuBackend::from_setup(&setup, gpu_ctx()).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let want_body = body(&serial);
    let on_sheet = want
        .particles
        .pos_rad
        .iter()
        .filter(|p| p[2] - p[3] < 0.0005)
        .count();
    assert!(on_sheet > 50, "beads on the sheet: {on_sheet}");
    // the 3-rank run also saves at a prime step: the checkpoint falls
    // inside an exchange interval (K > 1), with the interval's forces in it
    let cut = 151;
    let mut half = None;
    for ranks in [2, 3] {
        let (got, got_body, saved) = on_gpu_ranks(&setup, ranks, None, |b| {
            b.advance(cut).unwrap();
            let saved = (ranks == 3).then(|| b.save());
            b.advance(steps - cut).unwrap();
            (end(b), body(b), saved)
        });
        assert_same(&want, &got, &format!("{ranks} GPU ranks, a FEM body"));
        assert!(got_body == want_body, "{ranks} GPU ranks: the body's state");
        half = half.or(saved);
    }
    let half = half.expect("saved on 3 ranks");
    let mut alone = talus::gpu::GpuBackend::restore_setup(&setup, gpu_ctx(), &half).unwrap();
    alone.advance(steps - cut).unwrap();
    assert_same(&want, &end(&mut alone), "3 GPU ranks resumed serially");
    assert!(body(&alone) == want_body, "resumed: the body's state");
    // and on 2 ranks: the others take the bodies, surfaces and step count
    // from rank 0, the interval's forces stay counted once
    let (got, got_body) = on_gpu_ranks(&setup, 2, Some(&half), |b| {
        b.advance(steps - cut).unwrap();
        (end(b), body(b))
    });
    assert_same(&want, &got, "3 GPU ranks resumed on 2");
    assert!(got_body == want_body, "resumed on 2: the body's state");
}

/// Pouring on GPU ranks: the box of [`POURING`] (batches the cuts cross,
/// each finding the last one's beads in the way, an outlet, a shaking
/// wall) with a second entry pouring smaller beads at the same steps, on
/// 2 GPU ranks accepts the serial GPU run's candidates with its ids: the
/// same events and bits; a 2-rank checkpoint between batches resumed on 3
/// ends on them too.
#[test]
fn gpu_ranks_pour_as_the_serial_gpu_run() {
    let path = std::env::temp_dir().join(format!("talus_gpu_pouring_{}.toml", std::process::id()));
    // a second entry pours into the same region at the same steps: its
    // batch checks against what the first just put in, on every rank
    let second = r#"
[[insert]]
region = { min = [0.002, 0.002, 0.012], max = [0.018, 0.018, 0.035] }
rate = 30000.0
count = 1000
radius = { min = 0.0006, max = 0.0007 }
material = "glass"
velocity = [0.0, 0.0, -0.1]
interval = 0.004
"#;
    std::fs::write(&path, format!("{POURING}{second}")).unwrap();
    let setup = Setup::new(Scene::load(&path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    let steps = 1300;
    let mut serial = talus::gpu::GpuBackend::from_setup(&setup, gpu_ctx()).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let want_events = in_order(serial.flow_events());
    let inserted = poured(&want_events, None);
    assert!(inserted > 150, "{inserted} poured in");
    assert!(
        inserted < 7 * (160 + 80),
        "the region was full at times: {inserted} of 7 batches"
    );
    let second = poured(&want_events, Some(1));
    assert!(second > 50, "{second} of the second entry's poured in");
    // 2 ranks straight on; 3 after a 2-rank checkpoint (the batches at
    // 800, 1000 and 1200 poured on 3)
    // (saved at 700 on the way, which changes no bit)
    let (got, ev, (half, mut ev_half)) = on_gpu_ranks(&setup, 2, None, |b| {
        b.advance(700).unwrap();
        let saved = (b.save(), b.flow_events());
        b.advance(steps - 700).unwrap();
        (end(b), b.flow_events(), saved)
    });
    // (the events since the last call: those to 700, then the rest)
    let all = in_order([ev_half.clone(), ev].concat());
    assert_eq!(all, want_events, "2 GPU ranks: the flow events");
    assert_same(&want, &got, "2 GPU ranks pouring");
    let (got, more) = on_gpu_ranks(&setup, 3, Some(&half), |b| {
        b.advance(steps - 700).unwrap();
        (end(b), b.flow_events())
    });
    ev_half.extend(more);
    assert_eq!(
        in_order(ev_half),
        want_events,
        "2 GPU ranks resumed on 3: the flow events"
    );
    assert_same(&want, &got, "2 GPU ranks pouring, resumed on 3");
}

type ClumpRun<'a> = (
    &'a End,
    &'a Vec<talus::shapes::clumps::ClumpRow>,
    &'a Vec<talus::flow::FlowEvent>,
);

/// A run of clumps on ranks (`info`) against the serial run: copies on
/// every rank; the same events, clumps' bodies and end bits.
fn assert_same_clumps(info: &RanksInfo, want: ClumpRun, got: ClumpRun, what: &str) {
    println!("{what}: owned {:?}, ghosts {:?}", info.owned, info.ghosts);
    assert!(
        info.ghosts.iter().all(|&g| g > 0),
        "{what}: copies on every rank"
    );
    assert_eq!(got.2, want.2, "{what}: the events");
    assert_eq!(got.1, want.1, "{what}: the clumps' bodies");
    assert_same(want.0, got.0, what);
}

/// `steps` of the serial run of [`poured_clumps`] on `b`: its end, its
/// clumps and its events; checks that it poured, took some out at the
/// outlet, and packed into contact.
fn serial_clumps(
    b: &mut dyn Backend,
    steps: u64,
) -> (
    End,
    Vec<talus::shapes::clumps::ClumpRow>,
    Vec<talus::flow::FlowEvent>,
) {
    b.advance(steps).unwrap();
    let (want, clumps, events) = (end(b), b.clumps(), in_order(b.flow_events()));
    let removed = events
        .iter()
        .filter(|e| matches!(e.kind, talus::flow::FlowKind::Removed(_)))
        .count();
    let (poured, stats) = (poured(&events, None), b.list_stats());
    println!(
        "{} rows, {} clumps, {poured} poured, {removed} removed, {stats:?}",
        want.particles.len(),
        clumps.len(),
    );
    assert!(poured >= 12, "{poured} poured");
    assert!(removed >= 1, "the outlet took {removed}");
    assert!(stats.contacts > 50, "{stats:?}");
    (want, clumps, events)
}

/// The clumps' bed (`gpu_clumps::poured_bed`: dumbbells, tetrahedra and
/// spheres, more of each poured from above every 150 steps) softened and
/// under a strong pull, so that it lands and packs within a test (dt 0.05
/// of the contact time: 6.1 µs), with an outlet in a corner of the floor.
fn poured_clumps() -> Scene {
    let mut scene = crate::gpu_clumps::poured_bed(54, 5);
    scene.materials[0].youngs_modulus = 5e5;
    scene.simulation.gravity = [0.0, 0.0, -100.0];
    let dt = scene.dt();
    for ins in &mut scene.inserts {
        ins.interval = Some(150.0 * dt);
    }
    scene.outlets.push(talus::scene::Outlet {
        name: Some("corner".into()),
        region: talus::scene::Region::Box {
            min: [-0.006, -0.006, 0.0],
            max: [-0.002, -0.002, 0.0025],
        },
    });
    scene
}

/// A bed of dumbbells, tetrahedra and spheres (`gpu_clumps::poured_bed`)
/// falling onto the floor under a strong pull, more of each poured in
/// batches from above, an outlet in a corner of the floor: cut along z,
/// the clumps cross the cuts as they fall. A clump's rows go with the
/// rank of its centre of mass (an owned member may stick out of the
/// slab: the halo grows by the shapes' reach), its body with them; its
/// members' copies, levers included, refresh every step. On 2 and 3
/// ranks: the serial run's bits (rows, bodies, energies, floor load), the
/// same events (insertions and removals of whole clumps); a checkpoint of
/// 2 ranks resumes on 3 and serially to the same bits.
#[test]
fn clumps_on_ranks_give_the_serial_bits() {
    let scene = poured_clumps();
    let setup = Setup::new(scene).unwrap();
    let (half, steps) = (1500, 3000);
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    let (want, want_clumps, want_events) = serial_clumps(&mut serial, steps);
    for ranks in [2, 3] {
        let (got, clumps, events, info) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), b.clumps(), in_order(b.flow_events()), b.ranks())
        });
        let what = format!("{ranks} ranks");
        let run = (&got, &clumps, &events);
        assert_same_clumps(
            &info.unwrap(),
            (&want, &want_clumps, &want_events),
            run,
            &what,
        );
    }
    let saved = on_ranks(&setup, 2, None, |b| {
        b.advance(half).unwrap();
        b.save()
    });
    let (on_three, clumps) = on_ranks(&setup, 3, Some(&saved), |b| {
        b.advance(steps - half).unwrap();
        (end(b), b.clumps())
    });
    assert_same(&want, &on_three, "2 ranks, then 3");
    assert_eq!(clumps, want_clumps, "2 ranks, then 3: the clumps' bodies");
    let mut alone = CpuBackend::restore_setup(&setup, &saved).unwrap();
    alone.advance(steps - half).unwrap();
    assert_same(&want, &end(&mut alone), "2 ranks, then serially");
    assert_eq!(alone.clumps(), want_clumps, "2 ranks, then serially");
}

/// The clumps' bed in a box periodic on every axis, no walls, no gravity,
/// cut along z: clumps fly across the periodic boundary, their members on
/// both sides of it (a member wrapped apart from its centre), owned by the
/// rank of the wrapped centre; 2 and 3 ranks give the serial bits.
#[test]
fn clumps_across_a_periodic_cut() {
    let mut s = crate::gpu_clumps::clump_bed(54, 9);
    s.walls.clear();
    s.simulation.gravity = [0.0; 3];
    s.domain.periodic = [true; 3];
    // softer: the clumps travel ~10 mm, across z = 0, within the run
    s.materials[0].youngs_modulus = 5e5;
    let setup = Setup::new(s).unwrap();
    let steps = 3000;
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let want_clumps = serial.clumps();
    // some member lies across z = 0 from its centre: wrapped apart
    let rows = serial.snapshot();
    let apart = want_clumps.iter().any(|c| {
        rows.id
            .iter()
            .zip(&rows.pos_rad)
            .any(|(&id, p)| id == c.id && (p[2] - c.pos[2]).abs() > 0.01)
    });
    let dissipated = serial.diagnostics().dissipated;
    println!(
        "{:?}, dissipated {dissipated:e} J, a clump across z = 0: {apart}",
        serial.list_stats()
    );
    assert!(apart, "a clump's members on both sides of z = 0");
    assert!(dissipated > 0.0, "collisions");
    for ranks in [2, 3] {
        let (got, clumps, info) = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            (end(b), b.clumps(), b.ranks().unwrap())
        });
        assert_eq!(info.axis, "z");
        assert_eq!(clumps, want_clumps, "{ranks} ranks: the clumps' bodies");
        assert_same(&want, &got, &format!("{ranks} ranks, periodic"));
    }
}

/// Clumps on GPU ranks: the clumps' bed (dumbbells, tetrahedra, spheres)
/// landing on the floor under a strong pull, more of each poured in
/// batches from above (each rank checks the candidates in its slab, every
/// rank inserts every accepted clump, the others' rows marked `GHOST`), an
/// outlet in a corner, cut along z. A clump's record travels with its
/// members' rows to the rank of its centre; its members' copies carry
/// their levers in each step's refresh (`ghosts.wgsl`). On 2 and 3 GPU
/// ranks: the serial GPU run's bits (rows, bodies, energies, events); a
/// checkpoint of 2 ranks resumes on 3 and serially to them.
#[test]
fn gpu_ranks_run_clumps_with_the_serial_gpu_bits() {
    let scene = poured_clumps();
    let setup = Setup::new(scene).unwrap();
    assert!(talus::dist::gpu_rank::unsupported(&setup).is_none());
    let (half, steps) = (750, 1500);
    let mut serial = talus::gpu::GpuBackend::from_setup(&setup, gpu_ctx()).unwrap();
    let (want, want_clumps, want_events) = serial_clumps(&mut serial, steps);
    let mut saved = None;
    for ranks in [2, 3] {
        let (got, clumps, events, info, s) = on_gpu_ranks(&setup, ranks, None, |b| {
            b.advance(half).unwrap();
            let s = (ranks == 2).then(|| b.save());
            b.advance(steps - half).unwrap();
            (end(b), b.clumps(), in_order(b.flow_events()), b.ranks(), s)
        });
        let what = format!("{ranks} GPU ranks");
        let run = (&got, &clumps, &events);
        assert_same_clumps(
            &info.unwrap(),
            (&want, &want_clumps, &want_events),
            run,
            &what,
        );
        saved = saved.or(s);
    }
    let saved = saved.expect("saved on 2 ranks");
    let (on_three, clumps) = on_gpu_ranks(&setup, 3, Some(&saved), |b| {
        b.advance(steps - half).unwrap();
        (end(b), b.clumps())
    });
    assert_same(&want, &on_three, "2 GPU ranks, then 3");
    assert_eq!(
        clumps, want_clumps,
        "2 GPU ranks, then 3: the clumps' bodies"
    );
    let mut alone = talus::gpu::GpuBackend::restore_setup(&setup, gpu_ctx(), &saved).unwrap();
    alone.advance(steps - half).unwrap();
    assert_same(&want, &end(&mut alone), "2 GPU ranks, then serially");
    assert_eq!(alone.clumps(), want_clumps, "2 GPU ranks, then serially");
}

/// `scenes/settle.toml`'s bed made cohesive (SJKR, k = 10⁵ J/m³) on a
/// floor of its own bottom layer, held by `[[fixed]]`.
fn cohesive_on_glued_floor() -> Scene {
    let mut s = scene("settle.toml");
    s.contact.cohesion = talus::scene::Cohesion::Sjkr;
    s.materials[0].cohesion_energy_density = 1.0e5;
    s.fixed.push(talus::scene::Region::Box {
        min: [0.0, 0.0, 0.0],
        max: [0.04, 0.04, 0.0012],
    });
    s
}

/// Cohesion and held grains on ranks: 2 and 3 CPU ranks and 2 GPU ranks
/// end on their serial run's bits (the held grains on every rank stay
/// where they are).
#[test]
fn cohesion_and_held_grains_on_ranks_give_the_serial_bits() {
    let setup = Setup::new(cohesive_on_glued_floor()).unwrap();
    let held = setup
        .scene
        .particles
        .iter()
        .filter(|p| p.material >= setup.scene.held_from())
        .count();
    assert!(held > 90, "a held layer: {held}");
    let steps = 1200;
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    assert!(serial.list_stats().contacts > 500, "a bed in contact");
    for ranks in [2, 3] {
        let got = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            end(b)
        });
        assert_same(&want, &got, &format!("{ranks} ranks, cohesive, held"));
    }
    gpu_ranks_match_serial(&setup, 300, "2 GPU ranks, cohesive, held");
}

/// `steps` of `setup` on 2 GPU ranks end on the serial GPU run's bits.
fn gpu_ranks_match_serial(setup: &Setup, steps: u64, what: &str) {
    let mut serial = talus::gpu::GpuBackend::from_setup(setup, gpu_ctx()).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let got = on_gpu_ranks(setup, 2, None, |b| {
        b.advance(steps).unwrap();
        end(b)
    });
    assert_same(&want, &got, what);
}

/// `scenes/settle.toml`'s bed with rolling springs (`epsd2`, μ_r = 0.05).
fn rolling_springs() -> Scene {
    let mut s = scene("settle.toml");
    s.contact.rolling = talus::scene::Rolling::Epsd2;
    for m in &mut s.materials {
        m.rolling_friction = 0.05;
    }
    s
}

/// JKR: contacts held past touching (entries with history evaluated
/// though apart) on ranks and through a checkpoint give the serial bits:
/// 2 CPU ranks, a 2-rank checkpoint resumed on 3, and 2 GPU ranks. The
/// serial run does hold contacts apart.
#[test]
fn jkr_on_ranks_and_through_a_checkpoint_gives_the_serial_bits() {
    let mut scene = scene("settle.toml");
    scene.contact.cohesion = talus::scene::Cohesion::Jkr;
    for m in &mut scene.materials {
        m.surface_energy = 0.2;
    }
    let setup = Setup::new(scene).unwrap();
    let (half, steps) = (600, 1200);
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let apart = crate::common::held_apart(&serial.snapshot(), &serial.st.pair_history());
    // (a settling column is mostly in compression: a few dozen at most)
    assert!(apart > 5, "{apart} contacts held apart");
    let got = on_ranks(&setup, 2, None, |b| {
        b.advance(steps).unwrap();
        end(b)
    });
    assert_same(&want, &got, "2 ranks, jkr");
    let saved = on_ranks(&setup, 2, None, |b| {
        b.advance(half).unwrap();
        b.save()
    });
    let on_three = on_ranks(&setup, 3, Some(&saved), |b| {
        b.advance(steps - half).unwrap();
        end(b)
    });
    assert_same(&want, &on_three, "2 ranks, then 3, jkr");
    gpu_ranks_match_serial(&setup, 300, "2 GPU ranks, jkr");
}

/// The rolling springs' torques move with the history everywhere it
/// goes: 2 and 3 CPU ranks end on the serial run's bits, so does a
/// checkpoint of 2 ranks resumed on 3 and serially, and on the GPU path 2
/// ranks and a serial checkpoint resumed. The serial run's contacts do
/// hold rolling torques (what the test moves).
#[test]
fn rolling_springs_on_ranks_and_through_checkpoints_give_the_serial_bits() {
    let setup = Setup::new(rolling_springs()).unwrap();
    let (half, steps) = (1000, 2000);
    let mut serial = CpuBackend::from_setup(&setup).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let wound = serial
        .st
        .pair_history()
        .iter()
        .filter(|(_, _, h)| h[4..7] != [0.0; 3])
        .count();
    assert!(wound > 1000, "{wound} contacts hold a rolling torque");
    for ranks in [2, 3] {
        let got = on_ranks(&setup, ranks, None, |b| {
            b.advance(steps).unwrap();
            end(b)
        });
        assert_same(&want, &got, &format!("{ranks} ranks, epsd2"));
    }
    let saved = on_ranks(&setup, 2, None, |b| {
        b.advance(half).unwrap();
        b.save()
    });
    assert!(
        saved.section("nbr_roll").is_ok(),
        "the checkpoint keeps the springs"
    );
    let on_three = on_ranks(&setup, 3, Some(&saved), |b| {
        b.advance(steps - half).unwrap();
        end(b)
    });
    assert_same(&want, &on_three, "2 ranks, then 3, epsd2");
    let mut alone = CpuBackend::restore_setup(&setup, &saved).unwrap();
    alone.advance(steps - half).unwrap();
    assert_same(&want, &end(&mut alone), "2 ranks, then serially, epsd2");

    let (half, steps) = (150, 300);
    gpu_ranks_match_serial(&setup, steps, "2 GPU ranks, epsd2");
    let mut serial = talus::gpu::GpuBackend::from_setup(&setup, gpu_ctx()).unwrap();
    serial.advance(steps).unwrap();
    let want = end(&mut serial);
    let mut first = talus::gpu::GpuBackend::from_setup(&setup, gpu_ctx()).unwrap();
    first.advance(half).unwrap();
    let saved = first.save();
    assert!(
        saved.section("nbr_roll").is_ok(),
        "the GPU checkpoint keeps the springs"
    );
    let mut resumed = talus::gpu::GpuBackend::restore_setup(&setup, gpu_ctx(), &saved).unwrap();
    resumed.advance(steps - half).unwrap();
    assert_same(&want, &end(&mut resumed), "a GPU checkpoint resumed, epsd2");
}

/// Bonds do not run on ranks yet: both paths' ranks refuse a scene with
/// `[[bonds]]` in one line (and take one without).
#[test]
fn ranks_refuse_bonds_in_one_line() {
    let bonded = crate::bonds::shaken_cube(1);
    let setup = Setup::new(bonded).unwrap();
    for e in [
        talus::dist::rank::unsupported(&setup),
        talus::dist::gpu_rank::unsupported(&setup),
    ] {
        let e = e.expect("refused");
        assert!(e.contains("[[bonds]]") && !e.contains('\n'), "{e}");
    }
    let mut plain = crate::bonds::shaken_cube(1);
    plain.bonds.clear();
    let setup = Setup::new(plain).unwrap();
    assert!(talus::dist::rank::unsupported(&setup).is_none());
}
