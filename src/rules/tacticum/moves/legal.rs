//! The legal-action generator: what Trapped (BT-31, A-12), PASS,
//! the prompt and the random player need.

use super::capture::apply;
use super::{check, check_in, engaged, Pos, Sq, STEPS};
use crate::rules::tacticum::orders::{Block, Shape};
use crate::rules::tacticum::{Order, State, Who};
use std::collections::BTreeSet;

/// Every legal action of `role`'s army at a turn, in a stable order.
pub fn legal(s: &State, role: &str) -> Vec<Order> {
    actions(s, role, None)
}

/// Whether `role`'s army has any legal action: a one-square step of a
/// unit almost always answers it, the whole list only when none does.
pub fn can_act(s: &State, role: &str) -> bool {
    let Some(a) = s.army_index(role) else { return false };
    let p = Pos::new(s);
    for q in s.squares() {
        if !matches!(p.get(q), Some(w) if w.is_unit() && p.s.friends(w.army(), a)) {
            continue;
        }
        for d in STEPS {
            let Some(t) = p.step(q, d, 1) else { continue };
            if check_in(&p, role, &Order::Move { from: Block::one(q), to: Block::one(t), via: None }).is_ok() {
                return true;
            }
        }
    }
    !legal(s, role).is_empty()
}

