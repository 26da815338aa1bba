//! Order syntax of La Guerre des Ducs (one order a line, brief 4): reading a
//! line into an [`Order`] (names only), and checking a whole submission
//! against the position (every positional rule, with the reason and what
//! would do).

use super::combat::{self, RetreatOption};
use super::movement;
use super::{data, find_hex, other, prefix, Map, Phase, State};
use crate::engine::Problem;
use crate::rules::shared::hex::Hex;
use crate::rules::shared::{names, parse};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub const VERBS: &[&str] = &["PLACE", "MOVE", "ATTACK", "CONTINUE", "PASS", "RETREAT", "LOSE", "ADVANCE", "HOLD"];

/// After a retreat forced by an attack: occupy the hex or not (R73, R74).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Advance {
    Hold,
    Unit(String),
}

/// One order, with counters by the id their owner writes (`I3`, `Duke`)
/// and hexes by id (`0605`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Order {
    Place { counter: String, hex: String },
    Move { counters: Vec<String>, to: String, via: Vec<String> },
    Attack { hex: String, with: Vec<String>, advance: Option<Advance> },
    Continue,
    Pass,
    Retreat { counter: String, to: String, push: Option<(String, String)> },
    Lose { units: Vec<String> },
    Advance { unit: String },
    Hold,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Place { counter, hex } => write!(f, "PLACE {counter} AT {hex}"),
            Order::Move { counters, to, via } => {
                write!(f, "MOVE {} TO {to}", counters.join(", "))?;
                if !via.is_empty() {
                    write!(f, " VIA {}", via.join(", "))?;
                }
                Ok(())
            }
            Order::Attack { hex, with, advance } => {
                write!(f, "ATTACK {hex} WITH {}", with.join(", "))?;
                match advance {
                    Some(Advance::Hold) => write!(f, " HOLD"),
                    Some(Advance::Unit(u)) => write!(f, " ADVANCE {u}"),
                    None => Ok(()),
                }
            }
            Order::Continue => write!(f, "CONTINUE"),
            Order::Pass => write!(f, "PASS"),
            Order::Retreat { counter, to, push } => {
                write!(f, "RETREAT {counter} TO {to}")?;
                if let Some((p, at)) = push {
                    write!(f, " PUSH {p} TO {at}")?;
                }
                Ok(())
            }
            Order::Lose { units } => write!(f, "LOSE {}", units.join(", ")),
            Order::Advance { unit } => write!(f, "ADVANCE {unit}"),
            Order::Hold => write!(f, "HOLD"),
        }
    }
}

/// What a step accepts, for refusals.
fn accepted(p: Phase) -> &'static str {
    match p {
        Phase::Garrison => "PLACE <unit> AT <city or fortress>, one for each of yours",
        Phase::Placement => "PLACE <counter> AT <hex>",
        Phase::Move => "MOVE, ATTACK, CONTINUE, or PASS",
        Phase::Combat => "ATTACK, CONTINUE, or PASS (no more attacks)",
        Phase::Retreat => "RETREAT <counter> TO <hex> [PUSH <counter> TO <hex>]",
        Phase::Losses => "LOSE <unit>, <unit>",
        Phase::Advance => "ADVANCE <unit> or HOLD",
        Phase::Over => "nothing: the game is over",
    }
}

fn verbs_of(p: Phase) -> &'static [&'static str] {
    match p {
        Phase::Garrison | Phase::Placement => &["PLACE"],
        Phase::Move => &["MOVE", "ATTACK", "CONTINUE", "PASS"],
        Phase::Combat => &["ATTACK", "CONTINUE", "PASS"],
        Phase::Retreat => &["RETREAT"],
        Phase::Losses => &["LOSE"],
        Phase::Advance => &["ADVANCE", "HOLD"],
        Phase::Over => &[],
    }
}

