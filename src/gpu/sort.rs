//! Stage 2, sort (`shaders/sort.wgsl`, `shaders/reorder.wgsl`): multi-level
//! exclusive scan of the counts, scatter into cell order, per-cell sort by
//! index, the gather of the working set B into the scratch set A in that
//! order, and the copy back. Runs only on steps that rebuild the neighbour
//! list (every kernel checks `ctl`). The scan also serves the list.

use super::bin::{BinBinds, BinKernels};
use super::context::GpuContext;
use super::data::{GpuData, ScanLevel};
use super::kernel::{dispatch_rebuild, Access, Kernel, KernelDecl, R, RW, U};

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
    /// The scan of the cell counts.
    pub levels: ScanBinds,
    pub scatter: wgpu::BindGroup,
    pub reorder_common: wgpu::BindGroup,
    /// B → A in cell order.
    pub reorder_state: wgpu::BindGroup,
    pub reorder_history: wgpu::BindGroup,
    /// A → B through the identity order (the copy back).
    pub copy_common: wgpu::BindGroup,
    pub copy_state: wgpu::BindGroup,
    pub copy_history: wgpu::BindGroup,
}

/// Per level of a scan: (scan_block group, scan_add group or None for the top).
pub type ScanBinds = Vec<(wgpu::BindGroup, Option<wgpu::BindGroup>)>;

const G0: &[Access] = &[U, R];
const SCAN: &[Access] = &[U, R, RW, RW];
const SCATTER: &[Access] = &[R, R, RW, RW];

fn refs(v: &[wgpu::Buffer]) -> Vec<&wgpu::Buffer> {
    v.iter().collect()
}

impl SortKernels {
    /// `scan_block`, `scan_add`, `scatter`, `sort_cells` (sort.wgsl),
    /// `reorder_state`, `reorder_history` (reorder.wgsl).
    pub const DECLS: [KernelDecl; 6] = {
        const RG0: &[Access] = &[U, R, R];
        const STATE: &[Access] = &[R, R, R, R, R, R, RW, RW, RW, RW, RW, RW, R, RW];
        const HIST: &[Access] = &[R, RW];
        const S: &str = "sort.wgsl";
        const RE: &str = "reorder.wgsl";
        [
            KernelDecl::new(S, "scan_block", &[G0, SCAN]),
            KernelDecl::new(S, "scan_add", &[G0, SCAN]),
            KernelDecl::new(S, "scatter", &[G0, &[], SCATTER]),
            KernelDecl::new(S, "sort_cells", &[G0, &[], SCATTER]),
            KernelDecl::new(RE, "reorder_state", &[RG0, STATE]),
            KernelDecl::new(RE, "reorder_history", &[RG0, &[], HIST]),
        ]
    };

    pub fn new(ctx: &GpuContext, sort: &wgpu::ShaderModule, reorder: &wgpu::ShaderModule) -> Self {
        let k = |m, i: usize| Kernel::new(ctx, m, &Self::DECLS[i]);
        SortKernels {
            scan_block: k(sort, 0),
            scan_add: k(sort, 1),
            scatter: k(sort, 2),
            sort_cells: k(sort, 3),
            reorder_state: k(reorder, 4),
            reorder_history: k(reorder, 5),
        }
    }

