//! The TOML reader under the scene parser: typed access to tables and
//! values that keeps the line of every key, so that each error names file,
//! line and key, and reports unknown keys (with a "did you mean" hint).
//! Which tables and keys a scene has is in `schema.rs`.

use crate::scene::error::SceneError;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

pub(super) type V<'i> = Spanned<DeValue<'i>>;

pub(super) struct Reader<'a> {
    text: &'a str,
    /// The scene file (names it in errors, anchors relative paths).
    pub(super) file: Option<PathBuf>,
    /// TOML line of every key path read so far.
    pub(super) lines: RefCell<HashMap<String, usize>>,
}

/// A table being read: remembers which keys were taken so the rest can be
/// reported as unknown.
pub(super) struct Tab<'t, 'i> {
    pub(super) path: String,
    table: &'t DeTable<'i>,
    pub(super) line: Option<usize>,
    /// Every key this table may hold, checked as soon as the table is opened
    /// so that a typo (`densty`) is reported as the unknown key it is, not as
    /// the required key it hides (`density`).
    known: &'static [&'static str],
    used: BTreeSet<&'static str>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(text: &'a str, path: Option<&Path>) -> Self {
        Reader {
            text,
            file: path.map(Path::to_path_buf),
            lines: Default::default(),
        }
    }

    /// The root table of the document, its keys checked against `known`.
    pub(super) fn root<'t, 'i>(
        &self,
        table: &'t DeTable<'i>,
        known: &'static [&'static str],
    ) -> Result<Tab<'t, 'i>, SceneError> {
        let root = Tab {
            path: String::new(),
            table,
            line: None,
            known,
            used: BTreeSet::new(),
        };
        self.check_known(&root)?;
        Ok(root)
    }

    pub(super) fn line_of(&self, byte: usize) -> usize {
        let end = byte.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// `name` relative to the scene file's folder (as given when the scene
    /// was parsed from text).
    pub(super) fn beside_scene(&self, name: &str) -> std::path::PathBuf {
        let base = self.file.as_ref().and_then(|p| p.parent());
        base.map(|b| b.join(name)).unwrap_or_else(|| name.into())
    }

    pub(super) fn err(&self, line: Option<usize>, key: &str, msg: impl Into<String>) -> SceneError {
        SceneError {
            file: self.file.clone(),
            line,
            key: key.to_string(),
            message: msg.into(),
        }
    }

    pub(super) fn tab<'t, 'i>(
        &self,
        path: &str,
        v: &'t V<'i>,
        known: &'static [&'static str],
    ) -> Result<Tab<'t, 'i>, SceneError> {
        let l = self.line_of(v.span().start);
        let line = Some(l);
        match v.get_ref() {
            DeValue::Table(t) => {
                self.lines.borrow_mut().insert(path.to_string(), l);
                let t = Tab {
                    path: path.to_string(),
                    table: t,
                    line,
                    known,
                    used: BTreeSet::new(),
                };
                self.check_known(&t)?;
                Ok(t)
            }
            other => Err(self.err(
                line,
                path,
                format!("expected a table, found {}", kind(other)),
            )),
        }
    }

    /// Reports the first key of `t` that is not in its list of known keys.
    pub(super) fn check_known(&self, t: &Tab) -> Result<(), SceneError> {
        for (k, _) in t.table.iter() {
            let name: &str = k.get_ref().as_ref();
            if !t.known.contains(&name) {
                let hint = t
                    .known
                    .iter()
                    .map(|c| (edit_distance(name, c), *c))
                    .filter(|&(d, c)| d <= (c.len() / 3).max(1))
                    .min()
                    .map(|(_, c)| format!("did you mean \"{c}\"? "))
                    .unwrap_or_default();
                return Err(self.err(
                    Some(self.line_of(k.span().start)),
                    &join(&t.path, name),
                    format!(
                        "unknown key ({hint}known keys here: {})",
                        t.known.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn get<'t, 'i>(&self, t: &mut Tab<'t, 'i>, key: &'static str) -> Option<&'t V<'i>> {
        debug_assert!(
            t.known.contains(&key),
            "{key} missing from the known keys of {}",
            t.path
        );
        t.used.insert(key);
        let (k, v) = t.table.get_key_value(key)?;
        let path = join(&t.path, key);
        self.lines
            .borrow_mut()
            .insert(path, self.line_of(k.span().start));
        Some(v)
    }

    /// Whether `t` holds `key`, without taking it (to tell a table's
    /// forms apart before reading one).
    pub(super) fn has(&self, t: &Tab, key: &str) -> bool {
        t.table.get(key).is_some()
    }

    pub(super) fn finish(&self, t: Tab) -> Result<(), SceneError> {
        for (k, _) in t.table.iter() {
            if !t.used.contains(k.get_ref().as_ref()) {
                let mut known: Vec<&str> = t.used.iter().copied().collect();
                known.sort();
                return Err(self.err(
                    Some(self.line_of(k.span().start)),
                    &join(&t.path, k.get_ref()),
                    format!("unknown key (known keys here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn required<'t, 'i>(
        &self,
        t: &mut Tab<'t, 'i>,
        key: &'static str,
        what: &str,
    ) -> Result<&'t V<'i>, SceneError> {
        self.get(t, key).ok_or_else(|| {
            self.err(
                t.line,
                &join(&t.path, key),
                format!("missing key (expected {what})"),
            )
        })
    }

    pub(super) fn vline(&self, v: &V) -> Option<usize> {
        Some(self.line_of(v.span().start))
    }

    pub(super) fn num(&self, path: &str, v: &V) -> Result<f64, SceneError> {
        let x = match v.get_ref() {
            DeValue::Float(f) => parse_float(f.as_str()),
            DeValue::Integer(i) => parse_int(i.as_str(), i.radix()).map(|x| x as f64),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() => Ok(x),
            Some(_) => Err(self.err(self.vline(v), path, "expected a finite number")),
            None => Err(self.err(
                self.vline(v),
                path,
                format!("expected a number, found {}", kind(v.get_ref())),
            )),
        }
    }

    pub(super) fn int(&self, path: &str, v: &V) -> Result<u64, SceneError> {
        let x = match v.get_ref() {
            DeValue::Integer(i) => parse_int(i.as_str(), i.radix()),
            _ => None,
        };
        match x {
            Some(x) if x >= 0 => Ok(x as u64),
            _ => Err(self.err(
                self.vline(v),
                path,
                format!(
                    "expected a non-negative integer, found {}",
                    describe(v.get_ref())
                ),
            )),
        }
    }

    pub(super) fn string<'t>(&self, path: &str, v: &'t V) -> Result<&'t str, SceneError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.as_ref()),
            other => Err(self.err(
                self.vline(v),
                path,
                format!("expected a string, found {}", kind(other)),
            )),
        }
    }

    pub(super) fn boolean(&self, path: &str, v: &V) -> Result<bool, SceneError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            other => Err(self.err(
                self.vline(v),
                path,
                format!("expected true or false, found {}", kind(other)),
            )),
        }
    }

    pub(super) fn array<'t, 'i>(
        &self,
        path: &str,
        v: &'t V<'i>,
    ) -> Result<&'t DeArray<'i>, SceneError> {
        match v.get_ref() {
            DeValue::Array(a) => Ok(a),
            other => Err(self.err(
                self.vline(v),
                path,
                format!("expected an array, found {}", kind(other)),
            )),
        }
    }

    pub(super) fn vec3(&self, path: &str, v: &V) -> Result<[f64; 3], SceneError> {
        let a = self.array(path, v)?;
        if a.len() != 3 {
            return Err(self.err(
                self.vline(v),
                path,
                format!("expected 3 numbers [x, y, z], found {} values", a.len()),
            ));
        }
        let mut out = [0.0; 3];
        for (i, x) in a.iter().enumerate() {
            out[i] = self.num(&format!("{path}[{i}]"), x)?;
        }
        Ok(out)
    }

    pub(super) fn bool3(&self, path: &str, v: &V) -> Result<[bool; 3], SceneError> {
        let a = self.array(path, v)?;
        if a.len() != 3 {
            return Err(self.err(
                self.vline(v),
                path,
                format!("expected 3 booleans [x, y, z], found {} values", a.len()),
            ));
        }
        let mut out = [false; 3];
        for (i, x) in a.iter().enumerate() {
            out[i] = self.boolean(&format!("{path}[{i}]"), x)?;
        }
        Ok(out)
    }

    pub(super) fn opt_num(
        &self,
        t: &mut Tab,
        key: &'static str,
    ) -> Result<Option<f64>, SceneError> {
        match self.get(t, key) {
            Some(v) => Ok(Some(self.num(&join(&t.path, key), v)?)),
            None => Ok(None),
        }
    }

    pub(super) fn req_num(
        &self,
        t: &mut Tab,
        key: &'static str,
        what: &str,
    ) -> Result<f64, SceneError> {
        let v = self.required(t, key, what)?;
        self.num(&join(&t.path, key), v)
    }

    pub(super) fn table_array<'t, 'i>(
        &self,
        root: &mut Tab<'t, 'i>,
        key: &'static str,
        known: &'static [&'static str],
    ) -> Result<Vec<Tab<'t, 'i>>, SceneError> {
        let Some(v) = self.get(root, key) else {
            return Ok(Vec::new());
        };
        let a = self.array(key, v).map_err(|mut e| {
            e.message = format!("{} (write [[{key}]] tables)", e.message);
            e
        })?;
        a.iter()
            .enumerate()
            .map(|(i, v)| self.tab(&format!("{key}[{i}]"), v, known))
            .collect()
    }
}

pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Levenshtein distance (for "did you mean" hints).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

pub(super) fn kind(v: &DeValue) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn describe(v: &DeValue) -> Cow<'static, str> {
    match v {
        DeValue::Integer(i) => i.as_str().to_string().into(),
        DeValue::Float(f) => f.as_str().to_string().into(),
        other => kind(other).into(),
    }
}

fn parse_int(s: &str, radix: u32) -> Option<i64> {
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    let body = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0o"))
        .or_else(|| clean.strip_prefix("0b"))
        .unwrap_or(&clean);
    i64::from_str_radix(body, radix).ok()
}

fn parse_float(s: &str) -> Option<f64> {
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    match clean.as_str() {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        x => x.parse().ok(),
    }
}
