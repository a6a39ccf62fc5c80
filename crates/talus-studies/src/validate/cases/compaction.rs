//! Uniaxial compaction in a die (`--full`): `scenes/compaction.toml` as an
//! application. 1500 glass beads (r = 0.9–1.1 mm) settle in a 30 × 30 mm
//! steel die; a servo-controlled piston comes down and holds 20 N on the
//! bed; then the die's four walls slide up past the bed at 10 mm/s, as if
//! the bed were pushed down through the die. `docs/applications/
//! compaction.md` has the setup, the figures, the command and the results.
//!
//! Why the walls slide: Janssen's law (see [`super::bed`]) assumes the
//! wall friction fully mobilised. A bed pressed and then held is static;
//! its wall contacts keep what their tangential springs took up while the
//! piston came down, about a third of μ_w F_n in the shipped scene's
//! first run. Sliding the walls was meant to mobilise all of it, so that
//! the law had no free parameter (μ_w the contact law's, K read from the
//! walls).
//!
//! Judged (tolerances fixed before the case's first run):
//! - the servo holds its 20 N, mean over 0.40–0.50 s (held) and over
//!   the sliding windows, within 2 %;
//! - statics: piston + weight = floor + side-wall friction, within 1 %,
//!   in every window;
//! - the settled bed's interior solid fraction in the random packing band
//!   (0.55–0.64), and the pressed bed's between the settled one and 0.64;
//! - walls sliding: the floor's load is Janssen's, F_top e^{−x} +
//!   W (1 − e^{−x})/x with x = 4 μ_w K H / D, within 5 %.
//!
//! The walls first slid 1.5 mm (to 0.65 s) and Janssen's row was judged
//! over 0.55–0.65 s: it failed on every backend (CPU +8.0 %, lavapipe
//! +6.6 %, an H100 +5.8 %), a third of the walls' load on beads rolling
//! with the wall. A run to 1.25 s showed that window inside a transient:
//! the floor's load falls until ~0.8 s (3 mm of slide) and is level
//! after it, where the walls' friction reaches ~0.9 of μ_w N. Since
//! 2026-11-26 the walls slide to 1.25 s and the row is judged over
//! 1.15–1.25 s, its tolerance unchanged; the first window is still
//! reported (`EARLY`, not judged). The case reports the split between
//! stuck and sliding wall contacts, from the snapshots (each wall
//! contact's slip: the bead's velocity and spin at the contact point
//! against the wall's), and Coulomb's bracket for the friction that
//! follows from it.

use super::bed::{self, e_star, hertz_wall_force, Janssen, Loads};
use super::common::{err, measured, theory_series};
use crate::analyze::fraction::{layered_profile, solid_fraction};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use talus::scene::{Material, RadiusDist, Region, Scene, SceneBuilder, Servo, WallMotion};
use talus::state::Particles;
use talus::Setup;

