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

pub use super::core::seen::{keys, recorded, Seen, WINDOW};
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The file's name in the game folder.
pub const FILE: &str = "seen";

/// 32 hex digits (128 bits of SHA-256) and a newline: fixed width, so the
/// last keys are read by seeking from the end.
const LINE: usize = 33;

impl Seen {
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
