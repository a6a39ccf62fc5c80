//! Particle CSV files: `x,y,z,vx,vy,vz,wx,wy,wz,radius,material` (SI units,
//! material by name). `final.csv` is written in exactly this form so a run
//! can be continued from it.

use crate::scene::error::SceneError;
use crate::scene::types::{Material, ParticleInit};
use std::fmt::Write as _;
use std::path::Path;

pub const COLUMNS: [&str; 11] = [
    "x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "radius", "material",
];

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
    for (ln, raw) in text.lines().enumerate() {
        let line_no = ln + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if out.is_empty() && cols.first().is_some_and(|c| c.eq_ignore_ascii_case("x")) {
            if cols.len() != COLUMNS.len()
                || cols
                    .iter()
                    .zip(COLUMNS)
                    .any(|(a, b)| !a.eq_ignore_ascii_case(b))
            {
                return Err(err(
                    Some(line_no),
                    "header".into(),
                    format!("expected the header {}", COLUMNS.join(",")),
                ));
            }
            continue;
        }
        if cols.len() != COLUMNS.len() {
            return Err(err(
                Some(line_no),
                String::new(),
                format!(
                    "expected {} columns ({}), found {}",
                    COLUMNS.len(),
                    COLUMNS.join(","),
                    cols.len()
                ),
            ));
        }
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
    let mut s = String::with_capacity(particles.len() * 200 + 64);
    s.push_str(&COLUMNS.join(","));
    s.push('\n');
    for p in particles {
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
        s.push('\n');
    }
    std::fs::write(path, s)
}
