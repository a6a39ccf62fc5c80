//! The contact law of one pair, the CPU twin of `shaders/law.wgsl`:
//! Hertz–Mindlin (LIGGGHTS' damping) or linear spring–dashpot, normal and
//! tangential with history, Coulomb sliding and rolling resistance, with
//! the energy it stores and dissipates. A wall is a partner of infinite
//! radius and zero inverse mass and inertia.
//!
//! The law is one generic function over `W` lanes ([`law`]), branch-free
//! (each branch computed in every lane and selected), so the contact stage
//! runs four contacts at a time and [`pair_law`] is the same law on one
//! lane: a contact's bits do not depend on its lane or on the others.
//! `tests/gpu.rs` (`gpu_law_matches_cpu_law_in_every_branch`) evaluates
//! random contacts through every branch on the GPU against this file.

use super::jkr::Jkr;
use super::lanes::{self, L, V};
use crate::pair::PairParams;
use crate::scene::{Cohesion, ContactModel, Rolling};
use crate::state::Hist;
use crate::state::Motion;

pub type V3 = [f64; 3];

#[inline]
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline]
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline]
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
#[inline]
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline]
pub fn xyz(a: [f64; 4]) -> V3 {
    [a[0], a[1], a[2]]
}

/// One side of a contact.
#[derive(Debug, Clone, Copy)]
pub struct Body {
    /// Predicted full-step velocities v*(n), ω*(n): damping and friction.
    pub vel: V3,
    pub omega: V3,
    /// Half-step velocities v(n−½), ω(n−½) — the ones that moved the
    /// positions to x(n) — for the slip increment of the tangential spring
    /// (with v* the history drifted at first order in dt).
    pub vel_half: V3,
    pub omega_half: V3,
    /// Radius; ∞ for a wall.
    pub radius: f64,
    /// 1/m; 0 for a wall.
    pub inv_mass: f64,
    /// 1/I; 0 for a wall.
    pub inv_inertia: f64,
}

impl Body {
    /// A wall as the law sees it: at rest, infinite radius, no inverse
    /// mass or inertia (a moving wall will carry its velocity here).
    pub const WALL: Body = Body {
        vel: [0.0; 3],
        omega: [0.0; 3],
        vel_half: [0.0; 3],
        omega_half: [0.0; 3],
        radius: f64::INFINITY,
        inv_mass: 0.0,
        inv_inertia: 0.0,
    };
}

/// Model constants of the step that the law needs.
#[derive(Debug, Clone, Copy)]
pub struct LawParams {
    pub model: ContactModel,
    pub dt: f64,
    pub lin_stiffness: Option<f64>,
    pub lin_contact_time: Option<f64>,
    pub lin_kt_ratio: f64,
    pub cohesion: Cohesion,
    pub rolling: Rolling,
    /// How far past touching (m) the contact stages still evaluate an
    /// entry with history ([`crate::pair::stage_reach`]): in a JKR run the
    /// skin, 0 otherwise. Not read by the law, which parts a held contact
    /// past its pair's own separation δ_c.
    pub reach: f64,
}

/// What a pair law returns, in the canonical orientation (a → b).
#[derive(Debug, Clone, Copy, Default)]
pub struct PairResult {
    /// Force on a (b gets the negative).
    pub force_a: V3,
    pub torque_a: V3,
    pub torque_b: V3,
    /// New tangential displacement.
    pub xi: V3,
    /// Tangential stiffness used this step (stored beside ξ, in the history
    /// slot's w lane, for the next step's energy balance).
    pub kt: f64,
    /// New rolling spring torque M (`epsd`, `epsd2`; zero otherwise): the
    /// contact puts −M on a and M on b (and −M is what a feels of it).
    pub roll: V3,
    /// Elastic energy stored in the contact (J).
    pub elastic: f64,
    /// Energy dissipated by the contact during this step (J).
    pub dissipated: f64,
}

/// The contact law (Hertz–Mindlin or linear) of one pair. `n` is the unit
/// normal from a to b, `overlap` > 0, `hist` the stored history
/// ([`Hist`]: tangential displacement, last step's k_t, rolling torque);
/// zero for a new contact.
/// A wall is a `b` of infinite radius and zero inverse mass and inertia.
/// The law itself is `law`, generic over lanes, here on one lane.
pub fn pair_law(
    lp: &LawParams,
    pp: &PairParams,
    a: &Body,
    b: &Body,
    n: V3,
    overlap: f64,
    hist: Hist,
) -> PairResult {
    let mut pl = PairLanes::<1>::default();
    pl.set(0, pp);
    let (mut al, mut bl) = (BodyLanes::<1>::default(), BodyLanes::<1>::default());
    al.set(0, a);
    bl.set(0, b);
    let h = hist.map(|x| L([x]));
    law(lp, &pl, &al, &bl, lanes::v1(n), L([overlap]), h).get(0)
}

/// [`Body`] in `W` lanes.
#[derive(Debug, Clone, Copy)]
pub struct BodyLanes<const W: usize> {
    pub vel: V<W>,
    pub omega: V<W>,
    pub vel_half: V<W>,
    pub omega_half: V<W>,
    pub radius: L<W>,
    pub inv_mass: L<W>,
    pub inv_inertia: L<W>,
}

impl<const W: usize> Default for BodyLanes<W> {
    fn default() -> Self {
        let z = [L::splat(0.0); 3];
        BodyLanes {
            vel: z,
            omega: z,
            vel_half: z,
            omega_half: z,
            radius: L::splat(1.0),
            inv_mass: L::splat(1.0),
            inv_inertia: L::splat(1.0),
        }
    }
}

/// Sets lane `k` of a vector of lanes.
#[inline(always)]
pub fn set3<const W: usize>(v: &mut V<W>, k: usize, x: V3) {
    for (vi, xi) in v.iter_mut().zip(x) {
        vi.0[k] = xi;
    }
}

