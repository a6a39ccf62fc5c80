//! Backends for the validation scenes: CPU, or GPU on one shared device.

use crate::backend::Backend;
use crate::cpu::CpuBackend;
use crate::gpu::{GpuBackend, GpuContext};
use crate::scene::Scene;

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

impl GpuMaker {
    fn share(&self) -> GpuContext {
        let c = &self.ctx;
        GpuContext {
            instance: c.instance.clone(),
            adapter: c.adapter.clone(),
            device: c.device.clone(),
            queue: c.queue.clone(),
            info: c.info.clone(),
            limits: c.limits.clone(),
        }
    }
}

impl Maker for GpuMaker {
    fn name(&self) -> &'static str {
        "gpu"
    }
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(
            GpuBackend::new(scene, self.share()).map_err(|e| e.to_string())?,
        ))
    }
}
