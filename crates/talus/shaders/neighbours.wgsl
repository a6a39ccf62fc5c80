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
// fill: `keep` first saves the previous list's entries that have history
// (`kept_*`, ~the contacts, not every candidate), and each finds its
// partner among the new row (a particle by its new index, a primitive by
// its own).
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
// the positions the list is built at, 3 f32 words a particle (`set_ref`)
@group(1) @binding(4) var<storage, read_write> pos_ref: array<u32>;
@group(1) @binding(5) var<storage, read_write> nbr_hist: array<Hist>;
// The previous list's entries with history, kept by `keep`: particle j's
// (in the new order) are kept_row[j] = (first, count) of kept_nbr (the
// partner as the previous list had it, over the previous order) and
// kept_hist; ctl[CTL_KEPT_LEN] counts them (their place in the table is
// claimed by an atomicAdd: any order, the rows' contents are the same). A
// table too small freezes the build at `check_kept` (CTL_KEPT_NEED); the
// host grows it and the build keeps again (CTL_KEPT = 2).
@group(1) @binding(6) var<storage, read_write> kept_row: array<vec2<u32>>;
@group(1) @binding(7) var<storage, read_write> kept_nbr: array<u32>;
@group(1) @binding(8) var<storage, read_write> kept_hist: array<Hist>;
// new_at[o]: where the particle that stood at o in the previous order
// stands now
@group(1) @binding(9) var<storage, read_write> new_at: array<u32>;
// old_index[j] = order[j] as the first `keep` saw it: a build that froze
// (for room in the list or the kept table) runs bin and sort again, and
// that second order is the identity (the particles are already sorted),
// so keeping again needs the first
@group(1) @binding(10) var<storage, read_write> old_index: array<u32>;
// the motion records, read for the partners' ids (`holds`)
@group(1) @binding(11) var<storage, read> motion: array<Motion>;
// The list's arrays (nbr, nbr_hist, kept_nbr, kept_hist) may span several
// buffers: reached through NAME_at and NAME_put, generated for the run's
// pages (src/gpu/pages.rs).

fn idle() -> bool {
    return atomicLoad(&ctl[CTL_FROZEN]) != NONE || atomicLoad(&ctl[CTL_REBUILD]) == 0u;
}

// Moves the history kept for particle i into its new row nbr[lo..hi]
// (zero history, no history flags on entry): each kept entry finds its
// partner in the row (a particle by its new index, a wall primitive by its
// own), which gets the history and the flag. Twin of `OldList::carry_into`.
fn carry_into(i: u32, lo: u32, hi: u32) {
    let r = kept_row[i];
    for (var e = r.x; e < r.x + r.y; e++) { carry_entry(e, lo, hi); }
}

// One kept entry's history into the new row nbr[lo..hi]. Entries of one
// row have distinct partners, so the workgroup of `fill_large` carries them
// in parallel: an entry another thread flags (its partner | HAS_HISTORY)
// never equals the partner sought here.
fn carry_entry(e: u32, lo: u32, hi: u32) {
    let ob = kept_nbr_at(e);
    var jn = ob & ~HAS_HISTORY;
    if ((ob & WALL) == 0u) { jn = new_at[ob & INDEX]; }
    for (var k = lo; k < hi; k++) {
        if (nbr_at(k) == jn) {
            nbr_hist_put(k, kept_hist_at(e));
            nbr_put(k, jn | HAS_HISTORY);
            break;
        }
    }
}

// Records particle i's position as the one its row was built at.
fn set_ref(i: u32) {
    let x = pos_rad_at(i);
    for (var c = 0u; c < 3u; c++) { pos_ref_word_put(i, c, bitcast<u32>(x[c])); }
}

// The id of particle j.
fn id_of(j: u32) -> u32 {
    return bitcast<u32>(motion_at(j).omega_half.w);
}

