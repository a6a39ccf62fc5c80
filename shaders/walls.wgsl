// The gap between a sphere centre and a wall primitive, twin of
// src/walls/geometry.rs (`gap`), the same arithmetic in the same order.
// Prepended to the shaders that meet walls (src/gpu/shaders.rs): the
// neighbour list (which primitives are within reach) and the contacts.

// xyz: the contact normal, unit, from the particle toward the wall; w: the
// distance from the centre along it (the sphere touches when w < radius).
fn wall_gap(w: Wall, x: vec3<f32>) -> vec4<f32> {
    switch (w.kind) {
        case WALL_PLANE, default: {
            let dist = dot(x - w.a.xyz, w.b.xyz);
            return vec4<f32>(-w.b.xyz, dist);
        }
    }
}
