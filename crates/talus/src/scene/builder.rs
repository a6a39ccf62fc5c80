//! Scenes in code, for tests and benchmarks. `build()` runs the same
//! validation as a scene file.

use super::error::SceneError;
use super::generate::{generate_lattice, generate_random};
use super::radius::RadiusDist;
use super::types::{
    unit_or_given, Body, Contact, ContactModel, Domain, Dt, End, Insert, Interaction, Material,
    Outlet, ParticleInit, Scene, Servo, Shape, Simulation, SourceInfo, Wall, WallMotion,
};
use std::collections::HashMap;

/// Builds a [`Scene`]. Defaults are those of a scene file (see
/// `docs/scenes.md`); the domain must be given.
#[derive(Debug, Clone)]
pub struct SceneBuilder {
    scene: Scene,
    error: Option<SceneError>,
}

impl SceneBuilder {
    pub fn new(name: &str) -> Self {
        SceneBuilder {
            scene: Scene {
                name: name.to_string(),
                file: None,
                simulation: Simulation::default(),
                domain: Domain {
                    min: [0.0; 3],
                    max: [0.0; 3],
                    periodic: [false; 3],
                },
                contact: Contact::default(),
                materials: Vec::new(),
                interactions: Vec::new(),
                particles: Vec::new(),
                walls: Vec::new(),
                inserts: Vec::new(),
                outlets: Vec::new(),
                bodies: Vec::new(),
                shapes: Vec::new(),
                sources: Vec::new(),
                key_lines: HashMap::new(),
                mesh_files: Default::default(),
                fixed: Vec::new(),
                bonds: Vec::new(),
                held: Vec::new(),
            },
            error: None,
        }
    }

    fn fail(&mut self, key: &str, msg: String) {
        if self.error.is_none() {
            self.error = Some(self.scene.error(key, msg));
        }
    }

    fn mat(&mut self, name: &str, key: &str) -> usize {
        match self.scene.material_index(name) {
            Some(i) => i,
            None => {
                self.fail(key, format!("unknown material \"{name}\""));
                0
            }
        }
    }

    fn source(&mut self, label: &str, generated: bool) -> usize {
        self.scene.sources.push(SourceInfo {
            label: format!("particles[{}] ({label})", self.scene.sources.len()),
            generated,
        });
        self.scene.sources.len() - 1
    }

