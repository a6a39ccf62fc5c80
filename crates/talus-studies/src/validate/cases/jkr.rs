//! JKR adhesion against its closed forms (Johnson, Kendall & Roberts
//! 1971): two spheres that touch snap in and come to rest at JKR's
//! zero-load overlap; a sphere under a ceiling rests where JKR's force
//! carries its weight; and a sphere pulled slowly by a wall rising above
//! it, off a wall (the two contacts equal: either lets go) or off a held
//! sphere (the weaker contact), lets go at the pull-off force 1.5 π γ R*
//! (the most tension the rising wall feels), past touching.
//! Every run's energy balance closes with the snap-in and the parting's
//! losses. The expected values are JKR's relations in the contact radius
//! a, written out here, not the law's Newton solve.

use super::common::err;
use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use crate::validate::theory::{e_star, sphere_mass};
use std::f64::consts::PI;
use talus::scene::{Cohesion, Material, Region, Scene, SceneBuilder, WallMotion};

/// The sphere's radius (m), the surface energy (J/m², the pair's work of
/// adhesion), the domain's edge (m, centred on the origin, where the
/// contacts sit: f32 positions resolve their overlaps to ~10⁻⁴), the steps
/// a contact settles for.
const R: f64 = 0.001;
const GAMMA: f64 = 0.05;
const EDGE: f64 = 0.01;
const SETTLE: u64 = 6000;
/// The rising wall's speed (m/s): slow enough that the sphere follows it
/// in equilibrium (its inertia adds ~v √(m k) ≈ 2·10⁻⁷ N to ~2·10⁻⁴).
const SPEED: f64 = 5e-6;

fn sticky() -> Material {
    Material {
        restitution: 0.3,
        surface_energy: GAMMA,
        ..Material::new("sticky", 2500.0, 1.0e7)
    }
}

/// JKR in the contact radius a for R*, E*, γ: the overlap δ(a) and the
/// force F(a) (> 0 repulsive).
fn delta_of(r: f64, es: f64, a: f64) -> f64 {
    a * a / r - (2.0 * PI * GAMMA * a / es).sqrt()
}

/// The overlap at which JKR's force is −`load` (a pull; 0: at rest), on
/// the stable branch: F = 4E*x²/(3R*) − √(8πγE*) x with x = a^(3/2), a
/// quadratic in x, its larger root.
fn rest_overlap(r: f64, es: f64, load: f64) -> Option<f64> {
    let (qa, qb) = (4.0 * es / (3.0 * r), -(8.0 * PI * GAMMA * es).sqrt());
    let disc = qb * qb - 4.0 * qa * load;
    (disc >= 0.0).then(|| {
        let x = (-qb + disc.sqrt()) / (2.0 * qa);
        delta_of(r, es, x.powf(2.0 / 3.0))
    })
}

fn base(g: f64) -> SceneBuilder {
    SceneBuilder::new("jkr")
        .domain([-0.5 * EDGE; 3], [0.5 * EDGE; 3])
        .gravity([0.0, 0.0, -g])
        .dt_auto(0.2)
        .steps(1)
        .material(sticky())
        .cohesion(Cohesion::Jkr)
}

/// The energy balance's residual since `t0` relative to the largest term.
fn residual(d: &talus::backend::Diagnostics, t0: f64) -> f64 {
    let scale = d
        .elastic
        .abs()
        .max(d.dissipated)
        .max(d.kinetic_translational);
    (d.total() - t0).abs() / scale
}

