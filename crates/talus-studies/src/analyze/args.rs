//! `talus analyze`'s options, parsed by hand so that every mistake is one
//! line naming the option and what it expects.

use std::path::PathBuf;
use talus::scene::Region;

/// The options of `talus analyze RUN_DIR VERB [options]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    pub region: Option<Region>,
    pub axis: Option<[f64; 3]>,
    pub bins: Option<usize>,
    pub snapshot: Option<String>,
    pub out: Option<PathBuf>,
    pub from: Option<f64>,
    pub to: Option<f64>,
    pub at: Option<f64>,
    pub outlet: Option<String>,
    pub min_contacts: Option<u32>,
    pub trim: Option<f64>,
}

/// The options each takes a value; `(name, help)`.
pub const OPTIONS: [(&str, &str); 11] = [
    (
        "--region",
        "box:x0,y0,z0,x1,y1,z1 or cylinder:cx,cy,cz,ax,ay,az,radius,length",
    ),
    (
        "--axis",
        "x, y, z (optionally signed: -z) or a vector ax,ay,az",
    ),
    ("--bins", "a positive whole number"),
    (
        "--snapshot",
        "an index (negative counts from the end), first or last",
    ),
    ("--out", "a directory"),
    ("--from", "a time (s)"),
    ("--to", "a time (s)"),
    ("--at", "a coordinate along --axis (m)"),
    ("--outlet", "an outlet's name in flow.csv"),
    ("--min-contacts", "a whole number ≥ 1"),
    ("--trim", "a fraction in [0, 0.45]"),
];

fn numbers(s: &str, n: usize, opt: &str, what: &str) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| format!("{opt}: expected {what}, got \"{s}\" (not all numbers)"))?;
    if v.len() != n {
        return Err(format!(
            "{opt}: expected {what} ({n} numbers), got {} in \"{s}\"",
            v.len()
        ));
    }
    Ok(v)
}

/// `box:x0,y0,z0,x1,y1,z1` or `cylinder:cx,cy,cz,ax,ay,az,radius,length`
/// (the cylinder's base centre, its axis, radius and length along it).
pub fn parse_region(s: &str) -> Result<Region, String> {
    let what = OPTIONS[0].1;
    let (kind, rest) = s
        .split_once(':')
        .ok_or_else(|| format!("--region: expected {what}, got \"{s}\""))?;
    match kind.trim() {
        "box" => {
            let v = numbers(rest, 6, "--region", "box:x0,y0,z0,x1,y1,z1")?;
            let (min, max) = ([v[0], v[1], v[2]], [v[3], v[4], v[5]]);
            if (0..3).any(|k| max[k] <= min[k]) {
                return Err(format!(
                    "--region: box \"{s}\": expected each max above its min"
                ));
            }
            Ok(Region::Box { min, max })
        }
        "cylinder" => {
            let v = numbers(
                rest,
                8,
                "--region",
                "cylinder:cx,cy,cz,ax,ay,az,radius,length",
            )?;
            let a = [v[3], v[4], v[5]];
            let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            if l <= 0.0 {
                return Err(format!("--region: cylinder \"{s}\": the axis is zero"));
            }
            if v[6] <= 0.0 || v[7] <= 0.0 {
                return Err(format!(
                    "--region: cylinder \"{s}\": expected a positive radius and length"
                ));
            }
            Ok(Region::Cylinder {
                center: [v[0], v[1], v[2]],
                axis: a.map(|x| x / l),
                radius: v[6],
                length: v[7],
            })
        }
        k => Err(format!("--region: unknown kind \"{k}\"; expected {what}")),
    }
}

/// `x`, `y`, `z`, `-x`, … or `ax,ay,az` (normalised).
pub fn parse_axis(s: &str) -> Result<[f64; 3], String> {
    let t = s.trim();
    let (sign, name) = match t.strip_prefix('-') {
        Some(n) if !n.contains(',') => (-1.0, n),
        _ => (1.0, t.strip_prefix('+').unwrap_or(t)),
    };
    let a = match name {
        "x" => [sign, 0.0, 0.0],
        "y" => [0.0, sign, 0.0],
        "z" => [0.0, 0.0, sign],
        _ => {
            let v = numbers(t, 3, "--axis", "x, y, z or a vector ax,ay,az")?;
            [v[0], v[1], v[2]]
        }
    };
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    if l <= 0.0 {
        return Err(format!("--axis: \"{s}\" is the zero vector"));
    }
    Ok(a.map(|x| x / l))
}

fn number(opt: &str, s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{opt}: expected a number, got \"{s}\""))
}

/// Parses `args` (after the verb); `allowed` lists the options the verb
/// takes.
pub fn parse(verb: &str, args: &[String], allowed: &[&str]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        if !name.starts_with("--") {
            return Err(format!(
                "analyze {verb}: unexpected argument \"{a}\"; expected options such as --bins N"
            ));
        }
        let Some((_, what)) = OPTIONS.iter().find(|o| o.0 == name) else {
            return Err(format!(
                "analyze {verb}: unknown option {name}; expected one of {}",
                allowed.join(", ")
            ));
        };
        if !allowed.contains(&name) {
            return Err(format!(
                "{name}: not an option of `analyze {verb}` (it takes {})",
                allowed.join(", ")
            ));
        }
        let v = match inline {
            Some(v) => v,
            None => it
                .next()
                .cloned()
                .ok_or_else(|| format!("{name}: expected {what} after it"))?,
        };
        match name {
            "--region" => o.region = Some(parse_region(&v)?),
            "--axis" => o.axis = Some(parse_axis(&v)?),
            "--bins" => {
                let n: usize = v.trim().parse().map_err(|_| {
                    format!("--bins: expected a positive whole number, got \"{v}\"")
                })?;
                if n == 0 || n > 100_000 {
                    return Err(format!(
                        "--bins: expected a whole number between 1 and 100000, got {n}"
                    ));
                }
                o.bins = Some(n);
            }
            "--snapshot" => o.snapshot = Some(v),
            "--out" => o.out = Some(PathBuf::from(v)),
            "--from" => o.from = Some(number(name, &v)?),
            "--to" => o.to = Some(number(name, &v)?),
            "--at" => o.at = Some(number(name, &v)?),
            "--outlet" => o.outlet = Some(v),
            "--min-contacts" => {
                let n: u32 = v.trim().parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    format!("--min-contacts: expected a whole number ≥ 1, got \"{v}\"")
                })?;
                o.min_contacts = Some(n);
            }
            "--trim" => {
                let t = number(name, &v)?;
                if !(0.0..=0.45).contains(&t) {
                    return Err(format!("--trim: expected a fraction in [0, 0.45], got {t}"));
                }
                o.trim = Some(t);
            }
            _ => unreachable!("every listed option is handled"),
        }
    }
    if let (Some(a), Some(b)) = (o.from, o.to) {
        if b <= a {
            return Err(format!(
                "--from/--to: expected --to above --from, got {a} and {b}"
            ));
        }
    }
    Ok(o)
}
