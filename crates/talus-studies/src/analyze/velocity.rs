//! Mean velocity binned along an axis.

use talus::scene::Region;
use talus::state::Particles;

/// One bin of a velocity profile: bounds along the axis, particles, mean
/// velocity (components) and mean speed (of the particles, not the speed
/// of the mean).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VelocityBin {
    pub lo: f64,
    pub hi: f64,
    pub count: usize,
    pub mean: [f64; 3],
    pub speed: f64,
}

/// The particles' mean velocity in `n` equal bins of x·axis over
/// [lo, hi], counting only centres inside `region` when given (each
/// particle weighs the same).
pub fn velocity_profile(
    p: &Particles<f64>,
    axis: [f64; 3],
    range: (f64, f64),
    n: usize,
    region: Option<&Region>,
) -> Vec<VelocityBin> {
    if n == 0 || range.1 <= range.0 {
        return Vec::new();
    }
    let w = (range.1 - range.0) / n as f64;
    let mut bins: Vec<VelocityBin> = (0..n)
        .map(|k| VelocityBin {
            lo: range.0 + k as f64 * w,
            hi: if k + 1 == n {
                range.1
            } else {
                range.0 + (k + 1) as f64 * w
            },
            count: 0,
            mean: [0.0; 3],
            speed: 0.0,
        })
        .collect();
    for (q, v) in p.pos_rad.iter().zip(&p.vel_invm) {
        let c = [q[0], q[1], q[2]];
        if region.is_some_and(|r| !r.contains(c)) {
            continue;
        }
        let s = c[0] * axis[0] + c[1] * axis[1] + c[2] * axis[2];
        if s < range.0 || s > range.1 {
            continue;
        }
        let k = (((s - range.0) / w) as usize).min(n - 1);
        let b = &mut bins[k];
        b.count += 1;
        for (m, x) in b.mean.iter_mut().zip(v) {
            *m += x;
        }
        b.speed += (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    }
    for b in &mut bins {
        if b.count > 0 {
            let c = b.count as f64;
            b.mean = b.mean.map(|x| x / c);
            b.speed /= c;
        }
    }
    bins
}
