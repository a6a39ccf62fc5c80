//! The GPU path (wgpu/WGSL): the same stages as `src/cpu/` on the same
//! arrays in f32. `GpuContext` owns the device; `GpuPipelines` (kernels) are
//! kept apart from `GpuData` (buffers); `GpuBindings` joins them once.
//! A run records many steps per submission and reads back only when asked
//! (snapshots, energy rows, the error flags at the end of `advance`).

pub mod bin;
pub mod bond_data;
pub mod bond_form;
pub mod bonds;
pub mod clump_data;
pub mod clump_out;
pub mod clumps;
pub mod contacts;
pub mod context;
pub mod copy;
pub mod data;
pub mod diagnostics;
pub mod fit;
pub mod flow;
pub mod ghosts;
pub mod integrate;
pub mod kernel;
#[cfg(feature = "test-kernels")]
pub mod law;
pub mod layout;
pub mod neighbours;
pub mod pages;
pub mod ranks;
#[cfg(feature = "test-kernels")]
pub mod rotor_eval;
pub mod save;
pub mod shaders;
pub mod sort;
pub mod surfaces;
#[cfg(feature = "test-kernels")]
pub mod wall_eval;
pub mod walls;

use crate::backend::{
    body_error, list_counts, Backend, Diagnostics, ListStats, RunError, RunErrorKind, Stage,
    StageTimes, MAX_OVERLAP_RATIO,
};
use crate::fem::coupling::BodySet;
use crate::grid::Grid;
use crate::scene::{ContactModel, Scene};
use crate::setup::Setup;
use crate::state::{Motion, Particles};
use crate::walls::WallSet;
pub use context::{GpuContext, GpuError, Pairs};
pub use data::{FixedPoint, GpuData, GpuInit, ListInit, Over};
use layout::{FlowRecord, GridLevel, Pair, Params};
use pages::Readable;
use std::sync::Arc;
use walls::WallTables;

pub use fit::{kernel_decls, STORAGE_BINDINGS_NEEDED};

/// Steps recorded into one command buffer at most.
const STEPS_PER_SUBMIT: u64 = 256;
/// Submissions of steps queued at once by `advance` (it waits for the
/// oldest beyond that, which bounds the command memory held).
const MAX_IN_FLIGHT: usize = 3;
/// Steps `advance` runs between two reads of the control words at most
/// when the scene inserts particles (the flow log is read, and the host's
/// list of uploaded candidates emptied, at each read).
const SEGMENT_STEPS: u64 = 64 * STEPS_PER_SUBMIT;

/// The most steps a GPU run counts (`ctl[CTL_STEP]` is a u32, and
/// `u32::MAX` means "none" in the control words).
pub const GPU_MAX_STEPS: u64 = u32::MAX as u64 - 1;

/// Every kernel of a step, built once per device and shared by every
/// backend on it ([`GpuPipelines::shared`]): the kernels hold no scene.
pub struct GpuPipelines {
    pub bin: bin::BinKernels,
    pub sort: sort::SortKernels,
    pub neighbours: neighbours::NeighbourKernels,
    pub contacts: contacts::ContactKernels,
    pub integrate: integrate::IntegrateKernels,
    /// The clumps' part of integrate (and of the sort: the rows table).
    pub clumps: clumps::ClumpKernels,
    /// The bonds' part of contacts.
    pub bonds: bonds::BondKernels,
    pub diagnostics: diagnostics::DiagnosticsKernels,
    pub flow: flow::FlowKernels,
    pub surfaces: surfaces::SurfaceKernels,
    /// The ghosts' exchange of a run on several ranks (not a stage).
    pub ghosts: ghosts::GhostKernels,
}

impl GpuPipelines {
    /// The device's kernels for `paging`: built on the first call on `ctx`
    /// (or a share of it) with that paging, the same ones after.
    pub fn shared(ctx: &GpuContext, paging: &pages::Paging) -> Arc<GpuPipelines> {
        let mut built = ctx.kernels.lock().expect("the kernels' lock");
        // the kernels differ by paging and by how pairs are summed
        let mut key = paging.key();
        key.push(ctx.pairs as u64);
        if let Some((_, k)) = built.iter().find(|(p, _)| *p == key) {
            return k
                .clone()
                .downcast::<GpuPipelines>()
                .expect("the context's kernels are GpuPipelines");
        }
        let k = Arc::new(GpuPipelines::new(ctx, paging));
        built.push((key, k.clone() as Arc<dyn std::any::Any + Send + Sync>));
        k
    }

    /// Compiles every kernel for `paging` (see [`GpuPipelines::shared`]).
    pub fn new(ctx: &GpuContext, paging: &pages::Paging) -> Self {
        let module = |name: &str| kernel::Module::new(ctx, name, paging);
        GpuPipelines {
            bin: bin::BinKernels::new(ctx, &module("bin.wgsl")),
            sort: sort::SortKernels::new(ctx, &module("sort.wgsl"), &module("reorder.wgsl")),
            neighbours: neighbours::NeighbourKernels::new(ctx, &module("neighbours.wgsl")),
            contacts: contacts::ContactKernels::new(ctx, &module("contacts.wgsl")),
            integrate: integrate::IntegrateKernels::new(ctx, &module("integrate.wgsl")),
            clumps: clumps::ClumpKernels::new(ctx, &module("clumps.wgsl")),
            bonds: bonds::BondKernels::new(ctx, &module("bonds.wgsl")),
            diagnostics: diagnostics::DiagnosticsKernels::new(ctx, &module("diagnostics.wgsl")),
            flow: flow::FlowKernels::new(ctx, &module("flow.wgsl")),
            surfaces: surfaces::SurfaceKernels::new(ctx, &module("surfaces.wgsl")),
            ghosts: ghosts::GhostKernels::new(ctx, &module("ghosts.wgsl")),
        }
    }
}

/// Bind groups of every kernel over one `GpuData`, built once.
pub struct GpuBindings {
    pub bin: bin::BinBinds,
    pub sort: sort::SortBinds,
    pub neighbours: neighbours::NeighbourBinds,
    pub contacts: contacts::ContactBinds,
    pub integrate: integrate::IntegrateBinds,
    /// None: the run has no clumps.
    pub clumps: Option<clumps::ClumpBinds>,
    /// None: the run has no bonds.
    pub bonds: Option<bonds::BondBinds>,
    pub diagnostics: wgpu::BindGroup,
    pub flow: flow::FlowBinds,
    pub surfaces: surfaces::SurfaceBinds,
}

impl GpuBindings {
    pub fn new(ctx: &GpuContext, p: &GpuPipelines, d: &GpuData) -> Self {
        GpuBindings {
            bin: p.bin.bind(ctx, d),
            sort: p.sort.bind(ctx, d),
            neighbours: p.neighbours.bind(ctx, &p.sort, d),
            contacts: p.contacts.bind(ctx, d),
            integrate: p.integrate.bind(ctx, d),
            clumps: p.clumps.bind(ctx, d),
            bonds: p.bonds.bind(ctx, d),
            diagnostics: p.diagnostics.bind(ctx, d),
            flow: p.flow.bind(ctx, d),
            surfaces: p.surfaces.bind(ctx, d),
        }
    }
}

/// The uniform parameters, pair table and walls of a set-up, in f32.
pub fn scene_tables(setup: &Setup, grid: &Grid) -> (Params, Vec<Pair>, WallTables) {
    scene_tables_for(setup, grid, &setup.walls)
}

