//! A row as words, for the ranks to send each other: its state and motion
//! record, and (when it moves to another rank) its list row's history
//! keyed by its partners' (id, member), as checkpoints key it; and a
//! clump's body ([`push_clump`]), which travels to the rank of its centre
//! of mass with its members' rows. A rank rebuilds its [`Step`] from the
//! records it holds ([`assemble`]).
//!
//! A row's record is [`HEAD`] words, then a clump member's lever (6
//! words), then [`ENTRY`] words per history entry:
//!
//! | words | what |
//! |-------|------|
//! | 0 | id, bit 32: a ghost (a copy; another rank owns it), bits 40..64: a ghost's owner |
//! | 1 | material (bits 0..32), member index (32..63), bit 63: a clump's member |
//! | 2..14 | `pos_rad`, `vel_invm`, `omega_invi` (f64 bits) |
//! | 14 | `dissipated` |
//! | 15..31 | the motion record |
//! | 31 | the number of history entries k |
//! | then, a member's: 6 | its lever (`Work::lever`) |
//! | then k × 9 | the partner ([`partner_key`]; bit 32: a wall primitive's index), the history ([`crate::state::Hist`]: ξ xyz, k_t, the rolling torque, 0) |

use crate::cpu::Step;
use crate::flow::{FlowEvent, FlowKind};
use crate::shapes::clumps::{Clumps, NONE};
use crate::state::{Particles, HAS_HISTORY, INDEX, WALL};
use glam::{DQuat, DVec3};
use std::collections::HashMap;

/// Words of a history entry: its partner and its [`crate::state::Hist`].
pub const ENTRY: usize = 9;

/// Words of a record before its history entries.
pub const HEAD: usize = 32;
/// Words of a ghost's refresh: its position and radius, and its motion
/// record — all a contact reads of a partner (a ghost's own sums and
/// velocities are never read: they are its owner's to keep); in a run
/// with clumps its lever too ([`refresh_words`]).
pub const REFRESH: usize = 20;
/// Words of a clump's body ([`push_clump`]).
pub const CLUMP: usize = 30;
/// Words of a member's lever.
const LEVER: usize = 6;

const GHOST_BIT: u64 = 1 << 32;
const WALL_BIT: u64 = 1 << 32;
const MEMBER_BIT: u64 = 1 << 63;
/// A ghost's owner rank in word 0.
const OWNER_SHIFT: u32 = 40;

/// Words of a ghost's refresh in a run with clumps (`clumps`: the scene
/// has shapes) or without.
pub fn refresh_words(clumps: bool) -> usize {
    REFRESH + if clumps { LEVER } else { 0 }
}

/// Row `i`'s member index in its clump (0: a sphere; every row keeps it,
/// ghosts too).
fn member(st: &Step, i: usize) -> u32 {
    st.work.member.get(i).copied().unwrap_or(0)
}

/// Whether row `i` is a member of a clump this rank holds.
fn is_member(st: &Step, i: usize) -> bool {
    st.work.body.get(i).is_some_and(|&b| b != NONE)
}

/// Row `i`'s key among the ranks: its id, then its member index (a
/// clump's members share its id). Unique, and the order a snapshot lists
/// rows in.
pub fn key(st: &Step, i: usize) -> u64 {
    (st.particles.id[i] as u64) << 32 | member(st, i) as u64
}

/// A history entry's partner, from its id and member index (bit 32 clear:
/// a wall primitive's index sets it).
fn partner_key(id: u32, member: u32) -> u64 {
    id as u64 | (member as u64) << 33
}

