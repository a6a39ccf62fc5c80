//! Walls changed between two advances of a run: inserted, removed, or given
//! a new motion ([`crate::run::Simulation::insert_wall`] and its siblings).
//!
//! A backend takes the change through its checkpoint: it saves its state,
//! [`WallEdit::remap`] rewrites what in that state names a wall (the
//! neighbour list's wall entries, which index primitives, with their
//! tangential history; each wall's servo, build pose and load; a GPU's
//! per-wall pose records), and the backend is restored on the set-up with
//! the new walls. Save and restore are exact on both paths, so everything
//! the edit does not touch continues bit for bit: a kept wall keeps its
//! contacts and their history, whatever index it now has. Entries of a
//! removed wall are dropped, and the next step rebuilds the list (the new
//! walls' candidates). What only one backend saves per wall (the GPU's
//! pose records) that backend moves with [`WallEdit::per_body`], and poses
//! the [`WallEdit::fresh`] walls itself.

use super::set::WallSet;
use crate::checkpoint::{Saved, WALL_WORDS};
use crate::state::{INDEX, WALL};

/// Which wall body of the old set became which of the new.
#[derive(Debug, Clone, PartialEq)]
pub struct WallEdit {
    /// Per old body: its index in the new set (None: removed).
    pub map: Vec<Option<usize>>,
    /// Per new body: inserted, or given a new motion (its pose must be
    /// computed afresh, not carried over).
    pub fresh: Vec<bool>,
    /// Per old body: its primitives `first..end`.
    old_prims: Vec<(u32, u32)>,
    /// Per new body: its first primitive.
    new_first: Vec<u32>,
}

impl WallEdit {
    /// `map[b]`: old body `b`'s index among `new`'s bodies (None:
    /// removed); `fresh`: the new bodies whose pose starts afresh. A kept
    /// body must have the same primitives in both sets.
    pub fn new(
        old: &WallSet,
        new: &WallSet,
        map: Vec<Option<usize>>,
        fresh: Vec<bool>,
    ) -> Result<WallEdit, String> {
        if map.len() != old.bodies.len() || fresh.len() != new.bodies.len() {
            return Err(format!(
                "a wall edit maps {} of {} walls onto {} of {}",
                map.len(),
                old.bodies.len(),
                fresh.len(),
                new.bodies.len()
            ));
        }
        for (b, m) in map.iter().enumerate() {
            if let Some(k) = *m {
                let (o, n) = (&old.bodies[b], new.bodies.get(k).ok_or("no such new wall")?);
                if o.end - o.first != n.end - n.first {
                    return Err(format!(
                        "wall {b} kept as {k} with {} primitives instead of {}",
                        n.end - n.first,
                        o.end - o.first
                    ));
                }
            }
        }
        Ok(WallEdit {
            old_prims: old.bodies.iter().map(|b| (b.first, b.end)).collect(),
            new_first: new.bodies.iter().map(|b| b.first).collect(),
            map,
            fresh,
        })
    }

    /// Old primitive `p`'s index in the new set (None: its wall was
    /// removed, or no wall holds it).
    pub fn prim(&self, p: u32) -> Option<u32> {
        let b = self.old_prims.partition_point(|&(_, end)| end <= p);
        let (first, end) = *self.old_prims.get(b)?;
        if p < first || p >= end {
            return None;
        }
        Some(self.new_first[self.map[b]?] + (p - first))
    }

