//! The WGSL wall geometry and motion (`shaders/walls.wgsl`, through
//! `wall_eval`) against the CPU's (`walls::gap`, `walls::on_triangle`,
//! `walls::pose_at` and the pose's maps), on thousands of random points for
//! every kind of primitive. Inputs are rounded to f32 first and the CPU
//! evaluates those values in f64, so the differences are the f32
//! arithmetic's alone. Tolerances: distances 1e-5 of the geometry scale
//! (1 + |x| + the primitive's largest coordinate; f32's 6e-8 relative
//! rounding over a few operations on coordinates of that size); normals
//! 1e-4 plus that over the distance ((q − x)/dist is ill-conditioned near
//! an edge or rim); poses 3e-5 of their scale × (1 + |angle|). A point
//! within 2e-5 of the scale of a feature boundary (a triangle's Voronoi
//! regions, a cone's rim) may land in the neighbouring feature in f32: it
//! passes when the GPU matches the CPU at one of x ± δ along the axes (δ
//! the band's width); fewer than 2% of points may need that. On the axis
//! of a cylinder or cone the radial direction is arbitrary and the gap is
//! not compared. Skips when no adapter exists, unless
//! TALUS_REQUIRE_GPU=1.

use glam::DVec3;
use talus::gpu::context::test_context;
use talus::gpu::layout::{Wall, WallCase, WallMotion as MotionLanes, WallOut};
use talus::gpu::wall_eval::WallEval;
use talus::rng::Rng;
use talus::scene::types::{Oscillation, WallMotion};
use talus::walls::{gap, on_triangle, pose_at, Kind, Primitive, WallGap};

/// Rounded through f32.
fn r32(x: f64) -> f64 {
    x as f32 as f64
}

fn unit(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v = DVec3::from(rng.in_unit_ball());
        if v.length() > 0.1 {
            return (v / v.length()).to_array().map(r32);
        }
    }
}

fn pt(rng: &mut Rng, half: f64) -> [f64; 3] {
    std::array::from_fn(|_| r32(rng.range(-half, half)))
}

/// A random primitive of `kind` (geometry scale ~1, centred within 2 of
/// the origin), its values f32-exact.
fn primitive(rng: &mut Rng, kind: Kind, variant: u32) -> Primitive {
    let (a, b, c) = match kind {
        Kind::Plane => {
            let p = pt(rng, 2.0);
            let n = unit(rng);
            ([p[0], p[1], p[2], 0.0], [n[0], n[1], n[2], 0.0], [0.0; 4])
        }
        Kind::Cylinder | Kind::Cone => {
            let p = pt(rng, 2.0);
            let u = unit(rng);
            let side = if variant & 1 == 0 { 1.0 } else { -1.0 };
            let len = if kind == Kind::Cylinder && variant & 2 != 0 {
                -1.0
            } else {
                r32(rng.range(0.5, 3.0))
            };
            let r0 = r32(rng.range(0.3, 1.5));
            let r1 = if kind == Kind::Cone {
                r32(rng.range(0.0, 1.5))
            } else {
                r0
            };
            (
                [p[0], p[1], p[2], len],
                [u[0], u[1], u[2], side],
                [r0, r1, 0.0, 0.0],
            )
        }
        Kind::Triangle => {
            let o = pt(rng, 2.0);
            let v: Vec<[f64; 3]> = (0..3)
                .map(|_| {
                    let d = pt(rng, 1.0);
                    [r32(o[0] + d[0]), r32(o[1] + d[1]), r32(o[2] + d[2])]
                })
                .collect();
            let w = if variant & 1 == 1 { 1.0 } else { 0.0 };
            (
                [v[0][0], v[0][1], v[0][2], w],
                [v[1][0], v[1][1], v[1][2], 0.0],
                [v[2][0], v[2][1], v[2][2], 0.0],
            )
        }
    };
    Primitive {
        kind,
        material: 0,
        wall: 0,
        a,
        b,
        c,
    }
}

/// A point to test against `p`: uniform around it, or near one of its
/// features (a triangle's vertices and edges, a cone's rims, the surface).
fn point(rng: &mut Rng, p: &Primitive) -> [f64; 3] {
    let v = |q: [f64; 4]| DVec3::new(q[0], q[1], q[2]);
    let near = |rng: &mut Rng, q: DVec3, s: f64| {
        (q + DVec3::from(rng.in_unit_ball()) * s)
            .to_array()
            .map(r32)
    };
    let scale = [0.02, 0.2, 1.0][(rng.next_u64() % 3) as usize];
    match (p.kind, rng.next_u64() % 3) {
        (_, 0) => pt(rng, 4.0),
        (Kind::Triangle, 1) => {
            let k = (rng.next_u64() % 3) as usize;
            near(rng, v([p.a, p.b, p.c][k]), scale)
        }
        (Kind::Triangle, _) => {
            let (k, t) = ((rng.next_u64() % 3) as usize, rng.f64());
            let q = [v(p.a), v(p.b), v(p.c)];
            near(rng, q[k] + (q[(k + 1) % 3] - q[k]) * t, scale)
        }
        (Kind::Cylinder | Kind::Cone, k) => {
            // a point of the surface (a rim when k == 1), moved
            let u = v(p.b);
            let e = talus::walls::geometry::perpendicular(u);
            let f = u.cross(e);
            let ph = rng.range(0.0, std::f64::consts::TAU);
            let len = if p.a[3] < 0.0 { 2.0 } else { p.a[3] };
            let t = if k == 1 {
                (rng.next_u64() % 2) as f64
            } else {
                rng.f64()
            };
            let r = p.c[0] + (p.c[1] - p.c[0]) * t;
            let q = v(p.a) + u * (t * len) + (e * ph.cos() + f * ph.sin()) * r;
            near(rng, q, scale)
        }
        (Kind::Plane, _) => near(rng, v(p.a), scale * 3.0),
    }
}

