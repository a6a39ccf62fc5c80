//! Per material-pair contact parameters, computed once per scene and laid out
//! as a flat `n_materials × n_materials` table (the GPU reads the same table).

use crate::scene::types::{Material, Scene};

/// Effective properties of one material pair.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairParams {
    /// E* = 1 / ((1-ν₁²)/E₁ + (1-ν₂²)/E₂), Pa.
    pub e_star: f64,
    /// G* = 1 / ((2-ν₁)/G₁ + (2-ν₂)/G₂), Pa (LIGGGHTS' definition).
    pub g_star: f64,
    /// Coefficient of restitution of the pair.
    pub restitution: f64,
    /// β = ln e / √(ln²e + π²) ≤ 0: the viscoelastic damping factor.
    pub beta: f64,
    pub friction: f64,
    pub rolling_friction: f64,
    /// The `epsd` rolling dashpot, a fraction of critical damping.
    pub rolling_damping: f64,
    /// Hertz–Mindlin damping constants, so that the damping coefficients
    /// are γ_n = `damp_n` √(√(R*δ) m*) and γ_t = `damp_t` √(√(R*δ) m*):
    /// −2√(5/6) β √(2E*) and −2√(5/6) β √(8G*) (LIGGGHTS' −2√(5/6) β
    /// √(S m*) with S_n = 2E*√(R*δ), S_t = 8G*√(R*δ): one square root per
    /// contact instead of two).
    pub damp_n: f64,
    pub damp_t: f64,
    /// Cohesion energy density k of the pair, J/m³ (the SJKR models' pull
    /// k A); the mean of the materials' unless `[[interactions]]` gives it.
    pub cohesion_energy_density: f64,
    /// JKR's work of adhesion γ of the pair, J/m² (a pull-off force of
    /// 1.5 π γ R*): the mean of the materials' `surface_energy` unless
    /// `[[interactions]]` gives it.
    pub surface_energy: f64,
}

/// How many contacts share the cap on one contact's rolling torque.
///
/// The rolling torque is a constant-directional torque, μ_r R* F_n against
/// the relative rolling spin: a sign function, which an explicit step
/// overshoots near rest. One contact's torque is capped so that it alone
/// removes at most 1/`ROLLING_SHARE` of the relative rolling spin in a step
/// (m ≤ |ω_roll| / (`ROLLING_SHARE` (1/I_a + 1/I_b) dt)). With the cap at a
/// whole stop per contact (the law before), a bead with several contacts
/// got several stops a step and its spin reversed every step, for good: a
/// settled bed with μ_r = 0.01 kept every bead rocking (r|ω| ~ 2·10⁻⁵ m/s,
/// median, against 4·10⁻⁶ m/s without rolling friction). Near rest the
/// torques of k contacts act as a viscous drag whose gain per step is at
/// most ~k / `ROLLING_SHARE` on a bead among its equals (twice that per
/// wall contact); the predicted spin the law reads makes that step stable
/// for a gain below 1, so 16 covers a bead with 12 neighbours and a wall.
/// The cap only acts below |ω_roll| = 16 μ_r R* F_n (1/I_a + 1/I_b) dt,
/// ~0.04 rad/s for 2 mm glass beads under their own weight at dt = 10⁻⁵ s:
/// rolling motion is not changed, and a torque the law cannot hold (a
/// constant-directional torque has no memory) creeps at a rate ∝ dt instead
/// of rocking. Shared with `shaders/common.wgsl` (`ROLLING_SHARE`).
pub const ROLLING_SHARE: u32 = 16;

/// Newton steps for JKR's contact radius (`cpu::jkr`; `JKR_NEWTON_STEPS`
/// in `shaders/common.wgsl`, checked equal by `tests/shaders.rs`).
pub const JKR_NEWTON_STEPS: u32 = 8;

/// −δ_c (m): how far apart the surfaces of a held JKR contact of effective
/// radius `r_star`, modulus `e_star` and work of adhesion `gamma` get
/// before it parts, 3 a_s²/R* with a_s³ = π γ R*²/(8E*) (where dδ/da = 0;
/// `cpu::jkr`, whose solve checks it agrees).
pub fn jkr_separation(r_star: f64, e_star: f64, gamma: f64) -> f64 {
    let a_s = (std::f64::consts::PI * gamma * r_star * r_star / (8.0 * e_star)).cbrt();
    3.0 * a_s * a_s / r_star
}

