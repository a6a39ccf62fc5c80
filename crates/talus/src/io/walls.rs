//! Wall outputs: the `walls.csv` load table (force and torque on each wall
//! at each output) and the wall geometry series `walls_NNNNN.vtu` +
//! `walls.pvd` (triangles, raw binary appended data like the particles'
//! snapshots, `src/io/vtk.rs`).
//!
//! Geometry is tessellated once, in each wall's body frame (its pose at
//! t = 0, [`tessellate`]); a snapshot maps the vertices to the world with a
//! body → world transform the caller supplies per wall, so the motion
//! itself lives with the engine, not here. [`write_walls_vtu`] returns a
//! plain `std::io::Result` like the particle writers; the two writer types
//! return a [`WriteError`] that names the file.

use super::series::Series;
pub use super::table::WriteError;
use super::table::{at_path, csv_field, Table};
use super::vtk::{arr, write_grid};
use crate::scene::types::{Domain, Shape, Side, Wall};
use glam::DVec3;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One triangle: three vertices (m), counter-clockwise seen from the side
/// its normal points to.
pub type Triangle = [[f64; 3]; 3];

/// Segments around a cylinder or cone.
pub const SEGMENTS: usize = 48;

/// VTK cell type of a triangle.
const VTK_TRIANGLE: u8 = 5;

/// The columns of `walls.csv`.
pub const WALLS_CSV_HEADER: &str = "t,wall,fx,fy,fz,tx,ty,tz";

/// The load on one wall at one output: the total force the particles exert
/// on it (N) and their torque on it (N m) about its axis point as moved by
/// the wall (the origin for a resting wall): `walls::WallLoad`.
pub use crate::walls::WallLoad;

/// `walls.csv`: `t,wall,fx,fy,fz,tx,ty,tz`, one row per wall per output,
/// `wall` the wall's name ([`Wall::label`]; quoted when it holds a comma or
/// a quote), numbers at full f64 precision. Each [`row`](Self::row) is
/// flushed, so the table is complete up to the last output even when a run
/// stops early.
pub struct WallsCsv {
    table: Table,
    names: Vec<String>,
}

impl WallsCsv {
    /// Opens `path` for the walls labelled `names` (wall i is `names[i]`):
    /// created with the header, or, `resume` > 0, continued after a
    /// checkpoint's `resume` bytes ([`Table::open`]).
    pub fn open(path: &Path, names: Vec<String>, resume: u64) -> Result<WallsCsv, WriteError> {
        Ok(WallsCsv {
            table: Table::open(path, WALLS_CSV_HEADER, resume)?,
            names: names.iter().map(|n| csv_field(n)).collect(),
        })
    }

    /// [`open`](Self::open) with the scene walls' labels ([`Wall::label`]).
    pub fn for_walls(path: &Path, walls: &[Wall], resume: u64) -> Result<WallsCsv, WriteError> {
        let names = walls.iter().enumerate().map(|(i, w)| w.label(i)).collect();
        WallsCsv::open(path, names, resume)
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        self.table.path()
    }

    /// Appends the rows of time `t` (s): `loads[i]` is wall i's. A slice
    /// of another length than the names is an `InvalidInput` error (nothing
    /// written).
    pub fn row(&mut self, t: f64, loads: &[WallLoad]) -> Result<(), WriteError> {
        if loads.len() != self.names.len() {
            let e = std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} loads given for {} walls", loads.len(), self.names.len()),
            );
            return at_path(Err(e), self.table.path());
        }
        let mut s = String::with_capacity(loads.len() * 160);
        for (name, l) in self.names.iter().zip(loads) {
            let _ = write!(s, "{t:e},{name}");
            for x in l.force.iter().chain(&l.torque) {
                let _ = write!(s, ",{x:e}");
            }
            s.push('\n');
        }
        self.table.write(&s)
    }
}

