//! Deformable-body outputs: one `body_<name>_NNNNN.vtu` per body per
//! snapshot (tetrahedra, raw binary appended data like the particles'
//! snapshots, `src/io/vtk.rs`), the `bodies.pvd` collection listing them
//! (one `part` per body, so ParaView shows the bodies as blocks of one
//! series) and the `bodies.csv` table (centre of mass, its velocity,
//! energies and the contact force on each body at each output).
//!
//! The API takes plain slices ([`BodyFrame`], [`BodyRow`]) so it does not
//! depend on the finite-element types: the engine fills them in. Every
//! function returns a `std::io::Result` whose error message names the file
//! (the error kind is kept).

use super::series::{Entry, Series};
use super::table::{at_path, csv_field, Table, WriteError};
use super::vtk::{arr, write_grid};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// VTK cell type of a linear (4-node) tetrahedron.
pub const VTK_TETRA: u8 = 10;

/// VTK cell type of a quadratic (10-node) tetrahedron.
pub const VTK_QUADRATIC_TETRA: u8 = 24;

/// The columns of `bodies.csv`.
pub const BODIES_CSV_HEADER: &str = "t,body,cx,cy,cz,vx,vy,vz,kinetic,strain,fx,fy,fz";

/// The `bodies.pvd` collection's file name.
pub const BODIES_PVD: &str = "bodies.pvd";

/// One body's mesh and state at one instant, as plain arrays.
#[derive(Debug, Clone, Copy)]
pub struct BodyFrame<'a> {
    /// Node positions at t = 0 (m).
    pub reference: &'a [[f64; 3]],
    /// Node positions now (m).
    pub positions: &'a [[f64; 3]],
    /// Node velocities (m/s).
    pub velocities: &'a [[f64; 3]],
    /// Node indices per element; linear tets use the first 4.
    pub tets: &'a [[u32; 10]],
    /// 10-node tets in `VTK_QUADRATIC_TETRA` (type 24) node order: corners
    /// 0..3, then the mid-edge nodes of (0,1), (1,2), (2,0), (0,3), (1,3),
    /// (2,3); else 4-node `VTK_TETRA` (type 10).
    pub quadratic: bool,
    /// Von Mises stress per element (Pa).
    pub von_mises: &'a [f64],
}

impl BodyFrame<'_> {
    /// Nodes per element: 10 or 4.
    pub fn nodes_per_tet(&self) -> usize {
        if self.quadratic {
            10
        } else {
            4
        }
    }

    /// Checks the array lengths agree and every node index used is a node:
    /// an `InvalidInput` error saying what is wrong otherwise.
    pub fn check(&self) -> std::io::Result<()> {
        let n = self.positions.len();
        let bad = |m: String| Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, m));
        if self.reference.len() != n || self.velocities.len() != n {
            return bad(format!(
                "{} reference positions, {n} positions and {} velocities",
                self.reference.len(),
                self.velocities.len()
            ));
        }
        if self.von_mises.len() != self.tets.len() {
            return bad(format!(
                "{} von Mises stresses for {} elements",
                self.von_mises.len(),
                self.tets.len()
            ));
        }
        let m = self.nodes_per_tet();
        for (e, t) in self.tets.iter().enumerate() {
            if let Some(&i) = t[..m].iter().find(|&&i| i as usize >= n) {
                return bad(format!("element {e}: node {i} of {n}"));
            }
        }
        Ok(())
    }
}

