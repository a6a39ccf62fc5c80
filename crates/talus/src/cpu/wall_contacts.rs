//! The wall part of the contact stage (CPU, f64; the GPU's twin is the
//! wall loop of `shaders/contacts.wgsl`): a particle's wall entries, the
//! end of its list row in primitive order, hence in runs of one scene wall
//! each.
//!
//! - *Analytic walls* (plane, cylinder, cone) are one primitive each: a
//!   contact when the gap is below the radius.
//! - *Meshes* are reduced to one contact per smooth region before the law
//!   ([`keeps`]): two triangles whose closest points are the same point (a
//!   shared edge or vertex, within [`MESH_TIE`] × r, at the same distance)
//!   are one contact, carried by the earlier entry of the row; else a
//!   triangle whose closest point is inside it (a face contact) counts,
//!   and an edge or vertex contact is dropped when its closest point lies
//!   on another triangle of the mesh in contact (whose own closest point
//!   is then no farther: no distances are compared, which f32 cannot
//!   resolve near a vertex). Where a point lies on an edge or a vertex,
//!   rounding may call it inside two triangles at once: the first rule
//!   keeps one. On a flat or convex patch
//!   this leaves exactly the triangle under the centre (a sphere over an
//!   edge or a vertex shared by six triangles keeps one of them, at the
//!   same point, with the plane's normal); in a concave corner both faces
//!   count. A contact new to its triangle takes over the history of a
//!   triangle of the same mesh that had one and no longer counts (rolling
//!   across an edge keeps the tangential spring), before that one is
//!   cleared.
//! - *Moving walls*: the particle is taken into the wall's body frame to
//!   find the gap, the normal back to the world, and the wall's velocity
//!   at the contact point enters the law as the wall body's velocity.
//!
//! Each contact's force on the wall and torque about the wall's (moved)
//! axis point are added to the wall's load.

use super::hist::{HistMut, ZERO};
use super::law::{body, pair_law, Body, LawParams, V3};
use crate::pair::PairTable;
use crate::state::{Hist, Motion, Real, HAS_HISTORY, INDEX};
use crate::walls::geometry::on_triangle;
use crate::walls::surface::{barycentric, Surfaces};
use crate::walls::{gap, Feature, LoadSum, WallGap, WallSet};
use glam::DVec3;

/// How close (× the particle's radius) a closest point must be to another
/// triangle to lie on it, and two distances to tie (`MESH_TIE` in
/// `shaders/contacts.wgsl`, checked equal by `tests/shaders.rs`).
pub const MESH_TIE: f64 = 1e-4;

/// A particle's sums, which its wall contacts add to after its pairs (in
/// place: the order of additions is the row's).
#[derive(Debug, Clone, Copy, Default)]
pub struct WallSums {
    pub force: V3,
    pub torque: V3,
    pub elastic: f64,
    pub dissipated: f64,
    pub max_ratio: f64,
}

/// Everything the wall pass reads.
pub struct WallCtx<'a> {
    pub set: &'a WallSet,
    pub pairs: &'a PairTable,
    pub lp: LawParams,
}

/// A deforming surface node's share of one contact's force on the surface
/// (the node's index among all surface nodes, N).
pub type NodeForce = (u32, DVec3);

/// A mesh run's working memory (per thread, reused).
#[derive(Debug, Default)]
pub struct MeshScratch {
    gaps: Vec<WallGap>,
    keep: Vec<bool>,
    had: Vec<bool>,
}

/// Particle (position `xi`, radius `ri`, motion record `mi`, lever
/// `lever`: `shapes::clumps::lever_along`, zero for a sphere) against its
/// wall entries `nbr` (history `hist`, updated in place), added to `sums`.
/// Adds each contact's load to `loads` (per scene wall), and a contact with
/// a deforming surface's force to the triangle's nodes (`nodal`, with the
/// barycentric weights of its closest point).
#[allow(clippy::too_many_arguments)]
pub fn particle_walls(
    c: &WallCtx,
    xi: V3,
    ri: f64,
    mi: &Motion<f64>,
    lever: &[f64; 6],
    nbr: &mut [u32],
    hist: &mut HistMut,
    loads: &mut [LoadSum],
    nodal: &mut Vec<NodeForce>,
    sums: &mut WallSums,
    scratch: &mut MeshScratch,
) {
    let mut k0 = 0;
    while k0 < nbr.len() {
        let w = c.set.prims[(nbr[k0] & INDEX) as usize].wall;
        let mut k1 = k0 + 1;
        while k1 < nbr.len() && c.set.prims[(nbr[k1] & INDEX) as usize].wall == w {
            k1 += 1;
        }
        run(
            c,
            w as usize,
            xi,
            ri,
            mi,
            lever,
            &mut nbr[k0..k1],
            &mut hist.slice(k0..k1),
            sums,
            &mut loads[w as usize],
            nodal,
            scratch,
        );
        k0 = k1;
    }
}