/// How far past touching (m) the contact stages evaluate an entry with
/// history (`cpu::law::LawParams::reach`, the GPU's `Params::contact`):
/// in a JKR run the neighbour skin, which exceeds every pair's separation
/// (`scene::validate`), so that the step a held contact passes its δ_c
/// (by less than a skin: a particle moves at most half a skin between two
/// builds) evaluates it and the law parts it with the energy it held (a
/// limit at δ_c itself would let that step drop it unseen); 0 otherwise.
pub fn stage_reach(cohesion: crate::scene::Cohesion, skin: f64) -> f64 {
    if cohesion == crate::scene::Cohesion::Jkr {
        skin
    } else {
        0.0
    }
}

/// Flat pair table.
#[derive(Debug, Clone, PartialEq)]
pub struct PairTable {
    pub n: usize,
    pub pairs: Vec<PairParams>,
}

/// β = ln e / √(ln²e + π²); 0 for e = 1.
pub fn damping_beta(e: f64) -> f64 {
    let l = e.ln();
    l / (l * l + std::f64::consts::PI * std::f64::consts::PI).sqrt()
}

fn shear_modulus(m: &Material) -> f64 {
    m.youngs_modulus / (2.0 * (1.0 + m.poisson_ratio))
}

impl PairTable {
    /// Builds the table. Unless an `[[interactions]]` entry overrides them,
    /// restitution, friction, rolling friction and damping, cohesion energy
    /// density and surface energy of a mixed pair are the arithmetic means
    /// of the two materials' values.
    pub fn new(scene: &Scene) -> Self {
        let ms = &scene.materials;
        let n = ms.len();
        let mut pairs = vec![PairParams::default(); n * n];
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (&ms[i], &ms[j]);
                let e_star = 1.0
                    / ((1.0 - a.poisson_ratio.powi(2)) / a.youngs_modulus
                        + (1.0 - b.poisson_ratio.powi(2)) / b.youngs_modulus);
                let g_star = 1.0
                    / ((2.0 - a.poisson_ratio) / shear_modulus(a)
                        + (2.0 - b.poisson_ratio) / shear_modulus(b));
                let mut restitution = 0.5 * (a.restitution + b.restitution);
                let mut friction = 0.5 * (a.friction + b.friction);
                let mut rolling_friction = 0.5 * (a.rolling_friction + b.rolling_friction);
                let mut rolling_damping =
                    0.5 * (a.rolling_viscous_damping + b.rolling_viscous_damping);
                let mut cohesion_energy_density =
                    0.5 * (a.cohesion_energy_density + b.cohesion_energy_density);
                let mut surface_energy = 0.5 * (a.surface_energy + b.surface_energy);
                // a held copy ([[fixed]]) takes its material's overrides
                let (bi, bj) = (scene.base_material(i), scene.base_material(j));
                for it in &scene.interactions {
                    let [p, q] = it.materials;
                    if (p == bi && q == bj) || (p == bj && q == bi) {
                        restitution = it.restitution.unwrap_or(restitution);
                        friction = it.friction.unwrap_or(friction);
                        rolling_friction = it.rolling_friction.unwrap_or(rolling_friction);
                        rolling_damping = it.rolling_viscous_damping.unwrap_or(rolling_damping);
                        cohesion_energy_density = it
                            .cohesion_energy_density
                            .unwrap_or(cohesion_energy_density);
                        surface_energy = it.surface_energy.unwrap_or(surface_energy);
                    }
                }
                let beta = damping_beta(restitution);
                let c = -2.0 * (5.0f64 / 6.0).sqrt() * beta;
                pairs[i * n + j] = PairParams {
                    e_star,
                    g_star,
                    restitution,
                    beta,
                    friction,
                    rolling_friction,
                    rolling_damping,
                    damp_n: c * (2.0 * e_star).sqrt(),
                    damp_t: c * (8.0 * g_star).sqrt(),
                    cohesion_energy_density,
                    surface_energy,
                };
            }
        }
        PairTable { n, pairs }
    }

    /// How far apart (m) the surfaces of a held JKR contact can get before
    /// it parts, at most over the run: [`jkr_separation`] over every pair
    /// of materials with the scene's largest radius (R* = r_max/2 between
    /// particles, r_max at a wall; δ_c grows as R*^(1/3)). What the contact
    /// stages look past touching for contacts that had touched, and what
    /// the neighbour skin must exceed; 0 without JKR.
    pub fn jkr_reach(&self, scene: &Scene) -> f64 {
        if scene.contact.cohesion != crate::scene::Cohesion::Jkr {
            return 0.0;
        }
        let r = scene.radius_range().1;
        self.pairs
            .iter()
            .filter(|p| p.surface_energy > 0.0)
            .flat_map(|p| [0.5 * r, r].map(|rs| jkr_separation(rs, p.e_star, p.surface_energy)))
            .fold(0.0, f64::max)
    }

    #[inline]
    pub fn get(&self, a: u32, b: u32) -> &PairParams {
        &self.pairs[a as usize * self.n + b as usize]
    }
}
