//! The contact law alone on the GPU (`shaders/law_eval.wgsl`, with
//! `law.wgsl` prepended: the same law the contact stage runs), over a batch
//! of contacts given as data. Not part of a step: the GPU half of the law's
//! twin test, which evaluates random contacts through every branch against
//! `cpu::law::pair_law` (`tests/gpu.rs`,
//! `gpu_law_matches_cpu_law_in_every_branch`).

use super::context::GpuContext;
use super::kernel::{CaseEval, KernelDecl, R, RW, U};
use super::layout::{LawCase, LawOut, Params};

pub struct LawEval(pub CaseEval);

impl LawEval {
    /// `law_eval`.
    pub const DECLS: [KernelDecl; 1] =
        [KernelDecl::new("law_eval.wgsl", "law_eval", &[&[U, R, RW]])];

    pub fn new(ctx: &GpuContext) -> Self {
        Self::from_source(ctx, &super::shaders::source("law_eval.wgsl"))
    }

    /// From a given full source (perturbed by the twin test).
    pub fn from_source(ctx: &GpuContext, src: &str) -> Self {
        LawEval(CaseEval::from_source(ctx, &Self::DECLS[0], src))
    }

    /// The law of every case under `params` (dt, model and linear
    /// parameters are read from it), in order.
    pub fn eval(&self, ctx: &GpuContext, params: &Params, cases: &[LawCase]) -> Vec<LawOut> {
        self.0.eval(ctx, params, cases)
    }
}
