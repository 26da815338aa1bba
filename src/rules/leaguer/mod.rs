//! Leaguer siege turns (rulebook:
//! ../shared/rulebooks/leaguer-siege-turns-housekeeping.txt): the siege
//! ledger and each Siege Turn's Housekeeping Phase, for a moderator running
//! the table-top phases (artillery, combat, movement) themselves.
//!
//! A Siege Turn of one side is up to three steps: `housekeeping` awaits that
//! side's commander (all their decisions for the phase at once); its
//! resolution runs (a) Odd Jobs up to the Event Card; a drawn card opens an
//! `event` step awaiting the moderator, who applies the card's effect, after
//! which (b) Espionage, (c) Officers and (d) Rallying run with the
//! commander's orders; a `table` step then awaits the moderator's report of
//! the table-top phases, and its resolution ends the turn.

mod demo;
mod espionage;
mod housekeeping;
mod ledger;
mod orders;
mod random;
mod view;

use crate::dice::Dice;
use crate::engine::{
    Awaited, Board, Event, LeakProbes, Outcome, Problem, Prompt, Rules, RulesetInfo, ScenarioInfo, View, Viewer,
    Vocabulary,
};
pub use ledger::{Army, Intel, Officer, Rank, Spy, SpyStatus, Town, Unit, UnitKind, Wall, Whereabouts};
pub use orders::{Order, Plan};
pub use random::no_moves;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::LazyLock;

pub const BESIEGERS: &str = "besiegers";
pub const GARRISON: &str = "garrison";
/// The moderator's key among the prompts (the desk's name for them).
pub const GM: &str = "gm";

const TWO: crate::rules::shared::sides::TwoSides =
    crate::rules::shared::sides::TwoSides { first: (BESIEGERS, "Besiegers"), second: (GARRISON, "Garrison") };

pub fn other(side: &str) -> &'static str {
    TWO.other(side)
}

pub fn side_name(side: &str) -> &'static str {
    TWO.name(side)
}

/// "the Besiegers'" or "the Garrison's".
pub fn possessive(side: &str) -> &'static str {
    if side == BESIEGERS {
        "the Besiegers'"
    } else {
        "the Garrison's"
    }
}

/// How a fraction of the food store or of a die is rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rounding {
    Up,
    Down,
    Nearest,
}

