//! The clumps' rotation alone on the GPU (`shaders/rotor_eval.wgsl`, with
//! `rotor.wgsl` prepended: the rotation the clumps' integration is to run),
//! over free tops given as data. Not part of a step: the GPU half of the
//! rotation's twin test against `shapes::rotation` (`tests/gpu.rs`,
//! `gpu_rotor_matches_cpu_rotor`).

use super::context::GpuContext;
use super::kernel::{eval_once, Kernel, KernelDecl, R, RW};
use super::layout::{RotorCase, RotorOut};
use wgpu::util::DeviceExt;

pub struct RotorEval {
    pub kernel: Kernel,
}

impl RotorEval {
    /// `rotor_eval`.
    pub const DECLS: [KernelDecl; 1] = [KernelDecl::new(
        "rotor_eval.wgsl",
        "rotor_eval",
        &[&[R, RW]],
    )];

    pub fn new(ctx: &GpuContext) -> Self {
        let module = super::kernel::Module::from_source(
            ctx,
            "rotor_eval.wgsl",
            super::shaders::source("rotor_eval.wgsl"),
            &super::pages::Paging::single(),
        );
        RotorEval {
            kernel: Kernel::new(ctx, &module, &Self::DECLS[0]),
        }
    }

    /// Every case run to its end, in order. Allocates its buffers and waits
    /// for the device: a test tool, not a step.
    pub fn eval(&self, ctx: &GpuContext, cases: &[RotorCase]) -> Vec<RotorOut> {
        if cases.is_empty() {
            return Vec::new();
        }
        let c = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("rotor cases"),
                contents: bytemuck::cast_slice(cases),
                usage: wgpu::BufferUsages::STORAGE,
            });
        eval_once(ctx, &self.kernel, "rotor_eval", &[&c], cases.len())
    }
}
