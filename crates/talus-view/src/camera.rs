//! The orbit camera: a target point, a distance from it, a yaw about the
//! world's up axis (−gravity) and a pitch above the horizontal plane.
//! Gravity points down the image at every yaw and pitch (|pitch| < 89°).
//!
//! `--camera` ([`Camera::apply_spec`]) changes the framed camera with
//! comma-separated `key=value` items, angles in degrees:
//!
//! - `yaw=A`: the azimuth about the up axis (0: looking from the first
//!   horizontal axis, +x when gravity is along z; the default is −55);
//! - `pitch=A`: the elevation above the horizontal plane (−89..89, default
//!   25; 90 is clamped to 89);
//! - `zoom=F`: the distance divided by F (2 = twice as close);
//! - `distance=D`: the distance to the target (m);
//! - `fov=A`: the vertical field of view (default 35);
//! - `target=x,y,z`: the point looked at (m);
//! - `eye=x,y,z`: the eye's position (m): sets distance, yaw and pitch
//!   so that the camera looks from there at the target.
//!
//! Example: `--camera yaw=30,pitch=20,zoom=1.5` or
//! `--camera target=0,0,0.1,eye=0.5,-0.5,0.3`.

use glam::{Mat4, Vec3, Vec4};

/// Default azimuth (degrees): a three-quarter view.
pub const DEFAULT_YAW: f32 = -55.0;
/// Default elevation (degrees).
pub const DEFAULT_PITCH: f32 = 25.0;
/// Default vertical field of view (degrees).
pub const DEFAULT_FOV: f32 = 35.0;
const MAX_PITCH: f32 = 89.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// The point looked at (m).
    pub target: Vec3,
    /// From the target to the eye (m).
    pub distance: f32,
    /// Azimuth about `up` (radians).
    pub yaw: f32,
    /// Elevation above the plane normal to `up` (radians).
    pub pitch: f32,
    /// Vertical field of view (radians).
    pub fov_y: f32,
    /// The world's up: −gravity, unit.
    pub up: Vec3,
    /// The framed scene's radius (m): sets the near and far planes.
    pub radius: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Camera::frame([-0.5; 3], [0.5; 3], [0.0, 0.0, -9.81])
    }
}

/// Two unit vectors normal to `up` and to each other, `e1 × e2 = up`: the
/// horizontal axes yaw turns between (x and y for up = +z).
fn horizontal(up: Vec3) -> (Vec3, Vec3) {
    // the world axis least aligned with up, projected onto the plane
    let a = up.abs();
    let seed = if a.x <= a.y && a.x <= a.z {
        Vec3::X
    } else if a.y <= a.z {
        Vec3::Y
    } else {
        Vec3::X
    };
    let e1 = (seed - up * seed.dot(up)).normalize();
    let e2 = up.cross(e1);
    (e1, e2)
}

