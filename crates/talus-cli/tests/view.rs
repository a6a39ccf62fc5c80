//! The viewer's host side: the camera, the colour maps and legends, the
//! VTU / PVD reader (bit-exact against the writers), replay of a real run
//! made with the binary, and the window itself under Xvfb (skipped with
//! the reason printed when `xvfb-run` or a GPU adapter is missing, unless
//! TALUS_REQUIRE_GPU=1).

use glam::{Vec3, Vec4};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use talus::io::vtk;
use talus::io::walls::write_walls_vtu;
use talus::scene::{Material, SceneBuilder};
use talus::state::Particles;
use talus_view::camera::Camera;
use talus_view::colormap::{categorical, luminance, table, ColorBy, Legend};
use talus_view::replay::Run;
use talus_view::window::NO_DISPLAY;

fn clip(cam: &Camera, aspect: f32, p: [f64; 3]) -> Vec3 {
    let c = cam.view_proj(aspect) * Vec4::new(p[0] as f32, p[1] as f32, p[2] as f32, 1.0);
    assert!(c.w > 0.0, "{p:?} is behind the eye");
    c.truncate() / c.w
}

fn corners(lo: [f64; 3], hi: [f64; 3]) -> Vec<[f64; 3]> {
    (0..8)
        .map(|k| {
            [
                if k & 1 == 0 { lo[0] } else { hi[0] },
                if k & 2 == 0 { lo[1] } else { hi[1] },
                if k & 4 == 0 { lo[2] } else { hi[2] },
            ]
        })
        .collect()
}

const GRAVITIES: [[f64; 3]; 5] = [
    [0.0, 0.0, -9.81],
    [0.0, -9.81, 0.0],
    [9.81, 0.0, 0.0],
    [1.0, 2.0, -3.0],
    [0.0, 0.0, 0.0],
];

#[test]
fn framing_shows_the_whole_box() {
    let boxes = [
        ([-0.1, -0.1, 0.0], [0.1, 0.1, 0.16]),
        ([0.0, 0.0, 0.0], [0.04, 0.04, 0.12]),
        ([0.0, 0.0, 0.0], [1.0, 0.02, 0.02]),
        ([-5.0, 3.0, 100.0], [-4.0, 3.5, 100.1]),
    ];
    for (lo, hi) in boxes {
        for g in GRAVITIES {
            let cam = Camera::frame(lo, hi, g);
            for aspect in [1.0, 16.0 / 9.0, 2.5] {
                for c in corners(lo, hi) {
                    let p = clip(&cam, aspect, c);
                    assert!(
                        p.x.abs() < 1.0 && p.y.abs() < 1.0 && p.z > 0.0 && p.z < 1.0,
                        "box {lo:?}..{hi:?} g {g:?} aspect {aspect}: corner {c:?} at {p}"
                    );
                }
            }
        }
    }
}

#[test]
fn gravity_points_down_the_image() {
    let (lo, hi) = ([0.0; 3], [0.1, 0.1, 0.1]);
    for g in GRAVITIES {
        let mut cam = Camera::frame(lo, hi, g);
        let down = if g == [0.0; 3] {
            Vec3::NEG_Z
        } else {
            Vec3::new(g[0] as f32, g[1] as f32, g[2] as f32).normalize()
        };
        for (yaw, pitch) in [(0.0, 0.0), (1.0, 0.5), (-2.0, -0.7), (3.0, 1.2)] {
            cam.yaw = yaw;
            cam.pitch = pitch;
            let t = cam.target;
            let a = t - 0.02 * down;
            let b = t + 0.02 * down;
            let pa = clip(&cam, 1.0, [a.x as f64, a.y as f64, a.z as f64]);
            let pb = clip(&cam, 1.0, [b.x as f64, b.y as f64, b.z as f64]);
            assert!(
                pa.y > pb.y + 1e-3,
                "g {g:?} yaw {yaw} pitch {pitch}: above at {pa}, below at {pb}"
            );
            assert!((pa.x - pb.x).abs() < 1e-3, "the vertical leans: {pa} {pb}");
        }
    }
}

