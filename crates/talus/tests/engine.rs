//! The engine's integration tests as one binary: each file of `tests/` is
//! a module here (`cargo test -p talus --test engine gpu::` runs
//! `tests/gpu.rs`). One binary links once instead of once per file (~10 s
//! each on a 2-core machine), and its test threads take the next test
//! whichever file it is in, so a long test no longer leaves a core idle
//! while its file's others are done.

#[path = "bonds.rs"]
mod bonds;
#[path = "clumps.rs"]
mod clumps;
mod common;
#[path = "fem.rs"]
mod fem;
#[path = "fixed.rs"]
mod fixed;
#[path = "flow.rs"]
mod flow;
#[path = "gpu.rs"]
mod gpu;
#[path = "gpu_bodies.rs"]
mod gpu_bodies;
#[path = "gpu_bonds.rs"]
mod gpu_bonds;
#[path = "gpu_clumps.rs"]
mod gpu_clumps;
#[path = "gpu_flow.rs"]
mod gpu_flow;
#[path = "gpu_wall_stages.rs"]
mod gpu_wall_stages;
#[path = "gpu_walls.rs"]
mod gpu_walls;
#[path = "order_free.rs"]
mod order_free;
#[path = "physics.rs"]
mod physics;
#[path = "ranks.rs"]
mod ranks;
#[path = "shaders.rs"]
mod shaders;
#[path = "simulation.rs"]
mod simulation;
#[path = "wall_edit.rs"]
mod wall_edit;
#[path = "walls.rs"]
mod walls;
