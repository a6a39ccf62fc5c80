//! Closed-form references: Hertz impact, rigid-body oblique impact with
//! Coulomb friction, rolling resistance, effective material constants.
//! Everything here is written from the textbook formulas, not from
//! `talus::pair` or `talus::cpu`, so that the checks do not share code with
//! what they check.

use std::f64::consts::PI;
use talus::scene::Material;

/// Young's modulus of the "rigid" wall material relative to the sphere's
/// (same Poisson ratio): E* = E/(1-ν²) · 1/(1 + 1e-3).
pub const RIGID_FACTOR: f64 = 1e3;

/// E* = 1 / ((1-ν₁²)/E₁ + (1-ν₂²)/E₂).
pub fn e_star(a: &Material, b: &Material) -> f64 {
    1.0 / ((1.0 - a.poisson_ratio.powi(2)) / a.youngs_modulus
        + (1.0 - b.poisson_ratio.powi(2)) / b.youngs_modulus)
}

pub fn sphere_mass(m: &Material, r: f64) -> f64 {
    m.density * 4.0 / 3.0 * PI * r.powi(3)
}

/// Hertz head-on impact of effective mass m*, radius R*, modulus E* at
/// relative normal speed v (elastic).
#[derive(Debug, Clone, Copy)]
pub struct Hertz {
    /// δ_max = (15 m* v² / (16 E* √R*))^(2/5)
    pub max_overlap: f64,
    /// F_max = (4/3) E* √R* δ_max^(3/2)
    pub max_force: f64,
    /// t_c = 2 δ_max/v ∫₀¹ (1 - x^(5/2))^(-1/2) dx = 2.94324 δ_max / v
    pub contact_time: f64,
}

/// 2 ∫₀¹ (1 - x^{5/2})^{-1/2} dx = (4/5) B(2/5, 1/2).
pub const HERTZ_TIME_FACTOR: f64 = 2.943_24;

pub fn hertz(m_star: f64, r_star: f64, e_star: f64, v: f64) -> Hertz {
    let d = (15.0 * m_star * v * v / (16.0 * e_star * r_star.sqrt())).powf(0.4);
    Hertz {
        max_overlap: d,
        max_force: 4.0 / 3.0 * e_star * r_star.sqrt() * d.powf(1.5),
        contact_time: HERTZ_TIME_FACTOR * d / v,
    }
}

/// The Hertz force history F(t) of an elastic impact, by RK4 on
/// m* δ'' = -(4/3) E* √R* δ^{3/2} with 20 000 steps per contact.
pub fn hertz_force_curve(m_star: f64, r_star: f64, e_star: f64, v: f64) -> Vec<(f64, f64)> {
    let k = 4.0 / 3.0 * e_star * r_star.sqrt();
    let tc = hertz(m_star, r_star, e_star, v).contact_time;
    let h = tc / 20_000.0;
    let acc = |d: f64| -k * d.max(0.0).powf(1.5) / m_star;
    let (mut d, mut u, mut t) = (0.0f64, v, 0.0f64);
    let mut n = 0u64;
    let mut out = vec![(0.0, 0.0)];
    loop {
        let (k1d, k1u) = (u, acc(d));
        let (k2d, k2u) = (u + 0.5 * h * k1u, acc(d + 0.5 * h * k1d));
        let (k3d, k3u) = (u + 0.5 * h * k2u, acc(d + 0.5 * h * k2d));
        let (k4d, k4u) = (u + h * k3u, acc(d + h * k3d));
        d += h / 6.0 * (k1d + 2.0 * k2d + 2.0 * k3d + k4d);
        u += h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u);
        t += h;
        if d <= 0.0 || t > 2.0 * tc {
            out.push((t, 0.0));
            break;
        }
        n += 1;
        if n % 50 == 0 {
            out.push((t, k * d.powf(1.5)));
        }
    }
    out
}

/// Rigid-body oblique impact with Coulomb friction (Maw, Barber & Fawcett's
/// rigid limit; Chung & Ooi 2011 use it for the gross-sliding branches).
/// Two bodies (a wall is m₂ = ∞) meet at relative normal speed `v_n` with a
/// contact-point slip `u0` (signed, along the tangent). The normal impulse
/// is P = m*(1+e)v_n; the tangential one J opposes the slip and is the
/// smaller of μP (gross sliding, the slip never stops) and the impulse that
/// stops the slip, m*|u0| / (1 + m*R₁²/I₁ + m*R₂²/I₂), which for solid
/// spheres (I = 2/5 m R²) is m*|u0|/3.5 for any two masses and radii.
#[derive(Debug, Clone, Copy)]
pub struct Oblique {
    /// Tangential impulse per unit effective mass, J/m* (signed like u0).
    pub j_per_mstar: f64,
    /// True when the contact slides throughout (|u0| ≥ 3.5 μ κ v_n).
    pub gross_sliding: bool,
    /// Slip velocity after the impact.
    pub u_after: f64,
}