/// The triangles drawing `wall` in its body frame (its pose at t = 0):
///
/// - mesh: its triangles;
/// - plane: a rectangle of 2 triangles covering the domain box's projection
///   onto the plane (so every point of the box's cross-section), around the
///   projection of the box, normal = the plane's normal;
/// - cylinder: a tube of [`SEGMENTS`] quads (2 triangles each), from
///   `center` over `length`, or, infinite, over the domain box's extent
///   along the axis;
/// - cone: the frustum's [`SEGMENTS`] quads (one triangle per segment
///   where a radius is 0).
///
/// Cylinder and cone triangles face the particles' side (inward for
/// `Side::Inside`). Zero-area triangles are left out.
pub fn tessellate(wall: &Wall, domain: &Domain) -> Vec<Triangle> {
    let corners = box_corners(domain);
    match &wall.shape {
        Shape::Mesh { triangles, .. } => triangles.clone(),
        Shape::Plane { point, normal } => {
            let n = DVec3::from(*normal).normalize_or_zero();
            if n == DVec3::ZERO {
                return Vec::new();
            }
            let p = DVec3::from(*point);
            let (u, v) = basis(n);
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            for c in &corners {
                let d = *c - p;
                for (k, e) in [u, v].iter().enumerate() {
                    lo[k] = lo[k].min(d.dot(*e));
                    hi[k] = hi[k].max(d.dot(*e));
                }
            }
            let at = |a: f64, b: f64| (p + a * u + b * v).to_array();
            let q = [
                at(lo[0], lo[1]),
                at(hi[0], lo[1]),
                at(hi[0], hi[1]),
                at(lo[0], hi[1]),
            ];
            // u × v = n: counter-clockwise seen from the normal side
            vec![[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
        }
        Shape::Cylinder {
            center,
            axis,
            radius,
            length,
            side,
        } => {
            let c = DVec3::from(*center);
            let a = DVec3::from(*axis).normalize_or_zero();
            if a == DVec3::ZERO {
                return Vec::new();
            }
            let (s0, s1) = match length {
                Some(l) => (0.0, *l),
                None => corners
                    .iter()
                    .map(|k| (*k - c).dot(a))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
                        (lo.min(s), hi.max(s))
                    }),
            };
            frustum_triangles(c, a, [s0, s1], [*radius, *radius], Cut::PICTURE, *side)
        }
        Shape::Cone {
            center,
            axis,
            radius,
            length,
            side,
        } => {
            let a = DVec3::from(*axis).normalize_or_zero();
            if a == DVec3::ZERO {
                return Vec::new();
            }
            frustum_triangles(
                DVec3::from(*center),
                a,
                [0.0, *length],
                *radius,
                Cut::PICTURE,
                *side,
            )
        }
    }
}

/// The 8 corners of the domain box.
fn box_corners(d: &Domain) -> [DVec3; 8] {
    std::array::from_fn(|k| {
        DVec3::new(
            if k & 1 == 0 { d.min[0] } else { d.max[0] },
            if k & 2 == 0 { d.min[1] } else { d.max[1] },
            if k & 4 == 0 { d.min[2] } else { d.max[2] },
        )
    })
}

/// Unit vectors (u, v) with u × v = n (n unit), u perpendicular to the
/// coordinate axis least aligned with n, so an axis-aligned n gets
/// axis-aligned u and v.
fn basis(n: DVec3) -> (DVec3, DVec3) {
    let a = n.abs();
    let e = if a.x <= a.y && a.x <= a.z {
        DVec3::X
    } else if a.y <= a.z {
        DVec3::Y
    } else {
        DVec3::Z
    };
    let u = e.cross(n).normalize();
    (u, n.cross(u))
}

/// How the lateral surface of a cylinder or cone is cut into triangles
/// ([`frustum_triangles`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cut {
    /// Segments around (at least 3).
    pub around: usize,
    /// Rings along the axis (at least 1).
    pub rings: usize,
    /// Each quad split along alternating diagonals (a checkerboard), else
    /// every quad from its first corner.
    pub alternate: bool,
    /// The radii scaled by √(2π / (n sin(2π/n))), so that each ring's
    /// polygon has the circle's area (a mesh standing in for the analytic
    /// surface holds its volume), else the vertices on the circle.
    pub equal_area: bool,
}

impl Cut {
    /// What the walls' `.vtu` files draw: [`SEGMENTS`] around, one ring.
    pub const PICTURE: Cut = Cut {
        around: SEGMENTS,
        rings: 1,
        alternate: false,
        equal_area: false,
    };
}

