//! Siege of Mantua (rulebook: ../shared/rulebooks/siege-of-mantua.txt), the
//! manoeuvre game: set-up, communication networks, normal and special moves,
//! the single Attack, Escape, the siege of Mantova and its lifting, victory.
//!
//! Battles are not fought here yet: an Attack that is not escaped leaves the
//! game in the Battle phase, reported as "battle pending" and awaiting the
//! moderator, until the battle rules land.

pub mod battle;
mod demo;
mod orders;
mod player;
mod random;
mod view;

use crate::dice::{Dice, Serves, StreamId};
use crate::engine::{
    Awaited, Effort, Event, LeakProbes, Outcome, Problem, Prompt, Rules, RulesetInfo, ScenarioInfo, View, Viewer,
    Vocabulary,
};
use crate::rules::shared::graph::Graph;
use crate::rules::shared::sides::TwoSides;
pub use orders::Order;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

pub const AUSTRIA: &str = "austria";
pub const FRANCE: &str = "france";
/// Where Wurmser sits while the siege lasts: not a space of the road map.
pub const BESIEGED: &str = "besieged";
pub const MANTOVA: &str = "Mantova";

pub static MAP: LazyLock<Graph> = LazyLock::new(|| {
    Graph::from_toml(include_str!("../../../games/mantua/map.toml")).expect("games/mantua/map.toml is valid")
});

static SCENARIO: LazyLock<ScenarioData> = LazyLock::new(|| {
    toml::from_str(include_str!("../../../games/mantua/scenario-standard.toml"))
        .expect("games/mantua/scenario-standard.toml is valid")
});

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioData {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    first: String,
    max_strength: u8,
    tyrolean_cities: Vec<String>,
    french_cities: Vec<String>,
    #[allow(dead_code)]
    austrian_start: String,
    #[serde(rename = "block")]
    blocks: Vec<BlockData>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BlockData {
    name: String,
    side: String,
    strength: u8,
    #[serde(default)]
    leader: bool,
    #[serde(default)]
    dummy: bool,
    #[serde(default)]
    tyrolean: bool,
    start: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Both sides place the blocks whose place is theirs to choose.
    Setup,
    /// The active side manoeuvres.
    Turn,
    /// The attacked side decides whether to try to Escape.
    Escape,
    /// The siege was lifted: Austria strengthens up to two blocks.
    LiftSiege,
    /// An Attack was not escaped: battle is joined.
    Battle,
    Over,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub name: String,
    pub side: String,
    pub strength: u8,
    #[serde(default)]
    pub leader: bool,
    #[serde(default)]
    pub dummy: bool,
    #[serde(default)]
    pub tyrolean: bool,
    /// A space name, or [`BESIEGED`].
    pub at: String,
    #[serde(default)]
    pub eliminated: bool,
}

/// Blocks that entered the attacked space through one neighbouring space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The space they entered from (their origin, or the Point they crossed).
    pub entry: String,
    pub blocks: Vec<String>,
    /// Where each block launched the Attack from, to return there if it loses.
    pub origins: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attack {
    pub target: String,
    pub attacker: String,
    pub groups: Vec<Group>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub phase: Phase,
    /// Game turn, counting each side's turn.
    pub turn: u32,
    /// The side whose turn it is.
    pub active: String,
    pub siege: bool,
    pub max_strength: u8,
    pub blocks: Vec<Block>,
    #[serde(default)]
    pub attack: Option<Attack>,
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// Each side's Pool and Supply of unit counters.
    pub pools: BTreeMap<String, battle::Pools>,
    /// The battle being fought, if any.
    #[serde(default)]
    pub battle: Option<battle::Battle>,
}

const TWO: TwoSides = TwoSides { first: (AUSTRIA, "Austria"), second: (FRANCE, "France") };

pub fn other(side: &str) -> &'static str {
    TWO.other(side)
}

pub fn side_name(side: &str) -> &'static str {
    TWO.name(side)
}

impl State {
    pub fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name == name)
    }
    fn block_mut(&mut self, name: &str) -> &mut Block {
        self.blocks.iter_mut().find(|b| b.name == name).expect("block named by a validated order")
    }
    pub fn alive(&self, side: &str) -> impl Iterator<Item = &Block> {
        let side = side.to_string();
        self.blocks.iter().filter(move |b| b.side == side && !b.eliminated)
    }
    pub fn at<'a>(&'a self, space: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
        self.blocks.iter().filter(move |b| !b.eliminated && b.at == space)
    }
    fn has(&self, side: &str, space: &str) -> bool {
        self.at(space).any(|b| b.side == side)
    }
    /// The space counts as enemy-held for `side`: enemy blocks are there, or
    /// it is Mantova after the siege was lifted and `side` is France.
    pub fn hostile(&self, side: &str, space: &str) -> bool {
        self.has(other(side), space) || (side == FRANCE && !self.siege && space == MANTOVA)
    }
    /// Network label of every space for `side`: roads traced through spaces
    /// not held by the enemy.
    pub fn networks(&self, side: &str) -> Vec<Option<usize>> {
        MAP.components(|i| !self.hostile(side, MAP.name(i)))
    }
    pub fn network_of(&self, nets: &[Option<usize>], block: &Block) -> Option<usize> {
        MAP.index(&block.at).and_then(|i| nets[i])
    }
}

