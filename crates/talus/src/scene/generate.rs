//! Particle generators: a jittered simple-cubic lattice and a random
//! sequential (non-overlapping) fill.

use super::radius::RadiusDist;
use super::types::ParticleInit;
use crate::rng::Rng;
use std::collections::HashMap;

impl RadiusDist {
    /// One radius drawn from the distribution.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            RadiusDist::Constant(r) => *r,
            RadiusDist::Uniform { min, max } => rng.range(*min, *max),
            RadiusDist::Discrete(l) => {
                let total: f64 = l.iter().map(|x| x.1).sum();
                let mut u = rng.f64() * total;
                for (r, f) in l {
                    if u < *f {
                        return *r;
                    }
                    u -= f;
                }
                l[l.len() - 1].0
            }
        }
    }
}

type Region = ([f64; 3], [f64; 3]);

fn blank(position: [f64; 3], radius: f64) -> ParticleInit {
    ParticleInit {
        position,
        velocity: [0.0; 3],
        angular_velocity: [0.0; 3],
        radius,
        material: 0,
        source: 0,
        id: None,
        shape: None,
        orientation: crate::scene::types::IDENTITY,
    }
}

/// Simple-cubic lattice filling `region` (x fastest, then y, then z, so a
/// `count` cap fills from the bottom). Sites are `spacing` apart (default
/// 2.2 × the largest radius); each sphere is jittered inside the gap so the
/// packing is not a perfect crystal, never touching a neighbour.
pub fn generate_lattice(
    region: Region,
    dist: &RadiusDist,
    count: Option<usize>,
    spacing: Option<f64>,
    seed: u64,
) -> Result<Vec<ParticleInit>, String> {
    dist.check()?;
    let (lo, hi) = region;
    let rmax = dist.max();
    let s = spacing.unwrap_or(2.2 * rmax);
    if !(s.is_finite() && s >= 2.0 * rmax) {
        return Err(format!(
            "lattice spacing {s} m is smaller than the largest diameter {} m",
            2.0 * rmax
        ));
    }
    // Sites sit at lo + s/2 + i s: with the jitter (< s/2 - rmax) every
    // sphere stays inside the region and off its neighbours.
    let mut n = [0usize; 3];
    for k in 0..3 {
        let len = hi[k] - lo[k];
        n[k] = (len / s + 1e-9).floor() as usize;
        if n[k] == 0 {
            return Err(format!(
                "region is {len} m wide along {}, less than one lattice spacing ({s} m)",
                ["x", "y", "z"][k]
            ));
        }
    }
    let sites = n[0].saturating_mul(n[1]).saturating_mul(n[2]);
    let want = count.unwrap_or(sites);
    if want > sites {
        return Err(format!(
            "count = {want} but the region holds only {sites} lattice sites ({} × {} × {} at spacing {s} m)",
            n[0], n[1], n[2]
        ));
    }
    if want > 200_000_000 {
        return Err(format!(
            "{want} particles is more than talus supports (200 million)"
        ));
    }
    crate::memory::admit_list("lattice", want as u64)?;
    let mut rng = Rng::new(seed);
    let jitter = 0.5 * s - rmax;
    let mut out = Vec::with_capacity(want);
    'outer: for iz in 0..n[2] {
        for iy in 0..n[1] {
            for ix in 0..n[0] {
                if out.len() == want {
                    break 'outer;
                }
                let r = dist.sample(&mut rng);
                let j = rng.in_unit_ball();
                let c = [
                    lo[0] + (ix as f64 + 0.5) * s + jitter * j[0],
                    lo[1] + (iy as f64 + 0.5) * s + jitter * j[1],
                    lo[2] + (iz as f64 + 0.5) * s + jitter * j[2],
                ];
                out.push(blank(c, r));
            }
        }
    }
    Ok(out)
}

/// The solid fraction beyond which [`generate_random`] refuses a count at
/// once, before any try: random sequential addition of equal spheres jams
/// near 0.38, of a size mixture a little higher; a count that asks for more
/// would only search (up to 200 tries a particle) and fail.
pub const RANDOM_MAX_FRACTION: f64 = 0.45;

