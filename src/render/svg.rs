//! A `View`'s board as a standalone SVG map (attached to every prompt and
//! results mail).

use crate::engine::view::{Board, GraphBoard, GridBoard, HexBoard, HexCell, SquareBoard, TrackBoard, View};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The view's first board (the map), or a title card if it has none.
pub fn render(v: &View) -> String {
    match v.boards.first() {
        Some(b) => render_board(b, &v.title),
        None => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"40\"><text x=\"10\" y=\"25\">{}</text></svg>\n",
            esc(&v.title)
        ),
    }
}

pub fn render_board(b: &Board, title: &str) -> String {
    match b {
        Board::Graph(g) => graph(g, title),
        Board::Grid(g) => grid(g),
        Board::Tracks(t) => tracks(t),
        Board::Hex(h) => hexes(h),
        Board::Squares(q) => squares(q),
    }
}

fn grid(g: &GridBoard) -> String {
    let (cw, ch) = (150i32, 90i32);
    let (w, h) = (g.columns as i32 * cw + 60, g.rows as i32 * ch + 70 + legend_height(&g.sides, &g.legend));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<title>{}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#f4efe1\"/>\n<text x=\"10\" y=\"20\" font-weight=\"bold\">{}</text>\n",
        esc(&g.title),
        esc(&g.title)
    );
    let colour = |side: &str| g.sides.iter().find(|(n, _)| n == side).map(|(_, c)| c.as_str()).unwrap_or("#444");
    for r in 0..g.rows as i32 {
        s.push_str(&format!(
            "<text x=\"10\" y=\"{}\">{}</text>\n",
            40 + r * ch + ch / 2,
            esc(g.row_labels.get(r as usize).map(String::as_str).unwrap_or(""))
        ));
        for c in 0..g.columns as i32 {
            s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#7a6a4f\"/>\n",
                40 + c * cw,
                30 + r * ch,
                cw - 4,
                ch - 4
            ));
        }
    }
    for cell in &g.cells {
        let (x, y) = (40 + cell.col as i32 * cw, 30 + cell.row as i32 * ch);
        s.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"0.15\" stroke=\"{}\"/>\n<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{} {}</text>\n",
            x + 2,
            y + 2,
            cw - 8,
            ch - 8,
            colour(&cell.side),
            colour(&cell.side),
            x + 8,
            y + 18,
            esc(&cell.side),
            esc(&cell.facing.to_string())
        ));
        for (i, l) in cell.lines.iter().enumerate() {
            s.push_str(&format!("<text x=\"{}\" y=\"{}\">{}</text>\n", x + 8, y + 34 + 14 * i as i32, esc(l)));
        }
    }
    s.push_str(&legend(10, g.rows as i32 * ch + 40, &g.sides, &g.legend));
    s.push_str("</svg>\n");
    s
}

fn graph(g: &GraphBoard, title: &str) -> String {
    let (w, h) = (g.width as i32 + 160, g.height as i32 + 80 + legend_height(&g.sides, &g.legend));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-80 -40 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    s.push_str(&format!(
        "<title>{}</title>\n<rect x=\"-80\" y=\"-40\" width=\"{w}\" height=\"{h}\" fill=\"#f4efe1\"/>\n",
        esc(title)
    ));
    for &(a, b) in &g.links {
        let (p, q) = (&g.spaces[a], &g.spaces[b]);
        s.push_str(&format!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#7a6a4f\" stroke-width=\"3\"/>\n",
            p.x, p.y, q.x, q.y
        ));
    }
    for st in &g.stubs {
        let p = &g.spaces[st.from];
        s.push_str(&format!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#7a6a4f\" stroke-width=\"3\" stroke-dasharray=\"6 4\"/>\n<text x=\"{}\" y=\"{}\" fill=\"#7a6a4f\" font-style=\"italic\">{}</text>\n",
            p.x, p.y, st.x, st.y, st.x, st.y, esc(&st.label)
        ));
    }
    let colour = |side: &str| g.sides.iter().find(|(n, _)| n == side).map(|(_, c)| c.as_str()).unwrap_or("#444");
    for sp in &g.spaces {
        match sp.kind.as_str() {
            "point" => s.push_str(&format!("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"#fff\" stroke=\"#333\"/>\n", sp.x, sp.y)),
            "fortress" => s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"24\" fill=\"#ddd\" stroke=\"#333\" stroke-width=\"2\" transform=\"rotate(45 {} {})\"/>\n",
                sp.x - 12, sp.y - 12, sp.x, sp.y
            )),
            _ => s.push_str(&format!("<rect x=\"{}\" y=\"{}\" width=\"20\" height=\"20\" fill=\"#fff\" stroke=\"#333\" stroke-width=\"2\"/>\n", sp.x - 10, sp.y - 10)),
        }
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n",
            sp.x + 14,
            sp.y - 6,
            esc(&sp.name)
        ));
        for (i, p) in sp.pieces.iter().enumerate() {
            let y = sp.y + 8 + 14 * i as i32;
            s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" font-size=\"10\">{}</text>\n",
                sp.x + 14,
                y - 8,
                colour(&p.side),
                sp.x + 28,
                y + 1,
                esc(&p.text)
            ));
        }
    }
    s.push_str(&legend(-70, g.height as i32 + 40, &g.sides, &g.legend));
    s.push_str("</svg>\n");
    s
}

