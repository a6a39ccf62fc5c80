//! Tetrahedral meshes for FEM bodies: the mesh type, a structured box
//! mesher, linear → quadratic promotion, validity checks and the boundary
//! surface.
//!
//! Node ordering of a quadratic (10-node) tetrahedron is VTK's
//! `VTK_QUADRATIC_TETRA`: corners 0..3, then the mid-edge nodes
//! 4:(0,1), 5:(1,2), 6:(2,0), 7:(0,3), 8:(1,3), 9:(2,3). Corners are ordered
//! so that `(x1−x0)·((x2−x0)×(x3−x0)) > 0` (positive volume). Lengths are
//! in metres.

use std::collections::HashMap;

use glam::{DMat3, DVec3};
use thiserror::Error;

/// Unused entry of a linear element's 10-slot node array.
pub const UNUSED: u32 = u32::MAX;

/// The corner pairs of the six edges, in the order of the mid-edge nodes
/// 4..9 (`EDGES[k]` carries node `4 + k`).
pub const EDGES: [(usize, usize); 6] = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)];

/// The four faces of a positive-volume tetrahedron by corner index, each
/// counter-clockwise seen from outside (outward normal by the right-hand
/// rule).
pub const FACES: [[usize; 3]; 4] = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];

/// Interpolation order of a mesh's elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// 4-node tetrahedra (linear shape functions, constant strain).
    Linear,
    /// 10-node tetrahedra (quadratic shape functions, linear strain).
    Quadratic,
}

impl Order {
    /// Nodes per element: 4 or 10.
    pub fn nodes_per_element(self) -> usize {
        match self {
            Order::Linear => 4,
            Order::Quadratic => 10,
        }
    }
}

/// A tetrahedral mesh: node coordinates (m) and elements by node index.
#[derive(Debug, Clone, PartialEq)]
pub struct TetMesh {
    /// Node coordinates in the reference configuration (m).
    pub nodes: Vec<DVec3>,
    /// Elements: 4 corners then (quadratic) 6 mid-edge nodes in VTK order;
    /// a linear mesh fills the last 6 entries with [`UNUSED`].
    pub tets: Vec<[u32; 10]>,
    /// Whether the elements are 4- or 10-node tetrahedra.
    pub order: Order,
}

/// What makes a mesh unusable; each message names the problem in one line.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MeshError {
    /// The mesh has no elements.
    #[error("mesh has no tetrahedra")]
    Empty,
    /// An element refers to a node that does not exist.
    #[error("element {element}: node index {node} out of range (mesh has {count} nodes)")]
    NodeOutOfRange {
        /// Element index.
        element: usize,
        /// The offending node index.
        node: u32,
        /// Number of nodes in the mesh.
        count: usize,
    },
    /// A node coordinate is NaN or infinite.
    #[error("node {node}: coordinate is not finite ({x}, {y}, {z})")]
    NotFinite {
        /// Node index.
        node: usize,
        /// x (m).
        x: f64,
        /// y (m).
        y: f64,
        /// z (m).
        z: f64,
    },
    /// The corner tetrahedron has zero or negative volume.
    #[error("element {element}: inverted or degenerate, corner volume {volume:e} m³")]
    Inverted {
        /// Element index.
        element: usize,
        /// Signed volume of the corner tetrahedron (m³).
        volume: f64,
    },
    /// A quadratic element's Jacobian is not positive at a corner.
    #[error("element {element}: Jacobian determinant {det:e} at corner {corner} is not positive (mid-edge node too far off)")]
    BadJacobian {
        /// Element index.
        element: usize,
        /// Corner (0..3) where the determinant was evaluated.
        corner: usize,
        /// The determinant (m³ per unit reference volume).
        det: f64,
    },
    /// `fixed` or another per-node array has the wrong length.
    #[error("per-node array has {got} entries, the mesh has {expected} nodes")]
    NodeCount {
        /// Node count of the mesh.
        expected: usize,
        /// Length given.
        got: usize,
    },
    /// A material parameter is out of range.
    #[error("material: {0}")]
    Material(String),
}

/// Signed volume (m³) of the tetrahedron with corners `a, b, c, d`.
pub fn tet_volume(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    (b - a).dot((c - a).cross(d - a)) / 6.0
}

/// Signed volume (m³) of element `e`'s corner tetrahedron.
pub fn corner_volume(mesh: &TetMesh, e: usize) -> f64 {
    let t = &mesh.tets[e];
    let p = |i: usize| mesh.nodes[t[i] as usize];
    tet_volume(p(0), p(1), p(2), p(3))
}

/// Axis permutations of the six tetrahedra of a cell (paths from corner
/// (0,0,0) to (1,1,1) along the cell edges); the flag says the permutation
/// is odd, so two vertices are swapped for a positive volume.
const CELL_PATHS: [([usize; 3], bool); 6] = [
    ([0, 1, 2], false),
    ([1, 2, 0], false),
    ([2, 0, 1], false),
    ([0, 2, 1], true),
    ([2, 1, 0], true),
    ([1, 0, 2], true),
];

