//! Deformable bodies: finite-element tetrahedral meshes on the CPU (f64),
//! coupled to the grains of either backend through their surface
//! triangles. See `docs/ARCHITECTURE.md`, "FEM bodies".

pub mod msh;
