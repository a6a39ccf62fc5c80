//! Gmsh MSH 4.1 reader (placeholder; being written).
