//! A particle as words, for the ranks to send each other: its state and
//! motion record, and (when it moves to another rank) its list row's
//! history keyed by its partners' ids, as checkpoints key it. A rank
//! rebuilds its [`Step`] from the records it holds ([`assemble`]).
//!
//! A record is [`HEAD`] words, then 5 words per history entry:
//!
//! | words | what |
//! |-------|------|
//! | 0 | id, and bit 32: a ghost (a copy; another rank owns it) |
//! | 1 | material |
//! | 2..14 | `pos_rad`, `vel_invm`, `omega_invi` (f64 bits) |
//! | 14 | `dissipated` |
//! | 15..31 | the motion record |
//! | 31 | the number of history entries k |
//! | then k × 5 | the partner (its id; bit 32: a wall primitive's index), ξ xyz, k_t |

use crate::cpu::Step;
use crate::flow::{FlowEvent, FlowKind};
use crate::state::{Particles, HAS_HISTORY, INDEX, WALL};
use std::collections::HashMap;

/// Words of a record before its history entries.
pub const HEAD: usize = 32;
/// Words of a ghost's refresh: its position and radius, and its motion
/// record — all a contact reads of a partner (a ghost's own sums and
/// velocities are never read: they are its owner's to keep).
pub const REFRESH: usize = 20;

const GHOST_BIT: u64 = 1 << 32;
const WALL_BIT: u64 = 1 << 32;

/// Appends particle `i` of `st`: its state, with its history entries when
/// `rows` (a migration, a checkpoint), as a ghost when `ghost`.
pub fn push(out: &mut Vec<u64>, st: &Step, i: usize, ghost: bool, rows: bool) {
    let p = &st.particles;
    out.push(p.id[i] as u64 | if ghost { GHOST_BIT } else { 0 });
    out.push(p.material[i] as u64);
    push_words(out, st, i);
    let w = &st.work;
    let at = out.len();
    out.push(0);
    // (a particle inserted since the last build has no row yet)
    if !rows || i + 1 >= w.nbr_start.len() {
        return;
    }
    let mut k = 0;
    let row = w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize;
    for (&e, h) in w.nbr[row.clone()].iter().zip(&w.nbr_hist[row]) {
        if e & HAS_HISTORY == 0 {
            continue;
        }
        let key = if e & WALL != 0 {
            WALL_BIT | (e & INDEX) as u64
        } else {
            p.id[(e & INDEX) as usize] as u64
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

/// Appends particle `i`'s refresh ([`REFRESH`] words).
pub fn push_refresh(out: &mut Vec<u64>, st: &Step, i: usize) {
    out.extend(st.particles.pos_rad[i].map(f64::to_bits));
    for r in &st.work.motion[i] {
        out.extend(r.map(f64::to_bits));
    }
}

/// Overwrites ghost `i`'s position and motion record with a refresh
/// (`w`, [`REFRESH`] words).
pub fn take_refresh(st: &mut Step, i: usize, w: &[u64]) {
    let f = |k: usize| f64::from_bits(w[k]);
    let four = |k: usize| [f(k), f(k + 1), f(k + 2), f(k + 3)];
    st.particles.pos_rad[i] = four(0);
    st.work.motion[i] = [four(4), four(8), four(12), four(16)];
}

/// The records of `bufs`: (buffer, offset) of each.
fn index(bufs: &[Vec<u64>]) -> Vec<(usize, usize)> {
    let mut at = Vec::new();
    for (b, buf) in bufs.iter().enumerate() {
        let mut o = 0;
        while o < buf.len() {
            at.push((b, o));
            o += HEAD + 5 * buf[o + HEAD - 1] as usize;
        }
        assert_eq!(o, buf.len(), "a record cut short");
    }
    at
}

/// The particles of `bufs` (whole records) become `st`'s, in id order,
/// each row holding its history entries whose partner is among them (a
/// wall's always): the list a build moves history from. Sets
/// `work.ghost` and asks for a rebuild (bin, sort, neighbours) before the
/// next contact stage.
pub fn assemble(st: &mut Step, bufs: &[Vec<u64>]) {
    let mut at = index(bufs);
    at.sort_by_key(|&(b, o)| bufs[b][o] as u32);
    let n = at.len();
    let local: HashMap<u32, u32> = at
        .iter()
        .enumerate()
        .map(|(i, &(b, o))| (bufs[b][o] as u32, i as u32))
        .collect();
    assert_eq!(local.len(), n, "a particle sent twice");
    let mut p = Particles::<f64>::default();
    let w = &mut st.work;
    w.motion.clear();
    w.ghost.clear();
    let (mut start, mut nbr, mut hist) = (vec![0u32], Vec::new(), Vec::new());
    let f = |x: u64| f64::from_bits(x);
    for &(b, o) in &at {
        let r = &bufs[b][o..];
        push_state(&mut p, r);
        let four = |k: usize| [f(r[k]), f(r[k + 1]), f(r[k + 2]), f(r[k + 3])];
        w.motion.push([four(15), four(19), four(23), four(27)]);
        w.ghost.push(r[0] & GHOST_BIT != 0);
        for e in r[HEAD..HEAD + 5 * r[HEAD - 1] as usize].chunks_exact(5) {
            let entry = if e[0] & WALL_BIT != 0 {
                (e[0] as u32 & INDEX) | WALL
            } else {
                match local.get(&(e[0] as u32)) {
                    Some(&j) => j,
                    None => continue,
                }
            };
            nbr.push(entry | HAS_HISTORY);
            hist.push([f(e[1]), f(e[2]), f(e[3]), f(e[4])]);
        }
        start.push(nbr.len() as u32);
    }
    w.pos_ref = p.pos_rad.iter().map(|x| [x[0], x[1], x[2]]).collect();
    w.force = vec![[0.0; 4]; n];
    w.torque = vec![[0.0; 4]; n];
    w.nbr_count = start.windows(2).map(|s| s[1] - s[0]).collect();
    w.nbr_start = start;
    w.nbr = nbr;
    w.nbr_hist = hist;
    w.scratch = None;
    st.particles = p;
    st.rebuild = true;
}

/// The particles of `bufs` (records without history), in id order.
pub fn particles(bufs: &[Vec<u64>]) -> Particles<f64> {
    let mut at = index(bufs);
    at.sort_by_key(|&(b, o)| bufs[b][o] as u32);
    let mut p = Particles::<f64>::default();
    for (b, o) in at {
        push_state(&mut p, &bufs[b][o..]);
    }
    p
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
