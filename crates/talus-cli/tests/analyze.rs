//! `talus analyze`: the exact sphere ∩ region volumes against closed forms
//! and independent quadratures, the profiles' sums, an FCC packing; then the
//! real binary on a small settled bed, every verb's CSV and PNG.

use std::f64::consts::PI;
use talus::scene::Region;
use talus_studies::analyze::fraction::{layered_profile, radial_profile, solid_fraction};
use talus_studies::analyze::volume::{
    sphere_below, sphere_in_box, sphere_in_cylinder, sphere_slab,
};

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

/// A deterministic uniform stream in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn whole_sphere_and_caps() {
    let r = 0.37;
    let v = 4.0 / 3.0 * PI * r * r * r;
    assert!(rel(sphere_below(r, r), v) < 1e-15);
    assert!(rel(sphere_below(r, 5.0), v) < 1e-15);
    assert_eq!(sphere_below(r, -r), 0.0);
    assert!(rel(sphere_below(r, 0.0), v / 2.0) < 1e-15);
    let c = [0.1, -0.2, 0.3];
    let z = [0.0, 0.0, 1.0];
    assert!(rel(sphere_slab(c, r, z, -10.0, 10.0), v) < 1e-15);
    assert!(rel(sphere_in_cylinder(c, r, [0.0; 3], z, 10.0, -10.0, 10.0), v) < 1e-15);
    assert!(rel(sphere_in_box(c, r, [-5.0; 3], [5.0; 3]), v) < 1e-15);
}

#[test]
fn slab_matches_a_riemann_sum() {
    let (r, c) = (0.5, [0.2, 0.1, -0.3]);
    let axis = {
        let a: [f64; 3] = [1.0, 2.0, 2.0];
        [a[0] / 3.0, a[1] / 3.0, a[2] / 3.0]
    };
    let cc = c[0] * axis[0] + c[1] * axis[1] + c[2] * axis[2];
    for (lo, hi) in [
        (cc - 0.2, cc + 0.45),
        (cc - 0.6, cc - 0.1),
        (cc + 0.3, cc + 2.0),
    ] {
        // midpoint rule over the sphere's discs along the axis
        let n = 200_000;
        let mut s = 0.0;
        for i in 0..n {
            let z = -r + 2.0 * r * (i as f64 + 0.5) / n as f64;
            if cc + z >= lo && cc + z <= hi {
                s += PI * (r * r - z * z);
            }
        }
        let brute = s * 2.0 * r / n as f64;
        let exact = sphere_slab(c, r, axis, lo, hi);
        assert!(rel(exact, brute) < 1e-5, "{exact} vs {brute}");
    }
}

#[test]
fn cylinder_through_the_centre_is_the_closed_form() {
    let r: f64 = 1.0;
    for a in [0.1f64, 0.5, 0.9, 0.999] {
        let want = 4.0 * PI / 3.0 * (r * r * r - (r * r - a * a).powf(1.5));
        let got = sphere_in_cylinder([0.0; 3], r, [0.0, 0.0, -3.0], [0.0, 0.0, 1.0], a, 0.0, 6.0);
        assert!(rel(got, want) < 1e-13, "a = {a}: {got} vs {want}");
        // a hair off the axis goes through the general quadrature: O(d²) away
        let off = sphere_in_cylinder(
            [1e-7, 0.0, 0.0],
            r,
            [0.0, 0.0, -3.0],
            [0.0, 0.0, 1.0],
            a,
            0.0,
            6.0,
        );
        assert!(rel(off, want) < 1e-11, "a = {a}: {off} vs {want}");
    }
}

/// Reference: ∫∫ over the cylinder's disc of the sphere's chord inside
/// [lo, hi], on a fine polar grid (axis z through the origin).
fn cylinder_reference(c: [f64; 3], r: f64, radius: f64, lo: f64, hi: f64) -> f64 {
    let (nr, nt) = (1500, 3000);
    let mut s = 0.0;
    for i in 0..nr {
        let q = radius * (i as f64 + 0.5) / nr as f64;
        for j in 0..nt {
            let th = 2.0 * PI * (j as f64 + 0.5) / nt as f64;
            let (x, y) = (q * th.cos() - c[0], q * th.sin() - c[1]);
            let h2 = r * r - x * x - y * y;
            if h2 > 0.0 {
                let h = h2.sqrt();
                let (a, b) = ((c[2] - h).max(lo), (c[2] + h).min(hi));
                if b > a {
                    s += (b - a) * q;
                }
            }
        }
    }
    s * (radius / nr as f64) * (2.0 * PI / nt as f64)
}

