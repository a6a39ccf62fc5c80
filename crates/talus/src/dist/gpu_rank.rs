//! One rank of a distributed GPU run ([`GpuRank`], a [`Part`]). The
//! device steps the particles the rank owns beside its ghosts (copies of
//! the neighbours' within a cutoff, marked by [`GHOST`] in the material
//! word: evaluated in pairs, never integrated nor counted in a sum). The
//! host exchanges twice a step at most: between the step's two
//! submissions, the walls' exact load sums of every rank (on the steps
//! that want them: every step with a servo); after it, the errors, the
//! rebuild test and the ghosts' rows (position, motion record, fixed-point
//! position: 104 bytes each, gathered and scattered by `ghosts.wgsl`).
//!
//! A rebuild is a migration: the rank's state is read back whole, each
//! owned row goes as a record (the device's own words, its history rows
//! keyed by the partners' ids and member indices) to the rank that owns
//! its position (a clump's members and record: its centre's) and to the
//! ranks within reach of it, and each rank loads what it got as a
//! checkpoint loads (the first build moves the history into the new
//! list). In a run with shapes the ghosts' rows carry their levers. The
//! list's composition never changes a result (exact pair sums, pairs in
//! id orientation), so the ranks end on the serial run's bits.
//! Each migration reads and writes the whole state and allocates the
//! buffers anew: correct, not yet fast (docs/ranks.md).

use super::comm::Comm;
use super::part::Part;
use super::rank::{accept_across, agree, REBALANCE_AT};
use super::slabs::Slabs;
use crate::backend::{Backend, Diagnostics, ListStats, RanksInfo, RunError, RunErrorKind};
use crate::checkpoint::Saved;
use crate::gpu::clump_data::{Clump, MemberRow};
use crate::gpu::data::{
    FixedWords, GpuInit, CTL_BUILDS, CTL_COUNT, CTL_ERR_NONFINITE, CTL_ERR_OVERLAP, CTL_FROZEN,
    CTL_KEPT_NEED, CTL_LIST_LEN, CTL_LIST_NEED, CTL_MAX_OVERLAP, CTL_NEXT_ID, CTL_REBUILD,
    CTL_STEP, FX_WORDS,
};
use crate::gpu::ghosts::{GhostList, GHOST, GHOST_PART_WORDS, GHOST_WORDS};
use crate::gpu::{diagnostics_of, GpuBackend, GpuContext};
use crate::setup::Setup;
use crate::shapes::clumps::NONE;
use crate::state::{Particles, HAS_HISTORY, INDEX, WALL};

/// u32 words of a record before its history rows: id, position (4),
/// dissipated energy, motion record (16), fixed-point position (6),
/// reference position (3), rows.
const HEAD: usize = 32;
/// Words of a history row: the entry with the partner's id for its index
/// (a wall's entry as it is), the history (8: `crate::state::Hist`, the
/// rolling half zero in a run without it).
const ROW: usize = 9;
/// The motion record's material word and id word.
const MATERIAL: usize = 11;
const ID: usize = 15;
/// In a run with shapes, a record holds its row's part in a clump after
/// [`HEAD`] (`MemberRow`: lever, body, member; 8 words), and each history
/// row its partner's member index after the partner's id ([`ROW`] + 1).
const MEMBER_WORDS: usize = 8;
/// The body word of a record's `MemberRow`: a ghost's carries its owner's
/// rank; an owned row's is `NONE` for a sphere, else its clump's (found by
/// id in the records of the clumps that came).
const BODY: usize = 6;
const MEMBER: usize = 7;
/// u32 words of a clump's record (the device's `Clump`).
const CLUMP_WORDS: usize = std::mem::size_of::<Clump>() / 4;

/// Words of a history row in a run with shapes or without.
fn row_words(clumps: bool) -> usize {
    ROW + clumps as usize
}

/// What a scene needs that GPU ranks do not do yet, if anything (bonds,
/// as the CPU's ranks; kept for `--backend auto`).
pub fn unsupported(setup: &Setup) -> Option<String> {
    super::rank::bonds_unsupported(setup)
}

/// A rank's device state, as words (from `GpuBackend::save_state`).
struct Local {
    pos: Vec<[u32; 4]>,
    diss: Vec<u32>,
    motion: Vec<[u32; 16]>,
    fx: Vec<FixedWords>,
    pos_ref: Vec<[u32; 4]>,
    start: Vec<u32>,
    nbr: Vec<u32>,
    hist: Vec<crate::state::Hist<u32>>,
    /// Each row's part in a clump, and the clumps' records in use (both
    /// empty in a run without clumps).
    row: Vec<MemberRow>,
    table: Vec<Clump>,
}

impl Local {
    fn of(s: &Saved) -> Local {
        let n = s.scalars.particles as usize;
        fn v<T: bytemuck::Pod>(s: &Saved, name: &str) -> Vec<T> {
            bytemuck::pod_collect_to_vec(s.section(name).expect("the device's state"))
        }
        let local = Local {
            pos: v(s, "pos_rad"),
            diss: v(s, "dissipated"),
            motion: v(s, "motion"),
            fx: v(s, "pos_fx"),
            pos_ref: v(s, "pos_ref"),
            start: v(s, "nbr_start"),
            nbr: v(s, "nbr"),
            hist: s.hist().expect("the device's history"),
            row: s
                .section("gpu_clump_row")
                .map(bytemuck::pod_collect_to_vec)
                .unwrap_or_default(),
            table: s
                .section("gpu_clumps")
                .map(bytemuck::pod_collect_to_vec)
                .unwrap_or_default(),
        };
        assert_eq!(local.pos.len(), n, "the device's state");
        local
    }

    fn owned(&self, i: usize) -> bool {
        self.motion[i][MATERIAL] & GHOST == 0
    }

    fn id(&self, i: usize) -> u32 {
        self.motion[i][ID]
    }

    /// Row `i`'s part in a clump (a sphere's in a run without clumps).
    fn member_row(&self, i: usize) -> MemberRow {
        self.row.get(i).copied().unwrap_or(MemberRow::SPHERE)
    }

