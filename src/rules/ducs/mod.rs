//! La Guerre des Ducs (rulebook: ../shared/rulebooks/la-guerre-des-ducs.txt),
//! a hex wargame for two: set-up (garrisons at once, then the rest in
//! turn), fifteen turns of two phases, movement with road half points and
//! zones of control, combat on the results table with dukes that double
//! the troops near them, retreats, pushes, exchanges and advances, and the
//! two sides' different victories. The readings of what the text leaves
//! open are the brief's (A-numbers in comments), listed in the README.
//!
//! The map, the counters and the results table are data (`games/ducs/`),
//! copied into the state at set-up so that a running game never changes
//! under an owner's edit and a case can patch any hex, value or cell.

mod combat;
mod data;
mod demo;
mod movement;
mod orders;
mod player;
mod random;
mod view;

use crate::dice::Dice;
use crate::engine::{
    Awaited, Effort, Event, LeakProbes, Outcome, Problem, Prompt, Rules, RulesetInfo, ScenarioInfo, View, Viewer,
    Vocabulary,
};
use crate::rules::shared::hex::{Grid, Hex, Side};
use crate::rules::shared::sides::TwoSides;
use crate::rules::shared::table::OddsTable;
pub use orders::{Advance, Order};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const ORF: &str = "orfburg";
pub const WULF: &str = "wulfenburg";
pub const SIDES: [&str; 2] = [ORF, WULF];

const TWO: TwoSides = TwoSides { first: (ORF, "Orfburg"), second: (WULF, "Wulfenburg") };

pub fn other(side: &str) -> &'static str {
    TWO.other(side)
}

/// The country's name as the counters print it (R05).
pub fn prefix(side: &str) -> &'static str {
    if side == ORF {
        "ORF"
    } else {
        "WULF"
    }
}

pub fn side_name(side: &str) -> &'static str {
    TWO.name(side)
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One hex of the map as the game holds it, named by its id so that a
/// case patches it (`hexes = [{ name = "0605", terrain = "forest" }]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexData {
    pub name: String,
    #[serde(default = "plain")]
    pub terrain: String,
    /// Whose territory at set-up ("" nobody).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub owner: String,
    /// The territory between the two rivers (A26).
    #[serde(default, skip_serializing_if = "is_false")]
    pub zone: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub place: String,
    /// The side whose capital this is.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub capital: String,
    /// Kaiserburg (R25).
    #[serde(default, skip_serializing_if = "is_false")]
    pub objective: bool,
    /// Who holds a city or fortress now (A23).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub control: String,
}

fn plain() -> String {
    "plain".into()
}

/// A hexside with a river, a bridge over it, or a road across it (A2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideData {
    /// `CCRR-CCRR`.
    pub name: String,
    #[serde(default)]
    pub river: bool,
    #[serde(default)]
    pub bridge: bool,
    #[serde(default)]
    pub road: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoadData {
    pub name: String,
    pub hexes: Vec<String>,
}

/// A terrain's effects, from the two printed tables (terrain.toml).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    pub name: String,
    pub glyph: String,
    /// Half points to enter.
    #[serde(default = "two")]
    pub cost: u32,
    /// Added to the attacker's die when the defender stands here (A13).
    #[serde(default)]
    pub die: i32,
    /// The defence multiplier (city 2, fortress 3).
    #[serde(default = "one")]
    pub defence: u32,
    #[serde(default = "yes")]
    pub passable: bool,
    /// Entered at the road rate along a road (a fortress is not: A4).
    #[serde(default = "yes")]
    pub road: bool,
    pub colour: String,
}

fn two() -> u32 {
    2
}
fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}

/// The numbers of the rules (terrain.toml).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numbers {
    pub turns: u32,
    pub duke_radius: i32,
    pub duke_factor: u32,
    pub road_cost: u32,
}

