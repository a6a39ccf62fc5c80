//! The gap between a sphere centre and a wall primitive (CPU, f64; the
//! GPU's twin is `wall_gap` in `shaders/walls.wgsl`, the same arithmetic
//! in the same order).

use super::primitive::{Kind, Primitive};
use glam::DVec3;

/// The distance from centre `x` to primitive `p` along the contact normal,
/// and that normal (unit, from the particle toward the wall). A sphere of
/// radius r touches the primitive when the distance is below r; the
/// overlap is r − distance. The neighbour list lists a primitive for a
/// particle when the distance is below r + skin.
#[inline]
pub fn gap(p: &Primitive, x: [f64; 3]) -> (f64, [f64; 3]) {
    match p.kind {
        Kind::Plane => {
            // (x − a)·n, summed x, y, z in that order as the GPU's dot
            let n = DVec3::new(p.b[0], p.b[1], p.b[2]);
            let dist = (DVec3::from_array(x) - DVec3::new(p.a[0], p.a[1], p.a[2])).dot(n);
            (dist, (-n).to_array())
        }
    }
}
