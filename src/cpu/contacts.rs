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
//! that ended. On the CPU each particle's entries are classified (contact
//! or not) one particle ahead, which also prefetches the partner's motion
//! record and the history of the contacts (see `classify`).

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
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
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
pub fn pair_law(
    lp: &LawParams,
    pp: &PairParams,
    a: &Body,
    b: &Body,
    n: V3,
    overlap: f64,
    hist: [f64; 4],
) -> PairResult {
    let xi_old = xyz(hist);
    let dt = lp.dt;
    let r_star = if b.radius.is_finite() {
        a.radius * b.radius / (a.radius + b.radius)
    } else {
        a.radius
    };
    let m_star = 1.0 / (a.inv_mass + b.inv_mass);
    // Contact point arms from each centre (the middle of the overlap).
    let arm_a = scale(n, a.radius - 0.5 * overlap);
    let arm_b = if b.radius.is_finite() {
        scale(n, -(b.radius - 0.5 * overlap))
    } else {
        [0.0; 3]
    };
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
            let kn = 4.0 / 3.0 * pp.e_star * sq;
            let st = 8.0 * pp.g_star * sq;
            let q = (sq * m_star).sqrt();
            let (gn, gt) = (pp.damp_n * q, pp.damp_t * q);
            (kn, gn, st, gt, 0.4 * kn * overlap * overlap)
        }
        ContactModel::Linear => {
            let (kn, gn) = crate::timestep::linear_coefficients(
                m_star,
                pp.restitution,
                lp.lin_stiffness,
                lp.lin_contact_time,
            );
            let kt = lp.lin_kt_ratio * kn;
            let gt = gn * lp.lin_kt_ratio.sqrt();
            (kn, gn, kt, gt, 0.5 * kn * overlap * overlap)
        }
    };
    // Normal force magnitude (compressive > 0), acting on a along -n.
    let fn_el = kn * overlap;
    let fn_total = fn_el + gn * vn;

    // Tangential: rotate the stored displacement into the current tangent
    // plane (keeping its length), add this step's slip, Coulomb-limit.
    let mut xi = sub(xi_old, scale(n, dot(xi_old, n)));
    let old_len2 = dot(xi_old, xi_old);
    let new_len2 = dot(xi, xi);
    if new_len2 > 0.0 {
        xi = scale(xi, (old_len2 / new_len2).sqrt());
    }
    // Energy in the spring before this step's slip (with last step's k_t: a
    // Mindlin k_t changes with the overlap, which moves energy in or out of
    // the spring without work; it lands in the contact's dissipation term).
    let kt_old = if hist[3] > 0.0 { hist[3] } else { kt };
    let elastic_t_old = 0.5 * kt_old * dot(xi, xi);
    xi = add(xi, scale(vt_half, dt));
    let mut ft = sub(scale(xi, -kt), scale(vt, gt));
    let ft_max = pp.friction * fn_total.max(0.0);
    let ft_len = dot(ft, ft).sqrt();
    if ft_len > ft_max {
        ft = if ft_len > 0.0 {
            scale(ft, ft_max / ft_len)
        } else {
            [0.0; 3]
        };
        // Sliding: the spring carries the whole Coulomb force (the damper
        // none), so no energy is parked in the spring that the slip
        // already dissipated.
        xi = if kt > 0.0 {
            scale(ft, -1.0 / kt)
        } else {
            [0.0; 3]
        };
    }
    let elastic_t = 0.5 * kt * dot(xi, xi);
    let force_a = add(scale(n, -fn_total), ft);
    let mut torque_a = cross(arm_a, ft);
    let mut torque_b = cross(arm_b, scale(ft, -1.0));

    // Rolling resistance: constant directional torque against the relative
    // rolling velocity, capped so it cannot reverse it within one step.
    let mut dissipated_roll = 0.0;
    if pp.rolling_friction > 0.0 {
        let w_rel = sub(a.omega, b.omega);
        let w_roll = sub(w_rel, scale(n, dot(w_rel, n)));
        let w_len = dot(w_roll, w_roll).sqrt();
        if w_len > 0.0 {
            let inv_i = a.inv_inertia + b.inv_inertia;
            let mut m = pp.rolling_friction * r_star * fn_total.max(0.0);
            if inv_i > 0.0 {
                m = m.min(w_len / (inv_i * dt));
            }
            let mr = scale(w_roll, -m / w_len);
            torque_a = add(torque_a, mr);
            torque_b = sub(torque_b, mr);
            dissipated_roll = m * w_len * dt;
        }
    }
    let dissipated_n = gn * vn * vn * dt;
    // work done on the spring–damper–slider minus what it now stores
    let dissipated_t = -dot(ft, vt) * dt - (elastic_t - elastic_t_old);
    PairResult {
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
        let mut acc = (0.0, None);
        let base = c.nbr_start[lo] as usize;
        let row = |i: usize| {
            (
                c.nbr_start[i] as usize - base,
                c.nbr_start[i + 1] as usize - base,
            )
        };
        let (e0, e1) = row(lo);
        let mut next = classify(c, lo, &out.nbr[e0..e1], &out.hist[e0..e1]);
        for i in lo..hi {
            let k = i - lo;
            let mask = next;
            if i + 1 < hi {
                let (e0, e1) = row(i + 1);
                next = classify(c, i + 1, &out.nbr[e0..e1], &out.hist[e0..e1]);
            }
            let (e0, e1) = row(i);
            let r = particle(
                i,
                c,
                mask,
                &mut out.force[k],
                &mut out.torque[k],
                &mut out.wall_hist[k * n_walls..(k + 1) * n_walls],
                &mut out.nbr[e0..e1],
                &mut out.hist[e0..e1],
            );
            let id = c.motion[i][3][3].bits32();
            acc = merge(acc, (r, (r > super::MAX_OVERLAP_RATIO).then_some(id)));
        }
        return acc;
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

/// The entries of particle `i`'s list row `row` that are in contact, as a
/// mask (bit k: entry k; entries past the 64th are not classified and
/// always checked by [`particle`]), run one particle ahead of the pass
/// that evaluates them. It asks the caches for the motion records of the
/// partners in contact (a contact's first read of its partner's record is
/// otherwise a serial miss: the partner sits up to a cell plane away in
/// memory, a quarter of the stage's cycles in `perf`), and it is the only
/// distance test of the entries not in contact (7 in 8). The same test as
/// the evaluation's, so no effect on results.
#[inline]
fn classify(c: &Ctx, i: usize, row: &[u32], hist: &[[f64; 4]]) -> u64 {
    // the test of 8 in 9 candidates: without periodic axes (the common
    // case) the minimum image is a plain difference, the same bits
    if c.grid.periodic == [false; 3] {
        classify_in::<false>(c, i, row, hist)
    } else {
        classify_in::<true>(c, i, row, hist)
    }
}

#[inline(always)]
fn classify_in<const PERIODIC: bool>(c: &Ctx, i: usize, row: &[u32], hist: &[[f64; 4]]) -> u64 {
    let pos = c.pos_rad;
    let (xi, ri) = (xyz(pos[i]), pos[i][3]);
    let mut mask = 0u64;
    for (k, &e) in row.iter().take(64).enumerate() {
        let j = (e & INDEX) as usize;
        let d = if PERIODIC {
            c.grid.min_image(xi, xyz(pos[j]))
        } else {
            sub(xyz(pos[j]), xi)
        };
        let rsum = ri + pos[j][3];
        if dot(d, d) < rsum * rsum {
            mask |= 1 << k;
            prefetch(&c.motion[j]);
            if e & HAS_HISTORY != 0 {
                prefetch(&hist[k]);
            }
        }
    }
    mask
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

/// One particle's pass: its list entries `nbr` with their history `hist`
/// and its wall history `wall_hist`, updated in place; `maybe` is
/// [`classify`]'s mask (entries past the 64th are always checked). Returns
/// its largest overlap ratio.
#[allow(clippy::too_many_arguments)]
fn particle(
    i: usize,
    c: &Ctx,
    maybe: u64,
    force: &mut [f64; 4],
    torque: &mut [f64; 4],
    wall_hist: &mut [[f64; 4]],
    nbr: &mut [u32],
    hist: &mut [[f64; 4]],
) -> f64 {
    let (pos, lp) = (c.pos_rad, &c.lp);
    let xi_pos = xyz(pos[i]);
    let ri = pos[i][3];
    let mi = &c.motion[i];
    let me = body(mi, ri);
    let (id_i, mat_i) = (mi[3][3].bits32(), mi[2][3].bits32());
    let mut f = [0.0; 3];
    let mut t = [0.0; 3];
    let mut elastic = 0.0;
    let mut diss = 0.0;
    let mut max_ratio = 0.0f64;
    for (k, (e, h)) in nbr.iter_mut().zip(hist.iter_mut()).enumerate() {
        let j = (*e & INDEX) as usize;
        let had = *e & HAS_HISTORY != 0;
        let rj = pos[j][3];
        let rsum = ri + rj;
        let mut contact = None;
        if k >= 64 || maybe & (1 << k) != 0 {
            let d = c.grid.min_image(xi_pos, xyz(pos[j]));
            let d2 = dot(d, d);
            if d2 < rsum * rsum {
                contact = Some((d, d2));
            }
        }
        let Some((d, d2)) = contact else {
            // not in contact: no history (written only when there was some)
            if had {
                *h = [0.0; 4];
                *e = j as u32;
            }
            continue;
        };
        let mj = &c.motion[j];
        let (id_j, mat_j) = (mj[3][3].bits32(), mj[2][3].bits32());
        let i_is_a = id_i < id_j;
        let dist = d2.sqrt();
        let overlap = rsum - dist;
        let other = body(mj, rj);
        // without the flag the entry's history is zero: not read
        let old = if had { *h } else { [0.0; 4] };
        let r = if i_is_a {
            let pp = c.pairs.get(mat_i, mat_j);
            pair_law(lp, pp, &me, &other, scale(d, 1.0 / dist), overlap, old)
        } else {
            let pp = c.pairs.get(mat_j, mat_i);
            pair_law(lp, pp, &other, &me, scale(d, -1.0 / dist), overlap, old)
        };
        if i_is_a {
            f = add(f, r.force_a);
            t = add(t, r.torque_a);
        } else {
            f = sub(f, r.force_a);
            t = add(t, r.torque_b);
        }
        elastic += 0.5 * r.elastic;
        diss += 0.5 * r.dissipated;
        max_ratio = max_ratio.max(overlap / ri.min(rj));
        *h = [r.xi[0], r.xi[1], r.xi[2], r.kt];
        let has = *h != [0.0; 4];
        if has != had {
            *e = j as u32 | if has { HAS_HISTORY } else { 0 };
        }
    }
    for (wd, wh) in c.walls.iter().zip(wall_hist.iter_mut()) {
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
        let r = pair_law(lp, pp, &me, &wall, scale(wd.normal, -1.0), overlap, *wh);
        f = add(f, r.force_a);
        t = add(t, r.torque_a);
        elastic += r.elastic;
        diss += r.dissipated;
        max_ratio = max_ratio.max(overlap / ri);
        *wh = [r.xi[0], r.xi[1], r.xi[2], r.kt];
    }
    *force = [f[0], f[1], f[2], elastic];
    *torque = [t[0], t[1], t[2], diss];
    max_ratio
}