/// A counter (R03-R08), named as printed: `ORF I3`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub name: String,
    pub side: String,
    /// `I3`, `Duke`: what its owner writes.
    pub id: String,
    pub kind: String,
    pub strength: u32,
    pub movement: u32,
    #[serde(default)]
    pub range: i32,
    /// Its hex, or "" while it is not on the map.
    #[serde(default)]
    pub hex: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub eliminated: bool,
    /// Attacked this phase (R66, A22).
    #[serde(default, skip_serializing_if = "is_false")]
    pub attacked: bool,
    /// Attacked an enemy this phase (R67).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fought: bool,
}

impl Unit {
    pub fn duke(&self) -> bool {
        self.kind == "duke"
    }
    pub fn on_map(&self) -> bool {
        self.at().is_some()
    }
    pub fn at(&self) -> Option<Hex> {
        if self.eliminated {
            None
        } else {
            Hex::parse(&self.hex)
        }
    }
}

/// An attack written in a move or combat step, kept (privately, 3.3) until
/// it is fought.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queued {
    pub hex: String,
    /// The counters in the hex when it was ordered (A30).
    pub targets: Vec<String>,
    pub attackers: Vec<String>,
    /// "HOLD", a unit's name, or none: ask after the combat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance: Option<String>,
}

/// The combat in hand while a decision about it is awaited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fight {
    pub no: u32,
    pub hex: String,
    pub attacker: String,
    /// Attackers in close combat (bombarding artillery is not: A15).
    pub close: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance: Option<String>,
    /// Counters still to retreat, in order (the duke first, which the
    /// no-moves orders save when room runs short: A20).
    #[serde(default)]
    pub retreating: Vec<String>,
    /// Every counter that retreats from this combat: none of them pushes
    /// another, before or after it moved (A19).
    #[serde(default)]
    pub retreaters: Vec<String>,
    /// The retreating counters cannot all find room: their owner names
    /// the one that retreats, and the others are removed (A20).
    #[serde(default, skip_serializing_if = "is_false")]
    pub choose: bool,
    /// The result ("DR", "AR", "EX").
    pub result: String,
    /// Strength the attacker owes after an exchange.
    #[serde(default)]
    pub owed: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Both sides garrison their cities and fortresses at once (R11).
    Garrison,
    /// One side places pieces (R12, A27).
    Placement,
    /// The phasing side moves and queues its attacks.
    Move,
    /// The phasing side, after CONTINUE, orders more attacks.
    Combat,
    /// A side chooses where a counter retreats.
    Retreat,
    /// The attacker chooses its losses after an exchange.
    Losses,
    /// The attacker decides whether to occupy the abandoned hex.
    Advance,
    Over,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub grid: Grid,
    pub hexes: Vec<HexData>,
    #[serde(default)]
    pub hexsides: Vec<HexsideData>,
    #[serde(default)]
    pub roads: Vec<RoadData>,
    pub terrain: Vec<Terrain>,
    pub numbers: Numbers,
    pub crt: OddsTable,
    pub units: Vec<Unit>,
    pub phase: Phase,
    pub turn: u32,
    /// The phasing side; in set-up, the side placing.
    pub active: String,
    /// The phasing side's attacks still to fight (private to it).
    #[serde(default)]
    pub queue: Vec<Queued>,
    /// CONTINUE was written: ask for more attacks when the queue is done.
    #[serde(default, rename = "continue")]
    pub more: bool,
    /// Combats fought this game, for the dice labels.
    #[serde(default)]
    pub fights: u32,
    #[serde(default)]
    pub fight: Option<Fight>,
    #[serde(default)]
    pub outcome: Option<Outcome>,
}

/// The map's lookups, built from the state when a rule needs them: one
/// slot a hex, so the movement search asks nothing of a hash table.
pub struct Map<'a> {
    s: &'a State,
    /// Index into `s.hexes`, by cell.
    data: Vec<Option<usize>>,
    /// Index into `s.terrain`, by cell.
    terrain: Vec<usize>,
    /// Hexsides with an unbridged river, and those a road crosses, as bits
    /// by direction, by cell.
    river: Vec<u8>,
    road: Vec<u8>,
}

