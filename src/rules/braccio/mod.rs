//! Braccio da Montone (rulebook: ../shared/rulebooks/braccio-da-montone.txt),
//! a hex-and-counter game of condottieri battles with no game turns: the
//! initiative passes by Captains' activations, a Continuum that the enemy
//! may answer with an Interruptio. By mail each step awaits one role (the
//! one deciding), an activation is one mailed plan run unit by unit, and
//! the other side's answers inside it (Reaction Fire, reaction pivots,
//! Countercharges, Interruptio) come from its standing policies, which
//! only their owner sees. The readings of the engineering brief are cited
//! by number (A01…), its rule ids R001… where useful.
//!
//! The map, the terrain chart, the tables and the order of battle are
//! data (`games/braccio/`), copied into the state at set-up.

mod act;
mod data;
mod demo;
mod effects;
mod flow;
mod free;
mod melee;
mod orders;
mod player;
mod random;
mod receipt;
mod rows;
mod view;

use crate::dice::Dice;
use crate::engine::{
    Awaited, Effort, Event, LeakProbes, Outcome, Problem, Prompt, Rules, RulesetInfo, ScenarioInfo, View, Viewer,
    Vocabulary,
};
use crate::rules::shared::hex::{Arc, Dir, Grid, Hex, Offset, Vertex};
pub use orders::Order;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const BRACCIO: &str = "braccio";
pub const MALATESTA: &str = "malatesta";
pub const LEAGUE: &str = "league";

/// Every role a scenario may give the Braccesca's enemy, with its name:
/// the Malatestans at Sant'Egidio, the League (the Collegati) at L'Aquila.
const FOES: [(&str, &str); 2] = [(MALATESTA, "Malatestan"), (LEAGUE, "League")];

/// A side's name in the text ("Braccesca", "Malatestan", "League").
pub fn side_name(side: &str) -> &'static str {
    if side == BRACCIO {
        return "Braccesca";
    }
    FOES.iter().find(|(r, _)| *r == side).map(|(_, n)| *n).unwrap_or("unknown side")
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// The kind of a combat unit, as the Unit Type Table reads it (A60).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Cavalry,
    Infantry,
    Crossbowmen,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Cavalry => "cavalry",
            Kind::Infantry => "infantry",
            Kind::Crossbowmen => "crossbowmen",
        }
    }
}

/// A Captain, a Squad Leader or an Adjutant: his values and where he is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leader {
    pub name: String,
    pub combat: i32,
    pub radius: i32,
    /// `""` off the map (killed with no replacement, or removed).
    pub hex: String,
    /// The replacement's values, until he has taken over (13.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjutant: Option<Deputy>,
    /// Moved in this activation (13.1: once).
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deputy {
    pub name: String,
    pub combat: i32,
    pub radius: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Squad {
    /// The squad's letter ("A", "B"), its key in cases and facts.
    #[serde(rename = "name")]
    pub letter: String,
    pub leader: Leader,
}

/// A Battle: its Captain, his CC on the CAT, its squads (Braccesca School)
/// and its standing in the game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Battle {
    pub name: String,
    pub code: String,
    pub side: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub militia: bool,
    /// Released: may attempt Continuum and Interruptio, counts for the
    /// Sudden End (A01). An inactive Battle is released by its Basic
    /// Activation, a Heat event or an enemy arriving adjacent (A21).
    pub released: bool,
    /// Not on the map yet: enters by its scenario's rule (S2.10.2).
    #[serde(default, skip_serializing_if = "is_false")]
    pub off_map: bool,
    /// Off the board for good (13.3.2, or no Captain left).
    #[serde(default, skip_serializing_if = "is_false")]
    pub removed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub school: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub double_general: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rally: String,
    /// The set-up table's row (or the hexes within its hex) that the
    /// Battle's units may be placed on at the player's choice (S1.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row: Vec<String>,
    pub cc: i32,
    pub cc0: i32,
    pub captain: Leader,
    /// The Captain is an Adjutant now: no General Order (13.3).
    #[serde(default, skip_serializing_if = "is_false")]
    pub adjutant: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub squads: Vec<Squad>,
}

