//! The validation cases of `talus validate` (docs/validation.md) as tests:
//! every case on the CPU path, and on the GPU path through `test_context()`
//! (skipped with a printed reason when there is no adapter, a failure with
//! TALUS_REQUIRE_GPU=1 as in CI, where lavapipe runs them). The FEM-only
//! cases (fem-*) run on the CPU only: the FEM side is the same f64 code
//! under both backends, and their GPU test just leaves a note. The long
//! cases (`talus validate --full`'s) are `#[ignore = "long: …"]`: `cargo
//! test -p talus-studies --test validation -- --ignored` runs them (add
//! a case's name to run one, e.g. `ferrez_packings::cpu`).

use talus::gpu::context::test_context;
use talus_studies::validate::{self, report, table, CaseRun, CpuMaker, GpuMaker, Maker, Options};

/// Runs one case with its judged options, prints its table, fails with
/// the rows out of tolerance.
fn check(id: &str, maker: &mut dyn Maker) {
    let def = validate::case(id);
    let r = validate::run_case(def, maker, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let run = CaseRun {
        def,
        results: vec![(maker.name().to_string(), Ok(r.clone()))],
    };
    println!("{}", table::table(&[run]));
    for n in &r.notes {
        println!("{n}");
    }
    println!("{:.2} s on {}", r.seconds, maker.name());
    let failed: Vec<String> = r
        .failures()
        .iter()
        .map(|row| {
            format!(
                "{} / {}: expected {}, measured {}",
                row.case, row.quantity, row.expected, row.measured
            )
        })
        .collect();
    assert!(
        failed.is_empty(),
        "case {id} on {}:\n{}",
        maker.name(),
        failed.join("\n")
    );
}

fn gpu(id: &str) {
    let Some(ctx) = test_context() else { return };
    check(id, &mut GpuMaker { ctx });
}

/// A module per case with its `cpu` and `gpu` tests; `gpu_ignored =
/// "why"` after a case marks its `gpu` test ignored with the reason (a
/// run long on a software adapter: `--ignored`, or `talus validate --cases
/// ID --backend gpu`, runs it).
macro_rules! cases {
    ($($name:ident => $id:expr $(, gpu_ignored = $why:literal)?);* $(;)?) => {$(
        mod $name {
            #[test]
            fn cpu() {
                super::check($id, &mut super::CpuMaker);
            }
            #[test]
            $(#[ignore = $why])?
            fn gpu() {
                super::gpu($id);
            }
        }
    )*};
}

/// The same for the long cases, both tests ignored with the reason;
/// `LONG` lists their ids.
macro_rules! long_cases {
    ($($name:ident => $id:expr, $why:literal),* $(,)?) => {
        const LONG: &[&str] = &[$($id),*];
        $(
            mod $name {
                #[test]
                #[ignore = $why]
                fn cpu() {
                    super::check($id, &mut super::CpuMaker);
                }
                #[test]
                #[ignore = $why]
                fn gpu() {
                    super::gpu($id);
                }
            }
        )*
    };
}

cases! {
    case1_two_spheres_hertz => "1";
    case2_sphere_wall_hertz => "2";
    case3_restitution => "3";
    case4_oblique_angles => "4";
    case5_oblique_tangential_speed => "5";
    case6_spin_on_wall => "6";
    case7_counter_spinning_pair => "7";
    case8_small_on_large_sphere => "8";
    linear_spring_dashpot => "linear";
    rolling_resistance_and_sliding => "rolling";
    rolling_spring_holds_rolls_and_stops => "rolling-spring";
    cohesion_rest_and_hold => "cohesion";
    jkr_snap_in_rest_and_pull_off => "jkr";
    bonds_cantilevers_deflection_and_frequency => "bonds";
    energy_balance_settling => "energy";
    fem_rod_on_rigid_plane => "fem-rod";
    fem_wave_arrival => "fem-wave";
    fem_cantilever => "fem-cantilever";
    fem_spinning_body => "fem-spin";
    clump_rotation_free_top => "clump-top";
    clump_impacts => "clump-impact";
    clump_domino_tipping => "clump-domino", gpu_ignored = "long on lavapipe: 2.4e5 steps, 2 min (talus validate --cases clump-domino --backend gpu)";
    coupled_momentum_and_bed_weight => "coupled";
}

long_cases! {
    packing_fraction => "packing", "long: a settled random packing (talus validate --full)",
    plate_under_grains => "plate", "long: grains settled on an FEM plate (talus validate --full)",
    silo_and_hopper_discharge => "beverloo", "long: 28 000 beads discharged from a silo and a hopper (talus validate --full)",
    ferrez_packings => "ferrez", "long: four packings settled and tapped (talus validate --full)",
    ferrez_tapping_study => "tapping", "long: 5 592 spheres tapped at four frequencies (talus validate --full)",
    hourglass_turned_over => "hourglass", "long: three hourglasses run and turned over (talus validate --full)",
    column_collapse => "collapse", "long: six columns settled and released (talus validate --full)",
    particles_on_the_slope => "slope", "long: beads flowing down a slope (talus validate --full)",
    rotating_drum => "drum", "long: a drum rotated at several rates (talus validate --full)",
    clump_heap_against_liggghts => "clump-heap", "long: dumbbells, tetrahedra and spheres poured into heaps (talus validate --full)",
    heaps_with_cohesion_and_rolling_springs => "heap-models", "long: cohesive and rolling-resistant sphere heaps (talus validate --full)",
    beam_fracture => "beam", "long: a bonded fixed-end beam pushed to fracture (talus validate --full)",
    agglomerate_fragments => "agglomerate", "long: a bonded ball dropped on a plate at three speeds (talus validate --full)",
    settling_column => "settle", "long: 4 000 beads settled in a box (talus validate --full)",
    die_compaction => "compaction", "long: 1 500 beads compacted by a servo piston (talus validate --full)",
}

/// The long tests are exactly the cases only `--full` runs.
#[test]
fn the_ignored_tests_are_the_long_cases() {
    let full: Vec<&str> = validate::cases::CASES
        .iter()
        .filter(|c| c.full)
        .map(|c| c.id)
        .collect();
    assert_eq!(full, LONG);
}

/// Every case is covered above, and the report (table, report.md, PNGs,
/// data files) is written for a cheap case.
#[test]
fn report_is_written() {
    let ids: Vec<&str> = validate::cases::CASES.iter().map(|c| c.id).collect();
    assert_eq!(
        ids,
        [
            "1",
            "2",
            "3",
            "4",
            "5",
            "6",
            "7",
            "8",
            "linear",
            "rolling",
            "rolling-spring",
            "cohesion",
            "jkr",
            "bonds",
            "energy",
            "fem-rod",
            "fem-wave",
            "fem-cantilever",
            "fem-spin",
            "clump-top",
            "clump-impact",
            "clump-domino",
            "coupled",
            "packing",
            "plate",
            "beverloo",
            "ferrez",
            "tapping",
            "hourglass",
            "collapse",
            "slope",
            "drum",
            "clump-heap",
            "heap-models",
            "beam",
            "agglomerate",
            "settle",
            "compaction"
        ],
        "a case was added: add it to tests/validation.rs"
    );
    let def = validate::case("1");
    let r = validate::run_case(def, &mut CpuMaker, &Options::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("talus-validate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let runs = [CaseRun {
        def,
        results: vec![("cpu".into(), Ok(r))],
    }];
    report::write(&dir, &runs, None, &[], false).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("## Case 1") && md.contains("| 1 glass | F_max [N] |"),
        "{md}"
    );
    let png = std::fs::read(dir.join("case1_force.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(dir.join("data").join("1.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
