//! The fracture of a fixed-end beam (Chiou 1998 §6.7, seed 004): a
//! bonded beam, both ends held, pushed down at midspan at a steady speed
//! until it breaks. Chiou moved three particles in the middle; here a
//! roller (a cylinder wall along y, `[walls.motion]`) comes down on the
//! three spheres of the middle layer's top row. Against a fixed–fixed
//! beam under a central load P (docs/applications/beam.md):
//!
//! - before the first bond breaks, the load rises with the midspan
//!   deflection at 192 E I / l³ (Euler–Bernoulli, l the span between the
//!   clamps), softened by Timoshenko's shear term P l / (4 κGA): 1/k =
//!   l³/(192 E I) + l/(4 κGA), with the 3 × 3 section's E I and the
//!   lattice's κGA of case `bonds` (`bonds::lattice_kga`), within 2 %;
//!   and against the bonded spheres' own linear statics under the same
//!   three point loads (`bond_lattice.rs`), within 2 %;
//! - the moment is largest, P l / 8, at midspan (sagging: the bottom in
//!   tension) and at the clamps (hogging: the top): the first bonds to
//!   break are there (within a pitch), in tension, on the tension face,
//!   and they are the bonds the lattice's statics stress most;
//! - a bond breaks where σ = F_n/A + |M_b| R̄/I reaches σ_c. Plane sections
//!   give a bond at height z the stretch z κ L and the turn κ L (κ = M/EI):
//!   σ = E κ (z + R̄), largest on the extreme rows z = ±L. The bonds
//!   nearest the sections of largest moment sit half a pitch in, where
//!   |M| = P l/8 − P L/4: the first break comes at P = σ_c E I / (E (L +
//!   R̄)(l/8 − L/4)), judged within 10 %: the lattice's own statics put
//!   its most stressed bonds (at the clamps) 6.7 % above this σ (those at
//!   midspan 4.4 %: the spheres turn apart from the section near the held
//!   layer and the loaded one), so the first break 6.3 % below; against
//!   the load at which those statics bring their most stressed bond to
//!   σ_c, within 2 %.
//!
//! No gravity (the push alone loads the beam); no bond damping (the roller
//! contact's restitution damps the ringing it starts). The roller comes
//! down slowly: ~54 periods of the beam's first mode to the first break.

use super::bond_lattice::{pieces, BondMake, Lattice};
use super::bonds::{grain, lattice_kga, E_BOND, PITCH, R, RATIO, RHO, SURFACE_GAP};
use super::common::{err, measured, theory_series};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use std::f64::consts::PI;
use talus::bonds::table::Status;
use talus::scene::types::{BondPairs, BondSpec, Region, Shape, Side};
use talus::scene::{Scene, SceneBuilder, WallMotion};

/// The spheres and bonds are case `bonds`' (its `R`, `RHO`, `E_BOND`,
/// `RATIO`, `SURFACE_GAP`, `PITCH`, `grain`); the tensile and shear strength (Pa).
const STRENGTH: f64 = 5e4;
/// Free layers between the clamps (odd: one in the middle), held layers
/// at each end, the section's side.
const FREE: usize = 39;
const HELD: usize = 2;
const SIDE: usize = 3;
/// The roller's radius and its gap to the top spheres at t = 0 (m), its
/// speed (m/s).
const ROLLER: f64 = 2e-3;
const GAP0: f64 = 1e-6;
const SPEED: f64 = 2e-4;
const SAFETY: f64 = 0.5;
/// How far the roller goes, in deflections at the first break (the beam
/// breaks through within a few hundredths more).
const TRAVEL: f64 = 1.5;

fn layers() -> usize {
    FREE + 2 * HELD
}

/// The span l between the clamps (the innermost held layers' centres).
fn span() -> f64 {
    (FREE + 1) as f64 * PITCH
}

fn mid_layer() -> usize {
    HELD + (FREE - 1) / 2
}

/// Sphere index of (layer, y column, z row).
fn index(i: usize, j: usize, k: usize) -> usize {
    (i * SIDE + j) * SIDE + k
}

fn height(k: usize) -> f64 {
    (k as f64 - 0.5 * (SIDE as f64 - 1.0)) * PITCH
}

