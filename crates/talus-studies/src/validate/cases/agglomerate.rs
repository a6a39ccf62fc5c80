//! A bonded agglomerate dropped on a plate breaks into more fragments the
//! faster it falls (Potyondy & Cundall 2004's bonded particles; the
//! agglomerate impacts of Thornton and co-workers, e.g. Thornton, Yin &
//! Adams 1996, Moreno-Atanasio & Ghadiri 2006): a ball of spheres on a
//! face-centred cubic lattice, every neighbour bonded, thrown straight down
//! onto a rigid plane at `SPEEDS`. A fragment is a connected component of
//! the spheres over the intact bonds (a lone sphere is one); judged: the
//! number of fragments grows with the speed, and so do the bonds broken;
//! the largest fragment's share of the spheres falls. Reported: the counts,
//! the fragments of two spheres or more, and the bonds broken in tension
//! and in shear.
//!
//! There is no closed form for the count; what is judged is the trend
//! the issue asks for (and what the experiments show: a faster impact
//! puts more energy per bond into the agglomerate than its bonds can
//! hold, so more of them break). The strength was chosen (by trying 2·10⁴
//! to 2·10⁵ Pa at 0.5–4 m/s) so that the slowest speed chips the ball and
//! the fastest shatters it; the impact's kinetic energy per bond over what
//! a bond holds at its tensile strength, σ_c² A L / (2E), is printed for
//! each.

use super::bond_lattice::pieces;
use super::common::{err, measured};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use std::f64::consts::PI;
use talus::scene::types::{BondPairs, BondSpec};
use talus::scene::{Material, Scene, SceneBuilder};

/// The spheres' radius (m), density, contact modulus (Pa); their surface
/// gap (m); the bonds' modulus, strengths (Pa) and damping.
const R: f64 = 1e-3;
const RHO: f64 = 2500.0;
const E_GRAIN: f64 = 1e8;
const SURFACE_GAP: f64 = 1e-5;
const PITCH: f64 = 2.0 * R + SURFACE_GAP;
const E_BOND: f64 = 1e8;
const STRENGTH: f64 = 5e4;
const DAMPING: f64 = 0.2;
/// The ball's radius in pitches (the lattice sites within it).
const BALL: f64 = 3.0;
/// dt = auto at the default safety, 0.2. Not more: a bonded FCC ball
/// has a sphere on up to 12 bonds, and at 0.3 of the bonds' limit with
/// damping 0.2 (or at 0.2 with damping ≥ 0.6, or undamped at 0.8) a
/// free ball nudged by 10⁻⁶ m/s blows its bonds apart (the limit is
/// sized bond by bond: the dashpots and springs of a sphere's bonds add).
const SAFETY: f64 = 0.2;
/// Impact speeds (m/s), slowest first.
const SPEEDS: [f64; 3] = [0.5, 1.0, 2.0];
/// Time after the first touch the count is read at (s): the impact is
/// over (the ball's contact with the plate lasts ~1 ms), and the
/// fragments (at most ~4 m/s) are still inside the domain.
const AFTER: f64 = 0.004;
/// The domain's reach beyond the ball (m).
const ROOM: f64 = 0.03;

fn grain() -> Material {
    Material {
        restitution: 0.5,
        friction: 0.5,
        ..Material::new("grain", RHO, E_GRAIN)
    }
}

fn plate() -> Material {
    Material {
        restitution: 0.5,
        friction: 0.5,
        ..Material::new("plate", 7800.0, 1e3 * E_GRAIN)
    }
}