fn motion(rng: &mut Rng, k: usize) -> (WallMotion, [f64; 3], f64, f64, bool) {
    if k % 4 == 0 {
        // at rest, no servo
        return (WallMotion::default(), [0.0; 3], 0.0, 0.0, false);
    }
    let v = pt(rng, 1.0);
    let m = WallMotion {
        velocity: if k % 4 == 3 { [0.0; 3] } else { v },
        axis_point: pt(rng, 2.0),
        axis: unit(rng),
        angular_velocity: r32(rng.range(-3.0, 3.0)),
        oscillation: (k % 2 == 1).then(|| Oscillation {
            amplitude: r32(rng.range(0.0, 0.1)),
            frequency: r32(rng.range(0.0, 5.0)),
            direction: unit(rng),
        }),
        start: r32(rng.range(0.0, 1.0)),
        stop: r32(rng.range(1.0, 4.0)),
    };
    let servo = k % 3 == 0;
    let (sx, sv) = if servo {
        (r32(rng.range(-0.1, 0.1)), r32(rng.range(-0.5, 0.5)))
    } else {
        (0.0, 0.0)
    };
    (m, unit(rng), sx, sv, servo)
}

/// The CPU's gap at `x` and at `x` moved by ±δ along each axis: a GPU
/// result that matches any of them is within δ of a feature boundary.
fn cpu_gaps(p: &Primitive, x: [f64; 3], delta: f64) -> Vec<WallGap> {
    let mut v = vec![gap(p, x)];
    for k in 0..6 {
        let mut y = x;
        y[k / 2] += if k % 2 == 0 { delta } else { -delta };
        v.push(gap(p, y));
    }
    v
}

fn matches(c: &WallGap, g: &WallOut, tol: f64, slack: f64) -> bool {
    let gd = g.gap[3] as f64;
    if c.dist == f64::INFINITY {
        return gd >= 1e38;
    }
    if c.feature as u32 != g.flags[0] || (gd - c.dist).abs() > tol + slack {
        return false;
    }
    // the normal is ill-conditioned at small distances off the face
    // ((q − x)/dist): allow f32 position error / dist
    let ntol = 1e-4 + tol / c.dist.abs().max(1e-12);
    let n = DVec3::from(c.normal);
    let gn = DVec3::new(g.gap[0] as f64, g.gap[1] as f64, g.gap[2] as f64);
    (gn - n).length() <= ntol.min(2.0)
}

