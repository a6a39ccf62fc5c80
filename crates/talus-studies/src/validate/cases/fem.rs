//! FEM bodies alone (`talus::fem::body`, CPU f64): the Petocz rod impact,
//! wave arrival in a bar, a cantilever under gravity (tet10 against tet4),
//! a spinning free body (StVK against the linear model). The FEM side is
//! the same code under both backends, so these cases run once, on the
//! "cpu" maker; on the "gpu" maker they only leave a note.

use super::common::{measured, theory_series};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use crate::validate::theory;
use glam::DVec3;
use talus::fem::body::{Damping, FemBody, Integrator};
use talus::fem::contact::RigidPlane;
use talus::fem::material::{FemMaterial, Model};
use talus::fem::mesh::{box_mesh, Order};

/// What the rows of an FEM-only case say about their backend.
pub const FEM_SIDE: &str = "FEM side (CPU f64, the same code under both backends)";

/// None on the CPU maker (run the case); on any other, a result holding
/// only a note (the FEM side has no GPU twin).
pub fn fem_only(mk: &dyn Maker) -> Option<CaseResult> {
    if mk.name() == "cpu" {
        return None;
    }
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "not run on {}: {FEM_SIDE}; see the cpu rows",
        mk.name()
    ));
    Some(out)
}

fn material(young: f64, poisson: f64, density: f64) -> FemMaterial {
    FemMaterial {
        young,
        poisson,
        density,
    }
}

fn fem_err(e: impl std::fmt::Display) -> String {
    format!("FEM: {e}")
}

/// Indices of the nodes with coordinate `axis` equal to `value`.
fn nodes_at(b: &FemBody, axis: usize, value: f64) -> Vec<usize> {
    b.mesh()
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, p)| (p[axis] - value).abs() < 1e-9)
        .map(|(i, _)| i)
        .collect()
}

/// Outcome of a rod impact.
struct Impact {
    /// Time from the first to the last step with a plane force.
    duration: f64,
    /// Centre-of-mass velocity after release.
    rebound: f64,
    /// Total energy after release / initial kinetic energy.
    energy_ratio: f64,
    /// (t, plane force) per step.
    force: Vec<(f64, f64)>,
}

/// Petocz §8.2.1: a rod (L = 1, E = ρ = 1, ν = 0, 0.1 × 0.1, 40 × 1 × 1
/// cells of tet4, linear model) at 0.5 onto a rigid plane (κ = 2 per
/// node), starting 0.01 away, Δt = 0.0025, run to t = 2.6.
fn rod_impact(integrator: Integrator, dt: f64) -> Result<Impact, String> {
    let gap0 = 0.01;
    let mesh = box_mesh(
        DVec3::new(gap0, 0.0, 0.0),
        DVec3::new(gap0 + 1.0, 0.1, 0.1),
        [40, 1, 1],
        Order::Linear,
    );
    let mut b = FemBody::new(
        mesh,
        material(1.0, 0.0, 1.0),
        Model::Linear,
        integrator,
        Damping::default(),
        vec![],
        DVec3::new(-0.5, 0.0, 0.0),
    )
    .map_err(fem_err)?;
    let plane = RigidPlane::new(DVec3::ZERO, DVec3::X, 2.0);
    let ke0 = b.kinetic_energy();
    let ext = vec![DVec3::ZERO; b.masses().len()];
    let (mut first, mut last) = (None, None);
    let mut force = Vec::new();
    let mut t = 0.0;
    while t < 2.6 {
        b.advance(dt, &ext, DVec3::ZERO, &[plane])
            .map_err(fem_err)?;
        let f = b.wall_force().x;
        if f > 0.0 {
            // the force acts over (t, t + dt]: count mid-interval
            first.get_or_insert(t + 0.5 * dt);
            last = Some(t + 0.5 * dt);
        }
        force.push((t + 0.5 * dt, f));
        t += dt;
    }
    let e = b.kinetic_energy() + b.strain_energy() + b.contact_energy();
    let (Some(first), Some(last)) = (first, last) else {
        return Err("the rod never touched the plane".into());
    };
    Ok(Impact {
        duration: last - first,
        rebound: b.com_velocity().x,
        energy_ratio: e / ke0,
        force,
    })
}

