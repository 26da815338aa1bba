//! The solo scenarios (SO1 Secure the Frontier, SO2 Prisoner Escort): one
//! role, the Legion, and adjutant playing the Raiders in the same
//! resolution (brief 3.5). The Raiders choose by the printed "most
//! threatening" order extended by a ladder held in data (A-38); ties go to
//! a public die over the tied moves in reading order, so every Raider move
//! is explained and can be checked.

mod escort;
pub mod frontier;

use super::{Order, State};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::{Event, Problem};
use crate::rules::shared::squares::Sq;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use frontier::{arrange, check_arrange, first_cubes, fort_board, fort_lines, parse_fort, wood_default};

/// What the solo scenarios keep beyond the armies.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Solo {
    /// `frontier` (SO1).
    pub kind: String,
    /// The Legion's army (the player's) and the Raiders' (adjutant's).
    pub legion: String,
    pub raiders: String,
    /// Each column's Raider number (SO1-24): the die names columns.
    pub numbers: BTreeMap<String, u32>,
    /// The row a reinforcement enters on (SO1-33; the Aggressive variant
    /// one nearer, SO1-34).
    pub reinforce_row: u8,
    /// "Most threatening", in order (SO1-30, A-38).
    pub ladder: Vec<String>,
    /// SO1's wall: its row, the built sections by square (`wood`,
    /// `stone`, `tower`), the gates, and whether a built section is a
    /// flank end for the Legion (the Easier variant, SO1-14).
    #[serde(default)]
    pub wall_row: u8,
    #[serde(default)]
    pub sections: BTreeMap<String, String>,
    #[serde(default)]
    pub gates: Vec<String>,
    #[serde(default)]
    pub wall_end: bool,
    /// Towers the wall needs (SO1-1, SO1-19).
    #[serde(default)]
    pub towers: u32,
    /// The fewest Legion units (Infantry or Commander) that can still
    /// build (SO1-4, A-39).
    #[serde(default)]
    pub min_units: u32,
    /// Where the War Chief stands "at the gate" (SO1-32, A-37).
    #[serde(default)]
    pub chief_gate: String,
    #[serde(default)]
    pub fort: Option<Fort>,
    /// Destroyed Wood waiting for the player's RESTOCK (SO1-16, A-35).
    #[serde(default)]
    pub restock: u32,
    /// The Raiders' last action, die by die, for the map's mail.
    #[serde(default)]
    pub report: Vec<String>,
    /// SO2's valley (its columns; the rest are slopes, SO2-6), the Rock
    /// nothing crosses (the Emboldened variant lets the Raiders climb it,
    /// SO2-34), the Ambushers' spots and which Raider slots are
    /// Ambushers now (SO2-21, A-40).
    #[serde(default)]
    pub valley: Vec<String>,
    #[serde(default)]
    pub rock: Vec<String>,
    #[serde(default)]
    pub emboldened: bool,
    #[serde(default)]
    pub ambush: Vec<String>,
    #[serde(default)]
    pub ambushers: Vec<usize>,
    /// SO2: a 6 was rolled and an Infantry is off the board: the next
    /// mail may ENTER it on row 1 (SO2-30, A-44).
    #[serde(default)]
    pub enter_due: bool,
    /// SO2's Scouts variant: where the extra Infantry may be placed
    /// before play (SO2-32); empty when the variant is off.
    #[serde(default)]
    pub scout_cells: Vec<String>,
    /// Where the Scout stands if the player places none (the brief's b2).
    #[serde(default)]
    pub scout_default: String,
}

/// SO1's Fort, the supply depot beside the board (SO1-8): its own grid of
/// cells `Fa1`…, row 1 touching the board's row 1, its column a under the
/// board column `under`; gates join board squares to Fort cells.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fort {
    pub columns: u8,
    pub rows: u8,
    pub under: String,
    pub gates: Vec<[String; 2]>,
    /// The Wood cells of the default arrangement (the rest is Stone).
    pub wood: Vec<String>,
    /// What each cell holds now: `wood` or `stone`; absent, nothing.
    #[serde(default)]
    pub cubes: BTreeMap<String, String>,
}

