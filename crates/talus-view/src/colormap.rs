//! Colour by a per-particle field: the fields, the colour maps, the
//! legend's range.
//!
//! Colours are **linear** RGBA in 0..1 (sRGB control points decoded), for
//! an `*Srgb` render target, which encodes them back.

/// The field particles are coloured by (`--color-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorBy {
    /// |v| (m/s), the default.
    #[default]
    Speed,
    Material,
    Id,
    Radius,
    /// z (m).
    Height,
}

impl ColorBy {
    /// Every field, in the order `next` cycles through.
    pub const ALL: [ColorBy; 5] = [
        ColorBy::Speed,
        ColorBy::Material,
        ColorBy::Id,
        ColorBy::Radius,
        ColorBy::Height,
    ];

    /// From its name (case-insensitive): speed, material, id, radius,
    /// height.
    pub fn parse(s: &str) -> Result<ColorBy, String> {
        let l = s.trim().to_lowercase();
        ColorBy::ALL
            .into_iter()
            .find(|c| c.name() == l)
            .ok_or_else(|| {
                format!("--color-by \"{s}\": expected one of speed, material, id, radius, height")
            })
    }

    pub fn name(self) -> &'static str {
        match self {
            ColorBy::Speed => "speed",
            ColorBy::Material => "material",
            ColorBy::Id => "id",
            ColorBy::Radius => "radius",
            ColorBy::Height => "height",
        }
    }

    /// The unit of the values ("" for indices).
    pub fn unit(self) -> &'static str {
        match self {
            ColorBy::Speed => "m/s",
            ColorBy::Material | ColorBy::Id => "",
            ColorBy::Radius | ColorBy::Height => "m",
        }
    }

    /// Material and id take [`categorical`] colours; the others the
    /// sequential [`table`].
    pub fn is_categorical(self) -> bool {
        matches!(self, ColorBy::Material | ColorBy::Id)
    }

    /// The next field (the window's C key), back to the first after the
    /// last.
    pub fn next(self) -> ColorBy {
        let i = ColorBy::ALL.iter().position(|&c| c == self).unwrap_or(0);
        ColorBy::ALL[(i + 1) % ColorBy::ALL.len()]
    }
}

/// sRGB (0..1) → linear.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Relative luminance of a linear RGB colour.
pub fn luminance(c: [f32; 4]) -> f32 {
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

/// The sequential map's control points (sRGB, 0..255): deep indigo, blue,
/// teal, green, yellow; luminance rises at every one, and, as the table
/// interpolates linear RGB (where luminance is linear), between them.
const CONTROL: [[u8; 3]; 6] = [
    [48, 18, 88],
    [58, 76, 150],
    [32, 134, 150],
    [52, 178, 118],
    [160, 214, 62],
    [250, 232, 60],
];

/// The sequential map: 256 linear RGBA entries, dark (low) to light (high),
/// luminance strictly increasing.
pub fn table() -> Vec<[f32; 4]> {
    let pts: Vec<[f32; 3]> = CONTROL
        .iter()
        .map(|c| c.map(|x| srgb_to_linear(x as f32 / 255.0)))
        .collect();
    let segs = (pts.len() - 1) as f32;
    (0..256)
        .map(|i| {
            let s = i as f32 / 255.0 * segs;
            let k = (s.floor() as usize).min(pts.len() - 2);
            let f = s - k as f32;
            let (a, b) = (pts[k], pts[k + 1]);
            [
                a[0] + f * (b[0] - a[0]),
                a[1] + f * (b[1] - a[1]),
                a[2] + f * (b[2] - a[2]),
                1.0,
            ]
        })
        .collect()
}

/// Ten well-separated colours (sRGB): materials and the first ids.
const PALETTE: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// A colour for category `k` (material index, particle id), linear RGBA:
/// ten distinct colours, then hues spread by the golden angle.
pub fn categorical(k: u32) -> [f32; 4] {
    let srgb = if (k as usize) < PALETTE.len() {
        PALETTE[k as usize].map(|x| x as f32 / 255.0)
    } else {
        let h = (k as f32 * 0.618_034).fract();
        let s = [0.55, 0.75, 0.9][(k % 3) as usize];
        let v = [0.95, 0.8, 0.65][((k / 3) % 3) as usize];
        hsv(h, s, v)
    };
    let l = srgb.map(srgb_to_linear);
    [l[0], l[1], l[2], 1.0]
}

/// HSV (all 0..1) → sRGB.
fn hsv(h: f32, s: f32, v: f32) -> [f32; 3] {
    let h6 = (h.fract() * 6.0).min(5.999_999);
    let i = h6.floor();
    let f = h6 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    match i as u32 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    }
}

/// The range a picture's colours span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Legend {
    pub by: ColorBy,
    pub min: f32,
    pub max: f32,
}

impl Legend {
    /// The range of `values`' finite entries (speed from 0). All equal:
    /// a range around the value (±half its size, ±0.5 at zero); no finite
    /// value: 0..1.
    pub fn for_values(by: ColorBy, values: &[f32]) -> Legend {
        let (mut lo, mut hi) = values
            .iter()
            .filter(|v| v.is_finite())
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        if lo > hi {
            return Legend {
                by,
                min: 0.0,
                max: 1.0,
            };
        }
        if by == ColorBy::Speed {
            lo = lo.min(0.0);
        }
        if hi <= lo {
            let v = lo;
            if by == ColorBy::Speed && v == 0.0 {
                hi = 1.0;
            } else {
                let h = if v == 0.0 { 0.5 } else { 0.5 * v.abs() };
                lo = v - h;
                hi = v + h;
            }
        }
        Legend {
            by,
            min: lo,
            max: hi,
        }
    }

    /// Where `v` lies in the range, clamped to 0..1 (NaN → 0).
    pub fn normalise(&self, v: f32) -> f32 {
        let span = self.max - self.min;
        if span.is_nan() || span <= 0.0 || !span.is_finite() {
            return 0.5;
        }
        let t = (v - self.min) / span;
        if t.is_nan() {
            0.0
        } else {
            t.clamp(0.0, 1.0)
        }
    }

    /// The colour of `v`: categorical for material and id, else the table
    /// entry (host side; the renderer does the same on the GPU).
    pub fn color(&self, v: f32, table: &[[f32; 4]]) -> [f32; 4] {
        if self.by.is_categorical() {
            categorical(if v.is_finite() && v > 0.0 {
                v as u32
            } else {
                0
            })
        } else {
            let i = (self.normalise(v) * (table.len() - 1) as f32).round() as usize;
            table[i.min(table.len() - 1)]
        }
    }
}
