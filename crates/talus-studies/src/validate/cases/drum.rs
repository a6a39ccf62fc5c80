//! The rotating drum (long, `--full` only): the dynamic angle of repose of
//! glass beads against the rotation rate, in the analytic drum (a
//! `cylinder` wall and two end planes, all turning) and in the same drum as
//! a triangulated CAD part (`scenes/drum.stl`, shell and end caps turning
//! as one mesh), side by side with LIGGGHTS 3.8 on the same STL
//! (`validation/liggghts/drum.py`, results in
//! `validation/liggghts/drum_results.csv`). `docs/applications/drum.md`.
//!
//! `--set drum.rolling=X` (issue 38) gives beads and walls rolling springs
//! (`epsd2`, LIGGGHTS' `rolling_friction epsd2`) with rolling friction X,
//! from the settling on, judged against `drum.py --mu-r X`
//! (`drum_epsd2_X_results.csv`) within [`TOL_LIGGGHTS_ROLLING`].
//!
//! The angle is measured with [`surface_angle`] (a local estimator:
//! `crate::analyze` has no angle of repose yet): in the drum's mid-plane
//! slab, the highest bead in each 4 mm column across the bed, the line
//! fitted through those of the central 60 % of the surface, its angle to
//! the horizontal. `drum.py` computes it in Python with the same steps.

use super::common::{err, measured, theory_series};
use crate::validate::maker::Maker;
use crate::validate::options::{Kind as OptKind, Options, Spec};
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use std::collections::BTreeMap;
use talus::scene::{
    mesh_file, Material, RadiusDist, Scene, SceneBuilder, Shape, Side, Wall, WallMotion,
};

/// Drum radius and length (m): axis along +y from y = 0 to y = `LEN`.
pub const R_DRUM: f64 = 0.05;
pub const LEN: f64 = 0.04;
/// Time step (s), the same in LIGGGHTS (`dt = "auto"` gives 1.91e-5 here).
pub const DT: f64 = 1.9e-5;
pub const G: f64 = 9.81;
/// Rotation rates (rad/s): Froude numbers ω²R/g = 1.3e-3, 0.011, 0.099.
pub const OMEGAS: [f64; 3] = [0.5, 1.5, 4.4];
/// Settling at rest before the drum turns (s).
pub const SETTLE: f64 = 0.3;
/// The drum turns this far (rad, for at least `MIN_SPIN_UP` s) before the
/// angle is measured ...
pub const SPIN_UP: f64 = 0.7;
pub const MIN_SPIN_UP: f64 = 0.3;
/// ... then this far (rad, at least `MIN_WINDOW` s: the bed surges at the
/// highest rate, with a period of ~0.4 s), sampled at `SAMPLES` evenly
/// spaced snapshots.
pub const WINDOW: f64 = 1.2;
pub const MIN_WINDOW: f64 = 1.0;
pub const SAMPLES: usize = 20;
/// Analytic vs STL drum, and talus vs LIGGGHTS: allowed difference of the
/// mean angles (degrees), chosen before the runs: a few times the standard
/// error of a 20-snapshot mean (per-snapshot scatter ~1–2°); LIGGGHTS gets
/// 1° more for its tangential law (its damper exceeds the Coulomb limit,
/// `docs/validation.md`).
pub const TOL_MESH: f64 = 2.0;
pub const TOL_LIGGGHTS: f64 = 3.0;
/// talus vs LIGGGHTS with rolling springs (`drum.rolling`): issue 38's
/// 1° (`epsd2` beside LIGGGHTS, as the heap's `TOL_ANGLE_ROLLING`).
pub const TOL_LIGGGHTS_ROLLING: f64 = 1.0;

/// The case's options.
pub const OPTIONS: &[Spec] = &[Spec {
    key: "drum.rolling",
    kind: OptKind::AtLeast(0.0),
    expected: "a rolling friction >= 0",
    default: "0",
    help: "rolling springs (epsd2) on beads and walls with this rolling friction (LIGGGHTS: drum.py --mu-r X): judged against drum_epsd2_X_results.csv within 1°",
}];

/// What the options change: the rolling model.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Knobs {
    /// A rolling friction μ_r with rolling springs (`epsd2`) on beads and
    /// walls; 0: none, the dry case.
    pub rolling: f64,
}

