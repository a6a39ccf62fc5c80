//! A run's output folder, held by one run at a time and holding one run's
//! files.
//!
//! - **The lock** ([`FolderLock`]): `talus.lock`, created exclusively when a
//!   run starts and removed when it ends (ok, failed, interrupted, or a
//!   panic unwinding). It names the holder (pid, process name, host): a
//!   second run into the folder refuses with one line naming it. A lock
//!   whose process is gone (a run killed by SIGKILL, a crash) is stale and
//!   taken over, with a notice; a lock written on another host cannot be
//!   checked and is refused, saying which file to delete.
//! - **Clearing** ([`clear_earlier_run`]): a fresh run removes what an
//!   earlier run wrote here, and only that (the names [`owns`] lists): the
//!   checkpoint first, so a run killed while clearing, or before its own
//!   first checkpoint, never `--resume`s the earlier run's.

use std::path::{Path, PathBuf};

/// The lock file's name in a run folder.
pub const LOCK_FILE: &str = "talus.lock";

/// The run's summary, written when it ends (ok, interrupted or failed).
pub const SUMMARY_FILE: &str = "summary.json";

/// Why a folder cannot be claimed.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{}: {holder} is writing into this folder; wait for it, stop it, or choose another output folder", dir.display())]
    Busy { dir: PathBuf, holder: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Who holds a lock: what its file says.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Holder {
    pid: u32,
    process: String,
    host: String,
    started: u64,
}

impl Holder {
    fn me() -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            process: process_name(pid).unwrap_or_default(),
            host: host_name(),
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }

    fn text(&self) -> String {
        format!(
            "pid {}\nprocess {}\nhost {}\nstarted {}\n",
            self.pid, self.process, self.host, self.started
        )
    }

    /// The file's text read back (None: not a lock talus wrote).
    fn parse(text: &str) -> Option<Holder> {
        let mut h = Holder {
            pid: 0,
            process: String::new(),
            host: String::new(),
            started: 0,
        };
        let mut pid = None;
        for line in text.lines() {
            let (k, v) = line.split_once(' ').unwrap_or((line, ""));
            match k {
                "pid" => pid = v.parse().ok(),
                "process" => h.process = v.to_string(),
                "host" => h.host = v.to_string(),
                "started" => h.started = v.parse().unwrap_or(0),
                _ => {}
            }
        }
        h.pid = pid?;
        Some(h)
    }

    /// One line for a refusal: "the run of pid 123 (talus, started
    /// 2026-11-28 02:43:32 UTC)".
    fn describe(&self) -> String {
        let mut s = format!("the run of pid {}", self.pid);
        let mut extra = Vec::new();
        if !self.process.is_empty() {
            extra.push(self.process.clone());
        }
        if !self.host.is_empty() && self.host != host_name() {
            extra.push(format!("on host {}", self.host));
        }
        if self.started > 0 {
            extra.push(format!("started {}", utc(self.started)));
        }
        if !extra.is_empty() {
            s += &format!(" ({})", extra.join(", "));
        }
        s
    }

    /// Whether this holder's process may still be running: false only
    /// when it is known to be gone (no process with its pid on this host,
    /// or one with another name, the pid since reused).
    fn may_be_alive(&self) -> bool {
        if self.host != host_name() {
            return true;
        }
        match process_alive(self.pid) {
            Some(false) => false,
            _ => match process_name(self.pid) {
                Some(now) if !self.process.is_empty() => now == self.process,
                _ => true,
            },
        }
    }
}

/// Seconds since 1970 as "YYYY-MM-DD hh:mm:ss UTC".
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let s = secs % 86_400;
    // days to a civil date (proleptic Gregorian)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// This host's name ("" when unknown).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .or_else(|_| std::env::var("COMPUTERNAME"))
        .unwrap_or_default()
}

