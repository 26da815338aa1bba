//! Sending the spool through SMTP (or sendmail): in order, each letter
//! once as far as SMTP allows, backing off from a server that fails for
//! now, and from one recipient whose server fails for now (a 450, a full
//! mailbox) while the others' letters go on; a letter refused for good is
//! journaled in its game and its moderator told.

use super::{crash_point, io, letters, Batch, Desk, Error, Letter};
use crate::config::Outbound as OutCfg;
use crate::dice;
use crate::journal::kinds;
use crate::mail::smtp::{Failure, Sender};
use chrono::{DateTime, Utc};
use minijinja::context;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use tracing::{info, warn};

/// When a transport, or a recipient, may be tried again after a temporary
/// failure.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
struct Backoff {
    failures: u32,
    next: i64,
    last_error: String,
    /// When the failures began (Unix seconds).
    #[serde(default)]
    since: i64,
}

impl Backoff {
    /// One more failure at `now`: the next try after a capped exponential
    /// wait.
    fn failed(&mut self, now: i64, max_wait: u64, error: &str) -> u64 {
        if self.failures == 0 {
            self.since = now;
        }
        self.failures += 1;
        let wait = (5u64 << self.failures.min(20)).min(max_wait.max(5));
        self.next = now + wait as i64;
        self.last_error = error.to_string();
        wait
    }
}

/// `DATA/desk/outbound.toml`: the transport's back-off, and each
/// recipient's that their own server failed for now.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Outbound {
    #[serde(flatten)]
    transport: Backoff,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    recipients: BTreeMap<String, Backoff>,
}

impl Desk {
    /// Deliver spooled mail through the configured transport.
    pub fn deliver(&self) -> Result<usize, Error> {
        match &self.cfg.outbound {
            OutCfg::File { .. } => self.deliver_files(),
            OutCfg::Smtp(c) => {
                let sender = crate::mail::smtp::smtp(c).map_err(Error::Bad)?;
                self.deliver_via(&sender, c.retry_max_seconds, Utc::now())
            }
            OutCfg::Sendmail { command } => self.deliver_via(&crate::mail::smtp::sendmail(command), 3600, Utc::now()),
        }
    }

