//! The renderer: spheres as camera-facing impostors (one instanced quad a
//! particle; the fragment shader intersects the eye ray with the sphere and
//! writes its true depth), the walls as flat-shaded triangles blended over
//! them, an optional clip plane. One per device, on the simulation's own
//! [`GpuContext`]; pipelines built once, buffers grown as needed.
//!
//! Two sources of particles, one pipeline: a host [`Frame`]
//! ([`Renderer::set_frame`]: positions and the scalar coloured by uploaded
//! into the renderer's own buffers), or a live simulation
//! ([`Renderer::bind_simulation`]: the vertex shader reads the backend's set
//! B positions directly, and a small compute pass, `view_scalar`, writes
//! the scalar from its motion records; nothing is read back).
//!
//! Shaders: `view_common.wgsl` (uniforms) before `view_spheres.wgsl` and
//! `view_walls.wgsl`; `view_scalar.wgsl` stands alone ([`shader_sources`],
//! validated with naga in `tests/shaders.rs`).

use super::camera::Camera;
use super::colormap::{self, ColorBy, Legend};
use super::frame::Frame;
use talus::gpu::context::GpuContext;
use talus::gpu::kernel::{Kernel, KernelDecl, R, RW, U};
use talus::gpu::GpuBackend;
use wgpu::util::DeviceExt;

/// Files prepended to others, not modules of their own.
pub const SHADER_INCLUDES: [&str; 1] = ["view_common.wgsl"];

/// `(file name, full source)` of every viewer shader module.
pub fn shader_sources() -> Vec<(&'static str, String)> {
    let common = include_str!("../shaders/view_common.wgsl");
    vec![
        (
            "view_spheres.wgsl",
            format!("{common}\n{}", include_str!("../shaders/view_spheres.wgsl")),
        ),
        (
            "view_walls.wgsl",
            format!("{common}\n{}", include_str!("../shaders/view_walls.wgsl")),
        ),
        (
            "view_scalar.wgsl",
            include_str!("../shaders/view_scalar.wgsl").to_string(),
        ),
    ]
}

fn shader_source(name: &str) -> String {
    shader_sources()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no viewer shader named {name}"))
}

/// The live path's compute kernel: uniform parameters, set B's positions
/// and motion records, the renderer's scalar buffer (checked against the
/// shader in `tests/shaders.rs`).
pub const SCALAR_DECL: KernelDecl =
    KernelDecl::new("view_scalar.wgsl", "view_scalar", &[&[U, R, R, RW]]);

/// Threads per workgroup of `view_scalar` (its `VIEW_WG`).
const VIEW_WG: u64 = 64;

/// Entries of the continuous colour map and of the categorical table, as
/// `view_common.wgsl`'s `N_MAP`, `N_CAT`.
pub const N_MAP: usize = 256;
pub const N_CAT: usize = 16;

/// The bits of a scalar whose particle is not drawn (`HIDDEN`).
const HIDDEN: u32 = u32::MAX;

/// `view_common.wgsl`'s `Globals`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Globals {
    pub view_proj: [[f32; 4]; 4],
    pub eye: [f32; 4],
    pub clip: [f32; 4],
    pub legend: [f32; 4],
    pub viewport: [f32; 4],
}

/// `view_scalar.wgsl`'s `ScalarParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ScalarParams {
    n: u32,
    by: u32,
    pad: [u32; 2],
}

/// The code `view_scalar` computes for a field.
fn by_code(by: ColorBy) -> u32 {
    match by {
        ColorBy::Speed => 0,
        ColorBy::Material => 1,
        ColorBy::Id => 2,
        ColorBy::Radius => 3,
        ColorBy::Height => 4,
    }
}

/// The colour tables as the shaders read them: the continuous map, then
/// `N_CAT` categorical colours.
pub fn color_table() -> Vec<[f32; 4]> {
    let mut t = colormap::table();
    t.resize(N_MAP, [1.0; 4]);
    t.extend((0..N_CAT as u32).map(colormap::categorical));
    t
}

/// The depth format the renderer draws with.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// A vertex of a wall triangle.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct WallVertex {
    pos: [f32; 3],
    wall: u32,
}

/// Which particles the next draw shows.
enum Source {
    /// The renderer's own position buffer.
    Host,
    /// A simulation's set B (the bind group holds its position buffer).
    Simulation(wgpu::BindGroup),
}

pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    format: wgpu::TextureFormat,
    sphere_pipe: wgpu::RenderPipeline,
    wall_pipe: wgpu::RenderPipeline,
    sphere_layout: wgpu::BindGroupLayout,
    wall_bind: wgpu::BindGroup,
    scalar_kernel: Kernel,
    globals: wgpu::Buffer,
    colors: wgpu::Buffer,
    scalar_params: wgpu::Buffer,
    /// Host path: positions (x, y, z, r), `pos_cap` particles.
    pos: wgpu::Buffer,
    pos_cap: u64,
    /// The scalar coloured by (f32 bits), `scalar_cap` particles.
    scalar: wgpu::Buffer,
    scalar_cap: u64,
    host_bind: wgpu::BindGroup,
    source: Source,
    /// Whether the live view has said that it draws only the first page
    /// of a simulation's particles.
    said_first_page: bool,
    walls: wgpu::Buffer,
    wall_cap: u64,
    wall_vertices: u32,
    count: u32,
    legend: [f32; 4],
    /// The clip plane (n, d): what has n·p + d > 0 is hidden (spheres by
    /// their centre, walls per pixel).
    pub clip: Option<[f32; 4]>,
    /// The clear colour (linear for an sRGB target).
    pub background: wgpu::Color,
}

fn storage(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(16),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn entry(
    binding: u32,
    vis: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: vis,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A neutral dark grey (sRGB).
pub const BACKGROUND: [f64; 3] = [0.11, 0.11, 0.12];

impl Renderer {
    /// Pipelines for colour targets of `format` (an sRGB format gets
    /// linearised colours) with [`DEPTH_FORMAT`] depth.
    pub fn new(ctx: &GpuContext, format: wgpu::TextureFormat) -> Renderer {
        let device = &ctx.device;
        let module = |name: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::Wgsl(shader_source(name).into()),
            })
        };
        let spheres = module("view_spheres.wgsl");
        let walls_mod = module("view_walls.wgsl");
        let vf = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let read = wgpu::BufferBindingType::Storage { read_only: true };
        let sphere_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("view spheres"),
            entries: &[
                entry(0, vf, wgpu::BufferBindingType::Uniform),
                entry(1, wgpu::ShaderStages::VERTEX, read),
                entry(2, wgpu::ShaderStages::VERTEX, read),
                entry(3, wgpu::ShaderStages::VERTEX, read),
            ],
        });
        let wall_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("view walls"),
            entries: &[entry(0, vf, wgpu::BufferBindingType::Uniform)],
        });
        let pipe_layout = |l: &wgpu::BindGroupLayout, label: &str| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(l)],
                immediate_size: 0,
            })
        };
        let depth = |write: bool| wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        };
        let sphere_pipe = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("view spheres"),
            layout: Some(&pipe_layout(&sphere_layout, "view spheres")),
            vertex: wgpu::VertexState {
                module: &spheres,
                entry_point: Some("vs_sphere"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(depth(true)),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &spheres,
                entry_point: Some("fs_sphere"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let wall_pipe = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("view walls"),
            layout: Some(&pipe_layout(&wall_layout, "view walls")),
            vertex: wgpu::VertexState {
                module: &walls_mod,
                entry_point: Some("vs_wall"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<WallVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Uint32],
                })],
            },
            primitive: wgpu::PrimitiveState::default(),
            // blended over the spheres: tested against their depth, writing none
            depth_stencil: Some(depth(false)),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &walls_mod,
                entry_point: Some("fs_wall"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState {
                        color: wgpu::BlendComponent {
                            src_factor: wgpu::BlendFactor::SrcAlpha,
                            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                            operation: wgpu::BlendOperation::Add,
                        },
                        alpha: wgpu::BlendComponent::OVER,
                    }),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let scalar_module = talus::gpu::kernel::Module::from_source(
            ctx,
            "view_scalar.wgsl",
            shader_source("view_scalar.wgsl"),
            &talus::gpu::pages::Paging::single(),
        );
        let scalar_kernel = Kernel::new(ctx, &scalar_module, &SCALAR_DECL);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("view globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let colors = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("view colours"),
            contents: bytemuck::cast_slice(&color_table()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let scalar_params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("view scalar params"),
            size: std::mem::size_of::<ScalarParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let wall_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("view walls"),
            layout: &wall_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let pos = storage(device, "view positions", 16);
        let scalar = storage(device, "view scalar", 16);
        let walls = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("view wall vertices"),
            size: 16 * 3,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // the clear colour is linear for an sRGB target
        let srgb = format.is_srgb();
        let bg = BACKGROUND.map(|c| {
            if srgb {
                colormap::srgb_to_linear(c as f32) as f64
            } else {
                c
            }
        });
        let mut r = Renderer {
            device: device.clone(),
            queue: ctx.queue.clone(),
            format,
            sphere_pipe,
            wall_pipe,
            host_bind: wall_bind.clone(),
            sphere_layout,
            wall_bind,
            scalar_kernel,
            globals,
            colors,
            scalar_params,
            pos,
            pos_cap: 1,
            scalar,
            scalar_cap: 1,
            source: Source::Host,
            said_first_page: false,
            walls,
            wall_cap: 1,
            wall_vertices: 0,
            count: 0,
            legend: [0.0, 1.0, 0.0, 0.0],
            clip: None,
            background: wgpu::Color {
                r: bg[0],
                g: bg[1],
                b: bg[2],
                a: 1.0,
            },
        };
        r.host_bind = r.sphere_bind(&r.pos);
        r
    }

    /// The colour format the pipelines draw into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Particles the next draw shows (removed ones included, not drawn).
    pub fn count(&self) -> u32 {
        self.count
    }

    fn sphere_bind(&self, pos: &wgpu::Buffer) -> wgpu::BindGroup {
        fn b(i: u32, buf: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding: i,
                resource: buf.as_entire_binding(),
            }
        }
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("view spheres"),
            layout: &self.sphere_layout,
            entries: &[
                b(0, &self.globals),
                b(1, &self.colors),
                b(2, pos),
                b(3, &self.scalar),
            ],
        })
    }

    /// Room for `n` scalars (the bind groups over the old buffer are
    /// rebuilt by the callers).
    fn ensure_scalar(&mut self, n: u64) -> bool {
        if n <= self.scalar_cap {
            return false;
        }
        let cap = n.max(self.scalar_cap * 3 / 2);
        self.scalar = storage(&self.device, "view scalar", cap * 4);
        self.scalar_cap = cap;
        true
    }

    fn set_legend(&mut self, by: ColorBy, legend: &Legend) {
        self.legend = [
            legend.min,
            legend.max,
            if by.is_categorical() { 1.0 } else { 0.0 },
            0.0,
        ];
    }

    /// Shows `frame`'s particles (uploaded into the renderer's own buffers)
    /// and walls, coloured by `by` over `legend`'s range.
    pub fn set_frame(&mut self, frame: &Frame, by: ColorBy, legend: &Legend) {
        let n = frame.len() as u64;
        let grown_pos = n > self.pos_cap;
        if grown_pos {
            let cap = n.max(self.pos_cap * 3 / 2);
            self.pos = storage(&self.device, "view positions", cap * 16);
            self.pos_cap = cap;
        }
        let grown = self.ensure_scalar(n);
        if grown_pos || grown || !matches!(self.source, Source::Host) {
            self.host_bind = self.sphere_bind(&self.pos);
        }
        self.source = Source::Host;
        let values = frame.scalar(by);
        let bits: Vec<u32> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if frame.id.get(i) == Some(&talus::gpu::layout::NONE) {
                    HIDDEN
                } else {
                    v.to_bits()
                }
            })
            .collect();
        if n > 0 {
            self.queue
                .write_buffer(&self.pos, 0, bytemuck::cast_slice(&frame.pos_rad));
            self.queue
                .write_buffer(&self.scalar, 0, bytemuck::cast_slice(&bits));
        }
        self.count = n as u32;
        self.set_legend(by, legend);
        self.set_walls(&frame.walls);
    }

    /// The wall triangles (world frame, with each one's wall index).
    pub fn set_walls(&mut self, tris: &[([[f32; 3]; 3], u32)]) {
        let verts: Vec<WallVertex> = tris
            .iter()
            .flat_map(|(t, w)| t.iter().map(|&pos| WallVertex { pos, wall: *w }))
            .collect();
        let n = verts.len() as u64;
        if n > self.wall_cap * 3 {
            let cap = (n / 3).max(self.wall_cap * 3 / 2);
            self.walls = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("view wall vertices"),
                size: cap * 3 * std::mem::size_of::<WallVertex>() as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.wall_cap = cap;
        }
        if n > 0 {
            self.queue
                .write_buffer(&self.walls, 0, bytemuck::cast_slice(&verts));
        }
        self.wall_vertices = n as u32;
    }

    /// Shows the simulation's particles as they are on its device: the
    /// vertex shader reads set B's positions, and a compute pass
    /// (`view_scalar`, submitted here) writes the scalar `by` from set B
    /// into the renderer's buffer; nothing is read back. The count is
    /// `data.n` (the host's, known after each `advance`); particles marked
    /// removed are not drawn. Call again after every `advance` (the
    /// backend may have reallocated its buffers). Walls: [`Self::set_walls`].
    /// A simulation whose particles span several pages (more than one
    /// storage binding holds: ~3·10⁷ on an NVIDIA card) shows its first
    /// page's, and says so once.
    pub fn bind_simulation(&mut self, sim: &GpuBackend, by: ColorBy, legend: &Legend) {
        let d = &sim.data;
        let page = d.b.pos.per_page;
        if d.n > page && !self.said_first_page {
            eprintln!(
                "the live view draws the first {page} of {} particles (one storage binding); the snapshots hold all",
                d.n
            );
            self.said_first_page = true;
        }
        let n = d.n.min(page);
        self.ensure_scalar(d.cap.min(page).max(n).max(1));
        self.source = Source::Simulation(self.sphere_bind(d.b.pos.first()));
        self.count = n as u32;
        self.set_legend(by, legend);
        if n == 0 {
            return;
        }
        let params = ScalarParams {
            n: n as u32,
            by: by_code(by),
            pad: [0; 2],
        };
        self.queue
            .write_buffer(&self.scalar_params, 0, bytemuck::bytes_of(&params));
        let bind = self.scalar_kernel.bind(
            &sim.ctx,
            0,
            &[
                &self.scalar_params,
                d.b.pos.first(),
                d.b.motion.first(),
                &self.scalar,
            ],
        );
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("view scalar"),
            });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("view scalar"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.scalar_kernel.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            let g = n.div_ceil(VIEW_WG);
            let x = g.min(65_535);
            pass.dispatch_workgroups(x as u32, g.div_ceil(x) as u32, 1);
        }
        self.queue.submit([enc.finish()]);
    }

    /// Records one render pass into `color_view` (cleared to
    /// [`Self::background`]) and `depth_view` ([`DEPTH_FORMAT`], cleared):
    /// spheres, then the walls blended over them. The camera's uniforms
    /// are written through the queue, so two draws recorded into one
    /// encoder before a submit both see the last camera.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        color_view: &wgpu::TextureView,
        depth_view: &wgpu::TextureView,
        width: u32,
        height: u32,
        camera: &Camera,
    ) {
        let aspect = width as f32 / height.max(1) as f32;
        let eye = camera.eye();
        let (clip, on) = match self.clip {
            Some(c) => (c, 1.0),
            None => ([0.0; 4], 0.0),
        };
        let mut legend = self.legend;
        legend[3] = on;
        let g = Globals {
            view_proj: camera.view_proj(aspect).to_cols_array_2d(),
            eye: [
                eye.x,
                eye.y,
                eye.z,
                if self.format.is_srgb() { 0.0 } else { 1.0 },
            ],
            clip,
            legend,
            viewport: [width as f32, height as f32, self.count as f32, 0.0],
        };
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("view"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(self.background),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if self.count > 0 {
            let bind = match &self.source {
                Source::Host => &self.host_bind,
                Source::Simulation(b) => b,
            };
            pass.set_pipeline(&self.sphere_pipe);
            pass.set_bind_group(0, bind, &[]);
            pass.draw(0..6, 0..self.count);
        }
        if self.wall_vertices > 0 {
            pass.set_pipeline(&self.wall_pipe);
            pass.set_bind_group(0, &self.wall_bind, &[]);
            pass.set_vertex_buffer(0, self.walls.slice(..));
            pass.draw(0..self.wall_vertices, 0..1);
        }
    }
}
