// Stage 4, contacts. Each pair once (`pairs_once`): a particle's
// neighbour-list row holds its partners of higher id (the build's
// `holds`), then the wall primitives within reach (WALL entries).
// `contacts` evaluates each pair of the row in its canonical orientation
// (lower id first) and adds the result to both partners' sums (`acc`) as
// 64-bit fixed point through integer atomics: exact, so a sum is the same
// whatever the order the pairs arrive in. `contacts_walls` then takes each
// particle's sums, adds its wall entries and writes force and torque
// (into the same record, `acc`: integrate zeroes them). A
// contact's history (tangential, and rolling in epsd/epsd2: `Hist`) sits beside its list entry (one copy: the
// pair's). Else each pair from both sides: a row holds every partner,
// `contacts` sums a particle's own pairs (the same numbers, the same fixed
// point: the same bits) and writes it at once; each side keeps a copy of
// the history, with the same bits. Twin of src/cpu/contacts.rs (both
// sides, f64); the law itself is law.wgsl (prepended), twin of
// src/cpu/law.rs.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
@group(0) @binding(2) var<storage, read> nbr_start: array<u32>;
// The entries (index and HAS_HISTORY flag), updated in place by their
// particle's thread when a contact starts or ends.
@group(0) @binding(3) var<storage, read_write> nbr: array<u32>;
@group(0) @binding(4) var<storage, read> pairs: array<Pair>;
@group(0) @binding(5) var<storage, read> walls: array<Wall>;
// per scene wall: its motion, its pose at this step (the loads reduced
// into it) and the loads' exact sums (WALL_ACC_WORDS words, zero between
// steps)
@group(0) @binding(6) var<storage, read> wall_motion: array<WallMotion>;
@group(0) @binding(7) var<storage, read_write> wall_pose: array<WallPose>;
@group(0) @binding(8) var<storage, read_write> wall_acc: array<atomic<u32>>;

@group(1) @binding(0) var<storage, read> pos_rad: array<vec4<f32>>;
// Everything else a partner in contact is read for: one 64-byte record.
@group(1) @binding(1) var<storage, read> motion: array<Motion>;
// Each row's part in a clump (read when the run has clumps, P.dims.x): a
// member's lever adds to its body's 1/M at each contact (`lever_along`).
@group(1) @binding(2) var<storage, read> clump_row: array<MemberRow>;

// The history beside each list entry: only the entry's particle reads or
// writes it. The list's arrays may span several buffers: reached through
// nbr_at, nbr_put, nbr_hist_at, nbr_hist_put (src/gpu/pages.rs).
@group(2) @binding(0) var<storage, read_write> nbr_hist: array<Hist>;
// The FEM bodies' deforming surfaces (surfaces.wgsl): their sizes, step0
// and force unit; the nodes' x0, then v, then built; per surface triangle its nodes
// and primitive; and the grains' force on each node summed over the
// interval as 64-bit fixed point, two words (lo, hi) per component, six
// per node, then an error word (non-zero: a value overflowed).
@group(2) @binding(1) var<uniform> S: SurfInfo;
@group(2) @binding(2) var<storage, read> surf_nodes: array<vec4<f32>>;
@group(2) @binding(3) var<storage, read> surf_tris: array<vec4<u32>>;
@group(2) @binding(4) var<storage, read_write> surf_force: array<atomic<u32>>;
// Each particle's work record (P.level_count.z words). With pair sums
// (ACC_WORDS words: Sums.q's 12 and Sums.e's 4), both partners of each of
// its pairs add to them through integer atomics, and `contacts_walls`
// takes them (zero again) and writes the particle's force and torque
// (f32, words 0..4 and 4..8: `put_force`), which integrate reads and
// zeroes. From both sides (8 words), `contacts` writes force and torque
// there at once. Reached through acc_add, acc_take and acc_store
// (src/gpu/pages.rs).
@group(2) @binding(5) var<storage, read_write> acc: array<atomic<u32>>;
// Two bits a particle, 16 particles a word: a force or torque term out of
// range (bit 0), an energy term out of range (bit 1).
@group(2) @binding(6) var<storage, read_write> acc_bad: array<atomic<u32>>;