/// A move the Raiders could make, and how threatening it is.
#[derive(Debug, Clone)]
pub struct Cand {
    /// `None`: a reinforcement entering at `to`.
    pub from: Option<Sq>,
    pub to: Sq,
    /// `advance`, `destroy`, `sidestep` or `reinforce`.
    pub kind: &'static str,
    /// Its ladder tier's name, and its rank within the tier (lower first).
    pub tier: String,
    pub captures: usize,
    pub sub: i32,
}

impl Cand {
    pub fn describe(&self, s: &State) -> String {
        let how = if self.kind == self.tier { self.kind.to_string() } else { format!("{}, {}", self.kind, self.tier) };
        match self.from {
            Some(f) => format!("{} to {} ({how})", s.name(f), s.name(self.to)),
            None => format!("a reinforcement at {} ({})", s.name(self.to), self.tier),
        }
    }
}

/// The most threatening candidate by the ladder; ties are drawn with a
/// public die over the tied ones in reading order of their start and
/// destination (brief 3.5).
pub fn choose(s: &State, mut cands: Vec<Cand>, dice: &mut dyn Dice, report: &mut Vec<String>) -> Option<Cand> {
    let solo = s.solo.as_ref()?;
    let rank = |c: &Cand| {
        let t = solo.ladder.iter().position(|x| *x == c.tier).unwrap_or(solo.ladder.len());
        (t, usize::MAX - c.captures, c.sub)
    };
    cands.sort_by_key(|c| {
        let f = c.from.unwrap_or(c.to);
        (rank(c), f.row, f.col, c.to.row, c.to.col)
    });
    let best = rank(cands.first()?);
    let tied: Vec<Cand> = cands.iter().filter(|c| rank(c) == best).cloned().collect();
    if tied.len() == 1 {
        report.push(format!("{}: {} comes first.", tied[0].describe(s), tier_why(s, &tied[0].tier)));
        return tied.into_iter().next();
    }
    let n = tied.len();
    let d = tie_break(n, "raider tie-break", dice);
    let list: Vec<String> = tied.iter().map(|c| c.describe(s)).collect();
    report.push(format!("Tied, each {}: {}; tie-break d{n} = {d}.", tier_why(s, &tied[0].tier), list.join("; ")));
    tied.into_iter().nth(d - 1)
}

fn tier_why(s: &State, tier: &str) -> &'static str {
    match tier {
        "win" if escort(s) => "silencing the Prisoner",
        "press" if escort(s) => "a step beside the Prisoner",
        "win" => "reaching the Legion's back row",
        "capture" => "a capture",
        "destroy" => "destroying unprotected Wood",
        "breach" => "an advance past the wall",
        "press" => "an advance to a gap in the wall",
        "reinforce" => "a reinforcement",
        "advance" => "an advance",
        _ => "a sidestep",
    }
}

fn escort(s: &State) -> bool {
    s.solo.as_ref().is_some_and(|x| x.kind == "escort")
}

/// The player's turn and then the Raiders', in one resolution.
pub fn turn(s: &mut State, role: &str, orders: &[Order], dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let made = if escort(s) { escort::try_turn(s, role, orders, ev) } else { frontier::try_turn(s, role, orders, ev) };
    if let Err((_, p)) = made {
        ev.push(Event::all(format!("{}'s turn is void: {}.", super::army_title(role), p.reason)));
    }
    s.turn += 1;
    if s.outcome.is_some() || super::end_checks(s, role, ev) {
        return;
    }
    let raiders = s.solo.as_ref().map(|x| x.raiders.clone()).unwrap_or_default();
    if escort(s) {
        escort::raiders_turn(s, dice, ev);
    } else {
        frontier::raiders_turn(s, dice, ev);
    }
    if s.outcome.is_none() {
        super::end_checks(s, &raiders, ev);
    }
}

/// The Legion's turn checked whole, as it will be made (SO1: RESTOCK
/// lines, one action, then SUPPLY lines; SO2: ENTER, then the action).
pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut t = s.clone();
    let mut ev = Vec::new();
    let made = if escort(s) {
        escort::try_turn(&mut t, role, orders, &mut ev)
    } else {
        frontier::try_turn(&mut t, role, orders, &mut ev)
    };
    match made {
        Ok(()) => Vec::new(),
        Err(e) => vec![e],
    }
}

