//! One rank of a distributed CPU run ([`Rank`]: a [`Part`](super::part::Part)
//! that rank 0's [`Dist`](super::part::Dist) drives).
//!
//! A step on every rank: (on a rebuild) migrate — particles go to the
//! rank that owns their position (a clump's rows and body: its centre of
//! mass's), with their history, copies to the ranks within a cutoff (plus
//! the shapes' reach) — and bin, sort, build; the ghosts' refresh (their
//! owners' state after the last integration) exchanged around the contacts
//! of the owned particles with no ghost partner, then the others'
//! contacts; integration of the owned particles (a ghost is its owner's to
//! move); the wall loads (exact sums), the errors and the ids the outlets
//! took gathered, so every rank moves its walls alike and drops the same
//! particles. A particle's force is the serial run's bit for bit: its
//! partners are all present (owned or ghost, with the owner's state), its
//! sum runs in its partners' (id, member) order, and a pair is evaluated
//! from its lower id whichever rank evaluates it. A clump's members are all
//! its owner's: it reduces their loads and moves the body there.

use super::comm::Comm;
use super::records;
use super::slabs::Slabs;
use crate::backend::{Diagnostics, ListStats, RanksInfo, RunError, RunErrorKind, Stage};
use crate::checkpoint::Saved;
use crate::cpu::{contacts, diagnostics, CpuBackend, Step};
use crate::setup::Setup;
use crate::state::{Particles, INDEX, WALL};
use crate::sums::Exact;
use crate::walls::LoadSum;

/// A list rebuild that finds the largest slab's cost more than this much
/// above the mean moves the cuts.
pub const REBALANCE_AT: f64 = 1.10;

/// The whole run's cost per cell from each rank's weights per cell
/// (`mine`) and the seconds it measured since the last migration
/// (`busy`): each rank's weights scaled so that they add up to its seconds
/// (when every rank measured some: not at the start). A collective.
pub fn cost_of<C: Comm>(comm: &C, mut mine: Vec<f64>, busy: f64) -> Vec<f64> {
    let total: f64 = mine.iter().sum();
    mine.extend([total, busy]);
    let words: Vec<u64> = mine.iter().map(|x| x.to_bits()).collect();
    let all: Vec<Vec<f64>> = comm
        .all_gather(&words)
        .iter()
        .map(|a| a.iter().map(|&x| f64::from_bits(x)).collect())
        .collect();
    let cells = mine.len() - 2;
    let measured = all.iter().all(|a| a[cells + 1] > 0.0);
    let scale = |a: &Vec<f64>| {
        if measured && a[cells] > 0.0 {
            a[cells + 1] / a[cells]
        } else {
            1.0
        }
    };
    (0..cells)
        .map(|c| all.iter().map(|a| a[c] * scale(a)).sum())
        .collect()
}

/// One rank's share of a run.
pub struct Rank<C: Comm> {
    pub comm: C,
    /// The particles this rank owns and its ghosts (`work.ghost`).
    pub st: Step,
    /// The FEM bodies, on every rank alike: each advances its copy under
    /// the grains' forces of all ranks.
    pub bodies: Option<crate::fem::coupling::BodySet>,
    pub slabs: Slabs,
    /// Per rank: the owned rows it holds as ghosts, and this rank's ghosts
    /// from it, as (key, local index), in key order (`records::key`: id,
    /// then member).
    send: Vec<Vec<(u64, u32)>>,
    recv: Vec<Vec<(u64, u32)>>,
    /// The scene has shapes: the rows carry their clump, member and lever,
    /// and the bodies travel with them.
    clumps: bool,
    migrations: u64,
    rebalances: u64,
    /// Seconds this rank spent in contacts and integration since the last
    /// migration (its measured cost).
    busy: f64,
    /// The cost imbalance the last migration left (largest slab's cost
    /// over the mean).
    imbalance: f64,
    /// Each particle's rows in the contact stage: [`INTERIOR`],
    /// [`BOUNDARY`] or [`COPY`] (since the last build or removal).
    class: Vec<u8>,
    /// The ghosts still hold the last step's start: their owners'
    /// integration is not yet here (it comes with the next contacts).
    stale: bool,
    /// Seconds spent waiting for the ghosts' refreshes beyond the work
    /// that ran while they travelled (the exchange's exposed cost).
    waited: f64,
}

