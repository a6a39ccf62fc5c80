//! Every shader parses and validates with naga (no GPU needed), errors
//! printed with source spans; and the Rust twins of the shared structs have
//! the sizes and field offsets naga computes.

use talus::gpu::{layout, shaders};

fn module(name: &str, src: &str) -> naga::Module {
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

#[test]
fn every_shader_parses_and_validates() {
    let all = shaders::sources();
    assert!(all.len() >= 6);
    for (name, src) in &all {
        module(name, src);
    }
    // every file in shaders/ is one of them (or common.wgsl)
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(dir).unwrap() {
        let f = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            f == "common.wgsl" || all.iter().any(|(n, _)| *n == f),
            "shaders/{f} is not built into talus"
        );
    }
}

#[test]
fn rust_structs_match_wgsl_layout() {
    // sort.wgsl declares all the shared structs (common.wgsl + ScanParams)
    let m = module("sort.wgsl", &shaders::source("sort.wgsl"));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(m.to_ctx()).unwrap();
    for (sname, fields, size) in layout::rust_layouts() {
        let (handle, ty) = m
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(sname))
            .unwrap_or_else(|| panic!("struct {sname} not found in WGSL"));
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("{sname} is not a struct")
        };
        assert_eq!(
            *span as usize, size,
            "{sname}: WGSL size {span}, Rust {size}"
        );
        assert_eq!(layouter[handle].size as usize, size);
        for (field, off) in fields {
            let mem = members
                .iter()
                .find(|mm| mm.name.as_deref() == Some(field))
                .unwrap_or_else(|| panic!("{sname}.{field} missing in WGSL"));
            assert_eq!(
                mem.offset as usize, off,
                "{sname}.{field}: WGSL offset {}, Rust {off}",
                mem.offset
            );
        }
    }
}
