//! Random legal orders for Siege of Mantua: the conformance test's player.
//! Each candidate is checked by the same validation players face; a
//! candidate that fails is dropped, and a turn falls back to PASS.

use super::{escape_routes, reachable, Mantua, Order, Phase, State, AUSTRIA, BESIEGED};
use crate::engine::Rules;

pub fn orders(m: &Mantua, s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    match s.phase {
        Phase::Setup => setup(s, role, pick),
        Phase::Turn => {
            for _ in 0..12 {
                let o = turn(s, role, pick);
                if !o.is_empty() && m.validate(s, role, &o).is_empty() && !reckless(s, role, &o) {
                    return o;
                }
            }
            vec![Order::Pass]
        }
        Phase::Escape => {
            let a = s.attack.as_ref().expect("escape has an attack");
            let routes = escape_routes(s, a);
            match pick(routes.len() + 1) {
                i if i < routes.len() => vec![Order::Escape { to: routes[i].clone() }],
                _ => vec![Order::Stand],
            }
        }
        Phase::LiftSiege => {
            let mine: Vec<String> = s.alive(AUSTRIA).map(|b| b.name.clone()).collect();
            let n = pick(3).min(mine.len());
            let mut chosen: Vec<String> = Vec::new();
            while chosen.len() < n {
                let b = mine[pick(mine.len())].clone();
                if !chosen.contains(&b) {
                    chosen.push(b);
                }
            }
            if chosen.is_empty() {
                vec![Order::Pass]
            } else {
                vec![Order::Strengthen { blocks: chosen }]
            }
        }
        Phase::Battle => super::battle::random_orders(s, role, pick),
        Phase::Over => vec![],
    }
}

/// The prompt's worked example, from the role's own blocks and the map
/// (both of which the role sees): a set-up, one block's move to a place
/// reachable and not held by the enemy, the first escape route, two blocks
/// strengthened. A battle's syntax lines carry their own.
pub fn example(m: &Mantua, s: &State, role: &str) -> Vec<Order> {
    let first = &mut |_: usize| 0;
    match s.phase {
        Phase::Setup => setup(s, role, first),
        Phase::Turn => {
            let movable = s.alive(role).filter(|b| b.at != BESIEGED);
            let one = movable
                .flat_map(|b| reachable(s, role, &b.at).into_iter().map(move |to| (b.name.clone(), to)))
                .filter(|(_, to)| !s.hostile(role, to))
                .map(|(b, to)| vec![Order::Move { blocks: vec![b], to }])
                .find(|o| m.validate(s, role, o).is_empty());
            one.unwrap_or_else(|| vec![Order::Pass])
        }
        Phase::Escape => orders(m, s, role, first),
        Phase::LiftSiege => {
            vec![Order::Strengthen { blocks: s.alive(AUSTRIA).take(2).map(|b| b.name.clone()).collect() }]
        }
        Phase::Battle | Phase::Over => Vec::new(),
    }
}

/// An Attack by Leaders and Dummies alone: legal, but it loses the game
/// as soon as the Leader is revealed; even a random player avoids it.
fn reckless(s: &State, role: &str, orders: &[Order]) -> bool {
    let attackers: Vec<&super::Block> = orders
        .iter()
        .filter_map(|o| if let Order::Move { blocks, to } = o { Some((blocks, to)) } else { None })
        .filter(|(_, to)| s.hostile(role, to))
        .flat_map(|(b, _)| b.iter().filter_map(|n| s.block(n)))
        .collect();
    !attackers.is_empty() && attackers.iter().all(|b| b.leader || b.dummy)
}

fn setup(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let sc = &*super::SCENARIO;
    let mut v = Vec::new();
    if role == AUSTRIA {
        for b in s.alive(AUSTRIA).filter(|b| b.tyrolean) {
            let at = sc.tyrolean_cities[pick(sc.tyrolean_cities.len())].clone();
            v.push(Order::Place { block: b.name.clone(), at });
        }
    } else {
        let mut names: Vec<String> = s.alive(role).map(|b| b.name.clone()).collect();
        // A random deal of the blocks, two to each city.
        for i in (1..names.len()).rev() {
            names.swap(i, pick(i + 1));
        }
        for (i, n) in names.into_iter().enumerate() {
            v.push(Order::Place { block: n, at: sc.french_cities[(i / 2) % sc.french_cities.len()].clone() });
        }
    }
    v
}

fn turn(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let nets = s.networks(role);
    let movable: Vec<&super::Block> = s.alive(role).filter(|b| b.at != BESIEGED).collect();
    if movable.is_empty() || pick(10) == 0 {
        return vec![Order::Pass];
    }
    let first = movable[pick(movable.len())];
    let net = s.network_of(&nets, first);
    let group: Vec<&super::Block> = movable.into_iter().filter(|b| s.network_of(&nets, b) == net).collect();
    let mut v = Vec::new();
    if pick(6) == 0 && group.len() >= 2 {
        let a = group[pick(group.len())];
        let b = group[pick(group.len())];
        v.push(if pick(2) == 0 {
            Order::Swap { a: a.name.clone(), b: b.name.clone() }
        } else {
            Order::Reassign { from: a.name.clone(), to: b.name.clone() }
        });
        return v;
    }
    let moves = 1 + pick(3);
    let mut used = Vec::new();
    for _ in 0..moves {
        let b = group[pick(group.len())];
        if used.contains(&b.name) {
            continue;
        }
        let dests = reachable(s, role, &b.at);
        if dests.is_empty() {
            continue;
        }
        used.push(b.name.clone());
        v.push(Order::Move { blocks: vec![b.name.clone()], to: dests[pick(dests.len())].clone() });
    }
    v
}
