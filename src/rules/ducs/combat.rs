//! Combat (R50-R74): who may attack whom, the queue of a phase's attacks
//! fought one by one (A5, A30), odds with dukes and strongholds, one die on
//! the results table, and what follows — eliminations, retreats and
//! pushes, exchanges, the advance — each asked of a player only when there
//! is a real choice.

use super::movement::{self, Position};
use super::{end_phase, other, prefix, side_name, sudden_death, Fight, Map, Order, Phase, Queued, State, Unit};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::{Event, Problem};
use crate::rules::shared::hex::Hex;
use std::collections::BTreeSet;
use std::str::FromStr;

/// A cell of the results table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    AttackerEliminated,
    AttackerRetreats,
    DefenderEliminated,
    DefenderRetreats,
    Exchange,
}

impl FromStr for Result {
    type Err = ();
    fn from_str(s: &str) -> std::result::Result<Result, ()> {
        Ok(match s.trim().to_ascii_uppercase().as_str() {
            "AE" => Result::AttackerEliminated,
            "AR" => Result::AttackerRetreats,
            "DE" => Result::DefenderEliminated,
            "DR" => Result::DefenderRetreats,
            "EX" => Result::Exchange,
            _ => return Err(()),
        })
    }
}

impl Result {
    pub fn code(self) -> &'static str {
        match self {
            Result::AttackerEliminated => "AE",
            Result::AttackerRetreats => "AR",
            Result::DefenderEliminated => "DE",
            Result::DefenderRetreats => "DR",
            Result::Exchange => "EX",
        }
    }
}

/// How far a unit strikes: adjacent, or two hexes for artillery (R50, R51,
/// A14). `Some(true)` is a bombardment.
fn in_range(s: &State, u: &Unit, target: Hex) -> Option<bool> {
    let d = s.grid.distance(u.at()?, target);
    if d == 1 {
        Some(false)
    } else if u.range >= 2 && d >= 2 && d <= u.range {
        Some(true)
    } else {
        None
    }
}

/// Check the submission's ATTACK lines against `s` (the position after its
/// moves): R17, R50-R52, R66, R67, A21.
pub fn check_attacks(s: &State, role: &str, orders: &[Order], out: &mut Vec<(usize, Problem)>) {
    let mut hexes = BTreeSet::new();
    let mut used = BTreeSet::new();
    for (i, o) in orders.iter().enumerate() {
        let Order::Attack { hex, with, advance } = o else { continue };
        let h = Hex::parse(hex).expect("a parsed hex");
        let there = s.at(h);
        if there.is_empty() {
            out.push((
                i,
                Problem::new(format!("no enemy counter stands in {hex}")).hint("ATTACK the hex of an enemy counter"),
            ));
            continue;
        }
        if there.iter().any(|u| u.side == role) {
            out.push((i, Problem::new(format!("{hex} holds your own counter"))));
            continue;
        }
        if let Some(u) = there.iter().find(|u| u.attacked) {
            out.push((i, Problem::new(format!("{} has already been attacked this phase", u.name))));
        }
        if !hexes.insert(h) {
            out.push((i, Problem::new(format!("{hex} is attacked twice: join the attackers in one ATTACK"))));
        }
        let mut bombards = BTreeSet::new();
        for id in with {
            let u = s.own(role, id).expect("a parsed counter");
            if u.duke() {
                out.push((i, Problem::new("a duke cannot attack: it only defends, and doubles the troops near it")));
                continue;
            }
            if !u.on_map() {
                out.push((i, Problem::new(format!("{id} is not on the map"))));
                continue;
            }
            if u.fought || !used.insert(id.clone()) {
                out.push((i, Problem::new(format!("{id} attacks twice this phase: a unit attacks one enemy a phase"))));
                continue;
            }
            match in_range(s, u, h) {
                Some(true) => {
                    bombards.insert(id.clone());
                }
                Some(false) => {}
                None => {
                    let d = s.grid.distance(u.at().expect("on the map"), h);
                    let why = if u.range >= 2 {
                        format!(
                            "{id} is {d} hexes from {hex}: artillery attacks adjacent units or bombards at {}",
                            u.range
                        )
                    } else {
                        format!("{id} is not adjacent to {hex} (infantry and cavalry attack adjacent units; artillery also at two hexes)")
                    };
                    out.push((i, Problem::new(why)));
                }
            }
        }
        if let Some(super::Advance::Unit(a)) = advance {
            if !with.contains(a) {
                out.push((
                    i,
                    Problem::new(format!("{a} does not take part in this attack, so it cannot advance"))
                        .hint("ADVANCE one of the attackers, or HOLD"),
                ));
            } else if bombards.contains(a) {
                out.push((
                    i,
                    Problem::new(format!("{a} bombarded and may not advance"))
                        .hint("ADVANCE a unit in close combat, or HOLD"),
                ));
            }
        }
    }
}

