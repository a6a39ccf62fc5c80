//! The WGSL sources, each stage file with `common.wgsl` prepended,
//! `walls.wgsl` (the gap to a wall primitive) before the files that meet
//! walls, `law.wgsl` (the pair law) before those that evaluate contacts
//! and bonds, `bond_law.wgsl` (one bond's step) before those that step
//! bonds, `sums.wgsl` (the exact fixed-point pair sums) before those that
//! add to a particle's work record,
//! `fixed.wgsl` (the fixed-point coordinates) before those that move
//! particles or read a clump's centre, `outlets.wgsl` (the outlets' test)
//! before those that move particles, `clump_energy.wgsl` (a clump's
//! energy) before those that count it, and `rotor.wgsl` (a clump's
//! rotation) before those that turn or weigh clumps; then, appended, the
//! page declarations and accessors of the
//! paged arrays each declares, for a run's [`Paging`] (`pages::generate`),
//! and `PAIRS_ONCE`, the device's [`Pairs`] as a constant (so each variant
//! compiles without the other's code).

use super::context::Pairs;
use super::pages::{generate, Paging};

/// Files that are prepended to others, not modules of their own.
pub const INCLUDES: [&str; 9] = [
    "bond_law.wgsl",
    "clump_energy.wgsl",
    "common.wgsl",
    "fixed.wgsl",
    "law.wgsl",
    "outlets.wgsl",
    "rotor.wgsl",
    "sums.wgsl",
    "walls.wgsl",
];

/// `(stage file name, full source)` for every shader module, with one
/// page of every paged array, each pair once.
pub fn sources() -> Vec<(&'static str, String)> {
    sources_for(&Paging::single(), Pairs::Once)
}

/// [`sources`] for `paging` and `pairs`.
pub fn sources_for(paging: &Paging, pairs: Pairs) -> Vec<(&'static str, String)> {
    let common = include_str!("../../shaders/common.wgsl");
    let law = include_str!("../../shaders/law.wgsl");
    let walls = include_str!("../../shaders/walls.wgsl");
    let fixed = include_str!("../../shaders/fixed.wgsl");
    let rotor = include_str!("../../shaders/rotor.wgsl");
    let outlets = include_str!("../../shaders/outlets.wgsl");
    let clump_energy = include_str!("../../shaders/clump_energy.wgsl");
    let sums = include_str!("../../shaders/sums.wgsl");
    let bond_law = include_str!("../../shaders/bond_law.wgsl");
    let stage = |name: &'static str, src: &str| (name, format!("{common}\n{src}"));
    #[cfg(feature = "test-kernels")]
    let with_law = |name: &'static str, src: &str| (name, format!("{common}\n{law}\n{src}"));
    let with_walls = |name: &'static str, src: &str| (name, format!("{common}\n{walls}\n{src}"));
    let all = vec![
        stage("bin.wgsl", include_str!("../../shaders/bin.wgsl")),
        stage("sort.wgsl", include_str!("../../shaders/sort.wgsl")),
        stage("reorder.wgsl", include_str!("../../shaders/reorder.wgsl")),
        with_walls(
            "neighbours.wgsl",
            include_str!("../../shaders/neighbours.wgsl"),
        ),
        (
            "contacts.wgsl",
            format!(
                "{common}\n{walls}\n{law}\n{sums}\n{}",
                include_str!("../../shaders/contacts.wgsl")
            ),
        ),
        (
            "bonds.wgsl",
            format!(
                "{common}\n{law}\n{bond_law}\n{sums}\n{}",
                include_str!("../../shaders/bonds.wgsl")
            ),
        ),
        #[cfg(feature = "test-kernels")]
        with_law("law_eval.wgsl", include_str!("../../shaders/law_eval.wgsl")),
        #[cfg(feature = "test-kernels")]
        (
            "bond_eval.wgsl",
            format!(
                "{common}\n{law}\n{bond_law}\n{}",
                include_str!("../../shaders/bond_eval.wgsl")
            ),
        ),
        #[cfg(feature = "test-kernels")]
        (
            "rotor_eval.wgsl",
            format!(
                "{common}\n{rotor}\n{}",
                include_str!("../../shaders/rotor_eval.wgsl")
            ),
        ),
        #[cfg(feature = "test-kernels")]
        with_walls(
            "wall_eval.wgsl",
            include_str!("../../shaders/wall_eval.wgsl"),
        ),
        (
            "integrate.wgsl",
            format!(
                "{common}\n{walls}\n{fixed}\n{outlets}\n{}",
                include_str!("../../shaders/integrate.wgsl")
            ),
        ),
        (
            "clumps.wgsl",
            format!(
                "{common}\n{fixed}\n{outlets}\n{rotor}\n{clump_energy}\n{}",
                include_str!("../../shaders/clumps.wgsl")
            ),
        ),
        stage("flow.wgsl", include_str!("../../shaders/flow.wgsl")),
        stage("surfaces.wgsl", include_str!("../../shaders/surfaces.wgsl")),
        stage("copy.wgsl", include_str!("../../shaders/copy.wgsl")),
        stage("ghosts.wgsl", include_str!("../../shaders/ghosts.wgsl")),
        (
            "diagnostics.wgsl",
            format!(
                "{common}\n{fixed}\n{rotor}\n{clump_energy}\n{}",
                include_str!("../../shaders/diagnostics.wgsl")
            ),
        ),
    ];
    all.into_iter()
        .map(|(name, src)| {
            let pages = generate(&src, paging);
            let once = pairs == Pairs::Once;
            (
                name,
                format!("{src}\n{pages}const PAIRS_ONCE: bool = {once};\n"),
            )
        })
        .collect()
}

/// Source of one module by file name, with one page of everything, each
/// pair once.
pub fn source(name: &str) -> String {
    source_for(name, &Paging::single(), Pairs::Once)
}

/// Source of one module by file name for `paging` and `pairs`.
pub fn source_for(name: &str, paging: &Paging, pairs: Pairs) -> String {
    sources_for(paging, pairs)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no shader named {name}"))
}
