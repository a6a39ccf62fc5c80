//! Backends for the validation scenes: CPU, or GPU on one shared device.

use talus::backend::Backend;
use talus::cpu::CpuBackend;
use talus::gpu::{GpuBackend, GpuContext};
use talus::scene::Scene;
use talus::Setup;

/// Makes a backend for a scene.
pub trait Maker {
    fn name(&self) -> &'static str;

    /// A backend for `setup`: a case that reads the run's dt or step
    /// count resolves one [`Setup`] and takes both from it.
    fn make_setup(&mut self, setup: &Setup) -> Result<Box<dyn Backend>, String>;

    /// A backend for `scene`, resolving its [`Setup`] first (a case that
    /// needs nothing else from it).
    fn make(&mut self, scene: &Scene) -> Result<Box<dyn Backend>, String> {
        let setup = Setup::new(scene.clone()).map_err(|e| e.to_string())?;
        self.make_setup(&setup)
    }
}

pub struct CpuMaker;

impl Maker for CpuMaker {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn make_setup(&mut self, setup: &Setup) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(CpuBackend::from_setup(setup)?))
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
    fn make_setup(&mut self, setup: &Setup) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(
            GpuBackend::from_setup(setup, self.ctx.share()).map_err(|e| e.to_string())?,
        ))
    }
}
