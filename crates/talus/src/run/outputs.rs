//! A run directory's files, written from a [`Simulation`] at output
//! steps: the tables (`energy.csv`, `flow.csv`, `walls.csv`,
//! `bodies.csv`, each an [`io::table::Table`](crate::io::table::Table))
//! and the snapshot series (`particles.pvd`, `walls.pvd`, `bodies.pvd`,
//! each an [`io::series::Series`](crate::io::series::Series)). Opened
//! afresh, or continued from a checkpoint's [`DriverState`]: every table
//! cut back to the length it had then and every series continued, so a
//! resumed run's files are those of a run that went straight on.
//!
//! Outputs fall every `output_every` steps; with FEM bodies, on exchange
//! steps (where the bodies' state is known): the interval rounded up to a
//! multiple of the exchange interval.

use super::simulation::{Balance, Simulation};
use crate::backend::Backend;
use crate::checkpoint::{hash64, DriverState};
use crate::fem::coupling::BodyNow;
use crate::io::bodies::{BodiesCsv, BodyFrame, BodyRow, BodySeries};
use crate::io::bonds::{self as bonds_io, BONDS_CSV_HEADER};
use crate::io::series::{one_part, Series};
use crate::io::table::{at_path, Table, WriteError};
use crate::io::vtk;
use crate::io::walls::{WallSeries, WallsCsv};
use crate::state::Particles;
use std::path::{Path, PathBuf};

/// The tables whose length a checkpoint keeps.
pub const TABLES: [&str; 5] = [
    "energy.csv",
    "walls.csv",
    "flow.csv",
    "bodies.csv",
    "bonds.csv",
];

/// `flow.csv`'s header: cumulative removals per outlet.
pub const FLOW_CSV_HEADER: &str = "t,outlet,count,mass";

/// `energy.csv`'s header, without and with FEM bodies.
pub const ENERGY_CSV_HEADER: &str =
    "t,kinetic_translational,kinetic_rotational,potential,elastic,dissipated,residual";
pub const ENERGY_CSV_HEADER_BODIES: &str = "t,kinetic_translational,kinetic_rotational,potential,elastic,dissipated,body_kinetic,body_strain,body_contact,body_potential,body_dissipated,residual";

/// An `energy.csv` row: its columns (the header's names, without and with
/// the FEM bodies' five) and values, for the balance `b` dated `t`.
pub fn energy_row(t: f64, b: &Balance, bodies: bool) -> Vec<(&'static str, f64)> {
    let header = if bodies {
        ENERGY_CSV_HEADER_BODIES
    } else {
        ENERGY_CSV_HEADER
    };
    let d = &b.particles;
    let mut values = vec![
        t,
        d.kinetic_translational,
        d.kinetic_rotational,
        d.potential,
        d.elastic,
        d.dissipated,
    ];
    if bodies {
        values.extend_from_slice(&b.bodies);
    }
    values.push(b.residual);
    header.split(',').zip(values).collect()
}

/// The files of one run directory, open for writing.
pub struct Outputs {
    dir: PathBuf,
    /// Steps between outputs.
    every: u64,
    /// Step index of the next energy row.
    next_row: u64,
    /// Number of the next snapshot.
    snapshot_k: usize,
    energy: Table,
    flow: Table,
    walls: Option<(WallsCsv, WallSeries)>,
    /// The scene's walls when the outputs were opened (`walls.csv` has
    /// their columns, `walls.pvd` their triangles).
    wall_set: Vec<crate::scene::Wall>,
    bodies: Option<(BodiesCsv, BodySeries)>,
    particles: Series,
    /// `bonds.csv` and `bonds.pvd` (a run with `[[bonds]]`): a bonds
    /// snapshot beside each particles' one, its number and time.
    bonds: Option<(Table, Series)>,
}

