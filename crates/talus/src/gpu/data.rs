//! `GpuData`: every buffer of the GPU path, allocated once per scene (the
//! neighbour list grows when a build needs more room). Set B is the working
//! state, in the cell order of the last neighbour-list build; the rebuild's
//! reorder gathers one array at a time into a scratch array (the work
//! records) and copies it back. Kept apart from the kernels.

use super::context::{GpuContext, GpuError, Pairs};
use super::layout::{
    ArgSlot, FlowRecord, Gather, InsertBatch, OutletRegion, Pair, Params, ScanParams, SurfInfo,
    ACC_WORDS, ARM_ALWAYS, ARM_LOADS, ARM_REBUILD, DIAG_WORDS, LARGE_GROUPS, OUTLET_BOX,
    REORDER_WORDS, WALL_ACC_WORDS, WG,
};
pub use super::layout::{FixedWords, FX_WORDS};
use super::pages::{Paged, Paging, STORAGE};
use super::walls::WallTables;
use crate::state::{Motion, Particles};
use std::mem::size_of;
use wgpu::util::DeviceExt;

/// One set of per-particle arrays: `state::Particles` less what the motion
/// record holds, plus the fixed-point positions. v*, 1/m, ω*, 1/I, the
/// material and the id live only in the record (no array duplicates it;
/// readback rebuilds `vel_invm`, `omega_invi`, `material` and `id` from
/// it, see `GpuBackend::state_f32`). Every array is listed once in
/// [`ParticleBuffers::arrays`].
/// Each array is [`Paged`] by particles ([`Paging`]).
pub struct ParticleBuffers {
    pub pos: Paged,
    pub diss: Paged,
    /// What contacts read of a partner, written by integrate
    /// ([`crate::state::Motion`], 64 bytes): v* and 1/m, ω* and 1/I,
    /// v(n−½) and the material bits, ω(n−½) and the id bits.
    pub motion: Paged,
    /// The exact position as 64-bit fixed point per axis (hi, lo u32 words,
    /// biased by 2⁶³; unit = domain length / 2⁴⁰, see [`FixedPoint`]). An f32
    /// coordinate drops up to 1 % of a small step v·dt (ulp 5e-10 m at 5 mm
    /// vs steps of 1e-7 m); integer adds drop nothing and no compiler can
    /// fold them away (Mesa folded a Kahan compensation to zero). `pos` is
    /// derived from it each step for the kernels that read positions.
    pub pos_fx: Paged,
    /// Each row's part in a clump ([`MemberRow`](super::layout::MemberRow),
    /// 32 bytes): only in a run with clumps (else one element a page,
    /// never read, and the reorder moves no word of it).
    pub clump_row: Paged,
    /// Whether the run has clumps (`clump_row` is a real array).
    pub clumped: bool,
}

/// 64-bit fixed-point coordinates of the GPU path: per axis
/// x = min + X · unit with X = (hi·2³² + lo) − 2⁶³ and unit = len / 2⁴⁰, where
/// min and len are the grid's, rounded to f32 exactly as the shader sees
/// them (so host and shader agree on every bit).
#[derive(Debug, Clone, Copy)]
pub struct FixedPoint {
    pub min: [f64; 3],
    pub unit: [f64; 3],
}

impl FixedPoint {
    pub fn new(grid: &crate::grid::Grid) -> Self {
        let two40 = (1u64 << 40) as f64;
        FixedPoint {
            min: grid.min.map(|m| m as f32 as f64),
            unit: grid.len.map(|l| l as f32 as f64 / two40),
        }
    }

    /// `[xhi, xlo, yhi, ylo, zhi, zlo]` of a position.
    pub fn encode(&self, p: [f64; 3]) -> FixedWords {
        let mut out = [0u32; FX_WORDS];
        for k in 0..3 {
            let x = ((p[k] - self.min[k]) / self.unit[k]).round() as i64;
            let u = (x as u64) ^ (1u64 << 63);
            out[2 * k] = (u >> 32) as u32;
            out[2 * k + 1] = u as u32;
        }
        out
    }

    pub fn decode(&self, w: &FixedWords) -> [f64; 3] {
        let mut p = [0.0; 3];
        for k in 0..3 {
            let u = ((w[2 * k] as u64) << 32) | w[2 * k + 1] as u64;
            let x = (u ^ (1u64 << 63)) as i64;
            p[k] = self.min[k] + x as f64 * self.unit[k];
        }
        p
    }
}

/// What a GPU run starts from, in f32.
#[derive(Clone, Copy)]
pub struct GpuInit<'a> {
    pub state: &'a Particles<f32>,
    /// Fixed-point positions ([`FixedPoint::encode`]).
    pub pos_fx: &'a [FixedWords],
    /// The motion records ([`Particles::initial_motion`] for a new run).
    pub motion: &'a [Motion<f32>],
    /// A neighbour list over `state`'s order (CSR start with n + 1
    /// entries, partners, pair history) whose history the first build moves
    /// over, as the CPU's does from its list; None: no history yet.
    pub list: Option<ListInit<'a>>,
    /// Particles the buffers hold (at least `state`'s count, which is the
    /// active count to start with); None: just those.
    pub capacity: Option<u64>,
    /// The clumps and each row's part in one (None: spheres only).
    pub clumps: Option<&'a super::clump_data::ClumpInit>,
}

impl GpuInit<'_> {
    /// Particles the buffers will hold: the capacity asked for, at least
    /// the state's count, and at least one (a scene of FEM bodies alone
    /// holds none, and a binding must hold one of its structs).
    pub fn capacity(&self) -> u64 {
        let n = self.state.len() as u64;
        self.capacity.unwrap_or(n).max(n).max(1)
    }
}

/// What an indirect dispatch runs over; each distinct one has a slot in
/// `GpuData::args`, filled on the device from the active count
/// (`ctl[CTL_COUNT]`) by `finish_step` for the next step, or by
/// `arm_rebuild` (first in a submission, after insertions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Over {
    /// The active particles, on a step that rebuilds the list (bin, sort,
    /// neighbours).
    Particles,
    /// `w` words per active particle, on a step that rebuilds (the
    /// reorder).
    Words(u64),
    /// A fixed number of invocations, on a step that rebuilds (cells,
    /// scans over the capacity).
    Fixed(u64),
    /// The active particles, every step (contacts, integrate,
    /// diagnostics).
    EveryStep,
    /// `scale` × the active count + `fixed` invocations, on a step that
    /// wants the wall loads (`wall_loads`: a thread per particle;
    /// `wall_loads_sum`: a thread per wall).
    Loads { scale: u64, fixed: u64 },
}

