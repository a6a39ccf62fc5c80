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
//! each particle's contacts in its partners' (id, member) order (the same
//! bits whatever the row's order: `crate::sums`) and adds its walls.

use super::data::Step;
use super::hist::{HistMut, HistRef, ZERO};
use super::lanes;
use super::law::{dot, law, scale, set3, sub, xyz, LawIn, LawParams, ResultLanes, LANES, V3};
use super::wall_contacts::{particle_walls, MeshScratch, NodeForce, WallCtx, WallSums};
use crate::backend::MAX_OVERLAP_RATIO;
use crate::grid::Grid;
use crate::shapes::clumps::lever_along;
use crate::state::{Hist, Motion, Real, HAS_HISTORY, INDEX, WALL};
use crate::sums::Exact;
use crate::walls::LoadSum;

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
    /// The particles' list entries (partner index and the
    /// [`HAS_HISTORY`] flag) and the pair history beside them, updated in
    /// place (only the particle reads or writes its entries).
    nbr: &'a mut [u32],
    hist: HistMut<'a>,
}

impl<'a> Out<'a> {
    /// The outputs of the first `k` particles (whose list entries are the
    /// first `e`) and of the rest.
    fn split_at(self, k: usize, e: usize) -> (Out<'a>, Out<'a>) {
        let (f0, f1) = self.force.split_at_mut(k);
        let (t0, t1) = self.torque.split_at_mut(k);
        let (n0, n1) = self.nbr.split_at_mut(e);
        let (h0, h1) = self.hist.split_at_mut(e);
        let out = |force, torque, nbr, hist| Out {
            force,
            torque,
            nbr,
            hist,
        };
        (out(f0, t0, n0, h0), out(f1, t1, n1, h1))
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
    walls: WallCtx<'a>,
    /// Which rows this pass runs: those whose `class` is `want` (all when
    /// `class` is empty; a rank's classes: `dist::rank`).
    class: &'a [u8],
    want: u8,
    /// Each row's lever (`shapes::clumps::lever_along`; empty: no clumps).
    lever: &'a [[f64; 6]],
    /// Each row's member index in its clump (empty: no clumps): with the
    /// id, the key a particle's contacts are summed by (a clump's members
    /// share its id).
    member: &'a [u32],
}

impl Ctx<'_> {
    #[inline]
    fn runs(&self, i: usize) -> bool {
        self.class.is_empty() || self.class[i] == self.want
    }
}

/// (largest overlap ratio, lowest id over the limit, the load on each
/// scene wall, the forces on deforming surfaces' nodes in the run's
/// order) of a run of particles.
type Partial = (f64, Option<u32>, Vec<LoadSum>, Vec<NodeForce>);

fn merge(a: Partial, b: Partial) -> Partial {
    let id = match (a.1, b.1) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    let mut loads = a.2;
    if loads.is_empty() {
        loads = b.2;
    } else {
        for (l, r) in loads.iter_mut().zip(&b.2) {
            l.merge(r);
        }
    }
    let mut nodal = a.3;
    nodal.extend(b.3);
    (a.0.max(b.0), id, loads, nodal)
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
    let part = pass(st, &[], 0);
    finish(st, part)
}

/// The partial results of one or more passes over rows ([`pass`]), to be
/// [`merge`]d and [`finish`]ed.
pub struct Passed(Partial);

impl Passed {
    /// Both passes' results (the same whichever rows ran in which).
    pub fn merge(self, b: Passed) -> Passed {
        Passed(merge(self.0, b.0))
    }
}

/// The stage over the rows whose `class` is `want` (every row when
/// `class` is empty): their force, torque and history written, no other
/// particle's. A rank runs its interior's rows while the ghosts' data is
/// in flight, then its boundary's (`dist::rank`); every row's result is
/// the same bits in either pass, and so are the merged sums (maxima,
/// minima and exact load sums).
pub fn pass(st: &mut Step, class: &[u8], want: u8) -> Passed {
    let p = &mut st.particles;
    let w = &mut st.work;
    let c = Ctx {
        pos_rad: &p.pos_rad,
        motion: &w.motion,
        grid: &st.grid,
        nbr_start: &w.nbr_start,
        lp: st.law,
        pairs: &st.pairs,
        walls: WallCtx {
            set: &st.walls,
            pairs: &st.pairs,
            lp: st.law,
        },
        class,
        want,
        lever: &w.lever,
        member: &w.member,
    };
    let n = c.pos_rad.len();
    let out = Out {
        force: &mut w.force,
        torque: &mut w.torque,
        nbr: &mut w.nbr,
        hist: w.nbr_hist.as_mut(),
    };
    // ties resolve to the lowest id, as the GPU's atomicMin does
    Passed(run(&c, 0, n, out))
}

