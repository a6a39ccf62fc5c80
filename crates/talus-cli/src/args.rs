//! What several commands share: the backend choice, loading a scene with
//! the command line's overrides, and the one-line failure.

use clap::ValueEnum;
use std::path::Path;
use std::process::ExitCode;
use talus::scene::{End, Scene};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// The GPU when one is found, otherwise the CPU.
    Auto,
    Gpu,
    Cpu,
}

pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::FAILURE
}

pub fn load(path: &Path, steps: Option<u64>, duration: Option<f64>) -> Result<Scene, String> {
    // Command-line overrides first: they are wrong whatever the scene says.
    if steps == Some(0) {
        return Err(format!(
            "{}: --steps: expected at least 1 step, got 0",
            path.display()
        ));
    }
    if let Some(t) = duration {
        if !(t > 0.0 && t.is_finite()) {
            return Err(format!(
                "{}: --duration: expected a time > 0 s, got {t}",
                path.display()
            ));
        }
    }
    let mut scene = Scene::load(path).map_err(|e| e.to_string())?;
    if let Some(n) = steps {
        scene.simulation.end = End::Steps(n);
    }
    if let Some(t) = duration {
        scene.simulation.end = End::Duration(t);
    }
    Ok(scene)
}
