// The bonds' part of the contacts stage, twin of src/cpu/bonds.rs (f32
// here, f64 there; law.wgsl, bond_law.wgsl and sums.wgsl prepended). In a
// run with bonds (P.dims.y: the table's length) every pair sum goes
// through the work records (`acc`), as with each pair once, and
// `contacts_walls` finishes every row.
// - `bond_rows`, a thread per row, after the sort's reorder on a step that
//   rebuilds (rows move only then) and once for a new table: its id's row
//   in `bond_row_of`, for the bonds to find their particles (ids past the
//   map are those inserted after the bonds formed: none of theirs; a
//   removed particle's stale entry fails `bond_row`'s id test).
// - `bonds`, a thread per bond: an intact bond's law in its canonical
//   orientation (lower id as a), its force and torques and half its
//   strain energy and of what it dissipated added to both particles' sums
//   (exact in any order, so the bond's order in the table and the rows'
//   order change no bit); its new state and status written back. A bond
//   whose particle left (no row holds its id any more) is gone, and what
//   it held is released to the one that stayed.

struct Bond {
    ids: vec2<u32>,
    // the [[bonds]] entry (low 16 bits), the status (high 16 bits)
    info: u32,
    length: f32,
    // F_s (xyz), F_n (w)
    shear_normal: vec4<f32>,
    // M_b (xyz), M_t (w)
    bend_twist: vec4<f32>,
}

// A [[bonds]] entry: k = (E, stiffness ratio, radius ratio, damping),
// strength = (sigma_c, tau_c (< 0: never), 0, 0).
struct BondSpec {
    k: vec4<f32>,
    strength: vec4<f32>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
@group(0) @binding(2) var<storage, read> bond_specs: array<BondSpec>;
@group(0) @binding(3) var<storage, read_write> bond_table: array<Bond>;
@group(0) @binding(4) var<storage, read_write> bond_row_of: array<u32>;

@group(1) @binding(0) var<storage, read> pos_rad: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read> motion: array<Motion>;
@group(1) @binding(2) var<storage, read_write> acc: array<atomic<u32>>;
@group(1) @binding(3) var<storage, read_write> acc_bad: array<atomic<u32>>;

fn id_of(m: Motion) -> u32 {
    return bitcast<u32>(m.omega_half.w);
}

@compute @workgroup_size(256)
fn bond_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    let id = id_of(motion_at(i));
    if (id < arrayLength(&bond_row_of)) { bond_row_of[id] = i; }
}

// The row of particle `id` now, or NONE when it left the run.
fn bond_row(id: u32) -> u32 {
    if (id >= arrayLength(&bond_row_of)) { return NONE; }
    let r = bond_row_of[id];
    if (r >= atomicLoad(&ctl[CTL_COUNT])) { return NONE; }
    if (id_of(motion_at(r)) != id) { return NONE; }
    return r;
}

// Adds force f, torque t and the energy shares to row r's sums.
fn bond_add(r: u32, f: vec3<f32>, t: vec3<f32>, elastic: f32, diss: f32) {
    let m = motion_at(r);
    var s = NO_SUMS;
    sums_add(&s, f, t);
    sums_energy(&s, elastic, diss, energy_unit(m.vel_invm.w, pos_rad_at(r).w));
    acc_add_sums(r, s);
}

@compute @workgroup_size(256)
fn bonds(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if (k >= P.dims.y || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    var bd = bond_table[k];
    if ((bd.info >> 16u) != BOND_INTACT) { return; }
    let spec = bond_specs[bd.info & 0xffffu];
    let ra = bond_row(bd.ids.x);
    let rb = bond_row(bd.ids.y);
    let pa = pos_rad_at(select(ra, 0u, ra == NONE));
    let pb = pos_rad_at(select(rb, 0u, rb == NONE));
    let kn = spec.k.x / bd.length;
    let bp = BondParams(vec4<f32>(kn, kn / spec.k.y, spec.k.z * min(pa.w, pb.w), spec.k.w),
                        spec.strength);
    let old = BondState(vec2<f32>(bd.shear_normal.w, bd.bend_twist.w), bd.shear_normal.xyz,
                        bd.bend_twist.xyz);
    if (ra == NONE || rb == NONE) {
        // a particle left: what the bond held goes to the one that stayed
        let pi = 3.141592653589793;
        let r = bp.k.z;
        let i2 = 0.25 * pi * r * r * r * r;
        let held = bond_energy(kn * pi * r * r, bp.k.y * pi * r * r, bp.k.y * 2.0 * i2,
                               kn * i2, old);
        let z = vec3<f32>(0.0);
        if (ra != NONE) { bond_add(ra, z, z, 0.0, held); }
        if (rb != NONE) { bond_add(rb, z, z, 0.0, held); }
        bd.info = (bd.info & 0xffffu) | (BOND_GONE << 16u);
        bond_table[k] = bd;
        return;
    }
    let ma = motion_at(ra);
    let mb = motion_at(rb);
    let d = min_image(P, pa.xyz, pb.xyz);
    let dist = sqrt(dot(d, d));
    let n = d * (1.0 / dist);
    let res = bond_law(bp, P.gravity_dt.w, body(ma, pa.w), body(mb, pb.w), n, dist, old);
    let e = 0.5 * res.elastic;
    let q = 0.5 * res.dissipated;
    bond_add(ra, res.force_a, res.torque_a, e, q);
    bond_add(rb, -res.force_a, res.torque_b, e, q);
    bd.info = (bd.info & 0xffffu) | (res.broke << 16u);
    bd.shear_normal = vec4<f32>(res.state.shear, res.state.nt.x);
    bd.bend_twist = vec4<f32>(res.state.bend, res.state.nt.y);
    bond_table[k] = bd;
}