    /// The rank that owns row `i` (one this rank owns): its position's, a
    /// clump member's its clump's centre's.
    fn owner(&self, i: usize, slabs: &Slabs, fixed: &crate::gpu::FixedPoint) -> usize {
        let b = self.member_row(i).body;
        let x = if b == NONE {
            fixed.decode(&self.fx[i])
        } else {
            fixed.decode(&self.table[b as usize].pos_fx)
        };
        slabs.owner(x)
    }

    /// Particle `i` as a record (a ghost of rank `o`'s when `ghost` is
    /// `Some(o)`; its history rows when `rows`; its part in a clump when
    /// `clumps`).
    fn push(&self, out: &mut Vec<u32>, i: usize, ghost: Option<usize>, rows: bool, clumps: bool) {
        let ghost_of = ghost;
        let ghost = ghost.is_some();
        out.push(self.id(i));
        out.extend_from_slice(&self.pos[i]);
        out.push(self.diss[i]);
        let mut m = self.motion[i];
        m[MATERIAL] = if ghost {
            m[MATERIAL] | GHOST
        } else {
            m[MATERIAL] & !GHOST
        };
        out.extend_from_slice(&m);
        out.extend_from_slice(&self.fx[i]);
        out.extend_from_slice(&self.pos_ref[i][..3]);
        let at = out.len();
        out.push(0);
        if clumps {
            let mut r = self.member_row(i);
            if let Some(o) = ghost_of {
                r.body = o as u32;
            }
            out.extend_from_slice(bytemuck::cast_slice(&[r]));
        }
        if !rows {
            return;
        }
        let mut k = 0;
        for e in self.start[i] as usize..self.start[i + 1] as usize {
            let b = self.nbr[e];
            if b & HAS_HISTORY == 0 {
                continue;
            }
            let key = if b & WALL != 0 {
                b
            } else {
                (b & !INDEX) | self.id((b & INDEX) as usize)
            };
            out.push(key);
            if clumps {
                let j = (b & INDEX) as usize;
                out.push(if b & WALL != 0 {
                    0
                } else {
                    self.member_row(j).member
                });
            }
            out.extend_from_slice(&self.hist[e]);
            k += 1;
        }
        out[at] = k;
    }
}

/// u32 words as u64 words (a count, then pairs).
fn wide(v: &[u32]) -> Vec<u64> {
    let mut w = Vec::with_capacity(1 + v.len().div_ceil(2));
    w.push(v.len() as u64);
    w.extend(
        v.chunks(2)
            .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32),
    );
    w
}

fn narrow(w: &[u64]) -> Vec<u32> {
    let Some((&n, rest)) = w.split_first() else {
        return Vec::new();
    };
    let mut v: Vec<u32> = rest
        .iter()
        .flat_map(|&x| [x as u32, (x >> 32) as u32])
        .collect();
    v.truncate(n as usize);
    v
}

/// A record's key: its id, then (in a run with shapes) its member index.
fn key(r: &[u32], clumps: bool) -> u64 {
    let member = if clumps { r[HEAD + MEMBER] } else { 0 };
    (r[0] as u64) << 32 | member as u64
}

/// The records in `bufs`, each as its slice, in key order (id, member).
fn records(bufs: &[Vec<u32>], clumps: bool) -> Vec<&[u32]> {
    let head = HEAD + if clumps { MEMBER_WORDS } else { 0 };
    let mut out = Vec::new();
    for w in bufs {
        let mut at = 0;
        while at < w.len() {
            let len = head + row_words(clumps) * w[at + HEAD - 1] as usize;
            out.push(&w[at..at + len]);
            at += len;
        }
    }
    out.sort_unstable_by_key(|r| key(r, clumps));
    out
}

/// The clumps' records in `bufs`, in id order.
fn clump_records(bufs: &[Vec<u32>]) -> Vec<Clump> {
    let mut c: Vec<Clump> = bufs
        .iter()
        .flat_map(|w| w.chunks_exact(CLUMP_WORDS))
        .map(|r| bytemuck::pod_read_unaligned(bytemuck::cast_slice(r)))
        .collect();
    c.sort_unstable_by_key(|c| c.info[0]);
    c
}