/// What a phase's orders do: the moves, then the queue (A5).
pub fn orders_of_phase(s: &mut State, orders: &[Order], dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    let moves: Vec<&Order> = orders.iter().filter(|o| matches!(o, Order::Move { .. })).collect();
    let moved = movement::apply(s, &side, &moves);
    if !moved.is_empty() {
        ev.push(Event::all(format!("{} moves: {}.", side_name(&side), moved.join("; "))));
        let names: Vec<String> = moves
            .iter()
            .flat_map(|o| match o {
                Order::Move { counters, .. } => counters.iter().map(|c| format!("{} {c}", prefix(&side))).collect(),
                _ => Vec::new(),
            })
            .collect();
        for n in names {
            s.take(&n, ev);
        }
    } else if s.phase == Phase::Move {
        ev.push(Event::all(format!("{} moves nothing.", side_name(&side))));
    }
    s.more = false;
    for o in orders {
        match o {
            Order::Attack { hex, with, advance } => {
                let h = Hex::parse(hex).expect("a checked hex");
                s.queue.push(Queued {
                    hex: hex.clone(),
                    targets: s.at(h).iter().map(|u| u.name.clone()).collect(),
                    attackers: with.iter().map(|id| format!("{} {id}", prefix(&side))).collect(),
                    advance: advance.as_ref().map(|a| match a {
                        super::Advance::Hold => "HOLD".to_string(),
                        super::Advance::Unit(u) => format!("{} {u}", prefix(&side)),
                    }),
                });
            }
            Order::Continue => s.more = true,
            _ => {}
        }
    }
    run(s, dice, ev);
}

/// A decision about the combat in hand: a retreat, losses, an advance.
pub fn decision(s: &mut State, orders: &[Order], dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(mut f) = s.fight.clone() else {
        run(s, dice, ev);
        return;
    };
    for o in orders {
        match o {
            Order::Retreat { counter, to, push } => {
                // Any counter still to retreat, in the order written.
                let Some(at) = f.retreating.iter().position(|n| n.split_once(' ').map(|x| x.1) == Some(counter)) else {
                    continue;
                };
                let name = f.retreating[at].clone();
                let side = s.unit(&name).map(|u| u.side.clone()).unwrap_or_default();
                let to = Hex::parse(to).expect("a checked hex");
                let opt = match push {
                    Some((p, at)) => RetreatOption::Push {
                        to,
                        pushed: format!("{} {p}", prefix(&side)),
                        push_to: Hex::parse(at).expect("a checked hex"),
                    },
                    None => RetreatOption::To(to),
                };
                carry_out(s, &name, &opt, ev);
                f.retreating.remove(at);
                if std::mem::take(&mut f.choose) {
                    ev.push(Event::all(format!(
                        "{} chose {name} to take the one retreat left (A20).",
                        side_name(&side)
                    )));
                }
            }
            Order::Lose { units } => {
                let names: Vec<String> = units.iter().map(|u| format!("{} {u}", prefix(&f.attacker))).collect();
                lose(s, &names, "chosen", ev);
                f.stage_done();
            }
            Order::Advance { unit } => {
                let name = format!("{} {unit}", prefix(&f.attacker));
                advance(s, &name, &f.hex, ev);
                f.stage_done();
            }
            Order::Hold => {
                ev.push(Event::all(format!("{} holds: nobody advances into {}.", side_name(&f.attacker), f.hex)));
                f.stage_done();
            }
            _ => {}
        }
    }
    s.fight = Some(f);
    s.phase = Phase::Move;
    run(s, dice, ev);
}

