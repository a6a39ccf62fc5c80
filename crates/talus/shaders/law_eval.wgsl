// The contact law alone, over a batch of contacts given as data: the GPU
// half of the law's twin test (src/gpu/law.rs, LawEval; tests/gpu.rs,
// gpu_law_matches_cpu_law_in_every_branch). Not part of a step. law.wgsl is
// prepended, so this is the very law the contact stage runs.

// One contact in the canonical orientation (a -> b); b.radius < 0: a wall.
struct LawCase {
    pair: Pair,
    a: Motion,
    b: Motion,
    radii: vec4<f32>,   // a radius, b radius (< 0: wall), overlap, unused
    normal: vec4<f32>,  // xyz: unit normal from a to b
    hist: vec4<f32>,    // stored xi (xyz) and last k_t (w); zero: first contact
    roll: vec4<f32>,    // stored rolling torque (xyz; epsd, epsd2)
}

struct LawOut {
    force_a: vec4<f32>,
    torque_a: vec4<f32>,
    torque_b: vec4<f32>,
    xi_kt: vec4<f32>,
    energy: vec4<f32>,  // elastic, dissipated, unused, unused
    roll: vec4<f32>,    // the new rolling torque (xyz)
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> cases: array<LawCase>;
@group(0) @binding(2) var<storage, read_write> outs: array<LawOut>;

@compute @workgroup_size(256)
fn law_eval(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= arrayLength(&cases)) { return; }
    let c = cases[i];
    let a = body(c.a, c.radii.x);
    var b = body(c.b, c.radii.y);
    if (c.radii.y < 0.0) {
        b = Body(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), -1.0, 0.0, 0.0);
    }
    let r = pair_law(c.pair, a, b, c.normal.xyz, c.radii.z, c.hist, c.roll.xyz);
    outs[i] = LawOut(vec4<f32>(r.force_a, 0.0), vec4<f32>(r.torque_a, 0.0),
                     vec4<f32>(r.torque_b, 0.0), vec4<f32>(r.xi, r.kt),
                     vec4<f32>(r.elastic, r.dissipated, 0.0, 0.0), vec4<f32>(r.roll, 0.0));
}
