//! From a scene's `[[bodies]]` entry to a FEM body: its tetrahedra (a Gmsh
//! file or a generated box, turned into the element kind asked), the nodes
//! its `fixed` boxes clamp, and the body ready to run. Every error is a
//! located [`SceneError`] at the body's key, so `Scene::validate` (which
//! calls these) reports a bad mesh before any run.
//!
//! [`body_mesh`] builds a body's tetrahedra from the file the scene read at
//! load ([`Scene::mesh_files`]); everything else here takes that mesh as an
//! argument, so that a run builds each body's mesh once
//! ([`crate::setup::Setup::body_meshes`]) and hands it on.

use crate::fem::body::{Damping, FemBody, Integrator};
use crate::fem::element::Elements;
use crate::fem::material::{FemMaterial, Model};
use crate::fem::mesh::{box_mesh, check, to_quadratic, MeshError, Order, TetMesh, UNUSED};
use crate::fem::msh::{read_msh, MshTets};
use crate::scene::error::SceneError;
use crate::scene::types::{Body, BodyElement, BodyIntegrator, BodyMesh, BodyModel, Scene};
use glam::DVec3;

/// The tetrahedra of `scene.bodies[index]` (file or generator, converted
/// to the element kind asked), checked: positive volumes. A mesh file comes
/// from [`Scene::mesh_files`] (no I/O); one not there (a scene only parsed,
/// or a file that could not be read at load) is read now, and its error
/// reported at the body's `mesh` key.
pub fn body_mesh(scene: &Scene, index: usize) -> Result<TetMesh, SceneError> {
    let b = &scene.bodies[index];
    let order = match b.element {
        BodyElement::Tet4 => Order::Linear,
        BodyElement::Tet10 => Order::Quadratic,
    };
    let (key, mesh) = match &b.mesh {
        BodyMesh::File(path) => {
            let key = source_key(index, b);
            let read_now;
            let m = match scene.mesh_files.get(path) {
                Some(m) => m,
                None => {
                    read_now = read_msh(path).map_err(|e| scene.error(&key, e.to_string()))?;
                    &read_now
                }
            };
            let read = file_tets(m);
            // the corners first: an inverted element is named as the file
            // gives it, before any mid-edge node is added
            check(&read).map_err(|e| mesh_error(scene, &key, b, &read, e))?;
            let mesh = match (read.order, order) {
                (Order::Linear, Order::Quadratic) => to_quadratic(&read),
                (Order::Quadratic, Order::Linear) => to_linear(&read),
                _ => read,
            };
            (key, mesh)
        }
        BodyMesh::Box {
            min,
            max,
            divisions,
        } => {
            let key = source_key(index, b);
            admit_box(*divisions, order)
                .map_err(|e| scene.error(&format!("bodies[{index}].divisions"), e))?;
            (
                key,
                box_mesh(DVec3::from(*min), DVec3::from(*max), *divisions, order),
            )
        }
    };
    check(&mesh).map_err(|e| mesh_error(scene, &key, b, &mesh, e))?;
    Ok(mesh)
}

/// Refuses a generated box of `divisions` cells whose mesh and body would
/// not fit this machine's memory (6 tetrahedra a cell; nodes on the grid,
/// of half spacing for quadratic elements), before generating it.
fn admit_box(divisions: [u32; 3], order: Order) -> Result<(), String> {
    use crate::memory::{admit, FEM_BYTES_PER_NODE, FEM_BYTES_PER_TET};
    let r = if order == Order::Quadratic { 2 } else { 1 };
    let cells = divisions
        .iter()
        .fold(1u64, |a, &d| a.saturating_mul(u64::from(d)));
    let nodes = divisions
        .iter()
        .fold(1u64, |a, &d| a.saturating_mul(r * u64::from(d) + 1));
    let tets = cells.saturating_mul(6);
    let per_tet = FEM_BYTES_PER_TET[r as usize - 1];
    // nodes per tetrahedron, about: for the count that fits
    let per = per_tet + FEM_BYTES_PER_NODE * nodes.div_ceil(tets.max(1));
    let need = tets
        .saturating_mul(per_tet)
        .saturating_add(nodes.saturating_mul(FEM_BYTES_PER_NODE));
    admit(
        &format!(
            "{} × {} × {} divisions: {tets} tetrahedra and {nodes} nodes",
            divisions[0], divisions[1], divisions[2]
        ),
        need,
        0,
        per,
        "tetrahedra",
    )
}

