//! The CPU path's data: the step's parameters and arrays ([`Step`]) and
//! its work arrays ([`Work`]). The stages take a `&mut Step` (or the
//! arrays they need); the driver that runs them in order is `step.rs`.

use super::law::LawParams;
use crate::backend::StageTimes;
use crate::flow::{FlowEvent, InsertPlan, OutletSet};
use crate::grid::Grid;
use crate::pair::PairTable;
use crate::setup::Setup;
use crate::state::{Motion, Particles};
use crate::walls::WallSet;

/// Work arrays, allocated once.
#[derive(Debug, Clone, Default)]
pub struct Work {
    pub keys: Vec<u32>,
    pub counts: Vec<u32>,
    pub starts: Vec<u32>,
    pub order: Vec<u32>,
    /// xyz force; w = elastic energy share of the particle's contacts
    /// (this step's until the next contact stage: diagnostics read it).
    pub force: Vec<[f64; 4]>,
    /// xyz torque; w = energy dissipated this step (share).
    pub torque: Vec<[f64; 4]>,
    /// What contacts read of a partner ([`Motion`]), written by integrate:
    /// integration state too (v(n−½)), so it moves with its particle in
    /// the sort.
    pub motion: Vec<Motion<f64>>,
    /// Neighbour list (CSR): the entries of particle i are
    /// `nbr[nbr_start[i]..nbr_start[i + 1]]`: its particle candidates,
    /// then the wall primitives within reach (`state::WALL`), each an
    /// index with the `state::HAS_HISTORY` flag; `nbr_count` is the first
    /// pass.
    pub nbr_count: Vec<u32>,
    pub nbr_start: Vec<u32>,
    pub nbr: Vec<u32>,
    /// History of each entry's contact ([`crate::state::Hist`]: ξ xyz,
    /// k_t, the rolling torque; zero: no contact), in the pair's canonical
    /// orientation (a wall's: from the particle); the rolling half only in
    /// runs that keep one (`super::hist`).
    pub nbr_hist: super::hist::HistVec,
    /// The previous list during a build (swapped out of the above): the
    /// source of the history it moves over; `new_at[o]` is where the
    /// particle that stood at `o` in the previous order stands now.
    pub old_start: Vec<u32>,
    pub old_nbr: Vec<u32>,
    pub old_hist: super::hist::HistVec,
    pub new_at: Vec<u32>,
    /// Each chunk's candidates during a build (see `neighbours::build`).
    pub build_chunks: Vec<Vec<u32>>,
    /// Positions at the last build of the list (the rebuild test).
    pub pos_ref: Vec<[f64; 3]>,
    /// Target of the rebuild's permutation (swapped with the state).
    pub scratch: Option<Particles<f64>>,
    pub scratch_motion: Vec<Motion<f64>>,
    /// A distributed run's ghosts (`dist`): copies of particles another
    /// rank owns, refreshed from it every step. Their own sums are not
    /// counted (wall loads, nodal forces, energies, outlet events). Empty
    /// in a serial run with particles; otherwise one flag per particle,
    /// moved with it (particles inserted into an empty step get theirs).
    pub ghost: Vec<bool>,
    /// The last contact stage's load on each scene wall, as exact partial
    /// sums (the ranks of a distributed run add theirs).
    pub load_sums: Vec<crate::walls::LoadSum>,
    /// A distributed run's: the contact stage leaves this step's exact
    /// forces on the deforming surfaces' nodes in `nodal_step` instead of
    /// adding them to the interval's (the ranks add theirs first:
    /// [`crate::cpu::contacts::add_node_sums`]).
    pub defer_nodal: bool,
    pub nodal_step: Vec<[crate::sums::Exact; 3]>,
    /// Each row's clump (`shapes::clumps::NONE`: a sphere) and its member
    /// index in the clump's shape; both empty when the run has no clumps.
    pub body: Vec<u32>,
    pub member: Vec<u32>,
    /// Each row's lever S = [b]ₓᵀ I⁻¹ [b]ₓ (xx, yy, zz, xy, xz, yz; b its
    /// member's arm from the clump's centre, I⁻¹ the clump's world inverse
    /// inertia; zero for a sphere): 1/M + nᵀ S n is the body's inverse
    /// mass at a contact of normal n (`shapes::clumps::lever_along`).
    /// Empty when the run has no clumps; refreshed whenever a clump moves.
    pub lever: Vec<[f64; 6]>,
    /// Per clump, during integrate: the step's turn / dt and the world
    /// inverse inertia, for its members (kept: no allocation a step).
    pub clump_step: Vec<(glam::DVec3, glam::DMat3)>,
}

