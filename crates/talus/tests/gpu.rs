//! The GPU path against its CPU twin. Each test skips with a printed reason
//! when no adapter exists, unless TALUS_REQUIRE_GPU=1 (CI, on lavapipe).

use crate::common;

use common::*;
use std::collections::HashMap;
use talus::backend::Backend;
use talus::backend::Stage;
use talus::cpu::neighbours::flag_mismatch;
use talus::cpu::{CpuBackend, Step};
use talus::gpu::{context::test_context, FixedPoint, GpuBackend, GpuInit, ListInit, Pairs};
use talus::grid::Grid;
use talus::rng::Rng;
use talus::scene::{Material, Scene, SceneBuilder};
use talus::state::{convert_motion, Motion, Particles};
use talus::state::{INDEX, WALL};

/// A list entry as something both paths agree on: a particle partner by
/// its id, a wall primitive as WALL | its index.
fn entry_code(k: u32, ids: &[u32]) -> u32 {
    if k & WALL != 0 {
        k & (WALL | INDEX)
    } else {
        ids[(k & INDEX) as usize]
    }
}

/// f64 state rounded through f32, so CPU and GPU start from the same values.
fn rounded(p: &Particles<f64>) -> Particles<f64> {
    p.to_f32().map_real(f64::from)
}

/// Fixed-point positions of an f32 state.
fn fixed(grid: &Grid, s: &Particles<f32>) -> Vec<talus::gpu::data::FixedWords> {
    let fp = FixedPoint::new(grid);
    s.pos_rad
        .iter()
        .map(|p| fp.encode([p[0] as f64, p[1] as f64, p[2] as f64]))
        .collect()
}

/// Cell key as the shader computes it, in f32: the particle's level, then
/// its cell there.
fn key_f32(grid: &Grid, p: [f32; 4]) -> u32 {
    let h = p[3] + 0.5 * (2.0 * grid.half_skin) as f32;
    let mut l = 0;
    while l + 1 < grid.n_levels && grid.levels[l + 1].half_cut as f32 >= h {
        l += 1;
    }
    let lv = &grid.levels[l];
    let mut c = [0u32; 3];
    for k in 0..3 {
        let f = ((p[k] - grid.min[k] as f32) * lv.inv_cell[k] as f32).floor();
        c[k] = f.clamp(0.0, (lv.dims[k] - 1) as f32) as u32;
    }
    lv.first + c[0] + lv.dims[0] * (c[1] + lv.dims[1] * c[2])
}

/// Bin, scan, scatter and per-cell sort equal the CPU's exactly, for an
/// awkward particle count, clustered positions (empty and crowded cells),
/// outliers clamped into edge cells, and a three-level scan.
#[test]
fn gpu_integer_stages_match_cpu_exactly() {
    let Some(ctx) = test_context() else { return };
    let n = 15_071;
    let mut rng = Rng::new(42);
    let mut b = SceneBuilder::new("ints")
        .domain([0.0; 3], [0.1, 0.08, 0.12])
        .gravity([0.0; 3])
        .dt(1e-7)
        .steps(1)
        .material(Material::new("m", 2500.0, 1e7));
    for i in 0..n {
        let p = if i % 3 == 0 {
            // a dense cluster: crowded cells
            [
                rng.range(0.02, 0.025),
                rng.range(0.02, 0.025),
                rng.range(0.02, 0.025),
            ]
        } else if i % 101 == 0 {
            // outside the open domain: clamped into edge cells
            [
                rng.range(-0.05, 0.15),
                rng.range(-0.05, 0.13),
                rng.range(-0.05, 0.17),
            ]
        } else {
            [
                rng.range(0.0, 0.1),
                rng.range(0.0, 0.08),
                rng.range(0.0, 0.12),
            ]
        };
        b = b.particle(p, [0.0; 3], rng.range(0.0002, 0.0008), "m");
    }
    let scene = b.build_unchecked(); // overlapping on purpose
                                     // more cells than particles: a three-level scan with many empty cells
    let grid = Grid::with_target(&scene.domain, 0.0008, Some(1 << 20)).unwrap();
    let state = Particles::from_scene(&scene).to_f32();
    let motion = state.initial_motion(scene.simulation.gravity, scene.dt());
    let fx = fixed(&grid, &state);
    let init = GpuInit {
        state: &state,
        pos_fx: &fx,
        motion: &motion,
        list: None,
        capacity: None,
        clumps: None,
    };
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let g = GpuBackend::from_state(&setup, &grid, &init, ctx).unwrap();
    assert!(
        g.data.scan.len() >= 3,
        "want a multi-level scan, got {} levels",
        g.data.scan.len()
    );
    g.submit("order", |pass| {
        g.pipes.bin.encode(&g.binds.bin, pass, &g.data);
        g.pipes
            .sort
            .encode_order(&g.binds.sort, &g.pipes.bin, &g.binds.bin, pass, &g.data);
    });
    let keys: Vec<u32> = g.read_vec(&g.data.nbr_count, n as u64);
    let counts: Vec<u32> = g.read_vec(&g.data.counts, g.data.n_cells + 1);
    let starts: Vec<u32> = g.read_vec(&g.data.starts, g.data.n_cells + 1);
    let order: Vec<u32> = g.read_vec(&g.data.order, n as u64);

    let cpu_keys: Vec<u32> = state.pos_rad.iter().map(|p| key_f32(&grid, *p)).collect();
    assert_eq!(keys, cpu_keys, "cell keys differ");
    let mut cpu_counts = vec![0u32; grid.n_cells()];
    for &k in &cpu_keys {
        cpu_counts[k as usize] += 1;
    }
    let (mut cpu_starts, mut cpu_order) = (Vec::new(), Vec::new());
    talus::cpu::sort::sort(&cpu_keys, &mut cpu_counts, &mut cpu_starts, &mut cpu_order);
    assert_eq!(&counts[..grid.n_cells()], &cpu_counts[..], "counts differ");
    assert_eq!(starts, cpu_starts, "scan differs");
    assert_eq!(order, cpu_order, "sorted order differs");
    let empty = cpu_counts.iter().filter(|&&c| c == 0).count();
    let full = cpu_counts.iter().copied().max().unwrap();
    println!(
        "{n} particles, {} cells ({empty} empty, fullest {full})",
        grid.n_cells()
    );
    assert!(empty > 0 && full > 20);
}

/// A dense polydisperse packing against walls, already in contact: a
/// lattice at spacing 0.975 of the largest diameter, jittered by ±0.1 r
/// per axis (so opposing contacts do not cancel as in a crystal), random
/// velocities and spins, two materials.
fn dense_scene(model_linear: bool) -> Scene {
    let r = 0.0005;
    let s = 1.95 * r;
    let (nx, ny, nz) = (10, 10, 12);
    let lx = nx as f64 * s;
    let ly = ny as f64 * s;
    let mut rng = Rng::new(77);
    let mut b = SceneBuilder::new("dense")
        .domain([0.0; 3], [lx, ly, 0.03])
        .dt_auto(0.2)
        .steps(1)
        .material(Material {
            rolling_friction: 0.02,
            rolling_viscous_damping: 0.0,
            cohesion_energy_density: 0.0,
            surface_energy: 0.0,
            ..Material::new("m", 2500.0, 5e6)
        })
        .material(Material {
            friction: 0.3,
            restitution: 0.8,
            ..Material::new("w", 7800.0, 2e7)
        })
        .wall([0.0; 3], [0.0, 0.0, 1.0], "w")
        .wall([0.0; 3], [1.0, 0.0, 0.0], "w")
        .wall([lx, 0.0, 0.0], [-1.0, 0.0, 0.0], "w")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "m")
        .wall([0.0, ly, 0.0], [0.0, -1.0, 0.0], "m");
    for iz in 0..nz {
        for iy in 0..ny {
            for ix in 0..nx {
                let c = [
                    (ix as f64 + 0.5) * s,
                    (iy as f64 + 0.5) * s,
                    (iz as f64 + 0.5) * s,
                ];
                let c = c.map(|x| x + rng.range(-0.1, 0.1) * r);
                let v = [
                    rng.range(-0.05, 0.05),
                    rng.range(-0.05, 0.05),
                    rng.range(-0.05, 0.05),
                ];
                let w = [
                    rng.range(-20.0, 20.0),
                    rng.range(-20.0, 20.0),
                    rng.range(-20.0, 20.0),
                ];
                let m = if (ix + iy + iz) % 5 == 0 { "w" } else { "m" };
                b = b.particle_spin(c, v, w, r * rng.range(0.9, 1.0), m);
            }
        }
    }
    if model_linear {
        b = b.linear_contact_time(2e-4);
    }
    build(b)
}

/// The GPU's pair history by ids: (lower id, higher id) → ξ xyz, k_t for
/// every list entry with history (a list of both sides holds each pair
/// twice, with the same bits: the lower id's copy; one of each pair once,
/// only that one).
fn gpu_pair_history(g: &GpuBackend) -> HashMap<(u32, u32), [f32; 8]> {
    let n = g.data.n;
    let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    let ids: Vec<u32> = g.ids();
    let start: Vec<u32> = g.read_vec(&g.data.nbr_start, n + 1);
    let nbr: Vec<u32> = g.read_vec(&g.data.nbr, len);
    let hist = g.read_hist(len);
    let mut out = HashMap::new();
    for i in 0..n as usize {
        for e in start[i] as usize..start[i + 1] as usize {
            let partner = ids[(nbr[e] & INDEX) as usize];
            if hist[e] != [0.0; 8] && nbr[e] & WALL == 0 && ids[i] < partner {
                out.insert((ids[i], partner), hist[e]);
            }
        }
    }
    out
}

/// A GPU run from a CPU step's state, neighbour list and history, all
/// rounded to f32 (`st` too, so both start from the same numbers); the
/// next step rebuilds on both.
fn gpu_from_cpu(st: &mut Step, scene: &Scene, ctx: talus::gpu::GpuContext) -> GpuBackend {
    let r4 =
        |v: &Vec<[f64; 8]>| -> Vec<[f32; 8]> { v.iter().map(|a| a.map(|x| x as f32)).collect() };
    let back =
        |v: &Vec<[f32; 8]>| -> Vec<[f64; 8]> { v.iter().map(|a| a.map(f64::from)).collect() };
    st.particles = rounded(&st.particles);
    let motion: Vec<Motion<f32>> = convert_motion(&st.work.motion);
    let hist = r4(&st.work.nbr_hist.to_hists());
    st.work.motion = convert_motion(&motion);
    st.work.nbr_hist = talus::cpu::hist::HistVec::from_hists(st.work.nbr_hist.roll, &back(&hist));
    st.rebuild = true;
    let f32_state = st.particles.to_f32();
    let fx = fixed(&st.grid, &f32_state);
    let init = GpuInit {
        state: &f32_state,
        pos_fx: &fx,
        motion: &motion,
        capacity: None,
        clumps: None,
        list: Some(ListInit {
            start: &st.work.nbr_start,
            nbr: &st.work.nbr,
            hist: &hist,
        }),
    };
    let setup = talus::Setup::new(scene.clone()).unwrap();
    GpuBackend::from_state(&setup, &st.grid, &init, ctx).unwrap()
}

/// Spring forces k_t ξ of the pairs with history, GPU against CPU: the
/// same pairs, and the norm-wise relative difference. ξ alone is not a
/// fair measure: f32 resolves an overlap r1 + r2 - |d| only to ~6e-11 m at
/// |d| = 1 mm, so a barely touching contact (δ ~ 1e-8 m) has a k_t and ξ
/// off by ~1e-3 relative while carrying almost no force.
fn history_difference(st: &Step, g: &GpuBackend) -> (usize, f64) {
    let (pairs, tangential, _) = history_differences(st, g);
    (pairs, tangential)
}

/// [`history_difference`], and the rolling springs' torques' norm-wise
/// relative difference (NaN when no pair has one).
fn history_differences(st: &Step, g: &GpuBackend) -> (usize, f64, f64) {
    let gpu_hist = gpu_pair_history(g);
    let mut cpu_hist = st.pair_history();
    cpu_hist.retain(|&(a, b, _)| a < b);
    assert_eq!(
        gpu_hist.len(),
        cpu_hist.len(),
        "pairs with history differ in number"
    );
    let (mut dh, mut nh, mut dr, mut nr) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for &(a, b, c) in &cpu_hist {
        let g = gpu_hist
            .get(&(a, b))
            .unwrap_or_else(|| panic!("pair ({a}, {b}) has history on the CPU only"));
        for k in 0..3 {
            let fc = c[3] * c[k];
            let fg = g[3] as f64 * g[k] as f64;
            dh += (fg - fc).powi(2);
            nh += fc * fc;
            dr += (g[4 + k] as f64 - c[4 + k]).powi(2);
            nr += c[4 + k].powi(2);
        }
    }
    (cpu_hist.len(), (dh / nh).sqrt(), (dr / nr).sqrt())
}

