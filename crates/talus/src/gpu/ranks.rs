//! What a run on several ranks asks of the GPU backend
//! (`dist::gpu_rank`): a step in two submissions with the host's exchanges
//! after each (the walls' load sums of every rank added between them; the
//! errors, the rebuild test and the ghosts' rows after the second), the
//! load sums read and written, a pouring batch's check, and the step
//! counted on the host. Nothing
//! here runs on one device alone.

use super::data::{surf_force_words, CTL_LEN, CTL_LOG, CTL_MAX_OVERLAP, CTL_STEP};
use super::layout::WALL_ACC_WORDS;
use super::layout::{FlowRecord, InsertBatch};
use super::pages::Readable;
use super::GpuBackend;
use crate::backend::RunError;
use crate::backend::Stage;
use crate::checkpoint::Saved;

/// The ghosts' bind groups and how many particles a list holds.
pub type GhostPass<'a> = (&'a (wgpu::BindGroup, wgpu::BindGroup), u64);

impl GpuBackend {
    /// Part one of a step on a rank: the rows received at the last step
    /// written into the ghosts (`unpack`), the step armed from the
    /// device's flags (the host may have set the rebuild flag), the build
    /// (no workgroup unless this step rebuilds) and `wall_loads`: this
    /// rank's partial exact sums of the walls' loads.
    pub fn rank_submit_build(&mut self, unpack: Option<GhostPass>) {
        // the surfaces posed at this step first, after a load or an
        // exchange (as `advance`'s next submission)
        let repose = std::mem::take(&mut self.repose_surfaces);
        self.submit("rank step: build", |pass| {
            if repose {
                let p = &self.pipes.surfaces;
                p.encode_move(&self.binds.surfaces, pass, &self.data);
            }
            if let Some((g, n)) = unpack {
                self.pipes.ghosts.encode(pass, false, g, n);
            }
            self.encode_arm(pass);
            let (p, b, d) = (&self.pipes, &self.binds, &self.data);
            p.bin.encode(&b.bin, pass, d);
            self.encode_stage(Stage::Sort, pass);
            self.encode_stage(Stage::Neighbours, pass);
            p.contacts.encode_loads(&b.contacts, pass, d);
        });
    }

    /// Part two: the walls' sums (every rank's, written by the host) into
    /// their poses, the pairs, integration, the owned particles that other
    /// ranks hold copies of packed into rows (`pack`), and `finish_step`
    /// (the step counted, the walls moved).
    pub fn rank_submit_step(&self, pack: Option<GhostPass>) {
        self.submit("rank step", |pass| {
            let (p, b, d) = (&self.pipes, &self.binds, &self.data);
            p.contacts.encode_pairs(&b.contacts, pass, d);
            p.integrate.encode_particles(&b.integrate, pass, d);
            // the clumps this rank owns, and their members re-posed, before
            // the members' rows are packed for the ranks holding copies
            if let Some(c) = &b.clumps {
                p.clumps.encode_step(c, pass, d);
            }
            if let Some((g, n)) = pack {
                p.ghosts.encode(pass, true, g, n);
            }
            if p.integrate
                .encode_finish(&b.integrate, (&p.surfaces, &b.surfaces), pass, d)
            {
                self.encode_arm(pass);
            }
        });
    }

    /// Words of the walls' exact load sums (`wall_acc`).
    pub fn wall_acc_len(&self) -> u64 {
        WALL_ACC_WORDS as u64 * self.data.n_bodies
    }

    /// Grows the staging buffer to read `bytes` in one batch.
    pub fn reserve_read(&mut self, bytes: u64) {
        self.data.reserve_staging(&self.ctx, bytes + 256);
    }

    /// Reads the control words and the leading `words` u32 of each of
    /// `more`, in one wait (after [`GpuBackend::reserve_read`] for more
    /// than the staging buffer holds, else in batches).
    pub fn read_ctl_and(&self, more: &[(&dyn Readable, u64)]) -> (Vec<u32>, Vec<Vec<u32>>) {
        let mut parts: Vec<(&dyn Readable, u64)> = vec![(&self.data.ctl, 4 * CTL_LEN as u64)];
        parts.extend(more.iter().map(|&(b, w)| (b, 4 * w)));
        let mut words: Vec<Vec<u32>> = self
            .read(&parts)
            .iter()
            .map(|b| bytemuck::pod_collect_to_vec(b))
            .collect();
        let ctl = words.remove(0);
        (ctl, words)
    }

    /// Writes control words (`(CTL_*, value)`), queued before the next
    /// submission.
    pub fn set_ctl(&self, words: &[(usize, u32)]) {
        self.write_ctl(words);
    }

    /// After a rank's step: counted on the host, with the run's largest
    /// overlap ratio (every rank's) on the device and here.
    pub fn rank_stepped(&mut self, max_overlap: f32) {
        self.steps += 1;
        self.max_overlap = max_overlap as f64;
        self.write_ctl(&[(CTL_MAX_OVERLAP, max_overlap.to_bits())]);
    }

