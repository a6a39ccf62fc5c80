//! The tables a run appends rows to (`energy.csv`, `flow.csv`,
//! `walls.csv`, `bodies.csv`): each created with its header, or continued
//! after a checkpoint (cut back to the length the checkpoint recorded, so
//! nothing is written twice, then appended to). Every write is flushed, so
//! a table is complete up to the last output even when a run stops early.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// An I/O error and the file it happened on.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// `r`'s error with `path` attached.
pub fn at_path<T>(r: std::io::Result<T>, path: &Path) -> Result<T, WriteError> {
    r.map_err(|source| WriteError {
        path: path.to_path_buf(),
        source,
    })
}

/// One table file, open for appending rows.
pub struct Table {
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl Table {
    /// Opens `path`: when `resume` > 0 and the file exists, cut back to
    /// `resume` bytes and appended to; otherwise created (truncated) with
    /// the `header` line.
    pub fn open(path: &Path, header: &str, resume: u64) -> Result<Table, WriteError> {
        if resume > 0 && path.exists() {
            let f = std::fs::OpenOptions::new().write(true).open(path);
            at_path(at_path(f, path)?.set_len(resume), path)?;
            let f = std::fs::OpenOptions::new().append(true).open(path);
            return Ok(Table {
                path: path.to_path_buf(),
                out: std::io::BufWriter::new(at_path(f, path)?),
            });
        }
        let f = at_path(std::fs::File::create(path), path)?;
        let mut t = Table {
            path: path.to_path_buf(),
            out: std::io::BufWriter::new(f),
        };
        t.write(&format!("{header}\n"))?;
        Ok(t)
    }

    /// Appends `rows` (whole lines, each ending in `\n`) and flushes.
    pub fn write(&mut self, rows: &str) -> Result<(), WriteError> {
        at_path(self.out.write_all(rows.as_bytes()), &self.path)?;
        at_path(self.out.flush(), &self.path)
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A CSV field: as is, or quoted (quotes doubled) when it holds a comma, a
/// quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_table_is_cut_back_and_continued() {
        let dir = std::env::temp_dir().join(format!("talus_table_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        let mut t = Table::open(&path, "a,b", 0).unwrap();
        t.write("1,2\n").unwrap();
        let at = std::fs::metadata(&path).unwrap().len();
        t.write("3,4\n").unwrap();
        drop(t);
        let mut t = Table::open(&path, "a,b", at).unwrap();
        t.write("5,6\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n5,6\n");
        // a length of 0 (nothing recorded) starts afresh
        let mut t = Table::open(&path, "a,b", 0).unwrap();
        t.write("7,8\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n7,8\n");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("q\""), "\"q\"\"\"");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
