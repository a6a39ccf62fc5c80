//! Bonds formed during a GPU run (`[[bonds]]` with `at` > 0): at the
//! start of the step an entry forms at (`bonds::table::later`), the state
//! is read back and the entry's pairs found among the spheres where they
//! stand, as the CPU path finds them (`bonds::form::pairs_among`, in f64
//! from the exact fixed-point positions); the table grows by them and is
//! uploaded again. One read-back per entry per run, never per step (an
//! advance ends its submissions at such a step: `next_formation`).

use super::bond_data::BondBuffers;
use super::GpuBackend;
use crate::bonds::form::Sphere;
use crate::bonds::table::later;

impl GpuBackend {
    /// The first step after `step` (or at it) that forms bonds, if any.
    pub(crate) fn next_formation(&self, step: u64) -> Option<u64> {
        self.bond_later
            .iter()
            .map(|&(_, n)| n)
            .filter(|&n| n >= step)
            .min()
    }

    /// Forms the bonds of the entries whose step is the current one.
    pub(crate) fn form_bonds_due(&mut self) {
        let now = self.steps;
        let due: Vec<usize> = self
            .bond_later
            .iter()
            .filter(|&&(_, n)| n == now)
            .map(|&(k, _)| k)
            .collect();
        if due.is_empty() {
            return;
        }
        let mut table = self.bond_table();
        let p = crate::backend::Backend::snapshot(self);
        let clumps: std::collections::HashSet<u32> = crate::backend::Backend::clumps(self)
            .iter()
            .map(|c| c.id)
            .collect();
        let (mut spheres, mut ids) = (Vec::new(), Vec::new());
        for i in 0..p.len() {
            if p.id[i] == super::layout::NONE {
                continue;
            }
            let x = p.pos_rad[i];
            spheres.push(Sphere {
                position: [x[0], x[1], x[2]],
                radius: x[3],
                material: self.bond_base[p.material[i] as usize],
                clump: clumps.contains(&p.id[i]),
            });
            ids.push(p.id[i]);
        }
        let specs = self.bond_specs_host.clone();
        for k in due {
            table.form(k, &specs[k], &spheres, &ids);
        }
        self.set_bonds(table);
    }

    /// Makes `table` the device's bonds: new buffers, the count in the
    /// parameters, the kernels bound again.
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
    }

    /// The entries of `setup` that form bonds during the run.
    pub(crate) fn bonds_later(setup: &crate::setup::Setup) -> Vec<(usize, u64)> {
        later(&setup.scene.bonds, setup.dt)
    }
}
