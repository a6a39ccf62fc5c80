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
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;
// bin only: the motion record's id lane, NONE for a removed particle
@group(0) @binding(5) var<storage, read> motion: array<Motion>;

// arm_rebuild only: what each indirect dispatch runs over (its slot:
// scale × the active count + fixed invocations; `always`: every step, else
// only a step that rebuilds), and the workgroup counts (x, y, z per slot)
// this step uses.
struct ArgSlot {
    scale: u32,
    fixed: u32,
    when: u32,
    pad: u32,
}
@group(1) @binding(0) var<storage, read> slots: array<ArgSlot>;
@group(1) @binding(1) var<storage, read_write> args: array<u32>;

// First of every step: the workgroup counts of every indirect dispatch,
// from the active count on the device (no host round trip when it
// changes). The rebuild kernels (bin, sort, neighbours) get zero on a step
// that does not rebuild, so they launch no workgroup between builds (their
// kernels still test the flag: correctness does not rest on this); the
// per-step kernels (contacts, integrate, diagnostics) always get theirs.
// Twin of `kernel::groups`.
@compute @workgroup_size(256)
fn arm_rebuild(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= arrayLength(&slots)) { return; }
    let s = slots[k];
    let size = s.scale * ctl[CTL_COUNT] + s.fixed;
    let g = max((size + WG - 1u) / WG, 1u);
    let x = min(g, 65535u);
    let y = (g + x - 1u) / x;
    let loads = ctl[CTL_FROZEN] == NONE && (P.nbr.z != 0.0 || ctl[CTL_LOADS_AT] == ctl[CTL_STEP]);
    let on = s.when == ARM_ALWAYS || (s.when == ARM_REBUILD && !idle()) || (s.when == ARM_LOADS && loads);
    args[3u * k] = select(0u, x, on);
    args[3u * k + 1u] = select(0u, y, on);
    args[3u * k + 2u] = select(0u, 1u, on);
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
    var k = particle_key(P, pos_rad[i]);
    // a removed particle (id NONE) goes to the bin past the last cell: the
    // sort moves it behind every live one, and the build drops it
    if (bitcast<u32>(motion[i].omega_half.w) == NONE) { k = P.dims.w; }
    keys[i] = k;
    atomicAdd(&counts[k], 1u);
}
