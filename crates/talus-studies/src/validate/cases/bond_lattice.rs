//! The linear statics and the slowest mode of a network of bonded
//! spheres, written out from the parallel bond's springs (Potyondy &
//! Cundall 2004) for the bond cases: the reference a bonded structure's
//! small motions must reach, computed without the engine.
//!
//! A bond between a and b (centres L apart along the unit n from a to b)
//! is a disc of radius R̄ midway into the gap between the surfaces, on
//! arms a_a = r_a + g/2 and a_b = r_b + g/2 (g = L − r_a − r_b) from the
//! centres. For small translations u and rotations θ of the spheres the
//! disc's two faces part by
//!
//! Δu = (u_b + θ_b × (−a_b n)) − (u_a + θ_a × (a_a n))
//!    = u_b − u_a + a_b n × θ_b + a_a n × θ_a,
//!
//! and turn by Δθ = θ_b − θ_a. Six springs hold them: the axial k̄_n A on
//! n·Δu, the shear k̄_s A on each of the two components of Δu ⊥ n, the
//! twisting k̄_s J on n·Δθ and the bending k̄_n I on each component of Δθ
//! ⊥ n (k̄_n = E/L, k̄_s = k̄_n / stiffness ratio, A = π R̄², I = π R̄⁴/4,
//! J = 2I). Each spring k on a strain e = bᵀ q (q the twelve
//! displacements and rotations of a and b) adds k b bᵀ to the stiffness
//! matrix; the spheres held by `[[fixed]]` are taken out. The static
//! displacements under gravity solve K q = f (f: m g on each free
//! sphere's translation), by Cholesky; the slowest mode solves K φ = ω² M
//! φ (M: each sphere's mass on its translations, 2/5 m r² on its
//! rotations), by inverse iteration from the static shape.

use std::f64::consts::PI;

/// A bond of the network: its spheres, n, the arms and the six springs.
#[derive(Debug, Clone, Copy)]
pub struct Link {
    pub a: usize,
    pub b: usize,
    pub n: [f64; 3],
    pub arm_a: f64,
    pub arm_b: f64,
    /// R̄ (m).
    pub radius: f64,
    /// k̄_n A, k̄_s A, k̄_s J, k̄_n I.
    pub axial: f64,
    pub shear: f64,
    pub twist: f64,
    pub bend: f64,
}

/// Spheres (radius, mass, held) and the bonds between them.
#[derive(Debug, Clone, Default)]
pub struct Lattice {
    pub r: Vec<f64>,
    pub mass: Vec<f64>,
    pub held: Vec<bool>,
    pub links: Vec<Link>,
}