/// Rows of the legend: one a side, one a line of meaning.
fn legend_height(sides: &[(String, String)], lines: &[String]) -> i32 {
    if sides.is_empty() && lines.is_empty() {
        0
    } else {
        16 * (1 + lines.len() as i32) + 12
    }
}

/// The legend at (x, y): each side's colour, then what the markers mean.
fn legend(x: i32, y: i32, sides: &[(String, String)], lines: &[String]) -> String {
    let mut s = String::new();
    if sides.is_empty() && lines.is_empty() {
        return s;
    }
    let mut cx = x;
    for (name, colour) in sides {
        s.push_str(&format!(
            "<rect x=\"{cx}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n",
            y + 4,
            cx + 14,
            y + 13,
            esc(&capitalised(name))
        ));
        cx += 24 + 8 * name.chars().count() as i32;
    }
    for (i, l) in lines.iter().enumerate() {
        s.push_str(&format!(
            "<text x=\"{x}\" y=\"{}\" font-size=\"11\" fill=\"#333\">{}</text>\n",
            y + 29 + 16 * i as i32,
            esc(l)
        ));
    }
    s
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A status board: one horizontal track a row, ticks at every step (or
/// every fifth on long tracks), the figure as a filled marker, an unknown
/// figure as a question mark.
fn tracks(b: &TrackBoard) -> String {
    let (left, width, row) = (170i32, 520i32, 54i32);
    let (w, h) = (left + width + 90, 50 + row * b.tracks.len() as i32);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"13\">\n<title>{}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#f4efe1\"/>\n<text x=\"10\" y=\"24\" font-weight=\"bold\">{}</text>\n",
        esc(&b.title),
        esc(&b.title)
    );
    for (k, t) in b.tracks.iter().enumerate() {
        let y = 60 + k as i32 * row;
        let span = (t.max - t.min).max(1);
        let x_of = |v: i32| left + (v.clamp(t.min, t.max) - t.min) * width / span;
        s.push_str(&format!(
            "<text x=\"10\" y=\"{}\">{}</text>\n<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#7a6a4f\" stroke-width=\"2\"/>\n",
            y + 4,
            esc(&t.label),
            left + width
        ));
        let step = if span > 20 { 5 } else { 1 };
        let mut v = t.min;
        while v <= t.max {
            let major = v % 5 == 0 || span <= 10;
            s.push_str(&format!(
                "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#7a6a4f\"/>\n",
                y - if major { 6 } else { 3 },
                y + if major { 6 } else { 3 },
                x = x_of(v)
            ));
            if major {
                s.push_str(&format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{v}</text>\n",
                    x_of(v),
                    y + 18
                ));
            }
            v += step;
        }
        match t.value {
            // A figure from a report (a spy's), not seen: a paler marker.
            Some(v) => s.push_str(&format!(
                "<circle cx=\"{}\" cy=\"{y}\" r=\"8\" fill=\"{}\" stroke=\"#300\"/>\n<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{v}</text>\n",
                x_of(v),
                if t.note.is_empty() { "#a33" } else { "#e0b050" },
                left + width + 14,
                y + 4
            )),
            None => s.push_str(&format!("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">?</text>\n", left + width + 14, y + 4)),
        }
        if !t.note.is_empty() {
            s.push_str(&format!(
                "<text x=\"{left}\" y=\"{}\" font-size=\"10\" fill=\"#555\">{}</text>\n",
                y - 10,
                esc(&t.note)
            ));
        }
    }
    s.push_str("</svg>\n");
    s
}

/// The SVG's opening: its size, title and paper.
fn open(w: i32, h: i32, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">\n<title>{t}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#f4efe1\"/>\n<text x=\"10\" y=\"20\" font-weight=\"bold\" font-size=\"13\">{t}</text>\n",
        t = esc(title)
    )
}

/// A piece: a square of its side's colour with its code in white.
fn piece(x: f64, y: f64, size: f64, colour: &str, text: &str) -> String {
    format!(
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{size:.1}\" height=\"{size:.1}\" rx=\"2\" fill=\"{colour}\"/><text x=\"{x:.1}\" y=\"{:.1}\" fill=\"#fff\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
        x - size / 2.0,
        y - size / 2.0,
        y + 3.0,
        esc(text)
    )
}

/// A wargame counter: the side's colour, a NATO symbol (infantry a crossed
/// box, cavalry a box with a diagonal, artillery a box with a dot, a
/// leader a crown), the id and the printed values beneath, a small crown
/// in the corner when a leader is stacked with the unit.
fn counter(x: f64, y: f64, colour: &str, hx: &HexCell) -> String {
    let (w, h) = (28.0, 24.0);
    let (l, t) = (x - w / 2.0, y - h / 2.0);
    let mut s = format!("<rect x=\"{l:.1}\" y=\"{t:.1}\" width=\"{w}\" height=\"{h}\" rx=\"2\" fill=\"{colour}\" stroke=\"#222\" stroke-width=\"0.6\"/>\n");
    let (bx, by, bw, bh) = (x - 7.0, t + 3.0, 14.0, 8.0);
    let stroke = "stroke=\"#fff\" stroke-width=\"1\"";
    let crown = |cx: f64, cy: f64, k: f64| {
        format!(
            "<polygon points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#f2c744\" stroke=\"#7a5a00\" stroke-width=\"0.5\"/>\n",
            cx - 5.0 * k, cy + 3.0 * k, cx - 5.0 * k, cy - 3.0 * k, cx - 2.5 * k, cy, cx, cy - 4.0 * k,
            cx + 2.5 * k, cy, cx + 5.0 * k, cy - 3.0 * k, cx + 5.0 * k, cy + 3.0 * k
        )
    };
    match hx.symbol.as_str() {
        "leader" => s.push_str(&crown(x, by + 4.0, 1.0)),
        sym => {
            s.push_str(&format!(
                "<rect x=\"{bx:.1}\" y=\"{by:.1}\" width=\"{bw}\" height=\"{bh}\" fill=\"none\" {stroke}/>\n"
            ));
            if sym == "infantry" || sym == "cavalry" {
                s.push_str(&format!(
                    "<line x1=\"{bx:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{by:.1}\" {stroke}/>\n",
                    by + bh,
                    bx + bw
                ));
            }
            if sym == "infantry" {
                s.push_str(&format!(
                    "<line x1=\"{bx:.1}\" y1=\"{by:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" {stroke}/>\n",
                    bx + bw,
                    by + bh
                ));
            }
            if sym == "artillery" {
                s.push_str(&format!("<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"1.8\" fill=\"#fff\"/>\n", by + bh / 2.0));
            }
        }
    }
    if hx.crown {
        s.push_str(&crown(l + w - 3.0, t + 3.0, 0.6));
    }
    let label = if hx.values.is_empty() {
        hx.piece.as_ref().map(|p| p.text.clone()).unwrap_or_default()
    } else {
        format!(
            "{} {}",
            hx.piece.as_ref().map(|p| p.text.trim_end_matches('*').to_string()).unwrap_or_default(),
            hx.values
        )
    };
    s.push_str(&format!(
        "<text x=\"{x:.1}\" y=\"{:.1}\" fill=\"#fff\" font-size=\"7\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
        t + h - 4.0,
        esc(&label)
    ));
    s
}

/// A facing (a clock hour of the vertex faced): a dark wedge at that
/// vertex of the hex.
fn facing(x: f64, y: f64, r: f64, hour: u8) -> String {
    let a = ((hour as f64) - 3.0) * 30f64.to_radians();
    let tip = (x + r * 0.95 * a.cos(), y + r * 0.95 * a.sin());
    let side = |d: f64| (x + r * 0.62 * (a + d).cos(), y + r * 0.62 * (a + d).sin());
    let (l, rr) = (side(0.28), side(-0.28));
    format!(
        "<polygon points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#111\"/>\n",
        tip.0, tip.1, l.0, l.1, rr.0, rr.1
    )
}

/// One entry of a picture's key: a swatch (a filled hex colour, or a line
/// as drawn) and what it means.
struct Key {
    fill: Option<String>,
    line: Option<&'static str>,
    name: String,
}

impl Key {
    fn width(&self) -> i32 {
        30 + 6 * self.name.chars().count() as i32
    }

    fn draw(&self, x: i32, y: i32) -> String {
        let swatch = match (&self.fill, self.line) {
            (Some(f), _) => {
                format!("<rect x=\"{x}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{f}\" stroke=\"#b8ab8c\"/>", y - 9)
            }
            (None, Some(style)) => {
                format!("<line x1=\"{x}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {style}/>", y - 4, x + 14, y - 4)
            }
            (None, None) => String::new(),
        };
        format!("{swatch}<text x=\"{}\" y=\"{y}\" font-size=\"11\">{}</text>\n", x + 18, esc(&self.name))
    }
}

/// How each kind of hexside is drawn, and what it is called in the key.
fn hexside_style(kind: &str) -> &'static str {
    match kind {
        "river" => "stroke=\"#3a7bd5\" stroke-width=\"4\"",
        "bridge" => "stroke=\"#777\" stroke-width=\"6\"",
        "escarpment" => "stroke=\"#6b4a2b\" stroke-width=\"4\"",
        _ => "stroke=\"#7a5a2f\" stroke-width=\"2\" stroke-dasharray=\"3 2\"",
    }
}

