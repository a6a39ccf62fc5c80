//! `talus view RUN_DIR`: a window (winit) on the simulation's own
//! [`GpuContext`] showing a run's snapshots, with the keys and mouse
//! below. The window's title carries the time, step, particle count and
//! colour field (the PNG of `--screenshot` and `talus render`
//! carry the overlay).
//!
//! | input | does |
//! |-------|------|
//! | ← / → | previous / next snapshot |
//! | Home / End | first / last snapshot |
//! | space | play / pause (about 12 snapshots a second, looping) |
//! | left drag | orbit about the target |
//! | right drag, shift + left drag | pan |
//! | wheel | zoom |
//! | C | next colour field (speed, material, id, radius, height) |
//! | X | clip plane on / off: hides the half facing the eye, through the target |
//! | R | reset the camera |
//! | Q, Esc | quit |
//!
//! For tests and scripts: `--frames=N` closes the window after N
//! frames, `--screenshot=path.png` then saves the last frame,
//! rendered offscreen with the overlay.
//!
//! `talus run SCENE --view` ([`Live`]) wraps the GPU backend: the window
//! draws the simulation's own buffers between pieces of steps.

use super::camera::Camera;
use super::colormap::{ColorBy, Legend};
use super::frame::Frame;
use super::headless::{self, Offscreen};
use super::overlay;
use super::render::{Renderer, DEPTH_FORMAT};
use super::replay::Run;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use talus::backend::{Backend, RunError};
use talus::gpu::context::GpuContext;
use talus::gpu::GpuBackend;
use talus::io::walls::WallSeries;
use talus::run::{AnyBackend, Observe};
use talus::scene::Scene;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// What `talus view` says (and exits non-zero) without a display.
pub const NO_DISPLAY: &str = "no display: use `talus render RUN_DIR` for pictures without a window";

/// Snapshots a second while playing.
const PLAY_RATE: f64 = 12.0;

/// `talus view`'s options.
#[derive(Debug, Clone, Default)]
pub struct ViewOpts {
    pub run: PathBuf,
    pub by: ColorBy,
    /// A `--camera` spec applied to the framed camera.
    pub camera: Option<String>,
    pub adapter: Option<String>,
    /// The snapshot shown first (clamped to the last).
    pub start: usize,
    /// Close after this many frames (`--frames`).
    pub frames: Option<u64>,
    /// Save the last frame here (`--screenshot`).
    pub screenshot: Option<PathBuf>,
    /// `talus run --view` only: draw into an offscreen picture of this
    /// size instead of a window (`--offscreen WxH`): the same
    /// draws from the simulation's buffers, nothing presented. For
    /// measuring the view's cost and testing it where there is no display.
    pub offscreen: Option<(u32, u32)>,
}

/// Whether a display server is named in the environment.
pub fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Opens the window on `opts.run` and returns when it is closed. Errors
/// are one line ([`NO_DISPLAY`] without a display).
pub fn view(opts: &ViewOpts) -> Result<(), String> {
    if !has_display() {
        return Err(NO_DISPLAY.into());
    }
    let run = Run::open(&opts.run)?;
    if run.is_empty() {
        return Err(format!("{}: the run has no snapshots", opts.run.display()));
    }
    let (lo, hi) = run.domain();
    let mut home = Camera::frame(lo, hi, run.gravity());
    if let Some(spec) = &opts.camera {
        home.apply_spec(spec)?;
    }
    let event_loop = EventLoop::new().map_err(|e| format!("{NO_DISPLAY} ({e})"))?;
    let ctx = GpuContext::new(opts.adapter.as_deref()).map_err(|e| e.to_string())?;
    let k = opts.start.min(run.len() - 1);
    let first = run.frame(k)?;
    let mut app = App {
        ctx,
        legend: Legend::for_values(opts.by, &first.scalar(opts.by)),
        frame: first,
        k,
        run,
        by: opts.by,
        home,
        camera: home,
        opts: opts.clone(),
        win: None,
        error: None,
        drawn: 0,
        playing: false,
        last_step: Instant::now(),
        mouse: Mouse::default(),
        clip: false,
    };
    event_loop.set_control_flow(ControlFlow::Wait);
    event_loop
        .run_app(&mut app)
        .map_err(|e| format!("the window's event loop failed: {e}"))?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The window and what draws into it.
struct Win {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    depth: wgpu::TextureView,
    renderer: Renderer,
    hud: Hud,
}

struct App {
    ctx: GpuContext,
    run: Run,
    k: usize,
    frame: Frame,
    by: ColorBy,
    /// The colour range over the snapshots seen so far (per field).
    legend: Legend,
    home: Camera,
    camera: Camera,
    opts: ViewOpts,
    win: Option<Win>,
    error: Option<String>,
    drawn: u64,
    playing: bool,
    last_step: Instant,
    mouse: Mouse,
    clip: bool,
}

/// The mouse: left drag orbits, right drag (or shift + left) pans, the
/// wheel zooms.
#[derive(Debug, Default)]
struct Mouse {
    cursor: Option<(f64, f64)>,
    drag: Option<MouseButton>,
    shift: bool,
}

impl Mouse {
    /// Applies `ev` to `camera` (`height`: the window's, in pixels);
    /// whether the camera changed.
    fn handle(&mut self, ev: &WindowEvent, camera: &mut Camera, height: u32) -> bool {
        match ev {
            WindowEvent::ModifiersChanged(m) => self.shift = m.state().shift_key(),
            WindowEvent::MouseInput { state, button, .. } => {
                self.drag = match state {
                    ElementState::Pressed => Some(*button),
                    ElementState::Released => None,
                };
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x, position.y);
                let prev = self.cursor.replace(p);
                if let (Some((x0, y0)), Some(b)) = (prev, self.drag) {
                    let h = height.max(1) as f32;
                    let (dx, dy) = ((p.0 - x0) as f32 / h, (p.1 - y0) as f32 / h);
                    match b {
                        MouseButton::Left if !self.shift => camera.orbit(3.0 * dx, 3.0 * dy),
                        MouseButton::Left | MouseButton::Right | MouseButton::Middle => {
                            camera.pan(dx, dy)
                        }
                        _ => return false,
                    }
                    return true;
                }
            }
            WindowEvent::CursorLeft { .. } => self.cursor = None,
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                camera.zoom(1.1f32.powf(lines));
                return true;
            }
            _ => {}
        }
        false
    }
}

