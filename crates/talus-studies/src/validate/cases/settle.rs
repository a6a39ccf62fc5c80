//! The settling column (`--full`): the README's default scene,
//! `scenes/settle.toml`, as an application. 4000 glass beads (r = 0.9–1.1
//! mm) start on a lattice (2.42 mm apart, the bottom ~38 mm of a 40 × 40
//! × 120 mm box), fall onto its floor and come to rest in a bed ~19 mm
//! deep. `docs/applications/settle.md` has the setup, the figures, the
//! command and the results.
//!
//! Judged (tolerances fixed before the case's first run):
//! - the bed is at rest: kinetic energy / potential energy released
//!   ≤ 1e-4 (during the fall it holds most of it);
//! - statics: the z-forces of the five walls add up to the bed's weight
//!   within 1 %;
//! - the interior's solid fraction lies in the band of random packings of
//!   frictional spheres, random loose (0.55) to random close (0.64).
//!
//! Reported: how much of the weight the side walls carry, against
//! Janssen's model with the wall friction fully mobilised ([`super::bed`]).

use super::bed::{self, Janssen, Loads};
use super::common::{err, measured, theory_series};
use crate::analyze::fraction::{layered_profile, solid_fraction};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use talus::scene::{Material, RadiusDist, Region, Scene, SceneBuilder};
use talus::Setup;

/// Side of the square box, m, and its height (the lattice's region; 4000
/// sites fill its bottom ~38 mm).
pub const L: f64 = 0.04;
pub const HEIGHT: f64 = 0.12;
/// Beads and their radii, m (uniform).
pub const BEADS: usize = 4000;
pub const R_MIN: f64 = 0.0009;
pub const R_MAX: f64 = 0.0011;
/// Glass, softened (E = 5 MPa) as usual in DEM for a larger time step.
pub const DENSITY: f64 = 2500.0;
pub const FRICTION: f64 = 0.5;
/// Gravity, m/s².
pub const G: f64 = 9.81;
/// Run time and the interval of the readings, s.
pub const DURATION: f64 = 0.5;
pub const OUTPUT: f64 = 0.01;
/// The interior is this far in from the walls, the floor and the top:
/// 2.5 mean diameters, m.
const MARGIN: f64 = 0.005;
/// Judged bounds: at rest, and the random packing band.
const AT_REST: f64 = 1e-4;
const RLP: f64 = 0.55;
const RCP: f64 = 0.64;