/// The stage's results after its passes: the walls' loads, the forces on
/// the surfaces' nodes, the report.
pub fn finish(st: &mut Step, passed: Passed) -> ContactReport {
    let w = &mut st.work;
    let (max_overlap_ratio, overlap, mut loads, nodal) = passed.0;
    loads.resize(st.walls.bodies.len(), LoadSum::default());
    for (b, l) in st.walls.bodies.iter_mut().zip(&loads) {
        b.load = l.value();
    }
    w.load_sums = loads;
    // the grains' forces on the bodies' surface nodes: this step's summed
    // exactly per node (the same whatever order the particles come in),
    // then added to the interval's (by the ranks, once theirs are added)
    if w.defer_nodal || !nodal.is_empty() {
        let mut step = vec![[Exact::default(); 3]; st.walls.surfaces.force.len()];
        for (k, v) in nodal {
            for (s, x) in step[k as usize].iter_mut().zip(v.to_array()) {
                s.add(x);
            }
        }
        if w.defer_nodal {
            w.nodal_step = step;
        } else {
            add_node_sums(&mut st.walls.surfaces.force, &step);
        }
    }
    ContactReport {
        max_overlap_ratio,
        overlap,
    }
}

/// Adds one step's exact forces on the surface nodes to the interval's
/// (`force`, per node).
pub fn add_node_sums(force: &mut [glam::DVec3], step: &[[Exact; 3]]) {
    for (f, s) in force.iter_mut().zip(step) {
        if s.iter().any(|c| *c != Exact::default()) {
            *f += glam::DVec3::from_array(s.map(|c| c.value()));
        }
    }
}

/// Particles `lo..hi`, whose outputs `out` holds: split in halves in
/// parallel down to [`CHUNK`] particles (the list's entries split where the
/// CSR says), no allocation.
fn run(c: &Ctx, lo: usize, hi: usize, out: Out) -> Partial {
    if hi - lo <= CHUNK {
        return BATCH.with_borrow_mut(|batch| {
            let mut acc = (0.0, None, Vec::new(), Vec::new());
            let mut out = out;
            for s0 in (lo..hi).step_by(SUB) {
                let s1 = (s0 + SUB).min(hi);
                acc = merge(acc, batch.run(c, lo, s0..s1, &mut out));
            }
            acc
        });
    }
    let mid = lo + (hi - lo) / 2;
    let (k, e) = (mid - lo, (c.nbr_start[mid] - c.nbr_start[lo]) as usize);
    let (o0, o1) = out.split_at(k, e);
    let (a, b) = rayon::join(|| run(c, lo, mid, o0), || run(c, mid, hi, o1));
    merge(a, b)
}

/// The particle part of a list row (`row`, entries of `nbr`): the row
/// without its wall entries, which come last.
#[inline]
fn pairs_of(nbr: &[u32], row: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let mut end = row.end;
    while end > row.start && nbr[end - 1] & WALL != 0 {
        end -= 1;
    }
    row.start..end
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
fn classify(c: &Ctx, i: usize, row: &[u32], hist: HistRef) -> Classes {
    // the test of 8 in 9 candidates: without periodic axes (the common
    // case) the minimum image is a plain difference, the same bits; chosen
    // once per row here, not per candidate inside `min_image` (that cost
    // 3.7 % more instructions per step, callgrind, 1e4 mono)
    let classes = match (c.grid.periodic == [false; 3], c.lp.reach > 0.0) {
        (true, false) => classify_in::<false, false>(c, i, row),
        (false, false) => classify_in::<true, false>(c, i, row),
        (true, true) => classify_in::<false, true>(c, i, row),
        (false, true) => classify_in::<true, true>(c, i, row),
    };
    let mut m = classes.contact;
    while m != 0 {
        let k = m.trailing_zeros() as usize;
        m &= m - 1;
        prefetch(&c.motion[(row[k] & INDEX) as usize]);
        if classes.had & (1 << k) != 0 {
            let (t, r) = hist.parts(k);
            prefetch(t);
            if let Some(r) = r {
                prefetch(r);
            }
        }
    }
    classes
}

/// `STICKY` (JKR): an entry with history is a contact out to
/// [`LawParams::reach`](super::law::LawParams) past touching (the law
/// parts it past the pair's own separation).
#[inline(always)]
fn classify_in<const PERIODIC: bool, const STICKY: bool>(
    c: &Ctx,
    i: usize,
    row: &[u32],
) -> Classes {
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
        let mut rsum = ri + pj[3];
        if STICKY {
            rsum += c.lp.reach * f64::from(e >> 31);
        }
        classes.contact |= ((dot(d, d) < rsum * rsum) as u64) << k;
        classes.had |= ((e >> 31) as u64) << k;
    }
    classes
}

