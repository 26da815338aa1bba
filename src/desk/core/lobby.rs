//! The game's plain address, as njudge and DPjudge players know it: LIST
//! the open games and those one may watch, JOIN a free role of an open
//! game (the reply is the welcome, whose Reply-To carries the new
//! player's token; the last role filled starts the game), OBSERVE and
//! STOP OBSERVING a game. No token is needed; each reply counts against
//! the sender's hourly allowance of replies to strangers.

use super::hourly::Counts;
use super::mail::Outcome;
use super::{letters, seen, state, Batch, GameState, Letter, PassReport, Referee, Refused};
use crate::journal::kinds;
use crate::mail::parse;
use chrono::{DateTime, Utc};
use minijinja::context;

/// A command to the plain address.
#[derive(Debug, Clone, PartialEq)]
pub enum Lobby {
    List,
    Join { game: String, role: Option<String> },
    Observe { game: String, on: bool },
}

impl Lobby {
    /// The game it is about, if any.
    pub fn game(&self) -> Option<&str> {
        match self {
            Lobby::List => None,
            Lobby::Join { game, .. } | Lobby::Observe { game, .. } => Some(game),
        }
    }
}

/// The first line of a mail to the plain address, read as a lobby
/// command (None: it is not one).
pub fn command(inb: &parse::Inbound) -> Option<Lobby> {
    let (_, line) = inb.lines.first()?;
    let words: Vec<String> = line.split_whitespace().map(|w| w.to_lowercase()).collect();
    let id = |w: &String| crate::desk::core::state::valid_game_id(w).then(|| w.clone());
    match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["list"] => Some(Lobby::List),
        ["join", g] => Some(Lobby::Join { game: id(&words[1])?, role: None }).filter(|_| !g.is_empty()),
        ["join", _, r] => Some(Lobby::Join { game: id(&words[1])?, role: Some(r.to_string()) }),
        ["observe", _] => Some(Lobby::Observe { game: id(&words[1])?, on: true }),
        ["stop", "observing", _] => Some(Lobby::Observe { game: id(&words[2])?, on: false }),
        _ => None,
    }
}

/// What LIST says of one game.
#[derive(Debug, Clone)]
pub struct Listing {
    pub id: String,
    pub ruleset: String,
    pub scenario: String,
    pub free: Vec<String>,
    /// The length of a step, in seconds, if the game has deadlines.
    pub deadline: Option<i64>,
    pub moderated: bool,
    pub ended: bool,
}

