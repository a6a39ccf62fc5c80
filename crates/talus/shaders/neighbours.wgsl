// Stage 3, neighbours: the Verlet candidate list, a CSR over the particles
// in cell order (set B). Twin of src/cpu/neighbours.rs: the same three
// passes (count, exclusive scan, fill) and the same candidate order (level
// by level, the cells within reach in z, y, x order, each row's x-cells as
// one range: Grid::for_ranges).
// A row lists each pair once, the candidates of higher id than its
// particle (`holds`; contacts.wgsl adds each pair to both partners), or,
// on adapters where atomics are slow, from both sides (`pairs_once`; the
// CPU's rows always list both sides).
// After its particle candidates, each row lists the wall primitives within
// r + skin, in primitive order, flagged WALL. Each entry carries its
// contact's tangential history, moved over from the previous list by the
// fill (`keep` saves that list first): each old entry with history finds
// its partner among the new row (a particle by its new index, a primitive
// by its own).
// Every kernel here runs only on a step that rebuilds (ctl[CTL_REBUILD]).

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
@group(0) @binding(2) var<storage, read> starts: array<u32>;
// new index -> index in the order the previous list was built over
@group(0) @binding(3) var<storage, read> order: array<u32>;
@group(0) @binding(4) var<storage, read> walls: array<Wall>;
// per scene wall: where its primitives are, its motion and pose (the
// build records the pose it was made at), and the meshes' grids
@group(0) @binding(5) var<storage, read> wall_info: array<WallInfo>;
@group(0) @binding(6) var<storage, read> wall_motion: array<WallMotion>;
@group(0) @binding(7) var<storage, read_write> wall_pose: array<WallPose>;
@group(0) @binding(8) var<storage, read> mesh_cells: array<u32>;

@group(1) @binding(0) var<storage, read> pos_rad: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> nbr_count: array<u32>;
@group(1) @binding(2) var<storage, read_write> nbr_start: array<u32>;
@group(1) @binding(3) var<storage, read_write> nbr: array<u32>;
@group(1) @binding(4) var<storage, read_write> pos_ref: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read_write> nbr_hist: array<vec4<f32>>;
// the previous list (start, entries, history over the previous order) and
// new_at[o], where the particle that stood at o in that order stands now
@group(1) @binding(6) var<storage, read_write> old_start: array<u32>;
@group(1) @binding(7) var<storage, read_write> old_nbr: array<u32>;
@group(1) @binding(8) var<storage, read_write> old_hist: array<vec4<f32>>;
@group(1) @binding(9) var<storage, read_write> new_at: array<u32>;
// old_index[j] = order[j] as `keep` saw it: a build that froze for list
// room runs bin and sort again, and that second order is the identity
// (the particles are already sorted), so the fill needs the first
@group(1) @binding(10) var<storage, read_write> old_index: array<u32>;
// the motion records, read for the partners' ids (`holds`)
@group(1) @binding(11) var<storage, read> motion: array<Motion>;
// The list's arrays (nbr, nbr_hist, old_nbr, old_hist) may span several
// buffers: reached through NAME_at and NAME_put, generated for the run's
// pages (src/gpu/pages.rs).

fn idle() -> bool {
    return atomicLoad(&ctl[CTL_FROZEN]) != NONE || atomicLoad(&ctl[CTL_REBUILD]) == 0u;
}

// Moves the history of particle i (at o in the previous order) into its new
// row nbr[lo..hi] (zero history, no history flags on entry): each old entry
// flagged HAS_HISTORY finds its partner in the row (a particle by its new
// index, a wall primitive by its own), which gets the history and the flag.
// Twin of `OldList::carry_into`.
fn carry_into(o: u32, lo: u32, hi: u32) {
    let old_hi = old_start[o + 1u];
    for (var e = old_start[o]; e < old_hi; e++) { carry_entry(e, lo, hi); }
}

