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
    Mpi(Box<crate::mpi_comm::Mpi>),
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
            match crate::mpi_comm::Mpi::init() {
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

/// This process's rank among those of its node, as the launcher says
/// (Open MPI, MPICH/Intel MPI, Slurm), else its rank: which of the node's
/// GPUs it takes.
#[cfg(feature = "mpi")]
fn local_rank(rank: usize) -> usize {
    [
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "MPI_LOCALRANKID",
        "SLURM_LOCALID",
    ]
    .iter()
    .find_map(|k| std::env::var(k).ok()?.parse().ok())
    .unwrap_or(rank)
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use crate::args::{fail, BackendChoice};
    use crate::mpi_comm::Mpi;
    use crate::run_cmd::{prepare, run_on, stop_flag, Prepared, RunArgs};
    use std::process::ExitCode;
    use talus::dist::{agree, serve, unsupported, Comm, Dist, GpuRank, Rank};
    use talus::gpu::GpuContext;
    use talus::run::AnyBackend;

    /// What a run on several ranks cannot do (yet), for every rank.
    fn check(a: &RunArgs, p: &Prepared) -> Result<(), String> {
        if a.view.is_some() || a.render.as_ref().is_some_and(|r| r.every.is_some()) {
            return Err("--view and --render-every do not run on several ranks: render the outputs afterwards (talus render)".into());
        }
        if a.choice == BackendChoice::Gpu {
            if let Some(e) = talus::dist::gpu_rank::unsupported(&p.setup) {
                return Err(e);
            }
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
            crate::mpi_comm::abort_all(3);
        }));
    }

    /// Whether the ranks run the GPU path, each on the device it opened
    /// (the node-local rank picks among the node's adapters of the best
    /// kind, round robin, within those `--adapter` names), and why when
    /// chosen for the user. `--backend auto` takes the GPUs when every
    /// rank found a hardware one and the scene runs on them.
    fn devices(
        a: &RunArgs,
        p: &Prepared,
        mpi: &Mpi,
    ) -> Result<(Option<Result<GpuContext, String>>, String), String> {
        let size = mpi.size();
        // a checkpoint resumes on the path that wrote it unless told (rank
        // 0 read it)
        let mut by = vec![match &p.ckpt {
            Some(c) if c.1.backend == "gpu" => 2,
            Some(_) => 1,
            None => 0,
        }];
        mpi.broadcast(&mut by);
        let choice = match (a.choice, by[0]) {
            (BackendChoice::Auto, 1) => BackendChoice::Cpu,
            (BackendChoice::Auto, 2) => BackendChoice::Gpu,
            (c, _) => c,
        };
        let ctx = (choice != BackendChoice::Cpu).then(|| {
            let k = super::local_rank(mpi.rank());
            GpuContext::pick(a.adapter, k).map_err(|e| e.to_string())
        });
        let hardware = matches!(&ctx, Some(Ok(c)) if c.info.device_type != wgpu::DeviceType::Cpu);
        let all = mpi.all_gather(&[hardware as u64]);
        let everywhere = all.iter().all(|w| w[0] == 1);
        match choice {
            BackendChoice::Cpu => Ok((None, String::new())),
            BackendChoice::Gpu => {
                let rank = mpi.rank();
                let ctx = ctx.map(|c| c.map_err(|e| format!("--backend gpu on rank {rank}: {e}")));
                Ok((ctx, String::new()))
            }
            BackendChoice::Auto => {
                let gpu_refused = talus::dist::gpu_rank::unsupported(&p.setup);
                match (everywhere, gpu_refused) {
                    (true, None) => Ok((ctx, " (auto: a GPU on every rank)".into())),
                    (true, Some(e)) => Ok((None, format!(" (auto: {e})"))),
                    (false, _) => Ok((
                        None,
                        format!(" (auto: on {size} ranks, the CPU path unless every rank finds a hardware GPU)"),
                    )),
                }
            }
        }
    }

    pub fn run(a: RunArgs, mpi: Mpi) -> ExitCode {
        let rank = mpi.rank();
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
        let (ctx, why) = match devices(&a, &prep, &mpi) {
            Ok(d) => d,
            Err(e) => return quit(lead, e),
        };
        let backend = match ctx {
            Some(ctx) => match GpuRank::new(mpi, &prep.setup, saved, ctx) {
                Ok(r) if !lead => {
                    serve_quietly(r);
                    return ExitCode::SUCCESS;
                }
                Ok(r) => AnyBackend::Ranks(Box::new(Dist::new(r))),
                Err(e) => return quit(lead, e),
            },
            None => match Rank::new(mpi, &prep.setup, saved) {
                Ok(r) if !lead => {
                    serve_quietly(r);
                    return ExitCode::SUCCESS;
                }
                Ok(r) => AnyBackend::Ranks(Box::new(Dist::new(r))),
                Err(e) => return quit(lead, e),
            },
        };
        run_on(a, prep, backend, None, &why)
    }

    /// A rank but 0: does rank 0's commands until the run is over.
    fn serve_quietly<P: talus::dist::Part>(part: P) {
        // a signal stops the run through rank 0, which checkpoints with
        // every rank's help: here it must not end the process
        let _ = stop_flag(true);
        serve(part);
    }
}
