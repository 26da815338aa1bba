//! `adjutant demo ducs`: what the demo's two players send, pass by pass —
//! a refused garrison, the set-up, then every phase played by a plain
//! policy (garrisons hold, the rest march on the enemy capital, attack at
//! 1-1 or better, advance with the first attacker) until a duke falls, a
//! capital is taken or the fifteen turns run out — as a pure function of
//! the state.

use super::movement::Position;
use super::random::defaults;
use super::{combat, orders, other, Order, Phase, State, ORF, WULF};
use crate::engine::DemoMail;
use crate::rules::shared::hex::Hex;
use std::collections::BTreeSet;

/// More passes than any demo game takes (15 turns of two phases, plus
/// the set-up and the retreats the dice ask for).
const LIMIT: usize = 140;

pub fn mails(s: &State, pass: usize) -> Option<Vec<DemoMail>> {
    if pass >= LIMIT || s.outcome.is_some() {
        return None;
    }
    let text = |o: &[Order]| o.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n");
    Some(match s.phase {
        Phase::Garrison if pass == 0 => {
            // Orfburg forgets a fortress and offers its duke as a garrison:
            // refused, with every reason at once.
            let mut bad = defaults(s, ORF);
            bad.pop();
            bad.push(Order::Place { counter: "Duke".into(), hex: "0207".into() });
            vec![
                DemoMail::refused(ORF, &format!("# our garrisons\n{}", text(&bad))),
                DemoMail::new(WULF, &format!("{}\nSALT wulf-1", text(&defaults(s, WULF)))),
            ]
        }
        Phase::Garrison => vec![DemoMail::new(ORF, &format!("{}\nSALT orf-1", text(&defaults(s, ORF))))],
        Phase::Placement => vec![DemoMail::new(&s.active, &text(&place_all(s, &s.active)))],
        Phase::Move => vec![DemoMail::new(&s.active, &text(&march(s, &s.active)))],
        _ => {
            let role = s.awaited_roles().into_iter().next()?;
            let o = match s.phase {
                Phase::Advance => match combat::advance_candidates(s).first() {
                    Some(n) => vec![Order::Advance { unit: n.split_once(' ').map(|x| x.1).unwrap_or(n).to_string() }],
                    None => vec![Order::Hold],
                },
                _ => defaults(s, &role),
            };
            vec![DemoMail::new(&role, &text(&o))]
        }
    })
}

/// Every counter left, each where the no-moves set-up would put it.
fn place_all(s: &State, role: &str) -> Vec<Order> {
    let mut scratch = s.clone();
    let mut out = Vec::new();
    while let Some(Order::Place { counter, hex }) = defaults(&scratch, role).into_iter().next() {
        if let Some(u) = scratch.units.iter_mut().find(|u| u.side == role && u.id == counter) {
            u.hex = hex.clone();
        }
        out.push(Order::Place { counter, hex });
    }
    if out.is_empty() {
        out = defaults(s, role);
    }
    out
}

/// March every unit on the enemy capital, then attack what stands next to
/// them at 1-1 or better.
fn march(s: &State, role: &str) -> Vec<Order> {
    let pos = Position::new(s);
    let target = s.hexes.iter().find(|h| h.capital == other(role)).and_then(|h| Hex::parse(&h.name));
    let Some(target) = target else { return vec![Order::Pass] };
    let mut taken: BTreeSet<Hex> = s.units.iter().filter_map(|u| u.at()).collect();
    let mut moves = Vec::new();
    let mut after = s.clone();
    // Garrisons hold their cities and fortresses; the rest march.
    let map = super::Map::new(s);
    let holds = |h: Hex| map.is_stronghold(h) && map.data(h).map(|d| d.control == role).unwrap_or(false);
    for u in s.alive(role).filter(|u| !u.duke()) {
        let from = u.at().expect("on the map");
        if holds(from) {
            continue;
        }
        let reach = pos.reach(u, from, u.movement * 2);
        let best =
            reach.keys().copied().filter(|h| !taken.contains(h)).min_by_key(|&h| (s.grid.distance(h, target), h));
        if let Some(to) = best.filter(|&h| s.grid.distance(h, target) < s.grid.distance(from, target)) {
            taken.remove(&from);
            taken.insert(to);
            moves.push(Order::Move { counters: vec![u.id.clone()], to: to.to_string(), via: Vec::new() });
            if let Some(x) = after.units.iter_mut().find(|x| x.name == u.name) {
                x.hex = to.to_string();
            }
        }
    }
    let mut attacks = Vec::new();
    let mut used = BTreeSet::new();
    let enemies: BTreeSet<Hex> = after.alive(other(role)).filter_map(|u| u.at()).collect();
    for e in enemies {
        let with: Vec<&super::Unit> = after
            .alive(role)
            .filter(|u| !u.duke() && !used.contains(&u.id))
            .filter(|u| u.at().map(|h| after.grid.distance(h, e) == 1).unwrap_or(false))
            .collect();
        if with.is_empty() {
            continue;
        }
        let (a, d, _, _) = combat::odds(&after, &with, e);
        if a < d {
            continue;
        }
        for u in &with {
            used.insert(u.id.clone());
        }
        attacks.push(Order::Attack {
            hex: e.to_string(),
            with: with.iter().map(|u| u.id.clone()).collect(),
            advance: Some(orders::Advance::Unit(with[0].id.clone())),
        });
    }
    let mut all = moves.clone();
    all.extend(attacks);
    for candidate in [all, moves] {
        if !candidate.is_empty() && orders::validate(s, role, &candidate).is_empty() {
            return candidate;
        }
    }
    vec![Order::Pass]
}
