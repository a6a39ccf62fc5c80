//! The clumps' buffers on the GPU (`gpu::clumps` has their kernels): the
//! clumps' table (one [`Clump`] record each: f32 state, the centre in the
//! particles' fixed point), the rows table (each clump's member rows in
//! member order), every shape's members, and what each row's
//! [`MemberRow`] starts as (its clump, member index and lever).

use super::context::{GpuContext, GpuError};
pub use super::layout::{Clump, FixedWords, MemberRow};
use crate::shapes::clumps::{lever, Clumps, NONE};
use crate::shapes::table::Shape;
use glam::{DQuat, DVec3};
use wgpu::util::DeviceExt;

/// What a run with clumps starts its buffers from (the twin of the CPU's
/// `Step::clumps` and the rows' `Work::body`, `member`, `lever`).
#[derive(Debug, Clone, Default)]
pub struct ClumpInit {
    /// One record per clump, in the host's order.
    pub table: Vec<Clump>,
    /// Clump k's member rows: `rows[info.y..info.y + info.w]`.
    pub rows: Vec<u32>,
    /// Every shape's members (offset in the principal frame, radius), the
    /// shapes one after the other.
    pub members: Vec<[f32; 4]>,
    /// Each row's part (in the state's row order).
    pub row: Vec<MemberRow>,
}

fn f4(v: DVec3, w: f32) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, w]
}

fn q4(q: DQuat) -> [f32; 4] {
    [q.x as f32, q.y as f32, q.z as f32, q.w as f32]
}

impl ClumpInit {
    /// No clumps yet among `n` rows of spheres, the members table of
    /// `shapes`: a run that pours its clumps.
    pub fn spheres(n: usize, shapes: &[Shape]) -> ClumpInit {
        ClumpInit {
            table: Vec::new(),
            rows: Vec::new(),
            members: members_table(shapes).1,
            row: vec![MemberRow::SPHERE; n],
        }
    }

    /// From the host's clumps (`c`, f64) and each row's clump and member
    /// (`body`, `member`) over `shapes`, the centres in the particles'
    /// fixed point (`encode`: `data::FixedPoint::encode`). None when there
    /// are no clumps.
    pub fn new(
        c: &Clumps,
        body: &[u32],
        member: &[u32],
        shapes: &[Shape],
        encode: impl Fn([f64; 3]) -> FixedWords,
    ) -> Option<ClumpInit> {
        if c.is_empty() {
            return None;
        }
        let (first_member, members) = members_table(shapes);
        let table = (0..c.len())
            .map(|k| {
                let s = c.shape[k] as usize;
                Clump {
                    vel: f4(c.vel[k], c.inv_mass[k] as f32),
                    vel_half: f4(c.vel_half[k], 0.0),
                    q: q4(c.q[k]),
                    q_prev: q4(c.q_prev[k]),
                    l_half: f4(c.l_half[k], 0.0),
                    omega: f4(c.omega[k], c.max_inv_moment(k) as f32),
                    moments: f4(c.moments[k], 0.0),
                    turn: [0.0; 4],
                    force: [0.0; 4],
                    torque: [0.0; 4],
                    info: [
                        c.id[k],
                        c.first[k],
                        first_member[s],
                        shapes[s].members.len() as u32,
                    ],
                    pos_fx: encode(c.pos[k].to_array()),
                    shape: c.shape[k],
                    material: c.material[k],
                }
            })
            .collect();
        let inv: Vec<glam::DMat3> = (0..c.len()).map(|k| c.world_inverse_inertia(k)).collect();
        let row = body
            .iter()
            .zip(member)
            .map(|(&k, &m)| {
                if k == NONE {
                    return MemberRow::SPHERE;
                }
                let b = shapes[c.shape[k as usize] as usize].members[m as usize];
                let arm = c.q[k as usize] * DVec3::new(b[0], b[1], b[2]);
                let s = lever(arm, inv[k as usize]).map(|x| x as f32);
                MemberRow {
                    lever_a: [s[0], s[1], s[2], s[3]],
                    lever_b: [s[4], s[5]],
                    body: k,
                    member: m,
                }
            })
            .collect();
        Some(ClumpInit {
            table,
            rows: c.rows.clone(),
            members,
            row,
        })
    }
}

