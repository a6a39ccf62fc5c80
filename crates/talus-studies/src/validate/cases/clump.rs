//! Clumps (issue 37): the rotation every clump uses
//! (`talus::shapes::rotation`, CPU f64) on the torque-free asymmetric top
//! against the exact (elliptic-function) solution; a dumbbell's impacts
//! against the rigid-body impulse solution; a two-sphere domino's tipping
//! angle against statics. The impact and the domino run on both paths;
//! the top is the CPU's rotation alone (its f32 twin, `rotor.wgsl`, is
//! checked against it in the engine's tests/gpu.rs).

use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use glam::{DQuat, DVec3};
use talus::shapes::rotation::tumble;

/// A rigid body with principal moments 1, 2, 3 kg m² spun at 1 rad/s about
/// its intermediate axis, 1–2 % off: 10⁵ steps over eight periods of its
/// tumbling. Rows: the world angular momentum's drift, the energy's, and
/// the flip period (sign changes of the spin about the intermediate axis,
/// two per period) against 4 K(k) / λ.
pub fn case_clump_top(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    if mk.name() != "cpu" {
        out.notes.push(format!(
            "not run on {}: this case is the CPU's rotation alone (its f32 twin, rotor.wgsl, which the GPU's clumps turn with, is checked against it in the engine's tests/gpu.rs); see the cpu rows",
            mk.name()
        ));
        return Ok(out);
    }
    let q0 = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let t = tumble(
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(0.01, 1.0, 0.02),
        q0,
        100_000,
        8.0,
    );
    let Some(measured) = t.measured_period() else {
        return Err(format!(
            "the top flipped {} times, expected ~16",
            t.flips.len()
        ));
    };
    let (worst_l, worst_e, period, dt) = (t.worst_l, t.worst_e, t.period, t.dt);
    let name = "clump-top";
    out.row(Row::new(
        name,
        "|ΔL| / L, worst over 1e5 steps",
        0.0,
        worst_l,
        Tol::Abs(1e-12),
    ));
    out.row(Row::new(
        name,
        "|ΔE| / E, worst over 1e5 steps",
        0.0,
        worst_e,
        Tol::Abs(1e-5),
    ));
    out.row(Row::new(
        name,
        "flip period [s]",
        period,
        measured,
        Tol::Rel(0.01),
    ));
    out.notes.push(format!(
        "{name}: I = (1, 2, 3) kg m², ω = (0.01, 1, 0.02) rad/s in the body, dt = {dt:.3e} s, {} flips",
        t.flips.len()
    ));
    Ok(out)
}

/// The dumbbell of the clump cases: two 1 mm spheres, centres 1.2 mm apart
/// along x.
const DUMBBELL: [[f64; 4]; 2] = [[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]];

/// A dumbbell at `tilt` from the plane (its axis in x–z), falling at `v`
/// without spin onto a frictionless plane with restitution `e`: its
/// centre's vertical velocity and spin after the impact, and the
/// rigid-body impulse solution's (one contact point, normal restitution
/// e at that point).
fn impact(mk: &mut dyn Maker, tilt: f64, e: f64, v: f64) -> Result<([f64; 2], [f64; 2]), String> {
    use talus::scene::SceneBuilder;
    let mut m = super::materials::glass();
    m.restitution = e;
    let q = DQuat::from_rotation_y(-tilt);
    let arm = q * DVec3::new(-0.0006, 0.0, 0.0);
    let z0 = -arm.z + 0.001 + 1e-7;
    let scene = SceneBuilder::new("clump-impact")
        .domain([-0.02; 3], [0.02; 3])
        .material(m)
        .shape("dumbbell", &DUMBBELL)
        .gravity([0.0; 3])
        .dt(1e-7)
        .steps(1)
        .wall([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], "glass")
        .clump(
            "dumbbell",
            [0.0, 0.0, z0],
            [0.0, 0.0, -v],
            [0.0; 3],
            [q.w, q.x, q.y, q.z],
            "glass",
        )
        .build()
        .map_err(|e| e.to_string())?;
    let mut b = mk.make(&scene)?;
    let mut done = false;
    for _ in 0..10_000 {
        b.advance(10).map_err(|e| e.to_string())?;
        let c = b.clumps()[0];
        let low = b
            .snapshot()
            .pos_rad
            .iter()
            .map(|x| x[2] - x[3])
            .fold(f64::INFINITY, f64::min);
        if c.vel[2] > 0.0 && low > 1e-6 {
            done = true;
            break;
        }
    }
    if !done {
        return Err("the dumbbell did not leave the plane in 1e5 steps".into());
    }
    let c = b.clumps()[0];
    // the rigid body: mass and world inertia from the shape at glass's density
    let body = &scene.shapes[0].body;
    let rho = scene.materials[0].density;
    let mass = rho * body.volume;
    let qe = body.engine_orientation(q);
    let r = glam::DMat3::from_quat(qe);
    let inertia = r * glam::DMat3::from_diagonal(body.moments * rho) * r.transpose();
    let n = DVec3::Z;
    let p = arm - 0.001 * n;
    let inv_i = inertia.inverse();
    let k = 1.0 / mass + n.dot((inv_i * p.cross(n)).cross(p));
    let j = (1.0 + e) * v / k;
    let vz = -v + j / mass;
    let wy = (inv_i * p.cross(j * n)).y;
    Ok(([c.vel[2], c.omega[1]], [vz, wy]))
}

