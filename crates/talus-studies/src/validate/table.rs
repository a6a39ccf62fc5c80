//! The rows as text: the number format, a row's cells, and the plain-text
//! table printed by `talus validate` (`report.md` uses the same cells).

use super::case_def::CaseRun;
use super::row::{Row, Tol};
use std::fmt::Write as _;

/// A number with 4 significant digits, scientific outside 1e-3..1e5.
pub fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if !x.is_finite() {
        format!("{x}")
    } else if (1e-3..1e5).contains(&x.abs()) {
        let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.3e}")
    }
}

fn error_text(r: &Row) -> String {
    match r.tol {
        Tol::Rel(_) | Tol::Info if r.expected != 0.0 => format!("{:.3} %", 100.0 * r.error()),
        _ => num(r.error()),
    }
}

fn tol_text(r: &Row) -> String {
    match r.tol {
        Tol::Rel(t) => format!("{} %", num(100.0 * t)),
        Tol::Abs(t) => format!("± {}", num(t)),
        Tol::Info => "info".into(),
    }
}

fn verdict(r: &Row) -> &'static str {
    match (r.tol, r.pass()) {
        (Tol::Info, _) => "info",
        (_, true) => "pass",
        (_, false) => "FAIL",
    }
}

pub fn cells(r: &Row) -> [String; 8] {
    [
        r.case.clone(),
        r.quantity.clone(),
        num(r.expected),
        num(r.measured),
        error_text(r),
        tol_text(r),
        verdict(r).into(),
        r.backend.clone(),
    ]
}

pub const HEAD: [&str; 8] = [
    "case",
    "quantity",
    "expected",
    "measured",
    "error",
    "tolerance",
    "result",
    "backend",
];

/// Rows of every case, interleaved by backend per quantity.
pub fn rows_of(run: &CaseRun) -> Vec<&Row> {
    let mut out = Vec::new();
    let lists: Vec<&Vec<Row>> = run
        .results
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok().map(|r| &r.rows))
        .collect();
    let n = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    for i in 0..n {
        for l in &lists {
            if let Some(r) = l.get(i) {
                out.push(r);
            }
        }
    }
    out
}

/// The plain-text table.
pub fn table(all: &[CaseRun]) -> String {
    let mut lines: Vec<[String; 8]> = vec![HEAD.map(String::from)];
    let mut errors = Vec::new();
    for run in all {
        for r in rows_of(run) {
            lines.push(cells(r));
        }
        for (b, r) in &run.results {
            if let Err(e) = r {
                errors.push(format!("case {} on {b}: ERROR {e}", run.def.id));
            }
        }
    }
    let mut w = [0usize; 8];
    for l in &lines {
        for (k, c) in l.iter().enumerate() {
            w[k] = w[k].max(c.chars().count());
        }
    }
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        let mut line = String::new();
        for (k, c) in l.iter().enumerate() {
            let pad = w[k] - c.chars().count();
            if (2..=5).contains(&k) {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                if k < 7 {
                    line.push_str(&" ".repeat(pad));
                }
            }
            if k < 7 {
                line.push_str("  ");
            }
        }
        let _ = writeln!(s, "{}", line.trim_end());
        if i == 0 {
            let _ = writeln!(s, "{}", "-".repeat(w.iter().sum::<usize>() + 14));
        }
    }
    for e in errors {
        let _ = writeln!(s, "{e}");
    }
    s
}
