//! Backends for the validation scenes: CPU, or GPU on one shared device.

use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{GpuBackend, GpuContext};
use talus::scene::Scene;

/// Makes a backend for a scene.
pub trait Maker {
    fn name(&self) -> &'static str;
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String>;
}

pub struct CpuMaker;

impl Maker for CpuMaker {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(CpuBackend::new(scene)?))
    }
}

/// GPU backends on one device (the context's handles are shared, not
/// re-opened per scene).
pub struct GpuMaker {
    pub ctx: GpuContext,
}

impl Maker for GpuMaker {
    fn name(&self) -> &'static str {
        "gpu"
    }
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(
            GpuBackend::new(scene, self.ctx.share()).map_err(|e| e.to_string())?,
        ))
    }
}