/// `base` with its particles replaced by `recs` (in key order; the history
/// rows as the previous list of a build on the next step, which every
/// step after a load makes), its control words `ctl` and wall poses
/// `poses` (rank 0's: alike on every rank); in a run with shapes, the
/// clumps `clumps` (their records, in id order) with their owned members'
/// rows (a ghost's part in a clump keeps its member index and lever, of
/// no clump here: its owner moves it).
fn assemble(
    base: &Saved,
    ctl: &[u32],
    poses: &[u8],
    recs: &[&[u32]],
    clumps: Option<Vec<Clump>>,
) -> Saved {
    let n = recs.len();
    let with = clumps.is_some();
    let head = HEAD + if with { MEMBER_WORDS } else { 0 };
    let rw = row_words(with);
    let at: std::collections::HashMap<u64, u32> = recs
        .iter()
        .enumerate()
        .map(|(i, r)| (key(r, with), i as u32))
        .collect();
    let (mut pos, mut diss, mut motion, mut fx, mut pos_ref) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let mut parts: Vec<MemberRow> = Vec::new();
    let (mut start, mut nbr, mut hist) = (vec![0u32], Vec::new(), Vec::new());
    for r in recs {
        let p: [u32; 4] = r[1..5].try_into().expect("4 words");
        pos.push(p);
        diss.push(r[5]);
        let m: [u32; 16] = r[6..22].try_into().expect("16 words");
        motion.push(m);
        let f: FixedWords = r[22..22 + FX_WORDS].try_into().expect("fixed words");
        fx.push(f);
        pos_ref.push([r[28], r[29], r[30], p[3]]);
        if with {
            let mut part: MemberRow =
                bytemuck::pod_read_unaligned(bytemuck::cast_slice(&r[HEAD..HEAD + MEMBER_WORDS]));
            if m[MATERIAL] & GHOST != 0 {
                part.body = NONE;
            }
            parts.push(part);
        }
        for row in r[head..].chunks_exact(rw) {
            let key = row[0];
            let entry = if key & WALL != 0 {
                key
            } else {
                let member = if with { row[1] } else { 0 };
                match at.get(&(((key & INDEX) as u64) << 32 | member as u64)) {
                    Some(&j) => (key & !INDEX) | j,
                    None => continue,
                }
            };
            nbr.push(entry);
            hist.push(std::array::from_fn(|k| row[rw - 8 + k]));
        }
        start.push(nbr.len() as u32);
    }
    let mut c = ctl.to_vec();
    c[CTL_COUNT] = n as u32;
    c[CTL_LIST_LEN] = nbr.len() as u32;
    c[CTL_REBUILD] = 1;
    let mut s = base.clone();
    s.scalars.particles = n as u64;
    s.scalars.step = c[CTL_STEP] as u64;
    s.scalars.next_id = c[CTL_NEXT_ID];
    s.scalars.builds = c[CTL_BUILDS] as u64;
    s.scalars.rebuild = true;
    s.scalars.max_overlap = f32::from_bits(c[CTL_MAX_OVERLAP]) as f64;
    s.set("pos_rad", &pos);
    s.set("dissipated", &diss);
    s.set("motion", &motion);
    s.set("pos_fx", &fx);
    s.set("pos_ref", &pos_ref);
    s.set("nbr_start", &start);
    s.set("nbr", &nbr);
    s.put_hist(&hist, base.section("nbr_roll").is_ok());
    s.set("ctl", &c);
    s.set("wall_pose", poses);
    match clumps {
        Some(mut table) => {
            // each clump's member rows from the table's start, in id order
            let mut first = 0;
            for k in table.iter_mut() {
                k.info[1] = first;
                first += k.info[3];
            }
            let index: std::collections::HashMap<u32, u32> = table
                .iter()
                .enumerate()
                .map(|(k, c)| (c.info[0], k as u32))
                .collect();
            let mut rows = vec![NONE; first as usize];
            for (i, part) in parts.iter_mut().enumerate() {
                if part.body == NONE {
                    continue;
                }
                let k = index[&recs[i][0]];
                part.body = k;
                rows[(table[k as usize].info[1] + part.member) as usize] = i as u32;
            }
            assert!(
                !rows.contains(&NONE),
                "a clump came without its members' rows"
            );
            // a table of one free record at least: the run's kernels treat
            // the members this rank holds as copies as members
            if table.is_empty() {
                table.push(crate::gpu::clump_data::FREE);
            }
            s.set("gpu_clumps", &table);
            s.set("gpu_clump_rows", &rows);
            s.set("gpu_clump_row", &parts);
        }
        None => s.sections.retain(|(n, _)| !n.starts_with("gpu_clump")),
    }
    s
}

/// A resumed run's replicated state on every rank: rank 0 loaded the
/// checkpoint, the others take its step count, counters, walls, bodies
/// and surfaces from rank 0's device (the particles come with the first
/// migration). The surfaces' forces of the current exchange interval stay
/// rank 0's alone (the others start it at zero), as the ranks add theirs
/// at its end.
fn share_resumed<C: Comm>(comm: &C, g: &mut GpuBackend, setup: &Setup, clumps: bool) {
    let mut w = Vec::new();
    if comm.rank() == 0 {
        let s = g.save_state();
        let ctl: Vec<u32> = s.array_any("ctl").expect("control words");
        let poses = s.section("wall_pose").expect("wall poses").to_vec();
        let shell = assemble(&s, &ctl, &poses, &[], clumps.then(Vec::new));
        w = pack_shell(&shell);
    }
    comm.broadcast(&mut w);
    if comm.rank() != 0 {
        let mut s = g.save_state();
        unpack_shell(&w, &mut s);
        if let Some((_, f)) = s.sections.iter_mut().find(|(n, _)| n == "surf_force") {
            f.fill(0);
        }
        g.load(&s, None, Some(setup))
            .expect("rank 0's replicated state loads as a checkpoint does");
    }
}

