//! Orders as players write them (brief 4.2): `MOVE e2 TO e6`, `MOVE d2:e3
//! TO e3:f4 [VIA d3:e4]`, `CHARGE e6:e8 AT e4`, `PASS`; a block is two
//! opposite corners, its shape the formation.

use super::{moves, State};
use crate::engine::Problem;
use crate::rules::shared::parse;
use crate::rules::shared::squares::{Naming, Sq};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A rectangle of squares, lowest corner first: one square, a Square
/// (2×2) or a Column (3×1 either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub lo: Sq,
    pub hi: Sq,
}

impl Block {
    pub fn one(sq: Sq) -> Block {
        Block { lo: sq, hi: sq }
    }
    pub fn new(a: Sq, b: Sq) -> Block {
        Block {
            lo: Sq { col: a.col.min(b.col), row: a.row.min(b.row) },
            hi: Sq { col: a.col.max(b.col), row: a.row.max(b.row) },
        }
    }
    pub fn width(&self) -> u8 {
        self.hi.col - self.lo.col + 1
    }
    pub fn height(&self) -> u8 {
        self.hi.row - self.lo.row + 1
    }
    pub fn cells(&self) -> Vec<Sq> {
        let mut v = Vec::new();
        for row in self.lo.row..=self.hi.row {
            for col in self.lo.col..=self.hi.col {
                v.push(Sq { col, row });
            }
        }
        v
    }
    /// The formation its shape makes.
    pub fn shape(&self) -> Shape {
        match (self.width(), self.height()) {
            (1, 1) => Shape::Unit,
            (2, 2) => Shape::Square,
            (1, 3) | (3, 1) => Shape::Column,
            (4, 1) => Shape::Line,
            _ => Shape::Other,
        }
    }
    /// The same block moved by (columns, rows), if still on a board of
    /// that size.
    pub fn shifted(&self, dc: i32, dr: i32, columns: u8, rows: u8) -> Option<Block> {
        let f = |s: Sq| {
            let (c, r) = (s.col as i32 + dc, s.row as i32 + dr);
            ((0..columns as i32).contains(&c) && (0..rows as i32).contains(&r))
                .then_some(Sq { col: c as u8, row: r as u8 })
        };
        Some(Block { lo: f(self.lo)?, hi: f(self.hi)? })
    }
    /// Every block `w + 1` columns by `h + 1` rows on a board of that size
    /// that holds `q`: the Squares (1, 1), Columns (0, 2) or (2, 0) and
    /// Lines (3, 0) a square may belong to.
    pub fn holding(q: Sq, (w, h): (i32, i32), columns: u8, rows: u8) -> Vec<Block> {
        let on = |c: i32, r: i32| (0..columns as i32).contains(&c) && (0..rows as i32).contains(&r);
        let mut out = Vec::new();
        for dc in -w..=0 {
            for dr in -h..=0 {
                let (c, r) = (q.col as i32 + dc, q.row as i32 + dr);
                if on(c, r) && on(c + w, r + h) {
                    out.push(Block::new(
                        Sq { col: c as u8, row: r as u8 },
                        Sq { col: (c + w) as u8, row: (r + h) as u8 },
                    ));
                }
            }
        }
        out
    }
    pub fn name(&self, s: &State) -> String {
        if self.lo == self.hi {
            s.name(self.lo)
        } else {
            format!("{}:{}", s.name(self.lo), s.name(self.hi))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Unit,
    Square,
    Column,
    /// Four in a row (the Invictus board, S7-5).
    Line,
    Other,
}

/// One turn's action, with the board's squares as the state names them
/// (`Display` needs no state: squares are written `a1`-style).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Order {
    Move {
        from: Block,
        to: Block,
        via: Option<Block>,
    },
    /// A Column's charge, or a Cavalry's (which may turn once, `via`).
    Charge {
        column: Block,
        at: Sq,
        via: Option<Block>,
    },
    Pass,
    /// The toss step's answer.
    Ready,
    /// Where the charged Cavalry dodges (S6-15).
    Dodge(Sq),
    /// VIII's Disrupt: a unit steps out of the disrupted formation (S8-6),
    /// or, when none can, one beside the Skirmishers is Routed (S8-7).
    StepOut {
        from: Sq,
        to: Sq,
    },
    Rout(Sq),
    /// VIII's Disperse: where a Skirmisher withdraws from a Cavalry (S8-9).
    Disperse {
        from: Sq,
        to: Sq,
    },
    /// IV's placement: two units on these squares (S4-4).
    Place(Vec<Sq>),
    /// SO1: the Prefect's run to a Fort cell's cube, built on a Build
    /// Formation's focus (SO1-15, SO1-22).
    Supply {
        from: String,
        to: Sq,
    },
    /// SO1: where a destroyed Wood goes back into the Fort (SO1-16).
    Restock(String),
    /// SO1's arrange step: the Fort cells that hold Wood (SO1-9).
    Wood(Vec<String>),
    /// SO2: where the reinforcement a 6 gave enters (SO2-30).
    Enter(Sq),
    /// SO2's Scouts variant: where the extra Infantry starts (SO2-32).
    Scout(Sq),
    /// X's set-up: where one kind of an army's units stands (S10-2);
    /// `kind` is COMMANDER, CAVALRY or INFANTRY.
    Deploy {
        kind: String,
        cells: Vec<Sq>,
    },
    /// IV's Facing: the Command Square a quarter turn, right = clockwise
    /// on the map (S4-9).
    Turn {
        square: Block,
        right: bool,
    },
    /// IX's Extend the Line: a Square's back pair steps out and forward
    /// (S9-4, A-31).
    Extend(Block),
    /// IX's Rally on Me: units around the Guide take their squares of a
    /// Square with it (S9-5, A-32).
    Rally {
        guide: Sq,
        movers: Vec<(Sq, Sq)>,
    },
}

fn sq_name(s: Sq) -> String {
    Naming::column_letter(s)
}

fn block_name(b: &Block) -> String {
    if b.lo == b.hi {
        sq_name(b.lo)
    } else {
        format!("{}:{}", sq_name(b.lo), sq_name(b.hi))
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Move { from, to, via } => {
                write!(f, "MOVE {} TO {}", block_name(from), block_name(to))?;
                if let Some(v) = via {
                    write!(f, " VIA {}", block_name(v))?;
                }
                Ok(())
            }
            Order::Charge { column, at, via } => {
                write!(f, "CHARGE {} AT {}", block_name(column), sq_name(*at))?;
                if let Some(v) = via {
                    write!(f, " VIA {}", block_name(v))?;
                }
                Ok(())
            }
            Order::Pass => write!(f, "PASS"),
            Order::Ready => write!(f, "READY"),
            Order::Dodge(q) => write!(f, "DODGE {}", sq_name(*q)),
            Order::StepOut { from, to } => write!(f, "STEP OUT {} TO {}", sq_name(*from), sq_name(*to)),
            Order::Rout(q) => write!(f, "ROUT {}", sq_name(*q)),
            Order::Disperse { from, to } => write!(f, "DISPERSE {} TO {}", sq_name(*from), sq_name(*to)),
            Order::Place(v) => write!(f, "PLACE {}", v.iter().map(|q| sq_name(*q)).collect::<Vec<_>>().join(", ")),
            Order::Supply { from, to } => write!(f, "SUPPLY {from} TO {}", sq_name(*to)),
            Order::Restock(c) => write!(f, "RESTOCK {c}"),
            Order::Wood(v) => write!(f, "WOOD {}", v.join(", ")),
            Order::Enter(q) => write!(f, "ENTER {}", sq_name(*q)),
            Order::Scout(q) => write!(f, "PLACE SCOUT {}", sq_name(*q)),
            Order::Deploy { kind, cells } => {
                write!(f, "PLACE {kind} {}", cells.iter().map(|q| sq_name(*q)).collect::<Vec<_>>().join(", "))
            }
            Order::Extend(b) => write!(f, "EXTEND {}", block_name(b)),
            Order::Rally { guide, movers } => {
                let m: Vec<String> =
                    movers.iter().map(|(a, b)| format!("{} TO {}", sq_name(*a), sq_name(*b))).collect();
                write!(f, "RALLY ON {}: {}", sq_name(*guide), m.join(", "))
            }
            Order::Turn { square, right } => {
                write!(f, "TURN {} {}", block_name(square), if *right { "RIGHT" } else { "LEFT" })
            }
        }
    }
}

