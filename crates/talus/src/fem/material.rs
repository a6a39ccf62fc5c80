//! Elastic materials of FEM bodies: isotropic parameters, Lamé constants
//! and the two constitutive models (St Venant–Kirchhoff and small-strain
//! linear elasticity). Stresses are in Pa, energies densities in J/m³.

use glam::DMat3;

use super::mesh::MeshError;

/// An isotropic elastic solid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FemMaterial {
    /// Young's modulus E (Pa).
    pub young: f64,
    /// Poisson's ratio ν (−1 < ν < 0.5).
    pub poisson: f64,
    /// Mass density ρ (kg/m³).
    pub density: f64,
}

/// Constitutive model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Small-strain linear elasticity: ε = sym(∇u), σ = λ tr(ε) I + 2με, forces
    /// from σ on the reference configuration. Not frame-invariant: a rigid
    /// rotation produces spurious strain.
    Linear,
    /// St Venant–Kirchhoff: Green strain E = ½(FᵀF − I),
    /// S = λ tr(E) I + 2μE, P = F S; frame-invariant.
    Stvk,
}

impl FemMaterial {
    /// Lamé's first parameter λ = Eν / ((1+ν)(1−2ν)) (Pa).
    pub fn lambda(&self) -> f64 {
        self.young * self.poisson / ((1.0 + self.poisson) * (1.0 - 2.0 * self.poisson))
    }

    /// Shear modulus μ = E / (2(1+ν)) (Pa).
    pub fn mu(&self) -> f64 {
        self.young / (2.0 * (1.0 + self.poisson))
    }

    /// Dilatational (P-) wave speed c_d = sqrt((λ+2μ)/ρ) (m/s): sets the
    /// explicit stable step.
    pub fn wave_speed(&self) -> f64 {
        ((self.lambda() + 2.0 * self.mu()) / self.density).sqrt()
    }

    /// Checks E > 0, ρ > 0, −1 < ν < 0.5, all finite.
    pub fn check(&self) -> Result<(), MeshError> {
        if !(self.young > 0.0 && self.young.is_finite()) {
            return Err(MeshError::Material(format!(
                "Young's modulus must be positive, got {}",
                self.young
            )));
        }
        if !(self.density > 0.0 && self.density.is_finite()) {
            return Err(MeshError::Material(format!(
                "density must be positive, got {}",
                self.density
            )));
        }
        if !(self.poisson > -1.0 && self.poisson < 0.5) {
            return Err(MeshError::Material(format!(
                "Poisson's ratio must lie in (-1, 0.5), got {}",
                self.poisson
            )));
        }
        Ok(())
    }
}

/// Trace of a 3×3 matrix.
pub fn trace(m: DMat3) -> f64 {
    m.x_axis.x + m.y_axis.y + m.z_axis.z
}

/// Double contraction A:B = Σ A_ij B_ij.
pub fn ddot(a: DMat3, b: DMat3) -> f64 {
    a.x_axis.dot(b.x_axis) + a.y_axis.dot(b.y_axis) + a.z_axis.dot(b.z_axis)
}

/// Symmetric part ½(A + Aᵀ).
pub fn sym(a: DMat3) -> DMat3 {
    0.5 * (a + a.transpose())
}

/// The isotropic elasticity tensor applied to a symmetric strain:
/// ℂ:E = λ tr(E) I + 2μE (Pa per unit strain). For StVK this is S(E); for
/// the linear model σ(ε).
pub fn hooke(lambda: f64, mu: f64, e: DMat3) -> DMat3 {
    DMat3::from_diagonal(glam::DVec3::splat(lambda * trace(e))) + 2.0 * mu * e
}

/// Strain energy density ½λ(tr E)² + μ E:E (J/m³) of a symmetric strain
/// (Green strain for StVK, small strain for the linear model).
pub fn energy_density(lambda: f64, mu: f64, e: DMat3) -> f64 {
    let t = trace(e);
    0.5 * lambda * t * t + mu * ddot(e, e)
}

/// Green–Lagrange strain from the displacement gradient H = F − I:
/// E = ½(H + Hᵀ + HᵀH) (written this way to keep small strains accurate).
pub fn green_strain(h: DMat3) -> DMat3 {
    0.5 * (h + h.transpose() + h.transpose() * h)
}

/// Von Mises equivalent stress of a (symmetric) Cauchy stress (Pa).
pub fn von_mises(s: DMat3) -> f64 {
    let (sxx, syy, szz) = (s.x_axis.x, s.y_axis.y, s.z_axis.z);
    let (sxy, syz, szx) = (
        0.5 * (s.y_axis.x + s.x_axis.y),
        0.5 * (s.z_axis.y + s.y_axis.z),
        0.5 * (s.x_axis.z + s.z_axis.x),
    );
    (0.5 * ((sxx - syy).powi(2) + (syy - szz).powi(2) + (szz - sxx).powi(2))
        + 3.0 * (sxy * sxy + syz * syz + szx * szx))
        .sqrt()
}
