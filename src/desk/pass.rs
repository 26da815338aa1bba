//! One pass over an inbox, written once for every kind of inbox: a local
//! Maildir or an IMAP folder. The crash-safety order lives here: handle a
//! batch, commit it (journal fsynced, replies released or handed to the
//! pass's threads to release, `files.rs`), and only then mark its messages
//! handled; a message seen again after a crash is recognised by its digest
//! or Message-ID and only marked.

use super::{crash_point, io, Batch, Desk, Error, Files, Handled, Loaded, Open, PassReport};
use crate::config::ImapConfig;
use crate::mail::{imap, maildir::Maildir};
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use tracing::{instrument, warn};

/// The IMAP folder for messages that could not be handled.
pub const QUARANTINE: &str = "adjutant-quarantine";

pub use crate::config::GROUP;

/// How many bytes of letters (texts and maps, before they are drawn and
/// encoded) a pass holds before it commits them: what keeps its memory
/// bounded over any backlog (docs/performance.md: a pass over 1,500 games
/// each resolving a step peaks at 57 MB with maps, 50 MB without, beside
/// the games a desk keeps warm). Each
/// commit costs two syncs; 2 MB is a score of Mantua games' letters.
const PENDING_LETTERS: usize = 2 << 20;

/// More steps than this due in one pass make it a backlog (after an outage,
/// say): a daemon that polls every minute meets a few at a time. Mail for
/// many games is not: games kept warm are what makes a daemon's passes
/// over them fast, and their letters are cheap next to a step's maps.
const BACKLOG: usize = 64;

/// Messages fetched from an inbox: (id, raw bytes).
pub type Fetched<Id> = Vec<(Id, Vec<u8>)>;

/// Where waiting mail comes from. Marking is the last thing a pass does to
/// a message, after its batch is committed.
pub trait Inbox {
    type Id: Clone;
    /// Every waiting message, oldest first.
    fn pending(&mut self) -> Result<Vec<Self::Id>, Error>;
    /// How many messages one commit covers.
    fn batch(&self) -> usize;
    /// The raw bytes of some waiting messages; one that cannot be read is
    /// left where it is (logged) and missing from the answer.
    fn fetch(&mut self, ids: &[Self::Id]) -> Result<Fetched<Self::Id>, Error>;
    /// Handled and committed: never to be handled again. A local inbox
    /// moves its files through `files`, after the commit's releases; an
    /// IMAP folder moves its messages at once (the commit's journals are
    /// synced, so a release not yet done is done by the next pass).
    fn mark_handled(&mut self, ids: &[Self::Id], files: &Files) -> Result<(), Error>;
    /// Could not be handled: out of the way (a copy is in quarantine).
    fn set_aside(&mut self, ids: &[Self::Id]) -> Result<(), Error>;
}

/// The local Maildir: handled messages move from `new/` to `cur/`.
pub struct MaildirInbox {
    md: Maildir,
    group: usize,
    /// Where each mail is read first: zeroed once a pass, when the first
    /// mail is read, not once a mail.
    scratch: Vec<u8>,
}

impl MaildirInbox {
    /// The Maildir at `path`, read `group` messages a commit.
    pub fn open(path: &Path, group: usize) -> Result<Self, Error> {
        let md = Maildir::open(path).map_err(io("open inbox", path))?;
        Ok(MaildirInbox { md, group: group.clamp(1, GROUP), scratch: Vec::new() })
    }
}

impl Inbox for MaildirInbox {
    type Id = PathBuf;
    fn pending(&mut self) -> Result<Vec<PathBuf>, Error> {
        self.md.list_new().map_err(io("read inbox", &self.md.root))
    }
    fn batch(&self) -> usize {
        self.group
    }
    fn fetch(&mut self, ids: &[PathBuf]) -> Result<Fetched<PathBuf>, Error> {
        Ok(ids
            .iter()
            .filter_map(|p| match read_mail(p, &mut self.scratch) {
                Ok(raw) => Some((p.clone(), raw)),
                Err(e) => {
                    warn!(file = %p.display(), error = %e, "cannot read inbound message; leaving it");
                    None
                }
            })
            .collect())
    }
    fn mark_handled(&mut self, ids: &[PathBuf], files: &Files) -> Result<(), Error> {
        for p in ids {
            files.mark(p.clone(), self.md.seen_path(p).map_err(io("mark processed", p))?)?;
        }
        Ok(())
    }
    fn set_aside(&mut self, ids: &[PathBuf]) -> Result<(), Error> {
        self.mark_handled(ids, &Files::default())
    }
}

