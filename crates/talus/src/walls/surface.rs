//! Deforming surfaces: the boundary triangles of the finite-element bodies
//! (`fem`), which the grains meet as mesh walls whose vertices move.
//!
//! The grains and a body exchange every K grain steps (`fem::coupling`).
//! Between two exchanges each surface node moves on a straight line,
//! x(t) = x0 + v (t − t0): x0 the node where the body stood at the
//! interval's start and v the velocity that brings it where the body
//! stands at its end. Every step the triangles' primitives are posed at
//! the step's time ([`Surfaces::pose`]; `move_surfaces` in
//! `shaders/surfaces.wgsl`), so the contact law sees the triangle where it
//! is, with the velocity at the contact point interpolated from its
//! vertices ([`Surfaces::velocity_of`] at the [`barycentric`] weights). Each contact's force on the
//! triangle goes to its three nodes with the barycentric weights of the
//! contact point ([`barycentric`]; the weights sum to 1, so momentum is
//! exact) and is summed per node over the interval ([`Surfaces::force`]).
//!
//! A surface triangle is an ordinary `Kind::Triangle` primitive, one-sided
//! (the body's outside), whose `b.w` holds 1 + its index among all surface
//! triangles (0 for every other primitive): the one thing that tells the
//! contact stage to read its vertices' velocities and to hand the force
//! back. Its mesh grid is binned with a margin over the reach
//! ([`Surfaces::margin`]); a surface that strays more than the margin from
//! where it was binned is binned again at an exchange.

use glam::DVec3;

/// One body's surface among the run's surfaces.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceWall {
    /// Its wall body (index into `WallSet::bodies`).
    pub wall: u32,
    /// Its nodes among all surface nodes: `nodes.0..nodes.1`.
    pub nodes: (u32, u32),
    /// Its triangles among all surface triangles: `tris.0..tris.1`.
    pub tris: (u32, u32),
    /// Its first primitive (its triangles' primitives are consecutive).
    pub first_prim: u32,
    /// How far (m) a node may stray from where the grid was binned.
    pub margin: f64,
    /// The nodes where the grid was binned.
    pub binned: Vec<DVec3>,
    /// The reach its grid lists triangles within, besides the margin
    /// (the largest radius + the skin, with `GRID_REACH_MARGIN`).
    pub reach: f64,
}

/// Every body's surface: nodes, triangles, their motion over the current
/// exchange interval, the positions at the last list build and the forces
/// the grains put on the nodes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surfaces {
    pub walls: Vec<SurfaceWall>,
    /// Per surface triangle: its three surface nodes (global indices).
    pub tri_nodes: Vec<[u32; 3]>,
    /// Per surface node: where it stands at `t0`.
    pub x0: Vec<DVec3>,
    /// Per surface node: its velocity over the interval.
    pub v: Vec<DVec3>,
    /// The interval's start, as a step number (the GPU measures time from
    /// it in whole steps).
    pub step0: u64,
    /// Per surface node: where it stood at the last list build.
    pub built: Vec<DVec3>,
    /// Per surface node: the grains' force on it (N), summed over the
    /// steps since the last exchange.
    pub force: Vec<DVec3>,
}

impl Surfaces {
    /// Whether there is any surface.
    pub fn is_empty(&self) -> bool {
        self.tri_nodes.is_empty()
    }

    /// Node `k` at `steps` steps of `dt` after the interval's start.
    pub fn node_at(&self, k: usize, steps: f64, dt: f64) -> DVec3 {
        self.x0[k] + self.v[k] * (steps * dt)
    }

    /// The vertices of surface triangle `t` at step `step`.
    pub fn triangle_at(&self, t: usize, step: u64, dt: f64) -> [DVec3; 3] {
        let s = step as f64 - self.step0 as f64;
        self.tri_nodes[t].map(|k| self.node_at(k as usize, s, dt))
    }

    /// The surface triangle primitive `p` is (its `b.w` lane), or None for
    /// any other primitive (a cylinder's `b.w` is its side).
    pub fn triangle_of(p: &super::primitive::Primitive) -> Option<usize> {
        let b_w = p.b[3];
        (p.kind == super::primitive::Kind::Triangle && b_w > 0.5).then(|| b_w as usize - 1)
    }

    /// The velocity of surface triangle `t` at barycentric weights `w`.
    pub fn velocity_of(&self, t: usize, w: [f64; 3]) -> DVec3 {
        let [a, b, c] = self.tri_nodes[t];
        self.v[a as usize] * w[0] + self.v[b as usize] * w[1] + self.v[c as usize] * w[2]
    }

    /// The largest distance of a node from where it stood at the last
    /// build, at step `step`.
    pub fn moved_since_build(&self, step: u64, dt: f64) -> f64 {
        let s = step as f64 - self.step0 as f64;
        (0..self.x0.len())
            .map(|k| self.node_at(k, s, dt).distance(self.built[k]))
            .fold(0.0, f64::max)
    }

    /// Records the nodes at step `step` as the list's build positions.
    pub fn mark_built(&mut self, step: u64, dt: f64) {
        let s = step as f64 - self.step0 as f64;
        for k in 0..self.x0.len() {
            self.built[k] = self.node_at(k, s, dt);
        }
    }
}