/// Appends particle `i` of `st`: its state, with its history entries when
/// `rows` (a migration, a checkpoint), as a ghost of rank `o` when `ghost`
/// is `Some(o)`.
pub fn push(out: &mut Vec<u64>, st: &Step, i: usize, ghost: Option<usize>, rows: bool) {
    let p = &st.particles;
    out.push(p.id[i] as u64 | ghost.map_or(0, |o| GHOST_BIT | (o as u64) << OWNER_SHIFT));
    let m = is_member(st, i);
    out.push(p.material[i] as u64 | (member(st, i) as u64) << 32 | if m { MEMBER_BIT } else { 0 });
    push_words(out, st, i);
    let w = &st.work;
    let at = out.len();
    out.push(0);
    if m {
        out.extend(w.lever[i].map(f64::to_bits));
    }
    // (a particle inserted since the last build has no row yet)
    if !rows || i + 1 >= w.nbr_start.len() {
        return;
    }
    let mut k = 0;
    let row = w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize;
    for (q, &e) in w.nbr[row.clone()].iter().enumerate() {
        let h = w.nbr_hist.get(row.start + q);
        if e & HAS_HISTORY == 0 {
            continue;
        }
        let key = if e & WALL != 0 {
            WALL_BIT | (e & INDEX) as u64
        } else {
            let j = (e & INDEX) as usize;
            partner_key(p.id[j], member(st, j))
        };
        out.push(key);
        out.extend(h.map(f64::to_bits));
        k += 1;
    }
    out[at] = k;
}

/// Appends particle `i`'s state (words 2..31 of a record).
fn push_words(out: &mut Vec<u64>, st: &Step, i: usize) {
    let p = &st.particles;
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    out.extend(bits(&p.pos_rad[i]));
    out.extend(bits(&p.vel_invm[i]));
    out.extend(bits(&p.omega_invi[i]));
    out.push(p.dissipated[i].to_bits());
    for r in &st.work.motion[i] {
        out.extend(bits(r));
    }
}

/// Appends particle `i`'s refresh ([`refresh_words`] words; with its
/// lever when `clumps`).
pub fn push_refresh(out: &mut Vec<u64>, st: &Step, i: usize, clumps: bool) {
    out.extend(st.particles.pos_rad[i].map(f64::to_bits));
    for r in &st.work.motion[i] {
        out.extend(r.map(f64::to_bits));
    }
    if clumps {
        let lever = st.work.lever.get(i).copied().unwrap_or([0.0; 6]);
        out.extend(lever.map(f64::to_bits));
    }
}

/// Overwrites ghost `i`'s position and motion record (and lever, when
/// `clumps`) with a refresh (`w`, [`refresh_words`] words).
pub fn take_refresh(st: &mut Step, i: usize, w: &[u64], clumps: bool) {
    let f = |k: usize| f64::from_bits(w[k]);
    let four = |k: usize| [f(k), f(k + 1), f(k + 2), f(k + 3)];
    st.particles.pos_rad[i] = four(0);
    st.work.motion[i] = [four(4), four(8), four(12), four(16)];
    if clumps {
        st.work.lever[i] = std::array::from_fn(|k| f(REFRESH + k));
    }
}

/// The words of the record at `r`'s start.
fn record_len(r: &[u64]) -> usize {
    let lever = if r[1] & MEMBER_BIT != 0 { LEVER } else { 0 };
    HEAD + lever + ENTRY * r[HEAD - 1] as usize
}

/// Record `r`'s key ([`key`]) and its member index, if a clump's member.
fn record_key(r: &[u64]) -> (u64, Option<u32>) {
    let member = (r[1] >> 32) as u32 & !(1 << 31);
    let key = (r[0] as u32 as u64) << 32 | member as u64;
    (key, (r[1] & MEMBER_BIT != 0).then_some(member))
}

/// The records of `bufs`: (buffer, offset) of each.
fn index(bufs: &[Vec<u64>]) -> Vec<(usize, usize)> {
    let mut at = Vec::new();
    for (b, buf) in bufs.iter().enumerate() {
        let mut o = 0;
        while o < buf.len() {
            at.push((b, o));
            o += record_len(&buf[o..]);
        }
        assert_eq!(o, buf.len(), "a record cut short");
    }
    at
}