impl<const W: usize> BodyLanes<W> {
    /// Lane `k`: a particle, from its motion record and radius (what
    /// [`body`] makes of them).
    #[inline(always)]
    pub fn set_motion(&mut self, k: usize, m: &Motion<f64>, radius: f64) {
        set3(&mut self.vel, k, xyz(m[0]));
        set3(&mut self.omega, k, xyz(m[1]));
        set3(&mut self.vel_half, k, xyz(m[2]));
        set3(&mut self.omega_half, k, xyz(m[3]));
        self.radius.0[k] = radius;
        self.inv_mass.0[k] = m[0][3];
        self.inv_inertia.0[k] = m[1][3];
    }

    #[inline(always)]
    pub fn set(&mut self, k: usize, b: &Body) {
        set3(&mut self.vel, k, b.vel);
        set3(&mut self.omega, k, b.omega);
        set3(&mut self.vel_half, k, b.vel_half);
        set3(&mut self.omega_half, k, b.omega_half);
        self.radius.0[k] = b.radius;
        self.inv_mass.0[k] = b.inv_mass;
        self.inv_inertia.0[k] = b.inv_inertia;
    }
}

/// The [`PairParams`] the law reads, in `W` lanes.
#[derive(Debug, Clone, Copy)]
pub struct PairLanes<const W: usize> {
    pub e_star: L<W>,
    pub g_star: L<W>,
    pub restitution: L<W>,
    pub friction: L<W>,
    pub rolling_friction: L<W>,
    pub rolling_damping: L<W>,
    pub damp_n: L<W>,
    pub damp_t: L<W>,
    pub cohesion: L<W>,
    /// JKR's work of adhesion γ (J/m²).
    pub surface_energy: L<W>,
}

impl<const W: usize> Default for PairLanes<W> {
    fn default() -> Self {
        let z = L::splat(0.0);
        PairLanes {
            e_star: z,
            g_star: z,
            restitution: L::splat(1.0),
            friction: z,
            rolling_friction: z,
            rolling_damping: z,
            damp_n: z,
            damp_t: z,
            cohesion: z,
            surface_energy: z,
        }
    }
}

impl<const W: usize> PairLanes<W> {
    #[inline(always)]
    pub fn set(&mut self, k: usize, p: &PairParams) {
        self.e_star.0[k] = p.e_star;
        self.g_star.0[k] = p.g_star;
        self.restitution.0[k] = p.restitution;
        self.friction.0[k] = p.friction;
        self.rolling_friction.0[k] = p.rolling_friction;
        self.rolling_damping.0[k] = p.rolling_damping;
        self.damp_n.0[k] = p.damp_n;
        self.damp_t.0[k] = p.damp_t;
        self.cohesion.0[k] = p.cohesion_energy_density;
        self.surface_energy.0[k] = p.surface_energy;
    }
}

/// [`PairResult`] in `W` lanes.
#[derive(Debug, Clone, Copy)]
pub struct ResultLanes<const W: usize> {
    pub force_a: V<W>,
    pub torque_a: V<W>,
    pub torque_b: V<W>,
    pub xi: V<W>,
    pub kt: L<W>,
    pub roll: V<W>,
    pub elastic: L<W>,
    pub dissipated: L<W>,
}

impl<const W: usize> ResultLanes<W> {
    #[inline(always)]
    pub fn get(&self, k: usize) -> PairResult {
        PairResult {
            force_a: lanes::lane(self.force_a, k),
            torque_a: lanes::lane(self.torque_a, k),
            torque_b: lanes::lane(self.torque_b, k),
            xi: lanes::lane(self.xi, k),
            kt: self.kt.0[k],
            roll: lanes::lane(self.roll, k),
            elastic: self.elastic.0[k],
            dissipated: self.dissipated.0[k],
        }
    }
}

