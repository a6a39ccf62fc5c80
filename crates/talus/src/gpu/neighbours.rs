//! Stage 3, neighbours (`shaders/neighbours.wgsl`): the Verlet candidate
//! list over set B in cell order, as the CPU's `cpu/neighbours.rs`: `keep`
//! (the previous list and its history, to move the history from), count,
//! exclusive scan (the sort stage's scan kernels over `nbr_count`), a
//! one-thread capacity check, fill (which moves each contact's history
//! over and records the reference positions), and a one-thread
//! `finish_build` that clears the rebuild flag. The large particles'
//! rows (the grid's large levels, first in cell order) take a workgroup
//! each for keep, count and fill (`keep_large`, `count_large`,
//! `fill_large`: a 25 mm sphere among 1 mm ones lists ~3000 candidates
//! over ~400 cell rows, which as one thread held the H100's neighbour
//! stage at 90 % of the step at 1:35). Count and fill list the
//! wall primitives within reach after the particle candidates. Every
//! kernel launches no workgroup on a step that does not rebuild.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};
use super::layout::LARGE_GROUPS;
use super::sort::{ScanBinds, SortBinds, SortKernels};
use super::surfaces::{SurfaceBinds, SurfaceKernels};

pub struct NeighbourKernels {
    pub drop_removed: Kernel,
    pub keep: Kernel,
    pub check_kept: Kernel,
    pub count: Kernel,
    pub check: Kernel,
    pub fill: Kernel,
    pub finish: Kernel,
    pub keep_large: Kernel,
    pub count_large: Kernel,
    pub fill_large: Kernel,
}

/// Groups 0 and 1, shared by every kernel of the stage.
pub struct NeighbourBinds {
    pub groups: [wgpu::BindGroup; 2],
    /// The scan of `nbr_count` into `nbr_start`.
    pub scan: ScanBinds,
}

impl NeighbourKernels {
    /// `drop_removed`, `keep`, `check_kept`, `count_candidates`,
    /// `check_list`, `fill`, `finish_build` and the large rows' three: one
    /// layout for all, and one pair of bind groups
    /// (group 0: params, ctl, starts, order, walls, wall_info,
    /// wall_motion, wall_pose, mesh_cells; group 1: pos, nbr_count,
    /// nbr_start, nbr, pos_ref, nbr_hist, kept_row, kept_nbr, kept_hist,
    /// new_at, old_index, motion): 20 storage buffers, and the pages past the
    /// first of its paged arrays beside them (`pages`). The kernels of a stage share
    /// their bind groups so that a pass never rebinds between them: with a
    /// layout (and bind groups) per kernel, each binding only what it
    /// used, lavapipe spent ~2.7 ms and ~0.5 MB per rebinding dispatch of
    /// `count`/`fill` (even with no workgroups), growing without bound
    /// (24 GB over a 50 000-step run; found by bisecting to the commit that
    /// introduced per-kernel layouts). Same for contacts and integrate.
    pub const DECLS: [KernelDecl; 10] = {
        const S: &str = "neighbours.wgsl";
        const G: &[&[Access]] = &[
            &[U, RW, R, R, R, R, R, RW, R],
            &[R, RW, RW, RW, RW, RW, RW, RW, RW, RW, RW, R],
        ];
        [
            KernelDecl::new(S, "drop_removed", G),
            KernelDecl::new(S, "keep", G),
            KernelDecl::new(S, "count_candidates", G),
            KernelDecl::new(S, "check_list", G),
            KernelDecl::new(S, "fill", G),
            KernelDecl::new(S, "finish_build", G),
            KernelDecl::new(S, "keep_large", G),
            KernelDecl::new(S, "count_large", G),
            KernelDecl::new(S, "fill_large", G),
            KernelDecl::new(S, "check_kept", G),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        NeighbourKernels {
            drop_removed: k(0),
            keep: k(1),
            count: k(2),
            check: k(3),
            fill: k(4),
            finish: k(5),
            keep_large: k(6),
            count_large: k(7),
            fill_large: k(8),
            check_kept: k(9),
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
            d.b.pos.first(),
            &d.nbr_count,
            &d.nbr_start,
            d.nbr.first(),
            d.pos_ref.first(),
            d.nbr_hist.first(),
            &d.kept_row,
            d.kept_nbr.first(),
            d.kept_hist.first(),
            &d.new_at,
            &d.old_index,
            d.b.motion.first(),
        ];
        let paged = [
            ("nbr", &d.nbr),
            ("nbr_hist", &d.nbr_hist),
            ("kept_nbr", &d.kept_nbr),
            ("kept_hist", &d.kept_hist),
            ("pos_rad", &d.b.pos),
            ("pos_ref", &d.pos_ref),
            ("motion", &d.b.motion),
        ];
        NeighbourBinds {
            groups: [
                self.fill.bind(ctx, 0, &g0),
                self.fill.bind_paged(ctx, 1, &g1, &paged),
            ],
            scan: sort.bind_scan(ctx, &d.list_scan, &d.nbr_count, &d.nbr_start),
        }
    }

    /// Records the stage; `surfaces`: the deforming surfaces' kernels and
    /// bind group, whose `mark_surfaces_built` records the nodes the list is
    /// built at, before `finish_build` clears the rebuild flag.
    pub fn encode(
        &self,
        b: &NeighbourBinds,
        sort: &SortKernels,
        sb: &SortBinds,
        surfaces: (&SurfaceKernels, &SurfaceBinds),
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        let g = [(0, &b.groups[0]), (1, &b.groups[1])];
        let particles = d.args_for(Over::Particles);
        // the one-thread kernels, launched on a rebuild step only
        let one = d.args_for(Over::Fixed(1));
        // the large particles' rows, a workgroup each (only a grid with
        // large levels has any), on a rebuild step only
        let large = |pass: &mut wgpu::ComputePass, k: &Kernel| {
            if d.large_levels > 0 {
                let n = LARGE_GROUPS as u64 * super::layout::WG as u64;
                dispatch_indirect(pass, k, &g, d.args_for(Over::Fixed(n)));
            }
        };
        dispatch_indirect(pass, &self.drop_removed, &g, one);
        dispatch_indirect(pass, &self.keep, &g, particles);
        large(pass, &self.keep_large);
        dispatch_indirect(pass, &self.check_kept, &g, one);
        dispatch_indirect(pass, &self.count, &g, particles);
        large(pass, &self.count_large);
        // the scan binds its own groups: set ours again after it
        sort.encode_scan_levels(&sb.common, &b.scan, &d.list_scan, pass, d);
        dispatch_indirect(pass, &self.check, &g, one);
        dispatch_indirect(pass, &self.fill, &g, particles);
        large(pass, &self.fill_large);
        surfaces.0.encode_mark(surfaces.1, pass, d);
        dispatch_indirect(pass, &self.finish, &g, one);
    }
}
