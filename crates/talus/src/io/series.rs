//! A `.pvd` collection and the VTU files it lists: one type for the
//! particles' (`particles.pvd`), the walls' (`walls.pvd`) and the bodies'
//! (`bodies.pvd`, one `part` per body, so ParaView shows them as blocks of
//! one series) time series. The collection is rewritten after each
//! snapshot, so it lists every file written so far even when a run stops
//! early; a resumed run continues it from a checkpoint's entries.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One listed file: time (s), part, file name (relative to the `.pvd`).
pub type Entry = (f64, usize, String);

/// A `.pvd` collection being written.
#[derive(Debug, Clone)]
pub struct Series {
    pvd: PathBuf,
    entries: Vec<Entry>,
}

impl Series {
    /// An empty series written to `pvd`.
    pub fn new(pvd: PathBuf) -> Series {
        Series {
            pvd,
            entries: Vec::new(),
        }
    }

    /// Continues a series whose collection listed `entries`.
    pub fn resume(&mut self, entries: Vec<Entry>) {
        self.entries = entries;
    }

    /// Lists `file` (part `part`) at time `t`; [`write`](Self::write)
    /// puts it in the collection.
    pub fn add(&mut self, t: f64, part: usize, file: String) {
        self.entries.push((t, part, file));
    }

    /// Rewrites the collection with every entry so far.
    pub fn write(&self) -> std::io::Result<()> {
        write_pvd(&self.pvd, &self.entries)
    }

    /// Every entry so far.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// `(time, file)` of every entry, in order (what a checkpoint keeps).
    pub fn files(&self) -> Vec<(f64, String)> {
        self.entries
            .iter()
            .map(|(t, _, f)| (*t, f.clone()))
            .collect()
    }

    /// The collection's path.
    pub fn path(&self) -> &Path {
        &self.pvd
    }
}

/// Writes a `.pvd` collection listing `entries`.
pub fn write_pvd(path: &Path, entries: &[Entry]) -> std::io::Result<()> {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, part, file) in entries {
        let _ = writeln!(
            s,
            "    <DataSet timestep=\"{t:e}\" group=\"\" part=\"{part}\" file=\"{file}\"/>"
        );
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    std::fs::write(path, s)
}

/// `(time, file)` entries as part 0 (a series of one part).
pub fn one_part(entries: Vec<(f64, String)>) -> Vec<Entry> {
    entries.into_iter().map(|(t, f)| (t, 0, f)).collect()
}
