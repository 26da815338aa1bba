//! The shell around one inbound mail: it is read (a death while reading
//! it counts against it, `attempts.rs`), placed, its game loaded, decided
//! by the referee, archived; a mail that cannot be handled is set aside in
//! `DATA/quarantine/` and its sender and moderator told.

use super::core::lobby::{Listing, Lobby};
use super::core::mail::{Outcome, Placed};
use super::core::{letters, Batch, Letter, PassReport};
use super::{attempts::Attempts, crash_point, io, store, Desk, Error, Handled, Open};
use crate::dice;
use crate::journal::kinds;
use crate::mail::parse;
use chrono::{DateTime, Utc};
use minijinja::context;
use std::fs;
use tracing::{info, instrument, warn};

impl Desk {
    /// What LIST says of every game here, from their snapshots (a game
    /// that cannot be read is left out).
    fn listings(&self) -> Result<Vec<Listing>, Error> {
        let mut out = Vec::new();
        for id in self.game_ids()? {
            let Ok(l) = self.peek(&id) else { continue };
            out.push(Listing {
                id: id.clone(),
                ruleset: l.game.rules.info().name.to_string(),
                scenario: l.game.scenario.clone(),
                free: l.game.roles.iter().filter(|r| !l.desk.players.contains_key(*r)).cloned().collect(),
                deadline: l.desk.deadline_secs,
                moderated: l.desk.gm.is_some(),
                ended: l.game.ended,
            });
        }
        Ok(out)
    }

    /// The message `sha` is in hand: how many times its own reading or
    /// handling killed the process before (kept across a crash, in
    /// `DATA/desk/handling`).
    pub(super) fn in_hand(&self, open: &mut Open, sha: &str) -> u32 {
        let path = self.data.join("desk/handling");
        open.attempts.get_or_insert_with(|| Attempts::open(&path)).take(sha)
    }

    /// The work the message in hand can cause to fail begins (its parsing,
    /// its orders, what they resolve): a death until [`Desk::disarm`] is
    /// counted against it. Loading its game, the disk, the commit are not.
    pub(crate) fn arm(&self, open: &mut Open) {
        if let Some(a) = &mut open.attempts {
            a.arm();
        }
        crash_point("reading");
    }

    /// The message in hand's own work is over (see [`Desk::arm`]).
    pub(crate) fn disarm(&self, open: &mut Open) {
        if let Some(a) = &mut open.attempts {
            a.disarm();
        }
    }

    /// The messages in hand were handled (or set aside): nothing to count.
    /// Said once a group, before its commit.
    pub(crate) fn attempted(&self, open: &mut Open) {
        if let Some(a) = &mut open.attempts {
            a.clear();
        }
    }

    /// The message in hand was handled (or set aside).
    pub(super) fn handled(&self, open: &mut Open) {
        if let Some(a) = &mut open.attempts {
            a.done();
        }
    }

