//! Stage 3, contacts (`shaders/contacts.wgsl`): gather over 27 cells and the
//! walls; reads set B and the old history (B), writes force, torque and the
//! new history into set A's history buffers.

use super::context::GpuContext;
use super::data::GpuData;
use super::kernel::{dispatch, Kernel, R, RW, U};

pub struct ContactKernels {
    pub contacts: Kernel,
}

pub struct ContactBinds {
    pub g0: wgpu::BindGroup,
    pub g1: wgpu::BindGroup,
    pub g2: wgpu::BindGroup,
}

impl ContactKernels {
    pub fn new(ctx: &GpuContext, module: &wgpu::ShaderModule) -> Self {
        ContactKernels {
            contacts: Kernel::new(
                ctx,
                module,
                "contacts",
                &[&[U, RW, R, R, R], &[R; 9], &[RW, RW, RW, RW]],
            ),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> ContactBinds {
        let (a, b) = (&d.a, &d.b);
        let k = &self.contacts;
        ContactBinds {
            g0: k.bind(ctx, 0, &[&d.params, &d.ctl, &d.starts, &d.pairs, &d.walls]),
            g1: k.bind(
                ctx,
                1,
                &[
                    &b.pos,
                    &b.vel,
                    &b.omega,
                    &b.material,
                    &b.id,
                    &b.hkey,
                    &b.hdisp,
                    &b.fprev,
                    &b.tprev,
                ],
            ),
            g2: k.bind(ctx, 2, &[&d.force, &d.torque, &a.hkey, &a.hdisp]),
        }
    }

    pub fn encode(&self, c: &ContactBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        dispatch(
            pass,
            &self.contacts,
            &[(0, &c.g0), (1, &c.g1), (2, &c.g2)],
            d.n,
        );
    }
}
