//! A checkpoint continued with a scene file that changed since it was
//! written (`talus run --resume DIR --force`): what may change (a
//! material's properties, a wall's friction, the duration) and what may
//! not (how many walls, `[[insert]]` entries or `[[bodies]]` the run has),
//! said in the scene's words; the particles' materials follow them by
//! name, not by their position in the file.

use super::state::{Header, Precision, Saved, WALL_WORDS};
use crate::scene::Scene;
use crate::state::{Motion, Real};

/// Fits `saved` (with its `header`) to `scene`, whose walls and bodies'
/// surfaces come to `wall_bodies`: refuses what a run cannot change midway,
/// one line each, and renumbers the particles' materials by name. Returns
/// a note when materials were renumbered (None: nothing to say).
pub fn fit_scene(
    header: &Header,
    saved: &mut Saved,
    scene: &Scene,
    wall_bodies: usize,
) -> Result<Option<String>, String> {
    let had = saved.section("walls")?.len() / (8 * WALL_WORDS);
    if had != wall_bodies {
        return Err(format!(
            "the checkpoint's run had {had} walls (FEM bodies' surfaces included), the scene has {wall_bodies}: a run cannot gain or lose walls midway (--force continues with changed settings, not with walls added or removed); start the run afresh"
        ));
    }
    let inserts = saved.scalars.inserted.len();
    if inserts != scene.inserts.len() {
        return Err(format!(
            "the checkpoint's run had {inserts} [[insert]] entries, the scene has {}: a run cannot gain or lose them midway; start the run afresh",
            scene.inserts.len()
        ));
    }
    if header.materials.is_empty() {
        // a checkpoint of a talus that did not record the names
        return Ok(None);
    }
    let names: Vec<&str> = scene.materials.iter().map(|m| m.name.as_str()).collect();
    let mut map = Vec::with_capacity(header.materials.len());
    // a [[fixed]] material's held copy has its name and comes after the
    // scene's own: the k-th material of a name maps to the k-th of that
    // name (the copy to the copy), else to the first
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    for old in &header.materials {
        let nth = seen.entry(old.as_str()).or_insert(0);
        let mut same = names.iter().enumerate().filter(|(_, n)| *n == old);
        let at = same
            .clone()
            .nth(*nth)
            .or_else(|| same.next())
            .map(|(k, _)| k);
        *nth += 1;
        match at {
            Some(k) => map.push(k as u32),
            None => {
                return Err(format!(
                    "the checkpoint's material \"{old}\" is not in the scene (it has {}): --force follows materials by name; rename it back, or start the run afresh",
                    names
                        .iter()
                        .map(|n| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    if map.iter().enumerate().all(|(i, &k)| i as u32 == k) {
        return Ok(None);
    }
    renumber(saved, &map)?;
    let moved: Vec<String> = header
        .materials
        .iter()
        .zip(&map)
        .enumerate()
        .filter(|(i, (_, &k))| *i as u32 != k)
        .map(|(i, (n, k))| format!("\"{n}\" {i} → {k}"))
        .collect();
    Ok(Some(format!(
        "materials follow their names into the changed scene: {}",
        moved.join(", ")
    )))
}

/// Renumbers every particle's material index (old `i` becomes `map[i]`)
/// where a checkpoint holds it: the CPU's `material` array and the motion
/// records' material lane (both precisions).
fn renumber(saved: &mut Saved, map: &[u32]) -> Result<(), String> {
    let n = saved.scalars.particles as usize;
    let new = |old: u32| {
        map.get(old as usize).copied().ok_or_else(|| {
            format!(
                "a particle's material index {old} is past the checkpoint's {} materials",
                map.len()
            )
        })
    };
    if saved.section("material").is_ok() {
        let m: Vec<u32> = saved.array("material", n)?;
        let m = m.into_iter().map(new).collect::<Result<Vec<_>, _>>()?;
        saved.set("material", &m);
    }
    fn lane<T: Real>(
        saved: &mut Saved,
        n: usize,
        new: impl Fn(u32) -> Result<u32, String>,
    ) -> Result<(), String> {
        let mut motion: Vec<Motion<T>> = saved.array("motion", n)?;
        for r in &mut motion {
            r[2][3] = T::from_bits32(new(r[2][3].bits32())?);
        }
        saved.set("motion", &motion);
        Ok(())
    }
    match saved.scalars.precision {
        Precision::F64 => lane::<f64>(saved, n, new),
        Precision::F32 => lane::<f32>(saved, n, new),
    }
}