/// A combat unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub name: String,
    pub code: String,
    pub side: String,
    pub battle: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub squad: String,
    pub kind: Kind,
    pub armour: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub militia: bool,
    /// Printed quality.
    pub cr: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ch: i32,
    #[serde(default, skip_serializing_if = "is_false")]
    pub disorganized: bool,
    /// `""` once routed.
    pub hex: String,
    pub facing: Vertex,
    #[serde(default, skip_serializing_if = "is_false")]
    pub fired: bool,
    /// Given an order (or failed one) in this activation (5.0.1).
    #[serde(default, skip_serializing_if = "is_false")]
    pub ordered: bool,
    /// Countercharged in this enemy activation (12.2).
    #[serde(default, skip_serializing_if = "is_false")]
    pub countered: bool,
    /// Made a reaction pivot in this activation: its Reaction Fire is at
    /// -1 (10.4.3).
    #[serde(default, skip_serializing_if = "is_false")]
    pub pivoted: bool,
}

impl Unit {
    pub fn alive(&self) -> bool {
        !self.hex.is_empty()
    }
    pub fn at(&self) -> Option<Hex> {
        Hex::parse(&self.hex)
    }
    /// Current quality (Glossary: printed CR less CH).
    pub fn q(&self) -> i32 {
        self.cr - self.ch
    }
    pub fn cavalry(&self) -> bool {
        self.kind == Kind::Cavalry
    }
    pub fn armour_rank(&self) -> i32 {
        rank(&self.armour)
    }
}

/// L < M < H (A30: the text's "P" is H).
pub fn rank(armour: &str) -> i32 {
    match armour {
        "L" => 0,
        "M" => 1,
        _ => 2,
    }
}

/// One terrain of the chart (terrain.toml).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    pub glyph: String,
    pub name: String,
    /// Movement points, or "P": prohibited.
    pub cavalry: String,
    pub foot: String,
    #[serde(default)]
    pub carica: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disorganize: Vec<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub defender_shift: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fire_target: i32,
    /// Columns added when the defender stands here and every attacker is
    /// lower (an intermediate hex, 8.2.5).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub uphill_shift: i32,
    #[serde(default, skip_serializing_if = "is_false")]
    pub blocks_los: bool,
    pub colour: String,
}

/// The map as the state holds it: the pictures of the map file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapData {
    pub name: String,
    pub columns: i32,
    pub rows: i32,
    #[serde(default)]
    pub offset: Offset,
    pub terrain: Vec<String>,
    pub level: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub place: Vec<Place>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub line: Vec<MapLine>,
    /// Hexsides of a special kind (L'Aquila's escarpment, S4.7.4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hexside: Vec<MapHexside>,
}

/// A standard (16.2): carried by a unit of its Battle, whose hex it
/// shares, until that unit routs and it is captured (16.2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Standard {
    pub battle: String,
    pub side: String,
    pub carrier: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub captured: bool,
}

/// The free set-up's zones of a scenario that has them (L'Aquila, S5.1.2,
/// S5.1.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zones {
    /// The set-up line's two ends: the Braccesca deploy west of it, the
    /// enemy on it or east of it.
    pub line: [String; 2],
    /// A hex east of the line.
    pub east: String,
    /// A hex north of the river, and the terrain glyphs of the river that
    /// divides north from south (the Aterno and its fords).
    pub north: String,
    pub river: Vec<String>,
    /// The Battle that keeps its historical set-up if the enemy deploys
    /// south, and may redeploy at a distance from the line if north.
    pub keeps: String,
    pub keeps_distance: i32,
}

/// One hexside of the map, between two neighbouring hexes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapHexside {
    pub a: String,
    pub b: String,
    pub kind: String,
}

