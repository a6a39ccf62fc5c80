//! Stage 4, contacts (`shaders/contacts.wgsl`): gather over the neighbour
//! list, particle candidates and the wall primitives within reach; reads
//! set B, updates the history beside each list entry in place, writes
//! force and torque.

use super::context::GpuContext;
use super::data::{GpuData, Over};
use super::kernel::{dispatch_indirect, Kernel, KernelDecl, R, RW, U};

pub struct ContactKernels {
    pub contacts: Kernel,
}

pub struct ContactBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
    pub g2: wgpu::BindGroup,
}

impl ContactKernels {
    /// `contacts`.
    pub const DECLS: [KernelDecl; 1] = [KernelDecl::new(
        "contacts.wgsl",
        "contacts",
        &[&[U, RW, R, RW, R, R], &[R, R], &[RW, RW, RW]],
    )];

    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        ContactKernels {
            contacts: Kernel::new(ctx, module, &Self::DECLS[0]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> ContactBinds {
        let b = &d.b;
        let k = &self.contacts;
        ContactBinds {
            g0: k.bind(
                ctx,
                0,
                &[&d.params, &d.ctl, &d.nbr_start, &d.nbr, &d.pairs, &d.walls],
            ),
            g1: k.bind(ctx, 1, &[&b.pos, &b.motion]),
            g2: k.bind(ctx, 2, &[&d.force, &d.torque, &d.nbr_hist]),
        }
    }

    pub fn encode(&self, c: &ContactBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch_indirect(
            pass,
            &self.contacts,
            &[(0, &c.g0), (1, &c.g1), (2, &c.g2)],
            d.args_for(Over::EveryStep),
        );
    }
}