/// A window of 1280 × 800 (logical) titled `title`, and a surface on
/// `ctx`'s device configured for it (an sRGB format when offered).
fn open_window(
    el: &ActiveEventLoop,
    ctx: &GpuContext,
    title: String,
) -> Result<
    (
        Arc<Window>,
        wgpu::Surface<'static>,
        wgpu::SurfaceConfiguration,
    ),
    String,
> {
    let attrs = Window::default_attributes()
        .with_title(title)
        .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 800.0));
    let window = Arc::new(
        el.create_window(attrs)
            .map_err(|e| format!("{NO_DISPLAY} ({e})"))?,
    );
    let (surface, config) =
        configure_surface(ctx, &window).map_err(|e| format!("{e}; {NO_DISPLAY}"))?;
    Ok((window, surface, config))
}

/// A surface on `window` from `ctx`'s instance, configured for its device
/// (an sRGB format when offered; the window's size; vsync).
fn configure_surface(
    ctx: &GpuContext,
    window: &Arc<Window>,
) -> Result<(wgpu::Surface<'static>, wgpu::SurfaceConfiguration), String> {
    let surface = ctx
        .instance
        .create_surface(window.clone())
        .map_err(|e| format!("cannot draw into the window: {e}"))?;
    let caps = surface.get_capabilities(&ctx.adapter);
    if caps.formats.is_empty() {
        return Err(format!(
            "{} cannot present to this window (try --adapter, see `talus info`)",
            ctx.info.name
        ));
    }
    let format = caps
        .formats
        .iter()
        .copied()
        .find(|f| f.is_srgb())
        .unwrap_or(caps.formats[0]);
    let size = window.inner_size();
    let config = wgpu::SurfaceConfiguration {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        format,
        width: size.width.max(1),
        height: size.height.max(1),
        present_mode: wgpu::PresentMode::AutoVsync,
        desired_maximum_frame_latency: 2,
        alpha_mode: caps.alpha_modes[0],
        view_formats: vec![],
        color_space: wgpu::SurfaceColorSpace::Auto,
    };
    surface.configure(&ctx.device, &config);
    Ok((surface, config))
}

/// Draws `renderer` into the surface's next texture and presents it
/// (skipped when none is available; reconfigured when outdated).
fn present(ctx: &GpuContext, w: &Win, camera: &Camera) {
    let tex = match w.surface.get_current_texture() {
        wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
        wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
            w.surface.configure(&ctx.device, &w.config);
            return;
        }
        _ => return,
    };
    let view = tex.texture.create_view(&Default::default());
    let size = (w.config.width, w.config.height);
    let target = (&view, &w.depth, size);
    submit_picture(ctx, &w.renderer, &w.hud, target, camera, "view window");
    w.window.pre_present_notify();
    ctx.queue.present(tex);
}

/// Draws `renderer` and then `hud` into a colour and depth target of the
/// given size, and submits (the window's and the offscreen live view's
/// one way to draw).
fn submit_picture(
    ctx: &GpuContext,
    renderer: &Renderer,
    hud: &Hud,
    (color, depth, (width, height)): (&wgpu::TextureView, &wgpu::TextureView, (u32, u32)),
    camera: &Camera,
    label: &str,
) {
    let mut enc = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
    renderer.draw(&mut enc, color, depth, width, height, camera);
    hud.draw(&mut enc, color);
    ctx.queue.submit([enc.finish()]);
}

/// The overlay (text and legend, `overlay::draw`) on the window: a
/// texture of the window's size blended over the picture by a
/// full-screen triangle. Re-uploaded only when its content changes.
struct Hud {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    /// The texture's bind group and what it shows.
    bound: Option<(wgpu::Texture, wgpu::BindGroup)>,
    shown: Option<HudKey>,
}

/// What a [`Hud`] shows: size, lines, the legend's range and field.
type HudKey = (u32, u32, Vec<String>, [u32; 2], &'static str);

/// The overlay pass's shader (checked through naga by tests/shaders.rs).
pub const HUD_WGSL: &str = r#"
@group(0) @binding(0) var hud: texture_2d<f32>;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(hud, vec2<i32>(p.xy), 0);
}
"#;

impl Hud {
    fn new(ctx: &GpuContext, format: wgpu::TextureFormat) -> Hud {
        let device = &ctx.device;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("view hud"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("view hud"),
            source: wgpu::ShaderSource::Wgsl(HUD_WGSL.into()),
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("view hud"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("view hud"),
            layout: Some(&pl),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });
        Hud {
            pipeline,
            layout,
            bound: None,
            shown: None,
        }
    }

