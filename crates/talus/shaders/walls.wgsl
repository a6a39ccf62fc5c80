// The gap between a sphere centre and a wall primitive, twin of
// src/walls/geometry.rs (`gap`), and a wall's pose in time, twin of
// src/walls/motion.rs: the same arithmetic in the same order (f32 here,
// f64 there). Prepended to the shaders that meet walls (src/gpu/shaders.rs):
// the neighbour list (which primitives are within reach) and the contacts.

// What wall_gap finds (src/walls/geometry.rs, WallGap).
struct WallGap {
    normal: vec3<f32>,  // unit, from the particle toward the wall
    dist: f32,          // from the centre along it (the sphere touches when dist < radius)
    feature: u32,       // 0 face, 1 edge, 2 vertex (walls::Feature)
}

// The distance a one-sided triangle seen from behind reports (the CPU's
// f64::INFINITY): never near, never touching.
const WALL_FAR: f32 = 3.0e38;

// A fixed unit perpendicular to unit u (walls::geometry::perpendicular).
fn wall_perpendicular(u: vec3<f32>) -> vec3<f32> {
    var w = vec3<f32>(0.0, 1.0, 0.0);
    if (abs(u.x) < 0.9) { w = vec3<f32>(1.0, 0.0, 0.0); }
    let v = cross(u, w);
    return v / length(v);
}

// The lateral surface of a cylinder or cone (walls::geometry::cone_gap):
// a.xyz the axis point, a.w the length (< 0 infinite), b.xyz the unit
// axis, b.w the side (+1 inside), c.xy the radii at both ends.
fn wall_cone_gap(w: Wall, x: vec3<f32>) -> WallGap {
    let u = w.b.xyz;
    let len = w.a.w;
    let side = w.b.w;
    let r0 = w.c.x;
    let d = x - w.a.xyz;
    let s = dot(d, u);
    let radial = d - u * s;
    let rho = length(radial);
    var e: vec3<f32>;
    if (rho > 0.0) { e = radial / rho; } else { e = wall_perpendicular(u); }
    let infinite = len < 0.0;
    var gs = 1.0;
    var gr = 0.0;
    if (!infinite) { gs = len; gr = w.c.y - r0; }
    let g2 = gs * gs + gr * gr;
    let glen = sqrt(g2);
    let face_normal = (u * (-gr / glen) + e * (gs / glen)) * side;
    var tau = 0.5;
    if (!infinite) { tau = (s * gs + (rho - r0) * gr) / g2; }
    if (tau >= 0.0 && tau <= 1.0) {
        let dperp = (s * gr - (rho - r0) * gs) / glen;
        return WallGap(face_normal, side * dperp, 0u);
    }
    var sr = len;
    var rr = w.c.y;
    if (tau < 0.0) { sr = 0.0; rr = r0; }
    let ds = sr - s;
    let dr = rr - rho;
    let dist = sqrt(ds * ds + dr * dr);
    var normal = face_normal;
    if (dist > 0.0) { normal = (u * ds + e * dr) / dist; }
    return WallGap(normal, dist, 0u);
}

// A triangle a.xyz, b.xyz, c.xyz (walls::geometry::triangle_gap): the
// closest point by Voronoi region; one-sided and behind: WALL_FAR.
fn wall_triangle_gap(w: Wall, x: vec3<f32>, one_sided: bool) -> WallGap {
    let a = w.a.xyz;
    let b = w.b.xyz;
    let c = w.c.xyz;
    let ab = b - a;
    let ac = c - a;
    let ap = x - a;
    let nc = cross(ab, ac);
    let n = nc / length(nc);
    let sd = dot(ap, n);
    if (one_sided && sd < 0.0) {
        return WallGap(-n, WALL_FAR, 0u);
    }
    var face_normal = n;
    if (sd >= 0.0) { face_normal = -n; }
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    let bp = x - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    let cp = x - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    let vc = d1 * d4 - d3 * d2;
    let vb = d5 * d2 - d1 * d6;
    let va = d3 * d6 - d5 * d4;
    var q: vec3<f32>;
    var feature = 1u;
    if (d1 <= 0.0 && d2 <= 0.0) {
        q = a;
        feature = 2u;
    } else if (d3 >= 0.0 && d4 <= d3) {
        q = b;
        feature = 2u;
    } else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        q = a + ab * (d1 / (d1 - d3));
    } else if (d6 >= 0.0 && d5 <= d6) {
        q = c;
        feature = 2u;
    } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        q = a + ac * (d2 / (d2 - d6));
    } else if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        q = b + (c - b) * t;
    } else {
        return WallGap(face_normal, abs(sd), 0u);
    }
    let diff = q - x;
    let dist = length(diff);
    var normal = face_normal;
    if (dist > 0.0) { normal = diff / dist; }
    return WallGap(normal, dist, feature);
}