/// Writes one body's unstructured grid (a `body_<name>_NNNNN.vtu`):
/// points = current positions; point data `displacement` (positions −
/// reference) and `velocity` (3 components, Float64); cell data
/// `von_mises` (Float64); cells tetrahedra of type 10 or 24
/// ([`BodyFrame::quadratic`]). An inconsistent frame
/// ([`BodyFrame::check`]) is an `InvalidInput` error, nothing written.
pub fn write_body_vtu(path: &Path, f: &BodyFrame) -> std::io::Result<()> {
    f.check()?;
    let n = f.positions.len();
    let points: Vec<f64> = f.positions.iter().flatten().copied().collect();
    let disp: Vec<f64> = f
        .positions
        .iter()
        .zip(f.reference)
        .flat_map(|(p, r)| [p[0] - r[0], p[1] - r[1], p[2] - r[2]])
        .collect();
    let vel: Vec<f64> = f.velocities.iter().flatten().copied().collect();
    let m = f.nodes_per_tet();
    let conn: Vec<i64> = f
        .tets
        .iter()
        .flat_map(|t| t[..m].iter().map(|&i| i as i64))
        .collect();
    let n_cells = f.tets.len();
    let offs: Vec<i64> = (1..=n_cells as i64).map(|k| m as i64 * k).collect();
    let ty = if f.quadratic {
        VTK_QUADRATIC_TETRA
    } else {
        VTK_TETRA
    };
    let types = vec![ty; n_cells];
    write_grid(
        path,
        [n, n_cells],
        (
            "PointData Vectors=\"displacement\"",
            &[
                arr("displacement", "Float64", 3, &disp),
                arr("velocity", "Float64", 3, &vel),
            ],
        ),
        (
            "CellData Scalars=\"von_mises\"",
            &[arr("von_mises", "Float64", 1, f.von_mises)],
        ),
        &arr("Points", "Float64", 3, &points),
        &[
            arr("connectivity", "Int64", 1, &conn),
            arr("offsets", "Int64", 1, &offs),
            arr("types", "UInt8", 1, &types),
        ],
    )
}

/// The file-name stem of each body: its name with every character other
/// than ASCII letters, digits, `-`, `_` and `.` replaced by `_` (`body<i>`
/// when empty), made unique by a `-<i>` suffix where two would collide.
fn stems(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let mut s: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if s.is_empty() || s.chars().all(|c| c == '.') {
            s = format!("body{i}");
        }
        let mut k = i;
        while out.contains(&s) {
            s = format!("{s}-{k}");
            k += 1;
        }
        out.push(s);
    }
    out
}

/// The `body_<name>_NNNNN.vtu` + `bodies.pvd` series of the deformable
/// bodies: every body's VTU of every snapshot, listed with `part="i"` for
/// body i. A resumed run continues it ([`resume`](Self::resume)) like
/// `io::walls::WallSeries`.
pub struct BodySeries {
    dir: PathBuf,
    stems: Vec<String>,
    series: Series,
}

impl BodySeries {
    /// A series of the bodies `names` (body i is `names[i]`) written into
    /// directory `dir`.
    pub fn new(dir: &Path, names: &[String]) -> BodySeries {
        BodySeries {
            dir: dir.to_path_buf(),
            stems: stems(names),
            series: Series::new(dir.join(BODIES_PVD)),
        }
    }

    /// `body_<name>_{k:05}.vtu` of body `body` in the output directory.
    pub fn vtu_path(&self, body: usize, k: usize) -> PathBuf {
        self.dir.join(self.vtu_name(body, k))
    }

    fn vtu_name(&self, body: usize, k: usize) -> String {
        format!("body_{}_{k:05}.vtu", self.stems[body])
    }

    /// `bodies.pvd` in the output directory.
    pub fn pvd_path(&self) -> PathBuf {
        self.series.path().to_path_buf()
    }

    /// `bodies.pvd`'s `(time, file name)` entries so far, in order (a
    /// checkpoint keeps them).
    pub fn pvd(&self) -> Vec<(f64, String)> {
        self.series.files()
    }

    /// Continues a series whose `bodies.pvd` listed `entries` ([`pvd`](
    /// Self::pvd)). Each file's part is its body's index, found from the
    /// file name; a file of a body not in this run keeps a part of its own
    /// after the bodies' (one per such body name).
    pub fn resume(&mut self, entries: Vec<(f64, String)>) {
        let mut others: Vec<String> = Vec::new();
        let entries: Vec<Entry> = entries
            .into_iter()
            .map(|(t, file)| {
                let stem = file
                    .strip_prefix("body_")
                    .and_then(|s| s.strip_suffix(".vtu"))
                    .and_then(|s| s.rsplit_once('_'))
                    .map_or(file.as_str(), |(s, _)| s);
                let part = match self.stems.iter().position(|s| s == stem) {
                    Some(i) => i,
                    None => {
                        let j = others.iter().position(|s| s == stem).unwrap_or_else(|| {
                            others.push(stem.to_string());
                            others.len() - 1
                        });
                        self.stems.len() + j
                    }
                };
                (t, part, file)
            })
            .collect();
        self.series.resume(entries);
    }

