//! Text and a colour legend drawn into an RGBA image: the text in DejaVu
//! Sans Mono, the font the `dejavu` crate ships (the plots of `talus
//! validate` and `talus analyze` use its DejaVu Sans), rasterised by
//! `ab_glyph`, the same on every machine. The headless path composites the
//! image onto the render ([`composite`]), a window can upload it as a
//! texture.
//!
//! The image is **straight** (not premultiplied) alpha, sRGB: 0 where
//! nothing is drawn.

use super::colormap::{self, Legend};
use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use std::sync::OnceLock;

/// Line height (ascent + descent) in pixels at scale 1.
const LINE: usize = 11;

/// The shipped monospace font.
fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| {
        FontRef::try_from_slice(dejavu::sans_mono::regular())
            .expect("the dejavu crate's DejaVu Sans Mono parses")
    })
}

/// Whether the font draws `c` (space is drawn as a blank).
pub fn has_glyph(c: char) -> bool {
    c == ' ' || font().glyph_id(c).0 != 0
}

/// An RGBA image being drawn into.
struct Canvas {
    w: usize,
    h: usize,
    px: Vec<[u8; 4]>,
}

impl Canvas {
    fn set(&mut self, x: i64, y: i64, c: [u8; 4]) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            self.px[y as usize * self.w + x as usize] = c;
        }
    }

    fn rect(&mut self, x: i64, y: i64, w: i64, h: i64, c: [u8; 4]) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.set(xx, yy, c);
            }
        }
    }

    /// Blends `c` over the pixel at (x, y) with coverage `cover` (0..1),
    /// straight alpha.
    fn blend(&mut self, x: i64, y: i64, c: [u8; 4], cover: f32) {
        if x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            return;
        }
        let d = &mut self.px[y as usize * self.w + x as usize];
        let sa = cover.clamp(0.0, 1.0) * c[3] as f32 / 255.0;
        let da = d[3] as f32 / 255.0;
        let oa = sa + da * (1.0 - sa);
        if oa <= 0.0 {
            return;
        }
        for k in 0..3 {
            let v = (c[k] as f32 * sa + d[k] as f32 * da * (1.0 - sa)) / oa;
            d[k] = v.round() as u8;
        }
        d[3] = (oa * 255.0).round() as u8;
    }

    /// `text` at (x, y) (top left of its line), [`LINE`] × `scale` pixels
    /// high, white on a dark shadow.
    fn text(&mut self, x: i64, y: i64, text: &str, scale: usize) {
        let f = font().as_scaled(PxScale::from((LINE * scale) as f32));
        let base = y as f32 + f.ascent();
        for pass in 0..2 {
            let (dx, color) = if pass == 0 {
                (scale.div_ceil(2) as f32, SHADOW)
            } else {
                (0.0, TEXT)
            };
            let mut pen = x as f32;
            for ch in text.chars() {
                let g = f.scaled_glyph(ch);
                let advance = f.h_advance(g.id);
                let g = ab_glyph::Glyph {
                    position: ab_glyph::point(pen + dx, base + dx),
                    ..g
                };
                if let Some(o) = f.outline_glyph(g) {
                    let b = o.px_bounds();
                    o.draw(|gx, gy, cover| {
                        self.blend(
                            b.min.x as i64 + gx as i64,
                            b.min.y as i64 + gy as i64,
                            color,
                            cover,
                        )
                    });
                }
                pen += advance;
            }
        }
    }
}

const TEXT: [u8; 4] = [240, 240, 240, 255];
const SHADOW: [u8; 4] = [0, 0, 0, 200];

/// Width in pixels of `text` at `scale`.
pub fn text_width(text: &str, scale: usize) -> usize {
    let f = font().as_scaled(PxScale::from((LINE * scale) as f32));
    let w: f32 = text.chars().map(|c| f.h_advance(f.glyph_id(c))).sum();
    w.ceil() as usize
}

/// The text's scale for an image `height` pixels high (lines of [`LINE`]
/// × scale pixels): 1 up to 540, 2 up to 1080, …
pub fn scale_for(height: u32) -> usize {
    (height as usize).div_ceil(540).max(1)
}

/// A value for a legend label: 3 significant digits, exponent form when
/// very large or small.
pub fn format_value(v: f32) -> String {
    let a = v.abs();
    if v == 0.0 || !v.is_finite() {
        format!("{v}")
    } else if !(1e-3..1e4).contains(&a) {
        format!("{v:.2e}")
    } else {
        let digits = (2 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.digits$}")
    }
}

