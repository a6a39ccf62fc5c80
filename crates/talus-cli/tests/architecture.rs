//! The workspace's structure, checked without building anything:
//!
//! - the layers go one way: the engine (`crates/talus`) depends on no other
//!   member and on no UI, plotting or progress-bar crate; the viewer and
//!   the studies depend on the engine alone; the CLI on all three;
//! - within each crate, no two files import each other, directly or in a loop (a `use`, a
//!   `pub use` re-export or an inline `crate::…`/`super::…`/`child::…` path
//!   is an import; a `mod x;` declaration is not). A path through a
//!   re-export is followed to the file that defines the item; a glob
//!   (`use x::*`) imports the whole file;
//! - the GPU path never imports the CPU path and the scene never reaches
//!   into a backend;
//! - every dependency declared in a crate's `Cargo.toml` is used by it.
//!
//! The reader is a small lexer (comments and string literals dropped),
//! enough for this crate's own sources; it is not a Rust parser.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's root.
fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The member crates' directories (`crates/*`, and the Python package's
/// native module `python/` as `talus-python`), by name.
fn crates() -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(root().join("crates")).unwrap() {
        let p = e.unwrap().path();
        if p.join("Cargo.toml").exists() {
            out.insert(p.file_name().unwrap().to_string_lossy().into_owned(), p);
        }
    }
    out.insert("talus-python".into(), root().join("python"));
    out
}

/// A member's directory by name.
fn member(name: &str) -> PathBuf {
    crates()
        .remove(name)
        .unwrap_or_else(|| panic!("no crate {name}"))
}

/// Source without comments, string and char literals (replaced by `""`).
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied().unwrap_or('\0');
        if c == '/' && next == '/' {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == '"' || next == '#') && !ident_char(b.get(i.wrapping_sub(1)))
        {
            // raw string r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // a char literal ('a', '\n', '\u{..}') or a lifetime ('a)
            if next == '\\' {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // ::
    Punct(char),
}

fn lex(src: &str) -> Vec<Tok> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            // raw identifiers r#name
            let word: String = b[s..i].iter().collect();
            out.push(Tok::Ident(word));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.') {
                if b[i] == '.' && !b.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
                    break;
                }
                i += 1;
            }
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push(Tok::Path);
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// One source file as a module of the library (or a binary).
#[derive(Debug)]
struct File {
    path: String,
    /// Module path (`crate`, `crate::cpu`, …); binaries are `bin:<name>`.
    module: Vec<String>,
    toks: Vec<Tok>,
}

/// Every `.rs` file under a crate's `src/`, with its module path.
fn files(krate: &Path) -> Vec<File> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = krate.join("src");
    let mut paths = Vec::new();
    walk(&src, &mut paths);
    paths.sort();
    let lib_bins = bin_files(krate);
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let mut module = vec!["crate".to_string()];
            if lib_bins.contains(&rel) {
                module = vec![format!("bin:{rel}")];
            } else if rel != "lib.rs" {
                let stem = rel.trim_end_matches(".rs");
                let stem = stem.strip_suffix("/mod").unwrap_or(stem);
                module.extend(stem.split('/').map(String::from));
            }
            let text = std::fs::read_to_string(&p).unwrap();
            File {
                path: format!("src/{rel}"),
                module,
                toks: lex(&strip(&text)),
            }
        })
        .collect()
}

/// Files of the binary (`main.rs` and the modules it declares); none for
/// a library crate.
fn bin_files(krate: &Path) -> BTreeSet<String> {
    let Ok(main) = std::fs::read_to_string(krate.join("src/main.rs")) else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::from(["main.rs".to_string()]);
    let toks = lex(&strip(&main));
    for w in toks.windows(3) {
        if let [Tok::Ident(m), Tok::Ident(name), Tok::Punct(';')] = w {
            if m == "mod" {
                out.insert(format!("{name}.rs"));
            }
        }
    }
    out
}