impl Rounding {
    pub fn word(self) -> &'static str {
        match self {
            Rounding::Up => "up",
            Rounding::Down => "down",
            Rounding::Nearest => "to the nearest, halves up",
        }
    }
    /// `num / den` rounded this way (num, den > 0).
    pub fn apply(self, num: i32, den: i32) -> i32 {
        match self {
            Rounding::Up => (num + den - 1) / den,
            Rounding::Down => num / den,
            Rounding::Nearest => (2 * num + den) / (2 * den),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mission {
    pub key: String,
    pub title: String,
    /// "besiegers" or "both".
    pub who: String,
    pub difficulty: i32,
}

impl Mission {
    pub fn open_to(&self, side: &str) -> bool {
        self.who == "both" || self.who == side
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub sappers: usize,
    pub named: usize,
    pub miners: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitData {
    name: String,
    kind: UnitKind,
    #[serde(default)]
    halves: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfficerData {
    name: String,
    rank: Rank,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArmyData {
    resolve: i32,
    powder: i32,
    #[serde(default)]
    food: Option<i32>,
    #[serde(default)]
    ls: Option<i32>,
    #[serde(default)]
    mining: String,
    #[serde(default)]
    walls: Vec<Wall>,
    units: Vec<UnitData>,
    officers: Vec<OfficerData>,
    #[serde(default)]
    spies: Vec<String>,
}

/// A scenario file under games/leaguer/.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[allow(dead_code)]
    provenance: String,
    #[serde(default)]
    pub sample: bool,
    pub name: String,
    pub title: String,
    pub note: String,
    first: String,
    #[serde(default)]
    ds: Option<u8>,
    pub rounding: Rounding,
    pub death_resolve: BTreeMap<String, i32>,
    pub limits: Limits,
    garrison: ArmyData,
    besiegers: ArmyData,
    #[serde(rename = "mission")]
    pub missions: Vec<Mission>,
    pub events: BTreeMap<String, String>,
    /// Which kinds of card ("court", "2", "other") open a step for the
    /// moderator to apply; the others are discarded at once.
    pub event_asks: Vec<String>,
}

/// The scenario's rules and tables, copied into the game's state at
/// set-up: a journal replays with the data it was played with, whatever
/// later becomes of the scenario file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tables {
    pub title: String,
    pub sample: bool,
    pub rounding: Rounding,
    pub death_resolve: BTreeMap<String, i32>,
    pub limits: Limits,
    pub missions: Vec<Mission>,
    pub events: BTreeMap<String, String>,
    pub event_asks: Vec<String>,
    /// Starting Resolve by side and Food: the status board's track ends.
    pub start_resolve: BTreeMap<String, i32>,
    pub start_food: i32,
}

impl Tables {
    pub fn mission(&self, key: &str) -> Option<&Mission> {
        self.missions.iter().find(|m| m.key == key)
    }
    pub fn death_cost(&self, rank: Rank) -> i32 {
        self.death_resolve.get(rank.key()).copied().unwrap_or(0)
    }
}

pub static SCENARIOS: LazyLock<Vec<Scenario>> = LazyLock::new(|| {
    [include_str!("../../../games/leaguer/scenario-sample.toml")]
        .iter()
        .map(|t| toml::from_str::<Scenario>(t).expect("games/leaguer scenario files are valid"))
        .collect()
});

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// The active side's commander sends their Housekeeping decisions.
    Housekeeping,
    /// An Event Card was drawn: the moderator applies its effect.
    Event,
    /// The moderator reports the table-top phases; this ends the turn.
    Table,
    Over,
}

/// The 54-card Event Deck: draw pile (top first) and discard stack.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deck {
    pub draw: Vec<String>,
    pub discard: Vec<String>,
    /// How many times it has been shuffled (the first shuffle included).
    pub shuffles: u32,
}

/// Every card in canonical order: four suits of A, 2-10, J, Q, K, then
/// two Jokers.
pub fn full_deck() -> Vec<String> {
    let mut v = Vec::with_capacity(54);
    for suit in ["C", "D", "H", "S"] {
        for rank in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] {
            v.push(format!("{rank}{suit}"));
        }
    }
    v.push("Joker 1".into());
    v.push("Joker 2".into());
    v
}

pub fn is_joker(card: &str) -> bool {
    card.starts_with("Joker")
}

/// "court", "2" or "other": which instruction applies to a card.
pub fn card_class(card: &str) -> &'static str {
    let rank = card.trim_end_matches(['C', 'D', 'H', 'S']);
    match rank {
        "J" | "Q" | "K" => "court",
        "2" => "2",
        _ => "other",
    }
}

pub fn card_name(card: &str) -> String {
    if is_joker(card) {
        return card.to_string();
    }
    let suit = match card.chars().last() {
        Some('C') => "Clubs",
        Some('D') => "Diamonds",
        Some('H') => "Hearts",
        _ => "Spades",
    };
    let rank = match card.trim_end_matches(['C', 'D', 'H', 'S']) {
        "A" => "Ace",
        "J" => "Jack",
        "Q" => "Queen",
        "K" => "King",
        r => r,
    };
    format!("{rank} of {suit}")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub scenario: String,
    pub tables: Tables,
    pub phase: Phase,
    /// Siege Turns played so far plus the current one, both sides counted.
    pub turn: u32,
    /// The side whose Siege Turn it is.
    pub active: String,
    /// The Digging Standard, once set.
    #[serde(default)]
    pub ds: Option<u8>,
    pub town: Town,
    pub armies: BTreeMap<String, Army>,
    pub deck: Deck,
    /// The card drawn this turn, while the moderator applies it.
    #[serde(default)]
    pub card: Option<String>,
    /// The commander's Housekeeping orders waiting for the Event Card to be
    /// applied, typed (never text read again against a changed ledger).
    #[serde(default)]
    pub plan: Vec<Order>,
    /// What each side has learned of the other (spy reports).
    #[serde(default)]
    pub intel: BTreeMap<String, Vec<Intel>>,
    #[serde(default)]
    pub outcome: Option<Outcome>,
}

