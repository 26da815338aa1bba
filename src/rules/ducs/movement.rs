//! Movement (R29-R49): half points, roads, bridges and impassable water,
//! stacking, and zones of control that stop a move and may not be crossed
//! from one to the next (A7). Moves of a phase are checked as a set (A6).

use super::{Map, Order, State, Unit};
use crate::engine::Problem;
use crate::rules::shared::hex::{path, Hex, Reached};
use std::collections::{BTreeMap, HashSet};

/// Who stands where, and which hexes each side's enemies hold in their
/// zones of control: built once for a check, so a search is cheap.
pub struct Position<'a> {
    pub map: Map<'a>,
    pub s: &'a State,
    /// Counters by cell (indices into `s.units`).
    occupants: Vec<Vec<usize>>,
    /// By cell, a unit of Orfburg (0) or Wulfenburg (1) whose zone of
    /// control covers it.
    zoc_of: [Vec<Option<usize>>; 2],
}

fn side_index(side: &str) -> usize {
    usize::from(side != super::ORF)
}

impl<'a> Position<'a> {
    pub fn new(s: &'a State) -> Position<'a> {
        let map = Map::new(s);
        let n = (s.grid.columns.max(0) * s.grid.rows.max(0)) as usize;
        let mut occupants: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut zoc_of: [Vec<Option<usize>>; 2] = [vec![None; n], vec![None; n]];
        for (i, u) in s.units.iter().enumerate() {
            let Some(h) = u.at() else { continue };
            let Some(c) = s.grid.cell(h) else { continue };
            occupants[c].push(i);
            if u.duke() {
                continue;
            }
            for nb in s.grid.neighbours(h) {
                if !map.river_between(h, nb) {
                    let slot = &mut zoc_of[side_index(&u.side)][s.grid.cell(nb).expect("a neighbour on the map")];
                    slot.get_or_insert(i);
                }
            }
        }
        Position { map, s, occupants, zoc_of }
    }

    pub fn occupants(&self, h: Hex) -> Vec<&'a Unit> {
        match self.s.grid.cell(h) {
            Some(c) => self.occupants[c].iter().map(|&i| &self.s.units[i]).collect(),
            None => Vec::new(),
        }
    }

    pub fn enemy_at(&self, side: &str, h: Hex) -> bool {
        self.s.grid.cell(h).map(|c| self.occupants[c].iter().any(|&i| self.s.units[i].side != side)).unwrap_or(false)
    }

    /// The enemy unit whose zone of control covers `h` for `side`.
    pub fn zoc(&self, side: &str, h: Hex) -> Option<&'a Unit> {
        let c = self.s.grid.cell(h)?;
        self.zoc_of[side_index(super::other(side))][c].map(|i| &self.s.units[i])
    }

    /// Every hex `u` reaches from `from` with `budget` half points: enemies
    /// never entered, a zone of control stops it, and no step goes from
    /// one enemy zone into another (R41, R44, R45).
    pub fn reach(&self, u: &Unit, from: Hex, budget: u32) -> BTreeMap<Hex, Reached> {
        let side = u.side.as_str();
        self.s.grid.reach(
            from,
            budget,
            |a, b| {
                if self.enemy_at(side, b) || (self.zoc(side, a).is_some() && self.zoc(side, b).is_some()) {
                    None
                } else {
                    self.map.step_cost(a, b)
                }
            },
            |h| self.zoc(side, h).is_some(),
        )
    }
}

/// Half points as a player reads them: `4½ MP`.
pub fn mp(half: u32) -> String {
    if half.is_multiple_of(2) {
        format!("{} MP", half / 2)
    } else if half == 1 {
        "½ MP".into()
    } else {
        format!("{}½ MP", half / 2)
    }
}

