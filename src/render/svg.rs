//! A `View`'s board as a standalone SVG map (attached to every prompt and
//! results mail).

use crate::engine::view::{Board, GraphBoard, GridBoard, TrackBoard, View};

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