#[test]
fn off_axis_cylinders_match_a_quadrature_and_a_monte_carlo() {
    let z = [0.0, 0.0, 1.0];
    let r = 1.0;
    let cases = [
        ([0.6, 0.0, 0.0], 1.0, -5.0, 5.0),
        ([1.5, 0.3, 0.2], 1.0, -0.5, 0.7),
        ([0.2, 0.1, 0.0], 0.5, -0.3, 5.0),
        ([0.3, 0.0, 0.0], 2.0, -5.0, 5.0),
        ([0.0, 2.5, 0.4], 2.0, -5.0, 0.9),
    ];
    let mut rng = Lcg(7);
    for (c, radius, lo, hi) in cases {
        let got = sphere_in_cylinder(c, r, [0.0; 3], z, radius, lo, hi);
        let q = cylinder_reference(c, r, radius, lo, hi);
        assert!(rel(got, q) < 2e-5, "{c:?}: {got} vs quadrature {q}");
        // Monte Carlo in the sphere's bounding box, within 5 σ
        let n = 400_000;
        let mut hits = 0usize;
        for _ in 0..n {
            let p = [
                c[0] + r * (2.0 * rng.next() - 1.0),
                c[1] + r * (2.0 * rng.next() - 1.0),
                c[2] + r * (2.0 * rng.next() - 1.0),
            ];
            let ins = (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)
                <= r * r
                && p[0] * p[0] + p[1] * p[1] <= radius * radius
                && p[2] >= lo
                && p[2] <= hi;
            hits += ins as usize;
        }
        let f = hits as f64 / n as f64;
        let (mc, sigma) = (8.0 * f, 8.0 * (f * (1.0 - f) / n as f64).sqrt());
        assert!(
            (got - mc).abs() < 5.0 * sigma + 1e-12,
            "{c:?}: {got} vs MC {mc} ± {sigma}"
        );
    }
    // a tilted axis is the same problem rotated
    let s = 0.5f64.sqrt();
    let tilted = sphere_in_cylinder(
        [s * 0.6, -s * 0.6, 0.0],
        r,
        [0.0; 3],
        [s, s, 0.0],
        1.0,
        -0.4,
        0.3,
    );
    let straight = sphere_in_cylinder(
        [0.0, 0.0, 0.6],
        r,
        [0.0; 3],
        [1.0, 0.0, 0.0],
        1.0,
        -0.4,
        0.3,
    );
    let flat = sphere_in_cylinder([0.6, 0.0, 0.0], r, [0.0; 3], z, 1.0, -0.4, 0.3);
    assert!(
        rel(tilted, flat) < 1e-12 && rel(straight, flat) < 1e-12,
        "{tilted} {straight} {flat}"
    );
}

#[test]
fn continuity_at_the_closed_forms_edges() {
    // the sphere just inside the cylinder (general path) vs the slab formula
    let (r, d) = (1.0, 0.5);
    let inside = sphere_in_cylinder(
        [d, 0.0, 0.0],
        r,
        [0.0; 3],
        [0.0, 0.0, 1.0],
        d + r + 1e-9,
        -0.3,
        0.6,
    );
    let slab = sphere_slab([d, 0.0, 0.0], r, [0.0, 0.0, 1.0], -0.3, 0.6);
    assert!(rel(inside, slab) < 1e-10, "{inside} vs {slab}");
    let just = sphere_in_cylinder(
        [d, 0.0, 0.0],
        r,
        [0.0; 3],
        [0.0, 0.0, 1.0],
        d + r - 1e-9,
        -0.3,
        0.6,
    );
    assert!(rel(just, slab) < 1e-10, "{just} vs {slab}");
    // complementary cylinders' rings add up
    let whole = 4.0 / 3.0 * PI;
    let big = sphere_in_cylinder(
        [0.7, 0.2, 0.0],
        r,
        [0.0; 3],
        [0.0, 0.0, 1.0],
        2.0,
        -9.0,
        9.0,
    );
    assert!(rel(big, whole) < 1e-14);
}