// How close (x the radius) a closest point must be to another triangle to
// lie on it, and two distances to tie (src/cpu/wall_contacts.rs,
// MESH_TIE).
const MESH_TIE: f32 = 1e-4;
// Within this kernel only: marks a mesh entry counted this step until the
// run's second pass (primitive indices stay below 2^29).
const KEPT: u32 = 0x20000000u;
const PRIM: u32 = 0x1fffffffu;

// The barycentric weights of p (on triangle a, b, c or near it): three
// weights >= 0 summing to 1, a point off the triangle clamped onto it, a
// degenerate triangle a third each (twin of `walls::surface::barycentric`,
// line by line).
fn barycentric(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    let e1 = b - a;
    let e2 = c - a;
    let d = p - a;
    let aa = dot(e1, e1);
    let bb = dot(e1, e2);
    let cc = dot(e2, e2);
    let p1 = dot(d, e1);
    let p2 = dot(d, e2);
    let det = aa * cc - bb * bb;
    if (!(det > 1e-30 * aa * cc)) { return vec3<f32>(1.0 / 3.0); }
    var u = max((cc * p1 - bb * p2) / det, 0.0);
    var v = max((aa * p2 - bb * p1) / det, 0.0);
    let s = u + v;
    if (s > 1.0) {
        u = u / s;
        v = v / s;
    }
    return vec3<f32>(1.0 - u - v, u, v);
}

// Adds `scaled` (a force component times S.scale.x), rounded toward zero,
// to the 64-bit fixed-point sum at words (at, at + 1) = (lo, hi): integer
// atomics with the carry by hand, so the sum is exact and the same in any
// order (no float atomics). The magnitude splits exactly in f32 (it has a
// 24-bit mantissa: below 2^32 it is the low word itself, above it its low
// word is a multiple of 2^9 below 2^32), the sign by two's complement.
// |scaled| >= 2^62 (or not finite) sets the error word instead.
fn add_fixed(at: u32, scaled: f32) {
    let x = fixed_of(scaled);
    if (!x.ok) {
        atomicStore(&surf_force[6u * S.sizes.x], 1u);
        return;
    }
    let lo = x.w.x;
    let hi = x.w.y;
    let old = atomicAdd(&surf_force[at], lo);
    let carry = select(0u, 1u, old + lo < old);
    atomicAdd(&surf_force[at + 1u], hi + carry);
}

// Force f to surface node k's sum (words 6k .. 6k + 6).
fn add_node_force(k: u32, f: vec3<f32>) {
    for (var c = 0u; c < 3u; c++) {
        add_fixed(6u * k + 2u * c, f[c] * S.scale.x);
    }
}

// What a run of wall entries adds: the particle's sums (carried in, so
// the additions are in the row's order) and the load on the wall (force
// on it, torque about its moved axis point).
struct RunOut {
    f: vec3<f32>,
    t: vec3<f32>,
    load_f: vec3<f32>,
    load_t: vec3<f32>,
    elastic: f32,
    diss: f32,
    max_ratio: f32,
}

// Whether a wall entry's primitive at gap `dist` from the centre is near
// enough to be a contact (twin of `wall_contacts::reach_of`): within the
// radius, or for an entry with history within P.contact.x past it. The
// history flag as it was at the step's start: an entry already evaluated
// this step carries KEPT (it was near enough) and its new flag.
fn wall_in_reach(entry: u32, dist: f32, ri: f32) -> bool {
    if ((entry & KEPT) != 0u) { return true; }
    return dist < ri + select(0.0, P.contact.x, (entry & HAS_HISTORY) != 0u);
}

