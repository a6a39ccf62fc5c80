//! talus's studies, built on the engine (`talus`): the validation cases
//! and their report ([`validate`], `talus validate`), what a finished run
//! measured ([`analyze`], `talus analyze`) and the benchmark beds with the
//! bandwidth yardstick ([`bench`], `talus bench`).

pub mod analyze;
pub mod bench;
pub mod validate;

/// The repository's root (the shipped scenes, meshes and LIGGGHTS results
/// the cases read), as this crate was built from.
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