/// What crossing a kind of hexside does (the TEC's hexside rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideKind {
    pub kind: String,
    pub name: String,
    /// Kinds that may not cross: `cavalry` (Captains with it), `infantry`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prohibited: Vec<String>,
    /// Movement points added to the hex entered across it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cost_add: i32,
    /// Kinds Disorganized on crossing (as 8.2.4 for terrain).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disorganize: Vec<String>,
    /// May a Carica! cross it?
    #[serde(default)]
    pub carica: bool,
    /// Columns added when every attacker attacks across it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub across_shift: i32,
    pub colour: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Place {
    pub name: String,
    pub hexes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapLine {
    pub name: String,
    pub from: String,
    pub to: String,
}

impl MapData {
    pub fn grid(&self) -> Grid {
        Grid { columns: self.columns, rows: self.rows, offset: self.offset }
    }
    fn cell(rows: &[String], h: Hex) -> Option<char> {
        rows.get((h.row - 1) as usize)?.chars().nth((h.col - 1) as usize)
    }
    pub fn glyph(&self, h: Hex) -> char {
        Self::cell(&self.terrain, h).unwrap_or(' ')
    }
    /// The level in half steps: 2, 4, 6, 8 for levels 1-4; 3, 5, 7 for the
    /// intermediate a, b, c (8.2.5).
    pub fn height(&self, h: Hex) -> i32 {
        match Self::cell(&self.level, h) {
            Some(c @ '1'..='4') => (c as i32 - '0' as i32) * 2,
            Some('a') => 3,
            Some('b') => 5,
            Some('c') => 7,
            _ => 2,
        }
    }
}

/// Which of the text's seven orders (5.4), as a General Order names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrderKind {
    Move,
    Charge,
    Fire,
    Reorganize,
    Retreat,
    Echelon,
    Recover,
}

impl OrderKind {
    /// OP as an Individual Order in command (5.4): Echeloned 2, else 1.
    pub fn cost(self) -> i32 {
        if self == OrderKind::Echelon {
            2
        } else {
            1
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            OrderKind::Move => "MOVE",
            OrderKind::Charge => "CHARGE",
            OrderKind::Fire => "FIRE",
            OrderKind::Reorganize => "REORGANIZE",
            OrderKind::Retreat => "RETREAT",
            OrderKind::Echelon => "ECHELON",
            OrderKind::Recover => "RECOVER",
        }
    }
    pub fn from_word(w: &str) -> Option<OrderKind> {
        match crate::rules::shared::parse::word(w).as_str() {
            "MOVE" => Some(OrderKind::Move),
            "CHARGE" | "CARICA" => Some(OrderKind::Charge),
            "FIRE" => Some(OrderKind::Fire),
            "REORGANIZE" | "REORGANISE" => Some(OrderKind::Reorganize),
            "RETREAT" => Some(OrderKind::Retreat),
            "ECHELON" | "ECHELONED" | "SCAGLIONATO" => Some(OrderKind::Echelon),
            "RECOVER" | "RECOVERY" => Some(OrderKind::Recover),
            _ => None,
        }
    }
}

/// How a Captain came to be active: what he may do depends on it (4.0
/// s1.a: no General Order after an Interruptio).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    Basic,
    Continuum,
    Interruptio,
}

/// A role's standing answers to what happens in the other side's
/// activations (brief 3.4). Secret: only its owner and the moderator see
/// it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// `ask`, `never`, `best` or a Captain's name.
    pub interrupt: String,
    /// Interrupt only with a CC at least this (0: any eligible).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interrupt_min: i32,
    /// `always`, `never`, `attackers`.
    pub fire: String,
    /// Reaction pivots: `always`, `never`, or `min` with `face_min`.
    pub face: String,
    pub face_min: i32,
    /// Countercharges: `always`, `never`, or `min` with `counter_min`.
    pub counter: String,
    pub counter_min: i32,
    /// After a retreat: `keep` the facing, or `turn` one vertex toward
    /// the lead attacker (10.7.1).
    #[serde(default = "keep")]
    pub retreat: String,
    /// Where a fallen Captain's Adjutant goes: Battle -> unit (13.3).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub adjutant: BTreeMap<String, String>,
    /// Where a Captain escapes to if he can: Battle -> hex (13.2.2,
    /// 13.2.5).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub escape: BTreeMap<String, String>,
}

