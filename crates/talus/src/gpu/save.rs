//! The GPU path's checkpoint (twin of `cpu/save.rs`):
//! [`GpuBackend::save_state`] (`Backend::save`) reads back everything the
//! next step reads before writing it, and [`GpuBackend::restore`] continues
//! from it. The same pair grows the particle capacity in the middle of a
//! run (save, new buffers, load: [`GpuBackend::grow_capacity`]).
//!
//! Sections (little-endian, set B's order, the first `particles` = the
//! device's count, marked-but-not-yet-dropped particles included: the
//! restored run drops them at its next build like the straight run):
//! `pos_rad` ([f32; 4]), `dissipated` (f32), `motion` (`Motion<f32>`),
//! `pos_fx` ([u32; 6]; 8 before 2026-11-28, the last two zero, still
//! read), `pos_exact` ([f64; 3], decoded from `pos_fx`: what
//! the CPU restores), `pos_ref` ([f32; 4], w the radius: the device keeps
//! xyz), `nbr_start` (count + 1),
//! `nbr`, `nbr_hist` ([f32; 4]), `ctl` (the raw control words),
//! `wall_pose` (raw `WallPose`s) and the portable `walls` ([`checkpoint::WALL_WORDS`](crate::checkpoint::WALL_WORDS)
//! f64 per wall, as the CPU's). Not saved, because every step rewrites them
//! before reading: the work records (pair sums, force, torque), the
//! build's scratch (cell keys, counts, order, the kept table, `new_at`),
//! the dispatch arguments; `starts`
//! starts at zero, which makes the first batch's overlap test scan every
//! particle instead of the cells around (the same answer).
//!
//! A GPU checkpoint restores bit for bit; a CPU one (f64) is converted:
//! positions to f32 and fixed point, the motion records and history to
//! f32, the list as the previous list of a build on the first step (the
//! history moves over as at any build), the walls posed from their servo
//! state.

use super::data::{self, FixedWords, GpuInit, FX_WORDS};
use super::layout::{WallPose, NONE};
use super::pages::{self, Readable};
use super::walls::WallTables;
use super::{default_capacity, GpuBackend, GpuContext, GpuError};
use crate::checkpoint::{Precision, Saved, SavedScalars, WALL_WORDS};
use crate::scene::Scene;
use crate::setup::Setup;
use crate::state::{convert_motion, Hist, Motion, Particles};
use crate::walls::WallEdit;
use glam::DVec3;