/// Why `u` may not end in `h` with `there` (the names standing there),
/// if it may not (R21, R39, R40).
pub fn stacking_problem(s: &State, map: &Map, h: Hex, u: &Unit, there: &[String]) -> Option<Problem> {
    let others: Vec<&Unit> = there.iter().filter(|n| **n != u.name).filter_map(|n| s.unit(n)).collect();
    if others.is_empty() {
        return None;
    }
    if others.iter().any(|o| o.side != u.side) {
        return Some(Problem::new(format!("{h} holds an enemy counter")));
    }
    let pair = others.len() == 1 && (others[0].duke() != u.duke());
    if pair && map.is_stronghold(h) {
        return None;
    }
    if pair {
        return Some(
            Problem::new(format!(
                "a duke shares a hex with a unit only in a city or fortress, and {h} is {}",
                map.terrain(h).name
            ))
            .hint("stop the duke next to the unit, or in a city or fortress with it"),
        );
    }
    let names: Vec<&str> = others.iter().map(|o| o.id.as_str()).collect();
    let what = if map.is_stronghold(h) {
        "a city or fortress holds one unit (and a duke)"
    } else {
        "units pass through friends but never stop on them"
    };
    Some(Problem::new(format!("{h} would hold your {} too: {what}", names.join(", "))).hint("choose an empty hex"))
}

/// One counter's path through its waypoints, or why not.
fn plan(pos: &Position, u: &Unit, to: Hex, via: &[Hex]) -> Result<(Vec<Hex>, u32), Problem> {
    let from = u.at().expect("a counter on the map");
    let budget = u.movement * 2;
    let mut at = from;
    let mut spent = 0;
    let mut full = vec![from];
    let legs: Vec<Hex> = via.iter().copied().chain(std::iter::once(to)).collect();
    for (k, &goal) in legs.iter().enumerate() {
        if k > 0 {
            if let Some(z) = pos.zoc(&u.side, at) {
                let zat = z.at().map(|h| h.to_string()).unwrap_or_default();
                return Err(Problem::new(format!(
                    "{at} is in the zone of control of {} ({zat}): {} must stop there and cannot go on to {goal}",
                    z.name, u.id
                ))
                .hint(format!("MOVE {} TO {at}, or go round the zone", u.id)));
            }
        }
        let reach = pos.reach(u, at, budget - spent);
        match reach.get(&goal) {
            Some(r) => {
                let p = path(&reach, goal).expect("a reached hex has a path");
                full.extend(p.into_iter().skip(1));
                spent += r.cost;
                at = goal;
            }
            None => return Err(unreachable(pos, u, at, goal, budget - spent, budget)),
        }
    }
    Ok((full, spent))
}

/// Why `goal` is out of reach from `at`: too far, behind a zone of
/// control, or behind water and enemies.
fn unreachable(pos: &Position, u: &Unit, at: Hex, goal: Hex, left: u32, budget: u32) -> Problem {
    let free = pos.reach(u, at, u32::MAX / 4);
    if let Some(r) = free.get(&goal) {
        let spent = budget - left;
        let detail = if spent > 0 { format!(" after the {} spent before it", mp(spent)) } else { String::new() };
        return Problem::new(format!(
            "{} cannot reach {goal}: the cheapest legal path costs {} and {} has {}{detail} (roads and cities ½, woods and heights 2)",
            u.id,
            mp(r.cost),
            u.id,
            mp(left)
        ))
        .hint(closest(pos, u, at, goal, left));
    }
    if !pos.map.passable(goal) {
        return Problem::new(format!("{goal} is {}: impassable", pos.map.terrain(goal).name))
            .hint(closest(pos, u, at, goal, left));
    }
    if pos.enemy_at(&u.side, goal) {
        return Problem::new(format!(
            "{goal} holds an enemy counter: no counter enters an enemy's hex; attack it from next to it with ATTACK {goal} WITH …"
        ))
        .hint(closest(pos, u, at, goal, left));
    }
    // Without the zones' stops, would it get there?
    let open = pos.s.grid.reach(
        at,
        u32::MAX / 4,
        |a, b| if pos.enemy_at(&u.side, b) { None } else { pos.map.step_cost(a, b) },
        |_| false,
    );
    if open.contains_key(&goal) {
        if let Some(z) =
            path(&open, goal).and_then(|p| p.into_iter().skip(1).find(|h| pos.zoc(&u.side, *h).is_some() && *h != goal))
        {
            let by = pos.zoc(&u.side, z).map(|x| x.name.clone()).unwrap_or_default();
            return Problem::new(format!(
                "{z} is in the zone of control of {by}: {} must stop there and cannot go on to {goal}",
                u.id
            ))
            .hint(closest(pos, u, at, goal, left));
        }
        return Problem::new(format!(
            "{} starts in an enemy zone of control and every way to {goal} steps into another: leave the zone first",
            u.id
        ))
        .hint(closest(pos, u, at, goal, left));
    }
    Problem::new(format!(
        "no way leads from {at} to {goal}: rivers (crossed only at bridges), lakes and enemies bar it"
    ))
    .hint(closest(pos, u, at, goal, left))
}

