// Insertion on the device (src/gpu/flow.rs): the batches of the run's
// `flow::InsertPlan` due at a step, before that step's `arm_rebuild` (so
// the step's dispatch sizes and its rebuild include the new particles).
// Per batch, three kernels: `insert_check` (a thread per candidate: free
// unless a present particle overlaps it), `insert_pick` (one thread: the
// acceptance rule of `flow::plan`, in order, up to the entry's target and
// the buffers' capacity; destination slots, ids, the counters, a log
// record per accepted candidate), `insert_write` (a thread per candidate:
// the accepted ones into set B, each with an empty row at the end of the
// list). Twin of `Step::insert_due` / `cpu::flow::accept`; no float
// atomics, one thread decides: deterministic.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
// cell starts of the last build (set B is in its order; zero before any)
@group(0) @binding(2) var<storage, read> starts: array<u32>;
// this submission's batches, in the order they are dispatched
@group(0) @binding(3) var<storage, read> batches: array<InsertBatch>;
// FS_* words, then per [[insert]] entry k: inserted (FS_ENTRIES + 2k) and
// batches applied (FS_ENTRIES + 2k + 1)
@group(0) @binding(4) var<storage, read_write> fstate: array<u32>;
@group(0) @binding(5) var<storage, read_write> flow_log: array<FlowRecord>;
@group(0) @binding(6) var<storage, read_write> nbr_start: array<u32>;

// Set B (written at the accepted slots only) and the candidates
@group(1) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> diss: array<f32>;
@group(1) @binding(2) var<storage, read_write> motion: array<Motion>;
@group(1) @binding(3) var<storage, read_write> posfx: array<array<u32, FX_WORDS>>;
@group(1) @binding(4) var<storage, read> cand_pos: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read> cand_fx: array<array<u32, FX_WORDS>>;
@group(1) @binding(6) var<storage, read> cand_motion: array<Motion>;
// insert_check: 1 free, 0 not; then insert_pick: the slot, or NONE
@group(1) @binding(7) var<storage, read_write> cand_slot: array<u32>;

struct InsertBatch {
    step: u32,
    first: u32,    // its candidates: first..first + count
    count: u32,
    entry: u32,
    goal: u32,     // the entry's cumulative target after it
    index: u32,    // among the entry's batches
    tag: u32,      // its first candidate in the host's list
    pad: u32,
}

// fstate words (src/gpu/flow.rs)
const FS_CURSOR: u32 = 0u;   // the batch now (reset to 0 before each submission)
const FS_FIRST: u32 = 1u;    // insert_pick's batch, for insert_write: first candidate,
const FS_COUNT: u32 = 2u;    //   candidates,
const FS_BASE: u32 = 3u;     //   the count before it,
const FS_ID: u32 = 4u;       //   the id its first accepted candidate got
const FS_ENTRIES: u32 = 8u;

fn frozen() -> bool {
    return atomicLoad(&ctl[CTL_FROZEN]) != NONE;
}

fn is_removed(j: u32) -> bool {
    return bitcast<u32>(motion_at(j).omega_half.w) == NONE;
}

// Whether present particle j overlaps the sphere x (|x - x_j| < r + r_j,
// the plain difference as on the CPU).
fn overlaps(x: vec4<f32>, j: u32) -> bool {
    if (is_removed(j)) { return false; }
    let y = pos_at(j);
    let d = x.xyz - y.xyz;
    let reach = x.w + y.w;
    return dot(d, d) < reach * reach;
}

