//! When a step's deadline falls: a length per kind of step, or the next
//! allowed weekday at a fixed clock time in the game's zone, pushed past a
//! player's announced absence when the policy says so; and how a deadline
//! reads in a player's own time zone. Pure functions of their arguments.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;

pub use crate::config::Deadlines as Policy;

/// "72h", "3d", "90m", "45s", "2w", or a bare number of hours.
pub fn duration(s: &str) -> Option<Duration> {
    super::state::parse_duration(s).map(Duration::seconds)
}

fn weekday(s: &str) -> Option<Weekday> {
    match s.to_lowercase().get(..3)? {
        "mon" => Some(Weekday::Mon),
        "tue" => Some(Weekday::Tue),
        "wed" => Some(Weekday::Wed),
        "thu" => Some(Weekday::Thu),
        "fri" => Some(Weekday::Fri),
        "sat" => Some(Weekday::Sat),
        "sun" => Some(Weekday::Sun),
        _ => None,
    }
}

impl Policy {
    /// Check the policy once, so a typo is reported when the desk starts.
    pub fn validate(&self) -> Result<(), String> {
        for (k, v) in self.kinds.iter().map(|(k, v)| (k.as_str(), v)).chain(self.default.iter().map(|v| ("default", v)))
        {
            duration(v).ok_or_else(|| format!("[deadlines] {k} = {v:?}: write a length such as 72h, 3d or 90m"))?;
        }
        for (k, v) in [("grace", &self.grace), ("reminder", &self.reminder), ("early_delay", &self.early_delay)] {
            if let Some(v) = v {
                if v.trim() != "0" && duration(v).is_none() {
                    return Err(format!("[deadlines] {k} = {v:?}: write a length such as 1h or 30m"));
                }
            }
        }
        if let Some(c) = &self.clock {
            NaiveTime::parse_from_str(c, "%H:%M").map_err(|_| format!("[deadlines] clock = {c:?}: write HH:MM"))?;
        }
        for d in &self.weekdays {
            weekday(d).ok_or_else(|| format!("[deadlines] weekdays: {d:?} is not a day (mon, tue, ...)"))?;
        }
        self.zone
            .parse::<Tz>()
            .map_err(|_| format!("[deadlines] zone = {:?}: not an IANA zone such as Europe/Rome", self.zone))?;
        if !["extend", "no-moves"].contains(&self.absent.as_str()) {
            return Err(format!("[deadlines] absent = {:?}: \"extend\" or \"no-moves\"", self.absent));
        }
        Ok(())
    }

    /// The length of a step of `kind`, the game's own length overriding the
    /// policy's default.
    pub fn length(&self, kind: &str, game_default: Option<i64>) -> Option<Duration> {
        if let Some(d) = self.kinds.get(kind).and_then(|v| duration(v)) {
            return Some(d);
        }
        game_default.map(Duration::seconds).or_else(|| self.default.as_deref().and_then(duration))
    }

    /// When a step of `kind` opened at `now` is due; None: no deadline.
    /// `absences` are the awaited roles' announced absences (first and
    /// last day, in UTC dates).
    pub fn deadline(
        &self,
        now: DateTime<Utc>,
        kind: &str,
        game_default: Option<i64>,
        absences: &[(NaiveDate, NaiveDate)],
    ) -> Option<DateTime<Utc>> {
        let len = self.length(kind, game_default)?;
        let mut at = now + len;
        if let Some(c) = self.clock.as_deref().and_then(|c| NaiveTime::parse_from_str(c, "%H:%M").ok()) {
            let tz: Tz = self.zone.parse().unwrap_or(Tz::UTC);
            let days: Vec<Weekday> = self.weekdays.iter().filter_map(|d| weekday(d)).collect();
            let local = at.with_timezone(&tz);
            let mut date = local.date_naive();
            // The first allowed day whose clock time is not before `at`.
            for _ in 0..15 {
                let allowed = days.is_empty() || days.contains(&date.weekday());
                // A clock time that does not exist that day (spring
                // forward) takes the next moment that does.
                let candidate = tz
                    .from_local_datetime(&date.and_time(c))
                    .earliest()
                    .or_else(|| tz.from_local_datetime(&(date.and_time(c) + Duration::hours(1))).earliest());
                if let Some(cand) = candidate {
                    if allowed && cand.with_timezone(&Utc) >= at {
                        at = cand.with_timezone(&Utc);
                        break;
                    }
                }
                date = date.succ_opt()?;
            }
        }
        if self.absent == "extend" {
            for (from, to) in absences {
                if at.date_naive() >= *from && at.date_naive() <= *to {
                    at = to.succ_opt()?.and_hms_opt(12, 0, 0)?.and_utc();
                }
            }
        }
        Some(at)
    }

