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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // every scene shipped, not a list kept by hand
    let mut names: Vec<_> = std::fs::read_dir(root.join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for path in names {
        let name = path.display();
        let out = check(&path);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert!(stderr.trim().is_empty(), "{name}: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("particles"));
    }
}

#[test]
fn documented_example_passes_check() {
    // the full example of docs/scenes.md stays valid
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
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

/// final.csv's `id` column read back: a repeated id (both lines named),
/// one out of range, and rows without it once the first had one.
#[test]
fn csv_ids_repeated_out_of_range_or_missing() {
    let with_ids = "x,y,z,vx,vy,vz,wx,wy,wz,radius,material,id
0.003,0.005,0.005,0,0,0,0,0,0,0.001,glass,7
0.007,0.005,0.005,0,0,0,0,0,0,0.001,glass,7
";
    csv_fails(
        "csv-id-twice",
        with_ids,
        3,
        "column id",
        &["id 7 is given twice (line 2 and here)"],
    );
    let big = edit(with_ids, "glass,7\n0.007", "glass,4294967295\n0.007");
    csv_fails(
        "csv-id-range",
        &big,
        2,
        "column id",
        &["expected an id from 0 to 2147483647, found \"4294967295\""],
    );
    let missing = edit(with_ids, "0.001,glass,7\n0.007", "0.001,glass,3\n0.007");
    let missing = edit(&missing, "0.001,glass,7\n", "0.001,glass\n");
    csv_fails(
        "csv-id-missing",
        &missing,
        3,
        "",
        &["expected 12 columns (x,y,z,vx,vy,vz,wx,wy,wz,radius,material,id), found 11"],
    );
    // and a good file with ids is accepted
    let dir = TempDir::new("csv-id-ok");
    let ok = edit(with_ids, "0.001,glass,7\n0.007", "0.001,glass,3\n0.007");
    let scene = dir.write(
        "scene.toml",
        &edit(BASE, GENERATOR, "file = \"particles.csv\"\n"),
    );
    dir.write("particles.csv", &ok);
    let out = check(&scene);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
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

/// 10⁵ copies of one CSV row: the overlap check names the first pair
/// (particles 0 and 1) and stops there. It collected every touching pair
/// first: ~5·10⁹ here, more memory than the machine has (issue 35: 10⁶
/// duplicate rows ran out of memory, 2·10⁴ took 8 s).
#[test]
fn many_copies_of_one_row_are_refused_at_the_first_pair() {
    let row = "0.005,0.005,0.005,0,0,0,0,0,0,0.001,glass\n";
    let csv = format!(
        "x,y,z,vx,vy,vz,wx,wy,wz,radius,material\n{}",
        row.repeat(100_000)
    );
    let dir = TempDir::new("csv-copies");
    let text = edit(BASE, GENERATOR, "file = \"particles.csv\"\n");
    let scene = dir.write("scene.toml", &text);
    dir.write("particles.csv", &csv);
    expect_error(
        &check(&scene),
        &scene,
        Some(line_of(&text, "[[particles]]")),
        "particles[0]",
        &["particles 0 (", "and 1 (", "overlap by 2e-3 m"],
    );
}

/// The random generator asked for ~130× what its region holds is refused
/// before any try, with about how many fit (0.38 of the region's 10⁻⁶ m³
/// in spheres of 1 mm: 90). It searched 2.4·10⁶ tries first (issue 35:
/// 4·10⁸ for a larger count).
#[test]
fn random_generator_asked_for_far_too_many() {
    let scene = edit(
        BASE,
        GENERATOR,
        "generator = \"random\"\ncount = 12000\nregion = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }\nradius = 0.001\nmaterial = \"glass\"\n",
    );
    let line = line_of(&scene, "count = 12000");
    check_fails(
        "random-overfull",
        &scene,
        Some(line),
        "particles[0].count",
        &[
            "count = 12000 asks for a solid fraction of 50.265 in the region",
            "about 90 of these particles fit",
        ],
    );
}

// ------------------------------------------------------------- simulation

/// Extreme radii give an automatic time step of 0: refused at `dt` (the
/// run counted 18446744073709551615 steps of nothing and then failed at
/// step 0 with "dt too large"), and a run of more than 2⁵³ steps at its
/// `steps`.
#[test]
fn time_steps_of_nothing_and_runs_without_end() {
    let tiny = edit(BASE, "radius = 0.001", "radius = 1e-300").replace(
        "region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }",
        "region = { min = [0.0, 0.0, 0.0], max = [1e-299, 1e-299, 1e-299] }",
    );
    check_fails(
        "dt-zero",
        &tiny,
        Some(line_of(&tiny, "dt = \"auto\"")),
        "simulation.dt",
        &["dt = 0e0 s: the time step must be finite and > 0 (\"auto\""],
    );
    let endless = edit(BASE, "duration = 0.01", "steps = 9007199254740993");
    check_fails(
        "steps-2-53",
        &endless,
        Some(line_of(&endless, "steps = 9007199254740993")),
        "simulation.steps",
        &[
            "the run would take 9007199254740993 steps",
            "more than 9007199254740992",
        ],
    );
}

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

/// `talus run` of the base scene with `flag value`: refused in one line
/// naming `flag` and holding `fragments`, before any output is written.
fn run_flag_refused(name: &str, flag: &str, value: &str, fragments: &[&str]) {
    let dir = TempDir::new(name);
    let scene = dir.write("scene.toml", BASE);
    let out_dir = dir.0.join("out");
    let out = talus(&[
        "run",
        scene.to_str().unwrap(),
        flag,
        value,
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    expect_error(&out, &scene, None, flag, fragments);
    assert!(!out_dir.exists(), "no output for a refused run");
}

#[test]
fn run_steps_zero() {
    run_flag_refused("steps-zero", "--steps", "0", &["expected at least 1 step"]);
}

#[test]
fn run_negative_duration() {
    run_flag_refused(
        "duration-negative",
        "--duration",
        "-1",
        &["expected a time > 0 s, got -1"],
    );
}

/// A duration shorter than one time step ran no step and ended `ok`
/// (issue 35): refused, from the command line and from the file, by `run`
/// and `check` alike.
#[test]
fn run_duration_below_one_step() {
    run_flag_refused(
        "duration-tiny",
        "--duration",
        "1e-30",
        &[
            "1e-30 s is shorter than one time step",
            "would take no step",
        ],
    );
    let tiny = edit(BASE, "duration = 0.01", "duration = 1e-30");
    let line = line_of(&tiny, "duration = 1e-30");
    check_fails(
        "tiny duration",
        &tiny,
        Some(line),
        "simulation.duration",
        &["shorter than one time step"],
    );
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
    // x is 3.5 mm long: fewer than 2 diameters of 2 mm
    let scene = edit(
        BASE,
        "max = [0.01, 0.01, 0.01]\nperiodic = [false, false, false]",
        "max = [0.0035, 0.01, 0.01]\nperiodic = [true, false, false]",
    );
    let scene = edit(
        &scene,
        "region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }",
        "region = { min = [0.0, 0.0, 0.0], max = [0.0035, 0.01, 0.01] }",
    );
    let line = line_of(&scene, "periodic =");
    check_fails(
        "periodic",
        &scene,
        Some(line),
        "domain.periodic",
        &[
            "periodic axis x is 0.0035 m long",
            "at least 2 × (the largest diameter + the neighbour skin)",
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
fn bad_grid_levels() {
    for (value, want) in [
        (
            "0",
            "expected \"auto\" or a number of levels from 1 to 8, got 0",
        ),
        (
            "9",
            "expected \"auto\" or a number of levels from 1 to 8, got 9",
        ),
        (
            "\"many\"",
            "expected \"auto\" or a number of levels from 1 to 8",
        ),
        ("2.5", "expected \"auto\" or a number of levels from 1 to 8"),
    ] {
        let scene = edit(
            BASE,
            "gravity = [0.0, 0.0, -9.81]",
            &format!("gravity = [0.0, 0.0, -9.81]\ngrid_levels = {value}"),
        );
        let line = line_of(&scene, "grid_levels");
        check_fails(
            "levels",
            &scene,
            Some(line),
            "simulation.grid_levels",
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

// ------------------------------------------------------------------ walls

/// Walls of every other kind, appended to [`BASE`] (whose floor is
/// `walls[0]`): a rotating, oscillating drum (`walls[1]`), a cone with a
/// servo (`walls[2]`) and the mesh `mesh.stl` (`walls[3]`, [`SQUARE_STL`]
/// in mm, turned and moved into the domain).
const WALLS: &str = r#"
[[walls]]
type = "cylinder"
name = "drum"
center = [0.005, 0.005, 0.0]
axis = [0.0, 0.0, 1.0]
radius = 0.02
length = 0.01
side = "inside"
material = "glass"

[walls.motion]
axis_point = [0.005, 0.005, 0.0]
axis = [0.0, 1.0, 0.0]
angular_velocity = 3.0
oscillation = { amplitude = 0.001, frequency = 4.0, direction = [1.0, 0.0, 0.0] }
start = 0.0
stop = 1.0

[[walls]]
type = "cone"
center = [0.005, 0.005, -0.001]
axis = [0.0, 0.0, 2.0]
radius = [0.02, 0.03]
length = 0.012
material = "glass"

[walls.servo]
force = 100.0
max_speed = 0.05
direction = [0.0, 0.0, -1.0]

[[walls]]
type = "mesh"
file = "mesh.stl"
scale = 0.001
translate = [0.01, 0.0, 0.0]
rotate = { axis = [0.0, 0.0, 1.0], angle_deg = 90.0 }
material = "glass"
"#;

/// A 10 × 10 square at z = 0 (two triangles), ASCII STL.
const SQUARE_STL: &str = "solid square
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 10 0 0
vertex 10 10 0
endloop
endfacet
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 10 10 0
vertex 0 10 0
endloop
endfacet
endsolid square
";

fn walls_scene() -> String {
    format!("{BASE}{WALLS}")
}

/// `scene` with `mesh.stl` (and any `files`) beside it; asserts the error
/// of `check` names the scene file, `line` and `key`.
fn walls_fail(
    name: &str,
    scene: &str,
    files: &[(&str, &[u8])],
    line: Option<usize>,
    key: &str,
    fragments: &[&str],
) -> String {
    let dir = TempDir::new(name);
    dir.write("mesh.stl", SQUARE_STL);
    for (f, bytes) in files {
        std::fs::write(dir.0.join(f), bytes).unwrap();
    }
    let path = dir.write("scene.toml", scene);
    expect_error(&check(&path), &path, line, key, fragments)
}

/// [`walls_scene`] with `from` replaced by `to`, then the error expected at
/// the line holding `at` (after the edit).
fn wall_edit_fails(name: &str, from: &str, to: &str, at: &str, key: &str, fragments: &[&str]) {
    let scene = edit(&walls_scene(), from, to);
    let line = line_of(&scene, at);
    walls_fail(name, &scene, &[], Some(line), key, fragments);
}

/// A binary STL of `tris` (f32 little-endian, normals zero).
fn binary_stl(tris: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = b"solid but binary".to_vec();
    b.resize(80, b' ');
    b.extend((tris.len() as u32).to_le_bytes());
    for t in tris {
        b.extend([0u8; 12]);
        for v in t {
            for c in v {
                b.extend(c.to_le_bytes());
            }
        }
        b.extend([0u8; 2]);
    }
    b
}

#[test]
fn every_wall_kind_passes_check_and_is_listed() {
    let dir = TempDir::new("walls-valid");
    dir.write("mesh.stl", SQUARE_STL);
    let out = check(&dir.write("scene.toml", &walls_scene()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "walls        4",
        "[0] wall0: plane, box infinite, glass, fixed",
        "[1] drum: cylinder (inside), box [-0.015, -0.015, 0] .. [0.025, 0.025, 0.01] m, glass, rotates 3 rad/s about [0, 1, 0] through [0.005, 0.005, 0]; oscillates 1 mm at 4 Hz along [1, 0, 0]; from 0 s to 1 s",
        "[2] wall2: cone (inside), box",
        "servo 100 N ≤ 0.05 m/s along [0, 0, -1]",
        "(2 triangles), box [0, 0, 0] .. [0.01, 0.01, 0] m, glass, fixed",
    ] {
        assert!(stdout.contains(want), "{want:?} not in\n{stdout}");
    }
}

#[test]
fn unknown_wall_type() {
    wall_edit_fails(
        "wall-type",
        "type = \"cone\"",
        "type = \"sphere\"",
        "\"sphere\"",
        "walls[2].type",
        &[
            "unknown wall type \"sphere\"",
            "\"plane\", \"cylinder\", \"cone\" or \"mesh\"",
        ],
    );
}

#[test]
fn key_of_another_wall_type() {
    // a plane has no radius
    let scene = edit(
        &walls_scene(),
        "normal = [0.0, 0.0, 1.0]\n",
        "normal = [0.0, 0.0, 1.0]\nradius = 0.1\n",
    );
    let line = line_of(&scene, "radius = 0.1");
    walls_fail(
        "plane-radius",
        &scene,
        &[],
        Some(line),
        "walls[0].radius",
        &["unknown key", "normal, point"],
    );
}

#[test]
fn zero_plane_normal() {
    let scene = edit(BASE, "normal = [0.0, 0.0, 1.0]", "normal = [0.0, 0.0, 0.0]");
    let line = line_of(&scene, "normal =");
    check_fails(
        "zero-normal",
        &scene,
        Some(line),
        "walls[0].normal",
        &["expected a non-zero normal vector"],
    );
}

#[test]
fn zero_cylinder_and_cone_axis() {
    wall_edit_fails(
        "zero-axis-cyl",
        "axis = [0.0, 0.0, 1.0]\nradius = 0.02",
        "axis = [0.0, 0.0, 0.0]\nradius = 0.02",
        "axis = [0.0, 0.0, 0.0]",
        "walls[1].axis",
        &["expected a non-zero axis vector"],
    );
    wall_edit_fails(
        "zero-axis-cone",
        "axis = [0.0, 0.0, 2.0]",
        "axis = [0.0, 0.0, 0.0]",
        "axis = [0.0, 0.0, 0.0]",
        "walls[2].axis",
        &["expected a non-zero axis vector"],
    );
}

#[test]
fn zero_motion_axis_and_directions() {
    wall_edit_fails(
        "zero-motion-axis",
        "axis = [0.0, 1.0, 0.0]",
        "axis = [0.0, 0.0, 0.0]",
        "axis = [0.0, 0.0, 0.0]",
        "walls[1].motion.axis",
        &["expected a non-zero rotation axis vector"],
    );
    wall_edit_fails(
        "zero-oscillation-direction",
        "direction = [1.0, 0.0, 0.0]",
        "direction = [0.0, 0.0, 0.0]",
        "oscillation =",
        "walls[1].motion.oscillation.direction",
        &["expected a non-zero direction vector"],
    );
    wall_edit_fails(
        "zero-servo-direction",
        "direction = [0.0, 0.0, -1.0]",
        "direction = [0.0, 0.0, 0.0]",
        "direction = [0.0, 0.0, 0.0]",
        "walls[2].servo.direction",
        &["expected a non-zero direction vector"],
    );
}

#[test]
fn non_positive_cylinder_radius_and_length() {
    // "0.000": "radius = 0.0" would also match "radius = 0.001"
    for (v, got) in [("0.000", "got 0"), ("-0.02", "got -0.02")] {
        wall_edit_fails(
            "cyl-radius",
            "radius = 0.02\n",
            &format!("radius = {v}\n"),
            &format!("radius = {v}"),
            "walls[1].radius",
            &["expected a radius > 0 m", got],
        );
        wall_edit_fails(
            "cyl-length",
            "length = 0.01\n",
            &format!("length = {v}\n"),
            &format!("length = {v}"),
            "walls[1].length",
            &["expected a length > 0 m", got],
        );
    }
}

#[test]
fn non_positive_cone_length() {
    wall_edit_fails(
        "cone-length",
        "length = 0.012",
        "length = -0.012",
        "length = -0.012",
        "walls[2].length",
        &["expected a length > 0 m", "got -0.012"],
    );
}

#[test]
fn bad_cone_radii() {
    for v in ["[0.0, 0.0]", "[-0.01, 0.03]"] {
        wall_edit_fails(
            "cone-radii",
            "radius = [0.02, 0.03]",
            &format!("radius = {v}"),
            &format!("radius = {v}"),
            "walls[2].radius",
            &["expected two radii >= 0 m, not both zero"],
        );
    }
    wall_edit_fails(
        "cone-one-radius",
        "radius = [0.02, 0.03]",
        "radius = [0.02]",
        "radius = [0.02]",
        "walls[2].radius",
        &["expected 2 radii [r0, r1]", "found 1 values"],
    );
}

#[test]
fn unknown_side() {
    wall_edit_fails(
        "side",
        "side = \"inside\"",
        "side = \"in\"",
        "side = \"in\"",
        "walls[1].side",
        &["unknown side \"in\" (expected \"inside\" or \"outside\")"],
    );
}

#[test]
fn servo_without_force_or_direction_and_with_bad_speed() {
    let scene = edit(&walls_scene(), "force = 100.0\n", "");
    let line = line_of(&scene, "[walls.servo]");
    walls_fail(
        "servo-force",
        &scene,
        &[],
        Some(line),
        "walls[2].servo.force",
        &["missing key (expected a force in N)"],
    );
    // only a plane's servo has a default direction
    let scene = edit(&walls_scene(), "direction = [0.0, 0.0, -1.0]\n", "");
    let line = line_of(&scene, "[walls.servo]");
    walls_fail(
        "servo-direction",
        &scene,
        &[],
        Some(line),
        "walls[2].servo.direction",
        &["missing key", "only a plane's servo defaults to its normal"],
    );
    for v in ["0.0", "-0.05"] {
        wall_edit_fails(
            "servo-speed",
            "max_speed = 0.05",
            &format!("max_speed = {v}"),
            "max_speed",
            "walls[2].servo.max_speed",
            &["expected a speed > 0 m/s"],
        );
    }
    wall_edit_fails(
        "servo-negative-force",
        "force = 100.0",
        "force = -100.0",
        "force = -100.0",
        "walls[2].servo.force",
        &["expected a target force > 0 N, got -100"],
    );
}

#[test]
fn negative_oscillation() {
    wall_edit_fails(
        "oscillation-amplitude",
        "amplitude = 0.001",
        "amplitude = -0.001",
        "oscillation =",
        "walls[1].motion.oscillation.amplitude",
        &["expected an amplitude >= 0 m, got -0.001"],
    );
    wall_edit_fails(
        "oscillation-frequency",
        "frequency = 4.0",
        "frequency = -4.0",
        "oscillation =",
        "walls[1].motion.oscillation.frequency",
        &["expected a frequency >= 0 Hz, got -4"],
    );
}

#[test]
fn motion_stops_before_it_starts() {
    wall_edit_fails(
        "stop-before-start",
        "start = 0.0",
        "start = 2.0",
        "stop = 1.0",
        "walls[1].motion.stop",
        &["expected stop >= start", "start = 2 s and stop = 1 s"],
    );
}

#[test]
fn unknown_keys_in_wall_sub_tables() {
    wall_edit_fails(
        "motion-key",
        "angular_velocity = 3.0",
        "angular_velocty = 3.0",
        "angular_velocty",
        "walls[1].motion.angular_velocty",
        &["unknown key", "did you mean \"angular_velocity\"?"],
    );
    wall_edit_fails(
        "servo-key",
        "max_speed = 0.05",
        "max_sped = 0.05",
        "max_sped",
        "walls[2].servo.max_sped",
        &["unknown key", "did you mean \"max_speed\"?"],
    );
    wall_edit_fails(
        "rotate-key",
        "angle_deg = 90.0",
        "angle = 90.0",
        "angle = 90.0",
        "walls[3].rotate.angle",
        &["unknown key", "known keys here: axis, angle_deg"],
    );
    wall_edit_fails(
        "oscillation-key",
        "frequency = 4.0",
        "freq = 4.0",
        "freq = 4.0",
        "walls[1].motion.oscillation.freq",
        &[
            "unknown key",
            "known keys here: amplitude, frequency, direction",
        ],
    );
}

#[test]
fn gravity_rotation_with_a_zero_axis() {
    let scene = edit(
        BASE,
        "gravity = [0.0, 0.0, -9.81]\n",
        "gravity = [0.0, 0.0, -9.81]\ngravity_rotation = { axis = [0.0, 0.0, 0.0], angular_velocity = 1.0 }\n",
    );
    let line = line_of(&scene, "gravity_rotation");
    check_fails(
        "gravity-rotation",
        &scene,
        Some(line),
        "simulation.gravity_rotation.axis",
        &["expected a non-zero axis vector"],
    );
    let scene = edit(
        BASE,
        "gravity = [0.0, 0.0, -9.81]\n",
        "gravity = [0.0, 0.0, -9.81]\ngravity_rotation = { axis = [0.0, 1.0, 0.0] }\n",
    );
    check_fails(
        "gravity-rotation-rate",
        &scene,
        Some(line),
        "simulation.gravity_rotation.angular_velocity",
        &["missing key (expected a rate in rad/s)"],
    );
    // the turns' schedule: each bad key named, with what was expected
    for (name, table, key, says) in [
        (
            "gravity-turn-every",
            "axis = [1.0, 0.0, 0.0], angular_velocity = 6.0, every = 4.0",
            "every",
            "expected `angle` beside `every`",
        ),
        (
            "gravity-turn-angle",
            "axis = [1.0, 0.0, 0.0], angular_velocity = 6.0, angle = -1.0",
            "angle",
            "expected an angle > 0 rad",
        ),
        (
            "gravity-turn-period",
            "axis = [1.0, 0.0, 0.0], angular_velocity = 1.0, angle = 3.14, every = 2.0",
            "every",
            "expected a period >= the 3.14 s a turn takes",
        ),
        (
            "gravity-turn-start",
            "axis = [1.0, 0.0, 0.0], angular_velocity = 1.0, start = -2.0",
            "start",
            "expected a start time >= 0 s",
        ),
        (
            "gravity-turn-rate",
            "axis = [1.0, 0.0, 0.0], angular_velocity = 0.0, angle = 3.14",
            "angular_velocity",
            "expected a non-zero rate",
        ),
    ] {
        let scene = edit(
            BASE,
            "gravity = [0.0, 0.0, -9.81]\n",
            &format!("gravity = [0.0, 0.0, -9.81]\ngravity_rotation = {{ {table} }}\n"),
        );
        check_fails(
            name,
            &scene,
            Some(line),
            &format!("simulation.gravity_rotation.{key}"),
            &[says],
        );
    }
}

#[test]
fn generated_particles_outside_a_cylinder_or_inside_a_pin() {
    // a drum narrower than the lattice
    wall_edit_fails(
        "drum-narrow",
        "radius = 0.02\n",
        "radius = 0.004\n",
        "[[particles]]",
        "particles[0]",
        &["from walls[1]: behind it or overlapping it"],
    );
    // a pin through the middle of the lattice
    let scene = edit(&walls_scene(), "side = \"inside\"", "side = \"outside\"");
    let scene = edit(&scene, "radius = 0.02\n", "radius = 0.001\n");
    let line = line_of(&scene, "[[particles]]");
    walls_fail(
        "pin",
        &scene,
        &[],
        Some(line),
        "particles[0]",
        &["from walls[1]: behind it or overlapping it"],
    );
}

// ------------------------------------------------------------ mesh files

/// [`walls_scene`] whose mesh is `name` holding `bytes`; asserts the error
/// is reported at the `file` key and names the mesh file.
fn mesh_fails(case: &str, name: &str, bytes: &[u8], fragments: &[&str]) -> String {
    let scene = edit(
        &walls_scene(),
        "file = \"mesh.stl\"",
        &format!("file = \"{name}\""),
    );
    let line = line_of(&scene, "file = ");
    let msg = walls_fail(
        case,
        &scene,
        &[(name, bytes)],
        Some(line),
        "walls[3].file",
        fragments,
    );
    assert!(msg.contains(name), "{msg}");
    msg
}

#[test]
fn missing_mesh_file() {
    let scene = edit(
        &walls_scene(),
        "file = \"mesh.stl\"",
        "file = \"hopper.stl\"",
    );
    let line = line_of(&scene, "hopper.stl");
    walls_fail(
        "mesh-missing",
        &scene,
        &[],
        Some(line),
        "walls[3].file",
        &["cannot read mesh file", "hopper.stl"],
    );
}

#[test]
fn truncated_binary_stl() {
    let tri = [[0.0f32, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]];
    let mut bytes = binary_stl(&[tri, tri, tri]);
    bytes.truncate(200);
    mesh_fails(
        "stl-truncated",
        "cut.stl",
        &bytes,
        &["truncated binary STL", "234 bytes", "has 200 bytes"],
    );
}

#[test]
fn ascii_stl_syntax_error_names_the_mesh_line() {
    let bad = SQUARE_STL
        .replacen("endloop", "end loop", 2)
        .replacen("end loop", "endloop", 1);
    mesh_fails(
        "stl-syntax",
        "bad.stl",
        bad.as_bytes(),
        &["bad.stl line 14: expected \"endloop\" after 3 vertices, found \"end loop\""],
    );
}

#[test]
fn mesh_without_triangles() {
    mesh_fails(
        "stl-empty",
        "empty.stl",
        b"solid nothing\nendsolid nothing\n",
        &["no triangles in the file"],
    );
    mesh_fails(
        "obj-empty",
        "empty.obj",
        b"v 0 0 0\nv 1 0 0\n",
        &["no triangles in the file"],
    );
    // every triangle degenerate
    mesh_fails(
        "obj-flat",
        "flat.obj",
        b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n",
        &["no triangles left: all 1 are degenerate"],
    );
}

#[test]
fn non_finite_mesh_coordinates() {
    mesh_fails(
        "stl-nan",
        "nan.stl",
        SQUARE_STL
            .replacen("vertex 10 10 0", "vertex 10 nan 0", 1)
            .as_bytes(),
        &["line 6: non-finite vertex coordinate nan (triangle 1)"],
    );
    let tri = [[0.0f32, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]];
    let inf = [
        [0.0f32, 0.0, 0.0],
        [f32::INFINITY, 0.0, 0.0],
        [0.0, 10.0, 0.0],
    ];
    mesh_fails(
        "stl-inf",
        "inf.stl",
        &binary_stl(&[tri, inf]),
        &["triangle 2 (of 2) has a non-finite coordinate"],
    );
    mesh_fails(
        "obj-nan",
        "nan.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 NaN 0\nf 1 2 3\n",
        &["nan.obj line 3: non-finite vertex coordinate NaN (vertex 3)"],
    );
}

#[test]
fn obj_face_errors_name_the_line() {
    mesh_fails(
        "obj-index",
        "bad.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
        &["bad.obj line 4: vertex index 4 out of range (3 vertices read so far)"],
    );
}

#[test]
fn unknown_mesh_extension() {
    mesh_fails(
        "mesh-ext",
        "hopper.step",
        b"ISO-10303-21;",
        &["unknown extension \".step\" (expected .stl or .obj)"],
    );
}

#[test]
fn bad_mesh_transform() {
    for v in ["0.0", "-0.001"] {
        wall_edit_fails(
            "mesh-scale",
            "scale = 0.001",
            &format!("scale = {v}"),
            "scale =",
            "walls[3].scale",
            &["expected a scale factor > 0"],
        );
    }
    wall_edit_fails(
        "rotate-axis",
        "rotate = { axis = [0.0, 0.0, 1.0]",
        "rotate = { axis = [0.0, 0.0, 0.0]",
        "rotate =",
        "walls[3].rotate.axis",
        &["expected a non-zero rotation axis"],
    );
}

#[test]
fn mesh_wholly_outside_the_domain() {
    wall_edit_fails(
        "mesh-outside",
        "translate = [0.01, 0.0, 0.0]",
        "translate = [0.5, 0.0, 0.0]",
        "file = ",
        "walls[3].file",
        &[
            "lies wholly outside the domain",
            "bounding box [0.49, 0, 0] .. [0.5, ",
            "check scale, rotate and translate",
        ],
    );
}

// ------------------------------------------------- mesh files that load

/// Loads [`walls_scene`] with its mesh in `name` (holding `bytes`) and
/// `transform` in place of the scene's scale/translate/rotate lines;
/// returns the mesh wall's triangles and degenerate count.
fn load_mesh(
    case: &str,
    name: &str,
    bytes: &[u8],
    transform: &str,
) -> (Vec<[[f64; 3]; 3]>, usize, String) {
    let dir = TempDir::new(case);
    std::fs::write(dir.0.join(name), bytes).unwrap();
    let scene = edit(
        &walls_scene(),
        "file = \"mesh.stl\"\nscale = 0.001\ntranslate = [0.01, 0.0, 0.0]\nrotate = { axis = [0.0, 0.0, 1.0], angle_deg = 90.0 }\n",
        &format!("file = \"{name}\"\n{transform}"),
    );
    let path = dir.write("scene.toml", &scene);
    let s = talus::Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&check(&path).stdout).into_owned();
    match &s.walls[3].shape {
        talus::scene::Shape::Mesh {
            triangles,
            degenerate,
            one_sided,
            file,
        } => {
            assert!(!one_sided);
            assert_eq!(file, &dir.0.join(name));
            (triangles.clone(), *degenerate, stdout)
        }
        other => panic!("not a mesh: {other:?}"),
    }
}

fn assert_close(got: [f64; 3], want: [f64; 3]) {
    for k in 0..3 {
        assert!((got[k] - want[k]).abs() < 1e-9, "{got:?} vs {want:?}");
    }
}

#[test]
fn binary_stl_loads_scaled_rotated_translated() {
    let a = [[0.0f32, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 5.0, 0.0]];
    let b = [[0.0f32, 0.0, 1.0], [10.0, 0.0, 1.0], [0.0, 5.0, 1.0]];
    // scale 1e-3, then 90° about +z (x → y, y → −x), then +[0.01, 0,
    // 0.0092] (above the beads: a mesh through them is refused)
    let (t, degenerate, stdout) = load_mesh(
        "load-binary",
        "part.stl",
        &binary_stl(&[a, b]),
        "scale = 0.001\nrotate = { axis = [0.0, 0.0, 1.0], angle_deg = 90.0 }\ntranslate = [0.01, 0.0, 0.0092]\n",
    );
    assert_eq!((t.len(), degenerate), (2, 0));
    assert_close(t[0][0], [0.01, 0.0, 0.0092]);
    assert_close(t[0][1], [0.01, 0.01, 0.0092]);
    assert_close(t[0][2], [0.005, 0.0, 0.0092]);
    assert_close(t[1][2], [0.005, 0.0, 0.0102]);
    assert!(stdout.contains("part.stl (2 triangles)"), "{stdout}");
}

#[test]
fn ascii_stl_loads_with_defaults_and_translation() {
    // no scale (1), no rotation: only the translation
    let small = SQUARE_STL.replace(" 10", " 0.005");
    let (t, degenerate, _) = load_mesh(
        "load-ascii",
        "square.STL",
        small.as_bytes(),
        "translate = [0.001, 0.002, 0.003]\n",
    );
    assert_eq!((t.len(), degenerate), (2, 0));
    assert_close(t[0][1], [0.006, 0.002, 0.003]);
    assert_close(t[1][2], [0.001, 0.007, 0.003]);
}

#[test]
fn obj_loads_fanned_and_counts_degenerate_triangles() {
    // a pentagon fanned into 3 triangles, plus 2 degenerate faces
    let obj = "# pentagon\nv 0 0 0\nv 4 0 0\nv 5 3 0\nv 2 5 0\nv -1 3 0\n\
               vn 0 0 1\nf 1//1 2//1 3//1 4//1 5//1\nf 1 2 2\nf -5 -4 -4\n";
    let (t, degenerate, stdout) = load_mesh(
        "load-obj",
        "pent.obj",
        obj.as_bytes(),
        "scale = 0.001\nrotate = { axis = [1.0, 0.0, 0.0], angle_deg = 90.0 }\none_sided = false\n",
    );
    assert_eq!((t.len(), degenerate), (3, 2));
    // 90° about +x: y → z
    assert_close(t[1][2], [0.002, 0.0, 0.005]);
    assert!(
        stdout.contains("pent.obj (3 triangles, 2 degenerate skipped)"),
        "{stdout}"
    );
}

#[test]
fn plane_servo_defaults_to_the_normal() {
    let scene = format!("{BASE}\n[walls.servo]\nforce = 10.0\nmax_speed = 0.01\n");
    let dir = TempDir::new("plane-servo");
    let s = talus::Scene::load(&dir.write("scene.toml", &scene)).unwrap_or_else(|e| panic!("{e}"));
    let servo = s.walls[0].servo.expect("a servo");
    assert_eq!(servo.direction, [0.0, 0.0, 1.0]);
    assert_eq!((servo.force, servo.max_speed), (10.0, 0.01));
}

// ------------------------------------------------------ insertion, outlets

/// An insertion above the bed of [`BASE`] and an outlet below its floor
/// (holding no particle centre), appended to [`BASE`].
const FLOW: &str = r#"
[[insert]]
region = { min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.01] }
rate = 1000.0
radius = [{ radius = 0.0004, mass_fraction = 0.5 }, { radius = 0.0005, mass_fraction = 0.5 }]
material = "glass"
velocity = [0.0, 0.0, -0.5]
stop = 0.005
interval = "auto"

[[outlets]]
name = "drain"
region = { min = [0.0, 0.0, -0.002], max = [0.01, 0.01, 0.0005] }
"#;

fn flow_scene() -> String {
    format!("{BASE}{FLOW}")
}

/// [`flow_scene`] with `from` replaced by `to`; the error expected at the
/// line holding `at` (after the edit).
fn flow_edit_fails(name: &str, from: &str, to: &str, at: &str, key: &str, fragments: &[&str]) {
    let scene = edit(&flow_scene(), from, to);
    let line = line_of(&scene, at);
    check_fails(name, &scene, Some(line), key, fragments);
}

#[test]
fn flow_scenes_pass_check() {
    let dir = TempDir::new("flow-valid");
    for (name, scene) in [
        ("with-bed.toml", flow_scene()),
        // no [[particles]]: the insertion fills the box
        ("empty.toml", edit(&flow_scene(), GENERATOR, "").replace("[[particles]]\n", "")),
        (
            "cylinder.toml",
            edit(
                &flow_scene(),
                "min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.01]",
                "center = [0.005, 0.005, 0.006], axis = [0.0, 0.0, 1.0], radius = 0.003, length = 0.004",
            ),
        ),
    ] {
        let out = check(&dir.write(name, &scene));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        assert!(!stderr.contains("error"), "{name}: {stderr}");
    }
}

#[test]
fn nothing_to_simulate() {
    let scene = edit(&flow_scene(), GENERATOR, "").replace("[[particles]]\n", "");
    let start = scene.find("[[insert]]").unwrap();
    let end = scene.find("[[outlets]]").unwrap();
    let scene = format!("{}{}", &scene[..start], &scene[end..]);
    check_fails(
        "no-particles-no-insert",
        &scene,
        None,
        "particles",
        &["no [[particles]], [[insert]] or [[bodies]]"],
    );
}

#[test]
fn insertion_region_outside_the_domain() {
    flow_edit_fails(
        "insert-outside",
        "max = [0.008, 0.008, 0.01]",
        "max = [0.008, 0.008, 0.012]",
        "max = [0.008, 0.008, 0.012]",
        "insert[0].region",
        &[
            "insertion region outside the domain",
            "[0.002, 0.002, 0.006] .. [0.008, 0.008, 0.012]",
            "must lie within the domain [0, 0, 0] .. [0.01, 0.01, 0.01]",
        ],
    );
    // a cylinder poking out sideways
    flow_edit_fails(
        "insert-cylinder-outside",
        "min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.01]",
        "center = [0.005, 0.005, 0.006], axis = [0.0, 0.0, 1.0], radius = 0.006, length = 0.004",
        "radius = 0.006",
        "insert[0].region",
        &["insertion region outside the domain"],
    );
}

#[test]
fn bad_insertion_regions() {
    flow_edit_fails(
        "insert-min-max",
        "max = [0.008, 0.008, 0.01]",
        "max = [0.008, 0.001, 0.01]",
        "max = [0.008, 0.001, 0.01]",
        "insert[0].region.max",
        &["expected max > min on every axis; y has min 0.002 and max 0.001"],
    );
    flow_edit_fails(
        "insert-zero-axis",
        "min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.01]",
        "center = [0.005, 0.005, 0.006], axis = [0.0, 0.0, 0.0], radius = 0.003, length = 0.004",
        "axis = [0.0, 0.0, 0.0]",
        "insert[0].region.axis",
        &["expected a non-zero axis vector"],
    );
    flow_edit_fails(
        "insert-too-thin",
        "max = [0.008, 0.008, 0.01]",
        "max = [0.008, 0.008, 0.0065]",
        "max = [0.008, 0.008, 0.0065]",
        "insert[0].region",
        &[
            "0.0005 m wide along z",
            "at least the largest diameter 0.001 m",
        ],
    );
    flow_edit_fails(
        "insert-region-key",
        "min = [0.002, 0.002, 0.006], max",
        "min = [0.002, 0.002, 0.006], radius = 0.001, max",
        "radius = 0.001, max",
        "insert[0].region.radius",
        &["unknown key (known keys here: max, min)"],
    );
}

#[test]
fn insertion_region_overlapping_a_wall() {
    // a shelf through the middle of the region (the bed removed: it would
    // be behind the shelf)
    let scene = edit(&flow_scene(), GENERATOR, "").replace("[[particles]]\n", "")
        + "\n[[walls]]\ntype = \"plane\"\nname = \"shelf\"\npoint = [0.0, 0.0, 0.008]\nnormal = [0.0, 0.0, 1.0]\nmaterial = \"glass\"\n";
    let line = line_of(&scene, "max = [0.008, 0.008, 0.01]");
    check_fails(
        "insert-through-plane",
        &scene,
        Some(line),
        "insert[0].region",
        &["insertion region overlaps wall \"shelf\" (walls[1], plane)"],
    );
    // the square of WALLS turned upright into the plane y = 0.005, across
    // the region; a box and a cylinder
    let upright = "\n[[walls]]\ntype = \"mesh\"\nfile = \"mesh.stl\"\nscale = 0.001\nrotate = { axis = [1.0, 0.0, 0.0], angle_deg = 90.0 }\ntranslate = [0.0, 0.005, 0.0]\nmaterial = \"glass\"\n";
    let scene = flow_scene() + upright;
    walls_fail(
        "insert-through-mesh",
        &scene,
        &[],
        Some(line_of(&scene, "max = [0.008, 0.008, 0.01]")),
        "insert[0].region",
        &[
            "insertion region overlaps wall \"wall1\" (walls[1], mesh): triangle ",
            "mesh.stl passes through the region",
        ],
    );
    let scene = edit(
        &flow_scene(),
        "min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.01]",
        "center = [0.005, 0.005, 0.006], axis = [0.0, 0.0, 1.0], radius = 0.003, length = 0.004",
    ) + upright;
    walls_fail(
        "insert-cylinder-through-mesh",
        &scene,
        &[],
        Some(line_of(&scene, "radius = 0.003")),
        "insert[0].region",
        &["overlaps wall \"wall1\" (walls[1], mesh)"],
    );
}

#[test]
fn insertion_rates() {
    for v in ["0.0", "-5.0"] {
        flow_edit_fails(
            "insert-rate",
            "rate = 1000.0",
            &format!("rate = {v}"),
            "rate =",
            "insert[0].rate",
            &[
                "expected a rate > 0 particles/s",
                &format!("got {}", v.trim_end_matches(".0")),
            ],
        );
    }
    flow_edit_fails(
        "insert-mass-rate",
        "rate = 1000.0",
        "mass_rate = 0.0",
        "mass_rate",
        "insert[0].mass_rate",
        &["expected a mass rate > 0 kg/s, got 0"],
    );
    flow_edit_fails(
        "insert-both-rates",
        "rate = 1000.0",
        "rate = 1000.0\nmass_rate = 0.01",
        "mass_rate",
        "insert[0].mass_rate",
        &["give either rate (particles/s) or mass_rate (kg/s), not both"],
    );
    let scene = edit(&flow_scene(), "rate = 1000.0\n", "");
    check_fails(
        "insert-no-rate",
        &scene,
        Some(line_of(&scene, "[[insert]]")),
        "insert[0].rate",
        &["missing key (expected rate = <particles/s> or mass_rate = <kg/s>)"],
    );
}

#[test]
fn insertion_times_count_and_interval() {
    flow_edit_fails(
        "insert-stop-before-start",
        "stop = 0.005",
        "start = 0.01\nstop = 0.005",
        "stop =",
        "insert[0].stop",
        &["expected stop > start", "start = 0.01 s and stop = 0.005 s"],
    );
    flow_edit_fails(
        "insert-stop-at-start",
        "stop = 0.005",
        "start = 0.005\nstop = 0.005",
        "stop =",
        "insert[0].stop",
        &["expected stop > start"],
    );
    flow_edit_fails(
        "insert-negative-start",
        "stop = 0.005",
        "start = -1.0",
        "start =",
        "insert[0].start",
        &["expected a start time >= 0 s, got -1"],
    );
    flow_edit_fails(
        "insert-count",
        "stop = 0.005",
        "count = 0",
        "count =",
        "insert[0].count",
        &["expected a count >= 1, got 0"],
    );
    flow_edit_fails(
        "insert-interval",
        "interval = \"auto\"",
        "interval = 0.0",
        "interval =",
        "insert[0].interval",
        &["expected an interval > 0 s or \"auto\", got 0"],
    );
    flow_edit_fails(
        "insert-interval-word",
        "interval = \"auto\"",
        "interval = \"often\"",
        "interval =",
        "insert[0].interval",
        &["expected an interval in seconds or \"auto\""],
    );
}

#[test]
fn insertion_radius_and_material() {
    flow_edit_fails(
        "insert-mass-fraction",
        "mass_fraction = 0.5 }]",
        "mass_fraction = -0.5 }]",
        "mass_fraction = -0.5",
        "insert[0].radius",
        &["expected a fraction > 0, got -0.5"],
    );
    flow_edit_fails(
        "insert-mixed-fractions",
        "mass_fraction = 0.5 }]",
        "fraction = 0.5 }]",
        "fraction = 0.5 }]",
        "insert[0].radius[1].fraction",
        &["not a mix"],
    );
    flow_edit_fails(
        "insert-material",
        "material = \"glass\"\nvelocity",
        "material = \"sand\"\nvelocity",
        "material = \"sand\"",
        "insert[0].material",
        &["unknown material \"sand\" (defined: glass)"],
    );
}

#[test]
fn unknown_key_in_insert_and_outlets() {
    flow_edit_fails(
        "insert-key",
        "velocity = [0.0, 0.0, -0.5]",
        "velocty = [0.0, 0.0, -0.5]",
        "velocty",
        "insert[0].velocty",
        &["unknown key", "did you mean \"velocity\"?"],
    );
    flow_edit_fails(
        "outlet-key",
        "name = \"drain\"",
        "nam = \"drain\"",
        "nam = ",
        "outlets[0].nam",
        &["unknown key", "did you mean \"name\"?"],
    );
    // [[inserts]] is not a table of a scene
    flow_edit_fails(
        "inserts-table",
        "[[insert]]",
        "[[inserts]]",
        "[[inserts]]",
        "inserts",
        &["unknown key", "did you mean \"insert\"?"],
    );
}

#[test]
fn outlet_entirely_outside_the_domain() {
    flow_edit_fails(
        "outlet-outside",
        "max = [0.01, 0.01, 0.0005]",
        "max = [0.01, 0.01, -0.001]",
        "max = [0.01, 0.01, -0.001]",
        "outlets[0].region",
        &[
            "outlet region entirely outside the domain",
            "[0, 0, -0.002] .. [0.01, 0.01, -0.001] does not meet the domain",
        ],
    );
}

#[test]
fn checkpoint_interval_must_be_positive() {
    for v in ["0.0", "-60.0"] {
        let scene = edit(
            &flow_scene(),
            "duration = 0.01\n",
            &format!("duration = 0.01\ncheckpoint_interval = {v}\n"),
        );
        check_fails(
            "checkpoint-interval",
            &scene,
            Some(line_of(&scene, "checkpoint_interval")),
            "simulation.checkpoint_interval",
            &[
                "expected an interval > 0 s",
                &format!("got {}", v.trim_end_matches(".0")),
            ],
        );
    }
}

// ----------------------------------------------------------------- bodies

/// [`BASE`] with the beads in its upper half, a rubber material and a
/// deformable plate on the floor (generated, tet10 by default).
fn bodies_scene() -> String {
    edit(
        BASE,
        "region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }",
        "region = { min = [0.0, 0.0, 0.005], max = [0.01, 0.01, 0.01] }",
    ) + BODIES
}

const BODIES: &str = r#"
[[materials]]
name = "rubber"
density = 1100.0
youngs_modulus = 1.0e6
poisson_ratio = 0.45
restitution = 0.5
friction = 0.8

[[bodies]]
name = "plate"
generator = "box"
min = [0.001, 0.001, 0.0005]
max = [0.009, 0.009, 0.0025]
divisions = [4, 4, 1]
material = "rubber"
velocity = [0.0, 0.0, 0.0]
damping = { alpha = 0.0, beta = 0.0 }
fixed = [{ min = [0.0, 0.0, 0.0], max = [0.0015, 0.01, 0.003] }]
exchange_every = "auto"
wall_stiffness = "auto"
"#;

/// [`bodies_scene`] with `from` replaced by `to`; the error expected at
/// the line holding `at` (after the edit).
fn body_edit_fails(name: &str, from: &str, to: &str, at: &str, key: &str, fragments: &[&str]) {
    let scene = edit(&bodies_scene(), from, to);
    let line = line_of(&scene, at);
    check_fails(name, &scene, Some(line), key, fragments);
}

/// An ASCII Gmsh MSH 4.1 file of 4-node tetrahedra (1-based node tags in
/// `tets`).
fn msh(nodes: &[[f64; 3]], tets: &[[usize; 4]]) -> String {
    let mut s = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n");
    let n = nodes.len();
    s += &format!("1 {n} 1 {n}\n3 1 0 {n}\n");
    for i in 1..=n {
        s += &format!("{i}\n");
    }
    for p in nodes {
        s += &format!("{} {} {}\n", p[0], p[1], p[2]);
    }
    let m = tets.len();
    s += &format!("$EndNodes\n$Elements\n1 {m} 1 {m}\n3 1 4 {m}\n");
    for (i, t) in tets.iter().enumerate() {
        s += &format!("{} {} {} {} {}\n", i + 1, t[0], t[1], t[2], t[3]);
    }
    s + "$EndElements\n"
}

/// One tetrahedron with a 4 mm right-angle corner at (1, 1, 1) mm: inside
/// the domain, positive volume in this order.
const TET: [[f64; 3]; 4] = [
    [0.001, 0.001, 0.001],
    [0.005, 0.001, 0.001],
    [0.001, 0.005, 0.001],
    [0.001, 0.001, 0.005],
];

/// [`bodies_scene`] whose plate is read from `plate.msh` holding `text`
/// (the `fixed` box dropped, `extra` lines added to the body).
fn mesh_body_scene(dir: &TempDir, text: &str, extra: &str) -> PathBuf {
    dir.write("plate.msh", text);
    let scene = edit(
        &bodies_scene(),
        "generator = \"box\"\nmin = [0.001, 0.001, 0.0005]\nmax = [0.009, 0.009, 0.0025]\ndivisions = [4, 4, 1]\n",
        "mesh = \"plate.msh\"\n",
    );
    let scene = edit(
        &scene,
        "fixed = [{ min = [0.0, 0.0, 0.0], max = [0.0015, 0.01, 0.003] }]\n",
        extra,
    );
    dir.write("scene.toml", &scene)
}

/// `talus check` of a body read from `text`: the error at the `mesh` key.
fn body_mesh_fails(name: &str, text: &str, extra: &str, key: &str, fragments: &[&str]) -> String {
    let dir = TempDir::new(name);
    let path = mesh_body_scene(&dir, text, extra);
    let scene = std::fs::read_to_string(&path).unwrap();
    let at = if key.ends_with(".mesh") {
        "mesh = "
    } else {
        "fixed = "
    };
    expect_error(
        &check(&path),
        &path,
        Some(line_of(&scene, at)),
        key,
        fragments,
    )
}

#[test]
fn body_scenes_pass_check_and_are_listed() {
    let dir = TempDir::new("bodies-valid");
    let out = check(&dir.write("scene.toml", &bodies_scene()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.trim().is_empty(), "{stderr}");
    assert!(stdout.contains("bodies[0] plate"), "{stdout}");
    // a file mesh, tet4, energy-momentum: also fine
    let path = mesh_body_scene(
        &dir,
        &msh(&TET, &[[1, 2, 3, 4]]),
        "element = \"tet4\"\nintegrator = \"energy_momentum\"\n",
    );
    let out = check(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.trim().is_empty(), "{stderr}");
    // a box beyond a periodic axis is allowed
    let scene = edit(
        &edit(
            &bodies_scene(),
            "periodic = [false, false, false]",
            "periodic = [true, false, false]",
        ),
        "max = [0.009, 0.009, 0.0025]",
        "max = [0.012, 0.009, 0.0025]",
    );
    let out = check(&dir.write("periodic.toml", &scene));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn body_box_and_divisions() {
    body_edit_fails(
        "body-min-max",
        "max = [0.009, 0.009, 0.0025]",
        "max = [0.009, 0.009, 0.0002]",
        "max = [0.009, 0.009, 0.0002]",
        "bodies[0].max",
        &["expected max > min on every axis; z has min 0.0005 and max 0.0002"],
    );
    body_edit_fails(
        "body-zero-divisions",
        "divisions = [4, 4, 1]",
        "divisions = [4, 0, 1]",
        "divisions",
        "bodies[0].divisions",
        &["expected a positive number of divisions on every axis; y has 0"],
    );
    body_edit_fails(
        "body-negative-divisions",
        "divisions = [4, 4, 1]",
        "divisions = [4, -4, 1]",
        "divisions",
        "bodies[0].divisions[1]",
        &["expected a positive integer, found -4"],
    );
    body_edit_fails(
        "body-fractional-divisions",
        "divisions = [4, 4, 1]",
        "divisions = [4, 4, 1.5]",
        "divisions",
        "bodies[0].divisions[2]",
        &["expected a positive integer, found 1.5"],
    );
    body_edit_fails(
        "body-outside",
        "max = [0.009, 0.009, 0.0025]",
        "max = [0.009, 0.011, 0.0025]",
        "max = [0.009, 0.011, 0.0025]",
        "bodies[0].max",
        &[
            "body \"plate\" outside the domain along y",
            "its box [0.001, 0.001, 0.0005] .. [0.009, 0.011, 0.0025] must lie within the domain [0, 0, 0] .. [0.01, 0.01, 0.01] on every non-periodic axis",
        ],
    );
    body_edit_fails(
        "body-outside-below",
        "min = [0.001, 0.001, 0.0005]",
        "min = [0.001, 0.001, -0.0005]",
        "min = [0.001, 0.001, -0.0005]",
        "bodies[0].min",
        &["outside the domain along z"],
    );
    body_edit_fails(
        "body-box-keys-with-mesh",
        "generator = \"box\"",
        "mesh = \"plate.msh\"",
        "min = [0.001, 0.001, 0.0005]",
        "bodies[0].min",
        &["only with generator = \"box\""],
    );
    body_edit_fails(
        "body-mesh-and-generator",
        "generator = \"box\"",
        "generator = \"box\"\nmesh = \"plate.msh\"",
        "generator = \"box\"",
        "bodies[0].generator",
        &["give either mesh (a Gmsh file) or generator = \"box\", not both"],
    );
    body_edit_fails(
        "body-unknown-key",
        "wall_stiffness = \"auto\"",
        "wall_stifness = \"auto\"",
        "wall_stifness",
        "bodies[0].wall_stifness",
        &["unknown key", "did you mean \"wall_stiffness\"?"],
    );
}

#[test]
fn body_damping_exchange_and_wall_stiffness() {
    body_edit_fails(
        "body-damping-alpha",
        "alpha = 0.0",
        "alpha = -1.0",
        "damping = ",
        "bodies[0].damping.alpha",
        &["expected a damping coefficient >= 0 1/s, got -1"],
    );
    body_edit_fails(
        "body-damping-beta",
        "beta = 0.0",
        "beta = -0.001",
        "damping = ",
        "bodies[0].damping.beta",
        &["expected a damping coefficient >= 0 s, got -0.001"],
    );
    body_edit_fails(
        "body-exchange-zero",
        "exchange_every = \"auto\"",
        "exchange_every = 0",
        "exchange_every",
        "bodies[0].exchange_every",
        &["expected a positive number of grain steps or \"auto\", got 0"],
    );
    body_edit_fails(
        "body-exchange-fraction",
        "exchange_every = \"auto\"",
        "exchange_every = 2.5",
        "exchange_every",
        "bodies[0].exchange_every",
        &["expected a positive number of grain steps or \"auto\", found 2.5"],
    );
    for v in ["0.0", "-5.0"] {
        body_edit_fails(
            "body-wall-stiffness",
            "wall_stiffness = \"auto\"",
            &format!("wall_stiffness = {v}"),
            "wall_stiffness",
            "bodies[0].wall_stiffness",
            &[
                "expected a stiffness > 0 N/m or \"auto\"",
                &format!("got {}", v.trim_end_matches(".0")),
            ],
        );
    }
}

#[test]
fn body_fixed_boxes() {
    body_edit_fails(
        "body-fixed-min-max",
        "max = [0.0015, 0.01, 0.003]",
        "max = [0.0015, 0.01, -0.003]",
        "fixed = ",
        "bodies[0].fixed[0].max",
        &["expected max >= min on every axis; z has min 0 and max -0.003"],
    );
    body_edit_fails(
        "body-fixed-everything",
        "max = [0.0015, 0.01, 0.003]",
        "max = [0.01, 0.01, 0.003]",
        "fixed = ",
        "bodies[0].fixed",
        &[
            "the fixed boxes hold every node",
            "of body \"plate\": nothing can move",
        ],
    );
    // a box that holds no node: a warning, the scene still passes
    let dir = TempDir::new("body-fixed-nothing");
    let scene = edit(
        &bodies_scene(),
        "max = [0.0015, 0.01, 0.003]",
        "max = [0.0005, 0.01, 0.003]",
    );
    let path = dir.write("scene.toml", &scene);
    let out = check(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let want = format!(
        "warning: {}:{}: bodies[0].fixed[0]: fixed box [0, 0, 0] .. [0.0005, 0.01, 0.003] holds no node of body \"plate\": it clamps nothing",
        path.display(),
        line_of(&scene, "fixed = ")
    );
    assert_eq!(lines[0], want);
}

#[test]
fn body_material() {
    let scene = edit(&bodies_scene(), "density = 1100.0", "density = 0.0");
    check_fails(
        "body-density",
        &scene,
        Some(line_of(&scene, "material = \"rubber\"")),
        "bodies[0].material",
        &["material \"rubber\" has density 0 kg/m³: a body needs a density > 0 (materials[1].density)"],
    );
    let scene = edit(
        &bodies_scene(),
        "youngs_modulus = 1.0e6",
        "youngs_modulus = -1.0e6",
    );
    check_fails(
        "body-modulus",
        &scene,
        Some(line_of(&scene, "material = \"rubber\"")),
        "bodies[0].material",
        &["material \"rubber\" has Young's modulus -1000000 Pa: a body needs a modulus > 0 (materials[1].youngs_modulus)"],
    );
    body_edit_fails(
        "body-unknown-material",
        "material = \"rubber\"",
        "material = \"steel\"",
        "material = \"steel\"",
        "bodies[0].material",
        &["unknown material \"steel\" (defined: glass, rubber)"],
    );
}

#[test]
fn body_mesh_files() {
    // missing
    let dir = TempDir::new("body-mesh-missing");
    let scene = edit(
        &bodies_scene(),
        "generator = \"box\"\nmin = [0.001, 0.001, 0.0005]\nmax = [0.009, 0.009, 0.0025]\ndivisions = [4, 4, 1]\n",
        "mesh = \"x.msh\"\n",
    );
    let path = dir.write("scene.toml", &scene);
    let msg = expect_error(
        &check(&path),
        &path,
        Some(line_of(&scene, "mesh = ")),
        "bodies[0].mesh",
        &["cannot read \"", "x.msh\": "],
    );
    assert!(
        msg.contains("No such file") || msg.contains("cannot find"),
        "{msg}"
    );
    // not MSH 4.1
    let old = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";
    body_mesh_fails(
        "body-mesh-2.2",
        old,
        "",
        "bodies[0].mesh",
        &[
            "plate.msh: line 2",
            "version 2.2 found; talus reads MSH 4.1",
        ],
    );
    body_mesh_fails(
        "body-mesh-not-msh",
        "solid cube\nendsolid cube\n",
        "",
        "bodies[0].mesh",
        &["plate.msh: line 1", "not a Gmsh MSH file"],
    );
    // triangles only
    let tri = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0.001 0.001 0.001\n0.005 0.001 0.001\n0.001 0.005 0.001\n$EndNodes\n$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n";
    body_mesh_fails(
        "body-mesh-no-tets",
        tri,
        "",
        "bodies[0].mesh",
        &["plate.msh", "no tetrahedra"],
    );
    // two corners swapped: inverted
    body_mesh_fails(
        "body-mesh-inverted",
        &msh(&TET, &[[1, 2, 3, 4], [1, 3, 2, 4]]),
        "",
        "bodies[0].mesh",
        &[
            "plate.msh: element 2 is inverted: corner volume -1.0667e-8 m³ < 0",
            "corners [0.001, 0.001, 0.001], [0.001, 0.005, 0.001], [0.005, 0.001, 0.001], [0.001, 0.001, 0.005]",
        ],
    );
    // a flat one: four corners in the plane z = 1 mm
    let mut flat = TET;
    flat[3] = [0.003, 0.003, 0.001];
    body_mesh_fails(
        "body-mesh-flat",
        &msh(&flat, &[[1, 2, 3, 4]]),
        "element = \"tet4\"\n",
        "bodies[0].mesh",
        &["plate.msh: element 1 has zero volume (a flat tetrahedron"],
    );
    // outside the domain
    let far = [
        [0.001, 0.001, 0.009],
        [0.005, 0.001, 0.009],
        [0.001, 0.005, 0.009],
        [0.001, 0.001, 0.013],
    ];
    body_mesh_fails(
        "body-mesh-outside",
        &msh(&far, &[[1, 2, 3, 4]]),
        "",
        "bodies[0].mesh",
        &[
            "body \"plate\" outside the domain along z",
            "its mesh's bounding box [0.001, 0.001, 0.009] .. [0.005, 0.005, 0.013]",
        ],
    );
    // every node fixed
    body_mesh_fails(
        "body-mesh-all-fixed",
        &msh(&TET, &[[1, 2, 3, 4]]),
        "fixed = [{ min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }]\n",
        "bodies[0].fixed",
        &["the fixed boxes hold every node (10) of body \"plate\""],
    );
}

#[test]
fn body_explicit_step_too_small() {
    // a stiff material on a fine box: the explicit step falls below 1 ns
    let scene = edit(
        &bodies_scene(),
        "youngs_modulus = 1.0e6",
        "youngs_modulus = 1.0e16",
    );
    let scene = edit(&scene, "divisions = [4, 4, 1]", "divisions = [8, 8, 4]");
    let line = line_of(&scene, "generator = \"box\"");
    check_fails(
        "body-critical-step",
        &scene,
        Some(line),
        "bodies[0].generator",
        &[
            "sets an explicit critical step of",
            "below 1e-9 s",
            "integrator = \"energy_momentum\"",
        ],
    );
    // the implicit integrator has no such limit
    let dir = TempDir::new("body-critical-step-implicit");
    let ok = edit(
        &scene,
        "velocity = [0.0, 0.0, 0.0]",
        "integrator = \"energy_momentum\"",
    );
    let out = check(&dir.write("scene.toml", &ok));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------- analyze

/// `talus analyze ARGS…` fails with one line starting with
/// `error: PREFIX` and holding every fragment.
fn analyze_fails(args: &[&str], prefix: &str, fragments: &[&str]) -> String {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    fails_in_one_line(&all, prefix, fragments).0
}

/// `talus ARGS…` fails with one line starting with `error: PREFIX` and
/// holding every fragment: that line and the context of a failed check.
fn fails_in_one_line(args: &[&str], prefix: &str, fragments: &[&str]) -> (String, String) {
    let out = talus(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "args {args:?}, status {:?}\n--- stderr ---\n{stderr}--- stdout ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!out.status.success(), "expected a failure\n{context}");
    assert!(!stderr.contains("panicked"), "{context}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one error line\n{context}");
    assert!(
        lines[0].starts_with(&format!("error: {prefix}")),
        "expected the line to start with \"error: {prefix}\"\n{context}"
    );
    for f in fragments {
        assert!(
            lines[0].contains(f),
            "expected {f:?} in the message\n{context}"
        );
    }
    (lines[0].to_string(), context)
}

/// A run directory whose `particles.pvd` lists `n` snapshots (files not
/// written: the options are checked before any is read).
fn fake_run(name: &str, n: usize) -> TempDir {
    let dir = TempDir::new(name);
    let mut pvd = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\">\n  <Collection>\n",
    );
    for k in 0..n {
        pvd += &format!(
            "    <DataSet timestep=\"{:e}\" group=\"\" part=\"0\" file=\"particles_{k:05}.vtu\"/>\n",
            0.01 * k as f64
        );
    }
    pvd += "  </Collection>\n</VTKFile>\n";
    dir.write("particles.pvd", &pvd);
    dir
}

#[test]
fn analyze_missing_run_directory() {
    let dir = TempDir::new("analyze-missing");
    let gone = dir.0.join("no-such-run");
    let g = gone.to_str().unwrap();
    analyze_fails(&[g, "fraction"], g, &["no such run directory"]);
}

#[test]
fn analyze_directory_without_snapshots() {
    let dir = TempDir::new("analyze-empty");
    let d = dir.0.to_str().unwrap();
    analyze_fails(&[d, "layers"], d, &["no particles.pvd"]);
    let empty = fake_run("analyze-no-entries", 0);
    let pvd = empty.0.join("particles.pvd");
    analyze_fails(
        &[empty.0.to_str().unwrap(), "fraction"],
        pvd.to_str().unwrap(),
        &["no snapshots listed"],
    );
    // listed but missing: the file is named
    let one = fake_run("analyze-missing-vtu", 1);
    let vtu = one.0.join("particles_00000.vtu");
    analyze_fails(
        &[one.0.to_str().unwrap(), "fraction"],
        vtu.to_str().unwrap(),
        &[],
    );
}

#[test]
fn analyze_unknown_verb_and_option() {
    let run = fake_run("analyze-verb", 1);
    let d = run.0.to_str().unwrap();
    analyze_fails(
        &[d, "porosity"],
        "analyze: unknown verb",
        &["\"porosity\"", "fraction", "repose"],
    );
    analyze_fails(
        &[d, "fraction", "--colour", "red"],
        "analyze fraction: unknown option --colour",
        &["--region"],
    );
    analyze_fails(
        &[d, "fraction", "--bins", "4"],
        "--bins: not an option of `analyze fraction`",
        &[],
    );
    analyze_fails(
        &[d, "layers", "stray"],
        "analyze layers: unexpected argument \"stray\"",
        &[],
    );
    analyze_fails(&[d, "layers", "--bins"], "--bins: expected", &["after it"]);
}

#[test]
fn analyze_bad_region_strings() {
    let run = fake_run("analyze-region", 1);
    let d = run.0.to_str().unwrap();
    for (region, fragment) in [
        ("sphere:0,0,0,1", "unknown kind \"sphere\""),
        ("box:0,0,0,1,1", "6 numbers"),
        ("box:0,0,0,1,x,1", "not all numbers"),
        ("box:0,0,1,1,1,0", "each max above its min"),
        ("cylinder:0,0,0,0,0,0,1,1", "axis is zero"),
        ("cylinder:0,0,0,0,0,1,-1,1", "positive radius and length"),
        ("0,0,0,1,1,1", "expected box:"),
    ] {
        analyze_fails(
            &[d, "fraction", "--region", region],
            "--region: ",
            &[fragment],
        );
    }
    analyze_fails(
        &[d, "radial", "--region", "box:0,0,0,1,1,1"],
        "--region: ",
        &["needs a cylinder"],
    );
}

#[test]
fn analyze_bad_numbers() {
    let run = fake_run("analyze-numbers", 3);
    let d = run.0.to_str().unwrap();
    analyze_fails(
        &[d, "layers", "--bins", "0"],
        "--bins: ",
        &["between 1 and"],
    );
    analyze_fails(
        &[d, "layers", "--bins", "-3"],
        "--bins: ",
        &["positive whole number"],
    );
    analyze_fails(
        &[d, "layers", "--bins", "2.5"],
        "--bins: ",
        &["positive whole number"],
    );
    analyze_fails(
        &[d, "fraction", "--snapshot", "3"],
        "--snapshot: ",
        &["out of range", "3 snapshots"],
    );
    analyze_fails(
        &[d, "fraction", "--snapshot", "-4"],
        "--snapshot: ",
        &["out of range"],
    );
    analyze_fails(
        &[d, "fraction", "--snapshot", "latest"],
        "--snapshot: ",
        &["first", "last"],
    );
    analyze_fails(&[d, "velocity", "--axis", "w"], "--axis: ", &["x, y, z"]);
    analyze_fails(
        &[d, "velocity", "--axis", "0,0,0"],
        "--axis: ",
        &["zero vector"],
    );
    analyze_fails(
        &[d, "flow", "--from", "0.5", "--to", "0.2"],
        "--from/--to: ",
        &["--to above --from"],
    );
    analyze_fails(&[d, "repose", "--trim", "0.7"], "--trim: ", &["[0, 0.45]"]);
    analyze_fails(
        &[d, "coordination", "--min-contacts", "0"],
        "--min-contacts: ",
        &["≥ 1"],
    );
    analyze_fails(
        &[d, "plane-flow", "--axis", "z"],
        "--at: ",
        &["needs the plane's position"],
    );
    // no flow.csv in this directory
    let csv = run.0.join("flow.csv");
    analyze_fails(&[d, "flow"], csv.to_str().unwrap(), &[]);
}

// ------------------------------------------------------------------ validate

/// `talus validate --backend cpu --out DIR ARGS` fails before any case
/// runs (DIR is never made) with one line `error: PREFIX…` holding every
/// fragment.
fn validate_fails(args: &[&str], prefix: &str, fragments: &[&str]) {
    let dir = TempDir::new("validate");
    let out_dir = dir.0.join("report");
    let mut all = vec![
        "validate",
        "--backend",
        "cpu",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let (_, context) = fails_in_one_line(&all, prefix, fragments);
    assert!(!out_dir.exists(), "a case ran\n{context}");
}

#[test]
fn validate_unknown_option_is_named() {
    // a known case: its options are listed
    validate_fails(
        &["--set", "ferrez.mono_n=26000"],
        "--set ferrez.mono_n: expected one of ferrez's options (",
        &["ferrez.mono_count", "--list-options"],
    );
    // no such case
    validate_fails(
        &["--set", "silo.width=40"],
        "--set silo.width: expected an option case.name of one of the cases ",
        &["beverloo", "collapse", "--list-options"],
    );
    validate_fails(
        &["--set", "ferrez.debug"],
        "--set ferrez.debug: expected KEY=VALUE",
        &[],
    );
}

#[test]
fn validate_bad_option_value_is_named() {
    validate_fails(
        &["--set", "ferrez.mono_count=lots"],
        "--set ferrez.mono_count: expected a whole number ≥ 1, got \"lots\"",
        &[],
    );
    validate_fails(
        &["--set", "tapping.only=10,3"],
        "--set tapping.only: expected a comma-separated list of the study's frequencies (10, 5, 4, 2 Hz), got \"10,3\"",
        &[],
    );
    validate_fails(
        &["--set", "collapse.sides=yes"],
        "--set collapse.sides: expected true or false, got \"yes\"",
        &[],
    );
    // checked with the other options before anything runs
    validate_fails(
        &[
            "--set",
            "beverloo.silo_mm=30",
            "--set",
            "beverloo.orifices_mm=10,40",
        ],
        "--set beverloo.orifices_mm: expected two or more diameters below the silo's 30 mm",
        &[],
    );
    validate_fails(
        &["--set", "ferrez.only=40"],
        "--set ferrez.only: expected part of a packing's name (narrow 30 mm, ",
        &["got \"40\""],
    );
    validate_fails(
        &["--cases", "1,energy,9"],
        "--cases: expected a comma-separated list of case ids (1, 2, ",
        &["compaction", "got \"1,energy,9\""],
    );
}

#[test]
fn validate_list_options_lists_every_case_option() {
    let out = talus(&["validate", "--list-options"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(out.stderr.is_empty());
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("ferrez.mono_count "))
        .unwrap_or_else(|| panic!("no ferrez.mono_count line\n{stdout}"));
    for f in ["whole number ≥ 1", "13000", "mono packing"] {
        assert!(line.contains(f), "{f:?} not in {line:?}");
    }
    for key in [
        "beverloo.silo_mm",
        "collapse.floor",
        "hourglass.only",
        "slope.debug",
        "tapping.stiffer",
        "drum.rolling",
    ] {
        assert!(stdout.contains(key), "{key}\n{stdout}");
    }
    // grouped by case, the case's title beside its id
    assert!(stdout.contains("\nferrez: steel spheres"), "{stdout}");
}

// ----------------------------------------------------------------- memory

/// Whether a GPU adapter is there (lavapipe counts); CI must have one.
fn have_gpu() -> bool {
    if talus::gpu::context::test_context().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("TALUS_REQUIRE_GPU").is_none(),
        "TALUS_REQUIRE_GPU is set but no GPU adapter was found"
    );
    false
}

/// `talus` with `TALUS_MEMORY` set to `cap`.
fn talus_capped(cap: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_talus"))
        .args(args)
        .env("TALUS_MEMORY", cap)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("cannot start the talus binary")
}

/// A run that cannot fit is refused before it allocates, in one line with
/// both figures and the count that fits, by `talus run` on each path; and
/// `talus check` says the same of each path, exiting non-zero when none
/// fits. (The base scene's 64 beads need ~100 KiB on the CPU path, ~26
/// KiB on the GPU path's host side, ~9 KiB to load.)
#[test]
fn runs_that_do_not_fit_the_memory_are_refused_before_they_start() {
    let dir = TempDir::new("memory");
    let scene = dir.write("scene.toml", BASE);
    let s = scene.to_str().unwrap();
    let out_dir = dir.0.join("out");
    let o = out_dir.to_str().unwrap();
    let run = talus_capped(
        "40k",
        &["run", s, "--backend", "cpu", "--out", o, "--quiet"],
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("the CPU path's 64 particles need about")
            && err.contains("TALUS_MEMORY allows 40.0 KiB"),
        "{err}"
    );
    let fits: u64 = err
        .split("at most ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(fits < 64 && fits > 10, "{err}");
    assert!(!out_dir.exists(), "nothing written for a refused run");
    let check = talus_capped("40k", &["check", s]);
    let report = String::from_utf8_lossy(&check.stdout);
    let cpu_line = report.lines().find(|l| l.contains("CPU path:")).unwrap();
    assert!(cpu_line.contains("this scene does not fit"), "{cpu_line}");
    if have_gpu() {
        // the GPU path's host side fits 40 KiB, its device is lavapipe's
        assert!(check.status.success(), "{report}");
        let gpu = talus_capped(
            "40k",
            &["run", s, "--backend", "gpu", "--out", o, "--quiet"],
        );
        assert!(
            gpu.status.success(),
            "{}",
            String::from_utf8_lossy(&gpu.stderr)
        );
        // and 16 KiB fits neither: check fails, naming the CPU path's need
        let gpu = talus_capped(
            "16k",
            &["run", s, "--backend", "gpu", "--out", o, "--quiet"],
        );
        let err = String::from_utf8_lossy(&gpu.stderr);
        assert!(
            !gpu.status.success()
                && err.contains("the GPU path's 64 particles (host side) need about"),
            "{err}"
        );
    }
    let check = talus_capped("16k", &["check", s]);
    let err = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success(), "{err}");
    assert!(
        err.contains("64 particles fit neither this machine's memory nor a GPU's")
            && err.contains("TALUS_MEMORY allows 16.0 KiB"),
        "{err}"
    );
    // a cap that is not a size
    let bad = talus_capped("lots", &["check", s]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.trim() == "error: TALUS_MEMORY: expected a size like 8G, 512M or a number of bytes, got \"lots\"",
        "{err}"
    );
}

/// Generators check their size before they allocate: a lattice of 10⁸
/// (under the documented cap of 2·10⁸) and a generated FEM box of 10⁸
/// tetrahedra are refused at once, naming the key, when the memory cannot
/// hold them.
#[test]
fn generators_too_large_for_the_memory_are_refused_at_once() {
    let dir = TempDir::new("memory-generators");
    let big = edit(
        BASE,
        "radius = 0.001\nmaterial = \"glass\"\n",
        "radius = 0.000009\nmaterial = \"glass\"\ncount = 100000000\n",
    );
    let scene = dir.write("lattice.toml", &big);
    let t0 = std::time::Instant::now();
    let out = talus_capped("1G", &["check", scene.to_str().unwrap()]);
    expect_error(
        &out,
        &scene,
        Some(line_of(&big, "region = ")),
        "particles[0].region",
        &[
            "lattice: 100000000 particles need about",
            "TALUS_MEMORY allows 1.00 GiB",
            &format!(
                "at most {} particles fit",
                (1u64 << 30) / talus::memory::LOAD_BYTES_PER_PARTICLE
            ),
        ],
    );
    assert!(
        t0.elapsed().as_secs() < 10,
        "refused at once, not after generating"
    );
    let body = format!(
        "{BASE}\n[[bodies]]\ngenerator = \"box\"\nmin = [0.001, 0.001, 0.001]\nmax = [0.009, 0.009, 0.003]\ndivisions = [1000, 1000, 17]\nmaterial = \"glass\"\n"
    );
    let scene = dir.write("body.toml", &body);
    let out = talus_capped("1G", &["check", scene.to_str().unwrap()]);
    expect_error(
        &out,
        &scene,
        Some(line_of(&body, "divisions = ")),
        "bodies[0].divisions",
        &[
            "1000 × 1000 × 17 divisions: 102000000 tetrahedra",
            "TALUS_MEMORY allows 1.00 GiB",
        ],
    );
    // a particle file, by its size, before it is read
    let text = edit(BASE, GENERATOR, "file = \"particles.csv\"\n");
    let scene = dir.write("csv.toml", &text);
    dir.write("particles.csv", CSV);
    let out = talus_capped("512", &["check", scene.to_str().unwrap()]);
    expect_error(
        &out,
        &scene,
        Some(line_of(&text, "file = ")),
        "particles[0].file",
        &[
            &format!("reading {} bytes of particles need about", CSV.len()),
            "TALUS_MEMORY allows 0.5 KiB",
        ],
    );
}

/// A mesh wall cutting through the starting particles: `talus check`
/// refuses it as `talus run` does, naming the wall, the particle and the
/// overlap (the run used to stop at step 0 blaming dt).
#[test]
fn a_mesh_through_the_starting_particles() {
    let dir = TempDir::new("mesh-through");
    dir.write("mesh.stl", SQUARE_STL);
    // the lattice's third layer of sites is at z = 5.5 mm (± 0.1 mm)
    let scene = format!(
        "{BASE}\n[[walls]]\ntype = \"mesh\"\nname = \"shelf\"\nfile = \"mesh.stl\"\nscale = 0.001\ntranslate = [0.0, 0.0, 0.0055]\nmaterial = \"glass\"\n"
    );
    let path = dir.write("scene.toml", &scene);
    let line = nth_line_of(&scene, "[[walls]]", 1);
    let fragments = [
        "cuts through particle 32 of particles[0] (lattice)",
        "more than 0.5 of its radius 1.000e-3 m",
        "move the surface or the particles",
    ];
    let said = expect_error(&check(&path), &path, Some(line), "walls[1]", &fragments);
    let out_dir = dir.0.join("out");
    let run = talus(&[
        "run",
        path.to_str().unwrap(),
        "--backend",
        "cpu",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(
        expect_error(&run, &path, Some(line), "walls[1]", &fragments),
        said,
        "the same verdict from check and run"
    );
    // just clear of them: accepted
    let clear = edit(&scene, "0.0055]", "0.0099]");
    let out = check(&dir.write("clear.toml", &clear));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A folder another run holds (its `talus.lock` names a live process: this
/// test's own) is refused in one line naming that run, and nothing in it
/// is touched; a lock that names no pid is refused too.
#[test]
fn a_folder_in_use_by_another_run() {
    let dir = TempDir::new("folder-in-use");
    let scene = dir.write("scene.toml", BASE);
    let out_dir = dir.0.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let comm = std::fs::read_to_string("/proc/self/comm")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let me = std::process::id();
    let lock = out_dir.join("talus.lock");
    std::fs::write(
        &lock,
        format!("pid {me}\nprocess {comm}\nhost {host}\nstarted 1795833812\n"),
    )
    .unwrap();
    std::fs::write(out_dir.join("energy.csv"), "the other run's rows\n").unwrap();
    let run = |out: &Path| {
        talus(&[
            "run",
            scene.to_str().unwrap(),
            "--backend",
            "cpu",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = run(&out_dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "error: {}: the run of pid {me}",
            out_dir.display()
        )) && err.contains("started 2026-11-28 02:43:32 UTC")
            && err.contains("is writing into this folder"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("energy.csv")).unwrap(),
        "the other run's rows\n",
        "a refused run touches nothing"
    );
    assert!(lock.exists(), "and leaves the other run's lock");
    // a lock that names no pid: refused, saying what to delete
    std::fs::write(&lock, "garbage").unwrap();
    let o = run(&out_dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("names no pid; delete it if no run is writing here"),
        "{err}"
    );
}

/// Started by an MPI launcher on several ranks (its environment) but built
/// without the `mpi` feature: rank 0 says how to build it in one line and
/// fails, the others end quietly, and none runs the scene on its own.
#[cfg(not(feature = "mpi"))]
#[test]
fn several_ranks_without_the_mpi_feature_are_refused() {
    let d = std::env::temp_dir().join(format!("talus_unbuilt_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/settle.toml");
    for (rank, says) in [("0", true), ("1", false)] {
        let o = Command::new(env!("CARGO_BIN_EXE_talus"))
            .args(["run", scene.to_str().unwrap(), "--steps", "5", "--out"])
            .arg(&d)
            .env("OMPI_COMM_WORLD_SIZE", "2")
            .env("OMPI_COMM_WORLD_RANK", rank)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.success(), !says, "rank {rank}: {err}");
        if says {
            assert_eq!(err.lines().count(), 1, "one line: {err}");
            assert!(
                err.starts_with("error: 2 ranks") && err.contains("--features mpi"),
                "{err}"
            );
        } else {
            assert!(err.is_empty(), "rank 1 is silent: {err}");
        }
        assert!(!d.exists(), "no run");
    }
}

// ------------------------------------------------------------------ shapes

/// `[[shapes]]` (issue 37): `check` lists each with its volume; a bad one
/// stops it in one line at its key.
#[test]
fn shapes_are_listed_by_check_and_bad_ones_refused() {
    let shapes = "\n[[shapes]]\nname = \"dumbbell\"\nspheres = [[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]]\n";
    let dir = TempDir::new("shapes");
    let scene = dir.write("scene.toml", &format!("{BASE}{shapes}"));
    let out = check(&scene);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // two spheres less their lens: 7.5063e-9 m³
    assert!(
        stdout.contains("shapes[0] dumbbell: 2 spheres, 7.5063e-9 m³"),
        "{stdout}"
    );
    let bad =
        format!("{BASE}\n[[shapes]]\nname = \"dumbbell\"\nspheres = [[0.0, 0.0, 0.0, -0.001]]\n");
    let line = line_of(&bad, "spheres = [[0.0, 0.0, 0.0, -0.001]]");
    check_fails(
        "shapes-bad",
        &bad,
        Some(line),
        "shapes[0].spheres[0]",
        &["radius must be finite and > 0 (got -0.001)"],
    );
}

/// The scene of [`BASE`] reading `particles.csv` with a dumbbell shape.
fn clump_scene(dir: &TempDir) -> PathBuf {
    let shapes = "\n[[shapes]]\nname = \"dumbbell\"\nspheres = [[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]]\n";
    dir.write(
        "scene.toml",
        &format!(
            "{}{shapes}",
            edit(BASE, GENERATOR, "file = \"particles.csv\"\n")
        ),
    )
}

/// The particle CSV's clump columns: an unknown shape, a zero quaternion,
/// a radius other than the shape's, an orientation on a sphere: one line
/// each at the file, line and column.
#[test]
fn csv_clump_rows_are_checked() {
    let head = "x,y,z,vx,vy,vz,wx,wy,wz,radius,material,shape,qw,qx,qy,qz\n";
    let cases = [
        (
            "0.005,0.005,0.005,0,0,0,0,0,0,,glass,cube,1,0,0,0",
            "column shape",
            "unknown shape \"cube\" (defined: dumbbell; empty: a sphere)",
        ),
        (
            "0.005,0.005,0.005,0,0,0,0,0,0,,glass,dumbbell,0,0,0,0",
            "column qw",
            "the orientation quaternion is zero",
        ),
        (
            "0.005,0.005,0.005,0,0,0,0,0,0,0.002,glass,dumbbell,1,0,0,0",
            "column radius",
            "a clump's radius is its shape's largest member radius, 1e-3 m",
        ),
        (
            "0.005,0.005,0.005,0,0,0,0,0,0,0.001,glass,,0,1,0,0",
            "column qw",
            "a sphere (shape empty) has no orientation",
        ),
    ];
    for (k, (row, key, want)) in cases.iter().enumerate() {
        let dir = TempDir::new(&format!("csv-clump-{k}"));
        let scene = clump_scene(&dir);
        let csv = dir.write("particles.csv", &format!("{head}{row}\n"));
        expect_error(&check(&scene), &csv, Some(2), key, &[want]);
    }
}

/// Clumps from a CSV and poured by `[[insert]] shape` run end to end on
/// both backends: `final.csv` has one row a particle with `shape,qw..qz`,
/// the snapshots draw every member with its orientation, the GPU pours
/// the same particles with the same ids, and a scene reading that
/// `final.csv` runs on, on the GPU too.
#[test]
fn clumps_run_end_to_end_on_both_backends() {
    let dir = TempDir::new("clumps-run");
    let scene = clump_scene(&dir);
    let text = std::fs::read_to_string(&scene).unwrap()
        + "\n[[insert]]\nregion = { min = [0.0, 0.0, 0.006], max = [0.01, 0.01, 0.01] }\nrate = 2000.0\nshape = \"dumbbell\"\nmaterial = \"glass\"\ncount = 3\n";
    std::fs::write(&scene, text).unwrap();
    dir.write(
        "particles.csv",
        "x,y,z,vx,vy,vz,wx,wy,wz,radius,material,shape,qw,qx,qy,qz\n\
         0.003,0.005,0.0012,0,0,0,0,0,0,,glass,dumbbell,1,0,0,0\n\
         0.007,0.005,0.0012,0,0,0,0,0,0,0.001,glass,,,,,\n",
    );
    let out_dir = dir.0.join("out");
    let out = talus(&[
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "cpu",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fin = std::fs::read_to_string(out_dir.join("final.csv")).unwrap();
    let mut lines = fin.lines();
    assert_eq!(
        lines.next(),
        Some("x,y,z,vx,vy,vz,wx,wy,wz,radius,material,id,shape,qw,qx,qy,qz")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 5, "{fin}");
    let clumps = rows.iter().filter(|r| r.contains(",dumbbell,")).count();
    assert_eq!(clumps, 4, "{fin}");
    let vtu = std::fs::read(out_dir.join("particles_00001.vtu")).unwrap();
    let vtu = String::from_utf8_lossy(&vtu);
    assert!(vtu.contains("Name=\"orientation\" NumberOfComponents=\"4\""));
    // analyze weighs a clump's members with its union's share: the box
    // holding every particle holds 4 dumbbells' union volume and a sphere's
    let out = talus(&[
        "analyze",
        out_dir.to_str().unwrap(),
        "fraction",
        "--region",
        "box:-0.001,-0.001,-0.001,0.011,0.011,0.011",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("5 particles (4 clumps of 9 spheres in all)"),
        "{said}"
    );
    let csv = std::fs::read_to_string(out_dir.join("analysis").join("fraction.csv")).unwrap();
    let solid: f64 = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth_back(1)
        .unwrap()
        .parse()
        .unwrap();
    let s = talus::scene::parse::load(&scene).unwrap();
    let union = s.shape_bodies()[0].volume;
    let want = 4.0 * union + 4.0 / 3.0 * std::f64::consts::PI * 1e-9;
    assert!((solid / want - 1.0).abs() < 1e-9, "{solid:e} vs {want:e}");
    // contacts between particles (a dumbbell's own members do not count)
    let out = talus(&["analyze", out_dir.to_str().unwrap(), "coordination"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("5 particles counted"),
        "{said}"
    );
    // the next scene starts from it
    let text = std::fs::read_to_string(&scene)
        .unwrap()
        .replace("file = \"particles.csv\"", "file = \"out/final.csv\"");
    let next = dir.write("next.toml", text.split("\n[[insert]]").next().unwrap());
    let out = talus(&["check", next.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = talus(&[
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "gpu",
        "--out",
        dir.0.join("gpu").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // the same particles (id, shape) as the CPU's run
    let kinds = |f: &str| -> Vec<(String, String)> {
        let t = std::fs::read_to_string(f).unwrap();
        t.lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                (c[11].to_string(), c[12].to_string())
            })
            .collect()
    };
    let gpu_fin = dir.0.join("gpu").join("final.csv");
    assert_eq!(
        kinds(gpu_fin.to_str().unwrap()),
        kinds(out_dir.join("final.csv").to_str().unwrap())
    );
    // the clumps of that final.csv run on the GPU: one row a particle back
    let gpu_out = dir.0.join("gpu-next");
    let out = talus(&[
        "run",
        next.to_str().unwrap(),
        "--backend",
        "gpu",
        "--out",
        gpu_out.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fin = std::fs::read_to_string(gpu_out.join("final.csv")).unwrap();
    let rows: Vec<&str> = fin.lines().skip(1).collect();
    assert_eq!(rows.len(), 5, "{fin}");
    assert_eq!(rows.iter().filter(|r| r.contains(",dumbbell,")).count(), 4);
}

/// `[[bonds]]`: `talus check` reports the bonds formed at t = 0 and the
/// step they allow, and when later entries form theirs; a bad bond value
/// is one located line.
#[test]
fn bonds_are_reported_and_bad_ones_refused() {
    let bonds =
        "\n[[bonds]]\nmaterials = [\"glass\", \"glass\"]\ngap = 1e-3\nyoungs_modulus = 1e9\n";
    let scene = format!("{BASE}{bonds}");
    let dir = TempDir::new("bonds");
    let path = dir.write("scene.toml", &scene);
    let out = check(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && stdout.contains("formed at t = 0 by 1 [[bonds]] entry")
            && stdout.contains("on a sphere; the fastest mode"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // bonds that form later in the run: when, and what dt cannot see
    let later = format!("{scene}at = 0.01\n");
    let path = dir.write("later.toml", &later);
    let out = check(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("bonds[0] forms its bonds at t = 1e-2 s"),
        "{stdout}"
    );
    check_fails(
        "bonds_ratio",
        &format!("{scene}radius_ratio = 0.0\n"),
        Some(line_of(
            &format!("{scene}radius_ratio = 0.0\n"),
            "radius_ratio",
        )),
        "bonds[0].radius_ratio",
        &["expected a ratio > 0"],
    );
    check_fails(
        "bonds_material",
        &scene.replace("[\"glass\", \"glass\"]", "[\"glass\", \"rock\"]"),
        Some(line_of(&scene, "materials = [\"glass\", \"glass\"]")),
        "bonds[0].materials[1]",
        &["unknown material \"rock\""],
    );
}