    /// Sets the step whose contacts reduce the wall loads (the last of an
    /// advance) and clears the forces the last one kept, as `advance` does
    /// before its steps.
    pub fn rank_start_advance(&mut self, loads_at: u64) {
        self.clear_kept_forces();
        self.write_ctl(&[(super::data::CTL_LOADS_AT, loads_at as u32)]);
    }

    /// Pouring on a rank: whether each candidate of a batch (`pos`: its
    /// centres and radii) is free of every particle the device holds
    /// (owned, ghosts, and what the step's earlier batches put in), by
    /// the serial run's `insert_check`; the ghosts' rows of the last step
    /// written first when `unpack` says so. One submission and one read.
    pub fn rank_check(&mut self, unpack: Option<GhostPass>, pos: &[[f64; 4]]) -> Vec<bool> {
        let c = pos.len() as u64;
        if self.data.reserve_flow(&self.ctx, c, 0, 1, 0) {
            self.rebind_flow();
        }
        let p32: Vec<[f32; 4]> = pos.iter().map(|p| p.map(|x| x as f32)).collect();
        let batch = InsertBatch::spheres(0, 0, c as u32, 0, 0, 0, 0);
        let (q, f) = (&self.ctx.queue, &self.data.flow);
        q.write_buffer(&f.cand_pos, 0, bytemuck::cast_slice(&p32));
        q.write_buffer(&f.batches, 0, bytemuck::bytes_of(&batch));
        let at = (4 * super::data::FS_CURSOR) as u64;
        q.write_buffer(&f.state, at, bytemuck::bytes_of(&0u32));
        self.submit("rank pour: check", |pass| {
            if let Some((g, n)) = unpack {
                self.pipes.ghosts.encode(pass, false, g, n);
            }
            self.pipes.flow.encode_check(&self.binds.flow, pass, c);
        });
        let slot: Vec<u32> = self.read_vec(&self.data.flow.cand_slot, c);
        slot.iter().map(|&s| s == 1).collect()
    }

    /// Whether a wall has a servo (every step then reduces the loads).
    pub fn has_servo(&self) -> bool {
        self.tables.params.nbr[2] != 0.0
    }

    /// After a load: room in the flow log for every particle's removal
    /// (each is logged once before the next migration drops it).
    pub fn rank_loaded(&mut self) {
        let log = self.data.n + 16;
        if self.data.reserve_flow(&self.ctx, 0, 0, 0, log) {
            self.rebind_flow();
        }
    }

    /// After a rank's step (`ctl`, its control words): the flow log's
    /// records (the outlets' removals of this rank's particles) turned into
    /// events and the cursor reset; the removals of this step pending
    /// until the next migration drops them.
    pub fn rank_take_log(&mut self, ctl: &[u32]) {
        let logged = ctl[CTL_LOG] as u64;
        let records: Vec<FlowRecord> = if logged > 0 {
            assert!(
                logged <= self.data.flow.log_cap,
                "flow log overflow: {logged} records, room for {}",
                self.data.flow.log_cap
            );
            let bytes = logged * std::mem::size_of::<FlowRecord>() as u64;
            self.data.reserve_staging(&self.ctx, bytes);
            self.write_ctl(&[(CTL_LOG, 0)]);
            self.read_vec(&self.data.flow.log, logged)
        } else {
            Vec::new()
        };
        self.flow.take_log(&records, ctl[CTL_STEP] as u64);
    }

    /// This rank's grains' forces on the surfaces' nodes since the
    /// interval began (the force words: 64-bit fixed point per component,
    /// then the error word).
    pub fn surf_force_now(&mut self) -> Vec<u32> {
        let words = surf_force_words(self.data.n_surf_nodes);
        self.reserve_read(4 * words);
        self.read_vec(&self.data.surf_force, words)
    }

    /// At a multiple of K on a rank, with every rank's force words added
    /// ([`add_force_words`]): the bodies advance and the surfaces' next
    /// interval goes up, as `advance`'s exchange does.
    pub fn rank_exchange(&mut self, step: u64, words: &[u32]) -> Result<(), RunError> {
        self.exchange(step, words)
    }

    /// A checkpoint gathered from the ranks: the surfaces' force words
    /// (and their portable words) are every rank's, `words`.
    pub fn rank_saved_surfaces(&self, s: &mut Saved, words: &[u32]) {
        if self.bodies.is_none() {
            return;
        }
        let nodes = s
            .section("surf_nodes")
            .expect("the surfaces' nodes")
            .to_vec();
        let force: &[u8] = bytemuck::cast_slice(words);
        s.set("surfaces", &self.surfaces_words(&nodes, force));
        s.set("surf_force", words);
    }
}

