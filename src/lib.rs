//! talus: a discrete element method (DEM) simulator for granular materials.
//!
//! The step is a fixed list of stages — bin → sort → contacts → integrate →
//! diagnostics — implemented by the f64 CPU reference path ([`cpu`]) and
//! (next) the f32 GPU path on the same data layout ([`state`]). See
//! `docs/ARCHITECTURE.md`.

pub mod backend;
pub mod bench;
pub mod cpu;
pub mod gpu;
pub mod grid;
pub mod io;
pub mod pair;
pub mod rng;
pub mod run;
pub mod scene;
pub mod state;
pub mod timestep;
pub mod validate;
pub mod walls;

pub use backend::{Backend, RunError, RunErrorKind};
pub use scene::{Material, Scene, SceneBuilder, SceneError};
