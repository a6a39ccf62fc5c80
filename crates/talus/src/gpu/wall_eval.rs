//! Wall geometry and motion alone on the GPU (`shaders/wall_eval.wgsl`,
//! with `walls.wgsl` prepended: the same `wall_gap`, `on_triangle`,
//! `pose_at`, `to_body`, `dir_to_world` and `wall_velocity_at` the step
//! runs), over a batch of inputs given as data. Not part of a step: the
//! GPU half of the walls' twin test against `walls::gap` and
//! `walls::motion` (`tests/gpu_walls.rs`).

use super::context::GpuContext;
use super::kernel::{dispatch, Kernel, KernelDecl, R, RW};
use super::layout::{WallCase, WallOut};
use wgpu::util::DeviceExt;

pub struct WallEval {
    pub kernel: Kernel,
}

impl WallEval {
    /// `wall_eval`.
    pub const DECLS: [KernelDecl; 1] =
        [KernelDecl::new("wall_eval.wgsl", "wall_eval", &[&[R, RW]])];

    pub fn new(ctx: &GpuContext) -> Self {
        let src = super::shaders::source("wall_eval.wgsl");
        let module = super::kernel::Module::from_source(
            ctx,
            "wall_eval.wgsl",
            src.to_string(),
            &super::pages::Paging::single(),
        );
        WallEval {
            kernel: Kernel::new(ctx, &module, &Self::DECLS[0]),
        }
    }

    /// Every case's outputs, in order. Allocates its buffers and waits for
    /// the device: a test tool, not a step.
    pub fn eval(&self, ctx: &GpuContext, cases: &[WallCase]) -> Vec<WallOut> {
        if cases.is_empty() {
            return Vec::new();
        }
        let dev = &ctx.device;
        let c = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("wall cases"),
            contents: bytemuck::cast_slice(cases),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let out_bytes = (cases.len() * std::mem::size_of::<WallOut>()) as u64;
        let mk = |label, usage| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: out_bytes.max(256),
                usage,
                mapped_at_creation: false,
            })
        };
        let out = mk(
            "wall outputs",
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let back = mk(
            "wall readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let bg = self.kernel.bind(ctx, 0, &[&c, &out]);
        let mut enc = dev.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wall_eval"),
                timestamp_writes: None,
            });
            dispatch(&mut pass, &self.kernel, &[(0, &bg)], cases.len() as u64);
        }
        enc.copy_buffer_to_buffer(&out, 0, &back, 0, out_bytes);
        ctx.queue.submit([enc.finish()]);
        let slice = back.slice(..out_bytes);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map wall outputs"));
        dev.poll(wgpu::PollType::wait_indefinitely())
            .expect("GPU device lost");
        let v = bytemuck::pod_collect_to_vec(&slice.get_mapped_range().expect("mapped"));
        back.unmap();
        v
    }
}