#[test]
fn box_corners_match_a_monte_carlo() {
    let mut rng = Lcg(11);
    let r = 1.0;
    for (c, min, max) in [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [5.0, 5.0, 5.0]),
        ([0.3, -0.2, 0.1], [-0.5, -0.4, -2.0], [0.6, 3.0, 0.5]),
        ([0.9, 0.9, 0.0], [0.0, 0.0, -0.2], [1.0, 1.0, 0.2]),
    ] {
        let got = sphere_in_box(c, r, min, max);
        let n = 400_000;
        let mut hits = 0usize;
        for _ in 0..n {
            let p = [
                c[0] + r * (2.0 * rng.next() - 1.0),
                c[1] + r * (2.0 * rng.next() - 1.0),
                c[2] + r * (2.0 * rng.next() - 1.0),
            ];
            let ins = (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)
                <= r * r
                && (0..3).all(|k| p[k] >= min[k] && p[k] <= max[k]);
            hits += ins as usize;
        }
        let f = hits as f64 / n as f64;
        let (mc, sigma) = (8.0 * f, 8.0 * (f * (1.0 - f) / n as f64).sqrt());
        assert!(
            (got - mc).abs() < 5.0 * sigma + 1e-12,
            "{c:?}: {got} vs MC {mc} ± {sigma}"
        );
    }
    // an octant: exactly an eighth
    let oct = sphere_in_box([0.0; 3], r, [0.0; 3], [3.0; 3]);
    assert!(rel(oct, PI / 6.0) < 1e-12, "{oct}");
    // a quarter (two faces through the centre)
    let q = sphere_in_box([0.0; 3], r, [0.0, 0.0, -3.0], [3.0; 3]);
    assert!(rel(q, PI / 3.0) < 1e-12, "{q}");
}

/// Face-centred cubic spheres touching, lattice constant a = 2√2 r.
fn fcc(cells: usize, r: f64) -> Vec<[f64; 4]> {
    let a = 2.0 * 2f64.sqrt() * r;
    let basis = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    let mut out = Vec::new();
    for i in 0..cells {
        for j in 0..cells {
            for k in 0..cells {
                for b in basis {
                    out.push([
                        (i as f64 + b[0]) * a,
                        (j as f64 + b[1]) * a,
                        (k as f64 + b[2]) * a,
                        r,
                    ]);
                }
            }
        }
    }
    out
}

#[test]
fn fcc_fraction_and_profiles() {
    let r = 0.5;
    let p = fcc(10, r);
    let a = 2.0 * 2f64.sqrt() * r;
    let want = PI / (3.0 * 2f64.sqrt()); // 0.74048
                                         // a box of whole unit cells in the interior, shifted: exact up to rounding
    let boxed = Region::Box {
        min: [2.0 * a + 0.1, 2.0 * a + 0.2, 2.0 * a + 0.3],
        max: [7.0 * a + 0.1, 7.0 * a + 0.2, 7.0 * a + 0.3],
    };
    let f = solid_fraction(&p, &boxed);
    assert!((f - want).abs() < 1e-10, "box: {f} vs {want}");
    let cyl = Region::Cylinder {
        center: [5.0 * a, 5.0 * a, 2.0 * a],
        axis: [0.0, 0.0, 1.0],
        radius: 2.5 * a,
        length: 5.0 * a,
    };
    let fc = solid_fraction(&p, &cyl);
    assert!((fc - want).abs() < 1e-3, "cylinder: {fc} vs {want}");
    // profiles: the layers' mean and the rings' volume-weighted mean are the whole
    for region in [boxed, cyl] {
        let whole = solid_fraction(&p, &region);
        let layers = layered_profile(&p, &region, 7);
        let mean = layers.iter().map(|b| b.fraction).sum::<f64>() / 7.0;
        assert!((mean - whole).abs() < 1e-12, "{mean} vs {whole}");
    }
    let rings = radial_profile(&p, &cyl, 6);
    let (mut v, mut w) = (0.0, 0.0);
    for b in &rings {
        let area = b.hi * b.hi - b.lo * b.lo;
        v += b.fraction * area;
        w += area;
    }
    assert!((v / w - fc).abs() < 1e-12, "{} vs {fc}", v / w);
    assert_eq!(rings.last().unwrap().hi, 2.5 * a);
}

// ------------------------------------------------------ contacts, repose

use talus::scene::{Domain, Material, SceneBuilder};
use talus_studies::analyze::contacts::{coordination, find_contacts, normal_forces};
use talus_studies::analyze::repose::angle_of_repose;

