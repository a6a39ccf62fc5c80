//! One resolved set-up: a scene and every value a run derives from it,
//! computed once ([`Setup::new`]) and handed to both backends
//! ([`crate::cpu::CpuBackend::from_setup`],
//! [`crate::gpu::GpuBackend::from_setup`]) and to the driver.
//!
//! Before it, each consumer resolved the scene again: the time step (an
//! `"auto"` dt needs every FEM body's mesh, its lumped masses and its
//! surface), the step count and output interval, the wall set with the
//! bodies' surfaces, the insertion plan. Here each is computed once, in
//! the order a run needs them, with the same arithmetic as
//! [`Scene::dt`], [`Scene::steps`] and [`Scene::output_every`] (so a run
//! from a `Setup` and one from those gives the same bits).
//!
//! A `Setup` is immutable input: the backends clone what they advance
//! (the wall set, the plan, the outlets) and keep their own state.

use crate::fem::build::{body_meshes, lightest_surface_nodes};
use crate::fem::mesh::TetMesh;
use crate::flow::{InsertPlan, OutletSet};
use crate::grid::Grid;
use crate::pair::PairTable;
use crate::scene::types::{Dt, Scene};
use crate::scene::SceneError;
use crate::timestep::{estimate_with, Estimate};
use crate::walls::WallSet;

/// A scene resolved for a run. Every field is public and read-only in
/// spirit: change the scene and resolve again rather than edit a field.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The scene resolved (validated by [`Scene::load`] or
    /// [`crate::scene::SceneBuilder::build`]; its bodies' mesh files read
    /// there).
    pub scene: Scene,
    /// The time step (s): `[simulation] dt`, or for `"auto"`
    /// [`Estimate::auto_dt`] of [`Setup::estimate`]. Every stage, the
    /// insertion schedule and the bodies' exchange use this one value.
    pub dt: f64,
    /// Steps in the run: `end = { steps }`, or the duration over `dt`
    /// rounded up ([`Scene::steps_for`]).
    pub steps: u64,
    /// Steps between two outputs (≥ 1): `output_interval / dt` rounded,
    /// or a fiftieth of the run ([`Scene::output_every_for`]).
    pub output_every: u64,
    /// The time-step estimates (Rayleigh time, contact time, impact speed,
    /// stable limit): what `"auto"` picks and what `talus check` reports.
    /// The grain–body contacts in it use each body's lightest free surface
    /// node, from [`Setup::body_meshes`].
    pub estimate: Estimate,
    /// Each `[[bodies]]` entry's tetrahedra, in the scene's order: read
    /// from the file the scene loaded or generated, turned into the
    /// element kind asked, checked ([`crate::fem::build::body_mesh`]).
    /// The time step, the bodies' surfaces among the walls and the FEM
    /// bodies themselves are all built from these; nothing reads the file
    /// again.
    pub body_meshes: Vec<TetMesh>,
    /// The neighbour-list grid ([`Grid::for_scene`]): cells and levels
    /// for the particle sizes present and inserted.
    pub grid: Grid,
    /// The neighbour-list skin (m), `"auto"` resolved ([`Scene::skin`]).
    pub skin: f64,
    /// The contact parameters of every material pair.
    pub pairs: PairTable,
    /// The walls at t = 0: the scene's walls, then one wall body per FEM
    /// body (its surface at rest, from [`Setup::body_meshes`]). Each
    /// backend starts from a clone; the insertion plan holds one too.
    pub walls: WallSet,
    /// The `[[insert]]` schedule at this `dt` (batches, seeds, the walls
    /// a candidate must clear).
    pub inserts: InsertPlan,
    /// The `[[outlets]]` regions and the open domain's boundary, in
    /// flow.csv's order.
    pub outlets: OutletSet,
    /// The bonds formed at t = 0 (`[[bonds]]` with `at = 0`), in id order.
    pub bonds: crate::bonds::table::Bonds,
}

/// The most steps a run may take (2⁵³: each step's time, step × dt, is
/// exact in f64 up to there).
pub const MAX_STEPS: u64 = 1 << 53;