    /// Shows `lines` and `legend` at `width` × `height` (drawn and
    /// uploaded only when they changed).
    fn update(
        &mut self,
        ctx: &GpuContext,
        width: u32,
        height: u32,
        lines: &[String],
        legend: &Legend,
    ) {
        let key = (
            width,
            height,
            lines.to_vec(),
            [legend.min.to_bits(), legend.max.to_bits()],
            legend.by.name(),
        );
        if self.shown.as_ref() == Some(&key) {
            return;
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let same = self
            .bound
            .as_ref()
            .is_some_and(|(t, _)| t.width() == width && t.height() == height);
        if !same {
            let tex = ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("view hud"),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("view hud"),
                layout: &self.layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(
                        &tex.create_view(&Default::default()),
                    ),
                }],
            });
            self.bound = Some((tex, bind));
        }
        let px = overlay::draw(width, height, lines, legend);
        let (tex, _) = self.bound.as_ref().expect("made above");
        ctx.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: tex,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            bytemuck::cast_slice(&px),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * width),
                rows_per_image: Some(height),
            },
            size,
        );
        self.shown = Some(key);
    }

    /// Blends the overlay over `view`.
    fn draw(&self, enc: &mut wgpu::CommandEncoder, view: &wgpu::TextureView) {
        let Some((_, bind)) = &self.bound else { return };
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("view hud"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.draw(0..3, 0..1);
    }
}

fn depth_view(ctx: &GpuContext, w: u32, h: u32) -> wgpu::TextureView {
    ctx.device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("view window depth"),
            size: wgpu::Extent3d {
                width: w.max(1),
                height: h.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

impl App {
    fn fail(&mut self, el: &ActiveEventLoop, e: String) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        el.exit();
    }

    fn open(&mut self, el: &ActiveEventLoop) -> Result<Win, String> {
        let (window, surface, config) =
            open_window(el, &self.ctx, format!("talus: {}", self.run.name()))?;
        let format = config.format;
        let mut renderer = Renderer::new(&self.ctx, format);
        renderer.set_frame(&self.frame, self.by, &self.legend);
        Ok(Win {
            depth: depth_view(&self.ctx, config.width, config.height),
            hud: Hud::new(&self.ctx, format),
            window,
            surface,
            config,
            renderer,
        })
    }

    /// Shows snapshot `k` (clamped), widening the legend to cover it.
    fn goto(&mut self, k: usize) {
        let k = k.min(self.run.len() - 1);
        if k != self.k {
            match self.run.frame(k) {
                Ok(f) => {
                    self.frame = f;
                    self.k = k;
                }
                Err(e) => {
                    eprintln!("{e}");
                    self.playing = false;
                    return;
                }
            }
        }
        self.refresh(false);
    }

    /// Re-uploads the frame; `reset` recomputes the legend from it alone
    /// (a new field), otherwise it only widens.
    fn refresh(&mut self, reset: bool) {
        let l = Legend::for_values(self.by, &self.frame.scalar(self.by));
        self.legend = if reset || self.frame.is_empty() {
            l
        } else {
            Legend {
                by: self.by,
                min: self.legend.min.min(l.min),
                max: self.legend.max.max(l.max),
            }
        };
        if let Some(w) = self.win.as_mut() {
            w.renderer.set_frame(&self.frame, self.by, &self.legend);
            w.window.request_redraw();
        }
    }

    fn lines(&self) -> Vec<String> {
        let mut l = headless::frame_lines(&self.frame, self.by, self.run.name());
        l.push(format!("snapshot {} / {}", self.k + 1, self.run.len()));
        l
    }

    fn title(&self) -> String {
        format!(
            "talus: {}  t = {:.4} s  step {}  ({}/{})  {} particles  colour: {}{}{}",
            self.run.name(),
            self.frame.time,
            self.frame.step,
            self.k + 1,
            self.run.len(),
            self.frame.len(),
            self.by.name(),
            if self.playing { "  playing" } else { "" },
            if self.clip { "  clipped" } else { "" },
        )
    }

    fn clip_plane(&self) -> Option<[f32; 4]> {
        clip_plane(self.clip, &self.camera)
    }

    fn redraw(&mut self, el: &ActiveEventLoop) {
        let clip = self.clip_plane();
        let title = self.title();
        let camera = self.camera;
        let lines = self.lines();
        let legend = self.legend;
        let Some(w) = self.win.as_mut() else { return };
        w.renderer.clip = clip;
        w.hud
            .update(&self.ctx, w.config.width, w.config.height, &lines, &legend);
        w.window.set_title(&title);
        present(&self.ctx, w, &camera);
        self.drawn += 1;
        if self.opts.frames.is_some_and(|n| self.drawn >= n) {
            if let Some(path) = self.opts.screenshot.clone() {
                if let Err(e) = self.screenshot(&path) {
                    return self.fail(el, e);
                }
            }
            el.exit();
        }
    }

    /// The current picture, rendered offscreen at the window's size with
    /// the overlay, as PNG.
    fn screenshot(&mut self, path: &std::path::Path) -> Result<(), String> {
        let (width, height) = match &self.win {
            Some(w) => (w.config.width, w.config.height),
            None => (1280, 800),
        };
        let mut r = Renderer::new(&self.ctx, headless::FORMAT);
        r.clip = self.clip_plane();
        r.set_frame(&self.frame, self.by, &self.legend);
        let off = Offscreen::new(&self.ctx, width, height)?;
        let mut img = off.render(&self.ctx, &r, &self.camera)?;
        overlay::composite(
            &mut img.pixels,
            &overlay::draw(width, height, &self.lines(), &self.legend),
        );
        img.write_png(path)
    }

    fn key(&mut self, el: &ActiveEventLoop, key: &Key) {
        match key {
            Key::Named(NamedKey::Escape) => el.exit(),
            Key::Named(NamedKey::ArrowRight) => {
                self.playing = false;
                self.goto(self.k + 1)
            }
            Key::Named(NamedKey::ArrowLeft) => {
                self.playing = false;
                self.goto(self.k.saturating_sub(1))
            }
            Key::Named(NamedKey::Home) => self.goto(0),
            Key::Named(NamedKey::End) => {
                // a run still going has written more snapshots since
                self.reload();
                self.goto(self.run.len() - 1)
            }
            Key::Named(NamedKey::Space) => {
                self.playing = !self.playing;
                self.last_step = Instant::now();
                if self.playing && self.k + 1 >= self.run.len() {
                    self.goto(0);
                }
            }
            Key::Character(c) => match c.to_lowercase().as_str() {
                "q" => el.exit(),
                "c" => {
                    self.by = self.by.next();
                    self.refresh(true);
                }
                "x" => self.clip = !self.clip,
                "r" => self.camera = self.home,
                _ => return,
            },
            _ => return,
        }
        self.request_redraw();
    }

    /// Reads the run's series again: a run still going has written more
    /// snapshots (kept only when there are more than before).
    fn reload(&mut self) {
        if let Ok(r) = Run::open(self.run.dir()) {
            if r.len() > self.run.len() {
                self.run = r;
            }
        }
    }

    fn request_redraw(&self) {
        if let Some(w) = &self.win {
            w.window.request_redraw();
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.win.is_some() {
            return;
        }
        match self.open(el) {
            Ok(w) => {
                w.window.request_redraw();
                self.win = Some(w);
            }
            Err(e) => self.fail(el, e),
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => {
                if let Some(w) = self.win.as_mut() {
                    w.config.width = size.width.max(1);
                    w.config.height = size.height.max(1);
                    w.surface.configure(&self.ctx.device, &w.config);
                    w.depth = depth_view(&self.ctx, w.config.width, w.config.height);
                    w.window.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => self.redraw(el),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                self.key(el, &event.logical_key);
            }
            ev => {
                let h = self.win.as_ref().map_or(1, |w| w.config.height);
                if self.mouse.handle(&ev, &mut self.camera, h) {
                    self.request_redraw();
                }
            }
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        if self.opts.frames.is_some() {
            // scripted: draw continuously until the count is reached
            self.request_redraw();
            return;
        }
        if self.playing {
            let period = Duration::from_secs_f64(1.0 / PLAY_RATE);
            let now = Instant::now();
            if now >= self.last_step + period {
                self.last_step = now;
                if self.k + 1 >= self.run.len() {
                    self.reload();
                }
                let next = if self.k + 1 >= self.run.len() {
                    0
                } else {
                    self.k + 1
                };
                self.goto(next);
            }
            el.set_control_flow(ControlFlow::WaitUntil(self.last_step + period));
        } else {
            el.set_control_flow(ControlFlow::Wait);
        }
    }
}

/// Steps between draws of the live view start here and adapt to about
/// [`LIVE_FRAME`] of simulation per draw.
const LIVE_FRAME: Duration = Duration::from_millis(33);

/// How often the live view measures what a draw costs the device.
const MEASURE_EVERY: Duration = Duration::from_secs(2);

#[cfg(any(
    target_os = "linux",
    target_os = "windows",
    target_os = "macos",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd"
))]
/// What a live draw reads between advances: the backend (the GPU path
/// drawn from its own buffers, no readback; the CPU path from a snapshot
/// of its state at each picture) and, for the CPU path, the window's own
/// device.
struct LiveSim<'a> {
    b: &'a mut AnyBackend,
    own: Option<&'a GpuContext>,
}