impl<'a> Map<'a> {
    pub fn new(s: &'a State) -> Map<'a> {
        let n = (s.grid.columns.max(0) * s.grid.rows.max(0)) as usize;
        let plain = s.terrain.iter().position(|t| t.name == "plain").unwrap_or(0);
        let mut m = Map { s, data: vec![None; n], terrain: vec![plain; n], river: vec![0; n], road: vec![0; n] };
        for (i, h) in s.hexes.iter().enumerate() {
            let Some(c) = Hex::parse(&h.name).and_then(|x| m.cell(x)) else { continue };
            m.data[c] = Some(i);
            m.terrain[c] = s.terrain.iter().position(|t| t.name == h.terrain).unwrap_or(plain);
        }
        let mark = |bits: &mut Vec<u8>, a: Hex, b: Hex, grid: &Grid| {
            if let (Some(d), Some(ca), Some(cb)) = (grid.direction(a, b), grid.cell(a), grid.cell(b)) {
                bits[ca] |= 1 << d.index();
                bits[cb] |= 1 << d.turn(3).index();
            }
        };
        for r in &s.roads {
            let hs: Vec<Hex> = r.hexes.iter().filter_map(|h| Hex::parse(h)).collect();
            for w in hs.windows(2) {
                mark(&mut m.road, w[0], w[1], &s.grid);
            }
        }
        for x in &s.hexsides {
            let Some(side) = Side::parse(&x.name) else { continue };
            if x.road {
                mark(&mut m.road, side.0, side.1, &s.grid);
            }
            if x.river && !x.bridge {
                mark(&mut m.river, side.0, side.1, &s.grid);
            }
        }
        m
    }

    fn cell(&self, h: Hex) -> Option<usize> {
        self.s.grid.cell(h)
    }

    fn side_bit(&self, bits: &[u8], a: Hex, b: Hex) -> bool {
        match (self.cell(a), self.s.grid.direction(a, b)) {
            (Some(c), Some(d)) => bits[c] & (1 << d.index()) != 0,
            _ => false,
        }
    }

    pub fn data(&self, h: Hex) -> Option<&'a HexData> {
        self.cell(h).and_then(|c| self.data[c]).map(|i| &self.s.hexes[i])
    }

    /// A hex's terrain (an unlisted hex of the grid is plain).
    pub fn terrain(&self, h: Hex) -> &'a Terrain {
        let i = self.cell(h).map(|c| self.terrain[c]).unwrap_or(0);
        &self.s.terrain[i]
    }

    pub fn passable(&self, h: Hex) -> bool {
        self.s.grid.contains(h) && self.terrain(h).passable
    }

    /// An unbridged river on the hexside between two neighbours (A2, A9).
    pub fn river_between(&self, a: Hex, b: Hex) -> bool {
        !self.s.hexsides.is_empty() && self.side_bit(&self.river, a, b)
    }

    /// A step along a road: consecutive hexes of one road, or a hexside a
    /// road crosses.
    pub fn road_step(&self, a: Hex, b: Hex) -> bool {
        self.side_bit(&self.road, a, b)
    }

    /// Half points to step from `a` into its neighbour `b`, whatever
    /// stands there; `None` where no counter ever goes (R36, R37, A3, A4).
    pub fn step_cost(&self, a: Hex, b: Hex) -> Option<u32> {
        if !self.passable(b) || self.river_between(a, b) {
            return None;
        }
        let t = self.terrain(b);
        if self.road_step(a, b) && t.road {
            Some(self.s.numbers.road_cost.min(t.cost))
        } else {
            Some(t.cost)
        }
    }

    pub fn is_stronghold(&self, h: Hex) -> bool {
        self.terrain(h).defence > 1
    }

    /// `0605` or `0605 (Kaiserburg)`.
    pub fn label(&self, h: Hex) -> String {
        match self.data(h).map(|d| d.place.as_str()).filter(|p| !p.is_empty()) {
            Some(p) => format!("{h} ({p})"),
            None => h.to_string(),
        }
    }
}