impl Knobs {
    pub fn from_options(opts: &Options) -> Result<Knobs, String> {
        let mut k = Knobs::default();
        if let Some(m) = opts.number("drum.rolling") {
            k.rolling = m;
        }
        Ok(k)
    }
    /// The LIGGGHTS results this set-up is judged against: the dry drum's
    /// (`drum`), or one with rolling springs' (`drum_epsd2_M`, M as
    /// Python's `{:g}` and Rust's `{}` both write a short decimal, as
    /// `drum.py --mu-r M` names it); None for any other.
    pub fn results_name(&self) -> Option<String> {
        if self.rolling > 0.0 {
            let m = format!("{}", self.rolling);
            (m.len() <= 6 && !m.contains('e')).then(|| format!("drum_epsd2_{m}"))
        } else {
            Some("drum".into())
        }
    }
    /// What the rows' names add: the rolling model, or nothing (dry).
    pub fn label(&self) -> String {
        if self.rolling > 0.0 {
            format!(" · epsd2 μ_r = {}", self.rolling)
        } else {
            String::new()
        }
    }
}

/// Steps before the window and between samples at `omega`.
pub fn schedule(omega: f64) -> (u64, u64) {
    let spin = ((SPIN_UP / omega).max(MIN_SPIN_UP) / DT).round() as u64;
    let window = (WINDOW / omega).max(MIN_WINDOW);
    let every = (window / SAMPLES as f64 / DT).round() as u64;
    (spin, every)
}

/// The free surface's angle to the horizontal (degrees), positive when it
/// rises toward −x (the rising side of a drum turning about +y). Beads in
/// the slab |y − `y_mid`| ≤ `half_width`; the highest of each 4 mm column
/// along x that has at least 3 beads (of all) within 2.5 of its radii
/// (a bead thrown off the surface is passed over for the next one down);
/// the columns whose centres lie in the central 60 % of the x-range the
/// surface spans; a least-squares line z = a + b x through those beads'
/// centres; atan(−b). None with fewer than 4 columns.
pub fn surface_angle(pos_rad: &[[f64; 4]], y_mid: f64, half_width: f64) -> Option<f64> {
    let w = 0.004;
    let mut cols: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, p) in pos_rad.iter().enumerate() {
        if (p[1] - y_mid).abs() <= half_width {
            cols.entry((p[0] / w).floor() as i64).or_default().push(i);
        }
    }
    let packed = |i: usize| {
        let p = pos_rad[i];
        let reach = 2.5 * p[3];
        pos_rad
            .iter()
            .enumerate()
            .filter(|&(j, q)| {
                j != i && (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>() < reach * reach
            })
            .count()
            >= 3
    };
    let mut tops: Vec<(f64, f64)> = Vec::new();
    for (&c, members) in &cols {
        let mut m = members.clone();
        m.sort_by(|&a, &b| pos_rad[b][2].total_cmp(&pos_rad[a][2]));
        if let Some(&i) = m.iter().find(|&&i| packed(i)) {
            tops.push(((c as f64 + 0.5) * w, pos_rad[i][2]));
        }
    }
    if tops.len() < 4 {
        return None;
    }
    let (lo, hi) = (tops[0].0, tops[tops.len() - 1].0);
    let (a, b) = (lo + 0.2 * (hi - lo), hi - 0.2 * (hi - lo));
    let pts: Vec<(f64, f64)> = tops
        .into_iter()
        .filter(|&(x, _)| x >= a && x <= b)
        .collect();
    if pts.len() < 4 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let mz = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxz: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - mz)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    Some((-sxz / sxx).atan().to_degrees())
}

/// Mean and sample standard deviation.
fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let s = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
    (m, s)
}

