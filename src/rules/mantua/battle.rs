//! Siege of Mantua battles (rulebook: Battles, Commands, Movement and
//! Combat Activation, Flank Attacks, Time and Doubling, Consequences of
//! Defeat, Adjusting Unit Pools): each decision is a mailed step awaiting
//! exactly the player who must make it.
//!
//! Stages: Reveal (a block of the side whose turn it is to reveal; its
//! strength in units is drawn from that side's Pool on its private stream),
//! Deploy (those units, face-down, on the side's edge), Turn (a Battle
//! Turn: Retreat, Doubling, Commands), Doubled (the opponent accepts or
//! retreats), Reduce (the loser's reductions and retreat route), Upgrade
//! (the winner's upgrades), then the pool adjustment in the printed order.

use super::orders::{block_in, place_name, Order, Side90};
use super::{escape_routes, other, side_name, Phase, State, AUSTRIA, FRANCE, MANTOVA};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::view::{GridBoard, GridCell};
use crate::engine::{Event, Problem, Table};
use crate::rules::shared::parse::{self, Line};
use crate::rules::shared::squares::{self, Dir4, Sq};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::LazyLock;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisplayData {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    pub columns: u8,
    pub rows: u8,
    pub max_per_space: usize,
    pub max_deployed: usize,
    pub leader_commands: u8,
    pub commands: u8,
    pub time_track: Vec<u32>,
    #[serde(rename = "counter")]
    counters: Vec<CounterData>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CounterData {
    level: u8,
    mv: u8,
    count: usize,
    pool: usize,
}

pub static DISPLAY: LazyLock<DisplayData> = LazyLock::new(|| {
    toml::from_str(include_str!("../../../games/mantua/battle.toml")).expect("games/mantua/battle.toml is valid")
});

/// One counter: `A07` is the Austrian's seventh, in the order of battle.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    pub level: u8,
    pub mv: u8,
}

fn prefix(side: &str) -> char {
    if side == AUSTRIA {
        'A'
    } else {
        'F'
    }
}

fn counter_table() -> Vec<(Counter, bool)> {
    let mut v = Vec::new();
    for c in &DISPLAY.counters {
        for i in 0..c.count {
            v.push((Counter { level: c.level, mv: c.mv }, i < c.pool));
        }
    }
    v
}

pub fn counter(id: &str) -> Option<Counter> {
    let n: usize = id.get(1..)?.parse().ok()?;
    counter_table().get(n.checked_sub(1)?).map(|c| c.0)
}

/// A face-up unit as both sides may read it: level and MV, not which
/// counter (the counter ids of a side are for its own eyes).
fn shown(id: &str) -> String {
    counter(id).map(|c| format!("a Level {} unit (MV {})", c.level, c.mv)).unwrap_or_else(|| "a unit".to_string())
}

fn describe(id: &str) -> String {
    counter(id).map(|c| format!("{id} (L{} MV{})", c.level, c.mv)).unwrap_or_else(|| id.to_string())
}

/// A side's counters: in the cup, and set aside.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pools {
    pub pool: Vec<String>,
    pub supply: Vec<String>,
}

pub fn initial_pools(side: &str) -> Pools {
    let mut p = Pools::default();
    for (i, (_, in_pool)) in counter_table().into_iter().enumerate() {
        let id = format!("{}{:02}", prefix(side), i + 1);
        if in_pool {
            p.pool.push(id);
        } else {
            p.supply.push(id);
        }
    }
    p
}

/// A Wing's facing on the Battle Display (`N` towards row A).
pub type Facing = Dir4;

/// A 90° turn as a quarter turn of the shared square board.
fn quarter(f: Facing, t: Side90) -> Facing {
    f.turn(t == Side90::Right)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: String,
    /// Flipped face-up: its Level and MV are known to both sides.
    #[serde(default)]
    pub up: bool,
}

/// Units in one space, front first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wing {
    pub side: String,
    pub col: u8,
    pub row: u8,
    pub facing: Facing,
    pub units: Vec<Unit>,
    /// Already moved or fought this Battle Turn.
    #[serde(default)]
    pub acted: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    Reveal,
    Deploy,
    Turn,
    Doubled,
    Reduce,
    Upgrade,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Battle {
    pub target: String,
    pub attacker: String,
    pub stage: Stage,
    /// The side the stage awaits.
    pub side: String,
    pub unrevealed: BTreeMap<String, Vec<String>>,
    pub revealed: BTreeMap<String, Vec<String>>,
    /// Units drawn by `side` and not yet deployed.
    #[serde(default)]
    pub hand: Vec<String>,
    #[serde(default)]
    pub wings: Vec<Wing>,
    #[serde(default)]
    pub broken: BTreeMap<String, Vec<String>>,
    pub commands: BTreeMap<String, u8>,
    /// Index on the Time track; None once the disc is removed.
    #[serde(default)]
    pub time: Option<usize>,
    /// The disc was placed (deployment is over).
    #[serde(default)]
    pub time_set: bool,
    pub stakes: u32,
    /// Who holds the Doubling Cube; None while nobody has used it.
    #[serde(default)]
    pub cube: Option<String>,
    /// The doubling player's Commands, carried out once the cube is
    /// accepted (one that can no longer be carried out is reported then).
    #[serde(default)]
    pub held: Vec<Order>,
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub annihilated: bool,
    #[serde(default)]
    pub turns: u32,
}

/// The Battle Display as a square board: spaces `A1` (row A, the
/// defender's edge) to `C5`.
fn display() -> squares::Board {
    squares::Board { columns: DISPLAY.columns, rows: DISPLAY.rows, naming: squares::Naming::RowLetter }
}

pub fn space_name(col: u8, row: u8) -> String {
    display().name(Sq { col, row })
}

fn parse_space(q: &str) -> Result<(u8, u8), Problem> {
    let b = display();
    let sq = b.parse(q, "Battle Display").map_err(|p| {
        let edge = (b'A' + DISPLAY.rows - 1) as char;
        let hint = p.suggestion.clone().unwrap_or_default();
        p.hint(format!("{hint} (row A is the defender's edge, row {edge} the attacker's)"))
    })?;
    Ok((sq.col, sq.row))
}

impl Battle {
    pub fn edge(&self, side: &str) -> u8 {
        if side == self.attacker {
            DISPLAY.rows - 1
        } else {
            0
        }
    }
    pub fn wing_at(&self, col: u8, row: u8) -> Option<usize> {
        self.wings.iter().position(|w| w.col == col && w.row == row)
    }
    pub fn ahead(&self, i: usize) -> Option<(u8, u8)> {
        let w = &self.wings[i];
        display().ahead(Sq { col: w.col, row: w.row }, w.facing).map(|s| (s.col, s.row))
    }
    /// The enemy Wing this Wing faces, if adjacent.
    pub fn faced(&self, i: usize) -> Option<usize> {
        let (c, r) = self.ahead(i)?;
        self.wing_at(c, r).filter(|&j| self.wings[j].side != self.wings[i].side)
    }
    /// Facing each other: mutually Engaged.
    pub fn engaged(&self, i: usize) -> Option<usize> {
        self.faced(i).filter(|&j| self.faced(j) == Some(i))
    }
    pub fn units_of(&self, side: &str) -> usize {
        self.wings.iter().filter(|w| w.side == side).map(|w| w.units.len()).sum()
    }
    fn deployed(&self, side: &str) -> usize {
        self.units_of(side) + self.broken.get(side).map(Vec::len).unwrap_or(0)
    }
}