/// `kappa` is the normal impulse over m* v_n that bounds the friction
/// impulse: 1 + e for a rigid body (a normal force that never pulls), or
/// [`compressive_impulse_factor`] for the damped Hertz law.
pub fn oblique(v_n: f64, u0: f64, kappa: f64, mu: f64) -> Oblique {
    let slide = mu * kappa * v_n;
    let stick = u0.abs() / 3.5;
    let gross = u0.abs() >= 3.5 * slide;
    let j = u0.signum() * slide.min(stick);
    Oblique {
        j_per_mstar: j,
        gross_sliding: gross,
        u_after: u0 - 3.5 * j,
    }
}

/// Hertz equilibrium overlap of a sphere of mass m resting on a plane under
/// gravity g: (3 m g / (4 E* √R))^(2/3).
pub fn resting_overlap(m: f64, r: f64, e_star: f64, g: f64) -> f64 {
    (3.0 * m * g / (4.0 * e_star * r.sqrt())).powf(2.0 / 3.0)
}

/// The compressive part of the normal impulse of a damped Hertz impact,
/// ∫ max(F_n, 0) dt, over m* v_n, for the LIGGGHTS viscoelastic damping
/// (γ_n = -2√(5/6) β √(S_n m*), β = ln e/√(ln²e + π²)); the same law as
/// `cpu::contacts` but written here from the formula. The whole impulse
/// ∫F_n dt is m*(1+e)v_n; the damper makes F_n tensile near the end of the
/// contact (the normal force is not clamped at zero), so the compressive
/// part, which bounds the friction impulse, is larger: κ(e) ≥ 1 + e.
/// Dimensionless (m* = v_n = E*√R* = 1): κ depends on e only.
pub fn compressive_impulse_factor(e: f64) -> f64 {
    if e >= 1.0 {
        return 2.0;
    }
    let l = e.ln();
    let beta = l / (l * l + PI * PI).sqrt();
    let c = -2.0 * (5.0f64 / 6.0).sqrt() * beta;
    let force = |d: f64, u: f64| {
        let sq = d.max(0.0).sqrt();
        4.0 / 3.0 * sq * d.max(0.0) + c * (2.0 * sq).sqrt() * u
    };
    let h = 2e-5;
    let (mut d, mut u) = (0.0f64, 1.0f64);
    let mut imp = 0.0;
    // RK4 on (δ, u = δ'), δ'' = -F; trapezoid on max(F, 0)
    let mut f_prev = force(d, u);
    for _ in 0..10_000_000 {
        let a = |d: f64, u: f64| -force(d, u);
        let (k1d, k1u) = (u, a(d, u));
        let (k2d, k2u) = (u + 0.5 * h * k1u, a(d + 0.5 * h * k1d, u + 0.5 * h * k1u));
        let (k3d, k3u) = (u + 0.5 * h * k2u, a(d + 0.5 * h * k2d, u + 0.5 * h * k2u));
        let (k4d, k4u) = (u + h * k3u, a(d + h * k3d, u + h * k3u));
        let dn = d + h / 6.0 * (k1d + 2.0 * k2d + 2.0 * k3d + k4d);
        let un = u + h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u);
        if dn <= 0.0 {
            // the last partial step: the force is tensile (or zero) there
            break;
        }
        let f = force(dn, un);
        imp += 0.5 * h * (f_prev.max(0.0) + f.max(0.0));
        f_prev = f;
        d = dn;
        u = un;
    }
    imp
}

/// Longitudinal wave speed of a thin bar with ν = 0 (no lateral
/// constraint): c = √(E/ρ) (m/s).
pub fn bar_wave_speed(young: f64, density: f64) -> f64 {
    (young / density).sqrt()
}

/// Contact time of an elastic rod of length L striking a rigid plane
/// end-on (1-D wave theory, St Venant): the compression wave runs to the
/// free end and back, t_c = 2L/c; the rod leaves with its impact speed.
pub fn rod_contact_time(length: f64, wave_speed: f64) -> f64 {
    2.0 * length / wave_speed
}