impl State {
    pub fn data(&self) -> &Tables {
        &self.tables
    }
    pub fn army(&self, side: &str) -> &Army {
        &self.armies[side]
    }
    pub fn army_mut(&mut self, side: &str) -> &mut Army {
        self.armies.get_mut(side).expect("both armies exist")
    }
    /// Local Support changes, and the Garrison's Resolve with it ("adjust
    /// the Garrison's Resolve in real time for all LS changes").
    pub fn change_ls(&mut self, delta: i32, why: &str, ev: &mut Vec<Event>) {
        if delta == 0 {
            return;
        }
        let before = self.town.ls;
        self.town.ls += delta;
        let ls = self.town.ls;
        let g = self.army_mut(GARRISON);
        let rb = g.resolve;
        g.resolve += delta;
        ev.push(Event::to_role(
            GARRISON,
            format!("{why}: Local Support {before} → {ls}, and the Garrison's Resolve with it {rb} → {}.", g.resolve),
        ));
    }
    pub fn change_resolve(&mut self, side: &str, delta: i32, why: &str, ev: &mut Vec<Event>) {
        if delta == 0 {
            return;
        }
        let a = self.army_mut(side);
        let before = a.resolve;
        a.resolve += delta;
        ev.push(Event::to_role(side, format!("{why}: {} Resolve {before} → {}.", side_name(side), a.resolve)));
    }
    /// Hits on a unit: rallyable, or disease/desertion (never rallied).
    /// Each hit taken costs its army 1 Resolve; a unit takes no more hits
    /// than eliminate it. Returns the hits taken.
    pub fn hit(&mut self, side: &str, unit: &str, n: u32, lasting: bool, why: &str, ev: &mut Vec<Event>) -> u32 {
        let Some(u) = self.army_mut(side).unit_mut(unit) else { return 0 };
        if u.eliminated || n == 0 {
            return 0;
        }
        let taken = n.min(u.kind.eliminated_at() - u.total_hits());
        if lasting {
            u.lasting += taken;
        } else {
            u.hits += taken;
        }
        let mut text = format!(
            "{why}: {} takes {taken} {}hit{} ({} in all",
            u.name,
            if lasting { "disease/desertion " } else { "" },
            if taken == 1 { "" } else { "s" },
            u.total_hits()
        );
        if u.total_hits() >= u.kind.eliminated_at() {
            u.eliminated = true;
            u.hold = false;
            u.police = false;
            text.push_str("): eliminated.");
        } else if u.kind == UnitKind::Artillery && u.total_hits() >= 2 {
            text.push_str("): it may not fire until rallied/repaired in the Safe Place.");
        } else {
            text.push_str(").");
        }
        // Loss counters are on the table for both sides to see; miners
        // work underground, their state is the enemy's to spy out.
        ev.push(if u.kind.on_table() { Event::all(text) } else { Event::to_role(side, text) });
        self.change_resolve(side, -(taken as i32), &format!("{taken} hit(s) on {unit}"), ev);
        taken
    }
    /// An officer or named individual dies: Resolve falls by the
    /// scenario's figure for their rank.
    pub fn kill(&mut self, side: &str, name: &str, why: &str, ev: &mut Vec<Event>) {
        let Some(o) = self.army_mut(side).officer_mut(name) else { return };
        if !o.alive {
            return;
        }
        o.alive = false;
        o.near.clear();
        let rank = o.rank;
        let text = format!("{why}: {} ({}) of the {} is dead.", o.name, rank.title(), side_name(side));
        if rank == Rank::Security {
            // The Security Officer may have no figure on the table: only his
            // own side (and the killer) learn of his death.
            ev.push(Event::to_role(side, text));
        } else {
            ev.push(Event::all(text));
        }
        let cost = self.data().death_cost(rank);
        self.change_resolve(side, -cost, &format!("loss of {name}"), ev);
    }
    /// The spying side learns a true figure of the other, as of now.
    pub fn learn(&mut self, side: &str, item: &str, value: String, how: &str, ev: &mut Vec<Event>) {
        ev.push(Event::to_role(side, format!("{how}: {item} of the {} is {value}.", side_name(other(side)))));
        let list = self.intel.entry(side.to_string()).or_default();
        list.retain(|i| i.item != item);
        list.push(Intel { item: item.to_string(), value, turn: self.turn });
    }
    /// The true figure for an information item about `side`.
    pub fn figure(&self, side: &str, key: &str, walls: &[String]) -> (String, String) {
        let a = self.army(side);
        match key {
            "info-ls" => ("Local Support".into(), self.town.ls.to_string()),
            "info-resolve" => ("Resolve".into(), a.resolve.to_string()),
            "info-food" => ("Food".into(), format!("{} turns in store", self.town.food)),
            "info-powder" => ("powder".into(), format!("{} loads", a.powder)),
            "info-walls" => {
                let v: Vec<String> = walls
                    .iter()
                    .filter_map(|w| self.town.walls.iter().find(|x| x.name == *w))
                    .map(|w| format!("{} {}", w.name, w.strength))
                    .collect();
                ("strength of walls".into(), v.join(", "))
            }
            _ => ("mining and countermining".into(), a.mining.clone()),
        }
    }
    /// The Victory Conditions, checked after every part of the phase that
    /// can meet one: Resolve or powder run out, Food out, Local Support
    /// below -3. The first met decides; returns whether the game is over.
    pub fn check_end(&mut self, ev: &mut Vec<Event>) -> bool {
        if self.outcome.is_some() {
            return true;
        }
        let mut losers = Vec::new();
        for side in [GARRISON, BESIEGERS] {
            let a = self.army(side);
            if a.resolve <= 0 {
                losers.push((side, format!("the {} have run out of Resolve", side_name(side))));
            } else if a.powder <= 0 {
                losers.push((side, format!("the {} have run out of gunpowder", side_name(side))));
            }
        }
        if self.town.food <= 0 {
            losers.push((GARRISON, "the Garrison has run out of Food".into()));
        }
        if self.town.ls < -3 {
            losers.push((GARRISON, "Local Support is below -3: the citizens open the gates".into()));
        }
        let Some((loser, _)) = losers.first().cloned() else { return false };
        let both = losers.iter().any(|(l, _)| *l != loser);
        let winner = if both { None } else { Some(other(loser).to_string()) };
        let reason = losers.iter().map(|(_, w)| w.clone()).collect::<Vec<_>>().join("; ");
        ev.push(Event::all(format!("The game ends: {reason}.")));
        self.end(winner, reason);
        true
    }
    pub fn end(&mut self, winner: Option<String>, reason: String) {
        self.phase = Phase::Over;
        self.outcome = Some(match winner {
            Some(w) => Outcome::won(w, reason),
            None => Outcome::drawn(reason),
        });
    }
}

