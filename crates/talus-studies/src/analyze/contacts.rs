//! Contacts from positions alone: coordination numbers (with and without
//! rattlers) and the elastic normal forces of the run's contact law.

use talus::grid::pairs::contact_pairs;
use talus::grid::Grid;
use talus::pair::PairTable;
use talus::scene::{ContactModel, Domain, Region, Scene};

/// A particle–particle contact: indices (i < j) and the overlap
/// δ = r_i + r_j − |x_i − x_j| > 0 (periodic images respected).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    pub i: usize,
    pub j: usize,
    pub overlap: f64,
}

/// Every pair closer than r_i + r_j, through the grid pair search.
pub fn find_contacts(pos_rad: &[[f64; 4]], domain: &Domain) -> Result<Vec<Contact>, String> {
    if pos_rad.is_empty() {
        return Ok(Vec::new());
    }
    let rmax = pos_rad.iter().map(|p| p[3]).fold(0.0, f64::max).max(1e-12);
    let rmin = pos_rad.iter().map(|p| p[3]).fold(rmax, f64::min).max(1e-12);
    let grid = Grid::for_radii(domain, rmin, rmax, pos_rad.len())?;
    Ok(contact_pairs(pos_rad, &grid)
        .into_iter()
        .map(|(i, j)| {
            let (p, q) = (pos_rad[i], pos_rad[j]);
            let d = grid.min_image([p[0], p[1], p[2]], [q[0], q[1], q[2]]);
            let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            Contact {
                i,
                j,
                overlap: p[3] + q[3] - dist,
            }
        })
        .collect())
}

/// The contacts of `rows` whose spheres belong to different particles
/// (`owner`: each row's particle): a clump's own members overlap and are
/// not in contact.
pub fn between_particles(rows: &[Contact], owner: &[usize]) -> Vec<Contact> {
    rows.iter()
        .copied()
        .filter(|c| owner[c.i] != owner[c.j])
        .collect()
}

/// Contacts between particles from those of their spheres (`owner`: each
/// row's particle): one per pair of particles touching anywhere (a clump
/// may touch another with several members), its overlap the largest, in
/// the order of (i, j).
pub fn particle_contacts(rows: &[Contact], owner: &[usize]) -> Vec<Contact> {
    let mut by_pair = std::collections::BTreeMap::new();
    for c in rows {
        let (a, b) = (owner[c.i], owner[c.j]);
        if a == b {
            continue;
        }
        let key = (a.min(b), a.max(b));
        let o: &mut f64 = by_pair.entry(key).or_insert(f64::NEG_INFINITY);
        *o = o.max(c.overlap);
    }
    by_pair
        .into_iter()
        .map(|((i, j), overlap)| Contact { i, j, overlap })
        .collect()
}

/// Coordination of a packing.
#[derive(Debug, Clone, PartialEq)]
pub struct Coordination {
    /// Contacts per particle (all particles).
    pub per_particle: Vec<u32>,
    /// Particles counted (centres inside the region, or all).
    pub counted: usize,
    /// Mean contacts of the counted particles.
    pub mean: f64,
    /// Counted particles left once the rattlers are removed.
    pub non_rattlers: usize,
    /// Mean contacts of the non-rattlers, counting only contacts between
    /// non-rattlers.
    pub mean_without_rattlers: f64,
    /// histogram[z] = counted particles with z contacts.
    pub histogram: Vec<usize>,
}

