//! Wall geometry and motion alone on the GPU (`shaders/wall_eval.wgsl`,
//! with `walls.wgsl` prepended: the same `wall_gap`, `on_triangle`,
//! `pose_at`, `to_body`, `dir_to_world` and `wall_velocity_at` the step
//! runs), over a batch of inputs given as data. Not part of a step: the
//! GPU half of the walls' twin test against `walls::gap` and
//! `walls::motion` (`tests/gpu_walls.rs`).

use super::context::GpuContext;
use super::kernel::{eval_once, Kernel, KernelDecl, R, RW};
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
        let c = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("wall cases"),
                contents: bytemuck::cast_slice(cases),
                usage: wgpu::BufferUsages::STORAGE,
            });
        eval_once(ctx, &self.kernel, "wall_eval", &[&c], cases.len())
    }
}