/// Case fem-rod: Petocz §8.2.1, both integrators.
pub fn case_fem_rod(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    if let Some(r) = fem_only(mk) {
        return Ok(r);
    }
    let (l, young, rho, v0) = (1.0, 1.0, 1.0, 0.5);
    let c = theory::bar_wave_speed(young, rho);
    let tc = theory::rod_contact_time(l, c);
    let dt = 0.0025;
    let mut out = CaseResult::default();
    let mut series = vec![theory_series(
        "rigid-plane impact: F = ρ c A v0 for 2L/c",
        vec![
            (0.0, 0.0),
            (0.01 / v0, 0.0),
            (0.01 / v0, rho * c * 0.01 * v0),
            (0.01 / v0 + tc, rho * c * 0.01 * v0),
            (0.01 / v0 + tc, 0.0),
            (2.6, 0.0),
        ],
    )];
    for (name, integrator, energy_tol) in [
        ("energy-momentum", Integrator::EnergyMomentum, 1e-8),
        ("explicit", Integrator::Explicit, 1e-2),
    ] {
        let r = rod_impact(integrator, dt)?;
        let case = format!("fem-rod {name}");
        out.row(Row::new(
            &case,
            "contact duration [2L/c]",
            tc,
            r.duration,
            Tol::Rel(0.03),
        ));
        out.row(Row::new(
            &case,
            "rebound speed",
            v0,
            r.rebound,
            Tol::Rel(0.05),
        ));
        out.row(Row::new(
            &case,
            "energy after / before - 1",
            0.0,
            r.energy_ratio - 1.0,
            Tol::Abs(energy_tol),
        ));
        out.point("fem-rod", name, "duration", r.duration);
        out.point("fem-rod", name, "rebound", r.rebound);
        out.point("fem-rod", name, "energy_error", r.energy_ratio - 1.0);
        series.push(measured(name, r.force));
    }
    out.notes.push(format!(
        "{FEM_SIDE}. Rod L = 1, 0.1 × 0.1, E = ρ = 1, ν = 0 (c = 1), linear model, 40 × 1 × 1 cells tet4, v0 = 0.5 onto a rigid plane (penalty κ = 2 per node) from 0.01 away; Δt = {dt} (energy–momentum: one step per Δt; explicit: sub-stepped at 0.5 × the stable step), run to t = 2.6"
    ));
    out.plots.push(Plot {
        stem: "fem_rod_force".into(),
        title: "Rod on a rigid plane: plane force".into(),
        x_label: "t".into(),
        y_label: "plane force".into(),
        caption: "Force of the plane on the rod per step, against the 1-D elastic answer (a constant ρ c A v0 for 2L/c)".into(),
        series,
    });
    Ok(out)
}

/// Case fem-wave: a step load on one end of a bar; the far end starts
/// moving at L/c.
pub fn case_fem_wave(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    if let Some(r) = fem_only(mk) {
        return Ok(r);
    }
    let (l, young, rho) = (10.0, 1.0, 1.0);
    let mesh = box_mesh(
        DVec3::ZERO,
        DVec3::new(l, 0.25, 0.25),
        [80, 1, 1],
        Order::Linear,
    );
    let mut b = FemBody::new(
        mesh,
        material(young, 0.0, rho),
        Model::Linear,
        Integrator::Explicit,
        Damping::default(),
        vec![],
        DVec3::ZERO,
    )
    .map_err(fem_err)?;
    let c = theory::bar_wave_speed(young, rho);
    let left = nodes_at(&b, 0, 0.0);
    let right = nodes_at(&b, 0, l);
    let sigma = 1e-3;
    let area = 0.25 * 0.25;
    let mleft: f64 = left.iter().map(|&i| b.masses()[i]).sum();
    let mut ext = vec![DVec3::ZERO; b.masses().len()];
    for &i in &left {
        ext[i] = DVec3::new(sigma * area * b.masses()[i] / mleft, 0.0, 0.0);
    }
    // particle velocity behind the front σ/(ρc); the free end jumps to
    // twice that: arrival when it passes σ/(ρc)
    let vp = sigma / (rho * c);
    let dt = 0.02;
    let mut arrival = None;
    let mut t = 0.0;
    let mut series = Vec::new();
    let mright: f64 = right.iter().map(|&i| b.masses()[i]).sum();
    while t < 1.5 * l / c {
        b.advance(dt, &ext, DVec3::ZERO, &[]).map_err(fem_err)?;
        t += dt;
        let vr: f64 = right
            .iter()
            .map(|&i| b.masses()[i] * b.velocities()[i].x)
            .sum::<f64>()
            / mright;
        series.push((t, vr / vp));
        if vr > vp && arrival.is_none() {
            arrival = Some(t);
        }
        if t > 1.2 * l / c && arrival.is_some() {
            break;
        }
    }
    let arrival = arrival.ok_or("the pulse never reached the far end")?;
    let mut out = CaseResult::default();
    out.row(Row::new(
        "fem-wave",
        "arrival at the free end [L/c]",
        l / c,
        arrival,
        Tol::Rel(0.03),
    ));
    out.point("fem-wave", "arrival", "t", arrival);
    out.notes.push(format!(
        "{FEM_SIDE}. Bar L = 10, 0.25 × 0.25, E = ρ = 1, ν = 0 (c = √(E/ρ) = 1), 80 × 1 × 1 cells tet4, explicit; a step traction σ = 1e-3 on x = 0 from t = 0; arrival: the far end's mean velocity passes σ/(ρc) (half its jump to 2σ/(ρc)); advanced in Δt = {dt} chunks (the arrival time is resolved to {dt})"
    ));
    out.plots.push(Plot {
        stem: "fem_wave".into(),
        title: "Wave arrival at the free end of a bar".into(),
        x_label: "t".into(),
        y_label: "v(L) / (σ/ρc)".into(),
        caption: "Mean velocity of the far end over σ/(ρc); 1-D theory: 0 before L/c, 2 after"
            .into(),
        series: vec![
            theory_series(
                "1-D bar",
                vec![(0.0, 0.0), (l / c, 0.0), (l / c, 2.0), (1.2 * l / c, 2.0)],
            ),
            measured("free end", series),
        ],
    });
    Ok(out)
}

