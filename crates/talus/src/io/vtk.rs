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
pub fn write_vtu(path: &Path, p: &Particles<f64>, scene: &Scene) -> std::io::Result<()> {
    write_vtu_clumps(path, p, scene, &[])
}

/// [`write_vtu`] of a state with clumps (`clumps`, the bodies of the rows
/// with their ids): every member sphere is a point, with its clump's id,
/// and two more arrays: `shape` (the `[[shapes]]` index; −1 for a sphere)
/// and `orientation` (w, x, y, z as written; 1, 0, 0, 0 for a sphere).
pub fn write_vtu_clumps(
    path: &Path,
    p: &Particles<f64>,
    _scene: &Scene,
    clumps: &[crate::shapes::clumps::ClumpRow],
) -> std::io::Result<()> {
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
    let mut point_data = point_data;
    if !clumps.is_empty() {
        let by_id: std::collections::HashMap<u32, &crate::shapes::clumps::ClumpRow> =
            clumps.iter().map(|c| (c.id, c)).collect();
        let of = |i: usize| by_id.get(&p.id[i]);
        let shape: Vec<i32> = (0..n)
            .map(|i| of(i).map_or(-1, |c| c.shape as i32))
            .collect();
        let q: Vec<f64> = (0..n)
            .flat_map(|i| of(i).map_or(crate::scene::types::IDENTITY, |c| c.orientation))
            .collect();
        point_data.push(arr("shape", "Int32", 1, &shape));
        point_data.push(arr("orientation", "Float64", 4, &q));
    }
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

/// One array of a VTU file read back: its name, component count and
/// values (every VTK number type talus writes, widened).
#[derive(Debug, Clone, PartialEq)]
pub struct VtuArray {
    pub name: String,
    pub comps: usize,
    pub data: VtuData,
}

/// The values of a [`VtuArray`], by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum VtuData {
    /// Float64, or Float32 widened.
    F64(Vec<f64>),
    /// Int8..Int64 and UInt8..UInt64 (below 2^63), widened.
    I64(Vec<i64>),
}

/// A wall triangle read back: its vertices (m) and its wall index.
pub type WallTriangle = ([[f64; 3]; 3], u32);

/// An unstructured grid read back ([`read_vtu`]): the counts, the point
/// and cell attribute arrays, the points and the cell arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct Vtu {
    pub points: usize,
    pub cells: usize,
    pub point_data: Vec<VtuArray>,
    pub cell_data: Vec<VtuArray>,
    /// x, y, z per point.
    pub coords: Vec<[f64; 3]>,
    /// connectivity, offsets, types.
    pub connectivity: Vec<i64>,
    pub offsets: Vec<i64>,
    pub types: Vec<i64>,
}

