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

/// The picture a mail's PNG is drawn from, where it is not the map's SVG
/// itself: a field too big to read whole on a phone (Braccio's 1,020
/// hexes) is cropped to where the pieces stand, two hexes around, drawn
/// larger, with a locator of the whole field. The whole field stays in the
/// SVG. None: the PNG is drawn from the SVG.
pub fn picture(b: &Board) -> Option<String> {
    let Board::Hex(h) = b else { return None };
    if h.columns * h.rows <= 600 {
        return None;
    }
    let at: Vec<(i32, i32)> = h.hexes.iter().filter(|x| x.piece.is_some()).map(|x| (x.col, x.row)).collect();
    let span = |v: &mut dyn Iterator<Item = i32>, last: i32| {
        let v: Vec<i32> = v.collect();
        Some(((*v.iter().min()? - 2).max(1), (*v.iter().max()? + 2).min(last)))
    };
    let (c0, c1) = span(&mut at.iter().map(|p| p.0), h.columns)?;
    let (r0, r1) = span(&mut at.iter().map(|p| p.1), h.rows)?;
    // A crop that keeps most of the field gains nothing to read.
    if ((c1 - c0 + 1) * (r1 - r0 + 1)) as f64 > 0.8 * (h.columns * h.rows) as f64 {
        return None;
    }
    Some(hexes(h, Some([c0, c1, r0, r1])))
}

pub fn render_board(b: &Board, title: &str) -> String {
    match b {
        Board::Graph(g) => graph(g, title),
        Board::Grid(g) => grid(g),
        Board::Tracks(t) => tracks(t),
        Board::Hex(h) => hexes(h, None),
        Board::Squares(q) => squares(q),
    }
}

fn grid(g: &GridBoard) -> String {
    let (cw, ch) = (150i32, 90i32);
    let w = g.columns as i32 * cw + 60;
    let lines = wrapped(&g.legend, w - 20);
    let h = g.rows as i32 * ch + 70 + legend_height(&g.sides, &lines);
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
    s.push_str(&legend(10, g.rows as i32 * ch + 40, &g.sides, &lines));
    s.push_str("</svg>\n");
    s
}

fn graph(g: &GraphBoard, title: &str) -> String {
    let w = g.width as i32 + 160;
    let lines = wrapped(&g.legend, w - 20);
    let h = g.height as i32 + 80 + legend_height(&g.sides, &lines);
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
    s.push_str(&legend(-70, g.height as i32 + 40, &g.sides, &lines));
    s.push_str("</svg>\n");
    s
}

