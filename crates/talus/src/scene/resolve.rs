//! The values a run derives from a scene: the time step (`dt = "auto"`
//! resolved through [`crate::timestep`]), the number of steps and the
//! output interval.
//!
//! A run resolves them once, in [`crate::setup::Setup`], through
//! [`Scene::steps_for`] and [`Scene::output_every_for`] at its one `dt`.
//! [`Scene::dt`], [`Scene::steps`] and [`Scene::output_every`] give the
//! same numbers for callers without a `Setup`; each call resolves `dt`
//! again (with `"auto"` and FEM bodies: each body's mesh built from the
//! file the scene read at load, its lumped masses and surface — no I/O,
//! but not free).

use super::types::{Dt, End, Scene};

/// The first step at or after time `t` (s) at time step `dt`; a time
/// within 10⁻⁹ (relative) of a step's is that step's, whichever side
/// rounding put it (0.1 s / 10⁻⁵ s may come out as 10 000.000000000002).
/// Saturates at `u64::MAX` (a `dt` of 0).
pub fn step_at_or_after(t: f64, dt: f64) -> u64 {
    let x = t / dt;
    let r = x.round();
    let s = if (x - r).abs() <= 1e-9 * r.abs().max(1.0) {
        r
    } else {
        x.ceil()
    };
    s.max(0.0) as u64
}

impl Scene {
    /// Every particle's id: the one its input gave, the others numbered in
    /// input order from one past the largest given (0, 1, 2, … when none
    /// is given). Unique once the scene is valid.
    pub fn particle_ids(&self) -> Vec<u32> {
        let mut next = self
            .particles
            .iter()
            .filter_map(|p| p.id)
            .max()
            .map_or(0, |m| m + 1);
        self.particles
            .iter()
            .map(|p| {
                p.id.unwrap_or_else(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    }

    /// The time step the run will use (auto resolved: the estimate of
    /// [`crate::timestep::estimate`]). A run reads
    /// [`crate::setup::Setup::dt`] instead.
    pub fn dt(&self) -> f64 {
        match self.simulation.dt {
            Dt::Fixed(dt) => dt,
            Dt::Auto => crate::timestep::estimate(self).auto_dt,
        }
    }

    /// Number of steps for the configured end (`duration` rounded up),
    /// at [`Scene::dt`]. A run reads [`crate::setup::Setup::steps`].
    pub fn steps(&self) -> u64 {
        self.steps_for(self.dt())
    }

    /// Number of steps for the configured end at time step `dt`: `steps`,
    /// or `duration / dt` rounded up ([`step_at_or_after`]: within a part
    /// in 10⁹ of a whole number, that number).
    pub fn steps_for(&self, dt: f64) -> u64 {
        match self.simulation.end {
            End::Steps(n) => n,
            End::Duration(t) => step_at_or_after(t, dt),
        }
    }

    /// Steps between outputs (at least 1), at [`Scene::dt`]. A run reads
    /// [`crate::setup::Setup::output_every`].
    pub fn output_every(&self) -> u64 {
        let dt = self.dt();
        self.output_every_for(dt, self.steps_for(dt))
    }

    /// Steps between outputs (at least 1) of a run of `steps` steps of
    /// `dt`: `output_interval / dt` rounded, or without an interval a
    /// fiftieth of the run.
    pub fn output_every_for(&self, dt: f64, steps: u64) -> u64 {
        let interval = self
            .simulation
            .output_interval
            .unwrap_or_else(|| steps as f64 * dt / 50.0);
        ((interval / dt).round() as u64).max(1)
    }
}
