//! The bonds of a run, one row per bond, as both paths hold them: the two
//! particles by id (lower first: the law's a, so a pair is evaluated the
//! same way whatever rows its particles sit in), the `[[bonds]]` entry
//! that formed it, its length and radius at formation, what it carries
//! ([`BondState`]) and whether it still holds ([`Status`]).
//!
//! A bond keeps its row for the whole run: a broken one stays, marked, so
//! `bonds.csv` counts it and a checkpoint restores it; the table is in the
//! order the bonds formed (at t = 0, the pairs by id), which no sort,
//! skin or row order changes. Each step a bond finds its particles' rows
//! through the id → row map the stage refreshes after every rebuild
//! (`cpu::bonds`, `gpu::bonds`).

use super::form::{pairs_among, Sphere};
pub use super::law::Status;
use super::law::{section, BondParams, BondState};
use crate::scene::types::{BondSpec, Scene};

/// Host bytes a bond takes in [`Bonds`] (ids 8, entry 4, status 4 as
/// padded, length 8, radius 8, state 64); the device's row is 48 B.
pub const HOST_BYTES_PER_BOND: u64 = 96;

/// A run's bonds (f64; the GPU's table is the same rows in f32).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bonds {
    /// The particles' ids, lower first.
    pub ids: Vec<[u32; 2]>,
    /// Index of the `[[bonds]]` entry that formed it.
    pub spec: Vec<u32>,
    /// L: the centres' distance at formation (m).
    pub length: Vec<f64>,
    /// R̄: `radius_ratio` × the smaller radius (m).
    pub radius: Vec<f64>,
    pub state: Vec<BondState>,
    pub status: Vec<Status>,
}

/// How many bonds hold and how many broke, by cause (`bonds.csv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub intact: u64,
    pub tension: u64,
    pub shear: u64,
    pub gone: u64,
}

impl Counts {
    /// Bonds broken (tension and shear; not those whose particle left).
    pub fn broken(&self) -> u64 {
        self.tension + self.shear
    }
}

impl Bonds {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The bonds `scene` forms at t = 0 (its entries with `at = 0`, in
    /// order; each entry's bonds by id): a pair two entries name gets a
    /// bond from each.
    pub fn at_start(scene: &Scene) -> Bonds {
        let ids = scene.particle_ids();
        let spheres: Vec<Sphere> = scene
            .particles
            .iter()
            .map(|p| Sphere::of(scene, p))
            .collect();
        let mut out = Bonds::default();
        for (k, spec) in scene.bonds.iter().enumerate() {
            if spec.at == 0.0 {
                out.form(k, spec, &spheres, &ids, &scene.domain);
            }
        }
        out
    }

    /// Appends the bonds entry `k` (`spec`) forms among `spheres` (ids
    /// `ids`, the same order) in `domain`, ordered by their ids; returns
    /// how many.
    pub fn form(
        &mut self,
        k: usize,
        spec: &BondSpec,
        spheres: &[Sphere],
        ids: &[u32],
        domain: &crate::scene::Domain,
    ) -> usize {
        let mut rows: Vec<([u32; 2], f64, f64)> = pairs_among(spec, spheres, domain)
            .into_iter()
            .map(|(i, j, l)| {
                let r = spheres[i].radius.min(spheres[j].radius);
                (
                    [ids[i].min(ids[j]), ids[i].max(ids[j])],
                    l,
                    spec.radius_ratio * r,
                )
            })
            .collect();
        rows.sort_by_key(|r| r.0);
        for &(ab, l, r) in &rows {
            self.push(ab, k as u32, l, r);
        }
        rows.len()
    }

    /// Appends an intact, unloaded bond.
    pub fn push(&mut self, ids: [u32; 2], spec: u32, length: f64, radius: f64) {
        self.ids.push(ids);
        self.spec.push(spec);
        self.length.push(length);
        self.radius.push(radius);
        self.state.push(BondState::default());
        self.status.push(Status::Intact);
    }

    /// Bond `k`'s constants under the scene's `specs`.
    pub fn params(&self, specs: &[BondSpec], k: usize) -> BondParams {
        params_of(
            &specs[self.spec[k] as usize],
            self.length[k],
            self.radius[k],
        )
    }

    /// The bonds holding and broken, by cause.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for s in &self.status {
            match s {
                Status::Intact => c.intact += 1,
                Status::Tension => c.tension += 1,
                Status::Shear => c.shear += 1,
                Status::Gone => c.gone += 1,
            }
        }
        c
    }
}

/// The entries that form their bonds during a run (`at` > 0), the step
/// whose start forms each ([`super::form::form_step`]), and how a run's
/// material index names the entries' materials (a held copy by its
/// original's): what both paths need to form them.
#[derive(Debug, Clone)]
pub struct Later {
    pub specs: std::sync::Arc<Vec<BondSpec>>,
    /// (entry, step).
    pub at: Vec<(usize, u64)>,
    /// Each material's own index in the scene (`Scene::base_material`).
    pub base: Vec<usize>,
    /// The domain (its periodic axes: pairs across them bond).
    pub domain: crate::scene::Domain,
}

impl Default for Later {
    /// No later entries.
    fn default() -> Self {
        Later {
            specs: Default::default(),
            at: Vec::new(),
            base: Vec::new(),
            domain: crate::scene::Domain {
                min: [0.0; 3],
                max: [0.0; 3],
                periodic: [false; 3],
            },
        }
    }
}

