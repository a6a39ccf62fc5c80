//! The bond law's GPU twin (`shaders/bond_law.wgsl` through `bond_eval`)
//! against the CPU's (`bonds::law::bond_law`) on random bonds, and a
//! perturbation of each of its parts caught.

use talus::bonds::law::{bond_law, BondParams, BondState};
use talus::cpu::law::Body;
use talus::gpu::bonds::BondEval;
use talus::gpu::context::test_context;
use talus::gpu::layout::{BondCase, BondOut};
use talus::rng::Rng;

/// One random bond, every input an f32 value: the GPU case and the CPU's
/// view of the same numbers.
struct Sample {
    case: BondCase,
    bp: BondParams,
    a: Body,
    b: Body,
    n: [f64; 3],
    dist: f64,
    dt: f64,
    old: BondState,
}

fn f(x: f64) -> f64 {
    x as f32 as f64
}

fn sample(r: &mut Rng) -> Sample {
    let v3 = |r: &mut Rng, s: f64| r.in_unit_ball().map(|x| f(x * s));
    let particle = |r: &mut Rng| {
        let radius = f(r.range(0.5e-3, 2e-3));
        let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        Body {
            vel: v3(r, 0.1),
            omega: v3(r, 50.0),
            vel_half: v3(r, 0.1),
            omega_half: v3(r, 50.0),
            radius,
            inv_mass: f(1.0 / m),
            inv_inertia: f(1.0 / (0.4 * m * radius * radius)),
        }
    };
    let (a, b) = (particle(r), particle(r));
    let nv = r.in_unit_ball();
    let len = (nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]).sqrt();
    let n = nv.map(|x| f(x / len));
    let dist = f((a.radius + b.radius) * r.range(0.98, 1.02));
    let kn = f(r.range(1e9, 1e10) / dist);
    let radius = f(a.radius.min(b.radius) * r.range(0.3, 1.0));
    let area = std::f64::consts::PI * radius * radius;
    // strengths about what the stored forces reach: a third of the cases
    // break (tension or shear), some never can (∞)
    let strength = |r: &mut Rng| {
        if r.f64() < 0.2 {
            f64::INFINITY
        } else {
            f(r.range(0.5e6, 3e6))
        }
    };
    let bp = BondParams {
        kn,
        ks: f(kn / r.range(1.0, 3.0)),
        radius,
        tensile_strength: strength(r),
        shear_strength: strength(r),
        damping: if r.f64() < 0.3 {
            0.0
        } else {
            f(r.range(0.0, 1.0))
        },
    };
    let load = area * 1e6;
    let old = BondState {
        normal: f(r.range(-1.0, 1.0) * load),
        shear: v3(r, load),
        twist: f(r.range(-1.0, 1.0) * load * radius * 0.3),
        bend: v3(r, load * radius * 0.3),
    };
    let dt = f(1e-6);
    let rec = |m: &Body| -> [[f32; 4]; 4] {
        let l = |v: [f64; 3], w: f64| [v[0] as f32, v[1] as f32, v[2] as f32, w as f32];
        [
            l(m.vel, m.inv_mass),
            l(m.omega, m.inv_inertia),
            l(m.vel_half, 0.0),
            l(m.omega_half, 0.0),
        ]
    };
    let never = |x: f64| if x.is_finite() { x as f32 } else { -1.0 };
    let v4 = |v: [f64; 3]| [v[0] as f32, v[1] as f32, v[2] as f32, 0.0];
    let case = BondCase {
        params: [
            [kn as f32, bp.ks as f32, radius as f32, bp.damping as f32],
            [
                never(bp.tensile_strength),
                never(bp.shear_strength),
                0.0,
                0.0,
            ],
        ],
        a: rec(&a),
        b: rec(&b),
        geom: [a.radius as f32, b.radius as f32, dist as f32, dt as f32],
        normal: v4(n),
        nt: [old.normal as f32, old.twist as f32, 0.0, 0.0],
        shear: v4(old.shear),
        bend: v4(old.bend),
    };
    Sample {
        case,
        bp,
        a,
        b,
        n,
        dist,
        dt,
        old,
    }
}

