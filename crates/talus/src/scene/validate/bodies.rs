//! `[[bodies]]`: a known material with a positive density and modulus (named
//! at the body's key), a generated box with max > min and positive
//! divisions, a box or mesh inside the domain on every non-periodic axis,
//! finite velocity, damping ≥ 0, fixed boxes with max ≥ min,
//! `exchange_every` ≥ 1, `wall_stiffness` > 0, a readable mesh file; then,
//! through [`crate::fem::build`], the mesh itself (positive element
//! volumes, a fixed region that leaves some node free, an explicit
//! critical step ≥ [`MIN_CRITICAL_STEP`]). Warnings (not errors): a fixed
//! box that holds no node.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::fem::build::{body_mesh, critical_step, fixed_nodes, mesh_bounds, nodes_in_box};
use crate::fem::mesh::TetMesh;
use crate::scene::error::SceneError;
use crate::scene::types::{Body, BodyIntegrator, BodyMesh, Scene};

const XYZ: [&str; 3] = ["x", "y", "z"];

/// The smallest explicit critical step a body may have (s): below it the
/// body would need more than a billion steps per simulated second.
pub const MIN_CRITICAL_STEP: f64 = 1e-9;

/// Run before the materials check: a body's material with a density or
/// Young's modulus that is not > 0 is reported at the body's `material`
/// key (naming the material's own key too).
pub(super) fn check_body_materials(s: &Scene) -> Result<(), SceneError> {
    for (i, b) in s.bodies.iter().enumerate() {
        let key = format!("bodies[{i}].material");
        let Some(m) = s.materials.get(b.material) else {
            return Err(s.error(&key, format!("material index {} out of range", b.material)));
        };
        if !(m.density > 0.0 && m.density.is_finite()) {
            return Err(s.error(
                &key,
                format!(
                    "material \"{}\" has density {} kg/m³: a body needs a density > 0 (materials[{}].density)",
                    m.name, m.density, b.material
                ),
            ));
        }
        if !(m.youngs_modulus > 0.0 && m.youngs_modulus.is_finite()) {
            return Err(s.error(
                &key,
                format!(
                    "material \"{}\" has Young's modulus {} Pa: a body needs a modulus > 0 (materials[{}].youngs_modulus)",
                    m.name, m.youngs_modulus, b.material
                ),
            ));
        }
    }
    Ok(())
}

/// Every structural check of every body, then its mesh (built once, from
/// the file read at load): the meshes, in the scene's order, for the
/// checks that follow (the time step's limit).
pub(super) fn check_bodies(s: &Scene) -> Result<Vec<TetMesh>, SceneError> {
    for (i, b) in s.bodies.iter().enumerate() {
        check_structure(s, i, b)?;
    }
    s.bodies
        .iter()
        .enumerate()
        .map(|(i, b)| check_mesh(s, i, b))
        .collect()
}

/// The key the body's tetrahedra come from: `mesh` or `generator`.
pub(super) fn source_key(i: usize, b: &Body) -> String {
    match b.mesh {
        BodyMesh::File(_) => format!("bodies[{i}].mesh"),
        BodyMesh::Box { .. } => format!("bodies[{i}].generator"),
    }
}

fn check_structure(s: &Scene, i: usize, b: &Body) -> Result<(), SceneError> {
    let key = |k: &str| format!("bodies[{i}].{k}");
    match &b.mesh {
        BodyMesh::Box {
            min,
            max,
            divisions,
        } => {
            for (k, p) in [("min", min), ("max", max)] {
                if !p.iter().all(|x| x.is_finite()) {
                    return Err(s.error(&key(k), "expected a finite point"));
                }
            }
            if let Some(k) = (0..3).find(|&k| !(max[k] > min[k])) {
                return Err(s.error(
                    &key("max"),
                    format!(
                        "expected max > min on every axis; {} has min {} and max {}",
                        XYZ[k], min[k], max[k]
                    ),
                ));
            }
            if let Some(k) = (0..3).find(|&k| divisions[k] == 0) {
                return Err(s.error(
                    &key("divisions"),
                    format!(
                        "expected a positive number of divisions on every axis; {} has 0",
                        XYZ[k]
                    ),
                ));
            }
            check_inside(s, i, b, *min, *max)?;
        }
        // a file read at load was readable
        BodyMesh::File(path) if s.mesh_files.contains(path) => {}
        BodyMesh::File(path) => {
            if let Err(e) = std::fs::File::open(path) {
                return Err(s.error(
                    &key("mesh"),
                    format!("cannot read \"{}\": {e}", path.display()),
                ));
            }
        }
    }
    if !b.velocity.iter().all(|x| x.is_finite()) {
        return Err(s.error(&key("velocity"), "expected a finite velocity in m/s"));
    }
    for (k, (name, unit)) in [("alpha", "1/s"), ("beta", "s")].into_iter().enumerate() {
        let x = b.damping[k];
        if !(x >= 0.0 && x.is_finite()) {
            return Err(s.error(
                &format!("bodies[{i}].damping.{name}"),
                format!("expected a damping coefficient >= 0 {unit}, got {x}"),
            ));
        }
    }
    for (f, (min, max)) in b.fixed.iter().enumerate() {
        let fkey = |k: &str| format!("bodies[{i}].fixed[{f}].{k}");
        for (k, p) in [("min", min), ("max", max)] {
            if !p.iter().all(|x| x.is_finite()) {
                return Err(s.error(&fkey(k), "expected a finite point"));
            }
        }
        if let Some(k) = (0..3).find(|&k| !(max[k] >= min[k])) {
            return Err(s.error(
                &fkey("max"),
                format!(
                    "expected max >= min on every axis; {} has min {} and max {}",
                    XYZ[k], min[k], max[k]
                ),
            ));
        }
    }
    if b.exchange_every == Some(0) {
        return Err(s.error(
            &key("exchange_every"),
            "expected a positive number of grain steps or \"auto\", got 0",
        ));
    }
    if let Some(k) = b.wall_stiffness {
        if !(k > 0.0 && k.is_finite()) {
            return Err(s.error(
                &key("wall_stiffness"),
                format!("expected a stiffness > 0 N/m or \"auto\", got {k}"),
            ));
        }
    }
    Ok(())
}

