//! Stage 1, bin (`shaders/bin.wgsl`): cell key per particle, count per cell.

use super::context::GpuContext;
use super::data::GpuData;
use super::kernel::{dispatch, Kernel, R, RW, U};

pub struct BinKernels {
    pub clear: Kernel,
    pub bin: Kernel,
}

pub struct BinBinds {
    pub group: wgpu::BindGroup,
}

impl BinKernels {
    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        let g: &[super::kernel::Access] = &[U, R, R, RW, RW];
        BinKernels {
            clear: Kernel::new(ctx, module, "clear_counts", &[g]),
            bin: Kernel::new(ctx, module, "bin", &[g]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> BinBinds {
        BinBinds {
            group: self
                .bin
                .bind(ctx, 0, &[&d.params, &d.ctl, &d.b.pos, &d.keys, &d.counts]),
        }
    }

    /// Zeroes the counts (used again by the sort as the scatter cursor).
    pub fn encode_clear(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch(pass, &self.clear, &[(0, &b.group)], d.n_cells + 1);
    }

    pub fn encode(&self, b: &BinBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        self.encode_clear(b, pass, d);
        dispatch(pass, &self.bin, &[(0, &b.group)], d.n);
    }
}
