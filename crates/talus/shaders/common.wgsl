// Shared declarations, prepended to every stage shader (src/gpu/mod.rs).
// Rust twins: src/gpu/layout.rs (sizes and offsets checked against naga in
// tests/shaders.rs).

const WG: u32 = 256u;
const MAX_LEVELS: u32 = 8u;  // grid::MAX_LEVELS: the levels Params holds
const NONE: u32 = 0xffffffffu;
const ROLLING_SHARE: u32 = 16u; // pair::ROLLING_SHARE: contacts sharing the cap on one rolling torque

// ctl[] indices (a storage buffer of atomic<u32>)
const CTL_STEP: u32 = 0u;         // completed steps
const CTL_FROZEN: u32 = 1u;       // step that failed (NONE while running)
const CTL_ERR_OVERLAP: u32 = 2u;  // min particle id with overlap > limit this step
const CTL_KEPT: u32 = 3u;         // 1: this rebuild has kept the previous list (a build that froze for room does not keep again); 2: keep again (the kept table grew)
const CTL_ERR_NONFINITE: u32 = 4u;// min particle id with a non-finite value
const CTL_MAX_OVERLAP: u32 = 5u;  // bits of the largest overlap ratio (f32 >= 0)
const CTL_REBUILD: u32 = 6u;      // 1: this step rebuilds the neighbour list (bin, sort, neighbours)
const CTL_BUILDS: u32 = 7u;       // neighbour-list builds so far
const CTL_LIST_LEN: u32 = 8u;     // entries of the current neighbour list
const CTL_LIST_NEED: u32 = 9u;    // entries a build needed beyond the capacity (0: none)
const CTL_LIST_CAP: u32 = 10u;    // capacity of the neighbour-list buffer (entries)
const CTL_COUNT: u32 = 11u;       // active particles: indices 0..count of the per-particle buffers (capacity P.sizes.x)
const CTL_NEXT_ID: u32 = 12u;     // the id the next inserted particle gets
                                  // 13: unused (the list's row count, which nothing reads since the kept table)
const CTL_LOADS_AT: u32 = 14u;    // the step whose contacts reduce the wall loads (also every step with a servo)
const CTL_LOG: u32 = 15u;         // records in the flow log (insertions, removals) since the host last read it
const CTL_LARGE: u32 = 16u;       // particles in the grid's large levels: the first this many in cell order (contacts_large's rows)
const CTL_KEPT_LEN: u32 = 17u;    // entries of the previous list with history, kept by this build (`keep`)
const CTL_KEPT_CAP: u32 = 18u;    // capacity of the kept table (entries)
const CTL_KEPT_NEED: u32 = 19u;   // entries a build needed to keep beyond the capacity (0: none)
const CTL_LEN: u32 = 20u;

// The flow log (src/gpu/layout.rs, FlowRecord): a particle inserted by
// entry `kind` or removed by outlet `kind & ~LOG_REMOVED`, at the start of
// step `step`.
const LOG_REMOVED: u32 = 0x80000000u;
struct FlowRecord {
    id: u32,
    kind: u32,
    step: u32,
    // a removal's mass (f32 bits; an insertion's comes from the host's
    // f64 candidate), or an insertion's candidate (the host's list)
    mass_or_cand: u32,
    energy: f32,  // a removal's: what the diagnostics counted for it
}

