//! The free set-up of Sant'Egidio (option `+free`, S3): the Captains
//! placed one at a time, the Malatestan first, alternately (S3.1); then the
//! Malatestan units within their Captains' radius; then the Braccesca
//! Squad Leaders and rally points within their Captains' radius and the
//! units within their Squad Leaders' (S3.1.1). No unit in an enemy unit's
//! ZOC (reading A42). Every Malatestan Battle begins released (S3.3), the
//! Braccesca player opens with the Battle he chooses and cannot pass
//! (S3.2), and the VP per VL are 4 and 4 (S3.4.1). A silent player's
//! pieces go to their historical hexes where those are legal, else to the
//! nearest legal hex.

use super::*;
use std::collections::BTreeSet;

/// `first` for an opening of the player's choice that cannot pass (S3.2).
pub const ANY: &str = "any";

/// Record every piece's historical place and clear the map.
pub fn begin(s: &mut State) {
    let mut home = BTreeMap::new();
    for b in s.battles.iter_mut().filter(|b| !b.off_map) {
        home.insert(format!("captain:{}", b.name), std::mem::take(&mut b.captain.hex));
        for q in b.squads.iter_mut() {
            home.insert(format!("leader:{}", q.leader.name), std::mem::take(&mut q.leader.hex));
        }
        if !b.rally.is_empty() {
            home.insert(format!("rally:{}", b.name), std::mem::take(&mut b.rally));
        }
        if b.side != BRACCIO {
            b.released = true;
        }
    }
    let off: BTreeSet<String> = s.battles.iter().filter(|b| b.off_map).map(|b| b.name.clone()).collect();
    for u in s.units.iter_mut().filter(|u| !off.contains(&u.battle)) {
        let facing = orders::vertex_word(u.facing);
        home.insert(format!("unit:{}", u.name), format!("{} {facing}", std::mem::take(&mut u.hex)));
    }
    s.home = home;
    s.first = ANY.into();
    s.pending = Pending::Setup { role: s.other(BRACCIO).into(), what: "captain".into() };
}

fn unplaced_captains<'a>(s: &'a State, role: &'a str) -> impl Iterator<Item = &'a Battle> + 'a {
    s.battles.iter().filter(move |b| b.side == role && !b.off_map && !b.removed && b.captain.hex.is_empty())
}

/// The hex a leader's radius is counted from, if placed (in this mail:
/// `also`).
fn placed_at(s: &State, also: &BTreeMap<String, Hex>, name: &str) -> Option<Hex> {
    also.get(name).copied().or_else(|| {
        let b = s.battle_of_leader(name)?;
        let l =
            if b.captain.name == name { &b.captain } else { &b.squads.iter().find(|q| q.leader.name == name)?.leader };
        Hex::parse(&l.hex)
    })
}

/// Why `h` is no place for a unit of `side` (A42 and stacking).
fn unit_hex_problem(s: &State, side: &str, h: Hex, taken: &BTreeSet<Hex>) -> Option<String> {
    if !s.passable(h) {
        return Some(format!("{h} is impassable"));
    }
    if s.unit_at(h).is_some() || taken.contains(&h) {
        return Some(format!("{h} holds a unit already (9.0.1)"));
    }
    if s.units.iter().any(|e| e.alive() && e.side != side && s.front_hexes(e).contains(&h)) {
        return Some(format!("{h} is in an enemy unit's ZOC (A42)"));
    }
    None
}

