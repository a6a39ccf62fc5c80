//! Opening a run: a scene file read with its hash, a checkpoint to
//! continue checked against the scene, and the backend chosen (`auto`,
//! `gpu`, `cpu`, or the one that wrote the checkpoint). `talus run` and
//! the Python package open runs here, so both choose, refuse and explain
//! alike.

use super::any::AnyBackend;
use crate::checkpoint::{self, Header, Saved};
use crate::cpu::CpuBackend;
use crate::gpu::{GpuBackend, GpuContext};
use crate::scene::Scene;
use crate::setup::Setup;
use std::path::{Path, PathBuf};

/// Which path a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The GPU when a hardware adapter is found, otherwise the CPU (a
    /// checkpoint continues on the path that wrote it).
    Auto,
    Gpu,
    Cpu,
}

impl Choice {
    /// `"auto"`, `"gpu"` or `"cpu"`.
    pub fn parse(s: &str) -> Result<Choice, String> {
        match s {
            "auto" => Ok(Choice::Auto),
            "gpu" => Ok(Choice::Gpu),
            "cpu" => Ok(Choice::Cpu),
            _ => Err(format!(
                "backend: expected \"auto\", \"gpu\" or \"cpu\", got \"{s}\""
            )),
        }
    }
}

/// The hash a checkpoint records of its scene file's bytes.
pub fn file_hash(path: &Path) -> Result<String, String> {
    std::fs::read(path)
        .map(|b| checkpoint::scene_hash(&b))
        .map_err(|e| format!("{}: cannot read scene file: {e}", path.display()))
}

/// A checkpoint a run continues: its directory, header and state.
pub type Ckpt = (PathBuf, Header, Saved);

/// The checkpoint in `dir`, checked against the resolved scene `setup`
/// whose file hashes to `hash`: the same scene file (unless `force`), the
/// same dt (the scene's end: [`before_end`]). Returns it with a note to show
/// when `force` fitted it to a changed scene (materials by name).
pub fn checkpoint_for(
    dir: &Path,
    setup: &Setup,
    hash: &str,
    force: bool,
) -> Result<(Ckpt, Option<String>), String> {
    let (h, saved) = checkpoint::read(dir).map_err(|e| e.to_string())?;
    check_checkpoint(dir, h, saved, setup, hash, force)
}

/// [`checkpoint_for`] of a checkpoint already read from `dir`.
pub fn check_checkpoint(
    dir: &Path,
    h: Header,
    mut saved: Saved,
    setup: &Setup,
    hash: &str,
    force: bool,
) -> Result<(Ckpt, Option<String>), String> {
    if h.scene_hash.ends_with(super::driver::EDITED) && !force {
        return Err(format!(
            "{}: the checkpoint was written after the run's walls were edited (set_wall_motion): the scene file no longer says where they stand or how they move; pass force (--force) to continue with the file's walls",
            dir.display()
        ));
    }
    if h.scene_hash != *hash && !force {
        return Err(format!(
            "{}: the checkpoint was written for scene file {} with other contents (hash {} now {}); resume with the scene as it was, or pass --force to continue with this one",
            dir.display(),
            h.scene_file.as_deref().unwrap_or("(none)"),
            h.scene_hash,
            hash
        ));
    }
    if (h.dt - setup.dt).abs() > 1e-12 * h.dt.abs() {
        return Err(format!(
            "{}: the checkpoint ran with dt = {:e} s, the scene now gives {:e} s; a run cannot change its time step midway",
            dir.display(),
            h.dt,
            setup.dt
        ));
    }
    // what may have changed with --force: materials follow their names, a
    // changed number of walls is refused
    let walls = setup.walls.bodies.len();
    let note = checkpoint::fit_scene(&h, &mut saved, &setup.scene, walls).map_err(|e| {
        let flag = if force { "--force: " } else { "" };
        format!("{}: {flag}{e}", dir.display())
    })?;
    Ok(((dir.to_path_buf(), h, saved), note))
}