#[test]
fn orbit_pan_and_zoom_change_what_they_should() {
    let cam0 = Camera::frame([0.0; 3], [1.0; 3], [0.0, 0.0, -9.81]);
    let mut c = cam0;
    c.orbit(0.3, 0.1);
    assert_eq!(c.target, cam0.target);
    assert!((c.distance - cam0.distance).abs() < 1e-6);
    assert!(((c.eye() - c.target).length() - cam0.distance).abs() < 1e-4);
    assert!((c.eye() - cam0.eye()).length() > 0.1);
    assert!(
        c.eye().z > cam0.eye().z,
        "a positive dy (a drag down) raises the eye"
    );
    c.orbit(0.0, 10.0);
    assert!(c.pitch < 89.5f32.to_radians(), "pitch is clamped");

    let mut z = cam0;
    z.zoom(2.0);
    assert!((z.distance - cam0.distance / 2.0).abs() < 1e-5);
    assert_eq!(z.target, cam0.target);
    assert!((z.direction() - cam0.direction()).length() < 1e-6);
    z.zoom(0.0);
    z.zoom(f32::NAN);
    assert!(
        (z.distance - cam0.distance / 2.0).abs() < 1e-5,
        "bad factors ignored"
    );

    let mut p = cam0;
    p.pan(0.1, 0.0);
    assert!((p.direction() - cam0.direction()).length() < 1e-6);
    assert!((p.distance - cam0.distance).abs() < 1e-6);
    let moved = p.target - cam0.target;
    assert!(moved.length() > 0.0);
    assert!(
        moved.dot(cam0.up).abs() < 1e-5,
        "a sideways pan stays level"
    );
    // the target moved left on screen, so the old target appears to the right
    let old = clip(&p, 1.0, cam0.target.as_dvec3().to_array());
    assert!(old.x > 0.01, "{old}");
}

#[test]
fn camera_specs() {
    let cam0 = Camera::frame([0.0; 3], [1.0; 3], [0.0, 0.0, -9.81]);
    let mut c = cam0;
    c.apply_spec("yaw=30, pitch=20,zoom=1.5").unwrap();
    assert!((c.yaw - 30f32.to_radians()).abs() < 1e-6);
    assert!((c.pitch - 20f32.to_radians()).abs() < 1e-6);
    assert!((c.distance - cam0.distance / 1.5).abs() < 1e-5);

    let mut e = cam0;
    e.apply_spec("target=0,0,0,eye=2,0,2").unwrap();
    assert_eq!(e.target, Vec3::ZERO);
    assert!(
        (e.eye() - Vec3::new(2.0, 0.0, 2.0)).length() < 1e-4,
        "{}",
        e.eye()
    );
    e.apply_spec("fov=50,distance=3").unwrap();
    assert!((e.fov_y - 50f32.to_radians()).abs() < 1e-6 && e.distance == 3.0);

    for bad in [
        "yaw",
        "zoom=0",
        "zoom=x",
        "eye=1,2",
        "spin=3",
        "fov=200",
        "eye=0.5,0.5,0.5",
    ] {
        let mut b = cam0;
        let err = b.apply_spec(bad).unwrap_err();
        assert!(err.starts_with("--camera"), "{bad}: {err}");
        assert!(!err.contains('\n'));
        assert_eq!(b, cam0, "{bad}: the camera changed");
    }
}

#[test]
fn the_sequential_map_is_monotone() {
    let t = table();
    assert_eq!(t.len(), 256);
    for c in &t {
        assert!(c.iter().all(|x| (0.0..=1.0).contains(x)), "{c:?}");
        assert_eq!(c[3], 1.0);
    }
    for w in t.windows(2) {
        assert!(luminance(w[1]) > luminance(w[0]), "{w:?}");
    }
    assert!(luminance(t[0]) < 0.03, "dark start: {:?}", t[0]);
    assert!(luminance(t[255]) > 0.6, "light end: {:?}", t[255]);
    // not grey: the ends differ in hue
    assert!(t[0][2] > t[0][1] && t[255][0] > t[255][2]);
}