/// An owned particle none of whose partners is a ghost: its contacts run
/// while the ghosts' refresh is in flight.
const INTERIOR: u8 = 0;
/// An owned particle with a ghost partner: its contacts run once the
/// refresh is in.
const BOUNDARY: u8 = 1;
/// A ghost: its contacts are its owner's (none run here).
const COPY: u8 = 2;

/// What a scene needs that the CPU path's ranks do not do, if anything:
/// bonds (a bond across two ranks' slabs needs its partner's motion and a
/// force returned: not yet).
pub fn unsupported(setup: &Setup) -> Option<String> {
    bonds_unsupported(setup)
}

/// Bonds on several ranks: not in this build (shared by both paths).
pub fn bonds_unsupported(setup: &Setup) -> Option<String> {
    (!setup.scene.bonds.is_empty()).then(|| {
        "[[bonds]] run on one rank in this build: run without mpirun (or with one rank)".to_string()
    })
}

/// How far a row may lie from its particle's centre of mass: the largest
/// member offset of the scene's shapes (0: spheres only). A clump's rows
/// go with its centre's owner, so the slabs' halo grows by this much: an
/// owned member sticking out of its slab finds every partner there.
pub(crate) fn clump_reach(shapes: &[crate::shapes::table::Shape]) -> f64 {
    shapes
        .iter()
        .flat_map(|s| &s.members)
        .map(|b| (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt())
        .fold(0.0, f64::max)
}

/// The first error among the ranks' `r` (every rank learns it, as "rank
/// k: …"), or this rank's value. A collective: every rank calls it.
pub fn agree<C: Comm, T>(comm: &C, r: Result<T, String>) -> Result<T, String> {
    let mine: Vec<u64> = match &r {
        Ok(_) => Vec::new(),
        Err(e) => e.bytes().map(u64::from).chain([0]).collect(),
    };
    let all = comm.all_gather(&mine);
    if let Some((k, m)) = all.iter().enumerate().find(|(_, m)| !m.is_empty()) {
        let text: String = m[..m.len() - 1].iter().map(|&b| b as u8 as char).collect();
        return Err(if k == comm.rank() || comm.size() == 1 {
            text
        } else {
            format!("rank {k}: {text}")
        });
    }
    r
}

impl<C: Comm> Rank<C> {
    /// Every rank: its share of `setup`'s run from its start, or from
    /// `saved` (given on rank 0; a checkpoint of any rank count, or of a
    /// serial run). Rank 0 builds the whole state, then the first
    /// migration hands each rank its particles.
    pub fn new(comm: C, setup: &Setup, saved: Option<&Saved>) -> Result<Self, String> {
        let r = match unsupported(setup) {
            Some(e) => Err(e),
            None => Slabs::new(&setup.grid, comm.size()),
        };
        let mut slabs = agree(&comm, r)?;
        // rank 0 builds the whole state, the others none (their particles
        // come with the first migration); every rank starts the bodies,
        // rank 0 hands on a checkpoint's
        let b = match (comm.rank(), saved) {
            (0, Some(s)) => CpuBackend::restore_setup(setup, s),
            (0, None) => CpuBackend::from_setup(setup),
            _ => CpuBackend::without_particles(setup),
        };
        let CpuBackend { mut st, bodies, .. } = agree(&comm, b)?;
        st.work.ghost = vec![false; st.particles.len()];
        slabs.halo += clump_reach(&st.shapes);
        let clumps = !st.shapes.is_empty();
        st.work.defer_nodal = bodies.is_some();
        let mut rank = Rank {
            bodies,
            send: vec![Vec::new(); comm.size()],
            recv: vec![Vec::new(); comm.size()],
            clumps,
            comm,
            st,
            slabs,
            migrations: 0,
            rebalances: 0,
            busy: 0.0,
            imbalance: 1.0,
            class: Vec::new(),
            stale: false,
            waited: 0.0,
        };
        rank.share_replicated();
        // each rank its particles now: a pour due at the first step judges
        // its candidates against what is there
        rank.migrate();
        Ok(rank)
    }

    /// Rank 0's step count, wall state and counters on every rank.
    fn share_replicated(&mut self) {
        let st = &mut self.st;
        let mut w = vec![st.step, st.next_id as u64, st.max_overlap_ratio.to_bits()];
        w.extend(st.flow.inserted.iter().copied());
        w.extend(st.walls.state_words().iter().map(|x| x.to_bits()));
        self.comm.broadcast(&mut w);
        st.step = w[0];
        st.next_id = w[1] as u32;
        st.max_overlap_ratio = f64::from_bits(w[2]);
        let k = st.flow.inserted.len();
        st.flow.inserted = w[3..3 + k].to_vec();
        let words: Vec<f64> = w[3 + k..].iter().map(|&x| f64::from_bits(x)).collect();
        st.walls.set_state_words(&words);
        st.walls.pose_at(st.step as f64 * st.law.dt);
        // the bodies and their surfaces, as a checkpoint keeps them
        if let Some(b) = self.bodies.as_mut() {
            let (body, surf) = (b.save(), st.walls.surfaces.save_words());
            let mut w: Vec<u64> = body.iter().chain(&surf).map(|x| x.to_bits()).collect();
            self.comm.broadcast(&mut w);
            let w: Vec<f64> = w.iter().map(|&x| f64::from_bits(x)).collect();
            b.restore(&w[..body.len()]).expect("rank 0's bodies");
            let changed = st
                .walls
                .surfaces
                .restore_words(&w[body.len()..])
                .expect("rank 0's surfaces");
            for k in changed {
                st.walls.rebin_surface(k);
            }
            st.walls.pose_surfaces(st.step, st.law.dt, f64::INFINITY);
        }
    }

    fn owned(&self) -> impl Iterator<Item = usize> + '_ {
        let w = &self.st.work;
        (0..self.st.particles.len()).filter(move |&i| !w.is_ghost(i))
    }

    fn xyz(&self, i: usize) -> [f64; 3] {
        let p = self.st.particles.pos_rad[i];
        [p[0], p[1], p[2]]
    }

    /// The rank that owns row `i` (one this rank owns): its position's, a
    /// clump member's its clump's centre's.
    fn owner_of(&self, i: usize) -> usize {
        match self.st.work.body.get(i) {
            Some(&k) if k != crate::shapes::clumps::NONE => {
                self.slabs.owner(self.st.clumps.pos[k as usize].to_array())
            }
            _ => self.slabs.owner(self.xyz(i)),
        }
    }

    /// The whole run's cost per cell along the slabs' axis: each owned
    /// particle weighs 1 + its list row's entries (the contact stage's
    /// work grows with them), each rank's weights scaled so that they add
    /// up to the seconds it measured in contacts and integration since the
    /// last migration (when every rank measured some: not at the start).
    fn histogram(&self) -> Vec<f64> {
        let pos = &self.st.particles.pos_rad;
        let w = &self.st.work;
        let weight = |i: usize| {
            1.0 + if i + 1 < w.nbr_start.len() {
                (w.nbr_start[i + 1] - w.nbr_start[i]) as f64
            } else {
                0.0
            }
        };
        let mine = self
            .slabs
            .histogram(self.owned().map(|i| (&pos[i], weight(i))));
        cost_of(&self.comm, mine, self.busy)
    }

    /// Moves the particles to the ranks their positions say (rebalancing
    /// the slabs first when they drifted apart), rebuilds the list, and
    /// the ghost exchange's lists.
    fn migrate(&mut self) {
        let h = self.histogram();
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
        for i in self.owned() {
            let x = self.xyz(i);
            let o = self.owner_of(i);
            records::push(&mut out[o], &self.st, i, None, true);
            for g in self.slabs.ghost_ranks(x, o) {
                records::push(&mut out[g], &self.st, i, Some(o), true);
            }
        }
        // a clump's body to its centre's owner (its rows went there too)
        let bodies = self.clumps.then(|| {
            let c = &self.st.clumps;
            let mut out = vec![Vec::new(); size];
            for k in 0..c.len() {
                let o = self.slabs.owner(c.pos[k].to_array());
                records::push_clump(&mut out[o], c, k);
            }
            self.comm.all_to_all(out)
        });
        let got = self.comm.all_to_all(out);
        let source = records::assemble(&mut self.st, &got, bodies.as_deref());
        // each ghost's owner, by key
        let owner: std::collections::HashMap<u64, u32> = (0..self.st.particles.len())
            .filter(|&i| self.st.work.is_ghost(i))
            .map(|i| (records::key(&self.st, i), source[i]))
            .collect();
        let st = &mut self.st;
        st.timed(Stage::Bin, Step::bin_stage);
        st.timed(Stage::Sort, Step::sort_stage);
        st.timed(Stage::Neighbours, Step::build_neighbours);
        self.migrations += 1;
        // who refreshes whom until the next migration
        let me = self.comm.rank();
        let (mut send, mut recv) = (vec![Vec::new(); size], vec![Vec::new(); size]);
        for i in 0..self.st.particles.len() {
            let key = records::key(&self.st, i);
            if self.st.work.is_ghost(i) {
                recv[owner[&key] as usize].push((key, i as u32));
            } else {
                for g in self.slabs.ghost_ranks(self.xyz(i), me) {
                    send[g].push((key, i as u32));
                }
            }
        }
        for l in send.iter_mut().chain(recv.iter_mut()) {
            l.sort_unstable();
        }
        self.send = send;
        self.recv = recv;
        self.classify();
        // every ghost came with its owner's state of now
        self.stale = false;
    }

    /// Each particle's rows in the contact stage ([`INTERIOR`],
    /// [`BOUNDARY`], [`COPY`]), from the list.
    fn classify(&mut self) {
        let w = &self.st.work;
        let n = self.st.particles.len();
        debug_assert_eq!(w.nbr_start.len(), n + 1, "a list over every particle");
        let ghost_partner = |e: &u32| e & WALL == 0 && w.is_ghost((e & INDEX) as usize);
        self.class = (0..n)
            .map(|i| {
                let row = w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize;
                if w.is_ghost(i) {
                    COPY
                } else if w.nbr[row].iter().any(ghost_partner) {
                    BOUNDARY
                } else {
                    INTERIOR
                }
            })
            .collect();
    }

    /// The exchange lists after particles left (an outlet takes a
    /// particle from its owner and its copies at the same step: both lists
    /// lose it), renumbered.
    fn relist(&mut self) {
        let at: std::collections::HashMap<u64, u32> = (0..self.st.particles.len())
            .map(|i| (records::key(&self.st, i), i as u32))
            .collect();
        for l in self.send.iter_mut().chain(self.recv.iter_mut()) {
            l.retain_mut(|(id, i)| match at.get(id) {
                Some(&j) => {
                    *i = j;
                    true
                }
                None => false,
            });
        }
    }

    /// The rows this rank sends (its owned particles the others hold
    /// copies of: their state of now), by rank, and the words it expects
    /// from each.
    fn refresh_rows(&self) -> (Vec<Vec<u64>>, Vec<usize>) {
        let out = self
            .send
            .iter()
            .map(|l| {
                let mut w = Vec::with_capacity(l.len() * self.refresh_words());
                for &(_, i) in l {
                    records::push_refresh(&mut w, &self.st, i as usize, self.clumps);
                }
                w
            })
            .collect();
        let expect = self
            .recv
            .iter()
            .map(|l| l.len() * self.refresh_words())
            .collect();
        (out, expect)
    }

    fn refresh_words(&self) -> usize {
        records::refresh_words(self.clumps)
    }

    /// The rows received into the ghosts.
    fn take_rows(&mut self, got: &[Vec<u64>]) {
        let words = self.refresh_words();
        for (l, w) in self.recv.iter().zip(got) {
            assert_eq!(w.len(), l.len() * words, "a ghost refresh cut short");
            for (&(_, i), f) in l.iter().zip(w.chunks_exact(words)) {
                records::take_refresh(&mut self.st, i as usize, f, self.clumps);
            }
        }
        self.stale = false;
    }

    /// The ghosts take their owners' state of now, if they do not hold
    /// it (a collective: every rank's `stale` is the same).
    fn refresh(&mut self) {
        if self.stale {
            let (out, expect) = self.refresh_rows();
            let t = std::time::Instant::now();
            let got = self.comm.all_to_all_during(out, &expect, &mut || {});
            self.waited += t.elapsed().as_secs_f64();
            self.take_rows(&got);
        }
    }

    /// The contact stage: with the ghosts' refresh in flight, the rows of
    /// the particles that have no ghost partner; then, with it in, the
    /// rest (the same bits as one pass: `contacts::pass`).
    fn contacts(&mut self) -> contacts::ContactReport {
        let t0 = std::time::Instant::now();
        let interior = if self.stale {
            let (out, expect) = self.refresh_rows();
            let (st, class) = (&mut self.st, &self.class);
            let mut interior = None;
            let mut ran = 0.0;
            let got = self.comm.all_to_all_during(out, &expect, &mut || {
                let t = std::time::Instant::now();
                interior = Some(contacts::pass(st, class, INTERIOR));
                ran = t.elapsed().as_secs_f64();
            });
            self.waited += t0.elapsed().as_secs_f64() - ran;
            self.take_rows(&got);
            interior.expect("the work ran")
        } else {
            contacts::pass(&mut self.st, &self.class, INTERIOR)
        };
        let boundary = contacts::pass(&mut self.st, &self.class, BOUNDARY);
        let rep = contacts::finish(&mut self.st, interior.merge(boundary));
        self.st.stage_seconds[Stage::Contacts.index()] += t0.elapsed().as_secs_f64();
        rep
    }

    /// The batches of `[[insert]]` due at this step's start, as a serial
    /// run accepts them: each rank decides for the candidates in its slab
    /// (it holds every particle within reach of them, and every rank knows
    /// the candidates accepted before in this step), the ranks share the
    /// decisions, the first `want` free candidates in order are the
    /// batch's, and each rank inserts those in its slab with the ids a
    /// serial run gives them. Asks for a migration when any went in.
    fn insert_due(&mut self) {
        let st = &mut self.st;
        let due = st.flow.plan.schedule(st.step, st.step + 1);
        let me = self.comm.rank();
        let mut placed: Vec<[f64; 4]> = Vec::new();
        for at in due {
            let batch = st.flow.plan.batch(at);
            let want = at.target.saturating_sub(st.flow.inserted[at.entry]) as usize;
            let c = &batch.candidates.pos_rad;
            if want == 0 || c.is_empty() {
                continue;
            }
            let free = crate::cpu::flow::free_of(&st.particles.pos_rad, c);
            let free_placed = crate::cpu::flow::free_of(&placed, c);
            let accepted = accept_across(&self.comm, &self.slabs, c, want, |i| {
                free[i] && free_placed[i]
            });
            let first = st.next_id;
            for (k, &i) in accepted.iter().enumerate() {
                placed.push(c[i]);
                if self.slabs.owner([c[i][0], c[i][1], c[i][2]]) != me {
                    continue;
                }
                st.next_id = first + k as u32;
                let id = st
                    .insert_picked(&batch, &[i])
                    .expect("below the particle limit (checked by the serial set-up)")
                    .start;
                st.flow.events.push(batch.inserted(i, st.step, id));
            }
            st.next_id = first + accepted.len() as u32;
            st.flow.inserted[at.entry] += accepted.len() as u64;
            if !accepted.is_empty() {
                st.rebuild = true;
            }
        }
    }

    /// One step on every rank (the serial [`Step::step`]'s stages and
    /// order, with the exchanges between them). On error the step is not
    /// counted; every rank returns the same error.
    pub fn step(&mut self) -> Result<(), RunError> {
        // pouring checks its candidates against the ghosts too
        let st = &self.st;
        if !st.flow.plan.schedule(st.step, st.step + 1).is_empty() {
            self.refresh();
        }
        self.insert_due();
        // the same on every rank (the last step's gather decided it)
        if self.st.rebuild {
            self.migrate();
        }
        let t0 = std::time::Instant::now();
        let waited = self.waited;
        let rep = self.contacts();
        let st = &mut self.st;
        let done = st.timed(Stage::Integrate, Step::integrate_stage);
        // the ghosts wait for their owners' rows until the next contacts
        self.stale = true;
        self.busy += t0.elapsed().as_secs_f64() - (self.waited - waited);
        // the outlets' catch among the owned particles (positions are
        // final: nothing moves them before the serial run's drain)
        let taken = st.outlet_takes();
        let none = u64::MAX;
        let mut status = vec![
            rep.overlap.map_or(none, u64::from),
            rep.max_overlap_ratio.to_bits(),
            done.nonfinite.map_or(none, u64::from),
            done.rebuild as u64,
        ];
        for l in &st.work.load_sums {
            status.extend(l.to_words());
        }
        let loads_end = status.len();
        if st.work.defer_nodal {
            for s in &st.work.nodal_step {
                for c in s {
                    status.extend(c.to_words());
                }
            }
        }
        // last (the only part whose length differs among ranks)
        let taken_at = status.len();
        status.extend(taken.iter().map(|&(i, _)| st.particles.id[i] as u64));
        let all = self.comm.all_gather(&status);
        let overlap = all.iter().map(|s| s[0]).min().expect("a rank");
        let ratio = all.iter().map(|s| f64::from_bits(s[1])).fold(0.0, f64::max);
        let nonfinite = all.iter().map(|s| s[2]).min().expect("a rank");
        for (k, b) in st.walls.bodies.iter_mut().enumerate() {
            let mut l = LoadSum::default();
            for s in &all {
                l.merge(&LoadSum::from_words(&s[4 + 18 * k..4 + 18 * (k + 1)]));
            }
            b.load = l.value();
        }
        if st.work.defer_nodal {
            // every rank's forces on the surface nodes, added exactly
            let mut step = vec![[Exact::default(); 3]; st.work.nodal_step.len()];
            for s in &all {
                for (k, n) in step.iter_mut().enumerate() {
                    for (a, c) in n.iter_mut().enumerate() {
                        let at = loads_end + 9 * k + 3 * a;
                        c.merge(&Exact::from_words([s[at], s[at + 1], s[at + 2]]));
                    }
                }
            }
            contacts::add_node_sums(&mut st.walls.surfaces.force, &step);
        }
        st.max_overlap_ratio = st.max_overlap_ratio.max(ratio);
        let err = |kind, particle: u64| RunError {
            step: st.step,
            particle: particle as u32,
            kind,
        };
        if overlap != none {
            return Err(err(RunErrorKind::Overlap { ratio }, overlap));
        }
        if nonfinite != none {
            return Err(err(RunErrorKind::NonFinite, nonfinite));
        }
        st.step += 1;
        let t = st.step as f64 * st.law.dt;
        let walls_moved = st.walls.advance(t, st.law.dt, 0.5 * st.skin);
        let surfaces_moved = st.walls.pose_surfaces(st.step, st.law.dt, 0.5 * st.skin);
        let moved = all.iter().any(|s| s[3] != 0);
        st.rebuild = moved || walls_moved || surfaces_moved;
        // an outlet takes a particle from its owner and its copies alike
        // (the owner's verdict: the copies' state is a step behind)
        let gone: std::collections::HashSet<u32> = all
            .iter()
            .flat_map(|s| &s[taken_at..])
            .map(|&id| id as u32)
            .collect();
        if !gone.is_empty() {
            let n = st.particles.len();
            st.take_out(&taken, &gone);
            if st.particles.len() != n {
                self.relist();
                self.classify();
            }
        }
        // the bodies, as a serial run after its step (the same forces on
        // every rank: the same bodies)
        crate::cpu::step::exchange(&mut self.st, self.bodies.as_mut())
    }

    /// The run's energies (every rank's exact sums added).
    pub fn diagnostics(&self) -> Diagnostics {
        let (sums, max_speed) = diagnostics::sums(&self.st);
        let mut w: Vec<u64> = sums.iter().flat_map(|s| s.to_words()).collect();
        w.push(max_speed.to_bits());
        let all = self.comm.all_gather(&w);
        let mut total = [Exact::default(); 5];
        let mut d = Diagnostics::default();
        for a in &all {
            for (k, t) in total.iter_mut().enumerate() {
                t.merge(&Exact::from_words([a[3 * k], a[3 * k + 1], a[3 * k + 2]]));
            }
            d.max_speed = d.max_speed.max(f64::from_bits(a[15]));
        }
        [
            d.kinetic_translational,
            d.kinetic_rotational,
            d.potential,
            d.elastic,
            d.dissipated,
        ] = total.map(|s| s.value());
        d
    }

    /// Every rank's owned records (with history when `rows`), by rank.
    fn gather(&self, rows: bool) -> Vec<Vec<u64>> {
        let mut w = Vec::new();
        for i in self.owned() {
            records::push(&mut w, &self.st, i, None, rows);
        }
        self.comm.all_gather(&w)
    }

    /// Every rank's clumps' bodies (`records::push_clump`), by rank; none
    /// (no collective) in a run without shapes.
    fn gather_clumps(&self) -> Option<Vec<Vec<u64>>> {
        self.clumps.then(|| {
            let c = &self.st.clumps;
            let mut w = Vec::with_capacity(c.len() * records::CLUMP);
            for k in 0..c.len() {
                records::push_clump(&mut w, c, k);
            }
            self.comm.all_gather(&w)
        })
    }

    /// The run's clumps, in id order.
    pub fn clump_rows(&self) -> Vec<crate::shapes::clumps::ClumpRow> {
        match self.gather_clumps() {
            Some(all) => records::clumps_of(&all).rows_out(&self.st.shapes),
            None => Vec::new(),
        }
    }

    /// The run's particles, in id order.
    pub fn snapshot(&self) -> Particles<f64> {
        records::particles(&self.gather(false))
    }

    /// The run as one serial checkpoint (resumes on any number of ranks,
    /// or serially): the particles in id order with their history, the
    /// list to be rebuilt at the next step.
    pub fn save(&self) -> Saved {
        let all = self.gather(true);
        let bodies = self.gather_clumps();
        let mut full = self.st.clone();
        records::assemble(&mut full, &all, bodies.as_deref());
        full.work.ghost.clear();
        let mut s = full.save();
        if let Some(b) = &self.bodies {
            s.put("bodies", &b.save());
            s.put("surfaces", &self.st.walls.surfaces.save_words());
        }
        s
    }

    /// The run's particles: spheres and clumps (a clump once, however
    /// many rows its members take).
    pub fn particle_count(&self) -> u64 {
        let all = self.comm.all_gather(&[self.owned_particles()]);
        all.iter().map(|w| w[0]).sum()
    }

    /// The particles this rank owns: its spheres and its clumps.
    fn owned_particles(&self) -> u64 {
        let w = &self.st.work;
        let member = |i: usize| {
            w.body
                .get(i)
                .is_some_and(|&b| b != crate::shapes::clumps::NONE)
        };
        let spheres = self.owned().filter(|&i| !member(i)).count();
        (spheres + self.st.clumps.len()) as u64
    }

    /// Entries and contacts of the owned particles' rows, all ranks.
    pub fn list_stats(&self) -> ListStats {
        let w = &self.st.work;
        let (mut entries, mut contacts) = (0, 0);
        if w.nbr_start.len() == self.st.particles.len() + 1 {
            for i in self.owned() {
                let r = w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize;
                let (e, c) = crate::backend::list_counts(&w.nbr[r.clone()], &w.nbr_hist.t[r], 1);
                entries += e;
                contacts += c;
            }
        }
        let all = self.comm.all_gather(&[entries, contacts, self.st.builds]);
        ListStats {
            builds: all[0][2],
            entries: all.iter().map(|a| a[0]).sum(),
            contacts: all.iter().map(|a| a[1]).sum(),
        }
    }

    /// The flow events of every rank's owned particles since the last call.
    pub fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent> {
        let mut w = Vec::new();
        for e in std::mem::take(&mut self.st.flow.events) {
            records::push_event(&mut w, &e);
        }
        self.comm
            .all_gather(&w)
            .iter()
            .flat_map(|a| records::events(a))
            .collect()
    }

    pub fn info(&self) -> RanksInfo {
        let ghosts = self.st.work.ghost.iter().filter(|&&g| g).count() as u64;
        let owned = self.owned_particles();
        let threads = rayon::current_num_threads() as u64;
        let all = self
            .comm
            .all_gather(&[owned, ghosts, threads, self.waited.to_bits()]);
        let owned: Vec<u64> = all.iter().map(|a| a[0]).collect();
        RanksInfo {
            ranks: self.comm.size(),
            transport: self.comm.kind(),
            devices: all
                .iter()
                .map(|a| format!("CPU reference path (f64, {} threads)", a[2]))
                .collect(),
            axis: ["x", "y", "z"][self.slabs.axis].into(),
            cuts: self.slabs.cuts.clone(),
            imbalance: self.imbalance,
            owned,
            ghosts: all.iter().map(|a| a[1]).collect(),
            migrations: self.migrations,
            rebalances: self.rebalances,
            exchange_wait_s: all.iter().map(|a| f64::from_bits(a[3])).collect(),
        }
    }
}

