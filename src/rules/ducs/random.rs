//! The no-moves orders of La Guerre des Ducs (brief 3.5: what a silent
//! side is taken to have ordered at a deadline), and random legal play,
//! the conformance test's player.

use super::combat::{self, RetreatOption};
use super::movement::Position;
use super::orders::{self, Advance};
use super::{data, Ducs, Order, Phase, State, Unit};
use crate::rules::shared::hex::Hex;
use std::collections::BTreeSet;

/// Counters in the order the defaults take them: Duke, I1…I10, C1…, A1….
fn in_order<'a>(s: &'a State, role: &str) -> Vec<&'a Unit> {
    let rank = |u: &Unit| match u.kind.as_str() {
        "duke" => 0,
        "infantry" => 1,
        "cavalry" => 2,
        _ => 3,
    };
    let mut v: Vec<&Unit> = s.units.iter().filter(|u| u.side == role).collect();
    v.sort_by_key(|u| (rank(u), u.id.trim_start_matches(|c: char| c.is_alphabetic()).parse::<u32>().unwrap_or(0)));
    v
}

fn capital(s: &State, role: &str) -> Option<Hex> {
    s.hexes.iter().find(|h| h.capital == role).and_then(|h| Hex::parse(&h.name))
}

pub fn defaults(s: &State, role: &str) -> Vec<Order> {
    match s.phase {
        Phase::Garrison => {
            let hexes = data::garrison_hexes(s, role);
            let units = in_order(s, role).into_iter().filter(|u| !u.duke());
            units.zip(hexes).map(|(u, h)| Order::Place { counter: u.id.clone(), hex: h.to_string() }).collect()
        }
        Phase::Placement => {
            let Some(u) = in_order(s, role).into_iter().find(|u| !u.on_map() && !u.eliminated) else {
                return Vec::new();
            };
            let home = capital(s, role).unwrap_or(crate::rules::shared::hex::Hex::new(1, 1));
            let mut room = data::placement_room(s, role);
            if u.duke() {
                // The duke joins the capital's garrison when it may (the
                // capital is nearest of all).
                room.extend(data::duke_room(s, role));
            }
            match room.into_iter().min_by_key(|&h| (s.grid.distance(h, home), h)) {
                Some(h) => vec![Order::Place { counter: u.id.clone(), hex: h.to_string() }],
                None => Vec::new(),
            }
        }
        Phase::Move => vec![Order::Pass],
        Phase::Combat => vec![Order::Pass],
        Phase::Retreat => retreat(s, |opts| combat::default_retreat(s, retreating(s).expect("a retreat"), opts)),
        Phase::Losses => match combat::loss_sets(s).into_iter().next() {
            Some(set) => vec![Order::Lose { units: set.iter().map(|n| id(n)).collect() }],
            None => Vec::new(),
        },
        Phase::Advance => vec![Order::Hold],
        Phase::Over => Vec::new(),
    }
}

fn id(name: &str) -> String {
    name.split_once(' ').map(|x| x.1).unwrap_or(name).to_string()
}

fn retreating(s: &State) -> Option<&Unit> {
    s.fight.as_ref().and_then(|f| f.retreating.first()).and_then(|n| s.unit(n))
}

fn retreat(s: &State, mut choose: impl FnMut(&[RetreatOption]) -> Option<RetreatOption>) -> Vec<Order> {
    let Some(u) = retreating(s) else { return Vec::new() };
    let f = s.fight.as_ref().expect("a fight");
    let options = combat::retreat_options(s, u, &f.retreaters);
    match choose(&options) {
        Some(RetreatOption::To(h)) => vec![Order::Retreat { counter: u.id.clone(), to: h.to_string(), push: None }],
        Some(RetreatOption::Push { to, pushed, push_to }) => vec![Order::Retreat {
            counter: u.id.clone(),
            to: to.to_string(),
            push: Some((id(&pushed), push_to.to_string())),
        }],
        None => Vec::new(),
    }
}

