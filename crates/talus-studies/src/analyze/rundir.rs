//! A run directory read back for analysis: the snapshots listed in
//! `particles.pvd` (f64, bit-exact), `summary.json`, the scene the run
//! ran when its file still loads (materials, contact law, periodic axes,
//! gravity) and `flow.csv`.
//!
//! A snapshot is read as [`Grains`]: its rows (spheres, and every member
//! sphere of a clump), each with the share of its volume that is its
//! particle's, and one entry per particle. A clump's entry is rebuilt
//! exactly from its first member, its orientation and its shape (the
//! scene's `[[shapes]]`): the centre of mass, the centre's velocity and the
//! spin, its mass, and the radius of the sphere of its volume.

use std::path::{Path, PathBuf};
use talus::io::run_dir::RunFiles;
use talus::io::vtk;
use talus::scene::{Domain, Scene};
use talus::state::Particles;

/// An opened run directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub dir: PathBuf,
    /// (time, file) per snapshot, in `particles.pvd`'s order.
    pub snapshots: Vec<(f64, PathBuf)>,
    pub summary: Option<serde_json::Value>,
    /// The scene, if `summary.json` (or the checkpoint) names a file that
    /// still loads.
    pub scene: Option<Scene>,
}

/// A snapshot's grains: its rows and its particles.
#[derive(Debug, Clone, PartialEq)]
pub struct Grains {
    /// Every sphere as written: spheres, and clumps' members (their
    /// clump's id, velocity at the member's centre, mass 1/M).
    pub rows: Particles<f64>,
    /// Per row, the share of its sphere's volume that is its particle's: 1
    /// for a sphere; for a clump's member its union's volume over the sum
    /// of its members' (overlaps counted once over the whole clump, spread
    /// evenly over its members' volumes: a volume inside a region is exact
    /// for clumps wholly in or out of it).
    pub weight: Vec<f64>,
    /// One entry per particle, in the rows' order of first appearance: a
    /// sphere as written, a clump as its centre of mass, the centre's
    /// velocity, its spin, 1/M, material and id, and the radius of the
    /// sphere of its volume.
    pub particles: Particles<f64>,
    /// Per row, its particle's index in `particles`.
    pub owner: Vec<usize>,
    /// Particles that are clumps.
    pub clumps: usize,
}

impl Grains {
    /// Spheres alone: each row a particle of weight 1.
    pub fn spheres(p: Particles<f64>) -> Grains {
        let n = p.len();
        Grains {
            weight: vec![1.0; n],
            particles: p.clone(),
            rows: p,
            owner: (0..n).collect(),
            clumps: 0,
        }
    }

    /// The rows' volumes as their particles count them: weight × 4/3 π r³.
    pub fn volume(&self) -> f64 {
        self.rows
            .pos_rad
            .iter()
            .zip(&self.weight)
            .map(|(p, w)| w * 4.0 / 3.0 * std::f64::consts::PI * p[3].powi(3))
            .sum()
    }
}

/// The grains of a snapshot's rows with `shape` per row (−1: a sphere)
/// and `orientation` (as written, w x y z) over the scene's shapes: a
/// clump's rows follow each other in member order.
pub fn grains(
    rows: Particles<f64>,
    shape: &[i64],
    orientation: &[[f64; 4]],
    shapes: &[talus::shapes::table::Shape],
) -> Result<Grains, String> {
    use glam::DVec3;
    let n = rows.len();
    let mut weight = vec![1.0; n];
    let mut owner = vec![0usize; n];
    let mut particles = Particles::default();
    let mut clumps = 0;
    let mut i = 0;
    while i < n {
        let k = particles.len();
        if shape[i] < 0 {
            owner[i] = k;
            particles.pos_rad.push(rows.pos_rad[i]);
            particles.vel_invm.push(rows.vel_invm[i]);
            particles.omega_invi.push(rows.omega_invi[i]);
            particles.material.push(rows.material[i]);
            particles.id.push(rows.id[i]);
            particles.dissipated.push(rows.dissipated[i]);
            i += 1;
            continue;
        }
        let s = shapes.get(shape[i] as usize).ok_or_else(|| {
            format!(
                "point {i} (id {}): shape {} is not among the scene's {} [[shapes]]",
                rows.id[i],
                shape[i],
                shapes.len()
            )
        })?;
        let m = s.members.len();
        let whole = i + m <= n && (i..i + m).all(|j| rows.id[j] == rows.id[i]);
        if !whole {
            return Err(format!(
                "point {i} (id {}): a clump of shape \"{}\" needs its {m} members in a row",
                rows.id[i], s.name
            ));
        }
        let members: f64 = s
            .members
            .iter()
            .map(|b| 4.0 / 3.0 * std::f64::consts::PI * b[3].powi(3))
            .sum();
        let q = s.engine_orientation(talus::shapes::table::written(orientation[i]));
        let b = s.members[0];
        let arm = q * DVec3::new(b[0], b[1], b[2]);
        let x = DVec3::new(rows.pos_rad[i][0], rows.pos_rad[i][1], rows.pos_rad[i][2]) - arm;
        let w = DVec3::from_slice(&rows.omega_invi[i][..3]);
        let v = DVec3::from_slice(&rows.vel_invm[i][..3]) - w.cross(arm);
        let r = (3.0 * s.volume / (4.0 * std::f64::consts::PI)).cbrt();
        particles.pos_rad.push([x.x, x.y, x.z, r]);
        particles
            .vel_invm
            .push([v.x, v.y, v.z, rows.vel_invm[i][3]]);
        particles.omega_invi.push(rows.omega_invi[i]);
        particles.material.push(rows.material[i]);
        particles.id.push(rows.id[i]);
        particles
            .dissipated
            .push(rows.dissipated[i..i + m].iter().sum());
        for j in i..i + m {
            weight[j] = s.volume / members;
            owner[j] = k;
        }
        clumps += 1;
        i += m;
    }
    Ok(Grains {
        rows,
        weight,
        particles,
        owner,
        clumps,
    })
}

