//! A compute kernel: one pipeline plus the bind-group layouts its entry
//! point was declared with. Built once; bind groups are made once per set of
//! buffers (`GpuBindings`), so kernels stay apart from data.

use super::context::GpuContext;
use super::layout::WG;
use super::pages::{self, Found, Paged, PagedDecl, Paging};

/// A compiled shader module, with the paged arrays its source declares
/// and the paging it was generated for.
pub struct Module {
    pub module: wgpu::ShaderModule,
    pub paged: Vec<Found>,
    pub paging: Paging,
}

impl Module {
    /// Compiles shader file `name` for `paging`.
    pub fn new(ctx: &GpuContext, name: &str, paging: &Paging) -> Module {
        let src = super::shaders::source_for(name, paging, ctx.pairs);
        Module::from_source(ctx, name, src, paging)
    }

    /// Compiles a full source (`label` names it) generated for `paging`.
    pub fn from_source(ctx: &GpuContext, label: &str, src: String, paging: &Paging) -> Module {
        let paged = pages::find(&src);
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            });
        Module {
            module,
            paged,
            paging: *paging,
        }
    }
}

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

/// Pages 1.. of a paged array a kernel binds: in the group of page 0, at
/// bindings `first`, `first + 1`, ...
#[derive(Debug, Clone, Copy)]
pub struct PagedBinding {
    pub decl: PagedDecl,
    /// Pages in all.
    pub count: u32,
    pub group: u32,
    pub first: u32,
    pub read_only: bool,
}

pub struct Kernel {
    pub label: &'static str,
    pub pipeline: wgpu::ComputePipeline,
    /// Layout per group index (None: the entry point uses no such group).
    pub layouts: Vec<Option<wgpu::BindGroupLayout>>,
    /// The declared access per group and binding.
    pub groups: &'static [&'static [Access]],
    /// The paged arrays whose pages 1.. it binds (beside page 0).
    pub paged: Vec<PagedBinding>,
}

