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

/// A column of a table read back: numbers, or text where any field of
/// it is not a number (`flow.csv`'s outlet names).
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Numbers(Vec<f64>),
    Text(Vec<String>),
}

/// The fields of one CSV line (quoted fields unquoted, doubled quotes
/// single), or why it is malformed.
fn split_csv(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    fields.push(cur);
    Ok(fields)
}

/// A table a run wrote (`energy.csv`, `walls.csv`, …) read back by
/// column, in the header's order: every row must have the header's
/// number of fields. One line on failure, naming the file and line.
pub fn read_table(path: &Path) -> Result<Vec<(String, Column)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines().enumerate();
    let (_, head) = lines
        .next()
        .ok_or_else(|| format!("{}: empty (expected a header line)", path.display()))?;
    let names = split_csv(head).map_err(|e| format!("{}:1: {e}", path.display()))?;
    let mut cells: Vec<Vec<String>> = vec![Vec::new(); names.len()];
    for (i, line) in lines {
        if line.is_empty() {
            continue;
        }
        let f = split_csv(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        if f.len() != names.len() {
            return Err(format!(
                "{}:{}: expected {} fields (the header's), got {}",
                path.display(),
                i + 1,
                names.len(),
                f.len()
            ));
        }
        for (c, v) in cells.iter_mut().zip(f) {
            c.push(v);
        }
    }
    Ok(names
        .into_iter()
        .zip(cells)
        .map(|(n, c)| {
            let nums: Result<Vec<f64>, _> = c.iter().map(|v| v.parse::<f64>()).collect();
            (
                n,
                match nums {
                    Ok(v) => Column::Numbers(v),
                    Err(_) => Column::Text(c),
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_read_back_by_column_with_quoted_text() {
        let dir = std::env::temp_dir().join(format!("talus_read_table_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.csv");
        std::fs::write(
            &p,
            "t,outlet,count\n0e0,\"a, \"\"b\"\"\",3\n1.5e-3,domain,4\n",
        )
        .unwrap();
        let t = read_table(&p).unwrap();
        assert_eq!(t[0], ("t".into(), Column::Numbers(vec![0.0, 1.5e-3])));
        assert_eq!(
            t[1],
            (
                "outlet".into(),
                Column::Text(vec!["a, \"b\"".into(), "domain".into()])
            )
        );
        assert_eq!(t[2].1, Column::Numbers(vec![3.0, 4.0]));
        std::fs::write(&p, "t,x\n1,2\n3\n").unwrap();
        let e = read_table(&p).unwrap_err();
        assert!(
            e.ends_with("t.csv:3: expected 2 fields (the header's), got 1"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