/// The contact law of `W` pairs at once, one per lane: [`pair_law`]'s
/// arguments in lanes. Branch-free: each branch of the law is computed in
/// every lane and selected, so a lane's bits do not depend on the others
/// (what a lane does not select may be ∞ or NaN, and is dropped).
#[inline(always)]
pub fn law<const W: usize>(
    lp: &LawParams,
    pp: &PairLanes<W>,
    a: &BodyLanes<W>,
    b: &BodyLanes<W>,
    n: V<W>,
    overlap: L<W>,
    hist: [L<W>; 8],
) -> ResultLanes<W> {
    use lanes::{add, cross, dot, scale, select, sub};
    let c = L::<W>::splat;
    let zero = [c(0.0); 3];
    let xi_old = [hist[0], hist[1], hist[2]];
    let dt = c(lp.dt);
    let particle_b = b.radius.is_finite();
    let r_star = L::select(
        particle_b,
        a.radius * b.radius / (a.radius + b.radius),
        a.radius,
    );
    let m_star = c(1.0) / (a.inv_mass + b.inv_mass);
    // Contact point arms from each centre (the middle of the overlap).
    let arm_a = scale(n, a.radius - c(0.5) * overlap);
    let arm_b = select(particle_b, scale(n, -(b.radius - c(0.5) * overlap)), zero);
    let v_rel = sub(
        add(a.vel, cross(a.omega, arm_a)),
        add(b.vel, cross(b.omega, arm_b)),
    );
    let vn = dot(v_rel, n);
    let vt = sub(v_rel, scale(n, vn));
    let v_half = sub(
        add(a.vel_half, cross(a.omega_half, arm_a)),
        add(b.vel_half, cross(b.omega_half, arm_b)),
    );
    let vt_half = sub(v_half, scale(n, dot(v_half, n)));

    // JKR (Hertz–Mindlin only, `scene::validate`): the contact radius a
    // from the overlap takes √(R*δ)'s place in the stiffnesses and the
    // damping, the force is JKR's (its Hertz part here, the adhesion's
    // pull below) and the potential Φ(a)
    let jkr =
        (lp.cohesion == Cohesion::Jkr).then(|| Jkr::new(r_star, pp.e_star, pp.surface_energy));
    let jkr_state = jkr.map(|j| j.at(overlap));
    let (kn, gn, kt, gt, elastic_n, fn_el) = match (lp.model, jkr_state) {
        (_, Some(s)) => {
            let kn = c(4.0 / 3.0) * pp.e_star * s.a;
            let st = c(8.0) * pp.g_star * s.a;
            let q = (s.a * m_star).sqrt();
            let (gn, gt) = (pp.damp_n * q, pp.damp_t * q);
            (kn, gn, st, gt, s.potential, s.hertz)
        }
        (ContactModel::HertzMindlin, None) => {
            let sq = (r_star * overlap).sqrt();
            let kn = c(4.0 / 3.0) * pp.e_star * sq;
            let st = c(8.0) * pp.g_star * sq;
            let q = (sq * m_star).sqrt();
            let (gn, gt) = (pp.damp_n * q, pp.damp_t * q);
            (
                kn,
                gn,
                st,
                gt,
                c(0.4) * kn * overlap * overlap,
                kn * overlap,
            )
        }
        (ContactModel::Linear, None) => {
            let (mut kn, mut gn) = (c(0.0), c(0.0));
            for k in 0..W {
                (kn.0[k], gn.0[k]) = crate::timestep::linear_coefficients(
                    m_star.0[k],
                    pp.restitution.0[k],
                    lp.lin_stiffness,
                    lp.lin_contact_time,
                );
            }
            let kt = c(lp.lin_kt_ratio) * kn;
            let gt = gn * c(lp.lin_kt_ratio.sqrt());
            (
                kn,
                gn,
                kt,
                gt,
                c(0.5) * kn * overlap * overlap,
                kn * overlap,
            )
        }
    };
    // Normal force magnitude (compressive > 0), acting on a along -n.
    let fn_total = fn_el + gn * vn;

    // Tangential: rotate the stored displacement into the current tangent
    // plane (keeping its length), add this step's slip, Coulomb-limit.
    let xi = sub(xi_old, scale(n, dot(xi_old, n)));
    let old_len2 = dot(xi_old, xi_old);
    let new_len2 = dot(xi, xi);
    let xi = select(
        new_len2.gt(c(0.0)),
        scale(xi, (old_len2 / new_len2).sqrt()),
        xi,
    );
    // Energy in the spring before this step's slip (with last step's k_t: a
    // Mindlin k_t changes with the overlap, which moves energy in or out of
    // the spring without work; it lands in the contact's dissipation term).
    let kt_old = L::select(hist[3].gt(c(0.0)), hist[3], kt);
    let elastic_t_old = c(0.5) * kt_old * dot(xi, xi);
    let xi = add(xi, scale(vt_half, dt));
    let ft = sub(scale(xi, -kt), scale(vt, gt));
    let ft_max = pp.friction * fn_total.max(c(0.0));
    let ft_len = dot(ft, ft).sqrt();
    let sliding = ft_len.gt(ft_max);
    // Sliding: the force is cut to the Coulomb limit, and the spring
    // carries all of it (the damper none), so no energy is parked in the
    // spring that the slip already dissipated.
    let ft_slide = select(ft_len.gt(c(0.0)), scale(ft, ft_max / ft_len), zero);
    let xi_slide = select(kt.gt(c(0.0)), scale(ft_slide, c(-1.0) / kt), zero);
    let ft = select(sliding, ft_slide, ft);
    let xi = select(sliding, xi_slide, xi);
    let elastic_t = c(0.5) * kt * dot(xi, xi);
    let (f_coh, elastic_coh) = match jkr_state {
        Some(s) => (s.pull, c(0.0)),
        None => cohesion(lp.cohesion, pp, a, b, particle_b, r_star, overlap),
    };
    let force_a = add(scale(n, f_coh - fn_total), ft);
    let mut torque_a = cross(arm_a, ft);
    let mut torque_b = cross(arm_b, scale(ft, c(-1.0)));

    let mut dissipated_roll = c(0.0);
    let mut roll = zero;
    let mut elastic_roll = c(0.0);
    let mut elastic_roll_old = c(0.0);
    match lp.rolling {
        Rolling::Cdt => {
            // Rolling resistance: constant directional torque against the
            // relative rolling velocity, capped so that one contact removes
            // at most 1/ROLLING_SHARE of it in a step (several contacts
            // summed must not reverse it: `crate::pair::ROLLING_SHARE`).
            let rolling = pp.rolling_friction.gt(c(0.0));
            if L::any(rolling) {
                let w_rel = sub(a.omega, b.omega);
                let w_roll = sub(w_rel, scale(n, dot(w_rel, n)));
                let w_len = dot(w_roll, w_roll).sqrt();
                let on = lanes::and(w_len.gt(c(0.0)), rolling);
                let inv_i = a.inv_inertia + b.inv_inertia;
                let m = pp.rolling_friction * r_star * fn_total.max(c(0.0));
                let share = c(f64::from(crate::pair::ROLLING_SHARE));
                let m = L::select(inv_i.gt(c(0.0)), m.min(w_len / (share * inv_i * dt)), m);
                let mr = scale(w_roll, -m / w_len);
                torque_a = select(on, add(torque_a, mr), torque_a);
                torque_b = select(on, sub(torque_b, mr), torque_b);
                dissipated_roll = L::select(on, m * w_len * dt, dissipated_roll);
            }
        }
        Rolling::Epsd | Rolling::Epsd2 => {
            let r = rolling_spring(lp, pp, a, b, n, r_star, kn, kt, kt_old, fn_total, hist);
            torque_a = sub(torque_a, r.applied);
            torque_b = add(torque_b, r.applied);
            (roll, elastic_roll, dissipated_roll) = (r.stored, r.elastic, r.dissipated);
            elastic_roll_old = r.elastic_old;
        }
    }
    let dissipated_n = gn * vn * vn * dt;
    // work done on the spring–damper–slider minus what it now stores
    let dissipated_t = -dot(ft, vt) * dt - (elastic_t - elastic_t_old);
    let out = ResultLanes {
        force_a,
        torque_a,
        torque_b,
        xi,
        kt,
        roll,
        elastic: elastic_n + elastic_t + elastic_coh + elastic_roll,
        dissipated: dissipated_n + dissipated_t + dissipated_roll,
    };
    match (jkr, jkr_state) {
        (Some(j), Some(s)) => {
            // a contact that has touched (k_t > 0 stored) holds past
            // touching down to δ_c; surfaces that touch snap in
            let held = hist[3].gt(c(0.0));
            let on = lanes::or(overlap.gt(c(0.0)), lanes::and(held, s.holds));
            let parted = elastic_t_old + elastic_roll_old + j.parting_loss();
            jkr_select(on, held, out, j.snap_in_loss(), parted)
        }
        _ => out,
    }
}

