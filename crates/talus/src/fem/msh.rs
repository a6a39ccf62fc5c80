//! Gmsh MSH 4.1 reader: the tetrahedra of a mesh file, ASCII or binary.
//!
//! Only what a FEM body needs is kept: the 4-node (Gmsh type 4) or 10-node
//! (type 11) tetrahedra and the nodes they use. Points, lines, triangles
//! and other elements are skipped, as are the sections talus has no use
//! for (`$PhysicalNames`, `$Entities`, `$Periodic`, `$NodeData`, …).
//! Partitioned meshes (`$PartitionedEntities`) are refused.
//!
//! Layout read (MSH 4.1): `$MeshFormat` holds `4.1 file-type data-size`;
//! for a binary file (file-type 1) the line is followed by the integer 1
//! written in binary, which gives the byte order. `$Nodes` holds
//! `numEntityBlocks numNodes minNodeTag maxNodeTag`, then per block
//! `entityDim entityTag parametric numNodesInBlock`, the node tags, then
//! their coordinates (`x y z`, plus `entityDim` parametric coordinates
//! when `parametric` is 1). `$Elements` holds
//! `numEntityBlocks numElements minElementTag maxElementTag`, then per
//! block `entityDim entityTag elementType numElementsInBlock` and one
//! `elementTag nodeTag…` record per element. In a binary file ints are 4
//! bytes, size_t's are data-size (8) bytes and doubles 8 bytes; section
//! markers stay ASCII lines.
//!
//! Gmsh orders a 10-node tetrahedron's mid-edge nodes on edges 0-1, 1-2,
//! 2-0, 0-3, 2-3, 1-3; talus uses VTK's `VTK_QUADRATIC_TETRA` order (0-1,
//! 1-2, 2-0, 0-3, 1-3, 2-3), so the last two nodes are swapped on reading
//! (checked on a real Gmsh file in the tests).
//!
//! Every error is one line naming what is wrong and where: the line (ASCII)
//! or byte offset (binary) and the section, e.g.
//! `plate.msh: line 12 in $Nodes: expected 3 coordinates, found 2`.

use crate::text::snippet;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Tetrahedra read from a mesh file: node coordinates (m) and elements by
/// 0-based node index, in talus's node order.
#[derive(Debug, Clone, PartialEq)]
pub struct MshTets {
    /// Node coordinates (m): only the nodes some tetrahedron uses, in
    /// increasing Gmsh node tag order.
    pub nodes: Vec<[f64; 3]>,
    /// Tetrahedra as indices into `nodes`: 4 corners each, or for
    /// [`quadratic`](Self::quadratic) meshes 4 corners then the mid-edge
    /// nodes of edges 0-1, 1-2, 2-0, 0-3, 1-3, 2-3 (VTK's
    /// `VTK_QUADRATIC_TETRA` order).
    pub tets: Vec<Vec<u32>>,
    /// `true` for 10-node (quadratic) tetrahedra, `false` for 4-node ones.
    pub quadratic: bool,
}

/// Where in a mesh file an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MshLocation {
    /// A 1-based line number (ASCII files, and the header of any file).
    Line(usize),
    /// A 0-based byte offset (the binary parts of binary files).
    Byte(usize),
}

/// A mesh file that cannot be read. Displays as one line:
/// `PATH: line N in $SECTION: MESSAGE` (each part only when known).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}", where_prefix(.path, .location, .section), .message)]
pub struct MshError {
    /// The file, when read with [`read_msh`].
    pub path: Option<PathBuf>,
    /// Where in the file, when the error is tied to a place.
    pub location: Option<MshLocation>,
    /// The section (`$Nodes`, `$Elements`, …) the error is in, if any.
    pub section: Option<String>,
    /// What is wrong (one line).
    pub message: String,
}

/// `PATH: line N in $SECTION: ` with the parts that are known.
fn where_prefix(
    path: &Option<PathBuf>,
    location: &Option<MshLocation>,
    section: &Option<String>,
) -> String {
    let mut s = String::new();
    if let Some(p) = path {
        s.push_str(&format!("{}: ", p.display()));
    }
    let place = match location {
        Some(MshLocation::Line(l)) => format!("line {l}"),
        Some(MshLocation::Byte(b)) => format!("byte {b}"),
        None => String::new(),
    };
    match (place.is_empty(), section) {
        (false, Some(sec)) => s.push_str(&format!("{place} in {sec}: ")),
        (false, None) => s.push_str(&format!("{place}: ")),
        (true, Some(sec)) => s.push_str(&format!("in {sec}: ")),
        (true, None) => {}
    }
    s
}

/// Reads a Gmsh MSH 4.1 file (ASCII or binary). Keeps only element type 4
/// (4-node tetrahedron) or 11 (10-node tetrahedron); other elements
/// (points, lines, triangles, …) are ignored; mixing 4 and 11 is an error.
/// Only the nodes used by a tetrahedron are kept, renumbered 0.. in
/// increasing node tag order (deterministic). Errors name the file.
pub fn read_msh(path: &Path) -> Result<MshTets, MshError> {
    let bytes = std::fs::read(path).map_err(|e| MshError {
        path: Some(path.to_path_buf()),
        location: None,
        section: None,
        message: format!("cannot read the mesh file: {e}"),
    })?;
    parse_msh(&bytes).map_err(|mut e| {
        e.path = Some(path.to_path_buf());
        e
    })
}

/// [`read_msh`] on a file already in memory (errors name no file).
pub fn parse_msh(bytes: &[u8]) -> Result<MshTets, MshError> {
    let mut r = Reader {
        b: bytes,
        pos: 0,
        binary: false,
        big_endian: false,
        section: String::new(),
    };
    r.header()?;
    let mut mesh = Collected::default();
    loop {
        r.section.clear();
        let Some((start, line)) = r.next_line() else {
            break;
        };
        let text = r.text(start, line)?.trim();
        if !text.starts_with('$') || text.starts_with("$End") || text.len() < 2 {
            return Err(r.err_at(
                start,
                format!(
                    "expected a section header such as $Nodes, found `{}`",
                    snippet(text)
                ),
            ));
        }
        let name = text[1..].to_string();
        r.section = text.to_string();
        match name.as_str() {
            "Nodes" => {
                if r.binary {
                    r.nodes_binary(&mut mesh)?;
                } else {
                    r.nodes_ascii(&mut mesh)?;
                }
                r.expect_end("Nodes")?;
            }
            "Elements" => {
                mesh.saw_elements = true;
                if r.binary {
                    r.elements_binary(&mut mesh)?;
                } else {
                    r.elements_ascii(&mut mesh)?;
                }
                r.expect_end("Elements")?;
            }
            "Entities" if r.binary => {
                r.skip_entities_binary()?;
                r.expect_end("Entities")?;
            }
            "PartitionedEntities" => {
                return Err(r.err_at(
                    start,
                    "partitioned mesh: talus reads whole (unpartitioned) meshes; \
                     re-export the mesh from gmsh without partitioning",
                ));
            }
            _ => r.skip_section(&name)?,
        }
    }
    r.section.clear();
    mesh.finish(&r)
}