/// Rank 0's backend of a CPU run on several ranks.
pub type DistCpu<C> = super::part::Dist<Rank<C>>;

/// Which candidates of a pouring batch are inserted, the same on every
/// rank and the serial run's: each rank judges the candidates in its slab
/// (`free`: clear of all it holds, ghosts and this step's earlier
/// insertions included, which is all a candidate there could touch), the
/// ranks gather the verdicts, and the first `want` free are taken, as
/// `cpu::flow::accept` takes them on one rank. Used by the CPU and the GPU
/// ranks.
pub(crate) fn accept_across<C: Comm + ?Sized>(
    comm: &C,
    slabs: &Slabs,
    c: &[[f64; 4]],
    want: usize,
    free: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let me = comm.rank();
    let mut bits = vec![0u64; c.len().div_ceil(64)];
    for i in 0..c.len() {
        if slabs.owner([c[i][0], c[i][1], c[i][2]]) == me && free(i) {
            bits[i / 64] |= 1 << (i % 64);
        }
    }
    let all = comm.all_gather(&bits);
    let is_free = |i: usize| all.iter().any(|b| b[i / 64] >> (i % 64) & 1 != 0);
    (0..c.len()).filter(|&i| is_free(i)).take(want).collect()
}

impl<C: Comm> super::part::Part for Rank<C> {
    type C = C;

