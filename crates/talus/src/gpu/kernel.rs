//! A compute kernel: one pipeline plus the bind-group layouts its entry
//! point was declared with. Built once; bind groups are made once per set of
//! buffers (`GpuBindings`), so kernels stay apart from data.

use super::context::GpuContext;
use super::layout::WG;

/// How a binding is used by the shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Uniform,
    Read,
    ReadWrite,
    /// Not in this kernel's layout: its entry point does not use the
    /// binding (kernels of one shader share binding numbers, not layouts,
    /// so each binds only what it uses).
    Unused,
}
pub use Access::{Read as R, ReadWrite as RW, Uniform as U, Unused as N};

/// What a kernel is, without a device: its shader file, entry point and
/// the access of each binding per group (`groups[g][b]`; an empty slice:
/// the entry point uses no group g). `tests/shaders.rs` checks every
/// declaration against the shader's own declarations with naga, and that
/// every entry point of every shader is declared once.
#[derive(Debug, Clone, Copy)]
pub struct KernelDecl {
    pub shader: &'static str,
    pub entry: &'static str,
    pub groups: &'static [&'static [Access]],
}

impl KernelDecl {
    pub const fn new(
        shader: &'static str,
        entry: &'static str,
        groups: &'static [&'static [Access]],
    ) -> KernelDecl {
        KernelDecl {
            shader,
            entry,
            groups,
        }
    }
}

pub struct Kernel {
    pub label: &'static str,
    pub pipeline: wgpu::ComputePipeline,
    /// Layout per group index (None: the entry point uses no such group).
    pub layouts: Vec<Option<wgpu::BindGroupLayout>>,
    /// The declared access per group and binding.
    pub groups: &'static [&'static [Access]],
}

impl Kernel {
    /// The pipeline of `decl` from `module` (built from `decl.shader`).
    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule, decl: &KernelDecl) -> Kernel {
        let (entry, groups) = (decl.entry, decl.groups);
        let layouts: Vec<Option<wgpu::BindGroupLayout>> = groups
            .iter()
            .enumerate()
            .map(|(g, acc)| {
                if acc.iter().all(|a| *a == Access::Unused) {
                    return None;
                }
                let entries: Vec<wgpu::BindGroupLayoutEntry> = acc
                    .iter()
                    .enumerate()
                    .filter_map(|(b, a)| {
                        let ty = match a {
                            Access::Uniform => wgpu::BufferBindingType::Uniform,
                            Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                            Access::ReadWrite => {
                                wgpu::BufferBindingType::Storage { read_only: false }
                            }
                            Access::Unused => return None,
                        };
                        Some(wgpu::BindGroupLayoutEntry {
                            binding: b as u32,
                            visibility: wgpu::ShaderStages::COMPUTE,
                            ty: wgpu::BindingType::Buffer {
                                ty,
                                has_dynamic_offset: false,
                                min_binding_size: None,
                            },
                            count: None,
                        })
                    })
                    .collect();
                let label = format!("{entry} group {g}");
                Some(
                    ctx.device
                        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some(&label),
                            entries: &entries,
                        }),
                )
            })
            .collect();
        let refs: Vec<Option<&wgpu::BindGroupLayout>> =
            layouts.iter().map(|l| l.as_ref()).collect();
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(entry),
                bind_group_layouts: &refs,
                immediate_size: 0,
            });
        let pipeline = ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&layout),
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        Kernel {
            label: entry,
            pipeline,
            layouts,
            groups,
        }
    }

    /// A bind group for group `g` over `buffers` (in binding order).
    /// `buffers` in binding order; those of `Unused` bindings are left out.
    pub fn bind(&self, ctx: &GpuContext, g: usize, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let whole: Vec<wgpu::BufferBinding> = buffers.iter().map(|b| whole(b)).collect();
        self.bind_ranges(ctx, g, &whole)
    }

    /// [`Kernel::bind`] over buffer ranges (a buffer larger than one
    /// binding is bound as several: `data::hist_pages`).
    pub fn bind_ranges(
        &self,
        ctx: &GpuContext,
        g: usize,
        ranges: &[wgpu::BufferBinding],
    ) -> wgpu::BindGroup {
        let layout = self.layouts[g]
            .as_ref()
            .unwrap_or_else(|| panic!("{}: group {g} is not used", self.label));
        let acc = self.groups[g];
        let entries: Vec<wgpu::BindGroupEntry> = ranges
            .iter()
            .enumerate()
            .filter(|(b, _)| acc.get(*b) != Some(&Access::Unused))
            .map(|(b, r)| wgpu::BindGroupEntry {
                binding: b as u32,
                resource: wgpu::BindingResource::Buffer(r.clone()),
            })
            .collect();
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.label),
            layout,
            entries: &entries,
        })
    }
}

/// All of `buffer` as one binding.
pub fn whole(buffer: &wgpu::Buffer) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: None,
    }
}

/// Workgroups for `n` invocations of [`WG`], as a 2-D grid when more than
/// 65 535 groups are needed (the shaders' `flat_index` undoes it).
pub fn groups(n: u64) -> (u32, u32) {
    let g = n.div_ceil(WG as u64).max(1);
    let x = g.min(65_535);
    let y = g.div_ceil(x);
    (x as u32, y as u32)
}

/// Records a dispatch of a rebuild kernel (bin, sort, neighbours) with its
/// workgroup counts read from `args` = (buffer, byte offset): zero on a
/// step that does not rebuild (`GpuData::args_for` gives the slot of a
/// dispatch size).
pub fn dispatch_indirect(
    pass: &mut wgpu::ComputePass,
    k: &Kernel,
    bgs: &[(u32, &wgpu::BindGroup)],
    args: (&wgpu::Buffer, u64),
) {
    set(pass, k, bgs);
    pass.dispatch_workgroups_indirect(args.0, args.1);
}

/// Sets `k`'s pipeline and the bind groups, ahead of a dispatch.
fn set(pass: &mut wgpu::ComputePass, k: &Kernel, bgs: &[(u32, &wgpu::BindGroup)]) {
    pass.set_pipeline(&k.pipeline);
    for (g, bg) in bgs {
        pass.set_bind_group(*g, *bg, &[]);
    }
}

/// Records one dispatch of `k` over `n` invocations with the bind groups.
pub fn dispatch(pass: &mut wgpu::ComputePass, k: &Kernel, bgs: &[(u32, &wgpu::BindGroup)], n: u64) {
    set(pass, k, bgs);
    let (x, y) = groups(n);
    pass.dispatch_workgroups(x, y, 1);
}
