//! The free set-up (option `+free`) of Sant'Egidio (S3) and L'Aquila
//! (S5, where the zones of S5.1.2 and S5.1.3 apply, the League placing
//! first). At Sant'Egidio (S3): the Captains
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

/// A section of the scenario's free set-up: S3 at Sant'Egidio, S5 at
/// L'Aquila.
pub fn sec(s: &State, sub: &str) -> String {
    format!("{}.{sub}", s.rule("S3", "S5"))
}

/// Does this Battle keep its historical set-up (S5.1.3's Testa)?
fn keeps(s: &State, battle: &str) -> bool {
    s.zones.as_ref().map(|z| z.keeps == battle).unwrap_or(false)
}

/// Record every piece's historical place and clear the map.
pub fn begin(s: &mut State) {
    let mut home = BTreeMap::new();
    let kept = s.zones.as_ref().map(|z| z.keeps.clone()).unwrap_or_default();
    let standards = s.rally_standards;
    for b in s.battles.iter_mut().filter(|b| !b.off_map && b.name != kept) {
        home.insert(format!("captain:{}", b.name), std::mem::take(&mut b.captain.hex));
        for q in b.squads.iter_mut() {
            home.insert(format!("leader:{}", q.leader.name), std::mem::take(&mut q.leader.hex));
        }
        // A rally point that is a place, not a standard, stays (S4.5).
        if !b.rally.is_empty() && standards {
            home.insert(format!("rally:{}", b.name), std::mem::take(&mut b.rally));
        }
        if b.side != BRACCIO {
            b.released = true;
        }
    }
    let off: BTreeSet<String> =
        s.battles.iter().filter(|b| b.off_map || b.name == kept).map(|b| b.name.clone()).collect();
    for u in s.units.iter_mut().filter(|u| !off.contains(&u.battle)) {
        let facing = orders::vertex_word(u.facing);
        home.insert(format!("unit:{}", u.name), format!("{} {facing}", std::mem::take(&mut u.hex)));
    }
    s.home = home;
    if let Some(z) = s.zones.clone() {
        s.zone_rows = zone_rows(s, &z);
    }
    s.first = ANY.into();
    // The historical opening's Carica! orders are not the free one's (S5.2).
    s.first_caricas = 0;
    s.pending = Pending::Setup { role: s.other(BRACCIO).into(), what: "captain".into() };
}

/// The zones of S5.1.2 as a picture (see [`State::zone_rows`]). The line
/// is the straight line through the centres of its end hexes, the hexes
/// it crosses (and any centred on it beyond its ends) on it; north is what the river does not cut off from the
/// `north` hex.
fn zone_rows(s: &State, z: &Zones) -> Vec<String> {
    let g = s.grid();
    let p = |x: &str| Hex::parse(x);
    let (Some(a), Some(b), Some(east), Some(north)) = (p(&z.line[0]), p(&z.line[1]), p(&z.east), p(&z.north)) else {
        return Vec::new();
    };
    let line = g.line_hexes(a, b);
    let east_side = g.side_of_line(a, b, east);
    // North: every hex reached from the `north` hex without crossing the
    // river.
    let river = |h: Hex| z.river.iter().any(|r| r.starts_with(s.map.glyph(h)));
    let north_of = g.reach(north, u32::MAX, |_, n| (!river(n)).then_some(1), |_| false);
    (1..=s.map.rows)
        .map(|r| {
            (1..=s.map.columns)
                .map(|c| {
                    let h = Hex::new(c, r);
                    if !s.passable(h) {
                        'x'
                    } else if line.contains(&h) || [0, east_side].contains(&g.side_of_line(a, b, h)) {
                        if north_of.contains_key(&h) {
                            'n'
                        } else {
                            's'
                        }
                    } else {
                        'w'
                    }
                })
                .collect()
        })
        .collect()
}

/// A hex's zone: `w`, `n`, `s` or `x` (see [`State::zone_rows`]).
pub fn zone(s: &State, h: Hex) -> char {
    s.zone_rows.get((h.row - 1) as usize).and_then(|r| r.chars().nth((h.col - 1) as usize)).unwrap_or('x')
}

/// The side of the river (`n`, `s`) the pieces `role` has placed stand
/// on, if any.
fn region(s: &State, role: &str) -> Option<char> {
    let placed = s
        .battles
        .iter()
        .filter(|b| b.side == role && !keeps(s, &b.name))
        .filter_map(|b| Hex::parse(&b.captain.hex))
        .chain(s.units.iter().filter(|u| u.side == role && !keeps(s, &u.battle)).filter_map(|u| u.at()));
    placed.map(|h| zone(s, h)).find(|c| matches!(c, 'n' | 's'))
}

