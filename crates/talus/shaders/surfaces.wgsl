// The FEM bodies' deforming surfaces (twin of src/walls/surface.rs and
// `WallSet::pose_surfaces`; host side src/gpu/surfaces.rs). Between two
// exchanges with the bodies each surface node moves on a straight line,
// x0 + v tau with tau = (step - step0) dt, known on the device for the
// whole interval: no upload per step.
//
// - `move_surfaces` (after integrate's `move_walls`, every step): a thread
//   per surface triangle writes its three vertices at the next step's time
//   (ctl[CTL_STEP] is already counted) into its primitive, keeping the w
//   lanes, and asks for a rebuild when a vertex is more than skin / 2 from
//   where it stood at the last build;
// - `mark_surfaces_built` (in the neighbours stage of a step that
//   rebuilds, before `finish_build` clears the flag): a thread per node
//   records where it stands now, with the same arithmetic.

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<atomic<u32>, CTL_LEN>;
@group(0) @binding(2) var<uniform> S: SurfInfo;
@group(0) @binding(3) var<storage, read_write> walls: array<Wall>;
// every node's x0, then every v, then every built (w unused)
@group(0) @binding(4) var<storage, read_write> surf_nodes: array<vec4<f32>>;
// per surface triangle: its three nodes, its primitive
@group(0) @binding(5) var<storage, read> surf_tris: array<vec4<u32>>;

// The time since the interval's start at the current step count.
fn interval_time() -> f32 {
    return f32(atomicLoad(&ctl[CTL_STEP]) - S.sizes.z) * P.gravity_dt.w;
}

// Node k at `tau` after the interval's start (`Surfaces::node_at`).
fn node_at(k: u32, tau: f32) -> vec3<f32> {
    return surf_nodes[k].xyz + surf_nodes[S.sizes.x + k].xyz * tau;
}

// Whether node k, standing at x, is more than skin / 2 from where it was
// at the last build.
fn strayed(k: u32, x: vec3<f32>) -> bool {
    return distance(x, surf_nodes[2u * S.sizes.x + k].xyz) > 0.5 * P.nbr.x;
}

@compute @workgroup_size(256)
fn move_surfaces(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let t = flat_index(wid, nwg, lid);
    if (t >= S.sizes.y || atomicLoad(&ctl[CTL_FROZEN]) != NONE) { return; }
    let tri = surf_tris[t];
    let tau = interval_time();
    let a = node_at(tri.x, tau);
    let b = node_at(tri.y, tau);
    let c = node_at(tri.z, tau);
    let w = walls[tri.w];
    walls[tri.w].a = vec4<f32>(a, w.a.w);
    walls[tri.w].b = vec4<f32>(b, w.b.w);
    walls[tri.w].c = vec4<f32>(c, w.c.w);
    if (strayed(tri.x, a) || strayed(tri.y, b) || strayed(tri.z, c)) {
        atomicStore(&ctl[CTL_REBUILD], 1u);
    }
}

@compute @workgroup_size(256)
fn mark_surfaces_built(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                       @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if (k >= S.sizes.x || atomicLoad(&ctl[CTL_FROZEN]) != NONE
        || atomicLoad(&ctl[CTL_REBUILD]) == 0u) { return; }
    surf_nodes[2u * S.sizes.x + k] = vec4<f32>(node_at(k, interval_time()), 0.0);
}
