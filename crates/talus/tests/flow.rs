//! Pouring and outlets on the CPU reference path (the GPU twin is checked
//! against it in `tests/gpu_flow.rs`): inserted particles never overlap
//! what is there, the rate and the cap are kept, a full region's shortfall
//! is reported and made up, the size distribution is the one asked for,
//! candidates depend only on the scene, outlets and the open domain take
//! particles with their mass, and the balance initial + inserted = present
//! + removed holds exactly.

use std::collections::HashSet;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::flow::InsertPlan;
use talus::run::{run, RunConfig};
use talus::scene::{Insert, InsertRate, Material, Outlet, RadiusDist, Region, Scene, SceneBuilder};

fn glass() -> Material {
    let mut m = Material::new("glass", 2500.0, 5e6);
    m.restitution = 0.5;
    m.friction = 0.3;
    m
}

fn pour(rate: f64, radius: RadiusDist, count: Option<u64>) -> Insert {
    Insert {
        region: Region::Box {
            min: [0.002, 0.002, 0.05],
            max: [0.038, 0.038, 0.07],
        },
        rate: InsertRate::Count(rate),
        radius,
        material: 0,
        velocity: [0.0, 0.0, -0.3],
        start: 0.0,
        stop: None,
        count,
        interval: None,
        shape: None,
        orientation: Default::default(),
    }
}

/// A 4 × 4 × 8 cm box with a floor and side walls, poured into.
fn bin(insert: Insert) -> SceneBuilder {
    SceneBuilder::new("pour")
        .domain([0.0, 0.0, 0.0], [0.04, 0.04, 0.08])
        .material(glass())
        .wall([0.0; 3], [0.0, 0.0, 1.0], "glass")
        .wall([0.0; 3], [1.0, 0.0, 0.0], "glass")
        .wall([0.04, 0.0, 0.0], [-1.0, 0.0, 0.0], "glass")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "glass")
        .wall([0.0, 0.04, 0.0], [0.0, -1.0, 0.0], "glass")
        .add_insert(insert)
}

fn min_gap_ratio(p: &talus::state::Particles<f64>, new: &HashSet<u32>) -> f64 {
    // the closest approach of a new particle to any other, over r_i + r_j
    let mut worst = f64::INFINITY;
    for i in 0..p.len() {
        if !new.contains(&p.id[i]) {
            continue;
        }
        for j in 0..p.len() {
            if i == j {
                continue;
            }
            let (a, b) = (p.pos_rad[i], p.pos_rad[j]);
            let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
            worst = worst.min(d / (a[3] + b[3]));
        }
    }
    worst
}

/// Every batch placed at the moment of insertion is clear of every
/// particle present (gap ratio ≥ 1) and never more than the rate asks:
/// poured under gravity (each batch lands among the last ones, which have
/// fallen less than a diameter: the shortfall is made up) and into a
/// region that stays crowded (no gravity, slow: most candidates overlap
/// earlier particles and are refused).
#[test]
fn inserted_particles_never_overlap_and_follow_the_rate() {
    for crowded in [false, true] {
        let mut ins = pour(
            20000.0,
            RadiusDist::Uniform {
                min: 0.0008,
                max: 0.0012,
            },
            Some(1500),
        );
        ins.interval = Some(0.002);
        let mut sb = bin(ins).duration(0.2);
        if crowded {
            sb = sb.gravity([0.0; 3]);
        }
        let mut scene = sb.build().unwrap();
        if crowded {
            scene.inserts[0].velocity = [0.0, 0.0, -0.05];
        }
        let mut b = CpuBackend::new(&scene).unwrap();
        let plan = InsertPlan::new(&scene);
        let (mut batches, mut short) = (0, 0);
        for _ in 0..4000 {
            let before: HashSet<u32> = b.st.particles.id.iter().copied().collect();
            b.st.insert_due().unwrap();
            let new: HashSet<u32> =
                b.st.particles
                    .id
                    .iter()
                    .copied()
                    .filter(|i| !before.contains(i))
                    .collect();
            if !new.is_empty() {
                batches += 1;
                let r = min_gap_ratio(&b.st.particles, &new);
                assert!(
                    r >= 1.0,
                    "step {}: a new particle overlaps (gap ratio {r})",
                    b.st.step
                );
            }
            // this step's batch is in: the step's own call inserts nothing more
            b.advance(1).unwrap();
            let asked = plan.target_before(0, b.st.step);
            let placed = b.st.flow.inserted[0];
            assert!(placed <= asked, "step {}: {placed} > {asked}", b.st.step);
            short += (placed < asked) as u32;
        }
        assert!(batches >= 15, "{batches} batches");
        assert_eq!(b.st.particles.len() as u64, b.st.flow.inserted[0]);
        let (placed, asked) = (b.st.flow.inserted[0], plan.target_before(0, 4000));
        eprintln!("crowded {crowded}: {batches} batches, {placed} of {asked} placed, short after {short} steps");
        if crowded {
            assert!(short > 1000 && placed < asked, "the region should refuse");
        } else {
            assert_eq!(placed, asked);
        }
    }
    // the cap
    let scene = bin(pour(20000.0, RadiusDist::Constant(0.001), Some(1500)))
        .duration(1.0)
        .build()
        .unwrap();
    assert_eq!(InsertPlan::new(&scene).target_before(0, 1_000_000), 1500);
}