    fn comm(&self) -> &C {
        &self.comm
    }

    fn name(&self) -> &'static str {
        "cpu"
    }

    fn adapter(&self) -> String {
        format!(
            "CPU reference path (f64, {} threads) on {} ranks ({})",
            rayon::current_num_threads(),
            self.comm.size(),
            self.comm.kind()
        )
    }

    fn advance(&mut self, steps: u64) -> Result<(), RunError> {
        for _ in 0..steps {
            self.step()?;
        }
        Ok(())
    }

    fn diagnostics(&mut self) -> Diagnostics {
        Rank::diagnostics(self)
    }

    fn snapshot(&mut self) -> Particles<f64> {
        Rank::snapshot(self)
    }

    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        Rank::clump_rows(self)
    }

    fn save(&mut self) -> Option<Saved> {
        if self.comm.rank() == 0 {
            Some(Rank::save(self))
        } else {
            self.gather(true);
            self.gather_clumps();
            None
        }
    }

    fn particle_count(&mut self) -> u64 {
        Rank::particle_count(self)
    }

    fn list_stats(&mut self) -> ListStats {
        Rank::list_stats(self)
    }

    fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent> {
        Rank::flow_events(self)
    }

    fn info(&mut self) -> RanksInfo {
        Rank::info(self)
    }

    fn walls(&mut self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)> {
        // replicated on every rank, loads already added up
        let w = &self.st.walls;
        let n = w.bodies.len() - w.surfaces.walls.len();
        w.bodies[..n].iter().map(|b| (b.pose, b.load)).collect()
    }

    fn bodies(&self) -> Option<&crate::fem::coupling::BodySet> {
        self.bodies.as_ref()
    }

    fn max_overlap_ratio(&self) -> f64 {
        self.st.max_overlap_ratio
    }

    fn steps_done(&self) -> u64 {
        self.st.step
    }
}