impl Surfaces {
    /// The state a checkpoint keeps, as f64 words: `step0`, then per node
    /// x0, v, built, force (12 words), then per surface its binned nodes.
    pub fn save_words(&self) -> Vec<f64> {
        let mut o = vec![self.step0 as f64];
        for k in 0..self.x0.len() {
            for v in [self.x0[k], self.v[k], self.built[k], self.force[k]] {
                o.extend(v.to_array());
            }
        }
        for w in &self.walls {
            o.extend(w.binned.iter().flat_map(|b| b.to_array()));
        }
        o
    }

    /// Restores [`Surfaces::save_words`]; returns the surfaces whose
    /// binned nodes differ from the ones they have now (their grids must be
    /// binned again), or an error when the words do not fit.
    pub fn restore_words(&mut self, w: &[f64]) -> Result<Vec<usize>, String> {
        let n = self.x0.len();
        let binned: usize = self.walls.iter().map(|s| s.binned.len()).sum();
        if w.len() != 1 + 12 * n + 3 * binned {
            return Err(format!(
                "the checkpoint's surfaces hold {} words, this scene's {}",
                w.len(),
                1 + 12 * n + 3 * binned
            ));
        }
        let v = |k: usize| DVec3::new(w[k], w[k + 1], w[k + 2]);
        self.step0 = w[0] as u64;
        for k in 0..n {
            let at = 1 + 12 * k;
            self.x0[k] = v(at);
            self.v[k] = v(at + 3);
            self.built[k] = v(at + 6);
            self.force[k] = v(at + 9);
        }
        let mut at = 1 + 12 * n;
        let mut changed = Vec::new();
        for (i, s) in self.walls.iter_mut().enumerate() {
            let mut diff = false;
            for b in &mut s.binned {
                let x = v(at);
                diff |= x != *b;
                *b = x;
                at += 3;
            }
            if diff {
                changed.push(i);
            }
        }
        Ok(changed)
    }
}

/// The barycentric weights of `p` (a point on triangle `tri`, or near it)
/// in that triangle: three weights ≥ 0 that sum to 1 (a point off the
/// triangle is taken to its closest point's weights, clamped). A
/// degenerate triangle gives its vertices a third each.
pub fn barycentric(tri: [DVec3; 3], p: DVec3) -> [f64; 3] {
    let (e1, e2, d) = (tri[1] - tri[0], tri[2] - tri[0], p - tri[0]);
    let (a, b, c) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (p1, p2) = (d.dot(e1), d.dot(e2));
    let det = a * c - b * b;
    if det.is_nan() || det <= 1e-30 * a * c {
        return [1.0 / 3.0; 3];
    }
    let u = ((c * p1 - b * p2) / det).max(0.0);
    let v = ((a * p2 - b * p1) / det).max(0.0);
    let s = u + v;
    let (u, v) = if s > 1.0 { (u / s, v / s) } else { (u, v) };
    [1.0 - u - v, u, v]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barycentric_weights_rebuild_the_point_and_sum_to_one() {
        let tri = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(2.0, 0.0, 0.1),
            DVec3::new(0.3, 1.5, -0.2),
        ];
        for (u, v) in [(0.2, 0.3), (0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.01, 0.9)] {
            let p = tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v;
            let w = barycentric(tri, p);
            assert!((w[0] + w[1] + w[2] - 1.0).abs() < 1e-14);
            let q = tri[0] * w[0] + tri[1] * w[1] + tri[2] * w[2];
            assert!(q.distance(p) < 1e-12, "{u} {v}: {w:?}");
            assert!(w.iter().all(|&x| x >= 0.0));
        }
        // off the triangle: clamped onto it, still a partition of one
        let w = barycentric(tri, DVec3::new(5.0, 5.0, 0.0));
        assert!(w.iter().all(|&x| x >= 0.0) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        // degenerate
        let line = [DVec3::ZERO, DVec3::X, DVec3::X * 2.0];
        assert_eq!(barycentric(line, DVec3::X), [1.0 / 3.0; 3]);
    }

    #[test]
    fn nodes_move_on_straight_lines_from_the_interval_start() {
        let mut s = Surfaces {
            tri_nodes: vec![[0, 1, 2]],
            x0: vec![DVec3::ZERO, DVec3::X, DVec3::Y],
            v: vec![DVec3::Z, DVec3::Z, DVec3::ZERO],
            step0: 10,
            built: vec![DVec3::ZERO; 3],
            force: vec![DVec3::ZERO; 3],
            ..Default::default()
        };
        let t = s.triangle_at(0, 14, 0.5);
        assert_eq!(t[0], DVec3::new(0.0, 0.0, 2.0));
        assert_eq!(t[2], DVec3::Y);
        assert_eq!(s.moved_since_build(14, 0.5), 2.0f64.hypot(1.0).max(2.0));
        s.mark_built(14, 0.5);
        assert_eq!(s.moved_since_build(14, 0.5), 0.0);
        // the velocity at a vertex is the vertex's, at the middle the mean
        let v = s.velocity_of(0, barycentric(t, (t[0] + t[1]) * 0.5));
        assert!((v - DVec3::Z).length() < 1e-12);
        let v = s.velocity_of(0, barycentric(t, t[2]));
        assert!(v.length() < 1e-12);
    }
}
