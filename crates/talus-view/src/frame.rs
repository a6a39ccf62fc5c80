//! What one picture shows, independent of where it came from.

use super::colormap::{ColorBy, Legend};
use talus::scene::Scene;
use talus::state::Particles;

/// The particles and walls of one instant, in f32, ready to upload
/// (host side: a snapshot read from disk, or read back from a backend).
#[derive(Debug, Clone, Default)]
pub struct Frame {
    /// x, y, z, radius (m).
    pub pos_rad: Vec<[f32; 4]>,
    /// Velocity (m/s), for `ColorBy::Speed`.
    pub velocity: Vec<[f32; 3]>,
    pub material: Vec<u32>,
    pub id: Vec<u32>,
    /// The walls as world-frame triangles, with the wall index of each.
    pub walls: Vec<([[f32; 3]; 3], u32)>,
    /// Simulated time (s) and step.
    pub time: f64,
    pub step: u64,
}

impl Frame {
    /// The particles of a state (f64, any order), no walls, time 0.
    pub fn from_particles(p: &Particles<f64>) -> Frame {
        Frame {
            pos_rad: p.pos_rad.iter().map(|a| a.map(|x| x as f32)).collect(),
            velocity: p
                .vel_invm
                .iter()
                .map(|a| [a[0] as f32, a[1] as f32, a[2] as f32])
                .collect(),
            material: p.material.clone(),
            id: p.id.clone(),
            ..Default::default()
        }
    }

    /// A legend for `by` fixed for a whole run of `scene` from this
    /// (first) frame: speed up to the speed of a fall across the domain or
    /// the fastest particle now; height over the domain; material over the
    /// scene's materials; radius over the scene's range (poured sizes
    /// included); id up to `ids` (the particles the run can hold).
    pub fn scene_legend(&self, scene: &Scene, by: ColorBy, ids: u64) -> Legend {
        let d = &scene.domain;
        let g = scene.simulation.gravity;
        let g_len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        let extent = (0..3).map(|k| d.max[k] - d.min[k]).fold(0.0, f64::max);
        let fall = (2.0 * g_len * extent).sqrt() as f32;
        let mut l = Legend::for_values(by, &self.scalar(by));
        match by {
            ColorBy::Speed => l.max = l.max.max(fall),
            ColorBy::Height => (l.min, l.max) = (d.min[2] as f32, d.max[2] as f32),
            ColorBy::Material => {
                (l.min, l.max) = (0.0, scene.materials.len().saturating_sub(1) as f32)
            }
            ColorBy::Radius => {
                let (lo, hi) = scene.radius_range();
                if hi > lo {
                    (l.min, l.max) = (lo as f32, hi as f32);
                }
            }
            ColorBy::Id if ids > 1 => (l.min, l.max) = (0.0, (ids - 1) as f32),
            _ => {}
        }
        l
    }

    pub fn len(&self) -> usize {
        self.pos_rad.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos_rad.is_empty()
    }

    /// The per-particle value `by` colours by.
    pub fn scalar(&self, by: ColorBy) -> Vec<f32> {
        match by {
            ColorBy::Speed => self
                .velocity
                .iter()
                .map(|v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
                .collect(),
            ColorBy::Material => self.material.iter().map(|&m| m as f32).collect(),
            ColorBy::Id => self.id.iter().map(|&i| i as f32).collect(),
            ColorBy::Radius => self.pos_rad.iter().map(|p| p[3]).collect(),
            ColorBy::Height => self.pos_rad.iter().map(|p| p[2]).collect(),
        }
    }
}