/// The reachable hex nearest `goal`, as an order to try.
fn closest(pos: &Position, u: &Unit, at: Hex, goal: Hex, left: u32) -> String {
    let reach = pos.reach(u, at, left);
    match reach.keys().filter(|&&h| h != at).min_by_key(|&&h| (pos.s.grid.distance(h, goal), h)) {
        Some(h) => format!("MOVE {} TO {h}", u.id),
        None => format!("{} cannot move from {at} this phase", u.id),
    }
}

/// Check the phase's moves as a set (A6) and return the position after
/// them, against which the attacks are checked.
pub fn check_moves(s: &State, role: &str, moves: &[(usize, &Order)], out: &mut Vec<(usize, super::Problem)>) -> State {
    let pos = Position::new(s);
    let mut after = s.clone();
    let mut moved: HashSet<String> = HashSet::new();
    let mut ends: Vec<(usize, String, Hex)> = Vec::new();
    for &(i, o) in moves {
        let Order::Move { counters, to, via } = o else { continue };
        let to = Hex::parse(to).expect("a parsed hex");
        let via: Vec<Hex> = via.iter().map(|v| Hex::parse(v).expect("a parsed hex")).collect();
        for id in counters {
            let u = s.own(role, id).expect("a parsed counter");
            if !u.on_map() {
                let why = if u.eliminated { "was eliminated" } else { "is not on the map" };
                out.push((i, Problem::new(format!("{id} {why}"))));
                continue;
            }
            if !moved.insert(u.name.clone()) {
                out.push((
                    i,
                    Problem::new(format!("{id} moves twice: one path a phase")).hint("use VIA for waypoints"),
                ));
                continue;
            }
            if u.at() == Some(to) {
                out.push((i, Problem::new(format!("{id} is already in {to}"))));
                continue;
            }
            match plan(&pos, u, to, &via) {
                Ok(_) => ends.push((i, u.name.clone(), to)),
                Err(p) => out.push((i, p)),
            }
        }
    }
    for (_, name, to) in &ends {
        after.unit_mut(name).hex = to.to_string();
    }
    // Stacking at the ends, with every counter where it stands after the
    // moves (a friend that moves away frees its hex).
    let map = Map::new(&after);
    let mut stand: BTreeMap<Hex, Vec<String>> = BTreeMap::new();
    for u in after.units.iter().filter(|u| u.on_map()) {
        stand.entry(u.at().expect("on the map")).or_default().push(u.name.clone());
    }
    for (i, name, to) in &ends {
        let u = after.unit(name).expect("a moved counter");
        if let Some(p) = stacking_problem(&after, &map, *to, u, &stand[to]) {
            out.push((*i, p));
        }
    }
    after
}

/// Carry out the phase's checked moves: the counters walk their paths.
/// Friends never bar a path, so every path is found on the position
/// before any counter moves.
pub fn apply(s: &mut State, role: &str, moves: &[&Order]) -> Vec<String> {
    let mut said = Vec::new();
    let mut ends = Vec::new();
    {
        let pos = Position::new(s);
        for o in moves {
            let Order::Move { counters, to, via } = o else { continue };
            let to_h = Hex::parse(to).expect("a parsed hex");
            let via: Vec<Hex> = via.iter().map(|v| Hex::parse(v).expect("a parsed hex")).collect();
            for id in counters {
                let u = s.own(role, id).expect("a checked counter");
                let (p, cost) = plan(&pos, u, to_h, &via).unwrap_or((vec![to_h], 0));
                let route: Vec<String> = p.iter().map(|h| h.to_string()).collect();
                said.push(format!("{} {} ({})", u.name, route.join("-"), mp(cost)));
                ends.push((u.name.clone(), to.clone()));
            }
        }
    }
    for (n, to) in ends {
        s.unit_mut(&n).hex = to;
    }
    said
}
