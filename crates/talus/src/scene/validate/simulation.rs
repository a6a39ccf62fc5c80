//! `[simulation]`: end, time step, safety factor, skin, output and
//! checkpoint intervals.
// `!(x > 0.0)` is deliberate throughout: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::scene::error::SceneError;
use crate::scene::types::{Dt, End, Scene};

pub(super) fn check_simulation(s: &Scene) -> Result<(), SceneError> {
    let sim = &s.simulation;
    match sim.end {
        End::Duration(d) if !(d > 0.0) => {
            return Err(s.error(
                "simulation.duration",
                format!("expected a duration > 0 s, got {d}"),
            ))
        }
        End::Steps(0) => return Err(s.error("simulation.steps", "expected at least 1 step")),
        _ => {}
    }
    if let Dt::Fixed(dt) = sim.dt {
        if !(dt > 0.0) {
            return Err(s.error(
                "simulation.dt",
                format!("expected a time step > 0 s or \"auto\", got {dt}"),
            ));
        }
    }
    if !(sim.dt_safety > 0.0 && sim.dt_safety <= 1.0) {
        return Err(s.error(
            "simulation.dt_safety",
            format!("expected a number in (0, 1], got {}", sim.dt_safety),
        ));
    }
    if let Some(skin) = sim.neighbour_skin {
        if !(skin > 0.0 && skin.is_finite()) {
            return Err(s.error(
                "simulation.neighbour_skin",
                format!("expected a length > 0 m or \"auto\", got {skin}"),
            ));
        }
    }
    if let Some(l) = sim.grid_levels {
        if !(1..=crate::grid::MAX_LEVELS as u64).contains(&l) {
            return Err(s.error(
                "simulation.grid_levels",
                format!(
                    "expected \"auto\" or a number of levels from 1 to {}, got {l}",
                    crate::grid::MAX_LEVELS
                ),
            ));
        }
    }
    if let Some(oi) = sim.output_interval {
        if !(oi > 0.0) {
            return Err(s.error(
                "simulation.output_interval",
                format!("expected an interval > 0 s, got {oi}"),
            ));
        }
    }
    let ci = sim.checkpoint_interval;
    if !(ci > 0.0 && ci.is_finite()) {
        return Err(s.error(
            "simulation.checkpoint_interval",
            format!("expected an interval > 0 s (of wall-clock time), got {ci}"),
        ));
    }
    if let Some(r) = sim.gravity_rotation {
        let (axis, w) = (r.axis, r.angular_velocity);
        let n2 = axis.iter().map(|x| x * x).sum::<f64>();
        if !(n2 > 0.0) || !n2.is_finite() || (n2 - 1.0).abs() > 1e-12 {
            return Err(s.error(
                "simulation.gravity_rotation.axis",
                "expected a non-zero axis vector",
            ));
        }
        if !w.is_finite() {
            return Err(s.error(
                "simulation.gravity_rotation.angular_velocity",
                format!("expected a finite rate in rad/s, got {w}"),
            ));
        }
        if !(r.start >= 0.0 && r.start.is_finite()) {
            return Err(s.error(
                "simulation.gravity_rotation.start",
                format!("expected a start time >= 0 s, got {}", r.start),
            ));
        }
        if let Some(a) = r.angle {
            if !(a > 0.0 && a.is_finite()) {
                return Err(s.error(
                    "simulation.gravity_rotation.angle",
                    format!("expected an angle > 0 rad (3.14159 turns it over), got {a}"),
                ));
            }
            if w == 0.0 {
                return Err(s.error(
                    "simulation.gravity_rotation.angular_velocity",
                    "expected a non-zero rate: a turn by `angle` at 0 rad/s never ends",
                ));
            }
        }
        if let Some(p) = r.every {
            let Some(tt) = r.turn_time() else {
                return Err(s.error(
                    "simulation.gravity_rotation.every",
                    "expected `angle` beside `every`: a turn that never stops cannot repeat",
                ));
            };
            if !(p.is_finite() && p >= tt) {
                return Err(s.error(
                    "simulation.gravity_rotation.every",
                    format!("expected a period >= the {tt} s a turn takes (angle / angular_velocity), got {p}"),
                ));
            }
        }
    }
    Ok(())
}