#[test]
fn fcc_has_twelve_contacts_inside_and_in_a_periodic_box() {
    let r = 0.5;
    // touching spheres are at exactly 2r: grow the radii a hair so the
    // strict test (distance < r_i + r_j) sees the contacts
    let mut p = fcc(6, r);
    for q in &mut p {
        q[3] *= 1.0 + 1e-9;
    }
    let a = 2.0 * 2f64.sqrt() * r;
    let open = Domain {
        min: [-a; 3],
        max: [7.0 * a; 3],
        periodic: [false; 3],
    };
    let c = find_contacts(&p, &open).unwrap();
    let inner = Region::Box {
        min: [1.5 * a; 3],
        max: [4.5 * a; 3],
    };
    let z = coordination(p.len(), &c, &p, Some(&inner), 2);
    assert!(z.counted > 50);
    assert_eq!(z.mean, 12.0);
    assert_eq!(z.histogram[12], z.counted);
    // the same lattice filling a periodic box: 12 everywhere
    let periodic = Domain {
        min: [-0.25 * a; 3],
        max: [5.75 * a; 3],
        periodic: [true; 3],
    };
    let c = find_contacts(&p, &periodic).unwrap();
    assert_eq!(c.len(), 6 * p.len());
    let z = coordination(p.len(), &c, &p, None, 4);
    assert_eq!((z.mean, z.mean_without_rattlers), (12.0, 12.0));
    // a chain: the rattlers are peeled off one after another
    let chain: Vec<[f64; 4]> = (0..5).map(|i| [i as f64 * 0.9, 0.0, 0.0, 0.5]).collect();
    let c = find_contacts(&chain, &open).unwrap();
    let z = coordination(5, &c, &chain, None, 2);
    assert_eq!(z.mean, 8.0 / 5.0);
    assert_eq!(z.non_rattlers, 0);
}

#[test]
fn hertz_and_linear_normal_forces() {
    let m = Material::new("glass", 2500.0, 5e6);
    let nu = m.poisson_ratio;
    let base = || {
        SceneBuilder::new("pair")
            .domain([-0.01; 3], [0.01; 3])
            .material(m.clone())
            .particle([0.0; 3], [0.0; 3], 0.001, "glass")
            .particle([0.0019, 0.0, 0.0], [0.0; 3], 0.0012, "glass")
    };
    let p = vec![[0.0, 0.0, 0.0, 0.001], [0.0019, 0.0, 0.0, 0.0012]];
    let domain = Domain {
        min: [-0.01; 3],
        max: [0.01; 3],
        periodic: [false; 3],
    };
    let c = find_contacts(&p, &domain).unwrap();
    assert_eq!(c.len(), 1);
    let delta: f64 = 0.0003;
    assert!((c[0].overlap - delta).abs() < 1e-15);
    let inv_m = [1.0 / 0.01, 1.0 / 0.03];
    let hertz = base().hertz_mindlin().build_unchecked();
    let f = normal_forces(&hertz, &p, &inv_m, &[0, 0], &c).unwrap();
    let e_star = 5e6 / (2.0 * (1.0 - nu * nu));
    let r_star: f64 = 0.001 * 0.0012 / 0.0022;
    let want = 4.0 / 3.0 * e_star * r_star.sqrt() * delta.powf(1.5);
    assert!(rel(f[0], want) < 1e-12, "{} vs {want}", f[0]);
    let linear = base().linear_stiffness(2000.0).build_unchecked();
    let f = normal_forces(&linear, &p, &inv_m, &[0, 0], &c).unwrap();
    assert!(rel(f[0], 2000.0 * delta) < 1e-12);
}

/// Particles under the surface h(s): a column every `dx` along x, from the
/// floor up to h, and a few rows deep across y.
fn pile(h: impl Fn(f64) -> f64, x0: f64, x1: f64, r: f64) -> Vec<[f64; 4]> {
    let mut out = Vec::new();
    let mut x = x0;
    while x <= x1 {
        let top = h(x);
        let mut z = r;
        while z + r <= top {
            for j in 0..3 {
                out.push([x, j as f64 * 2.0 * r, z, r]);
            }
            z += 2.0 * r;
        }
        x += 0.5 * r;
    }
    out
}

