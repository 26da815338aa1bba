//! Solo Scenario I, Secure the Frontier (SO1): the Legion builds a wall of
//! Wood and Stone with towers, its Prefect fetching the cubes from the
//! Fort when a Build Formation is made (SO1-15..23, A-35, A-36); the
//! Raiders advance down the column the die names, the most threatening
//! move first (SO1-24..35, A-37, A-38).

use super::{choose, Cand};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::{Event, Problem};
use crate::rules::shared::squares::{Board, Naming, Sq};
use crate::rules::tacticum::moves;
use crate::rules::tacticum::{Order, State, Who};

/// A Fort cell's (column, row) from its name (`Fb1`), if in the Fort.
/// A Fort cell is `F` and a square of the Fort's own small board.
fn fort_cell(s: &State, name: &str) -> Option<(u8, u8)> {
    let f = s.solo.as_ref()?.fort.as_ref()?;
    let rest = name.strip_prefix('F').or_else(|| name.strip_prefix('f'))?;
    let board = Board { columns: f.columns, rows: f.rows, naming: Naming::ColumnLetter };
    board.square(rest).map(|q| (q.col, q.row))
}

fn fort_name(col: u8, row: u8) -> String {
    format!("F{}", Naming::column_letter(Sq { col, row }))
}

/// Read a Fort cell as a player writes it (`fb1`, `Fb1`), canonical.
pub fn parse_fort(s: &State, word: &str) -> Result<String, Problem> {
    let w = word.trim();
    let (cols, rows) = s.solo.as_ref().and_then(|x| x.fort.as_ref()).map(|f| (f.columns, f.rows)).unwrap_or((0, 0));
    fort_cell(s, w).map(|(c, r)| fort_name(c, r)).ok_or_else(|| {
        Problem::new(format!("{w} is not a Fort cell"))
            .hint(format!("F, a column a–{} and a row 1–{rows}: Fb1", (b'a' + cols.max(1) - 1) as char))
    })
}

fn prefect(s: &State) -> String {
    let legion = s.solo.as_ref().and_then(|x| s.army_index(&x.legion));
    legion.and_then(|a| s.armies[a].cavalry.first().cloned()).unwrap_or_default()
}

/// The first cube on each straight line the Prefect can run (SO1-22,
/// from the board, through the gate it stands at; in the Fort, in
/// the four directions within it.
pub fn first_cubes(s: &State) -> Vec<String> {
    let Some(f) = s.solo.as_ref().and_then(|x| x.fort.as_ref()) else { return Vec::new() };
    let at = prefect(s);
    let run = |mut c: i32, mut r: i32, dc: i32, dr: i32| -> Option<String> {
        while c >= 0 && r >= 0 && c < f.columns as i32 && r < f.rows as i32 {
            let n = fort_name(c as u8, r as u8);
            if f.cubes.contains_key(&n) {
                return Some(n);
            }
            c += dc;
            r += dr;
        }
        None
    };
    let mut out = Vec::new();
    if let Some((c, r)) = fort_cell(s, &at) {
        const DIRS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
        for (dc, dr) in DIRS {
            out.extend(run(c as i32 + dc, r as i32 + dr, dc, dr));
        }
        // With no cube on any of its lines the Prefect would be stuck and
        // the wall unfinishable: it may first walk straight to an empty
        // cell and run from there (adjutant's reading, beyond A-35).
        if out.is_empty() {
            for (dc, dr) in DIRS {
                let (mut x, mut y) = (c as i32 + dc, r as i32 + dr);
                while x >= 0 && y >= 0 && x < f.columns as i32 && y < f.rows as i32 {
                    for (ec, er) in DIRS {
                        out.extend(run(x + ec, y + er, ec, er));
                    }
                    x += dc;
                    y += dr;
                }
            }
            out.sort();
            out.dedup();
        }
    } else {
        for [board, cell] in &f.gates {
            if *board == at {
                if let Some((c, r)) = fort_cell(s, cell) {
                    out.extend(run(c as i32, r as i32, 0, 1));
                }
            }
        }
    }
    out
}

