//! Clumps as a pouring batch appends them: what both backends insert for
//! the accepted candidates of an `[[insert]] shape` entry. The CPU appends
//! the result to its state (`Step::insert_clumps`); the GPU uploads it for
//! every candidate of the batch and the device copies the accepted ones
//! into their slots (`gpu::flow`), so a poured clump starts with the same
//! f64 state, rounded once, on both paths.

use super::clumps::Clumps;
use super::table::{written, Shape};
use crate::state::{Motion, Particles};
use glam::DVec3;

/// The clumps of one shape and their member rows, as appended.
#[derive(Debug, Clone, Default)]
pub struct Poured {
    /// One entry per clump; its rows table names rows `first_row..` (the
    /// members of clump c are rows `first_row + c·m + j`, m the shape's
    /// members).
    pub clumps: Clumps,
    /// The member rows (position and radius, the clump's velocity and 1/M,
    /// no spin and its largest 1/I_k, material, the clump's id).
    pub rows: Particles<f64>,
    /// Each row's member index.
    pub member: Vec<u32>,
    /// The rows' motion records (as at a run's start: no contact force
    /// before the first step).
    pub motion: Vec<Motion<f64>>,
}

/// Clumps of `sh` (index `shape` among the scene's shapes), one per row of
/// `add` (its centre of mass, velocity, 1/M and material; its radius is
/// ignored), turned by `orientation` (as written: w, x, y, z), with ids
/// `first_id..` and rows from `first_row`, in gravity `g` at step `dt`.
/// `wrap` puts a member's centre back into a periodic domain. As a
/// sphere's motion record starts, V(−½) = V(0) − g dt/2; no spin.
#[allow(clippy::too_many_arguments)]
pub fn pour(
    sh: &Shape,
    shape: usize,
    add: &Particles<f64>,
    orientation: &[[f64; 4]],
    first_id: u32,
    first_row: u32,
    g: [f64; 3],
    dt: f64,
    wrap: impl Fn(&mut [f64; 3]),
) -> Poured {
    let mut out = Poured::default();
    let m = sh.members.len() as u32;
    for (c, o) in orientation.iter().enumerate().take(add.len()) {
        let x = DVec3::new(add.pos_rad[c][0], add.pos_rad[c][1], add.pos_rad[c][2]);
        let v = DVec3::new(add.vel_invm[c][0], add.vel_invm[c][1], add.vel_invm[c][2]);
        let inv_m = add.vel_invm[c][3];
        let q = sh.engine_orientation(written(*o));
        let material = add.material[c];
        let id = first_id + c as u32;
        let first = first_row + c as u32 * m;
        // the shape's moments at this clump's density (M / V)
        let moments = sh.moments * (1.0 / inv_m / sh.volume);
        let k = out.clumps.len();
        out.clumps.push(
            id,
            shape as u32,
            material,
            1.0 / inv_m,
            moments,
            x,
            v,
            q,
            DVec3::ZERO,
            first..first + m,
        );
        out.clumps.vel_half[k] = v - 0.5 * dt * DVec3::from(g);
        let inv_i = out.clumps.max_inv_moment(k);
        let r = &mut out.rows;
        for (j, mut p) in sh.members_at(x, q).enumerate() {
            let mut at = [p[0], p[1], p[2]];
            wrap(&mut at);
            p[..3].copy_from_slice(&at);
            r.pos_rad.push(p);
            r.vel_invm.push([v.x, v.y, v.z, inv_m]);
            r.omega_invi.push([0.0, 0.0, 0.0, inv_i]);
            r.material.push(material);
            r.id.push(id);
            r.dissipated.push(0.0);
            out.member.push(j as u32);
        }
    }
    out.motion = out.rows.initial_motion(g, dt);
    out
}
