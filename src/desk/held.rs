//! Games held for their journal's end: when nothing vouches that a game's
//! journal was not cut (its tip file is missing, or the journal does not
//! reach it), the desk leaves the game alone, tells its moderator once, and
//! reads only the moderator's `REANCHOR <reason>` (or the operator's
//! `adjutant reanchor`), which accepts the journal as it is in the open: it
//! is journaled and mailed to every player, whose mails witness what came
//! before (docs/journal-v1.md). Mail to a held game waits in the inbox.

use super::{letters, store, Batch, Desk, Error, Letter, Loaded, Open, PassReport};
use crate::dice;
use crate::journal::kinds;
use crate::mail::{parse, same_address};
use chrono::{DateTime, Utc};
use minijinja::context;
use std::fs;
use tracing::{info, warn};

/// What became of a mail to a held game.
pub(crate) enum HeldMail {
    /// The moderator re-anchored the game: its batch is in `open`.
    Reanchored,
    /// Answered outside the game (a REANCHOR without a reason).
    Answered,
    /// Left in the inbox until the game is re-anchored or restored.
    Waits,
}

/// The moderator's `REANCHOR …` line of a mail, if it has one: the reason
/// (empty when none was given).
fn reanchor_line(inb: &parse::Inbound) -> Option<String> {
    inb.lines.iter().find_map(|(_, t)| {
        let t = t.trim();
        let (w, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        w.eq_ignore_ascii_case("REANCHOR").then(|| rest.trim().to_string())
    })
}

impl Desk {
    /// A mail for game `gid`, which is held (`why`): only the moderator's
    /// REANCHOR with a reason is read; anything else waits.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn handle_held(
        &self,
        gid: &str,
        token: &str,
        inb: &parse::Inbound,
        raw: &[u8],
        why: &str,
        now: DateTime<Utc>,
        report: &mut PassReport,
        open: &mut Open,
    ) -> Result<HeldMail, Error> {
        let mut l = store::load_held(&self.data, gid)?;
        let epoch = l.desk.epochs.get("gm").copied().unwrap_or(0);
        let from = inb.from.clone().unwrap_or_default();
        let moderator =
            l.desk.gm.as_deref().is_some_and(|gm| same_address(gm, &from)) && self.token_at(gid, "gm", epoch) == token;
        let reason = reanchor_line(inb).filter(|_| moderator);
        match reason {
            Some(r) if r.is_empty() => {
                let letter = Letter {
                    role: None,
                    to: from,
                    subject: format!("[{gid}] REANCHOR needs a reason"),
                    body: letters::fill(
                        "reply",
                        context! { text => format!("Game {gid} is held: {why}\n\nREANCHOR needs a reason, which every player is told, e.g.\n  REANCHOR the data folder was restored from last night's backup\nNothing was changed.") },
                    ),
                    svg: Vec::new(),
                    in_reply_to: inb.message_id.clone(),
                };
                self.send_loose(&letter, &dice::to_hex(&dice::sha256(raw)), now)?;
                Ok(HeldMail::Answered)
            }
            Some(reason) => {
                let sha = dice::to_hex(&dice::sha256(raw));
                let mut batch = Batch::default();
                let archived = l.archive.append(&l.dir, l.journal.last_seq + 1, &sha, raw, now);
                archived.map_err(|source| Error::Io {
                    what: "archive",
                    path: l.dir.join(super::archive::MBOX),
                    source,
                })?;
                let mid = inb.message_id.clone().unwrap_or_else(|| format!("sha256-{}", &sha[..16]));
                for k in super::seen::keys(&sha, &mid, &from) {
                    l.seen.insert(&k);
                }
                batch.entry(
                    "received",
                    &kinds::Received {
                        message_id: mid,
                        from,
                        sha256: sha,
                        role: Some("gm".into()),
                        step: l.game.step,
                        verdict: "command".into(),
                    },
                );
                self.reanchor(&mut l, &mut batch, why, &reason, "gm");
                report.accepted += 1;
                open.games.insert(gid.to_string(), (l, batch));
                Ok(HeldMail::Reanchored)
            }
            None => {
                self.tell_held(gid, why, now)?;
                Ok(HeldMail::Waits)
            }
        }
    }

    /// The referee's REANCHOR ([`super::Referee::reanchor`]) on a loaded game:
    /// the journal's end accepted, the moderator's notice forgotten.
    pub fn reanchor(&self, l: &mut Loaded, batch: &mut Batch, found: &str, reason: &str, by: &str) {
        let end = (l.journal.last_seq, l.journal.last_hash.clone());
        self.referee().reanchor(l, batch, (end.0, &end.1), found, reason, by);
        let _ = fs::remove_file(self.held_marker(&l.game.id));
        info!(game = %l.game.id, entry = end.0, by, "journal re-anchored");
    }

    /// `adjutant reanchor GAME REASON`: the operator's REANCHOR, for a game
    /// with no moderator (or one who cannot be reached).
    pub fn reanchor_by_operator(&self, gid: &str, reason: &str, now: DateTime<Utc>) -> Result<u64, Error> {
        let _lock = self.lock()?;
        let Some(why) = store::held_reason(&self.data, gid) else {
            return match store::load_held(&self.data, gid) {
                Err(e) => Err(e.into()),
                Ok(_) => Err(Error::Bad(format!(
                    "game {gid} is not held: its journal reaches the tip adjutant wrote; nothing to re-anchor"
                ))),
            };
        };
        if reason.trim().is_empty() {
            return Err(Error::Bad("give a reason: every player is told it".into()));
        }
        let mut l = store::load_held(&self.data, gid)?;
        let mut batch = Batch::default();
        self.reanchor(&mut l, &mut batch, &why, reason.trim(), "operator");
        let seq = l.journal.last_seq;
        self.commit(&mut l, batch, now)?;
        Ok(seq)
    }

    /// `DATA/desk/held/<game>`: the reason the moderator was last told a
    /// game is held, so that they are told once, not every pass.
    fn held_marker(&self, gid: &str) -> std::path::PathBuf {
        self.data.join("desk/held").join(gid)
    }

    /// Tell the moderator of `gid` (or, for a game without one, the
    /// operator's address, when one is configured) that the game is held
    /// and why, once for each reason; logged the first time.
    pub(crate) fn tell_held(&self, gid: &str, why: &str, now: DateTime<Utc>) -> Result<(), Error> {
        let marker = self.held_marker(gid);
        if fs::read_to_string(&marker).is_ok_and(|t| t == why) {
            return Ok(());
        }
        warn!(game = %gid, reason = %why, "game held: its mail waits until it is re-anchored or its files restored");
        let gm = crate::journal::read_first(&store::game_dir(&self.data, gid).join("journal.toml"))
            .ok()
            .flatten()
            .and_then(|e| e.body::<kinds::Created>().ok())
            .and_then(|c| c.gm);
        let to = gm.clone().or_else(|| self.cfg.game.operator.clone());
        if let Some(to) = to {
            let how = if gm.is_some() {
                "reply to any mail of this game with one line:\n  REANCHOR <the reason, which every player is told>"
            } else {
                "run on the server:\n  adjutant reanchor <game> <the reason, which every player is told>"
            };
            let text = format!(
                "Game {gid} is held: {why}\n\nUntil then adjutant leaves the game alone: no step resolves, and its players' mail waits unread in the inbox (none is lost).\nIf the journal's end was lost and cannot be restored, accept the journal as it is: {how}\nEvery player is then mailed the entry the game goes on from, and can check it against the mails they hold."
            );
            let letter = Letter {
                role: None,
                to,
                subject: format!("[{gid}] the game is held: its journal's end is not vouched for"),
                body: letters::fill("reply", context! { text => text }),
                svg: Vec::new(),
                in_reply_to: None,
            };
            let key = dice::to_hex(&dice::sha256(format!("held\0{gid}\0{why}").as_bytes()));
            self.send_loose(&letter, &key, now)?;
        }
        if let Some(d) = marker.parent() {
            fs::create_dir_all(d).map_err(super::io("create", d))?;
        }
        crate::journal::write_atomic(&marker, why.as_bytes(), None).map_err(super::io("write", &marker))
    }
}