/// [`scene_tables`] with the walls of `set` (the set-up's, with the FEM
/// bodies' surfaces started on their first interval, or a test's).
pub fn scene_tables_for(
    setup: &Setup,
    grid: &Grid,
    set: &WallSet,
) -> (Params, Vec<Pair>, WallTables) {
    let scene = &setup.scene;
    let c = &scene.contact;
    let mut walls = WallTables::new(set);
    walls.force_scale = crate::sums::force_unit(scene);
    // the axis and rate, and the turns' schedule (zero: fixed gravity)
    let (gravity_rot, gravity_turn) = match scene.simulation.gravity_rotation {
        Some(r) => {
            let a = r.axis.map(|x| x as f32);
            (
                [a[0], a[1], a[2], r.angular_velocity as f32],
                [
                    r.start as f32,
                    r.turn_time().map_or(-1.0, |t| t as f32),
                    r.every.unwrap_or(0.0) as f32,
                    0.0,
                ],
            )
        }
        None => ([0.0; 4], [0.0; 4]),
    };
    let params = Params {
        grid_min: {
            let m = grid.min;
            [
                m[0] as f32,
                m[1] as f32,
                m[2] as f32,
                crate::grid::REACH_SLACK as f32,
            ]
        },
        grid_len: {
            let l = grid.len;
            [
                l[0] as f32,
                l[1] as f32,
                l[2] as f32,
                crate::grid::PERIOD_SLACK as f32,
            ]
        },
        // z: the work records' words, set by `GpuData::new` for the device
        level_count: [grid.n_levels as u32, grid.large_levels() as u32, 0, 0],
        gravity_dt: {
            let g = scene.simulation.gravity;
            [g[0] as f32, g[1] as f32, g[2] as f32, setup.dt as f32]
        },
        // y: the bonds (their table's length); z: 1 when the scene has
        // [[bonds]] (every row's sums go through its work record)
        dims: [
            0,
            setup.bonds.len() as u32,
            u32::from(!scene.bonds.is_empty()),
            grid.n_cells() as u32,
        ],
        periodic: [
            grid.periodic[0] as u32,
            grid.periodic[1] as u32,
            grid.periodic[2] as u32,
            match c.model {
                ContactModel::HertzMindlin => 0,
                ContactModel::Linear => 1,
            },
        ],
        sizes: [
            scene.particles.len() as u32,
            walls.bodies,
            walls.n_prims,
            scene.materials.len() as u32,
        ],
        linear: [
            c.stiffness.unwrap_or(0.0) as f32,
            c.contact_time.unwrap_or(0.0) as f32,
            c.tangential_stiffness_ratio as f32,
            MAX_OVERLAP_RATIO as f32,
        ],
        nbr: {
            let skin = setup.skin;
            let flag = |b: bool| if b { 1.0 } else { 0.0 };
            [
                skin as f32,
                (0.25 * skin * skin) as f32,
                flag(walls.servo),
                flag(walls.moving),
            ]
        },
        gravity_rot,
        gravity_turn,
        models: [
            c.cohesion.code(),
            scene.held_from() as u32,
            c.rolling.code(),
            0,
        ],
        contact: [
            crate::pair::stage_reach(c.cohesion, setup.skin) as f32,
            0.0,
            0.0,
            0.0,
        ],
        sums: {
            let (f, t) = (
                crate::sums::force_unit(scene),
                crate::sums::torque_unit(scene),
            );
            [f as f32, t as f32, (1.0 / f) as f32, (1.0 / t) as f32]
        },
        levels: std::array::from_fn(|l| {
            let lv = &grid.levels[l];
            let i = lv.inv_cell;
            GridLevel {
                inv_cell: [i[0] as f32, i[1] as f32, i[2] as f32, lv.half_cut as f32],
                dims: [lv.dims[0], lv.dims[1], lv.dims[2], lv.first],
            }
        }),
    };
    let pairs = setup.pairs.pairs.iter().map(Pair::from_params).collect();
    (params, pairs, walls)
}

/// The device's records of a scene's `[[bonds]]` entries.
pub fn bond_specs(setup: &Setup) -> Vec<layout::BondSpecGpu> {
    setup.scene.bonds.iter().map(bond_data::spec_gpu).collect()
}

/// A scene's device tables (`scene_tables`), kept to rebuild the buffers
/// when the particle capacity grows.
pub struct SceneTables {
    pub params: Params,
    pub pairs: Vec<Pair>,
    pub walls: WallTables,
    /// The `[[bonds]]` entries, and the bonds as they formed (what the
    /// device does not change of them: ids, entries, lengths, radii).
    pub bond_specs: Vec<layout::BondSpecGpu>,
    pub bonds: crate::bonds::table::Bonds,
}

/// The GPU backend.
pub struct GpuBackend {
    pub ctx: GpuContext,
    pub pipes: Arc<GpuPipelines>,
    pub data: GpuData,
    pub binds: GpuBindings,
    pub fixed: FixedPoint,
    steps: u64,
    max_overlap: f64,
    /// What inserted particles' motion records start from.
    gravity: [f64; 3],
    dt: f64,
    /// The walls' static motion records (to read poses back as f64).
    wall_motion: Vec<layout::WallMotion>,
    /// Insertion plan, outlets, the host's counters and events.
    pub flow: flow::GpuFlow,
    pub tables: SceneTables,
    /// The scene's neighbour-list grid (`FixedPoint`, restore).
    pub grid: Grid,
    /// The FEM bodies (None: the scene has none), advanced on the CPU at
    /// every multiple of their exchange interval K.
    pub bodies: Option<BodySet>,
    /// The host's copy of the walls for the surfaces' intervals
    /// (`WallSet::start_interval`: x0, v, step0, the grids binned); its
    /// primitives are not kept posed (the device poses them).
    pub host_walls: WallSet,
    /// The next submission starts with `move_surfaces` (the surfaces posed
    /// at the current step after an exchange or a load, and their rebuild
    /// test, as the CPU's `pose_surfaces` after `start_interval`).
    pub(crate) repose_surfaces: bool,
    /// The scene's `[[shapes]]` bodies (a clump's members and frame).
    pub shapes: Vec<crate::shapes::table::Shape>,
    /// The `[[bonds]]` entries that form during the run (`gpu::bond_form`).
    pub(crate) bond_later: crate::bonds::table::Later,
}

/// Rows a run of `plan` holds room for with `n` present and `inserted`
/// particles inserted so far per entry (steps to `end`): n + the rows the
/// plan can still insert (a clump's members a row each), at most
/// max(n, 65 536) more (`advance` grows the buffers when a submission's
/// batches could need more).
pub fn default_capacity(plan: &crate::flow::InsertPlan, n: u64, inserted: &[u64], end: u64) -> u64 {
    let more = plan.rows_to_come(inserted, end);
    n + more.min(n.max(65_536))
}

/// The most iterations llvmpipe (lavapipe) runs of a shader loop before it
/// ends it (seen: a 10⁵-step loop of `rotor_eval` stopped at 65 535).
pub const SOFTWARE_LOOP_MAX: u64 = 65_535;

impl GpuBackend {
    /// The backend for `scene` on `ctx`, resolving a [`Setup`] for it
    /// first ([`Setup::new`] on a clone of the scene): for callers with a
    /// scene alone (tests, tools). A run resolves one set-up and calls
    /// [`GpuBackend::from_setup`].
    pub fn new(scene: &Scene, ctx: GpuContext) -> Result<GpuBackend, GpuError> {
        Self::from_setup(&Setup::new(scene.clone())?, ctx)
    }

    /// With buffers for the set-up's particles and what its `[[insert]]`
    /// entries add ([`default_capacity`]).
    pub fn from_setup(setup: &Setup, ctx: GpuContext) -> Result<GpuBackend, GpuError> {
        Self::with_capacity(setup, ctx, None)
    }

    /// With buffers for `capacity` particles (at least the scene's; None:
    /// [`default_capacity`]): room to insert particles without
    /// reallocating.
    pub fn with_capacity(
        setup: &Setup,
        ctx: GpuContext,
        capacity: Option<u64>,
    ) -> Result<GpuBackend, GpuError> {
        let scene = &setup.scene;
        let grid = setup.grid;
        // the host side, before anything large is allocated (the device's
        // memory is admitted with the buffers)
        crate::setup::MemoryPlan::of(setup)
            .admit_gpu_host()
            .map_err(GpuError::TooLarge)?;
        let (exact, clumps, body, member) = Particles::with_clumps(scene);
        let state = exact.to_f32();
        let fp = FixedPoint::new(&grid);
        let pos_fx: Vec<data::FixedWords> = exact
            .pos_rad
            .iter()
            .map(|p| fp.encode([p[0], p[1], p[2]]))
            .collect();
        let motion = exact.initial_motion(scene.simulation.gravity, setup.dt);
        let capacity = capacity.or_else(|| {
            let plan = &setup.inserts;
            let none = vec![0; plan.entries.len()];
            (!plan.is_empty())
                .then(|| default_capacity(plan, exact.len() as u64, &none, setup.steps))
        });
        let clumps =
            clump_data::ClumpInit::new(&clumps, &body, &member, &scene.shape_bodies(), |x| {
                fp.encode(x)
            });
        let init = GpuInit {
            state: &state,
            pos_fx: &pos_fx,
            motion: &crate::state::convert_motion(&motion),
            list: None,
            capacity,
            clumps: clumps.as_ref(),
        };
        Self::from_state(setup, &grid, &init, ctx)
    }

