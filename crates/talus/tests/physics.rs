//! Physics of the CPU reference path against theory.

use crate::common;

use common::*;
use std::collections::BTreeSet;
use talus::backend::{Backend, RunErrorKind};
use talus::cpu::contacts;
use talus::cpu::law::{pair_law, Body};
use talus::cpu::neighbours::flag_mismatch;
use talus::cpu::{CpuBackend, Step};
use talus::grid::Grid;
use talus::rng::Rng;
use talus::scene::{Domain, Material, SceneBuilder};
use talus::state::{INDEX, WALL};

/// Hertz head-on impact of two glass spheres (e = 1, μ = 0): contact time,
/// maximum overlap and maximum force within 1 % of Hertz theory, rebound
/// speed within 0.1 % of the impact speed.
/// Rolling friction brings a bead spinning in a V-groove (two contacts
/// opposing one spin) to rest, instead of reversing its spin every step.
#[test]
fn rolling_friction_stops_a_spin_held_by_two_contacts() {
    let (scene, steps) = spinning_in_groove();
    let mut b = CpuBackend::new(&scene).unwrap();
    let (worst, flips) = spin_left_in_groove(&mut b, steps);
    println!("cpu: |ω|/ω0 after the stop ≤ {worst:.3e}, {flips} reversals in 100 steps");
    assert!(worst < 1e-6, "the bead still spins: |ω|/ω0 = {worst:.3e}");
    assert_eq!(flips, 0, "the spin reversed {flips} times in 100 steps");
}

#[test]
fn hertz_head_on_impact_matches_theory() {
    check_hertz_impact(2000.0, |s| Box::new(CpuBackend::new(s).unwrap()));
}

/// Linear spring–dashpot calibrated from a contact time: measured
/// restitution equals the requested e within 0.5 %, and the contact lasts t_c.
#[test]
fn linear_model_restitution_is_exact() {
    check_linear_restitution(400.0, |s| Box::new(CpuBackend::new(s).unwrap()));
}

