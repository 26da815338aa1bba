//! A Battle Turn (rulebook: Commands, Movement and Combat Activation,
//! Flank Attacks, Time and Doubling): the time roll when deployment ends,
//! then each turn's Retreat, Doubling and Commands in the printed order.

use super::defeat::end;
use super::*;

/// Deployment is over: annihilation, or the Time disc and the first turn.
pub(super) fn fight(s: &mut State, dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    let (att, def) = {
        let b = battle(s);
        (b.attacker.clone(), other(&b.attacker).to_string())
    };
    for side in [&def, &att] {
        if battle(s).units_of(side) == 0 {
            ev.push(Event::all(format!("{} has no units on the Battle Display: annihilated.", side_name(side))));
            ev.extend(end(s, side, true));
            return ev;
        }
    }
    // How long the battle lasts is good or bad for neither side as such.
    let d = dice.roll_n(
        &StreamId::Public,
        2,
        6,
        &format!("time roll, {} (attacker)", side_name(&att)),
        &Serves::neither(&att),
    );
    let (d1, d2) = (d[0], d[1]);
    let total = d1 + d2;
    let track = &DISPLAY.time_track;
    let idx = track.iter().rposition(|&v| v <= total);
    let b = battle_mut(s);
    b.time = idx;
    b.time_set = true;
    b.stage = Stage::Turn;
    b.side = att.clone();
    b.turns = 1;
    for w in &mut b.wings {
        w.acted = false;
    }
    ev.push(Event::all(match idx {
        Some(i) => format!(
            "Time roll {d1}+{d2} = {total}: the Time disc goes on space {}. {} has the first Battle Turn.",
            track[i],
            side_name(&att)
        ),
        None => format!("Time roll {d1}+{d2} = {total}: below the Time track; Retreat and Doubling are open at once."),
    }));
    ev
}

/// A Battle Turn: Retreat, Doubling, or Commands; then the Time disc.
pub(super) fn battle_turn(s: &mut State, side: &str, orders: &[Order], dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    match orders.first() {
        Some(Order::Retreat) => {
            ev.push(Event::all(format!("{} Orders a Retreat.", side_name(side))));
            ev.extend(end(s, side, false));
            return ev;
        }
        Some(Order::Double) => {
            let b = battle_mut(s);
            b.held = orders[1..].to_vec();
            b.stage = Stage::Doubled;
            b.side = other(side).to_string();
            ev.push(Event::all(format!(
                "{} offers the Doubling Cube: stakes {} if accepted.",
                side_name(side),
                b.stakes * 2
            )));
            return ev;
        }
        _ => {}
    }
    ev.extend(commands(s, side, orders, dice));
    ev
}

/// Commands left when the battle is decided: told, not dropped unseen.
pub(super) fn not_carried_out(rest: &[Order]) -> Vec<Event> {
    rest.iter().map(|o| Event::all(format!("{o}: the battle is over; not carried out."))).collect()
}