    /// From an explicit f32 state; tests use it to run a stage on exactly
    /// the data its CPU twin gets.
    pub fn from_state(
        setup: &Setup,
        grid: &Grid,
        init: &GpuInit,
        ctx: GpuContext,
    ) -> Result<GpuBackend, GpuError> {
        Self::with_walls(setup, grid, init, ctx, None)
    }

    /// [`GpuBackend::from_state`] with the walls of `walls` instead of the
    /// set-up's (None: the set-up's, with its FEM bodies): tests run the
    /// surface stages on a surface of their own (no bodies then).
    pub fn with_walls(
        setup: &Setup,
        grid: &Grid,
        init: &GpuInit,
        ctx: GpuContext,
        walls: Option<WallSet>,
    ) -> Result<GpuBackend, GpuError> {
        // the device counts steps in 32 bits (`ctl[CTL_STEP]`): past it the
        // time would start again at 0
        if setup.steps > GPU_MAX_STEPS {
            return Err(GpuError::TooLarge(format!(
                "the run takes {} steps; the GPU path counts at most {GPU_MAX_STEPS} (its step counter has 32 bits): use --backend cpu, or a larger dt",
                setup.steps
            )));
        }
        // llvmpipe (lavapipe) ends a shader loop after 65 535 iterations:
        // one thread loops over a pouring batch's candidates
        // (`insert_pick`), and a candidate over what the step's earlier
        // batches placed (`insert_check`); past it candidates would be
        // dropped without a word
        let most = setup.inserts.most_candidates_per_step();
        if ctx.info.device_type == wgpu::DeviceType::Cpu && most > SOFTWARE_LOOP_MAX {
            return Err(GpuError::TooLarge(format!(
                "{}: a step's [[insert]] batches may offer {most} candidates; this software adapter ends a shader loop after {SOFTWARE_LOOP_MAX} iterations: use --backend cpu, or a lower rate or shorter interval",
                ctx.info.name
            )));
        }
        let have = ctx.limits.max_storage_buffers_per_shader_stage;
        if have < STORAGE_BINDINGS_NEEDED {
            return Err(GpuError::Device(format!(
                "{}: offers {have} storage buffers per shader stage, the GPU path needs {STORAGE_BINDINGS_NEEDED} (use --backend cpu)",
                ctx.info.name
            )));
        }
        Self::assemble(setup, grid, init, ctx, walls)
    }

    /// The buffers of `init` and the kernels for their paging (on `ctx`).
    pub(crate) fn assemble(
        setup: &Setup,
        grid: &Grid,
        init: &GpuInit,
        ctx: GpuContext,
        walls: Option<WallSet>,
    ) -> Result<GpuBackend, GpuError> {
        // the bodies start (one interval ahead of the grains) and the
        // surfaces their first interval, posed at step 0 (as the CPU's)
        let (host_walls, bodies) = match walls {
            Some(w) => (w, None),
            None => {
                let mut set = setup.walls.clone();
                let mut bodies = BodySet::new(setup).map_err(GpuError::Device)?;
                if let Some(b) = bodies.as_mut() {
                    let (x0, v) = b.start().map_err(GpuError::Device)?;
                    let dt = setup.dt;
                    set.start_interval(&x0, &v, 0, b.every as f64, dt);
                    set.pose_surfaces(0, dt, f64::INFINITY);
                }
                (set, bodies)
            }
        };
        let (params, pairs, walls) = scene_tables_for(setup, grid, &host_walls);
        let tables = SceneTables {
            params,
            pairs,
            walls,
            bond_specs: bond_specs(setup),
            bonds: setup.bonds.clone(),
        };
        let flow = flow::GpuFlow::new(setup);
        let mut data = Self::allocate(&ctx, &tables, &flow, init, None)?;
        data.bonds = bond_data::BondBuffers::new(&ctx, &tables.bonds, &tables.bond_specs);
        let pipes = GpuPipelines::shared(&ctx, &data.paging);
        let binds = GpuBindings::new(&ctx, &pipes, &data);
        Ok(GpuBackend {
            fixed: FixedPoint::new(grid),
            ctx,
            pipes,
            data,
            binds,
            steps: 0,
            max_overlap: 0.0,
            gravity: setup.scene.simulation.gravity,
            dt: setup.dt,
            wall_motion: tables.walls.motion.clone(),
            flow,
            tables,
            grid: *grid,
            bodies,
            host_walls,
            repose_surfaces: false,
            shapes: setup.scene.shape_bodies(),
            bond_later: crate::bonds::table::Later::of(&setup.scene, setup.dt),
        })
    }

    /// `GpuData` for `init` (capacity `init.capacity()`), with the outlet
    /// table and the insertion counters (`fstate` words, else zero).
    pub(crate) fn allocate(
        ctx: &GpuContext,
        t: &SceneTables,
        flow: &flow::GpuFlow,
        init: &GpuInit,
        fstate: Option<&[u32]>,
    ) -> Result<GpuData, GpuError> {
        let mut params = t.params;
        params.sizes[0] = init.capacity() as u32;
        let cap = init.capacity();
        // a run that pours clumps: room in the clumps' tables for what the
        // plan still pours (the rows have it in `cap`), and each row's
        // part from the start, its spheres' none
        let pours = flow.pours_clumps();
        let spheres;
        let mut clumps = init.clumps;
        if clumps.is_none() && pours {
            spheres = clump_data::ClumpInit::spheres(init.state.len(), flow.shapes());
            clumps = Some(&spheres);
        }
        let room = if pours {
            flow.clumps_need(flow.end)
        } else {
            (0, 0)
        };
        let init = &GpuInit { clumps, ..*init };
        // a run with clumps: each row's part, the clumps' table and rows
        let extra = init.clumps.map_or(fit::Extra::default(), |c| {
            let table =
                std::mem::size_of::<clump_data::Clump>() as u64 * (c.table.len() as u64 + room.0);
            let rows = 4 * (c.rows.len() as u64 + room.1);
            fit::Extra {
                per_row: std::mem::size_of::<clump_data::MemberRow>() as u64,
                fixed: table + rows + 16 * c.members.len() as u64,
                ..Default::default()
            }
        });
        // and a rolling spring's history, and the bonds' table and map
        let roll = params.keeps_rolling_torque();
        let bonds = t.bonds.len() as u64;
        let bond_bytes = std::mem::size_of::<layout::Bond>() as u64 * bonds
            + 4 * t
                .bonds
                .ids
                .iter()
                .map(|i| i[1] as u64 + 1)
                .max()
                .unwrap_or(0);
        let extra = fit::Extra {
            roll,
            fixed: extra.fixed + bond_bytes,
            ..extra
        };
        fit::refuse_too_large(ctx, cap, params.dims[3] as u64, extra)?;
        let limits = &ctx.limits;
        let max_list = |pages: u32| fit::max_list_entries(limits, pages, roll);
        let mut data = GpuData::new(ctx, &params, &t.pairs, &t.walls, init, room, max_list)?;
        data.flow = data::FlowBuffers::new(ctx, &flow.outlet_table(), flow.inserted.len(), fstate);
        // the clumps' counters: pouring appends after those in use
        if data.clumps.count > 0 {
            let c = &data.clumps;
            let words = [c.used as u32, c.rows_used as u32];
            let at = 4 * data::FS_CLUMPS as u64;
            ctx.queue
                .write_buffer(&data.flow.state, at, bytemuck::cast_slice(&words));
        }
        Ok(data)
    }

