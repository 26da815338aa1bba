//! The desk's own facts about a game, beside the engine's (who plays, how
//! dice work, deadlines, absences, civil disorder), as the journal's
//! entries make them: rebuilt from the journal by [`desk_state`], kept up
//! to date by the same functions as entries are made. No I/O.

use crate::dice;
use crate::journal::{kinds, Entry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The desk's own facts about a game, beside the engine's: who plays, how
/// dice work, deadlines, what mail was seen. Rebuildable from the journal.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct DeskState {
    pub title: String,
    pub players: BTreeMap<String, String>,
    #[serde(default)]
    pub gm: Option<String>,
    pub dice: dice::Mode,
    pub chain_len: u32,
    /// Length of a step, in seconds, if the game has deadlines.
    #[serde(default)]
    pub deadline_secs: Option<i64>,
    /// When the open step's deadline falls (RFC 3339).
    #[serde(default)]
    pub deadline_at: Option<String>,
    /// When the open step resolves unless everyone is in: the deadline plus
    /// the grace, or earlier once everyone is in (the early-resolution
    /// delay).
    #[serde(default)]
    pub resolve_at: Option<String>,
    /// The step whose reminder went out.
    #[serde(default)]
    pub reminded: u32,
    /// The step for which the moderator was asked to declare dice.
    #[serde(default)]
    pub asked: u32,
    /// Each role's time zone (ZONE), for showing deadlines.
    #[serde(default)]
    pub zones: BTreeMap<String, String>,
    /// Announced absences per role (ABSENT): first and last day.
    #[serde(default)]
    pub absences: BTreeMap<String, Vec<(String, String)>>,
    /// Steps each role has missed in a row.
    #[serde(default)]
    pub missed: BTreeMap<String, u32>,
    /// Roles in civil disorder (too many missed steps), awaiting REPLACE.
    #[serde(default)]
    pub disorder: Vec<String>,
    /// How many times each role was handed to a new player: its reply token
    /// changes each time.
    #[serde(default)]
    pub epochs: BTreeMap<String, u32>,
    #[serde(default)]
    pub paused: bool,
    /// Values the moderator declared for the open step (declared dice).
    #[serde(default)]
    pub declared: Vec<(String, Vec<u32>)>,
    /// The anchors of renewed chains, by the base step they follow (the
    /// first chains' anchors are in the journal's first entry).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renewed: Vec<(u32, BTreeMap<String, String>)>,
    /// The roles agreeing to a draw at the open step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub draw: Vec<String>,
    /// The maps each role chose for its letters (MAPS), where not the
    /// configuration's default.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub maps: BTreeMap<String, String>,
    /// Joins wait for the moderator's approval (`new --open --approve`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub approve: bool,
    /// JOINs waiting for that approval: (role, address).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied: Vec<(String, String)>,
    /// Who watches the game's public view (OBSERVE).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observers: Vec<String>,
    /// The moderator's rollbacks, oldest first: every later mail says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rollbacks: Vec<Rollback>,
}

/// A rollback as the desk remembers it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Rollback {
    /// When (RFC 3339), the step whose opening was restored, the number the
    /// reopened step took, the steps whose results were voided, and why.
    pub at: String,
    pub to_step: u32,
    pub step: u32,
    pub voided_steps: Vec<u32>,
    pub reason: String,
}

impl DeskState {
    /// The rollback that voided `step`'s opening: the step rolled back to
    /// (it goes on under the reopened step's number) and every step opened
    /// after it until the rollback.
    pub fn voided(&self, step: u32) -> Option<&Rollback> {
        self.rollbacks.iter().rev().find(|r| step >= r.to_step && step < r.step)
    }

    /// The desk's side of a rollback: the step's declared dice go, and the
    /// rollback is remembered.
    pub fn rolled_back(&mut self, b: &kinds::RolledBack, at: &str) {
        self.declared.clear();
        self.draw.clear();
        self.rollbacks.push(Rollback {
            at: at.to_string(),
            to_step: b.to_step,
            step: b.step,
            voided_steps: b.voided_steps.clone(),
            reason: b.reason.clone(),
        });
    }
}

/// The desk state as the journal records it.
pub fn desk_state(entries: &[Entry]) -> Result<DeskState, String> {
    let mut d = DeskState::default();
    for e in entries {
        apply_entry(&mut d, e)?;
    }
    Ok(d)
}