/// An entry with a `stop` asks for rate × (stop − start) in all, within
/// one particle, whatever its interval and the time step, and no batch's
/// share runs ahead of the time it covers (from its step to the next
/// batch's, or to `stop`). Issue 35's case: 30 000 /s from 0 to 0.1 s in
/// batches 0.05 s apart asked for 4499 when dt did not divide the
/// interval (a last batch one step before `stop` asked for a whole
/// interval's share); `mass_rate` likewise in mass.
#[test]
fn insertion_stops_at_its_rate_times_its_duration() {
    let cases = [
        // rate (/s or kg/s), mass?, start, stop, interval, dt
        (30000.0, false, 0.0, 0.1, Some(0.05), 1.7e-5),
        (30000.0, false, 0.0, 0.1, None, 1.7e-5),
        (30000.0, false, 0.0, 0.1, Some(0.05), 1e-5),
        (1000.0, false, 0.013, 0.2, Some(0.03), 2.3e-5),
        (12345.0, false, 0.0, 0.07, Some(0.0099), 1.1e-5),
        (500.0, false, 0.001, 0.0101, Some(0.00133), 7e-6),
        (7777.0, false, 0.0, 0.5, Some(0.5), 1.3e-5),
        (0.02, true, 0.004, 0.09, Some(0.011), 1.9e-5),
    ];
    for (rate, mass, start, stop, interval, dt) in cases {
        let mut ins = pour(rate, RadiusDist::Constant(0.001), None);
        if mass {
            ins.rate = InsertRate::Mass(rate);
        }
        (ins.start, ins.stop, ins.interval) = (start, Some(stop), interval);
        let scene = bin(ins).dt(dt).duration(1.0).build().unwrap();
        let plan = InsertPlan::new(&scene);
        let per_s = if mass {
            let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.001f64.powi(3);
            rate / m
        } else {
            rate
        };
        let case = format!("{rate} from {start} to {stop} s every {interval:?} s, dt {dt}");
        let batches = plan.schedule(0, u64::MAX);
        assert!(!batches.is_empty(), "{case}: no batch");
        let mut before = 0;
        for (k, b) in batches.iter().enumerate() {
            let at = b.step as f64 * dt;
            assert!(
                at < stop * (1.0 - 1e-12),
                "{case}: a batch at {at} s, not before stop"
            );
            // the time this batch covers
            let end = batches.get(k + 1).map_or(stop, |n| n.step as f64 * dt);
            let covers = end - (b.step as f64 * dt).max(start);
            let share = b.target - before;
            assert!(
                share as f64 <= per_s * covers + 1.0,
                "{case}: batch {k} asks {share} for {covers} s"
            );
            before = b.target;
        }
        let want = per_s * (stop - start);
        assert!(
            (before as f64 - want).abs() <= 1.0,
            "{case}: {before} asked in all, {want} by the rate"
        );
        assert_eq!(plan.max_inserted(u64::MAX), before, "{case}");
    }
}