    /// Bind groups of a scan of `input` into `output` over `levels`.
    pub fn bind_scan(
        &self,
        ctx: &GpuContext,
        scan: &[ScanLevel],
        input: &wgpu::Buffer,
        output: &wgpu::Buffer,
    ) -> ScanBinds {
        let mut levels = Vec::new();
        for (l, lv) in scan.iter().enumerate() {
            let (src, dst) = if l == 0 {
                (input, output)
            } else {
                (
                    &scan[l - 1].sums,
                    scan[l - 1]
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
        levels
    }

    pub fn bind(&self, ctx: &GpuContext, d: &GpuData) -> SortBinds {
        let state = |src: &super::data::ParticleBuffers, dst: &super::data::ParticleBuffers| {
            [
                &src.pos,
                &src.vel,
                &src.omega,
                &src.material,
                &src.id,
                &src.diss,
                &dst.pos,
                &dst.vel,
                &dst.omega,
                &dst.material,
                &dst.id,
                &dst.diss,
                &src.pos_fx,
                &dst.pos_fx,
            ]
            .map(|b| b.clone())
        };
        let hist = |src: &super::data::ParticleBuffers, dst: &super::data::ParticleBuffers| {
            [&src.motion, &dst.motion].map(|b| b.clone())
        };
        let (a, b) = (&d.a, &d.b);
        SortBinds {
            common: self.scan_block.bind(ctx, 0, &[&d.params, &d.ctl]),
            levels: self.bind_scan(ctx, &d.scan, &d.counts, &d.starts),
            scatter: self
                .scatter
                .bind(ctx, 2, &[&d.keys, &d.starts, &d.counts, &d.order]),
            reorder_common: self
                .reorder_state
                .bind(ctx, 0, &[&d.params, &d.ctl, &d.order]),
            reorder_state: self.reorder_state.bind(ctx, 1, &refs(&state(b, a))),
            reorder_history: self.reorder_history.bind(ctx, 2, &refs(&hist(b, a))),
            copy_common: self
                .reorder_state
                .bind(ctx, 0, &[&d.params, &d.ctl, &d.identity]),
            copy_state: self.reorder_state.bind(ctx, 1, &refs(&state(a, b))),
            copy_history: self.reorder_history.bind(ctx, 2, &refs(&hist(a, b))),
        }
    }

    /// Scan only (counts → starts), for the integer-stage tests.
    pub fn encode_scan(&self, s: &SortBinds, pass: &mut wgpu::ComputePass, d: &GpuData) {
        self.encode_scan_levels(&s.common, &s.levels, &d.scan, pass, d);
    }

    /// Any scan: block scans up the levels, then the adds back down.
    pub fn encode_scan_levels(
        &self,
        common: &wgpu::BindGroup,
        binds: &ScanBinds,
        scan: &[ScanLevel],
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        for (l, lv) in scan.iter().enumerate() {
            dispatch_rebuild(
                pass,
                &self.scan_block,
                &[(0, common), (1, &binds[l].0)],
                d.rebuild_args(lv.len),
            );
        }
        for l in (0..scan.len()).rev() {
            if let Some(add) = &binds[l].1 {
                let groups = [(0, common), (1, add)];
                dispatch_rebuild(pass, &self.scan_add, &groups, d.rebuild_args(scan[l].len));
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
        dispatch_rebuild(
            pass,
            &self.scatter,
            &[(0, &s.common), (2, &s.scatter)],
            d.rebuild_args(d.n),
        );
        dispatch_rebuild(
            pass,
            &self.sort_cells,
            &[(0, &s.common), (2, &s.scatter)],
            d.rebuild_args(d.n_cells),
        );
    }

    /// The whole stage: order, gather B → A, copy A → B.
    pub fn encode(
        &self,
        s: &SortBinds,
        bin: &BinKernels,
        bb: &BinBinds,
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        self.encode_order(s, bin, bb, pass, d);
        dispatch_rebuild(
            pass,
            &self.reorder_state,
            &[(0, &s.reorder_common), (1, &s.reorder_state)],
            d.rebuild_args(d.n),
        );
        dispatch_rebuild(
            pass,
            &self.reorder_history,
            &[(0, &s.reorder_common), (2, &s.reorder_history)],
            d.rebuild_args(d.n),
        );
        dispatch_rebuild(
            pass,
            &self.reorder_state,
            &[(0, &s.copy_common), (1, &s.copy_state)],
            d.rebuild_args(d.n),
        );
        dispatch_rebuild(
            pass,
            &self.reorder_history,
            &[(0, &s.copy_common), (2, &s.copy_history)],
            d.rebuild_args(d.n),
        );
    }
}
