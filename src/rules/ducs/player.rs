//! adjutant's play of a side (`rules::shared::player`): the state as the
//! side may know it, and how good a position is for it.

use super::movement::Position;
use super::random::{after_moves, random_attacks};
use super::{orders, other, Order, Phase, State, ORF, WULF};
use crate::rules::shared::hex::Hex;
use crate::rules::shared::player::{anytime, Draw, Mind};
use std::collections::BTreeSet;

/// This game's computer player (`rules::shared::player`).
pub const MIND: Mind<State, Order> =
    Mind { believed, value, draw: Draw::Mixed(propose), may_stay: anytime, breadth: 1 };

/// The state as `role` may know it: the phasing side's queued attacks are
/// its own secret (3.3), so the other side's search never reads them.
pub fn believed(s: &State, role: &str) -> State {
    let mut b = s.clone();
    if s.active != role {
        b.queue.clear();
    }
    b
}

/// A position rated for Orfburg, whose conquest decides the game (R25,
/// R26): strength on the map, cities and fortresses held, Kaiserburg
/// held, Wulfenburg counters kept out of the land between the rivers, and
/// Orfburg's counters near Kaiserburg; Wulfenburg's rating is its opposite.
pub fn value(s: &State, role: &str) -> f64 {
    let strength = |side: &str| s.alive(side).map(|u| u.strength as f64).sum::<f64>();
    let mut v = 3.0 * (strength(ORF) - strength(WULF));
    let held = |side: &str| s.hexes.iter().filter(|h| h.control == side).count() as f64;
    v += 5.0 * (held(ORF) - held(WULF));
    let targets: Vec<Hex> = s.hexes.iter().filter(|h| h.objective).filter_map(|h| Hex::parse(&h.name)).collect();
    v += 20.0 * s.hexes.iter().filter(|h| h.objective && h.control == ORF).count() as f64;
    let zone: Vec<Hex> = s.hexes.iter().filter(|h| h.zone).filter_map(|h| Hex::parse(&h.name)).collect();
    v -= 4.0 * s.alive(WULF).filter(|u| u.at().is_some_and(|h| zone.contains(&h))).count() as f64;
    let near = |h: Hex| targets.iter().map(|&t| s.grid.distance(h, t)).min().unwrap_or(0) as f64;
    v -= 0.5 * s.alive(ORF).filter_map(|u| u.at()).map(near).sum::<f64>();
    // A dead duke loses at once (R20, R28): enemies near him are a threat.
    let threat = |side: &str| {
        let Some(d) = s.duke_of(side).and_then(|d| d.at()) else { return 0.0 };
        s.alive(other(side)).filter_map(|u| u.at()).filter(|&h| s.grid.distance(h, d) <= 2).count() as f64
    };
    v -= 15.0 * (threat(ORF) - threat(WULF));
    if role == ORF {
        v
    } else {
        -v
    }
}

/// Where a side's counters march: Orfburg on what it must hold between
/// the rivers, Kaiserburg first (R25); Wulfenburg on Orfburg's counters
/// and on Kaiserburg, to keep it.
fn goals(s: &State, role: &str) -> Vec<Hex> {
    let hex = |name: &str| Hex::parse(name);
    let mut g: Vec<Hex> =
        s.hexes.iter().filter(|h| h.objective && h.control != role).filter_map(|h| hex(&h.name)).collect();
    if role == ORF {
        g.extend(
            s.hexes.iter().filter(|h| h.zone && !h.place.is_empty() && h.control != ORF).filter_map(|h| hex(&h.name)),
        );
    } else {
        g.extend(s.hexes.iter().filter(|h| h.objective).filter_map(|h| hex(&h.name)));
        g.extend(s.alive(ORF).filter_map(|u| u.at()));
    }
    g
}

/// A purposeful move phase: most counters (never the duke) march to the
/// free hex in reach nearest the side's goals, then attack what they
/// touch, as the random player would; any other step is the random
/// player's.
pub fn propose(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    if s.phase != Phase::Move {
        return super::random::orders(&super::Ducs, s, role, pick);
    }
    let goals = goals(s, role);
    if goals.is_empty() {
        return super::random::orders(&super::Ducs, s, role, pick);
    }
    let pos = Position::new(s);
    let mut taken: BTreeSet<Hex> = s.units.iter().filter_map(|u| u.at()).collect();
    let mut moves = Vec::new();
    for u in s.alive(role).filter(|u| !u.duke()).collect::<Vec<_>>() {
        if pick(4) == 0 {
            continue;
        }
        let Some(from) = u.at() else { continue };
        let near = |h: Hex| goals.iter().map(|&g| s.grid.distance(h, g)).min().unwrap_or(0);
        let reach = pos.reach(u, from, u.movement * 2);
        let best = reach.keys().copied().filter(|h| !taken.contains(h)).min_by_key(|&h| (near(h), pick(4)));
        if let Some(to) = best.filter(|&to| near(to) < near(from)) {
            taken.remove(&from);
            taken.insert(to);
            moves.push(Order::Move { counters: vec![u.id.clone()], to: to.to_string(), via: Vec::new() });
        }
    }
    let mut all = moves.clone();
    all.extend(random_attacks(&after_moves(s, role, &moves), role, pick));
    for candidate in [all, moves] {
        if !candidate.is_empty() && orders::validate(s, role, &candidate).is_empty() {
            return candidate;
        }
    }
    vec![Order::Pass]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ducs::{Ducs, Queued};
    use crate::rules::shared::player::{blind, Pick};

    /// The phasing side's queue of attacks, changed where `role` is not
    /// the phasing side.
    fn other_secrets(s: &State, role: &str, pick: &mut Pick) -> State {
        let mut t = s.clone();
        if s.active != role {
            t.queue.reverse();
            let hex = s.hexes[pick.below(s.hexes.len())].name.clone();
            t.queue.push(Queued { hex, targets: Vec::new(), attackers: Vec::new(), advance: None });
        }
        t
    }

    #[test]
    fn what_adjutant_believes_and_plays_does_not_depend_on_the_enemys_secrets() {
        blind::check(&Ducs, "standard", &[ORF, WULF], 40, other_secrets, believed);
    }
}
