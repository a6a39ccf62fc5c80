//! Steel spheres packed in 30 and 36 mm cylinders, against Folly's
//! experiments and Ferrez's simulations (Ferrez 2001, EPFL thesis 2432,
//! §5.8; long, `--full` only). `docs/applications/ferrez.md` has the setup,
//! the figures and the commands.
//!
//! Ferrez's model: linear spring–dashpot calibrated from a contact time
//! t_c = 1 ms and e = 0.3, μ = 0.1, k_t = k_n (§3.3, §5.2). The spheres are
//! placed without overlap in a tall cylinder (random sequential placement,
//! largest first), fall onto the floor and settle, are tapped (§5.2, §5.4:
//! the floor lifted 2 mm and dropped, at f Hz), and settle again. The
//! measure is Ferrez's and Folly's global density, Σ V_i / (π R² H) with H
//! the fill height (§4.6), besides the exact solid fraction of an interior
//! slice and the layered and radial profiles (`crate::analyze::fraction`).

use super::common::{err, measured};
use crate::analyze::fraction::{layered_profile, radial_profile, solid_fraction};
use crate::validate::maker::Maker;
use crate::validate::options::{Kind, Options, Spec};
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use std::collections::HashMap;
use std::f64::consts::PI;
use talus::rng::Rng;
use talus::scene::{Material, Oscillation, Region, Scene, SceneBuilder, Shape, Side, WallMotion};

/// Hard steel (§5.8), kg/m³.
pub const STEEL_DENSITY: f64 = 7780.0;
/// Ferrez's contact duration (§5.2), s.
pub const CONTACT_TIME: f64 = 1.0e-3;
/// Ferrez's restitution and friction (§5.2).
pub const RESTITUTION: f64 = 0.3;
pub const FRICTION: f64 = 0.1;
/// The tap's lift (§5.4: amplitude 2 mm), m.
pub const TAP_LIFT: f64 = 0.002;
/// Gravity, m/s².
pub const G: f64 = 9.81;

/// Folly's narrow distribution (§5.8.2, table 5.5): (diameter m, count).
pub const NARROW: [(f64, usize); 3] = [(0.015, 4), (0.007, 56), (0.004, 293)];

/// Folly's wide distribution (§5.8.3): 2 × 25 mm, 270 × 4 mm and
/// "approximately 8900" × 1 mm. Size ratio 1:25: the grid's levels make
/// it cost what the small spheres alone would.
pub const WIDE: [(f64, usize); 3] = [(0.025, 2), (0.004, 270), (0.001, 8900)];

/// One packing: the container, the spheres, how they are placed and
/// shaken.
#[derive(Debug, Clone)]
pub struct Packing {
    pub name: String,
    /// Inner diameter of the cylinder, m.
    pub cylinder_diameter: f64,
    /// (diameter m, count), any order (placed largest first).
    pub spheres: Vec<(f64, usize)>,
    /// Solid fraction of the placement column (sets its height).
    pub placement_fill: f64,
    pub seed: u64,
    /// Time to fall and settle before the taps, s.
    pub settle: f64,
    /// Tap frequency, Hz, and number of taps.
    pub tap_frequency: f64,
    pub taps: u32,
    /// Time to settle after the last tap, s.
    pub rest: f64,
    pub dt: f64,
    /// The linear law's stiffness, N/m (None: the contact time below, the
    /// stiffness of each pair from its reduced mass).
    pub stiffness: Option<f64>,
    /// The linear law's contact time, s, where `stiffness` is None:
    /// Ferrez's [`CONTACT_TIME`] but in diagnostics.
    pub contact_time: f64,
    /// The largest spheres stacked on the axis from the floor, at rest,
    /// before the others are placed around and above them.
    pub stack_largest: bool,
    /// Filled in two pours, as an experimenter would fill the tube (a
    /// diagnostic, `ferrez.wide_staged`, `ferrez.mono_staged`;
    /// [`staged_placement`]).
    pub staged: bool,
}

impl Packing {
    /// Ferrez's narrow distribution in a cylinder of `diameter` (m): taps
    /// at 4 Hz for `seconds` (a whole number of periods).
    pub fn narrow(diameter: f64, seconds: f64) -> Packing {
        let f = 4.0;
        Packing {
            name: format!("narrow {:.0} mm", 1e3 * diameter),
            cylinder_diameter: diameter,
            spheres: NARROW.to_vec(),
            placement_fill: 0.25,
            seed: 2001,
            settle: 0.5,
            tap_frequency: f,
            taps: (seconds * f).round() as u32,
            rest: 0.5,
            dt: 4.0e-5,
            stiffness: None,
            stack_largest: false,
            staged: false,
            contact_time: CONTACT_TIME,
        }
    }

