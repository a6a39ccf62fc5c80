//! Bad user input never panics: the real binary answers with exactly one
//! line, `error: FILE[:LINE]: KEY: what was expected`, and a failing exit
//! status. Every case writes its scene (and CSV) into a fresh temporary
//! directory and runs `talus check` (or `talus run`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A valid scene every case edits: 64 beads on a lattice above a floor.
const BASE: &str = r#"# base scene of tests/bad_input.rs
[simulation]
duration = 0.01
dt = "auto"
gravity = [0.0, 0.0, -9.81]

[domain]
min = [0.0, 0.0, 0.0]
max = [0.01, 0.01, 0.01]
periodic = [false, false, false]

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
region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }
radius = 0.001
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"
"#;

/// The same scene reading its particles from `particles.csv`.
const GENERATOR: &str = r#"generator = "lattice"
region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }
radius = 0.001
material = "glass"
"#;

const CSV: &str = "x,y,z,vx,vy,vz,wx,wy,wz,radius,material
# two beads side by side
0.003,0.005,0.005,0,0,0,0,0,0,0.001,glass
0.007,0.005,0.005,0,0,0,0,0,0,0.001,glass
";

/// A fresh, uniquely named directory under the system temp dir, removed on
/// drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "talus-bad-input-{name}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `text` to `name` in this directory and returns its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `text` with `from` replaced by `to`; `from` must occur exactly once.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "test bug: {from:?} must occur exactly once in the scene"
    );
    text.replacen(from, to, 1)
}

/// 1-based line of the `nth` (0-based) line containing `needle`.
fn nth_line_of(text: &str, needle: &str, nth: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .unwrap_or_else(|| panic!("test bug: {needle:?} not found"))
        .0
        + 1
}

/// 1-based line of the only line containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    let n = text.lines().filter(|l| l.contains(needle)).count();
    assert_eq!(n, 1, "test bug: {needle:?} must be on exactly one line");
    nth_line_of(text, needle, 0)
}

fn talus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_talus"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("cannot start the talus binary")
}

fn check(scene: &Path) -> Output {
    talus(&["check", scene.to_str().unwrap()])
}

/// Asserts the command failed with exactly one non-empty stderr line that
/// starts with `error: FILE:LINE: KEY: ` (`:LINE` left out when `line` is
/// None, `KEY: ` when `key` is empty) and contains every fragment. Returns
/// the line.
fn expect_error(
    out: &Output,
    file: &Path,
    line: Option<usize>,
    key: &str,
    fragments: &[&str],
) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "status {:?}\n--- stderr ---\n{stderr}--- stdout ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!out.status.success(), "expected a failure\n{context}");
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!stderr.contains(bad), "stderr mentions {bad:?}\n{context}");
    }
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one error line\n{context}");
    let msg = lines[0];
    assert!(msg.starts_with("error: "), "{context}");
    let mut prefix = format!("error: {}", file.display());
    if let Some(l) = line {
        prefix += &format!(":{l}");
    }
    prefix += ": ";
    if !key.is_empty() {
        prefix += &format!("{key}: ");
    }
    assert!(
        msg.starts_with(&prefix),
        "expected the line to start with {prefix:?}\n{context}"
    );
    for f in fragments {
        assert!(msg.contains(f), "expected {f:?} in the message\n{context}");
    }
    msg.to_string()
}

/// Writes `scene` as `scene.toml` in a fresh directory, runs `check` and
/// asserts the error names the scene file, `line` and `key`.
fn check_fails(name: &str, scene: &str, line: Option<usize>, key: &str, fragments: &[&str]) {
    let dir = TempDir::new(name);
    let path = dir.write("scene.toml", scene);
    expect_error(&check(&path), &path, line, key, fragments);
}

