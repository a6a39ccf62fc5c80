// Stage 2 (end), reorder: gathers every per-particle array of the working
// set B into the scratch set A in the new cell order, A[j] = B[order[j]]
// (bound with "a_" = source B, "b_" = destination A), then copies it back
// with the same kernels bound the other way round and the identity as
// `order`: B[j] = A[j]. Split in state and history so no kernel
// binds more than 16 storage buffers. Part of the sort stage
// (src/gpu/sort.rs); runs only on a step that rebuilds the neighbour list.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> ctl: array<u32, CTL_LEN>;

fn idle() -> bool {
    return ctl[CTL_FROZEN] != NONE || ctl[CTL_REBUILD] == 0u;
}
@group(0) @binding(2) var<storage, read> order: array<u32>;

@group(1) @binding(0) var<storage, read> a_pos: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read> a_vel: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> a_omega: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> a_material: array<u32>;
@group(1) @binding(4) var<storage, read> a_id: array<u32>;
@group(1) @binding(5) var<storage, read> a_diss: array<f32>;
@group(1) @binding(6) var<storage, read_write> b_pos: array<vec4<f32>>;
@group(1) @binding(7) var<storage, read_write> b_vel: array<vec4<f32>>;
@group(1) @binding(8) var<storage, read_write> b_omega: array<vec4<f32>>;
@group(1) @binding(9) var<storage, read_write> b_material: array<u32>;
@group(1) @binding(10) var<storage, read_write> b_id: array<u32>;
@group(1) @binding(11) var<storage, read_write> b_diss: array<f32>;
@group(1) @binding(12) var<storage, read> a_posfx: array<array<u32, 8>>;
@group(1) @binding(13) var<storage, read_write> b_posfx: array<array<u32, 8>>;

@compute @workgroup_size(256)
fn reorder_state(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let j = flat_index(wid, nwg, lid);
    if (j >= P.sizes.x || idle()) { return; }
    let i = order[j];
    b_pos[j] = a_pos[i];
    b_vel[j] = a_vel[i];
    b_omega[j] = a_omega[i];
    b_material[j] = a_material[i];
    b_id[j] = a_id[i];
    b_diss[j] = a_diss[i];
    b_posfx[j] = a_posfx[i];
}

@group(2) @binding(0) var<storage, read> a_motion: array<Motion>;
@group(2) @binding(1) var<storage, read_write> b_motion: array<Motion>;

@compute @workgroup_size(256)
fn reorder_history(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let j = flat_index(wid, nwg, lid);
    if (j >= P.sizes.x || idle()) { return; }
    let i = order[j];
    b_motion[j] = a_motion[i];
}
