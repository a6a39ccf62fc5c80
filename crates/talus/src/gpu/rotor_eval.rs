//! The clumps' rotation alone on the GPU (`shaders/rotor_eval.wgsl`, with
//! `rotor.wgsl` prepended: the rotation the clumps' integration is to run),
//! over free tops given as data. Not part of a step: the GPU half of the
//! rotation's twin test against `shapes::rotation` (`tests/gpu.rs`,
//! `gpu_rotor_matches_cpu_rotor`).

use super::context::GpuContext;
use super::kernel::{dispatch, Kernel, KernelDecl, R, RW};
use super::layout::{RotorCase, RotorOut};
use wgpu::util::DeviceExt;

pub struct RotorEval {
    pub kernel: Kernel,
}

impl RotorEval {
    /// `rotor_eval`.
    pub const DECLS: [KernelDecl; 1] = [KernelDecl::new(
        "rotor_eval.wgsl",
        "rotor_eval",
        &[&[R, RW]],
    )];

    pub fn new(ctx: &GpuContext) -> Self {
        let module = super::kernel::Module::from_source(
            ctx,
            "rotor_eval.wgsl",
            super::shaders::source("rotor_eval.wgsl"),
            &super::pages::Paging::single(),
        );
        RotorEval {
            kernel: Kernel::new(ctx, &module, &Self::DECLS[0]),
        }
    }

    /// Every case run to its end, in order. Allocates its buffers and waits
    /// for the device: a test tool, not a step.
    pub fn eval(&self, ctx: &GpuContext, cases: &[RotorCase]) -> Vec<RotorOut> {
        let dev = &ctx.device;
        let c = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("rotor cases"),
            contents: bytemuck::cast_slice(cases),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let bytes = (cases.len() * std::mem::size_of::<RotorOut>()) as u64;
        let mk = |label, usage| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(256),
                usage,
                mapped_at_creation: false,
            })
        };
        let out = mk(
            "rotor outputs",
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let back = mk(
            "rotor readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let bg = self.kernel.bind(ctx, 0, &[&c, &out]);
        let mut enc = dev.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("rotor_eval"),
                timestamp_writes: None,
            });
            dispatch(&mut pass, &self.kernel, &[(0, &bg)], cases.len() as u64);
        }
        enc.copy_buffer_to_buffer(&out, 0, &back, 0, bytes);
        ctx.queue.submit([enc.finish()]);
        let slice = back.slice(..bytes);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map rotor outputs"));
        dev.poll(wgpu::PollType::wait_indefinitely())
            .expect("GPU device lost");
        let v = bytemuck::pod_collect_to_vec(&slice.get_mapped_range().expect("mapped"));
        back.unmap();
        v
    }
}
