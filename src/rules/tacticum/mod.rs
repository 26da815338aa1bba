//! Tacticum Invictus (rulebook: ../shared/rulebooks/tacticum-invictus.txt),
//! grid tactics for two: one move a turn (a unit, a Square or a Column),
//! captures by flanking and by a Column's charge, a Commander that is never
//! captured but can be Trapped. This module holds Basic Training and
//! Scenarios I–III (Force-on-Force, Preserve the Eagle, Revolt!); the
//! readings of what the text leaves open are the brief's (A-numbers in
//! comments), listed in the README.
//!
//! The board size, set-ups and objectives are data (`games/tacticum/`, one
//! file a scenario), copied into the state at set-up so that a case can
//! patch any army and a running game never changes under an owner's edit.

mod data;
mod demo;
mod deploy;
mod moves;
mod orders;
mod player;
mod solo;
mod view;

use crate::dice::{Dice, Serves, StreamId};
use crate::engine::{
    Awaited, Effort, Event, LeakProbes, Outcome, Problem, Prompt, Rules, RulesetInfo, ScenarioInfo, View, Viewer,
    Vocabulary,
};
use crate::rules::shared::squares::{Board, Naming, Sq};
pub use orders::{Block, Order};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One army (a colour): its Commander's square and its Infantry's, in a
/// stable order that names them (`B1`, `B2`, …, `BC`); a captured piece
/// keeps its slot with an empty square.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Army {
    pub name: String,
    /// Whether its units form Squares and Columns (Rebels do not: S3-6).
    pub formations: bool,
    /// "" for none (the Rebels) or captured.
    #[serde(default)]
    pub commander: String,
    pub infantry: Vec<String>,
    /// Cavalry (VI on, `BH1`…), each alone, never in a formation.
    #[serde(default)]
    pub cavalry: Vec<String>,
    /// VI's Eagle cube (`BE`): moves only in a formation, never captured.
    #[serde(default)]
    pub eagle: String,
    /// V's Grain wagons (`BG1`…): Legion units that form formations.
    #[serde(default)]
    pub grain: Vec<String>,
    /// Most spaces a single unit of this army moves (V: 4 for the Legion,
    /// 3 for the Rebels); 0: the scenario's Infantry limit.
    #[serde(default)]
    pub move_limit: u32,
    /// Its single units may change direction once (V's Rebels, S5-4).
    #[serde(default)]
    pub turns: bool,
    /// VIII's Skirmishers (`BS1`…): alone, never in a formation.
    #[serde(default)]
    pub skirmishers: Vec<String>,
    /// Solo II's Prisoner (`LP`), escorted by the Legion: moves one space,
    /// never captured but silenced or shot (SO2-18, SO2-3, SO2-4).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prisoner: String,
    /// Solo II's Archers on their Trees (`RA1`…): never move (SO2-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub archers: Vec<String>,
    /// Infantry still to place (IV, S4-4); placed ones join `infantry`.
    #[serde(default)]
    pub reserve: u32,
    /// Its home edge, `south` (row 1) or `north`: which way is forward
    /// when a Square extends into a Line.
    #[serde(default = "south")]
    pub home: String,
    /// The side it fights on, where a side has several armies (X: Black
    /// and Red, White and Blue, S10-1); "" is a side of its own. Armies of
    /// a side are friends: they support, flank and form formations
    /// together, and either consul moves both (S10-7).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub side: String,
}

fn south() -> String {
    "south".into()
}

/// Squares that count as a unit of `army` (II's corners, S2-5): flank ends
/// for it, occupied for everyone but its Commander, who may enter them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Phantom {
    pub army: String,
    pub cells: Vec<String>,
}

/// The closed set of ways to win; the data names them in snake case
/// (`kind = "side_lost"`), an unknown name refused when the file is read.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    Trap,
    Reduce,
    Reach,
    Capture,
    CaptureInfantry,
    Eagle,
    EliminateCavalry,
    Hilltop,
    CommandSquareRow,
    Deliver,
    EnterFort,
    CaptureGrain,
    SideLost,
    Wall,
    RaiderRow,
    TooFew,
    PrisonerRow,
}

/// A way to win, of a closed set of kinds whose parameters are data.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Objective {
    pub army: String,
    /// `trap` (an enemy Commander Trapped), `reduce` (the enemy down to
    /// `at_most` pieces), `reach` (own Commander on one of `cells`),
    /// `capture` (`count` enemy pieces captured), `eagle` (own Cavalry
    /// beside the enemy's Eagle), `eliminate_cavalry` (every enemy Cavalry
    /// gone).
    pub kind: Goal,
    #[serde(default)]
    pub at_most: u32,
    #[serde(default)]
    pub count: u32,
    #[serde(default)]
    pub cells: Vec<String>,
}

