// Stage 4, contacts: each particle gathers over its neighbour-list row,
// the particle candidates and then the wall primitives within reach (WALL
// entries), and sums its own force and torque. Pairs are evaluated in their
// canonical orientation (lower id first; walls from the particle) so both
// partners compute the same numbers. A contact's tangential history sits
// beside its list entry (each partner of a pair keeps a copy, the same
// bits). Twin of src/cpu/contacts.rs; the
// law itself is law.wgsl (prepended), twin of src/cpu/law.rs.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
@group(0) @binding(2) var<storage, read> nbr_start: array<u32>;
// The entries (index and HAS_HISTORY flag), updated in place by their
// particle's thread when a contact starts or ends.
@group(0) @binding(3) var<storage, read_write> nbr: array<u32>;
@group(0) @binding(4) var<storage, read> pairs: array<Pair>;
@group(0) @binding(5) var<storage, read> walls: array<Wall>;

@group(1) @binding(0) var<storage, read> pos_rad: array<vec4<f32>>;
// Everything else a partner in contact is read for: one 64-byte record.
@group(1) @binding(1) var<storage, read> motion: array<Motion>;

@group(2) @binding(0) var<storage, read_write> force: array<vec4<f32>>;
@group(2) @binding(1) var<storage, read_write> torque: array<vec4<f32>>;
// The history beside each list entry: only the entry's particle reads or
// writes it.
@group(2) @binding(2) var<storage, read_write> nbr_hist: array<vec4<f32>>;

@compute @workgroup_size(256)
fn contacts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    let xi_pos = pos_rad[i].xyz;
    let ri = pos_rad[i].w;
    let mi = motion[i];
    let id_i = bitcast<u32>(mi.omega_half.w);
    let mat_i = bitcast<u32>(mi.vel_half.w);
    var f = vec3<f32>(0.0);
    var t = vec3<f32>(0.0);
    var elastic = 0.0;
    var diss = 0.0;
    var max_ratio = 0.0;
    let me = body(mi, ri);
    let end = nbr_start[i + 1u];
    // the row: particle entries, then the wall primitives within reach
    // (WALL, in primitive order): two loops, so the particles' loop carries
    // no branch on the kind (a branch there cost 15 % of the stage on
    // lavapipe)
    let begin = nbr_start[i];
    var walls_from = end;
    while (walls_from > begin && (nbr[walls_from - 1u] & WALL) != 0u) { walls_from--; }
    for (var e = begin; e < walls_from; e++) {
        let entry = nbr[e];
        let j = entry & INDEX;
        let had = (entry & HAS_HISTORY) != 0u;
        let pj = pos_rad[j];
        let d = min_image(P, xi_pos, pj.xyz);
        let d2 = dot(d, d);
        let rsum = ri + pj.w;
        if (d2 >= rsum * rsum) {
            // not in contact: no history (written only when there was some)
            if (had) {
                nbr_hist[e] = vec4<f32>(0.0);
                nbr[e] = j;
            }
            continue;
        }
        let mj = motion[j];
        let id_j = bitcast<u32>(mj.omega_half.w);
        let mat_j = bitcast<u32>(mj.vel_half.w);
        let i_is_a = id_i < id_j;
        let dist = sqrt(d2);
        let overlap = rsum - dist;
        // without the flag the entry's history is zero: not read
        var hist = vec4<f32>(0.0);
        if (had) { hist = nbr_hist[e]; }
        var r: PairResult;
        if (i_is_a) {
            let pp = pairs[mat_i * P.sizes.w + mat_j];
            r = pair_law(pp, me, body(mj, pj.w), d * (1.0 / dist), overlap, hist);
            f = f + r.force_a;
            t = t + r.torque_a;
        } else {
            let pp = pairs[mat_j * P.sizes.w + mat_i];
            r = pair_law(pp, body(mj, pj.w), me, -d * (1.0 / dist), overlap, hist);
            f = f - r.force_a;
            t = t + r.torque_b;
        }
        elastic += 0.5 * r.elastic;
        diss += 0.5 * r.dissipated;
        max_ratio = max(max_ratio, overlap / min(ri, pj.w));
        let h = vec4<f32>(r.xi, r.kt);
        nbr_hist[e] = h;
        let has = any(h != vec4<f32>(0.0));
        if (has != had) { nbr[e] = select(j, j | HAS_HISTORY, has); }
    }
    for (var e = walls_from; e < end; e++) {
        let entry = nbr[e];
        let j = entry & INDEX;
        let had = (entry & HAS_HISTORY) != 0u;
        // a wall primitive (the row's last entries, in primitive order)
        let wall = walls[j];
        let g = wall_gap(wall, xi_pos);
        let overlap = ri - g.dist;
        if (overlap <= 0.0) {
            // not in contact: no history (written only when there was some)
            if (had) {
                nbr_hist[e] = vec4<f32>(0.0);
                nbr[e] = entry & ~HAS_HISTORY;
            }
            continue;
        }
        let wb = Body(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), -1.0, 0.0, 0.0);
        let pp = pairs[mat_i * P.sizes.w + wall.material];
        var hist = vec4<f32>(0.0);
        if (had) { hist = nbr_hist[e]; }
        let r = pair_law(pp, me, wb, g.normal, overlap, hist);
        f = f + r.force_a;
        t = t + r.torque_a;
        elastic += r.elastic;
        diss += r.dissipated;
        max_ratio = max(max_ratio, overlap / ri);
        let h = vec4<f32>(r.xi, r.kt);
        nbr_hist[e] = h;
        let has = any(h != vec4<f32>(0.0));
        if (has != had) { nbr[e] = select(entry & ~HAS_HISTORY, entry | HAS_HISTORY, has); }
    }
    force[i] = vec4<f32>(f, elastic);
    torque[i] = vec4<f32>(t, diss);
    atomicMax(&ctl[CTL_MAX_OVERLAP], bitcast<u32>(max_ratio));
    if (max_ratio > P.linear.w) { atomicMin(&ctl[CTL_ERR_OVERLAP], id_i); }
}
