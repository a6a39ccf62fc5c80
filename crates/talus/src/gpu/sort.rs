//! Stage 2, sort (`shaders/sort.wgsl`, `shaders/reorder.wgsl`): multi-level
//! exclusive scan of the counts, scatter into cell order, per-cell sort by
//! index, then per array of the working set B the gather into the scratch
//! array in that order and the copy back: one generic pair of kernels over
//! u32 words, dispatched once per per-particle array (`GpuData::particle_arrays`), so
//! no kernel binds more as arrays are added. Runs only on steps that
//! rebuild the neighbour list (every kernel checks `ctl`, and all are
//! dispatched indirectly: no workgroup between builds). The scan also
//! serves the list.

use super::bin::{BinBinds, BinKernels};
use super::context::GpuContext;
use super::data::{GpuData, Over, ScanLevel};
use super::kernel::{dispatch_indirect, Access, Kernel, KernelDecl, R, RW, U};

pub struct SortKernels {
    pub scan_block: Kernel,
    pub scan_add: Kernel,
    pub scatter: Kernel,
    pub sort_cells: Kernel,
    /// A[j] = B[order[j]], one array, one thread per particle.
    pub gather: Kernel,
    /// B[j] = A[j], one array, one thread per word.
    pub copy: Kernel,
}

pub struct SortBinds {
    pub common: wgpu::BindGroup,
    /// The scan of the cell counts.
    pub levels: ScanBinds,
    pub scatter: wgpu::BindGroup,
    /// The reorder's `ctl` and `order` groups.
    pub reorder_ctl: wgpu::BindGroup,
    pub reorder_order: wgpu::BindGroup,
    /// Per per-particle array with any words.
    pub arrays: Vec<ArrayBinds>,
}

/// One per-particle array's reorder: its words per particle (the copy's
/// dispatch runs over words × the active count) and the groups of the
/// gather B → A and of the copy A → B.
pub struct ArrayBinds {
    pub words: u64,
    pub gather: wgpu::BindGroup,
    pub copy: wgpu::BindGroup,
}

/// Per level of a scan: (scan_block group, scan_add group or None for the top).
pub type ScanBinds = Vec<(wgpu::BindGroup, Option<wgpu::BindGroup>)>;

const G0: &[Access] = &[U, R];
const SCAN: &[Access] = &[U, R, RW, RW];
const SCATTER: &[Access] = &[R, R, RW, RW];

impl SortKernels {
    /// `scan_block`, `scan_add`, `scatter`, `sort_cells` (sort.wgsl),
    /// `gather_words`, `copy_words` (reorder.wgsl).
    pub const DECLS: [KernelDecl; 6] = {
        const CTL: &[Access] = &[R];
        const ARRAY: &[Access] = &[U, RW, RW];
        const ORDER: &[Access] = &[R];
        const S: &str = "sort.wgsl";
        const RE: &str = "reorder.wgsl";
        [
            KernelDecl::new(S, "scan_block", &[G0, SCAN]),
            KernelDecl::new(S, "scan_add", &[G0, SCAN]),
            KernelDecl::new(S, "scatter", &[G0, &[], SCATTER]),
            KernelDecl::new(S, "sort_cells", &[G0, &[], SCATTER]),
            KernelDecl::new(RE, "gather_words", &[CTL, ARRAY, ORDER]),
            KernelDecl::new(RE, "copy_words", &[CTL, ARRAY]),
        ]
    };

    pub fn new(
        ctx: &GpuContext,
        sort: &super::kernel::Module,
        reorder: &super::kernel::Module,
    ) -> Self {
        let k = |m, i: usize| Kernel::new(ctx, m, &Self::DECLS[i]);
        SortKernels {
            scan_block: k(sort, 0),
            scan_add: k(sort, 1),
            scatter: k(sort, 2),
            sort_cells: k(sort, 3),
            gather: k(reorder, 4),
            copy: k(reorder, 5),
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
        let arrays = d
            .particle_arrays()
            .into_iter()
            .filter(|p| p.words > 0)
            .map(|p| {
                let g = [p.gather, p.b.first(), d.scratch.first()];
                let pages = [("arr", p.b), ("scr", &d.scratch)];
                ArrayBinds {
                    words: p.words,
                    gather: self.gather.bind_paged(ctx, 1, &g, &pages),
                    copy: self.copy.bind_paged(ctx, 1, &g, &pages),
                }
            })
            .collect();
        SortBinds {
            common: self.scan_block.bind(ctx, 0, &[&d.params, &d.ctl]),
            levels: self.bind_scan(ctx, &d.scan, &d.counts, &d.starts),
            scatter: self
                .scatter
                .bind(ctx, 2, &[&d.nbr_count, &d.starts, &d.counts, &d.order]),
            reorder_ctl: self.gather.bind(ctx, 0, &[&d.ctl]),
            reorder_order: self.gather.bind(ctx, 2, &[&d.order]),
            arrays,
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
            dispatch_indirect(
                pass,
                &self.scan_block,
                &[(0, common), (1, &binds[l].0)],
                d.args_for(Over::Fixed(lv.len)),
            );
        }
        for l in (0..scan.len()).rev() {
            if let Some(add) = &binds[l].1 {
                let groups = [(0, common), (1, add)];
                dispatch_indirect(
                    pass,
                    &self.scan_add,
                    &groups,
                    d.args_for(Over::Fixed(scan[l].len)),
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
        dispatch_indirect(
            pass,
            &self.scatter,
            &[(0, &s.common), (2, &s.scatter)],
            d.args_for(Over::Particles),
        );
        dispatch_indirect(
            pass,
            &self.sort_cells,
            &[(0, &s.common), (2, &s.scatter)],
            d.args_for(Over::Fixed(d.n_cells)),
        );
    }

    /// The whole stage: order, then per array the gather from B into the
    /// scratch array and the copy back.
    pub fn encode(
        &self,
        s: &SortBinds,
        bin: &BinKernels,
        bb: &BinBinds,
        pass: &mut wgpu::ComputePass,
        d: &GpuData,
    ) {
        self.encode_order(s, bin, bb, pass, d);
        for a in &s.arrays {
            let groups = [(0, &s.reorder_ctl), (1, &a.gather), (2, &s.reorder_order)];
            dispatch_indirect(pass, &self.gather, &groups, d.args_for(Over::Particles));
            let groups = [(0, &s.reorder_ctl), (1, &a.copy)];
            dispatch_indirect(pass, &self.copy, &groups, d.args_for(Over::Words(a.words)));
        }
    }
}
