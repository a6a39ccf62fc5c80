//! A deformable FEM body: a tetrahedral mesh with its material, state
//! (positions, velocities), integrator, damping, clamped nodes and the
//! energy bookkeeping, advanced under nodal forces, gravity and rigid
//! planes. SI units throughout (m, s, kg, N, J, Pa).

use glam::DVec3;
use rayon::prelude::*;

use super::contact::RigidPlane;
use super::element::Elements;
pub use super::error::FemError;
use super::material::{FemMaterial, Model};
use super::mesh::{check, surface, MeshError, Surface, TetMesh};
use super::midpoint::{step, MidProblem};

/// Time integrator of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrator {
    /// Central difference (velocity Verlet) with lumped mass, sub-stepped
    /// below the stable step.
    Explicit,
    /// Simo–Tarnow energy–momentum mid-point rule, implicit (Newton).
    EnergyMomentum,
}

/// Rayleigh damping C = αM + βK.
///
/// The β term is applied as a Kelvin–Voigt viscous stress β ℂ:Ė (Ė the
/// Green strain rate for StVK, the small strain rate for the linear
/// model): the linearised βKv at the reference configuration, but
/// frame-invariant and always dissipative. Explicit: evaluated with the
/// half-step velocity; energy–momentum: with Ė = (E_{n+1} − E_n)/Δt.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Damping {
    /// Mass-proportional coefficient α (1/s).
    pub alpha: f64,
    /// Stiffness-proportional coefficient β (s).
    pub beta: f64,
}

/// A deformable body.
#[derive(Debug, Clone)]
pub struct FemBody {
    mesh: TetMesh,
    surface: Surface,
    el: Elements,
    material: FemMaterial,
    model: Model,
    integrator: Integrator,
    damping: Damping,
    fixed: Vec<bool>,
    masses: Vec<f64>,
    total_mass: f64,
    crit: (f64, usize),
    x: Vec<DVec3>,
    v: Vec<DVec3>,
    time: f64,
    external_work: f64,
    dissipated: f64,
    wall_force: DVec3,
    planes: Vec<RigidPlane>,
    anchors: Vec<DVec3>,
    /// Explicit sub-step = at most `safety` × stable step (default 0.5).
    pub safety: f64,
    /// Energy–momentum steps per `advance` (default 1).
    pub substeps: usize,
    /// Newton iterations of the last energy–momentum step.
    pub last_iterations: usize,
    /// Element count from which the explicit force evaluations run on
    /// the rayon pool (default [`PARALLEL_MIN_ELEMENTS`]); below it they
    /// run on the calling thread. The results are the same either way.
    pub parallel_min_elements: usize,
    /// Work arrays kept between sub-steps and advances.
    scratch: Scratch,
    /// `scratch.fint` holds the elastic forces at the current positions
    /// (set by an explicit advance, cleared by anything else that moves
    /// the nodes).
    fint_current: bool,
}

/// The element count from which a body's explicit force evaluation uses
/// the rayon pool by default. Below it the pool's wake-ups cost more than
/// they save: on 2 cores a tet4 element costs ~0.1 µs per evaluation, and
/// waking the pool ~10–30 µs (see `docs/performance.md`, "FEM bodies").
pub const PARALLEL_MIN_ELEMENTS: usize = 4096;

/// Forces of an explicit evaluation, by kind (N per node).
#[derive(Debug, Clone, Default)]
struct Forces {
    total: Vec<DVec3>,
    damping: Vec<DVec3>,
    contact: Vec<DVec3>,
    friction: Vec<DVec3>,
}

/// Work arrays of the explicit integrator and the rollback copy, sized on
/// first use and kept: no allocation per sub-step or per advance.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// Elastic and viscous forces per element, entry `e * nn + a`.
    elastic: Vec<DVec3>,
    viscous: Vec<DVec3>,
    /// Their sums per node.
    fint: Vec<DVec3>,
    fvis: Vec<DVec3>,
    /// External nodal forces of the advance (gravity included).
    f_ext: Vec<DVec3>,
    forces: Forces,
    /// The state at the start of the advance (rollback on error).
    saved_x: Vec<DVec3>,
    saved_v: Vec<DVec3>,
    saved_anchors: Vec<DVec3>,
    saved_scalars: [f64; 6],
}