/// A particle-free state as words: the scalars rank 0 decides, then each
/// section but the exact positions (name and bytes, lengths first).
fn pack_shell(s: &Saved) -> Vec<u64> {
    let sc = &s.scalars;
    let mut b: Vec<u8> = Vec::new();
    for x in [
        sc.step,
        sc.next_id as u64,
        sc.builds,
        sc.max_overlap.to_bits(),
        sc.inserted.len() as u64,
    ]
    .iter()
    .chain(&sc.inserted)
    {
        b.extend(x.to_le_bytes());
    }
    for (name, data) in s.sections.iter().filter(|(n, _)| n != "pos_exact") {
        b.extend((name.len() as u64).to_le_bytes());
        b.extend(name.as_bytes());
        b.extend((data.len() as u64).to_le_bytes());
        b.extend(data);
    }
    let mut w = vec![b.len() as u64];
    w.extend(b.chunks(8).map(|c| {
        let mut x = [0u8; 8];
        x[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(x)
    }));
    w
}

/// [`pack_shell`]'s words onto `s` (a rank's own empty state): its
/// scalars and sections replaced by rank 0's.
fn unpack_shell(w: &[u64], s: &mut Saved) {
    let len = w[0] as usize;
    let b: Vec<u8> = w[1..]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .take(len)
        .collect();
    let mut rest: &[u8] = &b;
    let mut take = |k: usize| {
        let (head, tail) = rest.split_at(k);
        rest = tail;
        head
    };
    let sc = &mut s.scalars;
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    sc.step = word(take(8));
    sc.next_id = word(take(8)) as u32;
    sc.builds = word(take(8));
    sc.max_overlap = f64::from_bits(word(take(8)));
    // the entries' counts of particles poured so far: every rank pours
    // the batches' remainders alike
    let entries = word(take(8)) as usize;
    sc.inserted = (0..entries).map(|_| word(take(8))).collect();
    sc.particles = 0;
    sc.rebuild = true;
    s.sections.clear();
    let mut left = len - 40 - 8 * entries;
    while left > 0 {
        let n = word(take(8)) as usize;
        let name = String::from_utf8(take(n).to_vec()).expect("a section name");
        let m = word(take(8)) as usize;
        s.sections.push((name, take(m).to_vec()));
        left -= 16 + n + m;
    }
}

/// One rank's share of a GPU run.
pub struct GpuRank<C: Comm> {
    pub comm: C,
    pub g: GpuBackend,
    pub slabs: Slabs,
    /// Per rank: the owned rows it holds as ghosts, and this rank's ghosts
    /// from it, as (key, device index), in key order (id, then member).
    send: Vec<Vec<(u64, u32)>>,
    recv: Vec<Vec<(u64, u32)>>,
    /// The scene has shapes: records carry each row's part in a clump,
    /// the clumps' records travel with their rows, and the ghosts'
    /// refresh carries their levers.
    clumps: bool,
    /// The same, concatenated in rank order, on the device, with their
    /// bind groups.
    send_list: GhostList,
    recv_list: GhostList,
    send_bind: Option<(wgpu::BindGroup, wgpu::BindGroup)>,
    recv_bind: Option<(wgpu::BindGroup, wgpu::BindGroup)>,
    /// Rows received, to be written into the ghosts at the next step.
    pending: bool,
    /// The next step migrates and rebuilds (every rank alike).
    rebuild: bool,
    /// The step that reduces the wall loads (the last of an advance).
    loads_at: u64,
    owned: u64,
    migrations: u64,
    rebalances: u64,
    /// Seconds in the ghosts' refreshes (`RanksInfo::exchange_wait_s`).
    waited: f64,
    /// Seconds this rank's device spent on its steps since the last
    /// migration (its measured cost, exchanges included).
    busy: f64,
    imbalance: f64,
}

impl<C: Comm> GpuRank<C> {
    /// Every rank: its share of `setup`'s run on the device of `ctx`, from
    /// its start or from `saved` (given on rank 0; a checkpoint of any rank
    /// count, either path, or a serial run). Rank 0 loads the whole state;
    /// the first step's migration hands each rank its particles.
    pub fn new(
        comm: C,
        setup: &Setup,
        saved: Option<&Saved>,
        ctx: Result<GpuContext, String>,
    ) -> Result<Self, String> {
        let r = match unsupported(setup) {
            Some(e) => Err(e),
            None => Slabs::new(&setup.grid, comm.size()),
        };
        let slabs = agree(&comm, r)?;
        let g = ctx.and_then(|ctx| {
            let none = Particles::<f32>::default();
            let empty = GpuInit {
                state: &none,
                pos_fx: &[],
                motion: &[],
                list: None,
                capacity: Some(1),
                clumps: None,
            };
            match (comm.rank(), saved) {
                (0, Some(s)) => GpuBackend::restore_setup(setup, ctx, s),
                (0, None) => GpuBackend::from_setup(setup, ctx),
                _ => GpuBackend::from_state(setup, &setup.grid, &empty, ctx),
            }
            .map_err(|e| e.to_string())
        });
        let mut g = agree(&comm, g)?;
        let mut slabs = slabs;
        slabs.halo += super::rank::clump_reach(&g.shapes);
        let clumps = !setup.scene.shapes.is_empty();
        let mut resumed = vec![saved.is_some() as u64];
        comm.broadcast(&mut resumed);
        if resumed[0] == 1 {
            share_resumed(&comm, &mut g, setup, clumps);
        }
        let size = comm.size();
        let send_list = GhostList::new(&g.ctx, "ghosts sent", 0);
        let recv_list = GhostList::new(&g.ctx, "ghosts received", 0);
        Ok(GpuRank {
            comm,
            g,
            slabs,
            send: vec![Vec::new(); size],
            recv: vec![Vec::new(); size],
            clumps,
            send_list,
            recv_list,
            send_bind: None,
            recv_bind: None,
            pending: false,
            rebuild: true,
            loads_at: u64::MAX,
            owned: 0,
            migrations: 0,
            rebalances: 0,
            waited: 0.0,
            busy: 0.0,
            imbalance: 1.0,
        })
    }

    /// The whole run's cost per cell along the slabs' axis (as the CPU
    /// rank's: each owned particle weighs 1 + its row's entries, each
    /// rank's weights scaled to the seconds it measured).
    fn histogram(&self, l: &Local, fixed: &crate::gpu::FixedPoint) -> Vec<f64> {
        let items: Vec<([f64; 4], f64)> = (0..l.pos.len())
            .filter(|&i| l.owned(i))
            .map(|i| {
                let x = fixed.decode(&l.fx[i]);
                let w = 1.0 + (l.start[i + 1] - l.start[i]) as f64;
                ([x[0], x[1], x[2], 0.0], w)
            })
            .collect();
        let mine = self.slabs.histogram(items.iter().map(|(x, w)| (x, *w)));
        super::rank::cost_of(&self.comm, mine, self.busy)
    }

    /// Rank 0's control words and wall poses, on every rank.
    fn replicated(&self, s: &Saved) -> (Vec<u32>, Vec<u8>) {
        let mut w = Vec::new();
        if self.comm.rank() == 0 {
            let ctl: Vec<u32> = s.array_any("ctl").expect("control words");
            let poses = s.section("wall_pose").expect("wall poses");
            let pw: Vec<u32> = bytemuck::pod_collect_to_vec(poses);
            w = [wide(&ctl), wide(&pw)].concat();
        }
        self.comm.broadcast(&mut w);
        let n = 1 + (w[0] as usize).div_ceil(2);
        let ctl = narrow(&w[..n]);
        let poses = narrow(&w[n..]);
        (ctl, bytemuck::cast_slice(&poses).to_vec())
    }

    /// Moves the particles to the ranks their positions say (the slabs
    /// rebalanced first when they drifted apart) and loads each rank's
    /// share; the exchange lists in upload order (made the device's at the
    /// next build, [`GpuRank::relist`]).
    fn migrate(&mut self) {
        let s = self.g.save_state();
        let l = Local::of(&s);
        let fixed = self.g.fixed;
        let h = self.histogram(&l, &fixed);
        self.imbalance = self.slabs.imbalance(&h);
        if self.imbalance > REBALANCE_AT {
            let b = self.slabs.balanced(&h);
            let after = b.imbalance(&h);
            if after < self.imbalance {
                self.slabs = b;
                self.rebalances += 1;
                self.imbalance = after;
            }
        }
        self.busy = 0.0;
        let size = self.comm.size();
        let mut out = vec![Vec::new(); size];
        let clumps = self.clumps;
        // a particle an outlet took at the last step (id NONE) is dropped
        // here, as the serial run's build drops it
        for i in (0..l.pos.len()).filter(|&i| l.owned(i) && l.id(i) != u32::MAX) {
            let x = fixed.decode(&l.fx[i]);
            let o = l.owner(i, &self.slabs, &fixed);
            l.push(&mut out[o], i, None, true, clumps);
            for r in self.slabs.ghost_ranks(x, o) {
                l.push(&mut out[r], i, Some(o), true, clumps);
            }
        }
        // a clump's record to its centre's owner (its rows went there)
        let bodies = clumps.then(|| {
            let mut out = vec![Vec::new(); size];
            for c in l.table.iter().filter(|c| c.info[0] != NONE) {
                let o = self.slabs.owner(fixed.decode(&c.pos_fx));
                out[o].extend_from_slice(bytemuck::cast_slice::<Clump, u32>(&[*c]));
            }
            let got = self.comm.all_to_all(out.iter().map(|o| wide(o)).collect());
            clump_records(&got.iter().map(|w| narrow(w)).collect::<Vec<_>>())
        });
        let got: Vec<Vec<u32>> = self
            .comm
            .all_to_all(out.iter().map(|o| wide(o)).collect())
            .iter()
            .map(|w| narrow(w))
            .collect();
        let (ctl, poses) = self.replicated(&s);
        let recs = records(&got, clumps);
        let (mut send, mut recv) = (vec![Vec::new(); size], vec![Vec::new(); size]);
        let me = self.comm.rank();
        let mut owned = bodies.as_ref().map_or(0, |b| b.len() as u64);
        for (i, r) in recs.iter().enumerate() {
            let w: FixedWords = r[22..22 + FX_WORDS].try_into().expect("fixed words");
            let x = fixed.decode(&w);
            let k = key(r, clumps);
            if r[6 + MATERIAL] & GHOST != 0 {
                // its owner: in a run with shapes the record says (a
                // member's is its clump's centre's), else its position's
                let o = if clumps {
                    r[HEAD + BODY] as usize
                } else {
                    self.slabs.owner(x)
                };
                recv[o].push((k, i as u32));
            } else {
                // a sphere, or (a clump counted once, above) a member
                if !clumps || r[HEAD + BODY] == NONE {
                    owned += 1;
                }
                for g in self.slabs.ghost_ranks(x, me) {
                    send[g].push((k, i as u32));
                }
            }
        }
        let loaded = assemble(&s, &ctl, &poses, &recs, bodies);
        drop(s);
        self.g
            .load(&loaded, None, None)
            .expect("a rank's share loads as a checkpoint does");
        self.g.rank_loaded();
        self.send = send;
        self.recv = recv;
        self.owned = owned;
        self.pending = false;
        self.migrations += 1;
    }

    /// Words of a ghost's refresh row: with its part in a clump (lever,
    /// member) in a run with shapes.
    fn ghost_words(&self) -> usize {
        GHOST_WORDS as usize
            + if self.clumps {
                GHOST_PART_WORDS as usize
            } else {
                0
            }
    }

    /// The exchange lists in the device's order after the build that
    /// followed a migration (`keys`: the device's rows' keys, id and
    /// member, in its order; the upload was in key order), on the device.
    fn relist(&mut self, keys: &[u64]) {
        let mut by_id: Vec<(u64, u32)> = keys
            .iter()
            .enumerate()
            .map(|(j, &k)| (k, j as u32))
            .collect();
        by_id.sort_unstable();
        for l in self.send.iter_mut().chain(self.recv.iter_mut()) {
            for (id, i) in l.iter_mut() {
                debug_assert_eq!(by_id[*i as usize].0, *id);
                *i = by_id[*i as usize].1;
            }
        }
        let flat =
            |l: &[Vec<(u64, u32)>]| -> Vec<u32> { l.iter().flatten().map(|p| p.1).collect() };
        let ctx = &self.g.ctx;
        let levers = self.clumps;
        self.send_list
            .set(ctx, "ghosts sent", &flat(&self.send), levers);
        self.recv_list
            .set(ctx, "ghosts received", &flat(&self.recv), levers);
        let k = &self.g.pipes.ghosts;
        self.send_bind = Some(k.bind(ctx, &self.send_list, &self.g.data));
        self.recv_bind = Some(k.bind(ctx, &self.recv_list, &self.g.data));
    }

    /// The walls' load sums of every rank, added exactly (128-bit
    /// integers; an error word or'ed), written back for `wall_loads_sum`.
    fn add_loads(&mut self, mine: &[u32]) {
        let all: Vec<Vec<u32>> = self
            .comm
            .all_gather(&wide(mine))
            .iter()
            .map(|w| narrow(w))
            .collect();
        let mut total = vec![0u32; mine.len()];
        for (w, t) in total.chunks_mut(25).enumerate() {
            for c in 0..6 {
                let mut sum = 0u128;
                for a in &all {
                    let v = &a[25 * w + 4 * c..25 * w + 4 * c + 4];
                    let x = v
                        .iter()
                        .rev()
                        .fold(0u128, |acc, &y| (acc << 32) | y as u128);
                    sum = sum.wrapping_add(x);
                }
                for k in 0..4 {
                    t[4 * c + k] = (sum >> (32 * k)) as u32;
                }
            }
            t[24] = all.iter().map(|a| a[25 * w + 24]).fold(0, |x, y| x | y);
        }
        let q = &self.g.ctx.queue;
        q.write_buffer(&self.g.data.wall_acc, 0, bytemuck::cast_slice(&total));
    }

    /// The batches of `[[insert]]` due at this step's start, as the serial
    /// GPU run accepts them: each rank checks the candidates on its device
    /// (`insert_check`: it holds every particle within reach of its slab),
    /// keeps the verdicts on the candidates in its slab, the ranks share
    /// them, and the first free candidates the entry wants are the batch's.
    /// Every rank then inserts all of them with the serial ids, the others'
    /// marked as ghosts (the next batch's check sees them as the serial
    /// run's does; the migration that follows keeps the owners' copies);
    /// the owner logs each. True when any went in (the step migrates).
    fn pour(&mut self, step: u64) -> bool {
        let due = self.g.flow.plan.schedule(step, step + 1);
        let me = self.comm.rank();
        let mut any = false;
        for at in due {
            let want = at.target.saturating_sub(self.g.flow.inserted[at.entry]) as usize;
            let batch = self.g.flow.plan.batch(at);
            let c = &batch.candidates;
            if want == 0 || c.is_empty() {
                continue;
            }
            // the check reads the ghosts where their owners left them
            let unpack = unpack_pending(&mut self.pending, &self.recv_bind, &self.recv_list);
            let free = self.g.rank_check(unpack, &c.pos_rad);
            let accepted = accept_across(&self.comm, &self.slabs, &c.pos_rad, want, |i| free[i]);
            if accepted.is_empty() {
                continue;
            }
            let owner = |i: usize| {
                let p = c.pos_rad[i];
                self.slabs.owner([p[0], p[1], p[2]])
            };
            // the others' marked GHOST: the step's next batch is checked
            // against them as on one device
            let mut add = batch.pick(&accepted);
            let mine: Vec<bool> = accepted.iter().map(|&i| owner(i) == me).collect();
            let rows = match batch.shape {
                Some(s) => self.g.shapes[s].members.len() as u64,
                None => 1,
            };
            let need = self.g.data.n + rows * add.len() as u64;
            let c = &self.g.data.clumps;
            let short = batch.shape.is_some_and(|_| {
                let k = mine.iter().filter(|&&o| o).count() as u64;
                c.used + k > c.count || c.rows_used + k * rows > c.rows_cap
            });
            // a load makes room for the rows and for the plan's clumps to
            // the horizon
            if short || need > self.g.data.cap {
                let cap = self.g.data.cap;
                let cap = if need > cap {
                    need.max(cap * 3 / 2)
                } else {
                    cap
                };
                self.g
                    .grow_capacity(cap)
                    .expect("room for a batch (the serial set-up checked the count)");
            }
            let gravity = self.g.flow.plan.gravity_at(at.step);
            let ids = match batch.shape {
                None => {
                    for (m, &o) in add.material.iter_mut().zip(&mine) {
                        if !o {
                            *m |= GHOST;
                        }
                    }
                    self.g.insert_under(&add, gravity)
                }
                Some(s) => {
                    let q: Vec<[f64; 4]> = accepted.iter().map(|&i| batch.orientation[i]).collect();
                    self.g.rank_insert_clumps(s, &add, &q, gravity, &mine)
                }
            }
            .expect("room for a batch (made above; a rank's clumps' table holds the plan's)");
            for (k, &i) in accepted.iter().enumerate() {
                if owner(i) == me {
                    let e = batch.inserted(i, step, ids.start + k as u32);
                    self.g.flow.events.push(e);
                }
            }
            self.g.flow.inserted[at.entry] += accepted.len() as u64;
            any = true;
        }
        any
    }

    /// One step on every rank (the serial step's stages and order, with the
    /// exchanges between them). On error the step is not counted; every
    /// rank returns the same error.
    pub fn step(&mut self) -> Result<(), RunError> {
        let t0 = std::time::Instant::now();
        let mut migrated = std::mem::take(&mut self.rebuild);
        if migrated {
            self.migrate();
        }
        let step = self.g.steps_done();
        if !self.g.flow.plan.is_empty() && self.pour(step) {
            self.migrate();
            migrated = true;
        }
        let loads = self.g.data.n_bodies > 0 && (self.g.has_servo() || step == self.loads_at);
        let n = self.g.data.n;
        let acc_words = self.g.wall_acc_len();
        loop {
            let unpack = unpack_pending(&mut self.pending, &self.recv_bind, &self.recv_list);
            self.g.rank_submit_build(unpack);
            if !(migrated || loads) {
                break;
            }
            // the loads' partial sums; after a migration, the build's
            // order (the ids) and whether it needed more room
            let ids_words = if migrated { 16 * n } else { 0 };
            // and each row's member index (its part in a clump)
            let part_words = if migrated && self.g.data.b.clumped {
                8 * n
            } else {
                0
            };
            let acc = if loads { acc_words } else { 0 };
            self.g
                .reserve_read(4 * (ids_words + part_words + acc) + 512);
            let (ctl, r) = {
                let d = &self.g.data;
                self.g.read_ctl_and(&[
                    (&d.wall_acc, acc),
                    (&d.b.motion, ids_words),
                    (&d.b.clump_row, part_words),
                ])
            };
            if migrated && ctl[CTL_FROZEN] != u32::MAX {
                if ctl[CTL_KEPT_NEED] != 0 {
                    self.g.grow_kept(ctl[CTL_KEPT_NEED] as u64);
                    continue;
                }
                if ctl[CTL_LIST_NEED] != 0 {
                    let need = ctl[CTL_LIST_NEED] as u64;
                    if self.g.grow_list(need) {
                        continue;
                    }
                    // every rank must stop: the error comes with the
                    // step's gather below (a frozen rank adds nothing)
                    panic!("rank {}: the neighbour list needs {need} entries, more than the device binds", self.comm.rank());
                }
            }
            if migrated {
                let ids = r[1].chunks_exact(16).map(|m| m[ID] as u64);
                let members = r[2].chunks_exact(8).map(|p| p[MEMBER] as u64);
                let keys: Vec<u64> = if part_words > 0 {
                    ids.zip(members).map(|(id, m)| id << 32 | m).collect()
                } else {
                    ids.map(|id| id << 32).collect()
                };
                self.relist(&keys);
            }
            if loads {
                self.add_loads(&r[0]);
            }
            break;
        }
        let pack = self.send_bind.as_ref().map(|b| (b, self.send_list.count));
        self.g.rank_submit_step(pack);
        let words = self.ghost_words();
        let rows = words as u64 * self.send_list.count;
        self.g.reserve_read(4 * rows + 512);
        let (ctl, r) = self.g.read_ctl_and(&[(&self.send_list.rows, rows)]);
        self.g.rank_take_log(&ctl);
        self.busy += t0.elapsed().as_secs_f64();
        // every rank's ghosts' rows
        let mut out = Vec::with_capacity(self.comm.size());
        let mut at = 0;
        for l in &self.send {
            let len = words * l.len();
            out.push(wide(&r[0][at..at + len]));
            at += len;
        }
        // (not overlapped on this path yet: the device is idle meanwhile)
        let t = std::time::Instant::now();
        let got = self.comm.all_to_all(out);
        self.waited += t.elapsed().as_secs_f64();
        let mut rows_in = Vec::with_capacity(words * self.recv_list.count as usize);
        for (l, w) in self.recv.iter().zip(&got) {
            let v = narrow(w);
            assert_eq!(v.len(), words * l.len(), "a ghost refresh cut short");
            rows_in.extend_from_slice(&v);
        }
        if !rows_in.is_empty() {
            let q = &self.g.ctx.queue;
            q.write_buffer(&self.recv_list.rows, 0, bytemuck::cast_slice(&rows_in));
            self.pending = true;
        }
        // errors, the largest overlap and the rebuild test of every rank
        let status = [
            ctl[CTL_ERR_OVERLAP] as u64,
            ctl[CTL_MAX_OVERLAP] as u64,
            ctl[CTL_ERR_NONFINITE] as u64,
            ctl[CTL_REBUILD] as u64,
        ];
        let all = self.comm.all_gather(&status);
        let overlap = all.iter().map(|s| s[0]).min().expect("a rank");
        let ratio = all
            .iter()
            .map(|s| f32::from_bits(s[1] as u32))
            .fold(0.0f32, f32::max);
        let nonfinite = all.iter().map(|s| s[2]).min().expect("a rank");
        let err = |kind, particle: u64| RunError {
            step,
            particle: particle as u32,
            kind,
        };
        if overlap != u32::MAX as u64 {
            let ratio = ratio as f64;
            return Err(err(RunErrorKind::Overlap { ratio }, overlap));
        }
        if nonfinite != u32::MAX as u64 {
            return Err(err(RunErrorKind::NonFinite, nonfinite));
        }
        self.rebuild = all.iter().any(|s| s[3] != 0);
        self.g.rank_stepped(ratio);
        self.g.set_ctl(&[(CTL_REBUILD, self.rebuild as u32)]);
        // the bodies, at every multiple of K, under every rank's forces
        let now = self.g.steps_done();
        if self.g.bodies.as_ref().is_some_and(|b| now % b.every == 0) {
            let words = self.surf_force_all();
            self.g.rank_exchange(now, &words)?;
        }
        Ok(())
    }

    /// Every rank's forces on the surfaces' nodes since the interval
    /// began, added exactly (on every rank).
    fn surf_force_all(&mut self) -> Vec<u32> {
        let mine = self.g.surf_force_now();
        let all: Vec<Vec<u32>> = self
            .comm
            .all_gather(&wide(&mine))
            .iter()
            .map(|w| narrow(w))
            .collect();
        crate::gpu::ranks::add_force_words(&all)
    }

    /// Every rank's owned records (with history when `rows`), by rank, and
    /// in a run with shapes every rank's clumps' records (id order).
    fn gather(&mut self, rows: bool) -> (Saved, Vec<Vec<u32>>, Option<Vec<Clump>>) {
        let s = self.g.save_state();
        let l = Local::of(&s);
        let mut w = Vec::new();
        for i in (0..l.pos.len()).filter(|&i| l.owned(i) && l.id(i) != u32::MAX) {
            l.push(&mut w, i, None, rows, self.clumps);
        }
        let all = self
            .comm
            .all_gather(&wide(&w))
            .iter()
            .map(|a| narrow(a))
            .collect();
        let bodies = self.clumps.then(|| self.gather_clumps(&l.table));
        (s, all, bodies)
    }

    /// Every rank's clumps' records (those in use: `table`, this rank's),
    /// in id order.
    fn gather_clumps(&self, table: &[Clump]) -> Vec<Clump> {
        let mine: Vec<Clump> = table
            .iter()
            .filter(|c| c.info[0] != NONE)
            .copied()
            .collect();
        let all: Vec<Vec<u32>> = self
            .comm
            .all_gather(&wide(bytemuck::cast_slice(&mine)))
            .iter()
            .map(|a| narrow(a))
            .collect();
        clump_records(&all)
    }
}

/// The pass that writes the received rows into the ghosts, once, if rows
/// came since the last (the next submission starts with it). A function
/// of the fields, not a method, so the caller may borrow the device's
/// backend beside it.
fn unpack_pending<'a>(
    pending: &mut bool,
    bind: &'a Option<(wgpu::BindGroup, wgpu::BindGroup)>,
    list: &GhostList,
) -> Option<crate::gpu::ranks::GhostPass<'a>> {
    std::mem::take(pending).then(|| {
        let b = bind.as_ref().expect("bound at the migration");
        (b, list.count)
    })
}

