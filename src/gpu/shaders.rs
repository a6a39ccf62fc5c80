//! The WGSL sources, each stage file with `common.wgsl` prepended.

/// `(stage file name, full source)` for every shader module.
pub fn sources() -> Vec<(&'static str, String)> {
    let common = include_str!("../../shaders/common.wgsl");
    let stage = |name: &'static str, src: &str| (name, format!("{common}\n{src}"));
    vec![
        stage("bin.wgsl", include_str!("../../shaders/bin.wgsl")),
        stage("sort.wgsl", include_str!("../../shaders/sort.wgsl")),
        stage("reorder.wgsl", include_str!("../../shaders/reorder.wgsl")),
        stage(
            "neighbours.wgsl",
            include_str!("../../shaders/neighbours.wgsl"),
        ),
        stage("contacts.wgsl", include_str!("../../shaders/contacts.wgsl")),
        stage(
            "integrate.wgsl",
            include_str!("../../shaders/integrate.wgsl"),
        ),
        stage(
            "diagnostics.wgsl",
            include_str!("../../shaders/diagnostics.wgsl"),
        ),
    ]
}

/// Source of one module by file name.
pub fn source(name: &str) -> String {
    sources()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no shader named {name}"))
}