impl Fight {
    /// The decision awaited was taken: nothing more of this combat.
    fn stage_done(&mut self) {
        self.retreating.clear();
        self.result = "done".into();
    }
}

/// Go on with the phase until a decision is needed or it ends.
fn run(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    loop {
        if sudden_death(s, ev) {
            return;
        }
        if s.fight.is_some() {
            if follow(s, ev) {
                return;
            }
            continue;
        }
        if s.queue.is_empty() {
            if s.more && attack_possible(s) {
                s.more = false;
                s.phase = Phase::Combat;
                return;
            }
            end_phase(s, ev);
            return;
        }
        let q = s.queue.remove(0);
        match stands(s, &q) {
            Ok(()) => fight(s, &q, dice, ev),
            Err(why) => {
                let side = s.active.clone();
                let ids: Vec<&str> = q.attackers.iter().map(|n| n.split_once(' ').map(|x| x.1).unwrap_or(n)).collect();
                ev.push(Event::to_role(
                    &side,
                    format!("Your attack on {} with {} is cancelled: {why}.", q.hex, ids.join(", ")),
                ));
            }
        }
    }
}

/// A queued attack still stands: its target is where it was and not yet
/// attacked, and every attacker can still strike (A30).
fn stands(s: &State, q: &Queued) -> std::result::Result<(), String> {
    let h = Hex::parse(&q.hex).expect("a queued hex");
    let there: Vec<&Unit> = s.at(h);
    for t in &q.targets {
        let u = s.unit(t).expect("a queued target");
        if u.at() != Some(h) {
            return Err(format!("{t} is no longer there"));
        }
        if u.attacked {
            return Err(format!("{t} has already been attacked this phase"));
        }
    }
    if let Some(u) = there.iter().find(|u| u.attacked) {
        return Err(format!("{} has already been attacked this phase", u.name));
    }
    if there.is_empty() {
        return Err("nobody stands there now".into());
    }
    for a in &q.attackers {
        let u = s.unit(a).expect("a queued attacker");
        if !u.on_map() {
            return Err(format!("{a} is gone"));
        }
        if u.fought {
            return Err(format!("{a} has already attacked"));
        }
        if in_range(s, u, h).is_none() {
            return Err(format!("{a} is out of reach of {}", q.hex));
        }
    }
    Ok(())
}

/// Could the phasing side still attack anyone (worth a combat step)?
fn attack_possible(s: &State) -> bool {
    let side = &s.active;
    s.units.iter().filter(|u| &u.side == side && u.on_map() && !u.duke() && !u.fought).any(|u| {
        s.units
            .iter()
            .filter(|e| &e.side != side && e.on_map() && !e.attacked)
            .any(|e| e.at().map(|h| in_range(s, u, h).is_some()).unwrap_or(false))
    })
}

/// Attack and defence strengths with how they were made (R53, R54, R18,
/// A10, A11).
pub fn odds(s: &State, attackers: &[&Unit], h: Hex) -> (u32, u32, String, String) {
    let factor = s.numbers.duke_factor;
    let map = Map::new(s);
    // A side's strengths, each doubled where its duke is near (never the
    // duke's own), with how they were counted.
    let sum = |units: &[&Unit], near: &dyn Fn(&Unit) -> bool| {
        let mut total = 0;
        let mut parts = Vec::new();
        for u in units {
            let doubled = !u.duke() && near(u);
            total += u.strength * if doubled { factor } else { 1 };
            parts.push(if doubled {
                format!("{} {}×{factor}", u.name, u.strength)
            } else {
                format!("{} {}", u.name, u.strength)
            });
        }
        (total, parts.join(" + "))
    };
    let (a_sum, a_text) = sum(attackers, &|u| u.at().map(|at| s.fanatised(&u.side, at)).unwrap_or(false));
    let defenders = s.at(h);
    let (mut d_sum, mut d_text) = sum(&defenders, &|u| s.fanatised(&u.side, h));
    let t = map.terrain(h);
    if t.defence > 1 {
        d_text = format!("({d_text}) ×{} ({})", t.defence, t.name);
        d_sum *= t.defence;
    }
    (a_sum, d_sum, a_text, d_text)
}

