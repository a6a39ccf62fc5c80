//! The source tree's structure, checked without building anything:
//!
//! - no two files import each other, directly or in a loop (a `use`, a
//!   `pub use` re-export or an inline `crate::…`/`super::…`/`child::…` path
//!   is an import; a `mod x;` declaration is not). A path through a
//!   re-export is followed to the file that defines the item; a glob
//!   (`use x::*`) imports the whole file;
//! - the GPU path never imports the CPU path and the scene never reaches
//!   into a backend;
//! - every dependency declared in `Cargo.toml` is used.
//!
//! The reader is a small lexer (comments and string literals dropped),
//! enough for this crate's own sources; it is not a Rust parser.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

/// Every `.rs` file under `src/`, with its module path.
fn files() -> Vec<File> {
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
    let src = root().join("src");
    let mut paths = Vec::new();
    walk(&src, &mut paths);
    paths.sort();
    let lib_bins = bin_files();
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

/// Files of the binary crate (`main.rs` and the modules it declares).
fn bin_files() -> BTreeSet<String> {
    let main = std::fs::read_to_string(root().join("src/main.rs")).unwrap();
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
    for part in parts {
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
    fn new() -> Tree {
        let files = files();
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
            "talus" if is_bin => {
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
    let t = Tree::new();
    let e = t.edges();
    let found = cycles(&e);
    let mut msg = String::new();
    for comp in &found {
        let names: BTreeSet<&str> = comp.iter().map(|&k| t.files[k].path.as_str()).collect();
        msg.push_str(&format!("\n  circle among {names:?}:"));
        for &a in comp {
            for &b in &e[a] {
                if comp.contains(&b) {
                    msg.push_str(&format!("\n    {} -> {}", t.files[a].path, t.files[b].path));
                }
            }
        }
    }
    assert!(found.is_empty(), "import circles:{msg}");
}

#[test]
fn gpu_never_imports_cpu_and_scene_never_reaches_into_a_backend() {
    let t = Tree::new();
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
    let t = Tree::new();
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
    assert!(has("src/main.rs", "src/run.rs"));
    let total: usize = e.iter().map(|s| s.len()).sum();
    assert!(total > 60, "only {total} import edges found");
    // and it finds a circle when there is one
    let mut e2 = e.clone();
    e2[idx("src/gpu/context.rs")].insert(idx("src/gpu/mod.rs"));
    assert!(!cycles(&e2).is_empty());
}

#[test]
fn every_declared_dependency_is_used() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let doc: toml::Table = manifest.parse().unwrap();
    let mut text = String::new();
    for dir in ["src", "benches", "tests"] {
        let mut stack = vec![root().join(dir)];
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
    let mut unused = Vec::new();
    for table in ["dependencies", "dev-dependencies"] {
        if let Some(deps) = doc.get(table).and_then(|d| d.as_table()) {
            for name in deps.keys() {
                if !used.contains(&name.replace('-', "_")) {
                    unused.push(name.clone());
                }
            }
        }
    }
    assert!(
        unused.is_empty(),
        "declared in Cargo.toml but not used: {unused:?}"
    );
}