/// The last move, for the map and the results.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Last {
    pub army: String,
    pub order: String,
    /// Squares the moved pieces stand on now, and those whose piece was
    /// captured.
    pub moved: Vec<String>,
    pub captured: Vec<String>,
}

/// The board's terrain, as the scenario file gives it and the state keeps
/// it: IV's hill (blocks of squares, where units are placed) and hilltops
/// (only a Commander ends a move there, S4-7, S4-8); V's Fort (blocks),
/// the walls between squares (`k1|l1`), and squares nothing enters (trees,
/// and the squares beside the Fort that are not on the map).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    #[serde(default)]
    pub hill: Vec<String>,
    #[serde(default)]
    pub hilltops: Vec<String>,
    #[serde(default)]
    pub fort: Vec<String>,
    #[serde(default)]
    pub walls: Vec<String>,
    #[serde(default)]
    pub obstacles: Vec<String>,
    /// The Scenario Builder's punch-board terrain (SB-1, A-46): water
    /// nothing enters, swamp only Infantry, the Commander and Skirmishers
    /// cross (blocks like `a3:h8`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub water: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub swamp: Vec<String>,
}

fn turn_phase() -> String {
    "turn".into()
}

fn five() -> u32 {
    5
}

/// Choices the mover's action left to the other side, asked in a respond
/// step (brief 3.2): where a charged Cavalry dodges, then made
/// with the charge; or the forced moves of Disrupt and Disperse, the move
/// itself made already.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Pending {
    /// The army whose action it was.
    pub mover: String,
    /// A charge waiting on the Dodge.
    #[serde(default)]
    pub charge: Option<Order>,
    /// The role asked.
    pub asked: String,
    pub questions: Vec<Question>,
}

/// One choice: what it is about, and the orders that answer it (the
/// first is the deadline's default, A-47).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Question {
    pub about: String,
    pub options: Vec<Order>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    pub scenario: String,
    /// `toss` (both players, for the first player where none is printed),
    /// `place` (IV: the placer puts two units on the hill), `turn`, or
    /// `respond` (the charged Cavalry's owner chooses a dodge).
    #[serde(default = "turn_phase")]
    pub phase: String,
    pub title: String,
    pub columns: u8,
    pub rows: u8,
    pub turn_order: Vec<String>,
    /// The army to move.
    pub active: String,
    /// Moves made, both sides counted.
    pub turn: u32,
    pub armies: Vec<Army>,
    #[serde(default)]
    pub phantoms: Vec<Phantom>,
    #[serde(default)]
    pub terrain: Terrain,
    /// Whether a Command Square may turn in place (IV's Facing, S4-9).
    #[serde(default)]
    pub facing: bool,
    /// Whether the manoeuvres Extend the Line and Rally on Me are open
    /// (IX on, S9-4, S9-5).
    #[serde(default)]
    pub manoeuvres: bool,
    /// How the `two_sides` armies capture: `alone` (III: a unit with no
    /// friend beside it) or `except-square` (V: any unit not in a Square).
    #[serde(default)]
    pub two_sides_mode: String,
    /// Whether four units in a row make a Line (the Invictus board, S7-5).
    #[serde(default)]
    pub lines: bool,
    /// Most spaces an Infantry unit (the Commander too) moves; 0: no limit
    /// (VI and the Invictus board: 7, S6-4, S7-4).
    #[serde(default)]
    pub infantry_limit: u32,
    /// Most spaces of a Cavalry move that turns (S6-8).
    #[serde(default = "five")]
    pub cavalry_turn_max: u32,
    /// A charge waiting on the charged Cavalry's dodge (S6-15, A-22).
    #[serde(default)]
    pub pending: Option<Pending>,
    /// Armies whose moves also capture a lone enemy unit touched on two
    /// sides (III's Rebels).
    #[serde(default)]
    pub two_sides: Vec<String>,
    pub objectives: Vec<Objective>,
    /// Pieces of each army its enemy captured, and of those its Infantry.
    #[serde(default)]
    pub lost: BTreeMap<String, u32>,
    #[serde(default)]
    pub lost_infantry: BTreeMap<String, u32>,
    #[serde(default)]
    pub lost_grain: BTreeMap<String, u32>,
    #[serde(default)]
    pub last: Option<Last>,
    /// X's set-up (S10-2): how many rows from its home edge an army sets
    /// up in, the roles still to set up, and the printed example set-up
    /// (the default of a silent consul), army by army.
    #[serde(default)]
    pub setup_rows: u8,
    #[serde(default)]
    pub unplaced: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub example: Vec<Army>,
    /// Turns passed in a row because the army to move had no legal action.
    #[serde(default)]
    pub passes: u32,
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// The solo scenarios: what adjutant's Raiders and the Legion's
    /// extras need (SO1, SO2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solo: Option<solo::Solo>,
}

