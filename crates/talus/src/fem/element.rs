//! Tetrahedral elements: reference shape-function gradients per quadrature
//! point, lumped masses, the explicit stable step, and the per-element
//! internal forces, strain energy and stress of both constitutive models.
//!
//! Tet4 uses one quadrature point (constant strain). Tet10 uses the
//! standard 4-point degree-2 rule (barycentric points (a,b,b,b) and
//! permutations, a = (5+3√5)/20, b = (5−√5)/20, weight ¼ of the volume),
//! exact for the stiffness of a straight-sided quadratic tetrahedron.
//! Gradients dN/dX and weights w·detJ (m³) are taken in the reference
//! configuration once.

use glam::{DMat3, DVec3};
use rayon::prelude::*;

use super::material::{energy_density, green_strain, hooke, sym, von_mises, FemMaterial, Model};
use super::mesh::{
    corner_volume, outer, tet10_dshape, tet4_dshape, MeshError, Order, TetMesh, FACES,
};

/// Barycentric coordinates of the 4-point degree-2 rule.
fn gauss4() -> [[f64; 4]; 4] {
    let a = (5.0 + 3.0 * 5f64.sqrt()) / 20.0;
    let b = (5.0 - 5f64.sqrt()) / 20.0;
    [[a, b, b, b], [b, a, b, b], [b, b, a, b], [b, b, b, a]]
}

/// Precomputed element data of a mesh in its reference configuration.
#[derive(Debug, Clone)]
pub struct Elements {
    /// Nodes per element (4 or 10).
    pub nn: usize,
    /// Quadrature points per element (1 or 4).
    pub nq: usize,
    /// Element connectivity (first `nn` entries used).
    pub conn: Vec<[u32; 10]>,
    /// dN_a/dX (1/m), index `(e * nq + q) * nn + a`.
    pub grads: Vec<DVec3>,
    /// Quadrature weight × detJ (m³), index `e * nq + q`.
    pub wdet: Vec<f64>,
    /// Reference node positions (m).
    pub reference: Vec<DVec3>,
    /// Node → (element, local node) incidence, CSR: entries of node `n`
    /// are `inc[inc_start[n]..inc_start[n + 1]]`, in increasing element
    /// order (the fixed gather order that keeps sums deterministic).
    pub inc_start: Vec<usize>,
    /// Incidence entries (element, local node index).
    pub inc: Vec<(u32, u8)>,
}

/// Output of one element's force evaluation.
#[derive(Debug, Clone, Copy)]
pub struct ElementForce {
    /// Internal (elastic) nodal forces ∂U/∂x (N), per local node.
    pub elastic: [DVec3; 10],
    /// Viscous (Rayleigh β, Kelvin–Voigt) nodal forces (N), resisting.
    pub viscous: [DVec3; 10],
    /// Strain energy of the element (J).
    pub energy: f64,
}

