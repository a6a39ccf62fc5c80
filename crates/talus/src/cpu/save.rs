//! The CPU path's checkpoint: [`Step::save`] and [`Step::restore`] (the
//! twin of the GPU's in `gpu/save.rs`). Everything the next step reads and
//! no step rewrites before reading is saved in storage order: the state,
//! the motion records (v(n−½) and ω(n−½)), the neighbour list with its
//! history, the positions of the last build, the walls' servo state and
//! build poses, the counters. A restored step continues bit for bit.
//! A GPU checkpoint (f32) restores here too, widened: exact positions from
//! its fixed point, the rest as stored.

use super::data::Step;
use super::hist::HistVec;
use crate::checkpoint::{Precision, Saved, SavedScalars, WALL_WORDS};
use crate::state::{Hist, Motion, Particles, HAS_HISTORY, INDEX, WALL};

impl Step {
    pub fn save(&self) -> Saved {
        let p = &self.particles;
        let w = &self.work;
        let mut s = Saved {
            scalars: SavedScalars {
                precision: Precision::F64,
                step: self.step,
                particles: p.len() as u64,
                next_id: self.next_id,
                builds: self.builds,
                rebuild: self.rebuild,
                max_overlap: self.max_overlap_ratio,
                inserted: self.flow.inserted.clone(),
            },
            sections: Vec::new(),
        };
        s.put("pos_rad", &p.pos_rad);
        s.put("vel_invm", &p.vel_invm);
        s.put("omega_invi", &p.omega_invi);
        s.put("material", &p.material);
        s.put("id", &p.id);
        s.put("dissipated", &p.dissipated);
        s.put("motion", &w.motion);
        s.put("pos_ref", &w.pos_ref);
        // before the first build there are no offsets yet: an empty list
        // (every row empty; the step builds, `rebuild` is set)
        if w.nbr_start.len() == p.len() + 1 {
            s.put("nbr_start", &w.nbr_start);
        } else {
            s.put("nbr_start", &vec![0u32; p.len() + 1]);
        }
        s.put("nbr", &w.nbr);
        s.put_hist(&w.nbr_hist.to_hists(), w.nbr_hist.roll);
        s.put("walls", &self.walls.state_words());
        if !self.clumps.is_empty() || !w.body.is_empty() {
            self.clumps.save(&mut s);
            s.put("body", &w.body);
            s.put("member", &w.member);
        }
        self.bonds.table.save(&mut s);
        s
    }

    /// Continues from `saved` (this scene's; `Step::new` made the rest).
    pub fn restore(&mut self, saved: &Saved) -> Result<(), String> {
        if saved.section("gpu_clumps").is_ok() {
            return Err(
                "it holds the GPU backend's clumps, which resume on the GPU backend so far: resume with --backend gpu"
                    .into(),
            );
        }
        let sc = &saved.scalars;
        let n = sc.particles as usize;
        type Arrays = (Particles<f64>, Vec<Motion<f64>>, Vec<[f64; 3]>, Vec<Hist>);
        let (particles, motion, pos_ref, hist): Arrays = match sc.precision {
            Precision::F64 => (
                Particles {
                    pos_rad: saved.array("pos_rad", n)?,
                    vel_invm: saved.array("vel_invm", n)?,
                    omega_invi: saved.array("omega_invi", n)?,
                    material: saved.array("material", n)?,
                    id: saved.array("id", n)?,
                    dissipated: saved.array("dissipated", n)?,
                },
                saved.array("motion", n)?,
                saved.array("pos_ref", n)?,
                saved.hist()?,
            ),
            Precision::F32 => {
                let m32: Vec<Motion<f32>> = saved.array("motion", n)?;
                let motion: Vec<Motion<f64>> = crate::state::convert_motion(&m32);
                let pos32: Vec<[f32; 4]> = saved.array("pos_rad", n)?;
                let exact: Vec<[f64; 3]> = saved.array("pos_exact", n)?;
                let pos_rad = pos32
                    .iter()
                    .zip(&exact)
                    .map(|(p, x)| [x[0], x[1], x[2], p[3] as f64])
                    .collect();
                let diss: Vec<f32> = saved.array("dissipated", n)?;
                let pref: Vec<[f32; 4]> = saved.array("pos_ref", n)?;
                let h32: Vec<Hist<f32>> = saved.hist()?;
                (
                    Particles {
                        pos_rad,
                        vel_invm: motion.iter().map(|m| m[0]).collect(),
                        omega_invi: motion.iter().map(|m| m[1]).collect(),
                        material: motion.iter().map(|m| m[2][3].to_bits() as u32).collect(),
                        id: motion.iter().map(|m| m[3][3].to_bits() as u32).collect(),
                        dissipated: diss.iter().map(|&d| d as f64).collect(),
                    },
                    motion,
                    pref.iter()
                        .map(|x| [x[0] as f64, x[1] as f64, x[2] as f64])
                        .collect(),
                    h32.iter().map(|x| x.map(f64::from)).collect(),
                )
            }
        };
        let start: Vec<u32> = saved.array("nbr_start", n + 1)?;
        let nbr: Vec<u32> = saved.array_any("nbr")?;
        if hist.len() != nbr.len() || start.last().copied() != Some(nbr.len() as u32) {
            return Err(format!(
                "the neighbour list does not add up ({} entries, {} history, ends at {:?})",
                nbr.len(),
                hist.len(),
                start.last()
            ));
        }
        if let Some(bad) = nbr
            .iter()
            .find(|&&e| e & WALL == 0 && (e & INDEX) as usize >= n)
        {
            return Err(format!(
                "the neighbour list names particle {} of {n}",
                bad & INDEX
            ));
        }
        // a GPU may list each pair once: both sides here, the same history
        let (start, nbr, hist) = match sc.precision {
            Precision::F64 => (start, nbr, hist),
            Precision::F32 => both_sides(&start, &nbr, &hist),
        };
        let walls: Vec<f64> = saved.array("walls", WALL_WORDS * self.walls.bodies.len())?;
        if sc.inserted.len() != self.flow.inserted.len() {
            return Err(format!(
                "{} [[insert]] counters, the scene has {} entries",
                sc.inserted.len(),
                self.flow.inserted.len()
            ));
        }
        let w = &mut self.work;
        w.force = vec![[0.0; 4]; n];
        w.torque = vec![[0.0; 4]; n];
        w.motion = motion;
        w.pos_ref = pos_ref;
        w.nbr_count = (0..n).map(|i| start[i + 1] - start[i]).collect();
        w.nbr_start = start;
        w.nbr = nbr;
        w.nbr_hist = HistVec::from_hists(self.law.rolling.has_memory(), &hist);
        w.scratch = None;
        self.particles = particles;
        self.walls.set_state_words(&walls);
        self.step = sc.step;
        self.walls.pose_at(sc.step as f64 * self.law.dt);
        self.next_id = sc.next_id;
        self.builds = sc.builds;
        self.rebuild = sc.rebuild;
        self.max_overlap_ratio = sc.max_overlap;
        self.flow.inserted = sc.inserted.clone();
        if saved.section("clumps_id").is_ok() {
            self.clumps = crate::shapes::clumps::Clumps::restore(saved, self.shapes.len())?;
            self.work.body = saved.array("body", n)?;
            self.work.member = saved.array("member", n)?;
            self.clumps
                .check_rows(&self.work.body, &self.work.member, &self.shapes)?;
            self.refresh_levers();
        } else {
            self.clumps = Default::default();
            self.work.body.clear();
            self.work.member.clear();
            self.work.lever.clear();
        }
        self.bonds.table = crate::bonds::table::Bonds::restore(saved, self.bonds.specs.len())?;
        self.bonds.stale = true;
        // a GPU checkpoint may hold particles an outlet marked (id NONE)
        // that its next build would have dropped: drop them now
        if sc.precision == Precision::F32 {
            self.remove(&std::collections::HashSet::from([u32::MAX]));
        }
        Ok(())
    }
}

