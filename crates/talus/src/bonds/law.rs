//! One parallel bond's step (Potyondy & Cundall 2004), the CPU twin of
//! `bond_law` in `shaders/bond_law.wgsl` (checked on random bonds by
//! `tests/gpu_bonds.rs`).
//!
//! The bond joins a and b (b's centre at a's + d n, n unit); its section
//! is a disc of radius R̄ between the surfaces, midway into their gap
//! (where the contact law puts a contact point), area A = π R̄², second
//! moment I = π R̄⁴/4, polar J = π R̄⁴/2. Its state is what it carries,
//! on a: a normal force F_n (along n, > 0: tension), a shear force F_s (in
//! the plane ⊥ n), a twisting moment M_t (about n) and a bending moment
//! M_b (⊥ n); b gets the opposites (and the shear force's lever). Each
//! step, from the half-step velocities that moved the centres to x(n)
//! (as the tangential spring's slip):
//! - F_s and M_b are turned into the plane ⊥ the new n (their lengths
//!   kept, as the contact's ξ);
//! - Δu = (v_b + ω_b × r_b − v_a − ω_a × r_a) dt at the disc, Δθ = (ω_b −
//!   ω_a) dt;
//! - F_n += k̄_n A Δu·n, F_s += k̄_s A Δu_⊥, M_t += k̄_s J Δθ·n,
//!   M_b += k̄_n I Δθ_⊥;
//! - the largest tensile stress σ = F_n/A + |M_b| R̄/I and shear stress
//!   τ = |F_s|/A + |M_t| R̄/J: σ ≥ σ_c breaks it in tension, else τ ≥ τ_c
//!   in shear; a broken bond carries nothing from this step on, and the
//!   strain energy it held before the step is released (dissipated);
//! - damping (a fraction ζ of critical, per relative motion: 2ζ √(m* k̄_n
//!   A) on the normal velocity, √(m* k̄_s A) on the tangential, √(I* k̄_s
//!   J) on the twisting spin and √(I* k̄_n I) on the bending spin, from the
//!   predicted velocities) adds forces that are not stored.
//!
//! Its strain energy F_n²/(2k̄_nA) + |F_s|²/(2k̄_sA) + M_t²/(2k̄_sJ) +
//! |M_b|²/(2k̄_nI) is elastic energy; what the damping takes and what a
//! break releases is dissipated.

pub use super::form::section;
use crate::cpu::law::{add, cross, dot, scale, sub, Body, V3};

/// A bond's constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BondParams {
    /// k̄_n = E/L and k̄_s = k̄_n / stiffness ratio (Pa/m).
    pub kn: f64,
    pub ks: f64,
    /// R̄ (m).
    pub radius: f64,
    /// σ_c and τ_c (Pa); ∞: never.
    pub tensile_strength: f64,
    pub shear_strength: f64,
    /// ζ, a fraction of critical damping.
    pub damping: f64,
}

/// What a bond carries, on a (b gets the opposites): F_n (N, > 0
/// tension), F_s (N, ⊥ n), M_t (N m, about n), M_b (N m, ⊥ n).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BondState {
    pub normal: f64,
    pub shear: V3,
    pub twist: f64,
    pub bend: V3,
}

/// What became of a bond: intact, broken this step or before (in
/// tension: σ reached σ_c; in shear: τ reached τ_c), or gone with one of
/// its particles (an outlet, the open domain).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    #[default]
    Intact,
    Tension,
    Shear,
    Gone,
}

impl Status {
    /// Its code (`BOND_*` in `shaders/bond_law.wgsl`).
    pub fn code(self) -> u32 {
        match self {
            Status::Intact => 0,
            Status::Tension => 1,
            Status::Shear => 2,
            Status::Gone => 3,
        }
    }

    /// The status of `code`; None for a code no status has.
    pub fn of(code: u32) -> Option<Status> {
        [Status::Intact, Status::Tension, Status::Shear, Status::Gone]
            .into_iter()
            .find(|s| s.code() == code)
    }
}

