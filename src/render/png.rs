//! The map as a PNG, rendered from the same SVG: what every mail client
//! shows (Gmail, Outlook and most phones do not show an SVG attachment).
//! The font is compiled in and no system font is looked up, so the picture
//! is the same on every machine.

use resvg::{tiny_skia, usvg};
use std::sync::{Arc, LazyLock};

/// DejaVu Sans (regular and bold), under its free licence
/// (assets/fonts/LICENSE-DejaVu.txt).
static FONTS: LazyLock<Arc<usvg::fontdb::Database>> = LazyLock::new(|| {
    let mut db = usvg::fontdb::Database::new();
    db.load_font_data(include_bytes!("../../assets/fonts/DejaVuSans.ttf").to_vec());
    db.load_font_data(include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf").to_vec());
    for generic in ["serif", "sans-serif", "monospace", "cursive", "fantasy"] {
        match generic {
            "serif" => db.set_serif_family("DejaVu Sans"),
            "sans-serif" => db.set_sans_serif_family("DejaVu Sans"),
            "monospace" => db.set_monospace_family("DejaVu Sans"),
            "cursive" => db.set_cursive_family("DejaVu Sans"),
            _ => db.set_fantasy_family("DejaVu Sans"),
        }
    }
    Arc::new(db)
});

/// The widest picture we send, in pixels: large enough to read every label
/// on a phone, small enough to stay in the tens of kilobytes.
pub const MAX_WIDTH: f32 = 1000.0;

/// Render an SVG (one of ours) to PNG bytes.
pub fn from_svg(svg: &str) -> Result<Vec<u8>, String> {
    let opt = usvg::Options { font_family: "DejaVu Sans".into(), fontdb: FONTS.clone(), ..usvg::Options::default() };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("cannot read the map's SVG: {e}"))?;
    let size = tree.size();
    let scale = (MAX_WIDTH / size.width()).min(1.0);
    let (w, h) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
    let mut pixmap = tiny_skia::Pixmap::new(w.max(1), h.max(1)).ok_or("the map has no size")?;
    // What the map leaves uncovered (a rounded-up edge row) is white, not
    // the black of a transparent pixel without its alpha.
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    indexed_png(&pixmap).map_err(|e| format!("cannot encode the map as PNG: {e}"))
}

/// The picture with a palette of its 64 commonest colours, every other
/// colour (anti-aliasing shades) drawn in its nearest: a map has a dozen
/// flat fills, and 64 leave enough shades for text edges while a smaller
/// palette cut Ducs' zoomed PNG by a tenth against 256 (measured).
fn indexed_png(p: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    use std::collections::HashMap;
    // Our maps are opaque (a background rectangle): alpha is dropped.
    let rgb = |px: &tiny_skia::PremultipliedColorU8| [px.red(), px.green(), px.blue()];
    // Counted by runs: a map is mostly long runs of one colour.
    let mut counts: HashMap<[u8; 3], u32> = HashMap::new();
    let mut run: Option<([u8; 3], u32)> = None;
    for px in p.pixels() {
        let c = rgb(px);
        match &mut run {
            Some((rc, n)) if *rc == c => *n += 1,
            _ => {
                if let Some((rc, n)) = run.replace((c, 1)) {
                    *counts.entry(rc).or_default() += n;
                }
            }
        }
    }
    if let Some((rc, n)) = run {
        *counts.entry(rc).or_default() += n;
    }
    let mut by_use: Vec<([u8; 3], u32)> = counts.into_iter().collect();
    by_use.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<[u8; 3]> = by_use.iter().take(64).map(|c| c.0).collect();
    let mut index: HashMap<[u8; 3], u8> = palette.iter().enumerate().map(|(i, c)| (*c, i as u8)).collect();
    let nearest = |c: [u8; 3]| {
        let d = |q: &[u8; 3]| (0..3).map(|k| (i32::from(c[k]) - i32::from(q[k])).pow(2)).sum::<i32>();
        (0..palette.len()).min_by_key(|&i| d(&palette[i])).unwrap_or(0) as u8
    };
    let mut data = Vec::with_capacity(p.pixels().len());
    let mut last: Option<([u8; 3], u8)> = None;
    for px in p.pixels() {
        let c = rgb(px);
        let i = match last {
            Some((lc, li)) if lc == c => li,
            _ => *index.entry(c).or_insert_with(|| nearest(c)),
        };
        last = Some((c, i));
        data.push(i);
    }
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, p.width(), p.height());
    e.set_color(png::ColorType::Indexed);
    e.set_depth(png::BitDepth::Eight);
    e.set_palette(palette.concat());
    e.set_compression(png::Compression::Balanced);
    // No row filter: on a palette picture of flat colours it only adds
    // bytes (a fifth more, measured on Braccio's field).
    e.set_filter(png::Filter::NoFilter);
    let mut w = e.write_header()?;
    w.write_image_data(&data)?;
    w.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_text_with_the_compiled_in_font() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"40\"><rect width=\"200\" height=\"40\" fill=\"#fff\"/><text x=\"5\" y=\"25\" font-family=\"sans-serif\" font-size=\"20\">Verona</text></svg>";
        let png = from_svg(svg).unwrap();
        let img = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((img.width(), img.height()), (200, 40));
        // The text left ink: some pixels are dark.
        assert!(img.pixels().iter().any(|p| p.red() < 100));
    }
}
