//! Segment 4 of an activation (4.0 s4): orders given one unit at a time,
//! with the OP and militia rolls (5.2-5.4); movement with facing, terrain
//! and zones of control (6.0-9.0), rallies, echelons and charges; and the
//! other side's answers as each unit stops, from its policies (charge
//! morale 12.1.4, Reaction Fire on entry and exit, Countercharges 12.2),
//! whose effects live in `effects`. A line whose premise has failed is
//! skipped with its reason, never guessed.

use super::effects::{
    arrive, can_fire, d2, disorganize, entry_fire, exit_fire, fire, in_command, lose_carica, morale, reaction_fire,
    reaction_pivots, release_near, resolve_target, terrain_entry,
};
use super::orders::Step;
use super::*;
use crate::dice::Serves;
use std::collections::BTreeSet;

/// Movement allowance this order (8.1), less a Heat event's (S2.7.2).
fn allowance(s: &State, u: &Unit) -> i32 {
    let base = if u.cavalry() { s.tables.movement.cavalry } else { s.tables.movement.foot };
    let mut minus = 0;
    if let Some(h) = &s.heat {
        for e in h.event.iter().filter(|e| e.kind == "ma-minus" && e.at <= h.at && e.side == u.side) {
            if e.armour.is_empty() || e.armour == u.armour {
                minus += e.amount;
            }
        }
    }
    (base - minus).max(1)
}

/// Does a move step from `from` into `to` keep to the rules? The MP it
/// costs, or why not.
fn step_cost(s: &State, u: &Unit, from: Hex, to: Hex) -> Result<i32, String> {
    let g = s.grid();
    if g.direction(from, to).is_none() {
        return Err(format!("{to} is not beside {from}"));
    }
    let fronts: Vec<Hex> = u.facing.front().iter().filter_map(|&d| g.neighbour(from, d)).collect();
    if !fronts.contains(&to) {
        let f: Vec<String> = fronts.iter().map(|h| h.to_string()).collect();
        return Err(format!(
            "{to} is not a front hex of {} in {from} (facing {}: front {}); write FACE first (8.1.3)",
            u.name,
            orders::vertex_word(u.facing),
            f.join(", ")
        ));
    }
    let Some(mut cost) = s.step(from, to, u.cavalry()) else {
        if let Some(k) = s.hexside(from, to).filter(|_| s.cost(to, u.cavalry()).is_some()) {
            return Err(format!("{} may not cross the {} between {from} and {to} (TEC)", u.name, k.name));
        }
        return Err(format!(
            "{to} is {}: no unit may enter (TEC)",
            s.terrain_at(to).map(|t| t.name.as_str()).unwrap_or("off the map")
        ));
    };
    if let Some(o) = s.unit_at(to) {
        if o.side != u.side {
            return Err(format!("{to} holds the enemy {} (8.3.1)", o.name));
        }
        if s.adjacent_enemy(to, &u.side) {
            return Err(format!("{to} holds {}, which is beside an enemy unit (8.3.1)", o.name));
        }
        cost += 1; // 8.3.2
    }
    Ok(cost)
}