#[test]
fn gpu_wall_gap_and_motion_match_cpu() {
    let Some(ctx) = test_context() else { return };
    let eval = WallEval::new(&ctx);
    let mut rng = Rng::new(2025);
    let kinds = [
        ("plane", Kind::Plane, 0),
        ("cylinder inside finite", Kind::Cylinder, 0),
        ("cylinder outside finite", Kind::Cylinder, 1),
        ("cylinder inside infinite", Kind::Cylinder, 2),
        ("cylinder outside infinite", Kind::Cylinder, 3),
        ("cone inside", Kind::Cone, 0),
        ("cone outside", Kind::Cone, 1),
        ("triangle", Kind::Triangle, 0),
        ("triangle one-sided", Kind::Triangle, 1),
    ];
    let per_kind = 4000;
    let mut failures = Vec::new();
    for (name, kind, variant) in kinds {
        let mut cases = Vec::new();
        let mut inputs = Vec::new();
        for k in 0..per_kind {
            let p = primitive(&mut rng, kind, variant);
            let x = point(&mut rng, &p);
            let tol = r32(rng.range(0.0, 0.5));
            let (m, sdir, sx, sv, servo) = motion(&mut rng, k);
            let t = r32(rng.range(-0.5, 5.0));
            let lanes = MotionLanes::from_scene(Some(&m), None, 1.0);
            let mut lanes = MotionLanes {
                servo: [sdir[0] as f32, sdir[1] as f32, sdir[2] as f32, 0.0],
                ..lanes
            };
            if !servo {
                lanes.servo = [0.0; 4];
            }
            cases.push(WallCase {
                wall: Wall::from_primitive(&p),
                motion: lanes,
                x: [x[0] as f32, x[1] as f32, x[2] as f32, tol as f32],
                t: [t as f32, sx as f32, sv as f32, 0.0],
            });
            inputs.push((p, x, tol, m, DVec3::from(sdir), sx, sv, servo, t));
        }
        let outs = eval.eval(&ctx, &cases);
        let (mut band, mut features) = (0usize, [0usize; 3]);
        for (k, ((p, x, tol, m, sdir, sx, sv, servo, t), g)) in inputs.iter().zip(&outs).enumerate()
        {
            // geometry scale: the point's and the primitive's coordinates
            let scale = 1.0
                + DVec3::from(*x).length()
                + [p.a, p.b, p.c]
                    .iter()
                    .map(|q| DVec3::new(q[0], q[1], q[2]).length())
                    .fold(0.0, f64::max);
            let dtol = 1e-5 * scale;
            let delta = 2e-5 * scale;
            let exact = gap(p, *x);
            features[exact.feature as usize] += 1;
            let ok = if matches(&exact, g, dtol, 0.0) {
                true
            } else if cpu_gaps(p, *x, delta)
                .iter()
                .any(|c| matches(c, g, dtol, 2.0 * delta))
            {
                band += 1;
                true
            } else {
                false
            };
            // a cylinder's radial direction is undefined on the axis
            let on_axis = matches!(p.kind, Kind::Cylinder | Kind::Cone) && {
                let u = DVec3::new(p.b[0], p.b[1], p.b[2]);
                let d = DVec3::from(*x) - DVec3::new(p.a[0], p.a[1], p.a[2]);
                (d - u * d.dot(u)).length() < 1e-3 * scale
            };
            if !ok && !on_axis {
                failures.push(format!(
                    "{name} #{k}: x {x:?}, {p:?}: cpu {exact:?}, gpu {g:?}"
                ));
            }
            let c_on = on_triangle(p, *x, *tol);
            let d = if p.kind == Kind::Triangle {
                talus::walls::geometry::triangle_gap(p, DVec3::from(*x), false).dist
            } else {
                exact.dist.abs()
            };
            if (g.flags[1] == 1) != c_on && (d - tol).abs() > 2.0 * dtol {
                failures.push(format!("{name} #{k}: on_triangle cpu {c_on}, gpu {g:?}"));
            }
            // motion
            let so = if *servo { *sdir * *sx } else { DVec3::ZERO };
            let svel = if *servo { *sdir * *sv } else { DVec3::ZERO };
            let pose = pose_at(m, *t, so, svel);
            let xv = DVec3::from(*x);
            let v4 = |a: [f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
            let pscale = 1.0 + xv.length() + pose.origin.length() + pose.axis_point.length();
            let ptol = 3e-5 * pscale * (1.0 + pose.angle.abs());
            let vscale = 1.0 + pose.velocity.length() + pose.omega.length() * pscale;
            let checks = [
                ("origin", (v4(g.pose.origin) - pose.origin).length(), ptol),
                (
                    "angle",
                    (g.pose.origin[3] as f64 - pose.angle).abs(),
                    1e-6 * (1.0 + pose.angle.abs()),
                ),
                (
                    "cos",
                    (g.pose.rot[0] as f64 - pose.cos).abs(),
                    1e-5 * (1.0 + pose.angle.abs()),
                ),
                (
                    "sin",
                    (g.pose.rot[1] as f64 - pose.sin).abs(),
                    1e-5 * (1.0 + pose.angle.abs()),
                ),
                (
                    "velocity",
                    (v4(g.pose.velocity) - pose.velocity).length(),
                    3e-5 * vscale,
                ),
                (
                    "omega",
                    (v4(g.pose.omega) - pose.omega).length(),
                    1e-5 * vscale,
                ),
                ("to_body", (v4(g.body) - pose.to_body(xv)).length(), ptol),
                (
                    "dir_to_world",
                    (v4(g.dir) - pose.dir_to_world(xv)).length(),
                    ptol,
                ),
                (
                    "velocity_at",
                    (v4(g.vel) - pose.velocity_at(xv)).length(),
                    3e-5 * vscale,
                ),
                (
                    "moving",
                    ((g.pose.rot[2] == 1.0) != pose.moving) as u8 as f64,
                    0.0,
                ),
            ];
            for (what, err, tol) in checks {
                if err > tol {
                    failures.push(format!(
                        "{name} #{k} {what}: off by {err:e} > {tol:e}; cpu {pose:?}, gpu {:?}",
                        g.pose
                    ));
                }
            }
            if !pose.moving {
                // a resting wall's maps are the identity, bit for bit
                assert_eq!(g.body[..3], cases_x(x)[..], "{name} #{k}");
            }
        }
        eprintln!(
            "{name}: {per_kind} points, features (face, edge, vertex) {features:?}, {band} within the feature-boundary band"
        );
        if kind == Kind::Triangle {
            assert!(features.iter().all(|&f| f > 200), "{name}: {features:?}");
        }
        assert!(band < per_kind / 50, "{name}: {band} in the band");
    }
    assert!(
        failures.is_empty(),
        "{} disagreements; first: {}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

fn cases_x(x: &[f64; 3]) -> [f32; 3] {
    x.map(|v| v as f32)
}