/// The recorded length of table `name` in a checkpoint's driver state (0:
/// none, start afresh), after checking that the file holds what the
/// checkpoint's run wrote there: at least that many bytes, and (where the
/// checkpoint recorded their hash) the same bytes. Another run's table, or
/// one cut short, would be continued into a file of two runs (or padded
/// with zeros).
fn recorded(dir: &Path, resume: Option<&DriverState>, name: &str) -> Result<u64, WriteError> {
    let Some(r) = resume else { return Ok(0) };
    let len = r.tables.iter().find(|t| t.0 == name).map_or(0, |t| t.1);
    if len == 0 {
        return Ok(0);
    }
    let path = dir.join(name);
    let refuse = |why: String| {
        at_path(
            Err(std::io::Error::other(format!(
                "{why}: these are not the files of the run this checkpoint continues; start the run afresh (without --resume)"
            ))),
            &path,
        )
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return refuse(format!(
                "missing, where the checkpoint's run had written {len} bytes"
            ))
        }
        Err(e) => return at_path(Err(e), &path),
    };
    if (bytes.len() as u64) < len {
        return refuse(format!(
            "holds {} bytes, the checkpoint's run had written {len}",
            bytes.len()
        ));
    }
    if let Some((_, want)) = r.table_hashes.iter().find(|t| t.0 == name) {
        let have = format!("{:016x}", hash64(&bytes[..len as usize]));
        if have != *want {
            return refuse(format!(
                "its first {len} bytes are not those the checkpoint's run wrote (hash {have}, recorded {want})"
            ));
        }
    }
    Ok(len)
}

impl Outputs {
    /// Opens directory `dir` for `sim`'s outputs every `output_every`
    /// steps: created afresh (a fresh run then writes the snapshot of
    /// t = 0 with [`snapshot`](Self::snapshot)) or, `resume` given,
    /// continued where that checkpoint left them.
    pub fn open<B: Backend>(
        dir: &Path,
        sim: &mut Simulation<B>,
        output_every: u64,
        resume: Option<&DriverState>,
    ) -> Result<Outputs, WriteError> {
        at_path(std::fs::create_dir_all(dir), dir)?;
        let scene = sim.scene();
        let body_every = sim.backend().bodies().map(|b| b.every);
        let every = match body_every {
            Some(k) => output_every.max(1).div_ceil(k) * k,
            None => output_every.max(1),
        };
        let header = match body_every {
            Some(_) => ENERGY_CSV_HEADER_BODIES,
            None => ENERGY_CSV_HEADER,
        };
        let len = |name| recorded(dir, resume, name);
        let energy = Table::open(&dir.join("energy.csv"), header, len("energy.csv")?)?;
        let flow = Table::open(&dir.join("flow.csv"), FLOW_CSV_HEADER, len("flow.csv")?)?;
        let bodies = match body_every {
            Some(_) => {
                let names: Vec<String> = (0..scene.bodies.len())
                    .map(|i| scene.bodies[i].label(i))
                    .collect();
                let path = dir.join("bodies.csv");
                let csv = BodiesCsv::open(&path, &names, len("bodies.csv")?)?;
                let mut series = BodySeries::new(dir, &names);
                if let Some(r) = resume {
                    series.resume(r.bodies_pvd.clone());
                }
                Some((csv, series))
            }
            None => None,
        };
        let walls = if scene.walls.is_empty() {
            None
        } else {
            let path = dir.join("walls.csv");
            let csv = WallsCsv::for_walls(&path, &scene.walls, len("walls.csv")?)?;
            let mut series = WallSeries::new(dir, &scene.walls, &scene.domain);
            if let Some(r) = resume {
                series.resume(r.walls_pvd.clone());
            }
            Some((csv, series))
        };
        let mut particles = Series::new(dir.join("particles.pvd"));
        if let Some(r) = resume {
            particles.resume(one_part(r.pvd.clone()));
            at_path(particles.write(), particles.path())?;
        }
        let bonds = if scene.bonds.is_empty() {
            None
        } else {
            let path = dir.join("bonds.csv");
            let csv = Table::open(&path, BONDS_CSV_HEADER, len("bonds.csv")?)?;
            let mut series = Series::new(dir.join("bonds.pvd"));
            if let Some(r) = resume {
                // its snapshots are the particles' (numbers and times)
                series.resume(one_part(
                    r.pvd
                        .iter()
                        .map(|(t, f)| (*t, f.replacen("particles_", "bonds_", 1)))
                        .collect(),
                ));
                at_path(series.write(), series.path())?;
            }
            Some((csv, series))
        };
        Ok(Outputs {
            dir: dir.to_path_buf(),
            every,
            next_row: resume.map_or(0, |r| r.next_row),
            snapshot_k: resume.map_or(0, |r| r.snapshot_k),
            energy,
            flow,
            walls,
            wall_set: scene.walls.clone(),
            bodies,
            particles,
            bonds,
        })
    }

