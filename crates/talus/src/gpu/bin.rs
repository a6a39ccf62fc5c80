//! Stage 1, bin (`shaders/bin.wgsl`): cell key per particle, count per cell.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch, dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};

pub struct BinKernels {
    /// The indirect dispatches' workgroup counts (see `encode_arm`).
    pub arm: Kernel,
    pub clear: Kernel,
    pub bin: Kernel,
}

pub struct BinBinds {
    pub group: wgpu::BindGroup,
    /// `arm_rebuild`'s group 1: `arg_slots`, `args`.
    pub arm: wgpu::BindGroup,
}

impl BinKernels {
    /// `arm_rebuild`, `clear_counts`, `bin`.
    pub const DECLS: [KernelDecl; 3] = {
        const G: &[Access] = &[U, R, R, RW, RW, R];
        const S: &str = "bin.wgsl";
        [
            KernelDecl::new(S, "arm_rebuild", &[G, &[R, RW]]),
            KernelDecl::new(S, "clear_counts", &[G]),
            KernelDecl::new(S, "bin", &[G]),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        BinKernels {
            arm: k(0),
            clear: k(1),
            bin: k(2),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> BinBinds {
        BinBinds {
            group: self.bin.bind_paged(
                ctx,
                0,
                &[
                    &d.params,
                    &d.ctl,
                    d.b.pos.first(),
                    &d.nbr_count,
                    &d.counts,
                    d.b.motion.first(),
                ],
                &[("pos_rad", &d.b.pos), ("motion", &d.b.motion)],
            ),
            arm: self.arm.bind(ctx, 1, &[&d.arg_slots, &d.args]),
        }
    }

    /// Zeroes the counts (used again by the sort as the scatter cursor).
    pub fn encode_clear(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_indirect(
            pass,
            &self.clear,
            &[(0, &b.group)],
            d.args_for(Over::Fixed(d.n_cells + 1)),
        );
    }

    /// Arms every indirect dispatch of the step to come from the active
    /// count (the rebuild kernels' full or empty, from the rebuild flag the
    /// last integrate left): first in a submission and after whatever
    /// changes the count or the flags between two steps (a step's own
    /// `finish_step` arms the next otherwise).
    pub fn encode_arm(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        let slots = d.slots.len() as u64;
        dispatch(pass, &self.arm, &[(0, &b.group), (1, &b.arm)], slots);
    }

    /// Bins (on a step that rebuilds: the dispatches as armed).
    pub fn encode(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        self.encode_clear(b, pass, d);
        dispatch_indirect(
            pass,
            &self.bin,
            &[(0, &b.group)],
            d.args_for(Over::Particles),
        );
    }
}
