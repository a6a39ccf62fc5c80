//! The hourglass of Ferrez 2001 (EPFL thesis 2432, §6.3; long, `--full`
//! only): steel spheres filled into the upper bulb on a plug, released
//! through the slot, and, once they have run down, the hourglass turned
//! over by rotating gravity (§6.3.4) and run again. Ferrez's table 6.1:
//! run A (2790 spheres of 4 mm) flows regularly throughout; run B (7236 of
//! 3 mm) blocks — "too many grains, or more precisely the arrangement of
//! the grains is not optimal in the lower part"; run C (5898 of 3 mm)
//! flows and stops earlier. `docs/applications/hourglass.md` has the
//! setup, the figure and the command.
//!
//! The geometry is a reconstruction, fixed before the first run: the
//! thesis gives only "10 cm tall, a base of 10 cm" (its figure 6.8, with
//! the slot, is lost in our copy). Two cones of base diameter 100 mm and
//! height 50 mm meet at a round slot of 20 mm (5 diameters of A's spheres,
//! 6.7 of B's: wide enough that neither arches often). A bulb then holds
//! 162 cm³, between the bulk volume of A's spheres (151–156 cm³ at a solid
//! fraction of 0.60–0.62) and B's (165–171 cm³): A should fit the lower
//! bulb and B overfill it, blocking the slot from below, as Ferrez saw.
//! The slot's size is ours; with it, what blocks the flow is the lower
//! bulb's capacity, not an arch. Contact law: Ferrez's linear
//! spring–dashpot (t_c = 1 ms, e = 0.3, μ = 0.1, k_t = k_n), as in the
//! packing case.

use super::common::{err, measured};
use super::ferrez::{steel, CONTACT_TIME, STEEL_DENSITY};
use crate::analyze::flow::fit_line;
use crate::analyze::fraction::solid_fraction;
use crate::validate::maker::Maker;
use crate::validate::options::{Kind, Options, Spec};
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use std::f64::consts::PI;
use talus::scene::{
    GravityRotation, RadiusDist, Region, Scene, SceneBuilder, Shape, Side, WallMotion,
};

/// Base radius of each bulb, m.
pub const BULB_RADIUS: f64 = 0.05;
/// Height of each bulb, m (the slot at z = BULB_HEIGHT).
pub const BULB_HEIGHT: f64 = 0.05;
/// Radius of the slot, m.
pub const SLOT_RADIUS: f64 = 0.01;
/// Height of the filling chimney above the upper bulb, m.
pub const CHIMNEY: f64 = 0.1;
/// Gravity, m/s².
pub const G: f64 = 9.81;
/// Time step: Ferrez's contact time / 25, s.
pub const DT: f64 = CONTACT_TIME / 25.0;
/// The schedule, s (literals, so that `scenes/hourglass.toml` can say the
/// same numbers): the plug drops at OPEN (the fill has settled) and is
/// below the floor at PLUG_DOWN; the first pass lasts until LID_DOWN, when
/// the lid leaves the chimney's top and reaches the upper bulb's base at
/// LID_CLOSED; gravity turns over (half a turn about x, TURN_TIME s: §6.3.4
/// turned the tall hourglass over in half a second) from TURN; the second
/// pass lasts until END.
pub const OPEN: f64 = 0.6;
pub const PLUG_DOWN: f64 = 0.62;
pub const LID_DOWN: f64 = 5.1;
pub const LID_CLOSED: f64 = 5.2;
pub const TURN: f64 = 5.3;
pub const TURN_TIME: f64 = 0.5;
pub const END: f64 = 9.8;
/// The plug's speed once it drops, m/s (faster than grains can follow:
/// it falls 80 mm in 20 ms and ends below the floor).
const PLUG_SPEED: f64 = 4.0;
/// The lid's speed, m/s: the chimney's 100 mm in 0.1 s.
const LID_SPEED: f64 = 1.0;
/// Bottom of the region the spheres start in, m.
const PLACE_FROM: f64 = 0.102;
/// Sampling interval of the counts, s.
const SAMPLE: f64 = 0.05;
/// The flow has stopped when, over the pass's last STILL seconds, fewer
/// grains crossed than 1 % of its steady rate would carry (a blocked slot
/// still lets a grain through now and then as the pile under it settles:
/// run B's first pass, 5 grains in its last 2 s against 3700 a second
/// before).
const STILL: f64 = 0.5;