fn battle(s: &State) -> &Battle {
    s.battle.as_ref().expect("a battle is being fought")
}

fn battle_mut(s: &mut State) -> &mut Battle {
    s.battle.as_mut().expect("a battle is being fought")
}

/// The Attack was not escaped: the battle begins with the defender's reveal.
pub fn begin(s: &mut State, dice: &mut dyn Dice) -> Vec<Event> {
    let a = s.attack.clone().expect("a battle follows an attack");
    let defender = other(&a.attacker).to_string();
    let mut unrevealed = BTreeMap::new();
    unrevealed
        .insert(defender.clone(), s.at(&a.target).filter(|b| b.side == defender).map(|b| b.name.clone()).collect());
    unrevealed.insert(a.attacker.clone(), a.groups.iter().flat_map(|g| g.blocks.clone()).collect());
    s.phase = Phase::Battle;
    s.battle = Some(Battle {
        target: a.target.clone(),
        attacker: a.attacker.clone(),
        stage: Stage::Reveal,
        side: defender.clone(),
        unrevealed,
        revealed: BTreeMap::new(),
        hand: Vec::new(),
        wings: Vec::new(),
        broken: BTreeMap::new(),
        commands: [(AUSTRIA.to_string(), DISPLAY.commands), (FRANCE.to_string(), DISPLAY.commands)].into(),
        time: None,
        time_set: false,
        stakes: 1,
        cube: None,
        held: Vec::new(),
        winner: None,
        annihilated: false,
        turns: 0,
    });
    let mut ev = vec![Event::all(format!(
        "Battle of {}: {} attacking, {} defending. {} reveals first.",
        a.target,
        side_name(&a.attacker),
        side_name(&defender),
        side_name(&defender)
    ))];
    ev.extend(proceed(s, dice));
    ev
}

/// Take every step that needs no decision: a reveal with one block left,
/// the start of the fight, annihilation.
fn proceed(s: &mut State, dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    loop {
        if s.outcome.is_some() {
            return ev;
        }
        let b = battle(s);
        match b.stage {
            Stage::Reveal => {
                let left = b.unrevealed.get(&b.side).cloned().unwrap_or_default();
                if left.len() == 1 {
                    let side = b.side.clone();
                    ev.extend(reveal(s, &side, &left[0], dice));
                } else if left.is_empty() {
                    ev.extend(next_reveal(s, dice));
                } else {
                    return ev;
                }
            }
            _ => return ev,
        }
    }
}

