//! What `talus check` says about a wall (its kind, its bounding box at
//! time 0 and a one-line summary of its motion) and about each
//! `[[insert]]` and `[[outlets]]` entry, and of each `[[bodies]]` entry.

use super::mesh_file;
use super::radius::RadiusDist;
use super::types::{
    BodyElement, BodyIntegrator, BodyModel, InsertRate, Region, Scene, Shape, Side, Wall,
    WallMotion,
};
use crate::fem::build;
use glam::DVec3;

impl Shape {
    /// `"plane"`, `"cylinder"`, `"cone"` or `"mesh"` (the scene's `type`).
    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Plane { .. } => "plane",
            Shape::Cylinder { .. } => "cylinder",
            Shape::Cone { .. } => "cone",
            Shape::Mesh { .. } => "mesh",
        }
    }

    /// The axis-aligned box (min, max) around the surface at time 0; None
    /// for an infinite plane or cylinder.
    pub fn bounding_box(&self) -> Option<([f64; 3], [f64; 3])> {
        // a circle of radius r about `c` in the plane normal to unit `a`
        // spans r √(1 − a_k²) either side of c_k on axis k
        let disk = |c: DVec3, a: DVec3, r: f64| {
            let e = DVec3::new(
                (1.0 - a.x * a.x).max(0.0).sqrt(),
                (1.0 - a.y * a.y).max(0.0).sqrt(),
                (1.0 - a.z * a.z).max(0.0).sqrt(),
            ) * r;
            (c - e, c + e)
        };
        let ends = |center: [f64; 3], axis: [f64; 3], r: [f64; 2], length: f64| {
            let (c, a) = (DVec3::from(center), DVec3::from(axis));
            let (lo0, hi0) = disk(c, a, r[0]);
            let (lo1, hi1) = disk(c + length * a, a, r[1]);
            (lo0.min(lo1).to_array(), hi0.max(hi1).to_array())
        };
        match self {
            Shape::Plane { .. } => None,
            Shape::Cylinder {
                center,
                axis,
                radius,
                length,
                ..
            } => length.map(|l| ends(*center, *axis, [*radius; 2], l)),
            Shape::Cone {
                center,
                axis,
                radius,
                length,
                ..
            } => Some(ends(*center, *axis, *radius, *length)),
            Shape::Mesh { triangles, .. } => mesh_file::bounds(triangles),
        }
    }
}

impl Shape {
    /// The bounding box as `[x, y, z] .. [x, y, z] m`, or "infinite".
    pub fn bounding_box_summary(&self) -> String {
        match self.bounding_box() {
            None => "infinite".to_string(),
            Some((lo, hi)) => format!("{} .. {} m", v3(lo), v3(hi)),
        }
    }
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Inside => "inside",
            Side::Outside => "outside",
        }
    }
}

/// `[x, y, z]` with 4 significant digits each (round-off below 1e-12 of
/// the largest component shown as 0).
fn v3(v: [f64; 3]) -> String {
    let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let f = |x: f64| {
        if x.abs() <= 1e-12 * big {
            "0".to_string()
        } else {
            fmt_g(x)
        }
    };
    format!("[{}, {}, {}]", f(v[0]), f(v[1]), f(v[2]))
}

/// A length in mm (up to 4 significant digits).
fn mm(x: f64) -> String {
    format!("{} mm", fmt_g(x * 1e3))
}

fn fmt_g(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

impl WallMotion {
    /// e.g. `rotates 3 rad/s about [0, 1, 0] through [0, 0, 0]; translates
    /// [0.1, 0, 0] m/s; oscillates 3 mm at 4 Hz along [0, 0, 1]; from 0.5 s
    /// to 2 s` ("fixed" when it does not move).
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.angular_velocity != 0.0 {
            parts.push(format!(
                "rotates {} rad/s about {} through {}",
                fmt_g(self.angular_velocity),
                v3(self.axis),
                v3(self.axis_point)
            ));
        }
        if self.velocity != [0.0; 3] {
            parts.push(format!("translates {} m/s", v3(self.velocity)));
        }
        if let Some(o) = &self.oscillation {
            if o.amplitude != 0.0 && o.frequency != 0.0 {
                parts.push(format!(
                    "oscillates {} at {} Hz along {}",
                    mm(o.amplitude),
                    fmt_g(o.frequency),
                    v3(o.direction)
                ));
            }
        }
        if parts.is_empty() {
            return "fixed".to_string();
        }
        let d = WallMotion::default();
        if self.start != d.start || self.stop != d.stop {
            parts.push(if self.stop != d.stop {
                format!("from {} s to {} s", fmt_g(self.start), fmt_g(self.stop))
            } else {
                format!("from {} s", fmt_g(self.start))
            });
        }
        parts.join("; ")
    }
}

