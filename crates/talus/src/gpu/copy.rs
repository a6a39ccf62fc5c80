//! The compute copy the bandwidth yardstick of `talus bench` times
//! (`shaders/copy.wgsl`; the yardstick itself is the studies' `bench`):
//! one 16-byte word an invocation, as the step's kernels move theirs. Not
//! a stage.

use super::context::GpuContext;
use super::kernel::{dispatch, Kernel, KernelDecl, R, RW};

pub struct CopyKernel {
    pub kernel: Kernel,
}

impl CopyKernel {
    /// `bandwidth_copy`.
    pub const DECLS: [KernelDecl; 1] =
        [KernelDecl::new("copy.wgsl", "bandwidth_copy", &[&[R, RW]])];

    pub fn new(ctx: &GpuContext) -> Self {
        let module = super::kernel::Module::from_source(
            ctx,
            "copy.wgsl",
            super::shaders::source("copy.wgsl").to_string(),
            &super::pages::Paging::single(),
        );
        CopyKernel {
            kernel: Kernel::new(ctx, &module, &Self::DECLS[0]),
        }
    }

    /// Records `reps` copies of `src` into `dst` (the shorter's length in
    /// 16-byte words), one labelled pass each.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        enc: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        reps: u32,
    ) {
        let g = self.kernel.bind(ctx, 0, &[src, dst]);
        let words = src.size().min(dst.size()) / 16;
        for _ in 0..reps {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("bandwidth_copy"),
                timestamp_writes: None,
            });
            dispatch(&mut pass, &self.kernel, &[(0, &g)], words);
        }
    }
}
