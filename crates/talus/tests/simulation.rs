//! The engine's `Simulation` driven from outside the CLI, as the Python
//! package and MPI ranks will: advancing in pieces or to a time gives the
//! bits of one advance; the outputs are a part one attaches or not,
//! without changing the state; a simulation saved and resumed goes on bit
//! for bit; an observer sees every advance and the flow is still tallied.

use crate::common;

use common::*;
use std::sync::Arc;
use talus::backend::{Backend, RunError};
use talus::cpu::CpuBackend;
use talus::run::{self, Observe, Outputs, RunConfig, Simulation};
use talus::Setup;

fn sim(setup: &Arc<Setup>) -> Simulation<CpuBackend> {
    Simulation::new(setup.clone(), CpuBackend::from_setup(setup).unwrap())
}

fn setup(scene: talus::scene::Scene) -> Arc<Setup> {
    Arc::new(Setup::new(scene).unwrap())
}

#[test]
fn pieces_and_times_give_the_bits_of_one_advance() {
    let scene = setup(falling_bed());
    let mut one = sim(&scene);
    one.advance(300).unwrap();
    let mut pieces = sim(&scene);
    for n in [1, 7, 92, 200] {
        pieces.advance(n).unwrap();
    }
    assert_eq!(one.step(), 300);
    assert_eq!(one.particles(), pieces.particles());
    // advance_to: the first step at or after t
    let mut timed = sim(&scene);
    timed.advance_to(300.0 * scene.dt).unwrap();
    assert_eq!(timed.step(), 300);
    assert_eq!(timed.particles(), one.particles());
    timed.advance_to(0.5 * scene.dt).unwrap();
    assert_eq!(timed.step(), 300, "a time already passed is no advance");
}

#[test]
fn outputs_attached_or_not_leave_the_state_alone() {
    let scene = setup(walled_box(5));
    let dir = std::env::temp_dir().join(format!("talus_sim_outputs_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut bare = sim(&scene);
    let mut watched = sim(&scene);
    let mut out = Outputs::open(&dir, &mut watched, 50, None).unwrap();
    let p0 = watched.particles();
    out.snapshot(&mut watched, &p0, None, 0.0).unwrap();
    for _ in 0..4 {
        bare.advance(50).unwrap();
        watched.advance(50).unwrap();
        let b = watched.balance();
        let done = watched.step();
        out.row(&mut watched, &b, done).unwrap();
        let p = watched.particles();
        let t = watched.time();
        out.snapshot(&mut watched, &p, None, t).unwrap();
    }
    assert_eq!(bare.particles(), watched.particles());
    let energy = std::fs::read_to_string(dir.join("energy.csv")).unwrap();
    assert_eq!(energy.lines().count(), 1 + 4, "{energy}");
    let walls = std::fs::read_to_string(dir.join("walls.csv")).unwrap();
    assert_eq!(walls.lines().count(), 1 + 4 * 6, "{walls}");
    let pvd = talus::io::vtk::read_pvd(&dir.join("particles.pvd")).unwrap();
    assert_eq!(pvd.len(), 5);
    assert!(dir.join("walls_00004.vtu").exists());
    // the balance: the box's walls do no work, so the residual stays a
    // small fraction of the energy that moved
    let b = watched.balance();
    assert!(
        b.residual_ratio < 0.05,
        "residual ratio {}",
        b.residual_ratio
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_saved_simulation_resumes_bit_for_bit() {
    let scene = setup(falling_bed());
    let mut straight = sim(&scene);
    straight.advance(400).unwrap();
    let mut first = sim(&scene);
    first.advance(150).unwrap();
    let saved = first.save();
    let mut st = talus::checkpoint::DriverState::default();
    first.save_driver(&mut st);
    let back = CpuBackend::restore_setup(&scene, &saved).unwrap();
    let mut resumed = Simulation::resume(scene.clone(), back, &st);
    assert_eq!(resumed.step(), 150);
    resumed.advance(250).unwrap();
    assert_eq!(straight.particles(), resumed.particles());
}

/// Counts the steps it ran and whether it was let go.
struct Counter {
    steps: std::rc::Rc<std::cell::Cell<(u64, bool)>>,
}

impl<B: Backend> Observe<B> for Counter {
    fn advance(&mut self, backend: &mut B, steps: u64) -> Result<(), RunError> {
        // in two pieces, as a viewer that draws between them would
        let half = steps / 2;
        backend.advance(half)?;
        backend.advance(steps - half)?;
        let (n, done) = self.steps.get();
        self.steps.set((n + steps, done));
        Ok(())
    }
    fn finish(&mut self, _backend: &mut B) {
        let (n, _) = self.steps.get();
        self.steps.set((n, true));
    }
}

#[test]
fn an_observer_runs_the_advances_and_the_flow_is_still_tallied() {
    // the bed without its floor: the open domain takes what falls out
    let mut floorless = falling_bed();
    floorless.walls.remove(0);
    let scene = setup(floorless);
    let seen = std::rc::Rc::new(std::cell::Cell::new((0, false)));
    let mut plain = sim(&scene);
    let mut watched = sim(&scene);
    watched.observe(Box::new(Counter {
        steps: seen.clone(),
    }));
    let steps = (0.03 / scene.dt) as u64;
    for n in [3, 40, steps - 43] {
        plain.advance(n).unwrap();
        watched.advance(n).unwrap();
    }
    assert_eq!(seen.get(), (steps, false));
    assert_eq!(plain.particles(), watched.particles());
    let gone = watched.flow().removed_total().count;
    assert!(gone > 0, "nothing left the domain in {steps} steps");
    assert_eq!(plain.flow(), watched.flow());
    assert_eq!(watched.particle_count() + gone, 300);
    drop(watched);
    assert_eq!(seen.get(), (steps, true), "dropping the simulation lets go");
}

#[test]
fn the_run_loop_drives_a_borrowed_backend() {
    // run::run keeps its old shape (scene, backend, config) over drive
    let scene = walled_box(9);
    let dir = std::env::temp_dir().join(format!("talus_sim_run_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let cfg = RunConfig::new(&Setup::new(scene.clone()).unwrap(), dir.clone(), 120);
    let s = run::run(&scene, &mut cpu, &cfg).unwrap();
    assert_eq!((s.status.as_str(), s.steps), ("ok", 120));
    assert_eq!(cpu.steps_done(), 120);
    assert!(dir.join("final.csv").exists() && dir.join("checkpoint.bin").exists());

    // the same folder again, a snapshot's path taken by a folder: the run
    // fails on writing it, and summary.json says so (not the last run's
    // "ok")
    assert!(dir.join("summary.json").exists());
    let taken = dir.join("particles_00001.vtu");
    std::fs::remove_file(&taken).unwrap();
    std::fs::create_dir_all(taken.join("x")).unwrap();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let cfg = RunConfig::new(&Setup::new(scene.clone()).unwrap(), dir.clone(), 120);
    let e = run::run(&scene, &mut cpu, &cfg).unwrap_err();
    assert!(e.to_string().contains("particles_00001.vtu"), "{e}");
    let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"status\": \"failed\"") && summary.contains("particles_00001.vtu"),
        "{summary}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
