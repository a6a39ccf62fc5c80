//! The gap between a sphere centre and a wall primitive (CPU, f64; the
//! GPU's twin is `wall_gap` in `shaders/walls.wgsl`, the same arithmetic
//! in the same order). Positions are in the wall's body frame (its pose at
//! time 0); a moving wall's pose maps a particle there first
//! (`walls::motion`).

use super::primitive::{Kind, Primitive};
use glam::DVec3;

/// Which feature of a primitive is closest to the centre. Analytic
/// surfaces are smooth (`Face`); a triangle's closest point may be inside
/// it, on an edge or at a vertex (what the mesh's contact reduction reads:
/// docs/ARCHITECTURE.md, "Walls").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Feature {
    Face = 0,
    Edge = 1,
    Vertex = 2,
}

/// What [`gap`] finds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallGap {
    /// The distance from the centre along the contact normal. A sphere of
    /// radius r touches the primitive when it is below r; the overlap is r
    /// − dist. The neighbour list lists a primitive for a particle when it
    /// is below r + skin.
    pub dist: f64,
    /// Unit, from the particle toward the wall.
    pub normal: [f64; 3],
    pub feature: Feature,
}

/// The gap between centre `x` (body frame) and primitive `p`.
#[inline]
pub fn gap(p: &Primitive, x: [f64; 3]) -> WallGap {
    match p.kind {
        Kind::Plane => {
            // (x − a)·n, summed x, y, z in that order as the GPU's dot
            let n = DVec3::new(p.b[0], p.b[1], p.b[2]);
            let dist = (DVec3::from_array(x) - DVec3::new(p.a[0], p.a[1], p.a[2])).dot(n);
            WallGap {
                dist,
                normal: (-n).to_array(),
                feature: Feature::Face,
            }
        }
        Kind::Cylinder | Kind::Cone | Kind::Triangle => todo!("walls::gap for {:?}", p.kind),
    }
}
