// The bond law alone, over a batch of bonds given as data: the GPU half of
// the bond law's twin test (src/gpu/bonds.rs, BondEval; tests/gpu_bonds.rs).
// Not part of a step. law.wgsl (Body) and bonds.wgsl are prepended.

struct BondCase {
    params: BondParams,
    a: Motion,
    b: Motion,
    geom: vec4<f32>,    // a radius, b radius, centre distance, dt
    normal: vec4<f32>,  // xyz: unit normal from a to b
    nt: vec4<f32>,      // stored normal force, twisting moment
    shear: vec4<f32>,   // stored shear force (xyz)
    bend: vec4<f32>,    // stored bending moment (xyz)
}

struct BondOut {
    force_a: vec4<f32>,
    torque_a: vec4<f32>,
    torque_b: vec4<f32>,
    nt: vec4<f32>,      // new normal force, twisting moment; z: broke (as f32)
    shear: vec4<f32>,
    bend: vec4<f32>,
    energy: vec4<f32>,  // elastic, dissipated
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> cases: array<BondCase>;
@group(0) @binding(2) var<storage, read_write> outs: array<BondOut>;

@compute @workgroup_size(256)
fn bond_eval(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= arrayLength(&cases)) { return; }
    let c = cases[i];
    let a = body(c.a, c.geom.x);
    let b = body(c.b, c.geom.y);
    let old = BondState(c.nt.xy, c.shear.xyz, c.bend.xyz);
    let r = bond_law(c.params, c.geom.w, a, b, c.normal.xyz, c.geom.z, old);
    outs[i] = BondOut(vec4<f32>(r.force_a, 0.0), vec4<f32>(r.torque_a, 0.0),
                      vec4<f32>(r.torque_b, 0.0), vec4<f32>(r.state.nt, f32(r.broke), 0.0),
                      vec4<f32>(r.state.shear, 0.0), vec4<f32>(r.state.bend, 0.0),
                      vec4<f32>(r.elastic, r.dissipated, 0.0, 0.0));
}