// Whether mesh entry e of the run lo..hi counts as a contact (twin of
// `wall_contacts::keeps`): two entries whose closest points are the same
// point at the same distance are one contact, the earlier's; else a face
// contact counts, and an edge or vertex contact unless its closest point
// lies on another triangle of the run in contact (no distances compared).
fn mesh_keeps(e: u32, lo: u32, hi: u32, xb: vec3<f32>, ri: f32) -> bool {
    let g = wall_gap(walls[nbr_at(e) & PRIM], xb);
    if (!wall_in_reach(nbr_at(e), g.dist, ri)) { return false; }
    let face = g.feature == 0u;
    let tol = MESH_TIE * ri;
    let cp = xb + g.normal * g.dist;
    for (var q = lo; q < hi; q++) {
        if (q == e) { continue; }
        let wq = walls[nbr_at(q) & PRIM];
        let gq = wall_gap(wq, xb);
        if (!wall_in_reach(nbr_at(q), gq.dist, ri)) { continue; }
        // the same point (a shared edge or vertex): the earlier entry
        // carries it; else the nearer triangle that holds it
        let cq = xb + gq.normal * gq.dist;
        let same = abs(gq.dist - g.dist) <= tol && distance(cq, cp) <= tol;
        if (same) {
            // a shared edge or vertex: the earlier entry carries it
            if (q < e) { return false; }
            continue;
        }
        // a triangle holding this edge or vertex point is at least as near:
        // it carries the contact, unless the two hold each other's points
        // and this entry is the earlier
        if (!face && on_triangle(wq, cp, tol)
            && !(gq.feature != 0u && e < q && on_triangle(walls[nbr_at(e) & PRIM], cq, tol))) {
            return false;
        }
    }
    return true;
}

