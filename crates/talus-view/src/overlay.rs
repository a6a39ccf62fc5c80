//! Text and a colour legend drawn into an RGBA image, with a small bitmap
//! font of its own (5 × 7 pixels a glyph, descenders two rows below, one
//! column of spacing): the headless path composites the image onto the
//! render ([`composite`]), a window can upload it as a texture.
//!
//! The image is **straight** (not premultiplied) alpha, sRGB: 0 where
//! nothing is drawn.

use super::colormap::{self, Legend};

/// Glyph cell: 5 columns, 7 rows above the baseline, 2 below.
const GLYPH_W: usize = 5;
const GLYPH_H: usize = 9;
/// Advance per character (glyph + one column), in font pixels.
const ADVANCE: usize = GLYPH_W + 1;
/// Line height in font pixels.
const LINE: usize = GLYPH_H + 2;

/// The glyphs, each row a string ('#' set, '.' clear), top row first; rows
/// left out at the bottom are clear. Designed for this file.
const GLYPHS: &[(char, &[&str])] = &[
    (
        '0',
        &[
            ".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.",
        ],
    ),
    (
        '1',
        &[
            "..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
    ),
    (
        '2',
        &[
            ".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####",
        ],
    ),
    (
        '3',
        &[
            "####.", "....#", "....#", ".###.", "....#", "....#", "####.",
        ],
    ),
    (
        '4',
        &[
            "...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.",
        ],
    ),
    (
        '5',
        &[
            "#####", "#....", "####.", "....#", "....#", "#...#", ".###.",
        ],
    ),
    (
        '6',
        &[
            "..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.",
        ],
    ),
    (
        '7',
        &[
            "#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...",
        ],
    ),
    (
        '8',
        &[
            ".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.",
        ],
    ),
    (
        '9',
        &[
            ".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..",
        ],
    ),
    (
        'A',
        &[
            ".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'B',
        &[
            "####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.",
        ],
    ),
    (
        'C',
        &[
            ".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.",
        ],
    ),
    (
        'D',
        &[
            "###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###..",
        ],
    ),
    (
        'E',
        &[
            "#####", "#....", "#....", "####.", "#....", "#....", "#####",
        ],
    ),
    (
        'F',
        &[
            "#####", "#....", "#....", "####.", "#....", "#....", "#....",
        ],
    ),
    (
        'G',
        &[
            ".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####",
        ],
    ),
    (
        'H',
        &[
            "#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'I',
        &[
            ".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
    ),
    (
        'J',
        &[
            "..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..",
        ],
    ),
    (
        'K',
        &[
            "#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#",
        ],
    ),
    (
        'L',
        &[
            "#....", "#....", "#....", "#....", "#....", "#....", "#####",
        ],
    ),
    (
        'M',
        &[
            "#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'N',
        &[
            "#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#",
        ],
    ),
    (
        'O',
        &[
            ".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
    ),
    (
        'P',
        &[
            "####.", "#...#", "#...#", "####.", "#....", "#....", "#....",
        ],
    ),
    (
        'Q',
        &[
            ".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#",
        ],
    ),
    (
        'R',
        &[
            "####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#",
        ],
    ),
    (
        'S',
        &[
            ".####", "#....", "#....", ".###.", "....#", "....#", "####.",
        ],
    ),
    (
        'T',
        &[
            "#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..",
        ],
    ),
    (
        'U',
        &[
            "#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
    ),
    (
        'V',
        &[
            "#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..",
        ],
    ),
    (
        'W',
        &[
            "#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#.",
        ],
    ),
    (
        'X',
        &[
            "#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#",
        ],
    ),
    (
        'Y',
        &[
            "#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..",
        ],
    ),
    (
        'Z',
        &[
            "#####", "....#", "...#.", "..#..", ".#...", "#....", "#####",
        ],
    ),
    (
        'a',
        &[
            ".....", ".....", ".###.", "....#", ".####", "#...#", ".####",
        ],
    ),
    (
        'b',
        &[
            "#....", "#....", "####.", "#...#", "#...#", "#...#", "####.",
        ],
    ),
    (
        'c',
        &[
            ".....", ".....", ".####", "#....", "#....", "#....", ".####",
        ],
    ),
    (
        'd',
        &[
            "....#", "....#", ".####", "#...#", "#...#", "#...#", ".####",
        ],
    ),
    (
        'e',
        &[
            ".....", ".....", ".###.", "#...#", "#####", "#....", ".###.",
        ],
    ),
    (
        'f',
        &[
            "..##.", ".#...", "####.", ".#...", ".#...", ".#...", ".#...",
        ],
    ),
    (
        'g',
        &[
            ".....", ".....", ".####", "#...#", "#...#", ".####", "....#", "....#", ".###.",
        ],
    ),
    (
        'h',
        &[
            "#....", "#....", "####.", "#...#", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'i',
        &[
            "..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###.",
        ],
    ),
    (
        'j',
        &[
            "...#.", ".....", "..##.", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..",
        ],
    ),
    (
        'k',
        &[
            "#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#.",
        ],
    ),
    (
        'l',
        &[
            ".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
    ),
    (
        'm',
        &[
            ".....", ".....", "##.#.", "#.#.#", "#.#.#", "#.#.#", "#...#",
        ],
    ),
    (
        'n',
        &[
            ".....", ".....", "####.", "#...#", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'o',
        &[
            ".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###.",
        ],
    ),
    (
        'p',
        &[
            ".....", ".....", "####.", "#...#", "#...#", "####.", "#....", "#....", "#....",
        ],
    ),
    (
        'q',
        &[
            ".....", ".....", ".####", "#...#", "#...#", ".####", "....#", "....#", "....#",
        ],
    ),
    (
        'r',
        &[
            ".....", ".....", "#.##.", "##..#", "#....", "#....", "#....",
        ],
    ),
    (
        's',
        &[
            ".....", ".....", ".####", "#....", ".###.", "....#", "####.",
        ],
    ),
    (
        't',
        &[
            ".#...", ".#...", "####.", ".#...", ".#...", ".#..#", "..##.",
        ],
    ),
    (
        'u',
        &[
            ".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#",
        ],
    ),
    (
        'v',
        &[
            ".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#..",
        ],
    ),
    (
        'w',
        &[
            ".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#.",
        ],
    ),
    (
        'x',
        &[
            ".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#",
        ],
    ),
    (
        'y',
        &[
            ".....", ".....", "#...#", "#...#", "#...#", ".####", "....#", "....#", ".###.",
        ],
    ),
    (
        'z',
        &[
            ".....", ".....", "#####", "...#.", "..#..", ".#...", "#####",
        ],
    ),
    (
        '.',
        &[
            ".....", ".....", ".....", ".....", ".....", ".##..", ".##..",
        ],
    ),
    (
        ',',
        &[
            ".....", ".....", ".....", ".....", ".....", ".##..", ".##..", "..#..", ".#...",
        ],
    ),
    (
        ':',
        &[
            ".....", ".##..", ".##..", ".....", ".##..", ".##..", ".....",
        ],
    ),
    (
        '-',
        &[
            ".....", ".....", ".....", "#####", ".....", ".....", ".....",
        ],
    ),
    (
        '+',
        &[
            ".....", "..#..", "..#..", "#####", "..#..", "..#..", ".....",
        ],
    ),
    (
        '=',
        &[
            ".....", ".....", "#####", ".....", "#####", ".....", ".....",
        ],
    ),
    (
        '/',
        &[
            "....#", "....#", "...#.", "..#..", ".#...", "#....", "#....",
        ],
    ),
    (
        '(',
        &[
            "...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#.",
        ],
    ),
    (
        ')',
        &[
            ".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#...",
        ],
    ),
    (
        '%',
        &[
            "##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##",
        ],
    ),
    (
        '[',
        &[
            ".###.", ".#...", ".#...", ".#...", ".#...", ".#...", ".###.",
        ],
    ),
    (
        ']',
        &[
            ".###.", "...#.", "...#.", "...#.", "...#.", "...#.", ".###.",
        ],
    ),
    (
        '^',
        &[
            "..#..", ".#.#.", "#...#", ".....", ".....", ".....", ".....",
        ],
    ),
    (
        '_',
        &[
            ".....", ".....", ".....", ".....", ".....", ".....", "#####",
        ],
    ),
    (
        '*',
        &[
            ".....", "#.#.#", ".###.", "#####", ".###.", "#.#.#", ".....",
        ],
    ),
    (
        '|',
        &[
            "..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..",
        ],
    ),
    (
        '<',
        &[
            "...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#.",
        ],
    ),
    (
        '>',
        &[
            ".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#...",
        ],
    ),
    (
        '?',
        &[
            ".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#..",
        ],
    ),
];

/// The rows of `c`'s glyph (None: a blank, for space and anything the font
/// lacks).
fn glyph(c: char) -> Option<&'static [&'static str]> {
    GLYPHS.iter().find(|(g, _)| *g == c).map(|(_, rows)| *rows)
}

/// Whether the font draws `c` (space is drawn as a blank).
pub fn has_glyph(c: char) -> bool {
    c == ' ' || glyph(c).is_some()
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

    /// `text` at (x, y) (top left of the first glyph cell), `scale` pixels
    /// a font pixel, white on a one-pixel dark shadow.
    fn text(&mut self, x: i64, y: i64, text: &str, scale: usize) {
        for pass in 0..2 {
            let (dx, color) = if pass == 0 {
                (scale.div_ceil(2) as i64, SHADOW)
            } else {
                (0, TEXT)
            };
            for (i, ch) in text.chars().enumerate() {
                let Some(rows) = glyph(ch) else { continue };
                let gx = x + (i * ADVANCE * scale) as i64;
                for (r, row) in rows.iter().enumerate() {
                    for (cidx, b) in row.bytes().enumerate() {
                        if b == b'#' {
                            let px = gx + (cidx * scale) as i64 + dx;
                            let py = y + (r * scale) as i64 + dx;
                            self.rect(px, py, scale as i64, scale as i64, color);
                        }
                    }
                }
            }
        }
    }
}

const TEXT: [u8; 4] = [240, 240, 240, 255];
const SHADOW: [u8; 4] = [0, 0, 0, 200];

/// Width in pixels of `text` at `scale`.
pub fn text_width(text: &str, scale: usize) -> usize {
    let n = text.chars().count();
    if n == 0 {
        0
    } else {
        (n * ADVANCE - 1) * scale
    }
}

/// Font pixels per font pixel for an image `height` pixels high: 1 up to
/// 540, 2 up to 1080, …
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

    #[test]
    fn every_glyph_fits_its_cell() {
        for (c, rows) in GLYPHS {
            assert!(rows.len() == 7 || rows.len() == GLYPH_H, "{c:?}");
            for r in rows.iter() {
                assert_eq!(r.len(), GLYPH_W, "{c:?}");
                assert!(r.bytes().all(|b| b == b'#' || b == b'.'), "{c:?}");
            }
            assert!(rows.iter().any(|r| r.contains('#')), "{c:?} is blank");
        }
        let mut seen = std::collections::HashSet::new();
        for (c, _) in GLYPHS {
            assert!(seen.insert(*c), "{c:?} twice");
        }
        for c in "0123456789.,:-+=/()%[] ".chars() {
            assert!(has_glyph(c), "{c:?}");
        }
        for c in ('a'..='z').chain('A'..='Z') {
            assert!(has_glyph(c), "{c:?}");
        }
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
