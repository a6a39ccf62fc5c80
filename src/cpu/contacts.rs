//! Stage 4, contacts: every particle gathers over its neighbour-list
//! candidates and the walls, and sums its own force and torque (no
//! scattered writes). The tangential history of a pair sits beside the
//! list entry (each partner keeps a copy; both hold the same bits), that
//! of a wall beside the particle.
//!
//! Each pair is evaluated in its canonical orientation (from the lower id,
//! walls from the particle), so the two partners compute bit-identical
//! results and apply them with opposite signs: forces are exactly
//! antisymmetric and both history copies stay equal.
//!
//! An entry's top bit flags non-zero history, so the history is read only
//! for entries with it and written only for contacts and for the contacts
//! that ended.
//!
//! The CPU works in batches of particles (`SUB`, 32): it classifies their
//! entries (contact or not, which also prefetches the partners' motion
//! records and the contacts' history: see `classify`), runs the contacts
//! through the law `LANES` (4) at a time (`law`, on `lanes::L`), then sums
//! each particle's contacts in its row's order and adds its walls.

use super::lanes::{self, L, V};
use super::neighbours::{HAS_HISTORY, INDEX};
use super::Step;
use crate::grid::Grid;
use crate::pair::PairParams;
use crate::scene::ContactModel;
use crate::state::{Motion, Real};

type V3 = [f64; 3];