/// The default arrangement as an order (the arrange step's default).
pub fn wood_default(s: &State) -> Vec<Order> {
    s.solo.as_ref().and_then(|x| x.fort.as_ref()).map(|f| vec![Order::Wood(f.wood.clone())]).unwrap_or_default()
}

/// The arrange step (SO1-9): Wood on the cells named, Stone on the rest.
pub fn check_arrange(s: &State, cells: &[String]) -> Result<(), Problem> {
    let want = s.solo.as_ref().and_then(|x| x.fort.as_ref()).map(|f| f.wood.len()).unwrap_or(0);
    if cells.len() != want {
        return Err(Problem::new(format!("name {want} Fort cells for the Wood (SO1-9); this names {}", cells.len()))
            .hint(wood_default(s).iter().map(|o| o.to_string()).collect::<String>()));
    }
    let mut seen = Vec::new();
    for c in cells {
        if seen.contains(c) {
            return Err(Problem::new(format!("{c} is named twice")).hint("six different Fort cells"));
        }
        seen.push(c.clone());
    }
    Ok(())
}

pub fn arrange(s: &mut State, orders: &[Order], ev: &mut Vec<Event>) {
    let wood = match orders.first() {
        Some(Order::Wood(v)) if check_arrange(s, v).is_ok() => v.clone(),
        _ => s.solo.as_ref().and_then(|x| x.fort.as_ref()).map(|f| f.wood.clone()).unwrap_or_default(),
    };
    if let Some(f) = s.solo.as_mut().and_then(|x| x.fort.as_mut()) {
        f.cubes.clear();
        for r in 0..f.rows {
            for c in 0..f.columns {
                let n = fort_name(c, r);
                let kind = if wood.contains(&n) { "wood" } else { "stone" };
                f.cubes.insert(n, kind.into());
            }
        }
    }
    ev.push(Event::all(format!("The Fort is stocked: Wood on {}, Stone on the rest.", wood.join(", "))));
    s.phase = "turn".into();
}

fn section(s: &State, q: Sq) -> Option<&str> {
    s.solo.as_ref()?.sections.get(&s.name(q)).map(String::as_str)
}

/// A Wood section beside a Tower on the wall: the Raiders cannot destroy
/// it (SO1-20).
fn protected(s: &State, q: Sq) -> bool {
    section(s, q) == Some("wood")
        && [-1i32, 1].iter().any(|d| {
            let c = q.col as i32 + d;
            c >= 0 && c < s.columns as i32 && section(s, Sq { col: c as u8, row: q.row }) == Some("tower")
        })
}

/// The squares of the wall row, built or not.
fn wall_row(s: &State) -> Vec<Sq> {
    let row = s.solo.as_ref().map_or(0, |x| x.wall_row.saturating_sub(1));
    (0..s.columns).map(|col| Sq { col, row }).collect()
}

/// The squares of the wall row not built yet.
pub fn open_wall(s: &State) -> Vec<Sq> {
    wall_row(s).into_iter().filter(|&q| section(s, q).is_none()).collect()
}

/// The Legion's builders (Infantry or Commander) touching `f` (SO1-15).
pub fn builders_touching(s: &State, legion: usize, f: Sq) -> usize {
    let get = s.who_at();
    s.board()
        .neighbours(f)
        .iter()
        .filter(|&&q| matches!(get(q), Some(Who::Infantry(a, _) | Who::Commander(a)) if a == legion))
        .count()
}

/// The wall squares where a Build Formation is created by this action
/// not holding a unit, a unit that moved touching it, and at least
/// two Legion units (Infantry or Commander) touching it now.
fn foci(s: &State, legion: usize, moved: &[Sq]) -> Vec<Sq> {
    if s.solo.is_none() {
        return Vec::new();
    }
    let get = s.who_at();
    wall_row(s)
        .into_iter()
        .filter(|&f| !get(f).is_some_and(|w| w.is_unit()))
        .filter(|&f| s.board().neighbours(f).iter().any(|q| moved.contains(q)))
        .filter(|&f| builders_touching(s, legion, f) >= 2)
        .collect()
}

