// The live path: the value each particle is coloured by, from the
// simulation's own set B (positions and motion records, in cell order),
// written into the renderer's scalar buffer. No readback.

struct ScalarParams {
    // active particles (GpuData::n)
    n: u32,
    // 0 speed |v*|, 1 material, 2 id, 3 radius, 4 height (z)
    by: u32,
    pad0: u32,
    pad1: u32,
}

const NONE_ID: u32 = 0xFFFFFFFFu;
// as view_common.wgsl's HIDDEN: the bits of a particle not drawn
const HIDDEN_BITS: u32 = 0xFFFFFFFFu;
const VIEW_WG: u32 = 64u;

@group(0) @binding(0) var<uniform> sp: ScalarParams;
@group(0) @binding(1) var<storage, read> pos_rad: array<vec4<f32>>;
// 64-byte motion records, 4 lanes each: lane 0 xyz = v*, lane 2 w =
// material bits, lane 3 w = id bits (NONE_ID: marked removed)
@group(0) @binding(2) var<storage, read> motion: array<vec4<f32>>;
// the f32 bits of the value (HIDDEN_BITS: not drawn)
@group(0) @binding(3) var<storage, read_write> scalar: array<u32>;

@compute @workgroup_size(64)
fn view_scalar(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * VIEW_WG;
    if (i >= sp.n) {
        return;
    }
    let id = bitcast<u32>(motion[4u * i + 3u].w);
    if (id == NONE_ID) {
        scalar[i] = HIDDEN_BITS;
        return;
    }
    var s = 0.0;
    switch sp.by {
        case 0u: { s = length(motion[4u * i].xyz); }
        case 1u: { s = f32(bitcast<u32>(motion[4u * i + 2u].w)); }
        case 2u: { s = f32(id); }
        case 3u: { s = pos_rad[i].w; }
        default: { s = pos_rad[i].z; }
    }
    scalar[i] = bitcast<u32>(s);
}