/// How a block reaches a destination this turn.
struct Route {
    /// The space it enters the destination from.
    entry: String,
}

fn is_city(space: &str) -> bool {
    MAP.index(space).map(|i| MAP.kind(i) != "point").unwrap_or(false)
}

/// Can `side`'s block at `from` move to `to` this turn, and through where?
fn route(s: &State, side: &str, from: &str, to: &str) -> Result<Route, Problem> {
    let (Some(f), Some(t)) = (MAP.index(from), MAP.index(to)) else {
        return Err(Problem::new(format!("{to} is not a space a block can move to")));
    };
    if from == to {
        return Err(Problem::new(format!("the block is already in {to}")));
    }
    if to == MANTOVA && side == FRANCE && !s.siege {
        return Err(Problem::new("the French can never enter Mantova once the siege is lifted"));
    }
    if MAP.adjacent(f, t) {
        return Ok(Route { entry: from.to_string() });
    }
    // City to City across the Point between them.
    if MAP.kind(f) != "point" && MAP.kind(t) != "point" {
        if let Some(&p) = MAP.adj[f].iter().find(|&&p| MAP.kind(p) == "point" && MAP.adjacent(p, t)) {
            let pn = MAP.name(p);
            if s.hostile(side, pn) && s.has(other(side), pn) {
                return Err(Problem::new(format!(
                    "enemy blocks hold the Point {pn}: moving there is an Attack and ends the move"
                ))
                .hint(format!("MOVE ... TO {pn}")));
            }
            if s.hostile(side, to) {
                return Err(Problem::new(format!("{to} is held by the enemy, so blocks must stop at the Point {pn}"))
                    .hint(format!("MOVE ... TO {pn}, then attack {to} next turn")));
            }
            return Ok(Route { entry: pn.to_string() });
        }
    }
    Err(Problem::new(format!("{to} is not adjacent to {from}")))
}

/// [`route`], with the destinations that would do as the suggestion when a
/// destination is not adjacent.
fn route_explained(s: &State, side: &str, from: &str, to: &str) -> Result<Route, Problem> {
    route(s, side, from, to).map_err(|p| {
        if p.suggestion.is_some() || !p.reason.contains("is not adjacent") {
            return p;
        }
        let reach = reachable(s, side, from);
        p.hint(if reach.is_empty() {
            format!("nothing can move from {from}")
        } else {
            format!("from {from} a block can move to {}", reach.join(", "))
        })
    })
}

/// Every destination a block at `from` could reach this turn.
fn reachable(s: &State, side: &str, from: &str) -> Vec<String> {
    MAP.names().into_iter().filter(|t| route(s, side, from, t).is_ok()).map(str::to_string).collect()
}

/// Escape Routes for the defenders attacked in `target` (rulebook,
/// Maneuver): an adjacent City, vacant or held by `side`, by a Road not used
/// to launch the Attack, whose Point is free of the attacker's blocks; never
/// Mantova.
pub fn escape_routes(s: &State, attack: &Attack) -> Vec<String> {
    let Some(t) = MAP.index(&attack.target) else {
        return Vec::new();
    };
    if MAP.kind(t) == "point" {
        return Vec::new();
    }
    let used: BTreeSet<&str> = attack.groups.iter().map(|g| g.entry.as_str()).collect();
    let mut out = BTreeSet::new();
    for &n in &MAP.adj[t] {
        let nn = MAP.name(n);
        if used.contains(nn) {
            continue;
        }
        let city = if MAP.kind(n) == "point" {
            if s.has(&attack.attacker, nn) {
                continue;
            }
            match MAP.adj[n].iter().find(|&&c| c != t) {
                Some(&c) => c,
                None => continue,
            }
        } else {
            n
        };
        let cn = MAP.name(city);
        if MAP.kind(city) == "fortress" || cn == MANTOVA {
            continue;
        }
        if s.has(&attack.attacker, cn) {
            continue;
        }
        out.insert(cn.to_string());
    }
    out.into_iter().collect()
}

