//! The cases' options: `talus validate --set KEY=VALUE`, listed by
//! `talus validate --list-options`. Each case declares its own
//! ([`CaseDef::options`](super::CaseDef::options): a key `case.name`, a
//! type, the default and one line of help) and reads them from the
//! [`Options`] handed to it. Unset, every option is the judged case's
//! value; set, most make a diagnostic run (the report lists them). This
//! file knows no case: the registry ([`Catalogue`]) is built from the
//! cases' list (`cases::catalogue`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What an option's value must be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A finite number at least this.
    AtLeast(f64),
    /// A finite number above this.
    Above(f64),
    /// A whole number at least this.
    Whole(usize),
    /// A comma-separated list of finite numbers above 0.
    Positives,
    /// A comma-separated list of some of these numbers.
    NumbersOf(&'static [f64]),
    /// A comma-separated list of some of these names.
    NamesOf(&'static [&'static str]),
    /// One of these names.
    OneOf(&'static [&'static str]),
    /// `true` or `false` (also `1` or `0`).
    Bool,
    /// Any text that is not empty (a path; part of a name the case checks).
    Text,
}

impl Kind {
    /// The type column of `--list-options`.
    pub fn describe(&self) -> String {
        let join = |xs: Vec<String>, sep: &str| xs.join(sep);
        match self {
            Kind::AtLeast(b) => format!("number ≥ {b}"),
            Kind::Above(b) => format!("number > {b}"),
            Kind::Whole(b) => format!("whole number ≥ {b}"),
            Kind::Positives => "list of numbers > 0".into(),
            Kind::NumbersOf(xs) => format!(
                "list of {}",
                join(xs.iter().map(|x| x.to_string()).collect(), ",")
            ),
            Kind::NamesOf(xs) => format!(
                "list of {}",
                join(xs.iter().map(|x| x.to_string()).collect(), ",")
            ),
            Kind::OneOf(xs) => join(xs.iter().map(|x| x.to_string()).collect(), "|"),
            Kind::Bool => "true|false".into(),
            Kind::Text => "text".into(),
        }
    }

    fn is_list(&self) -> bool {
        matches!(
            self,
            Kind::Positives | Kind::NumbersOf(_) | Kind::NamesOf(_)
        )
    }
}

/// One option of a case.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// `case.name`: the case's id, a dot, the option's name.
    pub key: &'static str,
    pub kind: Kind,
    /// What a bad value's message says was expected ("a time ≥ 0 in
    /// seconds"; for a list, what each item is).
    pub expected: &'static str,
    /// The judged case's value as it would be written after `=`, or in
    /// parentheses what leaving the option unset does ("(all four)").
    pub default: &'static str,
    /// One line: what the option changes.
    pub help: &'static str,
}

/// A parsed value.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Number(f64),
    Whole(usize),
    Numbers(Vec<f64>),
    Names(Vec<String>),
    Bool(bool),
    Text(String),
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Each comma-separated item through `item`; None if any fails or there
/// are none.
fn list<T>(s: &str, item: impl Fn(&str) -> Option<T>) -> Option<Vec<T>> {
    let xs: Option<Vec<T>> = s.split(',').map(|x| item(x.trim())).collect();
    xs.filter(|xs| !xs.is_empty())
}

impl Spec {
    /// `text` as this option's value, or one line naming the key, what
    /// was expected and what it got.
    fn parse(&self, text: &str) -> Result<Value, String> {
        let v = text.trim();
        let parsed = match self.kind {
            Kind::AtLeast(b) => number(v).filter(|x| *x >= b).map(Value::Number),
            Kind::Above(b) => number(v).filter(|x| *x > b).map(Value::Number),
            Kind::Whole(b) => v
                .parse::<usize>()
                .ok()
                .filter(|n| *n >= b)
                .map(Value::Whole),
            Kind::Positives => list(v, |x| number(x).filter(|x| *x > 0.0)).map(Value::Numbers),
            Kind::NumbersOf(xs) => {
                list(v, |x| number(x).filter(|x| xs.contains(x))).map(Value::Numbers)
            }
            Kind::NamesOf(xs) => {
                list(v, |x| xs.contains(&x).then(|| x.to_string())).map(Value::Names)
            }
            Kind::OneOf(xs) => xs.contains(&v).then(|| Value::Text(v.to_string())),
            Kind::Bool => match v {
                "true" | "1" => Some(Value::Bool(true)),
                "false" | "0" => Some(Value::Bool(false)),
                _ => None,
            },
            Kind::Text => (!v.is_empty()).then(|| Value::Text(v.to_string())),
        };
        parsed.ok_or_else(|| {
            if self.kind.is_list() {
                format!(
                    "{}: expected a comma-separated list of {}, got {text:?}",
                    self.key, self.expected
                )
            } else {
                format!("{}: expected {}, got {text:?}", self.key, self.expected)
            }
        })
    }
}

