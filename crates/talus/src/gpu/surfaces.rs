//! The FEM bodies' deforming surfaces on the device (`shaders/surfaces.wgsl`;
//! the CPU twin is `walls::surface` with `WallSet::pose_surfaces`).
//! Between two exchanges with the bodies every surface node moves on a
//! straight line that the device knows for the whole interval (x0, v,
//! step0), so a step needs nothing from the host: `move_surfaces` (after
//! integrate's `move_walls`) poses every surface triangle's primitive at
//! the next step and sets the rebuild flag when a node has moved more than
//! skin / 2 since the last build; `mark_surfaces_built` (in the neighbours
//! stage of a rebuild, before `finish_build`) records the nodes the list
//! was built at. The contact stage adds each contact's force on a surface
//! triangle to its nodes as 64-bit fixed point with integer atomics
//! (`add_fixed` in `shaders/contacts.wgsl`): exact sums, the same in any
//! order, no float atomics. The host reads them at an exchange
//! ([`node_forces`]).

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch, dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};
use glam::DVec3;

pub struct SurfaceKernels {
    pub move_surfaces: Kernel,
    pub mark_built: Kernel,
}

/// The one bind group both kernels share (group 0: params, ctl,
/// surf_info, walls, surf_nodes, surf_tris).
pub struct SurfaceBinds {
    pub g0: wgpu::BindGroup,
}

impl SurfaceKernels {
    /// `move_surfaces`, `mark_surfaces_built`: one layout (4 storage
    /// buffers).
    pub const DECLS: [KernelDecl; 2] = {
        const S: &str = "surfaces.wgsl";
        const G: &[&[Access]] = &[&[U, RW, U, RW, RW, R]];
        [
            KernelDecl::new(S, "move_surfaces", G),
            KernelDecl::new(S, "mark_surfaces_built", G),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        SurfaceKernels {
            move_surfaces: Kernel::new(ctx, module, &Self::DECLS[0]),
            mark_built: Kernel::new(ctx, module, &Self::DECLS[1]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> SurfaceBinds {
        let g0 = [
            &d.params,
            &d.ctl,
            &d.surf_info,
            &d.walls,
            &d.surf_nodes,
            &d.surf_tris,
        ];
        SurfaceBinds {
            g0: self.move_surfaces.bind(ctx, 0, &g0),
        }
    }

    /// Records `move_surfaces` (a thread per surface triangle; nothing
    /// without surfaces).
    pub fn encode_move(&self, b: &SurfaceBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        if d.n_surf_tris > 0 {
            dispatch(pass, &self.move_surfaces, &[(0, &b.g0)], d.n_surf_tris);
        }
    }

    /// Records `mark_surfaces_built` (a thread per node, launched only on a
    /// step that rebuilds: its indirect slot is a rebuild one).
    pub fn encode_mark(&self, b: &SurfaceBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        if d.n_surf_nodes > 0 {
            dispatch_indirect(
                pass,
                &self.mark_built,
                &[(0, &b.g0)],
                d.args_for(Over::Fixed(d.n_surf_nodes)),
            );
        }
    }
}

/// The nodes' forces (N) from the device's words ([`super::data::surf_force_words`]):
/// each (lo, hi) pair as an i64 over `scale`; and whether the overflow
/// word is set.
pub fn node_forces(words: &[u32], nodes: usize, scale: f64) -> (Vec<DVec3>, bool) {
    let fixed = |k: usize| {
        let (lo, hi) = (words[k] as u64, words[k + 1] as u64);
        ((hi << 32) | lo) as i64 as f64 / scale
    };
    let f = (0..nodes)
        .map(|n| DVec3::new(fixed(6 * n), fixed(6 * n + 2), fixed(6 * n + 4)))
        .collect();
    (f, words[6 * nodes] != 0)
}
