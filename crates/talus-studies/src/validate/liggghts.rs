//! LIGGGHTS results written by `validation/liggghts/run.sh` (by hand, not in
//! CI): `results.csv` with `case,point,quantity,value`, joined with talus'
//! points of the same key in `report.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct Liggghts {
    pub file: PathBuf,
    /// (case, point, quantity) → value.
    pub values: BTreeMap<(String, String, String), f64>,
}

/// `<out>/liggghts/results.csv`, else `validation/liggghts/results.csv`.
pub fn load(out: &Path) -> Option<Liggghts> {
    let candidates = [
        out.join("liggghts").join("results.csv"),
        PathBuf::from("validation/liggghts/results.csv"),
    ];
    for f in candidates {
        if let Ok(text) = std::fs::read_to_string(&f) {
            let mut values = BTreeMap::new();
            for line in text.lines().skip(1) {
                let cols: Vec<&str> = line.split(',').map(|s| s.trim()).collect();
                if cols.len() == 4 {
                    if let Ok(v) = cols[3].parse::<f64>() {
                        values.insert((cols[0].into(), cols[1].into(), cols[2].into()), v);
                    }
                }
            }
            return Some(Liggghts { file: f, values });
        }
    }
    None
}