impl LiveSim<'_> {
    fn ctx(&self) -> &GpuContext {
        match (&*self.b, self.own) {
            (AnyBackend::Gpu(b), _) => &b.ctx,
            (AnyBackend::Cpu(_) | AnyBackend::Ranks(_), Some(own)) => own,
            (AnyBackend::Cpu(_) | AnyBackend::Ranks(_), None) => {
                unreachable!("the CPU path's view has its own device")
            }
        }
    }

    fn backend(&mut self) -> &mut dyn Backend {
        &mut **self.b
    }

    fn get(&self) -> &dyn Backend {
        &**self.b
    }

    /// The CPU path's particles now (None on the GPU path: the renderer
    /// binds its buffers).
    fn host_frame(&mut self) -> Option<Frame> {
        match &mut *self.b {
            AnyBackend::Gpu(_) => None,
            AnyBackend::Cpu(c) => Some(Frame::from_particles(&c.snapshot())),
            AnyBackend::Ranks(c) => Some(Frame::from_particles(&c.snapshot())),
        }
    }

    /// Points `r` at the particles: the GPU's buffers, or `host`.
    fn bind(&self, r: &mut Renderer, host: Option<&Frame>, by: ColorBy, legend: &Legend) {
        match (&*self.b, host) {
            (AnyBackend::Gpu(b), _) => r.bind_simulation(b, by, legend),
            (AnyBackend::Cpu(_) | AnyBackend::Ranks(_), Some(f)) => r.set_frame(f, by, legend),
            (AnyBackend::Cpu(_) | AnyBackend::Ranks(_), None) => {}
        }
    }
}

