//! Particle CSV files: `x,y,z,vx,vy,vz,wx,wy,wz,radius,material` (SI units,
//! material by name), and an optional twelfth column `id`. `final.csv` is
//! written in this form with its ids, so a run continued from it starts
//! from the same bits with every particle's identity.

use crate::scene::error::SceneError;
use crate::scene::types::{Material, ParticleInit};
use std::fmt::Write as _;
use std::path::Path;

pub const COLUMNS: [&str; 11] = [
    "x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "radius", "material",
];

/// The optional last column: the particle's id (what `final.csv` writes).
pub const ID_COLUMN: &str = "id";

/// Reads a particle CSV. A header line (the column names) is optional;
/// blank lines and lines starting with `#` are skipped. Errors name the file,
/// the line and the column.
pub fn read_particles(
    path: &Path,
    materials: &[Material],
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
    // with ids: the header says so, or the first row has 12 columns; the
    // line each id was given on (a repeat is named with both)
    let mut with_id: Option<bool> = None;
    let mut id_lines: std::collections::HashMap<u32, usize> = Default::default();
    let names = |id: bool| {
        let mut c = COLUMNS.join(",");
        if id {
            c += &format!(",{ID_COLUMN}");
        }
        c
    };
    for (ln, raw) in text.lines().enumerate() {
        let line_no = ln + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if out.is_empty() && cols.first().is_some_and(|c| c.eq_ignore_ascii_case("x")) {
            let id = cols.len() == COLUMNS.len() + 1;
            if !(cols.len() == COLUMNS.len() || id)
                || cols
                    .iter()
                    .zip(COLUMNS.iter().chain([&ID_COLUMN]))
                    .any(|(a, b)| !a.eq_ignore_ascii_case(b))
            {
                return Err(err(
                    Some(line_no),
                    "header".into(),
                    format!(
                        "expected the header {} (or with a last column {ID_COLUMN})",
                        names(false)
                    ),
                ));
            }
            with_id = Some(id);
            continue;
        }
        let id = *with_id.get_or_insert(cols.len() == COLUMNS.len() + 1);
        let want = COLUMNS.len() + usize::from(id);
        if cols.len() != want {
            return Err(err(
                Some(line_no),
                String::new(),
                format!(
                    "expected {want} columns ({}{}), found {}",
                    names(id),
                    if id {
                        ""
                    } else {
                        ", or a last column id on every row"
                    },
                    cols.len()
                ),
            ));
        }
        let id = if id {
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
        let mut v = [0.0f64; 10];
        for k in 0..10 {
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
        });
    }
    if out.is_empty() {
        return Err(err(None, String::new(), "no particles in file".into()));
    }
    Ok(out)
}

/// Writes particles in the input CSV format (full f64 precision, so a
/// continued run starts from the same bits).
pub fn write_particles(
    path: &Path,
    particles: &[ParticleInit],
    materials: &[Material],
) -> std::io::Result<()> {
    let mut s = String::with_capacity(particles.len() * 210 + 64);
    s.push_str(&COLUMNS.join(","));
    s.push(',');
    s.push_str(ID_COLUMN);
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
        let _ = writeln!(s, ",{}", p.id.unwrap_or(k as u32));
    }
    std::fs::write(path, s)
}