const SYNTAX: &str =
    "MOVE e2 TO e6, MOVE d2:e3 TO e3:f4, CHARGE e6:e8 AT e4, CHARGE b4 AT e4 VIA b6, TURN a1:b2 RIGHT, EXTEND e3:f4, RALLY ON c7: c6 TO d7, PLACE d3, d5, DODGE b4, READY or PASS";

/// The kinds of unit X's set-up places, one line each (S10-1).
pub const DEPLOY_KINDS: &[&str] = &["COMMANDER", "CAVALRY", "INFANTRY"];

fn block(s: &State, word: &str) -> Result<Block, Problem> {
    let word = word.trim();
    let (a, b) = word.split_once(':').unwrap_or((word, word));
    let a = s.board().parse(a, "board")?;
    let b = s.board().parse(b, "board")?;
    let bl = Block::new(a, b);
    if bl.shape() == Shape::Other {
        return Err(Problem::new(format!("{word} is neither a square, a Square (2×2), a Column (3×1) nor a Line (4 in a row)"))
            .hint("write one square (e4), a Square by two opposite corners (d2:e3), a Column by its ends (d2:d4) or a Line (d3:g3)"));
    }
    Ok(bl)
}

pub fn parse(s: &State, _role: &str, line: &str) -> Result<Order, Problem> {
    let Some(l) = parse::Line::new(line) else { return Err(Problem::new("an empty line")) };
    let verb = l.key();
    let rest = l.rest;
    let syntax = |what: &str| Problem::new(format!("{verb} needs {what}")).hint(SYNTAX);
    match verb.as_str() {
        "MOVE" => {
            let (head, via) = match parse::split(rest, "via") {
                Some((a, b)) => (a, Some(block(s, b)?)),
                None => (rest, None),
            };
            let (from, to) =
                parse::split(head, "to").ok_or_else(|| syntax("what moves and TO where (MOVE e2 TO e6)"))?;
            Ok(Order::Move { from: block(s, from)?, to: block(s, to)?, via })
        }
        "CHARGE" => {
            let (head, via) = match parse::split(rest, "via") {
                Some((a, b)) => (a, Some(block(s, b)?)),
                None => (rest, None),
            };
            let (column, at) =
                parse::split(head, "at").ok_or_else(|| syntax("a Column and AT the square (CHARGE e6:e8 AT e4)"))?;
            Ok(Order::Charge { column: block(s, column)?, at: s.board().parse(at, "board")?, via })
        }
        "DODGE" => Ok(Order::Dodge(s.board().parse(rest, "board")?)),
        "ROUT" => Ok(Order::Rout(s.board().parse(rest, "board")?)),
        "STEP" | "DISPERSE" => {
            let rest = if verb == "STEP" {
                parse::keyword(rest, "OUT").ok_or_else(|| syntax("OUT, the unit and TO where (STEP OUT e7 TO e8)"))?
            } else {
                rest
            };
            let (a, b) = parse::split(rest, "to").ok_or_else(|| syntax("the unit and TO where (DISPERSE f6 TO g6)"))?;
            let (from, to) = (s.board().parse(a, "board")?, s.board().parse(b, "board")?);
            Ok(if verb == "STEP" { Order::StepOut { from, to } } else { Order::Disperse { from, to } })
        }
        "PLACE" => {
            let (first, more) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let kind = parse::word(first);
            if kind == "SCOUT" && s.solo.as_ref().is_none_or(|x| x.scout_cells.is_empty()) {
                return Err(Problem::new("PLACE SCOUT belongs to Prisoner Escort's Scouts variant only").hint(SYNTAX));
            }
            if kind == "SCOUT" {
                return Ok(Order::Scout(s.board().parse(more, "board")?));
            }
            if DEPLOY_KINDS.contains(&kind.as_str()) {
                let cells = parse::list(more);
                if cells.is_empty() {
                    return Err(syntax(&format!("the squares after {kind} (PLACE {kind} d2)")));
                }
                let cells = cells.iter().map(|c| s.board().parse(c, "board")).collect::<Result<_, _>>()?;
                return Ok(Order::Deploy { kind, cells });
            }
            let cells = parse::list(rest);
            if cells.is_empty() {
                return Err(syntax("the squares (PLACE d3, d5)"));
            }
            Ok(Order::Place(cells.iter().map(|c| s.board().parse(c, "board")).collect::<Result<_, _>>()?))
        }
        "EXTEND" => Ok(Order::Extend(block(s, rest)?)),
        "SUPPLY" | "RESTOCK" | "WOOD" if s.solo.as_ref().is_none_or(|x| x.fort.is_none()) => {
            Err(Problem::new(format!("{verb} is an order of Solo I, Secure the Frontier, only")).hint(SYNTAX))
        }
        "ENTER" if s.solo.as_ref().is_none_or(|x| x.kind != "escort") => {
            Err(Problem::new("ENTER is an order of Solo II, Prisoner Escort, only").hint(SYNTAX))
        }
        "SUPPLY" => {
            let (a, b) = parse::split(rest, "to")
                .ok_or_else(|| syntax("the Fort cell and TO the wall square (SUPPLY Fb1 TO c4)"))?;
            Ok(Order::Supply { from: super::solo::parse_fort(s, a)?, to: s.board().parse(b, "board")? })
        }
        "RESTOCK" => Ok(Order::Restock(super::solo::parse_fort(s, rest)?)),
        "WOOD" => {
            let cells = parse::list(rest);
            if cells.is_empty() {
                return Err(syntax("the Fort cells for the Wood (WOOD Fa1, Fa2, Fa3, Fb1, Fb2, Fb3)"));
            }
            Ok(Order::Wood(cells.iter().map(|c| super::solo::parse_fort(s, c)).collect::<Result<_, _>>()?))
        }
        "ENTER" => Ok(Order::Enter(s.board().parse(rest, "board")?)),
        "RALLY" => {
            let rest = parse::keyword(rest, "ON")
                .ok_or_else(|| syntax("ON, the Guide and the movers (RALLY ON c7: c6 TO d7, b8 TO c8)"))?;
            let (guide, movers) =
                rest.split_once(':').ok_or_else(|| syntax("a colon after the Guide (RALLY ON c7: c6 TO d7)"))?;
            let guide = s.board().parse(guide, "board")?;
            let movers = parse::list(movers)
                .iter()
                .map(|m| {
                    let (a, b) = parse::split(m, "to").ok_or_else(|| syntax("each mover as <square> TO <square>"))?;
                    Ok((s.board().parse(a, "board")?, s.board().parse(b, "board")?))
                })
                .collect::<Result<Vec<_>, Problem>>()?;
            if movers.is_empty() {
                return Err(syntax("at least one mover (RALLY ON c7: c6 TO d7)"));
            }
            Ok(Order::Rally { guide, movers })
        }
        "TURN" => {
            let (head, way) = rest
                .rsplit_once(char::is_whitespace)
                .ok_or_else(|| syntax("a Command Square and LEFT or RIGHT (TURN a1:b2 RIGHT)"))?;
            let right = match parse::word(way).as_str() {
                "RIGHT" => true,
                "LEFT" => false,
                _ => return Err(Problem::new(format!("{way:?} is not LEFT or RIGHT")).hint("TURN a1:b2 RIGHT")),
            };
            Ok(Order::Turn { square: block(s, head)?, right })
        }
        "PASS" | "READY" if !rest.is_empty() => {
            Err(Problem::new(format!("{verb} takes nothing after it")).hint(verb.clone()))
        }
        "PASS" => Ok(Order::Pass),
        "READY" => Ok(Order::Ready),
        _ => Err(Problem::new(format!("{:?} is not an order", l.verb)).hint(SYNTAX)),
    }
}

pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    if s.phase == "setup" {
        return super::deploy::check(s, role, orders);
    }
    if s.phase == "arrange" {
        return match orders {
            [Order::Wood(v)] => super::solo::check_arrange(s, v).err().map(|p| (0, p)).into_iter().collect(),
            _ => vec![(
                0,
                Problem::new("the Fort is being stocked: name the six cells for the Wood (SO1-9)")
                    .hint(super::solo::wood_default(s).iter().map(|o| o.to_string()).collect::<String>()),
            )],
        };
    }
    if s.phase == "scout" {
        return match orders {
            [Order::Scout(q)] => super::solo::check_scout(s, *q).err().map(|p| (0, p)).into_iter().collect(),
            // No line: the deadline's default square.
            [] => Vec::new(),
            _ => vec![(0, Problem::new("the Scout is placed first (SO2-32)").hint("PLACE SCOUT b2"))],
        };
    }
    if s.phase == "turn" && s.solo.is_some() {
        return super::solo::validate(s, role, orders);
    }
    if orders.len() == 2 && s.phase == "turn" && !s.terrain.fort.is_empty() {
        return with_fort_move(s, role, orders);
    }
    if orders.len() > 1 {
        out.push((
            1,
            Problem::new("one action a turn (a unit or a formation)".to_string())
                .hint(format!("send only {}", orders[0])),
        ));
    }
    if let (Some(p), "respond") = (&s.pending, s.phase.as_str()) {
        return respond(s, p, orders);
    }
    let Some(o) = orders.first() else { return out };
    let checked = match (s.phase.as_str(), o, &s.pending) {
        ("toss", Order::Ready, _) => Ok(()),
        ("toss", _, _) => Err(Problem::new("the first player is being drawn: nobody moves yet (A-15)").hint("READY")),
        ("place", Order::Place(cells), _) => moves::check_place(s, role, cells),
        ("place", _, _) => Err(Problem::new("units are being placed: nobody moves yet (S4-4)").hint("PLACE d3, d5")),
        (_, Order::Place(_) | Order::Deploy { .. }, _) => {
            Err(Problem::new("every unit is placed; now move").hint("MOVE e2 TO e6"))
        }
        _ => moves::check(s, role, o).map(|_| ()),
    };
    if let Err(p) = checked {
        out.push((0, p));
    }
    out
}