fn scene() -> Result<Scene, String> {
    let n = layers();
    let half = 0.5 * (SIDE as f64 - 1.0) * PITCH;
    let ext = half + 6.0 * R;
    let x_end = (n - 1) as f64 * PITCH;
    let x_mid = mid_layer() as f64 * PITCH;
    let spec = BondSpec {
        pairs: BondPairs::Materials([0, 0]),
        at: 0.0,
        gap: 2.0 * SURFACE_GAP,
        radius_ratio: 1.0,
        youngs_modulus: E_BOND,
        stiffness_ratio: RATIO,
        tensile_strength: Some(STRENGTH),
        shear_strength: Some(STRENGTH),
        damping: 0.0,
    };
    let clamp = |x0: f64, x1: f64| Region::Box {
        min: [x0, -ext, -ext],
        max: [x1, ext, ext],
    };
    let held = (HELD as f64 - 0.5) * PITCH;
    let mut b = SceneBuilder::new("beam")
        .domain(
            [-3.0 * R, -ext, -ext - 10.0 * R],
            [x_end + 3.0 * R, ext, ext],
        )
        .gravity([0.0; 3])
        .dt_auto(SAFETY)
        .steps(1)
        .material(grain())
        .bonds(spec)
        .fixed(clamp(-R, held))
        .fixed(clamp(x_end - held, x_end + R));
    for i in 0..n {
        for j in 0..SIDE {
            for k in 0..SIDE {
                let p = [i as f64 * PITCH, j as f64 * PITCH - half, height(k)];
                b = b.particle(p, [0.0; 3], R, "grain");
            }
        }
    }
    let width = 2.0 * half + 4.0 * R;
    b.shape_wall(
        Shape::Cylinder {
            center: [x_mid, -0.5 * width, half + R + ROLLER + GAP0],
            axis: [0.0, 1.0, 0.0],
            radius: ROLLER,
            length: Some(width),
            side: Side::Outside,
        },
        "grain",
    )
    .wall_name("roller")
    .wall_motion(WallMotion {
        velocity: [0.0, 0.0, -SPEED],
        ..WallMotion::default()
    })
    .build()
    .map_err(err)
}

fn lattice(scene: &Scene) -> Lattice {
    let x_end = (layers() - 1) as f64 * PITCH;
    let held_to = (HELD as f64 - 0.5) * PITCH;
    Lattice::new(
        scene.particles.iter().map(|p| p.position).collect(),
        scene.particles.iter().map(|p| p.radius).collect(),
        scene
            .particles
            .iter()
            .map(|p| p.position[0] < held_to || p.position[0] > x_end - held_to)
            .collect(),
        RHO,
        BondMake {
            youngs: E_BOND,
            stiffness_ratio: RATIO,
            radius_ratio: 1.0,
            gap: 2.0 * SURFACE_GAP,
        },
    )
}

/// What the references say for a unit central load.
struct Expect {
    /// The load per midspan deflection (N/m): the lattice's, and beam
    /// theory's with and without the shear term.
    k_lattice: f64,
    k_beam: f64,
    k_bending: f64,
    /// The load at the first break (N): the lattice's, beam theory's.
    p_lattice: f64,
    p_beam: f64,
    /// The bonds the lattice stresses most (within 10⁻⁶ of the most).
    first: Vec<[u32; 2]>,
    /// Whether a bond would reach τ_c before any reaches σ_c.
    shear_first: bool,
    /// The lattice's slowest mode (Hz).
    f1: f64,
}

fn expect(scene: &Scene) -> Expect {
    let lat = lattice(scene);
    let m = mid_layer();
    let loads: Vec<(usize, [f64; 3])> = (0..SIDE)
        .map(|j| (index(m, j, SIDE - 1), [0.0, 0.0, -1.0 / SIDE as f64]))
        .collect();
    let q = lat.solve(&loads);
    let defl = -(0..SIDE * SIDE)
        .map(|k| q[m * SIDE * SIDE + k][2])
        .sum::<f64>()
        / (SIDE * SIDE) as f64;
    let st = lat.stresses(&q);
    let most = st.iter().map(|s| s.0).fold(0.0, f64::max);
    let most_tau = st.iter().map(|s| s.1).fold(0.0, f64::max);
    let first = lat
        .links
        .iter()
        .zip(&st)
        .filter(|(_, s)| s.0 >= most * (1.0 - 1e-6))
        .map(|(l, _)| [l.a as u32, l.b as u32])
        .collect();
    let (area, i2) = (PI * R * R, 0.25 * PI * R.powi(4));
    let y2: f64 = (0..SIDE).map(|k| height(k).powi(2) * SIDE as f64).sum();
    let ei = E_BOND * ((SIDE * SIDE) as f64 * i2 + area * y2);
    let l = span();
    let k_bending = 192.0 * ei / l.powi(3);
    let k_beam = 1.0 / (1.0 / k_bending + l / (4.0 * lattice_kga(SIDE)));
    let z_max = height(SIDE - 1);
    Expect {
        k_lattice: 1.0 / defl,
        k_beam,
        k_bending,
        p_lattice: STRENGTH / most,
        p_beam: STRENGTH * ei / (E_BOND * (z_max + R) * (l / 8.0 - PITCH / 4.0)),
        first,
        shear_first: STRENGTH / most_tau < STRENGTH / most,
        f1: lat.slowest([0.0, 0.0, -1.0], true) / (2.0 * PI),
    }
}