/// Ferrez's table 6.1: (name, sphere diameter m, count).
pub const RUNS: [(&str, f64, usize); 3] =
    [("A", 0.004, 2790), ("B", 0.003, 7236), ("C", 0.003, 5898)];

/// Volume of one bulb (a frustum from the base radius to the slot), m³.
pub fn bulb_volume() -> f64 {
    let (r0, r1) = (BULB_RADIUS, SLOT_RADIUS);
    PI * BULB_HEIGHT / 3.0 * (r0 * r0 + r0 * r1 + r1 * r1)
}

/// The region the spheres start in: a box inside the chimney (half-width
/// one radius and 1 mm clear of it, floored to 0.5 mm) from PLACE_FROM,
/// tall enough (to the next mm) for a solid fraction of 0.25, where a
/// random sequential placement of `count` spheres of `diameter` fits.
fn placement_box(diameter: f64, count: usize) -> ([f64; 3], [f64; 3]) {
    let half = (((BULB_RADIUS - 0.5 * diameter) / 2f64.sqrt() - 0.001) * 2000.0).floor() / 2000.0;
    let solid = count as f64 * PI * diameter.powi(3) / 6.0;
    let h_mm = (1e3 * solid / (0.25 * 4.0 * half * half)).ceil();
    let top = (1e3 * PLACE_FROM + h_mm) / 1e3;
    ([-half, -half, PLACE_FROM], [half, half, top])
}

/// The scene of one run: the hourglass (floor, two cones, the chimney),
/// the plug under the upper bulb, the lid on the chimney, the spheres
/// placed at random in the chimney, the turn over.
pub fn scene(name: &str, diameter: f64, count: usize) -> Result<Scene, String> {
    let region = placement_box(diameter, count);
    let top = 2.0 * BULB_HEIGHT + CHIMNEY;
    if region.1[2] + 0.5 * diameter > top {
        return Err(format!(
            "hourglass {name}: the placement needs {:.0} mm of chimney, there are {:.0}",
            1e3 * (region.1[2] - 2.0 * BULB_HEIGHT),
            1e3 * CHIMNEY
        ));
    }
    let cone = |z0: f64, radius: [f64; 2]| Shape::Cone {
        center: [0.0, 0.0, z0],
        axis: [0.0, 0.0, 1.0],
        radius,
        length: BULB_HEIGHT,
        side: Side::Inside,
    };
    let m = BULB_RADIUS + 0.002;
    SceneBuilder::new(&format!("hourglass {name}"))
        .domain([-m, -m, -0.002], [m, m, top + 0.002])
        .dt(DT)
        .duration(END)
        .output_interval(0.05)
        .linear_contact_time(CONTACT_TIME)
        .tangential_stiffness_ratio(1.0)
        .material(steel())
        .wall([0.0; 3], [0.0, 0.0, 1.0], "steel")
        .wall_name("floor")
        .shape_wall(cone(0.0, [BULB_RADIUS, SLOT_RADIUS]), "steel")
        .wall_name("lower bulb")
        .shape_wall(cone(BULB_HEIGHT, [SLOT_RADIUS, BULB_RADIUS]), "steel")
        .wall_name("upper bulb")
        .shape_wall(
            Shape::Cylinder {
                center: [0.0, 0.0, 2.0 * BULB_HEIGHT],
                axis: [0.0, 0.0, 1.0],
                radius: BULB_RADIUS,
                length: Some(CHIMNEY),
                side: Side::Inside,
            },
            "steel",
        )
        .wall_name("chimney")
        .wall([0.0, 0.0, BULB_HEIGHT], [0.0, 0.0, 1.0], "steel")
        .wall_name("plug")
        .wall_motion(WallMotion {
            velocity: [0.0, 0.0, -PLUG_SPEED],
            start: OPEN,
            stop: PLUG_DOWN,
            ..WallMotion::default()
        })
        .wall([0.0, 0.0, top], [0.0, 0.0, -1.0], "steel")
        .wall_name("lid")
        .wall_motion(WallMotion {
            velocity: [0.0, 0.0, -LID_SPEED],
            start: LID_DOWN,
            stop: LID_CLOSED,
            ..WallMotion::default()
        })
        .gravity_turns(GravityRotation {
            axis: [1.0, 0.0, 0.0],
            angular_velocity: PI / TURN_TIME,
            start: TURN,
            angle: Some(PI),
            every: None,
        })
        .generate(
            "random",
            region,
            RadiusDist::Constant(0.5 * diameter),
            "steel",
            Some(count),
            [0.0; 3],
        )
        .build()
        .map_err(err)
}