// The wall entries lo..hi of one scene wall (twin of `wall_contacts::run`):
// the particle taken into the wall's body frame, each counted contact
// through the law with the wall's velocity at the contact point; a mesh's
// new contact takes over the history of an entry that had one and no longer
// counts. `dry`: nothing written (the loads' pass).
fn wall_run(lo: u32, hi: u32, xi: vec3<f32>, ri: f32, me: Body, lever: MemberRow, mat_i: u32,
            dry: bool, nodes: bool, acc_in: RunOut) -> RunOut {
    var o = acc_in;
    let first = walls[nbr_at(lo) & PRIM];
    let b = first.wall;
    let pose = wall_pose[b];
    let moving = pose.rot.z != 0.0;
    let mesh = first.kind == WALL_TRIANGLE;
    var xb = xi;
    if (moving) { xb = to_body(pose, wall_motion[b], xi); }
    for (var e = lo; e < hi; e++) {
        let entry = nbr_at(e);
        let j = entry & PRIM;
        let had = (entry & HAS_HISTORY) != 0u;
        let wall = walls[j];
        let g = wall_gap(wall, xb);
        var keep = wall_in_reach(entry, g.dist, ri);
        if (mesh && keep) { keep = mesh_keeps(e, lo, hi, xb, ri); }
        if (!keep) {
            // an analytic wall's entry out of contact loses its history
            // now; a mesh's in the second pass (it may be a donor)
            if (!dry && !mesh && had) {
                nbr_hist_put(e, Hist());
                nbr_put(e, entry & ~HAS_HISTORY);
            }
            continue;
        }
        var hist = Hist();
        if (had) {
            hist = nbr_hist_at(e);
        } else if (mesh) {
            for (var q = lo; q < hi; q++) {
                let eq = nbr_at(q);
                if (q != e && (eq & HAS_HISTORY) != 0u && (eq & KEPT) == 0u
                    && !mesh_keeps(q, lo, hi, xb, ri)) {
                    hist = nbr_hist_at(q);
                    break;
                }
            }
        }
        let overlap = ri - g.dist;
        var n = g.normal;
        if (moving) { n = dir_to_world(pose, wall_motion[b], n); }
        let cp = xi + n * (ri - 0.5 * overlap);
        var wb = Body(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), -1.0, 0.0, 0.0);
        if (moving) {
            let v = wall_velocity_at(pose, cp);
            wb.vel = v;
            wb.vel_half = v;
        }
        // a deforming surface's triangle (b.w = 1 + its index; the lane is
        // the side of a cylinder or cone): the velocity at its closest
        // point from its vertices' (barycentric)
        var tri = vec4<u32>(NONE);
        var bw = vec3<f32>(0.0);
        if (wall.kind == WALL_TRIANGLE && wall.b.w > 0.5) {
            tri = surf_tris[u32(wall.b.w) - 1u];
            let on = xb + g.normal * g.dist;
            bw = barycentric(wall.a.xyz, wall.b.xyz, wall.c.xyz, on);
            let nv = S.sizes.x;
            let v = surf_nodes[nv + tri.x].xyz * bw.x + surf_nodes[nv + tri.y].xyz * bw.y
                + surf_nodes[nv + tri.z].xyz * bw.z;
            wb.vel = v;
            wb.vel_half = v;
        }
        let pp = pairs[mat_i * P.sizes.w + wall.material];
        // a clump's member: its body's inverse mass at this contact point
        var mb = me;
        if (P.dims.x != 0u) { mb.inv_mass += lever_along(lever, n); }
        let r = pair_law(pp, mb, wb, n, overlap, hist.t, hist_roll(hist));
        o.f = o.f + r.force_a;
        o.t = o.t + r.torque_a;
        o.elastic += r.elastic;
        o.diss += r.dissipated;
        o.max_ratio = max(o.max_ratio, overlap / ri);
        let on_wall = -r.force_a;
        o.load_f = o.load_f + on_wall;
        o.load_t = o.load_t + cross(cp - pose.origin.xyz, on_wall);
        if (!dry && nodes && tri.x != NONE) {
            // the force on the triangle to its nodes, with the weights
            add_node_force(tri.x, on_wall * bw.x);
            add_node_force(tri.y, on_wall * bw.y);
            add_node_force(tri.z, on_wall * bw.z);
        }
        if (!dry) {
            let h = vec4<f32>(r.xi, r.kt);
            nbr_hist_put(e, hist_new(h, r.roll));
            let has = any(h != vec4<f32>(0.0)) || any(r.roll != vec3<f32>(0.0));
            var ne = select(entry & ~HAS_HISTORY, entry | HAS_HISTORY, has);
            if (mesh) { ne = ne | KEPT; }
            if (ne != entry) { nbr_put(e, ne); }
        }
    }
    if (!dry && mesh) {
        // the mesh's entries that do not count lose their history, after
        // the new contacts took it over
        for (var e = lo; e < hi; e++) {
            let entry = nbr_at(e);
            if ((entry & KEPT) != 0u) {
                nbr_put(e, entry & ~KEPT);
            } else if ((entry & HAS_HISTORY) != 0u) {
                nbr_hist_put(e, Hist());
                nbr_put(e, entry & ~HAS_HISTORY);
            }
        }
    }
    return o;
}

// The particle i in its row: position, radius, body, id, material, and
// the unit of its energy sums (units per J).
struct Me {
    x: vec3<f32>,
    r: f32,
    b: Body,
    id: u32,
    mat: u32,
    eu: f32,
    // a copy of another rank's particle: its forces on a deforming
    // surface's nodes are its owner's to add
    ghost: bool,
    // its part in a clump (zero lever: a sphere)
    row: MemberRow,
}

// Row i's part in a clump: a sphere's (no lever) when the run has none.
fn row_of(i: u32) -> MemberRow {
    if (P.dims.x == 0u) { return MemberRow(vec4<f32>(0.0), vec2<f32>(0.0), NONE, 0u); }
    return clump_row_at(i);
}

fn me_of(i: u32) -> Me {
    let mi = motion_at(i);
    let ri = pos_rad_at(i).w;
    return Me(pos_rad_at(i).xyz, ri, body(mi, ri), bitcast<u32>(mi.omega_half.w),
              material_of(mi), energy_unit(mi.vel_invm.w, ri), is_ghost(mi), row_of(i));
}

