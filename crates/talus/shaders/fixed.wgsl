// The particles' 64-bit fixed-point coordinates (src/gpu/data.rs,
// FixedPoint): per axis a biased integer (hi, lo) in units of the domain
// length / 2^40. Prepended to the shaders that move particles
// (integrate.wgsl, clumps.wgsl; src/gpu/shaders.rs).

const TWO32: f32 = 4294967296.0;
const TWO40: f32 = 1099511627776.0;

// Adds an integer-valued increment q (in fixed-point units, any sign) to the
// biased 64-bit value (h, l).
fn fx_add(h: u32, l: u32, q: f32) -> vec2<u32> {
    let a = abs(q);
    let qh = floor(a / TWO32);
    let ql = u32(a - qh * TWO32);
    let qhu = u32(qh);
    if (q >= 0.0) {
        let lo = l + ql;
        return vec2<u32>(h + qhu + select(0u, 1u, lo < l), lo);
    }
    let lo = l - ql;
    return vec2<u32>(h - qhu - select(0u, 1u, lo > l), lo);
}

// The fixed-point coordinate as f32: min + X · len / 2^40.
fn fx_to_f32(h: u32, l: u32, k: u32) -> f32 {
    let s = bitcast<i32>(h ^ 0x80000000u);
    return P.grid_min[k] + (f32(s) * TWO32 + f32(l)) * (P.grid_len[k] / TWO40);
}

// Position `fx` moved by d (m, f32) along each axis in whole units, a
// periodic axis wrapped by exactly 2^40 units (the domain length: 256 in
// the high word); the moved words and the position as f32.
struct FxMoved {
    fx: array<u32, FX_WORDS>,
    p: vec3<f32>,
}

fn fx_move(fx0: array<u32, FX_WORDS>, d: vec3<f32>) -> FxMoved {
    var fx = fx0;
    var p = vec3<f32>(0.0);
    for (var k = 0u; k < 3u; k++) {
        let q = round(d[k] * (TWO40 / P.grid_len[k]));
        let r = fx_add(fx[2u * k], fx[2u * k + 1u], q);
        var h = r.x;
        if (P.periodic[k] != 0u) {
            let s = bitcast<i32>(h ^ 0x80000000u);
            if (s < 0) { h = h + 256u; } else if (s >= 256) { h = h - 256u; }
        }
        fx[2u * k] = h;
        fx[2u * k + 1u] = r.y;
        p[k] = fx_to_f32(h, r.y, k);
    }
    return FxMoved(fx, p);
}
