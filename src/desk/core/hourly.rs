//! Counts per address over the last hour (replies to a player, refusals to
//! a sender), for the limits in `[limits]`. The shell loads them once a
//! pass and writes them when the pass's batch is committed
//! (`desk/hourly.rs`), so a pass that fails and is tried again does not
//! count its replies twice.

use std::collections::BTreeMap;

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

/// One counter: address → times (Unix seconds), in order.
#[derive(Debug, Default)]
pub struct Hourly {
    pub times: BTreeMap<String, Vec<i64>>,
    /// Counted since it was last written.
    pub dirty: bool,
}

impl Hourly {
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

    /// Forget what is older than an hour before the latest time counted.
    pub fn sweep(&mut self) {
        if let Some(t) = self.times.values().flatten().max().copied() {
            self.times.retain(|_, v| {
                v.retain(|&x| t - x < 3600);
                !v.is_empty()
            });
        }
    }
}

/// The pass's counters.
#[derive(Debug, Default)]
pub struct Counts {
    pub replies: Hourly,
    pub refusals: Hourly,
}