/// An error when checkpoint `ckpt` is already at or past the scene's end
/// (`talus run --resume` runs to the scene's end; the Python package runs
/// as far as asked).
pub fn before_end(ckpt: &Ckpt, setup: &Setup) -> Result<(), String> {
    let (dir, h, saved) = ckpt;
    if saved.scalars.step >= setup.steps {
        return Err(format!(
            "{}: the run is already at step {} (t = {:.4e} s), not before step {}: ask for more with --steps or --duration (they count from t = 0)",
            dir.display(),
            saved.scalars.step,
            saved.scalars.step as f64 * h.dt,
            setup.steps
        ));
    }
    Ok(())
}

/// The path a run with checkpoint `ckpt` goes on when asked for `choice`:
/// a checkpoint continues on the backend that wrote it unless told.
pub fn resolve_choice(choice: Choice, ckpt: Option<&Ckpt>) -> Choice {
    match (choice, ckpt.map(|c| c.1.backend.as_str())) {
        (Choice::Auto, Some("cpu")) => Choice::Cpu,
        (Choice::Auto, Some("gpu")) => Choice::Gpu,
        (c, _) => c,
    }
}

/// The CPU backend of `setup`, restored from `ckpt` when given.
pub fn cpu_backend(setup: &Setup, ckpt: Option<&Ckpt>) -> Result<CpuBackend, String> {
    match ckpt {
        Some((_, _, saved)) => CpuBackend::restore_setup(setup, saved),
        None => CpuBackend::from_setup(setup),
    }
}

/// The GPU backend of `setup` on `ctx`, restored from `ckpt` when given.
pub fn gpu_backend(
    setup: &Setup,
    ctx: GpuContext,
    ckpt: Option<&Ckpt>,
) -> Result<GpuBackend, String> {
    match ckpt {
        Some((_, _, saved)) => GpuBackend::restore_setup(setup, ctx, saved),
        None => GpuBackend::from_setup(setup, ctx),
    }
    .map_err(|e| e.to_string())
}

/// The backend `setup` runs on when asked for `choice` on the adapter
/// named by `adapter` (None: the best found), restored from `ckpt` when
/// given, and why it was chosen (`""`, or `" (auto: …)"` to show after
/// its name). `auto` takes a hardware GPU, else the CPU path (a software
/// rasteriser like lavapipe is slower than the CPU path; FEM bodies alone
/// have no grains for a GPU).
pub fn open_backend(
    choice: Choice,
    adapter: Option<&str>,
    setup: &Setup,
    ckpt: Option<&Ckpt>,
) -> Result<(AnyBackend, String), String> {
    let scene: &Scene = &setup.scene;
    let written_by = ckpt.map(|c| c.1.backend.clone());
    let cpu = |why: String| -> Result<(AnyBackend, String), String> {
        Ok((AnyBackend::Cpu(Box::new(cpu_backend(setup, ckpt)?)), why))
    };
    let gpu = |ctx: GpuContext| gpu_backend(setup, ctx, ckpt);
    match resolve_choice(choice, ckpt) {
        Choice::Cpu => cpu(String::new()),
        Choice::Gpu => GpuContext::new(adapter)
            .map_err(|e| e.to_string())
            .and_then(gpu)
            .map(|b| (AnyBackend::Gpu(Box::new(b)), String::new()))
            .map_err(|e| {
                if written_by.as_deref() == Some("gpu") && choice == Choice::Auto {
                    format!("the checkpoint was written by the GPU path (f32) and the GPU cannot continue it here ({e}); pass --backend cpu to continue on the CPU path (within tolerance, not bit for bit)")
                } else {
                    format!("--backend gpu: {e}")
                }
            }),
        // FEM bodies alone: the bodies run on the CPU either way, and the
        // GPU path would only add an exchange with the device a step
        Choice::Auto if scene.particles.is_empty() && scene.inserts.is_empty() => {
            cpu(" (auto: FEM bodies alone, no grains for a GPU)".into())
        }
        Choice::Auto => match GpuContext::new(adapter) {
            Ok(ctx) if ctx.info.device_type == wgpu::DeviceType::Cpu && adapter.is_none() => {
                cpu(format!(
                    " (auto: the only GPU adapter, {}, is a software one)",
                    ctx.info.name
                ))
            }
            Ok(ctx) => gpu(ctx)
                .map(|b| (AnyBackend::Gpu(Box::new(b)), " (auto)".to_string()))
                .or_else(|e| cpu(format!(" (auto: GPU refused: {e})"))),
            Err(e) => cpu(format!(" (auto: {e})")),
        },
    }
}