#[test]
fn repose_of_a_heap_and_of_an_inclined_surface() {
    let r = 0.001;
    let slope = 30f64.to_radians().tan();
    // a heap: two flanks of 30° around x = 0, on a floor at z = 0
    let heap = pile(|x| 0.05 - slope * x.abs(), -0.08, 0.08, r);
    let rep = angle_of_repose(&heap, [0.0, 0.0, -9.81], [0.0, 1.0, 0.0], 40, 0.2).unwrap();
    assert_eq!(rep.flanks.len(), 2);
    for f in &rep.flanks {
        assert!((f.angle - 30.0).abs() < 1.5, "{f:?}");
    }
    assert!((rep.angle - 30.0).abs() < 1.0, "{}", rep.angle);
    // a drum-like surface: one incline of 35°, gravity along −z, the axis
    // along y; seen with the axis given the other way round
    let t = 35f64.to_radians().tan();
    let bed = pile(|x| 0.06 + t * x, -0.05, 0.05, r);
    let rep = angle_of_repose(&bed, [0.0, 0.0, -9.81], [0.0, -1.0, 0.0], 40, 0.2).unwrap();
    assert_eq!(rep.flanks.len(), 1);
    assert!((rep.angle - 35.0).abs() < 1.5, "{}", rep.angle);
    // gravity along the axis: refused
    assert!(angle_of_repose(&bed, [0.0, -9.81, 0.0], [0.0, 1.0, 0.0], 40, 0.2).is_err());
}

// ------------------------------------------------------ the real binary

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_talus");

/// A few hundred beads dropped from a lattice onto a floor between four
/// walls, 0.12 s.
const SCENE: &str = r#"
[simulation]
duration = 0.12
dt = "auto"
gravity = [0.0, 0.0, -9.81]
output_interval = 0.01

[domain]
min = [0.0, 0.0, 0.0]
max = [0.012, 0.012, 0.02]

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.3
friction = 0.4

[[particles]]
generator = "lattice"
region = { min = [0.0, 0.0, 0.0], max = [0.012, 0.012, 0.012] }
radius = { min = 0.00055, max = 0.0006 }
material = "glass"
count = 300

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
material = "glass"

[[walls]]
type = "plane"
point = [0.012, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.012, 0.0]
normal = [0.0, -1.0, 0.0]
material = "glass"
"#;

