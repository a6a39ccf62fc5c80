//! Cohesion (LIGGGHTS' `cohesion sjkr` and `sjkr2`) against its statics
//! in closed form: two spheres drawn together by their pull come to rest
//! where the Hertz push balances it; a sphere under a ceiling rests where
//! the pull less the push carries its weight; and it stays there under
//! 0.9 of the most the contact holds (max over δ of pull − push) and
//! falls off under 1.1 of it. Each run's energy balance closes with the
//! pull's potential in the elastic energy.

use super::common::err;
use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use crate::validate::theory::{cohesive_rest, e_star, hertz_force, sjkr_pull, sphere_mass};
use talus::scene::{Cohesion, Material, Scene, SceneBuilder};

/// The sphere's radius (m), the cohesion energy density (J/m³), the
/// ceiling's height (m), the steps each run settles for.
const R: f64 = 0.001;
const K: f64 = 3.0e5;
const TOP: f64 = 0.009;
const STEPS: u64 = 4000;

fn wet() -> Material {
    Material {
        restitution: 0.3,
        cohesion_energy_density: K,
        ..Material::new("wet", 2500.0, 5.0e7)
    }
}

/// Two spheres at rest touching by `d0`, no gravity; or (`wall`) one
/// sphere at rest `d0` into a ceiling, under gravity `g` (m/s², down).
fn scene(model: Cohesion, wall: bool, d0: f64, g: f64) -> Result<Scene, String> {
    let b = SceneBuilder::new("cohesion")
        .domain([0.0; 3], [0.01; 3])
        .gravity([0.0, 0.0, -g])
        .dt_auto(0.2)
        .steps(1)
        .material(wet())
        .cohesion(model);
    let b = if wall {
        b.wall([0.0, 0.0, TOP], [0.0, 0.0, -1.0], "wet").particle(
            [0.005, 0.005, TOP - R + d0],
            [0.0; 3],
            R,
            "wet",
        )
    } else {
        b.particle([0.005 - R + 0.5 * d0, 0.005, 0.005], [0.0; 3], R, "wet")
            .particle([0.005 + R - 0.5 * d0, 0.005, 0.005], [0.0; 3], R, "wet")
    };
    b.build().map_err(err)
}

/// The overlap after STEPS (negative: apart; −∞: the sphere fell out of
/// the domain), and the energy balance's
/// residual over the run relative to the largest energy term moved.
fn settle(mk: &mut dyn Maker, scene: &Scene, wall: bool) -> Result<(f64, f64), String> {
    let mut be = mk.make(scene)?;
    // the first step evaluates the contact the run starts in
    be.advance(1).map_err(err)?;
    let t0 = be.diagnostics().total();
    be.advance(STEPS).map_err(err)?;
    let d = be.diagnostics();
    let s = be.snapshot();
    // a sphere that fell off may have left the (open) domain
    let overlap = if s.pos_rad.is_empty() {
        f64::NEG_INFINITY
    } else if wall {
        s.pos_rad[0][2] + s.pos_rad[0][3] - TOP
    } else {
        let (a, b) = (s.pos_rad[0], s.pos_rad[1]);
        let dist = ((0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>()).sqrt();
        a[3] + b[3] - dist
    };
    let scale = d
        .elastic
        .abs()
        .max(d.dissipated)
        .max(d.kinetic_translational);
    Ok((overlap, (d.total() - t0).abs() / scale))
}

pub fn case_cohesion(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let m = wet();
    let es = e_star(&m, &m);
    let mass = sphere_mass(&m, R);
    let g = 9.81;
    out.notes.push(format!(
        "R = {R} m, E = 5e7 Pa, ν = 0.25, e = 0.3, k = {K:.0e} J/m³; {STEPS} steps at dt = auto from rest"
    ));
    for (model, sjkr2) in [(Cohesion::Sjkr, false), (Cohesion::Sjkr2, true)] {
        let name = format!("cohesion {}", model.name());
        for wall in [false, true] {
            let r_star = if wall { R } else { 0.5 * R };
            let pull = |d: f64| sjkr_pull(sjkr2, wall, K, R, d);
            let push = |d: f64| hertz_force(es, r_star, d);
            let load = if wall { mass * g } else { 0.0 };
            let (rest, hold, peak) = cohesive_rest(pull, push, load, R);
            let rest = rest.ok_or("the pull cannot hold the sphere")?;
            let (d, residual) = settle(mk, &scene(model, wall, 1e-6, g)?, wall)?;
            let what = if wall {
                "a sphere under a ceiling"
            } else {
                "two spheres"
            };
            out.row(Row::new(
                &name,
                &format!("{what}: overlap at rest [m]"),
                rest,
                d,
                Tol::Rel(1e-3),
            ));
            out.row(Row::new(
                &name,
                &format!("{what}: energy residual / energy moved"),
                0.0,
                residual,
                Tol::Abs(1e-2),
            ));
            out.point(
                "cohesion",
                &format!("{} {what}", model.name()),
                "overlap",
                d,
            );
            if wall {
                // the most the contact holds: under 0.9 of it the sphere
                // stays (started at that load's rest), under 1.1 it falls
                // (started at the peak)
                out.notes.push(format!(
                    "{}: the contact holds {hold:.4e} N at δ = {peak:.3e} m, {:.1} times the sphere's weight",
                    model.name(),
                    hold / (mass * g)
                ));
                for (f, want) in [(0.9, 1.0), (1.1, 0.0)] {
                    let g_f = f * hold / mass;
                    let d0 = cohesive_rest(pull, push, f * hold, R).0.unwrap_or(peak);
                    let (d, _) = settle(mk, &scene(model, true, d0, g_f)?, true)?;
                    out.row(Row::new(
                        &name,
                        &format!("weight {f} × the hold: still attached (1) or fallen (0)"),
                        want,
                        if d > 0.0 { 1.0 } else { 0.0 },
                        Tol::Abs(0.25),
                    ));
                }
            }
        }
    }
    Ok(out)
}