    pub fn domain(mut self, min: [f64; 3], max: [f64; 3]) -> Self {
        self.scene.domain.min = min;
        self.scene.domain.max = max;
        self
    }
    pub fn periodic(mut self, periodic: [bool; 3]) -> Self {
        self.scene.domain.periodic = periodic;
        self
    }
    pub fn gravity(mut self, g: [f64; 3]) -> Self {
        self.scene.simulation.gravity = g;
        self
    }
    pub fn dt(mut self, dt: f64) -> Self {
        self.scene.simulation.dt = Dt::Fixed(dt);
        self
    }
    pub fn dt_auto(mut self, safety: f64) -> Self {
        self.scene.simulation.dt = Dt::Auto;
        self.scene.simulation.dt_safety = safety;
        self
    }
    /// Verlet skin of the neighbour list (m); see [`Simulation::neighbour_skin`].
    pub fn neighbour_skin(mut self, skin: f64) -> Self {
        self.scene.simulation.neighbour_skin = Some(skin);
        self
    }
    pub fn duration(mut self, t: f64) -> Self {
        self.scene.simulation.end = End::Duration(t);
        self
    }
    pub fn steps(mut self, n: u64) -> Self {
        self.scene.simulation.end = End::Steps(n);
        self
    }
    pub fn output_interval(mut self, t: f64) -> Self {
        self.scene.simulation.output_interval = Some(t);
        self
    }
    pub fn seed(mut self, seed: u64) -> Self {
        self.scene.simulation.seed = seed;
        self
    }
    pub fn hertz_mindlin(mut self) -> Self {
        self.scene.contact.model = ContactModel::HertzMindlin;
        self
    }
    /// Linear model with a fixed stiffness (N/m).
    pub fn linear_stiffness(mut self, k: f64) -> Self {
        self.scene.contact.model = ContactModel::Linear;
        self.scene.contact.stiffness = Some(k);
        self.scene.contact.contact_time = None;
        self
    }
    /// Linear model calibrated from a contact time (s).
    pub fn linear_contact_time(mut self, tc: f64) -> Self {
        self.scene.contact.model = ContactModel::Linear;
        self.scene.contact.contact_time = Some(tc);
        self.scene.contact.stiffness = None;
        self
    }
    /// Linear model: k_t / k_n (default 2/7; Cundall & Strack's k_t = k_n
    /// is 1).
    pub fn tangential_stiffness_ratio(mut self, ratio: f64) -> Self {
        self.scene.contact.tangential_stiffness_ratio = ratio;
        self
    }
    pub fn material(mut self, m: Material) -> Self {
        self.scene.materials.push(m);
        self
    }
    pub fn interaction(
        mut self,
        a: &str,
        b: &str,
        restitution: Option<f64>,
        friction: Option<f64>,
        rolling_friction: Option<f64>,
    ) -> Self {
        let key = format!("interactions[{}]", self.scene.interactions.len());
        let ia = self.mat(a, &key);
        let ib = self.mat(b, &key);
        self.scene.interactions.push(Interaction {
            materials: [ia, ib],
            restitution,
            friction,
            rolling_friction,
            rolling_viscous_damping: None,
            cohesion_energy_density: None,
            surface_energy: None,
        });
        self
    }
    /// A `[[fixed]]` region: the particles whose centre is inside at t = 0
    /// are held still.
    pub fn fixed(mut self, region: crate::scene::types::Region) -> Self {
        self.scene.fixed.push(region);
        self
    }
    /// A `[[bonds]]` entry (its materials as indices into the scene's).
    pub fn bonds(mut self, spec: crate::scene::types::BondSpec) -> Self {
        self.scene.bonds.push(spec);
        self
    }
    /// The cohesion model (`[contact] cohesion`).
    pub fn cohesion(mut self, c: crate::scene::types::Cohesion) -> Self {
        self.scene.contact.cohesion = c;
        self
    }
    /// The rolling resistance model (`[contact] rolling`).
    pub fn rolling(mut self, r: crate::scene::types::Rolling) -> Self {
        self.scene.contact.rolling = r;
        self
    }
    /// A plane wall (the scene's `type = "plane"`); the normal is
    /// normalised here.
    pub fn wall(mut self, point: [f64; 3], normal: [f64; 3], material: &str) -> Self {
        let key = format!("walls[{}]", self.scene.walls.len());
        let m = self.mat(material, &key);
        self.scene.walls.push(Wall::plane(point, normal, m));
        self
    }
    /// Any wall (its material index already resolved, e.g. with
    /// [`SceneBuilder::material_index`]); axes and normals must be unit
    /// (see [`crate::scene::types::unit_or_given`]).
    pub fn add_wall(mut self, wall: Wall) -> Self {
        self.scene.walls.push(wall);
        self
    }
    /// A resting wall of any shape made of the named material.
    pub fn shape_wall(mut self, shape: Shape, material: &str) -> Self {
        let key = format!("walls[{}]", self.scene.walls.len());
        let m = self.mat(material, &key);
        self.scene.walls.push(Wall {
            name: None,
            shape,
            material: m,
            motion: None,
            servo: None,
        });
        self
    }
    /// Names the last wall added.
    pub fn wall_name(mut self, name: &str) -> Self {
        match self.scene.walls.last_mut() {
            Some(w) => w.name = Some(name.to_string()),
            None => self.fail("walls", "wall_name before any wall".into()),
        }
        self
    }
    /// Gives the last wall added a prescribed motion.
    pub fn wall_motion(mut self, motion: WallMotion) -> Self {
        match self.scene.walls.last_mut() {
            Some(w) => w.motion = Some(motion),
            None => self.fail("walls", "wall_motion before any wall".into()),
        }
        self
    }
    /// Gives the last wall added a servo.
    pub fn wall_servo(mut self, servo: Servo) -> Self {
        match self.scene.walls.last_mut() {
            Some(w) => w.servo = Some(servo),
            None => self.fail("walls", "wall_servo before any wall".into()),
        }
        self
    }
    /// Gravity turning about `axis` (normalised here) at `angular_velocity`
    /// rad/s from t = 0, for ever.
    pub fn gravity_rotation(self, axis: [f64; 3], angular_velocity: f64) -> Self {
        self.gravity_turns(crate::scene::GravityRotation::steady(
            axis,
            angular_velocity,
        ))
    }
    /// Gravity turning as `rotation` says (its axis normalised here): turns
    /// of a given angle, from a start time, repeated.
    pub fn gravity_turns(mut self, rotation: crate::scene::GravityRotation) -> Self {
        let axis = unit_or_given(rotation.axis);
        self.scene.simulation.gravity_rotation =
            Some(crate::scene::GravityRotation { axis, ..rotation });
        self
    }
    /// Wall-clock seconds between checkpoints of a run (see
    /// [`Simulation::checkpoint_interval`]).
    pub fn checkpoint_interval(mut self, seconds: f64) -> Self {
        self.scene.simulation.checkpoint_interval = seconds;
        self
    }
    /// An `[[insert]]` (its material index resolved, e.g. with
    /// [`SceneBuilder::material_index`]; a cylinder region's axis unit, see
    /// [`crate::scene::types::unit_or_given`]). A scene with an insertion
    /// may start without particles.
    pub fn add_insert(mut self, insert: Insert) -> Self {
        self.scene.inserts.push(insert);
        self
    }
    /// An `[[outlets]]` entry.
    pub fn add_outlet(mut self, outlet: Outlet) -> Self {
        self.scene.outlets.push(outlet);
        self
    }
    /// A `[[bodies]]` entry (its material index resolved, e.g. with
    /// [`SceneBuilder::material_index`]; a mesh file's path as given,
    /// relative to the working directory).
    pub fn body(mut self, b: Body) -> Self {
        self.scene.bodies.push(b);
        self
    }
    /// The index of a material added so far.
    pub fn material_index(&self, name: &str) -> Option<usize> {
        self.scene.material_index(name)
    }
    /// One particle (its own source, treated like a file particle).
    pub fn particle(
        self,
        position: [f64; 3],
        velocity: [f64; 3],
        radius: f64,
        material: &str,
    ) -> Self {
        self.particle_spin(position, velocity, [0.0; 3], radius, material)
    }
    pub fn particle_spin(
        mut self,
        position: [f64; 3],
        velocity: [f64; 3],
        angular_velocity: [f64; 3],
        radius: f64,
        material: &str,
    ) -> Self {
        let src = match self
            .scene
            .sources
            .iter()
            .position(|s| s.label.ends_with("(code)"))
        {
            Some(i) => i,
            None => self.source("code", false),
        };
        let m = self.mat(material, "particles");
        self.scene.particles.push(ParticleInit {
            position,
            velocity,
            angular_velocity,
            radius,
            material: m,
            source: src,
            id: None,
            shape: None,
            orientation: crate::scene::types::IDENTITY,
        });
        self
    }
    /// A `[[shapes]]` entry of spheres (x, y, z, radius in its own frame),
    /// resolved as the parser resolves one.
    pub fn shape(mut self, name: &str, spheres: &[[f64; 4]]) -> Self {
        use crate::shapes::{mass, table};
        match mass::union_of_spheres(spheres, mass::Accuracy::default()) {
            Ok(props) => self.scene.shapes.push(crate::scene::types::ClumpShape {
                name: name.into(),
                source: crate::scene::types::ClumpSource::Spheres(spheres.to_vec()),
                body: table::Shape::new(name, spheres, &props),
            }),
            Err(e) => self.fail("shapes", e.to_string()),
        }
        self
    }
    /// One clump of shape `shape` (added by [`SceneBuilder::shape`]) with
    /// its centre of mass at `position` and orientation `orientation`
    /// (w, x, y, z: the shape's frame as written to the world).
    pub fn clump(
        mut self,
        shape: &str,
        position: [f64; 3],
        velocity: [f64; 3],
        angular_velocity: [f64; 3],
        orientation: [f64; 4],
        material: &str,
    ) -> Self {
        let Some(s) = self.scene.shapes.iter().position(|x| x.name == shape) else {
            self.fail("particles", format!("unknown shape \"{shape}\""));
            return self;
        };
        let radius = self.scene.shapes[s].body.max_radius;
        self = self.particle_spin(position, velocity, angular_velocity, radius, material);
        let p = self.scene.particles.last_mut().expect("just pushed");
        p.shape = Some(s);
        p.orientation =
            crate::shapes::table::as_written(crate::shapes::table::written(orientation));
        self
    }
    /// A generated source (lattice or random) as in a scene file.
    pub fn generate(
        mut self,
        generator: &str,
        region: ([f64; 3], [f64; 3]),
        radius: RadiusDist,
        material: &str,
        count: Option<usize>,
        velocity: [f64; 3],
    ) -> Self {
        let src = self.source(generator, true);
        let key = format!("particles[{src}]");
        let m = self.mat(material, &key);
        let seed = self
            .scene
            .simulation
            .seed
            .wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(src as u64 + 1));
        let r = match generator {
            "lattice" => generate_lattice(region, &radius, count, None, seed),
            "random" => generate_random(
                region,
                &radius,
                count.unwrap_or(0),
                &self.scene.particles,
                seed,
            ),
            other => Err(format!("unknown generator \"{other}\"")),
        };
        match r {
            Ok(mut ps) => {
                for p in &mut ps {
                    p.velocity = velocity;
                    p.material = m;
                    p.source = src;
                }
                self.scene.particles.extend(ps);
            }
            Err(e) => self.fail(&key, e),
        }
        self
    }
    /// Reads the bodies' mesh files ([`Scene::read_mesh_files`]),
    /// validates and returns the scene.
    pub fn build(self) -> Result<Scene, SceneError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut scene = self.scene;
        scene.read_mesh_files();
        scene.validate()?;
        Ok(scene)
    }
    /// The scene without validation (for tests of the validation itself).
    pub fn build_unchecked(self) -> Scene {
        self.scene
    }
}

