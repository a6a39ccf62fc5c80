//! Pictures without a window: a frame rendered offscreen (an sRGB RGBA8
//! texture and a Depth32Float one), copied to a buffer (rows padded to
//! 256 bytes), mapped and unpadded, the overlay composited on the CPU,
//! written as PNG. `talus render` ([`render_run`]) makes one PNG per
//! snapshot of a run.

use super::camera::Camera;
use super::colormap::{ColorBy, Legend};
use super::frame::Frame;
use super::overlay;
use super::render::{Renderer, DEPTH_FORMAT};
use super::replay::Run;
use std::path::{Path, PathBuf};
use talus::gpu::context::GpuContext;

/// The colour format of offscreen pictures.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// An RGBA8 picture (sRGB), rows from the top.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[u8; 4]>,
}

impl Image {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        self.pixels[(y * self.width + x) as usize]
    }

    /// Writes the picture as an 8-bit RGBA PNG.
    pub fn write_png(&self, path: &Path) -> Result<(), String> {
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let f = std::fs::File::create(path).map_err(|e| err(&e))?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut w = enc.write_header().map_err(|e| err(&e))?;
        w.write_image_data(bytemuck::cast_slice(&self.pixels))
            .map_err(|e| err(&e))?;
        w.finish().map_err(|e| err(&e))
    }
}

/// The textures and readback buffer of one picture size, reused across
/// frames.
pub struct Offscreen {
    pub width: u32,
    pub height: u32,
    color: wgpu::Texture,
    depth: wgpu::Texture,
    readback: wgpu::Buffer,
    padded_row: u32,
}

impl Offscreen {
    pub fn new(ctx: &GpuContext, width: u32, height: u32) -> Result<Offscreen, String> {
        let max = ctx.limits.max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(format!(
                "picture size {width}x{height}: each side must be 1 to {max} on {}",
                ctx.info.name
            ));
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let tex = |label: &str, format, usage| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let color = tex(
            "view offscreen colour",
            FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = tex(
            "view offscreen depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let padded_row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("view readback"),
            size: padded_row as u64 * height as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Ok(Offscreen {
            width,
            height,
            color,
            depth,
            readback,
            padded_row,
        })
    }

    /// A view of the colour texture, to draw into without reading back.
    pub fn color_view(&self) -> wgpu::TextureView {
        self.color.create_view(&Default::default())
    }

    /// What `renderer` holds, seen by `camera`, read back (no overlay).
    pub fn render(
        &self,
        ctx: &GpuContext,
        renderer: &Renderer,
        camera: &Camera,
    ) -> Result<Image, String> {
        let cv = self.color.create_view(&Default::default());
        let dv = self.depth.create_view(&Default::default());
        let mut enc = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("view offscreen"),
            });
        renderer.draw(&mut enc, &cv, &dv, self.width, self.height, camera);
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.color,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        ctx.queue.submit([enc.finish()]);
        let slice = self.readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("GPU device lost while reading a picture back: {e}"))?;
        rx.recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("cannot map the picture: {e}"))?;
        let mut pixels = Vec::with_capacity((self.width * self.height) as usize);
        {
            let view = slice
                .get_mapped_range()
                .map_err(|e| format!("cannot read the picture: {e}"))?;
            for y in 0..self.height as usize {
                let row = &view[y * self.padded_row as usize..][..self.width as usize * 4];
                pixels.extend(row.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]));
            }
        }
        self.readback.unmap();
        Ok(Image {
            width: self.width,
            height: self.height,
            pixels,
        })
    }
}

/// `frame` rendered offscreen at `width` × `height`, coloured by `by` over
/// `legend`, with the overlay (`lines`, the legend) composited.
#[allow(clippy::too_many_arguments)]
pub fn render_frame(
    ctx: &GpuContext,
    renderer: &mut Renderer,
    frame: &Frame,
    by: ColorBy,
    legend: &Legend,
    camera: &Camera,
    width: u32,
    height: u32,
    lines: &[String],
) -> Result<Image, String> {
    let off = Offscreen::new(ctx, width, height)?;
    renderer.set_frame(frame, by, legend);
    let mut img = off.render(ctx, renderer, camera)?;
    overlay::composite(
        &mut img.pixels,
        &overlay::draw(width, height, lines, legend),
    );
    Ok(img)
}

