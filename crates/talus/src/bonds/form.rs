//! Which pairs a `[[bonds]]` entry bonds among given spheres: both of its
//! materials (either order) or both centres in its region, surfaces closer
//! than its `gap` (overlapping pairs too). A clump's members are not
//! bonded. Found through a grid of cells one largest diameter plus the gap
//! wide, so the cost is linear in the spheres. What `talus check` reports
//! at t = 0, and how a run will form its bonds at `at`.

use crate::scene::types::{BondPairs, BondSpec, ParticleInit, Scene};
use crate::scene::Domain;
use std::collections::HashMap;
use std::f64::consts::PI;

/// Section constants (A, I, J) of a disc of radius r.
pub fn section(r: f64) -> (f64, f64, f64) {
    let a = PI * r * r;
    let i = 0.25 * PI * r.powi(4);
    (a, i, 2.0 * i)
}

/// A pair to bond: the two spheres' indices (i < j) and their centres'
/// distance L (m).
pub type BondPair = (usize, usize, f64);

/// A sphere as a `[[bonds]]` entry sees it: its centre, radius, material
/// (the scene's own index: a `[[fixed]]` particle's, not its held copy's)
/// and whether it is a clump's member (never bonded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    pub position: [f64; 3],
    pub radius: f64,
    pub material: usize,
    pub clump: bool,
}

impl Sphere {
    /// `p` of `scene` (a held particle by its own material).
    pub fn of(scene: &Scene, p: &ParticleInit) -> Sphere {
        Sphere {
            position: p.position,
            radius: p.radius,
            material: scene.base_material(p.material),
            clump: p.shape.is_some(),
        }
    }
}

/// The pairs `spec` bonds among `scene`'s particles, in (i, j) order.
pub fn pairs(spec: &BondSpec, scene: &Scene) -> Vec<BondPair> {
    let spheres: Vec<Sphere> = scene
        .particles
        .iter()
        .map(|p| Sphere::of(scene, p))
        .collect();
    pairs_among(spec, &spheres, &scene.domain)
}

/// The pairs `spec` bonds among `spheres` in `domain`, in (i, j) order,
/// with their distance: across a periodic boundary by the nearest image,
/// as the bond stage measures them.
pub fn pairs_among(spec: &BondSpec, particles: &[Sphere], domain: &Domain) -> Vec<BondPair> {
    let takes = |p: &Sphere| {
        !p.clump
            && match &spec.pairs {
                BondPairs::Materials(m) => m.contains(&p.material),
                BondPairs::Region(r) => r.contains(p.position),
            }
    };
    let pair_ok = |a: &Sphere, b: &Sphere| match &spec.pairs {
        BondPairs::Materials([m0, m1]) => {
            (a.material == *m0 && b.material == *m1) || (a.material == *m1 && b.material == *m0)
        }
        BondPairs::Region(_) => true,
    };
    let idx: Vec<usize> = (0..particles.len())
        .filter(|&i| takes(&particles[i]))
        .collect();
    let r_max = idx
        .iter()
        .map(|&i| particles[i].radius)
        .fold(0.0f64, f64::max);
    if idx.is_empty() || r_max <= 0.0 || r_max.is_nan() {
        return Vec::new();
    }
    // cells at least a bond's reach wide; along a periodic axis a whole
    // number of them across the box, their keys wrapped
    let reach = 2.0 * r_max + spec.gap;
    let len: [f64; 3] = std::array::from_fn(|k| domain.max[k] - domain.min[k]);
    let cells: [i64; 3] = std::array::from_fn(|k| {
        if domain.periodic[k] {
            ((len[k] / reach).floor() as i64).max(1)
        } else {
            0
        }
    });
    let size: [f64; 3] = std::array::from_fn(|k| {
        if cells[k] > 0 {
            len[k] / cells[k] as f64
        } else {
            reach
        }
    });
    let wrap = |c: [i64; 3]| -> [i64; 3] {
        std::array::from_fn(|k| {
            if cells[k] > 0 {
                c[k].rem_euclid(cells[k])
            } else {
                c[k]
            }
        })
    };
    let key = |p: [f64; 3]| {
        wrap(std::array::from_fn(|k| {
            ((p[k] - domain.min[k]) / size[k]).floor() as i64
        }))
    };
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for &i in &idx {
        grid.entry(key(particles[i].position)).or_default().push(i);
    }
    let mut out = Vec::new();
    let mut near: Vec<[i64; 3]> = Vec::with_capacity(27);
    for &i in &idx {
        let (a, c) = (&particles[i], key(particles[i].position));
        // the 27 cells around (fewer where a periodic axis has < 3)
        near.clear();
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let n = wrap([c[0] + dx, c[1] + dy, c[2] + dz]);
                    if !near.contains(&n) {
                        near.push(n);
                    }
                }
            }
        }
        for n in &near {
            let Some(cands) = grid.get(n) else {
                continue;
            };
            for &j in cands {
                if j <= i {
                    continue;
                }
                let b = &particles[j];
                let d = (0..3)
                    .map(|k| {
                        let mut x = a.position[k] - b.position[k];
                        if domain.periodic[k] {
                            x -= len[k] * (x / len[k]).round();
                        }
                        x * x
                    })
                    .sum::<f64>()
                    .sqrt();
                if d - a.radius - b.radius < spec.gap && pair_ok(a, b) {
                    out.push((i, j, d));
                }
            }
        }
    }
    out.sort_by_key(|x| (x.0, x.1));
    out
}