fn reveal(s: &mut State, side: &str, name: &str, dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    let blk = s.block(name).expect("a block in the battle").clone();
    {
        let b = battle_mut(s);
        b.unrevealed.get_mut(side).expect("side in battle").retain(|n| n != name);
        b.revealed.entry(side.to_string()).or_default().push(name.to_string());
    }
    if blk.dummy {
        s.blocks.iter_mut().find(|x| x.name == name).expect("block").eliminated = true;
        ev.push(Event::all(format!(
            "{} reveals {name}: a Dummy, Eliminated (it counts for Austria).",
            side_name(side)
        )));
        ev.extend(next_reveal(s, dice));
        return ev;
    }
    if blk.leader {
        battle_mut(s).commands.insert(side.to_string(), DISPLAY.leader_commands);
        // "If your Leader is revealed and you have no Blocks that
        // contribute Units, you lose the game": no other block in the
        // battle but Dummies (a second Leader, such as a freed Wurmser,
        // draws units and counts).
        let b = battle(s);
        let others = b
            .unrevealed
            .get(side)
            .into_iter()
            .chain(b.revealed.get(side))
            .flatten()
            .filter_map(|n| s.block(n))
            .any(|x| x.name != name && !x.dummy && !x.eliminated);
        if !others {
            ev.push(lose_game(
                s,
                side,
                format!("{} revealed its Leader {name} with no block contributing units", side_name(side)),
                format!("{} reveals its Leader {name} with no other block to contribute units", side_name(side)),
            ));
            return ev;
        }
    }
    let room = DISPLAY.max_deployed.saturating_sub(battle(s).deployed(side));
    let want = blk.strength as usize;
    let n = want.min(room);
    let pools = s.pools.get_mut(side).expect("pools of both sides");
    pools.pool.sort();
    let label = format!("units drawn for {name} ({} pool)", side_name(side));
    let picked = dice.draw_pool(
        &StreamId::role(side),
        pools.pool.len(),
        n.min(pools.pool.len()),
        &label,
        &Serves::neither(side),
    );
    let drawn: Vec<String> = picked.iter().map(|&i| pools.pool[i].clone()).collect();
    pools.pool.retain(|u| !drawn.contains(u));
    let lost = if n < want {
        format!(" ({} lost: no more than {} units deployed)", want - n, DISPLAY.max_deployed)
    } else {
        String::new()
    };
    ev.push(Event::all(format!(
        "{} reveals {name}{} at strength {}, and draws {} units from its Pool{lost}.",
        side_name(side),
        if blk.leader { " (Leader: five Commands)" } else { "" },
        blk.strength,
        drawn.len()
    )));
    ev.push(Event::to_role(
        side,
        format!("You drew: {}.", drawn.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")),
    ));
    let b = battle_mut(s);
    b.hand = drawn;
    if b.hand.is_empty() {
        ev.extend(next_reveal(s, dice));
    } else {
        b.stage = Stage::Deploy;
        b.side = side.to_string();
    }
    ev
}

/// `side` loses the whole game at once (the Leader rules of Battles and
/// Consequences of Defeat).
fn lose_game(s: &mut State, side: &str, reason: String, what: String) -> Event {
    s.phase = Phase::Over;
    s.outcome = Some(crate::engine::Outcome { winner: Some(other(side).to_string()), reason, also: Vec::new() });
    Event::all(format!("{what}: {} loses the game.", side_name(side)))
}

/// Alternate reveals; when nobody has a block left, the fight begins.
fn next_reveal(s: &mut State, dice: &mut dyn Dice) -> Vec<Event> {
    let b = battle_mut(s);
    let now = b.side.clone();
    let opp = other(&now).to_string();
    let has = |x: &str| b.unrevealed.get(x).map(|v| !v.is_empty()).unwrap_or(false);
    if has(&opp) {
        b.stage = Stage::Reveal;
        b.side = opp;
        return proceed(s, dice);
    }
    if has(&now) {
        b.stage = Stage::Reveal;
        return proceed(s, dice);
    }
    fight(s, dice)
}

/// Deployment is over: annihilation, or the Time disc and the first turn.
fn fight(s: &mut State, dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    let (att, def) = {
        let b = battle(s);
        (b.attacker.clone(), other(&b.attacker).to_string())
    };
    for side in [&def, &att] {
        if battle(s).units_of(side) == 0 {
            ev.push(Event::all(format!("{} has no units on the Battle Display: annihilated.", side_name(side))));
            ev.extend(end(s, side, true));
            return ev;
        }
    }
    // How long the battle lasts is good or bad for neither side as such.
    let d = dice.roll_n(
        &StreamId::Public,
        2,
        6,
        &format!("time roll, {} (attacker)", side_name(&att)),
        &Serves::neither(&att),
    );
    let (d1, d2) = (d[0], d[1]);
    let total = d1 + d2;
    let track = &DISPLAY.time_track;
    let idx = track.iter().rposition(|&v| v <= total);
    let b = battle_mut(s);
    b.time = idx;
    b.time_set = true;
    b.stage = Stage::Turn;
    b.side = att.clone();
    b.turns = 1;
    for w in &mut b.wings {
        w.acted = false;
    }
    ev.push(Event::all(match idx {
        Some(i) => format!(
            "Time roll {d1}+{d2} = {total}: the Time disc goes on space {}. {} has the first Battle Turn.",
            track[i],
            side_name(&att)
        ),
        None => format!("Time roll {d1}+{d2} = {total}: below the Time track; Retreat and Doubling are open at once."),
    }));
    ev
}

/// The battle ends with `loser`'s defeat.
fn end(s: &mut State, loser: &str, annihilated: bool) -> Vec<Event> {
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
fn loser_blocks<'a>(s: &'a State, loser: &str) -> Vec<&'a super::Block> {
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
        if let Some(t) = super::MAP.index(&a.target) {
            if super::MAP.kind(t) == "point" {
                let used: Vec<&str> = a.groups.iter().map(|g| g.entry.as_str()).collect();
                for &n in &super::MAP.adj[t] {
                    let nn = super::MAP.name(n);
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
fn after_reduce(s: &mut State, loser: &str, route: Option<String>) -> Vec<Event> {
    let mut ev = Vec::new();
    let winner = other(loser).to_string();
    let (target, attacker) = {
        let b = battle(s);
        (b.target.clone(), b.attacker.clone())
    };
    let fought: Vec<String> = battle(s).revealed.get(loser).cloned().unwrap_or_default();
    let left: Vec<&super::Block> = fought.iter().filter_map(|n| s.block(n)).filter(|x| !x.eliminated).collect();
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
fn upgrade_slots(s: &State) -> usize {
    let b = battle(s);
    let w = b.winner.clone().unwrap_or_default();
    b.revealed.get(&w).into_iter().flatten().filter_map(|n| s.block(n)).filter(|x| !x.dummy).count()
}

fn surviving_units(b: &Battle, side: &str) -> Vec<String> {
    b.wings.iter().filter(|w| w.side == side).flat_map(|w| w.units.iter().map(|u| u.id.clone())).collect()
}

/// Replace `id` by a Supply counter one level up or down, if there is one.
fn swap_level(p: &mut Pools, id: &str, up: bool) -> Option<String> {
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
fn adjust(s: &mut State, chosen: &[String]) -> Vec<Event> {
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
        ev.extend(super::Mantua.lift_siege(s));
    } else {
        ev.extend(super::Mantua.end_turn(s));
    }
    ev
}

// ---- orders ------------------------------------------------------------

/// The keywords of the battle orders read by `parse` below.
pub const VERBS: &[&str] =
    &["REVEAL", "DEPLOY", "MOVE", "TURN", "ATTACK", "PASS", "DOUBLE", "ACCEPT", "REDUCE", "RETREAT", "UPGRADE"];

pub fn syntax(s: &State, role: &str) -> Vec<String> {
    let Some(b) = &s.battle else { return vec![] };
    if b.side != role {
        return vec![];
    }
    let own = |r: u8| space_name(0, r);
    match b.stage {
        Stage::Reveal => vec!["REVEAL <block>   e.g. REVEAL <one of your blocks in the battle>".into()],
        Stage::Deploy => vec![format!(
            "DEPLOY <space>: <unit>, <unit>...   front unit first, at most {} a space, on your edge (row {}), e.g. DEPLOY {}: {}",
            DISPLAY.max_per_space,
            own(b.edge(role)).chars().next().unwrap_or('A'),
            space_name(2, b.edge(role)),
            b.hand.iter().take(2).cloned().collect::<Vec<_>>().join(", ")
        )],
        Stage::Turn => {
            let mut v = vec![
                "MOVE <space> [LEFT|RIGHT]   a Wing moves one space ahead, then may turn (1 Command)".to_string(),
                "TURN <space> LEFT|RIGHT     a Wing turns in place (1 Command; not when Engaged)".into(),
                "ATTACK <space>              the Wing attacks the enemy Wing it faces (Commands = its units; a Flank Attack 1)".into(),
                "PASS                        spend no Commands".into(),
            ];
            if b.time.is_none() && b.time_set {
                v.insert(0, "RETREAT                     Order a Retreat: the battle ends in your loss".into());
                if b.cube.as_deref().map(|c| c == role).unwrap_or(true) {
                    v.insert(1, "DOUBLE                      first line: offer the Doubling Cube, then your Commands".into());
                }
            }
            v
        }
        Stage::Doubled => vec!["ACCEPT    take the cube and the doubled stakes".into(), "RETREAT   Order a Retreat at the current stakes".into()],
        Stage::Reduce => {
            let mut v = vec![format!("REDUCE <block> <steps>   {} reduction(s) in all, e.g. REDUCE <block> 1", due(s, role))];
            if !retreat_routes(s, role).is_empty() {
                v.push(format!("RETREAT TO <city>   one of: {}", retreat_routes(s, role).join(", ")));
            }
            v
        }
        Stage::Upgrade => vec![format!("UPGRADE <unit>[, <unit>...]   up to {} of your surviving units, e.g. UPGRADE {}", upgrade_slots(s), surviving_units(b, role).first().cloned().unwrap_or_default()), "PASS   (the highest-level units are upgraded for you)".into()],
    }
}

pub fn prompt(s: &State, role: &str) -> Option<String> {
    let b = s.battle.as_ref()?;
    if b.side != role {
        return None;
    }
    Some(match b.stage {
        Stage::Reveal => format!(
            "Battle of {}: reveal one of your blocks ({}).",
            b.target,
            b.unrevealed.get(role).cloned().unwrap_or_default().join(", ")
        ),
        Stage::Deploy => format!(
            "Battle of {}: deploy the units you drew face-down on your edge: {}.",
            b.target,
            b.hand.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")
        ),
        Stage::Turn => format!(
            "Battle of {}: your Battle Turn; you have {} Commands. Stakes {}, cube {}.{}",
            b.target,
            b.commands.get(role).copied().unwrap_or(3),
            b.stakes,
            match &b.cube {
                None => "in the middle".to_string(),
                Some(h) => format!("held by {}", side_name(h)),
            },
            if b.time.is_none() { " Time is out: you may RETREAT, or DOUBLE if eligible." } else { "" }
        ),
        Stage::Doubled => format!(
            "Battle of {}: {} doubles the stakes to {}. ACCEPT, or RETREAT now at {}.",
            b.target,
            side_name(other(role)),
            b.stakes * 2,
            b.stakes
        ),
        Stage::Reduce => format!(
            "You lost the Battle of {}: take {} reduction(s) on your blocks there ({}).",
            b.target,
            due(s, role),
            loser_blocks(s, role).iter().map(|x| format!("{} {}", x.name, x.strength)).collect::<Vec<_>>().join(", ")
        ),
        Stage::Upgrade => format!(
            "You won the Battle of {}: upgrade up to {} surviving unit(s) one level.",
            b.target,
            upgrade_slots(s)
        ),
    })
}

fn unit_of(q: &str) -> String {
    q.trim().to_uppercase()
}

pub fn parse(s: &State, role: &str, line: &str) -> Result<Order, Problem> {
    let b = battle(s);
    let Some(l) = Line::new(line) else { return Err(Problem::new("empty line")) };
    let (word, rest) = (l.key(), l.rest);
    let usage = || {
        Problem::new(format!("{word} is not an order for this step of the battle")).hint(syntax(s, role).join(" | "))
    };
    let turn = |t: &str| match parse::word(t).as_str() {
        "LEFT" | "L" => Ok(Side90::Left),
        "RIGHT" | "R" => Ok(Side90::Right),
        other => Err(Problem::new(format!("{other:?} is not a turn")).hint("LEFT or RIGHT")),
    };
    let o = match (b.stage, word.as_str()) {
        (Stage::Reveal, "REVEAL") => Order::Reveal { block: block_in(s, role, rest)? },
        (Stage::Deploy, "DEPLOY") => {
            let (sp, us) = rest.split_once(':').ok_or_else(|| {
                Problem::new("write DEPLOY <space>: <unit>, <unit>").hint(syntax(s, role).join(" | "))
            })?;
            let (c, r) = parse_space(sp)?;
            let units: Vec<String> = parse::list(us).into_iter().map(unit_of).collect();
            if units.is_empty() {
                return Err(Problem::new("DEPLOY names no unit").hint(syntax(s, role).join(" | ")));
            }
            Order::Deploy { space: space_name(c, r), units }
        }
        (Stage::Turn, "MOVE") => {
            let mut it = rest.split_whitespace();
            let (c, r) = parse_space(it.next().unwrap_or(""))?;
            let t = it.next().map(turn).transpose()?;
            Order::Advance { space: space_name(c, r), turn: t }
        }
        (Stage::Turn, "TURN") => {
            let mut it = rest.split_whitespace();
            let (c, r) = parse_space(it.next().unwrap_or(""))?;
            Order::Wheel { space: space_name(c, r), turn: turn(it.next().unwrap_or(""))? }
        }
        (Stage::Turn, "ATTACK") => {
            let (c, r) = parse_space(rest)?;
            Order::Strike { space: space_name(c, r) }
        }
        (Stage::Turn, "PASS") => Order::Pass,
        (Stage::Turn | Stage::Doubled, "RETREAT") if rest.is_empty() => Order::Retreat,
        (Stage::Turn, "DOUBLE") => Order::Double,
        (Stage::Doubled, "ACCEPT") => Order::Accept,
        (Stage::Reduce, "REDUCE") => {
            let (name, n) = match rest.rsplit_once(char::is_whitespace) {
                Some((a, n)) if n.parse::<u32>().is_ok() => (a, n.parse().expect("checked")),
                _ => (rest, 1),
            };
            Order::Reduce { block: block_in(s, role, name)?, steps: n }
        }
        (Stage::Reduce, "RETREAT") => Order::RetreatTo { to: place_name(parse::optional(rest, "to"))? },
        (Stage::Upgrade, "UPGRADE") => Order::Upgrade { units: parse::list(rest).into_iter().map(unit_of).collect() },
        (Stage::Upgrade, "PASS") => Order::Pass,
        _ => return Err(usage()),
    };
    Ok(o)
}

pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let b = battle(s);
    let mut out = Vec::new();
    if b.side != role {
        return vec![(0, Problem::new("the battle does not await you now"))];
    }
    match b.stage {
        Stage::Reveal => {
            if orders.len() != 1 {
                out.push((0, Problem::new("reveal exactly one block")));
            }
            for (i, o) in orders.iter().enumerate() {
                if let Order::Reveal { block } = o {
                    if !b.unrevealed.get(role).map(|v| v.contains(block)).unwrap_or(false) {
                        out.push((
                            i,
                            Problem::new(format!("{block} is not an unrevealed block of yours in this battle"))
                                .hint(b.unrevealed.get(role).cloned().unwrap_or_default().join(", ")),
                        ));
                    }
                }
            }
        }
        Stage::Deploy => {
            let mut placed: Vec<&String> = Vec::new();
            let mut per: BTreeMap<String, usize> = BTreeMap::new();
            for w in b.wings.iter().filter(|w| w.side == role) {
                per.insert(space_name(w.col, w.row), w.units.len());
            }
            for (i, o) in orders.iter().enumerate() {
                let Order::Deploy { space, units } = o else { continue };
                let (c, r) = parse_space(space).expect("canonical");
                if r != b.edge(role) {
                    out.push((
                        i,
                        Problem::new(format!("{space} is not on your edge of the Battle Display"))
                            .hint(format!("your edge is row {}", (b'A' + b.edge(role)) as char)),
                    ));
                }
                if b.wing_at(c, r).map(|j| b.wings[j].side != role).unwrap_or(false) {
                    out.push((i, Problem::new(format!("{space} holds enemy units"))));
                }
                for u in units {
                    if !b.hand.contains(u) {
                        out.push((
                            i,
                            Problem::new(format!("{u} is not one of the units you drew")).hint(b.hand.join(", ")),
                        ));
                    } else if placed.contains(&u) {
                        out.push((i, Problem::new(format!("{u} is deployed twice"))));
                    } else {
                        placed.push(u);
                    }
                }
                let n = per.entry(space.clone()).or_default();
                *n += units.len();
                if *n > DISPLAY.max_per_space {
                    out.push((
                        i,
                        Problem::new(format!(
                            "{space} would hold {n} units; at most {} a space",
                            DISPLAY.max_per_space
                        )),
                    ));
                }
            }
            if out.is_empty() && placed.len() != b.hand.len() {
                let missing: Vec<&String> = b.hand.iter().filter(|u| !placed.contains(u)).collect();
                out.push((
                    0,
                    Problem::new(format!(
                        "every unit drawn must be deployed; not placed: {}",
                        missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    )),
                ));
            }
        }
        Stage::Turn => out.extend(validate_turn(b, role, orders)),
        Stage::Doubled => {
            if orders.len() != 1 {
                out.push((0, Problem::new("answer with ACCEPT or RETREAT alone")));
            }
        }
        Stage::Reduce => {
            let due = due(s, role);
            let mut total = 0;
            let mut per: BTreeMap<&str, u32> = BTreeMap::new();
            let routes = retreat_routes(s, role);
            let mut route = false;
            for (i, o) in orders.iter().enumerate() {
                match o {
                    Order::Reduce { block, steps } => {
                        let Some(x) = loser_blocks(s, role).into_iter().find(|x| &x.name == block) else {
                            out.push((i, Problem::new(format!("{block} did not fight in this battle, or is gone"))));
                            continue;
                        };
                        let n = per.entry(block).or_default();
                        *n += steps;
                        if *n + 1 > x.strength as u32 {
                            out.push((i, Problem::new(format!("{block} at strength {} can take at most {} reduction(s) (at 2, one more Eliminates it)", x.strength, x.strength - 1))));
                        }
                        total += steps;
                    }
                    Order::RetreatTo { to } => {
                        route = true;
                        if !routes.contains(to) {
                            out.push((
                                i,
                                Problem::new(format!("{to} is not a retreat route")).hint(if routes.is_empty() {
                                    "none: do not name one".to_string()
                                } else {
                                    routes.join(", ")
                                }),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            if total != due {
                out.push((0, Problem::new(format!("take exactly {due} reduction(s); these orders take {total}"))));
            }
            if !route && !routes.is_empty() {
                out.push((
                    0,
                    Problem::new("name your retreat route").hint(format!("RETREAT TO one of {}", routes.join(", "))),
                ));
            }
        }
        Stage::Upgrade => {
            let mine = surviving_units(b, role);
            let mut seen = Vec::new();
            for (i, o) in orders.iter().enumerate() {
                if let Order::Upgrade { units } = o {
                    if units.len() > upgrade_slots(s) {
                        out.push((
                            i,
                            Problem::new(format!(
                                "at most {} upgrade(s): one per block of yours that fought",
                                upgrade_slots(s)
                            )),
                        ));
                    }
                    for u in units {
                        if !mine.contains(u) {
                            out.push((
                                i,
                                Problem::new(format!("{u} is not one of your surviving units")).hint(mine.join(", ")),
                            ));
                        } else if counter(u).map(|c| c.level >= 4).unwrap_or(false) {
                            out.push((i, Problem::new(format!("{u} is already Level 4"))));
                        } else if seen.contains(u) {
                            out.push((i, Problem::new(format!("{u} is named twice"))));
                        }
                        seen.push(u.clone());
                    }
                }
            }
        }
    }
    out
}

/// The role's Wing in `space` that has not acted yet this turn.
fn ready_wing(b: &Battle, role: &str, space: &str) -> Result<usize, Problem> {
    let (c, r) = parse_space(space)?;
    let w = b
        .wing_at(c, r)
        .filter(|&j| b.wings[j].side == role)
        .ok_or_else(|| Problem::new(format!("you have no Wing in {space} (at that point of your orders)")))?;
    if b.wings[w].acted {
        return Err(Problem::new(format!("the Wing in {space} has already acted this turn")));
    }
    Ok(w)
}

/// Check a Battle Turn against the display, moving Wings on a copy as the
/// orders go (combat results are not known yet, and are not guessed).
fn validate_turn(b: &Battle, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    let mut sim = b.clone();
    let mut left = b.commands.get(role).copied().unwrap_or(DISPLAY.commands) as i32;
    let open = b.time.is_none() && b.time_set;
    for (i, o) in orders.iter().enumerate() {
        match o {
            Order::Retreat => {
                if !open {
                    out.push((i, Problem::new("a Retreat can be ordered only once the Time disc has left the track")));
                } else if orders.len() > 1 {
                    out.push((i, Problem::new("RETREAT ends the battle: give it alone")));
                }
            }
            Order::Double => {
                if !open {
                    out.push((
                        i,
                        Problem::new("the Doubling Cube can be used only once the Time disc has left the track"),
                    ));
                } else if b.cube.as_deref().map(|c| c != role).unwrap_or(false) {
                    out.push((i, Problem::new("only the player holding the Doubling Cube may use it now")));
                } else if i != 0 {
                    out.push((i, Problem::new("DOUBLE comes first, before any Command")));
                }
            }
            Order::Pass => {
                if orders.len() > 1 && !orders.iter().all(|o| matches!(o, Order::Pass | Order::Double)) {
                    out.push((i, Problem::new("PASS cannot be mixed with Commands")));
                }
            }
            Order::Advance { space, .. } | Order::Wheel { space, .. } => {
                let w = match ready_wing(&sim, role, space) {
                    Ok(w) => w,
                    Err(p) => {
                        out.push((i, p));
                        continue;
                    }
                };
                if sim.engaged(w).is_some() {
                    out.push((i, Problem::new(format!("the Wing in {space} is Engaged and cannot move or turn"))));
                    continue;
                }
                left -= 1;
                if let Order::Advance { .. } = o {
                    match sim.ahead(w).filter(|&(c2, r2)| sim.wing_at(c2, r2).is_none()) {
                        Some((c2, r2)) => {
                            sim.wings[w].col = c2;
                            sim.wings[w].row = r2;
                        }
                        None => {
                            out.push((i, Problem::new(format!("the Wing in {space} faces the edge or an occupied space; it can only move into a vacant space ahead")).hint(format!("TURN {space} LEFT|RIGHT"))));
                            continue;
                        }
                    }
                    if let Order::Advance { turn: Some(t), .. } = o {
                        sim.wings[w].facing = quarter(sim.wings[w].facing, *t);
                    }
                } else if let Order::Wheel { turn, .. } = o {
                    sim.wings[w].facing = quarter(sim.wings[w].facing, *turn);
                }
                sim.wings[w].acted = true;
            }
            Order::Strike { space } => {
                let w = match ready_wing(&sim, role, space) {
                    Ok(w) => w,
                    Err(p) => {
                        out.push((i, p));
                        continue;
                    }
                };
                if sim.faced(w).is_none() {
                    out.push((i, Problem::new(format!("the Wing in {space} faces no adjacent enemy Wing"))));
                    continue;
                }
                left -= if sim.engaged(w).is_some() { sim.wings[w].units.len() as i32 } else { 1 };
                sim.wings[w].acted = true;
            }
            _ => out.push((i, Problem::new("not a Battle Turn order"))),
        }
        if left < 0 {
            out.push((
                i,
                Problem::new(format!("not enough Commands: you have {}", b.commands.get(role).copied().unwrap_or(3))),
            ));
            break;
        }
    }
    out
}

// ---- resolution ------------------------------------------------------------

pub fn resolve(s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
    let b = battle(s).clone();
    let mine = orders.get(&b.side).cloned().unwrap_or_default();
    let mut ev = Vec::new();
    match b.stage {
        Stage::Reveal => {
            let name = match mine.first() {
                Some(Order::Reveal { block }) => block.clone(),
                _ => b.unrevealed.get(&b.side).and_then(|v| v.first().cloned()).expect("a block to reveal"),
            };
            ev.extend(reveal(s, &b.side, &name, dice));
            if s.outcome.is_none() && battle(s).stage == Stage::Reveal {
                ev.extend(proceed(s, dice));
            }
        }
        Stage::Deploy => {
            let mut plan: Vec<(String, Vec<String>)> = mine
                .iter()
                .filter_map(|o| {
                    if let Order::Deploy { space, units } = o {
                        Some((space.clone(), units.clone()))
                    } else {
                        None
                    }
                })
                .collect();
            if plan.is_empty() {
                plan = default_deploy(&b, &b.side);
            }
            let side = b.side.clone();
            let bm = battle_mut(s);
            let facing = if side == bm.attacker { Facing::N } else { Facing::S };
            let mut public = Vec::new();
            for (space, units) in plan {
                let (c, r) = parse_space(&space).expect("canonical");
                public.push(format!("{} in {space}", units.len()));
                let new: Vec<Unit> = units.iter().map(|u| Unit { id: u.clone(), up: false }).collect();
                match bm.wing_at(c, r) {
                    Some(j) => bm.wings[j].units.extend(new),
                    None => {
                        bm.wings.push(Wing { side: side.clone(), col: c, row: r, facing, units: new, acted: false })
                    }
                }
            }
            bm.hand.clear();
            ev.push(Event::all(format!("{} deploys face-down: {}.", side_name(&side), public.join(", "))));
            ev.extend(next_reveal(s, dice));
        }
        Stage::Turn => ev.extend(battle_turn(s, &b.side, &mine, dice)),
        Stage::Doubled => {
            let offered = b.side.clone();
            let doubler = other(&offered).to_string();
            if matches!(mine.first(), Some(Order::Retreat)) {
                ev.push(Event::all(format!(
                    "{} refuses the Doubling Cube and Orders a Retreat at stakes {}.",
                    side_name(&offered),
                    b.stakes
                )));
                ev.extend(end(s, &offered, false));
            } else {
                let bm = battle_mut(s);
                bm.stakes = bm.stakes.saturating_mul(2);
                bm.cube = Some(offered.clone());
                let cmds = std::mem::take(&mut bm.held);
                bm.stage = Stage::Turn;
                bm.side = doubler.clone();
                ev.push(Event::all(format!(
                    "{} accepts the Doubling Cube: the stakes are now {}.",
                    side_name(&offered),
                    battle(s).stakes
                )));
                // The doubler's Commands, given with DOUBLE, now run; one
                // that cannot be carried out is told, not dropped.
                ev.extend(commands(s, &doubler, &cmds, dice));
            }
        }
        Stage::Reduce => {
            let loser = b.side.clone();
            let mut plan: Vec<(String, u32)> = mine
                .iter()
                .filter_map(
                    |o| if let Order::Reduce { block, steps } = o { Some((block.clone(), *steps)) } else { None },
                )
                .collect();
            let mut route =
                mine.iter().find_map(|o| if let Order::RetreatTo { to } = o { Some(to.clone()) } else { None });
            if plan.is_empty() && due(s, &loser) > 0 {
                plan = default_reductions(s, &loser);
            }
            let routes = retreat_routes(s, &loser);
            if route.is_none() {
                route = routes.first().cloned();
            }
            for (name, n) in plan {
                let x = s.blocks.iter_mut().find(|x| x.name == name).expect("validated block");
                for _ in 0..n {
                    if x.strength <= 2 {
                        x.eliminated = true;
                        break;
                    }
                    x.strength -= 1;
                }
                ev.push(Event::all(if x.eliminated {
                    format!("{} takes {n} reduction(s) on {name}: Eliminated.", side_name(&loser))
                } else {
                    format!("{} takes {n} reduction(s) on {name}, now at strength {}.", side_name(&loser), x.strength)
                }));
            }
            let route = if routes.is_empty() { None } else { route };
            ev.extend(after_reduce(s, &loser, route));
        }
        Stage::Upgrade => {
            let chosen: Vec<String> = mine
                .iter()
                .flat_map(|o| if let Order::Upgrade { units } = o { units.clone() } else { vec![] })
                .collect();
            ev.extend(adjust(s, &chosen));
        }
    }
    ev
}

fn default_deploy(b: &Battle, side: &str) -> Vec<(String, Vec<String>)> {
    // The fixed rule for a silent player: fill the edge from the middle
    // outwards, three units a space.
    let row = b.edge(side);
    let order = [2u8, 1, 3, 0, 4];
    let mut plan = Vec::new();
    let mut hand = b.hand.clone().into_iter();
    for c in order.iter().copied().filter(|&c| c < DISPLAY.columns) {
        let room = match b.wing_at(c, row) {
            Some(j) if b.wings[j].side == side => DISPLAY.max_per_space - b.wings[j].units.len(),
            Some(_) => continue,
            None => DISPLAY.max_per_space,
        };
        let units: Vec<String> = hand.by_ref().take(room).collect();
        if !units.is_empty() {
            plan.push((space_name(c, row), units));
        }
    }
    plan
}

fn default_reductions(s: &State, loser: &str) -> Vec<(String, u32)> {
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

/// A Battle Turn: Retreat, Doubling, or Commands; then the Time disc.
fn battle_turn(s: &mut State, side: &str, orders: &[Order], dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    match orders.first() {
        Some(Order::Retreat) => {
            ev.push(Event::all(format!("{} Orders a Retreat.", side_name(side))));
            ev.extend(end(s, side, false));
            return ev;
        }
        Some(Order::Double) => {
            let b = battle_mut(s);
            b.held = orders[1..].to_vec();
            b.stage = Stage::Doubled;
            b.side = other(side).to_string();
            ev.push(Event::all(format!(
                "{} offers the Doubling Cube: stakes {} if accepted.",
                side_name(side),
                b.stakes * 2
            )));
            return ev;
        }
        _ => {}
    }
    ev.extend(commands(s, side, orders, dice));
    ev
}

/// Commands left when the battle is decided: told, not dropped unseen.
fn not_carried_out(rest: &[Order]) -> Vec<Event> {
    rest.iter().map(|o| Event::all(format!("{o}: the battle is over; not carried out."))).collect()
}

/// Carry out Commands in order, skipping (and telling) any that the fight
/// made impossible; then end the Battle Turn.
fn commands(s: &mut State, side: &str, orders: &[Order], dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    let mut left = battle(s).commands.get(side).copied().unwrap_or(DISPLAY.commands) as i32;
    for (k, o) in orders.iter().enumerate() {
        if s.battle.as_ref().map(|b| b.winner.is_some()).unwrap_or(true) {
            ev.extend(not_carried_out(&orders[k..]));
            return ev;
        }
        let b = battle_mut(s);
        let sp = match o {
            Order::Advance { space, .. } | Order::Wheel { space, .. } | Order::Strike { space } => space.clone(),
            _ => continue,
        };
        let (c, r) = parse_space(&sp).expect("canonical");
        let Some(w) = b.wing_at(c, r).filter(|&j| b.wings[j].side == side && !b.wings[j].acted) else {
            ev.push(Event::all(format!(
                "{}: no Wing of {} able to act in {sp} any more; skipped.",
                o,
                side_name(side)
            )));
            continue;
        };
        match o {
            Order::Advance { .. } | Order::Wheel { .. } => {
                if b.engaged(w).is_some() || left < 1 {
                    ev.push(Event::all(format!("{o}: the Wing is Engaged or no Command is left; skipped.")));
                    continue;
                }
                if let Order::Advance { .. } = o {
                    match b.ahead(w).filter(|&(c2, r2)| b.wing_at(c2, r2).is_none()) {
                        Some((c2, r2)) => {
                            b.wings[w].col = c2;
                            b.wings[w].row = r2;
                        }
                        None => {
                            ev.push(Event::all(format!("{o}: the space ahead is not vacant; skipped.")));
                            continue;
                        }
                    }
                }
                let t = match o {
                    Order::Advance { turn, .. } => *turn,
                    Order::Wheel { turn, .. } => Some(*turn),
                    _ => None,
                };
                let mut flipped = String::new();
                if let Some(t) = t {
                    b.wings[w].facing = quarter(b.wings[w].facing, t);
                    if let Some(u) = b.wings[w].units.first_mut() {
                        if !u.up {
                            u.up = true;
                            flipped = format!("; its front unit is flipped: {}", shown(&u.id));
                        }
                    }
                }
                b.wings[w].acted = true;
                left -= 1;
                let wing = &b.wings[w];
                ev.push(Event::all(format!(
                    "{}: the Wing moves to {}, facing {}{flipped}.",
                    o,
                    space_name(wing.col, wing.row),
                    wing.facing.arrow()
                )));
            }
            Order::Strike { .. } => {
                let Some(t) = b.faced(w) else {
                    ev.push(Event::all(format!("{o}: no enemy Wing in front any more; skipped.")));
                    continue;
                };
                let flank = b.engaged(w).is_none();
                let n = b.wings[w].units.len() as i32;
                let cost = if flank { 1 } else { n };
                if cost > left {
                    ev.push(Event::all(format!("{o}: {cost} Command(s) needed, {left} left; skipped.")));
                    continue;
                }
                left -= cost;
                b.wings[w].acted = true;
                let tname = space_name(b.wings[t].col, b.wings[t].row);
                let label = format!("combat roll, {} Wing {sp} against {tname}", side_name(side));
                let d = dice.roll_n(&StreamId::Public, 2, 6, &label, &Serves::high(side));
                let (d1, d2) = (d[0], d[1]);
                let total = (d1 + d2) as i32 + n;
                let b = battle_mut(s);
                let enemy = b.wings[t].side.clone();
                let mut text = format!(
                    "{} {}Attack from {sp} on {tname}: {d1}+{d2}+{n} = {total}",
                    side_name(side),
                    if flank { "Flank " } else { "" }
                );
                if !flank && d1 == d2 {
                    // Repulsed: the attacker's front unit Breaks, unless Level 4.
                    let Some(u) = b.wings[w].units.first().cloned() else { continue };
                    b.wings[w].units[0].up = true;
                    if counter(&u.id).map(|c| c.level >= 4).unwrap_or(false) {
                        text.push_str(&format!(
                            "; doubles: Repulsed, but the front unit {} is Level 4 and holds.",
                            shown(&u.id)
                        ));
                    } else {
                        b.wings[w].units.remove(0);
                        b.broken.entry(side.to_string()).or_default().push(u.id.clone());
                        text.push_str(&format!("; doubles: Repulsed, and the front unit, {}, Breaks.", shown(&u.id)));
                    }
                } else if flank {
                    let mut broke = Vec::new();
                    for u in b.wings[t].units.iter_mut() {
                        u.up = true;
                    }
                    let units = std::mem::take(&mut b.wings[t].units);
                    for u in units {
                        let mv = counter(&u.id).map(|c| c.mv as i32).unwrap_or(99);
                        if mv < total {
                            broke.push(shown(&u.id));
                            b.broken.entry(enemy.clone()).or_default().push(u.id);
                        } else {
                            b.wings[t].units.push(u);
                        }
                    }
                    text.push_str(&format!(
                        "{}; compared with every unit: {}.",
                        if d1 == d2 { " (doubles: a Flank Attack is never Repulsed)" } else { "" },
                        if broke.is_empty() {
                            "none Breaks".to_string()
                        } else {
                            format!("{} Break", broke.join(", "))
                        }
                    ));
                } else {
                    let mut broke = Vec::new();
                    while let Some(u) = b.wings[t].units.first_mut() {
                        u.up = true;
                        let mv = counter(&u.id).map(|c| c.mv as i32).unwrap_or(99);
                        if total > mv {
                            let u = b.wings[t].units.remove(0);
                            broke.push(shown(&u.id));
                            b.broken.entry(enemy.clone()).or_default().push(u.id);
                        } else {
                            text.push_str(&format!("; {} holds", shown(&u.id)));
                            break;
                        }
                    }
                    text.push_str(&if broke.is_empty() {
                        ".".to_string()
                    } else {
                        format!("; Broken: {}.", broke.join(", "))
                    });
                }
                b.wings.retain(|x| !x.units.is_empty());
                ev.push(Event::all(text));
                for x in [side.to_string(), enemy] {
                    if battle(s).units_of(&x) == 0 {
                        ev.push(Event::all(format!("Every unit of {} is Broken: annihilated.", side_name(&x))));
                        ev.extend(end(s, &x, true));
                        ev.extend(not_carried_out(&orders[k + 1..]));
                        return ev;
                    }
                }
            }
            _ => {}
        }
    }
    ev.extend(end_turn(s, side));
    ev
}

/// After a Battle Turn: the Time disc moves down after each of the
/// attacker's turns; the other side plays next.
fn end_turn(s: &mut State, side: &str) -> Vec<Event> {
    let mut ev = Vec::new();
    let b = battle_mut(s);
    if side == b.attacker {
        match b.time {
            Some(0) => {
                b.time = None;
                ev.push(Event::all("The Time disc leaves the track: from now on a player may Order a Retreat or use the Doubling Cube before their Commands."));
            }
            Some(i) => {
                b.time = Some(i - 1);
                ev.push(Event::all(format!("The Time disc moves down to {}.", DISPLAY.time_track[i - 1])));
            }
            None => {}
        }
    }
    b.stage = Stage::Turn;
    b.side = other(side).to_string();
    b.turns += 1;
    for w in &mut b.wings {
        w.acted = false;
    }
    ev
}

pub fn default_orders(s: &State, _role: &str) -> Vec<Order> {
    // The no-moves policy in battle: a reveal takes the first block in name
    // order; a deployment fills the edge from the middle; a Battle Turn
    // passes; a doubled player accepts; reductions fall on the strongest
    // block; upgrades on the highest-level units.
    let b = battle(s);
    match b.stage {
        Stage::Reveal => b
            .unrevealed
            .get(&b.side)
            .and_then(|v| v.first())
            .map(|n| vec![Order::Reveal { block: n.clone() }])
            .unwrap_or_default(),
        Stage::Deploy => {
            default_deploy(b, &b.side).into_iter().map(|(space, units)| Order::Deploy { space, units }).collect()
        }
        Stage::Turn => vec![Order::Pass],
        Stage::Doubled => vec![Order::Accept],
        Stage::Reduce => {
            let mut v: Vec<Order> = default_reductions(s, &b.side)
                .into_iter()
                .map(|(block, steps)| Order::Reduce { block, steps })
                .collect();
            if let Some(r) = retreat_routes(s, &b.side).first() {
                v.push(Order::RetreatTo { to: r.clone() });
            }
            v
        }
        Stage::Upgrade => vec![Order::Pass],
    }
}

pub fn random_orders(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let b = battle(s);
    match b.stage {
        Stage::Reveal => {
            let v = b.unrevealed.get(role).cloned().unwrap_or_default();
            vec![Order::Reveal { block: v[pick(v.len())].clone() }]
        }
        Stage::Turn => {
            let open = b.time.is_none() && b.time_set;
            if open && pick(6) == 0 {
                return vec![Order::Retreat];
            }
            let mut v = Vec::new();
            if open && b.cube.as_deref().map(|c| c == role).unwrap_or(true) && pick(4) == 0 {
                v.push(Order::Double);
            }
            let mine: Vec<&Wing> = b.wings.iter().filter(|w| w.side == role).collect();
            for _ in 0..1 + pick(3) {
                if mine.is_empty() {
                    break;
                }
                let w = mine[pick(mine.len())];
                let sp = space_name(w.col, w.row);
                v.push(match pick(4) {
                    0 => Order::Wheel { space: sp, turn: if pick(2) == 0 { Side90::Left } else { Side90::Right } },
                    1 => Order::Advance { space: sp, turn: None },
                    _ => Order::Strike { space: sp },
                });
            }
            if validate(s, role, &v).is_empty() {
                return v;
            }
            if v.first() == Some(&Order::Double) {
                return vec![Order::Double, Order::Pass];
            }
            vec![Order::Pass]
        }
        Stage::Doubled => vec![if pick(3) == 0 { Order::Retreat } else { Order::Accept }],
        _ => default_orders(s, role),
    }
}

// ---- views -------------------------------------------------------------

/// The Battle Display as `viewer_side` may see it (None: the moderator).
pub fn board(b: &Battle, viewer_side: Option<&str>, sees_all: bool) -> GridBoard {
    let d = &*DISPLAY;
    let mut g = GridBoard {
        title: format!("Battle of {}", b.target),
        columns: d.columns as u32,
        rows: d.rows as u32,
        row_labels: (0..d.rows).map(|r| format!("{}", (b'A' + r) as char)).collect(),
        col_labels: (1..=d.columns).map(|c| c.to_string()).collect(),
        cells: Vec::new(),
        sides: vec![(AUSTRIA.into(), "#c0392b".into()), (FRANCE.into(), "#2c5aa0".into())],
        legend: vec![
            "a space: its side and facing, then its units front first".into(),
            "id:level/MV (* face down): your unit; Llevel/MV: an enemy unit face up".into(),
            "?: an enemy unit face down".into(),
        ],
    };
    for w in &b.wings {
        let own = sees_all || viewer_side == Some(w.side.as_str());
        let units: Vec<String> = w
            .units
            .iter()
            .map(|u| match (own, u.up, counter(&u.id)) {
                (true, _, Some(c)) => format!("{}:{}/{}{}", u.id, c.level, c.mv, if u.up { "" } else { "*" }),
                (false, true, Some(c)) => format!("L{}/{}", c.level, c.mv),
                _ => "?".to_string(),
            })
            .collect();
        g.cells.push(GridCell {
            col: w.col as u32,
            row: w.row as u32,
            side: w.side.clone(),
            facing: w.facing.arrow(),
            lines: units,
        });
    }
    g
}

pub fn table(s: &State, b: &Battle, viewer_side: Option<&str>, sees_all: bool) -> Table {
    let mut t = Table { title: format!("Battle of {}", b.target), header: vec!["".into(), "".into()], rows: vec![] };
    t.rows.push(vec!["attacker".into(), side_name(&b.attacker).into()]);
    t.rows.push(vec!["stage".into(), format!("{:?} — awaiting {}", b.stage, side_name(&b.side))]);
    t.rows.push(vec!["stakes".into(), b.stakes.to_string()]);
    t.rows.push(vec![
        "doubling cube".into(),
        b.cube
            .as_deref()
            .map(|c| format!("held by {}", side_name(c)))
            .unwrap_or_else(|| "in the middle (both eligible once time is out)".into()),
    ]);
    t.rows.push(vec![
        "time".into(),
        match (b.time_set, b.time) {
            (false, _) => "not yet placed".into(),
            (true, Some(i)) => format!("space {}", DISPLAY.time_track[i]),
            (true, None) => "out: Retreat and Doubling open".into(),
        },
    ]);
    for side in [AUSTRIA, FRANCE] {
        let rev: Vec<String> = b
            .revealed
            .get(side)
            .into_iter()
            .flatten()
            .filter_map(|n| s.block(n))
            .map(|x| format!("{} {}", x.name, x.strength))
            .collect();
        let hidden = b.unrevealed.get(side).map(Vec::len).unwrap_or(0);
        t.rows.push(vec![
            format!("{} blocks", side_name(side)),
            format!("revealed: {}; unrevealed: {hidden}", if rev.is_empty() { "none".into() } else { rev.join(", ") }),
        ]);
        t.rows.push(vec![
            format!("{} commands", side_name(side)),
            b.commands.get(side).copied().unwrap_or(3).to_string(),
        ]);
        let broken = b.broken.get(side).map(Vec::len).unwrap_or(0);
        t.rows.push(vec![
            format!("{} units", side_name(side)),
            format!("{} on the display, {broken} broken", b.units_of(side)),
        ]);
    }
    if let Some(v) = viewer_side {
        if b.side == v && !b.hand.is_empty() {
            t.rows.push(vec!["your hand".into(), b.hand.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")]);
        }
    }
    if sees_all && !b.hand.is_empty() {
        t.rows.push(vec!["hand".into(), b.hand.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")]);
    }
    t
}

/// A side's own Pool and Supply, by level (its owner and the moderator only).
pub fn pools_table(s: &State, side: &str) -> Table {
    let p = s.pools.get(side).cloned().unwrap_or_default();
    let count = |v: &Vec<String>, l: u8| {
        v.iter().filter(|u| counter(u).map(|c| c.level == l).unwrap_or(false)).count().to_string()
    };
    Table {
        title: format!("{} counters", side_name(side)),
        header: vec!["".into(), "Level 1".into(), "Level 2".into(), "Level 3".into(), "Level 4".into()],
        rows: vec![
            std::iter::once("Pool".to_string()).chain((1..=4).map(|l| count(&p.pool, l))).collect(),
            std::iter::once("Supply".to_string()).chain((1..=4).map(|l| count(&p.supply, l))).collect(),
        ],
    }
}