// An outlet's test (src/gpu/layout.rs, OutletRegion; flow::OutletShape):
// removed when the centre is inside the box a..b, inside the cylinder
// (a: base centre, radius; b: unit axis, length), or outside the box a..b
// (the open domain, ±f32::MAX along periodic axes).
const OUTLET_BOX: u32 = 0u;
const OUTLET_CYLINDER: u32 = 1u;
const OUTLET_OUTSIDE: u32 = 2u;
struct OutletRegion {
    a: vec4<f32>,
    b: vec4<f32>,
    kind: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// A neighbour-list entry (src/state.rs): the partner's index, in bit 30
// whether the partner is a wall primitive (a row lists them last), and in
// the top bit whether the entry's history is non-zero.
const HAS_HISTORY: u32 = 0x80000000u;
const WALL: u32 = 0x40000000u;
const INDEX: u32 = 0x3fffffffu;

// [contact] cohesion in Params.models.x (src/scene/types.rs, Cohesion::code; 0: none)
const COHESION_SJKR: u32 = 1u;
const COHESION_SJKR2: u32 = 2u;
const COHESION_JKR: u32 = 3u;
const JKR_NEWTON_STEPS: u32 = 8u; // cpu::jkr::NEWTON_STEPS: Newton steps for JKR's contact radius
// [contact] rolling in Params.models.z (Rolling::code)
const ROLLING_CDT: u32 = 0u;
const ROLLING_EPSD: u32 = 1u;
const ROLLING_EPSD2: u32 = 2u;

// Wall primitive kinds (src/walls/primitive.rs, Kind)
const WALL_PLANE: u32 = 0u;
const WALL_CYLINDER: u32 = 1u;
const WALL_CONE: u32 = 2u;
const WALL_TRIANGLE: u32 = 3u;

// One level of the broad-phase grid (src/grid.rs, Level; src/gpu/layout.rs,
// GridLevel).
struct GridLevel {
    inv_cell: vec4<f32>,   // xyz: 1 / cell edge, w: H, the largest half cutoff it holds
    dims: vec4<u32>,       // nx, ny, nz, w: the key of its first cell
}

struct Params {
    grid_min: vec4<f32>,   // xyz; w: grid::REACH_SLACK
    grid_len: vec4<f32>,   // xyz: domain lengths; w: grid::PERIOD_SLACK
    level_count: vec4<u32>,// x: the grid's levels, y: how many of them are large (contacts_large)
    gravity_dt: vec4<f32>, // xyz gravity, w dt
    dims: vec4<u32>,       // x: the clumps (0: none), y, z unused (each level has its own: `levels`); w: n_cells, all levels
    periodic: vec4<u32>,   // x, y, z flags; w: model (0 Hertz-Mindlin, 1 linear)
    sizes: vec4<u32>,      // particle capacity (the active count is ctl[CTL_COUNT]), scene walls, wall primitives, n materials
    linear: vec4<f32>,     // stiffness (0: none), contact time (0: none), k_t/k_n, overlap limit
    nbr: vec4<f32>,        // x: Verlet skin (m), y: (skin / 2)^2, z: 1 some servo, w: 1 some wall moves
    gravity_rot: vec4<f32>,// xyz unit axis, w rate (rad/s; 0: fixed gravity)
    gravity_turn: vec4<f32>,// x start (s), y seconds a turn takes (< 0: never stops), z period (s; 0: once)
    models: vec4<u32>,     // x: the cohesion model (0 none, 1 sjkr, 2 sjkr2, 3 jkr); y: the first held material ([[fixed]]); z: the rolling model; w unused
    contact: vec4<f32>,    // x: how far past touching an entry with history is evaluated (m; the skin with JKR, 0 otherwise)
    sums: vec4<f32>,       // the pair sums' fixed point: x units per N, y per N m, z 1/x, w 1/y
    levels: array<GridLevel, MAX_LEVELS>, // coarsest first
}

struct Pair {
    e_star: f32,
    g_star: f32,
    restitution: f32,
    beta: f32,
    friction: f32,
    rolling_friction: f32,
    damp_n: f32,  // Hertz-Mindlin: -2 sqrt(5/6) beta sqrt(2 E*) (src/pair.rs)
    damp_t: f32,  // -2 sqrt(5/6) beta sqrt(8 G*)
    cohesion: f32,        // cohesion energy density (J/m3): SJKR's pull k A
    rolling_damping: f32, // epsd's rolling dashpot, a fraction of critical
    surface_energy: f32,  // JKR's work of adhesion (J/m2): pull-off 1.5 pi gamma R*
    pad2: f32,
}

// What contacts read of a partner, written by integrate (src/state.rs,
// `Motion`): predicted v*, ω* with 1/m, 1/I; half-step v(n-1/2), ω(n-1/2)
// with the material index and the id in the w lanes' bits.
struct Motion {
    vel_invm: vec4<f32>,
    omega_invi: vec4<f32>,
    vel_half: vec4<f32>,   // w: bitcast material (and GHOST)
    omega_half: vec4<f32>, // w: bitcast id
}

// A row's part in a clump (src/gpu/layout.rs, MemberRow; the per-row
// array `clump_row`, moved with the row by the reorder): its lever
// S = [b]x^T I^-1 [b]x (xx, yy, zz, xy; xz, yz), its clump (NONE: a
// sphere) and member index. Read only when the run has clumps
// (P.dims.x > 0).
struct MemberRow {
    lever_a: vec4<f32>,
    lever_b: vec2<f32>,
    body: u32,
    member: u32,
}

// n^T S n: what a clump's member adds to its body's 1/M at a contact of
// normal n, so that the contact's damping sees the mass its point moves
// with (twin of shapes::clumps::lever_along).
fn lever_along(r: MemberRow, n: vec3<f32>) -> f32 {
    let s = r.lever_a;
    let t = r.lever_b;
    return s.x * n.x * n.x + s.y * n.y * n.y + s.z * n.z * n.z
        + 2.0 * (s.w * n.x * n.y + t.x * n.x * n.z + t.y * n.y * n.z);
}

// A clump (src/gpu/layout.rs, Clump, documents every lane): its state in
// f32, its centre as the particles' fixed point.
struct Clump {
    vel: vec4<f32>,       // V*(n); w: 1/M
    vel_half: vec4<f32>,  // V(n-1/2)
    q: vec4<f32>,         // q(n), principal frame to world (xyz, w)
    q_prev: vec4<f32>,    // q(n-1)
    l_half: vec4<f32>,    // world angular momentum L(n-1/2)
    omega: vec4<f32>,     // omega*(n); w: the largest 1/I_k
    moments: vec4<f32>,   // principal moments
    turn: vec4<f32>,      // the last step's turn / dt: the members' omega(n-1/2)
    force: vec4<f32>,     // the last step's load: force and torque about the centre
    torque: vec4<f32>,
    info: vec4<u32>,      // id, first row in clump_rows, first member in members, members
    pos_fx: array<u32, FX_WORDS>,
    shape: u32,           // its [[shapes]] entry and material (outputs)
    material: u32,
}

// On a run of several ranks, the material word's top bit marks a copy of a
// particle another rank owns (a ghost: its pairs are evaluated, but it is
// not integrated, and no sum over particles counts it). Clear on one rank.
const GHOST: u32 = 0x80000000u;
// GHOST_WORDS: the words of a ghost's refresh (ghosts.wgsl): position,
// motion record, fixed-point position.
const GHOST_WORDS: u32 = 26u;
// GHOST_PART_WORDS: what a ghost's refresh adds in a run with clumps (its
// MemberRow).
const GHOST_PART_WORDS: u32 = 8u;

fn material_of(m: Motion) -> u32 {
    return bitcast<u32>(m.vel_half.w) & ~GHOST;
}

fn is_ghost(m: Motion) -> bool {
    return (bitcast<u32>(m.vel_half.w) & GHOST) != 0u;
}

// A wall primitive (src/walls/primitive.rs; its gap to a sphere in
// walls.wgsl). Plane: a = a point on it, b = unit normal toward the
// particles.
struct Wall {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
    kind: u32,
    material: u32,
    wall: u32,
    pad: u32,
}

// A scene wall's prescribed motion and servo, static (src/gpu/layout.rs,
// WallMotion, documents every lane).
struct WallMotion {
    axis_point: vec4<f32>,  // w: angular velocity
    axis: vec4<f32>,        // w: start
    velocity: vec4<f32>,    // w: stop
    oscillation: vec4<f32>, // xyz: direction * amplitude, w: 2 pi frequency
    servo: vec4<f32>,       // xyz: direction, w: target force (0: none)
    extra: vec4<f32>,       // x: max speed, y: reach from the axis point, z: moves
}

// A scene wall's pose at this step (src/gpu/layout.rs, WallPose):
// world x = origin + R(angle) (x_body - axis_point).
struct WallPose {
    origin: vec4<f32>,   // w: angle
    rot: vec4<f32>,      // cos, sin, 1 when not the identity
    velocity: vec4<f32>,
    omega: vec4<f32>,
    servo: vec4<f32>,    // x: displacement, y: velocity
    built: vec4<f32>,    // translation and angle at the last build
    force: vec4<f32>,    // on the wall, w: its step
    torque: vec4<f32>,   // about origin
}

// Where a scene wall's primitives are (src/gpu/layout.rs, WallInfo).
struct WallInfo {
    grid_min: vec4<f32>,   // w: 1 / cell edge
    grid_dims: vec4<u32>,  // xyz: cells (0: analytic), w: offset in mesh_start
    prims: vec4<u32>,      // first, end
}

// v turned by `angle` about the unit `axis` (right-hand rule; Rodrigues).
fn turn(v: vec3<f32>, axis: vec3<f32>, angle: f32) -> vec3<f32> {
    let c = cos(angle);
    let s = sin(angle);
    return v * c + cross(axis, v) * s + axis * (dot(axis, v) * (1.0 - c));
}

// Gravity at step `step` (src/scene/types.rs, GravityRotation::angle_at
// and gravity_at): turned about p.gravity_rot.xyz at p.gravity_rot.w
// rad/s, from p.gravity_turn.x, each turn stopping after
// p.gravity_turn.y s and starting again every p.gravity_turn.z s.
fn gravity_at(p: Params, step: u32) -> vec3<f32> {
    if (p.gravity_rot.w == 0.0) { return p.gravity_dt.xyz; }
    let s = f32(step) * p.gravity_dt.w - p.gravity_turn.x;
    if (s <= 0.0) { return p.gravity_dt.xyz; }
    let tt = p.gravity_turn.y;
    let period = p.gravity_turn.z;
    var turning = s;
    if (tt >= 0.0) {
        if (period > 0.0) {
            let k = floor(s / period);
            turning = k * tt + min(s - k * period, tt);
        } else {
            turning = min(s, tt);
        }
    }
    return turn(p.gravity_dt.xyz, p.gravity_rot.xyz, p.gravity_rot.w * turning);
}

// Whether x is finite: NaN fails both comparisons, +-inf the bound.
fn is_finite(x: f32) -> bool {
    return abs(x) <= 3.4028235e38;
}

// Linear index of a possibly 2-D dispatch (x wraps at 65535 groups).
fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG + lid;
}