fn keep() -> String {
    "keep".into()
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            interrupt: "ask".into(),
            interrupt_min: 0,
            fire: "always".into(),
            face: "min".into(),
            face_min: 4,
            counter: "min".into(),
            counter_min: 4,
            retreat: keep(),
            adjutant: BTreeMap::new(),
            escape: BTreeMap::new(),
        }
    }
}

/// What the game waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Pending {
    /// The free set-up (S3.1, S3.1.1): `role` places one Captain
    /// (`what` = "captain") or all its units (`what` = "units").
    Setup {
        role: String,
        what: String,
    },
    /// The historical set-up: every side in `roles` places its units
    /// within their Battles' rows, at once (S1.1).
    Rows {
        roles: Vec<String>,
    },
    /// `role` makes a Basic Activation (3.0 s1).
    Activation {
        role: String,
    },
    /// `role` may attempt a Continuum or pass (3.0 s2).
    Continuum {
        role: String,
    },
    /// `role` may attempt an Interruptio against `against`, whose plan
    /// (secret) waits in `State::plans`.
    Interruptio {
        role: String,
        against: String,
    },
    /// `role` failed a Continuum with 10 or more and picks the enemy
    /// Battle that is activated (16.1).
    Confusion {
        role: String,
    },
    /// `role`'s `captain` is active and his plan is awaited.
    Orders {
        role: String,
        captain: String,
        via: Via,
    },
    Over,
}

impl Pending {
    pub fn role(&self) -> Option<&str> {
        match self {
            Pending::Setup { role, .. }
            | Pending::Activation { role }
            | Pending::Continuum { role }
            | Pending::Interruptio { role, .. }
            | Pending::Confusion { role }
            | Pending::Orders { role, .. } => Some(role),
            // The first of those awaited together.
            Pending::Rows { roles } => roles.first().map(String::as_str),
            Pending::Over => None,
        }
    }
    /// Is `role` awaited now?
    pub fn awaits(&self, role: &str) -> bool {
        match self {
            Pending::Rows { roles } => roles.iter().any(|r| r == role),
            _ => self.role() == Some(role),
        }
    }
}

/// A plan kept for later: the lines after `THEN`, or the plan that came
/// with a Continuum while the enemy decides on an Interruptio. Secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub role: String,
    /// Canonical lines, parsed again when the plan runs (brief 3.5).
    pub lines: Vec<String>,
}

/// How a Battle off the map enters (S2.10.2): at its side's Basic
/// Activation, for `vl_cost` VL once the enemy's VL is `enemy_vl_min`,
/// with its CC on its side's VL (A24), placed on one of `lines`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub battle: String,
    #[serde(default)]
    pub enemy_vl_min: i32,
    #[serde(default)]
    pub vl_cost: i32,
    /// Map lines it may enter on, all of one (S2.10.2) ...
    #[serde(default)]
    pub lines: Vec<String>,
    /// ... or hexes it enters on, those with no enemy unit in or beside
    /// them (L'Aquila's reconstructed entries, A43).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hexes: Vec<String>,
    /// Its side's VL needed to enter or activate (S4.6.1, A43).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub own_vl_min: i32,
    /// A Battle that must have entered first (A43).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub after: String,
    /// A Battle that begins inactive and is released only by an
    /// activation roll: 2d6 of at least `target`, plus `per_two_enemy_vl`
    /// for every two (or fraction) enemy VL (S4.6.1, A06); a failure is a
    /// pass (A07).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub target: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub per_two_enemy_vl: i32,
}

impl Entry {
    /// The roll an activation roll must reach against this enemy VL.
    pub fn need(&self, enemy_vl: i32) -> i32 {
        self.target + self.per_two_enemy_vl * ((enemy_vl.max(0) + 1) / 2)
    }
}