pub fn glass() -> Material {
    Material {
        name: "glass".into(),
        density: DENSITY,
        youngs_modulus: 5.0e6,
        poisson_ratio: 0.25,
        restitution: 0.5,
        friction: FRICTION,
        rolling_friction: 0.01,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// The floor and the four side walls, named floor, x0, x1, y0, y1.
pub const WALLS: [(&str, [f64; 3], [f64; 3]); 5] = [
    ("floor", [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ("x0", [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ("x1", [L, 0.0, 0.0], [-1.0, 0.0, 0.0]),
    ("y0", [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ("y1", [0.0, L, 0.0], [0.0, -1.0, 0.0]),
];
/// The side walls' indices in [`WALLS`].
pub const SIDES: [usize; 4] = [1, 2, 3, 4];

/// `scenes/settle.toml`.
pub fn scene() -> Result<Scene, String> {
    let mut b = SceneBuilder::new("settle")
        .domain([0.0; 3], [L, L, HEIGHT])
        .dt_auto(0.2)
        .duration(DURATION)
        .output_interval(OUTPUT)
        .gravity([0.0, 0.0, -G])
        .hertz_mindlin()
        .material(glass());
    for (name, point, normal) in WALLS {
        b = b.wall(point, normal, "glass").wall_name(name);
    }
    b.generate(
        "lattice",
        ([0.0; 3], [L, L, HEIGHT]),
        RadiusDist::Uniform {
            min: R_MIN,
            max: R_MAX,
        },
        "glass",
        Some(BEADS),
        [0.0; 3],
    )
    .build()
    .map_err(err)
}

pub fn case_settle(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let start = std::time::Instant::now();
    let run = Setup::new(scene()?).map_err(err)?;
    let (dt, steps, every) = (run.dt, run.steps, run.output_every);
    let mut be = mk.make_setup(&run)?;
    let first = be.snapshot();
    let weight = bed::weight(&first.pos_rad, DENSITY, G);
    let pe0 = bed::potential(&first.pos_rad, DENSITY, G);
    // floor load / weight and the side walls' share, every OUTPUT
    let (mut floor_series, mut side_series) = (Vec::new(), Vec::new());
    let (mut done, mut rest_since) = (0u64, None);
    let mut kinetic = 0.0;
    while done < steps {
        let k = every.min(steps - done);
        be.advance(k).map_err(err)?;
        done += k;
        let t = done as f64 * dt;
        let l = Loads::read(be.as_mut(), &run.scene);
        floor_series.push((t, l.normal[0] / weight));
        side_series.push((t, -l.fz_of(&SIDES) / weight));
        let d = be.diagnostics();
        kinetic = d.kinetic_translational + d.kinetic_rotational;
        let released = pe0 - bed::potential(&be.snapshot().pos_rad, DENSITY, G);
        match (kinetic <= AT_REST * released, rest_since) {
            (true, None) => rest_since = Some(t),
            (false, _) => rest_since = None,
            _ => {}
        }
    }
    let last = be.snapshot();
    let released = pe0 - bed::potential(&last.pos_rad, DENSITY, G);
    let loads = Loads::read(be.as_mut(), &run.scene);
    let h = bed::bed_height(&last.pos_rad);
    let phi = solid_fraction(&last.pos_rad, &bed::interior(L, h, MARGIN));
    let profile = layered_profile(
        &last.pos_rad,
        &Region::Box {
            min: [0.0; 3],
            max: [L, L, h + 0.004],
        },
        ((h + 0.004) / 0.0002).round() as usize,
    );
    let wall_z: f64 = -loads.fz.iter().sum::<f64>();
    let side_normal = loads.normal_of(&SIDES);
    let side_friction = -loads.fz_of(&SIDES);
    // glass beads on glass walls: μ_w = the material's μ
    let jan = Janssen::fit(0.0, weight, side_normal, loads.normal[0], FRICTION, L, h);
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "{} beads (r {:.1}–{:.1} mm), weight {:.4} N; dt = {dt:.3e} s (auto), {steps} steps, {:.0} s; bed height (twice the mean centre height) {:.2} mm; interior {:.0} mm in from the walls, the floor and the top; kinetic energy {:.2e} J of {:.3e} J released, below {AT_REST:.0e} of it from {} on; side walls' normal load {:.4} N, their friction carries {:.4} N; largest overlap / r {:.3}.",
        last.len(),
        1e3 * R_MIN,
        1e3 * R_MAX,
        weight,
        start.elapsed().as_secs_f64(),
        1e3 * h,
        1e3 * MARGIN,
        kinetic,
        released,
        rest_since.map_or("never".to_string(), |t| format!("t = {t:.2} s")),
        side_normal,
        side_friction,
        be.max_overlap_ratio(),
    ));
    let case = "settle";
    out.row(Row::new(
        case,
        "kinetic / potential energy released, at the end",
        0.0,
        kinetic / released,
        Tol::Abs(AT_REST),
    ));
    out.row(Row::new(
        case,
        "Σ wall z-forces / bed weight",
        1.0,
        wall_z / weight,
        Tol::Rel(0.01),
    ));
    out.row(Row::new(
        case,
        "solid fraction, interior (random loose 0.55 – close 0.64)",
        0.5 * (RLP + RCP),
        phi,
        Tol::Abs(0.5 * (RCP - RLP)),
    ));
    out.row(Row::new(
        case,
        "bed height, mm",
        f64::NAN,
        1e3 * h,
        Tol::Info,
    ));
    if let Some(j) = jan {
        out.row(Row::new(
            case,
            "K = σ_h / σ_v from the side walls",
            f64::NAN,
            j.k,
            Tol::Info,
        ));
        out.row(Row::new(
            case,
            "side walls' share of the weight (Janssen, friction fully mobilised)",
            1.0 - j.floor / weight,
            side_friction / weight,
            Tol::Info,
        ));
    }
    out.row(Row::new(
        case,
        "side walls' friction / (μ_w × their normal load)",
        1.0,
        side_friction / (FRICTION * side_normal),
        Tol::Info,
    ));
    for (q, v) in [
        ("phi", phi),
        ("height_mm", 1e3 * h),
        ("kinetic_over_released", kinetic / released),
        ("walls_over_weight", wall_z / weight),
        ("side_share", side_friction / weight),
        ("k", jan.map_or(f64::NAN, |j| j.k)),
    ] {
        out.point(case, "end", q, v);
    }
    out.plots.push(Plot {
        stem: "settle_profile".into(),
        title: "Settled bed: solid fraction by height".into(),
        x_label: "height above the floor (mm)".into(),
        y_label: "solid fraction".into(),
        caption: "Solid fraction of 0.2 mm slices over the whole 40 × 40 mm section at the end (exact sphere volumes), with the random loose and random close fractions. The floor orders the first layers; the free surface is the fall to zero.".into(),
        series: vec![
            theory_series("random close 0.64", vec![(0.0, RCP), (1e3 * (h + 0.004), RCP)]),
            theory_series("random loose 0.55", vec![(0.0, RLP), (1e3 * (h + 0.004), RLP)]),
            measured(
                "settled bed",
                profile
                    .iter()
                    .map(|b| (1e3 * 0.5 * (b.lo + b.hi), b.fraction))
                    .collect(),
            ),
        ],
    });
    out.plots.push(Plot {
        stem: "settle_loads".into(),
        title: "Settling column: what the walls carry".into(),
        x_label: "time (s)".into(),
        y_label: "load / bed weight".into(),
        caption: "The floor's normal load and the side walls' friction (z), over the bed's weight, every 0.01 s: the falling lattice lands at ~0.05 s, the floor then reads the weight.".into(),
        series: vec![
            theory_series("weight", vec![(0.0, 1.0), (DURATION, 1.0)]),
            measured("floor", floor_series),
            measured("side walls", side_series),
        ],
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scenes/settle.toml` is this case's scene.
    #[test]
    fn shipped_scene_is_the_case() {
        let shipped = super::super::common::shipped("settle.toml");
        let ours = scene().unwrap();
        assert_eq!(shipped.particles.len(), BEADS);
        super::super::common::assert_same_scene(&shipped, &ours);
    }
}