/// Legend lines broken at spaces to fit `width` units of 11-unit text
/// (a character of DejaVu Sans is on average under 6.8 wide), so nothing
/// runs off the picture's edge.
fn wrapped(lines: &[String], width: i32) -> Vec<String> {
    let most = ((width as f64 / 6.8) as usize).max(20);
    let mut out = Vec::new();
    for l in lines {
        let mut cur = String::new();
        for word in l.split(' ') {
            if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > most {
                out.push(std::mem::take(&mut cur));
                cur.push_str("  ");
            } else if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out
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

/// The least width that shows a title whole (13-unit bold letters are
/// under 7.5 wide).
fn title_width(title: &str) -> i32 {
    20 + 15 * title.chars().count() as i32 / 2
}

/// The SVG's opening: its size, title and paper.
fn open(w: i32, h: i32, title: &str) -> String {
    open_at(w, h, title, 1.0)
}

/// How much larger a hex map is drawn: its smallest text (a hex's number,
/// 6 units) reads at about 9 pixels, a counter's at 10.
const ZOOM: f64 = 1.45;

/// The opening of a map drawn `ZOOM` times larger, or as large as the
/// widest picture mailed.
fn zoomed(w: i32, h: i32, title: &str) -> String {
    open_at(w, h, title, ZOOM.min(crate::render::png::MAX_WIDTH as f64 / f64::from(w)).max(1.0))
}

fn open_at(w: i32, h: i32, title: &str, zoom: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n<title>{t}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#f4efe1\"/>\n<text x=\"10\" y=\"20\" font-weight=\"bold\" font-size=\"13\">{t}</text>\n",
        f64::from(w) * zoom,
        f64::from(h) * zoom,
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

/// The size of a place's name on a hex map.
const PLACE_SIZE: f64 = 7.0;

/// How wide a place's name is drawn, at most: DejaVu Sans Bold's
/// advances, rounded up by kind of letter (in ems).
fn place_width(name: &str) -> f64 {
    let em = |c: char| match c {
        'm' | 'w' | 'M' | 'W' => 1.05,
        'i' | 'l' | 'j' | '.' | ',' | ' ' | '\'' => 0.35,
        'f' | 'r' | 't' | '[' | ']' | '(' | ')' => 0.5,
        c if c.is_uppercase() => 0.85,
        _ => 0.72,
    };
    name.chars().map(em).sum::<f64>() * PLACE_SIZE
}

/// A place's name to draw: its hex's centre, and whether a counter stands
/// on the hex.
struct Place<'a> {
    at: (f64, f64),
    name: &'a str,
    occupied: bool,
}

/// Place names on a halo of the paper, so a hexside or a hex's edge does
/// not cross the letters, each at the first spot near its hex that no
/// counter (28 by 24 from its box's corner in `boxes`) covers: below its
/// own counter, above it, shifted aside; hemmed in, the nearest free spot
/// within two hexes with a leader line; else the least covered near spot.
/// `bounds`: the left and right edges a name stays within, and the
/// highest and lowest baselines.
fn place_names(places: &[Place], boxes: &[(f64, f64)], bounds: [f64; 4]) -> String {
    let [left, right, top_base, bottom_base] = bounds;
    // How much of a label at (l..r, base) counters cover, by the width
    // estimate (which is wider than the letters drawn).
    let covered = |l: f64, r: f64, base: f64| {
        let (top, bottom) = (base - PLACE_SIZE * 0.95, base + PLACE_SIZE * 0.3);
        boxes
            .iter()
            .map(|&(bx, by)| (r.min(bx + 28.0) - l.max(bx)).max(0.0) * (bottom.min(by + 24.0) - top.max(by)).max(0.0))
            .sum::<f64>()
    };
    let mut s = String::new();
    for p in places {
        let (x, y) = p.at;
        let half = place_width(p.name) / 2.0;
        let within = |x: f64| x.clamp(left + half, (right - half).max(left + half));
        let near = if p.occupied { [y + 12.5 + PLACE_SIZE, y - 14.0] } else { [y + 2.5, y + 16.0] };
        let shifts = [0.0, -(half - 8.0).max(0.0), (half - 8.0).max(0.0)];
        let mut far: Vec<(f64, f64, bool)> = (-8..=8)
            .flat_map(|i| (-16..=16).map(move |j| (x + 5.0 * f64::from(j), y + 8.0 * f64::from(i), true)))
            .collect();
        far.sort_by(|a, b| ((a.0 - x).hypot(a.1 - y)).total_cmp(&(b.0 - x).hypot(b.1 - y)));
        let candidates: Vec<(f64, f64, bool)> = shifts
            .iter()
            .flat_map(|dx| near.iter().map(move |base| (x + dx, *base, false)))
            .chain(far)
            .map(|(x, base, leader)| (within(x), base, leader))
            .collect();
        let fits = |&(x, base, _): &(f64, f64, bool)| {
            base < bottom_base && base > top_base && covered(x - half, x + half, base) == 0.0
        };
        let least = candidates
            .iter()
            .filter(|c| !c.2)
            .min_by(|a, b| covered(a.0 - half, a.0 + half, a.1).total_cmp(&covered(b.0 - half, b.0 + half, b.1)))
            .copied();
        let (lx, base, leader) = candidates.iter().copied().find(fits).or(least).unwrap_or((within(x), near[0], false));
        if leader {
            // From the hex's centre to the near edge of the name.
            let end = if base > y { base - PLACE_SIZE } else { base + 2.0 };
            s.push_str(&format!(
                "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{lx:.1}\" y2=\"{end:.1}\" stroke=\"#333\" stroke-width=\"0.7\"/>\n"
            ));
        }
        s.push_str(&format!(
            "<text x=\"{lx:.1}\" y=\"{base:.1}\" font-size=\"{PLACE_SIZE}\" font-weight=\"bold\" text-anchor=\"middle\" {HALO}>{}</text>\n",
            esc(p.name)
        ));
    }
    s
}

/// A halo of the paper behind text drawn over the map.
const HALO: &str = "stroke=\"#f4efe1\" stroke-width=\"2.4\" stroke-linejoin=\"round\" paint-order=\"stroke\"";

/// A hex's radius on a hex map, in map units.
const HEX_R: f64 = 20.0;

/// The side of the locator's square, in map units.
const LOCATOR: f64 = 110.0;

/// A cropped map's locator at `at`: the whole field at scale `k` (terrain
/// as drawn, pieces as dots of their side's colour), the part shown
/// outlined in red.
fn locate(b: &HexBoard, window: [i32; 4], at: (f64, f64), k: f64, size: (f64, f64)) -> String {
    let [c0, c1, r0, r1] = window;
    let (x0, y0) = at;
    let h3 = 3f64.sqrt() * HEX_R;
    let corner = |c: i32, r: i32| {
        let low = (c % 2 == 0) == b.even_low;
        (x0 + (c - 1) as f64 * 1.5 * HEX_R * k, y0 + ((r - 1) as f64 + if low { 0.5 } else { 0.0 }) * h3 * k)
    };
    let mut s = format!(
        "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#f4efe1\" stroke=\"#5a4d30\"/>\n",
        size.0, size.1
    );
    for hx in &b.hexes {
        let fill = match &hx.piece {
            Some(p) => b.sides.iter().find(|(n, _)| *n == p.side).map_or("#444", |(_, c)| c.as_str()),
            None => match b.terrain.iter().find(|t| t.0 == hx.terrain) {
                Some(t) => t.2.as_str(),
                None => continue,
            },
        };
        let (x, y) = corner(hx.col, hx.row);
        s.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"{fill}\"/>",
            2.0 * HEX_R * k,
            h3 * k
        ));
    }
    let (lx, ty) = corner(c0, r0);
    let (rx, _) = corner(c1, r0);
    let by = y0 + (r1 as f64 + 0.5) * h3 * k;
    s.push_str(&format!(
        "\n<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1.5\"/>\n",
        ty.min(y0 + (r0 - 1) as f64 * h3 * k),
        rx + 2.0 * HEX_R * k - lx,
        by - ty.min(y0 + (r0 - 1) as f64 * h3 * k)
    ));
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"8\" text-anchor=\"middle\" fill=\"#333\">the whole field; red: shown</text>\n",
        x0 + size.0 / 2.0,
        y0 + size.1 + 11.0
    ));
    s
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
///
/// With a `window` (first and last column, first and last row) only that
/// part is drawn, every column and row numbered along its edges, and a
/// locator of the whole field sits beside the legend.
fn hexes(b: &HexBoard, window: Option<[i32; 4]>) -> String {
    const R: f64 = HEX_R;
    let h3 = 3f64.sqrt() * R;
    let big = b.columns * b.rows > 600;
    let [c0, c1, r0, r1] = window.unwrap_or([1, b.columns, 1, b.rows]);
    let inside = |c: i32, r: i32| (c0..=c1).contains(&c) && (r0..=r1).contains(&r);
    let (mx, my) = (if big { 34.0 } else { 20.0 }, 40.0);
    let low = |c: i32| (c % 2 == 0) == b.even_low;
    let centre = |c: i32, r: i32| {
        (mx + R + (c - c0) as f64 * 1.5 * R, my + h3 / 2.0 + (r - r0) as f64 * h3 + if low(c) { h3 / 2.0 } else { 0.0 })
    };
    let w =
        ((mx * 2.0 + R * 2.0 + (c1 - c0).max(0) as f64 * 1.5 * R).ceil() as i32).max(300).max(title_width(&b.title));
    let map_h = my + h3 * ((r1 - r0 + 1) as f64 + 0.5) + 10.0;
    // The locator: the whole field at a scale that fits beside the legend.
    let field = (1.5 * R * b.columns as f64 + R / 2.0, h3 * (b.rows as f64 + 0.5));
    let locator = window.map(|_| {
        let k = LOCATOR / field.0.max(field.1);
        (k, field.0 * k, field.1 * k)
    });
    let keys = picture_keys(b);
    let text_w = w - 20 - locator.map_or(0, |(_, lw, _)| lw as i32 + 10);
    let key_rows = key_rows(&keys, text_w);
    let mut lines: Vec<String> = vec![String::new(); key_rows.len()];
    lines.extend(b.areas.iter().map(|(label, _)| format!("Dashed purple outline: {label}")));
    lines.extend(wrapped(&b.legend, text_w));
    let legend_h = (16 * (1 + lines.len()) + 10) as f64;
    let h = (map_h + legend_h.max(locator.map_or(0.0, |(_, _, lh)| lh + 34.0))).ceil() as i32;
    // Drawn larger up to the mailed width, so that a counter's 7-unit
    // text reads at 10 pixels.
    let mut s = zoomed(w, h, &b.title);
    // What lies outside a window is drawn (roads, outlines) but clipped.
    s.push_str(&match window {
        None => "<g>\n".to_string(),
        Some(_) => format!(
            "<clipPath id=\"field\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{:.1}\"/></clipPath><g clip-path=\"url(#field)\">\n",
            mx - 1.0,
            my - 1.0,
            w as f64 - 2.0 * mx + 2.0,
            map_h - 10.0 - my + 2.0
        ),
    });
    let colour = |g: char| b.terrain.iter().find(|t| t.0 == g).map(|t| t.2.as_str()).unwrap_or("#f4efe1");
    let side_colour = |side: &str| b.sides.iter().find(|(n, _)| n == side).map(|(_, c)| c.as_str()).unwrap_or("#444");
    let mut edges = String::new();
    if big {
        for c in c0..=c1 {
            let (x, _) = centre(c, r0);
            edges.push_str(&format!(
                "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#5a4d30\" text-anchor=\"middle\">{c:02}</text>\n",
                my - 6.0
            ));
        }
        for r in r0..=r1 {
            // Beside the first column, whichever way it is offset.
            let (_, y) = centre(c0, r);
            let y = if low(c0) { y - h3 / 2.0 } else { y };
            edges.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#5a4d30\" text-anchor=\"end\">{r:02}</text>\n",
                mx - 2.0,
                y + 3.0
            ));
        }
    }
    // One hexagon drawn once and placed by `use`, the hexes grouped by
    // colour, their numbers in one group: a fifth of the bytes of a
    // polygon per hex. Its edges are drawn crisp: anti-aliased edges
    // would fill the PNG's palette with shades and double its size.
    let pts: Vec<String> = (0..6)
        .map(|k| {
            let a = std::f64::consts::PI / 3.0 * k as f64;
            format!("{:.1},{:.1}", R * a.cos(), R * a.sin())
        })
        .collect();
    s.push_str(&format!(
        "<defs><polygon id=\"hx\" points=\"{}\" stroke=\"#b8ab8c\" stroke-width=\"0.8\" shape-rendering=\"crispEdges\"/></defs>\n",
        pts.join(" ")
    ));
    let mut by_fill: std::collections::BTreeMap<&str, String> = std::collections::BTreeMap::new();
    let mut numbers = String::new();
    for c in c0..=c1 {
        for r in r0..=r1 {
            let (x, y) = centre(c, r);
            let cell = b.hexes.iter().find(|x| x.col == c && x.row == r);
            let g = cell.map(|x| x.terrain).unwrap_or('.');
            by_fill.entry(colour(g)).or_default().push_str(&format!("<use href=\"#hx\" x=\"{x:.1}\" y=\"{y:.1}\"/>"));
            // A counter covers its hex's number (the legend and the ASCII
            // map still give it): fewer tiny labels keep the PNG small. A
            // large map (Braccio's 1,020 hexes) numbers its edges instead,
            // and every fifth hex, to stay small enough to mail.
            let numbered = !big || (c % 5 == 0 && r % 5 == 0);
            if numbered && cell.map(|x| x.symbol.is_empty() || x.piece.is_none()).unwrap_or(true) {
                numbers.push_str(&format!("<text x=\"{x:.1}\" y=\"{:.1}\">{c:02}{r:02}</text>", y - R * 0.55));
            }
        }
    }
    for (fill, uses) in &by_fill {
        s.push_str(&format!("<g fill=\"{fill}\">{uses}</g>\n"));
    }
    s.push_str(&format!("<g font-size=\"6\" fill=\"#8a7d60\" text-anchor=\"middle\">{numbers}</g>\n"));
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
        if !inside(p.0, p.1) && !inside(q.0, q.1) {
            continue;
        }
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
    for hx in b.hexes.iter().filter(|hx| inside(hx.col, hx.row)) {
        let (x, y) = centre(hx.col, hx.row);
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
    s.push_str("</g>\n");
    // Place names after the counters, never under one.
    let boxes: Vec<(f64, f64)> = b
        .hexes
        .iter()
        .filter(|hx| hx.piece.is_some() && inside(hx.col, hx.row))
        .map(|hx| {
            let (x, y) = centre(hx.col, hx.row);
            (x - 14.0, y - 12.0)
        })
        .collect();
    let places: Vec<Place> = b
        .hexes
        .iter()
        .filter(|hx| inside(hx.col, hx.row) && !hx.place.is_empty())
        .map(|hx| Place {
            at: centre(hx.col, hx.row),
            name: &hx.place,
            // A view may list a hex's place and its piece as two cells.
            occupied: b.hexes.iter().any(|o| o.col == hx.col && o.row == hx.row && o.piece.is_some()),
        })
        .collect();
    // Within the picture, and off the margins where a cropped field's edge
    // numbers stand.
    let edge = if window.is_some() { mx } else { 2.0 };
    s.push_str(&place_names(&places, &boxes, [edge, w as f64 - edge, my + PLACE_SIZE, map_h - 10.0]));
    s.push_str(&edges);
    if let Some((k, lw, lh)) = locator {
        s.push_str(&locate(b, [c0, c1, r0, r1], (w as f64 - lw - 10.0, map_h + 8.0), k, (lw, lh)));
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
    s.push_str(&legend(10, map_h as i32, &b.sides, &lines));
    s.push_str("</svg>\n");
    s
}

/// A square's colour by its terrain glyph: wood, towers and gates of a
/// wall, the hill and its tops, the Rock, water, swamp, a phantom army's
/// squares; anything else (stone, trees, off the map) grey; open ground
/// chequered.
fn square_fill(glyph: Option<char>, chequer: bool) -> &'static str {
    match glyph {
        Some('=') => "#a8753f",
        Some('T') => "#555555",
        Some('G') => "#7d7d7d",
        Some(':') => "#c9b48a",
        Some('^') => "#8a6d3b",
        Some('@') => "#6b6257",
        Some('~') => "#7fb2d9",
        Some('%') => "#8fa37a",
        Some('+') => "#c7b9d9",
        Some(_) => "#9c9c9c",
        None if chequer => "#efe6cf",
        None => "#e4d8b8",
    }
}