/// The counts beside the particles' that decide which slots exist.
struct SlotSizes {
    n_surf_nodes: u64,
    n_bodies: u64,
    large_levels: u32,
}

impl Over {
    /// `wall_loads`: a thread per active particle on a step that wants the
    /// loads.
    pub const LOAD_PARTICLES: Over = Over::Loads { scale: 1, fixed: 0 };

    /// `wall_loads_sum`: a thread per scene wall (with the bodies'
    /// surfaces) on a step that wants the loads.
    pub fn load_walls(n_bodies: u64) -> Over {
        Over::Loads {
            scale: 0,
            fixed: n_bodies,
        }
    }

    fn slot(self) -> ArgSlot {
        let (scale, fixed, when) = match self {
            Over::Particles => (1, 0, ARM_REBUILD),
            Over::Words(w) => (w, 0, ARM_REBUILD),
            Over::Fixed(n) => (0, n, ARM_REBUILD),
            Over::EveryStep => (1, 0, ARM_ALWAYS),
            Over::Loads { scale, fixed } => (scale, fixed, ARM_LOADS),
        };
        ArgSlot {
            scale: scale as u32,
            fixed: fixed as u32,
            when,
            pad: 0,
        }
    }

    /// Workgroup counts (x, y, z) for `count` active particles on a step
    /// that rebuilds or not, and wants the wall loads or not (a slot whose
    /// steps these are not gets zero): what the arming (`slot_groups`)
    /// writes, computed on the host.
    pub fn groups(self, count: u64, rebuild: bool, loads: bool) -> [u32; 3] {
        let s = self.slot();
        let on = match s.when {
            ARM_ALWAYS => true,
            ARM_LOADS => loads,
            _ => rebuild,
        };
        if !on {
            return [0; 3];
        }
        let (x, y) = super::kernel::groups(s.scale as u64 * count + s.fixed as u64);
        [x, y, 1]
    }
}

/// A neighbour list to start from (see [`GpuInit::list`]).
#[derive(Clone, Copy)]
pub struct ListInit<'a> {
    pub start: &'a [u32],
    pub nbr: &'a [u32],
    pub hist: &'a [crate::state::Hist<f32>],
}

/// The device's bytes of a list's history: each entry's whole
/// [`crate::state::Hist`] when `roll`, else its first half (ξ, k_t).
pub fn hist_device(hist: &[crate::state::Hist<f32>], roll: bool) -> Vec<u8> {
    if roll {
        bytemuck::cast_slice(hist).to_vec()
    } else {
        hist.iter()
            .flat_map(|h| bytemuck::cast_slice::<f32, u8>(&h[..4]).to_vec())
            .collect()
    }
}

/// The list's history from the device's bytes ([`hist_device`]'s
/// inverse; the rolling half zero without `roll`).
pub fn hist_host(bytes: &[u8], roll: bool) -> Vec<crate::state::Hist<f32>> {
    let v: Vec<f32> = bytemuck::pod_collect_to_vec(bytes);
    if roll {
        v.chunks_exact(8)
            .map(|c| std::array::from_fn(|k| c[k]))
            .collect()
    } else {
        v.chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3], 0.0, 0.0, 0.0, 0.0])
            .collect()
    }
}

/// One level of the multi-level scan.
pub struct ScanLevel {
    pub len: u64,
    pub params: wgpu::Buffer,
    /// Block totals of this level (input of the next).
    pub sums: wgpu::Buffer,
    /// Scan of the next level's input (= of `sums`), when there is a next level.
    pub scanned: Option<wgpu::Buffer>,
}

/// The levels of a multi-level exclusive scan over `len` entries.
fn scan_levels(ctx: &GpuContext, len: u64) -> Vec<ScanLevel> {
    let mut scan = Vec::new();
    let mut len = len;
    loop {
        let blocks = len.div_ceil(WG as u64);
        let params = init(
            ctx,
            "scan params",
            bytemuck::bytes_of(&ScanParams {
                len: len as u32,
                pad: [0; 3],
            }),
            wgpu::BufferUsages::UNIFORM,
        );
        let sums = zeroed(ctx, "scan sums", blocks * 4);
        let last = blocks <= 1;
        let scanned = (!last).then(|| zeroed(ctx, "scan scanned", blocks * 4));
        scan.push(ScanLevel {
            len,
            params,
            sums,
            scanned,
        });
        if last {
            break;
        }
        len = blocks;
    }
    scan
}