/// One of `role`'s counters by what was written: `I3`, `Duke`, `ORF I3`.
pub fn counter(s: &State, role: &str, text: &str) -> Result<String, Problem> {
    let t = text.trim();
    let (first, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let id = if parse::word(first) == prefix(role) {
        rest.trim()
    } else if parse::word(first) == prefix(other(role)) && !rest.trim().is_empty() {
        return Err(Problem::new(format!("{t} is not one of your counters"))
            .hint("name your own counters: I1 to I10, C1 to C10, A1 to A10, Duke"));
    } else {
        t
    };
    let ids: Vec<&str> = s.units.iter().filter(|u| u.side == role).map(|u| u.id.as_str()).collect();
    let i = names::find(&ids, id, "counter").map_err(|p| {
        let hint =
            p.suggestion.clone().unwrap_or_else(|| "your counters are I1 to I10, C1 to C10, A1 to A10 and Duke".into());
        Problem { reason: p.reason, suggestion: Some(hint) }
    })?;
    Ok(ids[i].to_string())
}

fn counters(s: &State, role: &str, text: &str) -> Result<Vec<String>, Problem> {
    let items = parse::list_and(text);
    if items.is_empty() {
        return Err(Problem::new("no counter is named").hint("name your counters by id, e.g. I3, C2"));
    }
    let ids: Vec<String> = items.into_iter().map(|x| counter(s, role, x)).collect::<Result<_, _>>()?;
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Err(Problem::new(format!("{id} is named twice")).hint("name each counter once"));
        }
    }
    Ok(ids)
}

fn hex(s: &State, text: &str) -> Result<String, Problem> {
    find_hex(s, text).map(|h| h.to_string())
}

fn alone(rest: &str, verb: &str) -> Result<(), Problem> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(Problem::new(format!("{verb} stands alone on its line")).hint(verb.to_string()))
    }
}

pub fn parse(s: &State, role: &str, line: &str) -> Result<Order, Problem> {
    let Some(l) = parse::Line::new(line) else { return Err(Problem::new("an empty line")) };
    let verb = l.key();
    let rest = l.rest;
    if !VERBS.contains(&verb.as_str()) {
        return Err(Problem::new(format!("{:?} is not an order", l.verb)).hint(format!("now: {}", accepted(s.phase))));
    }
    if !verbs_of(s.phase).contains(&verb.as_str()) {
        return Err(Problem::new(format!("{verb} is not an order of the {} step", s.phase_kind()))
            .hint(format!("now: {}", accepted(s.phase))));
    }
    let syntax = |what: &str| Problem::new(format!("{verb} needs {what}")).hint(accepted(s.phase).to_string());
    Ok(match verb.as_str() {
        "PLACE" => {
            let (c, h) = parse::split(rest, "at").ok_or_else(|| syntax("a counter and AT <hex>"))?;
            Order::Place { counter: counter(s, role, c)?, hex: hex(s, h)? }
        }
        "MOVE" => {
            let (head, via) = match parse::split(rest, "via") {
                Some((a, b)) => (a, parse::list_and(b)),
                None => (rest, Vec::new()),
            };
            let (c, to) = parse::split(head, "to").ok_or_else(|| syntax("counters and TO <hex>"))?;
            Order::Move {
                counters: counters(s, role, c)?,
                to: hex(s, to)?,
                via: via.into_iter().map(|v| hex(s, v)).collect::<Result<_, _>>()?,
            }
        }
        "ATTACK" => {
            let (h, tail) = parse::split(rest, "with").ok_or_else(|| syntax("a hex and WITH <units>"))?;
            let (units, advance) = if let Some((u, a)) = parse::split(tail, "advance") {
                (u, Some(Advance::Unit(counter(s, role, a)?)))
            } else if let Some(u) = parse::keyword(&tail.chars().rev().collect::<String>(), "DLOH") {
                let u: String = u.chars().rev().collect();
                (tail.get(..u.len()).unwrap_or(tail), Some(Advance::Hold))
            } else {
                (tail, None)
            };
            Order::Attack { hex: hex(s, h)?, with: counters(s, role, units)?, advance }
        }
        "CONTINUE" => alone(rest, "CONTINUE").map(|_| Order::Continue)?,
        "PASS" => alone(rest, "PASS").map(|_| Order::Pass)?,
        "HOLD" => alone(rest, "HOLD").map(|_| Order::Hold)?,
        "RETREAT" => {
            let (head, push) = match parse::split(rest, "push") {
                Some((a, b)) => {
                    let (p, to) = parse::split(b, "to").ok_or_else(|| syntax("PUSH <counter> TO <hex>"))?;
                    (a, Some((counter(s, role, p)?, hex(s, to)?)))
                }
                None => (rest, None),
            };
            let (c, to) = parse::split(head, "to").ok_or_else(|| syntax("a counter and TO <hex>"))?;
            Order::Retreat { counter: counter(s, role, c)?, to: hex(s, to)?, push }
        }
        "LOSE" => Order::Lose { units: counters(s, role, rest)? },
        "ADVANCE" => {
            let units = counters(s, role, rest)?;
            if units.len() != 1 {
                return Err(
                    Problem::new("only one unit advances into the abandoned hex").hint(format!("ADVANCE {}", units[0]))
                );
            }
            Order::Advance { unit: units[0].clone() }
        }
        _ => return Err(Problem::new(format!("{verb} is not an order"))),
    })
}