/// JKR's lanes: the law's result `out` where the contact is `on`, with the
/// snap-in's loss added to a new one (not `held`); where it is not,
/// nothing but, for a contact that parted (`held`), the energy it held
/// (`parted`: the potential at δ_c and its springs') dissipated.
#[inline(always)]
fn jkr_select<const W: usize>(
    on: lanes::Mask<W>,
    held: lanes::Mask<W>,
    out: ResultLanes<W>,
    snap: L<W>,
    parted: L<W>,
) -> ResultLanes<W> {
    let c = L::<W>::splat;
    let z = [c(0.0); 3];
    let v = |x| lanes::select(on, x, z);
    let s = |x| L::select(on, x, c(0.0));
    let lost = L::select(
        on,
        out.dissipated + L::select(held, c(0.0), snap),
        L::select(held, parted, c(0.0)),
    );
    ResultLanes {
        force_a: v(out.force_a),
        torque_a: v(out.torque_a),
        torque_b: v(out.torque_b),
        xi: v(out.xi),
        kt: s(out.kt),
        roll: v(out.roll),
        elastic: s(out.elastic),
        dissipated: lost,
    }
}

/// What [`rolling_spring`] returns, in lanes.
struct RollLanes<const W: usize> {
    /// The torque the contact puts on b (−it on a).
    applied: V<W>,
    /// The spring's torque kept for the next step.
    stored: V<W>,
    /// The spring's energy |M|² / (2 k_r) and what the step dissipated.
    elastic: L<W>,
    dissipated: L<W>,
    /// The energy it held before the step.
    elastic_old: L<W>,
}

/// Rolling resistance with memory, LIGGGHTS' `epsd` and `epsd2`
/// (`rolling_model_epsd*.h`; Ai et al. 2011): a rolling spring whose torque
/// M is kept per contact (the history's 4..7, in the pair's orientation).
/// Each step M += k_r ω_rel,t dt, ω_rel,t the relative spin ω_a − ω_b of
/// the half step (the slip increment's) without its part along n; |M| is
/// capped at μ_r R* |F_n| (F_n with its damping, as LIGGGHTS' `Fn`); the
/// stored M is not turned with the contact (as LIGGGHTS'). k_r = k_t R*²
/// (`epsd2`) or 2.25 k_n μ_r² R*² (`epsd`, which adds a dashpot
/// η_r 2 √(I_r k_r) on ω_rel,t while the spring holds, I_r = 1.4 /
/// (1/(m_a r_a²) + 1/(m_b r_b²)), a wall's 1.4 m_a r_a²). a gets −M, b +M.
/// The spring's energy is |M|² / (2 k_r); what the torque took from the
/// spins this step (M · (ω_a − ω_b) dt, the predicted spins, as the
/// tangential work) less the energy's rise is dissipated, so the balance
/// closes (a Mindlin k_r changing with the overlap lands there too).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn rolling_spring<const W: usize>(
    lp: &LawParams,
    pp: &PairLanes<W>,
    a: &BodyLanes<W>,
    b: &BodyLanes<W>,
    n: V<W>,
    r_star: L<W>,
    kn: L<W>,
    kt: L<W>,
    kt_old: L<W>,
    fn_total: L<W>,
    hist: [L<W>; 8],
) -> RollLanes<W> {
    use lanes::{add, dot, scale, select, sub};
    let c = L::<W>::splat;
    let dt = c(lp.dt);
    let tangential = |w: V<W>| sub(w, scale(n, dot(w, n)));
    let r2 = r_star * r_star;
    let epsd = lp.rolling == Rolling::Epsd;
    let (kr, kr_old) = if epsd {
        let k = c(2.25) * kn * pp.rolling_friction * pp.rolling_friction * r2;
        (k, k)
    } else {
        (kt * r2, kt_old * r2)
    };
    let m_old = [hist[4], hist[5], hist[6]];
    // the spring's energy before this step, with the k_r it was stored
    // with (epsd2: last step's k_t; epsd's k_n is not kept: this step's)
    let e_old = L::select(
        kr_old.gt(c(0.0)),
        c(0.5) * dot(m_old, m_old) / kr_old,
        c(0.0),
    );
    let w_half = tangential(sub(a.omega_half, b.omega_half));
    let m = add(m_old, scale(w_half, kr * dt));
    let m_len = dot(m, m).sqrt();
    let m_max = pp.rolling_friction * r_star * fn_total.abs();
    let capped = m_len.gt(m_max);
    let m = select(capped, scale(m, m_max / m_len), m);
    let w_rel = sub(a.omega, b.omega);
    let applied = if epsd {
        let i_r =
            c(1.4) / (a.inv_mass / (a.radius * a.radius) + b.inv_mass / (b.radius * b.radius));
        let coef = pp.rolling_damping * c(2.0) * (i_r * kr).sqrt();
        select(capped, m, add(m, scale(tangential(w_rel), coef)))
    } else {
        m
    };
    let elastic = L::select(kr.gt(c(0.0)), c(0.5) * dot(m, m) / kr, c(0.0));
    RollLanes {
        applied,
        stored: m,
        elastic,
        dissipated: dot(applied, w_rel) * dt - (elastic - e_old),
        elastic_old: e_old,
    }
}

