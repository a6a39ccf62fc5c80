//! The energy–momentum (Simo–Tarnow) mid-point step of a FEM body.
//!
//! Unknown x_{n+1}; v_{n+1} = 2(x_{n+1} − x_n)/Δt − v_n, and
//! M(v_{n+1} − v_n)/Δt + αM(x_{n+1} − x_n)/Δt + f_int,alg − f_ext − f_c = 0
//! with f_int,alg = Σ_e ∫ B(F_{n+½})ᵀ S_alg, F_{n+½} = ½(F_n + F_{n+1}),
//! S_alg = S(½(E_n + E_{n+1})) (for StVK equal to ½(S(E_n) + S(E_{n+1})))
//! plus the Rayleigh β term as the viscous stress (β/Δt) ℂ:(E_{n+1} − E_n).
//! Because E_{n+1} − E_n = sym(F_{n+½}ᵀ(F_{n+1} − F_n)) exactly, the
//! internal work over a step equals the change of strain energy: without
//! damping and contact, energy is conserved to the Newton tolerance, and
//! linear and angular momentum exactly (the force is a sum of pair-free
//! element terms built from F_{n+½}). The linear model uses the same form
//! with the small-strain stress (its energy is quadratic, so the mid-point
//! force is its exact discrete gradient). Contact forces come from
//! [`RigidPlane::midpoint`].
//!
//! Newton's method on x_{n+1} with the analytic consistent tangent,
//! assembled in block CSR and solved by [`BlockMatrix::solve`]; converged
//! when |R| ≤ 1e-10 × (|inertia| + |f_int| + |f_ext| + |f_c|) (or when the
//! update reaches the round-off of the positions), error after 30
//! iterations. For the linear model without contact the tangent is
//! constant and factored once per step.

use glam::{DMat3, DVec3};
use rayon::prelude::*;

use super::contact::RigidPlane;
use super::element::Elements;
use super::error::FemError;
use super::material::{ddot, green_strain, hooke, sym, FemMaterial, Model};
use super::mesh::outer;
use super::solve::{BlockMatrix, Factor};

/// Everything fixed during one mid-point step.
pub struct MidProblem<'a> {
    /// Element data.
    pub el: &'a Elements,
    /// Material.
    pub material: &'a FemMaterial,
    /// Constitutive model.
    pub model: Model,
    /// Lumped nodal masses (kg).
    pub masses: &'a [f64],
    /// Clamped nodes.
    pub fixed: &'a [bool],
    /// Rayleigh α (1/s).
    pub alpha: f64,
    /// Rayleigh β (s).
    pub beta: f64,
    /// Constant external nodal forces over the step (N).
    pub f_ext: &'a [DVec3],
    /// Rigid planes.
    pub planes: &'a [RigidPlane],
}

/// Result of a mid-point step.
#[derive(Debug, Clone)]
pub struct MidResult {
    /// Positions at the end (m).
    pub x: Vec<DVec3>,
    /// Velocities at the end (m/s).
    pub v: Vec<DVec3>,
    /// Friction anchors at the end (planes × nodes, NaN: none).
    pub anchors: Vec<DVec3>,
    /// Energy dissipated over the step (J): damping and contact.
    pub dissipated: f64,
    /// Work of the external forces over the step (J).
    pub external_work: f64,
    /// Impulse the planes exerted over the step (N s).
    pub wall_impulse: DVec3,
    /// Newton iterations used.
    pub iterations: usize,
}

/// One element's mid-point contribution.
struct ElemMid {
    /// Algorithmic internal + viscous forces (N).
    f: [DVec3; 10],
    /// ∂f/∂x_{n+1}, `nn × nn` blocks (N/m).
    k: Vec<DMat3>,
    /// Viscous dissipation over the step (J).
    diss: f64,
    /// det F_{n+1} ≤ 0 or not finite somewhere.
    bad: bool,
}

