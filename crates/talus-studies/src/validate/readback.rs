//! Reading the impacts of a [`Lab`] scene back: each sphere's state in its
//! wall's frame, each pair's along its line of centres, every step's
//! snapshot, contact times from overlap histories, and running until every
//! impact has separated.

use super::setup::{wall_frame, Lab, PairImpact, WallImpact};
use glam::{DVec3, DVec4};
use talus::backend::Backend;
use talus::state::Particles;

/// The xyz of a packed `[x, y, z, w]` state entry.
fn xyz(a: [f64; 4]) -> DVec3 {
    DVec4::from_array(a).truncate()
}

/// A sphere's state relative to its wall.
#[derive(Debug, Clone, Copy)]
pub struct WallState {
    /// Velocity along n (away from the wall > 0), along t, along b.
    pub v_n: f64,
    pub v_t: f64,
    pub v_b: f64,
    /// Spin about b.
    pub spin: f64,
    pub overlap: f64,
}

pub fn wall_state(p: &Particles<f64>, w: &WallImpact) -> WallState {
    let i = w.id as usize;
    let frame = wall_frame(w.slot);
    let to_wall = frame.transpose();
    let v = to_wall * xyz(p.vel_invm[i]);
    let om = to_wall * xyz(p.omega_invi[i]);
    WallState {
        v_n: v.x,
        v_t: v.y,
        v_b: v.z,
        spin: om.z,
        overlap: w.radius - xyz(p.pos_rad[i]).dot(frame.x_axis),
    }
}

/// A pair's state: normal n = (b - a)/|b - a|.
#[derive(Debug, Clone, Copy)]
pub struct PairState {
    pub overlap: f64,
    /// Relative velocity of b w.r.t. a along n (separating > 0).
    pub v_sep: f64,
    pub v_a: DVec3,
    pub v_b: DVec3,
    pub w_a: DVec3,
    pub w_b: DVec3,
}

pub fn pair_state(p: &Particles<f64>, q: &PairImpact) -> PairState {
    let (a, b) = (q.a as usize, q.b as usize);
    let d = xyz(p.pos_rad[b]) - xyz(p.pos_rad[a]);
    let dist = d.length();
    let n = d * dist.recip();
    let v_a = xyz(p.vel_invm[a]);
    let v_b = xyz(p.vel_invm[b]);
    PairState {
        overlap: q.r_a + q.r_b - dist,
        v_sep: (v_b - v_a).dot(n),
        v_a,
        v_b,
        w_a: xyz(p.omega_invi[a]),
        w_b: xyz(p.omega_invi[b]),
    }
}

/// Read-back methods of [`Lab`] (its scene building is in `setup.rs`).
impl Lab {
    /// True when every impact has happened and separated.
    pub fn all_separated(&self, p: &Particles<f64>) -> bool {
        self.wall_impacts.iter().all(|w| {
            let s = wall_state(p, w);
            s.overlap < 0.0 && s.v_n > 0.0
        }) && self.pairs.iter().all(|q| {
            let s = pair_state(p, q);
            s.overlap < 0.0 && s.v_sep > 0.0
        })
    }

    /// Runs `steps`, then on until every impact has separated (checked in
    /// chunks of `steps / 8`, at most 4 × `steps` in all), then 4 more steps
    /// so the stored velocities are free-flight ones. Returns the snapshot
    /// and the steps run.
    pub fn run_to_separation(
        &self,
        be: &mut dyn Backend,
        steps: u64,
    ) -> Result<(Particles<f64>, u64), String> {
        be.advance(steps).map_err(|e| e.to_string())?;
        let mut done = steps;
        let chunk = (steps / 8).max(20);
        loop {
            let p = be.snapshot();
            if self.all_separated(&p) {
                break;
            }
            if done > 4 * steps {
                return Err(format!(
                    "{}: impacts not separated after {done} steps",
                    self.name
                ));
            }
            be.advance(chunk).map_err(|e| e.to_string())?;
            done += chunk;
        }
        be.advance(4).map_err(|e| e.to_string())?;
        Ok((be.snapshot(), done + 4))
    }
}

/// Every step's snapshot for `steps` steps (for force and overlap histories).
pub fn record(be: &mut dyn Backend, steps: u64) -> Result<Vec<Particles<f64>>, String> {
    let mut out = vec![be.snapshot()];
    for _ in 0..steps {
        be.advance(1).map_err(|e| e.to_string())?;
        out.push(be.snapshot());
    }
    Ok(out)
}

/// From an overlap history δ_k at t_k = k dt: the contact time from the
/// linearly interpolated zero crossings, and the largest overlap.
pub fn contact_time_and_max(overlaps: &[f64], dt: f64) -> Option<(f64, f64)> {
    let first = overlaps.iter().position(|&d| d > 0.0)?;
    let last = first + overlaps[first..].iter().position(|&d| d <= 0.0)? - 1;
    if first == 0 {
        return None;
    }
    let cross = |i: usize, j: usize| {
        // zero of the line through (i, δ_i), (j, δ_j)
        let (di, dj) = (overlaps[i], overlaps[j]);
        i as f64 + (j as f64 - i as f64) * di / (di - dj)
    };
    let t0 = cross(first - 1, first);
    let t1 = cross(last, last + 1);
    let max = overlaps[first..=last].iter().cloned().fold(0.0, f64::max);
    Some(((t1 - t0) * dt, max))
}