/// Make the Legion's action and say which wall squares it made Build
/// Formations on, or why it cannot be made.
fn act(s: &mut State, role: &str, legion: usize, action: &Order, ev: &mut Vec<Event>) -> Result<Vec<Sq>, Problem> {
    let eff = moves::check(s, role, action)?;
    let moved: Vec<Sq> = eff.moves.iter().map(|(_, q)| *q).collect();
    moves::play(s, role, action, ev);
    Ok(foci(s, legion, &moved))
}

/// The wall squares `action` would make Build Formations on, where
/// a SUPPLY may follow it: for a player that looks for them.
pub fn foci_after(s: &State, role: &str, action: &Order) -> Vec<Sq> {
    let Some(legion) = s.army_index(role) else { return Vec::new() };
    act(&mut s.clone(), role, legion, action, &mut Vec::new()).unwrap_or_default()
}

/// Apply the Legion's turn as written, or say which line cannot be made:
/// RESTOCK lines first (and the rest of the destroyed Wood to the first
/// empty cells), the one action, then a SUPPLY for each Build Formation
/// the action created.
pub fn try_turn(s: &mut State, role: &str, orders: &[Order], ev: &mut Vec<Event>) -> Result<(), (usize, Problem)> {
    let Some(legion) = s.army_index(role) else { return Ok(()) };
    if let Some(i) = orders.iter().position(|o| matches!(o, Order::Enter(_))) {
        return Err((i, Problem::new("ENTER belongs to Solo II, Prisoner Escort").hint("leave the ENTER line out")));
    }
    let action = super::one_action(
        orders,
        |o| matches!(o, Order::Supply { .. } | Order::Restock(_)),
        "SUPPLY and RESTOCK lines may go beside it",
    )?;
    // RESTOCK: where destroyed Wood goes back into the Fort (SO1-16).
    let mut restocked = 0;
    let at = prefect(s);
    for (i, o) in orders.iter().enumerate() {
        let Order::Restock(cell) = o else { continue };
        let Some(solo) = s.solo.as_mut() else { continue };
        if restocked >= solo.restock {
            return Err((
                i,
                Problem::new("no destroyed Wood is waiting for the Fort").hint("leave the RESTOCK line out"),
            ));
        }
        let Some(f) = solo.fort.as_mut() else { continue };
        if f.cubes.contains_key(cell) || at == *cell {
            return Err((i, Problem::new(format!("{cell} is not empty")).hint("RESTOCK on an empty Fort cell")));
        }
        f.cubes.insert(cell.clone(), "wood".into());
        restocked += 1;
        ev.push(Event::all(format!("The destroyed Wood goes back to the Fort at {cell}.")));
    }
    restock_rest(s, restocked, ev);
    let Some(ai) = action else {
        if orders.iter().any(|o| matches!(o, Order::Supply { .. })) {
            return Err((
                0,
                Problem::new("a SUPPLY follows the action that makes a Build Formation")
                    .hint("MOVE e3 TO e4 and then SUPPLY Fb1 TO e4"),
            ));
        }
        moves::play(s, role, &Order::Pass, ev);
        return Ok(());
    };
    let mut open = act(s, role, legion, &orders[ai], ev).map_err(|p| (ai, p))?;
    for (i, o) in orders.iter().enumerate() {
        let Order::Supply { from, to } = o else { continue };
        supply(s, from, *to, &mut open).map_err(|p| (i, p))?;
        ev.push(Event::all(format!(
            "The Prefect runs to {from}; its {} is built at {}.",
            match section(s, *to) {
                Some("tower") => "Stone, a Tower",
                Some("wood") => "Wood",
                _ => "Stone",
            },
            s.name(*to)
        )));
    }
    Ok(())
}