/// Check a set-up mail: one Captain, or every unit (and, for the
/// Braccesca, every Squad Leader and rally point) placed legally.
pub fn validate(s: &State, role: &str, what: &str, orders: &[(usize, &Order)]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    let hint_captain = || {
        let c: Vec<String> = unplaced_captains(s, role).map(|b| format!("PLACE {} AT <hex>", b.name)).collect();
        c.join(" | ")
    };
    if what == "captain" {
        match orders {
            [(i, Order::Place { who, hex, .. })] => {
                match s.battle(who).filter(|b| b.side == role && b.captain.hex.is_empty() && !b.off_map) {
                    None => out.push((
                        *i,
                        Problem::new(format!("{who} is not one of your Captains still to place (S3.1)"))
                            .hint(hint_captain()),
                    )),
                    Some(_) => {
                        let h = Hex::parse(hex).expect("parsed hex");
                        if !s.passable(h) || s.unit_at(h).is_some() {
                            out.push((
                                *i,
                                Problem::new(format!("{h} is no place for a Captain (impassable or a unit there)")),
                            ));
                        }
                    }
                }
            }
            _ => out.push((
                orders.first().map(|x| x.0).unwrap_or(0),
                Problem::new("this step places one Captain, one line: PLACE <captain> AT <hex> (S3.1)")
                    .hint(hint_captain()),
            )),
        }
        return out;
    }
    // The units step: leaders and rally points first (their radius counts
    // from where this mail puts them), then the units.
    let mut leaders: BTreeMap<String, Hex> = BTreeMap::new();
    let mut rallies: BTreeSet<String> = BTreeSet::new();
    let mut units: BTreeMap<String, (usize, Hex)> = BTreeMap::new();
    for (i, o) in orders {
        match o {
            Order::Place { who, hex, face } => {
                let h = Hex::parse(hex).expect("parsed hex");
                if let Some(u) = s.unit(who) {
                    if u.side != role || s.battle(&u.battle).map(|b| b.off_map).unwrap_or(true) {
                        out.push((*i, Problem::new(format!("{who} is not one of your units to place"))));
                    } else if face.is_none() {
                        out.push((
                            *i,
                            Problem::new(format!("{who} needs a facing")).hint(format!("PLACE {who} AT {h} FACE E")),
                        ));
                    } else if units.insert(who.clone(), (*i, h)).is_some() {
                        out.push((*i, Problem::new(format!("{who} is placed twice"))));
                    }
                } else if let Some(b) = s.battle_of_leader(who).filter(|b| b.captain.name != *who) {
                    if b.side != role {
                        out.push((*i, Problem::new(format!("{who} is not yours"))));
                        continue;
                    }
                    match placed_at(s, &BTreeMap::new(), &b.captain.name) {
                        Some(c) if s.grid().distance(h, c) <= b.captain.radius && s.passable(h) => {
                            leaders.insert(who.clone(), h);
                        }
                        _ => out.push((
                            *i,
                            Problem::new(format!(
                                "{who} must stand within {}'s command radius ({}) (S3.1.1)",
                                b.captain.name, b.captain.radius
                            )),
                        )),
                    }
                } else {
                    out.push((
                        *i,
                        Problem::new(format!(
                            "{who}: the Captains were placed one by one; this step places units{}",
                            if role == BRACCIO { ", Squad Leaders and rally points" } else { "" }
                        )),
                    ));
                }
            }
            Order::RallyPoint { battle, hex } => {
                let h = Hex::parse(hex).expect("parsed hex");
                match s.battle(battle).filter(|b| b.side == role && s.home.contains_key(&format!("rally:{}", b.name))) {
                    None => {
                        out.push((*i, Problem::new(format!("{battle}'s Battle has no rally point to place (S2.5)"))))
                    }
                    Some(b) => {
                        let c = Hex::parse(&b.captain.hex);
                        if !s.passable(h) || c.map(|c| s.grid().distance(h, c) > b.captain.radius).unwrap_or(true) {
                            out.push((
                                *i,
                                Problem::new(format!(
                                    "{battle}'s rally point must be within {}'s command radius ({}) (S3.1.1)",
                                    b.captain.name, b.captain.radius
                                )),
                            ));
                        }
                        rallies.insert(b.name.clone());
                    }
                }
            }
            other => out.push((*i, Problem::new(format!("{other}: the set-up takes PLACE and RALLY lines only")))),
        }
    }
    let at0 = orders.first().map(|x| x.0).unwrap_or(0);
    for b in s.battles.iter().filter(|b| b.side == role && !b.off_map) {
        for q in &b.squads {
            if !leaders.contains_key(&q.leader.name) {
                out.push((
                    at0,
                    Problem::new(format!("{} is not placed (S3.1.1)", q.leader.name))
                        .hint(format!("PLACE {} AT <hex>", q.leader.name)),
                ));
            }
        }
        if s.home.contains_key(&format!("rally:{}", b.name)) && !rallies.contains(&b.name) {
            out.push((
                at0,
                Problem::new(format!("{}'s rally point is not placed (S3.1.1)", b.name))
                    .hint(format!("RALLY {} AT <hex>", b.name)),
            ));
        }
    }
    let mut taken = BTreeSet::new();
    for u in s.units.iter().filter(|u| u.side == role && !s.battle(&u.battle).map(|b| b.off_map).unwrap_or(true)) {
        let Some((i, h)) = units.get(&u.name).copied() else {
            out.push((at0, Problem::new(format!("{} is not placed: every unit in one mail (S3.1.1)", u.name))));
            continue;
        };
        if let Some(why) = unit_hex_problem(s, role, h, &taken) {
            out.push((i, Problem::new(format!("{}: {why}", u.name))));
        }
        taken.insert(h);
        let commander = s.commander_of(u).map(|l| (l.name.clone(), l.radius));
        if let Some((name, radius)) = commander {
            match placed_at(s, &leaders, &name) {
                Some(c) if s.grid().distance(h, c) <= radius => {}
                _ => out.push((
                    i,
                    Problem::new(format!("{} must stand within {name}'s command radius ({radius}) (S3.1.1)", u.name)),
                )),
            }
        }
    }
    out
}

