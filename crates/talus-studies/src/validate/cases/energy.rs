//! Analytic check: the energy balance of a settling column.

use super::common::{err, measured, theory_series};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use talus::scene::{Material, RadiusDist, SceneBuilder};
use talus::Setup;

pub fn case_energy(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let r = 0.001;
    let m = Material {
        name: "beads".into(),
        density: 2500.0,
        youngs_modulus: 2e6,
        poisson_ratio: 0.25,
        restitution: 0.5,
        friction: 0.5,
        rolling_friction: 0.02,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    };
    let l = 0.012;
    let scene = SceneBuilder::new("energy")
        .domain([0.0; 3], [l, l, 0.03])
        .periodic([true, true, false])
        .dt_auto(0.1)
        .duration(0.08)
        .material(m)
        .wall([0.0; 3], [0.0, 0.0, 1.0], "beads")
        .generate(
            "lattice",
            ([0.0, 0.0, 0.001], [l, l, 0.03]),
            RadiusDist::Uniform {
                min: 0.9 * r,
                max: r,
            },
            "beads",
            Some(150),
            [0.0, 0.0, -0.2],
        )
        .build()
        .map_err(err)?;
    let run = Setup::new(scene).map_err(err)?;
    let (dt, steps) = (run.dt, run.steps);
    let chunks = 12u64;
    let per = steps.div_ceil(chunks);
    let mut be = mk.make_setup(&run)?;
    be.advance(1).map_err(err)?;
    let e0 = be.diagnostics().total();
    let mut worst = 0.0f64;
    let mut series = Vec::new();
    let mut last = be.diagnostics();
    for k in 1..=chunks {
        be.advance(per).map_err(err)?;
        let d = be.diagnostics();
        let res = (d.total() - e0).abs() / d.dissipated.max(1e-300);
        worst = worst.max(res);
        series.push((
            (k * per) as f64 * dt,
            100.0 * (d.total() - e0) / d.dissipated.max(1e-300),
        ));
        last = d;
    }
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "{} spheres (R 0.9–1 mm, E = 2e6 Pa, e = 0.5, μ = 0.5, μ_r = 0.02) falling onto a floor, periodic in x and y; dt = {dt:.3e} s (auto, safety 0.1), {} steps; energies read {chunks} times",
        run.scene.particles.len(),
        chunks * per
    ));
    out.row(Row::new(
        "energy",
        "|E(t) - E(0)| / dissipated, worst",
        0.0,
        worst,
        Tol::Abs(0.01),
    ));
    out.row(Row::new(
        "energy",
        "kinetic / dissipated at the end (settled)",
        0.0,
        (last.kinetic_translational + last.kinetic_rotational) / last.dissipated,
        Tol::Abs(0.05),
    ));
    out.point("energy", "residual", "worst", worst);
    out.plots.push(Plot {
        stem: "energy".into(),
        title: "Energy balance of a settling column".into(),
        x_label: "t [s]".into(),
        y_label: "(E(t) - E(0)) / dissipated [%]".into(),
        caption: "Energy residual (kinetic + rotational + potential + elastic + dissipated, minus its initial value) relative to the energy dissipated so far".into(),
        series: vec![
            theory_series("±1 %", vec![(0.0, 1.0), (steps as f64 * dt, 1.0)]),
            theory_series("-1 %", vec![(0.0, -1.0), (steps as f64 * dt, -1.0)]),
            measured("residual", series),
        ],
    });
    Ok(out)
}