/// What a live draw reads: the simulation between two calls of
/// `advance`, or the GPU path between two of its submissions (the step
/// just submitted; its host-side fields are the segment's start's).
enum Src<'a> {
    Sim(LiveSim<'a>),
    Mid(&'a GpuBackend, u64),
}

impl Src<'_> {
    fn ctx(&self) -> &GpuContext {
        match self {
            Src::Sim(s) => s.ctx(),
            Src::Mid(b, _) => &b.ctx,
        }
    }

    fn host_frame(&mut self) -> Option<Frame> {
        match self {
            Src::Sim(s) => s.host_frame(),
            Src::Mid(..) => None,
        }
    }

    fn bind(&self, r: &mut Renderer, host: Option<&Frame>, by: ColorBy, legend: &Legend) {
        match self {
            Src::Sim(s) => s.bind(r, host, by, legend),
            Src::Mid(b, _) => r.bind_simulation(b, by, legend),
        }
    }

    fn walls(&mut self) -> Vec<(talus::walls::Pose, talus::walls::WallLoad)> {
        match self {
            Src::Sim(s) => s.backend().walls(),
            Src::Mid(b, _) => b.wall_poses(),
        }
    }

    fn bodies(&self) -> Option<&talus::fem::coupling::BodySet> {
        match self {
            Src::Sim(s) => s.get().bodies(),
            Src::Mid(b, _) => b.bodies(),
        }
    }

    fn steps_done(&self) -> u64 {
        match self {
            Src::Sim(s) => s.get().steps_done(),
            Src::Mid(_, step) => *step,
        }
    }
}

/// `talus run SCENE --view`: a window drawing a simulation, attached to it
/// as its observer ([`Observe`]: the simulation hands it its advances;
/// nothing read back on the GPU path but the walls' poses when they move).
/// On the GPU path `advance` runs its
/// steps whole and services the window between the submissions
/// ([`GpuBackend::advance_observed`]: the draws queue after the steps, the
/// device never waits for them; +3.4 % run time at 10⁶ particles on an
/// H100); on the CPU path it runs pieces of about [`LIVE_FRAME`] and draws
/// a snapshot between them. Space pauses the simulation, S steps it once
/// while paused, C, X, R and the mouse work as in `talus view`; closing
/// the window (Q, Esc) lets the run go on without it.
/// `--frames` / `--screenshot` as for `talus view` (the
/// run goes on after the window closes); `--offscreen=WxH` draws
/// into a texture instead of a window.
#[cfg(any(
    target_os = "linux",
    target_os = "windows",
    target_os = "macos",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd"
))]
pub struct Live {
    /// The window's own device, for the CPU path (None on the GPU path:
    /// the view draws on the simulation's).
    own: Option<GpuContext>,
    v: LiveView,
}

/// Everything of [`Live`] but the simulation: what draws it, and when.
struct LiveView {
    /// None when drawing offscreen ([`ViewOpts::offscreen`]).
    event_loop: Option<EventLoop<()>>,
    off: Option<OffTarget>,
    ui: LiveUi,
    walls: WallSeries,
    /// The scene's walls (the bodies' surfaces are drawn after them).
    n_walls: usize,
    walls_move: bool,
    /// The legend of each field ([`ColorBy::ALL`] order), fixed at the start.
    legends: Vec<Legend>,
    dt: f64,
    name: String,
    opts: ViewOpts,
    piece: u64,
    last_draw: Option<Instant>,
    drawn: u64,
    /// Particles present after the last piece of steps.
    count: u64,
    /// Particle-steps per second of the last piece (the overlay).
    rate: f64,
    /// Wall time of the last draw (paces the next one).
    draw_cost: Duration,
    /// The wall time and step of the last call between the GPU path's
    /// submissions (for the rate and the size of the next piece).
    mark: Option<(Instant, u64)>,
    /// When the draw's cost was last measured.
    measured: Option<Instant>,
}

/// Where the offscreen live view draws: a colour and a depth texture,
/// never read back (a screenshot renders again).
struct OffTarget {
    renderer: Renderer,
    hud: Hud,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl OffTarget {
    fn new(ctx: &GpuContext, (width, height): (u32, u32)) -> Result<OffTarget, String> {
        // Offscreen::new checks the size against the device's limits
        let off = Offscreen::new(ctx, width, height)?;
        Ok(OffTarget {
            renderer: Renderer::new(ctx, headless::FORMAT),
            hud: Hud::new(ctx, headless::FORMAT),
            color: off.color_view(),
            depth: depth_view(ctx, width, height),
            width,
            height,
        })
    }
}

/// The live window's event handler: the window (its surface is made
/// outside, on the simulation's context) and what the input asked for.
#[derive(Default)]
struct LiveUi {
    window: Option<Arc<Window>>,
    win: Option<Win>,
    open_error: Option<String>,
    closed: bool,
    paused: bool,
    /// S while paused: run one step, then pause again.
    step_once: bool,
    clip: bool,
    by: ColorBy,
    camera: Camera,
    home: Camera,
    mouse: Mouse,
    dirty: bool,
    resized: bool,
}

impl ApplicationHandler for LiveUi {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.window.is_some() || self.closed {
            return;
        }
        let attrs = Window::default_attributes()
            .with_title("talus")
            .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 800.0));
        match el.create_window(attrs) {
            Ok(w) => self.window = Some(Arc::new(w)),
            Err(e) => {
                self.open_error = Some(format!("{NO_DISPLAY} ({e})"));
                self.closed = true;
            }
        }
    }

    fn window_event(&mut self, _el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.close(),
            WindowEvent::Resized(size) => {
                if let Some(w) = self.win.as_mut() {
                    w.config.width = size.width.max(1);
                    w.config.height = size.height.max(1);
                    // reconfigured on the next draw, on the device
                    self.resized = true;
                    self.dirty = true;
                }
            }
            WindowEvent::RedrawRequested => self.dirty = true,
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                match &event.logical_key {
                    Key::Named(NamedKey::Escape) => self.close(),
                    Key::Named(NamedKey::Space) => self.paused = !self.paused,
                    Key::Character(c) => match c.to_lowercase().as_str() {
                        "q" => self.close(),
                        "s" if self.paused => self.step_once = true,
                        "c" => self.by = self.by.next(),
                        "x" => self.clip = !self.clip,
                        "r" => self.camera = self.home,
                        _ => {}
                    },
                    _ => {}
                }
                self.dirty = true;
            }
            ev => {
                let h = self.win.as_ref().map_or(1, |w| w.config.height);
                if self.mouse.handle(&ev, &mut self.camera, h) {
                    self.dirty = true;
                }
            }
        }
    }
}