/// Check a whole submission against the position.
pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    if orders.is_empty() {
        return out;
    }
    let last = orders.len() - 1;
    match s.phase {
        Phase::Garrison => garrison(s, role, orders, &mut out),
        Phase::Placement => placement(s, role, orders, &mut out),
        Phase::Move | Phase::Combat => {
            let pass = orders.iter().position(|o| matches!(o, Order::Pass));
            if let Some(i) = pass {
                if orders.len() > 1 {
                    out.push((
                        i,
                        Problem::new(format!("{} stands alone: no other order with it", orders[i]))
                            .hint(format!("either {} or your orders", orders[i])),
                    ));
                }
                return out;
            }
            let moves: Vec<(usize, &Order)> =
                orders.iter().enumerate().filter(|(_, o)| matches!(o, Order::Move { .. })).collect();
            let after = movement::check_moves(s, role, &moves, &mut out);
            combat::check_attacks(&after, role, orders, &mut out);
            let continues = orders.iter().filter(|o| matches!(o, Order::Continue)).count();
            if continues > 1 {
                out.push((last, Problem::new("CONTINUE is written once").hint("CONTINUE")));
            }
            if continues == orders.len() && s.phase == Phase::Combat {
                out.push((
                    last,
                    Problem::new("CONTINUE asks for more attacks after these: write an ATTACK with it, or PASS")
                        .hint("PASS"),
                ));
            }
        }
        Phase::Retreat => retreat(s, role, orders, &mut out),
        Phase::Losses => losses(s, orders, &mut out),
        Phase::Advance => {
            if orders.len() > 1 {
                out.push((1, Problem::new("one decision: ADVANCE <unit> or HOLD").hint("HOLD")));
            }
            if let Order::Advance { unit } = &orders[0] {
                let cands = combat::advance_candidates(s);
                let name = format!("{} {unit}", prefix(role));
                if !cands.contains(&name) {
                    let why = if s.fight.as_ref().map(|f| !f.close.contains(&name)).unwrap_or(true) {
                        format!("{unit} did not fight in close combat here (a bombarding artillery unit or a unit that did not attack may not advance)")
                    } else {
                        format!("{unit} can no longer advance")
                    };
                    out.push((0, Problem::new(why).hint(advance_hint(&cands))));
                }
            }
        }
        Phase::Over => out.push((0, Problem::new("the game is over"))),
    }
    out
}

fn advance_hint(cands: &[String]) -> String {
    let ids: Vec<String> =
        cands.iter().map(|c| format!("ADVANCE {}", c.split_once(' ').map(|x| x.1).unwrap_or(c))).collect();
    format!("{} or HOLD", ids.join(", "))
}