impl Wall {
    /// Its motion and servo in a few words, or "fixed".
    pub fn motion_summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.motion {
            let s = m.summary();
            if s != "fixed" {
                parts.push(s);
            }
        }
        if let Some(s) = &self.servo {
            parts.push(format!(
                "servo {} N ≤ {} m/s along {}",
                fmt_g(s.force),
                fmt_g(s.max_speed),
                v3(s.direction)
            ));
        }
        if parts.is_empty() {
            "fixed".to_string()
        } else {
            parts.join("; ")
        }
    }
}

impl Region {
    /// e.g. `box [0, 0, 0.1] .. [0.1, 0.1, 0.2] m` or `cylinder from [0,
    /// 0, 0] along [0, 0, 1], radius 10 mm, length 5 mm`.
    pub fn summary(&self) -> String {
        match *self {
            Region::Box { min, max } => format!("box {} .. {} m", v3(min), v3(max)),
            Region::Cylinder {
                center,
                axis,
                radius,
                length,
            } => format!(
                "cylinder from {} m along {}, radius {}, length {}",
                v3(center),
                v3(axis),
                mm(radius),
                mm(length)
            ),
        }
    }
}

impl RadiusDist {
    /// e.g. `r 1 mm`, `r 0.8–1.2 mm`, `r 1–3 mm (3 sizes)`.
    pub fn summary(&self) -> String {
        match self {
            RadiusDist::Constant(r) => format!("r {}", mm(*r)),
            RadiusDist::Uniform { min, max } => {
                format!("r {}–{} mm", fmt_g(min * 1e3), fmt_g(max * 1e3))
            }
            RadiusDist::Discrete(l) => format!(
                "r {}–{} mm ({} sizes)",
                fmt_g(self.min() * 1e3),
                fmt_g(self.max() * 1e3),
                l.len()
            ),
        }
    }
}

impl Scene {
    /// One line per `[[insert]]` and per `[[outlets]]` entry, for `talus
    /// check`, e.g. `insert[0]: box [0, 0, 0.1] .. [0.1, 0.1, 0.2] m,
    /// 20000 particles/s, r 0.8–1.2 mm, glass, at [0, 0, -0.5] m/s, 0–0.5
    /// s, cap 100000, interval auto` and `outlets[0] orifice: cylinder
    /// from [0.05, 0.05, 0] m along [0, 0, 1], radius 10 mm, length 5 mm`.
    pub fn describe_flow(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, ins) in self.inserts.iter().enumerate() {
            let mut parts = vec![
                ins.region.summary(),
                match ins.rate {
                    InsertRate::Count(n) => format!("{} particles/s", fmt_g(n)),
                    InsertRate::Mass(m) => format!("{} kg/s", fmt_g(m)),
                },
                match ins.shape.and_then(|k| self.shapes.get(k)) {
                    Some(s) => format!(
                        "clumps \"{}\" (orientation {})",
                        s.name,
                        match ins.orientation {
                            crate::scene::types::Orientation::Random => "random".to_string(),
                            crate::scene::types::Orientation::Fixed(q) => format!(
                                "[{}, {}, {}, {}]",
                                fmt_g(q[0]),
                                fmt_g(q[1]),
                                fmt_g(q[2]),
                                fmt_g(q[3])
                            ),
                        }
                    ),
                    None => ins.radius.summary(),
                },
                self.materials
                    .get(ins.material)
                    .map_or("?".to_string(), |m| m.name.clone()),
            ];
            if ins.velocity != [0.0; 3] {
                parts.push(format!("at {} m/s", v3(ins.velocity)));
            }
            parts.push(match ins.stop {
                Some(stop) => format!("{}–{} s", fmt_g(ins.start), fmt_g(stop)),
                None => format!("from {} s", fmt_g(ins.start)),
            });
            if let Some(n) = ins.count {
                parts.push(format!("cap {n}"));
            }
            parts.push(match ins.interval {
                Some(dt) => format!("interval {} s", fmt_g(dt)),
                None => "interval auto".to_string(),
            });
            out.push(format!("insert[{i}]: {}", parts.join(", ")));
        }
        for (i, o) in self.outlets.iter().enumerate() {
            out.push(format!(
                "outlets[{i}] {}: {}",
                o.label(i),
                o.region.summary()
            ));
        }
        out
    }
}

