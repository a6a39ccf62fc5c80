// The pair sums, prepended to the modules that add to a particle's work
// record (contacts.wgsl, bonds.wgsl): force and torque as 64-bit
// fixed-point word pairs added through integer atomics (exact, so a sum is
// the same in any order: src/sums.rs), each particle's energy shares in
// its own power-of-two unit. The module declares `acc` (the work records)
// and `acc_bad` (the error bits), and `P` (`P.sums`: the units).

// 2^32 and 2^62 (the force words' limit) in f32, exactly.
const TWO32: f32 = 4294967296.0;
const TWO62: f32 = 4611686018427387904.0;


// What a particle's row sums: force and torque as 64-bit fixed point
// (`q`: force x, y, z in units of 1 / P.sums.x N, torque x, y, z in units
// of 1 / P.sums.y N m; each word pair (lo, hi), two's complement), exact
// and the same in any order, so neither the row's order nor what else it
// lists changes a bit (src/sums.rs); `bad` when a term was not finite or
// out of range. Its half of the pairs' elastic and dissipated energy the
// same way (`e`, in the particle's own unit `Me.eu`; `ebad`: out of range)
// and the largest overlap ratio.
struct Sums {
    q: array<vec2<u32>, 6>,
    bad: u32,
    e: array<vec2<u32>, 2>,
    ebad: u32,
    max_ratio: f32,
}

// `x` (already in units) as a 64-bit fixed-point word pair, rounded toward
// zero (the magnitude splits exactly in f32: see `add_fixed`); `ok` false
// when |x| is not below 2^62.
struct Fixed {
    w: vec2<u32>,
    ok: bool,
}

fn fixed_of(x: f32) -> Fixed {
    if (!(abs(x) < TWO62)) { return Fixed(vec2<u32>(0u), false); }
    let m = abs(trunc(x));
    let hm = floor(m * (1.0 / TWO32));
    var hi = u32(hm);
    var lo = u32(m - hm * TWO32);
    if (x < 0.0) {
        lo = ~lo + 1u;
        hi = ~hi + select(0u, 1u, lo == 0u);
    }
    return Fixed(vec2<u32>(lo, hi), true);
}

fn fixed_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// A word pair back to f32 (in units).
fn fixed_value(a: vec2<u32>) -> f32 {
    let neg = (a.y >> 31u) != 0u;
    var lo = a.x;
    var hi = a.y;
    if (neg) {
        lo = ~lo + 1u;
        hi = ~hi + select(0u, 1u, lo == 0u);
    }
    let m = f32(hi) * TWO32 + f32(lo);
    return select(m, -m, neg);
}

// Adds a contact's force f and torque t to `s`.
fn sums_add(s: ptr<function, Sums>, f: vec3<f32>, t: vec3<f32>) {
    for (var c = 0u; c < 3u; c++) {
        let a = fixed_of(f[c] * P.sums.x);
        let b = fixed_of(t[c] * P.sums.y);
        (*s).q[c] = fixed_add((*s).q[c], a.w);
        (*s).q[3u + c] = fixed_add((*s).q[3u + c], b.w);
        if (!(a.ok && b.ok)) { (*s).bad = 1u; }
    }
}

// The force (`at` 0, in N) or torque (`at` 3, in N m) of `s`: NaN when a
// term was bad (a blow-up stays visible).
fn sums_vec(s: Sums, at: u32, per_unit: f32) -> vec3<f32> {
    let v = vec3<f32>(fixed_value(s.q[at]), fixed_value(s.q[at + 1u]), fixed_value(s.q[at + 2u]));
    return select(v * per_unit, vec3<f32>(bitcast<f32>(0x7fc00000u)), s.bad != 0u);
}

// A particle's energy unit: a power of two near 2^33 / (m r 10 m/s^2), so
// its pairs' energies are summed to ~10^-10 of its weight times its radius
// and up to ~5*10^8 of it (a contact's energy in a 100 m/s impact of a
// 1 mm grain is ~10^6 of it). Exact powers of two from the exponent alone.
fn energy_unit(inv_m: f32, r: f32) -> f32 {
    let e = frexp(10.0 * r / inv_m).exp;
    return ldexp(1.0, clamp(33 - e, -120, 120));
}

// Adds a pair's half elastic and dissipated energy to `s` in unit `eu`.
fn sums_energy(s: ptr<function, Sums>, elastic: f32, diss: f32, eu: f32) {
    let a = fixed_of(elastic * eu);
    let b = fixed_of(diss * eu);
    (*s).e[0] = fixed_add((*s).e[0], a.w);
    (*s).e[1] = fixed_add((*s).e[1], b.w);
    if (!(a.ok && b.ok)) { (*s).ebad = 1u; }
}

// Energy k of `s` in J (NaN when out of range).
fn sums_energy_value(s: Sums, k: u32, eu: f32) -> f32 {
    return select(fixed_value(s.e[k]) / eu, bitcast<f32>(0x7fc00000u), s.ebad != 0u);
}

// Adds v (a 64-bit fixed-point word pair) to words w, w + 1 of particle
// p's sums: the carry by hand, so the total is exact in any order.
fn acc_add64(p: u32, w: u32, v: vec2<u32>) {
    var carry = 0u;
    if (v.x != 0u) {
        let old = acc_add(p, w, v.x);
        carry = select(0u, 1u, old + v.x < old);
    }
    let hi = v.y + carry;
    if (hi != 0u) { acc_add(p, w + 1u, hi); }
}

// Adds `s` (all but its overlap ratio) to particle p's sums.
fn acc_add_sums(p: u32, s: Sums) {
    for (var c = 0u; c < 6u; c++) { acc_add64(p, 2u * c, s.q[c]); }
    for (var c = 0u; c < 2u; c++) { acc_add64(p, 12u + 2u * c, s.e[c]); }
    let bits = select(0u, 1u, s.bad != 0u) | select(0u, 2u, s.ebad != 0u);
    if (bits != 0u) { atomicOr(&acc_bad[p >> 4u], bits << (2u * (p & 15u))); }
}

// Particle p's pair sums, taken: its words are zero again for the next
// step.
fn acc_take_sums(p: u32) -> Sums {
    var s = NO_SUMS;
    for (var c = 0u; c < 6u; c++) {
        s.q[c] = vec2<u32>(acc_take(p, 2u * c), acc_take(p, 2u * c + 1u));
    }
    for (var c = 0u; c < 2u; c++) {
        s.e[c] = vec2<u32>(acc_take(p, 12u + 2u * c), acc_take(p, 13u + 2u * c));
    }
    let sh = 2u * (p & 15u);
    let bits = (atomicAnd(&acc_bad[p >> 4u], ~(3u << sh)) >> sh) & 3u;
    s.bad = bits & 1u;
    s.ebad = bits >> 1u;
    return s;
}

const NO_SUMS = Sums(array<vec2<u32>, 6>(), 0u, array<vec2<u32>, 2>(), 0u, 0.0);

