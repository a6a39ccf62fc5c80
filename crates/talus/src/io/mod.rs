//! Files in and out: particle CSV, VTK snapshots, energy table, summary,
//! wall loads and wall geometry, a run directory's scene.

pub mod bodies;
pub mod bonds;
pub mod csv;
pub mod run_dir;
pub mod series;
pub mod table;
pub mod vtk;
pub mod walls;
