//! The checkpoint container:
//!
//! ```text
//! "TALUSCKP"  format version (u32)  header length (u32)  header (JSON)
//! sections (u32), each: name length (u16), name, byte length (u64), bytes
//! checksum (u64, `hash64` of everything before it)
//! ```
//!
//! little-endian. [`write`] writes `checkpoint.tmp` beside the target,
//! syncs it and renames it over `checkpoint.bin`: a crash while writing
//! leaves the previous checkpoint whole. [`read`] checks the magic, the
//! version, the length of every part and the checksum before it trusts a
//! byte, and says in one line what is wrong.

use super::state::{hash64, Header, Saved};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The checkpoint's name in a run's output folder.
pub const CHECKPOINT_FILE: &str = "checkpoint.bin";
/// The format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"TALUSCKP";

/// Why a checkpoint cannot be read.
#[derive(Debug)]
pub enum CheckpointError {
    Missing(PathBuf),
    Io(PathBuf, std::io::Error),
    NotACheckpoint(PathBuf),
    Version { path: PathBuf, found: u32 },
    Truncated(PathBuf),
    Checksum(PathBuf),
    Corrupt(PathBuf, String),
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::Missing(p) => write!(
                f,
                "{}: no checkpoint here (a run writes one at its end, when interrupted, and every [simulation] checkpoint_interval); start the run without --resume",
                p.display()
            ),
            CheckpointError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            CheckpointError::NotACheckpoint(p) => {
                write!(f, "{}: not a talus checkpoint (wrong magic bytes)", p.display())
            }
            CheckpointError::Version { path, found } => write!(
                f,
                "{}: checkpoint format version {found}, this talus reads version {FORMAT_VERSION}; resume with the talus that wrote it, or start the run again",
                path.display()
            ),
            CheckpointError::Truncated(p) => write!(
                f,
                "{}: checkpoint is truncated (cut off while copying or writing?); no state was read",
                p.display()
            ),
            CheckpointError::Checksum(p) => write!(
                f,
                "{}: checkpoint checksum does not match (the file is corrupted); no state was read",
                p.display()
            ),
            CheckpointError::Corrupt(p, m) => write!(f, "{}: corrupted checkpoint: {m}", p.display()),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// Writes `dir/checkpoint.bin` atomically; returns its size in bytes.
pub fn write(dir: &Path, header: &Header, saved: &Saved) -> std::io::Result<u64> {
    let json = serde_json::to_vec(header).expect("header serialises");
    let mut buf = Vec::with_capacity(
        64 + json.len() + saved.sections.iter().map(|s| s.1.len() + 64).sum::<usize>(),
    );
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    buf.extend_from_slice(&(json.len() as u32).to_le_bytes());
    buf.extend_from_slice(&json);
    buf.extend_from_slice(&(saved.sections.len() as u32).to_le_bytes());
    for (name, bytes) in &saved.sections {
        buf.extend_from_slice(&(name.len() as u16).to_le_bytes());
        buf.extend_from_slice(name.as_bytes());
        buf.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        buf.extend_from_slice(bytes);
    }
    let sum = hash64(&buf);
    buf.extend_from_slice(&sum.to_le_bytes());
    let tmp = dir.join("checkpoint.tmp");
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&buf)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, dir.join(CHECKPOINT_FILE))
    })();
    if let Err(e) = written {
        // a full disk or a failed rename leaves no half-written file
        // behind (the previous checkpoint, if any, is untouched)
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(buf.len() as u64)
}

/// Reads and checks `dir/checkpoint.bin` (or `dir` itself when it is a
/// file).
pub fn read(dir: &Path) -> Result<(Header, Saved), CheckpointError> {
    let path = if dir.is_file() {
        dir.to_path_buf()
    } else {
        dir.join(CHECKPOINT_FILE)
    };
    if !path.exists() {
        return Err(CheckpointError::Missing(path));
    }
    let buf = std::fs::read(&path).map_err(|e| CheckpointError::Io(path.clone(), e))?;
    parse(&buf).map_err(|e| match e {
        Bad::Magic => CheckpointError::NotACheckpoint(path),
        Bad::Version(found) => CheckpointError::Version { path, found },
        Bad::Short => CheckpointError::Truncated(path),
        Bad::Checksum => CheckpointError::Checksum(path),
        Bad::Other(m) => CheckpointError::Corrupt(path, m),
    })
}

enum Bad {
    Magic,
    Version(u32),
    Short,
    Checksum,
    Other(String),
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Bad> {
        let end = self.at.checked_add(n).ok_or(Bad::Short)?;
        if end > self.b.len() {
            return Err(Bad::Short);
        }
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, Bad> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2")))
    }
    fn u32(&mut self) -> Result<u32, Bad> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, Bad> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
}