/// One step from the same state (dense packing, history, walls), the GPU
/// starting from the CPU's neighbour list and its history: forces and
/// torques within 1e-4 relative (norm-wise); the history after the step
/// (moved to the new list by the rebuild, then updated by the contacts) has
/// the same pairs and the same spring forces k_t ξ within 1e-4 (norm-wise).
#[test]
fn gpu_one_step_forces_match_cpu() {
    // each law's bed settled once (both pair modes start from it)
    use talus::scene::{Cohesion, Rolling};
    let mut settled: HashMap<(bool, Rolling, Cohesion), Step> = HashMap::new();
    for (linear, pairs, rolling, cohesion) in [
        (false, Pairs::Once, Rolling::Cdt, Cohesion::None),
        (true, Pairs::Once, Rolling::Cdt, Cohesion::None),
        (false, Pairs::Both, Rolling::Cdt, Cohesion::None),
        // the rolling spring's torque: moved with the history, and the law
        (false, Pairs::Once, Rolling::Epsd2, Cohesion::None),
        (true, Pairs::Both, Rolling::Epsd, Cohesion::None),
        // JKR: contacts held past touching (evaluated though apart)
        (false, Pairs::Once, Rolling::Cdt, Cohesion::Jkr),
        (false, Pairs::Both, Rolling::Epsd2, Cohesion::Jkr),
    ] {
        let Some(mut ctx) = test_context() else {
            return;
        };
        ctx.pairs = pairs;
        let mut scene = dense_scene(linear);
        scene.contact.rolling = rolling;
        scene.contact.cohesion = cohesion;
        scene.materials[0].rolling_viscous_damping = 0.3;
        if cohesion == Cohesion::Jkr {
            scene.materials[0].surface_energy = 0.05;
        }
        // settle a while on the CPU so contacts carry history
        let mut st: Step = settled
            .entry((linear, rolling, cohesion))
            .or_insert_with(|| {
                let mut cpu = CpuBackend::new(&scene).unwrap();
                cpu.advance(300).unwrap();
                cpu.st.clone()
            })
            .clone();
        let contacts_with_history = st.pair_history().len();
        assert!(
            contacts_with_history > 500,
            "only {contacts_with_history} history entries"
        );
        if cohesion == Cohesion::Jkr {
            let apart = held_apart(&st.particles, &st.pair_history());
            println!("JKR: {apart} contacts held with their surfaces apart");
            assert!(apart > 20, "only {apart} contacts held apart");
        }
        let g = gpu_from_cpu(&mut st, &scene, ctx);
        // bin, sort, neighbours (the first step rebuilds), contacts
        g.submit("one step", |pass| {
            for s in &Stage::STEP[..4] {
                g.encode_stage(*s, pass);
            }
        });
        let ids: Vec<u32> = g.ids();
        let (force, torque) = g.forces();

        st.bin_and_sort();
        st.build_neighbours();
        talus::cpu::contacts::contacts(&mut st);
        let cpu_at: HashMap<u32, usize> = st
            .particles
            .id
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i))
            .collect();
        let (mut df, mut nf, mut dt_, mut nt) = (0.0, 0.0, 0.0, 0.0);
        for (j, id) in ids.iter().enumerate() {
            let i = cpu_at[id];
            for k in 0..3 {
                df += (force[j][k] as f64 - st.work.force[i][k]).powi(2);
                nf += st.work.force[i][k].powi(2);
                dt_ += (torque[j][k] as f64 - st.work.torque[i][k]).powi(2);
                nt += st.work.torque[i][k].powi(2);
            }
        }
        // history: the same pairs, k_t ξ close (and the rolling torque)
        let (hist_pairs, eh, er) = history_differences(&st, &g);
        let (ef, et) = ((df / nf).sqrt(), (dt_ / nt).sqrt());
        println!("linear = {linear}, {pairs:?}, {rolling:?}, {cohesion:?}: force {ef:e}, torque {et:e}, history {eh:e}, rolling {er:e} over {hist_pairs} pairs");
        assert!(ef < 1e-4, "force differs by {ef:e} (norm-wise)");
        assert!(et < 1e-4, "torque differs by {et:e} (norm-wise)");
        assert!(eh < 1e-4, "history differs by {eh:e} (norm-wise)");
        if rolling.has_memory() {
            assert!(er < 1e-4, "rolling torque differs by {er:e} (norm-wise)");
        } else {
            assert!(er.is_nan(), "a rolling torque without the spring");
        }
    }
}

/// The neighbour list of one build (count, scan, fill) against the CPU's on
/// the same f32-rounded dense packing: the same candidates in the same
/// order for every particle, except pairs whose distance lies within 1e-5
/// of the cutoff r_i + r_j + skin, where f32 and f64 may decide apart
/// (counted and printed). Then the list's length in `ctl`, the reference
/// positions, and the rebuild flag cleared.
/// A CPU step of `scene` with its state rounded through f32, and a GPU run
/// from the same numbers, no list yet: the first step builds on both.
fn fresh_pair(scene: &Scene, ctx: talus::gpu::GpuContext) -> (Step, GpuBackend) {
    let mut st = Step::new(scene).unwrap();
    st.particles = rounded(&st.particles);
    let f32_state = st.particles.to_f32();
    let motion = convert_motion(&st.work.motion);
    let fx = fixed(&st.grid, &f32_state);
    let init = GpuInit {
        state: &f32_state,
        pos_fx: &fx,
        motion: &motion,
        list: None,
        capacity: None,
        clumps: None,
    };
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let g = GpuBackend::from_state(&setup, &st.grid, &init, ctx).unwrap();
    (st, g)
}

/// What [`compare_lists`] saw.
struct ListComparison {
    n: usize,
    len: usize,
    /// 2 for a list of each pair once, 1 for one of both sides.
    sides: usize,
    same: usize,
    borderline: usize,
    walls_near: usize,
    levels: usize,
}

/// One build's list on the GPU against the CPU's, from the same
/// f32-rounded state of `scene`: the same candidates in the same order for
/// every particle but pairs within 1e-5 of the cutoff (asserted here).
fn compare_lists(scene: &Scene, ctx: talus::gpu::GpuContext) -> ListComparison {
    let (mut st, g) = fresh_pair(scene, ctx);
    g.submit("build", |pass| {
        for s in &Stage::STEP[..3] {
            g.encode_stage(*s, pass);
        }
    });
    let n = g.data.n as usize;
    let ctl = g.ctl();
    let len = ctl[talus::gpu::data::CTL_LIST_LEN] as usize;
    assert_eq!(ctl[talus::gpu::data::CTL_BUILDS], 1, "one build");
    assert_eq!(
        ctl[talus::gpu::data::CTL_REBUILD],
        0,
        "rebuild flag cleared"
    );
    let ids: Vec<u32> = g.ids();
    let pos: Vec<[f32; 4]> = g.read_vec(&g.data.b.pos, n as u64);
    let pos_ref: Vec<[f32; 3]> = g.read_vec(&g.data.pos_ref, n as u64);
    let start: Vec<u32> = g.read_vec(&g.data.nbr_start, n as u64 + 1);
    let list: Vec<u32> = g.read_vec(&g.data.nbr, len as u64);
    assert_eq!(start[n] as usize, len, "list length in ctl");
    let xyz: Vec<[f32; 3]> = pos.iter().map(|p| [p[0], p[1], p[2]]).collect();
    assert_eq!(xyz, pos_ref, "reference positions are the build's");

    st.bin_and_sort();
    st.build_neighbours();
    let p = &st.particles;
    let cpu_at: HashMap<u32, usize> = p.id.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let skin = st.skin;
    // a particle's entry names its partner by id, a wall's by WALL | index
    let near_cutoff = |a: u32, b: u32| {
        if b & WALL != 0 {
            // f32 and f64 may decide apart where the wall lies at the reach
            let x = p.pos_rad[cpu_at[&a]];
            let dist =
                talus::walls::gap(&st.walls.prims[(b & INDEX) as usize], [x[0], x[1], x[2]]).dist;
            let reach = x[3] + skin;
            return (dist - reach).abs() < 1e-5 * reach;
        }
        let (x, y) = (p.pos_rad[cpu_at[&a]], p.pos_rad[cpu_at[&b]]);
        let d = st.grid.min_image([x[0], x[1], x[2]], [y[0], y[1], y[2]]);
        let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let cut = x[3] + y[3] + skin;
        (dist - cut).abs() < 1e-5 * cut
    };
    let (mut same, mut borderline, mut walls_near) = (0, 0, 0);
    for j in 0..n {
        let id = ids[j];
        let gpu: Vec<u32> = list[start[j] as usize..start[j + 1] as usize]
            .iter()
            .map(|&k| entry_code(k, &ids))
            .collect();
        walls_near += gpu.iter().filter(|&&c| c & WALL != 0).count();
        let i = cpu_at[&id];
        let (lo, hi) = (
            st.work.nbr_start[i] as usize,
            st.work.nbr_start[i + 1] as usize,
        );
        // a list of each pair once holds the CPU's partners of higher id
        let once = g.data.pair_mode == Pairs::Once;
        let cpu: Vec<u32> = st.work.nbr[lo..hi]
            .iter()
            .map(|&k| entry_code(k, &p.id))
            .filter(|&c| !once || c & WALL != 0 || c > id)
            .collect();
        if gpu == cpu {
            same += 1;
            continue;
        }
        // only near-cutoff pairs may differ, and the rest keeps its order
        let keep = |v: &Vec<u32>| -> Vec<u32> {
            v.iter().copied().filter(|&b| !near_cutoff(id, b)).collect()
        };
        assert_eq!(keep(&gpu), keep(&cpu), "particle {id}: candidates differ");
        borderline += 1;
    }
    ListComparison {
        n,
        len,
        sides: if g.data.pair_mode == Pairs::Once {
            2
        } else {
            1
        },
        same,
        borderline,
        walls_near,
        levels: st.grid.n_levels,
    }
}

#[test]
fn gpu_neighbour_list_matches_cpu() {
    for pairs in [Pairs::Once, Pairs::Both] {
        neighbour_list_matches_cpu(pairs);
    }
}

fn neighbour_list_matches_cpu(pairs: Pairs) {
    let Some(mut ctx) = test_context() else {
        return;
    };
    ctx.pairs = pairs;
    let ListComparison {
        n,
        len,
        same,
        borderline,
        walls_near,
        ..
    } = compare_lists(&dense_scene(false), ctx);
    let st = Step::new(&dense_scene(false)).unwrap();
    println!("{pairs:?}: {n} particles, {len} list entries: {same} lists identical, {borderline} differ only at the cutoff");

    println!("{walls_near} (particle, wall) pairs within reach");
    // the packing's outer layers reach the walls, its inside does not
    let n_walls = st.walls.prims.len();
    assert!(
        walls_near > n / 10 && walls_near < n * n_walls / 2,
        "{walls_near} of {} (particle, wall) pairs within reach",
        n * n_walls
    );
    // a jittered simple-cubic packing: 6 lattice neighbours, ~5 within the
    // skin (each pair in one row of two when listed once)
    let sides = if pairs == Pairs::Once { 2 } else { 1 };
    assert!(
        len * sides > 4 * n,
        "a dense packing lists its neighbours ({len} entries)"
    );
    assert!(
        borderline * 100 <= n,
        "{borderline} lists differ at the cutoff"
    );
}

/// Size ratios of 1:12 and 1:35 (the grid's levels, `grid`): bin and sort
/// as the CPU in f32, and the list of one build the CPU's, open and
/// periodic.
#[test]
fn gpu_wide_size_ratio_list_matches_cpu() {
    let r = 0.0002;
    for (ratio, periodic, seed) in [(35.0, [false; 3], 15u64), (12.0, [true, false, true], 16)] {
        let side = 3.3 * 2.0 * ratio * r;
        let dom = talus::scene::Domain {
            min: [0.0; 3],
            max: [side, 1.1 * side, 1.2 * side],
            periodic,
        };
        let pos = wide_mixture(&dom, r, ratio, 4, 3000, seed);
        let mut b = SceneBuilder::new("wide")
            .domain(dom.min, dom.max)
            .periodic(periodic)
            .gravity([0.0; 3])
            .dt(1e-7)
            .steps(1)
            .material(Material::new("m", 2500.0, 1e7));
        for p in &pos {
            b = b.particle([p[0], p[1], p[2]], [0.0; 3], p[3], "m");
        }
        let scene = b.build_unchecked(); // overlapping on purpose
        let grid = Grid::for_scene(&scene).unwrap();
        let state = Particles::from_scene(&scene).to_f32();
        let cpu_keys: Vec<u32> = state.pos_rad.iter().map(|p| key_f32(&grid, *p)).collect();
        let Some(ctx) = test_context() else { return };
        let c = compare_lists(&scene, ctx);
        println!(
            "1:{ratio} {periodic:?}: {} particles, {} levels, {} entries, {} lists identical, {} differ at the cutoff",
            c.n, c.levels, c.len, c.same, c.borderline
        );
        assert!(c.levels >= 3, "1:{ratio}: {} levels", c.levels);
        assert!(
            c.borderline * 100 <= c.n,
            "{} lists differ at the cutoff",
            c.borderline
        );
        assert!(
            c.len * c.sides > c.n / 2,
            "the mixture lists its neighbours ({} entries)",
            c.len
        );
        // the keys the GPU binned by: the CPU's f32 twin, every level used
        let Some(ctx) = test_context() else { return };
        let g = GpuBackend::new(&scene, ctx).unwrap();
        g.submit("bin", |pass| {
            g.pipes.bin.encode(&g.binds.bin, pass, &g.data)
        });
        let keys: Vec<u32> = g.read_vec(&g.data.nbr_count, pos.len() as u64);
        assert_eq!(keys, cpu_keys, "1:{ratio}: cell keys differ");
        let used: std::collections::BTreeSet<usize> = keys
            .iter()
            .map(|&k| {
                (0..grid.n_levels)
                    .rfind(|&l| grid.levels[l].first <= k)
                    .unwrap()
            })
            .collect();
        assert!(used.len() >= 2, "levels used: {used:?}");
    }
}

/// A 1:35 mixture (4 large spheres among 6000, overlapping on purpose,
/// `wide_mixture(.., seed)`), each moving and spinning at random
/// (`spin_seed`), with friction, no gravity; with `floor`, a plane at z = 0.
fn spinning_1_35(name: &str, seed: u64, spin_seed: u64, floor: bool) -> Scene {
    let (r, ratio) = (0.0002, 35.0);
    let side = 3.3 * 2.0 * ratio * r;
    let dom = talus::scene::Domain {
        min: [0.0; 3],
        max: [side, 1.1 * side, 1.2 * side],
        periodic: [false; 3],
    };
    let pos = wide_mixture(&dom, r, ratio, 4, 6000, seed);
    let mut rng = Rng::new(spin_seed);
    let mut b = SceneBuilder::new(name)
        .domain(dom.min, dom.max)
        .gravity([0.0; 3])
        .dt(1e-7)
        .steps(2)
        .material(Material {
            friction: 0.4,
            ..Material::new("m", 2500.0, 1e7)
        });
    if floor {
        b = b.wall([0.0; 3], [0.0, 0.0, 1.0], "m");
    }
    for p in &pos {
        let v = [0, 1, 2].map(|_| rng.range(-0.05, 0.05));
        let w = [0, 1, 2].map(|_| rng.range(-20.0, 20.0));
        b = b.particle_spin([p[0], p[1], p[2]], v, w, p[3], "m");
    }
    b.build_unchecked()
}

/// Size ratio 1:35: the large particles' rows go through `contacts_large`
/// (a workgroup per row, a tree sum) and every other row through the
/// thread path; one step from the same f32-rounded state gives every
/// particle the CPU's force and torque (norm-wise within 1e-4 over the
/// large ones and over all).
#[test]
fn gpu_large_rows_forces_match_cpu() {
    for pairs in [Pairs::Once, Pairs::Both] {
        large_rows_forces_match_cpu(pairs);
    }
}