impl State {
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
    }
    fn unit_mut(&mut self, name: &str) -> &mut Unit {
        self.units.iter_mut().find(|u| u.name == name).expect("a counter named by the rules")
    }
    /// A side's counter by the id its owner writes.
    pub fn own(&self, side: &str, id: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.side == side && u.id == id)
    }
    /// Counters on the map in a hex.
    pub fn at(&self, h: Hex) -> Vec<&Unit> {
        self.units.iter().filter(|u| u.at() == Some(h)).collect()
    }
    pub fn alive(&self, side: &str) -> impl Iterator<Item = &Unit> {
        let side = side.to_string();
        self.units.iter().filter(move |u| u.side == side && u.on_map())
    }
    pub fn duke_of(&self, side: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.side == side && u.duke())
    }
    /// The side's duke is within reach of `h` (R18, A10).
    pub fn fanatised(&self, side: &str, h: Hex) -> bool {
        self.duke_of(side)
            .and_then(|d| d.at())
            .map(|d| self.grid.distance(d, h) <= self.numbers.duke_radius)
            .unwrap_or(false)
    }
    pub fn hex_data_mut(&mut self, h: Hex) -> Option<&mut HexData> {
        let id = h.to_string();
        self.hexes.iter_mut().find(|x| x.name == id)
    }
    /// A unit (not a duke) ending in a city or fortress takes it (A23).
    fn take(&mut self, name: &str, events: &mut Vec<Event>) {
        let Some(u) = self.unit(name).cloned() else { return };
        let Some(h) = u.at() else { return };
        if u.duke() {
            return;
        }
        let stronghold = Map::new(self).is_stronghold(h);
        if let Some(d) = self.hex_data_mut(h) {
            if stronghold && d.control != u.side {
                d.control = u.side.clone();
                let what = if d.place.is_empty() { h.to_string() } else { format!("{} ({h})", d.place) };
                events.push(Event::all(format!("{} takes {what}.", side_name(&u.side))));
            }
        }
    }
    pub fn phase_kind(&self) -> &'static str {
        match self.phase {
            Phase::Garrison => "garrison",
            Phase::Placement => "placement",
            Phase::Move => "move",
            Phase::Combat => "combat",
            Phase::Retreat => "retreat",
            Phase::Losses => "losses",
            Phase::Advance => "advance",
            Phase::Over => "over",
        }
    }
    /// The side a retreat step waits for.
    fn retreating_side(&self) -> Option<String> {
        let f = self.fight.as_ref()?;
        self.unit(f.retreating.first()?).map(|u| u.side.clone())
    }
    /// Who the open step waits for.
    pub fn awaited_roles(&self) -> Vec<String> {
        match self.phase {
            // A side that owns no city or fortress has nothing to garrison.
            Phase::Garrison => SIDES
                .iter()
                .filter(|side| !data::garrison_hexes(self, side).is_empty())
                .map(|s| s.to_string())
                .collect(),
            Phase::Over => Vec::new(),
            Phase::Retreat => self.retreating_side().into_iter().collect(),
            _ => vec![self.active.clone()],
        }
    }
}

pub struct Ducs;

impl Rules for Ducs {
    type State = State;
    type Order = Order;

    fn info(&self) -> RulesetInfo {
        RulesetInfo {
            name: "ducs",
            title: "La Guerre des Ducs",
            moderated: false,
            step_limit: None,
            step_kinds: &["garrison", "placement", "move", "combat", "retreat", "losses", "advance"],
            scenarios: data::SCENARIOS
                .iter()
                .map(|s| ScenarioInfo {
                    name: s.name.clone(),
                    roles: vec![ORF.into(), WULF.into()],
                    about: s.about.clone(),
                    variants: Vec::new(),
                })
                .collect(),
        }
    }

    fn setup(&self, scenario: &str) -> Result<State, String> {
        data::setup(scenario, random::defaults)
    }

    fn awaited(&self, s: &State) -> Awaited {
        let roles: Vec<String> = if s.outcome.is_some() { Vec::new() } else { s.awaited_roles() };
        Awaited { kind: s.phase_kind().into(), roles, optional: Vec::new() }
    }

    fn prompt(&self, s: &State, role: &str) -> Prompt {
        view::prompt(s, role)
    }

