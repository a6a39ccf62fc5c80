// Stage 5, integrate: velocity Verlet with the predicted full-step velocity
// (see src/cpu/integrate.rs for the scheme), in place on set B: each thread
// reads and writes its own particle only (no other thread reads them in this
// dispatch). Flags a neighbour-list rebuild for the next step when the
// particle has moved more than skin / 2 since the last build. Also
// `finish_step`: one thread that either counts the step or, if a kernel
// flagged an error, freezes the run at this step.
// The outlets are tested here too, on the new centre (no pass of their
// own): a particle the first outlet takes (the open domain last, the order
// of `OutletSet::which`) is marked removed as `GpuBackend::remove` marks
// (its id lane becomes NONE; the next step's build drops it), asks for that
// build, and appends a record to the flow log with its mass and its energy
// as diagnostics.wgsl counts it at the end of this step. Twin of
// `Step::drain_outlets`.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
// each particle's work record (P.level_count.z words): this step's force
// and torque in words 0..8 (contacts.wgsl, `put_force`); with pair sums
// (ACC_WORDS words) zeroed here for the next step's sums, but on the last
// step of an `advance` (ctl[CTL_LOADS_AT]), whose forces diagnostics
// reads (the host clears them before the next: `clear_kept_forces`)
@group(0) @binding(2) var<storage, read_write> work: array<u32>;
// the positions at the last build, 3 f32 words a particle
@group(0) @binding(3) var<storage, read> pos_ref: array<u32>;
// the walls' motion and pose (`move_walls` poses them for the next step)
@group(0) @binding(4) var<storage, read> wall_motion: array<WallMotion>;
@group(0) @binding(5) var<storage, read_write> wall_pose: array<WallPose>;
// the outlets, in order (the open domain last), and the flow log
@group(0) @binding(6) var<storage, read> outlets: array<OutletRegion>;
@group(0) @binding(7) var<storage, read_write> flow_log: array<FlowRecord>;

// Set B, updated in place: thread i reads and writes element i only.
// v*, ω* (with 1/m, 1/I) live in the motion record only.
@group(1) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> diss: array<f32>;
@group(1) @binding(2) var<storage, read_write> motion: array<Motion>;
@group(1) @binding(3) var<storage, read_write> posfx: array<array<u32, FX_WORDS>>;
// each row's part in a clump (read when the run has clumps: P.dims.x)
@group(1) @binding(4) var<storage, read> clump_row: array<MemberRow>;

// finish_step only: the indirect dispatches' slots and workgroup counts,
// armed for the next step (as bin.wgsl's `arm_rebuild`)
@group(2) @binding(0) var<storage, read> slots: array<ArgSlot>;
@group(2) @binding(1) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(256)
fn integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    // contacts of this step failed: leave the state as it is
    if (atomicLoad(&ctl[CTL_ERR_OVERLAP]) != NONE) { return; }
    // a clump's member moves with its clump (clumps.wgsl), which reads
    // its force first
    if (P.dims.x != 0u) {
        if (clump_row_at(i).body != NONE) { return; }
    }
    let dt = P.gravity_dt.w;
    let g = gravity_at(P, atomicLoad(&ctl[CTL_STEP]));
    let f = work_f32x4(i, 0u);
    let t = work_f32x4(i, 4u);
    if (P.level_count.z == ACC_WORDS && atomicLoad(&ctl[CTL_STEP]) != atomicLoad(&ctl[CTL_LOADS_AT])) {
        for (var w = 0u; w < 8u; w++) { work_word_put(i, w, 0u); }
    }
    let x = pos_at(i);
    var m = motion_at(i);
    // a ghost takes its owner's state after the step (ghosts.wgsl)
    if (is_ghost(m)) { return; }
    // v* and 1/m, ω* and 1/I: the state's own (no other copy)
    let v = m.vel_invm;
    let om = m.omega_invi;
    var a = f.xyz * v.w + g;
    var al = t.xyz * om.w;
    // v(n-1/2): stored, or on the first step v(0) - a(0) dt/2
    var v_prev = m.vel_half.xyz;
    var w_prev = m.omega_half.xyz;
    if (atomicLoad(&ctl[CTL_STEP]) == 0u) {
        v_prev = v.xyz - 0.5 * a * dt;
        w_prev = om.xyz - 0.5 * al * dt;
    }
    // held by [[fixed]]: at rest where it is (its forces are summed all
    // the same)
    if (material_of(m) >= P.models.y) {
        a = vec3<f32>(0.0);
        al = vec3<f32>(0.0);
        v_prev = vec3<f32>(0.0);
        w_prev = vec3<f32>(0.0);
    }
    let v_half = v_prev + a * dt;
    // x += v_half dt in 64-bit fixed point; periodic axes wrap by exactly
    // 2^40 units (the domain length), i.e. 256 in the high word
    let moved_fx = fx_move(posfx_at(i), v_half * dt);
    let fx = moved_fx.fx;
    let p = moved_fx.p;
    let v_new = v_half + 0.5 * a * dt;
    let w_half = w_prev + al * dt;
    let om_new = w_half + 0.5 * al * dt;
    pos_put(i, vec4<f32>(p, x.w));
    m.vel_invm = vec4<f32>(v_new, v.w);
    m.omega_invi = vec4<f32>(om_new, om.w);
    m.vel_half = vec4<f32>(v_half, m.vel_half.w);
    m.omega_half = vec4<f32>(w_half, m.omega_half.w);
    let id = bitcast<u32>(m.omega_half.w);
    let d_new = diss_at(i) + t.w;
    // an outlet takes it (a particle already marked is not taken twice)
    var out = NONE;
    if (id != NONE) { out = outlet_of(p); }
    if (out != NONE) {
        // its energy at the end of this step, as diagnostics.wgsl counts it
        // (gravity of the next step, the full-step velocities)
        let gn = gravity_at(P, atomicLoad(&ctl[CTL_STEP]) + 1u);
        let an = f.xyz * v.w + gn;
        let vn = v_half - 0.5 * dt * an;
        let wn = w_half - 0.5 * dt * t.xyz * om.w;
        let xn = p - v_half * dt;
        let e = 0.5 / v.w * dot(vn, vn) + 0.5 / om.w * dot(wn, wn) - dot(gn, xn) / v.w
            + f.w + d_new;
        // NONE (from a runtime value: a constant NaN is refused by WGSL)
        m.omega_half.w = bitcast<f32>(id | NONE);
        atomicStore(&ctl[CTL_REBUILD], 1u);
        let k = atomicAdd(&ctl[CTL_LOG], 1u);
        if (k < arrayLength(&flow_log)) {
            flow_log[k] = FlowRecord(id, LOG_REMOVED | out, atomicLoad(&ctl[CTL_STEP]) + 1u,
                                     bitcast<u32>(1.0 / v.w), e);
        }
    }
    motion_put(i, m);
    diss_put(i, d_new);
    posfx_put(i, fx);
    var ok = true;
    for (var k = 0u; k < 3u; k++) {
        ok = ok && is_finite(p[k]) && is_finite(v_new[k]) && is_finite(om_new[k]);
    }
    if (!ok) { atomicMin(&ctl[CTL_ERR_NONFINITE], id); }
    let built = vec3<f32>(bitcast<f32>(pos_ref_word(i, 0u)), bitcast<f32>(pos_ref_word(i, 1u)),
                          bitcast<f32>(pos_ref_word(i, 2u)));
    let moved = min_image(P, built, p);
    if (dot(moved, moved) > P.nbr.y) { atomicStore(&ctl[CTL_REBUILD], 1u); }
}