#[inline]
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline]
fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline]
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline]
fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline]
fn xyz(a: [f64; 4]) -> V3 {
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

/// Model constants of the step that the law needs.
#[derive(Debug, Clone, Copy)]
pub struct LawParams {
    pub model: ContactModel,
    pub dt: f64,
    pub lin_stiffness: Option<f64>,
    pub lin_contact_time: Option<f64>,
    pub lin_kt_ratio: f64,
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
    /// Elastic energy stored in the contact (J).
    pub elastic: f64,
    /// Energy dissipated by the contact during this step (J).
    pub dissipated: f64,
}

/// The contact law (Hertz–Mindlin or linear) of one pair. `n` is the unit
/// normal from a to b, `overlap` > 0, `hist` the stored tangential
/// displacement (xyz) and last step's k_t (w); zero for a new contact.
/// A wall is a `b` of infinite radius and zero inverse mass and inertia.
/// The law itself is `law`, generic over lanes, here on one lane.
pub fn pair_law(
    lp: &LawParams,
    pp: &PairParams,
    a: &Body,
    b: &Body,
    n: V3,
    overlap: f64,
    hist: [f64; 4],
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
struct BodyLanes<const W: usize> {
    vel: V<W>,
    omega: V<W>,
    vel_half: V<W>,
    omega_half: V<W>,
    radius: L<W>,
    inv_mass: L<W>,
    inv_inertia: L<W>,
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
fn set3<const W: usize>(v: &mut V<W>, k: usize, x: V3) {
    for (vi, xi) in v.iter_mut().zip(x) {
        vi.0[k] = xi;
    }
}

impl<const W: usize> BodyLanes<W> {
    /// Lane `k`: a particle, from its motion record and radius (what
    /// [`body`] makes of them).
    #[inline(always)]
    fn set_motion(&mut self, k: usize, m: &Motion<f64>, radius: f64) {
        set3(&mut self.vel, k, xyz(m[0]));
        set3(&mut self.omega, k, xyz(m[1]));
        set3(&mut self.vel_half, k, xyz(m[2]));
        set3(&mut self.omega_half, k, xyz(m[3]));
        self.radius.0[k] = radius;
        self.inv_mass.0[k] = m[0][3];
        self.inv_inertia.0[k] = m[1][3];
    }

    #[inline(always)]
    fn set(&mut self, k: usize, b: &Body) {
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
struct PairLanes<const W: usize> {
    e_star: L<W>,
    g_star: L<W>,
    restitution: L<W>,
    friction: L<W>,
    rolling_friction: L<W>,
    damp_n: L<W>,
    damp_t: L<W>,
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
            damp_n: z,
            damp_t: z,
        }
    }
}

impl<const W: usize> PairLanes<W> {
    #[inline(always)]
    fn set(&mut self, k: usize, p: &PairParams) {
        self.e_star.0[k] = p.e_star;
        self.g_star.0[k] = p.g_star;
        self.restitution.0[k] = p.restitution;
        self.friction.0[k] = p.friction;
        self.rolling_friction.0[k] = p.rolling_friction;
        self.damp_n.0[k] = p.damp_n;
        self.damp_t.0[k] = p.damp_t;
    }
}

/// [`PairResult`] in `W` lanes.
#[derive(Debug, Clone, Copy)]
struct ResultLanes<const W: usize> {
    force_a: V<W>,
    torque_a: V<W>,
    torque_b: V<W>,
    xi: V<W>,
    kt: L<W>,
    elastic: L<W>,
    dissipated: L<W>,
}

impl<const W: usize> ResultLanes<W> {
    #[inline(always)]
    fn get(&self, k: usize) -> PairResult {
        PairResult {
            force_a: lanes::lane(self.force_a, k),
            torque_a: lanes::lane(self.torque_a, k),
            torque_b: lanes::lane(self.torque_b, k),
            xi: lanes::lane(self.xi, k),
            kt: self.kt.0[k],
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
fn law<const W: usize>(
    lp: &LawParams,
    pp: &PairLanes<W>,
    a: &BodyLanes<W>,
    b: &BodyLanes<W>,
    n: V<W>,
    overlap: L<W>,
    hist: [L<W>; 4],
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

    let (kn, gn, kt, gt, elastic_n) = match lp.model {
        ContactModel::HertzMindlin => {
            let sq = (r_star * overlap).sqrt();
            let kn = c(4.0 / 3.0) * pp.e_star * sq;
            let st = c(8.0) * pp.g_star * sq;
            let q = (sq * m_star).sqrt();
            let (gn, gt) = (pp.damp_n * q, pp.damp_t * q);
            (kn, gn, st, gt, c(0.4) * kn * overlap * overlap)
        }
        ContactModel::Linear => {
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
            (kn, gn, kt, gt, c(0.5) * kn * overlap * overlap)
        }
    };
    // Normal force magnitude (compressive > 0), acting on a along -n.
    let fn_el = kn * overlap;
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
    let force_a = add(scale(n, -fn_total), ft);
    let mut torque_a = cross(arm_a, ft);
    let mut torque_b = cross(arm_b, scale(ft, c(-1.0)));

    // Rolling resistance: constant directional torque against the relative
    // rolling velocity, capped so it cannot reverse it within one step.
    let mut dissipated_roll = c(0.0);
    let rolling = pp.rolling_friction.gt(c(0.0));
    if L::any(rolling) {
        let w_rel = sub(a.omega, b.omega);
        let w_roll = sub(w_rel, scale(n, dot(w_rel, n)));
        let w_len = dot(w_roll, w_roll).sqrt();
        let on = lanes::and(w_len.gt(c(0.0)), rolling);
        let inv_i = a.inv_inertia + b.inv_inertia;
        let m = pp.rolling_friction * r_star * fn_total.max(c(0.0));
        let m = L::select(inv_i.gt(c(0.0)), m.min(w_len / (inv_i * dt)), m);
        let mr = scale(w_roll, -m / w_len);
        torque_a = select(on, add(torque_a, mr), torque_a);
        torque_b = select(on, sub(torque_b, mr), torque_b);
        dissipated_roll = L::select(on, m * w_len * dt, dissipated_roll);
    }
    let dissipated_n = gn * vn * vn * dt;
    // work done on the spring–damper–slider minus what it now stores
    let dissipated_t = -dot(ft, vt) * dt - (elastic_t - elastic_t_old);
    ResultLanes {
        force_a,
        torque_a,
        torque_b,
        xi,
        kt,
        elastic: elastic_n + elastic_t,
        dissipated: dissipated_n + dissipated_t + dissipated_roll,
    }
}

/// What the contact stage reports besides the per-particle arrays.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContactReport {
    /// Largest overlap / smaller radius this step.
    pub max_overlap_ratio: f64,
    /// Lowest particle id whose overlap exceeds the run's limit, if any.
    pub overlap: Option<u32>,
}

/// Per-particle outputs of the contact stage (slices over a run of
/// consecutive particles).
struct Out<'a> {
    force: &'a mut [[f64; 4]],
    torque: &'a mut [[f64; 4]],
    /// Wall history, `walls` per particle, updated in place.
    wall_hist: &'a mut [[f64; 4]],
    /// The particles' list entries (partner index and the
    /// [`HAS_HISTORY`] flag) and the pair history beside them, updated in
    /// place (only the particle reads or writes its entries).
    nbr: &'a mut [u32],
    hist: &'a mut [[f64; 4]],
}

impl<'a> Out<'a> {
    /// The outputs of the first `k` particles (whose list entries are the
    /// first `e`) and of the rest.
    fn split_at(self, k: usize, e: usize, n_walls: usize) -> (Out<'a>, Out<'a>) {
        let (f0, f1) = self.force.split_at_mut(k);
        let (t0, t1) = self.torque.split_at_mut(k);
        let (w0, w1) = self.wall_hist.split_at_mut(k * n_walls);
        let (n0, n1) = self.nbr.split_at_mut(e);
        let (h0, h1) = self.hist.split_at_mut(e);
        let out = |force, torque, wall_hist, nbr, hist| Out {
            force,
            torque,
            wall_hist,
            nbr,
            hist,
        };
        (out(f0, t0, w0, n0, h0), out(f1, t1, w1, n1, h1))
    }
}

/// Everything a particle's pass reads: positions (every candidate), the
/// motion records (partners in contact), the list's offsets (the entries
/// and the history are written: [`Out`]) and the model.
struct Ctx<'a> {
    pos_rad: &'a [[f64; 4]],
    motion: &'a [Motion<f64>],
    grid: &'a Grid,
    nbr_start: &'a [u32],
    /// The walls each particle can reach (empty: all).
    wall_near: &'a [u32],
    lp: LawParams,
    pairs: &'a crate::pair::PairTable,
    walls: &'a [super::WallData],
}

/// (largest overlap ratio, lowest id over the limit) of a run of particles.
type Partial = (f64, Option<u32>);

fn merge(a: Partial, b: Partial) -> Partial {
    let id = match (a.1, b.1) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    (a.0.max(b.0), id)
}

/// Particles per leaf of the parallel split.
const CHUNK: usize = 512;

/// Runs the contact stage over the neighbour list (particles in the cell
/// order of the last build). Writes force (w: elastic energy share) and
/// torque (w: energy dissipated this step, share), and updates the pair
/// history beside each list entry and the wall history of each particle in
/// place: a pair in contact carries its history on, a candidate not in
/// contact has zero history (a new contact starts from zero).
pub fn contacts(st: &mut Step) -> ContactReport {
    let p = &mut st.particles;
    let n_walls = p.walls;
    let w = &mut st.work;
    let c = Ctx {
        pos_rad: &p.pos_rad,
        motion: &w.motion,
        grid: &st.grid,
        nbr_start: &w.nbr_start,
        wall_near: &w.wall_near,
        lp: st.law,
        pairs: &st.pairs,
        walls: &st.walls,
    };
    let n = c.pos_rad.len();
    let out = Out {
        force: &mut w.force,
        torque: &mut w.torque,
        wall_hist: &mut p.wall_hist,
        nbr: &mut w.nbr,
        hist: &mut w.nbr_hist,
    };
    // ties resolve to the lowest id, as the GPU's atomicMin does
    let (max_overlap_ratio, overlap) = run(&c, 0, n, n_walls, out);
    ContactReport {
        max_overlap_ratio,
        overlap,
    }
}

/// Particles `lo..hi`, whose outputs `out` holds: split in halves in
/// parallel down to [`CHUNK`] particles (the list's entries split where the
/// CSR says), no allocation.
fn run(c: &Ctx, lo: usize, hi: usize, n_walls: usize, out: Out) -> Partial {
    if hi - lo <= CHUNK {
        return BATCH.with_borrow_mut(|batch| {
            let mut acc = (0.0, None);
            let mut out = out;
            for s0 in (lo..hi).step_by(SUB) {
                let s1 = (s0 + SUB).min(hi);
                acc = merge(acc, batch.run(c, lo, s0..s1, n_walls, &mut out));
            }
            acc
        });
    }
    let mid = lo + (hi - lo) / 2;
    let (k, e) = (mid - lo, (c.nbr_start[mid] - c.nbr_start[lo]) as usize);
    let (o0, o1) = out.split_at(k, e, n_walls);
    let (a, b) = rayon::join(
        || run(c, lo, mid, n_walls, o0),
        || run(c, mid, hi, n_walls, o1),
    );
    merge(a, b)
}

/// The classification of a particle's first 64 list entries (bit k:
/// entry k).
#[derive(Debug, Clone, Copy, Default)]
struct Classes {
    /// Entries in contact.
    contact: u64,
    /// Entries flagged [`HAS_HISTORY`].
    had: u64,
}

/// Classifies the first 64 entries of particle `i`'s list row `row`
/// (entries past the 64th are not classified and always checked by
/// [`Batch::collect`]), a batch ahead of the law that reads them. It
/// asks the caches for the motion records of the partners in contact (a
/// contact's first read of its partner's record is otherwise a serial
/// miss: the partner sits up to a cell plane away in memory, a quarter of
/// the stage's cycles in `perf`), and it is the only distance test of the
/// entries not in contact (7 in 8). The same test as the evaluation's, so
/// no effect on results.
///
/// The test loop has no branch on its outcome (the mask is built from the
/// comparison's bit): 1 in 7 candidates is a contact, at random, so a
/// branch there mispredicted about once per particle, and each
/// misprediction also discarded the partner loads issued behind it.
#[inline]
fn classify(c: &Ctx, i: usize, row: &[u32], hist: &[[f64; 4]]) -> Classes {
    // the test of 8 in 9 candidates: without periodic axes (the common
    // case) the minimum image is a plain difference, the same bits; chosen
    // once per row here, not per candidate inside `min_image` (that cost
    // 3.7 % more instructions per step, callgrind, 1e4 mono)
    let classes = if c.grid.periodic == [false; 3] {
        classify_in::<false>(c, i, row)
    } else {
        classify_in::<true>(c, i, row)
    };
    let mut m = classes.contact;
    while m != 0 {
        let k = m.trailing_zeros() as usize;
        m &= m - 1;
        prefetch(&c.motion[(row[k] & INDEX) as usize]);
        if classes.had & (1 << k) != 0 {
            prefetch(&hist[k]);
        }
    }
    classes
}

#[inline(always)]
fn classify_in<const PERIODIC: bool>(c: &Ctx, i: usize, row: &[u32]) -> Classes {
    let pos = c.pos_rad;
    let (xi, ri) = (xyz(pos[i]), pos[i][3]);
    let mut classes = Classes::default();
    for (k, &e) in row[..row.len().min(64)].iter().enumerate() {
        let pj = pos[(e & INDEX) as usize];
        let d = if PERIODIC {
            c.grid.min_image(xi, xyz(pj))
        } else {
            sub(xyz(pj), xi)
        };
        let rsum = ri + pj[3];
        classes.contact |= ((dot(d, d) < rsum * rsum) as u64) << k;
        classes.had |= ((e >> 31) as u64) << k;
    }
    classes
}

/// A cache hint for `r` (the cache lines it spans); nothing on targets
/// without one.
#[inline(always)]
fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch never faults and does not change memory.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = r as *const T as *const i8;
        _mm_prefetch::<_MM_HINT_T0>(p);
        let last = p.add(std::mem::size_of::<T>() - 1);
        if (last as usize) >> 6 != (p as usize) >> 6 {
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
        if std::mem::size_of::<T>() > 64 {
            _mm_prefetch::<_MM_HINT_T0>(p.add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// A particle as one side of a contact: its motion record and radius.
#[inline]
fn body(m: &Motion<f64>, radius: f64) -> Body {
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
const LANES: usize = 4;
/// Particles per batch: their contacts (about 1.3 each) are classified,
/// then evaluated lanes at a time, then summed per particle.
const SUB: usize = 32;

/// A contact found by the classification, waiting for the law.
#[derive(Debug, Clone, Copy)]
struct Pending {
    /// The entry (index into the leaf's entries), the partner and the
    /// centre difference (partner − particle) with its squared length.
    entry: u32,
    j: u32,
    d: V3,
    d2: f64,
    /// The particle whose entry it is.
    i: u32,
    /// Set by [`Batch::law`]: the particle is the pair's a, and its
    /// overlap / smaller radius.
    i_is_a: bool,
    ratio: f64,
}

/// The law's inputs of [`LANES`] contacts.
#[derive(Debug, Clone, Copy, Default)]
struct LawIn {
    pp: PairLanes<LANES>,
    a: BodyLanes<LANES>,
    b: BodyLanes<LANES>,
    n: V<LANES>,
    overlap: L<LANES>,
    hist: [L<LANES>; 4],
}

/// A leaf's working memory (per thread, grown once, reused every step).
#[derive(Debug, Default)]
struct Batch {
    pending: Vec<Pending>,
    /// Contacts per particle of the batch, in its order.
    count: Vec<u32>,
    results: Vec<ResultLanes<LANES>>,
}

thread_local! {
    static BATCH: std::cell::RefCell<Batch> = std::cell::RefCell::new(Batch::default());
}

impl Batch {
    /// The contact stage of particles `range` (of the leaf starting at
    /// particle `lo`, whose outputs `out` holds): classify (and clear the
    /// contacts that ended), evaluate the contacts lanes at a time, then
    /// sum each particle's forces in its row's order (the sums of a plain
    /// loop over the row) and add its walls. Returns the batch's largest
    /// overlap ratio and the lowest id over the limit.
    fn run(
        &mut self,
        c: &Ctx,
        lo: usize,
        range: std::ops::Range<usize>,
        n_walls: usize,
        out: &mut Out,
    ) -> Partial {
        let base = c.nbr_start[lo] as usize;
        let row = |i: usize| c.nbr_start[i] as usize - base..c.nbr_start[i + 1] as usize - base;
        self.pending.clear();
        self.count.clear();
        for i in range.clone() {
            let r = row(i);
            let classes = classify(c, i, &out.nbr[r.clone()], &out.hist[r.clone()]);
            let before = self.pending.len();
            self.collect(c, i, classes, r, out);
            self.count.push((self.pending.len() - before) as u32);
        }
        self.law(c, out);
        let mut acc: Partial = (0.0, None);
        let mut q = 0;
        for (i, &count) in range.zip(&self.count) {
            let k = i - lo;
            let contacts = q..q + count as usize;
            q = contacts.end;
            let r = self.particle(i, c, contacts, k, n_walls, out);
            acc.0 = acc.0.max(r);
            if r > super::MAX_OVERLAP_RATIO {
                acc = merge(acc, (r, Some(c.motion[i][3][3].bits32())));
            }
        }
        acc
    }

    /// Particle `i`'s contacts (entries `row` of the leaf), in the row's
    /// order, into `pending`; the entries whose contact ended lose their
    /// history and flag.
    fn collect(
        &mut self,
        c: &Ctx,
        i: usize,
        classes: Classes,
        row: std::ops::Range<usize>,
        out: &mut Out,
    ) {
        let pos = c.pos_rad;
        let (xi_pos, ri) = (xyz(pos[i]), pos[i][3]);
        let (nbr, hist) = (&mut out.nbr[row.clone()], &mut out.hist[row.clone()]);
        let mut push = |k: usize, e: u32, d: V3, d2: f64| {
            self.pending.push(Pending {
                entry: (row.start + k) as u32,
                j: e & INDEX,
                i: i as u32,
                d,
                d2,
                i_is_a: false,
                ratio: 0.0,
            })
        };
        let clear = |e: &mut u32, h: &mut [f64; 4]| {
            *h = [0.0; 4];
            *e &= INDEX;
        };
        // classified entries: the classification's test (same bits)
        let mut m = classes.contact;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            let d = c
                .grid
                .min_image(xi_pos, xyz(pos[(nbr[k] & INDEX) as usize]));
            push(k, nbr[k], d, dot(d, d));
        }
        let mut m = classes.had & !classes.contact;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            clear(&mut nbr[k], &mut hist[k]);
        }
        for k in 64..nbr.len() {
            let j = (nbr[k] & INDEX) as usize;
            let rsum = ri + pos[j][3];
            let d = c.grid.min_image(xi_pos, xyz(pos[j]));
            let d2 = dot(d, d);
            if d2 < rsum * rsum {
                push(k, nbr[k], d, d2);
            } else if nbr[k] & HAS_HISTORY != 0 {
                clear(&mut nbr[k], &mut hist[k]);
            }
        }
    }

    /// Every pending contact through the law, [`LANES`] at a time (a short
    /// last group repeats its first contact in the spare lanes, whose
    /// results are dropped), each in its canonical orientation.
    fn law(&mut self, c: &Ctx, out: &Out) {
        let pos = c.pos_rad;
        self.results.clear();
        // every lane of every field is written for each group
        let mut li = LawIn::default();
        for group in self.pending.chunks_mut(LANES) {
            for lane in 0..LANES {
                let p = &mut group[lane.min(group.len() - 1)];
                let entry = p.entry as usize;
                let i = p.i as usize;
                let j = p.j as usize;
                let (mi, mj) = (&c.motion[i], &c.motion[j]);
                let (ri, rj) = (pos[i][3], pos[j][3]);
                let (id_i, mat_i) = (mi[3][3].bits32(), mi[2][3].bits32());
                let (id_j, mat_j) = (mj[3][3].bits32(), mj[2][3].bits32());
                let i_is_a = id_i < id_j;
                let dist = p.d2.sqrt();
                let overlap = ri + rj - dist;
                let ((ma, ra), (mb, rb), pp, n) = if i_is_a {
                    let n = scale(p.d, 1.0 / dist);
                    ((mi, ri), (mj, rj), c.pairs.get(mat_i, mat_j), n)
                } else {
                    let n = scale(p.d, -1.0 / dist);
                    ((mj, rj), (mi, ri), c.pairs.get(mat_j, mat_i), n)
                };
                li.a.set_motion(lane, ma, ra);
                li.b.set_motion(lane, mb, rb);
                li.pp.set(lane, pp);
                set3(&mut li.n, lane, n);
                li.overlap.0[lane] = overlap;
                // without the flag the entry's history is zero: not read
                let h = if out.nbr[entry] & HAS_HISTORY != 0 {
                    out.hist[entry]
                } else {
                    [0.0; 4]
                };
                for (hl, hv) in li.hist.iter_mut().zip(h) {
                    hl.0[lane] = hv;
                }
                p.i_is_a = i_is_a;
                p.ratio = overlap / ri.min(rj);
            }
            self.results
                .push(law(&c.lp, &li.pp, &li.a, &li.b, li.n, li.overlap, li.hist));
        }
    }

    /// Particle `i`'s sums (leaf index `k`): its evaluated contacts
    /// (`contacts` of `pending`: history and flag written), then its walls.
    /// Returns its largest overlap ratio.
    fn particle(
        &self,
        i: usize,
        c: &Ctx,
        contacts: std::ops::Range<usize>,
        k: usize,
        n_walls: usize,
        out: &mut Out,
    ) -> f64 {
        let (pos, lp) = (c.pos_rad, &c.lp);
        let xi_pos = xyz(pos[i]);
        let ri = pos[i][3];
        let mi = &c.motion[i];
        let mat_i = mi[2][3].bits32();
        let mut f = [0.0; 3];
        let mut t = [0.0; 3];
        let mut elastic = 0.0;
        let mut diss = 0.0;
        let mut max_ratio = 0.0f64;
        for q in contacts {
            let p = &self.pending[q];
            let (r, l) = (&self.results[q / LANES], q % LANES);
            let force_a = lanes::lane(r.force_a, l);
            if p.i_is_a {
                f = add(f, force_a);
                t = add(t, lanes::lane(r.torque_a, l));
            } else {
                f = sub(f, force_a);
                t = add(t, lanes::lane(r.torque_b, l));
            }
            elastic += 0.5 * r.elastic.0[l];
            diss += 0.5 * r.dissipated.0[l];
            max_ratio = max_ratio.max(p.ratio);
            let (e, h) = (
                &mut out.nbr[p.entry as usize],
                &mut out.hist[p.entry as usize],
            );
            *h = [r.xi[0].0[l], r.xi[1].0[l], r.xi[2].0[l], r.kt.0[l]];
            *e = p.j | if *h != [0.0; 4] { HAS_HISTORY } else { 0 };
        }
        let wall_hist = &mut out.wall_hist[k * n_walls..(k + 1) * n_walls];
        // the walls within reach at the build (the others have no history:
        // the build cleared it), then any past the 32nd
        let mut near = c.wall_near.get(i).map_or(u32::MAX, |&m| m);
        if n_walls < 32 {
            near &= (1 << n_walls) - 1;
        }
        let mut past = 32;
        loop {
            let w = if near != 0 {
                let w = near.trailing_zeros() as usize;
                near &= near - 1;
                w
            } else if past < n_walls {
                past += 1;
                past - 1
            } else {
                break;
            };
            let (wd, wh) = (&c.walls[w], &mut wall_hist[w]);
            let dist = dot(sub(xi_pos, wd.point), wd.normal);
            let overlap = ri - dist;
            if overlap <= 0.0 {
                if *wh != [0.0; 4] {
                    *wh = [0.0; 4];
                }
                continue;
            }
            let wall = Body {
                vel: [0.0; 3],
                omega: [0.0; 3],
                vel_half: [0.0; 3],
                omega_half: [0.0; 3],
                radius: f64::INFINITY,
                inv_mass: 0.0,
                inv_inertia: 0.0,
            };
            let pp = c.pairs.get(mat_i, wd.material);
            let me = body(mi, ri);
            let r = pair_law(lp, pp, &me, &wall, scale(wd.normal, -1.0), overlap, *wh);
            f = add(f, r.force_a);
            t = add(t, r.torque_a);
            elastic += r.elastic;
            diss += r.dissipated;
            max_ratio = max_ratio.max(overlap / ri);
            *wh = [r.xi[0], r.xi[1], r.xi[2], r.kt];
        }
        out.force[k] = [f[0], f[1], f[2], elastic];
        out.torque[k] = [t[0], t[1], t[2], diss];
        max_ratio
    }
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
        Body {
            vel: [0.0; 3],
            omega: [0.0; 3],
            vel_half: [0.0; 3],
            omega_half: [0.0; 3],
            radius: f64::INFINITY,
            inv_mass: 0.0,
            inv_inertia: 0.0,
        }
    }

    fn bits(r: &PairResult) -> Vec<u64> {
        let mut v: Vec<f64> = [r.force_a, r.torque_a, r.torque_b, r.xi].concat();
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
        for model in [ContactModel::HertzMindlin, ContactModel::Linear] {
            let lp = LawParams {
                model,
                dt: 1e-6,
                lin_stiffness: Some(1e4),
                lin_contact_time: None,
                lin_kt_ratio: 2.0 / 7.0,
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
                        damp_n: -r.range(0.0, 2e3),
                        damp_t: -r.range(0.0, 2e3),
                        ..Default::default()
                    };
                    let nv = r.in_unit_ball();
                    let n = scale(nv, 1.0 / dot(nv, nv).sqrt());
                    let overlap = r.range(1e-7, 2e-5);
                    let hist = if r.f64() < 0.3 {
                        [0.0; 4]
                    } else {
                        let len = r.range(1e-8, 1e-4);
                        let x = vec(&mut r, len);
                        [x[0], x[1], x[2], r.range(1e3, 1e5)]
                    };
                    let one = pair_law(&lp, &pp, &a, &b, n, overlap, hist);
                    let ft_len = dot(one.xi, one.xi).sqrt() * one.kt;
                    let fn_el = dot(one.force_a, n).abs();
                    if ft_len >= pp.friction * fn_el * 0.999 && hist != [0.0; 4] {
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
}