    fn parse(&self, s: &State, role: &str, line: &str) -> Result<Order, Problem> {
        orders::parse(s, role, line)
    }

    fn validate(&self, s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
        orders::validate(s, role, orders)
    }

    fn default_orders(&self, s: &State, role: &str) -> Vec<Order> {
        random::defaults(s, role)
    }

    fn vocabulary(&self, s: &State, role: &str) -> Vocabulary {
        // Everything on the map is public; only the queue is private, and
        // its lines are the owner's own words.
        let mut names: Vec<String> = s.units.iter().filter(|u| u.side == role).map(|u| u.id.clone()).collect();
        names.extend(s.hexes.iter().filter(|h| !h.place.is_empty()).map(|h| h.place.clone()));
        Vocabulary { verbs: orders::VERBS.iter().map(|v| v.to_string()).collect(), names }
    }

    fn leak_probes(&self, s: &State, role: &str) -> LeakProbes {
        // The other side's queued attacks (3.3), as its owner wrote them:
        // whatever prints the queue prints these lines.
        let hidden = if s.active == role {
            Vec::new()
        } else {
            s.queue
                .iter()
                .map(|q| {
                    let ids: Vec<&str> =
                        q.attackers.iter().map(|n| n.split_once(' ').map(|x| x.1).unwrap_or(n)).collect();
                    format!("ATTACK {} WITH {}", q.hex, ids.join(", "))
                })
                .collect()
        };
        LeakProbes { hidden, events: true }
    }

    fn demo(&self, s: &State, pass: usize) -> Option<Vec<crate::engine::DemoMail>> {
        demo::mails(s, pass)
    }

    fn resolve(&self, s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
        let mut ev = Vec::new();
        match s.phase {
            Phase::Garrison => data::garrison(s, orders, &mut ev),
            Phase::Placement => {
                data::placement(s, orders.get(&s.active.clone()).map(Vec::as_slice).unwrap_or(&[]), &mut ev)
            }
            Phase::Move | Phase::Combat => {
                let mine = orders.get(&s.active.clone()).cloned().unwrap_or_default();
                combat::orders_of_phase(s, &mine, dice, &mut ev);
            }
            Phase::Retreat | Phase::Losses | Phase::Advance => {
                let role = s.awaited_roles().into_iter().next().unwrap_or_default();
                let mine = orders.get(&role).cloned().unwrap_or_default();
                combat::decision(s, &mine, dice, &mut ev);
            }
            Phase::Over => {}
        }
        ev
    }

    fn view(&self, s: &State, viewer: &Viewer) -> View {
        view::view(s, viewer)
    }

    fn outcome(&self, s: &State) -> Option<Outcome> {
        s.outcome.clone()
    }

    fn random_orders(&self, s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
        random::orders(self, s, role, pick)
    }

    fn think(&self, s: &State, role: &str, effort: Effort, seed: u64) -> Option<Vec<Order>> {
        SIDES.contains(&role).then(|| player::MIND.think(self, s, role, effort, seed))
    }
}

/// End the game now.
fn finish(s: &mut State, winner: &str, reason: String, ev: &mut Vec<Event>) {
    ev.push(Event::all(format!("{} wins: {reason}.", side_name(winner))));
    s.outcome = Some(Outcome::won(winner, reason));
    s.phase = Phase::Over;
    s.queue.clear();
    s.fight = None;
    s.more = false;
}

/// The checks that end the game at once: a dead duke (R20, R28) or every
/// unit of a side gone (R09, A24).
fn sudden_death(s: &mut State, ev: &mut Vec<Event>) -> bool {
    if s.outcome.is_some() {
        return true;
    }
    for side in SIDES {
        if s.duke_of(side).map(|d| d.eliminated).unwrap_or(false) {
            finish(s, other(side), format!("total victory, the Duke of {} is dead", side_name(side)), ev);
            return true;
        }
    }
    for side in SIDES {
        let units: Vec<&Unit> = s.units.iter().filter(|u| u.side == side && !u.duke()).collect();
        if !units.is_empty() && units.iter().all(|u| u.eliminated) {
            finish(s, other(side), format!("total victory, every unit of {} is destroyed", side_name(side)), ev);
            return true;
        }
    }
    false
}

