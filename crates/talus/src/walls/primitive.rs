//! A wall primitive and how a scene's walls become primitives.

use crate::scene::{Shape, Side};

/// What a primitive is. The GPU carries it as `Wall::kind` (`WALL_*` in
/// `shaders/walls.wgsl`, checked equal by `tests/shaders.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    /// An infinite plane: `a` a point on it, `b` its unit normal, pointing
    /// to the side the particles are on.
    Plane = 0,
    /// The lateral surface of a circular cylinder: `a.xyz` a point on the
    /// axis (the start of a finite one), `a.w` the length (< 0: infinite
    /// both ways), `b.xyz` the unit axis, `b.w` +1 particles inside, −1
    /// outside; `c.x` = `c.y` the radius.
    Cylinder = 1,
    /// The lateral surface of a frustum: as the cylinder, with radius `c.x`
    /// at `a.xyz` and `c.y` at `a.xyz + a.w * b.xyz` (`a.w` > 0).
    Cone = 2,
    /// One triangle of a mesh: vertices `a.xyz`, `b.xyz`, `c.xyz`
    /// (counter-clockwise seen from the side its normal points to); `a.w`
    /// 1 when one-sided (touched only from the normal's side), else 0.
    Triangle = 3,
}

impl Kind {
    /// The tag the GPU reads.
    pub const fn tag(self) -> u32 {
        self as u32
    }
}

/// One piece of wall geometry, in f64 (the GPU's f32 twin is
/// `gpu::layout::Wall`, the same fields in the same order). What `a`, `b`
/// and `c` hold depends on the [`Kind`]; the w lanes are the kind's to use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Primitive {
    pub kind: Kind,
    /// Index into the material table.
    pub material: u32,
    /// The scene wall it belongs to (a mesh wall has many primitives): what
    /// per-wall outputs sum over.
    pub wall: u32,
    pub a: [f64; 4],
    pub b: [f64; 4],
    pub c: [f64; 4],
}

impl Primitive {
    /// A plane through `point` with unit `normal` (toward the particles).
    pub fn plane(point: [f64; 3], normal: [f64; 3], material: u32, wall: u32) -> Primitive {
        let [px, py, pz] = point;
        let [nx, ny, nz] = normal;
        Primitive {
            kind: Kind::Plane,
            material,
            wall,
            a: [px, py, pz, 0.0],
            b: [nx, ny, nz, 0.0],
            c: [0.0; 4],
        }
    }
}

impl Primitive {
    /// The one primitive of an analytic wall shape (plane, cylinder,
    /// cone); None for a mesh (its triangles: [`Primitive::triangle`]).
    pub fn analytic(shape: &Shape, material: u32, wall: u32) -> Option<Primitive> {
        Some(match *shape {
            Shape::Plane { point, normal } => Primitive::plane(point, normal, material, wall),
            Shape::Cylinder {
                center,
                axis,
                radius,
                length,
                side,
            } => Primitive::revolution(
                Kind::Cylinder,
                center,
                axis,
                [radius; 2],
                length.unwrap_or(-1.0),
                side,
                material,
                wall,
            ),
            Shape::Cone {
                center,
                axis,
                radius,
                length,
                side,
            } => Primitive::revolution(
                Kind::Cone,
                center,
                axis,
                radius,
                length,
                side,
                material,
                wall,
            ),
            Shape::Mesh { .. } => return None,
        })
    }

    /// A cylinder or cone (see [`Kind`] for the packing).
    #[allow(clippy::too_many_arguments)]
    pub fn revolution(
        kind: Kind,
        center: [f64; 3],
        axis: [f64; 3],
        radius: [f64; 2],
        length: f64,
        side: Side,
        material: u32,
        wall: u32,
    ) -> Primitive {
        let s = match side {
            Side::Inside => 1.0,
            Side::Outside => -1.0,
        };
        Primitive {
            kind,
            material,
            wall,
            a: [center[0], center[1], center[2], length],
            b: [axis[0], axis[1], axis[2], s],
            c: [radius[0], radius[1], 0.0, 0.0],
        }
    }

    /// One triangle of a mesh.
    pub fn triangle(v: [[f64; 3]; 3], one_sided: bool, material: u32, wall: u32) -> Primitive {
        let p = |x: [f64; 3], w: f64| [x[0], x[1], x[2], w];
        Primitive {
            kind: Kind::Triangle,
            material,
            wall,
            a: p(v[0], if one_sided { 1.0 } else { 0.0 }),
            b: p(v[1], 0.0),
            c: p(v[2], 0.0),
        }
    }
}