impl LiveUi {
    fn close(&mut self) {
        if !self.closed {
            eprintln!("view closed: the run goes on (Ctrl-C stops it)");
        }
        self.closed = true;
        self.win = None;
        self.window = None;
        self.paused = false;
    }
}

#[cfg(any(
    target_os = "linux",
    target_os = "windows",
    target_os = "macos",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd"
))]
impl Live {
    /// Opens the window for `backend` running `scene` (`opts`: the colour
    /// field, camera spec and `--frames`, `--screenshot`, `--offscreen`; its `run` is unused); `own`
    /// is the window's device for the CPU path (None on the GPU path).
    /// Errors: one line ([`NO_DISPLAY`] without a display).
    pub fn new(
        backend: &mut AnyBackend,
        own: Option<GpuContext>,
        scene: &Scene,
        opts: &ViewOpts,
    ) -> Result<Live, String> {
        if matches!(backend, AnyBackend::Cpu(_)) && own.is_none() {
            return Err("the CPU path's live view needs a device of its own".into());
        }
        let mut sim = LiveSim {
            b: backend,
            own: own.as_ref(),
        };
        let (event_loop, off) = match opts.offscreen {
            Some(size) => (None, Some(OffTarget::new(sim.ctx(), size)?)),
            None if !has_display() => return Err(NO_DISPLAY.into()),
            None => (
                Some(EventLoop::new().map_err(|e| format!("{NO_DISPLAY} ({e})"))?),
                None,
            ),
        };
        let d = &scene.domain;
        let g = scene.simulation.gravity;
        let mut home = Camera::frame(d.min, d.max, g);
        if let Some(spec) = &opts.camera {
            home.apply_spec(spec)?;
        }
        // the colour ranges, fixed: the state now, the speed of a fall
        // across the domain, the domain's height, the materials
        let frame = Frame::from_particles(&sim.backend().snapshot());
        // the run's numbers, as the backend resolves them
        let setup = talus::Setup::new(scene.clone()).map_err(|e| e.to_string())?;
        let ids = scene.particles.len() as u64 + setup.inserts.max_inserted(setup.steps);
        let legends = ColorBy::ALL
            .iter()
            .map(|&by| frame.scene_legend(scene, by, ids))
            .collect();
        let mut v = LiveView {
            walls: WallSeries::new(Path::new("."), &scene.walls, &scene.domain),
            n_walls: scene.walls.len(),
            walls_move: !scene.bodies.is_empty()
                || scene
                    .walls
                    .iter()
                    .any(|w| w.motion.is_some() || w.servo.is_some()),
            legends,
            dt: setup.dt,
            name: scene.name.clone(),
            opts: opts.clone(),
            piece: 1,
            last_draw: None,
            drawn: 0,
            count: frame.len() as u64,
            rate: 0.0,
            draw_cost: Duration::ZERO,
            mark: None,
            measured: None,
            ui: LiveUi {
                by: opts.by,
                camera: home,
                home,
                dirty: true,
                ..Default::default()
            },
            event_loop,
            off,
        };
        // open it now, so that a failure stops the run before it starts
        v.pump(Some(Duration::ZERO));
        if let Some(e) = v.ui.open_error.take() {
            return Err(e);
        }
        let mut src = Src::Sim(sim);
        v.ensure_surface(&src)?;
        v.draw(&mut src)?;
        Ok(Live { own, v })
    }
}

#[cfg(any(
    target_os = "linux",
    target_os = "windows",
    target_os = "macos",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd"
))]
impl LiveView {
    fn pump(&mut self, timeout: Option<Duration>) {
        use winit::platform::pump_events::EventLoopExtPumpEvents;
        if self.ui.closed {
            return;
        }
        if let Some(el) = self.event_loop.as_mut() {
            let _ = el.pump_app_events(timeout, &mut self.ui);
        }
    }

    fn ensure_surface(&mut self, src: &Src) -> Result<(), String> {
        let ctx = src.ctx();
        if self.ui.win.is_none() && !self.ui.closed {
            let Some(window) = self.ui.window.clone() else {
                return Ok(());
            };
            let (surface, config) = configure_surface(ctx, &window)?;
            let format = config.format;
            self.ui.win = Some(Win {
                depth: depth_view(ctx, config.width, config.height),
                renderer: Renderer::new(ctx, format),
                hud: Hud::new(ctx, format),
                window,
                surface,
                config,
            });
        }
        Ok(())
    }

    fn legend(&self) -> Legend {
        let i = ColorBy::ALL
            .iter()
            .position(|&b| b == self.ui.by)
            .unwrap_or(0);
        self.legends[i]
    }

