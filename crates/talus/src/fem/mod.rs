//! Deformable bodies: finite-element tetrahedral meshes on the CPU (f64),
//! coupled to the grains of either backend through their surface
//! triangles. See `docs/ARCHITECTURE.md`, "FEM bodies".

pub mod body;
pub mod build;
pub mod contact;
pub mod coupling;
pub mod element;
pub mod error;
pub mod material;
pub mod mesh;
pub mod midpoint;
pub mod msh;
pub mod solve;