#[cfg(test)]
mod tests {
    use super::SceneBuilder;
    use crate::scene::radius::RadiusDist;
    use crate::scene::types::{
        Insert, InsertRate, Material, Outlet, Region, Servo, Shape, Side, WallMotion,
    };

    fn drum(radius: f64) -> SceneBuilder {
        SceneBuilder::new("drum")
            .domain([-0.02; 3], [0.02; 3])
            .material(Material::new("m", 2500.0, 1e7))
            .shape_wall(
                Shape::Cylinder {
                    center: [0.0, -0.02, 0.0],
                    axis: [0.0, 1.0, 0.0],
                    radius,
                    length: Some(0.04),
                    side: Side::Inside,
                },
                "m",
            )
            .wall_name("drum")
            .wall_motion(WallMotion {
                axis: [0.0, 1.0, 0.0],
                angular_velocity: 3.0,
                ..Default::default()
            })
            .particle([0.0; 3], [0.0; 3], 0.001, "m")
    }

    #[test]
    fn any_wall_can_be_built_in_code() {
        let s = drum(0.015).build().unwrap();
        assert_eq!(s.walls[0].label(0), "drum");
        assert_eq!(s.walls[0].motion.unwrap().angular_velocity, 3.0);
        let e = drum(0.0).build().unwrap_err();
        assert_eq!(
            e.to_string(),
            "scene: walls[0].radius: expected a radius > 0 m, got 0"
        );
        let e = drum(0.015)
            .wall_servo(Servo {
                force: 1.0,
                max_speed: 0.0,
                direction: [0.0, 1.0, 0.0],
            })
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("walls[0].servo.max_speed"), "{e}");
        // a particle in the drum's wall
        let e = drum(0.0004).build().unwrap_err();
        assert!(e.to_string().contains("from walls[0]"), "{e}");
    }

    fn pour(region: Region) -> Insert {
        Insert {
            region,
            rate: InsertRate::Count(1000.0),
            radius: RadiusDist::Uniform {
                min: 0.0008,
                max: 0.001,
            },
            material: 0,
            velocity: [0.0, 0.0, -0.5],
            start: 0.0,
            stop: Some(0.05),
            count: None,
            interval: None,
            shape: None,
            orientation: Default::default(),
        }
    }

    /// A box on a floor with no particles, filled by an insertion and
    /// emptied through an outlet.
    fn hopper() -> SceneBuilder {
        SceneBuilder::new("pour")
            .domain([0.0; 3], [0.02, 0.02, 0.04])
            .material(Material::new("m", 2500.0, 1e7))
            .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
            .wall_name("floor")
            .checkpoint_interval(30.0)
    }

    #[test]
    fn insertions_and_outlets_in_code() {
        let top = Region::Box {
            min: [0.0, 0.0, 0.03],
            max: [0.02, 0.02, 0.04],
        };
        let s = hopper()
            .add_insert(pour(top))
            .add_outlet(Outlet {
                name: Some("orifice".into()),
                region: Region::Cylinder {
                    center: [0.01, 0.01, 0.0],
                    axis: [0.0, 0.0, 1.0],
                    radius: 0.003,
                    length: 0.002,
                },
            })
            .build()
            .unwrap();
        assert_eq!(s.simulation.checkpoint_interval, 30.0);
        assert_eq!((s.inserts.len(), s.outlets.len()), (1, 1));
        assert!(s.particles.is_empty() && s.warnings().is_empty());
        // nothing at all to simulate
        let e = hopper().build().unwrap_err();
        assert!(
            e.to_string()
                .contains("no particles, no [[insert]] and no [[bodies]]"),
            "{e}"
        );
        // a shelf through the insertion region
        let low = Region::Box {
            min: [0.0, 0.0, 0.0],
            max: [0.02, 0.02, 0.01],
        };
        hopper().add_insert(pour(low)).build().unwrap();
        let e = hopper()
            .wall([0.0, 0.0, 0.005], [0.0, 0.0, 1.0], "m")
            .wall_name("shelf")
            .add_insert(pour(low))
            .build()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "scene: insert[0].region: insertion region overlaps wall \"shelf\" (walls[1], plane): the plane passes through the region or the region lies behind it"
        );
        // an outlet around the particles: a warning, not an error
        let s = hopper()
            .particle([0.01, 0.01, 0.01], [0.0; 3], 0.001, "m")
            .particle([0.005, 0.005, 0.01], [0.0; 3], 0.001, "m")
            .add_outlet(Outlet {
                name: None,
                region: Region::Box {
                    min: [0.0; 3],
                    max: [0.02, 0.02, 0.02],
                },
            })
            .checkpoint_interval(0.0)
            .build()
            .unwrap_err();
        assert!(
            s.to_string().contains("simulation.checkpoint_interval"),
            "{s}"
        );
        let s = hopper()
            .particle([0.01, 0.01, 0.01], [0.0; 3], 0.001, "m")
            .particle([0.005, 0.005, 0.03], [0.0; 3], 0.001, "m")
            .add_outlet(Outlet {
                name: None,
                region: Region::Box {
                    min: [0.0; 3],
                    max: [0.02, 0.02, 0.02],
                },
            })
            .build()
            .unwrap();
        let w: Vec<String> = s.warnings().iter().map(|w| w.to_string()).collect();
        let all = hopper()
            .particle([0.01, 0.01, 0.01], [0.0; 3], 0.001, "m")
            .add_outlet(Outlet {
                name: Some("drain".into()),
                region: Region::Box {
                    min: [0.0; 3],
                    max: [0.02, 0.02, 0.02],
                },
            })
            .build()
            .unwrap();
        assert_eq!(
            all.warnings()[0].to_string(),
            "scene: outlets[0].region: outlet \"drain\" holds the centre of every initial particle (1) at t = 0: all of them are removed when the run starts"
        );
        assert_eq!(
            w,
            ["scene: outlets[0].region: outlet \"outlet0\" holds the centres of 1 of the 2 initial particles at t = 0: they are removed when the run starts"]
        );
    }
}
