//! Rolling resistance with memory (`[contact] rolling = "epsd2"`,
//! LIGGGHTS' `epsd2`, Ai et al. 2011's type C) against rigid-body
//! statics and dynamics, with a sphere on a plane:
//!
//! - on a slope with tan θ = μ_r / 2 the rolling spring holds the static
//!   torque m g sin θ R: the sphere stays where it settled (between
//!   t = 0.5 s and 1 s it moves less than 10⁻³ R). The constant torque of
//!   `cdt` cannot hold a torque (it has no memory): its creep is printed
//!   beside it.
//! - on a slope with tan θ = 1.5 μ_r it rolls down with
//!   a = (5/7) g (sin θ − μ_r cos θ) (m a = m g sin θ − F,
//!   I a / R = F R − μ_r R N);
//! - rolling on the flat it stops at the rate (5/7) μ_r g / R of Ai et
//!   al. (the spring at its cap carries μ_r R N), and stays where it
//!   stopped (rocking on the unloading spring, printed).
//!
//! - `epsd` (its spring 2.25 k_n μ_r² R², with a dashpot while it
//!   holds) stops at the same rate, and its dashpot damps the rocking
//!   `epsd2` keeps up after the stop.
//!
//! Gravity is turned by θ about y (the floor is z = 0, down the slope is
//! +x), as `slope` does.

use super::common::err;
use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use crate::validate::theory::{e_star, resting_overlap, sphere_mass};
use talus::scene::{Material, Rolling, Scene, SceneBuilder};

/// The sphere's radius (m), rolling friction, time step (s), gravity.
const R: f64 = 0.005;
const MU_R: f64 = 0.1;
const DT: f64 = 5e-5;
const G: f64 = 9.81;

fn bead() -> Material {
    Material {
        restitution: 0.5,
        friction: 0.5,
        rolling_friction: MU_R,
        ..Material::new("bead", 2500.0, 1.0e7)
    }
}

/// A sphere resting on the floor z = 0 (at its Hertz overlap) under
/// gravity turned by `theta` about y, moving down the slope at `v0`
/// (rolling: ω = v0 / R), with rolling model `model`.
fn scene(model: Rolling, theta: f64, v0: f64) -> Result<Scene, String> {
    let m = bead();
    let es = e_star(&m, &m);
    let d = resting_overlap(sphere_mass(&m, R), R, es, G * theta.cos());
    SceneBuilder::new("rolling-spring")
        .domain([-0.05, -0.02, -0.02], [0.5, 0.02, 0.02])
        .gravity([G * theta.sin(), 0.0, -G * theta.cos()])
        .dt(DT)
        .steps(1)
        .material(m)
        .rolling(model)
        .wall([0.0; 3], [0.0, 0.0, 1.0], "bead")
        .particle_spin(
            [0.0, 0.0, R - d],
            [v0, 0.0, 0.0],
            [0.0, v0 / R, 0.0],
            R,
            "bead",
        )
        .build()
        .map_err(err)
}

/// The sphere's (t, x, v_x) every `every` steps until `t`.
fn track(mk: &mut dyn Maker, scene: &Scene, t: f64, every: u64) -> Result<Vec<[f64; 3]>, String> {
    let mut be = mk.make(scene)?;
    let mut out = Vec::new();
    let chunks = (t / DT / every as f64).round() as u64;
    for k in 0..=chunks {
        if k > 0 {
            be.advance(every).map_err(err)?;
        }
        let s = be.snapshot();
        let p = s.pos_rad.first().ok_or("the sphere left the domain")?;
        out.push([(k * every) as f64 * DT, p[0], s.vel_invm[0][0]]);
    }
    Ok(out)
}

/// Least-squares slope of y(x) over `pts`.
fn slope(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    let (mx, my) = pts
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (sxy, sxx) = pts.iter().fold((0.0, 0.0), |a, p| {
        (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx).powi(2))
    });
    sxy / sxx
}

/// The rate at which a sphere rolling from `v0` slows (the slope of v(t)
/// while it still moves faster than v0 / 5).
fn stopping_rate(track: &[[f64; 3]], v0: f64) -> f64 {
    let v: Vec<(f64, f64)> = track
        .iter()
        .filter(|s| s[0] > 0.0 && s[2] > 0.2 * v0)
        .map(|s| (s[0], s[2]))
        .collect();
    slope(&v)
}

/// How far the sphere moved along the slope between t = 0.5 s and 1 s.
fn creep(track: &[[f64; 3]]) -> f64 {
    let at = |t: f64| {
        track
            .iter()
            .min_by(|a, b| (a[0] - t).abs().total_cmp(&(b[0] - t).abs()))
            .map_or(f64::NAN, |s| s[1])
    };
    (at(1.0) - at(0.5)).abs()
}