// Last of a step, one workgroup: thread 0 counts the step or, if a kernel
// flagged an error, freezes the run at it; then the moving walls, a thread
// per wall; then the next step's indirect dispatches are armed, a thread
// per slot (the rebuild flag final by then). Three launches before.
@compute @workgroup_size(64)
fn finish_step(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u && atomicLoad(&ctl[CTL_FROZEN]) == NONE) {
        let failed = atomicLoad(&ctl[CTL_ERR_OVERLAP]) != NONE
            || atomicLoad(&ctl[CTL_ERR_NONFINITE]) != NONE;
        if (failed) {
            atomicStore(&ctl[CTL_FROZEN], atomicLoad(&ctl[CTL_STEP]));
        } else {
            atomicAdd(&ctl[CTL_STEP], 1u);
        }
    }
    storageBarrier();
    if (atomicLoad(&ctl[CTL_FROZEN]) == NONE) { move_walls(lid); }
    storageBarrier();
    let frozen = atomicLoad(&ctl[CTL_FROZEN]);
    let rebuild = frozen == NONE && atomicLoad(&ctl[CTL_REBUILD]) != 0u;
    let loads = loads_due(P.nbr.z, frozen, atomicLoad(&ctl[CTL_LOADS_AT]), atomicLoad(&ctl[CTL_STEP]));
    let count = atomicLoad(&ctl[CTL_COUNT]);
    for (var k = lid; k < arrayLength(&slots); k += 64u) {
        let g = slot_groups(slots[k], count, rebuild, loads);
        args[3u * k] = g.x;
        args[3u * k + 1u] = g.y;
        args[3u * k + 2u] = g.z;
    }
}

// Thread `lid`'s walls (strided), after the step is counted: the servo's
// speed from the load this step's contacts reduced, max_speed * clamp((target -
// F) / target, -1, 1) with F the force the wall exerts on the particles
// along its direction, its displacement advanced; the pose at the next
// step's time; a rebuild of the list when the wall has moved more than
// skin / 2 since the last build. Twin of `WallSet::advance`.
fn move_walls(lid: u32) {
    let dt = P.gravity_dt.w;
    let t = f32(atomicLoad(&ctl[CTL_STEP])) * dt;
    for (var w = lid; w < P.sizes.y; w += 64u) {
        let m = wall_motion[w];
        if (m.extra.z == 0.0) { continue; }
        let old = wall_pose[w];
        var s = old.servo.xy;
        if (m.servo.w != 0.0) {
            let push = -dot(old.force.xyz, m.servo.xyz);
            s.y = m.extra.x * clamp((m.servo.w - push) / m.servo.w, -1.0, 1.0);
            s.x = s.x + s.y * dt;
        }
        var p = pose_at(m, t, s);
        p.built = old.built;
        p.force = old.force;
        p.torque = old.torque;
        let moved = length(p.origin.xyz - m.axis_point.xyz - old.built.xyz)
            + abs(p.origin.w - old.built.w) * m.extra.y;
        if (moved > 0.5 * P.nbr.x) { atomicStore(&ctl[CTL_REBUILD], 1u); }
        wall_pose[w] = p;
    }
}