/// Numbers copied from tables.toml.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    pub cat: data::Cat,
    pub movement: data::Movement,
    pub melee: data::Melee,
    pub fire: data::Fire,
    pub unit_type: data::ShiftTable,
    pub armour: data::ShiftTable,
    pub wounds: data::Wounds,
    pub victory: data::Victory,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heat {
    /// The box the Heat counter is in, from 1.
    pub at: usize,
    pub boxes: Vec<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub event: Vec<data::HeatEvent>,
}

/// A `COMBAT` line's choices for one melee.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Combat {
    pub target: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lead: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance: Option<Vertex>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub keep: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub losses: Vec<String>,
}

/// The running activation (4.0): kept in the state so that a `WAIT`
/// resumes it in a later mail with its OP, markers and declared attacks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Act {
    pub role: String,
    pub battle: String,
    pub via: Via,
    /// The General Order's kinds; empty: Individual Orders with OP.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub general: Vec<OrderKind>,
    /// The squad giving orders now (School, 14.1.2), and those done.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub squad: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub squads_done: Vec<String>,
    /// Attack and Carica! markers: (attacker, target), in declaration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attacks: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carica: Vec<String>,
    /// COMBAT lines: the order of resolution (10.5.2) and its choices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub combats: Vec<Combat>,
    /// The Battle's standard has had its Move Order (16.2.3, 5.0.1).
    #[serde(default, skip_serializing_if = "is_false")]
    pub standard_moved: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    pub map: MapData,
    pub terrain: Vec<Terrain>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hexsides: Vec<HexsideKind>,
    pub tables: Tables,
    pub battles: Vec<Battle>,
    pub units: Vec<Unit>,
    pub vp: BTreeMap<String, i32>,
    pub vl: BTreeMap<String, i32>,
    pub vp_per_vl: BTreeMap<String, i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heat: Option<Heat>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_continuum: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub automatic_defeat: Vec<String>,
    /// The forced first activation (S2.2): this Battle, which cannot pass.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub first: String,
    /// The enemy Battle a Confusion made its owner activate (16.1).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub confusion: String,
    pub pending: Pending,
    /// The Captain carrying the activation marker and how many activations
    /// in a row he has made (4.3, 4.3.1; one marker for the game, A08).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub marker: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub marker_count: i32,
    /// The Captain whose activation ended last (3.0 s2).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last: String,
    /// The OP left in the running or last activation (OP Track).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub op: i32,
    pub policies: BTreeMap<String, Policy>,
    /// Secret plans waiting: a `NEXT CONTINUUM`'s `THEN`, a Continuum's
    /// plan while the Interruptio is decided.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plans: Vec<Plan>,
    /// `NEXT` pre-commitments per role ("pass" or a Captain), secret.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub next: BTreeMap<String, String>,
    /// Hexes of the last activation, marked on the map.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
    pub activations: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Act>,
    /// The free set-up's record: where each piece stood in the historical
    /// set-up, the default of a silent player (S3.1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub home: BTreeMap<String, String>,
    /// Leaders captured in an escape, whose fall is still to be scored,
    /// with the hex where they were taken (off the map meanwhile).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captured: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The Braccesca's enemy in this scenario (`malatesta`, `league`).
    #[serde(default = "malatesta")]
    pub foe: String,
    /// Carica! orders the forced first activation must give (S4.2, A35).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_caricas: i32,
    /// The free set-up's zones (L'Aquila, S5.1.2), and the map of them
    /// while it runs: a row a map row, `w` west of the line, `n` or `s`
    /// on or east of it, north or south of the river, `x` neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<Zones>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zone_rows: Vec<String>,
    /// The army commanders' standards (option `standards`, 16.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standards: Vec<Standard>,
    /// Is a rally point a standard the enemy takes by entering it (S2.5),
    /// or only a place (L'Aquila's Bazzano, S4.5)?
    #[serde(default = "yes", skip_serializing_if = "Clone::clone")]
    pub rally_standards: bool,
}