/// A structured tetrahedral mesh of the box `[min, max]` (m) with
/// `divisions` hexahedral cells per axis, each cut into 6 tetrahedra that
/// share the cell's main diagonal (so neighbouring cells meet on the same
/// face diagonals: the mesh is conforming). Nodes are numbered with x
/// slowest and z fastest, which keeps the stiffness matrix banded along a
/// long x axis. A quadratic mesh places its nodes on the grid of half the
/// spacing, `(2nx+1)(2ny+1)(2nz+1)` nodes, mid-edge nodes shared.
pub fn box_mesh(min: DVec3, max: DVec3, divisions: [u32; 3], order: Order) -> TetMesh {
    let d = divisions.map(|n| n.max(1) as usize);
    // Grid refinement: quadratic nodes live on the grid of half spacing.
    let r = match order {
        Order::Linear => 1,
        Order::Quadratic => 2,
    };
    let g = [r * d[0] + 1, r * d[1] + 1, r * d[2] + 1];
    let size = max - min;
    let mut nodes = Vec::with_capacity(g[0] * g[1] * g[2]);
    for i in 0..g[0] {
        for j in 0..g[1] {
            for k in 0..g[2] {
                let f = DVec3::new(
                    i as f64 / (g[0] - 1) as f64,
                    j as f64 / (g[1] - 1) as f64,
                    k as f64 / (g[2] - 1) as f64,
                );
                nodes.push(min + size * f);
            }
        }
    }
    let index = |p: [usize; 3]| ((p[0] * g[1] + p[1]) * g[2] + p[2]) as u32;
    let mut tets = Vec::with_capacity(6 * d[0] * d[1] * d[2]);
    for i in 0..d[0] {
        for j in 0..d[1] {
            for k in 0..d[2] {
                let base = [r * i, r * j, r * k];
                for (perm, odd) in CELL_PATHS {
                    // Corner grid coordinates along the path.
                    let mut c = [base; 4];
                    let mut cur = base;
                    for (s, &axis) in perm.iter().enumerate() {
                        cur[axis] += r;
                        c[s + 1] = cur;
                    }
                    if odd {
                        c.swap(1, 2);
                    }
                    let mut t = [UNUSED; 10];
                    for q in 0..4 {
                        t[q] = index(c[q]);
                    }
                    if order == Order::Quadratic {
                        for (m, &(a, b)) in EDGES.iter().enumerate() {
                            let mid = [
                                (c[a][0] + c[b][0]) / 2,
                                (c[a][1] + c[b][1]) / 2,
                                (c[a][2] + c[b][2]) / 2,
                            ];
                            t[4 + m] = index(mid);
                        }
                    }
                    tets.push(t);
                }
            }
        }
    }
    TetMesh { nodes, tets, order }
}

/// The quadratic version of a mesh: a linear mesh gets one new node at the
/// midpoint of each edge, shared by all elements on that edge (new nodes
/// appended after the existing ones in order of first use); a quadratic
/// mesh is returned unchanged.
pub fn to_quadratic(mesh: &TetMesh) -> TetMesh {
    if mesh.order == Order::Quadratic {
        return mesh.clone();
    }
    let mut nodes = mesh.nodes.clone();
    let mut edge_node: HashMap<(u32, u32), u32> = HashMap::new();
    let mut tets = Vec::with_capacity(mesh.tets.len());
    for t in &mesh.tets {
        let mut q = *t;
        for (m, &(a, b)) in EDGES.iter().enumerate() {
            let (na, nb) = (t[a], t[b]);
            let key = (na.min(nb), na.max(nb));
            let id = *edge_node.entry(key).or_insert_with(|| {
                nodes.push(0.5 * (mesh.nodes[na as usize] + mesh.nodes[nb as usize]));
                (nodes.len() - 1) as u32
            });
            q[4 + m] = id;
        }
        tets.push(q);
    }
    TetMesh {
        nodes,
        tets,
        order: Order::Quadratic,
    }
}

/// Gradients (with respect to the reference coordinates ξ) of the 10
/// quadratic shape functions at barycentric point `l` (l₀ = 1 − ξ − η − ζ).
pub fn tet10_dshape(l: [f64; 4]) -> [DVec3; 10] {
    let dl = [DVec3::new(-1.0, -1.0, -1.0), DVec3::X, DVec3::Y, DVec3::Z];
    let mut out = [DVec3::ZERO; 10];
    for i in 0..4 {
        out[i] = (4.0 * l[i] - 1.0) * dl[i];
    }
    for (m, &(a, b)) in EDGES.iter().enumerate() {
        out[4 + m] = 4.0 * (l[b] * dl[a] + l[a] * dl[b]);
    }
    out
}

/// Gradients (w.r.t. ξ) of the 4 linear shape functions (constant).
pub fn tet4_dshape() -> [DVec3; 4] {
    [DVec3::new(-1.0, -1.0, -1.0), DVec3::X, DVec3::Y, DVec3::Z]
}

