//! Grains coupled to FEM bodies (`talus::fem::coupling`), on every
//! backend: total momentum across the exchange, the load a resting bed
//! puts on a clamped plate (default run), and a bed settled on a thin
//! clamped square plate against Kirchhoff's plate theory (`--full`).

use super::common::err;
use super::fem::{centre_deflection, plate_static};
use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use crate::validate::theory;
use glam::DVec3;
use talus::backend::Backend;
use talus::scene::{
    Body, BodyElement, BodyIntegrator, BodyMesh, BodyModel, Material, RadiusDist, SceneBuilder,
};
use talus::Setup;

fn rubber(e: f64) -> Material {
    let mut m = Material::new("rubber", 1200.0, e);
    m.poisson_ratio = 0.3;
    m.restitution = 0.5;
    m.friction = 0.5;
    m
}

fn glass() -> Material {
    let mut m = Material::new("glass", 2500.0, 1e7);
    m.restitution = 0.5;
    m.friction = 0.3;
    m
}

fn block(min: [f64; 3], max: [f64; 3], divisions: [u32; 3], material: usize) -> Body {
    Body {
        name: Some("block".into()),
        element: BodyElement::Tet4,
        ..Body::generated_box(min, max, divisions, material)
    }
}

/// Total momentum tolerance: 1e-9 of p0 where the grains' state is f64
/// (CPU); on the GPU the grains' velocities are f32, whose resolution is
/// 2⁻²⁴ ≈ 6e-8 of the sphere's speed: two f32 ulps there.
fn momentum_tol(backend: &str) -> Tol {
    if backend == "cpu" {
        Tol::Abs(1e-9)
    } else {
        Tol::Abs(2.0 * f32::EPSILON as f64)
    }
}

/// Σ m v of the grains (f64 read-back).
fn grain_momentum(be: &mut dyn Backend) -> DVec3 {
    let p = be.snapshot();
    p.vel_invm
        .iter()
        .map(|v| DVec3::new(v[0], v[1], v[2]) / v[3])
        .sum()
}

/// Σ m g of the grains (N).
fn grain_weight(be: &mut dyn Backend, g: f64) -> f64 {
    be.snapshot().vel_invm.iter().map(|v| g / v[3]).sum()
}

fn body0(be: &dyn Backend) -> Result<&talus::fem::coupling::Coupled, String> {
    be.bodies()
        .and_then(|s| s.bodies.first())
        .ok_or_else(|| "the backend has no FEM body".to_string())
}

/// The clamp boxes of the four side faces of a plate [−a/2, a/2]² × [zlo,
/// zhi] (nodes on those faces, through the whole thickness).
fn side_clamps(a: f64, zlo: f64, zhi: f64) -> Vec<([f64; 3], [f64; 3])> {
    let (o, e) = (0.5 * a + 1e-3 * a, 0.5 * a - 1e-6 * a);
    let (z0, z1) = (zlo - 1e-3 * a, zhi + 1e-3 * a);
    vec![
        ([-o, -o, z0], [-e, o, z1]),
        ([e, -o, z0], [o, o, z1]),
        ([-o, -o, z0], [o, -e, z1]),
        ([-o, e, z0], [o, o, z1]),
    ]
}

/// The `coupled` case's bed: 64 glass spheres (R = 2.5 mm, e = 0.2) from
/// a lattice onto a rubber plate 60 × 60 × 4 mm (8 × 8 × 1 tet4, StVK,
/// explicit, E = 5e7 Pa, α = 400 /s) clamped on its side faces, gravity,
/// 0.15 s (settled: at 0.066 s the bed still rocked, +1.6 % on the load).
/// `every`: the exchange interval (None: auto). `tests/bodies.rs` runs it
/// too (K against K = 1, the resume).
pub fn bed_on_plate(every: Option<u32>) -> Result<talus::scene::Scene, talus::scene::SceneError> {
    let a = 0.06;
    let mut plate = block(
        [-0.5 * a, -0.5 * a, -0.004],
        [0.5 * a, 0.5 * a, 0.0],
        [8, 8, 1],
        1,
    );
    plate.fixed = side_clamps(a, -0.004, 0.0);
    plate.damping = [400.0, 0.0];
    plate.exchange_every = every;
    let mut g = glass();
    g.restitution = 0.2;
    SceneBuilder::new("plate")
        .domain([-0.035, -0.035, -0.01], [0.035, 0.035, 0.03])
        .gravity([0.0, 0.0, -9.81])
        .material(g)
        .material(rubber(5e7))
        .dt_auto(0.2)
        .duration(0.15)
        .generate(
            "lattice",
            ([-0.022, -0.022, 0.0025], [0.022, 0.022, 0.012]),
            RadiusDist::Constant(0.0025),
            "glass",
            None,
            [0.0; 3],
        )
        .body(plate)
        .build()
}

