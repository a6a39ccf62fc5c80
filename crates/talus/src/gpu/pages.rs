//! Arrays larger than one storage binding. A [`Paged`] array is a list of
//! buffers (pages) of at most one binding each (NVIDIA: 2047 MiB through
//! wgpu; lavapipe 128 MiB), so no binding caps how much a run holds: the
//! device's memory does. Page 0 is bound where the shader declares the
//! array; pages 1.. in the same group from binding [`PAGE_BINDINGS`] on,
//! declared by code generated for the run's page counts ([`Paging`],
//! [`generate`]; a group of their own, after two empty ones, read another
//! group's buffers on lavapipe), which
//! also writes the array's accessors `NAME_at(i)` and `NAME_put(i, v)`
//! (with one page, a plain index). Shaders reach a paged array only
//! through them.
//!
//! Which arrays are paged: the list's (`nbr`, `nbr_hist`) and the kept
//! table's (`kept_nbr`, `kept_hist`: at most as long, padded to as many
//! pages), all with one page size in entries (the history's, 16 or 32 bytes: one
//! division finds the page of an entry for all four), and the
//! particles' of more than 4 bytes each and those the reorder moves
//! (`pos`, `diss`, `motion`, `pos_fx`, `clump_row`, `pos_ref`, the work records, which
//! are the reorder's scratch), with one page size in particles (the 64-byte motion
//! record's). The reorder reaches its two arrays by words
//! (`arr_word(p, w)`, records of `G.stride` words, and `scr_word`, of
//! `G.words`).

use super::context::GpuContext;

/// The first binding number of pages 1.. in a group (a stage's own
/// bindings are below it).
pub const PAGE_BINDINGS: u32 = 32;

/// Pages an array may have.
pub const MAX_PAGES: u32 = 32;

/// Which page size an array follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The neighbour list's per-entry arrays.
    Entries,
    /// The particles' arrays.
    Particles,
}

/// How a shader reaches a paged array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// By element: `NAME_at(i)`, `NAME_put(i, v)`.
    Element,
    /// By word of a particle's record of `stride` words (an expression):
    /// `NAME_word(p, w)`, `NAME_word_put(p, w, v)`.
    Words(&'static str),
    /// By integer atomics on a word of a particle's record of `stride`
    /// words: `NAME_add(p, w, v)` (atomicAdd, the old value) and
    /// `NAME_take(p, w)` (atomicExchange with 0, the value).
    Atomics(&'static str),
}

/// A paged array as the shaders declare it.
#[derive(Debug, Clone, Copy)]
pub struct PagedDecl {
    /// The WGSL variable of page 0.
    pub name: &'static str,
    /// The element type.
    pub ty: &'static str,
    pub family: Family,
    pub reach: Reach,
}

const fn paged(name: &'static str, ty: &'static str, family: Family) -> PagedDecl {
    PagedDecl {
        name,
        ty,
        family,
        reach: Reach::Element,
    }
}

/// Every paged array (a shader declaring one of these names pages it;
/// several names may be one array, as each shader calls it).
pub const PAGED: [PagedDecl; 16] = {
    use Family::{Entries as E, Particles as P};
    [
        paged("nbr", "u32", E),
        paged("nbr_hist", "Hist", E),
        paged("kept_nbr", "u32", E),
        paged("kept_hist", "Hist", E),
        paged("pos_rad", "vec4<f32>", P),
        paged("pos", "vec4<f32>", P),
        paged("motion", "Motion", P),
        paged("posfx", "array<u32, FX_WORDS>", P),
        PagedDecl {
            name: "pos_ref",
            ty: "u32",
            family: P,
            reach: Reach::Words("3u"),
        },
        paged("clump_row", "MemberRow", P),
        paged("diss", "f32", P),
        paged("dissipated", "f32", P),
        PagedDecl {
            name: "arr",
            ty: "u32",
            family: P,
            reach: Reach::Words("G.stride"),
        },
        PagedDecl {
            name: "scr",
            ty: "u32",
            family: P,
            reach: Reach::Words("G.words"),
        },
        PagedDecl {
            name: "acc",
            ty: "atomic<u32>",
            family: P,
            reach: Reach::Atomics("P.level_count.z"),
        },
        PagedDecl {
            name: "work",
            ty: "u32",
            family: P,
            reach: Reach::Words("P.level_count.z"),
        },
    ]
};

/// Bytes of the widest element of each family: its page size in elements
/// is what one binding holds of it (the list's: the history's, [`hist_bytes`]).
fn widest(f: Family, roll: bool) -> u64 {
    match f {
        Family::Entries => hist_bytes(roll),
        Family::Particles => 64,
    }
}

/// Bytes of an entry's history on the device (WGSL `Hist`, [`hist_decl`]):
/// ξ and k_t (16), and the rolling torque (16 more) when the run's rolling
/// model has memory (`roll`).
pub fn hist_bytes(roll: bool) -> u64 {
    if roll {
        32
    } else {
        16
    }
}

/// The WGSL of an entry's history (`crate::state::Hist`, on the device only
/// the halves the run uses): `Hist`, with `t` (ξ xyz, k_t) and, when
/// `roll`, `r` (the rolling torque xyz, 0); `hist_new(t, r)` makes one and
/// `hist_roll(h)` reads its rolling torque (zero without one).
pub fn hist_decl(roll: bool) -> &'static str {
    if roll {
        "struct Hist { t: vec4<f32>, r: vec4<f32>, }
         fn hist_new(t: vec4<f32>, r: vec3<f32>) -> Hist { return Hist(t, vec4<f32>(r, 0.0)); }
         fn hist_roll(h: Hist) -> vec3<f32> { return h.r.xyz; }
"
    } else {
        "struct Hist { t: vec4<f32>, }
         fn hist_new(t: vec4<f32>, r: vec3<f32>) -> Hist { return Hist(t); }
         fn hist_roll(h: Hist) -> vec3<f32> { return vec3<f32>(0.0); }
"
    }
}