pub fn case_rolling_spring(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {R} m, E = 1e7 Pa, ν = 0.25, e = 0.5, μ = 0.5, μ_r = {MU_R}; dt = {DT:.0e} s; on a plane, gravity turned by θ"
    ));
    let name = "rolling epsd2";
    // holds on a slope below its angle of rest
    let hold = (0.5 * MU_R).atan();
    let held = track(mk, &scene(Rolling::Epsd2, hold, 0.0)?, 1.0, 500)?;
    let moved = creep(&held);
    out.row(Row::new(
        name,
        "tan θ = μ_r/2: moved from 0.5 s to 1 s [R]",
        0.0,
        moved / R,
        Tol::Abs(1e-3),
    ));
    // where it rests: the tangential spring and the rolling spring hold
    // m g sin θ (LIGGGHTS 3.8 on the same set-up,
    // validation/liggghts/rolling_slope.in: 6.7305880727e-7 m)
    out.notes.push(format!(
        "held on the slope, the sphere rests at x = {:.10e} m at 1 s (LIGGGHTS 3.8 epsd2: 6.7305880727e-7 m)",
        held.last().map_or(f64::NAN, |s| s[1])
    ));
    let cdt = track(mk, &scene(Rolling::Cdt, hold, 0.0)?, 1.0, 500)?;
    out.notes.push(format!(
        "on the same slope cdt (no memory) creeps {:.3e} R from 0.5 s to 1 s; epsd2 {:.3e} R",
        creep(&cdt) / R,
        moved / R
    ));
    // rolls down a slope above it
    let steep = (1.5 * MU_R).atan();
    let rolled = track(mk, &scene(Rolling::Epsd2, steep, 0.0)?, 0.5, 200)?;
    let v: Vec<(f64, f64)> = rolled
        .iter()
        .filter(|s| s[0] >= 0.1)
        .map(|s| (s[0], s[2]))
        .collect();
    out.row(Row::new(
        name,
        "tan θ = 1.5 μ_r: a [m/s²] = 5/7 g (sin θ − μ_r cos θ)",
        5.0 / 7.0 * G * (steep.sin() - MU_R * steep.cos()),
        slope(&v),
        Tol::Rel(0.02),
    ));
    // rolling on the flat: stops at Ai et al.'s rate, and stays stopped
    let v0 = 0.05;
    let stop = 7.0 * v0 / (5.0 * MU_R * G);
    let flat = track(mk, &scene(Rolling::Epsd2, 0.0, v0)?, 2.0 * stop, 20)?;
    out.row(Row::new(
        name,
        "rolling on the flat: dv/dt [m/s²] = −5/7 μ_r g",
        -5.0 / 7.0 * MU_R * G,
        stopping_rate(&flat, v0),
        Tol::Rel(0.02),
    ));
    // after the stop the loaded spring rocks the sphere back and forth
    // about where it stopped (no dashpot in epsd2): it does not roll on
    let late: Vec<&[f64; 3]> = flat.iter().filter(|s| s[0] >= 1.5 * stop).collect();
    let (lo, hi) = late
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |a, s| {
            (a.0.min(s[1]), a.1.max(s[1]))
        });
    out.row(Row::new(
        name,
        "rolling on the flat: moved from 1.5 to 2 stopping times [R]",
        0.0,
        (hi - lo) / R,
        Tol::Abs(1e-3),
    ));
    let rock = late.iter().map(|s| s[2].abs()).fold(0.0, f64::max);
    out.notes.push(format!(
        "stopped on the flat, the sphere rocks on its rolling spring at up to {rock:.2e} m/s ({:.1e} v0)",
        rock / v0
    ));
    // epsd: the same stop (its spring at the cap while it rolls), and its
    // dashpot (η_r = 0.3, while the spring holds) damps the rocking after
    // (its spring is ~40 times softer than epsd2's here: a rocking period
    // of ~40 ms, damped by e^(−ζ ω t) ~ e^(−49 t/s))
    let mut s = scene(Rolling::Epsd, 0.0, v0)?;
    s.materials[0].rolling_viscous_damping = 0.3;
    let flat = track(mk, &s, 8.0 * stop, 20)?;
    out.row(Row::new(
        "rolling epsd",
        "rolling on the flat: dv/dt [m/s²] = −5/7 μ_r g",
        -5.0 / 7.0 * MU_R * G,
        stopping_rate(&flat, v0),
        Tol::Rel(0.02),
    ));
    let damped = flat
        .iter()
        .filter(|s| s[0] >= 7.0 * stop)
        .map(|s| s[2].abs())
        .fold(0.0, f64::max);
    out.row(Row::new(
        "rolling epsd",
        "after the stop, η_r = 0.3: speed from 7 to 8 stopping times [v0]",
        0.0,
        damped / v0,
        Tol::Abs(1e-4),
    ));
    Ok(out)
}
