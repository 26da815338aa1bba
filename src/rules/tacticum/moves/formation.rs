//! Formations on the move: a Square's one or two steps with at most one
//! turn (BT-13, A-7), a Column along its axis (BT-16, A-6) and its charge
//! (BT-24, A-11), a Line forward or back (S7-6).

use super::*;

/// Every block a formation passes through (its destination last), for a
/// move of (dc, dr), or the refusal.
pub(super) fn formation_move(
    p: &Pos,
    shape: Shape,
    from: &Block,
    to: &Block,
    via: Option<&Block>,
) -> Result<Effect, Problem> {
    let s = p.s;
    let members: Vec<Sq> = from.cells();
    let what = match shape {
        Shape::Square => "Square",
        Shape::Line => "Line",
        _ => "Column",
    };
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
                        .hint(format!("MOVE {} TO {}", from.name(s), shifted(s, from, 1, dc.signum(), dr.signum()))));
                }
                if dc != 0 && dr != 0 {
                    vec![vec![(dc, 0), (dc, dr)], vec![(0, dr), (dc, dr)]]
                } else if n == 2 {
                    vec![vec![(dc / 2, dr / 2), (dc, dr)]]
                } else {
                    vec![vec![(dc, dr)]]
                }
            }
            Shape::Line => {
                if dc != 0 || dr.abs() != 1 {
                    return Err(Problem::new("a Line moves 1 space forward or back (S7-6)").hint(format!(
                        "MOVE {} TO {}",
                        from.name(s),
                        shifted(s, from, 1, 0, 1)
                    )));
                }
                vec![vec![(0, dr)]]
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
        let mut prev = (0, 0);
        for &(x, y) in path {
            let b = from.shifted(x, y, s.columns, s.rows)?;
            for q in b.cells() {
                if !members.contains(&q) && p.get(q).is_some() {
                    return Some(format!("{} on the way", p.describe(q)));
                }
            }
            // Each unit's step of the way, through no wall (V's Fort).
            let d = (x - prev.0, y - prev.1);
            if let Some(&m) = members.iter().find(|&&m| p.step(shift(m, prev.0, prev.1), d, 1) != Some(shift(m, x, y)))
            {
                return Some(format!("a wall stands in the way of {}", s.name(shift(m, prev.0, prev.1))));
            }
            prev = (x, y);
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
                let moves: Vec<(Who, Sq)> =
                    members.iter().map(|&q| (p.get(q).expect("member"), shift(q, dc, dr))).collect();
                hilltops_kept(p, &moves)?;
                return Ok(Effect { moves, ..Default::default() });
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

pub(super) fn charge(p: &Pos, a: usize, column: &Block, at: Sq) -> Result<Effect, Problem> {
    let s = p.s;
    if column.cells().iter().any(|&q| matches!(p.get(q), Some(Who::Grain(..)))) {
        return Err(Problem::new("a Column with Grain in it cannot charge (S5-8); it still flanks")
            .hint(format!("MOVE {} instead", column.name(s))));
    }
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
        let Some(q) = p.step(lead, d, n) else {
            return Err(Problem::new("a wall stands in the charge's way").hint("charge through the gate"));
        };
        if p.get(q).is_some() {
            return Err(
                Problem::new(format!("the charge is blocked: {}", p.describe(q))).hint("a charge needs an open way")
            );
        }
    }
    if p.step(lead, d, k) != Some(at) {
        return Err(Problem::new("a wall stands in the charge's way").hint("charge through the gate"));
    }
    let target = match p.get(at) {
        Some(w) if w.is_unit() && !p.s.friends(w.army(), a) => w,
        Some(Who::Phantom(_)) | None => {
            return Err(Problem::new(format!("{}: a charge captures an enemy unit", p.describe(at)))
                .hint(format!("MOVE {} instead", column.name(s))))
        }
        Some(_) => return Err(Problem::new(format!("{}: your own unit", p.describe(at))).hint("charge an enemy unit")),
    };
    if matches!(target, Who::Commander(_) | Who::Eagle(_)) {
        return Err(Problem::new(format!(
            "{}: a Commander or an Eagle is never captured (BT-11, A-20)",
            p.describe(at)
        ))
        .hint("trap it instead"));
    }
    let moves = column.cells().into_iter().map(|q| (p.get(q).expect("member"), shift(q, d.0 * k, d.1 * k))).collect();
    if matches!(target, Who::Cavalry(..)) {
        // A charged Cavalry dodges to a side of the charge when it can
        // (S6-15, A-22): at once if one side is open, by its owner's
        // choice if both are; with neither it is captured.
        let mut sides: Vec<Sq> = [(d.1, d.0), (-d.1, -d.0)]
            .iter()
            .filter_map(|&e| p.step(at, e, 1))
            .filter(|&q| p.open(q) && !p.s.in_blocks(&p.s.terrain.swamp, q))
            .collect();
        sides.sort_by_key(|q| (q.col, q.row));
        match sides.len() {
            0 => {}
            1 => return Ok(Effect { moves, dodge: Some((target, sides[0])), ..Default::default() }),
            _ => return Ok(Effect { moves, choice: sides, ..Default::default() }),
        }
    }
    Ok(Effect { moves, charged: Some((target, at)), ..Default::default() })
}