/// Side of the square die, m; the domain's and the piston's start height.
pub const D: f64 = 0.03;
pub const TOP: f64 = 0.035;
pub const PISTON_Z: f64 = 0.032;
/// Beads: count, radii (m, uniform), the lattice's height (m).
pub const BEADS: usize = 1500;
pub const R_MIN: f64 = 0.0009;
pub const R_MAX: f64 = 0.0011;
pub const FILL: f64 = 0.03;
/// Glass beads (E = 50 MPa, softened) and a steel die.
pub const GLASS_DENSITY: f64 = 2500.0;
pub const GLASS_E: f64 = 5.0e7;
pub const GLASS_NU: f64 = 0.25;
pub const GLASS_FRICTION: f64 = 0.4;
pub const STEEL_E: f64 = 2.0e11;
pub const STEEL_NU: f64 = 0.3;
pub const STEEL_FRICTION: f64 = 0.2;
/// Bead–die friction: the mean of the two materials' (docs/scenes.md,
/// `[[interactions]]`), what the contact law uses.
pub const WALL_FRICTION: f64 = 0.5 * (GLASS_FRICTION + STEEL_FRICTION);
/// The servo: force, N, and top speed, m/s.
pub const FORCE: f64 = 20.0;
pub const MAX_SPEED: f64 = 0.1;
/// Gravity, m/s².
pub const G: f64 = 9.81;
/// The schedule, s: the bed has settled and the piston not yet arrived at
/// SETTLED; the held bed is read over HOLD; the die's walls slide up at
/// SLIDE_SPEED (m/s) from SLIDE, and are read over EARLY and SLIDING; the
/// run ends at END. The floor's load falls for ~0.3 s (3 mm, 1.5
/// diameters of slide) and is level from ~0.8 s on (the CPU's run of
/// 2026-11-26, `docs/applications/compaction.md`).
pub const SETTLED: f64 = 0.15;
pub const HOLD: (f64, f64) = (0.40, 0.50);
pub const SLIDE: f64 = 0.5;
pub const SLIDE_SPEED: f64 = 0.01;
pub const SLIDING: (f64, f64) = (1.15, 1.25);
pub const END: f64 = 1.25;
/// The window the case first judged (reported since): the walls have
/// slid 0.5–1.5 mm, and the floor's load is still falling.
pub const EARLY: (f64, f64) = (0.55, 0.65);
/// Wall readings every SAMPLE, s; a snapshot for the wall contacts every
/// CONTACTS_EVERY readings inside the windows.
const SAMPLE: f64 = 0.002;
const CONTACTS_EVERY: usize = 5;
/// The interior: 2 mean diameters in from the walls, the floor and the
/// top, m.
const MARGIN: f64 = 0.004;
const RLP: f64 = 0.55;
const RCP: f64 = 0.64;

/// Walls in scene order: floor, x0, x1, y0, y1, piston.
const FLOOR: usize = 0;
const SIDES: [usize; 4] = [1, 2, 3, 4];
const PISTON: usize = 5;