impl GpuBackend {
    /// Everything the next step depends on (two reads: the control words,
    /// then the arrays).
    pub fn save_state(&mut self) -> Saved {
        use data::*;
        let ctl = self.ctl();
        let n = ctl[CTL_COUNT] as u64;
        let len = ctl[CTL_LIST_LEN] as u64;
        let bodies = self.data.n_bodies;
        let pose_size = std::mem::size_of::<WallPose>() as u64;
        let sizes = [
            16 * n,
            4 * n,
            64 * n,
            4 * FX_WORDS as u64 * n,
            12 * n,
            4 * (n + 1),
            4 * len,
            pages::hist_bytes(self.data.paging.roll) * len,
            pose_size * bodies,
        ];
        let total: u64 = sizes.iter().map(|b| b.next_multiple_of(256)).sum();
        self.data.reserve_staging(&self.ctx, total);
        let d = &self.data;
        let bufs: [&dyn Readable; 9] = [
            &d.b.pos,
            &d.b.diss,
            &d.b.motion,
            &d.b.pos_fx,
            &d.pos_ref,
            &d.nbr_start,
            &d.nbr,
            &d.nbr_hist,
            &d.wall_pose,
        ];
        let parts: Vec<(&dyn Readable, u64)> = bufs.into_iter().zip(sizes).collect();
        let r = self.read(&parts);
        let fx: Vec<FixedWords> = bytemuck::pod_collect_to_vec(&r[3]);
        let exact: Vec<[f64; 3]> = fx.iter().map(|w| self.fixed.decode(w)).collect();
        let poses: Vec<WallPose> = bytemuck::pod_collect_to_vec(&r[8]);
        let walls: Vec<f64> = poses
            .iter()
            .flat_map(|p| {
                let (s, b, f, t) = (p.servo, p.built, p.force, p.torque);
                [
                    s[0], s[1], b[0], b[1], b[2], b[3], f[0], f[1], f[2], t[0], t[1], t[2],
                ]
                .map(f64::from)
            })
            .collect();
        let mut s = Saved {
            scalars: SavedScalars {
                precision: Precision::F32,
                step: ctl[CTL_STEP] as u64,
                particles: n,
                next_id: ctl[CTL_NEXT_ID],
                builds: ctl[CTL_BUILDS] as u64,
                rebuild: ctl[CTL_REBUILD] != 0,
                max_overlap: f32::from_bits(ctl[CTL_MAX_OVERLAP]) as f64,
                inserted: self.flow.inserted.clone(),
            },
            sections: Vec::new(),
        };
        let raw = |s: &mut Saved, name: &str, b: &[u8]| s.sections.push((name.into(), b.to_vec()));
        raw(&mut s, "pos_rad", &r[0]);
        raw(&mut s, "dissipated", &r[1]);
        raw(&mut s, "motion", &r[2]);
        raw(&mut s, "pos_fx", &r[3]);
        s.put("pos_exact", &exact);
        // the reference positions as [f32; 4], w the radius (the device
        // keeps xyz: 12 B a particle)
        let pos: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&r[0]);
        let xyz: Vec<[f32; 3]> = bytemuck::pod_collect_to_vec(&r[4]);
        let pos_ref: Vec<[f32; 4]> = xyz
            .iter()
            .zip(&pos)
            .map(|(x, p)| [x[0], x[1], x[2], p[3]])
            .collect();
        s.put("pos_ref", &pos_ref);
        raw(&mut s, "nbr_start", &r[5]);
        raw(&mut s, "nbr", &r[6]);
        let roll = self.data.paging.roll;
        s.put_hist(&hist_host(&r[7], roll), roll);
        s.put("ctl", &ctl);
        raw(&mut s, "wall_pose", &r[8]);
        s.put("walls", &walls);
        self.save_surfaces(&mut s);
        self.save_clumps(&mut s, n);
        self.bond_table().save(&mut s);
        s
    }

    /// The bonds now, read back (f32 widened: a checkpoint of them comes
    /// back to the same bits); empty without.
    pub fn bond_table(&mut self) -> crate::bonds::table::Bonds {
        let count = self.data.bonds.count;
        if count == 0 {
            return Default::default();
        }
        let rows: Vec<super::layout::Bond> = self.read_vec(&self.data.bonds.table, count);
        super::bond_data::table_from(&self.tables.bonds, &rows)
    }

    /// The clumps, when the run has any, as the device holds them
    /// (`gpu_clumps`: the table's raw records; `gpu_clump_rows`: the rows
    /// table; `gpu_clump_row`: each row's part, set B's order; a record
    /// holds its shape and material): a GPU restore is bit for bit. (The CPU backend
    /// refuses them in one line: its clumps' state is f64.)
    fn save_clumps(&mut self, s: &mut Saved, n: u64) {
        let c = &self.data.clumps;
        if c.count == 0 {
            return;
        }
        // the records and rows-table entries in use (pouring's room is
        // made again at the load)
        let size = std::mem::size_of::<super::clump_data::Clump>() as u64;
        let r = self.read(&[
            (&c.table, size * c.used),
            (&c.rows, 4 * c.rows_used),
            (&self.data.b.clump_row, 32 * n),
        ]);
        for (name, bytes) in ["gpu_clumps", "gpu_clump_rows", "gpu_clump_row"]
            .into_iter()
            .zip(r)
        {
            s.sections.push((name.into(), bytes));
        }
    }

    /// The clumps a GPU checkpoint holds (None: it holds none), checked
    /// against this scene's shapes and the checkpoint's `n` rows.
    fn load_clumps(
        &self,
        saved: &Saved,
        n: usize,
    ) -> Result<Option<super::clump_data::ClumpInit>, String> {
        let Ok(raw) = saved.section("gpu_clumps") else {
            return Ok(None);
        };
        let size = std::mem::size_of::<super::clump_data::Clump>();
        if raw.len() % size != 0 {
            return Err(format!(
                "section `gpu_clumps` holds {} bytes, not whole {size}-byte records",
                raw.len()
            ));
        }
        let table: Vec<super::clump_data::Clump> = bytemuck::pod_collect_to_vec(raw);
        let (first, members) = super::clump_data::members_table(&self.shapes);
        let init = super::clump_data::ClumpInit {
            table,
            rows: saved.array_any("gpu_clump_rows")?,
            members,
            row: saved.array("gpu_clump_row", n)?,
        };
        for (j, c) in init.table.iter().enumerate() {
            if c.info[0] == crate::shapes::clumps::NONE {
                // a free record: no kernel reads its shape or rows
                continue;
            }
            let s = c.shape as usize;
            let ok = s < self.shapes.len()
                && c.info[2] == first[s]
                && c.info[3] as usize == self.shapes[s].members.len()
                && (c.info[1] + c.info[3]) as usize <= init.rows.len();
            if !ok {
                return Err(format!(
                    "clump {j} does not fit this scene's [[shapes]] (shape {s}, members {})",
                    c.info[3]
                ));
            }
        }
        Ok(Some(init))
    }

    /// The FEM bodies and their surfaces, when the scene has any: the
    /// bodies' words (`bodies`, as the CPU's), the surfaces' portable words
    /// (`surfaces`: step0 and per node x0, v from the host's f64 copy, built
    /// and the interval's force from the device), and the device's own
    /// `surf_nodes` and `surf_force` words (a GPU restore is bit for bit).
    fn save_surfaces(&mut self, s: &mut Saved) {
        let Some(b) = &self.bodies else { return };
        s.put("bodies", &b.save());
        let nodes = self.data.n_surf_nodes;
        let words = data::surf_force_words(nodes);
        let need = (48 * nodes).next_multiple_of(256) + (4 * words).next_multiple_of(256);
        self.data.reserve_staging(&self.ctx, need);
        let d = &self.data;
        let r = self.read(&[(&d.surf_nodes, 48 * nodes), (&d.surf_force, 4 * words)]);
        s.put("surfaces", &self.surfaces_words(&r[0], &r[1]));
        s.sections.push(("surf_nodes".into(), r[0].clone()));
        s.sections.push(("surf_force".into(), r[1].clone()));
    }

    /// The surfaces' portable words from the device's node records and
    /// force words (as read): the host's intervals with the device's
    /// build poses and the interval's forces.
    pub(crate) fn surfaces_words(&self, nodes: &[u8], force: &[u8]) -> Vec<f64> {
        let rec: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(nodes);
        let fw: Vec<u32> = bytemuck::pod_collect_to_vec(force);
        let n = self.data.n_surf_nodes as usize;
        let (force, _) = super::surfaces::node_forces(&fw, n, self.data.force_scale);
        let mut host = self.host_walls.surfaces.clone();
        for k in 0..n {
            let b = rec[2 * n + k];
            host.built[k] = DVec3::new(b[0] as f64, b[1] as f64, b[2] as f64);
            host.force[k] = force[k];
        }
        host.save_words()
    }

    /// After new buffers were allocated for a saved state: the surfaces'
    /// tables (the host's intervals and grids; from a GPU checkpoint the
    /// device's node and force words as saved, from a CPU one its f64
    /// nodes and forces converted), posed at the first submission. With
    /// `setup` (a restore), the bodies and the host's surfaces come from
    /// the checkpoint first.
    fn load_surfaces(&mut self, saved: &Saved, setup: Option<&Setup>) -> Result<(), GpuError> {
        if self.bodies.is_none() {
            return Ok(());
        }
        let bad = GpuError::Checkpoint;
        if setup.is_some() {
            let words: Vec<f64> = saved.array_any("bodies").map_err(bad)?;
            let b = self.bodies.as_mut().expect("bodies");
            b.restore(&words).map_err(bad)?;
            let sw: Vec<f64> = saved.array_any("surfaces").map_err(bad)?;
            let walls = &mut self.host_walls;
            for k in walls.surfaces.restore_words(&sw).map_err(bad)? {
                walls.rebin_surface(k);
            }
        }
        let d = &self.data;
        let n = d.n_surf_nodes as usize;
        let q = &self.ctx.queue;
        match saved.scalars.precision {
            Precision::F32 => {
                let nodes: Vec<[f32; 4]> = saved.array("surf_nodes", 3 * n).map_err(bad)?;
                let fw: Vec<u32> = saved
                    .array("surf_force", data::surf_force_words(n as u64) as usize)
                    .map_err(bad)?;
                q.write_buffer(&d.surf_nodes, 0, bytemuck::cast_slice(&nodes));
                q.write_buffer(&d.surf_force, 0, bytemuck::cast_slice(&fw));
            }
            Precision::F64 => {
                let s = &self.host_walls.surfaces;
                let nodes = super::walls::surface_nodes(s);
                q.write_buffer(&d.surf_nodes, 0, bytemuck::cast_slice(&nodes));
                let mut fw = vec![0u32; data::surf_force_words(n as u64) as usize];
                for (k, f) in s.force.iter().enumerate() {
                    for c in 0..3 {
                        let x = (f[c] * d.force_scale).trunc() as i64 as u64;
                        fw[6 * k + 2 * c] = x as u32;
                        fw[6 * k + 2 * c + 1] = (x >> 32) as u32;
                    }
                }
                q.write_buffer(&d.surf_force, 0, bytemuck::cast_slice(&fw));
            }
        }
        let step0 = self.host_walls.surfaces.step0;
        let info = data::surf_info(n as u32, d.n_surf_tris as u32, step0, d.force_scale);
        q.write_buffer(&d.surf_info, 0, bytemuck::bytes_of(&info));
        self.upload_grids();
        self.repose_surfaces = true;
        Ok(())
    }

    /// Continues a saved run of `scene` (either backend's checkpoint) on
    /// `ctx`, resolving a [`Setup`] for it first (as [`GpuBackend::new`]).
    pub fn restore(scene: &Scene, ctx: GpuContext, saved: &Saved) -> Result<GpuBackend, GpuError> {
        Self::restore_setup(&Setup::new(scene.clone())?, ctx, saved)
    }

    /// Continues a saved run of `setup`'s scene (either backend's
    /// checkpoint) on `ctx`: bit for bit from a GPU checkpoint; from a CPU
    /// one within f32 of it (the first step rebuilds the list, moving the
    /// history over).
    pub fn restore_setup(
        setup: &Setup,
        ctx: GpuContext,
        saved: &Saved,
    ) -> Result<GpuBackend, GpuError> {
        let grid = setup.grid;
        if saved.section("clumps_id").is_ok() {
            return Err(GpuError::Checkpoint(
                "it holds the CPU backend's clumps (f64), which resume on the CPU backend so far: resume with --backend cpu".into(),
            ));
        }
        let none = Particles::<f32>::default();
        let init = GpuInit {
            state: &none,
            pos_fx: &[],
            motion: &[],
            list: None,
            capacity: Some(1),
            clumps: None,
        };
        let mut g = GpuBackend::from_state(setup, &grid, &init, ctx)?;
        g.load(saved, None, Some(setup))?;
        Ok(g)
    }

    /// Buffers for `capacity` particles holding the same state, bit for
    /// bit (save, allocate, load; the pipelines are kept).
    pub fn grow_capacity(&mut self, capacity: u64) -> Result<(), GpuError> {
        let saved = self.save_state();
        self.load(&saved, Some(capacity), None)
    }

    /// Replaces the buffers with `saved`'s state, in buffers for
    /// `capacity` particles (None: the count and what the plan can still
    /// insert, [`default_capacity`]). A CPU checkpoint needs the set-up
    /// (its walls' poses).
    pub(crate) fn load(
        &mut self,
        saved: &Saved,
        capacity: Option<u64>,
        setup: Option<&Setup>,
    ) -> Result<(), GpuError> {
        use data::*;
        let bad = GpuError::Checkpoint;
        let sc = &saved.scalars;
        let n = sc.particles as usize;
        let bodies = self.data.n_bodies as usize;
        if sc.inserted.len() != self.flow.inserted.len() {
            return Err(bad(format!(
                "{} [[insert]] counters, the scene has {} entries",
                sc.inserted.len(),
                self.flow.inserted.len()
            )));
        }
        let start: Vec<u32> = saved.array("nbr_start", n + 1).map_err(bad)?;
        let clumps = self.load_clumps(saved, n).map_err(bad)?;
        let nbr: Vec<u32> = saved.array_any("nbr").map_err(bad)?;
        struct Loaded {
            pos: Vec<[f32; 4]>,
            diss: Vec<f32>,
            motion: Vec<Motion<f32>>,
            fx: Vec<FixedWords>,
            pos_ref: Vec<[f32; 4]>,
            hist: Vec<Hist<f32>>,
            /// Control words as saved (a GPU checkpoint).
            ctl: Option<Vec<u32>>,
            poses: Vec<WallPose>,
        }
        let l = match sc.precision {
            Precision::F32 => Loaded {
                pos: saved.array("pos_rad", n).map_err(bad)?,
                diss: saved.array("dissipated", n).map_err(bad)?,
                motion: saved.array("motion", n).map_err(bad)?,
                fx: fixed_words(saved, n).map_err(bad)?,
                pos_ref: saved.array("pos_ref", n).map_err(bad)?,
                hist: saved.hist().map_err(bad)?,
                ctl: Some({
                    // checkpoints before CTL_LARGE hold 16 words: 0 large
                    // rows until the next build (the thread path); before
                    // the kept table (2026-11-28) 17: its words are set
                    // below
                    let mut c: Vec<u32> = saved.array_any("ctl").map_err(bad)?;
                    if c.len() == CTL_KEPT_LEN - 1 {
                        c.push(0);
                    }
                    if c.len() == CTL_KEPT_LEN {
                        c.resize(CTL_LEN, 0);
                    }
                    if c.len() != CTL_LEN {
                        return Err(bad(format!(
                            "section `ctl` holds {} words, expected {CTL_LEN}",
                            c.len()
                        )));
                    }
                    c
                }),
                poses: saved.array("wall_pose", bodies).map_err(bad)?,
            },
            Precision::F64 => {
                let setup = setup.ok_or_else(|| bad("a CPU checkpoint needs its scene".into()))?;
                let pos: Vec<[f64; 4]> = saved.array("pos_rad", n).map_err(bad)?;
                let diss: Vec<f64> = saved.array("dissipated", n).map_err(bad)?;
                let m64: Vec<Motion<f64>> = saved.array("motion", n).map_err(bad)?;
                let pref: Vec<[f64; 3]> = saved.array("pos_ref", n).map_err(bad)?;
                let h64: Vec<Hist> = saved.hist().map_err(bad)?;
                let mut poses = host_poses(setup, saved, self.dt).map_err(bad)?;
                poses.truncate(bodies);
                Loaded {
                    pos: pos.iter().map(|p| p.map(|x| x as f32)).collect(),
                    diss: diss.iter().map(|&x| x as f32).collect(),
                    motion: convert_motion(&m64),
                    fx: pos
                        .iter()
                        .map(|p| self.fixed.encode([p[0], p[1], p[2]]))
                        .collect(),
                    pos_ref: pref
                        .iter()
                        .zip(&pos)
                        .map(|(r, p)| [r[0] as f32, r[1] as f32, r[2] as f32, p[3] as f32])
                        .collect(),
                    hist: h64.iter().map(|h| h.map(|x| x as f32)).collect(),
                    ctl: None,
                    poses,
                }
            }
        };
        if l.hist.len() != nbr.len() || start.last().copied() != Some(nbr.len() as u32) {
            return Err(bad(format!(
                "the neighbour list does not add up ({} entries, {} history, ends at {:?})",
                nbr.len(),
                l.hist.len(),
                start.last()
            )));
        }
        let m = &l.motion;
        let state = Particles::<f32> {
            pos_rad: l.pos.clone(),
            vel_invm: m.iter().map(|r| r[0]).collect(),
            omega_invi: m.iter().map(|r| r[1]).collect(),
            material: m.iter().map(|r| r[2][3].to_bits()).collect(),
            id: m.iter().map(|r| r[3][3].to_bits()).collect(),
            dissipated: l.diss.clone(),
        };
        let cap = capacity
            .unwrap_or_else(|| {
                default_capacity(&self.flow.plan, n as u64, &sc.inserted, self.flow.end)
            })
            .max(n as u64)
            .max(1);
        let init = GpuInit {
            state: &state,
            pos_fx: &l.fx,
            motion: &l.motion,
            list: Some(ListInit {
                start: &start,
                nbr: &nbr,
                hist: &l.hist,
            }),
            capacity: Some(cap),
            clumps: clumps.as_ref(),
        };
        let fstate = self.flow.state_words(&sc.inserted, sc.step);
        debug_assert_eq!(fstate.len(), FS_ENTRIES + 2 * sc.inserted.len());
        let data = Self::allocate(&self.ctx, &self.tables, &self.flow, &init, Some(&fstate))?;
        let mut ctl = match l.ctl {
            Some(c) => c,
            None => {
                let mut c = ctl_init(data.nbr_cap, data.kept_cap, n as u64, sc.next_id).to_vec();
                c[CTL_STEP] = sc.step as u32;
                c[CTL_BUILDS] = sc.builds as u32;
                c[CTL_MAX_OVERLAP] = (sc.max_overlap as f32).to_bits();
                c[CTL_LIST_LEN] = nbr.len() as u32;
                // the first step builds: the CPU's list is its previous
                // list (the history moves over)
                c[CTL_REBUILD] = 1;
                c
            }
        };
        // consistent with the new buffers: running, nothing pending
        ctl[CTL_LIST_CAP] = data.nbr_cap as u32;
        ctl[CTL_LIST_NEED] = 0;
        ctl[CTL_KEPT] = 0;
        ctl[CTL_KEPT_CAP] = data.kept_cap as u32;
        ctl[CTL_KEPT_NEED] = 0;
        ctl[CTL_LOG] = 0;
        for k in [CTL_FROZEN, CTL_ERR_OVERLAP, CTL_ERR_NONFINITE] {
            ctl[k] = NONE;
        }
        let q = &self.ctx.queue;
        q.write_buffer(&data.ctl, 0, bytemuck::cast_slice(&ctl));
        if !l.pos_ref.is_empty() {
            let xyz: Vec<[f32; 3]> = l.pos_ref.iter().map(|r| [r[0], r[1], r[2]]).collect();
            data.pos_ref.write(q, 0, bytemuck::cast_slice(&xyz));
        }
        if !l.poses.is_empty() {
            q.write_buffer(&data.wall_pose, 0, bytemuck::cast_slice(&l.poses));
        }
        // the bonds as the checkpoint has them
        let bonds = crate::bonds::table::Bonds::restore(saved, self.tables.bond_specs.len())
            .map_err(bad)?;
        self.data = data;
        self.rebind();
        self.set_bonds(bonds);
        self.steps = sc.step;
        self.max_overlap = f32::from_bits(ctl[CTL_MAX_OVERLAP]) as f64;
        self.flow.inserted = sc.inserted.clone();
        self.flow.pending = state.id.iter().filter(|&&i| i == NONE).count() as u64;
        self.load_surfaces(saved, setup)
    }
}

