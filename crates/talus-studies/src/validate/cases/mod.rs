//! The validation cases. Chung & Ooi (2011), "Benchmark tests for verifying
//! discrete element modelling codes at particle impact level", Granular
//! Matter 13:643–656, tests 1–8, plus analytic checks. Expected values come
//! from Hertz theory and from rigid-body impact mechanics with Coulomb
//! friction (exact in the gross-sliding regime), see `theory.rs` and
//! `docs/validation.md`.
//!
//! This file holds only the registry of cases; each family is in its own
//! file, the sweep harnesses and shared helpers in theirs.

mod agglomerate;
mod beam;
mod bed;
mod beverloo;
mod bond_lattice;
mod bonds;
mod clump;
mod clump_heap;
mod cohesion;
mod collapse;
mod common;
mod compaction;
pub mod coupling;
mod drum;
mod energy;
mod fem;
mod ferrez;
mod hertz;
mod hourglass;
mod jkr;
mod linear;
mod materials;
mod oblique_pair;
mod oblique_wall;
mod packing;
mod pair_sweep;
mod restitution;
mod rolling;
mod rolling_spring;
mod settle;
mod slope;
mod tapping;
mod wall_sweep;

use super::case_def::CaseDef;
use super::options::{Catalogue, Options};
use agglomerate::case_agglomerate;
use beam::case_beam;
use beverloo::case_beverloo;
use bonds::case_bonds;
use clump::{case_clump_domino, case_clump_impact, case_clump_top};
use clump_heap::case_clump_heap;
use cohesion::case_cohesion;
use collapse::case_collapse;
use compaction::case_compaction;
use coupling::{case_coupled, case_plate};
use drum::case_drum;
use energy::case_energy;
use fem::{case_fem_cantilever, case_fem_rod, case_fem_spin, case_fem_wave};
use ferrez::case_ferrez;
use hertz::{case1, case2};
use hourglass::case_hourglass;
use jkr::case_jkr;
use linear::case_linear;
use oblique_pair::{case7, case8};
use oblique_wall::{case4, case5, case6};
use packing::case_packing;
use restitution::case3;
use rolling::case_rolling;
use rolling_spring::case_rolling_spring;
use settle::case_settle;
use slope::case_slope;
use tapping::case_tapping;

