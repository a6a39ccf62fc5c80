//! The bond law alone on the GPU (`shaders/bond_eval.wgsl`, with
//! `bonds.wgsl` prepended), over a batch of bonds given as data: the GPU
//! half of the bond law's twin test (`tests/gpu_bonds.rs`) against
//! `bonds::law::bond_law`. Not part of a step (the bond stage is not in
//! this build yet).

use super::context::GpuContext;
use super::kernel::{CaseEval, KernelDecl, R, RW, U};
use super::layout::{BondCase, BondOut, Params};

pub struct BondEval(pub CaseEval);

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