impl ClumpInit {
    /// A pouring batch's clumps (`shapes::pour`: members in rows `c·m..`,
    /// m the shape's members), the centres in the particles' fixed point.
    pub fn of_poured(
        poured: &crate::shapes::pour::Poured,
        shapes: &[Shape],
        encode: impl Fn([f64; 3]) -> FixedWords,
    ) -> ClumpInit {
        let m = shapes[poured.clumps.shape[0] as usize].members.len() as u32;
        let body: Vec<u32> = (0..poured.rows.len() as u32).map(|r| r / m).collect();
        ClumpInit::new(&poured.clumps, &body, &poured.member, shapes, encode)
            .expect("a batch of clumps")
    }
}

/// Every shape's members one shape after the other (offset in its
/// principal frame, radius; f32), and where each shape's start: the
/// members table the kernels read (`Clump::info` z, w).
pub fn members_table(shapes: &[Shape]) -> (Vec<u32>, Vec<[f32; 4]>) {
    let mut first = Vec::with_capacity(shapes.len());
    let mut members = Vec::new();
    for s in shapes {
        first.push(members.len() as u32);
        members.extend(s.members.iter().map(|m| m.map(|x| x as f32)));
    }
    (first, members)
}

/// A record of the table no clump holds yet (pouring fills it), or whose
/// clump is gone: no kernel moves or counts it.
pub const FREE: Clump = Clump {
    vel: [0.0; 4],
    vel_half: [0.0; 4],
    q: [0.0, 0.0, 0.0, 1.0],
    q_prev: [0.0, 0.0, 0.0, 1.0],
    l_half: [0.0; 4],
    omega: [0.0; 4],
    moments: [1.0, 1.0, 1.0, 0.0],
    turn: [0.0; 4],
    force: [0.0; 4],
    torque: [0.0; 4],
    info: [NONE, 0, 0, 0],
    pos_fx: [0; super::layout::FX_WORDS],
    shape: 0,
    material: 0,
};

/// The clumps' buffers (one record of room each in a run without clumps:
/// a binding holds at least one).
pub struct ClumpBuffers {
    /// Records of the table (`Params::dims[0]`: the clump kernels run
    /// over them all, skipping free ones), and entries of the rows table.
    pub count: u64,
    pub rows_cap: u64,
    /// Records and rows-table entries in use (the host's copy of the
    /// device's `fstate` counters, as the last segment's read saw them):
    /// pouring appends after them.
    pub used: u64,
    pub rows_used: u64,
    pub table: wgpu::Buffer,
    pub rows: wgpu::Buffer,
    pub members: wgpu::Buffer,
}

impl ClumpBuffers {
    /// `init`'s clumps with room for `room` more records and `room_rows`
    /// more rows-table entries (pouring's). Refuses, in one line, a table
    /// larger than one binding.
    pub fn new(
        ctx: &GpuContext,
        init: Option<&ClumpInit>,
        room: u64,
        room_rows: u64,
    ) -> Result<ClumpBuffers, GpuError> {
        let empty = ClumpInit::default();
        let c = init.unwrap_or(&empty);
        let records = c.table.len() as u64 + room;
        let bytes = records * std::mem::size_of::<Clump>() as u64;
        if bytes > ctx.max_binding() {
            return Err(GpuError::TooLarge(format!(
                "{records} clumps take {bytes} bytes, more than one binding of {} holds ({} bytes): use --backend cpu",
                ctx.info.name,
                ctx.max_binding()
            )));
        }
        let mut table = c.table.clone();
        table.resize(records as usize, FREE);
        let mut rows = c.rows.clone();
        rows.resize(c.rows.len() + room_rows as usize, 0);
        let init = |label: &str, bytes: &[u8]| {
            // no zero-sized binding: one record of room (never read)
            let pad = [0u8; std::mem::size_of::<Clump>()];
            let contents = if bytes.is_empty() { &pad[..] } else { bytes };
            ctx.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: super::pages::STORAGE,
                })
        };
        Ok(ClumpBuffers {
            count: records,
            rows_cap: rows.len() as u64,
            used: c.table.len() as u64,
            rows_used: c.rows.len() as u64,
            table: init("clumps", bytemuck::cast_slice(&table)),
            rows: init("clump rows", bytemuck::cast_slice(&rows)),
            members: init("shape members", bytemuck::cast_slice(&c.members)),
        })
    }
}