#[test]
fn categorical_colours_are_distinct() {
    let d = |a: [f32; 4], b: [f32; 4]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    let c: Vec<[f32; 4]> = (0..64).map(categorical).collect();
    for i in 0..c.len() {
        assert_eq!(c[i][3], 1.0);
        for j in 0..i {
            let min = if i < 10 { 0.1 } else { 0.01 };
            assert!(d(c[i], c[j]) > min, "{i} {j}: {:?} {:?}", c[i], c[j]);
        }
    }
    assert_eq!(categorical(3), categorical(3));
}

#[test]
fn colour_fields_parse_and_cycle() {
    for by in ColorBy::ALL {
        assert_eq!(ColorBy::parse(by.name()).unwrap(), by);
        assert_eq!(ColorBy::parse(&by.name().to_uppercase()).unwrap(), by);
    }
    assert!(ColorBy::parse("temperature").unwrap_err().contains("speed"));
    assert_eq!(ColorBy::Speed.unit(), "m/s");
    assert_eq!(ColorBy::Height.unit(), "m");
    assert_eq!(ColorBy::Id.unit(), "");
    let mut by = ColorBy::default();
    let mut seen = vec![by];
    for _ in 0..4 {
        by = by.next();
        seen.push(by);
    }
    assert_eq!(by.next(), ColorBy::Speed);
    seen.sort_by_key(|b| b.name());
    seen.dedup();
    assert_eq!(seen.len(), 5);
}