    /// Ferrez's wide distribution in a cylinder of `diameter` (m): taps at
    /// 4 Hz for `seconds`. The two 25 mm spheres start stacked on the axis
    /// on the floor (a 25 mm sphere in a 30 mm tube has nowhere else to
    /// go); the 4 mm and 1 mm ones rain together from random positions
    /// around and above them (Ferrez placed the medium ones above the large
    /// and could not shake them down: his §5.8.3).
    ///
    /// Not Ferrez's contact time: with t_c = 1 ms each pair's stiffness
    /// follows its reduced mass, so a 1 mm sphere under a 25 mm one (0.64 N)
    /// is a 46 N/m spring, and ~60 of them at half a small radius of
    /// overlap would be needed to carry it (the run stopped at the overlap
    /// limit within 0.04 s). One stiffness for every pair, 2000 N/m: the
    /// lower 25 mm sphere, carrying both, compresses the floor 0.6 mm (0.05
    /// of its radius), a 4 mm sphere falling 1.3 m/s onto a 25 mm one
    /// 0.5 mm (1000 N/m let one reach the limit of half its radius), two
    /// 1 mm spheres meet for 0.1 ms (dt = t_c / 25). The column is denser
    /// than the narrow one's (solid fraction 0.45: a 94 mm fall).
    pub fn wide(diameter: f64, seconds: f64) -> Packing {
        let f = 4.0;
        Packing {
            name: format!("wide {:.0} mm", 1e3 * diameter),
            cylinder_diameter: diameter,
            spheres: WIDE.to_vec(),
            placement_fill: 0.45,
            seed: 2001,
            settle: 0.3,
            tap_frequency: f,
            taps: (seconds * f).round() as u32,
            rest: 0.2,
            dt: 4.0e-6,
            stiffness: Some(2000.0),
            stack_largest: true,
            staged: false,
            contact_time: CONTACT_TIME,
        }
    }

    /// `n` spheres of 1 mm in a cylinder of `diameter` (m).
    pub fn mono(diameter: f64, n: usize, seconds: f64) -> Packing {
        let f = 4.0;
        Packing {
            name: format!("mono 1 mm {:.0} mm", 1e3 * diameter),
            cylinder_diameter: diameter,
            spheres: vec![(0.001, n)],
            placement_fill: 0.3,
            seed: 2001,
            settle: 0.25,
            tap_frequency: f,
            taps: (seconds * f).round() as u32,
            rest: 0.25,
            dt: 4.0e-5,
            stiffness: None,
            stack_largest: false,
            staged: false,
            contact_time: CONTACT_TIME,
        }
    }

    pub fn radius(&self) -> f64 {
        0.5 * self.cylinder_diameter
    }

    /// Every contact `s` times as stiff (a diagnostic: how much of a
    /// packing's density is its contacts' softness): the given stiffness
    /// × s, or the contact time ÷ √s; dt ÷ √s either way, so a contact
    /// keeps its steps. Restitution and friction are unchanged.
    pub fn stiffer(&mut self, s: f64) {
        match &mut self.stiffness {
            Some(k) => *k *= s,
            None => self.contact_time /= s.sqrt(),
        }
        self.dt /= s.sqrt();
    }

    /// Total sphere volume, m³.
    pub fn solid_volume(&self) -> f64 {
        classes_volume(&self.spheres)
    }

    /// The smallest sphere diameter, m.
    pub fn smallest(&self) -> f64 {
        self.spheres
            .iter()
            .map(|s| s.0)
            .fold(f64::INFINITY, f64::min)
    }

    /// The placement's gap between spheres: 2 % of the smallest diameter.
    pub fn gap(&self) -> f64 {
        0.02 * self.smallest()
    }

    /// The lifter: a plane under the floor oscillating with amplitude
    /// a = g / ω² about TAP_LIFT − a, so its crest is TAP_LIFT above the
    /// floor and the part above the floor is (within the curvature of a
    /// sine) a lift and a free fall of TAP_LIFT: a tap every period.
    /// Returns (amplitude, resting height of the plane).
    pub fn lifter(&self) -> (f64, f64) {
        let w = 2.0 * PI * self.tap_frequency;
        let a = (G / (w * w)).max(TAP_LIFT);
        (a, TAP_LIFT - a)
    }

    /// Time of the taps' start and end, s.
    pub fn tap_window(&self) -> (f64, f64) {
        (
            self.settle,
            self.settle + self.taps as f64 / self.tap_frequency,
        )
    }

    pub fn duration(&self) -> f64 {
        self.tap_window().1 + self.rest
    }

    /// Height of the placement column, m.
    pub fn column_height(&self) -> f64 {
        self.column_for(self.solid_volume())
    }

    /// Height of a placement column holding `volume` (m³) of spheres.
    pub fn column_for(&self, volume: f64) -> f64 {
        let r = self.radius();
        volume / (self.placement_fill * PI * r * r)
    }
}

/// The volume of spheres in classes (diameter m, count), m³.
pub fn classes_volume(classes: &[(f64, usize)]) -> f64 {
    classes
        .iter()
        .map(|&(d, n)| n as f64 * PI * d * d * d / 6.0)
        .sum()
}