/// What stands on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Commander(usize),
    /// Army index, slot in its Infantry.
    Infantry(usize, usize),
    Cavalry(usize, usize),
    Skirmisher(usize, usize),
    Grain(usize, usize),
    Eagle(usize),
    Prisoner(usize),
    Archer(usize, usize),
    /// A tree, or a square off the map: blocks, belongs to nobody.
    Obstacle,
    /// A phantom square counting as a unit of this army.
    Phantom(usize),
    /// A built section of Solo I's wall: blocks everyone (a gate lets a
    /// single Legion unit through, SO1-13); a flank end for the army it
    /// names (the Easier variant, SO1-14), else for nobody.
    Wall(Option<usize>),
}

impl Who {
    pub fn army(self) -> usize {
        match self {
            Who::Commander(a)
            | Who::Infantry(a, _)
            | Who::Cavalry(a, _)
            | Who::Skirmisher(a, _)
            | Who::Grain(a, _)
            | Who::Eagle(a)
            | Who::Prisoner(a)
            | Who::Archer(a, _)
            | Who::Phantom(a) => a,
            Who::Obstacle | Who::Wall(None) => usize::MAX,
            Who::Wall(Some(a)) => a,
        }
    }
    pub fn is_unit(self) -> bool {
        !matches!(self, Who::Phantom(_) | Who::Obstacle | Who::Wall(_))
    }
}

