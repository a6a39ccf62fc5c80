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
//
// A clump batch (`InsertBatch::clump_at` not NONE): a candidate is the
// clump's bounding sphere (centre of mass, reach), checked as a sphere is;
// the host uploads each candidate's clump record and member rows
// (`shapes::pour`, the CPU's insertion), and an accepted one takes
// `members` rows of set B, the next record of the clumps' table and the
// next `members` entries of its rows table (counters FS_CLUMPS,
// FS_CLUMP_ROWS; their room: P.dims.x records, the rows table's length).

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
// the clumps' table (P.dims.x records; one of room in a run without) and
// its rows table (gpu::clump_data)
@group(0) @binding(7) var<storage, read_write> clumps: array<Clump>;
@group(0) @binding(8) var<storage, read_write> clump_rows: array<u32>;

// Set B (written at the accepted slots only) and the candidates
@group(1) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> diss: array<f32>;
@group(1) @binding(2) var<storage, read_write> motion: array<Motion>;
@group(1) @binding(3) var<storage, read_write> posfx: array<array<u32, FX_WORDS>>;
@group(1) @binding(4) var<storage, read> cand_pos: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read> cand_fx: array<array<u32, FX_WORDS>>;
@group(1) @binding(6) var<storage, read> cand_motion: array<Motion>;
// insert_check: 1 free, 0 not; then insert_pick: the candidate's rank
// among the accepted, or NONE
@group(1) @binding(7) var<storage, read_write> cand_slot: array<u32>;
// each row's part in a clump (a run with clumps: P.dims.x > 0)
@group(1) @binding(8) var<storage, read_write> clump_row: array<MemberRow>;
// a clump batch's member rows' parts (beside cand_pos) and its records
@group(1) @binding(9) var<storage, read> cand_member: array<MemberRow>;
@group(1) @binding(10) var<storage, read> cand_clump: array<Clump>;

struct InsertBatch {
    step: u32,
    first: u32,    // its candidates: first..first + count
    count: u32,
    entry: u32,
    goal: u32,     // the entry's cumulative target after it
    index: u32,    // among the entry's batches
    tag: u32,      // its first candidate in the host's list
    members: u32,  // rows a candidate places (1: a sphere)
    rows_at: u32,  // a clump batch: candidate c's member j at rows_at + c members + j
    clump_at: u32, // a clump batch: candidate c's record at clump_at + c; NONE: spheres
    pad0: u32,
    pad1: u32,
}

// fstate words (src/gpu/data.rs)
const FS_CURSOR: u32 = 0u;     // the batch now (reset to 0 before each submission)
const FS_BATCH: u32 = 1u;      // insert_pick's batch, for insert_write; before it:
const FS_CLUMP_BASE: u32 = 2u; //   the clumps' records in use,
const FS_BASE: u32 = 3u;       //   the count,
const FS_ID: u32 = 4u;         //   the id its first accepted candidate got,
const FS_ROWS_BASE: u32 = 5u;  //   the rows table's entries in use
const FS_CLUMPS: u32 = 6u;     // the clumps' records in use
const FS_CLUMP_ROWS: u32 = 7u; // the rows table's entries in use
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
// what it has inserted) and the buffers have room. The k-th accepted
// candidate gets the rows count + k members.., the id next_id + k (and a
// clump the record and rows-table entries after those in use); the count,
// the next id, the clumps' counters and the entry's counter follow, and
// the step rebuilds. A batch already applied (a step run again after the
// list grew) accepts nothing.
@compute @workgroup_size(1)
fn insert_pick() {
    if (frozen()) { return; }
    let cur = fstate[FS_CURSOR];
    fstate[FS_CURSOR] = cur + 1u;
    let b = batches[cur];
    let count = atomicLoad(&ctl[CTL_COUNT]);
    let next = atomicLoad(&ctl[CTL_NEXT_ID]);
    let used = fstate[FS_CLUMPS];
    let rows_used = fstate[FS_CLUMP_ROWS];
    fstate[FS_BATCH] = cur;
    fstate[FS_CLUMP_BASE] = used;
    fstate[FS_BASE] = count;
    fstate[FS_ID] = next;
    fstate[FS_ROWS_BASE] = rows_used;
    let clumped = b.clump_at != NONE;
    let m = b.members;
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
        var room = count + (k + 1u) * m <= P.sizes.x;
        if (clumped) {
            room = room && used + k < P.dims.x && rows_used + (k + 1u) * m <= arrayLength(&clump_rows);
        }
        if (k < want && cand_slot[g] == 1u && room) {
            slot = k;
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
        atomicStore(&ctl[CTL_COUNT], count + k * m);
        atomicStore(&ctl[CTL_NEXT_ID], next + k);
        atomicStore(&ctl[CTL_REBUILD], 1u);
        if (clumped) {
            fstate[FS_CLUMPS] = used + k;
            fstate[FS_CLUMP_ROWS] = rows_used + k * m;
        }
    }
}

// Row `dest` of set B from candidate row `src` (motion record with the
// particle's id, nothing dissipated yet), with an empty row at the end of
// the current list (the build this step makes moves no history to it).
fn place_row(dest: u32, src: u32, id: u32) {
    var m = cand_motion[src];
    m.omega_half.w = bitcast<f32>(id);
    pos_put(dest, cand_pos[src]);
    diss_put(dest, 0.0);
    motion_put(dest, m);
    posfx_put(dest, cand_fx[src]);
    nbr_start[dest + 1u] = atomicLoad(&ctl[CTL_LIST_LEN]);
}

// A thread per candidate of insert_pick's batch: an accepted one into its
// rows of set B; a clump's record into the table and its rows into the rows
// table, each member row's part naming its record (a sphere's: none, in a
// run with clumps). Twin of `GpuBackend::insert`'s writes and of
// `Step::insert_clumps`.
@compute @workgroup_size(256)
fn insert_write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    if (frozen()) { return; }
    let b = batches[fstate[FS_BATCH]];
    let c = flat_index(wid, nwg, lid);
    if (c >= b.count) { return; }
    let k = cand_slot[b.first + c];
    if (k == NONE) { return; }
    let id = fstate[FS_ID] + k;
    if (b.clump_at == NONE) {
        let dest = fstate[FS_BASE] + k;
        place_row(dest, b.first + c, id);
        if (P.dims.x > 0u) {
            clump_row_put(dest, MemberRow(vec4<f32>(0.0), vec2<f32>(0.0), NONE, 0u));
        }
        return;
    }
    let m = b.members;
    let body = fstate[FS_CLUMP_BASE] + k;
    let first = fstate[FS_ROWS_BASE] + k * m;
    var rec = cand_clump[b.clump_at + c];
    rec.info.x = id;
    rec.info.y = first;
    clumps[body] = rec;
    for (var j = 0u; j < m; j++) {
        let src = b.rows_at + c * m + j;
        let dest = fstate[FS_BASE] + k * m + j;
        place_row(dest, src, id);
        var row = cand_member[src];
        row.body = body;
        clump_row_put(dest, row);
        clump_rows[first + j] = dest;
    }
}