pub fn glass() -> Material {
    Material {
        name: "glass".into(),
        density: GLASS_DENSITY,
        youngs_modulus: GLASS_E,
        poisson_ratio: GLASS_NU,
        restitution: 0.5,
        friction: GLASS_FRICTION,
        rolling_friction: 0.01,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

pub fn steel() -> Material {
    Material {
        name: "steel".into(),
        density: 7800.0,
        youngs_modulus: STEEL_E,
        poisson_ratio: STEEL_NU,
        restitution: 0.5,
        friction: STEEL_FRICTION,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// `scenes/compaction.toml`.
pub fn scene() -> Result<Scene, String> {
    let slide = WallMotion {
        velocity: [0.0, 0.0, SLIDE_SPEED],
        start: SLIDE,
        ..WallMotion::default()
    };
    SceneBuilder::new("compaction")
        .domain([0.0; 3], [D, D, TOP])
        .dt_auto(0.2)
        .duration(END)
        .output_interval(0.01)
        .gravity([0.0, 0.0, -G])
        .hertz_mindlin()
        .material(glass())
        .material(steel())
        .generate(
            "lattice",
            ([0.0; 3], [D, D, FILL]),
            RadiusDist::Uniform {
                min: R_MIN,
                max: R_MAX,
            },
            "glass",
            Some(BEADS),
            [0.0; 3],
        )
        .wall([0.0; 3], [0.0, 0.0, 1.0], "steel")
        .wall_name("floor")
        .wall([0.0; 3], [1.0, 0.0, 0.0], "steel")
        .wall_name("x0")
        .wall_motion(slide)
        .wall([D, 0.0, 0.0], [-1.0, 0.0, 0.0], "steel")
        .wall_name("x1")
        .wall_motion(slide)
        .wall([0.0; 3], [0.0, 1.0, 0.0], "steel")
        .wall_name("y0")
        .wall_motion(slide)
        .wall([0.0, D, 0.0], [0.0, -1.0, 0.0], "steel")
        .wall_name("y1")
        .wall_motion(slide)
        .wall([0.0, 0.0, PISTON_Z], [0.0, 0.0, -1.0], "steel")
        .wall_name("piston")
        .wall_servo(Servo {
            force: FORCE,
            max_speed: MAX_SPEED,
            direction: [0.0, 0.0, -1.0],
        })
        .build()
        .map_err(err)
}

/// A bead's wall contact slides when its contact point moves past the
/// wall faster than this fraction of SLIDE_SPEED (stuck contacts creep
/// at < 2 % of it while their tangential springs load; the first sliding
/// ones move at 4 %).
const SLIDING_SLIP: f64 = 0.1;

/// The beads' contacts with the four side walls at one instant, from a
/// snapshot: Hertz's elastic force of every bead pressed into a side wall
/// (the planes x = 0, x = D, y = 0, y = D; the damping part is left out,
/// the beads do not move along the normals), split by whether the
/// contact slides (see [`SLIDING_SLIP`]). A sliding contact carries
/// Coulomb's μ_w F_n against its slip: `sliding_z` is Σ μ_w F_n (−ŝ_z)
/// over them, the friction (z) they give the walls; a stuck one (a bead
/// that rolls with the wall, or a bed at rest) anything in ±μ_w F_n.
#[derive(Debug, Clone, Copy, Default)]
struct Contacts {
    /// Σ F_n, all, N.
    hertz: f64,
    /// Σ F_n of the stuck contacts, N.
    stuck: f64,
    /// Σ μ_w F_n (−ŝ_z) of the sliding contacts, N.
    sliding_z: f64,
    /// What the walls read at that step: their friction, N.
    friction: f64,
}

impl Contacts {
    /// `wall_vz`: the side walls' speed along z, m/s.
    fn of(p: &Particles<f64>, wall_vz: f64, friction: f64) -> Contacts {
        let es = e_star(GLASS_E, GLASS_NU, STEEL_E, STEEL_NU);
        let mut c = Contacts {
            friction,
            ..Contacts::default()
        };
        for ((q, v), w) in p.pos_rad.iter().zip(&p.vel_invm).zip(&p.omega_invi) {
            let r = q[3];
            // each wall: the distance from it and its normal (into the bed)
            for (dist, n) in [
                (q[0], [1.0, 0.0, 0.0]),
                (D - q[0], [-1.0, 0.0, 0.0]),
                (q[1], [0.0, 1.0, 0.0]),
                (D - q[1], [0.0, -1.0, 0.0]),
            ] {
                let f = hertz_wall_force(es, r, r - dist);
                if f == 0.0 {
                    continue;
                }
                // the contact point's velocity relative to the wall:
                // v + ω × (−r n) − (0, 0, wall_vz), its tangential part
                let arm = [-r * n[0], -r * n[1], -r * n[2]];
                let spin = [
                    w[1] * arm[2] - w[2] * arm[1],
                    w[2] * arm[0] - w[0] * arm[2],
                    w[0] * arm[1] - w[1] * arm[0],
                ];
                let mut slip = [v[0] + spin[0], v[1] + spin[1], v[2] + spin[2] - wall_vz];
                let along = slip[0] * n[0] + slip[1] * n[1] + slip[2] * n[2];
                for k in 0..3 {
                    slip[k] -= along * n[k];
                }
                let speed = (slip[0] * slip[0] + slip[1] * slip[1] + slip[2] * slip[2]).sqrt();
                c.hertz += f;
                if speed > SLIDING_SLIP * SLIDE_SPEED {
                    c.sliding_z += WALL_FRICTION * f * (-slip[2] / speed);
                } else {
                    c.stuck += f;
                }
            }
        }
        c
    }

    /// The mean of several.
    fn mean(all: &[Contacts]) -> Contacts {
        let n = all.len().max(1) as f64;
        let sum = |f: fn(&Contacts) -> f64| all.iter().map(f).sum::<f64>() / n;
        Contacts {
            hertz: sum(|c| c.hertz),
            stuck: sum(|c| c.stuck),
            sliding_z: sum(|c| c.sliding_z),
            friction: sum(|c| c.friction),
        }
    }
}

/// What one window read: the walls at every reading, the contacts at
/// every CONTACTS_EVERY-th.
#[derive(Debug, Clone, Default)]
struct Window {
    readings: Vec<Loads>,
    snaps: Vec<Contacts>,
}

impl Window {
    fn loads(&self) -> Loads {
        Loads::mean(&self.readings)
    }
    /// The bed's height: the piston's, m.
    fn height(&self) -> f64 {
        PISTON_Z + self.loads().z[PISTON]
    }
}

pub fn case_compaction(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let start = std::time::Instant::now();
    let run = Setup::new(scene()?).map_err(err)?;
    let dt = run.dt;
    let per = |t: f64| (t / dt).round() as u64;
    let mut be = mk.make_setup(&run)?;
    let weight = bed::weight(&be.snapshot().pos_rad, GLASS_DENSITY, G);
    let mut series: [Vec<(f64, f64)>; 4] = Default::default();
    let (mut hold, mut early, mut sliding) =
        (Window::default(), Window::default(), Window::default());
    let mut settled = None;
    let mut pressed = None;
    let (mut done, n) = (0u64, per(END));
    let mut sample = 0usize;
    while done < n {
        let k = per(SAMPLE * (sample + 1) as f64).min(n) - done;
        be.advance(k).map_err(err)?;
        done += k;
        sample += 1;
        let t = done as f64 * dt;
        let l = Loads::read(be.as_mut(), &run.scene);
        series[0].push((t, l.fz[PISTON]));
        series[1].push((t, l.normal[FLOOR]));
        series[2].push((t, -l.fz_of(&SIDES)));
        series[3].push((t, WALL_FRICTION * l.normal_of(&SIDES)));
        let near = |a: f64| (t - a).abs() < 0.5 * SAMPLE;
        if settled.is_none() && near(SETTLED) {
            settled = Some((be.snapshot(), l.fz[PISTON]));
        }
        if near(HOLD.1) {
            pressed = Some(be.snapshot());
        }
        for (w, (a, b)) in [
            (&mut hold, HOLD),
            (&mut early, EARLY),
            (&mut sliding, SLIDING),
        ] {
            if t > a - 0.5 * SAMPLE && t < b + 0.5 * SAMPLE {
                w.readings.push(l.clone());
                if w.readings.len() % CONTACTS_EVERY == 0 {
                    let vz = if t > SLIDE { SLIDE_SPEED } else { 0.0 };
                    let friction = -l.fz_of(&SIDES);
                    w.snaps.push(Contacts::of(&be.snapshot(), vz, friction));
                }
            }
        }
    }
    let (Some((before, piston_then)), Some(after)) = (settled, pressed) else {
        return Err("compaction: the run ended before its readings".into());
    };
    let h_before = bed::bed_height(&before.pos_rad);
    let phi_before = solid_fraction(&before.pos_rad, &bed::interior(D, h_before, MARGIN));
    let h_after = hold.height();
    let phi_after = solid_fraction(&after.pos_rad, &bed::interior(D, h_after, MARGIN));
    let mut out = CaseResult::default();
    let case = "compaction";
    out.notes.push(format!(
        "{BEADS} beads (r {:.1}–{:.1} mm), weight {weight:.4} N; dt = {dt:.3e} s (auto), {n} steps, {:.0} s; bead–die friction μ_w = {WALL_FRICTION:.2}; at {SETTLED} s the piston carries {piston_then:.2e} N, the bed is {:.2} mm deep (twice the mean centre height); held, the piston stands {:.3} mm above the floor; the interior is {:.0} mm in from the walls, the floor and the top; largest overlap / r {:.3}.",
        1e3 * R_MIN,
        1e3 * R_MAX,
        start.elapsed().as_secs_f64(),
        1e3 * h_before,
        1e3 * h_after,
        1e3 * MARGIN,
        be.max_overlap_ratio(),
    ));
    out.row(Row::new(
        case,
        "solid fraction settled, interior (random loose 0.55 – close 0.64)",
        0.5 * (RLP + RCP),
        phi_before,
        Tol::Abs(0.5 * (RCP - RLP)),
    ));
    out.row(Row::new(
        case,
        "solid fraction pressed, interior (between settled and 0.64)",
        0.5 * (phi_before + RCP),
        phi_after,
        Tol::Abs(0.5 * (RCP - phi_before).max(0.0)),
    ));
    // (name, readings, window, walls sliding, Janssen's row judged)
    for (name, w, (a, b), slides, judged) in [
        ("held", &hold, HOLD, false, false),
        ("walls starting to slide", &early, EARLY, true, false),
        ("walls sliding", &sliding, SLIDING, true, true),
    ] {
        let l = w.loads();
        let h = w.height();
        let top = l.fz[PISTON];
        let floor = l.normal[FLOOR];
        let friction = -l.fz_of(&SIDES);
        let normal = l.normal_of(&SIDES);
        let label = format!("{case} {name}");
        out.row(Row::new(
            &label,
            &format!("piston force, N, mean {a:.2}–{b:.2} s"),
            FORCE,
            top,
            Tol::Rel(0.02),
        ));
        out.row(Row::new(
            &label,
            "floor + side-wall friction − weight, N (= piston)",
            top,
            floor + friction - weight,
            Tol::Rel(0.01),
        ));
        let jan = Janssen::fit(top, weight, normal, floor, WALL_FRICTION, D, h);
        if let Some(j) = jan {
            out.row(Row::new(
                &label,
                "floor load, N (Janssen, μ_w = 0.3, K from the walls)",
                j.floor,
                floor,
                if judged { Tol::Rel(0.05) } else { Tol::Info },
            ));
            out.row(Row::new(
                &label,
                "K = σ_h / σ_v from the side walls",
                f64::NAN,
                j.k,
                Tol::Info,
            ));
        }
        out.row(Row::new(
            &label,
            "side walls' friction / (μ_w × their normal load)",
            1.0,
            friction / (WALL_FRICTION * normal),
            Tol::Info,
        ));
        let c = Contacts::mean(&w.snaps);
        out.row(Row::new(
            &label,
            "side walls' load from Hertz at the beads' overlaps / read",
            1.0,
            c.hertz / normal,
            Tol::Info,
        ));
        if slides {
            // held, the beads' spins jitter at ~1 mm/s (r ω) and the
            // split means nothing; sliding, stuck contacts slip < 0.2 mm/s
            out.row(Row::new(
                &label,
                "share of the side walls' load on stuck contacts",
                f64::NAN,
                c.stuck / c.hertz,
                Tol::Info,
            ));
            out.row(Row::new(
                &label,
                "side walls' friction, N (Coulomb: μ_w F_n sliding, ± μ_w F_n stuck)",
                c.sliding_z,
                c.friction,
                Tol::Info,
            ));
            out.row(Row::new(
                &label,
                "the same: (read − sliding part) / (μ_w × stuck load)",
                f64::NAN,
                (c.friction - c.sliding_z) / (WALL_FRICTION * c.stuck),
                Tol::Info,
            ));
        }
        out.notes.push(format!(
            "{name} ({a:.2}–{b:.2} s, {} readings, {} snapshots): piston {top:.3} N, floor {floor:.3} N, side walls' normal load {normal:.3} N and friction {friction:.3} N, bed {:.3} mm deep; K {:.3}, x = 4 μ_w K H / D = {:.3}.",
            w.readings.len(),
            w.snaps.len(),
            1e3 * h,
            jan.map_or(f64::NAN, |j| j.k),
            jan.map_or(f64::NAN, |j| j.x),
        ));
        for (q, v) in [
            ("piston", top),
            ("floor", floor),
            ("side_normal", normal),
            ("side_friction", friction),
            ("height_mm", 1e3 * h),
            ("k", jan.map_or(f64::NAN, |j| j.k)),
        ] {
            out.point(case, name, q, v);
        }
    }
    out.point(case, "settled", "phi", phi_before);
    out.point(case, "pressed", "phi", phi_after);
    let [piston, floor, sides, ceiling] = series;
    out.plots.push(Plot {
        stem: "compaction_forces".into(),
        title: "Die compaction: the loads on the walls".into(),
        x_label: "time (s)".into(),
        y_label: "force (N)".into(),
        caption: format!("Every {:.0} ms: the piston's load (servo target {FORCE} N), the floor's, the side walls' friction (z), and the most Coulomb lets them carry, μ_w = {WALL_FRICTION:.1} × their normal load; the die's walls slide up from {SLIDE} s.", 1e3 * SAMPLE),
        series: vec![
            theory_series("servo target", vec![(0.0, FORCE), (END, FORCE)]),
            measured("piston", piston),
            measured("floor", floor),
            measured("side walls' friction", sides),
            measured("μ_w × side walls' normal load", ceiling),
        ],
    });
    let region = |h: f64| Region::Box {
        min: [0.0; 3],
        max: [D, D, h + 0.002],
    };
    let bins = |h: f64| ((h + 0.002) / 0.0002).round() as usize;
    let layered = |p: &Particles<f64>, h: f64| -> Vec<(f64, f64)> {
        layered_profile(&p.pos_rad, &region(h), bins(h))
            .iter()
            .map(|b| (1e3 * 0.5 * (b.lo + b.hi), b.fraction))
            .collect()
    };
    out.plots.push(Plot {
        stem: "compaction_profile".into(),
        title: "Die compaction: solid fraction by height".into(),
        x_label: "height above the floor (mm)".into(),
        y_label: "solid fraction".into(),
        caption: format!("Solid fraction of 0.2 mm slices over the die's section, settled ({SETTLED} s) and pressed ({} s), exact sphere volumes.", HOLD.1),
        series: vec![
            measured("settled", layered(&before, h_before)),
            measured("pressed", layered(&after, h_after)),
        ],
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scenes/compaction.toml` is this case's scene.
    #[test]
    fn shipped_scene_is_the_case() {
        let shipped = super::super::common::shipped("compaction.toml");
        let ours = scene().unwrap();
        assert_eq!(shipped.particles.len(), BEADS);
        super::super::common::assert_same_scene(&shipped, &ours);
    }

    /// μ_w is the friction the contact law uses for a bead on the die.
    #[test]
    fn wall_friction_is_the_laws() {
        let s = scene().unwrap();
        let t = talus::pair::PairTable::new(&s);
        let (g, st) = (
            s.material_index("glass").unwrap() as u32,
            s.material_index("steel").unwrap() as u32,
        );
        assert!((t.get(g, st).friction - WALL_FRICTION).abs() < 1e-15);
        let es = e_star(GLASS_E, GLASS_NU, STEEL_E, STEEL_NU);
        assert!((t.get(g, st).e_star - es).abs() < 1e-9 * es);
    }

    /// The schedule: the piston has not reached the settled bed (~13 mm
    /// deep) at SETTLED, the windows lie in their phases, and the judged
    /// window starts after the walls have slid 3 diameters (twice what
    /// the floor's load took to level in the first long run).
    #[test]
    fn schedule_holds_together() {
        const { assert!(PISTON_Z - MAX_SPEED * SETTLED > 0.015) };
        const { assert!(SETTLED < HOLD.0 && HOLD.1 <= SLIDE && SLIDE < EARLY.0) };
        const { assert!(EARLY.1 < SLIDING.0 && SLIDING.1 <= END) };
        const { assert!((SLIDING.1 - SLIDING.0 - (EARLY.1 - EARLY.0)).abs() < 1e-12) };
        const TRAVEL: f64 = SLIDE_SPEED * (SLIDING.0 - SLIDE);
        const { assert!(TRAVEL >= 3.0 * (R_MIN + R_MAX)) };
    }
}
