//! What several commands share: the backend choice, loading a scene with
//! the command line's overrides, and the one-line failure.

use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
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

/// A window run from a script or a test: `talus view` and `talus run
/// --view` close after some frames, save the last one, or draw offscreen.
#[derive(Args, Clone, Debug, Default)]
pub struct Scripted {
    /// Close the window after this many frames (the run goes on).
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Save the last frame drawn to this PNG.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// `talus run --view` only: draw into an offscreen picture of this size
    /// (WIDTHxHEIGHT) instead of a window, the same draws from the
    /// simulation's buffers (no display needed).
    #[arg(long, value_name = "WxH")]
    pub offscreen: Option<String>,
}

impl Scripted {
    /// Whether any was given.
    pub fn any(&self) -> bool {
        self.frames.is_some() || self.screenshot.is_some() || self.offscreen.is_some()
    }

    /// The viewer's options for `run` with these.
    pub fn opts(&self, run: PathBuf) -> Result<talus_view::window::ViewOpts, String> {
        let offscreen = match &self.offscreen {
            Some(v) => Some(
                talus_view::headless::parse_size(v)
                    .map_err(|e| format!("--offscreen \"{v}\": {e}"))?,
            ),
            None => None,
        };
        Ok(talus_view::window::ViewOpts {
            run,
            frames: self.frames,
            offscreen,
            screenshot: self.screenshot.clone(),
            ..Default::default()
        })
    }
}