/// The overlay of a `width` × `height` picture: `lines` of text at the top
/// left, and the legend (the colour field and unit above a bar of its
/// colours, min and max below; categorical: one swatch per index from min
/// to max, at most 16) at the bottom right. Straight alpha, sRGB, row
/// major from the top; alpha 0 where nothing is drawn.
pub fn draw(width: u32, height: u32, lines: &[String], legend: &Legend) -> Vec<[u8; 4]> {
    let (w, h) = (width as usize, height as usize);
    let mut cv = Canvas {
        w,
        h,
        px: vec![[0; 4]; w * h],
    };
    let s = scale_for(height);
    let margin = (8 * s) as i64;
    for (k, line) in lines.iter().enumerate() {
        cv.text(margin, margin + (k * LINE * s) as i64, line, s);
    }
    // legend, bottom right
    let bar_w = (w / 4).clamp(16, 256 * s) as i64;
    let bar_h = (10 * s) as i64;
    let label_h = (LINE * s) as i64;
    let x0 = w as i64 - margin - bar_w;
    let y_bar = h as i64 - margin - label_h - bar_h;
    let title = match legend.by.unit() {
        "" => legend.by.name().to_string(),
        u => format!("{} ({u})", legend.by.name()),
    };
    let title_w = text_width(&title, s) as i64;
    cv.text((x0 + bar_w - title_w).min(x0), y_bar - label_h, &title, s);
    let to8 = |c: [f32; 4]| {
        let e = |x: f32| (colormap_encode(x) * 255.0).round() as u8;
        [e(c[0]), e(c[1]), e(c[2]), 255]
    };
    // a frame around the bar
    cv.rect(
        x0 - 1,
        y_bar - 1,
        bar_w + 2,
        bar_h + 2,
        [200, 200, 200, 255],
    );
    if legend.by.is_categorical() {
        let (lo, hi) = categories(legend);
        let k = (hi - lo + 1).min(16) as i64;
        for j in 0..k {
            let xa = x0 + j * bar_w / k;
            let xb = x0 + (j + 1) * bar_w / k;
            let c = to8(colormap::categorical(lo + j as u32));
            cv.rect(xa, y_bar, xb - xa, bar_h, c);
        }
    } else {
        let table = colormap::table();
        for x in 0..bar_w {
            let t = x as f32 / (bar_w - 1).max(1) as f32;
            let i = (t * (table.len() - 1) as f32).round() as usize;
            cv.rect(x0 + x, y_bar, 1, bar_h, to8(table[i]));
        }
    }
    let (lo, hi) = if legend.by.is_categorical() {
        let (a, b) = categories(legend);
        (format!("{a}"), format!("{b}"))
    } else {
        (format_value(legend.min), format_value(legend.max))
    };
    let y_lab = y_bar + bar_h + (3 * s) as i64;
    cv.text(x0, y_lab, &lo, s);
    cv.text(x0 + bar_w - text_width(&hi, s) as i64, y_lab, &hi, s);
    cv.px
}

/// The first and last index a categorical legend spans (a single index
/// k has the range k ± 0.5).
fn categories(legend: &Legend) -> (u32, u32) {
    let lo = legend.min.max(0.0).ceil() as u32;
    let hi = (legend.max.max(0.0).floor() as u32).max(lo);
    (lo, hi)
}

/// Linear → sRGB (0..1).
fn colormap_encode(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// Blends the straight-alpha `overlay` over `image` (both sRGB RGBA, the
/// same size; the image stays opaque).
pub fn composite(image: &mut [[u8; 4]], overlay: &[[u8; 4]]) {
    for (p, o) in image.iter_mut().zip(overlay) {
        let a = o[3] as u32;
        if a == 0 {
            continue;
        }
        for k in 0..3 {
            p[k] = ((o[k] as u32 * a + p[k] as u32 * (255 - a) + 127) / 255) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The font draws what the overlay writes, text fits its line, and
    /// the width is the pen's advance.
    #[test]
    fn the_font_draws_what_the_overlay_writes() {
        for c in "0123456789.,:-+=/()%[] μ·×²³⁻"
            .chars()
            .chain('a'..='z')
            .chain('A'..='Z')
        {
            assert!(has_glyph(c), "{c:?}");
        }
        let (w, h) = (200, 40);
        let mut cv = Canvas {
            w,
            h,
            px: vec![[0; 4]; w * h],
        };
        cv.text(4, 4, "Hg 0.5 m/s", 1);
        let rows: Vec<usize> = (0..h)
            .filter(|y| (0..w).any(|x| cv.px[y * w + x][3] > 0))
            .collect();
        let (top, bottom) = (rows[0], *rows.last().unwrap());
        assert!(top >= 4 && bottom < 4 + LINE + 2, "rows {top}..{bottom}");
        let right = (0..w)
            .filter(|x| (0..h).any(|y| cv.px[y * w + x][3] > 0))
            .max()
            .unwrap();
        let width = text_width("Hg 0.5 m/s", 1);
        assert!(
            right <= 4 + width + 1 && right + 8 > 4 + width,
            "{right} {width}"
        );
        assert_eq!(text_width("", 3), 0);
        assert_eq!(text_width("mmmm", 2), 2 * text_width("mm", 2));
    }

    #[test]
    fn categorical_legends_span_their_indices() {
        use crate::colormap::ColorBy;
        let one = Legend::for_values(ColorBy::Material, &[0.0, 0.0]);
        assert_eq!(categories(&one), (0, 0));
        let many = Legend::for_values(ColorBy::Id, &[3.0, 17.0]);
        assert_eq!(categories(&many), (3, 17));
    }

    #[test]
    fn values_format_briefly() {
        assert_eq!(format_value(0.0), "0");
        assert_eq!(format_value(1.234), "1.23");
        assert_eq!(format_value(12.34), "12.3");
        assert_eq!(format_value(0.05), "0.0500");
        assert_eq!(format_value(2.5e-5), "2.50e-5");
    }
}
