//! Clumps (issue 37), before they run in the engine: the rotation every
//! clump will use (`talus::shapes::rotation`, CPU f64) on the torque-free
//! asymmetric top, against the exact (elliptic-function) solution. No GPU
//! twin yet: on the "gpu" maker the case only leaves a note.

use crate::validate::maker::Maker;
use crate::validate::result::CaseResult;
use crate::validate::row::{Row, Tol};
use glam::{DQuat, DVec3};
use talus::shapes::rotation::{free_top_period, Rotor};

/// A rigid body with principal moments 1, 2, 3 kg m² spun at 1 rad/s about
/// its intermediate axis, 1–2 % off: 10⁵ steps over eight periods of its
/// tumbling. Rows: the world angular momentum's drift, the energy's, and
/// the flip period (sign changes of the spin about the intermediate axis,
/// two per period) against 4 K(k) / λ.
pub fn case_clump_top(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    if mk.name() != "cpu" {
        out.notes.push(format!(
            "not run on {}: the clumps' rotation has no GPU twin yet (issue 37); see the cpu rows",
            mk.name()
        ));
        return Ok(out);
    }
    let inertia = DVec3::new(1.0, 2.0, 3.0);
    let omega_body = DVec3::new(0.01, 1.0, 0.02);
    let q0 = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let mut r = Rotor {
        q: q0,
        l: q0 * (inertia * omega_body),
    };
    let (l0, e0) = (r.l, r.energy(inertia));
    let period = free_top_period(inertia, e0, l0.length_squared());
    let steps = 100_000;
    let dt = 8.0 * period / steps as f64;
    let (mut worst_l, mut worst_e) = (0.0f64, 0.0f64);
    let mut flips = Vec::new();
    let mut last = (r.q.inverse() * r.l).y;
    for n in 1..=steps {
        r.step(inertia, DVec3::ZERO, dt);
        let now = (r.q.inverse() * r.l).y;
        if now.signum() != last.signum() {
            flips.push((n as f64 - now / (now - last)) * dt);
        }
        last = now;
        worst_l = worst_l.max((r.l - l0).length() / l0.length());
        worst_e = worst_e.max((r.energy(inertia) - e0).abs() / e0);
    }
    if flips.len() < 3 {
        return Err(format!(
            "the top flipped {} times, expected ~16",
            flips.len()
        ));
    }
    let measured = 2.0 * (flips[flips.len() - 1] - flips[0]) / (flips.len() - 1) as f64;
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
        flips.len()
    ));
    Ok(out)
}