impl Vtu {
    fn find<'a>(arrays: &'a [VtuArray], name: &str) -> Option<&'a VtuArray> {
        arrays.iter().find(|a| a.name == name)
    }

    /// A point array as f64 (integers converted), checked to hold `comps`
    /// components per point.
    pub fn point_f64(&self, name: &str, comps: usize) -> Result<Vec<f64>, String> {
        let a = Vtu::find(&self.point_data, name)
            .ok_or_else(|| format!("no point array \"{name}\""))?;
        if a.comps != comps {
            return Err(format!(
                "point array \"{name}\" has {} components, not {comps}",
                a.comps
            ));
        }
        Ok(match &a.data {
            VtuData::F64(v) => v.clone(),
            VtuData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        })
    }

    /// An integer point or cell array (`cell` picks the section), one
    /// component.
    pub fn ints(&self, name: &str, cell: bool) -> Result<Vec<i64>, String> {
        let arrays = if cell {
            &self.cell_data
        } else {
            &self.point_data
        };
        let a = Vtu::find(arrays, name).ok_or_else(|| format!("no array \"{name}\""))?;
        match &a.data {
            VtuData::I64(v) if a.comps == 1 => Ok(v.clone()),
            _ => Err(format!("array \"{name}\" is not one integer per entry")),
        }
    }

    /// The particles of a `particles_NNNNN.vtu` ([`write_vtu`]): positions
    /// and radii, velocities and 1/m, angular velocities (1/I is not
    /// written: 0), material, id, dissipated energy: bit-exact.
    pub fn particles(&self) -> Result<Particles<f64>, String> {
        let n = self.points;
        let radius = self.point_f64("radius", 1)?;
        let vel = self.point_f64("velocity", 3)?;
        let om = self.point_f64("angular_velocity", 3)?;
        let mass = self.point_f64("mass", 1)?;
        let mat = self.ints("material", false)?;
        let ids = self.ints("id", false)?;
        let dis = self.point_f64("dissipated_energy", 1)?;
        let to_u32 = |name: &str, v: Vec<i64>| -> Result<Vec<u32>, String> {
            v.into_iter()
                .map(|x| u32::try_from(x).map_err(|_| format!("{name} {x} out of range")))
                .collect()
        };
        // talus never writes a non-finite value: one here is damage, and
        // the analyses would skip or spread it without a word
        for i in 0..n {
            let c = self.coords[i];
            let bad = [
                ("position", c.iter().all(|x| x.is_finite())),
                ("radius", radius[i].is_finite() && radius[i] > 0.0),
                ("mass", mass[i].is_finite() && mass[i] > 0.0),
                (
                    "velocity",
                    vel[3 * i..3 * i + 3].iter().all(|x| x.is_finite()),
                ),
                (
                    "angular_velocity",
                    om[3 * i..3 * i + 3].iter().all(|x| x.is_finite()),
                ),
            ]
            .into_iter()
            .find(|(_, ok)| !ok);
            if let Some((name, _)) = bad {
                let id = ids.get(i).map_or(String::new(), |d| format!(" (id {d})"));
                return Err(format!(
                    "point {i}{id}: {name} not finite (or not > 0): a damaged snapshot"
                ));
            }
        }
        Ok(Particles {
            pos_rad: (0..n)
                .map(|i| {
                    let c = self.coords[i];
                    [c[0], c[1], c[2], radius[i]]
                })
                .collect(),
            vel_invm: (0..n)
                .map(|i| [vel[3 * i], vel[3 * i + 1], vel[3 * i + 2], 1.0 / mass[i]])
                .collect(),
            omega_invi: (0..n)
                .map(|i| [om[3 * i], om[3 * i + 1], om[3 * i + 2], 0.0])
                .collect(),
            material: to_u32("material", mat)?,
            id: to_u32("id", ids)?,
            dissipated: dis,
        })
    }

    /// The triangles of a `walls_NNNNN.vtu` (`io::walls::write_walls_vtu`),
    /// each with its wall index.
    /// The tetrahedra of a body's VTU (`io::bodies`: VTK_TETRA or
    /// VTK_QUADRATIC_TETRA cells, in VTK's node order) as a mesh at the
    /// file's points.
    pub fn tetrahedra(&self) -> Result<crate::fem::mesh::TetMesh, String> {
        use crate::fem::mesh::{Order, TetMesh, UNUSED};
        let mut tets = Vec::with_capacity(self.cells);
        let mut order = None;
        let mut start = 0usize;
        for (c, (&off, &ty)) in self.offsets.iter().zip(&self.types).enumerate() {
            let end = off as usize;
            let (n, o) = match ty {
                10 => (4, Order::Linear),
                24 => (10, Order::Quadratic),
                _ => return Err(format!("cell {c} is not a tetrahedron (VTK type {ty})")),
            };
            if end != start + n || end > self.connectivity.len() || order.is_some_and(|x| x != o) {
                return Err(format!(
                    "cell {c}: {} nodes, expected {n} of one order",
                    end - start
                ));
            }
            order = Some(o);
            let mut t = [UNUSED; 10];
            for (k, slot) in t.iter_mut().take(n).enumerate() {
                let p = self.connectivity[start + k];
                *slot = u32::try_from(p)
                    .ok()
                    .filter(|&p| (p as usize) < self.coords.len())
                    .ok_or_else(|| format!("cell {c}: point {p} out of range"))?;
            }
            tets.push(t);
            start = end;
        }
        Ok(TetMesh {
            nodes: self.coords.iter().map(|&x| glam::DVec3::from(x)).collect(),
            tets,
            order: order.unwrap_or(Order::Linear),
        })
    }

    pub fn triangles(&self) -> Result<Vec<WallTriangle>, String> {
        let wall = self.ints("wall", true)?;
        let mut out = Vec::with_capacity(self.cells);
        let mut start = 0usize;
        for (c, (&off, &ty)) in self.offsets.iter().zip(&self.types).enumerate() {
            let end = off as usize;
            if ty != 5 || end != start + 3 || end > self.connectivity.len() {
                return Err(format!("cell {c} is not a triangle"));
            }
            let mut t = [[0.0; 3]; 3];
            for (k, v) in t.iter_mut().enumerate() {
                let p = self.connectivity[start + k];
                *v = *usize::try_from(p)
                    .ok()
                    .and_then(|p| self.coords.get(p))
                    .ok_or_else(|| format!("cell {c}: point {p} out of range"))?;
            }
            let wv = *wall.get(c).ok_or("fewer wall indices than cells")?;
            let w = u32::try_from(wv).map_err(|_| format!("cell {c}: wall {wv}"))?;
            out.push((t, w));
            start = end;
        }
        Ok(out)
    }
}

/// The value of attribute `name` in an XML tag's text.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let j = tag[i..].find('"')?;
    Some(&tag[i..i + j])
}

