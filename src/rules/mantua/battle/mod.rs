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

mod defeat;
mod display;
mod read;
mod turn;

use defeat::{adjust, after_reduce, default_reductions, end};
pub use defeat::{due, retreat_routes};
pub use display::{board, pools_table, table};
use read::default_deploy;
pub use read::{default_orders, parse, prompt, random_orders, syntax, validate, VERBS};
use turn::{battle_turn, commands, fight};

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
    toml::from_str(include_str!("../../../../games/mantua/battle.toml")).expect("games/mantua/battle.toml is valid")
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
    s.outcome = Some(crate::engine::Outcome::won(other(side), reason));
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

// ---- orders ------------------------------------------------------------

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

// ---- views -------------------------------------------------------------