fn large_rows_forces_match_cpu(pairs: Pairs) {
    let Some(mut ctx) = test_context() else {
        return;
    };
    ctx.pairs = pairs;
    let scene = spinning_1_35("large rows", 21, 5, false);
    let (mut st, g) = fresh_pair(&scene, ctx);
    assert!(st.grid.large_levels() > 0, "1:35 has large levels");
    g.submit("one step", |pass| {
        for s in &Stage::STEP[..4] {
            g.encode_stage(*s, pass);
        }
    });
    let n = g.data.n;
    let large = g.ctl()[talus::gpu::data::CTL_LARGE] as usize;
    assert_eq!(large, 4, "the 4 large spheres head the cell order");
    let ids: Vec<u32> = g.ids();
    let (force, torque) = g.forces();
    st.bin_and_sort();
    st.build_neighbours();
    talus::cpu::contacts::contacts(&mut st);
    let cpu_at: HashMap<u32, usize> = st
        .particles
        .id
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let diff = |rows: std::ops::Range<usize>| {
        let (mut df, mut nf, mut dt_, mut nt) = (0.0, 0.0, 0.0, 0.0);
        for j in rows {
            let i = cpu_at[&ids[j]];
            for k in 0..4 {
                df += (force[j][k] as f64 - st.work.force[i][k]).powi(2);
                nf += st.work.force[i][k].powi(2);
                dt_ += (torque[j][k] as f64 - st.work.torque[i][k]).powi(2);
                nt += st.work.torque[i][k].powi(2);
            }
        }
        ((df / nf).sqrt(), (dt_ / nt).sqrt())
    };
    let (fl, tl) = diff(0..large);
    let (fa, ta) = diff(0..n as usize);
    let rows: Vec<u32> = g.read_vec(&g.data.nbr_start, large as u64 + 1);
    println!(
        "{pairs:?}: large rows {:?} entries: force {fl:e}, torque {tl:e}; all {n}: force {fa:e}, torque {ta:e}",
        rows.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
    );
    // longer than a workgroup: every thread takes entries, some two
    assert!(
        rows.windows(2).all(|w| w[1] - w[0] > 256),
        "the large rows are long"
    );
    assert!(
        fl < 1e-4 && tl < 1e-4,
        "large rows: force {fl:e}, torque {tl:e}"
    );
    assert!(
        fa < 1e-4 && ta < 1e-4,
        "all rows: force {fa:e}, torque {ta:e}"
    );
}

/// A build that needs more list entries than the buffer holds (a large
/// skin: ~40 candidates per particle, the buffer starts at 16) freezes
/// before it writes, the host grows the list and the run goes on from that
/// step: the step count, the list length and the positions after a few
/// steps agree with the CPU's.
#[test]
fn gpu_neighbour_list_grows() {
    let Some(ctx) = test_context() else { return };
    let mut scene = dense_scene(false);
    scene.simulation.neighbour_skin = Some(0.001); // two radii
    let mut cpu = CpuBackend::new(&scene).unwrap();
    cpu.st.particles = rounded(&cpu.st.particles);
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let cap0 = gpu.data.nbr_cap;
    cpu.advance(5).unwrap();
    gpu.advance(5).unwrap();
    assert_eq!(gpu.steps_done(), 5);
    let (lc, lg) = (cpu.list_stats(), gpu.list_stats());
    println!(
        "list: cpu {} entries, gpu {} (capacity {cap0} -> {})",
        lc.entries, lg.entries, gpu.data.nbr_cap
    );
    let len = gpu.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    assert!(len > cap0, "the list outgrew its first buffer");
    assert!(gpu.data.nbr_cap >= len);
    assert_eq!(lg.builds, lc.builds, "builds");
    assert!((lg.entries as f64 - lc.entries as f64).abs() <= 1e-3 * lc.entries as f64);
    let (pc, pg) = (cpu.snapshot(), gpu.snapshot());
    let worst = pc
        .pos_rad
        .iter()
        .zip(&pg.pos_rad)
        .map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max))
        .fold(0.0, f64::max);
    println!("worst position difference after 5 steps: {worst:e} m");
    assert!(worst < 1e-6 * 0.0005, "positions differ by {worst:e} m");
}

/// A build that outgrows the list while contacts carry history: the frozen
/// build keeps the previous list only once (the copy made before the
/// freeze survives the growth), so after the step the GPU holds the same
/// pairs with the same spring forces k_t ξ (1e-4 norm-wise) as the CPU.
/// Then again with the binding limit lowered so that the grown list spans
/// two pages (`gpu::pages`): growth works across the split.
#[test]
fn gpu_list_growth_keeps_history() {
    let scene = dense_scene(false);
    let mut cpu = CpuBackend::new(&scene).unwrap();
    cpu.advance(300).unwrap();
    // a skin of two radii from here on: ~40 candidates, the buffer holds 10
    let mut big = scene.clone();
    big.simulation.neighbour_skin = Some(0.001);
    let grow = |ctx: talus::gpu::context::GpuContext| {
        let mut st: Step = cpu.st.clone();
        st.skin = big.skin();
        st.grid = Grid::for_scene(&big).unwrap();
        let mut g = gpu_from_cpu(&mut st, &big, ctx);
        let cap0 = g.data.nbr_cap;
        g.advance(1).unwrap();
        st.step().unwrap();
        let (pairs, eh) = history_difference(&st, &g);
        let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
        println!(
            "capacity {cap0} -> {} ({len} listed, pages of {}); {pairs} pairs with history, k_t ξ differs by {eh:e}",
            g.data.nbr_cap, g.data.paging.entry_page
        );
        assert!(g.data.nbr_cap > cap0, "the list did not grow");
        assert!(pairs > 500, "only {pairs} pairs with history");
        assert!(eh < 1e-4, "history differs by {eh:e} (norm-wise)");
        len
    };
    for pairs in [Pairs::Once, Pairs::Both] {
        let Some(mut ctx) = test_context() else {
            return;
        };
        ctx.pairs = pairs;
        let len = grow(ctx);
        // pages of 0.6 of that list: its grown capacity (5/4 of it) fits two
        let Some(mut ctx) = test_context() else {
            return;
        };
        ctx.pairs = pairs;
        let page = (len * 6 / 10).next_multiple_of(16);
        ctx.limits.max_storage_buffer_binding_size = 16 * page;
        let len2 = grow(ctx);
        assert_eq!(len2, len);
        assert!(len2 > page, "the grown list spans both pages");
    }
}

/// A colliding cloud, a few hundred steps: positions within 1e-3 of the
/// radius of the CPU's.
#[test]
fn gpu_short_trajectory_matches_cpu() {
    let Some(ctx) = test_context() else { return };
    let mut rng = Rng::new(9);
    let r = 0.0005;
    let mut b = SceneBuilder::new("cloud")
        .domain([0.0; 3], [0.01; 3])
        .gravity([0.0; 3])
        .dt_auto(0.2)
        .steps(1)
        .material(Material::new("m", 2500.0, 5e6));
    let mut placed: Vec<[f64; 3]> = Vec::new();
    while placed.len() < 600 {
        let p = [
            rng.range(r, 0.01 - r),
            rng.range(r, 0.01 - r),
            rng.range(r, 0.01 - r),
        ];
        if placed
            .iter()
            .all(|q| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>() > 4.0 * r * r * 1.01)
        {
            let v = [
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5),
            ];
            b = b.particle(p, v, r, "m");
            placed.push(p);
        }
    }
    let mut scene = build(b.periodic([true; 3]));
    // both start from the f32-rounded state
    for p in &mut scene.particles {
        p.position = p.position.map(|x| x as f32 as f64);
        p.velocity = p.velocity.map(|x| x as f32 as f64);
    }
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let steps = 300;
    cpu.advance(steps).unwrap();
    gpu.advance(steps).unwrap();
    let worst = worst_position_difference(&mut cpu, &mut gpu);
    let contacts = cpu.list_stats().contacts;
    println!(
        "worst position difference {:e} of the radius; {contacts} contacts at the end",
        worst / r
    );
    assert!(
        worst < 1e-3 * r,
        "positions differ by {:e} of the radius",
        worst / r
    );
}

/// Hertz head-on impact on the GPU: within 1 % of theory, rebound 0.1 %.
#[test]
fn gpu_hertz_head_on_impact_matches_theory() {
    let Some(ctx) = test_context() else { return };
    check_hertz_impact(400.0, |s| Box::new(GpuBackend::new(s, ctx).unwrap()));
}

/// Linear model on the GPU: restitution within 0.5 % for e = 0.2, 0.5, 0.9.
#[test]
fn gpu_linear_restitution_is_exact() {
    if test_context().is_none() {
        return;
    }
    check_linear_restitution(200.0, |s| {
        let ctx = test_context().expect("the adapter was there a moment ago");
        Box::new(GpuBackend::new(s, ctx).unwrap())
    });
}

/// The GPU's motion records follow their particles through steps and
/// rebuilds: the record (the only device copy of v*, ω*, 1/m, 1/I, the
/// material and the id) is what the state reads back, and each record's
/// 1/m, 1/I and material are still those of the particle its id names;
/// and every list entry's history flag says whether its history is
/// non-zero.
#[test]
fn gpu_motion_record_and_history_flags_stay_true() {
    let Some(ctx) = test_context() else { return };
    let scene = dense_scene(false);
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    g.advance(300).unwrap();
    let builds = g.list_stats().builds;
    let state = g.state_f32();
    let motion: Vec<Motion<f32>> = g.read_vec(&g.data.b.motion, g.data.n);
    assert_eq!(state.motion_mismatch(&motion), None);
    let start = Particles::from_scene(&scene).to_f32();
    let mut seen = vec![false; start.len()];
    for i in 0..state.len() {
        let k = state.id[i] as usize;
        assert!(!seen[k], "id {k} twice");
        seen[k] = true;
        assert_eq!(
            (
                state.vel_invm[i][3].to_bits(),
                state.omega_invi[i][3].to_bits(),
                state.material[i]
            ),
            (
                start.vel_invm[k][3].to_bits(),
                start.omega_invi[k][3].to_bits(),
                start.material[k]
            ),
            "particle {k}'s record at {i} lost its mass, inertia or material"
        );
    }
    let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    let nbr: Vec<u32> = g.read_vec(&g.data.nbr, len);
    let hist: Vec<[f32; 4]> = g.read_vec(&g.data.nbr_hist, len);
    assert_eq!(flag_mismatch(&nbr, &hist), None, "a history flag is wrong");
    assert!(
        hist.iter().any(|h| *h != [0.0; 4]),
        "no pair history at all"
    );
    assert!(builds >= 3, "only {builds} list builds");
}

/// The wall primitives the GPU lists at each build (the last entries of a
/// row, flagged WALL) cover every wall contact until the next build, as
/// the CPU's do (`wall_entries_never_miss_a_wall_contact` in
/// tests/physics.rs): a particle that touches a wall has the wall's entry,
/// a wall entry's history flag agrees with its history, and contacts test
/// no other wall. Spheres fly at up to 2 m/s in a box of six walls;
/// checked after every step the list is still valid.
#[test]
fn gpu_wall_entries_never_miss_a_wall_contact() {
    let Some(ctx) = test_context() else { return };
    let scene = walled_box(5);
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    let (n, n_walls) = (g.data.n, scene.walls.len());
    let walls = talus::walls::primitives(&scene);
    let (mut touching, mut near_pairs, mut steps, mut with_history) = (0, 0, 0, 0);
    for _ in 0..600 {
        g.advance(1).unwrap();
        let ctl = g.ctl();
        if ctl[talus::gpu::data::CTL_REBUILD] != 0 {
            continue;
        }
        steps += 1;
        let s = g.state_f32();
        let len = ctl[talus::gpu::data::CTL_LIST_LEN] as u64;
        let start: Vec<u32> = g.read_vec(&g.data.nbr_start, n + 1);
        let list: Vec<u32> = g.read_vec(&g.data.nbr, len);
        let hist: Vec<[f32; 4]> = g.read_vec(&g.data.nbr_hist, len);
        assert_eq!(flag_mismatch(&list, &hist), None);
        for i in 0..n as usize {
            let row = start[i] as usize..start[i + 1] as usize;
            let listed: Vec<usize> = list[row.clone()]
                .iter()
                .filter(|&&e| e & WALL != 0)
                .map(|&e| (e & INDEX) as usize)
                .collect();
            with_history += row
                .filter(|&e| list[e] & WALL != 0 && hist[e] != [0.0; 4])
                .count();
            let x = s.pos_rad[i].map(f64::from);
            for (k, wd) in walls.iter().enumerate() {
                let (point, normal) = ([wd.a[0], wd.a[1], wd.a[2]], [wd.b[0], wd.b[1], wd.b[2]]);
                let in_contact = touches_wall(x, point, normal);
                assert!(
                    listed.contains(&k) || !in_contact,
                    "particle {} touches wall {k} out of its list after step {}",
                    s.id[i],
                    g.steps_done()
                );
                touching += in_contact as usize;
            }
            near_pairs += listed.len();
        }
    }
    let builds = g.list_stats().builds;
    println!("{touching} wall contacts ({with_history} with history) over {steps} steps, {builds} builds; {near_pairs} (particle, wall) pairs within reach");
    assert!(
        touching > 300 && with_history > 300 && builds > 5,
        "{touching} wall contacts ({with_history} with history) checked over {steps} steps, {builds} builds"
    );
    // and most (particle, wall) pairs are out of reach: not listed
    assert!(
        near_pairs * 2 < steps * n as usize * n_walls,
        "{near_pairs} pairs within reach over {steps} steps"
    );
}

/// Between builds the rebuild kernels (bin, sort, neighbours) launch no
/// workgroup, nor the wall loads' kernels on a step that does not want the
/// loads: each step's `finish_step` arms the next, leaving the full
/// workgroup counts in `args` for a step that rebuilds (wants the loads)
/// and zeros for the others. Checked after each step against the rebuild
/// flag it left, for next steps that want the loads and next steps that do
/// not (each step submitted by hand, `CTL_LOADS_AT` at the next or
/// elsewhere, as `advance` sets it for its last step); every step that
/// started with the flag is a build.
#[test]
fn gpu_rebuild_kernels_launch_only_on_rebuild_steps() {
    use talus::gpu::data::{CTL_LOADS_AT, CTL_REBUILD, CTL_STEP};
    let Some(ctx) = test_context() else { return };
    let scene = walled_box(5);
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    let slots = g.data.slots.clone();
    let n = g.data.n;
    let words = 3 * slots.len() as u64;
    let expect = |rebuild: bool, loads: bool| -> Vec<u32> {
        slots
            .iter()
            .flat_map(|s| s.groups(n, rebuild, loads))
            .collect()
    };
    let full = expect(true, true);
    assert!(full.iter().all(|&x| x > 0), "full counts {full:?}");
    assert!(
        slots
            .iter()
            .any(|s| matches!(s, talus::gpu::data::Over::Loads { .. })),
        "the walled box's loads have their slots"
    );
    let (mut armed, mut idle, mut loads) = (0u64, 0u64, 0u64);
    for k in 0..200 {
        let ctl = g.ctl();
        let due = ctl[CTL_REBUILD] != 0;
        let want = k % 3 != 1;
        let loads_at = if want { ctl[CTL_STEP] + 1 } else { u32::MAX };
        loads += want as u64;
        let at = 4 * CTL_LOADS_AT as u64;
        g.ctx
            .queue
            .write_buffer(&g.data.ctl, at, bytemuck::bytes_of(&loads_at));
        g.submit("step", |pass| g.encode_step(pass));
        let args: Vec<u32> = g.read_vec(&g.data.args, words);
        let next = g.ctl()[CTL_REBUILD] != 0;
        // the every-step kernels' (contacts, integrate) always, the
        // rebuild kernels' only for a rebuild step, the loads' only for a
        // step that wants them
        assert_eq!(args, expect(next, want), "after step {k}");
        if due {
            armed += 1;
        } else {
            idle += 1;
        }
    }
    let builds = g.list_stats().builds;
    println!("{armed} steps armed, {idle} not, {builds} builds, {loads} with loads");
    assert_eq!(builds, armed, "armed steps are the builds");
    assert!(armed >= 3 && idle >= 100, "{armed} armed, {idle} not");
}