/// One pass through the slot.
#[derive(Debug, Clone, Default)]
pub struct Pass {
    /// (seconds since the slot opened or the turn began, grains through).
    pub through: Vec<(f64, usize)>,
    /// Every grain went through.
    pub emptied: bool,
    /// The flow stopped with grains left above the slot.
    pub blocked: bool,
    /// When every grain was through (emptied), or 99 % of those that got
    /// through were (blocked), s after the pass began.
    pub last: f64,
    /// Grains per second: the slope of the count between 20 % and 80 % of
    /// its final value, and the R² of that line.
    pub rate: f64,
    pub r2: f64,
}

impl Pass {
    /// 1 blocked, 0 emptied, 0.5 still flowing at the pass's end.
    pub fn outcome(&self) -> f64 {
        if self.blocked {
            1.0
        } else if self.emptied {
            0.0
        } else {
            0.5
        }
    }

    /// From the counts sampled over the pass (`total` grains).
    fn of(through: Vec<(f64, usize)>, total: usize) -> Pass {
        let fin = through.last().map_or(0, |p| p.1);
        let emptied = fin == total;
        let window: Vec<(f64, f64)> = through
            .iter()
            .filter(|p| p.1 as f64 >= 0.2 * fin as f64 && p.1 as f64 <= 0.8 * fin as f64)
            .map(|&(t, n)| (t, n as f64))
            .collect();
        let (rate, r2) = match fit_line(&window) {
            Some((a, b)) => {
                let mean = window.iter().map(|p| p.1).sum::<f64>() / window.len() as f64;
                let ss: f64 = window.iter().map(|p| (p.1 - mean).powi(2)).sum();
                let res: f64 = window.iter().map(|p| (p.1 - a - b * p.0).powi(2)).sum();
                (b, if ss > 0.0 { 1.0 - res / ss } else { 0.0 })
            }
            None => (0.0, 0.0),
        };
        let end = through.last().map_or(0.0, |p| p.0);
        let at_end = |t: f64| through.iter().find(|p| p.0 >= t).map_or(fin, |p| p.1);
        let late = fin - at_end(end - STILL);
        let blocked = !emptied && (late as f64) < 0.01 * rate * STILL;
        let mark = if emptied {
            total
        } else {
            (0.99 * fin as f64).ceil() as usize
        };
        let last = through.iter().find(|p| p.1 >= mark).map_or(end, |p| p.0);
        Pass {
            through,
            emptied,
            blocked,
            last,
            rate,
            r2,
        }
    }
}

/// What one run measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Solid fraction of the settled fill in the upper bulb's interior
    /// (a cylinder of 15 mm radius, 62–85 mm above the floor), and the
    /// highest sphere top, m, before the slot opens.
    pub fill_fraction: f64,
    pub fill_top: f64,
    pub first: Pass,
    /// Σ of the sphere volumes below the slot's plane / the bulb's volume,
    /// at the end of the first pass: how full the lower bulb is.
    pub lower_fill: f64,
    pub second: Pass,
    pub max_overlap: f64,
    pub seconds: f64,
    pub steps: u64,
}

/// Grains below (`below`) or above the slot's plane.
fn count_side(pos_rad: &[[f64; 4]], below: bool) -> usize {
    pos_rad
        .iter()
        .filter(|p| (p[2] < BULB_HEIGHT) == below)
        .count()
}