/// The outputs compared: force on a, torques on a and b, the new state
/// (normal, twist, shear, bend), elastic and dissipated energy, how it
/// broke.
fn cpu_numbers(s: &Sample) -> [f64; 21] {
    let r = bond_law(&s.bp, s.dt, &s.a, &s.b, s.n, s.dist, &s.old);
    let mut o = [0.0; 21];
    o[..3].copy_from_slice(&r.force_a);
    o[3..6].copy_from_slice(&r.torque_a);
    o[6..9].copy_from_slice(&r.torque_b);
    o[9] = r.state.normal;
    o[10] = r.state.twist;
    o[11..14].copy_from_slice(&r.state.shear);
    o[14..17].copy_from_slice(&r.state.bend);
    o[17] = r.elastic;
    o[18] = r.dissipated;
    o[19] = r.broke.code() as f64;
    o
}

fn gpu_numbers(g: &BondOut) -> [f64; 21] {
    let mut o = [0.0; 21];
    for k in 0..3 {
        o[k] = g.force_a[k] as f64;
        o[3 + k] = g.torque_a[k] as f64;
        o[6 + k] = g.torque_b[k] as f64;
        o[11 + k] = g.shear[k] as f64;
        o[14 + k] = g.bend[k] as f64;
    }
    o[9] = g.nt[0] as f64;
    o[10] = g.nt[1] as f64;
    o[17] = g.energy[0] as f64;
    o[18] = g.energy[1] as f64;
    o[19] = g.nt[2] as f64;
    o
}

const CASES: usize = 6000;

/// (cases, disagreements, the first described, how many broke in
/// tension / shear / stayed intact).
fn disagreements(
    ctx: &talus::gpu::GpuContext,
    eval: &BondEval,
) -> (usize, usize, String, [usize; 3]) {
    let mut r = Rng::new(38);
    let samples: Vec<Sample> = (0..CASES).map(|_| sample(&mut r)).collect();
    let cases: Vec<BondCase> = samples.iter().map(|s| s.case).collect();
    let params: talus::gpu::layout::Params = bytemuck::Zeroable::zeroed();
    let gpu = eval.eval(ctx, &params, &cases);
    let (mut bad, mut first, mut kinds) = (0, String::new(), [0; 3]);
    for (k, (s, g)) in samples.iter().zip(&gpu).enumerate() {
        let c = cpu_numbers(s);
        let g = gpu_numbers(g);
        kinds[match c[19] as u32 {
            1 => 0,
            2 => 1,
            _ => 2,
        }] += 1;
        // the inputs' f32 rounding, imitated: the spread of the f64 law
        // under 3e-7 relative changes of the state and the velocities
        let mut spread = [0.0f64; 21];
        let mut pr = Rng::new(k as u64 + 1);
        for _ in 0..4 {
            let mut q = |x: f64| x * (1.0 + 3e-7 * (2.0 * pr.f64() - 1.0));
            let mut t = Sample { ..*s };
            t.old.normal = q(t.old.normal);
            t.old.twist = q(t.old.twist);
            t.old.shear = t.old.shear.map(&mut q);
            t.old.bend = t.old.bend.map(&mut q);
            t.dist = q(t.dist);
            t.n = t.n.map(&mut q);
            let p = cpu_numbers(&t);
            for i in 0..21 {
                spread[i] = spread[i].max((p[i] - c[i]).abs());
            }
        }
        // each 3-vector compared at its own scale, the dissipation at the
        // energies'
        let scale = |i: usize| -> f64 {
            let vector =
                |b: usize| (c[b] * c[b] + c[b + 1] * c[b + 1] + c[b + 2] * c[b + 2]).sqrt();
            match i {
                0..=8 => vector(i / 3 * 3),
                11..=16 => vector(11 + (i - 11) / 3 * 3),
                18 => c[17].abs().max(c[18].abs()),
                _ => c[i].abs(),
            }
        };
        let wrong = (0..21).find(|&i| {
            let tol = 30.0 * spread[i] + 2e-5 * scale(i) + 1e-30;
            // NaN on either side is a disagreement too
            let within = (g[i] - c[i]).abs() <= tol;
            !within
        });
        if let Some(i) = wrong {
            bad += 1;
            if first.is_empty() {
                first = format!(
                    "case {k} output {i}: GPU {:e}, CPU {:e} (spread {:e}); GPU {g:?} CPU {c:?}",
                    g[i], c[i], spread[i]
                );
            }
        }
    }
    (CASES, bad, first, kinds)
}