/// The name of process `pid` where the system says (Linux: `/proc`).
fn process_name(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Whether a process `pid` exists (None: cannot tell here).
fn process_alive(pid: u32) -> Option<bool> {
    if Path::new("/proc/self").exists() {
        return Some(Path::new(&format!("/proc/{pid}")).exists());
    }
    #[cfg(unix)]
    {
        let Ok(p) = libc::pid_t::try_from(pid) else {
            return None;
        };
        // signal 0 checks only: EPERM means it exists (another user's)
        let r = unsafe { libc::kill(p, 0) };
        if r == 0 {
            return Some(true);
        }
        Some(std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH))
    }
    #[cfg(not(unix))]
    None
}

/// A run's hold on its folder: `talus.lock`, removed when dropped.
#[derive(Debug)]
pub struct FolderLock {
    path: PathBuf,
    /// What the lock said when a stale one was taken over (for a notice).
    pub took_over: Option<String>,
}

impl FolderLock {
    /// Claims `dir` (created when missing) for this process: refused with
    /// [`FolderError::Busy`] while another run holds it.
    pub fn claim(dir: &Path) -> Result<FolderLock, FolderError> {
        std::fs::create_dir_all(dir).map_err(at(dir))?;
        let path = dir.join(LOCK_FILE);
        let me = Holder::me();
        let mut took_over = None;
        // twice at most: once more after removing a stale lock
        for _ in 0..2 {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
            match f {
                Ok(mut f) => {
                    use std::io::Write as _;
                    f.write_all(me.text().as_bytes()).map_err(at(&path))?;
                    return Ok(FolderLock { path, took_over });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let holder = match Holder::parse(&text) {
                        Some(h) => h,
                        // being written this instant, or not talus's
                        None => {
                            return Err(FolderError::Busy {
                                dir: dir.to_path_buf(),
                                holder: format!(
                                    "another run (its {LOCK_FILE} names no pid; delete it if no run is writing here)"
                                ),
                            })
                        }
                    };
                    if holder.may_be_alive() {
                        let hint = if holder.host != me.host && !holder.host.is_empty() {
                            format!(
                                "; this host cannot check it: delete {} if that run is gone",
                                path.display()
                            )
                        } else {
                            String::new()
                        };
                        return Err(FolderError::Busy {
                            dir: dir.to_path_buf(),
                            holder: holder.describe() + &hint,
                        });
                    }
                    took_over = Some(holder.describe());
                    match std::fs::remove_file(&path) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(at(&path)(e))
                        }
                        _ => {}
                    }
                }
                Err(e) => return Err(at(&path)(e)),
            }
        }
        Err(FolderError::Busy {
            dir: dir.to_path_buf(),
            holder: "another run, which claimed it this instant".into(),
        })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // only our own lock: never one another run has since taken over
        let ours = std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| Holder::parse(&t))
            .is_some_and(|h| h.pid == std::process::id());
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether `name` is a file a run writes into its folder: the checkpoint
/// (and its temporary), the tables, `final.csv`, `summary.json`, the `.pvd`
/// collections and their numbered `.vtu` snapshots (`particles_NNNNN.vtu`,
/// `walls_NNNNN.vtu`, `body_<name>_NNNNN.vtu`).
pub fn owns(name: &str) -> bool {
    const FILES: [&str; 11] = [
        crate::checkpoint::CHECKPOINT_FILE,
        "checkpoint.tmp",
        "energy.csv",
        "flow.csv",
        "walls.csv",
        "bodies.csv",
        "final.csv",
        SUMMARY_FILE,
        "particles.pvd",
        "walls.pvd",
        crate::io::bodies::BODIES_PVD,
    ];
    FILES.contains(&name) || snapshot_number(name).is_some()
}

