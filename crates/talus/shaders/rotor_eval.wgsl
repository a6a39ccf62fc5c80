// The clumps' rotation alone (rotor.wgsl is prepended): free tops run for
// many steps, one per invocation, the GPU half of the rotation's twin test
// (src/gpu/rotor_eval.rs, RotorEval; tests/gpu.rs). Not part of a step.
// Under 65 535 steps a case: llvmpipe (lavapipe) ends a shader's loop after
// 65 535 iterations (seen: a 10^5-step case stopped there).

struct RotorCase {
    q: vec4<f32>,        // start orientation
    l: vec4<f32>,        // xyz: world angular momentum
    inertia: vec4<f32>,  // xyz: principal moments; w: dt
    steps: vec4<u32>,    // x: steps
}

struct RotorOut {
    q: vec4<f32>,        // end orientation
    l: vec4<f32>,        // xyz: end world angular momentum
    flips: vec4<f32>,    // sign changes of the body-frame spin about axis 2: count, first, last (s); worst |dE| / E
}

@group(0) @binding(0) var<storage, read> cases: array<RotorCase>;
@group(0) @binding(1) var<storage, read_write> outs: array<RotorOut>;

@compute @workgroup_size(256)
fn rotor_eval(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= arrayLength(&cases)) { return; }
    let c = cases[i];
    let inertia = c.inertia.xyz;
    let dt = c.inertia.w;
    var r = Rotor(c.q, c.l.xyz);
    let e0 = rotor_energy(r, inertia);
    var last = quat_rotate(quat_conj(r.q), r.l).y;
    var flips = vec4<f32>(0.0);
    for (var n = 1u; n <= c.steps.x; n++) {
        r = rotor_step(r, inertia, vec3<f32>(0.0), dt);
        let now = quat_rotate(quat_conj(r.q), r.l).y;
        if (sign(now) != sign(last)) {
            let t = (f32(n) - now / (now - last)) * dt;
            if (flips.x == 0.0) { flips.y = t; }
            flips.z = t;
            flips.x = flips.x + 1.0;
        }
        last = now;
        flips.w = max(flips.w, abs(rotor_energy(r, inertia) - e0) / e0);
    }
    outs[i] = RotorOut(r.q, vec4<f32>(r.l, 0.0), flips);
}