/// The cohesive pull (N, ≥ 0: along n on a, towards b) and its potential
/// (J, ≤ 0), LIGGGHTS' `cohesion sjkr` and `sjkr2`: a force k A while the
/// surfaces overlap, k the pair's cohesion energy density, A a contact
/// area. Neither the Coulomb nor the rolling limit sees it (LIGGGHTS'
/// default, `tangential_reduce off`). The potential, −∫₀^δ k A dδ', is
/// stored with the contact's elastic energy, so the energy balance closes
/// (it is continuous at δ = 0: no energy jumps when a contact starts or
/// ends).
///
/// - `sjkr`: A = π a², a the radius of the circle where the surfaces
///   cross. Between particles, with S = r_a + r_b, D = r_a − r_b and the
///   centre distance d = S − δ: a² = (S² − d²)(d² − D²) / (4d²) =
///   δ (S + d)(d² − D²) / (4d²), and U = −k π/4 δ² ((2S + d)/3 − D²/d)
///   (the integral in closed form, with no difference of near-equal
///   terms). At a wall: a² = δ (2R − δ), U = −k π (R δ² − δ³/3).
/// - `sjkr2`: A = 2π (2R*) δ between particles, 2π R δ at a wall:
///   U = −k A δ / 2.
#[inline(always)]
fn cohesion<const W: usize>(
    model: Cohesion,
    pp: &PairLanes<W>,
    a: &BodyLanes<W>,
    b: &BodyLanes<W>,
    particle_b: lanes::Mask<W>,
    r_star: L<W>,
    overlap: L<W>,
) -> (L<W>, L<W>) {
    let c = L::<W>::splat;
    let pi = std::f64::consts::PI;
    let (k, delta) = (pp.cohesion, overlap);
    match model {
        Cohesion::None | Cohesion::Jkr => (c(0.0), c(0.0)),
        Cohesion::Sjkr => {
            let s = a.radius + b.radius;
            let dd = a.radius - b.radius;
            let d = s - delta;
            let a2_pair = delta * (s + d) * (d * d - dd * dd) / (c(4.0) * d * d);
            let u_pair = delta * delta * ((c(2.0) * s + d) / c(3.0) - dd * dd / d) * c(0.25);
            let r = a.radius;
            let a2_wall = delta * (c(2.0) * r - delta);
            let u_wall = delta * delta * (r - delta / c(3.0));
            let a2 = L::select(particle_b, a2_pair, a2_wall);
            let u = L::select(particle_b, u_pair, u_wall);
            (k * c(pi) * a2, -(k * c(pi) * u))
        }
        Cohesion::Sjkr2 => {
            let g = L::select(particle_b, c(4.0 * pi), c(2.0 * pi));
            let f = k * g * r_star * delta;
            (f, -(c(0.5) * f * delta))
        }
    }
}

/// The cohesive pull and its potential ([`cohesion`] on one lane) of a
/// contact of overlap δ between spheres of radii `ra` and `rb` (∞: a
/// wall) with cohesion energy density `k`: what `talus check` reports of
/// a scene's cohesion (`run::accuracy::cohesion_estimate`), from the law
/// itself.
pub fn cohesion_one(model: Cohesion, k: f64, ra: f64, rb: f64, delta: f64) -> (f64, f64) {
    let mut pp = PairLanes::<1>::default();
    pp.cohesion.0[0] = k;
    let (mut a, mut b) = (BodyLanes::<1>::default(), BodyLanes::<1>::default());
    a.radius.0[0] = ra;
    b.radius.0[0] = rb;
    let r_star = if rb.is_finite() {
        ra * rb / (ra + rb)
    } else {
        ra
    };
    let particle_b = b.radius.is_finite();
    let (f, u) = cohesion(model, &pp, &a, &b, particle_b, L([r_star]), L([delta]));
    (f.0[0], u.0[0])
}

/// A particle as one side of a contact: its motion record and radius.
#[inline]
pub fn body(m: &Motion<f64>, radius: f64) -> Body {
    Body {
        vel: xyz(m[0]),
        omega: xyz(m[1]),
        vel_half: xyz(m[2]),
        omega_half: xyz(m[3]),
        radius,
        inv_mass: m[0][3],
        inv_inertia: m[1][3],
    }
}

/// Contacts evaluated together, one per lane ([`law`]): four f64 lanes
/// are two SSE2 instructions per operation, and four independent chains
/// of square roots and divisions keep the core busy where one contact's
/// chain left it waiting.
pub const LANES: usize = 4;

/// The law's inputs of [`LANES`] contacts.
#[derive(Debug, Clone, Copy, Default)]
pub struct LawIn {
    pub pp: PairLanes<LANES>,
    pub a: BodyLanes<LANES>,
    pub b: BodyLanes<LANES>,
    pub n: V<LANES>,
    pub overlap: L<LANES>,
    pub hist: [L<LANES>; 8],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn vec(r: &mut Rng, s: f64) -> V3 {
        scale(r.in_unit_ball(), s)
    }

    fn particle(r: &mut Rng) -> Body {
        let radius = r.range(0.5e-3, 2e-3);
        let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        Body {
            vel: vec(r, 0.5),
            omega: vec(r, 300.0),
            vel_half: vec(r, 0.5),
            omega_half: vec(r, 300.0),
            radius,
            inv_mass: 1.0 / mass,
            inv_inertia: 1.0 / (0.4 * mass * radius * radius),
        }
    }

    fn wall() -> Body {
        Body::WALL
    }