#[derive(Default)]
pub struct Mantua;

impl Mantua {
    fn setup_state(&self) -> State {
        let sc = &*SCENARIO;
        State {
            phase: Phase::Setup,
            turn: 0,
            active: sc.first.clone(),
            siege: true,
            max_strength: sc.max_strength,
            blocks: sc
                .blocks
                .iter()
                .map(|b| Block {
                    name: b.name.clone(),
                    side: b.side.clone(),
                    strength: b.strength,
                    leader: b.leader,
                    dummy: b.dummy,
                    tyrolean: b.tyrolean,
                    at: b.start.clone(),
                    eliminated: false,
                })
                .collect(),
            attack: None,
            outcome: None,
            pools: [AUSTRIA, FRANCE].iter().map(|x| (x.to_string(), battle::initial_pools(x))).collect(),
            battle: None,
        }
    }

    fn validate_setup(&self, s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
        let sc = &*SCENARIO;
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, o) in orders.iter().enumerate() {
            let Order::Place { block, at } = o else {
                continue;
            };
            let b = s.block(block).expect("parsed block exists");
            if !seen.insert(block.clone()) {
                out.push((i, Problem::new(format!("{block} is placed twice"))));
            }
            if role == AUSTRIA {
                if !b.tyrolean {
                    out.push((
                        i,
                        Problem::new(format!("{block} is not Tyrolean; only the Tyrolean blocks are placed by choice"))
                            .hint(format!(
                                "Tyrolean blocks: {}",
                                s.alive(AUSTRIA)
                                    .filter(|b| b.tyrolean)
                                    .map(|b| b.name.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                    ));
                } else if !sc.tyrolean_cities.contains(at) {
                    out.push((
                        i,
                        Problem::new(format!(
                            "Tyrolean blocks set up in {}, not {at}",
                            sc.tyrolean_cities.join(" or ")
                        )),
                    ));
                }
            } else if !sc.french_cities.contains(at) {
                out.push((
                    i,
                    Problem::new(format!("French blocks set up in {}, not {at}", sc.french_cities.join(", "))),
                ));
            } else {
                let c = count.entry(at.as_str()).or_default();
                *c += 1;
                if *c > 2 {
                    out.push((
                        i,
                        Problem::new(format!("{at} already has two French blocks"))
                            .hint("place exactly two blocks in each of the five cities"),
                    ));
                }
            }
        }
        out
    }

    fn validate_turn(&self, s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
        let mut out = Vec::new();
        if role != s.active {
            return vec![(0, Problem::new("it is not your turn"))];
        }
        let nets = s.networks(role);
        let mut used: BTreeSet<&str> = BTreeSet::new();
        let mut special = 0;
        let mut attack_target: Option<&str> = None;
        let mut first_net: Option<(usize, &str)> = None;
        let mut mantova_delta: i32 = 0;
        for (i, o) in orders.iter().enumerate() {
            let names: Vec<&str> = match o {
                Order::Move { blocks, .. } => blocks.iter().map(String::as_str).collect(),
                Order::Swap { a, b } => vec![a, b],
                Order::Reassign { from, to } => vec![from, to],
                Order::Pass => {
                    if orders.len() > 1 {
                        out.push((
                            i,
                            Problem::new("PASS must be the only order of the turn")
                                .hint("remove PASS or the other orders"),
                        ));
                    }
                    continue;
                }
                _ => continue,
            };
            for n in &names {
                let b = s.block(n).expect("parsed block exists");
                if b.eliminated {
                    out.push((i, Problem::new(format!("{n} has been eliminated"))));
                    continue;
                }
                if b.at == BESIEGED {
                    out.push((
                        i,
                        Problem::new(format!(
                            "{n} is besieged in Mantova and cannot be activated while the siege lasts"
                        )),
                    ));
                    continue;
                }
                if !used.insert(n) {
                    out.push((i, Problem::new(format!("{n} is ordered twice; each block moves once a turn"))));
                }
                match (first_net, s.network_of(&nets, b)) {
                    (None, Some(k)) => first_net = Some((k, n)),
                    (Some((k, first)), Some(k2)) if k != k2 => out.push((
                        i,
                        Problem::new(format!(
                            "{n} is not in communication with {first}: only one network of blocks may act in a turn"
                        ))
                        .hint("move only blocks that can trace roads to each other free of enemy blocks"),
                    )),
                    _ => {}
                }
            }
            match o {
                Order::Move { blocks, to } => {
                    for n in blocks {
                        let b = s.block(n).expect("parsed block exists");
                        if b.eliminated || b.at == BESIEGED {
                            continue;
                        }
                        match route_explained(s, role, &b.at, to) {
                            Err(p) => out.push((i, p)),
                            Ok(_) => {
                                if b.at == MANTOVA {
                                    mantova_delta -= 1;
                                }
                                if to == MANTOVA && role == FRANCE {
                                    mantova_delta += 1;
                                }
                                if s.hostile(role, to) {
                                    match attack_target {
                                        None => attack_target = Some(to),
                                        Some(t) if t != to => out.push((
                                            i,
                                            Problem::new(format!("a second Attack (on {to}; the first is on {t}): only one Attack a turn"))
                                                .hint(format!("attack {t} from several directions, or not at all")),
                                        )),
                                        _ => {}
                                    }
                                }
                            }
                        }
                    }
                }
                Order::Swap { a, b } | Order::Reassign { from: a, to: b } => {
                    special += 1;
                    if special > 1 {
                        out.push((i, Problem::new("only one Special Move a turn")));
                    }
                    let (ba, bb) = (s.block(a).expect("parsed"), s.block(b).expect("parsed"));
                    if a == b {
                        out.push((i, Problem::new("a Special Move needs two different blocks")));
                        continue;
                    }
                    for x in [ba, bb] {
                        if x.at != BESIEGED && !is_city(&x.at) {
                            out.push((
                                i,
                                Problem::new(format!(
                                    "{} is on a Point; Special Moves need both blocks in Cities",
                                    x.name
                                )),
                            ));
                        }
                    }
                    if s.network_of(&nets, ba) != s.network_of(&nets, bb) {
                        out.push((i, Problem::new(format!("{a} and {b} are not in communication"))));
                    }
                    if let Order::Swap { .. } = o {
                        if ba.at == bb.at {
                            out.push((
                                i,
                                Problem::new(format!(
                                    "{a} and {b} are both in {}; Interior Lines swaps blocks between two Cities",
                                    ba.at
                                )),
                            ));
                        }
                    } else {
                        if ba.dummy || bb.dummy {
                            out.push((
                                i,
                                Problem::new(
                                    "a Dummy cannot take part in a Reassign (revealed, it would be Eliminated)",
                                ),
                            ));
                        }
                        if ba.strength < 3 {
                            out.push((
                                i,
                                Problem::new(format!(
                                    "{a} has strength {}; Reassign needs a revealed block of at least 3",
                                    ba.strength
                                )),
                            ));
                        }
                        if bb.strength >= s.max_strength {
                            out.push((
                                i,
                                Problem::new(format!(
                                    "{b} is already at strength {}; Reassign needs a block below {}",
                                    bb.strength, s.max_strength
                                )),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        // Special-move blocks may not also move: `used` already refuses a
        // block named twice. The Invested Space must keep one or two blocks:
        // no order may take it out of that range, nor further out of it
        // (a lost attack from Mantova sends its blocks back there, which can
        // leave three; France is not then forced to move to pass a turn).
        if role == FRANCE && s.siege {
            let now = s.at(MANTOVA).filter(|b| b.side == FRANCE).count() as i32;
            let after = now + mantova_delta;
            // How far a count lies outside one-to-two.
            let off = |n: i32| (1 - n).max(n - 2).max(0);
            let worse = off(after) > off(now);
            if worse {
                let i = orders.iter().position(|o| matches!(o, Order::Move { .. })).unwrap_or(0);
                out.push((
                    i,
                    Problem::new(format!("the Invested Space of Mantova would hold {after} French blocks; it must hold one or two while the siege lasts")),
                ));
            }
        }
        out
    }

    fn resolve_setup(&self, s: &mut State, orders: &BTreeMap<String, Vec<Order>>) -> Vec<Event> {
        let sc = &*SCENARIO;
        let mut ev = Vec::new();
        for role in [AUSTRIA, FRANCE] {
            let placed: Vec<(String, String)> = orders
                .get(role)
                .map(|v| {
                    v.iter()
                        .filter_map(|o| {
                            if let Order::Place { block, at } = o {
                                Some((block.clone(), at.clone()))
                            } else {
                                None
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            if role == FRANCE {
                // Explicit placements first; the rest fill their scenario
                // city if it has room, else the first city with room.
                let mut count: BTreeMap<String, usize> = BTreeMap::new();
                for (b, at) in &placed {
                    s.block_mut(b).at = at.clone();
                    *count.entry(at.clone()).or_default() += 1;
                }
                let rest: Vec<String> = s
                    .alive(FRANCE)
                    .filter(|b| !placed.iter().any(|(p, _)| *p == b.name))
                    .map(|b| b.name.clone())
                    .collect();
                for name in rest {
                    let start = sc.blocks.iter().find(|d| d.name == name).map(|d| d.start.clone()).unwrap_or_default();
                    let at = if count.get(&start).copied().unwrap_or(0) < 2 {
                        start
                    } else {
                        sc.french_cities
                            .iter()
                            .find(|c| count.get(*c).copied().unwrap_or(0) < 2)
                            .cloned()
                            .expect("ten blocks fit five cities")
                    };
                    *count.entry(at.clone()).or_default() += 1;
                    s.block_mut(&name).at = at;
                }
            } else {
                for (b, at) in &placed {
                    s.block_mut(b).at = at.clone();
                }
            }
            let mut by_city: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for b in s.alive(role) {
                by_city.entry(b.at.clone()).or_default().push(b.name.clone());
            }
            let public: Vec<String> = by_city
                .iter()
                .map(|(c, v)| format!("{} in {}", v.len(), if c == BESIEGED { "Mantova (besieged)" } else { c }))
                .collect();
            ev.push(Event::all(format!("{} sets up: {}.", side_name(role), public.join(", "))));
            let private: Vec<String> = by_city.iter().map(|(c, v)| format!("{}: {}", c, v.join(", "))).collect();
            ev.push(Event::to_role(role, format!("Your set-up: {}.", private.join("; "))));
        }
        s.phase = Phase::Turn;
        s.turn = 1;
        s.active = sc.first.clone();
        ev.push(Event::all(format!("{} has the first turn.", side_name(&s.active))));
        ev
    }

    fn resolve_turn(&self, s: &mut State, orders: &[Order], dice: &mut dyn Dice) -> Vec<Event> {
        let side = s.active.clone();
        let mut ev = Vec::new();
        // Special moves come first (rulebook: "performed at the beginning of
        // your turn, before any normal Moves").
        for o in orders {
            match o {
                Order::Swap { a, b } => {
                    let (pa, pb) = (s.block(a).expect("v").at.clone(), s.block(b).expect("v").at.clone());
                    s.block_mut(a).at = pb.clone();
                    s.block_mut(b).at = pa.clone();
                    ev.push(Event::all(format!(
                        "{} makes an Interior Lines move, swapping a block in {pa} with one in {pb}.",
                        side_name(&side)
                    )));
                    ev.push(Event::to_role(&side, format!("{a} goes to {pb}, {b} to {pa}.")));
                }
                Order::Reassign { from, to } => {
                    let (st, at) = {
                        let f = s.block_mut(from);
                        f.strength -= 1;
                        (f.strength, f.at.clone())
                    };
                    let t = s.block_mut(to);
                    t.strength += 1;
                    let (tst, tat) = (t.strength, t.at.clone());
                    ev.push(Event::all(format!(
                        "{} reveals {from} in {at} at strength {} and reduces it to {st} (Reassign); a block in communication with it gains one step.",
                        side_name(&side),
                        st + 1
                    )));
                    ev.push(Event::to_role(&side, format!("{to} in {tat} rises to strength {tst}.")));
                }
                _ => {}
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        let mut target = None;
        let mut moved: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for o in orders {
            let Order::Move { blocks, to } = o else {
                continue;
            };
            for n in blocks {
                let from = s.block(n).expect("v").at.clone();
                let r = route(s, &side, &from, to).expect("validated route");
                if s.hostile(&side, to) {
                    target = Some(to.clone());
                    match groups.iter_mut().find(|g| g.entry == r.entry) {
                        Some(g) => {
                            g.blocks.push(n.clone());
                            g.origins.push(from.clone());
                        }
                        None => groups.push(Group {
                            entry: r.entry.clone(),
                            blocks: vec![n.clone()],
                            origins: vec![from.clone()],
                        }),
                    }
                }
                moved.entry((from, to.clone())).or_default().push(n.clone());
            }
        }
        for ((from, to), names) in &moved {
            for n in names {
                s.block_mut(n).at = to.clone();
            }
            let what = if names.len() == 1 { "1 block".to_string() } else { format!("{} blocks", names.len()) };
            ev.push(Event::all(format!("{} moves {what} from {from} to {to}.", side_name(&side))));
            ev.push(Event::to_role(&side, format!("{} moved from {from} to {to}.", names.join(", "))));
        }
        if moved.is_empty() && !orders.iter().any(|o| matches!(o, Order::Swap { .. } | Order::Reassign { .. })) {
            ev.push(Event::all(format!("{} moves nothing.", side_name(&side))));
        }
        match target {
            None => ev.extend(self.end_turn(s)),
            Some(t) => {
                let attack = Attack { target: t.clone(), attacker: side.clone(), groups };
                let dirs: Vec<String> =
                    attack.groups.iter().map(|g| format!("{} from {}", g.blocks.len(), g.entry)).collect();
                ev.push(Event::all(format!("{} attacks {t} ({}).", side_name(&side), dirs.join("; "))));
                let routes = escape_routes(s, &attack);
                s.attack = Some(attack);
                if !is_city(&t) {
                    ev.push(Event::all(format!("The defenders of the Point {t} cannot Escape: battle is joined.")));
                    ev.extend(battle::begin(s, dice));
                } else if routes.is_empty() {
                    ev.push(Event::all(format!("The defenders of {t} have no Escape Route: battle is joined.")));
                    ev.extend(battle::begin(s, dice));
                } else {
                    ev.push(Event::all(format!(
                        "{} may try to Escape from {t} by: {}.",
                        side_name(other(&side)),
                        routes.join(", ")
                    )));
                    s.phase = Phase::Escape;
                }
            }
        }
        ev
    }

    fn resolve_escape(&self, s: &mut State, order: &Order, dice: &mut dyn Dice) -> Vec<Event> {
        let attack = s.attack.clone().expect("escape step has an attack");
        let defender = other(&attack.attacker);
        let mut ev = Vec::new();
        let Order::Escape { to } = order else {
            ev.push(Event::all(format!(
                "{} stands in {} and accepts battle: battle is joined.",
                side_name(defender),
                attack.target
            )));
            ev.extend(battle::begin(s, dice));
            return ev;
        };
        let siege_escape = s.siege && attack.target == MANTOVA && defender == FRANCE;
        let mut ok = true;
        if siege_escape {
            ev.push(Event::all(format!(
                "France escapes from the Invested Space of Mantova to {to}: automatic, no roll (rulebook, Mantova)."
            )));
        } else {
            for g in &attack.groups {
                let n = g.blocks.len() as u32;
                let label = format!(
                    "escape roll, {} from {} via {to}, against the group of {n} from {}",
                    side_name(defender),
                    attack.target,
                    g.entry
                );
                let f = dice.roll(&StreamId::Public, 6, &label, &Serves::low(defender));
                let pass = f <= n;
                ev.push(Event::all(format!(
                    "Escape roll against the group of {n} from {}: {f} ({}).",
                    g.entry,
                    if pass { format!("{f} ≤ {n}, escaped") } else { format!("{f} > {n}, failed") }
                )));
                ok &= pass;
            }
        }
        if !ok {
            ev.push(Event::all(format!("The Escape from {} fails: battle is joined.", attack.target)));
            ev.extend(battle::begin(s, dice));
            return ev;
        }
        let names: Vec<String> = s.at(&attack.target).filter(|b| b.side == defender).map(|b| b.name.clone()).collect();
        for n in &names {
            s.block_mut(n).at = to.clone();
        }
        ev.push(Event::all(format!(
            "{} blocks of {} escape from {} to {to}; {} takes {}.",
            names.len(),
            side_name(defender),
            attack.target,
            side_name(&attack.attacker),
            attack.target
        )));
        s.attack = None;
        if siege_escape {
            ev.extend(self.lift_siege(s));
        } else {
            ev.extend(self.end_turn(s));
        }
        ev
    }

    pub(super) fn lift_siege(&self, s: &mut State) -> Vec<Event> {
        s.siege = false;
        for b in s.blocks.iter_mut().filter(|b| b.at == BESIEGED) {
            b.at = MANTOVA.to_string();
        }
        s.phase = Phase::LiftSiege;
        vec![Event::all(
            "The Siege of Mantova is Lifted: Wurmser may now manoeuvre as a second Austrian Leader, and up to two Austrian blocks gain one step.",
        )]
    }

    fn resolve_lift(&self, s: &mut State, order: &Order) -> Vec<Event> {
        let mut ev = Vec::new();
        if let Order::Strengthen { blocks } = order {
            for n in blocks {
                let max = s.max_strength;
                let b = s.block_mut(n);
                b.strength = (b.strength + 1).min(max);
                let msg = format!("{n} rises to strength {}.", b.strength);
                ev.push(Event::to_role(AUSTRIA, msg));
            }
            ev.push(Event::all(format!("Austria strengthens {} block(s).", blocks.len())));
        }
        ev.extend(self.end_turn(s));
        ev
    }

    /// End of a side's turn: the victory check, then the other side's turn.
    pub(super) fn end_turn(&self, s: &mut State) -> Vec<Event> {
        let me = s.active.clone();
        let opp = other(&me);
        let left = s.alive(opp).count();
        if left <= 5 {
            s.phase = Phase::Over;
            s.outcome = Some(Outcome::won(
                &me,
                format!(
                    "{} has {left} blocks left (five or fewer) at the end of {}'s turn",
                    side_name(opp),
                    side_name(&me)
                ),
            ));
            return vec![Event::all(format!(
                "{} wins: {} has only {left} blocks left.",
                side_name(&me),
                side_name(opp)
            ))];
        }
        s.active = opp.to_string();
        s.turn += 1;
        s.phase = Phase::Turn;
        vec![]
    }
}

impl Rules for Mantua {
    type State = State;
    type Order = Order;

    fn info(&self) -> RulesetInfo {
        RulesetInfo {
            name: "mantua",
            title: "Siege of Mantua",
            moderated: false,
            step_limit: None,
            step_kinds: &[
                "setup",
                "turn",
                "escape",
                "lift",
                "reveal",
                "deploy",
                "battle turn",
                "doubled",
                "reductions",
                "upgrades",
            ],
            scenarios: vec![ScenarioInfo {
                name: "standard".into(),
                roles: vec![AUSTRIA.into(), FRANCE.into()],
                about: "The rulebook set-up; Austria places its Tyrolean blocks, France its ten blocks.".into(),
                variants: Vec::new(),
            }],
        }
    }

    fn setup(&self, scenario: &str) -> Result<State, String> {
        match scenario {
            "standard" => Ok(self.setup_state()),
            other => Err(format!("unknown Siege of Mantua scenario {other:?}; known: standard")),
        }
    }

    fn awaited(&self, s: &State) -> Awaited {
        let (kind, roles): (&str, Vec<&str>) = match s.phase {
            Phase::Setup => ("setup", vec![AUSTRIA, FRANCE]),
            Phase::Turn => ("turn", vec![s.active.as_str()]),
            Phase::Escape => {
                let a = s.attack.as_ref().expect("escape has an attack");
                ("escape", vec![other(&a.attacker)])
            }
            Phase::LiftSiege => ("lift", vec![AUSTRIA]),
            Phase::Battle => {
                let b = s.battle.as_ref().expect("a battle is being fought");
                let kind = match b.stage {
                    battle::Stage::Reveal => "reveal",
                    battle::Stage::Deploy => "deploy",
                    battle::Stage::Turn => "battle turn",
                    battle::Stage::Doubled => "doubled",
                    battle::Stage::Reduce => "reductions",
                    battle::Stage::Upgrade => "upgrades",
                };
                (kind, vec![b.side.as_str()])
            }
            Phase::Over => ("over", vec![]),
        };
        Awaited::new(kind, &roles)
    }

    fn prompt(&self, s: &State, role: &str) -> Prompt {
        let text = match s.phase {
            Phase::Setup if role == AUSTRIA => "Set-up: place each Tyrolean block in Rovereto or Riva (unplaced ones stay where the scenario puts them).".into(),
            Phase::Setup => "Set-up: place two blocks in each of Mantova (Invested), Rivoli, Verona, Caldiero and Bassano (unplaced ones go where the scenario puts them).".into(),
            Phase::Turn => format!(
                "Your turn (game turn {}): move one network of blocks; at most one Special Move and one Attack.",
                s.turn
            ),
            Phase::Escape => {
                let a = s.attack.as_ref().expect("escape has an attack");
                let routes = escape_routes(s, a);
                let auto = s.siege && a.target == MANTOVA;
                format!(
                    "{} attacks your blocks in {}. Escape by one of: {}{}, or STAND to accept battle.",
                    side_name(&a.attacker),
                    a.target,
                    routes.join(", "),
                    if auto {
                        " (automatic from the Invested Space, no roll)"
                    } else {
                        " (one die per attacking group; each must roll no more than the group's size)"
                    }
                )
            }
            Phase::LiftSiege => "The siege is lifted: name up to two Austrian blocks to gain one step each, or PASS.".into(),
            Phase::Battle => battle::prompt(s, role).unwrap_or_default(),
            Phase::Over => String::new(),
        };
        let syntax = if s.phase == Phase::Battle { battle::syntax(s, role) } else { orders::syntax(&s.phase) };
        Prompt { text, syntax }
    }

    fn parse(&self, s: &State, role: &str, line: &str) -> Result<Order, Problem> {
        if s.phase == Phase::Battle {
            return battle::parse(s, role, line.trim());
        }
        orders::parse(s, role, line)
    }

    fn validate(&self, s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
        match s.phase {
            Phase::Setup => self.validate_setup(s, role, orders),
            Phase::Turn => self.validate_turn(s, role, orders),
            Phase::Escape => {
                let a = s.attack.as_ref().expect("escape has an attack");
                let routes = escape_routes(s, a);
                let mut out = Vec::new();
                if orders.len() > 1 {
                    out.push((1, Problem::new("give one order: ESCAPE TO <city> or STAND")));
                }
                for (i, o) in orders.iter().enumerate() {
                    if let Order::Escape { to } = o {
                        if !routes.contains(to) {
                            out.push((
                                i,
                                Problem::new(format!("{to} is not an Escape Route from {}", a.target))
                                    .hint(format!("Escape Routes: {}", routes.join(", "))),
                            ));
                        }
                    }
                }
                out
            }
            Phase::LiftSiege => {
                let mut out = Vec::new();
                for (i, o) in orders.iter().enumerate() {
                    if let Order::Strengthen { blocks } = o {
                        if blocks.len() > 2 {
                            out.push((i, Problem::new("at most two blocks gain a step when the siege is lifted")));
                        }
                        let set: BTreeSet<_> = blocks.iter().collect();
                        if set.len() != blocks.len() {
                            out.push((i, Problem::new("name each block once")));
                        }
                        for b in blocks {
                            if s.block(b).map(|b| b.eliminated).unwrap_or(true) {
                                out.push((i, Problem::new(format!("{b} has been eliminated"))));
                            }
                        }
                    }
                }
                if orders.len() > 1 {
                    out.push((1, Problem::new("give one order: STRENGTHEN <block>[, <block>] or PASS")));
                }
                out
            }
            Phase::Battle => battle::validate(s, role, orders),
            Phase::Over => vec![(0, Problem::new("no orders are taken now"))],
        }
    }

    fn vocabulary(&self, s: &State, role: &str) -> Vocabulary {
        Vocabulary {
            verbs: orders::verbs().chain(battle::VERBS.iter().copied()).map(|v| v.to_string()).collect(),
            // Only the role's own blocks: which enemy blocks exist where is
            // hidden.
            names: s.blocks.iter().filter(|b| b.side == role).map(|b| b.name.clone()).collect(),
        }
    }

    fn leak_probes(&self, s: &State, role: &str) -> LeakProbes {
        // Enemy blocks not revealed in the battle being fought, and every
        // enemy counter id (the Pool, the hand, face-down units).
        let revealed: Vec<&String> =
            s.battle.as_ref().map(|b| b.revealed.values().flatten().collect()).unwrap_or_default();
        let mut hidden: Vec<String> = s
            .blocks
            .iter()
            .filter(|b| b.side != role && !revealed.contains(&&b.name))
            .map(|b| b.name.clone())
            .collect();
        let enemy = if role == AUSTRIA { 'F' } else { 'A' };
        hidden.extend((1..=28).map(|i| format!("{enemy}{i:02}")));
        LeakProbes { hidden, events: false }
    }

    fn demo(&self, s: &State, pass: usize) -> Option<Vec<crate::engine::DemoMail>> {
        demo::mails(s, pass)
    }

    fn default_orders(&self, s: &State, _role: &str) -> Vec<Order> {
        // The no-moves policy: set-up as the scenario places blocks, a turn
        // passes, an attacked side stands, a lifted siege strengthens nobody.
        match s.phase {
            Phase::Escape => vec![Order::Stand],
            Phase::Battle => battle::default_orders(s, _role),
            Phase::Setup | Phase::Over => vec![],
            Phase::Turn | Phase::LiftSiege => vec![Order::Pass],
        }
    }

    fn resolve(&self, s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
        let first = |role: &str| orders.get(role).and_then(|v| v.first()).cloned().unwrap_or(Order::Pass);
        match s.phase {
            Phase::Setup => self.resolve_setup(s, orders),
            Phase::Turn => {
                let v = orders.get(&s.active).cloned().unwrap_or_default();
                self.resolve_turn(s, &v, dice)
            }
            Phase::Escape => {
                let def = other(&s.attack.as_ref().expect("attack").attacker);
                let o = orders.get(def).and_then(|v| v.first()).cloned().unwrap_or(Order::Stand);
                self.resolve_escape(s, &o, dice)
            }
            Phase::LiftSiege => self.resolve_lift(s, &first(AUSTRIA)),
            Phase::Battle => battle::resolve(s, orders, dice),
            Phase::Over => vec![],
        }
    }

    fn view(&self, s: &State, viewer: &Viewer) -> View {
        view::view(s, viewer)
    }

    fn outcome(&self, s: &State) -> Option<Outcome> {
        s.outcome.clone()
    }

    fn think(&self, s: &State, role: &str, effort: Effort, seed: u64) -> Option<Vec<Order>> {
        [AUSTRIA, FRANCE].contains(&role).then(|| player::MIND.think(self, s, role, effort, seed))
    }

    fn random_orders(&self, s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
        random::orders(self, s, role, pick)
    }

    fn example(&self, s: &State, role: &str) -> Vec<Order> {
        random::example(self, s, role)
    }
}
