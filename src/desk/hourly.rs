//! Counts per address over the last hour (replies to a player, refusals to
//! a sender), for the limits in `[limits]`. Loaded once a pass and written
//! when the pass's batch is committed, so a pass that fails and is tried
//! again does not count its replies twice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where an address stands against an hourly limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quota {
    Within,
    /// The first one past the limit: a notice instead.
    JustOver,
    /// Past it: nothing, and nothing more counted, so the hour runs out
    /// from what was sent.
    Over,
}

/// One counter, kept in a TOML file: address → times (Unix seconds).
pub struct Hourly {
    path: PathBuf,
    times: BTreeMap<String, Vec<i64>>,
    dirty: bool,
}

impl Hourly {
    pub fn load(path: &Path) -> Hourly {
        let mut times: BTreeMap<String, Vec<i64>> =
            std::fs::read_to_string(path).ok().and_then(|t| toml::from_str(&t).ok()).unwrap_or_default();
        // In order, as `count` keeps them (a file edited by hand may not be).
        times.values_mut().for_each(|v| v.sort_unstable());
        Hourly { path: path.to_path_buf(), times, dirty: false }
    }

    /// Count one more for `key` at time `t` against `limit`.
    pub fn count(&mut self, key: &str, t: i64, limit: u32) -> Quota {
        self.dirty = true;
        // Only this address's hour is brought up to date here (a pass with
        // mail from many players must not sweep them all for each mail);
        // the others are swept when the counts are saved.
        let v = self.times.entry(key.to_lowercase()).or_default();
        // Times are kept in order, so the hour's start is found, not swept
        // for: a flood of mail from one address costs no more a mail.
        let from = v.partition_point(|&x| t - x >= 3600);
        v.drain(..from);
        let limit = limit as usize;
        if v.len() > limit {
            return Quota::Over;
        }
        let at = v.partition_point(|&x| x <= t);
        v.insert(at, t);
        if v.len() > limit {
            Quota::JustOver
        } else {
            Quota::Within
        }
    }

    /// Write it back (renamed into place, no fsync: a count lost with the
    /// power is harmless, and a flood must not cost a disk sync a mail).
    pub fn save(&mut self) {
        if self.dirty {
            if let Some(t) = self.times.values().flatten().max().copied() {
                self.times.retain(|_, v| {
                    v.retain(|&x| t - x < 3600);
                    !v.is_empty()
                });
            }
            let text = toml::to_string(&self.times).unwrap_or_default();
            let _ = crate::journal::write_replace(&self.path, text.as_bytes());
            self.dirty = false;
        }
    }
}

/// The pass's counters, loaded when first needed.
pub struct Counts {
    pub replies: Hourly,
    pub refusals: Hourly,
}

impl Counts {
    pub fn of<'a>(slot: &'a mut Option<Counts>, data: &Path) -> &'a mut Counts {
        slot.get_or_insert_with(|| Counts {
            replies: Hourly::load(&data.join("desk/replies.toml")),
            refusals: Hourly::load(&data.join("desk/refusals.toml")),
        })
    }

    pub fn save(&mut self) {
        self.replies.save();
        self.refusals.save();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_notice_past_the_limit_then_nothing_counted_until_the_hour_is_over() {
        let p = std::env::temp_dir().join(format!("adjutant-hourly-{}.toml", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let mut h = Hourly::load(&p);
        assert_eq!(h.count("A@x", 0, 2), Quota::Within);
        assert_eq!(h.count("a@x", 10, 2), Quota::Within);
        assert_eq!(h.count("a@x", 20, 2), Quota::JustOver);
        assert_eq!(h.count("a@x", 30, 2), Quota::Over);
        assert_eq!(h.count("b@x", 30, 2), Quota::Within);
        // Not saved: a pass that fails counts nothing.
        assert_eq!(Hourly::load(&p).count("a@x", 40, 2), Quota::Within);
        h.save();
        let mut h = Hourly::load(&p);
        assert_eq!(h.count("a@x", 3599, 2), Quota::Over);
        // The first two have aged out; the third was the notice.
        assert_eq!(h.count("a@x", 3615, 2), Quota::Within);
        let _ = std::fs::remove_file(&p);
    }
}