/// The step whose start forms the bonds of an entry with `at` (s), for a
/// step `dt`: the first step n with n dt ≥ at (an `at` that is a whole
/// number of steps up to rounding is that step).
pub fn form_step(at: f64, dt: f64) -> u64 {
    let x = at / dt;
    let n = x.round();
    if (n - x).abs() <= 1e-9 * x.max(1.0) {
        n as u64
    } else {
        x.ceil() as u64
    }
}

/// The stiffest bond of a scene's bonds formed at t = 0 and the step it
/// allows (`talus check`, `dt = "auto"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BondStep {
    /// Bonds formed at t = 0 (entries with `at = 0`), pairs counted once
    /// per entry that bonds them.
    pub formed: usize,
    /// The most bonds a sphere has.
    pub most_bonds: usize,
    /// A bound on the fastest oscillation (1/s): per bond, the largest
    /// √(k/m) of four springs on what each moves (the axial k̄_n A on the
    /// pair's reduced mass, the shear k̄_s A on the reduced mass at the
    /// bond's disc, the spheres' spin counted: 1/m_t = Σ 1/m + a²/I, a
    /// the arm; the bending k̄_n I and the twisting k̄_s J on the reduced
    /// moment of inertia), times √z, z the most bonds either sphere has:
    /// a sphere's z springs add up, and Gershgorin's bound on the bonded
    /// structure's highest mode is √z times one bond's (a chain's, z = 2,
    /// is reached: ω² = 4k/m).
    pub rate: f64,
    /// The explicit step's stability limit (s) for that fastest mode,
    /// damped: 2/ω (√(1 + ζ²) − ζ), ζ the bond's damping on that motion
    /// times √z as well (the dashpots add up as the springs do; a bond's
    /// damping c = 2 ζ √(m* k) meets the smaller m_t in shear: ζ √(m*/m_t)
    /// there). `timestep` keeps half of it (`Estimate::bond_limit`).
    pub critical: f64,
}