    fn world_walls(&mut self, src: &mut Src) -> Vec<([[f32; 3]; 3], u32)> {
        let poses = if self.walls_move {
            src.walls()
        } else {
            Vec::new()
        };
        let mut world = self.walls.world(|w, p| match poses.get(w) {
            Some(pose) => pose.0.to_world(glam::DVec3::from(p)).to_array(),
            None => p,
        });
        // the FEM bodies' surfaces where they stand (after the walls)
        if let Some(set) = src.bodies() {
            world.extend(set.surface_triangles(self.n_walls));
        }
        world
            .into_iter()
            .flat_map(|(w, tris)| {
                tris.into_iter()
                    .map(move |t| (t.map(|v| v.map(|x| x as f32)), w as u32))
            })
            .collect()
    }

    fn lines(&self, src: &Src) -> Vec<String> {
        let step = src.steps_done();
        vec![
            self.name.clone(),
            format!("t = {:.4} s   step {step}", step as f64 * self.dt),
            format!(
                "{} particles   {:.3e} particle-steps/s",
                self.count, self.rate
            ),
            match self.ui.by.unit() {
                "" => format!("colour: {}", self.ui.by.name()),
                u => format!("colour: {} ({u})", self.ui.by.name()),
            },
        ]
    }

    /// Draws the simulation's state into the window (or the offscreen
    /// target) now.
    fn draw(&mut self, src: &mut Src) -> Result<(), String> {
        if self.off.is_some() {
            return self.draw_offscreen(src);
        }
        self.ensure_surface(src)?;
        if self.ui.win.is_none() {
            return Ok(());
        }
        let legend = self.legend();
        let by = self.ui.by;
        let walls = if self.walls_move || self.drawn == 0 {
            Some(self.world_walls(src))
        } else {
            None
        };
        let lines = self.lines(src);
        let title = format!(
            "talus run: {}{}",
            lines[1..].join("  "),
            if self.ui.paused { "  paused" } else { "" }
        );
        let clip = clip_plane(self.ui.clip, &self.ui.camera);
        let host = src.host_frame();
        let ctx = src.ctx();
        let w = self.ui.win.as_mut().expect("checked");
        if std::mem::take(&mut self.ui.resized) {
            w.surface.configure(&ctx.device, &w.config);
            w.depth = depth_view(ctx, w.config.width, w.config.height);
        }
        if let Some(t) = &walls {
            w.renderer.set_walls(t);
        }
        src.bind(&mut w.renderer, host.as_ref(), by, &legend);
        w.renderer.clip = clip;
        w.hud
            .update(ctx, w.config.width, w.config.height, &lines, &legend);
        w.window.set_title(&title);
        present(ctx, w, &self.ui.camera);
        self.drawn(src)
    }

    /// [`Live::draw`] into the offscreen target: the same renderer and
    /// overlay, submitted and not waited for, as a window's are.
    fn draw_offscreen(&mut self, src: &mut Src) -> Result<(), String> {
        let legend = self.legend();
        let by = self.ui.by;
        let walls = (self.walls_move || self.drawn == 0).then(|| self.world_walls(src));
        let lines = self.lines(src);
        let clip = clip_plane(self.ui.clip, &self.ui.camera);
        let host = src.host_frame();
        let ctx = src.ctx();
        let o = self.off.as_mut().expect("checked");
        if let Some(t) = &walls {
            o.renderer.set_walls(t);
        }
        src.bind(&mut o.renderer, host.as_ref(), by, &legend);
        o.renderer.clip = clip;
        o.hud.update(ctx, o.width, o.height, &lines, &legend);
        let target = (&o.color, &o.depth, (o.width, o.height));
        submit_picture(
            ctx,
            &o.renderer,
            &o.hud,
            target,
            &self.ui.camera,
            "view live offscreen",
        );
        self.drawn(src)
    }

    /// After a draw: the count, and the close after `--frames`.
    fn drawn(&mut self, src: &mut Src) -> Result<(), String> {
        self.ui.dirty = false;
        self.last_draw = Some(Instant::now());
        self.drawn += 1;
        if self.opts.frames.is_some_and(|n| self.drawn >= n) {
            if let Some(path) = self.opts.screenshot.take() {
                self.screenshot(src, &path)?;
            }
            self.ui.close();
        }
        Ok(())
    }

    fn screenshot(&mut self, src: &mut Src, path: &Path) -> Result<(), String> {
        let (width, height) = match (&self.off, &self.ui.win) {
            (Some(o), _) => (o.width, o.height),
            (None, Some(w)) => (w.config.width, w.config.height),
            (None, None) => (1280, 800),
        };
        let legend = self.legend();
        let walls = self.world_walls(src);
        let lines = self.lines(src);
        let host = src.host_frame();
        let ctx = src.ctx();
        let mut r = Renderer::new(ctx, headless::FORMAT);
        r.clip = clip_plane(self.ui.clip, &self.ui.camera);
        r.set_walls(&walls);
        src.bind(&mut r, host.as_ref(), self.ui.by, &legend);
        let off = Offscreen::new(ctx, width, height)?;
        let mut img = off.render(ctx, &r, &self.ui.camera)?;
        overlay::composite(
            &mut img.pixels,
            &overlay::draw(width, height, &lines, &legend),
        );
        img.write_png(path)
    }

    /// The rate of the last `n` steps, which took `took`, and the next
    /// piece's size: about [`LIVE_FRAME`] of simulation.
    fn pace(&mut self, n: u64, took: Duration) {
        self.rate = self.count as f64 * n as f64 / took.as_secs_f64().max(1e-9);
        if took < LIVE_FRAME / 3 {
            self.piece = (self.piece * 2).min(1 << 16);
        } else if took > LIVE_FRAME && self.piece > 1 {
            self.piece /= 2;
        }
    }