impl FemBody {
    /// A body at rest in its reference configuration, moving rigidly at
    /// `velocity` (m/s) except its clamped nodes (`fixed`, one flag per
    /// node, empty for none). Checks the mesh and the material.
    pub fn new(
        mesh: TetMesh,
        material: FemMaterial,
        model: Model,
        integrator: Integrator,
        damping: Damping,
        fixed: Vec<bool>,
        velocity: DVec3,
    ) -> Result<FemBody, MeshError> {
        check(&mesh)?;
        material.check()?;
        let n = mesh.nodes.len();
        let fixed = if fixed.is_empty() {
            vec![false; n]
        } else {
            fixed
        };
        if fixed.len() != n {
            return Err(MeshError::NodeCount {
                expected: n,
                got: fixed.len(),
            });
        }
        let el = Elements::new(&mesh)?;
        let masses = el.lumped_masses(material.density, n);
        let total_mass = masses.iter().sum();
        let crit = el.min_critical_dt(material.wave_speed());
        let v = fixed
            .iter()
            .map(|&f| if f { DVec3::ZERO } else { velocity })
            .collect();
        Ok(FemBody {
            surface: surface(&mesh),
            x: mesh.nodes.clone(),
            mesh,
            el,
            material,
            model,
            integrator,
            damping,
            fixed,
            masses,
            total_mass,
            crit,
            v,
            time: 0.0,
            external_work: 0.0,
            dissipated: 0.0,
            wall_force: DVec3::ZERO,
            planes: Vec::new(),
            anchors: Vec::new(),
            safety: 0.5,
            substeps: 1,
            last_iterations: 0,
            parallel_min_elements: PARALLEL_MIN_ELEMENTS,
            scratch: Scratch::default(),
            fint_current: false,
        })
    }

    /// The mesh (reference configuration).
    pub fn mesh(&self) -> &TetMesh {
        &self.mesh
    }

    /// The boundary triangles (computed once).
    pub fn surface(&self) -> &Surface {
        &self.surface
    }

    /// Current node positions (m).
    pub fn positions(&self) -> &[DVec3] {
        &self.x
    }

    /// Current node velocities (m/s).
    pub fn velocities(&self) -> &[DVec3] {
        &self.v
    }

    /// Node displacements from the reference configuration (m).
    pub fn displacements(&self) -> Vec<DVec3> {
        self.x
            .iter()
            .zip(&self.mesh.nodes)
            .map(|(x, x0)| *x - *x0)
            .collect()
    }

    /// Replaces the node velocities (m/s), e.g. to start a spinning body;
    /// clamped nodes keep zero velocity.
    pub fn set_velocities(&mut self, v: &[DVec3]) -> Result<(), FemError> {
        if v.len() != self.v.len() {
            return Err(FemError::Length {
                what: "velocities",
                expected: self.v.len(),
                got: v.len(),
            });
        }
        for (i, vi) in v.iter().enumerate() {
            self.v[i] = if self.fixed[i] { DVec3::ZERO } else { *vi };
        }
        Ok(())
    }

