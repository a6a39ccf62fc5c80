// Stage 1, bin: cell key per particle and particle count per cell.
// Twin of src/cpu/bin.rs. Counts use integer atomics only.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> ctl: array<u32, CTL_LEN>;

// Runs only on a step that rebuilds the neighbour list.
fn idle() -> bool {
    return ctl[CTL_FROZEN] != NONE || ctl[CTL_REBUILD] == 0u;
}
@group(0) @binding(2) var<storage, read> pos_rad: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;

// arm_rebuild only: the workgroup counts (x, y, z per dispatch size) of
// every rebuild kernel's indirect dispatch, in full and as this step uses
// them.
@group(1) @binding(0) var<storage, read> full_args: array<u32>;
@group(1) @binding(1) var<storage, read_write> args: array<u32>;

// First of every step: the full counts on a step that rebuilds, zero on the
// others, so bin, sort and neighbours launch no workgroup between builds.
// (Their kernels still test the flag: correctness does not rest on this.)
@compute @workgroup_size(256)
fn arm_rebuild(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= arrayLength(&full_args)) { return; }
    args[k] = select(full_args[k], 0u, idle());
}

@compute @workgroup_size(256)
fn clear_counts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let c = flat_index(wid, nwg, lid);
    if (c >= P.dims.w || idle()) { return; }
    atomicStore(&counts[c], 0u);
}

@compute @workgroup_size(256)
fn bin(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= P.sizes.x || idle()) { return; }
    let k = cell_key(P, cell_coord(P, pos_rad[i].xyz));
    keys[i] = k;
    atomicAdd(&counts[k], 1u);
}