/// Reads a `.vtu` as talus writes it ([`write_vtu`],
/// `io::walls::write_walls_vtu`): an unstructured grid, little-endian,
/// UInt64 headers, every array raw binary appended. Anything else (ASCII
/// or base64 data, compression, another byte order, a truncated file) is
/// an error: one line naming the file and what is wrong.
pub fn read_vtu(path: &Path) -> Result<Vtu, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_vtu(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`read_vtu`] on the file's bytes.
pub fn parse_vtu(bytes: &[u8]) -> Result<Vtu, String> {
    const MARK: &[u8] = b"<AppendedData encoding=\"raw\">";
    let at = bytes
        .windows(MARK.len())
        .position(|w| w == MARK)
        .ok_or("not a VTU file with raw appended data (talus reads back only what it writes)")?;
    let head = std::str::from_utf8(&bytes[..at]).map_err(|_| "the XML header is not UTF-8")?;
    let us = bytes[at + MARK.len()..]
        .iter()
        .position(|&b| b == b'_')
        .ok_or("no '_' starting the appended data")?;
    let data = &bytes[at + MARK.len() + us + 1..];
    let file_tag = head
        .find("<VTKFile")
        .map(|i| &head[i..i + head[i..].find('>').unwrap_or(0)])
        .ok_or("no <VTKFile> element")?;
    if attr(file_tag, "type") != Some("UnstructuredGrid") {
        return Err("not an UnstructuredGrid".into());
    }
    if attr(file_tag, "byte_order") != Some("LittleEndian") {
        return Err("not little-endian".into());
    }
    if attr(file_tag, "header_type") != Some("UInt64") {
        return Err("the header type is not UInt64".into());
    }
    if attr(file_tag, "compressor").is_some() {
        return Err("compressed data is not supported".into());
    }
    let piece = head
        .find("<Piece")
        .map(|i| &head[i..i + head[i..].find('>').unwrap_or(0)])
        .ok_or("no <Piece> element")?;
    let count = |name: &str| -> Result<usize, String> {
        attr(piece, name)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("<Piece> has no valid {name}"))
    };
    let (points, cells) = (count("NumberOfPoints")?, count("NumberOfCells")?);
    if head.matches("<Piece").count() != 1 {
        return Err("more than one <Piece>".into());
    }
    let mut vtu = Vtu {
        points,
        cells,
        point_data: Vec::new(),
        cell_data: Vec::new(),
        coords: Vec::new(),
        connectivity: Vec::new(),
        offsets: Vec::new(),
        types: Vec::new(),
    };
    #[derive(PartialEq)]
    enum Sec {
        None,
        Point,
        Cell,
        Points,
        Cells,
    }
    let mut sec = Sec::None;
    let mut rest = head;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').ok_or("an unclosed XML tag")? + i;
        let tag = &rest[i..=j];
        rest = &rest[j + 1..];
        let (closing, inner) = match tag[1..].strip_prefix('/') {
            Some(t) => (true, t),
            None => (false, &tag[1..]),
        };
        let name = inner
            .split(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .next()
            .unwrap_or("");
        if matches!(name, "PointData" | "CellData" | "Points" | "Cells") {
            sec = match (closing, name) {
                (true, _) => Sec::None,
                (false, "PointData") => Sec::Point,
                (false, "CellData") => Sec::Cell,
                (false, "Points") => Sec::Points,
                _ => Sec::Cells,
            };
        }
        if name != "DataArray" {
            continue;
        }
        let aname = attr(tag, "Name").unwrap_or("").to_string();
        if attr(tag, "format") != Some("appended") {
            return Err(format!("array \"{aname}\" is not appended binary"));
        }
        let ty = attr(tag, "type").ok_or_else(|| format!("array \"{aname}\" has no type"))?;
        let comps: usize = match attr(tag, "NumberOfComponents") {
            None => 1,
            Some(c) => c
                .parse()
                .ok()
                .filter(|&c| c > 0)
                .ok_or_else(|| format!("array \"{aname}\": bad NumberOfComponents"))?,
        };
        let offset: usize = attr(tag, "offset")
            .and_then(|o| o.parse().ok())
            .ok_or_else(|| format!("array \"{aname}\" has no valid offset"))?;
        let entries = match sec {
            Sec::Point | Sec::Points => points,
            Sec::Cell => cells,
            Sec::Cells if aname == "connectivity" => usize::MAX,
            Sec::Cells => cells,
            Sec::None => return Err(format!("array \"{aname}\" outside a section")),
        };
        let arr = read_array(data, offset, ty, &aname)?;
        let len = match &arr {
            VtuData::F64(v) => v.len(),
            VtuData::I64(v) => v.len(),
        };
        if entries != usize::MAX && len != entries.saturating_mul(comps) {
            return Err(format!(
                "array \"{aname}\" holds {len} values, not {entries} × {comps}"
            ));
        }
        let a = VtuArray {
            name: aname.clone(),
            comps,
            data: arr,
        };
        let ints = |a: VtuArray| -> Result<Vec<i64>, String> {
            match a.data {
                VtuData::I64(v) => Ok(v),
                VtuData::F64(_) => Err(format!("array \"{aname}\" is not integer")),
            }
        };
        match sec {
            Sec::Point => vtu.point_data.push(a),
            Sec::Cell => vtu.cell_data.push(a),
            Sec::Points => {
                if comps != 3 {
                    return Err("Points do not have 3 components".into());
                }
                let VtuData::F64(v) = a.data else {
                    return Err("Points are not floating point".into());
                };
                vtu.coords = v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            }
            Sec::Cells => match aname.as_str() {
                "connectivity" => vtu.connectivity = ints(a)?,
                "offsets" => vtu.offsets = ints(a)?,
                "types" => vtu.types = ints(a)?,
                _ => return Err(format!("unknown Cells array \"{aname}\"")),
            },
            Sec::None => unreachable!("checked above"),
        }
    }
    if vtu.coords.len() != points {
        return Err("no Points array".into());
    }
    if vtu.offsets.len() != cells || vtu.types.len() != cells {
        return Err("the Cells arrays are missing".into());
    }
    Ok(vtu)
}

