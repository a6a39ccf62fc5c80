//! Particle CSV files: `x,y,z,vx,vy,vz,wx,wy,wz,radius,material` (SI units,
//! material by name), and an optional twelfth column `id`. `final.csv` is
//! written in this form with its ids, so a run continued from it starts
//! from the same bits with every particle's identity.

use crate::scene::error::SceneError;
use crate::scene::types::{ClumpShape, Material, ParticleInit, IDENTITY};
use std::fmt::Write as _;
use std::path::Path;

pub const COLUMNS: [&str; 11] = [
    "x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "radius", "material",
];

/// The optional twelfth column: the particle's id (what `final.csv` writes).
pub const ID_COLUMN: &str = "id";

/// The optional last columns: a clump's shape (a `[[shapes]]` name; empty:
/// a sphere) and its orientation, the quaternion (w, x, y, z) turning the
/// shape's frame as written into the world (normalised; empty or identity
/// for a sphere).
pub const SHAPE_COLUMNS: [&str; 5] = ["shape", "qw", "qx", "qy", "qz"];

/// Which optional columns a file has.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Layout {
    id: bool,
    shape: bool,
}

impl Layout {
    const ALL: [Layout; 4] = [
        Layout {
            id: false,
            shape: false,
        },
        Layout {
            id: true,
            shape: false,
        },
        Layout {
            id: false,
            shape: true,
        },
        Layout {
            id: true,
            shape: true,
        },
    ];

    fn names(self) -> Vec<&'static str> {
        let mut v = COLUMNS.to_vec();
        if self.id {
            v.push(ID_COLUMN);
        }
        if self.shape {
            v.extend(SHAPE_COLUMNS);
        }
        v
    }

    fn len(self) -> usize {
        11 + usize::from(self.id) + 5 * usize::from(self.shape)
    }
}

/// A row's shape (index) and orientation (normalised).
type ShapeCells = (Option<usize>, [f64; 4]);

