//! The historical set-up's own choice (S1.1): where the set-up table gives
//! a Battle a row of hexes, or a hex to place within, and it holds more
//! hexes than the Battle has units, "the player may freely choose where
//! to place them". A Battle's `row` in the scenario file is that row; the
//! units' `hex` is where they stand if the player says nothing. Before
//! the opening, one set-up step awaits every side with such a Battle at
//! once, neither seeing the other's choice until both have chosen (the
//! brief's A42: historical set-ups are simultaneous). The rows of the two
//! sides share no hex and hold no enemy unit (the scenario check), so the
//! two choices never meet. The shipped, reconstructed set-ups give every unit its own hex, so no
//! Battle has a row and the step never arises until an owner enters the
//! printed rows.

use super::*;
use std::collections::BTreeSet;

/// The Battles of `role` on the map whose units may be placed within a
/// row: one with more hexes than units (S1.1; with as many, the table
/// places them).
fn with_rows<'a>(s: &'a State, role: &'a str) -> impl Iterator<Item = &'a Battle> + 'a {
    s.battles.iter().filter(move |b| {
        b.side == role && !b.off_map && b.row.len() > s.units.iter().filter(|u| u.battle == b.name).count()
    })
}

/// The side that opens the battle (S2.2, S4.2).
fn opener(s: &State) -> &'static str {
    s.battle(&s.first).map(|b| if b.side == BRACCIO { BRACCIO } else { s.other(BRACCIO) }).unwrap_or(BRACCIO)
}

/// Open the row step, if any side has a Battle with a row.
pub fn begin(s: &mut State) {
    let roles: Vec<String> =
        s.roles().into_iter().filter(|r| with_rows(s, r).next().is_some()).map(String::from).collect();
    if !roles.is_empty() {
        s.pending = Pending::Rows { roles };
    }
}

