//! Moves checked against the position: here a unit's straight move (BT-6,
//! 7), Cavalry (S6), the solo scenarios' limits and the Scenario Builder's
//! swamp; formations on the move and charges in `formation.rs`, the
//! manoeuvres (S4-9, S9-4, S9-5) in `manoeuvres.rs`; what a move does is
//! in `capture.rs`, the legal-action generator in `legal.rs`, IV's
//! placement in `setup.rs`.

mod capture;
mod formation;
mod legal;
mod manoeuvres;
mod setup;

pub use capture::{play, respond};
pub use legal::{after, can_act, capturing, legal, liberties, trapped};
pub use setup::{check_place, default_place, on_hill, place_units};

use formation::{charge, formation_move};
use manoeuvres::{extend, facing, rally};

use super::orders::{Block, Shape};
use super::{army_title, Order, State, Who};
use crate::engine::Problem;
use crate::rules::shared::squares::Sq;
#[derive(Debug, Clone, Default)]
pub struct Effect {
    pub moves: Vec<(Who, Sq)>,
    pub charged: Option<(Who, Sq)>,
    /// A Cavalry that charged a Cavalry: eliminated with it (S6-12).
    pub spent: Option<(Who, Sq)>,
    /// A charged Cavalry that dodges to this square (S6-15, A-22)...
    pub dodge: Option<(Who, Sq)>,
    /// ...or may dodge to either of these: its owner chooses.
    pub choice: Vec<Sq>,
    /// A move that captures nothing (IV's Facing turns units in place:
    /// it closes no flank, A-18).
    pub quiet: bool,
}

/// The four orthogonal steps (columns, rows).
const STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

struct Pos<'a> {
    s: &'a State,
    at: Vec<Option<Who>>,
    /// Pairs of neighbouring squares with a wall between (V's Fort).
    walls: Vec<(Sq, Sq)>,
}