fn parse(buf: &[u8]) -> Result<(Header, Saved), Bad> {
    if buf.len() < MAGIC.len() {
        return Err(if MAGIC.starts_with(buf) {
            Bad::Short
        } else {
            Bad::Magic
        });
    }
    if &buf[..8] != MAGIC {
        return Err(Bad::Magic);
    }
    let mut c = Cursor { b: buf, at: 8 };
    let version = c.u32()?;
    if version != FORMAT_VERSION {
        return Err(Bad::Version(version));
    }
    // the checksum covers everything before the last 8 bytes; a file cut
    // short fails it too, but say "truncated" when the parts do not fit
    let hlen = c.u32()? as usize;
    let json = c.take(hlen)?;
    let count = c.u32()?;
    let mut spans = Vec::new();
    for _ in 0..count {
        let nl = c.u16()? as usize;
        let name = c.take(nl)?;
        let bl = c.u64()? as usize;
        let at = c.at;
        c.take(bl)?;
        spans.push((name, at, bl));
    }
    let body_end = c.at;
    let sum = c.u64()?;
    if c.at != buf.len() {
        return Err(Bad::Other(format!(
            "{} bytes after the checksum",
            buf.len() - c.at
        )));
    }
    if hash64(&buf[..body_end]) != sum {
        return Err(Bad::Checksum);
    }
    let header: Header =
        serde_json::from_slice(json).map_err(|e| Bad::Other(format!("header: {e}")))?;
    let mut sections = Vec::new();
    for (name, at, bl) in spans {
        let name = std::str::from_utf8(name)
            .map_err(|_| Bad::Other("a section name is not UTF-8".into()))?;
        sections.push((name.to_string(), buf[at..at + bl].to_vec()));
    }
    let scalars = header.state.clone();
    Ok((header, Saved { scalars, sections }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::state::{DriverState, Precision, SavedScalars};

    fn sample() -> (Header, Saved) {
        let scalars = SavedScalars {
            precision: Precision::F64,
            step: 1000,
            particles: 3,
            next_id: 3,
            builds: 7,
            rebuild: false,
            max_overlap: 0.01,
            inserted: vec![2],
        };
        let mut s = Saved {
            scalars: scalars.clone(),
            sections: Vec::new(),
        };
        s.put("pos_rad", &[[1.0f64, 2.0, 3.0, 0.5]; 3]);
        s.put("nbr", &[1u32, 2, 3]);
        let h = Header {
            talus: "test".into(),
            scene: "t".into(),
            scene_file: None,
            scene_hash: "0".into(),
            backend: "cpu".into(),
            adapter: "cpu".into(),
            dt: 1e-6,
            materials: vec!["glass".into()],
            state: scalars,
            driver: DriverState::default(),
        };
        (h, s)
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("talus-ckpt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A write that fails (here the rename: `checkpoint.bin` is a folder)
    /// leaves no `checkpoint.tmp` behind and returns the error.
    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let d = tmp("fail");
        std::fs::create_dir_all(d.join(CHECKPOINT_FILE).join("x")).unwrap();
        let (h, s) = sample();
        assert!(write(&d, &h, &s).is_err());
        assert!(!d.join("checkpoint.tmp").exists(), "checkpoint.tmp left");
    }

    #[test]
    fn round_trip_is_exact() {
        let d = tmp("rt");
        let (h, s) = sample();
        write(&d, &h, &s).unwrap();
        let (h2, s2) = read(&d).unwrap();
        assert_eq!(h, h2);
        assert_eq!(s, s2);
        assert!(!d.join("checkpoint.tmp").exists());
    }

    /// Every damage gets its own message: no file, another file, another
    /// version, cut short anywhere, one flipped bit anywhere.
    #[test]
    fn damaged_files_are_refused_with_their_reason() {
        let d = tmp("bad");
        let (h, s) = sample();
        assert!(matches!(read(&d), Err(CheckpointError::Missing(_))));
        write(&d, &h, &s).unwrap();
        let p = d.join(CHECKPOINT_FILE);
        let good = std::fs::read(&p).unwrap();
        std::fs::write(&p, b"hello world, not ours").unwrap();
        assert!(matches!(read(&d), Err(CheckpointError::NotACheckpoint(_))));
        let mut v = good.clone();
        v[8] = 99;
        std::fs::write(&p, &v).unwrap();
        let e = read(&d).unwrap_err();
        assert!(
            matches!(e, CheckpointError::Version { found: 99, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("version 99"));
        for cut in [9, 20, good.len() / 2, good.len() - 9, good.len() - 1] {
            std::fs::write(&p, &good[..cut]).unwrap();
            let e = read(&d).unwrap_err();
            assert!(
                matches!(
                    e,
                    CheckpointError::Truncated(_) | CheckpointError::Checksum(_)
                ),
                "cut at {cut}: {e}"
            );
        }
        for at in (16..good.len()).step_by(7) {
            let mut v = good.clone();
            v[at] ^= 0x10;
            std::fs::write(&p, &v).unwrap();
            assert!(read(&d).is_err(), "flipped byte {at} went unnoticed");
        }
        std::fs::write(&p, &good).unwrap();
        assert!(read(&d).is_ok());
    }
}
