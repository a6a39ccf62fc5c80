//! Files in and out: particle CSV, VTK snapshots, energy table, summary.

pub mod csv;
pub mod vtk;