// The level of a particle of radius r: the finest whose half cutoff H is at
// least r + skin / 2. Twin of Grid::level_of.
fn level_of(p: Params, r: f32) -> u32 {
    let h = r + 0.5 * p.nbr.x;
    var l = 0u;
    while (l + 1u < p.level_count.x && p.levels[l + 1u].inv_cell.w >= h) { l++; }
    return l;
}

// The cell key of a particle (xyz, radius): its level's cell, clamped into
// the grid. Twin of Grid::particle_key.
fn particle_key(p: Params, x: vec4<f32>) -> u32 {
    let lv = p.levels[level_of(p, x.w)];
    let f = floor((x.xyz - p.grid_min.xyz) * lv.inv_cell.xyz);
    let hi = vec3<f32>(lv.dims.xyz) - vec3<f32>(1.0);
    let c = vec3<u32>(clamp(f, vec3<f32>(0.0), hi));
    return lv.dims.w + c.x + lv.dims.x * (c.y + lv.dims.y * c.z);
}

// The key after level l's last cell.
fn level_end(p: Params, l: u32) -> u32 {
    if (l + 1u < p.level_count.x) { return p.levels[l + 1u].dims.w; }
    return p.dims.w;
}

// The cells of level l within `reach` of x, per axis lo..hi (slack added, as
// Grid::level_range: grid_min.w relative, grid_len.w domain lengths): a
// periodic axis unwrapped (lo may be < 0, hi >= n; the whole axis once when
// the reach spans it), the others clamped into the grid.
struct CellRange {
    lo: vec3<i32>,
    hi: vec3<i32>,
}