/// Runs one hourglass on one backend.
pub fn run(
    mk: &mut dyn Maker,
    name: &str,
    diameter: f64,
    count: usize,
    debug: bool,
) -> Result<Measured, String> {
    let start = std::time::Instant::now();
    let scene = scene(name, diameter, count)?;
    let mut be = mk.make(&scene)?;
    let per = |t: f64| (t / DT).round() as u64;
    let mut m = Measured::default();
    be.advance(per(OPEN)).map_err(err)?;
    let s = be.snapshot();
    m.fill_fraction = solid_fraction(
        &s.pos_rad,
        &Region::Cylinder {
            center: [0.0, 0.0, 0.062],
            axis: [0.0, 0.0, 1.0],
            radius: 0.015,
            length: 0.023,
        },
    );
    m.fill_top = s
        .pos_rad
        .iter()
        .map(|p| p[2] + p[3])
        .fold(f64::NEG_INFINITY, f64::max);
    let sample = |be: &mut Box<dyn talus::backend::Backend>,
                  from: f64,
                  to: f64,
                  below: bool|
     -> Result<Vec<(f64, usize)>, String> {
        let mut out = vec![(0.0, count_side(&be.snapshot().pos_rad, below))];
        let (mut done, n) = (per(from), per(to));
        while done < n {
            let k = per(SAMPLE).min(n - done);
            be.advance(k).map_err(err)?;
            done += k;
            let c = count_side(&be.snapshot().pos_rad, below);
            out.push((done as f64 * DT - from, c));
            if debug {
                eprintln!(
                    "hourglass {name}: t = {:.2} s, {c} through, {:.0} s",
                    done as f64 * DT,
                    start.elapsed().as_secs_f64()
                );
            }
        }
        Ok(out)
    };
    let first = sample(&mut be, OPEN, LID_DOWN, true)?;
    m.first = Pass::of(first, count);
    m.lower_fill = be
        .snapshot()
        .pos_rad
        .iter()
        .filter(|p| p[2] < BULB_HEIGHT)
        .map(|p| 4.0 / 3.0 * PI * p[3].powi(3))
        .sum::<f64>()
        / bulb_volume();
    be.advance(per(TURN) - per(LID_DOWN)).map_err(err)?;
    // after the turn, "through" is above the slot's plane
    let second = sample(&mut be, TURN, END, false)?;
    m.second = Pass::of(second, count);
    m.max_overlap = be.max_overlap_ratio();
    m.steps = be.steps_done();
    m.seconds = start.elapsed().as_secs_f64();
    Ok(m)
}

/// Beverloo's rate for the slot in grains per second, with the bulk
/// density of the fill: W = C ρ_b √g (D − k d)^{5/2}, C = 0.58, k = 1.5.
pub fn beverloo_grains_per_second(diameter: f64, fill_fraction: f64) -> f64 {
    let rho_b = fill_fraction * STEEL_DENSITY;
    let w = 0.58 * rho_b * G.sqrt() * (2.0 * SLOT_RADIUS - 1.5 * diameter).powf(2.5);
    w / (STEEL_DENSITY * PI * diameter.powi(3) / 6.0)
}

/// The case's options: diagnostics, none set in the judged run.
pub const OPTIONS: &[Spec] = &[
    Spec {
        key: "hourglass.only",
        kind: Kind::NamesOf(&["A", "B", "C"]),
        expected: "the runs' names (A, B, C)",
        default: "(all three)",
        help: "only these runs",
    },
    Spec {
        key: "hourglass.debug",
        kind: Kind::Bool,
        expected: "true or false",
        default: "false",
        help: "progress on stderr",
    },
];

