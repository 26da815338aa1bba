//! The no-moves policy (brief 3.6) and random legal play for the
//! conformance test: plans that close with the enemy, fire, attack and
//! charge, chain Continuums and set policies.

use super::flow::{can_activate, can_continuum, can_interrupt, confusion_default, eligible};
use super::orders::{PolicyLine, Step};
use super::*;

/// What a silent role is taken to have sent: the eligible Captain with
/// the lowest CC and no orders (A05), or for the forced first activation
/// one order in place; PASS; NO INTERRUPT; no further orders.
pub fn defaults(s: &State, role: &str) -> Vec<Order> {
    match &s.pending {
        Pending::Activation { role: r } if r == role => {
            // A Battle still off the map is never a default (S2.10.2).
            let can: Vec<String> = eligible(s, role, can_activate)
                .into_iter()
                .filter(|b| s.battle(b).map(|x| !x.off_map).unwrap_or(false))
                .collect();
            let Some(b) = can.iter().min_by_key(|b| s.battle(b).map(|x| x.cc).unwrap_or(0)).cloned() else {
                return Vec::new();
            };
            let mut v = vec![Order::Activate { battle: b.clone(), general: Vec::new(), at: None, face: None }];
            if !s.first.is_empty() {
                v.extend(opening(s, &b));
            }
            v
        }
        // The printed hexes (S1.1).
        Pending::Rows { roles } if roles.iter().any(|r| r == role) => vec![Order::Pass],
        Pending::Setup { role: r, what } if r == role => super::free::defaults(s, role, what),
        Pending::Continuum { role: r } if r == role => vec![Order::Pass],
        Pending::Interruptio { role: r, .. } if r == role => vec![Order::NoInterrupt],
        Pending::Confusion { role: r } if r == role => {
            confusion_default(s, role).map(|battle| vec![Order::Confusion { battle }]).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The least the forced first activation of `battle` must give: the
/// Carica! orders S4.2 asks for, each at the nearest enemy unit (one that
/// cannot reach it does nothing, A35); else one unit ordered to stand (a
/// Move order with no movement), for it cannot pass (S2.2, S3.2).
fn opening(s: &State, battle: &str) -> Vec<Order> {
    if s.first_caricas > 0 {
        return opening_charges(s, battle);
    }
    let mut v = Vec::new();
    let Some(bt) = s.battle(battle) else { return v };
    let squad = bt.squads.first().map(|q| q.letter.clone()).unwrap_or_default();
    if let Some(q) = bt.squads.first() {
        v.push(Order::Squad { leader: q.leader.name.clone() });
    }
    if let Some(u) = s.units.iter().find(|u| u.battle == battle && u.alive() && u.squad == squad) {
        v.push(Order::Move { unit: u.name.clone(), path: Vec::new(), attack: None });
    }
    v
}

/// A Move Order for `battle`'s standard to a unit of the Battle beside
/// its carrier, if it has one (16.2.3).
fn standard_line(s: &State, battle: &str) -> Option<Order> {
    let x = s.standards.iter().find(|x| x.battle == battle && !x.captured)?;
    let at = s.unit(&x.carrier)?.at()?;
    let to = s
        .grid()
        .neighbours(at)
        .into_iter()
        .find(|h| s.unit_at(*h).map(|u| u.battle == battle).unwrap_or(false) && s.step(at, *h, true).is_some())?;
    Some(Order::Standard { path: vec![to.to_string()] })
}

/// Carica! orders for the opening activation that must give them (S4.2):
/// the first eligible cavalry, each at its nearest enemy unit.
fn opening_charges(s: &State, battle: &str) -> Vec<Order> {
    let g = s.grid();
    s.units
        .iter()
        .filter(|u| u.battle == battle && u.alive() && super::act::may_charge(s, u).is_ok())
        .take(s.first_caricas.max(0) as usize)
        .filter_map(|u| {
            let at = u.at()?;
            let t = s
                .units
                .iter()
                .filter(|e| e.alive() && e.side != u.side)
                .filter_map(|e| e.at())
                .min_by_key(|h| (g.distance(at, *h), *h))?;
            Some(Order::Charge { unit: u.name.clone(), path: Vec::new(), attack: t.to_string() })
        })
        .collect()
}

fn pick_of<'a, T>(v: &'a [T], pick: &mut dyn FnMut(usize) -> usize) -> Option<&'a T> {
    (!v.is_empty()).then(|| &v[pick(v.len())])
}

/// A random legal mail: now and then a policy line, and the decision the
/// step asks of `role` if it is awaited.
pub fn orders(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut out = policies(s, role, pick);
    out.extend(decision(s, role, false, pick));
    out
}

/// Now and then a standing policy line (3.4).
fn policies(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut out = Vec::new();
    // Now and then a policy line, from either role.
    let mine: Vec<&Battle> = s.battles.iter().filter(|b| b.side == role && !b.removed && !b.off_map).collect();
    if pick(8) == 0 {
        if let Some(b) = pick_of(&mine, pick) {
            let units: Vec<&Unit> = s.units.iter().filter(|u| u.battle == b.name && u.alive()).collect();
            if let Some(u) = pick_of(&units, pick) {
                out.push(Order::Policy(if pick(2) == 0 {
                    PolicyLine::Adjutant(b.name.clone(), u.name.clone())
                } else {
                    PolicyLine::Escape(b.name.clone(), u.hex.clone())
                }));
            }
        }
    }
    if pick(6) == 0 {
        out.push(Order::Policy(match pick(4) {
            0 => match pick(3) {
                0 => PolicyLine::Interrupt("ask".into(), 0),
                1 => PolicyLine::Interrupt("never".into(), 0),
                _ => PolicyLine::Interrupt("best".into(), [0, 3, 5][pick(3)]),
            },
            1 => PolicyLine::Fire(["always", "never", "attackers"][pick(3)].into()),
            2 => PolicyLine::Face(["always", "never", "min"][pick(3)].into(), 4),
            _ => PolicyLine::Counter(["always", "never", "min"][pick(3)].into(), 4),
        }));
    }
    out
}

/// The prompt's worked example: the first legal decision of the step from
/// the side's own units (the map's positions are public), cut to its head
/// and first three orders, without a pre-committed Continuum. The engine
/// shows it only if it passes the check a mail meets.
pub fn example(s: &State, role: &str) -> Vec<Order> {
    let mut plan = decision(s, role, true, &mut |_| 0);
    if let Some(i) = plan.iter().position(|o| matches!(o, Order::Next { .. } | Order::Then)) {
        plan.truncate(i);
    }
    let head = plan.iter().take_while(|o| o.unit().is_none()).count();
    plan.truncate(head + 3);
    plan
}

/// What the step asks of `role`, chosen at random: a Captain, his plan
/// (`eager`: every unit that can acts, the demo's player), a `NEXT`.
pub fn decision(s: &State, role: &str, eager: bool, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut out = Vec::new();
    if !s.pending.awaits(role) {
        return out;
    }
    match s.pending.clone() {
        Pending::Rows { .. } => out.extend(super::rows::random(s, role, pick)),
        // Now and then every Captain in one mail, a queue (brief 3.7).
        Pending::Setup { what, .. } if what == "captain" && pick(3) == 0 => out.extend(super::free::captains(s, role)),
        Pending::Setup { what, .. } => out.extend(super::free::defaults(s, role, &what)),
        Pending::Activation { .. } => {
            let can = eligible(s, role, can_activate);
            let Some(b) = pick_of(&can, pick).cloned() else { return out };
            // A Battle entering the map names an open line (S2.10.2).
            let at = s.battle(&b).filter(|x| x.off_map).and_then(|_| {
                let e = s.entries.iter().find(|e| e.battle == b)?;
                super::flow::open_lines(s, role, e).first().map(|x| x.0.clone()).filter(|l| !l.is_empty())
            });
            out.push(Order::Activate { battle: b.clone(), general: Vec::new(), at, face: None });
            let cc = s.battle(&b).map(|x| x.cc).unwrap_or(1);
            // Now and then the Battle's standard goes to a unit beside it
            // (16.2.3), first and for one of the OP.
            // (Asked only of a Battle with a standard: the other games'
            // random streams stay as they were.)
            let has = s.standards.iter().any(|x| x.battle == b && !x.captured);
            let standard = (has && cc > 1 && pick(3) == 0).then(|| standard_line(s, &b)).flatten();
            out.extend(standard.clone());
            let mut lines = plan_with(s, &b, cc - i32::from(standard.is_some()), eager, pick);
            let charges = lines.iter().filter(|o| o.kind() == Some(OrderKind::Charge)).count() as i32;
            if !s.first.is_empty() && (!lines.iter().any(|o| o.unit().is_some()) || charges < s.first_caricas) {
                lines = opening(s, &b);
            }
            out.extend(lines);
            out.extend(next(s, role, &b, pick));
        }
        Pending::Continuum { .. } => {
            let can = eligible(s, role, can_continuum);
            match pick_of(&can, pick).cloned() {
                Some(b) if pick(4) > 0 => {
                    out.push(Order::Continuum { battle: b.clone() });
                    let cc = s.battle(&b).map(|x| x.cc).unwrap_or(2);
                    out.extend(plan_with(s, &b, cc - 1, eager, pick));
                }
                _ => out.push(Order::Pass),
            }
        }
        Pending::Interruptio { .. } => {
            let can = eligible(s, role, can_interrupt);
            match pick_of(&can, pick).cloned() {
                Some(b) if pick(2) == 0 => {
                    out.push(Order::Interrupt { battle: b.clone() });
                    let cc = s.battle(&b).map(|x| x.cc).unwrap_or(2);
                    out.extend(plan_with(s, &b, cc - 1, eager, pick));
                }
                _ => out.push(Order::NoInterrupt),
            }
        }
        Pending::Confusion { .. } => {
            let can = super::flow::confusable(s, role);
            if let Some(b) = pick_of(&can, pick) {
                out.push(Order::Confusion { battle: b.clone() });
            }
        }
        Pending::Orders { captain, .. } => {
            let op = if s.act.is_some() { s.op } else { s.battle(&captain).map(|b| b.cc).unwrap_or(1) };
            out.extend(plan_with(s, &captain, op, eager, pick));
        }
        Pending::Over => {}
    }
    out
}

/// Sometimes a pre-committed NEXT.
fn next(s: &State, role: &str, just: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    match pick(3) {
        0 => vec![Order::Next { what: "pass".into() }],
        1 => {
            let can: Vec<String> = eligible(s, role, can_continuum).into_iter().filter(|b| b != just).collect();
            match pick_of(&can, pick).cloned() {
                // Half the time with the next Captain's plan after THEN.
                Some(b) if pick(2) == 0 => {
                    let cc = s.battle(&b).map(|x| x.cc).unwrap_or(2);
                    let mut v = vec![Order::Next { what: b.clone() }, Order::Then];
                    v.extend(plan(s, &b, cc - 1, pick));
                    v
                }
                Some(b) => vec![Order::Next { what: b }],
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// A plan for `battle` within `op` OP: for each squad (or the Battle),
/// some of its units fire, attack, charge or close with the enemy.
pub fn plan(s: &State, battle: &str, op: i32, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    plan_with(s, battle, op, false, pick)
}

/// [`plan`], with every unit ordered while OP last (`eager`: the demo's
/// player) or some left standing (random play).
pub fn plan_with(s: &State, battle: &str, op: i32, eager: bool, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let Some(b) = s.battle(battle) else { return Vec::new() };
    let mut out = Vec::new();
    let mut left = op;
    // After a WAIT the running activation goes on: its current squad's
    // lines come first, with no SQUAD line, and squads done are done.
    let running = s.act.as_ref().filter(|a| a.battle == battle);
    let done: Vec<String> = running.map(|a| a.squads_done.clone()).unwrap_or_default();
    let current = running.map(|a| a.squad.clone()).unwrap_or_default();
    let mut groups: Vec<(Option<String>, String)> = if b.squads.is_empty() {
        vec![(None, String::new())]
    } else {
        b.squads
            .iter()
            .filter(|q| !done.contains(&q.letter))
            .map(|q| (Some(q.leader.name.clone()), q.letter.clone()))
            .collect()
    };
    if !current.is_empty() && done.contains(&current) {
        groups.insert(0, (None, current));
    }
    for (leader, letter) in groups {
        if let Some(l) = leader {
            out.push(Order::Squad { leader: l });
        }
        let command = super::effects::in_command(s, battle, &letter);
        for u in s.units.iter().filter(|u| u.battle == battle && u.squad == letter && u.alive() && !u.ordered) {
            // A unit out of command is left where it is: its move (2 OP)
            // must end in command when it can (5.1.3), which random play
            // does not aim for.
            if !command.contains(&u.name) || left < 1 || (!eager && pick(4) == 0) {
                continue;
            }
            if out.iter().any(|o| matches!(o, Order::Echelon { with, .. } if *with == u.name)) {
                continue;
            }
            let Some(o) = unit_order(s, u, eager, pick) else { continue };
            // Not with a unit this plan has ordered already (5.0.1).
            if matches!(&o, Order::Echelon { with, .. } if out.iter().any(|x| x.unit() == Some(with.as_str()))) {
                continue;
            }
            let cost = o.kind().map(|k| k.cost()).unwrap_or(1);
            if cost > left {
                continue;
            }
            left -= cost;
            out.push(o);
        }
    }
    out
}

/// The nearest enemy unit's hex; for the demo's horsemen (`bold`), the
/// nearest enemy crossbowmen first: cavalry rides through foot ZOC
/// (7.1.1) and draws their fire.
fn nearest_enemy(s: &State, u: &Unit, bold: bool) -> Option<Hex> {
    let at = u.at()?;
    let g = s.grid();
    let near = |xbow: bool| {
        s.units
            .iter()
            .filter(|e| e.alive() && e.side != u.side && (!xbow || e.kind == Kind::Crossbowmen))
            .filter_map(|e| e.at())
            .min_by_key(|h| (g.distance(at, *h), *h))
    };
    if bold && u.cavalry() {
        near(true).or_else(|| near(false))
    } else {
        near(false)
    }
}

fn unit_order(s: &State, u: &Unit, bold: bool, pick: &mut dyn FnMut(usize) -> usize) -> Option<Order> {
    let at = u.at()?;
    let fronts = s.front_hexes(u);
    let enemy_front: Vec<&Unit> = fronts.iter().filter_map(|h| s.unit_at(*h)).filter(|e| e.side != u.side).collect();
    if u.disorganized && !s.enemy_zoc(at, &u.side, false) && pick(2) == 0 {
        return Some(Order::Reorganize { unit: u.name.clone() });
    }
    if u.kind == Kind::Crossbowmen && !u.fired {
        let targets: Vec<&Unit> = s
            .units
            .iter()
            .filter(|e| e.alive() && e.side != u.side && super::effects::can_fire(s, u, e.at().expect("alive")).is_ok())
            .collect();
        if let Some(t) = pick_of(&targets, pick) {
            return Some(Order::Fire { unit: u.name.clone(), face: None, at: t.name.clone() });
        }
    }
    if let Some(e) = pick_of(&enemy_front, pick) {
        return Some(Order::Move { unit: u.name.clone(), path: Vec::new(), attack: Some(e.name.clone()) });
    }
    if s.enemy_zoc(at, &u.side, u.cavalry()) {
        // A School horseman may ride back to its rally point (14.3),
        // or change places with the one behind it (5.4.6).
        if u.cavalry() && pick(2) == 0 && super::act::rally_hex(s, u, None).is_ok() {
            return Some(Order::Rally { unit: u.name.clone(), to: None, echelon: pick(2) == 0 });
        }
        let behind: Vec<&Unit> = s
            .units
            .iter()
            .filter(|r| r.alive() && r.name != u.name && !r.ordered && super::act::echelon_problem(s, u, r).is_ok())
            .collect();
        if let Some(r) = pick_of(&behind, pick) {
            return Some(Order::Echelon { unit: u.name.clone(), with: r.name.clone(), attack: None });
        }
        return (pick(3) == 0).then(|| Order::Retreat { unit: u.name.clone(), to: None });
    }
    // Close with the nearest enemy: step by step through front hexes,
    // pivoting toward it, within the allowance.
    let goal = nearest_enemy(s, u, bold)?;
    let g = s.grid();
    let mut path = Vec::new();
    let (mut here, mut facing) = (at, u.facing);
    let mut mp = if u.cavalry() { s.tables.movement.cavalry } else { s.tables.movement.foot };
    let mut taken: Vec<Hex> = Vec::new();
    while mp > 0 {
        let fronts: Vec<Hex> = facing.front().iter().filter_map(|&d| g.neighbour(here, d)).collect();
        let best = fronts
            .iter()
            .copied()
            .filter(|h| {
                s.step(here, *h, u.cavalry()).map(|c| c <= mp).unwrap_or(false)
                    && s.unit_at(*h).is_none()
                    && !taken.contains(h)
            })
            .filter(|h| g.distance(*h, goal) < g.distance(here, goal))
            .min_by_key(|h| (g.distance(*h, goal), *h));
        match best {
            Some(h) => {
                mp -= s.step(here, h, u.cavalry()).unwrap_or(1);
                path.push(Step::Hex(h.to_string()));
                taken.push(h);
                here = h;
                if s.enemy_zoc(h, &u.side, u.cavalry()) || g.distance(h, goal) <= 1 {
                    break;
                }
            }
            None => {
                let Some(d) = Dir::ALL
                    .iter()
                    .copied()
                    .filter(|&d| g.neighbour(here, d).is_some())
                    .min_by_key(|&d| g.neighbour(here, d).map(|n| g.distance(n, goal)).unwrap_or(99))
                else {
                    break;
                };
                let want = Vertex::facing(d)[0];
                let n = facing.turns(want);
                let cost = if u.cavalry() { 1 } else { n };
                if n == 0 || cost > mp || path.iter().any(|x| matches!(x, Step::Face(_))) {
                    break;
                }
                mp -= cost;
                path.push(Step::Face(want));
                facing = want;
            }
        }
    }
    // Attack whatever would stand in front at the end.
    let end_front: Vec<Hex> = facing.front().iter().filter_map(|&d| g.neighbour(here, d)).collect();
    let target = end_front.iter().filter_map(|h| s.unit_at(*h)).find(|e| e.side != u.side).map(|e| e.name.clone());
    let moved = path.iter().any(|x| matches!(x, Step::Hex(_)));
    if let Some(t) = target {
        if moved
            && u.cavalry()
            && u.armour_rank() >= 1
            && !u.disorganized
            && !s.adjacent_enemy(at, &u.side)
            && pick(2) == 0
        {
            return Some(Order::Charge { unit: u.name.clone(), path, attack: t });
        }
        return Some(Order::Move { unit: u.name.clone(), path, attack: Some(t) });
    }
    Some(Order::Move { unit: u.name.clone(), path, attack: None })
}