impl Elements {
    /// Precomputes gradients and weights of every element; fails on an
    /// element whose Jacobian is not positive at a quadrature point.
    pub fn new(mesh: &TetMesh) -> Result<Elements, MeshError> {
        let nn = mesh.order.nodes_per_element();
        let nq = match mesh.order {
            Order::Linear => 1,
            Order::Quadratic => 4,
        };
        type PerElement = Result<(Vec<DVec3>, Vec<f64>), MeshError>;
        let per: Vec<PerElement> = (0..mesh.tets.len())
            .into_par_iter()
            .map(|e| {
                let t = &mesh.tets[e];
                let x: Vec<DVec3> = (0..nn).map(|a| mesh.nodes[t[a] as usize]).collect();
                let mut g = Vec::with_capacity(nq * nn);
                let mut w = Vec::with_capacity(nq);
                let points: Vec<([f64; 4], f64)> = match mesh.order {
                    Order::Linear => vec![([0.25; 4], 1.0 / 6.0)],
                    Order::Quadratic => gauss4().iter().map(|&l| (l, 1.0 / 24.0)).collect(),
                };
                for (l, weight) in points {
                    let ds: Vec<DVec3> = match mesh.order {
                        Order::Linear => tet4_dshape().to_vec(),
                        Order::Quadratic => tet10_dshape(l).to_vec(),
                    };
                    let mut j = DMat3::ZERO;
                    for a in 0..nn {
                        j += outer(x[a], ds[a]);
                    }
                    let det = j.determinant();
                    if det <= 0.0 || !det.is_finite() {
                        return Err(MeshError::Inverted {
                            element: e,
                            volume: corner_volume(mesh, e),
                        });
                    }
                    let jit = j.inverse().transpose();
                    for d in &ds {
                        g.push(jit * *d);
                    }
                    w.push(weight * det);
                }
                Ok((g, w))
            })
            .collect();
        let mut grads = Vec::with_capacity(mesh.tets.len() * nq * nn);
        let mut wdet = Vec::with_capacity(mesh.tets.len() * nq);
        for r in per {
            let (g, w) = r?;
            grads.extend(g);
            wdet.extend(w);
        }
        // Incidence CSR, element order within each node.
        let n = mesh.nodes.len();
        let mut count = vec![0usize; n + 1];
        for t in &mesh.tets {
            for &a in &t[..nn] {
                count[a as usize + 1] += 1;
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let inc_start = count.clone();
        let mut fill = count;
        let mut inc = vec![(0u32, 0u8); inc_start[n]];
        for (e, t) in mesh.tets.iter().enumerate() {
            for (a, &node) in t[..nn].iter().enumerate() {
                let s = &mut fill[node as usize];
                inc[*s] = (e as u32, a as u8);
                *s += 1;
            }
        }
        Ok(Elements {
            nn,
            nq,
            conn: mesh.tets.clone(),
            grads,
            wdet,
            reference: mesh.nodes.clone(),
            inc_start,
            inc,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.conn.len()
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.conn.is_empty()
    }

    /// Gradients dN/dX (1/m) of element `e` at quadrature point `q`.
    pub fn grad(&self, e: usize, q: usize) -> &[DVec3] {
        let s = (e * self.nq + q) * self.nn;
        &self.grads[s..s + self.nn]
    }

    /// Reference volume of element `e` (m³): the sum of its weights.
    pub fn volume(&self, e: usize) -> f64 {
        self.wdet[e * self.nq..(e + 1) * self.nq].iter().sum()
    }

    /// Displacement gradient H = Σ_a u_a ⊗ ∇N_a at (e, q) for nodal
    /// positions `x` (u = x − X; dimensionless).
    pub fn disp_grad(&self, e: usize, q: usize, x: &[DVec3]) -> DMat3 {
        let g = self.grad(e, q);
        let t = &self.conn[e];
        let mut h = DMat3::ZERO;
        for a in 0..self.nn {
            let n = t[a] as usize;
            h += outer(x[n] - self.reference[n], g[a]);
        }
        h
    }

    /// Velocity gradient Σ_a v_a ⊗ ∇N_a (= Ḟ, 1/s) at (e, q).
    pub fn vel_grad(&self, e: usize, q: usize, v: &[DVec3]) -> DMat3 {
        let g = self.grad(e, q);
        let t = &self.conn[e];
        let mut h = DMat3::ZERO;
        for a in 0..self.nn {
            h += outer(v[t[a] as usize], g[a]);
        }
        h
    }

    /// Lumped nodal masses (kg). Tet4: ρV/4 per corner. Tet10: HRZ
    /// lumping — the diagonal of the consistent mass matrix scaled so that
    /// it sums to the element mass; for a straight-sided tet10 the diagonal
    /// is ρV/70 (corner) and 8ρV/105 (mid-edge), which after scaling gives
    /// ρV/36 per corner and 4ρV/27 per mid-edge node (all positive; curved
    /// elements use the same fractions of their true volume).
    pub fn lumped_masses(&self, density: f64, nodes: usize) -> Vec<f64> {
        let frac: Vec<f64> = if self.nn == 4 {
            vec![0.25; 4]
        } else {
            let mut f = vec![1.0 / 36.0; 4];
            f.extend([4.0 / 27.0; 6]);
            f
        };
        let em: Vec<f64> = (0..self.len()).map(|e| density * self.volume(e)).collect();
        (0..nodes)
            .into_par_iter()
            .map(|n| {
                self.inc[self.inc_start[n]..self.inc_start[n + 1]]
                    .iter()
                    .map(|&(e, a)| em[e as usize] * frac[a as usize])
                    .sum()
            })
            .collect()
    }

    /// Explicit critical step (s) of element `e`: the smallest altitude of
    /// its corner tetrahedron (3V / largest face area; halved for tet10,
    /// whose node spacing is half) over the dilatational wave speed.
    pub fn critical_dt(&self, e: usize, wave_speed: f64) -> f64 {
        let t = &self.conn[e];
        let p = |i: usize| self.reference[t[i] as usize];
        let v = (p(1) - p(0)).dot((p(2) - p(0)).cross(p(3) - p(0))).abs() / 6.0;
        let amax = FACES
            .iter()
            .map(|f| 0.5 * (p(f[1]) - p(f[0])).cross(p(f[2]) - p(f[0])).length())
            .fold(0.0, f64::max);
        let mut h = 3.0 * v / amax;
        if self.nn == 10 {
            h *= 0.5;
        }
        h / wave_speed
    }

    /// Smallest critical step over all elements (s) and the element that
    /// sets it (lowest index on ties).
    pub fn min_critical_dt(&self, wave_speed: f64) -> (f64, usize) {
        let mut best = (f64::INFINITY, 0);
        for e in 0..self.len() {
            let dt = self.critical_dt(e, wave_speed);
            if dt < best.0 {
                best = (dt, e);
            }
        }
        best
    }

    /// Forces of element `e` at positions `x`: elastic internal forces
    /// (∂U/∂x, N), and with `v` the viscous forces of the Rayleigh β term
    /// as a Kelvin–Voigt stress β ℂ:Ė (Ė = sym(FᵀḞ) for StVK, sym(∇v) for
    /// the linear model), which equals βK₀v at the reference configuration,
    /// stays frame-invariant for StVK and always dissipates (power ≥ 0).
    /// `Err(e)` when det F ≤ 0 or a value is not finite at a quadrature
    /// point.
    pub fn forces(
        &self,
        e: usize,
        x: &[DVec3],
        v: Option<&[DVec3]>,
        mat: &FemMaterial,
        model: Model,
        beta: f64,
    ) -> Result<ElementForce, usize> {
        let mut out = ElementForce {
            elastic: [DVec3::ZERO; 10],
            viscous: [DVec3::ZERO; 10],
            energy: 0.0,
        };
        out.energy = self.forces_into(
            e,
            x,
            v,
            mat,
            model,
            beta,
            Some(&mut out.elastic[..]),
            &mut out.viscous[..],
        )?;
        Ok(out)
    }

    /// [`Elements::forces`] into caller buffers (the first `nn` entries of
    /// each are overwritten): the same arithmetic, without the copies.
    /// With `elastic` `None` only the viscous forces are computed, and
    /// neither the determinant nor the energy is checked (for positions
    /// already checked by an evaluation with `elastic`); the energy
    /// returned is then 0. The viscous forces are exact zeros when `v` is
    /// `None` or `beta` is 0 (the values [`Elements::forces`] gives).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn forces_into(
        &self,
        e: usize,
        x: &[DVec3],
        v: Option<&[DVec3]>,
        mat: &FemMaterial,
        model: Model,
        beta: f64,
        mut elastic: Option<&mut [DVec3]>,
        viscous: &mut [DVec3],
    ) -> Result<f64, usize> {
        let nn = self.nn;
        let (lambda, mu) = (mat.lambda(), mat.mu());
        if let Some(el) = elastic.as_deref_mut() {
            el[..nn].iter_mut().for_each(|f| *f = DVec3::ZERO);
        }
        viscous[..nn].iter_mut().for_each(|f| *f = DVec3::ZERO);
        let vel = match v {
            Some(v) if beta != 0.0 => Some(v),
            _ => None,
        };
        let want_elastic = elastic.is_some();
        let mut energy = 0.0;
        for q in 0..self.nq {
            let w = self.wdet[e * self.nq + q];
            let g = self.grad(e, q);
            let h = self.disp_grad(e, q, x);
            let f = DMat3::IDENTITY + h;
            if want_elastic {
                let det = f.determinant();
                if det <= 0.0 || !det.is_finite() {
                    return Err(e);
                }
            }
            match model {
                Model::Stvk => {
                    if let Some(el) = elastic.as_deref_mut() {
                        let strain = green_strain(h);
                        let p = f * hooke(lambda, mu, strain);
                        for (a, ga) in g.iter().enumerate() {
                            el[a] += w * (p * *ga);
                        }
                        energy += w * energy_density(lambda, mu, strain);
                    }
                    if let Some(v) = vel {
                        let fd = self.vel_grad(e, q, v);
                        let edot = sym(f.transpose() * fd);
                        let pv = f * (beta * hooke(lambda, mu, edot));
                        for (a, ga) in g.iter().enumerate() {
                            viscous[a] += w * (pv * *ga);
                        }
                    }
                }
                Model::Linear => {
                    if let Some(el) = elastic.as_deref_mut() {
                        let eps = sym(h);
                        let p = hooke(lambda, mu, eps);
                        for (a, ga) in g.iter().enumerate() {
                            el[a] += w * (p * *ga);
                        }
                        energy += w * energy_density(lambda, mu, eps);
                    }
                    if let Some(v) = vel {
                        let pv = beta * hooke(lambda, mu, sym(self.vel_grad(e, q, v)));
                        for (a, ga) in g.iter().enumerate() {
                            viscous[a] += w * (pv * *ga);
                        }
                    }
                }
            }
        }
        if want_elastic && !energy.is_finite() {
            return Err(e);
        }
        Ok(energy)
    }

    /// Strain energy of element `e` at positions `x` (J).
    pub fn energy(&self, e: usize, x: &[DVec3], mat: &FemMaterial, model: Model) -> f64 {
        let (lambda, mu) = (mat.lambda(), mat.mu());
        (0..self.nq)
            .map(|q| {
                let h = self.disp_grad(e, q, x);
                let strain = match model {
                    Model::Stvk => green_strain(h),
                    Model::Linear => sym(h),
                };
                self.wdet[e * self.nq + q] * energy_density(lambda, mu, strain)
            })
            .sum()
    }

    /// Von Mises stress of element `e` (Pa): the Cauchy stress
    /// σ = P Fᵀ / det F (StVK) or σ (linear) averaged over the quadrature
    /// points with their reference weights.
    pub fn von_mises(&self, e: usize, x: &[DVec3], mat: &FemMaterial, model: Model) -> f64 {
        let (lambda, mu) = (mat.lambda(), mat.mu());
        let mut sum = DMat3::ZERO;
        let mut wsum = 0.0;
        for q in 0..self.nq {
            let w = self.wdet[e * self.nq + q];
            let h = self.disp_grad(e, q, x);
            let sigma = match model {
                Model::Stvk => {
                    let f = DMat3::IDENTITY + h;
                    let s = hooke(lambda, mu, green_strain(h));
                    f * s * f.transpose() * (1.0 / f.determinant())
                }
                Model::Linear => hooke(lambda, mu, sym(h)),
            };
            sum += w * sigma;
            wsum += w;
        }
        von_mises(sum * (1.0 / wsum))
    }

    /// [`Elements::gather`] of flat local vectors (entry `e * nn + a`)
    /// into `out` (one per node), in the same order, so the same sums;
    /// over the nodes in parallel when `parallel`.
    pub(crate) fn gather_into(&self, local: &[DVec3], out: &mut [DVec3], parallel: bool) {
        let nn = self.nn;
        let sum = |n: usize| {
            let mut s = DVec3::ZERO;
            for &(e, a) in &self.inc[self.inc_start[n]..self.inc_start[n + 1]] {
                s += local[e as usize * nn + a as usize];
            }
            s
        };
        if parallel {
            out.par_iter_mut()
                .with_min_len(256)
                .enumerate()
                .for_each(|(n, o)| *o = sum(n));
        } else {
            for (n, o) in out.iter_mut().enumerate() {
                *o = sum(n);
            }
        }
    }

    /// Sums per-element local nodal vectors into per-node vectors in the
    /// fixed incidence order (deterministic regardless of threads).
    pub fn gather(&self, local: &[[DVec3; 10]], nodes: usize) -> Vec<DVec3> {
        (0..nodes)
            .into_par_iter()
            .map(|n| {
                let mut s = DVec3::ZERO;
                for &(e, a) in &self.inc[self.inc_start[n]..self.inc_start[n + 1]] {
                    s += local[e as usize][a as usize];
                }
                s
            })
            .collect()
    }
}