/// The radii inserted follow the distribution: uniform in [min, max]
/// (mean and spread within 4 standard errors), and a two-size mass
/// distribution read from a scene file keeps its mass fractions.
#[test]
fn inserted_sizes_follow_the_distribution() {
    let (lo, hi) = (0.0006, 0.0012);
    let mut ins = pour(1e5, RadiusDist::Uniform { min: lo, max: hi }, Some(3000));
    ins.region = Region::Box {
        min: [0.001, 0.001, 0.001],
        max: [0.039, 0.039, 0.079],
    };
    let scene = bin(ins).gravity([0.0; 3]).duration(0.1).build().unwrap();
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(2000).unwrap();
    let r: Vec<f64> = b.st.particles.pos_rad.iter().map(|p| p[3]).collect();
    let n = r.len() as f64;
    assert!(n >= 2000.0, "{n} inserted");
    let mean = r.iter().sum::<f64>() / n;
    let sd_uniform = (hi - lo) / 12f64.sqrt();
    assert!(
        (mean - 0.5 * (lo + hi)).abs() < 4.0 * sd_uniform / n.sqrt(),
        "mean radius {mean}"
    );
    let var = r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    assert!(
        (var.sqrt() / sd_uniform - 1.0).abs() < 0.1,
        "spread {} vs {sd_uniform}",
        var.sqrt()
    );
    assert!(r.iter().all(|&x| (lo..=hi).contains(&x)));
}

/// Candidates depend on the scene and the batch only: the same batch
/// twice, and from a plan made again, is the same bits; another seed
/// gives others.
#[test]
fn candidates_depend_only_on_the_scene() {
    let scene = bin(pour(5000.0, RadiusDist::Constant(0.001), None))
        .duration(0.1)
        .build()
        .unwrap();
    let (p1, p2) = (InsertPlan::new(&scene), InsertPlan::new(&scene));
    for at in p1.schedule(0, 5000) {
        let (a, b) = (p1.batch(at), p2.batch(at));
        assert_eq!(a.candidates, b.candidates);
        assert!(!a.candidates.is_empty());
    }
    let mut other = scene.clone();
    other.simulation.seed = 7;
    let p3 = InsertPlan::new(&other);
    let at = p1.schedule(0, 1)[0];
    assert_ne!(
        p1.batch(at).candidates.pos_rad,
        p3.batch(at).candidates.pos_rad
    );
}

