//! A `View` as plain text: title, status lines, aligned tables and an ASCII
//! map of the board that fits a 78-column mail.

use crate::engine::view::{Board, GraphBoard, GridBoard, HexBoard, SquareBoard, Table, TrackBoard, View};

pub const COLS: usize = 78;
const ROWS: usize = 30;

pub fn render(v: &View) -> String {
    let mut out = String::new();
    out.push_str(&v.title);
    out.push('\n');
    out.push_str(&"=".repeat(v.title.chars().count()));
    out.push('\n');
    for l in &v.lines {
        out.push_str(l);
        out.push('\n');
    }
    for b in &v.boards {
        out.push('\n');
        match b {
            Board::Graph(g) => out.push_str(&map(g)),
            Board::Grid(g) => out.push_str(&grid(g)),
            Board::Tracks(t) => out.push_str(&tracks(t)),
            Board::Hex(h) => out.push_str(&hexes(h)),
            Board::Squares(q) => out.push_str(&squares(q)),
        }
    }
    for t in &v.tables {
        out.push('\n');
        out.push_str(&table(t));
    }
    out
}

pub fn table(t: &Table) -> String {
    let mut w: Vec<usize> = t.header.iter().map(|h| h.chars().count()).collect();
    for r in &t.rows {
        for (i, c) in r.iter().enumerate() {
            if i < w.len() {
                w[i] = w[i].max(c.chars().count());
            }
        }
    }
    let line = |cells: &[String]| {
        let s: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:<width$}", c, width = w.get(i).copied().unwrap_or(0)))
            .collect();
        s.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = format!("{}\n", t.title);
    out.push_str(&line(&t.header));
    out.push_str(&line(&w.iter().map(|n| "-".repeat(*n)).collect::<Vec<_>>()));
    for r in &t.rows {
        out.push_str(&line(r));
    }
    if t.rows.is_empty() {
        out.push_str("(none)\n");
    }
    out
}

/// Roads as dots, spaces as `[Name]` (cities) or `(Name)` (Points), with a
/// count of pieces per side after the name, e.g. `[Verona] F2`.
pub fn map(g: &GraphBoard) -> String {
    let mut grid = vec![vec![' '; COLS]; ROWS];
    let pos = |x: i32, y: i32| -> (usize, usize) {
        let c = (x.max(0) as usize * (COLS - 1)) / g.width.max(1) as usize;
        let r = (y.max(0) as usize * (ROWS - 1)) / g.height.max(1) as usize;
        (c.min(COLS - 1), r.min(ROWS - 1))
    };
    let segment = |grid: &mut Vec<Vec<char>>, a: (usize, usize), b: (usize, usize)| {
        let steps = a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)).max(1);
        for i in 0..=steps {
            let c = a.0 as f64 + (b.0 as f64 - a.0 as f64) * i as f64 / steps as f64;
            let r = a.1 as f64 + (b.1 as f64 - a.1 as f64) * i as f64 / steps as f64;
            let (c, r) = (c.round() as usize, r.round() as usize);
            if grid[r][c] == ' ' {
                grid[r][c] = '.';
            }
        }
    };
    for &(a, b) in &g.links {
        let (sa, sb) = (&g.spaces[a], &g.spaces[b]);
        segment(&mut grid, pos(sa.x, sa.y), pos(sb.x, sb.y));
    }
    for s in &g.stubs {
        let f = &g.spaces[s.from];
        segment(&mut grid, pos(f.x, f.y), pos(s.x, s.y));
    }
    let mut taken = vec![vec![false; COLS]; ROWS];
    for s in &g.spaces {
        let mut label = if s.kind == "point" { format!("({})", s.name) } else { format!("[{}]", s.name) };
        let mut counts = Vec::new();
        for (side, _) in &g.sides {
            let n = s.pieces.iter().filter(|p| &p.side == side).count();
            if n > 0 {
                counts.push(format!("{}{}", side.chars().next().unwrap_or('?').to_ascii_uppercase(), n));
            }
        }
        if !counts.is_empty() {
            label.push_str(&counts.join(""));
        }
        let (c, r) = pos(s.x, s.y);
        let chars: Vec<char> = label.chars().collect();
        // Try the space's own row first, then the rows around it, then
        // shifted sideways, so that crowded labels do not overwrite each
        // other; roads give way to labels.
        let fits = |grid: &Vec<Vec<char>>, taken: &Vec<Vec<bool>>, row: usize, start: usize| {
            start + chars.len() <= COLS && (0..chars.len()).all(|i| !taken[row][start + i]) && grid[row].len() == COLS
        };
        let base = c.saturating_sub(chars.len() / 2).min(COLS.saturating_sub(chars.len()));
        let mut spot = None;
        'search: for dr in [0i32, 1, -1, 2, -2] {
            for dc in [0i32, 3, -3, 6, -6, 10, -10] {
                let row = r as i32 + dr;
                let start = base as i32 + dc;
                if row < 0 || row >= ROWS as i32 || start < 0 {
                    continue;
                }
                if fits(&grid, &taken, row as usize, start as usize) {
                    spot = Some((row as usize, start as usize));
                    break 'search;
                }
            }
        }
        let (row, start) = spot.unwrap_or((r, base));
        for (i, ch) in chars.iter().enumerate() {
            if start + i < COLS {
                grid[row][start + i] = *ch;
                taken[row][start + i] = true;
            }
        }
    }
    let mut out: String = grid.iter().map(|row| row.iter().collect::<String>().trim_end().to_string() + "\n").collect();
    let legend: Vec<String> = g
        .sides
        .iter()
        .map(|(s, _)| format!("{}n = n {} pieces", s.chars().next().unwrap_or('?').to_ascii_uppercase(), s))
        .collect();
    out.push_str(&format!("[City] (Point); {}\n", legend.join(", ")));
    out
}

