//! Checkpoints and exact restart through the real binary: a run cut and
//! resumed gives the bytes of a run that went straight on (final.csv and
//! every table), with particles poured in, an outlet taking them and a
//! wall moving; SIGINT and SIGTERM stop a run with a checkpoint and the
//! command that resumes it; a damaged or foreign checkpoint is refused in
//! one line. GPU cases run where an adapter is (lavapipe in CI).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_talus");

/// A small pouring scene: 2 × 2 cm box, beads poured in from above, a
/// side wall oscillating, an outlet in one corner of the floor.
const SCENE: &str = r#"
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
region = { min = [0.002, 0.002, 0.025], max = [0.018, 0.018, 0.035] }
rate = 20000.0
count = 400
radius = { min = 0.0008, max = 0.001 }
material = "glass"
velocity = [0.0, 0.0, -0.3]
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

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("talus-restart-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn scene_in(d: &Path) -> PathBuf {
    let p = d.join("pour.toml");
    std::fs::write(&p, SCENE).unwrap();
    p
}

fn talus(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "talus failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Whether a GPU adapter is there (lavapipe counts); CI must have one.
fn have_gpu() -> bool {
    if talus::gpu::context::test_context().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("TALUS_REQUIRE_GPU").is_none(),
        "TALUS_REQUIRE_GPU is set but no GPU adapter was found"
    );
    eprintln!("skipped the GPU half: no GPU adapter (install mesa-vulkan-drivers for lavapipe)");
    false
}

/// The outputs a resumed run must reproduce byte for byte.
const SAME: [&str; 6] = [
    "final.csv",
    "energy.csv",
    "flow.csv",
    "walls.csv",
    "particles.pvd",
    "walls.pvd",
];

fn assert_same(a: &Path, b: &Path, what: &str) {
    for f in SAME {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{what}: {f} differs between the straight and the resumed run"
        );
    }
}

/// 1000 steps + resume to 2000 = 2000 straight, bit for bit, on the CPU
/// (and the GPU): with a moving wall, batches poured in and an outlet.
#[test]
fn resumed_runs_are_bit_identical() {
    let mut backends = vec!["cpu"];
    if have_gpu() {
        backends.push("gpu");
    }
    for be in backends {
        let d = dir(&format!("exact-{be}"));
        let sc = scene_in(&d);
        let (a, b) = (d.join("straight"), d.join("cut"));
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            be,
            "--steps",
            "2000",
            "--out",
            s(&a),
            "--quiet",
        ]));
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            be,
            "--steps",
            "1000",
            "--out",
            s(&b),
            "--quiet",
        ]));
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            be,
            "--steps",
            "2000",
            "--resume",
            s(&b),
            "--quiet",
        ]));
        assert_same(&a, &b, be);
        let sum = std::fs::read_to_string(b.join("summary.json")).unwrap();
        assert!(sum.contains("\"resumed_from\": 1000"), "{sum}");
        // something happened in both halves: particles poured and removed
        let v: serde_json::Value = serde_json::from_str(&sum).unwrap();
        assert!(v["inserted"].as_u64().unwrap() > 100, "{sum}");
    }
}

