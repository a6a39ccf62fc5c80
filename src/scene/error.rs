//! The scene error: one line naming the file, the key (and the line where
//! the TOML gives it) and what was expected.

use std::fmt;
use std::path::PathBuf;

/// A scene error: one line naming the file, the key (and the line where the
/// TOML gives it) and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError {
    pub file: Option<PathBuf>,
    pub line: Option<usize>,
    pub key: String,
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(p), Some(l)) => write!(f, "{}:{}: ", p.display(), l)?,
            (Some(p), None) => write!(f, "{}: ", p.display())?,
            (None, _) => write!(f, "scene: ")?,
        }
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for SceneError {}