    /// An error when the simulation's walls are no longer those the files
    /// were opened for (a wall inserted or removed since): their columns
    /// would be wrong. Open new outputs after such an edit. A wall given a
    /// new motion keeps its column; its triangles are taken afresh.
    fn same_walls<B: Backend>(&mut self, sim: &Simulation<B>) -> Result<(), WriteError> {
        let now = &sim.scene().walls;
        if *now == self.wall_set {
            return Ok(());
        }
        // the same walls given a new motion (and re-based where they
        // stood): walls.csv's columns stay, walls.pvd's triangles follow
        let names = |w: &[crate::scene::Wall]| -> Vec<String> {
            w.iter().enumerate().map(|(i, x)| x.label(i)).collect()
        };
        if names(now) == names(&self.wall_set) {
            if let Some((_, series)) = self.walls.as_mut() {
                let entries = series.entries();
                *series = WallSeries::new(&self.dir, now, &sim.scene().domain);
                series.resume(entries);
            }
            self.wall_set = now.clone();
            return Ok(());
        }
        let path = self.dir.join("walls.csv");
        at_path(
            Err(std::io::Error::other(format!(
                "the walls changed since the outputs were opened ({} then, {} now): open new outputs",
                self.wall_set.len(),
                sim.scene().walls.len()
            ))),
            &path,
        )
    }

    /// The step after which the next row is due (rows record the state
    /// after step `next_row`, measured at step `next_row + 1`).
    pub fn next_row(&self) -> u64 {
        self.next_row
    }

    /// Writes the rows of the balance `b` taken at step `done` (time
    /// `(done − 1) dt`: the energies are those of the last step's
    /// contact stage) and schedules the next row.
    pub fn row<B: Backend>(
        &mut self,
        sim: &mut Simulation<B>,
        b: &Balance,
        done: u64,
    ) -> Result<(), WriteError> {
        self.same_walls(sim)?;
        let t = (done - 1) as f64 * sim.dt();
        let cols = energy_row(t, b, self.bodies.is_some());
        let text: Vec<String> = cols.iter().map(|(_, x)| format!("{x:e}")).collect();
        self.energy.write(&(text.join(",") + "\n"))?;
        if let Some((csv, _)) = self.bodies.as_mut() {
            let rows: Vec<BodyRow> = b
                .body_states
                .iter()
                .map(|n| BodyRow {
                    com: n.com.to_array(),
                    com_velocity: n.com_velocity.to_array(),
                    kinetic: n.kinetic,
                    strain: n.strain,
                    force: n.force.to_array(),
                })
                .collect();
            csv.row(t, &rows)?;
        }
        let mut rows = String::new();
        for (name, c) in sim.outlets().names.iter().zip(&sim.flow_at_row().removed) {
            rows += &format!("{t:e},{name},{},{:e}\n", c.count, c.mass);
        }
        self.flow.write(&rows)?;
        if let Some((csv, _)) = self.walls.as_mut() {
            let loads: Vec<_> = sim.walls().iter().map(|w| w.1).collect();
            csv.row(t, &loads)?;
        }
        if let Some((csv, _)) = self.bonds.as_mut() {
            let counts = sim.bonds().counts();
            csv.write(&bonds_io::csv_row(t, &counts))?;
        }
        self.next_row += self.every;
        Ok(())
    }

