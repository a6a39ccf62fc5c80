//! Clumps (issue 37), before they run in the engine: the rotation every
//! clump will use (`talus::shapes::rotation`, CPU f64) on the torque-free
//! asymmetric top, against the exact (elliptic-function) solution. No GPU
//! twin yet: on the "gpu" maker the case only leaves a note.

use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use glam::{DQuat, DVec3};
use talus::shapes::rotation::tumble;

/// A rigid body with principal moments 1, 2, 3 kg m² spun at 1 rad/s about
/// its intermediate axis, 1–2 % off: 10⁵ steps over eight periods of its
/// tumbling. Rows: the world angular momentum's drift, the energy's, and
/// the flip period (sign changes of the spin about the intermediate axis,
/// two per period) against 4 K(k) / λ.
pub fn case_clump_top(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    if mk.name() != "cpu" {
        out.notes.push(format!(
            "not run on {}: the clumps' rotation runs in no GPU stage yet (its f32 twin, rotor.wgsl, is checked against this one in the engine's tests/gpu.rs); see the cpu rows",
            mk.name()
        ));
        return Ok(out);
    }
    let q0 = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let t = tumble(
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(0.01, 1.0, 0.02),
        q0,
        100_000,
        8.0,
    );
    let Some(measured) = t.measured_period() else {
        return Err(format!(
            "the top flipped {} times, expected ~16",
            t.flips.len()
        ));
    };
    let (worst_l, worst_e, period, dt) = (t.worst_l, t.worst_e, t.period, t.dt);
    let name = "clump-top";
    out.row(Row::new(
        name,
        "|ΔL| / L, worst over 1e5 steps",
        0.0,
        worst_l,
        Tol::Abs(1e-12),
    ));
    out.row(Row::new(
        name,
        "|ΔE| / E, worst over 1e5 steps",
        0.0,
        worst_e,
        Tol::Abs(1e-5),
    ));
    out.row(Row::new(
        name,
        "flip period [s]",
        period,
        measured,
        Tol::Rel(0.01),
    ));
    out.notes.push(format!(
        "{name}: I = (1, 2, 3) kg m², ω = (0.01, 1, 0.02) rad/s in the body, dt = {dt:.3e} s, {} flips",
        t.flips.len()
    ));
    Ok(out)
}