/// One row of `flow.csv`: cumulative removals of one outlet at time t.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRow {
    pub t: f64,
    pub outlet: String,
    pub count: u64,
    pub mass: f64,
}

impl RunDir {
    /// Opens `dir`: `particles.pvd` is required and must list a snapshot.
    pub fn open(dir: &Path) -> Result<RunDir, String> {
        let f = RunFiles::open(dir)?;
        Ok(RunDir {
            snapshots: f
                .particles
                .into_iter()
                .map(|(t, p)| (t, dir.join(p)))
                .collect(),
            dir: f.dir,
            summary: f.summary,
            scene: f.scene,
        })
    }

    /// Snapshot `k`'s grains (its clumps weighed with the scene's
    /// `[[shapes]]`: a run with clumps needs its scene file).
    pub fn read(&self, k: usize) -> Result<Grains, String> {
        let (_, path) = self.snapshots.get(k).ok_or_else(|| {
            format!(
                "{}: snapshot {k} asked, the run has {}",
                self.dir.join("particles.pvd").display(),
                self.snapshots.len()
            )
        })?;
        let vtu = vtk::read_vtu(path)?;
        let rows = vtu
            .particles()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // a clump's members overlap: summed as spheres they would count
        // their lenses twice (fractions, volumes), and their rows are not
        // particles (counts, contacts)
        let shape = match vtu.ints("shape", false) {
            Ok(s) if s.iter().any(|&k| k >= 0) => s,
            _ => return Ok(Grains::spheres(rows)),
        };
        let Some(scene) = &self.scene else {
            return Err(format!(
                "{}: the run holds clumps, and talus analyze weighs them with the scene's [[shapes]]: summary.json's scene_file must name a file that still loads",
                path.display()
            ));
        };
        let q = vtu
            .point_f64("orientation", 4)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let q: Vec<[f64; 4]> = q.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        grains(rows, &shape, &q, &scene.shape_bodies())
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Snapshot `k`'s time (s).
    pub fn time(&self, k: usize) -> f64 {
        self.snapshots.get(k).map_or(f64::NAN, |s| s.0)
    }

    /// `--snapshot`: `last`, `first` or an index (negative counts from the
    /// end: −1 is the last).
    pub fn pick(&self, spec: &str) -> Result<usize, String> {
        let n = self.snapshots.len() as i64;
        let k = match spec {
            "last" => n - 1,
            "first" => 0,
            s => {
                let v: i64 = s.parse().map_err(|_| {
                    format!("--snapshot: expected an index, `first` or `last`, got \"{s}\"")
                })?;
                if v < 0 {
                    n + v
                } else {
                    v
                }
            }
        };
        if k < 0 || k >= n {
            return Err(format!(
                "--snapshot: {spec} is out of range: the run has {n} snapshots (0 to {})",
                n - 1
            ));
        }
        Ok(k as usize)
    }

    /// The domain: the scene's, else the particles' bounds (not periodic).
    pub fn domain(&self, pos_rad: &[[f64; 4]]) -> Domain {
        if let Some(s) = &self.scene {
            return s.domain.clone();
        }
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for p in pos_rad {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k] - p[3]);
                hi[k] = hi[k].max(p[k] + p[3]);
            }
        }
        if lo[0] > hi[0] {
            (lo, hi) = ([0.0; 3], [1.0; 3]);
        }
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        }
    }

    /// Gravity: the scene's, else −9.81 along z.
    pub fn gravity(&self) -> [f64; 3] {
        self.scene
            .as_ref()
            .map_or([0.0, 0.0, -9.81], |s| s.simulation.gravity)
    }

    /// `flow.csv` (`t,outlet,count,mass`).
    pub fn flow_rows(&self) -> Result<Vec<FlowRow>, String> {
        let path = self.dir.join("flow.csv");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (the run writes it at every energy row)",
                path.display()
            )
        })?;
        parse_flow_csv(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Parses `flow.csv`'s text (header `t,outlet,count,mass`).
pub fn parse_flow_csv(text: &str) -> Result<Vec<FlowRow>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim() == "t,outlet,count,mass" => {}
        _ => return Err("line 1: expected the header `t,outlet,count,mass`".into()),
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let bad = || {
            format!(
                "line {}: expected t,outlet,count,mass, got \"{}\"",
                i + 1,
                talus::text::snippet(line)
            )
        };
        if f.len() != 4 {
            return Err(bad());
        }
        out.push(FlowRow {
            t: f[0].trim().parse().map_err(|_| bad())?,
            outlet: f[1].trim().to_string(),
            count: f[2].trim().parse().map_err(|_| bad())?,
            mass: f[3].trim().parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    /// A tilted, spinning dumbbell (members written off its centre) and a
    /// sphere: the dumbbell's entry is its centre of mass and the centre's
    /// velocity, rebuilt from its first member; its members' weights sum
    /// to the union's volume; the sphere passes through.
    #[test]
    fn a_clump_is_rebuilt_from_its_members() {
        let spheres = [[0.0004, 0.0, 0.0, 0.001], [0.0016, 0.0, 0.0, 0.001]];
        let props = talus::shapes::mass::union_of_spheres(&spheres, Default::default()).unwrap();
        let shape = talus::shapes::table::Shape::new("d", &spheres, &props);
        let written = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.5, 1.2);
        let q = shape.engine_orientation(written);
        let (x, v, w) = (
            DVec3::new(0.01, -0.02, 0.03),
            DVec3::new(0.1, 0.2, -0.3),
            DVec3::new(5.0, -7.0, 11.0),
        );
        let mut rows = Particles::<f64>::default();
        for m in shape.members_at(x, q) {
            let arm = DVec3::new(m[0], m[1], m[2]) - x;
            let vm = v + w.cross(arm);
            rows.pos_rad.push(m);
            rows.vel_invm.push([vm.x, vm.y, vm.z, 2.0]);
            rows.omega_invi.push([w.x, w.y, w.z, 0.0]);
            rows.material.push(0);
            rows.id.push(4);
            rows.dissipated.push(1e-6);
        }
        rows.pos_rad.push([0.0, 0.0, 0.0, 0.0005]);
        rows.vel_invm.push([1.0, 0.0, 0.0, 3.0]);
        rows.omega_invi.push([0.0; 4]);
        rows.material.push(1);
        rows.id.push(7);
        rows.dissipated.push(0.0);
        let o = talus::shapes::table::as_written(written);
        let g = grains(
            rows,
            &[0, 0, -1],
            &[o, o, [1.0, 0.0, 0.0, 0.0]],
            std::slice::from_ref(&shape),
        )
        .unwrap();
        assert_eq!(
            (g.particles.len(), g.clumps, g.owner.clone()),
            (2, 1, vec![0, 0, 1])
        );
        let c = &g.particles;
        let at = DVec3::from_slice(&c.pos_rad[0][..3]);
        let vel = DVec3::from_slice(&c.vel_invm[0][..3]);
        assert!((at - x).length() < 1e-15, "{at} {x}");
        assert!((vel - v).length() < 1e-14, "{vel} {v}");
        assert_eq!((c.id[0], c.vel_invm[0][3], c.dissipated[0]), (4, 2.0, 2e-6));
        let r = (3.0 * shape.volume / (4.0 * std::f64::consts::PI)).cbrt();
        assert!((c.pos_rad[0][3] - r).abs() < 1e-18);
        assert_eq!(c.pos_rad[1], [0.0, 0.0, 0.0, 0.0005]);
        let sphere = 4.0 / 3.0 * std::f64::consts::PI * 0.0005f64.powi(3);
        assert!(((g.volume() - sphere) / shape.volume - 1.0).abs() < 1e-12);
        // members out of order, or a shape the scene lacks: one line each
        let e = grains(
            g.rows.clone(),
            &[0, -1, 0],
            &[o; 3],
            std::slice::from_ref(&shape),
        )
        .unwrap_err();
        assert!(e.contains("needs its 2 members in a row"), "{e}");
        let e = grains(g.rows.clone(), &[1, 1, -1], &[o; 3], &[shape]).unwrap_err();
        assert!(e.contains("shape 1 is not among the scene's 1"), "{e}");
    }

    /// A damaged row is named by its line and quoted in a few printable
    /// characters: a row of 13 000 NUL bytes (a file cut by a crash and
    /// padded by the file system) printed all of them before.
    #[test]
    fn damaged_flow_rows_are_quoted_short() {
        let good = "t,outlet,count,mass\n0,domain,0,0\n";
        assert_eq!(parse_flow_csv(good).unwrap().len(), 1);
        let text = format!("{good}{}\n", "\0".repeat(13_000));
        let e = parse_flow_csv(&text).unwrap_err();
        assert!(e.starts_with("line 3: expected t,outlet,count,mass"), "{e}");
        assert!(
            e.contains("\\0\\0") && e.len() < 200,
            "{} bytes: {e}",
            e.len()
        );
    }
}