    /// The file transport: each spooled message is written into its
    /// recipient's outbox Maildir with LF line ends, then let go.
    fn deliver_files(&self) -> Result<usize, Error> {
        let dir = self.data.join("spool/new");
        let mut names: Vec<PathBuf> =
            fs::read_dir(&dir).map_err(io("read", &dir))?.flatten().map(|e| e.path()).collect();
        names.sort();
        let mut n = self.released.swap(0, std::sync::atomic::Ordering::Relaxed);
        let mut done = Vec::new();
        let mut known = std::mem::take(&mut *self.spooled.lock().unwrap_or_else(|e| e.into_inner()));
        for p in names {
            let name = p.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let mid = mail_id(&name);
            // What this desk spooled is known; anything else is read.
            let (bytes, recipients, cr) = match known.remove(&name) {
                Some(to) => (None, vec![to], false),
                None => {
                    let bytes = fs::read(&p).map_err(io("read", &p))?;
                    let to = crate::mail::parse::recipients(&bytes);
                    let cr = bytes.contains(&b'\r');
                    (Some(bytes), to, cr)
                }
            };
            n += 1;
            // The spool of the file transport already holds the local form
            // (LF, which local clients such as s-nail and mutt expect): a
            // letter to one recipient is moved into the outbox whole, which
            // lets it go from the spool in the same step.
            if let [to] = &recipients[..] {
                if !cr && self.move_to_outbox(&p, to, mid) {
                    continue;
                }
            }
            let bytes = match bytes {
                Some(b) => b,
                None => fs::read(&p).map_err(io("read", &p))?,
            };
            let local = crlf_to_lf(&bytes);
            for to in &recipients {
                self.copy_to_outbox(to, mid, &local)?;
            }
            done.push(p);
        }
        crash_point("delivered");
        // Delivered copies are made durable together, then the spool let go;
        // a crash in between re-delivers to the same file names. A letter
        // moved whole needs no sync: until its rename is durable it is
        // still in the spool.
        if !done.is_empty() {
            let root = self.outbox_root();
            crate::journal::sync_filesystem(&root).map_err(io("sync", &root))?;
        }
        for p in done {
            fs::remove_file(&p).map_err(io("remove", &p))?;
        }
        Ok(n)
    }
    /// Send spooled messages in order through `sender`, each exactly once
    /// as far as SMTP allows (the spool file goes only after the server
    /// took it). A temporary failure of the transport (the connection, the
    /// log-in, a 421) stops the pass and backs off (capped exponential); a
    /// temporary failure about one recipient (a 4xx to its RCPT, its mail)
    /// backs off that recipient alone: their later letters wait behind it,
    /// in order, and everyone else's go. A permanent one (5xx) moves the
    /// message to `spool/failed/`, journals it and tells the game's
    /// moderator.
    pub fn deliver_via(&self, sender: &Sender, max_wait: u64, now: DateTime<Utc>) -> Result<usize, Error> {
        let bp = self.data.join("desk/outbound.toml");
        let mut out: Outbound = fs::read_to_string(&bp).ok().and_then(|t| toml::from_str(&t).ok()).unwrap_or_default();
        let t = now.timestamp();
        if out.transport.failures > 0 && t < out.transport.next {
            return Ok(0);
        }
        let dir = self.data.join("spool/new");
        let mut names: Vec<PathBuf> =
            fs::read_dir(&dir).map_err(io("read", &dir))?.flatten().map(|e| e.path()).collect();
        names.sort();
        let mut n = 0;
        let mut outage = None;
        // Recipients whose letters wait this pass: behind a back-off, or a
        // failure in it; their later letters wait too, to keep the order.
        let mut waiting: Vec<String> =
            out.recipients.iter().filter(|(_, b)| t < b.next).map(|(r, _)| r.clone()).collect();
        for p in names {
            // Spooled in the local form while the transport was the file
            // transport, or in the wire form: CRLF either way.
            let bytes = lf_to_crlf(&fs::read(&p).map_err(io("read", &p))?);
            let name = p.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let to = crate::mail::parse::recipients(&bytes).into_iter().next().unwrap_or_default();
            let key = to.trim().to_lowercase();
            if waiting.contains(&key) {
                continue;
            }
            match sender.send(&self.cfg.game.address, &to, &bytes) {
                Ok(()) => {
                    fs::remove_file(&p).map_err(io("remove", &p))?;
                    n += 1;
                    if out.transport.failures > 0 {
                        outage = Some(std::mem::take(&mut out.transport));
                    }
                    if let Some(b) = out.recipients.remove(&key) {
                        info!(to = %to, attempts = b.failures, "mail to this recipient goes again");
                    }
                }
                Err(Failure::Recipient(e)) => {
                    let b = out.recipients.entry(key.clone()).or_default();
                    let wait = b.failed(t, max_wait, &e);
                    warn!(to = %to, error = %e, retry_in = wait, "this recipient's server refused the mail for now; the others' mail goes on");
                    waiting.push(key);
                }
                Err(Failure::Temporary(e)) => {
                    let wait = out.transport.failed(t, max_wait, &e);
                    warn!(to = %to, error = %e, retry_in = wait, "sending failed for now; the spool keeps the mail");
                    break;
                }
                Err(Failure::Permanent(e)) => {
                    warn!(to = %to, error = %e, "the server refused the mail for good");
                    let failed = self.data.join("spool/failed");
                    fs::create_dir_all(&failed).map_err(io("create", &failed))?;
                    fs::rename(&p, failed.join(&name)).map_err(io("move", &p))?;
                    out.recipients.remove(&key);
                    self.undeliverable(&name, &to, &e, now)?;
                }
            }
        }
        // A recipient with nothing left in the spool is forgotten.
        let left: Vec<String> = if out.recipients.is_empty() {
            Vec::new()
        } else {
            fs::read_dir(&dir)
                .map(|d| {
                    d.flatten()
                        .filter_map(|e| fs::read(e.path()).ok())
                        .filter_map(|b| crate::mail::parse::recipients(&b).into_iter().next())
                        .map(|r| r.trim().to_lowercase())
                        .collect()
                })
                .unwrap_or_default()
        };
        out.recipients.retain(|r, _| left.contains(r));
        let _ = crate::journal::write_atomic(&bp, toml::to_string(&out).unwrap_or_default().as_bytes(), None);
        if let Some(o) = outage {
            self.outage_over(&o, now)?;
        }
        Ok(n)
    }

