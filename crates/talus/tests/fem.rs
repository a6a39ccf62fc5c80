//! Finite-element bodies: meshes, wave speed, the Petocz rod impact, a
//! cantilever under gravity, a spinning cube (frame invariance), the
//! explicit energy balance with contact and friction, and bit-identical
//! resume.

use glam::DVec3;
use talus::fem::body::{Damping, FemBody, Integrator};
use talus::fem::contact::RigidPlane;
use talus::fem::material::{FemMaterial, Model};
use talus::fem::mesh::{box_mesh, check, corner_volume, surface, to_quadratic, MeshError, Order};

/// A unit-ish material: E (Pa), ν, ρ (kg/m³).
fn material(young: f64, poisson: f64, density: f64) -> FemMaterial {
    FemMaterial {
        young,
        poisson,
        density,
    }
}

/// Box mesh: volumes, surface area and orientation, quadratic node count,
/// `check` naming an inverted element.
#[test]
fn mesh_box_surface_and_check() {
    let (min, max) = (DVec3::new(-1.0, 0.0, 2.0), DVec3::new(2.0, 1.5, 3.0));
    let size = max - min;
    for order in [Order::Linear, Order::Quadratic] {
        let m = box_mesh(min, max, [3, 4, 2], order);
        check(&m).unwrap();
        assert_eq!(m.tets.len(), 6 * 3 * 4 * 2);
        let vols: Vec<f64> = (0..m.tets.len()).map(|e| corner_volume(&m, e)).collect();
        assert!(vols.iter().all(|&v| v > 0.0));
        let total: f64 = vols.iter().sum();
        assert!((total - size.x * size.y * size.z).abs() < 1e-12);
        let s = surface(&m);
        let mut area = 0.0;
        let mut an = DVec3::ZERO;
        let centre = 0.5 * (min + max);
        for t in &s.tris {
            let p = t.map(|i| m.nodes[i as usize]);
            let cr = (p[1] - p[0]).cross(p[2] - p[0]);
            area += 0.5 * cr.length();
            an += 0.5 * cr;
            let c = (p[0] + p[1] + p[2]) / 3.0;
            assert!(cr.dot(c - centre) > 0.0, "inward triangle {t:?}");
        }
        let box_area = 2.0 * (size.x * size.y + size.y * size.z + size.z * size.x);
        assert!((area - box_area).abs() < 1e-12, "area {area} vs {box_area}");
        assert!(an.length() < 1e-12);
        let mut sorted = s.nodes.clone();
        sorted.dedup();
        assert_eq!(sorted, s.nodes);
        if order == Order::Quadratic {
            assert_eq!(m.nodes.len(), 7 * 9 * 5);
            assert_eq!(s.tris.len(), 4 * 2 * 2 * (3 * 4 + 4 * 2 + 2 * 3));
        } else {
            assert_eq!(m.nodes.len(), 4 * 5 * 3);
        }
    }
    // Promotion shares mid-edge nodes: same count as the structured mesh.
    let lin = box_mesh(min, max, [3, 4, 2], Order::Linear);
    let q = to_quadratic(&lin);
    check(&q).unwrap();
    assert_eq!(q.nodes.len(), 7 * 9 * 5);
    // An inverted element is named.
    let mut bad = lin.clone();
    bad.tets[5].swap(1, 2);
    match check(&bad) {
        Err(MeshError::Inverted { element, volume }) => {
            assert_eq!(element, 5);
            assert!(volume < 0.0);
            let msg = check(&bad).unwrap_err().to_string();
            assert!(msg.contains("element 5"), "{msg}");
        }
        other => panic!("expected Inverted, got {other:?}"),
    }
    let mut far = lin.clone();
    far.tets[0][2] = 9999;
    assert!(matches!(
        check(&far),
        Err(MeshError::NodeOutOfRange { element: 0, .. })
    ));
}

