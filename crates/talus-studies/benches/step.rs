//! `cargo bench -p talus-studies --bench step [-- SIZES]`: the CPU step on
//! the benchmark beds, through the same code as `talus bench` (medians of
//! 3 timed blocks). SIZES: particle counts, comma- or space-separated
//! (default 1e4,1e5); `talus bench` adds the GPU, the per-stage shares
//! and bench.json.

use talus::cpu::CpuBackend;
use talus_studies::bench::{bed, measure, Bed};

fn main() {
    // cargo passes `--bench` (and libtest's flags) too: words starting
    // with `-` are not sizes
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .flat_map(|a| {
            a.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    let words = if words.is_empty() {
        vec!["1e4".to_string(), "1e5".to_string()]
    } else {
        words
    };
    let mut sizes = Vec::new();
    for s in &words {
        match s.parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 1.0 => sizes.push(n as usize),
            _ => {
                eprintln!("sizes: expected particle counts (e.g. 1e4,1e5), got \"{s}\"");
                std::process::exit(2);
            }
        }
    }
    println!("| bed | particles | particle-steps/s | ns/particle-step |\n|---|---:|---:|---:|");
    for kind in [Bed::Mono, Bed::Poly, Bed::Settled, Bed::Chute] {
        for &n in &sizes {
            let scene = bed(kind, n, 1).expect("bench bed");
            let n = scene.particles.len();
            let setup = talus::Setup::new(scene).expect("bench bed");
            let mut b = CpuBackend::from_setup(&setup).expect("bench bed");
            let steps = 50;
            match measure(&mut b, 100, steps, 3) {
                Ok(t) => {
                    let rate = n as f64 * steps as f64 / t.median;
                    println!("| {} | {n} | {rate:.3e} | {:.1} |", kind.name(), 1e9 / rate);
                }
                Err(e) => println!("| {} | {n} | failed: {e} | |", kind.name()),
            }
        }
    }
}