/// The kernels and their dispatch sizes follow the active count on the
/// device, not the buffers' size: the same scene in buffers with three
/// times the room gives the same bits, with the dispatches sized by the
/// count (the spare slots hold garbage no kernel reads: they are filled
/// with NaN here).
#[test]
fn gpu_spare_capacity_changes_nothing() {
    let scene = dense_scene(false);
    let Some(ctx) = test_context() else { return };
    let mut plain = GpuBackend::new(&scene, ctx).unwrap();
    plain.advance(150).unwrap();
    let Some(ctx) = test_context() else { return };
    let n = scene.particles.len() as u64;
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let mut roomy = GpuBackend::with_capacity(&setup, ctx, Some(3 * n)).unwrap();
    assert_eq!((roomy.data.n, roomy.data.cap), (n, 3 * n));
    let nan = vec![f32::NAN; (2 * n * 16) as usize];
    let d = &roomy.data;
    for (buf, per) in [
        (&d.b.pos, 4),
        (&d.b.motion, 16),
        (&d.scratch, d.reorder_width),
    ] {
        buf.write(
            &roomy.ctx.queue,
            4 * per * n,
            bytemuck::cast_slice(&nan[..(2 * n * per) as usize]),
        );
    }
    roomy.advance(150).unwrap();
    assert_eq!(
        plain.state_f32(),
        roomy.state_f32(),
        "the spare capacity changed the run"
    );
    assert_eq!(plain.diagnostics(), roomy.diagnostics());
    let every = roomy
        .data
        .slots
        .iter()
        .position(|s| *s == talus::gpu::data::Over::EveryStep);
    let args: Vec<u32> = roomy.read_vec(&roomy.data.args, 3 * roomy.data.slots.len() as u64);
    let k = 3 * every.unwrap();
    let (x, y) = talus::gpu::kernel::groups(n);
    assert_eq!(
        &args[k..k + 3],
        &[x, y, 1],
        "contacts and integrate sized by the count"
    );
    let c = roomy.ctl();
    assert_eq!(c[talus::gpu::data::CTL_COUNT] as u64, n);
    assert_eq!(c[talus::gpu::data::CTL_NEXT_ID] as u64, n, "ids 0..n taken");
}

/// Each pair once (a row lists the partners of higher id, the pair's
/// force goes to both partners' 64-bit fixed-point sums by integer
/// atomics) and each pair from both sides (each particle gathers its own)
/// give the same bits: positions, motion records, energies, the list's
/// pairs and contacts after 300 steps of a dense bed between walls with
/// friction and rolling friction; and force, torque and every pair's
/// history after one step of a 1:35 mixture, whose large rows take
/// `contacts_large` (overlapping far past what a run accepts: no
/// integrate). The list of each pair once holds ~half the entries.
#[test]
fn gpu_each_pair_once_gives_the_bits_of_both_sides() {
    let scene = dense_scene(false);
    let run = |pairs: Pairs| {
        let mut ctx = test_context()?;
        ctx.pairs = pairs;
        let mut g = GpuBackend::new(&scene, ctx).unwrap();
        g.advance(300).unwrap();
        let fx: Vec<talus::gpu::data::FixedWords> = g.read_vec(&g.data.b.pos_fx, g.data.n);
        let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN];
        Some((g.state_f32(), fx, g.diagnostics(), g.list_stats(), len))
    };
    let Some(once) = run(Pairs::Once) else { return };
    let Some(both) = run(Pairs::Both) else { return };
    println!(
        "dense bed, 300 steps: list {} entries once, {} from both sides; {:?}",
        once.4, both.4, once.3
    );
    assert!(once.3.contacts > once.3.entries / 8, "{:?}", once.3);
    assert_eq!(once.0, both.0, "states differ");
    assert_eq!(once.1, both.1, "fixed-point positions differ");
    assert_eq!(once.2, both.2, "diagnostics differ");
    assert_eq!(once.3, both.3, "the list's pairs differ");
    assert!(once.4 < both.4 * 3 / 4, "{} entries once", once.4);

    let scene = spinning_1_35("pairs once", 22, 7, true);
    let step = |pairs: Pairs| {
        let mut ctx = test_context()?;
        ctx.pairs = pairs;
        let g = GpuBackend::new(&scene, ctx).unwrap();
        g.submit("build and contacts", |pass| {
            for s in &Stage::STEP[..4] {
                g.encode_stage(*s, pass);
            }
        });
        assert_eq!(g.ctl()[talus::gpu::data::CTL_LARGE], 4, "large rows");
        let ids = g.ids();
        let bits = |v: Vec<[f32; 4]>| -> HashMap<u32, [u32; 4]> {
            ids.iter()
                .zip(v)
                .map(|(&id, x)| (id, x.map(f32::to_bits)))
                .collect()
        };
        let hist: HashMap<(u32, u32), [u32; 8]> = gpu_pair_history(&g)
            .into_iter()
            .map(|(k, h)| (k, h.map(f32::to_bits)))
            .collect();
        Some((bits(g.forces().0), bits(g.forces().1), hist))
    };
    let Some(once) = step(Pairs::Once) else {
        return;
    };
    let Some(both) = step(Pairs::Both) else {
        return;
    };
    println!("1:35 mixture: {} pairs with history", once.2.len());
    assert!(once.2.len() > 1000, "{} pairs with history", once.2.len());
    assert!(once.0 == both.0, "1:35: forces differ");
    assert!(once.1 == both.1, "1:35: torques differ");
    assert!(once.2 == both.2, "1:35: histories differ");
}

/// A kept table too small for the contacts a build must move over (cut to
/// one entry before the run) freezes the build, grows, and keeps again:
/// the run has the bits of one whose table was large enough, each pair
/// once and from both sides (the large rows' `keep_large`:
/// `gpu_large_rows_carry_history`); the table ends at least as long as
/// the last build kept, and at most the list's capacity.
#[test]
fn gpu_kept_table_growth_keeps_bits() {
    use talus::gpu::data::{CTL_BUILDS, CTL_KEPT_LEN};
    let scene = dense_scene(false);
    for pairs in [Pairs::Once, Pairs::Both] {
        let run = |cut: bool| {
            let mut ctx = test_context()?;
            ctx.pairs = pairs;
            let mut g = GpuBackend::new(&scene, ctx).unwrap();
            if cut {
                g.grow_kept(1);
                assert_eq!(g.data.kept_cap, 1);
            }
            g.advance(300).unwrap();
            let fx: Vec<talus::gpu::data::FixedWords> = g.read_vec(&g.data.b.pos_fx, g.data.n);
            let ctl = g.ctl();
            let (cap, list) = (g.data.kept_cap, g.data.nbr_cap);
            Some((
                g.state_f32(),
                fx,
                g.diagnostics(),
                g.list_stats(),
                ctl,
                cap,
                list,
            ))
        };
        let Some(whole) = run(false) else { return };
        let Some(cut) = run(true) else { return };
        println!(
            "{} {pairs:?}: {} builds, the last kept {}; table {} -> {} (list {})",
            scene.name, whole.4[CTL_BUILDS], whole.4[CTL_KEPT_LEN], whole.5, cut.5, cut.6
        );
        assert!(whole.4[CTL_BUILDS] >= 2, "a build that keeps");
        assert!(cut.4[CTL_KEPT_LEN] > 100, "{} kept", cut.4[CTL_KEPT_LEN]);
        assert!(cut.5 >= cut.4[CTL_KEPT_LEN] as u64 && cut.5 <= cut.6);
        assert_eq!(whole.4[CTL_BUILDS], cut.4[CTL_BUILDS]);
        assert_eq!(whole.0, cut.0, "states differ");
        assert_eq!(whole.1, cut.1, "fixed-point positions differ");
        assert_eq!(whole.2, cut.2, "diagnostics differ");
        assert_eq!(whole.3, cut.3, "the list's pairs differ");
    }
}

/// A GPU checkpoint continues on the CPU the same whichever way its list
/// held the pairs: each pair once (one row, the lower id's: the CPU's rows
/// of both sides get the mirrored entries with their history,
/// `cpu::save::both_sides`) and from both sides (the GPU's bits are the
/// same) give the CPU the same run, bit for bit, 100 steps on.
#[test]
fn gpu_checkpoints_of_either_list_resume_alike_on_the_cpu() {
    let scene = dense_scene(false);
    let resume = |pairs: Pairs| {
        let mut ctx = test_context()?;
        ctx.pairs = pairs;
        let mut g = GpuBackend::new(&scene, ctx).unwrap();
        g.advance(150).unwrap();
        let saved = g.save();
        let mut cpu = CpuBackend::restore(&scene, &saved).unwrap();
        let contacts = cpu.list_stats().contacts;
        cpu.advance(100).unwrap();
        Some((cpu.snapshot(), cpu.diagnostics(), contacts))
    };
    let Some(once) = resume(Pairs::Once) else {
        return;
    };
    let Some(both) = resume(Pairs::Both) else {
        return;
    };
    println!("{} contacts with history at the checkpoint", once.2);
    assert!(once.2 > 500, "{} contacts", once.2);
    assert_eq!(once.2, both.2, "the restored lists' contacts differ");
    assert!(once.0 == both.0, "the CPU runs differ");
    assert_eq!(once.1, both.1, "their energies differ");
}

/// A readback larger than the staging buffer goes through it in chunks
/// (a 10⁸-particle checkpoint is ~12 GB; the buffer stops at
/// `data::STAGING_MAX`): with the buffer cut to 1 KiB, a checkpoint of a
/// dense bed and its list read back in ~1 KiB chunks are the bytes read in
/// one go, and the run restored from it goes on with the same bits (also
/// from the checkpoint as written before 2026-11-28, its fixed-point
/// positions padded to 8 words).
#[test]
fn gpu_reads_larger_than_the_staging_buffer_go_in_chunks() {
    let scene = dense_scene(false);
    let Some(ctx) = test_context() else { return };
    let mut g = GpuBackend::new(&scene, ctx).unwrap();
    g.advance(60).unwrap();
    let whole = g.save();
    let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    let hist: Vec<[f32; 4]> = g.read_vec(&g.data.nbr_hist, len);
    g.data.limit_staging(&g.ctx, 1000);
    assert_eq!(g.data.staging.size(), 1024);
    let chunked = g.save();
    assert!(
        whole.sections.iter().map(|s| s.1.len()).sum::<usize>() > 100 * 1024,
        "a read of many chunks"
    );
    assert_eq!(whole, chunked, "the checkpoint read in chunks differs");
    assert_eq!(hist, g.read_vec::<[f32; 4]>(&g.data.nbr_hist, len));
    assert_eq!(g.data.staging.size(), 1024, "the cap holds");
    // a checkpoint from before the fixed-point words lost their padding
    // (8 words a particle, the last two zero) restores the same
    let mut old = chunked.clone();
    for (name, bytes) in &mut old.sections {
        if name == "pos_fx" {
            let fx: Vec<talus::gpu::data::FixedWords> = bytemuck::pod_collect_to_vec(bytes);
            let padded: Vec<[u32; 8]> = fx
                .iter()
                .map(|w| std::array::from_fn(|k| if k < 6 { w[k] } else { 0 }))
                .collect();
            *bytes = bytemuck::cast_slice(&padded).to_vec();
        }
    }
    let Some(ctx) = test_context() else { return };
    let mut resumed = GpuBackend::restore(&scene, ctx, &chunked).unwrap();
    let Some(ctx) = test_context() else { return };
    let mut from_old = GpuBackend::restore(&scene, ctx, &old).unwrap();
    g.advance(40).unwrap();
    resumed.advance(40).unwrap();
    from_old.advance(40).unwrap();
    assert_eq!(g.state_f32(), resumed.state_f32());
    assert_eq!(g.state_f32(), from_old.state_f32());
}

/// Insertion on the GPU, as on the CPU (`insertion_and_removal_leave_the_
/// others_bit_for_bit` in tests/physics.rs): a sphere inserted far above a
/// settling bed gets the next id from the device's counter, the others'
/// state stays bit for bit that of a run without it (it meets none of
/// them), and it falls freely as leapfrog says; the count, the dispatch
/// sizes and the list all follow it on the device.
#[test]
fn gpu_insertion_leaves_the_others_bit_for_bit() {
    let scene = falling_bed();
    let Some(ctx) = test_context() else { return };
    let mut plain = GpuBackend::new(&scene, ctx).unwrap();
    let Some(ctx) = test_context() else { return };
    let n = scene.particles.len() as u64;
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let mut grown = GpuBackend::with_capacity(&setup, ctx, Some(n + 8)).unwrap();
    plain.advance(200).unwrap();
    grown.advance(200).unwrap();
    let add = spheres_at_rest_above(&grown.snapshot(), 1);
    let ids = grown.insert(&add).unwrap();
    assert_eq!(ids, n as u32..n as u32 + 1);
    assert_eq!(
        grown.ctl()[talus::gpu::data::CTL_REBUILD],
        1,
        "insertion sets off a build"
    );
    let before = grown.list_stats().builds;
    grown.advance(1).unwrap();
    assert_eq!(grown.list_stats().builds, before + 1);
    plain.advance(300).unwrap();
    grown.advance(299).unwrap();
    let (a, mut b) = (plain.snapshot(), grown.snapshot());
    assert_eq!(b.len() as u64, n + 1);
    let k = b.id.iter().position(|&id| id == ids.start).unwrap();
    let z = b.pos_rad[k][2];
    let dt = scene.dt();
    let expect = 0.09 - 0.5 * 9.81 * dt * dt * 300.0 * 300.0;
    assert!(
        (z - expect).abs() < 1e-6,
        "free fall: z {z}, leapfrog {expect}"
    );
    // the rest, in id order, without the newcomer (the last id)
    for v in [&mut b.pos_rad, &mut b.vel_invm, &mut b.omega_invi] {
        v.truncate(n as usize);
    }
    b.material.truncate(n as usize);
    b.id.truncate(n as usize);
    b.dissipated.truncate(n as usize);
    assert_eq!(a, b, "the others changed");
    assert_eq!(grown.ctl()[talus::gpu::data::CTL_NEXT_ID], n as u32 + 1);
    // no room left past the capacity: one line, no panic
    let err = grown.insert(&spheres_at_rest_above(&add, 9));
    assert!(err.unwrap_err().to_string().contains("capacity"));
}