/// Every case's options, grouped by case: (id, title, options).
pub struct Catalogue(pub Vec<(&'static str, &'static str, &'static [Spec])>);

impl Catalogue {
    /// The option with this key.
    pub fn spec(&self, key: &str) -> Option<&'static Spec> {
        self.0.iter().flat_map(|g| g.2).find(|s| s.key == key)
    }

    /// The options of `KEY=VALUE` words (`--set`, repeatable; a later
    /// word sets a key again). An unknown key or a bad value is one line
    /// naming the key and what was expected.
    pub fn parse<S: AsRef<str>>(&self, words: &[S]) -> Result<Options, String> {
        let mut o = Options::default();
        for w in words {
            let w = w.as_ref();
            let Some((key, value)) = w.split_once('=') else {
                return Err(format!(
                    "{w}: expected KEY=VALUE (talus validate --list-options lists the keys)"
                ));
            };
            let key = key.trim();
            let s = self.spec(key).ok_or_else(|| self.unknown(key))?;
            let v = s.parse(value)?;
            o.values.insert(s.key, (v, value.trim().to_string()));
        }
        Ok(o)
    }

    /// The message for a key no case has: the case's options when the
    /// case is known, else the cases that have options.
    fn unknown(&self, key: &str) -> String {
        let case = key.split_once('.').map_or("", |(c, _)| c);
        match self.0.iter().find(|g| g.0 == case && !g.2.is_empty()) {
            Some(g) => {
                let keys: Vec<&str> = g.2.iter().map(|s| s.key).collect();
                format!(
                    "{key}: expected one of {case}'s options ({}); talus validate --list-options lists them",
                    keys.join(", ")
                )
            }
            None => {
                let ids: Vec<&str> = self
                    .0
                    .iter()
                    .filter(|g| !g.2.is_empty())
                    .map(|g| g.0)
                    .collect();
                format!(
                    "{key}: expected an option case.name of one of the cases {}; talus validate --list-options lists them",
                    ids.join(", ")
                )
            }
        }
    }

    /// `talus validate --list-options`: every case's options, grouped by
    /// case: key, type, default, help.
    pub fn listing(&self) -> String {
        let all: Vec<&Spec> = self.0.iter().flat_map(|g| g.2).collect();
        let width = |f: &dyn Fn(&Spec) -> String| {
            all.iter().map(|s| f(s).chars().count()).max().unwrap_or(0)
        };
        let wk = width(&|s| s.key.to_string());
        let wt = width(&|s| s.kind.describe());
        let wd = width(&|s| s.default.to_string());
        let pad =
            |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())));
        let mut out = String::from(
            "talus validate --set KEY=VALUE (repeatable) sets an option; unset, each is the judged case's default.\n",
        );
        let _ = writeln!(
            out,
            "\n  {}  {}  {}  HELP",
            pad("KEY", wk),
            pad("TYPE", wt),
            pad("DEFAULT", wd)
        );
        for (id, title, specs) in self.0.iter().filter(|g| !g.2.is_empty()) {
            let _ = writeln!(out, "\n{id}: {title}");
            for s in specs.iter() {
                let _ = writeln!(
                    out,
                    "  {}  {}  {}  {}",
                    pad(s.key, wk),
                    pad(&s.kind.describe(), wt),
                    pad(s.default, wd),
                    s.help
                );
            }
        }
        out
    }
}

/// The options set for a run (`--set`, through [`Catalogue::parse`]);
/// what is not set is the judged case's default. A case reads its own
/// keys with the accessor of their type; `cases`' tests check that every
/// key the cases read is declared with that type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// key → (value, the text it was given as).
    values: BTreeMap<&'static str, (Value, String)>,
}

