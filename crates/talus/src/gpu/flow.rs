//! Particles in and out on the GPU (`shaders/flow.wgsl`; the outlet test
//! is fused into `integrate.wgsl`). Twin of `cpu/flow.rs`.
//!
//! - **Insertion**: `advance` takes each submission's batches from the
//!   run's `flow::InsertPlan` ([`GpuFlow::window`]), uploads their
//!   candidates and a small batch table with `queue.write_buffer` before
//!   that submission, and records [`FlowKernels::encode_batch`] at the start
//!   of each step that has a batch, before its `arm_rebuild`:
//!   `insert_check` (a thread per candidate: free unless a present particle
//!   overlaps), `insert_pick` (one thread: the acceptance rule, slots, ids,
//!   counters, log records), `insert_write` (a thread per candidate: the
//!   accepted ones into set B). No step without a batch records anything.
//!   A clump batch's candidates are their clumps' bounding spheres; the
//!   host uploads each one's record and member rows as the CPU would
//!   insert them (`shapes::pour`), and an accepted one takes its rows, a
//!   record of the clumps' table and entries of its rows table.
//! - **Outlets**: `integrate` marks a particle whose new centre an outlet
//!   takes and logs it; the next step's build drops it.
//! - **The flow log**: both append [`FlowRecord`]s through an atomic u32
//!   cursor, `ctl[CTL_LOG]`, read with the other control words at the end
//!   of `advance` (the same round trip); [`GpuFlow::take_log`] turns the
//!   records into [`FlowEvent`]s (an insertion's mass and energy from the
//!   host's f64 candidate, so inserted mass is the CPU's exactly).

use super::context::GpuContext;
use super::data::{FixedPoint, GpuData, FS_ENTRIES};
use super::kernel::{dispatch, Access, Kernel, KernelDecl, R, RW, U};
use super::layout::{Clump, FlowRecord, InsertBatch, MemberRow, OutletRegion, LOG_REMOVED};
use crate::flow::{FlowEvent, FlowKind, InsertPlan, OutletSet};
use crate::grid::Grid;
use crate::setup::Setup;
use crate::shapes::table::Shape;
use crate::state::{convert_motion, Motion};

pub struct FlowKernels {
    pub check: Kernel,
    pub pick: Kernel,
    pub write: Kernel,
}

/// The two groups every insertion kernel shares.
pub struct FlowBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
}

