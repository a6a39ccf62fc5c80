//! The clumps' kernels on the GPU (`shaders/clumps.wgsl`), twin of
//! `cpu::clumps`, over the buffers of `gpu::clump_data` (the clumps'
//! table, the rows table, the shapes' members) and each row's `MemberRow`
//! (its clump, member index and lever: a per-row array the rebuild's
//! reorder moves with the row; `gpu::clump_out` reads them back). Members are spheres to every
//! other stage: bin, sort, the list (which keeps a clump's members off each
//! other's rows: they share its id), contacts (a member's lever adds to
//! its body's 1/M at each contact), diagnostics (a member counts its
//! contacts' energy, the clump its motion).
//!
//! Within integrate: `integrate` leaves member rows alone; `clump_bodies`
//! (a thread per clump) reduces the members' forces in member order and
//! moves the body; `clump_members` (a thread per row) re-poses the
//! members. On a step that rebuilds, `clump_rows_follow` points the rows
//! table at the rows' new places after the reorder.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch, dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};

pub struct ClumpKernels {
    pub bodies: Kernel,
    pub members: Kernel,
    pub follow: Kernel,
}

/// The bind groups of a run with clumps.
pub struct ClumpBinds {
    pub bodies: [wgpu::BindGroup; 2],
    pub members: [wgpu::BindGroup; 2],
    pub follow: [wgpu::BindGroup; 2],
}

impl ClumpKernels {
    /// `clump_bodies`, `clump_members`, `clump_rows_follow`. Group 0:
    /// params, ctl, the clumps, the rows table, the shapes' members, the
    /// work records, the reference positions, the outlets, the flow log;
    /// group 1: the rows' pos, diss, motion, pos_fx, clump_row.
    pub const DECLS: [KernelDecl; 3] = {
        const S: &str = "clumps.wgsl";
        use super::kernel::N;
        const BODIES: &[&[Access]] = &[&[U, RW, RW, RW, R, RW, N, R, RW], &[N, RW, N, N, N]];
        const MEMBERS: &[&[Access]] = &[&[U, RW, RW, N, R, RW, R, N, N], &[RW, RW, RW, RW, RW]];
        const FOLLOW: &[&[Access]] = &[&[N, RW, RW, RW, N, N, N, N, N], &[N, N, N, N, RW]];
        [
            KernelDecl::new(S, "clump_bodies", BODIES),
            KernelDecl::new(S, "clump_members", MEMBERS),
            KernelDecl::new(S, "clump_rows_follow", FOLLOW),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        let k = |i: usize| Kernel::new(ctx, module, &Self::DECLS[i]);
        ClumpKernels {
            bodies: k(0),
            members: k(1),
            follow: k(2),
        }
    }

    /// None for a run without clumps (no clump kernel is recorded).
    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> Option<ClumpBinds> {
        if d.clumps.count == 0 {
            return None;
        }
        let (b, c) = (&d.b, &d.clumps);
        let g0 = [
            &d.params,
            &d.ctl,
            &c.table,
            &c.rows,
            &c.members,
            d.acc.first(),
            d.pos_ref.first(),
            &d.flow.outlets,
            &d.flow.log,
        ];
        let g1 = [
            b.pos.first(),
            b.diss.first(),
            b.motion.first(),
            b.pos_fx.first(),
            b.clump_row.first(),
        ];
        let pages = d.moving_pages();
        Some(ClumpBinds {
            bodies: [
                self.bodies.bind_paged(ctx, 0, &g0, &pages),
                self.bodies.bind_paged(ctx, 1, &g1, &pages),
            ],
            members: [
                self.members.bind_paged(ctx, 0, &g0, &pages),
                self.members.bind_paged(ctx, 1, &g1, &pages),
            ],
            follow: [
                self.follow.bind_paged(ctx, 0, &g0, &pages),
                self.follow.bind_paged(ctx, 1, &g1, &pages),
            ],
        })
    }

    /// The clumps' part of integrate (after `integrate`, before
    /// `finish_step`): the bodies (a thread per clump of the table, which
    /// keeps those outlets took), then their members (a thread per active
    /// row).
    pub fn encode_step(&self, b: &ClumpBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch(
            pass,
            &self.bodies,
            &[(0, &b.bodies[0]), (1, &b.bodies[1])],
            d.clumps.count,
        );
        dispatch_indirect(
            pass,
            &self.members,
            &[(0, &b.members[0]), (1, &b.members[1])],
            d.args_for(Over::EveryStep),
        );
    }

    /// After the sort's reorder on a step that rebuilds: the rows table
    /// follows the rows.
    pub fn encode_follow(&self, b: &ClumpBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_indirect(
            pass,
            &self.follow,
            &[(0, &b.follow[0]), (1, &b.follow[1])],
            d.args_for(Over::Particles),
        );
    }
}