/// A capital held by the enemy at a phase's end (R27, A24), the phasing
/// side first.
fn capital_taken(s: &mut State, ev: &mut Vec<Event>) -> bool {
    let first = s.active.clone();
    for side in [first.as_str(), other(&first)] {
        let taken = s.hexes.iter().find(|h| h.capital == other(side) && h.control == side).map(|h| h.place.clone());
        if let Some(place) = taken {
            let side = side.to_string();
            finish(s, &side, format!("total victory, {} holds the enemy capital {place}", side_name(&side)), ev);
            return true;
        }
    }
    false
}

/// The marginal victory, judged after the last phase (R25, R26, A25):
/// Orfburg wins if it holds Kaiserburg, no Wulfenburg counter stands in
/// the zone, and it holds every city and fortress there.
pub fn marginal(s: &State) -> (bool, Vec<String>) {
    let map = Map::new(s);
    let mut why = Vec::new();
    let kaiser: Vec<&HexData> = s.hexes.iter().filter(|h| h.objective).collect();
    for k in &kaiser {
        if k.control != ORF {
            why.push(format!("{} is not held by Orfburg", k.place));
        }
    }
    for u in s.alive(WULF) {
        if let Some(h) = u.at() {
            if map.data(h).map(|d| d.zone).unwrap_or(false) {
                why.push(format!("{} is between the rivers ({h})", u.name));
            }
        }
    }
    for h in s.hexes.iter().filter(|h| h.zone && !h.control.is_empty() && h.control != ORF) {
        why.push(format!("{} holds {} between the rivers", side_name(&h.control), h.name));
    }
    (why.is_empty() && !kaiser.is_empty(), why)
}

/// The phase is over: capitals, then the other side's phase, the turn
/// marker, or the end of the game (R14-R16).
fn end_phase(s: &mut State, ev: &mut Vec<Event>) {
    for u in s.units.iter_mut() {
        u.attacked = false;
        u.fought = false;
    }
    s.queue.clear();
    s.more = false;
    s.fight = None;
    if capital_taken(s, ev) {
        return;
    }
    if s.active == ORF {
        s.active = WULF.into();
        s.phase = Phase::Move;
        ev.push(Event::all(format!("Turn {}: Wulfenburg's phase.", s.turn)));
        return;
    }
    if s.turn >= s.numbers.turns {
        let (won, why) = marginal(s);
        if won {
            finish(s, ORF, "marginal victory, Kaiserburg seized and the territory between the rivers kept".into(), ev);
        } else {
            finish(s, WULF, format!("marginal victory, Orfburg's conquest was prevented ({})", why.join("; ")), ev);
        }
        return;
    }
    s.turn += 1;
    s.active = ORF.into();
    s.phase = Phase::Move;
    ev.push(Event::all(format!("Turn {}: Orfburg's phase.", s.turn)));
}

/// Look up a hex by id or place name (accents and case ignored).
pub fn find_hex(s: &State, text: &str) -> Result<Hex, Problem> {
    let t = text.trim();
    if let Some(h) = Hex::parse(t) {
        if s.grid.contains(h) {
            return Ok(h);
        }
        return Err(Problem::new(format!("{t} is off the map"))
            .hint(format!("hexes run from 0101 to {:02}{:02}", s.grid.columns, s.grid.rows)));
    }
    let places: Vec<&HexData> = s.hexes.iter().filter(|h| !h.place.is_empty()).collect();
    let names: Vec<&str> = places.iter().map(|h| h.place.as_str()).collect();
    let i = crate::rules::shared::names::find(&names, t, "place").map_err(|p| {
        let hint = p.suggestion.clone().unwrap_or_else(|| "write a hex as four digits, column then row (0605)".into());
        Problem::new(format!("{}; a hex is four digits, column then row, or a place name", p.reason)).hint(hint)
    })?;
    Hex::parse(&places[i].name).ok_or_else(|| Problem::new("that place has no hex"))
}
