//! `mpirun -np N talus run …`: one domain per rank (`talus::dist`). Rank 0
//! runs the serial driver (outputs, checkpoints, signals, what is said);
//! the others do their part of each step and of each output when it asks.
//! Without the `mpi` feature, a launch on several ranks is refused with
//! one line saying how to build it.

use std::process::ExitCode;

/// The processes this one runs among.
pub enum World {
    /// Alone (no launcher, or a launcher of one).
    One,
    /// Started by an MPI launcher on several ranks, built without MPI.
    #[cfg(not(feature = "mpi"))]
    Unbuilt { rank: usize, size: usize },
    /// One of several MPI ranks.
    #[cfg(feature = "mpi")]
    Mpi(Box<talus::dist::Mpi>),
}

/// (rank, size) as the launcher's environment says (Open MPI's, or the PMI
/// variables of MPICH, Intel MPI and Slurm), if it says.
fn launched() -> Option<(usize, usize)> {
    let var = |k: &str| std::env::var(k).ok()?.parse::<usize>().ok();
    let size = var("OMPI_COMM_WORLD_SIZE").or_else(|| var("PMI_SIZE"))?;
    let rank = var("OMPI_COMM_WORLD_RANK")
        .or_else(|| var("PMI_RANK"))
        .unwrap_or(0);
    Some((rank, size))
}

impl World {
    pub fn detect() -> World {
        let Some((_rank, size)) = launched().filter(|&(_, size)| size > 1) else {
            return World::One;
        };
        #[cfg(not(feature = "mpi"))]
        {
            World::Unbuilt { rank: _rank, size }
        }
        #[cfg(feature = "mpi")]
        {
            use talus::dist::Comm;
            let _ = size;
            match talus::dist::Mpi::init() {
                Some(m) if m.size() > 1 => World::Mpi(Box::new(m)),
                _ => World::One,
            }
        }
    }
}

/// `talus run`: alone, or on the ranks an MPI launcher started.
pub fn cmd_run(a: crate::run_cmd::RunArgs) -> ExitCode {
    match World::detect() {
        World::One => crate::run_cmd::cmd_run(a),
        #[cfg(not(feature = "mpi"))]
        World::Unbuilt { rank, size } => unbuilt(rank, size),
        #[cfg(feature = "mpi")]
        World::Mpi(mpi) => run(a, *mpi),
    }
}

/// Refuses a launch on several ranks of a build without MPI: rank 0 says
/// why and fails; the others exit quietly (mpirun ends the job at the
/// first rank that fails, which could be before rank 0 said why).
#[cfg(not(feature = "mpi"))]
pub fn unbuilt(rank: usize, size: usize) -> ExitCode {
    if rank != 0 {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "error: {size} ranks, but this talus was built without MPI (each rank would run the whole scene): build it with `cargo build --release --features mpi` (needs libopenmpi-dev and libclang-dev; see docs/ranks.md)"
    );
    ExitCode::FAILURE
}

#[cfg(feature = "mpi")]
pub use with_mpi::run;

#[cfg(feature = "mpi")]
mod with_mpi {
    use crate::args::{fail, BackendChoice};
    use crate::run_cmd::{prepare, run_on, stop_flag, Prepared, RunArgs};
    use std::process::ExitCode;
    use talus::dist::{agree, serve, unsupported, Comm, DistCpu, Mpi, Rank};
    use talus::run::AnyBackend;

    /// What a run on several ranks cannot do (yet), for every rank.
    fn check(a: &RunArgs, p: &Prepared) -> Result<(), String> {
        if a.choice == BackendChoice::Gpu {
            return Err("--backend gpu: the GPU path does not run on several ranks yet; run with --backend cpu (one domain per rank on the CPU path), or on one rank".into());
        }
        if a.view.is_some() || a.render.as_ref().is_some_and(|r| r.every.is_some()) {
            return Err("--view and --render-every do not run on several ranks: render the outputs afterwards (talus render)".into());
        }
        match unsupported(&p.setup) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A failure every rank agreed on: rank 0 says it and exits with the
    /// failure; the others exit quietly with success (mpirun ends the job
    /// at the first rank that fails, which could be before rank 0 said
    /// why; it reports rank 0's status).
    fn quit(lead: bool, e: String) -> ExitCode {
        if lead {
            fail(e)
        } else {
            ExitCode::SUCCESS
        }
    }

    /// A rank that panics stops the whole job at once, naming itself (the
    /// others would wait for it in their next exchange).
    fn stop_all_on_panic(rank: usize) {
        std::panic::set_hook(Box::new(move |info| {
            eprintln!("error: rank {rank} failed: {info}; stopping every rank");
            talus::dist::comm::abort_all(3);
        }));
    }

    pub fn run(a: RunArgs, mpi: Mpi) -> ExitCode {
        let (rank, size) = (mpi.rank(), mpi.size());
        let lead = rank == 0;
        stop_all_on_panic(rank);
        // rank 0 reads the checkpoint and hands each rank its particles
        let prep = prepare(&a, lead, lead).and_then(|p| check(&a, &p).map(|_| p));
        let prep = match agree(&mpi, prep) {
            Ok(p) => p,
            Err(e) => return quit(lead, e),
        };
        let saved = if lead {
            prep.ckpt.as_ref().map(|c| &c.2)
        } else {
            None
        };
        let r = match Rank::new(mpi, &prep.setup, saved) {
            Ok(r) => r,
            Err(e) => return quit(lead, e),
        };
        if !lead {
            // a signal stops the run through rank 0, which checkpoints
            // with every rank's help: here it must not end the process
            let _ = stop_flag(true);
            serve(r);
            return ExitCode::SUCCESS;
        }
        let why = if a.choice == BackendChoice::Auto {
            format!(" (auto: on {size} ranks the CPU path; the GPU path does not run on several ranks yet)")
        } else {
            String::new()
        };
        let backend = AnyBackend::Ranks(Box::new(DistCpu::new(r)));
        run_on(a, prep, backend, None, &why)
    }
}