pub struct GpuData {
    /// Active particles, as the host last saw them (`ctl[CTL_COUNT]` is the
    /// device's: kernels and dispatch sizes follow it without a round
    /// trip; `advance` reads it back with the other control words).
    pub n: u64,
    /// Particles every per-particle buffer holds.
    pub cap: u64,
    /// Wall primitives (`walls`).
    pub n_walls: u64,
    /// Scene walls (`wall_info`, `wall_motion`, `wall_pose` hold at least
    /// one record).
    pub n_bodies: u64,
    /// The grid's large levels (`Params::level_count[1]`): 0 = no
    /// `contacts_large` dispatch.
    pub large_levels: u32,
    pub n_cells: u64,
    pub params: wgpu::Buffer,
    pub ctl: wgpu::Buffer,
    pub pairs: wgpu::Buffer,
    pub walls: wgpu::Buffer,
    /// Per scene wall: where its primitives are (`WallInfo`), its motion
    /// (`WallMotion`, static) and its pose (`WallPose`, written by
    /// `wall_motion` every step; the loads too).
    pub wall_info: wgpu::Buffer,
    pub wall_motion: wgpu::Buffer,
    pub wall_pose: wgpu::Buffer,
    /// The meshes' grids: cell starts, then triangles (`gpu::walls`).
    pub mesh_cells: wgpu::Buffer,
    /// Per scene wall, its load's exact sums (`layout::WALL_ACC_WORDS`
    /// words, zero between the steps that want loads).
    pub wall_acc: wgpu::Buffer,
    /// The rebuild's reorder: each per-particle array in turn is gathered
    /// from B into it and copied back, `reorder_width` words a particle at
    /// a time. The same buffers as `acc` (one array, two names).
    pub scratch: Paged,
    pub b: ParticleBuffers,
    /// Each particle's work record ([`work_words`]: `reorder_width` words):
    /// with pair sums, both partners of a pair add to its [`ACC_WORDS`] by
    /// integer atomics, and `contacts_walls` takes them and writes the
    /// particle's force and torque (f32, words 0..8) there, which
    /// integrate reads and zeroes (but on the last step of an `advance`:
    /// [`GpuBackend::clear_kept_forces`](super::GpuBackend::clear_kept_forces));
    /// from both sides, `contacts` writes force and torque there at once.
    /// The reorder's scratch between steps (it leaves it zero).
    pub acc: Paged,
    /// Their error bits, two a particle (16 a word).
    pub acc_bad: wgpu::Buffer,
    /// How the contacts stage sums pairs (the context's).
    pub pair_mode: Pairs,
    /// Whether the run has pair sums for every particle (each pair once,
    /// or large rows): then `contacts_walls` runs, and the work records
    /// are [`ACC_WORDS`] wide.
    pub pair_sums: bool,
    /// Words of a particle's work record (`Params::level_count[2]`), which
    /// the reorder moves at once.
    pub reorder_width: u64,
    pub counts: wgpu::Buffer,
    pub starts: wgpu::Buffer,
    pub order: wgpu::Buffer,
    /// The reorder's uniform of each per-particle array (`Gather`: words
    /// per particle, particles, words in all), in the order of
    /// [`ParticleBuffers::arrays`].
    pub gathers: Vec<wgpu::Buffer>,
    /// Scan of the cell counts (n_cells + 1 entries).
    pub scan: Vec<ScanLevel>,
    /// Positions at the last list build (the rebuild test).
    pub pos_ref: Paged,
    /// Neighbour list (CSR): candidates per particle (n + 1 entries, the
    /// last stays 0), their exclusive scan, and the list itself (paged,
    /// as every per-entry array: [`Paging`]).
    /// `nbr_count` holds the bin's cell keys too (`keys` in bin.wgsl and
    /// sort.wgsl): read by the sort's scatter, before a build counts.
    pub nbr_count: wgpu::Buffer,
    pub nbr_start: wgpu::Buffer,
    pub nbr: Paged,
    /// Tangential history beside each entry (ξ xyz, k_t; zero: no contact).
    pub nbr_hist: Paged,
    /// The kept table: during a build, the previous list's entries that
    /// have history (~the contacts, not every candidate), which the
    /// history moves over from: each particle's (first, count) in the new
    /// order, the entries and their history (as many pages as the list,
    /// those past its capacity of one element), and `new_at[o]`, where the
    /// particle that stood at `o` in the previous order stands now.
    pub kept_row: wgpu::Buffer,
    pub kept_nbr: Paged,
    pub kept_hist: Paged,
    /// Entries `kept_nbr` holds (at most the list's: it keeps a part of it).
    pub kept_cap: u64,
    pub new_at: wgpu::Buffer,
    /// `order` as the build's `keep` saw it (new index → previous index):
    /// a build that froze for room (list or kept table) sorts again, into
    /// the identity, and keeping again needs the first.
    pub old_index: wgpu::Buffer,
    /// Entries `nbr` (and the other per-entry buffers) hold.
    pub nbr_cap: u64,
    /// How the per-entry arrays are split into pages (the kernels are
    /// built for it).
    pub paging: Paging,
    /// Scan of `nbr_count`.
    pub list_scan: Vec<ScanLevel>,
    /// Workgroup counts of every indirect dispatch, one (x, y, z) per slot
    /// (`slots`: what each runs over): the bin stage's `arm_rebuild` fills
    /// them at the start of every step from the active count, and zeroes
    /// the rebuild kernels' (bin, sort, neighbours) on a step that does not
    /// rebuild, so those launch no workgroup between builds (each used to
    /// launch all of its workgroups, to return at once: ~20 full
    /// dispatches per step).
    pub args: wgpu::Buffer,
    /// The slots' [`ArgSlot`]s, as `arm_rebuild` reads them.
    pub arg_slots: wgpu::Buffer,
    /// What each slot of `args` runs over.
    pub slots: Vec<Over>,
    /// The diagnostics' partial per workgroup (`layout::DIAG_WORDS` words).
    pub partials: wgpu::Buffer,
    /// The FEM bodies' deforming surfaces (`gpu::surfaces`): nodes and
    /// triangles (0 without bodies; the buffers then hold a dummy).
    pub n_surf_nodes: u64,
    pub n_surf_tris: u64,
    /// The force words' unit per newton (`SurfInfo::scale`, a power of two).
    pub force_scale: f64,
    /// `SurfInfo` (uniform; step0 rewritten at each exchange).
    pub surf_info: wgpu::Buffer,
    /// Per node x0, v, built (3 × vec4 f32).
    pub surf_nodes: wgpu::Buffer,
    /// Per surface triangle: three nodes and its primitive.
    pub surf_tris: wgpu::Buffer,
    /// The grains' force per node summed over the interval: 64-bit fixed
    /// point, (lo, hi) u32 words per component (6 per node), then the
    /// overflow word; zeroed at each exchange.
    pub surf_force: wgpu::Buffer,
    /// Persistent readback buffer: the whole state, or `staging_cap`
    /// bytes (larger reads go in chunks: `GpuBackend::read`).
    pub staging: wgpu::Buffer,
    /// The most bytes `staging` grows to ([`STAGING_MAX`]).
    pub staging_cap: u64,
    /// The clumps' table, rows table and the shapes' members (one element
    /// each when the run has none).
    pub clumps: super::clump_data::ClumpBuffers,
    /// Insertion and outlets.
    pub flow: FlowBuffers,
    /// The bonds (`gpu::bonds`; none until the backend uploads its
    /// table).
    pub bonds: super::bond_data::BondBuffers,
}

pub use super::layout::{
    CTL_BUILDS, CTL_COUNT, CTL_ERR_NONFINITE, CTL_ERR_OVERLAP, CTL_FROZEN, CTL_KEPT, CTL_KEPT_CAP,
    CTL_KEPT_LEN, CTL_KEPT_NEED, CTL_LARGE, CTL_LEN, CTL_LIST_CAP, CTL_LIST_LEN, CTL_LIST_NEED,
    CTL_LOADS_AT, CTL_LOG, CTL_MAX_OVERLAP, CTL_NEXT_ID, CTL_REBUILD, CTL_STEP,
};

/// `fstate` words before the per-entry counters (`FS_ENTRIES` in
/// flow.wgsl: the batch cursor, `insert_pick`'s batch for `insert_write`,
/// the clumps' counters); entry k's inserted count is word
/// `FS_ENTRIES + 2k`, its batches applied `FS_ENTRIES + 2k + 1`.
pub const FS_ENTRIES: usize = 8;
/// `fstate` word: the batch the next `insert_check` / `insert_pick` take
/// (the host resets it to 0 before each submission).
pub const FS_CURSOR: usize = 0;
/// `fstate` words: the clumps' records in use, and the rows table's
/// entries in use (pouring appends after them).
pub const FS_CLUMPS: usize = 6;
pub const FS_CLUMP_ROWS: usize = 7;
/// Bytes of one clump record.
const CLUMP_BYTES: u64 = size_of::<super::layout::Clump>() as u64;