/// Fight one queued attack: odds, one public die, the table.
fn fight(s: &mut State, q: &Queued, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let h = Hex::parse(&q.hex).expect("a queued hex");
    let side = s.active.clone();
    let attackers: Vec<Unit> = q.attackers.iter().filter_map(|n| s.unit(n).cloned()).collect();
    let refs: Vec<&Unit> = attackers.iter().collect();
    let (a, d, a_text, d_text) = odds(s, &refs, h);
    let column = s.crt.columns[s.crt.column(a, d)].clone();
    let defenders: Vec<String> = s.at(h).iter().map(|u| u.name.clone()).collect();
    s.fights += 1;
    let no = s.fights;
    let label = format!(
        "combat {no}, turn {} {}: {} on {} at {}, {column}",
        s.turn,
        side_name(&side),
        q.attackers.join(", "),
        defenders.join(", "),
        q.hex
    );
    let die = dice.roll(&StreamId::Public, 6, &label, &Serves::low(&side)) as i32;
    let map = Map::new(s);
    let t = map.terrain(h);
    let modified = die + t.die;
    let die_text =
        if t.die != 0 { format!("die {die} +{} ({}) = {modified}", t.die, t.name) } else { format!("die {die}") };
    let reading = match s.crt.read::<Result>(a, d, modified) {
        Ok(r) => r,
        Err(why) => {
            // Only a table patched into a running game can get here (the
            // files are checked at set-up): the combat is void, said so.
            ev.push(Event::all(format!("Combat {no} cannot be read on the results table ({why}); it is void.")));
            return;
        }
    };
    ev.push(Event::all(format!(
        "Combat {no}: {a_text} = {a} against {d_text} = {d} → {a}:{d} = {column}; {die_text} → {}.",
        reading.result.code()
    )));
    for n in &defenders {
        s.unit_mut(n).attacked = true;
    }
    for n in &q.attackers {
        s.unit_mut(n).fought = true;
    }
    let close: Vec<String> =
        attackers.iter().filter(|u| in_range(s, u, h) == Some(false)).map(|u| u.name.clone()).collect();
    let mut f = Fight {
        no,
        hex: q.hex.clone(),
        attacker: side.clone(),
        close: close.clone(),
        advance: q.advance.clone(),
        retreating: Vec::new(),
        retreaters: Vec::new(),
        choose: false,
        result: reading.result.code().into(),
        owed: 0,
    };
    match reading.result {
        Result::AttackerEliminated => {
            lose(s, &close, "eliminated", ev);
            if close.len() < q.attackers.len() {
                ev.push(Event::all("Bombarding artillery suffers no attacker result."));
            }
            f.result = "done".into();
        }
        Result::AttackerRetreats => {
            f.retreating = close.clone();
            f.retreaters = close.clone();
            if close.len() < q.attackers.len() {
                ev.push(Event::all("Bombarding artillery stays where it is."));
            }
        }
        Result::DefenderEliminated => {
            lose(s, &defenders, "eliminated", ev);
            f.result = "done".into();
        }
        Result::DefenderRetreats => {
            let mut order = defenders.clone();
            // The duke retreats first, so it keeps a hex whoever else is
            // short of one (A20).
            order.sort_by_key(|n| !s.unit(n).map(|u| u.duke()).unwrap_or(false));
            f.retreaters = order.clone();
            f.retreating = order;
        }
        Result::Exchange => {
            f.owed = defenders.iter().filter_map(|n| s.unit(n)).map(|u| u.strength).sum();
            lose(s, &defenders, "eliminated in the exchange", ev);
            if close.is_empty() {
                ev.push(Event::all("A bombardment exchanges nothing: the artillery loses no strength."));
                f.result = "done".into();
            } else {
                f.result = "EX".into();
            }
        }
    }
    s.fight = Some(f);
}

