//! What the run driver needs from a backend (CPU reference or GPU), and
//! the result types both backends share: the stages of a step
//! ([`Stage`]), energies ([`Diagnostics`]), errors ([`RunError`]) and the
//! limits a run stops at. Both `cpu/` and `gpu/` import this file; it
//! imports neither.

use crate::state::Particles;
use std::fmt;

pub use crate::state::MAX_OVERLAP_RATIO;

/// The stages of a step, in order, with their names: the CPU's stage
/// timers, the GPU's timestamp passes and the benchmark's columns all use
/// this one list. Bin, sort and neighbours run only on the steps that
/// rebuild the neighbour list; diagnostics only when an energy row is due
/// (it is not part of [`Stage::STEP`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Bin,
    Sort,
    Neighbours,
    Contacts,
    Integrate,
    Diagnostics,
}

impl Stage {
    /// The stages every step runs, in order.
    pub const STEP: [Stage; 5] = [
        Stage::Bin,
        Stage::Sort,
        Stage::Neighbours,
        Stage::Contacts,
        Stage::Integrate,
    ];

    /// The stage's module name (`src/cpu/<name>.rs`, `src/gpu/<name>.rs`,
    /// `shaders/<name>.wgsl`), also its timer and pass label.
    pub const fn name(self) -> &'static str {
        match self {
            Stage::Bin => "bin",
            Stage::Sort => "sort",
            Stage::Neighbours => "neighbours",
            Stage::Contacts => "contacts",
            Stage::Integrate => "integrate",
            Stage::Diagnostics => "diagnostics",
        }
    }

    /// Position in [`Stage::STEP`] (diagnostics: past the end).
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Seconds per stage of [`Stage::STEP`], in its order.
pub type StageTimes = [f64; Stage::STEP.len()];

/// Totals at one instant (J unless noted).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Diagnostics {
    pub kinetic_translational: f64,
    pub kinetic_rotational: f64,
    /// -Σ m g·x (zero at the origin).
    pub potential: f64,
    pub elastic: f64,
    pub dissipated: f64,
    /// m/s
    pub max_speed: f64,
}

