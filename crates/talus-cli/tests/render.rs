//! The viewer's renderer, checked on pictures in memory: where a bed is,
//! colours following the field, the clip plane, the overlay, the live path
//! (the simulation's own buffers) against a host frame, and `talus render`
//! through the binary. GPU tests skip with a printed reason when no adapter
//! exists, unless TALUS_REQUIRE_GPU=1 (CI, on lavapipe).

// the engine tests' helpers (scenes, beds, comparisons)
#[path = "../../talus/tests/common/mod.rs"]
mod common;

use std::path::Path;
use talus::gpu::context::{test_context, GpuContext};
use talus::gpu::GpuBackend;
use talus::scene::SceneBuilder;
use talus_view::camera::Camera;
use talus_view::colormap::{self, ColorBy, Legend};
use talus_view::frame::Frame;
use talus_view::headless::{self, Image, Offscreen, FORMAT};
use talus_view::overlay;
use talus_view::render::Renderer;

const W: u32 = 240;
const H: u32 = 180;
const G: [f64; 3] = [0.0, 0.0, -9.81];

fn frame_of(pos: Vec<[f32; 4]>, vel: Vec<[f32; 3]>) -> Frame {
    let n = pos.len();
    Frame {
        pos_rad: pos,
        velocity: vel,
        material: vec![0; n],
        id: (0..n as u32).collect(),
        ..Default::default()
    }
}

/// A lattice of spheres of radius r filling [lo, hi], at rest.
fn lattice(lo: [f32; 3], hi: [f32; 3], r: f32) -> Frame {
    let mut pos = Vec::new();
    let mut z = lo[2] + r;
    while z <= hi[2] - r + 1e-6 {
        let mut y = lo[1] + r;
        while y <= hi[1] - r + 1e-6 {
            let mut x = lo[0] + r;
            while x <= hi[0] - r + 1e-6 {
                pos.push([x, y, z, r]);
                x += 2.0 * r;
            }
            y += 2.0 * r;
        }
        z += 2.0 * r;
    }
    let n = pos.len();
    frame_of(pos, vec![[0.0; 3]; n])
}

fn render(
    ctx: &GpuContext,
    r: &mut Renderer,
    f: &Frame,
    by: ColorBy,
    legend: &Legend,
    cam: &Camera,
) -> Image {
    r.set_frame(f, by, legend);
    Offscreen::new(ctx, W, H)
        .unwrap()
        .render(ctx, r, cam)
        .unwrap()
}

/// The background's pixel value (an empty picture's).
fn background(ctx: &GpuContext, r: &mut Renderer, cam: &Camera) -> [u8; 4] {
    let empty = Frame::default();
    let img = render(
        ctx,
        r,
        &empty,
        ColorBy::Speed,
        &Legend::for_values(ColorBy::Speed, &[]),
        cam,
    );
    let bg = img.pixel(0, 0);
    assert!(
        img.pixels.iter().all(|p| *p == bg),
        "an empty picture is uniform"
    );
    bg
}

fn is_bg(p: [u8; 4], bg: [u8; 4]) -> bool {
    (0..3).all(|k| (p[k] as i32 - bg[k] as i32).abs() <= 2)
}

/// Pixel (x, y) of a world point, if in the picture.
fn project(cam: &Camera, p: [f32; 3]) -> Option<(u32, u32)> {
    let c = cam.view_proj(W as f32 / H as f32) * glam::Vec4::new(p[0], p[1], p[2], 1.0);
    let (x, y) = (c.x / c.w, c.y / c.w);
    let px = ((x + 1.0) * 0.5 * W as f32).floor();
    let py = ((1.0 - y) * 0.5 * H as f32).floor();
    (px >= 0.0 && py >= 0.0 && px < W as f32 && py < H as f32).then_some((px as u32, py as u32))
}

/// Rows (top to bottom) of the picture holding any non-background pixel.
fn drawn_rows(img: &Image, bg: [u8; 4]) -> Vec<u32> {
    (0..img.height)
        .filter(|&y| (0..img.width).any(|x| !is_bg(img.pixel(x, y), bg)))
        .collect()
}