/// The buffers of insertion and outlets (`gpu::flow`, `shaders/flow.wgsl`,
/// the outlet test in `integrate.wgsl`): the outlet table, the flow log,
/// the device's insertion counters (`fstate`), and a submission's batches
/// and candidates. The log and the candidate buffers grow as `advance`
/// needs ([`GpuData::reserve_flow`]); bind groups over them are rebuilt then.
pub struct FlowBuffers {
    /// `OutletRegion`s in `OutletSet` order (the open domain last).
    pub outlets: wgpu::Buffer,
    /// `FlowRecord`s; `ctl[CTL_LOG]` of them written since the host read it.
    pub log: wgpu::Buffer,
    pub log_cap: u64,
    /// `FS_*` words and per entry (inserted, batches applied).
    pub state: wgpu::Buffer,
    /// A submission's `InsertBatch`es.
    pub batches: wgpu::Buffer,
    pub batch_cap: u64,
    /// A submission's candidates: f32 position and radius, fixed point,
    /// motion record (id lane filled on the device), and the slot each
    /// takes (`insert_check`, `insert_pick`).
    pub cand_pos: wgpu::Buffer,
    pub cand_fx: wgpu::Buffer,
    pub cand_motion: wgpu::Buffer,
    pub cand_slot: wgpu::Buffer,
    /// Each candidate row's part in a clump (a clump batch's member rows).
    pub cand_member: wgpu::Buffer,
    pub cand_cap: u64,
    /// A submission's clump records (`Clump`), a clump batch's candidates'.
    pub cand_clump: wgpu::Buffer,
    pub clump_cap: u64,
}

impl FlowBuffers {
    /// Room for `entries` `[[insert]]` counters (`state`, from `words`
    /// when given), the outlets, and small logs and candidate buffers.
    pub fn new(
        ctx: &GpuContext,
        outlets: &[OutletRegion],
        entries: usize,
        words: Option<&[u32]>,
    ) -> FlowBuffers {
        let never = [OutletRegion {
            a: [f32::MAX; 4],
            b: [-f32::MAX; 4],
            kind: OUTLET_BOX,
            pad: [0; 3],
        }];
        let outlets = if outlets.is_empty() { &never } else { outlets };
        let zero = vec![0u32; FS_ENTRIES + 2 * entries];
        let (log_cap, batch_cap, cand_cap) = (64, 16, 256);
        FlowBuffers {
            outlets: init(ctx, "outlets", bytemuck::cast_slice(outlets), STORAGE),
            log: zeroed(ctx, "flow log", log_cap * size_of::<FlowRecord>() as u64),
            log_cap,
            state: init(
                ctx,
                "flow state",
                bytemuck::cast_slice(words.unwrap_or(&zero)),
                STORAGE,
            ),
            batches: zeroed(
                ctx,
                "insert batches",
                batch_cap * size_of::<InsertBatch>() as u64,
            ),
            batch_cap,
            cand_pos: zeroed(ctx, "candidates pos_rad", 16 * cand_cap),
            cand_fx: zeroed(ctx, "candidates pos_fx", 4 * FX_WORDS as u64 * cand_cap),
            cand_motion: zeroed(ctx, "candidates motion", 64 * cand_cap),
            cand_slot: zeroed(ctx, "candidates slot", 4 * cand_cap),
            cand_member: zeroed(ctx, "candidates member", 32 * cand_cap),
            cand_cap,
            cand_clump: zeroed(ctx, "candidates clump", CLUMP_BYTES),
            clump_cap: 1,
        }
    }
}

/// The surfaces' uniform: `nodes`, `tris`, the interval's start `step0`
/// and the force words' unit `scale` (per newton).
pub fn surf_info(nodes: u32, tris: u32, step0: u64, scale: f64) -> SurfInfo {
    SurfInfo {
        sizes: [nodes, tris, step0 as u32, 0],
        scale: [scale as f32, (1.0 / scale) as f32, 0.0, 0.0],
    }
}

/// u32 words of the surfaces' force buffer for `nodes` nodes: (lo, hi) per
/// component and node, then the overflow word.
pub fn surf_force_words(nodes: u64) -> u64 {
    6 * nodes + 1
}

/// Initial `ctl` contents: step 0, not frozen, no errors, max overlap 0,
/// the first step builds the neighbour list into `cap` entries (nothing
/// kept from a previous list yet, a kept table of `kept_cap` entries);
/// `count` active particles, the next id
/// `next_id`.
pub fn ctl_init(cap: u64, kept_cap: u64, count: u64, next_id: u32) -> [u32; CTL_LEN] {
    let mut c = [0u32; CTL_LEN];
    for k in [CTL_FROZEN, CTL_ERR_OVERLAP, CTL_ERR_NONFINITE] {
        c[k] = u32::MAX;
    }
    c[CTL_REBUILD] = 1;
    c[CTL_LIST_CAP] = cap as u32;
    c[CTL_KEPT_CAP] = kept_cap as u32;
    c[CTL_COUNT] = count as u32;
    c[CTL_NEXT_ID] = next_id;
    c[CTL_LOADS_AT] = u32::MAX;
    c
}

/// An array of the kept table: `cap` elements of `elem` bytes in pages of
/// the list's size, padded to the list's page count with pages of one
/// element (the shaders are generated for one page count of both).
fn kept_table(ctx: &GpuContext, label: &str, elem: u64, cap: u64, paging: &Paging) -> Paged {
    let mut t = Paged::new(ctx, label, elem, cap, paging.entry_page, &[]);
    t.pad_to(ctx, label, paging.entry_pages as usize);
    t
}

/// Indirect dispatch arguments, written by a kernel.
const ARGS: wgpu::BufferUsages = STORAGE.union(wgpu::BufferUsages::INDIRECT);

pub(crate) fn init(
    ctx: &GpuContext,
    label: &str,
    bytes: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    // no zero-sized bindings: an empty array gets room for one element of
    // any of our structs (the shaders never read it)
    let pad;
    let contents = if bytes.is_empty() {
        pad = [0u8; 64];
        &pad[..]
    } else {
        bytes
    };
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
}

/// A storage buffer holding `bytes` (none: room for one element).
pub fn storage_init(ctx: &GpuContext, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    init(ctx, label, bytes, STORAGE)
}

fn zeroed(ctx: &GpuContext, label: &str, size: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: STORAGE,
        mapped_at_creation: false,
    })
}

/// The most bytes the readback buffer holds: a larger read goes through it
/// in chunks (a 10⁸-particle state is ~12 GB; host-visible memory that
/// large is neither needed nor always to be had).
pub const STAGING_MAX: u64 = 256 << 20;