/// The WGSL bond law against the CPU's on 6000 random bonds (f32 inputs):
/// intact with and without damping, broken in tension and in shear,
/// unbreakable; every output within what f32 rounding of the inputs
/// moves it plus 2·10⁻⁵ of its scale.
#[test]
fn gpu_bond_law_matches_cpu() {
    let Some(ctx) = test_context() else { return };
    let eval = BondEval::new(&ctx);
    let (total, bad, first, kinds) = disagreements(&ctx, &eval);
    eprintln!(
        "bond twin: {total} bonds, {bad} disagree; tension {}, shear {}, intact {}",
        kinds[0], kinds[1], kinds[2]
    );
    assert!(kinds.iter().all(|&k| k >= 300), "{kinds:?}");
    assert_eq!(bad, 0, "{bad} of {total} disagree; first: {first}");
}

/// The bond twin test notices a perturbation of each part of the WGSL
/// bond law.
#[test]
fn gpu_bond_law_test_catches_each_perturbation() {
    let Some(ctx) = test_context() else { return };
    let src = talus::gpu::shaders::source("bond_eval.wgsl");
    let perturbations = [
        (
            "let arm_a = n * (a.radius + 0.5 * gap);",
            "let arm_a = n * a.radius;",
        ),
        (
            "let dth = (b.omega_half - a.omega_half) * dt;",
            "let dth = (b.omega - a.omega) * dt;",
        ),
        ("let ksj = bp.k.y * j2;", "let ksj = bp.k.x * j2;"),
        ("let kni = bp.k.x * i2;", "let kni = bp.k.x * j2;"),
        (
            "bond_into_plane(old.shear, n) + du_t * ksa",
            "old.shear + du_t * ksa",
        ),
        (
            "bond_into_plane(old.bend, n) + dth_t * kni",
            "old.bend + dth_t * kni",
        ),
        (
            "if (len_new > 0.0) { return p * sqrt(len_old / len_new); }",
            "",
        ),
        (
            "let sigma = s.nt.x / area + sqrt(dot(s.bend, s.bend)) * r / i2;",
            "let sigma = s.nt.x / area;",
        ),
        (
            "let tau = sqrt(dot(s.shear, s.shear)) / area + abs(s.nt.y) * r / j2;",
            "let tau = sqrt(dot(s.shear, s.shear)) / area;",
        ),
        (
            "bond_energy(kna, ksa, ksj, kni, old));",
            "bond_energy(kna, ksa, ksj, kni, s));",
        ),
        (
            "let cb = zeta * sqrt(i_star * kni);",
            "let cb = zeta * sqrt(i_star * ksj);",
        ),
        (
            "let torque_b = cross(arm_b, -f_shear) - moment;",
            "let torque_b = cross(arm_b, f_shear) - moment;",
        ),
        (
            "let f_shear = s.shear + v_t * cs;",
            "let f_shear = s.shear;",
        ),
        ("+ s.nt.y * s.nt.y / ksj", "+ s.nt.y * s.nt.y / kni"),
    ];
    crate::common::assert_each_perturbation_caught(
        "bond_law.wgsl",
        &src,
        &perturbations,
        |edited| {
            let eval = BondEval::from_source(&ctx, edited);
            let (total, bad, _, _) = disagreements(&ctx, &eval);
            (total, bad)
        },
    );
}
