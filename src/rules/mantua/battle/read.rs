//! The orders of a battle step as a player mails them: what each stage
//! accepts (its syntax and prompt), reading a line, checking a mail's
//! orders against the stage, and the default and random orders.

use super::defeat::{default_reductions, loser_blocks, surviving_units, upgrade_slots};
use super::*;

/// The keywords of the battle orders read by `parse` below.
pub const VERBS: &[&str] =
    &["REVEAL", "DEPLOY", "MOVE", "TURN", "ATTACK", "PASS", "DOUBLE", "ACCEPT", "REDUCE", "RETREAT", "UPGRADE"];

pub fn syntax(s: &State, role: &str) -> Vec<String> {
    let Some(b) = &s.battle else { return vec![] };
    if b.side != role {
        return vec![];
    }
    let own = |r: u8| space_name(0, r);
    match b.stage {
        Stage::Reveal => vec![format!(
            "REVEAL <block>   e.g. REVEAL {}",
            b.unrevealed.get(role).and_then(|v| v.first()).cloned().unwrap_or_default()
        )],
        Stage::Deploy => vec![format!(
            "DEPLOY <space>: <unit>, <unit>...   front unit first, at most {} a space, on your edge (row {}), e.g. DEPLOY {}: {}",
            DISPLAY.max_per_space,
            own(b.edge(role)).chars().next().unwrap_or('A'),
            space_name(2, b.edge(role)),
            b.hand.iter().take(2).cloned().collect::<Vec<_>>().join(", ")
        )],
        Stage::Turn => {
            let mut v = vec![
                "MOVE <space> [LEFT|RIGHT]   a Wing moves one space ahead, then may turn (1 Command)".to_string(),
                "TURN <space> LEFT|RIGHT     a Wing turns in place (1 Command; not when Engaged)".into(),
                "ATTACK <space>              the Wing attacks the enemy Wing it faces (Commands = its units; a Flank Attack 1)".into(),
                "PASS                        spend no Commands".into(),
            ];
            if b.time.is_none() && b.time_set {
                v.insert(0, "RETREAT                     Order a Retreat: the battle ends in your loss".into());
                if b.cube.as_deref().map(|c| c == role).unwrap_or(true) {
                    v.insert(1, "DOUBLE                      first line: offer the Doubling Cube, then your Commands".into());
                }
            }
            v
        }
        Stage::Doubled => vec!["ACCEPT    take the cube and the doubled stakes".into(), "RETREAT   Order a Retreat at the current stakes".into()],
        Stage::Reduce => {
            let first = super::defeat::loser_blocks(s, role).iter().find(|x| x.strength > 1).map(|x| x.name.clone());
            let mut v = vec![format!(
                "REDUCE <block> <steps>   {} reduction(s) in all, e.g. REDUCE {} 1",
                due(s, role),
                first.unwrap_or_else(|| "<block>".into())
            )];
            if !retreat_routes(s, role).is_empty() {
                v.push(format!("RETREAT TO <city>   one of: {}", retreat_routes(s, role).join(", ")));
            }
            v
        }
        Stage::Upgrade => vec![format!("UPGRADE <unit>[, <unit>...]   up to {} of your surviving units, e.g. UPGRADE {}", upgrade_slots(s), surviving_units(b, role).first().cloned().unwrap_or_default()), "PASS   (the highest-level units are upgraded for you)".into()],
    }
}

pub fn prompt(s: &State, role: &str) -> Option<String> {
    let b = s.battle.as_ref()?;
    if b.side != role {
        return None;
    }
    Some(match b.stage {
        Stage::Reveal => format!(
            "Battle of {}: reveal one of your blocks ({}).",
            b.target,
            b.unrevealed.get(role).cloned().unwrap_or_default().join(", ")
        ),
        Stage::Deploy => format!(
            "Battle of {}: deploy the units you drew face-down on your edge: {}.",
            b.target,
            b.hand.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")
        ),
        Stage::Turn => format!(
            "Battle of {}: your Battle Turn; you have {} Commands. Stakes {}, cube {}.{}",
            b.target,
            b.commands.get(role).copied().unwrap_or(3),
            b.stakes,
            match &b.cube {
                None => "in the middle".to_string(),
                Some(h) => format!("held by {}", side_name(h)),
            },
            if b.time.is_none() { " Time is out: you may RETREAT, or DOUBLE if eligible." } else { "" }
        ),
        Stage::Doubled => format!(
            "Battle of {}: {} doubles the stakes to {}. ACCEPT, or RETREAT now at {}.",
            b.target,
            side_name(other(role)),
            b.stakes * 2,
            b.stakes
        ),
        Stage::Reduce => format!(
            "You lost the Battle of {}: take {} reduction(s) on your blocks there ({}).",
            b.target,
            due(s, role),
            loser_blocks(s, role).iter().map(|x| format!("{} {}", x.name, x.strength)).collect::<Vec<_>>().join(", ")
        ),
        Stage::Upgrade => format!(
            "You won the Battle of {}: upgrade up to {} surviving unit(s) one level.",
            b.target,
            upgrade_slots(s)
        ),
    })
}