/// Take the fight in hand as far as it goes without a player; `true`
/// when a decision is now awaited.
fn follow(s: &mut State, ev: &mut Vec<Event>) -> bool {
    loop {
        if sudden_death(s, ev) {
            return true;
        }
        let Some(mut f) = s.fight.clone() else { return false };
        match f.result.as_str() {
            "AR" | "DR" if f.choose => {
                s.phase = Phase::Retreat;
                return true;
            }
            "AR" | "DR" if !f.retreating.is_empty() => {
                // Room for some of them only: their owner chooses who
                // survives (A20), when it is a choice.
                if short_of_room(s, &f) {
                    f.choose = true;
                    s.fight = Some(f);
                    s.phase = Phase::Retreat;
                    return true;
                }
                let name = f.retreating[0].clone();
                let Some(u) = s.unit(&name).cloned().filter(|u| u.on_map()) else {
                    f.retreating.remove(0);
                    s.fight = Some(f);
                    continue;
                };
                let options = retreat_options(s, &u, &f.retreaters);
                match options.len() {
                    0 => {
                        ev.push(Event::all(format!(
                            "{} cannot retreat from {} (water, enemies or their zones of control all round) and is removed.",
                            u.name, u.hex
                        )));
                        s.unit_mut(&name).eliminated = true;
                        f.retreating.remove(0);
                        s.fight = Some(f);
                    }
                    1 => {
                        carry_out(s, &name, &options[0], ev);
                        f.retreating.remove(0);
                        s.fight = Some(f);
                    }
                    _ => {
                        s.phase = Phase::Retreat;
                        return true;
                    }
                }
            }
            "DR" => {
                f.result = "advance".into();
                s.fight = Some(f);
            }
            "advance" => {
                let cands = advance_candidates(s);
                match f.advance.as_deref() {
                    _ if cands.is_empty() => f.result = "done".into(),
                    Some("HOLD") => {
                        ev.push(Event::all(format!(
                            "{} holds, as ordered: nobody advances into {}.",
                            side_name(&f.attacker),
                            f.hex
                        )));
                        f.result = "done".into();
                    }
                    Some(u) if cands.iter().any(|c| c == u) => {
                        advance(s, u, &f.hex.clone(), ev);
                        f.result = "done".into();
                    }
                    Some(u) => {
                        ev.push(Event::all(format!("{u} cannot advance as ordered; nobody advances into {}.", f.hex)));
                        f.result = "done".into();
                    }
                    None => {
                        s.fight = Some(f);
                        s.phase = Phase::Advance;
                        return true;
                    }
                }
                s.fight = Some(f);
            }
            "EX" => {
                let sets = loss_sets(s);
                if sets.len() <= 1 {
                    let set = sets.into_iter().next().unwrap_or_default();
                    lose(s, &set, "lost in the exchange", ev);
                    f.result = "done".into();
                    s.fight = Some(f);
                } else {
                    s.phase = Phase::Losses;
                    return true;
                }
            }
            _ => {
                s.fight = None;
                return false;
            }
        }
    }
}

fn lose(s: &mut State, names: &[String], how: &str, ev: &mut Vec<Event>) {
    if names.is_empty() {
        return;
    }
    for n in names {
        s.unit_mut(n).eliminated = true;
    }
    ev.push(Event::all(format!("{} {how}.", names.join(", "))));
}

fn advance(s: &mut State, name: &str, hex: &str, ev: &mut Vec<Event>) {
    s.unit_mut(name).hex = hex.to_string();
    ev.push(Event::all(format!("{name} advances into {hex}.")));
    s.take(name, ev);
}

/// Close-combat attackers that may occupy the abandoned hex (R73, A21).
pub fn advance_candidates(s: &State) -> Vec<String> {
    let Some(f) = s.fight.as_ref() else { return Vec::new() };
    let h = Hex::parse(&f.hex).expect("a fight's hex");
    if !s.at(h).is_empty() {
        return Vec::new();
    }
    f.close.iter().filter(|n| s.unit(n).map(|u| u.on_map()).unwrap_or(false)).cloned().collect()
}