/// A mail's bytes, read without asking the file its size first (`fs::read`
/// and `read_to_end` on a file each cost one or two system calls more a
/// mail, and `read_to_end` reads 8 KB at a time), until a read gives
/// nothing: a short read is not the end on every file system (FUSE, some
/// network ones), and a mail cut short would be handled as if whole. Read
/// into `scratch` (grown for a larger mail, zeroed only then), then copied
/// at its length: a group holds its mails until its commit. Two reads for
/// a mail that fits.
fn read_mail(p: &Path, scratch: &mut Vec<u8>) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut f = std::fs::File::open(p)?;
    let mut n = 0;
    loop {
        if n == scratch.len() {
            scratch.resize((2 * n).max(64 * 1024), 0);
        }
        match f.read(&mut scratch[n..]) {
            Ok(0) => return Ok(scratch[..n].to_vec()),
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// An IMAP folder: handled messages move to the processed folder, those
/// that could not be handled to [`QUARANTINE`].
pub struct ImapInbox<'s> {
    pub session: &'s mut imap::Session,
    pub cfg: &'s ImapConfig,
    /// The folder's UIDVALIDITY, once selected.
    pub validity: Option<u32>,
}

impl Inbox for ImapInbox<'_> {
    type Id = u32;
    fn pending(&mut self) -> Result<Vec<u32>, Error> {
        let (v, uids) = imap::pending(self.session, &self.cfg.folder)?;
        self.validity = Some(v);
        Ok(uids)
    }
    fn batch(&self) -> usize {
        // No more than the dedupe window can hold twice over (seen.rs).
        self.cfg.batch.clamp(1, GROUP)
    }
    fn fetch(&mut self, ids: &[u32]) -> Result<Fetched<u32>, Error> {
        Ok(imap::fetch(self.session, ids)?)
    }
    fn mark_handled(&mut self, ids: &[u32], _: &Files) -> Result<(), Error> {
        Ok(imap::move_to(self.session, ids, &self.cfg.processed_folder)?)
    }
    fn set_aside(&mut self, ids: &[u32]) -> Result<(), Error> {
        if !ids.is_empty() {
            imap::ensure_folder(self.session, QUARANTINE)?;
            imap::move_to(self.session, ids, QUARANTINE)?;
        }
        Ok(())
    }
}

