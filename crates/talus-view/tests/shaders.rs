//! The viewer's shaders parse and validate with naga (no GPU needed),
//! errors printed with source spans; the Rust twins of their structs have
//! naga's sizes; every file in `shaders/` is built in.

#[path = "../../talus/tests/common/naga_check.rs"]
mod naga_check;
use naga_check::module;

#[test]
fn every_file_in_shaders_is_built_in() {
    let view = talus_view::render::shader_sources();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(dir).unwrap() {
        let f = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            talus_view::render::SHADER_INCLUDES.contains(&f.as_str())
                || view.iter().any(|(n, _)| *n == f),
            "shaders/{f} is not built into talus-view"
        );
    }
}

/// The viewer's shaders (`view::render`) parse and validate like the
/// step's, errors printed with source spans; `Globals` has the Rust
/// twin's size; the live path's compute kernel binds what its
/// `KernelDecl` says, with the same access.
#[test]
fn view_shaders_parse_and_validate() {
    use talus::gpu::kernel::Access;
    use talus_view::render;
    let all = render::shader_sources();
    assert_eq!(all.len(), 3);
    for (name, src) in &all {
        let m = module(name, src);
        let globals = m
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("Globals"))
            .map(|(h, _)| h);
        if let Some(h) = globals {
            let mut layouter = naga::proc::Layouter::default();
            layouter.update(m.to_ctx()).unwrap();
            assert_eq!(
                layouter[h].size as usize,
                std::mem::size_of::<render::Globals>(),
                "{name}: Globals"
            );
        }
    }
    let d = render::SCALAR_DECL;
    let src = &all.iter().find(|(n, _)| *n == d.shader).unwrap().1;
    let m = module(d.shader, src);
    assert!(m.entry_points.iter().any(|e| e.name == d.entry));
    for (_, g) in m.global_variables.iter() {
        let Some(rb) = &g.binding else { continue };
        let access = match g.space {
            naga::AddressSpace::Uniform => Access::Uniform,
            naga::AddressSpace::Storage { access }
                if access.contains(naga::StorageAccess::STORE) =>
            {
                Access::ReadWrite
            }
            naga::AddressSpace::Storage { .. } => Access::Read,
            _ => continue,
        };
        let declared = d.groups[rb.group as usize][rb.binding as usize];
        assert_eq!(declared, access, "{}: binding {}", d.entry, rb.binding);
    }
}

#[test]
fn the_overlay_shader_validates() {
    let m = module("hud", talus_view::window::HUD_WGSL);
    let stages: Vec<_> = m.entry_points.iter().map(|e| e.stage).collect();
    assert_eq!(
        stages,
        [naga::ShaderStage::Vertex, naga::ShaderStage::Fragment]
    );
}
