//! The long-running daemon (`adjutant run`): passes over the inbox (Maildir
//! or IMAP, with IDLE where offered), reconnection with capped exponential
//! back-off, and a clean stop on SIGINT/SIGTERM that finishes the message
//! in hand. Also `adjutant run --check`.

use super::pass::{ImapInbox, MaildirInbox};
use super::{Desk, Error, PassReport};
use crate::config::{ImapConfig, Inbound, Outbound};
use crate::mail::imap;
use chrono::Utc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tracing::{info, warn};

/// The longest an IDLE (or a poll sleep) lasts before the stop flag and
/// the deadlines are looked at again.
const WAIT_SLICE: u64 = 30;

fn sleep_unless(stop: &AtomicBool, secs: u64) {
    for _ in 0..secs {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// A wait that doubles after each failure up to a cap, and starts again
/// from a second after a success.
struct Retry {
    secs: u64,
    cap: u64,
}

impl Retry {
    fn new(cap: u64) -> Self {
        Retry { secs: 1, cap }
    }
    fn reset(&mut self) {
        self.secs = 1;
    }
    /// Wait (unless stopped), then lengthen the next wait.
    fn wait(&mut self, stop: &AtomicBool) {
        sleep_unless(stop, self.secs);
        self.secs = (self.secs * 2).min(self.cap);
    }
}

impl Desk {
    /// Run until `stop` is set.
    pub fn serve(&self, stop: &Arc<AtomicBool>) -> Result<(), Error> {
        self.check_games()?;
        match self.cfg.inbound.clone() {
            Inbound::Maildir { .. } => {
                info!(
                    inbox = %self.inbox_path().display(),
                    every_seconds = self.cfg.limits.poll_seconds,
                    "watching the Maildir"
                );
                let mut failing = Retry::new(60);
                while !stop.load(Ordering::SeqCst) {
                    let r = MaildirInbox::open(&self.inbox_path(), self.cfg.limits.group_messages)
                        .and_then(|mut inbox| self.pass(&mut inbox, &Utc::now, stop));
                    match r {
                        Ok(r) => {
                            failing.reset();
                            self.after_pass(&r);
                            sleep_unless(stop, self.cfg.limits.poll_seconds);
                        }
                        // A full disk, a folder gone: wait and try again;
                        // nothing is marked handled before it is journaled.
                        Err(e) => self.pass_failed(&e, &mut failing, stop),
                    }
                }
                Ok(())
            }
            Inbound::Imap(c) => self.serve_imap(&c, stop),
        }
    }

    /// Before serving: every game has the secrets it cannot do without. A
    /// missing file stops the daemon with its name, rather than turning
    /// each valid order into a quarantined mail.
    pub fn check_games(&self) -> Result<(), Error> {
        for id in self.game_ids()? {
            super::store::read_secrets(&super::store::game_dir(&self.data, &id))?;
        }
        Ok(())
    }

    /// With `[publish] dir`: every game whose journal moved on since its
    /// page was made gets its page again (a stat and a small read a game
    /// otherwise). A page that cannot be made is logged, never fatal.
    pub fn publish_changed(&self) -> Result<usize, Error> {
        let Some(dir) = self.cfg.publish.dir.clone() else { return Ok(0) };
        let dir = std::path::PathBuf::from(dir);
        let mut made = 0;
        for id in self.game_ids()? {
            let at = super::store::read_tip(&self.data, &id).map(|t| t.seq);
            let mark = std::fs::read_to_string(dir.join(&id).join(crate::publish::MARK)).unwrap_or_default();
            if at.is_some() && mark.lines().nth(1).and_then(|s| s.parse::<u64>().ok()) == at {
                continue;
            }
            let journal = super::store::game_dir(&self.data, &id).join("journal.toml");
            let site =
                crate::journal::read(&journal).map_err(|e| e.to_string()).and_then(|es| crate::publish::site(&es));
            match site {
                Ok(files) => {
                    let to = dir.join(&id);
                    std::fs::create_dir_all(&to).map_err(super::io("publish", &to))?;
                    for (name, bytes) in files {
                        // Written beside, then renamed: a reader never gets
                        // half a page.
                        let tmp = to.join(format!(".{name}.tmp"));
                        std::fs::write(&tmp, bytes).map_err(super::io("publish", &tmp))?;
                        std::fs::rename(&tmp, to.join(&name)).map_err(super::io("publish", &tmp))?;
                    }
                    made += 1;
                }
                Err(e) => warn!(game = %id, error = %e, "the public page was not made"),
            }
        }
        if made > 0 {
            info!(pages = made, dir = %dir.display(), "public pages made");
        }
        Ok(made)
    }

    fn after_pass(&self, r: &PassReport) {
        if let Err(e) = self.publish_changed() {
            warn!(error = %e, "publishing failed");
        }
        if r.messages > 0 || r.resolved > 0 || r.sent > 0 {
            info!(
                messages = r.messages,
                accepted = r.accepted,
                rejected = r.rejected,
                refused = r.refused,
                resolved = r.resolved,
                sent = r.sent,
                "pass"
            );
        }
    }

    /// A pass failed for a local reason (a full disk): log, deliver what is
    /// already spooled, and wait longer each time.
    fn pass_failed(&self, e: &Error, failing: &mut Retry, stop: &AtomicBool) {
        warn!(error = %e, retry_in = failing.secs, "the pass failed; trying again");
        if let Err(e) = self.deliver() {
            warn!(error = %e, "delivery failed");
        }
        failing.wait(stop);
    }

    fn serve_imap(&self, c: &ImapConfig, stop: &Arc<AtomicBool>) -> Result<(), Error> {
        // At most a minute between connection attempts: a restarted server
        // is found again within a minute.
        let mut connecting = Retry::new(60);
        // The wait after a failed pass (a full disk), kept across
        // reconnections: it grows until a pass succeeds.
        let mut failing = Retry::new(300);
        while !stop.load(Ordering::SeqCst) {
            let mut s = match imap::connect_until(c, Some(stop.clone())) {
                Ok(s) => s,
                Err(e) => {
                    warn!(error = %e, retry_in = connecting.secs, "IMAP connection failed");
                    // Mail may still be spooled for sending meanwhile.
                    if let Err(e) = self.deliver() {
                        warn!(error = %e, "delivery failed");
                    }
                    connecting.wait(stop);
                    continue;
                }
            };
            info!(host = %c.host, folder = %c.folder, idle = c.idle, "IMAP connected; watching the folder");
            if let Err(e) = imap::ensure_folder(&mut s, &c.processed_folder) {
                warn!(error = %e, retry_in = connecting.secs, "cannot create the processed folder");
                let _ = s.logout();
                connecting.wait(stop);
                continue;
            }
            connecting.reset();
            while !stop.load(Ordering::SeqCst) {
                match self.imap_pass(&mut s, c, stop) {
                    Ok(r) => {
                        failing.reset();
                        self.after_pass(&r);
                    }
                    Err(Error::Imap(e)) => {
                        warn!(error = %e, "IMAP session lost; reconnecting");
                        break;
                    }
                    // A full disk or another local failure: the daemon
                    // waits and tries again rather than exit.
                    Err(e) => {
                        self.pass_failed(&e, &mut failing, stop);
                        break;
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let secs = if c.idle { c.idle_seconds } else { c.poll_seconds }.min(WAIT_SLICE);
                if let Err(e) = imap::wait(&mut s, c.idle, secs, &|| stop.load(Ordering::SeqCst)) {
                    warn!(error = %e, "IMAP session lost while waiting; reconnecting");
                    break;
                }
            }
            let _ = s.logout();
        }
        info!("stopped");
        Ok(())
    }

    /// One pass over an IMAP folder (see [`Desk::pass`]).
    pub fn imap_pass(&self, s: &mut imap::Session, c: &ImapConfig, stop: &AtomicBool) -> Result<PassReport, Error> {
        let mut inbox = ImapInbox { session: s, cfg: c, validity: None };
        let r = self.pass(&mut inbox, &Utc::now, stop);
        if let Some(v) = inbox.validity {
            self.note_validity(v);
        }
        r
    }

    /// Remember the folder's UIDVALIDITY; a change means the server rebuilt
    /// the folder, which is harmless here (handled mail is moved out and
    /// recognised by its digest) but worth a line in the log.
    fn note_validity(&self, v: u32) {
        let p = self.data.join("desk/imap-uidvalidity");
        let old = std::fs::read_to_string(&p).ok().and_then(|t| t.trim().parse::<u32>().ok());
        if old != Some(v) {
            if old.is_some() {
                warn!(old = ?old, new = v, "the IMAP folder's UIDVALIDITY changed");
            }
            let _ = std::fs::write(&p, v.to_string());
        }
    }

    /// `adjutant run --check`: try both servers and say what works, in
    /// plain words. Returns (all well, report lines).
    pub fn check(&self) -> (bool, Vec<String>) {
        let mut ok = true;
        let mut out = Vec::new();
        match &self.cfg.inbound {
            Inbound::Maildir { .. } => out.push(format!("inbound: Maildir {} — ready", self.inbox_path().display())),
            Inbound::Imap(c) => match imap::connect(c) {
                Err(e) => {
                    ok = false;
                    out.push(format!("inbound: FAILED — {}", crate::mail::tls::explain(&e.to_string())));
                }
                Ok(mut s) => {
                    let caps =
                        s.capabilities().map(|c| (c.has_str("IDLE"), c.has_str("MOVE"))).unwrap_or((false, false));
                    match imap::pending(&mut s, &c.folder) {
                        Ok((v, uids)) => out.push(format!(
                            "inbound: IMAP {}:{} ({:?}) — logged in as {}; folder {} holds {} message(s) (UIDVALIDITY {v}); IDLE {}, MOVE {}",
                            c.host,
                            c.port,
                            c.security,
                            c.user,
                            c.folder,
                            uids.len(),
                            if caps.0 { "offered" } else { "not offered: polling" },
                            if caps.1 { "offered" } else { "not offered: COPY + EXPUNGE" }
                        )),
                        Err(e) => {
                            ok = false;
                            out.push(format!("inbound: logged in, but cannot open folder {}: {e}", c.folder));
                        }
                    }
                    let _ = s.logout();
                }
            },
        }
        match &self.cfg.outbound {
            Outbound::File { .. } => {
                out.push(format!("outbound: files under {} — ready", self.outbox_root().display()))
            }
            Outbound::Smtp(c) => match crate::mail::smtp::smtp(c).and_then(|s| s.check()) {
                Ok(()) => out.push(format!(
                    "outbound: SMTP {}:{} ({:?}) — connected{}",
                    c.host,
                    c.port,
                    c.security,
                    if c.user.is_some() { " and logged in" } else { "" }
                )),
                Err(e) => {
                    ok = false;
                    out.push(format!(
                        "outbound: SMTP {}:{} FAILED — {}",
                        c.host,
                        c.port,
                        crate::mail::tls::explain(&e)
                    ));
                }
            },
            Outbound::Sendmail { command } => {
                if std::path::Path::new(command).exists() {
                    out.push(format!("outbound: sendmail {command} — present"));
                } else {
                    ok = false;
                    out.push(format!("outbound: sendmail {command} FAILED — no such program"));
                }
            }
        }
        // What waits for the operator: mail set aside, games held.
        let aside = self.set_aside();
        if !aside.is_empty() {
            out.push(format!(
                "set aside: {} mail(s), unread (move one back into the inbox once its cause is fixed):",
                aside.len()
            ));
            out.extend(aside.into_iter().map(|l| format!("  {l}")));
        }
        for id in self.game_ids().unwrap_or_default() {
            if let Some(why) = super::store::held_reason(&self.data, &id) {
                out.push(format!("game {id} is HELD: {why}"));
            }
        }
        (ok, out)
    }
}