pub(super) fn unit_of(q: &str) -> String {
    q.trim().to_uppercase()
}

pub fn parse(s: &State, role: &str, line: &str) -> Result<Order, Problem> {
    let b = battle(s);
    let Some(l) = Line::new(line) else { return Err(Problem::new("empty line")) };
    let (word, rest) = (l.key(), l.rest);
    let usage = || {
        Problem::new(format!("{word} is not an order for this step of the battle")).hint(syntax(s, role).join(" | "))
    };
    let turn = |t: &str| match parse::word(t).as_str() {
        "LEFT" | "L" => Ok(Side90::Left),
        "RIGHT" | "R" => Ok(Side90::Right),
        other => Err(Problem::new(format!("{other:?} is not a turn")).hint("LEFT or RIGHT")),
    };
    let o = match (b.stage, word.as_str()) {
        (Stage::Reveal, "REVEAL") => Order::Reveal { block: block_in(s, role, rest)? },
        (Stage::Deploy, "DEPLOY") => {
            let (sp, us) = rest.split_once(':').ok_or_else(|| {
                Problem::new("write DEPLOY <space>: <unit>, <unit>").hint(syntax(s, role).join(" | "))
            })?;
            let (c, r) = parse_space(sp)?;
            let units: Vec<String> = parse::list(us).into_iter().map(unit_of).collect();
            if units.is_empty() {
                return Err(Problem::new("DEPLOY names no unit").hint(syntax(s, role).join(" | ")));
            }
            Order::Deploy { space: space_name(c, r), units }
        }
        (Stage::Turn, "MOVE") => {
            let mut it = rest.split_whitespace();
            let (c, r) = parse_space(it.next().unwrap_or(""))?;
            let t = it.next().map(turn).transpose()?;
            Order::Advance { space: space_name(c, r), turn: t }
        }
        (Stage::Turn, "TURN") => {
            let mut it = rest.split_whitespace();
            let (c, r) = parse_space(it.next().unwrap_or(""))?;
            Order::Wheel { space: space_name(c, r), turn: turn(it.next().unwrap_or(""))? }
        }
        (Stage::Turn, "ATTACK") => {
            let (c, r) = parse_space(rest)?;
            Order::Strike { space: space_name(c, r) }
        }
        (Stage::Turn, "PASS") => Order::Pass,
        (Stage::Turn | Stage::Doubled, "RETREAT") if rest.is_empty() => Order::Retreat,
        (Stage::Turn, "DOUBLE") => Order::Double,
        (Stage::Doubled, "ACCEPT") => Order::Accept,
        (Stage::Reduce, "REDUCE") => {
            let (name, n) = match rest.rsplit_once(char::is_whitespace) {
                Some((a, n)) if n.parse::<u32>().is_ok() => (a, n.parse().expect("checked")),
                _ => (rest, 1),
            };
            Order::Reduce { block: block_in(s, role, name)?, steps: n }
        }
        (Stage::Reduce, "RETREAT") => Order::RetreatTo { to: place_name(parse::optional(rest, "to"))? },
        (Stage::Upgrade, "UPGRADE") => Order::Upgrade { units: parse::list(rest).into_iter().map(unit_of).collect() },
        (Stage::Upgrade, "PASS") => Order::Pass,
        _ => return Err(usage()),
    };
    Ok(o)
}

pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let b = battle(s);
    let mut out = Vec::new();
    if b.side != role {
        return vec![(0, Problem::new("the battle does not await you now"))];
    }
    match b.stage {
        Stage::Reveal => {
            if orders.len() != 1 {
                out.push((0, Problem::new("reveal exactly one block")));
            }
            for (i, o) in orders.iter().enumerate() {
                if let Order::Reveal { block } = o {
                    if !b.unrevealed.get(role).map(|v| v.contains(block)).unwrap_or(false) {
                        out.push((
                            i,
                            Problem::new(format!("{block} is not an unrevealed block of yours in this battle"))
                                .hint(b.unrevealed.get(role).cloned().unwrap_or_default().join(", ")),
                        ));
                    }
                }
            }
        }
        Stage::Deploy => {
            let mut placed: Vec<&String> = Vec::new();
            let mut per: BTreeMap<String, usize> = BTreeMap::new();
            for w in b.wings.iter().filter(|w| w.side == role) {
                per.insert(space_name(w.col, w.row), w.units.len());
            }
            for (i, o) in orders.iter().enumerate() {
                let Order::Deploy { space, units } = o else { continue };
                let (c, r) = parse_space(space).expect("canonical");
                if r != b.edge(role) {
                    out.push((
                        i,
                        Problem::new(format!("{space} is not on your edge of the Battle Display"))
                            .hint(format!("your edge is row {}", (b'A' + b.edge(role)) as char)),
                    ));
                }
                if b.wing_at(c, r).map(|j| b.wings[j].side != role).unwrap_or(false) {
                    out.push((i, Problem::new(format!("{space} holds enemy units"))));
                }
                for u in units {
                    if !b.hand.contains(u) {
                        out.push((
                            i,
                            Problem::new(format!("{u} is not one of the units you drew")).hint(b.hand.join(", ")),
                        ));
                    } else if placed.contains(&u) {
                        out.push((i, Problem::new(format!("{u} is deployed twice"))));
                    } else {
                        placed.push(u);
                    }
                }
                let n = per.entry(space.clone()).or_default();
                *n += units.len();
                if *n > DISPLAY.max_per_space {
                    out.push((
                        i,
                        Problem::new(format!(
                            "{space} would hold {n} units; at most {} a space",
                            DISPLAY.max_per_space
                        )),
                    ));
                }
            }
            if out.is_empty() && placed.len() != b.hand.len() {
                let missing: Vec<&String> = b.hand.iter().filter(|u| !placed.contains(u)).collect();
                out.push((
                    0,
                    Problem::new(format!(
                        "every unit drawn must be deployed; not placed: {}",
                        missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    )),
                ));
            }
        }
        Stage::Turn => out.extend(validate_turn(b, role, orders)),
        Stage::Doubled => {
            if orders.len() != 1 {
                out.push((0, Problem::new("answer with ACCEPT or RETREAT alone")));
            }
        }
        Stage::Reduce => {
            let due = due(s, role);
            let mut total = 0;
            let mut per: BTreeMap<&str, u32> = BTreeMap::new();
            let routes = retreat_routes(s, role);
            let mut route = false;
            for (i, o) in orders.iter().enumerate() {
                match o {
                    Order::Reduce { block, steps } => {
                        let Some(x) = loser_blocks(s, role).into_iter().find(|x| &x.name == block) else {
                            out.push((i, Problem::new(format!("{block} did not fight in this battle, or is gone"))));
                            continue;
                        };
                        let n = per.entry(block).or_default();
                        *n += steps;
                        if *n + 1 > x.strength as u32 {
                            out.push((i, Problem::new(format!("{block} at strength {} can take at most {} reduction(s) (at 2, one more Eliminates it)", x.strength, x.strength - 1))));
                        }
                        total += steps;
                    }
                    Order::RetreatTo { to } => {
                        route = true;
                        if !routes.contains(to) {
                            out.push((
                                i,
                                Problem::new(format!("{to} is not a retreat route")).hint(if routes.is_empty() {
                                    "none: do not name one".to_string()
                                } else {
                                    routes.join(", ")
                                }),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            if total != due {
                out.push((0, Problem::new(format!("take exactly {due} reduction(s); these orders take {total}"))));
            }
            if !route && !routes.is_empty() {
                out.push((
                    0,
                    Problem::new("name your retreat route").hint(format!("RETREAT TO one of {}", routes.join(", "))),
                ));
            }
        }
        Stage::Upgrade => {
            let mine = surviving_units(b, role);
            let mut seen = Vec::new();
            for (i, o) in orders.iter().enumerate() {
                if let Order::Upgrade { units } = o {
                    if units.len() > upgrade_slots(s) {
                        out.push((
                            i,
                            Problem::new(format!(
                                "at most {} upgrade(s): one per block of yours that fought",
                                upgrade_slots(s)
                            )),
                        ));
                    }
                    for u in units {
                        if !mine.contains(u) {
                            out.push((
                                i,
                                Problem::new(format!("{u} is not one of your surviving units")).hint(mine.join(", ")),
                            ));
                        } else if counter(u).map(|c| c.level >= 4).unwrap_or(false) {
                            out.push((i, Problem::new(format!("{u} is already Level 4"))));
                        } else if seen.contains(u) {
                            out.push((i, Problem::new(format!("{u} is named twice"))));
                        }
                        seen.push(u.clone());
                    }
                }
            }
        }
    }
    out
}

/// The role's Wing in `space` that has not acted yet this turn.
pub(super) fn ready_wing(b: &Battle, role: &str, space: &str) -> Result<usize, Problem> {
    let (c, r) = parse_space(space)?;
    let w = b
        .wing_at(c, r)
        .filter(|&j| b.wings[j].side == role)
        .ok_or_else(|| Problem::new(format!("you have no Wing in {space} (at that point of your orders)")))?;
    if b.wings[w].acted {
        return Err(Problem::new(format!("the Wing in {space} has already acted this turn")));
    }
    Ok(w)
}

/// Check a Battle Turn against the display, moving Wings on a copy as the
/// orders go (combat results are not known yet, and are not guessed).
pub(super) fn validate_turn(b: &Battle, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    let mut sim = b.clone();
    let mut left = b.commands.get(role).copied().unwrap_or(DISPLAY.commands) as i32;
    let open = b.time.is_none() && b.time_set;
    for (i, o) in orders.iter().enumerate() {
        match o {
            Order::Retreat => {
                if !open {
                    out.push((i, Problem::new("a Retreat can be ordered only once the Time disc has left the track")));
                } else if orders.len() > 1 {
                    out.push((i, Problem::new("RETREAT ends the battle: give it alone")));
                }
            }
            Order::Double => {
                if !open {
                    out.push((
                        i,
                        Problem::new("the Doubling Cube can be used only once the Time disc has left the track"),
                    ));
                } else if b.cube.as_deref().map(|c| c != role).unwrap_or(false) {
                    out.push((i, Problem::new("only the player holding the Doubling Cube may use it now")));
                } else if i != 0 {
                    out.push((i, Problem::new("DOUBLE comes first, before any Command")));
                }
            }
            Order::Pass => {
                if orders.len() > 1 && !orders.iter().all(|o| matches!(o, Order::Pass | Order::Double)) {
                    out.push((i, Problem::new("PASS cannot be mixed with Commands")));
                }
            }
            Order::Advance { space, .. } | Order::Wheel { space, .. } => {
                let w = match ready_wing(&sim, role, space) {
                    Ok(w) => w,
                    Err(p) => {
                        out.push((i, p));
                        continue;
                    }
                };
                if sim.engaged(w).is_some() {
                    out.push((i, Problem::new(format!("the Wing in {space} is Engaged and cannot move or turn"))));
                    continue;
                }
                left -= 1;
                if let Order::Advance { .. } = o {
                    match sim.ahead(w).filter(|&(c2, r2)| sim.wing_at(c2, r2).is_none()) {
                        Some((c2, r2)) => {
                            sim.wings[w].col = c2;
                            sim.wings[w].row = r2;
                        }
                        None => {
                            out.push((i, Problem::new(format!("the Wing in {space} faces the edge or an occupied space; it can only move into a vacant space ahead")).hint(format!("TURN {space} LEFT|RIGHT"))));
                            continue;
                        }
                    }
                    if let Order::Advance { turn: Some(t), .. } = o {
                        sim.wings[w].facing = quarter(sim.wings[w].facing, *t);
                    }
                } else if let Order::Wheel { turn, .. } = o {
                    sim.wings[w].facing = quarter(sim.wings[w].facing, *turn);
                }
                sim.wings[w].acted = true;
            }
            Order::Strike { space } => {
                let w = match ready_wing(&sim, role, space) {
                    Ok(w) => w,
                    Err(p) => {
                        out.push((i, p));
                        continue;
                    }
                };
                if sim.faced(w).is_none() {
                    out.push((i, Problem::new(format!("the Wing in {space} faces no adjacent enemy Wing"))));
                    continue;
                }
                left -= if sim.engaged(w).is_some() { sim.wings[w].units.len() as i32 } else { 1 };
                sim.wings[w].acted = true;
            }
            _ => out.push((i, Problem::new("not a Battle Turn order"))),
        }
        if left < 0 {
            out.push((
                i,
                Problem::new(format!("not enough Commands: you have {}", b.commands.get(role).copied().unwrap_or(3))),
            ));
            break;
        }
    }
    out
}

pub(super) fn default_deploy(b: &Battle, side: &str) -> Vec<(String, Vec<String>)> {
    // The fixed rule for a silent player: fill the edge from the middle
    // outwards, three units a space.
    let row = b.edge(side);
    let order = [2u8, 1, 3, 0, 4];
    let mut plan = Vec::new();
    let mut hand = b.hand.clone().into_iter();
    for c in order.iter().copied().filter(|&c| c < DISPLAY.columns) {
        let room = match b.wing_at(c, row) {
            Some(j) if b.wings[j].side == side => DISPLAY.max_per_space - b.wings[j].units.len(),
            Some(_) => continue,
            None => DISPLAY.max_per_space,
        };
        let units: Vec<String> = hand.by_ref().take(room).collect();
        if !units.is_empty() {
            plan.push((space_name(c, row), units));
        }
    }
    plan
}

pub fn default_orders(s: &State, _role: &str) -> Vec<Order> {
    // The no-moves policy in battle: a reveal takes the first block in name
    // order; a deployment fills the edge from the middle; a Battle Turn
    // passes; a doubled player accepts; reductions fall on the strongest
    // block; upgrades on the highest-level units.
    let b = battle(s);
    match b.stage {
        Stage::Reveal => b
            .unrevealed
            .get(&b.side)
            .and_then(|v| v.first())
            .map(|n| vec![Order::Reveal { block: n.clone() }])
            .unwrap_or_default(),
        Stage::Deploy => {
            default_deploy(b, &b.side).into_iter().map(|(space, units)| Order::Deploy { space, units }).collect()
        }
        Stage::Turn => vec![Order::Pass],
        Stage::Doubled => vec![Order::Accept],
        Stage::Reduce => {
            let mut v: Vec<Order> = default_reductions(s, &b.side)
                .into_iter()
                .map(|(block, steps)| Order::Reduce { block, steps })
                .collect();
            if let Some(r) = retreat_routes(s, &b.side).first() {
                v.push(Order::RetreatTo { to: r.clone() });
            }
            v
        }
        Stage::Upgrade => vec![Order::Pass],
    }
}

pub fn random_orders(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let b = battle(s);
    match b.stage {
        Stage::Reveal => {
            let v = b.unrevealed.get(role).cloned().unwrap_or_default();
            vec![Order::Reveal { block: v[pick(v.len())].clone() }]
        }
        Stage::Turn => {
            let open = b.time.is_none() && b.time_set;
            if open && pick(6) == 0 {
                return vec![Order::Retreat];
            }
            let mut v = Vec::new();
            if open && b.cube.as_deref().map(|c| c == role).unwrap_or(true) && pick(4) == 0 {
                v.push(Order::Double);
            }
            let mine: Vec<&Wing> = b.wings.iter().filter(|w| w.side == role).collect();
            for _ in 0..1 + pick(3) {
                if mine.is_empty() {
                    break;
                }
                let w = mine[pick(mine.len())];
                let sp = space_name(w.col, w.row);
                v.push(match pick(4) {
                    0 => Order::Wheel { space: sp, turn: if pick(2) == 0 { Side90::Left } else { Side90::Right } },
                    1 => Order::Advance { space: sp, turn: None },
                    _ => Order::Strike { space: sp },
                });
            }
            if validate(s, role, &v).is_empty() {
                return v;
            }
            if v.first() == Some(&Order::Double) {
                return vec![Order::Double, Order::Pass];
            }
            vec![Order::Pass]
        }
        Stage::Doubled => vec![if pick(3) == 0 { Order::Retreat } else { Order::Accept }],
        _ => default_orders(s, role),
    }
}
