//! Stage 1, bin (`shaders/bin.wgsl`): cell key per particle, count per cell.

use super::context::GpuContext;
use super::data::GpuData;
use super::kernel::{dispatch, dispatch_rebuild, Kernel, R, RW, U};

pub struct BinKernels {
    /// First of every step: the rebuild kernels' workgroup counts.
    pub arm: Kernel,
    pub clear: Kernel,
    pub bin: Kernel,
}

pub struct BinBinds {
    pub group: wgpu::BindGroup,
    /// `arm_rebuild`'s group 1: `full_args`, `args`.
    pub arm: wgpu::BindGroup,
}

impl BinKernels {
    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        let g: &[super::kernel::Access] = &[U, R, R, RW, RW];
        BinKernels {
            arm: Kernel::new(ctx, module, "arm_rebuild", &[g, &[R, RW]]),
            clear: Kernel::new(ctx, module, "clear_counts", &[g]),
            bin: Kernel::new(ctx, module, "bin", &[g]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> BinBinds {
        BinBinds {
            group: self
                .bin
                .bind(ctx, 0, &[&d.params, &d.ctl, &d.b.pos, &d.keys, &d.counts]),
            arm: self.arm.bind(ctx, 1, &[&d.full_args, &d.args]),
        }
    }

    /// Zeroes the counts (used again by the sort as the scatter cursor).
    pub fn encode_clear(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_rebuild(
            pass,
            &self.clear,
            &[(0, &b.group)],
            d.rebuild_args(d.n_cells + 1),
        );
    }

    /// Arms the rebuild kernels' dispatches for this step (full or empty,
    /// from the rebuild flag the last integrate left), then bins.
    pub fn encode(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        let words = 3 * d.arg_sizes.len() as u64;
        dispatch(pass, &self.arm, &[(0, &b.group), (1, &b.arm)], words);
        self.encode_clear(b, pass, d);
        dispatch_rebuild(pass, &self.bin, &[(0, &b.group)], d.rebuild_args(d.n));
    }
}