fn talus(args: &[&str]) -> (String, String) {
    let out = Command::new(BIN)
        .args(args)
        .output()
        .expect("cannot start talus");
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "talus {args:?} failed\n--- stdout ---\n{so}--- stderr ---\n{se}"
    );
    (so, se)
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| {
            l.split(',')
                .map(|x| x.parse::<f64>().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    (header, rows)
}

/// Decodes a PNG and asserts it has more than one colour.
fn png_has_content(path: &Path) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dec = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut buf = vec![0; dec.output_buffer_size()];
    let info = dec.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let data = &buf[..info.buffer_size()];
    assert!(
        data.chunks(px).any(|c| c != &data[..px]),
        "{} is a single colour",
        path.display()
    );
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

#[test]
fn analyze_a_settled_bed_through_the_binary() {
    let dir: PathBuf = std::env::temp_dir().join(format!("talus-analyze-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("bed.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let run = dir.join("run");
    let run_s = run.to_str().unwrap();
    talus(&[
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        run_s,
    ]);
    let out = run.join("analysis");

    // the whole fraction and the layers of the same region
    let region = "box:0.0015,0.0015,0.0005,0.0105,0.0105,0.0025";
    let (so, _) = talus(&["analyze", run_s, "fraction", "--region", region]);
    assert!(so.contains("solid fraction"), "{so}");
    let (h, rows) = read_csv(&out.join("fraction.csv"));
    // the region is quoted (it holds commas): the fraction is the last field
    assert_eq!(h.last().unwrap(), "fraction");
    let whole = *rows[0].last().unwrap();
    assert!(whole > 0.45 && whole < 0.7, "{whole}");
    talus(&[
        "analyze", run_s, "layers", "--region", region, "--bins", "8",
    ]);
    let (h, rows) = read_csv(&out.join("layers.csv"));
    assert_eq!(rows.len(), 8);
    let mean = rows.iter().map(|r| r[col(&h, "fraction")]).sum::<f64>() / 8.0;
    assert!((mean - whole).abs() < 1e-12, "{mean} vs {whole}");

    // rings of a cylinder: volume-weighted mean = its whole fraction
    let cyl = "cylinder:0.006,0.006,0.0005,0,0,1,0.0045,0.002";
    talus(&["analyze", run_s, "radial", "--region", cyl, "--bins", "5"]);
    let (h, rows) = read_csv(&out.join("radial.csv"));
    let (mut v, mut w) = (0.0, 0.0);
    for r in &rows {
        let a = r[col(&h, "r_hi")].powi(2) - r[col(&h, "r_lo")].powi(2);
        v += a * r[col(&h, "fraction")];
        w += a;
    }
    talus(&["analyze", run_s, "fraction", "--region", cyl]);
    let (h, f) = read_csv(&out.join("fraction.csv"));
    assert_eq!(h.last().unwrap(), "fraction");
    assert!((v / w - f[0].last().unwrap()).abs() < 1e-12);

    // coordination of the settled bed
    let (so, _) = talus(&["analyze", run_s, "coordination"]);
    let (h, rows) = read_csv(&out.join("coordination.csv"));
    let n: f64 = rows.iter().map(|r| r[col(&h, "particles")]).sum();
    let z = rows
        .iter()
        .map(|r| r[0] * r[col(&h, "particles")])
        .sum::<f64>()
        / n;
    assert_eq!(n, 300.0);
    assert!(z > 3.0 && z < 7.0, "mean Z = {z}\n{so}");

    // forces: a probability density over f/<f>
    talus(&["analyze", run_s, "forces", "--bins", "20"]);
    let (h, rows) = read_csv(&out.join("forces.csv"));
    let integral: f64 = rows.iter().map(|r| r[col(&h, "pdf")] * (r[1] - r[0])).sum();
    assert!((integral - 1.0).abs() < 1e-9, "{integral}");

    // velocity: every particle binned; the bed is nearly at rest
    talus(&["analyze", run_s, "velocity", "--bins", "6"]);
    let (h, rows) = read_csv(&out.join("velocity.csv"));
    assert_eq!(
        rows.iter().map(|r| r[col(&h, "particles")]).sum::<f64>(),
        300.0
    );

    // plane-flow: what fell through z = 3 mm, downwards
    talus(&[
        "analyze",
        run_s,
        "plane-flow",
        "--axis",
        "-z",
        "--at",
        "-0.003",
    ]);
    let (h, rows) = read_csv(&out.join("plane-flow.csv"));
    let net: f64 = rows.iter().map(|r| r[col(&h, "net")]).sum();
    assert!(net > 0.0, "{net}");

    // a flat bed: a small angle
    let (so, _) = talus(&["analyze", run_s, "repose", "--bins", "12"]);
    let (h, rows) = read_csv(&out.join("repose.csv"));
    assert_eq!(rows.len(), 12);
    assert!(rows.iter().all(|r| r[col(&h, "top")] > 0.002), "{so}");

    // flow: a discharge of 0.3 kg/s between t = 1 and 2 s
    let mut flow = String::from("t,outlet,count,mass\n");
    for k in 0..=30 {
        let t = 0.1 * k as f64;
        let m = 0.3 * (t - 1.0).clamp(0.0, 1.0);
        flow += &format!(
            "{t:e},corner,{},{m:e}\n{t:e},domain,0,0e0\n",
            (m * 1000.0) as u64
        );
    }
    std::fs::write(run.join("flow.csv"), flow).unwrap();
    let (so, _) = talus(&["analyze", run_s, "flow"]);
    assert!(so.contains("steady rate 3.000000e-1 kg/s"), "{so}");
    let (h, rows) = read_csv(&out.join("flow.csv"));
    assert_eq!(rows.len(), 31);
    assert!((rows[15][col(&h, "rate")] - 0.3).abs() < 1e-9);

    for verb in [
        "fraction",
        "layers",
        "radial",
        "coordination",
        "forces",
        "velocity",
        "plane-flow",
        "repose",
        "flow",
    ] {
        png_has_content(&out.join(format!("{verb}.png")));
    }
    // `all`, into another directory
    let other = dir.join("all");
    let (so, _) = talus(&["analyze", run_s, "all", "--out", other.to_str().unwrap()]);
    assert!(
        so.contains("[coordination]") && so.contains("[flow]"),
        "{so}"
    );
    assert!(other.join("layers.csv").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}