    /// Writes snapshot number `k` (the next) at time `t`: the particles
    /// `p`, the walls where they stand, the bodies' `states`.
    pub fn snapshot<B: Backend>(
        &mut self,
        sim: &mut Simulation<B>,
        p: &Particles<f64>,
        states: Option<&[BodyNow]>,
        t: f64,
    ) -> Result<(), WriteError> {
        self.same_walls(sim)?;
        let k = self.snapshot_k;
        let name = format!("particles_{k:05}.vtu");
        let path = self.dir.join(&name);
        // the clumps now: `p` is this moment's state (the last good one)
        let clumps = sim.clumps();
        at_path(vtk::write_vtu_clumps(&path, p, sim.scene(), &clumps), &path)?;
        self.particles.add(t, 0, name);
        at_path(self.particles.write(), self.particles.path())?;
        if let Some((_, series)) = self.walls.as_mut() {
            let poses = sim.walls();
            series.write(k, t, |w, x| {
                poses[w].0.to_world(glam::DVec3::from(x)).to_array()
            })?;
        }
        if let Some((_, series)) = self.bonds.as_mut() {
            let name = format!("bonds_{k:05}.vtu");
            let path = self.dir.join(&name);
            let bonds = sim.bonds();
            let specs = &sim.scene().bonds;
            at_path(bonds_io::write_vtu(&path, p, &bonds, specs), &path)?;
            series.add(t, 0, name);
            at_path(series.write(), series.path())?;
        }
        if let (Some((_, series)), Some(states), Some(set)) =
            (self.bodies.as_mut(), states, sim.backend().bodies())
        {
            write_bodies(series, set, k, states)?;
        }
        self.snapshot_k += 1;
        Ok(())
    }

    /// The outputs' part of a checkpoint's driver state written into `st`:
    /// counters, series entries, every table's length now.
    pub fn save_driver(&self, st: &mut DriverState) {
        st.next_row = self.next_row;
        st.snapshot_k = self.snapshot_k;
        st.pvd = self.particles.files();
        if let Some((_, s)) = &self.walls {
            st.walls_pvd = s.entries();
        }
        if let Some((_, s)) = &self.bodies {
            st.bodies_pvd = s.pvd();
        }
        st.tables.clear();
        st.table_hashes.clear();
        for t in TABLES {
            let path = self.dir.join(t);
            // the bytes as they stand (every row is flushed when written)
            match std::fs::read(&path) {
                Ok(bytes) => {
                    st.tables.push((t.to_string(), bytes.len() as u64));
                    st.table_hashes
                        .push((t.to_string(), format!("{:016x}", hash64(&bytes))));
                }
                // not written (e.g. walls.csv of a run without walls)
                Err(_) => st.tables.push((t.to_string(), 0)),
            }
        }
    }
}

/// Every body's mesh as it stands in `states` (body i's is `states[i]`),
/// as snapshot `k` of `series`.
fn write_bodies(
    series: &mut BodySeries,
    set: &crate::fem::coupling::BodySet,
    k: usize,
    states: &[BodyNow],
) -> Result<(), WriteError> {
    let t = set.start_step as f64 * set.dt;
    let arrays: Vec<_> = set
        .bodies
        .iter()
        .zip(states)
        .map(|(c, n)| {
            let mesh = c.body.mesh();
            let v = |xs: &[glam::DVec3]| xs.iter().map(|x| x.to_array()).collect::<Vec<_>>();
            (
                v(&mesh.nodes),
                v(&n.positions),
                v(&n.velocities),
                mesh.order == crate::fem::mesh::Order::Quadratic,
            )
        })
        .collect();
    let frames: Vec<BodyFrame> = set
        .bodies
        .iter()
        .zip(&arrays)
        .zip(states)
        .map(|((c, a), n)| BodyFrame {
            reference: &a.0,
            positions: &a.1,
            velocities: &a.2,
            tets: &c.body.mesh().tets,
            quadratic: a.3,
            von_mises: &n.von_mises,
        })
        .collect();
    series.write(k, t, &frames)
}