/// The sets of close-combat attackers that pay an exchange without a
/// surplus (A16); one set of them all when even all fall short.
pub fn loss_sets(s: &State) -> Vec<Vec<String>> {
    let Some(f) = s.fight.as_ref() else { return Vec::new() };
    let alive: Vec<&Unit> = f.close.iter().filter_map(|n| s.unit(n)).filter(|u| u.on_map()).collect();
    let total: u32 = alive.iter().map(|u| u.strength).sum();
    if total <= f.owed {
        return if alive.is_empty() { Vec::new() } else { vec![alive.iter().map(|u| u.name.clone()).collect()] };
    }
    let mut sets = Vec::new();
    for mask in 1u32..(1 << alive.len()) {
        let set: Vec<&Unit> = (0..alive.len()).filter(|i| mask & (1 << i) != 0).map(|i| alive[i]).collect();
        let sum: u32 = set.iter().map(|u| u.strength).sum();
        if sum >= f.owed && set.iter().all(|u| sum - u.strength < f.owed) {
            sets.push(set.iter().map(|u| u.name.clone()).collect::<Vec<_>>());
        }
    }
    sets.sort_by_key(|set: &Vec<String>| {
        let sum: u32 = set.iter().filter_map(|n| s.unit(n)).map(|u| u.strength).sum();
        (sum, set.len(), set.clone())
    });
    sets
}

/// Where a retreating counter may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetreatOption {
    To(Hex),
    /// Into a friend's hex, pushing the friend aside (R65, A19).
    Push {
        to: Hex,
        pushed: String,
        push_to: Hex,
    },
}

impl RetreatOption {
    pub fn order(&self, id: &str) -> String {
        match self {
            RetreatOption::To(h) => format!("RETREAT {id} TO {h}"),
            RetreatOption::Push { to, pushed, push_to } => {
                let p = pushed.split_once(' ').map(|x| x.1).unwrap_or(pushed);
                format!("RETREAT {id} TO {to} PUSH {p} TO {push_to}")
            }
        }
    }
}

/// May `u`, standing at `from`, step back into `n` at all (A18): on the
/// map, not water, no unbridged river between, no enemy there, not in an
/// enemy zone of control.
fn ground(pos: &Position, u: &Unit, from: Hex, n: Hex) -> std::result::Result<(), String> {
    if !pos.map.passable(n) {
        return Err(format!("{n} is {}", pos.map.terrain(n).name));
    }
    if pos.map.river_between(from, n) {
        return Err(format!("a river lies between {from} and {n}"));
    }
    if pos.enemy_at(&u.side, n) {
        return Err(format!("{n} holds an enemy counter"));
    }
    if let Some(z) = pos.zoc(&u.side, n) {
        return Err(format!("{n} is in an enemy zone of control ({}): retreat there is forbidden", z.name));
    }
    Ok(())
}

/// Whether the counters still to retreat from `f` can each find room,
/// each with some retreat and not all of them together (A20): then their
/// owner chooses who retreats.
fn short_of_room(s: &State, f: &Fight) -> bool {
    let units: Vec<&Unit> = f.retreating.iter().filter_map(|n| s.unit(n)).filter(|u| u.on_map()).collect();
    if units.len() < 2 || units.iter().any(|u| retreat_options(s, u, &f.retreaters).is_empty()) {
        return false;
    }
    !all_find_room(s, &f.retreating, &f.retreaters)
}

/// Some order of retreats, in any order of the counters, takes every
/// counter of `names` somewhere.
fn all_find_room(s: &State, names: &[String], retreaters: &[String]) -> bool {
    if names.is_empty() {
        return true;
    }
    (0..names.len()).any(|i| {
        let mut rest = names.to_vec();
        let first = rest.remove(i);
        let Some(u) = s.unit(&first).filter(|u| u.on_map()) else { return all_find_room(s, &rest, retreaters) };
        retreat_options(s, u, retreaters).iter().any(|o| {
            let mut t = s.clone();
            carry_out(&mut t, &first, o, &mut Vec::new());
            all_find_room(&t, &rest, retreaters)
        })
    })
}

/// Every legal retreat of `u` (A17-A19): empty hexes (or a duke and a unit
/// meeting in a city or fortress); only if there is none, a friend's hex
/// whose occupant is pushed aside to an empty legal hex other than the one
/// being vacated. Counters of the same combat never push each other.
pub fn retreat_options(s: &State, u: &Unit, retreating: &[String]) -> Vec<RetreatOption> {
    let pos = Position::new(s);
    let Some(from) = u.at() else { return Vec::new() };
    let mut free = Vec::new();
    let mut pushes = Vec::new();
    for n in s.grid.neighbours(from) {
        if ground(&pos, u, from, n).is_err() {
            continue;
        }
        let there = pos.occupants(n);
        let names: Vec<String> = there.iter().map(|x| x.name.clone()).collect();
        if movement::stacking_problem(s, &pos.map, n, u, &names).is_none() {
            free.push(RetreatOption::To(n));
            continue;
        }
        if there.len() != 1 || retreating.contains(&there[0].name) {
            continue;
        }
        let p = there[0];
        for m in s.grid.neighbours(n) {
            if m == from || !pos.occupants(m).is_empty() || ground(&pos, p, n, m).is_err() {
                continue;
            }
            pushes.push(RetreatOption::Push { to: n, pushed: p.name.clone(), push_to: m });
        }
    }
    if free.is_empty() {
        pushes
    } else {
        free
    }
}