/// The one tessellator of the round walls (pictures, and meshes standing
/// in for a cone or a cylinder in the studies): the lateral surface
/// between axial positions `s[0]` and `s[1]` (radius `r[0]`, `r[1]`,
/// linear between) about the unit axis `a` through `c`, cut as `cut`
/// says, facing outward (`Side::Outside`) or inward. Zero-area triangles
/// (at a radius of 0) are left out.
pub fn frustum_triangles(
    c: DVec3,
    a: DVec3,
    s: [f64; 2],
    r: [f64; 2],
    cut: Cut,
    side: Side,
) -> Vec<Triangle> {
    let (n, rings) = (cut.around.max(3), cut.rings.max(1));
    let (e1, e2) = basis(a); // e1 × e2 = a
    let step = std::f64::consts::TAU / n as f64;
    let scale = if cut.equal_area {
        (std::f64::consts::TAU / (n as f64 * step.sin())).sqrt()
    } else {
        1.0
    };
    // ring j's axial position and radius (the ends exact)
    let at = |j: usize| -> (f64, f64) {
        if j == rings {
            (s[1], r[1])
        } else {
            let f = |v: [f64; 2]| v[0] + (v[1] - v[0]) * j as f64 / rings as f64;
            (f(s), f(r))
        }
    };
    let vertex = |k: usize, j: usize| {
        let th = step * (k % n) as f64;
        let (sj, rj) = at(j);
        (c + sj * a + (rj * scale) * (th.cos() * e1 + th.sin() * e2)).to_array()
    };
    let mut out = Vec::with_capacity(2 * n * rings);
    for j in 0..rings {
        for k in 0..n {
            let (p00, p10) = (vertex(k, j), vertex(k + 1, j));
            let (p11, p01) = (vertex(k + 1, j + 1), vertex(k, j + 1));
            // (p00, p10, p11) turns with θ then along a: normal outward
            let pair = if cut.alternate && (k + j) % 2 == 1 {
                [[p00, p10, p01], [p10, p11, p01]]
            } else {
                [[p00, p10, p11], [p00, p11, p01]]
            };
            for t in pair {
                let t = match side {
                    Side::Outside => t,
                    Side::Inside => [t[0], t[2], t[1]],
                };
                if area2(&t) > 0.0 {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Twice the triangle's area.
fn area2(t: &Triangle) -> f64 {
    let [a, b, c] = t.map(DVec3::from);
    (b - a).cross(c - a).length()
}

/// Writes one unstructured grid of triangles: `walls` lists (wall index,
/// its triangles in the world frame); cell data `wall` (Int32, the index).
/// Vertices shared by triangles of the same wall (bit-identical) are
/// written once.
pub fn write_walls_vtu(path: &Path, walls: &[(usize, Vec<Triangle>)]) -> std::io::Result<()> {
    let mut points: Vec<f64> = Vec::new();
    let mut conn: Vec<i64> = Vec::new();
    let mut wall_id: Vec<i32> = Vec::new();
    for (w, tris) in walls {
        let mut seen: HashMap<[u64; 3], i64> = HashMap::new();
        for t in tris {
            for v in t {
                let key = v.map(|x| (x + 0.0).to_bits()); // -0 and +0 alike
                let next = (points.len() / 3) as i64;
                let id = *seen.entry(key).or_insert_with(|| {
                    points.extend_from_slice(v);
                    next
                });
                conn.push(id);
            }
            wall_id.push(*w as i32);
        }
    }
    let n_cells = wall_id.len();
    let offs: Vec<i64> = (1..=n_cells as i64).map(|k| 3 * k).collect();
    let types = vec![VTK_TRIANGLE; n_cells];
    write_grid(
        path,
        [points.len() / 3, n_cells],
        ("PointData", &[]),
        (
            "CellData Scalars=\"wall\"",
            &[arr("wall", "Int32", 1, &wall_id)],
        ),
        &arr("Points", "Float64", 3, &points),
        &[
            arr("connectivity", "Int64", 1, &conn),
            arr("offsets", "Int64", 1, &offs),
            arr("types", "UInt8", 1, &types),
        ],
    )
}

/// The scene's walls tessellated once ([`tessellate`], body frame), and the
/// `walls_NNNNN.vtu` + `walls.pvd` series written from them.
pub struct WallSeries {
    dir: PathBuf,
    body: Vec<(usize, Vec<Triangle>)>,
    series: Series,
}

impl WallSeries {
    /// Tessellates `walls` for output into directory `dir`.
    pub fn new(dir: &Path, walls: &[Wall], domain: &Domain) -> WallSeries {
        WallSeries {
            dir: dir.to_path_buf(),
            body: walls
                .iter()
                .enumerate()
                .map(|(i, w)| (i, tessellate(w, domain)))
                .collect(),
            series: Series::new(dir.join("walls.pvd")),
        }
    }

    /// `walls.pvd`'s entries so far (a checkpoint keeps them).
    pub fn entries(&self) -> Vec<(f64, String)> {
        self.series.files()
    }

    /// Continues a series whose `walls.pvd` listed `entries`.
    pub fn resume(&mut self, entries: Vec<(f64, String)>) {
        self.series.resume(super::series::one_part(entries));
    }

    /// The body-frame triangles, per wall.
    pub fn body(&self) -> &[(usize, Vec<Triangle>)] {
        &self.body
    }

    /// The triangles in the world frame: every vertex mapped by
    /// `to_world(wall index, body-frame point)`.
    pub fn world(
        &self,
        to_world: impl Fn(usize, [f64; 3]) -> [f64; 3],
    ) -> Vec<(usize, Vec<Triangle>)> {
        self.body
            .iter()
            .map(|(w, tris)| {
                let tris = tris.iter().map(|t| t.map(|v| to_world(*w, v))).collect();
                (*w, tris)
            })
            .collect()
    }

    /// `walls_{k:05}.vtu` in the output directory.
    pub fn vtu_path(&self, k: usize) -> PathBuf {
        self.dir.join(format!("walls_{k:05}.vtu"))
    }

    /// `walls.pvd` in the output directory.
    pub fn pvd_path(&self) -> PathBuf {
        self.series.path().to_path_buf()
    }

    /// Writes snapshot `k` at time `t` ([`world`](Self::world) with
    /// `to_world`) and rewrites `walls.pvd` with it appended (a failed
    /// snapshot is not listed).
    pub fn write(
        &mut self,
        k: usize,
        t: f64,
        to_world: impl Fn(usize, [f64; 3]) -> [f64; 3],
    ) -> Result<(), WriteError> {
        let path = self.vtu_path(k);
        at_path(write_walls_vtu(&path, &self.world(to_world)), &path)?;
        self.series.add(t, 0, format!("walls_{k:05}.vtu"));
        at_path(self.series.write(), self.series.path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::types::{Shape, Side, Wall};

    fn domain() -> Domain {
        Domain {
            min: [0.0, 0.0, 0.0],
            max: [0.04, 0.05, 0.12],
            periodic: [false; 3],
        }
    }

    fn wall(shape: Shape) -> Wall {
        Wall {
            name: None,
            shape,
            material: 0,
            motion: None,
            servo: None,
        }
    }

    fn cylinder(length: Option<f64>, side: Side) -> Wall {
        wall(Shape::Cylinder {
            center: [0.02, 0.0, 0.06],
            axis: [0.0, 1.0, 0.0],
            radius: 0.015,
            length,
            side,
        })
    }

    fn normal(t: &Triangle) -> DVec3 {
        let [a, b, c] = t.map(DVec3::from);
        (b - a).cross(c - a).normalize()
    }

    /// A fresh directory under the system temp dir.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("talus-io-walls-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn triangle_counts() {
        let d = domain();
        let plane = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
        assert_eq!(tessellate(&plane, &d).len(), 2);
        assert_eq!(
            tessellate(&cylinder(Some(0.03), Side::Inside), &d).len(),
            2 * SEGMENTS
        );
        assert_eq!(
            tessellate(&cylinder(None, Side::Outside), &d).len(),
            2 * SEGMENTS
        );
        let cone = |r: [f64; 2]| {
            wall(Shape::Cone {
                center: [0.02, 0.025, 0.0],
                axis: [0.0, 0.0, 1.0],
                radius: r,
                length: 0.05,
                side: Side::Inside,
            })
        };
        assert_eq!(tessellate(&cone([0.005, 0.02]), &d).len(), 2 * SEGMENTS);
        // an apex: one triangle per segment
        assert_eq!(tessellate(&cone([0.0, 0.02]), &d).len(), SEGMENTS);
        assert_eq!(tessellate(&cone([0.02, 0.0]), &d).len(), SEGMENTS);
        let tris = vec![
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
            [[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]],
        ];
        let mesh = wall(Shape::Mesh {
            file: "m.stl".into(),
            triangles: tris.clone(),
            one_sided: false,
            degenerate: 0,
        });
        assert_eq!(tessellate(&mesh, &d), tris);
    }

    /// Every point of the domain box on the plane lies in the patch, whose
    /// triangles face the plane's normal.
    #[test]
    fn plane_patch_covers_the_domain_cross_section() {
        let d = domain();
        let cases = [
            ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            ([0.0, 0.0, 0.12], [0.0, 0.0, -1.0]),
            ([0.04, 0.0, 0.0], [-1.0, 0.0, 0.0]),
            ([0.02, 0.025, 0.06], [1.0, 1.0, 1.0]),
            ([0.01, 0.03, 0.02], [0.3, -0.2, 0.9]),
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for (point, n) in cases {
            let w = Wall::plane(point, n, 0);
            let tris = tessellate(&w, &d);
            let n = DVec3::from(w.as_plane().unwrap().1);
            for t in &tris {
                assert!((normal(t) - n).length() < 1e-12, "{t:?} faces {n}");
            }
            let p0 = DVec3::from(point);
            let mut inside = 0;
            for _ in 0..4000 {
                let q = DVec3::new(0.04 * rnd(), 0.05 * rnd(), 0.12 * rnd());
                let q = q - (q - p0).dot(n) * n; // onto the plane
                let eps = 1e-12;
                if (0..3).any(|k| q[k] < d.min[k] - eps || q[k] > d.max[k] + eps) {
                    continue;
                }
                inside += 1;
                let covered = tris.iter().any(|t| {
                    let [a, b, c] = t.map(DVec3::from);
                    [(a, b), (b, c), (c, a)]
                        .iter()
                        .all(|(u, v)| (*v - *u).cross(q - *u).dot(n) >= -1e-15)
                });
                assert!(covered, "{q} of plane {point:?} {n} not covered");
            }
            assert!(inside > 100, "too few samples on plane {point:?}");
        }
    }

    #[test]
    fn cylinder_vertices_lie_at_the_radius_and_face_the_particles() {
        let d = domain();
        for (length, side) in [(Some(0.03), Side::Inside), (None, Side::Outside)] {
            let tris = tessellate(&cylinder(length, side), &d);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for t in &tris {
                let mut mid = DVec3::ZERO;
                for v in t {
                    let (x, y, z) = (v[0] - 0.02, v[1], v[2] - 0.06);
                    assert!(((x * x + z * z).sqrt() - 0.015).abs() < 1e-15);
                    lo = lo.min(y);
                    hi = hi.max(y);
                    mid += DVec3::from(*v) / 3.0;
                }
                let out = DVec3::new(mid.x - 0.02, 0.0, mid.z - 0.06).normalize();
                let facing = normal(t).dot(out);
                match side {
                    Side::Inside => assert!(facing < -0.99),
                    Side::Outside => assert!(facing > 0.99),
                }
            }
            // finite: its length; infinite: the domain's extent along y
            let want = length.unwrap_or(0.05);
            assert!(lo.abs() < 1e-15 && (hi - want).abs() < 1e-15, "{lo} {hi}");
        }
    }

    /// A cut in rings with alternating diagonals and equal-area polygons:
    /// the asked count of triangles, each facing outward, the rings'
    /// polygons of the circle's area, and the two diagonals used equally.
    #[test]
    fn a_cut_has_its_rings_diagonals_and_area() {
        let cut = Cut {
            around: 12,
            rings: 4,
            alternate: true,
            equal_area: true,
        };
        let (r0, r1, h) = (0.5, 1.5, 2.0);
        let t = frustum_triangles(
            DVec3::ZERO,
            DVec3::Z,
            [0.0, h],
            [r0, r1],
            cut,
            Side::Outside,
        );
        assert_eq!(t.len(), 2 * 12 * 4);
        let mut first_corner = 0;
        for (q, tri) in t.iter().enumerate() {
            let [a, b, c] = tri.map(DVec3::from);
            let n = (b - a).cross(c - a);
            let mid = (a + b + c) / 3.0;
            assert!(
                n.dot(DVec3::new(mid.x, mid.y, 0.0)) > 0.0,
                "triangle {q} faces out"
            );
            if q % 2 == 0 && tri[2] == t[q + 1][1] {
                first_corner += 1; // split along p00–p11
            }
        }
        assert_eq!(first_corner, 12 * 4 / 2, "half the quads each way");
        // the bottom ring: a 12-gon of area π r0²
        let ring: Vec<DVec3> = t
            .iter()
            .flatten()
            .map(|v| DVec3::from(*v))
            .filter(|v| v.z == 0.0)
            .collect();
        let rad = ring[0].length();
        assert!(ring.iter().all(|v| (v.length() - rad).abs() < 1e-12));
        let area = 0.5 * 12.0 * rad * rad * (std::f64::consts::TAU / 12.0).sin();
        let circle = std::f64::consts::PI * r0 * r0;
        assert!((area - circle).abs() < 1e-12 * circle, "{area} vs {circle}");
    }

    #[test]
    fn cone_vertices_lie_on_the_frustum() {
        let w = wall(Shape::Cone {
            center: [0.0, 0.0, 0.01],
            axis: [0.0, 0.0, 1.0],
            radius: [0.008, 0.05],
            length: 0.08,
            side: Side::Inside,
        });
        let tris = tessellate(&w, &domain());
        for v in tris.iter().flatten() {
            let r = v[0].hypot(v[1]);
            let want = 0.008 + (0.05 - 0.008) * (v[2] - 0.01) / 0.08;
            assert!((r - want).abs() < 1e-15, "{v:?}");
            assert!(v[2] >= 0.01 - 1e-15 && v[2] <= 0.09 + 1e-15);
        }
    }

    /// The header of a written VTU: (NumberOfPoints, NumberOfCells), the
    /// arrays (name, offset) and the appended bytes.
    fn read_vtu(path: &Path) -> (usize, usize, Vec<(String, usize)>, Vec<u8>) {
        let bytes = std::fs::read(path).unwrap();
        let start = bytes.windows(3).position(|w| w == b"   _").unwrap_or(0);
        let start = bytes
            .windows(4)
            .position(|w| w == b"   _")
            .map(|p| p + 4)
            .unwrap_or(start);
        let head = std::str::from_utf8(&bytes[..start]).unwrap();
        let attr = |s: &str, key: &str| -> String {
            let k = s.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
            s[k..k + s[k..].find('"').unwrap()].to_string()
        };
        let np = attr(head, "NumberOfPoints").parse().unwrap();
        let nc = attr(head, "NumberOfCells").parse().unwrap();
        let arrays = head
            .split("<DataArray ")
            .skip(1)
            .map(|a| (attr(a, "Name"), attr(a, "offset").parse().unwrap()))
            .collect();
        let tail = b"\n  </AppendedData>\n</VTKFile>\n";
        assert!(bytes.ends_with(tail));
        (
            np,
            nc,
            arrays,
            bytes[start..bytes.len() - tail.len()].to_vec(),
        )
    }

    /// The raw bytes of array `name`.
    fn array<'a>(arrays: &[(String, usize)], data: &'a [u8], name: &str) -> &'a [u8] {
        let off = arrays.iter().find(|a| a.0 == name).unwrap().1;
        let len = u64::from_le_bytes(data[off..off + 8].try_into().unwrap()) as usize;
        &data[off + 8..off + 8 + len]
    }

    #[test]
    fn walls_vtu_and_pvd_structure() {
        let dir = scratch("vtu");
        let d = domain();
        let walls = vec![
            Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0),
            cylinder(Some(0.03), Side::Inside),
        ];
        let mut series = WallSeries::new(&dir, &walls, &d);
        // wall 1 moved up by 1 cm at t = 0.5
        for (k, t) in [(0, 0.0), (1, 0.5)] {
            series
                .write(k, t, |w, p| {
                    if w == 1 {
                        [p[0], p[1], p[2] + 0.02 * t]
                    } else {
                        p
                    }
                })
                .unwrap();
        }
        let (np, nc, arrays, data) = read_vtu(&series.vtu_path(1));
        // plane: 4 corners; tube: 2 rings of SEGMENTS
        assert_eq!(np, 4 + 2 * SEGMENTS);
        assert_eq!(nc, 2 + 2 * SEGMENTS);
        let names: Vec<&str> = arrays.iter().map(|a| a.0.as_str()).collect();
        assert_eq!(
            names,
            ["wall", "Points", "connectivity", "offsets", "types"]
        );
        // the arrays tile the appended block exactly
        let last = arrays.last().unwrap().1;
        let len = u64::from_le_bytes(data[last..last + 8].try_into().unwrap()) as usize;
        assert_eq!(last + 8 + len, data.len());
        let ids: Vec<i32> = bytemuck::pod_collect_to_vec(array(&arrays, &data, "wall"));
        assert_eq!(ids.iter().filter(|&&w| w == 0).count(), 2);
        assert_eq!(ids.iter().filter(|&&w| w == 1).count(), 2 * SEGMENTS);
        let conn: Vec<i64> = bytemuck::pod_collect_to_vec(array(&arrays, &data, "connectivity"));
        assert_eq!(conn.len(), 3 * nc);
        assert!(conn.iter().all(|&c| c >= 0 && (c as usize) < np));
        let types = array(&arrays, &data, "types");
        assert!(types.len() == nc && types.iter().all(|&t| t == 5));
        let pts: Vec<f64> = bytemuck::pod_collect_to_vec(array(&arrays, &data, "Points"));
        // the tube (centred on z = 0.06 at t = 0) is 1 cm up
        let zs: Vec<f64> = pts.chunks(3).skip(4).map(|p| p[2]).collect();
        let mean = zs.iter().sum::<f64>() / zs.len() as f64;
        assert!((mean - 0.07).abs() < 1e-12, "{mean}");
        let pvd = std::fs::read_to_string(series.pvd_path()).unwrap();
        assert_eq!(pvd.matches("<DataSet ").count(), 2);
        assert!(pvd.contains("file=\"walls_00001.vtu\""));
        // no walls: an empty but well-formed grid
        let empty = dir.join("empty.vtu");
        write_walls_vtu(&empty, &[]).unwrap();
        let (np, nc, arrays, data) = read_vtu(&empty);
        assert_eq!((np, nc, arrays.len()), (0, 0, 5));
        assert_eq!(data.len(), 5 * 8);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn walls_csv_rows() {
        let dir = scratch("csv");
        let path = dir.join("walls.csv");
        let mut walls = vec![Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0); 2];
        walls[1].name = Some("piston, top".into());
        let mut csv = WallsCsv::for_walls(&path, &walls, 0).unwrap();
        let load = WallLoad {
            force: [0.0, -1.5, 2.0],
            torque: [1e-3, 0.0, -0.25],
        };
        csv.row(0.0, &[WallLoad::default(), load]).unwrap();
        csv.row(0.1, &[load, load]).unwrap();
        let e = csv.row(0.2, &[load]).unwrap_err();
        assert_eq!(e.source.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("walls.csv"), "{e}");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "t,wall,fx,fy,fz,tx,ty,tz");
        assert_eq!(lines[1], "0e0,wall0,0e0,0e0,0e0,0e0,0e0,0e0");
        assert_eq!(
            lines[2],
            "0e0,\"piston, top\",0e0,-1.5e0,2e0,1e-3,0e0,-2.5e-1"
        );
        assert!(lines[3].starts_with("1e-1,wall0,"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_errors_name_the_file() {
        let dir = scratch("err").join("missing");
        let e = WallsCsv::open(&dir.join("walls.csv"), vec![], 0)
            .err()
            .unwrap();
        assert!(e.to_string().contains("missing/walls.csv"), "{e}");
        let mut s = WallSeries::new(&dir, &[], &domain());
        let e = s.write(3, 0.0, |_, p| p).unwrap_err();
        assert!(e.to_string().contains("walls_00003.vtu"), "{e}");
        assert!(write_walls_vtu(&dir.join("x.vtu"), &[]).is_err());
    }
}
