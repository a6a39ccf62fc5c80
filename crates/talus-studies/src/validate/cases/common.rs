//! Helpers shared by the cases: time step, error mapping, plot series.

use crate::validate::result::Series;

/// A backend or scene error as the cases' error type.
pub fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A diagnostic knob's value (`value`, from the variable `name`), parsed:
/// None when unset, else the value if it parses and `ok` accepts it, else
/// one line naming the variable, what it expects and what it got. The
/// cases read their `TALUS_<CASE>_*` variables through [`knob`]; this
/// pure half is what the tests call.
pub fn parse_knob<T: std::str::FromStr>(
    name: &str,
    value: Option<&str>,
    expected: &str,
    ok: impl Fn(&T) -> bool,
) -> Result<Option<T>, String> {
    let Some(v) = value else { return Ok(None) };
    match v.trim().parse::<T>() {
        Ok(x) if ok(&x) => Ok(Some(x)),
        _ => Err(format!("{name}: expected {expected}, got {v:?}")),
    }
}

/// A comma-separated list knob (`TALUS_TAPPING_ONLY=10,4`), each item as
/// in [`parse_knob`]; an empty list is an error too.
pub fn parse_knob_list<T: std::str::FromStr>(
    name: &str,
    value: Option<&str>,
    expected: &str,
    ok: impl Fn(&T) -> bool,
) -> Result<Option<Vec<T>>, String> {
    let Some(v) = value else { return Ok(None) };
    let items: Option<Vec<T>> = v
        .split(',')
        .map(|x| x.trim().parse::<T>().ok().filter(|x| ok(x)))
        .collect();
    match items {
        Some(xs) if !xs.is_empty() => Ok(Some(xs)),
        _ => Err(format!(
            "{name}: expected a comma-separated list of {expected}, got {v:?}"
        )),
    }
}

/// [`parse_knob`] on the environment variable `name`.
pub fn knob<T: std::str::FromStr>(
    name: &str,
    expected: &str,
    ok: impl Fn(&T) -> bool,
) -> Result<Option<T>, String> {
    parse_knob(name, std::env::var(name).ok().as_deref(), expected, ok)
}

/// [`parse_knob_list`] on the environment variable `name`.
pub fn knob_list<T: std::str::FromStr>(
    name: &str,
    expected: &str,
    ok: impl Fn(&T) -> bool,
) -> Result<Option<Vec<T>>, String> {
    parse_knob_list(name, std::env::var(name).ok().as_deref(), expected, ok)
}

/// Time step: the shortest contact time / `per`.
pub fn dt_for(tcs: &[f64], per: f64) -> f64 {
    tcs.iter().cloned().fold(f64::INFINITY, f64::min) / per
}

/// Time steps per (shortest) contact in the impact cases.
pub const PER_CONTACT: f64 = 200.0;

/// A theory series (a line, drawn once).
pub fn theory_series(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: true,
    }
}

/// A measured series (markers, one per backend).
pub fn measured(label: &str, pts: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points: pts,
        theory: false,
    }
}

/// A scene file shipped in `scenes/` (the tests that check a case and its
/// file agree).
#[cfg(test)]
pub fn shipped(file: &str) -> talus::scene::Scene {
    let path = crate::repo_root().join("scenes").join(file);
    talus::scene::parse::load(&path).unwrap()
}

/// The two scenes are the same scene: simulation, domain, contact law,
/// materials, walls and particles all equal (a shipped scene file written
/// with exact numbers).
#[cfg(test)]
pub fn assert_same_scene(shipped: &talus::scene::Scene, ours: &talus::scene::Scene) {
    assert_eq!(shipped.simulation, ours.simulation);
    assert_eq!(shipped.domain, ours.domain);
    assert_eq!(shipped.contact, ours.contact);
    assert_eq!(shipped.materials, ours.materials);
    assert_eq!(shipped.walls, ours.walls);
    assert_same_particles(shipped, ours);
}

/// The two scenes start from the same particles: count, positions, radii,
/// velocities and materials.
#[cfg(test)]
pub fn assert_same_particles(shipped: &talus::scene::Scene, ours: &talus::scene::Scene) {
    assert_eq!(shipped.particles.len(), ours.particles.len());
    for (a, b) in shipped.particles.iter().zip(&ours.particles) {
        assert_eq!((a.position, a.radius), (b.position, b.radius));
        assert_eq!((a.velocity, a.material), (b.velocity, b.material));
    }
}

#[cfg(test)]
mod knob_tests {
    use super::*;

    #[test]
    fn a_knob_parses_or_names_itself() {
        let pos = |x: &f64| x.is_finite() && *x > 0.0;
        assert_eq!(parse_knob("K", None, "a positive number", pos), Ok(None));
        assert_eq!(
            parse_knob("K", Some(" 4 "), "a positive number", pos),
            Ok(Some(4.0))
        );
        for bad in ["four", "0", "-1", "nan", ""] {
            let e = parse_knob("TALUS_X", Some(bad), "a positive number", pos).unwrap_err();
            assert_eq!(
                e,
                format!("TALUS_X: expected a positive number, got {bad:?}")
            );
        }
        let n = parse_knob::<usize>("N", Some("2.5"), "a whole number", |_| true);
        assert!(n.unwrap_err().starts_with("N: expected a whole number"));
    }

    #[test]
    fn a_list_knob_rejects_any_bad_item() {
        let pos = |x: &f64| *x > 0.0;
        assert_eq!(
            parse_knob_list("L", Some("10, 4"), "frequencies", pos),
            Ok(Some(vec![10.0, 4.0]))
        );
        assert_eq!(parse_knob_list("L", None, "frequencies", pos), Ok(None));
        for bad in ["10,x", "", "10,,4", "-2"] {
            let e = parse_knob_list("L", Some(bad), "frequencies in Hz", pos).unwrap_err();
            assert_eq!(
                e,
                format!("L: expected a comma-separated list of frequencies in Hz, got {bad:?}")
            );
        }
    }
}
