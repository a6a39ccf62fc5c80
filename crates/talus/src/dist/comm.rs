//! How the ranks of a distributed run talk: the few collective operations
//! the engine needs ([`Comm`]), over MPI (the command line's `mpi`
//! feature: `talus-cli/src/mpi_comm.rs`, so the engine builds without MPI) or
//! over threads of one process ([`Threads`], for tests and for machines
//! without MPI). Messages are words (`u64`): the records of `records.rs` and the
//! exact sums' integers travel as they are.

use std::sync::{Arc, Condvar, Mutex};

/// The collective operations of a distributed run. Every rank calls the
/// same operations in the same order (the ranks' drivers follow rank 0's
/// commands: `rank.rs`).
pub trait Comm {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// `out[r]` goes to rank r; returns what each rank sent to this one,
    /// by rank.
    fn all_to_all(&self, out: Vec<Vec<u64>>) -> Vec<Vec<u64>>;
    /// [`Comm::all_to_all`] with `work` run while the messages travel:
    /// `expect[r]` words come from rank r (the receiver knows how many:
    /// the ghosts' refresh), and `work` must not use the comm. What
    /// overlaps depends on the transport: MPI's non-blocking all-to-all
    /// (messages under the eager limit leave when posted; larger ones may
    /// wait for the completion, as MPI progresses them inside its calls).
    fn all_to_all_during(
        &self,
        out: Vec<Vec<u64>>,
        expect: &[usize],
        work: &mut dyn FnMut(),
    ) -> Vec<Vec<u64>>;
    /// Every rank's `data`, by rank.
    fn all_gather(&self, data: &[u64]) -> Vec<Vec<u64>>;
    /// Rank 0's `data`, on every rank (the others' is replaced).
    fn broadcast(&self, data: &mut Vec<u64>) {
        let mine = if self.rank() == 0 { &data[..] } else { &[] };
        *data = self.all_gather(mine).swap_remove(0);
    }
    /// What the ranks run on, for `summary.json` ("MPI, Open MPI 4.1.4",
    /// "threads").
    fn kind(&self) -> String;
}

/// The ranks of one process as threads ([`Threads::group`]): each a
/// [`Comm`] that exchanges through shared mailboxes between barriers. A
/// rank that panics poisons the group: the others panic at their next
/// exchange instead of waiting for ever.
pub struct Threads {
    rank: usize,
    shared: Arc<Shared>,
}

struct Shared {
    size: usize,
    /// `slots[from][to]`
    slots: Mutex<Vec<Vec<Option<Vec<u64>>>>>,
    gate: Mutex<Gate>,
    turn: Condvar,
}

#[derive(Default)]
struct Gate {
    waiting: usize,
    generation: u64,
    poisoned: bool,
}

impl Threads {
    /// `size` ranks, to be moved each into its own thread.
    pub fn group(size: usize) -> Vec<Threads> {
        let shared = Arc::new(Shared {
            size,
            slots: Mutex::new(vec![vec![None; size]; size]),
            gate: Mutex::new(Gate::default()),
            turn: Condvar::new(),
        });
        (0..size)
            .map(|rank| Threads {
                rank,
                shared: shared.clone(),
            })
            .collect()
    }

    /// Waits for every rank (panics when one has failed).
    fn barrier(&self) {
        let s = &self.shared;
        let mut g = s.gate.lock().unwrap_or_else(|e| e.into_inner());
        assert!(!g.poisoned, "rank {}: another rank failed", self.rank);
        g.waiting += 1;
        if g.waiting == s.size {
            g.waiting = 0;
            g.generation += 1;
            s.turn.notify_all();
            return;
        }
        let gen = g.generation;
        while g.generation == gen {
            g = s.turn.wait(g).unwrap_or_else(|e| e.into_inner());
            assert!(!g.poisoned, "rank {}: another rank failed", self.rank);
        }
    }
}

impl Drop for Threads {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let s = &self.shared;
            let mut g = s.gate.lock().unwrap_or_else(|e| e.into_inner());
            g.poisoned = true;
            s.turn.notify_all();
        }
    }
}

impl Comm for Threads {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn all_to_all(&self, out: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
        self.post(out);
        self.collect()
    }

    fn all_to_all_during(
        &self,
        out: Vec<Vec<u64>>,
        expect: &[usize],
        work: &mut dyn FnMut(),
    ) -> Vec<Vec<u64>> {
        self.post(out);
        work();
        let got = self.collect();
        let lens: Vec<usize> = got.iter().map(Vec::len).collect();
        assert_eq!(
            lens, expect,
            "rank {}: messages of unexpected lengths",
            self.rank
        );
        got
    }

    fn all_gather(&self, data: &[u64]) -> Vec<Vec<u64>> {
        self.all_to_all(vec![data.to_vec(); self.size()])
    }

    fn kind(&self) -> String {
        "threads of one process".into()
    }
}

impl Threads {
    /// This rank's messages into the mailboxes (no rank reads them before
    /// all have posted: [`Threads::collect`]).
    fn post(&self, out: Vec<Vec<u64>>) {
        assert_eq!(out.len(), self.size());
        let mut slots = self.shared.slots.lock().unwrap_or_else(|e| e.into_inner());
        for (to, m) in out.into_iter().enumerate() {
            slots[self.rank][to] = Some(m);
        }
    }

    /// The messages to this rank, once every rank posted its own.
    fn collect(&self) -> Vec<Vec<u64>> {
        self.barrier();
        let got = {
            let mut slots = self.shared.slots.lock().unwrap_or_else(|e| e.into_inner());
            (0..self.size())
                .map(|from| slots[from][self.rank].take().expect("every rank sent"))
                .collect()
        };
        // no rank writes its next messages before all have read these
        self.barrier();
        got
    }
}

/// Runs `f` on `size` ranks, each a thread with its [`Threads`] comm, and
/// returns their results by rank (a panic on any rank is resumed here).
pub fn on_threads<R: Send>(size: usize, f: impl Fn(Threads) -> R + Sync) -> Vec<R> {
    let comms = Threads::group(size);
    std::thread::scope(|s| {
        let handles: Vec<_> = comms
            .into_iter()
            .map(|c| {
                let f = &f;
                s.spawn(move || f(c))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}
