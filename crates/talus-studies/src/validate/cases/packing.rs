//! The solid fraction of a settled random packing (long, `--full` only).

use super::common::err;
use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use talus::scene::{Material, RadiusDist, SceneBuilder};
use talus::Setup;

pub fn case_packing(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.001;
    let l = 0.02;
    let mut out = CaseResult::default();
    for (mu, lo, hi) in [(0.0, 0.62, 0.66), (0.5, 0.58, 0.62)] {
        let m = Material {
            name: "p".into(),
            density: 2500.0,
            youngs_modulus: 5e6,
            poisson_ratio: 0.25,
            restitution: 0.1,
            friction: mu,
            rolling_friction: 0.0,
            rolling_viscous_damping: 0.0,
            cohesion_energy_density: 0.0,
            surface_energy: 0.0,
        };
        let scene = SceneBuilder::new("packing")
            .domain([0.0; 3], [l, l, 0.2])
            .periodic([true, true, false])
            .dt_auto(0.25)
            .duration(0.4)
            .material(m)
            .wall([0.0; 3], [0.0, 0.0, 1.0], "p")
            .generate(
                "random",
                ([0.0, 0.0, 0.0], [l, l, 0.2]),
                RadiusDist::Constant(r),
                "p",
                Some(2000),
                [0.0, 0.0, 0.0],
            )
            .build()
            .map_err(err)?;
        let run = Setup::new(scene).map_err(err)?;
        let (dt, steps) = (run.dt, run.steps);
        let mut be = mk.make_setup(&run)?;
        be.advance(steps).map_err(err)?;
        let p = be.snapshot();
        let d = be.diagnostics();
        // solid fraction in a slab away from the floor and the free surface:
        // exact sphere–slab intersection volumes
        let mut ztop = 0.0f64;
        for x in &p.pos_rad {
            ztop = ztop.max(x[2]);
        }
        let (z0, z1) = (4.0 * 2.0 * r, ztop - 4.0 * 2.0 * r);
        let cap = |h: f64| {
            // volume of a sphere of radius r below height h (relative to its centre)
            let h = h.clamp(-r, r);
            std::f64::consts::PI * (r * r * (h + r) - (h.powi(3) + r.powi(3)) / 3.0)
        };
        let vol: f64 = p
            .pos_rad
            .iter()
            .map(|x| cap(z1 - x[2]) - cap(z0 - x[2]))
            .sum();
        let phi = vol / (l * l * (z1 - z0));
        out.notes.push(format!(
            "μ = {mu}: {} spheres R = {r} m (E = 5e6 Pa, e = 0.1) poured into a {l} m periodic box; dt = {dt:.2e} s, {steps} steps; slab z = {z0:.4}..{z1:.4} m; kinetic energy at the end {:.2e} J",
            p.len(),
            d.kinetic_translational
        ));
        out.row(Row::new(
            &format!("packing μ = {mu}"),
            "solid fraction",
            0.5 * (lo + hi),
            phi,
            Tol::Abs(0.5 * (hi - lo)),
        ));
        out.point("packing", &format!("mu={mu}"), "phi", phi);
    }
    Ok(out)
}
