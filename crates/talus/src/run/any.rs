//! A backend chosen at run time, as a value whose kind its caller can
//! still see: the CLI runs either path through one type, and the live
//! view finds the GPU backend's buffers in it to draw from.

use crate::backend::Backend;
use crate::cpu::CpuBackend;
use crate::gpu::GpuBackend;

/// The CPU or the GPU path, or rank 0 of a run on several ranks.
pub enum AnyBackend {
    Cpu(Box<CpuBackend>),
    Gpu(Box<GpuBackend>),
    Ranks(Box<dyn Backend>),
}

impl std::ops::Deref for AnyBackend {
    type Target = dyn Backend;
    fn deref(&self) -> &(dyn Backend + 'static) {
        match self {
            AnyBackend::Cpu(b) => b.as_ref(),
            AnyBackend::Gpu(b) => b.as_ref(),
            AnyBackend::Ranks(b) => b.as_ref(),
        }
    }
}

impl std::ops::DerefMut for AnyBackend {
    fn deref_mut(&mut self) -> &mut (dyn Backend + 'static) {
        match self {
            AnyBackend::Cpu(b) => b.as_mut(),
            AnyBackend::Gpu(b) => b.as_mut(),
            AnyBackend::Ranks(b) => b.as_mut(),
        }
    }
}

crate::forward_backend!([] AnyBackend);