/// Random sequential placement without overlap in a cylinder of radius
/// `cyl_r` between the heights `z0` (the floor: 0) and `height`: largest
/// spheres first, each at a uniform random position clear of the wall,
/// the floor and every sphere already placed (by `gap`), after the spheres
/// `fixed` (kept first). Returns (x, y, z, r) per sphere.
pub fn place(
    cyl_r: f64,
    z0: f64,
    height: f64,
    spheres: &[(f64, usize)],
    gap: f64,
    seed: u64,
    fixed: &[[f64; 4]],
) -> Result<Vec<[f64; 4]>, String> {
    let mut sizes = spheres.to_vec();
    sizes.sort_by(|a, b| b.0.total_cmp(&a.0));
    let largest = fixed.iter().map(|p| 2.0 * p[3]).fold(0.0, f64::max);
    let cell = sizes.first().map_or(1.0, |s| s.0 + gap).max(largest + gap);
    let key = |p: [f64; 3]| {
        (
            (p[0] / cell).floor() as i64,
            (p[1] / cell).floor() as i64,
            (p[2] / cell).floor() as i64,
        )
    };
    let mut rng = Rng::new(seed);
    let mut out: Vec<[f64; 4]> = fixed.to_vec();
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in fixed.iter().enumerate() {
        grid.entry(key([p[0], p[1], p[2]])).or_default().push(i);
    }
    for (d, n) in sizes {
        let r = 0.5 * d;
        let room = cyl_r - r - gap;
        if room <= 0.0 || height - z0 < d + 2.0 * gap {
            return Err(format!("a sphere of {d} m does not fit"));
        }
        for _ in 0..n {
            let mut tries = 0u32;
            loop {
                tries += 1;
                if tries > 200_000 {
                    return Err(format!(
                        "no room for another sphere of {d} m after {} placed",
                        out.len()
                    ));
                }
                let (x, y) = (rng.range(-room, room), rng.range(-room, room));
                if x * x + y * y > room * room {
                    continue;
                }
                let z = rng.range(z0 + r + gap, height - r - gap);
                let p = [x, y, z];
                let k = key(p);
                let mut clear = true;
                'cells: for i in -1..=1 {
                    for j in -1..=1 {
                        for l in -1..=1 {
                            if let Some(v) = grid.get(&(k.0 + i, k.1 + j, k.2 + l)) {
                                for &q in v {
                                    let o = out[q];
                                    let (dx, dy, dz) = (o[0] - x, o[1] - y, o[2] - z);
                                    let m = o[3] + r + gap;
                                    if dx * dx + dy * dy + dz * dz < m * m {
                                        clear = false;
                                        break 'cells;
                                    }
                                }
                            }
                        }
                    }
                }
                if clear {
                    grid.entry(k).or_default().push(out.len());
                    out.push([x, y, z, r]);
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// The placement of a packing (its own seed and column).
pub fn placement(p: &Packing) -> Result<Vec<[f64; 4]>, String> {
    let gap = p.gap();
    let mut rest = p.spheres.clone();
    let mut fixed = Vec::new();
    if p.stack_largest {
        rest.sort_by(|a, b| b.0.total_cmp(&a.0));
        let (d, n) = rest.remove(0);
        for k in 0..n {
            fixed.push([0.0, 0.0, (k as f64 + 0.5) * (d + gap), 0.5 * d]);
        }
    }
    place(
        p.radius(),
        0.0,
        p.column_height(),
        &rest,
        gap,
        p.seed,
        &fixed,
    )
}

/// A staged filling, as an experimenter fills a tube, in two pours: half
/// of every class placed in a column of [`Packing::placement_fill`] and
/// settled for `p.settle` on `mk`, then the other half placed in a column
/// above that bed. With `stack_largest` (the wide packing, two largest
/// spheres) the lower large sphere stands on the floor in the first pour
/// and the upper one on the axis just above the first bed, the other
/// classes halved around them. Returns the second pour's placement (the
/// settled bed first), which [`run`] then settles, taps and measures as
/// any. Each pour falls from half the height of one, so its first
/// landings are gentler. A diagnostic: Folly's filling procedure is not
/// known.
pub fn staged_placement(mk: &mut dyn Maker, p: &Packing) -> Result<Vec<[f64; 4]>, String> {
    let gap = p.gap();
    let mut rest = p.spheres.clone();
    rest.sort_by(|a, b| b.0.total_cmp(&a.0));
    let large = if p.stack_largest {
        let (d_large, n_large) = rest.remove(0);
        if n_large != 2 {
            return Err(format!(
                "a staged filling with stacked spheres needs two largest spheres, not {n_large}"
            ));
        }
        Some(d_large)
    } else {
        None
    };
    let r = p.radius();
    let (first, second): (Vec<_>, Vec<_>) = (
        rest.iter().map(|&(d, n)| (d, n / 2)).collect(),
        rest.iter().map(|&(d, n)| (d, n - n / 2)).collect(),
    );
    let v_large = large.map_or(0.0, |d| PI * d.powi(3) / 6.0);
    let least = large.map_or(0.0, |d| d + 2.0 * gap);
    let column = |c: &[(f64, usize)]| p.column_for(v_large + classes_volume(c)).max(least);
    // the first pour (with the lower large sphere), settled
    let lower: Vec<[f64; 4]> = large
        .map(|d| vec![[0.0, 0.0, 0.5 * (d + gap), 0.5 * d]])
        .unwrap_or_default();
    let h1 = column(&first);
    let stage1 = place(r, 0.0, h1, &first, gap, p.seed, &lower)?;
    let mut settle = p.clone();
    settle.taps = 0;
    settle.rest = 0.0;
    let scene1 = scene(&settle, &stage1)?;
    let mut be = mk.make(&scene1)?;
    be.advance((p.settle / p.dt).round() as u64).map_err(err)?;
    let bed = be.snapshot().pos_rad;
    // the second pour in a column above the bed's highest point (the upper
    // large sphere on the axis at its foot)
    let top = bed.iter().map(|q| q[2] + q[3]).fold(0.0, f64::max);
    let mut fixed = bed;
    if let Some(d) = large {
        fixed.push([0.0, 0.0, top + 0.5 * d + gap, 0.5 * d]);
    }
    let h2 = top + column(&second);
    place(r, top, h2, &second, gap, p.seed + 1, &fixed)
}

/// Ferrez's steel with his restitution and friction.
pub fn steel() -> Material {
    Material {
        name: "steel".into(),
        density: STEEL_DENSITY,
        youngs_modulus: 2.0e11,
        poisson_ratio: 0.3,
        restitution: RESTITUTION,
        friction: FRICTION,
        rolling_friction: 0.0,
        rolling_viscous_damping: 0.0,
        cohesion_energy_density: 0.0,
        surface_energy: 0.0,
    }
}

/// The scene: cylinder (inside, infinite), floor z = 0, lifter under it,
/// the placed spheres at rest.
pub fn scene(p: &Packing, spheres: &[[f64; 4]]) -> Result<Scene, String> {
    let r = p.radius();
    let (amp, rest) = p.lifter();
    let (t0, t1) = p.tap_window();
    // (a staged filling's second column may end above the packing's)
    let top = spheres
        .iter()
        .map(|s| s[2] + s[3])
        .fold(p.column_height(), f64::max)
        + 0.01;
    let mut b = SceneBuilder::new(&format!("ferrez {}", p.name))
        .domain(
            [-r - 0.001, -r - 0.001, rest - amp - 0.001],
            [r + 0.001, r + 0.001, top],
        )
        .dt(p.dt)
        .duration(p.duration())
        .tangential_stiffness_ratio(1.0)
        .material(steel())
        .shape_wall(
            Shape::Cylinder {
                center: [0.0, 0.0, 0.0],
                axis: [0.0, 0.0, 1.0],
                radius: r,
                length: None,
                side: Side::Inside,
            },
            "steel",
        )
        .wall_name("cylinder")
        .wall([0.0; 3], [0.0, 0.0, 1.0], "steel")
        .wall_name("floor")
        .wall([0.0, 0.0, rest], [0.0, 0.0, 1.0], "steel")
        .wall_name("lifter")
        .wall_motion(WallMotion {
            oscillation: Some(Oscillation {
                amplitude: amp,
                frequency: p.tap_frequency,
                direction: [0.0, 0.0, 1.0],
            }),
            start: t0,
            stop: t1,
            ..Default::default()
        });
    b = match p.stiffness {
        Some(k) => b.linear_stiffness(k),
        None => b.linear_contact_time(p.contact_time),
    };
    for s in spheres {
        b = b.particle([s[0], s[1], s[2]], [0.0; 3], s[3], "steel");
    }
    b.build().map_err(err)
}

/// The placement as a particles CSV (`scenes/impact.csv`'s columns).
#[cfg(test)]
pub fn placement_csv(spheres: &[[f64; 4]]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("x,y,z,vx,vy,vz,wx,wy,wz,radius,material\n");
    for p in spheres {
        let _ = writeln!(s, "{},{},{},0,0,0,0,0,0,{},steel", p[0], p[1], p[2], p[3]);
    }
    s
}

/// Fill heights of a packing on the floor z = 0 in a cylinder of radius
/// `cyl_r`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Heights {
    /// The highest sphere top (what a plate laid on the packing reads).
    pub top: f64,
    /// Mean height of the free surface, sampled on a square grid of
    /// spacing `h` over the disc r ≤ cyl_r − h: at each point the highest
    /// sphere surface above it.
    pub surface: f64,
    /// 10th and 90th percentiles of the sampled surface.
    pub p10: f64,
    pub p90: f64,
}

pub fn fill_heights(pos_rad: &[[f64; 4]], cyl_r: f64, h: f64) -> Heights {
    let top = pos_rad
        .iter()
        .map(|p| p[2] + p[3])
        .fold(f64::NEG_INFINITY, f64::max);
    let n = (cyl_r / h).ceil() as i64;
    let mut zs = Vec::new();
    for i in -n..=n {
        for j in -n..=n {
            let (x, y) = (i as f64 * h, j as f64 * h);
            if x * x + y * y > (cyl_r - h) * (cyl_r - h) {
                continue;
            }
            let mut z = 0.0f64;
            for p in pos_rad {
                let rho2 = (p[0] - x).powi(2) + (p[1] - y).powi(2);
                if rho2 < p[3] * p[3] {
                    z = z.max(p[2] + (p[3] * p[3] - rho2).sqrt());
                }
            }
            zs.push(z);
        }
    }
    zs.sort_by(f64::total_cmp);
    let k = zs.len();
    Heights {
        top,
        surface: zs.iter().sum::<f64>() / k.max(1) as f64,
        p10: zs.get(k / 10).copied().unwrap_or(0.0),
        p90: zs.get(9 * k / 10).copied().unwrap_or(0.0),
    }
}

/// Global density Σ V_i / (π R² H).
pub fn global_density(pos_rad: &[[f64; 4]], cyl_r: f64, height: f64) -> f64 {
    let v: f64 = pos_rad
        .iter()
        .map(|p| 4.0 / 3.0 * PI * p[3] * p[3] * p[3])
        .sum();
    v / (PI * cyl_r * cyl_r * height)
}

/// What one packing run measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Global density with H = highest sphere top, at the end.
    pub phi_top: f64,
    /// With H = mean free-surface height.
    pub phi_surface: f64,
    pub h_top: f64,
    pub h_surface: f64,
    /// 10th and 90th percentiles of the free surface's height.
    pub surface_spread: (f64, f64),
    /// Settled, before the taps (H = highest top).
    pub phi_before: f64,
    /// After 1 s of taps (H = highest top, in the rest phase).
    pub phi_1s: Option<f64>,
    /// Exact solid fraction of the interior slice, and its bounds.
    pub phi_slice: f64,
    pub slice: (f64, f64),
    /// (time, global density with H = highest top) at every whole tap
    /// period and at the end.
    pub history: Vec<(f64, f64)>,
    pub layered: Vec<(f64, f64)>,
    pub radial: Vec<(f64, f64)>,
    pub kinetic_end: f64,
    pub max_overlap: f64,
    pub seconds: f64,
    pub steps: u64,
}

impl Measured {
    /// One run in a sentence: the schedule it ran, its heights and
    /// densities, the largest overlap and what still moved at the end
    /// (the `ferrez` and `tapping` cases' notes).
    pub fn note(&self, p: &Packing) -> String {
        format!(
            "{} spheres, dt = {:.1e} s, {} steps ({:.1} s simulated: settle {} s, {} taps at {} Hz lifting {} mm, rest {} s), {:.0} s; H = {:.2} mm (highest top), {:.2} mm (mean surface, 10–90 % {:.2}–{:.2} mm); φ = {:.4} (top), {:.4} (surface), {:.4} before the taps{}; interior slice {:.1}–{:.1} mm: {:.4}; largest overlap / r {:.3}, kinetic energy at the end {:.2e} J.",
            p.spheres.iter().map(|s| s.1).sum::<usize>(),
            p.dt,
            self.steps,
            p.duration(),
            p.settle,
            p.taps,
            p.tap_frequency,
            1e3 * TAP_LIFT,
            p.rest,
            self.seconds,
            1e3 * self.h_top,
            1e3 * self.h_surface,
            1e3 * self.surface_spread.0,
            1e3 * self.surface_spread.1,
            self.phi_top,
            self.phi_surface,
            self.phi_before,
            self.phi_1s
                .map_or(String::new(), |x| format!(", {x:.4} after 1 s of taps")),
            1e3 * self.slice.0,
            1e3 * self.slice.1,
            self.phi_slice,
            self.max_overlap,
            self.kinetic_end,
        )
    }

    /// The heights and densities as the report's data points of `case`,
    /// under `key`.
    pub fn points(&self, out: &mut CaseResult, case: &str, key: &str) {
        for (q, v) in [
            ("phi_top", self.phi_top),
            ("phi_surface", self.phi_surface),
            ("phi_before", self.phi_before),
            ("phi_slice", self.phi_slice),
            ("h_top_mm", 1e3 * self.h_top),
            ("h_surface_mm", 1e3 * self.h_surface),
        ] {
            out.point(case, key, q, v);
        }
        if let Some(x) = self.phi_1s {
            out.point(case, key, "phi_1s", x);
        }
    }

    /// The density rows every packing reports under `label`: with H the
    /// highest top (`top`, judged: `expected` ± `tol`), with H the mean
    /// surface, and the interior slice (against `slice_expected`), the
    /// last two for information.
    pub fn density_rows(
        &self,
        out: &mut CaseResult,
        label: &str,
        top: &str,
        expected: f64,
        tol: f64,
        slice_expected: f64,
    ) {
        out.row(Row::new(label, top, expected, self.phi_top, Tol::Abs(tol)));
        out.row(Row::new(
            label,
            "global density, H = mean surface",
            expected,
            self.phi_surface,
            Tol::Info,
        ));
        out.row(Row::new(
            label,
            "solid fraction, interior slice",
            slice_expected,
            self.phi_slice,
            Tol::Info,
        ));
    }
}

fn cyl_region(r: f64, lo: f64, hi: f64) -> Region {
    Region::Cylinder {
        center: [0.0, 0.0, lo],
        axis: [0.0, 0.0, 1.0],
        radius: r,
        length: hi - lo,
    }
}

/// What a run prints and writes besides its measurements
/// (`ferrez.debug`, `ferrez.dump`; the tapping study's own two).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Watch {
    /// Progress on stderr: the settle, and the density after every tap.
    pub debug: bool,
    /// The final positions as CSV, `<dump>_<packing>.csv`.
    pub dump: Option<String>,
}

/// Runs a packing on one backend and measures it.
pub fn run(mk: &mut dyn Maker, p: &Packing, watch: &Watch) -> Result<Measured, String> {
    let start = std::time::Instant::now();
    let spheres = if p.staged {
        staged_placement(mk, p)?
    } else {
        placement(p)?
    };
    let scene = scene(p, &spheres)?;
    let r = p.radius();
    let dmin = p.smallest();
    let dmax = p.spheres.iter().map(|s| s.0).fold(0.0, f64::max);
    let mut be = mk.make(&scene)?;
    let per = |t: f64| (t / p.dt).round() as u64;
    let mut m = Measured::default();
    let debug = watch.debug;
    let phi_now = |be: &mut Box<dyn talus::backend::Backend>| {
        let s = be.snapshot();
        let top = s
            .pos_rad
            .iter()
            .map(|q| q[2] + q[3])
            .fold(f64::NEG_INFINITY, f64::max);
        global_density(&s.pos_rad, r, top)
    };
    // the settle in pieces of 0.05 s (progress with `debug`)
    let piece = per(0.05).max(1);
    let mut left = per(p.settle);
    while left > 0 {
        let n = left.min(piece);
        be.advance(n).map_err(err)?;
        left -= n;
        if debug {
            let l = be.list_stats();
            eprintln!(
                "ferrez {}: settling, step {}, {} builds, {} entries, {} contacts, {:.0} s",
                p.name,
                be.steps_done(),
                l.builds,
                l.entries,
                l.contacts,
                start.elapsed().as_secs_f64()
            );
        }
    }
    m.phi_before = phi_now(&mut be);
    m.history.push((p.settle, m.phi_before));
    let period = 1.0 / p.tap_frequency;
    for k in 1..=p.taps {
        be.advance(per(period)).map_err(err)?;
        let t = p.settle + k as f64 * period;
        let phi = phi_now(&mut be);
        m.history.push((t, phi));
        if (k as f64 * period - 1.0).abs() < 1e-9 {
            m.phi_1s = Some(phi);
        }
        if debug {
            eprintln!(
                "ferrez {}: t = {t:.3} s, φ = {phi:.4}, {:.0} s",
                p.name,
                start.elapsed().as_secs_f64()
            );
        }
    }
    be.advance(per(p.rest)).map_err(err)?;
    let s = be.snapshot();
    if let Some(path) = &watch.dump {
        let rows: Vec<String> = s
            .pos_rad
            .iter()
            .map(|q| format!("{},{},{},{}", q[0], q[1], q[2], q[3]))
            .collect();
        let _ = std::fs::write(
            format!("{path}_{}.csv", p.name.replace(' ', "_")),
            rows.join("\n"),
        );
    }
    let hs = fill_heights(&s.pos_rad, r, 0.5 * dmin);
    let (h_top, h_surface) = (hs.top, hs.surface);
    m.h_top = h_top;
    m.h_surface = h_surface;
    m.surface_spread = (hs.p10, hs.p90);
    m.phi_top = global_density(&s.pos_rad, r, h_top);
    m.phi_surface = global_density(&s.pos_rad, r, h_surface);
    m.history.push((p.duration(), m.phi_top));
    // interior slice: one largest diameter clear of the floor and of the
    // mean free surface, over the whole cross-section
    m.slice = (dmax, h_surface - dmax);
    if m.slice.1 > m.slice.0 {
        m.phi_slice = solid_fraction(&s.pos_rad, &cyl_region(r, m.slice.0, m.slice.1));
    }
    let nl = (h_top / (0.5 * dmin)).ceil().max(1.0) as usize;
    m.layered = layered_profile(&s.pos_rad, &cyl_region(r, 0.0, h_top), nl)
        .iter()
        .map(|b| (0.5 * (b.lo + b.hi), b.fraction))
        .collect();
    if m.slice.1 > m.slice.0 {
        let nr = (r / (0.25 * dmin)).ceil().max(1.0) as usize;
        m.radial = radial_profile(&s.pos_rad, &cyl_region(r, m.slice.0, m.slice.1), nr)
            .iter()
            .map(|b| (0.5 * (b.lo + b.hi), b.fraction))
            .collect();
    }
    m.kinetic_end = be.diagnostics().kinetic_translational;
    m.max_overlap = be.max_overlap_ratio();
    m.steps = be.steps_done();
    m.seconds = start.elapsed().as_secs_f64();
    Ok(m)
}

/// Folly's global density from a fill height (m) and the sphere volume.
fn folly(p: &Packing, height: f64) -> f64 {
    p.solid_volume() / (PI * p.radius() * p.radius() * height)
}

/// Number of 1 mm spheres of the monodisperse run (Ferrez: ~13 000).
const MONO_N: usize = 13_000;

/// The case's options: diagnostics, none set in the judged run
/// (docs/applications/ferrez.md).
pub const OPTIONS: &[Spec] = &[
    Spec {
        key: "ferrez.only",
        kind: Kind::Text,
        expected: "part of a packing's name (narrow 30 mm, narrow 36 mm, wide 30 mm, mono 1 mm 30 mm)",
        default: "(all four)",
        help: "only the packings whose name holds this (narrow, 36, mono, ...)",
    },
    Spec {
        key: "ferrez.seconds",
        kind: Kind::AtLeast(0.0),
        expected: "a time ≥ 0 in seconds",
        default: "10",
        help: "the narrow packings' tapping time, s",
    },
    Spec {
        key: "ferrez.wide_seconds",
        kind: Kind::AtLeast(0.0),
        expected: "a time ≥ 0 in seconds",
        default: "1",
        help: "the wide packing's tapping time, s",
    },
    Spec {
        key: "ferrez.mono_seconds",
        kind: Kind::AtLeast(0.0),
        expected: "a time ≥ 0 in seconds",
        default: "1.5",
        help: "the mono packing's tapping time, s",
    },
    Spec {
        key: "ferrez.mono_count",
        kind: Kind::Whole(1),
        expected: "a whole number ≥ 1",
        default: "13000",
        help: "1 mm spheres in the mono packing (Ferrez's ~13 000; Folly's ~26 000)",
    },
    Spec {
        key: "ferrez.stiffer",
        kind: Kind::Above(0.0),
        expected: "a factor > 0",
        default: "1",
        help: "every contact S × stiffer, dt ÷ √S",
    },
    Spec {
        key: "ferrez.wide_staged",
        kind: Kind::Bool,
        expected: "true or false",
        default: "false",
        help: "the wide packing filled in two stages (the lower 25 mm sphere with half the others, settled, then the rest)",
    },
    Spec {
        key: "ferrez.mono_staged",
        kind: Kind::Bool,
        expected: "true or false",
        default: "false",
        help: "the mono packing poured in two halves, the first settled before the second",
    },
    Spec {
        key: "ferrez.debug",
        kind: Kind::Bool,
        expected: "true or false",
        default: "false",
        help: "progress on stderr: the settle, the density after every tap",
    },
    Spec {
        key: "ferrez.dump",
        kind: Kind::Text,
        expected: "a path prefix",
        default: "(none)",
        help: "writes each packing's final positions to PREFIX_<packing>.csv",
    },
];

/// The case's options as read: the judged case when none is set.
#[derive(Debug, Clone, PartialEq)]
pub struct Knobs {
    /// Tapping times, s: the narrow, the mono and the wide packings.
    pub narrow_s: f64,
    pub mono_s: f64,
    pub wide_s: f64,
    /// Spheres in the mono packing.
    pub mono_n: usize,
    /// Every contact this many times stiffer (None: as judged).
    pub stiffer: Option<f64>,
    pub wide_staged: bool,
    pub mono_staged: bool,
    /// Only the packings whose name holds this.
    pub only: Option<String>,
    pub watch: Watch,
}

impl Knobs {
    /// The options read; an `only` that names no packing is an error
    /// naming them.
    pub fn from_options(o: &Options) -> Result<Knobs, String> {
        let k = Knobs {
            narrow_s: o.number("ferrez.seconds").unwrap_or(10.0),
            mono_s: o.number("ferrez.mono_seconds").unwrap_or(1.5),
            wide_s: o.number("ferrez.wide_seconds").unwrap_or(1.0),
            mono_n: o.whole("ferrez.mono_count").unwrap_or(MONO_N),
            stiffer: o.number("ferrez.stiffer"),
            wide_staged: o.flag("ferrez.wide_staged"),
            mono_staged: o.flag("ferrez.mono_staged"),
            only: o.text("ferrez.only").map(String::from),
            watch: Watch {
                debug: o.flag("ferrez.debug"),
                dump: o.text("ferrez.dump").map(String::from),
            },
        };
        if let Some(only) = &k.only {
            let runs = runs(&k);
            if !runs.iter().any(|r| r.0.name.contains(only.as_str())) {
                let names: Vec<&str> = runs.iter().map(|r| r.0.name.as_str()).collect();
                return Err(format!(
                    "ferrez.only: expected part of a packing's name ({}), got {only:?}",
                    names.join(", ")
                ));
            }
        }
        Ok(k)
    }
}

/// The case's packings: (packing, Folly's height or density, tolerance,
/// Ferrez's 1 s, 10 s). Tolerances chosen before any run, see
/// docs/applications/ferrez.md.
fn runs(k: &Knobs) -> Vec<(Packing, f64, f64, String)> {
    let mut runs: Vec<(Packing, f64, f64, String)> = vec![
        {
            let p = Packing::narrow(0.030, k.narrow_s);
            let e = folly(&p, 0.062);
            (
                p,
                e,
                0.015,
                "Folly: 62 mm in 5 repeats (61 %); Ferrez: 59.44 % at 1 s, 60.78 % at 10 s".into(),
            )
        },
        {
            let p = Packing::narrow(0.036, k.narrow_s);
            let e = folly(&p, 0.0445);
            (
                p,
                e,
                0.015,
                "Folly: 44, 44.5, 45 mm (60 %); Ferrez: 58.42 % at 1 s, 58.84 % at 10 s".into(),
            )
        },
        (
            Packing {
                staged: k.wide_staged,
                ..Packing::wide(0.030, k.wide_s)
            },
            0.81,
            0.03,
            "Folly: 81 % in the 30 mm cylinder (the 36 mm one segregated and was dropped); Ferrez: no match (his placement put the 4 mm spheres above the 25 mm ones)".into(),
        ),
        (
            Packing {
                staged: k.mono_staged,
                ..Packing::mono(0.030, k.mono_n, k.mono_s)
            },
            0.66,
            0.025,
            "Folly: 66 % (~26 000 spheres); Ferrez: 63.8–65.1 % (~13 000 spheres, 2 s)".into(),
        ),
    ];
    if let Some(f) = k.stiffer {
        for (p, ..) in &mut runs {
            p.stiffer(f);
        }
    }
    runs
}

pub fn case_ferrez(mk: &mut dyn Maker, opts: &Options) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    let mut layered = Vec::new();
    let mut radial = Vec::new();
    let mut history = Vec::new();
    let k = Knobs::from_options(opts)?;
    let runs = runs(&k);
    if let Some(f) = k.stiffer {
        out.notes.push(format!(
            "diagnostic: every contact {f} × stiffer (ferrez.stiffer), dt ÷ {:.3}",
            f.sqrt()
        ));
    }
    if k.mono_staged {
        out.notes.push(
            "diagnostic: the mono packing poured in two halves (ferrez.mono_staged), the first settled before the second is placed above it".into(),
        );
    }
    if k.wide_staged {
        out.notes.push(
            "diagnostic: the wide packing filled in two stages (ferrez.wide_staged): the lower 25 mm sphere with half of the others, settled, then the upper one and the other half".into(),
        );
    }
    // ferrez.only=30 runs only the packings whose name holds it
    let only = k.only.clone();
    for (p, expected, tol, refs) in runs {
        if only.as_ref().is_some_and(|o| !p.name.contains(o.as_str())) {
            continue;
        }
        let m = run(mk, &p, &k.watch)?;
        let label = format!("ferrez {}", p.name);
        out.notes.push(format!("{}: {} {refs}", p.name, m.note(&p)));
        let top = "global density, H = highest top";
        m.density_rows(&mut out, &label, top, expected, tol, expected);
        m.points(&mut out, "ferrez", &p.name.replace(' ', "_"));
        layered.push(measured(
            &p.name,
            m.layered.iter().map(|&(z, f)| (1e3 * z, f)).collect(),
        ));
        radial.push(measured(
            &p.name,
            m.radial.iter().map(|&(x, f)| (1e3 * x, f)).collect(),
        ));
        history.push(measured(&p.name, m.history.clone()));
    }
    out.plots.push(Plot {
        stem: "ferrez_layered".into(),
        title: "Layered solid fraction".into(),
        x_label: "height above the floor (mm)".into(),
        y_label: "solid fraction".into(),
        caption: "Solid fraction of horizontal layers half a small diameter thick (exact sphere–slab volumes over the cylinder's cross-section), after the taps and the final rest.".into(),
        series: layered,
    });
    out.plots.push(Plot {
        stem: "ferrez_radial".into(),
        title: "Radial solid fraction".into(),
        x_label: "distance from the axis (mm)".into(),
        y_label: "solid fraction".into(),
        caption: "Solid fraction of concentric shells a quarter small diameter thick in the interior slice (one largest diameter clear of the floor and the free surface), after the final rest.".into(),
        series: radial,
    });
    out.plots.push(Plot {
        stem: "ferrez_history".into(),
        title: "Global density while tapping".into(),
        x_label: "time (s)".into(),
        y_label: "global density (H = highest top)".into(),
        caption: "Global density Σ V / (π R² H), H the highest sphere top, at the end of the settle, at every whole tap period (the lifter below the floor) and at the end.".into(),
        series: history,
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::options::Catalogue;

    /// Unset, or set to their listed defaults, the options are the judged
    /// case; `ferrez.only` that names no packing names them.
    #[test]
    fn options_unset_or_at_their_defaults_are_the_judged_case() {
        let read = |w: &[&str]| {
            Knobs::from_options(&Catalogue(vec![("ferrez", "", OPTIONS)]).parse(w).unwrap())
        };
        let judged = read(&[]).unwrap();
        assert_eq!(
            judged,
            Knobs {
                narrow_s: 10.0,
                mono_s: 1.5,
                wide_s: 1.0,
                mono_n: MONO_N,
                stiffer: None,
                wide_staged: false,
                mono_staged: false,
                only: None,
                watch: Watch::default(),
            }
        );
        let defaults: Vec<String> = OPTIONS
            .iter()
            .filter(|s| !s.default.starts_with('(') && s.key != "ferrez.stiffer")
            .map(|s| format!("{}={}", s.key, s.default))
            .collect();
        assert_eq!(
            read(&defaults.iter().map(|w| w.as_str()).collect::<Vec<_>>()).unwrap(),
            judged
        );
        // stiffer=1 leaves every packing's contacts and step as judged
        let one = read(&["ferrez.stiffer=1"]).unwrap();
        for (a, b) in runs(&one).iter().zip(runs(&judged)) {
            assert_eq!((a.0.dt, a.0.contact_time), (b.0.dt, b.0.contact_time));
            assert_eq!(a.0.stiffness, b.0.stiffness);
        }
        let k = read(&[
            "ferrez.only=mono",
            "ferrez.mono_count=26000",
            "ferrez.mono_staged=true",
        ])
        .unwrap();
        let mono = &runs(&k)[3].0;
        assert!(mono.staged && mono.name.contains("mono"));
        assert_eq!(mono.spheres.iter().map(|s| s.1).sum::<usize>(), 26000);
        assert_eq!(
            read(&["ferrez.only=40"]).unwrap_err(),
            "ferrez.only: expected part of a packing's name (narrow 30 mm, narrow 36 mm, wide 30 mm, mono 1 mm 30 mm), got \"40\""
        );
    }

    /// The shipped placement (`scenes/ferrez_narrow.csv`) is this code's.
    /// When the placement changes on purpose, the failure writes this
    /// code's file and says where: copy it over the shipped one.
    #[test]
    fn shipped_narrow_placement_is_this_codes() {
        let p = Packing::narrow(0.030, 10.0);
        let csv = placement_csv(&placement(&p).unwrap());
        let path = crate::repo_root().join("scenes/ferrez_narrow.csv");
        if std::fs::read_to_string(&path).ok().as_deref() != Some(csv.as_str()) {
            let new = std::env::temp_dir().join("ferrez_narrow.csv");
            std::fs::write(&new, &csv).unwrap();
            panic!(
                "{} is not this code's placement; if the change is meant: cp {} {}",
                path.display(),
                new.display(),
                path.display()
            );
        }
    }

    #[test]
    fn placement_has_no_overlap_and_fits() {
        let p = Packing::narrow(0.030, 10.0);
        let s = placement(&p).unwrap();
        assert_eq!(s.len(), 353);
        for (i, a) in s.iter().enumerate() {
            assert!(a[0].hypot(a[1]) + a[3] < p.radius() && a[2] > a[3]);
            for b in &s[..i] {
                let d =
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
                assert!(d > a[3] + b[3]);
            }
        }
        // Folly's heights give his densities (61 %, 60 %)
        assert!((folly(&p, 0.062) - 0.6148).abs() < 1e-4);
        let q = Packing::narrow(0.036, 10.0);
        assert!((folly(&q, 0.0445) - 0.5948).abs() < 1e-4);
    }

    /// A column that starts above the floor (a staged filling's second
    /// stage) is filled between its two heights, clear of the spheres
    /// already there.
    #[test]
    fn placement_above_a_bed_stays_in_its_column() {
        let bed = [[0.0, 0.0, 0.0125, 0.0125], [0.005, 0.0, 0.027, 0.001]];
        let s = place(
            0.015,
            0.03,
            0.06,
            &[(0.004, 20), (0.001, 300)],
            2e-5,
            9,
            &bed,
        )
        .unwrap();
        assert_eq!(s.len(), 322);
        assert_eq!(&s[..2], &bed[..]);
        for a in &s[2..] {
            assert!(a[2] - a[3] > 0.03 && a[2] + a[3] < 0.06, "{a:?}");
            assert!(a[0].hypot(a[1]) + a[3] < 0.015);
            for b in &bed {
                let d =
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
                assert!(d > a[3] + b[3]);
            }
        }
    }

    #[test]
    fn lifter_crest_is_the_tap_lift() {
        let p = Packing::narrow(0.030, 1.0);
        let (a, c) = p.lifter();
        assert!((a + c - TAP_LIFT).abs() < 1e-15);
        assert!((a * (2.0 * PI * 4.0f64).powi(2) - G).abs() < 1e-9);
    }
}