/// A region already full of particles (a jammed layer, no gravity) places
/// nothing; the run reports the shortfall in summary.json; once the layer
/// is gone (here: an outlet takes it) the next batches make it up.
#[test]
fn a_full_region_reports_its_shortfall() {
    let mut ins = pour(2000.0, RadiusDist::Constant(0.001), Some(40));
    ins.region = Region::Box {
        min: [0.0, 0.0, 0.05],
        max: [0.04, 0.04, 0.06],
    };
    let mut sb = bin(ins)
        .gravity([0.0; 3])
        .duration(0.06)
        .output_interval(0.01);
    // a lattice of resting spheres, 2.1 mm apart, through the region
    for i in 0..19 {
        for j in 0..19 {
            for k in 0..5 {
                let p = [
                    0.0011 + 0.0021 * i as f64,
                    0.0011 + 0.0021 * j as f64,
                    0.0501 + 0.0021 * k as f64,
                ];
                sb = sb.particle(p, [0.0; 3], 0.001, "glass");
            }
        }
    }
    let scene = sb.build().unwrap();
    let out = std::env::temp_dir().join(format!("talus-short-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut b = CpuBackend::new(&scene).unwrap();
    let cfg = RunConfig::new(
        &talus::Setup::new(scene.clone()).unwrap(),
        out.clone(),
        scene.steps(),
    );
    let s = run(&scene, &mut b, &cfg).unwrap();
    assert_eq!(s.inserted, 0, "the region is full");
    assert_eq!(s.insert_shortfall, vec![40]);
    let json = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(json.contains("\"insert_shortfall\": [\n    40"), "{json}");
    // and says so among its warnings
    assert_eq!(
        s.warnings,
        ["insert[0] placed 40 fewer particles than its rate asked: its region was full"]
    );
    assert!(
        json.contains("\"warnings\": [\n    \"insert[0] placed 40"),
        "{json}"
    );

    // the same with an outlet that empties the region at once: the
    // shortfall of the first batches is made up
    let mut scene2 = scene.clone();
    scene2.outlets.push(Outlet {
        name: Some("clear".into()),
        region: Region::Box {
            min: [0.0, 0.0, 0.0495],
            max: [0.04, 0.04, 0.0615],
        },
    });
    // the outlet would take the inserted ones too: insert above it instead
    scene2.inserts[0].region = Region::Box {
        min: [0.0, 0.0, 0.062],
        max: [0.04, 0.04, 0.075],
    };
    let mut b2 = CpuBackend::new(&scene2).unwrap();
    b2.advance(scene2.steps()).unwrap();
    assert_eq!(b2.st.flow.inserted[0], 40);
}

/// A column falls through an outlet while more is poured in: the outlet
/// counts what it took (flow.csv), the balance initial + inserted =
/// present + removed holds exactly, the masses to rounding, and the
/// energy balance stays closed with the energy that came and went.
#[test]
fn outlet_mass_balance_is_exact() {
    let mut ins = pour(
        8000.0,
        RadiusDist::Uniform {
            min: 0.0008,
            max: 0.001,
        },
        None,
    );
    ins.stop = Some(0.08);
    let mut sb = SceneBuilder::new("drain")
        .domain([0.0, 0.0, 0.0], [0.04, 0.04, 0.08])
        .material(glass())
        .add_insert(ins)
        .add_outlet(Outlet {
            name: Some("bottom".into()),
            region: Region::Cylinder {
                center: [0.02, 0.02, 0.0],
                axis: [0.0, 0.0, 1.0],
                radius: 0.03,
                length: 0.01,
            },
        })
        .duration(0.15)
        .output_interval(0.01);
    for k in 0..40 {
        sb = sb.particle(
            [
                0.01 + 0.005 * (k % 4) as f64,
                0.02,
                0.012 + 0.0021 * (k / 4) as f64,
            ],
            [0.0; 3],
            0.001,
            "glass",
        );
    }
    let scene = sb.build().unwrap();
    let out = std::env::temp_dir().join(format!("talus-drain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut b = CpuBackend::new(&scene).unwrap();
    let cfg = RunConfig::new(
        &talus::Setup::new(scene.clone()).unwrap(),
        out.clone(),
        scene.steps(),
    );
    let s = run(&scene, &mut b, &cfg).unwrap();
    assert!(s.inserted > 300 && s.removed > 100, "{s:?}");
    assert_eq!(s.particles as u64 + s.inserted, s.particles_end + s.removed);
    let m0: f64 = scene.total_mass();
    let present: f64 = b.st.particles.vel_invm.iter().map(|v| 1.0 / v[3]).sum();
    let rel = (m0 + s.inserted_mass - present - s.removed_mass).abs() / (m0 + s.inserted_mass);
    assert!(rel < 1e-12, "mass balance off by {rel}");
    // flow.csv's last rows: cumulative removals per outlet
    let flow = std::fs::read_to_string(out.join("flow.csv")).unwrap();
    assert!(flow.starts_with("t,outlet,count,mass\n"));
    let last: Vec<&str> = flow.lines().rev().take(2).collect();
    assert!(
        last[1].contains(",bottom,") && last[0].contains(",domain,"),
        "{last:?}"
    );
    let taken: u64 = last[1].split(',').nth(2).unwrap().parse().unwrap();
    assert_eq!(taken, s.removed);
    assert!(
        s.energy_residual_relative < 0.01,
        "{}",
        s.energy_residual_relative
    );
    // an outlet taking particles is what the scene asks: no warning
    assert_eq!(s.warnings, Vec::<String>::new());
}

/// `summary.json`'s warnings: each cause alone, at and past its threshold.
#[test]
fn warnings_name_what_makes_a_run_doubtful() {
    use talus::run::driver::{warnings, WARN_OVERLAP, WARN_RESIDUAL};
    assert!(warnings(WARN_RESIDUAL, WARN_OVERLAP, 0, &[0, 0]).is_empty());
    let w = warnings(0.39, 0.0, 0, &[]);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("the energy balance is off by 39.0 %"),
        "{w:?}"
    );
    assert_eq!(warnings(f64::NAN, 0.0, 0, &[]).len(), 1, "a NaN residual");
    let w = warnings(0.0, 0.45, 0, &[]);
    assert!(
        w[0].starts_with("the largest overlap reached 0.450"),
        "{w:?}"
    );
    let w = warnings(0.0, 0.0, 12, &[0, 3]);
    assert_eq!(
        w,
        [
            "12 particles left the domain through its open faces and were removed (flow.csv, outlet \"domain\")",
            "insert[1] placed 3 fewer particles than its rate asked: its region was full"
        ]
    );
}

/// A particle shot out of an open domain is removed (counted as the
/// outlet `domain`), not kept in the edge cells.
#[test]
fn leaving_the_open_domain_removes_the_particle() {
    let scene = SceneBuilder::new("escape")
        .domain([0.0; 3], [0.02, 0.02, 0.02])
        .material(glass())
        .gravity([0.0; 3])
        .particle([0.01, 0.01, 0.01], [2.0, 0.0, 0.0], 0.001, "glass")
        .particle([0.005, 0.01, 0.01], [0.0, 0.0, 0.0], 0.001, "glass")
        .dt(1e-5)
        .steps(1000)
        .build()
        .unwrap();
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(1000).unwrap();
    assert_eq!(b.st.particles.id, vec![1]);
    let ev = b.flow_events();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].id, 0);
    assert_eq!(
        ev[0].kind,
        talus::flow::FlowKind::Removed(0),
        "the domain is outlet 0 here"
    );
    // it left at x = 0.02: after (0.02 − 0.01) / 2 m/s = 5 ms = 500 steps
    assert!((ev[0].step as i64 - 501).abs() <= 1, "step {}", ev[0].step);
}

/// A scene may start empty when it pours.
#[test]
fn a_scene_may_start_empty() {
    let scene: Scene = bin(pour(3000.0, RadiusDist::Constant(0.001), Some(50)))
        .duration(0.05)
        .build()
        .unwrap();
    assert!(scene.particles.is_empty());
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(scene.steps()).unwrap();
    assert_eq!(b.st.particles.len(), 50);
}

/// `flow.csv`'s rows are dated like the energy rows, a step back from
/// when they are written: the t = 0 row counts nothing an outlet takes at
/// the end of step 1 (particles that start inside it), the next row does.
#[test]
fn the_first_flow_row_counts_nothing_yet() {
    let mut sb = SceneBuilder::new("start-in-outlet")
        .domain([0.0, 0.0, 0.0], [0.02, 0.02, 0.02])
        .material(glass())
        .add_outlet(Outlet {
            name: Some("sink".into()),
            region: Region::Box {
                min: [0.0, 0.0, 0.0],
                max: [0.02, 0.02, 0.005],
            },
        })
        .steps(20)
        .output_interval(1e-9);
    for k in 0..3 {
        sb = sb.particle(
            [0.005 + 0.005 * k as f64, 0.01, 0.002],
            [0.0; 3],
            0.001,
            "glass",
        );
    }
    sb = sb.particle([0.01, 0.01, 0.015], [0.0; 3], 0.001, "glass");
    let scene = sb.build().unwrap();
    let out = std::env::temp_dir().join(format!("talus-flow-t0-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut b = CpuBackend::new(&scene).unwrap();
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let cfg = RunConfig::new(&setup, out.clone(), 5);
    let s = run(&scene, &mut b, &cfg).unwrap();
    assert_eq!(s.removed, 3);
    let flow = std::fs::read_to_string(out.join("flow.csv")).unwrap();
    let sink: Vec<(f64, u64)> = flow
        .lines()
        .filter(|l| l.contains(",sink,"))
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0].parse().unwrap(), c[2].parse().unwrap())
        })
        .collect();
    assert_eq!(sink[0], (0.0, 0), "{flow}");
    assert_eq!(sink[1].1, 3, "{flow}");
    let _ = std::fs::remove_dir_all(&out);
}