const ROAD: &str = "stroke=\"#8a6a3a\" stroke-width=\"2.5\"";

/// The key of a hex map: the terrains its hexes show and the lines drawn
/// on it, nothing it does not show.
fn picture_keys(b: &HexBoard) -> Vec<Key> {
    let mut keys = Vec::new();
    for (g, name, fill) in &b.terrain {
        if b.hexes.iter().any(|h| h.terrain == *g) {
            keys.push(Key { fill: Some(fill.clone()), line: None, name: name.clone() });
        }
    }
    let mut kinds: Vec<&str> = b.hexsides.iter().map(|(_, _, k)| k.as_str()).collect();
    kinds.sort();
    kinds.dedup();
    for k in kinds {
        keys.push(Key { fill: None, line: Some(hexside_style(k)), name: k.replace('_', " ") });
    }
    if !b.roads.is_empty() {
        keys.push(Key { fill: None, line: Some(ROAD), name: "road".into() });
    }
    keys
}

/// The key laid out in rows no wider than `width`.
fn key_rows(keys: &[Key], width: i32) -> Vec<Vec<&Key>> {
    let mut rows: Vec<Vec<&Key>> = Vec::new();
    let mut used = width;
    for k in keys {
        if used + k.width() > width {
            rows.push(Vec::new());
            used = 0;
        }
        used += k.width();
        rows.last_mut().expect("a row").push(k);
    }
    rows
}

