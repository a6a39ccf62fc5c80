//! Solid fraction of a region and its profiles, from exact sphere ∩ region
//! volumes ([`super::volume`]). The `_weighted` forms count each sphere's
//! volume times its weight (a clump's members: its union's share,
//! `rundir::Grains::weight`); the plain forms weigh every sphere 1.

use super::volume::{sphere_in_box, sphere_in_cylinder};
use talus::scene::Region;

/// One bin of a profile: the bin's bounds (along the axis, or radii) and
/// the solid fraction inside it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub fraction: f64,
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    if l > 0.0 {
        [a[0] / l, a[1] / l, a[2] / l]
    } else {
        a
    }
}

/// Whether the sphere's bounding box reaches the region's.
fn near(p: &[f64; 4], region: &Region) -> bool {
    let (lo, hi) = region.bounds();
    (0..3).all(|k| p[k] + p[3] > lo[k] && p[k] - p[3] < hi[k])
}

/// Volume of the sphere `p` (x, y, z, r) inside the region.
pub fn volume_in(p: &[f64; 4], region: &Region) -> f64 {
    let c = [p[0], p[1], p[2]];
    match *region {
        Region::Box { min, max } => sphere_in_box(c, p[3], min, max),
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => sphere_in_cylinder(c, p[3], center, unit(axis), radius, 0.0, length),
    }
}

/// Weight `i` of `weight` (none: 1).
fn w(weight: Option<&[f64]>, i: usize) -> f64 {
    weight.map_or(1.0, |w| w[i])
}

/// Total sphere volume inside the region.
pub fn solid_volume(pos_rad: &[[f64; 4]], region: &Region) -> f64 {
    solid_volume_weighted(pos_rad, None, region)
}

/// [`solid_volume`], each sphere's times its weight.
pub fn solid_volume_weighted(pos_rad: &[[f64; 4]], weight: Option<&[f64]>, region: &Region) -> f64 {
    pos_rad
        .iter()
        .enumerate()
        .filter(|(_, p)| near(p, region))
        .map(|(i, p)| w(weight, i) * volume_in(p, region))
        .sum()
}

/// Sphere volume inside the region over the region's volume (exact).
pub fn solid_fraction(pos_rad: &[[f64; 4]], region: &Region) -> f64 {
    solid_fraction_weighted(pos_rad, None, region)
}

/// [`solid_fraction`], each sphere's volume times its weight.
pub fn solid_fraction_weighted(
    pos_rad: &[[f64; 4]],
    weight: Option<&[f64]>,
    region: &Region,
) -> f64 {
    let v = region.volume();
    if v > 0.0 {
        solid_volume_weighted(pos_rad, weight, region) / v
    } else {
        0.0
    }
}

/// The `n` equal slices of the region along its axis (a box: along z;
/// bounds measured from the cylinder's base centre, or as z).
pub fn layers(region: &Region, n: usize) -> Vec<(f64, f64, Region)> {
    let n = n.max(1);
    match *region {
        Region::Box { min, max } => (0..n)
            .map(|i| {
                let lo = min[2] + (max[2] - min[2]) * i as f64 / n as f64;
                let hi = if i + 1 == n {
                    max[2]
                } else {
                    min[2] + (max[2] - min[2]) * (i + 1) as f64 / n as f64
                };
                let (mut a, mut b) = (min, max);
                a[2] = lo;
                b[2] = hi;
                (lo, hi, Region::Box { min: a, max: b })
            })
            .collect(),
        Region::Cylinder {
            center,
            axis,
            radius,
            length,
        } => {
            let u = unit(axis);
            (0..n)
                .map(|i| {
                    let lo = length * i as f64 / n as f64;
                    let hi = if i + 1 == n {
                        length
                    } else {
                        length * (i + 1) as f64 / n as f64
                    };
                    let c = [
                        center[0] + lo * u[0],
                        center[1] + lo * u[1],
                        center[2] + lo * u[2],
                    ];
                    (
                        lo,
                        hi,
                        Region::Cylinder {
                            center: c,
                            axis: u,
                            radius,
                            length: hi - lo,
                        },
                    )
                })
                .collect()
        }
    }
}

/// The solid fraction in `n` equal slices along the region's axis (a box:
/// along z), exact. The layers' fractions average (equal volumes) to the
/// region's.
pub fn layered_profile(pos_rad: &[[f64; 4]], region: &Region, n: usize) -> Vec<Bin> {
    layered_profile_weighted(pos_rad, None, region, n)
}

/// [`layered_profile`], each sphere's volume times its weight.
pub fn layered_profile_weighted(
    pos_rad: &[[f64; 4]],
    weight: Option<&[f64]>,
    region: &Region,
    n: usize,
) -> Vec<Bin> {
    if n == 0 {
        return Vec::new();
    }
    let slices = layers(region, n);
    let mut vol = vec![0.0; n];
    for (i, p) in pos_rad.iter().enumerate().filter(|(_, p)| near(p, region)) {
        for (k, (_, _, s)) in slices.iter().enumerate() {
            if near(p, s) {
                vol[k] += w(weight, i) * volume_in(p, s);
            }
        }
    }
    slices
        .iter()
        .zip(vol)
        .map(|((lo, hi, s), v)| Bin {
            lo: *lo,
            hi: *hi,
            fraction: if s.volume() > 0.0 {
                v / s.volume()
            } else {
                0.0
            },
        })
        .collect()
}

/// The solid fraction in `n` equal-width rings from the axis of a
/// `Region::Cylinder` (ring = cylinder(r_hi) − cylinder(r_lo)), exact. A box
/// gives no bins.
pub fn radial_profile(pos_rad: &[[f64; 4]], cylinder: &Region, n: usize) -> Vec<Bin> {
    radial_profile_weighted(pos_rad, None, cylinder, n)
}

/// [`radial_profile`], each sphere's volume times its weight.
pub fn radial_profile_weighted(
    pos_rad: &[[f64; 4]],
    weight: Option<&[f64]>,
    cylinder: &Region,
    n: usize,
) -> Vec<Bin> {
    let Region::Cylinder {
        center,
        axis,
        radius,
        length,
    } = *cylinder
    else {
        return Vec::new();
    };
    if n == 0 {
        return Vec::new();
    }
    let u = unit(axis);
    let edges: Vec<f64> = (0..=n)
        .map(|i| {
            if i == n {
                radius
            } else {
                radius * i as f64 / n as f64
            }
        })
        .collect();
    // volume inside each cylinder of radius edges[k]
    let mut inside = vec![0.0; n + 1];
    for (i, p) in pos_rad
        .iter()
        .enumerate()
        .filter(|(_, p)| near(p, cylinder))
    {
        let c = [p[0], p[1], p[2]];
        for k in 1..=n {
            inside[k] +=
                w(weight, i) * sphere_in_cylinder(c, p[3], center, u, edges[k], 0.0, length);
        }
    }
    (0..n)
        .map(|k| {
            let (lo, hi) = (edges[k], edges[k + 1]);
            let area = std::f64::consts::PI * (hi * hi - lo * lo) * length;
            Bin {
                lo,
                hi,
                fraction: if area > 0.0 {
                    (inside[k + 1] - inside[k]) / area
                } else {
                    0.0
                },
            }
        })
        .collect()
}
