//! The materials of the cases (Chung & Ooi 2011, table 1); pair constants
//! (e, μ, μ_r) are set per interaction, not here.

use talus::scene::Material;

/// A material whose pair constants (e, μ, μ_r) come from interactions.
pub fn mat(name: &str, youngs: f64, nu: f64, rho: f64) -> Material {
    Material {
        name: name.into(),
        density: rho,
        youngs_modulus: youngs,
        poisson_ratio: nu,
        restitution: 1.0,
        friction: 0.0,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

pub fn glass() -> Material {
    mat("glass", 48e9, 0.20, 2800.0)
}
pub fn limestone() -> Material {
    mat("limestone", 20e9, 0.25, 2500.0)
}
pub fn aluminium() -> Material {
    mat("Al alloy", 70e9, 0.30, 2699.0)
}
pub fn magnesium() -> Material {
    mat("Mg alloy", 40e9, 0.35, 1800.0)
}
pub fn alox() -> Material {
    mat("Al oxide", 380e9, 0.23, 4000.0)
}
pub fn cast_iron() -> Material {
    mat("cast iron", 100e9, 0.25, 7000.0)
}
pub fn steel() -> Material {
    mat("steel", 208e9, 0.30, 7850.0)
}
pub fn polyethylene() -> Material {
    mat("polyethylene", 1e9, 0.40, 1400.0)
}
pub fn nylon() -> Material {
    mat("nylon", 2.5e9, 0.40, 1000.0)
}
pub fn copper() -> Material {
    mat("copper", 120e9, 0.35, 8900.0)
}