/// Coordination numbers. A rattler is a particle with fewer than
/// `min_contacts` contacts among the particles that are not rattlers
/// (found by removing them repeatedly: a removed rattler no longer counts
/// as its partners' contact). Particle–particle contacts only (walls are
/// not counted). With `region`, only particles whose centres lie inside are
/// counted (their contacts with any particle count).
pub fn coordination(
    n: usize,
    contacts: &[Contact],
    pos_rad: &[[f64; 4]],
    region: Option<&Region>,
    min_contacts: u32,
) -> Coordination {
    let mut z = vec![0u32; n];
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for c in contacts {
        z[c.i] += 1;
        z[c.j] += 1;
        adj[c.i].push(c.j as u32);
        adj[c.j].push(c.i as u32);
    }
    let inside: Vec<bool> = (0..n)
        .map(|i| region.is_none_or(|r| r.contains([pos_rad[i][0], pos_rad[i][1], pos_rad[i][2]])))
        .collect();
    // rattlers, removed repeatedly
    let mut alive = vec![true; n];
    let mut zr = z.clone();
    let mut stack: Vec<usize> = (0..n).filter(|&i| zr[i] < min_contacts).collect();
    while let Some(i) = stack.pop() {
        if !alive[i] {
            continue;
        }
        alive[i] = false;
        for &j in &adj[i] {
            let j = j as usize;
            if alive[j] {
                zr[j] -= 1;
                if zr[j] < min_contacts {
                    stack.push(j);
                }
            }
        }
    }
    let counted = inside.iter().filter(|&&b| b).count();
    let zmax = (0..n)
        .filter(|&i| inside[i])
        .map(|i| z[i])
        .max()
        .unwrap_or(0);
    let mut histogram = vec![0usize; zmax as usize + 1];
    let (mut sum, mut sum_r, mut nr) = (0u64, 0u64, 0usize);
    for i in (0..n).filter(|&i| inside[i]) {
        histogram[z[i] as usize] += 1;
        sum += z[i] as u64;
        if alive[i] {
            sum_r += zr[i] as u64;
            nr += 1;
        }
    }
    let mean = |s: u64, k: usize| if k > 0 { s as f64 / k as f64 } else { 0.0 };
    Coordination {
        per_particle: z,
        counted,
        mean: mean(sum, counted),
        non_rattlers: nr,
        mean_without_rattlers: mean(sum_r, nr),
        histogram,
    }
}

/// The elastic normal force of each contact under the scene's law: Hertz
/// F = 4/3 E* √(R*) δ^{3/2} (R* = r_i r_j / (r_i + r_j)), linear F = k_n δ
/// (k_n the scene's stiffness, or from its contact time and the pair's
/// m* = m_i m_j / (m_i + m_j) and restitution). Damping is not included:
/// positions alone do not give the relative velocity's share. `inv_mass`
/// and `material` per particle (from the snapshot).
pub fn normal_forces(
    scene: &Scene,
    pos_rad: &[[f64; 4]],
    inv_mass: &[f64],
    material: &[u32],
    contacts: &[Contact],
) -> Result<Vec<f64>, String> {
    let table = PairTable::new(scene);
    contacts
        .iter()
        .map(|c| {
            let (mi, mj) = (material[c.i] as usize, material[c.j] as usize);
            if mi >= table.n || mj >= table.n {
                return Err(format!(
                    "particle material {} not in the scene's {} materials",
                    mi.max(mj),
                    table.n
                ));
            }
            let pp = &table.pairs[mi * table.n + mj];
            let (ri, rj) = (pos_rad[c.i][3], pos_rad[c.j][3]);
            let d = c.overlap.max(0.0);
            Ok(match scene.contact.model {
                ContactModel::HertzMindlin => {
                    let r_star = ri * rj / (ri + rj);
                    4.0 / 3.0 * pp.e_star * (r_star * d).sqrt() * d
                }
                ContactModel::Linear => {
                    let m_star = 1.0 / (inv_mass[c.i] + inv_mass[c.j]);
                    let (kn, _) = talus::timestep::linear_coefficients(
                        m_star,
                        pp.restitution,
                        scene.contact.stiffness,
                        scene.contact.contact_time,
                    );
                    kn * d
                }
            })
        })
        .collect()
}

/// Histogram of `values` / their mean: `bins` equal bins over
/// [0, max(values / mean)] as (lo, hi, count, probability density).
pub fn normalised_histogram(values: &[f64], bins: usize) -> Vec<(f64, f64, usize, f64)> {
    let n = values.len();
    if n == 0 || bins == 0 {
        return Vec::new();
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if mean.is_nan() || mean <= 0.0 {
        return Vec::new();
    }
    let top = values.iter().map(|v| v / mean).fold(0.0, f64::max);
    let w = top / bins as f64;
    let mut count = vec![0usize; bins];
    for v in values {
        let k = ((v / mean / w) as usize).min(bins - 1);
        count[k] += 1;
    }
    (0..bins)
        .map(|k| {
            let (lo, hi) = (k as f64 * w, (k + 1) as f64 * w);
            (lo, hi, count[k], count[k] as f64 / (n as f64 * w))
        })
        .collect()
}