fn garrison(s: &State, role: &str, orders: &[Order], out: &mut Vec<(usize, Problem)>) {
    let map = Map::new(s);
    let want: BTreeSet<Hex> = data::garrison_hexes(s, role).into_iter().collect();
    let mut covered = BTreeSet::new();
    let mut used = BTreeSet::new();
    for (i, o) in orders.iter().enumerate() {
        let Order::Place { counter, hex } = o else { continue };
        let h = Hex::parse(hex).expect("a parsed hex");
        if counter == "Duke" {
            out.push((
                i,
                Problem::new("a duke is no garrison: garrisons are units (the duke is placed later)")
                    .hint("PLACE I1 AT <city or fortress>"),
            ));
            continue;
        }
        if !used.insert(counter.clone()) {
            out.push((i, Problem::new(format!("{counter} is placed twice"))));
        }
        if !want.contains(&h) {
            out.push((
                i,
                Problem::new(format!("{} is not one of your cities or fortresses", map.label(h)))
                    .hint(format!("garrison: {}", labels(&map, &want))),
            ));
        } else if !covered.insert(h) {
            out.push((i, Problem::new(format!("{} is garrisoned twice: one unit a city or fortress", map.label(h)))));
        }
    }
    let missing: Vec<Hex> = want.difference(&covered).copied().collect();
    if !missing.is_empty() {
        // Told at the last garrison line, never at a duke's line (which
        // has its own problem) unless there is no other.
        let last = orders.iter().rposition(|o| matches!(o, Order::Place { counter, .. } if counter != "Duke"));
        out.push((
            last.unwrap_or(orders.len() - 1),
            Problem::new(format!("no garrison for {}", labels(&map, &missing)))
                .hint("one PLACE line for each of your cities and fortresses"),
        ));
    }
}

fn labels<'a>(map: &Map, hs: impl IntoIterator<Item = &'a Hex>) -> String {
    hs.into_iter().map(|h| map.label(*h)).collect::<Vec<_>>().join(", ")
}

fn placement(s: &State, role: &str, orders: &[Order], out: &mut Vec<(usize, Problem)>) {
    let map = Map::new(s);
    // Who stands where once the earlier lines are placed.
    let mut stand: BTreeMap<Hex, Vec<String>> = BTreeMap::new();
    for u in s.units.iter().filter(|u| u.on_map()) {
        stand.entry(u.at().expect("on the map")).or_default().push(u.name.clone());
    }
    let mut used = BTreeSet::new();
    for (i, o) in orders.iter().enumerate() {
        let Order::Place { counter, hex } = o else { continue };
        let h = Hex::parse(hex).expect("a parsed hex");
        let u = s.own(role, counter).expect("a parsed counter");
        if u.on_map() || u.eliminated || !used.insert(counter.clone()) {
            out.push((
                i,
                Problem::new(format!("{counter} is already placed")).hint("place a counter not yet on the map"),
            ));
            continue;
        }
        let owner = map.data(h).map(|d| d.owner.as_str()).unwrap_or("");
        if owner != role {
            out.push((
                i,
                Problem::new(format!("{} is not inside your borders", map.label(h)))
                    .hint("place inside your own territory (the map's owner layer)"),
            ));
            continue;
        }
        if !map.passable(h) {
            out.push((i, Problem::new(format!("{h} is {}: no counter stands there", map.terrain(h).name))));
            continue;
        }
        let here = stand.entry(h).or_default();
        if let Some(p) = movement::stacking_problem(s, &map, h, u, here) {
            out.push((i, p));
            continue;
        }
        here.push(u.name.clone());
    }
}

