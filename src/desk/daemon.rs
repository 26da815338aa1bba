//! The long-running daemon (`adjutant run`): passes over the inbox (Maildir
//! or IMAP, with IDLE where offered), reconnection with capped exponential
//! back-off, and a clean stop on SIGINT/SIGTERM that finishes the message
//! in hand. Also `adjutant run --check`.

use super::{Desk, Error, Handled, Open, PassReport};

/// The IMAP folder for messages that could not be handled.
const QUARANTINE: &str = "adjutant-quarantine";
use crate::config::{ImapConfig, Inbound, Outbound};
use crate::mail::imap;
use chrono::Utc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tracing::{info, instrument, warn};

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

impl Desk {
    /// Run until `stop` is set.
    pub fn serve(&self, stop: &Arc<AtomicBool>) -> Result<(), Error> {
        match self.cfg.inbound.clone() {
            Inbound::Maildir { .. } => {
                let mut backoff = 1u64;
                while !stop.load(Ordering::SeqCst) {
                    match self.run_once(Utc::now()) {
                        Ok(r) => {
                            backoff = 1;
                            if r.messages > 0 || r.resolved > 0 {
                                info!(?r, "pass");
                            }
                            sleep_unless(stop, self.cfg.limits.poll_seconds);
                        }
                        // A full disk, a folder gone: wait and try again;
                        // nothing is marked handled before it is journaled.
                        Err(e) => {
                            warn!(error = %e, retry_in = backoff, "the pass failed; trying again");
                            // What is already spooled still goes out.
                            if let Err(e) = self.deliver() {
                                warn!(error = %e, "delivery failed");
                            }
                            sleep_unless(stop, backoff);
                            backoff = (backoff * 2).min(60);
                        }
                    }
                }
                Ok(())
            }
            Inbound::Imap(c) => self.serve_imap(&c, stop),
        }
    }

    fn serve_imap(&self, c: &ImapConfig, stop: &Arc<AtomicBool>) -> Result<(), Error> {
        let mut backoff = 1u64;
        // The wait after a failed pass (a full disk), kept across
        // reconnections: it grows until a pass succeeds.
        let mut failing = 1u64;
        while !stop.load(Ordering::SeqCst) {
            let mut s = match imap::connect_until(c, Some(stop.clone())) {
                Ok(s) => s,
                Err(e) => {
                    warn!(error = %e, retry_in = backoff, "IMAP connection failed");
                    // Mail may still be spooled for sending meanwhile.
                    if let Err(e) = self.deliver() {
                        warn!(error = %e, "delivery failed");
                    }
                    sleep_unless(stop, backoff);
                    // At most a minute between attempts: a restarted
                    // server is found again within a minute.
                    backoff = (backoff * 2).min(60);
                    continue;
                }
            };
            info!(host = %c.host, "IMAP connected");
            backoff = 1;
            if let Err(e) = imap::ensure_folder(&mut s, &c.processed_folder) {
                warn!(error = %e, retry_in = backoff, "cannot create the processed folder");
                let _ = s.logout();
                sleep_unless(stop, backoff);
                backoff = (backoff * 2).min(60);
                continue;
            }
            while !stop.load(Ordering::SeqCst) {
                match self.imap_pass(&mut s, c, stop) {
                    Ok(r) => {
                        failing = 1;
                        if r.messages > 0 || r.resolved > 0 {
                            info!(?r, "pass");
                        }
                    }
                    Err(Error::Imap(e)) => {
                        warn!(error = %e, "IMAP session lost; reconnecting");
                        break;
                    }
                    // A full disk or another local failure: the daemon
                    // waits and tries again rather than exit.
                    Err(e) => {
                        warn!(error = %e, retry_in = failing, "the pass failed; trying again");
                        if let Err(e) = self.deliver() {
                            warn!(error = %e, "delivery failed");
                        }
                        sleep_unless(stop, failing);
                        failing = (failing * 2).min(300);
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

    /// One pass over an IMAP folder: fetch in batches, handle, commit (the
    /// journal is fsynced), and only then move the batch to the processed
    /// folder; then deadlines and delivery. A message handled but not yet
    /// moved when the daemon dies is seen again, recognised by its SHA-256,
    /// and only moved.
    #[instrument(skip_all, fields(folder = %c.folder))]
    pub fn imap_pass(&self, s: &mut imap::Session, c: &ImapConfig, stop: &AtomicBool) -> Result<PassReport, Error> {
        let _lock = self.lock()?;
        let mut report = PassReport::default();
        self.recover_spool()?;
        let (validity, uids) = imap::pending(s, &c.folder)?;
        self.note_validity(validity);
        for chunk in uids.chunks(c.batch.max(1)) {
            let msgs = imap::fetch(s, chunk)?;
            let mut open = Open::default();
            let mut done = Vec::new();
            let mut failed = Vec::new();
            for (uid, raw) in msgs {
                report.messages += 1;
                match self.handle_safely(&raw, None, Utc::now(), &mut report, &mut open)? {
                    Handled::Done(g) => done.push((uid, g)),
                    Handled::Failed(g) => {
                        // Quarantined; the game's earlier messages in this
                        // batch stay in the folder for the next pass.
                        if let Some(g) = &g {
                            done.retain(|(_, x)| x.as_ref() != Some(g));
                        }
                        self.quarantine(&raw)?;
                        failed.push(uid);
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    break;
                }
            }
            self.flush(&mut open, Utc::now())?;
            let uids: Vec<u32> = done.iter().map(|d| d.0).collect();
            imap::move_to(s, &uids, &c.processed_folder)?;
            if !failed.is_empty() {
                imap::ensure_folder(s, QUARANTINE)?;
                imap::move_to(s, &failed, QUARANTINE)?;
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        self.deadlines(Utc::now(), &mut report)?;
        report.sent += self.deliver()?;
        Ok(report)
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
        (ok, out)
    }
}