/// Several ranks' surface force words added: each 64-bit fixed-point sum
/// with wrapping (exact: the same bits as one device's atomics), the error
/// words or'ed.
pub fn add_force_words(all: &[Vec<u32>]) -> Vec<u32> {
    let mut out = all[0].clone();
    let pairs = (out.len() - 1) / 2;
    for a in &all[1..] {
        for k in 0..pairs {
            let x = (out[2 * k] as u64 | (out[2 * k + 1] as u64) << 32)
                .wrapping_add(a[2 * k] as u64 | (a[2 * k + 1] as u64) << 32);
            out[2 * k] = x as u32;
            out[2 * k + 1] = (x >> 32) as u32;
        }
        let e = out.len() - 1;
        out[e] |= a[e];
    }
    out
}

impl GpuBackend {
    /// A pouring batch's clumps on a rank (`dist::gpu_rank`): clumps of
    /// shape `shape` at `add`'s centres (their velocities, 1/M, material)
    /// in `orientation` (as written), with the serial ids and rows, made
    /// on the host as `GpuFlow::window` makes them for the device (so the
    /// same f32 words), the motion records started under `gravity`. The
    /// clumps `owned` marks become this rank's (records in its table); the
    /// others' member rows are marked `GHOST`, rows of no clump here (the
    /// step's next batch is checked against them; the migration that
    /// follows drops them). Returns the ids.
    pub(crate) fn rank_insert_clumps(
        &mut self,
        shape: usize,
        add: &crate::state::Particles<f64>,
        orientation: &[[f64; 4]],
        gravity: [f64; 3],
        owned: &[bool],
    ) -> Result<std::ops::Range<u32>, super::GpuError> {
        use super::data::{CTL_COUNT, CTL_NEXT_ID, FS_CLUMPS};
        use super::layout::{MemberRow, GHOST};
        use crate::shapes::clumps::NONE;
        let ctl = self.ctl();
        let sh = &self.shapes[shape];
        let m = sh.members.len() as u64;
        let (n, k) = (ctl[CTL_COUNT] as u64, add.len() as u64);
        let c = &self.data.clumps;
        let mine = owned.iter().filter(|&&o| o).count() as u64;
        if n + k * m > self.data.cap
            || c.used + mine > c.count
            || c.rows_used + mine * m > c.rows_cap
        {
            return Err(super::GpuError::TooLarge(format!(
                "{} rows and {} clumps: the rank's buffers hold {} and {}",
                n + k * m,
                c.used + mine,
                self.data.cap,
                c.count
            )));
        }
        let next = ctl[CTL_NEXT_ID];
        let grid = self.grid;
        let poured = crate::shapes::pour::pour(
            sh,
            shape,
            add,
            orientation,
            next,
            n as u32,
            gravity,
            self.dt,
            |x| grid.wrap(x),
        );
        let fixed = self.fixed;
        // the owned clumps' table entries, in order; the others' none
        let mut slot = vec![NONE; add.len()];
        let mine_slots = slot.iter_mut().zip(owned).filter(|(_, &o)| o);
        for (s, (sl, _)) in (c.used as u32..).zip(mine_slots) {
            *sl = s;
        }
        let init =
            super::clump_data::ClumpInit::of_poured(&poured, &self.shapes, |x| fixed.encode(x));
        let mut table = Vec::new();
        let mut rows_table = Vec::new();
        for (j, rec) in init.table.iter().enumerate() {
            if slot[j] == NONE {
                continue;
            }
            let mut r = *rec;
            r.info[1] = (c.rows_used + rows_table.len() as u64) as u32;
            table.push(r);
            rows_table.extend((0..m).map(|i| (n + j as u64 * m + i) as u32));
        }
        let parts: Vec<MemberRow> = init
            .row
            .iter()
            .enumerate()
            .map(|(r, part)| MemberRow {
                body: slot[r / m as usize],
                ..*part
            })
            .collect();
        let mut motion: Vec<crate::state::Motion<f32>> =
            crate::state::convert_motion(&poured.motion);
        for (r, mo) in motion.iter_mut().enumerate() {
            if slot[r / m as usize] == NONE {
                mo[2][3] = f32::from_bits(mo[2][3].to_bits() | GHOST);
            }
        }
        let (q, d) = (&self.ctx.queue, &self.data);
        let size = std::mem::size_of::<super::clump_data::Clump>() as u64;
        let c = &d.clumps;
        if !table.is_empty() {
            q.write_buffer(&c.table, size * c.used, bytemuck::cast_slice(&table));
            q.write_buffer(&c.rows, 4 * c.rows_used, bytemuck::cast_slice(&rows_table));
        }
        let used = [
            (c.used + table.len() as u64) as u32,
            (c.rows_used + rows_table.len() as u64) as u32,
        ];
        q.write_buffer(
            &d.flow.state,
            4 * FS_CLUMPS as u64,
            bytemuck::cast_slice(&used),
        );
        self.data.clumps.used = used[0] as u64;
        self.data.clumps.rows_used = used[1] as u64;
        let ids = next..next + k as u32;
        let f = poured.rows.to_f32();
        self.append_rows(&ctl, &poured.rows, &f, &motion, Some(&parts), ids.end);
        Ok(ids)
    }
}
