//! Which pairs a `[[bonds]]` entry bonds among given spheres: both of its
//! materials (either order) or both centres in its region, surfaces closer
//! than its `gap` (overlapping pairs too). A clump's members are not
//! bonded. Found through a grid of cells one largest diameter plus the gap
//! wide, so the cost is linear in the spheres. What `talus check` reports
//! at t = 0, and how a run will form its bonds at `at`.

use crate::scene::types::{BondPairs, BondSpec, ParticleInit, Scene};
use std::collections::HashMap;

/// A pair to bond: the two spheres' indices (i < j) and their centres'
/// distance L (m).
pub type BondPair = (usize, usize, f64);

/// The pairs `spec` bonds among `particles` (materials as indices into
/// the scene's), in (i, j) order.
pub fn pairs(spec: &BondSpec, particles: &[ParticleInit]) -> Vec<BondPair> {
    let takes = |p: &ParticleInit| {
        p.shape.is_none()
            && match &spec.pairs {
                BondPairs::Materials(m) => m.contains(&p.material),
                BondPairs::Region(r) => r.contains(p.position),
            }
    };
    let pair_ok = |a: &ParticleInit, b: &ParticleInit| match &spec.pairs {
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
    let cell = 2.0 * r_max + spec.gap;
    let key = |p: [f64; 3]| p.map(|x| (x / cell).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for &i in &idx {
        grid.entry(key(particles[i].position)).or_default().push(i);
    }
    let mut out = Vec::new();
    for &i in &idx {
        let (a, c) = (&particles[i], key(particles[i].position));
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(cands) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) else {
                        continue;
                    };
                    for &j in cands {
                        if j <= i {
                            continue;
                        }
                        let b = &particles[j];
                        let d = (0..3)
                            .map(|k| (a.position[k] - b.position[k]).powi(2))
                            .sum::<f64>()
                            .sqrt();
                        if d - a.radius - b.radius < spec.gap && pair_ok(a, b) {
                            out.push((i, j, d));
                        }
                    }
                }
            }
        }
    }
    out.sort_by_key(|x| (x.0, x.1));
    out
}

/// The stiffest bond of a scene's bonds formed at t = 0 and the step it
/// allows (`talus check`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BondStep {
    /// Bonds formed at t = 0 (entries with `at = 0`), pairs counted once
    /// per entry that bonds them.
    pub formed: usize,
    /// The largest √(k/m*) over them (1/s): the axial spring k̄_n A on
    /// the pair's reduced mass, the bending spring k̄_n I on its reduced
    /// moment of inertia, whichever is faster.
    pub rate: f64,
    /// 2 / rate (s): the explicit step's stability limit for that
    /// oscillator alone (a chain's highest mode is up to twice as fast).
    pub critical: f64,
}

/// The bonds `scene` forms at t = 0 and their stiffest oscillation; None
/// without bonds at t = 0.
pub fn at_start(scene: &Scene) -> Option<BondStep> {
    let (mut formed, mut rate) = (0, 0.0f64);
    let mut any = false;
    for spec in scene.bonds.iter().filter(|b| b.at == 0.0) {
        any = true;
        for (i, j, l) in pairs(spec, &scene.particles) {
            formed += 1;
            let (a, b) = (&scene.particles[i], &scene.particles[j]);
            let mass = |p: &ParticleInit| {
                scene.materials[p.material].density * 4.0 / 3.0
                    * std::f64::consts::PI
                    * p.radius.powi(3)
            };
            let (ma, mb) = (mass(a), mass(b));
            let m_star = ma * mb / (ma + mb);
            let (ia, ib) = (0.4 * ma * a.radius.powi(2), 0.4 * mb * b.radius.powi(2));
            let i_star = ia * ib / (ia + ib);
            let rb = spec.radius_ratio * a.radius.min(b.radius);
            let (area, i2, _) = super::law::section(rb);
            let kn = spec.youngs_modulus / l;
            rate = rate
                .max((kn * area / m_star).sqrt())
                .max((kn * i2 / i_star).sqrt());
        }
    }
    any.then(|| BondStep {
        formed,
        rate,
        critical: if rate > 0.0 {
            2.0 / rate
        } else {
            f64::INFINITY
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Material, SceneBuilder};

    /// A chain of touching spheres and a stray: the chain's neighbours bond
    /// (gap 1e-6 m), the stray does not; the region form takes only pairs
    /// with both centres inside; the axial rate is √(E A / (L m*)).
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
        let spec = BondSpec {
            pairs: BondPairs::Materials([0, 0]),
            at: 0.0,
            gap: 1e-6,
            radius_ratio: 1.0,
            youngs_modulus: 1e9,
            stiffness_ratio: 2.5,
            tensile_strength: None,
            shear_strength: None,
            damping: 0.0,
        };
        let p = pairs(&spec, &s.particles);
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
        assert_eq!(pairs(&region, &s.particles).len(), 2);
        s.bonds = vec![spec];
        let st = at_start(&s).unwrap();
        assert_eq!(st.formed, 4);
        let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let axial = (1e9 / (2.0 * r) * std::f64::consts::PI * r * r / (0.5 * m)).sqrt();
        // (the bending spring on the pair's inertia is slower here:
        // k̄_n I / I* = (E/L)(π r⁴/4) / (0.2 m r²) = 0.625 × the axial's)
        assert!((st.rate / axial - 1.0).abs() < 1e-12, "{st:?} {axial}");
        assert_eq!(st.critical, 2.0 / st.rate);
    }
}