/// The body's box (a generated box or a mesh's bounding box) inside the
/// domain on every non-periodic axis.
fn check_inside(
    s: &Scene,
    i: usize,
    b: &Body,
    lo: [f64; 3],
    hi: [f64; 3],
) -> Result<(), SceneError> {
    let d = &s.domain;
    let inside = |k: usize| {
        let eps = 1e-12 * (d.max[k] - d.min[k]);
        lo[k] >= d.min[k] - eps && hi[k] <= d.max[k] + eps
    };
    let out = (0..3).find(|&k| !d.periodic[k] && !inside(k));
    let Some(k) = out else {
        return Ok(());
    };
    let (key, what) = match b.mesh {
        BodyMesh::Box { .. } => {
            let side = if lo[k] < d.min[k] { "min" } else { "max" };
            (format!("bodies[{i}].{side}"), "box")
        }
        BodyMesh::File(_) => (format!("bodies[{i}].mesh"), "mesh's bounding box"),
    };
    Err(s.error(
        &key,
        format!(
            "body \"{}\" outside the domain along {}: its {what} {} .. {} must lie within the domain {} .. {} on every non-periodic axis",
            b.label(i),
            XYZ[k],
            v3(lo),
            v3(hi),
            v3(d.min),
            v3(d.max)
        ),
    ))
}

/// The checks that need the tetrahedra, built once; they are returned.
fn check_mesh(s: &Scene, i: usize, b: &Body) -> Result<TetMesh, SceneError> {
    let mesh = body_mesh(s, i)?;
    if let BodyMesh::File(_) = b.mesh {
        let (lo, hi) = mesh_bounds(&mesh);
        check_inside(s, i, b, lo, hi)?;
    }
    let fixed = fixed_nodes(b, &mesh);
    if !fixed.is_empty() && fixed.iter().all(|&f| f) {
        return Err(s.error(
            &format!("bodies[{i}].fixed"),
            format!(
                "the fixed boxes hold every node ({}) of body \"{}\": nothing can move",
                fixed.len(),
                b.label(i)
            ),
        ));
    }
    if b.integrator == BodyIntegrator::Explicit {
        let (dt, element) = critical_step(s, i, &mesh)?;
        if !(dt >= MIN_CRITICAL_STEP) {
            return Err(s.error(
                &source_key(i, b),
                format!(
                    "element {} sets an explicit critical step of {dt:.3e} s, below {MIN_CRITICAL_STEP:e} s: coarsen the mesh there, soften the material or use integrator = \"energy_momentum\"",
                    element + 1
                ),
            ));
        }
    }
    Ok(mesh)
}

/// A fixed box that holds no node of its body, one warning each. Call on a
/// valid scene (the mesh is built again, from the file read at load).
pub(super) fn body_warnings(s: &Scene) -> Vec<SceneError> {
    let mut out = Vec::new();
    for (i, b) in s.bodies.iter().enumerate() {
        if b.fixed.is_empty() {
            continue;
        }
        let Ok(mesh) = body_mesh(s, i) else {
            continue;
        };
        for (f, &(min, max)) in b.fixed.iter().enumerate() {
            if nodes_in_box(&mesh, min, max) == 0 {
                out.push(s.error(
                    &format!("bodies[{i}].fixed[{f}]"),
                    format!(
                        "fixed box {} .. {} holds no node of body \"{}\": it clamps nothing",
                        v3(min),
                        v3(max),
                        b.label(i)
                    ),
                ));
            }
        }
    }
    out
}

/// `[x, y, z]`, each as Rust prints it.
fn v3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", v[0], v[1], v[2])
}