// One old entry's history into the new row nbr[lo..hi], if it has any.
// Entries of one old row have distinct partners, so the workgroup of
// `fill_large` carries them in parallel: an entry another thread flags
// (its partner | HAS_HISTORY) never equals the partner sought here.
fn carry_entry(e: u32, lo: u32, hi: u32) {
    let ob = old_nbr_at(e);
    if ((ob & HAS_HISTORY) == 0u) { return; }
    var jn = ob & ~HAS_HISTORY;
    if ((ob & WALL) == 0u) { jn = new_at[ob & INDEX]; }
    for (var k = lo; k < hi; k++) {
        if (nbr_at(k) == jn) {
            nbr_hist_put(k, old_hist_at(e));
            nbr_put(k, jn | HAS_HISTORY);
            break;
        }
    }
}

// The id of particle j.
fn id_of(j: u32) -> u32 {
    return bitcast<u32>(motion_at(j).omega_half.w);
}

// Whether the row of the particle of id `id_i` holds the pair with j:
// when each pair is listed once, the lower id's row does, so the pair
// stays in the same row from build to build (its history with it); else
// both rows do.
fn holds(id_i: u32, j: u32) -> bool {
    return !pairs_once() || id_i < id_of(j);
}

// The particle candidates of i (at xi, radius ri, id id_i) in the x-range
// row (y, z) of its reach c in level l that its row holds: counted, and
// stored from nbr[out] on with zero history when `write` is set.
fn row_candidates(i: u32, id_i: u32, xi: vec3<f32>, ri: f32, l: u32, c: CellRange, y: i32, z: i32,
                  write: bool, out: u32) -> u32 {
    let lv = P.levels[l];
    let n = vec3<i32>(lv.dims.xyz);
    let skin = P.nbr.x;
    let row = lv.dims.w + lv.dims.x * (wrap_index(y, n.y) + lv.dims.y * wrap_index(z, n.z));
    var pcs = row_pieces(c.lo.x, c.hi.x, n.x);
    var k = 0u;
    for (var rg = 0u; rg < 2u; rg++) {
        if (pcs.hi[rg] < pcs.lo[rg]) { continue; }
        let end = starts[row + u32(pcs.hi[rg]) + 1u];
        for (var j = starts[row + u32(pcs.lo[rg])]; j < end; j++) {
            if (j == i) { continue; }
            let pj = pos_rad_at(j);
            let d = min_image(P, xi, pj.xyz);
            let cut = ri + pj.w + skin;
            if (dot(d, d) < cut * cut && holds(id_i, j)) {
                if (write) {
                    nbr_put(out + k, j);
                    nbr_hist_put(out + k, vec4<f32>(0.0));
                }
                k++;
            }
        }
    }
    return k;
}

// Whether level l holds no particle (its cells are skipped).
fn level_empty(l: u32) -> bool {
    return starts[P.levels[l].dims.w] == starts[level_end(P, l)];
}

// The cells of level l within r + skin / 2 + H of xi (twin of
// Grid::for_ranges).
fn reach_in(l: u32, xi: vec3<f32>, ri: f32) -> CellRange {
    return level_range(P, l, xi, ri + 0.5 * P.nbr.x + P.levels[l].inv_cell.w);
}

// The wall primitives within r + skin of xi (a particle and a wall each
// move at most skin / 2 before the next build), in primitive order: each
// scene wall searched in its body frame at its pose, an analytic one's
// primitives tested, a mesh's triangles those its grid lists for the
// particle's cell (twin of `for_walls`). Counted, and stored from nbr[out]
// on with zero history when `write` is set.
fn wall_candidates(xi: vec3<f32>, ri: f32, write: bool, out: u32) -> u32 {
    let skin = P.nbr.x;
    var k = 0u;
    for (var b = 0u; b < P.sizes.y; b++) {
        let info = wall_info[b];
        var xb = xi;
        let pose = wall_pose[b];
        if (pose.rot.z != 0.0) { xb = to_body(pose, wall_motion[b], xi); }
        var lo = info.prims.x;
        var hi = info.prims.y;
        var listed = false;
        if (info.grid_dims.x != 0u) {
            listed = true;
            lo = 0u;
            hi = 0u;
            let f = floor((xb - info.grid_min.xyz) * info.grid_min.w);
            let dims = vec3<f32>(info.grid_dims.xyz);
            if (all(f >= vec3<f32>(0.0)) && all(f < dims)) {
                let c = vec3<u32>(f);
                let cell = c.x + info.grid_dims.x * (c.y + info.grid_dims.y * c.z);
                lo = mesh_cells[info.grid_dims.w + cell];
                hi = mesh_cells[info.grid_dims.w + cell + 1u];
            }
        }
        for (var q = lo; q < hi; q++) {
            var w = q;
            if (listed) { w = mesh_cells[q]; }
            if (wall_gap(walls[w], xb).dist < ri + skin) {
                if (write) {
                    nbr_put(out + k, w | WALL);
                    nbr_hist_put(out + k, vec4<f32>(0.0));
                }
                k++;
            }
        }
    }
    return k;
}

