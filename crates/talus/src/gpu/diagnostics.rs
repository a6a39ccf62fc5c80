//! Stage 5, diagnostics (`shaders/diagnostics.wgsl`): per-workgroup exact
//! partial sums of the energies (128-bit integers, `sums::Exact`), added as
//! integers on the host.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Kernel, KernelDecl, R, RW, U};

pub struct DiagnosticsKernels {
    pub diagnostics: Kernel,
}

impl DiagnosticsKernels {
    /// `diagnostics`.
    pub const DECLS: [KernelDecl; 1] = [KernelDecl::new(
        "diagnostics.wgsl",
        "diagnostics",
        &[&[U, R, R, R, R, RW, R, R, R]],
    )];

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        DiagnosticsKernels {
            diagnostics: Kernel::new(ctx, module, &Self::DECLS[0]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> wgpu::BindGroup {
        let a = &d.b;
        self.diagnostics.bind_paged(
            ctx,
            0,
            &[
                &d.params,
                a.pos.first(),
                a.diss.first(),
                a.motion.first(),
                d.acc.first(),
                &d.partials,
                &d.ctl,
                &d.clumps.table,
                a.clump_row.first(),
            ],
            &[
                ("pos_rad", &a.pos),
                ("dissipated", &a.diss),
                ("motion", &a.motion),
                ("work", &d.acc),
                ("clump_row", &a.clump_row),
            ],
        )
    }

    pub fn encode(&self, g: &wgpu::BindGroup, pass: &mut wgpu::ComputePass, d: &GpuData) {
        // over the active particles, as the last step's arm_rebuild sized it
        dispatch_indirect(
            pass,
            &self.diagnostics,
            &[(0, g)],
            d.args_for(Over::EveryStep),
        );
    }
}