#[test]
fn legends_cover_the_values() {
    let l = Legend::for_values(ColorBy::Speed, &[0.5, 2.0, f32::NAN, 1.0, f32::INFINITY]);
    assert_eq!(
        (l.min, l.max),
        (0.0, 2.0),
        "speed from 0, non-finite ignored"
    );
    let h = Legend::for_values(ColorBy::Height, &[0.1, 0.3, 0.2]);
    assert_eq!((h.min, h.max), (0.1, 0.3));
    let same = Legend::for_values(ColorBy::Radius, &[0.001; 4]);
    assert!(same.min < 0.001 && same.max > 0.001 && same.min > 0.0);
    assert!((same.normalise(0.001) - 0.5).abs() < 1e-5);
    let zero = Legend::for_values(ColorBy::Height, &[0.0, 0.0]);
    assert!(zero.min < 0.0 && zero.max > 0.0);
    let still = Legend::for_values(ColorBy::Speed, &[0.0, 0.0]);
    assert_eq!((still.min, still.max), (0.0, 1.0));
    let empty = Legend::for_values(ColorBy::Speed, &[]);
    assert_eq!((empty.min, empty.max), (0.0, 1.0));
    let nan = Legend::for_values(ColorBy::Height, &[f32::NAN]);
    assert_eq!((nan.min, nan.max), (0.0, 1.0));
    let m = Legend::for_values(ColorBy::Material, &[0.0, 2.0, 1.0]);
    assert_eq!((m.min, m.max), (0.0, 2.0));

    assert_eq!(h.normalise(0.1), 0.0);
    assert_eq!(h.normalise(0.3), 1.0);
    assert!((h.normalise(0.2) - 0.5).abs() < 1e-6);
    assert_eq!(h.normalise(-5.0), 0.0);
    assert_eq!(h.normalise(5.0), 1.0);
    assert_eq!(h.normalise(f32::NAN), 0.0);
    assert_eq!(h.normalise(f32::INFINITY), 1.0);
    assert_eq!(h.normalise(f32::NEG_INFINITY), 0.0);
    let flat = Legend {
        by: ColorBy::Height,
        min: 1.0,
        max: 1.0,
    };
    assert_eq!(flat.normalise(1.0), 0.5);
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("view_{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn odd_particles() -> Particles<f64> {
    let vals = [
        0.1,
        -0.0,
        1e-300,
        f64::MIN_POSITIVE / 3.0,
        -2.5e7,
        std::f64::consts::PI,
        0.1 + 0.2,
    ];
    let n = 7;
    let v = |i: usize, k: usize| vals[(i * 3 + k) % vals.len()];
    Particles {
        pos_rad: (0..n)
            .map(|i| [v(i, 0), v(i, 1), v(i, 2), 0.001 + i as f64 * 1e-5])
            .collect(),
        vel_invm: (0..n)
            .map(|i| [v(i, 3), v(i, 4), v(i, 5), 1.0 / (1.0 + i as f64)])
            .collect(),
        omega_invi: (0..n).map(|i| [v(i, 6), v(i, 7), v(i, 8), 0.0]).collect(),
        material: (0..n as u32).map(|i| i % 3).collect(),
        id: (0..n as u32).map(|i| 1000 + 7 * i).collect(),
        dissipated: (0..n).map(|i| v(i, 9).abs()).collect(),
    }
}

fn bits(v: &[[f64; 4]], comps: usize) -> Vec<u64> {
    v.iter()
        .flat_map(|a| a[..comps].iter().map(|x| x.to_bits()))
        .collect()
}

#[test]
fn particle_snapshots_read_back_bit_exact() {
    let dir = tmp("vtu");
    let scene = SceneBuilder::new("x")
        .material(Material::new("glass", 2500.0, 5e6))
        .build_unchecked();
    let p = odd_particles();
    let path = dir.join("particles_00000.vtu");
    vtk::write_vtu(&path, &p, &scene).unwrap();
    let vtu = vtk::read_vtu(&path).unwrap();
    assert_eq!((vtu.points, vtu.cells), (7, 7));
    let q = vtu.particles().unwrap();
    assert_eq!(bits(&q.pos_rad, 4), bits(&p.pos_rad, 4));
    assert_eq!(bits(&q.vel_invm, 3), bits(&p.vel_invm, 3));
    assert_eq!(bits(&q.omega_invi, 3), bits(&p.omega_invi, 3));
    assert_eq!(q.material, p.material);
    assert_eq!(q.id, p.id);
    let db: Vec<u64> = q.dissipated.iter().map(|x| x.to_bits()).collect();
    let pb: Vec<u64> = p.dissipated.iter().map(|x| x.to_bits()).collect();
    assert_eq!(db, pb);
    let mass = vtu.point_f64("mass", 1).unwrap();
    for (m, a) in mass.iter().zip(&p.vel_invm) {
        assert_eq!(m.to_bits(), (1.0 / a[3]).to_bits());
    }

    // a non-finite value (talus writes none) is refused, naming the point
    for what in ["radius", "position", "velocity"] {
        let mut bad = p.clone();
        match what {
            "radius" => bad.pos_rad[2][3] = f64::NAN,
            "position" => bad.pos_rad[2][1] = f64::INFINITY,
            _ => bad.vel_invm[2][2] = f64::NAN,
        }
        let path = dir.join(format!("bad-{what}.vtu"));
        vtk::write_vtu(&path, &bad, &scene).unwrap();
        let e = vtk::read_vtu(&path).unwrap().particles().unwrap_err();
        assert!(
            e.starts_with(&format!("point 2 (id {}): {what} not finite", p.id[2])),
            "{e}"
        );
    }

    // empty snapshot
    let e = Particles::<f64> {
        pos_rad: vec![],
        vel_invm: vec![],
        omega_invi: vec![],
        material: vec![],
        id: vec![],
        dissipated: vec![],
    };
    let path = dir.join("empty.vtu");
    vtk::write_vtu(&path, &e, &scene).unwrap();
    assert_eq!(vtk::read_vtu(&path).unwrap().particles().unwrap().len(), 0);

    // pvd
    let entries = vec![(0.0, "a.vtu".to_string()), (1.25e-3, "b.vtu".to_string())];
    let listed = talus::io::series::one_part(entries.clone());
    talus::io::series::write_pvd(&dir.join("p.pvd"), &listed).unwrap();
    assert_eq!(vtk::read_pvd(&dir.join("p.pvd")).unwrap(), entries);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wall_snapshots_read_back_bit_exact() {
    let dir = tmp("walls");
    let t = |o: f64| [[o, 0.0, 0.0], [1.0, o, 0.1], [0.0, 1.0, -0.0]];
    let walls = vec![(0usize, vec![t(0.0), t(0.3)]), (2usize, vec![t(1e-9)])];
    let path = dir.join("walls_00000.vtu");
    write_walls_vtu(&path, &walls).unwrap();
    let got = vtk::read_vtu(&path).unwrap().triangles().unwrap();
    let want: Vec<([[f64; 3]; 3], u32)> = walls
        .iter()
        .flat_map(|(w, ts)| ts.iter().map(move |t| (*t, *w as u32)))
        .collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.1, w.1);
        for (a, b) in g.0.iter().flatten().zip(w.0.iter().flatten()) {
            // -0 and +0 share a vertex in the writer (the first one seen)
            assert!(
                a.to_bits() == b.to_bits() || (*a == 0.0 && *b == 0.0),
                "{a} {b}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_files_give_one_error_line() {
    let dir = tmp("broken");
    let scene = SceneBuilder::new("x")
        .material(Material::new("glass", 2500.0, 5e6))
        .build_unchecked();
    let path = dir.join("p.vtu");
    vtk::write_vtu(&path, &odd_particles(), &scene).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    for cut in [bytes.len() - 40, bytes.len() / 2, 10, 0] {
        cases.push(("cut", bytes[..cut].to_vec()));
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    cases.push((
        "ascii",
        text.replacen("format=\"appended\"", "format=\"ascii\"", 1)
            .into_bytes(),
    ));
    cases.push((
        "big-endian",
        text.replacen("LittleEndian", "BigEndian", 1).into_bytes(),
    ));
    cases.push((
        "garbage",
        b"<VTKFile><AppendedData encoding=\"raw\">_\x01".to_vec(),
    ));
    cases.push((
        "offset",
        text.replacen("offset=\"0\"", "offset=\"99999999999\"", 1)
            .into_bytes(),
    ));
    for (what, b) in cases {
        let p = dir.join(format!("{what}.vtu"));
        std::fs::write(&p, &b).unwrap();
        let e = vtk::read_vtu(&p).expect_err(what);
        assert!(!e.contains('\n'), "{what}: {e}");
        assert!(e.contains(&*p.display().to_string()), "{what}: {e}");
        // and nothing panics on the particles of a file that parses
        if let Ok(v) = vtk::parse_vtu(&b) {
            let _ = v.particles();
        }
    }
    let e = vtk::read_vtu(&dir.join("missing.vtu")).unwrap_err();
    assert!(!e.contains('\n'));
    std::fs::write(dir.join("bad.pvd"), "hello").unwrap();
    assert!(vtk::read_pvd(&dir.join("bad.pvd")).is_err());
    let e = Run::open(&dir).unwrap_err();
    assert!(e.contains("particles.pvd"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

const TINY: &str = r#"
[simulation]
duration = 0.01
dt = "auto"
gravity = [0.0, -9.81, 0.0]
output_interval = 0.0025

[domain]
min = [0.0, 0.0, 0.0]
max = [0.012, 0.02, 0.012]
periodic = [false, false, false]

[contact]
model = "hertz_mindlin"

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.5

[[particles]]
generator = "lattice"
region = { min = [0.0, 0.0, 0.0], max = [0.012, 0.012, 0.012] }
radius = 0.001
material = "glass"
count = 125

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
material = "glass"
"#;

/// A tiny run made with the binary (once): 125 spheres settling on a
/// floor, gravity along −y, 5 snapshots.
fn tiny_run() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view_run");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let scene = dir.join("tiny.toml");
        std::fs::write(&scene, TINY).unwrap();
        let out = dir.join("out");
        let o = Command::new(env!("CARGO_BIN_EXE_talus"))
            .args(["run", "--backend", "cpu", "--quiet", "--out"])
            .arg(&out)
            .arg(&scene)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "talus run: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    })
}

#[test]
fn replay_reads_a_real_run() {
    let dir = tiny_run();
    let run = Run::open(dir).unwrap();
    assert!(run.len() >= 4, "{} snapshots", run.len());
    assert_eq!(run.time(0), 0.0);
    assert!(run.time(run.len() - 1) > 0.009);
    assert_eq!(run.gravity(), [0.0, -9.81, 0.0], "gravity from the scene");
    assert_eq!(run.domain(), ([0.0; 3], [0.012, 0.02, 0.012]));
    assert_eq!(run.name(), "tiny");
    let f0 = run.frame(0).unwrap();
    assert_eq!(f0.len(), 125);
    assert_eq!(f0.step, 0);
    assert_eq!(f0.velocity.len(), 125);
    assert!(f0.pos_rad.iter().all(|p| p[3] == 0.001));
    assert_eq!(f0.walls.len(), 2, "the floor: one rectangle");
    assert!(f0
        .walls
        .iter()
        .all(|(t, w)| *w == 0 && t.iter().all(|v| v[1] == 0.0)));
    let last = run.frame(run.len() - 1).unwrap();
    assert!(last.step > 0 && last.time > 0.0);
    let fell = f0
        .pos_rad
        .iter()
        .zip(&last.pos_rad)
        .filter(|(a, b)| b[1] < a[1])
        .count();
    assert!(fell > 60, "{fell} spheres moved down −y");
    assert!(last.scalar(ColorBy::Speed).iter().any(|&s| s > 0.0));
    assert!(run.frame(run.len()).is_err());

    // without the scene file the domain is the snapshots' bounds
    let copy = tmp("copy");
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".vtu") || name.ends_with(".pvd") {
            std::fs::copy(e.path(), copy.join(&name)).unwrap();
        }
    }
    let bare = Run::open(&copy).unwrap();
    assert_eq!(bare.gravity(), [0.0, 0.0, -9.81]);
    let (lo, hi) = bare.domain();
    assert!(
        lo[1] <= 0.0 && hi[1] >= 0.0105 && hi[0] >= 0.012 - 1e-6,
        "{lo:?} {hi:?}"
    );
    assert_eq!(bare.frame(1).unwrap().len(), 125);
    let _ = std::fs::remove_dir_all(&copy);
}

#[test]
fn view_without_a_display_says_so() {
    let o = Command::new(env!("CARGO_BIN_EXE_talus"))
        .arg("view")
        .arg(tiny_run())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end(), NO_DISPLAY, "{err}");
}

/// One Xvfb at a time: `xvfb-run -a` picks a free server number by its
/// lock files, and two tests starting at once can pick the same one (CI
/// saw "Failed to open connection to X server" and "problem while cleaning
/// up temporary directory"). Each window test holds this for its body.
fn xvfb_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// `xvfb-run`'s arguments with a server number of its own: a number no
/// earlier window test of this process used (two runs in a row with `-a`
/// could meet the previous server still shutting down on the number it
/// freed: CI saw "Failed to open connection to X server"), spread by the
/// process id so that two test processes do not meet either.
fn xvfb_args() -> Vec<String> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let n = 200 + (std::process::id() % 500) * 16 + k % 16;
    vec![
        "-n".into(),
        n.to_string(),
        "-s".into(),
        "-screen 0 1280x1024x24".into(),
    ]
}

fn xvfb_or_skip() -> bool {
    let found = Command::new("xvfb-run").arg("--help").output().is_ok();
    if !found {
        if std::env::var("TALUS_REQUIRE_GPU").is_ok_and(|v| v == "1") {
            panic!("TALUS_REQUIRE_GPU=1 but xvfb-run is missing (apt-get install xvfb)");
        }
        eprintln!("skipping the window test: xvfb-run is missing (apt-get install xvfb)");
    }
    found
}

#[test]
fn the_window_draws_the_run_under_xvfb() {
    if !xvfb_or_skip() || talus::gpu::context::test_context().is_none() {
        return;
    }
    let _one_xvfb = xvfb_lock();
    let dir = tiny_run();
    let shot = dir.join("shot.png");
    let _ = std::fs::remove_file(&shot);
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").unwrap_or_else(|| {
        let d = tmp("xdg");
        d.into_os_string()
    });
    let o = Command::new("xvfb-run")
        .args(xvfb_args())
        .arg(env!("CARGO_BIN_EXE_talus"))
        .arg("view")
        .arg(dir)
        .args(["--camera", "yaw=-60,pitch=20"])
        .args(["--frames", "5"])
        .arg("--screenshot")
        .arg(&shot)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "talus view: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let (w, h, buf) = read_png(&shot);
    assert!(w >= 100 && h >= 100, "{w}x{h}");
    let px = |x: usize, y: usize| &buf[(y * w + x) * 4..][..3];
    let bg = px(1, h / 2).to_vec(); // the left edge: background
    let differs = |p: &[u8]| p.iter().zip(&bg).any(|(a, b)| a.abs_diff(*b) > 12);
    // the bed: the middle of the picture, away from the overlay's corners
    let mut drawn = 0;
    let mut total = 0;
    for y in h / 4..3 * h / 4 {
        for x in w / 4..3 * w / 4 {
            total += 1;
            if differs(px(x, y)) {
                drawn += 1;
            }
        }
    }
    assert!(
        drawn * 10 > total,
        "only {drawn} of {total} central pixels drawn"
    );
}

