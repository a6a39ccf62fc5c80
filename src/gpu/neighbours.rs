//! Stage 3, neighbours (`shaders/neighbours.wgsl`): the Verlet candidate
//! list over set B in cell order, as the CPU's `cpu/neighbours.rs`: `keep`
//! (the previous list and its history, to move the history from), count,
//! exclusive scan (the sort stage's scan kernels over `nbr_count`), a
//! one-thread capacity check, fill (which moves each contact's history
//! over and records the reference positions), and a one-thread
//! `finish_build` that clears the rebuild flag. Count and fill list the
//! wall primitives within reach after the particle candidates. Every
//! kernel launches no workgroup on a step that does not rebuild.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch, dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};
use super::sort::{ScanBinds, SortBinds, SortKernels};

pub struct NeighbourKernels {
    pub keep: Kernel,
    pub count: Kernel,
    pub check: Kernel,
    pub fill: Kernel,
    pub finish: Kernel,
}

pub struct NeighbourBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
    /// The scan of `nbr_count` into `nbr_start`.
    pub scan: ScanBinds,
}

impl NeighbourKernels {
    /// `keep`, `count_candidates`, `check_list`, `fill`, `finish_build`.
    pub const DECLS: [KernelDecl; 5] = {
        const G0: &[Access] = &[U, RW, R, R, R];
        const G: &[&[Access]] = &[G0, &[R, RW, RW, RW, RW, RW, RW, RW, RW, RW, RW]];
        const S: &str = "neighbours.wgsl";
        [
            KernelDecl::new(S, "keep", G),
            KernelDecl::new(S, "count_candidates", G),
            KernelDecl::new(S, "check_list", G),
            KernelDecl::new(S, "fill", G),
            KernelDecl::new(S, "finish_build", G),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        NeighbourKernels {
            keep: k(0),
            count: k(1),
            check: k(2),
            fill: k(3),
            finish: k(4),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, sort: &SortKernels, d: &GpuData) -> NeighbourBinds {
        let k = &self.count;
        NeighbourBinds {
            g0: k.bind(ctx, 0, &[&d.params, &d.ctl, &d.starts, &d.order, &d.walls]),
            g1: k.bind(
                ctx,
                1,
                &[
                    &d.b.pos,
                    &d.nbr_count,
                    &d.nbr_start,
                    &d.nbr,
                    &d.pos_ref,
                    &d.nbr_hist,
                    &d.old_start,
                    &d.old_nbr,
                    &d.old_hist,
                    &d.new_at,
                    &d.old_index,
                ],
            ),
            scan: sort.bind_scan(ctx, &d.list_scan, &d.nbr_count, &d.nbr_start),
        }
    }

    pub fn encode(
        &self,
        b: &NeighbourBinds,
        sort: &SortKernels,
        sb: &SortBinds,
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        let groups = [(0, &b.g0), (1, &b.g1)];
        dispatch_indirect(pass, &self.keep, &groups, d.args_for(Over::Particles));
        dispatch_indirect(pass, &self.count, &groups, d.args_for(Over::Particles));
        sort.encode_scan_levels(&sb.common, &b.scan, &d.list_scan, pass, d);
        dispatch(pass, &self.check, &groups, 1);
        dispatch_indirect(pass, &self.fill, &groups, d.args_for(Over::Particles));
        dispatch(pass, &self.finish, &groups, 1);
    }
}
