//! After a battle (rulebook: Consequences of Defeat, Adjusting Unit
//! Pools): the loser's reductions and retreat route, the winner's
//! upgrades, and the pools adjusted in the printed order.

use super::*;

/// The battle ends with `loser`'s defeat.
pub(super) fn end(s: &mut State, loser: &str, annihilated: bool) -> Vec<Event> {
    let winner = other(loser).to_string();
    let b = battle_mut(s);
    b.winner = Some(winner.clone());
    b.annihilated = annihilated;
    b.held.clear();
    let mut ev = vec![Event::all(format!(
        "{} wins the Battle of {}{}; the stakes are {}.",
        side_name(&winner),
        b.target,
        if annihilated { " by annihilation" } else { "" },
        b.stakes
    ))];
    if annihilated {
        // "all those Blocks are Eliminated, regardless of the stakes."
        let names: Vec<String> = b.revealed.get(loser).cloned().unwrap_or_default();
        for n in &names {
            if let Some(x) = s.blocks.iter_mut().find(|x| &x.name == n) {
                x.eliminated = true;
            }
        }
        ev.push(Event::all(format!("All {} blocks in the battle are Eliminated.", side_name(loser))));
        ev.extend(after_reduce(s, loser, None));
        return ev;
    }
    let b = battle_mut(s);
    b.stage = Stage::Reduce;
    b.side = loser.to_string();
    ev
}

/// The loser's blocks that fought and can still take reductions.
pub(super) fn loser_blocks<'a>(s: &'a State, loser: &str) -> Vec<&'a crate::rules::mantua::Block> {
    let b = battle(s);
    b.revealed.get(loser).into_iter().flatten().filter_map(|n| s.block(n)).filter(|x| !x.eliminated).collect()
}

/// Reductions the loser must take: the stakes, or everything it has.
pub fn due(s: &State, loser: &str) -> u32 {
    let cap: u32 = loser_blocks(s, loser).iter().map(|x| x.strength as u32 - 1).sum();
    battle(s).stakes.min(cap)
}

pub fn retreat_routes(s: &State, loser: &str) -> Vec<String> {
    let b = battle(s);
    if loser == b.attacker {
        return Vec::new();
    }
    let a = s.attack.as_ref().expect("attack");
    // A defeated defender leaves by the Escape rules, from a City or a Point.
    let mut routes = escape_routes(s, a);
    if routes.is_empty() {
        if let Some(t) = crate::rules::mantua::MAP.index(&a.target) {
            if crate::rules::mantua::MAP.kind(t) == "point" {
                let used: Vec<&str> = a.groups.iter().map(|g| g.entry.as_str()).collect();
                for &n in &crate::rules::mantua::MAP.adj[t] {
                    let nn = crate::rules::mantua::MAP.name(n);
                    if !used.contains(&nn) && nn != MANTOVA && !s.hostile(loser, nn) {
                        routes.push(nn.to_string());
                    }
                }
            }
        }
    }
    routes
}