/// The rows of `bufs` (whole records) become `st`'s, in key order ([`key`]:
/// id, then member), each row holding its history entries whose partner is
/// among them (a wall's always): the list a build moves history from; and
/// in a run with clumps (`clumps`: the bodies' records, [`push_clump`]) the
/// clumps whose rows it owns, each row's clump (a ghost's none here: its
/// body is its owner's), member index and lever. Sets `work.ghost` and asks
/// for a rebuild (bin, sort, neighbours) before the next contact stage.
/// Returns each ghost's owner rank (0 for an owned row).
pub fn assemble(st: &mut Step, bufs: &[Vec<u64>], clumps: Option<&[Vec<u64>]>) -> Vec<u32> {
    let mut at = index(bufs);
    at.sort_by_key(|&(b, o)| record_key(&bufs[b][o..]).0);
    let n = at.len();
    let local: HashMap<u64, u32> = at
        .iter()
        .enumerate()
        .map(|(i, &(b, o))| {
            let r = &bufs[b][o..];
            let member = record_key(r).1.unwrap_or(0);
            (partner_key(r[0] as u32, member), i as u32)
        })
        .collect();
    assert_eq!(local.len(), n, "a particle sent twice");
    let mut p = Particles::<f64>::default();
    let w = &mut st.work;
    w.motion.clear();
    w.ghost.clear();
    let (mut body, mut member, mut lever) = (Vec::new(), Vec::new(), Vec::new());
    let mut of_clump = Vec::with_capacity(n);
    let (mut start, mut nbr, mut hist) = (vec![0u32], Vec::new(), Vec::new());
    let mut source = Vec::with_capacity(n);
    let f = |x: u64| f64::from_bits(x);
    for &(b, o) in &at {
        let r = &bufs[b][o..];
        push_state(&mut p, r);
        let four = |k: usize| [f(r[k]), f(r[k + 1]), f(r[k + 2]), f(r[k + 3])];
        w.motion.push([four(15), four(19), four(23), four(27)]);
        w.ghost.push(r[0] & GHOST_BIT != 0);
        source.push((r[0] >> OWNER_SHIFT) as u32);
        let mut h = HEAD;
        let m = record_key(r).1;
        member.push(m.unwrap_or(0));
        of_clump.push(m.is_some());
        // owned members get their clump below
        body.push(NONE);
        lever.push(match m {
            Some(_) => {
                h += LEVER;
                std::array::from_fn(|k| f(r[HEAD + k]))
            }
            None => [0.0; 6],
        });
        for e in r[h..h + ENTRY * r[HEAD - 1] as usize].chunks_exact(ENTRY) {
            let entry = if e[0] & WALL_BIT != 0 {
                (e[0] as u32 & INDEX) | WALL
            } else {
                match local.get(&e[0]) {
                    Some(&j) => j,
                    None => continue,
                }
            };
            nbr.push(entry | HAS_HISTORY);
            hist.push(std::array::from_fn(|k| f(e[1 + k])));
        }
        start.push(nbr.len() as u32);
    }
    w.pos_ref = p.pos_rad.iter().map(|x| [x[0], x[1], x[2]]).collect();
    w.force = vec![[0.0; 4]; n];
    w.torque = vec![[0.0; 4]; n];
    w.nbr_count = start.windows(2).map(|s| s[1] - s[0]).collect();
    w.nbr_start = start;
    w.nbr = nbr;
    w.nbr_hist = crate::cpu::hist::HistVec::from_hists(w.nbr_hist.roll, &hist);
    w.scratch = None;
    st.particles = p;
    st.rebuild = true;
    match clumps {
        Some(bufs) => {
            let mut c = clumps_of(bufs);
            let at: HashMap<u32, u32> =
                c.id.iter()
                    .enumerate()
                    .map(|(k, &id)| (id, k as u32))
                    .collect();
            let mut first = vec![0u32];
            for &s in &c.shape {
                first.push(first.last().unwrap() + st.shapes[s as usize].members.len() as u32);
            }
            c.rows = vec![NONE; *first.last().unwrap() as usize];
            c.first = first;
            for i in 0..n {
                if st.work.ghost[i] || !of_clump[i] {
                    continue;
                }
                let k = *at
                    .get(&st.particles.id[i])
                    .expect("an owned member's clump comes with it");
                body[i] = k;
                c.rows[(c.first[k as usize] + member[i]) as usize] = i as u32;
            }
            assert!(
                !c.rows.contains(&NONE),
                "a clump came without its members' rows"
            );
            st.clumps = c;
            let w = &mut st.work;
            (w.body, w.member, w.lever) = (body, member, lever);
        }
        None => {
            st.clumps = Clumps::default();
            let w = &mut st.work;
            w.body.clear();
            w.member.clear();
            w.lever.clear();
        }
    }
    source
}