// The first wall entry of the row begin..end (end when it has none): wall
// primitives trail the particle entries.
fn walls_start(begin: u32, end: u32) -> u32 {
    var w = end;
    while (w > begin && (nbr_at(w - 1u) & WALL) != 0u) { w--; }
    return w;
}

// One particle entry e of i's row: the pair through the law (in its
// canonical orientation) when in contact, its share into `s` and the
// partner's into the partner's sums (`acc`); the history beside the entry
// and its flag kept up to date.
fn particle_entry(e: u32, me: Me, s: ptr<function, Sums>) {
        let xi_pos = me.x;
        let ri = me.r;
        let id_i = me.id;
        let mat_i = me.mat;
        let entry = nbr_at(e);
        let j = entry & INDEX;
        let had = (entry & HAS_HISTORY) != 0u;
        let pj = pos_rad_at(j);
        let d = min_image(P, xi_pos, pj.xyz);
        let d2 = dot(d, d);
        let rsum = ri + pj.w;
        // an entry with history: a contact out to P.contact.x (JKR: the law
        // parts it past its separation)
        let lim = rsum + select(0.0, P.contact.x, had);
        if (d2 >= lim * lim) {
            // not in contact: no history (written only when there was some)
            if (had) {
                nbr_hist_put(e, Hist());
                nbr_put(e, j);
            }
            return;
        }
        let mj = motion_at(j);
        let id_j = bitcast<u32>(mj.omega_half.w);
        let mat_j = material_of(mj);
        let i_is_a = id_i < id_j;
        let dist = sqrt(d2);
        let overlap = rsum - dist;
        // without the flag the entry's history is zero: not read
        var hist = Hist();
        if (had) { hist = nbr_hist_at(e); }
        var r: PairResult;
        // force on i, torques on i and on j
        var fi: vec3<f32>;
        var ti: vec3<f32>;
        var tj: vec3<f32>;
        // a clump's member: its body's inverse mass at the contact point
        var bi = me.b;
        var bj = body(mj, pj.w);
        if (P.dims.x != 0u) {
            let n = d * (1.0 / dist);
            bi.inv_mass += lever_along(me.row, n);
            bj.inv_mass += lever_along(clump_row_at(j), n);
        }
        if (i_is_a) {
            let pp = pairs[mat_i * P.sizes.w + mat_j];
            r = pair_law(pp, bi, bj, d * (1.0 / dist), overlap, hist.t, hist_roll(hist));
            fi = r.force_a;
            ti = r.torque_a;
            tj = r.torque_b;
        } else {
            let pp = pairs[mat_j * P.sizes.w + mat_i];
            r = pair_law(pp, bj, bi, -d * (1.0 / dist), overlap, hist.t, hist_roll(hist));
            fi = -r.force_a;
            ti = r.torque_b;
            tj = r.torque_a;
        }
        sums_add(s, fi, ti);
        sums_energy(s, 0.5 * r.elastic, 0.5 * r.dissipated, me.eu);
        if (pairs_once()) {
            // the partner's share in its own energy unit, the same numbers
            // it would have summed evaluating the pair itself
            var sj = NO_SUMS;
            sums_add(&sj, -fi, tj);
            sums_energy(&sj, 0.5 * r.elastic, 0.5 * r.dissipated, energy_unit(mj.vel_invm.w, pj.w));
            acc_add_sums(j, sj);
        }
        let ratio = overlap / min(ri, pj.w);
        (*s).max_ratio = max((*s).max_ratio, ratio);
        if (ratio > P.linear.w) { atomicMin(&ctl[CTL_ERR_OVERLAP], min(id_i, id_j)); }
        let h = vec4<f32>(r.xi, r.kt);
        nbr_hist_put(e, hist_new(h, r.roll));
        let has = any(h != vec4<f32>(0.0)) || any(r.roll != vec3<f32>(0.0));
        if (has != had) { nbr_put(e, select(j, j | HAS_HISTORY, has)); }
}