impl Setup {
    /// Resolves `scene` once. Errors: a body whose mesh fails its checks
    /// (at the body's `mesh` or `generator` key), a grid that cannot be
    /// built (at `domain`); a validated scene has neither, so a run's
    /// set-up fails only when the scene was changed in code after it.
    pub fn new(scene: Scene) -> Result<Setup, SceneError> {
        // the particles [[fixed]] holds get held copies of their materials
        let scene = scene.hold_fixed();
        // the bonds at t = 0 (a held particle by its own material)
        let bonds = crate::bonds::table::Bonds::at_start(&scene);
        let body_meshes = body_meshes(&scene)?;
        let lightest = lightest_surface_nodes(&scene, &body_meshes);
        let estimate = estimate_with(&scene, &lightest);
        let dt = match scene.simulation.dt {
            Dt::Fixed(dt) => dt,
            // FEM bodies alone: nothing but the bodies sets the step, half
            // the smallest critical explicit step (one exchange a step)
            Dt::Auto if scene.particles.is_empty() && scene.inserts.is_empty() => {
                let mut crit = f64::INFINITY;
                for (i, m) in body_meshes.iter().enumerate() {
                    crit = crit.min(crate::fem::build::critical_step(&scene, i, m)?.0);
                }
                0.5 * crit
            }
            Dt::Auto => estimate.auto_dt,
        };
        if !(dt.is_finite() && dt > 0.0) {
            // e.g. a radius of 1e-300 m: "auto" gives 0, and the run would
            // count u64::MAX steps of nothing
            let how = match scene.simulation.dt {
                Dt::Auto => " (\"auto\" derives it from the radii and the materials: no time step resolves these)",
                Dt::Fixed(_) => "",
            };
            return Err(scene.error(
                "simulation.dt",
                format!("dt = {dt:e} s: the time step must be finite and > 0{how}"),
            ));
        }
        let steps = scene.steps_for(dt);
        if steps > MAX_STEPS {
            let key = match scene.simulation.end {
                crate::scene::End::Duration(_) => "simulation.duration",
                crate::scene::End::Steps(_) => "simulation.steps",
            };
            return Err(scene.error(
                key,
                format!("the run would take {steps} steps of {dt:e} s, more than {MAX_STEPS} (2^53: the time of a step is no longer exact beyond)"),
            ));
        }
        if steps == 0 {
            // a duration below a part in 10⁹ of a step rounds to none: a run
            // that would end at once and report success
            if let crate::scene::End::Duration(t) = scene.simulation.end {
                return Err(scene.error(
                    "simulation.duration",
                    format!("{t:e} s is shorter than one time step ({dt:.4e} s): the run would take no step"),
                ));
            }
        }
        let output_every = scene.output_every_for(dt, steps);
        let grid = Grid::for_scene(&scene).map_err(|m| scene.error("domain", m))?;
        let walls = WallSet::new(&scene, &body_meshes);
        refuse_cut_particles(&scene, &walls)?;
        let inserts = InsertPlan::resolved(&scene, dt, walls.clone());
        let pairs = PairTable::new(&scene);
        Ok(Setup {
            dt,
            steps,
            output_every,
            estimate,
            grid,
            skin: scene.skin(),
            pairs,
            outlets: OutletSet::new(&scene),
            walls,
            inserts,
            body_meshes,
            scene,
            bonds,
        })
    }
}

/// What a run of a resolved scene holds, per path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryPlan {
    /// The most particles the run can hold (the scene's plus what its
    /// `[[insert]]` entries pour by the end, no removal counted).
    pub particles: u64,
    /// Bytes whatever the count: the grid's cells, the walls' primitives,
    /// the FEM bodies, the bonds formed at t = 0.
    pub fixed: u64,
    /// The scene's own particle list (kept while the run goes on; loaded
    /// before the plan is made, so not admitted again).
    pub scene: u64,
    /// Bytes per particle of the CPU path's run (f64).
    pub cpu_per: u64,
}

impl MemoryPlan {
    /// The plan of `setup`'s run.
    pub fn of(setup: &Setup) -> MemoryPlan {
        let scene = &setup.scene;
        let n = scene.particles.len() as u64;
        // rows: a clump's members take one each
        let poured = setup.inserts.max_rows(setup.steps);
        let cells = 8 * setup.grid.n_cells() as u64;
        let walls = 64 * setup.walls.bodies.len() as u64;
        let bodies: u64 = setup
            .body_meshes
            .iter()
            .map(|m| {
                let q = usize::from(m.order == crate::fem::mesh::Order::Quadratic);
                m.tets.len() as u64 * crate::memory::FEM_BYTES_PER_TET[q]
                    + m.nodes.len() as u64 * crate::memory::FEM_BYTES_PER_NODE
            })
            .sum();
        // the bonds formed at t = 0 (the host's f64 table: ids, entry,
        // status, length, radius, state; the device's is half of it)
        let bonds = setup.bonds.len() as u64 * crate::bonds::table::HOST_BYTES_PER_BOND;
        MemoryPlan {
            particles: n + poured,
            fixed: cells + walls + bodies + bonds,
            scene: n * crate::memory::SCENE_BYTES_PER_PARTICLE,
            cpu_per: {
                use crate::state::Particles;
                let e = crate::memory::PLANNED_ENTRIES;
                let roll = if setup.scene.contact.rolling.has_memory() {
                    Particles::<f64>::rolling_bytes_per_particle(8, e)
                } else {
                    0
                };
                (Particles::<f64>::bytes_per_particle(8, e) + roll) as u64
            },
        }
    }