/// Every body's tetrahedra ([`body_mesh`]), in the scene's order; the
/// first body whose mesh fails gives the error.
pub fn body_meshes(scene: &Scene) -> Result<Vec<TetMesh>, SceneError> {
    (0..scene.bodies.len())
        .map(|i| body_mesh(scene, i))
        .collect()
}

/// A mesh file's tetrahedra as a [`TetMesh`] of the file's own order.
fn file_tets(m: &MshTets) -> TetMesh {
    TetMesh {
        nodes: m.nodes.iter().map(|&p| DVec3::from(p)).collect(),
        tets: m
            .tets
            .iter()
            .map(|t| {
                let mut a = [UNUSED; 10];
                for (slot, &n) in a.iter_mut().zip(t) {
                    *slot = n;
                }
                a
            })
            .collect(),
        order: if m.quadratic {
            Order::Quadratic
        } else {
            Order::Linear
        },
    }
}

/// A mesh error as one line at `key`, naming the file and the element (1-
/// based, in file order) with its corners.
fn mesh_error(scene: &Scene, key: &str, b: &Body, mesh: &TetMesh, e: MeshError) -> SceneError {
    let what = mesh_name(b);
    let corners = |el: usize| {
        mesh.tets[el][..4]
            .iter()
            .map(|&n| v3(mesh.nodes[n as usize].to_array()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let message = match e {
        MeshError::Inverted { element, volume } => {
            // zero within round-off of the element's size
            let t = &mesh.tets[element];
            let h = (0..4)
                .flat_map(|a| (0..4).map(move |c| (a, c)))
                .map(|(a, c)| mesh.nodes[t[a] as usize].distance(mesh.nodes[t[c] as usize]))
                .fold(0.0f64, f64::max);
            if volume.abs() <= 1e-12 * h * h * h || !volume.is_finite() {
                format!(
                    "element {} has zero volume (a flat tetrahedron: corners {})",
                    element + 1,
                    corners(element)
                )
            } else {
                format!(
                    "element {} is inverted: corner volume {volume:.4e} m³ < 0 (corners {}; order them so that (x1 − x0)·((x2 − x0) × (x3 − x0)) > 0)",
                    element + 1,
                    corners(element)
                )
            }
        }
        MeshError::BadJacobian {
            element,
            corner,
            det,
        } => format!(
            "element {} is folded: Jacobian {det:.4e} ≤ 0 at corner {corner} (a mid-edge node too far off; corners {})",
            element + 1,
            corners(element)
        ),
        MeshError::NodeOutOfRange {
            element,
            node,
            count,
        } => format!(
            "element {}: node index {node} out of range (the mesh has {count} nodes)",
            element + 1
        ),
        MeshError::NotFinite { node, x, y, z } => format!(
            "node {}: coordinate is not finite ({x}, {y}, {z})",
            node + 1
        ),
        other => other.to_string(),
    };
    scene.error(key, format!("{what}{message}"))
}

/// `FILE: ` or `generated box: `, what a mesh error begins with.
fn mesh_name(b: &Body) -> String {
    match &b.mesh {
        BodyMesh::File(p) => format!("{}: ", p.display()),
        BodyMesh::Box { .. } => "generated box: ".to_string(),
    }
}

/// A quadratic mesh's corner tetrahedra (mid-edge nodes dropped, nodes
/// renumbered in order of first use).
fn to_linear(mesh: &TetMesh) -> TetMesh {
    let mut new_id = vec![UNUSED; mesh.nodes.len()];
    let mut nodes = Vec::new();
    let tets = mesh
        .tets
        .iter()
        .map(|t| {
            let mut a = [UNUSED; 10];
            for q in 0..4 {
                let n = t[q] as usize;
                if new_id[n] == UNUSED {
                    new_id[n] = nodes.len() as u32;
                    nodes.push(mesh.nodes[n]);
                }
                a[q] = new_id[n];
            }
            a
        })
        .collect();
    TetMesh {
        nodes,
        tets,
        order: Order::Linear,
    }
}

/// Per node: inside any `fixed` box.
pub fn fixed_nodes(body: &Body, mesh: &TetMesh) -> Vec<bool> {
    mesh.nodes
        .iter()
        .map(|p| body.fixed.iter().any(|&(lo, hi)| in_box(*p, lo, hi)))
        .collect()
}

/// How many nodes of `mesh` the box `lo .. hi` holds (boundary included).
pub fn nodes_in_box(mesh: &TetMesh, lo: [f64; 3], hi: [f64; 3]) -> usize {
    mesh.nodes.iter().filter(|p| in_box(**p, lo, hi)).count()
}

fn in_box(p: DVec3, lo: [f64; 3], hi: [f64; 3]) -> bool {
    let p = p.to_array();
    (0..3).all(|k| p[k] >= lo[k] && p[k] <= hi[k])
}

/// The axis-aligned box (min, max) around the nodes.
pub fn mesh_bounds(mesh: &TetMesh) -> ([f64; 3], [f64; 3]) {
    let lo = mesh
        .nodes
        .iter()
        .fold(DVec3::splat(f64::INFINITY), |a, p| a.min(*p));
    let hi = mesh
        .nodes
        .iter()
        .fold(DVec3::splat(f64::NEG_INFINITY), |a, p| a.max(*p));
    (lo.to_array(), hi.to_array())
}

/// `[x, y, z]`, each as Rust prints it.
fn v3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", v[0], v[1], v[2])
}

/// The body's material as the FEM core takes it.
pub fn fem_material(scene: &Scene, index: usize) -> FemMaterial {
    let m = &scene.materials[scene.bodies[index].material];
    FemMaterial {
        young: m.youngs_modulus,
        poisson: m.poisson_ratio,
        density: m.density,
    }
}

/// The explicit critical step (s) of `scene.bodies[index]` meshed as
/// `mesh`, and the element (0-based) that sets it.
pub fn critical_step(
    scene: &Scene,
    index: usize,
    mesh: &TetMesh,
) -> Result<(f64, usize), SceneError> {
    let el = elements(scene, index, mesh)?;
    Ok(el.min_critical_dt(fem_material(scene, index).wave_speed()))
}

/// The element data of `mesh` (an element folded at a quadrature point
/// reported at the body's mesh key).
fn elements(scene: &Scene, index: usize, mesh: &TetMesh) -> Result<Elements, SceneError> {
    Elements::new(mesh).map_err(|e| {
        let b = &scene.bodies[index];
        mesh_error(scene, &source_key(index, b), b, mesh, e)
    })
}

/// The key a body's tetrahedra come from: `bodies[i].mesh` or
/// `bodies[i].generator`.
fn source_key(index: usize, b: &Body) -> String {
    match b.mesh {
        BodyMesh::File(_) => format!("bodies[{index}].mesh"),
        BodyMesh::Box { .. } => format!("bodies[{index}].generator"),
    }
}

/// The FEM body ready to run on `mesh`, the body's tetrahedra
/// ([`body_mesh`]), with the material from the scene's table, model,
/// integrator, damping, fixed, velocity.
pub fn build_body(scene: &Scene, index: usize, mesh: TetMesh) -> Result<FemBody, SceneError> {
    let b = &scene.bodies[index];
    let fixed = fixed_nodes(b, &mesh);
    let model = match b.model {
        BodyModel::Stvk => Model::Stvk,
        BodyModel::Linear => Model::Linear,
    };
    let integrator = match b.integrator {
        BodyIntegrator::Explicit => Integrator::Explicit,
        BodyIntegrator::EnergyMomentum => Integrator::EnergyMomentum,
    };
    let damping = Damping {
        alpha: b.damping[0],
        beta: b.damping[1],
    };
    FemBody::new(
        mesh,
        fem_material(scene, index),
        model,
        integrator,
        damping,
        fixed,
        DVec3::from(b.velocity),
    )
    .map_err(|e| match e {
        MeshError::Material(m) => scene.error(&format!("bodies[{index}].material"), m),
        // body_mesh checked the mesh: only a quadrature point is left
        e => scene.error(&source_key(index, b), format!("{}{e}", mesh_name(b))),
    })
}

/// What `talus check` says about a body.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySummary {
    pub nodes: usize,
    pub elements: usize,
    /// kg.
    pub mass: f64,
    /// The explicit critical step (s) and the element (0-based) setting it.
    pub critical_step: (f64, usize),
    pub fixed_nodes: usize,
}

/// The summary of `scene.bodies[index]` meshed as `mesh` ([`body_mesh`]).
pub fn summary(scene: &Scene, index: usize, mesh: &TetMesh) -> Result<BodySummary, SceneError> {
    let b = &scene.bodies[index];
    let el = elements(scene, index, mesh)?;
    let critical = el.min_critical_dt(fem_material(scene, index).wave_speed());
    let density = scene.materials[b.material].density;
    let mass = (0..el.len()).map(|e| density * el.volume(e)).sum();
    Ok(BodySummary {
        nodes: mesh.nodes.len(),
        elements: mesh.tets.len(),
        mass,
        critical_step: critical,
        fixed_nodes: fixed_nodes(b, mesh).iter().filter(|&&f| f).count(),
    })
}

/// The lightest free node of body `index`'s surface (kg), the body meshed
/// as `mesh` ([`body_mesh`]): the mass a grain touching the body can meet
/// (a contact at a vertex moves that node alone). `dt = "auto"` takes the
/// grain–body contact with this mass as the partner's
/// ([`crate::timestep::estimate_with`]): the explicit contact of a heavy
/// grain with a light node is what limits the coupled step. None for a
/// body whose material or elements are not valid (validation reports it)
/// or without a free surface node.
pub fn lightest_surface_node(scene: &Scene, index: usize, mesh: &TetMesh) -> Option<f64> {
    let b = &scene.bodies[index];
    let density = scene.materials.get(b.material)?.density;
    let el = Elements::new(mesh).ok()?;
    let masses = el.lumped_masses(density, mesh.nodes.len());
    let fixed = fixed_nodes(b, mesh);
    crate::fem::mesh::surface(mesh)
        .nodes
        .iter()
        .filter(|&&k| !fixed[k as usize])
        .map(|&k| masses[k as usize])
        .reduce(f64::min)
}

/// [`lightest_surface_node`] of every body, `meshes[i]` the tetrahedra of
/// `scene.bodies[i]`: what [`crate::timestep::estimate_with`] takes.
pub fn lightest_surface_nodes(scene: &Scene, meshes: &[TetMesh]) -> Vec<Option<f64>> {
    meshes
        .iter()
        .enumerate()
        .map(|(i, m)| lightest_surface_node(scene, i, m))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{body_mesh, build_body, fixed_nodes, summary, to_linear};
    use crate::fem::mesh::{box_mesh, Order};
    use crate::scene::types::{
        Body, BodyElement, BodyIntegrator, BodyMesh, BodyModel, Material, Scene,
    };
    use crate::scene::SceneBuilder;
    use glam::DVec3;

    fn plate(element: BodyElement) -> Scene {
        SceneBuilder::new("plate")
            .domain([0.0; 3], [0.1; 3])
            .material(Material::new("rubber", 1000.0, 1e6))
            .particle([0.05, 0.05, 0.09], [0.0; 3], 0.001, "rubber")
            .body(Body {
                name: Some("plate".into()),
                mesh: BodyMesh::Box {
                    min: [0.0, 0.0, 0.0],
                    max: [0.04, 0.02, 0.01],
                    divisions: [4, 2, 1],
                },
                material: 0,
                element,
                model: BodyModel::Stvk,
                integrator: BodyIntegrator::Explicit,
                velocity: [0.0, 0.0, -1.0],
                damping: [0.0; 2],
                fixed: vec![([0.0, 0.0, 0.0], [0.0, 0.02, 0.01])],
                exchange_every: None,
                wall_stiffness: None,
            })
            .build()
            .unwrap()
    }

    #[test]
    fn generated_boxes_of_both_kinds() {
        let s = plate(BodyElement::Tet4);
        let m = body_mesh(&s, 0).unwrap();
        assert_eq!(
            (m.nodes.len(), m.tets.len(), m.order),
            (30, 48, Order::Linear)
        );
        // the face x = 0: 3 × 2 nodes
        assert_eq!(
            fixed_nodes(&s.bodies[0], &m).iter().filter(|&&f| f).count(),
            6
        );
        let sum = summary(&s, 0, &m).unwrap();
        assert!((sum.mass - 1000.0 * 0.04 * 0.02 * 0.01).abs() < 1e-12);
        let s = plate(BodyElement::Tet10);
        let m = body_mesh(&s, 0).unwrap();
        assert_eq!((m.nodes.len(), m.order), (9 * 5 * 3, Order::Quadratic));
        let b = build_body(&s, 0, m.clone()).unwrap();
        assert!((b.mass() - 8.0e-3).abs() < 1e-12);
        assert_eq!(b.fixed().iter().filter(|&&f| f).count(), 5 * 3);
        // clamped nodes start at rest, the others at the body's velocity
        for (v, f) in b.velocities().iter().zip(b.fixed()) {
            assert_eq!(
                *v,
                if *f {
                    DVec3::ZERO
                } else {
                    DVec3::new(0.0, 0.0, -1.0)
                }
            );
        }
        assert_eq!(b.critical_dt(), summary(&s, 0, &m).unwrap().critical_step);
    }

    #[test]
    fn quadratic_to_linear_keeps_the_corners() {
        let q = box_mesh(DVec3::ZERO, DVec3::ONE, [2, 1, 1], Order::Quadratic);
        let l = box_mesh(DVec3::ZERO, DVec3::ONE, [2, 1, 1], Order::Linear);
        let back = to_linear(&q);
        assert_eq!(
            (back.nodes.len(), back.tets.len()),
            (l.nodes.len(), l.tets.len())
        );
        for (a, b) in back.tets.iter().zip(&l.tets) {
            for k in 0..4 {
                assert_eq!(back.nodes[a[k] as usize], l.nodes[b[k] as usize]);
            }
        }
    }

    /// A mesh file is read once, when the scene is built: with the file
    /// gone, the body's mesh and the time step still come (from the scene's
    /// copy), the same as before.
    #[test]
    fn a_mesh_file_is_read_at_load_only() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fem/box_tet4_ascii.msh");
        let path = std::env::temp_dir().join(format!("talus-read-once-{}.msh", std::process::id()));
        std::fs::copy(&data, &path).unwrap();
        let mut body = Body::generated_box([0.0; 3], [0.0; 3], [1, 1, 1], 0);
        body.mesh = BodyMesh::File(path.clone());
        let scene = SceneBuilder::new("read once")
            .domain([-0.01; 3], [0.03; 3])
            .material(Material::new("rubber", 1000.0, 1e6))
            .particle([0.01, 0.005, 0.02], [0.0; 3], 0.001, "rubber")
            .body(body)
            .build()
            .unwrap();
        assert_eq!(scene.mesh_files.len(), 1);
        let (mesh, dt) = (body_mesh(&scene, 0).unwrap(), scene.dt());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(body_mesh(&scene, 0).unwrap(), mesh);
        assert_eq!(scene.dt().to_bits(), dt.to_bits());
        // a scene that did not read it reads it now: gone, an error
        let mut unread = scene.clone();
        unread.read_mesh_files();
        assert!(unread.mesh_files.get(&path).is_some(), "kept, not re-read");
        unread.mesh_files = Default::default();
        let e = body_mesh(&unread, 0).unwrap_err();
        assert_eq!(e.key, "bodies[0].mesh");
        assert!(e.message.contains("cannot read the mesh file"), "{e}");
    }
}