/// One entry's part in the desk's facts: [`desk_state`] entry by entry,
/// for a journal read one entry at a time.
pub fn apply_entry(d: &mut DeskState, e: &Entry) -> Result<(), String> {
    match e.kind.as_str() {
        "created" => {
            let c: kinds::Created = e.body()?;
            d.title = crate::rules::find(&c.ruleset).map(|r| r.info().title.to_string()).unwrap_or_default();
            d.players = c.players;
            d.gm = c.gm;
            d.dice = c.dice;
            d.chain_len = c.chain_len;
            d.deadline_secs = c.deadline.as_deref().and_then(parse_duration);
            d.approve = c.approve;
        }
        "resolved" => {
            d.declared.clear();
            d.draw.clear();
            let r: kinds::Resolved = e.body()?;
            count_missed(d, &r);
        }
        "renewed" => {
            let r: kinds::Renewed = e.body()?;
            d.renewed.push((r.base, r.anchors));
        }
        "rolled_back" => {
            let b: kinds::RolledBack = e.body()?;
            d.rolled_back(&b, &e.at);
        }
        "moderator" | "deadline" | "zone" | "absent" | "disorder" | "reminded" | "early" | "asked" | "draw"
        | "no_draw" | "concede" | "join" | "observe" | "unobserve" | "maps" | "applied" | "declined" => {
            let m: kinds::Moderator = e.body()?;
            apply_moderator(d, &m);
        }
        _ => {}
    }
    Ok(())
}

/// Count missed steps: a role given the no-moves orders missed one; a role
/// whose orders came in is back to zero.
pub fn count_missed(d: &mut DeskState, r: &kinds::Resolved) {
    for role in r.orders.keys().filter(|r| *r != "gm") {
        if r.defaulted.contains(role) {
            *d.missed.entry(role.clone()).or_default() += 1;
        } else {
            d.missed.insert(role.clone(), 0);
        }
    }
}

/// The desk-state effect of a journaled moderator action.
pub fn apply_moderator(d: &mut DeskState, m: &kinds::Moderator) {
    use kinds::Action as A;
    match (m.action, m.args.as_slice()) {
        (A::Pause, _) => d.paused = true,
        (A::Draw, [role]) if !d.draw.contains(role) => d.draw.push(role.clone()),
        (A::NoDraw, [role]) => d.draw.retain(|r| r != role),
        (A::Concede, [role]) if !d.disorder.contains(role) => d.disorder.push(role.clone()),
        (A::Join, [role, email]) => {
            d.applied.retain(|(_, a)| !a.eq_ignore_ascii_case(email));
            d.players.insert(role.clone(), email.clone());
        }
        (A::Applied, [role, email]) => d.applied.push((role.clone(), email.clone())),
        (A::Declined, [email]) => d.applied.retain(|(_, a)| !a.eq_ignore_ascii_case(email)),
        (A::Observe, [a]) if !d.observers.contains(a) => d.observers.push(a.clone()),
        (A::Unobserve, [a]) => d.observers.retain(|x| !x.eq_ignore_ascii_case(a)),
        (A::Maps, [role, choice]) => {
            d.maps.insert(role.clone(), choice.clone());
        }
        (A::Resume, _) => d.paused = false,
        (A::Replace, [role, email]) => {
            d.disorder.retain(|r| r != role);
            d.missed.remove(role);
            *d.epochs.entry(role.clone()).or_default() += 1;
            if role == "gm" {
                d.gm = Some(email.clone());
            } else {
                d.players.insert(role.clone(), email.clone());
            }
        }
        (A::Deadline, [at]) => {
            d.deadline_at = Some(at.clone());
            d.resolve_at = Some(at.clone());
        }
        (A::Deadline, [at, resolve]) => {
            d.deadline_at = Some(at.clone());
            d.resolve_at = Some(resolve.clone());
        }
        (A::Deadline, []) => {
            d.deadline_at = None;
            d.resolve_at = None;
        }
        (A::Early, [resolve]) => d.resolve_at = Some(resolve.clone()),
        (A::Zone, [role, zone]) => {
            d.zones.insert(role.clone(), zone.clone());
        }
        (A::Absent, [role, from, to]) => d.absences.entry(role.clone()).or_default().push((from.clone(), to.clone())),
        (A::Disorder, [role]) if !d.disorder.contains(role) => d.disorder.push(role.clone()),
        (A::Reminded, [step]) => d.reminded = step.parse().unwrap_or(0),
        (A::Asked, [step]) => d.asked = step.parse().unwrap_or(0),
        (A::Declare, [label, values]) => {
            let v: Vec<u32> = values.split(',').filter_map(|x| x.trim().parse().ok()).collect();
            d.declared.push((label.clone(), v));
        }
        _ => {}
    }
}

/// "72h", "3d", "90m", "45s", or a bare number of hours.
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim().to_lowercase();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: i64 = num.parse().ok()?;
    let mult = match unit.trim() {
        "" | "h" | "hours" | "hour" => 3600,
        "d" | "days" | "day" => 86400,
        "m" | "min" | "minutes" => 60,
        "s" | "sec" | "seconds" => 1,
        "w" | "weeks" => 7 * 86400,
        _ => return None,
    };
    if n <= 0 {
        return None;
    }
    // Nothing a game needs is longer than a year; longer is a typo (and
    // would overflow date arithmetic).
    n.checked_mul(mult).filter(|s| *s <= 366 * 86400)
}

/// A game id: 1-40 lowercase letters, digits or '-', not starting with '-'.
pub fn valid_game_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 40
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.starts_with('-')
}
