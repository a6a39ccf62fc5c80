//! The ghosts' exchange of a run on several ranks (`shaders/ghosts.wgsl`;
//! driven by `dist::gpu_rank`): `ghost_pack` gathers the listed particles'
//! refresh rows (f32 position, motion record, fixed-point position:
//! [`GHOST_WORDS`] words, 104 bytes; in a run with clumps the part in a
//! clump too, [`GHOST_PART_WORDS`] more) into one buffer the host reads once,
//! `ghost_unpack` scatters the rows received into the listed ghosts. Not a
//! stage: a run on one device never calls it.

use super::context::GpuContext;
use super::data::GpuData;
use super::kernel::{dispatch, Kernel, KernelDecl, R, RW};
pub use super::layout::{GHOST, GHOST_PART_WORDS, GHOST_WORDS};

/// The list's count word's flag: its rows carry the parts in clumps.
const GHOST_PARTS: u32 = 0x8000_0000;

pub struct GhostKernels {
    pub pack: Kernel,
    pub unpack: Kernel,
}

/// One direction's buffers: the list `[count, index…]` and the rows.
pub struct GhostList {
    pub list: wgpu::Buffer,
    pub rows: wgpu::Buffer,
    /// Particles the buffers hold room for.
    pub cap: u64,
    /// Particles listed now.
    pub count: u64,
}

impl GhostList {
    pub fn new(ctx: &GpuContext, label: &str, cap: u64) -> Self {
        let cap = cap.max(64);
        let buf = |what: &str, bytes: u64| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&format!("{label} {what}")),
                size: bytes.next_multiple_of(16),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        GhostList {
            list: buf("list", 4 * (cap + 1)),
            rows: buf("rows", 4 * (GHOST_WORDS + GHOST_PART_WORDS) as u64 * cap),
            cap,
            count: 0,
        }
    }

    /// Lists `index` (grown when it does not fit: true, the bind groups
    /// over it must be made again), its rows with the parts in clumps when
    /// `parts`.
    pub fn set(&mut self, ctx: &GpuContext, label: &str, index: &[u32], parts: bool) -> bool {
        let n = index.len() as u64;
        let grown = n > self.cap;
        if grown {
            *self = GhostList::new(ctx, label, n.max(self.cap * 3 / 2));
        }
        let mut w = Vec::with_capacity(index.len() + 1);
        w.push(index.len() as u32 | if parts { GHOST_PARTS } else { 0 });
        w.extend_from_slice(index);
        ctx.queue
            .write_buffer(&self.list, 0, bytemuck::cast_slice(&w));
        self.count = n;
        grown
    }
}

impl GhostKernels {
    /// `ghost_pack`, `ghost_unpack`: group 0 the list and the rows, group 1
    /// the positions, motion records, fixed-point positions and parts in
    /// clumps (paged).
    pub const DECLS: [KernelDecl; 2] = {
        const G: &[&[super::kernel::Access]] = &[&[R, RW], &[RW, RW, RW, RW]];
        [
            KernelDecl::new("ghosts.wgsl", "ghost_pack", G),
            KernelDecl::new("ghosts.wgsl", "ghost_unpack", G),
        ]
    };

    pub fn new(ctx: &GpuContext, module: &super::kernel::Module) -> Self {
        GhostKernels {
            pack: Kernel::new(ctx, module, &Self::DECLS[0]),
            unpack: Kernel::new(ctx, module, &Self::DECLS[1]),
        }
    }

    /// The bind groups over `l` (group 0) and `d`'s particles (group 1).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        l: &GhostList,
        d: &GpuData,
    ) -> (wgpu::BindGroup, wgpu::BindGroup) {
        let b = &d.b;
        let pages = [
            ("pos", &b.pos),
            ("motion", &b.motion),
            ("posfx", &b.pos_fx),
            ("clump_row", &b.clump_row),
        ];
        let k = &self.pack;
        (
            k.bind(ctx, 0, &[&l.list, &l.rows]),
            k.bind_paged(
                ctx,
                1,
                &[
                    b.pos.first(),
                    b.motion.first(),
                    b.pos_fx.first(),
                    b.clump_row.first(),
                ],
                &pages,
            ),
        )
    }

    /// Records `ghost_pack` (`pack`) or `ghost_unpack` over `count`
    /// listed particles.
    pub fn encode(
        &self,
        pass: &mut wgpu::ComputePass,
        pack: bool,
        groups: &(wgpu::BindGroup, wgpu::BindGroup),
        count: u64,
    ) {
        if count == 0 {
            return;
        }
        let k = if pack { &self.pack } else { &self.unpack };
        dispatch(pass, k, &[(0, &groups.0), (1, &groups.1)], count);
    }
}