/// The outcome of giving an order: given (OP spent), or skipped with a
/// reason (no OP spent).
fn give(s: &mut State, unit: &str, kind: OrderKind, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> Result<(), String> {
    let act = s.act.clone().ok_or("no activation is running")?;
    let u = s.unit(unit).cloned().ok_or("no such unit")?;
    if !u.alive() {
        return Err(format!("{unit} has routed"));
    }
    if u.battle != act.battle {
        return Err(format!("{unit} is of {}'s Battle, not {}'s (5.0.1)", u.battle, act.battle));
    }
    if u.ordered {
        return Err(format!("{unit} has had its order in this activation (5.0.1)"));
    }
    if !u.squad.is_empty() && u.squad != act.squad {
        return Err(format!(
            "{unit} is of squad {}; its orders come after SQUAD {}-{} (14.1.2)",
            u.squad, act.battle, u.squad
        ));
    }
    let commanded = in_command(s, &u.battle, &u.squad).contains(unit);
    let general = !act.general.is_empty();
    let cost = if general {
        if !commanded {
            return Err(format!("{unit} is out of command: a General Order reaches units in command only (5.2)"));
        }
        if !act.general.contains(&kind) {
            return Err(format!(
                "the General Order is {}; {unit} cannot {} (5.2.1)",
                act.general.iter().map(|k| k.word()).collect::<Vec<_>>().join(" + "),
                kind.word()
            ));
        }
        0
    } else if commanded {
        kind.cost()
    } else if kind == OrderKind::Move {
        2
    } else {
        return Err(format!("{unit} is out of command: it may only take a Move order at 2 OP (5.1.3)"));
    };
    if cost > s.op {
        return Err(format!("{} OP needed, {} left (5.3.1)", cost, s.op));
    }
    let op_before = s.op;
    s.op -= cost;
    s.unit_mut(unit).expect("unit").ordered = true;
    s.marks.push(u.hex.clone());
    if !general && u.militia {
        // 5.3.2: the militia's order roll, with the OP before this cost.
        let (a, b) = d2(dice, &format!("order roll, {unit} (CR {} + OP {op_before})", u.q()), &Serves::low(&u.side));
        let total = a + b + if u.disorganized { 2 } else { 0 };
        let ok = total <= u.q() + op_before && !(a == 6 && b == 6);
        ev.push(Event::all(format!(
            "Order roll for the militia {unit}: {a}+{b}{} = {total} against CR {} + OP {op_before} = {}: {} (5.3.2).",
            if u.disorganized { " +2 Disorganized" } else { "" },
            u.q(),
            u.q() + op_before,
            if ok { "executed" } else { "Order failed" }
        )));
        if !ok {
            return Err(format!("{unit}'s order failed; the OP are spent (5.3.3)"));
        }
    }
    if cost > 0 {
        ev.push(Event::all(format!("{unit}: {} order, {cost} OP; {} OP left.", kind.word(), s.op)));
    }
    Ok(())
}

/// Carry out one plan line of the running activation.
pub fn line(s: &mut State, o: &Order, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let skip = |ev: &mut Vec<Event>, why: String| ev.push(Event::all(format!("{o}: skipped, {why}.")));
    match o {
        Order::Move { unit, path, attack } => {
            let commanded = in_command(s, &u_battle(s, unit), &u_squad(s, unit)).contains(unit);
            if let Err(why) = give(s, unit, OrderKind::Move, dice, ev) {
                return skip(ev, why);
            }
            let moved = walk(s, unit, path, Walk { charge: None, out_of_command: !commanded }, dice, ev);
            stopped(s, unit, moved, attack.as_deref(), false, dice, ev);
        }
        Order::Charge { unit, path, attack } => {
            let u = s.unit(unit).cloned();
            if let Some(u) = &u {
                if let Err(why) = may_charge(s, u) {
                    return skip(ev, why);
                }
            }
            if let Err(why) = give(s, unit, OrderKind::Charge, dice, ev) {
                return skip(ev, why);
            }
            let target = resolve_target(s, attack, &u.as_ref().map(|u| u.side.clone()).unwrap_or_default())
                .and_then(|t| s.unit(&t).and_then(|x| x.at()));
            let moved = walk(s, unit, path, Walk { charge: Some(target), out_of_command: false }, dice, ev);
            stopped(s, unit, moved, Some(attack), true, dice, ev);
        }
        Order::Fire { unit, face, at } => {
            let Some(u) = s.unit(unit).cloned() else { return };
            if u.kind != Kind::Crossbowmen {
                return skip(ev, format!("{unit} has no crossbows (10.1)"));
            }
            if u.fired {
                return skip(ev, format!("{unit} has fired already (10.1.4)"));
            }
            let Some(t) = resolve_target(s, at, &u.side) else {
                return skip(ev, format!("no enemy unit is at {at} now"));
            };
            let mut extra = 0;
            if let Some(v) = face {
                if u.facing.turns(*v) > 1 {
                    return skip(ev, "a unit with a Fire order may pivot one vertex only (5.4.2)".into());
                }
            }
            let mut probe = u.clone();
            if let Some(v) = face {
                probe.facing = *v;
            }
            let to = s.unit(&t).and_then(|x| x.at()).expect("target on the map");
            if let Err(why) = can_fire(s, &probe, to) {
                return skip(ev, why);
            }
            let range = s.grid().distance(probe.at().expect("alive"), to);
            let armour = s.unit(&t).map(|x| x.armour.clone()).unwrap_or_default();
            if s.tables.fire.need.get(&armour).and_then(|v| v.get((range - 1) as usize)).copied().unwrap_or(0) == 0 {
                return skip(
                    ev,
                    format!("the Fire Table has no fire at armour {armour} at range {range} (\"-\", 10.3)"),
                );
            }
            if let Err(why) = give(s, unit, OrderKind::Fire, dice, ev) {
                return skip(ev, why);
            }
            if let Some(v) = face {
                if *v != u.facing {
                    reaction_fire(s, unit, u.at().expect("alive"), "reaction fire at a pivot", dice, ev);
                    if !s.unit(unit).map(|x| x.alive()).unwrap_or(false) {
                        return;
                    }
                    s.unit_mut(unit).expect("unit").facing = *v;
                    extra = s.tables.fire.pivot;
                    ev.push(Event::all(format!(
                        "{unit} pivots to {} before firing (-1, 10.3.3).",
                        orders::vertex_word(*v)
                    )));
                }
            }
            fire(s, unit, &t, "fire", extra, dice, ev);
        }
        Order::Reorganize { unit } => {
            let Some(u) = s.unit(unit).cloned() else { return };
            if s.act.as_ref().map(|a| !a.general.is_empty()).unwrap_or(false) {
                return skip(ev, "Reorganization is an Individual Order only (5.4.3)".into());
            }
            if !u.disorganized {
                return skip(ev, format!("{unit} is in good order"));
            }
            if let Some(h) = u.at() {
                if s.enemy_zoc(h, &u.side, u.cavalry()) {
                    return skip(ev, format!("{unit} is in an enemy ZOC (5.4.3)"));
                }
            }
            if let Err(why) = give(s, unit, OrderKind::Reorganize, dice, ev) {
                return skip(ev, why);
            }
            if s.unit(unit).map(|u| u.ordered).unwrap_or(false) {
                s.unit_mut(unit).expect("unit").disorganized = false;
                ev.push(Event::all(format!("{unit} reorganizes and is in good order again (5.4.3).")));
            }
        }
        Order::Retreat { unit, to } => {
            let Some(u) = s.unit(unit).cloned() else { return };
            let Some(at) = u.at() else { return skip(ev, format!("{unit} has routed")) };
            let rears: Vec<Hex> = Dir::ALL
                .iter()
                .filter(|&&d| u.facing.arc(d) == Arc::Rear)
                .filter_map(|&d| s.grid().neighbour(at, d))
                .filter(|h| s.passable(*h) && s.unit_at(*h).is_none())
                .collect();
            let dest = match to {
                Some(h) => match Hex::parse(h).filter(|h| rears.contains(h)) {
                    Some(h) => h,
                    None => return skip(ev, format!("{h} is not a free rear hex of {unit} (5.4.4)")),
                },
                None => match rears.first() {
                    Some(h) => *h,
                    None => return skip(ev, format!("{unit} has no free rear hex (5.4.4)")),
                },
            };
            if let Err(why) = give(s, unit, OrderKind::Retreat, dice, ev) {
                return skip(ev, why);
            }
            exit_fire(s, unit, at, dice, ev);
            if !s.unit(unit).map(|u| u.alive()).unwrap_or(false) {
                return;
            }
            arrive(s, unit, dest, ev);
            ev.push(Event::all(format!("{unit} falls back from {at} to {dest}, keeping its facing (5.4.4).")));
            terrain_entry(s, unit, at, dest, dice, ev);
            if s.unit(unit).map(|u| u.alive()).unwrap_or(false) {
                reaction_pivots(s, unit, dice, ev);
                let side = u.side.clone();
                release_near(s, dest, &side, ev);
                entry_fire(s, unit, dest, dice, ev);
            }
        }
        Order::Echelon { unit, with, attack } => {
            let (Some(f), Some(r)) = (s.unit(unit).cloned(), s.unit(with).cloned()) else { return };
            if let Err(why) = echelon_problem(s, &f, &r) {
                return skip(ev, why);
            }
            if r.ordered {
                return skip(ev, format!("{with} has had its order in this activation (5.0.1)"));
            }
            if let Err(why) = give(s, unit, OrderKind::Echelon, dice, ev) {
                return skip(ev, why);
            }
            s.unit_mut(with).expect("unit").ordered = true;
            let (fh, rh) = (f.at().expect("alive"), r.at().expect("alive"));
            // Each unit's departure may draw fire (A34, A58).
            exit_fire(s, unit, fh, dice, ev);
            exit_fire(s, with, rh, dice, ev);
            let alive = |s: &State, n: &str| s.unit(n).map(|u| u.alive()).unwrap_or(false);
            let (f_stands, r_stands) = (alive(s, unit), alive(s, with));
            // The front unit steps out first, so the other enters a hex
            // that holds it alone.
            if f_stands {
                s.unit_mut(unit).expect("unit").hex = String::new();
            }
            if r_stands {
                arrive(s, with, fh, ev);
            }
            if f_stands {
                arrive(s, unit, rh, ev);
            }
            ev.push(Event::all(format!(
                "{unit} and {with} change places, {with} to {fh} in front, {unit} to {rh} behind (5.4.6)."
            )));
            for n in [with.as_str(), unit.as_str()] {
                if alive(s, n) {
                    let h = s.unit(n).and_then(|u| u.at()).expect("alive");
                    terrain_entry(s, n, if h == fh { rh } else { fh }, h, dice, ev);
                }
            }
            if alive(s, with) {
                stopped(s, with, 1, attack.as_deref(), false, dice, ev);
            }
            if alive(s, unit) {
                reaction_pivots(s, unit, dice, ev);
            }
        }
        Order::Rally { unit, to, echelon } => {
            let Some(u) = s.unit(unit).cloned() else { return };
            let dest = match rally_hex(s, &u, to.as_deref()) {
                Ok(h) => h,
                Err(why) => return skip(ev, why),
            };
            let kind = if *echelon { OrderKind::Echelon } else { OrderKind::Retreat };
            if let Err(why) = give(s, unit, kind, dice, ev) {
                return skip(ev, why);
            }
            let at = u.at().expect("alive");
            exit_fire(s, unit, at, dice, ev);
            if !s.unit(unit).map(|x| x.alive()).unwrap_or(false) {
                return;
            }
            arrive(s, unit, dest, ev);
            s.unit_mut(unit).expect("unit").disorganized = false;
            ev.push(Event::all(format!(
                "{unit} rides back from {at} to its rally point, {dest}{} (14.4, 14.4.1).",
                if u.disorganized { ", and is in good order again (14.4.2)" } else { "" }
            )));
        }
        Order::Captain { path } => {
            let Some(battle) = s.act.as_ref().map(|a| a.battle.clone()) else { return };
            leader_walk(s, &battle, None, path, o, ev);
        }
        Order::Standard { path } => standard_walk(s, path, o, ev),
        Order::Leader { leader, path } => {
            let Some(battle) = s.act.as_ref().map(|a| a.battle.clone()) else { return };
            leader_walk(s, &battle, Some(leader), path, o, ev);
        }
        Order::Combat { target, lead, advance, keep, losses } => {
            if let Some(a) = s.act.as_mut() {
                a.combats.push(Combat {
                    target: target.clone(),
                    lead: lead.clone().unwrap_or_default(),
                    advance: *advance,
                    keep: keep.clone().unwrap_or_default(),
                    losses: losses.clone(),
                });
            }
        }
        Order::General { .. } => skip(ev, "a General Order opens an activation's plan (4.0)".into()),
        _ => {}
    }
}

/// Why `f` may not swap with `r` by an Echeloned order (5.4.6, A34).
pub fn echelon_problem(s: &State, f: &Unit, r: &Unit) -> Result<(), String> {
    if !f.cavalry() || !r.cavalry() {
        return Err("an Echeloned order is for cavalry only (5.4.6, 12.0)".into());
    }
    if f.battle != r.battle {
        return Err(format!("{} is not of {}'s Battle (5.4.6)", r.name, f.battle));
    }
    if f.squad != r.squad {
        return Err(format!(
            "{} is of another squad: a squad's units take orders from its own Squad Leader (14.2.2)",
            r.name
        ));
    }
    if f.facing != r.facing {
        return Err(format!("{} and {} do not face the same way (5.4.6)", f.name, r.name));
    }
    let (Some(fh), Some(rh)) = (f.at(), r.at()) else { return Err("a unit has routed".into()) };
    if let Some(k) = s.hexside(fh, rh).filter(|_| s.step(fh, rh, true).is_none()) {
        return Err(format!("cavalry may not change places across the {} between {fh} and {rh} (S4.7.4)", k.name));
    }
    if s.arc_of(f, rh) != Some(Arc::Rear) {
        return Err(format!("{} in {rh} is not in a rear hex of {} (5.4.6)", r.name, f.name));
    }
    if s.adjacent_enemy(rh, &r.side) {
        return Err(format!("{} stands beside an enemy unit (5.4.6)", r.name));
    }
    if !in_command(s, &r.battle, &r.squad).contains(&r.name) {
        return Err(format!("{} is out of command and cannot receive the order (5.4.6)", r.name));
    }
    let _ = fh;
    Ok(())
}

/// Where a School cavalry unit going to its rally point is placed (14.3,
/// 14.4, 14.4.1): the rally hex if free, else a free neighbour not in an
/// enemy ZOC, the first clockwise from north; `to` picks one of these.
pub fn rally_hex(s: &State, u: &Unit, to: Option<&str>) -> Result<Hex, String> {
    let b = s.battle(&u.battle).ok_or("no Battle")?;
    if !b.school || !u.cavalry() {
        return Err(format!("only the cavalry of a Braccesca School Battle rallies (14.3, A18); {} cannot", u.name));
    }
    let Some(point) = Hex::parse(&b.rally) else {
        return Err(format!("{}'s Battle has lost its rally point (S2.5)", b.name));
    };
    let at = u.at().ok_or("it has routed")?;
    let g = s.grid();
    let shut = |h: Hex| !s.passable(h) || s.unit_at(h).map(|x| x.side != u.side).unwrap_or(false);
    if g.neighbours(at).len() == 6 && g.neighbours(at).into_iter().all(shut) {
        return Err(format!("{} is completely surrounded (14.4)", u.name));
    }
    let free = |h: Hex| s.passable(h) && s.unit_at(h).map(|x| x.name == u.name).unwrap_or(true);
    // A rally point that is a place is every hex of it (Bazzano, S4.5).
    let points: Vec<Hex> = s
        .map
        .place
        .iter()
        .find(|p| !s.rally_standards && p.hexes.contains(&b.rally))
        .map(|p| p.hexes.iter().filter_map(|h| Hex::parse(h)).collect())
        .unwrap_or_else(|| vec![point]);
    let mut allowed: Vec<Hex> = points.iter().copied().filter(|h| free(*h)).collect();
    for p in &points {
        for h in g.neighbours(*p) {
            if !points.contains(&h) && !allowed.contains(&h) && free(h) && !s.enemy_zoc(h, &u.side, true) {
                allowed.push(h);
            }
        }
    }
    match to {
        Some(t) => {
            let h = Hex::parse(t).ok_or("not a hex")?;
            allowed.contains(&h).then_some(h).ok_or_else(|| {
                let v: Vec<String> = allowed.iter().map(|x| x.to_string()).collect();
                format!(
                    "{h} is not a free hex at the rally point {point} out of enemy ZOC (14.4.1); free: {}",
                    v.join(", ")
                )
            })
        }
        None => allowed
            .first()
            .copied()
            .ok_or_else(|| format!("the rally point {point} and its neighbours are all taken (14.4.1)")),
    }
}

/// Why this cavalry unit may not take a Carica! now (12.1, 12.1.1,
/// 12.1.2).
pub fn may_charge(s: &State, u: &Unit) -> Result<(), String> {
    if !u.cavalry() || u.armour_rank() < 1 {
        return Err(format!(
            "{} is {} armour {}; only M or H cavalry may charge (12.1)",
            u.name,
            u.kind.name(),
            u.armour
        ));
    }
    if u.disorganized {
        return Err(format!("{} is Disorganized and cannot charge (12.1.1)", u.name));
    }
    if u.at().map(|h| s.adjacent_enemy(h, &u.side)).unwrap_or(false) {
        return Err(format!("{} is beside an enemy unit: no Carica! (12.1.2)", u.name));
    }
    Ok(())
}

fn u_battle(s: &State, unit: &str) -> String {
    s.unit(unit).map(|u| u.battle.clone()).unwrap_or_default()
}
fn u_squad(s: &State, unit: &str) -> String {
    s.unit(unit).map(|u| u.squad.clone()).unwrap_or_default()
}

/// How a move is limited: a Carica! (and its target's hex, beside which
/// the charger may not pivot, 12.1), or a unit out of command (never
/// beside an enemy, 5.1.3).
struct Walk {
    charge: Option<Option<Hex>>,
    out_of_command: bool,
}

/// A unit's path: pivots and hexes, as far as the rules let it go; the
/// hexes actually entered.
fn walk(s: &mut State, unit: &str, path: &[Step], how: Walk, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> i32 {
    let charge = how.charge.is_some();
    let Some(u0) = s.unit(unit).cloned() else { return 0 };
    let mut mp = allowance(s, &u0);
    let mut entered = 0;
    let start = u0.at().expect("alive");
    let in_zoc_at_start = s.enemy_zoc(start, &u0.side, u0.cavalry());
    let adjacent_at_start = s.adjacent_enemy(start, &u0.side);
    let mut trail = vec![start.to_string()];
    let mut pivoted = 0;
    let moves = path.iter().any(|x| matches!(x, Step::Hex(_)));
    for (i, st) in path.iter().enumerate() {
        let u = s.unit(unit).cloned().expect("unit");
        if !u.alive() {
            return entered;
        }
        let at = u.at().expect("alive");
        let rest = || {
            path[i..]
                .iter()
                .map(|x| match x {
                    Step::Hex(h) => h.clone(),
                    Step::Face(v) => format!("FACE {}", orders::vertex_word(*v)),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        match st {
            Step::Face(v) => {
                let n = u.facing.turns(*v);
                if n == 0 {
                    continue;
                }
                if s.enemy_zoc(at, &u.side, u.cavalry()) {
                    ev.push(Event::all(format!(
                        "{unit} is in an enemy ZOC and cannot pivot (6.1.1); {} dropped.",
                        rest()
                    )));
                    break;
                }
                if s.unit_at(at).map(|x| x.name != unit).unwrap_or(false) {
                    ev.push(Event::all(format!(
                        "{unit} cannot pivot inside a friendly unit's hex (6.1.2); {} dropped.",
                        rest()
                    )));
                    break;
                }
                if let Some(Some(t)) = how.charge {
                    if s.grid().distance(at, t) == 1 {
                        ev.push(Event::all(format!(
                            "{unit} charges and may not pivot beside its target (12.1); {} dropped.",
                            rest()
                        )));
                        break;
                    }
                }
                if !moves && adjacent_at_start && !in_zoc_at_start && pivoted + n > 1 {
                    ev.push(Event::all(format!(
                        "{unit} began beside the enemy: one vertex only (5.4.1); {} dropped.",
                        rest()
                    )));
                    break;
                }
                let cost = if u.cavalry() { 1 } else { n };
                if cost > mp {
                    ev.push(Event::all(format!(
                        "{unit} has {mp} MP left, the pivot costs {cost} (6.1); {} dropped.",
                        rest()
                    )));
                    break;
                }
                // 10.4.2: a unit that only turns in a crossbow's front
                // hex draws its fire too.
                reaction_fire(s, unit, at, "reaction fire at a pivot", dice, ev);
                if !s.unit(unit).map(|x| x.alive()).unwrap_or(false) {
                    return entered;
                }
                mp -= cost;
                pivoted += n;
                s.unit_mut(unit).expect("unit").facing = *v;
                trail.push(format!("FACE {}", orders::vertex_word(*v)));
            }
            Step::Hex(h) => {
                let to = Hex::parse(h).expect("parsed hex");
                if entered == 0 && in_zoc_at_start {
                    ev.push(Event::all(format!(
                        "{unit} begins in an enemy ZOC and may leave it only by a Retreat order (7.2); {} dropped.",
                        rest()
                    )));
                    break;
                }
                let cost = match step_cost(s, &u, at, to) {
                    Ok(c) => c,
                    Err(why) => {
                        ev.push(Event::all(format!("{unit}: {why}; {} dropped.", rest())));
                        break;
                    }
                };
                if cost > mp {
                    ev.push(Event::all(format!(
                        "{unit} has {mp} MP left and {to} costs {cost} (8.2.2); {} dropped.",
                        rest()
                    )));
                    break;
                }
                if how.out_of_command && s.adjacent_enemy(to, &u.side) {
                    ev.push(Event::all(format!(
                        "{unit} is out of command and may not move beside an enemy unit (5.1.3); {} dropped.",
                        rest()
                    )));
                    break;
                }
                // Leaving a crossbow's front hex draws its fire (10.4.2,
                // 7.2.1): a cavalry unit passing through one (A40), or
                // one that began there.
                exit_fire(s, unit, at, dice, ev);
                if !s.unit(unit).map(|x| x.alive()).unwrap_or(false) {
                    return entered;
                }
                mp -= cost;
                arrive(s, unit, to, ev);
                entered += 1;
                trail.push(to.to_string());
                if terrain_entry(s, unit, at, to, dice, ev) && charge {
                    lose_carica(s, unit, ev);
                }
                if !s.unit(unit).map(|x| x.alive()).unwrap_or(false) {
                    return entered;
                }
                let u = s.unit(unit).cloned().expect("unit");
                if s.enemy_zoc(to, &u.side, u.cavalry()) && i + 1 < path.len() {
                    let left: Vec<String> = path[i + 1..]
                        .iter()
                        .map(|x| match x {
                            Step::Hex(h) => h.clone(),
                            Step::Face(v) => format!("FACE {}", orders::vertex_word(*v)),
                        })
                        .collect();
                    ev.push(Event::all(format!(
                        "{unit} enters an enemy ZOC at {to} and stops (7.1); {} dropped.",
                        left.join(" ")
                    )));
                    break;
                }
            }
        }
    }
    // A friendly unit's hex is passed through, never ended in (8.3.2):
    // stop at the last hex with no other unit.
    let here = s.unit(unit).and_then(|u| u.at());
    if let Some(h) = here {
        if s.units.iter().any(|x| x.name != unit && x.hex == h.to_string()) {
            let back = trail.iter().rev().filter_map(|t| Hex::parse(t)).find(|x| s.unit_at(*x).is_none());
            let back = back.unwrap_or(start);
            ev.push(Event::all(format!("{unit} may not end in a friendly unit's hex (8.3.2): it stops at {back}.")));
            s.unit_mut(unit).expect("unit").hex = back.to_string();
        }
    }
    if path.is_empty() {
        ev.push(Event::all(format!("{unit} stands in {start}.")));
    } else {
        let end = s.unit(unit).map(|u| u.hex.clone()).unwrap_or_default();
        ev.push(Event::all(format!("{unit} moves {} and ends in {end}.", trail.join(" "))));
    }
    entered
}

/// What happens when an ordered unit stops (4.0 s4.b-f): reaction pivots,
/// the declared attack, charge morale, Reaction Fire on entry,
/// Countercharge.
fn stopped(
    s: &mut State,
    unit: &str,
    entered: i32,
    attack: Option<&str>,
    charge: bool,
    dice: &mut dyn Dice,
    ev: &mut Vec<Event>,
) {
    let Some(u) = s.unit(unit).cloned() else { return };
    let Some(at) = u.at() else { return };
    if entered > 0 {
        reaction_pivots(s, unit, dice, ev);
        release_near(s, at, &u.side, ev);
    }
    // 4.c: the attack named, if its target is in a front hex now.
    let mut target = None;
    if let Some(t) = attack {
        match resolve_target(s, t, &u.side) {
            None => ev.push(Event::all(format!("{unit}: no enemy unit at {t} to attack; no Attack marker."))),
            Some(name) => {
                let th = s.unit(&name).and_then(|x| x.at()).expect("alive");
                if !s.front_hexes(&u).contains(&th) {
                    ev.push(Event::all(format!(
                        "{unit}: {name} in {th} is not in its front hexes; no Attack marker (6.0.2)."
                    )));
                } else if charge && s.unit(unit).map(|x| x.disorganized).unwrap_or(false) {
                    ev.push(Event::all(format!(
                        "{unit} was Disorganized on its way: no Carica!, an Attack instead (12.1.1)."
                    )));
                    target = Some((name, false));
                } else if charge && entered == 0 {
                    ev.push(Event::all(format!("{unit} did not move a hex: no Carica!, an Attack instead (5.4.5).")));
                    target = Some((name, false));
                } else if charge && !carica_terrain(s, at, th) {
                    ev.push(Event::all(format!(
                        "The terrain forbids a Carica! there: {unit} attacks without it (12.1)."
                    )));
                    target = Some((name, false));
                } else {
                    target = Some((name, charge));
                }
            }
        }
    }
    let Some((tname, carica)) = target else {
        if entered > 0 {
            entry_fire(s, unit, at, dice, ev);
        }
        return;
    };
    if let Some(a) = s.act.as_mut() {
        a.attacks.push((unit.to_string(), tname.clone()));
        if carica {
            a.carica.push(unit.to_string());
        }
    }
    ev.push(Event::all(format!("{unit} {} {tname}.", if carica { "charges (Carica!)" } else { "will attack" })));
    // 4.d, 12.1.4: the charged foot's morale, before any fire.
    let t = s.unit(&tname).cloned().expect("target");
    if carica && !t.cavalry() {
        if t.militia {
            ev.push(Event::all(format!("{tname} is militia charged by cavalry: Disorganized (12.1.4).")));
            disorganize(s, &tname, false, dice, ev);
            // "If this Disorganization routs the unit, the charging
            // cavalry must advance" (12.1.4).
            if !s.unit(&tname).map(|x| x.alive()).unwrap_or(false) {
                if let Some(th) = t.at() {
                    super::melee::advance(s, unit, th, None, dice, ev);
                }
                return;
            }
        } else if t.armour_rank() < u.armour_rank() {
            let (roll, said) = morale(s, &t, "charge morale", dice);
            ev.push(Event::all(format!(
                "Charge morale for {tname} (armour {} against {}): {said} against quality {}: {} (12.1.4).",
                t.armour,
                u.armour,
                t.q(),
                if roll > t.q() { "Disorganized" } else { "it holds" }
            )));
            if roll > t.q() {
                disorganize(s, &tname, false, dice, ev);
            }
        }
    }
    // 4.e: Reaction Fire on entry, at a unit that ended a move here.
    if entered > 0 {
        entry_fire(s, unit, at, dice, ev);
    }
    // 4.f: Countercharge (12.2).
    let t = s.unit(&tname).cloned().expect("target");
    let still_carica = s.act.as_ref().map(|a| a.carica.iter().any(|c| c == unit)).unwrap_or(false);
    if still_carica && t.alive() && t.cavalry() && t.armour_rank() >= 1 && !t.disorganized && !t.countered {
        let from_front = s.front_hexes(&t).contains(&at);
        let policy = s.policies.get(&t.side).cloned().unwrap_or_default();
        let go = match policy.counter.as_str() {
            "always" => true,
            "never" => false,
            _ => t.q() >= policy.counter_min,
        };
        if from_front && go {
            s.unit_mut(&tname).expect("unit").countered = true;
            let (roll, said) = morale(s, &t, "countercharge", dice);
            if roll <= t.q() {
                ev.push(Event::all(format!(
                    "{tname} countercharges: {said} against quality {}: {unit}'s Carica! becomes an Attack (12.2.1).",
                    t.q()
                )));
                if let Some(a) = s.act.as_mut() {
                    a.carica.retain(|c| c != unit);
                }
            } else {
                ev.push(Event::all(format!(
                    "{tname} countercharges: {said} against quality {}: it fails (12.2.1).",
                    t.q()
                )));
                disorganize(s, &tname, false, dice, ev);
            }
        }
    }
}

/// The TEC's Carica! column for both hexes and the hexside between (12.1).
fn carica_terrain(s: &State, a: Hex, b: Hex) -> bool {
    [a, b].iter().all(|h| s.terrain_at(*h).map(|t| t.carica).unwrap_or(false))
        && s.hexside(a, b).map(|k| k.carica).unwrap_or(true)
}

/// A Captain's or Squad Leader's one move (13.1, 13.1.1, 13.1.2).
fn leader_walk(
    s: &mut State,
    battle: &str,
    squad_leader: Option<&str>,
    path: &[String],
    o: &Order,
    ev: &mut Vec<Event>,
) {
    let Some(b) = s.battle(battle).cloned() else { return };
    let who = match squad_leader {
        None => b.captain.clone(),
        Some(n) => match b.squads.iter().find(|q| q.leader.name == n) {
            Some(q) => q.leader.clone(),
            None => {
                return ev.push(Event::all(format!("{o}: skipped, {n} is not a Squad Leader of {battle}'s Battle.")))
            }
        },
    };
    if who.moved {
        return ev.push(Event::all(format!("{o}: skipped, {} has moved in this activation (13.1).", who.name)));
    }
    let Some(mut at) = Hex::parse(&who.hex) else {
        return ev.push(Event::all(format!("{o}: skipped, {} is not on the map.", who.name)));
    };
    let mut mp = s.tables.movement.captain;
    let mut trail = vec![at.to_string()];
    for h in path {
        let to = Hex::parse(h).expect("parsed hex");
        if let Some(why) = piece_step(s, &b.side, at, to, &mut mp, true) {
            ev.push(Event::all(format!("{}: {why}; the rest of the move is dropped.", who.name)));
            break;
        }
        at = to;
        trail.push(at.to_string());
    }
    let b = s.battle_mut(battle).expect("battle");
    let l = match squad_leader {
        None => &mut b.captain,
        Some(n) => &mut b.squads.iter_mut().find(|q| q.leader.name == n).expect("squad").leader,
    };
    l.hex = at.to_string();
    l.moved = true;
    ev.push(Event::all(format!("{} moves {}.", l.name, trail.join(" "))));
}

/// Why a Captain (`captain`: 13.1.1, 13.1.2) or a standard (16.2.3) may
/// not step from `at` into `to`; else its cost is taken from `mp`.
fn piece_step(s: &State, side: &str, at: Hex, to: Hex, mp: &mut i32, captain: bool) -> Option<String> {
    if s.grid().direction(at, to).is_none() {
        return Some(format!("{to} is not beside {at}"));
    }
    if let Some(e) = s.unit_at(to).filter(|u| u.side != side) {
        return Some(format!("{to} holds the enemy {}{}", e.name, if captain { " (13.1.1)" } else { "" }));
    }
    if captain && s.enemy_zoc(to, side, true) && s.unit_at(to).is_none() {
        return Some(format!("{to} is in an enemy cavalry ZOC with no friendly unit there (13.1.2)"));
    }
    match s.step(at, to, true) {
        None => Some(format!("{to} is impassable from {at}")),
        Some(c) if c > *mp => Some(format!("{mp} MP left, {to} costs {c}")),
        Some(c) => {
            *mp -= c;
            None
        }
    }
}

/// The active Battle's standard moved by a Move Order (16.2.3): 1 OP, its
/// movement points over the terrain as a Captain's, never into an enemy,
/// ending stacked with a unit of its Battle, which carries it on (16.2.1);
/// a move that cannot end so is skipped, its OP not spent.
fn standard_walk(s: &mut State, path: &[String], o: &Order, ev: &mut Vec<Event>) {
    let Some(battle) = s.act.as_ref().map(|a| a.battle.clone()) else { return };
    let skip = |ev: &mut Vec<Event>, why: String| ev.push(Event::all(format!("{o}: skipped, {why}.")));
    let Some(k) = s.standards.iter().position(|x| x.battle == battle && !x.captured) else {
        return skip(ev, format!("{battle}'s Battle has no standard"));
    };
    if s.act.as_ref().map(|a| a.standard_moved).unwrap_or(false) {
        return skip(ev, "the standard has had its Move Order in this activation (5.0.1)".into());
    }
    if s.op < 1 {
        return skip(ev, "1 OP needed, 0 left (5.3.1)".into());
    }
    let side = s.standards[k].side.clone();
    let Some(mut at) = s.unit(&s.standards[k].carrier).and_then(|u| u.at()) else { return };
    let mut mp = s.tables.movement.standard;
    for h in path {
        let to = Hex::parse(h).expect("parsed hex");
        if let Some(why) = piece_step(s, &side, at, to, &mut mp, false) {
            return skip(ev, why);
        }
        at = to;
    }
    let Some(carrier) = s.unit_at(at).filter(|u| u.battle == battle).map(|u| u.name.clone()) else {
        return skip(ev, format!("it must end stacked with a unit of {battle}'s Battle (16.2.1)"));
    };
    s.op -= 1;
    if let Some(a) = s.act.as_mut() {
        a.standard_moved = true;
    }
    s.standards[k].carrier = carrier.clone();
    s.marks.push(at.to_string());
    ev.push(Event::all(format!(
        "{battle}'s standard: MOVE order, 1 OP; {} OP left. It moves to {at}, with {carrier} (16.2.3).",
        s.op
    )));
}

/// Would `u` be in command standing in `h` (5.1, 5.1.2)? Within its
/// commander's radius by a path clear of enemy units, or beside a unit of
/// its Battle (squad) that is in command.
pub fn in_command_at(s: &State, u: &Unit, h: Hex) -> bool {
    let Some(l) = s.commander_of(u).and_then(|l| Hex::parse(&l.hex)).zip(s.commander_of(u).map(|l| l.radius)) else {
        return false;
    };
    let (at, radius) = l;
    let enemy = |x: Hex| s.unit_at(x).map(|e| e.side != u.side).unwrap_or(false);
    let r = s.grid().reach(h, radius.max(0) as u32, |_, n| (!enemy(n)).then_some(1), |_| false);
    if r.contains_key(&at) {
        return true;
    }
    let ok = in_command(s, &u.battle, &u.squad);
    s.grid()
        .neighbours(h)
        .iter()
        .any(|n| s.unit_at(*n).map(|x| x.name != u.name && ok.contains(&x.name)).unwrap_or(false))
}

/// Every hex `u` could end a Move order in from where it stands: pivots
/// and front-hex steps within its allowance, stopping in enemy ZOCs, never
/// ending on another unit; `no_enemy_beside` for a unit out of command
/// (5.1.3).
pub fn reachable(s: &State, u: &Unit, no_enemy_beside: bool) -> BTreeSet<Hex> {
    let mut out = BTreeSet::new();
    let Some(start) = u.at() else { return out };
    let g = s.grid();
    let in_zoc = |h: Hex| s.enemy_zoc(h, &u.side, u.cavalry());
    let mut best: std::collections::BTreeMap<(Hex, usize), i32> = std::collections::BTreeMap::new();
    let mut queue = vec![(start, u.facing, allowance(s, u))];
    while let Some((h, v, mp)) = queue.pop() {
        if best.get(&(h, v as usize)).map(|m| *m >= mp).unwrap_or(false) {
            continue;
        }
        best.insert((h, v as usize), mp);
        if s.unit_at(h).map(|x| x.name == u.name).unwrap_or(true) {
            out.insert(h);
        }
        if h != start && in_zoc(h) {
            continue;
        }
        if !in_zoc(h) && s.unit_at(h).map(|x| x.name == u.name).unwrap_or(true) {
            for w in Vertex::ALL.into_iter().filter(|w| *w != v) {
                let cost = if u.cavalry() { 1 } else { v.turns(w) };
                if cost <= mp {
                    queue.push((h, w, mp - cost));
                }
            }
        }
        if h == start && in_zoc(start) {
            continue;
        }
        let mut probe = u.clone();
        probe.facing = v;
        for d in v.front() {
            let Some(n) = g.neighbour(h, d) else { continue };
            if no_enemy_beside && s.adjacent_enemy(n, &u.side) {
                continue;
            }
            if let Ok(c) = step_cost(s, &probe, h, n) {
                if c <= mp {
                    queue.push((n, v, mp - c));
                }
            }
        }
    }
    out
}
