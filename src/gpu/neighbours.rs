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
    pub drop_removed: Kernel,
    pub keep: Kernel,
    pub count: Kernel,
    pub check: Kernel,
    pub fill: Kernel,
    pub finish: Kernel,
}

/// Groups 0 and 1 of each kernel (each binds only what it uses).
pub struct NeighbourBinds {
    pub drop_removed: [wgpu::BindGroup; 2],
    pub keep: [wgpu::BindGroup; 2],
    pub count: [wgpu::BindGroup; 2],
    pub check: [wgpu::BindGroup; 2],
    pub fill: [wgpu::BindGroup; 2],
    pub finish: wgpu::BindGroup,
    /// The scan of `nbr_count` into `nbr_start`.
    pub scan: ScanBinds,
}

impl NeighbourKernels {
    /// `drop_removed`, `keep`, `count_candidates`, `check_list`, `fill`,
    /// `finish_build`,
    /// each with only the bindings it uses (N: left out). Group 0: params,
    /// ctl, starts, order, walls, wall_info, wall_motion, wall_pose,
    /// mesh_cells; group 1: pos, nbr_count, nbr_start, nbr, pos_ref,
    /// nbr_hist, old_start, old_nbr, old_hist, new_at, old_index. The
    /// widest, `fill`, binds 17 storage buffers.
    pub const DECLS: [KernelDecl; 6] = {
        const S: &str = "neighbours.wgsl";
        const G: &[&[Access]] = &[
            &[U, RW, R, R, R, R, R, RW, R],
            &[R, RW, RW, RW, RW, RW, RW, RW, RW, RW, RW],
        ];
        [
            KernelDecl::new(S, "drop_removed", G),
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
            drop_removed: k(0),
            keep: k(1),
            count: k(2),
            check: k(3),
            fill: k(4),
            finish: k(5),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, sort: &SortKernels, d: &GpuData) -> NeighbourBinds {
        let g0 = [
            &d.params,
            &d.ctl,
            &d.starts,
            &d.order,
            &d.walls,
            &d.wall_info,
            &d.wall_motion,
            &d.wall_pose,
            &d.mesh_cells,
        ];
        let g1 = [
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
        ];
        let shared = [self.fill.bind(ctx, 0, &g0), self.fill.bind(ctx, 1, &g1)];
        NeighbourBinds {
            drop_removed: shared.clone(),
            keep: shared.clone(),
            count: shared.clone(),
            check: shared.clone(),
            fill: shared.clone(),
            finish: shared[0].clone(),
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
        fn g(b: &[wgpu::BindGroup; 2]) -> [(u32, &wgpu::BindGroup); 2] {
            [(0, &b[0]), (1, &b[1])]
        }
        let particles = d.args_for(Over::Particles);
        dispatch(pass, &self.drop_removed, &g(&b.drop_removed), 1);
        dispatch_indirect(pass, &self.keep, &g(&b.keep), particles);
        dispatch_indirect(pass, &self.count, &g(&b.count), particles);
        sort.encode_scan_levels(&sb.common, &b.scan, &d.list_scan, pass, d);
        dispatch(pass, &self.check, &g(&b.check), 1);
        dispatch_indirect(pass, &self.fill, &g(&b.fill), particles);
        dispatch(pass, &self.finish, &[(0, &b.finish), (1, &b.fill[1])], 1);
    }
}
