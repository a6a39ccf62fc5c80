//! Every shader parses and validates with naga (no GPU needed), errors
//! printed with source spans; and the Rust twins of the shared structs have
//! the sizes and field offsets naga computes.

use talus::gpu::{layout, shaders};

#[path = "common/naga_check.rs"]
mod naga_check;
use naga_check::module;

#[test]
fn every_shader_parses_and_validates() {
    let all = shaders::sources();
    assert!(all.len() >= 6);
    for (name, src) in &all {
        module(name, src);
    }
    // and each pair from both sides, with pages of the paged arrays (three:
    // the accessors' first, middle and last branches)
    // and with the rolling torque in the history (epsd, epsd2)
    for roll in [false, true] {
        let paged = talus::gpu::pages::Paging {
            entry_pages: 3,
            particle_pages: 3,
            ..talus::gpu::pages::Paging::new(1 << 20, 1, 1, roll)
        };
        for (name, src) in shaders::sources_for(&paged, talus::gpu::Pairs::Both) {
            module(name, &src);
        }
    }
    // every file in shaders/ is one of them (or an included file)
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(dir).unwrap() {
        let f = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            shaders::INCLUDES.contains(&f.as_str()) || all.iter().any(|(n, _)| *n == f),
            "shaders/{f} is not built into talus"
        );
    }
}