// Visits the candidates of particle i, then the wall primitives within
// reach: counts them, and when `write` is set stores them from
// nbr[nbr_start[i]] on, with zero history. Returns the count.
fn candidates(i: u32, write: bool) -> u32 {
    let xi = pos_rad_at(i).xyz;
    let ri = pos_rad_at(i).w;
    let id_i = id_of(i);
    var k = 0u;
    var out = 0u;
    if (write) { out = nbr_start[i]; }
    // each level with particles, coarsest first; its rows in z, then y
    for (var l = 0u; l < P.level_count.x; l++) {
        if (level_empty(l)) { continue; }
        let c = reach_in(l, xi, ri);
        for (var z = c.lo.z; z <= c.hi.z; z++) {
            for (var y = c.lo.y; y <= c.hi.y; y++) {
                k += row_candidates(i, id_i, xi, ri, l, c, y, z, write, out + k);
            }
        }
    }
    return k + wall_candidates(xi, ri, write, out + k);
}

// The large particles (the first ones in cell order: the large levels'
// cells come first), 0 when the stage is idle. Their rows are built by
// `keep_large`, `count_large` and `fill_large`, a workgroup each; the
// thread kernels skip them. The same count as finish_build records for
// `contacts_large`.
fn large_count() -> u32 {
    if (P.level_count.y == 0u || idle()) { return 0u; }
    return min(starts[P.levels[P.level_count.y].dims.w], atomicLoad(&ctl[CTL_COUNT]));
}

// A large particle's rows within reach, level by level, z then y (the
// order of `candidates`), as one flat range: level l's rows are
// first[l]..first[l + 1], in c[l].
struct LargeReach {
    c: array<CellRange, MAX_LEVELS>,
    first: array<u32, 9>,
}

fn large_reach(xi: vec3<f32>, ri: f32) -> LargeReach {
    var r: LargeReach;
    var total = 0u;
    for (var l = 0u; l < MAX_LEVELS; l++) {
        r.first[l] = total;
        if (l >= P.level_count.x || level_empty(l)) { continue; }
        let c = reach_in(l, xi, ri);
        r.c[l] = c;
        total += u32(max(c.hi.z - c.lo.z + 1, 0)) * u32(max(c.hi.y - c.lo.y + 1, 0));
    }
    r.first[MAX_LEVELS] = total;
    return r;
}

// The particle candidates of i in the r-th row of its reach `lr`.
fn flat_row(i: u32, xi: vec3<f32>, ri: f32, lr: LargeReach, r: u32, write: bool, out: u32) -> u32 {
    // a copy in memory: indexed by a value known only at run time
    var rr = lr;
    var l = 0u;
    while (r >= rr.first[l + 1u]) { l++; }
    let c = rr.c[l];
    let q = i32(r - rr.first[l]);
    let ny = c.hi.y - c.lo.y + 1;
    return row_candidates(i, id_of(i), xi, ri, l, c, c.lo.y + q % ny, c.lo.z + q / ny, write, out);
}

var<workgroup> large_sh: u32;
var<workgroup> part_sh: array<u32, 256>;

// `large_count()`, the same for the whole workgroup.
fn large_rows(lid: u32) -> u32 {
    if (lid == 0u) { large_sh = large_count(); }
    return workgroupUniformLoad(&large_sh);
}