impl Kernel {
    /// The pipeline of `decl` from `module` (built from `decl.shader`).
    pub fn new(ctx: &GpuContext, m: &Module, decl: &KernelDecl) -> Kernel {
        let (entry, groups) = (decl.entry, decl.groups);
        let storage = |read_only: bool| wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        // pages 1.. of the paged arrays the entry point binds, in the group
        // of page 0 with its access
        let mut paged = Vec::new();
        let firsts = pages::first_bindings(&m.paged, &m.paging);
        for (f, &first) in m.paged.iter().zip(&firsts) {
            let access = groups
                .get(f.group as usize)
                .and_then(|g| g.get(f.binding as usize))
                .copied()
                .unwrap_or(Access::Unused);
            let (_, count) = m.paging.of(f.decl.family);
            if access != Access::Unused && count > 1 {
                paged.push(PagedBinding {
                    decl: f.decl,
                    count,
                    group: f.group,
                    first,
                    read_only: access == Access::Read,
                });
            }
        }
        let layouts: Vec<Option<wgpu::BindGroupLayout>> = groups
            .iter()
            .enumerate()
            .map(|(g, acc)| {
                if acc.iter().all(|a| *a == Access::Unused) {
                    return None;
                }
                let mut entries: Vec<wgpu::BindGroupLayoutEntry> = acc
                    .iter()
                    .enumerate()
                    .filter_map(|(b, a)| {
                        let ty = match a {
                            Access::Uniform => wgpu::BindingType::Buffer {
                                ty: wgpu::BufferBindingType::Uniform,
                                has_dynamic_offset: false,
                                min_binding_size: None,
                            },
                            Access::Read => storage(true),
                            Access::ReadWrite => storage(false),
                            Access::Unused => return None,
                        };
                        Some(wgpu::BindGroupLayoutEntry {
                            binding: b as u32,
                            visibility: wgpu::ShaderStages::COMPUTE,
                            ty,
                            count: None,
                        })
                    })
                    .collect();
                for pb in paged.iter().filter(|pb| pb.group == g as u32) {
                    for p in 1..pb.count {
                        entries.push(wgpu::BindGroupLayoutEntry {
                            binding: pb.first + p - 1,
                            visibility: wgpu::ShaderStages::COMPUTE,
                            ty: storage(pb.read_only),
                            count: None,
                        });
                    }
                }
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
                module: &m.module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        Kernel {
            label: entry,
            pipeline,
            layouts,
            groups,
            paged,
        }
    }

    /// A bind group for group `g` over `buffers` (in binding order).
    /// `buffers` in binding order; those of `Unused` bindings are left out.
    pub fn bind(&self, ctx: &GpuContext, g: usize, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        self.bind_paged(ctx, g, buffers, &[])
    }

    /// [`Kernel::bind`] with the pages 1.. of the paged arrays group `g`
    /// holds (`arrays`: each by its shader name; `buffers` give page 0).
    pub fn bind_paged(
        &self,
        ctx: &GpuContext,
        g: usize,
        buffers: &[&wgpu::Buffer],
        arrays: &[(&str, &Paged)],
    ) -> wgpu::BindGroup {
        let ranges: Vec<wgpu::BufferBinding> = buffers.iter().map(|b| whole(b)).collect();
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
        let mut entries = entries;
        for pb in self.paged.iter().filter(|pb| pb.group == g as u32) {
            let a = arrays
                .iter()
                .find(|(n, _)| *n == pb.decl.name)
                .unwrap_or_else(|| panic!("{}: no pages given for {}", self.label, pb.decl.name))
                .1;
            assert_eq!(
                a.pages.len() as u32,
                pb.count,
                "{}: {} has {} pages, the kernel was built for {}",
                self.label,
                pb.decl.name,
                a.pages.len(),
                pb.count
            );
            for p in 1..pb.count {
                entries.push(wgpu::BindGroupEntry {
                    binding: pb.first + p - 1,
                    resource: wgpu::BindingResource::Buffer(whole(&a.pages[p as usize])),
                });
            }
        }
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

#[cfg(feature = "test-kernels")]
/// A test kernel over cases given as data (bindings: the `Params`
/// uniform, the cases, the outputs): what the twin tests run a WGSL
/// function through (`law::LawEval`, `bonds::BondEval`). Not part of a
/// step.
pub struct CaseEval {
    pub kernel: Kernel,
    entry: &'static str,
}

#[cfg(feature = "test-kernels")]
impl CaseEval {
    /// `decl`'s kernel compiled from a full source (its file as
    /// `shaders` assembles it, possibly altered: the twin tests perturb a
    /// function to show they would notice).
    pub fn from_source(ctx: &GpuContext, decl: &KernelDecl, src: &str) -> Self {
        let module = Module::from_source(ctx, decl.shader, src.to_string(), &Paging::single());
        CaseEval {
            kernel: Kernel::new(ctx, &module, decl),
            entry: decl.entry,
        }
    }

    /// The kernel over every case under `params`, in order. Allocates its
    /// buffers and waits for the device: a test tool, not a step.
    pub fn eval<C: bytemuck::Pod, O: bytemuck::Pod>(
        &self,
        ctx: &GpuContext,
        params: &super::layout::Params,
        cases: &[C],
    ) -> Vec<O> {
        use wgpu::util::DeviceExt;
        let init = |label, contents: &[u8], usage| {
            ctx.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        let p = init(
            "case params",
            bytemuck::bytes_of(params),
            wgpu::BufferUsages::UNIFORM,
        );
        let c = init(
            "cases",
            bytemuck::cast_slice(cases),
            wgpu::BufferUsages::STORAGE,
        );
        eval_once(ctx, &self.kernel, self.entry, &[&p, &c], cases.len())
    }
}

/// A test kernel over `count` cases, once: group 0 bound to `inputs` then a
/// fresh output array of `count` `O`s, one dispatch, the outputs read back
/// (allocates and waits for the device: the twin tests' evaluators
/// `CaseEval`, `wall_eval.rs`, `rotor_eval.rs`, not a step).
#[cfg(feature = "test-kernels")]
pub fn eval_once<O: bytemuck::Pod>(
    ctx: &GpuContext,
    kernel: &Kernel,
    label: &str,
    inputs: &[&wgpu::Buffer],
    count: usize,
) -> Vec<O> {
    if count == 0 {
        return Vec::new();
    }
    let dev = &ctx.device;
    let bytes = (count * std::mem::size_of::<O>()) as u64;
    let mk = |usage| {
        dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(256),
            usage,
            mapped_at_creation: false,
        })
    };
    let out = mk(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
    let back = mk(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
    let mut bound = inputs.to_vec();
    bound.push(&out);
    let bg = kernel.bind(ctx, 0, &bound);
    let mut enc = dev.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: None,
        });
        dispatch(&mut pass, kernel, &[(0, &bg)], count as u64);
    }
    enc.copy_buffer_to_buffer(&out, 0, &back, 0, bytes);
    ctx.queue.submit([enc.finish()]);
    let slice = back.slice(..bytes);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("map a test kernel's outputs")
    });
    dev.poll(wgpu::PollType::wait_indefinitely())
        .expect("GPU device lost");
    let v = bytemuck::pod_collect_to_vec(&slice.get_mapped_range().expect("mapped"));
    back.unmap();
    v
}
