//! Moves and captures: a unit's straight move (BT-6, 7), a Square's one or
//! two steps with at most one turn (BT-13, A-7), a Column's move along its
//! axis (BT-16, A-6) and charge (BT-24, A-11); then flanks by every moved
//! unit (BT-20..30, A-9), the Rebels' capture of a lone unit (S3-5, A-17),
//! and the legal-action generator that Trapped (BT-31, A-12) and the random
//! player need.

use super::orders::{Block, Shape};
use super::{army_title, Last, Order, State, Who};
use crate::engine::{Event, Problem};
use crate::rules::shared::squares::Sq;

/// What an order does: pieces that change square, and the piece a charge
/// captures.
#[derive(Debug, Clone, Default)]
pub struct Effect {
    pub moves: Vec<(Who, Sq)>,
    pub charged: Option<(Who, Sq)>,
}

/// The four orthogonal steps (columns, rows).
const STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

struct Pos<'a> {
    s: &'a State,
    at: Vec<Option<Who>>,
}

impl<'a> Pos<'a> {
    fn new(s: &'a State) -> Pos<'a> {
        Pos { s, at: s.occupancy() }
    }
    fn get(&self, q: Sq) -> Option<Who> {
        self.at[q.row as usize * self.s.columns as usize + q.col as usize]
    }
    fn step(&self, q: Sq, (dc, dr): (i32, i32), n: i32) -> Option<Sq> {
        let (c, r) = (q.col as i32 + dc * n, q.row as i32 + dr * n);
        self.s.board().contains(c, r).then_some(Sq { col: c as u8, row: r as u8 })
    }
    /// A unit of army `a` that forms formations (every unit of an army that
    /// uses them: Infantry and the Commander, A-4).
    fn formation_unit(&self, q: Sq, a: usize) -> bool {
        matches!(self.get(q), Some(w) if w.is_unit() && w.army() == a) && self.s.armies[a].formations
    }
    /// Whether the unit at `q` belongs to a Square of its army (BT-14, 26):
    /// any 2×2 of its army's formation units that holds it.
    fn in_square(&self, q: Sq) -> bool {
        let Some(w) = self.get(q) else { return false };
        [(-1, -1), (-1, 0), (0, -1), (0, 0)].iter().any(|&(dc, dr)| {
            let (c, r) = (q.col as i32 + dc, q.row as i32 + dr);
            let b = self.s.board();
            if !b.contains(c, r) || !b.contains(c + 1, r + 1) {
                return false;
            }
            let lo = Sq { col: c as u8, row: r as u8 };
            let hi = Sq { col: lo.col + 1, row: lo.row + 1 };
            Block::new(lo, hi).cells().into_iter().all(|x| self.formation_unit(x, w.army()))
        })
    }
    fn describe(&self, q: Sq) -> String {
        match self.get(q) {
            Some(Who::Phantom(a)) => {
                format!("{} counts as a {} unit", self.s.name(q), army_title(&self.s.armies[a].name))
            }
            Some(w) => format!("{} holds {}", self.s.name(q), self.s.piece_name(w)),
            None => format!("{} is empty", self.s.name(q)),
        }
    }
}

/// Check an order of `role` against the position; what it does if legal.
pub fn check(s: &State, role: &str, o: &Order) -> Result<Effect, Problem> {
    let a = s.army_index(role).ok_or_else(|| Problem::new(format!("{role} commands no army here")))?;
    let p = Pos::new(s);
    match o {
        Order::Pass => match legal(s, role).first() {
            None => Ok(Effect::default()),
            Some(x) => Err(Problem::new("a turn must move a unit or a formation: PASS only when none can move (BT-4)")
                .hint(format!("for instance {x}"))),
        },
        Order::Move { from, to, via } => {
            own(&p, a, from)?;
            match from.shape() {
                Shape::Unit => {
                    if via.is_some() {
                        return Err(Problem::new("a unit moves in a straight line, without a turn (BT-6)")
                            .hint(format!("MOVE {} TO {}", from.name(s), to.name(s))));
                    }
                    unit_move(&p, a, from.lo, to)
                }
                shape => {
                    formations_allowed(s, a)?;
                    formation_move(&p, shape, from, to, via.as_ref())
                }
            }
        }
        Order::Charge { column, at } => {
            own(&p, a, column)?;
            if column.shape() != Shape::Column {
                return Err(Problem::new("only a Column charges (BT-24)")
                    .hint("name the Column by its ends, e.g. CHARGE e6:e8 AT e4"));
            }
            formations_allowed(s, a)?;
            charge(&p, a, column, *at)
        }
    }
}

fn own(p: &Pos, a: usize, b: &Block) -> Result<(), Problem> {
    for q in b.cells() {
        match p.get(q) {
            Some(w) if w.is_unit() && w.army() == a => {}
            _ => {
                return Err(Problem::new(format!("{}: not your unit", p.describe(q)))
                    .hint(format!("your units stand on {}", own_squares(p.s, a))))
            }
        }
    }
    Ok(())
}

fn own_squares(s: &State, a: usize) -> String {
    let army = &s.armies[a];
    let mut v: Vec<&str> =
        std::iter::once(&army.commander).chain(&army.infantry).filter(|c| !c.is_empty()).map(String::as_str).collect();
    v.sort_by_key(|c| s.sq(c).map(|q| (q.row, q.col)));
    v.join(" ")
}

fn formations_allowed(s: &State, a: usize) -> Result<(), Problem> {
    if s.armies[a].formations {
        Ok(())
    } else {
        Err(Problem::new(format!("{} units use no formations (S3-6): each moves alone", army_title(&s.armies[a].name)))
            .hint("move one unit, e.g. MOVE e2 TO e6"))
    }
}

fn unit_move(p: &Pos, a: usize, from: Sq, to: &Block) -> Result<Effect, Problem> {
    let s = p.s;
    if to.shape() != Shape::Unit {
        return Err(Problem::new("one unit moves to one square").hint(format!("MOVE {} TO e6", s.name(from))));
    }
    let to = to.lo;
    if to == from {
        return Err(Problem::new("that is no move").hint("name another square in the unit's row or column"));
    }
    if to.col != from.col && to.row != from.row {
        let a1 = Sq { col: from.col, row: to.row };
        let b1 = Sq { col: to.col, row: from.row };
        return Err(Problem::new("no diagonal moves: a unit moves left, right, forward or back (BT-6)").hint(format!(
            "try MOVE {f} TO {} or MOVE {f} TO {}",
            s.name(a1),
            s.name(b1),
            f = s.name(from)
        )));
    }
    let d = ((to.col as i32 - from.col as i32).signum(), (to.row as i32 - from.row as i32).signum());
    let who = p.get(from).expect("own unit");
    let mut q = from;
    while q != to {
        q = p.step(q, d, 1).expect("towards a square on the board");
        match p.get(q) {
            None => {}
            // Only its own Commander may enter a phantom square.
            Some(Who::Phantom(pa)) if q == to && pa == a && matches!(who, Who::Commander(_)) => {}
            Some(w) if q == to && w.is_unit() && w.army() != a => {
                return Err(Problem::new(format!(
                "{}: a unit cannot move onto an enemy; to capture, flank it or CHARGE it with a Column (BT-7, BT-19)",
                p.describe(q)
            ))
                .hint(nearest(p, from, d, q)))
            }
            Some(_) => {
                return Err(Problem::new(format!(
                    "blocked: {} (units move through no other unit, BT-7)",
                    p.describe(q)
                ))
                .hint(nearest(p, from, d, q)))
            }
        }
    }
    Ok(Effect { moves: vec![(who, to)], charged: None })
}

/// The farthest square short of `block` in the unit's direction.
fn nearest(p: &Pos, from: Sq, d: (i32, i32), block: Sq) -> String {
    let back = p.step(block, (-d.0, -d.1), 1);
    match back.filter(|&b| b != from) {
        Some(b) => format!("MOVE {} TO {}", p.s.name(from), p.s.name(b)),
        None => "move another unit, or this one another way".into(),
    }
}

/// Every block a formation passes through (its destination last), for a
/// move of (dc, dr), or the refusal.
fn formation_move(p: &Pos, shape: Shape, from: &Block, to: &Block, via: Option<&Block>) -> Result<Effect, Problem> {
    let s = p.s;
    let members: Vec<Sq> = from.cells();
    let what = if shape == Shape::Square { "Square" } else { "Column" };
    if to.shape() != shape || to.width() != from.width() {
        return Err(Problem::new(format!(
            "a {what} keeps its shape: {} is not a {what} like {}",
            to.name(s),
            from.name(s)
        ))
        .hint(format!("name where the whole {what} stands after the move, lowest corner first")));
    }
    let (dc, dr) = (to.lo.col as i32 - from.lo.col as i32, to.lo.row as i32 - from.lo.row as i32);
    let paths: Vec<Vec<(i32, i32)>> =
        match shape {
            Shape::Square => {
                let n = dc.abs() + dr.abs();
                if n == 0 || n > 2 {
                    return Err(Problem::new(format!("a Square moves 1 or 2 spaces (BT-13); this is {n}"))
                        .hint(format!("MOVE {} TO {}", from.name(s), shifted(s, from, dc.signum(), 0, dr.signum()))));
                }
                if dc != 0 && dr != 0 {
                    vec![vec![(dc, 0), (dc, dr)], vec![(0, dr), (dc, dr)]]
                } else if n == 2 {
                    vec![vec![(dc / 2, dr / 2), (dc, dr)]]
                } else {
                    vec![vec![(dc, dr)]]
                }
            }
            _ => {
                let vertical = from.width() == 1;
                if (vertical && dc != 0) || (!vertical && dr != 0) {
                    return Err(Problem::new("a Column moves only along its long axis (BT-16)").hint(format!(
                        "MOVE {} TO {}",
                        from.name(s),
                        shifted(s, from, 0, !vertical as i32, vertical as i32)
                    )));
                }
                let n = dc.abs() + dr.abs();
                if n > 3 {
                    return Err(Problem::new(format!("a Column moves 1, 2 or 3 spaces (BT-16); this is {n}"))
                        .hint(format!("MOVE {} TO {}", from.name(s), shifted(s, from, 3, dc.signum(), dr.signum()))));
                }
                let step = (dc.signum(), dr.signum());
                vec![(1..=n).map(|k| (step.0 * k, step.1 * k)).collect()]
            }
        };
    let blocked = |path: &Vec<(i32, i32)>| -> Option<String> {
        for &(x, y) in path {
            let b = from.shifted(x, y, s.columns, s.rows)?;
            for q in b.cells() {
                if !members.contains(&q) && p.get(q).is_some() {
                    return Some(format!("{} on the way", p.describe(q)));
                }
            }
        }
        None
    };
    let paths: Vec<&Vec<(i32, i32)>> = match via {
        Some(v) => {
            let chosen: Vec<&Vec<(i32, i32)>> = paths
                .iter()
                .filter(|path| path.len() == 2 && from.shifted(path[0].0, path[0].1, s.columns, s.rows) == Some(*v))
                .collect();
            if chosen.is_empty() {
                return Err(Problem::new(format!("{} is not a corner of this move", v.name(s))).hint(format!(
                    "MOVE {} TO {} without VIA",
                    from.name(s),
                    to.name(s)
                )));
            }
            chosen
        }
        None => paths.iter().collect(),
    };
    let mut why = Vec::new();
    for path in &paths {
        match blocked(path) {
            None => {
                let moves = members.iter().map(|&q| (p.get(q).expect("member"), shift(q, dc, dr))).collect();
                return Ok(Effect { moves, charged: None });
            }
            Some(w) => why.push(w),
        }
    }
    Err(Problem::new(format!("the {what} is blocked: {}", why.join("; ")))
        .hint("move it where its way is open, or move another unit"))
}

fn shift(q: Sq, dc: i32, dr: i32) -> Sq {
    Sq { col: (q.col as i32 + dc) as u8, row: (q.row as i32 + dr) as u8 }
}

/// A block moved `n` steps of (dc, dr), named; the block itself if that
/// leaves the board (only a suggestion).
fn shifted(s: &State, b: &Block, n: i32, dc: i32, dr: i32) -> String {
    (1..=n.max(1))
        .rev()
        .find_map(|k| b.shifted(dc * k, dr * k, s.columns, s.rows))
        .map(|x| x.name(s))
        .unwrap_or_else(|| b.name(s))
}

fn charge(p: &Pos, a: usize, column: &Block, at: Sq) -> Result<Effect, Problem> {
    let s = p.s;
    let vertical = column.width() == 1;
    let on_axis = if vertical { at.col == column.lo.col } else { at.row == column.lo.row };
    let (lead, d) = match (vertical, on_axis) {
        (true, true) if at.row > column.hi.row => (column.hi, (0, 1)),
        (true, true) if at.row < column.lo.row => (column.lo, (0, -1)),
        (false, true) if at.col > column.hi.col => (column.hi, (1, 0)),
        (false, true) if at.col < column.lo.col => (column.lo, (-1, 0)),
        _ => {
            return Err(Problem::new(format!("{} is not on the Column's axis, ahead of either end (A-11)", s.name(at)))
                .hint("a Column charges straight ahead along its long axis"))
        }
    };
    let k = (at.col as i32 - lead.col as i32).abs() + (at.row as i32 - lead.row as i32).abs();
    if k > 3 {
        return Err(Problem::new(format!(
            "{} is {k} spaces from the lead {}: a Column charges 1 to 3 (BT-29)",
            s.name(at),
            s.name(lead)
        ))
        .hint("move closer first"));
    }
    for n in 1..k {
        let q = p.step(lead, d, n).expect("between lead and target");
        if p.get(q).is_some() {
            return Err(
                Problem::new(format!("the charge is blocked: {}", p.describe(q))).hint("a charge needs an open way")
            );
        }
    }
    let target = match p.get(at) {
        Some(w) if w.is_unit() && w.army() != a => w,
        Some(Who::Phantom(_)) | None => {
            return Err(Problem::new(format!("{}: a charge captures an enemy unit", p.describe(at)))
                .hint(format!("MOVE {} instead", column.name(s))))
        }
        Some(_) => return Err(Problem::new(format!("{}: your own unit", p.describe(at))).hint("charge an enemy unit")),
    };
    if matches!(target, Who::Commander(_)) {
        return Err(
            Problem::new(format!("{}: a Commander is never captured (BT-11)", p.describe(at))).hint("trap it instead")
        );
    }
    let moves = column.cells().into_iter().map(|q| (p.get(q).expect("member"), shift(q, d.0 * k, d.1 * k))).collect();
    Ok(Effect { moves, charged: Some((target, at)) })
}

/// Put a piece on a square ("" for off the board).
fn place(s: &mut State, w: Who, cell: String) {
    match w {
        Who::Commander(a) => s.armies[a].commander = cell,
        Who::Infantry(a, k) => s.armies[a].infantry[k] = cell,
        Who::Phantom(_) => {}
    }
}

/// Make the move and its captures (brief 3.2: the charge, then every flank
/// and two-side capture judged at once on the position after it).
pub fn play(s: &mut State, mover: &str, o: &Order, ev: &mut Vec<Event>) {
    let title = army_title(mover);
    let eff = match check(s, mover, o) {
        Ok(e) => e,
        // A PASS while moves exist is the no-moves default of a silent
        // player: the turn is lost.
        Err(_) if *o == Order::Pass => {
            ev.push(Event::all(format!("{title} sent no move and loses the turn.")));
            s.last = Some(Last { army: mover.to_string(), order: "PASS".into(), ..Default::default() });
            return;
        }
        Err(p) => {
            ev.push(Event::all(format!("{title}'s {o} is void: {}.", p.reason)));
            return;
        }
    };
    let captured = apply(s, mover, &eff);
    ev.push(Event::all(format!("{title}: {o}.")));
    for (_, _, text) in &captured {
        ev.push(Event::all(text.clone()));
    }
    s.last = Some(Last {
        army: mover.to_string(),
        order: o.to_string(),
        moved: eff.moves.iter().map(|(_, q)| s.name(*q)).collect(),
        captured: captured.iter().map(|(_, q, _)| s.name(*q)).collect(),
    });
}

/// Apply an effect; the pieces captured, with their squares and how.
fn apply(s: &mut State, mover: &str, eff: &Effect) -> Vec<(Who, Sq, String)> {
    let a = s.army_index(mover).expect("the mover's army");
    let mut out = Vec::new();
    if let Some((w, q)) = eff.charged {
        let how = format!("{} {} captured by charging.", army_title(&s.armies[w.army()].name), s.name(q));
        place(s, w, String::new());
        out.push((w, q, how));
    }
    for (w, q) in &eff.moves {
        let name = s.name(*q);
        place(s, *w, name);
    }
    let moved: Vec<Sq> = eff.moves.iter().map(|(_, q)| *q).collect();
    out.append(&mut flanks(s, a, &moved));
    for (w, _, _) in &out {
        place(s, *w, String::new());
        let army = s.armies[w.army()].name.clone();
        *s.lost.entry(army).or_insert(0) += 1;
    }
    out
}

/// The flanks every moved unit closes, and the Rebels' two-side
/// captures, judged together on the position after the move.
fn flanks(s: &State, a: usize, moved: &[Sq]) -> Vec<(Who, Sq, String)> {
    let p = Pos::new(s);
    let mut out: Vec<(Who, Sq, String)> = Vec::new();
    let add = |w: Who, q: Sq, text: String, out: &mut Vec<(Who, Sq, String)>| {
        if !out.iter().any(|x| x.1 == q) {
            out.push((w, q, text));
        }
    };
    for &m in moved {
        for d in STEPS {
            let mut run = Vec::new();
            let mut n = 1;
            let end = loop {
                match p.step(m, d, n) {
                    Some(q) => match p.get(q) {
                        Some(w) if w.is_unit() && w.army() != a => run.push((w, q)),
                        Some(w) if w.army() == a => break Some(q),
                        _ => break None,
                    },
                    // The board's edge is never a flank end.
                    None => break None,
                }
                n += 1;
            };
            let Some(end) = end else { continue };
            for (w, q) in run {
                // A Commander is never captured (BT-11, BT-28); a unit of
                // a Square is immune to flanks (BT-14, BT-27).
                if matches!(w, Who::Commander(_)) || p.in_square(q) {
                    continue;
                }
                // The two ends, in reading order (row 1 first, then a..).
                let (x, y) = if (m.row, m.col) <= (end.row, end.col) { (m, end) } else { (end, m) };
                let text = format!(
                    "{} {} captured by flanking ({}–{}).",
                    army_title(&s.armies[w.army()].name),
                    s.name(q),
                    s.name(x),
                    s.name(y)
                );
                add(w, q, text, &mut out);
            }
        }
    }
    if s.two_sides.contains(&s.armies[a].name) {
        for &m in moved {
            for d in STEPS {
                let Some(q) = p.step(m, d, 1) else { continue };
                let Some(w) = p.get(q).filter(|w| w.is_unit() && w.army() != a) else { continue };
                if matches!(w, Who::Commander(_)) {
                    continue;
                }
                let around: Vec<Who> = STEPS.iter().filter_map(|&e| p.step(q, e, 1).and_then(|x| p.get(x))).collect();
                let alone = !around.iter().any(|x| x.is_unit() && x.army() == w.army());
                let touching: Vec<String> = STEPS
                    .iter()
                    .filter_map(|&e| p.step(q, e, 1))
                    .filter(|&x| matches!(p.get(x), Some(v) if v.is_unit() && v.army() == a))
                    .map(|x| s.name(x))
                    .collect();
                if alone && touching.len() >= 2 {
                    let text = format!(
                        "{} {} captured: alone and touched on two sides ({}).",
                        army_title(&s.armies[w.army()].name),
                        s.name(q),
                        touching.join(", ")
                    );
                    add(w, q, text, &mut out);
                }
            }
        }
    }
    out
}

/// Every legal action of `role`'s army, in a stable order.
pub fn legal(s: &State, role: &str) -> Vec<Order> {
    let Some(a) = s.army_index(role) else { return Vec::new() };
    let p = Pos::new(s);
    let mut out = Vec::new();
    let mut units: Vec<Sq> = Vec::new();
    for row in 0..s.rows {
        for col in 0..s.columns {
            let q = Sq { col, row };
            if matches!(p.get(q), Some(w) if w.is_unit() && w.army() == a) {
                units.push(q);
            }
        }
    }
    let try_order = |o: Order, out: &mut Vec<Order>| {
        if check(s, role, &o).is_ok() {
            out.push(o);
        }
    };
    for &q in &units {
        for d in STEPS {
            for n in 1.. {
                let Some(t) = p.step(q, d, n) else { break };
                let o = Order::Move { from: Block::one(q), to: Block::one(t), via: None };
                if check(s, role, &o).is_err() {
                    break;
                }
                out.push(o);
            }
        }
    }
    if !s.armies[a].formations {
        return out;
    }
    for &q in &units {
        let candidates = [(Shape::Square, (1, 1)), (Shape::Column, (0, 2)), (Shape::Column, (2, 0))];
        for (shape, (w, h)) in candidates {
            let Some(hi) = p.step(q, (w, h), 1) else { continue };
            let b = Block::new(q, hi);
            if !b.cells().iter().all(|&c| p.formation_unit(c, a)) {
                continue;
            }
            let shifts: Vec<(i32, i32)> = match shape {
                Shape::Square => vec![
                    (1, 0),
                    (-1, 0),
                    (0, 1),
                    (0, -1),
                    (2, 0),
                    (-2, 0),
                    (0, 2),
                    (0, -2),
                    (1, 1),
                    (1, -1),
                    (-1, 1),
                    (-1, -1),
                ],
                _ => (1..=3).flat_map(|k| if w == 0 { [(0, k), (0, -k)] } else { [(k, 0), (-k, 0)] }).collect(),
            };
            for (dc, dr) in shifts {
                if let Some(to) = b.shifted(dc, dr, s.columns, s.rows) {
                    try_order(Order::Move { from: b, to, via: None }, &mut out);
                }
            }
            if shape == Shape::Column {
                let (d1, d2) = if w == 0 { ((0, 1), (0, -1)) } else { ((1, 0), (-1, 0)) };
                for (end, d) in [(b.hi, d1), (b.lo, d2)] {
                    for n in 1..=3 {
                        if let Some(t) = p.step(end, d, n) {
                            try_order(Order::Charge { column: b, at: t }, &mut out);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether army `a`'s Commander can change square in no legal action of
/// its army (BT-31, A-12).
pub fn trapped(s: &State, a: usize) -> bool {
    let Some(c) = s.sq(&s.armies[a].commander) else { return false };
    let role = s.armies[a].name.clone();
    !legal(s, &role).iter().any(|o| match o {
        Order::Move { from, .. } => from.cells().contains(&c),
        Order::Charge { column, .. } => column.cells().contains(&c),
        Order::Pass => false,
    })
}

/// How many enemy pieces an order captures (for the random player).
pub fn captures(s: &State, role: &str, o: &Order) -> usize {
    let Ok(eff) = check(s, role, o) else { return 0 };
    let mut t = s.clone();
    apply(&mut t, role, &eff).len()
}