/// Case coupled: a sphere hitting a free block (total momentum), a bed
/// resting on a clamped plate (its weight, nothing through).
pub fn case_coupled(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    // 1. no gravity, nothing fixed: the sphere's impulse all goes to the body
    let scene = SceneBuilder::new("hit")
        .domain([-0.05, -0.05, -0.05], [0.05, 0.05, 0.05])
        .gravity([0.0; 3])
        .material(glass())
        .material(rubber(2e6))
        .dt_auto(0.2)
        .steps(4000)
        .particle([0.004, 0.003, 0.02], [0.0, 0.0, -1.0], 0.004, "glass")
        .body(block(
            [-0.02, -0.02, -0.005],
            [0.02, 0.02, 0.01],
            [4, 4, 2],
            1,
        ))
        .build()
        .map_err(err)?;
    let run = Setup::new(scene).map_err(err)?;
    let dt = run.dt;
    let mut be = mk.make_setup(&run)?;
    let p0 = grain_momentum(be.as_mut());
    let mut touched = false;
    let mut done = false;
    for _ in 0..40 {
        be.advance(50).map_err(err)?;
        let pb = body0(be.as_ref())?.body.momentum();
        touched |= pb.length() > 1e-3 * p0.length();
        if touched && grain_momentum(be.as_mut()).z > 0.0 {
            // until the contact is over and its last interval handed over
            for _ in 0..100 {
                be.advance(10).map_err(err)?;
                if body0(be.as_ref())?.force == DVec3::ZERO {
                    break;
                }
            }
            be.advance(10).map_err(err)?;
            done = true;
            break;
        }
    }
    if !done {
        return Err("the sphere never bounced off the block".into());
    }
    let steps = be.steps_done();
    let pg = grain_momentum(be.as_mut());
    let pb = body0(be.as_ref())?.body.momentum();
    let every = be.bodies().map_or(0, |s| s.every);
    out.row(Row::new(
        "coupled sphere on free block",
        "|Δ(p_grains + p_body)| / |p0|",
        0.0,
        (pg + pb - p0).length() / p0.length(),
        momentum_tol(mk.name()),
    ));
    out.row(Row::new(
        "coupled sphere on free block",
        "sphere's rebound v_z / v0 (bounced)",
        0.0,
        -pg.z / p0.z,
        Tol::Info,
    ));
    out.point("coupled", "hit", "p_grains_z", pg.z);
    out.point("coupled", "hit", "p_body_z", pb.z);
    out.notes.push(format!(
        "hit: a glass sphere (R = 4 mm, E = 1e7 Pa, e = 0.5) at 1 m/s onto a free rubber block (40 × 40 × 15 mm, 4 × 4 × 2 cells tet4, StVK, explicit, E = 2e6 Pa), no gravity; dt = {dt:.3e} s, K = {every}, {steps} steps (until the contact's last interval is handed over)"
    ));

    // 2. a bed resting on a plate clamped at its edges
    let run = Setup::new(bed_on_plate(None).map_err(err)?).map_err(err)?;
    let (dt, steps) = (run.dt, run.steps);
    let mut be = mk.make_setup(&run)?;
    let weight = grain_weight(be.as_mut(), 9.81);
    be.advance(steps).map_err(err)?;
    let every = be.bodies().map_or(1, |s| s.every);
    let c = body0(be.as_ref())?;
    let fz = c.force.z;
    let sag = c.body.center_of_mass().z + 0.002;
    let p = be.snapshot();
    let lowest = p
        .pos_rad
        .iter()
        .map(|x| x[2] - x[3])
        .fold(f64::INFINITY, f64::min);
    let through = p.pos_rad.iter().filter(|x| x[2] < 0.0).count();
    out.row(Row::new(
        "coupled bed on clamped plate",
        "grains' force on the plate -F_z [N]",
        weight,
        -fz,
        Tol::Rel(2e-3),
    ));
    out.row(Row::new(
        "coupled bed on clamped plate",
        "grains with their centre below the plate's top",
        0.0,
        through as f64,
        Tol::Abs(0.5),
    ));
    out.row(Row::new(
        "coupled bed on clamped plate",
        "lowest grain bottom [m] (plate top at 0)",
        0.0,
        lowest,
        Tol::Info,
    ));
    out.row(Row::new(
        "coupled bed on clamped plate",
        "plate centre-of-mass sag [m]",
        0.0,
        sag,
        Tol::Info,
    ));
    out.point("coupled", "bed", "fz", fz);
    out.point("coupled", "bed", "weight", weight);
    out.notes.push(format!(
        "bed: {} glass spheres (R = 2.5 mm, e = 0.2) from a lattice onto a rubber plate 60 × 60 × 4 mm (8 × 8 × 1 cells tet4, StVK, explicit, E = 5e7 Pa, α = 400 1/s) clamped on its four side faces, gravity 9.81; dt = {dt:.3e} s, K = {every}, {steps} steps; the force is the grains' mean force over the last exchange interval",
        p.len()
    ));
    Ok(out)
}

