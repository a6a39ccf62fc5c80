//! The bond law alone on the GPU (`shaders/bond_eval.wgsl`, with
//! `bonds.wgsl` prepended), over a batch of bonds given as data: the GPU
//! half of the bond law's twin test (`tests/gpu_bonds.rs`) against
//! `bonds::law::bond_law`. Not part of a step (the bond stage is not in
//! this build yet).

use super::context::GpuContext;
use super::kernel::{eval_once, Kernel, KernelDecl, R, RW, U};
use super::layout::{BondCase, BondOut, Params};
use wgpu::util::DeviceExt;

pub struct BondEval {
    pub kernel: Kernel,
}

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

    /// From a given full source (`bond_eval.wgsl` as [`super::shaders`]
    /// assembles it, possibly altered: the twin test perturbs each branch
    /// of the law to show that it would notice).
    pub fn from_source(ctx: &GpuContext, src: &str) -> Self {
        let src = src.to_string();
        let module = super::kernel::Module::from_source(
            ctx,
            "bond_eval.wgsl",
            src.to_string(),
            &super::pages::Paging::single(),
        );
        BondEval {
            kernel: Kernel::new(ctx, &module, &Self::DECLS[0]),
        }
    }

    /// The bond law of every case, in order (`params` is bound, not
    /// read). Allocates its buffers and
    /// waits for the device: a test tool, not a step.
    pub fn eval(&self, ctx: &GpuContext, params: &Params, cases: &[BondCase]) -> Vec<BondOut> {
        let dev = &ctx.device;
        let init = |label, contents: &[u8], usage| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let p = init(
            "bond params",
            bytemuck::bytes_of(params),
            wgpu::BufferUsages::UNIFORM,
        );
        let c = init(
            "bond cases",
            bytemuck::cast_slice(cases),
            wgpu::BufferUsages::STORAGE,
        );
        eval_once(ctx, &self.kernel, "bond_eval", &[&p, &c], cases.len())
    }
}