fn level_range(p: Params, l: u32, x: vec3<f32>, reach: f32) -> CellRange {
    let lv = p.levels[l];
    var r: CellRange;
    for (var k = 0u; k < 3u; k++) {
        let n = i32(lv.dims[k]);
        let m = reach * (1.0 + p.grid_min.w) + p.grid_len.w * p.grid_len[k];
        let lo = i32(clamp(floor((x[k] - m - p.grid_min[k]) * lv.inv_cell[k]), -1e9, 1e9));
        let hi = i32(clamp(floor((x[k] + m - p.grid_min[k]) * lv.inv_cell[k]), -1e9, 1e9));
        if (p.periodic[k] == 0u) {
            r.lo[k] = clamp(lo, 0, n - 1);
            r.hi[k] = clamp(hi, 0, n - 1);
        } else if (hi - lo + 1 >= n) {
            r.lo[k] = 0;
            r.hi[k] = n - 1;
        } else {
            r.lo[k] = lo;
            r.hi[k] = hi;
        }
    }
    return r;
}

// A row's x-cells lo..hi (from level_range) as up to two ranges of cell
// indices, in visiting order: one, or two where a periodic x axis wraps
// (an empty second piece has hi < lo). Twin of the split in
// Grid::for_ranges.
struct RowPieces {
    lo: array<i32, 2>,
    hi: array<i32, 2>,
}

