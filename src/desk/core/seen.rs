//! The dedupe set of a game: a digest of every inbound message it handled
//! (its bytes, and its Message-ID as its sender sent it), the most recent
//! [`WINDOW`] keys in memory. Its file (`desk/seen.rs`) is the shell's.

use crate::dice;
use std::collections::{HashSet, VecDeque};

/// How many keys (two a message: bytes and Message-ID) are held in memory:
/// twice the largest batch a pass handles, so that a batch handled again
/// after a crash (all of it, up to 4,096 messages for one game) is always
/// recognised. A re-delivered message older than the last ~8,000 a game
/// received is not; its orders are then stale (their step long resolved)
/// and refused as such, and only a STATUS or PRESS that old would be
/// answered again. Keys are 128 bits, so the window costs ~0.5 MB at most.
pub const WINDOW: usize = 4 * crate::config::GROUP;

#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub(in crate::desk) set: HashSet<u128>,
    pub(in crate::desk) order: VecDeque<u128>,
    /// Keys handled since the file was last written.
    pub(in crate::desk) pending: Vec<u128>,
    /// Rebuilt from the journal: the file is written anew at the next save.
    pub(in crate::desk) fresh: bool,
}

/// The stored form of a key such as a message's SHA-256 or `mid:<id>`:
/// the first 128 bits of its SHA-256.
fn digest(key: &str) -> u128 {
    let h = dice::sha256(key.as_bytes());
    u128::from_be_bytes(h[..16].try_into().expect("16 bytes"))
}

/// The dedupe keys of a message: its bytes' digest, and its Message-ID as
/// sent by `from` unless that was made up from the bytes (`sha256-…`, a
/// mail without one). A Message-ID is a duplicate only of the same
/// sender's mail: one a forger sent first cannot make the genuine mail
/// with that id look like a repeat. The desk checks and records these, and
/// a rebuild reads them back from the journal's `received` entries, in one
/// way.
pub fn keys(sha: &str, message_id: &str, from: &str) -> Vec<String> {
    let mut v = vec![sha.to_string()];
    if !message_id.starts_with("sha256-") {
        v.push(format!("mid:{}\0{message_id}", from.trim().to_lowercase()));
    }
    v
}

/// The keys recorded for a mail: [`keys`], but only its bytes' digest for a
/// mail refused (a wrong token, or not from the player's address), whose
/// Message-ID and sender vouch for nothing.
pub fn recorded(sha: &str, message_id: &str, from: &str, refused: bool) -> Vec<String> {
    if refused {
        vec![sha.to_string()]
    } else {
        keys(sha, message_id, from)
    }
}

impl Seen {
    pub fn contains(&self, key: &str) -> bool {
        self.set.contains(&digest(key))
    }

    /// Note a key handled: in memory now, in the file at the next save.
    pub fn insert(&mut self, key: &str) {
        let d = digest(key);
        self.pending.push(d);
        self.remember(d);
    }

    pub(in crate::desk) fn remember(&mut self, d: u128) {
        if self.set.insert(d) {
            self.order.push_back(d);
            while self.order.len() > WINDOW {
                if let Some(old) = self.order.pop_front() {
                    self.set.remove(&old);
                }
            }
        }
    }

    /// The keys of the given messages in order (a rebuild from the journal),
    /// all to be written.
    pub fn from_keys<'a>(keys: impl Iterator<Item = &'a str>) -> Seen {
        let mut s = Seen::default();
        for k in keys {
            s.insert(k);
        }
        s.fresh = true;
        s
    }
}
