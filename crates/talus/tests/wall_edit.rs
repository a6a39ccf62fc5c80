//! Walls inserted, removed and set moving between advances of a
//! `Simulation`, on both paths: a removed wall takes only its own contacts
//! (every other wall's contacts and history go on, bit for bit, whatever
//! index they now have); an inserted floor catches falling spheres and
//! lets them go when removed, the CPU and GPU paths agreeing; a wall set
//! moving starts where it stood and pushes what it meets; a bad edit is
//! refused and leaves the simulation as it was.

use crate::common;

use common::*;
use std::sync::Arc;
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{context::test_context, GpuBackend};
use talus::run::{EditError, Outputs, Simulation};
use talus::scene::{Scene, SceneBuilder, Wall, WallMotion};
use talus::state::Particles;
use talus::Setup;

#[derive(Clone, Copy)]
enum Path {
    Cpu,
    Gpu,
}

/// `scene` on `path` (None: no adapter here, the GPU half passes).
fn open(path: Path, scene: Scene) -> Option<Simulation> {
    let setup = Arc::new(Setup::new(scene).unwrap());
    let b: Box<dyn Backend> = match path {
        Path::Cpu => Box::new(CpuBackend::from_setup(&setup).unwrap()),
        Path::Gpu => Box::new(GpuBackend::from_setup(&setup, test_context()?).unwrap()),
    };
    Some(Simulation::new(setup, b))
}

macro_rules! both_paths {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn cpu() {
                    super::$name(super::Path::Cpu);
                }
                #[test]
                fn gpu() {
                    super::$name(super::Path::Gpu);
                }
            }
        )*
    };
}

both_paths!(
    a_removed_wall_takes_only_its_own_contacts,
    a_wall_set_moving_starts_where_it_stood_and_pushes,
);

/// [`falling_bed`] between two ceilings no sphere reaches: one before the
/// floor in the scene's order, one after the sides. Removing the first
/// moves every other wall down an index, removing the last moves none:
/// both rebuild the list at the same step, so the two runs go on with the
/// same bits only if every kept contact kept its wall and its history.
fn a_removed_wall_takes_only_its_own_contacts(path: Path) {
    let mut scene = falling_bed();
    let mat = scene.walls[0].material;
    scene
        .walls
        .insert(0, Wall::plane([0.0, 0.0, 0.09], [0.0, 0.0, -1.0], mat));
    scene
        .walls
        .push(Wall::plane([0.0, 0.0, 0.09], [0.0, 0.0, -1.0], mat));
    let Some(mut first) = open(path, scene.clone()) else {
        return;
    };
    let mut last = open(path, scene).unwrap();
    first.advance(400).unwrap();
    last.advance(400).unwrap();
    let loads = first.walls();
    assert!(
        loads[1].1.force[2].abs() > 0.0,
        "the floor carries the bed by step 400"
    );
    let gone = first.remove_wall(0).unwrap();
    assert_eq!(gone, last.remove_wall(6).unwrap());
    // first: floor, four sides, ceiling; last: ceiling, floor, four sides
    assert_eq!(first.scene().walls[..5], last.scene().walls[1..]);
    first.advance(300).unwrap();
    last.advance(300).unwrap();
    assert_eq!(first.step(), 700);
    assert_eq!(first.particles(), last.particles());
    let (a, b) = (first.walls(), last.walls());
    assert_eq!(a.len(), 6);
    for k in 0..5 {
        assert_eq!(a[k].1, b[k + 1].1, "wall {k}'s load");
    }
    assert_eq!(a[5].1, Default::default(), "the ceiling is untouched");
}

/// A plane at x = 0 and one sphere 1 mm clear of it, no gravity. The
/// plane set moving at 0.1 m/s from now stands where it stood, reports
/// its pose along the law, and meets the sphere, which leaves faster than
/// the wall (it bounces off it).
fn a_wall_set_moving_starts_where_it_stood_and_pushes(path: Path) {
    let r = 0.001;
    let scene = build(
        SceneBuilder::new("piston")
            .domain([-0.01, 0.0, 0.0], [0.05, 0.01, 0.01])
            .gravity([0.0; 3])
            .dt_auto(0.2)
            .steps(1)
            .material(soft(0.5))
            .wall([0.0; 3], [1.0, 0.0, 0.0], "soft")
            .particle([2.0 * r, 0.005, 0.005], [0.0; 3], r, "soft"),
    );
    let Some(mut sim) = open(path, scene) else {
        return;
    };
    sim.advance(10).unwrap();
    let start = sim.time();
    let v = 0.1;
    let motion = WallMotion {
        velocity: [v, 0.0, 0.0],
        start,
        ..WallMotion::default()
    };
    sim.set_wall_motion(0, Some(motion)).unwrap();
    assert_eq!(sim.walls()[0].0.translation.x, 0.0, "no jump");
    // 1 mm at 0.1 m/s: contact after ~10 ms; run 25 ms
    let steps = (0.025 / sim.dt()).ceil() as u64;
    sim.advance(steps).unwrap();
    let pose = sim.walls()[0].0;
    let expect = v * (sim.time() - start);
    let tol = match path {
        Path::Cpu => 1e-12,
        Path::Gpu => 1e-6,
    };
    assert!(
        (pose.translation.x - expect).abs() < tol * expect.max(1e-3) + tol,
        "pose {} against {expect}",
        pose.translation.x
    );
    let p = sim.particles();
    let vx = p.vel_invm[0][0];
    assert!(vx > 1.2 * v, "the sphere left at {vx} m/s");
    assert!(
        p.pos_rad[0][0] > pose.translation.x + r,
        "ahead of the wall"
    );
}

