//! The ranks of `mpirun` as a [`talus::dist::Comm`] (feature `mpi`): the
//! engine's few collectives over MPI's world communicator (rsmpi). It lives
//! here, not in the engine, so that only the command line is rebuilt (and
//! linked against MPI) when the feature is on.

use talus::dist::Comm;

/// `TALUS_MPI_OVERLAP=1`: each rank runs its interior's contacts while
/// the ghosts' rows travel (posted as non-blocking sends and receives),
/// instead of after they came. Off by default: on one 2-core node (shared
/// memory) it measured slower (`docs/ranks.md`); worth trying where the
/// exchange costs more than it does there, with a network that moves the
/// data without the CPU.
pub const OVERLAP: &str = "TALUS_MPI_OVERLAP";

/// The ranks of `mpirun` (feature `mpi`): MPI's world communicator.
pub struct Mpi {
    world: mpi::topology::SimpleCommunicator,
    /// [`OVERLAP`] set: the ghosts' rows travel while the interior's
    /// contacts run.
    overlap: bool,
    /// Ends MPI when dropped (after every other use of `world`).
    _universe: mpi::environment::Universe,
}

impl Mpi {
    /// MPI started, and its world (None when MPI was already started).
    /// Called when an MPI launcher (`mpirun`, `srun`) started the process.
    pub fn init() -> Option<Mpi> {
        let universe = mpi::initialize()?;
        Some(Mpi {
            world: universe.world(),
            overlap: std::env::var(OVERLAP).is_ok_and(|v| v == "1"),
            _universe: universe,
        })
    }
}

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

    fn all_to_all_during(
        &self,
        out: Vec<Vec<u64>>,
        expect: &[usize],
        work: &mut dyn FnMut(),
    ) -> Vec<Vec<u64>> {
        use mpi::traits::*;
        // point to point with the ranks that have words to exchange (a
        // slab's neighbours; the lengths are known on both sides): faster
        // here than MPI's all-to-all, blocking or not
        const TAG: i32 = 17;
        let mut got: Vec<Vec<u64>> = expect.iter().map(|&n| vec![0u64; n]).collect();
        mpi::request::scope(|scope| {
            let mut reqs = Vec::new();
            for (r, buf) in got.iter_mut().enumerate() {
                if !buf.is_empty() {
                    let from = self.world.process_at_rank(r as i32);
                    reqs.push(from.immediate_receive_into_with_tag(scope, &mut buf[..], TAG));
                }
            }
            for (r, m) in out.iter().enumerate() {
                if !m.is_empty() {
                    let to = self.world.process_at_rank(r as i32);
                    reqs.push(to.immediate_send_with_tag(scope, &m[..], TAG));
                }
            }
            if self.overlap {
                work();
            }
            for q in reqs {
                q.wait();
            }
        });
        if !self.overlap {
            work();
        }
        got
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
        let v = if v.is_empty() {
            "MPI".into()
        } else {
            format!("MPI: {v}")
        };
        if self.overlap {
            format!("{v}; {OVERLAP}=1")
        } else {
            v
        }
    }
}

/// Stops every rank of the MPI job with `code` (a rank that failed: the
/// others would wait for it in their next exchange).
pub fn abort_all(code: i32) -> ! {
    use mpi::traits::Communicator;
    mpi::topology::SimpleCommunicator::world().abort(code)
}

/// Exclusive prefix sums of `counts`.
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

fn split(all: &[u64], counts: &[i32], displs: &[i32]) -> Vec<Vec<u64>> {
    counts
        .iter()
        .zip(displs)
        .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
        .collect()
}