impl Options {
    /// Nothing set: every case as judged.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The options set, `KEY=VALUE` each, in key order.
    pub fn words(&self) -> Vec<String> {
        self.values
            .iter()
            .map(|(k, (_, text))| format!("{k}={text}"))
            .collect()
    }

    /// The text `key` was set to (for a case's own messages).
    pub fn text_of(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|(_, t)| t.as_str())
    }

    fn value(&self, key: &str) -> Option<&Value> {
        self.values.get(key).map(|(v, _)| v)
    }

    /// A number option ([`Kind::AtLeast`], [`Kind::Above`]).
    pub fn number(&self, key: &str) -> Option<f64> {
        match self.value(key)? {
            Value::Number(x) => Some(*x),
            v => mistyped(key, v),
        }
    }

    /// A whole-number option ([`Kind::Whole`]).
    pub fn whole(&self, key: &str) -> Option<usize> {
        match self.value(key)? {
            Value::Whole(n) => Some(*n),
            v => mistyped(key, v),
        }
    }

    /// A list of numbers ([`Kind::Positives`], [`Kind::NumbersOf`]).
    pub fn numbers(&self, key: &str) -> Option<&[f64]> {
        match self.value(key)? {
            Value::Numbers(xs) => Some(xs),
            v => mistyped(key, v),
        }
    }

    /// A list of names ([`Kind::NamesOf`]).
    pub fn names(&self, key: &str) -> Option<&[String]> {
        match self.value(key)? {
            Value::Names(xs) => Some(xs),
            v => mistyped(key, v),
        }
    }

    /// A name or a text ([`Kind::OneOf`], [`Kind::Text`]).
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.value(key)? {
            Value::Text(t) => Some(t),
            v => mistyped(key, v),
        }
    }

    /// A switch ([`Kind::Bool`]): false unless set true.
    pub fn flag(&self, key: &str) -> bool {
        match self.value(key) {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(v) => mistyped(key, v),
        }
    }
}

/// A case read its option as another type than it declared: a slip in
/// the code (the cases' tests catch it for every literal key).
fn mistyped(key: &str, v: &Value) -> ! {
    panic!("option {key} ({v:?}) read as another type")
}

#[cfg(test)]
mod tests {
    use super::*;

    const POSITIVE: Spec = Spec {
        key: "t.x",
        kind: Kind::Above(0.0),
        expected: "a positive number",
        default: "1",
        help: "",
    };

    #[test]
    fn a_value_parses_or_names_its_key() {
        assert_eq!(POSITIVE.parse(" 4 "), Ok(Value::Number(4.0)));
        for bad in ["four", "0", "-1", "nan", "inf", ""] {
            assert_eq!(
                POSITIVE.parse(bad),
                Err(format!("t.x: expected a positive number, got {bad:?}"))
            );
        }
        let n = Spec {
            kind: Kind::Whole(1),
            expected: "a whole number ≥ 1",
            ..POSITIVE
        };
        assert_eq!(n.parse("26000"), Ok(Value::Whole(26000)));
        for bad in ["2.5", "0", "-3", "many"] {
            let e = n.parse(bad).unwrap_err();
            assert!(e.starts_with("t.x: expected a whole number ≥ 1"), "{e}");
        }
        let b = Spec {
            kind: Kind::Bool,
            expected: "true or false",
            ..POSITIVE
        };
        assert_eq!(b.parse("true"), Ok(Value::Bool(true)));
        assert_eq!(b.parse("0"), Ok(Value::Bool(false)));
        assert_eq!(
            b.parse("yes"),
            Err("t.x: expected true or false, got \"yes\"".into())
        );
        let c = Spec {
            kind: Kind::OneOf(&["silo", "hopper"]),
            expected: "\"silo\" or \"hopper\"",
            ..POSITIVE
        };
        assert_eq!(c.parse("hopper"), Ok(Value::Text("hopper".into())));
        assert_eq!(
            c.parse("both"),
            Err("t.x: expected \"silo\" or \"hopper\", got \"both\"".into())
        );
    }