/// Mid-point forces and tangent of element `e` for the step x0 → x1;
/// `r` = β/Δt.
fn element_mid(
    el: &Elements,
    e: usize,
    x0: &[DVec3],
    x1: &[DVec3],
    mat: &FemMaterial,
    model: Model,
    r: f64,
) -> ElemMid {
    let (lambda, mu) = (mat.lambda(), mat.mu());
    let nn = el.nn;
    let mut out = ElemMid {
        f: [DVec3::ZERO; 10],
        k: vec![DMat3::ZERO; nn * nn],
        diss: 0.0,
        bad: false,
    };
    let cf = 0.5 + r;
    for q in 0..el.nq {
        let w = el.wdet[e * el.nq + q];
        let g = el.grad(e, q);
        let h0 = el.disp_grad(e, q, x0);
        let h1 = el.disp_grad(e, q, x1);
        let f1 = DMat3::IDENTITY + h1;
        let det = f1.determinant();
        if det <= 0.0 || !det.is_finite() {
            out.bad = true;
        }
        match model {
            Model::Stvk => {
                let (e0, e1) = (green_strain(h0), green_strain(h1));
                let de = e1 - e0;
                let cde = hooke(lambda, mu, de);
                let s = hooke(lambda, mu, 0.5 * (e0 + e1)) + r * cde;
                let fm = DMat3::IDENTITY + 0.5 * (h0 + h1);
                let p = fm * s;
                out.diss += w * r * ddot(cde, de);
                let (mut fmg, mut f1g, mut sg) =
                    ([DVec3::ZERO; 10], [DVec3::ZERO; 10], [DVec3::ZERO; 10]);
                for (a, ga) in g.iter().enumerate() {
                    fmg[a] = fm * *ga;
                    f1g[a] = f1 * *ga;
                    sg[a] = s * *ga;
                }
                let fmf1t = fm * f1.transpose();
                for a in 0..nn {
                    out.f[a] += w * (p * g[a]);
                    for b in 0..nn {
                        let gab = g[a].dot(g[b]);
                        let m = DMat3::from_diagonal(DVec3::splat(0.5 * g[a].dot(sg[b])))
                            + cf * (lambda * outer(fmg[a], f1g[b])
                                + (mu * gab) * fmf1t
                                + mu * outer(fmg[b], f1g[a]));
                        out.k[a * nn + b] += w * m;
                    }
                }
            }
            Model::Linear => {
                let (e0, e1) = (sym(h0), sym(h1));
                let de = e1 - e0;
                let cde = hooke(lambda, mu, de);
                let s = hooke(lambda, mu, 0.5 * (e0 + e1)) + r * cde;
                out.diss += w * r * ddot(cde, de);
                for a in 0..nn {
                    out.f[a] += w * (s * g[a]);
                    for b in 0..nn {
                        let m = lambda * outer(g[a], g[b])
                            + mu * outer(g[b], g[a])
                            + DMat3::from_diagonal(DVec3::splat(mu * g[a].dot(g[b])));
                        out.k[a * nn + b] += (w * cf) * m;
                    }
                }
            }
        }
    }
    out
}

