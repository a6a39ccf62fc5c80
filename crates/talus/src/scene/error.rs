//! The scene error: one line naming the file, the key (and the line where
//! the TOML gives it) and what was expected.

use std::path::PathBuf;

/// A scene error: one line naming the file, the key (and the line where the
/// TOML gives it) and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}", location(.file, .line), keyed(.key, .message))]
pub struct SceneError {
    pub file: Option<PathBuf>,
    pub line: Option<usize>,
    pub key: String,
    pub message: String,
}

/// `FILE:LINE: `, `FILE: ` or `scene: ` (built in code).
fn location(file: &Option<PathBuf>, line: &Option<usize>) -> String {
    match (file, line) {
        (Some(p), Some(l)) => format!("{}:{}: ", p.display(), l),
        (Some(p), None) => format!("{}: ", p.display()),
        (None, _) => "scene: ".to_string(),
    }
}

/// `KEY: MESSAGE`, or the message alone when no key applies.
fn keyed(key: &str, message: &str) -> String {
    if key.is_empty() {
        message.to_string()
    } else {
        format!("{key}: {message}")
    }
}
