//! The bandwidth yardstick of `talus bench`: how many bytes per second the
//! device reads and writes, through the engine's compute copy
//! (`talus::gpu::copy`) and through wgpu's `copy_buffer_to_buffer` (the
//! copy engine).

use super::median;
use talus::gpu::GpuContext;

/// Bytes read + written per second, median of three timed runs of five
/// copies, each way.
#[derive(Debug, Clone, Copy)]
pub struct Bandwidth {
    /// Through the compute kernel.
    pub compute: f64,
    /// Through `copy_buffer_to_buffer`.
    pub copy_engine: f64,
}

impl Bandwidth {
    /// The larger of the two: what memory-bound kernels can reach.
    pub fn best(&self) -> f64 {
        self.compute.max(self.copy_engine)
    }
}

/// Device-to-device bandwidth over two buffers of up to 512 MiB (and no
/// more than one storage binding), both ways: the yardstick for a
/// memory-bound step.
pub fn bandwidth(ctx: &GpuContext) -> Bandwidth {
    let size = (512u64 << 20).min(ctx.max_binding()) / 256 * 256;
    let mk = |label| {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (a, b) = (mk("copy src"), mk("copy dst"));
    let kernel = talus::gpu::copy::CopyKernel::new(ctx);
    let time = |record: &dyn Fn(&mut wgpu::CommandEncoder, u32)| {
        let run = |reps: u32| {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            record(&mut enc, reps);
            ctx.queue.submit([enc.finish()]);
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .expect("GPU device lost");
        };
        run(1);
        let mut times: Vec<f64> = (0..3)
            .map(|_| {
                let t = std::time::Instant::now();
                run(5);
                t.elapsed().as_secs_f64()
            })
            .collect();
        2.0 * size as f64 * 5.0 / median(&mut times)
    };
    Bandwidth {
        compute: time(&|enc, reps| kernel.encode(ctx, enc, &a, &b, reps)),
        copy_engine: time(&|enc, reps| {
            for _ in 0..reps {
                enc.copy_buffer_to_buffer(&a, 0, &b, 0, size);
            }
        }),
    }
}