/// `role`'s rows, for the prompt: `Baglioni: 1509 1510 1511 1512 (3
/// units)`.
pub fn describe(s: &State, role: &str) -> String {
    with_rows(s, role)
        .map(|b| {
            let n = s.units.iter().filter(|u| u.battle == b.name).count();
            format!("{}: {} ({n} units)", b.name, b.row.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The Battle whose row a piece named `who` of `role` is placed within:
/// one of its units, its Captain (named by his Battle, as the order
/// parser gives him) or a Squad Leader.
fn battle_of<'a>(s: &'a State, role: &str, who: &str) -> Option<&'a Battle> {
    let b = match s.unit(who) {
        Some(u) => s.battle(&u.battle),
        None => s.battle(who).or_else(|| s.battle_of_leader(who)),
    }?;
    with_rows(s, role).any(|r| r.name == b.name).then_some(b)
}

/// Check a row step's mail: `PASS` (the printed hexes), or `PLACE` lines
/// putting units and leaders of Battles with a row on hexes of that row,
/// one unit a hex once every unit not named stays where it is (9.0.1).
pub fn validate(s: &State, role: &str, orders: &[(usize, &Order)]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    let example = || {
        with_rows(s, role)
            .next()
            .and_then(|b| {
                let u = s.units.iter().find(|u| u.battle == b.name)?;
                Some(format!("PLACE {} AT {} | PASS", u.name, b.row.last()?))
            })
            .unwrap_or_else(|| "PASS".into())
    };
    if let [(_, Order::Pass)] = orders {
        return out;
    }
    // Standing policies alone are no answer to this step.
    if orders.is_empty() {
        out.push((
            0,
            Problem::new("this step asks where your units stand in their set-up rows (S1.1): PLACE lines, or PASS")
                .hint(example()),
        ));
    }
    let mut placed: BTreeMap<String, (usize, Hex)> = BTreeMap::new();
    for (i, o) in orders {
        let Order::Place { who, hex, face } = o else {
            out.push((
                *i,
                Problem::new(format!(
                    "{o}: this step places units within their set-up rows (S1.1): PLACE lines, or PASS alone"
                ))
                .hint(example()),
            ));
            continue;
        };
        let Some(b) = battle_of(s, role, who) else {
            out.push((
                *i,
                Problem::new(format!("{who} is not in one of your Battles with a set-up row (S1.1)"))
                    .hint(describe(s, role)),
            ));
            continue;
        };
        let h = Hex::parse(hex).expect("parsed hex");
        if face.is_some() && s.unit(who).is_none() {
            out.push((
                *i,
                Problem::new(format!("{who} is a leader: a leader has no facing")).hint(format!("PLACE {who} AT {h}")),
            ));
        } else if !b.row.iter().any(|x| Hex::parse(x) == Some(h)) {
            out.push((
                *i,
                Problem::new(format!("{h} is not in {}'s set-up row (S1.1)", b.name))
                    .hint(format!("one of {}", b.row.join(" "))),
            ));
        } else if placed.insert(who.clone(), (*i, h)).is_some() {
            out.push((*i, Problem::new(format!("{who} is placed twice"))));
        }
    }
    // One unit a hex, those not named staying on their printed hexes.
    let mut taken: BTreeMap<Hex, String> = BTreeMap::new();
    let at0 = orders.first().map(|x| x.0).unwrap_or(0);
    let mut units: Vec<(&Unit, usize, Option<Hex>)> = s
        .units
        .iter()
        .filter(|u| u.side == role && !s.battle(&u.battle).map(|b| b.off_map).unwrap_or(true))
        .map(|u| match placed.get(&u.name) {
            Some((i, h)) => (u, *i, Some(*h)),
            None => (u, at0, u.at()),
        })
        .collect();
    // Those staying first, so the clash is told on a PLACE line.
    units.sort_by_key(|(u, _, _)| placed.contains_key(&u.name));
    for (u, i, h) in units {
        let Some(h) = h else { continue };
        if let Some(other) = taken.insert(h, u.name.clone()) {
            out.push((
                i,
                Problem::new(format!("{h} holds {other} too: one unit a hex (9.0.1)"))
                    .hint(format!("PLACE {other} AT <another hex of its row>")),
            ));
        }
    }
    out
}

/// Apply the row step, every awaited side's placements (the deadline's
/// default keeps the printed hexes), and open the scenario's opening.
pub fn resolve(s: &mut State, roles: &[String], orders: &BTreeMap<String, Vec<Order>>, ev: &mut Vec<Event>) {
    for role in roles {
        place(s, role, orders.get(role).map(Vec::as_slice).unwrap_or_default(), ev);
    }
    s.pending = Pending::Activation { role: opener(s).into() };
}

fn place(s: &mut State, role: &str, orders: &[Order], ev: &mut Vec<Event>) {
    let mut placed = Vec::new();
    for o in orders {
        let Order::Place { who, hex, face } = o else { continue };
        if let Some(name) = s.put(who, hex, *face) {
            placed.push(format!("{name} {hex}"));
        }
    }
    ev.push(Event::all(if placed.is_empty() {
        format!("{} keeps the printed set-up of its rows (S1.1).", side_name(role))
    } else {
        format!("{} places within its set-up rows: {} (S1.1).", side_name(role), placed.join(", "))
    }));
}

/// A random arrangement of `role`'s row Battles, for the conformance
/// player: each Battle's units on distinct hexes of its row; `PASS` when
/// the draw is not legal (rows that overlap may leave a unit no hex).
pub fn random(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let out = draw(s, role, pick);
    let numbered: Vec<(usize, &Order)> = out.iter().enumerate().map(|(i, o)| (i + 1, o)).collect();
    if validate(s, role, &numbered).is_empty() {
        out
    } else {
        vec![Order::Pass]
    }
}

fn draw(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut out = Vec::new();
    let mut used = BTreeSet::new();
    let moving: BTreeSet<&str> = with_rows(s, role).map(|b| b.name.as_str()).collect();
    for b in with_rows(s, role) {
        // Off the hexes already given, and those of units that stay.
        let mut free: Vec<&String> = b
            .row
            .iter()
            .filter(|h| !used.contains(*h))
            .filter(|h| s.units.iter().all(|u| u.hex != **h || moving.contains(u.battle.as_str())))
            .collect();
        for u in s.units.iter().filter(|u| u.battle == b.name) {
            if free.is_empty() {
                break;
            }
            let h = free.remove(pick(free.len()));
            used.insert(h.clone());
            out.push(Order::Place { who: u.name.clone(), hex: h.clone(), face: None });
        }
    }
    if out.is_empty() {
        out.push(Order::Pass);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sant'Egidio with rows for Ceccolino (`ceccolino`) and Baglioni, the
    /// row step open.
    fn two_rows(ceccolino: &str) -> State {
        let mut s = super::super::data::setup("sant-egidio").unwrap();
        for (name, row) in [("Ceccolino", ceccolino), ("Baglioni", "1508 1509 1510 1511 1512 1309 1310 1311")] {
            s.battle_mut(name).unwrap().row = row.split(' ').map(String::from).collect();
        }
        begin(&mut s);
        s
    }

    /// The random player's arrangements are legal, and both sides' steps
    /// lead to the opening: over many draws, with rows that overlap the
    /// hexes of a Battle without one.
    #[test]
    fn random_arrangements_are_legal_and_lead_to_the_opening() {
        let base = two_rows("2210 2211 2212 2213 2214 2410 2411 2412 2413 2414 2415");
        let mut seed = 7u64;
        let mut pick = move |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n.max(1) as u64) as usize
        };
        let roles: Vec<String> = vec![BRACCIO.into(), MALATESTA.into()];
        assert_eq!(base.pending, Pending::Rows { roles: roles.clone() });
        for _ in 0..50 {
            let mut s = base.clone();
            let mut all = BTreeMap::new();
            for role in &roles {
                let orders = random(&s, role, &mut pick);
                // A draw of its own, not the fallback: these rows never
                // leave a unit without a hex.
                assert!(orders != [Order::Pass], "{role} fell back to PASS");
                let numbered: Vec<(usize, &Order)> = orders.iter().enumerate().map(|(i, o)| (i + 1, o)).collect();
                let problems = validate(&s, role, &numbered);
                assert!(problems.is_empty(), "{orders:?}: {problems:?}");
                all.insert(role.clone(), orders);
            }
            resolve(&mut s, &roles, &all, &mut Vec::new());
            assert_eq!(s.pending, Pending::Activation { role: BRACCIO.into() });
            let hexes: BTreeSet<&str> = s.units.iter().map(|u| u.hex.as_str()).collect();
            assert_eq!(hexes.len(), s.units.len(), "one unit a hex");
        }
    }

    /// The demo answers the row step for both sides at once, each mail
    /// a legal answer, so a scenario with rows never stalls it.
    #[test]
    fn the_demo_answers_the_row_step_for_both_sides() {
        let s = two_rows("2210 2211 2212 2213 2214 2410 2411 2412 2413");
        let mails = super::super::demo::mails(&s, 1).expect("the demo goes on");
        let roles: Vec<&str> = mails.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, [BRACCIO, MALATESTA]);
        for m in &mails {
            let orders: Vec<Order> = m
                .text
                .lines()
                .map(|l| super::super::orders::parse(&s, &m.role, l).expect("the demo's line reads"))
                .collect();
            let numbered: Vec<(usize, &Order)> = orders.iter().enumerate().map(|(i, o)| (i + 1, o)).collect();
            assert!(validate(&s, &m.role, &numbered).is_empty(), "{}", m.text);
        }
    }
}