    /// Records `f` in one compute pass and submits it.
    pub fn submit(
        &self,
        label: &str,
        f: impl FnOnce(&mut wgpu::ComputePass),
    ) -> wgpu::SubmissionIndex {
        let mut enc = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: None,
            });
            f(&mut pass);
        }
        self.ctx.queue.submit([enc.finish()])
    }

    /// Records one whole step, whatever came before it: `arm_rebuild`,
    /// then [`GpuBackend::encode_armed_step`].
    pub fn encode_step(&self, pass: &mut wgpu::ComputePass) {
        self.encode_arm(pass);
        self.encode_armed_step(pass);
    }

    /// Records one step whose indirect dispatches are armed (by the step
    /// before it or by [`GpuBackend::encode_arm`]): the stages of
    /// [`Stage::STEP`]. Bin, sort and neighbours are always recorded; their
    /// kernels launch no workgroup unless this step rebuilds (the decision
    /// stays on the GPU: no round trip). Its `finish_step` arms the next.
    pub fn encode_armed_step(&self, pass: &mut wgpu::ComputePass) {
        let (p, b, d) = (&self.pipes, &self.binds, &self.data);
        for s in Stage::STEP {
            match s {
                Stage::Bin => p.bin.encode(&b.bin, pass, d),
                _ => self.encode_stage(s, pass),
            }
        }
    }

    /// Records `arm_rebuild`: the indirect dispatches' workgroup counts of
    /// the step to come, from the device's count and flags.
    pub fn encode_arm(&self, pass: &mut wgpu::ComputePass) {
        self.pipes.bin.encode_arm(&self.binds.bin, pass, &self.data);
    }

    /// Records stage `s`, armed as a stage alone needs (bin arms first;
    /// integrate leaves the next step armed).
    pub fn encode_stage(&self, s: Stage, pass: &mut wgpu::ComputePass) {
        let (p, b, d) = (&self.pipes, &self.binds, &self.data);
        match s {
            Stage::Bin => {
                self.encode_arm(pass);
                p.bin.encode(&b.bin, pass, d)
            }
            Stage::Sort => {
                p.sort.encode(&b.sort, &p.bin, &b.bin, pass, d);
                if let Some(c) = &b.clumps {
                    p.clumps.encode_follow(c, pass, d);
                }
                if let Some(bb) = &b.bonds {
                    p.bonds.encode_rows(bb, pass, d);
                }
            }
            Stage::Neighbours => p.neighbours.encode(
                &b.neighbours,
                &p.sort,
                &b.sort,
                (&p.surfaces, &b.surfaces),
                pass,
                d,
            ),
            Stage::Contacts => {
                if let Some(bb) = &b.bonds {
                    p.bonds.encode(bb, pass, d);
                }
                p.contacts.encode(&b.contacts, pass, d)
            }
            Stage::Integrate => {
                let surfaces = (&p.surfaces, &b.surfaces);
                p.integrate.encode_particles(&b.integrate, pass, d);
                if let Some(c) = &b.clumps {
                    p.clumps.encode_step(c, pass, d);
                }
                if p.integrate.encode_finish(&b.integrate, surfaces, pass, d) {
                    self.encode_arm(pass);
                }
            }
            Stage::Diagnostics => p.diagnostics.encode(&b.diagnostics, pass, d),
        }
    }

    /// Reads buffers back through the persistent staging buffer: each
    /// `(buffer, bytes)`'s pieces (a paged array's pages, in order) cut
    /// into chunks of at most the staging buffer's size, as many chunks at
    /// a time as it holds (at 256-byte boundaries), each batch copied,
    /// mapped and appended to its part. One batch unless a read is larger
    /// than the staging buffer (`GpuData::staging_cap`).
    pub fn read(&self, parts: &[(&dyn Readable, u64)]) -> Vec<Vec<u8>> {
        let staging = &self.data.staging;
        let room = staging.size();
        // (part, buffer, offset in it, bytes), each at most `room`
        let mut chunks = Vec::new();
        for (k, (src, bytes)) in parts.iter().enumerate() {
            for (buf, bytes) in src.pieces(*bytes) {
                let mut at = 0;
                while at < bytes {
                    let len = (bytes - at).min(room);
                    chunks.push((k, buf, at, len));
                    at += len;
                }
            }
        }
        let mut out: Vec<Vec<u8>> = parts
            .iter()
            .map(|p| Vec::with_capacity(p.1 as usize))
            .collect();
        let mut next = 0;
        while next < chunks.len() {
            let mut enc = self.ctx.device.create_command_encoder(&Default::default());
            let mut off = 0;
            let mut batch = Vec::new();
            while next < chunks.len() && off + chunks[next].3 <= room {
                let (k, buf, at, len) = chunks[next];
                enc.copy_buffer_to_buffer(buf, at, staging, off, len);
                batch.push((k, off, len));
                off += len.next_multiple_of(256);
                next += 1;
            }
            self.ctx.queue.submit([enc.finish()]);
            let slice = staging.slice(..off.max(4));
            slice.map_async(wgpu::MapMode::Read, |r| r.expect("map staging buffer"));
            self.ctx
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .expect("GPU device lost while reading back");
            {
                let view = slice.get_mapped_range().expect("mapped staging");
                for &(k, o, len) in &batch {
                    out[k].extend_from_slice(&view[o as usize..(o + len) as usize]);
                }
            }
            staging.unmap();
        }
        out
    }

    /// A whole buffer of `count` `T`s.
    pub fn read_vec<T: bytemuck::Pod>(&self, buf: &dyn Readable, count: u64) -> Vec<T> {
        let bytes = count * std::mem::size_of::<T>() as u64;
        bytemuck::pod_collect_to_vec(&self.read(&[(buf, bytes)])[0])
    }

    /// The first `len` entries' history ([`crate::state::Hist`], the
    /// rolling half zero in a run without it).
    pub fn read_hist(&self, len: u64) -> Vec<crate::state::Hist<f32>> {
        let roll = self.data.paging.roll;
        let bytes = len * pages::hist_bytes(roll);
        data::hist_host(&self.read(&[(&self.data.nbr_hist, bytes)])[0], roll)
    }

    /// The control words (`CTL_*` in common.wgsl and `data`).
    pub fn ctl(&self) -> [u32; data::CTL_LEN] {
        let v: Vec<u32> = self.read_vec(&self.data.ctl, data::CTL_LEN as u64);
        let mut c = [0; data::CTL_LEN];
        c.copy_from_slice(&v);
        c
    }

    /// The working set B in f32, as stored (cell order of the last build).
    /// v* and 1/m, ω* and 1/I, the material and the id come from the
    /// motion record, their only copy on the device (bit for bit).
    pub fn state_f32(&self) -> Particles<f32> {
        let (b, n) = (&self.data.b, self.data.n);
        let r = self.read(&[(&b.pos, 16 * n), (&b.diss, 4 * n), (&b.motion, 64 * n)]);
        let motion: Vec<Motion<f32>> = bytemuck::pod_collect_to_vec(&r[2]);
        Particles {
            pos_rad: bytemuck::pod_collect_to_vec(&r[0]),
            vel_invm: motion.iter().map(|m| m[0]).collect(),
            omega_invi: motion.iter().map(|m| m[1]).collect(),
            material: motion.iter().map(|m| m[2][3].to_bits()).collect(),
            id: motion.iter().map(|m| m[3][3].to_bits()).collect(),
            dissipated: bytemuck::pod_collect_to_vec(&r[1]),
        }
    }

    /// The particle ids in set B's order (lane 3.w of the motion records).
    pub fn ids(&self) -> Vec<u32> {
        let m: Vec<Motion<f32>> = self.read_vec(&self.data.b.motion, self.data.n);
        m.iter().map(|m| m[3][3].to_bits()).collect()
    }
}

impl GpuBackend {
    /// Appends `add` (its ids are replaced) to the working set, into the
    /// buffers' spare capacity, with ids from the device's counter, and
    /// returns them: the GPU twin of `cpu::Step::insert`. Their motion
    /// records start as at a run's start; each gets an empty row at the end
    /// of the current list (so the next build, which this sets off, moves
    /// no history to it); the active count, which the kernels and the
    /// dispatch sizes follow on the device, grows by `add.len()`. One
    /// read of the control words and a few buffer writes, between calls to
    /// `advance`.
    pub fn insert(&mut self, add: &Particles<f64>) -> Result<std::ops::Range<u32>, GpuError> {
        self.insert_under(add, self.gravity)
    }

    /// [`GpuBackend::insert`] with the motion records started under
    /// `gravity` (a poured batch's: `InsertPlan::gravity_at` its step, as
    /// the batches `advance` uploads).
    pub(crate) fn insert_under(
        &mut self,
        add: &Particles<f64>,
        gravity: [f64; 3],
    ) -> Result<std::ops::Range<u32>, GpuError> {
        use data::*;
        let ctl = self.ctl();
        let (n, k) = (ctl[CTL_COUNT] as u64, add.len() as u64);
        if n + k > self.data.cap {
            return Err(GpuError::TooLarge(format!(
                "{} particles: the GPU buffers hold {} (the capacity the run was started with)",
                n + k,
                self.data.cap
            )));
        }
        let next = ctl[CTL_NEXT_ID];
        let ids = next..next + k as u32;
        let mut add = add.clone();
        add.id = ids.clone().collect();
        let motion: Vec<Motion<f32>> =
            crate::state::convert_motion(&add.initial_motion(gravity, self.dt));
        let f = add.to_f32();
        self.append_rows(&ctl, &add, &f, &motion, None, ids.end);
        Ok(ids)
    }

