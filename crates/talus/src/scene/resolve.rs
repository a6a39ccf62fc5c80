//! The values a run derives from a scene: the time step (`dt = "auto"`
//! resolved through [`crate::timestep`]), the number of steps and the
//! output interval.

use super::types::{Dt, End, Scene};

impl Scene {
    /// The time step the run will use (auto resolved).
    pub fn dt(&self) -> f64 {
        match self.simulation.dt {
            Dt::Fixed(dt) => dt,
            Dt::Auto => crate::timestep::estimate(self).auto_dt,
        }
    }

    /// Number of steps for the configured end (`duration` rounded up).
    pub fn steps(&self) -> u64 {
        match self.simulation.end {
            End::Steps(n) => n,
            End::Duration(t) => (t / self.dt() - 1e-9).ceil().max(0.0) as u64,
        }
    }

    /// Steps between outputs (at least 1).
    pub fn output_every(&self) -> u64 {
        let dt = self.dt();
        let interval = self.simulation.output_interval.unwrap_or_else(|| {
            let total = self.steps() as f64 * dt;
            total / 50.0
        });
        ((interval / dt).round() as u64).max(1)
    }
}