/// How far apart two surfaces may be and still be a contact: touching,
/// or for an entry with history (`e`'s flag) within
/// [`LawParams::reach`](super::law::LawParams) past it.
#[inline(always)]
fn contact_limit(c: &Ctx, rsum: f64, e: u32) -> f64 {
    if e & HAS_HISTORY != 0 {
        rsum + c.lp.reach
    } else {
        rsum
    }
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

/// A leaf's working memory (per thread, grown once, reused every step).
#[derive(Debug, Default)]
struct Batch {
    pending: Vec<Pending>,
    /// Contacts per particle of the batch, in its order.
    count: Vec<u32>,
    /// Each particle's wall entries (the end of its row, entries of the
    /// leaf), found once by the classification's pass.
    walls: Vec<std::ops::Range<usize>>,
    results: Vec<ResultLanes<LANES>>,
    /// The wall pass's working memory.
    mesh: MeshScratch,
    /// One particle's contacts as (the partner's id and member index, index
    /// in `pending`): summed in that order.
    order: Vec<(u64, u32)>,
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
    fn run(&mut self, c: &Ctx, lo: usize, range: std::ops::Range<usize>, out: &mut Out) -> Partial {
        let base = c.nbr_start[lo] as usize;
        let row = |i: usize| c.nbr_start[i] as usize - base..c.nbr_start[i + 1] as usize - base;
        self.pending.clear();
        self.count.clear();
        self.walls.clear();
        for i in range.clone() {
            if !c.runs(i) {
                self.walls.push(0..0);
                self.count.push(0);
                continue;
            }
            let full = row(i);
            let r = pairs_of(out.nbr, full.clone());
            self.walls.push(r.end..full.end);
            let classes = classify(
                c,
                i,
                &out.nbr[r.clone()],
                out.hist.as_ref().slice(r.clone()),
            );
            let before = self.pending.len();
            self.collect(c, i, classes, r, out);
            self.count.push((self.pending.len() - before) as u32);
        }
        self.law(c, out);
        let mut acc: Partial = (
            0.0,
            None,
            vec![LoadSum::default(); c.walls.set.bodies.len()],
            Vec::new(),
        );
        let mut q = 0;
        for (b, i) in range.enumerate() {
            let k = i - lo;
            let contacts = q..q + self.count[b] as usize;
            q = contacts.end;
            if !c.runs(i) {
                continue;
            }
            let walls = self.walls[b].clone();
            let r = self.particle(i, c, contacts, k, walls, out, &mut acc.2, &mut acc.3);
            acc.0 = acc.0.max(r);
            if r > MAX_OVERLAP_RATIO {
                let over = (r, Some(c.motion[i][3][3].bits32()), Vec::new(), Vec::new());
                acc = merge(acc, over);
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
        let (nbr, mut hist) = (&mut out.nbr[row.clone()], out.hist.slice(row.clone()));
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
        let clear = |e: &mut u32, h: &mut HistMut, k: usize| {
            h.set(k, ZERO);
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
            clear(&mut nbr[k], &mut hist, k);
        }
        for (k, e) in nbr.iter_mut().enumerate().skip(64) {
            let j = (*e & INDEX) as usize;
            let lim = contact_limit(c, ri + pos[j][3], *e);
            let d = c.grid.min_image(xi_pos, xyz(pos[j]));
            let d2 = dot(d, d);
            if d2 < lim * lim {
                push(k, *e, d, d2);
            } else if *e & HAS_HISTORY != 0 {
                clear(e, &mut hist, k);
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
                if !c.lever.is_empty() {
                    // a clump's member: its body's inverse mass at the
                    // contact point, along n
                    let (ia, ib) = if i_is_a { (i, j) } else { (j, i) };
                    li.a.inv_mass.0[lane] += lever_along(&c.lever[ia], n);
                    li.b.inv_mass.0[lane] += lever_along(&c.lever[ib], n);
                }
                li.pp.set(lane, pp);
                set3(&mut li.n, lane, n);
                li.overlap.0[lane] = overlap;
                // without the flag the entry's history is zero: not read
                let h = if out.nbr[entry] & HAS_HISTORY != 0 {
                    out.hist.get(entry)
                } else {
                    ZERO
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
    #[allow(clippy::too_many_arguments)]
    fn particle(
        &mut self,
        i: usize,
        c: &Ctx,
        contacts: std::ops::Range<usize>,
        k: usize,
        walls: std::ops::Range<usize>,
        out: &mut Out,
        loads: &mut [LoadSum],
        nodal: &mut Vec<NodeForce>,
    ) -> f64 {
        let pos = c.pos_rad;
        let xi_pos = xyz(pos[i]);
        let ri = pos[i][3];
        let mi = &c.motion[i];
        let mut max_ratio = 0.0f64;
        self.order.clear();
        for q in contacts {
            let p = &self.pending[q];
            let (r, l) = (&self.results[q / LANES], q % LANES);
            let j = p.j as usize;
            let id = c.motion[j][3][3].bits32() as u64;
            let member = c.member.get(j).copied().unwrap_or(0) as u64;
            self.order.push((id << 32 | member, q as u32));
            max_ratio = max_ratio.max(p.ratio);
            let roll = lanes::lane(r.roll, l);
            let h: Hist = [
                r.xi[0].0[l],
                r.xi[1].0[l],
                r.xi[2].0[l],
                r.kt.0[l],
                roll[0],
                roll[1],
                roll[2],
                0.0,
            ];
            out.hist.set(p.entry as usize, h);
            out.nbr[p.entry as usize] = p.j | if h != ZERO { HAS_HISTORY } else { 0 };
        }
        // the pairs' sums in the partners' (id, member) order: whatever the
        // order of the row, the same bits (a clump's members share its id)
        self.order.sort_unstable();
        let mut sum = [0.0; 8];
        for &(_, q) in &self.order {
            let q = q as usize;
            let (p, r, l) = (&self.pending[q], &self.results[q / LANES], q % LANES);
            let force_a = lanes::lane(r.force_a, l);
            let (f, t) = if p.i_is_a {
                (force_a, lanes::lane(r.torque_a, l))
            } else {
                (force_a.map(|x| -x), lanes::lane(r.torque_b, l))
            };
            for k in 0..3 {
                sum[k] += f[k];
                sum[3 + k] += t[k];
            }
            sum[6] += 0.5 * r.elastic.0[l];
            sum[7] += 0.5 * r.dissipated.0[l];
        }
        let [f0, f1, f2, t0, t1, t2, elastic, diss] = sum;
        let (f, t) = ([f0, f1, f2], [t0, t1, t2]);
        // the wall primitives within reach at the build: the row's last
        // entries, in primitive order
        let mut sums = WallSums {
            force: f,
            torque: t,
            elastic,
            dissipated: diss,
            max_ratio,
        };
        if !walls.is_empty() {
            particle_walls(
                &c.walls,
                xi_pos,
                ri,
                mi,
                c.lever.get(i).unwrap_or(&[0.0; 6]),
                &mut out.nbr[walls.clone()],
                &mut out.hist.slice(walls),
                loads,
                nodal,
                &mut sums,
                &mut self.mesh,
            );
        }
        let WallSums {
            force: f,
            torque: t,
            elastic,
            dissipated: diss,
            max_ratio,
        } = sums;
        out.force[k] = [f[0], f[1], f[2], elastic];
        out.torque[k] = [t[0], t[1], t[2], diss];
        max_ratio
    }
}
