//! Stage 5, integrate (`shaders/integrate.wgsl`): set B + forces → set B in
//! place (each thread its own particle), the rebuild test against the
//! reference positions and the outlets (a particle an outlet takes is
//! marked removed and logged, see `gpu::flow`), then `finish_step` (one
//! workgroup: count the step or freeze on error, move the walls, arm the
//! next step's indirect dispatches) and the deforming surfaces'
//! `move_surfaces` (`gpu::surfaces`).

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};
use super::surfaces::{SurfaceBinds, SurfaceKernels};

pub struct IntegrateKernels {
    pub integrate: Kernel,
    pub finish: Kernel,
}

pub struct IntegrateBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
    /// `finish_step`'s group 2: `arg_slots`, `args` (the indirect
    /// dispatches' counts it arms; `integrate`'s layout leaves it out, as
    /// it reads `args` as its own indirect arguments).
    pub arm: wgpu::BindGroup,
}

impl IntegrateKernels {
    /// `integrate`, `finish_step`.
    pub const DECLS: [KernelDecl; 2] = {
        // one layout for groups 0 and 1 (and one set of bind groups: see
        // `NeighbourKernels::DECLS` for why)
        const G0: &[Access] = &[U, RW, RW, R, R, RW, R, RW];
        const G1: &[Access] = &[RW, RW, RW, RW, R];
        const S: &str = "integrate.wgsl";
        [
            KernelDecl::new(S, "integrate", &[G0, G1]),
            KernelDecl::new(S, "finish_step", &[G0, G1, &[R, RW]]),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        IntegrateKernels {
            integrate: Kernel::new(ctx, module, &Self::DECLS[0]),
            finish: Kernel::new(ctx, module, &Self::DECLS[1]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> IntegrateBinds {
        let b = &d.b;
        let k = &self.integrate;
        let g0 = [
            &d.params,
            &d.ctl,
            d.acc.first(),
            d.pos_ref.first(),
            &d.wall_motion,
            &d.wall_pose,
            &d.flow.outlets,
            &d.flow.log,
        ];
        let pages = d.moving_pages();
        IntegrateBinds {
            g0: k.bind_paged(ctx, 0, &g0, &pages),
            g1: k.bind_paged(
                ctx,
                1,
                &[
                    b.pos.first(),
                    b.diss.first(),
                    b.motion.first(),
                    b.pos_fx.first(),
                    b.clump_row.first(),
                ],
                &pages,
            ),
            arm: self.finish.bind(ctx, 2, &[&d.arg_slots, &d.args]),
        }
    }

    /// The first part of the stage: `integrate` (then the clumps' part,
    /// `gpu::clumps`; a run on several ranks exchanges its ghosts and
    /// errors before the rest).
    pub fn encode_particles(&self, b: &IntegrateBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_indirect(
            pass,
            &self.integrate,
            &[(0, &b.g0), (1, &b.g1)],
            d.args_for(Over::EveryStep),
        );
    }

    /// The rest: `finish_step` and `move_surfaces` (`surfaces`: the
    /// deforming surfaces' kernels and bind group, which pose them for the
    /// next step). Returns whether the next step still needs arming
    /// (`arm_rebuild`): a moving surface can ask for a rebuild after
    /// `finish_step` armed it.
    #[must_use]
    pub fn encode_finish(
        &self,
        b: &IntegrateBinds,
        surfaces: (&SurfaceKernels, &SurfaceBinds),
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) -> bool {
        pass.set_pipeline(&self.finish.pipeline);
        pass.set_bind_group(0, &b.g0, &[]);
        pass.set_bind_group(1, &b.g1, &[]);
        pass.set_bind_group(2, &b.arm, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        surfaces.0.encode_move(surfaces.1, pass, d);
        d.n_surf_tris > 0
    }
}