impl GpuBackend {
    /// [`crate::backend::Backend::rewall`]: saved, remapped (the GPU's own
    /// words by [`rewall_device_words`]), restored on `setup` on the same
    /// device.
    pub(super) fn rewall_saved(&mut self, setup: &Setup, edit: &WallEdit) -> Result<(), String> {
        let mut saved = self.save_state();
        edit.remap(&mut saved)?;
        rewall_device_words(&mut saved, setup, edit, self.dt)?;
        let pending = self.flow.pending;
        *self = GpuBackend::restore_setup(setup, self.ctx.share(), &saved)
            .map_err(|e| e.to_string())?;
        self.flow.pending = pending;
        Ok(())
    }
}

/// The GPU's own words of a checkpoint after [`WallEdit::remap`]: the
/// control words (the list's new length; the next step rebuilds) and the
/// per-wall pose records, moved with their walls; a fresh wall's (inserted,
/// or with a new motion) is the host's pose at the saved step, from its
/// servo state, build pose and load in the `walls` words.
fn rewall_device_words(
    saved: &mut Saved,
    setup: &Setup,
    edit: &WallEdit,
    dt: f64,
) -> Result<(), String> {
    use super::layout::{CTL_LEN, CTL_LIST_LEN, CTL_REBUILD};
    let len = saved.array_any::<u32>("nbr")?.len() as u32;
    let mut ctl: Vec<u32> = saved.array("ctl", CTL_LEN)?;
    ctl[CTL_REBUILD] = 1;
    ctl[CTL_LIST_LEN] = len;
    saved.set("ctl", &ctl);
    edit.per_body(saved, "wall_pose", std::mem::size_of::<WallPose>())?;
    let host = host_poses(setup, saved, dt)?;
    let mut poses: Vec<WallPose> = saved.array("wall_pose", edit.fresh.len())?;
    for (k, fresh) in edit.fresh.iter().enumerate() {
        if *fresh {
            poses[k] = host[k];
        }
    }
    saved.set("wall_pose", &poses);
    Ok(())
}

