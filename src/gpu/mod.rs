//! The GPU path (wgpu/WGSL) arrives with the GPU issue; it will implement the
//! same stages as `src/cpu/` on the same arrays in f32. Until then the
//! backend reports itself unavailable rather than silently falling back.

/// Why no GPU backend can be made in this build.
pub const UNAVAILABLE: &str =
    "the GPU backend is not available in this version of talus yet (the CPU reference path is); use --backend cpu or auto";
