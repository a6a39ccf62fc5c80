//! Files in and out: particle CSV, VTK snapshots, energy table, summary,
//! wall loads and wall geometry.

pub mod bodies;
pub mod csv;
pub mod vtk;
pub mod walls;