pub struct Leaguer;

impl Rules for Leaguer {
    type State = State;
    type Order = Order;

    fn info(&self) -> RulesetInfo {
        RulesetInfo {
            name: "leaguer",
            title: "Leaguer — siege turns (housekeeping)",
            moderated: true,
            step_kinds: &["housekeeping", "event", "table"],
            step_limit: None,
            scenarios: SCENARIOS
                .iter()
                .map(|s| ScenarioInfo {
                    name: s.name.clone(),
                    roles: vec![BESIEGERS.into(), GARRISON.into()],
                    about: format!("{}{}", s.title, if s.sample { " [sample figures]" } else { "" }),
                    variants: Vec::new(),
                })
                .collect(),
        }
    }

    fn setup(&self, name: &str) -> Result<State, String> {
        let sc = SCENARIOS.iter().find(|s| s.name == name).ok_or_else(|| format!("no leaguer scenario {name:?}"))?;
        let army = |d: &ArmyData| Army {
            resolve: d.resolve,
            powder: d.powder,
            mining: d.mining.clone(),
            units: d
                .units
                .iter()
                .map(|u| Unit::new(&u.name, u.kind, u.halves.unwrap_or(2), Whereabouts::Danger))
                .collect(),
            officers: d
                .officers
                .iter()
                .map(|o| Officer { name: o.name.clone(), rank: o.rank, alive: true, near: Vec::new() })
                .collect(),
            spies: d.spies.iter().map(|n| Spy { name: n.clone(), quality: None, status: SpyStatus::Active }).collect(),
        };
        let mut armies = BTreeMap::new();
        armies.insert(BESIEGERS.to_string(), army(&sc.besiegers));
        armies.insert(GARRISON.to_string(), army(&sc.garrison));
        let tables = Tables {
            title: sc.title.clone(),
            sample: sc.sample,
            rounding: sc.rounding,
            death_resolve: sc.death_resolve.clone(),
            limits: sc.limits.clone(),
            missions: sc.missions.clone(),
            events: sc.events.clone(),
            event_asks: sc.event_asks.clone(),
            start_resolve: [(BESIEGERS.to_string(), sc.besiegers.resolve), (GARRISON.to_string(), sc.garrison.resolve)]
                .into_iter()
                .collect(),
            start_food: sc.garrison.food.unwrap_or(0),
        };
        Ok(State {
            scenario: sc.name.clone(),
            tables,
            phase: Phase::Housekeeping,
            turn: 1,
            active: sc.first.clone(),
            ds: sc.ds,
            town: Town {
                food: sc.garrison.food.unwrap_or(0),
                ls: sc.garrison.ls.unwrap_or(0),
                fires: 0,
                walls: sc.garrison.walls.clone(),
                measures_used: Vec::new(),
            },
            armies,
            deck: Deck::default(),
            card: None,
            plan: Vec::new(),
            intel: BTreeMap::new(),
            outcome: None,
        })
    }