/// A checkpoint resumes on the other backend, within tolerance of the
/// straight run: the same ids present, positions close.
#[test]
fn a_checkpoint_resumes_on_the_other_backend() {
    if !have_gpu() {
        return;
    }
    for (from, to) in [("cpu", "gpu"), ("gpu", "cpu")] {
        let d = dir(&format!("cross-{from}"));
        let sc = scene_in(&d);
        let (a, b) = (d.join("straight"), d.join("cut"));
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            from,
            "--steps",
            "600",
            "--out",
            s(&a),
            "--quiet",
        ]));
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            from,
            "--steps",
            "500",
            "--out",
            s(&b),
            "--quiet",
        ]));
        let o = talus(&[
            "run",
            s(&sc),
            "--backend",
            to,
            "--steps",
            "600",
            "--resume",
            s(&b),
        ]);
        ok(&o);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("not bit for bit"), "{err}");
        let read = |p: &Path| {
            let t = std::fs::read_to_string(p.join("final.csv")).unwrap();
            t.lines()
                .skip(1)
                .map(|l| {
                    l.split(',')
                        .take(3)
                        .map(|x| x.parse::<f64>().unwrap())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let (x, y) = (read(&a), read(&b));
        assert_eq!(x.len(), y.len(), "{from} -> {to}: particle counts");
        let worst = x
            .iter()
            .zip(&y)
            .flat_map(|(p, q)| p.iter().zip(q).map(|(u, v)| (u - v).abs()))
            .fold(0.0, f64::max);
        // 100 steps of a pour: f32 rounding of 0.02 m positions ~1e-9 m,
        // grown by collisions
        assert!(
            worst < 2e-5,
            "{from} -> {to}: positions differ by {worst} m"
        );
    }
}

/// Sends `sig` to a running long run once it has written a few rows;
/// returns the run's output.
fn interrupt(sig: &str, d: &Path, sc: &Path, be: &str) -> Output {
    let out = d.join("run");
    let child = Command::new(BIN)
        .args([
            "run",
            s(sc),
            "--backend",
            be,
            "--duration",
            "100",
            "--out",
            s(&out),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        let rows = std::fs::read_to_string(out.join("energy.csv")).map_or(0, |t| t.lines().count());
        if rows > 5 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the run did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let sent = Instant::now();
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "stopping took {:?}",
        sent.elapsed()
    );
    o
}

/// SIGINT and SIGTERM stop the run at the next chunk: exit 130 / 143, a
/// checkpoint, final.csv and summary.json ("interrupted"), and the
/// command printed resumes it to the same bytes as a straight run (CPU:
/// SIGINT and SIGTERM; GPU: SIGTERM, the pre-emption signal).
#[test]
fn signals_stop_with_a_checkpoint_that_resumes() {
    let mut cases = vec![("-INT", 130, "cpu"), ("-TERM", 143, "cpu")];
    if have_gpu() {
        cases.push(("-TERM", 143, "gpu"));
    }
    for (sig, code, be) in cases {
        let d = dir(&format!("sig{code}{be}"));
        let sc = scene_in(&d);
        let o = interrupt(sig, &d, &sc, be);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(code), "{err}");
        let run = d.join("run");
        for f in ["checkpoint.bin", "final.csv", "summary.json"] {
            assert!(run.join(f).exists(), "{sig}: no {f}");
        }
        let sum: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(sum["status"], "interrupted");
        let at = sum["steps"].as_u64().unwrap();
        let line = err
            .lines()
            .find(|l| l.contains("resume with: "))
            .expect(&err);
        assert!(line.contains(&format!("at step {at}")), "{line}");
        let cmd = line.split("resume with: ").nth(1).unwrap();
        assert!(
            cmd.starts_with("talus run ") && cmd.contains("--resume"),
            "{cmd}"
        );
        // resume as printed (less the long duration, to end soon) ...
        let to = (at + 300).to_string();
        let mut args: Vec<String> = cmd.split_whitespace().skip(1).map(String::from).collect();
        if let Some(k) = args.iter().position(|a| a == "--duration") {
            args.drain(k..k + 2);
        }
        args.extend(["--steps".into(), to.clone(), "--quiet".into()]);
        let args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
        ok(&talus(&args));
        // ... against a straight run to the same step
        let straight = d.join("straight");
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            be,
            "--steps",
            &to,
            "--out",
            s(&straight),
            "--quiet",
        ]));
        let f = |p: &Path| std::fs::read(p.join("final.csv")).unwrap();
        assert!(
            f(&run) == f(&straight),
            "{be} {sig}: final.csv differs after resuming"
        );
    }
}

