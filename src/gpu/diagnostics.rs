//! Stage 5, diagnostics (`shaders/diagnostics.wgsl`): deterministic
//! per-workgroup partial sums of the energies, added in f64 on the host.

use super::context::GpuContext;
use super::data::GpuData;
use super::kernel::{dispatch, Kernel, KernelDecl, R, RW, U};

pub struct DiagnosticsKernels {
    pub diagnostics: Kernel,
}

impl DiagnosticsKernels {
    /// `diagnostics`.
    pub const DECLS: [KernelDecl; 1] = [KernelDecl::new(
        "diagnostics.wgsl",
        "diagnostics",
        &[&[U, R, R, R, R, R, RW]],
    )];

    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        DiagnosticsKernels {
            diagnostics: Kernel::new(ctx, module, &Self::DECLS[0]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> wgpu::BindGroup {
        let a = &d.b;
        self.diagnostics.bind(
            ctx,
            0,
            &[
                &d.params,
                &a.pos,
                &a.diss,
                &a.motion,
                &d.force,
                &d.torque,
                &d.partials,
            ],
        )
    }

    pub fn encode(&self, g: &wgpu::BindGroup, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch(pass, &self.diagnostics, &[(0, g)], d.n);
    }
}
