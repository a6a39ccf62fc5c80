//! Triangle meshes from files: binary STL, ASCII STL and Wavefront OBJ.
//!
//! [`read`] gives the raw triangles (every coordinate finite) or a message
//! that names the mesh file and what is wrong with it (the scene parser
//! reports it at the `file` key). [`transform`] applies a wall's scale,
//! rotation and translation; [`drop_degenerate`] removes zero-area
//! triangles and counts them.
//!
//! - STL: binary when the file is exactly `84 + 50 n` bytes long, n the
//!   triangle count in bytes 80..84 (a binary header may begin with
//!   "solid"); otherwise ASCII when it begins with `solid` and holds no NUL
//!   byte; otherwise a truncated (or padded) binary file. The facet normals
//!   of either form are ignored: a triangle's normal follows from its
//!   vertex order (counter-clockwise seen from the normal side).
//! - ASCII STL is read line by line: `solid [name]`, then per facet
//!   `facet normal nx ny nz`, `outer loop`, three `vertex x y z`,
//!   `endloop`, `endfacet`, and `endsolid [name]` (keywords in any case;
//!   several solids may follow each other).
//! - OBJ: `v x y z [w]` and `f i j k ...` lines (`i`, `i/t`, `i//n`,
//!   `i/t/n`; 1-based, negative = relative to the last vertex read); a face
//!   of more than 3 vertices is fanned from its first vertex. Every other
//!   statement (`vt`, `vn`, `o`, `g`, `usemtl`, ...) is ignored.

use glam::{DQuat, DVec3};
use std::path::Path;

/// One triangle, three vertices.
pub type Triangle = [[f64; 3]; 3];