/// Every bad checkpoint gets one line that says what and how to go on,
/// and no state is read: none there, truncated, a flipped byte, another
/// version, another scene (unless --force), a run already past --steps.
#[test]
fn bad_checkpoints_are_refused_in_one_line() {
    let d = dir("bad");
    let sc = scene_in(&d);
    let run = d.join("run");
    let one_line = |o: &Output, want: &str| {
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(e.trim().lines().count(), 1, "{e}");
        assert!(e.contains(want), "expected '{want}' in: {e}");
        assert!(!e.contains("panicked"), "{e}");
    };
    let resume = |steps: &str| {
        talus(&[
            "run",
            s(&sc),
            "--resume",
            s(&run),
            "--steps",
            steps,
            "--backend",
            "cpu",
        ])
    };
    one_line(&resume("400"), "no checkpoint here");
    ok(&talus(&[
        "run",
        s(&sc),
        "--backend",
        "cpu",
        "--steps",
        "200",
        "--out",
        s(&run),
        "--quiet",
    ]));
    let ck = run.join("checkpoint.bin");
    let good = std::fs::read(&ck).unwrap();
    one_line(&resume("100"), "already at step 200");
    std::fs::write(&ck, &good[..good.len() / 3]).unwrap();
    one_line(&resume("400"), "truncated");
    let mut bad = good.clone();
    let k = bad.len() / 2;
    bad[k] ^= 1;
    std::fs::write(&ck, &bad).unwrap();
    one_line(&resume("400"), "checksum");
    let mut v = good.clone();
    v[8] = 7;
    std::fs::write(&ck, &v).unwrap();
    one_line(&resume("400"), "format version 7");
    std::fs::write(&ck, &good).unwrap();
    // the scene file edited: refused, then accepted with --force
    std::fs::write(&sc, SCENE.replace("friction = 0.3", "friction = 0.4")).unwrap();
    one_line(&resume("400"), "--force");
    ok(&talus(&[
        "run",
        s(&sc),
        "--resume",
        s(&run),
        "--steps",
        "400",
        "--backend",
        "cpu",
        "--force",
        "--quiet",
    ]));
}