pub fn case_hourglass(mk: &mut dyn Maker, opts: &Options) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let mut series = Vec::new();
    // hourglass.only=A,C runs only those
    let only = opts.names("hourglass.only");
    let debug = opts.flag("hourglass.debug");
    for (name, d, n) in RUNS {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let m = run(mk, name, d, n, debug)?;
        let solid = n as f64 * PI * d.powi(3) / 6.0;
        let bulk = solid / m.fill_fraction;
        let label = format!("hourglass {name}");
        let describe = |p: &Pass| {
            let fin = p.through.last().map_or(0, |q| q.1);
            if p.emptied {
                format!(
                    "all {n} through after {:.2} s, {:.0} grains/s (R² {:.4})",
                    p.last, p.rate, p.r2
                )
            } else if p.blocked {
                format!(
                    "blocked after {:.2} s with {} of {n} through ({} left above), {:.0} grains/s before (R² {:.4})",
                    p.last,
                    fin,
                    n - fin,
                    p.rate,
                    p.r2
                )
            } else {
                format!("still flowing at the end of the pass: {fin} of {n} through")
            }
        };
        out.notes.push(format!(
            "{name}: {n} spheres of {:.0} mm ({:.1} cm³ of steel; at the fill's interior solid fraction {:.4}, {:.1} cm³ of bulk against the bulb's {:.1} cm³), dt = {DT:.1e} s, {} steps, {:.0} s; fill top {:.1} mm above the floor. First pass: {}; the lower bulb then holds a solid fraction of {:.4}. Turned over: {}. Beverloo (C = 0.58, k = 1.5, the slot as a round orifice) gives {:.0} grains/s. Largest overlap / r {:.3}.",
            1e3 * d,
            1e6 * solid,
            m.fill_fraction,
            1e6 * bulk,
            1e6 * bulb_volume(),
            m.steps,
            m.seconds,
            1e3 * m.fill_top,
            describe(&m.first),
            m.lower_fill,
            describe(&m.second),
            beverloo_grains_per_second(d, m.fill_fraction),
            m.max_overlap,
        ));
        // Ferrez: A and C flow through, B blocks. Judged on the first
        // pass; the second (after the turn) is reported.
        let blocks = name == "B";
        out.row(Row::new(
            &label,
            "blocked (1) or emptied (0), first pass",
            if blocks { 1.0 } else { 0.0 },
            m.first.outcome(),
            // outcomes are 0, 0.5 or 1
            Tol::Abs(0.25),
        ));
        out.row(Row::new(
            &label,
            "blocked (1) or emptied (0), after the turn",
            if blocks { 1.0 } else { 0.0 },
            m.second.outcome(),
            Tol::Info,
        ));
        out.row(Row::new(
            &label,
            "fraction through the slot, first pass",
            1.0,
            m.first.through.last().map_or(0, |p| p.1) as f64 / n as f64,
            Tol::Info,
        ));
        out.row(Row::new(
            &label,
            "grains/s, first pass (Beverloo for the slot)",
            beverloo_grains_per_second(d, m.fill_fraction),
            m.first.rate,
            Tol::Info,
        ));
        // "the flow is regular throughout": the count rises on a line
        out.row(Row::new(
            &label,
            "R² of the count's line, 20–80 %, first pass",
            1.0,
            m.first.r2,
            if blocks { Tol::Info } else { Tol::Abs(0.01) },
        ));
        out.row(Row::new(
            &label,
            "grains/s after the turn / first pass",
            1.0,
            m.second.rate / m.first.rate,
            Tol::Info,
        ));
        let key = name.to_string();
        for (q, v) in [
            ("fill_fraction", m.fill_fraction),
            ("bulk_cm3", 1e6 * bulk),
            ("first_last_s", m.first.last),
            ("first_rate", m.first.rate),
            ("lower_fill", m.lower_fill),
            ("second_last_s", m.second.last),
            ("second_rate", m.second.rate),
        ] {
            out.point("hourglass", &key, q, v);
        }
        for (pass, p) in [("", &m.first), (" turned over", &m.second)] {
            series.push(measured(
                &format!("{name}{pass}"),
                p.through
                    .iter()
                    .map(|&(t, c)| (t, c as f64 / n as f64))
                    .collect(),
            ));
        }
    }
    out.plots.push(Plot {
        stem: "hourglass_flow".into(),
        title: "Hourglass: grains through the slot".into(),
        x_label: "time since the slot opened / the turn began (s)".into(),
        y_label: "fraction through".into(),
        caption: "Fraction of the grains past the slot's plane, every 0.05 s: first pass from the plug's drop, then after the lid closed and gravity turned over in 0.5 s (counted from the turn's start).".into(),
        series,
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::options::Catalogue;

    /// `hourglass.only` takes the runs' names.
    #[test]
    fn options_name_the_runs() {
        let names: Vec<&str> = RUNS.iter().map(|r| r.0).collect();
        assert_eq!(OPTIONS[0].kind, Kind::NamesOf(&["A", "B", "C"]));
        assert_eq!(names, ["A", "B", "C"]);
        let o = Catalogue(vec![("hourglass", "", OPTIONS)])
            .parse(&["hourglass.only=A,C"])
            .unwrap();
        assert_eq!(
            o.names("hourglass.only"),
            Some(&["A".to_string(), "C".to_string()][..])
        );
        assert!(!o.flag("hourglass.debug"));
    }

    /// The shipped scene (`scenes/hourglass.toml`) is run A of this case.
    #[test]
    fn shipped_scene_is_run_a() {
        let shipped = super::super::common::shipped("hourglass.toml");
        let ours = scene("A", 0.004, 2790).unwrap();
        assert_eq!(
            shipped.simulation.gravity_rotation,
            ours.simulation.gravity_rotation
        );
        assert_eq!(shipped.simulation.dt, ours.simulation.dt);
        assert_eq!(shipped.simulation.end, ours.simulation.end);
        assert_eq!(shipped.walls.len(), ours.walls.len());
        for (a, b) in shipped.walls.iter().zip(&ours.walls) {
            assert_eq!(a.shape, b.shape, "wall {:?}", b.name);
            assert_eq!(a.motion, b.motion, "wall {:?}", b.name);
        }
        assert_eq!(shipped.contact, ours.contact);
        super::super::common::assert_same_particles(&shipped, &ours);
    }

    /// The reconstruction's premise: a bulb holds more than A's spheres
    /// and less than B's at a random packing (solid fraction 0.60–0.62).
    #[test]
    fn bulb_sits_between_a_and_b() {
        let bulk = |d: f64, n: usize, phi: f64| n as f64 * PI * d.powi(3) / 6.0 / phi;
        let v = bulb_volume();
        assert!((v - 162.3e-6).abs() < 0.1e-6, "{v}");
        assert!(bulk(0.004, 2790, 0.60) < v && bulk(0.003, 7236, 0.62) > v);
        // the lid comes down the whole chimney, the plug below the floor
        assert!((LID_SPEED * (LID_CLOSED - LID_DOWN) - CHIMNEY).abs() < 1e-12);
        const { assert!(BULB_HEIGHT - PLUG_SPEED * (PLUG_DOWN - OPEN) < -0.01) };
    }

    /// Emptied, blocked (with a creep of a few grains) and still flowing,
    /// told apart from the counts alone.
    #[test]
    fn passes_are_told_apart() {
        let counts = |f: &dyn Fn(f64) -> usize| -> Vec<(f64, usize)> {
            (0..=90)
                .map(|k| k as f64 * 0.05)
                .map(|t| (t, f(t)))
                .collect()
        };
        // 1000 grains/s until all 2000 are through at 2 s
        let p = Pass::of(counts(&|t| ((1000.0 * t) as usize).min(2000)), 2000);
        assert!(p.emptied && !p.blocked && p.outcome() == 0.0);
        assert!((p.last - 2.0).abs() < 1e-9 && (p.rate - 1000.0).abs() < 1.0);
        assert!(p.r2 > 0.9999);
        // blocked at 1.8 s with 200 left above, then a grain every 0.4 s
        let creep = |t: f64| {
            if t < 1.8 {
                (1000.0 * t) as usize
            } else {
                1800 + ((t - 1.8) / 0.4) as usize
            }
        };
        let p = Pass::of(counts(&creep), 2000);
        assert!(p.blocked && !p.emptied && p.outcome() == 1.0, "{p:?}");
        assert!((p.last - 1.8).abs() < 0.051, "{}", p.last);
        // still flowing at the end (never reaching the total)
        let p = Pass::of(counts(&|t| (300.0 * t) as usize), 2000);
        assert!(!p.blocked && !p.emptied && p.outcome() == 0.5);
    }

    #[test]
    fn every_run_builds() {
        for (name, d, n) in RUNS {
            let s = scene(name, d, n).unwrap();
            assert_eq!(s.particles.len(), n);
        }
    }
}
