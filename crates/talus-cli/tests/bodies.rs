//! FEM bodies coupled to the grains on the CPU path: the exchange
//! interval's error against K = 1, and an exact resume. (Total momentum
//! through a sphere's impact on a free block, and the weight of a bed on a
//! clamped plate, are the `coupled` case of `talus validate`, run on both
//! backends by `tests/validation.rs`; the bed here is that case's scene.)

use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus_studies::validate::cases::coupling::bed_on_plate;

/// The `coupled` case's bed with exchange interval `every`, run
/// `seconds` of simulated time.
fn loaded_plate(every: u32, seconds: f64) -> CpuBackend {
    let scene = bed_on_plate(Some(every)).expect("scene");
    let mut cpu = CpuBackend::new(&scene).expect("backend");
    let steps = (seconds / scene.dt()).ceil() as u64;
    cpu.advance(steps).expect("advance");
    cpu
}

#[test]
fn exchanging_every_k_steps_settles_where_k_1_does() {
    let a = loaded_plate(1, 0.15);
    let b = loaded_plate(4, 0.15);
    let sag = |c: &CpuBackend| c.bodies.as_ref().unwrap().bodies[0].body.center_of_mass().z + 0.002;
    let (za, zb) = (sag(&a), sag(&b));
    let rel = ((zb - za) / za).abs();
    eprintln!("K = 4: plate sag {zb:e} m against {za:e} m with K = 1 ({rel:e})");
    assert!(za < 0.0, "the plate did not sag: {za:e}");
    // statics do not see K (a transient does: K > 1 moves the surface on
    // a straight line for K steps, docs/performance.md)
    assert!(
        rel < 1e-3,
        "K = 4 moved the settled sag by {rel:e} of K = 1's"
    );
}

#[test]
fn a_coupled_run_resumes_bit_for_bit() {
    let scene = bed_on_plate(Some(3)).expect("scene");
    let mut straight = CpuBackend::new(&scene).expect("backend");
    let mut first = CpuBackend::new(&scene).expect("backend");
    // 601 is not a multiple of K: the checkpoint holds a part-summed
    // interval
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

#[test]
fn a_run_writes_its_bodies_and_a_replay_draws_them() {
    let scene = bed_on_plate(Some(3)).expect("scene");
    let dir = std::env::temp_dir().join(format!("talus-bodies-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cpu = CpuBackend::new(&scene).expect("backend");
    let mut cfg =
        talus::run::RunConfig::new(&talus::Setup::new(scene.clone()).unwrap(), dir.clone(), 300);
    cfg.output_every = 100;
    talus::run::run(&scene, &mut cpu, &cfg).expect("run");
    // bodies.csv: a row per output, the header the issue names
    let csv = std::fs::read_to_string(dir.join("bodies.csv")).expect("bodies.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("t,body,cx,cy,cz,vx,vy,vz,kinetic,strain,fx,fy,fz")
    );
    assert!(lines.count() >= 3, "{csv}");
    // the replay draws the plate's surface as triangles where it stood
    let run = talus_view::replay::Run::open(&dir).expect("replay");
    let last = run.frame(run.len() - 1).expect("frame");
    let surface = talus::fem::mesh::surface(cpu.bodies.as_ref().unwrap().bodies[0].body.mesh());
    assert_eq!(
        last.walls.len(),
        surface.tris.len(),
        "the plate's triangles in the replay"
    );
    let lowest = last
        .walls
        .iter()
        .flat_map(|(t, _)| t.iter().map(|v| v[2]))
        .fold(f32::MAX, f32::min);
    assert!(
        (lowest - -0.004).abs() < 1e-4,
        "the plate's underside at {lowest}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scene of FEM bodies alone is a valid run: `talus check` passes it
/// (its dt half the body's critical explicit step), `--backend auto`
/// takes the CPU path, and the GPU path gives the same bodies.csv (the
/// bodies run on the CPU on both).
#[test]
fn a_body_alone_is_a_valid_run() {
    let dir = std::env::temp_dir().join(format!("talus-body-alone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("sheet.toml");
    std::fs::write(
        &scene,
        r#"[simulation]
duration = 0.0005
dt = "auto"
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.05, -0.05, -0.03]
max = [0.05, 0.05, 0.08]

[[materials]]
name = "rubber"
density = 1100.0
youngs_modulus = 2.0e6
poisson_ratio = 0.45
restitution = 0.5
friction = 0.6

[[bodies]]
name = "sheet"
generator = "box"
min = [-0.04, -0.04, -0.003]
max = [0.04, 0.04, 0.0]
divisions = [4, 4, 1]
element = "tet4"
material = "rubber"
fixed = [{ min = [-0.041, -0.041, -0.004], max = [-0.0399, 0.041, 0.001] }]
"#,
    )
    .unwrap();
    let talus = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_talus"))
            .args(args)
            .output()
            .unwrap()
    };
    let s = scene.to_str().unwrap();
    let check = talus(&["check", s]);
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(
        report.contains("radius       none: FEM bodies alone")
            && report.contains("auto: half the bodies' smallest critical explicit step"),
        "{report}"
    );
    let auto = dir.join("auto");
    let o = talus(&["run", s, "--out", auto.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.contains("auto: FEM bodies alone"),
        "{err}"
    );
    let csv = std::fs::read_to_string(auto.join("bodies.csv")).unwrap();
    assert!(csv.lines().count() >= 3, "{csv}");
    if talus::gpu::context::test_context().is_some() {
        let gpu = dir.join("gpu");
        let o = talus(&["run", s, "--backend", "gpu", "--out", gpu.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read_to_string(gpu.join("bodies.csv")).unwrap(),
            csv
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
