//! The clumps of a run: rigid bodies whose members are rows of the
//! particle arrays. Every member is a sphere to the broad phase, the
//! neighbour list and the contact laws (walls, FEM surfaces and other
//! particles alike); the body it belongs to is a row here, with the state
//! the members' rows cannot hold: the centre of mass and its velocity, the
//! orientation and angular momentum, the principal moments.
//!
//! A member's row carries its clump's motion: velocity v* = V* + ω*×r at
//! its centre (r = q b, b its offset in the principal frame), the clump's
//! spin, and in the `w` lanes the *clump's* 1/M (so a contact's damping
//! sees the body's mass, as it must for the restitution to hold: Berry et
//! al. 2023) and its largest 1/I_k (the rolling cap's). A member's row
//! keeps the clump's id: rows with one id are one particle, and the pair
//! history's canonical orientation (lower id) holds between clumps.
//!
//! The integrate stage moves the spheres as before and then the clumps
//! (`cpu::clumps`): member forces and torques reduced to the body in member
//! order (the same bits whatever the rows' order), the leapfrog for the
//! centre, the splitting of [`super::rotation`] for the orientation, and
//! the members re-posed from the body.

use glam::{DMat3, DQuat, DVec3};

/// No clump: a sphere's row.
pub const NONE: u32 = u32::MAX;

/// The clumps' state (f64), one entry per clump, in the order they were
/// made (input order, then insertion).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clumps {
    /// The particle's id (its members' rows carry it too).
    pub id: Vec<u32>,
    /// Index into the scene's `[[shapes]]`.
    pub shape: Vec<u32>,
    pub material: Vec<u32>,
    /// Centre of mass x(n) (m), wrapped like a sphere's centre.
    pub pos: Vec<DVec3>,
    /// Predicted full-step velocity V*(n) (m/s).
    pub vel: Vec<DVec3>,
    /// V(n−½): the velocity that moved the centre to x(n).
    pub vel_half: Vec<DVec3>,
    pub inv_mass: Vec<f64>,
    /// Principal moments (kg m²).
    pub moments: Vec<DVec3>,
    /// Orientation q(n): principal frame to world.
    pub q: Vec<DQuat>,
    /// q(n−1), the orientation before the last step (the members' chord
    /// velocities and the energy at the step's start are taken from it).
    pub q_prev: Vec<DQuat>,
    /// World angular momentum L(n−½) (kg m²/s).
    pub l_half: Vec<DVec3>,
    /// Predicted angular velocity ω*(n) (world, rad/s).
    pub omega: Vec<DVec3>,
    /// Member rows: clump k's members, in the shape's order, are
    /// `rows[first[k]..first[k + 1]]` (moved with the rows at each sort).
    pub first: Vec<u32>,
    pub rows: Vec<u32>,
}

impl Clumps {
    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// Member `m`'s offset from the centre in the world, for clump `k` of
    /// `shapes` (`q b_m`).
    #[inline]
    pub fn arm(
        &self,
        scene_shapes: &[crate::scene::types::ClumpShape],
        k: usize,
        m: usize,
    ) -> DVec3 {
        let b = scene_shapes[self.shape[k] as usize].body.members[m];
        self.q[k] * DVec3::new(b[0], b[1], b[2])
    }

    /// The rotational kinetic energy ½ ω*ᵀ I ω* of clump `k` (J).
    pub fn rotational_energy(&self, k: usize) -> f64 {
        let w = self.q[k].inverse() * self.omega[k];
        0.5 * (w * w * self.moments[k]).element_sum()
    }

    /// The world inertia tensor of clump `k`.
    pub fn world_inertia(&self, k: usize) -> DMat3 {
        in_world(self.q[k], self.moments[k])
    }

