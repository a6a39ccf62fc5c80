//! The bonds on the GPU: the stage's kernels (`shaders/bonds.wgsl`, twin
//! of `cpu::bonds`) over the bond table and the id → row map
//! (`gpu::bond_data`), and the bond law alone (`shaders/bond_eval.wgsl`,
//! with `bond_law.wgsl` prepended) over bonds given as data: the GPU half
//! of the law's twin test (`tests/gpu_bonds.rs`).
//!
//! `bond_rows` (a thread per row: its id's row) after the sort's reorder on
//! a step that rebuilds, and once for a new table; within the contacts
//! stage, first, `bonds` (a thread per bond: the law, its force, torques
//! and energy shares into both particles' pair sums). `contacts_walls`
//! finishes every row of a run with bonds.

use super::context::GpuContext;
use super::data::{GpuData, Over};
#[cfg(feature = "test-kernels")]
use super::kernel::CaseEval;
use super::kernel::{dispatch, dispatch_indirect, Access, Kernel, KernelDecl, N, R, RW, U};
#[cfg(feature = "test-kernels")]
use super::layout::{BondCase, BondOut, Params};

/// The stage's kernels.
pub struct BondKernels {
    pub rows: Kernel,
    pub bonds: Kernel,
}

/// The bind groups of a run with bonds.
pub struct BondBinds {
    pub rows: [wgpu::BindGroup; 2],
    pub bonds: [wgpu::BindGroup; 2],
}

impl BondKernels {
    /// `bond_rows`, `bonds`. Group 0: params, ctl, the entries, the
    /// table, the id → row map; group 1: pos, motion, the work records,
    /// their error bits.
    pub const DECLS: [KernelDecl; 2] = {
        const S: &str = "bonds.wgsl";
        const ROWS: &[&[Access]] = &[&[N, RW, N, N, RW], &[N, R, N, N]];
        const BONDS: &[&[Access]] = &[&[U, RW, R, RW, RW], &[R, R, RW, RW]];
        [
            KernelDecl::new(S, "bond_rows", ROWS),
            KernelDecl::new(S, "bonds", BONDS),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        BondKernels {
            rows: k(0),
            bonds: k(1),
        }
    }

    /// None for a run without bonds (no bond kernel is recorded).
    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> Option<BondBinds> {
        if d.bonds.count == 0 {
            return None;
        }
        let (b, t) = (&d.b, &d.bonds);
        let g0 = [&d.params, &d.ctl, &t.specs, &t.table, &t.row_of];
        let g1 = [b.pos.first(), b.motion.first(), d.acc.first(), &d.acc_bad];
        let pages = [("pos_rad", &b.pos), ("motion", &b.motion), ("acc", &d.acc)];
        let two = |k: &Kernel| {
            [
                k.bind_paged(ctx, 0, &g0, &pages),
                k.bind_paged(ctx, 1, &g1, &pages),
            ]
        };
        Some(BondBinds {
            rows: two(&self.rows),
            bonds: two(&self.bonds),
        })
    }

    /// The bonds' part of the contacts stage, before the pairs: every
    /// bond.
    pub fn encode(&self, b: &BondBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch(
            pass,
            &self.bonds,
            &[(0, &b.bonds[0]), (1, &b.bonds[1])],
            d.bonds.count,
        );
    }

    /// After the sort's reorder on a step that rebuilds (the slot launches
    /// nothing on the others: rows move only then): the map follows the
    /// rows.
    pub fn encode_rows(&self, b: &BondBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_indirect(
            pass,
            &self.rows,
            &[(0, &b.rows[0]), (1, &b.rows[1])],
            d.args_for(Over::Particles),
        );
    }

    /// The map of rows as they stand, whatever the step (a new table:
    /// its map starts empty).
    pub fn encode_rows_now(&self, b: &BondBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch(pass, &self.rows, &[(0, &b.rows[0]), (1, &b.rows[1])], d.cap);
    }
}

#[cfg(feature = "test-kernels")]
pub struct BondEval(pub CaseEval);

#[cfg(feature = "test-kernels")]
impl BondEval {
    /// `bond_eval`.
    pub const DECLS: [KernelDecl; 1] = [KernelDecl::new(
        "bond_eval.wgsl",
        "bond_eval",
        &[&[U, R, RW]],
    )];

    pub fn new(ctx: &GpuContext) -> Self {
        Self::from_source(ctx, &super::shaders::source("bond_eval.wgsl"))
    }

    /// From a given full source (perturbed by the twin test).
    pub fn from_source(ctx: &GpuContext, src: &str) -> Self {
        BondEval(CaseEval::from_source(ctx, &Self::DECLS[0], src))
    }

    /// The bond law of every case, in order (`params` is bound, not read).
    pub fn eval(&self, ctx: &GpuContext, params: &Params, cases: &[BondCase]) -> Vec<BondOut> {
        self.0.eval(ctx, params, cases)
    }
}