// Whether the row of the particle of id `id_i` holds the pair with j:
// when each pair is listed once, the lower id's row does, so the pair
// stays in the same row from build to build (its history with it); else
// both rows do. Never two members of one clump (their rows share its id;
// only a run with clumps, P.dims.x, looks).
fn holds(id_i: u32, j: u32) -> bool {
    if (pairs_once()) { return id_i < id_of(j); }
    return P.dims.x == 0u || id_i != id_of(j);
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
                    nbr_hist_put(out + k, Hist());
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
                    nbr_hist_put(out + k, Hist());
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
// an entry to it. Empties the kept table unless this build has kept the
// previous list already (it froze for room in the list).
@compute @workgroup_size(1)
fn drop_removed() {
    if (idle()) { return; }
    let live = starts[P.dims.w];
    let count = atomicLoad(&ctl[CTL_COUNT]);
    for (var j = live; j < count; j++) { new_at[order[j]] = NONE; }
    atomicStore(&ctl[CTL_COUNT], min(live, count));
    if (atomicLoad(&ctl[CTL_KEPT]) != 1u) { atomicStore(&ctl[CTL_KEPT_LEN], 0u); }
}

// The row of the previous list particle j (new order) had: its index o
// in that order (the first sort's, `old_index`, when this build keeps
// again after growing the table) and where o stands now.
fn old_row(j: u32) -> u32 {
    var o = order[j];
    if (atomicLoad(&ctl[CTL_KEPT]) == 2u) { o = old_index[j]; }
    new_at[o] = j;
    old_index[j] = o;
    return o;
}

// Claims `c` entries of the kept table for particle j: the first, or
// NONE when they do not fit (the table's need still counts them).
fn claim_kept(j: u32, c: u32) -> u32 {
    var base = 0u;
    if (c > 0u) { base = atomicAdd(&ctl[CTL_KEPT_LEN], c); }
    kept_row[j] = vec2<u32>(base, c);
    if (base + c > atomicLoad(&ctl[CTL_KEPT_CAP]) || base + c < base) { return NONE; }
    return base;
}

// First of a build, per particle in the new order: keeps the entries of its
// previous row that have history (the previous list is over the previous
// order: particle j stood at order[j]) and records where each particle of
// that order stands now. Once per build: a build that froze for room in
// the list (CTL_KEPT = 1) has kept already, and the list since holds
// nothing to keep.
@compute @workgroup_size(256)
fn keep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let j = flat_index(wid, nwg, lid);
    if (j >= atomicLoad(&ctl[CTL_COUNT]) || idle() || atomicLoad(&ctl[CTL_KEPT]) == 1u) { return; }
    if (j < large_count()) { return; }
    let o = old_row(j);
    let lo = nbr_start[o];
    let hi = nbr_start[o + 1u];
    var c = 0u;
    for (var e = lo; e < hi; e++) {
        if ((nbr_at(e) & HAS_HISTORY) != 0u) { c++; }
    }
    var k = claim_kept(j, c);
    if (k == NONE) { return; }
    for (var e = lo; e < hi; e++) {
        let b = nbr_at(e);
        if ((b & HAS_HISTORY) == 0u) { continue; }
        kept_nbr_put(k, b);
        kept_hist_put(k, nbr_hist_at(e));
        k++;
    }
}

// One thread, after `keep` and `keep_large`: a kept table too small for
// what the previous list holds freezes the build before anything else is
// written (the host grows the table; the build keeps again).
@compute @workgroup_size(1)
fn check_kept() {
    if (idle() || atomicLoad(&ctl[CTL_KEPT]) == 1u) { return; }
    let need = atomicLoad(&ctl[CTL_KEPT_LEN]);
    if (need > atomicLoad(&ctl[CTL_KEPT_CAP])) {
        atomicStore(&ctl[CTL_KEPT_NEED], need);
        atomicStore(&ctl[CTL_KEPT], 2u);
        atomicStore(&ctl[CTL_FROZEN], atomicLoad(&ctl[CTL_STEP]));
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
// ...), the threads striding over the entries: they count the entries
// with history, claim the row's place, and write them (in any order: a
// row's entries have distinct partners).
var<workgroup> kept_sh: atomic<u32>;

@compute @workgroup_size(256)
fn keep_large(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        large_sh = 0u;
        if (atomicLoad(&ctl[CTL_KEPT]) != 1u) { large_sh = large_count(); }
    }
    let large = workgroupUniformLoad(&large_sh);
    let groups = nwg.x * nwg.y;
    for (var j = wid.y * nwg.x + wid.x; j < large; j += groups) {
        if (lid == 0u) {
            let o = old_row(j);
            part_sh[0] = nbr_start[o];
            part_sh[1] = nbr_start[o + 1u];
            atomicStore(&kept_sh, 0u);
        }
        workgroupBarrier();
        let lo = part_sh[0];
        let hi = part_sh[1];
        for (var e = lo + lid; e < hi; e += WG) {
            if ((nbr_at(e) & HAS_HISTORY) != 0u) { atomicAdd(&kept_sh, 1u); }
        }
        workgroupBarrier();
        if (lid == 0u) {
            part_sh[2] = claim_kept(j, atomicLoad(&kept_sh));
            atomicStore(&kept_sh, 0u);
        }
        workgroupBarrier();
        let base = part_sh[2];
        if (base != NONE) {
            for (var e = lo + lid; e < hi; e += WG) {
                let b = nbr_at(e);
                if ((b & HAS_HISTORY) == 0u) { continue; }
                let k = base + atomicAdd(&kept_sh, 1u);
                kept_nbr_put(k, b);
                kept_hist_put(k, nbr_hist_at(e));
            }
        }
        workgroupBarrier();
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
    carry_into(i, lo, lo + k);
    set_ref(i);
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
            set_ref(i);
        }
        // the whole row written before any thread looks for partners in it
        storageBarrier();
        workgroupBarrier();
        let hi = nbr_start[i + 1u];
        let r = kept_row[i];
        for (var e = r.x + lid; e < r.x + r.y; e += WG) { carry_entry(e, lo, hi); }
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
    atomicAdd(&ctl[CTL_BUILDS], 1u);
}