// A thread per candidate of the batch at the cursor: free unless a present
// particle overlaps it. The particles of the last build are in that
// build's cell order: they have moved less than skin / 2 since (a batch always sets off a build before the
// next), so they are in the cells of each level within r_c + skin / 2 + H
// (a particle of that level is at most H - skin / 2 in radius). Those
// inserted since (earlier batches of this step; all of them before the
// first build, when `starts` is still zero) follow the last cell's start.
@compute @workgroup_size(256)
fn insert_check(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    if (frozen()) { return; }
    let b = batches[fstate[FS_CURSOR]];
    let c = flat_index(wid, nwg, lid);
    if (c >= b.count) { return; }
    let g = b.first + c;
    let x = cand_pos[g];
    let count = atomicLoad(&ctl[CTL_COUNT]);
    let built = min(starts[P.dims.w], count);
    var free = true;
    // each level: the cells within r_c + skin / 2 + H of the candidate
    for (var l = 0u; l < P.level_count.x && free; l++) {
        let lv = P.levels[l];
        let c = level_range(P, l, x.xyz, x.w + 0.5 * P.nbr.x + lv.inv_cell.w);
        let n = vec3<i32>(lv.dims.xyz);
        for (var z = c.lo.z; z <= c.hi.z && free; z++) {
            for (var y = c.lo.y; y <= c.hi.y && free; y++) {
                let row = lv.dims.w + lv.dims.x * (wrap_index(y, n.y) + lv.dims.y * wrap_index(z, n.z));
                var pcs = row_pieces(c.lo.x, c.hi.x, n.x);
                for (var rg = 0u; rg < 2u && free; rg++) {
                    if (pcs.hi[rg] < pcs.lo[rg]) { continue; }
                    let end = min(starts[row + u32(pcs.hi[rg]) + 1u], built);
                    for (var j = starts[row + u32(pcs.lo[rg])]; j < end; j++) {
                        if (overlaps(x, j)) { free = false; break; }
                    }
                }
            }
        }
    }
    for (var j = built; j < count && free; j++) {
        if (overlaps(x, j)) { free = false; }
    }
    cand_slot[g] = select(0u, 1u, free);
}

// One thread: the batch at the cursor, the acceptance rule in order: a free
// candidate is accepted while the entry wants particles (its target less
// what it has inserted) and the buffers have room. Accepted candidates get
// the slots count.. and the ids next_id.. in order; the count, the list's
// rows, the next id and the entry's counter follow, and the step rebuilds.
// A batch already applied (a step run again after the list grew) accepts
// nothing.
@compute @workgroup_size(1)
fn insert_pick() {
    if (frozen()) { return; }
    let cur = fstate[FS_CURSOR];
    fstate[FS_CURSOR] = cur + 1u;
    let b = batches[cur];
    let count = atomicLoad(&ctl[CTL_COUNT]);
    let next = atomicLoad(&ctl[CTL_NEXT_ID]);
    fstate[FS_FIRST] = b.first;
    fstate[FS_COUNT] = b.count;
    fstate[FS_BASE] = count;
    fstate[FS_ID] = next;
    let at = FS_ENTRIES + 2u * b.entry;
    let inserted = fstate[at];
    let fresh = b.index >= fstate[at + 1u];
    var want = 0u;
    if (fresh && b.goal > inserted) { want = b.goal - inserted; }
    let step = atomicLoad(&ctl[CTL_STEP]);
    var k = 0u;
    for (var c = 0u; c < b.count; c++) {
        let g = b.first + c;
        var slot = NONE;
        if (k < want && cand_slot[g] == 1u && count + k < P.sizes.x) {
            slot = count + k;
            let r = atomicAdd(&ctl[CTL_LOG], 1u);
            if (r < arrayLength(&flow_log)) {
                flow_log[r] = FlowRecord(next + k, b.entry, step, b.tag + c, 0.0);
            }
            k++;
        }
        cand_slot[g] = slot;
    }
    if (fresh) {
        fstate[at] = inserted + k;
        fstate[at + 1u] = b.index + 1u;
    }
    if (k > 0u) {
        atomicStore(&ctl[CTL_COUNT], count + k);
        atomicStore(&ctl[CTL_NEXT_ID], next + k);
        atomicStore(&ctl[CTL_REBUILD], 1u);
    }
}

// A thread per candidate of insert_pick's batch: an accepted one into its
// slot of set B (motion record with its id, nothing dissipated yet) with an
// empty row at the end of the current list (the build this step makes moves
// no history to it). Twin of `GpuBackend::insert`'s writes.
@compute @workgroup_size(256)
fn insert_write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    if (frozen()) { return; }
    let c = flat_index(wid, nwg, lid);
    if (c >= fstate[FS_COUNT]) { return; }
    let g = fstate[FS_FIRST] + c;
    let dest = cand_slot[g];
    if (dest == NONE) { return; }
    let id = fstate[FS_ID] + (dest - fstate[FS_BASE]);
    var m = cand_motion[g];
    m.omega_half.w = bitcast<f32>(id);
    pos_put(dest, cand_pos[g]);
    diss_put(dest, 0.0);
    motion_put(dest, m);
    posfx_put(dest, cand_fx[g]);
    nbr_start[dest + 1u] = atomicLoad(&ctl[CTL_LIST_LEN]);
}
