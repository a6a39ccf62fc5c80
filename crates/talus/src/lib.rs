//! talus: a discrete element method (DEM) simulator for granular materials.
//!
//! The step is a fixed list of stages ([`backend::Stage`]): bin → sort →
//! neighbours → contacts → integrate (→ diagnostics), implemented by the
//! f64 CPU reference path ([`cpu`]) and the f32 GPU path ([`gpu`], wgpu and
//! WGSL) on the same data layout ([`state`]); walls are primitives of one
//! model ([`walls`]) listed beside a particle's partners. A scene
//! ([`scene`]) is resolved once into a [`Setup`] (time step, steps, the
//! bodies' meshes, walls, insertion plan) that both backends are built
//! from. See `docs/ARCHITECTURE.md`.

pub mod backend;
pub mod bonds;
pub mod checkpoint;
pub mod cpu;
pub mod dist;
pub mod fem;
pub mod flow;
pub mod gpu;
pub mod grid;
pub mod io;
pub mod memory;
pub mod pair;
pub mod rng;
pub mod run;
pub mod scene;
pub mod setup;
pub mod shapes;
pub mod state;
pub mod sums;
pub mod text;
pub mod timestep;
pub mod walls;

pub use backend::{Backend, RunError, RunErrorKind};
pub use scene::{Material, Scene, SceneBuilder, SceneError};
pub use setup::Setup;
