//! Stage 5, integrate (`shaders/integrate.wgsl`): set B + forces → set B in
//! place (each thread its own particle), the rebuild test against the
//! reference positions, then the one-thread `finish_step` (count the step,
//! or freeze on error).

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};

pub struct IntegrateKernels {
    pub integrate: Kernel,
    pub finish: Kernel,
}

pub struct IntegrateBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
}

impl IntegrateKernels {
    /// `integrate`, `finish_step`.
    pub const DECLS: [KernelDecl; 2] = {
        const G0: &[Access] = &[U, RW, R, R, R];
        const G1: &[Access] = &[RW, RW, RW, RW];
        const S: &str = "integrate.wgsl";
        [
            KernelDecl::new(S, "integrate", &[G0, G1]),
            KernelDecl::new(S, "finish_step", &[G0]),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        IntegrateKernels {
            integrate: Kernel::new(ctx, module, &Self::DECLS[0]),
            finish: Kernel::new(ctx, module, &Self::DECLS[1]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> IntegrateBinds {
        let b = &d.b;
        let k = &self.integrate;
        IntegrateBinds {
            g0: k.bind(
                ctx,
                0,
                &[&d.params, &d.ctl, &d.force, &d.torque, &d.pos_ref],
            ),
            g1: k.bind(ctx, 1, &[&b.pos, &b.diss, &b.motion, &b.pos_fx]),
        }
    }

    pub fn encode(&self, b: &IntegrateBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_indirect(
            pass,
            &self.integrate,
            &[(0, &b.g0), (1, &b.g1)],
            d.args_for(Over::EveryStep),
        );
        pass.set_pipeline(&self.finish.pipeline);
        pass.set_bind_group(0, &b.g0, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