/// A soft material named "m" (E = 5 MPa: contacts last many steps).
fn soft(e: f64, mu: f64, rolling: f64) -> Material {
    Material {
        name: "m".into(),
        density: 2500.0,
        youngs_modulus: 5e6,
        poisson_ratio: 0.25,
        restitution: e,
        friction: mu,
        rolling_friction: rolling,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// A random cloud in a fully periodic box, no gravity.
fn periodic_cloud(n: usize, e: f64, mu: f64, seed: u64) -> talus::Scene {
    let l = 0.02;
    let mut rng = Rng::new(seed);
    let mut b = SceneBuilder::new("cloud")
        .domain([0.0; 3], [l; 3])
        .periodic([true; 3])
        .gravity([0.0; 3])
        .dt_auto(0.1)
        .steps(1)
        .material(soft(e, mu, 0.0));
    let mut placed: Vec<([f64; 3], f64)> = Vec::new();
    let dom = Domain {
        min: [0.0; 3],
        max: [l; 3],
        periodic: [true; 3],
    };
    let grid = Grid::new(&dom, 0.001).unwrap();
    while placed.len() < n {
        let r = rng.range(0.0006, 0.001);
        let p = [rng.range(0.0, l), rng.range(0.0, l), rng.range(0.0, l)];
        let free = placed.iter().all(|(q, rq)| {
            let d = grid.min_image(p, *q);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() > r + rq
        });
        if free {
            let v = [
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            ];
            let w = [
                rng.range(-50.0, 50.0),
                rng.range(-50.0, 50.0),
                rng.range(-50.0, 50.0),
            ];
            b = b.particle_spin(p, v, w, r, "m");
            placed.push((p, r));
        }
    }
    build(b)
}

fn momentum(s: &talus::state::Particles<f64>) -> ([f64; 3], f64) {
    let mut p = [0.0; 3];
    let mut scale = 0.0;
    for v in &s.vel_invm {
        for k in 0..3 {
            p[k] += v[k] / v[3];
            scale += (v[k] / v[3]).abs();
        }
    }
    (p, scale)
}

/// Counts contacts that are new this step (pairs counted once).
fn new_contacts(st: &Step, before: &BTreeSet<(u32, u32)>) -> (usize, BTreeSet<(u32, u32)>) {
    let mut now = BTreeSet::new();
    for (a, b, _) in st.pair_history() {
        if a < b {
            now.insert((a, b));
        }
    }
    let fresh = now.difference(before).count();
    (fresh, now)
}

/// Periodic cloud with friction and damping: total linear momentum is
/// conserved to rounding (forces are exactly antisymmetric).
#[test]
fn periodic_cloud_conserves_momentum() {
    let scene = periodic_cloud(300, 0.5, 0.5, 7);
    let mut b = CpuBackend::new(&scene).unwrap();
    let (p0, scale) = momentum(&b.snapshot());
    let mut collisions = 0;
    let mut pairs = BTreeSet::new();
    for _ in 0..3000 {
        b.advance(1).unwrap();
        let (fresh, now) = new_contacts(&b.st, &pairs);
        collisions += fresh;
        pairs = now;
    }
    let (p1, _) = momentum(&b.snapshot());
    let drift = (0..3).map(|k| (p1[k] - p0[k]).abs()).fold(0.0, f64::max);
    println!("{collisions} collisions, momentum drift {drift:e} of scale {scale:e}");
    assert!(
        collisions > 200,
        "too few collisions ({collisions}) for a meaningful test"
    );
    assert!(
        drift < 1e-12 * scale,
        "momentum drift {drift:e} (scale {scale:e})"
    );
}

/// Periodic cloud, e = 1, μ = 0: kinetic + elastic energy conserved within
/// 1e-4 relative over more than 1000 collisions.
#[test]
fn periodic_cloud_conserves_energy_elastic() {
    let scene = periodic_cloud(300, 1.0, 0.0, 11);
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(1).unwrap();
    let e0 = b.diagnostics().total();
    let mut collisions = 0;
    let mut pairs = BTreeSet::new();
    let mut worst: f64 = 0.0;
    let mut steps = 0;
    while collisions < 1200 {
        b.advance(1).unwrap();
        steps += 1;
        let (fresh, now) = new_contacts(&b.st, &pairs);
        collisions += fresh;
        pairs = now;
        if steps % 50 == 0 {
            worst = worst.max(rel(b.diagnostics().total(), e0));
        }
        assert!(
            steps < 200_000,
            "only {collisions} collisions in {steps} steps"
        );
    }
    let end = rel(b.diagnostics().total(), e0);
    println!(
        "{collisions} collisions in {steps} steps: energy error at end {end:e}, worst {worst:e}"
    );
    assert!(
        end < 1e-4 && worst < 1e-4,
        "energy error {end:e} (worst {worst:e})"
    );
}

/// Random polydisperse spheres (radius ratio 4), some outside the open
/// domain: the grid finds exactly the pairs of an O(N²) search, and so does
/// the contact stage (read from the history it writes).
#[test]
fn broad_phase_matches_brute_force() {
    for (periodic, seed) in [([false; 3], 1u64), ([true; 3], 2), ([true, false, true], 3)] {
        let dom = Domain {
            min: [0.0; 3],
            max: [0.03, 0.04, 0.05],
            periodic,
        };
        let mut rng = Rng::new(seed);
        let n = 1500;
        let rmax = 0.002;
        let pos: Vec<[f64; 4]> = (0..n)
            .map(|_| {
                let mut p = [0.0; 4];
                for k in 0..3 {
                    let (lo, hi) = (dom.min[k], dom.max[k]);
                    p[k] = if periodic[k] {
                        rng.range(lo, hi)
                    } else {
                        rng.range(lo - 0.005, hi + 0.005) // some outside: clamped cells
                    };
                }
                p[3] = rng.range(rmax / 4.0, rmax);
                p
            })
            .collect();
        let levels = check_broad_phase(&dom, &pos, &format!("periodic {periodic:?}"));
        assert!(levels >= 2, "radius ratio 4 is two levels, got {levels}");
    }
}

/// The grid's levels follow the scene's sizes: 0.8–1 mm spheres among
/// 31.5 mm ones share the finest level, whose half cutoff is the largest
/// small one's (cells just wide enough), the large ones sit in the
/// coarsest, ≥ 4 × coarser (a large level); a narrow distribution has one
/// level, and `grid_levels = 1` forces one.
#[test]
fn grid_levels_follow_the_size_classes() {
    let mut rng = Rng::new(3);
    let mixture = |big: bool, levels: Option<u64>, rng: &mut Rng| {
        let mut b = SceneBuilder::new("sizes")
            .domain([0.0; 3], [0.07, 0.07, 0.07])
            .dt(1e-6)
            .steps(1)
            .material(Material::new("m", 2500.0, 1e7));
        for i in 0..200 {
            let p = [
                0.005 + 0.0025 * (i % 20) as f64,
                0.01,
                0.002 + 0.0025 * (i / 20) as f64,
            ];
            let r = if big {
                rng.range(0.0008, 0.001)
            } else {
                rng.range(0.0009, 0.0011)
            };
            b = b.particle(p, [0.0; 3], r, "m");
        }
        if big {
            b = b.particle([0.035, 0.035, 0.035], [0.0; 3], 0.0315, "m");
        }
        let mut s = b.build_unchecked();
        s.simulation.grid_levels = levels;
        s
    };
    let wide = mixture(true, None, &mut rng);
    let g = Grid::for_scene(&wide).unwrap();
    let h_small = wide.particles[..200]
        .iter()
        .map(|p| p.radius)
        .fold(0.0, f64::max)
        + g.half_skin;
    let finest = g.n_levels - 1;
    assert!(g.n_levels >= 5, "{} levels", g.n_levels);
    assert!(
        (g.levels[finest].half_cut - h_small).abs() < 1e-12,
        "finest level at {} for small ones up to {h_small}",
        g.levels[finest].half_cut
    );
    assert!(wide.particles[..200]
        .iter()
        .all(|p| g.level_of(p.radius) == finest));
    assert_eq!(g.level_of(0.0315), 0);
    assert!(g.levels[0].half_cut >= 0.0315 + g.half_skin);
    assert!(g.large_levels() >= 1 && g.large_levels() < g.n_levels);
    let narrow = Grid::for_scene(&mixture(false, None, &mut rng)).unwrap();
    assert_eq!((narrow.n_levels, narrow.large_levels()), (1, 0));
    let one = Grid::for_scene(&mixture(true, Some(1), &mut rng)).unwrap();
    assert_eq!((one.n_levels, one.large_levels()), (1, 0));
    assert!(one.levels[0].half_cut >= 0.0315);
    // 1:3 (2.7 mm among 0.8-1 mm): the ladder from 1 mm puts the large ones
    // in a level of H = 4 mm, but they are 2.7 mm: not large
    let dom = talus::scene::Domain {
        min: [0.0; 3],
        max: [0.05; 3],
        periodic: [false; 3],
    };
    let g3 = Grid::with_levels(&dom, 0.0008, 0.0027, 0.0, None, 8, Some(0.001)).unwrap();
    assert_eq!(g3.n_levels, 3);
    assert!(g3.levels[0].half_cut >= 4.0 * g3.levels[2].half_cut * 0.999);
    assert_eq!(g3.large_levels(), 0);
}

/// Size ratios of 1:12 and 1:35 (the seeds' packings reach 1:25, Ferrez's
/// survey 1:35), open, periodic and mixed: the grid's levels find exactly
/// the pairs of an O(N²) search, the neighbour list exactly the candidates,
/// the contact stage exactly the contacts.
#[test]
fn broad_phase_matches_brute_force_at_wide_size_ratios() {
    let r = 0.0002;
    for (ratio, periodic, seed) in [
        (35.0, [false; 3], 5u64),
        (12.0, [true; 3], 6),
        (35.0, [true, false, true], 7),
    ] {
        let side = 3.3 * 2.0 * ratio * r;
        let dom = Domain {
            min: [0.0; 3],
            max: [side, 1.1 * side, 1.2 * side],
            periodic,
        };
        let pos = wide_mixture(&dom, r, ratio, 4, 4000, seed);
        let levels = check_broad_phase(&dom, &pos, &format!("1:{ratio}, periodic {periodic:?}"));
        assert!(
            levels as f64 >= ratio.log2().floor(),
            "1:{ratio}: only {levels} levels"
        );
    }
}

/// The grid's pair search and the CPU's neighbour list and contact stage
/// against O(N²) searches over `pos` in `dom`. Returns the levels of the
/// run's grid.
fn check_broad_phase(dom: &Domain, pos: &[[f64; 4]], label: &str) -> usize {
    let (rmin, rmax) = pos.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
        (a.min(p[3]), b.max(p[3]))
    });
    let grid = Grid::for_radii(dom, rmin, rmax, pos.len()).unwrap();
    let brute = talus::grid::pairs::brute_force_pairs(pos, &grid);
    let fast = talus::grid::pairs::contact_pairs(pos, &grid);
    assert!(brute.len() > 100, "too few pairs ({}) to test", brute.len());
    assert_eq!(fast, brute, "grid pairs differ from brute force ({label})");
    // the first pair that a condition picks, without collecting the rest
    for pick in [
        |_: usize, _: usize, _: f64| true,
        |i: usize, j: usize, _: f64| (i + j) % 7 == 3,
        |_: usize, _: usize, _: f64| false,
    ] {
        let dist = |i: usize, j: usize| {
            let (p, q) = (pos[i], pos[j]);
            let d = grid.min_image([p[0], p[1], p[2]], [q[0], q[1], q[2]]);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        };
        let want = brute
            .iter()
            .copied()
            .find(|&(i, j)| pick(i, j, dist(i, j)))
            .map(|(i, j)| (i, j, dist(i, j)));
        let got = talus::grid::pairs::first_contact_where(pos, &grid, pick);
        assert_eq!(got, want, "first picked pair ({label})");
    }

    // the contact stage itself, through the history it writes
    let mut b = SceneBuilder::new("bp")
        .domain(dom.min, dom.max)
        .periodic(dom.periodic)
        .gravity([0.0; 3])
        .dt(1e-7)
        .steps(1)
        .material(Material::new("m", 2500.0, 1e7));
    for p in pos {
        b = b.particle([p[0], p[1], p[2]], [0.0; 3], p[3], "m");
    }
    let scene = b.build_unchecked(); // overlapping on purpose
    let mut st = Step::new(&scene).unwrap();
    st.bin_and_sort();
    st.build_neighbours();

    // the neighbour list: exactly the pairs within r_i + r_j + skin
    let skin = st.skin;
    let mut listed = BTreeSet::new();
    let mut expected_list = BTreeSet::new();
    let p = &st.particles;
    for i in 0..p.len() {
        let (lo, hi) = (st.work.nbr_start[i], st.work.nbr_start[i + 1]);
        for &j in &st.work.nbr[lo as usize..hi as usize] {
            let j = (j & INDEX) as usize;
            assert!(listed.insert((p.id[i], p.id[j])), "listed twice");
        }
    }
    for (a, pa) in pos.iter().enumerate() {
        for (b, pb) in pos.iter().enumerate() {
            let d = grid.min_image([pa[0], pa[1], pa[2]], [pb[0], pb[1], pb[2]]);
            let cut = pa[3] + pb[3] + skin;
            if a != b && d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < cut * cut {
                expected_list.insert((a as u32, b as u32));
            }
        }
    }
    assert!(
        expected_list.len() > brute.len() * 2,
        "the skin adds candidates"
    );
    assert_eq!(
        listed, expected_list,
        "neighbour list differs from brute force ({label})"
    );

    talus::cpu::contacts::contacts(&mut st);
    let mut found = BTreeSet::new();
    for (a, k, _) in st.pair_history() {
        found.insert((a.min(k) as usize, a.max(k) as usize));
    }
    let expected: BTreeSet<(usize, usize)> = brute.into_iter().collect();
    assert_eq!(found, expected, "contact stage pairs differ ({label})");
    st.grid.n_levels
}

