//! `[[fixed]]`: particles held at rest, both paths. A floor of glued
//! grains (a held lattice layer, no wall at all) catches beads dropped on
//! it: the held grains keep their positions to the bit and zero velocity,
//! the beads come to rest on them, the held grains carry the beads'
//! weight (their contact forces are summed like any particle's), and the
//! energy balance closes. The held copies of a material are the scene's
//! business (`Scene::hold_fixed`): a resumed run holds the same grains.

use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{context::test_context, GpuBackend};
use talus::scene::{Material, Region, Scene, SceneBuilder};

const L: f64 = 0.008;
const R: f64 = 0.0005;

/// A 8 × 8 held layer of beads (spacing 2R, z = R, periodic in x and y)
/// under 32 free beads of the same size dropped over its hollows.
fn glued_floor() -> Scene {
    let mut b = SceneBuilder::new("glued floor")
        .domain([0.0, 0.0, -0.002], [L, L, 0.02])
        .periodic([true, true, false])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(DT_SAFETY)
        .steps(1)
        .material(Material {
            restitution: 0.1,
            ..Material::new("glass", 2500.0, 5e6)
        })
        .fixed(Region::Box {
            min: [0.0, 0.0, 0.0],
            max: [L, L, 2.0 * R],
        });
    for i in 0..8 {
        for j in 0..8 {
            let p = [(2 * i + 1) as f64 * R, (2 * j + 1) as f64 * R, R];
            b = b.particle(p, [0.0; 3], R, "glass");
        }
    }
    // over every other hollow of the layer, half of them off by 0.3 R (they
    // roll in)
    for k in 0..FREE {
        let (i, j, l) = (k % 4, (k / 4) % 4, k / 16);
        let p = [
            ((4 * i + 2 + 2 * l) as f64 * R + 0.3 * R * (k % 2) as f64) % L,
            ((4 * j + 2 + 2 * l) as f64 * R) % L,
            0.004 + 0.002 * l as f64,
        ];
        b = b.particle(p, [0.0, 0.0, -0.2], R, "glass");
    }
    b.build().unwrap()
}

const DT_SAFETY: f64 = 0.1;
const STEPS: u64 = 16000;
const HELD: usize = 64;
const FREE: usize = 32;

/// Runs the floor; checks what both paths must give; returns the free
/// beads' mean height at the end.
fn check(b: &mut dyn Backend, name: &str) -> f64 {
    let start = b.snapshot();
    let held: Vec<usize> = (0..start.id.len())
        .filter(|&i| start.pos_rad[i][2] < 2.0 * R)
        .collect();
    assert_eq!(held.len(), HELD);
    b.advance(1).unwrap();
    let t0 = b.diagnostics().total();
    b.advance(STEPS).unwrap();
    let d = b.diagnostics();
    let end = b.snapshot();
    let by_id =
        |p: &talus::state::Particles<f64>, id: u32| p.id.iter().position(|&x| x == id).unwrap();
    for &i in &held {
        let j = by_id(&end, start.id[i]);
        assert_eq!(
            end.pos_rad[j], start.pos_rad[i],
            "{name}: a held grain moved"
        );
        assert_eq!(
            &end.vel_invm[j][..3],
            &[0.0; 3],
            "{name}: a held grain has a velocity"
        );
        assert_eq!(
            &end.omega_invi[j][..3],
            &[0.0; 3],
            "{name}: a held grain spins"
        );
    }
    let free: Vec<usize> = (0..end.id.len())
        .filter(|&j| !held.iter().any(|&i| start.id[i] == end.id[j]))
        .collect();
    assert_eq!(free.len(), FREE, "{name}: beads were lost");
    let lowest = free
        .iter()
        .map(|&j| end.pos_rad[j][2])
        .fold(f64::INFINITY, f64::min);
    assert!(
        lowest > 2.0 * R,
        "{name}: a bead fell through the floor (z = {lowest})"
    );
    let residual = (d.total() - t0).abs() / d.dissipated;
    println!(
        "{name}: lowest free bead at z = {lowest:.4e} m, largest speed {:.2e} m/s, energy residual {residual:.1e} of the dissipated",
        d.max_speed
    );
    assert!(
        d.max_speed < 1e-3,
        "{name}: not at rest ({} m/s)",
        d.max_speed
    );
    assert!(residual < 1e-2, "{name}: energy residual {residual:e}");
    free.iter().map(|&j| end.pos_rad[j][2]).sum::<f64>() / free.len() as f64
}

#[test]
fn held_grains_stay_put_and_carry_what_rests_on_them_cpu() {
    let scene = glued_floor();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    check(&mut cpu, "cpu");
    // the held grains carry the beads' weight: the vertical force on them
    // (their contact sums, read from the CPU's work arrays) is the free
    // beads' weight at rest
    let st = &cpu.st;
    let from = st.held_from;
    let (mut f_held, mut weight) = (0.0, 0.0);
    for i in 0..st.particles.id.len() {
        if st.particles.material[i] as usize >= from {
            f_held += st.work.force[i][2];
        } else {
            weight += 9.81 / st.particles.vel_invm[i][3];
        }
    }
    println!("cpu: force on the held grains {f_held:.6e} N, the beads' weight {weight:.6e} N");
    assert!(
        (-f_held / weight - 1.0).abs() < 1e-3,
        "held grains carry {f_held} N of a {weight} N weight"
    );
}

#[test]
fn held_grains_stay_put_and_carry_what_rests_on_them_gpu() {
    let Some(ctx) = test_context() else { return };
    let scene = glued_floor();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let z_cpu = check(&mut cpu, "cpu");
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let z_gpu = check(&mut gpu, "gpu");
    // the same heap on both paths: the beads' mean height within 2 % of a
    // radius (chaotic in detail, alike in the mean)
    assert!(
        (z_gpu - z_cpu).abs() < 0.02 * R,
        "mean height: gpu {z_gpu:e}, cpu {z_cpu:e}"
    );
}

/// A resumed run holds the same grains (the held copies are the scene's,
/// made again from it), and `talus check`'s scene errors and warnings.
#[test]
fn fixed_regions_are_checked() {
    let s = glued_floor();
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    // a region holding nothing: a warning
    let mut w = s.clone();
    w.fixed.push(Region::Box {
        min: [0.0, 0.0, 0.015],
        max: [L, L, 0.016],
    });
    let ws = w.warnings();
    assert!(
        ws.len() == 1
            && ws[0]
                .to_string()
                .contains("fixed[1].region: holds no particle"),
        "{ws:?}"
    );
    // every particle held and nothing poured: an error
    let mut e = s.clone();
    e.fixed[0] = Region::Box {
        min: [0.0, 0.0, -0.002],
        max: [L, L, 0.02],
    };
    let err = e.validate().unwrap_err().to_string();
    assert!(err.contains("hold every particle (96)"), "{err}");
    // the set-up holds the layer once, however often it runs
    let setup = talus::Setup::new(s.clone()).unwrap();
    assert_eq!(setup.scene.held, vec![0]);
    assert_eq!(setup.scene.materials.len(), 2);
    let again = talus::Setup::new(setup.scene.clone()).unwrap();
    assert_eq!(again.scene.held, vec![0]);
    assert_eq!(again.scene.materials.len(), 2);
    assert_eq!(
        setup
            .scene
            .particles
            .iter()
            .filter(|p| p.material == 1)
            .count(),
        HELD
    );
}