    /// Sending works again after a transport failure (a refused log-in, a
    /// server down): one notice to each running game's moderator, who could
    /// not be told while it lasted. Spooled like a refusal, once per outage.
    fn outage_over(&self, o: &Backoff, now: DateTime<Utc>) -> Result<(), Error> {
        let since = DateTime::from_timestamp(o.since, 0).unwrap_or(now);
        info!(since = %since, attempts = o.failures, "sending works again");
        let mut moderators: Vec<String> = Vec::new();
        for id in self.game_ids()? {
            if let Ok(l) = self.load(&id) {
                if let Some(gm) = l.desk.gm.clone().filter(|_| !l.game.ended) {
                    if !moderators.iter().any(|m| crate::mail::same_address(m, &gm)) {
                        moderators.push(gm);
                    }
                }
            }
        }
        let text = format!(
            "Mail could not be sent from {} until {} ({} attempts). The last answer was:\n  {}\nNothing was lost: the replies waited and are going out now, in order.",
            since.format("%Y-%m-%d %H:%M UTC"),
            now.format("%Y-%m-%d %H:%M UTC"),
            o.failures,
            o.last_error
        );
        for gm in moderators {
            let letter = Letter {
                role: None,
                to: gm.clone(),
                subject: "sending mail failed for a while".into(),
                body: letters::fill("reply", context! { text => text }),
                svg: Vec::new(),
                in_reply_to: None,
            };
            let key = dice::to_hex(&dice::sha256(format!("outage {} {gm}", o.since).as_bytes()));
            self.send_loose(&letter, &key, now)?;
        }
        Ok(())
    }

    /// Journal a permanent delivery failure in its game and tell the
    /// moderator (unless the failed mail was the moderator's).
    fn undeliverable(&self, spool_name: &str, to: &str, reason: &str, now: DateTime<Utc>) -> Result<(), Error> {
        let mid = spool_name.splitn(3, '~').nth(2).unwrap_or("").trim_end_matches(".eml").to_string();
        let game = mid.split('.').next().unwrap_or("").to_string();
        let Ok(mut l) = self.load(&game) else { return Ok(()) };
        let mut batch = Batch::default();
        batch.entry(
            "undeliverable",
            &kinds::Mail {
                message_id: mid.clone(),
                to: to.to_string(),
                subject: reason.to_string(),
                sha256: String::new(),
            },
        );
        if let Some(gm) = l.desk.gm.clone() {
            if !crate::mail::same_address(&gm, to) {
                batch.letters.push(Letter {
                    role: Some("gm".into()),
                    to: gm,
                    subject: format!("[{game}] mail to {to} could not be delivered"),
                    body: letters::fill("reply", context! { text => format!("The mail server refused a message for {to} permanently:\n  {reason}\nThe player may need a new address (REPLACE <role> <email>).") }),
                    svg: Vec::new(),
                    in_reply_to: None,
                });
            }
        }
        self.commit(&mut l, batch, now)
    }
}

/// A message's line ends as SMTP wants them, for a letter spooled in the
/// local form when the transport was the file transport.
pub(super) fn lf_to_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && (i == 0 || bytes[i - 1] != b'\r') {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// A message's line ends as a Maildir file wants them: LF.
pub(super) fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    // The text between two CRLFs copied whole (every letter is converted).
    let mut from = 0;
    for i in memchr::memchr_iter(b'\r', bytes) {
        if bytes.get(i + 1) == Some(&b'\n') {
            out.extend_from_slice(&bytes[from..i]);
            from = i + 1;
        }
    }
    out.extend_from_slice(&bytes[from..]);
    out
}

/// The name an outbox gives a spooled letter: its spool file's name
/// (`stamp~index~message-id.eml`) after the stamp and the index.
pub(super) fn mail_id(spool_name: &str) -> &str {
    spool_name.splitn(3, '~').nth(2).unwrap_or(spool_name)
}

#[cfg(test)]
mod line_end_tests {
    use super::{crlf_to_lf, lf_to_crlf};

    /// CRLF becomes LF; a lone CR stays, as does a CR at the very end; and
    /// back again for SMTP.
    #[test]
    fn line_ends_convert_both_ways() {
        for (wire, local) in [
            (&b""[..], &b""[..]),
            (b"a\r\nb\r\n", b"a\nb\n"),
            (b"\r\n\r\n", b"\n\n"),
            (b"lone\rcr\r\n", b"lone\rcr\n"),
            (b"\r\r\nx\r", b"\r\nx\r"),
            (b"no end", b"no end"),
        ] {
            assert_eq!(crlf_to_lf(wire), local, "{:?}", String::from_utf8_lossy(wire));
        }
        assert_eq!(lf_to_crlf(b"a\nb\r\nc\n"), b"a\r\nb\r\nc\r\n");
    }
}
