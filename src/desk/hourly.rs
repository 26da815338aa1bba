//! The hourly counts' files (`DATA/desk/replies.toml`, `refusals.toml`):
//! loaded once a pass, written when the pass's batch is committed, so a
//! pass that fails and is tried again does not count its replies twice.

pub use super::core::hourly::{Counts, Hourly, Quota};
use std::collections::BTreeMap;
use std::path::Path;

/// The counters of the data folder `data`.
pub fn load(data: &Path) -> Counts {
    Counts { replies: read(&data.join("desk/replies.toml")), refusals: read(&data.join("desk/refusals.toml")) }
}

fn read(path: &Path) -> Hourly {
    let mut times: BTreeMap<String, Vec<i64>> =
        std::fs::read_to_string(path).ok().and_then(|t| toml::from_str(&t).ok()).unwrap_or_default();
    // In order, as `count` keeps them (a file edited by hand may not be).
    times.values_mut().for_each(|v| v.sort_unstable());
    Hourly { times, dirty: false }
}

/// Write them back (renamed into place, no fsync: a count lost with the
/// power is harmless, and a flood must not cost a disk sync a mail).
pub fn save(counts: &mut Counts, data: &Path) {
    for (h, name) in [(&mut counts.replies, "desk/replies.toml"), (&mut counts.refusals, "desk/refusals.toml")] {
        if h.dirty {
            h.sweep();
            let text = toml::to_string(&h.times).unwrap_or_default();
            let _ = crate::journal::write_replace(&data.join(name), text.as_bytes());
            h.dirty = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_notice_past_the_limit_then_nothing_counted_until_the_hour_is_over() {
        let dir = std::env::temp_dir().join(format!("adjutant-hourly-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("desk")).unwrap();
        let mut c = load(&dir);
        let h = &mut c.replies;
        assert_eq!(h.count("A@x", 0, 2), Quota::Within);
        assert_eq!(h.count("a@x", 10, 2), Quota::Within);
        assert_eq!(h.count("a@x", 20, 2), Quota::JustOver);
        assert_eq!(h.count("a@x", 30, 2), Quota::Over);
        assert_eq!(h.count("b@x", 30, 2), Quota::Within);
        // Not saved: a pass that fails counts nothing.
        assert_eq!(load(&dir).replies.count("a@x", 40, 2), Quota::Within);
        save(&mut c, &dir);
        let mut c = load(&dir);
        assert_eq!(c.replies.count("a@x", 3599, 2), Quota::Over);
        // The first two have aged out; the third was the notice.
        assert_eq!(c.replies.count("a@x", 3615, 2), Quota::Within);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
