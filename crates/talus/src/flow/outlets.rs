//! Where particles leave a run: the `[[outlets]]` regions (a particle
//! whose centre enters one is removed) and the open faces of the domain
//! (a particle whose centre leaves the domain across a non-periodic face
//! is removed, counted as the outlet `domain`). The CPU's integrate tests
//! each particle with [`OutletSet::which`]; the GPU's `integrate.wgsl`
//! runs the same test on `gpu::layout::OutletRegion`s made from
//! [`OutletSet::shapes`].

use crate::scene::{Region, Scene};

/// One outlet's test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutletShape {
    /// Removed when the centre is inside (boundary included).
    Inside(Region),
    /// Removed when the centre is outside the box (the domain; infinite
    /// along its periodic axes).
    Outside { min: [f64; 3], max: [f64; 3] },
}

impl OutletShape {
    pub fn takes(&self, p: [f64; 3]) -> bool {
        match self {
            OutletShape::Inside(r) => r.contains(p),
            OutletShape::Outside { min, max } => {
                (0..3).any(|k| !(p[k] >= min[k] && p[k] <= max[k]))
            }
        }
    }
}

/// The outlets of a run, in order, the domain's boundary last.
#[derive(Debug, Clone, PartialEq)]
pub struct OutletSet {
    pub shapes: Vec<OutletShape>,
    /// flow.csv's names, in the same order (`outlet<k>` unless named;
    /// `domain` last).
    pub names: Vec<String>,
}

/// The outlet name of the domain's boundary in flow.csv.
pub const DOMAIN_OUTLET: &str = "domain";

impl OutletSet {
    pub fn new(scene: &Scene) -> Self {
        let mut shapes: Vec<OutletShape> = scene
            .outlets
            .iter()
            .map(|o| OutletShape::Inside(o.region))
            .collect();
        let mut names: Vec<String> = scene
            .outlets
            .iter()
            .enumerate()
            .map(|(k, o)| o.label(k))
            .collect();
        let d = &scene.domain;
        let open = |k: usize, v: f64, inf: f64| if d.periodic[k] { inf } else { v };
        shapes.push(OutletShape::Outside {
            min: std::array::from_fn(|k| open(k, d.min[k], f64::NEG_INFINITY)),
            max: std::array::from_fn(|k| open(k, d.max[k], f64::INFINITY)),
        });
        names.push(DOMAIN_OUTLET.into());
        OutletSet { shapes, names }
    }

    /// The first outlet that takes a particle centred at `p`, if any.
    pub fn which(&self, p: [f64; 3]) -> Option<usize> {
        self.shapes.iter().position(|s| s.takes(p))
    }

    /// Index of the domain's boundary (the last).
    pub fn domain(&self) -> usize {
        self.shapes.len() - 1
    }
}
