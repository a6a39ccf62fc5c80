// Spheres as camera-facing impostors: one quad (6 vertices) per particle
// instance, sized to cover the sphere's silhouette cone from the eye; the
// fragment shader intersects the eye ray with the sphere, shades the hit
// (headlight Lambert, ambient, rim) and writes its true depth.

@group(0) @binding(0) var<uniform> g: Globals;
// colour map (N_MAP entries) then the categorical table (N_CAT)
@group(0) @binding(1) var<storage, read> colors: array<vec4<f32>>;
// x, y, z, radius per particle (the simulation's set B, or the renderer's own)
@group(0) @binding(2) var<storage, read> pos_rad: array<vec4<f32>>;
// the value coloured by, per particle (bits HIDDEN: not drawn)
@group(0) @binding(3) var<storage, read> scalar: array<f32>;

struct SphereOut {
    @builtin(position) clip_pos: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) centre_r: vec4<f32>,
    @location(2) @interpolate(flat) color: vec4<f32>,
}

fn color_of(s: f32) -> vec4<f32> {
    if (g.legend.z > 0.5) {
        let k = u32(max(round(s), 0.0)) % N_CAT;
        return colors[N_MAP + k];
    }
    let span = g.legend.y - g.legend.x;
    var t = 0.5;
    if (span > 0.0) {
        t = clamp((s - g.legend.x) / span, 0.0, 1.0);
    }
    return colors[min(u32(t * f32(N_MAP - 1u) + 0.5), N_MAP - 1u)];
}

@vertex
fn vs_sphere(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> SphereOut {
    var out: SphereOut;
    let p = pos_rad[ii];
    let s = scalar[ii];
    let d = p.xyz - g.eye.xyz;
    let dist = length(d);
    // outside the clip volume: a degenerate triangle, never rasterised
    out.clip_pos = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    out.world = vec3<f32>(0.0);
    out.centre_r = vec4<f32>(0.0);
    out.color = vec4<f32>(0.0);
    if (bitcast<u32>(s) == HIDDEN || clipped(p.xyz) || !(p.w > 0.0) || dist <= p.w * 1.001) {
        return out;
    }
    let f = d / dist;
    var a = vec3<f32>(0.0, 0.0, 1.0);
    if (abs(f.z) > 0.9) {
        a = vec3<f32>(1.0, 0.0, 0.0);
    }
    let u = normalize(cross(f, a));
    let w = cross(u, f);
    // the silhouette cone's radius in the plane through the centre
    let half = p.w * dist / sqrt(dist * dist - p.w * p.w);
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = corners[vi % 6u];
    let world = p.xyz + (u * c.x + w * c.y) * half;
    out.clip_pos = g.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.centre_r = p;
    out.color = color_of(s);
    return out;
}

struct SphereFrag {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_sphere(in: SphereOut) -> SphereFrag {
    let c = in.centre_r.xyz;
    let r = in.centre_r.w;
    let dir = normalize(in.world - g.eye.xyz);
    let oc = g.eye.xyz - c;
    let b = dot(dir, oc);
    // the ray's closest approach to the centre, relative to it (stable in
    // f32 for spheres small against their distance)
    let q = oc - b * dir;
    let h = r * r - dot(q, q);
    if (h < 0.0) {
        discard;
    }
    let n = (q - sqrt(h) * dir) / r;
    let hit = c + n * r;
    let cp = g.view_proj * vec4<f32>(hit, 1.0);
    // clamped both ways: pow of a negative base (ndl a hair above 1 at the
    // centre) is NaN
    let ndl = clamp(dot(n, -dir), 0.0, 1.0);
    let rim = pow(1.0 - ndl, 3.0);
    let rgb = in.color.rgb * (0.22 + 0.78 * ndl) + vec3<f32>(0.18 * rim);
    var out: SphereFrag;
    out.color = vec4<f32>(to_target(rgb), 1.0);
    out.depth = clamp(cp.z / cp.w, 0.0, 1.0);
    return out;
}