/// A hex map: flat-topped hexes coloured by terrain, hexside marks
/// (rivers blue, roads dashed, bridges grey), places named, pieces drawn
/// as squares of their side's colour, and a legend.
fn hexes(b: &HexBoard) -> String {
    const R: f64 = 20.0;
    let h3 = 3f64.sqrt() * R;
    let (mx, my) = (if b.columns * b.rows > 600 { 34.0 } else { 20.0 }, 40.0);
    let low = |c: i32| (c % 2 == 0) == b.even_low;
    let centre = |c: i32, r: i32| {
        (mx + R + (c - 1) as f64 * 1.5 * R, my + h3 / 2.0 + (r - 1) as f64 * h3 + if low(c) { h3 / 2.0 } else { 0.0 })
    };
    let w = (mx * 2.0 + R * 2.0 + (b.columns - 1).max(0) as f64 * 1.5 * R).ceil() as i32;
    let keys = picture_keys(b);
    let key_rows = key_rows(&keys, w.max(300) - 20);
    let lines = 1 + b.legend.len() + b.areas.len() + key_rows.len();
    let map_h = my + h3 * (b.rows as f64 + 0.5) + 10.0;
    let h = (map_h + 16.0 * lines as f64 + 10.0).ceil() as i32;
    let mut s = open(w.max(300), h, &b.title);
    let colour = |g: char| b.terrain.iter().find(|t| t.0 == g).map(|t| t.2.as_str()).unwrap_or("#f4efe1");
    let side_colour = |side: &str| b.sides.iter().find(|(n, _)| n == side).map(|(_, c)| c.as_str()).unwrap_or("#444");
    let big = b.columns * b.rows > 600;
    if big {
        for c in 1..=b.columns {
            let (x, _) = centre(c, 1);
            s.push_str(&format!(
                "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#5a4d30\" text-anchor=\"middle\">{c:02}</text>\n",
                my - 6.0
            ));
        }
        for r in 1..=b.rows {
            let (_, y) = centre(1, r);
            s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#5a4d30\" text-anchor=\"end\">{r:02}</text>\n",
                mx - 2.0,
                y + 3.0
            ));
        }
    }
    for c in 1..=b.columns {
        for r in 1..=b.rows {
            let (x, y) = centre(c, r);
            let cell = b.hexes.iter().find(|x| x.col == c && x.row == r);
            let g = cell.map(|x| x.terrain).unwrap_or('.');
            let pts: Vec<String> = (0..6)
                .map(|k| {
                    let a = std::f64::consts::PI / 3.0 * k as f64;
                    format!("{:.1},{:.1}", x + R * a.cos(), y + R * a.sin())
                })
                .collect();
            s.push_str(&format!(
                "<polygon points=\"{}\" fill=\"{}\" stroke=\"#b8ab8c\" stroke-width=\"0.8\"/>\n",
                pts.join(" "),
                colour(g)
            ));
            // A counter covers its hex's number (the legend and the ASCII
            // map still give it): fewer tiny labels keep the PNG small. A
            // large map (Braccio's 1,020 hexes) numbers its edges instead,
            // and every fifth hex, to stay small enough to mail.
            let numbered = !big || (c % 5 == 0 && r % 5 == 0);
            if numbered && cell.map(|x| x.symbol.is_empty() || x.piece.is_none()).unwrap_or(true) {
                s.push_str(&format!(
                    "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"6\" fill=\"#8a7d60\" text-anchor=\"middle\">{c:02}{r:02}</text>\n",
                    y - R * 0.55
                ));
            }
        }
    }
    let hex_id = |id: &str| -> Option<(i32, i32)> {
        (id.len() == 4).then(|| (id[..2].parse().ok(), id[2..].parse().ok())).and_then(|(x, y)| Some((x?, y?)))
    };
    for (_, hexes) in &b.roads {
        let pts: Vec<String> = hexes
            .iter()
            .filter_map(|h| hex_id(h))
            .map(|(c, r)| {
                let (x, y) = centre(c, r);
                format!("{x:.1},{y:.1}")
            })
            .collect();
        s.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" {ROAD} stroke-linejoin=\"round\"/>\n",
            pts.join(" ")
        ));
    }
    // An area's outline: every side of one of its hexes that borders a hex
    // outside it, dashed.
    for (_, hexes) in &b.areas {
        let inside: Vec<(i32, i32)> = hexes.iter().filter_map(|h| hex_id(h)).collect();
        let centres: Vec<(f64, f64)> = inside.iter().map(|&(c, r)| centre(c, r)).collect();
        for &(x, y) in &centres {
            for k in 0..6 {
                let a = std::f64::consts::PI / 6.0 + std::f64::consts::PI / 3.0 * k as f64;
                let (nx, ny) = (x + h3 * a.cos(), y + h3 * a.sin());
                if centres.iter().any(|&(cx, cy)| (cx - nx).abs() < 1.0 && (cy - ny).abs() < 1.0) {
                    continue;
                }
                let (mx2, my2) = ((x + nx) / 2.0, (y + ny) / 2.0);
                let (px, py) = (-a.sin() * R / 2.0, a.cos() * R / 2.0);
                s.push_str(&format!(
                    "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#6a2c91\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>\n",
                    mx2 - px,
                    my2 - py,
                    mx2 + px,
                    my2 + py
                ));
            }
        }
    }
    for (a, c, kind) in &b.hexsides {
        let (Some(p), Some(q)) = (hex_id(a), hex_id(c)) else { continue };
        let ((x1, y1), (x2, y2)) = (centre(p.0, p.1), centre(q.0, q.1));
        let (mx2, my2) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (px, py) = (-dy / len * R / 2.0, dx / len * R / 2.0);
        let style = hexside_style(kind);
        s.push_str(&format!(
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" {style}/>\n",
            mx2 - px,
            my2 - py,
            mx2 + px,
            my2 + py
        ));
    }
    for hx in &b.hexes {
        let (x, y) = centre(hx.col, hx.row);
        if !hx.place.is_empty() {
            s.push_str(&format!(
                "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"7\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
                y + R * 0.8,
                esc(&hx.place)
            ));
        }
        if let Some(p) = &hx.piece {
            if hx.symbol.is_empty() {
                s.push_str(&piece(x, y + 1.0, 18.0, side_colour(&p.side), &p.text));
            } else {
                s.push_str(&counter(x, y, side_colour(&p.side), hx));
            }
            if hx.facing != 0 {
                s.push_str(&facing(x, y, R, hx.facing));
            }
        }
    }
    // The picture's own key: a swatch of every terrain and line drawn, as
    // drawn (the text map keeps its letters' legend).
    for (row, keys) in key_rows.iter().enumerate() {
        let y = map_h as i32 + 29 + 16 * row as i32;
        let mut x = 10;
        for k in keys {
            s.push_str(&k.draw(x, y));
            x += k.width();
        }
    }
    let mut lines: Vec<String> = vec![String::new(); key_rows.len()];
    lines.extend(b.areas.iter().map(|(label, _)| format!("Dashed purple outline: {label}")));
    lines.extend(b.legend.iter().cloned());
    s.push_str(&legend(10, map_h as i32, &b.sides, &lines));
    s.push_str("</svg>\n");
    s
}