    /// Writes snapshot `k` at time `t`: `frames[i]` is body i's, written to
    /// `body_<name>_{k:05}.vtu`; then rewrites `bodies.pvd` with them
    /// appended (a snapshot with a failed file is not listed). A slice of
    /// another length than the names is an `InvalidInput` error (nothing
    /// written).
    pub fn write(&mut self, k: usize, t: f64, frames: &[BodyFrame]) -> Result<(), WriteError> {
        if frames.len() != self.stems.len() {
            let e = std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} frames given for {} bodies",
                    frames.len(),
                    self.stems.len()
                ),
            );
            return at_path(Err(e), &self.pvd_path());
        }
        for (i, f) in frames.iter().enumerate() {
            let path = self.vtu_path(i, k);
            at_path(write_body_vtu(&path, f), &path)?;
        }
        for i in 0..frames.len() {
            self.series.add(t, i, self.vtu_name(i, k));
        }
        at_path(self.series.write(), self.series.path())
    }
}

/// One body's line of `bodies.csv` at one output.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BodyRow {
    /// Centre of mass (m).
    pub com: [f64; 3],
    /// Velocity of the centre of mass (m/s).
    pub com_velocity: [f64; 3],
    /// Kinetic energy (J).
    pub kinetic: f64,
    /// Strain energy (J).
    pub strain: f64,
    /// Total contact force on the body (N).
    pub force: [f64; 3],
}

/// `bodies.csv`: `t,body,cx,cy,cz,vx,vy,vz,kinetic,strain,fx,fy,fz`, one
/// row per body per output, `body` the body's name (quoted when it holds a
/// comma or a quote), numbers at full f64 precision (`{:e}`). Each
/// [`row`](Self::row) is flushed, so the table is complete up to the last
/// output even when a run stops early.
pub struct BodiesCsv {
    table: Table,
    names: Vec<String>,
}

impl BodiesCsv {
    /// Opens `path` for the bodies labelled `names` (body i is
    /// `names[i]`): created with the header, or, `resume` > 0, continued
    /// after a checkpoint's `resume` bytes ([`Table::open`]).
    pub fn open(path: &Path, names: &[String], resume: u64) -> Result<BodiesCsv, WriteError> {
        Ok(BodiesCsv {
            table: Table::open(path, BODIES_CSV_HEADER, resume)?,
            names: names.iter().map(|n| csv_field(n)).collect(),
        })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        self.table.path()
    }