// The end of i's row: its wall entries (walls_from..end, a run of entries
// per scene wall, in primitive order, primitives in wall order) added to
// the particles' sums `s`, then force and torque written and the overlap
// checked.
fn finish_row(i: u32, me: Me, walls_from: u32, end: u32, s: Sums) {
    var acc = RunOut(sums_vec(s, 0u, P.sums.z), sums_vec(s, 3u, P.sums.w), vec3<f32>(0.0),
                     vec3<f32>(0.0), sums_energy_value(s, 0u, me.eu),
                     sums_energy_value(s, 1u, me.eu), s.max_ratio);
    var e0 = walls_from;
    while (e0 < end) {
        let w = walls[nbr_at(e0) & PRIM].wall;
        var e1 = e0 + 1u;
        while (e1 < end && walls[nbr_at(e1) & PRIM].wall == w) { e1++; }
        acc = wall_run(e0, e1, me.x, me.r, me.b, me.row, me.mat, false, !me.ghost, acc);
        e0 = e1;
    }
    put_force(i, vec4<f32>(acc.f, acc.elastic), vec4<f32>(acc.t, acc.diss));
    atomicMax(&ctl[CTL_MAX_OVERLAP], bitcast<u32>(acc.max_ratio));
    if (acc.max_ratio > P.linear.w) { atomicMin(&ctl[CTL_ERR_OVERLAP], me.id); }
}

// Particle i's force (w: its elastic energy share) and torque (w: the
// dissipated power share) into words 0..8 of its work record.
fn put_force(i: u32, f: vec4<f32>, t: vec4<f32>) {
    for (var c = 0u; c < 4u; c++) {
        acc_store(i, c, bitcast<u32>(f[c]));
        acc_store(i, 4u + c, bitcast<u32>(t[c]));
    }
}

// Whether every row's sums go through its work record and
// `contacts_walls` finishes it: each pair once, or a run with bonds
// (bonds.wgsl adds to both particles' records; P.dims.z: the scene has
// [[bonds]]).
fn rows_summed() -> bool {
    return pairs_once() || P.dims.z != 0u;
}

// A thread per particle, but the large ones (the first ctl[CTL_LARGE] in
// cell order: `contacts_large`): the pairs of its row into both partners'
// sums; from both sides, its own sums, walls, force and torque at once.
@compute @workgroup_size(256)
fn contacts(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    if (i < atomicLoad(&ctl[CTL_LARGE])) { return; }
    let me = me_of(i);
    let begin = nbr_start[i];
    let end = nbr_start[i + 1u];
    let walls_from = walls_start(begin, end);
    var s = NO_SUMS;
    for (var e = begin; e < walls_from; e++) { particle_entry(e, me, &s); }
    if (!rows_summed()) {
        finish_row(i, me, walls_from, end, s);
        return;
    }
    acc_add_sums(i, s);
    if (s.max_ratio > 0.0) { atomicMax(&ctl[CTL_MAX_OVERLAP], bitcast<u32>(s.max_ratio)); }
}

var<workgroup> large_sh: u32;

// The large particles' rows (a particle of 25 mm among 1 mm ones lists
// up to ~3000 partners: as one thread it held its workgroup, and on a GPU its
// warp, ~300 times as long as the others). A workgroup per row (the
// workgroups take the rows g, g + groups, ...): each thread takes the
// entries begin + lid, begin + lid + 256, ... and adds its sums to the
// particle's like any partner (exact: the thread path's bits). Same law,
// same entries, same history as the thread path.
@compute @workgroup_size(256)
fn contacts_large(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        large_sh = select(atomicLoad(&ctl[CTL_LARGE]), 0u, atomicLoad(&ctl[CTL_FROZEN]) != NONE);
    }
    let large = workgroupUniformLoad(&large_sh);
    let groups = nwg.x * nwg.y;
    for (var i = wid.y * nwg.x + wid.x; i < large; i += groups) {
        let me = me_of(i);
        let begin = nbr_start[i];
        let walls_from = walls_start(begin, nbr_start[i + 1u]);
        var s = NO_SUMS;
        for (var e = begin + lid; e < walls_from; e += WG) { particle_entry(e, me, &s); }
        acc_add_sums(i, s);
        if (s.max_ratio > 0.0) { atomicMax(&ctl[CTL_MAX_OVERLAP], bitcast<u32>(s.max_ratio)); }
    }
}