/// Same scene, same adapter: bit-identical final state.
#[test]
fn gpu_runs_are_deterministic() {
    let scene = dense_scene(false);
    let run = || -> Option<Particles<f32>> {
        let ctx = test_context()?;
        let mut g = GpuBackend::new(&scene, ctx).unwrap();
        g.advance(200).unwrap();
        Some(g.state_f32())
    };
    let (Some(a), Some(b)) = (run(), run()) else {
        return;
    };
    assert_eq!(a, b, "two GPU runs of the same scene differ");
}

/// Solid fraction of the spheres whose centres lie in `lo..hi` (a box away
/// from walls and the free surface), counting each sphere's whole volume:
/// unbiased on average for a box many diameters wide.
fn bulk_fraction(p: &Particles<f64>, lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let vol: f64 = (0..3).map(|k| hi[k] - lo[k]).product();
    let solid: f64 = p
        .pos_rad
        .iter()
        .filter(|x| (0..3).all(|k| x[k] >= lo[k] && x[k] < hi[k]))
        .map(|x| 4.0 / 3.0 * std::f64::consts::PI * x[3].powi(3))
        .sum();
    solid / vol
}

/// A column of 3000 spheres settling on a floor in a box, on both backends
/// from the same state: the kinetic-energy curve agrees within 2 % of its
/// peak at every energy row, and the bulk solid fraction within 2 %.
#[test]
fn gpu_settling_column_matches_cpu_statistically() {
    let Some(ctx) = test_context() else { return };
    let r = 0.001;
    let (w, h) = (0.034, 0.06);
    let mut b = SceneBuilder::new("column")
        .domain([0.0; 3], [w, w, h])
        .dt_auto(0.2)
        .duration(0.11)
        .material(Material {
            friction: 0.4,
            rolling_friction: 0.01,
            rolling_viscous_damping: 0.0,
            cohesion_energy_density: 0.0,
            surface_energy: 0.0,
            ..Material::new("m", 2500.0, 1e6)
        })
        .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
        .wall([0.0; 3], [1.0, 0.0, 0.0], "m")
        .wall([w, 0.0, 0.0], [-1.0, 0.0, 0.0], "m")
        .wall([0.0; 3], [0.0, 1.0, 0.0], "m")
        .wall([0.0, w, 0.0], [0.0, -1.0, 0.0], "m")
        .generate(
            "lattice",
            ([0.0; 3], [w, w, h]),
            talus::scene::RadiusDist::Uniform {
                min: 0.8 * r,
                max: r,
            },
            "m",
            Some(3000),
            [0.0; 3],
        );
    b = b.seed(3);
    let mut scene = build(b);
    for p in &mut scene.particles {
        p.position = p.position.map(|x| x as f32 as f64);
        p.radius = p.radius as f32 as f64;
    }
    let rows: usize = 30;
    let every = scene.steps() / rows as u64;
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    // the two paths side by side (the test's time is the longer one's)
    let (kc, kg) = std::thread::scope(|s| {
        let c = s.spawn(|| {
            (0..rows)
                .map(|_| {
                    cpu.advance(every).unwrap();
                    cpu.diagnostics().kinetic_translational
                })
                .collect::<Vec<f64>>()
        });
        let kg: Vec<f64> = (0..rows)
            .map(|_| {
                gpu.advance(every).unwrap();
                gpu.diagnostics().kinetic_translational
            })
            .collect();
        (c.join().unwrap(), kg)
    });
    let peak = kc.iter().copied().fold(0.0, f64::max);
    let worst = kc
        .iter()
        .zip(&kg)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / peak;
    let (c, g) = (cpu.snapshot(), gpu.snapshot());
    let top = c.pos_rad.iter().map(|x| x[2]).fold(0.0, f64::max);
    let (lo, hi) = (
        [4.0 * r, 4.0 * r, 4.0 * r],
        [w - 4.0 * r, w - 4.0 * r, top - 6.0 * r],
    );
    let (fc, fg) = (bulk_fraction(&c, lo, hi), bulk_fraction(&g, lo, hi));
    println!(
        "{} steps: KE peak {peak:e} J, final {:e} (cpu) {:e} (gpu); worst KE difference {worst:e} of the peak; bulk fraction cpu {fc:.4} gpu {fg:.4}",
        every * rows as u64,
        kc[rows - 1],
        kg[rows - 1]
    );
    assert!(kc[rows - 1] < 0.05 * peak, "the column has not settled");
    assert!(worst < 0.02, "KE curves differ by {worst:e} of the peak");
    assert!(rel(fg, fc) < 0.02, "bulk fraction {fg} (gpu) vs {fc} (cpu)");
}

/// Walls cost nothing per particle (their history lives in the list, only
/// where a particle is near one): 64 walls and as many particles as the
/// list's pages allow still fit. One particle-chunk more, and the scene is
/// refused with one line naming the limit and the particle count that fits
/// (not a wgpu validation panic). With the binding limit lowered to 4 MiB
/// (cheap scenes), and 20 storage bindings a stage (one page of each
/// array; each pair from both sides) or lavapipe's 32 (pages of the
/// particles' arrays too; each pair once). A run of
/// more steps than the device's 32-bit step counter
/// holds is refused too: past it the time would start again at 0.
#[test]
fn gpu_refuses_scenes_over_the_binding_limit() {
    let long = build(
        SceneBuilder::new("long")
            .domain([0.0; 3], [0.01; 3])
            .dt(1e-6)
            .steps(talus::gpu::GPU_MAX_STEPS + 1)
            .material(Material::new("m", 2500.0, 1e7))
            .particle([0.005; 3], [0.0; 3], 0.001, "m"),
    );
    if let Some(ctx) = test_context() {
        let e = GpuBackend::new(&long, ctx).err().expect("refused");
        assert!(
            e.to_string()
                .contains("the run takes 4294967295 steps; the GPU path counts at most 4294967294"),
            "{e}"
        );
    }
    let walls = 64u64;
    let scene_of = |n: usize| {
        let side = (n as f64).cbrt().ceil() as usize + 1;
        let l = side as f64 * 2.2e-3;
        let mut b = SceneBuilder::new("big")
            .domain([0.0; 3], [l; 3])
            .gravity([0.0; 3])
            .steps(1)
            .material(Material::new("m", 2500.0, 1e7));
        // floors below the domain, never touched
        for k in 0..walls {
            b = b.wall([0.0, 0.0, -(k as f64) * 1e-3], [0.0, 0.0, 1.0], "m");
        }
        build(b.generate(
            "lattice",
            ([0.0; 3], [l; 3]),
            talus::scene::RadiusDist::Constant(0.001),
            "m",
            Some(n),
            [0.0; 3],
        ))
    };
    for (bindings, pairs) in [(20, Pairs::Both), (32, Pairs::Once)] {
        let Some(mut ctx) = test_context() else {
            return;
        };
        ctx.limits.max_storage_buffer_binding_size = 4 << 20;
        ctx.limits.max_storage_buffers_per_shader_stage = bindings;
        ctx.pairs = pairs;
        let per = pairs.list_entries();
        let fits = talus::gpu::fit::max_particles_by_bindings(&ctx.limits, per, false);
        // one page of each array, or more
        let page = ctx.max_binding() / 64;
        println!("{bindings} bindings a stage: {fits} particles (pages of {page})");
        // as many as fit, with 64 walls: allocated
        let g = GpuBackend::new(&scene_of(fits as usize), ctx)
            .unwrap_or_else(|e| panic!("{fits} particles at {walls} walls should fit: {e}"));
        assert_eq!(g.data.n_walls, walls);
        if bindings == 32 {
            assert!(g.data.b.pos.pages.len() > 1, "the particles span pages");
        }
        let ctx = g.ctx;
        let n = fits as usize + 1000;
        let err = match GpuBackend::new(&scene_of(n), ctx) {
            Ok(_) => panic!("{n} particles at {walls} walls should not fit"),
            Err(e) => e.to_string(),
        };
        println!("{err}");
        assert!(
            err.contains(&format!("at most {fits} particles fit")),
            "{err}"
        );
        assert!(
            err.contains("storage buffers") && !err.contains('\n'),
            "{err}"
        );
    }
}

/// A GPU run that blows up freezes at the failing step and reports the same
/// step, particle and kind as the CPU path.
#[test]
fn gpu_blowup_reports_step_and_particle_like_cpu() {
    let Some(ctx) = test_context() else { return };
    let scene = SceneBuilder::new("blowup")
        .domain([0.0; 3], [0.02, 0.02, 0.05])
        .dt(2e-4)
        .steps(200)
        .material(Material::new("m", 2500.0, 5e6))
        .wall([0.0; 3], [0.0, 0.0, 1.0], "m")
        // one radius per step into the floor: the overlap jumps past 0.5 r
        .particle([0.01, 0.01, 0.0013], [0.0, 0.0, -5.0], 0.001, "m")
        .particle([0.005, 0.005, 0.0041], [0.0, 0.0, -0.2], 0.001, "m")
        .build_unchecked();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let mut gpu = GpuBackend::new(&scene, ctx).unwrap();
    let ec = cpu.advance(200).unwrap_err();
    let eg = gpu.advance(200).unwrap_err();
    println!("cpu: {ec}\ngpu: {eg}");
    assert_eq!((eg.step, eg.particle), (ec.step, ec.particle));
    assert_eq!(
        std::mem::discriminant(&eg.kind),
        std::mem::discriminant(&ec.kind)
    );
    // frozen: more steps change nothing
    let before = gpu.state_f32();
    assert!(gpu.advance(10).is_err());
    assert_eq!(
        gpu.state_f32(),
        before,
        "the GPU state moved after the failure"
    );
}

/// One random contact for the law twin test, every input already an f32
/// value: the GPU case and the CPU's f64 view of the same numbers.
struct LawSample {
    case: talus::gpu::layout::LawCase,
    pp: talus::pair::PairParams,
    a: talus::cpu::law::Body,
    b: talus::cpu::law::Body,
    n: [f64; 3],
    overlap: f64,
    hist: [f64; 8],
}

/// `jkr`: the overlap drawn about JKR's separation half the time (held
/// in tension, parted, not yet touching), and a surface energy.
fn law_sample(r: &mut Rng, jkr: bool) -> LawSample {
    use talus::cpu::law::Body;
    let f = |x: f64| x as f32 as f64;
    let v3 = |r: &mut Rng, s: f64| r.in_unit_ball().map(|x| f(x * s));
    // one spin in eight small, so the rolling torque's cap is reached
    let particle = |r: &mut Rng| {
        let radius = f(r.range(0.5e-3, 2e-3));
        let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        let spin = if r.f64() < 0.125 { 1e-3 } else { 300.0 };
        Body {
            vel: v3(r, 0.5),
            omega: v3(r, spin),
            vel_half: v3(r, 0.5),
            omega_half: v3(r, spin),
            radius,
            inv_mass: f(1.0 / mass),
            inv_inertia: f(1.0 / (0.4 * mass * radius * radius)),
        }
    };
    let a = particle(r);
    let wall = r.f64() < 0.2;
    let b = if wall { Body::WALL } else { particle(r) };
    let restitution = f(r.range(0.1, 0.95));
    let ln_e = restitution.ln();
    let beta = ln_e / (ln_e * ln_e + std::f64::consts::PI.powi(2)).sqrt();
    let (e_star, g_star) = (f(r.range(1e6, 1e8)), f(r.range(1e6, 1e8)));
    let c = -2.0 * (5.0f64 / 6.0).sqrt() * beta;
    let pp = talus::pair::PairParams {
        e_star,
        g_star,
        restitution,
        beta: f(beta),
        friction: f(r.range(0.0, 0.8)),
        rolling_friction: if r.f64() < 0.5 {
            0.0
        } else {
            f(r.range(0.01, 0.3))
        },
        rolling_damping: f(r.range(0.0, 1.0)),
        damp_n: f(c * (2.0 * e_star).sqrt()),
        damp_t: f(c * (8.0 * g_star).sqrt()),
        cohesion_energy_density: f(r.range(1e3, 1e6)),
        surface_energy: f(r.range(0.01, 1.0)),
    };
    let nv = r.in_unit_ball();
    let len = (nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]).sqrt();
    let n = nv.map(|x| f(x / len));
    let overlap = if jkr && r.f64() < 0.5 {
        let r_star = if wall {
            a.radius
        } else {
            a.radius * b.radius / (a.radius + b.radius)
        };
        let reach = talus::cpu::jkr::JkrPair::new(r_star, pp.e_star, pp.surface_energy).reach();
        f(reach * r.range(-1.3, 1.0))
    } else {
        f(r.range(1e-7, 2e-5))
    };
    // a stored rolling torque (epsd, epsd2) from well under to well over
    // its cap; the dry models' laws ignore it
    let m_len = 10f64.powf(r.range(-9.0, -3.0));
    let m = v3(r, m_len).map(f);
    let hist = match r.f64() {
        x if x < 0.3 => [0.0; 8],
        // a stored ξ without a stored k_t: the law takes this step's
        x if x < 0.35 => {
            let len = r.range(1e-8, 1e-4);
            let x = v3(r, len);
            [x[0], x[1], x[2], 0.0, m[0], m[1], m[2], 0.0]
        }
        _ => {
            let len = r.range(1e-8, 1e-4);
            let x = v3(r, len);
            [
                x[0],
                x[1],
                x[2],
                f(r.range(1e3, 1e5)),
                m[0],
                m[1],
                m[2],
                0.0,
            ]
        }
    };
    let rec = |m: &Body| -> [[f32; 4]; 4] {
        let l = |v: [f64; 3], w: f64| [v[0] as f32, v[1] as f32, v[2] as f32, w as f32];
        [
            l(m.vel, m.inv_mass),
            l(m.omega, m.inv_inertia),
            l(m.vel_half, 0.0),
            l(m.omega_half, 0.0),
        ]
    };
    let case = talus::gpu::layout::LawCase {
        pair: talus::gpu::layout::Pair::from_params(&pp),
        a: rec(&a),
        b: rec(&b),
        radii: [
            a.radius as f32,
            if wall { -1.0 } else { b.radius as f32 },
            overlap as f32,
            0.0,
        ],
        normal: [n[0] as f32, n[1] as f32, n[2] as f32, 0.0],
        hist: [hist[0], hist[1], hist[2], hist[3]].map(|x| x as f32),
        roll: [hist[4], hist[5], hist[6], 0.0].map(|x| x as f32),
    };
    LawSample {
        case,
        pp,
        a,
        b,
        n,
        overlap,
        hist,
    }
}