/// One bond's step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BondResult {
    /// Force and torque on a, torque on b (b's force is −force_a).
    pub force_a: V3,
    pub torque_a: V3,
    pub torque_b: V3,
    /// The new state (zero when it broke).
    pub state: BondState,
    pub broke: Status,
    /// Strain energy now (J), and what the step dissipated (damping, or
    /// the energy held before a break).
    pub elastic: f64,
    pub dissipated: f64,
}

/// `v` turned into the plane ⊥ n, its length kept (zero stays zero).
fn into_plane(v: V3, n: V3) -> V3 {
    let p = sub(v, scale(n, dot(v, n)));
    let (old, new) = (dot(v, v), dot(p, p));
    if new > 0.0 {
        scale(p, (old / new).sqrt())
    } else {
        p
    }
}

/// The strain energy of `s` under `bp`.
pub fn strain_energy(bp: &BondParams, s: &BondState) -> f64 {
    let (a, i, j) = section(bp.radius);
    let (kna, ksa) = (bp.kn * a, bp.ks * a);
    0.5 * (s.normal * s.normal / kna
        + dot(s.shear, s.shear) / ksa
        + s.twist * s.twist / (bp.ks * j)
        + dot(s.bend, s.bend) / (bp.kn * i))
}

/// One step of the bond between `a` and `b` (centres `dist` apart along
/// the unit `n` from a to b), from what it carried, `old`.
pub fn bond_law(
    bp: &BondParams,
    dt: f64,
    a: &Body,
    b: &Body,
    n: V3,
    dist: f64,
    old: &BondState,
) -> BondResult {
    let (area, i2, j2) = section(bp.radius);
    let gap = dist - a.radius - b.radius;
    let arm_a = scale(n, a.radius + 0.5 * gap);
    let arm_b = scale(n, -(b.radius + 0.5 * gap));
    let at = |v: V3, w: V3, arm: V3| add(v, cross(w, arm));
    // half-step motion: the increments
    let du = scale(
        sub(
            at(b.vel_half, b.omega_half, arm_b),
            at(a.vel_half, a.omega_half, arm_a),
        ),
        dt,
    );
    let dth = scale(sub(b.omega_half, a.omega_half), dt);
    let (du_n, dth_n) = (dot(du, n), dot(dth, n));
    let du_t = sub(du, scale(n, du_n));
    let dth_t = sub(dth, scale(n, dth_n));
    let (kna, ksa, ksj, kni) = (bp.kn * area, bp.ks * area, bp.ks * j2, bp.kn * i2);
    let s = BondState {
        normal: old.normal + kna * du_n,
        shear: add(into_plane(old.shear, n), scale(du_t, ksa)),
        twist: old.twist + ksj * dth_n,
        bend: add(into_plane(old.bend, n), scale(dth_t, kni)),
    };
    let sigma = s.normal / area + dot(s.bend, s.bend).sqrt() * bp.radius / i2;
    let tau = dot(s.shear, s.shear).sqrt() / area + s.twist.abs() * bp.radius / j2;
    let broke = if sigma >= bp.tensile_strength {
        Status::Tension
    } else if tau >= bp.shear_strength {
        Status::Shear
    } else {
        Status::Intact
    };
    if broke != Status::Intact {
        return BondResult {
            force_a: [0.0; 3],
            torque_a: [0.0; 3],
            torque_b: [0.0; 3],
            state: BondState::default(),
            broke,
            elastic: 0.0,
            dissipated: strain_energy(bp, old),
        };
    }
    // damping on the predicted relative motion
    let m_star = 1.0 / (a.inv_mass + b.inv_mass);
    let i_star = 1.0 / (a.inv_inertia + b.inv_inertia);
    let v = sub(at(b.vel, b.omega, arm_b), at(a.vel, a.omega, arm_a));
    let w = sub(b.omega, a.omega);
    let (v_n, w_n) = (dot(v, n), dot(w, n));
    let v_t = sub(v, scale(n, v_n));
    let w_t = sub(w, scale(n, w_n));
    let z = 2.0 * bp.damping;
    let (cn, cs) = (z * (m_star * kna).sqrt(), z * (m_star * ksa).sqrt());
    let (ct, cb) = (z * (i_star * ksj).sqrt(), z * (i_star * kni).sqrt());
    let f_shear = add(s.shear, scale(v_t, cs));
    let force_a = add(scale(n, s.normal + cn * v_n), f_shear);
    let moment = add(scale(n, s.twist + ct * w_n), add(s.bend, scale(w_t, cb)));
    let torque_a = add(moment, cross(arm_a, f_shear));
    let torque_b = sub(cross(arm_b, scale(f_shear, -1.0)), moment);
    let lost = (cn * v_n * v_n + cs * dot(v_t, v_t) + ct * w_n * w_n + cb * dot(w_t, w_t)) * dt;
    BondResult {
        force_a,
        torque_a,
        torque_b,
        state: s,
        broke,
        elastic: strain_energy(bp, &s),
        dissipated: lost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn body(r: f64, v: V3, w: V3) -> Body {
        let m = 2500.0 * 4.0 / 3.0 * PI * r * r * r;
        Body {
            vel: v,
            omega: w,
            vel_half: v,
            omega_half: w,
            radius: r,
            inv_mass: 1.0 / m,
            inv_inertia: 1.0 / (0.4 * m * r * r),
        }
    }

    fn params() -> BondParams {
        let (e, l, r) = (1e9, 2e-3, 1e-3);
        BondParams {
            kn: e / l,
            ks: e / l / 2.5,
            radius: r,
            tensile_strength: f64::INFINITY,
            shear_strength: f64::INFINITY,
            damping: 0.0,
        }
    }

    /// Each relative motion loads its own spring by its own stiffness:
    /// stretching (k̄_n A), sliding (k̄_s A, with the shear force's lever
    /// on both torques), twisting (k̄_s J) and bending (k̄_n I); the
    /// strain energy is each spring's ½ k x²; a and b get opposite forces
    /// and the torques balance (Σ torques about a's centre vanish with
    /// b's force at d n).
    #[test]
    fn each_motion_loads_its_spring() {
        let bp = params();
        let (area, i2, j2) = section(bp.radius);
        let (r, dt, d) = (1e-3, 1e-6, 2e-3);
        let n = [0.0, 0.0, 1.0];
        let z = [0.0; 3];
        let zero = BondState::default();
        // (bending: a and b turn opposite ways, so the disc between them
        // does not slide)
        for (vb, wb, want) in [
            ([0.0, 0.0, 1e-3], z, "normal"),
            ([1e-3, 0.0, 0.0], z, "shear"),
            (z, [0.0, 0.0, 1.0], "twist"),
            (z, [0.5, 0.0, 0.0], "bend"),
        ] {
            let wa = if want == "bend" { [-0.5, 0.0, 0.0] } else { z };
            let a = body(r, z, wa);
            let b = body(r, vb, wb);
            let res = bond_law(&bp, dt, &a, &b, n, d, &zero);
            let s = res.state;
            let (x, k) = match want {
                "normal" => (s.normal, bp.kn * area * 1e-3 * dt),
                "shear" => (s.shear[0], bp.ks * area * 1e-3 * dt),
                "twist" => (s.twist, bp.ks * j2 * dt),
                _ => (s.bend[0], bp.kn * i2 * dt),
            };
            assert!((x - k).abs() < 1e-12 * k, "{want}: {x} vs {k}");
            // the other springs stay unloaded (a shear slide's only
            // companion is nothing: the disc sits midway, no rotation)
            let others = [
                s.normal, s.shear[0], s.twist, s.bend[0], s.shear[1], s.shear[2], s.bend[1],
                s.bend[2],
            ];
            let loaded = others.iter().filter(|v| **v != 0.0).count();
            assert_eq!(loaded, 1, "{want}: {s:?}");
            // forces opposite, torques balance about a's centre
            let tb_about_a = add(res.torque_b, cross(scale(n, d), scale(res.force_a, -1.0)));
            let total = add(res.torque_a, tb_about_a);
            let scale_t = dot(res.torque_a, res.torque_a).sqrt().max(1e-30);
            assert!(
                dot(total, total).sqrt()
                    < 1e-12 * scale_t.max(dot(res.force_a, res.force_a).sqrt() * d),
                "{want}: {total:?}"
            );
            let e = strain_energy(&bp, &s);
            let want_e = match want {
                "normal" => 0.5 * x * x / (bp.kn * area),
                "shear" => 0.5 * x * x / (bp.ks * area),
                "twist" => 0.5 * x * x / (bp.ks * j2),
                _ => 0.5 * x * x / (bp.kn * i2),
            };
            assert!((e - want_e).abs() < 1e-12 * want_e, "{want}: {e} {want_e}");
            assert!((res.elastic - e).abs() < 1e-12 * e);
        }
    }

    /// A bond stretched step by step breaks in tension the step its stress
    /// F_n/A reaches σ_c, and releases the energy it held; sheared, in
    /// shear at τ_c; a stored shear force turns with n, its length kept.
    #[test]
    fn it_breaks_at_its_strengths_and_releases_its_energy() {
        let mut bp = params();
        bp.tensile_strength = 1e7;
        bp.shear_strength = 2e7;
        let (area, _, _) = section(bp.radius);
        let (r, dt, d) = (1e-3, 1e-6, 2e-3);
        let n = [0.0, 0.0, 1.0];
        let a = body(r, [0.0; 3], [0.0; 3]);
        for (vb, want, strength) in [
            ([0.0, 0.0, 1e-2], Status::Tension, 1e7),
            ([1e-2, 0.0, 0.0], Status::Shear, 2e7),
        ] {
            let b = body(r, vb, [0.0; 3]);
            let mut s = BondState::default();
            let mut steps = 0;
            let res = loop {
                steps += 1;
                let res = bond_law(&bp, dt, &a, &b, n, d, &s);
                if res.broke != Status::Intact {
                    break res;
                }
                s = res.state;
            };
            assert_eq!(res.broke, want);
            let k = if want == Status::Tension {
                bp.kn
            } else {
                bp.ks
            };
            let per_step = k * area * 1e-2 * dt / area;
            let at_break = steps as f64 * per_step;
            assert!(
                at_break >= strength && at_break - per_step < strength,
                "{want:?} at {at_break} Pa"
            );
            assert_eq!(res.state, BondState::default());
            assert_eq!((res.force_a, res.elastic), ([0.0; 3], 0.0));
            assert!((res.dissipated - strain_energy(&bp, &s)).abs() <= 1e-15 * res.dissipated);
        }
        // turned with n: a shear force along x, n tipped towards x
        let s = BondState {
            shear: [3.0, 0.0, 0.0],
            ..Default::default()
        };
        let c = 0.1f64.cos();
        let n2 = [0.1f64.sin(), 0.0, c];
        let b = body(r, [0.0; 3], [0.0; 3]);
        let res = bond_law(&params(), dt, &a, &b, n2, d, &s);
        assert!(dot(res.state.shear, n2).abs() < 1e-12);
        assert!((dot(res.state.shear, res.state.shear).sqrt() - 3.0).abs() < 1e-12);
    }

    /// Damping: the force on the normal velocity is 2ζ √(m* k̄_n A) v_n,
    /// and the step dissipates it times v_n dt; not stored.
    #[test]
    fn damping_acts_on_the_relative_velocity_and_is_not_stored() {
        let mut bp = params();
        bp.damping = 0.3;
        let (area, _, _) = section(bp.radius);
        let (r, dt, d) = (1e-3, 1e-6, 2e-3);
        let n = [0.0, 0.0, 1.0];
        let a = body(r, [0.0; 3], [0.0; 3]);
        let mut b = body(r, [0.0, 0.0, 1e-3], [0.0; 3]);
        b.vel_half = [0.0; 3];
        let res = bond_law(&bp, dt, &a, &b, n, d, &BondState::default());
        let m_star = 0.5 / a.inv_mass;
        let c = 0.6 * (m_star * bp.kn * area).sqrt();
        assert!((res.force_a[2] - c * 1e-3).abs() < 1e-12 * c * 1e-3);
        assert_eq!(res.state, BondState::default());
        assert!((res.dissipated - c * 1e-6 * dt).abs() < 1e-12 * c * 1e-6 * dt);
    }
}