// A thread per particle, after the pairs: its sums taken, its wall entries
// added (in f32, in the row's order), force and torque written and the
// overlap checked. From both sides, only the large rows wait for it.
@compute @workgroup_size(256)
fn contacts_walls(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= atomicLoad(&ctl[CTL_COUNT]) || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    if (!rows_summed() && i >= atomicLoad(&ctl[CTL_LARGE])) { return; }
    let end = nbr_start[i + 1u];
    finish_row(i, me_of(i), walls_start(nbr_start[i], end), end, acc_take_sums(i));
}

// The wall loads, on the steps that want them (every step when a wall has a
// servo; else the step ctl[CTL_LOADS_AT], the last of an `advance`), before
// the contacts kernel of the step: each particle's wall entries through the
// same `wall_run` without writing, its load on each scene wall added as an
// exact sum (`Exact`: 128-bit integers, first over the workgroup, then the
// workgroup's into the wall's words), so the total does not depend on the
// particles' order; `wall_loads_sum` turns it into the wall's pose.
var<workgroup> wanted_sh: u32;
// The walls a workgroup adds up at once: one round of barriers per this
// many scene walls (a round per wall cost ~0.6 ms a step on lavapipe with
// six walls)
const LOAD_CHUNK: u32 = 16u;
var<workgroup> load_wg: array<atomic<u32>, LOAD_CHUNK * WALL_ACC_WORDS>;

fn loads_wanted() -> bool {
    return loads_due(P.nbr.z, atomicLoad(&ctl[CTL_FROZEN]), atomicLoad(&ctl[CTL_LOADS_AT]),
                     atomicLoad(&ctl[CTL_STEP]));
}

// Adds the 128-bit `v` to the workgroup's words at..at + 4 (carries by hand).
fn load_wg_add(at: u32, v: vec4<u32>) {
    var carry = 0u;
    for (var k = 0u; k < 4u; k++) {
        let add = v[k] + carry;
        let c0 = select(0u, 1u, add < carry);
        if (add == 0u) {
            carry = c0;
            continue;
        }
        let old = atomicAdd(&load_wg[at + k], add);
        carry = c0 + exact_carry(old, add);
    }
}

// The same into the wall's words at..at + 4.
fn wall_acc_add(at: u32, v: vec4<u32>) {
    var carry = 0u;
    for (var k = 0u; k < 4u; k++) {
        let add = v[k] + carry;
        let c0 = select(0u, 1u, add < carry);
        if (add == 0u) {
            carry = c0;
            continue;
        }
        let old = atomicAdd(&wall_acc[at + k], add);
        carry = c0 + exact_carry(old, add);
    }
}

