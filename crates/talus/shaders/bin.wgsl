// Stage 1, bin: cell key per particle (in the grid level of its size) and
// particle count per cell.
// Twin of src/cpu/bin.rs. Counts use integer atomics only.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> ctl: array<u32, CTL_LEN>;

// Runs only on a step that rebuilds the neighbour list.
fn idle() -> bool {
    return ctl[CTL_FROZEN] != NONE || ctl[CTL_REBUILD] == 0u;
}
@group(0) @binding(2) var<storage, read> pos_rad: array<vec4<f32>>;
// each particle's cell key (the buffer of the list's counts, which a
// build writes after the sort has read the keys)
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;
// bin only: the motion record's id lane, NONE for a removed particle
@group(0) @binding(5) var<storage, read> motion: array<Motion>;

// arm_rebuild only: the slots and the workgroup counts (x, y, z per slot)
@group(1) @binding(0) var<storage, read> slots: array<ArgSlot>;
@group(1) @binding(1) var<storage, read_write> args: array<u32>;

// The workgroup counts of every indirect dispatch, from the active count on
// the device (no host round trip when it changes): first in a submission
// and after what changes the count or the flags between two steps
// (insertion batches, moving surfaces); the other steps are armed by the
// step before (`finish_step`). The rebuild kernels (bin, sort, neighbours)
// get zero on a step that does not rebuild, so they launch no workgroup
// between builds (their kernels still test the flag: correctness does not
// rest on this); the per-step kernels (contacts, integrate, diagnostics)
// always get theirs, the loads' on a step that wants them.
@compute @workgroup_size(256)
fn arm_rebuild(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= arrayLength(&slots)) { return; }
    let loads = loads_due(P.nbr.z, ctl[CTL_FROZEN], ctl[CTL_LOADS_AT], ctl[CTL_STEP]);
    let g = slot_groups(slots[k], ctl[CTL_COUNT], !idle(), loads);
    args[3u * k] = g.x;
    args[3u * k + 1u] = g.y;
    args[3u * k + 2u] = g.z;
}

@compute @workgroup_size(256)
fn clear_counts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let c = flat_index(wid, nwg, lid);
    // the cells and the removed bin after them
    if (c > P.dims.w || idle()) { return; }
    atomicStore(&counts[c], 0u);
}

@compute @workgroup_size(256)
fn bin(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= ctl[CTL_COUNT] || idle()) { return; }
    var k = particle_key(P, pos_rad_at(i));
    // a removed particle (id NONE) goes to the bin past the last cell: the
    // sort moves it behind every live one, and the build drops it
    if (bitcast<u32>(motion_at(i).omega_half.w) == NONE) { k = P.dims.w; }
    keys[i] = k;
    atomicAdd(&counts[k], 1u);
}
