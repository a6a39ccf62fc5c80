//! Runs on several MPI ranks through the real binary and `mpirun`
//! (feature `mpi`; `.ci/run` runs these with Open MPI): every output but
//! the checkpoint and summary.json is the serial run's, byte for byte, on
//! 1, 2 and 3 ranks (settling, a turning drum of triangles, a hopper
//! draining, a silo being filled, beads on a FEM sheet); a checkpoint of
//! 2 ranks resumes on 3 and serially to the serial bytes; SIGTERM to the
//! ranks checkpoints; a rank killed stops the job; what cannot run on
//! several ranks is refused in one line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_talus");

fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("talus_mpi_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `mpirun -np n talus args…` (n = 0: talus alone), as root too, more
/// ranks than cores allowed.
fn mpirun(n: usize, args: &[&str]) -> Command {
    let mut c = if n == 0 {
        Command::new(BIN)
    } else {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "-np", &n.to_string(), BIN]);
        c
    };
    c.args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("RAYON_NUM_THREADS", "1");
    c
}

fn run(n: usize, args: &[&str]) -> Output {
    mpirun(n, args)
        .output()
        .expect("mpirun (Open MPI) installed")
}

fn ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The files of a run folder the ranks must reproduce byte for byte
/// (the checkpoint keeps the list as history rows, and summary.json says
/// how long it took).
fn outputs(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n != "checkpoint.bin" && n != "summary.json"
        })
        .map(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            (n, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

fn assert_same_outputs(serial: &Path, other: &Path, what: &str) {
    let (a, b) = (outputs(serial), outputs(other));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "{what}: the same files");
    assert!(
        a.iter().any(|x| x.0 == "final.csv"),
        "{what}: final.csv written"
    );
    for ((n, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{what}: {n} differs from the serial run's");
    }
}

fn summary(d: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap()
}

/// `scene` for `steps` steps serially and on each rank count: the same
/// files.
fn same_files_on_ranks(scene: &str, steps: u64, ranks: &[usize]) {
    same_files_of(&scenes().join(scene), steps, ranks, "cpu")
}

/// [`same_files_on_ranks`] for the scene file `sc` on `backend`.
fn same_files_of(sc: &Path, steps: u64, ranks: &[usize], backend: &str) {
    let scene = sc.file_name().unwrap().to_str().unwrap();
    let d = tmp(&format!("{}-{backend}", scene.trim_end_matches(".toml")));
    let steps = steps.to_string();
    // 3 CPU ranks run their interiors' contacts while the ghosts' rows
    // travel (TALUS_MPI_OVERLAP); 2 after they came (the default)
    let overlap = |n: usize| n == 3 && backend == "cpu";
    let go = |n: usize| {
        let out = d.join(format!("np{n}"));
        let o = mpirun(
            n,
            &[
                "run",
                sc.to_str().unwrap(),
                "--backend",
                backend,
                "--steps",
                &steps,
                "--out",
                out.to_str().unwrap(),
                "--quiet",
            ],
        )
        .env("TALUS_MPI_OVERLAP", if overlap(n) { "1" } else { "0" })
        .output()
        .expect("mpirun (Open MPI) installed");
        ok(&o, &format!("{scene} on {n} ranks"));
        out
    };
    let serial = go(0);
    for &n in ranks {
        let out = go(n);
        assert_same_outputs(&serial, &out, &format!("{scene}, {n} ranks"));
        let s = summary(&out);
        assert_eq!(s["backend"], backend, "{scene}: summary.json's backend");
        if n > 1 {
            let r = &s["ranks"];
            assert_eq!(r["ranks"], n, "{scene}: summary.json's ranks");
            let owned: u64 = r["owned"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .sum();
            assert_eq!(owned, s["particles_end"].as_u64().unwrap());
            let transport = r["transport"].as_str().unwrap();
            assert_eq!(
                transport.contains("TALUS_MPI_OVERLAP=1"),
                overlap(n),
                "{scene}, {n} ranks: {transport}"
            );
            println!("{scene}, {n} ranks: {r}");
        } else {
            assert!(s.get("ranks").is_none(), "one rank runs serially");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The settling bed (4000 beads falling onto a floor across the cuts).
#[test]
fn settle_on_one_two_three_ranks_writes_the_serial_files() {
    same_files_on_ranks("settle.toml", 2000, &[1, 2, 3]);
}

/// Dumbbells and tetrahedra poured into a box (`scenes/clumps.toml`): a
/// clump's rows go with the rank of its centre of mass; final.csv's
/// shapes and orientations, the snapshots and the energies as the serial
/// run writes them, on 2 and 3 CPU ranks.
#[test]
fn clumps_on_two_three_ranks_write_the_serial_files() {
    same_files_on_ranks("clumps.toml", 3000, &[2, 3]);
}

/// The same pour on 2 GPU ranks (lavapipe in CI): the serial GPU run's
/// files.
#[test]
fn clumps_on_gpu_ranks_write_the_serial_gpu_files() {
    same_files_of(&scenes().join("clumps.toml"), 1000, &[2], "gpu");
}

/// The GPU path (lavapipe in CI): the settling bed on 3 ranks (the middle
/// one with a neighbour on each side), each rank on its own device, writes
/// the serial GPU run's files (2 GPU ranks: the checkpoint test below;
/// every count from 1 to 3, as threads: the engine's `ranks.rs`).
#[test]
fn settle_on_gpu_ranks_writes_the_serial_gpu_files() {
    same_files_of(&scenes().join("settle.toml"), 1500, &[3], "gpu");
}

/// The GPU path: the drum of triangles turning, its torque (walls.csv)
/// added over 2 ranks.
#[test]
fn drum_on_gpu_ranks_writes_the_serial_gpu_files() {
    same_files_of(&scenes().join("drum_stl.toml"), 600, &[2], "gpu");
}

/// The drum of triangles turning (a rotating mesh on every rank).
#[test]
fn drum_on_two_three_ranks_writes_the_serial_files() {
    same_files_on_ranks("drum_stl.toml", 1500, &[2, 3]);
}

/// The STL hopper draining through its outlet: the particles that leave
/// the open domain are taken out on the rank that owns them, and the
/// copies on the others go with them.
#[test]
fn hopper_on_two_three_ranks_writes_the_serial_files() {
    same_files_on_ranks("hopper.toml", 3000, &[2, 3]);
}

/// The silo: beads poured (`[[insert]]`) into the STL hopper onto its
/// plug, each rank accepting the candidates in its slab.
#[test]
fn silo_on_two_three_ranks_writes_the_serial_files() {
    same_files_on_ranks("silo.toml", 3000, &[2, 3]);
}

/// The silo on 3 GPU ranks: each rank checks the candidates on its device
/// and keeps the verdicts in its slab; the serial GPU run's files.
#[test]
fn silo_on_gpu_ranks_writes_the_serial_gpu_files() {
    same_files_of(&scenes().join("silo.toml"), 1000, &[3], "gpu");
}

/// Beads poured onto a rubber sheet (a FEM body; `scenes/membrane.toml`
/// poured from just above it, so that they land within the test): every
/// rank advances its copy of the body under the forces of all
/// (`bodies.csv` and the body's series byte for byte).
#[test]
fn membrane_on_two_ranks_writes_the_serial_files() {
    let d = tmp("membrane_scene");
    let text = std::fs::read_to_string(scenes().join("membrane.toml"))
        .unwrap()
        .replace(
            "region = { min = [-0.02, -0.02, 0.04], max = [0.02, 0.02, 0.06] }",
            "region = { min = [-0.02, -0.02, 0.003], max = [0.02, 0.02, 0.015] }",
        )
        .replace("velocity = [0.0, 0.0, -0.5]", "velocity = [0.0, 0.0, -1.0]");
    assert!(text.contains("0.015] }"), "the insertion region moved");
    let sc = d.join("membrane_low.toml");
    std::fs::write(&sc, text).unwrap();
    same_files_of(&sc, 1500, &[2], "cpu");
    let _ = std::fs::remove_dir_all(&d);
}

/// A run of 2 ranks cut at step 1000 resumes on 3 ranks, and serially,
/// to the bytes of a serial run that went straight on to 2000.
#[test]
fn a_checkpoint_of_two_ranks_resumes_on_three_and_serially() {
    let d = tmp("restart");
    let sc = scenes().join("settle.toml");
    let sc = sc.to_str().unwrap();
    let p = |x: &str| d.join(x).to_str().unwrap().to_string();
    let cpu = ["--backend", "cpu", "--quiet"];
    let o = run(
        0,
        &[
            &["run", sc, "--steps", "2000", "--out", &p("serial")][..],
            &cpu,
        ]
        .concat(),
    );
    ok(&o, "serial");
    let o = run(
        2,
        &[
            &["run", sc, "--steps", "1000", "--out", &p("three")][..],
            &cpu,
        ]
        .concat(),
    );
    ok(&o, "2 ranks to 1000");
    // the same folder copied: one resumes on 3 ranks, the other alone
    std::fs::create_dir_all(p("alone")).unwrap();
    for e in std::fs::read_dir(p("three")).unwrap() {
        let e = e.unwrap().path();
        std::fs::copy(&e, d.join("alone").join(e.file_name().unwrap())).unwrap();
    }
    let o = run(
        3,
        &[
            &["run", sc, "--steps", "2000", "--resume", &p("three")][..],
            &cpu,
        ]
        .concat(),
    );
    ok(&o, "resumed on 3 ranks");
    assert_same_outputs(&d.join("serial"), &d.join("three"), "2 ranks, then 3");
    let o = run(
        0,
        &[
            &["run", sc, "--steps", "2000", "--resume", &p("alone")][..],
            &cpu,
        ]
        .concat(),
    );
    ok(&o, "resumed alone");
    assert_same_outputs(
        &d.join("serial"),
        &d.join("alone"),
        "2 ranks, then serially",
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The GPU path: a checkpoint of 2 GPU ranks resumed on 3 with `--backend
/// auto` continues on the GPU path (the one that wrote it, though the only
/// adapter is a software one) and ends on the serial GPU run's files.
#[test]
fn a_gpu_checkpoint_of_two_ranks_resumes_on_three() {
    let d = tmp("restart-gpu");
    let sc = scenes().join("settle.toml");
    let sc = sc.to_str().unwrap();
    let p = |x: &str| d.join(x).to_str().unwrap().to_string();
    let o = run(
        0,
        &[
            "run",
            sc,
            "--steps",
            "1200",
            "--out",
            &p("serial"),
            "--backend",
            "gpu",
            "--quiet",
        ],
    );
    ok(&o, "serial");
    let o = run(
        2,
        &[
            "run",
            sc,
            "--steps",
            "600",
            "--out",
            &p("ranks"),
            "--backend",
            "gpu",
            "--quiet",
        ],
    );
    ok(&o, "2 GPU ranks to 600");
    let o = run(
        3,
        &[
            "run",
            sc,
            "--steps",
            "1200",
            "--resume",
            &p("ranks"),
            "--quiet",
        ],
    );
    ok(&o, "resumed on 3 ranks");
    assert_eq!(
        summary(&d.join("ranks"))["backend"],
        "gpu",
        "auto follows the checkpoint"
    );
    assert_same_outputs(&d.join("serial"), &d.join("ranks"), "2 GPU ranks, then 3");
    let _ = std::fs::remove_dir_all(&d);
}

/// A long run on 2 ranks, started; returns it once its energy table has a
/// few rows.
fn long_run(n: usize, out: &Path) -> std::process::Child {
    let sc = scenes().join("settle.toml");
    let mut c = mpirun(
        n,
        &[
            "run",
            sc.to_str().unwrap(),
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    let t0 = Instant::now();
    loop {
        let rows = std::fs::read_to_string(out.join("energy.csv")).map_or(0, |t| t.lines().count());
        if rows > 3 {
            return child;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not start");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The ranks' pids (mpirun's children), rank order not known.
fn ranks_of(child: &std::process::Child) -> Vec<String> {
    let kids = Command::new("pgrep")
        .args(["-P", &child.id().to_string()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&kids.stdout)
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// SIGTERM to every rank, as a batch system sends it (Slurm's scancel):
/// rank 0 stops at its next chunk, every rank helps write the checkpoint,
/// summary.json says "interrupted", and the command printed resumes it.
/// (SIGTERM to mpirun itself does the same when the checkpoint is written
/// within Open MPI's kill timeout, 1 s: docs/ranks.md.)
#[test]
fn sigterm_to_the_ranks_checkpoints() {
    let d = tmp("sigterm");
    let out = d.join("run");
    let child = long_run(2, &out);
    let pids = ranks_of(&child);
    assert_eq!(pids.len(), 2, "two ranks: {pids:?}");
    let sent = Instant::now();
    let st = Command::new("kill")
        .arg("-TERM")
        .args(&pids)
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        sent.elapsed() < Duration::from_secs(20),
        "stopping took {:?}",
        sent.elapsed()
    );
    assert!(said.contains("interrupted (SIGTERM)"), "{said}");
    assert!(
        said.contains("mpirun -np 2 talus run"),
        "the resume command: {said}"
    );
    assert_eq!(summary(&out)["status"], "interrupted");
    assert!(out.join("checkpoint.bin").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// A rank killed mid-run: the job stops within seconds, saying which.
#[test]
fn a_killed_rank_stops_the_job() {
    let d = tmp("killed");
    let out = d.join("run");
    let child = long_run(3, &out);
    // the ranks are mpirun's children; kill the last (not rank 0)
    let pids = ranks_of(&child);
    assert!(pids.len() >= 3, "three ranks: {pids:?}");
    let sent = Instant::now();
    Command::new("kill")
        .args(["-KILL", pids.last().unwrap()])
        .status()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        sent.elapsed() < Duration::from_secs(20),
        "stopping took {:?}",
        sent.elapsed()
    );
    assert!(!o.status.success(), "{said}");
    assert!(said.contains("rank") && said.contains("signal 9"), "{said}");
    let _ = std::fs::remove_dir_all(&d);
}

/// What cannot run on several ranks is refused in one line, from rank 0
/// alone: a rank without the GPU it was told to take, more ranks than
/// grid cells.
#[test]
fn what_ranks_cannot_do_is_refused_in_one_line() {
    let d = tmp("refused");
    // the one error line of `mpirun -np n talus run scene --backend be`,
    // which writes nothing
    let refused = |n: usize, scene: &Path, be: &str| -> String {
        let out = d.join("out");
        let o = run(
            n,
            &[
                "run",
                scene.to_str().unwrap(),
                "--backend",
                be,
                "--steps",
                "10",
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let said = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{said}");
        let errors: Vec<_> = said.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "one line: {said}");
        assert!(!out.exists(), "nothing written");
        errors[0].to_string()
    };
    // a rank without the GPU asked for
    let out = d.join("out");
    let o = run(
        2,
        &[
            "run",
            scenes().join("settle.toml").to_str().unwrap(),
            "--backend",
            "gpu",
            "--adapter",
            "no such adapter",
            "--steps",
            "10",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{said}");
    let errors: Vec<_> = said.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "one line: {said}");
    assert!(
        errors[0].contains("--adapter no such adapter") && errors[0].contains("rank"),
        "{said}"
    );
    // 5 ranks for a box 4 grid cells tall
    let tiny = d.join("tiny.toml");
    std::fs::write(&tiny, TINY).unwrap();
    let e = refused(5, &tiny, "cpu");
    assert!(
        e.contains("5 ranks") && e.contains("at most 4 ranks"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Four beads in a box 4 grid cells tall (cells of at least one
/// diameter plus the skin).
const TINY: &str = r#"
[simulation]
duration = 0.01
dt = 1e-5
gravity = [0.0, 0.0, -9.81]
[domain]
min = [0.0, 0.0, 0.0]
max = [0.004, 0.004, 0.009]
[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.3
[[particles]]
generator = "lattice"
region = { min = [0.0, 0.0, 0.0], max = [0.004, 0.004, 0.009] }
radius = 0.001
material = "glass"
count = 4
"#;