/// The Verlet list is reused between builds and never misses a contact:
/// after every step of a colliding periodic cloud, each overlapping pair
/// (brute force over the current positions) is in the list the next step
/// uses, unless that step rebuilds it.
#[test]
fn stale_neighbour_list_never_misses_a_contact() {
    let scene = periodic_cloud(300, 0.5, 0.5, 11);
    let mut st = Step::new(&scene).unwrap();
    let grid = st.grid;
    let steps = 600;
    let mut checked = 0;
    for _ in 0..steps {
        st.step().unwrap();
        if st.rebuild {
            continue;
        }
        let p = &st.particles;
        let mut listed = BTreeSet::new();
        for i in 0..p.len() {
            let (lo, hi) = (
                st.work.nbr_start[i] as usize,
                st.work.nbr_start[i + 1] as usize,
            );
            for &j in &st.work.nbr[lo..hi] {
                listed.insert((i, (j & INDEX) as usize));
            }
        }
        for (i, j) in talus::grid::pairs::brute_force_pairs(&p.pos_rad, &grid) {
            assert!(
                listed.contains(&(i, j)) && listed.contains(&(j, i)),
                "pair ({i}, {j}) not listed at step {}",
                st.step
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} contacts checked");
    // the list was rebuilt, but far less often than every step
    assert!(
        st.builds > 2 && st.builds < steps / 4,
        "{} builds in {steps} steps",
        st.builds
    );
}

/// The wall primitives each row lists at a build (its last entries,
/// flagged WALL) cover every wall contact until the next build: a particle
/// that overlaps a wall always has that wall's entry (the contact stage
/// tests only those), and the history flags agree with the history. Spheres
/// fly at up to 2 m/s in a box of six walls.
#[test]
fn wall_entries_never_miss_a_wall_contact() {
    let scene = walled_box(5);
    let mut st = Step::new(&scene).unwrap();
    let (mut touching, mut steps, mut with_history) = (0, 0, 0);
    for _ in 0..1500 {
        st.step().unwrap();
        if st.rebuild {
            continue;
        }
        steps += 1;
        let (p, w) = (&st.particles, &st.work);
        assert_eq!(flag_mismatch(&w.nbr, &w.nbr_hist.to_hists()), None);
        for i in 0..p.len() {
            let row = &w.nbr[w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize];
            // walls come last, in primitive order
            let first_wall = row.iter().position(|e| e & WALL != 0).unwrap_or(row.len());
            let listed: Vec<usize> = row[first_wall..]
                .iter()
                .map(|e| {
                    assert!(e & WALL != 0, "particle {i}: a particle entry after a wall");
                    (e & INDEX) as usize
                })
                .collect();
            assert!(listed.windows(2).all(|x| x[0] < x[1]), "{listed:?}");
            for (k, wd) in st.walls.prims.iter().enumerate() {
                let (point, normal) = ([wd.a[0], wd.a[1], wd.a[2]], [wd.b[0], wd.b[1], wd.b[2]]);
                let in_contact = touches_wall(p.pos_rad[i], point, normal);
                assert!(
                    listed.contains(&k) || !in_contact,
                    "particle {i} touches wall {k} out of its list at step {}",
                    st.step
                );
                touching += in_contact as usize;
            }
        }
        with_history += st.wall_history().len();
    }
    assert!(
        touching > 500 && with_history > 500 && st.builds > 10,
        "{touching} wall contacts ({with_history} with history) checked over {steps} steps, {} builds",
        st.builds
    );
}

/// Both partners of a pair hold bit-identical history, and forces are
/// exactly antisymmetric: sum of forces over a closed system is zero.
#[test]
fn pair_forces_are_antisymmetric_and_history_mirrored() {
    let scene = periodic_cloud(200, 0.5, 0.5, 3);
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(400).unwrap();
    let mut table = std::collections::HashMap::new();
    for (a, k, h) in b.st.pair_history() {
        assert!(
            table.insert((a, k), h).is_none(),
            "pair ({a}, {k}) listed twice"
        );
    }
    assert!(!table.is_empty());
    for (&(a, b), xi) in &table {
        let other = table.get(&(b, a)).expect("partner holds the contact too");
        assert_eq!(
            xi, other,
            "history of pair ({a}, {b}) differs between partners"
        );
    }
}

/// A rebuild moves every pair's history to the new list unchanged: the
/// history by ids just before each rebuild equals the one just after it,
/// bit for bit, over several rebuilds of a colliding cloud (pairs in
/// contact are always within the new list's cut-off, and a new list brings
/// no history of its own).
#[test]
fn rebuild_carries_history_over() {
    let carried = carried_over_rebuilds(&periodic_cloud(300, 0.5, 0.5, 13), 3, Step::pair_history);
    assert!(carried > 100, "only {carried} history entries carried over");
}

/// (particle id, partner id or primitive, ξ xyz and k_t).
type History = (u32, u32, [f64; 8]);

/// Runs `scene` 1500 steps; before and after each of its (at least
/// `min_rebuilds`) rebuilds, `history` by ids must be the same bits.
/// Returns the entries carried over in all.
fn carried_over_rebuilds(
    scene: &talus::Scene,
    min_rebuilds: usize,
    history: fn(&Step) -> Vec<History>,
) -> usize {
    let mut st = Step::new(scene).unwrap();
    let (mut rebuilds, mut carried) = (0, 0);
    let key = |x: &History| (x.0, x.1);
    for _ in 0..1500 {
        st.step().unwrap();
        if !st.rebuild {
            continue;
        }
        let mut before = history(&st);
        st.bin_and_sort();
        st.build_neighbours();
        let mut after = history(&st);
        before.sort_by_key(key);
        after.sort_by_key(key);
        assert_eq!(
            before, after,
            "history changed across rebuild {}",
            st.builds
        );
        rebuilds += 1;
        carried += before.len();
    }
    assert!(rebuilds >= min_rebuilds, "only {rebuilds} rebuilds");
    carried
}

/// The same for walls: a rebuild moves each wall contact's history (a list
/// entry like a pair's, found again by the primitive's index) unchanged,
/// over many rebuilds of spheres flying around a box of six walls.
#[test]
fn rebuild_carries_wall_history_over() {
    let carried = carried_over_rebuilds(&walled_box(7), 5, Step::wall_history);
    assert!(
        carried > 50,
        "only {carried} wall history entries carried over"
    );
}

/// The motion record (what contacts read of a partner) follows its
/// particle: after every step and every rebuild's reorder its v*, ω*, 1/m,
/// 1/I, material and id are the state's, bit for bit; and every list
/// entry's history flag says whether its history is non-zero.
#[test]
fn motion_record_and_history_flags_stay_true() {
    let scene = periodic_cloud(300, 0.5, 0.5, 17);
    let mut st = Step::new(&scene).unwrap();
    for _ in 0..800 {
        st.step().unwrap();
        if let Some(i) = st.particles.motion_mismatch(&st.work.motion) {
            panic!(
                "step {}: motion record {i} disagrees with the state",
                st.step
            );
        }
        if let Some(e) = flag_mismatch(&st.work.nbr, &st.work.nbr_hist.to_hists()) {
            panic!("step {}: list entry {e}'s history flag is wrong", st.step);
        }
    }
    assert!(st.builds >= 3, "only {} list builds", st.builds);
    assert!(
        st.work.nbr_hist.to_hists().iter().any(|h| *h != [0.0; 8]),
        "no pair history at all"
    );
}

/// The contact stage against a brute-force sum over every pair in
/// contact, on a bed whose big sphere lists more than 64 candidates (the
/// stage classifies the first 64 entries of a row one particle ahead and
/// checks the rest itself): forces and torques agree to rounding (the sums
/// run in a different order), and contacts past the 64th entry exist.
#[test]
fn contact_forces_match_brute_force_with_long_rows() {
    let (l, big) = (0.03, 0.004);
    let c = [0.5 * l; 3];
    let mut rng = Rng::new(11);
    let mut b = SceneBuilder::new("big and small")
        .domain([0.0; 3], [l; 3])
        .gravity([0.0; 3])
        .dt_auto(0.1)
        .steps(1)
        .material(soft(0.5, 0.5, 0.1))
        .particle(c, [0.1, 0.0, -0.2], big, "m");
    for _ in 0..150 {
        // small spheres in a shell around the big one: a third touch it
        let r = rng.range(0.0003, 0.0005);
        let u = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let len = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt().max(1e-9);
        let dist = big + r + rng.range(-0.00004, 0.0001);
        let p = [0, 1, 2].map(|k| c[k] + u[k] / len * dist);
        let v = [0, 1, 2].map(|_| rng.range(-0.5, 0.5));
        b = b.particle(p, v, r, "m");
    }
    let scene = b.build_unchecked(); // overlapping on purpose
    let mut st = Step::new(&scene).unwrap();
    st.bin_and_sort();
    st.build_neighbours();
    contacts::contacts(&mut st);
    let (w, p) = (&st.work, &st.particles);
    let n = p.len();
    let longest = (0..n)
        .map(|i| w.nbr_start[i + 1] - w.nbr_start[i])
        .max()
        .unwrap();
    assert!(longest > 64, "the longest row has only {longest} entries");
    let beyond = (0..n)
        .flat_map(|i| {
            (w.nbr_start[i] as usize + 64..w.nbr_start[i + 1] as usize).map(move |e| (i, e))
        })
        .filter(|&(i, e)| {
            let j = (w.nbr[e] & INDEX) as usize;
            let d = st.grid.min_image(xyz(p.pos_rad[i]), xyz(p.pos_rad[j]));
            let rs = p.pos_rad[i][3] + p.pos_rad[j][3];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < rs * rs
        })
        .count();
    assert!(beyond > 10, "only {beyond} contacts past the 64th entry");

    // brute force, each pair once from its lower id, zero history
    let body = |i: usize| {
        let m = w.motion[i];
        Body {
            vel: xyz(m[0]),
            omega: xyz(m[1]),
            vel_half: xyz(m[2]),
            omega_half: xyz(m[3]),
            radius: p.pos_rad[i][3],
            inv_mass: m[0][3],
            inv_inertia: m[1][3],
        }
    };
    let mut f = vec![[0.0f64; 3]; n];
    let mut t = vec![[0.0f64; 3]; n];
    let pairs = talus::grid::pairs::brute_force_pairs(&p.pos_rad, &st.grid);
    for &(x, y) in &pairs {
        let (a, b) = if p.id[x] < p.id[y] { (x, y) } else { (y, x) };
        let d = st.grid.min_image(xyz(p.pos_rad[a]), xyz(p.pos_rad[b]));
        let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let overlap = p.pos_rad[a][3] + p.pos_rad[b][3] - dist;
        let pp = st.pairs.get(p.material[a], p.material[b]);
        let nrm = d.map(|x| x / dist);
        let r = pair_law(&st.law, pp, &body(a), &body(b), nrm, overlap, [0.0; 8]);
        for k in 0..3 {
            f[a][k] += r.force_a[k];
            f[b][k] -= r.force_a[k];
            t[a][k] += r.torque_a[k];
            t[b][k] += r.torque_b[k];
        }
    }
    let scale = f.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let tscale = t.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let (mut df, mut dt) = (0.0f64, 0.0f64);
    for i in 0..n {
        for k in 0..3 {
            df = df.max((w.force[i][k] - f[i][k]).abs());
            dt = dt.max((w.torque[i][k] - t[i][k]).abs());
        }
    }
    println!(
        "{} contacts, longest row {longest}, {beyond} past entry 64: force {:e}, torque {:e} of the largest",
        pairs.len(),
        df / scale,
        dt / tscale
    );
    assert!(
        df <= 1e-12 * scale,
        "force differs by {:e} of the largest",
        df / scale
    );
    assert!(
        dt <= 1e-12 * tscale,
        "torque differs by {:e} of the largest",
        dt / tscale
    );
}

fn xyz(a: [f64; 4]) -> [f64; 3] {
    [a[0], a[1], a[2]]
}

/// The CPU path is deterministic: the same scene twice gives the same bits.
#[test]
fn cpu_runs_are_deterministic() {
    let scene = periodic_cloud(200, 0.5, 0.5, 5);
    let run = || {
        let mut b = CpuBackend::new(&scene).unwrap();
        b.advance(300).unwrap();
        b.snapshot()
    };
    assert_eq!(run(), run());
}

/// A sphere dropped on a floor with e < 1 loses energy only through the
/// contact, and the balance closes: residual < 1 % of the dissipated energy.
#[test]
fn dropped_sphere_energy_balance_closes() {
    let scene = common::build(
        SceneBuilder::new("drop")
            // wide enough in x that the rolling sphere stays inside (an
            // open domain removes what leaves it)
            .domain([0.0; 3], [0.06, 0.02, 0.05])
            .dt_auto(0.2)
            .duration(0.25)
            .material(Material::new("m", 2500.0, 5e6))
            .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
            .particle([0.01, 0.01, 0.02], [0.1, 0.0, 0.0], 0.001, "m"),
    );
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(1).unwrap();
    let e0 = b.diagnostics().total();
    b.advance(scene.steps() - 1).unwrap();
    let d = b.diagnostics();
    let residual = (d.total() - e0).abs();
    println!("{d:?}, residual {residual:e}");
    assert!(
        d.dissipated > 0.5 * (e0 - d.potential),
        "it should have come to rest"
    );
    assert!(
        residual < 0.01 * d.dissipated,
        "residual {residual:e} vs dissipated {:e}",
        d.dissipated
    );
}

/// A sparse periodic scene (cells enlarged for a big empty domain) keeps a
/// short periodic axis valid: it only needs 2 neighbour cutoffs (then no
/// pair can touch two images of a partner).
#[test]
fn sparse_domain_allows_short_periodic_axis() {
    let dom = Domain {
        min: [0.0; 3],
        max: [0.01, 1.0, 1.0],
        periodic: [true, false, false],
    };
    let g = Grid::for_particles(&dom, 0.001, 10).expect("0.01 m holds 5 diameters");
    assert!(g.levels[0].dims[0] >= 3 && g.levels[0].cell[0] >= 0.002);
    let short = Domain {
        max: [0.0039, 1.0, 1.0],
        ..dom
    };
    let err = Grid::for_particles(&short, 0.001, 10).unwrap_err();
    assert!(err.contains("at least 2 neighbour cutoffs"), "{err}");
    let two = Domain {
        max: [0.004, 1.0, 1.0],
        ..dom
    };
    let g = Grid::for_particles(&two, 0.001, 10).expect("0.004 m holds 2 cutoffs");
    assert_eq!(g.levels[0].dims[0], 2);
}

/// A run that blows up (dt far above the stable limit, forced past the
/// check) stops, names the step and the particle, and leaves the last good
/// state in final.csv with summary.json saying "failed".
#[test]
fn blowup_stops_and_keeps_last_good_state() {
    use talus::run::{run, RunConfig, RunFailure};
    let mut scene = SceneBuilder::new("blowup")
        .domain([0.0; 3], [0.02, 0.02, 0.05])
        .dt(2e-4) // ~100x the stable limit: validation would refuse it
        .steps(200)
        .material(Material::new("m", 2500.0, 5e6))
        .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
        // one radius per step into the floor: the overlap jumps past 0.5 r
        .particle([0.01, 0.01, 0.0013], [0.0, 0.0, -5.0], 0.001, "m")
        .build_unchecked();
    scene.simulation.output_interval = Some(2e-4);
    assert!(
        scene.validate().is_err(),
        "the dt should be refused by validation"
    );
    let out = std::env::temp_dir().join(format!("talus-blowup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut b = CpuBackend::new(&scene).unwrap();
    let mut cfg = RunConfig::new(&talus::Setup::new(scene.clone()).unwrap(), out.clone(), 200);
    cfg.output_every = 1;
    let err = match run(&scene, &mut b, &cfg) {
        Err(RunFailure::Blowup(e, summary)) => {
            assert_eq!(summary.status, "failed");
            e
        }
        other => panic!("expected a blow-up, got {other:?}"),
    };
    assert_eq!(err.particle, 0);
    assert!(matches!(err.kind, RunErrorKind::Overlap { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("step {}", err.step)) && msg.contains("particle 0"),
        "{msg}"
    );
    // the last good state: one particle, finite, not yet through the floor
    let csv = std::fs::read_to_string(out.join("final.csv")).unwrap();
    let row: Vec<f64> = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .take(10)
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(row.iter().all(|x| x.is_finite()));
    assert!(
        row[2] > 0.0005,
        "last good state already overlaps by more than half: z = {}",
        row[2]
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"status\": \"failed\"") && summary.contains("particle 0"),
        "{summary}"
    );
    std::fs::remove_dir_all(out).ok();
}

/// final.csv is a valid particle file: a run continued from it starts from
/// exactly the state the first run ended with, every particle under its
/// id (here after half of them were taken out), on both paths, and the
/// ids it hands out next follow the largest.
#[test]
fn final_csv_round_trips() {
    let scene = common::build(
        SceneBuilder::new("rt")
            .domain([0.0; 3], [0.02, 0.02, 0.05])
            .dt_auto(0.2)
            .steps(300)
            .material(Material::new("m", 2500.0, 5e6))
            .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
            .generate(
                "lattice",
                ([0.0; 3], [0.02, 0.02, 0.02]),
                talus::scene::RadiusDist::Uniform {
                    min: 0.0008,
                    max: 0.001,
                },
                "m",
                Some(200),
                [0.0, 0.0, -0.2],
            ),
    );
    let mut b = CpuBackend::new(&scene).unwrap();
    b.advance(300).unwrap();
    let mut end = talus::run::to_inits(&b.snapshot(), &[]);
    // as if an outlet had taken every other one
    end = end.into_iter().skip(1).step_by(2).collect();
    let path = std::env::temp_dir().join(format!("talus-rt-{}.csv", std::process::id()));
    talus::io::csv::write_particles(&path, &end, &scene.materials, &scene.shapes).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("x,y,z,vx,vy,vz,wx,wy,wz,radius,material,id\n"));
    let back = talus::io::csv::read_particles(&path, &scene.materials, &scene.shapes, 0).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(back.len(), end.len());
    for (a, b) in back.iter().zip(&end) {
        assert_eq!(
            (a.position, a.velocity, a.angular_velocity, a.radius, a.id),
            (b.position, b.velocity, b.angular_velocity, b.radius, b.id)
        );
    }
    let ids: Vec<u32> = back.iter().map(|p| p.id.unwrap()).collect();
    assert_eq!(ids, (0..100).map(|k| 2 * k + 1).collect::<Vec<u32>>());
    // a scene of these particles and one without an id: numbered after
    let mut again = scene.clone();
    again.particles = back.clone();
    let mut extra = back[0];
    extra.position[2] += 0.02;
    extra.id = None;
    again.particles.push(extra);
    let mut want = ids.clone();
    want.push(200);
    assert_eq!(again.particle_ids(), want);
    let mut cpu = CpuBackend::new(&again).unwrap();
    assert_eq!(cpu.snapshot().id, want, "the CPU path keeps the ids");
    if let Some(ctx) = talus::gpu::context::test_context() {
        let mut gpu = talus::gpu::GpuBackend::new(&again, ctx).unwrap();
        assert_eq!(gpu.snapshot().id, want, "the GPU path keeps the ids");
    }
}

/// [`common::falling_bed`] as a CPU step.
fn falling_bed() -> Step {
    Step::new(&common::falling_bed()).unwrap()
}

/// Insertion and removal touch nothing else: a particle inserted far from
/// the others (it never meets them) and then removed again leaves every
/// other particle's state bit for bit as in a run without it, through the
/// rebuilds (new particles get rows, removed ones lose theirs and their
/// partners' entries); the inserted particle gets the next id and falls
/// freely as leapfrog under gravity says; and every contact stays listed
/// (checked against brute force after each step).
#[test]
fn insertion_and_removal_leave_the_others_bit_for_bit() {
    let make = falling_bed;
    let (mut plain, mut grown) = (make(), make());
    let n = plain.particles.len();
    for _ in 0..200 {
        plain.step().unwrap();
        grown.step().unwrap();
    }
    // a sphere at rest near the top, far above the bed
    let add = spheres_at_rest_above(&grown.particles, 1);
    let ids = grown.insert(&add).unwrap();
    assert_eq!(ids, n as u32..n as u32 + 1);
    assert!(grown.rebuild, "insertion rebuilds the list");
    let t_insert = grown.step;
    let listed = |st: &Step| {
        let mut s = BTreeSet::new();
        for i in 0..st.particles.len() {
            let w = &st.work;
            for &e in &w.nbr[w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize] {
                if e & WALL == 0 {
                    s.insert((i, (e & INDEX) as usize));
                }
            }
        }
        s
    };
    let mut checked = 0;
    for _ in 0..300 {
        plain.step().unwrap();
        grown.step().unwrap();
        let l = listed(&grown);
        for (i, j) in talus::grid::pairs::brute_force_pairs(&grown.particles.pos_rad, &grown.grid) {
            assert!(l.contains(&(i, j)), "pair ({i}, {j}) not listed");
            checked += 1;
        }
    }
    // free fall of the new one: leapfrog with v(-1/2) = -g dt/2
    let k = grown
        .particles
        .id
        .iter()
        .position(|&id| id == ids.start)
        .unwrap();
    let steps = (grown.step - t_insert) as f64;
    let dt = grown.law.dt;
    let z = 0.09 - 0.5 * 9.81 * dt * dt * steps * steps;
    let got = grown.particles.pos_rad[k][2];
    assert!((got - z).abs() < 1e-9, "free fall: z {got}, leapfrog {z}");
    // and out again
    assert_eq!(grown.remove(&[ids.start].into_iter().collect()), 1);
    assert_eq!(grown.particles.len(), n);
    for _ in 0..300 {
        plain.step().unwrap();
        grown.step().unwrap();
        let l = listed(&grown);
        for (i, j) in talus::grid::pairs::brute_force_pairs(&grown.particles.pos_rad, &grown.grid) {
            assert!(
                l.contains(&(i, j)),
                "pair ({i}, {j}) not listed after removal"
            );
            checked += 1;
        }
        assert_eq!(
            flag_mismatch(&grown.work.nbr, &grown.work.nbr_hist.to_hists()),
            None
        );
    }
    assert!(checked > 1000, "only {checked} contacts checked");
    let (mut a, mut b) = (plain.particles.clone(), grown.particles.clone());
    a.sort_by_id();
    b.sort_by_id();
    assert_eq!(a, b, "the others changed");
    assert_eq!(grown.next_id, n as u32 + 1, "ids are not reused");
}

/// Removing particles from the middle of a colliding bed keeps the list
/// valid without a rebuild: every contact is still listed (brute force,
/// every step), the history flags hold, the pair history of the particles
/// left is the same bits just before and after the removal, and the run
/// goes on.
#[test]
fn removal_keeps_the_list_and_history_of_the_rest() {
    let mut st = falling_bed();
    for _ in 0..3000 {
        st.step().unwrap();
    }
    // a seventh of the particles still there (the bed's open sides have
    // let some out of the domain by now)
    let mut ids = st.particles.id.clone();
    ids.sort();
    let gone: std::collections::HashSet<u32> = ids.into_iter().step_by(7).collect();
    let before: Vec<_> = st
        .pair_history()
        .into_iter()
        .filter(|(a, b, _)| !gone.contains(a) && !gone.contains(b))
        .collect();
    let n = st.particles.len();
    assert_eq!(st.remove(&gone), gone.len());
    assert_eq!(st.particles.len(), n - gone.len());
    assert!(st.particles.id.iter().all(|id| !gone.contains(id)));
    let mut after = st.pair_history();
    let mut before = before;
    let key = |x: &(u32, u32, [f64; 8])| (x.0, x.1);
    before.sort_by_key(key);
    after.sort_by_key(key);
    assert!(before.len() > 50, "only {} pairs in contact", before.len());
    assert_eq!(before, after, "history of the rest changed");
    let mut checked = 0;
    for _ in 0..300 {
        st.step().unwrap();
        if st.rebuild {
            continue;
        }
        let w = &st.work;
        assert_eq!(flag_mismatch(&w.nbr, &w.nbr_hist.to_hists()), None);
        let mut listed = BTreeSet::new();
        for i in 0..st.particles.len() {
            for &e in &w.nbr[w.nbr_start[i] as usize..w.nbr_start[i + 1] as usize] {
                listed.insert((i, (e & INDEX) as usize));
            }
        }
        for (i, j) in talus::grid::pairs::brute_force_pairs(&st.particles.pos_rad, &st.grid) {
            assert!(listed.contains(&(i, j)), "pair ({i}, {j}) not listed");
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} contacts checked");
}

/// `dt = "auto"` counts the energy stored in initial overlaps (particles
/// read from files may start up to half a radius deep): a pair released
/// from 0.45 r gets the speed that overlap stores, the time step of an
/// impact at that speed, and an energy balance an order of magnitude
/// closer than at the step its scene's speeds alone would give.
#[test]
fn initial_overlaps_set_the_auto_time_step() {
    use std::sync::Arc;
    let mut glass = Material::new("glass", 2500.0, 5e6);
    glass.restitution = 0.9;
    let r = 0.001;
    let pair = |gap: f64| {
        common::build(
            SceneBuilder::new("pair")
                .domain([0.0; 3], [0.02; 3])
                .gravity([0.0; 3])
                .dt_auto(0.2)
                .duration(0.002)
                .material(glass.clone())
                .particle([0.01, 0.01, 0.01], [0.0; 3], r, "glass")
                .particle([0.01 + 2.0 * r - gap, 0.01, 0.01], [0.0; 3], r, "glass"),
        )
    };
    let deep = pair(0.45 * r);
    let est = talus::timestep::estimate(&deep);
    // ½ m* v² = 8/15 E* √R* δ^{5/2}
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let e_star = 5e6 / (2.0 * (1.0 - 0.25 * 0.25));
    let energy = 8.0 / 15.0 * e_star * (0.5 * r).sqrt() * (0.45 * r).powf(2.5);
    let v = (2.0 * energy / (0.5 * m)).sqrt();
    assert!(
        (est.release_speed - v).abs() < 1e-9 * v,
        "{} vs {v}",
        est.release_speed
    );
    assert_eq!(est.impact_speed, est.release_speed);
    // the same pair across a periodic face: the minimum image's overlap
    let wrapped = common::build(
        SceneBuilder::new("wrapped")
            .domain([0.0; 3], [0.02; 3])
            .periodic([true, false, false])
            .gravity([0.0; 3])
            .dt_auto(0.2)
            .duration(0.002)
            .material(glass.clone())
            .particle([0.0005, 0.01, 0.01], [0.0; 3], r, "glass")
            .particle([0.0205 - 1.55 * r, 0.01, 0.01], [0.0; 3], r, "glass"),
    );
    let across = talus::timestep::estimate(&wrapped).release_speed;
    assert!((across - v).abs() < 1e-6 * v, "{across} vs {v}");
    let apart = talus::timestep::estimate(&pair(-0.5 * r));
    assert_eq!(apart.release_speed, 0.0);
    assert!(
        est.auto_dt < 0.5 * apart.auto_dt,
        "{} {}",
        est.auto_dt,
        apart.auto_dt
    );
    // the pair flies apart: the largest balance error over the run
    let residual = |dt: f64| {
        let mut scene = deep.clone();
        scene.simulation.dt = talus::scene::Dt::Fixed(dt);
        let setup = Arc::new(talus::Setup::new(scene).unwrap());
        let cpu = CpuBackend::from_setup(&setup).unwrap();
        let mut sim = talus::run::Simulation::new(setup.clone(), cpu);
        let mut worst: f64 = 0.0;
        // the reference at step 1, as the run's first energy row
        sim.advance(1).unwrap();
        sim.balance();
        while sim.step() < setup.steps {
            sim.advance(5).unwrap();
            worst = worst.max(sim.balance().residual_ratio);
        }
        worst
    };
    let (now, before) = (residual(est.auto_dt), residual(apart.auto_dt));
    assert!(now < 0.005, "{now}");
    assert!(
        before > 3.0 * now,
        "the scene's speeds alone: {before}, with the overlap: {now}"
    );
}

/// `talus check`'s accuracy line: a head-on impact of the scene's smallest
/// pair at its impact speed, measured at the scene's dt. At the auto step
/// (~20 steps per contact) it stays within the run's warning threshold; at
/// a dt just under the stability limit (4 steps) the error during contact
/// passes it, though the run would be stable.
#[test]
fn the_accuracy_check_measures_a_pair_impact() {
    use talus::run::accuracy::pair_impact;
    use talus::run::driver::WARN_RESIDUAL;
    let scene = |dt: Option<f64>| {
        let b = SceneBuilder::new("bed")
            .domain([0.0; 3], [0.02, 0.02, 0.04])
            .material(Material::new("glass", 2500.0, 5e6))
            .steps(10)
            .particle([0.01, 0.01, 0.01], [0.0; 3], 0.001, "glass")
            .particle([0.01, 0.01, 0.02], [0.0; 3], 0.0015, "glass");
        let b = match dt {
            Some(dt) => b.dt(dt),
            None => b.dt_auto(0.2),
        };
        talus::Setup::new(common::build(b)).unwrap()
    };
    let auto = scene(None);
    let p = pair_impact(&auto).unwrap();
    assert_eq!((p.radius, p.speed), (0.001, auto.estimate.impact_speed));
    assert!(p.steps_in_contact >= 18, "{p:?}");
    assert!(
        p.residual_peak < WARN_RESIDUAL && p.residual < p.residual_peak,
        "{p:?}"
    );
    let near = scene(Some(0.95 * auto.estimate.stable_limit));
    let q = pair_impact(&near).unwrap();
    assert!(q.steps_in_contact <= 5, "{q:?}");
    assert!(q.residual_peak > WARN_RESIDUAL, "{q:?}");
}