/// Static tip deflection of a cantilever (L = 10, 1 × 1, clamped at x = 0,
/// 40 × 4 × 4 cells, E = 1e6, ν = 0, ρ = 1, g = 2/3) as one damped
/// energy–momentum step with β = Δt/2 (which lands on the static answer),
/// and the Euler–Bernoulli value.
fn cantilever_tip(order: Order) -> Result<(f64, f64), String> {
    let (l, h) = (10.0, 1.0);
    let mesh = box_mesh(DVec3::ZERO, DVec3::new(l, h, h), [40, 4, 4], order);
    let fixed: Vec<bool> = mesh.nodes.iter().map(|p| p.x.abs() < 1e-9).collect();
    let (e, rho, g) = (1e6, 1.0, 2.0 / 3.0);
    let dt = 1e3;
    let mut b = FemBody::new(
        mesh,
        material(e, 0.0, rho),
        Model::Linear,
        Integrator::EnergyMomentum,
        Damping {
            alpha: 0.0,
            beta: 0.5 * dt,
        },
        fixed,
        DVec3::ZERO,
    )
    .map_err(fem_err)?;
    let ext = vec![DVec3::ZERO; b.masses().len()];
    b.advance(dt, &ext, DVec3::new(0.0, 0.0, -g), &[])
        .map_err(fem_err)?;
    let tip = nodes_at(&b, 0, l);
    let d = b.displacements();
    let w = -tip.iter().map(|&i| d[i].z).sum::<f64>() / tip.len() as f64;
    let q = rho * g * h * h;
    Ok((w, theory::cantilever_tip(q, l, e, h * h.powi(3) / 12.0)))
}

/// Case fem-cantilever: tet10 against Euler–Bernoulli; tet4 locks.
pub fn case_fem_cantilever(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    if let Some(r) = fem_only(mk) {
        return Ok(r);
    }
    let mut out = CaseResult::default();
    let (w10, eb) = cantilever_tip(Order::Quadratic)?;
    let (w4, _) = cantilever_tip(Order::Linear)?;
    out.row(Row::new(
        "fem-cantilever tet10",
        "tip deflection [m]",
        eb,
        w10,
        Tol::Rel(0.03),
    ));
    out.row(Row::new(
        "fem-cantilever tet4",
        "tip deflection / EB (locks: < 0.9)",
        1.0,
        w4 / eb,
        Tol::Info,
    ));
    out.point("fem-cantilever", "tet10", "tip/EB", w10 / eb);
    out.point("fem-cantilever", "tet4", "tip/EB", w4 / eb);
    if w4 >= 0.9 * eb {
        out.notes.push(format!(
            "tet4 did not lock: {:.1} % of Euler–Bernoulli",
            100.0 * w4 / eb
        ));
    }
    out.notes.push(format!(
        "{FEM_SIDE}. Cantilever L = 10, 1 × 1 section, clamped at x = 0, E = 1e6, ν = 0, ρ = 1, g = 2/3 (q = ρ g A), linear model, 40 × 4 × 4 cells; static answer as one energy–momentum step of Δt = 1e3 with β = Δt/2; tip = mean z displacement of the x = L face. Euler–Bernoulli q L⁴/(8 E I) = {eb:.6e}: tet10 {:+.2} % (shear deformation included), tet4 {:.1} % of it (locking: why tet10 is the default)",
        100.0 * (w10 / eb - 1.0),
        100.0 * w4 / eb
    ));
    Ok(out)
}

