//! A particle's sums do not depend on where its partners sit in memory:
//! the same spheres run with different neighbour skins (so different grid
//! cells, rebuild intervals, candidate rows and memory orders) end with the
//! same bits (`talus::sums`). The CPU path; the GPU path's sums are still
//! in row order (issue 34 goes on).

use talus::backend::Backend;
use talus::cpu::CpuBackend;

/// The README's scene (4000 beads falling onto the floor of a walled box:
/// pairs, walls, a rebuild every few steps) for 2500 steps with skins of
/// 0.02, 0.1 and 0.5 mean diameters: the lists differ, the final state does
/// not.
#[test]
fn the_skin_changes_the_lists_not_the_bits() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/settle.toml");
    let d = 0.002;
    let mut runs = Vec::new();
    for skin in [0.02 * d, 0.1 * d, 0.5 * d] {
        let mut scene = talus::scene::Scene::load(&path).unwrap();
        scene.simulation.neighbour_skin = Some(skin);
        let mut b = CpuBackend::new(&scene).unwrap();
        b.advance(2500).unwrap();
        let stats = b.list_stats();
        runs.push((skin, stats, b.snapshot()));
    }
    let (_, s0, p0) = &runs[0];
    println!("{} particles, {s0:?}", p0.len());
    assert!(s0.contacts > 1000, "a bed in contact: {s0:?}");
    for (skin, stats, p) in &runs[1..] {
        assert!(
            stats.builds != s0.builds && stats.entries != s0.entries,
            "skin {skin}: other lists ({stats:?} against {s0:?})"
        );
        assert_eq!(
            stats.contacts, s0.contacts,
            "skin {skin}: the same contacts"
        );
        let first = (0..p0.len()).find(|&k| {
            p.pos_rad[k] != p0.pos_rad[k]
                || p.vel_invm[k] != p0.vel_invm[k]
                || p.omega_invi[k] != p0.omega_invi[k]
                || p.dissipated[k] != p0.dissipated[k]
        });
        assert_eq!(
            first, None,
            "skin {skin}: the first particle whose bits differ"
        );
        assert_eq!(p, p0);
    }
}