/// The rows of `bufs` (records without history), in key order ([`key`]:
/// a clump's members in member order, as a serial snapshot lists them).
pub fn particles(bufs: &[Vec<u64>]) -> Particles<f64> {
    let mut at = index(bufs);
    at.sort_by_key(|&(b, o)| record_key(&bufs[b][o..]).0);
    let mut p = Particles::<f64>::default();
    for (b, o) in at {
        push_state(&mut p, &bufs[b][o..]);
    }
    p
}

/// Appends clump `k`'s body ([`CLUMP`] words: id, shape, material, then
/// x, V*, V(n−½), 1/M, the moments, q, q(n−1), L(n−½), ω* as f64 bits).
pub fn push_clump(out: &mut Vec<u64>, c: &Clumps, k: usize) {
    out.extend([c.id[k] as u64, c.shape[k] as u64, c.material[k] as u64]);
    let v = |out: &mut Vec<u64>, x: DVec3| out.extend(x.to_array().map(f64::to_bits));
    let q = |out: &mut Vec<u64>, x: DQuat| out.extend(x.to_array().map(f64::to_bits));
    v(out, c.pos[k]);
    v(out, c.vel[k]);
    v(out, c.vel_half[k]);
    out.push(c.inv_mass[k].to_bits());
    v(out, c.moments[k]);
    q(out, c.q[k]);
    q(out, c.q_prev[k]);
    v(out, c.l_half[k]);
    v(out, c.omega[k]);
}

/// The clumps of [`push_clump`]'s records in `bufs`, in id order, without
/// their member table (`first`, `rows`: [`assemble`] makes it).
pub fn clumps_of(bufs: &[Vec<u64>]) -> Clumps {
    let mut all: Vec<&[u64]> = bufs.iter().flat_map(|b| b.chunks_exact(CLUMP)).collect();
    all.sort_by_key(|r| r[0]);
    let mut c = Clumps::default();
    let f = |r: &[u64], k: usize| f64::from_bits(r[k]);
    let v = |r: &[u64], k: usize| DVec3::new(f(r, k), f(r, k + 1), f(r, k + 2));
    let q =
        |r: &[u64], k: usize| DQuat::from_array([f(r, k), f(r, k + 1), f(r, k + 2), f(r, k + 3)]);
    for r in all {
        c.id.push(r[0] as u32);
        c.shape.push(r[1] as u32);
        c.material.push(r[2] as u32);
        c.pos.push(v(r, 3));
        c.vel.push(v(r, 6));
        c.vel_half.push(v(r, 9));
        c.inv_mass.push(f(r, 12));
        c.moments.push(v(r, 13));
        c.q.push(q(r, 16));
        c.q_prev.push(q(r, 20));
        c.l_half.push(v(r, 24));
        c.omega.push(v(r, 27));
    }
    c
}

/// Appends the particle of record `r` (its words 0..15) to `p`.
fn push_state(p: &mut Particles<f64>, r: &[u64]) {
    let f = |x: u64| f64::from_bits(x);
    let four = |k: usize| [f(r[k]), f(r[k + 1]), f(r[k + 2]), f(r[k + 3])];
    p.id.push(r[0] as u32);
    p.material.push(r[1] as u32);
    p.pos_rad.push(four(2));
    p.vel_invm.push(four(6));
    p.omega_invi.push(four(10));
    p.dissipated.push(f(r[14]));
}

/// A flow event as 5 words.
pub fn push_event(out: &mut Vec<u64>, e: &FlowEvent) {
    let kind = match e.kind {
        FlowKind::Inserted(k) => k as u64,
        FlowKind::Removed(k) => k as u64 | 1 << 32,
    };
    out.extend([
        e.step,
        e.id as u64,
        kind,
        e.mass.to_bits(),
        e.energy.to_bits(),
    ]);
}

/// The events of [`push_event`]'s words.
pub fn events(w: &[u64]) -> Vec<FlowEvent> {
    w.chunks_exact(5)
        .map(|e| FlowEvent {
            step: e[0],
            id: e[1] as u32,
            kind: if e[2] >> 32 != 0 {
                FlowKind::Removed(e[2] as u32 as usize)
            } else {
                FlowKind::Inserted(e[2] as u32 as usize)
            },
            mass: f64::from_bits(e[3]),
            energy: f64::from_bits(e[4]),
        })
        .collect()
}
