//! The bonds' buffers on the device (`gpu::bonds` runs the kernels over
//! them): the scene's `[[bonds]]` entries, the bond table (`Bond`, 48 B
//! each: ids, entry and status, length, what it carries) and the id → row
//! map; and the conversions between the table and the host's
//! `bonds::table::Bonds`.

use super::context::GpuContext;
use super::layout::{Bond, BondSpecGpu};
use crate::bonds::table::{state_of, state_words, Bonds, Status};
use crate::scene::types::BondSpec;
use wgpu::util::DeviceExt;

/// The device's bonds: the scene's entries, the table, each id's row (one
/// element each when the run has none).
pub struct BondBuffers {
    pub specs: wgpu::Buffer,
    pub table: wgpu::Buffer,
    pub row_of: wgpu::Buffer,
    /// Bonds in the table (`Params::dims[1]`).
    pub count: u64,
}

/// The device's record of a `[[bonds]]` entry.
pub fn spec_gpu(s: &BondSpec) -> BondSpecGpu {
    BondSpecGpu {
        k: [
            s.youngs_modulus as f32,
            s.stiffness_ratio as f32,
            s.radius_ratio as f32,
            s.damping as f32,
        ],
        strength: [
            s.tensile_strength.map_or(-1.0, |x| x as f32),
            s.shear_strength.map_or(-1.0, |x| x as f32),
            0.0,
            0.0,
        ],
    }
}

/// The device's rows of `t` (f32).
pub fn table_gpu(t: &Bonds) -> Vec<Bond> {
    (0..t.len())
        .map(|k| {
            let w = state_words(&t.state[k]).map(|x| x as f32);
            Bond {
                ids: t.ids[k],
                info: t.spec[k] | (t.status[k].code() << 16),
                length: t.length[k] as f32,
                shear_normal: [w[1], w[2], w[3], w[0]],
                bend_twist: [w[5], w[6], w[7], w[4]],
            }
        })
        .collect()
}

/// `host` (ids, entries, lengths and radii: what the device does not
/// change) with the state and status of the device's rows `rows`.
pub fn table_from(host: &Bonds, rows: &[Bond]) -> Bonds {
    let mut t = host.clone();
    for (k, b) in rows.iter().enumerate().take(t.len()) {
        let (s, m) = (b.shear_normal.map(f64::from), b.bend_twist.map(f64::from));
        t.state[k] = state_of(&[s[3], s[0], s[1], s[2], m[3], m[0], m[1], m[2]]);
        t.status[k] = Status::of(b.info >> 16).unwrap_or(Status::Gone);
    }
    t
}

impl BondBuffers {
    /// The buffers of table `t` under `specs`, the map for ids below
    /// the largest bonded one.
    pub fn new(ctx: &GpuContext, t: &Bonds, specs: &[BondSpecGpu]) -> BondBuffers {
        let dev = &ctx.device;
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let init = |label: &str, bytes: &[u8]| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: storage,
            })
        };
        let rows = table_gpu(t);
        let one_bond = [Bond::default()];
        let one_spec = [BondSpecGpu::default()];
        let ids = t.ids.iter().map(|i| i[1] as u64 + 1).max().unwrap_or(1);
        BondBuffers {
            specs: init(
                "bond_specs",
                bytemuck::cast_slice(if specs.is_empty() { &one_spec } else { specs }),
            ),
            table: init(
                "bond_table",
                bytemuck::cast_slice(if rows.is_empty() { &one_bond } else { &rows }),
            ),
            row_of: init(
                "bond_row_of",
                bytemuck::cast_slice(&vec![u32::MAX; ids as usize]),
            ),
            count: t.len() as u64,
        }
    }
}