/// A soft glass-like material: a time step large enough for the tests'
/// tens of milliseconds to take a few thousand steps.
fn soft(restitution: f64) -> talus::scene::Material {
    talus::scene::Material {
        name: "soft".into(),
        density: 2500.0,
        youngs_modulus: 1e7,
        poisson_ratio: 0.25,
        restitution,
        friction: 0.3,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// When the floor is taken away (s), and how long they fall then.
const REST: f64 = 0.06;
const FALL: f64 = 0.03;

/// Nine spheres in a row above where a floor will be, no walls: the floor
/// inserted catches them, removed it lets them fall. Returns the state at
/// rest on the floor and at the end.
fn catch_and_release(path: Path) -> Option<(Particles<f64>, Particles<f64>, f64)> {
    let r = 0.001;
    let mut b = SceneBuilder::new("catch")
        .domain([0.0; 3], [0.03, 0.01, 0.05])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(0.2)
        .steps(1)
        .material(soft(0.2));
    for k in 0..9 {
        b = b.particle(
            [0.002 + 0.003 * k as f64, 0.005, 0.0225],
            [0.0; 3],
            r,
            "soft",
        );
    }
    let mut sim = open(path, build(b))?;
    sim.advance(5).unwrap();
    let floor = Wall::plane([0.0, 0.0, 0.02], [0.0, 0.0, 1.0], 0);
    assert_eq!(sim.insert_wall(floor).unwrap(), 0);
    sim.advance_to(REST).unwrap();
    let rest = sim.particles();
    assert!(sim.walls()[0].1.force[2] < 0.0, "the spheres press on it");
    let gone = sim.remove_wall(0).unwrap();
    assert!(matches!(gone.shape, talus::scene::Shape::Plane { .. }));
    sim.advance_to(REST + FALL).unwrap();
    Some((rest, sim.particles(), r))
}

#[test]
fn an_inserted_floor_catches_and_its_removal_lets_go() {
    let (rest, end, r) = catch_and_release(Path::Cpu).unwrap();
    for (k, p) in rest.pos_rad.iter().enumerate() {
        let z = p[2] - 0.02;
        assert!(z > 0.99 * r && z < r, "sphere {k} rests on the floor: {z}");
        assert!(rest.vel_invm[k][2].abs() < 1e-3, "sphere {k} at rest");
    }
    for p in &end.pos_rad {
        assert!(p[2] < 0.02, "fallen through where the floor was: {}", p[2]);
    }
    // the GPU path: the same story, within f32 of the CPU's
    let Some((g_rest, g_end, _)) = catch_and_release(Path::Gpu) else {
        return;
    };
    // at rest: within 10⁻³ r; after the fall, also what their (small)
    // difference in velocity at the release carried them apart
    for k in 0..9 {
        let dv = (rest.vel_invm[k][2] - g_rest.vel_invm[k][2]).abs();
        for (a, b, tol) in [
            (&rest, &g_rest, 1e-3 * r),
            (&end, &g_end, 1e-3 * r + dv * FALL),
        ] {
            for c in 0..3 {
                let (x, y) = (a.pos_rad[k][c], b.pos_rad[k][c]);
                assert!(
                    (x - y).abs() < tol,
                    "sphere {k} axis {c}: cpu {x} gpu {y} (tolerance {tol})"
                );
            }
        }
    }
}

/// A wall that does not exist, or a bad one, is refused and the
/// simulation goes on as if nothing was asked; outputs opened for the old
/// walls refuse to write for new ones.
#[test]
fn bad_edits_are_refused_and_outputs_follow_their_walls() {
    let mut sim = open(Path::Cpu, walled_box(3)).unwrap();
    let mut same = open(Path::Cpu, walled_box(3)).unwrap();
    sim.advance(20).unwrap();
    same.advance(20).unwrap();
    assert!(matches!(
        sim.remove_wall(6),
        Err(EditError::NoWall { index: 6, count: 6 })
    ));
    assert!(matches!(
        sim.set_wall_motion(9, None),
        Err(EditError::NoWall { .. })
    ));
    let bad = Wall::plane([0.0; 3], [0.0; 3], 0);
    let e = sim.insert_wall(bad).unwrap_err();
    assert!(matches!(e, EditError::Scene(_)), "{e}");
    assert!(e.to_string().contains("walls[6]"), "{e}");
    assert_eq!(sim.scene().walls.len(), 6);
    sim.advance(30).unwrap();
    same.advance(30).unwrap();
    assert_eq!(sim.particles(), same.particles());

    let dir = std::env::temp_dir().join(format!("talus_wall_edit_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut out = Outputs::open(&dir, &mut sim, 10, None).unwrap();
    let b = sim.balance();
    out.row(&mut sim, &b, 50).unwrap();
    sim.remove_wall(5).unwrap();
    let b = sim.balance();
    let e = out.row(&mut sim, &b, 50).unwrap_err();
    assert!(e.to_string().contains("walls changed"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