#[test]
fn a_bed_at_the_bottom_appears_low_in_the_picture() {
    let Some(ctx) = test_context() else { return };
    let t = std::time::Instant::now();
    let mut r = Renderer::new(&ctx, FORMAT);
    let cam = Camera::frame([0.0; 3], [1.0; 3], G);
    let bg = background(&ctx, &mut r, &cam);
    let bed = lattice([0.0; 3], [1.0, 1.0, 0.25], 0.05);
    let legend = Legend::for_values(ColorBy::Height, &bed.scalar(ColorBy::Height));
    let img = render(&ctx, &mut r, &bed, ColorBy::Height, &legend, &cam);
    let rows = drawn_rows(&img, bg);
    let drawn = img.pixels.iter().filter(|p| !is_bg(**p, bg)).count();
    println!(
        "{} spheres: {drawn} pixels drawn, rows {:?}..{:?}, {:?}",
        bed.len(),
        rows.first(),
        rows.last(),
        t.elapsed()
    );
    assert!(
        drawn > (W * H / 20) as usize,
        "the bed covers the picture's lower part"
    );
    // nothing in the top 40 %, and the bed reaches the lower third
    assert!(rows[0] > H * 2 / 5, "first drawn row {} of {H}", rows[0]);
    assert!(*rows.last().unwrap() > H * 2 / 3);
    // the same bed at the top of the domain (gravity still -z) is drawn higher
    let top = lattice([0.0, 0.0, 0.75], [1.0; 3], 0.05);
    let img2 = render(&ctx, &mut r, &top, ColorBy::Height, &legend, &cam);
    let rows2 = drawn_rows(&img2, bg);
    assert!(rows2[0] < rows[0] && rows2.last() < rows.last());
    // spheres are shaded: the centre of a sphere is lighter than its rim
    let c = project(
        &cam,
        bed.pos_rad[bed.len() / 2 + 2][..3].try_into().unwrap(),
    )
    .unwrap();
    assert!(!is_bg(img.pixel(c.0, c.1), bg));
}

/// Speed rising from left to right: the colour-map index of each sphere's
/// centre pixel rises with it.
#[test]
fn colours_follow_the_field() {
    let Some(ctx) = test_context() else { return };
    let mut r = Renderer::new(&ctx, FORMAT);
    let cam = Camera::frame([0.0; 3], [1.0; 3], G);
    let (right, _) = cam.screen_axes();
    let centre = glam::Vec3::splat(0.5);
    let n = 7;
    let mut pos = Vec::new();
    let mut vel = Vec::new();
    for k in 0..n {
        let p = centre + right * (k as f32 - 3.0) * 0.13;
        pos.push([p.x, p.y, p.z, 0.05]);
        vel.push([0.0, 0.0, -(k as f32) * 0.5]);
    }
    let f = frame_of(pos.clone(), vel);
    let legend = Legend::for_values(ColorBy::Speed, &f.scalar(ColorBy::Speed));
    let img = render(&ctx, &mut r, &f, ColorBy::Speed, &legend, &cam);
    // nearest entry of the map (sRGB-encoded as in the picture)
    let table: Vec<[f32; 3]> = colormap::table()
        .iter()
        .map(|c| [0, 1, 2].map(|k| encode(c[k]) * 255.0))
        .collect();
    let index = |p: [u8; 4]| {
        (0..table.len())
            .min_by(|&a, &b| {
                let d = |i: usize| {
                    (0..3)
                        .map(|k| (table[i][k] - p[k] as f32).powi(2))
                        .sum::<f32>()
                };
                d(a).total_cmp(&d(b))
            })
            .unwrap()
    };
    let mut idx = Vec::new();
    let mut xs = Vec::new();
    for p in &pos {
        let (x, y) = project(&cam, [p[0], p[1], p[2]]).unwrap();
        xs.push(x);
        idx.push(index(img.pixel(x, y)));
    }
    println!("centres at x {xs:?}: colour-map indices {idx:?}");
    assert!(xs.windows(2).all(|w| w[0] < w[1]), "left to right");
    assert!(idx.windows(2).all(|w| w[0] < w[1]), "indices rise: {idx:?}");
    assert!(
        idx[0] < 12 && idx[n - 1] > 243,
        "the range spans the map: {idx:?}"
    );
}