fn yes() -> bool {
    true
}

fn malatesta() -> String {
    MALATESTA.into()
}

impl State {
    /// The two roles, the Braccesca first.
    pub fn roles(&self) -> [&'static str; 2] {
        [BRACCIO, self.other(BRACCIO)]
    }

    /// The scenario's own rule number where Sant'Egidio and L'Aquila
    /// print the same rule twice (S2.9 and S4.8, say).
    pub fn rule(&self, sant_egidio: &'static str, laquila: &'static str) -> &'static str {
        if self.foe == LEAGUE {
            laquila
        } else {
            sant_egidio
        }
    }

    /// The enemy of `side`.
    pub fn other(&self, side: &str) -> &'static str {
        if side == BRACCIO {
            FOES.iter().find(|(r, _)| *r == self.foe).map(|(r, _)| *r).unwrap_or(MALATESTA)
        } else {
            BRACCIO
        }
    }

    pub fn grid(&self) -> Grid {
        self.map.grid()
    }
    pub fn battle(&self, name: &str) -> Option<&Battle> {
        self.battles.iter().find(|b| b.name == name)
    }
    pub fn battle_mut(&mut self, name: &str) -> Option<&mut Battle> {
        self.battles.iter_mut().find(|b| b.name == name)
    }
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
    }
    pub fn unit_mut(&mut self, name: &str) -> Option<&mut Unit> {
        self.units.iter_mut().find(|u| u.name == name)
    }
    /// The combat unit in a hex (9.0.1: at most one).
    pub fn unit_at(&self, h: Hex) -> Option<&Unit> {
        let id = h.to_string();
        self.units.iter().find(|u| u.hex == id)
    }
    pub fn terrain_at(&self, h: Hex) -> Option<&Terrain> {
        let g = self.map.glyph(h).to_string();
        self.terrain.iter().find(|t| t.glyph == g)
    }
    /// Movement points to enter `h` for a kind (None: prohibited).
    pub fn cost(&self, h: Hex, cavalry: bool) -> Option<i32> {
        let t = self.terrain_at(h)?;
        let c = if cavalry { &t.cavalry } else { &t.foot };
        c.parse().ok()
    }
    /// The special hexside between two neighbours, if any.
    pub fn hexside(&self, a: Hex, b: Hex) -> Option<&HexsideKind> {
        let (a, b) = (a.to_string(), b.to_string());
        let m = self.map.hexside.iter().find(|x| (x.a == a && x.b == b) || (x.a == b && x.b == a))?;
        self.hexsides.iter().find(|k| k.kind == m.kind)
    }
    /// Movement points to step from `from` into its neighbour `to`: the
    /// terrain entered and the hexside crossed (None: prohibited).
    pub fn step(&self, from: Hex, to: Hex, cavalry: bool) -> Option<i32> {
        let c = self.cost(to, cavalry)?;
        match self.hexside(from, to) {
            Some(k) if k.prohibited.iter().any(|p| p == if cavalry { "cavalry" } else { "infantry" }) => None,
            Some(k) => Some(c + k.cost_add),
            None => Some(c),
        }
    }
    pub fn passable(&self, h: Hex) -> bool {
        self.grid().contains(h) && self.cost(h, false).is_some()
    }
    /// The neighbour of a unit's hex across a hexside and how it lies for
    /// the unit's facing.
    pub fn arc_of(&self, u: &Unit, to: Hex) -> Option<Arc> {
        let d = self.grid().direction(u.at()?, to)?;
        Some(u.facing.arc(d))
    }
    pub fn front_hexes(&self, u: &Unit) -> Vec<Hex> {
        let Some(at) = u.at() else { return Vec::new() };
        u.facing.front().iter().filter_map(|&d| self.grid().neighbour(at, d)).collect()
    }
    /// Does an enemy of `side` exert a ZOC over `h` for a unit of this kind
    /// (7.0, 7.0.1, 7.1.1: cavalry ignores foot ZOC)?
    pub fn enemy_zoc(&self, h: Hex, side: &str, cavalry: bool) -> bool {
        self.zoc_from(h, side, cavalry).next().is_some()
    }
    /// The enemy units whose ZOC covers `h` for a unit of `side`.
    pub fn zoc_from<'a>(&'a self, h: Hex, side: &'a str, cavalry: bool) -> impl Iterator<Item = &'a Unit> + 'a {
        let ok = self.passable(h);
        self.units.iter().filter(move |e| {
            ok && e.alive() && e.side != side && (!cavalry || e.cavalry()) && self.front_hexes(e).contains(&h)
        })
    }
    pub fn adjacent_enemy(&self, h: Hex, side: &str) -> bool {
        self.grid().neighbours(h).into_iter().any(|n| self.unit_at(n).map(|e| e.side != side).unwrap_or(false))
    }
    /// The Captain (or Adjutant) of a Battle and the leader a unit takes
    /// orders from: its Squad Leader in a School Battle (14.2.2).
    pub fn commander_of(&self, u: &Unit) -> Option<&Leader> {
        let b = self.battle(&u.battle)?;
        if u.squad.is_empty() {
            Some(&b.captain)
        } else {
            b.squads.iter().find(|q| q.letter == u.squad).map(|q| &q.leader)
        }
    }
    pub fn option(&self, o: &str) -> bool {
        self.options.iter().any(|x| x == o)
    }
    /// Put a piece named as the order parser names it (a unit, a Captain
    /// by his Battle's name, a Squad Leader) on `hex`, a unit turned to
    /// `face` if given: a set-up's placement. What the event calls it, or
    /// None for no such piece.
    pub fn put(&mut self, who: &str, hex: &str, face: Option<Vertex>) -> Option<String> {
        if let Some(u) = self.unit_mut(who) {
            u.hex = hex.to_string();
            if let Some(v) = face {
                u.facing = v;
            }
            return Some(who.to_string());
        }
        if let Some(b) = self.battle_mut(who) {
            b.captain.hex = hex.to_string();
            return Some(format!("{} (Captain)", b.captain.name));
        }
        let l =
            self.battles.iter_mut().flat_map(|b| b.squads.iter_mut()).map(|q| &mut q.leader).find(|l| l.name == who)?;
        l.hex = hex.to_string();
        Some(who.to_string())
    }
    /// The Battle a Captain or Squad Leader (by his current name) leads.
    pub fn battle_of_leader(&self, name: &str) -> Option<&Battle> {
        self.battles.iter().find(|b| b.captain.name == name || b.squads.iter().any(|q| q.leader.name == name))
    }
    /// Captains of `side` that are on the map.
    pub fn captains<'a>(&'a self, side: &'a str) -> impl Iterator<Item = &'a Battle> + 'a {
        self.battles.iter().filter(move |b| b.side == side && !b.removed)
    }
    /// Whether `role`'s Captains may ever make a Continuum: not where the
    /// scenario forbids it (Malatesta at Sant'Egidio, S2.6.1).
    pub fn may_continuum(&self, role: &str) -> bool {
        !self.no_continuum.iter().any(|x| x == role)
    }
    /// The best CCs of the two sides' released Captains, the Braccesca's
    /// first, which a Continuum or Interruptio roll must not exceed (15.3);
    /// none while a side has released none (A02).
    pub fn sudden_end_ccs(&self) -> Option<(i32, i32)> {
        let best = |side: &str| self.captains(side).filter(|b| b.released).map(|b| b.cc).max();
        Some((best(BRACCIO)?, best(self.other(BRACCIO))?))
    }
}