    fn bits(r: &PairResult) -> Vec<u64> {
        let mut v: Vec<f64> = [r.force_a, r.torque_a, r.torque_b, r.xi, r.roll].concat();
        v.extend([r.kt, r.elastic, r.dissipated]);
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The law on four lanes gives each contact the bits it gets alone
    /// ([`pair_law`], one lane), with lanes that take different branches
    /// side by side: new and old contacts, sticking and sliding, rolling
    /// resistance on and off, particle and wall partners, both models.
    #[test]
    fn four_lanes_give_each_contact_its_one_lane_bits() {
        let mut r = Rng::new(7);
        let (mut sliding, mut sticking, mut rolling) = (0, 0, 0);
        for (model, cohesion, rolling_model) in [
            (ContactModel::HertzMindlin, Cohesion::None, Rolling::Cdt),
            (ContactModel::Linear, Cohesion::None, Rolling::Cdt),
            (ContactModel::HertzMindlin, Cohesion::Sjkr, Rolling::Cdt),
            (ContactModel::Linear, Cohesion::Sjkr2, Rolling::Cdt),
            (ContactModel::HertzMindlin, Cohesion::None, Rolling::Epsd2),
            (ContactModel::Linear, Cohesion::Sjkr, Rolling::Epsd2),
            (ContactModel::HertzMindlin, Cohesion::None, Rolling::Epsd),
        ] {
            let lp = LawParams {
                model,
                dt: 1e-6,
                lin_stiffness: Some(1e4),
                lin_contact_time: None,
                lin_kt_ratio: 2.0 / 7.0,
                cohesion,
                rolling: rolling_model,
                reach: 0.0,
            };
            for _ in 0..500 {
                let mut li = LawIn::default();
                let mut alone = Vec::new();
                for lane in 0..LANES {
                    let a = particle(&mut r);
                    let b = if r.f64() < 0.2 {
                        wall()
                    } else {
                        particle(&mut r)
                    };
                    let pp = PairParams {
                        e_star: r.range(1e6, 1e8),
                        g_star: r.range(1e6, 1e8),
                        restitution: r.range(0.1, 0.95),
                        friction: r.range(0.0, 0.8),
                        rolling_friction: if r.f64() < 0.5 { 0.0 } else { 0.05 },
                        rolling_damping: r.range(0.0, 1.0),
                        damp_n: -r.range(0.0, 2e3),
                        damp_t: -r.range(0.0, 2e3),
                        cohesion_energy_density: r.range(0.0, 1e6),
                        ..Default::default()
                    };
                    let nv = r.in_unit_ball();
                    let n = scale(nv, 1.0 / dot(nv, nv).sqrt());
                    let overlap = r.range(1e-7, 2e-5);
                    let hist = if r.f64() < 0.3 {
                        [0.0; 8]
                    } else {
                        let len = r.range(1e-8, 1e-4);
                        let x = vec(&mut r, len);
                        // a rolling torque from well below to well over
                        // the cap
                        let m_len = r.range(1e-9, 1e-5);
                        let m = vec(&mut r, m_len);
                        [x[0], x[1], x[2], r.range(1e3, 1e5), m[0], m[1], m[2], 0.0]
                    };
                    let one = pair_law(&lp, &pp, &a, &b, n, overlap, hist);
                    let ft_len = dot(one.xi, one.xi).sqrt() * one.kt;
                    let fn_el = dot(one.force_a, n).abs();
                    if ft_len >= pp.friction * fn_el * 0.999 && hist != [0.0; 8] {
                        sliding += 1;
                    } else {
                        sticking += 1;
                    }
                    rolling += (pp.rolling_friction > 0.0) as usize;
                    li.a.set(lane, &a);
                    li.b.set(lane, &b);
                    li.pp.set(lane, &pp);
                    set3(&mut li.n, lane, n);
                    li.overlap.0[lane] = overlap;
                    for (h, x) in li.hist.iter_mut().zip(hist) {
                        h.0[lane] = x;
                    }
                    alone.push(one);
                }
                let four = law(&lp, &li.pp, &li.a, &li.b, li.n, li.overlap, li.hist);
                for (lane, one) in alone.iter().enumerate() {
                    assert_eq!(bits(&four.get(lane)), bits(one), "{model:?}, lane {lane}");
                }
            }
        }
        // the branches the lanes must keep apart were all taken
        assert!(
            sliding > 200 && sticking > 200 && rolling > 200,
            "{sliding} {sticking} {rolling}"
        );
    }

    /// The area of the circle where two spheres' surfaces cross (or a
    /// sphere's and a plane's), from the intersection's geometry directly:
    /// the circle lies at x from a's centre along the line of centres,
    /// with a² = r_a² − x².
    fn crossing_area(ra: f64, rb: Option<f64>, delta: f64) -> f64 {
        let a2 = match rb {
            Some(rb) => {
                let d = ra + rb - delta;
                let x = (d * d + ra * ra - rb * rb) / (2.0 * d);
                ra * ra - x * x
            }
            None => ra * ra - (ra - delta) * (ra - delta),
        };
        std::f64::consts::PI * a2
    }

    /// SJKR and SJKR2: the pull is k A along n on a (LIGGGHTS' areas; for
    /// `sjkr` the crossing circle's, computed here another way), the normal
    /// force is the cohesionless law's less it, the tangential force and
    /// torques are unchanged, and the stored potential is −∫ k A dδ
    /// (Simpson's rule over 0..δ): the energy balance's term.
    #[test]
    fn sjkr_pulls_with_k_times_the_area_and_stores_its_work() {
        let lp = |cohesion| LawParams {
            rolling: Rolling::Cdt,
            model: ContactModel::HertzMindlin,
            dt: 1e-6,
            lin_stiffness: None,
            lin_contact_time: None,
            lin_kt_ratio: 2.0 / 7.0,
            cohesion,
            reach: 0.0,
        };
        let k = 3.0e5;
        let pp = PairParams {
            e_star: 5e7,
            g_star: 2e7,
            restitution: 0.5,
            friction: 0.5,
            rolling_friction: 0.1,
            damp_n: -500.0,
            damp_t: -500.0,
            cohesion_energy_density: k,
            ..Default::default()
        };
        let mut r = Rng::new(11);
        let pi = std::f64::consts::PI;
        for _ in 0..200 {
            let a = particle(&mut r);
            let partner = if r.f64() < 0.3 {
                None
            } else {
                Some(particle(&mut r))
            };
            let b = partner.unwrap_or(Body::WALL);
            let nv = r.in_unit_ball();
            let n = scale(nv, 1.0 / dot(nv, nv).sqrt());
            let delta = r.range(1e-7, 0.05 * a.radius);
            let hist = [1e-6, -2e-6, 0.5e-6, 3e3, 0.0, 0.0, 0.0, 0.0];
            let dry = pair_law(&lp(Cohesion::None), &pp, &a, &b, n, delta, hist);
            let rb = partner.map(|p| p.radius);
            let r_star = rb.map_or(a.radius, |rb| a.radius * rb / (a.radius + rb));
            for (model, area) in [
                (
                    Cohesion::Sjkr,
                    &(|d: f64| crossing_area(a.radius, rb, d)) as &dyn Fn(f64) -> f64,
                ),
                (Cohesion::Sjkr2, &|d: f64| {
                    2.0 * pi * rb.map_or(a.radius, |_| 2.0 * r_star) * d
                }),
            ] {
                let wet = pair_law(&lp(model), &pp, &a, &b, n, delta, hist);
                let pull = k * area(delta);
                let df = sub(wet.force_a, dry.force_a);
                let want = scale(n, pull);
                for c in 0..3 {
                    assert!(
                        (df[c] - want[c]).abs() <= 1e-9 * pull,
                        "{model:?}: {df:?} vs {want:?}"
                    );
                }
                assert_eq!(wet.torque_a, dry.torque_a);
                assert_eq!(wet.xi, dry.xi);
                assert_eq!(wet.dissipated, dry.dissipated);
                let m = 200;
                let h = delta / m as f64;
                let work: f64 = (0..=m)
                    .map(|i| {
                        let w = if i == 0 || i == m {
                            1.0
                        } else if i % 2 == 1 {
                            4.0
                        } else {
                            2.0
                        };
                        w * k * area(i as f64 * h)
                    })
                    .sum::<f64>()
                    * h
                    / 3.0;
                let u = wet.elastic - dry.elastic;
                assert!(
                    (u + work).abs() <= 1e-9 * work,
                    "{model:?}, wall {}: U {u:e}, −∫ k A dδ {:e}",
                    partner.is_none(),
                    -work
                );
            }
        }
    }

    /// JKR on one contact (`cpu::jkr`): surfaces apart without history
    /// feel nothing; touching, the force and potential are JKR's and the
    /// snap-in's loss is booked; held apart (δ < 0) with its history the
    /// contact pulls as JKR says; past δ_c it parts: nothing kept, and
    /// what it held (the potential at δ_c, the tangential spring) lost.
    #[test]
    fn jkr_law_snaps_in_holds_apart_and_parts_with_its_energy() {
        let pp = PairParams {
            e_star: 5.3e6,
            g_star: 2e6,
            restitution: 0.5,
            friction: 0.5,
            damp_n: -500.0,
            damp_t: -500.0,
            surface_energy: 0.05,
            ..Default::default()
        };
        let r = 1e-3;
        let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        // at rest, sliding sideways a little (the tangential spring loads)
        let body = |v: f64| Body {
            vel: [v, 0.0, 0.0],
            omega: [0.0; 3],
            vel_half: [v, 0.0, 0.0],
            omega_half: [0.0; 3],
            radius: r,
            inv_mass: 1.0 / m,
            inv_inertia: 1.0 / (0.4 * m * r * r),
        };
        let (a, b) = (body(1e-4), body(0.0));
        let n = [0.0, 0.0, 1.0];
        let lp = LawParams {
            model: ContactModel::HertzMindlin,
            dt: 1e-6,
            lin_stiffness: None,
            lin_contact_time: None,
            lin_kt_ratio: 2.0 / 7.0,
            cohesion: Cohesion::Jkr,
            rolling: Rolling::Cdt,
            reach: 1e-4,
        };
        let jkr = super::super::jkr::JkrPair::new(0.5 * r, pp.e_star, pp.surface_energy);
        let reach = jkr.reach();
        // not touching, no history: nothing
        let res = pair_law(&lp, &pp, &a, &b, n, -0.5 * reach, [0.0; 8]);
        assert_eq!(
            (res.force_a, res.kt, res.elastic, res.dissipated),
            ([0.0; 3], 0.0, 0.0, 0.0)
        );
        // touching: JKR's force, its potential, the snap-in's loss
        let delta = 1e-8;
        let res = pair_law(&lp, &pp, &a, &b, n, delta, [0.0; 8]);
        let (f, u) = jkr.at(delta).unwrap();
        assert!((-res.force_a[2] - f).abs() < 1e-12 * f.abs(), "{res:?} {f}");
        assert!((res.elastic - u - 0.5 * res.kt * dot(res.xi, res.xi)).abs() < 1e-9 * u.abs());
        assert!(res.dissipated > 0.99 * jkr.snap_in_loss(), "{res:?}");
        // held apart (δ < 0) with its history: the same law, in tension
        let mut h = [res.xi[0], res.xi[1], res.xi[2], res.kt, 0.0, 0.0, 0.0, 0.0];
        for k in 1..=9 {
            let delta = -0.1 * k as f64 * reach;
            let res = pair_law(&lp, &pp, &a, &b, n, delta, h);
            let (f, _) = jkr.at(delta).unwrap();
            assert!(
                f < 0.0 && (-res.force_a[2] - f).abs() < 1e-9 * f.abs(),
                "{delta}: {res:?} {f}"
            );
            assert!(
                res.kt > 0.0 && res.dissipated < 0.01 * jkr.snap_in_loss(),
                "{res:?}"
            );
            h = [res.xi[0], res.xi[1], res.xi[2], res.kt, 0.0, 0.0, 0.0, 0.0];
        }
        // past δ_c: parted, nothing kept, the potential at δ_c and the
        // spring's energy lost
        let spring = 0.5 * h[3] * (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
        assert!(spring > 0.0);
        let res = pair_law(&lp, &pp, &a, &b, n, -1.01 * reach, h);
        assert_eq!(
            (res.force_a, res.xi, res.kt, res.elastic),
            ([0.0; 3], [0.0; 3], 0.0, 0.0)
        );
        let lost = jkr.parting_loss() + spring;
        assert!(
            (res.dissipated - lost).abs() < 1e-12 * lost,
            "{} vs {lost}",
            res.dissipated
        );
    }

    /// EPSD2 and EPSD (LIGGGHTS' `rolling_model_epsd2.h`, `epsd.h`) on a
    /// contact held at a fixed overlap while a turns at a constant rate
    /// about a tangent axis, b at rest, the history fed back: the rolling
    /// torque winds up by k_r ω dt a step (k_r = k_t R*² for epsd2,
    /// 2.25 k_n μ_r² R*² for epsd) to its cap μ_r R* |F_n| and stays there;
    /// a gets −M (less the dashpot, epsd), b +M, on top of what the law
    /// without rolling friction gives; the spring stores |M|²/(2 k_r) and
    /// what it dissipates closes the balance (work in = stored + lost).
    #[test]
    fn rolling_spring_winds_up_to_its_cap_and_books_its_energy() {
        let pp = PairParams {
            e_star: 5e7,
            g_star: 2e7,
            restitution: 0.5,
            friction: 0.5,
            rolling_friction: 0.1,
            rolling_damping: 0.3,
            damp_n: -500.0,
            damp_t: -500.0,
            ..Default::default()
        };
        let dry = PairParams {
            rolling_friction: 0.0,
            ..pp
        };
        let (ra, rb) = (1e-3, 1.5e-3);
        let body = |r: f64, w: V3| {
            let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
            Body {
                vel: [0.0; 3],
                omega: w,
                vel_half: [0.0; 3],
                omega_half: w,
                radius: r,
                inv_mass: 1.0 / m,
                inv_inertia: 1.0 / (0.4 * m * r * r),
            }
        };
        let n = [0.0, 0.0, 1.0];
        let delta = 2e-6;
        let r_star = ra * rb / (ra + rb);
        let dt = 1e-6;
        // (epsd's spring is ~100 times softer here: a faster turn)
        for (rolling, rate) in [(Rolling::Epsd2, 3.0), (Rolling::Epsd, 300.0)] {
            let w = [0.0, rate, 0.0];
            let (a, b) = (body(ra, w), body(rb, [0.0; 3]));
            let lp = LawParams {
                model: ContactModel::HertzMindlin,
                dt,
                lin_stiffness: None,
                lin_contact_time: None,
                lin_kt_ratio: 2.0 / 7.0,
                cohesion: Cohesion::None,
                rolling,
                reach: 0.0,
            };
            let (mut h, mut hd) = ([0.0; 8], [0.0; 8]);
            let (mut work, mut lost, mut stored) = (0.0, 0.0, 0.0);
            let mut capped_at = None;
            for step in 1..=400 {
                let r = pair_law(&lp, &pp, &a, &b, n, delta, h);
                let d = pair_law(&lp, &dry, &a, &b, n, delta, hd);
                let kn = 4.0 / 3.0 * pp.e_star * (r_star * delta).sqrt();
                let kr = match rolling {
                    Rolling::Epsd => 2.25 * kn * 0.1 * 0.1 * r_star * r_star,
                    _ => r.kt * r_star * r_star,
                };
                // F_n: the normal force, read off the law's
                let f_n = -dot(r.force_a, n);
                let cap = 0.1 * r_star * f_n.abs();
                let expect = (step as f64 * kr * w[1] * dt).min(cap);
                let m = r.roll;
                assert!(
                    (m[1] - expect).abs() <= 1e-9 * cap,
                    "{rolling:?} step {step}: {m:?} vs {expect}"
                );
                assert_eq!((m[0], m[2]), (0.0, 0.0));
                if capped_at.is_none() && expect == cap {
                    capped_at = Some(step);
                }
                // the torques: −M (and the dashpot while it holds) on a, +M on b
                let damp = if rolling == Rolling::Epsd && expect < cap {
                    let i_r = 1.4 / (a.inv_mass / (ra * ra) + b.inv_mass / (rb * rb));
                    0.3 * 2.0 * (i_r * kr).sqrt() * w[1]
                } else {
                    0.0
                };
                let applied = m[1] + damp;
                let tol = 1e-9 * applied + 1e-13 * dot(d.torque_a, d.torque_a).sqrt();
                assert!((d.torque_a[1] - r.torque_a[1] - applied).abs() <= tol);
                assert!((r.torque_b[1] - d.torque_b[1] - applied).abs() <= tol);
                // its energy, and the balance: the torque's work on the
                // spins is what it stores now plus what it lost
                let e = 0.5 * m[1] * m[1] / kr;
                let tol = 1e-9 * e + 1e-13 * r.elastic;
                assert!(
                    (r.elastic - d.elastic - e).abs() <= tol,
                    "{rolling:?} step {step}"
                );
                work += applied * w[1] * dt;
                lost += r.dissipated - d.dissipated;
                stored = e;
                h = [r.xi[0], r.xi[1], r.xi[2], r.kt, m[0], m[1], m[2], 0.0];
                hd = [d.xi[0], d.xi[1], d.xi[2], d.kt, 0.0, 0.0, 0.0, 0.0];
            }
            let at = capped_at.expect("the spring reached its cap");
            assert!(at > 20 && at < 390, "{rolling:?} capped at step {at}");
            assert!(
                (work - stored - lost).abs() <= 1e-9 * work,
                "{work} {stored} {lost}"
            );
            assert!(lost > 0.0);
        }
    }
}