/// Apply a set-up mail and open the next step.
pub fn resolve(s: &mut State, role: &str, what: &str, orders: &[Order], ev: &mut Vec<Event>) {
    let mut placed = Vec::new();
    for o in orders {
        match o {
            Order::Place { who, hex, face } => {
                if let Some(u) = s.unit_mut(who) {
                    u.hex = hex.clone();
                    if let Some(v) = face {
                        u.facing = *v;
                    }
                    placed.push(format!("{who} {hex}"));
                } else if let Some(b) = s.battle_mut(who) {
                    b.captain.hex = hex.clone();
                    placed.push(format!("{} (Captain) {hex}", b.captain.name));
                } else if let Some(q) =
                    s.battles.iter_mut().flat_map(|b| b.squads.iter_mut()).find(|q| &q.leader.name == who)
                {
                    q.leader.hex = hex.clone();
                    placed.push(format!("{who} {hex}"));
                }
            }
            Order::RallyPoint { battle, hex } => {
                if let Some(b) = s.battle_mut(battle) {
                    b.rally = hex.clone();
                    placed.push(format!("{battle}'s standard {hex}"));
                }
            }
            _ => {}
        }
    }
    ev.push(Event::all(format!("{} places {} (S3.1).", side_name(role), placed.join(", "))));
    let o = s.other(role);
    s.pending = if what == "captain" {
        if unplaced_captains(s, o).next().is_some() {
            Pending::Setup { role: o.into(), what: "captain".into() }
        } else if unplaced_captains(s, role).next().is_some() {
            Pending::Setup { role: role.into(), what: "captain".into() }
        } else {
            Pending::Setup { role: s.other(BRACCIO).into(), what: "units".into() }
        }
    } else if role != BRACCIO {
        Pending::Setup { role: BRACCIO.into(), what: "units".into() }
    } else {
        s.home.clear();
        ev.push(Event::all(
            "Every piece is placed: the Braccesca player opens with the Battle he chooses, and cannot pass (S3.2)."
                .to_string(),
        ));
        Pending::Activation { role: BRACCIO.into() }
    };
}

/// A silent player's set-up: the historical hexes where legal, else the
/// nearest legal hex to the piece's commander.
pub fn defaults(s: &State, role: &str, what: &str) -> Vec<Order> {
    let g = s.grid();
    let home = |k: &str| s.home.get(k).cloned().unwrap_or_default();
    let all: Vec<Hex> = g.hexes().collect();
    let nearest = |from: Hex, ok: &dyn Fn(Hex) -> bool| {
        all.iter().copied().filter(|h| ok(*h)).min_by_key(|h| (g.distance(from, *h), h.row, h.col))
    };
    if what == "captain" {
        let Some(b) = unplaced_captains(s, role).next() else { return Vec::new() };
        let want = Hex::parse(&home(&format!("captain:{}", b.name)));
        let ok = |h: Hex| s.passable(h) && s.unit_at(h).is_none();
        let h = want.filter(|h| ok(*h)).or_else(|| nearest(want.unwrap_or(Hex::new(1, 1)), &ok));
        return h
            .map(|h| vec![Order::Place { who: b.name.clone(), hex: h.to_string(), face: None }])
            .unwrap_or_default();
    }
    let mut out = Vec::new();
    let mut leaders: BTreeMap<String, Hex> = BTreeMap::new();
    for b in s.battles.iter().filter(|b| b.side == role && !b.off_map && !b.removed) {
        let Some(c) = Hex::parse(&b.captain.hex) else { continue };
        let within = |h: Hex| s.passable(h) && g.distance(h, c) <= b.captain.radius;
        for q in &b.squads {
            let want = Hex::parse(&home(&format!("leader:{}", q.leader.name)));
            if let Some(h) = want.filter(|h| within(*h)).or_else(|| nearest(c, &within)) {
                leaders.insert(q.leader.name.clone(), h);
                out.push(Order::Place { who: q.leader.name.clone(), hex: h.to_string(), face: None });
            }
        }
        if let Some(r) = s.home.get(&format!("rally:{}", b.name)) {
            let want = Hex::parse(r);
            if let Some(h) = want.filter(|h| within(*h)).or_else(|| nearest(c, &within)) {
                out.push(Order::RallyPoint { battle: b.name.clone(), hex: h.to_string() });
            }
        }
    }
    let mut taken = BTreeSet::new();
    for u in s.units.iter().filter(|u| u.side == role && !s.battle(&u.battle).map(|b| b.off_map).unwrap_or(true)) {
        let Some((cname, radius)) = s.commander_of(u).map(|l| (l.name.clone(), l.radius)) else { continue };
        let Some(c) = placed_at(s, &leaders, &cname) else { continue };
        let (want, facing) = {
            let h = home(&format!("unit:{}", u.name));
            let mut it = h.split_whitespace();
            (it.next().and_then(Hex::parse), it.next().and_then(orders::vertex).unwrap_or(u.facing))
        };
        let ok = |h: Hex| g.distance(h, c) <= radius && unit_hex_problem(s, role, h, &taken).is_none();
        if let Some(h) = want.filter(|h| ok(*h)).or_else(|| nearest(c, &ok)) {
            taken.insert(h);
            out.push(Order::Place { who: u.name.clone(), hex: h.to_string(), face: Some(facing) });
        }
    }
    out
}
