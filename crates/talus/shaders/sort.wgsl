// Stage 2, sort: exclusive scan of the cell counts (any length: multi-level,
// 256 per block), scatter into cell order, a per-cell sort by index (so the
// order inside a cell is ascending index, as the CPU's stable counting sort),
// and (reorder.wgsl) the gather of every per-particle array of the working
// set B into set A in cell order and back. Twin of src/cpu/sort.rs and
// Step::bin_and_sort. Runs only on a step that rebuilds the neighbour list.

struct ScanParams {
    len: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> ctl: array<u32, CTL_LEN>;

// Runs only on a step that rebuilds the neighbour list.
fn idle() -> bool {
    return ctl[CTL_FROZEN] != NONE || ctl[CTL_REBUILD] == 0u;
}

// --- scan: one level ------------------------------------------------------
@group(1) @binding(0) var<uniform> S: ScanParams;
@group(1) @binding(1) var<storage, read> scan_src: array<u32>;
@group(1) @binding(2) var<storage, read_write> scan_dst: array<u32>;
@group(1) @binding(3) var<storage, read_write> scan_sums: array<u32>;

var<workgroup> tile: array<u32, 256>;

// Exclusive scan of each block of 256; the block total goes to scan_sums.
@compute @workgroup_size(256)
fn scan_block(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let frozen = idle();
    let i = flat_index(wid, nwg, lid);
    var v = 0u;
    if (i < S.len) { v = scan_src[i]; }
    tile[lid] = v;
    workgroupBarrier();
    // Hillis-Steele inclusive scan
    for (var off = 1u; off < WG; off = off * 2u) {
        var add = 0u;
        if (lid >= off) { add = tile[lid - off]; }
        workgroupBarrier();
        tile[lid] = tile[lid] + add;
        workgroupBarrier();
    }
    if (frozen) { return; }
    if (i < S.len) { scan_dst[i] = tile[lid] - v; }
    if (lid == WG - 1u) { scan_sums[wid.y * nwg.x + wid.x] = tile[lid]; }
}

// Adds the scanned block totals of the level above.
@compute @workgroup_size(256)
fn scan_add(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= S.len || idle()) { return; }
    scan_dst[i] = scan_dst[i] + scan_src[i / WG];
}

// --- scatter and per-cell sort ---------------------------------------------
@group(2) @binding(0) var<storage, read> keys: array<u32>;
@group(2) @binding(1) var<storage, read> starts: array<u32>;
@group(2) @binding(2) var<storage, read_write> cursor: array<atomic<u32>>;
@group(2) @binding(3) var<storage, read_write> order: array<u32>;

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= ctl[CTL_COUNT] || idle()) { return; }
    let k = keys[i];
    let r = atomicAdd(&cursor[k], 1u);
    order[starts[k] + r] = i;
}

// Insertion sort of each cell's particle indices (cells hold a few).
@compute @workgroup_size(256)
fn sort_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let c = flat_index(wid, nwg, lid);
    if (c >= P.dims.w || idle()) { return; }
    let lo = starts[c];
    let hi = starts[c + 1u];
    for (var a = lo + 1u; a < hi; a++) {
        let v = order[a];
        var b = a;
        while (b > lo && order[b - 1u] > v) {
            order[b] = order[b - 1u];
            b--;
        }
        order[b] = v;
    }
}
