//! adjutant's play of a side (`rules::shared::player`): the state as the
//! side may know it, and how good a position is for it.

use super::{other, State};
use crate::rules::shared::player::{anytime, Draw, Mind};
use std::collections::BTreeMap;

/// This game's computer player (`rules::shared::player`).
pub const MIND: Mind<State, super::Order> = Mind { believed, value, draw: Draw::Random, may_stay: anytime, breadth: 1 };

/// The state as `role` may know it. The enemy's blocks stand upright:
/// where each stands is seen, not which block it is nor its strength
/// (Fog of War). So every enemy block not revealed in the battle being
/// fought gets, in the believed state, one of the enemy's hidden names in
/// a fixed order of its places (a leader's name, with its flags, goes
/// wherever that order puts it), no dummy, and a middling strength; and
/// the enemy's hidden counters (its Pool, its hand, its face-down units)
/// are dealt back to the same places in one fixed order. Nothing in the
/// believed state then depends on which block is which.
pub fn believed(s: &State, role: &str) -> State {
    let mut b = s.clone();
    let enemy = other(role);
    let revealed: Vec<&String> =
        s.battle.as_ref().map(|bt| bt.revealed.values().flatten().collect()).unwrap_or_default();
    let hidden: Vec<usize> = (0..s.blocks.len())
        .filter(|&i| {
            let k = &s.blocks[i];
            k.side == enemy && !k.eliminated && !revealed.contains(&&k.name)
        })
        .collect();
    let mut places: Vec<String> = hidden.iter().map(|&i| s.blocks[i].at.clone()).collect();
    places.sort();
    let mut identities: Vec<(String, bool, bool)> =
        hidden.iter().map(|&i| (s.blocks[i].name.clone(), s.blocks[i].leader, s.blocks[i].tyrolean)).collect();
    identities.sort();
    let guess = s.max_strength.div_ceil(2).max(1);
    // Which believed name now stands for which real one, place by place.
    let mut at_place: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (slot, (place, (name, leader, tyrolean))) in hidden.iter().zip(places.iter().zip(identities)) {
        let k = &mut b.blocks[*slot];
        k.name = name.clone();
        k.at = place.clone();
        k.leader = leader;
        k.tyrolean = tyrolean;
        k.dummy = false;
        k.strength = guess;
        at_place.entry(place.as_str()).or_default().push(name);
    }
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    for (place, mut believed_names) in at_place {
        let mut real: Vec<&String> =
            hidden.iter().map(|&i| &s.blocks[i]).filter(|k| k.at == place).map(|k| &k.name).collect();
        real.sort();
        believed_names.sort();
        renamed.extend(real.into_iter().cloned().zip(believed_names));
    }
    let rename = |n: &mut String| {
        if let Some(x) = renamed.get(n.as_str()) {
            *n = x.clone();
        }
    };
    if let Some(a) = b.attack.as_mut() {
        for g in a.groups.iter_mut() {
            g.blocks.iter_mut().for_each(rename);
        }
    }
    if let Some(bt) = b.battle.as_mut() {
        if let Some(v) = bt.unrevealed.get_mut(enemy) {
            v.iter_mut().for_each(rename);
            v.sort();
        }
    }
    deal_counters(&mut b, enemy);
    b
}

/// The enemy's hidden counters, gathered and dealt back in sorted order to
/// the places they were in: its Pool, its hand, its face-down units.
fn deal_counters(b: &mut State, enemy: &str) {
    let mut ids: Vec<String> = b.pools.get(enemy).map(|p| p.pool.clone()).unwrap_or_default();
    let battle = b.battle.as_mut();
    let hand = battle.as_ref().is_some_and(|bt| bt.side == enemy);
    if let Some(bt) = battle.as_ref() {
        if hand {
            ids.extend(bt.hand.iter().cloned());
        }
        for w in bt.wings.iter().filter(|w| w.side == enemy) {
            ids.extend(w.units.iter().filter(|u| !u.up).map(|u| u.id.clone()));
        }
    }
    ids.sort();
    let mut deal = ids.into_iter();
    if let Some(p) = b.pools.get_mut(enemy) {
        p.pool.iter_mut().for_each(|c| *c = deal.next().expect("as many counters as places"));
    }
    if let Some(bt) = b.battle.as_mut() {
        if hand {
            bt.hand.iter_mut().for_each(|c| *c = deal.next().expect("as many counters as places"));
        }
        for w in bt.wings.iter_mut().filter(|w| w.side == enemy) {
            for u in w.units.iter_mut().filter(|u| !u.up) {
                u.id = deal.next().expect("as many counters as places");
            }
        }
    }
}

/// Blocks on the map, the side's against the enemy's: a side left with
/// five or fewer at the end of a turn loses, so a block counts ten times
/// a step of strength.
pub fn value(s: &State, role: &str) -> f64 {
    let side = |r: &str| s.alive(r).map(|k| 10.0 + k.strength as f64).sum::<f64>();
    side(role) - side(other(role))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::mantua::Mantua;
    use crate::rules::shared::player::Pick;

    /// The same game with the enemy's secrets of `role` changed: its
    /// hidden blocks' strengths and dummies shuffled among them, and its
    /// hidden counters dealt anew.
    fn other_secrets(s: &State, role: &str, pick: &mut Pick) -> State {
        let mut t = s.clone();
        let enemy = other(role);
        let revealed: Vec<String> =
            s.battle.as_ref().map(|b| b.revealed.values().flatten().cloned().collect()).unwrap_or_default();
        let hidden: Vec<usize> = (0..t.blocks.len())
            .filter(|&i| t.blocks[i].side == enemy && !t.blocks[i].eliminated && !revealed.contains(&t.blocks[i].name))
            .collect();
        for &i in &hidden {
            t.blocks[i].strength = 1 + pick.below(s.max_strength.max(1) as usize) as u8;
            t.blocks[i].dummy = pick.below(2) == 0;
        }
        if let Some(p) = t.pools.get_mut(enemy) {
            p.pool.reverse();
        }
        t
    }

    #[test]
    fn what_adjutant_believes_and_plays_does_not_depend_on_the_enemys_secrets() {
        let roles = [crate::rules::mantua::AUSTRIA, crate::rules::mantua::FRANCE];
        crate::rules::shared::player::blind::check(&Mantua, "standard", &roles, 120, other_secrets, believed);
    }
}