/// A row's shape and orientation cells: (the shape's index, the
/// orientation normalised), or (the column, what is wrong).
fn read_shape(cells: &[&str], shapes: &[ClumpShape]) -> Result<ShapeCells, (&'static str, String)> {
    let name = cells[0];
    let q_empty = cells[1..].iter().all(|c| c.is_empty());
    if name.is_empty() && q_empty {
        return Ok((None, IDENTITY));
    }
    let mut q = [0.0; 4];
    for k in 0..4 {
        q[k] = match cells[k + 1].parse::<f64>() {
            Ok(x) if x.is_finite() => x,
            _ => {
                return Err((
                    SHAPE_COLUMNS[k + 1],
                    format!(
                        "expected a finite number (the orientation quaternion w, x, y, z), found \"{}\"",
                        cells[k + 1]
                    ),
                ))
            }
        };
    }
    if name.is_empty() {
        if q != IDENTITY {
            return Err((
                "qw",
                format!("a sphere (shape empty) has no orientation: leave qw..qz empty or 1,0,0,0, found {q:?}"),
            ));
        }
        return Ok((None, IDENTITY));
    }
    let Some(s) = shapes.iter().position(|s| s.name == name) else {
        let names: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
        return Err((
            "shape",
            format!(
                "unknown shape \"{name}\" (defined: {}; empty: a sphere)",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    };
    let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm.is_nan() || norm <= 1e-12 {
        return Err((
            "qw",
            "the orientation quaternion is zero: give a rotation (w, x, y, z), e.g. 1,0,0,0".into(),
        ));
    }
    Ok((Some(s), q.map(|x| x / norm)))
}

/// Reads a particle CSV. A header line (the column names) is optional;
/// blank lines and lines starting with `#` are skipped. Errors name the file,
/// the line and the column.
pub fn read_particles(
    path: &Path,
    materials: &[Material],
    shapes: &[ClumpShape],
    source: usize,
) -> Result<Vec<ParticleInit>, SceneError> {
    let err = |line: Option<usize>, key: String, message: String| SceneError {
        file: Some(path.to_path_buf()),
        line,
        key,
        message,
    };
    // its size before it is read: the text, and at most a particle per 22
    // bytes (the shortest row, `0,0,0,0,0,0,0,0,0,1,m` and its line break)
    if let Ok(m) = std::fs::metadata(path) {
        let rows = m.len() / 22;
        let need = m
            .len()
            .saturating_add(rows.saturating_mul(crate::memory::LOAD_BYTES_PER_PARTICLE));
        crate::memory::admit(
            &format!("reading {} bytes of particles", m.len()),
            need,
            0,
            1,
            "bytes",
        )
        .map_err(|e| err(None, String::new(), e))?;
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        err(
            None,
            String::new(),
            format!("cannot read particle file: {e}"),
        )
    })?;
    // spreadsheets often save UTF-8 with a byte-order mark
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut out = Vec::new();
    // the layout (with ids?, with shape columns?): the header says so, or
    // the first row's count (11, 12, 16, 17); the line each id was given
    // on (a repeat is named with both)
    let mut layout: Option<Layout> = None;
    let mut id_lines: std::collections::HashMap<u32, usize> = Default::default();
    for (ln, raw) in text.lines().enumerate() {
        let line_no = ln + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if out.is_empty()
            && layout.is_none()
            && cols.first().is_some_and(|c| c.eq_ignore_ascii_case("x"))
        {
            let found = Layout::ALL.into_iter().find(|l| {
                let names = l.names();
                names.len() == cols.len()
                    && cols
                        .iter()
                        .zip(&names)
                        .all(|(a, b)| a.eq_ignore_ascii_case(b))
            });
            let Some(l) = found else {
                return Err(err(
                    Some(line_no),
                    "header".into(),
                    format!(
                        "expected the header {} (then optionally {ID_COLUMN}, then optionally {})",
                        COLUMNS.join(","),
                        SHAPE_COLUMNS.join(",")
                    ),
                ));
            };
            layout = Some(l);
            continue;
        }
        let l = match layout {
            Some(l) => l,
            None => {
                let Some(l) = Layout::ALL.into_iter().find(|l| l.len() == cols.len()) else {
                    return Err(err(
                        Some(line_no),
                        String::new(),
                        format!(
                            "expected 11, 12, 16 or 17 columns ({}, then optionally {ID_COLUMN}, then optionally {}), found {}",
                            COLUMNS.join(","),
                            SHAPE_COLUMNS.join(","),
                            cols.len()
                        ),
                    ));
                };
                *layout.insert(l)
            }
        };
        if cols.len() != l.len() {
            return Err(err(
                Some(line_no),
                String::new(),
                format!(
                    "expected {} columns ({}), found {}",
                    l.len(),
                    l.names().join(","),
                    cols.len()
                ),
            ));
        }
        let id = if l.id {
            let max = crate::state::MAX_GIVEN_ID;
            let v: u32 = match cols[11].parse::<u32>() {
                Ok(v) if v <= max => v,
                _ => {
                    return Err(err(
                        Some(line_no),
                        format!("column {ID_COLUMN}"),
                        format!("expected an id from 0 to {max}, found \"{}\"", cols[11]),
                    ))
                }
            };
            if let Some(first) = id_lines.insert(v, line_no) {
                return Err(err(
                    Some(line_no),
                    format!("column {ID_COLUMN}"),
                    format!(
                        "id {v} is given twice (line {first} and here): ids name one particle each"
                    ),
                ));
            }
            Some(v)
        } else {
            None
        };
        // the shape and orientation columns (a sphere: shape empty)
        let (shape, orientation) = if l.shape {
            let at = if l.id { 12 } else { 11 };
            read_shape(&cols[at..at + 5], shapes)
                .map_err(|(col, m)| err(Some(line_no), format!("column {col}"), m))?
        } else {
            (None, IDENTITY)
        };
        let mut v = [0.0f64; 10];
        for k in 0..10 {
            // a clump's radius may be left empty (it is its shape's)
            if k == 9 && cols[k].is_empty() {
                if let Some(s) = shape {
                    v[9] = shapes[s].body.max_radius;
                    continue;
                }
            }
            v[k] = match cols[k].parse::<f64>() {
                Ok(x) if x.is_finite() => x,
                _ => {
                    return Err(err(
                        Some(line_no),
                        format!("column {}", COLUMNS[k]),
                        format!("expected a finite number, found \"{}\"", cols[k]),
                    ))
                }
            };
        }
        if v[9] <= 0.0 {
            return Err(err(
                Some(line_no),
                "column radius".into(),
                format!("expected a radius > 0 m, found \"{}\"", cols[9]),
            ));
        }
        if let Some(s) = shape {
            let want = shapes[s].body.max_radius;
            if (v[9] - want).abs() > 1e-9 * want {
                return Err(err(
                    Some(line_no),
                    "column radius".into(),
                    format!(
                        "a clump's radius is its shape's largest member radius, {want:e} m for \"{}\" (or leave it empty), found \"{}\"",
                        shapes[s].name, cols[9]
                    ),
                ));
            }
        }
        let name = cols[10];
        let material = materials
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = materials.iter().map(|m| m.name.as_str()).collect();
                err(
                    Some(line_no),
                    "column material".into(),
                    format!(
                        "unknown material \"{name}\" (defined: {})",
                        names.join(", ")
                    ),
                )
            })?;
        out.push(ParticleInit {
            position: [v[0], v[1], v[2]],
            velocity: [v[3], v[4], v[5]],
            angular_velocity: [v[6], v[7], v[8]],
            radius: v[9],
            material,
            source,
            id,
            shape,
            orientation,
        });
    }
    if out.is_empty() {
        return Err(err(None, String::new(), "no particles in file".into()));
    }
    Ok(out)
}

/// Writes particles in the input CSV format (full f64 precision, so a
/// continued run starts from the same bits), with their ids, and with the
/// shape columns when some particle is a clump (a sphere's shape cell is
/// empty, its orientation 1,0,0,0).
pub fn write_particles(
    path: &Path,
    particles: &[ParticleInit],
    materials: &[Material],
    shapes: &[ClumpShape],
) -> std::io::Result<()> {
    let clumps = particles.iter().any(|p| p.shape.is_some());
    let mut s = String::with_capacity(particles.len() * (210 + 80 * usize::from(clumps)) + 64);
    s.push_str(
        &Layout {
            id: true,
            shape: clumps,
        }
        .names()
        .join(","),
    );
    s.push('\n');
    for (k, p) in particles.iter().enumerate() {
        for x in p
            .position
            .iter()
            .chain(&p.velocity)
            .chain(&p.angular_velocity)
            .chain(std::iter::once(&p.radius))
        {
            let _ = write!(s, "{x:e},");
        }
        s.push_str(&materials[p.material].name);
        // particles without an id of their own are numbered as a run
        // would number them alone
        let _ = write!(s, ",{}", p.id.unwrap_or(k as u32));
        if clumps {
            let name = p.shape.map_or("", |i| shapes[i].name.as_str());
            let [w, x, y, z] = p.orientation;
            let _ = write!(s, ",{name},{w:e},{x:e},{y:e},{z:e}");
        }
        s.push('\n');
    }
    std::fs::write(path, s)
}