/// A free 1 × 1 × 1 cube (2 × 2 × 2 cells tet10, E = 1e4, ν = 0.25, ρ = 1)
/// spun about ω = (0, 0.6, 0.8) with the energy–momentum scheme, Δt =
/// 0.05, for `turns` turns: (max U/KE0, max |ΔL|/L, max |ΔE|/E, the body).
fn spin(model: Model, turns: f64) -> Result<(f64, f64, f64, FemBody), String> {
    let mut b = spin_body(model)?;
    let omega = DVec3::new(0.0, 0.6, 0.8);
    let v: Vec<DVec3> = b.mesh().nodes.iter().map(|p| omega.cross(*p)).collect();
    b.set_velocities(&v).map_err(fem_err)?;
    let l0 = b.angular_momentum(DVec3::ZERO);
    let ke0 = b.kinetic_energy();
    let ext = vec![DVec3::ZERO; v.len()];
    let dt = 0.05;
    let steps = (turns * std::f64::consts::TAU / dt) as usize;
    let (mut umax, mut lerr, mut eerr) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..steps {
        b.advance(dt, &ext, DVec3::ZERO, &[]).map_err(fem_err)?;
        let c = b.center_of_mass();
        let l = b.angular_momentum(c) + b.mass() * c.cross(b.com_velocity());
        lerr = lerr.max((l - l0).length() / l0.length());
        let u = b.strain_energy();
        umax = umax.max(u);
        eerr = eerr.max(((b.kinetic_energy() + u) / ke0 - 1.0).abs());
    }
    Ok((umax / ke0, lerr, eerr, b))
}

fn spin_body(model: Model) -> Result<FemBody, String> {
    FemBody::new(
        box_mesh(
            DVec3::splat(-0.5),
            DVec3::splat(0.5),
            [2, 2, 2],
            Order::Quadratic,
        ),
        material(1e4, 0.25, 1.0),
        model,
        Integrator::EnergyMomentum,
        Damping::default(),
        vec![],
        DVec3::ZERO,
    )
    .map_err(fem_err)
}

