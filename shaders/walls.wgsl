// The gap between a sphere centre and a wall primitive, twin of
// src/walls/geometry.rs (`gap`), the same arithmetic in the same order.
// Prepended to the shaders that meet walls (src/gpu/shaders.rs): the
// neighbour list (which primitives are within reach) and the contacts.

// What wall_gap finds (src/walls/geometry.rs, WallGap).
struct WallGap {
    normal: vec3<f32>,  // unit, from the particle toward the wall
    dist: f32,          // from the centre along it (the sphere touches when dist < radius)
    feature: u32,       // 0 face, 1 edge, 2 vertex (walls::Feature)
}

fn wall_gap(w: Wall, x: vec3<f32>) -> WallGap {
    switch (w.kind) {
        case WALL_PLANE, default: {
            let dist = dot(x - w.a.xyz, w.b.xyz);
            return WallGap(-w.b.xyz, dist, 0u);
        }
    }
}