fn row_pieces(lo: i32, hi: i32, n: i32) -> RowPieces {
    var p = RowPieces(array<i32, 2>(lo, 0), array<i32, 2>(hi, -1));
    if (lo < 0) {
        p.lo[0] = lo + n; p.hi[0] = n - 1; p.hi[1] = hi;
    } else if (hi >= n) {
        p.hi[0] = n - 1; p.hi[1] = hi - n;
    }
    return p;
}

// v wrapped into 0..n.
fn wrap_index(v: i32, n: i32) -> u32 {
    return u32(((v % n) + n) % n);
}

// b - a through periodic boundaries (minimum image).
fn min_image(p: Params, a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    var d = b - a;
    for (var k = 0u; k < 3u; k++) {
        if (p.periodic[k] != 0u) {
            d[k] = d[k] - p.grid_len[k] * round(d[k] / p.grid_len[k]);
        }
    }
    return d;
}

// The deforming surfaces of the FEM bodies (src/gpu/layout.rs, SurfInfo;
// src/walls/surface.rs): each node moves on a straight line over the
// current exchange interval, x0 + v (step - step0) dt; per node the
// `surf_nodes` records x0, v, built (the node at the last list build);
// per surface triangle `surf_tris` holds its 3 nodes and its primitive.
struct SurfInfo {
    sizes: vec4<u32>,  // x: surface nodes, y: surface triangles, z: step0 (the interval's start), w: unused
    scale: vec4<f32>,  // x: the force words' unit (fixed point = round-toward-zero(f * scale)), y: 1 / scale
}

// Exact sums over particles (twin of src/sums.rs, `Exact`): a term as a
// 128-bit two's-complement integer in units of 2^-80 (four words, low
// first), rounded toward zero; integer additions are exact in any order, so
// a total does not depend on where the particles sit in memory. `ok` is
// false for a term of magnitude 2^47 or more, or not finite.
struct Exact {
    w: vec4<u32>,
    ok: bool,
}

// Per scene wall, its load's exact sums: force x, y, z, torque x, y, z,
// four words each, then an error word (non-zero: a term was out of range).
const WALL_ACC_WORDS: u32 = 25u;
const ACC_WORDS: u32 = 16u;
const FX_WORDS: u32 = 6u;
// Per workgroup, the diagnostics' exact sums: kinetic (translation,
// rotation), potential, elastic and dissipated energy, four words each,
// then an error word and the largest speed's f32 bits.
const DIAG_WORDS: u32 = 22u;
// When an indirect dispatch runs (twin of layout::ARM_*): on a step that
// rebuilds the list, on every step, on a step that wants the wall loads.
const ARM_REBUILD: u32 = 0u;
const ARM_ALWAYS: u32 = 1u;
const ARM_LOADS: u32 = 2u;