    /// Handle one message, catching what must not stop the daemon: a bug
    /// or a broken game turns into `Failed` (the message is quarantined);
    /// only the desk's own disk failures come back as errors.
    pub fn handle_safely(
        &self,
        raw: &[u8],
        now: DateTime<Utc>,
        report: &mut PassReport,
        open: &mut Open,
    ) -> Result<Handled, Error> {
        // A mail whose reading or handling killed the process (out of
        // memory, an abort) comes back; the third time it is set aside
        // unread, so one mail can never wedge the inbox. Only deaths inside
        // its own work count (`arm`): a crash while its game loads or the
        // pass commits is no fault of the mail, which is simply tried again.
        let sha = dice::to_hex(&dice::sha256(raw));
        if self.in_hand(open, &sha) >= 2 {
            warn!("reading or handling this message stopped adjutant twice; set aside unread");
            report.quarantined += 1;
            self.handled(open);
            return Ok(Handled::Failed(
                None,
                "reading or handling it stopped adjutant twice (a bug, or a mail built to crash it)".into(),
            ));
        }
        open.game_in_hand = None;
        open.waits = false;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(raw, now, report, open)));
        // The game as `handle` read it (noted before anything could fail
        // on its account), not from a second parse of the mail.
        let game = open.game_in_hand.take();
        match r {
            Ok(Ok(())) if std::mem::take(&mut open.waits) => {
                self.handled(open);
                Ok(Handled::Waits)
            }
            Ok(Ok(())) => {
                self.handled(open);
                Ok(Handled::Done(game))
            }
            // The desk's own disk failed: the pass stops, and the count
            // stays, so a mail that fails it every time is set aside.
            Ok(Err(e @ (Error::Io { .. } | Error::Journal(_)))) => Err(e),
            Ok(Err(e)) => {
                self.handled(open);
                warn!(game = ?game, error = %e, "message quarantined");
                if let Some(g) = &game {
                    open.drop_game(g);
                }
                report.quarantined += 1;
                Ok(Handled::Failed(game, e.to_string()))
            }
            Err(_) => {
                self.handled(open);
                warn!(game = ?game, "handling the message panicked; quarantined");
                if let Some(g) = &game {
                    open.drop_game(g);
                }
                report.quarantined += 1;
                Ok(Handled::Failed(game, "handling it hit a bug in adjutant (a panic)".into()))
            }
        }
    }

    /// Keep a copy of a message that could not be handled, for the
    /// moderator to look at (`DATA/quarantine/<digest>.eml`, with why in
    /// `<digest>.txt`, which `games` and `run --check` list), and tell,
    /// once each, its sender and the moderator of its game (or, for a mail
    /// of no game or a game without one, the operator). The game is the
    /// one the handling named, else the one its address names (its header
    /// only is read: reading it whole may be what failed).
    pub fn quarantine(&self, raw: &[u8], game: Option<&str>, why: &str, now: DateTime<Utc>) -> Result<(), Error> {
        let dir = self.data.join("quarantine");
        fs::create_dir_all(&dir).map_err(io("create", &dir))?;
        let sha = dice::to_hex(&dice::sha256(raw));
        let p = dir.join(format!("{}.eml", &sha[..24]));
        fs::write(&p, raw).map_err(io("quarantine", &p))?;
        let game = game.map(str::to_string).or_else(|| {
            crate::mail::parse::recipients(&raw[..raw.len().min(64 * 1024)]).iter().find_map(|to| {
                let (_, detail, _) = crate::mail::split_address(to)?;
                let g = detail?.rsplit_once('.')?.0.to_lowercase();
                store::game_dir(&self.data, &g).join("journal.toml").exists().then_some(g)
            })
        });
        let sender = crate::mail::parse::sender(raw);
        let note = format!(
            "at: {}\ngame: {}\nfrom: {}\nwhy: {why}\n",
            now.to_rfc3339(),
            game.as_deref().unwrap_or("-"),
            sender.as_ref().map(|s| s.0.as_str()).unwrap_or("-")
        );
        let np = dir.join(format!("{}.txt", &sha[..24]));
        fs::write(&np, note).map_err(io("quarantine", &np))?;
        let tag = game.as_deref().map(|g| format!("[{g}] ")).unwrap_or_default();
        if let Some((from, subject)) = &sender {
            let letter = Letter {
                role: None,
                to: from.clone(),
                subject: format!("{tag}your mail was set aside unread: {subject}"),
                body: letters::fill(
                    "reply",
                    context! { text => format!("Your mail \"{subject}\" could not be handled, and was set aside without being read: nothing in it was taken.\nWhy: {why}\n{}Please send what it said again, as plain text if you can.", if game.is_some() { "The game's moderator has been told.\n" } else { "" }) },
                ),
                svg: Vec::new(),
                in_reply_to: None,
            };
            self.send_loose(&letter, &format!("s{}", &sha[..31]), now)?;
        }
        // The game may be what failed: its moderator from the snapshot or
        // the journal, whichever can still be read.
        let gm = game.as_deref().and_then(|g| {
            self.peek(g).ok().and_then(|l| l.desk.gm.clone()).or_else(|| {
                let first = crate::journal::read_first(&store::game_dir(&self.data, g).join("journal.toml")).ok()??;
                first.body::<kinds::Created>().ok()?.gm
            })
        });
        let Some(to) = gm.or_else(|| self.cfg.game.operator.clone()) else { return Ok(()) };
        let from = sender.as_ref().map(|s| format!(" from {}", s.0)).unwrap_or_default();
        let letter = Letter {
            role: None,
            to,
            subject: format!("{tag}a mail was set aside"),
            body: letters::fill(
                "reply",
                context! { text => format!("A mail{from}{} could not be handled and was set aside, unanswered, in {}.\nWhy: {why}\nNothing of it was journaled{}. Once the cause is fixed, it can be handled by moving it back into the inbox.", game.as_deref().map(|g| format!(" for game {g}")).unwrap_or_default(), p.display(), if sender.is_some() { "; its sender was told" } else { "" }) },
            ),
            svg: Vec::new(),
            in_reply_to: None,
        };
        self.send_loose(&letter, &format!("q{}", &sha[..31]), now)
    }

    /// The mails set aside (`DATA/quarantine/`), a line each: file, game,
    /// sender, when and why.
    pub fn set_aside(&self) -> Vec<String> {
        let dir = self.data.join("quarantine");
        let mut v: Vec<(String, String)> = fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                    .map(|e| {
                        let p = e.path();
                        let note = fs::read_to_string(p.with_extension("txt")).unwrap_or_default();
                        let get =
                            |k: &str| note.lines().find_map(|l| l.strip_prefix(k)).unwrap_or("?").trim().to_string();
                        let line = format!(
                            "{}: game {}, from {}, at {}: {}",
                            p.display(),
                            get("game:"),
                            get("from:"),
                            get("at:"),
                            get("why:")
                        );
                        (get("at:"), line)
                    })
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v.into_iter().map(|x| x.1).collect()
    }
}

