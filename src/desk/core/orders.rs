//! Reading a mail's lines: the desk's own commands (HELP, STATUS, VIEW,
//! SALT, PRESS, RESIGN, ZONE, ABSENT, DRAW, NO DRAW, CONCEDE, HISTORY; the
//! moderator's EXTEND, PAUSE, RESUME, REPLACE, RESOLVE NOW, END, DECLARE,
//! REANCHOR, ROLLBACK, REMOVE OBSERVER), what ends the reading, how a line
//! is quoted back, and where a mail names its game.

use super::{state, GameState};
use crate::dice;
use crate::engine::LineError;
use crate::mail::{parse, split_address};
use crate::rules::shared::names;

/// A general or moderator command found among the lines of a message.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Command {
    Help,
    Status,
    View,
    Salt(String),
    Press {
        to: String,
        text: String,
    },
    Resign,
    Extend(i64),
    Pause,
    Resume,
    Replace {
        role: String,
        email: String,
    },
    ResolveNow,
    /// END, or END <winning role> [reason].
    End {
        winner: Option<String>,
        reason: Option<String>,
    },
    Declare {
        label: String,
        values: Vec<u32>,
    },
    /// The player's time zone, for showing deadlines.
    Zone(String),
    /// An announced absence, first and last day.
    Absent(String, String),
    /// REANCHOR for a game that is not held (a held game's is read before
    /// it is loaded, in held.rs): nothing to do, and said so.
    Reanchor,
    /// ROLLBACK <step> <reason>: back to the moment that step opened.
    Rollback {
        step: u32,
        reason: String,
    },
    /// DRAW: the player's side agrees to a draw (for the open step).
    Draw,
    /// NO DRAW: the agreement withdrawn.
    NoDraw,
    /// CONCEDE: the player's side gives up.
    Concede,
    /// HISTORY <from>[-<to>]: the player's own view of those steps'
    /// results again.
    History(u32, u32),
    /// The moderator's REMOVE OBSERVER <address>.
    RemoveObserver(String),
    /// MAPS PNG|SVG|BOTH|NONE: the maps the sender's letters carry.
    Maps(String),
    /// The moderator's APPROVE (true) or REFUSE of a waiting JOIN.
    Approve(String, bool),
}

/// How many steps one HISTORY may ask for.
pub(super) const HISTORY_STEPS: u32 = 10;

pub(super) const MODERATOR_WORDS: &[&str] = &[
    "EXTEND", "PAUSE", "RESUME", "REPLACE", "RESOLVE", "END", "DECLARE", "REANCHOR", "ROLLBACK", "REMOVE", "APPROVE",
    "REFUSE",
];

/// The commands anyone may send (the moderator's are above).
pub(super) const PLAYER_WORDS: &[&str] =
    &["HELP", "STATUS", "VIEW", "SALT", "PRESS", "RESIGN", "ZONE", "ABSENT", "DRAW", "CONCEDE", "HISTORY", "MAPS"];

/// A line that ends what is read of a message (like a judge's SIGNOFF):
/// `END ORDERS`, or a bare `END` from a player (the moderator's bare `END`
/// ends the game).
pub(super) fn stops_reading(role: &str, text: &str) -> bool {
    let f = names::fold(text);
    f == "end orders" || (f == "end" && role != "gm")
}

/// The most of a player's line a reply quotes (or the journal keeps).
pub(super) const QUOTED: usize = 200;

/// No order or command is longer than this; a longer line is refused
/// unread (a megabyte line is no order, and reading it as one costs).
pub(super) const LONGEST_LINE: usize = 10_000;

/// A line as quoted back: at most [`QUOTED`] characters, and how many more
/// there were, so that a reply stays small whatever it answers.
pub(super) fn clip(text: &str) -> String {
    match text.char_indices().nth(QUOTED) {
        None => text.to_string(),
        Some((i, _)) => format!("{}… ({} more characters)", &text[..i], text[i..].chars().count()),
    }
}

/// A problem as quoted back and journaled: the line, the reason and the
/// suggestion clipped (a ruleset's reason may quote the player's word).
pub(super) fn clipped(e: LineError) -> LineError {
    LineError {
        line: e.line,
        text: clip(&e.text),
        reason: clip(&e.reason),
        suggestion: e.suggestion.as_deref().map(clip),
    }
}