    /// Appends the rows of time `t` (s): `rows[i]` is body i's. A slice of
    /// another length than the names is an `InvalidInput` error (nothing
    /// written).
    pub fn row(&mut self, t: f64, rows: &[BodyRow]) -> Result<(), WriteError> {
        if rows.len() != self.names.len() {
            let e = std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} rows given for {} bodies", rows.len(), self.names.len()),
            );
            return at_path(Err(e), self.table.path());
        }
        let mut s = String::with_capacity(rows.len() * 300);
        for (name, r) in self.names.iter().zip(rows) {
            let _ = write!(s, "{t:e},{name}");
            let xs = r
                .com
                .iter()
                .chain(&r.com_velocity)
                .chain([&r.kinetic, &r.strain])
                .chain(&r.force);
            for x in xs {
                let _ = write!(s, ",{x:e}");
            }
            s.push('\n');
        }
        self.table.write(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("talus-io-bodies-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A VTU header read by hand: the counts, each array's (section, name,
    /// type, components, offset) and the appended bytes after the `_`.
    struct Raw {
        points: usize,
        cells: usize,
        arrays: Vec<(String, String, String, usize, usize)>,
        data: Vec<u8>,
        head: String,
    }

    fn attr(s: &str, key: &str) -> String {
        let k = s.find(&format!(" {key}=\"")).unwrap() + key.len() + 3;
        s[k..k + s[k..].find('"').unwrap()].to_string()
    }

    fn raw(path: &Path) -> Raw {
        let bytes = std::fs::read(path).unwrap();
        let mark = b"<AppendedData encoding=\"raw\">\n   _";
        let start = bytes
            .windows(mark.len())
            .position(|w| w == mark)
            .expect("raw appended data")
            + mark.len();
        let head = std::str::from_utf8(&bytes[..start]).unwrap().to_string();
        let tail = b"\n  </AppendedData>\n</VTKFile>\n";
        assert!(bytes.ends_with(tail));
        let mut arrays = Vec::new();
        let mut section = String::new();
        for line in head.lines() {
            let l = line.trim();
            for s in ["PointData", "CellData", "Points", "Cells"] {
                if l.starts_with(&format!("<{s}>")) || l.starts_with(&format!("<{s} ")) {
                    section = s.to_string();
                }
            }
            if l.starts_with("<DataArray ") {
                assert_eq!(attr(l, "format"), "appended");
                arrays.push((
                    section.clone(),
                    attr(l, "Name"),
                    attr(l, "type"),
                    attr(l, "NumberOfComponents").parse().unwrap(),
                    attr(l, "offset").parse().unwrap(),
                ));
            }
        }
        Raw {
            points: attr(&head, "NumberOfPoints").parse().unwrap(),
            cells: attr(&head, "NumberOfCells").parse().unwrap(),
            arrays,
            data: bytes[start..bytes.len() - tail.len()].to_vec(),
            head,
        }
    }

    impl Raw {
        /// The raw bytes of array `name`.
        fn bytes(&self, name: &str) -> &[u8] {
            let off = self.arrays.iter().find(|a| a.1 == name).unwrap().4;
            let len = u64::from_le_bytes(self.data[off..off + 8].try_into().unwrap()) as usize;
            &self.data[off + 8..off + 8 + len]
        }
        fn f64s(&self, name: &str) -> Vec<f64> {
            self.bytes(name)
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
        fn i64s(&self, name: &str) -> Vec<i64> {
            self.bytes(name)
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    /// The unit tet's corners and its 6 mid-edge nodes in VTK order.
    fn tet10_nodes() -> Vec<[f64; 3]> {
        let c = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let mid = |a: usize, b: usize| std::array::from_fn(|k| 0.5 * (c[a][k] + c[b][k]));
        let mut v = c.to_vec();
        for (a, b) in [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)] {
            v.push(mid(a, b));
        }
        v
    }

    /// `reference` moved and scaled a little, velocities all different.
    fn state(reference: &[[f64; 3]]) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
        let pos = reference
            .iter()
            .enumerate()
            .map(|(i, r)| [1.01 * r[0] + 0.5, r[1] - 1e-3 * i as f64, r[2] * 0.99])
            .collect();
        let vel = (0..reference.len())
            .map(|i| [i as f64, -0.25 * i as f64, 1e-7 * (i * i) as f64])
            .collect();
        (pos, vel)
    }

    /// Writes a one-element frame (4 or 10 nodes) and checks the file
    /// byte by byte, then through `io::vtk::read_vtu`.
    fn one_tet(quadratic: bool) {
        let dir = scratch(if quadratic { "tet10" } else { "tet4" });
        let m = if quadratic { 10 } else { 4 };
        let reference: Vec<[f64; 3]> = tet10_nodes()[..m].to_vec();
        let (pos, vel) = state(&reference);
        // node order deliberately not 0..m, to see it is kept
        let mut tet = [0u32; 10];
        for (k, t) in tet.iter_mut().enumerate().take(m) {
            *t = k as u32;
        }
        if !quadratic {
            tet.swap(1, 2);
        }
        let tets = [tet];
        let vm = [1.25e6];
        let f = BodyFrame {
            reference: &reference,
            positions: &pos,
            velocities: &vel,
            tets: &tets,
            quadratic,
            von_mises: &vm,
        };
        let path = dir.join("body_x_00000.vtu");
        write_body_vtu(&path, &f).unwrap();
        let r = raw(&path);
        assert!(r.head.contains("type=\"UnstructuredGrid\""));
        assert!(r.head.contains("byte_order=\"LittleEndian\""));
        assert!(r.head.contains("header_type=\"UInt64\""));
        assert_eq!((r.points, r.cells), (m, 1));
        let meta: Vec<(&str, &str, &str, usize)> = r
            .arrays
            .iter()
            .map(|a| (a.0.as_str(), a.1.as_str(), a.2.as_str(), a.3))
            .collect();
        assert_eq!(
            meta,
            [
                ("PointData", "displacement", "Float64", 3),
                ("PointData", "velocity", "Float64", 3),
                ("CellData", "von_mises", "Float64", 1),
                ("Points", "Points", "Float64", 3),
                ("Cells", "connectivity", "Int64", 1),
                ("Cells", "offsets", "Int64", 1),
                ("Cells", "types", "UInt8", 1),
            ]
        );
        // each offset = the previous one + 8 + its byte count; the arrays
        // tile the appended block exactly
        let sizes = [24 * m, 24 * m, 8, 24 * m, 8 * m, 8, 1];
        let mut off = 0;
        for (a, size) in r.arrays.iter().zip(sizes) {
            assert_eq!(a.4, off, "offset of {}", a.1);
            let len = u64::from_le_bytes(r.data[off..off + 8].try_into().unwrap());
            assert_eq!(len as usize, size, "byte count of {}", a.1);
            off += 8 + size;
        }
        assert_eq!(off, r.data.len());
        // the values, bit-exact
        let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
        assert_eq!(r.f64s("Points"), flat(&pos));
        assert_eq!(r.f64s("velocity"), flat(&vel));
        let disp: Vec<[f64; 3]> = pos
            .iter()
            .zip(&reference)
            .map(|(p, q)| std::array::from_fn(|k| p[k] - q[k]))
            .collect();
        assert_eq!(r.f64s("displacement"), flat(&disp));
        assert_eq!(r.f64s("von_mises"), vm);
        let conn: Vec<i64> = tet[..m].iter().map(|&i| i as i64).collect();
        assert_eq!(r.i64s("connectivity"), conn);
        assert_eq!(r.i64s("offsets"), [m as i64]);
        assert_eq!(r.bytes("types"), [if quadratic { 24 } else { 10 }]);
        // the crate's own reader agrees
        let v = crate::io::vtk::read_vtu(&path).unwrap();
        assert_eq!((v.points, v.cells), (m, 1));
        assert_eq!(v.coords, pos);
        assert_eq!(v.types, [if quadratic { 24 } else { 10 }]);
        assert_eq!(v.point_f64("displacement", 3).unwrap(), flat(&disp));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn linear_tet_vtu() {
        one_tet(false);
    }

    #[test]
    fn quadratic_tet_vtu() {
        one_tet(true);
    }

    #[test]
    fn inconsistent_frames_are_refused() {
        let dir = scratch("bad");
        let r = tet10_nodes();
        let (pos, vel) = state(&r[..4]);
        let tets = [[0, 1, 2, 4, 0, 0, 0, 0, 0, 0]];
        let f = BodyFrame {
            reference: &r[..4],
            positions: &pos,
            velocities: &vel,
            tets: &tets,
            quadratic: false,
            von_mises: &[0.0],
        };
        let path = dir.join("b.vtu");
        let e = write_body_vtu(&path, &f).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("node 4"), "{e}");
        let e = write_body_vtu(
            &path,
            &BodyFrame {
                tets: &[[0, 1, 2, 3, 0, 0, 0, 0, 0, 0]],
                von_mises: &[],
                ..f
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("0 von Mises"), "{e}");
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn series_pvd_lists_every_body_with_its_part() {
        let dir = scratch("pvd");
        let names = vec!["jelly".to_string(), "ball/2".to_string()];
        let r = tet10_nodes();
        let (pos, vel) = state(&r);
        let t4 = [[0, 1, 2, 3, 0, 0, 0, 0, 0, 0]];
        let t10 = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]];
        let frames = [
            BodyFrame {
                reference: &r[..4],
                positions: &pos[..4],
                velocities: &vel[..4],
                tets: &t4,
                quadratic: false,
                von_mises: &[1.0],
            },
            BodyFrame {
                reference: &r,
                positions: &pos,
                velocities: &vel,
                tets: &t10,
                quadratic: true,
                von_mises: &[2.0],
            },
        ];
        let mut s = BodySeries::new(&dir, &names);
        s.write(0, 0.0, &frames).unwrap();
        s.write(1, 0.5, &frames).unwrap();
        let e = s.write(2, 1.0, &frames[..1]).unwrap_err();
        assert_eq!(e.source.kind(), std::io::ErrorKind::InvalidInput);
        let files = [
            "body_jelly_00000.vtu",
            "body_ball_2_00000.vtu",
            "body_jelly_00001.vtu",
            "body_ball_2_00001.vtu",
        ];
        for f in files {
            assert!(dir.join(f).exists(), "{f}");
        }
        let want: Vec<(f64, String)> = [0.0, 0.0, 0.5, 0.5]
            .into_iter()
            .zip(files.map(String::from))
            .collect();
        assert_eq!(s.pvd(), want);
        let text = std::fs::read_to_string(s.pvd_path()).unwrap();
        let sets: Vec<(String, String, String)> = text
            .lines()
            .filter(|l| l.contains("<DataSet "))
            .map(|l| (attr(l, "timestep"), attr(l, "part"), attr(l, "file")))
            .collect();
        let parts = ["0", "1", "0", "1"];
        let times = ["0e0", "0e0", "5e-1", "5e-1"];
        for (i, (t, p, f)) in sets.iter().enumerate() {
            assert_eq!(
                (t.as_str(), p.as_str(), f.as_str()),
                (times[i], parts[i], files[i])
            );
        }
        assert_eq!(sets.len(), 4);
        assert_eq!(crate::io::vtk::read_pvd(&s.pvd_path()).unwrap(), want);
        // a resumed run keeps the entries and their parts
        let mut s2 = BodySeries::new(&dir, &names);
        s2.resume(s.pvd());
        s2.write(2, 1.0, &frames).unwrap();
        let text2 = std::fs::read_to_string(s2.pvd_path()).unwrap();
        assert!(text2.starts_with(&text[..text.find("  </Collection>").unwrap()]));
        let parts2: Vec<String> = text2
            .lines()
            .filter(|l| l.contains("<DataSet "))
            .map(|l| attr(l, "part"))
            .collect();
        assert_eq!(parts2, ["0", "1", "0", "1", "0", "1"]);
        assert!(text2.contains("file=\"body_ball_2_00002.vtu\""));
        // a body gone from the run keeps a part of its own
        let mut s3 = BodySeries::new(&dir, &names[1..]);
        s3.resume(s.pvd());
        assert_eq!(
            s3.series.entries().iter().map(|e| e.1).collect::<Vec<_>>(),
            [1, 0, 1, 0]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stems_are_safe_and_unique() {
        let names: Vec<String> = ["a b", "a_b", "", "x\"<y>", "..", "ok-1.2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let s = stems(&names);
        assert_eq!(s, ["a_b", "a_b-1", "body2", "x__y_", "body4", "ok-1.2"]);
    }

    #[test]
    fn bodies_csv_rows() {
        let dir = scratch("csv");
        let path = dir.join("bodies.csv");
        let names = vec!["jelly".to_string(), "ball, soft".to_string()];
        let mut csv = BodiesCsv::open(&path, &names, 0).unwrap();
        let row = BodyRow {
            com: [0.5, -1.5, 2.0],
            com_velocity: [0.0, 1e-3, -0.25],
            kinetic: 3.0,
            strain: 1.25e-7,
            force: [0.0, 0.0, 9.81],
        };
        csv.row(0.0, &[BodyRow::default(), row]).unwrap();
        let e = csv.row(0.1, &[row]).unwrap_err();
        assert_eq!(e.source.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("bodies.csv"), "{e}");
        drop(csv);
        let mut csv =
            BodiesCsv::open(&path, &names, std::fs::metadata(&path).unwrap().len()).unwrap();
        csv.row(0.1, &[row, row]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "t,body,cx,cy,cz,vx,vy,vz,kinetic,strain,fx,fy,fz");
        assert_eq!(
            lines[1],
            "0e0,jelly,0e0,0e0,0e0,0e0,0e0,0e0,0e0,0e0,0e0,0e0,0e0"
        );
        assert_eq!(
            lines[2],
            "0e0,\"ball, soft\",5e-1,-1.5e0,2e0,0e0,1e-3,-2.5e-1,3e0,1.25e-7,0e0,0e0,9.81e0"
        );
        assert!(lines[3].starts_with("1e-1,jelly,5e-1,"));
        assert_eq!(lines[0].split(',').count(), 13);
        assert!(BodiesCsv::open(&dir.join("missing/bodies.csv"), &names, 0)
            .err()
            .unwrap()
            .to_string()
            .contains("missing/bodies.csv"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
