// Rotation of a rigid body with a full inertia tensor (clumps, issue 37):
// the twin of src/shapes/rotation.rs (Rotor::step, Rotor::drift). Kick the
// world angular momentum by torque dt/2, drift — the free rotor split into
// exact rotations about the principal axes, R1(h/2) R2(h/2) R3(h) R2(h/2)
// R1(h/2), each turning the body by omega_k t about its axis k and the
// body-frame momentum the opposite way — and kick again. Quaternions are
// vec4 with the vector part in xyz and the scalar in w (glam's order).

struct Rotor {
    q: vec4<f32>,   // body (principal) frame to world
    l: vec3<f32>,   // angular momentum, world frame
}

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn quat_conj(q: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(-q.xyz, q.w);
}

// The body frame's unit axis k (0, 1, 2).
fn rotor_axis(k: u32) -> vec3<f32> {
    return vec3<f32>(select(0.0, 1.0, k == 0u), select(0.0, 1.0, k == 1u), select(0.0, 1.0, k == 2u));
}

// The rotation by `angle` about the unit axis e.
fn quat_about(e: vec3<f32>, angle: f32) -> vec4<f32> {
    return vec4<f32>(e * sin(0.5 * angle), cos(0.5 * angle));
}

// The drift's state: the orientation and the body-frame momentum.
struct Turn {
    q: vec4<f32>,
    pi: vec3<f32>,
}

// One sub-step: the exact flow of pi_k^2 / 2 I_k for t.
fn rotor_sub(s: Turn, inertia: vec3<f32>, k: u32, t: f32) -> Turn {
    let e = rotor_axis(k);
    let angle = dot(s.pi, e) / dot(inertia, e) * t;
    return Turn(quat_mul(s.q, quat_about(e, angle)), quat_rotate(quat_about(e, -angle), s.pi));
}

// The free rotor for h; the world momentum unchanged.
fn rotor_drift(r: Rotor, inertia: vec3<f32>, h: f32) -> Rotor {
    var s = Turn(r.q, quat_rotate(quat_conj(r.q), r.l));
    s = rotor_sub(s, inertia, 0u, 0.5 * h);
    s = rotor_sub(s, inertia, 1u, 0.5 * h);
    s = rotor_sub(s, inertia, 2u, h);
    s = rotor_sub(s, inertia, 1u, 0.5 * h);
    s = rotor_sub(s, inertia, 0u, 0.5 * h);
    return Rotor(normalize(s.q), r.l);
}

// One step of dt under the world-frame torque: kick, drift, kick.
fn rotor_step(r: Rotor, inertia: vec3<f32>, torque: vec3<f32>, dt: f32) -> Rotor {
    var x = r;
    x.l = x.l + 0.5 * dt * torque;
    x = rotor_drift(x, inertia, dt);
    x.l = x.l + 0.5 * dt * torque;
    return x;
}

// The rotational kinetic energy, sum of pi_k^2 / 2 I_k.
fn rotor_energy(r: Rotor, inertia: vec3<f32>) -> f32 {
    let pi = quat_rotate(quat_conj(r.q), r.l);
    return 0.5 * dot(pi * pi, 1.0 / inertia);
}