/// A square board: labelled squares, terrain shaded, pieces as squares of
/// their side's colour, an annex under it (Tacticum's Fort), and the
/// picture's key: a swatch of each terrain drawn, then the notes.
fn squares(b: &SquareBoard) -> String {
    const C: i32 = SQUARE;
    let (mx, my) = (30, 40);
    let annex_h = b.annex.as_ref().map_or(0, |a| 30 + C * a.rows as i32);
    let map_h = my + C * b.rows as i32 + 10 + annex_h;
    let w = (mx * 2 + C * b.columns as i32).max(300).max(title_width(&b.title));
    let mut keys: Vec<Key> = Vec::new();
    for board in std::iter::once(b).chain(b.annex.as_deref()) {
        for (g, name) in &board.key {
            if board.terrain.iter().any(|t| t.2 == *g) && !keys.iter().any(|k| k.name == *name) {
                keys.push(Key { fill: Some(square_fill(Some(*g), true).to_string()), line: None, name: name.clone() });
            }
        }
    }
    let key_rows = key_rows(&keys, w - 20);
    let mut lines: Vec<String> = vec![String::new(); key_rows.len()];
    let mut notes = if b.key.is_empty() && b.notes.is_empty() { b.legend.clone() } else { b.notes.clone() };
    if let Some(a) = &b.annex {
        notes.extend(a.notes.iter().cloned());
    }
    if !b.marks.is_empty() {
        notes.push("Orange outline: the last move; red cross: a capture".into());
    }
    lines.extend(wrapped(&notes, w - 20));
    let h = map_h + 16 * (1 + lines.len() as i32) + 12;
    let mut s = open(w, h, &b.title);
    s.push_str(&square_grid(b, mx, my));
    if let Some(a) = &b.annex {
        let y = my + C * b.rows as i32 + 30;
        s.push_str(&format!("<text x=\"10\" y=\"{}\" font-weight=\"bold\">{}</text>\n", y - 18, esc(&a.title)));
        s.push_str(&square_grid(a, mx, y));
    }
    for (row, keys) in key_rows.iter().enumerate() {
        let y = map_h + 29 + 16 * row as i32;
        let mut x = 10;
        for k in keys {
            s.push_str(&k.draw(x, y));
            x += k.width();
        }
    }
    s.push_str(&legend(10, map_h, &b.sides, &lines));
    s.push_str("</svg>\n");
    s
}

/// A square's side on a square board.
const SQUARE: i32 = 30;

/// A board's squares at (mx, my): labels, terrain, pieces
/// and the last move's marks.
fn square_grid(b: &SquareBoard, mx: i32, my: i32) -> String {
    const C: i32 = SQUARE;
    let mut s = String::new();
    let side_colour = |side: &str| b.sides.iter().find(|(n, _)| n == side).map(|(_, c)| c.as_str()).unwrap_or("#444");
    for r in 0..b.rows as i32 {
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            mx - 6,
            my + r * C + C / 2 + 4,
            esc(b.row_labels.get(r as usize).map(String::as_str).unwrap_or(""))
        ));
        for c in 0..b.columns as i32 {
            let glyph = b.terrain.iter().find(|t| t.0 as i32 == c && t.1 as i32 == r).map(|t| t.2);
            let fill = square_fill(glyph, (c + r) % 2 == 0);
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
    s
}
