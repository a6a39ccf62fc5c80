// Wall geometry and motion alone, over a batch of inputs given as data: the
// GPU half of their twin test (src/gpu/wall_eval.rs, WallEval;
// tests/gpu_walls.rs). Not part of a step. walls.wgsl is prepended, so
// these are the very functions the neighbour list and contacts run.

// One input: a primitive and a point for wall_gap and on_triangle; a
// motion, a time and a servo state for pose_at, to_body, dir_to_world and
// wall_velocity_at (of the same point).
struct WallCase {
    wall: Wall,
    motion: WallMotion,
    x: vec4<f32>,   // xyz: the point, w: on_triangle's tolerance
    t: vec4<f32>,   // x: time, y: servo displacement, z: servo velocity
}

struct WallOut {
    gap: vec4<f32>,      // normal xyz, dist w
    flags: vec4<u32>,    // feature, on_triangle, unused, unused
    pose: WallPose,
    body: vec4<f32>,     // to_body(x)
    dir: vec4<f32>,      // dir_to_world(x)
    vel: vec4<f32>,      // wall_velocity_at(x)
}

@group(0) @binding(0) var<storage, read> wall_cases: array<WallCase>;
@group(0) @binding(1) var<storage, read_write> wall_outs: array<WallOut>;

@compute @workgroup_size(256)
fn wall_eval(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= arrayLength(&wall_cases)) { return; }
    let c = wall_cases[i];
    let g = wall_gap(c.wall, c.x.xyz);
    let p = pose_at(c.motion, c.t.x, c.t.yz);
    var o: WallOut;
    o.gap = vec4<f32>(g.normal, g.dist);
    o.flags = vec4<u32>(g.feature, select(0u, 1u, on_triangle(c.wall, c.x.xyz, c.x.w)), 0u, 0u);
    o.pose = p;
    o.body = vec4<f32>(to_body(p, c.motion, c.x.xyz), 0.0);
    o.dir = vec4<f32>(dir_to_world(p, c.motion, c.x.xyz), 0.0);
    o.vel = vec4<f32>(wall_velocity_at(p, c.x.xyz), 0.0);
    wall_outs[i] = o;
}