    /// Appends rows after the `ctl[CTL_COUNT]` there (`ctl`: the control
    /// words now): `f`'s positions and dissipated energies (`rows` in f32),
    /// their motion records, `rows`' positions in fixed point, their parts
    /// in clumps (`parts`; None: spheres, rows of no clump in a run with
    /// clumps), empty list rows; the count, the next id (`next_id`) and the
    /// step's dispatch sizes follow, and the next step rebuilds.
    pub(crate) fn append_rows(
        &mut self,
        ctl: &[u32],
        rows: &Particles<f64>,
        f: &Particles<f32>,
        motion: &[Motion<f32>],
        parts: Option<&[layout::MemberRow]>,
        next_id: u32,
    ) {
        use data::*;
        let (n, k) = (ctl[CTL_COUNT] as u64, rows.len() as u64);
        let fx: Vec<data::FixedWords> = rows
            .pos_rad
            .iter()
            .map(|p| self.fixed.encode([p[0], p[1], p[2]]))
            .collect();
        let (q, d) = (&self.ctx.queue, &self.data);
        d.b.pos.write(q, 16 * n, bytemuck::cast_slice(&f.pos_rad));
        d.b.diss
            .write(q, 4 * n, bytemuck::cast_slice(&f.dissipated));
        d.b.motion.write(q, 64 * n, bytemuck::cast_slice(motion));
        d.b.pos_fx
            .write(q, 4 * FX_WORDS as u64 * n, bytemuck::cast_slice(&fx));
        match parts {
            Some(p) => d.b.clump_row.write(q, 32 * n, bytemuck::cast_slice(p)),
            None if d.b.clumped => {
                // spheres among clumps: rows of no clump
                let none = vec![layout::MemberRow::SPHERE; k as usize];
                d.b.clump_row.write(q, 32 * n, bytemuck::cast_slice(&none));
            }
            None => {}
        }
        // empty rows at the end of the current list
        let end = vec![ctl[CTL_LIST_LEN]; k as usize];
        q.write_buffer(&d.nbr_start, 4 * (n + 1), bytemuck::cast_slice(&end));
        self.write_ctl(&[
            (CTL_COUNT, (n + k) as u32),
            (CTL_NEXT_ID, next_id),
            (CTL_REBUILD, 1),
        ]);
        // a dispatch recorded before the next step's arm_rebuild (the
        // diagnostics) covers the new particles too
        let every = Over::EveryStep.groups(n + k, true, true);
        q.write_buffer(
            &d.args,
            d.arg_offset(Over::EveryStep),
            bytemuck::cast_slice(&every),
        );
        self.data.n = n + k;
    }

    /// Removes the particles whose id is in `ids` and returns how many
    /// there were: the GPU twin of `cpu::Step::remove`. Each is marked (its
    /// motion record's id becomes `NONE`) and the next step rebuilds: its
    /// bin stage puts marked particles past the last cell, the sort moves
    /// them behind the live ones, and the build's `drop_removed` lowers the
    /// active count and keeps history from following an entry to them (the
    /// outlets of a later issue mark particles the same way, on the device).
    /// Until that step the marked particles are still in the state.
    pub fn remove(&mut self, ids: &std::collections::HashSet<u32>) -> usize {
        let m: Vec<crate::state::Motion<f32>> = self.read_vec(&self.data.b.motion, self.data.n);
        let q = &self.ctx.queue;
        let mut k = 0;
        for (i, r) in m.iter().enumerate() {
            if ids.contains(&r[3][3].to_bits()) {
                let at = (64 * i + 60) as u64;
                self.data
                    .b
                    .motion
                    .write(q, at, bytemuck::bytes_of(&layout::NONE));
                k += 1;
            }
        }
        if k > 0 {
            self.write_ctl(&[(data::CTL_REBUILD, 1)]);
        }
        // a clump goes whole: its entry marked too (no kernel moves or
        // counts it again; its rows, which share its id, are marked above)
        let mut table = self.clump_table();
        let mut gone = false;
        for c in &mut table {
            if ids.contains(&c.info[0]) {
                c.info[0] = layout::NONE;
                gone = true;
            }
        }
        if gone {
            q.write_buffer(&self.data.clumps.table, 0, bytemuck::cast_slice(&table));
        }
        self.flow.pending += k as u64;
        k
    }

    /// The kernels for the buffers' paging (built for it once per device)
    /// and the bind groups over the buffers, after they changed.
    pub(crate) fn rebind(&mut self) {
        self.pipes = GpuPipelines::shared(&self.ctx, &self.data.paging);
        self.binds = GpuBindings::new(&self.ctx, &self.pipes, &self.data);
    }

    /// Writes control words (`(CTL_*, value)`), queued before the next
    /// submission.
    fn write_ctl(&self, words: &[(usize, u32)]) {
        for &(k, v) in words {
            let at = (4 * k) as u64;
            self.ctx
                .queue
                .write_buffer(&self.data.ctl, at, bytemuck::bytes_of(&v));
        }
    }

    /// Each particle's force and torque of the last contact stage (set B's
    /// order; w lanes: the elastic energy and the dissipated power
    /// shares), from the first 8 words of its work record.
    pub fn forces(&self) -> (Vec<[f32; 4]>, Vec<[f32; 4]>) {
        let w = self.data.reorder_width as usize;
        let words: Vec<u32> = self.read_vec(&self.data.acc, self.data.n * w as u64);
        let lanes = |at: usize| -> Vec<[f32; 4]> {
            words
                .chunks(w)
                .map(|r| std::array::from_fn(|c| f32::from_bits(r[at + c])))
                .collect()
        };
        (lanes(0), lanes(4))
    }

    /// Grows the kept table to hold at least `need` entries, rebuilds the
    /// bind groups over it and unfreezes the run (the frozen build keeps
    /// again: `ctl[CTL_KEPT]` is 2).
    pub fn grow_kept(&mut self, need: u64) {
        use data::*;
        self.data.grow_kept(&self.ctx, need);
        self.rebind();
        self.write_ctl(&[
            (CTL_FROZEN, u32::MAX),
            (CTL_KEPT_NEED, 0),
            (CTL_KEPT_CAP, self.data.kept_cap as u32),
        ]);
    }

    /// Replaces the neighbour list with a larger one, rebuilds the bind
    /// groups over it and unfreezes the run (the rebuild flag is still set,
    /// so the frozen step builds again). False when the list would not fit
    /// the pages the adapter binds.
    pub fn grow_list(&mut self, need: u64) -> bool {
        use data::*;
        let limits = &self.ctx.limits;
        let roll = self.data.paging.roll;
        let max_list = |pages: u32| fit::max_list_entries(limits, pages, roll);
        if !self.data.grow_list(&self.ctx, need, max_list) {
            return false;
        }
        self.rebind();
        self.write_ctl(&[
            (CTL_FROZEN, u32::MAX),
            (CTL_LIST_NEED, 0),
            (CTL_LIST_CAP, self.data.nbr_cap as u32),
        ]);
        true
    }
}

