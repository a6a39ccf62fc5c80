//! Whether a run fits an adapter: the storage bindings each kernel needs
//! for the run's pages (`pages`: each page past the first is one more
//! binding where the array is bound), and the device's memory. Apart from
//! `data` (which the stages import) because it reads every kernel's
//! declaration.

use super::context::Pairs;
use super::context::{GpuContext, GpuError};
use super::kernel::KernelDecl;
use super::pages::{self, Family, Paging};
use super::{
    bin, clumps, contacts, copy, diagnostics, flow, ghosts, integrate, neighbours, sort, surfaces,
};
use std::sync::OnceLock;

/// Storage buffers the widest layout binds in one stage with one page of
/// everything: 20, the neighbour list's (the list, the previous list it
/// moves history from, the motion records for the partners' ids, and the
/// walls: primitives, where each scene wall's are, motion, pose and the
/// meshes' grids; the kernels of a stage share
/// one layout, see `neighbours::NeighbourKernels::DECLS`; checked against
/// every `KernelDecl` in `tests/shaders.rs`). Desktop Vulkan, Metal and
/// DX12 adapters offer more; WebGPU's default is 8.
pub const STORAGE_BINDINGS_NEEDED: u32 = 20;

/// Every kernel's declaration (shader, entry point, bindings), with no
/// device: `tests/shaders.rs` checks them against the shaders.
pub fn kernel_decls() -> Vec<KernelDecl> {
    [
        &bin::BinKernels::DECLS[..],
        &sort::SortKernels::DECLS,
        &neighbours::NeighbourKernels::DECLS,
        &contacts::ContactKernels::DECLS,
        &integrate::IntegrateKernels::DECLS,
        &clumps::ClumpKernels::DECLS,
        &super::bonds::BondKernels::DECLS,
        &diagnostics::DiagnosticsKernels::DECLS,
        &flow::FlowKernels::DECLS,
        &surfaces::SurfaceKernels::DECLS,
        &ghosts::GhostKernels::DECLS,
        #[cfg(feature = "test-kernels")]
        &super::law::LawEval::DECLS,
        #[cfg(feature = "test-kernels")]
        &super::bonds::BondEval::DECLS,
        #[cfg(feature = "test-kernels")]
        &super::rotor_eval::RotorEval::DECLS,
        #[cfg(feature = "test-kernels")]
        &super::wall_eval::WallEval::DECLS,
        &copy::CopyKernel::DECLS,
    ]
    .concat()
}

/// The most list entries a run with `particle_pages` pages of particles
/// holds on an adapter with `limits`: as many pages as it can bind
/// ([`bindings_fit`]), and what a u32 index reaches.
pub fn max_list_entries(limits: &wgpu::Limits, particle_pages: u32, roll: bool) -> u64 {
    let max_binding = super::context::max_binding(limits);
    let page = pages::per_page(max_binding, Family::Entries, roll);
    let pages = (1..=pages::MAX_PAGES)
        .rev()
        .find(|&k| {
            let paging = Paging {
                entry_pages: k,
                particle_pages,
                ..Paging::new(max_binding, 1, 1, roll)
            };
            bindings_fit(limits, &paging).is_ok()
        })
        .unwrap_or(1);
    (pages as u64 * page).min(u32::MAX as u64)
}

