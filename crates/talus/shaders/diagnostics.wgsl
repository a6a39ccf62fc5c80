// Stage 5, diagnostics: per-workgroup partial sums of the energies, exact
// (`Exact`: 128-bit integers, the same in any order, so the totals do not
// depend on where the particles sit in memory), and the largest speed,
// reconstructed at the full step as in src/cpu/diagnostics.rs. The host
// adds the partials as integers.
// Runs only when an energy row is due, after `integrate` (reads the working set B).
// A particle an outlet has marked (id NONE; dropped at the next build) is
// gone already: it counts nothing, as on the CPU.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> pos_rad: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> dissipated: array<f32>;
@group(0) @binding(3) var<storage, read> motion: array<Motion>;
// the last step's force and torque, words 0..8 of each particle's work
// record (P.level_count.z words; integrate.wgsl keeps them on the last
// step of an `advance`)
@group(0) @binding(4) var<storage, read> work: array<u32>;
// per workgroup (DIAG_WORDS): kinetic_t, kinetic_r, potential, elastic,
// dissipated as exact sums (4 words each), an error word, the largest
// speed's bits
@group(0) @binding(5) var<storage, read_write> partials: array<u32>;
@group(0) @binding(6) var<storage, read> ctl: array<u32, CTL_LEN>;
// the clumps (P.dims.x of them) and each row's part in one: a member row
// counts its contacts' energy; its clump's motion is counted once, by the
// clump (clump_energy.wgsl, with fixed.wgsl and rotor.wgsl, prepended)
@group(0) @binding(7) var<storage, read> clumps: array<Clump>;
@group(0) @binding(8) var<storage, read> clump_row: array<MemberRow>;

var<workgroup> acc: array<atomic<u32>, DIAG_WORDS>;

// Adds the 128-bit `v` to the words at..at + 4 (carries by hand).
fn acc_add(at: u32, v: vec4<u32>) {
    var carry = 0u;
    for (var k = 0u; k < 4u; k++) {
        let add = v[k] + carry;
        let c0 = select(0u, 1u, add < carry);
        if (add == 0u) {
            carry = c0;
            continue;
        }
        let old = atomicAdd(&acc[at + k], add);
        carry = c0 + exact_carry(old, add);
    }
}

@compute @workgroup_size(256)
fn diagnostics(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    if (lid < DIAG_WORDS) { atomicStore(&acc[lid], 0u); }
    workgroupBarrier();
    let i = flat_index(wid, nwg, lid);
    var live = i < ctl[CTL_COUNT];
    if (live) { live = bitcast<u32>(motion_at(i).omega_half.w) != NONE && !is_ghost(motion_at(i)); }
    if (live) {
        let dt = P.gravity_dt.w;
        let g = gravity_at(P, ctl[CTL_STEP]);
        let m = motion_at(i);
        let v = m.vel_invm;
        let om = m.omega_invi;
        let f = work_f32x4(i, 0u);
        let t = work_f32x4(i, 4u);
        let a = f.xyz * v.w + g;
        let v_half = m.vel_half.xyz;
        let vn = v_half - 0.5 * dt * a;
        let wn = m.omega_half.xyz - 0.5 * dt * t.xyz * om.w;
        let xn = pos_rad_at(i).xyz - v_half * dt;
        var e = array<f32, 5>(0.5 / v.w * dot(vn, vn), 0.5 / om.w * dot(wn, wn),
                              -dot(g, xn) / v.w, f.w, dissipated_at(i));
        if (P.dims.x != 0u) {
            if (clump_row_at(i).body != NONE) {
                e[0] = 0.0;
                e[1] = 0.0;
                e[2] = 0.0;
            }
        }
        for (var k = 0u; k < 5u; k++) {
            let x = exact_of(e[k]);
            acc_add(4u * k, x.w);
            if (!x.ok) { atomicStore(&acc[20], 1u); }
        }
        // speeds are >= 0 (or NaN, the largest bits): their bits order as they do
        atomicMax(&acc[21], bitcast<u32>(sqrt(dot(vn, vn))));
    }
    // the clumps, strided over the dispatch (the table keeps those outlets
    // took, and may be longer than the rows are many)
    let threads = nwg.x * nwg.y * WG;
    for (var k = i; k < P.dims.x; k += threads) {
        if (clumps[k].info.x == NONE) { continue; }
        let c = clump_energy_of(clumps[k], gravity_at(P, ctl[CTL_STEP]), ctl[CTL_STEP] != 0u);
        for (var a = 0u; a < 3u; a++) {
            let x = exact_of(c[a]);
            acc_add(4u * a, x.w);
            if (!x.ok) { atomicStore(&acc[20], 1u); }
        }
        atomicMax(&acc[21], bitcast<u32>(c[3]));
    }
    workgroupBarrier();
    if (lid < DIAG_WORDS) {
        partials[(wid.y * nwg.x + wid.x) * DIAG_WORDS + lid] = atomicLoad(&acc[lid]);
    }
}