/// One mid-point step of size `dt` (s) from (x0, v0) with friction
/// anchors `anchors` (planes × nodes); `time` only labels errors.
pub fn step(
    pb: &MidProblem,
    x0: &[DVec3],
    v0: &[DVec3],
    anchors: &[DVec3],
    dt: f64,
    time: f64,
) -> Result<MidResult, FemError> {
    let n = x0.len();
    let el = pb.el;
    let np = pb.planes.len();
    let r = pb.beta / dt;
    let mut x1: Vec<DVec3> = (0..n)
        .map(|i| {
            if pb.fixed[i] {
                x0[i]
            } else {
                x0[i] + dt * v0[i]
            }
        })
        .collect();
    let mut mat = BlockMatrix::pattern(el, n);
    let scale = x0
        .iter()
        .map(|p| p.length())
        .fold(0.0, f64::max)
        .max(1e-300);
    // Round-off floor of an update: positions carry |x| ε each.
    let floor = 64.0 * f64::EPSILON * scale * (n as f64).sqrt();
    // The tangent is constant within the step for the linear model without
    // contact: factor it once.
    let constant_tangent = pb.model == Model::Linear && pb.planes.is_empty();
    let mut factor: Option<Factor> = None;
    let mut last_update = f64::INFINITY;
    let mut rel = f64::INFINITY;
    for it in 0..=30 {
        let elems: Vec<ElemMid> = (0..el.len())
            .into_par_iter()
            .map(|e| element_mid(el, e, x0, &x1, pb.material, pb.model, r))
            .collect();
        let fint = el.gather(&elems.iter().map(|m| m.f).collect::<Vec<[DVec3; 10]>>(), n);
        // Contact per node, planes in order.
        let contacts: Vec<(DVec3, DMat3, f64)> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut f = DVec3::ZERO;
                let mut k = DMat3::ZERO;
                let mut d = 0.0;
                if !pb.fixed[i] {
                    for (p, plane) in pb.planes.iter().enumerate() {
                        let c = plane.midpoint(x0[i], x1[i], anchors[p * n + i]);
                        f += c.force;
                        k += c.tangent;
                        d += c.dissipated;
                    }
                }
                (f, k, d)
            })
            .collect();
        let c_in = 2.0 / (dt * dt) + pb.alpha / dt;
        let mut res = vec![DVec3::ZERO; n];
        let (mut ni, mut nf, mut ne, mut nc, mut nr) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for i in 0..n {
            if pb.fixed[i] {
                continue;
            }
            let m = pb.masses[i];
            let inertia = m * (2.0 * (x1[i] - x0[i]) / dt - 2.0 * v0[i]) / dt
                + pb.alpha * m * (x1[i] - x0[i]) / dt;
            res[i] = inertia + fint[i] - pb.f_ext[i] - contacts[i].0;
            ni += inertia.length_squared();
            nf += fint[i].length_squared();
            ne += pb.f_ext[i].length_squared();
            nc += contacts[i].0.length_squared();
            nr += res[i].length_squared();
        }
        let reference = ni.sqrt() + nf.sqrt() + ne.sqrt() + nc.sqrt();
        rel = if reference > 0.0 {
            nr.sqrt() / reference
        } else {
            0.0
        };
        let converged = rel <= 1e-10 || (it > 0 && last_update <= floor);
        if converged {
            if let Some(e) = elems.iter().position(|m| m.bad) {
                return Err(FemError::Inverted {
                    element: e,
                    time: time + dt,
                });
            }
            let v1: Vec<DVec3> = (0..n)
                .map(|i| {
                    if pb.fixed[i] {
                        DVec3::ZERO
                    } else {
                        2.0 * (x1[i] - x0[i]) / dt - v0[i]
                    }
                })
                .collect();
            if let Some(i) = (0..n).find(|&i| !x1[i].is_finite() || !v1[i].is_finite()) {
                return Err(FemError::NotFinite {
                    node: i,
                    time: time + dt,
                });
            }
            let mut dissipated: f64 = elems.iter().map(|m| m.diss).sum();
            let mut external_work = 0.0;
            let mut wall = DVec3::ZERO;
            for i in 0..n {
                if pb.fixed[i] {
                    continue;
                }
                let dx = x1[i] - x0[i];
                dissipated += pb.alpha * pb.masses[i] * dx.length_squared() / dt + contacts[i].2;
                external_work += pb.f_ext[i].dot(dx);
                wall += contacts[i].0 * dt;
            }
            let mut anchors1 = vec![DVec3::NAN; np * n];
            for (p, plane) in pb.planes.iter().enumerate() {
                for i in 0..n {
                    if !pb.fixed[i] {
                        anchors1[p * n + i] =
                            plane.midpoint(x0[i], x1[i], anchors[p * n + i]).anchor;
                    }
                }
            }
            return Ok(MidResult {
                x: x1,
                v: v1,
                anchors: anchors1,
                dissipated,
                external_work,
                wall_impulse: wall,
                iterations: it,
            });
        }
        if it == 30 {
            break;
        }
        if factor.is_none() || !constant_tangent {
            mat.clear();
            for (e, m) in elems.iter().enumerate() {
                mat.add_element(e, &m.k);
            }
            for (i, c) in contacts.iter().enumerate() {
                mat.add_diag(
                    i,
                    DMat3::from_diagonal(DVec3::splat(c_in * pb.masses[i])) - c.1,
                );
            }
            mat.clamp(pb.fixed);
            factor = Some(
                mat.factor()
                    .map_err(|reason| FemError::Solver { time, reason })?,
            );
        }
        let rhs: Vec<DVec3> = res.iter().map(|v| -*v).collect();
        let dx = factor
            .as_ref()
            .expect("factored")
            .solve(&rhs)
            .map_err(|reason| FemError::Solver { time, reason })?;
        let mut upd = 0.0;
        for i in 0..n {
            if !pb.fixed[i] {
                x1[i] += dx[i];
                upd += dx[i].length_squared();
            }
        }
        last_update = upd.sqrt();
        if !last_update.is_finite() {
            return Err(FemError::NotFinite { node: 0, time });
        }
    }
    Err(FemError::NoConvergence {
        time,
        iterations: 30,
        residual: rel,
    })
}
