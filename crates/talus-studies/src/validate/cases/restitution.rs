//! Chung & Ooi test 3: normal restitution on a rigid plane.

use super::common::{dt_for, measured, theory_series, PER_CONTACT};
use super::materials::{alox, cast_iron};
use crate::validate::maker::Maker;
use crate::validate::readback::wall_state;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use crate::validate::setup::Lab;
use crate::validate::theory::{e_star, hertz, sphere_mass};
use talus::scene::Material;

pub fn case3(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.0025;
    let v = 3.9;
    let es = [0.2, 0.4, 0.6, 0.8, 1.0];
    let fams = [alox(), cast_iron()];
    let tcs: Vec<f64> = fams
        .iter()
        .map(|m| hertz(sphere_mass(m, r), r, e_star(m, &Lab::rigid(m)), v).contact_time)
        .collect();
    let dt = dt_for(&tcs, PER_CONTACT);
    let t_gap = 10.0 * dt;
    let mut lab = Lab::new("case3", r, dt);
    for (slot, fam) in fams.iter().enumerate() {
        lab.wall(slot, fam);
        for &e in &es {
            let m = Material {
                name: format!("{} e={e}", fam.name),
                ..fam.clone()
            };
            lab.wall_impact(slot, &m, r, v, 0.0, 0.0, t_gap, (e, 0.0, 0.0));
        }
    }
    let steps = ((t_gap + 1.2 * tcs.iter().cloned().fold(0.0, f64::max)) / dt).ceil() as u64;
    let scene = lab.scene(steps)?;
    let mut be = mk.make(&scene)?;
    let (p, done) = lab.run_to_separation(be.as_mut(), steps)?;
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "R = {r} m, {v} m/s normal to the plane, μ = 0; {} spheres in one scene; dt = {dt:.4e} s, {done} steps",
        lab.wall_impacts.len()
    ));
    let mut plot = Plot {
        stem: "case3_restitution".into(),
        title: "Case 3: measured vs requested restitution".into(),
        x_label: "requested e".into(),
        y_label: "measured e".into(),
        caption: "Normal restitution coefficient measured (v_n after / before) against the requested e; line: y = x".into(),
        series: vec![theory_series("e = e_requested", vec![(0.1, 0.1), (1.0, 1.0)])],
    };
    for (k, fam) in fams.iter().enumerate() {
        let mut pts = Vec::new();
        for (i, &e) in es.iter().enumerate() {
            let w = &lab.wall_impacts[k * es.len() + i];
            let s = wall_state(&p, w);
            let em = s.v_n / v;
            out.row(Row::new(
                &format!("3 {}", fam.name),
                &format!("e (requested {e})"),
                e,
                em,
                Tol::Rel(0.01),
            ));
            out.point("3", &format!("{} e={e}", fam.name), "e", em);
            pts.push((e, em));
        }
        plot.series.push(measured(&fam.name, pts));
    }
    out.plots.push(plot);
    Ok(out)
}