impl Later {
    /// `scene`'s later entries at a step `dt`.
    pub fn of(scene: &Scene, dt: f64) -> Later {
        Later {
            specs: std::sync::Arc::new(scene.bonds.clone()),
            at: scene
                .bonds
                .iter()
                .enumerate()
                .filter(|(_, s)| s.at > 0.0)
                .map(|(k, s)| (k, super::form::form_step(s.at, dt)))
                .collect(),
            base: (0..scene.materials.len())
                .map(|m| scene.base_material(m))
                .collect(),
            domain: scene.domain.clone(),
        }
    }

    /// Whether some entry forms its bonds at `step`'s start.
    pub fn due(&self, step: u64) -> bool {
        self.at.iter().any(|&(_, n)| n == step)
    }

    /// The first step from `step` on that forms bonds, if any.
    pub fn next(&self, step: u64) -> Option<u64> {
        self.at.iter().map(|&(_, n)| n).filter(|&n| n >= step).min()
    }

    /// A sphere of the run (its material the run's index) as the entries
    /// see it.
    pub fn sphere(&self, x: [f64; 4], material: u32, clump: bool) -> Sphere {
        Sphere {
            position: [x[0], x[1], x[2]],
            radius: x[3],
            material: self.base[material as usize],
            clump,
        }
    }

    /// Appends to `table` the bonds the entries due at `step` form among
    /// `spheres` (ids `ids`), in the entries' order.
    pub fn form(&self, step: u64, table: &mut Bonds, spheres: &[Sphere], ids: &[u32]) {
        for &(k, n) in &self.at {
            if n == step {
                table.form(k, &self.specs[k], spheres, ids, &self.domain);
            }
        }
    }
}

/// The constants of a bond `spec` formed at length `length` with radius
/// `radius`.
pub fn params_of(spec: &BondSpec, length: f64, radius: f64) -> BondParams {
    let kn = spec.youngs_modulus / length;
    BondParams {
        kn,
        ks: kn / spec.stiffness_ratio,
        radius,
        tensile_strength: spec.tensile_strength.unwrap_or(f64::INFINITY),
        shear_strength: spec.shear_strength.unwrap_or(f64::INFINITY),
        damping: spec.damping,
    }
}

/// A bond's stresses now: the largest tensile σ = F_n/A + |M_b| R̄/I and
/// shear τ = |F_s|/A + |M_t| R̄/J (Pa), as the law tests them.
pub fn stresses(bp: &BondParams, s: &BondState) -> (f64, f64) {
    let (a, i, j) = section(bp.radius);
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (
        s.normal / a + len(s.bend) * bp.radius / i,
        len(s.shear) / a + s.twist.abs() * bp.radius / j,
    )
}

impl Bonds {
    /// Adds the table to a checkpoint (`bond_ids`, `bond_info`: entry and
    /// status code, `bond_geom`: length and radius, `bond_state`: F_n,
    /// F_s, M_t, M_b), in f64 on both paths (the GPU's f32 widened: it
    /// comes back to the same bits). Nothing when there are no bonds.
    pub fn save(&self, s: &mut crate::checkpoint::Saved) {
        if self.is_empty() {
            return;
        }
        let info: Vec<[u32; 2]> = (0..self.len())
            .map(|k| [self.spec[k], self.status[k].code()])
            .collect();
        let geom: Vec<[f64; 2]> = (0..self.len())
            .map(|k| [self.length[k], self.radius[k]])
            .collect();
        let state: Vec<[f64; 8]> = self.state.iter().map(state_words).collect();
        s.put("bond_ids", &self.ids);
        s.put("bond_info", &info);
        s.put("bond_geom", &geom);
        s.put("bond_state", &state);
    }

    /// The table a checkpoint holds (empty when it has none), checked
    /// against the scene's `specs`.
    pub fn restore(saved: &crate::checkpoint::Saved, specs: usize) -> Result<Bonds, String> {
        if saved.section("bond_ids").is_err() {
            return Ok(Bonds::default());
        }
        let ids: Vec<[u32; 2]> = saved.array_any("bond_ids")?;
        let n = ids.len();
        let info: Vec<[u32; 2]> = saved.array("bond_info", n)?;
        let geom: Vec<[f64; 2]> = saved.array("bond_geom", n)?;
        let state: Vec<[f64; 8]> = saved.array("bond_state", n)?;
        let mut out = Bonds::default();
        for k in 0..n {
            let [spec, code] = info[k];
            let status = Status::of(code)
                .ok_or_else(|| format!("bond {k}: status code {code} (expected 0 to 3)"))?;
            if spec as usize >= specs {
                return Err(format!(
                    "bond {k} was formed by [[bonds]] entry {spec}; the scene has {specs}"
                ));
            }
            out.push(ids[k], spec, geom[k][0], geom[k][1]);
            out.state[k] = state_of(&state[k]);
            out.status[k] = status;
        }
        Ok(out)
    }
}

/// A bond's state as 8 numbers: F_n, F_s xyz, M_t, M_b xyz.
pub fn state_words(s: &BondState) -> [f64; 8] {
    [
        s.normal, s.shear[0], s.shear[1], s.shear[2], s.twist, s.bend[0], s.bend[1], s.bend[2],
    ]
}

/// The inverse of [`state_words`].
pub fn state_of(w: &[f64; 8]) -> BondState {
    BondState {
        normal: w[0],
        shear: [w[1], w[2], w[3]],
        twist: w[4],
        bend: [w[5], w[6], w[7]],
    }
}
