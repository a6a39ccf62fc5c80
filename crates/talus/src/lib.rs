//! talus: a discrete element method (DEM) simulator for granular materials.
//!
//! The step is a fixed list of stages ([`backend::Stage`]): bin → sort →
//! neighbours → contacts → integrate (→ diagnostics), implemented by the
//! f64 CPU reference path ([`cpu`]) and the f32 GPU path ([`gpu`], wgpu and
//! WGSL) on the same data layout ([`state`]); walls are primitives of one
//! model ([`walls`]) listed beside a particle's partners. See
//! `docs/ARCHITECTURE.md`.

pub mod backend;
pub mod checkpoint;
pub mod cpu;
pub mod fem;
pub mod flow;
pub mod gpu;
pub mod grid;
pub mod io;
pub mod pair;
pub mod rng;
pub mod run;
pub mod scene;
pub mod state;
pub mod timestep;
pub mod walls;

pub use backend::{Backend, RunError, RunErrorKind};
pub use scene::{Material, Scene, SceneBuilder, SceneError};
