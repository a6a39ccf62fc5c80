//! The validation cases of `talus validate` (docs/validation.md) as tests:
//! every case on the CPU path, and on the GPU path through `test_context()`
//! (skipped with a printed reason when there is no adapter, a failure with
//! TALUS_REQUIRE_GPU=1 as in CI, where lavapipe runs them). The FEM-only
//! cases (fem-*) run on the CPU only: the FEM side is the same f64 code
//! under both backends, and their GPU test just leaves a note. The long
//! cases (packing, plate) run only with TALUS_FULL=1.

use talus::gpu::context::test_context;
use talus_studies::validate::{self, report, table, CaseRun, CpuMaker, GpuMaker, Maker, Options};

fn full() -> bool {
    std::env::var("TALUS_FULL").is_ok_and(|v| v == "1")
}

/// Runs one case, prints its table, fails with the rows out of tolerance.
fn check(id: &str, maker: &mut dyn Maker) {
    let def = validate::case(id);
    if def.full && !full() {
        eprintln!("skipping case {id} ({}): long, set TALUS_FULL=1", def.title);
        return;
    }
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

macro_rules! cases {
    ($($name:ident => $id:expr),* $(,)?) => {$(
        mod $name {
            #[test]
            fn cpu() {
                super::check($id, &mut super::CpuMaker);
            }
            #[test]
            fn gpu() {
                super::gpu($id);
            }
        }
    )*};
}

cases! {
    case1_two_spheres_hertz => "1",
    case2_sphere_wall_hertz => "2",
    case3_restitution => "3",
    case4_oblique_angles => "4",
    case5_oblique_tangential_speed => "5",
    case6_spin_on_wall => "6",
    case7_counter_spinning_pair => "7",
    case8_small_on_large_sphere => "8",
    linear_spring_dashpot => "linear",
    rolling_resistance_and_sliding => "rolling",
    energy_balance_settling => "energy",
    fem_rod_on_rigid_plane => "fem-rod",
    fem_wave_arrival => "fem-wave",
    fem_cantilever => "fem-cantilever",
    fem_spinning_body => "fem-spin",
    coupled_momentum_and_bed_weight => "coupled",
    packing_fraction => "packing",
    plate_under_grains => "plate",
    silo_and_hopper_discharge => "beverloo",
    ferrez_packings => "ferrez",
    ferrez_tapping_study => "tapping",
    hourglass_turned_over => "hourglass",
    column_collapse => "collapse",
    particles_on_the_slope => "slope",
    rotating_drum => "drum",
    settling_column => "settle",
    die_compaction => "compaction",
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
            "energy",
            "fem-rod",
            "fem-wave",
            "fem-cantilever",
            "fem-spin",
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
            "settle",
            "compaction"
        ],
        "a case was added: add it to tests/validation.rs"
    );
    let def = validate::case("1");
    let r = validate::run_case(def, &mut CpuMaker, &Options::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("talus-validate-{}", std::process::id()));
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