/// The bonds `scene` forms at t = 0 and their stiffest oscillation; None
/// without bonds at t = 0.
pub fn at_start(scene: &Scene) -> Option<BondStep> {
    let (mut rate, mut critical) = (0.0f64, f64::INFINITY);
    let formed: Vec<(&BondSpec, BondPair)> = scene
        .bonds
        .iter()
        .filter(|b| b.at == 0.0)
        .flat_map(|spec| pairs(spec, scene).into_iter().map(move |p| (spec, p)))
        .collect();
    if !scene.bonds.iter().any(|b| b.at == 0.0) {
        return None;
    }
    // each sphere's bonds
    let mut bonds_of = vec![0usize; scene.particles.len()];
    for (_, (i, j, _)) in &formed {
        bonds_of[*i] += 1;
        bonds_of[*j] += 1;
    }
    for &(spec, (i, j, l)) in &formed {
        let (a, b) = (&scene.particles[i], &scene.particles[j]);
        let mass = |p: &ParticleInit| {
            scene.materials[p.material].density * 4.0 / 3.0 * PI * p.radius.powi(3)
        };
        let (ma, mb) = (mass(a), mass(b));
        let m_star = ma * mb / (ma + mb);
        let (ia, ib) = (0.4 * ma * a.radius.powi(2), 0.4 * mb * b.radius.powi(2));
        let i_star = ia * ib / (ia + ib);
        // the arms to the disc midway into the gap
        let gap = l - a.radius - b.radius;
        let (aa, ab) = (a.radius + 0.5 * gap, b.radius + 0.5 * gap);
        let m_t = 1.0 / (1.0 / ma + 1.0 / mb + aa * aa / ia + ab * ab / ib);
        let rb = spec.radius_ratio * a.radius.min(b.radius);
        let (area, i2, j2) = section(rb);
        let kn = spec.youngs_modulus / l;
        let ks = kn / spec.stiffness_ratio;
        let c = (bonds_of[i].max(bonds_of[j]) as f64).sqrt();
        // (k, the mass it moves, the mass its damping was sized for)
        for (k, m, m_c) in [
            (kn * area, m_star, m_star),
            (ks * area, m_t, m_star),
            (kn * i2, i_star, i_star),
            (ks * j2, i_star, i_star),
        ] {
            let w = c * (k / m).sqrt();
            let ze = c * spec.damping * (m_c / m).sqrt();
            rate = rate.max(w);
            critical = critical.min(2.0 / w * ((1.0 + ze * ze).sqrt() - ze));
        }
    }
    Some(BondStep {
        formed: formed.len(),
        most_bonds: bonds_of.iter().copied().max().unwrap_or(0),
        rate,
        critical,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Material, SceneBuilder};

    /// Touching pairs of rock (gap 1 µm) bond, unbreakable, undamped.
    fn rock_spec() -> BondSpec {
        BondSpec {
            pairs: BondPairs::Materials([0, 0]),
            at: 0.0,
            gap: 1e-6,
            radius_ratio: 1.0,
            youngs_modulus: 1e9,
            stiffness_ratio: 2.5,
            tensile_strength: None,
            shear_strength: None,
            damping: 0.0,
        }
    }

    /// A ring of touching spheres along a periodic axis closes across the
    /// boundary (the pair measured by its nearest image), and a box only
    /// two cells across finds each pair once.
    #[test]
    fn a_ring_closes_across_a_periodic_boundary() {
        let r = 1e-3;
        let ring = |n: usize, periodic: bool| {
            let mut b = SceneBuilder::new("ring")
                .domain([0.0; 3], [2.0 * r * n as f64, 0.01, 0.01])
                .steps(1)
                .material(Material::new("rock", 2500.0, 1e8));
            for k in 0..n {
                b = b.particle([r + 2.0 * r * k as f64, 0.005, 0.005], [0.0; 3], r, "rock");
            }
            let mut s = b.build_unchecked();
            s.domain.periodic = [periodic, false, false];
            s
        };
        let spec = rock_spec();
        let open = pairs(&spec, &ring(10, false));
        assert_eq!(open.len(), 9);
        let closed = pairs(&spec, &ring(10, true));
        assert_eq!(closed.len(), 10);
        assert!(closed.contains(&(0, 9, closed[1].2)));
        assert!(
            closed.iter().all(|x| (x.2 - 2.0 * r).abs() < 1e-15),
            "{closed:?}"
        );
        // three spheres around a box two cells wide: each pair once
        let three = pairs(&spec, &ring(3, true));
        assert_eq!(
            three.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(),
            vec![(0, 1), (0, 2), (1, 2)]
        );
    }

    /// A chain of touching spheres and a stray: the chain's neighbours bond
    /// (gap 1e-6 m), the stray does not; the region form takes only pairs
    /// with both centres inside; the fastest rate is the shear spring's at the disc, and damping
    /// shortens the step it allows.
    #[test]
    fn touching_neighbours_bond_and_the_rate_follows() {
        let r = 1e-3;
        let mut b = SceneBuilder::new("chain")
            .domain([0.0; 3], [0.02, 0.01, 0.01])
            .steps(1)
            .material(Material::new("rock", 2500.0, 1e8));
        for k in 0..5 {
            b = b.particle([r + 2.0 * r * k as f64, 0.005, 0.005], [0.0; 3], r, "rock");
        }
        b = b.particle([0.018, 0.005, 0.005], [0.0; 3], r, "rock");
        let mut s = b.build_unchecked();
        let spec = rock_spec();
        let p = pairs(&spec, &s);
        assert_eq!(
            p.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(),
            vec![(0, 1), (1, 2), (2, 3), (3, 4)]
        );
        assert!(p.iter().all(|x| (x.2 - 2.0 * r).abs() < 1e-15));
        let region = BondSpec {
            pairs: BondPairs::Region(crate::scene::Region::Box {
                min: [0.0; 3],
                max: [0.0055, 0.01, 0.01],
            }),
            ..spec
        };
        assert_eq!(pairs(&region, &s).len(), 2);
        s.bonds = vec![spec];
        let st = at_start(&s).unwrap();
        assert_eq!(st.formed, 4);
        let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let axial = (1e9 / (2.0 * r) * std::f64::consts::PI * r * r / (0.5 * m)).sqrt();
        // the shear spring at the disc moves m_t = m / 7 (1/m_t = 2/m +
        // 2 r²/(0.4 m r²)) with k̄_s A = k̄_n A / 2.5: √(7/(2 × 2.5)) =
        // √1.4 × the axial rate, the fastest of the four; the chain's
        // inner spheres have two bonds: √2 times that
        assert_eq!(st.most_bonds, 2);
        let shear = axial * 1.4f64.sqrt() * 2f64.sqrt();
        assert!((st.rate / shear - 1.0).abs() < 1e-12, "{st:?} {shear}");
        assert!((st.critical * st.rate / 2.0 - 1.0).abs() < 1e-12);
        // damped: 2/ω (√(1 + ζ²) − ζ), ζ = 0.7 √(m*/m_t) √2 = 0.7 √7 in
        // shear
        s.bonds[0].damping = 0.7;
        let st = at_start(&s).unwrap();
        let ze = 0.7 * 7f64.sqrt();
        let want = 2.0 / shear * ((1.0 + ze * ze).sqrt() - ze);
        assert!((st.critical / want - 1.0).abs() < 1e-12, "{st:?} {want}");
    }
}