    /// Adds a clump (its rows are added by the caller: members `first..`
    /// in member order) of `shape` with its initial state.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        id: u32,
        shape: u32,
        material: u32,
        mass: f64,
        moments: DVec3,
        x: DVec3,
        v: DVec3,
        q: DQuat,
        omega: DVec3,
        rows: impl Iterator<Item = u32>,
    ) {
        self.id.push(id);
        self.shape.push(shape);
        self.material.push(material);
        self.pos.push(x);
        self.vel.push(v);
        // as a sphere's: v(−½) is set by the first step from its forces
        self.vel_half.push(v);
        self.inv_mass.push(1.0 / mass);
        self.moments.push(moments);
        self.q.push(q);
        self.q_prev.push(q);
        let l = in_world(q, moments) * omega;
        self.l_half.push(l);
        self.omega.push(omega);
        if self.first.is_empty() {
            self.first.push(0);
        }
        self.rows.extend(rows);
        self.first.push(self.rows.len() as u32);
    }

    /// Appends `other`'s clumps after these (its rows table after this
    /// one's).
    pub fn append(&mut self, other: &Clumps) {
        if other.is_empty() {
            return;
        }
        let base = self.rows.len() as u32;
        if self.first.is_empty() {
            self.first.push(0);
        }
        self.first
            .extend(other.first.iter().skip(1).map(|&f| base + f));
        self.rows.extend_from_slice(&other.rows);
        self.id.extend_from_slice(&other.id);
        self.shape.extend_from_slice(&other.shape);
        self.material.extend_from_slice(&other.material);
        self.pos.extend_from_slice(&other.pos);
        self.vel.extend_from_slice(&other.vel);
        self.vel_half.extend_from_slice(&other.vel_half);
        self.inv_mass.extend_from_slice(&other.inv_mass);
        self.moments.extend_from_slice(&other.moments);
        self.q.extend_from_slice(&other.q);
        self.q_prev.extend_from_slice(&other.q_prev);
        self.l_half.extend_from_slice(&other.l_half);
        self.omega.extend_from_slice(&other.omega);
    }

    /// The largest 1/I_k of clump `k` (what its members' rows carry).
    pub fn max_inv_moment(&self, k: usize) -> f64 {
        1.0 / self.moments[k].min_element()
    }
}

/// The diagonal tensor `principal` (in the principal frame) in the world,
/// for orientation `q`: R diag R ᵀ.
pub fn in_world(q: DQuat, principal: DVec3) -> DMat3 {
    let r = DMat3::from_quat(q);
    r * DMat3::from_diagonal(principal) * r.transpose()
}

/// nᵀ S n for a lever S (xx, yy, zz, xy, xz, yz): what a clump's
/// member adds to its body's inverse mass 1/M at a contact of normal n,
/// so that the contact's damping sees the mass the contact point moves
/// with: 1/m_eff = 1/M + (b × n)ᵀ I⁻¹ (b × n). For an impact through the
/// centre (b ∥ n) it is 1/M, and the rebound has the material's e; off the
/// centre the body also turns, m_eff is smaller, and with it the damping,
/// so each impact keeps e at its contact point (the rigid-body impulse
/// solution's e).
#[inline]
pub fn lever_along(s: &[f64; 6], n: [f64; 3]) -> f64 {
    let [x, y, z] = n;
    s[0] * x * x + s[1] * y * y + s[2] * z * z + 2.0 * (s[3] * x * y + s[4] * x * z + s[5] * y * z)
}

/// The lever of a member at world arm `b` of a clump with world inverse
/// inertia `inv_i`: [b]ₓᵀ I⁻¹ [b]ₓ.
pub fn lever(b: DVec3, inv_i: DMat3) -> [f64; 6] {
    // [b]ₓ n = b × n
    let bx = DMat3::from_cols(
        DVec3::new(0.0, b.z, -b.y),
        DVec3::new(-b.z, 0.0, b.x),
        DVec3::new(b.y, -b.x, 0.0),
    );
    let s = bx.transpose() * inv_i * bx;
    [
        s.col(0)[0],
        s.col(1)[1],
        s.col(2)[2],
        s.col(1)[0],
        s.col(2)[0],
        s.col(2)[1],
    ]
}

impl Clumps {
    /// The world inverse inertia of clump `k`.
    pub fn world_inverse_inertia(&self, k: usize) -> DMat3 {
        in_world(self.q[k], DVec3::ONE / self.moments[k])
    }

    /// Into a checkpoint: every array, f64 bits as they are.
    pub fn save(&self, s: &mut crate::checkpoint::Saved) {
        let v3 = |v: &[DVec3]| v.iter().map(|x| x.to_array()).collect::<Vec<_>>();
        let q4 = |v: &[DQuat]| v.iter().map(|x| x.to_array()).collect::<Vec<_>>();
        s.put("clumps_id", &self.id);
        s.put("clumps_shape", &self.shape);
        s.put("clumps_material", &self.material);
        s.put("clumps_pos", &v3(&self.pos));
        s.put("clumps_vel", &v3(&self.vel));
        s.put("clumps_vel_half", &v3(&self.vel_half));
        s.put("clumps_inv_mass", &self.inv_mass);
        s.put("clumps_moments", &v3(&self.moments));
        s.put("clumps_q", &q4(&self.q));
        s.put("clumps_q_prev", &q4(&self.q_prev));
        s.put("clumps_l_half", &v3(&self.l_half));
        s.put("clumps_omega", &v3(&self.omega));
        s.put("clumps_first", &self.first);
        s.put("clumps_rows", &self.rows);
    }

