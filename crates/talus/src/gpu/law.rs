//! The contact law alone on the GPU (`shaders/law_eval.wgsl`, with
//! `law.wgsl` prepended: the same law the contact stage runs), over a batch
//! of contacts given as data. Not part of a step: the GPU half of the law's
//! twin test, which evaluates random contacts through every branch against
//! `cpu::law::pair_law` (`tests/gpu.rs`,
//! `gpu_law_matches_cpu_law_in_every_branch`).

use super::context::GpuContext;
use super::kernel::{eval_once, Kernel, KernelDecl, R, RW, U};
use super::layout::{LawCase, LawOut, Params};
use wgpu::util::DeviceExt;

pub struct LawEval {
    pub kernel: Kernel,
}

impl LawEval {
    /// `law_eval`.
    pub const DECLS: [KernelDecl; 1] =
        [KernelDecl::new("law_eval.wgsl", "law_eval", &[&[U, R, RW]])];

    pub fn new(ctx: &GpuContext) -> Self {
        Self::from_source(ctx, &super::shaders::source("law_eval.wgsl"))
    }

    /// From a given full source (`law_eval.wgsl` as [`super::shaders`]
    /// assembles it, possibly altered: the twin test perturbs each branch
    /// of the law to show that it would notice).
    pub fn from_source(ctx: &GpuContext, src: &str) -> Self {
        let src = src.to_string();
        let module = super::kernel::Module::from_source(
            ctx,
            "law_eval.wgsl",
            src.to_string(),
            &super::pages::Paging::single(),
        );
        LawEval {
            kernel: Kernel::new(ctx, &module, &Self::DECLS[0]),
        }
    }

    /// The law of every case under `params` (dt, model and linear
    /// parameters are read from it), in order. Allocates its buffers and
    /// waits for the device: a test tool, not a step.
    pub fn eval(&self, ctx: &GpuContext, params: &Params, cases: &[LawCase]) -> Vec<LawOut> {
        let dev = &ctx.device;
        let init = |label, contents: &[u8], usage| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let p = init(
            "law params",
            bytemuck::bytes_of(params),
            wgpu::BufferUsages::UNIFORM,
        );
        let c = init(
            "law cases",
            bytemuck::cast_slice(cases),
            wgpu::BufferUsages::STORAGE,
        );
        eval_once(ctx, &self.kernel, "law_eval", &[&p, &c], cases.len())
    }
}