/// A respond step's answers: one option of each question, each question
/// once.
fn respond(s: &State, p: &super::Pending, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    let mut answered = vec![false; p.questions.len()];
    for (i, o) in orders.iter().enumerate() {
        match p.questions.iter().position(|q| q.options.contains(o)) {
            Some(k) if answered[k] => out.push((
                i,
                Problem::new(format!("{} is answered already", p.questions[k].about)).hint("one answer a question"),
            )),
            Some(k) => answered[k] = true,
            None if matches!(o, Order::StepOut { from, .. } if moves::engaged_at(s, *from)) => out.push((
                i,
                Problem::new(format!("{o}: the unit is Engaged (an enemy beside it) and cannot step out (S8-6)")).hint(
                    format!(
                        "one of: {}",
                        p.questions
                            .iter()
                            .flat_map(|q| q.options.iter().map(|o| o.to_string()))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                ),
            )),
            None => {
                let all: Vec<String> =
                    p.questions.iter().flat_map(|q| q.options.iter().map(|o| o.to_string())).collect();
                out.push((
                    i,
                    Problem::new(format!("{o} is not one of the choices now"))
                        .hint(format!("one of: {}", all.join("; "))),
                ))
            }
        }
    }
    if out.is_empty() {
        if let Some(k) = answered.iter().position(|a| !a) {
            let q = &p.questions[k];
            let opts: Vec<String> = q.options.iter().map(|o| o.to_string()).collect();
            out.push((
                orders.len().saturating_sub(1),
                Problem::new(format!("{} still needs an answer", q.about)).hint(opts.join(" or ")),
            ));
        }
    }
    out
}

/// V's turn of two lines (S5-6, A-19): the normal action and a move of a
/// unit that was in the Fort when the turn began, in the order written,
/// the second checked on the position after the first.
fn with_fort_move(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let in_fort =
        |o: &Order| matches!(o, Order::Move { from, .. } if from.shape() == Shape::Unit && s.in_fort(&s.name(from.lo)));
    if !orders.iter().any(in_fort) {
        return vec![(
            1,
            Problem::new("one action a turn; a second line must move a unit that is in the Fort (S5-6)")
                .hint("MOVE n2 TO j2 beside your action"),
        )];
    }
    match moves::check(s, role, &orders[0]) {
        Err(p) => vec![(0, p)],
        Ok(_) => match moves::after(s, role, &orders[0]) {
            Some(t) => moves::check(&t, role, &orders[1]).err().map(|p| (1, p)).into_iter().collect(),
            None => Vec::new(),
        },
    }
}