/// How the paged arrays of a run are split: the shaders are generated for
/// it (the kernels of each `Paging` built once per device).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Paging {
    /// List entries per page.
    pub entry_page: u64,
    /// Pages of the list's arrays (1: one binding holds them).
    pub entry_pages: u32,
    /// Particles per page.
    pub particle_page: u64,
    /// Pages of the particles' arrays.
    pub particle_pages: u32,
    /// The history holds a rolling torque ([`hist_bytes`]).
    pub roll: bool,
}

impl Paging {
    /// The paging of `particles` and a list of `entries` (with a rolling
    /// torque in their history when `roll`) on an adapter whose largest
    /// binding is `max_binding` bytes.
    pub fn new(max_binding: u64, particles: u64, entries: u64, roll: bool) -> Paging {
        let entry_page = per_page(max_binding, Family::Entries, roll);
        let particle_page = per_page(max_binding, Family::Particles, roll);
        Paging {
            entry_page,
            entry_pages: entries.div_ceil(entry_page).max(1) as u32,
            particle_page,
            particle_pages: particles.div_ceil(particle_page).max(1) as u32,
            roll,
        }
    }

    /// One page of everything (the sources the plain tests check).
    pub fn single() -> Paging {
        Paging {
            entry_page: u32::MAX as u64,
            entry_pages: 1,
            particle_page: u32::MAX as u64,
            particle_pages: 1,
            roll: false,
        }
    }

    /// The words that tell pagings apart (the context keys its kernels by
    /// them).
    pub fn key(&self) -> Vec<u64> {
        vec![
            self.entry_page,
            self.entry_pages as u64,
            self.particle_page,
            self.particle_pages as u64,
            self.roll as u64,
        ]
    }

    pub fn of(&self, f: Family) -> (u64, u32) {
        match f {
            Family::Entries => (self.entry_page, self.entry_pages),
            Family::Particles => (self.particle_page, self.particle_pages),
        }
    }
}

/// Elements of family `f` a page holds: what one binding of `max_binding`
/// bytes holds of its widest array, in whole 256-byte blocks, at most what
/// a u32 index reaches.
pub fn per_page(max_binding: u64, f: Family, roll: bool) -> u64 {
    let w = widest(f, roll);
    (max_binding / 256 * 256 / w).clamp(1, u32::MAX as u64)
}

/// One paged declaration found in a shader: the array, its group and
/// binding (page 0) and whether the shader writes it.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    pub decl: PagedDecl,
    pub group: u32,
    pub binding: u32,
    pub write: bool,
}