// One thread, first of a build (after the sort): drops the particles the
// sort moved past the live ones (removed: their key was the bin after the
// last cell, so starts[n_cells] counts the live ones). They leave the
// count; `new_at` of each says it has no new place, so no history follows
// an entry to it; their rows of the previous list are kept like the others'
// (`keep` keeps the live ones').
@compute @workgroup_size(1)
fn drop_removed() {
    if (idle()) { return; }
    let live = starts[P.dims.w];
    let count = atomicLoad(&ctl[CTL_COUNT]);
    let rows = atomicLoad(&ctl[CTL_ROWS]);
    for (var j = live; j < count; j++) {
        let o = order[j];
        new_at[o] = NONE;
        old_start[o] = nbr_start[o];
        if (o + 1u == rows) { old_start[o + 1u] = nbr_start[o + 1u]; }
    }
    atomicStore(&ctl[CTL_COUNT], min(live, count));
}

// First of a build, per particle in the new order: saves the previous list
// (over the previous order: particle j stood at order[j]) and where each
// particle of that order stands now. Once per build: a build that froze for room (CTL_KEPT set) has
// already kept it, and the list since holds nothing to keep.
@compute @workgroup_size(256)
fn keep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let j = flat_index(wid, nwg, lid);
    if (j >= atomicLoad(&ctl[CTL_COUNT]) || idle() || atomicLoad(&ctl[CTL_KEPT]) != 0u) { return; }
    if (j < large_count()) { return; }
    let o = order[j];
    new_at[o] = j;
    old_index[j] = o;
    let lo = nbr_start[o];
    let hi = nbr_start[o + 1u];
    old_start[o] = lo;
    if (o + 1u == atomicLoad(&ctl[CTL_ROWS])) { old_start[o + 1u] = hi; }
    for (var e = lo; e < hi; e++) {
        old_nbr_put(e, nbr_at(e));
        old_hist_put(e, nbr_hist_at(e));
    }
}

@compute @workgroup_size(256)
fn count_candidates(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || idle() || i < large_count()) { return; }
    nbr_count[i] = candidates(i, false);
}

// The large particles' old rows (~3000 entries for 25 mm among 1 mm),
// kept by a workgroup each (the workgroups take the rows g, g + groups,
// ...), the threads striding over the entries.
@compute @workgroup_size(256)
fn keep_large(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let large = large_rows(lid);
    if (atomicLoad(&ctl[CTL_KEPT]) != 0u) { return; }
    let groups = nwg.x * nwg.y;
    for (var j = wid.y * nwg.x + wid.x; j < large; j += groups) {
        let o = order[j];
        let lo = nbr_start[o];
        let hi = nbr_start[o + 1u];
        if (lid == 0u) {
            new_at[o] = j;
            old_index[j] = o;
            old_start[o] = lo;
            if (o + 1u == atomicLoad(&ctl[CTL_ROWS])) { old_start[o + 1u] = hi; }
        }
        for (var e = lo + lid; e < hi; e += WG) {
            old_nbr_put(e, nbr_at(e));
            old_hist_put(e, nbr_hist_at(e));
        }
    }
}

// The large particles' counts, a workgroup each: the threads take the
// rows within reach (each ~20 cells long at 1:35) r = lid, lid + 256, ...,
// and the counts meet in a tree; thread 0 adds the walls'.
@compute @workgroup_size(256)
fn count_large(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let large = large_rows(lid);
    let groups = nwg.x * nwg.y;
    for (var i = wid.y * nwg.x + wid.x; i < large; i += groups) {
        let xi = pos_rad_at(i).xyz;
        let ri = pos_rad_at(i).w;
        let lr = large_reach(xi, ri);
        var k = 0u;
        for (var r = lid; r < lr.first[MAX_LEVELS]; r += WG) { k += flat_row(i, xi, ri, lr, r, false, 0u); }
        part_sh[lid] = k;
        workgroupBarrier();
        for (var h = 128u; h > 0u; h >>= 1u) {
            if (lid < h) { part_sh[lid] += part_sh[lid + h]; }
            workgroupBarrier();
        }
        if (lid == 0u) { nbr_count[i] = part_sh[0] + wall_candidates(xi, ri, false, 0u); }
        workgroupBarrier();
    }
}