    /// Lumped nodal masses (kg).
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }

    /// Clamped-node flags.
    pub fn fixed(&self) -> &[bool] {
        &self.fixed
    }

    /// Simulated time advanced so far (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Explicit stable step of the elements (s) and the element that sets
    /// it (no safety factor applied).
    pub fn critical_dt(&self) -> (f64, usize) {
        self.crit
    }

    /// Explicit sub-step bound (s) including the penalty springs of
    /// `planes`: 2/sqrt(4/Δt_e² + Σκ/m_min), times `safety`.
    fn explicit_step_bound(&self, planes: &[RigidPlane]) -> f64 {
        let dte = self.crit.0;
        let mmin = self
            .masses
            .iter()
            .zip(&self.fixed)
            .filter(|(_, f)| !**f)
            .map(|(m, _)| *m)
            .fold(f64::INFINITY, f64::min);
        let ksum: f64 = planes
            .iter()
            .map(|p| {
                let kt = if p.friction > 0.0 {
                    p.tangential_stiffness
                } else {
                    0.0
                };
                p.stiffness.max(kt)
            })
            .sum();
        let w2 = 4.0 / (dte * dte) + if mmin.is_finite() { ksum / mmin } else { 0.0 };
        self.safety * 2.0 / w2.sqrt()
    }

    /// Advances by `dt` (s) under per-node extra forces `ext` (N, constant
    /// over `dt`, one per node), gravity (m/s²) and rigid `planes`.
    /// Explicit: equal sub-steps of at most `safety` × the stable step
    /// (elements and penalty springs). Energy–momentum: `substeps` equal
    /// steps. On error the body is left as it was before the call.
    pub fn advance(
        &mut self,
        dt: f64,
        ext: &[DVec3],
        gravity: DVec3,
        planes: &[RigidPlane],
    ) -> Result<(), FemError> {
        let n = self.x.len();
        if ext.len() != n {
            return Err(FemError::Length {
                what: "ext",
                expected: n,
                got: ext.len(),
            });
        }
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(FemError::Input(format!(
                "advance: dt must be positive, got {dt}"
            )));
        }
        if self.anchors.len() != planes.len() * n {
            self.anchors = vec![DVec3::NAN; planes.len() * n];
        }
        self.save_state();
        let mut f_ext = std::mem::take(&mut self.scratch.f_ext);
        f_ext.clear();
        f_ext.extend((0..n).map(|i| {
            if self.fixed[i] {
                DVec3::ZERO
            } else {
                ext[i] + self.masses[i] * gravity
            }
        }));
        let r = match self.integrator {
            Integrator::Explicit => self.advance_explicit(dt, &f_ext, planes),
            Integrator::EnergyMomentum => {
                self.fint_current = false;
                self.advance_midpoint(dt, &f_ext, planes)
            }
        };
        self.scratch.f_ext = f_ext;
        self.planes.clear();
        self.planes.extend_from_slice(planes);
        if let Err(e) = r {
            self.restore_saved();
            return Err(e);
        }
        Ok(())
    }

    /// Explicit force evaluation at the current positions and velocities
    /// into `scratch.forces`: total = f_ext − f_int − damping + contact.
    /// Updates friction anchors; returns the contact dissipation (J). With
    /// `fint_known` the elastic forces in `scratch.fint` are those of the
    /// current positions and are not recomputed.
    fn explicit_forces(
        &mut self,
        f_ext: &[DVec3],
        planes: &[RigidPlane],
        fint_known: bool,
    ) -> Result<f64, FemError> {
        let mut s = std::mem::take(&mut self.scratch);
        let r = self.explicit_forces_into(&mut s, f_ext, planes, fint_known);
        self.scratch = s;
        r
    }

    fn explicit_forces_into(
        &mut self,
        s: &mut Scratch,
        f_ext: &[DVec3],
        planes: &[RigidPlane],
        fint_known: bool,
    ) -> Result<f64, FemError> {
        let n = self.x.len();
        let beta = self.damping.beta;
        let (el, x, v, mat, model) = (&self.el, &self.x, &self.v, &self.material, self.model);
        let (ne, nn) = (el.len(), el.nn);
        let parallel = ne >= self.parallel_min_elements;
        let need_elastic = !fint_known || s.fint.len() != n;
        let need_viscous = beta != 0.0;
        s.fint.resize(n, DVec3::ZERO);
        // Zero when β = 0: what the element evaluation gives then.
        s.fvis.resize(n, DVec3::ZERO);
        if need_elastic || need_viscous {
            s.elastic.resize(ne * nn, DVec3::ZERO);
            s.viscous.resize(ne * nn, DVec3::ZERO);
            let one = |e: usize, fe: &mut [DVec3], fv: &mut [DVec3]| {
                let fe = if need_elastic { Some(fe) } else { None };
                el.forces_into(e, x, Some(v), mat, model, beta, fe, fv)
            };
            // The first failing element, as a sequential pass finds it.
            let failed = if parallel {
                s.elastic
                    .par_chunks_mut(nn)
                    .zip(s.viscous.par_chunks_mut(nn))
                    .enumerate()
                    .with_min_len(64)
                    .filter_map(|(e, (fe, fv))| one(e, fe, fv).err())
                    .min()
            } else {
                s.elastic
                    .chunks_mut(nn)
                    .zip(s.viscous.chunks_mut(nn))
                    .enumerate()
                    .find_map(|(e, (fe, fv))| one(e, fe, fv).err())
            };
            if let Some(e) = failed {
                return Err(FemError::Inverted {
                    element: e,
                    time: self.time,
                });
            }
            if need_elastic {
                el.gather_into(&s.elastic, &mut s.fint, parallel);
            }
            if need_viscous {
                el.gather_into(&s.viscous, &mut s.fvis, parallel);
            }
        }
        let f = &mut s.forces;
        for buf in [
            &mut f.total,
            &mut f.damping,
            &mut f.contact,
            &mut f.friction,
        ] {
            buf.resize(n, DVec3::ZERO);
        }
        // Contact per node, planes in order; anchors of node i live at
        // p * n + i.
        let fixed = &self.fixed;
        let anchors = &mut self.anchors;
        for i in 0..n {
            let mut fc_sum = DVec3::ZERO;
            let mut ft = DVec3::ZERO;
            if !fixed[i] {
                for (p, plane) in planes.iter().enumerate() {
                    let (fc, _) = plane.explicit_force(x[i], &mut anchors[p * n + i]);
                    fc_sum += fc;
                    ft += plane.projector() * fc;
                }
            }
            f.contact[i] = fc_sum;
            f.friction[i] = ft;
        }
        let diss = 0.0;
        let alpha = self.damping.alpha;
        for i in 0..n {
            let d = -s.fvis[i] - alpha * self.masses[i] * v[i];
            f.damping[i] = d;
            f.total[i] = if fixed[i] {
                DVec3::ZERO
            } else {
                f_ext[i] - s.fint[i] + d + f.contact[i]
            };
        }
        Ok(diss)
    }

    /// Velocity-Verlet sub-steps over `dt` (see [`FemBody::advance`]). The
    /// work of external, damping and friction forces is counted per half
    /// kick as F·(v_before + v_after)/2 · Δt/2, which is the kick's exact
    /// share of the kinetic energy change. Friction dissipation over the
    /// advance = −(friction work) − (change of stick-spring energy).
    fn advance_explicit(
        &mut self,
        dt: f64,
        f_ext: &[DVec3],
        planes: &[RigidPlane],
    ) -> Result<(), FemError> {
        let n = self.x.len();
        let hmax = self.explicit_step_bound(planes);
        let steps = (dt / hmax).ceil().max(1.0) as usize;
        let h = dt / steps as f64;
        let spring0 = self.spring_energy(planes);
        let mut fwork = 0.0;
        // The previous explicit advance ended with the elastic forces at
        // these positions.
        let fint_known = std::mem::replace(&mut self.fint_current, false);
        let d0 = self.explicit_forces(f_ext, planes, fint_known)?;
        self.dissipated += d0;
        let mut impulse = DVec3::ZERO;
        for _ in 0..steps {
            self.kick(f_ext, 0.5 * h, &mut impulse, &mut fwork);
            for ((x, v), fixed) in self.x.iter_mut().zip(&self.v).zip(&self.fixed) {
                if !*fixed {
                    *x += h * *v;
                }
            }
            self.time += h;
            let d = self.explicit_forces(f_ext, planes, false)?;
            self.dissipated += d;
            self.kick(f_ext, 0.5 * h, &mut impulse, &mut fwork);
            if let Some(i) = (0..n).find(|&i| !self.x[i].is_finite() || !self.v[i].is_finite()) {
                return Err(FemError::NotFinite {
                    node: i,
                    time: self.time,
                });
            }
        }
        self.dissipated += -fwork - (self.spring_energy(planes) - spring0);
        self.wall_force = impulse / dt;
        self.fint_current = true;
        Ok(())
    }

    /// Energy stored in the stick springs of `planes` now (J).
    fn spring_energy(&self, planes: &[RigidPlane]) -> f64 {
        let n = self.x.len();
        let mut s = 0.0;
        for (p, plane) in planes.iter().enumerate() {
            for i in 0..n {
                if !self.fixed[i] {
                    let a = self.anchors.get(p * n + i).copied().unwrap_or(DVec3::NAN);
                    s += plane.spring_energy(self.x[i], a);
                }
            }
        }
        s
    }

    /// A half kick v ← v + (Δt/2) F/m with the forces in `scratch.forces`,
    /// and the energy bookkeeping.
    fn kick(&mut self, f_ext: &[DVec3], hh: f64, impulse: &mut DVec3, fwork: &mut f64) {
        let f = &self.scratch.forces;
        for (i, v) in self.v.iter_mut().enumerate() {
            if self.fixed[i] {
                *v = DVec3::ZERO;
                continue;
            }
            let old = *v;
            let new = old + hh * f.total[i] / self.masses[i];
            *v = new;
            let vavg = 0.5 * (old + new);
            self.external_work += hh * f_ext[i].dot(vavg);
            self.dissipated -= hh * f.damping[i].dot(vavg);
            *impulse += hh * f.contact[i];
            *fwork += hh * f.friction[i].dot(vavg);
        }
    }

    /// Energy–momentum steps over `dt`.
    fn advance_midpoint(
        &mut self,
        dt: f64,
        f_ext: &[DVec3],
        planes: &[RigidPlane],
    ) -> Result<(), FemError> {
        let k = self.substeps.max(1);
        let h = dt / k as f64;
        let mut impulse = DVec3::ZERO;
        for _ in 0..k {
            self.mid_step(h, f_ext, planes, 0, &mut impulse)?;
        }
        self.wall_force = impulse / dt;
        Ok(())
    }

    /// One mid-point step of `h` (s); when Newton fails (e.g. stick/slip
    /// switching) the step is split in two, down to 1/32 of its size.
    fn mid_step(
        &mut self,
        h: f64,
        f_ext: &[DVec3],
        planes: &[RigidPlane],
        depth: u32,
        impulse: &mut DVec3,
    ) -> Result<(), FemError> {
        {
            let pb = MidProblem {
                el: &self.el,
                material: &self.material,
                model: self.model,
                masses: &self.masses,
                fixed: &self.fixed,
                alpha: self.damping.alpha,
                beta: self.damping.beta,
                f_ext,
                planes,
            };
            let r = match step(&pb, &self.x, &self.v, &self.anchors, h, self.time) {
                Ok(r) => r,
                Err(FemError::NoConvergence { .. } | FemError::Solver { .. }) if depth < 5 => {
                    self.mid_step(0.5 * h, f_ext, planes, depth + 1, impulse)?;
                    return self.mid_step(0.5 * h, f_ext, planes, depth + 1, impulse);
                }
                Err(e) => return Err(e),
            };
            self.x = r.x;
            self.v = r.v;
            self.anchors = r.anchors;
            self.dissipated += r.dissipated;
            self.external_work += r.external_work;
            self.last_iterations = r.iterations;
            *impulse += r.wall_impulse;
            self.time += h;
        }
        Ok(())
    }

    /// Kinetic energy ½ Σ m v² (J).
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self
            .masses
            .iter()
            .zip(&self.v)
            .map(|(m, v)| m * v.length_squared())
            .sum::<f64>()
    }

    /// Strain energy of the current configuration (J).
    pub fn strain_energy(&self) -> f64 {
        let one = |e: usize| self.el.energy(e, &self.x, &self.material, self.model);
        if self.el.len() >= self.parallel_min_elements {
            let e: Vec<f64> = (0..self.el.len()).into_par_iter().map(one).collect();
            e.iter().sum()
        } else {
            (0..self.el.len()).map(one).sum()
        }
    }

    /// Energy stored in the contact penalty and stick springs of the planes
    /// of the last advance (J).
    pub fn contact_energy(&self) -> f64 {
        let n = self.x.len();
        let mut s = 0.0;
        for (p, plane) in self.planes.iter().enumerate() {
            for i in 0..n {
                if self.fixed[i] {
                    continue;
                }
                let a = self.anchors.get(p * n + i).copied().unwrap_or(DVec3::NAN);
                s += plane.stored_energy(self.x[i], a);
            }
        }
        s
    }

    /// Cumulative energy dissipated (J): damping, friction, controlled
    /// contact dissipation.
    pub fn dissipated(&self) -> f64 {
        self.dissipated
    }

    /// Cumulative work of gravity and the extra forces (J), so that
    /// KE + U + contact − external_work + dissipated stays constant.
    pub fn external_work(&self) -> f64 {
        self.external_work
    }

    /// Total mass (kg).
    pub fn mass(&self) -> f64 {
        self.total_mass
    }

    /// Centre of mass (m).
    pub fn center_of_mass(&self) -> DVec3 {
        self.masses
            .iter()
            .zip(&self.x)
            .map(|(m, x)| *m * *x)
            .fold(DVec3::ZERO, |a, b| a + b)
            / self.total_mass
    }

    /// Velocity of the centre of mass (m/s).
    pub fn com_velocity(&self) -> DVec3 {
        self.momentum() / self.total_mass
    }

    /// Linear momentum Σ m v (kg m/s).
    pub fn momentum(&self) -> DVec3 {
        self.masses
            .iter()
            .zip(&self.v)
            .map(|(m, v)| *m * *v)
            .fold(DVec3::ZERO, |a, b| a + b)
    }

    /// Angular momentum Σ m (x − about) × v about a point (kg m²/s).
    pub fn angular_momentum(&self, about: DVec3) -> DVec3 {
        (0..self.x.len())
            .map(|i| self.masses[i] * (self.x[i] - about).cross(self.v[i]))
            .fold(DVec3::ZERO, |a, b| a + b)
    }

    /// Mean force the rigid planes exerted on the body over the last
    /// advance (N).
    pub fn wall_force(&self) -> DVec3 {
        self.wall_force
    }

    /// Von Mises stress per element (Pa).
    pub fn von_mises(&self) -> Vec<f64> {
        let one = |e: usize| self.el.von_mises(e, &self.x, &self.material, self.model);
        if self.el.len() >= self.parallel_min_elements {
            (0..self.el.len()).into_par_iter().map(one).collect()
        } else {
            (0..self.el.len()).map(one).collect()
        }
    }

    /// Everything needed to resume bit for bit: `[nodes, planes, time,
    /// external_work, dissipated, wall_force(3), x(3n), v(3n),
    /// anchors(3 × planes × n)]`.
    pub fn state(&self) -> Vec<f64> {
        let n = self.x.len();
        let np = self.anchors.len() / n.max(1);
        let mut s = vec![
            n as f64,
            np as f64,
            self.time,
            self.external_work,
            self.dissipated,
            self.wall_force.x,
            self.wall_force.y,
            self.wall_force.z,
        ];
        for p in self.x.iter().chain(&self.v).chain(&self.anchors) {
            s.extend_from_slice(&p.to_array());
        }
        s
    }

    /// Restores a [`FemBody::state`] of a body with the same mesh.
    pub fn set_state(&mut self, s: &[f64]) -> Result<(), FemError> {
        let n = self.x.len();
        if s.len() < 8 || s[0] != n as f64 {
            return Err(FemError::Length {
                what: "state (nodes)",
                expected: n,
                got: s.first().copied().unwrap_or(0.0) as usize,
            });
        }
        let np = s[1] as usize;
        let expected = 8 + 3 * (2 * n + np * n);
        if s.len() != expected {
            return Err(FemError::Length {
                what: "state",
                expected,
                got: s.len(),
            });
        }
        let vecs: Vec<DVec3> = s[8..]
            .chunks(3)
            .map(|c| DVec3::new(c[0], c[1], c[2]))
            .collect();
        self.time = s[2];
        self.external_work = s[3];
        self.dissipated = s[4];
        self.wall_force = DVec3::new(s[5], s[6], s[7]);
        self.x = vecs[..n].to_vec();
        self.v = vecs[n..2 * n].to_vec();
        self.anchors = vecs[2 * n..].to_vec();
        self.fint_current = false;
        Ok(())
    }

    /// Copies the mutable state into the rollback buffers.
    fn save_state(&mut self) {
        let s = &mut self.scratch;
        for (dst, src) in [
            (&mut s.saved_x, &self.x),
            (&mut s.saved_v, &self.v),
            (&mut s.saved_anchors, &self.anchors),
        ] {
            dst.clear();
            dst.extend_from_slice(src);
        }
        s.saved_scalars = [
            self.time,
            self.external_work,
            self.dissipated,
            self.wall_force.x,
            self.wall_force.y,
            self.wall_force.z,
        ];
    }

    /// Rolls back to the copy made by `save_state`.
    fn restore_saved(&mut self) {
        let s = &self.scratch;
        self.x.clone_from(&s.saved_x);
        self.v.clone_from(&s.saved_v);
        self.anchors.clone_from(&s.saved_anchors);
        let [t, w, d, fx, fy, fz] = s.saved_scalars;
        self.time = t;
        self.external_work = w;
        self.dissipated = d;
        self.wall_force = DVec3::new(fx, fy, fz);
        self.fint_current = false;
    }
}