impl Work {
    /// Whether particle `i` is a ghost (`ghost`; none in a serial run).
    #[inline]
    pub fn is_ghost(&self, i: usize) -> bool {
        self.ghost.get(i) == Some(&true)
    }
}

/// Everything one step needs: parameters (built once) and data.
#[derive(Debug, Clone)]
pub struct Step {
    pub grid: Grid,
    pub law: LawParams,
    pub gravity: [f64; 3],
    pub pairs: PairTable,
    /// The walls: primitives (list entries flagged `state::WALL` index
    /// them) and per scene wall its body (motion, pose, load).
    pub walls: WallSet,
    /// `[simulation] gravity_rotation`: axis, rate and the turns' schedule.
    pub gravity_rotation: Option<crate::scene::GravityRotation>,
    pub particles: Particles<f64>,
    pub work: Work,
    pub step: u64,
    /// Largest overlap ratio seen in the run so far.
    pub max_overlap_ratio: f64,
    /// Verlet skin of the neighbour list (m).
    pub skin: f64,
    /// The first held material (`Scene::held_from`): particles of a
    /// material from it on stay at rest where they are (`[[fixed]]`).
    pub held_from: usize,
    /// The next step rebuilds the neighbour list (bin, sort, neighbours).
    pub rebuild: bool,
    /// Neighbour-list builds so far.
    pub builds: u64,
    /// Wall time spent per stage of [`crate::backend::Stage::STEP`] so far.
    pub stage_seconds: StageTimes,
    /// The id the next inserted particle gets (ids are never reused).
    pub next_id: u32,
    /// Insertion and outlets (`cpu/flow.rs`).
    pub flow: CpuFlow,
    /// The clumps (`shapes::clumps`; empty: spheres only) and the scene's
    /// shapes they take.
    pub clumps: crate::shapes::clumps::Clumps,
    pub shapes: std::sync::Arc<Vec<crate::shapes::table::Shape>>,
    /// The bonds (`bonds::table`; empty: none) and how to find their rows.
    pub bonds: CpuBonds,
}

/// The CPU's bonds: the table, the scene's `[[bonds]]` entries its rows
/// name, when the later ones form, and each id's row (`u32::MAX`: none), rebuilt when `stale` (a
/// sort, an insertion or a removal moved rows).
#[derive(Debug, Clone, Default)]
pub struct CpuBonds {
    pub table: crate::bonds::table::Bonds,
    pub specs: std::sync::Arc<Vec<crate::scene::types::BondSpec>>,
    /// The entries that form bonds during the run.
    pub later: crate::bonds::table::Later,
    pub row_of: Vec<u32>,
    pub stale: bool,
    /// Each bond's rows and result during the stage (kept: no allocation
    /// a step).
    pub results: Vec<Option<([Option<u32>; 2], crate::bonds::law::BondResult)>>,
}

/// The CPU's insertion and outlet state.
#[derive(Debug, Clone)]
pub struct CpuFlow {
    pub plan: InsertPlan,
    pub outlets: OutletSet,
    /// Particles each `[[insert]]` entry has inserted so far.
    pub inserted: Vec<u64>,
    /// Events not yet handed out.
    pub events: Vec<FlowEvent>,
}

impl CpuFlow {
    /// The set-up's plan and outlets, nothing inserted yet.
    pub fn new(setup: &Setup) -> Self {
        CpuFlow {
            plan: setup.inserts.clone(),
            outlets: setup.outlets.clone(),
            inserted: vec![0; setup.scene.inserts.len()],
            events: Vec::new(),
        }
    }
}
