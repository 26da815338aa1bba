//! The referee: every decision the desk makes about a game, as values and
//! with no file, socket or clock of its own. Given a game's state, a mail
//! read (or the time, for a deadline), it says what the journal gains
//! (entries), who is written to (letters), and what else must happen
//! (letters of no game, fresh dice chains to keep): a [`Batch`]. The shell
//! (the rest of `desk/`) reads the inbox and the games' files, calls the
//! referee, and commits what it decided in the crash-safe order. What the
//! referee needs of the disk (a game's dice secrets and anchors, fresh
//! randomness) it asks of a [`Vault`] it is handed, so it is tested with
//! one in memory.

pub mod computer;
pub mod deadlines;
pub mod hourly;
pub mod letters;
pub mod lobby;
pub mod mail;
pub mod orders;
pub mod player;
pub mod rollback;
pub mod secrets;
pub mod seen;
pub mod state;
pub mod steps;
#[cfg(test)]
mod tests;

use crate::config::Config;
use crate::engine::Game;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;
use std::collections::BTreeMap;

pub use seen::Seen;
pub use state::DeskState;

/// What the referee works on: a game, the desk's facts about it, and the
/// mail it has handled. (The shell's `Loaded` adds its files.)
pub struct GameState {
    pub game: Game,
    pub desk: DeskState,
    /// The messages handled (the dedupe set).
    pub seen: Seen,
}

/// A reply to be sent, before it has a Message-ID.
#[derive(Debug, Clone)]
pub struct Letter {
    /// Role the letter is for ("gm" for the moderator), or None for a
    /// stranger (refusals).
    pub role: Option<String>,
    pub to: String,
    pub subject: String,
    pub body: String,
    /// The maps attached.
    pub svg: Vec<Map>,
    pub in_reply_to: Option<String>,
}

/// A map attached to a letter: the SVG of the whole board, and the SVG
/// its PNG is drawn from where that differs (a large field cropped to
/// where the pieces stand).
#[derive(Debug, Clone)]
pub struct Map {
    /// The SVG's file name.
    pub name: String,
    pub svg: String,
    pub picture: Option<String>,
}

/// A letter of no game (a refusal to a stranger), sent once for its key.
#[derive(Debug, Clone)]
pub struct Loose {
    pub letter: Letter,
    pub key: String,
}

/// What one event decides for one game, committed together: entries for
/// its journal, letters for its players, and the dice secrets to keep
/// before the entries that depend on them.
#[derive(Default)]
pub struct Batch {
    pub entries: Vec<(String, toml::Value)>,
    pub letters: Vec<Letter>,
    /// Chains committed by this batch (a renewal): written durably before
    /// its entries are.
    pub secrets: Option<secrets::Secrets>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.letters.is_empty() && self.secrets.is_none()
    }

    /// About how many bytes its letters hold (texts and maps): what a
    /// pass commits at once is bounded by it, not by a number of mails,
    /// so that a backlog of resolving mails never holds all its maps.
    pub fn weight(&self) -> usize {
        self.letters
            .iter()
            .map(|l| {
                l.body.len()
                    + l.svg.iter().map(|m| m.svg.len() + m.picture.as_ref().map_or(0, String::len)).sum::<usize>()
            })
            .sum()
    }

    pub fn entry<T: Serialize>(&mut self, kind: &str, body: &T) {
        self.entries.push((kind.to_string(), toml::Value::try_from(body).expect("journal bodies serialize")));
    }
}

/// What one pass did, for logs and tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PassReport {
    pub messages: usize,
    pub accepted: usize,
    pub rejected: usize,
    pub refused: usize,
    pub dropped: usize,
    pub duplicates: usize,
    pub quarantined: usize,
    pub resolved: usize,
    pub sent: usize,
}

/// What stops the referee: a game's rules, or its secrets, refuse what it
/// was asked; said in words. (A sender's mistake is no error: it is
/// answered and journaled.)
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// What the referee asks of the disk about a game: its dice secrets (chain
/// tops), the anchors its journal committed, and fresh randomness for new
/// chains.
pub trait Vault {
    fn secrets(&self, game: &str) -> Result<secrets::Secrets, Refused>;
    fn anchors(&self, game: &str) -> Result<BTreeMap<String, String>, Refused>;
    fn fresh(&self) -> [u8; 32];
    /// The game as it was when `step` opened in the history that stands,
    /// from its journal and the entries `pending` decided but not yet
    /// written (None: no such opening); for a rollback.
    fn opening(&self, game: &str, step: u32, pending: &[(String, toml::Value)]) -> Result<Option<Reopening>, Refused>;
    /// The `resolved` entries of steps `from` to `to` in the journal (for
    /// HISTORY), undone ones included.
    fn resolved(&self, game: &str, from: u32, to: u32) -> Result<Vec<crate::journal::kinds::Resolved>, Refused>;
}

/// What a rollback restores, and what it undoes.
#[derive(Debug, Clone, PartialEq)]
pub struct Reopening {
    pub opening: crate::audit::Opening,
    /// The orders each role had accepted since: (step, lines).
    pub orders: BTreeMap<String, Vec<(u32, Vec<String>)>>,
}

/// The referee for one data folder: its configuration, its server key
/// (the players' reply tokens hang on it) and its vault.
pub struct Referee<'a> {
    pub cfg: &'a Config,
    pub key: &'a [u8],
    pub vault: &'a dyn Vault,
}

impl Referee<'_> {
    /// The token of a role's `epoch`-th player: an HMAC of game and role
    /// under the server key, so it needs no storage and cannot be guessed;
    /// REPLACE moves a role to a new epoch, so the replaced player's
    /// credential stops working.
    pub fn token_at(&self, game: &str, role: &str, epoch: u32) -> String {
        token(self.key, game, role, epoch)
    }

    /// The game address's local part and domain.
    pub fn split_game_address(&self) -> (String, String) {
        let a = &self.cfg.game.address;
        let (l, d) = a.rsplit_once('@').unwrap_or((a.as_str(), "adjutant.local"));
        (l.to_string(), d.to_string())
    }

    pub fn reply_address_at(&self, game: &str, role: &str, epoch: u32) -> String {
        let (l, d) = self.split_game_address();
        format!("{l}+{game}.{}@{d}", self.token_at(game, role, epoch))
    }
}

/// See [`Referee::token_at`].
pub fn token(key: &[u8], game: &str, role: &str, epoch: u32) -> String {
    let mut m = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    m.update(game.as_bytes());
    m.update(&[0]);
    m.update(role.as_bytes());
    if epoch > 0 {
        m.update(&[0]);
        m.update(epoch.to_string().as_bytes());
    }
    hex::encode(m.finalize().into_bytes())[..16].to_string()
}