    /// Between two of the GPU path's submissions (`advance_observed`):
    /// events, a draw of `step` when one is due, the pause; the steps
    /// until the next call (None once the view is closed).
    fn between(&mut self, g: &GpuBackend, step: u64) -> Option<u64> {
        // steps per second since the last call, without its draw or pause
        // (the host runs at most a few submissions ahead of the device)
        let speed = self
            .mark
            .map(|(t, s)| (step - s) as f64 / t.elapsed().as_secs_f64().max(1e-9));
        if let Some(v) = speed {
            self.rate = self.count as f64 * v;
        }
        self.service(&mut Src::Mid(g, step));
        self.mark = Some((Instant::now(), step));
        if self.ui.closed {
            return None;
        }
        if std::mem::take(&mut self.ui.step_once) {
            self.ui.dirty = true;
            return Some(1);
        }
        // the next call where the next draw falls due (each call is a
        // submission of its own: no sooner than a few ms)
        let next = self
            .last_draw
            .map_or(Duration::ZERO, |t| self.gap().saturating_sub(t.elapsed()))
            .max(LIVE_FRAME / 8);
        self.piece = match speed {
            Some(v) => ((v * next.as_secs_f64()) as u64).clamp(1, 1 << 16),
            None => self.piece,
        };
        Some(self.piece)
    }

    /// The wall time between two draws: at most one per [`LIVE_FRAME`],
    /// and no sooner than nine times the last draw's cost, so that drawing
    /// takes at most ~10 % of the run's time on any device (a software
    /// rasteriser draws less often, a GPU at display rate).
    fn gap(&self) -> Duration {
        LIVE_FRAME.max(self.draw_cost * 9)
    }

    /// Between pieces of steps: events, a draw when one is due, and the
    /// pause (which waits here).
    fn service(&mut self, src: &mut Src) {
        if self.ui.closed {
            return;
        }
        self.pump(Some(Duration::ZERO));
        loop {
            let gap = self.gap();
            let due = self
                .last_draw
                .is_none_or(|t| t.elapsed() >= gap || self.ui.dirty && self.ui.paused);
            if due {
                // the cost is the draw's on the device, which runs it after
                // the steps queued before it: measured alone, with the
                // queue drained before and after, now and then (each
                // measure idles the device once)
                let measure = self.measured.is_none_or(|t| t.elapsed() >= MEASURE_EVERY);
                let device = &src.ctx().device;
                if measure {
                    let _ = device.poll(wgpu::PollType::wait_indefinitely());
                }
                let t = Instant::now();
                if let Err(e) = self.draw(src) {
                    eprintln!("view: {e}; the run goes on without it");
                    self.ui.close();
                }
                if measure {
                    let _ = src.ctx().device.poll(wgpu::PollType::wait_indefinitely());
                    self.draw_cost = t.elapsed();
                    self.measured = Some(Instant::now());
                }
            }
            if !self.ui.paused || self.ui.closed || self.ui.step_once {
                break;
            }
            self.pump(Some(Duration::from_millis(30)));
        }
    }
}

#[cfg(any(
    target_os = "linux",
    target_os = "windows",
    target_os = "macos",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd"
))]
impl Observe<AnyBackend> for Live {
    fn advance(&mut self, backend: &mut AnyBackend, steps: u64) -> Result<(), RunError> {
        let Live { own, v } = self;
        let own = own.as_ref();
        let mut left = steps;
        while left > 0 {
            v.service(&mut Src::Sim(LiveSim { b: backend, own }));
            // paused, S: one step, then the pause again
            let once = std::mem::take(&mut v.ui.step_once);
            if once {
                v.ui.dirty = true;
            }
            let n = match backend {
                // the GPU path: all the steps at once, drawn between its
                // submissions (queued after them: no wait, the device
                // never idles for the view)
                AnyBackend::Gpu(b) if !once => {
                    let first = if v.ui.closed { 0 } else { v.piece.min(left) };
                    v.mark = None;
                    b.advance_observed(left, first, &mut |g, step| v.between(g, step))?;
                    left
                }
                // the CPU path (drawn from a snapshot) and single steps:
                // pieces of about LIVE_FRAME
                _ => {
                    let n = if once { 1 } else { left.min(v.piece) };
                    let t = Instant::now();
                    backend.advance(n)?;
                    v.pace(n, t.elapsed());
                    n
                }
            };
            v.count = backend.particle_count();
            left -= n;
        }
        v.service(&mut Src::Sim(LiveSim { b: backend, own }));
        Ok(())
    }

    /// A run that ended before `--frames` pictures still leaves
    /// its `--screenshot` (of the last state).
    fn finish(&mut self, backend: &mut AnyBackend) {
        if let Some(path) = self.v.opts.screenshot.take() {
            let src = LiveSim {
                b: backend,
                own: self.own.as_ref(),
            };
            if let Err(e) = self.v.screenshot(&mut Src::Sim(src), &path) {
                eprintln!("warning: {e}");
            }
        }
    }
}

/// The clip plane when `on`: through the target, hiding the half towards
/// the eye.
fn clip_plane(on: bool, camera: &Camera) -> Option<[f32; 4]> {
    if !on {
        return None;
    }
    let d = camera.direction();
    let h = d - camera.up * d.dot(camera.up);
    let n = if h.length() > 1e-3 { h.normalize() } else { d };
    Some([n.x, n.y, n.z, -n.dot(camera.target)])
}