/// A grid display: one box a cell, the stack's side and facing on its first
/// line, then its pieces front first.
pub fn grid(g: &GridBoard) -> String {
    const W: usize = 13;
    let mut out = format!("{}\n", g.title);
    let rule = format!("   +{}\n", vec!["-".repeat(W); g.columns as usize].join("+") + "+");
    out.push_str("    ");
    for c in &g.col_labels {
        out.push_str(&format!("{:^width$} ", c, width = W));
    }
    out.push('\n');
    out.push_str(&rule);
    for r in 0..g.rows {
        let height = g.cells.iter().filter(|c| c.row == r).map(|c| c.lines.len() + 1).max().unwrap_or(1).max(2);
        for line in 0..height {
            let label =
                if line == 0 { g.row_labels.get(r as usize).cloned().unwrap_or_default() } else { String::new() };
            out.push_str(&format!("{label:>2} |"));
            for c in 0..g.columns {
                let text = match g.cells.iter().find(|x| x.col == c && x.row == r) {
                    Some(cell) if line == 0 => {
                        format!(
                            "{} {} x{}",
                            cell.side.chars().next().unwrap_or('?').to_ascii_uppercase(),
                            cell.facing,
                            cell.lines.len()
                        )
                    }
                    Some(cell) => cell.lines.get(line - 1).cloned().unwrap_or_default(),
                    None => String::new(),
                };
                let text: String = text.chars().take(W).collect();
                out.push_str(&format!("{text:<width$}|", width = W));
            }
            out.push('\n');
        }
        out.push_str(&rule);
    }
    out.push_str(
        "Each box: side, facing (^ > v <), units; front unit first. ? = face-down; * = face-down to the enemy.\n",
    );
    out
}

