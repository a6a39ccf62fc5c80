//! `talus run --render-every T`: pictures during a run, headless. At the
//! first snapshot at or after each multiple of T (within a step) (snapshots come every
//! `output_interval`; the run driver hands each to [`Recorder::snapshot`]
//! with the walls where they are), the particles are drawn offscreen and
//! written as `frames/frame_NNNNN.png` in the run's folder, with the
//! overlay. The legend is fixed for the whole run from the scene (speed:
//! 0 to the fall speed across the domain or the fastest particle of the
//! first picture; height: the domain; material: the scene's materials;
//! radius: the scene's range; id: 0 to the particles the run can hold), so
//! colours compare across pictures. Its own device (the run's GPU path
//! keeps its own), any adapter, lavapipe included.

use super::camera::Camera;
use super::colormap::{ColorBy, Legend};
use super::frame::Frame;
use super::headless::{frame_lines, Offscreen, FORMAT};
use super::overlay;
use super::render::Renderer;
use std::path::PathBuf;
use talus::gpu::GpuContext;
use talus::scene::Scene;
use talus::state::Particles;

/// Pictures every `every` seconds of simulated time.
pub struct Recorder {
    ctx: GpuContext,
    renderer: Renderer,
    off: Offscreen,
    camera: Camera,
    legend: Option<Legend>,
    by: ColorBy,
    every: f64,
    next: f64,
    k: usize,
    /// Where the pictures go.
    pub out: PathBuf,
    name: String,
    scene: Scene,
    ids: u64,
    /// A snapshot within one step of a multiple of `every` is at it.
    dt: f64,
}

impl Recorder {
    /// `every` > 0 s; `size` (width, height); `camera`: a `--camera` spec.
    pub fn new(
        scene: &Scene,
        every: f64,
        out: PathBuf,
        by: ColorBy,
        size: (u32, u32),
        camera: Option<&str>,
        adapter: Option<&str>,
    ) -> Result<Recorder, String> {
        if !(every > 0.0 && every.is_finite()) {
            return Err(format!(
                "--render-every: expected a time > 0 s, got {every}"
            ));
        }
        let ctx = GpuContext::new(adapter).map_err(|e| match e {
            talus::gpu::GpuError::NoAdapter(_) if adapter.is_none() => {
                "--render-every: no GPU adapter to draw with: install mesa-vulkan-drivers for a software one".to_string()
            }
            e => format!("--render-every: {e}"),
        })?;
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let d = &scene.domain;
        let g = scene.simulation.gravity;
        let mut cam = Camera::frame(d.min, d.max, g);
        if let Some(spec) = camera {
            cam.apply_spec(spec)?;
        }
        // the run's numbers, as the backend resolves them
        let setup = talus::Setup::new(scene.clone()).map_err(|e| e.to_string())?;
        let renderer = Renderer::new(&ctx, FORMAT);
        let off = Offscreen::new(&ctx, size.0, size.1)?;
        Ok(Recorder {
            renderer,
            off,
            camera: cam,
            legend: None,
            by,
            every,
            next: 0.0,
            k: 0,
            out,
            name: scene.name.clone(),
            ids: scene.particles.len() as u64 + setup.inserts.max_inserted(setup.steps),
            dt: setup.dt,
            scene: setup.scene,
            ctx,
        })
    }

    /// Pictures written so far.
    pub fn count(&self) -> usize {
        self.k
    }

    /// A snapshot at time `t` (s), step `step`, with the walls as world
    /// triangles per wall: drawn when a picture is due.
    pub fn snapshot(
        &mut self,
        p: &Particles<f64>,
        walls: &[(usize, Vec<[[f64; 3]; 3]>)],
        t: f64,
        step: u64,
    ) -> Result<(), String> {
        if t + self.dt < self.next {
            return Ok(());
        }
        // the next multiple of `every` after t (t may fall a step short of one)
        self.next = (((t + self.dt) / self.every).floor() + 1.0) * self.every;
        let frame = Frame {
            walls: walls
                .iter()
                .flat_map(|(w, tris)| {
                    tris.iter()
                        .map(move |t| (t.map(|v| v.map(|x| x as f32)), *w as u32))
                })
                .collect(),
            time: t,
            step,
            ..Frame::from_particles(p)
        };
        let by = self.by;
        let legend = *self
            .legend
            .get_or_insert_with(|| frame.scene_legend(&self.scene, by, self.ids));
        self.renderer.set_frame(&frame, by, &legend);
        let mut img = self.off.render(&self.ctx, &self.renderer, &self.camera)?;
        let lines = frame_lines(&frame, by, &self.name);
        overlay::composite(
            &mut img.pixels,
            &overlay::draw(self.off.width, self.off.height, &lines, &legend),
        );
        let path = self.out.join(format!("frame_{:05}.png", self.k));
        img.write_png(&path)?;
        self.k += 1;
        Ok(())
    }
}
