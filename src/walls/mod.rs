//! Walls: the one model of wall geometry that the scene resolves into and
//! both backends use. A scene wall becomes one or more *primitives*
//! ([`Primitive`]: a kind tag, a material, the wall it belongs to, and up
//! to three points or vectors of geometry); the only thing a backend asks
//! of a primitive is its gap to a sphere centre ([`geometry::gap`]; on the
//! GPU `shaders/walls.wgsl`'s `wall_gap`), so a new kind (cylinder, cone,
//! triangle of a mesh) is a new arm there and touches neither the pair law
//! nor the neighbour list. Primitives near a particle are entries of its
//! neighbour-list row, with their tangential history beside the entry like
//! a pair's (docs/ARCHITECTURE.md, "Walls").
//!
//! | file | job |
//! |------|-----|
//! | `primitive.rs` | `Primitive`, `Kind`, the scene's walls resolved into primitives |
//! | `geometry.rs` | the gap between a sphere centre and a primitive (CPU, f64) |
//! | `motion.rs` | a wall's pose at time t (prescribed motion + servo), frame maps, reach |
//! | `mesh_grid.rs` | a mesh's static grid of triangles in its body frame |

pub mod geometry;
pub mod mesh_grid;
pub mod motion;
pub mod primitive;

pub use geometry::{gap, on_triangle, Feature, WallGap};
pub use mesh_grid::MeshGrid;
pub use motion::{pose_at, reach, Pose};
pub use primitive::{primitives, Kind, Primitive};