    fn awaited(&self, s: &State) -> Awaited {
        match s.phase {
            Phase::Housekeeping => Awaited::new("housekeeping", &[s.active.as_str()]),
            Phase::Event => Awaited::new("event", &[GM]),
            Phase::Table => Awaited::new("table", &[GM]),
            Phase::Over => Awaited::default(),
        }
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

    fn vocabulary(&self, s: &State, role: &str) -> Vocabulary {
        let (verbs, armies): (&[&str], Vec<&ledger::Army>) = if role == GM {
            (orders::GM_VERBS, vec![s.army(BESIEGERS), s.army(GARRISON)])
        } else {
            // A side's own ledger only: the enemy's officers and spies
            // may be secret.
            (orders::VERBS, vec![s.army(role)])
        };
        let mut names = Vec::new();
        for a in armies {
            names.extend(a.units.iter().map(|u| u.name.clone()));
            names.extend(a.officers.iter().map(|o| o.name.clone()));
            names.extend(a.spies.iter().map(|x| x.name.clone()));
        }
        Vocabulary { verbs: verbs.iter().map(|v| v.to_string()).collect(), names }
    }

    fn leak_probes(&self, s: &State, role: &str) -> LeakProbes {
        // Phrases that only ever carry the other side's secret figures: its
        // Resolve, stores, Local Support, spies and their quality, its
        // Security Officer, the walls' strengths; and its miners' names.
        if role == GM {
            return LeakProbes::default();
        }
        let enemy = other(role);
        let e = side_name(enemy);
        let mut hidden = vec![
            format!("{e}: Resolve"),
            format!("{e} Resolve "),
            format!("{e} spies"),
            format!("{e} mining"),
            format!("{e} powder"),
            "+1 (Security Officer)".to_string(),
        ];
        let army = s.army(enemy);
        for spy in &army.spies {
            let n = &spy.name;
            hidden.extend([
                format!("Spy {n} ("),
                format!("{n} (poor)"),
                format!("{n} (competent)"),
                format!("{n} (exceptional)"),
            ]);
        }
        hidden.extend(army.units.iter().filter(|u| u.kind == UnitKind::Miners).map(|u| u.name.clone()));
        hidden.extend(army.officers.iter().filter(|o| o.rank == Rank::Security && o.alive).map(|o| o.name.clone()));
        if role == BESIEGERS {
            hidden.extend(
                ["Garrison: Food", "Local Support 0", "Local Support -", "Local Support 1", "Food rations", "Walls\n"]
                    .map(String::from),
            );
        }
        LeakProbes { hidden, events: true }
    }

    /// On the status board a figure of the other side is unknown ("?") or
    /// exactly what a spy reported.
    fn leak_check(&self, s: &State, role: &str, view: &View) -> Result<(), String> {
        let enemy_tracks: &[(&str, &str)] = match role {
            BESIEGERS => {
                &[("Resolve (Garrison)", "Resolve"), ("Local Support", "Local Support"), ("Food (turns)", "Food")]
            }
            GARRISON => &[("Resolve (Besiegers)", "Resolve")],
            _ => &[],
        };
        let intel = s.intel.get(role).cloned().unwrap_or_default();
        for b in &view.boards {
            let Board::Tracks(t) = b else { continue };
            for tr in &t.tracks {
                let Some((_, item)) = enemy_tracks.iter().find(|(l, _)| *l == tr.label) else { continue };
                let reported = intel
                    .iter()
                    .find(|i| i.item == *item)
                    .and_then(|i| i.value.split_whitespace().next().and_then(|w| w.parse::<i32>().ok()));
                if tr.value != reported {
                    return Err(format!(
                        "{role} sees {} as {:?} but its spies reported {reported:?}",
                        tr.label, tr.value
                    ));
                }
            }
        }
        Ok(())
    }

    fn demo(&self, s: &State, pass: usize) -> Option<Vec<crate::engine::DemoMail>> {
        demo::mails(s, pass)
    }

    fn default_orders(&self, s: &State, role: &str) -> Vec<Order> {
        if role == GM {
            return vec![Order::Done];
        }
        random::no_moves(s, role)
    }

    fn resolve(&self, s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
        let mut ev = Vec::new();
        match s.phase {
            Phase::Housekeeping => {
                let side = s.active.clone();
                let mine = orders.get(&side).cloned().unwrap_or_default();
                s.plan = mine.clone();
                let plan = Plan::of(&mine);
                housekeeping::odd_jobs(s, &plan, dice, &mut ev);
                s.check_end(&mut ev);
                if s.outcome.is_none() {
                    if s.card.is_some() {
                        s.phase = Phase::Event;
                    } else {
                        housekeeping::rest(s, &plan, dice, &mut ev);
                        s.plan.clear();
                        s.check_end(&mut ev);
                        if s.outcome.is_none() {
                            s.phase = Phase::Table;
                        }
                    }
                }
            }
            Phase::Event => {
                let gm = orders.get(GM).cloned().unwrap_or_default();
                if let Some(card) = s.card.take() {
                    ev.push(Event::all(format!("The moderator has applied the Event Card ({}).", card_name(&card))));
                    s.deck.discard.push(card);
                }
                housekeeping::moderator(s, &gm, &mut ev);
                s.check_end(&mut ev);
                if s.outcome.is_none() {
                    let plan = std::mem::take(&mut s.plan);
                    housekeeping::rest(s, &Plan::of(&plan), dice, &mut ev);
                    s.check_end(&mut ev);
                    if s.outcome.is_none() {
                        s.phase = Phase::Table;
                    }
                }
            }
            Phase::Table => {
                let gm = orders.get(GM).cloned().unwrap_or_default();
                housekeeping::moderator(s, &gm, &mut ev);
                s.check_end(&mut ev);
                if s.outcome.is_none() {
                    housekeeping::end_turn(s, &mut ev);
                }
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
        random::orders(s, role, pick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::shared::names::fold;

    /// Every scenario file sets up, and its names can be written in orders:
    /// unique across both armies (so every moderator entry names one
    /// thing) and never empty once folded.
    #[test]
    fn scenario_files_are_sound() {
        for sc in SCENARIOS.iter() {
            let s = Leaguer.setup(&sc.name).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            for a in s.armies.values() {
                let names = a.units.iter().map(|u| &u.name).chain(a.officers.iter().map(|o| &o.name));
                for n in names.chain(a.spies.iter().map(|x| &x.name)) {
                    assert!(!fold(n).is_empty(), "{}: name {n:?}", sc.name);
                    assert!(seen.insert(fold(n)), "{}: {n:?} is used twice", sc.name);
                }
                assert_eq!(a.officers.iter().filter(|o| o.rank == Rank::Commander).count(), 1, "{}", sc.name);
            }
            for m in &sc.missions {
                assert!(m.who == "both" || m.who == BESIEGERS, "{}: mission {} who {}", sc.name, m.key, m.who);
                assert!((1..=5).contains(&m.difficulty), "{}: mission {}", sc.name, m.key);
            }
            assert!(sc.event_asks.iter().all(|a| ["court", "2", "other"].contains(&a.as_str())));
            assert!([BESIEGERS, GARRISON].contains(&sc.first.as_str()));
        }
    }

    #[test]
    fn rounding_rules() {
        assert_eq!(Rounding::Up.apply(11 * 10, 100), 2);
        assert_eq!(Rounding::Down.apply(11 * 10, 100), 1);
        assert_eq!(Rounding::Nearest.apply(15, 10), 2);
        assert_eq!(Rounding::Nearest.apply(14, 10), 1);
        assert_eq!(Rounding::Up.apply(5, 2), 3);
    }

    #[test]
    fn the_deck_has_54_cards_and_classes() {
        let d = full_deck();
        assert_eq!(d.len(), 54);
        assert_eq!(d.iter().filter(|c| is_joker(c)).count(), 2);
        assert_eq!(d.iter().filter(|c| card_class(c) == "court").count(), 12);
        assert_eq!(d.iter().filter(|c| card_class(c) == "2").count(), 4);
        assert_eq!(card_name("10H"), "10 of Hearts");
        assert_eq!(card_name("QS"), "Queen of Spades");
    }
}
