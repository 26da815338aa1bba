//! The no-moves orders of a silent commander, and random legal Housekeeping
//! for the conformance test.

use super::housekeeping::policing_required;
use super::orders::{candidates, mission_words, rallyable, validate, Order, Recruit, MEASURES};
use super::{other, Rank, SpyStatus, State, UnitKind, GARRISON, GM};

/// A silent commander rallies every unit with hits, most hits first (the
/// rulebook's advice), polices the town with the fewest-hit infantry if
/// Local Support calls for it, and promotes the first candidate if the
/// Commander is dead. No spies, measures or recruits.
pub fn no_moves(s: &State, side: &str) -> Vec<Order> {
    let mut v = Vec::new();
    let a = s.army(side);
    if a.led() {
        let mut units: Vec<_> = rallyable(s, side)
            .into_iter()
            .filter(|n| v_ok(s, side, &Order::Rally { units: vec![n.clone()] }))
            .collect();
        units.sort_by_key(|n| std::cmp::Reverse(a.unit(n).map(|u| u.hits).unwrap_or(0)));
        if !units.is_empty() {
            v.push(Order::Rally { units });
        }
    }
    if a.commander().is_none() {
        if let Some(c) = candidates(s, side).first() {
            v.push(Order::Promote { officer: c.clone() });
        }
    }
    if side == GARRISON {
        let need = policing_required(s.town.ls);
        // A unit that rallies may do nothing else: police with the others.
        let rallying: Vec<String> =
            v.iter().flat_map(|o| if let Order::Rally { units } = o { units.clone() } else { Vec::new() }).collect();
        let mut inf: Vec<_> =
            a.alive_units().filter(|u| u.kind == UnitKind::Infantry && !rallying.contains(&u.name)).collect();
        inf.sort_by_key(|u| u.total_hits());
        let mut given = 0;
        let mut police = Vec::new();
        for u in inf {
            if given >= need {
                break;
            }
            given += u.halves;
            police.push(u.name.clone());
        }
        if !police.is_empty() {
            v.push(Order::Police { units: police });
        }
    }
    if v.is_empty() {
        v.push(Order::Pass);
    }
    v
}

fn v_ok(s: &State, side: &str, o: &Order) -> bool {
    validate(s, side, std::slice::from_ref(o)).is_empty()
}