/// A square board: labelled squares, terrain shaded, pieces as squares of
/// their side's colour, and a legend.
fn squares(b: &SquareBoard) -> String {
    const C: i32 = 30;
    let (mx, my) = (30, 40);
    let map_h = my + C * b.rows as i32 + 10;
    let h = map_h + 16 * (1 + b.legend.len() as i32) + 12;
    let w = (mx * 2 + C * b.columns as i32).max(300);
    let mut s = open(w, h, &b.title);
    let side_colour = |side: &str| b.sides.iter().find(|(n, _)| n == side).map(|(_, c)| c.as_str()).unwrap_or("#444");
    for r in 0..b.rows as i32 {
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            mx - 6,
            my + r * C + C / 2 + 4,
            esc(b.row_labels.get(r as usize).map(String::as_str).unwrap_or(""))
        ));
        for c in 0..b.columns as i32 {
            // Terrain by its glyph: wood, towers and gates of a wall, the
            // hill and its tops, trees, rock; anything else grey.
            let glyph = b.terrain.iter().find(|t| t.0 as i32 == c && t.1 as i32 == r).map(|t| t.2);
            let fill = match glyph {
                Some('=') => "#a8753f",
                Some('T') => "#555555",
                Some('G') => "#7d7d7d",
                Some(':') => "#c9b48a",
                Some('^') => "#8a6d3b",
                Some('@') => "#6b6257",
                Some('~') => "#7fb2d9",
                Some('%') => "#8fa37a",
                Some(_) => "#9c9c9c",
                None if (c + r) % 2 == 0 => "#efe6cf",
                None => "#e4d8b8",
            };
            s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{C}\" height=\"{C}\" fill=\"{fill}\" stroke=\"#7a6a4f\" stroke-width=\"0.8\"/>\n",
                mx + c * C,
                my + r * C,
            ));
        }
    }
    for c in 0..b.columns as i32 {
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            mx + c * C + C / 2,
            my - 4,
            esc(b.col_labels.get(c as usize).map(String::as_str).unwrap_or(""))
        ));
    }
    for (c, r, p) in &b.cells {
        let (x, y) = (mx + *c as i32 * C + C / 2, my + *r as i32 * C + C / 2);
        s.push_str(&piece(x as f64, y as f64, 22.0, side_colour(&p.side), &p.text));
    }
    // The last move: a ring where pieces moved to, a cross where one was
    // captured.
    for (c, r, g) in &b.marks {
        let (x, y) = (mx + *c as i32 * C, my + *r as i32 * C);
        s.push_str(&match g {
            'x' => format!(
                "<path d=\"M{} {} L{} {} M{} {} L{} {}\" stroke=\"#c0392b\" stroke-width=\"3\"/>\n",
                x + 5,
                y + 5,
                x + C - 5,
                y + C - 5,
                x + C - 5,
                y + 5,
                x + 5,
                y + C - 5
            ),
            _ => format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#e67e22\" stroke-width=\"2.5\"/>\n",
                x + 2,
                y + 2,
                C - 4,
                C - 4
            ),
        });
    }
    s.push_str(&legend(10, map_h, &b.sides, &b.legend));
    s.push_str("</svg>\n");
    s
}