/// The legal actions, or with `near` only those that can move the unit on
/// that square: what Trapped asks (a unit moves alone or in a formation
/// holding it, or rallies to a Guide within one square).
fn actions(s: &State, role: &str, near: Option<Sq>) -> Vec<Order> {
    let Some(a) = s.army_index(role) else { return Vec::new() };
    let close = |q: Sq, d: u8| near.is_none_or(|c| c.distance(q) <= d);
    let p = Pos::new(s);
    let mut out = Vec::new();
    let units: Vec<Sq> =
        s.squares().filter(|&q| matches!(p.get(q), Some(w) if w.is_unit() && p.s.friends(w.army(), a))).collect();
    let try_order = |o: Order, out: &mut Vec<Order>| {
        if check_in(&p, role, &o).is_ok() && !out.contains(&o) {
            out.push(o);
        }
    };
    for &q in units.iter().filter(|&&q| near.is_none_or(|c| c == q)) {
        match p.get(q) {
            Some(w @ (Who::Cavalry(..) | Who::Infantry(..))) if matches!(w, Who::Cavalry(..)) || s.armies[a].turns => {
                // Every square within a turning move's reach, and on the
                // straight lines beyond; charges at every enemy in reach.
                let reach = if matches!(w, Who::Cavalry(..)) { s.cavalry_turn_max } else { s.armies[a].move_limit };
                for t in s.squares() {
                    let straight = t.col == q.col || t.row == q.row;
                    let near = q.steps(t) <= reach;
                    if t == q || !(straight || near) {
                        continue;
                    }
                    let o = match p.get(t) {
                        None => Order::Move { from: Block::one(q), to: Block::one(t), via: None },
                        Some(w) if w.is_unit() && !p.s.friends(w.army(), a) => {
                            Order::Charge { column: Block::one(q), at: t, via: None }
                        }
                        _ => continue,
                    };
                    try_order(o, &mut out);
                }
            }
            Some(Who::Eagle(_)) => {}
            _ => {
                for d in STEPS {
                    for n in 1.. {
                        let Some(t) = p.step(q, d, n) else { break };
                        let o = Order::Move { from: Block::one(q), to: Block::one(t), via: None };
                        if check_in(&p, role, &o).is_err() {
                            // A gate is passed, never stopped on (SO1-13):
                            // look beyond it.
                            if p.gate(t, a) && matches!(p.get(t), Some(Who::Wall(_))) {
                                continue;
                            }
                            break;
                        }
                        out.push(o);
                    }
                }
            }
        }
    }
    if !s.armies[a].formations {
        return out;
    }
    if s.manoeuvres {
        for &g in units.iter().filter(|&&g| close(g, 1)) {
            rallies(&p, a, g, &mut out);
        }
    }
    // A formation holds `near` only if its low corner is within 3.
    for &q in units.iter().filter(|&&q| close(q, 3)) {
        let mut candidates = vec![(Shape::Square, (1, 1)), (Shape::Column, (0, 2)), (Shape::Column, (2, 0))];
        if s.lines {
            candidates.push((Shape::Line, (3, 0)));
        }
        for (shape, (w, h)) in candidates {
            let Some(hi) = p.step(q, (w, h), 1) else { continue };
            let b = Block::new(q, hi);
            if !b.cells().iter().all(|&c| p.formation_unit(c, a)) || near.is_some_and(|c| !b.cells().contains(&c)) {
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
                Shape::Line => vec![(0, 1), (0, -1)],
                _ => (1..=3).flat_map(|k| if w == 0 { [(0, k), (0, -k)] } else { [(k, 0), (-k, 0)] }).collect(),
            };
            for (dc, dr) in shifts {
                if let Some(to) = b.shifted(dc, dr, s.columns, s.rows) {
                    try_order(Order::Move { from: b, to, via: None }, &mut out);
                }
            }
            if shape == Shape::Square && s.manoeuvres {
                try_order(Order::Extend(b), &mut out);
            }
            if shape == Shape::Square && s.facing {
                for right in [true, false] {
                    try_order(Order::Turn { square: b, right }, &mut out);
                }
            }
            if shape == Shape::Column {
                let (d1, d2) = if w == 0 { ((0, 1), (0, -1)) } else { ((1, 0), (-1, 0)) };
                for (end, d) in [(b.hi, d1), (b.lo, d2)] {
                    for n in 1..=3 {
                        if let Some(t) = p.step(end, d, n) {
                            try_order(Order::Charge { column: b, at: t, via: None }, &mut out);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Rallies on the Guide `g`: for each 2x2 that holds it, its open squares
/// filled by the first free units around the Guide (a sample of the
/// choices, enough for Trapped and random play).
fn rallies(p: &Pos, a: usize, g: Sq, out: &mut Vec<Order>) {
    let s = p.s;
    if !p.formation_unit(g, a) {
        return;
    }
    for b in Block::holding(g, (1, 1), s.columns, s.rows) {
        let open: Vec<Sq> = b.cells().into_iter().filter(|&q| !p.formation_unit(q, a)).collect();
        if open.is_empty() || open.iter().any(|&q| !p.open(q)) {
            continue;
        }
        let mut free: Vec<Sq> = s
            .board()
            .around(g)
            .into_iter()
            .filter(|&q| !b.cells().contains(&q) && p.formation_unit(q, a) && !engaged(p, q))
            .collect();
        if free.len() < open.len() {
            continue;
        }
        let movers: Vec<(Sq, Sq)> = open.iter().map(|&t| (free.remove(0), t)).collect();
        let o = Order::Rally { guide: g, movers };
        if check_in(p, &s.armies[a].name, &o).is_ok() && !out.contains(&o) {
            out.push(o);
        }
    }
}

/// Whether army `a`'s Commander can change square in no legal action of
/// its army (BT-31, A-12).
pub fn trapped(s: &State, a: usize) -> bool {
    liberties(s, a) == Some(0)
}

/// In how many ways army `a`'s Commander can change square: the first
/// steps of its moves and rallies, and each kind of formation action
/// that carries it (a line of squares is one way, which one enemy piece
/// closes). None is Trapped (BT-31, A-12); no figure for an army without
/// a Commander on the board.
pub fn liberties(s: &State, a: usize) -> Option<usize> {
    let c = s.sq(&s.armies[a].commander)?;
    let role = s.armies[a].name.clone();
    // A way: the kind of action (a step, Extend, Turn, Charge) and the
    // direction of a step.
    let ways: BTreeSet<(u8, (i32, i32))> = actions(s, &role, Some(c))
        .iter()
        .filter_map(|o| match o {
            Order::Rally { movers, .. } => movers.iter().find(|m| m.0 == c).map(|m| (0, m.0.toward(m.1))),
            Order::Move { from, to, .. } if from.cells().contains(&c) => Some((0, from.lo.toward(to.lo))),
            Order::Extend(square) if square.cells().contains(&c) => Some((1, (0, 0))),
            Order::Turn { square, .. } if square.cells().contains(&c) => Some((2, (0, 0))),
            Order::Charge { column, .. } if column.cells().contains(&c) => Some((3, (0, 0))),
            _ => None,
        })
        .collect();
    Some(ways.len())
}

/// The position after an order of `role` (its captures made), if legal.
pub fn after(s: &State, role: &str, o: &Order) -> Option<State> {
    let eff = check(s, role, o).ok()?;
    let mut t = s.clone();
    apply(&mut t, role, &eff);
    Some(t)
}

/// The orders that capture an enemy piece (for the random player), the
/// position read once for them all.
pub fn capturing<'o>(s: &State, role: &str, orders: &'o [Order]) -> Vec<&'o Order> {
    let Some(a) = s.army_index(role) else { return Vec::new() };
    let p = Pos::new(s);
    // Every capture but a charge's takes an enemy unit beside a square a
    // piece moved to (a flank's first square, a unit touched on two
    // sides), and enemy pieces do not move in an action but to dodge,
    // which leaves them out of the flanks: an action that brings
    // no piece beside one captures nothing, without playing it out.
    let beside_enemy = |m: Sq| {
        STEPS.iter().any(
            |&d| matches!(p.step(m, d, 1).and_then(|q| p.get(q)), Some(v) if v.is_unit() && !s.friends(v.army(), a)),
        )
    };
    orders
        .iter()
        .filter(|o| {
            let Ok(eff) = check_in(&p, role, o) else { return false };
            if !eff.choice.is_empty() {
                return false;
            }
            if eff.charged.is_none()
                && (eff.quiet || !eff.moves.iter().any(|&(w, m)| !matches!(w, Who::Prisoner(_)) && beside_enemy(m)))
            {
                return false;
            }
            let mut t = s.clone();
            !apply(&mut t, role, &eff).is_empty()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rules;
    use crate::rules::shared::player::Pick;
    use crate::rules::tacticum::{data, Tacticum};

    /// What `capturing` must equal: every legal action played out on a
    /// copy of the position, kept where it captured.
    fn played_out<'o>(s: &State, role: &str, orders: &'o [Order]) -> Vec<&'o Order> {
        orders
            .iter()
            .filter(|o| {
                check(s, role, o)
                    .is_ok_and(|eff| eff.choice.is_empty() && !apply(&mut s.clone(), role, &eff).is_empty())
            })
            .collect()
    }

    /// The shortcut that skips actions bringing no piece beside an enemy
    /// leaves out no capture: in random games of every scenario, at every
    /// turn, the captures found are those the actions played out make.
    #[test]
    fn capturing_finds_every_capture_an_action_makes() {
        let mut pick = Pick::new(17);
        let mut found = 0;
        for scenario in data::SCENARIOS.iter().map(|x| x.name.clone()) {
            let mut s = Tacticum.setup(&scenario).expect("scenario");
            let mut dice = crate::dice::Imagined::new([5; 32]);
            for _ in 0..120 {
                if Tacticum.outcome(&s).is_some() {
                    break;
                }
                let a = Tacticum.awaited(&s);
                if s.phase == "turn" {
                    for r in &a.roles {
                        let all = legal(&s, r);
                        let fast = capturing(&s, r, &all);
                        assert_eq!(fast, played_out(&s, r, &all), "{scenario}, {r}");
                        found += fast.len();
                    }
                }
                let orders = a
                    .roles
                    .iter()
                    .map(|r| (r.clone(), Tacticum.random_orders(&s, r, &mut |n| pick.below(n))))
                    .collect();
                Tacticum.resolve(&mut s, &orders, &mut dice);
            }
        }
        assert!(found > 50, "only {found} captures offered: the check compared too little");
    }
}