/// The entries of one scene wall `w`.
#[allow(clippy::too_many_arguments)]
fn run(
    c: &WallCtx,
    w: usize,
    xi: V3,
    ri: f64,
    mi: &Motion<f64>,
    lever: &[f64; 6],
    nbr: &mut [u32],
    hist: &mut HistMut,
    sums: &mut WallSums,
    load: &mut LoadSum,
    nodal: &mut Vec<NodeForce>,
    scratch: &mut MeshScratch,
) {
    let b = &c.set.bodies[w];
    let xb = if b.pose.moving {
        b.pose.to_body(DVec3::from(xi)).to_array()
    } else {
        xi
    };
    let MeshScratch { gaps, keep, had } = scratch;
    gaps.clear();
    gaps.extend(
        nbr.iter()
            .map(|&e| gap(&c.set.prims[(e & INDEX) as usize], xb)),
    );
    had.clear();
    had.extend(nbr.iter().map(|&e| e & HAS_HISTORY != 0));
    if b.is_mesh() {
        keeps(c, nbr, gaps, xb, ri, keep);
    } else {
        keep.clear();
        keep.extend(
            gaps.iter()
                .zip(nbr.iter())
                .map(|(g, &e)| g.dist < reach_of(c, ri, e)),
        );
    }
    for k in 0..nbr.len() {
        if !keep[k] {
            continue;
        }
        let g = gaps[k];
        let overlap = ri - g.dist;
        let h = if had[k] {
            hist.get(k)
        } else {
            // a contact new to this triangle: the history of one of the
            // mesh's triangles that had one and no longer counts
            (0..nbr.len())
                .find(|&f| f != k && had[f] && !keep[f])
                .map_or(ZERO, |f| hist.get(f))
        };
        let prim = &c.set.prims[(nbr[k] & INDEX) as usize];
        let n = if b.pose.moving {
            b.pose.dir_to_world(DVec3::from(g.normal)).to_array()
        } else {
            g.normal
        };
        let mut wall = Body::WALL;
        // the contact point, midway into the overlap
        let cp = DVec3::from(xi) + DVec3::from(n) * (ri - 0.5 * overlap);
        if b.pose.moving {
            let v = b.pose.velocity_at(cp).to_array();
            wall.vel = v;
            wall.vel_half = v;
        }
        // a deforming surface's triangle: the velocity at its closest
        // point, from its vertices
        let surf = Surfaces::triangle_of(prim).map(|t| {
            let tri = [prim.a, prim.b, prim.c].map(|q| DVec3::new(q[0], q[1], q[2]));
            let on = DVec3::from(xb) + DVec3::from(g.normal) * g.dist;
            (t, barycentric(tri, on))
        });
        if let Some((t, w)) = surf {
            let v = c.set.surfaces.velocity_of(t, w).to_array();
            wall.vel = v;
            wall.vel_half = v;
        }
        let pp = c.pairs.get(mi[2][3].bits32(), prim.material);
        let mut me = body(mi, ri);
        // a clump's member: the body's inverse mass at this contact point
        me.inv_mass += crate::shapes::clumps::lever_along(lever, n);
        let r = pair_law(&c.lp, pp, &me, &wall, n, overlap, h);
        for q in 0..3 {
            sums.force[q] += r.force_a[q];
            sums.torque[q] += r.torque_a[q];
        }
        sums.elastic += r.elastic;
        sums.dissipated += r.dissipated;
        sums.max_ratio = sums.max_ratio.max(overlap / ri);
        let on_wall = -DVec3::from(r.force_a);
        let arm = cp - b.pose.origin;
        let tq = arm.cross(on_wall);
        load.add(on_wall.to_array(), tq.to_array());
        if let Some((t, w)) = surf {
            for (node, wk) in c.set.surfaces.tri_nodes[t].iter().zip(w) {
                nodal.push((*node, on_wall * wk));
            }
        }
        let new: Hist = [
            r.xi[0], r.xi[1], r.xi[2], r.kt, r.roll[0], r.roll[1], r.roll[2], 0.0,
        ];
        hist.set(k, new);
        nbr[k] = if new != ZERO {
            nbr[k] | HAS_HISTORY
        } else {
            nbr[k] & !HAS_HISTORY
        };
    }
    // entries that do not count (out of contact, or reduced away) lose
    // their history, after the new contacts took it over
    for k in 0..nbr.len() {
        if !keep[k] && had[k] {
            hist.set(k, ZERO);
            nbr[k] &= !HAS_HISTORY;
        }
    }
}

/// How near a wall entry's primitive must be to be a contact: the
/// particle's radius, or for an entry with history (flag in `e`)
/// [`LawParams::reach`](super::law::LawParams) past it (JKR: the law parts
/// it past the pair's own separation).
#[inline]
fn reach_of(c: &WallCtx, ri: f64, e: u32) -> f64 {
    if e & HAS_HISTORY != 0 {
        ri + c.lp.reach
    } else {
        ri
    }
}

/// Which of a mesh's entries count as contacts (the reduction described
/// above), into `keep`: `gaps` of each entry's triangle from `xb` (body
/// frame). An entry is in contact within [`reach_of`].
pub fn keeps(c: &WallCtx, nbr: &[u32], gaps: &[WallGap], xb: V3, ri: f64, keep: &mut Vec<bool>) {
    let tol = MESH_TIE * ri;
    let x = DVec3::from(xb);
    keep.clear();
    keep.extend((0..nbr.len()).map(|k| {
        let g = gaps[k];
        if g.dist >= reach_of(c, ri, nbr[k]) {
            return false;
        }
        let face = g.feature == Feature::Face;
        let cp = x + DVec3::from(g.normal) * g.dist;
        let prim = |f: usize| &c.set.prims[(nbr[f] & INDEX) as usize];
        !(0..nbr.len()).any(|f| {
            let gf = gaps[f];
            if f == k || gf.dist >= reach_of(c, ri, nbr[f]) {
                return false;
            }
            let cf = x + DVec3::from(gf.normal) * gf.dist;
            let same = (gf.dist - g.dist).abs() <= tol && cf.distance(cp) <= tol;
            if same {
                // a shared edge or vertex: the earlier entry carries it
                return f < k;
            }
            // a triangle holding this edge or vertex point is at least
            // as near (its own closest point is no farther): it carries
            // the contact, unless the two hold each other's points (a
            // tie rounding made) and this entry is the earlier
            !face
                && on_triangle(prim(f), cp.to_array(), tol)
                && !(gf.feature != Feature::Face
                    && k < f
                    && on_triangle(prim(k), cf.to_array(), tol))
        })
    }));
}