/// Destroyed Wood the player did not place goes to the first empty Fort
/// cells in reading order; with the Fort full (the Prefect on the
/// last free cell) it waits until a cell empties.
fn restock_rest(s: &mut State, done: u32, ev: &mut Vec<Event>) {
    let at = prefect(s);
    let Some(solo) = s.solo.as_mut() else { return };
    let mut left = solo.restock.saturating_sub(done);
    let Some(f) = solo.fort.as_mut() else { return };
    while left > 0 {
        let free = (0..f.rows)
            .flat_map(|r| (0..f.columns).map(move |c| fort_name(c, r)))
            .find(|n| !f.cubes.contains_key(n) && *n != at);
        let Some(n) = free else { break };
        ev.push(Event::all(format!("The destroyed Wood goes back to the Fort at {n}.")));
        f.cubes.insert(n, "wood".into());
        left -= 1;
    }
    solo.restock = left;
}

/// One SUPPLY: the Prefect's run to the first cube on a line, and the cube
/// built on an open focus (SO1-15, 17, 19, 22; ).
fn supply(s: &mut State, from: &str, to: Sq, open: &mut Vec<Sq>) -> Result<(), Problem> {
    let cubes = first_cubes(s);
    if !cubes.iter().any(|c| c == from) {
        return Err(Problem::new(format!(
            "the Prefect runs in a straight line to the first cube it meets (SO1-22); {from} is not one"
        ))
        .hint(if cubes.is_empty() {
            "no cube is in its reach".to_string()
        } else {
            format!("one of: {}", cubes.join(", "))
        }));
    }
    let Some(k) = open.iter().position(|&f| f == to) else {
        let list: Vec<String> = open.iter().map(|&f| s.name(f)).collect();
        return Err(Problem::new(format!(
            "{} is not the focus of a Build Formation this action made: two Legion units touching an open wall square, one of them just moved there (SO1-15, A-36)",
            s.name(to)
        ))
        .hint(if list.is_empty() { "move a unit beside a wall square another unit touches".into() } else { format!("SUPPLY {from} TO {}", list[0]) }));
    };
    let f = s.solo.as_ref().and_then(|x| x.fort.as_ref()).expect("a Fort");
    let cube = f.cubes.get(from).cloned().unwrap_or_default();
    let here = section(s, to).map(str::to_string);
    let built = match (cube.as_str(), here.as_deref()) {
        ("wood", None) => "wood",
        ("stone", None) => "stone",
        ("stone", Some("stone")) => "tower",
        ("wood", Some(_)) => {
            return Err(Problem::new(format!("Wood goes only on an empty wall square; {} is built", s.name(to)))
                .hint("bring Stone to make a Tower on Stone (SO1-19)"))
        }
        _ => {
            return Err(Problem::new(format!(
                "{} holds a {}: nothing more is built on it",
                s.name(to),
                here.unwrap_or_default()
            ))
            .hint("build elsewhere on the wall"))
        }
    };
    open.remove(k);
    let legion = s.solo.as_ref().map(|x| x.legion.clone()).unwrap_or_default();
    let name = s.name(to);
    let solo = s.solo.as_mut().expect("solo");
    solo.fort.as_mut().expect("a Fort").cubes.remove(from);
    solo.sections.insert(name, built.into());
    if let Some(a) = s.army_index(&legion) {
        s.armies[a].cavalry[0] = from.to_string();
    }
    Ok(())
}

/// The Raiders' action (SO1-24..35): the die names a column; the most
/// threatening of the moves there is made, and at the gate a 1 gives the
/// War Chief's Tribal Inspiration, two actions from anywhere (SO1-32).
pub fn raiders_turn(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(solo) = s.solo.clone() else { return };
    let Some(r) = s.army_index(&solo.raiders) else { return };
    let d = dice.roll(&StreamId::Public, 6, "raider die", &Serves::nobody());
    let cols: Vec<u8> =
        (0..s.columns).filter(|c| solo.numbers.get(&((b'a' + c) as char).to_string()) == Some(&d)).collect();
    let names: Vec<String> = cols.iter().map(|&c| ((b'a' + c) as char).to_string()).collect();
    let mut report =
        vec![format!("Raider die {d}: column{} {}.", if cols.len() == 1 { "" } else { "s" }, names.join(" and "))];
    let inspired = d == 1 && s.armies[r].commander == solo.chief_gate;
    let actions = if inspired {
        report.push(format!(
            "The War Chief stands at the gate ({}): Tribal Inspiration, two actions (SO1-32).",
            solo.chief_gate
        ));
        2
    } else {
        1
    };
    for _ in 0..actions {
        let all: Vec<u8> = (0..s.columns).collect();
        let cands = candidates(s, r, if inspired { &all } else { &cols });
        match choose(s, cands, dice, &mut report) {
            Some(c) => make(s, r, &c, &mut report),
            None => {
                report.push("No Raider can act: the Legion gets a break (SO1-27).".into());
                break;
            }
        }
    }
    super::publish(s, report, ev);
}