/// Outputs of the law the twin test compares.
const LAW_OUT: usize = 18;

/// The law's outputs as 18 numbers: force on a, torque on a, torque on b,
/// ξ, the rolling torque, k_t, elastic and dissipated energy.
fn law_numbers(r: &talus::cpu::law::PairResult) -> [f64; LAW_OUT] {
    let mut o = [0.0; LAW_OUT];
    o[..3].copy_from_slice(&r.force_a);
    o[3..6].copy_from_slice(&r.torque_a);
    o[6..9].copy_from_slice(&r.torque_b);
    o[9..12].copy_from_slice(&r.xi);
    o[12..15].copy_from_slice(&r.roll);
    o[15..].copy_from_slice(&[r.kt, r.elastic, r.dissipated]);
    o
}

fn gpu_law_numbers(o: &talus::gpu::layout::LawOut) -> [f64; LAW_OUT] {
    let mut v = [0.0; LAW_OUT];
    let x = [o.force_a, o.torque_a, o.torque_b, o.xi_kt, o.roll];
    for k in 0..15 {
        v[k] = x[k / 3][k % 3] as f64;
    }
    v[15] = o.xi_kt[3] as f64;
    v[16] = o.energy[0] as f64;
    v[17] = o.energy[1] as f64;
    v
}

/// The model settings of the law test: Hertz–Mindlin, linear from a
/// stiffness, linear from a contact time, each dry; Hertz–Mindlin with
/// SJKR and linear with SJKR2 cohesion; the rolling springs (epsd2 with
/// Hertz–Mindlin, dry and with SJKR; epsd with linear); JKR, with cdt and
/// with epsd2.
fn law_models() -> Vec<(talus::cpu::law::LawParams, talus::gpu::layout::Params)> {
    use talus::scene::{Cohesion, ContactModel, Rolling};
    let dt = 1e-6f32 as f64;
    let ratio = (2.0f64 / 7.0) as f32 as f64;
    let hm = ContactModel::HertzMindlin;
    [
        (hm, None, None, Cohesion::None, Rolling::Cdt),
        (
            ContactModel::Linear,
            Some(1e4),
            None,
            Cohesion::None,
            Rolling::Cdt,
        ),
        (
            ContactModel::Linear,
            None,
            Some(2e-5f32 as f64),
            Cohesion::None,
            Rolling::Cdt,
        ),
        (hm, None, None, Cohesion::Sjkr, Rolling::Cdt),
        (
            ContactModel::Linear,
            Some(1e4),
            None,
            Cohesion::Sjkr2,
            Rolling::Cdt,
        ),
        (hm, None, None, Cohesion::None, Rolling::Epsd2),
        (hm, None, None, Cohesion::Sjkr, Rolling::Epsd2),
        (
            ContactModel::Linear,
            Some(1e4),
            None,
            Cohesion::None,
            Rolling::Epsd,
        ),
        (hm, None, None, Cohesion::Jkr, Rolling::Cdt),
        (hm, None, None, Cohesion::Jkr, Rolling::Epsd2),
    ]
    .into_iter()
    .map(|(model, stiffness, contact_time, cohesion, rolling)| {
        let lp = talus::cpu::law::LawParams {
            model,
            dt,
            lin_stiffness: stiffness,
            lin_contact_time: contact_time,
            lin_kt_ratio: ratio,
            cohesion,
            rolling,
            reach: 0.0,
        };
        let mut p: talus::gpu::layout::Params = bytemuck::Zeroable::zeroed();
        p.gravity_dt = [0.0, 0.0, 0.0, dt as f32];
        p.periodic[3] = (model == ContactModel::Linear) as u32;
        p.models[0] = cohesion.code();
        p.models[2] = rolling.code();
        p.linear = [
            stiffness.unwrap_or(0.0) as f32,
            contact_time.unwrap_or(0.0) as f32,
            ratio as f32,
            0.5,
        ];
        (lp, p)
    })
    .collect()
}

/// Cases per model setting in the law test.
const LAW_CASES: usize = 3000;