/// Lines a random player adds to its action (the conformance test's and
/// the by-mail tests'): a SUPPLY for a Build Formation the action makes,
/// the ENTER a 6 made due.
pub fn extras(s: &State, role: &str, action: &Order) -> Vec<Order> {
    let mut out = Vec::new();
    if escort(s) {
        let l = s.army_index(role);
        let due = s.solo.as_ref().is_some_and(|x| x.enter_due)
            && l.is_some_and(|a| s.armies[a].infantry.iter().any(String::is_empty));
        let occupied = s.occupancy();
        if let Some(q) =
            (0..s.columns).map(|col| Sq { col, row: 0 }).find(|q| occupied[q.col as usize].is_none()).filter(|_| due)
        {
            let o = Order::Enter(q);
            if validate(s, role, &[o.clone(), action.clone()]).is_empty() {
                out.push(o);
            }
        }
        return out;
    }
    for cube in frontier::first_cubes(s) {
        for col in 0..s.columns {
            let row = s.solo.as_ref().map(|x| x.wall_row.saturating_sub(1)).unwrap_or(0);
            let o = Order::Supply { from: cube.clone(), to: Sq { col, row } };
            if validate(s, role, &[action.clone(), o.clone()]).is_empty() {
                out.push(o);
                return out;
            }
        }
    }
    out
}

/// The Legion has failed (SO2-2..4): the game ends with no winner.
pub fn fail(s: &mut State, reason: String, ev: &mut Vec<Event>) {
    ev.push(Event::all(format!("The Legion fails: {reason}.")));
    lost(s, reason);
}

/// The game ends with no winner: the Legion failed; the event comes with
/// the Raiders' report.
fn lost(s: &mut State, reason: String) {
    s.outcome = Some(crate::engine::Outcome::failed(s.turn_order.clone(), reason));
}

/// The one action among a turn's lines (the rest are `extra`: supplies,
/// restocks, a reinforcement), or the line that is a second action.
fn one_action(orders: &[Order], extra: impl Fn(&Order) -> bool, hint: &str) -> Result<Option<usize>, (usize, Problem)> {
    let actions: Vec<usize> = (0..orders.len()).filter(|&i| !extra(&orders[i])).collect();
    match actions.as_slice() {
        [_, second, ..] => Err((*second, Problem::new("one action a turn (a unit or a formation)").hint(hint))),
        _ => Ok(actions.first().copied()),
    }
}

/// The Raiders' action told: each line an event, and kept for the map.
fn publish(s: &mut State, report: Vec<String>, ev: &mut Vec<Event>) {
    ev.extend(report.iter().map(|l| Event::all(l.clone())));
    if let Some(x) = s.solo.as_mut() {
        x.report = report;
    }
}

/// The squares left and right of `q` on the board: where a blocked Raider
/// steps aside (SO1-28, SO2-22).
fn aside(s: &State, q: Sq) -> Vec<Sq> {
    [q.col.checked_sub(1), Some(q.col + 1).filter(|&c| c < s.columns)]
        .into_iter()
        .flatten()
        .map(|col| Sq { col, row: q.row })
        .collect()
}

/// A public die over `n` tied choices (1-based), or 1 when there is no tie.
fn tie_break(n: usize, label: &str, dice: &mut dyn Dice) -> usize {
    if n <= 1 {
        return 1;
    }
    dice.roll(&StreamId::Public, n as u32, label, &Serves::nobody()).clamp(1, n as u32) as usize
}

/// A captured Raider back on the board at `to` (SO1-33, SO2-31): the
/// first empty Infantry slot; which slot it took.
fn bring_back(s: &mut State, r: usize, to: Sq) -> Option<usize> {
    let k = s.armies[r].infantry.iter().position(String::is_empty)?;
    s.armies[r].infantry[k] = s.name(to);
    Some(k)
}

pub use escort::{check_move as escort_check, check_scout, place_scout};