/// A sample of the run: time, the roller's load (N, up), the middle
/// layer's mean deflection (m, down), bonds broken.
#[derive(Debug, Clone, Copy)]
struct Sample {
    t: f64,
    load: f64,
    defl: f64,
    broken: u64,
}

/// The bonds that broke (ids, how).
type Broke = Vec<([u32; 2], Status)>;

/// Least-squares slope of y(x).
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

pub fn case_beam(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let name = "beam";
    let scene = scene()?;
    let ex = expect(&scene);
    let setup = talus::Setup::new(scene.clone()).map_err(err)?;
    let dt = setup.dt;
    let mut be = mk.make_setup(&setup)?;
    let n_sph = scene.particles.len();
    let m = mid_layer();
    let mids: Vec<usize> = (0..SIDE * SIDE).map(|k| m * SIDE * SIDE + k).collect();
    let z0: f64 = mids
        .iter()
        .map(|&i| scene.particles[i].position[2])
        .sum::<f64>()
        / mids.len() as f64;
    let roller = scene.walls.len() - 1;
    // the deflection at the first break the lattice predicts, and the run:
    // the roller goes on to TRAVEL times as far
    let d_break = ex.p_lattice / ex.k_lattice;
    let every = 20u64;
    let max_steps = ((GAP0 + TRAVEL * d_break) / SPEED / dt) as u64;
    let mut samples = Vec::new();
    let mut first: Option<(Sample, Broke, Sample)> = None;
    let mut peak = 0.0f64;
    let mut last_break = 0.0;
    let mut done = 0u64;
    let mut last = Sample {
        t: 0.0,
        load: 0.0,
        defl: 0.0,
        broken: 0,
    };
    while done < max_steps {
        be.advance(every).map_err(err)?;
        done += every;
        let s = be.snapshot();
        if s.pos_rad.len() != n_sph {
            return Err("a sphere left the domain".into());
        }
        let z = mids.iter().map(|&i| s.pos_rad[i][2]).sum::<f64>() / mids.len() as f64;
        let load = be.walls()[roller].1.force[2];
        let bonds = be.bonds();
        let c = bonds.counts();
        let now = Sample {
            t: done as f64 * dt,
            load,
            defl: z0 - z,
            broken: c.broken(),
        };
        if first.is_none() && now.broken > 0 {
            let which = bonds
                .ids
                .iter()
                .zip(&bonds.status)
                .filter(|(_, s)| **s != Status::Intact)
                .map(|(id, s)| (*id, *s))
                .collect();
            first = Some((last, which, now));
        }
        peak = peak.max(load);
        if now.broken > last.broken {
            last_break = now.t;
        }
        samples.push(now);
        last = now;
    }
    let (before, which, after) = first.ok_or("no bond broke")?;
    // the slope before the first break: from a fifth of its load on (past
    // the roller's contact settling in), to 0.9 of it
    let pre: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.t < before.t && s.load > 0.2 * before.load && s.load < 0.9 * before.load)
        .map(|s| (s.defl, s.load))
        .collect();
    let k = slope(&pre);
    out.notes.push(format!(
        "{} spheres ({SIDE} × {SIDE} × {}, {HELD} layers held at each end), {} bonds, span l = {:.4e} m between the clamps; R = {R} m, L = {PITCH:e} m; bonds E = {E_BOND:e} Pa, k̄_n/k̄_s = {RATIO}, σ_c = τ_c = {STRENGTH:e} Pa, no damping; roller R = {ROLLER} m at {SPEED:e} m/s; no gravity; dt = {dt:.3e} s, {done} steps",
        n_sph,
        layers(),
        setup.bonds.len(),
        span()
    ));
    out.notes.push(format!(
        "the lattice's first mode {:.1} Hz: the roller moves {:.1} periods to the first break",
        ex.f1,
        d_break / SPEED * ex.f1
    ));
    out.row(Row::new(
        name,
        "before the first break: load / midspan deflection [N/m] vs the lattice's statics",
        ex.k_lattice,
        k,
        Tol::Rel(0.02),
    ));
    out.row(Row::new(
        name,
        "before the first break: load / midspan deflection [N/m] vs 1/(l³/(192EI) + l/(4κGA))",
        ex.k_beam,
        k,
        Tol::Rel(0.02),
    ));
    out.row(Row::new(
        name,
        "before the first break: load / midspan deflection [N/m] vs 192 EI/l³ alone",
        ex.k_bending,
        k,
        Tol::Info,
    ));
    out.row(Row::new(
        name,
        "load at the first break [N] vs the lattice's most stressed bond at σ_c",
        ex.p_lattice,
        before.load,
        Tol::Rel(0.02),
    ));
    out.row(Row::new(
        name,
        "load at the first break [N] vs beam theory: σ = E κ (L + R̄) = σ_c at |M| = P l/8 − P L/4",
        ex.p_beam,
        before.load,
        Tol::Rel(0.10),
    ));
    // where the first bonds broke: their distance (in pitches) from the
    // nearest section of largest moment, midspan or a clamp, the face,
    // the cause
    let x = |i: u32| scene.particles[i as usize].position;
    let clamps = [(HELD - 1) as f64 * PITCH, (layers() - HELD) as f64 * PITCH];
    let x_mid = m as f64 * PITCH;
    let mut far = 0.0f64;
    let mut on_face = 0;
    let mut tension = 0;
    for (ids, st) in &which {
        let (a, b) = (x(ids[0]), x(ids[1]));
        let xc = 0.5 * (a[0] + b[0]);
        let zc = 0.5 * (a[2] + b[2]);
        let d_mid = (xc - x_mid).abs();
        let d_clamp = clamps
            .iter()
            .map(|c| (xc - c).abs())
            .fold(f64::MAX, f64::min);
        far = far.max(d_mid.min(d_clamp) / PITCH);
        // sagging at midspan: bottom in tension; hogging at a clamp: top
        let face = if d_mid < d_clamp { -1.0 } else { 1.0 };
        if (zc * face - height(SIDE - 1)).abs() < 1e-9 {
            on_face += 1;
        }
        if *st == Status::Tension {
            tension += 1;
        }
    }
    let nf = which.len() as f64;
    out.row(Row::new(
        name,
        "first bonds broken: farthest from midspan or a clamp [L]",
        0.5,
        far,
        Tol::Abs(0.5),
    ));
    out.row(Row::new(
        name,
        "first bonds broken: share on the tension face",
        1.0,
        on_face as f64 / nf,
        Tol::Abs(1e-9),
    ));
    out.row(Row::new(
        name,
        "first bonds broken: share broken in tension (σ ≥ σ_c)",
        1.0,
        tension as f64 / nf,
        Tol::Abs(1e-9),
    ));
    let predicted: std::collections::HashSet<[u32; 2]> = ex.first.iter().copied().collect();
    let among = which
        .iter()
        .filter(|(id, _)| predicted.contains(id))
        .count();
    out.row(Row::new(
        name,
        "first bonds broken: share among the lattice's most stressed",
        1.0,
        among as f64 / nf,
        Tol::Abs(1e-9),
    ));
    let places: Vec<String> = which
        .iter()
        .map(|(ids, st)| {
            let (a, b) = (x(ids[0]), x(ids[1]));
            format!(
                "{}–{} at x = {:.2} mm, z = {:.2} mm ({st:?})",
                ids[0],
                ids[1],
                500.0 * (a[0] + b[0]),
                500.0 * (a[2] + b[2])
            )
        })
        .collect();
    out.notes.push(format!(
        "first broken ({} between {:.4e} and {:.4e} s; the load {:.4e} → {:.4e} N): {}; the lattice's most stressed: {} bonds{}",
        which.len(),
        before.t,
        after.t,
        before.load,
        after.load,
        places.join(", "),
        ex.first.len(),
        if ex.shear_first { " (τ reaches τ_c first!)" } else { "" }
    ));
    // where the beam broke: the broken bonds by section (x of their
    // midpoints), and the pieces the intact ones hold together
    let table = be.bonds();
    let mut sections: std::collections::BTreeMap<i64, usize> = Default::default();
    let mut map = Vec::new();
    for (ids, st) in table.ids.iter().zip(&table.status) {
        if *st == Status::Intact {
            continue;
        }
        let (a, b) = (x(ids[0]), x(ids[1]));
        let c = [0.5 * (a[0] + b[0]), 0.5 * (a[2] + b[2])];
        *sections.entry((1e5 * c[0]).round() as i64).or_default() += 1;
        map.push((1e3 * c[0], 1e3 * c[1]));
    }
    let parts = pieces(n_sph, &table);
    let c = table.counts();
    out.notes.push(format!(
        "the last bond broke by {last_break:.4e} s; broken at the end: {} in tension, {} in shear; by section (x of the bonds' midpoints, mm: count): {}; pieces: {:?}",
        c.tension,
        c.shear,
        sections
            .iter()
            .map(|(x, c)| format!("{:.2}: {c}", *x as f64 * 1e-2))
            .collect::<Vec<_>>()
            .join(", "),
        parts
    ));
    out.plots.push(Plot {
        stem: "beam_map".into(),
        title: "Fixed-end beam: where the bonds broke".into(),
        x_label: "x [mm]".into(),
        y_label: "z [mm]".into(),
        caption: "The spheres' centres at t = 0 (the side view: three columns behind each) and the broken bonds' midpoints at the end; the clamps are the two layers at each end, the roller pushes the middle layer's top row".into(),
        series: vec![
            measured(
                "spheres",
                scene
                    .particles
                    .iter()
                    .map(|p| (1e3 * p.position[0], 1e3 * p.position[2]))
                    .collect(),
            ),
            measured("broken bonds", map),
        ],
    });
    let end = samples.last().copied().unwrap_or(last);
    out.notes.push(format!(
        "peak load {peak:.4e} N; at the end ({:.4e} s, midspan down {:.4e} m): {} bonds broken of {}",
        end.t,
        end.defl,
        end.broken,
        setup.bonds.len()
    ));
    // load–deflection, in mm and N
    out.plots.push(Plot {
        stem: "beam_load".into(),
        title: "Fixed-end beam: the roller's load against the midspan deflection".into(),
        x_label: "midspan deflection [mm]".into(),
        y_label: "load [N]".into(),
        caption: "The load the roller feels against the middle layer's deflection, to fracture; lines: the fixed–fixed beam's 1/(l³/(192EI) + l/(4κGA)) to the beam-theory load at the first break".into(),
        series: vec![
            theory_series(
                "beam theory",
                vec![(0.0, 0.0), (1e3 * ex.p_beam / ex.k_beam, ex.p_beam)],
            ),
            measured(
                "roller",
                samples.iter().map(|s| (1e3 * s.defl, s.load)).collect(),
            ),
        ],
    });
    out.plots.push(Plot {
        stem: "beam_broken".into(),
        title: "Fixed-end beam: bonds broken against the midspan deflection".into(),
        x_label: "midspan deflection [mm]".into(),
        y_label: "bonds broken".into(),
        caption: format!(
            "Bonds broken (tension or shear) as the roller comes down, of {}",
            setup.bonds.len()
        ),
        series: vec![measured(
            "broken",
            samples
                .iter()
                .map(|s| (1e3 * s.defl, s.broken as f64))
                .collect(),
        )],
    });
    out.point(name, "first break", "load", before.load);
    out.point(name, "before the first break", "stiffness", k);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lattice bonds what the scene's `[[bonds]]` bonds, and the
    /// references side by side (`-- --nocapture`).
    #[test]
    fn references() {
        let s = scene().unwrap();
        let setup = talus::Setup::new(s.clone()).unwrap();
        assert_eq!(setup.bonds.len(), lattice(&s).links.len());
        let e = expect(&s);
        println!(
            "k lattice {:e}, beam {:e} ({:+.2} %), bending {:e}; P lattice {:e}, beam {:e} ({:+.2} %); first {:?}, shear first {}; f1 {} Hz; dt {:e}",
            e.k_lattice,
            e.k_beam,
            100.0 * (e.k_lattice / e.k_beam - 1.0),
            e.k_bending,
            e.p_lattice,
            e.p_beam,
            100.0 * (e.p_lattice / e.p_beam - 1.0),
            e.first,
            e.shear_first,
            e.f1,
            setup.dt
        );
    }
}
