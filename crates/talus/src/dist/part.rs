//! What every rank of a run does, whatever its path ([`Part`]: the CPU's
//! [`Rank`](super::rank::Rank), the GPU's
//! [`GpuRank`](super::gpu_rank::GpuRank)), rank 0's [`Backend`] over all
//! of them ([`Dist`]) and the other ranks' loop ([`serve`]).
//!
//! Rank 0 runs the serial driver (outputs, checkpoints, signals) on a
//! [`Dist`]; each of its backend calls is a command it broadcasts, and
//! every rank then does its part of it, collectives in the same order.

use super::comm::Comm;
use crate::backend::{Backend, Diagnostics, ListStats, RanksInfo, RunError};
use crate::checkpoint::Saved;
use crate::setup::Setup;
use crate::state::Particles;

/// One rank's share of a run. Every method but the last four is a
/// collective: every rank calls it, in the same order.
pub trait Part {
    type C: Comm;
    fn comm(&self) -> &Self::C;
    /// The backend's name ("cpu", "gpu").
    fn name(&self) -> &'static str;
    fn adapter(&self) -> String;
    /// `steps` steps (on error every rank stops at the same step with the
    /// same error).
    fn advance(&mut self, steps: u64) -> Result<(), RunError>;
    /// The run's energies (every rank's exact sums added).
    fn diagnostics(&mut self) -> Diagnostics;
    /// The run's particles in id order (on rank 0; the others' result is
    /// theirs to drop).
    fn snapshot(&mut self) -> Particles<f64>;
    /// The run's clumps in id order (on rank 0; see [`Part::snapshot`]).
    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow>;
    /// The run as one serial checkpoint, on rank 0 (None on the others).
    fn save(&mut self) -> Option<Saved>;
    fn particle_count(&mut self) -> u64;
    fn list_stats(&mut self) -> ListStats;
    fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent>;
    fn info(&mut self) -> RanksInfo;
    /// Not collectives: what every rank holds alike.
    fn walls(&mut self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)>;
    fn bodies(&self) -> Option<&crate::fem::coupling::BodySet>;
    fn max_overlap_ratio(&self) -> f64;
    fn steps_done(&self) -> u64;
}

/// Rank 0's commands to the others (word 0 of a broadcast; word 1 its
/// argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
enum Cmd {
    Advance = 1,
    Diagnostics,
    Snapshot,
    Save,
    Count,
    ListStats,
    FlowEvents,
    Info,
    Finish,
    Clumps,
}

impl Cmd {
    fn from_word(w: u64) -> Option<Cmd> {
        use Cmd::*;
        [
            Advance,
            Diagnostics,
            Snapshot,
            Save,
            Count,
            ListStats,
            FlowEvents,
            Info,
            Finish,
            Clumps,
        ]
        .into_iter()
        .find(|c| *c as u64 == w)
    }
}

/// Does rank 0's commands until it says the run is over (every rank but
/// 0 runs this; rank 0 holds the [`Dist`]).
pub fn serve<P: Part>(mut part: P) {
    loop {
        let mut w = Vec::new();
        part.comm().broadcast(&mut w);
        match Cmd::from_word(w[0]).expect("a command from rank 0") {
            Cmd::Advance => drop(part.advance(w[1])),
            Cmd::Diagnostics => drop(part.diagnostics()),
            Cmd::Snapshot => drop(part.snapshot()),
            Cmd::Save => drop(part.save()),
            Cmd::Count => drop(part.particle_count()),
            Cmd::ListStats => drop(part.list_stats()),
            Cmd::FlowEvents => drop(part.flow_events()),
            Cmd::Info => drop(part.info()),
            Cmd::Clumps => drop(part.clumps()),
            Cmd::Finish => return,
        }
    }
}

/// Rank 0's backend over every rank: the run driver's calls become
/// commands to all. Dropping it ends the others' [`serve`].
pub struct Dist<P: Part> {
    pub part: P,
}

impl<P: Part> Dist<P> {
    /// Rank 0's part (the others must be serving).
    pub fn new(part: P) -> Self {
        assert_eq!(part.comm().rank(), 0, "rank 0 drives the run");
        Dist { part }
    }

    fn cmd(&self, c: Cmd, arg: u64) {
        let mut w = vec![c as u64, arg];
        self.part.comm().broadcast(&mut w);
    }
}

impl<P: Part> Drop for Dist<P> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.cmd(Cmd::Finish, 0);
        }
    }
}

impl<P: Part> Backend for Dist<P> {
    fn name(&self) -> &'static str {
        self.part.name()
    }

    fn adapter(&self) -> String {
        self.part.adapter()
    }

    fn advance(&mut self, steps: u64) -> Result<(), RunError> {
        self.cmd(Cmd::Advance, steps);
        self.part.advance(steps)
    }

    fn diagnostics(&mut self) -> Diagnostics {
        self.cmd(Cmd::Diagnostics, 0);
        self.part.diagnostics()
    }

    fn snapshot(&mut self) -> Particles<f64> {
        self.cmd(Cmd::Snapshot, 0);
        self.part.snapshot()
    }

    fn max_overlap_ratio(&self) -> f64 {
        self.part.max_overlap_ratio()
    }

    fn steps_done(&self) -> u64 {
        self.part.steps_done()
    }

    fn list_stats(&mut self) -> ListStats {
        self.cmd(Cmd::ListStats, 0);
        self.part.list_stats()
    }

    fn walls(&mut self) -> Vec<(crate::walls::Pose, crate::walls::WallLoad)> {
        self.part.walls()
    }

    fn flow_events(&mut self) -> Vec<crate::flow::FlowEvent> {
        self.cmd(Cmd::FlowEvents, 0);
        self.part.flow_events()
    }

    fn particle_count(&mut self) -> u64 {
        self.cmd(Cmd::Count, 0);
        self.part.particle_count()
    }

    fn save(&mut self) -> Saved {
        self.cmd(Cmd::Save, 0);
        self.part.save().expect("rank 0 holds the checkpoint")
    }

    fn rewall(&mut self, _setup: &Setup, _edit: &crate::walls::WallEdit) -> Result<(), String> {
        Err("walls cannot be added or removed during a run on several ranks yet".into())
    }

    fn bodies(&self) -> Option<&crate::fem::coupling::BodySet> {
        self.part.bodies()
    }

    fn ranks(&mut self) -> Option<RanksInfo> {
        self.cmd(Cmd::Info, 0);
        Some(self.part.info())
    }

    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        self.cmd(Cmd::Clumps, 0);
        self.part.clumps()
    }
}