/// One appended array at `offset` (its UInt64 byte count, then the bytes).
fn read_array(data: &[u8], offset: usize, ty: &str, name: &str) -> Result<VtuData, String> {
    let short = || format!("the file ends inside array \"{name}\" (truncated?)");
    let hdr = data
        .get(offset..offset.checked_add(8).ok_or_else(short)?)
        .ok_or_else(short)?;
    let len = u64::from_le_bytes(hdr.try_into().expect("8 bytes"));
    let len = usize::try_from(len).map_err(|_| short())?;
    let start = offset + 8;
    let b = data
        .get(start..start.checked_add(len).ok_or_else(short)?)
        .ok_or_else(short)?;
    let size = match ty {
        "Float64" | "Int64" | "UInt64" => 8,
        "Float32" | "Int32" | "UInt32" => 4,
        "Int16" | "UInt16" => 2,
        "Int8" | "UInt8" => 1,
        _ => return Err(format!("array \"{name}\": unsupported type {ty}")),
    };
    if len % size != 0 {
        return Err(format!(
            "array \"{name}\": {len} bytes is not a whole number of {ty}"
        ));
    }
    let ch = b.chunks_exact(size);
    Ok(match ty {
        "Float64" => VtuData::F64(
            ch.map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        "Float32" => VtuData::F64(
            ch.map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect(),
        ),
        "Int64" => VtuData::I64(
            ch.map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        "UInt64" => VtuData::I64(
            ch.map(|c| u64::from_le_bytes(c.try_into().unwrap()).min(i64::MAX as u64) as i64)
                .collect(),
        ),
        "Int32" => VtuData::I64(
            ch.map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64)
                .collect(),
        ),
        "UInt32" => VtuData::I64(
            ch.map(|c| u32::from_le_bytes(c.try_into().unwrap()) as i64)
                .collect(),
        ),
        "Int16" => VtuData::I64(
            ch.map(|c| i16::from_le_bytes(c.try_into().unwrap()) as i64)
                .collect(),
        ),
        "UInt16" => VtuData::I64(
            ch.map(|c| u16::from_le_bytes(c.try_into().unwrap()) as i64)
                .collect(),
        ),
        "Int8" => VtuData::I64(b.iter().map(|&x| x as i8 as i64).collect()),
        _ => VtuData::I64(b.iter().map(|&x| x as i64).collect()),
    })
}

/// Reads a `.pvd` collection as talus writes it ([`super::series::write_pvd`]): its
/// `(time, file name)` entries in order.
pub fn read_pvd(path: &Path) -> Result<Vec<(f64, String)>, String> {
    let s = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !s.contains("type=\"Collection\"") {
        return Err(format!("{}: not a VTK collection (.pvd)", path.display()));
    }
    let mut out = Vec::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("<DataSet") {
        let j = rest[i..]
            .find('>')
            .ok_or_else(|| format!("{}: an unclosed <DataSet>", path.display()))?
            + i;
        let tag = &rest[i..=j];
        rest = &rest[j + 1..];
        let t = attr(tag, "timestep")
            .and_then(|t| t.parse::<f64>().ok())
            .ok_or_else(|| format!("{}: a <DataSet> without a valid timestep", path.display()))?;
        let f = attr(tag, "file")
            .ok_or_else(|| format!("{}: a <DataSet> without a file", path.display()))?;
        out.push((t, f.to_string()));
    }
    Ok(out)
}