/// The plate case's parameters.
struct PlateSetup {
    /// Free span (m): the plate is clamped on its side faces x, y = ±a/2.
    a: f64,
    /// Thickness (m).
    h: f64,
    /// Cells along x and y, and through the thickness.
    cells: u32,
    layers: u32,
    young: f64,
    poisson: f64,
    density: f64,
    /// Rayleigh α (1/s).
    alpha: f64,
    /// Grain radius (m), layers of grains.
    r: f64,
    grain_layers: u32,
    /// Simulated time (s) and the averaging window at its end (s).
    duration: f64,
    window: f64,
}

const PLATE: PlateSetup = PlateSetup {
    a: 0.066,
    h: 0.0015,
    cells: 12,
    layers: 1,
    young: 2e7,
    poisson: 0.3,
    density: 1000.0,
    alpha: 5000.0,
    r: 0.0025,
    grain_layers: 3,
    duration: 0.2,
    window: 0.05,
};

/// Case plate (`--full`): grains settled on a thin clamped square plate
/// against Kirchhoff.
pub fn case_plate(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let s = &PLATE;
    let mut out = CaseResult::default();
    let d = theory::plate_rigidity(s.young, s.poisson, s.h);
    // FEM alone, static, under a uniform load (its own weight): the mesh's
    // and the 3-D solid's (shear, thickness) departure from Kirchhoff
    if mk.name() == "cpu" {
        for (cells, layers) in [(s.cells, s.layers), (2 * s.cells, s.layers)] {
            let (w, q) = plate_static(s.a, s.h, cells, layers, s.young, s.poisson)?;
            let wk = theory::clamped_plate_centre(q, s.a, d);
            out.row(Row::new(
                &format!("plate FEM static {cells}×{cells}×{layers}"),
                "centre deflection / Kirchhoff",
                1.0,
                w / wk,
                Tol::Info,
            ));
        }
    }
    let g = 9.81;
    let gm = Material {
        name: "grain".into(),
        density: 2500.0,
        youngs_modulus: 5e6,
        poisson_ratio: 0.25,
        restitution: 0.1,
        friction: 0.5,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    };
    let pm = Material {
        name: "plate".into(),
        density: s.density,
        youngs_modulus: s.young,
        poisson_ratio: s.poisson,
        restitution: 0.1,
        friction: 0.5,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    };
    let wall = Material {
        name: "wall".into(),
        density: 2500.0,
        youngs_modulus: 5e9,
        poisson_ratio: 0.25,
        restitution: 0.1,
        friction: 0.0,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    };
    let half = 0.5 * s.a;
    let spacing = 2.2 * s.r;
    let top = s.r + spacing * s.grain_layers as f64;
    let plate = Body {
        name: Some("plate".into()),
        mesh: BodyMesh::Box {
            min: [-half, -half, -s.h],
            max: [half, half, 0.0],
            divisions: [s.cells, s.cells, s.layers],
        },
        material: 1,
        element: BodyElement::Tet10,
        model: BodyModel::Linear,
        integrator: BodyIntegrator::Explicit,
        velocity: [0.0; 3],
        damping: [s.alpha, 0.0],
        fixed: side_clamps(s.a, -s.h, 0.0),
        exchange_every: None,
        wall_stiffness: None,
    };
    let scene = SceneBuilder::new("plate")
        .domain(
            [-half - 0.002, -half - 0.002, -0.01],
            [half + 0.002, half + 0.002, top + 0.01],
        )
        .gravity([0.0, 0.0, -g])
        .material(gm)
        .material(pm)
        .material(wall)
        .interaction("grain", "wall", Some(0.1), Some(0.0), Some(0.0))
        .dt_auto(0.2)
        .duration(s.duration)
        .wall([-half, 0.0, 0.0], [1.0, 0.0, 0.0], "wall")
        .wall([half, 0.0, 0.0], [-1.0, 0.0, 0.0], "wall")
        .wall([0.0, -half, 0.0], [0.0, 1.0, 0.0], "wall")
        .wall([0.0, half, 0.0], [0.0, -1.0, 0.0], "wall")
        .generate(
            "lattice",
            ([-half, -half, 0.0], [half, half, top]),
            RadiusDist::Constant(s.r),
            "grain",
            None,
            [0.0; 3],
        )
        .body(plate)
        .build()
        .map_err(err)?;
    let run = Setup::new(scene).map_err(err)?;
    let (dt, steps) = (run.dt, run.steps);
    let mut be = mk.make_setup(&run)?;
    let every = be.bodies().map_or(1, |b| b.every);
    let weight = grain_weight(be.as_mut(), g);
    let n = be.particle_count();
    let settle = ((s.duration - s.window) / dt).ceil() as u64;
    let settle = settle.div_ceil(every) * every;
    let mut at = 0;
    while at < settle {
        let k = (settle - at).min(every * (0.01 / dt / every as f64).ceil() as u64);
        be.advance(k).map_err(err)?;
        at += k;
    }
    // the load over every exchange of the window (it rattles from one
    // interval to the next), the deflection every 5 ms
    let (mut fsum, mut fk) = (0.0, 0u64);
    let (mut wsum, mut k) = (0.0, 0u32);
    let every_5ms = ((0.005 / dt) as u64).max(1);
    let mut done = settle;
    while done < steps {
        be.advance(every).map_err(err)?;
        done += every;
        let c = body0(be.as_ref())?;
        fsum += -c.force.z;
        fk += 1;
        if (done - settle) % (every_5ms.div_ceil(every) * every) == 0 {
            wsum += centre_deflection(&c.body, s.h);
            k += 1;
        }
    }
    let f = fsum / fk as f64;
    let w = wsum / k as f64;
    let q_grains = f / (s.a * s.a);
    let q_plate = s.density * g * s.h;
    let q = q_grains + q_plate;
    let wk = theory::clamped_plate_centre(q, s.a, d);
    let p = be.snapshot();
    let through = p.pos_rad.iter().filter(|x| x[2] < -w).count();
    let kin: f64 = p
        .vel_invm
        .iter()
        .map(|v| 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / v[3])
        .sum();
    out.row(Row::new(
        "plate bed on clamped plate",
        "centre deflection [m] (Kirchhoff, q = F/a² + ρ_p g h)",
        wk,
        w,
        Tol::Rel(0.05),
    ));
    out.row(Row::new(
        "plate bed on clamped plate",
        "grains' load F [N] / their weight",
        1.0,
        f / weight,
        Tol::Info,
    ));
    out.row(Row::new(
        "plate bed on clamped plate",
        "grains below the plate's centre top",
        0.0,
        through as f64,
        Tol::Abs(0.5),
    ));
    out.point("plate", "bed", "w", w);
    out.point("plate", "bed", "w_kirchhoff", wk);
    out.point("plate", "bed", "F", f);
    out.notes.push(format!(
        "plate: {n} grains (R = {} m, E = 5e6 Pa, e = 0.1, μ = 0.5; frictionless side walls at x, y = ±a/2) from a {}-layer lattice (spacing 2.2 R) over a plate a = {} m, h = {} m (a/h = {:.0}), {}×{}×{} cells tet10, linear model, explicit, E = {:.1e} Pa, ν = {}, ρ = {} kg/m³, α = {} 1/s, clamped on its side faces; D = {d:.4e} N m; dt = {dt:.3e} s, K = {every}, {steps} steps ({} s), averaged over the last {} s; F = {f:.5} N (weight {weight:.5} N), q = {q_grains:.3} + {q_plate:.3} Pa, w/h = {:.3}, grains' kinetic energy at the end {kin:.2e} J",
        s.r,
        s.grain_layers,
        s.a,
        s.h,
        s.a / s.h,
        s.cells,
        s.cells,
        s.layers,
        s.young,
        s.poisson,
        s.density,
        s.alpha,
        s.duration,
        s.window,
        w / s.h
    ));
    Ok(out)
}