impl<'a> Pos<'a> {
    fn new(s: &'a State) -> Pos<'a> {
        let walls = s
            .terrain
            .walls
            .iter()
            .filter_map(|w| {
                let (a, b) = w.split_once('|')?;
                Some((s.sq(a)?, s.sq(b)?))
            })
            .collect();
        Pos { s, at: s.occupancy(), walls }
    }
    fn walled(&self, a: Sq, b: Sq) -> bool {
        self.walls.iter().any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    }
    fn get(&self, q: Sq) -> Option<Who> {
        self.at[self.s.index(q)]
    }
    /// `n` steps of (dc, dr) from `q`, on the board and through no wall
    /// (walls stand only between orthogonal neighbours).
    fn step(&self, q: Sq, (dc, dr): (i32, i32), n: i32) -> Option<Sq> {
        let mut cur = q;
        for _ in 0..n {
            let (c, r) = (cur.col as i32 + dc, cur.row as i32 + dr);
            if !self.s.board().contains(c, r) {
                return None;
            }
            let next = Sq { col: c as u8, row: r as u8 };
            if (dc == 0 || dr == 0) && self.walled(cur, next) {
                return None;
            }
            cur = next;
        }
        Some(cur)
    }
    /// A unit of army `a` that forms formations (every unit of an army that
    /// uses them: Infantry and the Commander, A-4).
    fn formation_unit(&self, q: Sq, a: usize) -> bool {
        let unit = matches!(self.get(q), Some(Who::Infantry(x, _) | Who::Commander(x) | Who::Eagle(x) | Who::Grain(x, _) | Who::Prisoner(x)) if self.s.friends(x, a));
        unit && self.s.armies[a].formations
    }
    /// Beside a unit of its own army (the Glossary's Supported, S6-6).
    fn supported(&self, q: Sq) -> bool {
        let Some(w) = self.get(q) else { return false };
        STEPS.iter().any(
            |&d| matches!(self.step(q, d, 1).and_then(|x| self.get(x)), Some(v) if v.is_unit() && self.s.friends(v.army(), w.army())),
        )
    }
    /// Whether `q` is a gate of Solo I's wall that army `a`'s single
    /// units pass (the Legion's).
    fn gate(&self, q: Sq, a: usize) -> bool {
        self.s.solo.as_ref().is_some_and(|x| x.gates.contains(&self.s.name(q)) && x.legion == self.s.armies[a].name)
    }
    fn open(&self, q: Sq) -> bool {
        self.get(q).is_none()
    }
    /// Whether the unit at `q` belongs to a Square of its army (BT-14, 26):
    /// any 2×2 of its army's formation units that holds it.
    fn in_square(&self, q: Sq) -> bool {
        let Some(w) = self.get(q) else { return false };
        // A Square holding the Prisoner has no defence (SO2-16).
        Block::holding(q, (1, 1), self.s.columns, self.s.rows).iter().any(|b| {
            b.cells().into_iter().all(|x| self.formation_unit(x, w.army()))
                && !b.cells().into_iter().any(|x| matches!(self.get(x), Some(Who::Prisoner(_))))
        })
    }
    fn describe(&self, q: Sq) -> String {
        match self.get(q) {
            Some(Who::Obstacle) if self.s.in_blocks(&self.s.terrain.water, q) => {
                format!("{} is water (nothing enters it, SB-1)", self.s.name(q))
            }
            Some(Who::Obstacle) if self.s.solo.as_ref().is_some_and(|x| x.rock.contains(&self.s.name(q))) => {
                format!("{} is the Rock (nothing moves through or stops on it, SO2-6)", self.s.name(q))
            }
            Some(Who::Phantom(a)) => {
                format!("{} counts as a {} unit", self.s.name(q), army_title(&self.s.armies[a].name))
            }
            Some(w) => format!("{} holds {}", self.s.name(q), self.s.piece_name(w)),
            None => format!("{} is empty", self.s.name(q)),
        }
    }
}

/// A move the rules make for an army (adjutant's Raiders): the piece to
/// the square, and the flanks it closes, judged like a player's.
pub fn make_move(s: &mut State, army: &str, who: Who, to: Sq) -> Vec<(Who, Sq, String)> {
    capture::apply(s, army, &Effect { moves: vec![(who, to)], ..Default::default() })
}

/// The pieces of an effect on their new squares, nothing captured (to
/// look at the position a move leaves).
pub fn place_all(s: &mut State, eff: &Effect) {
    for (w, q) in &eff.moves {
        let name = s.name(*q);
        capture::place(s, *w, name);
    }
}

/// How many orthogonal steps each square (by `State::index`) lies
/// from the nearest of `to`, round trees, the Rock and walls (units move,
/// so they do not count); `u32::MAX` where no way leads. How far a march
/// through V's Fort gate still has to go.
pub fn steps_to(s: &State, to: &[Sq]) -> Vec<u32> {
    let p = Pos::new(s);
    let mut far = vec![u32::MAX; s.columns as usize * s.rows as usize];
    let mut next: std::collections::VecDeque<Sq> = to.iter().copied().collect();
    for &q in to {
        far[s.index(q)] = 0;
    }
    while let Some(q) = next.pop_front() {
        for d in STEPS {
            let Some(n) = p.step(q, d, 1) else { continue };
            if far[s.index(n)] == u32::MAX && !matches!(p.get(n), Some(Who::Obstacle)) {
                far[s.index(n)] = far[s.index(q)] + 1;
                next.push_back(n);
            }
        }
    }
    far
}

/// A piece its enemy took off the board (an Archer's shot, a Surprise
/// attack), counted as a loss.
pub fn remove(s: &mut State, w: Who) {
    capture::place(s, w, String::new());
    capture::count_loss(s, w);
}

/// Check an order of `role` against the position; what it does if legal.
pub fn check(s: &State, role: &str, o: &Order) -> Result<Effect, Problem> {
    check_in(&Pos::new(s), role, o)
}

/// `check` against a position already read: the legal-action generator
/// checks hundreds of orders against one position, and reading it (who
/// stands where, from the state's square names) is most of a check.
fn check_in(p: &Pos, role: &str, o: &Order) -> Result<Effect, Problem> {
    let s = p.s;
    let eff = check_order(p, role, o)?;
    swamp(s, o, &eff)?;
    if let (Some(solo), Some(a)) = (&s.solo, s.army_index(role)) {
        // SO1-12: Legion units never stand on the Raiders' home row; the
        // Prefect moves only to fetch supplies (SO1-21, A-35).
        if eff.moves.iter().any(|(w, _)| matches!(w, Who::Cavalry(..))) && solo.fort.is_some() {
            return Err(Problem::new("the Prefect moves only to fetch a cube for a Build Formation (SO1-21, A-35)")
                .hint("SUPPLY Fb1 TO c4 beside the move that makes the Build Formation"));
        }
        if let Some((_, q)) = eff.moves.iter().find(|(_, q)| q.row + 1 == s.rows && solo.kind == "frontier") {
            return Err(Problem::new(format!(
                "{} is on the Raiders' home row, where Legion units never stand (SO1-12)",
                s.name(*q)
            ))
            .hint("stop a row short of it"));
        }
        if solo.kind == "escort" {
            crate::rules::tacticum::solo::escort_check(s, a, o, &eff)?;
        }
    }
    Ok(eff)
}

/// A Cavalry never enters or crosses a swamp (SB-1, A-46).
fn swamp(s: &State, o: &Order, eff: &Effect) -> Result<(), Problem> {
    if s.terrain.swamp.is_empty() || !eff.moves.iter().any(|(w, _)| matches!(w, Who::Cavalry(..) | Who::Grain(..))) {
        return Ok(());
    }
    let (from, to, via) = match o {
        Order::Move { from, to, via } => (from.lo, to.lo, via.as_ref()),
        Order::Charge { column, at, via } => (column.lo, *at, via.as_ref()),
        _ => return Ok(()),
    };
    let p = Pos::new(s);
    let path = if straight(from, to) && via.is_none() {
        let (d, n) = (from.toward(to), i32::from(from.distance(to)));
        (1..=n).filter_map(|k| p.step(from, d, k)).collect()
    } else {
        cavalry_path(&p, from, to, via).unwrap_or_default()
    };
    // Every Cavalry or Grain's square after the move counts too (a Grain
    // Column's other members).
    let ends = eff.moves.iter().filter(|(w, _)| matches!(w, Who::Cavalry(..) | Who::Grain(..))).map(|(_, q)| q);
    match path.iter().chain(std::iter::once(&to)).chain(ends).find(|&&q| s.in_blocks(&s.terrain.swamp, q)) {
        Some(&q) => {
            Err(Problem::new(format!("{} is swamp: only Infantry crosses it (SB-1)", s.name(q))).hint("go round it"))
        }
        None => Ok(()),
    }
}

fn check_order(p: &Pos, role: &str, o: &Order) -> Result<Effect, Problem> {
    let s = p.s;
    let a = s.army_index(role).ok_or_else(|| Problem::new(format!("{role} commands no army here")))?;
    match o {
        Order::Pass if !can_act(s, role) => Ok(Effect::default()),
        Order::Pass => match legal(s, role).first() {
            None => Ok(Effect::default()),
            Some(x) => Err(Problem::new("a turn must move a unit or a formation: PASS only when none can move (BT-4)")
                .hint(format!("for instance {x}"))),
        },
        Order::Move { from, to, via } => {
            own(p, a, from)?;
            match (from.shape(), p.get(from.lo)) {
                (Shape::Unit, Some(Who::Cavalry(..))) => {
                    let to = single(s, to)?;
                    let path = cavalry_path(p, from.lo, to, via.as_ref())?;
                    blocked_on(p, from.lo, &path, to)?;
                    Ok(Effect { moves: vec![(p.get(from.lo).expect("own"), to)], ..Default::default() })
                }
                (Shape::Unit, Some(Who::Eagle(_))) => {
                    Err(Problem::new("the Eagle moves only as part of a formation (S6-5)")
                        .hint("move a Square or Column that holds it"))
                }
                (Shape::Unit, _) if s.armies[a].turns && (via.is_some() || !straight(from.lo, to.lo)) => {
                    // V's Rebels turn once within their move (S5-4, A-19).
                    let to = single(s, to)?;
                    let path = turning_path(p, from.lo, to, via.as_ref(), s.armies[a].move_limit, "a Rebel")?;
                    blocked_on(p, from.lo, &path, to)?;
                    Ok(Effect { moves: vec![(p.get(from.lo).expect("own"), to)], ..Default::default() })
                }
                (Shape::Unit, _) => {
                    if via.is_some() {
                        return Err(Problem::new("a unit moves in a straight line, without a turn (BT-6)")
                            .hint(format!("MOVE {} TO {}", from.name(s), to.name(s))));
                    }
                    unit_move(p, a, from.lo, to)
                }
                (shape, _) => {
                    formation(p, a, from, shape)?;
                    formation_move(p, shape, from, to, via.as_ref())
                }
            }
        }
        Order::Charge { column, at, via } => {
            own(p, a, column)?;
            match (column.shape(), p.get(column.lo)) {
                (Shape::Unit, Some(Who::Cavalry(..))) => cavalry_charge(p, a, column.lo, *at, via.as_ref()),
                (Shape::Column, _) if via.is_none() => {
                    formation(p, a, column, Shape::Column)?;
                    charge(p, a, column, *at)
                }
                (Shape::Column, _) => Err(Problem::new("a Column charges straight ahead, without a turn")
                    .hint(format!("CHARGE {} AT {}", column.name(s), s.name(*at)))),
                _ => Err(Problem::new("only a Column or a Cavalry unit charges (BT-24, S6-11)")
                    .hint("name the Column by its ends, e.g. CHARGE e6:e8 AT e4, or the Cavalry's square")),
            }
        }
        Order::Turn { square, right } => facing(p, a, square, *right),
        Order::Extend(square) => extend(p, a, square),
        Order::Rally { guide, movers } => rally(p, a, *guide, movers),
        Order::Ready
        | Order::Dodge(_)
        | Order::Place(_)
        | Order::Deploy { .. }
        | Order::Supply { .. }
        | Order::Restock(_)
        | Order::Wood(_)
        | Order::Enter(_)
        | Order::Scout(_)
        | Order::StepOut { .. }
        | Order::Rout(_)
        | Order::Disperse { .. } => {
            Err(Problem::new(format!("{o} answers another step; now move a unit or a formation")).hint("MOVE e2 TO e6"))
        }
    }
}

/// Beside an enemy unit (the Glossary's Engaged, GL-11).
fn engaged(p: &Pos, q: Sq) -> bool {
    let Some(w) = p.get(q) else { return false };
    STEPS
        .iter()
        .any(|&d| matches!(p.step(q, d, 1).and_then(|x| p.get(x)), Some(v) if v.is_unit() && !p.s.friends(v.army(), w.army())))
}

/// Whether the unit on `q` is Engaged.
pub fn engaged_at(s: &State, q: Sq) -> bool {
    engaged(&Pos::new(s), q)
}

/// Only a Commander ends a move on a hilltop (S4-7, S4-8).
fn hilltops_kept(p: &Pos, moves: &[(Who, Sq)]) -> Result<(), Problem> {
    let s = p.s;
    match moves.iter().find(|(w, q)| !matches!(w, Who::Commander(_)) && s.terrain.hilltops.contains(&s.name(*q))) {
        Some((w, q)) => Err(Problem::new(format!(
            "{} would end on the hilltop {}: only a Commander may occupy a hilltop (S4-7)",
            s.piece_name(*w),
            s.name(*q)
        ))
        .hint("pass over the hilltop, or stop short of it")),
        None => Ok(()),
    }
}

fn single(s: &State, to: &Block) -> Result<Sq, Problem> {
    if to.shape() != Shape::Unit {
        return Err(
            Problem::new("one unit moves to one square").hint(format!("name one square, e.g. {}", s.name(to.lo)))
        );
    }
    Ok(to.lo)
}

/// The squares a Cavalry passes through to `to` (`to` last): straight, or
/// with one turn at `via` (a corner, or either corner that is open) when
/// the whole move is at most `cavalry_turn_max` (S6-8, A-21).
fn cavalry_path(p: &Pos, from: Sq, to: Sq, via: Option<&Block>) -> Result<Vec<Sq>, Problem> {
    turning_path(p, from, to, via, p.s.cavalry_turn_max, "a Cavalry")
}

fn straight(a: Sq, b: Sq) -> bool {
    a.col == b.col || a.row == b.row
}

/// The squares a unit that may turn once passes through to `to`, the
/// whole move at most `max` when it turns (and straight moves too when
/// `what` is a Rebel, whose every move is at most `max`).
fn turning_path(p: &Pos, from: Sq, to: Sq, via: Option<&Block>, max: u32, what: &str) -> Result<Vec<Sq>, Problem> {
    let s = p.s;
    if to == from {
        return Err(Problem::new(format!("{what} move may not end where it began (S6-8)")).hint("name another square"));
    }
    let line = |a: Sq, b: Sq| -> Option<Vec<Sq>> {
        if a == b || (a.col != b.col && a.row != b.row) {
            return None;
        }
        let (d, n) = (a.toward(b), i32::from(a.distance(b)));
        (1..=n).map(|k| p.step(a, d, k)).collect()
    };
    if via.is_none() {
        if let Some(path) = line(from, to) {
            return Ok(path);
        }
        if straight(from, to) {
            return Err(Problem::new(format!("a wall stands between {} and {}", s.name(from), s.name(to)))
                .hint("go through the gate"));
        }
    }
    let corners: Vec<Sq> = match via {
        Some(v) if v.shape() == Shape::Unit => vec![v.lo],
        Some(v) => return Err(Problem::new(format!("VIA {} is not one square", v.name(s))).hint("VIA b6")),
        None => vec![Sq { col: from.col, row: to.row }, Sq { col: to.col, row: from.row }],
    };
    let mut why = Vec::new();
    for c in corners {
        let (Some(mut a), Some(b)) = (line(from, c), line(c, to)) else {
            why.push(format!("{} is not a corner between {} and {}", s.name(c), s.name(from), s.name(to)));
            continue;
        };
        let n = a.len() + b.len();
        if n > max as usize {
            why.push(format!(
                "via {} the move is {n} spaces; {what} move that turns is at most {max} (S6-8, S5-4)",
                s.name(c)
            ));
            continue;
        }
        if let Some(&q) = a.iter().chain(&b).filter(|&&q| q != to).find(|&&q| !p.open(q)) {
            why.push(format!("via {}, {}", s.name(c), p.describe(q)));
            continue;
        }
        a.extend(b);
        return Ok(a);
    }
    Err(Problem::new(why.join("; ")).hint(format!("{what} moves straight, or turns once within {max} spaces")))
}

/// Every square of a Cavalry's path open, its last one too (a move, not a
/// charge).
fn blocked_on(p: &Pos, from: Sq, path: &[Sq], to: Sq) -> Result<(), Problem> {
    let s = p.s;
    match path.iter().find(|&&q| !p.open(q)) {
        Some(&q) if q == to && matches!(p.get(q), Some(w) if w.is_unit()) => Err(Problem::new(format!(
            "{}: a Cavalry captures only by charging",
            p.describe(q)
        ))
        .hint(format!("CHARGE {} AT {}", s.name(from), s.name(q)))),
        Some(&q) => Err(Problem::new(format!("blocked: {}", p.describe(q))).hint("choose an open way")),
        None => Ok(()),
    }
}

/// A Cavalry's charge (S6-11, S6-12, S6-14, A-21): an unsupported Infantry
/// unit, only from its flank (the last leg along its row), or an
/// unsupported Cavalry from any side, both then eliminated.
fn cavalry_charge(p: &Pos, a: usize, from: Sq, at: Sq, via: Option<&Block>) -> Result<Effect, Problem> {
    let s = p.s;
    let path = cavalry_path(p, from, at, via)?;
    if let Some(&q) = path.iter().take(path.len() - 1).find(|&&q| !p.open(q)) {
        return Err(
            Problem::new(format!("the charge is blocked: {}", p.describe(q))).hint("a charge needs an open way")
        );
    }
    let cav = p.get(from).expect("own Cavalry");
    let target = match p.get(at) {
        Some(w) if w.is_unit() && !p.s.friends(w.army(), a) => w,
        _ => {
            return Err(Problem::new(format!("{}: a charge captures an enemy unit", p.describe(at))).hint(format!(
                "MOVE {} TO {}",
                s.name(from),
                s.name(at)
            )))
        }
    };
    if matches!(target, Who::Commander(_) | Who::Eagle(_)) {
        return Err(Problem::new(format!(
            "{}: a Commander or an Eagle is never captured (BT-11, A-20)",
            p.describe(at)
        ))
        .hint("trap the Commander instead"));
    }
    if let Who::Skirmisher(e, _) = target {
        // From any side, unsupported or supported only by Skirmishers
        // (S8-12).
        let held = STEPS
            .iter()
            .filter_map(|&d| p.step(at, d, 1))
            .any(|x| matches!(p.get(x), Some(v) if v.is_unit() && p.s.friends(v.army(), e) && !matches!(v, Who::Skirmisher(..))));
        if held {
            return Err(Problem::new(format!(
                "{}, supported by a unit that is not a Skirmisher: Cavalry cannot charge it (S8-12)",
                p.describe(at)
            ))
            .hint("charge a Skirmisher alone, or one beside Skirmishers only"));
        }
        return Ok(Effect { moves: vec![(cav, at)], charged: Some((target, at)), ..Default::default() });
    }
    if p.supported(at) {
        return Err(Problem::new(format!(
            "{}, a supported unit (one of its own beside it): Cavalry captures only an unsupported unit (S6-11, S6-14)",
            p.describe(at)
        ))
        .hint("charge an unsupported unit, or flank this one"));
    }
    if matches!(target, Who::Cavalry(..)) {
        return Ok(Effect { charged: Some((target, at)), spent: Some((cav, from)), ..Default::default() });
    }
    let prev = if path.len() >= 2 { path[path.len() - 2] } else { from };
    if prev.row != at.row {
        return Err(Problem::new(format!(
            "Cavalry charges an Infantry unit only into its flanks: the last leg into {} must run along its row (S6-11, A-21)",
            s.name(at)
        ))
        .hint(format!("come at {} from its left or right", s.name(at))));
    }
    Ok(Effect { moves: vec![(cav, at)], charged: Some((target, at)), ..Default::default() })
}

/// The block's units make the formation its shape names.
fn formation(p: &Pos, a: usize, b: &Block, shape: Shape) -> Result<(), Problem> {
    let s = p.s;
    formations_allowed(s, a)?;
    if shape == Shape::Line && !s.lines {
        return Err(Problem::new("Lines are formed only on the Invictus board (S7-5)")
            .hint("a block is a Square (d2:e3) or a Column (d2:d4) here"));
    }
    if let Some(q) = b.cells().into_iter().find(|&q| !p.formation_unit(q, a)) {
        return Err(Problem::new(format!("{}: Cavalry is never part of a formation (S6-9)", p.describe(q)))
            .hint("move the Cavalry alone"));
    }
    Ok(())
}

fn own(p: &Pos, a: usize, b: &Block) -> Result<(), Problem> {
    for q in b.cells() {
        match p.get(q) {
            Some(w) if w.is_unit() && p.s.friends(w.army(), a) => {}
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
            "MOVE {f} TO {} or MOVE {f} TO {}",
            s.name(a1),
            s.name(b1),
            f = s.name(from)
        )));
    }
    let d = from.toward(to);
    let who = p.get(from).expect("own unit");
    let n = u32::from(from.distance(to));
    hilltops_kept(p, &[(who, to)])?;
    if matches!(who, Who::Skirmisher(..)) && n > 5 {
        return Err(Problem::new(format!("a Skirmisher moves at most 5 spaces (S8-5); this is {n}")).hint(format!(
            "MOVE {} TO {}",
            s.name(from),
            s.name(p.step(from, d, 5).unwrap_or(to))
        )));
    }
    // The army's own limit (V: the Legion 4, the Rebels 3), else the
    // scenario's for Infantry (VI on: 7).
    let limit = match (s.armies[a].move_limit, who) {
        (l, _) if l > 0 => l,
        (_, Who::Infantry(..) | Who::Commander(_) | Who::Grain(..)) => s.infantry_limit,
        _ => 0,
    };
    if limit > 0 && n > limit {
        return Err(Problem::new(format!(
            "{} moves at most {limit} spaces (S5-4, S5-5, S6-4, S7-4); this is {n}",
            s.piece_name(who)
        ))
        .hint(format!("MOVE {} TO {}", s.name(from), s.name(p.step(from, d, limit as i32).unwrap_or(to)))));
    }
    let mut q = from;
    while q != to {
        let Some(next) = p.step(q, d, 1) else {
            // Only a wall stops a step towards a square on the board.
            let beyond = Sq { col: (q.col as i32 + d.0) as u8, row: (q.row as i32 + d.1) as u8 };
            return Err(Problem::new(format!(
                "a wall stands between {} and {} (the Fort's only way in is its gate)",
                s.name(q),
                s.name(beyond)
            ))
            .hint(nearest(p, from, d, beyond)));
        };
        q = next;
        match p.get(q) {
            None => {}
            // Only its own Commander may enter a phantom square.
            Some(Who::Phantom(pa)) if q == to && pa == a && matches!(who, Who::Commander(_)) => {}
            // A single Legion unit goes through a gate, north or south,
            // never stopping on it (SO1-13, SO1-18, A-37).
            Some(Who::Wall(_)) if q != to && d.0 == 0 && p.gate(q, a) => {}
            Some(w) if q == to && w.is_unit() && !p.s.friends(w.army(), a) => {
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
    Ok(Effect { moves: vec![(who, to)], ..Default::default() })
}

/// The farthest square short of `block` in the unit's direction.
fn nearest(p: &Pos, from: Sq, d: (i32, i32), block: Sq) -> String {
    let back = p.step(block, (-d.0, -d.1), 1);
    match back.filter(|&b| b != from) {
        Some(b) => format!("MOVE {} TO {}", p.s.name(from), p.s.name(b)),
        None => "move another unit, or this one another way".into(),
    }
}