/// In how many of the 36 throws of two dice the total is `n` or less: a
/// roll's chance against a CC (4.1, 4.2) or the best released CCs (15.3).
pub fn throws_at_most(n: i32) -> i32 {
    (1..=6).flat_map(|a| (1..=6).map(move |b| a + b)).filter(|&t| t <= n).count() as i32
}

pub struct Braccio;

impl Rules for Braccio {
    type State = State;
    type Order = Order;

    fn info(&self) -> RulesetInfo {
        RulesetInfo {
            name: "braccio",
            title: "Braccio da Montone",
            scenarios: vec![ScenarioInfo {
                name: "sant-egidio".into(),
                roles: vec![BRACCIO.into(), MALATESTA.into()],
                about: "Lord of Perugia: Sant'Egidio, 1416 (historical set-up; +short: the short game, S2.9.2; \
                        +free: the free set-up, S3; +confusion: 16.1; +carlo: S2.10.1; +perugia: the militia of Perugia, S2.10.2)"
                    .into(),
                variants: vec!["short".into(), "free".into(), "confusion".into(), "carlo".into(), "perugia".into()],
            }, ScenarioInfo {
                name: "laquila".into(),
                roles: vec![BRACCIO.into(), LEAGUE.into()],
                about: "The Death of a Condottiero: L'Aquila, 1424 (historical set-up; +short: the short game, S4.8.2; \
                        +free: the free set-up, S5; +confusion: 16.1; +standards: 16.2)"
                    .into(),
                variants: vec!["short".into(), "free".into(), "confusion".into(), "standards".into()],
            }],
            moderated: false,
            step_kinds: &["setup", "activation", "continuum", "interruptio", "confusion", "orders"],
            step_limit: Some(1500),
        }
    }