impl State {
    pub fn board(&self) -> Board {
        Board { columns: self.columns, rows: self.rows, naming: Naming::ColumnLetter }
    }
    pub fn name(&self, sq: Sq) -> String {
        self.board().name(sq)
    }
    pub fn sq(&self, name: &str) -> Option<Sq> {
        self.board().square(name)
    }
    pub fn army_index(&self, name: &str) -> Option<usize> {
        self.armies.iter().position(|a| a.name == name)
    }
    /// Whether armies `a` and `b` (indices; `usize::MAX` for nobody's)
    /// fight on one side.
    pub fn friends(&self, a: usize, b: usize) -> bool {
        a == b
            || matches!((self.armies.get(a), self.armies.get(b)),
                (Some(x), Some(y)) if !x.side.is_empty() && x.side == y.side)
    }
    /// The armies of `a`'s side, `a` first.
    pub fn side_armies(&self, a: usize) -> Vec<usize> {
        std::iter::once(a).chain((0..self.armies.len()).filter(|&b| b != a && self.friends(a, b))).collect()
    }
    /// A square's place in the vectors that hold something for every
    /// square (`occupancy`, `moves::steps_to`): `row * columns + col`.
    pub fn index(&self, q: Sq) -> usize {
        q.row as usize * self.columns as usize + q.col as usize
    }
    /// Who stands on each square, by `index`.
    pub fn occupancy(&self) -> Vec<Option<Who>> {
        let mut at = vec![None; self.columns as usize * self.rows as usize];
        let idx = |s: &State, c: &str| s.sq(c).map(|q| s.index(q));
        for c in &self.terrain.obstacles {
            if let Some(i) = idx(self, c) {
                at[i] = Some(Who::Obstacle);
            }
        }
        if !self.terrain.water.is_empty() {
            for q in self.squares().filter(|&q| self.in_blocks(&self.terrain.water, q)) {
                at[self.index(q)] = Some(Who::Obstacle);
            }
        }
        if let Some(solo) = &self.solo {
            for c in &solo.rock {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Obstacle);
                }
            }
            let end = solo.wall_end.then(|| self.army_index(&solo.legion)).flatten();
            for c in solo.sections.keys() {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Wall(end));
                }
            }
        }
        for p in &self.phantoms {
            if let Some(a) = self.army_index(&p.army) {
                for c in &p.cells {
                    if let Some(i) = idx(self, c) {
                        at[i] = Some(Who::Phantom(a));
                    }
                }
            }
        }
        for (a, army) in self.armies.iter().enumerate() {
            if let Some(i) = idx(self, &army.commander) {
                at[i] = Some(Who::Commander(a));
            }
            if let Some(i) = idx(self, &army.eagle) {
                at[i] = Some(Who::Eagle(a));
            }
            if let Some(i) = idx(self, &army.prisoner) {
                at[i] = Some(Who::Prisoner(a));
            }
            for (k, c) in army.archers.iter().enumerate() {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Archer(a, k));
                }
            }
            for (k, c) in army.cavalry.iter().enumerate() {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Cavalry(a, k));
                }
            }
            for (k, c) in army.skirmishers.iter().enumerate() {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Skirmisher(a, k));
                }
            }
            for (k, c) in army.grain.iter().enumerate() {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Grain(a, k));
                }
            }
            for (k, c) in army.infantry.iter().enumerate() {
                if let Some(i) = idx(self, c) {
                    at[i] = Some(Who::Infantry(a, k));
                }
            }
        }
        at
    }
    /// Who stands on a square, looked up in one occupancy taken now.
    pub fn who_at(&self) -> impl Fn(Sq) -> Option<Who> + '_ {
        let at = self.occupancy();
        move |q: Sq| at[self.index(q)]
    }
    /// A piece's printed name: army letter and slot (`B3`), `C` for the
    /// Commander (`BC`).
    pub fn piece_name(&self, w: Who) -> String {
        // As on the map (X: Black B, Red R, White W, Blue L).
        let letters = crate::engine::view::side_letters(self.armies.iter().map(|a| a.name.as_str()));
        let letter = |a: usize| letters.get(a).map(|c| c.to_ascii_uppercase()).unwrap_or('?');
        match w {
            Who::Commander(a) => format!("{}C", letter(a)),
            Who::Infantry(a, k) => format!("{}{}", letter(a), k + 1),
            Who::Cavalry(a, k) => format!("{}H{}", letter(a), k + 1),
            Who::Skirmisher(a, k) => format!("{}S{}", letter(a), k + 1),
            Who::Grain(a, k) => format!("{}G{}", letter(a), k + 1),
            Who::Obstacle => "a tree".into(),
            Who::Wall(_) => "a wall section".into(),
            Who::Eagle(a) => format!("{}E", letter(a)),
            Who::Prisoner(_) => "the Prisoner".into(),
            Who::Archer(a, k) => format!("{}A{}", letter(a), k + 1),
            Who::Phantom(a) => format!("{} corner", army_title(&self.armies[a].name)),
        }
    }
    /// Units of an army on the board, its Commander and Cavalry counted,
    /// not the Eagle, a cube.
    pub fn on_board(&self, a: usize) -> u32 {
        let army = &self.armies[a];
        let n = |v: &Vec<String>| v.iter().filter(|c| !c.is_empty()).count() as u32;
        (!army.commander.is_empty()) as u32
            + n(&army.infantry)
            + n(&army.cavalry)
            + n(&army.skirmishers)
            + n(&army.grain)
            + n(&army.archers)
    }
    /// Whether a square (by name) is inside V's Fort.
    pub fn in_fort(&self, cell: &str) -> bool {
        self.sq(cell).is_some_and(|q| self.in_blocks(&self.terrain.fort, q))
    }
    /// Every square of the board, row by row (in `index` order).
    pub fn squares(&self) -> impl Iterator<Item = Sq> {
        let columns = self.columns;
        (0..self.rows).flat_map(move |row| (0..columns).map(move |col| Sq { col, row }))
    }
    /// V's Fort, its squares.
    pub fn fort(&self) -> Vec<Sq> {
        self.squares().filter(|&q| self.in_blocks(&self.terrain.fort, q)).collect()
    }
    /// Whether a square lies in one of the blocks (`a3:h8`) of a terrain list.
    pub fn in_blocks(&self, blocks: &[String], q: Sq) -> bool {
        blocks.iter().any(|b| {
            let (x, y) = b.split_once(':').unwrap_or((b, b));
            match (self.sq(x), self.sq(y)) {
                (Some(x), Some(y)) => orders::Block::new(x, y).cells().contains(&q),
                _ => false,
            }
        })
    }
    /// Who answers a respond step for `owner`'s pieces: the next role in
    /// the turn order when it fights on owner's side (X: the consul whose
    /// turn comes next, brief 3.2), else the owner.
    pub fn chooser(&self, owner: &str) -> String {
        let next = self.next_army(&self.active);
        match (self.army_index(&next), self.army_index(owner)) {
            (Some(n), Some(o)) if self.friends(n, o) => next,
            _ => owner.to_string(),
        }
    }
    fn next_army(&self, army: &str) -> String {
        let i = self.turn_order.iter().position(|a| a == army).unwrap_or(0);
        self.turn_order[(i + 1) % self.turn_order.len()].clone()
    }
}