#[test]
fn rust_structs_match_wgsl_layout() {
    // each struct is checked in the first module that declares it
    let modules: Vec<naga::Module> = shaders::sources()
        .iter()
        .map(|(name, src)| module(name, src))
        .collect();
    for (sname, fields, size) in layout::rust_layouts() {
        let (m, handle, ty) = modules
            .iter()
            .find_map(|m| {
                m.types
                    .iter()
                    .find(|(_, t)| t.name.as_deref() == Some(sname))
                    .map(|(h, t)| (m, h, t))
            })
            .unwrap_or_else(|| panic!("struct {sname} not found in WGSL"));
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(m.to_ctx()).unwrap();
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

/// The value of a WGSL module-scope `const` of type u32.
fn const_u32(m: &naga::Module, c: &naga::Constant) -> Option<u32> {
    match m.global_expressions[c.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => Some(v),
        naga::Expression::Literal(naga::Literal::AbstractInt(v)) => u32::try_from(v).ok(),
        _ => None,
    }
}

/// Every constant `common.wgsl` declares has a Rust twin with the same
/// value (`layout::shared_constants`), and every twin is declared there.
#[test]
fn shared_constants_agree_with_rust() {
    let src = shaders::source("bin.wgsl");
    let m = module("bin.wgsl", &src);
    let common = include_str!("../shaders/common.wgsl");
    let rust: std::collections::BTreeMap<&str, u32> =
        layout::shared_constants().into_iter().collect();
    let mut seen = 0;
    for (_, c) in m.constants.iter() {
        let Some(name) = c.name.as_deref() else {
            continue;
        };
        if !common.contains(&format!("const {name}:")) {
            continue;
        }
        let wgsl = const_u32(&m, c).unwrap_or_else(|| panic!("{name}: not a u32 literal"));
        let r = rust.get(name).unwrap_or_else(|| {
            panic!("common.wgsl's {name} has no Rust twin in layout::shared_constants")
        });
        assert_eq!(wgsl, *r, "{name}: WGSL {wgsl:#x}, Rust {r:#x}");
        seen += 1;
    }
    assert_eq!(
        seen,
        rust.len(),
        "a Rust constant in layout::shared_constants is not declared in common.wgsl"
    );
}

/// Each kernel's declared bindings (`gpu::kernel_decls`, what the
/// pipeline layout is built from) agree with its shader: every binding the
/// entry point uses is declared with the shader's own access (uniform,
/// read, read_write), every declared binding exists in the shader with that
/// access, and every entry point of every shader is declared exactly once.
/// No GPU needed: a mismatch would otherwise show only as a wgpu
/// validation error on a device.
#[test]
fn kernel_bindings_match_shader_declarations() {
    use talus::gpu::kernel::Access;
    let decls = talus::gpu::kernel_decls();
    let mut modules = std::collections::BTreeMap::new();
    for (name, src) in shaders::sources() {
        let m = module(name, &src);
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&m)
        .unwrap();
        modules.insert(name, (m, info));
    }
    for d in &decls {
        let (m, info) = modules
            .get(d.shader)
            .unwrap_or_else(|| panic!("{}: no shader {}", d.entry, d.shader));
        let (ep_index, _) = m
            .entry_points
            .iter()
            .enumerate()
            .find(|(_, e)| e.name == d.entry)
            .unwrap_or_else(|| panic!("{}: no entry point {} in it", d.shader, d.entry));
        let ep_info = info.get_entry_point(ep_index);
        for (h, g) in m.global_variables.iter() {
            let Some(rb) = &g.binding else { continue };
            let access = match g.space {
                naga::AddressSpace::Uniform => Access::Uniform,
                naga::AddressSpace::Storage { access } => {
                    if access.contains(naga::StorageAccess::STORE) {
                        Access::ReadWrite
                    } else {
                        Access::Read
                    }
                }
                _ => continue,
            };
            let name = g.name.as_deref().unwrap_or("?");
            let declared = d
                .groups
                .get(rb.group as usize)
                .and_then(|grp| grp.get(rb.binding as usize));
            let used = !ep_info[h].is_empty();
            let declared = declared.filter(|a| **a != Access::Unused);
            match declared {
                Some(a) => assert_eq!(
                    *a, access,
                    "{}::{}: @group({}) @binding({}) `{name}` is {access:?} in the shader, {a:?} in its KernelDecl",
                    d.shader, d.entry, rb.group, rb.binding
                ),
                None => assert!(
                    !used,
                    "{}::{}: uses @group({}) @binding({}) `{name}`, which its KernelDecl does not list",
                    d.shader, d.entry, rb.group, rb.binding
                ),
            }
        }
        // nothing declared that the shader lacks
        for (g, grp) in d.groups.iter().enumerate() {
            for b in (0..grp.len()).filter(|&b| grp[b] != Access::Unused) {
                let exists = m.global_variables.iter().any(|(_, v)| {
                    v.binding
                        .as_ref()
                        .is_some_and(|rb| rb.group as usize == g && rb.binding as usize == b)
                });
                assert!(
                    exists,
                    "{}::{}: KernelDecl lists @group({g}) @binding({b}), the shader declares none",
                    d.shader, d.entry
                );
            }
        }
    }
    // every entry point is declared, once
    for (name, (m, _)) in &modules {
        for e in &m.entry_points {
            let n = decls
                .iter()
                .filter(|d| d.shader == *name && d.entry == e.name)
                .count();
            assert_eq!(
                n, 1,
                "{name}::{} is declared {n} times in gpu::kernel_decls",
                e.name
            );
        }
    }
}

/// `STORAGE_BINDINGS_NEEDED` (the adapter limit a GPU run asks for) is
/// exactly what the widest kernel binds in storage buffers, all groups
/// together (the limit is per shader stage).
#[test]
fn storage_bindings_needed_is_the_widest_kernels() {
    use talus::gpu::kernel::Access;
    let mut all: Vec<(u32, &str)> = talus::gpu::kernel_decls()
        .iter()
        .map(|d| {
            let storage = d
                .groups
                .iter()
                .flat_map(|g| g.iter())
                .filter(|a| !matches!(**a, Access::Uniform | Access::Unused))
                .count() as u32;
            (storage, d.entry)
        })
        .collect();
    all.sort();
    println!("storage buffers per kernel: {all:?}");
    let (count, entry) = *all.last().unwrap();
    assert_eq!(
        count,
        talus::gpu::STORAGE_BINDINGS_NEEDED,
        "the widest kernel, {entry}, binds {count} storage buffers"
    );
}
