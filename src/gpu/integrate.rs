//! Stage 5, integrate (`shaders/integrate.wgsl`): set B + forces → set B in
//! place (each thread its own particle), the rebuild test against the
//! reference positions, then the one-thread `finish_step` (count the step,
//! or freeze on error).

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, N, R, RW, U};

pub struct IntegrateKernels {
    pub integrate: Kernel,
    pub finish: Kernel,
    pub walls: Kernel,
}

pub struct IntegrateBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
    pub finish: wgpu::BindGroup,
    pub walls: wgpu::BindGroup,
}

impl IntegrateKernels {
    /// `integrate`, `finish_step`, `move_walls`.
    pub const DECLS: [KernelDecl; 3] = {
        const G0: &[Access] = &[U, RW, R, R, R, N, N];
        const G1: &[Access] = &[RW, RW, RW, RW];
        const S: &str = "integrate.wgsl";
        [
            KernelDecl::new(S, "integrate", &[G0, G1]),
            KernelDecl::new(S, "finish_step", &[&[N, RW, N, N, N, N, N]]),
            KernelDecl::new(S, "move_walls", &[&[U, RW, N, N, N, R, RW]]),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        IntegrateKernels {
            integrate: Kernel::new(ctx, module, &Self::DECLS[0]),
            finish: Kernel::new(ctx, module, &Self::DECLS[1]),
            walls: Kernel::new(ctx, module, &Self::DECLS[2]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> IntegrateBinds {
        let b = &d.b;
        let k = &self.integrate;
        let g0 = [
            &d.params,
            &d.ctl,
            &d.force,
            &d.torque,
            &d.pos_ref,
            &d.wall_motion,
            &d.wall_pose,
        ];
        IntegrateBinds {
            g0: k.bind(ctx, 0, &g0),
            g1: k.bind(ctx, 1, &[&b.pos, &b.diss, &b.motion, &b.pos_fx]),
            finish: self.finish.bind(ctx, 0, &g0),
            walls: self.walls.bind(ctx, 0, &g0),
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
        pass.set_bind_group(0, &b.finish, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        if d.moving_walls {
            pass.set_pipeline(&self.walls.pipeline);
            pass.set_bind_group(0, &b.walls, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }
}