    /// Rewrites `saved` (either backend's, either precision) for the new
    /// walls: the list's wall entries and their history, the `walls`
    /// words and, where present, the `wall_pose` records; the next step
    /// rebuilds the list.
    pub fn remap(&self, saved: &mut Saved) -> Result<(), String> {
        let n = saved.scalars.particles as usize;
        let start: Vec<u32> = saved.array("nbr_start", n + 1)?;
        let nbr: Vec<u32> = saved.array_any("nbr")?;
        let (mut s2, mut n2, mut kept) = (vec![0u32], Vec::new(), Vec::new());
        for i in 0..n {
            let row = start[i] as usize..start[i + 1] as usize;
            for (e, &b) in row.clone().zip(&nbr[row]) {
                let entry = if b & WALL == 0 {
                    Some(b)
                } else {
                    self.prim(b & INDEX).map(|p| (b & !INDEX) | p)
                };
                if let Some(x) = entry {
                    n2.push(x);
                    kept.push(e);
                }
            }
            s2.push(n2.len() as u32);
        }
        // the history beside the entries kept (the rolling half too, where
        // the run has one)
        for name in ["nbr_hist", "nbr_roll"] {
            let Ok(hist) = saved.section(name) else {
                if name == "nbr_hist" {
                    return Err("section `nbr_hist` is missing".into());
                }
                continue;
            };
            let size = if nbr.is_empty() {
                0
            } else {
                hist.len() / nbr.len()
            };
            if size * nbr.len() != hist.len() {
                return Err(format!(
                    "section `{name}` holds {} bytes for {} entries",
                    hist.len(),
                    nbr.len()
                ));
            }
            let h2: Vec<u8> = kept
                .iter()
                .flat_map(|&e| hist[e * size..(e + 1) * size].iter().copied())
                .collect();
            saved.set(name, &h2);
        }
        saved.set("nbr_start", &s2);
        saved.set("nbr", &n2);
        self.per_body(saved, "walls", 8 * WALL_WORDS)?;
        saved.scalars.rebuild = true;
        Ok(())
    }

    /// Section `name`, `size` bytes per wall body, in the new bodies'
    /// order: kept bodies' records moved, inserted ones zero.
    pub fn per_body(&self, saved: &mut Saved, name: &str, size: usize) -> Result<(), String> {
        let old = saved.section(name)?;
        if old.len() != size * self.map.len() {
            return Err(format!(
                "section `{name}` holds {} bytes for {} walls of {size}",
                old.len(),
                self.map.len()
            ));
        }
        let mut new = vec![0u8; size * self.fresh.len()];
        for (b, m) in self.map.iter().enumerate() {
            if let Some(k) = *m {
                new[k * size..(k + 1) * size].copy_from_slice(&old[b * size..(b + 1) * size]);
            }
        }
        saved.set(name, &new);
        Ok(())
    }
}