fn finite3(v: [f64; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

impl Camera {
    /// Frames the box `min..max` whole (its bounding sphere fits the
    /// vertical field of view, so every aspect ≥ 1 shows it all) at a
    /// three-quarter view, down the image = `gravity`'s direction (−z when
    /// gravity is zero).
    pub fn frame(min: [f64; 3], max: [f64; 3], gravity: [f64; 3]) -> Camera {
        let g = Vec3::from(gravity.map(|x| x as f32));
        let up = if finite3(gravity) && g.length() > 0.0 {
            -g.normalize()
        } else {
            Vec3::Z
        };
        let (lo, hi) = if finite3(min) && finite3(max) && min.iter().zip(&max).all(|(a, b)| a <= b)
        {
            (
                Vec3::from(min.map(|x| x as f32)),
                Vec3::from(max.map(|x| x as f32)),
            )
        } else {
            (Vec3::splat(-0.5), Vec3::splat(0.5))
        };
        let radius = (0.5 * (hi - lo).length()).max(1e-6);
        let fov_y = DEFAULT_FOV.to_radians();
        Camera {
            target: 0.5 * (lo + hi),
            distance: 1.08 * radius / (0.5 * fov_y).sin(),
            yaw: DEFAULT_YAW.to_radians(),
            pitch: DEFAULT_PITCH.to_radians(),
            fov_y,
            up,
            radius,
        }
    }

    /// Unit vector from the target to the eye.
    pub fn direction(&self) -> Vec3 {
        let (e1, e2) = horizontal(self.up);
        let h = self.yaw.cos() * e1 + self.yaw.sin() * e2;
        self.pitch.cos() * h + self.pitch.sin() * self.up
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.distance * self.direction()
    }

    /// The screen's right and up directions in the world.
    pub fn screen_axes(&self) -> (Vec3, Vec3) {
        let fwd = -self.direction();
        let right = fwd.cross(self.up).normalize();
        (right, right.cross(fwd))
    }

    /// Near and far planes: around the framed scene, whatever the zoom.
    fn planes(&self) -> (f32, f32) {
        let reach = self.distance + 4.0 * self.radius;
        let near = (self.distance - 2.0 * self.radius).max(1e-3 * reach);
        (near, reach)
    }

    pub fn view(&self) -> Mat4 {
        let eye = self.eye();
        let f = (self.target - eye).normalize();
        let r = f.cross(self.up).normalize();
        let u = r.cross(f);
        Mat4::from_cols(
            Vec4::new(r.x, u.x, -f.x, 0.0),
            Vec4::new(r.y, u.y, -f.y, 0.0),
            Vec4::new(r.z, u.z, -f.z, 0.0),
            Vec4::new(-r.dot(eye), -u.dot(eye), f.dot(eye), 1.0),
        )
    }

    /// Projection × view: right-handed, depth 0 (near) .. 1 (far), as wgpu
    /// wants.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.planes();
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let h = 1.0 / (0.5 * self.fov_y).tan();
        let r = far / (near - far);
        let proj = Mat4::from_cols(
            Vec4::new(h / aspect, 0.0, 0.0, 0.0),
            Vec4::new(0.0, h, 0.0, 0.0),
            Vec4::new(0.0, 0.0, r, -1.0),
            Vec4::new(0.0, 0.0, r * near, 0.0),
        );
        proj * self.view()
    }

    /// Turns the camera about the target: `dx` radians of yaw, `dy` of
    /// pitch (clamped to ±89°). Positive `dx` (a drag to the right) swings
    /// the eye to the left, so the scene turns with the mouse.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx;
        self.pitch = (self.pitch + dy).clamp(-MAX_PITCH.to_radians(), MAX_PITCH.to_radians());
    }

    /// Moves the target in the screen plane by `dx`, `dy` fractions of the
    /// view's height at the target (a drag to the right moves the scene
    /// right).
    pub fn pan(&mut self, dx: f32, dy: f32) {
        let (right, up) = self.screen_axes();
        let h = 2.0 * self.distance * (0.5 * self.fov_y).tan();
        self.target += h * (-dx * right + dy * up);
    }

    /// Moves closer by `factor` (> 1: in, < 1: out).
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance / factor).clamp(1e-4 * self.radius, 1e3 * self.radius);
        }
    }

    /// Applies a `--camera` spec (module docs); on error the camera is
    /// unchanged and the message names the item.
    pub fn apply_spec(&mut self, spec: &str) -> Result<(), String> {
        // "eye=1,2,3,yaw=4": items without '=' continue the previous value
        let mut items: Vec<(String, Vec<String>)> = Vec::new();
        for tok in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match tok.split_once('=') {
                Some((k, v)) => items.push((k.trim().to_lowercase(), vec![v.trim().to_string()])),
                None => match items.last_mut() {
                    Some((_, vals)) => vals.push(tok.to_string()),
                    None => return Err(format!("--camera: \"{tok}\": expected key=value")),
                },
            }
        }
        let num = |k: &str, v: &str| -> Result<f32, String> {
            v.parse::<f32>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("--camera {k}: \"{v}\" is not a number"))
        };
        let one = |k: &str, vals: &[String]| -> Result<f32, String> {
            match vals {
                [v] => num(k, v),
                _ => Err(format!("--camera {k}: expected one number")),
            }
        };
        let three = |k: &str, vals: &[String]| -> Result<Vec3, String> {
            match vals {
                [a, b, c] => Ok(Vec3::new(num(k, a)?, num(k, b)?, num(k, c)?)),
                _ => Err(format!("--camera {k}: expected x,y,z")),
            }
        };
        let mut c = *self;
        let mut eye = None;
        for (k, vals) in &items {
            match k.as_str() {
                "yaw" => c.yaw = one(k, vals)?.to_radians(),
                "pitch" => c.pitch = one(k, vals)?.clamp(-MAX_PITCH, MAX_PITCH).to_radians(),
                "zoom" => {
                    let z = one(k, vals)?;
                    if z <= 0.0 {
                        return Err(format!("--camera zoom: {z} is not > 0"));
                    }
                    c.distance /= z;
                }
                "distance" => {
                    let d = one(k, vals)?;
                    if d <= 0.0 {
                        return Err(format!("--camera distance: {d} is not > 0"));
                    }
                    c.distance = d;
                }
                "fov" => {
                    let f = one(k, vals)?;
                    if !(1.0..=170.0).contains(&f) {
                        return Err(format!("--camera fov: {f} is not within 1..170 degrees"));
                    }
                    c.fov_y = f.to_radians();
                }
                "target" => c.target = three(k, vals)?,
                "eye" => eye = Some(three(k, vals)?),
                _ => {
                    return Err(format!(
                    "--camera: unknown key \"{k}\" (yaw, pitch, zoom, distance, fov, target, eye)"
                ))
                }
            }
        }
        if let Some(e) = eye {
            let d = e - c.target;
            let len = d.length();
            if len <= 0.0 {
                return Err("--camera eye: the eye is at the target".into());
            }
            let dir = d / len;
            let (e1, e2) = horizontal(c.up);
            c.distance = len;
            c.pitch = dir
                .dot(c.up)
                .clamp(-1.0, 1.0)
                .asin()
                .clamp(-MAX_PITCH.to_radians(), MAX_PITCH.to_radians());
            c.yaw = dir.dot(e2).atan2(dir.dot(e1));
        }
        *self = c;
        Ok(())
    }
}
