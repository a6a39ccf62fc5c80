// The outlets' test, prepended to the shaders that move particles and
// remove those an outlet takes (integrate.wgsl, clumps.wgsl; each declares
// `outlets: array<OutletRegion>`).

// Index of the first outlet that takes centre x, or NONE (twin of
// `OutletSet::which`, in f32).
fn outlet_of(x: vec3<f32>) -> u32 {
    let n = arrayLength(&outlets);
    for (var k = 0u; k < n; k++) {
        let o = outlets[k];
        var takes = false;
        if (o.kind == OUTLET_CYLINDER) {
            let d = x - o.a.xyz;
            let h = dot(d, o.b.xyz);
            let r = d - h * o.b.xyz;
            takes = h >= 0.0 && h <= o.b.w && dot(r, r) <= o.a.w * o.a.w;
        } else {
            let inside = all(x >= o.a.xyz) && all(x <= o.b.xyz);
            takes = inside == (o.kind == OUTLET_BOX);
        }
        if (takes) { return k; }
    }
    return NONE;
}