/// `wall` as it stands at `pose`, at rest: its geometry moved there
/// (points to the world frame, directions rotated), no motion. A wall
/// given a new motion mid-run starts it from here, where it stands, not
/// from the scene's place: a piston stopped stays down.
pub fn rebased(wall: &crate::scene::Wall, pose: &super::Pose) -> crate::scene::Wall {
    use crate::scene::Shape;
    use glam::DVec3;
    let pt = |x: [f64; 3]| pose.to_world(DVec3::from(x)).to_array();
    let dir = |d: [f64; 3]| pose.dir_to_world(DVec3::from(d)).to_array();
    let shape = match &wall.shape {
        Shape::Plane { point, normal } => Shape::Plane {
            point: pt(*point),
            normal: dir(*normal),
        },
        Shape::Cylinder {
            center,
            axis,
            radius,
            length,
            side,
        } => Shape::Cylinder {
            center: pt(*center),
            axis: dir(*axis),
            radius: *radius,
            length: *length,
            side: *side,
        },
        Shape::Cone {
            center,
            axis,
            radius,
            length,
            side,
        } => Shape::Cone {
            center: pt(*center),
            axis: dir(*axis),
            radius: *radius,
            length: *length,
            side: *side,
        },
        Shape::Mesh {
            file,
            triangles,
            one_sided,
            degenerate,
        } => Shape::Mesh {
            file: file.clone(),
            triangles: triangles.iter().map(|t| t.map(pt)).collect(),
            one_sided: *one_sided,
            degenerate: *degenerate,
        },
    };
    crate::scene::Wall {
        shape,
        motion: None,
        ..wall.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::{Precision, SavedScalars};
    use crate::scene::{SceneBuilder, Wall};
    use crate::setup::Setup;

    fn walls(planes: &[f64]) -> WallSet {
        let mut b = SceneBuilder::new("w")
            .domain([0.0; 3], [1.0; 3])
            .material(crate::scene::types::Material::new("m", 2500.0, 1e7))
            .particle([0.5; 3], [0.0; 3], 0.01, "m");
        for &z in planes {
            b = b.wall([0.5, 0.5, z], [0.0, 0.0, 1.0], "m");
        }
        Setup::new(b.build().unwrap()).unwrap().walls
    }

    /// Removing the first of three walls: its entries go with their
    /// history, the others' move down a primitive, a particle's stay, and
    /// the per-wall words follow their wall.
    #[test]
    fn entries_follow_their_wall() {
        let (old, new) = (walls(&[0.1, 0.2, 0.3]), walls(&[0.2, 0.3]));
        let e = WallEdit::new(&old, &new, vec![None, Some(0), Some(1)], vec![false; 2]).unwrap();
        assert_eq!(
            (e.prim(0), e.prim(1), e.prim(2), e.prim(3)),
            (None, Some(0), Some(1), None)
        );
        let mut s = Saved {
            scalars: SavedScalars {
                precision: Precision::F64,
                step: 0,
                particles: 2,
                next_id: 2,
                builds: 1,
                rebuild: false,
                max_overlap: 0.0,
                inserted: Vec::new(),
            },
            sections: Vec::new(),
        };
        s.put("nbr_start", &[0u32, 3, 4]);
        s.put("nbr", &[1u32, WALL, 2 | WALL, WALL | 1]);
        s.put("nbr_hist", &[[1.0f64; 4], [2.0; 4], [3.0; 4], [4.0; 4]]);
        let w: Vec<f64> = (0..3 * WALL_WORDS).map(|k| k as f64).collect();
        s.put("walls", &w);
        e.remap(&mut s).unwrap();
        assert_eq!(s.array::<u32>("nbr_start", 3).unwrap(), vec![0, 2, 3]);
        assert_eq!(s.array_any::<u32>("nbr").unwrap(), vec![1, 1 | WALL, WALL]);
        let h: Vec<[f64; 4]> = s.array_any("nbr_hist").unwrap();
        assert_eq!(h, vec![[1.0; 4], [3.0; 4], [4.0; 4]]);
        assert_eq!(
            s.array_any::<f64>("walls").unwrap(),
            w[WALL_WORDS..].to_vec()
        );
        assert!(s.scalars.rebuild);
        // the rolling half, where saved, follows its entries the same way
        s.set("nbr_roll", &[[5.0f64; 4], [6.0; 4], [7.0; 4]]);
        let e2 = WallEdit::new(&new, &walls(&[0.3]), vec![None, Some(0)], vec![false]).unwrap();
        e2.remap(&mut s).unwrap();
        assert_eq!(s.array_any::<u32>("nbr").unwrap(), vec![1, WALL]);
        let h: Vec<[f64; 4]> = s.array_any("nbr_hist").unwrap();
        let r: Vec<[f64; 4]> = s.array_any("nbr_roll").unwrap();
        assert_eq!((h, r), (vec![[1.0; 4], [3.0; 4]], vec![[5.0; 4], [6.0; 4]]));
        // a kept wall must keep its primitives
        let cyl = {
            let mut sc = SceneBuilder::new("c")
                .domain([0.0; 3], [1.0; 3])
                .material(crate::scene::types::Material::new("m", 2500.0, 1e7))
                .particle([0.5; 3], [0.0; 3], 0.01, "m")
                .build()
                .unwrap();
            sc.walls.push(Wall::plane([0.5; 3], [0.0, 0.0, 1.0], 0));
            Setup::new(sc).unwrap().walls
        };
        assert!(WallEdit::new(&cyl, &new, vec![Some(0)], vec![false; 2]).is_ok());
        assert!(WallEdit::new(&old, &new, vec![Some(0)], vec![false; 2]).is_err());
    }
}
