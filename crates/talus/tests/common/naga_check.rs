//! A WGSL source through naga's parser and validator, errors printed with
//! source spans: the engine's and the viewer's shader tests both use it.

/// `src` (named `name` in messages) parsed and validated.
pub fn module(name: &str, src: &str) -> naga::Module {
    let m = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string_with_path(src, name)));
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    );
    if let Err(e) = v.validate(&m) {
        panic!("{name}: {}", e.emit_to_string_with_path(src, name));
    }
    m
}
