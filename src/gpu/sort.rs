//! Stage 2, sort (`shaders/sort.wgsl`, `shaders/reorder.wgsl`): multi-level
//! exclusive scan of the counts, scatter into cell order, per-cell sort by
//! index, and the gather of set A into set B in that order.

use super::bin::{BinBinds, BinKernels};
use super::context::GpuContext;
use super::data::GpuData;
use super::kernel::{dispatch, Access, Kernel, R, RW, U};

pub struct SortKernels {
    pub scan_block: Kernel,
    pub scan_add: Kernel,
    pub scatter: Kernel,
    pub sort_cells: Kernel,
    pub reorder_state: Kernel,
    pub reorder_history: Kernel,
}

pub struct SortBinds {
    pub common: wgpu::BindGroup,
    /// Per level: (scan_block group, scan_add group or None for the top).
    pub levels: Vec<(wgpu::BindGroup, Option<wgpu::BindGroup>)>,
    pub scatter: wgpu::BindGroup,
    pub reorder_common: wgpu::BindGroup,
    pub reorder_state: wgpu::BindGroup,
    pub reorder_history: wgpu::BindGroup,
}

const G0: &[Access] = &[U, R];
const SCAN: &[Access] = &[U, R, RW, RW];
const SCATTER: &[Access] = &[R, R, RW, RW];

impl SortKernels {
    pub fn new(ctx: &GpuContext, sort: &wgpu::ShaderModule, reorder: &wgpu::ShaderModule) -> Self {
        let rg0: &[Access] = &[U, R, R];
        let state: &[Access] = &[R, R, R, R, R, R, RW, RW, RW, RW, RW, RW, R, RW];
        let hist: &[Access] = &[R, R, R, R, RW, RW, RW, RW];
        SortKernels {
            scan_block: Kernel::new(ctx, sort, "scan_block", &[G0, SCAN]),
            scan_add: Kernel::new(ctx, sort, "scan_add", &[G0, SCAN]),
            scatter: Kernel::new(ctx, sort, "scatter", &[G0, &[], SCATTER]),
            sort_cells: Kernel::new(ctx, sort, "sort_cells", &[G0, &[], SCATTER]),
            reorder_state: Kernel::new(ctx, reorder, "reorder_state", &[rg0, state]),
            reorder_history: Kernel::new(ctx, reorder, "reorder_history", &[rg0, &[], hist]),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> SortBinds {
        let mut levels = Vec::new();
        for (l, lv) in d.scan.iter().enumerate() {
            let (src, dst) = if l == 0 {
                (&d.counts, &d.starts)
            } else {
                (
                    &d.scan[l - 1].sums,
                    d.scan[l - 1]
                        .scanned
                        .as_ref()
                        .expect("level above has a scan"),
                )
            };
            let block = self
                .scan_block
                .bind(ctx, 1, &[&lv.params, src, dst, &lv.sums]);
            let add = lv.scanned.as_ref().map(|next| {
                // dst += scan of the block totals of this level
                self.scan_add
                    .bind(ctx, 1, &[&lv.params, next, dst, &lv.sums])
            });
            levels.push((block, add));
        }
        let (a, b) = (&d.a, &d.b);
        SortBinds {
            common: self.scan_block.bind(ctx, 0, &[&d.params, &d.ctl]),
            levels,
            scatter: self
                .scatter
                .bind(ctx, 2, &[&d.keys, &d.starts, &d.counts, &d.order]),
            reorder_common: self
                .reorder_state
                .bind(ctx, 0, &[&d.params, &d.ctl, &d.order]),
            reorder_state: self.reorder_state.bind(
                ctx,
                1,
                &[
                    &a.pos,
                    &a.vel,
                    &a.omega,
                    &a.material,
                    &a.id,
                    &a.diss,
                    &b.pos,
                    &b.vel,
                    &b.omega,
                    &b.material,
                    &b.id,
                    &b.diss,
                    &a.pos_fx,
                    &b.pos_fx,
                ],
            ),
            reorder_history: self.reorder_history.bind(
                ctx,
                2,
                &[
                    &a.fprev, &a.tprev, &a.hkey, &a.hdisp, &b.fprev, &b.tprev, &b.hkey, &b.hdisp,
                ],
            ),
        }
    }

    /// Scan only (counts → starts), for the integer-stage tests.
    pub fn encode_scan(&self, s: &SortBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        for (l, lv) in d.scan.iter().enumerate() {
            dispatch(
                pass,
                &self.scan_block,
                &[(0, &s.common), (1, &s.levels[l].0)],
                lv.len,
            );
        }
        for l in (0..d.scan.len()).rev() {
            if let Some(add) = &s.levels[l].1 {
                dispatch(
                    pass,
                    &self.scan_add,
                    &[(0, &s.common), (1, add)],
                    d.scan[l].len,
                );
            }
        }
    }

    /// Scan, scatter and per-cell sort: `order` holds the cell order.
    pub fn encode_order(
        &self,
        s: &SortBinds,
        bin: &BinKernels,
        bb: &BinBinds,
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        self.encode_scan(s, pass, d);
        bin.encode_clear(bb, pass, d);
        dispatch(pass, &self.scatter, &[(0, &s.common), (2, &s.scatter)], d.n);
        dispatch(
            pass,
            &self.sort_cells,
            &[(0, &s.common), (2, &s.scatter)],
            d.n_cells,
        );
    }

    /// The whole stage: order, then gather A → B.
    pub fn encode(
        &self,
        s: &SortBinds,
        bin: &BinKernels,
        bb: &BinBinds,
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        self.encode_order(s, bin, bb, pass, d);
        dispatch(
            pass,
            &self.reorder_state,
            &[(0, &s.reorder_common), (1, &s.reorder_state)],
            d.n,
        );
        dispatch(
            pass,
            &self.reorder_history,
            &[(0, &s.reorder_common), (2, &s.reorder_history)],
            d.n,
        );
    }
}