pub static CASES: &[CaseDef] = &[
    CaseDef {
        id: "1",
        title: "elastic normal impact of two identical spheres",
        source: "Chung & Ooi 2011 test 1; Hertz theory",
        full: false,
        options: &[],
        run: |mk, _| case1(mk),
    },
    CaseDef {
        id: "2",
        title: "elastic normal impact of a sphere on a rigid plane",
        source: "Chung & Ooi 2011 test 2; Hertz theory",
        full: false,
        options: &[],
        run: |mk, _| case2(mk),
    },
    CaseDef {
        id: "3",
        title: "normal restitution on a rigid plane",
        source: "Chung & Ooi 2011 test 3; requested e",
        full: false,
        options: &[],
        run: |mk, _| case3(mk),
    },
    CaseDef {
        id: "4",
        title: "oblique impact on a rigid plane, 5–85°",
        source: "Chung & Ooi 2011 test 4; rigid-body impact with Coulomb friction",
        full: false,
        options: &[],
        run: |mk, _| case4(mk),
    },
    CaseDef {
        id: "5",
        title: "oblique impact at constant v_n, v_t = 0.1–21 m/s",
        source: "Chung & Ooi 2011 test 5; rigid-body impact with Coulomb friction",
        full: false,
        options: &[],
        run: |mk, _| case5(mk),
    },
    CaseDef {
        id: "6",
        title: "spinning sphere dropped on a rigid plane",
        source: "Chung & Ooi 2011 test 6; rigid-body impact with Coulomb friction",
        full: false,
        options: &[],
        run: |mk, _| case6(mk),
    },
    CaseDef {
        id: "7",
        title: "two counter-spinning identical spheres",
        source: "Chung & Ooi 2011 test 7; rigid-body impact with Coulomb friction",
        full: false,
        options: &[],
        run: |mk, _| case7(mk),
    },
    CaseDef {
        id: "8",
        title: "spinning sphere on a large heavy sphere",
        source: "Chung & Ooi 2011 test 8; rigid-body impact with Coulomb friction",
        full: false,
        options: &[],
        run: |mk, _| case8(mk),
    },
    CaseDef {
        id: "linear",
        title: "linear spring–dashpot: restitution and contact time",
        source: "damped harmonic oscillator (exact)",
        full: false,
        options: &[],
        run: |mk, _| case_linear(mk),
    },
    CaseDef {
        id: "rolling",
        title: "rolling resistance and the end of sliding",
        source: "rigid-body dynamics (exact)",
        full: false,
        options: &[],
        run: |mk, _| case_rolling(mk),
    },
    CaseDef {
        id: "rolling-spring",
        title: "rolling springs (epsd2, epsd): hold on a slope, roll, stop",
        source: "rigid-body statics and dynamics (exact); Ai et al. 2011",
        full: false,
        options: &[],
        run: |mk, _| case_rolling_spring(mk),
    },
    CaseDef {
        id: "cohesion",
        title: "cohesion (sjkr, sjkr2): rest, hold and energy",
        source: "statics in closed form (Hertz push against LIGGGHTS' SJKR pull)",
        full: false,
        options: &[],
        run: |mk, _| case_cohesion(mk),
    },
    CaseDef {
        id: "jkr",
        title: "JKR adhesion: snap-in, rest, pull-off at 1.5 π γ R* and energy",
        source: "Johnson, Kendall & Roberts 1971 in closed form (the contact radius's relations)",
        full: false,
        options: &[],
        run: |mk, _| case_jkr(mk),
    },
    CaseDef {
        id: "bonds",
        title: "bonded cantilevers (a chain of 11, a 3 × 3 × 11 bundle) under gravity: tip deflection and first bending frequency",
        source: "Euler–Bernoulli (Timoshenko's shear term for the bundle); the bonded spheres' own linear statics and slowest mode (Potyondy & Cundall 2004's springs)",
        full: false,
        options: &[],
        run: |mk, _| case_bonds(mk),
    },
    CaseDef {
        id: "energy",
        title: "energy balance of a settling column",
        source: "conservation of energy",
        full: false,
        options: &[],
        run: |mk, _| case_energy(mk),
    },
    CaseDef {
        id: "fem-rod",
        title: "FEM rod on a rigid plane (Petocz §8.2.1)",
        source: "1-D elastic wave theory: contact time 2L/c, rebound v0, energy conserved",
        full: false,
        options: &[],
        run: |mk, _| case_fem_rod(mk),
    },
    CaseDef {
        id: "fem-wave",
        title: "FEM wave arrival in a bar",
        source: "1-D elastic wave theory: c = √(E/ρ), arrival L/c",
        full: false,
        options: &[],
        run: |mk, _| case_fem_wave(mk),
    },
    CaseDef {
        id: "fem-cantilever",
        title: "FEM cantilever under gravity, tet10 and tet4",
        source: "Euler–Bernoulli beam: δ = q L⁴/(8 E I)",
        full: false,
        options: &[],
        run: |mk, _| case_fem_cantilever(mk),
    },
    CaseDef {
        id: "fem-spin",
        title: "FEM spinning free body, StVK and linear",
        source: "conservation of angular momentum and energy; frame invariance",
        full: false,
        options: &[],
        run: |mk, _| case_fem_spin(mk),
    },
    CaseDef {
        id: "clump-top",
        title: "torque-free asymmetric top: the clumps' rotation against the exact solution",
        source: "Landau & Lifshitz, Mechanics §37 (elliptic functions); issue 37",
        full: false,
        options: &[],
        run: |mk, _| case_clump_top(mk),
    },
    CaseDef {
        id: "clump-impact",
        title: "a dumbbell dropped on a plane: restitution on end, the rigid-body impulse solution tilted",
        source: "rigid-body impact (Stronge, Impact Mechanics ch. 5); Berry et al. 2023; issue 37",
        full: false,
        options: &[],
        run: |mk, _| case_clump_impact(mk),
    },
    CaseDef {
        id: "clump-domino",
        title: "a two-sphere domino on an incline tips where gravity leaves its base",
        source: "statics; issue 37",
        full: false,
        options: &[],
        run: |mk, _| case_clump_domino(mk),
    },
    CaseDef {
        id: "coupled",
        title: "grains and an FEM body: momentum, a bed's weight on a plate",
        source: "conservation of momentum; statics",
        full: false,
        options: &[],
        run: |mk, _| case_coupled(mk),
    },
    CaseDef {
        id: "packing",
        title: "solid fraction of a settled random packing",
        source: "random close / loose packing (Scott & Kilgour 1969; Silbert 2010)",
        full: true,
        options: &[],
        run: |mk, _| case_packing(mk),
    },
    CaseDef {
        id: "plate",
        title: "grains settled on a clamped square plate",
        source: "Kirchhoff plate: w = 0.00126 q a⁴/D (Timoshenko & Woinowsky-Krieger Table 35)",
        full: true,
        options: &[],
        run: |mk, _| case_plate(mk),
    },
    CaseDef {
        id: "beverloo",
        title: "silo and hopper discharge through round orifices",
        source: "Beverloo et al. 1961: W = C ρ_b √g (D − k d)^{5/2}, C ≈ 0.58, k ≈ 1.3–1.6",
        full: true,
        options: beverloo::OPTIONS,
        run: case_beverloo,
    },
    CaseDef {
        id: "ferrez",
        title: "steel spheres packed in 30 and 36 mm cylinders (Ferrez 2001 §5.8)",
        source: "Folly's experiments and Ferrez's simulations (seed 002, tables 5.6–5.7)",
        full: true,
        options: ferrez::OPTIONS,
        run: case_ferrez,
    },
    CaseDef {
        id: "tapping",
        title: "5 592 steel spheres tapped at 10, 5, 4 and 2 Hz (Ferrez 2001 §5.4)",
        source: "Ferrez's simulations (seed 002, table 5.2)",
        full: true,
        options: tapping::OPTIONS,
        run: case_tapping,
    },
    CaseDef {
        id: "hourglass",
        title: "hourglass filled, run, turned over by rotating gravity (Ferrez 2001 §6.3)",
        source: "Ferrez's runs A (2790 × 4 mm: flows), B (7236 × 3 mm: blocks), C (5898 × 3 mm: flows), seed 002 table 6.1",
        full: true,
        options: hourglass::OPTIONS,
        run: case_hourglass,
    },
    CaseDef {
        id: "collapse",
        title: "embankment collapse: a column of glass beads released against a wall (Chiou 1998 §6.4)",
        source: "run-out laws of Lajeunesse et al. 2005 and Lube et al. 2005 (ΔL/L_i ≈ λ a, then ∝ a^{2/3}); a squat column's top stays in place",
        full: true,
        options: collapse::OPTIONS,
        run: case_collapse,
    },
    CaseDef {
        id: "slope",
        title: "particles dropped onto a sloped channel, flowing down into the box (Chiou 1998 §6.6)",
        source: "LIGGGHTS 3.8 on the same set-up (validation/liggghts/slope.py): the front's arrival and speed, the deposit",
        full: true,
        options: slope::OPTIONS,
        run: case_slope,
    },
    CaseDef {
        id: "drum",
        title: "rotating drum: dynamic angle of repose against rotation rate",
        source: "analytic vs STL drum vs LIGGGHTS 3.8 (same beads, same STL); angle rises with ω²R/g in the rolling regime",
        full: true,
        options: drum::OPTIONS,
        run: case_drum,
    },
    CaseDef {
        id: "clump-heap",
        title: "poured heaps of dumbbells, tetrahedra and spheres: solid fraction and angle of repose (issue 37)",
        source: "LIGGGHTS 3.8 multisphere on the same set-up (validation/liggghts/clump_heap.py), means over pours; clumps' angles above the spheres' (seed 003: by up to ~10°)",
        full: true,
        options: clump_heap::OPTIONS,
        run: case_clump_heap,
    },
    CaseDef {
        id: "heap-models",
        title: "poured sphere heaps with sjkr cohesion (k = 3e4, 6e4 J/m³) and epsd2 rolling springs (μ_r = 0.1) beside LIGGGHTS (issue 38)",
        source: "LIGGGHTS 3.8 sjkr and epsd2 on clump-heap's set-up (validation/liggghts/clump_heap.py sphere --k K | --mu-r M), means over pours",
        full: true,
        options: &[],
        run: clump_heap::case_heap_models,
    },
    CaseDef {
        id: "beam",
        title: "a bonded fixed-end beam pushed down at midspan until it breaks (Chiou 1998 §6.7)",
        source: "fixed–fixed beam: 192 EI/l³ with Timoshenko's shear term; the bond stress σ = F_n/A + |M_b|R̄/I at σ_c where the moment is largest; the bonded spheres' own linear statics",
        full: true,
        options: &[],
        run: |mk, _| case_beam(mk),
    },
    CaseDef {
        id: "agglomerate",
        title: "a bonded agglomerate (177 spheres) dropped on a plate at 0.5, 1 and 2 m/s: more fragments the faster",
        source: "the trend of agglomerate impact experiments and simulations (Thornton, Yin & Adams 1996; Moreno-Atanasio & Ghadiri 2006): fragments and bonds broken grow with the speed",
        full: true,
        options: &[],
        run: |mk, _| case_agglomerate(mk),
    },
    CaseDef {
        id: "settle",
        title: "settling column: 4000 glass beads come to rest in a box (scenes/settle.toml)",
        source: "statics (the walls carry the weight); random loose 0.55 – random close 0.64 packing; Janssen 1895 reported",
        full: true,
        options: &[],
        run: |mk, _| case_settle(mk),
    },
    CaseDef {
        id: "compaction",
        title: "die compaction: a servo piston holds 20 N on 1500 beads, then the die walls slide (scenes/compaction.toml)",
        source: "servo target; statics; Janssen 1895 with fully mobilised wall friction: F_floor = F_top e^{−x} + W (1 − e^{−x})/x, x = 4 μ_w K H / D",
        full: true,
        options: &[],
        run: |mk, _| case_compaction(mk),
    },
];