/// The scene reading its particles from `particles.csv` holding `csv`;
/// asserts the error names the CSV file, `line` and `key`.
fn csv_fails(name: &str, csv: &str, line: usize, key: &str, fragments: &[&str]) {
    let dir = TempDir::new(name);
    let scene = dir.write(
        "scene.toml",
        &edit(BASE, GENERATOR, "file = \"particles.csv\"\n"),
    );
    let csv_path = dir.write("particles.csv", csv);
    let out = check(&scene);
    expect_error(&out, &csv_path, Some(line), key, fragments);
}

// ------------------------------------------------------------------ valid

#[test]
fn base_scenes_of_these_tests_are_valid() {
    let dir = TempDir::new("valid-base");
    let scene = dir.write("scene.toml", BASE);
    let out = check(&scene);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let scene = dir.write(
        "csv.toml",
        &edit(BASE, GENERATOR, "file = \"particles.csv\"\n"),
    );
    dir.write("particles.csv", CSV);
    let out = check(&scene);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn repository_scenes_pass_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["scenes/settle.toml", "scenes/impact.toml"] {
        let out = check(&root.join(name));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert!(stderr.trim().is_empty(), "{name}: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("particles"));
    }
}

#[test]
fn documented_example_passes_check() {
    // the full example of docs/scenes.md stays valid
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/scenes.md")).unwrap();
    let example = doc
        .split("## Example")
        .nth(1)
        .and_then(|s| s.split("```toml\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("docs/scenes.md has an example");
    let dir = TempDir::new("doc-example");
    let out = check(&dir.write("example.toml", example));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ------------------------------------------------------------- structure

#[test]
fn missing_simulation_table() {
    let scene = edit(
        BASE,
        "[simulation]\nduration = 0.01\ndt = \"auto\"\ngravity = [0.0, 0.0, -9.81]\n",
        "",
    );
    check_fails(
        "no-simulation",
        &scene,
        None,
        "simulation",
        &["missing table [simulation]"],
    );
}

#[test]
fn missing_required_key() {
    let scene = edit(BASE, "density = 2500.0\n", "");
    let line = line_of(&scene, "[[materials]]");
    check_fails(
        "missing-density",
        &scene,
        Some(line),
        "materials[0].density",
        &["missing key", "density in kg/m³"],
    );
}

#[test]
fn unknown_key_is_named_with_its_line() {
    let scene = edit(BASE, "density = 2500.0", "densty = 2500.0");
    let line = line_of(&scene, "densty");
    check_fails(
        "typo",
        &scene,
        Some(line),
        "materials[0].densty",
        &["unknown key", "did you mean \"density\"?"],
    );
}

#[test]
fn unknown_table_is_named_with_its_line() {
    let scene = edit(BASE, "[contact]", "[contacts]");
    let line = line_of(&scene, "[contacts]");
    check_fails(
        "typo-table",
        &scene,
        Some(line),
        "contacts",
        &["unknown key", "did you mean \"contact\"?"],
    );
}

#[test]
fn wrong_type() {
    let scene = edit(BASE, "density = 2500.0", "density = \"2500\"");
    let line = line_of(&scene, "density =");
    check_fails(
        "wrong-type",
        &scene,
        Some(line),
        "materials[0].density",
        &["expected a number, found a string"],
    );
}

#[test]
fn invalid_toml_syntax() {
    let scene = edit(BASE, "friction = 0.5", "friction = = 0.5");
    let line = line_of(&scene, "friction = = 0.5");
    check_fails("syntax", &scene, Some(line), "", &["invalid TOML"]);
}

#[test]
fn nonexistent_scene_file() {
    let dir = TempDir::new("no-scene");
    let path = dir.0.join("does-not-exist.toml");
    expect_error(&check(&path), &path, None, "", &["cannot read scene file"]);
}

// -------------------------------------------------------------- materials

#[test]
fn non_positive_density() {
    for v in ["0.0", "-2500.0"] {
        let scene = edit(BASE, "density = 2500.0", &format!("density = {v}"));
        let line = line_of(&scene, "density =");
        check_fails(
            "density",
            &scene,
            Some(line),
            "materials[0].density",
            &["expected a density > 0 kg/m³"],
        );
    }
}

#[test]
fn non_positive_youngs_modulus() {
    for v in ["0.0", "-5.0e6"] {
        let scene = edit(
            BASE,
            "youngs_modulus = 5.0e6",
            &format!("youngs_modulus = {v}"),
        );
        let line = line_of(&scene, "youngs_modulus");
        check_fails(
            "youngs",
            &scene,
            Some(line),
            "materials[0].youngs_modulus",
            &["expected a modulus > 0 Pa"],
        );
    }
}

#[test]
fn restitution_outside_0_1() {
    for v in ["0", "1.5"] {
        let scene = edit(BASE, "restitution = 0.5", &format!("restitution = {v}"));
        let line = line_of(&scene, "restitution");
        check_fails(
            "restitution",
            &scene,
            Some(line),
            "materials[0].restitution",
            &[
                "expected a restitution coefficient in (0, 1]",
                &format!("got {v}"),
            ],
        );
    }
}

#[test]
fn poisson_ratio_outside_range() {
    for v in ["0.5", "-1"] {
        let scene = edit(
            BASE,
            "poisson_ratio = 0.25",
            &format!("poisson_ratio = {v}"),
        );
        let line = line_of(&scene, "poisson_ratio");
        check_fails(
            "poisson",
            &scene,
            Some(line),
            "materials[0].poisson_ratio",
            &["expected a value in (-1, 0.5)", &format!("got {v}")],
        );
    }
}

#[test]
fn negative_friction() {
    let scene = edit(BASE, "friction = 0.5", "friction = -0.1");
    let line = line_of(&scene, "friction = -0.1");
    check_fails(
        "friction",
        &scene,
        Some(line),
        "materials[0].friction",
        &["expected a coefficient >= 0", "got -0.1"],
    );
}

#[test]
fn negative_rolling_friction() {
    let scene = edit(BASE, "rolling_friction = 0.01", "rolling_friction = -0.01");
    let line = line_of(&scene, "rolling_friction");
    check_fails(
        "rolling",
        &scene,
        Some(line),
        "materials[0].rolling_friction",
        &["expected a coefficient >= 0", "got -0.01"],
    );
}

#[test]
fn unknown_material_in_particles() {
    let scene = edit(
        BASE,
        "radius = 0.001\nmaterial = \"glass\"",
        "radius = 0.001\nmaterial = \"steel\"",
    );
    let line = line_of(&scene, "\"steel\"");
    check_fails(
        "material-particles",
        &scene,
        Some(line),
        "particles[0].material",
        &["unknown material \"steel\" (defined: glass)"],
    );
}

#[test]
fn unknown_material_in_walls() {
    let scene = edit(
        BASE,
        "normal = [0.0, 0.0, 1.0]\nmaterial = \"glass\"",
        "normal = [0.0, 0.0, 1.0]\nmaterial = \"steel\"",
    );
    let line = line_of(&scene, "\"steel\"");
    check_fails(
        "material-walls",
        &scene,
        Some(line),
        "walls[0].material",
        &["unknown material \"steel\" (defined: glass)"],
    );
}

// -------------------------------------------------------------- particles

#[test]
fn generator_radius_zero() {
    let scene = edit(BASE, "radius = 0.001", "radius = 0.0");
    let line = line_of(&scene, "radius = 0.0");
    check_fails(
        "radius-zero",
        &scene,
        Some(line),
        "particles[0].radius",
        &["expected a radius > 0 m, got 0"],
    );
}

#[test]
fn csv_radius_negative() {
    let csv = edit(
        CSV,
        "0.007,0.005,0.005,0,0,0,0,0,0,0.001",
        "0.007,0.005,0.005,0,0,0,0,0,0,-1",
    );
    let line = line_of(&csv, ",-1,");
    csv_fails(
        "csv-radius",
        &csv,
        line,
        "column radius",
        &["expected a radius > 0 m, found \"-1\""],
    );
}

#[test]
fn csv_wrong_number_of_columns() {
    let csv = edit(
        CSV,
        "0.007,0.005,0.005,0,0,0,0,0,0,",
        "0.007,0.005,0.005,0,0,0,0,0,",
    );
    let line = line_of(&csv, "0.007,");
    csv_fails(
        "csv-columns",
        &csv,
        line,
        "",
        &[
            "expected 11 columns",
            "x,y,z,vx,vy,vz,wx,wy,wz,radius,material",
            "found 10",
        ],
    );
}

#[test]
fn csv_not_a_number() {
    let csv = edit(CSV, "0.007,0.005,", "0.007,abc,");
    let line = line_of(&csv, "abc");
    csv_fails(
        "csv-nan",
        &csv,
        line,
        "column y",
        &["expected a finite number, found \"abc\""],
    );
}

#[test]
fn csv_unknown_material() {
    let csv = edit(CSV, "0.001,glass\n0.007", "0.001,steel\n0.007");
    let line = line_of(&csv, "steel");
    csv_fails(
        "csv-material",
        &csv,
        line,
        "column material",
        &["unknown material \"steel\" (defined: glass)"],
    );
}

#[test]
fn nonexistent_csv_file() {
    let dir = TempDir::new("no-csv");
    let text = edit(BASE, GENERATOR, "file = \"missing.csv\"\n");
    let scene = dir.write("scene.toml", &text);
    let csv = dir.0.join("missing.csv");
    let csv = csv.display().to_string();
    expect_error(
        &check(&scene),
        &scene,
        Some(line_of(&text, "missing.csv")),
        "particles[0].file",
        &[&csv, "cannot read particle file"],
    );
}

#[test]
fn particles_outside_the_domain() {
    let scene = edit(
        BASE,
        "region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }",
        "region = { min = [0.0, 0.0, 0.02], max = [0.01, 0.01, 0.03] }",
    );
    let line = line_of(&scene, "[[particles]]");
    check_fails(
        "outside",
        &scene,
        Some(line),
        "particles[0]",
        &["is outside the domain", "z = ", "not in [0, 0.01]"],
    );
}

#[test]
fn generated_particles_overlap() {
    // a second lattice over the same region
    let scene = edit(
        BASE,
        "[[walls]]",
        &format!("[[particles]]\n{GENERATOR}\n[[walls]]"),
    );
    let line = nth_line_of(&scene, "[[particles]]", 1);
    check_fails(
        "overlap",
        &scene,
        Some(line),
        "particles[1]",
        &[
            "(particles[0] (lattice))",
            "(particles[1] (lattice)) overlap by",
        ],
    );
}

// ------------------------------------------------------------- simulation

#[test]
fn fixed_dt_above_the_stable_limit() {
    // the limit `check` reports for the valid scene
    let dir = TempDir::new("dt-limit");
    let out = check(&dir.write("scene.toml", BASE));
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let limit = stdout
        .split("stable limit ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .expect("check prints the stable limit")
        .to_string();
    let scene = edit(BASE, "dt = \"auto\"", "dt = 1.0e-3");
    let line = line_of(&scene, "dt = 1.0e-3");
    check_fails(
        "dt",
        &scene,
        Some(line),
        "simulation.dt",
        &[
            "dt = 1e-3 s is above the stable limit",
            &format!("use dt <= {limit} or \"auto\""),
        ],
    );
}

#[test]
fn run_steps_zero() {
    let dir = TempDir::new("steps-zero");
    let scene = dir.write("scene.toml", BASE);
    let out_dir = dir.0.join("out");
    let out = talus(&[
        "run",
        scene.to_str().unwrap(),
        "--steps",
        "0",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    expect_error(&out, &scene, None, "--steps", &["expected at least 1 step"]);
    assert!(!out_dir.exists(), "no output for a refused run");
}

#[test]
fn run_negative_duration() {
    let dir = TempDir::new("duration-negative");
    let scene = dir.write("scene.toml", BASE);
    let out_dir = dir.0.join("out");
    let out = talus(&[
        "run",
        scene.to_str().unwrap(),
        "--duration",
        "-1",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    expect_error(
        &out,
        &scene,
        None,
        "--duration",
        &["expected a time > 0 s, got -1"],
    );
    assert!(!out_dir.exists(), "no output for a refused run");
}

// ---------------------------------------------------------- domain, contact

#[test]
fn domain_max_not_above_min() {
    let scene = edit(
        BASE,
        "max = [0.01, 0.01, 0.01]\nperiodic",
        "max = [0.01, 0.0, 0.01]\nperiodic",
    );
    let line = line_of(&scene, "max = [0.01, 0.0, 0.01]");
    check_fails(
        "domain",
        &scene,
        Some(line),
        "domain.max",
        &["expected max > min on every axis", "y has min 0 and max 0"],
    );
}

#[test]
fn periodic_axis_too_short() {
    // x is 5 mm long: fewer than 3 diameters of 2 mm
    let scene = edit(
        BASE,
        "max = [0.01, 0.01, 0.01]\nperiodic = [false, false, false]",
        "max = [0.005, 0.01, 0.01]\nperiodic = [true, false, false]",
    );
    let scene = edit(
        &scene,
        "region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }",
        "region = { min = [0.0, 0.0, 0.0], max = [0.005, 0.01, 0.01] }",
    );
    let line = line_of(&scene, "periodic =");
    check_fails(
        "periodic",
        &scene,
        Some(line),
        "domain.periodic",
        &[
            "periodic axis x is 0.005 m long",
            "at least 3 × (the largest diameter + the neighbour skin)",
        ],
    );
}

/// The key of the old per-particle history slots is refused with what
/// replaced it, not as an unknown key.
#[test]
fn history_slots_is_gone() {
    let scene = edit(BASE, "[contact]\n", "[contact]\nhistory_slots = 16\n");
    let line = line_of(&scene, "history_slots");
    check_fails(
        "slots",
        &scene,
        Some(line),
        "contact.history_slots",
        &["no longer used: tangential history is kept per neighbour pair"],
    );
}

#[test]
fn bad_neighbour_skin() {
    for (value, want) in [
        (
            "-0.0001",
            "expected a length > 0 m or \"auto\", got -0.0001",
        ),
        ("\"wide\"", "expected a length in metres or \"auto\""),
    ] {
        let scene = edit(
            BASE,
            "gravity = [0.0, 0.0, -9.81]",
            &format!("gravity = [0.0, 0.0, -9.81]\nneighbour_skin = {value}"),
        );
        let line = line_of(&scene, "neighbour_skin");
        check_fails(
            "skin",
            &scene,
            Some(line),
            "simulation.neighbour_skin",
            &[want],
        );
    }
}

#[test]
fn linear_model_without_stiffness_or_contact_time() {
    let scene = edit(BASE, "model = \"hertz_mindlin\"", "model = \"linear\"");
    let line = line_of(&scene, "[contact]");
    check_fails(
        "linear",
        &scene,
        Some(line),
        "contact.stiffness",
        &["the linear model needs stiffness = <N/m> or contact_time = <s>"],
    );
}

// ------------------------------------------------------------------ other

#[test]
fn csv_with_a_byte_order_mark_is_read() {
    // spreadsheets save UTF-8 CSV with a BOM before the header
    let dir = TempDir::new("csv-bom");
    let scene = dir.write(
        "scene.toml",
        &edit(BASE, GENERATOR, "file = \"particles.csv\"\n"),
    );
    dir.write("particles.csv", &format!("\u{feff}{CSV}"));
    let out = check(&scene);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_into_a_closed_pipe_does_not_panic() {
    // `talus check scene.toml | head -1`
    let dir = TempDir::new("closed-pipe");
    let scene = dir.write("scene.toml", BASE);
    let mut child = Command::new(env!("CARGO_BIN_EXE_talus"))
        .args(["check", scene.to_str().unwrap()])
        .env_remove("RUST_BACKTRACE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{stderr}");
}