fn glass(knobs: Knobs) -> Material {
    Material {
        name: "glass".into(),
        density: 2500.0,
        youngs_modulus: 5e6,
        poisson_ratio: 0.25,
        restitution: 0.5,
        friction: 0.4,
        // LIGGGHTS' cdt (elastic normal force, torque along the whole
        // relative spin, uncapped) is not talus' law: the dry case runs
        // without rolling friction; epsd2 is the same law in both codes
        rolling_friction: knobs.rolling,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

fn steel(knobs: Knobs) -> Material {
    Material {
        name: "steel".into(),
        density: 7800.0,
        youngs_modulus: 2e11,
        poisson_ratio: 0.3,
        restitution: 0.5,
        friction: 0.6,
        rolling_friction: knobs.rolling,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

fn base(name: &str, knobs: Knobs) -> SceneBuilder {
    let b = SceneBuilder::new(name)
        .domain([-0.052, -0.002, -0.052], [0.052, LEN + 0.002, 0.052])
        .gravity([0.0, 0.0, -G])
        .dt(DT)
        .steps(1)
        .material(glass(knobs))
        .material(steel(knobs));
    if knobs.rolling > 0.0 {
        b.rolling(talus::scene::Rolling::Epsd2)
    } else {
        b
    }
}

/// The drum's walls turning at `omega` (rad/s) about +y: the analytic
/// cylinder and its two end planes, or `scenes/drum.stl` (mm) as one mesh.
fn drum_walls(mesh: bool, omega: f64) -> Result<Vec<Wall>, String> {
    let motion = (omega != 0.0).then_some(WallMotion {
        axis_point: [0.0; 3],
        axis: [0.0, 1.0, 0.0],
        angular_velocity: omega,
        ..Default::default()
    });
    let wall = |name: &str, shape| Wall {
        name: Some(name.into()),
        shape,
        material: 1,
        motion,
        servo: None,
    };
    if mesh {
        let file = crate::repo_root().join("scenes/drum.stl");
        let mut triangles = mesh_file::read(&file)?;
        mesh_file::transform(&mut triangles, 0.001, None, [0.0; 3]);
        let degenerate = mesh_file::drop_degenerate(&mut triangles);
        return Ok(vec![wall(
            "drum",
            Shape::Mesh {
                file,
                triangles,
                one_sided: false,
                degenerate,
            },
        )]);
    }
    Ok(vec![
        wall(
            "drum",
            Shape::Cylinder {
                center: [0.0; 3],
                axis: [0.0, 1.0, 0.0],
                radius: R_DRUM,
                length: Some(LEN),
                side: Side::Inside,
            },
        ),
        wall(
            "back",
            Shape::Plane {
                point: [0.0; 3],
                normal: [0.0, 1.0, 0.0],
            },
        ),
        wall(
            "front",
            Shape::Plane {
                point: [0.0, LEN, 0.0],
                normal: [0.0, -1.0, 0.0],
            },
        ),
    ])
}

fn with_walls(mut b: SceneBuilder, walls: Vec<Wall>) -> SceneBuilder {
    for w in walls {
        b = b.add_wall(w);
    }
    b
}

/// The bed of drum.toml (2000 beads, r = 1.8–2.0 mm, on a lattice inside
/// the drum, ~30 % fill) settled for `SETTLE` s in the analytic drum at
/// rest (with the rolling model of `knobs`, as `drum.py` settles); returned
/// at rest, in id order.
fn settled_bed(mk: &mut dyn Maker, knobs: Knobs) -> Result<(Vec<[f64; 4]>, f64), String> {
    let scene = with_walls(base("drum settle", knobs), drum_walls(false, 0.0)?)
        .generate(
            "lattice",
            ([-0.0338, 0.0002, -0.0338], [0.0338, LEN - 0.0002, 0.0338]),
            RadiusDist::Uniform {
                min: 0.0018,
                max: 0.002,
            },
            "glass",
            Some(2000),
            [0.0; 3],
        )
        .build()
        .map_err(err)?;
    let t0 = std::time::Instant::now();
    let mut be = mk.make(&scene)?;
    be.advance((SETTLE / DT).round() as u64).map_err(err)?;
    let p = be.snapshot();
    let mut bed: Vec<(u32, [f64; 4])> = p.id.iter().copied().zip(p.pos_rad).collect();
    bed.sort_by_key(|b| b.0);
    Ok((
        bed.into_iter().map(|b| b.1).collect(),
        t0.elapsed().as_secs_f64(),
    ))
}

fn drum_scene(bed: &[[f64; 4]], mesh: bool, omega: f64, knobs: Knobs) -> Result<Scene, String> {
    let mut b = with_walls(base("drum", knobs), drum_walls(mesh, omega)?);
    for p in bed {
        b = b.particle([p[0], p[1], p[2]], [0.0; 3], p[3], "glass");
    }
    b.build().map_err(err)
}

/// One drum at one rate: the angles of the `SAMPLES` snapshots, and the
/// wall-clock seconds.
fn angles(
    mk: &mut dyn Maker,
    bed: &[[f64; 4]],
    mesh: bool,
    omega: f64,
    knobs: Knobs,
) -> Result<(Vec<f64>, f64), String> {
    let scene = drum_scene(bed, mesh, omega, knobs)?;
    let (spin, every) = schedule(omega);
    let t0 = std::time::Instant::now();
    let mut be = mk.make(&scene)?;
    be.advance(spin).map_err(err)?;
    let mut out = Vec::new();
    for _ in 0..SAMPLES {
        be.advance(every).map_err(err)?;
        let p = be.snapshot();
        out.push(
            surface_angle(&p.pos_rad, 0.5 * LEN, 0.25 * LEN)
                .ok_or_else(|| format!("ω = {omega}: no free surface found"))?,
        );
    }
    Ok((out, t0.elapsed().as_secs_f64()))
}

/// `validation/liggghts/<name>_results.csv` (case,point,quantity,value;
/// the point `ω=<rad/s>`; `drum_results.csv` or `drum_epsd2_M_results.csv`):
/// ω → (mean, std, samples).
fn liggghts(name: &str) -> BTreeMap<String, (f64, f64, f64)> {
    let file = crate::repo_root().join(format!("validation/liggghts/{name}_results.csv"));
    let mut v: BTreeMap<(String, String), f64> = BTreeMap::new();
    if let Ok(text) = std::fs::read_to_string(file) {
        for line in text.lines().skip(1) {
            let c: Vec<&str> = line.split(',').map(str::trim).collect();
            if c.len() == 4 && c[0] == "drum" {
                if let Ok(x) = c[3].parse::<f64>() {
                    v.insert((c[1].into(), c[2].into()), x);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for ((point, q), x) in &v {
        if q == "angle" {
            let get = |k: &str| {
                v.get(&(point.clone(), k.into()))
                    .copied()
                    .unwrap_or(f64::NAN)
            };
            out.insert(point.clone(), (*x, get("angle_std"), get("samples")));
        }
    }
    out
}

fn key(omega: f64) -> String {
    format!("ω={omega}")
}

pub fn case_drum(mk: &mut dyn Maker, opts: &Options) -> Result<CaseResult, String> {
    let knobs = Knobs::from_options(opts)?;
    let mut out = CaseResult::default();
    let label = knobs.label();
    let (bed, t_settle) = settled_bed(mk, knobs)?;
    let rolling = if knobs.rolling > 0.0 {
        format!(
            "rolling springs (epsd2) with μ_r = {} on every pair, beads and walls",
            knobs.rolling
        )
    } else {
        "no rolling friction".to_string()
    };
    out.notes.push(format!(
        "{} glass beads (r = 1.8–2.0 mm, E = 5 MPa, e = 0.5, μ = 0.4; steel walls μ = 0.6, glass–steel 0.5; {rolling}) in a drum R = {R_DRUM} m, L = {LEN} m turning about +y, end plates with it; settled {SETTLE} s at rest ({t_settle:.0} s), then each rate from that bed; dt = {DT:.2e} s; angle over {SAMPLES} snapshots after max({SPIN_UP} rad, {MIN_SPIN_UP} s) of turning, spaced over max({WINDOW} rad, {MIN_WINDOW} s); mid-plane slab |y − L/2| ≤ L/4",
        bed.len()
    ));
    // talus first (both drums at every rate), then LIGGGHTS' file is read,
    // so a drum.py running beside the case is seen when it has finished
    let mut talus = Vec::new();
    for &omega in &OMEGAS {
        let (a, ta) = angles(mk, &bed, false, omega, knobs)?;
        let (m, tm) = angles(mk, &bed, true, omega, knobs)?;
        talus.push((omega, a, ta, m, tm));
    }
    // LIGGGHTS' results of this set-up: the dry drum's, or the same
    // rolling springs' (another μ_r: reported, not judged)
    let lig = match knobs.results_name() {
        Some(name) => liggghts(&name),
        None => {
            out.notes.push(format!(
                "rolling friction {}: no LIGGGHTS results name for it; the rows against LIGGGHTS are left out",
                knobs.rolling
            ));
            BTreeMap::new()
        }
    };
    let tol_lig = if knobs.rolling > 0.0 {
        TOL_LIGGGHTS_ROLLING
    } else {
        TOL_LIGGGHTS
    };
    let lig_name = if knobs.rolling > 0.0 {
        "LIGGGHTS epsd2"
    } else {
        "LIGGGHTS"
    };
    let (mut pa, mut pm, mut pl) = (Vec::new(), Vec::new(), Vec::new());
    let (mut pl_hi, mut pl_lo) = (Vec::new(), Vec::new());
    let mut means = Vec::new();
    for (omega, a, ta, m, tm) in talus {
        let fr = omega * omega * R_DRUM / G;
        let ((am, asd), (mm, msd)) = (mean_std(&a), mean_std(&m));
        let (spin, every) = schedule(omega);
        let case = format!("drum ω = {omega} rad/s{label}");
        let mut note = format!(
            "ω = {omega} rad/s (Fr = {fr:.2e}): {spin} + {SAMPLES} × {every} steps; analytic {am:.2}° ± {asd:.2}° ({ta:.0} s), STL {mm:.2}° ± {msd:.2}° ({tm:.0} s)"
        );
        out.row(Row::new(
            &case,
            "angle (°), STL drum vs analytic",
            am,
            mm,
            Tol::Abs(TOL_MESH),
        ));
        if let Some(&(lm, lsd, ln)) = lig.get(&key(omega)) {
            // the standard error of a talus mean less LIGGGHTS' (the
            // snapshots taken as independent: a lower bound in a surging bed)
            let se = |sd: f64, n: usize| (sd * sd / n as f64 + lsd * lsd / ln).sqrt();
            note += &format!(
                ", {lig_name} {lm:.2}° ± {lsd:.2}° ({ln} snapshots); the differences' standard errors {:.2}° (analytic), {:.2}° (STL)",
                se(asd, a.len()),
                se(msd, m.len())
            );
            out.row(Row::new(
                &case,
                &format!("angle (°), talus analytic vs {lig_name}"),
                lm,
                am,
                Tol::Abs(tol_lig),
            ));
            out.row(Row::new(
                &case,
                &format!("angle (°), talus STL vs {lig_name}"),
                lm,
                mm,
                Tol::Abs(tol_lig),
            ));
            pl.push((fr.log10(), lm));
            pl_hi.push((fr.log10(), lm + lsd));
            pl_lo.push((fr.log10(), lm - lsd));
        }
        out.notes.push(note);
        let drum = format!("drum{label}");
        for (kind, v, s, all) in [("analytic", am, asd, &a), ("stl", mm, msd, &m)] {
            let point = format!("{} {kind}", key(omega));
            out.point(&drum, &point, "angle", v);
            out.point(&drum, &point, "angle_std", s);
            for (k, x) in all.iter().enumerate() {
                out.point(&drum, &point, &format!("angle_{k}"), *x);
            }
        }
        pa.push((fr.log10(), am));
        pm.push((fr.log10(), mm));
        means.push((am + mm) / 2.0);
    }
    if lig.is_empty() {
        if let Some(name) = knobs.results_name() {
            let run = if knobs.rolling > 0.0 {
                format!("validation/liggghts/drum.py --mu-r {}", knobs.rolling)
            } else {
                "validation/liggghts/run.sh drum".into()
            };
            out.notes.push(format!(
                "no LIGGGHTS results (validation/liggghts/{name}_results.csv: run {run})"
            ));
        }
    }
    // with rolling springs the surface stands steeper than the dry drum's
    // (LIGGGHTS' dry angles: reported)
    if knobs.rolling > 0.0 {
        let dry = liggghts("drum");
        for (&omega, &mean) in OMEGAS.iter().zip(&means) {
            if let Some(&(d, _, _)) = dry.get(&key(omega)) {
                out.row(Row::new(
                    &format!("drum ω = {omega} rad/s{label}"),
                    "talus' mean angle less LIGGGHTS' dry drum's (°)",
                    f64::NAN,
                    mean - d,
                    Tol::Info,
                ));
            }
        }
    }
    let falls = means.windows(2).filter(|w| w[1] <= w[0]).count();
    out.row(Row::new(
        &format!("drum{label}"),
        "rates where the mean angle does not rise with ω",
        0.0,
        falls as f64,
        Tol::Abs(0.5),
    ));
    out.row(Row::new(
        &format!("drum{label}"),
        "angle rise, lowest to highest rate (°)",
        0.0,
        means[means.len() - 1] - means[0],
        Tol::Info,
    ));
    let mut series = vec![
        measured("talus, analytic drum", pa),
        measured("talus, STL drum", pm),
    ];
    if !pl.is_empty() {
        series.push(theory_series(&format!("{lig_name} 3.8, STL drum"), pl));
        series.push(theory_series("LIGGGHTS + 1 s.d. of its snapshots", pl_hi));
        series.push(theory_series("LIGGGHTS − 1 s.d.", pl_lo));
    }
    let (stem, title) = if knobs.rolling > 0.0 {
        (
            format!("drum_angle_epsd2_{}", knobs.rolling).replace('.', "_"),
            format!(
                "Rotating drum: dynamic angle of repose, epsd2 μ_r = {}",
                knobs.rolling
            ),
        )
    } else {
        (
            "drum_angle".to_string(),
            "Rotating drum: dynamic angle of repose".to_string(),
        )
    };
    out.plots.push(Plot {
        stem,
        title,
        x_label: "log₁₀ of the Froude number ω²R/g".into(),
        y_label: "angle of the free surface (°)".into(),
        caption: format!("Mean over {SAMPLES} snapshots in the steady window; analytic cylinder and end planes, the same drum as an STL mesh, LIGGGHTS 3.8 on the same STL (lines: mean and ± one standard deviation of its snapshots)."),
        series,
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tilted, loosely packed bed of equal spheres: the estimator gives
    /// its tilt back.
    #[test]
    fn angle_of_a_tilted_lattice() {
        for deg in [-10.0f64, 0.0, 15.0, 30.0] {
            let (s, c) = deg.to_radians().sin_cos();
            let mut p = Vec::new();
            for i in -20..=20 {
                for k in -12..=0 {
                    for j in 0..4 {
                        // the bed's own frame: u along its surface, w up
                        let (u, w) = (i as f64 * 0.0021, k as f64 * 0.0021);
                        p.push([u * c - w * s, 0.0021 * j as f64, -(u * s + w * c), 0.001]);
                    }
                }
            }
            let a = surface_angle(&p, 0.003, 0.01).unwrap();
            // validation/liggghts/drum.py --selftest prints the same
            println!("tilt {deg:?}: {a:.12}");
            assert!((a - deg).abs() < 1.5, "{deg}° gave {a}°");
        }
    }

    /// `--set drum.rolling=X`: rolling springs with μ_r X on glass and
    /// steel from the settling on, judged against the file `drum.py
    /// --mu-r X` writes; unset, the dry drum as before.
    #[test]
    fn the_rolling_option_makes_the_epsd2_drum() {
        // the drum's own options (the registry's `catalogue` holds them
        // too; read here without importing the registry back)
        let catalogue = || crate::validate::options::Catalogue(vec![("drum", "drum", OPTIONS)]);
        let opts = |words: &[&str]| {
            let o = catalogue().parse(words).unwrap();
            Knobs::from_options(&o).unwrap()
        };
        let dry = opts(&[]);
        assert_eq!(dry, Knobs::default());
        assert_eq!(dry.results_name().unwrap(), "drum");
        assert_eq!(dry.label(), "");
        assert_eq!(opts(&["drum.rolling=0"]), dry);
        let k = opts(&["drum.rolling=0.1"]);
        assert_eq!(k.rolling, 0.1);
        assert_eq!(k.results_name().unwrap(), "drum_epsd2_0.1");
        assert_eq!(k.label(), " · epsd2 μ_r = 0.1");
        let m = |r: f64| Knobs { rolling: r }.results_name();
        assert_eq!(m(0.05).unwrap(), "drum_epsd2_0.05");
        assert_eq!(m(0.3).unwrap(), "drum_epsd2_0.3");
        // Python's {:g} writes 1e-07, Rust 0.0000001: no file to judge by
        assert_eq!(m(1e-7), None);
        assert!(catalogue().parse(&["drum.rolling=-0.1"]).is_err());
        // the file the script writes for --mu-r X is the one read
        let py = std::fs::read_to_string(crate::repo_root().join("validation/liggghts/drum.py"))
            .unwrap();
        assert!(py.contains(r#"f"drum_epsd2_{MU_R:g}_results.csv""#));
        assert!(py.contains("rolling_friction epsd2"));
        // the scenes: epsd2 and μ_r on both materials, or neither
        let bed = [[0.0, 0.02, -0.04, 0.002]];
        for mesh in [false, true] {
            let s = drum_scene(&bed, mesh, 1.5, k).unwrap();
            assert_eq!(s.contact.rolling, talus::scene::Rolling::Epsd2);
            assert_eq!(s.materials.len(), 2);
            assert!(s.materials.iter().all(|m| m.rolling_friction == 0.1));
            let s = drum_scene(&bed, mesh, 1.5, dry).unwrap();
            assert_eq!(s.contact.rolling, talus::scene::Rolling::Cdt);
            assert!(s.materials.iter().all(|m| m.rolling_friction == 0.0));
        }
    }
}