/// Every move the Raiders could make in these columns.
fn candidates(s: &State, r: usize, cols: &[u8]) -> Vec<Cand> {
    let solo = s.solo.as_ref().expect("solo");
    let wall = solo.wall_row.saturating_sub(1);
    let get = s.who_at();
    let open = |q: Sq| get(q).is_none();
    // A square on the wall that a Raider could go through now: a gap, or
    // Wood no Tower guards.
    let weak = |q: Sq| q.row == wall && (open(q) || (section(s, q) == Some("wood") && !protected(s, q)));
    let mut out = Vec::new();
    let mut add = |from: Option<Sq>, to: Sq, kind: &'static str| {
        let captures = match from {
            Some(f) => {
                let mut t = s.clone();
                if kind == "destroy" {
                    t.solo.as_mut().expect("solo").sections.remove(&s.name(to));
                }
                let who = get(f).expect("a Raider");
                moves::make_move(&mut t, &s.armies[r].name, who, to).len()
            }
            None => 0,
        };
        let (tier, sub) = match (kind, from) {
            (_, Some(_)) if to.row == 0 && kind != "sidestep" => ("win", 0),
            _ if captures > 0 => ("capture", 0),
            ("destroy", _) => ("destroy", 0),
            ("advance", Some(f)) if f.row <= wall => ("breach", to.row as i32),
            ("advance", _) if to.row == wall + 1 && weak(Sq { col: to.col, row: wall }) => ("press", 0),
            ("reinforce", _) => ("reinforce", 0),
            ("advance", _) => ("advance", to.row as i32),
            _ => ("sidestep", if to.row > 0 && weak(Sq { col: to.col, row: to.row - 1 }) { 0 } else { 1 }),
        };
        out.push(Cand { from, to, kind, tier: tier.into(), captures, sub });
    };
    let captured = s.armies[r].infantry.iter().any(String::is_empty);
    for &c in cols {
        let column: Vec<Sq> = (0..s.rows).map(|row| Sq { col: c, row }).collect();
        let raiders: Vec<Sq> =
            column.iter().copied().filter(|&q| get(q).is_some_and(|w| w.is_unit() && w.army() == r)).collect();
        if raiders.is_empty() {
            let q = Sq { col: c, row: solo.reinforce_row.saturating_sub(1) };
            if captured && open(q) {
                add(None, q, "reinforce");
            }
            continue;
        }
        for f in raiders {
            if f.row == 0 {
                continue;
            }
            let ahead = Sq { col: f.col, row: f.row - 1 };
            match get(ahead) {
                None => add(Some(f), ahead, "advance"),
                Some(Who::Wall(_)) if section(s, ahead) == Some("wood") && !protected(s, ahead) => {
                    add(Some(f), ahead, "destroy")
                }
                // Stuck against stone or guarded Wood: a step aside
                // (SO1-28).
                Some(Who::Wall(_)) => {
                    for q in super::aside(s, f).into_iter().filter(|&q| open(q)) {
                        add(Some(f), q, "sidestep");
                    }
                }
                // Blocked by a unit: no action (brief 3.5).
                Some(_) => {}
            }
        }
    }
    out
}