/// Reductions applied: leader-alone check, retreat, then pool adjustment.
pub(super) fn after_reduce(s: &mut State, loser: &str, route: Option<String>) -> Vec<Event> {
    let mut ev = Vec::new();
    let winner = other(loser).to_string();
    let (target, attacker) = {
        let b = battle(s);
        (b.target.clone(), b.attacker.clone())
    };
    let fought: Vec<String> = battle(s).revealed.get(loser).cloned().unwrap_or_default();
    let left: Vec<&crate::rules::mantua::Block> =
        fought.iter().filter_map(|n| s.block(n)).filter(|x| !x.eliminated).collect();
    if left.len() == 1 && left[0].leader {
        let name = left[0].name.clone();
        ev.push(lose_game(
            s,
            loser,
            format!("{}'s Leader {name} is the only block left after the reductions", side_name(loser)),
            format!("Only {name}, a Leader, is left of {}'s force", side_name(loser)),
        ));
        return ev;
    }
    let survivors: Vec<String> = left.iter().map(|x| x.name.clone()).collect();
    if loser == attacker {
        let a = s.attack.clone().expect("attack");
        for g in &a.groups {
            for (n, o) in g.blocks.iter().zip(&g.origins) {
                if survivors.contains(n) {
                    s.blocks.iter_mut().find(|x| &x.name == n).expect("block").at = o.clone();
                }
            }
        }
        if !survivors.is_empty() {
            ev.push(Event::all(format!("{}'s surviving blocks return whence they attacked.", side_name(loser))));
        }
    } else if !survivors.is_empty() {
        match route {
            Some(r) => {
                for n in &survivors {
                    s.blocks.iter_mut().find(|x| &x.name == n).expect("block").at = r.clone();
                }
                ev.push(Event::all(format!(
                    "{} retreats {} block(s) from {target} to {r}.",
                    side_name(loser),
                    survivors.len()
                )));
            }
            None => {
                for n in &survivors {
                    s.blocks.iter_mut().find(|x| &x.name == n).expect("block").eliminated = true;
                }
                ev.push(Event::all(format!(
                    "{} has no route to retreat by: its {} block(s) are Eliminated.",
                    side_name(loser),
                    survivors.len()
                )));
            }
        }
    }
    ev.push(Event::all(format!("{} holds {target}.", side_name(&winner))));
    let upgrades = upgrade_slots(s);
    let b = battle_mut(s);
    if upgrades > 0 {
        b.stage = Stage::Upgrade;
        b.side = winner;
    } else {
        ev.extend(adjust(s, &[]));
    }
    ev
}

/// One upgrade per winning block that fought (Leaders yes, Dummies no).
pub(super) fn upgrade_slots(s: &State) -> usize {
    let b = battle(s);
    let w = b.winner.clone().unwrap_or_default();
    b.revealed.get(&w).into_iter().flatten().filter_map(|n| s.block(n)).filter(|x| !x.dummy).count()
}

pub(super) fn surviving_units(b: &Battle, side: &str) -> Vec<String> {
    b.wings.iter().filter(|w| w.side == side).flat_map(|w| w.units.iter().map(|u| u.id.clone())).collect()
}

/// Replace `id` by a Supply counter one level up or down, if there is one.
pub(super) fn swap_level(p: &mut Pools, id: &str, up: bool) -> Option<String> {
    let c = counter(id)?;
    let want = if up { c.level + 1 } else { c.level - 1 };
    p.supply.sort();
    let i = p.supply.iter().position(|x| counter(x).map(|k| k.level == want).unwrap_or(false))?;
    let new = p.supply.remove(i);
    p.supply.push(id.to_string());
    Some(new)
}