// What an indirect dispatch runs over (its slot: scale × the active count
// + fixed invocations, on the steps `when` says), read by `arm_rebuild`
// (bin.wgsl) and `finish_step` (integrate.wgsl), which write the workgroup
// counts (x, y, z per slot) of the step to come.
struct ArgSlot {
    scale: u32,
    fixed: u32,
    when: u32,
    pad: u32,
}

// Whether a step wants the wall loads, from the control words `frozen`,
// `loads_at` and `step` and the scene's servo flag (P.nbr.z): every step
// with a servo, else the step an `advance` asked for (its last), never a
// frozen run's. Read by the arming and by the loads' kernels themselves.
fn loads_due(servo: f32, frozen: u32, loads_at: u32, step: u32) -> bool {
    return frozen == NONE && (servo != 0.0 || loads_at == step);
}

// The workgroup counts of slot `s` for `count` active particles on a step
// that rebuilds the list or not and wants the wall loads or not (zero when
// the slot's steps are not this one). Twin of `Over::groups` and
// `kernel::groups`.
fn slot_groups(s: ArgSlot, count: u32, rebuild: bool, loads: bool) -> vec3<u32> {
    let size = s.scale * count + s.fixed;
    let g = max((size + WG - 1u) / WG, 1u);
    let x = min(g, 65535u);
    let y = (g + x - 1u) / x;
    let on = s.when == ARM_ALWAYS || (s.when == ARM_REBUILD && rebuild) || (s.when == ARM_LOADS && loads);
    return select(vec3<u32>(0u), vec3<u32>(x, y, 1u), on);
}

fn exact_of(x: f32) -> Exact {
    // 2^47
    if (!(abs(x) < 140737488355328.0)) { return Exact(vec4<u32>(0u), false); }
    var w = vec4<u32>(0u);
    if (x == 0.0) { return Exact(w, true); }
    // |x| = m 2^(e - 24) with m a 24-bit integer: m 2^s units
    let fe = frexp(abs(x));
    let m = u32(fe.fract * 16777216.0);
    let s = fe.exp + 56;
    if (s < 0) {
        if (s > -32) { w.x = m >> u32(-s); }
    } else {
        let q = u32(s) / 32u;
        let b = u32(s) % 32u;
        w[q] = m << b;
        if (b != 0u && q < 3u) { w[q + 1u] = m >> (32u - b); }
    }
    if (x < 0.0) { w = exact_neg(w); }
    return Exact(w, true);
}

fn exact_neg(a: vec4<u32>) -> vec4<u32> {
    var w = ~a;
    w.x += 1u;
    if (w.x == 0u) {
        w.y += 1u;
        if (w.y == 0u) {
            w.z += 1u;
            if (w.z == 0u) { w.w += 1u; }
        }
    }
    return w;
}

// The carry out of adding `add` to a word that held `old`. Each shader
// writes its own four-word add over its own atomic array (contacts.wgsl's
// workgroup and wall words, diagnostics.wgsl's): naga 30 takes no pointer
// to workgroup or storage memory as a parameter (WGSL's
// unrestricted_pointer_parameters is not implemented).
fn exact_carry(old: u32, add: u32) -> u32 {
    return select(0u, 1u, old + add < old);
}

// An exact sum back to f32 (in its unit), rounded the same way everywhere.
fn exact_value(a: vec4<u32>) -> f32 {
    let neg = (a.w >> 31u) != 0u;
    var w = a;
    if (neg) { w = exact_neg(a); }
    let m = f32(w.w) * 65536.0 + f32(w.z) * (1.0 / 65536.0)
        + f32(w.y) * (1.0 / 281474976710656.0) + f32(w.x) * (1.0 / 1208925819614629174706176.0);
    return select(m, -m, neg);
}

// Whether the list holds each pair once (the lower id's row; contacts.wgsl
// adds each pair to both partners' sums) rather than from both sides
// (each particle gathers its own): `gpu::context::Pairs`, the constant
// PAIRS_ONCE appended to every module (src/gpu/shaders.rs), so a variant
// carries none of the other's code. The same bits either way.
fn pairs_once() -> bool {
    return PAIRS_ONCE;
}