/// What the sections give, gathered before the tetrahedra are renumbered.
#[derive(Default)]
struct Collected {
    /// Node coordinates by Gmsh tag.
    nodes: HashMap<u64, [f64; 3]>,
    /// The tetrahedron element type found first (4 or 11).
    tet_type: Option<i32>,
    /// Tetrahedron node tags, 4 or 10 per element, in Gmsh order.
    tet_nodes: Vec<u64>,
    /// Per tetrahedron: where its record starts, and its element tag.
    tet_at: Vec<(usize, u64)>,
    /// Other element types seen: type → (blocks, elements).
    others: BTreeMap<i32, (u64, u64)>,
    /// Whether a `$Elements` section was found.
    saw_elements: bool,
}

impl Collected {
    /// Records a node; a tag defined twice is an error.
    fn add_node(&mut self, r: &Reader, at: usize, tag: u64, xyz: [f64; 3]) -> Result<(), MshError> {
        if self.nodes.insert(tag, xyz).is_some() {
            return Err(r.err_at(at, format!("node tag {tag} is defined twice")));
        }
        Ok(())
    }

    /// Starts an element block of `etype` with `count` elements: whether
    /// its elements are tetrahedra to keep. Mixing orders is an error.
    fn block(&mut self, r: &Reader, at: usize, etype: i32, count: u64) -> Result<bool, MshError> {
        if etype != 4 && etype != 11 {
            let e = self.others.entry(etype).or_insert((0, 0));
            e.0 += 1;
            e.1 += count;
            return Ok(false);
        }
        match self.tet_type {
            Some(t) if t != etype => Err(r.err_at(
                at,
                format!(
                    "mixed tetrahedron orders: a block of {} (type {etype}) after blocks of {} \
                     (type {t}); talus needs one order per mesh",
                    type_name(etype),
                    type_name(t)
                ),
            )),
            _ => {
                self.tet_type = Some(etype);
                Ok(true)
            }
        }
    }

