//! Walls: the one model of wall geometry that the scene resolves into and
//! both backends use. A scene wall becomes one or more *primitives*
//! ([`Primitive`]: a kind tag, a material, the wall it belongs to, and up
//! to three points or vectors of geometry); the only thing a backend asks
//! of a primitive is its gap to a sphere centre ([`geometry::gap`]; on the
//! GPU `shaders/walls.wgsl`'s `wall_gap`), so a new kind is a new arm
//! there and touches neither the pair law nor the neighbour list.
//! Primitives near a particle are entries of its neighbour-list row, with
//! their tangential history beside the entry like a pair's
//! (docs/ARCHITECTURE.md, "Walls"). A scene wall at run time is a *body*
//! ([`WallBody`]): its primitives, a mesh's grid, its motion, servo, pose
//! and load.
//!
//! | file | job |
//! |------|-----|
//! | `primitive.rs` | `Primitive`, `Kind`, the scene's walls resolved into primitives |
//! | `geometry.rs` | the gap between a sphere centre and a primitive (CPU, f64) |
//! | `motion.rs` | a wall's pose at a time: prescribed motion and servo offset |
//! | `mesh_grid.rs` | a mesh's triangles by cell of its body frame |
//! | `set.rs` | the walls of a run: primitives, bodies, poses, servos, loads |
//! | `edit.rs` | walls inserted, removed or re-moved between advances: a checkpoint's wall references remapped |
//! | `surface.rs` | the FEM bodies' surfaces: triangles whose vertices move between exchanges, the grains' forces on their nodes |

pub mod edit;
pub mod geometry;
pub mod mesh_grid;
pub mod motion;
pub mod primitive;
pub mod set;
pub mod surface;

pub use edit::WallEdit;
pub use geometry::{gap, on_triangle, Feature, WallGap};
pub use mesh_grid::MeshGrid;
pub use motion::{pose_at, reach, Pose};
pub use primitive::{Kind, Primitive};
pub use set::{primitives, LoadSum, WallBody, WallLoad, WallSet};