/// Euler–Bernoulli cantilever of length L under a uniform line load q
/// (N/m), bending stiffness E I: tip deflection δ = q L⁴ / (8 E I).
pub fn cantilever_tip(q: f64, length: f64, young: f64, inertia: f64) -> f64 {
    q * length.powi(4) / (8.0 * young * inertia)
}

/// Kirchhoff plate bending stiffness D = E h³ / (12 (1 − ν²)).
pub fn plate_rigidity(young: f64, poisson: f64, thickness: f64) -> f64 {
    young * thickness.powi(3) / (12.0 * (1.0 - poisson * poisson))
}

/// w_max D / (q a⁴) of a square Kirchhoff plate with all four edges
/// clamped under a uniform load (Timoshenko & Woinowsky-Krieger, *Theory
/// of Plates and Shells*, 2nd ed., §44, Table 35: 0.00126). The table is
/// computed with ν = 0.3, but for clamped edges the deflection coefficient
/// does not depend on ν (ν enters neither D∇⁴w = q nor w = ∂w/∂n = 0; it
/// does enter the moments), so 0.00126 holds for any ν with D of that ν.
pub const CLAMPED_SQUARE_PLATE: f64 = 0.00126;

/// Centre deflection of a clamped square Kirchhoff plate of side a under
/// a uniform load q: w_max = 0.00126 q a⁴ / D.
pub fn clamped_plate_centre(q: f64, side: f64, rigidity: f64) -> f64 {
    CLAMPED_SQUARE_PLATE * q * side.powi(4) / rigidity
}

/// The cohesive pull k A (N) of LIGGGHTS' `cohesion sjkr` (`sjkr2`:
/// false) at overlap δ between two spheres of radius r (`wall`: a sphere
/// and a plane). `sjkr`'s A is the circle where the surfaces cross, from
/// the geometry: at a wall a² = r² − (r − δ)², between equal spheres the
/// circle lies halfway, a² = r² − (r − δ/2)². `sjkr2`'s A = 2π (2R*) δ
/// between particles and 2π r δ at a wall (R* = r/2: 2π r δ either way).
pub fn sjkr_pull(sjkr2: bool, wall: bool, k: f64, r: f64, d: f64) -> f64 {
    let area = match (sjkr2, wall) {
        (false, true) => PI * (r * r - (r - d).powi(2)),
        (false, false) => PI * (r * r - (r - 0.5 * d).powi(2)),
        (true, _) => 2.0 * PI * r * d,
    };
    k * area
}

/// Hertz's elastic force (4/3) E* √(R* δ) δ.
pub fn hertz_force(e_star: f64, r_star: f64, d: f64) -> f64 {
    4.0 / 3.0 * e_star * (r_star * d).sqrt() * d
}

/// Where a cohesive contact carrying `load` (N, pulling the surfaces
/// apart) rests: the stable root of pull(δ) − push(δ) = load (the larger:
/// below it the pull wins and the overlap grows), and the most the
/// contact holds, max over δ of pull − push, with its δ. None where the
/// load exceeds that.
pub fn cohesive_rest(
    pull: impl Fn(f64) -> f64,
    push: impl Fn(f64) -> f64,
    load: f64,
    r: f64,
) -> (Option<f64>, f64, f64) {
    let net = |d: f64| pull(d) - push(d);
    // the peak on a log grid of overlaps up to r/2, refined by golden
    // sections around the best node
    let n = 4000;
    let grid: Vec<f64> = (0..n)
        .map(|i| 0.5 * r * 1e-12f64.powf(1.0 - i as f64 / (n - 1) as f64))
        .collect();
    let best = (0..n).fold(0, |b, i| if net(grid[i]) > net(grid[b]) { i } else { b });
    let (mut lo, mut hi) = (grid[best.saturating_sub(1)], grid[(best + 1).min(n - 1)]);
    let phi = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..200 {
        let (a, b) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
        if net(a) > net(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    let peak = 0.5 * (lo + hi);
    let hold = net(peak);
    if hold <= load {
        return (None, hold, peak);
    }
    let (mut lo, mut hi) = (peak, peak);
    while net(hi) > load {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let m = 0.5 * (lo + hi);
        if net(m) > load {
            lo = m;
        } else {
            hi = m;
        }
    }
    (Some(0.5 * (lo + hi)), hold, peak)
}