// One thread, after the scan: refuses a list longer than the buffer (the run
// freezes before anything is written; the host grows the buffer and goes on
// from this step) or records its length.
@compute @workgroup_size(1)
fn check_list() {
    if (idle()) { return; }
    atomicStore(&ctl[CTL_KEPT], 1u);
    let total = nbr_start[atomicLoad(&ctl[CTL_COUNT])];
    if (total > atomicLoad(&ctl[CTL_LIST_CAP])) {
        atomicStore(&ctl[CTL_LIST_NEED], total);
        atomicStore(&ctl[CTL_FROZEN], atomicLoad(&ctl[CTL_STEP]));
    } else {
        atomicStore(&ctl[CTL_LIST_LEN], total);
    }
}

@compute @workgroup_size(256)
fn fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || idle() || i < large_count()) { return; }
    let k = candidates(i, true);
    let lo = nbr_start[i];
    carry_into(old_index[i], lo, lo + k);
    pos_ref_put(i, pos_rad_at(i));
}

// The large particles' rows, a workgroup each, in the order of `fill`:
// each thread takes a run of consecutive rows, counts its candidates, and
// after an exclusive scan of the 256 counts writes them at its offset;
// thread 0 writes the walls' entries after them. Then the threads carry
// the history of the old row's entries lid, lid + 256, ... (each scans
// the new row for its partner, as `carry_into` does).
@compute @workgroup_size(256)
fn fill_large(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let large = large_rows(lid);
    let groups = nwg.x * nwg.y;
    for (var i = wid.y * nwg.x + wid.x; i < large; i += groups) {
        let xi = pos_rad_at(i).xyz;
        let ri = pos_rad_at(i).w;
        let lr = large_reach(xi, ri);
        let rows = lr.first[MAX_LEVELS];
        let chunk = (rows + WG - 1u) / WG;
        let r0 = min(lid * chunk, rows);
        let r1 = min(r0 + chunk, rows);
        var k = 0u;
        for (var r = r0; r < r1; r++) { k += flat_row(i, xi, ri, lr, r, false, 0u); }
        part_sh[lid] = k;
        workgroupBarrier();
        if (lid == 0u) {
            var acc = 0u;
            for (var t = 0u; t < WG; t++) {
                let c = part_sh[t];
                part_sh[t] = acc;
                acc += c;
            }
            large_sh = acc;
        }
        workgroupBarrier();
        let lo = nbr_start[i];
        var out = lo + part_sh[lid];
        for (var r = r0; r < r1; r++) { out += flat_row(i, xi, ri, lr, r, true, out); }
        if (lid == 0u) {
            wall_candidates(xi, ri, true, lo + large_sh);
            pos_ref_put(i, pos_rad_at(i));
        }
        // the whole row written before any thread looks for partners in it
        storageBarrier();
        workgroupBarrier();
        let hi = nbr_start[i + 1u];
        let o = old_index[i];
        let old_hi = old_start[o + 1u];
        for (var e = old_start[o] + lid; e < old_hi; e += WG) { carry_entry(e, lo, hi); }
        workgroupBarrier();
    }
}

// One thread, last of the rebuild: the list is current.
@compute @workgroup_size(1)
fn finish_build() {
    if (idle()) { return; }
    // the poses the list was built at (a wall that moves more than skin / 2
    // from them rebuilds it: `wall_motion`)
    for (var b = 0u; b < P.sizes.y; b++) {
        let p = wall_pose[b];
        wall_pose[b].built = vec4<f32>(p.origin.xyz - wall_motion[b].axis_point.xyz, p.origin.w);
    }
    // the large levels' particles come first in cell order
    var large = 0u;
    if (P.level_count.y > 0u) { large = min(starts[P.levels[P.level_count.y].dims.w], atomicLoad(&ctl[CTL_COUNT])); }
    atomicStore(&ctl[CTL_LARGE], large);
    atomicStore(&ctl[CTL_REBUILD], 0u);
    atomicStore(&ctl[CTL_KEPT], 0u);
    atomicStore(&ctl[CTL_ROWS], atomicLoad(&ctl[CTL_COUNT]));
    atomicAdd(&ctl[CTL_BUILDS], 1u);
}