/// A dumbbell dropped on a plane: standing on end (one member touches, the
/// impulse through the centre) it rebounds with the material's e; at 30°
/// and 60° from the plane its centre's rebound and its spin match the
/// rigid-body impulse solution (the contact's damping sees the body's
/// mass at the contact point).
pub fn case_clump_impact(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let name = "clump-impact";
    let v = 0.5;
    for e in [0.3, 0.7] {
        let (got, _) = impact(mk, std::f64::consts::FRAC_PI_2, e, v)?;
        out.row(Row::new(
            name,
            &format!("on end, e = {e}: rebound / impact speed"),
            e,
            got[0] / v,
            Tol::Rel(0.01),
        ));
    }
    for deg in [30.0f64, 60.0] {
        let e = 0.6;
        let (got, want) = impact(mk, deg.to_radians(), e, v)?;
        out.row(Row::new(
            name,
            &format!("{deg}° from the plane, e = {e}: centre's rebound [m/s]"),
            want[0],
            got[0],
            Tol::Rel(0.02),
        ));
        out.row(Row::new(
            name,
            &format!("{deg}° from the plane, e = {e}: spin after [rad/s]"),
            want[1],
            got[1],
            Tol::Rel(0.02),
        ));
    }
    out.notes.push(format!(
        "{name}: glass dumbbell of two 1 mm spheres 1.2 mm apart, {v} m/s onto a frictionless plane, dt = 1e-7 s (~40 steps a contact); expected: the rigid-body impulse solution with e at the contact point"
    ));
    Ok(out)
}

/// The gravity angle (deg from the normal of the plane) at which a
/// dumbbell lying along the plane (friction 1: it cannot slide below 45°)
/// has turned 2°, gravity tilted to 28° and held 0.05 s (it settles), then
/// turned on at `rate` °/s; None if it has not by 32°.
fn tipping_angle(mk: &mut dyn Maker, rate: f64) -> Result<Option<f64>, String> {
    use talus::scene::{GravityRotation, SceneBuilder};
    let mut m = super::materials::mat("soft", 5e6, 0.25, 2500.0);
    m.restitution = 0.5;
    m.friction = 1.0;
    let (a0, settle) = (28.0f64, 0.05);
    let g = 9.81;
    let a = a0.to_radians();
    let scene = SceneBuilder::new("clump-domino")
        .domain([-0.02; 3], [0.02; 3])
        .material(m)
        .shape("dumbbell", &DUMBBELL)
        .gravity([g * a.sin(), 0.0, -g * a.cos()])
        // about −y: the tilt grows
        .gravity_turns(GravityRotation {
            axis: [0.0, -1.0, 0.0],
            angular_velocity: rate.to_radians(),
            start: settle,
            angle: None,
            every: None,
        })
        .dt_auto(0.2)
        .duration(settle + (32.0 - a0) / rate)
        .wall([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], "soft")
        .clump(
            "dumbbell",
            [0.0, 0.0, 0.001 + 1e-8],
            [0.0; 3],
            [0.0; 3],
            [1.0, 0.0, 0.0, 0.0],
            "soft",
        )
        .build()
        .map_err(|e| e.to_string())?;
    let setup = talus::setup::Setup::new(scene).map_err(|e| e.to_string())?;
    let mut b = mk.make_setup(&setup)?;
    let q0 = b.clumps()[0].orientation;
    // checked every 500 steps (6.6 ms, 0.007° of gravity at 1°/s)
    let chunk = 500;
    let mut done = 0;
    while done < setup.steps {
        b.advance(chunk).map_err(|e| e.to_string())?;
        done += chunk;
        let q1 = b.clumps()[0].orientation;
        let dot: f64 = (0..4).map(|k| q0[k] * q1[k]).sum();
        if 2.0 * dot.abs().min(1.0).acos() > 2f64.to_radians() {
            let t = done as f64 * setup.dt;
            return Ok(Some(a0 + rate * (t - settle)));
        }
    }
    Ok(None)
}

/// A two-sphere "domino" lying along an incline (friction 1: it cannot
/// slide below 45°) tips over its downhill member once gravity passes
/// outside its base: tan θ = d / r (half the centre spacing over the
/// radius), 30.96° here. Gravity is turned slowly (1°/s) from 28°: the
/// angle where it has turned 2° (the lag above statics shrinks with the
/// rate: 31.26°, 31.14°, 31.07° at 4, 2, 1°/s on the CPU).
pub fn case_clump_domino(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let name = "clump-domino";
    let rate = 1.0;
    let Some(got) = tipping_angle(mk, rate)? else {
        return Err("the dumbbell had not tipped with gravity at 32°".into());
    };
    let want = (0.6f64).atan().to_degrees();
    out.row(Row::new(
        name,
        "tipping angle [deg]",
        want,
        got,
        Tol::Abs(0.25),
    ));
    out.notes.push(format!(
        "{name}: gravity tilted to 28°, held 0.05 s, then turned at {rate}°/s: the angle where the dumbbell has turned 2°; statics: atan(0.6 mm / 1 mm)"
    ));
    Ok(out)
}