    /// Host bytes the CPU path's run allocates (the scene's list aside).
    pub fn cpu_bytes(&self) -> u64 {
        self.particles * self.cpu_per + self.fixed
    }

    /// Host bytes the GPU path allocates as it starts (its device memory
    /// is the adapter's, admitted by `gpu::fit::admit`).
    pub fn gpu_host_bytes(&self) -> u64 {
        self.particles * crate::memory::GPU_HOST_BYTES_PER_PARTICLE + self.fixed
    }

    /// Refuses the CPU path's run where it does not fit this machine.
    pub fn admit_cpu(&self) -> Result<(), String> {
        crate::memory::admit(
            &format!("the CPU path's {} particles", self.particles),
            self.cpu_bytes(),
            self.fixed,
            self.cpu_per,
            "particles",
        )
    }

    /// Refuses the GPU path's host side where it does not fit.
    pub fn admit_gpu_host(&self) -> Result<(), String> {
        crate::memory::admit(
            &format!("the GPU path's {} particles (host side)", self.particles),
            self.gpu_host_bytes(),
            self.fixed,
            crate::memory::GPU_HOST_BYTES_PER_PARTICLE,
            "particles",
        )
    }
}

/// Refuses particles a mesh wall, or an FEM body's surface, cuts through
/// at the start (deeper than the run's overlap limit): `talus check` and
/// `talus run` then give the same verdict, with its cause, instead of a
/// run that stops at its first step blaming dt.
fn refuse_cut_particles(scene: &Scene, walls: &WallSet) -> Result<(), SceneError> {
    let (pos, owner) = scene.member_spheres();
    let limit = crate::state::MAX_OVERLAP_RATIO;
    let Some((k, i, overlap)) = crate::walls::set::first_cut_by_mesh(walls, &pos, limit) else {
        return Ok(());
    };
    let member_radius = pos[i][3];
    let i = owner[i];
    let n_walls = scene.walls.len();
    let key = if k < n_walls {
        format!("walls[{k}]")
    } else {
        // the bodies' surfaces follow the scene's walls, one a body
        format!("bodies[{}]", k - n_walls)
    };
    let p = &scene.particles[i];
    let from = scene
        .sources
        .get(p.source)
        .map_or(String::new(), |s| format!(" of {}", s.label));
    Err(scene.error(
        &key,
        format!(
            "cuts through particle {i}{from} at [{:.4e}, {:.4e}, {:.4e}]: it overlaps the surface by {overlap:.3e} m, more than {limit} of its radius {:.3e} m (the most a run accepts); move the surface or the particles",
            p.position[0], p.position[1], p.position[2], member_radius
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::Setup;
    use crate::scene::types::{Body, Material};
    use crate::scene::SceneBuilder;

    /// The set-up's numbers are the scene's, to the bit: an auto dt with a
    /// FEM body (its lightest node), a duration, a default output interval.
    #[test]
    fn the_numbers_of_the_scene() {
        let scene = SceneBuilder::new("sheet")
            .domain([0.0; 3], [0.1; 3])
            .material(Material::new("glass", 2500.0, 5e6))
            .material(Material::new("rubber", 1100.0, 2e6))
            .particle([0.05, 0.05, 0.05], [0.0; 3], 0.002, "glass")
            .body(Body::generated_box(
                [0.01, 0.01, 0.0],
                [0.09, 0.09, 0.003],
                [4, 4, 1],
                1,
            ))
            .duration(0.01)
            .build()
            .unwrap();
        let s = Setup::new(scene.clone()).unwrap();
        assert_eq!(s.dt.to_bits(), scene.dt().to_bits());
        assert_eq!(s.steps, scene.steps());
        assert_eq!(s.output_every, scene.output_every());
        assert_eq!(s.estimate, crate::timestep::estimate(&scene));
        assert_eq!(s.body_meshes.len(), 1);
        // the body's surface follows the scene's walls (none here)
        assert_eq!(s.walls.bodies.len(), 1);
    }
}