/// Why `h` is outside `role`'s zone of the free set-up (S5.1.2); none
/// where the scenario has no zones.
fn zone_problem(s: &State, role: &str, h: Hex, region: Option<char>) -> Option<String> {
    let z = s.zones.as_ref()?;
    let line = format!("{}-{}", z.line[0], z.line[1]);
    let word = |c: char| if c == 'n' { "north" } else { "south" };
    match zone(s, h) {
        'w' if role == BRACCIO => s
            .units
            .iter()
            .any(|e| e.alive() && e.side != role && e.at().map(|x| s.grid().distance(x, h) <= 1).unwrap_or(false))
            .then(|| format!("{h} is beside an enemy unit (S5.1.2)")),
        _ if role == BRACCIO => Some(format!("{h} is not west of the line {line} (S5.1.2)")),
        c @ ('n' | 's') => match region {
            Some(r) if r != c => Some(format!(
                "{h} is {} of the Aterno and your army stands {} of it: all on one side (S5.1.2)",
                word(c),
                word(r)
            )),
            _ => None,
        },
        _ => Some(format!("{h} is not on or east of the line {line} (S5.1.2)")),
    }
}

/// Why a unit of the Battle that keeps its set-up may not stand on `h`
/// (S5.1.3): only with the enemy north of the river, on a flat hex of
/// level 2-4 or a hill, far enough from the line.
fn kept_problem(s: &State, h: Hex) -> Option<String> {
    let z = s.zones.as_ref()?;
    if region(s, s.other(BRACCIO)) != Some('n') {
        return Some(format!(
            "{}'s Battle keeps its historical set-up: the enemy is not north of the Aterno (S5.1.3)",
            z.keeps
        ));
    }
    let g = s.grid();
    let ground = (s.map.glyph(h) == '.' && (4..=8).contains(&s.map.height(h)) && s.map.height(h) % 2 == 0)
        || s.map.glyph(h) == 'h';
    if !ground {
        return Some(format!("{h} is neither a flat hex of level 2, 3 or 4 nor a hill (S5.1.3)"));
    }
    let (Some(a), Some(b)) = (Hex::parse(&z.line[0]), Hex::parse(&z.line[1])) else { return None };
    let near = g.line_hexes(a, b).into_iter().map(|x| g.distance(x, h)).min().unwrap_or(i32::MAX);
    (near < z.keeps_distance)
        .then(|| format!("{h} is {near} hexes from the set-up line; at least {} (S5.1.3)", z.keeps_distance))
}

/// Why `role`'s Captain `who` may not be placed on `h` now, the side of
/// the Aterno its army stands on being `side`.
fn captain_problem(s: &State, role: &str, who: &str, h: Hex, side: Option<char>) -> Option<Problem> {
    if s.battle(who).filter(|b| b.side == role && b.captain.hex.is_empty() && !b.off_map).is_none() {
        return Some(Problem::new(format!("{who} is not one of your Captains still to place ({})", sec(s, "1"))));
    }
    if !s.passable(h) || s.unit_at(h).is_some() {
        return Some(Problem::new(format!("{h} is no place for a Captain (impassable or a unit there)")));
    }
    zone_problem(s, role, h, side).map(Problem::new)
}

/// The legal hex nearest `from` (ties to the lower row, then column): a
/// silent player's placement when its historical hex is not legal.
fn nearest(s: &State, from: Hex, ok: impl Fn(Hex) -> bool) -> Option<Hex> {
    let g = s.grid();
    g.hexes().filter(|h| ok(*h)).min_by_key(|h| (g.distance(from, *h), h.row, h.col))
}