pub(super) fn problem(line: usize, text: &str, reason: impl Into<String>, suggestion: Option<&str>) -> LineError {
    LineError { line, text: text.to_string(), reason: reason.into(), suggestion: suggestion.map(str::to_string) }
}

/// Read a command line, if it is one. `Err` is a command written wrongly.
pub(super) fn command(l: &GameState, role: &str, n: usize, text: &str) -> Option<Result<Command, LineError>> {
    let (word, rest) = match text.split_once(char::is_whitespace) {
        Some((w, r)) => (w.to_uppercase(), r.trim()),
        None => (text.to_uppercase(), ""),
    };
    let err = |reason: String, hint: &str| Some(Err(problem(n, text, reason, Some(hint))));
    let gm = role == "gm";
    let c = match word.as_str() {
        "HELP" => Command::Help,
        "STATUS" => Command::Status,
        "ZONE" => match rest.parse::<chrono_tz::Tz>() {
            Ok(_) => Command::Zone(rest.to_string()),
            Err(_) => {
                return err(
                    format!("{rest:?} is not a time zone"),
                    "an IANA name, e.g. ZONE Europe/Rome or ZONE America/New_York",
                )
            }
        },
        "ABSENT" => {
            let mut it = rest.split_whitespace();
            let d = |x: Option<&str>| x.and_then(|v| chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d").ok());
            match (d(it.next()), d(it.next())) {
                (Some(f), Some(t)) if f <= t && (t - f).num_days() <= 60 => {
                    Command::Absent(f.to_string(), t.to_string())
                }
                _ => {
                    return err(
                        "ABSENT needs the first and the last day away, in that order, at most 60 days apart".into(),
                        "ABSENT 2026-08-01 2026-08-15",
                    )
                }
            }
        }
        "VIEW" => Command::View,
        "MAPS" => match rest.to_lowercase().as_str() {
            m if crate::config::MAPS.contains(&m) => Command::Maps(m.to_string()),
            _ => return err(
                "MAPS takes PNG (a picture every client shows), SVG (the drawing, to zoom), BOTH, or NONE (text only)"
                    .into(),
                "MAPS PNG",
            ),
        },
        "DRAW" if rest.is_empty() && !gm => Command::Draw,
        "NO" if names::fold(rest) == "draw" && !gm => Command::NoDraw,
        "CONCEDE" if rest.is_empty() && !gm => Command::Concede,
        "HISTORY" => {
            let (a, b) = rest.split_once('-').unwrap_or((rest, rest));
            match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                (Ok(a), Ok(b)) if a >= 1 && a <= b && b - a < HISTORY_STEPS && b < l.game.step => {
                    Command::History(a, b)
                }
                (Ok(a), Ok(b)) if a >= 1 && a <= b && b - a < HISTORY_STEPS => {
                    return err(
                        format!("step {b} has not been resolved yet; the game is at step {}", l.game.step),
                        "HISTORY 1, or HISTORY 2-4",
                    )
                }
                _ => {
                    return err(
                        format!("HISTORY takes a step, or two steps a-b at most {HISTORY_STEPS} apart"),
                        "HISTORY 1, or HISTORY 2-4",
                    )
                }
            }
        }
        // A REF line only carries the credential; it is read elsewhere.
        "REF" => return Some(Ok(Command::Status)).filter(|_| false),
        "SALT" => {
            if rest.is_empty()
                || rest.chars().count() > 64
                || rest.chars().any(|c| c.is_control() || !(c.is_ascii_graphic() || c == ' '))
            {
                return err("a salt is 1 to 64 printable ASCII characters".into(), "SALT any-text-you-like-42");
            }
            Command::Salt(rest.to_string())
        }
        "PRESS" => {
            let (to, msg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let to_l = to.to_lowercase();
            let ok = to_l == "all" || to_l == "gm" || l.game.roles.contains(&to_l);
            if !ok || msg.trim().is_empty() {
                return err(
                    format!("PRESS needs a recipient ({}, gm or ALL) and a text", l.game.roles.join(", ")),
                    "PRESS ALL Greetings from Vienna",
                );
            }
            // The scenario's word on who may talk (Tacticum X's partners).
            if let Err(p) = l.game.press_allowed(role, &to_l) {
                return Some(Err(problem(n, text, p.reason, p.suggestion.as_deref())));
            }
            Command::Press { to: to_l, text: msg.trim().to_string() }
        }
        "RESIGN" if !gm => Command::Resign,
        "ROLLBACK" if !gm => {
            return err(
                "only the game's moderator may roll the game back".into(),
                "ask the moderator, or send PRESS gm <what went wrong>",
            )
        }
        w if gm && MODERATOR_WORDS.contains(&w) => match moderator_command(l, n, text, w, rest) {
            Ok(c) => c,
            // A line no desk command reads may be the ruleset's own order
            // when the open step awaits the moderator (Leaguer's
            // `RESOLVE garrison -2`): the ruleset then judges it.
            Err(_) if l.game.awaits("gm") => return None,
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    Some(Ok(c))
}

/// One of the desk's moderator commands (`w` is in [`MODERATOR_WORDS`]).
pub(super) fn moderator_command(
    l: &GameState,
    n: usize,
    text: &str,
    w: &str,
    rest: &str,
) -> Result<Command, LineError> {
    let err = |reason: String, hint: &str| Err(problem(n, text, reason, Some(hint)));
    Ok(match w {
        "EXTEND" => match state::parse_duration(rest) {
            Some(s) => Command::Extend(s),
            None => return err(format!("cannot read the duration {rest:?}"), "EXTEND 24h"),
        },
        "PAUSE" => Command::Pause,
        "RESUME" => Command::Resume,
        "REANCHOR" => Command::Reanchor,
        "APPROVE" | "REFUSE" if rest.parse::<lettre::Address>().is_ok() => {
            Command::Approve(rest.to_string(), w == "APPROVE")
        }
        "APPROVE" | "REFUSE" => {
            return err(format!("{w} takes the address that asked to join"), "APPROVE dave@example.org")
        }
        "REMOVE" => match rest.split_once(char::is_whitespace) {
            Some((w, a)) if w.eq_ignore_ascii_case("observer") && a.trim().parse::<lettre::Address>().is_ok() => {
                Command::RemoveObserver(a.trim().to_string())
            }
            _ => return err("REMOVE OBSERVER takes an observer's address".into(), "REMOVE OBSERVER erin@example.org"),
        },
        "ROLLBACK" => {
            let (k, why) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            match k.parse::<u32>() {
                Ok(step) if step >= 1 && !why.trim().is_empty() => {
                    Command::Rollback { step, reason: why.trim().to_string() }
                }
                Ok(_) if why.trim().is_empty() => {
                    return err(
                        "ROLLBACK needs a reason, which every player is told".into(),
                        "ROLLBACK 2 the hits were 2, not 5",
                    )
                }
                _ => {
                    return err(
                        format!("ROLLBACK needs the step to go back to (1 to {}) and a reason", l.game.step),
                        "ROLLBACK 2 the hits were 2, not 5",
                    )
                }
            }
        }
        "REPLACE" => {
            let mut it = rest.split_whitespace();
            match (it.next(), it.next()) {
                (Some(r), Some(e))
                    if l.game.roles.contains(&r.to_lowercase()) && e.eq_ignore_ascii_case("adjutant") =>
                {
                    Command::Replace { role: r.to_lowercase(), email: super::computer::ADJUTANT.to_string() }
                }
                (Some(r), Some(e))
                    if l.game.roles.contains(&r.to_lowercase()) && e.parse::<lettre::Address>().is_ok() =>
                {
                    Command::Replace { role: r.to_lowercase(), email: e.to_string() }
                }
                _ => {
                    return err(
                        format!(
                            "REPLACE needs a role ({}) and an e-mail address, or ADJUTANT for the computer player",
                            l.game.roles.join(", ")
                        ),
                        "REPLACE france new.player@example.org",
                    )
                }
            }
        }
        "RESOLVE" if rest.eq_ignore_ascii_case("now") => Command::ResolveNow,
        "RESOLVE" => return err("RESOLVE NOW forces the open step to resolve".into(), "RESOLVE NOW"),
        "END" if rest.is_empty() => Command::End { winner: None, reason: None },
        "END" => {
            let (w, why) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let w = w.to_lowercase();
            if !l.game.roles.contains(&w) {
                return err(
                    format!("END takes nothing, or the winning role ({}) and a reason", l.game.roles.join(", ")),
                    "END garrison the Besiegers abandon the siege",
                );
            }
            let why = why.trim();
            Command::End { winner: Some(w), reason: (!why.is_empty()).then(|| why.to_string()) }
        }
        "DECLARE" => {
            let (label, v) = rest.rsplit_once(char::is_whitespace).unwrap_or(("", rest));
            let values: Option<Vec<u32>> = v.split(',').map(|x| x.trim().parse().ok()).collect();
            match values {
                Some(values)
                    if !label.trim().is_empty() && !values.is_empty() && l.desk.dice == dice::Mode::Declared =>
                {
                    Command::Declare { label: label.trim().to_string(), values }
                }
                _ if l.desk.dice != dice::Mode::Declared => {
                    return err(
                        "this game's dice are committed, not declared".into(),
                        "DECLARE is for games created with --dice declared",
                    )
                }
                _ => {
                    return err(
                        "DECLARE needs a label and a value (or values separated by commas)".into(),
                        "DECLARE escape roll 4",
                    )
                }
            }
        }
        _ => unreachable!("listed in MODERATOR_WORDS"),
    })
}

/// The step a reply's subject names, as our subjects write it:
/// `[<game>] step <k>...`.
pub fn replied_step(subject: &str, game: &str) -> Option<u32> {
    let tag = format!("[{game}]");
    let rest = &subject[subject.find(&tag)? + tag.len()..];
    let rest = rest.trim_start().strip_prefix("step ")?;
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// A line without the list marker a player may put before an order
/// ("1.", "2)", "-", "*", "•").
pub(super) fn unlisted(text: &str) -> String {
    let t = text.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if digits > 0 && digits < 4 && t[digits..].starts_with(['.', ')']) {
        &t[digits + 1..]
    } else if let Some(r) = t.strip_prefix(['-', '*', '•']) {
        r
    } else {
        return text.to_string();
    };
    if rest.starts_with(char::is_whitespace) {
        rest.trim().to_string()
    } else {
        text.to_string()
    }
}

/// The subject of a reply: "Re: " and the first 200 characters of the
/// original's (a megabyte subject is not echoed back).
pub(super) fn re(subject: &str) -> String {
    let s: String = subject.chars().filter(|c| !c.is_control()).take(200).collect();
    format!("Re: {s}")
}

/// The step one of our Message-IDs was sent at: `<game>.<seq>-<tag>.<n>.s<k>@…`.
pub(super) fn step_of_id(id: &str, game: &str) -> Option<u32> {
    let local = id.trim().trim_matches(['<', '>']).split('@').next()?;
    let rest = local.strip_prefix(game)?.strip_prefix('.')?;
    let parts: Vec<&str> = rest.split('.').collect();
    match parts.as_slice() {
        [_, _, s] => s.strip_prefix('s')?.parse().ok(),
        _ => None,
    }
}

/// Find `<game>.<token>` in the recipients' `+detail`, or a `REF` in the
/// subject or body.
pub(super) fn credential(inb: &parse::Inbound) -> Option<(String, String)> {
    let split = |s: &str| s.trim().rsplit_once('.').map(|(g, t)| (g.to_lowercase(), t.to_lowercase()));
    for to in &inb.to {
        if let Some((_, Some(detail), _)) = split_address(to) {
            if let Some(c) = split(&detail) {
                return Some(c);
            }
        }
    }
    let mut texts = vec![inb.subject.clone()];
    texts.extend(inb.lines.iter().map(|(_, l)| l.clone()));
    for t in texts {
        let words: Vec<&str> = t.split_whitespace().collect();
        for w in words.windows(2) {
            if w[0].eq_ignore_ascii_case("REF") {
                if let Some(c) = split(w[1]) {
                    return Some(c);
                }
            }
        }
    }
    None
}