/// `talus run --view` on the GPU path under Xvfb: the window draws the
/// simulation's buffers, closes after 4 frames, the run goes on and ends
/// with the same state as without the window.
#[test]
fn run_view_draws_the_live_simulation_under_xvfb() {
    if !xvfb_or_skip() || talus::gpu::context::test_context().is_none() {
        return;
    }
    let _one_xvfb = xvfb_lock();
    let dir = tmp("live");
    let scene = dir.join("tiny.toml");
    std::fs::write(&scene, TINY).unwrap();
    // the GPU path drawn from its buffers, the CPU path from its state
    for be in ["gpu", "cpu"] {
        let shot = dir.join(format!("live-{be}.png"));
        let run = |out: &str, view: bool| {
            let mut c = if view {
                let mut c = Command::new("xvfb-run");
                c.args(xvfb_args()).arg(env!("CARGO_BIN_EXE_talus"));
                c
            } else {
                Command::new(env!("CARGO_BIN_EXE_talus"))
            };
            c.args(["run", "--backend", be, "--quiet", "--out"])
                .arg(dir.join(format!("{out}-{be}")))
                .arg(&scene)
                .env_remove("WAYLAND_DISPLAY");
            if view {
                c.args(["--view", "--frames", "4", "--screenshot"])
                    .arg(&shot);
            }
            let o = c.output().unwrap();
            assert!(
                o.status.success(),
                "talus run --backend {be} (view {view}): {}",
                String::from_utf8_lossy(&o.stderr)
            );
        };
        run("live", true);
        run("plain", false);
        let a = std::fs::read(dir.join(format!("live-{be}/final.csv"))).unwrap();
        let b = std::fs::read(dir.join(format!("plain-{be}/final.csv"))).unwrap();
        assert!(a == b, "{be}: the window changed the run");
        let (w, h, buf) = read_png(&shot);
        let drawn = central_drawn(w, h, &buf);
        assert!(
            drawn * 10 > w * h / 4,
            "{be}: only {drawn} central pixels drawn"
        );
    }
}

