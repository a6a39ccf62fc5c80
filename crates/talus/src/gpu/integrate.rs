//! Stage 5, integrate (`shaders/integrate.wgsl`): set B + forces → set B in
//! place (each thread its own particle), the rebuild test against the
//! reference positions and the outlets (a particle an outlet takes is
//! marked removed and logged, see `gpu::flow`), then the one-thread
//! `finish_step` (count the step, or freeze on error), `move_walls` and the
//! deforming surfaces' `move_surfaces` (`gpu::surfaces`).

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};
use super::surfaces::{SurfaceBinds, SurfaceKernels};

pub struct IntegrateKernels {
    pub integrate: Kernel,
    pub finish: Kernel,
    pub walls: Kernel,
}

pub struct IntegrateBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
}

impl IntegrateKernels {
    /// `integrate`, `finish_step`, `move_walls`.
    pub const DECLS: [KernelDecl; 3] = {
        // one layout for the three (and one set of bind groups: see
        // `NeighbourKernels::DECLS` for why)
        const G: &[&[Access]] = &[&[U, RW, R, R, R, R, RW, R, RW], &[RW, RW, RW, RW]];
        const S: &str = "integrate.wgsl";
        [
            KernelDecl::new(S, "integrate", G),
            KernelDecl::new(S, "finish_step", G),
            KernelDecl::new(S, "move_walls", G),
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
            &d.flow.outlets,
            &d.flow.log,
        ];
        IntegrateBinds {
            g0: k.bind(ctx, 0, &g0),
            g1: k.bind(ctx, 1, &[&b.pos, &b.diss, &b.motion, &b.pos_fx]),
        }
    }

    /// Records the stage; `surfaces`: the deforming surfaces' kernels and
    /// bind group, whose `move_surfaces` poses them for the next step after
    /// `move_walls`.
    pub fn encode(
        &self,
        b: &IntegrateBinds,
        surfaces: (&SurfaceKernels, &SurfaceBinds),
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        dispatch_indirect(
            pass,
            &self.integrate,
            &[(0, &b.g0), (1, &b.g1)],
            d.args_for(Over::EveryStep),
        );
        // the bind groups stay set
        pass.set_pipeline(&self.finish.pipeline);
        pass.dispatch_workgroups(1, 1, 1);
        if d.moving_walls {
            pass.set_pipeline(&self.walls.pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
        surfaces.0.encode_move(surfaces.1, pass, d);
    }
}