/// Make a Raider move, and report it with its captures.
fn make(s: &mut State, r: usize, c: &Cand, report: &mut Vec<String>) {
    let name = s.armies[r].name.clone();
    let Some(from) = c.from else {
        if super::bring_back(s, r, c.to).is_some() {
            report.push(format!("A captured Raider comes back at {} (SO1-33).", s.name(c.to)));
        }
        return;
    };
    if c.kind == "destroy" {
        let at = s.name(c.to);
        let solo = s.solo.as_mut().expect("solo");
        solo.sections.remove(&at);
        solo.restock += 1;
        report.push(format!("The Raider at {} destroys the Wood at {} (SO1-16).", s.name(from), s.name(c.to)));
    } else {
        report.push(format!("The Raider at {} moves to {}.", s.name(from), s.name(c.to)));
    }
    let who = s.who_at()(from).expect("a Raider");
    for (_, _, text) in moves::make_move(s, &name, who, c.to) {
        report.push(text);
    }
}

/// The Fort as the picture draws it under the board: its cells, a Wood
/// (`=`) or Stone (`#`) cube on each stocked one, and the Prefect. None
/// before it is stocked (the text says so).
pub fn fort_board(s: &State, colour: &str) -> Option<crate::engine::view::SquareBoard> {
    use crate::engine::view::{Piece, SquareBoard};
    let solo = s.solo.as_ref()?;
    let f = solo.fort.as_ref()?;
    if f.cubes.is_empty() && s.phase == "arrange" {
        return None;
    }
    let gates: Vec<String> = f.gates.iter().map(|[b, c]| format!("{b}-{c}")).collect();
    let at = prefect(s);
    let mut terrain = Vec::new();
    let mut cells = Vec::new();
    for r in 0..f.rows {
        for c in 0..f.columns {
            let n = fort_name(c, r);
            if n == at {
                cells.push((c, r, Piece { side: solo.legion.clone(), text: "Pr".into() }));
            }
            match f.cubes.get(&n).map(String::as_str) {
                Some("wood") => terrain.push((c, r, '=')),
                Some(_) => terrain.push((c, r, '#')),
                None => {}
            }
        }
    }
    Some(SquareBoard {
        title: format!("The Fort, below row 1 (gates {})", gates.join(", ")),
        columns: f.columns,
        rows: f.rows,
        col_labels: (0..f.columns).map(|c| format!("F{}", (b'a' + c) as char)).collect(),
        row_labels: (1..=f.rows).map(|r| r.to_string()).collect(),
        cells,
        terrain,
        sides: vec![(solo.legion.clone(), colour.to_string())],
        key: vec![('=', "Wood".into()), ('#', "Stone".into())],
        notes: vec!["Pr the Prefect".into()],
        ..SquareBoard::default()
    })
}

/// The Fort drawn under the map's legend: its cells, cubes and the
/// Prefect.
pub fn fort_lines(s: &State) -> Vec<String> {
    let Some(f) = s.solo.as_ref().and_then(|x| x.fort.as_ref()) else { return Vec::new() };
    if f.cubes.is_empty() && s.phase == "arrange" {
        return vec![format!(
            "The Fort ({} x {} cells Fa1..) is stocked when the Wood is arranged.",
            f.columns, f.rows
        )];
    }
    let gates: Vec<String> = f.gates.iter().map(|[b, c]| format!("{b}-{c}")).collect();
    let mut out = vec![format!("The Fort, below row 1 (gates {}): == Wood, ## Stone, H the Prefect", gates.join(", "))];
    let mut head = String::from("      ");
    for c in 0..f.columns {
        head.push_str(&format!("F{}  ", (b'a' + c) as char));
    }
    out.push(head.trim_end().to_string());
    let at = prefect(s);
    for r in 0..f.rows {
        let mut line = format!("  {:>2}  ", r + 1);
        for c in 0..f.columns {
            let n = fort_name(c, r);
            let glyph = if n == at {
                "H"
            } else {
                match f.cubes.get(&n).map(String::as_str) {
                    Some("wood") => "==",
                    Some(_) => "##",
                    None => ".",
                }
            };
            line.push_str(&format!("{glyph:<4}"));
        }
        out.push(line.trim_end().to_string());
    }
    if let Some(x) = s.solo.as_ref().filter(|x| x.restock > 0) {
        out.push(format!("{} destroyed Wood waits to go back into the Fort (RESTOCK).", x.restock));
    }
    out
}
