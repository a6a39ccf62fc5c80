//! `cargo bench --bench step`: the CPU step on the benchmark beds, through the
//! same code as `talus bench` (medians of 3 timed blocks). Sizes from
//! TALUS_BENCH_SIZES (default 1e4,1e5); `talus bench` adds the GPU, the
//! per-stage shares and bench.json.

use talus::cpu::CpuBackend;
use talus_studies::bench::{bed, measure, Bed};

fn main() {
    let sizes = std::env::var("TALUS_BENCH_SIZES").unwrap_or_else(|_| "1e4,1e5".into());
    println!("| bed | particles | particle-steps/s | ns/particle-step |\n|---|---:|---:|---:|");
    for kind in [Bed::Mono, Bed::Poly, Bed::Settled, Bed::Chute] {
        for s in sizes.split(',') {
            let Ok(n) = s.trim().parse::<f64>() else {
                eprintln!("TALUS_BENCH_SIZES: \"{s}\" is not a number");
                std::process::exit(2);
            };
            let scene = bed(kind, n as usize, 1).expect("bench bed");
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