/// Adjusting Unit Pools, in the printed order: the winner's upgrades, the
/// winner's broken units degraded, the loser's broken units degraded, the
/// rest back into the Pools. Then the battle is over.
pub(super) fn adjust(s: &mut State, chosen: &[String]) -> Vec<Event> {
    let mut ev = Vec::new();
    let b = s.battle.clone().expect("battle");
    let winner = b.winner.clone().expect("a winner");
    let loser = other(&winner).to_string();
    let slots = upgrade_slots(s);
    let mut survivors = surviving_units(&b, &winner);
    // The winner's picks first, then (it must make every upgrade it can)
    // the highest-level units still below Level 4.
    let mut order: Vec<String> = chosen.to_vec();
    let mut rest: Vec<String> = survivors.iter().filter(|u| !order.contains(u)).cloned().collect();
    rest.sort_by_key(|u| std::cmp::Reverse(counter(u).map(|c| c.level).unwrap_or(0)));
    order.extend(rest);
    let mut done = 0;
    let mut report = Vec::new();
    {
        let p = s.pools.get_mut(&winner).expect("pools");
        for u in order {
            if done == slots {
                break;
            }
            if counter(&u).map(|c| c.level >= 4).unwrap_or(true) {
                continue;
            }
            if let Some(new) = swap_level(p, &u, true) {
                report.push(format!("{} -> {}", describe(&u), describe(&new)));
                survivors.retain(|x| x != &u);
                survivors.push(new);
                done += 1;
            }
        }
    }
    ev.push(Event::all(format!(
        "{} upgrades {done} unit(s) (one allowed per block that fought: {slots}).",
        side_name(&winner)
    )));
    if !report.is_empty() {
        ev.push(Event::to_role(&winner, format!("Upgraded: {}.", report.join("; "))));
    }
    for side in [&winner, &loser] {
        let mut broken = b.broken.get(side.as_str()).cloned().unwrap_or_default();
        // Lowest levels first: degrading a Level 2 frees a Level 2 counter
        // for a Level 3, so every degrade that can happen does.
        broken.sort_by_key(|u| counter(u).map(|c| c.level).unwrap_or(0));
        let p = s.pools.get_mut(side.as_str()).expect("pools");
        let mut back = Vec::new();
        let (mut n, mut short) = (0, 0);
        for u in broken {
            let lvl = counter(&u).map(|c| c.level).unwrap_or(1);
            if lvl >= 2 {
                match swap_level(p, &u, false) {
                    Some(new) => {
                        n += 1;
                        back.push(new);
                    }
                    None => {
                        short += 1;
                        back.push(u);
                    }
                }
            } else {
                back.push(u);
            }
        }
        p.pool.extend(back);
        ev.push(Event::all(format!(
            "{} degrades {n} broken unit(s){}.",
            side_name(side),
            if short > 0 {
                format!(" ({short} could not be: the Supply had no counter of the level below)")
            } else {
                String::new()
            }
        )));
    }
    s.pools.get_mut(&winner).expect("pools").pool.extend(survivors);
    s.pools.get_mut(&loser).expect("pools").pool.extend(surviving_units(&b, &loser));
    for side in [AUSTRIA, FRANCE] {
        s.pools.get_mut(side).expect("pools").pool.sort();
    }
    // Siege lifting: Austria beat the French in the Invested Space.
    let lift = s.siege && b.target == MANTOVA && winner == AUSTRIA && b.attacker == AUSTRIA;
    s.battle = None;
    s.attack = None;
    ev.push(Event::all("The battle is over; blocks stand upright again.".to_string()));
    if lift {
        ev.extend(crate::rules::mantua::Mantua.lift_siege(s));
    } else {
        ev.extend(crate::rules::mantua::Mantua.end_turn(s));
    }
    ev
}

pub(super) fn default_reductions(s: &State, loser: &str) -> Vec<(String, u32)> {
    // One step at a time from the strongest block, Leaders last; unless
    // that would leave a Leader alone (a lost game) where taking the steps
    // on the Leader first would not.
    let plan = |leaders_last: bool| {
        let mut strength: Vec<(String, u8, bool)> =
            loser_blocks(s, loser).iter().map(|x| (x.name.clone(), x.strength, x.leader)).collect();
        let mut plan: BTreeMap<String, u32> = BTreeMap::new();
        for _ in 0..due(s, loser) {
            strength.sort_by_key(|(n, st, leader)| (*leader == leaders_last, std::cmp::Reverse(*st), n.clone()));
            if let Some(x) = strength.iter_mut().find(|x| x.1 > 1) {
                *plan.entry(x.0.clone()).or_default() += 1;
                x.1 -= 1;
            }
        }
        let left: Vec<bool> = strength.iter().filter(|x| x.1 > 1).map(|x| x.2).collect();
        (plan, left.len() == 1 && left[0])
    };
    let (first, alone) = plan(true);
    if alone {
        let (other, still) = plan(false);
        if !still {
            return other.into_iter().collect();
        }
    }
    first.into_iter().collect()
}
