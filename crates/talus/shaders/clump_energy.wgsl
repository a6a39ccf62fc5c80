// A clump's kinetic (translational, rotational) and potential energy at
// the step just integrated, and its speed, recovered as a sphere's (twin of
// cpu::clumps::energy): V(n) = V(n+1/2) - a dt/2, X(n) = X(n+1) - V(n+1/2)
// dt, L(n) = L(n+1/2) - T dt/2 with that step's load, the spin energy from
// L(n) and q(n); before the first step (`started` false), the initial
// state. `c` is its record after the step, `g` gravity as the diagnostics
// see it (the next step's). Prepended, after common.wgsl, fixed.wgsl and
// rotor.wgsl, to the shaders that count a clump's energy (diagnostics.wgsl;
// clumps.wgsl, for what an outlet takes).
fn clump_energy_of(c: Clump, g: vec3<f32>, started: bool) -> vec4<f32> {
    let dt = P.gravity_dt.w;
    let m = 1.0 / c.vel.w;
    var x = vec3<f32>(0.0);
    for (var a = 0u; a < 3u; a++) { x[a] = fx_to_f32(c.pos_fx[2u * a], c.pos_fx[2u * a + 1u], a); }
    var v = c.vel.xyz;
    var l = c.l_half.xyz;
    var q = c.q;
    if (started) {
        let acc_c = c.force.xyz * c.vel.w + g;
        v = c.vel_half.xyz - 0.5 * dt * acc_c;
        x = x - c.vel_half.xyz * dt;
        l = l - 0.5 * dt * c.torque.xyz;
        q = c.q_prev;
    }
    let pi = quat_rotate(quat_conj(q), l);
    return vec4<f32>(0.5 * m * dot(v, v), 0.5 * dot(pi * pi / c.moments.xyz, vec3<f32>(1.0)),
                     -m * dot(g, x), sqrt(dot(v, v)));
}