    pub fn grace(&self) -> Duration {
        self.grace.as_deref().and_then(duration).unwrap_or_else(Duration::zero)
    }

    pub fn reminder(&self) -> Option<Duration> {
        self.reminder.as_deref().and_then(duration)
    }

    pub fn early_delay(&self) -> Option<Duration> {
        self.early_delay.as_deref().and_then(duration)
    }
}

/// A deadline as a player in `zone` reads it, with UTC beside it.
pub fn show(at: &str, zone: Option<&str>) -> String {
    let Ok(t) = DateTime::parse_from_rfc3339(at) else { return at.to_string() };
    let utc = t.with_timezone(&Utc);
    match zone.and_then(|z| z.parse::<Tz>().ok()).filter(|tz| *tz != Tz::UTC) {
        Some(tz) => format!("{} ({})", utc.with_timezone(&tz).format("%a %d %b %Y %H:%M %Z"), utc.format("%H:%M UTC")),
        None => utc.format("%a %d %b %Y %H:%M UTC").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn lengths_per_kind_and_default() {
        let p = Policy { kinds: [("setup".to_string(), "7d".to_string())].into(), ..Policy::default() };
        assert_eq!(p.deadline(t("2026-03-01T12:00:00Z"), "setup", Some(3600), &[]), Some(t("2026-03-08T12:00:00Z")));
        assert_eq!(p.deadline(t("2026-03-01T12:00:00Z"), "turn", Some(3600), &[]), Some(t("2026-03-01T13:00:00Z")));
        assert_eq!(p.deadline(t("2026-03-01T12:00:00Z"), "turn", None, &[]), None);
    }

    #[test]
    fn clock_time_on_weekdays_across_daylight_saving() {
        // Rome changes to summer time on Sunday 29 March 2026.
        let p = Policy {
            default: Some("24h".into()),
            clock: Some("20:00".into()),
            weekdays: vec!["mon".into(), "fri".into()],
            zone: "Europe/Rome".into(),
            ..Policy::default()
        };
        // Opened Thu 26 March 10:00 UTC: +24h is Fri 27 10:00 UTC; Friday
        // 20:00 in Rome is 19:00 UTC (winter time).
        assert_eq!(p.deadline(t("2026-03-26T10:00:00Z"), "turn", None, &[]), Some(t("2026-03-27T19:00:00Z")));
        // Opened Sat 28 March: next allowed day is Monday 30, 20:00 summer
        // time = 18:00 UTC.
        assert_eq!(p.deadline(t("2026-03-28T10:00:00Z"), "turn", None, &[]), Some(t("2026-03-30T18:00:00Z")));
        assert_eq!(show("2026-03-30T18:00:00+00:00", Some("Europe/Rome")), "Mon 30 Mar 2026 20:00 CEST (18:00 UTC)");
    }

    #[test]
    fn absences_extend_or_not() {
        let away = [(NaiveDate::from_ymd_opt(2026, 3, 2).unwrap(), NaiveDate::from_ymd_opt(2026, 3, 9).unwrap())];
        let p = Policy { default: Some("72h".into()), ..Policy::default() };
        assert_eq!(p.deadline(t("2026-03-01T12:00:00Z"), "turn", None, &away), Some(t("2026-03-10T12:00:00Z")));
        let q = Policy { absent: "no-moves".into(), ..p };
        assert_eq!(q.deadline(t("2026-03-01T12:00:00Z"), "turn", None, &away), Some(t("2026-03-04T12:00:00Z")));
        assert!(Policy { zone: "Mars/Olympus".into(), ..Policy::default() }.validate().is_err());
    }
}