/// The sites of a face-centred cubic lattice (nearest neighbours PITCH
/// apart) within `BALL` pitches of the origin.
fn sites() -> Vec<[f64; 3]> {
    // FCC: cubic cell a = √2 PITCH, sites at the corners and face centres:
    // integer (i, j, k) with i + j + k even, times a/2
    let h = PITCH / 2f64.sqrt();
    let n = (BALL * PITCH / h).ceil() as i64 + 1;
    let mut out = Vec::new();
    for i in -n..=n {
        for j in -n..=n {
            for k in -n..=n {
                if (i + j + k).rem_euclid(2) != 0 {
                    continue;
                }
                let p = [i as f64 * h, j as f64 * h, k as f64 * h];
                if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() <= BALL * PITCH + 1e-12 {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn scene(speed: f64) -> Result<Scene, String> {
    let s = sites();
    let top = s.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
    let low = s.iter().map(|p| p[2]).fold(f64::MAX, f64::min);
    // the lowest sphere 0.1 R above the plate z = 0
    let lift = -low + R * 1.1;
    let ext = BALL * PITCH + ROOM;
    let mut b = SceneBuilder::new("agglomerate")
        .domain([-ext, -ext, -R], [ext, ext, lift + top + ROOM])
        .gravity([0.0, 0.0, -9.81])
        .dt_auto(SAFETY)
        .steps(1)
        .material(grain())
        .material(plate())
        .bonds(BondSpec {
            pairs: BondPairs::Materials([0, 0]),
            at: 0.0,
            gap: 2.0 * SURFACE_GAP,
            radius_ratio: 1.0,
            youngs_modulus: E_BOND,
            stiffness_ratio: 2.5,
            tensile_strength: Some(STRENGTH),
            shear_strength: Some(STRENGTH),
            damping: DAMPING,
        })
        .wall([0.0; 3], [0.0, 0.0, 1.0], "plate");
    for p in &s {
        b = b.particle([p[0], p[1], p[2] + lift], [0.0, 0.0, -speed], R, "grain");
    }
    b.build().map_err(err)
}

/// What one drop left: fragments (all, and of two spheres or more), the
/// largest's share, bonds broken (tension, shear) of those formed.
struct Drop {
    fragments: usize,
    clusters: usize,
    largest: f64,
    tension: u64,
    shear: u64,
    bonds: usize,
    steps: u64,
}

fn drop(mk: &mut dyn Maker, speed: f64) -> Result<Drop, String> {
    let scene = scene(speed)?;
    let setup = talus::Setup::new(scene.clone()).map_err(err)?;
    let dt = setup.dt;
    let n = scene.particles.len();
    let mut be = mk.make_setup(&setup)?;
    // to the touch (0.1 R at `speed`), then AFTER more
    let steps = ((0.1 * R / speed + AFTER) / dt).ceil() as u64;
    be.advance(steps).map_err(err)?;
    if be.particle_count() as usize != n {
        return Err(format!("{speed} m/s: a sphere left the domain"));
    }
    let t = be.bonds();
    let parts = pieces(n, &t);
    let c = t.counts();
    Ok(Drop {
        fragments: parts.len(),
        clusters: parts.iter().filter(|&&s| s >= 2).count(),
        largest: parts.first().copied().unwrap_or(0) as f64 / n as f64,
        tension: c.tension,
        shear: c.shear,
        bonds: t.len(),
        steps,
    })
}

pub fn case_agglomerate(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let name = "agglomerate";
    let n = sites().len();
    let m = RHO * 4.0 / 3.0 * PI * R.powi(3);
    let held = STRENGTH * STRENGTH * PI * R * R * PITCH / (2.0 * E_BOND);
    let mut drops = Vec::new();
    for v in SPEEDS {
        let d = drop(mk, v)?;
        out.notes.push(format!(
            "{v} m/s: {} fragments ({} of two spheres or more), the largest {:.1} % of the spheres; {} bonds broken in tension, {} in shear, of {}; kinetic energy per bond / what a bond holds at σ_c: {:.1}; {} steps",
            d.fragments,
            d.clusters,
            100.0 * d.largest,
            d.tension,
            d.shear,
            d.bonds,
            0.5 * n as f64 * m * v * v / d.bonds as f64 / held,
            d.steps
        ));
        out.point(name, &format!("{v} m/s"), "fragments", d.fragments as f64);
        out.point(name, &format!("{v} m/s"), "largest_share", d.largest);
        drops.push((v, d));
    }
    out.notes.insert(
        0,
        format!(
            "a ball of {n} spheres (R = {R} m, FCC, {SURFACE_GAP:e} m apart, within {BALL} pitches), every neighbour bonded (E = {E_BOND:e} Pa, k̄_n/k̄_s = 2.5, σ_c = τ_c = {STRENGTH:e} Pa, damping {DAMPING}); grains E = {E_GRAIN:e} Pa, e = 0.5, μ = 0.5, on a plate 1000 × stiffer; gravity; read {AFTER} s after the touch"
        ),
    );
    for w in drops.windows(2) {
        let ((v0, a), (v1, b)) = (&w[0], &w[1]);
        let at = format!("{v0} → {v1} m/s");
        out.row(Row::new(
            name,
            &format!("{at}: more fragments (faster − slower ≥ 1)"),
            1.0,
            (b.fragments as f64 - a.fragments as f64).min(1.0),
            Tol::Abs(1e-9),
        ));
        out.row(Row::new(
            name,
            &format!("{at}: more bonds broken (faster − slower ≥ 1)"),
            1.0,
            ((b.tension + b.shear) as f64 - (a.tension + a.shear) as f64).min(1.0),
            Tol::Abs(1e-9),
        ));
        out.row(Row::new(
            name,
            &format!("{at}: a smaller largest fragment (its share falls)"),
            1.0,
            if b.largest < a.largest { 1.0 } else { 0.0 },
            Tol::Abs(1e-9),
        ));
    }
    let first = &drops[0].1;
    out.row(Row::new(
        name,
        &format!("{} m/s: some bonds break", SPEEDS[0]),
        1.0,
        ((first.tension + first.shear) as f64).min(1.0),
        Tol::Abs(1e-9),
    ));
    out.plots.push(Plot {
        stem: "agglomerate".into(),
        title: "A bonded agglomerate on a plate: fragments against impact speed".into(),
        x_label: "impact speed [m/s]".into(),
        y_label: "fragments".into(),
        caption: format!(
            "Fragments (connected components over the intact bonds, a lone sphere counted) of a ball of {n} bonded spheres {AFTER} s after it hits the plate"
        ),
        series: vec![
            measured(
                "fragments",
                drops.iter().map(|(v, d)| (*v, d.fragments as f64)).collect(),
            ),
            measured(
                "of two or more",
                drops.iter().map(|(v, d)| (*v, d.clusters as f64)).collect(),
            ),
        ],
    });
    Ok(out)
}