/// Case fem-spin: frame invariance of StVK against the linear model.
pub fn case_fem_spin(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    if let Some(r) = fem_only(mk) {
        return Ok(r);
    }
    let mut out = CaseResult::default();
    let (u, lerr, eerr, _) = spin(Model::Stvk, 3.0)?;
    out.row(Row::new(
        "fem-spin StVK",
        "|ΔL| / L, worst over 3 turns",
        0.0,
        lerr,
        Tol::Abs(1e-10),
    ));
    out.row(Row::new(
        "fem-spin StVK",
        "|ΔE| / E, worst over 3 turns",
        0.0,
        eerr,
        Tol::Abs(1e-8),
    ));
    out.row(Row::new(
        "fem-spin StVK",
        "strain energy / KE0, largest",
        0.0,
        u,
        Tol::Abs(1e-3),
    ));
    // The linear model spun for one turn: its own (small-strain) energy
    // stays zero while the configuration's true Green strain, read by a
    // StVK twin, is huge: it cannot rotate.
    let (ulin, _, _, lin) = spin(Model::Linear, 1.0)?;
    let mut twin = spin_body(Model::Stvk)?;
    twin.set_state(&lin.state()).map_err(fem_err)?;
    let ke0 = {
        let b = spin_body(Model::Linear)?;
        let omega = DVec3::new(0.0, 0.6, 0.8);
        0.5 * b
            .mesh()
            .nodes
            .iter()
            .zip(b.masses())
            .map(|(p, m)| m * omega.cross(*p).length_squared())
            .sum::<f64>()
    };
    let green = twin.strain_energy() / ke0;
    out.row(Row::new(
        "fem-spin linear",
        "Green-strain energy / KE0 after 1 turn",
        0.0,
        green,
        Tol::Info,
    ));
    out.row(Row::new(
        "fem-spin linear",
        "own strain energy / KE0, largest over 1 turn",
        0.0,
        ulin,
        Tol::Info,
    ));
    // A rigid 90° rotation at rest: spurious linear strain, none in StVK.
    let rot = glam::DMat3::from_rotation_z(std::f64::consts::FRAC_PI_2);
    let mut s = lin.state();
    let nodes = lin.mesh().nodes.clone();
    let n = nodes.len();
    for (i, p) in nodes.iter().enumerate() {
        let q = rot * *p;
        s[8 + 3 * i..8 + 3 * i + 3].copy_from_slice(&q.to_array());
        s[8 + 3 * (n + i)..8 + 3 * (n + i) + 3].copy_from_slice(&[0.0; 3]);
    }
    let mut lin90 = spin_body(Model::Linear)?;
    lin90.set_state(&s).map_err(fem_err)?;
    twin.set_state(&s).map_err(fem_err)?;
    out.row(Row::new(
        "fem-spin rigid 90°",
        "StVK strain energy [J]",
        0.0,
        twin.strain_energy(),
        Tol::Abs(1e-12),
    ));
    out.row(Row::new(
        "fem-spin rigid 90°",
        "linear-model strain energy [J]",
        0.0,
        lin90.strain_energy(),
        Tol::Info,
    ));
    out.point("fem-spin", "stvk", "dL", lerr);
    out.point("fem-spin", "stvk", "dE", eerr);
    out.point("fem-spin", "stvk", "Umax/KE0", u);
    out.point("fem-spin", "linear", "green/KE0", green);
    out.notes.push(format!(
        "{FEM_SIDE}. Free cube 1 × 1 × 1, 2 × 2 × 2 cells tet10, E = 1e4, ν = 0.25, ρ = 1, spun about ω = (0, 0.6, 0.8) rad/s, energy–momentum, Δt = 0.05 (3 turns StVK, 1 turn linear). StVK's strain is the real centrifugal stretch; the linear model moves every node on the straight line X + t ω×X (no strain in its own measure, a huge Green strain); a rigid 90° turn at rest gives it {:.3e} J of strain energy (KE0 = {ke0:.3e} J)",
        lin90.strain_energy()
    ));
    Ok(out)
}

/// The centre deflection of a clamped square plate (side `a`, thickness
/// `h`, `cells` × `cells` × `layers` cells tet10, the linear model, E, ν,
/// ρ) under its own weight (a uniform q = ρ g h), static: one damped
/// energy–momentum step with β = Δt/2. Returns (centre deflection of the
/// mid-surface, q).
pub fn plate_static(
    a: f64,
    h: f64,
    cells: u32,
    layers: u32,
    young: f64,
    poisson: f64,
) -> Result<(f64, f64), String> {
    let mesh = box_mesh(
        DVec3::new(-0.5 * a, -0.5 * a, -h),
        DVec3::new(0.5 * a, 0.5 * a, 0.0),
        [cells, cells, layers],
        Order::Quadratic,
    );
    let fixed: Vec<bool> = mesh
        .nodes
        .iter()
        .map(|p| (p.x.abs() - 0.5 * a).abs() < 1e-12 || (p.y.abs() - 0.5 * a).abs() < 1e-12)
        .collect();
    let (rho, g) = (1000.0, 10.0);
    let dt = 1e3;
    let mut b = FemBody::new(
        mesh,
        material(young, poisson, rho),
        Model::Linear,
        Integrator::EnergyMomentum,
        Damping {
            alpha: 0.0,
            beta: 0.5 * dt,
        },
        fixed,
        DVec3::ZERO,
    )
    .map_err(fem_err)?;
    let ext = vec![DVec3::ZERO; b.masses().len()];
    b.advance(dt, &ext, DVec3::new(0.0, 0.0, -g), &[])
        .map_err(fem_err)?;
    Ok((centre_deflection(&b, h), rho * g * h))
}

/// Mean downward displacement of the nodes on the plate's centre line
/// x = y = 0 (through the thickness: the mid-surface's deflection).
pub fn centre_deflection(b: &FemBody, _h: f64) -> f64 {
    let d = b.displacements();
    let on: Vec<usize> = b
        .mesh()
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.x.abs() < 1e-12 && p.y.abs() < 1e-12)
        .map(|(i, _)| i)
        .collect();
    -on.iter().map(|&i| d[i].z).sum::<f64>() / on.len().max(1) as f64
}