/// Every wall's pose record as the host computes it at `saved`'s step:
/// `setup`'s walls with the servo state, build pose and load of `saved`'s
/// `walls` words (what a CPU checkpoint restores onto the GPU, and a wall
/// edit's fresh walls).
fn host_poses(setup: &Setup, saved: &Saved, dt: f64) -> Result<Vec<WallPose>, String> {
    let w: Vec<f64> = saved.array("walls", WALL_WORDS * setup.walls.bodies.len())?;
    let mut set = setup.walls.clone();
    set.set_state_words(&w);
    set.pose_at(saved.scalars.step as f64 * dt);
    Ok(WallTables::new(&set).pose)
}

/// Section `pos_fx` of `n` particles: [`FX_WORDS`] words each, or the 8
/// of a checkpoint written before 2026-11-28 (their padding dropped).
fn fixed_words(saved: &Saved, n: usize) -> Result<Vec<FixedWords>, String> {
    let bytes = saved.section("pos_fx")?;
    if bytes.len() == 32 * n && FX_WORDS != 8 {
        let old: Vec<[u32; 8]> = bytemuck::pod_collect_to_vec(bytes);
        return Ok(old.iter().map(|w| std::array::from_fn(|k| w[k])).collect());
    }
    saved.array("pos_fx", n)
}