impl Referee<'_> {
    /// The reply to LIST: open games with their free roles, then the
    /// running games one may observe.
    pub fn list(&self, games: &[Listing]) -> String {
        let length = |s: Option<i64>| match s {
            Some(s) if s % 86_400 == 0 => format!("{}d a step", s / 86_400),
            Some(s) if s % 3_600 == 0 => format!("{}h a step", s / 3_600),
            Some(s) => format!("{}m a step", s / 60),
            None => "no deadlines".into(),
        };
        let mut open = String::new();
        let mut running = String::new();
        for g in games.iter().filter(|g| !g.ended) {
            let line = format!(
                "  {}  {} {}  {}, {}",
                g.id,
                g.ruleset,
                g.scenario,
                length(g.deadline),
                if g.moderated { "moderated" } else { "no moderator" }
            );
            if g.free.is_empty() {
                running.push_str(&format!("{line}\n"));
            } else {
                open.push_str(&format!("{line}; free: {}\n", g.free.join(", ")));
            }
        }
        let mut text = String::from("Games open to join (JOIN <game> [<role>]):\n");
        text.push_str(if open.is_empty() { "  none\n" } else { &open });
        text.push_str("\nGames under way that you may watch (OBSERVE <game>):\n");
        text.push_str(if running.is_empty() { "  none\n" } else { &running });
        text
    }

    /// The reply to a LIST (`text`), once for the mail's digest `sha`,
    /// within the sender's hourly allowance.
    pub fn lobby_reply(
        &self,
        counts: &mut Counts,
        inb: &parse::Inbound,
        text: String,
        sha: &str,
        now: DateTime<Utc>,
    ) -> Option<super::Loose> {
        let from = inb.from.clone().unwrap_or_default();
        if from.parse::<lettre::Address>().is_err() || !self.may_reply(counts, &from, now) {
            return None;
        }
        let letter = Letter {
            role: None,
            to: from,
            subject: "games at this address".into(),
            body: letters::fill("reply", context! { text => text }),
            svg: Vec::new(),
            in_reply_to: inb.message_id.clone(),
        };
        Some(super::Loose { letter, key: sha.to_string() })
    }

    /// JOIN, OBSERVE or STOP OBSERVING for game `l`, from the mail `inb`
    /// (digest `sha`). The same mail again changes nothing.
    #[allow(clippy::too_many_arguments)]
    pub fn lobby(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        counts: &mut Counts,
        inb: &parse::Inbound,
        sha: &str,
        cmd: &Lobby,
        now: DateTime<Utc>,
        report: &mut PassReport,
    ) -> Result<Outcome, Refused> {
        let from = inb.from.clone().unwrap_or_default();
        if super::mail::seen_before(l, inb, sha, report) {
            return Ok(Outcome::Duplicate);
        }
        let mid = super::mail::mail_id(inb, sha);
        for k in seen::recorded(sha, &mid, &from, false) {
            l.seen.insert(&k);
        }
        let gid = l.game.id.clone();
        let verdict = match cmd {
            Lobby::Join { .. } => "join",
            _ => "observe",
        };
        batch.entry(
            "received",
            &kinds::Received {
                message_id: mid,
                from: from.clone(),
                sha256: sha.to_string(),
                role: None,
                step: l.game.step,
                verdict: verdict.into(),
            },
        );
        let text = match cmd {
            Lobby::List => unreachable!("LIST names no game"),
            Lobby::Observe { on, .. } => self.observe(l, batch, &from, *on),
            Lobby::Join { role, .. } => match self.join(l, batch, &from, role.as_deref(), now, false)? {
                Ok(()) => {
                    report.accepted += 1;
                    return Ok(Outcome::Journaled);
                }
                Err(why) => {
                    report.rejected += 1;
                    format!("You did not join game {gid}: {why}.\nLIST to this address shows the games open to join.")
                }
            },
        };
        if self.may_reply(counts, &from, now) {
            batch.letters.push(Letter {
                role: None,
                to: from,
                subject: format!("[{gid}] {}", if verdict == "join" { "not joined" } else { "observing" }),
                body: letters::fill("reply", context! { text => text }),
                svg: Vec::new(),
                in_reply_to: inb.message_id.clone(),
            });
        }
        Ok(Outcome::Journaled)
    }

    /// `address` takes `role` (or the first free role) of `l`: journaled,
    /// welcomed with their token; the last role filled starts the game.
    fn join(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        address: &str,
        role: Option<&str>,
        now: DateTime<Utc>,
        approved: bool,
    ) -> Result<Result<(), String>, Refused> {
        let gid = l.game.id.clone();
        let free: Vec<String> = l.game.roles.iter().filter(|r| !l.desk.players.contains_key(*r)).cloned().collect();
        if l.game.ended {
            return Ok(Err(format!("game {gid} is over")));
        }
        if address.parse::<lettre::Address>().is_err() {
            return Ok(Err("your address cannot be read".into()));
        }
        if let Some((r, _)) = l.desk.players.iter().find(|(_, a)| a.eq_ignore_ascii_case(address)) {
            return Ok(Err(format!("you already play {r} in it; one role a player")));
        }
        if free.is_empty() {
            return Ok(Err(format!("every role of game {gid} is taken")));
        }
        let role = match role {
            None => free[0].clone(),
            Some(r) if free.iter().any(|f| f == r) => r.to_string(),
            Some(r) if l.game.roles.iter().any(|x| x == r) => {
                return Ok(Err(format!("{r} is taken; free: {}", free.join(", "))))
            }
            Some(r) => {
                return Ok(Err(format!("{r} is not a role of this game; free: {}", free.join(", "))));
            }
        };
        if l.desk.approve && !approved {
            if l.desk.applied.iter().any(|(_, a)| a.eq_ignore_ascii_case(address)) {
                return Ok(Err("your request is already waiting for the moderator".into()));
            }
            let m = kinds::Moderator { action: kinds::Action::Applied, args: vec![role.clone(), address.to_string()] };
            state::apply_moderator(&mut l.desk, &m);
            batch.entry("applied", &m);
            if let Some(gm) = l.desk.gm.clone() {
                batch.letters.push(Letter {
                    role: Some("gm".into()),
                    to: gm,
                    subject: format!("[{gid}] {address} asks to play {role}"),
                    body: letters::fill(
                        "reply",
                        context! { text => format!("{address} asks to join game {gid} as {role}. Reply APPROVE {address} to let them in, or REFUSE {address}.\n") },
                    ),
                    svg: Vec::new(),
                    in_reply_to: None,
                });
            }
            batch.letters.push(Letter {
                role: None,
                to: address.to_string(),
                subject: format!("[{gid}] your request to join"),
                body: letters::fill(
                    "reply",
                    context! { text => format!("Your request to play {role} in game {gid} waits for the moderator's approval; you will be told.\n") },
                ),
                svg: Vec::new(),
                in_reply_to: None,
            });
            return Ok(Ok(()));
        }
        let m = kinds::Moderator { action: kinds::Action::Join, args: vec![role.clone(), address.to_string()] };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry("join", &m);
        let anchors = self.vault.anchors(&gid)?;
        batch.letters.push(self.welcome(l, &role, address, &anchors));
        if free.len() == 1 {
            // The last free role: the game starts, with its deadline from
            // now and everyone's prompts.
            self.open_step(l, batch, now);
            self.prompts(l, batch);
            self.adjutant_turns(l, batch, now)?;
        }
        Ok(Ok(()))
    }

    /// The moderator's APPROVE (`yes`) or REFUSE of a waiting JOIN from
    /// `address`: the reply's text.
    pub fn approve(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        address: &str,
        yes: bool,
        now: DateTime<Utc>,
    ) -> Result<String, Refused> {
        let gid = l.game.id.clone();
        let Some((role, address)) = l.desk.applied.iter().find(|(_, a)| a.eq_ignore_ascii_case(address)).cloned()
        else {
            return Ok(format!("No request from {address} is waiting; nothing changed."));
        };
        if !yes {
            let m = kinds::Moderator { action: kinds::Action::Declined, args: vec![address.clone()] };
            state::apply_moderator(&mut l.desk, &m);
            batch.entry("declined", &m);
            batch.letters.push(Letter {
                role: None,
                to: address.clone(),
                subject: format!("[{gid}] your request to join"),
                body: letters::fill("reply", context! { text => format!("The moderator of game {gid} did not take your request to play {role}.\n") }),
                svg: Vec::new(),
                in_reply_to: None,
            });
            return Ok(format!("{address}'s request is refused; they were told."));
        }
        match self.join(l, batch, &address, Some(&role), now, true)? {
            Ok(()) => Ok(format!("{address} now plays {role}; they have their welcome.")),
            Err(why) => {
                let m = kinds::Moderator { action: kinds::Action::Declined, args: vec![address.clone()] };
                state::apply_moderator(&mut l.desk, &m);
                batch.entry("declined", &m);
                Ok(format!("{address} could not join: {why}; the request is dropped."))
            }
        }
    }
}