/// Items a file defines (any visibility): the names a path may end in.
fn defined(toks: &[Tok]) -> BTreeSet<String> {
    let kinds = [
        "struct",
        "enum",
        "fn",
        "const",
        "type",
        "trait",
        "static",
        "union",
        "mod",
        "macro_rules",
    ];
    let mut out = BTreeSet::new();
    for w in toks.windows(2) {
        if let [Tok::Ident(k), Tok::Ident(name)] = w {
            if kinds.contains(&k.as_str()) {
                out.insert(name.clone());
            }
        }
    }
    out
}

/// Use trees of a file, expanded to full paths (as written: relative
/// segments unresolved), each with whether it is `pub` (a re-export) and
/// whether it ends in a glob. Also the inline paths outside `use`.
/// Each path comes with the inline modules (`mod tests { … }`) it stands
/// in, which `super` and `self` are relative to.
struct Paths {
    uses: Vec<(Vec<String>, bool, bool, Vec<String>)>,
    inline: Vec<(Vec<String>, Vec<String>)>,
}

fn paths(toks: &[Tok]) -> Paths {
    let mut uses = Vec::new();
    let mut inline = Vec::new();
    // open inline modules: (name, brace depth inside it)
    let mut mods: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here: Vec<String> = mods.iter().map(|(m, _)| m.clone()).collect();
        match &toks[i] {
            Tok::Punct('{') => {
                depth += 1;
                let opens_mod = i >= 2
                    && toks[i - 2] == Tok::Ident("mod".into())
                    && matches!(toks[i - 1], Tok::Ident(_));
                if opens_mod {
                    if let Tok::Ident(name) = &toks[i - 1] {
                        mods.push((name.clone(), depth));
                    }
                }
            }
            Tok::Punct('}') => {
                if mods.last().is_some_and(|(_, d)| *d == depth) {
                    mods.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        if toks[i] == Tok::Ident("use".into()) {
            let public = i > 0
                && (toks[i - 1] == Tok::Ident("pub".into()) || toks[i - 1] == Tok::Punct(')'));
            let end = (i..toks.len())
                .find(|&k| toks[k] == Tok::Punct(';'))
                .unwrap();
            expand(&toks[i + 1..end], &[], &mut |p, glob| {
                uses.push((p, public, glob, here.clone()))
            });
            i = end + 1;
            continue;
        }
        if let Tok::Ident(first) = &toks[i] {
            let after_path = i > 0 && toks[i - 1] == Tok::Path;
            if !after_path && toks.get(i + 1) == Some(&Tok::Path) {
                let mut p = vec![first.clone()];
                let mut k = i + 1;
                while toks.get(k) == Some(&Tok::Path) {
                    match toks.get(k + 1) {
                        Some(Tok::Ident(s)) => {
                            p.push(s.clone());
                            k += 2;
                        }
                        _ => break,
                    }
                }
                inline.push((p, here));
                i = k;
                continue;
            }
        }
        i += 1;
    }
    Paths { uses, inline }
}

/// Expands one use tree (`a::b::{c, d::{e, self}, f as g, *}`).
fn expand(toks: &[Tok], prefix: &[String], out: &mut dyn FnMut(Vec<String>, bool)) {
    // split at top-level commas
    let mut depth = 0;
    let mut start = 0;
    let mut parts = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                parts.push(&toks[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    // a trailing comma leaves an empty part: it imports nothing
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        let mut p = prefix.to_vec();
        let mut k = 0;
        let mut glob = false;
        while k < part.len() {
            match &part[k] {
                Tok::Ident(s) if s == "as" => break,
                Tok::Ident(s) if s == "self" && !(prefix.is_empty() && k == 0) => {}
                Tok::Ident(s) => p.push(s.clone()),
                Tok::Path => {}
                Tok::Punct('*') => glob = true,
                Tok::Punct('{') => {
                    let inner = &part[k + 1..part.len() - 1];
                    expand(inner, &p, out);
                    p.clear();
                    break;
                }
                _ => {}
            }
            k += 1;
        }
        if !p.is_empty() {
            out(p, glob);
        }
    }
}

struct Tree {
    files: Vec<File>,
    by_module: BTreeMap<Vec<String>, usize>,
    defs: Vec<BTreeSet<String>>,
    /// Per file: re-exported name → the path it re-exports (absolute).
    reexports: Vec<BTreeMap<String, Vec<String>>>,
}

impl Tree {
    fn new(krate: &Path) -> Tree {
        let files = files(krate);
        let by_module = files
            .iter()
            .enumerate()
            .map(|(k, f)| (f.module.clone(), k))
            .collect();
        let defs = files.iter().map(|f| defined(&f.toks)).collect();
        let mut t = Tree {
            files,
            by_module,
            defs,
            reexports: Vec::new(),
        };
        t.reexports = (0..t.files.len())
            .map(|k| {
                let mut m = BTreeMap::new();
                for (p, public, glob, within) in paths(&t.files[k].toks).uses {
                    if public && !glob {
                        let abs = t.absolute(k, &within, &p);
                        m.insert(p.last().unwrap().clone(), abs);
                    }
                }
                m
            })
            .collect();
        t
    }

    /// A path as written in file `k`, made absolute (`crate::…`), or
    /// empty when it names something outside the crate.
    fn absolute(&self, k: usize, within: &[String], p: &[String]) -> Vec<String> {
        let mut here = self.files[k].module.clone();
        here.extend(within.iter().cloned());
        let here = &here;
        let is_bin = here[0].starts_with("bin:");
        let mut out: Vec<String>;
        let mut rest = p;
        match p[0].as_str() {
            "crate" if is_bin => {
                // the binary's own modules: crate::x is the file x.rs
                out = vec![format!("bin:{}.rs", p.get(1).cloned().unwrap_or_default())];
                rest = p.get(2..).unwrap_or(&[]);
            }
            "crate" => {
                out = vec!["crate".into()];
                rest = &p[1..];
            }
            "super" | "self" => {
                out = here.clone();
                while let Some(s) = rest.first() {
                    if s == "super" {
                        out.pop();
                    } else if s != "self" {
                        break;
                    }
                    rest = &rest[1..];
                }
            }
            first => {
                // a child module of this file, or (binary) a sibling file
                let mut child = here.clone();
                child.push(first.to_string());
                if self.by_module.contains_key(&child) {
                    out = child;
                    rest = &p[1..];
                } else if is_bin
                    && self
                        .by_module
                        .contains_key(&vec![format!("bin:{first}.rs")])
                {
                    out = vec![format!("bin:{first}.rs")];
                    rest = &p[1..];
                } else {
                    return Vec::new();
                }
            }
        }
        out.extend(rest.iter().cloned());
        out
    }

    /// The file an absolute path lands in: the deepest file module on it,
    /// followed through re-exports to the file that defines the item.
    fn target(&self, abs: &[String], seen: usize) -> Option<usize> {
        if abs.is_empty() || seen > 16 {
            return None;
        }
        let mut best = None;
        for len in (1..=abs.len()).rev() {
            if let Some(&k) = self.by_module.get(&abs[..len]) {
                best = Some((k, len));
                break;
            }
        }
        let (k, len) = best?;
        if let Some(name) = abs.get(len) {
            if !self.defs[k].contains(name) {
                if let Some(to) = self.reexports[k].get(name) {
                    let mut next = to.clone();
                    next.extend(abs[len + 1..].iter().cloned());
                    if let Some(t) = self.target(&next, seen + 1) {
                        return Some(t);
                    }
                }
            }
        }
        Some(k)
    }

    /// The import edges: file → files it imports (never itself).
    fn edges(&self) -> Vec<BTreeSet<usize>> {
        (0..self.files.len())
            .map(|k| {
                let ps = paths(&self.files[k].toks);
                let all = ps
                    .uses
                    .iter()
                    .map(|(p, _, glob, w)| (p.clone(), *glob, w.clone()))
                    .chain(ps.inline.iter().map(|(p, w)| (p.clone(), false, w.clone())));
                let mut out = BTreeSet::new();
                for (p, glob, within) in all {
                    let abs = self.absolute(k, &within, &p);
                    let t = if glob {
                        self.by_module.get(&abs).copied()
                    } else {
                        self.target(&abs, 0)
                    };
                    if let Some(t) = t {
                        if t != k {
                            out.insert(t);
                        }
                    }
                }
                out
            })
            .collect()
    }
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct S<'a> {
        e: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut S, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in s.e[v].clone().iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let n = edges.len();
    let mut s = S {
        e: edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_file_imports_itself_through_others() {
    let mut msg = String::new();
    for (name, dir) in crates() {
        let t = Tree::new(&dir);
        let e = t.edges();
        for comp in &cycles(&e) {
            let names: BTreeSet<&str> = comp.iter().map(|&k| t.files[k].path.as_str()).collect();
            msg.push_str(&format!("\n  {name}: circle among {names:?}:"));
            for &a in comp {
                for &b in &e[a] {
                    if comp.contains(&b) {
                        msg.push_str(&format!("\n    {} -> {}", t.files[a].path, t.files[b].path));
                    }
                }
            }
        }
    }
    assert!(msg.is_empty(), "import circles:{msg}");
}

#[test]
fn gpu_never_imports_cpu_and_scene_never_reaches_into_a_backend() {
    let t = Tree::new(&member("talus"));
    let e = t.edges();
    let mut bad = Vec::new();
    for (a, out) in e.iter().enumerate() {
        let from = &t.files[a].path;
        for &b in out {
            let to = &t.files[b].path;
            let backend = to.starts_with("src/cpu/") || to.starts_with("src/gpu/");
            if (from.starts_with("src/gpu/") && to.starts_with("src/cpu/"))
                || (from.starts_with("src/scene/") && backend)
            {
                bad.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(bad.is_empty(), "forbidden imports: {bad:?}");
}

/// The checker itself: it sees the edges this crate is known to have (a
/// reader that found nothing would pass the tests above vacuously).
#[test]
fn the_import_reader_sees_known_edges() {
    let t = Tree::new(&member("talus"));
    let e = t.edges();
    let idx = |p: &str| {
        t.files
            .iter()
            .position(|f| f.path == p)
            .unwrap_or_else(|| panic!("{p} missing"))
    };
    let has = |a: &str, b: &str| e[idx(a)].contains(&idx(b));
    assert!(has("src/gpu/mod.rs", "src/gpu/context.rs"));
    assert!(has("src/cpu/contacts.rs", "src/cpu/lanes.rs"));
    // a group with a trailing comma (`use super::{a, b,};`) imports a and
    // b, not the parent itself
    assert!(has("src/gpu/fit.rs", "src/gpu/ghosts.rs"));
    assert!(!has("src/gpu/fit.rs", "src/gpu/mod.rs"));
    let total: usize = e.iter().map(|s| s.len()).sum();
    assert!(total > 60, "only {total} import edges found");
    // the binary's own modules
    let cli = Tree::new(&member("talus-cli"));
    let ce = cli.edges();
    let at = |p: &str| cli.files.iter().position(|f| f.path == p).unwrap();
    assert!(ce[at("src/main.rs")].contains(&at("src/run_cmd.rs")));
    assert!(ce[at("src/run_cmd.rs")].contains(&at("src/progress.rs")));
    // and it finds a circle when there is one
    let mut e2 = e.clone();
    e2[idx("src/gpu/context.rs")].insert(idx("src/gpu/mod.rs"));
    assert!(!cycles(&e2).is_empty());
}

/// A crate's manifest, parsed.
fn manifest(dir: &Path) -> toml::Table {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    text.parse().unwrap()
}

/// Names in a manifest's table (`dependencies`, `dev-dependencies`), the
/// target-specific ones included.
fn deps(doc: &toml::Table, table: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = doc
        .get(table)
        .and_then(|d| d.as_table())
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table()) {
        for t in targets.values() {
            if let Some(d) = t.get(table).and_then(|d| d.as_table()) {
                out.extend(d.keys().cloned());
            }
        }
    }
    out
}

/// The layers: which members each member may depend on, and the crates
/// the engine must not pull in, directly or through another crate.
#[test]
fn layers_go_one_way() {
    let allowed: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("talus", &[][..]),
        ("talus-view", &["talus"][..]),
        ("talus-studies", &["talus"][..]),
        ("talus-cli", &["talus", "talus-view", "talus-studies"][..]),
        ("talus-python", &["talus", "talus-studies"][..]),
    ]);
    let all = crates();
    assert_eq!(
        all.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        allowed.keys().copied().collect::<BTreeSet<_>>(),
        "a new member needs its place in the layers"
    );
    let mut bad = Vec::new();
    for (name, dir) in &all {
        let doc = manifest(dir);
        for table in ["dependencies", "dev-dependencies"] {
            for d in deps(&doc, table) {
                // a crate's dev-dependency on itself turns on its test-only
                // features (the engine's test kernels)
                let own = table == "dev-dependencies" && d == *name;
                if all.contains_key(&d) && !own && !allowed[name.as_str()].contains(&d.as_str()) {
                    bad.push(format!("{name} -> {d} ({table})"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "members depend against the layers: {bad:?}");
    // the engine's whole tree (Cargo.lock's resolution), read from the lock
    // file: no UI, plotting or progress-bar crate anywhere below it
    let lock: toml::Table = std::fs::read_to_string(root().join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let pkgs = lock["package"].as_array().unwrap();
    let dep_names = |name: &str| -> Vec<String> {
        pkgs.iter()
            .filter(|p| p["name"].as_str() == Some(name))
            .flat_map(|p| {
                p.get("dependencies")
                    .and_then(|d| d.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|d| d.as_str())
                    .map(|d| d.split(' ').next().unwrap().to_string())
            })
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut stack = vec!["talus".to_string()];
    while let Some(n) = stack.pop() {
        if seen.insert(n.clone()) {
            stack.extend(dep_names(&n));
        }
    }
    for banned in ["winit", "plotters", "indicatif", "clap", "png"] {
        assert!(
            !seen.contains(banned),
            "the engine's dependency tree holds {banned}"
        );
    }
    assert!(seen.contains("wgpu"), "the lock-file reader found no wgpu");
}

#[test]
fn every_declared_dependency_is_used() {
    let mut unused = Vec::new();
    for (name, dir) in crates() {
        let doc = manifest(&dir);
        let mut text = String::new();
        for sub in ["src", "benches", "tests"] {
            let mut stack = vec![dir.join(sub)];
            while let Some(d) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&d) else {
                    continue;
                };
                for e in rd {
                    let p = e.unwrap().path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "rs") {
                        text.push_str(&strip(&std::fs::read_to_string(&p).unwrap()));
                    }
                }
            }
        }
        let toks = lex(&text);
        let used: BTreeSet<String> = toks
            .windows(2)
            .filter_map(|w| match w {
                [Tok::Ident(a), Tok::Path] => Some(a.clone()),
                _ => None,
            })
            .chain(toks.windows(2).filter_map(|w| match w {
                [Tok::Ident(u), Tok::Ident(a)] if u == "use" => Some(a.clone()),
                _ => None,
            }))
            .collect();
        for table in ["dependencies", "dev-dependencies"] {
            for d in deps(&doc, table) {
                if !used.contains(&d.replace('-', "_")) {
                    unused.push(format!("{name}: {d}"));
                }
            }
        }
    }
    assert!(
        unused.is_empty(),
        "declared in a Cargo.toml but not used: {unused:?}"
    );
}
