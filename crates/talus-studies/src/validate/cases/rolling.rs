//! Analytic check: rolling resistance and the end of sliding (rigid-body
//! dynamics).

use super::common::{err, measured, theory_series};
use super::materials::mat;
use crate::validate::maker::Maker;
use crate::validate::readback::wall_state;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use crate::validate::setup::Lab;
use crate::validate::theory::{self, e_star, sphere_mass};
use glam::DVec3;
use talus::scene::Material;
use talus::state::Particles;

pub fn case_rolling(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.005;
    let g = 9.81;
    let m = mat("soft", 1e7, 0.25, 2500.0);
    let dt = 4e-5;
    let mut lab = Lab::new("rolling", r, dt);
    lab.gravity = DVec3::new(0.0, 0.0, -g);
    lab.wall(0, &m);
    let es = e_star(&m, &Lab::rigid(&m));
    let mass = sphere_mass(&m, r);
    let d_eq = theory::resting_overlap(mass, r, es, g);
    let mu_r = 0.1;
    let (w0, v_roll, v_slide) = (20.0, 0.05, 0.1);
    // (a) spinning in place, μ = 0: I dω/dt = -μ_r R m g
    let a = lab.resting(
        0,
        &Material {
            name: "spin".into(),
            ..m.clone()
        },
        r,
        0.0,
        w0,
        d_eq,
        (0.5, 0.0, mu_r),
    );
    // (b) rolling, μ = 0.5: (I + m R²) dω/dt = -μ_r R m g
    let b = lab.resting(
        0,
        &Material {
            name: "roll".into(),
            ..m.clone()
        },
        r,
        v_roll,
        v_roll / r,
        d_eq,
        (0.5, 0.5, mu_r),
    );
    // (c) sliding without spin, μ = 0.3, no rolling friction
    let c = lab.resting(
        0,
        &Material {
            name: "slide".into(),
            ..m.clone()
        },
        r,
        v_slide,
        0.0,
        d_eq,
        (0.5, 0.3, 0.0),
    );
    let rate_spin = 2.5 * mu_r * g / r;
    let rate_roll = 5.0 / 7.0 * mu_r * g / r;
    let t_end = 1.15 * (v_roll / r / rate_roll).max(w0 / rate_spin);
    let every = 50u64;
    let chunks = (t_end / dt / every as f64).ceil() as u64;
    let scene = lab.scene(chunks * every)?;
    let mut be = mk.make(&scene)?;
    let mut hist = Vec::new();
    let p0 = be.snapshot();
    hist.push((0.0, p0));
    for k in 1..=chunks {
        be.advance(every).map_err(err)?;
        hist.push(((k * every) as f64 * dt, be.snapshot()));
    }
    let spin = |p: &Particles<f64>, id: u32| wall_state(p, &lab.wall_impacts[id as usize]).spin;
    let vt = |p: &Particles<f64>, id: u32| wall_state(p, &lab.wall_impacts[id as usize]).v_t;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {r} m, E = 1e7 Pa, resting at the Hertz overlap {d_eq:.3e} m under g; μ_r = {mu_r}; dt = {dt:.0e} s, {} steps, read back every {every}",
        chunks * every
    ));
    // slope of ω(t) over the samples while ω > 0.2 ω0 (least squares)
    let slope = |id: u32, w_start: f64| {
        let pts: Vec<(f64, f64)> = hist
            .iter()
            .map(|(t, p)| (*t, spin(p, id)))
            .filter(|&(t, w)| t > 0.0 && w > 0.2 * w_start)
            .collect();
        let n = pts.len() as f64;
        let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
        let (mx, my) = (sx / n, sy / n);
        let (sxy, sxx) = pts.iter().fold((0.0, 0.0), |a, p| {
            (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx).powi(2))
        });
        sxy / sxx
    };
    let last = &hist[hist.len() - 1].1;
    out.row(Row::new(
        "rolling spin, μ = 0",
        "dω/dt [rad/s²] = -5μ_r g/(2R)",
        -rate_spin,
        slope(a, w0),
        Tol::Rel(0.01),
    ));
    out.row(Row::new(
        "rolling spin, μ = 0",
        "ω at the end [rad/s] (stopped)",
        0.0,
        spin(last, a),
        Tol::Abs(1e-3 * w0),
    ));
    out.row(Row::new(
        "rolling, μ = 0.5",
        "dω/dt [rad/s²] = -5μ_r g/(7R)",
        -rate_roll,
        slope(b, v_roll / r),
        Tol::Rel(0.02),
    ));
    out.row(Row::new(
        "rolling, μ = 0.5",
        "ω at the end [rad/s] (stopped)",
        0.0,
        spin(last, b),
        Tol::Abs(1e-2 * v_roll / r),
    ));
    // (c): once the slip stops, v = Rω = 5 v0 / 7 for good
    let t_stick = 2.0 * v_slide / (7.0 * 0.3 * g);
    out.row(Row::new(
        "sliding, μ = 0.3",
        "v after slipping [m/s] = 5 v0/7",
        5.0 * v_slide / 7.0,
        vt(last, c),
        Tol::Rel(0.005),
    ));
    out.row(Row::new(
        "sliding, μ = 0.3",
        "R ω after slipping [m/s] = 5 v0/7",
        5.0 * v_slide / 7.0,
        r * spin(last, c),
        Tol::Rel(0.005),
    ));
    // the time the slip stops: first sample with |v - Rω| < 1 % of v0
    let t_meas = hist
        .iter()
        .find(|(_, p)| (vt(p, c) - r * spin(p, c)).abs() < 0.01 * v_slide)
        .map(|(t, _)| *t)
        .unwrap_or(f64::NAN);
    out.row(Row::new(
        "sliding, μ = 0.3",
        "time to roll [s] = 2v0/(7μg)",
        t_stick,
        t_meas,
        Tol::Abs(1.5 * every as f64 * dt),
    ));
    out.point("rolling", "spin", "rate", slope(a, w0));
    out.point("rolling", "roll", "rate", slope(b, v_roll / r));
    out.point("rolling", "slide", "v_final", vt(last, c));
    let ts: Vec<f64> = hist.iter().map(|(t, _)| *t).collect();
    out.plots.push(Plot {
        stem: "rolling".into(),
        title: "Rolling resistance and the end of sliding".into(),
        x_label: "t [ms]".into(),
        y_label: "ω [rad/s]".into(),
        caption: "Angular velocity vs time: spinning in place with μ = 0 (decays at 5μ_r g/(2R)), rolling with μ = 0.5 (decays at 5μ_r g/(7R)), sliding without spin with μ_r = 0 (spins up to 5v0/(7R)); lines: theory, markers: talus".into(),
        series: vec![
            theory_series("spin, theory", ts.iter().map(|&t| (t * 1e3, (w0 - rate_spin * t).max(0.0))).collect()),
            theory_series("roll, theory", ts.iter().map(|&t| (t * 1e3, (v_roll / r - rate_roll * t).max(0.0))).collect()),
            theory_series("slide, theory", ts.iter().map(|&t| (t * 1e3, (2.5 * 0.3 * g * t / r).min(5.0 * v_slide / (7.0 * r)))).collect()),
            measured("spin", hist.iter().map(|(t, p)| (t * 1e3, spin(p, a))).collect()),
            measured("roll", hist.iter().map(|(t, p)| (t * 1e3, spin(p, b))).collect()),
            measured("slide", hist.iter().map(|(t, p)| (t * 1e3, spin(p, c))).collect()),
        ],
    });
    Ok(out)
}