    /// Renumbers the used nodes and reorders the 10-node tetrahedra.
    fn finish(self, r: &Reader) -> Result<MshTets, MshError> {
        let Some(etype) = self.tet_type else {
            let found = if !self.saw_elements {
                "no $Elements section".to_string()
            } else if self.others.is_empty() {
                "no elements".to_string()
            } else {
                self.others
                    .iter()
                    .map(|(t, (blocks, n))| {
                        format!(
                            "{blocks} block{} of {} (type {t}, {n} element{})",
                            if *blocks == 1 { "" } else { "s" },
                            type_name(*t),
                            if *n == 1 { "" } else { "s" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let volumes = self
                .others
                .keys()
                .any(|&t| matches!(t, 5..=7 | 12..=14 | 17..=19 | 29..=31 | 92 | 93));
            let hint = if volumes {
                " (talus's FEM bodies are tetrahedral: mesh the volume with tetrahedra)"
            } else if self.others.is_empty() {
                ""
            } else {
                " (was the volume meshed? in gmsh: Mesh > 3D, or gmsh -3)"
            };
            return Err(MshError {
                path: None,
                location: None,
                section: None,
                message: format!(
                    "no tetrahedra (element types 4 or 11) in the file; found: {found}{hint}"
                ),
            });
        };
        let k = if etype == 11 { 10 } else { 4 };
        for (i, chunk) in self.tet_nodes.chunks_exact(k).enumerate() {
            if let Some(&missing) = chunk.iter().find(|t| !self.nodes.contains_key(t)) {
                let (at, tag) = self.tet_at[i];
                let mut e = r.err_at(
                    at,
                    format!(
                        "element {tag} uses node {missing}, which the $Nodes section does not define"
                    ),
                );
                e.section = Some("$Elements".to_string());
                return Err(e);
            }
        }
        let mut used = self.tet_nodes.clone();
        used.sort_unstable();
        used.dedup();
        if used.len() > u32::MAX as usize {
            return Err(MshError {
                path: None,
                location: None,
                section: None,
                message: format!("{} nodes: more than talus can index", used.len()),
            });
        }
        let index: HashMap<u64, u32> = used
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, i as u32))
            .collect();
        let nodes = used.iter().map(|t| self.nodes[t]).collect();
        // Gmsh's tet10 has edge (2,3) at 8 and (1,3) at 9; VTK the reverse.
        const GMSH_TO_TALUS_10: [usize; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 9, 8];
        let tets = self
            .tet_nodes
            .chunks_exact(k)
            .map(|c| {
                if k == 10 {
                    GMSH_TO_TALUS_10.iter().map(|&g| index[&c[g]]).collect()
                } else {
                    c.iter().map(|t| index[t]).collect()
                }
            })
            .collect();
        Ok(MshTets {
            nodes,
            tets,
            quadratic: etype == 11,
        })
    }
}

/// Nodes per element of a Gmsh element type (the common ones; a binary
/// block of another type cannot be skipped).
fn nodes_per_type(t: i32) -> Option<usize> {
    Some(match t {
        1 => 2,
        2 => 3,
        3 => 4,
        4 => 4,
        5 => 8,
        6 => 6,
        7 => 5,
        8 => 3,
        9 => 6,
        10 => 9,
        11 => 10,
        12 => 27,
        13 => 18,
        14 => 14,
        15 => 1,
        16 => 8,
        17 => 20,
        18 => 15,
        19 => 13,
        20 => 9,
        21 => 10,
        22 => 12,
        23 => 15,
        24 => 15,
        25 => 21,
        26 => 4,
        27 => 5,
        28 => 6,
        29 => 20,
        30 => 35,
        31 => 56,
        92 => 64,
        93 => 125,
        _ => return None,
    })
}

/// A readable name for a Gmsh element type.
fn type_name(t: i32) -> String {
    let shape = match t {
        15 => "point",
        1 | 8 | 26..=28 => "line",
        2 | 9 | 20..=25 => "triangle",
        3 | 10 | 16 => "quadrangle",
        4 | 11 | 29..=31 => "tetrahedron",
        5 | 12 | 17 | 92 | 93 => "hexahedron",
        6 | 13 | 18 => "prism",
        7 | 14 | 19 => "pyramid",
        _ => return format!("element type {t}"),
    };
    match nodes_per_type(t) {
        Some(1) => "points".to_string(),
        Some(n) => format!("{n}-node {shape}s"),
        None => format!("{shape}s"),
    }
}

/// A cursor over the file's bytes.
struct Reader<'a> {
    /// The whole file.
    b: &'a [u8],
    /// The next byte to read.
    pos: usize,
    /// Whether the sections hold binary data (file-type 1).
    binary: bool,
    /// Byte order of the binary data.
    big_endian: bool,
    /// The section being read (`$Nodes`), empty between sections.
    section: String,
}

impl<'a> Reader<'a> {
    /// An error at byte `at`: its line for an ASCII file, the offset for a
    /// binary one, in the current section.
    fn err_at(&self, at: usize, message: impl Into<String>) -> MshError {
        let location = if self.binary {
            MshLocation::Byte(at)
        } else {
            let at = at.min(self.b.len());
            MshLocation::Line(self.b[..at].iter().filter(|&&c| c == b'\n').count() + 1)
        };
        MshError {
            path: None,
            location: Some(location),
            section: (!self.section.is_empty()).then(|| self.section.clone()),
            message: message.into(),
        }
    }

    /// The end of the file reached while `what` was expected.
    fn truncated(&self, what: &str) -> MshError {
        let sec = if self.section.is_empty() {
            String::new()
        } else {
            format!(" inside {}", self.section)
        };
        self.err_at(
            self.b.len(),
            format!("the file ends{sec} (truncated?): expected {what}"),
        )
    }

    /// The next non-blank line (without its line end) and where it starts;
    /// `None` at the end of the file.
    fn next_line(&mut self) -> Option<(usize, &'a [u8])> {
        while self.pos < self.b.len() {
            let start = self.pos;
            let end = self.b[start..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(self.b.len(), |i| start + i);
            self.pos = (end + 1).min(self.b.len());
            let line = &self.b[start..end];
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Some((start, line));
            }
        }
        None
    }

    /// A line as text.
    fn text(&self, start: usize, line: &'a [u8]) -> Result<&'a str, MshError> {
        std::str::from_utf8(line).map_err(|_| {
            let why = if self.binary {
                "expected text, found binary data (a section's counts disagree with its data?)"
            } else {
                "not text (a binary file whose $MeshFormat says ASCII?)"
            };
            self.err_at(start, why)
        })
    }

    /// The `$MeshFormat` section: version, file type, byte order.
    fn header(&mut self) -> Result<(), MshError> {
        let not_msh = "not a Gmsh MSH file: it does not begin with $MeshFormat";
        let Some((start, line)) = self.next_line() else {
            return Err(MshError {
                path: None,
                location: None,
                section: None,
                message: format!("{not_msh} (the file is empty)"),
            });
        };
        let first = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if first.trim_ascii() != b"$MeshFormat" {
            return Err(self.err_at(start, not_msh));
        }
        self.section = "$MeshFormat".to_string();
        let (start, t) = self.record("the format line `4.1 file-type data-size`")?;
        self.want(start, &t, 3, "numbers (version, file-type, data-size)")?;
        if t[0].parse::<f64>().ok() != Some(4.1) {
            return Err(self.err_at(
                start,
                format!(
                    "version {} found; talus reads MSH 4.1: in gmsh, File > Export with \
                     \"Version 4 ASCII\" or -format msh41",
                    snippet(t[0])
                ),
            ));
        }
        let file_type: u8 = self.num(start, t[1], "file-type")?;
        let data_size: usize = self.num(start, t[2], "data-size")?;
        match file_type {
            0 => {}
            1 => {
                if data_size != 8 {
                    return Err(self.err_at(
                        start,
                        format!(
                            "binary file with data-size {data_size}: talus reads binary MSH \
                             with 8-byte size_t only (save from a 64-bit gmsh, or as ASCII)"
                        ),
                    ));
                }
                let one = self.take(4, "the binary integer 1 that gives the byte order")?;
                self.big_endian = if one == 1i32.to_le_bytes() {
                    false
                } else if one == 1i32.to_be_bytes() {
                    true
                } else {
                    return Err(self.err_at(
                        self.pos - 4,
                        format!(
                            "the byte-order check integer reads {one:02x?}, not 1 (damaged binary file?)"
                        ),
                    ));
                };
                self.binary = true;
            }
            _ => {
                return Err(self.err_at(
                    start,
                    format!("file-type {file_type}: expected 0 (ASCII) or 1 (binary)"),
                ))
            }
        }
        self.expect_end("MeshFormat")
    }

    /// The next ASCII record of the current section, split into words; the
    /// end of the file or of the section is a truncation error.
    fn record(&mut self, what: &str) -> Result<(usize, Vec<&'a str>), MshError> {
        let Some((start, line)) = self.next_line() else {
            return Err(self.truncated(what));
        };
        let text = self.text(start, line)?;
        if text.trim_start().starts_with('$') {
            return Err(self.err_at(
                start,
                format!(
                    "expected {what}, found `{}`: the section ends early (truncated, or its counts are wrong)",
                    snippet(text.trim())
                ),
            ));
        }
        Ok((start, text.split_ascii_whitespace().collect()))
    }

    /// Checks that a record has `n` words.
    fn want(&self, start: usize, t: &[&str], n: usize, what: &str) -> Result<(), MshError> {
        if t.len() != n {
            return Err(self.err_at(start, format!("expected {n} {what}, found {}", t.len())));
        }
        Ok(())
    }

    /// Parses one number of an ASCII record.
    fn num<T: std::str::FromStr>(
        &self,
        start: usize,
        word: &str,
        what: &str,
    ) -> Result<T, MshError> {
        word.parse()
            .map_err(|_| self.err_at(start, format!("bad number `{}` for {what}", snippet(word))))
    }

    /// Parses a coordinate of an ASCII record (finite).
    fn coord(&self, start: usize, word: &str) -> Result<f64, MshError> {
        let v: f64 = self.num(start, word, "a coordinate")?;
        if !v.is_finite() {
            return Err(self.err_at(
                start,
                format!("coordinate `{}` is not finite", snippet(word)),
            ));
        }
        Ok(v)
    }

    /// Reads the line that closes section `name` (`$End<name>`).
    fn expect_end(&mut self, name: &str) -> Result<(), MshError> {
        let end = format!("$End{name}");
        let Some((start, line)) = self.next_line() else {
            return Err(self.truncated(&end));
        };
        if line.trim_ascii() != end.as_bytes() {
            let found = String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned();
            return Err(self.err_at(
                start,
                format!(
                    "expected {end}, found `{}` (the section holds more than its counts say, or is damaged)",
                    snippet(found.trim())
                ),
            ));
        }
        Ok(())
    }

    /// Skips a section talus does not read, up to its `$End<name>` line.
    fn skip_section(&mut self, name: &str) -> Result<(), MshError> {
        let end = format!("$End{name}");
        while let Some((_, line)) = self.next_line() {
            if line.trim_ascii() == end.as_bytes() {
                return Ok(());
            }
        }
        Err(self.truncated(&end))
    }

    /// The `$Nodes` section of an ASCII file.
    fn nodes_ascii(&mut self, mesh: &mut Collected) -> Result<(), MshError> {
        let (start, t) =
            self.record("the header `numEntityBlocks numNodes minNodeTag maxNodeTag`")?;
        self.want(
            start,
            &t,
            4,
            "numbers (numEntityBlocks numNodes minNodeTag maxNodeTag)",
        )?;
        let blocks: u64 = self.num(start, t[0], "numEntityBlocks")?;
        let total: u64 = self.num(start, t[1], "numNodes")?;
        let (header, mut seen) = (start, 0u64);
        for _ in 0..blocks {
            let (start, t) =
                self.record("a block header `entityDim entityTag parametric numNodesInBlock`")?;
            self.want(
                start,
                &t,
                4,
                "numbers (entityDim entityTag parametric numNodesInBlock)",
            )?;
            let dim: u8 = self.num(start, t[0], "entityDim")?;
            let parametric: u8 = self.num(start, t[2], "parametric")?;
            let n: u64 = self.num(start, t[3], "numNodesInBlock")?;
            if dim > 3 || parametric > 1 {
                return Err(self.err_at(
                    start,
                    format!("entityDim {dim} / parametric {parametric}: expected 0..3 / 0 or 1"),
                ));
            }
            let mut tags = Vec::with_capacity((n as usize).min(self.b.len() / 4));
            for _ in 0..n {
                let (start, t) = self.record("a node tag")?;
                self.want(start, &t, 1, "node tag")?;
                tags.push((start, self.num::<u64>(start, t[0], "a node tag")?));
            }
            let words = 3 + if parametric == 1 { dim as usize } else { 0 };
            let what = if words == 3 {
                "coordinates".to_string()
            } else {
                format!("coordinates (x y z and {dim} parametric)")
            };
            for &(tag_at, tag) in &tags {
                let (start, t) = self.record("node coordinates `x y z`")?;
                self.want(start, &t, words, &what)?;
                let xyz = [
                    self.coord(start, t[0])?,
                    self.coord(start, t[1])?,
                    self.coord(start, t[2])?,
                ];
                mesh.add_node(self, tag_at, tag, xyz)?;
            }
            seen += n;
        }
        if seen != total {
            return Err(self.err_at(
                header,
                format!("the header announces {total} nodes but the blocks hold {seen}"),
            ));
        }
        Ok(())
    }

    /// The `$Elements` section of an ASCII file.
    fn elements_ascii(&mut self, mesh: &mut Collected) -> Result<(), MshError> {
        let (start, t) =
            self.record("the header `numEntityBlocks numElements minElementTag maxElementTag`")?;
        self.want(
            start,
            &t,
            4,
            "numbers (numEntityBlocks numElements minElementTag maxElementTag)",
        )?;
        let blocks: u64 = self.num(start, t[0], "numEntityBlocks")?;
        let total: u64 = self.num(start, t[1], "numElements")?;
        let (header, mut seen) = (start, 0u64);
        for _ in 0..blocks {
            let (start, t) =
                self.record("a block header `entityDim entityTag elementType numElementsInBlock`")?;
            self.want(
                start,
                &t,
                4,
                "numbers (entityDim entityTag elementType numElementsInBlock)",
            )?;
            let etype: i32 = self.num(start, t[2], "elementType")?;
            let n: u64 = self.num(start, t[3], "numElementsInBlock")?;
            let keep = mesh.block(self, start, etype, n)?;
            let per = nodes_per_type(etype);
            for _ in 0..n {
                let (start, t) = self.record("an element `elementTag nodeTag…`")?;
                if let Some(k) = per {
                    if t.len() != k + 1 {
                        return Err(self.err_at(
                            start,
                            format!(
                                "expected an element tag and {k} node tags ({}), found {} numbers",
                                type_name(etype),
                                t.len()
                            ),
                        ));
                    }
                }
                if keep {
                    let tag: u64 = self.num(start, t[0], "an element tag")?;
                    for w in &t[1..] {
                        let node: u64 = self.num(start, w, "a node tag")?;
                        mesh.tet_nodes.push(node);
                    }
                    mesh.tet_at.push((start, tag));
                }
            }
            seen += n;
        }
        if seen != total {
            return Err(self.err_at(
                header,
                format!("the header announces {total} elements but the blocks hold {seen}"),
            ));
        }
        Ok(())
    }

    /// The next `n` bytes of binary data.
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], MshError> {
        let left = self.b.len() - self.pos;
        if left < n {
            let sec = if self.section.is_empty() {
                String::new()
            } else {
                format!(" inside {}", self.section)
            };
            return Err(self.err_at(
                self.pos,
                format!("the file ends{sec} (truncated?): {what} needs {n} bytes, {left} left"),
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Checks that `count` items of `each` bytes fit in what is left
    /// (before anything is allocated for them); `count` as usize.
    fn fits(&self, count: u64, each: usize, what: &str) -> Result<usize, MshError> {
        let left = self.b.len() - self.pos;
        match usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(each).map(|b| (c, b)))
        {
            Some((c, bytes)) if bytes <= left => Ok(c),
            _ => {
                let sec = if self.section.is_empty() {
                    String::new()
                } else {
                    format!(" inside {}", self.section)
                };
                Err(self.err_at(
                    self.pos,
                    format!(
                        "the file ends{sec} (truncated?): {count} {what} of {each} bytes do not fit in the {left} bytes left"
                    ),
                ))
            }
        }
    }

    /// A binary 4-byte int.
    fn int(&mut self, what: &str) -> Result<i32, MshError> {
        let b: [u8; 4] = self.take(4, what)?.try_into().expect("4 bytes");
        Ok(if self.big_endian {
            i32::from_be_bytes(b)
        } else {
            i32::from_le_bytes(b)
        })
    }

    /// A binary 8-byte size_t.
    fn size(&mut self, what: &str) -> Result<u64, MshError> {
        let b: [u8; 8] = self.take(8, what)?.try_into().expect("8 bytes");
        Ok(if self.big_endian {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        })
    }

    /// A binary 8-byte double.
    fn double(&mut self, what: &str) -> Result<f64, MshError> {
        let b: [u8; 8] = self.take(8, what)?.try_into().expect("8 bytes");
        Ok(if self.big_endian {
            f64::from_be_bytes(b)
        } else {
            f64::from_le_bytes(b)
        })
    }

    /// Skips the binary `$Entities` data (its layout must be walked).
    fn skip_entities_binary(&mut self) -> Result<(), MshError> {
        let mut counts = [0u64; 4];
        for c in &mut counts {
            *c = self.size("an entity count")?;
        }
        for (dim, &count) in counts.iter().enumerate() {
            // A point: tag, x y z; a curve, surface or volume: tag and its
            // bounding box.
            let fixed = if dim == 0 { 4 + 3 * 8 } else { 4 + 6 * 8 };
            for _ in 0..count {
                self.take(fixed, "an entity")?;
                let phys = self.size("numPhysicalTags")?;
                let phys = self.fits(phys, 4, "physical tags")?;
                self.take(phys * 4, "physical tags")?;
                if dim > 0 {
                    let bound = self.size("the number of bounding entities")?;
                    let bound = self.fits(bound, 4, "bounding entity tags")?;
                    self.take(bound * 4, "bounding entity tags")?;
                }
            }
        }
        Ok(())
    }

    /// The `$Nodes` section of a binary file.
    fn nodes_binary(&mut self, mesh: &mut Collected) -> Result<(), MshError> {
        let header = self.pos;
        let blocks = self.size("numEntityBlocks")?;
        let total = self.size("numNodes")?;
        self.size("minNodeTag")?;
        self.size("maxNodeTag")?;
        let mut seen = 0u64;
        for _ in 0..blocks {
            let at = self.pos;
            let dim = self.int("entityDim")?;
            self.int("entityTag")?;
            let parametric = self.int("parametric")?;
            let n = self.size("numNodesInBlock")?;
            if !(0..=3).contains(&dim) || !(0..=1).contains(&parametric) {
                return Err(self.err_at(
                    at,
                    format!("entityDim {dim} / parametric {parametric}: expected 0..3 / 0 or 1"),
                ));
            }
            let count = self.fits(n, 8, "node tags")?;
            let mut tags = Vec::with_capacity(count);
            for _ in 0..count {
                tags.push((self.pos, self.size("a node tag")?));
            }
            let params = if parametric == 1 { dim as usize } else { 0 };
            self.fits(n, 8 * (3 + params), "node coordinates")?;
            for &(tag_at, tag) in &tags {
                let at = self.pos;
                let xyz = [self.double("x")?, self.double("y")?, self.double("z")?];
                if xyz.iter().any(|v| !v.is_finite()) {
                    return Err(self.err_at(
                        at,
                        format!("node {tag}: coordinates {xyz:?} are not finite"),
                    ));
                }
                self.take(8 * params, "parametric coordinates")?;
                mesh.add_node(self, tag_at, tag, xyz)?;
            }
            seen += n;
        }
        if seen != total {
            return Err(self.err_at(
                header,
                format!("the header announces {total} nodes but the blocks hold {seen}"),
            ));
        }
        Ok(())
    }

    /// The `$Elements` section of a binary file.
    fn elements_binary(&mut self, mesh: &mut Collected) -> Result<(), MshError> {
        let header = self.pos;
        let blocks = self.size("numEntityBlocks")?;
        let total = self.size("numElements")?;
        self.size("minElementTag")?;
        self.size("maxElementTag")?;
        let mut seen = 0u64;
        for _ in 0..blocks {
            let at = self.pos;
            self.int("entityDim")?;
            self.int("entityTag")?;
            let etype = self.int("elementType")?;
            let n = self.size("numElementsInBlock")?;
            let Some(k) = nodes_per_type(etype) else {
                return Err(self.err_at(
                    at,
                    format!("element type {etype} is unknown to talus, so its binary block cannot be skipped"),
                ));
            };
            let count = self.fits(n, 8 * (k + 1), "elements")?;
            if mesh.block(self, at, etype, n)? {
                for _ in 0..count {
                    let at = self.pos;
                    let tag = self.size("an element tag")?;
                    for _ in 0..k {
                        let node = self.size("a node tag")?;
                        mesh.tet_nodes.push(node);
                    }
                    mesh.tet_at.push((at, tag));
                }
            } else {
                self.take(count * 8 * (k + 1), "elements")?;
            }
            seen += n;
        }
        if seen != total {
            return Err(self.err_at(
                header,
                format!("the header announces {total} elements but the blocks hold {seen}"),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One 4-node tetrahedron, corners at the origin and the unit axes.
    const ONE_TET: &str = "$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 4 1 4
3 1 0 4
1
2
3
4
0 0 0
1 0 0
0 1 0
0 0 1
$EndNodes
$Elements
1 1 1 1
3 1 4 1
1 1 2 3 4
$EndElements
";

    /// Parses text that must be an error and returns its message.
    fn err(text: &str) -> String {
        match parse_msh(text.as_bytes()) {
            Ok(m) => panic!("expected an error, got {m:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Signed volume of a tetrahedron's corners.
    fn volume(n: &[[f64; 3]], t: &[u32]) -> f64 {
        let p = |i: usize| n[t[i] as usize];
        let (a, b, c, d) = (p(0), p(1), p(2), p(3));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let w = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
        (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
            + u[2] * (v[0] * w[1] - v[1] * w[0]))
            / 6.0
    }

    /// Asserts that each mid-edge node of every 10-node tetrahedron sits at
    /// the midpoint of its VTK edge.
    fn assert_vtk_midpoints(m: &MshTets) {
        const EDGES: [(usize, usize); 6] = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)];
        assert!(m.quadratic);
        for t in &m.tets {
            assert_eq!(t.len(), 10);
            let scale = (0..3)
                .map(|k| (m.nodes[t[0] as usize][k] - m.nodes[t[1] as usize][k]).abs())
                .fold(0.0, f64::max);
            for (e, &(a, b)) in EDGES.iter().enumerate() {
                let (pa, pb, pm) = (
                    m.nodes[t[a] as usize],
                    m.nodes[t[b] as usize],
                    m.nodes[t[4 + e] as usize],
                );
                for k in 0..3 {
                    let mid = 0.5 * (pa[k] + pb[k]);
                    assert!(
                        (pm[k] - mid).abs() <= 1e-9 * scale.max(1e-3),
                        "node {} of tet {t:?} is not the midpoint of edge ({a},{b})",
                        4 + e
                    );
                }
            }
        }
    }

    /// A single 4-node tetrahedron, LF or CRLF.
    #[test]
    fn one_tet() {
        let m = parse_msh(ONE_TET.as_bytes()).unwrap();
        assert_eq!(
            m.nodes,
            vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0]
            ]
        );
        assert_eq!(m.tets, vec![vec![0, 1, 2, 3]]);
        assert!(!m.quadratic);
        assert!((volume(&m.nodes, &m.tets[0]) - 1.0 / 6.0).abs() < 1e-15);
        // CRLF line ends read the same.
        assert_eq!(
            parse_msh(ONE_TET.replace('\n', "\r\n").as_bytes()).unwrap(),
            m
        );
    }

    /// Shared nodes, gaps in the tags, unused nodes, a parametric block,
    /// skipped sections and non-tetrahedron blocks.
    #[test]
    fn two_tets_sharing_nodes_with_gaps_and_other_elements() {
        let text = "$MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
1
3 7 \"body\"
$EndPhysicalNames
$Entities
1 0 0 1
1 0 0 0 0
1 0 0 0 1 1 2 1 7 0
$EndEntities
$Nodes
3 7 10 90
0 1 0 1
90
5 5 5
2 1 1 1
50
0 0 1 0.5 0.5
3 1 0 5
10
30
20
40
60
1 0 0
0 1 0
0 0 0
0 0 -1
7 7 7
$EndNodes
$Elements
3 4 1 4
0 1 15 1
1 90
2 1 2 1
2 20 30 40
3 1 4 2
3 20 10 30 50
4 30 10 20 40
$EndElements
$NodeData
1
\"x\"
$EndNodeData
";
        let m = parse_msh(text.as_bytes()).unwrap();
        // Used tags 10 20 30 40 50 in increasing order; 60 and 90 dropped.
        assert_eq!(
            m.nodes,
            vec![
                [1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, -1.0],
                [0.0, 0.0, 1.0]
            ]
        );
        assert_eq!(m.tets, vec![vec![1, 0, 2, 4], vec![2, 0, 1, 3]]);
        assert!(!m.quadratic);
    }

    /// A 10-node tetrahedron in Gmsh's order (mid-edge nodes 8 on (2,3), 9
    /// on (1,3)), node tags 101.. shuffled in the file.
    fn tet10_text() -> String {
        let c = [
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, 2.0],
        ];
        let gmsh_edges = [(0, 1), (1, 2), (2, 0), (3, 0), (3, 2), (3, 1)];
        let mut pts: Vec<[f64; 3]> = c.to_vec();
        for (a, b) in gmsh_edges {
            pts.push([
                0.5 * (c[a][0] + c[b][0]),
                0.5 * (c[a][1] + c[b][1]),
                0.5 * (c[a][2] + c[b][2]),
            ]);
        }
        // Gmsh node i gets tag 110 - i, so tag order reverses file order.
        let mut s =
            String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 10 101 110\n3 1 0 10\n");
        for i in 0..10 {
            s += &format!("{}\n", 110 - i);
        }
        for p in &pts {
            s += &format!("{} {} {}\n", p[0], p[1], p[2]);
        }
        s += "$EndNodes\n$Elements\n1 1 1 1\n3 1 11 1\n1";
        for i in 0..10 {
            s += &format!(" {}", 110 - i);
        }
        s += "\n$EndElements\n";
        s
    }

    /// Gmsh's 10-node order becomes VTK's.
    #[test]
    fn tet10_is_reordered_to_vtk() {
        let m = parse_msh(tet10_text().as_bytes()).unwrap();
        assert_eq!(m.nodes.len(), 10);
        assert_eq!(m.tets.len(), 1);
        // Tag 110 (gmsh node 0) is the largest tag: index 9.
        assert_eq!(m.tets[0][..4], [9, 8, 7, 6]);
        assert_eq!(m.nodes[9], [0.0, 0.0, 0.0]);
        assert_vtk_midpoints(&m);
    }

    /// Builds binary MSH files.
    struct W {
        out: Vec<u8>,
        big: bool,
    }

    impl W {
        /// Raw text.
        fn s(&mut self, t: &str) -> &mut Self {
            self.out.extend_from_slice(t.as_bytes());
            self
        }
        /// A 4-byte int.
        fn i(&mut self, v: i32) -> &mut Self {
            let b = if self.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.out.extend_from_slice(&b);
            self
        }
        /// An 8-byte size_t.
        fn z(&mut self, v: u64) -> &mut Self {
            let b = if self.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.out.extend_from_slice(&b);
            self
        }
        /// An 8-byte double.
        fn d(&mut self, v: f64) -> &mut Self {
            let b = if self.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.out.extend_from_slice(&b);
            self
        }
    }

    /// A binary file: entities, a parametric node block, a triangle block
    /// and two tetrahedra over nodes tagged 1..=6 (6 unused by tets).
    fn binary_file(big: bool) -> Vec<u8> {
        let mut w = W {
            out: Vec::new(),
            big,
        };
        w.s("$MeshFormat\n4.1 1 8\n").i(1).s("\n$EndMeshFormat\n");
        w.s("$PhysicalNames\n1\n3 1 \"v\"\n$EndPhysicalNames\n");
        // $Entities: 1 point, 1 curve, 1 surface, 1 volume.
        w.s("$Entities\n").z(1).z(1).z(1).z(1);
        w.i(1).d(0.0).d(0.0).d(0.0).z(1).i(5);
        w.i(1);
        for _ in 0..6 {
            w.d(1.0);
        }
        w.z(0).z(2).i(1).i(-1);
        w.i(1);
        for _ in 0..6 {
            w.d(1.0);
        }
        w.z(0).z(3).i(1).i(2).i(-3);
        w.i(1);
        for _ in 0..6 {
            w.d(1.0);
        }
        w.z(2).i(1).i(2).z(1).i(1);
        w.s("\n$EndEntities\n");
        // $Nodes: a parametric block on a surface (tags 5, 6), a plain volume block.
        w.s("$Nodes\n").z(2).z(6).z(1).z(6);
        w.i(2).i(1).i(1).z(2).z(5).z(6);
        w.d(1.0).d(1.0).d(1.0).d(0.5).d(0.5);
        w.d(9.0).d(9.0).d(9.0).d(0.1).d(0.2);
        w.i(3).i(1).i(0).z(4).z(1).z(2).z(3).z(4);
        for p in [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ] {
            w.d(p[0]).d(p[1]).d(p[2]);
        }
        w.s("\n$EndNodes\n");
        // $Elements: a triangle block, then the tetrahedra.
        w.s("$Elements\n").z(2).z(3).z(1).z(3);
        w.i(2).i(1).i(2).z(1).z(1).z(1).z(2).z(3);
        w.i(3)
            .i(1)
            .i(4)
            .z(2)
            .z(2)
            .z(1)
            .z(2)
            .z(3)
            .z(4)
            .z(3)
            .z(2)
            .z(1)
            .z(5)
            .z(4);
        w.s("\n$EndElements\n");
        w.out
    }

    /// A binary file, little- and big-endian.
    #[test]
    fn binary_both_byte_orders() {
        for big in [false, true] {
            let m = parse_msh(&binary_file(big)).unwrap();
            assert_eq!(
                m.nodes,
                vec![
                    [0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0],
                    [0.0, 0.0, 1.0],
                    [1.0, 1.0, 1.0]
                ]
            );
            assert_eq!(m.tets, vec![vec![0, 1, 2, 3], vec![1, 0, 4, 3]]);
            assert!(!m.quadratic);
        }
    }

    /// A sample file written by gmsh 4.8.4 from `tests/data/fem/box.geo`.
    fn sample(name: &str) -> MshTets {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fem")
            .join(name);
        read_msh(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Asserts that an ASCII and a binary reading of one mesh agree: the
    /// same elements, coordinates to the 16 digits gmsh writes in ASCII.
    fn assert_same_mesh(a: &MshTets, b: &MshTets) {
        assert_eq!(a.quadratic, b.quadratic);
        assert_eq!(a.tets, b.tets);
        assert_eq!(a.nodes.len(), b.nodes.len());
        for (p, q) in a.nodes.iter().zip(&b.nodes) {
            for k in 0..3 {
                assert!((p[k] - q[k]).abs() <= 1e-15, "{p:?} vs {q:?}");
            }
        }
    }

    /// Checks a mesh of the 0.02 x 0.01 x 0.005 m box.
    fn check_box(m: &MshTets) {
        assert!(!m.tets.is_empty());
        let mut used = vec![false; m.nodes.len()];
        let mut total = 0.0;
        for t in &m.tets {
            for &i in t {
                used[i as usize] = true;
            }
            total += volume(&m.nodes, t).abs();
        }
        assert!(used.iter().all(|&u| u), "every node kept is used");
        assert!((total - 1e-6).abs() < 1e-12, "volume {total}");
        for p in &m.nodes {
            assert!(p[0] >= -1e-12 && p[0] <= 0.02 + 1e-12);
            assert!(p[1] >= -1e-12 && p[1] <= 0.01 + 1e-12);
            assert!(p[2] >= -1e-12 && p[2] <= 0.005 + 1e-12);
        }
    }

    /// Real gmsh 4-node meshes: ASCII and binary agree.
    #[test]
    fn gmsh_tet4_ascii_and_binary() {
        let a = sample("box_tet4_ascii.msh");
        let b = sample("box_tet4_bin.msh");
        assert!(!a.quadratic);
        assert!(a.tets.iter().all(|t| t.len() == 4));
        check_box(&a);
        assert_same_mesh(&a, &b);
    }

    /// Real gmsh 10-node meshes: mid-edge nodes at VTK edge midpoints.
    #[test]
    fn gmsh_tet10_ascii_and_binary_midpoints() {
        // The ASCII file holds only the tetrahedra (a physical volume); the
        // binary one every element (points, lines, triangles).
        let a = sample("box_tet10_ascii.msh");
        let b = sample("box_tet10_bin.msh");
        check_box(&a);
        assert_vtk_midpoints(&a);
        assert_same_mesh(&a, &b);
    }

    /// Every cut of the sample files, and damaged bytes, give an error,
    /// never a panic.
    #[test]
    fn damaged_samples_never_panic() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fem");
        for name in ["box_tet4_ascii.msh", "box_tet4_bin.msh"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            for cut in (0..bytes.len() - 2).step_by(3) {
                assert!(parse_msh(&bytes[..cut]).is_err(), "{name} cut at {cut}");
            }
            for at in (0..bytes.len()).step_by(5) {
                let mut b = bytes.clone();
                b[at] ^= 0xA5;
                let _ = parse_msh(&b);
            }
        }
    }

    /// A file that is not MSH.
    #[test]
    fn error_not_msh() {
        assert!(err("solid cube\nfacet normal 0 0 1\n").contains("line 1: not a Gmsh MSH file"));
        assert!(err("").contains("not a Gmsh MSH file"));
    }

    /// A version other than 4.1.
    #[test]
    fn error_version() {
        let e = err("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n");
        assert_eq!(
            e,
            "line 2 in $MeshFormat: version 2.2 found; talus reads MSH 4.1: in gmsh, File > Export \
             with \"Version 4 ASCII\" or -format msh41"
        );
        assert!(err(&ONE_TET.replace("4.1 0 8", "4 0 8")).contains("version 4 found"));
    }

    /// Truncated files, ASCII and binary, name the section.
    #[test]
    fn error_truncated() {
        let cut = &ONE_TET[..ONE_TET.find("0 1 0\n").unwrap()];
        let e = err(cut);
        assert!(e.contains("in $Nodes") && e.contains("truncated"), "{e}");
        let e = err(&ONE_TET.replace("1 1 2 3 4\n", ""));
        assert!(
            e.starts_with("line 19 in $Elements: expected an element"),
            "{e}"
        );
        assert!(e.contains("found `$EndElements`"), "{e}");
        let e = err(&ONE_TET.replace("$EndElements\n", ""));
        assert!(
            e.contains("inside $Elements") && e.contains("$EndElements"),
            "{e}"
        );
        // Binary, cut inside the node coordinates and inside $Entities.
        let b = binary_file(false);
        let nodes = b.windows(6).position(|w| w == b"$Nodes").unwrap();
        let e = parse_msh(&b[..nodes + 100]).unwrap_err().to_string();
        assert!(
            e.starts_with("byte ") && e.contains("in $Nodes") && e.contains("truncated"),
            "{e}"
        );
        let ents = b.windows(9).position(|w| w == b"$Entities").unwrap();
        let e = parse_msh(&b[..ents + 40]).unwrap_err().to_string();
        assert!(e.contains("in $Entities") && e.contains("truncated"), "{e}");
        // A huge count does not allocate: it is a truncation.
        let mut w = W {
            out: Vec::new(),
            big: false,
        };
        w.s("$MeshFormat\n4.1 1 8\n")
            .i(1)
            .s("\n$EndMeshFormat\n$Nodes\n");
        w.z(1).z(u64::MAX).z(1).z(1).i(3).i(1).i(0).z(u64::MAX);
        let e = parse_msh(&w.out).unwrap_err().to_string();
        assert!(e.contains("do not fit"), "{e}");
    }

    /// Wrong word counts, bad numbers, duplicate tags.
    #[test]
    fn error_coordinate_count_and_bad_numbers() {
        assert_eq!(
            err(&ONE_TET.replace("0 1 0\n", "0 1\n")),
            "line 13 in $Nodes: expected 3 coordinates, found 2"
        );
        assert_eq!(
            err(&ONE_TET.replace("0 1 0\n", "0 1.0e 0\n")),
            "line 13 in $Nodes: bad number `1.0e` for a coordinate"
        );
        assert_eq!(
            err(&ONE_TET.replace("1 1 2 3 4", "1 1 2 x 4")),
            "line 19 in $Elements: bad number `x` for a node tag"
        );
        assert!(err(&ONE_TET.replace("1 1 2 3 4", "1 1 2 3"))
            .contains("expected an element tag and 4 node tags"));
        assert!(err(&ONE_TET.replace("0 0 1\n", "0 0 inf\n")).contains("not finite"));
        assert!(err(&ONE_TET.replace("\n4\n0 0 0", "\n2\n0 0 0"))
            .contains("node tag 2 is defined twice"));
    }

    /// An element using a node `$Nodes` lacks.
    #[test]
    fn error_undefined_node() {
        assert_eq!(
            err(&ONE_TET.replace("1 1 2 3 4", "1 1 2 3 44")),
            "line 19 in $Elements: element 1 uses node 44, which the $Nodes section does not define"
        );
        let mut b = binary_file(false);
        // Last tet's last node tag (4) → 77.
        let end = b.windows(13).position(|w| w == b"\n$EndElements").unwrap();
        b[end - 8] = 77;
        let e = parse_msh(&b).unwrap_err().to_string();
        assert!(
            e.starts_with("byte ") && e.contains("element 3 uses node 77"),
            "{e}"
        );
    }

    /// No tetrahedra: the message lists what was found.
    #[test]
    fn error_no_tets() {
        let text = ONE_TET
            .replace(
                "3 1 4 1\n1 1 2 3 4",
                "2 1 2 2\n1 1 2 3\n2 2 3 4\n1 1 1 1\n3 1 2",
            )
            .replace("1 1 1 1\n2 1 2 2", "2 3 1 3\n2 1 2 2");
        assert_eq!(
            err(&text),
            "no tetrahedra (element types 4 or 11) in the file; found: 1 block of 2-node lines \
             (type 1, 1 element), 1 block of 3-node triangles (type 2, 2 elements) (was the volume \
             meshed? in gmsh: Mesh > 3D, or gmsh -3)"
        );
        let no_elements = &ONE_TET[..ONE_TET.find("$Elements").unwrap()];
        assert!(err(no_elements).ends_with("found: no $Elements section"));
    }

    /// 4- and 10-node tetrahedra in one file.
    #[test]
    fn error_mixed_orders() {
        let mut text = tet10_text();
        text = text.replace(
            "$Elements\n1 1 1 1\n",
            "$Elements\n2 2 1 2\n3 1 4 1\n2 101 102 103 104\n",
        );
        let e = err(&text);
        assert!(
            e.starts_with("line 32 in $Elements: mixed tetrahedron orders"),
            "{e}"
        );
        assert!(e.contains("type 11") && e.contains("type 4"), "{e}");
    }

    /// Partitioned meshes, a data-size other than 8, a bad byte-order word.
    #[test]
    fn error_partitioned_and_data_size() {
        let text = ONE_TET.replace(
            "$Nodes",
            "$PartitionedEntities\n2\n0\n$EndPartitionedEntities\n$Nodes",
        );
        assert!(err(&text).starts_with("line 4 in $PartitionedEntities: partitioned mesh"));
        let mut w = W {
            out: Vec::new(),
            big: false,
        };
        w.s("$MeshFormat\n4.1 1 4\n").i(1).s("\n$EndMeshFormat\n");
        let e = parse_msh(&w.out).unwrap_err().to_string();
        assert!(
            e.starts_with("line 2 in $MeshFormat: binary file with data-size 4"),
            "{e}"
        );
        let mut b = binary_file(false);
        b[20] = 7; // The byte-order integer.
        let e = parse_msh(&b).unwrap_err().to_string();
        assert!(e.contains("byte-order check"), "{e}");
    }

    /// `read_msh` prefixes the path.
    #[test]
    fn read_msh_names_the_file() {
        let dir = std::env::temp_dir().join(format!("talus_msh_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plate.msh");
        std::fs::write(&path, ONE_TET.replace("0 1 0\n", "0 1\n")).unwrap();
        let e = read_msh(&path).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}: line 13 in $Nodes: expected 3 coordinates, found 2",
                path.display()
            )
        );
        std::fs::write(&path, ONE_TET).unwrap();
        assert_eq!(read_msh(&path).unwrap().tets.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = dir.join("none.msh");
        let e = read_msh(&missing).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}: cannot read the mesh file", missing.display())),
            "{e}"
        );
    }
}