/// The paged arrays `src` declares (`@group(g) @binding(b) var<storage,
/// ACCESS> NAME: array<...>;` on one line).
pub fn find(src: &str) -> Vec<Found> {
    let num = |s: &str, key: &str| -> Option<u32> {
        let at = s.find(key)? + key.len();
        let end = s[at..].find(')')? + at;
        s[at..end].trim().parse().ok()
    };
    src.lines()
        .filter_map(|line| {
            let line = line.trim();
            if !line.starts_with("@group(") || !line.contains("var<storage") {
                return None;
            }
            let after = &line[line.find('>')? + 1..];
            let name = after.split(':').next()?.trim();
            let decl = *PAGED.iter().find(|d| d.name == name)?;
            Some(Found {
                decl,
                group: num(line, "@group(")?,
                binding: num(line, "@binding(")?,
                write: line.contains("read_write"),
            })
        })
        .collect()
}

/// The binding number of page 1 of each array `found` in a shader (its
/// pages 2.. follow), in the group of its page 0: numbered from
/// [`PAGE_BINDINGS`] on in each group, in the shader's order.
pub fn first_bindings(found: &[Found], paging: &Paging) -> Vec<u32> {
    let mut next = std::collections::HashMap::new();
    found
        .iter()
        .map(|f| {
            let at = next.entry(f.group).or_insert(PAGE_BINDINGS);
            let first = *at;
            *at += paging.of(f.decl.family).1 - 1;
            first
        })
        .collect()
}

/// The declarations of pages 1.. and the accessors of every paged array
/// `src` declares, for `paging`: appended to the shader (WGSL declares in
/// any order).
pub fn generate(src: &str, paging: &Paging) -> String {
    let mut out = String::new();
    let found = find(src);
    if found
        .iter()
        .any(|f| f.decl.name == "nbr_hist" || f.decl.name == "kept_hist")
    {
        out += hist_decl(paging.roll);
    }
    let firsts = first_bindings(&found, paging);
    for (f, first) in found.into_iter().zip(firsts) {
        let (name, ty) = (f.decl.name, f.decl.ty);
        let (page, pages) = paging.of(f.decl.family);
        let access = if f.write { "read_write" } else { "read" };
        for p in 1..pages {
            out += &format!(
                "@group({}) @binding({}) var<storage, {access}> {name}_p{p}: array<{ty}>;\n",
                f.group,
                first + p - 1
            );
        }
        if let Reach::Words(stride) = f.decl.reach {
            out += &words(name, stride, page, pages, f.write);
            continue;
        }
        if let Reach::Atomics(stride) = f.decl.reach {
            out += &atomics(name, stride, page, pages);
            continue;
        }
        if pages == 1 {
            out += &format!("fn {name}_at(i: u32) -> {ty} {{ return {name}[i]; }}\n");
            if f.write {
                out += &format!("fn {name}_put(i: u32, v: {ty}) {{ {name}[i] = v; }}\n");
            }
            continue;
        }
        // page 0 first (the common case of a small list), then the others
        // by the page number
        let pick = |write: bool| pick(name, "p", pages, write);
        out += &format!(
            "fn {name}_at(i: u32) -> {ty} {{\n    if (i < {page}u) {{ return {name}[i]; }}\n    let p = i / {page}u;\n    let o = i - p * {page}u;\n{}}}\n",
            pick(false)
        );
        if f.write {
            out += &format!(
                "fn {name}_put(i: u32, v: {ty}) {{\n    if (i < {page}u) {{ {name}[i] = v; return; }}\n    let p = i / {page}u;\n    let o = i - p * {page}u;\n{}}}\n",
                pick(true)
            );
        }
    }
    out
}

/// The lines of an accessor that read (or write `v` to) element `o` of
/// page `var` (≥ 1) of `name`'s `pages`.
fn pick(name: &str, var: &str, pages: u32, write: bool) -> String {
    let mut s = String::new();
    for p in 1..pages {
        let body = if write {
            format!("{name}_p{p}[o] = v; return;")
        } else {
            format!("return {name}_p{p}[o];")
        };
        if p + 1 < pages {
            s += &format!("    if ({var} == {p}u) {{ {body} }}\n");
        } else {
            s += &format!("    {body}\n");
        }
    }
    s
}