impl Scene {
    /// One line per `[[shapes]]` entry, for `talus check`: its spheres and
    /// its mass properties at unit density as the scene resolved them
    /// (`ClumpShape::body`: the union's, or a mesh's solid's), e.g.
    /// `shapes[0] dumbbell: 2 spheres, 7.5063e-9 m³, principal moments (…)
    /// m⁵ (× density: kg m²), reach 1.6000e-3 m`.
    pub fn describe_shapes(&self) -> Vec<String> {
        use crate::scene::types::ClumpSource;
        self.shapes
            .iter()
            .enumerate()
            .map(|(i, sh)| {
                let b = &sh.body;
                let what = match &sh.source {
                    ClumpSource::Spheres(list) => format!("{} spheres,", list.len()),
                    ClumpSource::Mesh { file, count, .. } => format!(
                        "{} filled with {count} spheres ({} placed), solid",
                        file.display(),
                        b.members.len()
                    ),
                };
                format!(
                    "shapes[{i}] {}: {what} {:.4e} m³, principal moments ({:.3e}, {:.3e}, {:.3e}) m⁵ (× density: kg m²), reach {:.4e} m",
                    sh.name, b.volume, b.moments.x, b.moments.y, b.moments.z, b.reach
                )
            })
            .collect()
    }

