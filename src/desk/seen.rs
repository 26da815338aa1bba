//! The dedupe record of a game: a digest of every inbound message it
//! handled (its bytes, and its Message-ID), kept in its own append-only
//! file (`games/<id>/seen`) rather than in the snapshot, so that neither
//! the snapshot nor a pass grows with a game's length. In memory only the
//! most recent [`WINDOW`] keys are held.
//!
//! The file is a cache of the journal's `received` entries: it is appended
//! after the journal is durable, its length is recorded in the game's tip,
//! and a file shorter than the tip says (a crash, a lost write) makes the
//! game rebuild it from the journal.

use crate::dice;
use std::collections::{HashSet, VecDeque};
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How many keys (two a message: bytes and Message-ID) are held in memory:
/// twice the largest batch a pass handles, so that a batch handled again
/// after a crash (all of it, up to 4,096 messages for one game) is always
/// recognised. A re-delivered message older than the last ~8,000 a game
/// received is not; its orders are then stale (their step long resolved)
/// and refused as such, and only a STATUS or PRESS that old would be
/// answered again. Keys are 128 bits, so the window costs ~0.5 MB at most.
pub const WINDOW: usize = 4 * super::pass::GROUP;

/// The file's name in the game folder.
pub const FILE: &str = "seen";

/// 32 hex digits (128 bits of SHA-256) and a newline: fixed width, so the
/// last keys are read by seeking from the end.
const LINE: usize = 33;

#[derive(Debug, Clone, Default)]
pub struct Seen {
    set: HashSet<u128>,
    order: VecDeque<u128>,
    /// Keys handled since the file was last written.
    pending: Vec<u128>,
    /// Rebuilt from the journal: the file is written anew at the next save.
    fresh: bool,
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

    fn remember(&mut self, d: u128) {
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

    /// The file's last keys, when it is at least `expected` bytes long (the
    /// length the tip recorded); `None` when it is shorter or missing while
    /// keys were expected, or when no length was recorded (an older tip):
    /// then the journal must be read.
    pub fn read(path: &Path, expected: Option<u64>) -> Option<Seen> {
        let expected = expected?;
        let mut f = match fs::File::open(path) {
            Ok(f) => f,
            Err(_) if expected == 0 => return Some(Seen::default()),
            Err(_) => return None,
        };
        let len = f.metadata().ok()?.len();
        if len < expected || expected % LINE as u64 != 0 {
            return None;
        }
        // Only what the tip vouches for: a longer file is a save whose tip
        // never landed, and its keys are the journal's anyway.
        let start = expected.saturating_sub((WINDOW * LINE) as u64);
        f.seek(SeekFrom::Start(start)).ok()?;
        let mut buf = vec![0; (expected - start) as usize];
        f.read_exact(&mut buf).ok()?;
        let mut s = Seen::default();
        for line in buf.chunks(LINE) {
            let text = std::str::from_utf8(line).ok()?;
            let (d, nl) = text.split_at(LINE - 1);
            if nl != "\n" {
                return None;
            }
            s.remember(u128::from_str_radix(d, 16).ok()?);
        }
        Some(s)
    }

    /// Append the keys handled since the last save (or write them all,
    /// after a rebuild); the file's new length.
    pub fn save(&mut self, path: &Path) -> std::io::Result<u64> {
        let mut text = String::with_capacity(self.pending.len() * LINE);
        for d in &self.pending {
            use std::fmt::Write as _;
            let _ = writeln!(text, "{d:032x}");
        }
        if std::mem::take(&mut self.fresh) {
            crate::journal::write_replace(path, text.as_bytes())?;
        } else if !text.is_empty() {
            let mut f = fs::OpenOptions::new().create(true).append(true).open(path)?;
            f.write_all(text.as_bytes())?;
        }
        self.pending.clear();
        Ok(fs::metadata(path).map(|m| m.len()).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_survive_a_save_and_only_the_window_is_held() {
        let dir = std::env::temp_dir().join(format!("adjutant-seen-{}", std::process::id()));
        let _ = fs::create_dir_all(&dir);
        let p = dir.join("seen");
        let mut s = Seen::from_keys(["a", "mid:x"].into_iter());
        let len = s.save(&p).unwrap();
        assert_eq!(len, 2 * LINE as u64);
        for i in 0..WINDOW {
            s.insert(&format!("k{i}"));
        }
        let len = s.save(&p).unwrap();
        let back = Seen::read(&p, Some(len)).unwrap();
        assert!(back.contains("k0") && back.contains(&format!("k{}", WINDOW - 1)));
        assert!(!back.contains("a"), "older than the window");
        assert_eq!(back.order.len(), WINDOW);
        // A file shorter than the tip says, or no length at all: rebuild.
        assert!(Seen::read(&p, Some(len + LINE as u64)).is_none());
        assert!(Seen::read(&p, None).is_none());
        assert!(Seen::read(&dir.join("none"), Some(0)).is_some());
        // A torn line is not taken.
        fs::write(&p, b"abc\n").unwrap();
        assert!(Seen::read(&p, Some(4)).is_none());
        let _ = fs::remove_dir_all(&dir);
    }
}
