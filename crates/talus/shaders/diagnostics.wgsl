// Stage 5, diagnostics: per-workgroup partial sums (fixed tree order, so
// deterministic) of the energies and the largest speed, reconstructed at the
// full step as in src/cpu/diagnostics.rs. The host adds the partials in f64.
// Runs only when an energy row is due, after `integrate` (reads the working set B).
// A particle an outlet has marked (id NONE; dropped at the next build) is
// gone already: it counts nothing, as on the CPU.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> pos_rad: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> dissipated: array<f32>;
@group(0) @binding(3) var<storage, read> motion: array<Motion>;
// this step's force and torque (the next contact stage overwrites them)
@group(0) @binding(4) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> torque: array<vec4<f32>>;
// per workgroup: kinetic_t, kinetic_r, potential, elastic, dissipated, max speed, 0, 0
@group(0) @binding(6) var<storage, read_write> partials: array<array<f32, 8>>;
@group(0) @binding(7) var<storage, read> ctl: array<u32, CTL_LEN>;

var<workgroup> acc: array<array<f32, 6>, 256>;

@compute @workgroup_size(256)
fn diagnostics(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    var e = array<f32, 6>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    var live = i < ctl[CTL_COUNT];
    if (live) { live = bitcast<u32>(motion[i].omega_half.w) != NONE; }
    if (live) {
        let dt = P.gravity_dt.w;
        let g = gravity_at(P, ctl[CTL_STEP]);
        let m = motion[i];
        let v = m.vel_invm;
        let om = m.omega_invi;
        let f = force[i];
        let t = torque[i];
        let a = f.xyz * v.w + g;
        let v_half = m.vel_half.xyz;
        let vn = v_half - 0.5 * dt * a;
        let wn = m.omega_half.xyz - 0.5 * dt * t.xyz * om.w;
        let xn = pos_rad[i].xyz - v_half * dt;
        e[0] = 0.5 / v.w * dot(vn, vn);
        e[1] = 0.5 / om.w * dot(wn, wn);
        e[2] = -dot(g, xn) / v.w;
        e[3] = f.w;
        e[4] = dissipated[i];
        e[5] = sqrt(dot(vn, vn));
    }
    acc[lid] = e;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off = off / 2u) {
        if (lid < off) {
            for (var k = 0u; k < 5u; k++) { acc[lid][k] = acc[lid][k] + acc[lid + off][k]; }
            acc[lid][5] = max(acc[lid][5], acc[lid + off][5]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        let r = acc[0];
        partials[wid.y * nwg.x + wid.x] = array<f32, 8>(r[0], r[1], r[2], r[3], r[4], r[5], 0.0, 0.0);
    }
}