/// The isoparametric Jacobian dX/dξ of a quadratic element at barycentric
/// point `l` (columns = derivatives along ξ, η, ζ).
pub fn tet10_jacobian(x: &[DVec3; 10], l: [f64; 4]) -> DMat3 {
    let ds = tet10_dshape(l);
    let mut j = DMat3::ZERO;
    for a in 0..10 {
        j += outer(x[a], ds[a]);
    }
    j
}

/// Outer product a ⊗ b (the matrix a bᵀ).
pub fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Checks a mesh: it has elements, every node index is in range, every
/// coordinate finite, every corner tetrahedron has positive volume, and for
/// a quadratic mesh the Jacobian is positive at every corner (curved
/// elements are fine as long as they are not folded).
pub fn check(mesh: &TetMesh) -> Result<(), MeshError> {
    if mesh.tets.is_empty() {
        return Err(MeshError::Empty);
    }
    for (i, p) in mesh.nodes.iter().enumerate() {
        if !p.is_finite() {
            return Err(MeshError::NotFinite {
                node: i,
                x: p.x,
                y: p.y,
                z: p.z,
            });
        }
    }
    let nn = mesh.order.nodes_per_element();
    let count = mesh.nodes.len();
    for (e, t) in mesh.tets.iter().enumerate() {
        for &n in &t[..nn] {
            if n as usize >= count {
                return Err(MeshError::NodeOutOfRange {
                    element: e,
                    node: n,
                    count,
                });
            }
        }
        let volume = corner_volume(mesh, e);
        if volume <= 0.0 || !volume.is_finite() {
            return Err(MeshError::Inverted { element: e, volume });
        }
        if mesh.order == Order::Quadratic {
            let x: [DVec3; 10] = std::array::from_fn(|a| mesh.nodes[t[a] as usize]);
            for corner in 0..4 {
                let mut l = [0.0; 4];
                l[corner] = 1.0;
                let det = tet10_jacobian(&x, l).determinant();
                if det <= 0.0 || !det.is_finite() {
                    return Err(MeshError::BadJacobian {
                        element: e,
                        corner,
                        det,
                    });
                }
            }
        }
    }
    Ok(())
}

/// The boundary of a mesh as flat triangles: used for drawing and for
/// contact with grains.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Surface {
    /// Sorted unique mesh node indices used by `tris`.
    pub nodes: Vec<u32>,
    /// Triangles by mesh node index, counter-clockwise seen from outside
    /// (outward normal by the right-hand rule).
    pub tris: Vec<[u32; 3]>,
}

/// The boundary faces of a mesh (faces that belong to exactly one
/// element), sorted by their sorted corner indices for a deterministic
/// order. A quadratic face is split into 4 flat triangles through its
/// mid-edge nodes (3 corner triangles, then the middle one).
pub fn surface(mesh: &TetMesh) -> Surface {
    // (sorted corner key, element, face) for every face of every element.
    let mut faces: Vec<([u32; 3], u32, u8)> = Vec::with_capacity(4 * mesh.tets.len());
    for (e, t) in mesh.tets.iter().enumerate() {
        for (f, face) in FACES.iter().enumerate() {
            let mut key = [t[face[0]], t[face[1]], t[face[2]]];
            key.sort_unstable();
            faces.push((key, e as u32, f as u8));
        }
    }
    faces.sort_unstable();
    let mut tris = Vec::new();
    let mut i = 0;
    while i < faces.len() {
        let mut j = i + 1;
        while j < faces.len() && faces[j].0 == faces[i].0 {
            j += 1;
        }
        if j - i == 1 {
            let (_, e, f) = faces[i];
            let t = &mesh.tets[e as usize];
            let c = FACES[f as usize];
            match mesh.order {
                Order::Linear => tris.push([t[c[0]], t[c[1]], t[c[2]]]),
                Order::Quadratic => {
                    let mid = |a: usize, b: usize| t[4 + edge_index(a, b)];
                    let (a, b, cc) = (c[0], c[1], c[2]);
                    let (mab, mbc, mca) = (mid(a, b), mid(b, cc), mid(cc, a));
                    tris.push([t[a], mab, mca]);
                    tris.push([mab, t[b], mbc]);
                    tris.push([mca, mbc, t[cc]]);
                    tris.push([mab, mbc, mca]);
                }
            }
        }
        i = j;
    }
    let mut nodes: Vec<u32> = tris.iter().flatten().copied().collect();
    nodes.sort_unstable();
    nodes.dedup();
    Surface { nodes, tris }
}

/// Index (0..5) into [`EDGES`] of the edge between corners `a` and `b`,
/// either direction.
pub fn edge_index(a: usize, b: usize) -> usize {
    EDGES
        .iter()
        .position(|&(p, q)| (p == a && q == b) || (p == b && q == a))
        .expect("corners of a tetrahedron edge")
}