/// A GPU's list as a list of both sides (the CPU's): each particle entry
/// i → j whose row j does not list i (the GPU holds each pair once, in the
/// lower id's row, unless its adapter lists both sides) also as j → i,
/// with the same history and flag; in each row the particle entries (its
/// own, then those given to it), then its wall entries. A list of both
/// sides comes back unchanged.
pub(crate) fn both_sides(
    start: &[u32],
    nbr: &[u32],
    hist: &[Hist],
) -> (Vec<u32>, Vec<u32>, Vec<Hist>) {
    let n = start.len() - 1;
    let row = |i: usize| start[i] as usize..start[i + 1] as usize;
    let pairs: std::collections::HashSet<(usize, usize)> = (0..n)
        .flat_map(|i| row(i).map(move |e| (i, e)))
        .filter(|&(_, e)| nbr[e] & WALL == 0)
        .map(|(i, e)| (i, (nbr[e] & INDEX) as usize))
        .collect();
    let mut given: Vec<Vec<(u32, Hist)>> = vec![Vec::new(); n];
    for i in 0..n {
        for e in row(i) {
            let j = (nbr[e] & INDEX) as usize;
            if nbr[e] & WALL == 0 && !pairs.contains(&(j, i)) {
                given[j].push((i as u32 | (nbr[e] & HAS_HISTORY), hist[e]));
            }
        }
    }
    let (mut s, mut out, mut h) = (vec![0u32], Vec::new(), Vec::new());
    for (i, mine) in given.iter().enumerate() {
        let (walls, parts): (Vec<usize>, Vec<usize>) = row(i).partition(|&e| nbr[e] & WALL != 0);
        for e in parts {
            out.push(nbr[e]);
            h.push(hist[e]);
        }
        for &(e, x) in mine {
            out.push(e);
            h.push(x);
        }
        for e in walls {
            out.push(nbr[e]);
            h.push(hist[e]);
        }
        s.push(out.len() as u32);
    }
    (s, out, h)
}

#[cfg(test)]
mod both_sides_tests {
    use super::*;

    /// Three particles, pairs (0, 1) with history and (0, 2) without, a
    /// wall entry on 1: each pair in both rows, walls last.
    #[test]
    fn each_pair_goes_to_both_rows() {
        let h = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0];
        let start = [0, 2, 3, 3];
        let nbr = [1 | HAS_HISTORY, 2, 5 | WALL];
        let hist = [h, [0.0; 8], [9.0; 8]];
        let (s, e, x) = both_sides(&start, &nbr, &hist);
        assert_eq!(s, vec![0, 2, 4, 5]);
        assert_eq!(e, vec![1 | HAS_HISTORY, 2, HAS_HISTORY, 5 | WALL, 0]);
        assert_eq!(x, vec![h, [0.0; 8], h, [9.0; 8], [0.0; 8]]);
        // a list of both sides (a CPU adapter's) comes back as it was
        assert_eq!(both_sides(&s, &e, &x), (s.clone(), e.clone(), x.clone()));
    }
}