/// What the bonds are made of: E (Pa), k̄_n/k̄_s, R̄ over the smaller
/// radius, and the surface gap below which a pair bonds (m).
#[derive(Debug, Clone, Copy)]
pub struct BondMake {
    pub youngs: f64,
    pub stiffness_ratio: f64,
    pub radius_ratio: f64,
    pub gap: f64,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn unit(a: [f64; 3]) -> [f64; 3] {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// Two unit vectors that make an orthonormal frame with n.
fn frame(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let helper = if n[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let t1 = unit(cross(n, helper));
    (t1, cross(n, t1))
}

impl Lattice {
    /// Spheres of density `rho` at `x` with radii `r` (held where
    /// `held`), every pair whose surfaces are closer than `make.gap`
    /// bonded (as `[[bonds]]` with `at = 0` forms them).
    pub fn new(x: Vec<[f64; 3]>, r: Vec<f64>, held: Vec<bool>, rho: f64, make: BondMake) -> Self {
        let mass = r.iter().map(|r| rho * 4.0 / 3.0 * PI * r.powi(3)).collect();
        let mut links = Vec::new();
        for a in 0..x.len() {
            for b in a + 1..x.len() {
                let d = sub(x[b], x[a]);
                let l = dot(d, d).sqrt();
                let gap = l - r[a] - r[b];
                if gap >= make.gap {
                    continue;
                }
                let rb = make.radius_ratio * r[a].min(r[b]);
                let (area, i2) = (PI * rb * rb, 0.25 * PI * rb.powi(4));
                let kn = make.youngs / l;
                let ks = kn / make.stiffness_ratio;
                links.push(Link {
                    a,
                    b,
                    n: unit(d),
                    arm_a: r[a] + 0.5 * gap,
                    arm_b: r[b] + 0.5 * gap,
                    radius: rb,
                    axial: kn * area,
                    shear: ks * area,
                    twist: ks * 2.0 * i2,
                    bend: kn * i2,
                });
            }
        }
        Lattice {
            r,
            mass,
            held,
            links,
        }
    }

    /// Each sphere's first unknown (six: u, θ), None for a held one; and
    /// how many unknowns.
    fn dofs(&self) -> (Vec<Option<usize>>, usize) {
        let mut n = 0;
        let map = self
            .held
            .iter()
            .map(|&h| {
                (!h).then(|| {
                    n += 6;
                    n - 6
                })
            })
            .collect();
        (map, n)
    }

    /// The stiffness matrix over the free spheres' unknowns.
    fn stiffness(&self) -> Sym {
        let (map, n) = self.dofs();
        let mut k = Sym::zeros(n);
        for l in &self.links {
            let (t1, t2) = frame(l.n);
            // the strain rows: (k, ∂e/∂(u_a, θ_a, u_b, θ_b))
            // (n × θ)·v = θ·(v × n)
            let disp = |v: [f64; 3]| -> [[f64; 3]; 4] {
                let m = cross(v, l.n);
                [
                    [-v[0], -v[1], -v[2]],
                    [l.arm_a * m[0], l.arm_a * m[1], l.arm_a * m[2]],
                    v,
                    [l.arm_b * m[0], l.arm_b * m[1], l.arm_b * m[2]],
                ]
            };
            let turn =
                |v: [f64; 3]| -> [[f64; 3]; 4] { [[0.0; 3], [-v[0], -v[1], -v[2]], [0.0; 3], v] };
            let rows = [
                (l.axial, disp(l.n)),
                (l.shear, disp(t1)),
                (l.shear, disp(t2)),
                (l.twist, turn(l.n)),
                (l.bend, turn(t1)),
                (l.bend, turn(t2)),
            ];
            let at = [
                map[l.a],
                map[l.a].map(|d| d + 3),
                map[l.b],
                map[l.b].map(|d| d + 3),
            ];
            for (kk, b) in rows {
                for p in 0..4 {
                    let Some(ip) = at[p] else { continue };
                    for q in 0..4 {
                        let Some(iq) = at[q] else { continue };
                        for i in 0..3 {
                            for j in 0..3 {
                                k.add(ip + i, iq + j, kk * b[p][i] * b[q][j]);
                            }
                        }
                    }
                }
            }
        }
        k
    }

    /// The displacement of every sphere (held: zero) under gravity `g`.
    pub fn statics(&self, g: [f64; 3]) -> Vec<[f64; 3]> {
        let loads: Vec<(usize, [f64; 3])> = (0..self.mass.len())
            .map(|i| (i, g.map(|g| self.mass[i] * g)))
            .collect();
        self.solve(&loads)
            .iter()
            .map(|q| [q[0], q[1], q[2]])
            .collect()
    }

    /// The displacement and rotation (u, θ) of every sphere (held: zero)
    /// under the forces `loads` (sphere, force; on a held sphere: none).
    pub fn solve(&self, loads: &[(usize, [f64; 3])]) -> Vec<[f64; 6]> {
        let (map, n) = self.dofs();
        let mut f = vec![0.0; n];
        for &(i, force) in loads {
            if let Some(d) = map[i] {
                for k in 0..3 {
                    f[d + k] += force[k];
                }
            }
        }
        let u = self.stiffness().cholesky().solve(&f);
        map.iter()
            .map(|d| d.map_or([0.0; 6], |d| std::array::from_fn(|k| u[d + k])))
            .collect()
    }

    /// Each bond's largest tensile and shear stress under the motion `q`
    /// (`solve`): σ = F_n/A + |M_b| R̄/I and τ = |F_s|/A + |M_t| R̄/J,
    /// what the law compares with the strengths.
    pub fn stresses(&self, q: &[[f64; 6]]) -> Vec<(f64, f64)> {
        self.links
            .iter()
            .map(|l| {
                let part = |q: &[f64; 6]| ([q[0], q[1], q[2]], [q[3], q[4], q[5]]);
                let ((ua, ta), (ub, tb)) = (part(&q[l.a]), part(&q[l.b]));
                let (na, nb) = (cross(l.n, ta), cross(l.n, tb));
                let du: [f64; 3] =
                    std::array::from_fn(|k| ub[k] - ua[k] + l.arm_b * nb[k] + l.arm_a * na[k]);
                let dt = sub(tb, ta);
                let (un, tn) = (dot(du, l.n), dot(dt, l.n));
                let ut = sub(du, l.n.map(|c| c * un));
                let tt = sub(dt, l.n.map(|c| c * tn));
                let (area, i2) = (PI * l.radius * l.radius, 0.25 * PI * l.radius.powi(4));
                let sigma = l.axial * un / area + l.bend * dot(tt, tt).sqrt() * l.radius / i2;
                let tau = l.shear * dot(ut, ut).sqrt() / area
                    + l.twist * tn.abs() * l.radius / (2.0 * i2);
                (sigma, tau)
            })
            .collect()
    }

    /// The slowest mode's angular frequency ω (rad/s), by inverse
    /// iteration from the static shape under `g` (a shape of the mode
    /// family gravity excites: the bending in g's plane), to a relative
    /// change of ω below 10⁻¹². Without `rotary`, the spheres' moments of
    /// inertia are left out (point masses: what they add to the period).
    pub fn slowest(&self, g: [f64; 3], rotary: bool) -> f64 {
        let spin = if rotary { 0.4 } else { 0.0 };
        let (map, n) = self.dofs();
        let mut m = vec![0.0; n];
        for (i, d) in map.iter().enumerate() {
            if let Some(d) = d {
                for k in 0..3 {
                    m[d + k] = self.mass[i];
                    m[d + 3 + k] = spin * self.mass[i] * self.r[i] * self.r[i];
                }
            }
        }
        let k = self.stiffness().cholesky();
        let mut f = vec![0.0; n];
        for (i, d) in map.iter().enumerate() {
            if let Some(d) = d {
                for c in 0..3 {
                    f[d + c] = self.mass[i] * g[c];
                }
            }
        }
        let mut x = k.solve(&f);
        let mut omega2 = 0.0;
        for _ in 0..200 {
            let mx: Vec<f64> = x.iter().zip(&m).map(|(a, b)| a * b).collect();
            let y = k.solve(&mx);
            // Rayleigh quotient xᵀ M x / xᵀ M y = ω² (K y = M x)
            let num: f64 = x.iter().zip(&mx).map(|(a, b)| a * b).sum();
            let den: f64 = y.iter().zip(&mx).map(|(a, b)| a * b).sum();
            let w2 = num / den;
            let norm = y.iter().map(|v| v * v).sum::<f64>().sqrt();
            x = y.iter().map(|v| v / norm).collect();
            if (w2 - omega2).abs() < 1e-12 * w2 {
                omega2 = w2;
                break;
            }
            omega2 = w2;
        }
        omega2.sqrt()
    }
}

/// The pieces `n` spheres make when held together by the intact bonds of
/// `table` (connected components; a sphere no intact bond holds is a
/// piece): their sizes, largest first. Ids are the spheres' indices.
pub fn pieces(n: usize, table: &talus::bonds::table::Bonds) -> Vec<usize> {
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut parent: Vec<usize> = (0..n).collect();
    for (ids, st) in table.ids.iter().zip(&table.status) {
        if *st != talus::bonds::table::Status::Intact {
            continue;
        }
        let (a, b) = (ids[0] as usize, ids[1] as usize);
        if a < n && b < n {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut size = vec![0usize; n];
    for i in 0..n {
        let r = root(&mut parent, i);
        size[r] += 1;
    }
    let mut out: Vec<usize> = size.into_iter().filter(|&s| s > 0).collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}

/// A symmetric matrix (full storage) and its Cholesky factor, which
/// keeps the matrix's envelope: row i's first non-zero column `first[i]`
/// (a chain or bundle numbered layer by layer is banded, so the factor
/// costs n b², b the band, not n³/3).
struct Sym {
    n: usize,
    a: Vec<f64>,
    first: Vec<usize>,
}

impl Sym {
    fn zeros(n: usize) -> Sym {
        Sym {
            n,
            a: vec![0.0; n * n],
            first: (0..n).collect(),
        }
    }
    fn add(&mut self, i: usize, j: usize, v: f64) {
        self.a[i * self.n + j] += v;
        self.first[i] = self.first[i].min(j);
    }
    /// L with L Lᵀ = self (lower triangle); panics on a matrix that is not
    /// positive definite (a sphere no bond holds).
    fn cholesky(mut self) -> Sym {
        let n = self.n;
        for j in 0..n {
            let mut d = self.a[j * n + j];
            for k in self.first[j]..j {
                d -= self.a[j * n + k] * self.a[j * n + k];
            }
            assert!(d > 0.0, "the bonded network is not held (unknown {j})");
            let d = d.sqrt();
            self.a[j * n + j] = d;
            for i in j + 1..n {
                if self.first[i] > j {
                    continue;
                }
                let mut s = self.a[i * n + j];
                for k in self.first[i].max(self.first[j])..j {
                    s -= self.a[i * n + k] * self.a[j * n + k];
                }
                self.a[i * n + j] = s / d;
            }
        }
        self
    }
    /// Solves L Lᵀ x = b with the factor.
    fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut y = b.to_vec();
        for i in 0..n {
            for k in self.first[i]..i {
                y[i] -= self.a[i * n + k] * y[k];
            }
            y[i] /= self.a[i * n + i];
        }
        for i in (0..n).rev() {
            y[i] /= self.a[i * n + i];
            for k in self.first[i]..i {
                y[k] -= self.a[i * n + k] * y[i];
            }
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAKE: BondMake = BondMake {
        youngs: 1e8,
        stiffness_ratio: 2.5,
        radius_ratio: 1.0,
        gap: 1e-6,
    };

    /// One free sphere on one bond to a held one (along x, gravity −z),
    /// by hand: the disc carries the weight V = m g at the free sphere's
    /// arm a, so the shear spring slides V / k_s and the bending spring
    /// turns by M / k_b with M = V a; the centre drops by the slide plus a
    /// × the turn.
    #[test]
    fn one_bond_cantilever_by_hand() {
        let (r, gap) = (1e-3, 1e-7);
        let l = 2.0 * r + gap;
        let lat = Lattice::new(
            vec![[0.0; 3], [l, 0.0, 0.0]],
            vec![r, r],
            vec![true, false],
            2500.0,
            MAKE,
        );
        let m = lat.mass[1];
        let g = 9.81;
        let u = lat.statics([0.0, 0.0, -g]);
        let lk = lat.links[0];
        let a = lk.arm_b;
        let want = m * g * (1.0 / lk.shear + a * a / lk.bend);
        assert!(
            (-u[1][2] / want - 1.0).abs() < 1e-12,
            "{} vs {want}",
            -u[1][2]
        );
        assert_eq!(u[0], [0.0; 3]);
        // the bond's stresses: M = V a on the bending spring, V on the shear
        let q = lat.solve(&[(1, [0.0, 0.0, -m * g])]);
        let (sigma, tau) = lat.stresses(&q)[0];
        let (area, i2) = (PI * r * r, 0.25 * PI * r.powi(4));
        assert!(
            (sigma / (m * g * a * r / i2) - 1.0).abs() < 1e-12,
            "{sigma}"
        );
        assert!((tau / (m * g / area) - 1.0).abs() < 1e-12, "{tau}");
        assert!(u[1][0].abs() < 1e-18 && u[1][1].abs() < 1e-18);
    }

    /// Pieces: a chain of five with its middle bond broken is two pieces
    /// of 2 and 3; a sixth sphere alone is a third.
    #[test]
    fn pieces_are_connected_components() {
        let mut t = talus::bonds::table::Bonds::default();
        for k in 0..4u32 {
            t.push([k, k + 1], 0, 1.0, 1.0);
        }
        t.status[1] = talus::bonds::table::Status::Tension;
        assert_eq!(pieces(6, &t), vec![3, 2, 1]);
    }

    /// A long chain tends to Euler–Bernoulli: tip under point loads
    /// Σ P a²(3l − a)/(6EI), and f1 = 1.875²/(2π) √(EI/(μ l⁴)) as the
    /// spheres grow many (a 100-bond chain within 0.5 %).
    #[test]
    fn a_long_chain_is_a_beam() {
        let (r, gap, n) = (1e-3, 1e-7, 100);
        let l = 2.0 * r + gap;
        let lat = Lattice::new(
            (0..=n).map(|i| [i as f64 * l, 0.0, 0.0]).collect(),
            vec![r; n + 1],
            (0..=n).map(|i| i == 0).collect(),
            2500.0,
            MAKE,
        );
        let g = 9.81;
        let p = lat.mass[0] * g;
        let ei = MAKE.youngs * 0.25 * PI * r.powi(4);
        let len = n as f64 * l;
        let want: f64 = (1..=n)
            .map(|i| {
                let a = i as f64 * l;
                p * a * a * (3.0 * len - a) / (6.0 * ei)
            })
            .sum();
        let u = lat.statics([0.0, 0.0, -g]);
        assert!((-u[n][2] / want - 1.0).abs() < 5e-3, "{} {want}", -u[n][2]);
        let mu = lat.mass[0] / l;
        let f1 = 1.875104f64.powi(2) / (2.0 * PI) * (ei / (mu * len.powi(4))).sqrt();
        // the spheres' masses sit at the nodes, the tip's at the free
        // end: to first order (Rayleigh) the mass moves out by L/2, adding
        // (L/2) φ(l)² / ∫φ² = 2/N of the modal mass (∫₀ˡ φ² = l φ(l)²/4
        // for the first mode): f lower by 1/N
        let f = lat.slowest([0.0, 0.0, -g], true) / (2.0 * PI);
        let shift = f / f1 - 1.0 + 1.0 / n as f64;
        assert!(shift.abs() < 0.1 / n as f64, "{f} {f1}");
    }
}