/// Carry out Commands in order, skipping (and telling) any that the fight
/// made impossible; then end the Battle Turn.
pub(super) fn commands(s: &mut State, side: &str, orders: &[Order], dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    let mut left = battle(s).commands.get(side).copied().unwrap_or(DISPLAY.commands) as i32;
    for (k, o) in orders.iter().enumerate() {
        if s.battle.as_ref().map(|b| b.winner.is_some()).unwrap_or(true) {
            ev.extend(not_carried_out(&orders[k..]));
            return ev;
        }
        let b = battle_mut(s);
        let sp = match o {
            Order::Advance { space, .. } | Order::Wheel { space, .. } | Order::Strike { space } => space.clone(),
            _ => continue,
        };
        let (c, r) = parse_space(&sp).expect("canonical");
        let Some(w) = b.wing_at(c, r).filter(|&j| b.wings[j].side == side && !b.wings[j].acted) else {
            ev.push(Event::all(format!(
                "{}: no Wing of {} able to act in {sp} any more; skipped.",
                o,
                side_name(side)
            )));
            continue;
        };
        match o {
            Order::Advance { .. } | Order::Wheel { .. } => {
                if b.engaged(w).is_some() || left < 1 {
                    ev.push(Event::all(format!("{o}: the Wing is Engaged or no Command is left; skipped.")));
                    continue;
                }
                if let Order::Advance { .. } = o {
                    match b.ahead(w).filter(|&(c2, r2)| b.wing_at(c2, r2).is_none()) {
                        Some((c2, r2)) => {
                            b.wings[w].col = c2;
                            b.wings[w].row = r2;
                        }
                        None => {
                            ev.push(Event::all(format!("{o}: the space ahead is not vacant; skipped.")));
                            continue;
                        }
                    }
                }
                let t = match o {
                    Order::Advance { turn, .. } => *turn,
                    Order::Wheel { turn, .. } => Some(*turn),
                    _ => None,
                };
                let mut flipped = String::new();
                if let Some(t) = t {
                    b.wings[w].facing = quarter(b.wings[w].facing, t);
                    if let Some(u) = b.wings[w].units.first_mut() {
                        if !u.up {
                            u.up = true;
                            flipped = format!("; its front unit is flipped: {}", shown(&u.id));
                        }
                    }
                }
                b.wings[w].acted = true;
                left -= 1;
                let wing = &b.wings[w];
                ev.push(Event::all(format!(
                    "{}: the Wing moves to {}, facing {}{flipped}.",
                    o,
                    space_name(wing.col, wing.row),
                    wing.facing.arrow()
                )));
            }
            Order::Strike { .. } => {
                let Some(t) = b.faced(w) else {
                    ev.push(Event::all(format!("{o}: no enemy Wing in front any more; skipped.")));
                    continue;
                };
                let flank = b.engaged(w).is_none();
                let n = b.wings[w].units.len() as i32;
                let cost = if flank { 1 } else { n };
                if cost > left {
                    ev.push(Event::all(format!("{o}: {cost} Command(s) needed, {left} left; skipped.")));
                    continue;
                }
                left -= cost;
                b.wings[w].acted = true;
                let tname = space_name(b.wings[t].col, b.wings[t].row);
                let label = format!("combat roll, {} Wing {sp} against {tname}", side_name(side));
                let d = dice.roll_n(&StreamId::Public, 2, 6, &label, &Serves::high(side));
                let (d1, d2) = (d[0], d[1]);
                let total = (d1 + d2) as i32 + n;
                let b = battle_mut(s);
                let enemy = b.wings[t].side.clone();
                let mut text = format!(
                    "{} {}Attack from {sp} on {tname}: {d1}+{d2}+{n} = {total}",
                    side_name(side),
                    if flank { "Flank " } else { "" }
                );
                if !flank && d1 == d2 {
                    // Repulsed: the attacker's front unit Breaks, unless Level 4.
                    let Some(u) = b.wings[w].units.first().cloned() else { continue };
                    b.wings[w].units[0].up = true;
                    if counter(&u.id).map(|c| c.level >= 4).unwrap_or(false) {
                        text.push_str(&format!(
                            "; doubles: Repulsed, but the front unit {} is Level 4 and holds.",
                            shown(&u.id)
                        ));
                    } else {
                        b.wings[w].units.remove(0);
                        b.broken.entry(side.to_string()).or_default().push(u.id.clone());
                        text.push_str(&format!("; doubles: Repulsed, and the front unit, {}, Breaks.", shown(&u.id)));
                    }
                } else if flank {
                    let mut broke = Vec::new();
                    for u in b.wings[t].units.iter_mut() {
                        u.up = true;
                    }
                    let units = std::mem::take(&mut b.wings[t].units);
                    for u in units {
                        let mv = counter(&u.id).map(|c| c.mv as i32).unwrap_or(99);
                        if mv < total {
                            broke.push(shown(&u.id));
                            b.broken.entry(enemy.clone()).or_default().push(u.id);
                        } else {
                            b.wings[t].units.push(u);
                        }
                    }
                    text.push_str(&format!(
                        "{}; compared with every unit: {}.",
                        if d1 == d2 { " (doubles: a Flank Attack is never Repulsed)" } else { "" },
                        if broke.is_empty() {
                            "none Breaks".to_string()
                        } else {
                            format!("{} Break", broke.join(", "))
                        }
                    ));
                } else {
                    let mut broke = Vec::new();
                    while let Some(u) = b.wings[t].units.first_mut() {
                        u.up = true;
                        let mv = counter(&u.id).map(|c| c.mv as i32).unwrap_or(99);
                        if total > mv {
                            let u = b.wings[t].units.remove(0);
                            broke.push(shown(&u.id));
                            b.broken.entry(enemy.clone()).or_default().push(u.id);
                        } else {
                            text.push_str(&format!("; {} holds", shown(&u.id)));
                            break;
                        }
                    }
                    text.push_str(&if broke.is_empty() {
                        ".".to_string()
                    } else {
                        format!("; Broken: {}.", broke.join(", "))
                    });
                }
                b.wings.retain(|x| !x.units.is_empty());
                ev.push(Event::all(text));
                for x in [side.to_string(), enemy] {
                    if battle(s).units_of(&x) == 0 {
                        ev.push(Event::all(format!("Every unit of {} is Broken: annihilated.", side_name(&x))));
                        ev.extend(end(s, &x, true));
                        ev.extend(not_carried_out(&orders[k + 1..]));
                        return ev;
                    }
                }
            }
            _ => {}
        }
    }
    ev.extend(end_turn(s, side));
    ev
}

/// After a Battle Turn: the Time disc moves down after each of the
/// attacker's turns; the other side plays next.
pub(super) fn end_turn(s: &mut State, side: &str) -> Vec<Event> {
    let mut ev = Vec::new();
    let b = battle_mut(s);
    if side == b.attacker {
        match b.time {
            Some(0) => {
                b.time = None;
                ev.push(Event::all("The Time disc leaves the track: from now on a player may Order a Retreat or use the Doubling Cube before their Commands."));
            }
            Some(i) => {
                b.time = Some(i - 1);
                ev.push(Event::all(format!("The Time disc moves down to {}.", DISPLAY.time_track[i - 1])));
            }
            None => {}
        }
    }
    b.stage = Stage::Turn;
    b.side = other(side).to_string();
    b.turns += 1;
    for w in &mut b.wings {
        w.acted = false;
    }
    ev
}