@compute @workgroup_size(256)
fn wall_loads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    // the words cleared before the first round (the flush clears them for
    // the next), behind the barrier that shares whether loads are wanted
    for (var k = lid; k < LOAD_CHUNK * WALL_ACC_WORDS; k += WG) { atomicStore(&load_wg[k], 0u); }
    if (lid == 0u) { wanted_sh = select(0u, 1u, loads_wanted()); }
    if (workgroupUniformLoad(&wanted_sh) == 0u) { return; }
    let i = flat_index(wid, nwg, lid);
    let count = atomicLoad(&ctl[CTL_COUNT]);
    // a ghost's load is its owner's to count
    var valid = i < count;
    if (valid) { valid = !is_ghost(motion_at(i)); }
    var xi = vec3<f32>(0.0);
    var ri = 0.0;
    var mat_i = 0u;
    var walls_from = 0u;
    var end = 0u;
    var me = Body(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), 1.0, 0.0, 0.0);
    if (valid) {
        xi = pos_rad_at(i).xyz;
        ri = pos_rad_at(i).w;
        let mi = motion_at(i);
        mat_i = material_of(mi);
        me = body(mi, ri);
        let begin = nbr_start[i];
        end = nbr_start[i + 1u];
        walls_from = end;
        while (walls_from > begin && (nbr_at(walls_from - 1u) & WALL) != 0u) { walls_from--; }
    }
    let zero = RunOut(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), 0.0, 0.0, 0.0);
    // the row's wall entries come in runs of one wall each, by wall index
    var lo = walls_from;
    for (var w0 = 0u; w0 < P.sizes.y; w0 += LOAD_CHUNK) {
        if (valid) {
            while (lo < end && walls[nbr_at(lo) & PRIM].wall < w0 + LOAD_CHUNK) {
                let w = walls[nbr_at(lo) & PRIM].wall;
                var hi = lo + 1u;
                while (hi < end && walls[nbr_at(hi) & PRIM].wall == w) { hi++; }
                let o = wall_run(lo, hi, xi, ri, me, row_of(i), mat_i, true, false, zero);
                let at = (w - w0) * WALL_ACC_WORDS;
                for (var c = 0u; c < 3u; c++) {
                    let f = exact_of(o.load_f[c]);
                    let t = exact_of(o.load_t[c]);
                    load_wg_add(at + 4u * c, f.w);
                    load_wg_add(at + 12u + 4u * c, t.w);
                    if (!(f.ok && t.ok)) { atomicStore(&load_wg[at + 24u], 1u); }
                }
                lo = hi;
            }
        }
        workgroupBarrier();
        // the workgroup's sums into the walls': a thread per (wall,
        // component), a sum of zero skipped (it adds nothing); each thread
        // clears the words it read for the next round
        let wl = lid / 7u;
        let c = lid % 7u;
        if (wl < LOAD_CHUNK && w0 + wl < P.sizes.y) {
            let src = wl * WALL_ACC_WORDS;
            let at = (w0 + wl) * WALL_ACC_WORDS;
            if (c < 6u) {
                var v = vec4<u32>(0u);
                for (var k = 0u; k < 4u; k++) { v[k] = atomicExchange(&load_wg[src + 4u * c + k], 0u); }
                if (any(v != vec4<u32>(0u))) { wall_acc_add(at + 4u * c, v); }
            } else if (atomicExchange(&load_wg[src + 24u], 0u) != 0u) {
                atomicStore(&wall_acc[at + 24u], 1u);
            }
        }
        workgroupBarrier();
    }
}

// A thread per scene wall: its exact sums to f32 (NaN when a term was out
// of range) into the wall's pose, and the words cleared for the next step
// that wants loads.
@compute @workgroup_size(256)
fn wall_loads_sum(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = gid.x;
    if (w >= P.sizes.y || !loads_wanted()) { return; }
    let at = w * WALL_ACC_WORDS;
    var v: array<f32, 6>;
    for (var c = 0u; c < 6u; c++) {
        var q = vec4<u32>(0u);
        for (var k = 0u; k < 4u; k++) {
            q[k] = atomicLoad(&wall_acc[at + 4u * c + k]);
            atomicStore(&wall_acc[at + 4u * c + k], 0u);
        }
        v[c] = exact_value(q);
    }
    var f = vec3<f32>(v[0], v[1], v[2]);
    var t = vec3<f32>(v[3], v[4], v[5]);
    if (atomicLoad(&wall_acc[at + 24u]) != 0u) {
        atomicStore(&wall_acc[at + 24u], 0u);
        f = vec3<f32>(bitcast<f32>(0x7fc00000u));
        t = f;
    }
    wall_pose[w].force = vec4<f32>(f, f32(atomicLoad(&ctl[CTL_STEP])));
    wall_pose[w].torque = vec4<f32>(t, 0.0);
}
