// Wall triangles (world frame), flat shaded from the screen-space
// derivatives of the position, tinted per wall, blended over the spheres.

@group(0) @binding(0) var<uniform> g: Globals;

struct WallIn {
    @location(0) pos: vec3<f32>,
    @location(1) wall: u32,
}

struct WallOut {
    @builtin(position) clip_pos: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) wall: u32,
}

@vertex
fn vs_wall(v: WallIn) -> WallOut {
    var out: WallOut;
    out.clip_pos = g.view_proj * vec4<f32>(v.pos, 1.0);
    out.world = v.pos;
    out.wall = v.wall;
    return out;
}

// a light grey tinted by the wall's index (golden-angle hues)
fn wall_tint(k: u32) -> vec3<f32> {
    let hue = fract(f32(k) * 0.618034) * 6.2831853;
    let tint = 0.5 + 0.5 * vec3<f32>(cos(hue), cos(hue - 2.0943951), cos(hue + 2.0943951));
    return mix(vec3<f32>(0.75), tint, 0.35);
}

@fragment
fn fs_wall(in: WallOut) -> @location(0) vec4<f32> {
    let n = normalize(cross(dpdx(in.world), dpdy(in.world)));
    if (clipped(in.world)) {
        discard;
    }
    let dir = normalize(in.world - g.eye.xyz);
    let ndl = abs(dot(n, dir));
    let rgb = wall_tint(in.wall) * (0.35 + 0.65 * ndl);
    return vec4<f32>(to_target(rgb), 0.3);
}
