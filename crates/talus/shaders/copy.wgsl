// Not a stage: the bandwidth yardstick of `talus bench` (src/gpu/copy.rs).
// Each invocation copies one 16-byte word, as the step's kernels read and
// write theirs, so the copy moves what a compute pass can move; wgpu's
// copy_buffer_to_buffer goes through the copy engine, which on an H100
// moved only 0.82 TB/s where the step's own kernels moved 1.37.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn bandwidth_copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i < arrayLength(&dst) && i < arrayLength(&src)) { dst[i] = src[i]; }
}
