//! How the ranks of a distributed run talk: the few collective operations
//! the engine needs ([`Comm`]), over MPI (`Mpi`, feature `mpi`) or over
//! threads of one process ([`Threads`], for tests and for machines without
//! MPI). Messages are words (`u64`): the records of `records.rs` and the
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
        assert_eq!(out.len(), self.size());
        {
            let mut slots = self.shared.slots.lock().unwrap_or_else(|e| e.into_inner());
            for (to, m) in out.into_iter().enumerate() {
                slots[self.rank][to] = Some(m);
            }
        }
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

    fn all_gather(&self, data: &[u64]) -> Vec<Vec<u64>> {
        self.all_to_all(vec![data.to_vec(); self.size()])
    }

    fn kind(&self) -> String {
        "threads of one process".into()
    }
}

/// The ranks of `mpirun` (feature `mpi`): MPI's world communicator.
#[cfg(feature = "mpi")]
pub struct Mpi {
    world: mpi::topology::SimpleCommunicator,
    /// Ends MPI when dropped (after every other use of `world`).
    _universe: mpi::environment::Universe,
}

#[cfg(feature = "mpi")]
impl Mpi {
    /// MPI started, and its world (None when MPI was already started).
    /// Called when an MPI launcher (`mpirun`, `srun`) started the process.
    pub fn init() -> Option<Mpi> {
        let universe = mpi::initialize()?;
        Some(Mpi {
            world: universe.world(),
            _universe: universe,
        })
    }
}

#[cfg(feature = "mpi")]
impl Comm for Mpi {
    fn rank(&self) -> usize {
        use mpi::traits::Communicator;
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        use mpi::traits::Communicator;
        self.world.size() as usize
    }

    fn all_to_all(&self, out: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
        use mpi::datatype::{Partition, PartitionMut};
        use mpi::traits::*;
        let counts: Vec<i32> = out.iter().map(|m| m.len() as i32).collect();
        let mut got_counts = vec![0i32; counts.len()];
        self.world.all_to_all_into(&counts[..], &mut got_counts[..]);
        let displs = offsets(&counts);
        let got_displs = offsets(&got_counts);
        let send: Vec<u64> = out.concat();
        let total: i32 = got_counts.iter().sum();
        let mut recv = vec![0u64; total as usize];
        {
            let p = Partition::new(&send[..], &counts[..], &displs[..]);
            let mut q = PartitionMut::new(&mut recv[..], &got_counts[..], &got_displs[..]);
            self.world.all_to_all_varcount_into(&p, &mut q);
        }
        split(&recv, &got_counts, &got_displs)
    }

    fn all_gather(&self, data: &[u64]) -> Vec<Vec<u64>> {
        use mpi::datatype::PartitionMut;
        use mpi::traits::*;
        let mut counts = vec![0i32; self.size()];
        self.world
            .all_gather_into(&(data.len() as i32), &mut counts[..]);
        let displs = offsets(&counts);
        let total: i32 = counts.iter().sum();
        let mut recv = vec![0u64; total as usize];
        {
            let mut q = PartitionMut::new(&mut recv[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(data, &mut q);
        }
        split(&recv, &counts, &displs)
    }

    fn broadcast(&self, data: &mut Vec<u64>) {
        use mpi::traits::*;
        let root = self.world.process_at_rank(0);
        let mut n = data.len() as u64;
        root.broadcast_into(&mut n);
        data.resize(n as usize, 0);
        root.broadcast_into(&mut data[..]);
    }

    fn kind(&self) -> String {
        // "Open MPI v4.1.4, package: …": the name and version
        let v = mpi::environment::library_version().unwrap_or_default();
        let v = v.split([',', '\n', '\0']).next().unwrap_or("").trim();
        if v.is_empty() {
            "MPI".into()
        } else {
            format!("MPI: {v}")
        }
    }
}

/// Stops every rank of the MPI job with `code` (a rank that failed: the
/// others would wait for it in their next exchange).
#[cfg(feature = "mpi")]
pub fn abort_all(code: i32) -> ! {
    use mpi::traits::Communicator;
    mpi::topology::SimpleCommunicator::world().abort(code)
}

/// Exclusive prefix sums of `counts`.
#[cfg(feature = "mpi")]
fn offsets(counts: &[i32]) -> Vec<i32> {
    counts
        .iter()
        .scan(0, |a, &c| {
            let o = *a;
            *a += c;
            Some(o)
        })
        .collect()
}

#[cfg(feature = "mpi")]
fn split(all: &[u64], counts: &[i32], displs: &[i32]) -> Vec<Vec<u64>> {
    counts
        .iter()
        .zip(displs)
        .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
        .collect()
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