#[test]
fn run_view_refuses_without_display() {
    let dir = tmp("live_refuse");
    let scene = dir.join("tiny.toml");
    std::fs::write(&scene, TINY).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_talus"))
        .args(["run", "--backend", "gpu", "--view", "--out"])
        .arg(dir.join("out"))
        .arg(&scene)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(NO_DISPLAY), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!dir.join("out").exists(), "nothing ran");
}

/// `talus run --view` drawing offscreen (`--offscreen`, no
/// display needed): the GPU path drawn between its submissions, the CPU
/// path between pieces; the frames are drawn (the view closes after the
/// third), the run ends with the same bytes as without the view, and the
/// screenshot shows the bed.
#[test]
fn run_view_offscreen_draws_without_a_display() {
    if talus::gpu::context::test_context().is_none() {
        return;
    }
    let dir = tmp("live_offscreen");
    let scene = dir.join("tiny.toml");
    std::fs::write(&scene, TINY).unwrap();
    // the CPU path runs these 125 beads in a few µs a step: steps enough
    // for the run to outlast three frames (33 ms apart)
    for (be, steps) in [("gpu", "3000"), ("cpu", "100000")] {
        let shot = dir.join(format!("off-{be}.png"));
        let _ = std::fs::remove_file(&shot);
        let run = |out: &str, view: bool| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_talus"));
            c.args(["run", "--backend", be, "--steps", steps, "--quiet", "--out"])
                .arg(dir.join(format!("{out}-{be}")))
                .arg(&scene)
                .env_remove("DISPLAY")
                .env_remove("WAYLAND_DISPLAY");
            if view {
                c.arg("--view")
                    .args(["--offscreen", "320x200"])
                    .args(["--frames", "3"])
                    .arg("--screenshot")
                    .arg(&shot);
            }
            let o = c.output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr).to_string();
            assert!(
                o.status.success(),
                "talus run --backend {be} (view {view}): {err}"
            );
            err
        };
        let err = run("view", true);
        assert!(
            err.contains("view closed"),
            "{be}: fewer than 3 frames drawn: {err}"
        );
        run("plain", false);
        let a = std::fs::read(dir.join(format!("view-{be}/final.csv"))).unwrap();
        let b = std::fs::read(dir.join(format!("plain-{be}/final.csv"))).unwrap();
        assert!(a == b, "{be}: the view changed the run");
        let (w, h, buf) = read_png(&shot);
        assert_eq!((w, h), (320, 200));
        let drawn = central_drawn(w, h, &buf);
        assert!(
            drawn * 10 > w * h / 4,
            "{be}: only {drawn} central pixels drawn"
        );
    }
    // a bad size is one line, before the run starts
    let o = Command::new(env!("CARGO_BIN_EXE_talus"))
        .args(["run", "--backend", "gpu", "--view", "--out"])
        .arg(dir.join("bad"))
        .arg(&scene)
        .args(["--offscreen", "wide"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--offscreen \"wide\""), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Pixels of the picture's central half (in each direction) that differ
/// from the background at the left edge's middle by more than 12 levels.
fn central_drawn(w: usize, h: usize, buf: &[u8]) -> usize {
    let bg = &buf[(h / 2 * w) * 4..][..3];
    (h / 4..3 * h / 4)
        .flat_map(|y| (w / 4..3 * w / 4).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = &buf[(y * w + x) * 4..][..3];
            p.iter().zip(bg).any(|(a, b)| a.abs_diff(*b) > 12)
        })
        .count()
}

fn read_png(path: &Path) -> (usize, usize, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    (info.width as usize, info.height as usize, buf)
}

/// The overlay counts particles, not spheres: a clump's members share its
/// id (two dumbbells and a sphere: 3 particles of 5 spheres); spheres alone
/// are counted as before.
#[test]
fn the_overlay_counts_a_clump_once() {
    use talus_view::frame::Frame;
    use talus_view::headless::frame_lines;
    let mut f = Frame {
        id: vec![4, 4, 9, 7, 7],
        pos_rad: vec![[0.0; 4]; 5],
        ..Default::default()
    };
    let lines = frame_lines(&f, ColorBy::Id, "");
    assert!(
        lines.contains(&"3 particles (5 spheres)".to_string()),
        "{lines:?}"
    );
    f.id = vec![1, 2, 3, 4, 5];
    let lines = frame_lines(&f, ColorBy::Id, "");
    assert!(lines.contains(&"5 particles".to_string()), "{lines:?}");
}
