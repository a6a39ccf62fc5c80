//! VTK XML output: one `particles_NNNNN.vtu` per snapshot (unstructured grid
//! of vertex cells, raw binary appended data, little-endian) and a
//! `particles.pvd` collection so ParaView opens the series in one click.

use crate::scene::types::Scene;
use crate::state::Particles;
use std::io::Write;
use std::path::Path;

/// One appended data array: its VTK type name, component count and raw
/// little-endian bytes.
pub(crate) struct Array {
    name: &'static str,
    ty: &'static str,
    comps: usize,
    bytes: Vec<u8>,
}

pub(crate) fn arr<T: bytemuck::Pod>(
    name: &'static str,
    ty: &'static str,
    comps: usize,
    data: &[T],
) -> Array {
    Array {
        name,
        ty,
        comps,
        bytes: bytemuck::cast_slice(data).to_vec(),
    }
}

/// Writes one snapshot. Point data: radius, velocity, angular_velocity,
/// material (index), material name table in FieldData-free form (index
/// only), id, dissipated_energy.
pub fn write_vtu(path: &Path, p: &Particles<f64>, _scene: &Scene) -> std::io::Result<()> {
    let n = p.len();
    let points: Vec<f64> = p.pos_rad.iter().flat_map(|a| [a[0], a[1], a[2]]).collect();
    let radius: Vec<f64> = p.pos_rad.iter().map(|a| a[3]).collect();
    let vel: Vec<f64> = p.vel_invm.iter().flat_map(|a| [a[0], a[1], a[2]]).collect();
    let om: Vec<f64> = p
        .omega_invi
        .iter()
        .flat_map(|a| [a[0], a[1], a[2]])
        .collect();
    let mass: Vec<f64> = p.vel_invm.iter().map(|a| 1.0 / a[3]).collect();
    let mat: Vec<i32> = p.material.iter().map(|&m| m as i32).collect();
    let ids: Vec<i64> = p.id.iter().map(|&i| i as i64).collect();
    let conn: Vec<i64> = (0..n as i64).collect();
    let offs: Vec<i64> = (1..=n as i64).collect();
    let types: Vec<u8> = vec![1u8; n]; // VTK_VERTEX
    let point_data = vec![
        arr("radius", "Float64", 1, &radius),
        arr("velocity", "Float64", 3, &vel),
        arr("angular_velocity", "Float64", 3, &om),
        arr("mass", "Float64", 1, &mass),
        arr("material", "Int32", 1, &mat),
        arr("id", "Int64", 1, &ids),
        arr("dissipated_energy", "Float64", 1, &p.dissipated),
    ];
    let pts = arr("Points", "Float64", 3, &points);
    let cells = [
        arr("connectivity", "Int64", 1, &conn),
        arr("offsets", "Int64", 1, &offs),
        arr("types", "UInt8", 1, &types),
    ];
    write_grid(
        path,
        [n, n],
        (
            "PointData Scalars=\"radius\" Vectors=\"velocity\"",
            &point_data,
        ),
        ("CellData", &[]),
        &pts,
        &cells,
    )
}

/// Writes one unstructured grid of `counts = [points, cells]`: the
/// attribute arrays of the points and of the cells, each with the opening
/// tag of its section (e.g. `PointData Scalars="radius"`; a section without
/// arrays is left out), the `Points` array and the three `Cells` arrays
/// (connectivity, offsets, types), all appended as raw binary with a UInt64
/// byte count each.
pub(crate) fn write_grid(
    path: &Path,
    counts: [usize; 2],
    point_data: (&str, &[Array]),
    cell_data: (&str, &[Array]),
    pts: &Array,
    cells: &[Array; 3],
) -> std::io::Result<()> {
    let mut xml = String::new();
    let mut offset = 0usize;
    let mut da = |a: &Array, xml: &mut String| {
        xml.push_str(&format!(
            "        <DataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\" format=\"appended\" offset=\"{}\"/>\n",
            a.ty, a.name, a.comps, offset
        ));
        offset += 8 + a.bytes.len();
    };
    xml.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n");
    xml.push_str(&format!(
        "    <Piece NumberOfPoints=\"{}\" NumberOfCells=\"{}\">\n",
        counts[0], counts[1]
    ));
    for (open, arrays) in [point_data, cell_data] {
        if arrays.is_empty() {
            continue;
        }
        xml.push_str(&format!("      <{open}>\n"));
        for a in arrays {
            da(a, &mut xml);
        }
        let close = open.split(' ').next().unwrap_or(open);
        xml.push_str(&format!("      </{close}>\n"));
    }
    xml.push_str("      <Points>\n");
    da(pts, &mut xml);
    xml.push_str("      </Points>\n      <Cells>\n");
    for a in cells {
        da(a, &mut xml);
    }
    xml.push_str("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n   _");
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(xml.as_bytes())?;
    for a in point_data
        .1
        .iter()
        .chain(cell_data.1)
        .chain(std::iter::once(pts))
        .chain(cells.iter())
    {
        f.write_all(&(a.bytes.len() as u64).to_le_bytes())?;
        f.write_all(&a.bytes)?;
    }
    f.write_all(b"\n  </AppendedData>\n</VTKFile>\n")?;
    f.flush()
}

/// Writes the `.pvd` collection listing `(time, file name)` entries.
pub fn write_pvd(path: &Path, entries: &[(f64, String)]) -> std::io::Result<()> {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, file) in entries {
        s.push_str(&format!(
            "    <DataSet timestep=\"{t:e}\" group=\"\" part=\"0\" file=\"{file}\"/>\n"
        ));
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    std::fs::write(path, s)
}