/// Runs the law twin comparison with `eval` (the real law or a perturbed
/// one): returns (cases compared, cases that disagree, the first
/// disagreement described), and counts the branches the cases took into
/// `seen` when given.
fn law_disagreements(
    ctx: &talus::gpu::GpuContext,
    eval: &talus::gpu::law::LawEval,
    mut seen: Option<&mut HashMap<&'static str, usize>>,
) -> (usize, usize, String) {
    use talus::cpu::law::pair_law;
    let mut r = Rng::new(2024);
    let (mut total, mut bad, mut first) = (0, 0, String::new());
    for (lp, params) in law_models() {
        let jkr = lp.cohesion == talus::scene::Cohesion::Jkr;
        let samples: Vec<LawSample> = (0..LAW_CASES).map(|_| law_sample(&mut r, jkr)).collect();
        let cases: Vec<_> = samples.iter().map(|s| s.case).collect();
        let gpu = eval.eval(ctx, &params, &cases);
        for (k, (s, g)) in samples.iter().zip(&gpu).enumerate() {
            let exact = pair_law(&lp, &s.pp, &s.a, &s.b, s.n, s.overlap, s.hist);
            let c = law_numbers(&exact);
            // f32 rounding of the inputs, imitated: each input scalar off
            // by up to 5 f32 ulps; the spread of the f64 results says how
            // sensitive each output is (cancellations, the Coulomb limit's
            // edge), and bounds what f32 arithmetic may move it by
            let mut spread = [0.0f64; LAW_OUT];
            let mut pr = Rng::new(k as u64 + 1);
            for _ in 0..4 {
                let mut q = |x: f64| x * (1.0 + 3e-7 * (2.0 * pr.f64() - 1.0));
                let mut body = |b: &talus::cpu::law::Body| talus::cpu::law::Body {
                    vel: b.vel.map(&mut q),
                    omega: b.omega.map(&mut q),
                    vel_half: b.vel_half.map(&mut q),
                    omega_half: b.omega_half.map(&mut q),
                    radius: q(b.radius),
                    inv_mass: q(b.inv_mass),
                    inv_inertia: q(b.inv_inertia),
                };
                let (a, b) = (body(&s.a), body(&s.b));
                let mut pp = s.pp;
                for x in [
                    &mut pp.e_star,
                    &mut pp.g_star,
                    &mut pp.restitution,
                    &mut pp.friction,
                    &mut pp.rolling_friction,
                    &mut pp.rolling_damping,
                    &mut pp.damp_n,
                    &mut pp.damp_t,
                    &mut pp.cohesion_energy_density,
                    &mut pp.surface_energy,
                ] {
                    *x = q(*x);
                }
                let n = s.n.map(&mut q);
                let (ov, h) = (q(s.overlap), s.hist.map(&mut q));
                let p = law_numbers(&pair_law(&lp, &pp, &a, &b, n, ov, h));
                for i in 0..LAW_OUT {
                    spread[i] = spread[i].max((p[i] - c[i]).abs());
                }
            }
            let g = gpu_law_numbers(g);
            // each 3-vector compared at its own scale
            let scale = |i: usize| {
                if i < 15 {
                    let b = i / 3 * 3;
                    (c[b] * c[b] + c[b + 1] * c[b + 1] + c[b + 2] * c[b + 2]).sqrt()
                } else if i == 17 {
                    c[16].abs().max(c[17].abs())
                } else {
                    c[i].abs()
                }
            };
            total += 1;
            let wrong = (0..LAW_OUT).find(|&i| {
                let tol = 30.0 * spread[i] + 2e-5 * scale(i) + 1e-30;
                // NaN on either side is a disagreement too
                let within = (g[i] - c[i]).abs() <= tol;
                !within
            });
            if let Some(i) = wrong {
                bad += 1;
                if first.is_empty() {
                    first = format!(
                        "{:?} {:?} case {k} output {i}: GPU {:e}, CPU {:e} (sensitivity {:e}); all GPU {g:?} CPU {c:?}",
                        lp.model, lp.rolling, g[i], c[i], spread[i]
                    );
                }
            }
            if let Some(seen) = seen.as_deref_mut() {
                let n = s.n;
                let fa = exact.force_a;
                let fn_total = -(fa[0] * n[0] + fa[1] * n[1] + fa[2] * n[2]);
                let ft: Vec<f64> = (0..3).map(|k| fa[k] + n[k] * fn_total).collect();
                let ft_len = ft.iter().map(|x| x * x).sum::<f64>().sqrt();
                let ft_max = s.pp.friction * fn_total.max(0.0);
                let sliding = s.pp.friction > 0.0 && (ft_len - ft_max).abs() <= 1e-9 * ft_max;
                let w: Vec<f64> = (0..3).map(|k| s.a.omega[k] - s.b.omega[k]).collect();
                let wn = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
                let w_len = (0..3)
                    .map(|k| (w[k] - n[k] * wn).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let r_star = if s.b.radius.is_finite() {
                    s.a.radius * s.b.radius / (s.a.radius + s.b.radius)
                } else {
                    s.a.radius
                };
                let m = s.pp.rolling_friction * r_star * fn_total.max(0.0);
                let share = f64::from(talus::pair::ROLLING_SHARE);
                let capped = m > w_len / (share * (s.a.inv_inertia + s.b.inv_inertia) * lp.dt);
                let spring = lp.rolling != talus::scene::Rolling::Cdt;
                // the spring at its cap μ_r R* |F_n| (F_n read off the
                // force where no cohesion adds to it)
                let roll_len = exact.roll.iter().map(|x| x * x).sum::<f64>().sqrt();
                // (F_n off the force differs from the law's by ~1e-8)
                let at_cap = (roll_len - s.pp.rolling_friction * r_star * fn_total.abs()).abs()
                    <= 1e-6 * roll_len;
                let dry = lp.cohesion == talus::scene::Cohesion::None;
                for (name, on) in [
                    ("wall", !s.b.radius.is_finite()),
                    ("first contact", s.hist == [0.0; 8]),
                    (
                        "stored ξ without k_t",
                        s.hist[3] == 0.0 && s.hist != [0.0; 8],
                    ),
                    ("sliding", sliding),
                    ("sticking", !sliding),
                    ("tensile (damping > spring)", fn_total < 0.0),
                    (
                        "rolling",
                        !spring && s.pp.rolling_friction > 0.0 && w_len > 0.0,
                    ),
                    (
                        "rolling capped",
                        !spring && s.pp.rolling_friction > 0.0 && capped,
                    ),
                    (
                        "rolling spring holds",
                        spring && dry && roll_len > 0.0 && !at_cap,
                    ),
                    (
                        "rolling spring at its cap",
                        spring && dry && roll_len > 0.0 && at_cap,
                    ),
                    ("cohesive", lp.cohesion != talus::scene::Cohesion::None),
                    ("jkr snap-in", jkr && s.hist[3] == 0.0 && s.overlap > 0.0),
                    (
                        "jkr held apart",
                        jkr && s.hist[3] > 0.0 && s.overlap < 0.0 && exact.kt > 0.0,
                    ),
                    ("jkr parted", jkr && s.hist[3] > 0.0 && exact.kt == 0.0),
                    (
                        "jkr not touching",
                        jkr && s.hist[3] == 0.0 && s.overlap <= 0.0,
                    ),
                ] {
                    *seen.entry(name).or_default() += on as usize;
                }
            }
        }
    }
    (total, bad, first)
}

/// The GPU twin of physics.rs' groove test: rolling friction brings a
/// bead spinning against two contacts to rest (the f32 law).
#[test]
fn gpu_rolling_friction_stops_a_spin_held_by_two_contacts() {
    let Some(ctx) = test_context() else { return };
    let (scene, steps) = spinning_in_groove();
    let mut b = GpuBackend::new(&scene, ctx).unwrap();
    let (worst, flips) = spin_left_in_groove(&mut b, steps);
    println!("gpu: |ω|/ω0 after the stop ≤ {worst:.3e}, {flips} reversals in 100 steps");
    assert!(worst < 1e-6, "the bead still spins: |ω|/ω0 = {worst:.3e}");
    assert_eq!(flips, 0, "the spin reversed {flips} times in 100 steps");
}

/// The WGSL law (`law.wgsl`, through `law_eval`) against the CPU law
/// (`cpu::law::pair_law`) on 3 × 3000 random contacts in f32 inputs:
/// both models (linear from a stiffness and from a contact time), walls,
/// first contacts, stored ξ with and without k_t, sticking and sliding,
/// tensile damping, rolling resistance with and without its cap. Each
/// output agrees within what f32 rounding of the inputs moves it (measured
/// per case by perturbing the f64 law's inputs) plus 2e-5 of its scale.
#[test]
fn gpu_law_matches_cpu_law_in_every_branch() {
    let Some(ctx) = test_context() else { return };
    let eval = talus::gpu::law::LawEval::new(&ctx);
    let mut seen = HashMap::new();
    let (total, bad, first) = law_disagreements(&ctx, &eval, Some(&mut seen));
    eprintln!("law twin: {total} contacts, {bad} disagree; branches taken: {seen:?}");
    assert_eq!(total, law_models().len() * LAW_CASES);
    assert_eq!(bad, 0, "{bad} of {total} contacts disagree; first: {first}");
    for (name, count) in &seen {
        assert!(
            *count >= 50,
            "branch '{name}' taken by only {count} cases: {seen:?}"
        );
    }
    assert_eq!(seen.len(), 15, "{seen:?}");
}

/// The law test notices a perturbation of any one branch of the WGSL law:
/// each of these edits to `law.wgsl` makes some contacts disagree.
#[test]
fn gpu_law_test_catches_each_perturbed_branch() {
    let Some(ctx) = test_context() else { return };
    let src = talus::gpu::shaders::source("law_eval.wgsl");
    let perturbations = [
        // a wall's R* is the particle's radius
        (
            "if (!b_wall) { r_star = a.radius * b.radius / (a.radius + b.radius); }",
            "r_star = a.radius * b.radius / (a.radius + b.radius);",
        ),
        // a wall has no lever arm
        (
            "if (!b_wall) { arm_b = n * -(b.radius - 0.5 * overlap); }",
            "arm_b = n * -(b.radius - 0.5 * overlap);",
        ),
        // Hertz–Mindlin or linear
        ("if (P.periodic.w == 0u) {", "if (P.periodic.w != 0u) {"),
        // linear: contact time or stiffness
        ("if (P.linear.y > 0.0) {", "if (P.linear.y >= 0.0) {"),
        // the stored ξ keeps its length when rotated
        (
            "if (new_len2 > 0.0) { xi = xi * sqrt(old_len2 / new_len2); }",
            "",
        ),
        // last step's k_t for the energy in the spring
        ("if (hist.w > 0.0) { kt_old = hist.w; }", ""),
        // the Coulomb limit
        ("if (ft_len > ft_max) {", "if (ft_len > 2.0 * ft_max) {"),
        // sliding: the spring carries the whole force
        (
            "if (kt > 0.0) { xi = ft * (-1.0 / kt); }",
            "if (kt > 0.0) { xi = ft * (-0.5 / kt); }",
        ),
        // no friction under tension
        (
            "let ft_max = pp.friction * max(fn_total, 0.0);",
            "let ft_max = pp.friction * abs(fn_total);",
        ),
        // rolling resistance on
        (
            "if (pp.rolling_friction > 0.0) {",
            "if (pp.rolling_friction > 1.0) {",
        ),
        // its cap
        (
            "if (inv_i > 0.0) { m = min(m, w_len / (f32(ROLLING_SHARE) * inv_i * dt)); }",
            "",
        ),
        // the cap shared among contacts (pair::ROLLING_SHARE)
        (
            "w_len / (f32(ROLLING_SHARE) * inv_i * dt)",
            "w_len / (inv_i * dt)",
        ),
        // cohesion: the pull along n, and each model's areas and potentials
        (
            "let force_a = n * (coh.x - fn_total) + ft;",
            "let force_a = n * (-fn_total) + ft;",
        ),
        ("a2 = delta * (2.0 * r - delta);", "a2 = delta * (2.0 * r);"),
        (
            "u = delta * delta * (r - delta / 3.0);",
            "u = delta * delta * r;",
        ),
        (
            "a2 = delta * (s + d) * (d * d - dd * dd) / (4.0 * d * d);",
            "a2 = delta * (s + d) * (d * d) / (4.0 * d * d);",
        ),
        (
            "u = delta * delta * ((2.0 * s + d) / 3.0 - dd * dd / d) * 0.25;",
            "u = delta * delta * ((2.0 * s + d) / 3.0) * 0.25;",
        ),
        ("if (b_wall) { g = 2.0 * pi; }", ""),
        (
            "return vec2<f32>(f, -(0.5 * f * delta));",
            "return vec2<f32>(f, -(f * delta));",
        ),
        // the rolling spring: which model, its stiffness, the increment,
        // the cap, the dashpot, the torques' signs, its energy
        (
            "if (P.models.z != ROLLING_CDT) {",
            "if (P.models.z == ROLLING_EPSD2) {",
        ),
        ("var kr_old = kt_old * r2;", "var kr_old = kt * r2;"),
        (
            "kr = 2.25 * kn * pp.rolling_friction * pp.rolling_friction * r2;",
            "kr = 2.25 * kn * pp.rolling_friction * r2;",
        ),
        ("let w_half = wh - n * dot(wh, n);", "let w_half = wh;"),
        (
            "let m_max = pp.rolling_friction * r_star * abs(fn_total);",
            "let m_max = pp.rolling_friction * r_star * max(fn_total, 0.0);",
        ),
        (
            "if (P.models.z == ROLLING_EPSD && !capped) {",
            "if (P.models.z == ROLLING_EPSD) {",
        ),
        (
            "let coef = pp.rolling_damping * 2.0 * sqrt(i_r * kr);",
            "let coef = pp.rolling_damping * sqrt(i_r * kr);",
        ),
        (
            "torque_b = torque_b + applied;",
            "torque_b = torque_b - applied;",
        ),
        ("if (kr > 0.0) { elastic_roll = 0.5 * dot(m, m) / kr; }", ""),
        // JKR: its pull, its stiffnesses and damping from a, the Newton
        // solve, the potential, where a held contact parts, which contacts
        // are held, the snap-in's and the parting's losses
        ("if (jkr) { coh = vec2<f32>(js.pull, 0.0); }", ""),
        (
            "kt = 8.0 * pp.g_star * js.a;",
            "kt = 8.0 * pp.g_star * sqrt(r_star * max(overlap, 0.0));",
        ),
        (
            "let q = sqrt(js.a * m_star);",
            "let q = sqrt(sqrt(r_star * max(overlap, 0.0)) * m_star);",
        ),
        (
            "let f = s3 * s / r - c * s - delta;",
            "let f = s3 * s / r - c * s - 0.9 * delta;",
        ),
        (
            "- 4.0 / 3.0 * e * c * s3 / r + pi * gamma)",
            "- 4.0 / 3.0 * e * c * s3 / r)",
        ),
        ("delta > d_part,", "delta > 0.5 * d_part,"),
        ("let held = hist.w > 0.0;", "let held = true;"),
        (
            "if (held) { parted = elastic_t_old + elastic_roll_old + js.parting_loss; }",
            "if (held) { parted = js.parting_loss; }",
        ),
        ("if (!held) { lost += js.snap_in_loss; }", ""),
        (
            "0.4 * pi * gamma * a_part * a_part,",
            "0.5 * pi * gamma * a_part * a_part,",
        ),
    ];
    assert_each_perturbation_caught("law.wgsl", &src, &perturbations, |edited| {
        let eval = talus::gpu::law::LawEval::from_source(&ctx, edited);
        let (total, bad, _) = law_disagreements(&ctx, &eval, None);
        (total, bad)
    });
}

/// Removal on the GPU (the twin of `Step::remove`): the particles marked
/// leave at the next step's build (sorted past the live ones, the count
/// lowered on the device); a sphere inserted far away and removed again
/// leaves the others bit for bit as in a run that never had it; removing a
/// seventh of a colliding bed keeps every contact listed (brute force over
/// the state read back), the history flags true, and the run going.
#[test]
fn gpu_removal_drops_particles_and_keeps_the_rest() {
    let scene = falling_bed();
    let Some(ctx) = test_context() else { return };
    let mut plain = GpuBackend::new(&scene, ctx).unwrap();
    let Some(ctx) = test_context() else { return };
    let n = scene.particles.len() as u64;
    let setup = talus::Setup::new(scene.clone()).unwrap();
    let mut g = GpuBackend::with_capacity(&setup, ctx, Some(n + 1)).unwrap();
    plain.advance(200).unwrap();
    g.advance(200).unwrap();
    let far = spheres_at_rest_above(&g.snapshot(), 1);
    let ids = g.insert(&far).unwrap();
    plain.advance(100).unwrap();
    g.advance(100).unwrap();
    assert_eq!(g.remove(&ids.clone().collect()), 1);
    plain.advance(100).unwrap();
    g.advance(100).unwrap();
    assert_eq!(g.data.n, n, "the count fell back on the device");
    assert_eq!(plain.snapshot(), g.snapshot(), "the others changed");
    // a seventh of the bed
    for _ in 0..20 {
        g.advance(100).unwrap();
    }
    // (spheres that rolled off the 2 cm plate have left the open domain
    // by now: its boundary is an outlet)
    let present: std::collections::HashSet<u32> = g.snapshot().id.into_iter().collect();
    let gone: std::collections::HashSet<u32> = (0..n as u32)
        .step_by(7)
        .filter(|i| present.contains(i))
        .collect();
    assert!(gone.len() > 30);
    assert_eq!(g.remove(&gone), gone.len());
    g.advance(1).unwrap();
    let mut left = present.len() as u64 - gone.len() as u64;
    assert!(g.data.n <= left);
    let mut checked = 0;
    for _ in 0..200 {
        g.advance(1).unwrap();
        let ctl = g.ctl();
        if ctl[talus::gpu::data::CTL_REBUILD] != 0 {
            continue;
        }
        let st = g.state_f32();
        // no more than the domain lets go since
        assert!(st.len() as u64 <= left);
        left = st.len() as u64;
        assert!(
            st.id.iter().all(|id| !gone.contains(id)),
            "a removed id is back"
        );
        let len = ctl[talus::gpu::data::CTL_LIST_LEN] as u64;
        let start: Vec<u32> = g.read_vec(&g.data.nbr_start, left + 1);
        let list: Vec<u32> = g.read_vec(&g.data.nbr, len);
        let hist: Vec<[f32; 4]> = g.read_vec(&g.data.nbr_hist, len);
        assert_eq!(flag_mismatch(&list, &hist), None);
        let mut listed = std::collections::BTreeSet::new();
        for i in 0..left as usize {
            for &e in &list[start[i] as usize..start[i + 1] as usize] {
                if e & WALL == 0 {
                    listed.insert((i, (e & INDEX) as usize));
                }
            }
        }
        let grid = Grid::for_scene(&scene).unwrap();
        let pos: Vec<[f64; 4]> = st.pos_rad.iter().map(|p| p.map(f64::from)).collect();
        for (i, j) in talus::grid::pairs::brute_force_pairs(&pos, &grid) {
            // f32 positions: pairs at the very edge of contact may be off
            let (a, b) = (pos[i], pos[j]);
            let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
            if (a[3] + b[3] - d).abs() < 1e-9 {
                continue;
            }
            // in either row: a list of each pair once holds it in one
            assert!(
                listed.contains(&(i, j)) || listed.contains(&(j, i)),
                "pair ({i}, {j}) not listed"
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} contacts checked");
    assert!(g
        .snapshot()
        .pos_rad
        .iter()
        .all(|p| p.iter().all(|x| x.is_finite())));
}

/// `advance_observed` (the live view's way in: calls between submissions)
/// runs the same steps as `advance`, to the bit, and calls back exactly
/// where it was asked to: after `first` steps, then after what each call
/// returns, with the steps already submitted; None stops the calls.
#[test]
fn gpu_observed_advance_is_the_plain_advance() {
    let scene = dense_scene(false);
    let Some(ctx) = test_context() else { return };
    let mut plain = GpuBackend::new(&scene, ctx).unwrap();
    plain.advance(150).unwrap();
    let Some(ctx) = test_context() else { return };
    let mut seen = GpuBackend::new(&scene, ctx).unwrap();
    let mut calls = Vec::new();
    seen.advance_observed(150, 7, &mut |g, step| {
        // the host's step count is the segment's start until it ends
        assert!(g.steps_done() <= step);
        calls.push(step);
        (step < 100).then_some(13 + calls.len() as u64)
    })
    .unwrap();
    assert_eq!(seen.steps_done(), 150);
    // 7, then +14, +15, ... until the first call at or past step 100
    let mut want = vec![7u64];
    while *want.last().unwrap() < 100 {
        let k = want.len() as u64;
        want.push(want.last().unwrap() + 13 + k);
    }
    assert_eq!(calls, want);
    assert_eq!(
        plain.state_f32(),
        seen.state_f32(),
        "the calls between submissions changed the run"
    );
    assert_eq!(plain.diagnostics(), seen.diagnostics());
    // first = 0: no calls at all
    let Some(ctx) = test_context() else { return };
    let mut quiet = GpuBackend::new(&scene, ctx).unwrap();
    quiet
        .advance_observed(20, 0, &mut |_, _| panic!("called with first = 0"))
        .unwrap();
    assert_eq!(quiet.steps_done(), 20);
}

/// Size ratio 1:35: a rebuild carries every contact's history over to the
/// new list, the large particles' rows (`keep_large` and `fill_large`: a
/// workgroup per row, the old entries carried in parallel) as the others:
/// after a build and the contacts (histories written) and a forced
/// rebuild with no contacts in between, each (particle, partner) pair by id has the same
/// history bits as before, and nothing else has any.
#[test]
fn gpu_large_rows_carry_history() {
    use talus::state::HAS_HISTORY;
    let Some(ctx) = test_context() else { return };
    let scene = spinning_1_35("large rows history", 22, 7, true);
    let g = GpuBackend::new(&scene, ctx).unwrap();
    // a build and the contacts, which write the histories (the overlaps
    // are far past what a run accepts: no integrate)
    g.submit("build and contacts", |pass| {
        for s in &Stage::STEP[..4] {
            g.encode_stage(*s, pass);
        }
    });
    let large = g.ctl()[talus::gpu::data::CTL_LARGE] as usize;
    assert_eq!(large, 4, "the 4 large spheres head the cell order");
    // (id, partner id or wall | WALL) -> history bits, and per-row counts
    let read = |g: &GpuBackend| {
        let n = g.data.n;
        let len = g.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
        let start: Vec<u32> = g.read_vec(&g.data.nbr_start, n + 1);
        let nbr: Vec<u32> = g.read_vec(&g.data.nbr, len);
        let hist: Vec<[f32; 4]> = g.read_vec(&g.data.nbr_hist, len);
        assert_eq!(flag_mismatch(&nbr, &hist), None, "a history flag is wrong");
        let ids = g.ids();
        let mut map = HashMap::new();
        let mut large_rows = 0;
        for i in 0..n as usize {
            for e in start[i] as usize..start[i + 1] as usize {
                if nbr[e] & HAS_HISTORY == 0 {
                    continue;
                }
                let partner = entry_code(nbr[e], &ids);
                map.insert((ids[i], partner), hist[e].map(f32::to_bits));
                if i < large {
                    large_rows += 1;
                }
            }
        }
        (map, large_rows)
    };
    let (before, large_before) = read(&g);
    // a rebuild now: bin, sort and neighbours only (no contacts, so no
    // history changes)
    g.ctx.queue.write_buffer(
        &g.data.ctl,
        4 * talus::gpu::data::CTL_REBUILD as u64,
        bytemuck::bytes_of(&1u32),
    );
    let builds = g.ctl()[talus::gpu::data::CTL_BUILDS];
    g.submit("rebuild", |pass| {
        for s in &Stage::STEP[..3] {
            g.encode_stage(*s, pass);
        }
    });
    assert_eq!(g.ctl()[talus::gpu::data::CTL_BUILDS], builds + 1, "rebuilt");
    let (after, large_after) = read(&g);
    println!(
        "{} contacts with history, {large_before} in the large rows",
        before.len()
    );
    // (a list of each pair once holds one history a pair, not two)
    let sides = if g.data.pair_mode == Pairs::Once {
        2
    } else {
        1
    };
    assert!(
        large_before * sides > 300,
        "{large_before} large-row histories"
    );
    assert!(before.len() * sides > 3000, "{} histories", before.len());
    assert_eq!(large_after, large_before);
    assert!(before == after, "a history was lost, moved or made up");

    // the same with a kept table of one entry: the rebuild freezes at
    // `check_kept` (nothing but the reorder written), the table grows to
    // what it needs, and the build, run again as `advance` does, keeps
    // again from the first order and carries the same histories
    let Some(ctx) = test_context() else { return };
    let g = GpuBackend::new(&scene, ctx).unwrap();
    g.submit("build and contacts", |pass| {
        for s in &Stage::STEP[..4] {
            g.encode_stage(*s, pass);
        }
    });
    let mut g = g;
    g.grow_kept(1);
    g.ctx.queue.write_buffer(
        &g.data.ctl,
        4 * talus::gpu::data::CTL_REBUILD as u64,
        bytemuck::bytes_of(&1u32),
    );
    let rebuild = |g: &GpuBackend| {
        g.submit("rebuild", |pass| {
            for s in &Stage::STEP[..3] {
                g.encode_stage(*s, pass);
            }
        })
    };
    rebuild(&g);
    let ctl = g.ctl();
    let need = ctl[talus::gpu::data::CTL_KEPT_NEED];
    assert!(need as usize >= before.len(), "froze for {need} entries");
    assert_ne!(ctl[talus::gpu::data::CTL_FROZEN], u32::MAX, "frozen");
    assert_eq!(ctl[talus::gpu::data::CTL_BUILDS], builds, "not built");
    g.grow_kept(need as u64);
    rebuild(&g);
    assert_eq!(g.ctl()[talus::gpu::data::CTL_BUILDS], builds + 1, "rebuilt");
    let (cut, large_cut) = read(&g);
    assert_eq!(large_cut, large_before);
    assert!(
        before == cut,
        "a history was lost, moved or made up after growth"
    );
}

/// How many file descriptors this process holds (Linux; 0 elsewhere):
/// a driver that leaks one per device runs out at the process's limit.
fn open_files() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// Diagnostic for a real GPU, run by `bench/gpu.sh` (ignored here: it
/// says nothing about talus on lavapipe): 200 instances made one after
/// another in one process, each asked for its adapters and dropped. On an
/// H100 a test process that had made ~100 contexts, each with its own
/// instance, found no adapter; this tells whether the driver runs out of
/// instances.
#[test]
#[ignore = "diagnostic: how many instances one process may open (an H100 driver gives none after ~30 devices)"]
fn many_fresh_instances_in_one_process() {
    for k in 0..200 {
        let inst = talus::gpu::context::fresh_instance();
        let found = pollster::block_on(inst.enumerate_adapters(wgpu::Backends::all()));
        assert!(
            !found.is_empty(),
            "instance {k}: no adapter ({} files open)",
            open_files()
        );
        drop(found);
        drop(inst);
    }
    println!("200 fresh instances, each found its adapters");
}

/// The same diagnostic for whole contexts (an instance, a device
/// and queue each, a little work on each): 200 one after another.
#[test]
#[ignore = "diagnostic: how many devices one process may open (an H100 driver stops at its 31st)"]
fn many_contexts_in_one_process() {
    for k in 0..200 {
        let ctx = talus::gpu::GpuContext::new(None)
            .unwrap_or_else(|e| panic!("context {k} ({} files open): {e}", open_files()));
        if k % 10 == 0 {
            println!("context {k}: {} files open", open_files());
        }
        let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe"),
            size: 1 << 20,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue.write_buffer(&buf, 0, &[1u8; 256]);
        ctx.queue.submit([]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
    }
    println!("200 contexts, one after another");
}

/// The bench's bandwidth yardstick copies every word, on an awkward size
/// (not a multiple of the workgroup), and nothing past the shorter buffer.
#[test]
fn gpu_copy_kernel_copies_every_word() {
    use wgpu::util::DeviceExt;
    let Some(ctx) = test_context() else { return };
    let words = 256 * 37 + 13;
    let data: Vec<u32> = (0..4 * words as u32)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    let src = ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("src"),
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::STORAGE,
        });
    // one word longer than the source: its last word must stay untouched
    let dst = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("dst"),
        size: 16 * (words as u64 + 1),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let back = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("back"),
        size: dst.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let k = talus::gpu::copy::CopyKernel::new(&ctx);
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    k.encode(&ctx, &mut enc, &src, &dst, 2);
    enc.copy_buffer_to_buffer(&dst, 0, &back, 0, dst.size());
    ctx.queue.submit([enc.finish()]);
    back.slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let got: Vec<u32> = bytemuck::cast_slice(&back.slice(..).get_mapped_range().unwrap()).to_vec();
    assert_eq!(&got[..data.len()], &data[..], "a word was not copied");
    assert_eq!(
        &got[data.len()..],
        &[0; 4],
        "a word past the source was written"
    );
}

/// The particles' and the list's arrays span several storage bindings
/// (`gpu::pages`: each a list of buffers of one binding at most, the
/// shaders generated for the pages): with the binding limit lowered to
/// 74 KiB (1 184 particles, 4 736 list entries a page) the dense bed's 1 200
/// particles lie across two pages and its list (a skin of 0.4 d: ~10
/// entries per particle) across three, and 300 steps give the same bits as
/// with the adapter's own limit (one page of each).
#[test]
fn gpu_pages_change_no_bit() {
    let mut scene = dense_scene(false);
    scene.simulation.neighbour_skin = Some(0.0004);
    let Some(ctx) = test_context() else { return };
    let mut one = GpuBackend::new(&scene, ctx).unwrap();
    let Some(mut ctx) = test_context() else {
        return;
    };
    ctx.limits.max_storage_buffer_binding_size = 74 << 10;
    let mut three = GpuBackend::new(&scene, ctx).unwrap();
    let page = three.data.paging.entry_page;
    assert_eq!(page, 4_736);
    assert_eq!(three.data.paging.particle_page, 1_184);
    assert_eq!(
        three.data.b.motion.pages.len(),
        2,
        "the particles in two pages"
    );
    assert_eq!(one.data.paging.entry_pages, 1, "one page holds it");
    assert_eq!(one.data.b.motion.pages.len(), 1);
    one.advance(300).unwrap();
    three.advance(300).unwrap();
    let len = three.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    println!(
        "list of {len} entries, capacity {}, {} pages of {page}",
        three.data.nbr_cap, three.data.paging.entry_pages
    );
    // each pair once, the list is half as long: two pages
    let pages = if three.data.pair_mode == Pairs::Once {
        2
    } else {
        3
    };
    assert!(three.data.nbr.pages.len() >= pages);
    assert!(
        len > (pages as u64 - 1) * page,
        "the list reaches page {pages}"
    );
    assert!(one.list_stats().contacts > 1000, "a bed in contact");
    assert_eq!(
        one.state_f32(),
        three.state_f32(),
        "the pages changed the run"
    );
    assert_eq!(one.diagnostics(), three.diagnostics());
}

/// Issue 34's check: a touching lattice of 1.5·10⁶ spheres on a floor
/// (periodic sides) lists ~10⁷ entries, more than one binding holds on
/// lavapipe (128 MiB: 8.4·10⁶ history entries), so its history spans both
/// pages there; 25 steps end within 10⁻³ r of the CPU path, and within a
/// twentieth of how far the spheres went (a contact lost would move its
/// spheres as far as the top layer's one-sided push moves it). (~65 s on
/// lavapipe on 2 cores at 40 steps, most of it the GPU path's 1.4 s a
/// step: 25 since, for CI's time; every step reads both pages.)
#[test]
fn gpu_lattice_of_1_5e6_spans_binding_pages_and_matches_cpu() {
    let Some(ctx) = test_context() else { return };
    let r = 0.001;
    // 1.5·10⁶ = 150 × 100 × 100: a square 100 × 100 in x, y, 150 layers,
    // the spheres 0.1 % closer than touching so every neighbour presses
    let (nx, ny, nz) = (100usize, 100usize, 150usize);
    let s = 2.0 * r * 0.999;
    let (lx, ly) = (nx as f64 * s, ny as f64 * s);
    let mut b = SceneBuilder::new("lattice")
        .domain([0.0; 3], [lx, ly, nz as f64 * s * 1.2])
        .periodic([true, true, false])
        .dt_auto(0.2)
        .steps(1)
        .material(Material::new("m", 2500.0, 1e7))
        .wall([0.0; 3], [0.0, 0.0, 1.0], "m");
    for iz in 0..nz {
        for iy in 0..ny {
            for ix in 0..nx {
                let c = [
                    (ix as f64 + 0.5) * s,
                    (iy as f64 + 0.5) * s,
                    r * 0.999 + iz as f64 * s,
                ];
                b = b.particle(c.map(|x| x as f32 as f64), [0.0; 3], r, "m");
            }
        }
    }
    let scene = build(b);
    let mut gpu = match GpuBackend::new(&scene, ctx) {
        Ok(g) => g,
        Err(e) => panic!("1.5e6 particles on this adapter: {e}"),
    };
    let mut cpu = CpuBackend::new(&scene).unwrap();
    let steps = 25;
    // the two paths side by side (the test's time is the longer one's)
    std::thread::scope(|s| {
        s.spawn(|| cpu.advance(steps).unwrap());
        gpu.advance(steps).unwrap();
    });
    let len = gpu.ctl()[talus::gpu::data::CTL_LIST_LEN] as u64;
    println!(
        "{} particles, list of {len} entries in pages of {} ({} on this adapter)",
        scene.particles.len(),
        gpu.data.paging.entry_page,
        if len > gpu.data.paging.entry_page {
            "two pages"
        } else {
            "one page"
        }
    );
    let worst = worst_position_difference(&mut cpu, &mut gpu);
    let contacts = cpu.list_stats().contacts;
    // how far the spheres went (the top layer, pushed from below only):
    // what a contact lost on a page would do to its spheres
    let grid = cpu.st.grid;
    let moved = cpu
        .snapshot()
        .pos_rad
        .iter()
        .zip(&scene.particles)
        .map(|(p, q)| {
            let d = grid.min_image([p[0], p[1], p[2]], q.position);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .fold(0.0, f64::max);
    println!(
        "worst position difference {:e} of the radius, moved up to {:e}; {contacts} contacts",
        worst / r,
        moved / r
    );
    assert!(contacts > 4_000_000, "a lattice in contact: {contacts}");
    assert!(
        worst < 1e-3 * r && worst < moved / 20.0,
        "positions differ by {:e} of the radius (the spheres moved up to {:e})",
        worst / r,
        moved / r
    );
}

/// The largest distance (through periodic faces) between a particle's
/// position on the CPU path and on the GPU path, particles in id order.
fn worst_position_difference(cpu: &mut CpuBackend, gpu: &mut GpuBackend) -> f64 {
    let (c, g) = (cpu.snapshot(), gpu.snapshot());
    let grid = cpu.st.grid;
    let mut worst = 0.0f64;
    for i in 0..c.len() {
        let d = grid.min_image(
            [c.pos_rad[i][0], c.pos_rad[i][1], c.pos_rad[i][2]],
            [g.pos_rad[i][0], g.pos_rad[i][1], g.pos_rad[i][2]],
        );
        worst = worst.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
    }
    worst
}

/// The clumps' rotation on the GPU (`rotor.wgsl`, f32) against its CPU
/// twin (`shapes::rotation`, f64): a free asymmetric top tumbling (its
/// spin about the intermediate axis changes sign twice a period). Over
/// 1000 steps the orientations agree to f32's rounding; over 5·10⁴ (eight
/// periods; lavapipe ends a loop at 65 535 iterations) the world angular
/// momentum keeps its bits, the energy stays within 5·10⁻⁴ (f32's
/// rounding) and the sign changes come at the exact period within 1 %, as
/// often as on the CPU. Not the clump-top case's start, 1 % off the
/// unstable axis: there the distance to the separatrix is ~10⁻⁴ of the
/// energy, f32's rounding over the run (seen: the period 2 % off).
#[test]
fn gpu_rotor_matches_cpu_rotor() {
    use glam::{DQuat, DVec3};
    use talus::gpu::layout::RotorCase;
    use talus::shapes::rotation::{tumble, Rotor};
    let Some(ctx) = test_context() else { return };
    let eval = talus::gpu::rotor_eval::RotorEval::new(&ctx);
    let inertia = DVec3::new(1.0, 2.0, 3.0);
    let q0 = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let w = DVec3::new(0.3, 1.0, 0.4);
    let l0 = q0 * (inertia * w);
    let cpu = tumble(inertia, w, q0, 50_000, 8.0);
    let f = |v: DVec3, w: f32| [v.x as f32, v.y as f32, v.z as f32, w];
    let case = |steps: u32| RotorCase {
        q: [q0.x as f32, q0.y as f32, q0.z as f32, q0.w as f32],
        l: f(l0, 0.0),
        inertia: f(inertia, cpu.dt as f32),
        steps: [steps, 0, 0, 0],
    };
    let out = eval.eval(&ctx, &[case(1000), case(50_000)]);
    // 1000 steps beside the CPU's
    let mut r = Rotor { q: q0, l: l0 };
    for _ in 0..1000 {
        r.step(inertia, DVec3::ZERO, cpu.dt);
    }
    let g = out[0].q;
    let gq = DQuat::from_xyzw(g[0] as f64, g[1] as f64, g[2] as f64, g[3] as f64);
    let angle = (gq * r.q.inverse()).to_scaled_axis().length();
    assert!(
        angle < 1e-4,
        "orientations {angle:e} rad apart after 1000 steps"
    );
    // the long run
    let long = &out[1];
    assert_eq!(long.l, case(1).l, "the world angular momentum, bit for bit");
    assert!(long.flips[3] < 5e-4, "energy within {:e}", long.flips[3]);
    let [n, first, last, _] = long.flips;
    assert!(n >= 10.0, "{n} flips");
    let period = 2.0 * (last - first) as f64 / (n as f64 - 1.0);
    let err = (period - cpu.period).abs() / cpu.period;
    eprintln!(
        "rotor twin: {angle:.1e} rad after 1000 steps; 5e4 steps: {n} flips ({first}..{last} s; CPU {} flips), period {period} against {} ({err:.1e}), energy {:.1e}",
        cpu.flips.len(),
        cpu.period, long.flips[3]
    );
    assert!(err < 0.01, "flip period {period} against {}", cpu.period);
    assert_eq!(n as usize, cpu.flips.len(), "as many flips as on the CPU");
}
