//! The tips index: every game's deadline facts as its tip said them, with
//! what identified that tip on disk, in one small file per data folder, so
//! that a cold pass (`run --once` from cron, a restarted daemon) learns
//! which games are due from one read and a `stat` of each tip and journal,
//! as a warm daemon does from memory, instead of reading every tip.
//!
//! The index is a cache, never the truth: an entry counts only while the
//! tip and journal it names are still the ones on disk (a changed game, by
//! this process or another, reads its tip again), a line that does not
//! read is skipped, and a missing or damaged index is rebuilt by the next
//! pass. It is written whole and renamed into place, like the tips.

use super::store::{tip_path, Due};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What identifies one version of a tip: its inode, time and length, and
/// its journal's length.
pub type TipKey = (u64, SystemTime, u64, u64);

/// Each game's tip key and deadline facts (`None`: a tip without them).
pub type Tips = HashMap<String, (TipKey, Option<Due>)>;

const HEADER: &str = "adjutant tips index 1";

/// Where the index lives: beside the tips it indexes.
pub fn path(data: &Path) -> PathBuf {
    tip_path(data, "x").with_file_name("tips.index")
}

/// The index as last written; empty if it is missing or from another
/// version.
pub fn read(data: &Path) -> Tips {
    let Ok(text) = std::fs::read_to_string(path(data)) else { return Tips::new() };
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Tips::new();
    }
    lines.filter_map(entry).collect()
}

/// Write the index of `ids` (the games in the folder) from `tips`.
pub fn write(data: &Path, tips: &Tips, ids: &[String]) -> std::io::Result<()> {
    let mut out = String::with_capacity(64 + ids.len() * 96);
    out.push_str(HEADER);
    out.push('\n');
    for id in ids {
        if let Some((key, due)) = tips.get(id) {
            out.push_str(&line(id, key, due.as_ref()));
            out.push('\n');
        }
    }
    crate::journal::write_atomic(&path(data), out.as_bytes(), Some(0o600))
}

/// `id ino secs nanos tip-length journal-length`, then the deadline facts
/// (`ended paused step reminded deadline resolve`, `-` for none) or `-`,
/// then `.`, tab-separated (game ids and RFC 3339 times hold no tab): a
/// line cut short lacks its last field and is skipped, never misread.
fn line(id: &str, key: &TipKey, due: Option<&Due>) -> String {
    let t = key.1.duration_since(UNIX_EPOCH).unwrap_or_default();
    let mut f = vec![id.to_string(), key.0.to_string(), t.as_secs().to_string(), t.subsec_nanos().to_string()];
    f.push(key.2.to_string());
    f.push(key.3.to_string());
    match due {
        None => f.push("-".into()),
        Some(d) => {
            let opt = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
            f.extend([u8::from(d.ended).to_string(), u8::from(d.paused).to_string()]);
            f.extend([d.step.to_string(), d.reminded.to_string(), opt(&d.deadline_at), opt(&d.resolve_at)]);
        }
    }
    f.push(".".into());
    f.join("\t")
}

fn entry(l: &str) -> Option<(String, (TipKey, Option<Due>))> {
    let mut f: Vec<&str> = l.split('\t').collect();
    if f.pop() != Some(".") {
        return None;
    }
    let n = |i: usize| f.get(i)?.parse::<u64>().ok();
    let time = UNIX_EPOCH.checked_add(Duration::new(n(2)?, u32::try_from(n(3)?).ok()?))?;
    let key = (n(1)?, time, n(4)?, n(5)?);
    let due = match f.len() {
        7 if f[6] == "-" => None,
        12 => {
            let flag = |i: usize| match f[i] {
                "0" => Some(false),
                "1" => Some(true),
                _ => None,
            };
            let opt = |i: usize| (f[i] != "-").then(|| f[i].to_string());
            let small = |i: usize| f[i].parse::<u32>().ok();
            Some(Due {
                ended: flag(6)?,
                paused: flag(7)?,
                step: small(8)?,
                reminded: small(9)?,
                deadline_at: opt(10),
                resolve_at: opt(11),
            })
        }
        _ => return None,
    };
    (!f[0].is_empty()).then(|| (f[0].to_string(), (key, due)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_as_written_and_a_damaged_line_is_skipped() {
        let key = (42, UNIX_EPOCH + Duration::new(1_790_000_000, 123_456_789), 310, 9_000);
        let due = Due {
            ended: false,
            paused: true,
            step: 7,
            reminded: 6,
            deadline_at: Some("2026-12-06T10:00:00+00:00".into()),
            resolve_at: None,
        };
        for d in [Some(due), None] {
            let l = line("g1", &key, d.as_ref());
            assert_eq!(entry(&l), Some(("g1".to_string(), (key, d.clone()))), "{l}");
            // Cut short anywhere, it is skipped, never misread.
            for cut in 0..l.len() {
                assert_eq!(entry(&l[..cut]), None, "{:?}", &l[..cut]);
            }
        }
    }
}
