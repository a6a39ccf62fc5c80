// Stage 3, neighbours: the Verlet candidate list, a CSR over the particles
// in cell order (set B). Twin of src/cpu/neighbours.rs: the same three
// passes (count, exclusive scan, fill) and the same candidate order (level
// by level, the cells within reach in z, y, x order, each row's x-cells as
// one range: Grid::for_ranges).
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
    for (var e = old_start[o]; e < old_hi; e++) {
        let ob = old_nbr[e];
        if ((ob & HAS_HISTORY) == 0u) { continue; }
        var jn = ob & ~HAS_HISTORY;
        if ((ob & WALL) == 0u) { jn = new_at[ob & INDEX]; }
        for (var k = lo; k < hi; k++) {
            if (nbr[k] == jn) {
                nbr_hist[k] = old_hist[e];
                nbr[k] = jn | HAS_HISTORY;
                break;
            }
        }
    }
}

// Visits the candidates of particle i, then the wall primitives within
// reach: counts them, and when `write` is set stores them from
// nbr[nbr_start[i]] on, with zero history. Returns the count.
fn candidates(i: u32, write: bool) -> u32 {
    let xi = pos_rad[i].xyz;
    let ri = pos_rad[i].w;
    let skin = P.nbr.x;
    var k = 0u;
    var out = 0u;
    if (write) { out = nbr_start[i]; }
    // each level with particles, coarsest first: the cells within
    // r + skin / 2 + H (twin of Grid::for_ranges)
    for (var l = 0u; l < P.level_count.x; l++) {
        let lv = P.levels[l];
        if (starts[lv.dims.w] == starts[level_end(P, l)]) { continue; }
        let c = level_range(P, l, xi, ri + 0.5 * skin + lv.inv_cell.w);
        let n = vec3<i32>(lv.dims.xyz);
        for (var z = c.lo.z; z <= c.hi.z; z++) {
            for (var y = c.lo.y; y <= c.hi.y; y++) {
                let row = lv.dims.w + lv.dims.x * (wrap_index(y, n.y) + lv.dims.y * wrap_index(z, n.z));
                var pcs = row_pieces(c.lo.x, c.hi.x, n.x);
                for (var rg = 0u; rg < 2u; rg++) {
                    if (pcs.hi[rg] < pcs.lo[rg]) { continue; }
                    let end = starts[row + u32(pcs.hi[rg]) + 1u];
                    for (var j = starts[row + u32(pcs.lo[rg])]; j < end; j++) {
                        if (j == i) { continue; }
                        let pj = pos_rad[j];
                        let d = min_image(P, xi, pj.xyz);
                        let cut = ri + pj.w + skin;
                        if (dot(d, d) < cut * cut) {
                            if (write) {
                                nbr[out + k] = j;
                                nbr_hist[out + k] = vec4<f32>(0.0);
                            }
                            k++;
                        }
                    }
                }
            }
        }
    }
    // the wall primitives within r + skin (a particle and a wall each move
    // at most skin / 2 before the next build), in primitive order: each
    // scene wall searched in its body frame at its pose, an analytic one's
    // primitives tested, a mesh's triangles those its grid lists for the
    // particle's cell (twin of `for_walls`)
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
                    nbr[out + k] = w | WALL;
                    nbr_hist[out + k] = vec4<f32>(0.0);
                }
                k++;
            }
        }
    }
    return k;
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
    let o = order[j];
    new_at[o] = j;
    old_index[j] = o;
    let lo = nbr_start[o];
    let hi = nbr_start[o + 1u];
    old_start[o] = lo;
    if (o + 1u == atomicLoad(&ctl[CTL_ROWS])) { old_start[o + 1u] = hi; }
    for (var e = lo; e < hi; e++) {
        old_nbr[e] = nbr[e];
        old_hist[e] = nbr_hist[e];
    }
}

@compute @workgroup_size(256)
fn count_candidates(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || idle()) { return; }
    nbr_count[i] = candidates(i, false);
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
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || idle()) { return; }
    let k = candidates(i, true);
    let lo = nbr_start[i];
    carry_into(old_index[i], lo, lo + k);
    pos_ref[i] = pos_rad[i];
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