/// Per kernel: the storage bindings it binds with one page of everything,
/// the paged arrays among them of each family (entries, particles), and
/// its entry point. From the kernels' declarations and their shaders, no
/// device; worked out once.
fn binding_costs() -> &'static [(u32, u32, u32, &'static str)] {
    use super::kernel::Access;
    static COSTS: OnceLock<Vec<(u32, u32, u32, &'static str)>> = OnceLock::new();
    COSTS.get_or_init(|| {
        let sources = super::shaders::sources();
        let storage = |a: &Access| !matches!(a, Access::Uniform | Access::Unused);
        kernel_decls()
            .iter()
            .map(|d| {
                let used = |g: u32, b: u32| {
                    d.groups
                        .get(g as usize)
                        .and_then(|grp| grp.get(b as usize))
                        .is_some_and(storage)
                };
                let own = d
                    .groups
                    .iter()
                    .flat_map(|g| g.iter())
                    .filter(|a| storage(a))
                    .count();
                let src = &sources
                    .iter()
                    .find(|(n, _)| *n == d.shader)
                    .expect("a shader")
                    .1;
                let paged: Vec<Family> = pages::find(src)
                    .iter()
                    .filter(|f| used(f.group, f.binding))
                    .map(|f| f.decl.family)
                    .collect();
                let of = |fam: Family| paged.iter().filter(|&&f| f == fam).count() as u32;
                (
                    own as u32,
                    of(Family::Entries),
                    of(Family::Particles),
                    d.entry,
                )
            })
            .collect()
    })
}

/// The storage bindings the widest kernel binds under `paging` (its own,
/// and each page past the first of each paged array it binds), and its
/// name.
pub fn bindings_needed(paging: &Paging) -> (u32, &'static str) {
    let (e, p) = (paging.entry_pages - 1, paging.particle_pages - 1);
    binding_costs()
        .iter()
        .map(|&(own, entries, particles, entry)| (own + entries * e + particles * p, entry))
        .max()
        .unwrap_or((0, ""))
}

/// Whether an adapter with `limits` binds the pages of `paging`: at most
/// [`pages::MAX_PAGES`] an array and the widest kernel's storage bindings;
/// else the line saying why not.
pub fn bindings_fit(limits: &wgpu::Limits, paging: &Paging) -> Result<(), String> {
    let most = paging.entry_pages.max(paging.particle_pages);
    if most > pages::MAX_PAGES {
        return Err(format!(
            "{most} pages of one storage binding for one array, at most {} are bound",
            pages::MAX_PAGES
        ));
    }
    let (need, entry) = bindings_needed(paging);
    let have = limits.max_storage_buffers_per_shader_stage;
    if need > have {
        return Err(format!(
            "{} and {} pages of one storage binding (particles, list) need {need} storage buffers in `{entry}`, the adapter offers {have} per shader stage",
            paging.particle_pages, paging.entry_pages
        ));
    }
    Ok(())
}

/// Refuses a run whose pages the adapter cannot bind (at the fewest list
/// entries a scene is admitted with), whose cell array exceeds a binding,
/// or whose buffers exceed the device's memory (where its API says),
/// naming the count that fits.
pub fn refuse_too_large(
    ctx: &GpuContext,
    cap: u64,
    n_cells: u64,
    extra: Extra,
) -> Result<(), GpuError> {
    admit_with(
        &ctx.info.name,
        &ctx.limits,
        ctx.memory(),
        (cap, n_cells, extra),
        ctx.pairs,
    )
    .map_err(GpuError::TooLarge)
}

/// The paging of `cap` particles with `per` list entries each, if the
/// adapter with `limits` binds it.
fn bindings_admit(limits: &wgpu::Limits, cap: u64, per: u64, roll: bool) -> Result<Paging, String> {
    let entries = per * cap;
    if entries > u32::MAX as u64 {
        return Err(format!(
            "{entries} list entries, more than a u32 index reaches"
        ));
    }
    let paging = Paging::new(super::context::max_binding(limits), cap, entries, roll);
    bindings_fit(limits, &paging).map(|_| paging)
}

/// The most particles with `per` list entries each whose pages an adapter
/// with `limits` binds.
pub fn max_particles_by_bindings(limits: &wgpu::Limits, per: u64, roll: bool) -> u64 {
    let (mut lo, mut hi) = (1u64, u32::MAX as u64 / per + 1);
    if bindings_admit(limits, lo, per, roll).is_err() {
        return 0;
    }
    // lo fits, hi does not
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if bindings_admit(limits, mid, per, roll).is_ok() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// [`refuse_too_large`] on an adapter named `adapter` with `limits` and
/// its memory: the refusal's line, if any.
pub fn admit(
    adapter: &str,
    limits: &wgpu::Limits,
    memory: Option<u64>,
    cap: u64,
    n_cells: u64,
    pairs: Pairs,
) -> Result<(), String> {
    admit_with(
        adapter,
        limits,
        memory,
        (cap, n_cells, Extra::default()),
        pairs,
    )
}

/// Bytes a run holds beside the particles' and the cells': a run with
/// clumps, each row's `MemberRow` (`per_row`) and the clumps' tables
/// (`fixed`); a rolling model with memory (`roll`), 16 more bytes of
/// history per list entry and per kept entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extra {
    pub per_row: u64,
    pub fixed: u64,
    pub roll: bool,
}

/// [`admit`] with the [`Extra`] bytes of a run.
pub fn admit_with(
    adapter: &str,
    limits: &wgpu::Limits,
    memory: Option<u64>,
    (cap, n_cells, extra): (u64, u64, Extra),
    pairs: Pairs,
) -> Result<(), String> {
    let max_binding = super::context::max_binding(limits);
    let per = pairs.list_entries();
    if let Err(why) = bindings_admit(limits, cap, per, extra.roll) {
        let fits = max_particles_by_bindings(limits, per, extra.roll);
        return Err(format!(
            "{cap} particles need more than {adapter} binds ({why}): at most {fits} particles fit"
        ));
    }
    if (n_cells + 1) * 4 > max_binding {
        return Err(format!(
            "{} grid cells need {:.1} MiB in one buffer (cell starts), but {adapter} allows {:.1} MiB per storage binding: a coarser grid (fewer levels or a smaller domain) fits",
            n_cells,
            ((n_cells + 1) * 4) as f64 / 1048576.0,
            max_binding as f64 / 1048576.0
        ));
    }
    // and the whole, at the list's first size, against the device's memory
    if let Some(mem) = memory {
        let entries = pairs.list_entries();
        let per = super::data::bytes_per_particle_with(entries, pairs, extra.roll) + extra.per_row;
        let need = per * cap + 8 * n_cells + extra.fixed;
        if need > mem {
            let fits = mem.saturating_sub(8 * n_cells + extra.fixed) / per;
            return Err(format!(
                "{cap} particles need {:.2} GiB of GPU memory ({per} B each, {} list entries), but {adapter} has {:.2} GiB: at most {fits} particles fit",
                need as f64 / 1073741824.0,
                entries,
                mem as f64 / 1073741824.0
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::data::bytes_per_particle;

    /// Limits like an NVIDIA card's through wgpu (2047 MiB a binding, many
    /// bindings) and like lavapipe's (128 MiB, 32 a stage).
    fn limits(binding: u64, per_stage: u32) -> wgpu::Limits {
        wgpu::Limits {
            max_storage_buffer_binding_size: binding as _,
            max_buffer_size: 1 << 40,
            max_storage_buffers_per_shader_stage: per_stage,
            max_bind_groups: 8,
            ..wgpu::Limits::default()
        }
    }

    /// The memory test refuses what the binding test admits, and names a
    /// count that itself passes; the bindings cap only past what a u32
    /// index reaches on a card with many bindings. Both ways of summing
    /// pairs: each pair once admits 10⁸ on 80 GB with room to spare.
    #[test]
    fn admission_compares_the_whole_with_the_device_memory() {
        let card = limits(2047 << 20, 1 << 20);
        let mem = 80u64 << 30;
        for pairs in [Pairs::Once, Pairs::Both] {
            let entries = pairs.list_entries();
            let per = bytes_per_particle(entries, pairs);
            let ok = |cap, mem| admit("card", &card, mem, cap, 0, pairs).is_ok();
            assert!(ok(100_000_000, Some(mem)), "10^8 on 80 GB");
            assert!(ok(120_000_000, None));
            // 32 pages of list, just short of what a u32 entry index
            // reaches: 4.29·10⁸ particles at 10 entries
            let by_bindings = max_particles_by_bindings(&card, entries, false);
            let entry_page = pages::per_page(2047 << 20, Family::Entries, false);
            assert_eq!(
                by_bindings,
                (pages::MAX_PAGES as u64 * entry_page).min(u32::MAX as u64) / entries
            );
            assert!(by_bindings > 4 * 100_000_000);
            let err = admit("card", &card, Some(1 << 30), 12_000_000, 0, pairs).unwrap_err();
            assert!(err.contains("GiB of GPU memory"), "{err}");
            let fits_1g = (1u64 << 30) / per;
            assert!(
                err.ends_with(&format!("at most {fits_1g} particles fit")),
                "{err}"
            );
            assert!(ok(fits_1g, Some(1 << 30)));
            assert!(!ok(fits_1g + 1, Some(1 << 30)));
            // a run with clumps counts their bytes too (each row's
            // `MemberRow` and the tables): fewer rows fit
            let extra = Extra {
                per_row: 32,
                fixed: 1 << 20,
                roll: false,
            };
            let clumped = admit_with("card", &card, Some(1 << 30), (fits_1g, 0, extra), pairs);
            let err = clumped.unwrap_err();
            let fits = ((1u64 << 30) - (1 << 20)) / (per + 32);
            assert!(
                err.ends_with(&format!("at most {fits} particles fit")),
                "{err}"
            );
            // a rolling spring's history: 16 more bytes per entry and kept
            // entry, fewer fit
            let roll = Extra {
                roll: true,
                ..Extra::default()
            };
            let err =
                admit_with("card", &card, Some(1 << 30), (fits_1g, 0, roll), pairs).unwrap_err();
            let wider = per + 16 * (entries + super::super::data::kept_entries(entries));
            let fits = (1u64 << 30) / wider;
            assert!(
                err.ends_with(&format!("at most {fits} particles fit")),
                "{err}"
            );
        }
        let once = (80u64 << 30) / bytes_per_particle(6, Pairs::Once);
        assert!(once > 150_000_000, "{once} on 80 GB");
        // issue 34's ≤ 400 B a particle at the list a settled bed starts
        // with (`talus bench` reports what a run holds: 392 on the settled
        // bed each pair once, docs/performance.md)
        let first = Pairs::Once.list_entries();
        assert!(bytes_per_particle(first, Pairs::Once) <= 400);
    }

    /// With few bindings a stage, the pages are what caps: the count named
    /// fits, one more does not, and the line says why.
    #[test]
    fn admission_counts_the_pages_an_adapter_binds() {
        let lavapipe = limits(128 << 20, 32);
        let per = Pairs::Both.list_entries();
        let fits = max_particles_by_bindings(&lavapipe, per, false);
        // more than one page of particles (2.1·10⁶ each), the list in
        // pages of 8.4·10⁶ entries
        assert!(fits > (128 << 20) / 64, "{fits}");
        assert!(admit("lavapipe", &lavapipe, None, fits, 0, Pairs::Both).is_ok());
        let err = admit("lavapipe", &lavapipe, None, fits + 1, 0, Pairs::Both).unwrap_err();
        assert!(
            err.contains("storage buffers")
                && err.ends_with(&format!("at most {fits} particles fit")),
            "{err}"
        );
        let p = bindings_admit(&lavapipe, fits, per, false).unwrap();
        assert!(bindings_needed(&p).0 <= 32);
        assert_eq!(
            bindings_needed(&Paging::single()).0,
            STORAGE_BINDINGS_NEEDED
        );
    }
}