impl GpuBackend {
    /// Before a segment of `advance` (steps from `self.steps`): its end, at
    /// most `target`, such that what its batches can insert fits the
    /// buffers (grown, state kept bit for bit, when not even one submission
    /// fits), and a flow log that cannot overflow over it.
    fn prepare_segment(&mut self, target: u64) -> Result<u64, RunError> {
        let n = self.data.n;
        let mut end = target;
        if !self.flow.plan.is_empty() {
            // a bounded segment: the host's list of the candidates uploaded
            // (until the log is read) and the log stay small
            end = end.min(self.steps + SEGMENT_STEPS);
        }
        if !self.flow.plan.is_empty() && self.flow.need(n, end) > self.data.cap {
            let first = end.min(self.steps + STEPS_PER_SUBMIT);
            let need = self.flow.need(n, first);
            if need > self.data.cap {
                let cap = need.max(self.data.cap * 3 / 2);
                let too_many = RunError {
                    step: self.steps,
                    particle: u32::MAX,
                    kind: RunErrorKind::TooManyParticles { count: need },
                };
                if need > crate::state::MAX_PARTICLES as u64 {
                    return Err(too_many);
                }
                let cap = cap.min(crate::state::MAX_PARTICLES as u64);
                self.grow_capacity(cap).map_err(|_| too_many)?;
            }
            // the longest segment from `first` that fits
            let cap = self.data.cap;
            let (mut lo, mut hi) = (first, end);
            if self.flow.need(n, hi) <= cap {
                lo = hi;
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if self.flow.need(n, mid) <= cap {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            end = lo;
        }
        // the clumps' tables: room for what the segment can pour (grown
        // with the run's horizon moved to its end, state kept bit for bit)
        let c = &self.data.clumps;
        if c.count > 0 || self.flow.pours_clumps() {
            let (more, more_rows) = self.flow.clumps_need(end);
            if c.used + more > c.count || c.rows_used + more_rows > c.rows_cap {
                self.flow.end = self.flow.end.max(end);
                let too_many = RunError {
                    step: self.steps,
                    particle: u32::MAX,
                    kind: RunErrorKind::TooManyParticles { count: n },
                };
                self.grow_capacity(self.data.cap).map_err(|_| too_many)?;
            }
        }
        // each particle inserted is logged once, and each present or
        // inserted is removed at most once (a marked one is not taken
        // again): n + 2 × the insertions at most
        let log = 2 * self.flow.need(n, end) - n + 16;
        if self.data.reserve_flow(&self.ctx, 0, 0, 0, log) {
            self.rebind_flow();
        }
        Ok(end)
    }

    /// The bind groups over the flow buffers, after they grew.
    fn rebind_flow(&mut self) {
        let (p, d) = (&self.pipes, &self.data);
        self.binds.flow = p.flow.bind(&self.ctx, d);
        self.binds.integrate = p.integrate.bind(&self.ctx, d);
        self.binds.clumps = p.clumps.bind(&self.ctx, d);
    }

    /// Uploads the batches of steps `from..to` (one submission) and
    /// returns them.
    fn upload_window(&mut self, from: u64, to: u64) -> flow::Window {
        let w = self.flow.window(from, to, &self.fixed, self.dt);
        if w.batches.is_empty() {
            return w;
        }
        let (c, b) = (w.pos.len() as u64, w.batches.len() as u64);
        if self
            .data
            .reserve_flow(&self.ctx, c, w.clumps.len() as u64, b, 0)
        {
            self.rebind_flow();
        }
        let (q, f) = (&self.ctx.queue, &self.data.flow);
        q.write_buffer(&f.cand_pos, 0, bytemuck::cast_slice(&w.pos));
        q.write_buffer(&f.cand_fx, 0, bytemuck::cast_slice(&w.fx));
        q.write_buffer(&f.cand_motion, 0, bytemuck::cast_slice(&w.motion));
        q.write_buffer(&f.cand_member, 0, bytemuck::cast_slice(&w.member));
        if !w.clumps.is_empty() {
            q.write_buffer(&f.cand_clump, 0, bytemuck::cast_slice(&w.clumps));
        }
        q.write_buffer(&f.batches, 0, bytemuck::cast_slice(&w.batches));
        let at = (4 * data::FS_CURSOR) as u64;
        q.write_buffer(&f.state, at, bytemuck::bytes_of(&0u32));
        w
    }

    /// After a segment: the control words and the insertion counters (one
    /// read), then the flow log's records, turned into events; the log's
    /// cursor is reset for the next segment.
    fn read_segment(&mut self) -> ([u32; data::CTL_LEN], Vec<u32>) {
        use data::*;
        let entries = self.flow.inserted.len();
        let words = (FS_ENTRIES + 2 * entries) as u64;
        // the surfaces' force words with them (an exchange reads them)
        let surf = if self.bodies.is_some() {
            4 * surf_force_words(self.data.n_surf_nodes)
        } else {
            0
        };
        let need = [4 * CTL_LEN as u64, 4 * words, surf]
            .iter()
            .map(|b| b.next_multiple_of(256))
            .sum();
        self.data.reserve_staging(&self.ctx, need);
        let r = self.read(&[
            (&self.data.ctl, 4 * CTL_LEN as u64),
            (&self.data.flow.state, 4 * words),
            (&self.data.surf_force, surf),
        ]);
        let surf_words: Vec<u32> = bytemuck::pod_collect_to_vec(&r[2]);
        let mut ctl = [0u32; CTL_LEN];
        ctl.copy_from_slice(bytemuck::cast_slice(&r[0]));
        let fs: Vec<u32> = bytemuck::pod_collect_to_vec(&r[1]);
        for (k, n) in self.flow.inserted.iter_mut().enumerate() {
            *n = fs[FS_ENTRIES + 2 * k] as u64;
        }
        if self.data.clumps.count > 0 {
            self.data.clumps.used = fs[FS_CLUMPS] as u64;
            self.data.clumps.rows_used = fs[FS_CLUMP_ROWS] as u64;
        }
        let logged = ctl[CTL_LOG] as u64;
        assert!(
            logged <= self.data.flow.log_cap,
            "flow log overflow: {logged} records, room for {}",
            self.data.flow.log_cap
        );
        let records: Vec<FlowRecord> = if logged > 0 {
            let bytes = logged * std::mem::size_of::<FlowRecord>() as u64;
            self.data.reserve_staging(&self.ctx, bytes);
            let q = &self.ctx.queue;
            let at = (4 * CTL_LOG) as u64;
            q.write_buffer(&self.data.ctl, at, bytemuck::bytes_of(&0u32));
            self.read_vec(&self.data.flow.log, logged)
        } else {
            Vec::new()
        };
        let now = if ctl[CTL_FROZEN] == u32::MAX {
            ctl[CTL_STEP]
        } else {
            ctl[CTL_FROZEN]
        };
        self.flow.take_log(&records, now as u64);
        (ctl, surf_words)
    }

    /// At a multiple of K (step `step`, the segment just read, `words` the
    /// surfaces' force words): the bodies take the grains' forces summed
    /// over the interval and advance; the surfaces' next interval goes up
    /// (x0 and v in one write, step0), the force words are zeroed, a
    /// surface binned again has its grid re-uploaded (the mesh buffer grown
    /// and the bind groups rebuilt when it no longer fits), and the next
    /// submission poses the surfaces at this step first (`move_surfaces`
    /// with the rebuild test, as the CPU's `pose_surfaces`). No other
    /// round trip than the segment's read.
    fn exchange(&mut self, step: u64, words: &[u32]) -> Result<(), RunError> {
        let Some(b) = self.bodies.as_mut() else {
            return Ok(());
        };
        let d = &self.data;
        let nodes = d.n_surf_nodes as usize;
        let (force, overflow) = surfaces::node_forces(words, nodes, d.force_scale);
        if overflow {
            return Err(body_error(
                step,
                format!(
                    "the grains' force on a FEM surface node overflowed the GPU's 64-bit fixed point (unit 1/{:e} N, limit {:e} N) in the interval before this step; use --backend cpu",
                    d.force_scale,
                    2f64.powi(62) / d.force_scale
                ),
            ));
        }
        let (x0, v) = b
            .exchange(&force, step)
            .map_err(|message| body_error(step, message))?;
        let every = b.every as f64;
        let rebinned = self
            .host_walls
            .start_interval(&x0, &v, step, every, self.dt);
        let s = &self.host_walls.surfaces;
        let q = &self.ctx.queue;
        let xv = walls::surface_motion(s);
        q.write_buffer(&d.surf_nodes, 0, bytemuck::cast_slice(&xv));
        let info = data::surf_info(nodes as u32, d.n_surf_tris as u32, step, d.force_scale);
        q.write_buffer(&d.surf_info, 0, bytemuck::bytes_of(&info));
        let zero = vec![0u32; words.len()];
        q.write_buffer(&d.surf_force, 0, bytemuck::cast_slice(&zero));
        if rebinned {
            self.upload_grids();
        }
        self.repose_surfaces = true;
        Ok(())
    }

    /// The walls' grids (`wall_info`, `mesh_cells`) from the host's copy,
    /// after a surface was binned again (`mesh_cells` grown, and the bind
    /// groups over it rebuilt, when it no longer fits).
    pub(crate) fn upload_grids(&mut self) {
        let t = WallTables::new(&self.host_walls);
        let q = &self.ctx.queue;
        q.write_buffer(&self.data.wall_info, 0, bytemuck::cast_slice(&t.info));
        let bytes: &[u8] = bytemuck::cast_slice(&t.mesh_cells);
        if bytes.len() as u64 > self.data.mesh_cells.size() {
            self.data.mesh_cells = data::storage_init(&self.ctx, "mesh_cells", bytes);
            self.rebind();
        } else {
            q.write_buffer(&self.data.mesh_cells, 0, bytes);
        }
        self.tables.walls.info = t.info;
        self.tables.walls.mesh_cells = t.mesh_cells;
    }
}

impl GpuBackend {
    /// Zeroes the work records where they hold pair sums: the last step of
    /// an `advance` keeps its forces there for diagnostics (the next
    /// step's sums must start from zero). Before anything else runs the
    /// contact stage; the copy waits for nothing on the host.
    pub fn clear_kept_forces(&self) {
        if !self.data.pair_sums {
            return;
        }
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for page in &self.data.acc.pages {
            enc.clear_buffer(page, 0, None);
        }
        self.ctx.queue.submit([enc.finish()]);
    }

    /// Runs `steps` steps with each stage in its own timestamped pass and
    /// returns GPU seconds per stage of [`Stage::STEP`], or None without
    /// timestamp queries.
    /// (Separate passes cost a little more than the fused run; use it for
    /// shares, and `advance` for throughput.)
    pub fn profile_stages(&mut self, steps: u32) -> Option<StageTimes> {
        if !self
            .ctx
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return None;
        }
        let per = 2 * Stage::STEP.len() as u32;
        let n_q = per * steps;
        let qs = self.ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("stage timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: n_q,
        });
        let resolve = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: 8 * n_q as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.clear_kept_forces();
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for step in 0..steps {
            for (k, s) in Stage::STEP.into_iter().enumerate() {
                let q = per * step + 2 * k as u32;
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(s.name()),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: &qs,
                        beginning_of_pass_write_index: Some(q),
                        end_of_pass_write_index: Some(q + 1),
                    }),
                });
                self.encode_stage(s, &mut pass);
            }
        }
        enc.resolve_query_set(&qs, 0..n_q, &resolve, 0);
        self.ctx.queue.submit([enc.finish()]);
        let ticks: Vec<u64> = self.read_vec(&resolve, n_q as u64);
        let period = self.ctx.queue.get_timestamp_period() as f64 * 1e-9;
        let mut out = StageTimes::default();
        let per = per as usize;
        for step in 0..steps as usize {
            for (k, o) in out.iter_mut().enumerate() {
                let (a, b) = (ticks[per * step + 2 * k], ticks[per * step + 2 * k + 1]);
                *o += b.saturating_sub(a) as f64 * period;
            }
        }
        self.steps += steps as u64;
        Some(out)
    }
}

