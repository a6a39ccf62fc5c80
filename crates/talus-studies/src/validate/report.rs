//! The report directory written by `talus validate`: `report.md` (with the
//! table's cells from `table.rs`), the plots and the per-point data files.

use super::case_def::CaseRun;
use super::liggghts::Liggghts;
use super::result::Plot;
use super::table::{cells, num, rows_of, HEAD};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The plot of `stem` over every backend: theory series once, measured
/// series labelled with their backend.
fn merged_plot(run: &CaseRun, stem: &str) -> Option<Plot> {
    let mut out: Option<Plot> = None;
    for (b, r) in &run.results {
        let Ok(r) = r else { continue };
        let Some(p) = r.plots.iter().find(|p| p.stem == stem) else {
            continue;
        };
        let multi = run.results.len() > 1;
        let mut measured: Vec<_> = p
            .series
            .iter()
            .filter(|s| !s.theory)
            .cloned()
            .map(|mut s| {
                if multi {
                    s.label = format!("{} ({b})", s.label);
                }
                s
            })
            .collect();
        match &mut out {
            None => {
                let mut q = p.clone();
                q.series.retain(|s| s.theory);
                q.series.append(&mut measured);
                out = Some(q);
            }
            Some(q) => q.series.append(&mut measured),
        }
    }
    out
}

/// Writes `report.md`, the PNGs and `data/<case>.csv` into `out`.
pub fn write(
    out: &Path,
    all: &[CaseRun],
    lig: Option<&Liggghts>,
    skipped: &[String],
    full: bool,
) -> std::io::Result<()> {
    std::fs::create_dir_all(out.join("data"))?;
    let mut md = String::new();
    let backends: Vec<String> = all
        .first()
        .map(|r| r.results.iter().map(|(b, _)| b.clone()).collect())
        .unwrap_or_default();
    let total: usize = all.iter().map(|r| rows_of(r).len()).sum();
    let failed: usize = all
        .iter()
        .map(|r| {
            rows_of(r).iter().filter(|x| !x.pass()).count()
                + r.results.iter().filter(|x| x.1.is_err()).count()
        })
        .sum();
    let _ = writeln!(md, "# talus validation report\n");
    let _ = writeln!(
        md,
        "Written by `talus validate` on backends {} ({}). {total} rows, {failed} failed. Cases, sources and tolerances: `docs/validation.md`. A \"rigid\" wall is a plane whose material has {:.0e} × the sphere's Young's modulus and the same Poisson ratio; expected values use the E* actually set.\n",
        backends.join(", "),
        if full { "all cases, --full" } else { "CI cases; --full adds the packing" },
        super::theory::RIGID_FACTOR
    );
    for s in skipped {
        let _ = writeln!(md, "- {s}");
    }
    if !super::plot::have_font() {
        let _ = writeln!(
            md,
            "The shipped font could not be registered: plots have no text; the captions give the axes.\n"
        );
    }
    if let Some(l) = lig {
        let _ = writeln!(
            md,
            "LIGGGHTS column: `{}` ({} values, from `validation/liggghts/run.sh`).\n",
            l.file.display(),
            l.values.len()
        );
    }
    for run in all {
        let d = run.def;
        let _ = writeln!(md, "## Case {}: {}\n", d.id, d.title);
        let _ = writeln!(md, "Source: {}.\n", d.source);
        for (b, r) in &run.results {
            match r {
                Ok(r) => {
                    for n in &r.notes {
                        let _ = writeln!(md, "- {b}: {n}");
                    }
                    let _ = writeln!(md, "- {b}: {:.1} s", r.seconds);
                }
                Err(e) => {
                    let _ = writeln!(md, "- {b}: **ERROR** {e}");
                }
            }
        }
        let _ = writeln!(md);
        let _ = writeln!(md, "| {} |", HEAD.join(" | "));
        let _ = writeln!(md, "|{}", "---|".repeat(8));
        for r in rows_of(run) {
            let c = cells(r).map(|c| c.replace('|', "\\|"));
            let _ = writeln!(md, "| {} |", c.join(" | "));
        }
        let _ = writeln!(md);
        // per-point values: data file, and the LIGGGHTS comparison
        let mut pts: BTreeMap<(String, String, String), BTreeMap<String, f64>> = BTreeMap::new();
        let mut csv = String::from("backend,case,point,quantity,value\n");
        let mut order = Vec::new();
        for (b, r) in &run.results {
            if let Ok(r) = r {
                for p in &r.points {
                    let key = (p.case.clone(), p.point.clone(), p.quantity.clone());
                    if !pts.contains_key(&key) {
                        order.push(key.clone());
                    }
                    pts.entry(key).or_default().insert(b.clone(), p.value);
                    let _ = writeln!(
                        csv,
                        "{b},{},{},{},{:e}",
                        p.case, p.point, p.quantity, p.value
                    );
                }
            }
        }
        std::fs::write(out.join("data").join(format!("{}.csv", d.id)), csv)?;
        if let Some(l) = lig {
            let with: Vec<_> = order.iter().filter(|k| l.values.contains_key(*k)).collect();
            if !with.is_empty() {
                let _ = writeln!(md, "Against LIGGGHTS 3.8 (same inputs):\n");
                let _ = write!(md, "| point | quantity |");
                for b in &backends {
                    let _ = write!(md, " talus {b} |");
                }
                let _ = writeln!(
                    md,
                    " LIGGGHTS | talus {} − LIGGGHTS |",
                    backends.first().map(|s| s.as_str()).unwrap_or("")
                );
                let _ = writeln!(md, "|{}", "---|".repeat(4 + backends.len()));
                for k in with {
                    let lv = l.values[k];
                    let _ = write!(md, "| {} | {} |", k.1, k.2);
                    for b in &backends {
                        let v = pts[k].get(b).copied();
                        let _ = write!(md, " {} |", v.map(num).unwrap_or_default());
                    }
                    let first = backends.first().and_then(|b| pts[k].get(b)).copied();
                    let diff = first
                        .map(|v| {
                            if lv != 0.0 {
                                format!("{:.3} %", 100.0 * (v - lv) / lv.abs())
                            } else {
                                num(v - lv)
                            }
                        })
                        .unwrap_or_default();
                    let _ = writeln!(md, " {} | {diff} |", num(lv));
                }
                let _ = writeln!(md);
            }
        }
        let mut stems: Vec<String> = Vec::new();
        for (_, r) in &run.results {
            if let Ok(r) = r {
                for p in &r.plots {
                    if !stems.contains(&p.stem) {
                        stems.push(p.stem.clone());
                    }
                }
            }
        }
        for stem in stems {
            if let Some(p) = merged_plot(run, &stem) {
                let file = format!("{stem}.png");
                if let Err(e) = super::plot::draw(&p, &out.join(&file)) {
                    let _ = writeln!(md, "(plot {file} failed: {e})\n");
                    continue;
                }
                let _ = writeln!(md, "![{}]({file})\n", p.title);
                let _ = writeln!(
                    md,
                    "*{}* x: {}; y: {}. {}\n",
                    p.title, p.x_label, p.y_label, p.caption
                );
            }
        }
    }
    std::fs::write(out.join("report.md"), md)
}