/// The number of a snapshot file (`particles_00012.vtu` → 12), None for
/// any other name.
pub fn snapshot_number(name: &str) -> Option<usize> {
    let stem = name.strip_suffix(".vtu")?;
    let (prefix, digits) = stem.rsplit_once('_')?;
    let ok_prefix = prefix == "particles"
        || prefix == "walls"
        || prefix.strip_prefix("body_").is_some_and(|b| !b.is_empty());
    if !ok_prefix || digits.len() < 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Removes from `dir` the files [`owns`] names that `keep` refuses: the
/// checkpoint first, then the rest. Returns the names removed, in order.
fn remove_owned(dir: &Path, keep: impl Fn(&str) -> bool) -> Result<Vec<String>, FolderError> {
    let mut names: Vec<String> = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
        Err(e) => return Err(at(dir)(e)),
    };
    for e in entries {
        let e = e.map_err(at(dir))?;
        let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
        if let (true, Some(name)) = (is_file, e.file_name().to_str()) {
            if owns(name) && !keep(name) {
                names.push(name.to_string());
            }
        }
    }
    // the checkpoint first: a run stopped midway leaves none to resume
    names.sort_by_key(|n| (n != crate::checkpoint::CHECKPOINT_FILE, n.clone()));
    for n in &names {
        let p = dir.join(n);
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(at(&p)(e)),
            _ => {}
        }
    }
    Ok(names)
}

/// For a fresh run: removes every file an earlier run wrote into `dir`
/// (what [`owns`] names, nothing else), the checkpoint first. Returns the
/// names removed.
pub fn clear_earlier_run(dir: &Path) -> Result<Vec<String>, FolderError> {
    let mut names = remove_owned(dir, |_| false)?;
    // `--render-every`'s pictures
    let frames = dir.join(FRAMES_DIR);
    if let Ok(entries) = std::fs::read_dir(&frames) {
        let mut gone = Vec::new();
        for e in entries.flatten() {
            let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
            if let (true, Some(name)) = (is_file, e.file_name().to_str()) {
                if is_frame(name) {
                    let p = frames.join(name);
                    std::fs::remove_file(&p).map_err(at(&p))?;
                    gone.push(format!("{FRAMES_DIR}/{name}"));
                }
            }
        }
        gone.sort();
        names.extend(gone);
    }
    Ok(names)
}

/// The folder of `talus run --render-every`'s pictures in a run folder.
pub const FRAMES_DIR: &str = "frames";