fn encode(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// A sheet of spheres across the view; a clip plane through its middle
/// (normal: the screen's right) hides the right half and keeps the left.
#[test]
fn the_clip_plane_hides_one_side() {
    let Some(ctx) = test_context() else { return };
    let mut r = Renderer::new(&ctx, FORMAT);
    let cam = Camera::frame([0.0; 3], [1.0; 3], G);
    let bg = background(&ctx, &mut r, &cam);
    let (right, up) = cam.screen_axes();
    let centre = glam::Vec3::splat(0.5);
    let mut pos = Vec::new();
    for i in -4..=4 {
        for j in -2..=2 {
            // off the plane by a quarter spacing, so no centre lies on it
            let p = centre + right * (i as f32 * 0.1 + 0.025) + up * (j as f32 * 0.1);
            pos.push([p.x, p.y, p.z, 0.04]);
        }
    }
    let n = pos.len();
    let f = frame_of(pos.clone(), vec![[0.0; 3]; n]);
    let legend = Legend::for_values(ColorBy::Speed, &f.scalar(ColorBy::Speed));
    let full = render(&ctx, &mut r, &f, ColorBy::Speed, &legend, &cam);
    r.clip = Some([right.x, right.y, right.z, -right.dot(centre)]);
    let cut = render(&ctx, &mut r, &f, ColorBy::Speed, &legend, &cam);
    r.clip = None;
    let count = |img: &Image| img.pixels.iter().filter(|p| !is_bg(**p, bg)).count();
    let (a, b) = (count(&full), count(&cut));
    println!("drawn pixels: {a} without the plane, {b} with it");
    assert!(b * 10 > a * 3 && b * 10 < a * 7, "about half hidden");
    for p in &pos {
        let v = glam::Vec3::new(p[0], p[1], p[2]);
        let (x, y) = project(&cam, [p[0], p[1], p[2]]).unwrap();
        assert!(!is_bg(full.pixel(x, y), bg));
        let hidden = right.dot(v - centre) > 0.0;
        assert_eq!(is_bg(cut.pixel(x, y), bg), hidden, "sphere at {v}");
    }
}

/// The overlay draws its text and legend where they belong and nothing
/// elsewhere; composited onto a picture it changes those pixels.
#[test]
fn the_overlay_draws_text_and_legend() {
    let t = std::time::Instant::now();
    let legend = Legend {
        by: ColorBy::Speed,
        min: 0.0,
        max: 2.5,
    };
    let (w, h) = (320u32, 200u32);
    let ov = overlay::draw(
        w,
        h,
        &["t = 0.0125 s  step 250".into(), "1234 particles".into()],
        &legend,
    );
    assert_eq!(ov.len(), (w * h) as usize);
    let at = |x: u32, y: u32| ov[(y * w + x) as usize];
    let any =
        |x0: u32, y0: u32, x1: u32, y1: u32| (y0..y1).any(|y| (x0..x1).any(|x| at(x, y)[3] > 0));
    assert!(any(8, 8, 150, 17), "the first line");
    assert!(any(8, 19, 100, 28), "the second line");
    assert!(!any(100, 60, 200, 120), "nothing in the middle");
    // the bar: the map's colours, low at the left
    let bar_y = h - 8 - 11 - 5;
    let left = at(w - 8 - 78, bar_y);
    let right = at(w - 10, bar_y);
    assert!(left[3] == 255 && right[3] == 255);
    assert!(
        colormap::luminance(left.map(|c| c as f32 / 255.0))
            < colormap::luminance(right.map(|c| c as f32 / 255.0)),
        "{left:?} {right:?}"
    );
    // composited over a uniform picture
    let mut img = vec![[28, 28, 30, 255]; (w * h) as usize];
    overlay::composite(&mut img, &ov);
    let changed = img.iter().filter(|p| **p != [28, 28, 30, 255]).count();
    let drawn = ov.iter().filter(|p| p[3] > 0).count();
    assert!(changed > 0 && changed <= drawn);
    assert!(img.iter().all(|p| p[3] == 255));
    println!("{drawn} overlay pixels, {:?}", t.elapsed());
}

/// Pixels whose colour differs by more than 2 levels, and the pixels
/// `a` draws (not background).
fn differ(a: &Image, b: &Image, bg: [u8; 4]) -> (usize, usize) {
    let d = a
        .pixels
        .iter()
        .zip(&b.pixels)
        .filter(|(p, q)| (0..3).any(|k| (p[k] as i32 - q[k] as i32).abs() > 2))
        .count();
    (d, a.pixels.iter().filter(|p| !is_bg(**p, bg)).count())
}

/// The particles of a snapshot (removed ones left out) as a host frame.
fn host_frame(sim: &mut GpuBackend) -> Frame {
    use talus::backend::Backend;
    let s = sim.snapshot();
    Frame {
        pos_rad: s.pos_rad.iter().map(|p| p.map(|x| x as f32)).collect(),
        velocity: s
            .vel_invm
            .iter()
            .map(|v| [v[0] as f32, v[1] as f32, v[2] as f32])
            .collect(),
        material: s.material.clone(),
        id: s.id.clone(),
        ..Default::default()
    }
}

/// The live path (the vertex shader reading the simulation's set B, the
/// scalar computed on the device) draws what the same particles read back
/// and uploaded as a host frame draw: at the start, after steps that
/// reorder set B, and with a particle marked removed (still in the count,
/// not drawn).
#[test]
fn the_live_path_draws_what_the_host_frame_draws() {
    use talus::backend::Backend;
    let Some(ctx) = test_context() else { return };
    let t = std::time::Instant::now();
    let m = common::glass(0.5, 0.3);
    let mut b = SceneBuilder::new("live")
        .domain([0.0; 3], [1.0; 3])
        .gravity(G)
        .material(m);
    let mut k = 0;
    for i in 0..5 {
        for j in 0..5 {
            let p = [
                0.15 + 0.17 * i as f64,
                0.15 + 0.17 * j as f64,
                0.3 + 0.05 * ((i + j) % 3) as f64,
            ];
            b = b.particle(p, [0.1 * k as f64, 0.0, 0.0], 0.06, "glass");
            k += 1;
        }
    }
    let scene = b.steps(2000).dt(5e-5).build().unwrap();
    let mut sim = GpuBackend::new(&scene, ctx).unwrap();
    let cam = Camera::frame([0.0; 3], [1.0; 3], G);
    let off = Offscreen::new(&sim.ctx, W, H).unwrap();
    let mut r = Renderer::new(&sim.ctx, FORMAT);
    let bg = background(&sim.ctx, &mut r, &cam);
    let mut last = None;
    for stage in 0..3 {
        if stage == 1 {
            sim.advance(500).unwrap();
        }
        if stage == 2 {
            sim.remove(&[7u32].into_iter().collect());
        }
        let frame = host_frame(&mut sim);
        for by in [ColorBy::Speed, ColorBy::Id, ColorBy::Height] {
            let legend = Legend::for_values(by, &frame.scalar(by));
            r.set_frame(&frame, by, &legend);
            let host = off.render(&sim.ctx, &r, &cam).unwrap();
            r.bind_simulation(&sim, by, &legend);
            assert_eq!(r.count(), 25, "marked particles stay in the count");
            let live = off.render(&sim.ctx, &r, &cam).unwrap();
            let (d, drawn) = differ(&host, &live, bg);
            println!("stage {stage}, {by:?}: {d} of {drawn} drawn pixels differ");
            assert!(
                drawn > 500 && d * 100 < drawn,
                "stage {stage}, {by:?}: {d} of {drawn}"
            );
            if by == ColorBy::Height {
                if let Some(prev) = &last {
                    let (moved, _) = differ(prev, &live, bg);
                    assert!(moved > 50, "stage {stage}: the picture changed");
                }
                last = Some(live);
            }
        }
        if stage == 2 {
            assert_eq!(frame.len(), 24);
        }
    }
    println!("{:?}", t.elapsed());
}

/// `talus run` on a tiny scene, then `talus render` through the binary:
/// one PNG per snapshot, of the size asked for.
#[test]
fn talus_render_writes_one_png_per_snapshot() {
    let Some(ctx) = test_context() else { return };
    drop(ctx);
    let bin = env!("CARGO_BIN_EXE_talus");
    let dir = std::env::temp_dir().join(format!("talus-render-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("drop.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let out = dir.join("run");
    let run = std::process::Command::new(bin)
        .args([
            "run",
            scene.to_str().unwrap(),
            "--backend",
            "cpu",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let vtus = count(&out, "particles_", ".vtu");
    assert!(vtus >= 3, "{vtus} snapshots");
    let frames = dir.join("frames");
    let r = std::process::Command::new(bin)
        .args([
            "render",
            out.to_str().unwrap(),
            "--size",
            "160x96",
            "--color-by",
            "height",
            "--out",
        ])
        .arg(&frames)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(stdout.contains("ffmpeg"), "{stdout}");
    assert_eq!(count(&frames, "frame_", ".png"), vtus);
    for k in 0..vtus {
        let f = std::fs::File::open(frames.join(format!("frame_{k:05}.png"))).unwrap();
        let dec = png::Decoder::new(std::io::BufReader::new(f));
        let reader = dec.read_info().unwrap();
        let info = reader.info();
        assert_eq!((info.width, info.height), (160, 96));
    }
    // every other snapshot
    let r = std::process::Command::new(bin)
        .args([
            "render",
            out.to_str().unwrap(),
            "--size",
            "64x48",
            "--every",
            "2",
            "--out",
        ])
        .arg(dir.join("half"))
        .output()
        .unwrap();
    assert!(r.status.success());
    assert_eq!(count(&dir.join("half"), "frame_", ".png"), vtus.div_ceil(2));
    // errors in one line, no panic
    let bad = std::process::Command::new(bin)
        .args(["render", dir.join("nothing").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let bad = std::process::Command::new(bin)
        .args(["render", out.to_str().unwrap(), "--size", "big"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--size"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn count(dir: &Path, prefix: &str, suffix: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name().into_string().unwrap();
            n.starts_with(prefix) && n.ends_with(suffix)
        })
        .count()
}

/// A few beads dropped onto a floor.
const SCENE: &str = r#"
[simulation]
duration = 0.006
dt = 2e-5
gravity = [0.0, 0.0, -9.81]
output_interval = 0.002

[domain]
min = [0.0, 0.0, 0.0]
max = [0.02, 0.02, 0.02]

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 5.0e6
poisson_ratio = 0.25
restitution = 0.5
friction = 0.3

[[particles]]
generator = "lattice"
region = { min = [0.002, 0.002, 0.002], max = [0.018, 0.018, 0.008] }
radius = 0.001
material = "glass"

[[walls]]
type = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "glass"
"#;

#[test]
fn sizes_parse() {
    assert_eq!(headless::parse_size("1280x720"), Ok((1280, 720)));
    assert!(headless::parse_size("12").is_err());
    // a limit is named as the limit, not as a malformed size
    let zero = headless::parse_size("0x10").unwrap_err();
    assert!(zero.contains("at least 1 pixel"), "{zero}");
    for big in ["100000x100000", "16385x10", "10x99999999999999999999"] {
        let e = headless::parse_size(big).unwrap_err();
        assert!(e.contains("at most 16384 pixels a side"), "{big}: {e}");
    }
    assert_eq!(headless::parse_size("16384x16384"), Ok((16384, 16384)));
}

/// `talus run --render-every T` leaves a picture at t = 0 and at the first
/// snapshot at or after each multiple of T, on either backend, and the
/// picture options alone (without --view or --render-every) are refused.
#[test]
fn run_render_every_writes_pictures_during_the_run() {
    let Some(ctx) = test_context() else { return };
    drop(ctx);
    let bin = env!("CARGO_BIN_EXE_talus");
    let dir = std::env::temp_dir().join(format!("talus-render-every-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("drop.toml");
    std::fs::write(&scene, SCENE).unwrap();
    for be in ["cpu", "gpu"] {
        let out = dir.join(be);
        let r = std::process::Command::new(bin)
            .args(["run", scene.to_str().unwrap(), "--backend", be, "--quiet"])
            .args(["--render-every", "0.004", "--size", "96x64", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        // snapshots every 2 ms over 6 ms: pictures at 0 and 4 ms
        let frames = out.join("frames");
        assert_eq!(count(&frames, "frame_", ".png"), 2, "{be}");
        let f = std::fs::File::open(frames.join("frame_00001.png")).unwrap();
        let info = png::Decoder::new(std::io::BufReader::new(f))
            .read_info()
            .unwrap()
            .info()
            .clone();
        assert_eq!((info.width, info.height), (96, 64));
    }
    let r = std::process::Command::new(bin)
        .args([
            "run",
            scene.to_str().unwrap(),
            "--steps",
            "5",
            "--color-by",
            "id",
            "--out",
        ])
        .arg(dir.join("x"))
        .output()
        .unwrap();
    assert!(!r.status.success());
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(e.contains("need --view or --render-every"), "{e}");
}