    /// One line per `[[bodies]]` entry, for `talus check` (on a valid
    /// scene: each mesh is built again, from the file read at load), e.g. `bodies[0] plate: 1369
    /// nodes, 576 elements (tet10), stvk, explicit, mass 1.1e-2 kg,
    /// explicit critical step 2.345e-6 s (element 17), 78 fixed nodes`.
    pub fn describe_bodies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, b) in self.bodies.iter().enumerate() {
            let kind = match b.element {
                BodyElement::Tet4 => "tet4",
                BodyElement::Tet10 => "tet10",
            };
            let model = match b.model {
                BodyModel::Stvk => "stvk",
                BodyModel::Linear => "linear",
            };
            let integrator = match b.integrator {
                BodyIntegrator::Explicit => "explicit",
                BodyIntegrator::EnergyMomentum => "energy_momentum",
            };
            let head = format!("bodies[{i}] {}", b.label(i));
            let summary = build::body_mesh(self, i).and_then(|m| build::summary(self, i, &m));
            out.push(match summary {
                Ok(s) => format!(
                    "{head}: {} nodes, {} elements ({kind}), {model}, {integrator}, mass {:.4e} kg, explicit critical step {:.4e} s (element {}), {} fixed nodes",
                    s.nodes,
                    s.elements,
                    s.mass,
                    s.critical_step.0,
                    s.critical_step.1 + 1,
                    s.fixed_nodes
                ),
                Err(e) => format!("{head}: {kind}, {model}, {integrator} ({})", e.message),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::builder::SceneBuilder;
    use crate::scene::radius::RadiusDist;
    use crate::scene::types::{
        Insert, InsertRate, Material, Oscillation, Outlet, Region, Servo, Shape, Side, Wall,
        WallMotion,
    };

    #[test]
    fn flow_lines() {
        let s = SceneBuilder::new("pour")
            .material(Material::new("glass", 2500.0, 1e7))
            .add_insert(Insert {
                region: Region::Box {
                    min: [0.0, 0.0, 0.1],
                    max: [0.1, 0.1, 0.2],
                },
                rate: InsertRate::Count(20000.0),
                radius: RadiusDist::Uniform {
                    min: 0.0008,
                    max: 0.0012,
                },
                material: 0,
                velocity: [0.0, 0.0, -0.5],
                start: 0.0,
                stop: Some(0.5),
                count: Some(100000),
                interval: None,
                shape: None,
                orientation: Default::default(),
            })
            .add_insert(Insert {
                region: Region::Cylinder {
                    center: [0.05, 0.05, 0.1],
                    axis: [0.0, 0.0, 1.0],
                    radius: 0.02,
                    length: 0.05,
                },
                rate: InsertRate::Mass(0.5),
                radius: RadiusDist::Discrete(vec![(0.001, 0.5), (0.002, 0.25), (0.003, 0.25)]),
                material: 0,
                velocity: [0.0; 3],
                start: 0.1,
                stop: None,
                count: None,
                interval: Some(0.01),
                shape: None,
                orientation: Default::default(),
            })
            .add_outlet(Outlet {
                name: Some("orifice".into()),
                region: Region::Cylinder {
                    center: [0.05, 0.05, 0.0],
                    axis: [0.0, 0.0, 1.0],
                    radius: 0.01,
                    length: 0.005,
                },
            })
            .add_outlet(Outlet {
                name: None,
                region: Region::Box {
                    min: [0.0; 3],
                    max: [0.1, 0.1, 0.001],
                },
            })
            .build_unchecked();
        assert_eq!(
            s.describe_flow(),
            [
                "insert[0]: box [0, 0, 0.1] .. [0.1, 0.1, 0.2] m, 20000 particles/s, r 0.8–1.2 mm, glass, at [0, 0, -0.5] m/s, 0–0.5 s, cap 100000, interval auto",
                "insert[1]: cylinder from [0.05, 0.05, 0.1] m along [0, 0, 1], radius 20 mm, length 50 mm, 0.5 kg/s, r 1–3 mm (3 sizes), glass, from 0.1 s, interval 0.01 s",
                "outlets[0] orifice: cylinder from [0.05, 0.05, 0] m along [0, 0, 1], radius 10 mm, length 5 mm",
                "outlets[1] outlet1: box [0, 0, 0] .. [0.1, 0.1, 0.001] m",
            ]
        );
        // a clump entry names its shape and orientation instead of a radius
        let mut c = s.clone();
        c.shapes = SceneBuilder::new("c")
            .shape(
                "dumbbell",
                &[[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]],
            )
            .build_unchecked()
            .shapes;
        c.inserts[0].shape = Some(0);
        c.inserts[1].shape = Some(0);
        c.inserts[1].orientation = crate::scene::types::Orientation::Fixed([1.0, 0.0, 0.0, 0.0]);
        let d = c.describe_flow();
        assert!(
            d[0].contains("particles/s, clumps \"dumbbell\" (orientation random), glass"),
            "{}",
            d[0]
        );
        assert!(
            d[1].contains("clumps \"dumbbell\" (orientation [1, 0, 0, 0])"),
            "{}",
            d[1]
        );
    }

    #[test]
    fn motion_summaries() {
        let mut w = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
        assert_eq!(w.motion_summary(), "fixed");
        w.motion = Some(WallMotion {
            angular_velocity: 3.0,
            axis: [0.0, 1.0, 0.0],
            ..Default::default()
        });
        assert_eq!(
            w.motion_summary(),
            "rotates 3 rad/s about [0, 1, 0] through [0, 0, 0]"
        );
        w.motion = Some(WallMotion {
            oscillation: Some(Oscillation {
                amplitude: 0.003,
                frequency: 4.0,
                direction: [0.0, 0.0, 1.0],
            }),
            stop: 2.0,
            ..Default::default()
        });
        w.servo = Some(Servo {
            force: 100.0,
            max_speed: 0.05,
            direction: [0.0, 0.0, -1.0],
        });
        assert_eq!(
            w.motion_summary(),
            "oscillates 3 mm at 4 Hz along [0, 0, 1]; from 0 s to 2 s; servo 100 N ≤ 0.05 m/s along [0, 0, -1]"
        );
    }

    #[test]
    fn bounding_boxes() {
        let cyl = Shape::Cylinder {
            center: [1.0, 0.0, 0.0],
            axis: [0.0, 0.0, 1.0],
            radius: 0.5,
            length: Some(2.0),
            side: Side::Inside,
        };
        assert_eq!(
            cyl.bounding_box(),
            Some(([0.5, -0.5, 0.0], [1.5, 0.5, 2.0]))
        );
        let cone = Shape::Cone {
            center: [0.0; 3],
            axis: [1.0, 0.0, 0.0],
            radius: [1.0, 0.25],
            length: 3.0,
            side: Side::Outside,
        };
        assert_eq!(
            cone.bounding_box(),
            Some(([0.0, -1.0, -1.0], [3.0, 1.0, 1.0]))
        );
        assert_eq!(
            Wall::plane([0.0; 3], [1.0, 0.0, 0.0], 0)
                .shape
                .bounding_box(),
            None
        );
    }
}