/// Random sequential addition of `count` spheres in `region`, avoiding each
/// other and the `existing` particles. Largest radii are placed first.
/// Refuses at once a count whose spheres would fill more than
/// [`RANDOM_MAX_FRACTION`] of the region, saying about how many fit; fails
/// (with how many fitted) when the region is too full: random addition jams
/// near 30–38 % solid fraction.
pub fn generate_random(
    region: Region,
    dist: &RadiusDist,
    count: usize,
    existing: &[ParticleInit],
    seed: u64,
) -> Result<Vec<ParticleInit>, String> {
    dist.check()?;
    if count > 50_000_000 {
        return Err(format!(
            "count = {count}: the random generator is limited to 50 million (use lattice)"
        ));
    }
    crate::memory::admit_list("random", count as u64)?;
    let (lo, hi) = region;
    let mut rng = Rng::new(seed);
    let mut radii: Vec<f64> = (0..count).map(|_| dist.sample(&mut rng)).collect();
    let region_volume: f64 = (0..3).map(|k| hi[k] - lo[k]).product();
    let sphere = |r: f64| 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let asked: f64 = radii.iter().map(|&r| sphere(r)).sum::<f64>() / region_volume;
    if asked > RANDOM_MAX_FRACTION {
        // about what fits at the jamming fraction of equal spheres
        let mean = asked * region_volume / count as f64;
        let fit = (0.38 * region_volume / mean).floor();
        return Err(format!(
            "count = {count} asks for a solid fraction of {asked:.3} in the region, beyond the {RANDOM_MAX_FRACTION} random filling can reach (it jams near 0.38): about {fit} of these particles fit; use a larger region, a smaller count, or the lattice generator"
        ));
    }
    radii.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let rmax_all = existing.iter().map(|p| p.radius).fold(dist.max(), f64::max);
    let cell = 2.0 * rmax_all;
    let key = |p: &[f64; 3]| {
        (
            (p[0] / cell).floor() as i64,
            (p[1] / cell).floor() as i64,
            (p[2] / cell).floor() as i64,
        )
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<(usize, bool)>> = HashMap::new();
    for (i, p) in existing.iter().enumerate() {
        grid.entry(key(&p.position)).or_default().push((i, false));
    }
    let mut out: Vec<ParticleInit> = Vec::with_capacity(count);
    let max_attempts = 200usize.saturating_mul(count).max(10_000);
    let mut attempts = 0usize;
    for &r in &radii {
        let mut placed = false;
        while attempts < max_attempts {
            attempts += 1;
            let mut c = [0.0; 3];
            let mut fits = true;
            for k in 0..3 {
                if hi[k] - lo[k] < 2.0 * r {
                    fits = false;
                }
                c[k] = rng.range(lo[k] + r, hi[k] - r);
            }
            if !fits {
                return Err(format!(
                    "region is smaller than one diameter ({} m) along some axis",
                    2.0 * r
                ));
            }
            let (kx, ky, kz) = key(&c);
            let mut free = true;
            'search: for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        if let Some(list) = grid.get(&(kx + dx, ky + dy, kz + dz)) {
                            for &(j, new) in list {
                                let q = if new { &out[j] } else { &existing[j] };
                                let d2: f64 = (0..3).map(|k| (q.position[k] - c[k]).powi(2)).sum();
                                if d2 < (q.radius + r).powi(2) {
                                    free = false;
                                    break 'search;
                                }
                            }
                        }
                    }
                }
            }
            if free {
                grid.entry((kx, ky, kz))
                    .or_default()
                    .push((out.len(), true));
                out.push(blank(c, r));
                placed = true;
                break;
            }
        }
        if !placed {
            let vol: f64 = (0..3).map(|k| hi[k] - lo[k]).product();
            let solid: f64 = out
                .iter()
                .map(|p| 4.0 / 3.0 * std::f64::consts::PI * p.radius.powi(3))
                .sum();
            return Err(format!(
                "placed only {} of {count} particles after {attempts} random tries (solid fraction {:.2}; random filling jams near 0.3): use a larger region, a smaller count, or the lattice generator",
                out.len(),
                solid / vol
            ));
        }
    }
    Ok(out)
}