impl GpuBackend {
    /// [`Backend::advance`], calling `observe(self, step)` between
    /// submissions: first after `first` steps (0: never), then after as
    /// many more as it returns (None: no more calls). What it submits on
    /// the device's queue follows the steps already submitted, so a draw
    /// shows the state after `step` without waiting for it (`talus run
    /// --view`). The host's own fields (`steps`, the count, the flow log)
    /// are those of the segment's start until `advance` reads the control
    /// words back at the segment's end.
    pub fn advance_observed(
        &mut self,
        steps: u64,
        first: u64,
        observe: &mut dyn FnMut(&GpuBackend, u64) -> Option<u64>,
    ) -> Result<(), RunError> {
        use data::*;
        let target = self.steps + steps;
        if steps > 0 {
            // the last step's contacts reduce the wall loads (walls.csv),
            // and its integrate keeps the forces (diagnostics)
            self.clear_kept_forces();
            self.write_ctl(&[(CTL_LOADS_AT, (target - 1) as u32)]);
        }
        // the step after which `observe` is called next
        let mut observe_at = if first == 0 {
            u64::MAX
        } else {
            self.steps + first
        };
        while self.steps < target {
            // bonds that form at this step's start, and none inside a
            // segment
            self.form_bonds_due();
            // this segment's end, with room for what its batches can insert
            // and for its log
            let mut end = self.prepare_segment(target)?;
            if let Some(n) = self.bond_later.next(self.steps + 1) {
                end = end.min(n);
            }
            if let Some(b) = &self.bodies {
                // the bodies exchange at every multiple of K
                end = end.min((self.steps / b.every + 1) * b.every);
            }
            let mut in_flight = std::collections::VecDeque::new();
            let mut s = self.steps;
            while s < end {
                let k = (end - s)
                    .min(STEPS_PER_SUBMIT)
                    .min(observe_at.saturating_sub(s).max(1));
                let w = self.upload_window(s, s + k);
                let repose = std::mem::take(&mut self.repose_surfaces);
                in_flight.push_back(self.submit("steps", |pass| {
                    if repose {
                        let p = &self.pipes.surfaces;
                        p.encode_move(&self.binds.surfaces, pass, &self.data);
                    }
                    // the host may have changed the count or the flags
                    // since the last submission: arm its first step
                    self.encode_arm(pass);
                    for step in s..s + k {
                        // the step's batches first: its dispatch sizes and
                        // its rebuild include what they insert (armed again)
                        let mut inserted = false;
                        for count in w.at(step) {
                            self.pipes.flow.encode_batch(&self.binds.flow, pass, count);
                            inserted = true;
                        }
                        if inserted {
                            self.encode_arm(pass);
                        }
                        self.encode_armed_step(pass);
                    }
                }));
                s += k;
                if s >= observe_at {
                    // queued after the steps: what it draws is step s
                    observe_at = match observe(self, s) {
                        Some(n) => s + n.max(1),
                        None => u64::MAX,
                    };
                }
                // at most MAX_IN_FLIGHT submissions queued: each holds its
                // command memory until it completes (without this a long
                // advance on lavapipe grew by ~1.5 kB per dispatch, 24 GB
                // over 50 000 steps); the GPU still never waits on the host
                if in_flight.len() > MAX_IN_FLIGHT {
                    let oldest = in_flight.pop_front().expect("queued");
                    let _ = self.ctx.device.poll(wgpu::PollType::Wait {
                        submission_index: Some(oldest),
                        timeout: None,
                    });
                }
            }
            let (ctl, surf_words) = self.read_segment();
            self.max_overlap = f32::from_bits(ctl[CTL_MAX_OVERLAP]) as f64;
            self.data.n = ctl[CTL_COUNT] as u64;
            if ctl[CTL_FROZEN] == u32::MAX {
                self.steps = ctl[CTL_STEP] as u64;
                let due = self
                    .bodies
                    .as_ref()
                    .is_some_and(|b| self.steps % b.every == 0);
                if due && self.steps > 0 {
                    self.exchange(self.steps, &surf_words)?;
                }
                continue;
            }
            self.steps = ctl[CTL_FROZEN] as u64;
            if ctl[CTL_KEPT_NEED] != 0 {
                // a build's kept table was too small for the previous
                // list's contacts: nothing but the reorder (a permutation)
                // and the first order (`old_index`) written; grow it, and
                // the build keeps again
                self.grow_kept(ctl[CTL_KEPT_NEED] as u64);
                continue;
            }
            if ctl[CTL_LIST_NEED] != 0 {
                // a build outgrew the list: nothing of that step was
                // written but the reorder (a permutation); grow, unfreeze
                // and go on from it
                let need = ctl[CTL_LIST_NEED] as u64;
                if !self.grow_list(need) {
                    return Err(RunError {
                        step: self.steps,
                        particle: u32::MAX,
                        kind: RunErrorKind::ListTooLarge { entries: need },
                    });
                }
                continue;
            }
            let (kind, particle) = if ctl[CTL_ERR_OVERLAP] != u32::MAX {
                // the ratio itself is not kept per particle on the GPU: the
                // run's largest is reported
                (
                    RunErrorKind::Overlap {
                        ratio: self.max_overlap,
                    },
                    ctl[CTL_ERR_OVERLAP],
                )
            } else {
                (RunErrorKind::NonFinite, ctl[CTL_ERR_NONFINITE])
            };
            return Err(RunError {
                step: self.steps,
                particle,
                kind,
            });
        }
        Ok(())
    }

