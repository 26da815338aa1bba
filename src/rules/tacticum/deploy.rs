//! Scenario X's set-up (S10-2, brief 3.3, A-34): each consul places its
//! own army in its side's first rows, all four at once. Orders are sealed
//! until the step resolves (the engine keeps them out of the state), and a
//! placed army stays hidden from the other side until every army stands.

use super::orders::DEPLOY_KINDS;
use super::{army_title, Order, State};
use crate::engine::{Event, Problem};
use crate::rules::shared::squares::Sq;
use std::collections::{BTreeMap, BTreeSet};

/// The rows (indices, inclusive) where army `a` sets up: the first
/// `setup_rows` from its home edge.
fn rows(s: &State, a: usize) -> (u8, u8) {
    let n = s.setup_rows.min(s.rows).max(1);
    if s.armies[a].home == "north" {
        (s.rows - n, s.rows - 1)
    } else {
        (0, n - 1)
    }
}

fn rows_text(s: &State, a: usize) -> String {
    let (lo, hi) = rows(s, a);
    format!("rows {}–{}", lo + 1, hi + 1)
}

/// How many units of each kind army `a` places.
fn wanted(s: &State, a: usize, kind: &str) -> usize {
    let army = &s.armies[a];
    match kind {
        "COMMANDER" => (!s.example[a].commander.is_empty()) as usize,
        "CAVALRY" => army.cavalry.len(),
        _ => army.infantry.len(),
    }
}

/// The printed example set-up of army `a` as orders (the default, and the
/// prompt's example).
pub fn example(s: &State, a: usize) -> Vec<Order> {
    let e = &s.example[a];
    let cells = |v: &[String]| v.iter().filter_map(|c| s.sq(c)).collect::<Vec<Sq>>();
    DEPLOY_KINDS
        .iter()
        .map(|k| match *k {
            "COMMANDER" => cells(std::slice::from_ref(&e.commander)),
            "CAVALRY" => cells(&e.cavalry),
            _ => cells(&e.infantry),
        })
        .zip(DEPLOY_KINDS)
        .filter(|(c, _)| !c.is_empty())
        .map(|(cells, k)| Order::Deploy { kind: k.to_string(), cells })
        .collect()
}

/// A consul's set-up: one PLACE line for each kind, every unit on its own
/// square of the side's set-up rows.
pub fn check(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let Some(a) = s.army_index(role) else { return vec![(0, Problem::new(format!("{role} commands no army here")))] };
    let hint = || example(s, a).iter().map(|o| o.to_string()).collect::<Vec<_>>().join(" / ");
    if !s.unplaced.iter().any(|r| r == role) {
        let waiting: Vec<String> = s.unplaced.iter().map(|r| army_title(r)).collect();
        return vec![(
            0,
            Problem::new(format!("your army is placed; the set-up waits for {}", waiting.join(" and ")))
                .hint("wait for the first turn's mail"),
        )];
    }
    // No lines at all is the deadline's default, never a mail (the desk
    // reads none without an order): the example, moved off the partner's
    // squares at resolution.
    if orders.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut kinds: Vec<&str> = Vec::new();
    let mut seen: BTreeSet<Sq> = BTreeSet::new();
    let (lo, hi) = rows(s, a);
    for (i, o) in orders.iter().enumerate() {
        let Order::Deploy { kind, cells } = o else {
            out.push((
                i,
                Problem::new("the armies are setting up: nobody moves yet (S10-2)")
                    .hint(format!("one line a kind: {}", hint())),
            ));
            continue;
        };
        if kinds.contains(&kind.as_str()) {
            out.push((i, Problem::new(format!("{kind} is placed on an earlier line")).hint("one PLACE line a kind")));
            continue;
        }
        kinds.push(DEPLOY_KINDS.iter().find(|k| **k == kind).copied().unwrap_or("INFANTRY"));
        let want = wanted(s, a, kind);
        if cells.len() != want {
            out.push((
                i,
                Problem::new(format!(
                    "{} has {want} {} to place; this line names {} square{}",
                    army_title(role),
                    kind.to_lowercase(),
                    cells.len(),
                    if cells.len() == 1 { "" } else { "s" }
                ))
                .hint(format!("one square a unit: {}", hint())),
            ));
            continue;
        }
        for &q in cells {
            if q.row < lo || q.row > hi {
                out.push((
                    i,
                    Problem::new(format!(
                        "{} is outside your side's set-up rows ({}, S10-2)",
                        s.name(q),
                        rows_text(s, a)
                    ))
                    .hint(format!("a square of {}", rows_text(s, a))),
                ));
            } else if !seen.insert(q) {
                out.push((i, Problem::new(format!("{} is named twice", s.name(q))).hint("one unit a square")));
            }
        }
    }
    if out.is_empty() {
        if let Some(k) = DEPLOY_KINDS.iter().find(|k| !kinds.contains(k) && wanted(s, a, k) > 0) {
            let line = example(s, a).into_iter().find(|o| matches!(o, Order::Deploy { kind, .. } if kind == k));
            out.push((
                orders.len().saturating_sub(1),
                Problem::new(format!("the set-up places every unit: a PLACE {k} line is missing"))
                    .hint(line.map(|o| o.to_string()).unwrap_or_default()),
            ));
        }
    }
    out
}