/// Waits (up to a minute) until `done` says so.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !done() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{what}: not after a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A run folder holds one run: a fresh run removes what an earlier run
/// wrote there (its checkpoint first, its later snapshots, never a file
/// talus did not write) and says so; a second run into a folder in use is
/// refused naming the first, touching nothing; a run killed with SIGKILL
/// before its first checkpoint cannot `--resume` the earlier run's (it is
/// gone), and its lock is taken over by the next run; a checkpoint resumes
/// only onto the tables its own run wrote.
#[test]
fn a_run_folder_holds_one_run_at_a_time() {
    let d = dir("folder");
    let sc = scene_in(&d);
    let out = d.join("run");
    let short = |extra: &[&str]| {
        let mut args = vec!["run", s(&sc), "--backend", "cpu", "--out", s(&out)];
        args.extend_from_slice(extra);
        talus(&args)
    };
    ok(&short(&["--duration", "0.02", "--quiet"]));
    assert!(out.join("checkpoint.bin").exists() && out.join("particles_00010.vtu").exists());
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    // a long run into the same folder, killed before its first checkpoint;
    // at a hundredth of the step, so that its own snapshot 10 comes ~8·10⁴
    // steps after its third energy row (at the scene's step it came ~800
    // steps after, and a poll that lagged behind on a loaded machine found
    // the folder's particles_00010.vtu written again, for good)
    let sc_long = d.join("pour_long.toml");
    std::fs::write(&sc_long, SCENE.replace("dt = 2e-5", "dt = 2e-7")).unwrap();
    let mut long = Command::new(BIN)
        .args([
            "run",
            s(&sc_long),
            "--backend",
            "cpu",
            "--duration",
            "100",
            "--out",
            s(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // it has claimed the folder, cleared it and written rows of its own
    wait_until("the second run starts", || {
        out.join("talus.lock").exists()
            && !out.join("particles_00010.vtu").exists()
            && std::fs::read_to_string(out.join("energy.csv")).is_ok_and(|t| t.lines().count() > 2)
    });
    assert!(
        !out.join("checkpoint.bin").exists(),
        "the earlier run's checkpoint is removed first"
    );
    assert!(!out.join("particles_00010.vtu").exists() && !out.join("summary.json").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    // a second run while the first writes: refused, nothing touched
    let before = std::fs::read(out.join("particles_00000.vtu")).unwrap();
    let busy = short(&["--duration", "0.02"]);
    assert!(!busy.status.success());
    let err = String::from_utf8_lossy(&busy.stderr);
    assert!(
        err.contains(&format!("the run of pid {}", long.id())),
        "{err}"
    );
    assert!(err.contains("is writing into this folder"), "{err}");
    assert_eq!(
        std::fs::read(out.join("particles_00000.vtu")).unwrap(),
        before
    );
    let pid = long.id();
    long.kill().unwrap();
    let killed = long.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&killed.stderr);
    assert!(
        said.contains("removed")
            && said.contains("an earlier run left in")
            && said.contains("checkpoint.bin"),
        "{said}"
    );
    assert!(out.join("talus.lock").exists(), "SIGKILL leaves the lock");
    // nothing to resume: the earlier run's checkpoint is gone
    let resumed = talus(&["run", s(&sc), "--resume", s(&out), "--duration", "0.04"]);
    assert!(!resumed.status.success());
    assert!(
        String::from_utf8_lossy(&resumed.stderr).contains("no checkpoint here"),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    // the next run takes the dead run's lock over, and releases its own
    let next = short(&["--duration", "0.02"]);
    ok(&next);
    let said = String::from_utf8_lossy(&next.stderr);
    assert!(
        said.contains(&format!("took over the lock of the run of pid {pid}")),
        "{said}"
    );
    assert!(!out.join("talus.lock").exists(), "released at the end");
    // a checkpoint continues only the tables of its own run
    let energy = std::fs::read_to_string(out.join("energy.csv")).unwrap();
    let mut other = energy.clone();
    let k = other.find('\n').unwrap() + 3;
    let c = if &other[k..k + 1] == "9" { "8" } else { "9" };
    other.replace_range(k..k + 1, c);
    std::fs::write(out.join("energy.csv"), &other).unwrap();
    let foreign = talus(&["run", s(&sc), "--resume", s(&out), "--duration", "0.04"]);
    assert!(!foreign.status.success());
    let err = String::from_utf8_lossy(&foreign.stderr);
    assert!(
        err.contains("energy.csv")
            && err.contains("not the files of the run this checkpoint continues"),
        "{err}"
    );
    std::fs::write(out.join("energy.csv"), &energy[..energy.len() / 2]).unwrap();
    let short_table = talus(&["run", s(&sc), "--resume", s(&out), "--duration", "0.04"]);
    let err = String::from_utf8_lossy(&short_table.stderr);
    assert!(
        !short_table.status.success() && err.contains("the checkpoint's run had written"),
        "{err}"
    );
    // put back, it resumes
    std::fs::write(out.join("energy.csv"), &energy).unwrap();
    ok(&talus(&[
        "run",
        s(&sc),
        "--resume",
        s(&out),
        "--duration",
        "0.04",
        "--quiet",
    ]));
    let _ = std::fs::remove_dir_all(&d);
}

/// `--force` with a scene changed since the checkpoint: a material added
/// before "glass" leaves the beads glass (materials follow their names,
/// on either path), a material renamed away or a wall added is refused in
/// the scene's words.
#[test]
fn force_follows_materials_by_name() {
    let d = dir("force");
    let sc = scene_in(&d);
    let mut backends = vec!["cpu"];
    if have_gpu() {
        backends.push("gpu");
    }
    let steel = "[[materials]]\nname = \"steel\"\ndensity = 7800.0\nyoungs_modulus = 2.0e7\npoisson_ratio = 0.3\nrestitution = 0.6\nfriction = 0.2\n\n[[materials]]\nname = \"glass\"";
    for be in backends {
        let out = d.join(be);
        std::fs::write(&sc, SCENE).unwrap();
        ok(&talus(&[
            "run",
            s(&sc),
            "--backend",
            be,
            "--duration",
            "0.01",
            "--out",
            s(&out),
            "--quiet",
        ]));
        let resume = |text: &str| {
            std::fs::write(&sc, text).unwrap();
            talus(&[
                "run",
                s(&sc),
                "--resume",
                s(&out),
                "--force",
                "--duration",
                "0.02",
            ])
        };
        let err = |o: &Output| String::from_utf8_lossy(&o.stderr).to_string();
        // renamed away: refused
        let o = resume(&SCENE.replace("\"glass\"", "\"beads\""));
        assert!(!o.status.success());
        assert!(
            err(&o).contains("material \"glass\" is not in the scene (it has \"beads\")"),
            "{}",
            err(&o)
        );
        // a wall more: refused in the scene's words
        let o = resume(&format!(
            "{SCENE}\n[[walls]]\ntype = \"plane\"\npoint = [0.0, 0.0, 0.04]\nnormal = [0.0, 0.0, -1.0]\nmaterial = \"glass\"\n"
        ));
        assert!(!o.status.success());
        assert!(
            err(&o).contains("had 5 walls") && err(&o).contains("the scene has 6"),
            "{}",
            err(&o)
        );
        // steel before glass: the beads stay glass
        let o = resume(&SCENE.replacen("[[materials]]\nname = \"glass\"", steel, 1));
        ok(&o);
        assert!(err(&o).contains("\"glass\" 0 → 1"), "{}", err(&o));
        let fin = std::fs::read_to_string(out.join("final.csv")).unwrap();
        let rows: Vec<&str> = fin.lines().skip(1).collect();
        assert!(!rows.is_empty());
        let glass = |r: &&str| r.split(',').nth(10) == Some("glass");
        assert!(
            rows.iter().all(glass),
            "{be}: {}",
            rows.iter().find(|r| !glass(r)).unwrap()
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A bonded chain held at one end (its root bond breaking as the chain
/// first swings down): `bonds.csv` counts the break, `bonds_NNNNN.vtu`
/// draws each intact bond as a line with its loads, and a run cut and
/// resumed writes the same bytes as the straight one (bonds.csv and
/// bonds.pvd too), on each backend.
#[test]
fn bonded_runs_write_their_bonds_and_resume_exactly() {
    let mut backends = vec!["cpu"];
    if have_gpu() {
        backends.push("gpu");
    }
    let mut csv = String::from("x,y,z,vx,vy,vz,wx,wy,wz,radius,material\n");
    for k in 0..11 {
        csv += &format!(
            "{},0.01,0.02,0,0,0,0,0,0,0.001,rock\n",
            0.005 + 0.002 * k as f64
        );
    }
    // the root bond carries ~1.4e4 Pa when the chain hangs still, about
    // twice that at the bottom of its first swing
    let scene = r#"
[simulation]
duration = 0.01
dt = "auto"
gravity = [0.0, 0.0, -9.81]
output_interval = 2.0e-4

[domain]
min = [0.0, 0.0, 0.0]
max = [0.04, 0.02, 0.04]

[[materials]]
name = "rock"
density = 2500.0
youngs_modulus = 1.0e8
poisson_ratio = 0.25
restitution = 0.5
friction = 0.5

[[particles]]
file = "chain.csv"

[[fixed]]
region = { min = [0.0, 0.0, 0.0], max = [0.0055, 0.02, 0.04] }

[[bonds]]
materials = ["rock", "rock"]
gap = 1.0e-6
youngs_modulus = 1.0e8
tensile_strength = 2.0e4
"#;
    for be in backends {
        let d = dir(&format!("bonds-{be}"));
        std::fs::write(d.join("chain.csv"), &csv).unwrap();
        let sc = d.join("chain.toml");
        std::fs::write(&sc, scene).unwrap();
        let (a, b) = (d.join("straight"), d.join("cut"));
        let run = |steps: &str, out: &Path, resume: bool| {
            let mut args = vec!["run", s(&sc), "--backend", be, "--steps", steps, "--quiet"];
            args.extend(if resume {
                ["--resume", s(out)]
            } else {
                ["--out", s(out)]
            });
            ok(&talus(&args));
        };
        run("8000", &a, false);
        run("4000", &b, false);
        run("8000", &b, true);
        for f in [
            "final.csv",
            "energy.csv",
            "bonds.csv",
            "bonds.pvd",
            "particles.pvd",
        ] {
            let (x, y) = (
                std::fs::read(a.join(f)).unwrap(),
                std::fs::read(b.join(f)).unwrap(),
            );
            assert!(
                x == y,
                "{be}: {f} differs between the straight and the resumed run"
            );
        }
        let rows = std::fs::read_to_string(a.join("bonds.csv")).unwrap();
        let mut lines = rows.lines();
        assert_eq!(
            lines.next(),
            Some("t,intact,broken,broken_tension,broken_shear,gone")
        );
        let first: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(&first[1..], ["10", "0", "0", "0", "0"], "{be}: {rows}");
        let last: Vec<u64> = rows
            .lines()
            .last()
            .unwrap()
            .split(',')
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect();
        assert!(
            last[1] >= 1 && last[1] == last[2] + last[3] && last[0] + last[1] + last[4] == 10,
            "{be}: the root bond should have broken: {rows}"
        );
        let v = talus::io::vtk::read_vtu(&a.join("bonds_00000.vtu")).unwrap();
        assert_eq!((v.points, v.cells), (20, 10), "{be}");
        let force = v.cell_data.iter().find(|x| x.name == "normal_force");
        assert!(
            force.is_some_and(|x| x.comps == 1),
            "{be}: {:?}",
            v.cell_data
        );
    }
}
