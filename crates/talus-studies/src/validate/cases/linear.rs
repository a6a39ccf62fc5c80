//! Analytic check: the linear spring–dashpot law's restitution and contact
//! time (damped harmonic oscillator).

use super::common::err;
use super::materials::mat;
use crate::validate::maker::Maker;
use crate::validate::readback::{contact_time_and_max, pair_state, record};
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use crate::validate::setup::Lab;
use glam::DVec3;
use talus::scene::{ContactModel, Material};

pub fn case_linear(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.001;
    let v = 0.5;
    let tc = 1e-4;
    // the dashpot force jumps to c v_n at first touch: the start and end of
    // the contact fall inside a step, an O(dt/t_c) error in e (1.6 % at
    // e = 0.2 with t_c/200), so finer steps here
    let dt = tc / 500.0;
    let es = [0.2, 0.5, 0.8, 1.0];
    let mut lab = Lab::new("linear", r, dt);
    let g = mat("glass", 48e9, 0.2, 2800.0);
    for &e in &es {
        let m = Material {
            name: format!("glass e={e}"),
            ..g.clone()
        };
        lab.pair(
            (&m, r, DVec3::new(v, 0.0, 0.0), DVec3::ZERO),
            (&m, r, DVec3::new(-v, 0.0, 0.0), DVec3::ZERO),
            10.0 * dt,
            (e, 0.0, 0.0),
        );
    }
    let steps = (1.2 * tc / dt).ceil() as u64 + 20;
    let mut scene = lab.scene(steps)?;
    scene.contact.model = ContactModel::Linear;
    scene.contact.contact_time = Some(tc);
    scene.validate().map_err(err)?;
    let mut be = mk.make(&scene)?;
    let snaps = record(be.as_mut(), steps)?;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "linear model from contact_time = {tc} s (k_n = m*(π² + ln²e)/t_c², c_n = -2 ln e m*/t_c); R = {r} m, ±{v} m/s; dt = {dt:.1e} s, every step read back"
    ));
    for (k, &e) in es.iter().enumerate() {
        let q = &lab.pairs[k];
        let ov: Vec<f64> = snaps.iter().map(|p| pair_state(p, q).overlap).collect();
        let (t, _) = contact_time_and_max(&ov, dt).ok_or("linear: no complete contact")?;
        let last = pair_state(&snaps[snaps.len() - 1], q);
        let em = last.v_sep / (2.0 * v);
        let c = format!("linear e={e}");
        // one step of the dashpot force c v_n at first touch (the overlap
        // is found at the step's end, the force acts for the whole step):
        // a first-order error of at most 2|ln e| dt/t_c in e
        let tol = 2.0 * e.ln().abs() * dt / tc + 0.002;
        out.row(Row::new(&c, "e", e, em, Tol::Rel(tol)));
        out.row(Row::new(&c, "t_c [s]", tc, t, Tol::Rel(0.005)));
        out.point("linear", &format!("e={e}"), "e", em);
        out.point("linear", &format!("e={e}"), "t_c", t);
    }
    Ok(out)
}