// The seed 001 rod on a rigid plane, the wave in a bar, the cantilever
// against Euler–Bernoulli and the spinning body (StVK against linear) are
// `talus validate` cases (`src/validate/cases/fem.rs`: fem-rod, fem-wave,
// fem-cantilever, fem-spin), run by `tests/validation.rs`.

/// A cube thrown onto a plane under gravity, with friction and damping,
/// explicit: KE + U + contact − work + dissipated stays constant.
#[test]
fn explicit_energy_balance() {
    let mesh = box_mesh(
        DVec3::new(0.0, 0.0, 0.05),
        DVec3::new(1.0, 1.0, 1.05),
        [3, 3, 3],
        Order::Linear,
    );
    let mut b = FemBody::new(
        mesh,
        material(2e3, 0.3, 1.0),
        Model::Stvk,
        Integrator::Explicit,
        Damping {
            alpha: 0.05,
            beta: 1e-4,
        },
        vec![],
        DVec3::new(0.8, 0.0, -1.0),
    )
    .unwrap();
    let plane = RigidPlane::new(DVec3::ZERO, DVec3::Z, 2e4).with_friction(0.3);
    let ext = vec![DVec3::ZERO; b.masses().len()];
    let total = |b: &FemBody| {
        b.kinetic_energy() + b.strain_energy() + b.contact_energy() - b.external_work()
            + b.dissipated()
    };
    let e0 = total(&b);
    let ke0 = b.kinetic_energy();
    let mut worst = 0.0f64;
    for _ in 0..150 {
        b.advance(0.01, &ext, DVec3::new(0.0, 0.0, -9.81), &[plane])
            .unwrap();
        worst = worst.max((total(&b) - e0).abs() / ke0);
    }
    println!(
        "explicit balance: worst |Δ|/KE0 {worst:.3e}, dissipated {:.4} J, work {:.4} J, KE0 {ke0:.4} J",
        b.dissipated(),
        b.external_work()
    );
    assert!(b.dissipated() > 0.0);
    // Measured 1.34e-2 (explicit penalty contact and stick-slip are
    // first-order in the sub-step; the energy-momentum scheme closes the same
    // balance to ~1e-11).
    assert!(worst < 2e-2, "energy balance drift {worst}");
}

/// `state` / `set_state` resume gives bit-identical positions.
#[test]
fn resume_is_bit_identical() {
    for integrator in [Integrator::Explicit, Integrator::EnergyMomentum] {
        let make = || {
            FemBody::new(
                box_mesh(
                    DVec3::new(0.0, 0.0, 0.02),
                    DVec3::new(1.0, 0.5, 0.52),
                    [4, 2, 2],
                    Order::Linear,
                ),
                material(1e3, 0.3, 1.0),
                Model::Stvk,
                integrator,
                Damping {
                    alpha: 0.1,
                    beta: 1e-3,
                },
                vec![],
                DVec3::new(0.5, 0.0, -1.0),
            )
            .unwrap()
        };
        let plane = RigidPlane::new(DVec3::ZERO, DVec3::Z, 1e4).with_friction(0.4);
        let g = DVec3::new(0.0, 0.0, -9.81);
        let mut a = make();
        let ext = vec![DVec3::ZERO; a.masses().len()];
        for _ in 0..10 {
            a.advance(0.01, &ext, g, &[plane]).unwrap();
        }
        let saved = a.state();
        for _ in 0..10 {
            a.advance(0.01, &ext, g, &[plane]).unwrap();
        }
        let mut b = make();
        b.set_state(&saved).unwrap();
        for _ in 0..10 {
            b.advance(0.01, &ext, g, &[plane]).unwrap();
        }
        assert_eq!(a.positions(), b.positions());
        let bits = |s: Vec<f64>| s.into_iter().map(f64::to_bits).collect::<Vec<u64>>();
        assert_eq!(bits(a.state()), bits(b.state()));
    }
}