    #[test]
    fn a_list_rejects_any_bad_item() {
        let f = Spec {
            kind: Kind::NumbersOf(&[10.0, 5.0, 4.0, 2.0]),
            expected: "frequencies in Hz (10, 5, 4, 2)",
            ..POSITIVE
        };
        assert_eq!(f.parse("10, 4"), Ok(Value::Numbers(vec![10.0, 4.0])));
        for bad in ["10,x", "", "10,,4", "-2", "3"] {
            assert_eq!(
                f.parse(bad),
                Err(format!(
                    "t.x: expected a comma-separated list of frequencies in Hz (10, 5, 4, 2), got {bad:?}"
                ))
            );
        }
        let n = Spec {
            kind: Kind::NamesOf(&["A", "B", "C"]),
            expected: "the runs' names (A, B, C)",
            ..POSITIVE
        };
        assert_eq!(
            n.parse("A,C"),
            Ok(Value::Names(vec!["A".into(), "C".into()]))
        );
        assert!(n.parse("A,D").is_err());
        let p = Spec {
            kind: Kind::Positives,
            ..POSITIVE
        };
        assert_eq!(
            p.parse("10, 14,20"),
            Ok(Value::Numbers(vec![10.0, 14.0, 20.0]))
        );
        assert!(p.parse("10,0").is_err());
    }

    /// A made catalogue: two cases, one without options.
    fn catalogue() -> Catalogue {
        const A: &[Spec] = &[
            Spec {
                key: "a.count",
                kind: Kind::Whole(1),
                expected: "a whole number ≥ 1",
                default: "13000",
                help: "spheres",
            },
            Spec {
                key: "a.debug",
                kind: Kind::Bool,
                expected: "true or false",
                default: "false",
                help: "progress",
            },
            Spec {
                key: "a.only",
                kind: Kind::NumbersOf(&[10.0, 4.0]),
                expected: "frequencies (10, 4)",
                default: "(both)",
                help: "only these",
            },
        ];
        Catalogue(vec![("a", "case a", A), ("b", "case b", &[])])
    }

    #[test]
    fn parse_names_unknown_keys_and_bad_values() {
        let c = catalogue();
        let o = c.parse(&["a.count=26000"]).unwrap();
        assert_eq!(o.whole("a.count"), Some(26000));
        assert!(!o.flag("a.debug"));
        assert_eq!(o.numbers("a.only"), None);
        assert_eq!(
            c.parse(&["a.cnt=2"]).unwrap_err(),
            "a.cnt: expected one of a's options (a.count, a.debug, a.only); talus validate --list-options lists them"
        );
        for key in ["b.x", "nosuch.key", "count"] {
            assert_eq!(
                c.parse(&[format!("{key}=1")]).unwrap_err(),
                format!("{key}: expected an option case.name of one of the cases a; talus validate --list-options lists them")
            );
        }
        assert_eq!(
            c.parse(&["a.count=lots"]).unwrap_err(),
            "a.count: expected a whole number ≥ 1, got \"lots\""
        );
        let e = c.parse(&["a.debug"]).unwrap_err();
        assert!(e.starts_with("a.debug: expected KEY=VALUE"), "{e}");
        let o = c.parse(&["a.only=10,4", "a.debug=1", "a.only= 4"]).unwrap();
        assert_eq!(o.numbers("a.only"), Some(&[4.0][..]));
        assert!(o.flag("a.debug"));
        assert_eq!(o.words(), ["a.debug=1", "a.only=4"]);
        assert_eq!(o.text_of("a.only"), Some("4"));
    }

    #[test]
    fn the_listing_groups_the_options_by_case() {
        let l = catalogue().listing();
        let line = l.lines().find(|l| l.contains("a.count")).unwrap();
        for f in ["whole number ≥ 1", "13000", "spheres"] {
            assert!(line.contains(f), "{line}");
        }
        assert!(l.contains("\na: case a\n") && !l.contains("case b"), "{l}");
        assert!(l.contains("list of 10,4") && l.contains("(both)"), "{l}");
    }

    #[test]
    #[should_panic(expected = "option a.count (Whole(3)) read as another type")]
    fn reading_an_option_as_another_type_is_a_slip() {
        catalogue().parse(&["a.count=3"]).unwrap().number("a.count");
    }
}