/// Random legal orders: each candidate order is tried alone and kept if it
/// is legal together with what was kept before.
pub fn orders(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    if role == GM {
        return gm_orders(s, pick);
    }
    let a = s.army(role);
    let mut cands = Vec::new();
    let units: Vec<String> = a.alive_units().map(|u| u.name.clone()).collect();
    if role == GARRISON {
        if pick(4) == 0 {
            cands.push(Order::Food { measure: pick(MEASURES.len()) });
        }
        if let Some(sp) = a.alive_units().find(|u| u.kind == UnitKind::Sappers) {
            cands.push(Order::FireDuty { unit: sp.name.clone() });
        }
        if pick(2) == 0 {
            cands.push(Order::Meet { mayor: pick(2) == 0 });
        }
    }
    let missions = mission_words(s, role);
    for spy in a.spies.iter().filter(|x| x.status == SpyStatus::Active && !missions.is_empty()) {
        if pick(3) == 0 {
            cands.push(Order::Sack { spy: spy.name.clone() });
            continue;
        }
        let w = &missions[pick(missions.len())];
        let key = w.split(' ').take(2).collect::<Vec<_>>().join("-").to_lowercase();
        let enemy = s.army(other(role));
        let target = (key == "kill-officer").then(|| {
            // The Security Officer is targeted by his office, never by name.
            let mut alive: Vec<_> = enemy
                .officers
                .iter()
                .filter(|o| o.alive && !matches!(o.rank, Rank::Commander | Rank::Security))
                .map(|o| o.name.clone())
                .collect();
            alive.push(super::orders::SECURITY_TARGET.to_string());
            alive[pick(alive.len())].clone()
        });
        let walls = if key == "info-walls" {
            s.town.walls.iter().take(3).map(|w| w.name.clone()).collect()
        } else {
            Vec::new()
        };
        cands.push(Order::Mission { spy: spy.name.clone(), key, target: target.filter(|t| !t.is_empty()), walls });
    }
    for o in a.officers.iter().filter(|o| o.alive) {
        if pick(2) == 0 && !units.is_empty() {
            cands.push(Order::Officer { name: o.name.clone(), near: vec![units[pick(units.len())].clone()] });
        }
    }
    let mut hit = rallyable(s, role);
    if !hit.is_empty() {
        let k = pick(hit.len());
        hit.rotate_left(k);
        cands.push(Order::Rally { units: hit });
    }
    let n = a.spies.len() + a.units.len() + a.officers.len();
    let recruit = [Recruit::Spy, Recruit::Sappers, Recruit::Miners, Recruit::Named, Recruit::Security][pick(5)];
    if pick(4) == 0 {
        cands.push(Order::Recruit {
            what: recruit,
            name: format!("{} Recruit {n}", if role == GARRISON { "Town" } else { "Camp" }),
        });
    }
    if let Some(c) = candidates(s, role).first() {
        cands.push(Order::Promote { officer: c.clone() });
    }
    if role == GARRISON && policing_required(s.town.ls) > 0 {
        let inf: Vec<String> =
            a.alive_units().filter(|u| u.kind == UnitKind::Infantry).map(|u| u.name.clone()).collect();
        let take = pick(inf.len() + 1);
        if take > 0 {
            cands.push(Order::Police { units: inf[..take].to_vec() });
        }
        if !inf.is_empty() {
            cands.push(Order::RiotHits { units: vec![inf[pick(inf.len())].clone()] });
        }
    }
    let mut kept: Vec<Order> = Vec::new();
    for c in cands {
        let mut trial = kept.clone();
        trial.push(c);
        if validate(s, role, &trial).is_empty() {
            kept = trial;
        }
    }
    if kept.is_empty() {
        kept.push(Order::Pass);
    }
    kept
}

/// The moderator's random table-top report: some hits, now and then a
/// death, a fire, powder spent, a unit moving to or from danger.
fn gm_orders(s: &State, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut v = Vec::new();
    let all: Vec<(String, String)> =
        s.armies.iter().flat_map(|(side, a)| a.alive_units().map(move |u| (side.clone(), u.name.clone()))).collect();
    for _ in 0..pick(3) {
        if all.is_empty() {
            break;
        }
        let (side, u) = &all[pick(all.len())];
        if v.iter().any(|o| matches!(o, Order::Hits { unit, .. } if unit == u)) {
            continue;
        }
        v.push(Order::Hits { side: side.clone(), unit: u.clone(), n: 1 + pick(2) as u32, lasting: pick(5) == 0 });
    }
    if pick(4) == 0 && !all.is_empty() {
        let (side, u) = &all[pick(all.len())];
        let at = [super::Whereabouts::Danger, super::Whereabouts::Clear, super::Whereabouts::Safe][pick(3)];
        v.push(Order::Place { side: side.clone(), unit: u.clone(), at });
    }
    if pick(3) == 0 {
        v.push(Order::Fires { delta: 1 + pick(3) as i32 });
    }
    if pick(3) == 0 {
        let side = if pick(2) == 0 { super::BESIEGERS } else { GARRISON };
        v.push(Order::Stores { what: super::orders::Store::Powder, side: side.into(), delta: -(1 + pick(3) as i32) });
    }
    if pick(12) == 0 {
        let alive: Vec<(String, String)> = s
            .armies
            .iter()
            .flat_map(|(side, a)| a.officers.iter().filter(|o| o.alive).map(move |o| (side.clone(), o.name.clone())))
            .collect();
        if !alive.is_empty() {
            let (side, name) = alive[pick(alive.len())].clone();
            v.push(Order::Kill { side, name });
        }
    }
    if pick(6) == 0 {
        v.push(Order::Ls { delta: if pick(2) == 0 { -1 } else { 1 } });
    }
    if v.is_empty() {
        v.push(Order::Done);
    }
    v
}