pub fn orders(_: &Ducs, s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    match s.phase {
        Phase::Garrison => {
            let hexes = data::garrison_hexes(s, role);
            let mut units: Vec<&Unit> = in_order(s, role).into_iter().filter(|u| !u.duke()).collect();
            let mut out = Vec::new();
            for h in hexes {
                if units.is_empty() {
                    break;
                }
                let u = units.remove(pick(units.len()));
                out.push(Order::Place { counter: u.id.clone(), hex: h.to_string() });
            }
            out
        }
        Phase::Placement => {
            let mut left: Vec<&Unit> = in_order(s, role).into_iter().filter(|u| !u.on_map() && !u.eliminated).collect();
            let mut room = data::placement_room(s, role);
            let mut out = Vec::new();
            for _ in 0..(1 + pick(6)) {
                if left.is_empty() || room.is_empty() {
                    break;
                }
                let u = left.remove(pick(left.len()));
                let h = room.remove(pick(room.len()));
                out.push(Order::Place { counter: u.id.clone(), hex: h.to_string() });
            }
            if out.is_empty() {
                defaults(s, role)
            } else {
                out
            }
        }
        Phase::Move => {
            let moves = random_moves(s, role, pick);
            let mut all = moves.clone();
            let after = after_moves(s, role, &moves);
            all.extend(random_attacks(&after, role, pick));
            if pick(4) == 0 {
                all.push(Order::Continue);
            }
            for candidate in [all, moves] {
                if !candidate.is_empty() && orders::validate(s, role, &candidate).is_empty() {
                    return candidate;
                }
            }
            vec![Order::Pass]
        }
        Phase::Combat => {
            let mut all = random_attacks(s, role, pick);
            if !all.is_empty() && pick(3) == 0 {
                all.push(Order::Continue);
            }
            if !all.is_empty() && orders::validate(s, role, &all).is_empty() {
                all
            } else {
                vec![Order::Pass]
            }
        }
        Phase::Retreat => retreat(s, |opts| (!opts.is_empty()).then(|| opts[pick(opts.len())].clone())),
        Phase::Losses => {
            let sets = combat::loss_sets(s);
            if sets.is_empty() {
                return Vec::new();
            }
            let set = &sets[pick(sets.len())];
            vec![Order::Lose { units: set.iter().map(|n| id(n)).collect() }]
        }
        Phase::Advance => {
            let cands = combat::advance_candidates(s);
            match pick(cands.len() + 1) {
                i if i < cands.len() => vec![Order::Advance { unit: id(&cands[i]) }],
                _ => vec![Order::Hold],
            }
        }
        Phase::Over => Vec::new(),
    }
}

/// Some of the side's counters move: half of them towards the nearest
/// enemy, the rest anywhere they can reach, never two ending together.
fn random_moves(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let pos = Position::new(s);
    let enemies: Vec<Hex> = s.alive(super::other(role)).filter_map(|u| u.at()).collect();
    let mut taken: BTreeSet<Hex> = s.units.iter().filter_map(|u| u.at()).collect();
    let mut out = Vec::new();
    for u in s.alive(role).collect::<Vec<_>>() {
        if pick(3) == 0 {
            continue;
        }
        let from = u.at().expect("on the map");
        let reach = pos.reach(u, from, u.movement * 2);
        let dests: Vec<Hex> = reach.keys().copied().filter(|h| !taken.contains(h)).collect();
        if dests.is_empty() {
            continue;
        }
        let to = if pick(2) == 0 && !enemies.is_empty() {
            *dests
                .iter()
                .min_by_key(|&&h| (enemies.iter().map(|&e| s.grid.distance(h, e)).min().unwrap_or(0), h))
                .expect("some destination")
        } else {
            dests[pick(dests.len())]
        };
        taken.remove(&from);
        taken.insert(to);
        out.push(Order::Move { counters: vec![u.id.clone()], to: to.to_string(), via: Vec::new() });
    }
    out
}

pub(super) fn after_moves(s: &State, role: &str, moves: &[Order]) -> State {
    let mut after = s.clone();
    for m in moves {
        if let Order::Move { counters, to, .. } = m {
            for c in counters {
                if let Some(u) = after.units.iter_mut().find(|u| u.side == role && &u.id == c) {
                    u.hex = to.clone();
                }
            }
        }
    }
    after
}

/// Attacks on enemies in reach, each by some of the units that reach it.
pub(super) fn random_attacks(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut used = BTreeSet::new();
    let mut out = Vec::new();
    let targets: Vec<Hex> = s
        .units
        .iter()
        .filter(|u| u.side != role && u.on_map() && !u.attacked)
        .filter_map(|u| u.at())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for t in targets {
        if pick(2) == 0 {
            continue;
        }
        let able: Vec<&Unit> = s
            .alive(role)
            .filter(|u| !u.duke() && !u.fought && !used.contains(&u.id))
            .filter(|u| {
                let d = s.grid.distance(u.at().expect("on the map"), t);
                d == 1 || (u.range >= 2 && d <= u.range)
            })
            .collect();
        if able.is_empty() {
            continue;
        }
        let with: Vec<&Unit> = able.iter().copied().filter(|_| pick(3) != 0).collect();
        let with = if with.is_empty() { vec![able[0]] } else { with };
        let close: Vec<&&Unit> = with.iter().filter(|u| s.grid.distance(u.at().expect("on the map"), t) == 1).collect();
        let advance = match pick(3) {
            0 => None,
            1 => Some(Advance::Hold),
            _ => close.first().map(|u| Advance::Unit(u.id.clone())),
        };
        for u in &with {
            used.insert(u.id.clone());
        }
        out.push(Order::Attack { hex: t.to_string(), with: with.iter().map(|u| u.id.clone()).collect(), advance });
    }
    out
}