    fn setup(&self, scenario: &str) -> Result<State, String> {
        data::setup(scenario)
    }

    fn awaited(&self, s: &State) -> Awaited {
        if let Pending::Rows { roles } = &s.pending {
            let both: Vec<&str> = roles.iter().map(String::as_str).collect();
            let mut a = Awaited::new("setup", &both);
            a.optional = s.roles().into_iter().filter(|r| !both.contains(r)).map(String::from).collect();
            return a;
        }
        match s.pending.role() {
            None => Awaited::default(),
            Some(role) => {
                let kind = match &s.pending {
                    Pending::Setup { .. } => "setup",
                    Pending::Activation { .. } => "activation",
                    Pending::Continuum { .. } => "continuum",
                    Pending::Interruptio { .. } => "interruptio",
                    Pending::Confusion { .. } => "confusion",
                    _ => "orders",
                };
                let mut a = Awaited::new(kind, &[role]);
                // The other side may set its policies at any time (3.4).
                a.optional = vec![s.other(role).to_string()];
                a
            }
        }
    }

    fn prompt(&self, s: &State, role: &str) -> Prompt {
        view::prompt(s, role)
    }

    fn parse(&self, s: &State, role: &str, line: &str) -> Result<Order, Problem> {
        orders::parse(s, role, line)
    }

    fn validate(&self, s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
        receipt::validate(s, role, orders)
    }

    fn example(&self, s: &State, role: &str) -> Vec<Order> {
        random::example(s, role)
    }

    fn conditions(&self, s: &State, role: &str, orders: &[Order]) -> Vec<(usize, String)> {
        receipt::conditions(s, role, orders)
    }

    fn default_orders(&self, s: &State, role: &str) -> Vec<Order> {
        random::defaults(s, role)
    }

    fn vocabulary(&self, s: &State, role: &str) -> Vocabulary {
        let _ = role;
        let mut names: Vec<String> = s.units.iter().map(|u| u.name.clone()).collect();
        names.extend(s.battles.iter().map(|b| b.captain.name.clone()));
        Vocabulary { verbs: orders::VERBS.iter().map(|v| v.to_string()).collect(), names }
    }

    fn leak_probes(&self, s: &State, role: &str) -> LeakProbes {
        view::leak_probes(s, role)
    }

    fn demo(&self, s: &State, pass: usize) -> Option<Vec<crate::engine::DemoMail>> {
        demo::mails(s, pass)
    }

    fn resolve(&self, s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
        flow::resolve(s, orders, dice)
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

    fn think(&self, s: &State, role: &str, effort: Effort, seed: u64) -> Option<Vec<Order>> {
        s.roles().contains(&role).then(|| player::MIND.think(self, s, role, effort, seed))
    }
}