fn wall_gap(w: Wall, x: vec3<f32>) -> WallGap {
    switch (w.kind) {
        case WALL_CYLINDER, WALL_CONE: {
            return wall_cone_gap(w, x);
        }
        case WALL_TRIANGLE: {
            return wall_triangle_gap(w, x, w.a.w == 1.0);
        }
        case WALL_PLANE, default: {
            let dist = dot(x - w.a.xyz, w.b.xyz);
            return WallGap(-w.b.xyz, dist, 0u);
        }
    }
}

// Whether point c lies within tol of primitive w: a triangle two-sided
// whatever its sidedness, another kind |gap| (walls::geometry::on_triangle).
fn on_triangle(w: Wall, c: vec3<f32>, tol: f32) -> bool {
    var d: f32;
    if (w.kind == WALL_TRIANGLE) {
        d = wall_triangle_gap(w, c, false).dist;
    } else {
        d = abs(wall_gap(w, c).dist);
    }
    return d <= tol;
}

// A scene wall's pose at time t (walls::motion::pose_at): servo.x the
// servo's displacement along m.servo.xyz, servo.y its velocity. Fills
// origin (w: angle), rot (cos, sin, 1 when not the identity), velocity,
// omega, servo; built, force and torque are left zero.
fn pose_at(m: WallMotion, t: f32, servo: vec2<f32>) -> WallPose {
    let start = m.axis.w;
    let stop = m.velocity.w;
    let tp = clamp(t, start, stop) - start;
    let running = t >= start && t < stop;
    let w = m.oscillation.w;
    let angle = m.axis_point.w * tp;
    let translation = m.velocity.xyz * tp + m.oscillation.xyz * sin(w * tp) + m.servo.xyz * servo.x;
    var own = vec3<f32>(0.0);
    var omega = vec3<f32>(0.0);
    if (running) {
        own = m.velocity.xyz + m.oscillation.xyz * (w * cos(w * tp));
        omega = m.axis.xyz * m.axis_point.w;
    }
    let velocity = own + m.servo.xyz * servo.y;
    var moving = 0.0;
    if (any(translation != vec3<f32>(0.0)) || angle != 0.0) { moving = 1.0; }
    var p: WallPose;
    p.origin = vec4<f32>(m.axis_point.xyz + translation, angle);
    p.rot = vec4<f32>(cos(angle), sin(angle), moving, 0.0);
    p.velocity = vec4<f32>(velocity, 0.0);
    p.omega = vec4<f32>(omega, 0.0);
    p.servo = vec4<f32>(servo, 0.0, 0.0);
    return p;
}

// R(angle) v with sign s = sin(angle) or R(-angle) v with s = -sin(angle):
// v cos + (u x v) s + u (u.v)(1 - cos) (walls::motion::Pose::rotate).
fn wall_rotate(u: vec3<f32>, c: f32, s: f32, v: vec3<f32>) -> vec3<f32> {
    return v * c + cross(u, v) * s + u * (dot(u, v) * (1.0 - c));
}

// World -> body frame: axis_point + R(-angle)(x - origin); x itself when
// the pose is the identity.
fn to_body(p: WallPose, m: WallMotion, x: vec3<f32>) -> vec3<f32> {
    if (p.rot.z == 0.0) { return x; }
    return m.axis_point.xyz + wall_rotate(m.axis.xyz, p.rot.x, -p.rot.y, x - p.origin.xyz);
}

// A body-frame direction in the world: R(angle) n.
fn dir_to_world(p: WallPose, m: WallMotion, n: vec3<f32>) -> vec3<f32> {
    if (p.rot.z == 0.0) { return n; }
    return wall_rotate(m.axis.xyz, p.rot.x, p.rot.y, n);
}

// The velocity of the wall's point at world position c.
fn wall_velocity_at(p: WallPose, c: vec3<f32>) -> vec3<f32> {
    return p.velocity.xyz + cross(p.omega.xyz, c - p.origin.xyz);
}