impl FlowKernels {
    /// `insert_check`, `insert_pick`, `insert_write`: one layout (group 0:
    /// params, ctl, starts, batches, fstate, log, nbr_start, the clumps'
    /// table and rows table; group 1: set B's pos, dissipated, motion,
    /// pos_fx, the candidates' pos, pos_fx, motion and slot, set B's
    /// clump_row, the candidates' member rows and clump records): 19
    /// storage buffers.
    pub const DECLS: [KernelDecl; 3] = {
        const G: &[&[Access]] = &[
            &[U, RW, R, R, RW, RW, RW, RW, RW],
            &[RW, RW, RW, RW, R, R, R, RW, RW, R, R],
        ];
        const S: &str = "flow.wgsl";
        [
            KernelDecl::new(S, "insert_check", G),
            KernelDecl::new(S, "insert_pick", G),
            KernelDecl::new(S, "insert_write", G),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        FlowKernels {
            check: k(0),
            pick: k(1),
            write: k(2),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> FlowBinds {
        let f = &d.flow;
        let g0 = [
            &d.params,
            &d.ctl,
            &d.starts,
            &f.batches,
            &f.state,
            &f.log,
            &d.nbr_start,
            &d.clumps.table,
            &d.clumps.rows,
        ];
        let g1 = [
            d.b.pos.first(),
            d.b.diss.first(),
            d.b.motion.first(),
            d.b.pos_fx.first(),
            &f.cand_pos,
            &f.cand_fx,
            &f.cand_motion,
            &f.cand_slot,
            d.b.clump_row.first(),
            &f.cand_member,
            &f.cand_clump,
        ];
        let b = &d.b;
        let pages = [
            ("pos", &b.pos),
            ("diss", &b.diss),
            ("motion", &b.motion),
            ("posfx", &b.pos_fx),
            ("clump_row", &b.clump_row),
        ];
        FlowBinds {
            g0: self.check.bind(ctx, 0, &g0),
            g1: self.check.bind_paged(ctx, 1, &g1, &pages),
        }
    }

    /// Records `insert_check` alone over the batch at the cursor (`count`
    /// candidates): a rank's pouring, which decides with the other ranks
    /// between the check and the writes.
    pub fn encode_check(&self, b: &FlowBinds, pass: &mut wgpu::ComputePass, count: u64) {
        dispatch(pass, &self.check, &[(0, &b.g0), (1, &b.g1)], count);
    }

    /// Records the next batch of the submission (`count` candidates).
    pub fn encode_batch(&self, b: &FlowBinds, pass: &mut wgpu::ComputePass, count: u64) {
        let g = [(0, &b.g0), (1, &b.g1)];
        dispatch(pass, &self.check, &g, count);
        dispatch(pass, &self.pick, &g, 1);
        dispatch(pass, &self.write, &g, count);
    }
}

/// One submission's batches: what [`GpuFlow::window`] uploads.
#[derive(Debug, Default)]
pub struct Window {
    pub batches: Vec<InsertBatch>,
    /// The candidate rows: each batch's candidates, then a clump batch's
    /// member rows.
    pub pos: Vec<[f32; 4]>,
    pub fx: Vec<super::data::FixedWords>,
    pub motion: Vec<Motion<f32>>,
    /// Each candidate row's part in a clump (a sphere's: none).
    pub member: Vec<MemberRow>,
    /// The clump batches' records, one per candidate.
    pub clumps: Vec<Clump>,
}

impl Window {
    /// The candidates of each batch at `step`, in dispatch order.
    pub fn at(&self, step: u64) -> impl Iterator<Item = u64> + '_ {
        self.batches
            .iter()
            .filter(move |b| b.step as u64 == step)
            .map(|b| b.count as u64)
    }
}

/// The host's side of insertion and outlets.
#[derive(Debug, Clone)]
pub struct GpuFlow {
    pub plan: InsertPlan,
    pub outlets: OutletSet,
    /// Particles each `[[insert]]` entry had inserted at the last read.
    pub inserted: Vec<u64>,
    /// Events not yet handed out.
    pub events: Vec<FlowEvent>,
    /// The candidates uploaded since the log was last read (a record's
    /// `cand`): entry, mass, energy (f64, the plan's).
    cands: Vec<(usize, f64, f64)>,
    /// Particles marked (by an outlet or `GpuBackend::remove`) and not yet
    /// dropped by a build: still in the device's count.
    pub pending: u64,
    /// The run's last step (the scene's): what the capacity plans for.
    pub end: u64,
    /// The scene's shapes (a poured clump's members) and its grid (their
    /// centres wrapped as the CPU wraps them).
    shapes: Vec<Shape>,
    grid: Grid,
}

impl GpuFlow {
    /// The set-up's plan and outlets, nothing inserted yet; the capacity
    /// plans for its `steps`.
    pub fn new(setup: &Setup) -> Self {
        GpuFlow {
            plan: setup.inserts.clone(),
            outlets: setup.outlets.clone(),
            inserted: vec![0; setup.scene.inserts.len()],
            events: Vec::new(),
            cands: Vec::new(),
            pending: 0,
            end: setup.steps,
            shapes: setup.scene.shape_bodies(),
            grid: setup.grid,
        }
    }

    /// The outlet table `integrate` tests, in order.
    pub fn outlet_table(&self) -> Vec<OutletRegion> {
        self.outlets
            .shapes
            .iter()
            .map(OutletRegion::from_shape)
            .collect()
    }

    /// The device's `fstate` at the start of step `step` with `inserted`
    /// per entry: every batch scheduled before `step` applied.
    pub fn state_words(&self, inserted: &[u64], step: u64) -> Vec<u32> {
        let mut w = vec![0u32; FS_ENTRIES];
        for (e, &n) in self.plan.entries.iter().zip(inserted) {
            let mut done = if step <= e.first {
                0
            } else {
                (step - e.first).div_ceil(e.every)
            };
            if let Some(m) = e.batches() {
                done = done.min(m);
            }
            w.push(n as u32);
            w.push(done as u32);
        }
        w
    }

    /// The most rows the device can hold before step `to`, from `count`
    /// now: what the entries' targets still ask for on top (a clump's
    /// members a row each).
    pub fn need(&self, count: u64, to: u64) -> u64 {
        count + self.plan.rows_to_come(&self.inserted, to)
    }

    /// What entry `k`'s target before step `to` still asks for.
    fn still(&self, k: usize, to: u64) -> u64 {
        self.plan
            .target_before(k, to)
            .saturating_sub(self.inserted[k])
    }

    /// The clumps the entries can still pour before step `to`: (records,
    /// rows-table entries).
    pub fn clumps_need(&self, to: u64) -> (u64, u64) {
        let mut out = (0, 0);
        for (k, e) in self.plan.entries.iter().enumerate() {
            if e.clump.is_some() {
                let n = self.still(k, to);
                out.0 += n;
                out.1 += n * e.members;
            }
        }
        out
    }

    /// The scene's shapes.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// Whether an entry pours clumps.
    pub fn pours_clumps(&self) -> bool {
        self.plan.entries.iter().any(|e| e.clump.is_some())
    }

    /// The batches activated at steps `from..to` with their candidates
    /// (empty batches left out), appended to the candidates the log's
    /// insertion records will name.
    pub fn window(&mut self, from: u64, to: u64, fixed: &FixedPoint, dt: f64) -> Window {
        let mut w = Window::default();
        if self.plan.is_empty() {
            return w;
        }
        for at in self.plan.schedule(from, to) {
            let b = self.plan.batch(at);
            let c = &b.candidates;
            if c.is_empty() {
                continue;
            }
            let g = self.plan.gravity_at(at.step);
            let mut batch = InsertBatch::spheres(
                at.step as u32,
                w.pos.len() as u32,
                c.len() as u32,
                at.entry as u32,
                at.target.min(u32::MAX as u64) as u32,
                at.index as u32,
                self.cands.len() as u32,
            );
            w.motion
                .extend(convert_motion::<f64, f32>(&c.initial_motion(g, dt)));
            for (i, p) in c.pos_rad.iter().enumerate() {
                w.pos.push(p.map(|x| x as f32));
                w.fx.push(fixed.encode([p[0], p[1], p[2]]));
                w.member.push(MemberRow::SPHERE);
                self.cands
                    .push((at.entry, 1.0 / c.vel_invm[i][3], b.energy[i]));
            }
            if let Some(s) = b.shape {
                // every candidate's clump as the CPU would insert it (ids
                // and rows: the device's)
                let grid = &self.grid;
                let poured = crate::shapes::pour::pour(
                    &self.shapes[s],
                    s,
                    c,
                    &b.orientation,
                    0,
                    0,
                    g,
                    dt,
                    |x| grid.wrap(x),
                );
                let m = self.shapes[s].members.len() as u32;
                let init = super::clump_data::ClumpInit::of_poured(&poured, &self.shapes, |x| {
                    fixed.encode(x)
                });
                batch.members = m;
                batch.rows_at = w.pos.len() as u32;
                batch.clump_at = w.clumps.len() as u32;
                let r = &poured.rows;
                w.pos.extend(r.pos_rad.iter().map(|p| p.map(|x| x as f32)));
                w.fx.extend(r.pos_rad.iter().map(|p| fixed.encode([p[0], p[1], p[2]])));
                w.motion.extend(convert_motion::<f64, f32>(&poured.motion));
                w.member.extend_from_slice(&init.row);
                w.clumps.extend_from_slice(&init.table);
            }
            w.batches.push(batch);
        }
        w
    }

    /// Turns the log's records into events (kept until `flow_events`, in
    /// a deterministic order),
    /// forgets the candidates they named, and counts the particles marked
    /// at the end of the last step (`now`: steps done), which the next
    /// build drops.
    pub fn take_log(&mut self, records: &[FlowRecord], now: u64) {
        self.pending = 0;
        // removals are appended in whatever order the threads got there:
        // (step, insertions first, id), the order FlowTally sums in
        let mut records = records.to_vec();
        records.sort_by_key(|r| (r.step, r.kind & LOG_REMOVED != 0, r.id));
        for r in &records {
            let step = r.step as u64;
            if r.kind & LOG_REMOVED != 0 {
                if step == now {
                    self.pending += 1;
                }
                self.events.push(FlowEvent {
                    step,
                    id: r.id,
                    kind: FlowKind::Removed((r.kind & !LOG_REMOVED) as usize),
                    mass: f32::from_bits(r.mass_or_cand) as f64,
                    energy: r.energy as f64,
                });
            } else {
                let (entry, mass, energy) = self.cands[r.mass_or_cand as usize];
                debug_assert_eq!(entry, r.kind as usize);
                self.events.push(FlowEvent {
                    step,
                    id: r.id,
                    kind: FlowKind::Inserted(entry),
                    mass,
                    energy,
                });
            }
        }
        self.cands.clear();
    }
}
