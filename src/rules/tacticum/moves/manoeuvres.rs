//! The manoeuvres: IV's Facing (S4-9, A-18), IX's Extend the Line (S9-4,
//! A-31) and Rally on Me (S9-5, A-32), each checked against the position.

use super::*;

/// IV's Facing (S4-9, A-18): the Command Square turns a quarter in place,
/// each unit to the next corner, clockwise on the map for RIGHT.
pub(super) fn facing(p: &Pos, a: usize, square: &Block, right: bool) -> Result<Effect, Problem> {
    let s = p.s;
    if !s.facing {
        return Err(Problem::new("turning a Command Square in place (Facing) is Scenario IV's manoeuvre")
            .hint("move the Square instead"));
    }
    own(p, a, square)?;
    if square.shape() != Shape::Square {
        return Err(Problem::new("only a Command Square turns in place (S4-9)").hint("TURN a1:b2 RIGHT"));
    }
    formation(p, a, square, Shape::Square)?;
    let c = s.sq(&s.armies[a].commander);
    if !c.map(|c| square.cells().contains(&c)).unwrap_or(false) {
        return Err(Problem::new(format!("{} holds no Commander: only a Command Square turns (S4-9)", square.name(s)))
            .hint("name the Square that holds your Commander"));
    }
    // Corners clockwise on the map (north up): top-left, top-right,
    // bottom-right, bottom-left.
    let (lo, hi) = (square.lo, square.hi);
    let ring = [Sq { col: lo.col, row: hi.row }, hi, Sq { col: hi.col, row: lo.row }, lo];
    let moves: Vec<(Who, Sq)> =
        (0..4).map(|i| (p.get(ring[i]).expect("member"), ring[(i + if right { 1 } else { 3 }) % 4])).collect();
    hilltops_kept(p, &moves)?;
    Ok(Effect { moves, quiet: true, ..Default::default() })
}

fn manoeuvres_open(s: &State) -> Result<(), Problem> {
    if s.manoeuvres {
        Ok(())
    } else {
        Err(Problem::new("Extend the Line and Rally on Me are manoeuvres of Scenario IX on (S9-4, S9-5)")
            .hint("move a unit or a formation"))
    }
}

/// IX's Extend the Line (S9-4, A-31): the Square's back pair, seen from its
/// owner, steps out sideways one space and then forward one, neither
/// Engaged and every square of the way open; the Square becomes a Line on
/// its front row.
pub(super) fn extend(p: &Pos, a: usize, square: &Block) -> Result<Effect, Problem> {
    let s = p.s;
    manoeuvres_open(s)?;
    own(p, a, square)?;
    if square.shape() != Shape::Square {
        return Err(Problem::new("only a Square extends into a Line (S9-4)").hint("EXTEND e3:f4"));
    }
    formation(p, a, square, Shape::Square)?;
    if !s.lines {
        return Err(Problem::new("Lines are formed only on the Invictus board (S7-5)").hint("move the Square"));
    }
    let north = s.armies[a].home == "north";
    let (back, fwd) = if north { (square.hi.row, -1) } else { (square.lo.row, 1) };
    let mut moves = Vec::new();
    for (col, side) in [(square.lo.col, -1), (square.hi.col, 1)] {
        let q = Sq { col, row: back };
        if engaged(p, q) {
            return Err(Problem::new(format!(
                "{} is Engaged (an enemy beside it): it cannot extend (S9-4)",
                s.name(q)
            ))
            .hint("move the Square away from the enemy first"));
        }
        let out = p.step(q, (side, 0), 1);
        let up = out.and_then(|o| p.step(o, (0, fwd), 1));
        match (out, up) {
            (Some(o), Some(u)) if p.open(o) && p.open(u) => moves.push((p.get(q).expect("member"), u)),
            (Some(o), Some(u)) => {
                let b = if p.open(o) { u } else { o };
                return Err(Problem::new(format!("{} has no clear way out and forward: {}", s.name(q), p.describe(b)))
                    .hint("extend where both sides are open"));
            }
            _ => {
                return Err(
                    Problem::new(format!("{} would leave the board", s.name(q))).hint("extend away from the edge")
                )
            }
        }
    }
    Ok(Effect { moves, ..Default::default() })
}

/// IX's Rally on Me (S9-5, A-32): units within one space of the Guide (the
/// eight around it), none Engaged, each placed on a square of a 2x2 with
/// the Guide; the squares they take are open, the others hold friends who
/// stay, and the four make a Square.
pub(super) fn rally(p: &Pos, a: usize, guide: Sq, movers: &[(Sq, Sq)]) -> Result<Effect, Problem> {
    let s = p.s;
    manoeuvres_open(s)?;
    formations_allowed(s, a)?;
    if !p.formation_unit(guide, a) {
        return Err(Problem::new(format!("{}: the Guide is one of your formation units", p.describe(guide)))
            .hint("RALLY ON <your unit>: <square> TO <square>, ..."));
    }
    let mut moves = Vec::new();
    let mut after: Vec<Sq> = Vec::new();
    for &(from, to) in movers {
        let near = from != guide && from.distance(guide) <= 1;
        if !near {
            return Err(Problem::new(format!(
                "{} is not within one space of the Guide {} (S9-5)",
                s.name(from),
                s.name(guide)
            ))
            .hint("rally units from the eight squares around the Guide"));
        }
        if !p.formation_unit(from, a) {
            return Err(
                Problem::new(format!("{}: not one of your formation units", p.describe(from))).hint("rally Infantry")
            );
        }
        if engaged(p, from) {
            return Err(Problem::new(format!(
                "{} is Engaged (an enemy beside it): it cannot rally (S9-5)",
                s.name(from)
            ))
            .hint("rally units with no enemy beside them"));
        }
        if !(p.open(to) || movers.iter().any(|m| m.0 == to)) {
            return Err(Problem::new(format!("{}: a rallying unit goes to an open square", p.describe(to)))
                .hint("name the open squares of the Square you form"));
        }
        if after.contains(&to) {
            return Err(Problem::new(format!("two units to {}", s.name(to))).hint("one unit a square"));
        }
        after.push(to);
        moves.push((p.get(from).expect("own"), to));
    }
    // The Square they make with the Guide: a 2x2 holding the Guide and
    // every target, its other squares held by friends who stay.
    let holds = |q: Sq| after.contains(&q) || (!movers.iter().any(|m| m.0 == q) && p.formation_unit(q, a));
    let formed = Block::holding(guide, (1, 1), s.columns, s.rows)
        .iter()
        .any(|b| after.iter().all(|q| b.cells().contains(q)) && b.cells().into_iter().all(|q| q == guide || holds(q)));
    if !formed {
        return Err(Problem::new("the Guide and the rallied units do not make a Square (S9-5)")
            .hint("fill the other squares of a 2x2 that holds the Guide"));
    }
    Ok(Effect { moves, ..Default::default() })
}