/// The word accessors of `name`, records of `stride` words a particle,
/// `page` particles a page: `NAME_word(p, w)`, `NAME_word_put(p, w, v)`,
/// and `NAME_f32x4(p, w)`, words w..w + 4 as a vec4<f32>.
fn words(name: &str, stride: &str, page: u64, pages: u32, write: bool) -> String {
    let mut out = format!(
        "fn {name}_f32x4(p: u32, w: u32) -> vec4<f32> {{\n    return bitcast<vec4<f32>>(vec4<u32>({name}_word(p, w), {name}_word(p, w + 1u), {name}_word(p, w + 2u), {name}_word(p, w + 3u)));\n}}\n"
    );
    if pages == 1 {
        out += &format!(
            "fn {name}_word(p: u32, w: u32) -> u32 {{ return {name}[p * {stride} + w]; }}\n"
        );
        if write {
            out += &format!(
                "fn {name}_word_put(p: u32, w: u32, v: u32) {{ {name}[p * {stride} + w] = v; }}\n"
            );
        }
        return out;
    }
    let pick = |write: bool| pick(name, "g", pages, write);
    let head = format!("    let g = p / {page}u;\n    let o = (p - g * {page}u) * {stride} + w;\n");
    out += &format!(
        "fn {name}_word(p: u32, w: u32) -> u32 {{\n    if (p < {page}u) {{ return {name}[p * {stride} + w]; }}\n{head}{}}}\n",
        pick(false)
    );
    if write {
        out += &format!(
            "fn {name}_word_put(p: u32, w: u32, v: u32) {{\n    if (p < {page}u) {{ {name}[p * {stride} + w] = v; return; }}\n{head}{}}}\n",
            pick(true)
        );
    }
    out
}

/// The atomic accessors of `name`, records of `stride` words a particle,
/// `page` particles a page: `NAME_add(p, w, v)`, `NAME_take(p, w)` and
/// `NAME_store(p, w, v)`.
fn atomics(name: &str, stride: &str, page: u64, pages: u32) -> String {
    let mut out = String::new();
    for (f, args, op, ret) in [
        ("add", ", v: u32", "atomicAdd(&{}, v)", true),
        ("take", "", "atomicExchange(&{}, 0u)", true),
        ("store", ", v: u32", "atomicStore(&{}, v)", false),
    ] {
        let ty = if ret { " -> u32" } else { "" };
        // the operation on element `at` of `arr`, as the function's last
        // statement or (`early`) one that leaves it
        let stmt = |arr: &str, at: &str, early: bool| {
            let x = op.replace("{}", &format!("{arr}[{at}]"));
            match (ret, early) {
                (true, _) => format!("return {x};"),
                (false, true) => format!("{x}; return;"),
                (false, false) => format!("{x};"),
            }
        };
        let at0 = format!("p * {stride} + w");
        if pages == 1 {
            out += &format!(
                "fn {name}_{f}(p: u32, w: u32{args}){ty} {{ {} }}\n",
                stmt(name, &at0, false)
            );
            continue;
        }
        let mut body = format!(
            "    if (p < {page}u) {{ {} }}\n    let g = p / {page}u;\n    let o = (p - g * {page}u) * {stride} + w;\n",
            stmt(name, &at0, true)
        );
        for p in 1..pages {
            let page_p = format!("{name}_p{p}");
            if p + 1 < pages {
                body += &format!("    if (g == {p}u) {{ {} }}\n", stmt(&page_p, "o", true));
            } else {
                body += &format!("    {}\n", stmt(&page_p, "o", false));
            }
        }
        out += &format!("fn {name}_{f}(p: u32, w: u32{args}){ty} {{\n{body}}}\n");
    }
    out
}

/// An array of elements of `elem` bytes in pages of `per_page` elements,
/// each its own buffer (a buffer, too, is capped: Mesa's at 2 GiB).
pub struct Paged {
    pub pages: Vec<wgpu::Buffer>,
    pub elem: u64,
    pub per_page: u64,
}

/// How the run's storage buffers are used: bound as storage, copied from
/// (readback, growth) and to (uploads).
pub const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

