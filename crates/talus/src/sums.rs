//! Sums that do not depend on the order of their terms.
//!
//! A particle's force and torque are sums over its contacts. Summed in the
//! order of its neighbour-list row, they would depend on where the partners
//! sit in memory, when the list was last rebuilt and what else the row
//! holds: change the neighbour skin and the bits change. So the CPU path
//! sums a particle's contacts in its partners' id order
//! (`cpu::contacts`), and the GPU path adds them as 64-bit fixed-point
//! integers, exact in any order (`Sums` in `shaders/contacts.wgsl`), in
//! the units set here.

/// The GPU's fixed point for its pair sums (and the FEM surfaces' forces):
/// units per newton, a power of two, 2^round(log2(1 / (10⁻⁷ m_min
/// max(|g|, 1)))) with m_min the smallest particle mass the scene can hold
/// (present or inserted), within [2⁰, 2⁶⁰]. A resolution of 10⁻⁷ of the
/// lightest grain's weight; 2⁶² units (the 64-bit words' limit, checked on
/// the device) are then ≥ 4.6·10¹¹ such weights.
pub fn force_unit(scene: &crate::scene::Scene) -> f64 {
    let ball = |rho: f64, r: f64| rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let present = scene.particles.iter().map(|p| scene.particle_mass(p));
    let inserted = scene
        .inserts
        .iter()
        .map(|i| ball(scene.materials[i.material].density, i.radius.min()));
    let m_min = present.chain(inserted).fold(f64::INFINITY, f64::min);
    let g = glam::DVec3::from(scene.simulation.gravity)
        .length()
        .max(1.0);
    let unit = 1.0 / (1e-7 * m_min * g);
    if !(unit.is_finite() && unit > 0.0) {
        return 1.0;
    }
    2f64.powi(unit.log2().round().clamp(0.0, 60.0) as i32)
}

/// Units per newton metre of the GPU's torque sums: the force unit over
/// the smallest radius the scene can hold, as a power of two (a contact's
/// torque is a force times at most a radius: the same resolution).
pub fn torque_unit(scene: &crate::scene::Scene) -> f64 {
    let present = scene.particles.iter().map(|p| p.radius);
    let inserted = scene.inserts.iter().map(|i| i.radius.min());
    let r_min = present.chain(inserted).fold(f64::INFINITY, f64::min);
    let unit = force_unit(scene) / r_min;
    if !(unit.is_finite() && unit > 0.0) {
        return force_unit(scene);
    }
    2f64.powi(unit.log2().round().clamp(0.0, 80.0) as i32)
}