/// Settles `scene` (its first step evaluates the contact it starts in):
/// the snapshot's first two particles' overlap (or, with one particle,
/// its overlap with a ceiling at `top`) and the energy residual.
fn settle(mk: &mut dyn Maker, scene: &Scene, top: Option<f64>) -> Result<(f64, f64), String> {
    let mut be = mk.make(scene)?;
    be.advance(1).map_err(err)?;
    let t0 = be.diagnostics().total();
    be.advance(SETTLE).map_err(err)?;
    let d = be.diagnostics();
    let s = be.snapshot();
    let overlap = match top {
        Some(top) => s.pos_rad[0][2] + s.pos_rad[0][3] - top,
        None => {
            let (a, b) = (s.pos_rad[0], s.pos_rad[1]);
            let dist = ((0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>()).sqrt();
            a[3] + b[3] - dist
        }
    };
    Ok((overlap, residual(&d, t0)))
}

/// What a pull-off run measured.
struct Pull {
    /// The most tension the rising wall felt (N), and the lower contact's
    /// overlap then (m).
    most: f64,
    overlap: f64,
    /// The energy residual over the run, the rising wall's work counted.
    residual: f64,
}

/// A sphere between a floor (a wall, or `held`: a sphere held still by
/// `[[fixed]]`) and a ceiling, each contact starting at JKR's zero-load
/// overlap (no force), no gravity; from `T_START` the ceiling rises at
/// SPEED until the floor has let go and the sphere has come to rest on
/// the ceiling (or 4 µm). The rising wall's work, −F·v dt (F
/// the force on it), is summed by the trapezoid rule over samples every
/// few steps (the force is smooth but where a contact parts).
fn pull(mk: &mut dyn Maker, held: bool, es: f64) -> Result<Pull, String> {
    const T_START: f64 = 0.02;
    let x = 0.0;
    let r_floor = if held { 0.5 * R } else { R };
    let d_floor = rest_overlap(r_floor, es, 0.0).ok_or("no JKR rest")?;
    let d_top = rest_overlap(R, es, 0.0).ok_or("no JKR rest")?;
    // the floor's surface (the held sphere's top, or the wall) at z = −R
    let z_b = -d_floor;
    let top = z_b + R - d_top;
    let mut b = base(0.0);
    b = if held {
        b.particle([x, x, -2.0 * R], [0.0; 3], R, "sticky")
            .fixed(Region::Box {
                min: [x - 0.5 * R, x - 0.5 * R, -2.5 * R],
                max: [x + 0.5 * R, x + 0.5 * R, -1.5 * R],
            })
    } else {
        b.wall([0.0, 0.0, -R], [0.0, 0.0, 1.0], "sticky")
    };
    let scene = b
        .particle([x, x, z_b], [0.0; 3], R, "sticky")
        .wall([0.0, 0.0, top], [0.0, 0.0, -1.0], "sticky")
        .wall_motion(WallMotion {
            velocity: [0.0, 0.0, SPEED],
            start: T_START,
            ..WallMotion::default()
        })
        .build()
        .map_err(err)?;
    let dt = talus::Setup::new(scene.clone()).map_err(err)?.dt;
    let mut be = mk.make(&scene)?;
    be.advance(1).map_err(err)?;
    let t0 = be.diagnostics().total();
    // the travel to pull-off: both contacts from rest to JKR's most
    // tension, under 2 µm here; run until the floor has let go, at most 4 µm
    let chunk = 10;
    let steps = ((T_START + 4e-6 / SPEED) / dt) as u64;
    let (mut most, mut overlap, mut work) = (0.0f64, f64::NAN, 0.0);
    let mut f_last = 0.0;
    let mut done = 1;
    // once the floor has let go the sphere rings on the ceiling: 0.02 s
    // more (tens of its periods) for it to come to rest, so that the
    // balance is read at rest, not through an oscillation's phase
    let mut end = steps;
    while done < end {
        be.advance(chunk).map_err(err)?;
        let t_from = done as f64 * dt;
        done += chunk;
        let walls = be.walls();
        // the force the sphere puts on the ceiling: down (< 0) in tension
        let fz = walls[walls.len() - 1].1.force[2];
        // the ceiling moved over the part of the chunk after T_START
        let moved = (done as f64 * dt - t_from.max(T_START)).max(0.0);
        work += -0.5 * (fz + f_last) * SPEED * moved;
        f_last = fz;
        let s = be.snapshot();
        let k = s.pos_rad.len() - 1;
        let lower = if held {
            2.0 * R - (s.pos_rad[k][2] - s.pos_rad[0][2])
        } else {
            -s.pos_rad[k][2]
        };
        if done as f64 * dt > T_START && -fz > most {
            most = -fz;
            overlap = lower;
        }
        if most > 0.0 && lower < -R * 1e-3 && end == steps {
            end = done + (0.02 / dt) as u64;
        }
    }
    let d = be.diagnostics();
    let scale = d
        .elastic
        .abs()
        .max(d.dissipated)
        .max(d.kinetic_translational)
        .max(work.abs());
    Ok(Pull {
        most,
        overlap,
        residual: (d.total() - t0 - work).abs() / scale,
    })
}

pub fn case_jkr(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let name = "jkr";
    let m = sticky();
    let es = e_star(&m, &m);
    let mass = sphere_mass(&m, R);
    let g = 9.81;
    out.notes.push(format!(
        "R = {R} m, E = 1e7 Pa, ν = 0.25, e = 0.3, γ = {GAMMA} J/m² (work of adhesion); dt = auto; pulls at {SPEED:e} m/s"
    ));
    // two spheres snap in and rest at the zero-load overlap
    let r_pair = 0.5 * R;
    let scene = base(0.0)
        .particle([-R + 5e-8, 0.0, 0.0], [0.0; 3], R, "sticky")
        .particle([R - 5e-8, 0.0, 0.0], [0.0; 3], R, "sticky")
        .build()
        .map_err(err)?;
    let want = rest_overlap(r_pair, es, 0.0).ok_or("no JKR rest")?;
    let (d, res) = settle(mk, &scene, None)?;
    out.row(Row::new(
        name,
        "two spheres: overlap at rest [m]",
        want,
        d,
        Tol::Rel(1e-3),
    ));
    out.row(Row::new(
        name,
        "two spheres: energy residual / energy moved",
        0.0,
        res,
        Tol::Abs(1e-2),
    ));
    // a sphere under a ceiling carries its weight in tension
    let top = R;
    let scene = base(g)
        .wall([0.0, 0.0, top], [0.0, 0.0, -1.0], "sticky")
        .particle([0.0, 0.0, top - R + 1e-7], [0.0; 3], R, "sticky")
        .build()
        .map_err(err)?;
    let want = rest_overlap(R, es, mass * g).ok_or("the weight exceeds the pull-off")?;
    let (d, res) = settle(mk, &scene, Some(top))?;
    out.row(Row::new(
        name,
        "a sphere under a ceiling: overlap at rest [m]",
        want,
        d,
        Tol::Rel(1e-3),
    ));
    out.row(Row::new(
        name,
        "a sphere under a ceiling: energy residual / energy moved",
        0.0,
        res,
        Tol::Abs(1e-2),
    ));
    // pulled off a wall (R* = R) and off a held sphere (R* = R/2)
    for (held, r_star, what) in [
        (false, R, "off a wall"),
        (true, 0.5 * R, "off a held sphere"),
    ] {
        let p = pull(mk, held, es)?;
        // where the tension is largest: a_c³ = 9πγR*²/(8E*), past touching
        let a_c = (9.0 * PI * GAMMA * r_star * r_star / (8.0 * es)).cbrt();
        out.row(Row::new(
            name,
            &format!("pulled {what}: most tension [N] vs 1.5 π γ R*"),
            1.5 * PI * GAMMA * r_star,
            p.most,
            Tol::Rel(1e-2),
        ));
        out.row(Row::new(
            name,
            &format!("pulled {what}: energy residual / energy moved"),
            0.0,
            p.residual,
            Tol::Abs(1e-2),
        ));
        out.row(Row::new(
            name,
            &format!("pulled {what}: overlap at the most tension [m]"),
            delta_of(r_star, es, a_c),
            p.overlap,
            Tol::Rel(0.05),
        ));
        out.point(name, what, "pull_off", p.most);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed forms here against the law's solve (`cpu::jkr`): the same
    /// JKR, two ways.
    #[test]
    fn rest_overlaps_agree_with_the_law() {
        let es = e_star(&sticky(), &sticky());
        for (r, load) in [(R, 0.0), (0.5 * R, 0.0), (R, 1e-4), (R, 2e-4)] {
            let d = rest_overlap(r, es, load).unwrap();
            let (f, _) = talus::cpu::jkr::JkrPair::new(r, es, GAMMA).at(d).unwrap();
            assert!(
                (f + load).abs() < 1e-9 * 1.5 * PI * GAMMA * r,
                "{r} {load}: F {f}"
            );
        }
        // past the pull-off, no rest
        assert!(rest_overlap(R, es, 1.51 * PI * GAMMA * R).is_none());
    }
}