/// The triangles of `path` (format from the extension: `.stl` or `.obj`,
/// any case). The error message names the file.
pub fn read(path: &Path) -> Result<Vec<Triangle>, String> {
    let name = path.display().to_string();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if ext != "stl" && ext != "obj" {
        return Err(format!(
            "mesh file {name}: unknown extension {} (expected .stl or .obj)",
            if ext.is_empty() {
                "(none)".to_string()
            } else {
                format!("\".{ext}\"")
            }
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read mesh file {name}: {e}"))?;
    let tris = if ext == "stl" {
        parse_stl(&bytes)
    } else {
        parse_obj(&bytes)
    }
    .map_err(|m| format!("mesh file {name}{m}"))?;
    if tris.is_empty() {
        return Err(format!("mesh file {name}: no triangles in the file"));
    }
    Ok(tris)
}

/// An STL file's triangles; errors start with `: ` or ` line N: ` (the
/// caller puts the file name in front).
pub fn parse_stl(bytes: &[u8]) -> Result<Vec<Triangle>, String> {
    if bytes.len() >= 84 {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
        if 84 + 50 * n == bytes.len() as u64 {
            return parse_binary_stl(bytes, n as usize);
        }
    }
    let text_start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|i| &bytes[i..])
        .unwrap_or(&[]);
    let looks_ascii = text_start.len() >= 5
        && text_start[..5].eq_ignore_ascii_case(b"solid")
        && !bytes.contains(&0);
    if looks_ascii {
        return parse_ascii_stl(bytes);
    }
    if bytes.len() < 84 {
        return Err(format!(
            ": not an STL file: too short for a binary STL (at least 84 bytes, found {}) and not ASCII STL (which begins with \"solid\")",
            bytes.len()
        ));
    }
    let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
    Err(format!(
        ": truncated binary STL: the header announces {n} triangles, i.e. 84 + 50 × {n} = {} bytes, but the file has {} bytes",
        84 + 50 * n,
        bytes.len()
    ))
}

fn parse_binary_stl(bytes: &[u8], n: usize) -> Result<Vec<Triangle>, String> {
    let f = |at: usize| {
        f32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as f64
    };
    let mut out = Vec::with_capacity(n);
    for t in 0..n {
        // 12 bytes of normal (ignored), 3 × 12 bytes of vertices, 2 bytes
        // of attributes
        let base = 84 + 50 * t + 12;
        let mut tri = [[0.0; 3]; 3];
        for (v, vert) in tri.iter_mut().enumerate() {
            for (k, c) in vert.iter_mut().enumerate() {
                *c = f(base + 12 * v + 4 * k);
            }
        }
        if !tri.iter().flatten().all(|x| x.is_finite()) {
            return Err(format!(
                ": triangle {} (of {n}) has a non-finite coordinate: {tri:?}",
                t + 1
            ));
        }
        out.push(tri);
    }
    Ok(out)
}

fn parse_ascii_stl(bytes: &[u8]) -> Result<Vec<Triangle>, String> {
    let text = String::from_utf8_lossy(bytes);
    #[derive(PartialEq)]
    enum St {
        Outside,
        Solid,
        Facet,
        Loop(usize),
        EndLoop,
    }
    let mut st = St::Outside;
    let mut out = Vec::new();
    let mut tri = [[0.0; 3]; 3];
    let mut last = 0;
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        last = ln;
        let toks: Vec<&str> = raw.split_whitespace().collect();
        let Some(first) = toks.first() else {
            continue;
        };
        let kw = first.to_ascii_lowercase();
        let syntax =
            |expected: &str| format!(" line {ln}: expected {expected}, found \"{}\"", raw.trim());
        match st {
            St::Outside => {
                if kw != "solid" {
                    return Err(syntax("\"solid [name]\""));
                }
                st = St::Solid;
            }
            St::Solid => {
                if kw == "endsolid" {
                    st = St::Outside;
                } else if kw == "facet"
                    && toks.len() == 5
                    && toks[1].eq_ignore_ascii_case("normal")
                    && toks[2..].iter().all(|x| x.parse::<f64>().is_ok())
                {
                    st = St::Facet;
                } else {
                    return Err(syntax("\"facet normal nx ny nz\" or \"endsolid\""));
                }
            }
            St::Facet => {
                if kw == "outer" && toks.len() == 2 && toks[1].eq_ignore_ascii_case("loop") {
                    st = St::Loop(0);
                } else {
                    return Err(syntax("\"outer loop\""));
                }
            }
            St::Loop(k) if k < 3 => {
                if kw != "vertex" || toks.len() != 4 {
                    return Err(syntax(&format!("\"vertex x y z\" (vertex {} of 3)", k + 1)));
                }
                for c in 0..3 {
                    let x: f64 = toks[1 + c].parse().map_err(|_| {
                        format!(
                            " line {ln}: \"{}\" is not a number (in \"{}\")",
                            toks[1 + c],
                            raw.trim()
                        )
                    })?;
                    if !x.is_finite() {
                        return Err(format!(
                            " line {ln}: non-finite vertex coordinate {} (triangle {})",
                            toks[1 + c],
                            out.len() + 1
                        ));
                    }
                    tri[k][c] = x;
                }
                st = St::Loop(k + 1);
            }
            St::Loop(_) => {
                if kw != "endloop" || toks.len() != 1 {
                    return Err(syntax("\"endloop\" after 3 vertices"));
                }
                st = St::EndLoop;
            }
            St::EndLoop => {
                if kw != "endfacet" || toks.len() != 1 {
                    return Err(syntax("\"endfacet\""));
                }
                out.push(tri);
                st = St::Solid;
            }
        }
    }
    if st != St::Outside {
        return Err(format!(
            " line {last}: unexpected end of file (expected {})",
            match st {
                St::Solid => "\"endsolid\"",
                St::Facet => "\"outer loop\"",
                St::Loop(k) if k < 3 => "\"vertex x y z\"",
                St::Loop(_) => "\"endloop\"",
                _ => "\"endfacet\"",
            }
        ));
    }
    Ok(out)
}

/// An OBJ file's triangles (faces fanned); errors start with ` line N: `.
pub fn parse_obj(bytes: &[u8]) -> Result<Vec<Triangle>, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut verts: Vec<[f64; 3]> = Vec::new();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.split('#').next().unwrap_or("");
        let mut toks = line.split_whitespace();
        match toks.next() {
            Some("v") => {
                let cs: Vec<&str> = toks.collect();
                if cs.len() < 3 || cs.len() > 4 {
                    return Err(format!(
                        " line {ln}: expected \"v x y z\", found \"{}\"",
                        raw.trim()
                    ));
                }
                let mut v = [0.0; 3];
                for k in 0..3 {
                    let x: f64 = cs[k].parse().map_err(|_| {
                        format!(
                            " line {ln}: \"{}\" is not a number (in \"{}\")",
                            cs[k],
                            raw.trim()
                        )
                    })?;
                    if !x.is_finite() {
                        return Err(format!(
                            " line {ln}: non-finite vertex coordinate {} (vertex {})",
                            cs[k],
                            verts.len() + 1
                        ));
                    }
                    v[k] = x;
                }
                verts.push(v);
            }
            Some("f") => {
                let mut idx = Vec::new();
                for t in toks {
                    let first = t.split('/').next().unwrap_or("");
                    let n: i64 = first.parse().map_err(|_| {
                        format!(
                            " line {ln}: \"{t}\" is not a vertex index (in \"{}\")",
                            raw.trim()
                        )
                    })?;
                    let count = verts.len() as i64;
                    let k = if n > 0 { n - 1 } else { count + n };
                    if n == 0 || k < 0 || k >= count {
                        return Err(format!(
                            " line {ln}: vertex index {n} out of range ({count} vertices read so far)"
                        ));
                    }
                    idx.push(k as usize);
                }
                if idx.len() < 3 {
                    return Err(format!(
                        " line {ln}: a face needs at least 3 vertices, found {} (in \"{}\")",
                        idx.len(),
                        raw.trim()
                    ));
                }
                for w in 1..idx.len() - 1 {
                    out.push([verts[idx[0]], verts[idx[w]], verts[idx[w + 1]]]);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Scales by `scale`, rotates by `rotation` (axis unit, angle in radians,
/// right-hand rule, about the origin), then translates by `translate`.
pub fn transform(
    tris: &mut [Triangle],
    scale: f64,
    rotation: Option<([f64; 3], f64)>,
    translate: [f64; 3],
) {
    let q = rotation.map(|(axis, angle)| DQuat::from_axis_angle(DVec3::from(axis), angle));
    let t = DVec3::from(translate);
    for tri in tris.iter_mut() {
        for v in tri.iter_mut() {
            let mut p = DVec3::from(*v) * scale;
            if let Some(q) = q {
                p = q * p;
            }
            *v = (p + t).to_array();
        }
    }
}

/// Whether a triangle has zero area: |(b − a) × (c − a)| ≤ 1e-12 × the
/// square of its longest edge.
pub fn is_degenerate(t: &Triangle) -> bool {
    let [a, b, c] = t.map(DVec3::from);
    let longest2 = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    (b - a).cross(c - a).length() <= 1e-12 * longest2
}

/// Removes the degenerate triangles; returns how many there were.
pub fn drop_degenerate(tris: &mut Vec<Triangle>) -> usize {
    let before = tris.len();
    tris.retain(|t| !is_degenerate(t));
    before - tris.len()
}

/// Axis-aligned bounding box (min, max) of triangles (None when empty).
pub fn bounds(tris: &[Triangle]) -> Option<([f64; 3], [f64; 3])> {
    let mut it = tris.iter().flatten();
    let first = *it.next()?;
    Some(it.fold((first, first), |(lo, hi), v| {
        (
            [lo[0].min(v[0]), lo[1].min(v[1]), lo[2].min(v[2])],
            [hi[0].max(v[0]), hi[1].max(v[1]), hi[2].max(v[2])],
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRI: Triangle = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    /// A binary STL of `tris` with `header` at the start of its 80 bytes.
    fn binary_stl(header: &[u8], tris: &[Triangle]) -> Vec<u8> {
        let mut b = vec![b' '; 80];
        b[..header.len()].copy_from_slice(header);
        b.extend((tris.len() as u32).to_le_bytes());
        for t in tris {
            b.extend([0u8; 12]);
            for v in t {
                for c in v {
                    b.extend((*c as f32).to_le_bytes());
                }
            }
            b.extend([0u8; 2]);
        }
        b
    }

    fn ascii_stl(tris: &[Triangle]) -> String {
        let mut s = String::from("solid test\n");
        for t in tris {
            s += "  facet normal 0 0 1\n    outer loop\n";
            for v in t {
                s += &format!("      vertex {} {} {}\n", v[0], v[1], v[2]);
            }
            s += "    endloop\n  endfacet\n";
        }
        s + "endsolid test\n"
    }

    #[test]
    fn binary_stl_reads_every_triangle() {
        let tris = [TRI, [[0.0, 0.0, 1.0], [2.0, 0.0, 1.0], [0.0, 3.0, 1.5]]];
        let got = parse_stl(&binary_stl(b"made by a CAD tool", &tris)).unwrap();
        assert_eq!(got, tris);
    }

    #[test]
    fn binary_stl_whose_header_begins_with_solid_is_binary() {
        let bytes = binary_stl(b"solid exported", &[TRI]);
        assert_eq!(parse_stl(&bytes).unwrap(), vec![TRI]);
    }

    #[test]
    fn truncated_binary_stl_says_expected_and_actual_size() {
        let mut bytes = binary_stl(b"x", &[TRI, TRI]);
        bytes.truncate(150);
        let e = parse_stl(&bytes).unwrap_err();
        assert!(e.contains("truncated binary STL"), "{e}");
        assert!(e.contains("184 bytes") && e.contains("150 bytes"), "{e}");
        let e = parse_stl(b"abc").unwrap_err();
        assert!(e.contains("found 3"), "{e}");
    }

    #[test]
    fn binary_stl_with_nan_names_the_triangle() {
        let bytes = binary_stl(
            b"",
            &[
                TRI,
                [[f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            ],
        );
        let e = parse_stl(&bytes).unwrap_err();
        assert!(e.contains("triangle 2"), "{e}");
    }

    #[test]
    fn ascii_stl_reads_in_vertex_order() {
        let tris = [TRI, [[0.0, 0.0, 1.0], [0.0, 3.0, 1.5], [2.0, 0.0, 1.0]]];
        let text = ascii_stl(&tris);
        assert_eq!(parse_stl(text.as_bytes()).unwrap(), tris);
        // keywords in any case, several solids, leading blank lines
        let text2 = format!("\n\n{}{}", text.to_uppercase(), ascii_stl(&[TRI]));
        assert_eq!(parse_stl(text2.as_bytes()).unwrap().len(), 3);
    }

    #[test]
    fn ascii_stl_syntax_errors_name_the_line() {
        let text = ascii_stl(&[TRI, TRI]).replacen("vertex 1 0 0", "vertx 1 0 0", 2);
        let text = text.replacen("vertx 1 0 0", "vertex 1 0 0", 1);
        let e = parse_stl(text.as_bytes()).unwrap_err();
        // second facet's second vertex: line 1 + 7 + 4
        assert!(e.starts_with(" line 12: expected \"vertex x y z\""), "{e}");
        let text = ascii_stl(&[TRI]).replace("endsolid test\n", "");
        let e = parse_stl(text.as_bytes()).unwrap_err();
        assert!(e.contains("unexpected end of file"), "{e}");
        let text = ascii_stl(&[TRI]).replace("vertex 0 1 0", "vertex 0 nan 0");
        let e = parse_stl(text.as_bytes()).unwrap_err();
        assert!(e.contains("line 6") && e.contains("non-finite"), "{e}");
        let text = ascii_stl(&[TRI]).replace("vertex 0 1 0", "vertex 0 one 0");
        let e = parse_stl(text.as_bytes()).unwrap_err();
        assert!(
            e.contains("line 6") && e.contains("\"one\" is not a number"),
            "{e}"
        );
    }

    #[test]
    fn obj_fans_faces_and_reads_index_forms() {
        let text = "# a unit square and a triangle\n\
                    o square\n\
                    v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n\
                    vt 0 0\nvn 0 0 1\n\
                    f 1/1/1 2/1/1 3//1 4\n\
                    v 0 0 1 1.0\n\
                    f -1 1 2\n";
        let got = parse_obj(text.as_bytes()).unwrap();
        assert_eq!(
            got,
            vec![
                [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
                [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
                [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
            ]
        );
    }

    #[test]
    fn obj_errors_name_the_line() {
        let e = parse_obj(b"v 0 0 0\nv 1 0 0\nf 1 2 3\n").unwrap_err();
        assert!(e.starts_with(" line 3: vertex index 3 out of range"), "{e}");
        let e = parse_obj(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n").unwrap_err();
        assert!(e.starts_with(" line 4: a face needs at least 3"), "{e}");
        let e = parse_obj(b"v 0 inf 0\n").unwrap_err();
        assert!(e.starts_with(" line 1: non-finite"), "{e}");
        let e = parse_obj(b"v 0 0\n").unwrap_err();
        assert!(e.starts_with(" line 1: expected \"v x y z\""), "{e}");
        let e = parse_obj(b"v 0 0 0\nf 0 1 1\n").unwrap_err();
        assert!(e.starts_with(" line 2: vertex index 0"), "{e}");
    }

    #[test]
    fn transform_is_scale_then_rotate_then_translate() {
        let mut t = vec![[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]];
        // scale 2, +90° about z (x -> y), then +[10, 0, 0]
        transform(
            &mut t,
            2.0,
            Some(([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2)),
            [10.0, 0.0, 0.0],
        );
        let want = [[10.0, 2.0, 0.0], [8.0, 0.0, 0.0], [10.0, 0.0, 2.0]];
        for (v, w) in t[0].iter().zip(want) {
            for k in 0..3 {
                assert!((v[k] - w[k]).abs() < 1e-12, "{:?} vs {want:?}", t[0]);
            }
        }
    }

    #[test]
    fn degenerate_triangles_are_dropped_and_counted() {
        let mut t = vec![
            TRI,
            [[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], // collinear
            [[1.0; 3], [1.0; 3], [0.0; 3]],               // repeated vertex
            [[0.0; 3], [0.0; 3], [0.0; 3]],               // a point
            [[0.0; 3], [1e-3, 0.0, 0.0], [0.0, 1e-3, 0.0]], // small but fine
        ];
        assert_eq!(drop_degenerate(&mut t), 3);
        assert_eq!(t.len(), 2);
        assert_eq!(bounds(&t), Some(([0.0; 3], [1.0, 1.0, 0.0])));
    }

    #[test]
    fn read_checks_extension_existence_and_emptiness() {
        let dir = std::env::temp_dir().join(format!("talus-mesh-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let e = read(&dir.join("part.step")).unwrap_err();
        assert!(e.contains("unknown extension \".step\""), "{e}");
        let e = read(&dir.join("missing.stl")).unwrap_err();
        assert!(
            e.starts_with("cannot read mesh file") && e.contains("missing.stl"),
            "{e}"
        );
        let p = dir.join("empty.obj");
        std::fs::write(&p, "v 0 0 0\n").unwrap();
        let e = read(&p).unwrap_err();
        assert!(e.contains("empty.obj: no triangles"), "{e}");
        let p = dir.join("one.STL");
        std::fs::write(&p, binary_stl(b"", &[TRI])).unwrap();
        assert_eq!(read(&p).unwrap(), vec![TRI]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