pub fn army_title(name: &str) -> String {
    let mut c = name.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

pub struct Tacticum;

pub const VERBS: &[&str] = &[
    "MOVE", "CHARGE", "PASS", "READY", "DODGE", "STEP", "ROUT", "DISPERSE", "PLACE", "TURN", "EXTEND", "RALLY",
    "SUPPLY", "RESTOCK", "WOOD", "ENTER",
];

impl Rules for Tacticum {
    type State = State;
    type Order = Order;

    fn info(&self) -> RulesetInfo {
        RulesetInfo {
            name: "tacticum",
            title: "Tacticum Invictus",
            moderated: false,
            // The rules have no end but the objectives: two armies that
            // will not engage are drawn after this many moves.
            step_limit: Some(400),
            step_kinds: &["toss", "place", "setup", "arrange", "scout", "turn", "respond"],
            scenarios: data::SCENARIOS
                .iter()
                .map(|s| ScenarioInfo {
                    name: s.name.clone(),
                    roles: s.roles(),
                    about: s.about.clone(),
                    variants: s.variants(),
                })
                .collect(),
        }
    }

    fn setup(&self, scenario: &str) -> Result<State, String> {
        data::setup(scenario)
    }

    fn awaited(&self, s: &State) -> Awaited {
        let roles = match (&s.outcome, s.phase.as_str(), &s.pending) {
            (Some(_), _, _) => Vec::new(),
            (None, "toss", _) => s.turn_order.clone(),
            (None, "setup", _) => s.unplaced.clone(),
            (None, "respond", Some(p)) => vec![p.asked.clone()],
            _ => vec![s.active.clone()],
        };
        Awaited { kind: s.phase.clone(), roles, optional: Vec::new() }
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

    fn default_orders(&self, s: &State, _role: &str) -> Vec<Order> {
        // A silent player loses the turn: no order at all, since a
        // PASS is refused while a legal move exists. A dodge goes to
        // the first side in reading order; a toss is READY.
        match (s.phase.as_str(), &s.pending) {
            ("toss", _) => vec![Order::Ready],
            ("arrange", _) => solo::wood_default(s),
            ("place", _) => moves::default_place(s, _role).map(|v| vec![Order::Place(v)]).unwrap_or_default(),
            ("respond", Some(p)) => p.questions.iter().filter_map(|q| q.options.first().cloned()).collect(),
            _ => Vec::new(),
        }
    }

    fn vocabulary(&self, s: &State, role: &str) -> Vocabulary {
        let _ = (s, role);
        Vocabulary { verbs: VERBS.iter().map(|v| v.to_string()).collect(), names: Vec::new() }
    }

    fn leak_probes(&self, s: &State, role: &str) -> LeakProbes {
        // Perfect information: every view is the same (brief 3.4).
        let _ = (s, role);
        LeakProbes::default()
    }

    fn leak_check(&self, s: &State, role: &str, view: &View) -> Result<(), String> {
        // The one secret of the game: an enemy's set-up in X before every
        // army stands (S10-2).
        if s.phase != "setup" {
            return Ok(());
        }
        let me = s.army_index(role).ok_or_else(|| format!("{role} commands no army"))?;
        for b in &view.boards {
            if let crate::engine::view::Board::Squares(sq) = b {
                if let Some((_, _, p)) =
                    sq.cells.iter().find(|(_, _, p)| !s.army_index(&p.side).is_some_and(|a| s.friends(a, me)))
                {
                    return Err(format!("{role} sees a {} unit during the sealed set-up", p.side));
                }
            }
        }
        Ok(())
    }

    fn sealed(&self, kind: &str) -> bool {
        // X's set-up: a silent consul takes the example, which would show
        // its army to the side still choosing (S10-2).
        kind == "setup"
    }

    fn press_allowed(&self, s: &State, from: &str, to: &str) -> Result<(), Problem> {
        if s.outcome.is_some() {
            return Ok(());
        }
        // X: once play begins the two consuls of a side do not talk
        // (S10-5); PRESS to ALL would reach the partner too.
        let (Some(f), true) = (s.army_index(from), s.phase != "setup") else { return Ok(()) };
        let partners: Vec<usize> = s.side_armies(f).into_iter().skip(1).collect();
        if partners.is_empty() {
            return Ok(());
        }
        let to_partner = to == "all" || s.army_index(to).is_some_and(|t| partners.contains(&t));
        if !to_partner {
            return Ok(());
        }
        let enemies: Vec<String> =
            (0..s.armies.len()).filter(|&b| !s.friends(b, f)).map(|b| s.armies[b].name.clone()).collect();
        Err(Problem::new(format!(
            "once play begins, the two consuls of a side do not talk (S10-5){}",
            if to == "all" { ": PRESS ALL would reach your partner" } else { "" }
        ))
        .hint(format!("PRESS to {} or gm", enemies.join(", "))))
    }

    fn demo(&self, s: &State, pass: usize) -> Option<Vec<crate::engine::DemoMail>> {
        demo::mails(s, pass)
    }

    fn resolve(&self, s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
        let mut ev = Vec::new();
        if s.outcome.is_some() {
            return ev;
        }
        if s.phase == "toss" {
            // Both players' SALTs are in the seed: neither they nor the
            // server chooses who moves first; in IV the toss picks
            // the first placer, and the starting player is drawn again
            // when placing ends (S4-6).
            let placing = s.armies.iter().any(|a| a.reserve > 0);
            toss(s, if placing { "first placer" } else { "first player" }, dice, &mut ev);
            s.phase = if placing { "place".into() } else { "turn".into() };
            return ev;
        }
        if s.phase == "setup" {
            deploy::resolve(s, orders, &mut ev);
            return ev;
        }
        if s.phase == "arrange" || s.phase == "scout" {
            let mine = orders.get(&s.active).cloned().unwrap_or_default();
            if s.phase == "arrange" {
                solo::arrange(s, &mine, &mut ev);
            } else {
                solo::place_scout(s, &mine, &mut ev);
            }
            return ev;
        }
        if s.solo.is_some() {
            let mover = s.active.clone();
            let mine = orders.get(&mover).cloned().unwrap_or_default();
            solo::turn(s, &mover, &mine, dice, &mut ev);
            return ev;
        }
        if s.phase == "place" {
            let placer = s.active.clone();
            if let Some(Order::Place(cells)) = orders.get(&placer).and_then(|o| o.first()) {
                moves::place_units(s, &placer, cells, &mut ev);
            } else {
                ev.push(Event::all(format!("{} placed nothing.", army_title(&placer))));
            }
            let next = s.next_army(&placer);
            if s.armies.iter().all(|a| a.reserve == 0) {
                toss(s, "starting player", dice, &mut ev);
                s.phase = "turn".into();
            } else if s.army_index(&next).map(|i| s.armies[i].reserve > 0).unwrap_or(false) {
                s.active = next;
            }
            return ev;
        }
        let mover = match s.pending.take() {
            Some(p) => {
                let answers = orders.get(&p.asked).cloned().unwrap_or_default();
                moves::respond(s, &p, &answers, &mut ev);
                if s.pending.is_some() {
                    return ev;
                }
                p.mover
            }
            None => {
                let mover = s.active.clone();
                let mine = orders.get(&mover).cloned().unwrap_or_default();
                // Lines in the order written: one action, and in V perhaps
                // a Fort move beside it (S5-6).
                for order in if mine.is_empty() { vec![Order::Pass] } else { mine } {
                    moves::play(s, &mover, &order, &mut ev);
                    if s.pending.is_some() {
                        break;
                    }
                }
                if s.pending.is_some() {
                    s.phase = "respond".into();
                    return ev;
                }
                mover
            }
        };
        s.phase = "turn".into();
        s.turn += 1;
        if end_checks(s, &mover, &mut ev) {
            return ev;
        }
        // The next army to move; one with no legal action passes, and
        // when no army can move the game is drawn.
        let mut next = s.next_army(&mover);
        for _ in 0..s.turn_order.len() {
            if moves::can_act(s, &next) {
                s.active = next;
                return ev;
            }
            ev.push(Event::all(format!("{} has no legal move and passes.", army_title(&next))));
            next = s.next_army(&next);
        }
        let reason = "no army has a legal move".to_string();
        ev.push(Event::all(format!("The game is drawn: {reason}.")));
        s.outcome = Some(Outcome::drawn(reason));
        ev
    }

    fn view(&self, s: &State, viewer: &Viewer) -> View {
        view::view(s, viewer)
    }

    fn outcome(&self, s: &State) -> Option<Outcome> {
        s.outcome.clone()
    }

    fn think(&self, s: &State, role: &str, effort: Effort, seed: u64) -> Option<Vec<Order>> {
        s.army_index(role)?;
        Some(player::MIND.think(self, s, role, effort, seed))
    }

    fn random_orders(&self, s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
        if s.phase == "setup" {
            return s.army_index(role).map(|a| deploy::example(s, a)).unwrap_or_default();
        }
        if s.phase == "scout" {
            let free: Vec<Sq> = s.squares().filter(|&q| solo::check_scout(s, q).is_ok()).collect();
            return free.get(pick(free.len().max(1))).map(|&q| vec![Order::Scout(q)]).unwrap_or_default();
        }
        if s.phase != "turn" {
            return self.default_orders(s, role);
        }
        let all = moves::legal(s, role);
        if all.is_empty() {
            return vec![Order::Pass];
        }
        // Captures are what make a game end: a random player that takes
        // one when it can finishes games the step limit would otherwise
        // cut short.
        let captures = moves::capturing(s, role, &all);
        let action = if !captures.is_empty() && pick(3) > 0 {
            captures[pick(captures.len())].clone()
        } else {
            all[pick(all.len())].clone()
        };
        if s.solo.is_some() {
            // The solo extras go with it: a supply for a Build Formation
            // the action makes, the reinforcement a 6 made due.
            let mut lines = solo::extras(s, role, &action);
            let at = usize::from(lines.first().is_some_and(|o| matches!(o, Order::Enter(_))));
            lines.insert(at.min(lines.len()), action);
            return lines;
        }
        vec![action]
    }
}

/// Draw an army of `turn_order` with a public die: the first player (or
/// placer) where none is printed.
fn toss(s: &mut State, what: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let n = s.turn_order.len() as u32;
    let d = dice.roll(&StreamId::Public, n, what, &Serves::nobody());
    let first = s.turn_order[(d.clamp(1, n) - 1) as usize].clone();
    ev.push(Event::all(format!("The toss for the {what} (d{n} = {d}): {}.", army_title(&first))));
    s.active = first;
}

/// The objectives after a move: the mover's first, so that the mover's side
/// wins a turn that meets both sides'. A Commander counts as Trapped
/// only for an army other than the mover.
fn end_checks(s: &mut State, mover: &str, ev: &mut Vec<Event>) -> bool {
    let m = s.army_index(mover).unwrap_or(usize::MAX);
    // Every army's objectives, the mover's side first, then the turn
    // order, then an army no player commands (the solo Raiders).
    let mut order: Vec<String> = s.turn_order.clone();
    order.extend(s.armies.iter().map(|a| a.name.clone()).filter(|n| !s.turn_order.contains(n)));
    order.sort_by_key(|a| !s.army_index(a).is_some_and(|x| s.friends(x, m)));
    for army in order {
        let objectives: Vec<Objective> = s.objectives.iter().filter(|o| o.army == army).cloned().collect();
        for o in objectives {
            if let Some(reason) = met(s, &o, mover) {
                let (winners, reason) = side_winners(s, &army, reason);
                if !s.turn_order.contains(&army) {
                    // adjutant's own army: the player has failed (SO1-2..4).
                    let players: Vec<String> = s.turn_order.iter().map(|r| army_title(r)).collect();
                    ev.push(Event::all(format!(
                        "{} fails, and the {} win: {reason}.",
                        players.join(" and "),
                        army_title(&army)
                    )));
                    let reason = format!("the {} win: {reason}", army_title(&army));
                    s.outcome = Some(Outcome::failed(s.turn_order.clone(), reason));
                    return true;
                }
                let names: Vec<String> = winners.iter().map(|w| army_title(w)).collect();
                ev.push(Event::all(format!(
                    "{} {}: {reason}.",
                    names.join(" and "),
                    if names.len() > 1 { "win" } else { "wins" }
                )));
                let mut winners = winners.into_iter();
                s.outcome = Some(Outcome { winner: winners.next(), reason, also: winners.collect(), lost: Vec::new() });
                return true;
            }
        }
    }
    false
}

/// Who wins when `army`'s side wins: on a side of several armies, the one
/// with the most units left, partners level sharing it (S10-9, A-34).
fn side_winners(s: &State, army: &str, reason: String) -> (Vec<String>, String) {
    let Some(a) = s.army_index(army) else { return (vec![army.to_string()], reason) };
    let side = s.side_armies(a);
    if side.len() == 1 {
        return (vec![army.to_string()], reason);
    }
    let most = side.iter().map(|&b| s.on_board(b)).max().unwrap_or(0);
    let mut winners: Vec<usize> = side.iter().copied().filter(|&b| s.on_board(b) == most).collect();
    winners.sort();
    let left: Vec<String> =
        side.iter().map(|&b| format!("{} {}", army_title(&s.armies[b].name), s.on_board(b))).collect();
    let names = winners.iter().map(|&b| s.armies[b].name.clone()).collect();
    (names, format!("{reason}; units left on the winning side: {} (S10-9)", left.join(", ")))
}

/// Whether an objective is met now, and how to say it.
fn met(s: &State, o: &Objective, mover: &str) -> Option<String> {
    let me = s.army_index(&o.army)?;
    let m = s.army_index(mover).unwrap_or(usize::MAX);
    let enemies: Vec<usize> = (0..s.armies.len()).filter(|&a| !s.friends(a, me)).collect();
    match o.kind {
        Goal::Trap => enemies.iter().find_map(|&e| {
            let army = &s.armies[e];
            (!s.friends(e, m) && !army.commander.is_empty() && moves::trapped(s, e))
                .then(|| format!("the {} Commander at {} is Trapped", army_title(&army.name), army.commander))
        }),
        Goal::Reduce => enemies.iter().find_map(|&e| {
            let n = s.on_board(e);
            (n <= o.at_most)
                .then(|| format!("{} is down to {n} units (at most {} wins)", army_title(&s.armies[e].name), o.at_most))
        }),
        Goal::Reach => {
            let at = &s.armies[me].commander;
            o.cells.contains(at).then(|| format!("the {} Commander reached {at}", army_title(&o.army)))
        }
        Goal::Hilltop => {
            let at = &s.armies[me].commander;
            s.terrain
                .hilltops
                .contains(at)
                .then(|| format!("the {} Commander holds the hilltop {at}", army_title(&o.army)))
        }
        Goal::Eagle => enemies.iter().find_map(|&e| {
            let eagle = s.sq(&s.armies[e].eagle)?;
            s.armies[me].cavalry.iter().find_map(|c| {
                let q = s.sq(c)?;
                (q.steps(eagle) == 1).then(|| {
                    format!(
                        "{} Cavalry at {c} stands beside the {} Eagle",
                        army_title(&o.army),
                        army_title(&s.armies[e].name)
                    )
                })
            })
        }),
        Goal::EliminateCavalry => enemies.iter().find_map(|&e| {
            let cav = &s.armies[e].cavalry;
            (!cav.is_empty() && cav.iter().all(|c| c.is_empty()))
                .then(|| format!("every {} Cavalry is gone", army_title(&s.armies[e].name)))
        }),
        Goal::CommandSquareRow => {
            // A Square holding the Commander with a side on the enemy's
            // back row (S8-13).
            let c = s.sq(&s.armies[me].commander)?;
            let back = if s.armies[me].home == "north" { 0 } else { s.rows - 1 };
            if c.row != back {
                return None;
            }
            let at = s.occupancy();
            let own = |col: i32, row: i32| {
                s.board().contains(col, row)
                    && matches!(at[s.index(Sq { col: col as u8, row: row as u8 })], Some(Who::Infantry(x, _) | Who::Commander(x) | Who::Eagle(x)) if x == me)
            };
            let inward = if back == 0 { 1 } else { -1 };
            let (col, row) = (c.col as i32, c.row as i32);
            [-1, 1]
                .iter()
                .any(|&dc| own(col + dc, row) && own(col, row + inward) && own(col + dc, row + inward))
                .then(|| format!("the {} Command Square stands on the enemy's back row", army_title(&o.army)))
        }
        Goal::Deliver => {
            let n = s.armies[me].grain.iter().filter(|c| s.in_fort(c)).count() as u32;
            (n >= o.count).then(|| format!("{} has delivered {n} Grain wagons into the Fort", army_title(&o.army)))
        }
        Goal::EnterFort => {
            let army = &s.armies[me];
            let n = army.infantry.iter().chain(&army.grain).filter(|c| s.in_fort(c)).count() as u32;
            (n >= o.count).then(|| format!("{} has {n} units in the Fort", army_title(&o.army)))
        }
        Goal::CaptureGrain => {
            let n: u32 = enemies.iter().map(|&e| s.lost_grain.get(&s.armies[e].name).copied().unwrap_or(0)).sum();
            (n >= o.count).then(|| format!("{} has captured {n} Grain wagons", army_title(&o.army)))
        }
        Goal::CaptureInfantry => {
            let n: u32 = enemies.iter().map(|&e| s.lost_infantry.get(&s.armies[e].name).copied().unwrap_or(0)).sum();
            (n >= o.count).then(|| format!("{} has captured {n} enemy Infantry", army_title(&o.army)))
        }
        Goal::Wall => {
            // SO1-1: every square of the wall row built, and the Towers.
            let solo = s.solo.as_ref()?;
            let row = solo.wall_row.saturating_sub(1);
            let built = (0..s.columns).all(|c| solo.sections.contains_key(&s.name(Sq { col: c, row })));
            let towers = solo.sections.values().filter(|k| *k == "tower").count() as u32;
            (built && towers >= solo.towers)
                .then(|| format!("the wall is complete with {towers} Towers: the frontier is secure"))
        }
        Goal::PrisonerRow => {
            // SO2-1: the Prisoner on the far row (`count`).
            let p = s.sq(&s.armies[me].prisoner)?;
            (p.row + 1 == o.count as u8).then(|| format!("the Prisoner reached {}, the end of the valley", s.name(p)))
        }
        Goal::RaiderRow => {
            // SO1-2: one of this army's units on the enemy's back row (the
            // row `count`).
            let row = o.count.saturating_sub(1) as u8;
            let get = s.who_at();
            (0..s.columns).map(|col| Sq { col, row }).find_map(|q| {
                matches!(get(q), Some(w) if w.is_unit() && w.army() == me)
                    .then(|| format!("a Raider reached {}, the Legion's back row", s.name(q)))
            })
        }
        Goal::TooFew => enemies.iter().find_map(|&e| {
            // SO1-4, A-39: fewer Legion units than a Build Formation needs.
            let army = &s.armies[e];
            let n = (!army.commander.is_empty()) as u32 + army.infantry.iter().filter(|c| !c.is_empty()).count() as u32;
            (n < o.count).then(|| {
                format!(
                    "{} has {n} unit{} left, too few to build (at least {})",
                    army_title(&army.name),
                    if n == 1 { "" } else { "s" },
                    o.count
                )
            })
        }),
        Goal::SideLost => {
            let n: u32 = enemies.iter().map(|&e| s.lost.get(&s.armies[e].name).copied().unwrap_or(0)).sum();
            let names: Vec<String> = enemies.iter().map(|&e| army_title(&s.armies[e].name)).collect();
            (n >= o.count).then(|| format!("{} have lost {n} units (S10-8)", names.join(" and ")))
        }
        Goal::Capture => {
            let n: u32 = enemies.iter().map(|&e| s.lost.get(&s.armies[e].name).copied().unwrap_or(0)).sum();
            (n >= o.count).then(|| format!("{} has captured {n} enemy units", army_title(&o.army)))
        }
    }
}
