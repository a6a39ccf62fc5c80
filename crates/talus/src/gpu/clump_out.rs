//! The clumps read back from the GPU: the device's table and each row's
//! part (tests, checkpoints), and the clumps as outputs report them.

use super::clump_data::{Clump, MemberRow};
use super::GpuBackend;
use crate::shapes::clumps::{ClumpRow, NONE};
use glam::DQuat;

impl GpuBackend {
    /// The clumps' records in use, as the device holds them (those the
    /// last segment's read counted; records an outlet or a removal freed
    /// among them, their id `NONE`).
    pub fn clump_table(&self) -> Vec<Clump> {
        let c = &self.data.clumps;
        if c.used == 0 {
            return Vec::new();
        }
        self.read_vec(&c.table, c.used)
    }

    /// Each row's part in a clump (set B's order; empty without clumps).
    pub fn member_rows(&self) -> Vec<MemberRow> {
        if !self.data.b.clumped {
            return Vec::new();
        }
        self.read_vec(&self.data.b.clump_row, self.data.n)
    }

    /// The clumps now, as outputs report them, in id order (f64 from the
    /// device's f32; the centre from its fixed point).
    pub fn clump_rows_out(&self) -> Vec<ClumpRow> {
        let table = self.clump_table();
        let mut out: Vec<ClumpRow> = table
            .iter()
            .filter(|r| r.info[0] != NONE)
            .map(|r| row_out(r, &self.shapes, &self.fixed))
            .collect();
        out.sort_by_key(|c| c.id);
        out
    }
}

/// Clump record `r` as outputs report it (`shapes`: the scene's; `fixed`:
/// the run's fixed point, which holds its centre).
pub fn row_out(
    r: &Clump,
    shapes: &[crate::shapes::table::Shape],
    fixed: &super::FixedPoint,
) -> ClumpRow {
    let s = &shapes[r.shape as usize];
    let v3 = |a: [f32; 4]| [a[0] as f64, a[1] as f64, a[2] as f64];
    let q = DQuat::from_array(r.q.map(f64::from)).normalize();
    ClumpRow {
        id: r.info[0],
        shape: r.shape,
        material: r.material,
        pos: fixed.decode(&r.pos_fx),
        vel: v3(r.vel),
        omega: v3(r.omega),
        orientation: crate::shapes::clumps::as_written(s.written_orientation(q)),
        radius: s.max_radius,
    }
}