/// The overlay's text for a frame: time and step, particles (a clump's
/// member spheres share its id: one particle), the field.
pub fn frame_lines(frame: &Frame, by: ColorBy, name: &str) -> Vec<String> {
    let mut ids: Vec<u32> = frame
        .id
        .iter()
        .copied()
        .filter(|&i| i != talus::gpu::layout::NONE)
        .collect();
    let spheres = ids.len();
    ids.sort_unstable();
    ids.dedup();
    let shown = ids
        .len()
        .max(if frame.id.is_empty() { frame.len() } else { 0 });
    let field = match by.unit() {
        "" => by.name().to_string(),
        u => format!("{} ({u})", by.name()),
    };
    let mut lines = Vec::new();
    if !name.is_empty() {
        lines.push(name.to_string());
    }
    lines.push(format!("t = {:.4} s   step {}", frame.time, frame.step));
    if spheres > ids.len() {
        lines.push(format!("{shown} particles ({spheres} spheres)"));
    } else {
        lines.push(format!("{shown} particles"));
    }
    lines.push(format!("colour: {field}"));
    lines
}

/// `talus render`'s options.
#[derive(Debug, Clone)]
pub struct RenderOpts {
    pub run: PathBuf,
    /// Default: `<run>/frames`.
    pub out: Option<PathBuf>,
    pub by: ColorBy,
    pub width: u32,
    pub height: u32,
    /// A `--camera` spec applied to the framed camera.
    pub camera: Option<String>,
    /// Every `every`th snapshot (1: all).
    pub every: usize,
    pub adapter: Option<String>,
}

/// `WxH` → (W, H).
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--size \"{s}\": expected WIDTHxHEIGHT, e.g. 1280x720");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    // whole numbers of any size first, so a number too large is named as
    // such, not as a malformed size
    let whole = |v: &str| -> Result<u128, String> { v.trim().parse().map_err(|_| bad()) };
    let (w, h) = (whole(w)?, whole(h)?);
    if w == 0 || h == 0 {
        return Err(format!("--size \"{s}\": each side needs at least 1 pixel"));
    }
    if w > MAX_SIDE as u128 || h > MAX_SIDE as u128 {
        return Err(format!(
            "--size \"{s}\": at most {MAX_SIDE} pixels a side (the largest picture talus draws)"
        ));
    }
    Ok((w as u32, h as u32))
}

/// The largest side of a picture `talus render` draws: 16384, what
/// Direct3D 12 requires of every adapter (`max_texture_dimension_2d`;
/// desktop Vulkan and Metal GPUs offer as much or more).
pub const MAX_SIDE: u32 = 16384;

/// What `render_run` wrote.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    pub legend: Legend,
    pub adapter: String,
}

/// One PNG per snapshot (every `opts.every`th) of the run in `opts.run`,
/// `frame_00000.png` … in order, the legend's range fixed over the frames
/// rendered (a first pass reads them all).
pub fn render_run(opts: &RenderOpts) -> Result<Rendered, String> {
    let run = Run::open(&opts.run)?;
    if run.is_empty() {
        return Err(format!("{}: the run has no snapshots", opts.run.display()));
    }
    let every = opts.every.max(1);
    let picks: Vec<usize> = (0..run.len()).step_by(every).collect();
    // the legend over the values of every frame rendered (not the union
    // of per-frame legends: a frame at rest would widen speed to 0..1)
    let (mut lo_v, mut hi_v) = (f32::INFINITY, f32::NEG_INFINITY);
    for &k in &picks {
        for v in run.frame(k)?.scalar(opts.by) {
            if v.is_finite() {
                lo_v = lo_v.min(v);
                hi_v = hi_v.max(v);
            }
        }
    }
    let seen: Vec<f32> = if lo_v <= hi_v {
        vec![lo_v, hi_v]
    } else {
        vec![]
    };
    let legend = Legend::for_values(opts.by, &seen);
    let (lo, hi) = run.domain();
    let mut camera = Camera::frame(lo, hi, run.gravity());
    if let Some(spec) = &opts.camera {
        camera.apply_spec(spec)?;
    }
    let ctx = GpuContext::new(opts.adapter.as_deref()).map_err(|e| match e {
        talus::gpu::GpuError::NoAdapter(_) if opts.adapter.is_none() => {
            "no GPU adapter: install mesa-vulkan-drivers for a software one".to_string()
        }
        e => e.to_string(),
    })?;
    let out = opts.out.clone().unwrap_or_else(|| opts.run.join("frames"));
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut renderer = Renderer::new(&ctx, FORMAT);
    let off = Offscreen::new(&ctx, opts.width, opts.height)?;
    let mut files = Vec::new();
    for (j, &k) in picks.iter().enumerate() {
        let frame = run.frame(k)?;
        renderer.set_frame(&frame, opts.by, &legend);
        let mut img = off.render(&ctx, &renderer, &camera)?;
        let lines = frame_lines(&frame, opts.by, run.name());
        overlay::composite(
            &mut img.pixels,
            &overlay::draw(opts.width, opts.height, &lines, &legend),
        );
        let path = out.join(format!("frame_{j:05}.png"));
        img.write_png(&path)?;
        files.push(path);
    }
    Ok(Rendered {
        dir: out,
        files,
        legend,
        adapter: ctx.describe(),
    })
}
