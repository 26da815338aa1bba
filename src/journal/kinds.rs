//! Typed bodies of the journal's entry kinds. The field names are the
//! journal format: renaming one breaks every journal already written. No
//! body may use the entry fields `seq`, `at`, `kind`, `prev` or `hash`.

use crate::dice::Draw;
use crate::engine::{Event, LineError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `created`: everything needed to set the game up again.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Created {
    pub game: String,
    pub ruleset: String,
    pub scenario: String,
    pub roles: Vec<String>,
    /// Role to e-mail address.
    pub players: BTreeMap<String, String>,
    #[serde(default)]
    pub gm: Option<String>,
    pub dice: crate::dice::Mode,
    pub chain_len: u32,
    /// Stream name to anchor `x[σ][0]`, in hex.
    pub anchors: BTreeMap<String, String>,
    #[serde(default)]
    pub deadline: Option<String>,
    /// A position patch applied after set-up (adjudication cases, or a
    /// moderator starting from a custom position); see `engine::patch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<toml::Table>,
    /// Parts of the state set whole after the patch (a case's sparse
    /// position); see `Game::replace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<toml::Table>,
    /// Digest of the ruleset state right after set-up (and the patch).
    pub digest: String,
    /// The operator keeps the journal's tip apart from it
    /// (`DATA/secrets/<game>.tip`) from the game's first entry on: a
    /// journal found without its tip, or short of it, may have been cut,
    /// and the game is held until it is re-anchored. False for games of
    /// an older adjutant, whose tip may be missing for good.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tip_kept: bool,
    /// An open game whose joins the moderator approves (`new --open
    /// --approve`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub approve: bool,
}

/// `reanchored`: the moderator (or the operator) accepted the journal as it
/// is, ending at `entry` with `entry_hash`, after its tip file was lost
/// or no longer matched it; every player is told.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Reanchored {
    pub entry: u64,
    pub entry_hash: String,
    /// What the tip file said, or that it was missing.
    pub found: String,
    pub reason: String,
    /// "gm" (by mail) or "operator" (`adjutant reanchor`).
    pub by: String,
}

/// `rolled_back`: the moderator took the game back to the moment step
/// `to_step` opened. The entries `voids` (first and last sequence number)
/// no longer count for the game's state; they stay in the journal, and so
/// do their draws: the reopened step takes the number `step`, the next
/// one whose dice links were never revealed, so no die is drawn twice.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RolledBack {
    pub to_step: u32,
    pub step: u32,
    pub reason: String,
    /// "gm" (by mail).
    pub by: String,
    /// The first entry voided: the one after the entry that opened
    /// `to_step`.
    pub voids_from: u64,
    /// The steps whose results are voided (resolved after `to_step`
    /// opened), to their last.
    pub voided_steps: Vec<u32>,
    /// The ruleset state as it was when `to_step` opened, and its digest
    /// (which the journal recorded then).
    pub state: String,
    pub digest: String,
}

/// `received`: an inbound message, whatever became of it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Received {
    pub message_id: String,
    pub from: String,
    pub sha256: String,
    #[serde(default)]
    pub role: Option<String>,
    pub step: u32,
    /// "orders", "rejected", "command", "refused", "late".
    pub verdict: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Accepted {
    pub step: u32,
    pub role: String,
    pub lines: Vec<String>,
    /// Who wrote the orders when not the role's player: `adjutant`, the
    /// computer player playing the side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Rejected {
    pub step: u32,
    pub role: String,
    pub errors: Vec<LineError>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Salt {
    pub step: u32,
    pub role: String,
    pub salt: String,
}

/// `resolved`: a step's resolution, with what it takes to verify it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Resolved {
    pub step: u32,
    /// The kind of step ("turn", "escape"...); not `kind`, which every
    /// entry has already.
    pub step_kind: String,
    pub orders: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub defaulted: Vec<String>,
    pub salts: BTreeMap<String, String>,
    /// Stream to chain link `x[σ][step]` in hex (committed dice only).
    #[serde(default)]
    pub links: BTreeMap<String, String>,
    #[serde(default)]
    pub draws: Vec<Draw>,
    #[serde(default)]
    pub events: Vec<Event>,
    /// Digest of the ruleset state after the step.
    pub digest: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Press {
    pub from: String,
    pub to: String,
    pub text: String,
}

/// `mail`: a message queued for sending.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Mail {
    pub message_id: String,
    pub to: String,
    pub subject: String,
    pub sha256: String,
}

/// What a `moderator` entry (or a desk fact journaled under its own kind:
/// `deadline`, `zone`, `absent`, `early`, `reminded`, `asked`, `disorder`)
/// records. The names are the journal format.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Pause,
    Resume,
    /// A role handed to a new player: role, address.
    Replace,
    /// The open step's deadline and resolution time (none: no deadline).
    Deadline,
    /// An earlier resolution time once everyone is in.
    Early,
    /// A role's time zone.
    Zone,
    /// A role's announced absence: role, first day, last day.
    Absent,
    /// A role in civil disorder.
    Disorder,
    /// The step whose reminder went out.
    Reminded,
    /// The step for which the moderator was asked to declare dice.
    Asked,
    /// A die the moderator declared: label, values.
    Declare,
    /// A role resigned.
    Resign,
    /// The moderator ended the game.
    End,
    /// A role agrees to a draw for the open step: role.
    Draw,
    /// A role withdraws its agreement: role.
    NoDraw,
    /// A role concedes: role.
    Concede,
    /// A player takes a free role of an open game: role, address.
    Join,
    /// An address watches the game's public view: address.
    Observe,
    /// An address stops watching: address.
    Unobserve,
    /// The maps a role's letters carry: role, png|svg|both|none.
    Maps,
    /// A JOIN waiting for the moderator's approval: role, address.
    Applied,
    /// The moderator refused a waiting JOIN: address.
    Declined,
}

impl Action {
    /// The name, also the entry kind of the desk facts journaled under
    /// their own kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Pause => "pause",
            Action::Resume => "resume",
            Action::Replace => "replace",
            Action::Deadline => "deadline",
            Action::Early => "early",
            Action::Zone => "zone",
            Action::Absent => "absent",
            Action::Disorder => "disorder",
            Action::Reminded => "reminded",
            Action::Asked => "asked",
            Action::Declare => "declare",
            Action::Resign => "resign",
            Action::End => "end",
            Action::Draw => "draw",
            Action::NoDraw => "no_draw",
            Action::Concede => "concede",
            Action::Join => "join",
            Action::Observe => "observe",
            Action::Unobserve => "unobserve",
            Action::Maps => "maps",
            Action::Applied => "applied",
            Action::Declined => "declined",
        }
    }
}

/// `moderator`: an action of the moderator's that is not an order.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Moderator {
    pub action: Action,
    #[serde(default)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Ended {
    pub reason: String,
    #[serde(default)]
    pub winner: Option<String>,
    /// Further winners, where the game has several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// `renewed`: fresh dice chains, committed before the ones in use run out
/// (docs/dice-v1.md, Commitment). Step `base + i` uses link `i` of these chains; their
/// anchors are mailed to every player with this entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Renewed {
    pub base: u32,
    pub chain_len: u32,
    /// Stream to anchor `x[σ][0]` of the new chain, in hex.
    pub anchors: BTreeMap<String, String>,
}
