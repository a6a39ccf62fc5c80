//! Bonds formed during a GPU run (`[[bonds]]` with `at` > 0): at the
//! start of the step an entry forms at (`bonds::table::Later`), the state
//! is read back and the entry's pairs found among the spheres where they
//! stand, as the CPU path finds them (`bonds::form::pairs_among`, in f64
//! from the exact fixed-point positions); the table grows by them and is
//! uploaded again. One read-back per entry per run, never per step (an
//! advance ends its submissions at such a step: `Later::next`).

use super::bond_data::BondBuffers;
use super::GpuBackend;

impl GpuBackend {
    /// Forms the bonds of the entries whose step is the current one.
    pub(crate) fn form_bonds_due(&mut self) {
        if !self.bond_later.due(self.steps) {
            return;
        }
        let mut table = self.bond_table();
        let p = crate::backend::Backend::snapshot(self);
        let clumps: std::collections::HashSet<u32> = crate::backend::Backend::clumps(self)
            .iter()
            .map(|c| c.id)
            .collect();
        let (mut spheres, mut ids) = (Vec::new(), Vec::new());
        for i in (0..p.len()).filter(|&i| p.id[i] != super::layout::NONE) {
            let clump = clumps.contains(&p.id[i]);
            spheres.push(self.bond_later.sphere(p.pos_rad[i], p.material[i], clump));
            ids.push(p.id[i]);
        }
        self.bond_later.form(self.steps, &mut table, &spheres, &ids);
        self.set_bonds(table);
    }

    /// Makes `table` the device's bonds: new buffers, the count in the
    /// parameters, the kernels bound again, the id → row map filled.
    pub(crate) fn set_bonds(&mut self, table: crate::bonds::table::Bonds) {
        self.data.bonds = BondBuffers::new(&self.ctx, &table, &self.tables.bond_specs);
        self.tables.params.dims[1] = table.len() as u32;
        let at = std::mem::offset_of!(super::layout::Params, dims) as u64 + 4;
        self.ctx.queue.write_buffer(
            &self.data.params,
            at,
            bytemuck::bytes_of(&(table.len() as u32)),
        );
        self.tables.bonds = table;
        self.binds.bonds = self.pipes.bonds.bind(&self.ctx, &self.data);
        // the new map, for the rows as they stand (later builds follow them)
        if let Some(b) = &self.binds.bonds {
            self.submit("bond rows", |pass| {
                self.pipes.bonds.encode_rows_now(b, pass, &self.data)
            });
        }
    }
}