impl Paged {
    /// `len` elements (at least one), the first `bytes` as given, the rest
    /// zero.
    pub fn new(
        ctx: &GpuContext,
        label: &str,
        elem: u64,
        len: u64,
        per_page: u64,
        bytes: &[u8],
    ) -> Paged {
        let len = len.max(1);
        let pages = len.div_ceil(per_page);
        let page_bytes = elem * per_page;
        let pages = (0..pages)
            .map(|p| {
                let n = (len - p * per_page).min(per_page);
                let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("{label} page {p}")),
                    size: (elem * n).max(16),
                    usage: STORAGE,
                    mapped_at_creation: false,
                });
                let from = (p * page_bytes) as usize;
                if from < bytes.len() {
                    let to = bytes.len().min(from + (elem * n) as usize);
                    ctx.queue.write_buffer(&buf, 0, &bytes[from..to]);
                }
                buf
            })
            .collect();
        Paged {
            pages,
            elem,
            per_page,
        }
    }

    /// Adds pages of one element until it has `pages` (bound, never
    /// reached: an array that holds less than others of its family).
    pub fn pad_to(&mut self, ctx: &GpuContext, label: &str, pages: usize) {
        while self.pages.len() < pages {
            let p = self.pages.len();
            self.pages
                .push(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("{label} page {p} (unused)")),
                    size: self.elem.max(16),
                    usage: STORAGE,
                    mapped_at_creation: false,
                }));
        }
    }

    /// Page 0, bound where the shader declares the array.
    pub fn first(&self) -> &wgpu::Buffer {
        &self.pages[0]
    }

    /// Writes `bytes` from byte `at` of the array on (across pages as
    /// they fall).
    pub fn write(&self, queue: &wgpu::Queue, at: u64, bytes: &[u8]) {
        let page = self.elem * self.per_page;
        let (mut at, mut rest) = (at, bytes);
        while !rest.is_empty() {
            let (p, off) = (at / page, at % page);
            let n = rest.len().min((page - off) as usize);
            queue.write_buffer(&self.pages[p as usize], off, &rest[..n]);
            rest = &rest[n..];
            at += n as u64;
        }
    }

    /// Bytes held.
    pub fn size(&self) -> u64 {
        self.pages.iter().map(|b| b.size()).sum()
    }

    /// The buffer pieces of its first `bytes` bytes (from each page's
    /// start), in order.
    pub fn pieces(&self, bytes: u64) -> Vec<(&wgpu::Buffer, u64)> {
        let page = self.elem * self.per_page;
        let mut left = bytes;
        let mut out = Vec::new();
        for b in &self.pages {
            if left == 0 {
                break;
            }
            let n = left.min(page).min(b.size());
            out.push((b, n));
            left -= n;
        }
        assert!(
            left == 0,
            "{bytes} bytes asked of a paged array of {}",
            self.size()
        );
        out
    }
}

/// Something read back from the device by parts: a buffer, or a paged
/// array's pages in order.
pub trait Readable {
    /// The (buffer, bytes from its start) pieces of the first `bytes`.
    fn pieces(&self, bytes: u64) -> Vec<(&wgpu::Buffer, u64)>;
}

impl Readable for wgpu::Buffer {
    fn pieces(&self, bytes: u64) -> Vec<(&wgpu::Buffer, u64)> {
        vec![(self, bytes)]
    }
}

impl Readable for Paged {
    fn pieces(&self, bytes: u64) -> Vec<(&wgpu::Buffer, u64)> {
        Paged::pieces(self, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_paged_declarations() {
        let src = "@group(1) @binding(3) var<storage, read_write> nbr: array<u32>;\n\
                   @group(2) @binding(0) var<storage, read> kept_hist: array<Hist>;\n\
                   @group(0) @binding(1) var<storage, read> cand_pos: array<vec4<f32>>;\n";
        let f = find(src);
        assert_eq!(f.len(), 2, "cand_pos is not paged");
        assert_eq!(
            (f[0].decl.name, f[0].group, f[0].binding, f[0].write),
            ("nbr", 1, 3, true)
        );
        assert_eq!(
            (f[1].decl.name, f[1].group, f[1].binding, f[1].write),
            ("kept_hist", 2, 0, false)
        );
        let one = generate(src, &Paging::single());
        assert!(one.contains("fn nbr_at(i: u32) -> u32 { return nbr[i]; }"));
        assert!(!one.contains("_p1"));
        let three = generate(
            src,
            &Paging {
                entry_page: 1000,
                entry_pages: 3,
                ..Paging::single()
            },
        );
        assert!(
            three.contains("@group(1) @binding(32) var<storage, read_write> nbr_p1: array<u32>;")
        );
        assert!(three.contains("@group(2) @binding(33) var<storage, read> kept_hist_p2"));
        assert!(!three.contains("fn kept_hist_put"), "read-only: no writer");
    }

    #[test]
    fn pages_follow_the_binding() {
        assert_eq!(per_page(128 << 10, Family::Entries, false), 8192);
        let p = Paging::new(128 << 10, 5_000, 20_000, false);
        assert_eq!((p.entry_page, p.entry_pages), (8192, 3));
        assert_eq!((p.particle_page, p.particle_pages), (2048, 3));
        assert_eq!(Paging::new(128 << 10, 0, 0, false).entry_pages, 1);
        // a history with a rolling torque is twice as wide: half a page
        let r = Paging::new(128 << 10, 5_000, 20_000, true);
        assert_eq!((r.entry_page, r.entry_pages), (4096, 5));
    }
}