/// Whether `name` is one of those pictures: `frame_NNNNN.png`.
pub fn is_frame(name: &str) -> bool {
    name.strip_prefix("frame_")
        .and_then(|n| n.strip_suffix(".png"))
        .is_some_and(|d| d.len() >= 5 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// For a run resumed from a checkpoint that had written `snapshots`
/// snapshots: removes what the run wrote after that checkpoint and a run
/// that went straight on would not hold (snapshots numbered `snapshots` and
/// on, `final.csv`, `summary.json`). Returns the names removed.
pub fn clear_after_checkpoint(dir: &Path, snapshots: usize) -> Result<Vec<String>, FolderError> {
    remove_owned(dir, |n| match snapshot_number(n) {
        Some(k) => k < snapshots,
        None => n != "final.csv" && n != SUMMARY_FILE,
    })
}

/// One line saying what [`clear_earlier_run`] removed: "removed 42 files
/// an earlier run left in out/x (checkpoint.bin, energy.csv, 38
/// snapshots, ...)".
pub fn cleared_notice(dir: &Path, names: &[String]) -> String {
    let frame = |n: &str| {
        n.strip_prefix(FRAMES_DIR)
            .and_then(|f| f.strip_prefix('/'))
            .is_some_and(is_frame)
    };
    let snaps = names
        .iter()
        .filter(|n| snapshot_number(n).is_some())
        .count();
    let frames = names.iter().filter(|n| frame(n)).count();
    let mut parts: Vec<String> = names
        .iter()
        .filter(|n| snapshot_number(n).is_none() && !frame(n))
        .cloned()
        .collect();
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    if snaps > 0 {
        parts.push(format!("{snaps} snapshot{}", plural(snaps)));
    }
    if frames > 0 {
        parts.push(format!("{frames} picture{}", plural(frames)));
    }
    format!(
        "removed {} file{} an earlier run left in {} ({})",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        dir.display(),
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("talus-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn snapshot_names_and_what_a_run_owns() {
        assert_eq!(snapshot_number("particles_00012.vtu"), Some(12));
        assert_eq!(snapshot_number("walls_00000.vtu"), Some(0));
        assert_eq!(snapshot_number("body_beam_00003.vtu"), Some(3));
        assert_eq!(snapshot_number("body_a_b_123456.vtu"), Some(123456));
        assert_eq!(snapshot_number("particles_12.vtu"), None);
        assert_eq!(snapshot_number("body__00001.vtu"), None);
        assert_eq!(snapshot_number("mine_00001.vtu"), None);
        assert_eq!(snapshot_number("particles_0000x.vtu"), None);
        assert!(owns("checkpoint.bin") && owns("energy.csv") && owns("summary.json"));
        assert!(!owns("notes.txt") && !owns("scene.toml") && !owns("mesh.stl"));
    }

    #[test]
    fn a_fresh_run_clears_what_a_run_wrote_and_nothing_else() {
        let d = scratch("clear");
        for f in [
            "energy.csv",
            "particles_00000.vtu",
            "particles_00007.vtu",
            "body_beam_00002.vtu",
            "checkpoint.bin",
            "summary.json",
            "notes.txt",
            "scene.toml",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        std::fs::create_dir_all(d.join("frames")).unwrap();
        std::fs::write(d.join("frames/frame_00003.png"), "x").unwrap();
        std::fs::write(d.join("frames/cover.png"), "x").unwrap();
        let gone = clear_earlier_run(&d).unwrap();
        assert_eq!(gone[0], "checkpoint.bin", "the checkpoint goes first");
        assert_eq!(gone.len(), 7, "{gone:?}");
        assert!(d.join("frames/cover.png").exists());
        let mut left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["frames", "notes.txt", "scene.toml"]);
        let line = cleared_notice(&d, &gone);
        assert!(
            line.starts_with("removed 7 files")
                && line.contains("3 snapshots")
                && line.contains("1 picture)"),
            "{line}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_resumed_run_drops_the_snapshots_after_its_checkpoint() {
        let d = scratch("resume");
        for f in [
            "particles_00000.vtu",
            "particles_00001.vtu",
            "particles_00002.vtu",
            "walls_00002.vtu",
            "checkpoint.bin",
            "energy.csv",
            "final.csv",
            "summary.json",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        let mut gone = clear_after_checkpoint(&d, 2).unwrap();
        gone.sort();
        assert_eq!(
            gone,
            [
                "final.csv",
                "particles_00002.vtu",
                "summary.json",
                "walls_00002.vtu"
            ]
        );
        assert!(d.join("checkpoint.bin").exists() && d.join("particles_00001.vtu").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn one_run_at_a_time_and_a_dead_holder_is_stale() {
        let d = scratch("lock");
        let lock = FolderLock::claim(&d).unwrap();
        assert!(lock.took_over.is_none());
        // held by this (live) process: a second claim is refused
        let e = FolderLock::claim(&d).unwrap_err().to_string();
        assert!(
            e.contains(&format!("pid {}", std::process::id())) && e.contains("is writing"),
            "{e}"
        );
        drop(lock);
        assert!(!d.join(LOCK_FILE).exists(), "released when dropped");
        // a lock whose process has exited is taken over
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let dead = Holder {
            pid,
            process: "talus".into(),
            host: host_name(),
            started: 1,
        };
        std::fs::write(d.join(LOCK_FILE), dead.text()).unwrap();
        let lock = FolderLock::claim(&d).unwrap();
        let said = lock.took_over.clone().unwrap();
        assert!(said.contains(&format!("pid {pid}")), "{said}");
        drop(lock);
        // another host's lock cannot be checked: refused, naming the file
        let far = Holder {
            host: "elsewhere.example".into(),
            ..dead
        };
        std::fs::write(d.join(LOCK_FILE), far.text()).unwrap();
        let e = FolderLock::claim(&d).unwrap_err().to_string();
        assert!(
            e.contains("elsewhere.example") && e.contains("delete"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn dates_in_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_795_833_812), "2026-11-28 02:43:32 UTC");
        assert_eq!(utc(951_825_600), "2000-02-29 12:00:00 UTC");
    }
}