/// RETREAT lines: one a retreating counter, in any order, each judged
/// where the lines before it left the others (two counters share a hex
/// only where a duke may stack: A20); when room runs short, one line
/// only, for the counter that survives.
fn retreat(s: &State, role: &str, orders: &[Order], out: &mut Vec<(usize, Problem)>) {
    let Some(f) = s.fight.as_ref() else { return };
    let ids: Vec<String> = f.retreating.iter().filter_map(|n| s.unit(n)).map(|u| u.id.clone()).collect();
    let Some(first) = ids.first() else { return };
    if f.choose && orders.len() > 1 {
        out.push((
            1,
            Problem::new(format!(
                "there is room for one of {} only: one RETREAT line, for the counter that retreats; the others are removed (A20)",
                ids.join(" and ")
            )),
        ));
    }
    let mut t = s.clone();
    let mut done: Vec<(String, Hex)> = Vec::new();
    for (i, o) in orders.iter().enumerate() {
        let Order::Retreat { counter, to, push } = o else { continue };
        let name = format!("{} {counter}", prefix(role));
        let Some(u) = t.unit(&name).filter(|_| f.retreating.contains(&name)).cloned() else {
            let hint = format!("RETREAT {first} TO <hex>");
            out.push((i, Problem::new(format!("{counter} is not retreating; {} must", ids.join(" and "))).hint(hint)));
            continue;
        };
        if done.iter().any(|(n, _)| *n == name) {
            out.push((i, Problem::new(format!("one RETREAT line for {counter}"))));
            continue;
        }
        let options = combat::retreat_options(&t, &u, &f.retreaters);
        let hint = options.iter().map(|o| o.order(&u.id)).collect::<Vec<_>>().join(", or ");
        let want = Hex::parse(to).expect("a parsed hex");
        let pushed =
            push.as_ref().map(|(p, at)| (format!("{} {p}", prefix(role)), Hex::parse(at).expect("a parsed hex")));
        let chosen = options.iter().find(|o| match (o, &pushed) {
            (RetreatOption::To(h), None) => *h == want,
            (RetreatOption::Push { to, pushed: p, push_to }, Some((q, at))) => *to == want && p == q && push_to == at,
            _ => false,
        });
        match chosen {
            Some(opt) => {
                combat::carry_out(&mut t, &name, opt, &mut Vec::new());
                done.push((name, want));
            }
            None => {
                let why = match done.iter().find(|(_, h)| *h == want) {
                    Some((other, _)) => format!(
                        "{} and {} may end in one hex only in a city or fortress, where a duke stacks with a unit; {want} is neither (A20)",
                        other.split_once(' ').map(|x| x.1).unwrap_or(other),
                        u.id
                    ),
                    None => combat::why_not_retreat(
                        &t,
                        &u,
                        want,
                        pushed.as_ref().map(|(p, h)| (p.as_str(), *h)),
                        &f.retreaters,
                    ),
                };
                out.push((i, Problem::new(why).hint(hint)));
            }
        }
    }
}

fn losses(s: &State, orders: &[Order], out: &mut Vec<(usize, Problem)>) {
    let Some(f) = s.fight.as_ref() else { return };
    if orders.len() > 1 {
        out.push((1, Problem::new("one LOSE line names every unit lost").hint("LOSE <unit>, <unit>")));
    }
    let Order::Lose { units } = &orders[0] else { return };
    let sets = combat::loss_sets(s);
    let hint = sets
        .iter()
        .map(|set| {
            format!(
                "LOSE {}",
                set.iter().map(|n| n.split_once(' ').map(|x| x.1).unwrap_or(n)).collect::<Vec<_>>().join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(", or ");
    let side = prefix(&f.attacker);
    let names: Vec<String> = units.iter().map(|u| format!("{side} {u}")).collect();
    for (u, n) in units.iter().zip(&names) {
        if !f.close.contains(n) || s.unit(n).map(|x| !x.on_map()).unwrap_or(true) {
            out.push((0, Problem::new(format!("{u} did not fight in close combat here")).hint(hint.clone())));
            return;
        }
    }
    let total: u32 = names.iter().filter_map(|n| s.unit(n)).map(|u| u.strength).sum();
    if total < f.owed {
        out.push((
            0,
            Problem::new(format!("{} totals {total}, short of the {} owed", units.join(", "), f.owed)).hint(hint),
        ));
        return;
    }
    for (u, n) in units.iter().zip(&names) {
        let st = s.unit(n).map(|x| x.strength).unwrap_or(0);
        if total - st >= f.owed {
            out.push((0, Problem::new(format!("{u} is surplus (the others cover the {} owed)", f.owed)).hint(hint)));
            return;
        }
    }
}