impl Desk {
    /// Handle one raw message into the open games of the pass: read it,
    /// place it, load its game, let the referee decide, archive it. Errors
    /// are the desk's own (disk), never the sender's: a sender's mistake is
    /// answered and journaled.
    #[instrument(skip_all)]
    pub fn handle(
        &self,
        raw: &[u8],
        now: DateTime<Utc>,
        report: &mut PassReport,
        open: &mut Open,
    ) -> Result<(), Error> {
        let too_big = raw.len() > self.cfg.limits.max_message_bytes;
        // Reading the mail is its own work: a death here counts against it.
        self.arm(open);
        let mut inb = if too_big { parse::parse(&raw[..raw.len().min(64 * 1024)]) } else { parse::parse(raw) };
        self.disarm(open);
        let sha = dice::to_hex(&dice::sha256(raw));
        let referee = self.referee();
        let counts = open.counts.get_or_insert_with(|| super::hourly::load(&self.data));
        let (gid, token) = match referee.place(&mut inb, raw.len(), &sha) {
            Placed::Drop(why) => {
                info!(reason = %why, "dropped without reply");
                report.dropped += 1;
                return Ok(());
            }
            Placed::Refuse(why) => {
                report.refused += 1;
                if let Some(l) = referee.refusal(counts, &inb, &why, &sha, now) {
                    self.send_loose(&l.letter, &l.key, now)?;
                }
                return Ok(());
            }
            Placed::Game { gid, token } => (gid, Ok(token)),
            Placed::Lobby(Lobby::List) => {
                let games = self.listings()?;
                if let Some(l) = referee.lobby_reply(counts, &inb, referee.list(&games), &sha, now) {
                    self.send_loose(&l.letter, &l.key, now)?;
                }
                return Ok(());
            }
            Placed::Lobby(cmd) => (cmd.game().unwrap_or_default().to_string(), Err(cmd)),
        };
        open.game_in_hand = Some(gid.clone());
        if !open.games.contains_key(&gid) {
            match self.load(&gid) {
                Ok(l) => {
                    open.games.insert(gid.clone(), (l, Batch::default()));
                }
                Err(Error::Store(store::Error::Held { message, .. })) => {
                    // A held game takes no newcomer until it is re-anchored.
                    let token = match &token {
                        Ok(t) => t.clone(),
                        Err(_) => String::new(),
                    };
                    match self.handle_held(&gid, &token, &inb, raw, &message, now, report, open)? {
                        super::held::HeldMail::Waits => open.waits = true,
                        super::held::HeldMail::Reanchored | super::held::HeldMail::Answered => {}
                    }
                    return Ok(());
                }
                Err(Error::Store(store::Error::NoGame(_))) => {
                    report.refused += 1;
                    let why = format!("there is no game {gid:?} here");
                    if let Some(l) = referee.refusal(counts, &inb, &why, &sha, now) {
                        self.send_loose(&l.letter, &l.key, now)?;
                    }
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        // Its orders, and what they resolve, are its own work too (its
        // game's loading above, and its archiving below, are not).
        self.arm(open);
        let (l, batch) = open.games.get_mut(&gid).expect("loaded above");
        let counts = open.counts.as_mut().expect("loaded above");
        let decided = match &token {
            Ok(token) => referee.handle(&mut l.state, batch, counts, &inb, &sha, token, now, report),
            Err(cmd) => referee.lobby(&mut l.state, batch, counts, &inb, &sha, cmd, now, report),
        };
        self.disarm(open);
        if decided? == Outcome::Duplicate {
            return Ok(());
        }
        // The raw message, kept under its game with the entries that name
        // it (written with the commit).
        let (l, _) = open.games.get_mut(&gid).expect("loaded above");
        let archived = l.archive.append(&l.dir, l.journal.last_seq + 1, &sha, raw, now);
        archived.map_err(|source| Error::Io { what: "archive", path: l.dir.join(super::archive::MBOX), source })?;
        crash_point("archived");
        Ok(())
    }
}