impl Diagnostics {
    /// Total mechanical energy plus what was dissipated: constant in an
    /// exact integration.
    pub fn total(&self) -> f64 {
        self.kinetic_translational
            + self.kinetic_rotational
            + self.potential
            + self.elastic
            + self.dissipated
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunErrorKind {
    NonFinite,
    Overlap {
        ratio: f64,
    },
    /// The GPU's neighbour list would need more entries than one storage
    /// binding of the adapter holds (`particle` is meaningless then).
    ListTooLarge {
        entries: u64,
    },
    /// Insertion would hold more particles than the list's indices (or
    /// the GPU's buffers) allow (`particle` is meaningless then).
    TooManyParticles {
        count: u64,
    },
    /// A FEM body failed (an inverted element, a non-finite state, an
    /// implicit step that did not converge): what it said is in
    /// [`body_message`] (`particle` is meaningless then).
    Body,
}

thread_local! {
    static BODY_MESSAGE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// A [`RunErrorKind::Body`] error at `step` saying `message`.
pub fn body_error(step: u64, message: String) -> RunError {
    BODY_MESSAGE.with_borrow_mut(|m| *m = message);
    RunError {
        step,
        particle: u32::MAX,
        kind: RunErrorKind::Body,
    }
}

/// What the last FEM body failure on this thread said.
pub fn body_message() -> String {
    BODY_MESSAGE.with_borrow(|m| m.clone())
}

/// A run that blew up: which step, which particle (by id), what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunError {
    pub step: u64,
    pub particle: u32,
    pub kind: RunErrorKind,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {}: ", self.step)?;
        if !matches!(
            self.kind,
            RunErrorKind::ListTooLarge { .. }
                | RunErrorKind::TooManyParticles { .. }
                | RunErrorKind::Body
        ) {
            write!(f, "particle {}: ", self.particle)?;
        }
        match self.kind {
            RunErrorKind::Body => write!(f, "{}", body_message()),
            RunErrorKind::ListTooLarge { entries } => write!(
                f,
                "the neighbour list needs {entries} entries, more than one storage binding of this GPU holds; lower [simulation] neighbour_skin or use --backend cpu"
            ),
            RunErrorKind::TooManyParticles { count } => write!(
                f,
                "insertion needs room for {count} particles, more than a run holds ({} at most); lower the [[insert]] rate or count",
                crate::state::MAX_PARTICLES
            ),
            RunErrorKind::NonFinite => write!(
                f,
                "position or velocity became non-finite (dt too large for the stiffness?)"
            ),
            RunErrorKind::Overlap { ratio } => write!(
                f,
                "overlap reached {ratio:.3} of the smaller radius (limit {}): dt too large, material too soft or particles too fast",
                MAX_OVERLAP_RATIO
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// How the ranks of a distributed run (`dist`) shared the work, for
/// `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RanksInfo {
    pub ranks: usize,
    /// What the ranks talk over.
    pub transport: String,
    /// Each rank's device ("CPU, 2 threads").
    pub devices: Vec<String>,
    /// The axis the slabs cut (x, y or z) and the cuts (grid cells).
    pub axis: String,
    pub cuts: Vec<u32>,
    /// Particles each rank owns now (a clump once), and the ghosts it
    /// holds (rows: copies of spheres and of clumps' members).
    pub owned: Vec<u64>,
    pub ghosts: Vec<u64>,
    /// The largest slab's cost over the mean (1: balanced) the last list
    /// rebuild left: cost measured as each rank's seconds in contacts and
    /// integration, shared among its cells by particles and list entries.
    pub imbalance: f64,
    /// Migrations (list rebuilds) and the rebalances among them.
    pub migrations: u64,
    pub rebalances: u64,
    /// Seconds each rank waited for the ghosts' refreshes beyond the work
    /// that ran while they travelled: the exchange's exposed cost.
    pub exchange_wait_s: Vec<f64>,
}

use crate::checkpoint::Saved;
use crate::flow::FlowEvent;
use crate::walls::{Pose, WallEdit, WallLoad};

pub trait Backend {
    /// "cpu" or "gpu".
    fn name(&self) -> &'static str;
    /// Human description of the device.
    fn adapter(&self) -> String;
    /// Runs `steps` steps.
    fn advance(&mut self, steps: u64) -> Result<(), RunError>;
    /// Energies at the last completed step.
    fn diagnostics(&mut self) -> Diagnostics;
    /// The state in id order, in f64.
    fn snapshot(&mut self) -> Particles<f64>;
    fn max_overlap_ratio(&self) -> f64;
    fn steps_done(&self) -> u64;
    /// Neighbour-list builds so far and the current list's length.
    fn list_stats(&mut self) -> ListStats;
    /// Each scene wall's pose now and the load the particles put on it at
    /// the last step's contact stage (walls.csv, walls_NNNNN.vtu).
    fn walls(&mut self) -> Vec<(Pose, WallLoad)>;
    /// The particles inserted and removed since the last call (each once).
    fn flow_events(&mut self) -> Vec<FlowEvent>;
    /// Particles present now.
    fn particle_count(&mut self) -> u64;
    /// Everything the next step depends on ([`crate::checkpoint`]).
    fn save(&mut self) -> Saved;
    /// Continues, between two advances, with `setup`'s walls in place of
    /// the current ones, `edit` saying which wall became which: the state
    /// saved, remapped ([`WallEdit::remap`]) and restored on `setup`, so
    /// all the edit leaves alone goes on bit for bit.
    fn rewall(&mut self, setup: &crate::setup::Setup, edit: &WallEdit) -> Result<(), String>;
    /// The FEM bodies, where the scene has any (their state at the start
    /// of the current exchange interval is what outputs report).
    fn bodies(&self) -> Option<&crate::fem::coupling::BodySet> {
        None
    }
    /// How the ranks share the run (None: one process runs it all).
    fn ranks(&mut self) -> Option<RanksInfo> {
        None
    }
    /// The bonds now (`bonds.csv`, `bonds_NNNNN.vtu`); empty without.
    fn bonds(&mut self) -> crate::bonds::table::Bonds {
        Default::default()
    }
    /// The clumps now (their bodies: centre, velocity, spin,
    /// orientation), in id order; empty for spheres only.
    fn clumps(&mut self) -> Vec<crate::shapes::clumps::ClumpRow> {
        Vec::new()
    }
    /// Each row's force and torque from its contacts and walls at the last
    /// step's contact stage (N, N m; gravity not counted; zero before the
    /// first step and for a row added since), in the order of
    /// [`snapshot`](Self::snapshot).
    fn particle_forces(&mut self) -> Result<Vec<[[f64; 3]; 2]>, String> {
        Err(format!(
            "the {} path gives no per-particle forces here",
            self.name()
        ))
    }
    /// Appends spheres `add` (ids replaced by fresh ones, returned) between
    /// two advances: they take part from the next step on (the list is
    /// rebuilt then).
    fn insert_particles(&mut self, add: &Particles<f64>) -> Result<Vec<u32>, String> {
        let _ = add;
        Err(format!(
            "the {} path takes no particles in here",
            self.name()
        ))
    }
    /// Removes the particles (clumps whole) whose id is in `ids` between
    /// two advances: how many rows went.
    fn remove_particles(&mut self, ids: &std::collections::HashSet<u32>) -> Result<usize, String> {
        let _ = ids;
        Err(format!(
            "the {} path takes no particles out here",
            self.name()
        ))
    }
}

/// `impl Backend` for a type that dereferences to one: every method
/// forwarded. A backend behind a pointer is a backend: the run driver
/// ([`crate::run::Simulation`]) holds a `Box<dyn Backend>` for a backend
/// chosen at run time, a `&mut` one for a caller that keeps its own, or
/// the concrete type where its caller needs it (the viewer draws from the
/// GPU backend's buffers).
#[macro_export]
#[doc(hidden)]
macro_rules! forward_backend {
    ([$($g:tt)*] $ptr:ty) => {
        impl<$($g)*> $crate::backend::Backend for $ptr {
            fn name(&self) -> &'static str {
                (**self).name()
            }
            fn adapter(&self) -> String {
                (**self).adapter()
            }
            fn advance(&mut self, steps: u64) -> Result<(), $crate::backend::RunError> {
                (**self).advance(steps)
            }
            fn diagnostics(&mut self) -> $crate::backend::Diagnostics {
                (**self).diagnostics()
            }
            fn snapshot(&mut self) -> $crate::state::Particles<f64> {
                (**self).snapshot()
            }
            fn max_overlap_ratio(&self) -> f64 {
                (**self).max_overlap_ratio()
            }
            fn steps_done(&self) -> u64 {
                (**self).steps_done()
            }
            fn list_stats(&mut self) -> $crate::backend::ListStats {
                (**self).list_stats()
            }
            fn walls(&mut self) -> Vec<($crate::walls::Pose, $crate::walls::WallLoad)> {
                (**self).walls()
            }
            fn flow_events(&mut self) -> Vec<$crate::flow::FlowEvent> {
                (**self).flow_events()
            }
            fn particle_count(&mut self) -> u64 {
                (**self).particle_count()
            }
            fn rewall(
                &mut self,
                setup: &$crate::setup::Setup,
                edit: &$crate::walls::WallEdit,
            ) -> Result<(), String> {
                (**self).rewall(setup, edit)
            }
            fn save(&mut self) -> $crate::checkpoint::Saved {
                (**self).save()
            }
            fn bodies(&self) -> Option<&$crate::fem::coupling::BodySet> {
                (**self).bodies()
            }
            fn ranks(&mut self) -> Option<$crate::backend::RanksInfo> {
                (**self).ranks()
            }
            fn bonds(&mut self) -> $crate::bonds::table::Bonds {
                (**self).bonds()
            }
            fn clumps(&mut self) -> Vec<$crate::shapes::clumps::ClumpRow> {
                (**self).clumps()
            }
            fn particle_forces(&mut self) -> Result<Vec<[[f64; 3]; 2]>, String> {
                (**self).particle_forces()
            }
            fn insert_particles(
                &mut self,
                add: &$crate::state::Particles<f64>,
            ) -> Result<Vec<u32>, String> {
                (**self).insert_particles(add)
            }
            fn remove_particles(
                &mut self,
                ids: &std::collections::HashSet<u32>,
            ) -> Result<usize, String> {
                (**self).remove_particles(ids)
            }
        }
    };
}

forward_backend!([T: Backend + ?Sized] Box<T>);
forward_backend!([T: Backend + ?Sized] &mut T);

/// How the neighbour list is doing (benchmarks print it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ListStats {
    /// Builds since the start (the first step builds).
    pub builds: u64,
    /// Candidates in the list now (each particle pair counted twice, as a
    /// list of both sides holds it).
    pub entries: u64,
    /// Contacts now: list entries with tangential history (each pair
    /// counted twice) plus particle–wall contacts.
    pub contacts: u64,
}

/// Entries and contacts (entries with non-zero history) of a list, each
/// particle pair counted twice however the list holds it: `pair_weight`
/// is 1 for a list of both sides (the CPU's), 2 for one of each pair once
/// (the GPU's). How both backends count for [`ListStats`].
pub fn list_counts<T: bytemuck::Pod + Default + PartialEq, const N: usize>(
    nbr: &[u32],
    hist: &[[T; N]],
    pair_weight: u64,
) -> (u64, u64) {
    let zero = [T::default(); N];
    let weight = |e: u32| {
        if e & crate::state::WALL != 0 {
            1
        } else {
            pair_weight
        }
    };
    let entries = nbr.iter().map(|&e| weight(e)).sum();
    let contacts = nbr
        .iter()
        .zip(hist)
        .filter(|(_, h)| **h != zero)
        .map(|(&e, _)| weight(e))
        .sum();
    (entries, contacts)
}
