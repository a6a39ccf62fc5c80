//! The GPU's wall stages against their CPU twins, on moving walls: a
//! turning, irregularly triangulated mesh floor (a turntable), an analytic
//! cylinder around it and a servo plane pressing from above. From the same
//! f32-exact state, one step on each backend: the wall entries of every
//! row (the list build with meshes found through their grid in the body
//! frame), the force and torque on every particle (the contact stage with
//! the mesh reduction and the walls' velocities), the load on each wall
//! (the workgroup reduction against the CPU's sums) and each wall's pose
//! for the next step (`move_walls`, the servo's first move). Then, over a
//! few hundred steps of the bed tumbling on the turntable, no triangle
//! within contact of a particle is ever missing from its row, on either
//! backend (checked every step against all triangles). Skips without an
//! adapter unless TALUS_REQUIRE_GPU=1.

use crate::common;

use common::*;
use glam::DVec3;
use std::collections::{BTreeSet, HashMap};
use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{context::test_context, GpuBackend};
use talus::rng::Rng;
use talus::scene::{Material, Scene, SceneBuilder, Servo, Shape, Side, Wall, WallMotion};
use talus::state::{INDEX, WALL};
use talus::walls::gap;

fn glass() -> Material {
    Material {
        name: "glass".into(),
        density: 2500.0,
        youngs_modulus: 5e7,
        poisson_ratio: 0.25,
        restitution: 0.5,
        friction: 0.5,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// A fan of triangles around the centre of a disc of radius `h` at z = 0,
/// with a jittered ring in between: irregular triangles, edges and
/// vertices shared by many.
fn disc(h: f64, seed: u64) -> Vec<[[f64; 3]; 3]> {
    let mut rng = Rng::new(seed);
    let k = 24;
    let ring = |rad: f64, rng: &mut Rng| -> Vec<[f64; 3]> {
        (0..k)
            .map(|i| {
                let a = 2.0 * std::f64::consts::PI * (i as f64 + rng.range(-0.3, 0.3)) / k as f64;
                [rad * a.cos(), rad * a.sin(), 0.0]
            })
            .collect()
    };
    let inner = ring(0.45 * h, &mut rng);
    let outer = ring(h, &mut rng);
    let mut t = Vec::new();
    for i in 0..k {
        let j = (i + 1) % k;
        t.push([[0.0; 3], inner[i], inner[j]]);
        t.push([inner[i], outer[i], outer[j]]);
        t.push([inner[i], outer[j], inner[j]]);
    }
    t
}

/// ~250 spheres on the turntable (the lowest layer pressed 1e-3 of a
/// radius into it, a ring pressed as much into the rim), inside a
/// cylinder, a servo plane above.
fn turntable() -> Scene {
    let (h, r) = (0.012, 0.001);
    let mut rng = Rng::new(17);
    let mut b = SceneBuilder::new("turntable")
        .domain([-0.014, -0.014, -0.004], [0.014, 0.014, 0.02])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(0.2)
        .steps(1)
        .material(glass());
    let mut n = 0;
    for layer in 0..3 {
        let z = r * 0.999 + layer as f64 * 2.01 * r;
        for i in -5..=5 {
            for j in -5..=5 {
                let (x, y) = (i as f64 * 2.1 * r, j as f64 * 2.1 * r);
                if (x * x + y * y).sqrt() > h - 3.3 * r {
                    continue;
                }
                // f32-exact, so that both backends start from the same state
                let q = |v: f64| v as f32 as f64;
                let v = [rng.range(-0.05, 0.05), rng.range(-0.05, 0.05), 0.0].map(q);
                b = b.particle([q(x), q(y), q(z)], v, r, "glass");
                n += 1;
            }
        }
        // half a ring pressed against the rim (its load does not cancel)
        for k in 0..10 {
            let a = 2.0 * std::f64::consts::PI * (k as f64 + 0.5 * layer as f64) / 20.0;
            let rho = h - r * 0.999;
            let q = |v: f64| v as f32 as f64;
            b = b.particle(
                [q(rho * a.cos()), q(rho * a.sin()), q(z)],
                [0.0; 3],
                r,
                "glass",
            );
            n += 1;
        }
    }
    assert!(n > 200);
    let mut s = build(b);
    let spin = WallMotion {
        axis_point: [0.0; 3],
        axis: [0.0, 0.0, 1.0],
        angular_velocity: 20.0,
        ..Default::default()
    };
    s.walls.push(Wall {
        name: Some("turntable".into()),
        shape: Shape::Mesh {
            file: "disc.stl".into(),
            triangles: disc(h + 0.001, 5),
            one_sided: false,
            degenerate: 0,
        },
        material: 0,
        motion: Some(spin),
        servo: None,
    });
    s.walls.push(Wall {
        name: Some("rim".into()),
        shape: Shape::Cylinder {
            center: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            radius: h,
            length: None,
            side: Side::Inside,
        },
        material: 0,
        motion: None,
        servo: None,
    });
    s.walls.push(Wall {
        name: Some("lid".into()),
        shape: Shape::Plane {
            point: [0.0, 0.0, 0.0075],
            normal: [0.0, 0.0, -1.0],
        },
        material: 0,
        motion: None,
        servo: Some(Servo {
            force: 0.05,
            max_speed: 0.02,
            direction: [0.0, 0.0, -1.0],
        }),
    });
    s
}

/// Each particle's wall entries (primitive indices) by id.
fn cpu_wall_rows(c: &CpuBackend) -> HashMap<u32, BTreeSet<u32>> {
    let st = &c.st;
    (0..st.particles.len())
        .map(|i| {
            let row = st.work.nbr_start[i] as usize..st.work.nbr_start[i + 1] as usize;
            let walls = st.work.nbr[row]
                .iter()
                .filter(|&&e| e & WALL != 0)
                .map(|&e| e & INDEX)
                .collect();
            (st.particles.id[i], walls)
        })
        .collect()
}

fn gpu_wall_rows(g: &GpuBackend) -> HashMap<u32, BTreeSet<u32>> {
    let n = g.data.n;
    let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    let ids = g.ids();
    let start: Vec<u32> = g.read_vec(&g.data.nbr_start, n + 1);
    let nbr: Vec<u32> = g.read_vec(&g.data.nbr, len);
    (0..n as usize)
        .map(|i| {
            let walls = nbr[start[i] as usize..start[i + 1] as usize]
                .iter()
                .filter(|&&e| e & WALL != 0)
                .map(|&e| e & INDEX)
                .collect();
            (ids[i], walls)
        })
        .collect()
}

#[test]
fn gpu_wall_stages_match_cpu_on_moving_walls() {
    let Some(ctx) = test_context() else { return };
    let scene = turntable();
    let mut c = CpuBackend::new(&scene).unwrap();
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    c.advance(1).unwrap();
    g.advance(1).unwrap();

    // the list: the same wall entries, but where the primitive lies within
    // f32 rounding of the reach
    let (cr, gr) = (cpu_wall_rows(&c), gpu_wall_rows(&g));
    let st = &c.st;
    let at: HashMap<u32, usize> = st
        .particles
        .id
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let (mut entries, mut borderline) = (0, 0);
    for (id, cw) in &cr {
        let gw = &gr[id];
        entries += cw.len();
        for w in cw.symmetric_difference(gw) {
            let x = st.particles.pos_rad[at[id]];
            let b = &st.walls.bodies[st.walls.prims[*w as usize].wall as usize];
            let xb = b.pose.to_body(DVec3::new(x[0], x[1], x[2])).to_array();
            let d = gap(&st.walls.prims[*w as usize], xb).dist;
            let reach = x[3] + st.skin;
            assert!(
                (d - reach).abs() < 1e-5 * reach,
                "particle {id}: wall primitive {w} listed on one backend only, {d} from a reach of {reach}"
            );
            borderline += 1;
        }
    }
    println!("{entries} wall entries, {borderline} at the reach");
    assert!(
        entries > 150,
        "too few wall entries to mean much: {entries}"
    );

    // forces and torques, norm-wise
    let ids = g.ids();
    let (gf, gt) = g.forces();
    let (mut df, mut nf, mut dq, mut nq) = (0.0, 0.0, 0.0, 0.0);
    for (k, id) in ids.iter().enumerate() {
        let i = at[id];
        for a in 0..3 {
            let (f, t) = (st.work.force[i][a], st.work.torque[i][a]);
            df += (gf[k][a] as f64 - f).powi(2);
            nf += f * f;
            dq += (gt[k][a] as f64 - t).powi(2);
            nq += t * t;
        }
    }
    let (ef, eq) = ((df / nf).sqrt(), (dq / nq).sqrt());
    println!("force {ef:e}, torque {eq:e} (norm-wise relative)");
    // overlaps of 1e-6 m from f32 coordinates of ~1e-2 m (ulp ~1e-9):
    // ~1e-3 relative
    assert!(ef < 2e-3 && eq < 2e-3, "force {ef:e}, torque {eq:e}");

    // the loads, and the poses for the next step
    let (cw, gw) = (c.walls(), g.walls());
    for (k, ((cp, cl), (gp, gl))) in cw.iter().zip(&gw).enumerate() {
        let norm = DVec3::from(cl.force).length().max(1e-12);
        // the lid has not reached the bed yet
        assert!(k == 2 || norm > 1e-9, "wall {k} carries nothing");
        let e = (DVec3::from(cl.force) - DVec3::from(gl.force)).length() / norm;
        // torques relative to their size or the force's at the bed's size
        let tn = DVec3::from(cl.torque).length() + norm * 0.012;
        let et = (DVec3::from(cl.torque) - DVec3::from(gl.torque)).length() / tn;
        println!(
            "wall {k}: load {:?} vs {:?} ({e:e}, torque {et:e})",
            cl.force, gl.force
        );
        assert!(e < 2e-3 && et < 2e-3, "wall {k}: load {cl:?} vs GPU {gl:?}");
        let scale = 1e-3 + cp.origin.length();
        assert!(
            (cp.origin - gp.origin).length() < 1e-5 * scale
                && (cp.angle - gp.angle).abs() < 1e-6
                && (cp.velocity - gp.velocity).length() < 1e-5 * (1.0 + cp.velocity.length())
                && cp.moving == gp.moving,
            "wall {k}: pose {cp:?} vs GPU {gp:?}"
        );
    }
    // the servo has moved down by one step at full speed (the lid did not
    // touch yet)
    let lid = &cw[2].0;
    assert!(lid.velocity[2] < 0.0, "servo velocity {:?}", lid.velocity);
}

/// Every triangle and analytic primitive in contact with a particle (gap
/// below its radius, in the wall's body frame at the current pose) is in
/// its row, every step, while the turntable turns under a tumbling bed.
#[test]
fn moving_mesh_entries_never_miss_a_contact() {
    let scene = turntable();
    never_miss(&mut CpuBackend::new(&scene).unwrap(), cpu_wall_rows);
    if let Some(ctx) = test_context() {
        never_miss(&mut GpuBackend::new(&scene, ctx).unwrap(), gpu_wall_rows);
    }
}

fn never_miss<B: Backend>(b: &mut B, rows_of: fn(&B) -> HashMap<u32, BTreeSet<u32>>) {
    let prims = talus::walls::primitives(&turntable());
    let mut checked = 0;
    for _ in 0..300 {
        b.advance(1).unwrap();
        let poses = b.walls();
        let rows = rows_of(b);
        let p = b.snapshot();
        for (i, id) in p.id.iter().enumerate() {
            let x = p.pos_rad[i];
            for (w, prim) in prims.iter().enumerate() {
                let xb = poses[prim.wall as usize]
                    .0
                    .to_body(DVec3::new(x[0], x[1], x[2]))
                    .to_array();
                // f32 positions on the GPU: a hair of slack
                if gap(prim, xb).dist < x[3] * (1.0 - 1e-5) {
                    checked += 1;
                    assert!(
                        rows[id].contains(&(w as u32)),
                        "{}: particle {id} touches primitive {w} but its row lacks it",
                        b.name()
                    );
                }
            }
        }
    }
    println!("{}: {checked} contacts checked", b.name());
    assert!(checked > 5_000, "{}: only {checked} contacts", b.name());
}