/// The persistent readback buffer (`size` rounded up to 256 bytes).
fn staging(ctx: &GpuContext, size: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("staging"),
        size: size.max(256).next_multiple_of(256),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl ParticleBuffers {
    /// Buffers for `cap` particles in pages of `page`, the first ones
    /// `init0`'s.
    fn new(ctx: &GpuContext, set: &str, init0: &GpuInit, cap: u64, page: u64) -> Self {
        let s = init0.state;
        // (bytes per particle: known however many particles start)
        let b = |name: &str, bytes: &[u8], per: u64| {
            Paged::new(ctx, &format!("{set}.{name}"), per, cap, page, bytes)
        };
        ParticleBuffers {
            pos: b("pos_rad", bytemuck::cast_slice(&s.pos_rad), 16),
            diss: b("dissipated", bytemuck::cast_slice(&s.dissipated), 4),
            motion: b("motion", bytemuck::cast_slice(init0.motion), 64),
            pos_fx: b(
                "pos_fx",
                bytemuck::cast_slice(init0.pos_fx),
                4 * FX_WORDS as u64,
            ),
            clump_row: match init0.clumps {
                Some(c) => {
                    // the spare rows are spheres' (a row an insertion fills)
                    let mut rows = c.row.clone();
                    rows.resize(cap as usize, super::layout::MemberRow::SPHERE);
                    b("clump_row", bytemuck::cast_slice(&rows), 32)
                }
                None => {
                    let mut none = Paged::new(ctx, &format!("{set}.clump_row"), 32, 1, page, &[]);
                    let pages = cap.div_ceil(page) as usize;
                    none.pad_to(ctx, &format!("{set}.clump_row"), pages);
                    none
                }
            },
            clumped: init0.clumps.is_some(),
        }
    }

    /// Every per-particle array of the set: (name, buffer, u32 words per
    /// particle), in a fixed order. The one description the rebuild's
    /// reorder (one generic dispatch per entry), the readback size and the
    /// byte counts are made from: a new per-particle array is one line
    /// here (and its field).
    pub fn arrays(&self) -> [(&'static str, &Paged, u64); 5] {
        [
            ("pos_rad", &self.pos, 4),
            ("dissipated", &self.diss, 1),
            ("motion", &self.motion, 16),
            ("pos_fx", &self.pos_fx, FX_WORDS as u64),
            (
                "clump_row",
                &self.clump_row,
                if self.clumped { 8 } else { 0 },
            ),
        ]
    }

    /// The reorder's parts of [`arrays`](Self::arrays): (name, buffer,
    /// words moved, the record's words, the first word moved), at most
    /// `width` words each (the scratch array's: [`REORDER_WORDS`], or the
    /// pair sums' [`ACC_WORDS`] where they are the scratch), so the
    /// scratch array need not be as wide as the widest array.
    pub fn reorder_parts(&self, width: u64) -> Vec<(&'static str, &Paged, u64, u64, u64)> {
        let mut parts = Vec::new();
        for (name, b, stride) in self.arrays() {
            let mut offset = 0;
            while offset < stride {
                let words = (stride - offset).min(width);
                parts.push((name, b, words, stride, offset));
                offset += words;
            }
        }
        parts
    }
}

/// One part of a per-particle array, as the reorder moves it.
pub struct ParticleArray<'a> {
    pub name: &'static str,
    pub b: &'a Paged,
    /// u32 words per particle of this part (0: nothing to move).
    pub words: u64,
    /// Its `Gather` uniform.
    pub gather: &'a wgpu::Buffer,
}

/// Whether a run sums pairs into each particle's work record (each pair
/// once, the large rows of a grid with large levels, or every row of a
/// run with bonds).
pub fn pair_sums(pairs: Pairs, large_levels: u32, bonds: bool) -> bool {
    pairs == Pairs::Once || large_levels > 0 || bonds
}

/// Words of a particle's work record (`Params::level_count[2]`): the pair
/// sums' [`ACC_WORDS`] where a run has them, else [`REORDER_WORDS`] (force
/// and torque, 8 words; the reorder moves wider arrays in parts).
pub fn work_words(pairs: Pairs, large_levels: u32, bonds: bool) -> u32 {
    if pair_sums(pairs, large_levels, bonds) {
        ACC_WORDS
    } else {
        REORDER_WORDS as u32
    }
}

/// Device bytes per particle with `entries` neighbour-list entries per
/// particle (its partners, of higher id only with [`Pairs::Once`], and the
/// wall primitives within reach):
/// - the set: pos 16, dissipated 4, motion 64, pos_fx 24 (v*, ω*, 1/m,
///   1/I, material and id only in the motion record);
/// - the work record ([`work_words`]): the pair sums with [`Pairs::Once`]
///   (64, and a quarter byte of error bits, not counted), force and torque
///   in its first 32 once they are taken; from both sides force and torque
///   alone (32). It is the reorder's scratch too (wider arrays move in
///   parts);
/// - the order (4; the cell keys share the list's counts), the positions
///   at the last build (12), the list's count and start (8), the kept rows
///   (8), the maps between the previous and the new order (8), the flow
///   log's record (20: each particle present can leave once per
///   `advance`, see `gpu::flow`);
/// - per entry the partner and the history (20), and 3/5 of an entry of
///   the kept table (12: its first size, [`kept_entries`]; it holds the
///   entries with history, ~the contacts, and grows when a build needs
///   more).
///
/// Cells add 8 bytes each, wall primitives 64. (Before: the whole previous
/// list beside the list, 20 per entry, not 12; force and torque arrays of
/// their own, 32; keys of their own, 4; the reference positions' w, 4; the
/// flow record's candidate lane, 4; each pair in both partners' rows,
/// ~twice the entries; flow records and fixed-point positions padded to
/// 32 bytes; a scratch as wide as the motion record, 32 more; a whole
/// second set as the reorder's scratch, 52 more; the arrays that
/// duplicated the motion record, 2 × 40 + 4 more, and the identity order
/// of the old copy-back; before walls became list entries, 16 B × walls
/// per set and 4 for the walls-within-reach mask.)
pub fn bytes_per_particle(entries: u64, pairs: Pairs) -> u64 {
    bytes_per_particle_held(pairs, 20 * entries + 20 * kept_entries(entries))
}

/// [`bytes_per_particle`] of a run whose rolling model keeps a torque
/// (`roll`: `epsd`, `epsd2`): 16 bytes more per list entry and per kept
/// entry (the history's rolling half, `pages::hist_bytes`).
pub fn bytes_per_particle_with(entries: u64, pairs: Pairs, roll: bool) -> u64 {
    let extra = if roll {
        (super::pages::hist_bytes(true) - super::pages::hist_bytes(false))
            * (entries + kept_entries(entries))
    } else {
        0
    };
    bytes_per_particle(entries, pairs) + extra
}

/// The kept table's first size for a list of `entries`: 3/5 of it (a
/// settled bed's contacts: ~3 a particle each pair once among ~4.5
/// candidates, ~6 among ~9 from both sides); a build that needs more grows
/// it.
pub fn kept_entries(entries: u64) -> u64 {
    entries * 3 / 5
}

/// [`bytes_per_particle`] with `entry_bytes` a particle for the list and
/// the kept table as they are (a run's, after they grew).
pub fn bytes_per_particle_held(pairs: Pairs, entry_bytes: u64) -> u64 {
    // the work record, also the reorder's scratch (no large rows counted)
    let work = 4 * work_words(pairs, 0, false) as u64;
    108 + work + 4 + 12 + 24 + 20 + entry_bytes
}

/// Everything an indirect dispatch runs over, each once (the list's scan
/// covers the capacity: entries past the active count do not reach
/// nbr_start[count], all the build reads), and the reorder's `Gather`
/// uniform of each per-particle array of `a`.
fn dispatch_slots(
    ctx: &GpuContext,
    a: &ParticleBuffers,
    width: u64,
    n_cells: u64,
    sizes: &SlotSizes,
    scan: &[ScanLevel],
    list_scan: &[ScanLevel],
) -> (Vec<Over>, Vec<wgpu::Buffer>) {
    let mut slots = vec![
        Over::Particles,
        Over::EveryStep,
        Over::Fixed(n_cells + 1),
        Over::Fixed(n_cells),
        // the build's one-thread kernels (drop_removed, check_list,
        // finish_build)
        Over::Fixed(1),
    ];
    // the build's large rows, a workgroup each
    if sizes.large_levels > 0 {
        slots.push(Over::Fixed(LARGE_GROUPS as u64 * WG as u64));
    }
    // the wall loads: a thread per particle, then one per wall
    if sizes.n_bodies > 0 {
        slots.push(Over::LOAD_PARTICLES);
        slots.push(Over::load_walls(sizes.n_bodies));
    }
    slots.extend(scan.iter().chain(list_scan).map(|l| Over::Fixed(l.len)));
    // `mark_surfaces_built`, a thread per surface node on a rebuild
    if sizes.n_surf_nodes > 0 {
        slots.push(Over::Fixed(sizes.n_surf_nodes));
    }
    // the reorder: the gather a thread per particle, the copy back a
    // thread per word of each array
    let gathers = a
        .reorder_parts(width)
        .iter()
        .map(|&(name, _, w, stride, offset)| {
            slots.push(Over::Words(w));
            let g = Gather {
                words: w as u32,
                stride: stride as u32,
                offset: offset as u32,
                pad: 0,
            };
            let label = format!("gather {name}[{offset}..{}]", offset + w);
            init(
                ctx,
                &label,
                bytemuck::bytes_of(&g),
                wgpu::BufferUsages::UNIFORM,
            )
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    slots.retain(|s| seen.insert(*s));
    (slots, gathers)
}

impl GpuData {
    /// Every part of a per-particle array of set B the reorder moves, with
    /// its word count and `Gather` uniform
    /// ([`ParticleBuffers::reorder_parts`]).
    pub fn particle_arrays(&self) -> Vec<ParticleArray<'_>> {
        self.b
            .reorder_parts(self.reorder_width)
            .into_iter()
            .zip(&self.gathers)
            .map(|((name, b, words, _, _), gather)| ParticleArray {
                name,
                b,
                words,
                gather,
            })
            .collect()
    }

    /// The paged arrays of the kernels that move particles (integrate's,
    /// the clumps'), by their shader names: the work records, the
    /// reference positions and set B.
    pub fn moving_pages(&self) -> [(&'static str, &Paged); 7] {
        let b = &self.b;
        [
            ("work", &self.acc),
            ("pos_ref", &self.pos_ref),
            ("pos", &b.pos),
            ("diss", &b.diss),
            ("motion", &b.motion),
            ("posfx", &b.pos_fx),
            ("clump_row", &b.clump_row),
        ]
    }

    /// The indirect arguments of a dispatch over `over`: (buffer, byte
    /// offset), for `kernel::dispatch_indirect`.
    pub fn args_for(&self, over: Over) -> (&wgpu::Buffer, u64) {
        (&self.args, self.arg_offset(over))
    }

    /// Byte offset in `args` of the workgroup counts of `over`.
    pub fn arg_offset(&self, over: Over) -> u64 {
        let slot = self
            .slots
            .iter()
            .position(|&s| s == over)
            .unwrap_or_else(|| panic!("no indirect dispatch over {over:?}"));
        12 * slot as u64
    }

    /// Uploads a state, with room in the clumps' tables for `clump_room`
    /// (records, rows-table entries) more. Refuses (naming the limit and
    /// the particle count that fits) when an array exceeds the adapter's
    /// largest binding.
    pub fn new(
        ctx: &GpuContext,
        params: &Params,
        pairs: &[Pair],
        walls: &WallTables,
        init0: &GpuInit,
        clump_room: (u64, u64),
        max_list: impl Fn(u32) -> u64,
    ) -> Result<GpuData, GpuError> {
        let state = init0.state;
        let n = state.len() as u64;
        // buffers hold `cap` particles; n are active
        let cap = init0.capacity();
        let n_walls = walls.prims.len() as u64;
        let n_bodies = walls.bodies as u64;
        let n_cells = params.dims[3] as u64;
        let given = init0.list.as_ref().map_or(0, |l| l.nbr.len() as u64);
        // the history's width: with a rolling torque when the rolling
        // model keeps one
        let roll = params.keeps_rolling_torque();
        let hist_b = super::pages::hist_bytes(roll);
        let particle_pages = Paging::new(ctx.max_binding(), cap, 0, roll).particle_pages;
        let nbr_cap = (ctx.pairs.list_entries() * n)
            .min(max_list(particle_pages))
            .max(given)
            .max(1);
        let paging = Paging::new(ctx.max_binding(), cap, nbr_cap, roll);
        let page = paging.particle_page;
        let b = ParticleBuffers::new(ctx, "B", init0, cap, page);
        let per_particle = |label: &str, elem: u64| Paged::new(ctx, label, elem, cap, page, &[]);
        // The work records: the pair sums where a run has them (each pair
        // once, or large rows), else force and torque alone; the reorder's
        // scratch too (zero between steps but the forces kept for
        // diagnostics; the reorder runs before a step's `contacts`, and its
        // copy back leaves them zero)
        let bonded = params.dims[2] > 0;
        let sums = pair_sums(ctx.pairs, params.level_count[1], bonded);
        let reorder_width = work_words(ctx.pairs, params.level_count[1], bonded) as u64;
        let clumps =
            super::clump_data::ClumpBuffers::new(ctx, init0.clumps, clump_room.0, clump_room.1)?;
        let params = &Params {
            level_count: [
                params.level_count[0],
                params.level_count[1],
                reorder_width as u32,
                params.level_count[3],
            ],
            dims: [
                clumps.count as u32,
                params.dims[1],
                params.dims[2],
                params.dims[3],
            ],
            ..*params
        };
        let acc = per_particle("work records and reorder scratch", 4 * reorder_width);
        let scratch = Paged {
            pages: acc.pages.clone(),
            ..acc
        };
        let next_id = state
            .id
            .iter()
            .filter(|&&i| i != super::layout::NONE)
            .max()
            .map_or(0, |&m| m + 1);
        let l = init0.list.as_ref();
        // the kept table: ~the contacts among the candidates, at least what
        // the given list's first build keeps
        let given_kept = l.map_or(0, |l| {
            l.nbr
                .iter()
                .filter(|&&e| e & crate::state::HAS_HISTORY != 0)
                .count() as u64
        });
        let kept_cap = kept_entries(nbr_cap).max(given_kept).max(1);
        let mut ctl = ctl_init(nbr_cap, kept_cap, n, next_id);
        ctl[CTL_LIST_LEN] = given as u32;
        let entries = |label: &str, elem: u64, bytes: &[u8]| {
            Paged::new(ctx, label, elem, nbr_cap, paging.entry_page, bytes)
        };
        let kept = |label: &str, elem: u64| kept_table(ctx, label, elem, kept_cap, &paging);
        let (kept_nbr, kept_hist) = (kept("kept_nbr", 4), kept("kept_hist", hist_b));
        // the list, or an empty one (all starts 0)
        let list_buf = |label: &str, bytes: Option<&[u8]>, size: u64| match bytes {
            Some(b) if !b.is_empty() => {
                let buf = zeroed(ctx, label, size);
                ctx.queue.write_buffer(&buf, 0, b);
                buf
            }
            _ => zeroed(ctx, label, size),
        };
        // every part of a readback starts on a 256-byte boundary
        let state_bytes: u64 = b
            .arrays()
            .iter()
            .map(|(_, _, words)| (4 * words * cap).next_multiple_of(256))
            .sum();
        let scan = scan_levels(ctx, n_cells + 1);
        let list_scan = scan_levels(ctx, cap + 1);
        let sizes = SlotSizes {
            n_surf_nodes: walls.n_nodes as u64,
            n_bodies,
            large_levels: params.level_count[1],
        };
        let (slots, gathers) =
            dispatch_slots(ctx, &b, reorder_width, n_cells, &sizes, &scan, &list_scan);
        // the first step rebuilds: what its arm_rebuild will write, so a
        // dispatch recorded before any step (diagnostics) is sized too
        let first_args: Vec<u32> = slots.iter().flat_map(|s| s.groups(n, true, true)).collect();
        let arg_slots: Vec<ArgSlot> = slots.iter().map(|s| s.slot()).collect();
        Ok(GpuData {
            n,
            cap,
            n_walls,
            n_bodies,
            large_levels: params.level_count[1],
            n_cells,
            params: init(
                ctx,
                "params",
                bytemuck::bytes_of(params),
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            ctl: init(ctx, "ctl", bytemuck::cast_slice(&ctl), STORAGE),
            pairs: init(ctx, "pairs", bytemuck::cast_slice(pairs), STORAGE),
            walls: init(ctx, "walls", bytemuck::cast_slice(&walls.prims), STORAGE),
            wall_info: init(ctx, "wall_info", bytemuck::cast_slice(&walls.info), STORAGE),
            wall_motion: init(
                ctx,
                "wall_motion",
                bytemuck::cast_slice(&walls.motion),
                STORAGE,
            ),
            wall_pose: init(ctx, "wall_pose", bytemuck::cast_slice(&walls.pose), STORAGE),
            mesh_cells: init(
                ctx,
                "mesh_cells",
                bytemuck::cast_slice(&walls.mesh_cells),
                STORAGE,
            ),
            wall_acc: zeroed(ctx, "wall_acc", 4 * WALL_ACC_WORDS as u64 * n_bodies.max(1)),
            scratch,
            b,
            acc,
            pair_sums: sums,
            reorder_width,
            acc_bad: zeroed(ctx, "pair sums' errors", 4 * (cap / 16 + 1)),
            pair_mode: ctx.pairs,
            counts: zeroed(ctx, "counts", 4 * (n_cells + 1)),
            starts: zeroed(ctx, "starts", 4 * (n_cells + 1)),
            order: zeroed(ctx, "order", 4 * cap),
            gathers,
            scan,
            pos_ref: per_particle("pos_ref", 12),
            nbr_count: zeroed(ctx, "nbr_count", 4 * (cap + 1)),
            nbr_start: list_buf(
                "nbr_start",
                l.map(|l| bytemuck::cast_slice(l.start)),
                4 * (cap + 1),
            ),
            nbr: entries("nbr", 4, l.map_or(&[], |l| bytemuck::cast_slice(l.nbr))),
            nbr_hist: entries(
                "nbr_hist",
                hist_b,
                &l.map_or(Vec::new(), |l| hist_device(l.hist, roll)),
            ),
            kept_row: zeroed(ctx, "kept_row", 8 * cap),
            kept_nbr,
            kept_hist,
            kept_cap,
            new_at: zeroed(ctx, "new_at", 4 * cap),
            old_index: zeroed(ctx, "old_index", 4 * cap),
            nbr_cap,
            paging,
            list_scan,
            args: init(
                ctx,
                "dispatch args",
                bytemuck::cast_slice(&first_args),
                ARGS,
            ),
            arg_slots: init(
                ctx,
                "dispatch slots",
                bytemuck::cast_slice(&arg_slots),
                STORAGE,
            ),
            slots,
            partials: zeroed(
                ctx,
                "partials",
                4 * DIAG_WORDS as u64 * cap.div_ceil(WG as u64),
            ),
            n_surf_nodes: sizes.n_surf_nodes,
            n_surf_tris: walls.n_tris as u64,
            force_scale: walls.force_scale,
            surf_info: init(
                ctx,
                "surf_info",
                bytemuck::bytes_of(&surf_info(
                    walls.n_nodes,
                    walls.n_tris,
                    walls.step0,
                    walls.force_scale,
                )),
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            surf_nodes: init(
                ctx,
                "surf_nodes",
                bytemuck::cast_slice(&walls.surf_nodes),
                STORAGE,
            ),
            surf_tris: init(
                ctx,
                "surf_tris",
                bytemuck::cast_slice(&walls.surf_tris),
                STORAGE,
            ),
            surf_force: {
                let words = surf_force_words(sizes.n_surf_nodes);
                init(
                    ctx,
                    "surf_force",
                    bytemuck::cast_slice(&vec![0u32; words as usize]),
                    STORAGE,
                )
            },
            staging_cap: STAGING_MAX,
            clumps,
            staging: staging(
                ctx,
                STAGING_MAX.min(
                    state_bytes
                        .max((4 * (n_cells + 1)).next_multiple_of(256))
                        .max(32 * cap.div_ceil(WG as u64))
                        .max(16 * nbr_cap),
                ),
            ),
            flow: FlowBuffers::new(ctx, &[], 0, None),
            bonds: super::bond_data::BondBuffers::new(ctx, &Default::default(), &[]),
        })
    }

    /// Makes sure the staging buffer holds `bytes` (a readback's parts,
    /// each at a 256-byte boundary), or `staging_cap` (a larger read goes
    /// in chunks).
    pub fn reserve_staging(&mut self, ctx: &GpuContext, bytes: u64) {
        let want = bytes.min(self.staging_cap);
        if self.staging.size() < want {
            let grown = want.max(self.staging.size() * 3 / 2).min(self.staging_cap);
            self.staging = staging(ctx, grown);
        }
    }

    /// Caps the staging buffer at `bytes` (≥ 256) from now on, and makes
    /// it that size: reads larger than it go in chunks. [`STAGING_MAX`]
    /// unless a test sets less.
    pub fn limit_staging(&mut self, ctx: &GpuContext, bytes: u64) {
        self.staging_cap = bytes.max(256).next_multiple_of(256);
        self.staging = staging(ctx, self.staging_cap);
    }

    /// Makes room for `cands` candidate rows, `clumps` clump records,
    /// `batches` batches and `log` records (each buffer grown to at least
    /// twice its size when it grows; the staging buffer grows when a read
    /// needs it). True when a buffer was replaced: the bind groups over it
    /// must be rebuilt.
    pub fn reserve_flow(
        &mut self,
        ctx: &GpuContext,
        cands: u64,
        clumps: u64,
        batches: u64,
        log: u64,
    ) -> bool {
        let f = &mut self.flow;
        let mut changed = false;
        if cands > f.cand_cap {
            let cap = cands.max(2 * f.cand_cap);
            f.cand_pos = zeroed(ctx, "candidates pos_rad", 16 * cap);
            f.cand_fx = zeroed(ctx, "candidates pos_fx", 4 * FX_WORDS as u64 * cap);
            f.cand_motion = zeroed(ctx, "candidates motion", 64 * cap);
            f.cand_slot = zeroed(ctx, "candidates slot", 4 * cap);
            f.cand_member = zeroed(ctx, "candidates member", 32 * cap);
            f.cand_cap = cap;
            changed = true;
        }
        if clumps > f.clump_cap {
            let cap = clumps.max(2 * f.clump_cap);
            f.cand_clump = zeroed(ctx, "candidates clump", CLUMP_BYTES * cap);
            f.clump_cap = cap;
            changed = true;
        }
        if batches > f.batch_cap {
            let cap = batches.max(2 * f.batch_cap);
            f.batches = zeroed(ctx, "insert batches", cap * size_of::<InsertBatch>() as u64);
            f.batch_cap = cap;
            changed = true;
        }
        if log > f.log_cap {
            let cap = log.max(2 * f.log_cap);
            f.log = zeroed(ctx, "flow log", cap * size_of::<FlowRecord>() as u64);
            f.log_cap = cap;
            changed = true;
        }
        changed
    }

    /// Replaces the neighbour list with one of at least `need` entries (and
    /// room to grow: 5/4 of it), and the staging buffer if it no longer
    /// holds the whole list's history. The list itself is not kept (the
    /// frozen build fills it again); the kept table, which the history
    /// moves over from, is kept (in as many pages as the new list). Bind
    /// groups over the old buffers must be rebuilt. False (nothing
    /// changed) for a list larger than [`max_list_entries`].
    pub fn grow_list(
        &mut self,
        ctx: &GpuContext,
        need: u64,
        max_list: impl Fn(u32) -> u64,
    ) -> bool {
        let max = max_list(self.paging.particle_pages);
        if need > max {
            return false;
        }
        self.nbr_cap = (need + need / 4).min(max);
        let cap = self.nbr_cap;
        let roll = self.paging.roll;
        self.paging = Paging::new(ctx.max_binding(), self.cap, cap, roll);
        let page = self.paging.entry_page;
        let entries = |label: &str, elem: u64| Paged::new(ctx, label, elem, cap, page, &[]);
        self.nbr = entries("nbr", 4);
        self.nbr_hist = entries("nbr_hist", super::pages::hist_bytes(roll));
        let pages = self.paging.entry_pages as usize;
        self.kept_nbr.pad_to(ctx, "kept_nbr", pages);
        self.kept_hist.pad_to(ctx, "kept_hist", pages);
        self.reserve_staging(ctx, super::pages::hist_bytes(roll) * cap);
        true
    }

    /// Replaces the kept table with one of at least `need` entries (5/4 of
    /// it, at most the list's capacity, which holds all it keeps). Its
    /// contents are not kept: the frozen build keeps again. Bind groups
    /// over the old buffers must be rebuilt.
    pub fn grow_kept(&mut self, ctx: &GpuContext, need: u64) {
        self.kept_cap = (need + need / 4).min(self.nbr_cap).max(need);
        let (cap, paging) = (self.kept_cap, self.paging);
        self.kept_nbr = kept_table(ctx, "kept_nbr", 4, cap, &paging);
        let hist_b = super::pages::hist_bytes(paging.roll);
        self.kept_hist = kept_table(ctx, "kept_hist", hist_b, cap, &paging);
    }

    /// Bytes of device memory held.
    pub fn bytes(&self) -> u64 {
        let set: u64 = self.b.arrays().iter().map(|a| a.1.size()).sum();
        let paged = [
            &self.acc,
            &self.pos_ref,
            &self.nbr,
            &self.nbr_hist,
            &self.kept_nbr,
            &self.kept_hist,
        ];
        set + paged.iter().map(|p| p.size()).sum::<u64>()
            + self.acc_bad.size()
            // order; nbr_count and nbr_start; new_at and old_index; kept_row
            + self.cap * 4
            + 8 * (self.cap + 1)
            + 8 * self.cap
            + 8 * self.cap
            // counts and starts
            + 8 * (self.n_cells + 1)
            + self.staging.size()
            + self.flow.log_cap * size_of::<FlowRecord>() as u64
            + self.flow.cand_cap * (16 + 32 + 64 + 4)
    }
}