/// Each track as a bar of its range with the figure marked: `[####|.....]`.
pub fn tracks(b: &TrackBoard) -> String {
    const BAR: i32 = 30;
    let mut out = format!("{}\n", b.title);
    let w = b.tracks.iter().map(|t| t.label.chars().count()).max().unwrap_or(0);
    for t in &b.tracks {
        let span = (t.max - t.min).max(1);
        let bar: String = match t.value {
            Some(v) => {
                let at = ((v.clamp(t.min, t.max) - t.min) * BAR / span) as usize;
                (0..=BAR as usize)
                    .map(|i| {
                        if i == at {
                            '|'
                        } else if i < at {
                            '#'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            }
            None => "?".repeat(BAR as usize + 1),
        };
        let value = t.value.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
        let note = if t.note.is_empty() { String::new() } else { format!("  ({})", t.note) };
        out.push_str(&format!("  {:<w$} {:>4} [{bar}] {}..{}{note}\n", t.label, value, t.min, t.max, w = w));
    }
    out
}

/// Text cut or padded to `w` characters, centred.
fn cell(text: &str, w: usize) -> String {
    let t: String = text.chars().take(w).collect();
    format!("{t:^w$}")
}

/// A side's letter on a map (`side_letters`), or its initial if unlisted.
fn initial(sides: &[(String, String)], side: &str) -> char {
    let letters = crate::engine::view::side_letters(sides.iter().map(|(n, _)| n.as_str()));
    match sides.iter().position(|(n, _)| n == side) {
        Some(i) => letters[i],
        None => side.chars().next().unwrap_or('?').to_ascii_lowercase(),
    }
}

/// A legend: each side's initial, then the board's own lines.
fn legend_lines(sides: &[(String, String)], lines: &[String]) -> String {
    let mut out = String::new();
    if !sides.is_empty() {
        let s: Vec<String> = sides.iter().map(|(n, _)| format!("{} = {n}", initial(sides, n))).collect();
        out.push_str(&format!("Sides: {}\n", s.join(", ")));
    }
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// A hex map in two text lines a map row: the higher columns on the first,
/// the lower ones (even columns under `even-q`) on the second, half a hex
/// down; a hex is a five-character cell at a pitch of three characters, so
/// a 20-column map is 66 characters wide (a wider map shows its `window`).
/// Pieces show as their code after their side's initial (`oI10`), and a
/// facing glyph after it where the piece faces a vertex; empty hexes as
/// their terrain glyph.
pub fn hexes(b: &HexBoard) -> String {
    const PITCH: usize = 3;
    const CELL: usize = 5;
    const LEFT: usize = 3;
    let [c0, c1, r0, r1] = b.window.unwrap_or([1, b.columns.max(1), 1, b.rows]);
    let low = |c: i32| (c % 2 == 0) == b.even_low;
    let width = LEFT + (c1 - c0).max(0) as usize * PITCH + CELL;
    let x_of = |c: i32| LEFT + (c - c0) as usize * PITCH;
    let at = |c: i32, r: i32| b.hexes.iter().find(|h| h.col == c && h.row == r);
    let text_of = |c: i32, r: i32| match at(c, r) {
        Some(h) => match &h.piece {
            Some(p) => format!("{}{}{}", initial(&b.sides, &p.side), p.text, facing_glyph(h.facing)),
            None => h.terrain.to_string(),
        },
        None => ".".to_string(),
    };
    let put = |line: &mut Vec<char>, x: usize, t: &str| {
        for (i, ch) in t.chars().enumerate() {
            if x + i < line.len() {
                line[x + i] = ch;
            }
        }
    };
    let mut out = format!("{}\n", b.title);
    if b.window.is_some() {
        out.push_str(&format!("Columns {c0:02}-{c1:02}, rows {r0:02}-{r1:02} of {}x{}\n", b.columns, b.rows));
    }
    for lower in [false, true] {
        let mut line = vec![' '; width];
        for c in (c0..=c1).filter(|&c| low(c) == lower) {
            put(&mut line, x_of(c) + 1, &format!("{c:02}"));
        }
        out.push_str(line.iter().collect::<String>().trim_end());
        out.push('\n');
    }
    for r in r0..=r1 {
        for lower in [false, true] {
            let mut line = vec![' '; width];
            if !lower {
                put(&mut line, 0, &format!("{r:02}"));
            }
            for c in (c0..=c1).filter(|&c| low(c) == lower) {
                put(&mut line, x_of(c), &cell(&text_of(c, r), CELL));
            }
            out.push_str(line.iter().collect::<String>().trim_end());
            out.push('\n');
        }
    }
    let glyphs: Vec<String> = b.terrain.iter().map(|(g, n, _)| format!("{g} {n}")).collect();
    for chunk in wrap(&glyphs, COLS - 9) {
        out.push_str(&format!("Terrain: {chunk}\n"));
    }
    let places: Vec<String> = b
        .hexes
        .iter()
        .filter(|h| !h.place.is_empty())
        .map(|h| format!("{} {:02}{:02}", h.place, h.col, h.row))
        .collect();
    for chunk in wrap(&places, COLS - 8) {
        out.push_str(&format!("Places: {chunk}\n"));
    }
    for (name, hexes) in &b.roads {
        for chunk in wrap(hexes, COLS - name.chars().count() - 8) {
            out.push_str(&format!("Road {name}: {chunk}\n"));
        }
    }
    let mut kinds: Vec<&str> = b.hexsides.iter().map(|(_, _, k)| k.as_str()).collect();
    kinds.dedup();
    for k in kinds {
        let sides: Vec<String> =
            b.hexsides.iter().filter(|(_, _, x)| x == k).map(|(a, c, _)| format!("{a}-{c}")).collect();
        for chunk in wrap(&sides, COLS - k.len() - 12) {
            out.push_str(&format!("{k} hexsides: {chunk}\n"));
        }
    }
    out.push_str(&legend_lines(&b.sides, &b.legend));
    out
}

/// A facing as one character after a piece's code: the clock hour of the
/// vertex faced, drawn as where it points (NE `/`, E `>`, SE `\\`, SW `,`,
/// W `<`, NW `` ` ``).
pub fn facing_glyph(hour: u8) -> &'static str {
    match hour {
        1 => "/",
        3 => ">",
        5 => "\\",
        7 => ",",
        9 => "<",
        11 => "`",
        _ => "",
    }
}

/// Items joined with ", " in lines of at most `w` characters.
fn wrap(items: &[String], w: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for it in items {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 2 + it.chars().count() <= w => {
                l.push_str(", ");
                l.push_str(it);
            }
            _ => lines.push(it.clone()),
        }
    }
    lines
}

/// A square board, one four-character box a square: a 15-column board is
/// 64 characters wide.
pub fn squares(b: &SquareBoard) -> String {
    const W: usize = 3;
    let mut out = format!("{}\n", b.title);
    let mut header = String::from("   ");
    for c in 0..b.columns as usize {
        header.push(' ');
        header.push_str(&cell(b.col_labels.get(c).map(String::as_str).unwrap_or(""), W));
    }
    out.push_str(header.trim_end());
    out.push('\n');
    let rule = format!("   +{}\n", vec!["-".repeat(W); b.columns as usize].join("+") + "+");
    out.push_str(&rule);
    for r in 0..b.rows {
        out.push_str(&format!("{:>2} |", b.row_labels.get(r as usize).map(String::as_str).unwrap_or("")));
        for c in 0..b.columns {
            let text = match b.cells.iter().find(|x| x.0 == c && x.1 == r) {
                Some((_, _, p)) => format!("{}{}", initial(&b.sides, &p.side), p.text),
                None => b
                    .terrain
                    .iter()
                    .find(|x| x.0 == c && x.1 == r)
                    .map(|x| x.2.to_string().repeat(W))
                    .unwrap_or_default(),
            };
            out.push_str(&cell(&text, W));
            out.push('|');
        }
        out.push('\n');
        out.push_str(&rule);
    }
    out.push_str(&legend_lines(&b.sides, &b.legend));
    out
}
