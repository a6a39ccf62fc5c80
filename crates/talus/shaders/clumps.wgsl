// The clumps' part of the integrate stage, twin of src/cpu/clumps.rs (f32
// here, f64 there; rotor.wgsl, the rotation, and fixed.wgsl, the centre's
// fixed point, prepended). After `integrate`, which leaves a clump's
// member rows alone, before `finish_step`:
// - `clump_bodies`, a thread per clump: its members' forces and torques
//   (this step's, words 0..8 of their work records) summed in member order
//   through the rows table (so the bits do not depend on where the rows
//   sit), torque about the centre with arms from q(n); the centre by the
//   spheres' leapfrog in fixed point, the orientation by the exact-rotation
//   splitting (rotor_drift), the step's load and turn kept in the record.
//   An outlet takes a clump whole by its new centre: its id in the record
//   becomes NONE (no kernel moves or counts it again), one record in the
//   flow log with its mass and its energy as diagnostics.wgsl counts it
//   at the end of this step (its body's and its members' contacts'),
//   and a rebuild asked for (twin of Step::outlet_takes for clumps).
// - `clump_members`, a thread per row: a member re-posed from its clump
//   (position from the centre's fixed point plus its arm in whole units,
//   point velocity, chord velocity over the step, the step's turn as its
//   omega(n-1/2), its lever), its dissipated share added and its force
//   words zeroed as `integrate` does a sphere's, the rebuild test.
// And `clump_rows`, a thread per row on a step that rebuilds (after the
// reorder): each member row writes its index into the rows table.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
@group(0) @binding(2) var<storage, read_write> clumps: array<Clump>;
// clump k's member rows, in member order: clump_rows[info.y + m]
@group(0) @binding(3) var<storage, read_write> clump_rows: array<u32>;
// every shape's members (xyz: the offset in its principal frame, w: the
// radius), a clump's from members[info.z] on
@group(0) @binding(4) var<storage, read> members: array<vec4<f32>>;
// each row's work record (P.level_count.z words): force and torque in
// words 0..8 (contacts.wgsl, `put_force`)
@group(0) @binding(5) var<storage, read_write> work: array<u32>;
// the positions at the last build, 3 f32 words a row
@group(0) @binding(6) var<storage, read> pos_ref: array<u32>;
// the outlets, in order (the open domain last), and the flow log
@group(0) @binding(7) var<storage, read> outlets: array<OutletRegion>;
@group(0) @binding(8) var<storage, read_write> flow_log: array<FlowRecord>;

@group(1) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> diss: array<f32>;
@group(1) @binding(2) var<storage, read_write> motion: array<Motion>;
@group(1) @binding(3) var<storage, read_write> posfx: array<array<u32, FX_WORDS>>;
@group(1) @binding(4) var<storage, read_write> clump_row: array<MemberRow>;

// Whether this step's state may be written: not frozen, no failed contact.
fn stepping() -> bool {
    return atomicLoad(&ctl[CTL_FROZEN]) == NONE && atomicLoad(&ctl[CTL_ERR_OVERLAP]) == NONE;
}

// The world-frame omega for momentum l at orientation q (Rotor::omega).
fn clump_omega(q: vec4<f32>, l: vec3<f32>, moments: vec3<f32>) -> vec3<f32> {
    let pi = quat_rotate(quat_conj(q), l);
    return quat_rotate(q, pi / moments);
}

@compute @workgroup_size(256)
fn clump_bodies(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if (k >= P.dims.x || !stepping()) { return; }
    var c = clumps[k];
    if (c.info.x == NONE) { return; }
    let dt = P.gravity_dt.w;
    let step = atomicLoad(&ctl[CTL_STEP]);
    let g = gravity_at(P, step);
    // the load, in member order, arms from q(n)
    var f = vec3<f32>(0.0);
    var t = vec3<f32>(0.0);
    for (var m = 0u; m < c.info.w; m++) {
        let row = clump_rows[c.info.y + m];
        let arm = quat_rotate(c.q, members[c.info.z + m].xyz);
        let fm = work_f32x4(row, 0u).xyz;
        f = f + fm;
        t = t + (cross(arm, fm) + work_f32x4(row, 4u).xyz);
    }
    let a = f * c.vel.w + g;
    // on the first step: V(-1/2) = V(0) - a dt/2, and l_half holds L(0):
    // L(-1/2) = L(0) - T dt/2
    var v_prev = c.vel_half.xyz;
    var l_prev = c.l_half.xyz;
    if (step == 0u) {
        v_prev = c.vel.xyz - 0.5 * a * dt;
        l_prev = c.l_half.xyz - 0.5 * dt * t;
    }
    let v_half = v_prev + a * dt;
    let moved = fx_move(c.pos_fx, v_half * dt);
    let l_half = l_prev + t * dt;
    let r = rotor_drift(Rotor(c.q, l_half), c.moments.xyz, dt);
    let omega = clump_omega(r.q, l_half + 0.5 * dt * t, c.moments.xyz);
    // the turn q(n+1) q(n)^-1 as an angle vector, over dt
    var dq = quat_mul(r.q, quat_conj(c.q));
    if (dq.w < 0.0) { dq = -dq; }
    let s = length(dq.xyz);
    var turn = vec3<f32>(0.0);
    if (s > 0.0) { turn = dq.xyz * (2.0 * atan2(s, dq.w) / (s * dt)); }
    c.pos_fx = moved.fx;
    c.vel = vec4<f32>(v_half + 0.5 * dt * a, c.vel.w);
    c.vel_half = vec4<f32>(v_half, 0.0);
    c.q_prev = c.q;
    c.q = r.q;
    c.l_half = vec4<f32>(l_half, 0.0);
    c.omega = vec4<f32>(omega, c.omega.w);
    c.turn = vec4<f32>(turn, 0.0);
    c.force = vec4<f32>(f, 0.0);
    c.torque = vec4<f32>(t, 0.0);
    let out = outlet_of(moved.p);
    if (out != NONE) {
        // its energy at the end of this step, as diagnostics.wgsl counts it
        // (gravity of the next step)
        let b = clump_energy_of(c, gravity_at(P, step + 1u), true);
        var e = b.x + b.y + b.z;
        for (var m = 0u; m < c.info.w; m++) {
            let row = clump_rows[c.info.y + m];
            e += bitcast<f32>(work_word(row, 3u)) + diss_at(row) + bitcast<f32>(work_word(row, 7u));
        }
        atomicStore(&ctl[CTL_REBUILD], 1u);
        let at = atomicAdd(&ctl[CTL_LOG], 1u);
        if (at < arrayLength(&flow_log)) {
            flow_log[at] = FlowRecord(c.info.x, LOG_REMOVED | out, step + 1u,
                                      bitcast<u32>(1.0 / c.vel.w), e);
        }
        // NONE (from a runtime value: a constant NaN is refused by WGSL)
        c.info.x = c.info.x | NONE;
    }
    clumps[k] = c;
}