impl<C: Comm> Part for GpuRank<C> {
    type C = C;

    fn comm(&self) -> &C {
        &self.comm
    }

    fn name(&self) -> &'static str {
        "gpu"
    }

    fn adapter(&self) -> String {
        format!(
            "{} on {} ranks ({})",
            self.g.ctx.describe(),
            self.comm.size(),
            self.comm.kind()
        )
    }

    fn advance(&mut self, steps: u64) -> Result<(), RunError> {
        if steps == 0 {
            return Ok(());
        }
        self.loads_at = self.g.steps_done() + steps - 1;
        self.g.rank_start_advance(self.loads_at);
        // the clumps' tables hold what the plan pours by this advance's end
        // (each load makes that room, as a segment on one device does)
        self.g.flow.end = self.g.flow.end.max(self.g.steps_done() + steps);
        for _ in 0..steps {
            self.step()?;
        }
        Ok(())
    }

    fn diagnostics(&mut self) -> Diagnostics {
        let (sums, bad, max_speed) = self.g.diagnostic_sums();
        let mut w: Vec<u64> = sums
            .iter()
            .flat_map(|&s| [s as u64, (s as u128 >> 64) as u64])
            .collect();
        w.extend([bad as u64, max_speed.to_bits()]);
        let all = self.comm.all_gather(&w);
        let mut total = [0i128; 5];
        let (mut bad, mut max_speed) = (false, 0.0f64);
        for a in &all {
            for (k, t) in total.iter_mut().enumerate() {
                let v = (a[2 * k] as u128 | (a[2 * k + 1] as u128) << 64) as i128;
                *t = t.wrapping_add(v);
            }
            bad |= a[10] != 0;
            max_speed = max_speed.max(f64::from_bits(a[11]));
        }
        diagnostics_of(total, bad, max_speed)
    }

    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        if !self.clumps {
            return Vec::new();
        }
        // the table alone (not the whole state)
        let all = self.gather_clumps(&self.g.clump_table());
        let (g, fixed) = (&self.g, self.g.fixed);
        all.iter()
            .map(|c| crate::gpu::clump_out::row_out(c, &g.shapes, &fixed))
            .collect()
    }

    fn snapshot(&mut self) -> Particles<f64> {
        let (_, all, _) = self.gather(false);
        let recs = records(&all, self.clumps);
        let fixed = self.g.fixed;
        let f = |w: u32| f32::from_bits(w) as f64;
        let mut p = Particles::<f64>::default();
        for r in recs {
            let fx: FixedWords = r[22..22 + FX_WORDS].try_into().expect("fixed words");
            let x = fixed.decode(&fx);
            p.pos_rad.push([x[0], x[1], x[2], f(r[4])]);
            p.vel_invm.push([f(r[6]), f(r[7]), f(r[8]), f(r[9])]);
            p.omega_invi.push([f(r[10]), f(r[11]), f(r[12]), f(r[13])]);
            p.material.push(r[6 + MATERIAL]);
            p.id.push(r[0]);
            p.dissipated.push(f(r[5]));
        }
        p
    }

    fn save(&mut self) -> Option<Saved> {
        let (s, all, bodies) = self.gather(true);
        let surf = self.g.bodies.is_some().then(|| self.surf_force_all());
        if self.comm.rank() != 0 {
            return None;
        }
        let recs = records(&all, self.clumps);
        let ctl: Vec<u32> = s.array_any("ctl").expect("control words");
        let poses = s.section("wall_pose").expect("wall poses").to_vec();
        let mut full = assemble(&s, &ctl, &poses, &recs, bodies);
        let fixed = self.g.fixed;
        let exact: Vec<[f64; 3]> = recs
            .iter()
            .map(|r| fixed.decode(&r[22..22 + FX_WORDS].try_into().expect("fixed words")))
            .collect();
        full.set("pos_exact", &exact);
        if let Some(words) = surf {
            self.g.rank_saved_surfaces(&mut full, &words);
        }
        Some(full)
    }

    fn particle_count(&mut self) -> u64 {
        let mine = self.owned - self.g.flow.pending.min(self.owned);
        let all = self.comm.all_gather(&[mine]);
        all.iter().map(|w| w[0]).sum()
    }

    fn list_stats(&mut self) -> ListStats {
        let s = self.g.save_state();
        let l = Local::of(&s);
        let (mut entries, mut contacts) = (0, 0);
        let weight = match self.g.data.pair_mode {
            crate::gpu::Pairs::Once => 2,
            crate::gpu::Pairs::Both => 1,
        };
        let hist: Vec<crate::state::Hist<f32>> = bytemuck::cast_slice(&l.hist).to_vec();
        if l.start.len() == l.pos.len() + 1 {
            for i in (0..l.pos.len()).filter(|&i| l.owned(i)) {
                let r = l.start[i] as usize..l.start[i + 1] as usize;
                let (e, c) = crate::backend::list_counts(&l.nbr[r.clone()], &hist[r], weight);
                entries += e;
                contacts += c;
            }
        }
        let all = self.comm.all_gather(&[entries, contacts, s.scalars.builds]);
        ListStats {
            builds: all[0][2],
            entries: all.iter().map(|a| a[0]).sum(),
            contacts: all.iter().map(|a| a[1]).sum(),
        }
    }

    fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent> {
        let mut w = Vec::new();
        for e in std::mem::take(&mut self.g.flow.events) {
            super::records::push_event(&mut w, &e);
        }
        let mut all: Vec<crate::flow::FlowEvent> = self
            .comm
            .all_gather(&w)
            .iter()
            .flat_map(|a| super::records::events(a))
            .collect();
        // the serial log's order (`GpuFlow::take_log`)
        all.sort_by_key(|e| {
            let removed = matches!(e.kind, crate::flow::FlowKind::Removed(_));
            (e.step, removed, e.id)
        });
        all
    }

    fn info(&mut self) -> RanksInfo {
        let ghosts: u64 = self.recv.iter().map(|l| l.len() as u64).sum();
        let name: Vec<u64> = self.g.ctx.describe().bytes().map(u64::from).collect();
        let mine = [vec![self.owned, ghosts, self.waited.to_bits()], name].concat();
        let all = self.comm.all_gather(&mine);
        RanksInfo {
            ranks: self.comm.size(),
            transport: self.comm.kind(),
            devices: all
                .iter()
                .map(|a| a[3..].iter().map(|&b| b as u8 as char).collect())
                .collect(),
            axis: ["x", "y", "z"][self.slabs.axis].into(),
            cuts: self.slabs.cuts.clone(),
            imbalance: self.imbalance,
            owned: all.iter().map(|a| a[0]).collect(),
            ghosts: all.iter().map(|a| a[1]).collect(),
            migrations: self.migrations,
            rebalances: self.rebalances,
            exchange_wait_s: all.iter().map(|a| f64::from_bits(a[2])).collect(),
        }
    }

    fn walls(&mut self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)> {
        // replicated on every rank, loads added up over the ranks
        self.g.wall_poses()
    }

    fn bodies(&self) -> Option<&crate::fem::coupling::BodySet> {
        self.g.bodies.as_ref()
    }

    fn max_overlap_ratio(&self) -> f64 {
        self.g.max_overlap_ratio()
    }

    fn steps_done(&self) -> u64 {
        self.g.steps_done()
    }
}