/// Why a retreat a player wrote is not one of the options.
pub fn why_not_retreat(s: &State, u: &Unit, to: Hex, push: Option<(&str, Hex)>, retreating: &[String]) -> String {
    let pos = Position::new(s);
    let from = u.at().expect("a retreating counter");
    if s.grid.distance(from, to) != 1 {
        return format!("{to} is not next to {from}: a retreat is one hex");
    }
    if let Err(why) = ground(&pos, u, from, to) {
        return why;
    }
    let options = retreat_options(s, u, retreating);
    let free = options.iter().any(|o| matches!(o, RetreatOption::To(_)));
    let occupied = !pos.occupants(to).is_empty();
    match push {
        None if occupied => format!(
            "{to} holds your {}: a push must say where it goes (PUSH <counter> TO <hex>)",
            pos.occupants(to).iter().map(|x| x.id.clone()).collect::<Vec<_>>().join(", ")
        ),
        None => format!("{} cannot retreat to {to}", u.id),
        Some(_) if free => format!("{} has an empty hex to retreat to, so it may not push a friend aside", u.id),
        Some((p, at)) => {
            let Some(pu) = s.unit(p) else { return format!("{p} is not in {to}") };
            if pu.at() != Some(to) {
                return format!("{} is not in {to}", pu.id);
            }
            if at == from {
                return format!("{at} is the hex being vacated: the pushed counter goes elsewhere");
            }
            if s.grid.distance(to, at) != 1 {
                return format!("{at} is not next to {to}: a pushed counter moves one hex");
            }
            if !pos.occupants(at).is_empty() {
                return format!("{at} is occupied: a pushed counter goes to an empty hex");
            }
            match ground(&pos, pu, to, at) {
                Err(why) => why,
                Ok(()) => format!("{} cannot be pushed to {at}", pu.id),
            }
        }
    }
}

/// Move a retreating counter (and a pushed friend).
pub fn carry_out(s: &mut State, name: &str, opt: &RetreatOption, ev: &mut Vec<Event>) {
    let from = s.unit(name).map(|u| u.hex.clone()).unwrap_or_default();
    match opt {
        RetreatOption::To(h) => {
            s.unit_mut(name).hex = h.to_string();
            ev.push(Event::all(format!("{name} retreats from {from} to {h}.")));
        }
        RetreatOption::Push { to, pushed, push_to } => {
            s.unit_mut(pushed).hex = push_to.to_string();
            s.unit_mut(name).hex = to.to_string();
            ev.push(Event::all(format!("{name} retreats from {from} to {to}, pushing {pushed} aside to {push_to}.")));
            s.take(pushed, ev);
        }
    }
    s.take(name, ev);
}

/// The no-moves retreat (3.5): the option farthest from the nearest enemy
/// unit, ties to the lowest hex.
pub fn default_retreat(s: &State, u: &Unit, options: &[RetreatOption]) -> Option<RetreatOption> {
    let enemies: Vec<Hex> = s.alive(other(&u.side)).filter(|e| !e.duke()).filter_map(|e| e.at()).collect();
    let far = |h: Hex| enemies.iter().map(|&e| s.grid.distance(h, e)).min().unwrap_or(99);
    options
        .iter()
        .min_by_key(|o| {
            let (a, b) = match o {
                RetreatOption::To(h) => (*h, *h),
                RetreatOption::Push { to, push_to, .. } => (*to, *push_to),
            };
            (std::cmp::Reverse(far(a)), a, std::cmp::Reverse(far(b)), b)
        })
        .cloned()
}