    /// The scene's walls' poses and loads now (read back: one wait).
    pub fn wall_poses(&self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)> {
        // the scene's walls (the bodies' surfaces follow them)
        let n = self.data.n_bodies - self.host_walls.surfaces.walls.len() as u64;
        if n == 0 {
            return Vec::new();
        }
        let poses: Vec<layout::WallPose> = self.read_vec(&self.data.wall_pose, n);
        poses
            .iter()
            .zip(&self.wall_motion)
            .map(|(p, m)| walls::pose_from_gpu(p, m))
            .collect()
    }
}

impl GpuBackend {
    /// The diagnostics stage's energies as exact sums (2⁻⁸⁰ units, added
    /// as integers over the workgroups), whether a term was out of range,
    /// and the largest speed: what [`Backend::diagnostics`] turns into
    /// values ([`diagnostics_of`]); a run on several ranks adds every
    /// rank's first.
    pub fn diagnostic_sums(&mut self) -> ([i128; 5], bool, f64) {
        self.submit(Stage::Diagnostics.name(), |pass| {
            self.encode_stage(Stage::Diagnostics, pass)
        });
        let groups = self.data.n.div_ceil(layout::WG as u64);
        let partials: Vec<[u32; layout::DIAG_WORDS as usize]> =
            self.read_vec(&self.data.partials, groups);
        let mut sums = [0i128; 5];
        let mut bad = false;
        let mut max_speed = 0.0f64;
        for p in partials {
            for (k, s) in sums.iter_mut().enumerate() {
                let w = &p[4 * k..4 * k + 4];
                let v = w
                    .iter()
                    .rev()
                    .fold(0u128, |acc, &x| (acc << 32) | x as u128) as i128;
                *s = s.wrapping_add(v);
            }
            bad |= p[20] != 0;
            max_speed = max_speed.max(f32::from_bits(p[21]) as f64);
        }
        (sums, bad, max_speed)
    }
}

/// The energies of [`GpuBackend::diagnostic_sums`]' sums.
pub fn diagnostics_of(sums: [i128; 5], bad: bool, max_speed: f64) -> Diagnostics {
    let value = |s: i128| {
        if bad {
            f64::NAN
        } else {
            crate::sums::Exact::from_units(s).value()
        }
    };
    Diagnostics {
        kinetic_translational: value(sums[0]),
        kinetic_rotational: value(sums[1]),
        potential: value(sums[2]),
        elastic: value(sums[3]),
        dissipated: value(sums[4]),
        max_speed,
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn adapter(&self) -> String {
        self.ctx.describe()
    }

    fn advance(&mut self, steps: u64) -> Result<(), RunError> {
        self.advance_observed(steps, 0, &mut |_, _| None)
    }

    fn diagnostics(&mut self) -> Diagnostics {
        let (sums, bad, max_speed) = self.diagnostic_sums();
        diagnostics_of(sums, bad, max_speed)
    }

    fn snapshot(&mut self) -> Particles<f64> {
        let mut p = self.state_f32().map_real(f64::from);
        // positions from the exact fixed-point words, not the f32 copy
        let fx: Vec<data::FixedWords> = self.read_vec(&self.data.b.pos_fx, self.data.n);
        for (x, w) in p.pos_rad.iter_mut().zip(&fx) {
            let e = self.fixed.decode(w);
            x[..3].copy_from_slice(&e);
        }
        // a clump's members in member order (as the CPU's snapshot)
        let rows = self.member_rows();
        if !rows.is_empty() {
            let mut order: Vec<u32> = (0..p.len() as u32)
                .filter(|&i| p.id[i as usize] != layout::NONE)
                .collect();
            order.sort_by_key(|&i| (p.id[i as usize], rows[i as usize].member));
            let at = |i: &u32| *i as usize;
            return Particles {
                pos_rad: order.iter().map(|i| p.pos_rad[at(i)]).collect(),
                vel_invm: order.iter().map(|i| p.vel_invm[at(i)]).collect(),
                omega_invi: order.iter().map(|i| p.omega_invi[at(i)]).collect(),
                material: order.iter().map(|i| p.material[at(i)]).collect(),
                id: order.iter().map(|i| p.id[at(i)]).collect(),
                dissipated: order.iter().map(|i| p.dissipated[at(i)]).collect(),
            };
        }
        // particles marked removed (an outlet took them at the last step;
        // the next build drops them) are gone, as on the CPU
        if p.id.contains(&layout::NONE) {
            let live: Vec<u32> = (0..p.len() as u32)
                .filter(|&i| p.id[i as usize] != layout::NONE)
                .collect();
            let mut q = Particles {
                pos_rad: vec![[0.0; 4]; live.len()],
                vel_invm: vec![[0.0; 4]; live.len()],
                omega_invi: vec![[0.0; 4]; live.len()],
                material: vec![0; live.len()],
                id: vec![0; live.len()],
                dissipated: vec![0.0; live.len()],
            };
            p.permute_into(&live, &mut q);
            p = q;
        }
        p.sort_by_id();
        p
    }

    fn max_overlap_ratio(&self) -> f64 {
        self.max_overlap
    }

    fn steps_done(&self) -> u64 {
        self.steps
    }

    fn walls(&mut self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)> {
        self.wall_poses()
    }

    fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent> {
        std::mem::take(&mut self.flow.events)
    }

    fn bodies(&self) -> Option<&BodySet> {
        self.bodies.as_ref()
    }

    fn particle_count(&mut self) -> u64 {
        if self.data.clumps.count > 0 {
            // a clump once, however many rows its members take (the rows
            // an outlet marked are gone)
            let rows = self.member_rows();
            let ids = self.ids();
            let spheres = (rows.iter().zip(&ids))
                .filter(|(r, &id)| r.body == layout::NONE && id != layout::NONE)
                .count();
            let clumps = self.clump_table();
            let live = clumps.iter().filter(|c| c.info[0] != layout::NONE).count();
            return (spheres + live) as u64;
        }
        // the marked particles are still in the device's count until the
        // next build
        self.data.n - self.flow.pending.min(self.data.n)
    }

    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        self.clump_rows_out()
    }

    fn particle_forces(&mut self) -> Result<Vec<[[f64; 3]; 2]>, String> {
        let ids = self.ids();
        let (force, torque) = self.forces();
        let rows = self.member_rows();
        let member = |i: usize| rows.get(i).map_or(0, |r| r.member);
        // the snapshot's order: live rows by id, a clump's by member
        let mut order: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] != layout::NONE).collect();
        order.sort_by_key(|&i| (ids[i], member(i)));
        let row = |v: &[f32; 4]| [v[0] as f64, v[1] as f64, v[2] as f64];
        Ok(order
            .iter()
            .map(|&i| [row(&force[i]), row(&torque[i])])
            .collect())
    }

    fn insert_particles(&mut self, add: &Particles<f64>) -> Result<Vec<u32>, String> {
        // room first: the buffers grow as for a pour (every bit kept)
        let need = self.ctl()[data::CTL_COUNT] as u64 + add.len() as u64;
        if need > self.data.cap {
            let most = crate::state::MAX_PARTICLES as u64;
            if need > most {
                return Err(format!(
                    "{need} particles: at most {most} fit the neighbour list's indices"
                ));
            }
            let cap = need.max(self.data.cap * 3 / 2).min(most);
            self.grow_capacity(cap).map_err(|e| e.to_string())?;
        }
        self.insert(add)
            .map(|r| r.collect())
            .map_err(|e| e.to_string())
    }

    fn remove_particles(&mut self, ids: &std::collections::HashSet<u32>) -> Result<usize, String> {
        Ok(self.remove(ids))
    }

    fn bonds(&mut self) -> crate::bonds::table::Bonds {
        self.bond_table()
    }

    fn save(&mut self) -> crate::checkpoint::Saved {
        self.save_state()
    }

    fn rewall(&mut self, setup: &Setup, edit: &crate::walls::WallEdit) -> Result<(), String> {
        self.rewall_saved(setup, edit)
    }

    fn list_stats(&mut self) -> ListStats {
        let c = self.ctl();
        let d = &self.data;
        let len = c[data::CTL_LIST_LEN] as u64;
        let nbr: Vec<u32> = self.read_vec(&d.nbr, len);
        let hist = self.read_hist(len);
        // a pair listed once counted as a list of both sides holds it
        let weight = match d.pair_mode {
            Pairs::Once => 2,
            Pairs::Both => 1,
        };
        let (entries, contacts) = list_counts(&nbr, &hist, weight);
        ListStats {
            builds: c[data::CTL_BUILDS] as u64,
            entries,
            contacts,
        }
    }
}