/// The side of the Aterno an army stands on once a piece is on `h`
/// (S5.1.2): the side it stood on, or `h`'s.
fn side_with(s: &State, side: Option<char>, h: Hex) -> Option<char> {
    side.or(Some(zone(s, h)).filter(|c| matches!(c, 'n' | 's')))
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
        // One Captain now; any further lines wait their turns (brief 3.7),
        // each judged as if the earlier ones stood.
        let mut names = BTreeSet::new();
        let mut side = region(s, role);
        for (i, o) in orders {
            let Order::Place { who, hex, .. } = o else {
                out.push((
                    *i,
                    Problem::new(format!(
                        "this step places Captains: PLACE <captain> AT <hex>, one line, or several to place \
                         the later ones at your next turns ({})",
                        sec(s, "1")
                    ))
                    .hint(hint_captain()),
                ));
                continue;
            };
            let h = Hex::parse(hex).expect("parsed hex");
            if !names.insert(who.clone()) {
                out.push((*i, Problem::new(format!("{who} is placed twice"))));
            } else if let Some(p) = captain_problem(s, role, who, h, side) {
                out.push((*i, p.hint(hint_captain())));
            }
            side = side_with(s, side, h);
        }
        if orders.is_empty() {
            out.push((0, Problem::new(format!("this step places a Captain ({})", sec(s, "1"))).hint(hint_captain())));
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
                            if let Some(why) = zone_problem(s, role, h, region(s, role)) {
                                out.push((*i, Problem::new(why)));
                            }
                            leaders.insert(who.clone(), h);
                        }
                        _ => out.push((
                            *i,
                            Problem::new(format!(
                                "{who} must stand within {}'s command radius ({}) ({})",
                                b.captain.name,
                                b.captain.radius,
                                sec(s, "1.1")
                            )),
                        )),
                    }
                } else if let Some(b) = s.battle(who).filter(|b| b.side == role && keeps(s, &b.name)) {
                    // S5.1.3: with his units, on the same ground as theirs.
                    let why = if !s.passable(h) || s.unit_at(h).is_some_and(|u| u.battle != b.name) {
                        Some(format!("{h} is no place for a Captain (impassable or a unit there)"))
                    } else {
                        kept_problem(s, h).or_else(|| zone_problem(s, role, h, region(s, role)))
                    };
                    match why {
                        Some(w) => out.push((*i, Problem::new(w))),
                        None => {
                            leaders.insert(b.captain.name.clone(), h);
                        }
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
                    Problem::new(format!("{} is not placed ({})", q.leader.name, sec(s, "1.1")))
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
    let home_region = region(s, role);
    for u in s.units.iter().filter(|u| u.side == role && !s.battle(&u.battle).map(|b| b.off_map).unwrap_or(true)) {
        let kept = keeps(s, &u.battle);
        let Some((i, h)) = units.get(&u.name).copied() else {
            // S5.1.3: the Battle that keeps its set-up may stay as it is.
            if !kept {
                out.push((
                    at0,
                    Problem::new(format!("{} is not placed: every unit in one mail ({})", u.name, sec(s, "1.1"))),
                ));
            }
            continue;
        };
        if let Some(why) = unit_hex_problem(s, role, h, &taken)
            .or_else(|| zone_problem(s, role, h, home_region))
            .or_else(|| if kept { kept_problem(s, h) } else { None })
        {
            out.push((i, Problem::new(format!("{}: {why}", u.name))));
        }
        taken.insert(h);
        let commander = s.commander_of(u).map(|l| (l.name.clone(), l.radius));
        if let Some((name, radius)) = commander {
            match placed_at(s, &leaders, &name) {
                Some(c) if s.grid().distance(h, c) <= radius => {}
                _ => out.push((
                    i,
                    Problem::new(format!(
                        "{} must stand within {name}'s command radius ({radius}) ({})",
                        u.name,
                        sec(s, "1.1")
                    )),
                )),
            }
        }
    }
    out
}

/// Apply a set-up mail and open the next step; a Captain step keeps the
/// mail's further Captains as `role`'s queue, placed at its next turns
/// while still legal (brief 3.7).
pub fn resolve(s: &mut State, role: &str, what: &str, orders: &[Order], ev: &mut Vec<Event>) {
    let orders = if what == "captain" && orders.len() > 1 {
        s.plans.retain(|p| p.role != role);
        s.plans.push(Plan { role: role.into(), lines: orders[1..].iter().map(|o| o.to_string()).collect() });
        ev.push(Event::only(
            role,
            format!(
                "Queued for your next turns, each while still legal ({}): {}.",
                sec(s, "1"),
                orders[1..].iter().map(|o| o.to_string()).collect::<Vec<_>>().join("; ")
            ),
        ));
        &orders[..1]
    } else {
        orders
    };
    place(s, role, what, orders, ev);
    // The queues: while the step is a Captain's whose side has one.
    while let Pending::Setup { role: r, what } = s.pending.clone() {
        let Some(at) = s.plans.iter().position(|p| p.role == r) else { break };
        if what != "captain" || s.plans[at].lines.is_empty() {
            s.plans.remove(at);
            continue;
        }
        let line = s.plans[at].lines.remove(0);
        // The line as the mail gave it, judged as the map stands now.
        let judged = match super::orders::parse(s, &r, &line) {
            Ok(Order::Place { who, hex, face }) => {
                let h = Hex::parse(&hex).expect("parsed hex");
                match captain_problem(s, &r, &who, h, region(s, &r)) {
                    None => Ok(Order::Place { who, hex, face }),
                    Some(p) => Err(p.reason),
                }
            }
            _ => Err("it no longer reads".to_string()),
        };
        match judged {
            Ok(o) => place(s, &r, "captain", &[o], ev),
            Err(why) => {
                s.plans.remove(at);
                ev.push(Event::only(
                    &r,
                    format!("Your queued {line} cannot be: {why}. The rest of the queue is dropped; place a Captain."),
                ));
                break;
            }
        }
    }
    // Past the Captains, no queue is left to wait.
    if !matches!(&s.pending, Pending::Setup { what, .. } if what == "captain") {
        s.plans.clear();
    }
}

/// Apply a set-up step's placements and open the next step.
fn place(s: &mut State, role: &str, what: &str, orders: &[Order], ev: &mut Vec<Event>) {
    let mut placed = Vec::new();
    for o in orders {
        match o {
            Order::Place { who, hex, face } => {
                if let Some(name) = s.put(who, hex, *face) {
                    placed.push(format!("{name} {hex}"));
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
    ev.push(Event::all(format!("{} places {} ({}).", side_name(role), placed.join(", "), sec(s, "1"))));
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
        ev.push(Event::all(format!(
            "Every piece is placed: the Braccesca player opens with the Battle he chooses, and cannot pass ({}).",
            sec(s, "2")
        )));
        Pending::Activation { role: BRACCIO.into() }
    };
}

/// Every Captain `role` has still to place, each on his historical hex
/// where legal, else the nearest legal hex: the no-moves set-up's first
/// line, or a whole queue (brief 3.7).
pub fn captains(s: &State, role: &str) -> Vec<Order> {
    let mut side = region(s, role);
    let mut out = Vec::new();
    for b in unplaced_captains(s, role) {
        let want = s.home.get(&format!("captain:{}", b.name)).and_then(|h| Hex::parse(h));
        let ok = |h: Hex| captain_problem(s, role, &b.name, h, side).is_none();
        let Some(h) = want.filter(|h| ok(*h)).or_else(|| nearest(s, want.unwrap_or(Hex::new(1, 1)), ok)) else {
            continue;
        };
        side = side_with(s, side, h);
        out.push(Order::Place { who: b.name.clone(), hex: h.to_string(), face: None });
    }
    out
}

/// A silent player's set-up: the historical hexes where legal, else the
/// nearest legal hex to the piece's commander.
pub fn defaults(s: &State, role: &str, what: &str) -> Vec<Order> {
    let g = s.grid();
    let home = |k: &str| s.home.get(k).cloned().unwrap_or_default();
    if what == "captain" {
        return captains(s, role).into_iter().take(1).collect();
    }
    let mut out = Vec::new();
    let mut leaders: BTreeMap<String, Hex> = BTreeMap::new();
    for b in s.battles.iter().filter(|b| b.side == role && !b.off_map && !b.removed) {
        let Some(c) = Hex::parse(&b.captain.hex) else { continue };
        let region = region(s, role);
        let within = |h: Hex| {
            s.passable(h) && g.distance(h, c) <= b.captain.radius && zone_problem(s, role, h, region).is_none()
        };
        for q in &b.squads {
            let want = Hex::parse(&home(&format!("leader:{}", q.leader.name)));
            if let Some(h) = want.filter(|h| within(*h)).or_else(|| nearest(s, c, within)) {
                leaders.insert(q.leader.name.clone(), h);
                out.push(Order::Place { who: q.leader.name.clone(), hex: h.to_string(), face: None });
            }
        }
        if let Some(r) = s.home.get(&format!("rally:{}", b.name)) {
            let want = Hex::parse(r);
            if let Some(h) = want.filter(|h| within(*h)).or_else(|| nearest(s, c, within)) {
                out.push(Order::RallyPoint { battle: b.name.clone(), hex: h.to_string() });
            }
        }
    }
    let mut taken = BTreeSet::new();
    let region = region(s, role);
    for u in s.units.iter().filter(|u| u.side == role && !s.battle(&u.battle).map(|b| b.off_map).unwrap_or(true)) {
        if keeps(s, &u.battle) {
            continue;
        }
        let Some((cname, radius)) = s.commander_of(u).map(|l| (l.name.clone(), l.radius)) else { continue };
        let Some(c) = placed_at(s, &leaders, &cname) else { continue };
        let (want, facing) = {
            let h = home(&format!("unit:{}", u.name));
            let mut it = h.split_whitespace();
            (it.next().and_then(Hex::parse), it.next().and_then(orders::vertex).unwrap_or(u.facing))
        };
        let ok = |h: Hex| {
            g.distance(h, c) <= radius
                && unit_hex_problem(s, role, h, &taken).is_none()
                && zone_problem(s, role, h, region).is_none()
        };
        if let Some(h) = want.filter(|h| ok(*h)).or_else(|| nearest(s, c, ok)) {
            taken.insert(h);
            out.push(Order::Place { who: u.name.clone(), hex: h.to_string(), face: Some(facing) });
        }
    }
    out
}