/// The case with this id.
pub fn case(id: &str) -> &'static CaseDef {
    CASES
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no validation case {id}"))
}

/// Checks what the cases' options say together, beyond each value's type
/// (orifices wider than the silo, an `only` that selects nothing): run by
/// `talus validate` before any case, so that a bad `--set` fails at once.
pub fn check_options(opts: &Options) -> Result<(), String> {
    beverloo::Setup::from_options(opts)?;
    ferrez::Knobs::from_options(opts)?;
    tapping::Knobs::from_options(opts)?;
    collapse::Setup::from_options(opts)?;
    drum::Knobs::from_options(opts)?;
    clump_heap::Knobs::from_options(opts)?;
    Ok(())
}

/// The registry of the cases' options (`--set`, `--list-options`).
pub fn catalogue() -> Catalogue {
    Catalogue(CASES.iter().map(|c| (c.id, c.title, c.options)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::options::Kind;

    /// Every case's options: keys `case.name` under the case's id, each
    /// once; a default that is a value parses; choices named in the
    /// message; and the listing holds them all.
    #[test]
    fn every_option_is_well_formed_and_listed() {
        let c = catalogue();
        let list = c.listing();
        let mut seen = std::collections::HashSet::new();
        for case in CASES {
            for s in case.options {
                let (id, name) = s.key.split_once('.').unwrap();
                assert_eq!(id, case.id, "{}", s.key);
                assert!(
                    !name.is_empty() && name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'),
                    "{}",
                    s.key
                );
                assert!(seen.insert(s.key), "{} twice", s.key);
                assert!(!s.help.is_empty() && !s.expected.is_empty(), "{}", s.key);
                if !s.default.starts_with('(') {
                    c.parse(&[format!("{}={}", s.key, s.default)]).unwrap();
                }
                let names: Vec<String> = match s.kind {
                    Kind::NumbersOf(xs) => xs.iter().map(|x| x.to_string()).collect(),
                    Kind::NamesOf(xs) | Kind::OneOf(xs) => {
                        xs.iter().map(|x| x.to_string()).collect()
                    }
                    _ => vec![],
                };
                for n in names {
                    assert!(s.expected.contains(&n), "{}: {n}", s.key);
                }
                assert!(list.contains(s.key), "{}", s.key);
            }
        }
        assert!(seen.len() > 20);
        // unset, every case is as judged
        check_options(&Options::default()).unwrap();
    }

    /// Every option the cases' code reads by a literal key is declared,
    /// with the type it is read as (the long cases' reads run in no
    /// default test).
    #[test]
    fn the_cases_read_declared_options() {
        let c = catalogue();
        let sources = [
            include_str!("beverloo.rs"),
            include_str!("clump_heap.rs"),
            include_str!("collapse.rs"),
            include_str!("drum.rs"),
            include_str!("ferrez.rs"),
            include_str!("hourglass.rs"),
            include_str!("slope.rs"),
            include_str!("tapping.rs"),
        ];
        let mut reads = 0;
        for src in sources {
            for m in ["number", "whole", "numbers", "names", "text", "flag"] {
                let call = format!(".{m}(\"");
                for (i, _) in src.match_indices(&call) {
                    let rest = &src[i + call.len()..];
                    let key = &rest[..rest.find('"').unwrap()];
                    let s = c
                        .spec(key)
                        .unwrap_or_else(|| panic!("{key} is read but not declared"));
                    let fits = match m {
                        "number" => matches!(s.kind, Kind::AtLeast(_) | Kind::Above(_)),
                        "whole" => matches!(s.kind, Kind::Whole(_)),
                        "numbers" => matches!(s.kind, Kind::Positives | Kind::NumbersOf(_)),
                        "names" => matches!(s.kind, Kind::NamesOf(_)),
                        "text" => matches!(s.kind, Kind::OneOf(_) | Kind::Text),
                        _ => s.kind == Kind::Bool,
                    };
                    assert!(fits, "{key} is read with .{m}() but is {:?}", s.kind);
                    reads += 1;
                }
            }
        }
        assert!(reads >= 20, "{reads}");
    }

    /// The registry's messages name the real cases.
    #[test]
    fn unknown_keys_name_the_cases_options() {
        let e = catalogue().parse(&["ferrez.mono_n=26000"]).unwrap_err();
        assert!(
            e.starts_with("ferrez.mono_n: expected one of ferrez's options (")
                && e.contains("ferrez.mono_count"),
            "{e}"
        );
        let e = catalogue().parse(&["silo.width=40"]).unwrap_err();
        assert!(
            e.contains(
                "of the cases beverloo, ferrez, tapping, hourglass, collapse, slope, drum, clump-heap;"
            ),
            "{e}"
        );
    }
}