/// Where each unit of army `a` goes: its orders, or the example with any
/// square in `taken` moved to the first free square of its rows in
/// reading order (a silent consul, A-47).
fn placement(s: &State, a: usize, orders: &[Order], taken: &BTreeSet<Sq>) -> Vec<(String, Sq)> {
    let lines = if orders.is_empty() { example(s, a) } else { orders.to_vec() };
    let mut out: Vec<(String, Sq)> = Vec::new();
    for o in lines {
        if let Order::Deploy { kind, cells } = o {
            out.extend(cells.into_iter().map(|q| (kind.clone(), q)));
        }
    }
    if orders.is_empty() {
        let (lo, hi) = rows(s, a);
        let mut used: BTreeSet<Sq> = taken.clone();
        used.extend(out.iter().map(|(_, q)| *q).filter(|q| !taken.contains(q)));
        for (_, q) in out.iter_mut() {
            if taken.contains(q) {
                let free = (lo..=hi).flat_map(|r| (0..s.columns).map(move |c| Sq { col: c, row: r }));
                if let Some(f) = free.into_iter().find(|f| !used.contains(f)) {
                    used.insert(f);
                    *q = f;
                }
            }
        }
    }
    out
}

/// The set-up step: each side's armies placed, unless its two consuls
/// claimed one square, when neither is placed and the step opens again for
/// them alone; the game starts when every army stands (S10-2, S10-6).
pub fn resolve(s: &mut State, orders: &BTreeMap<String, Vec<Order>>, ev: &mut Vec<Event>) {
    let mut done: Vec<usize> = Vec::new();
    let waiting: Vec<usize> = s.unplaced.iter().filter_map(|r| s.army_index(r)).collect();
    for &a in &waiting {
        if done.contains(&a) {
            continue;
        }
        let side: Vec<usize> = s.side_armies(a).into_iter().filter(|b| waiting.contains(b)).collect();
        done.extend(&side);
        let sent_by: BTreeMap<usize, Vec<Order>> =
            side.iter().map(|&b| (b, orders.get(&s.armies[b].name).cloned().unwrap_or_default())).collect();
        let sent = |b: usize| sent_by[&b].clone();
        let mut claimed: BTreeMap<Sq, usize> = BTreeMap::new();
        let mut clash: BTreeSet<Sq> = BTreeSet::new();
        for &b in &side {
            for (_, q) in placement(s, b, &sent(b), &BTreeSet::new()) {
                if sent(b).is_empty() {
                    continue;
                }
                if claimed.insert(q, b).is_some_and(|x| x != b) {
                    clash.insert(q);
                }
            }
        }
        let names: Vec<String> = side.iter().map(|&b| army_title(&s.armies[b].name)).collect();
        if !clash.is_empty() {
            let at: Vec<String> = clash.iter().map(|&q| s.name(q)).collect();
            let text = format!(
                "{} both placed units on {}: neither army is placed. Agree on your set-ups and send them again; the enemy's stays sealed (S10-2, A-34).",
                names.join(" and "),
                at.join(", ")
            );
            for &b in &side {
                ev.push(Event::only(&s.armies[b].name, text.clone()));
            }
            ev.push(Event::gm(text));
            continue;
        }
        let taken: BTreeSet<Sq> = claimed.keys().copied().collect();
        for &b in &side {
            let units = placement(s, b, &sent(b), &taken);
            let (mut cav, mut inf) = (0, 0);
            for (kind, q) in units {
                let name = s.name(q);
                let army = &mut s.armies[b];
                match kind.as_str() {
                    "COMMANDER" => army.commander = name,
                    "CAVALRY" => {
                        army.cavalry[cav] = name;
                        cav += 1;
                    }
                    _ => {
                        army.infantry[inf] = name;
                        inf += 1;
                    }
                }
            }
            let how = if sent(b).is_empty() { "by the example set-up (no set-up came)" } else { "as its consul sent" };
            let text = format!("{} is placed {how}.", army_title(&s.armies[b].name));
            // Told to its own side only: the enemy's placement is sealed
            // until every army stands.
            for &c in &side {
                ev.push(Event::to_role(&s.armies[c].name, text.clone()));
            }
            s.unplaced.retain(|r| *r != s.armies[b].name);
        }
    }
    if s.unplaced.is_empty() {
        s.phase = "turn".into();
        s.active = s.turn_order[0].clone();
        ev.push(Event::all(format!(
            "Every army stands on the board; {} moves first (S10-6). From now on the two consuls of a side do not talk (S10-5).",
            army_title(&s.active)
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_set_up_is_a_legal_set_up_of_every_consul() {
        // S10-1: 12 Infantry, a Commander and 2 Cavalry an army; S10-2: in
        // the first 3 rows of its side.
        let s = crate::rules::tacticum::data::setup("consuls").unwrap();
        assert_eq!(s.phase, "setup");
        assert_eq!(s.unplaced, ["white", "black", "blue", "red"]);
        for (a, army) in s.armies.iter().enumerate() {
            assert_eq!((army.infantry.len(), army.cavalry.len()), (12, 2), "{}", army.name);
            assert!(
                army.commander.is_empty() && army.infantry.iter().all(String::is_empty),
                "placed only by its consul"
            );
            let lines = example(&s, a);
            assert_eq!(lines.len(), 3);
            assert!(check(&s, &army.name, &lines).is_empty(), "{}: {:?}", army.name, check(&s, &army.name, &lines));
        }
        assert!(s.friends(0, 1) && s.friends(2, 3) && !s.friends(0, 2) && !s.friends(1, 3));
    }
}