    /// Out of a checkpoint (its shapes below `shapes`).
    pub fn restore(s: &crate::checkpoint::Saved, shapes: usize) -> Result<Clumps, String> {
        let id: Vec<u32> = s.array_any("clumps_id")?;
        let n = id.len();
        let v3 = |name: &str| -> Result<Vec<DVec3>, String> {
            Ok(s.array::<[f64; 3]>(name, n)?
                .into_iter()
                .map(DVec3::from)
                .collect())
        };
        let q4 = |name: &str| -> Result<Vec<DQuat>, String> {
            Ok(s.array::<[f64; 4]>(name, n)?
                .into_iter()
                .map(DQuat::from_array)
                .collect())
        };
        let c = Clumps {
            shape: s.array("clumps_shape", n)?,
            material: s.array("clumps_material", n)?,
            pos: v3("clumps_pos")?,
            vel: v3("clumps_vel")?,
            vel_half: v3("clumps_vel_half")?,
            inv_mass: s.array("clumps_inv_mass", n)?,
            moments: v3("clumps_moments")?,
            q: q4("clumps_q")?,
            q_prev: q4("clumps_q_prev")?,
            l_half: v3("clumps_l_half")?,
            omega: v3("clumps_omega")?,
            first: if n == 0 {
                s.array_any("clumps_first")?
            } else {
                s.array("clumps_first", n + 1)?
            },
            rows: s.array_any("clumps_rows")?,
            id,
        };
        if let Some(k) = c.shape.iter().position(|&x| x as usize >= shapes) {
            return Err(format!(
                "clump {k} takes shape {} but the scene has {shapes} [[shapes]]",
                c.shape[k]
            ));
        }
        Ok(c)
    }

    /// Whether rows and clumps agree: each clump's rows name it, with
    /// its members in order, as many as its shape has.
    pub fn check_rows(
        &self,
        body: &[u32],
        member: &[u32],
        shapes: &[super::table::Shape],
    ) -> Result<(), String> {
        if self.first.len() != self.len() + 1 && !(self.is_empty() && self.first.len() <= 1) {
            return Err("the clumps' member table does not add up".into());
        }
        for k in 0..self.len() {
            let (lo, hi) = (self.first[k] as usize, self.first[k + 1] as usize);
            let want = shapes[self.shape[k] as usize].members.len();
            if hi < lo || hi - lo != want || hi > self.rows.len() {
                return Err(format!(
                    "clump {k} lists {} members, its shape {want}",
                    hi.wrapping_sub(lo)
                ));
            }
            for (m, &r) in self.rows[lo..hi].iter().enumerate() {
                let r = r as usize;
                if body.get(r) != Some(&(k as u32)) || member.get(r) != Some(&(m as u32)) {
                    return Err(format!("clump {k}'s member {m} is not its row {r}'s"));
                }
            }
        }
        Ok(())
    }
}

/// A clump as outputs report it (`final.csv`, the snapshots).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClumpRow {
    pub id: u32,
    pub shape: u32,
    pub material: u32,
    /// Centre of mass (m), velocity V* (m/s), spin ω* (rad/s, world).
    pub pos: [f64; 3],
    pub vel: [f64; 3],
    pub omega: [f64; 3],
    /// The orientation as written (w, x, y, z; w ≥ 0): the shape's frame
    /// as written to the world.
    pub orientation: [f64; 4],
    /// The shape's largest member radius (m).
    pub radius: f64,
}

impl Clumps {
    /// Every clump as outputs report it, in id order.
    pub fn rows_out(&self, shapes: &[super::table::Shape]) -> Vec<ClumpRow> {
        let mut out: Vec<ClumpRow> = (0..self.len())
            .map(|k| {
                let s = &shapes[self.shape[k] as usize];
                ClumpRow {
                    id: self.id[k],
                    shape: self.shape[k],
                    material: self.material[k],
                    pos: self.pos[k].to_array(),
                    vel: self.vel[k].to_array(),
                    omega: self.omega[k].to_array(),
                    orientation: as_written(s.written_orientation(self.q[k])),
                    radius: s.max_radius,
                }
            })
            .collect();
        out.sort_by_key(|c| c.id);
        out
    }
}

pub use super::table::{as_written, written};