@compute @workgroup_size(256)
fn clump_members(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || !stepping()) { return; }
    var row = clump_row_at(i);
    if (row.body == NONE) { return; }
    let c = clumps[row.body];
    let dt = P.gravity_dt.w;
    let t = work_f32x4(i, 4u);
    if (P.level_count.z == ACC_WORDS && atomicLoad(&ctl[CTL_STEP]) != atomicLoad(&ctl[CTL_LOADS_AT])) {
        for (var w = 0u; w < 8u; w++) { work_word_put(i, w, 0u); }
    }
    var m = motion_at(i);
    if (c.info.x == NONE) {
        // an outlet took its clump (or did before: marked once): the next
        // build drops the row
        if (bitcast<u32>(m.omega_half.w) != NONE) {
            m.omega_half.w = bitcast<f32>(bitcast<u32>(m.omega_half.w) | NONE);
            motion_put(i, m);
        }
        return;
    }
    let b = members[c.info.z + row.member].xyz;
    let arm = quat_rotate(c.q, b);
    let arm_prev = quat_rotate(c.q_prev, b);
    let at = fx_move(c.pos_fx, arm);
    let vm = c.vel.xyz + cross(c.omega.xyz, arm);
    let vh = c.vel_half.xyz + (arm - arm_prev) * (1.0 / dt);
    m.vel_invm = vec4<f32>(vm, c.vel.w);
    m.omega_invi = vec4<f32>(c.omega.xyz, c.omega.w);
    m.vel_half = vec4<f32>(vh, m.vel_half.w);
    m.omega_half = vec4<f32>(c.turn.xyz, m.omega_half.w);
    motion_put(i, m);
    pos_put(i, vec4<f32>(at.p, pos_at(i).w));
    posfx_put(i, at.fx);
    diss_put(i, diss_at(i) + t.w);
    // the lever [b]x^T I^-1 [b]x with I^-1 = R diag(1/I) R^T, from q(n+1)
    let e0 = quat_rotate(c.q, vec3<f32>(1.0, 0.0, 0.0));
    let e1 = quat_rotate(c.q, vec3<f32>(0.0, 1.0, 0.0));
    let e2 = quat_rotate(c.q, vec3<f32>(0.0, 0.0, 1.0));
    // [b]x^T u = u x b: S = sum_k (e_k x b)(e_k x b)^T / I_k
    let u0 = cross(e0, arm);
    let u1 = cross(e1, arm);
    let u2 = cross(e2, arm);
    let w = 1.0 / c.moments.xyz;
    let xx = w.x * u0.x * u0.x + w.y * u1.x * u1.x + w.z * u2.x * u2.x;
    let yy = w.x * u0.y * u0.y + w.y * u1.y * u1.y + w.z * u2.y * u2.y;
    let zz = w.x * u0.z * u0.z + w.y * u1.z * u1.z + w.z * u2.z * u2.z;
    let xy = w.x * u0.x * u0.y + w.y * u1.x * u1.y + w.z * u2.x * u2.y;
    let xz = w.x * u0.x * u0.z + w.y * u1.x * u1.z + w.z * u2.x * u2.z;
    let yz = w.x * u0.y * u0.z + w.y * u1.y * u1.z + w.z * u2.y * u2.z;
    row.lever_a = vec4<f32>(xx, yy, zz, xy);
    row.lever_b = vec2<f32>(xz, yz);
    clump_row_put(i, row);
    var ok = true;
    for (var k = 0u; k < 3u; k++) {
        ok = ok && is_finite(at.p[k]) && is_finite(vm[k]) && is_finite(c.omega[k]);
    }
    if (!ok) { atomicMin(&ctl[CTL_ERR_NONFINITE], c.info.x); }
    let built = vec3<f32>(bitcast<f32>(pos_ref_word(i, 0u)), bitcast<f32>(pos_ref_word(i, 1u)),
                          bitcast<f32>(pos_ref_word(i, 2u)));
    let d = min_image(P, built, at.p);
    if (dot(d, d) > P.nbr.y) { atomicStore(&ctl[CTL_REBUILD], 1u); }
}

// On a step that rebuilds, after the reorder: each member row's index into
// its clump's place in the rows table.
@compute @workgroup_size(256)
fn clump_rows_follow(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || atomicLoad(&ctl[CTL_FROZEN]) != NONE
        || atomicLoad(&ctl[CTL_REBUILD]) == 0u) { return; }
    let row = clump_row_at(i);
    if (row.body == NONE) { return; }
    clump_rows[clumps[row.body].info.y + row.member] = i;
}