impl Desk {
    /// Resolve every open step whose deadline has passed, and send the
    /// reminders that are due. Only games whose tip says something may be
    /// due are loaded (an idle pass reads one small file a game), and
    /// everything due is committed together.
    pub(crate) fn deadlines(&self, now: DateTime<Utc>, report: &mut PassReport) -> Result<(), Error> {
        use super::store::{Due, Pending};
        let reminder = self.cfg.deadlines.reminder();
        let mut due: Vec<(Loaded, Batch)> = Vec::new();
        let mut weight = 0;
        let mut backlog = false;
        let ids = self.game_folders()?;
        // The tip's copy of the deadline facts spares loading the game (a
        // game without a tip, from an older adjutant, is loaded).
        // Looked up on every core: a cold pass reads and parses thousands
        // of tips, a warm one stats them.
        let pending = |id: &String| match self.due_of(id) {
            Some(d) => d.pending(now, reminder),
            // No tip (a game from an older adjutant): loaded to learn what
            // it needs, as a game with a reminder due would be.
            None if super::store::game_dir(&self.data, id).join("journal.toml").exists() => Pending::Remind,
            None => Pending::Nothing,
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let share = ids.len().div_ceil(cores).max(256);
        let looked: Vec<Pending> = std::thread::scope(|scope| {
            let parts: Vec<_> =
                ids.chunks(share).map(|c| scope.spawn(move || c.iter().map(pending).collect::<Vec<_>>())).collect();
            parts.into_iter().flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        });
        let resolving = looked.iter().filter(|p| **p == Pending::Resolve).count();
        let candidates: Vec<&String> =
            ids.iter().zip(&looked).filter(|(_, p)| **p != Pending::Nothing).map(|(id, _)| id).collect();
        // Many steps due at once (after an outage) is a backlog: the games
        // kept warm are dropped before its first picture is drawn, not
        // after, and its games are not kept ([`Desk::keep`]).
        if resolving > BACKLOG {
            backlog = true;
            self.cool();
        }
        for id in candidates {
            let mut l = match self.load(id) {
                Ok(l) => l,
                Err(Error::Store(super::store::Error::Held { message, .. })) => {
                    self.tell_held(id, &message, now)?;
                    continue;
                }
                Err(e) => {
                    warn!(game = %id, error = %e, "cannot load game");
                    continue;
                }
            };
            // A game whose resolution fails (a bug, a broken journal) is
            // logged and skipped; the other games go on.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<Batch, Error> {
                let mut batch = Batch::default();
                match Due::of(&l).pending(now, reminder) {
                    Pending::Resolve => {
                        if self.referee().resolve_steps(&mut l, &mut batch, now)? {
                            report.resolved += 1;
                        }
                    }
                    Pending::Remind => self.referee().remind(&mut l, &mut batch),
                    Pending::Nothing => {}
                }
                Ok(batch)
            }));
            match r {
                Ok(Ok(batch)) if batch.is_empty() => {}
                Ok(Ok(batch)) => {
                    weight += batch.weight();
                    due.push((l, batch));
                    // Committed as they come once their letters would hold
                    // more than a budget: a backlog of games due at once (a
                    // weekend's outage) never holds all its maps.
                    if weight > PENDING_LETTERS {
                        self.commit_all(due.iter_mut().map(|(l, b)| (l, std::mem::take(b))).collect(), now)?;
                        self.keep(due.drain(..).map(|(l, _)| l), false);
                        weight = 0;
                        if !backlog {
                            backlog = true;
                            self.cool();
                        }
                    }
                }
                Ok(Err(e @ (Error::Io { .. } | Error::Journal(_)))) => return Err(e),
                Ok(Err(e)) => warn!(game = %id, error = %e, "cannot resolve the step; skipped"),
                Err(_) => warn!(game = %id, "resolving the step panicked; skipped"),
            }
        }
        self.commit_all(due.iter_mut().map(|(l, b)| (l, std::mem::take(b))).collect(), now)?;
        self.keep(due.into_iter().map(|(l, _)| l), !backlog);
        self.write_tips_index(&ids);
        Ok(())
    }

    /// One pass: recover the spool, handle every waiting message in
    /// batches (each committed before its messages are marked), resolve
    /// steps past their deadline, deliver. `now` is read for each message;
    /// `stop` ends the pass after the message in hand.
    #[instrument(skip_all)]
    pub fn pass<I: Inbox>(
        &self,
        inbox: &mut I,
        now: &dyn Fn() -> DateTime<Utc>,
        stop: &AtomicBool,
    ) -> Result<PassReport, Error> {
        let _lock = self.lock()?;
        let mut report = PassReport::default();
        self.recover_spool()?;
        let ids = inbox.pending()?;
        // One set of open games for the whole pass: each group is committed
        // (journals synced) before its messages are marked, but a game's
        // snapshot and tip are written once, at the end. An idle pass
        // starts no thread.
        if !ids.is_empty() {
            std::thread::scope(|s| {
                // The threads end when `files` is dropped, here or on a
                // failure or panic, and the scope waits for them: nothing
                // they do outlives the pass or its lock.
                let files = Files::start(s, self);
                let mut open = self.groups(inbox, &ids, now, stop, &mut report, &files)?;
                // Written while the last group's releases and marks go on.
                self.settle(&mut open)?;
                files.wait()
            })?;
        }
        self.deadlines(now(), &mut report)?;
        report.sent += self.deliver()?;
        Ok(report)
    }

    /// The pass's messages in groups: each handled, committed, then marked,
    /// the file operations through `files`. The games it opened, to settle.
    fn groups<I: Inbox>(
        &self,
        inbox: &mut I,
        ids: &[I::Id],
        now: &dyn Fn() -> DateTime<Utc>,
        stop: &AtomicBool,
        report: &mut PassReport,
        files: &Files,
    ) -> Result<Open, Error> {
        let mut open = Open::default();
        for chunk in ids.chunks(inbox.batch().max(1)) {
            let mut done: Vec<(I::Id, Option<String>)> = Vec::new();
            let mut failed = Vec::new();
            for (id, raw) in inbox.fetch(chunk)? {
                report.messages += 1;
                match self.handle_safely(&raw, now(), report, &mut open)? {
                    Handled::Done(g) => done.push((id, g)),
                    // Its game is held: the mail stays for a later pass.
                    Handled::Waits => {}
                    Handled::Failed(g, why) => {
                        // The failing message goes to quarantine; its
                        // game's uncommitted work is dropped, and that
                        // game's earlier messages stay for the next pass.
                        if let Some(g) = &g {
                            done.retain(|(_, x)| x.as_ref() != Some(g));
                        }
                        self.quarantine(&raw, g.as_deref(), &why, now())?;
                        failed.push(id);
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                // A group is committed early once its letters would hold
                // more than a budget (looked at every few messages: the
                // sum is over the games open).
                if report.messages.is_multiple_of(32)
                    && open.games.values().map(|(_, b)| b.weight()).sum::<usize>() > PENDING_LETTERS
                {
                    self.commit_group(inbox, &mut open, &mut done, &mut failed, now, files)?;
                }
            }
            self.commit_group(inbox, &mut open, &mut done, &mut failed, now, files)?;
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        Ok(open)
    }

    /// A group's work committed, then its messages marked handled (or set
    /// aside).
    fn commit_group<I: Inbox>(
        &self,
        inbox: &mut I,
        open: &mut Open,
        done: &mut Vec<(I::Id, Option<String>)>,
        failed: &mut Vec<I::Id>,
        now: &dyn Fn() -> DateTime<Utc>,
        files: &Files,
    ) -> Result<(), Error> {
        self.attempted(open);
        self.flush(open, now(), files)?;
        crash_point("flushed");
        let handled: Vec<I::Id> = done.drain(..).map(|d| d.0).collect();
        inbox.mark_handled(&handled, files)?;
        inbox.set_aside(failed)?;
        failed.clear();
        Ok(())
    }

    /// One pass over the local Maildir at the time `now` (tests and the
    /// simulated clock use a fixed time).
    pub fn run_once(&self, now: DateTime<Utc>) -> Result<PassReport, Error> {
        let mut inbox = MaildirInbox::open(&self.inbox_path(), self.cfg.limits.group_messages)?;
        self.pass(&mut inbox, &|| now, &AtomicBool::new(false))
    }
}

#[cfg(test)]
mod tests {
    use super::read_mail;

    /// Every byte, whatever the size: empty, under one read, over the
    /// buffer first given, and over many reads.
    #[test]
    fn a_mail_is_read_whole() {
        let dir = std::env::temp_dir().join(format!("adjutant-read-mail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The scratch grows past its first size too; a larger mail read
        // after a smaller one is read whole, and a smaller one after a
        // larger one no longer than itself.
        let mut scratch = Vec::new();
        for len in [0, 1, 150, 65_536, 65_537, 300_000, 8192, 2] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let p = dir.join(format!("m{len}"));
            std::fs::write(&p, &bytes).unwrap();
            let read = read_mail(&p, &mut scratch).unwrap();
            assert!(read == bytes, "{len} bytes written, {} read", read.len());
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
