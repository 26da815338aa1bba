//! Committing what the referee decided, in the one crash-safe order: the
//! letters rendered into `spool/tmp` and made durable, then the entries
//! (naming the letters' digests) appended to every journal and made
//! durable, then the letters released and the snapshots and tips written.
//! A restart releases spooled letters the journal names and discards the
//! rest. Letters of no game (refusals to strangers, notices) are spooled,
//! recorded, then released, in the same spirit.

use super::core::{letters, Batch, Letter, Map};
use super::files::Files;
use super::outbound::{crlf_to_lf, mail_id};
use super::{archive, crash_point, descriptor_limits, io, store, Desk, Error, Loaded, Open, LOOSE};
use crate::config::Outbound as OutCfg;
use crate::dice;
use crate::journal::kinds;
use crate::mail::compose::{self, Outgoing};
use crate::mail::maildir::{safe_name, Maildir};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;
use tracing::warn;

/// A batch on its way into the journal: its letters are in `spool/tmp`
/// under these names, its entries (with the letters' `mail` entries)
/// chained and not yet appended.
pub struct Staged {
    linked: Vec<crate::journal::Entry>,
    spooled: Vec<String>,
}

impl Desk {
    /// Commit one game's batch (see [`Desk::commit_all`]).
    pub fn commit(&self, l: &mut Loaded, batch: Batch, now: DateTime<Utc>) -> Result<(), Error> {
        self.commit_all(vec![(l, batch)], now)
    }

    /// Commit the batches of several games together, in the crash-safe
    /// order, with two syncs however many games there are: every game's
    /// letters are written to `spool/tmp`, and made durable; then every
    /// journal gets its entries (naming those letters), made durable; then
    /// the letters are released and the snapshots and tips written.
    pub fn commit_all(&self, games: Vec<(&mut Loaded, Batch)>, now: DateTime<Utc>) -> Result<(), Error> {
        self.commit_batches(games, now, true, &Files::default())
    }

    /// [`Desk::commit_all`], with the snapshots and tips written (`save`)
    /// or left to the end of the pass. Those are caches of the journal, not
    /// synced: a tip behind the journal (a crash before the pass ends) only
    /// means the game is rebuilt from its journal when next loaded.
    /// Its file operations go through `files`: its letters' writes, and
    /// every operation given before them, are waited for before the
    /// spool's sync; its releases, given after the journals' sync, by the
    /// next commit or the end of the pass.
    pub(super) fn commit_batches(
        &self,
        games: Vec<(&mut Loaded, Batch)>,
        now: DateTime<Utc>,
        save: bool,
        files: &Files,
    ) -> Result<(), Error> {
        // Each game, its staged batch, and whether its folder is on another
        // file system than the data folder (a link under `games/`), which
        // the data folder's syncs do not reach.
        let mut staged = Vec::new();
        // Past a share of the process's descriptors, each game's files are
        // let go once written: the syncs below are of the file system.
        let many = games.len() > games_with_open_files();
        let dev = device(&self.data).map_err(io("stat", &self.data))?;
        for (l, batch) in games {
            // The mail its messages named, written with the replies, so
            // that the sync below covers both (or synced here, below, for a
            // game folder that sync does not reach).
            let flushed = l.archive.flush(&l.dir);
            flushed.map_err(|source| Error::Io { what: "archive", path: l.dir.join(archive::MBOX), source })?;
            if many {
                l.archive.close();
            }
            if batch.is_empty() {
                continue;
            }
            // A game folder on another file system: its archived mail made
            // durable on its own, before the entries that name it (and
            // before its letters are spooled, which a failure here would
            // leave behind).
            let elsewhere = device(&l.dir).map_err(io("stat", &l.dir))? != dev;
            if elsewhere {
                l.archive.sync(&l.dir).map_err(|(path, source)| Error::Io { what: "sync", path, source })?;
            }
            // Fresh dice chains (a renewal) are kept, synced, before the
            // entries that publish their anchors.
            let mut batch = batch;
            if let Some(secrets) = batch.secrets.take() {
                store::write_secrets(&l.dir, &secrets)?;
            }
            let s = self.stage(l, batch, now, files)?;
            staged.push((l, s, elsewhere));
        }
        // The entries were chained (their hashes worked out) as the
        // letters were staged, while the threads write them.
        let linked: Vec<_> = staged.iter_mut().map(|(_, s, _)| std::mem::take(&mut s.linked)).collect();
        // Every letter written, and every move an earlier group of the pass
        // gave (its releases and inbox marks) done: at most one group is
        // ever committed and not yet marked, which is what the games'
        // dedupe windows are sized for (`seen.rs`).
        files.wait()?;
        crash_point("written");
        if staged.is_empty() {
            return Ok(());
        }
        // The replies, and the archived mail, must be on disk before the
        // entries that release the one and name the other.
        let d = self.data.join("spool/tmp");
        crate::journal::sync_filesystem(&d).map_err(io("sync", &d))?;
        crash_point("spooled");
        for ((l, _, _), entries) in staged.iter_mut().zip(linked) {
            l.journal.write_linked(entries)?;
            if many {
                l.journal.close();
            }
        }
        self.sync_journals(staged.iter().map(|(l, _, elsewhere)| (l.journal.path(), *elsewhere)))?;
        crash_point("journaled");
        for (l, s, _) in staged.iter_mut() {
            for name in std::mem::take(&mut s.spooled) {
                files.release(self, name)?;
            }
            crash_point("released");
            if save {
                l.save()?;
            }
        }
        // Read these tips afresh next time, unless [`Desk::keep`] records
        // the key of the one this desk writes.
        if let Some(tips) = self.tips.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            for (l, _, _) in &staged {
                tips.remove(&l.game.id);
            }
        }
        Ok(())
    }

    /// Let a letter go once its entries are durable: into `spool/new` for
    /// the transport or, under the file transport, straight into its one
    /// recipient's outbox when this desk knows who that is (one rename a
    /// letter, not two). A crash before the rename leaves it in
    /// `spool/tmp`, which [`Desk::recover_spool`] releases; an outbox the
    /// rename cannot reach (another file system, a folder gone) leaves it
    /// to [`Desk::deliver`].
    pub(super) fn release(&self, name: &str) -> Result<(), Error> {
        let a = self.data.join("spool/tmp").join(name);
        if matches!(self.cfg.outbound, OutCfg::File { .. }) {
            // Not held over the rename: the pass's thread that stages
            // letters takes the same lock.
            let to = self.spooled.lock().unwrap_or_else(|e| e.into_inner()).get(name).cloned();
            if let Some(to) = to {
                if self.move_to_outbox(&a, &to, mail_id(name)) {
                    self.spooled.lock().unwrap_or_else(|e| e.into_inner()).remove(name);
                    self.released.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return Ok(());
                }
            }
        }
        let b = self.data.join("spool/new").join(name);
        fs::rename(&a, &b).map_err(io("release", &a))
    }

    /// Move the letter at `path`, in its local form, whole into the outbox
    /// of `to` under `mid` (one rename), through the outboxes this desk
    /// opened once for the process. False when the rename cannot reach the
    /// outbox (another file system, a folder removed by hand): the letter
    /// is then copied, and the outbox opened afresh, its folders made
    /// again, next time.
    pub(super) fn move_to_outbox(&self, path: &Path, to: &str, mid: &str) -> bool {
        let mut outboxes = self.outboxes.lock().unwrap_or_else(|e| e.into_inner());
        let Ok(md) = self.cached_outbox(&mut outboxes, to) else { return false };
        match md.adopt(path, mid) {
            Ok(_) => true,
            // The outbox is on another file system: it is fine, and kept;
            // only a copy reaches it.
            Err(e) if e.raw_os_error() == Some(libc::EXDEV) => false,
            Err(_) => {
                outboxes.remove(to);
                false
            }
        }
    }

    /// Copy a letter in its local form into the outbox of `to` (a letter
    /// to several, a lone CR, an outbox on another file system). A copy
    /// that fails is tried once more in the outbox opened afresh, its
    /// folders made again (one removed by hand).
    pub(super) fn copy_to_outbox(&self, to: &str, mid: &str, local: &[u8]) -> Result<(), Error> {
        let mut outboxes = self.outboxes.lock().unwrap_or_else(|e| e.into_inner());
        if self.cached_outbox(&mut outboxes, to)?.deliver_with(mid, local, false).is_ok() {
            return Ok(());
        }
        outboxes.remove(to);
        let md = self.cached_outbox(&mut outboxes, to)?;
        md.deliver_with(mid, local, false).map(|_| ()).map_err(io("deliver", &md.root))
    }

    /// The outbox of `to` from `outboxes`, opened (its folders made) the
    /// first time: once for the process, not once a letter.
    pub(super) fn cached_outbox<'a>(
        &self,
        outboxes: &'a mut HashMap<String, Maildir>,
        to: &str,
    ) -> Result<&'a Maildir, Error> {
        if !outboxes.contains_key(to) {
            let md = self.open_outbox(to)?;
            outboxes.insert(to.to_string(), md);
        }
        Ok(&outboxes[to])
    }

    /// Make the journals just appended durable: one file-system sync for
    /// those on the data folder's file system, an fsync for any elsewhere.
    pub(super) fn sync_journals<'a>(&self, journals: impl Iterator<Item = (&'a Path, bool)>) -> Result<(), Error> {
        let mut same = false;
        for (p, elsewhere) in journals {
            if elsewhere {
                fs::File::open(p).and_then(|f| f.sync_all()).map_err(io("sync", p))?;
            } else {
                same = true;
            }
        }
        if same {
            crate::journal::sync_filesystem(&self.data).map_err(io("sync", &self.data))?;
        }
        Ok(())
    }

    /// Render a batch's letters into `spool/tmp` (not synced) and chain
    /// its entries, with the letters' `mail` entries after them: what
    /// [`Desk::commit_all`] then journals.
    pub(super) fn stage(
        &self,
        l: &mut Loaded,
        mut batch: Batch,
        now: DateTime<Utc>,
        files: &Files,
    ) -> Result<Staged, Error> {
        let base = l.journal.last_seq + 1;
        let mut spooled = Vec::new();
        let mut letters = std::mem::take(&mut batch.letters);
        let at = now.to_rfc3339();
        // Every letter carries the journal's tip after the entries that led
        // to it (its own `mail` entry, which names its digest, aside): a
        // witness outside the operator's disk of every entry that changed
        // what anyone sees, which `adjutant verify` holds the published
        // journal to (docs/journal-v1.md).
        let mut linked = l.journal.link_values(&at, std::mem::take(&mut batch.entries));
        let (tip_seq, tip_hash) = match linked.last() {
            Some(e) => (e.seq, e.hash.as_str()),
            None => (l.journal.last_seq, l.journal.last_hash.as_str()),
        };
        let block = letters::journal_block(&l.game.id, tip_seq, tip_hash);
        let tag = tip_hash[..8.min(tip_hash.len())].to_string();
        // A rolled-back game says so in every mail after it.
        let rolled = super::core::rollback::note(&l.desk.rollbacks);
        for letter in letters.iter_mut() {
            letter.body.push_str(&rolled);
            letter.body.push_str(&block);
        }
        let mut mails = Vec::new();
        // Each distinct picture is drawn once for the batch: recipients who
        // share a view (the public one, a side's) share its PNG.
        let mut drawn = Drawn::default();
        let prefs = |letter: &Letter| {
            letter.role.as_ref().and_then(|r| l.desk.maps.get(r)).unwrap_or(&self.cfg.mail.maps).as_str()
        };
        drawn.draw_all(letters.iter().flat_map(|letter| pictures(&letter.svg, prefs(letter))));
        for (i, letter) in letters.iter().enumerate() {
            let (_, domain) = self.referee().split_game_address();
            // A letter about a step (its subject says "[game] step k")
            // names it in its id too, so a reply (In-Reply-To, References)
            // tells which step it answers; other letters name none.
            // The batch's first entry and the start of its tip's hash: an
            // id never given twice, not even after a re-anchored journal
            // has numbered its entries again from a cut (a client drops a
            // mail whose id it has seen; a file transport would overwrite
            // the mail that showed the cut).
            let mid = match super::core::orders::replied_step(&letter.subject, &l.game.id) {
                Some(k) => format!("{}.{base}-{tag}.{i}.s{k}@{domain}", l.game.id),
                None => format!("{}.{base}-{tag}.{i}@{domain}", l.game.id),
            };
            // A letter that cannot be written (an address lettre refuses)
            // is left out, never allowed to stop the batch it belongs to.
            let epoch = letter.role.as_ref().and_then(|r| l.desk.epochs.get(r)).copied().unwrap_or(0);
            let bytes = match self.render(&l.game.id, l.game.step, epoch, letter, &mid, now, prefs(letter), &mut drawn)
            {
                Ok(b) => b,
                Err(e) => {
                    warn!(game = %l.game.id, to = %letter.to, error = %e, "letter left out");
                    continue;
                }
            };
            let name = format!("{}~{:03}~{}.eml", spool_stamp(now, base), i, safe_name(&mid));
            let tmp = self.data.join("spool/tmp").join(&name);
            let form = self.spool_form(&bytes);
            if matches!(self.cfg.outbound, OutCfg::File { .. }) && !form.contains(&b'\r') {
                // A letter is rendered to its one address and no other.
                self.spooled.lock().unwrap_or_else(|e| e.into_inner()).insert(name.clone(), letter.to.clone());
            }
            files.spool(tmp, form)?;
            let mail = kinds::Mail {
                message_id: mid,
                to: letter.to.clone(),
                subject: letter.subject.clone(),
                sha256: dice::to_hex(&dice::sha256(&bytes)),
            };
            mails.push(("mail".to_string(), toml::Value::try_from(&mail).expect("journal bodies serialize")));
            spooled.push(name);
        }
        l.journal.link_values_onto(&mut linked, &at, mails);
        Ok(Staged { linked, spooled })
    }

    /// Spool a letter that belongs to no game (a refusal to a stranger, a
    /// notice about the transport or a mail set aside), once for `key` (the
    /// inbound mail's digest, the outage's start and recipient), in the
    /// crash-safe order of a game's letters: written to `spool/tmp`, then
    /// recorded (`DATA/desk/refused`, a day's worth, synced), then released.
    /// A crash before the record leaves a letter [`Desk::recover_spool`]
    /// discards and the mail, handled again, writes anew; a crash after it
    /// a letter recovery releases, and the mail handled again finds the key
    /// recorded: one letter goes out, whatever the crash point.
    pub fn send_loose(&self, letter: &Letter, key: &str, now: DateTime<Utc>) -> Result<(), Error> {
        let (_, domain) = self.referee().split_game_address();
        let key = &key[..key.len().min(32)];
        let t = now.timestamp();
        let mut done = self.loose_record(t);
        if done.iter().any(|(k, _)| k == key) {
            return Ok(());
        }
        let mid = format!("{LOOSE}.{key}@{domain}");
        let bytes = self.render("-", 0, 0, letter, &mid, now, &self.cfg.mail.maps, &mut Drawn::default())?;
        let name = format!("0~000~{}.eml", safe_name(&mid));
        let tmp = self.data.join("spool/tmp").join(&name);
        write_synced(&tmp, &self.spool_form(&bytes)).map_err(io("spool", &tmp))?;
        crash_point("loose-written");
        done.push((key.to_string(), t));
        let text: String = done.iter().map(|(k, at)| format!("{k} {at}\n")).collect();
        let rp = self.data.join("desk/refused");
        crate::journal::write_atomic(&rp, text.as_bytes(), None).map_err(io("write", &rp))?;
        crash_point("loose-recorded");
        let new = self.data.join("spool/new").join(&name);
        fs::rename(&tmp, &new).map_err(io("release", &tmp))
    }

    /// The keys of the letters of no game spooled in the last day, and when.
    pub(super) fn loose_record(&self, now: i64) -> Vec<(String, i64)> {
        fs::read_to_string(self.data.join("desk/refused"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once(' ').and_then(|(k, at)| Some((k.to_string(), at.parse().ok()?))))
            .filter(|(_, at)| now - at < 86_400)
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn render(
        &self,
        game: &str,
        step: u32,
        epoch: u32,
        letter: &Letter,
        mid: &str,
        now: DateTime<Utc>,
        maps: &str,
        drawn: &mut Drawn,
    ) -> Result<Vec<u8>, Error> {
        let reply_to = match &letter.role {
            Some(r) if game != "-" => Some(self.reply_address_at(game, r, epoch)),
            _ => None,
        };
        let mut headers = Vec::new();
        if game != "-" {
            headers.push(("X-Adjutant-Game".to_string(), game.to_string()));
            headers.push(("X-Adjutant-Step".to_string(), step.to_string()));
        }
        let o = Outgoing {
            message_id: mid.to_string(),
            from: self.cfg.game.address.clone(),
            from_name: self.cfg.game.name.clone(),
            to: letter.to.clone(),
            reply_to,
            subject: letter.subject.clone(),
            in_reply_to: letter.in_reply_to.clone(),
            body: letter.body.clone(),
            attachments: attachments(&letter.svg, maps, drawn),
            headers,
            date: now.into(),
        };
        compose::render(&o).map_err(|e| Error::Bad(e.to_string()))
    }

    /// After a crash: letters left in spool/tmp are released if their
    /// Message-ID is journaled, else discarded (their entries never landed).
    pub fn recover_spool(&self) -> Result<(), Error> {
        let tmpdir = self.data.join("spool/tmp");
        let mut journaled: BTreeMap<String, bool> = BTreeMap::new();
        let mut loose: Option<Vec<(String, i64)>> = None;
        for e in fs::read_dir(&tmpdir).map_err(io("read", &tmpdir))?.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let game = name.split('~').nth(2).and_then(|m| m.split('.').next()).unwrap_or("").to_string();
            if game == LOOSE {
                // A letter of no game: released if its key was recorded.
                let key = name.split('~').nth(2).and_then(|m| m.split('.').nth(1)).and_then(|k| k.split('_').next());
                let done = loose.get_or_insert_with(|| self.loose_record(Utc::now().timestamp()));
                journaled.insert(name.clone(), key.is_some_and(|k| done.iter().any(|(d, _)| d == k)));
            }
            let known = *journaled.entry(name.clone()).or_insert_with(|| {
                let jp = store::game_dir(&self.data, &game).join("journal.toml");
                let mid_safe = name.splitn(3, '~').nth(2).unwrap_or("").trim_end_matches(".eml").to_string();
                crate::journal::read(&jp)
                    .map(|es| {
                        es.iter().filter(|x| x.kind == "mail").any(|x| {
                            x.body::<kinds::Mail>().map(|m| safe_name(&m.message_id) == mid_safe).unwrap_or(false)
                        })
                    })
                    .unwrap_or(false)
            });
            if known {
                fs::rename(e.path(), self.data.join("spool/new").join(&name)).map_err(io("release", &e.path()))?;
            } else {
                warn!(file = %name, "discarding a reply whose journal entry never landed");
                let _ = fs::remove_file(e.path());
            }
        }
        Ok(())
    }

    /// The form a letter is spooled in: the wire form (CRLF) for SMTP, the
    /// local form (LF) for the file transport, which then delivers the
    /// spool file itself. The journal's digest is always the wire form's.
    pub(super) fn spool_form(&self, wire: &[u8]) -> Vec<u8> {
        match self.cfg.outbound {
            OutCfg::File { .. } => crlf_to_lf(wire),
            OutCfg::Smtp(_) | OutCfg::Sendmail { .. } => wire.to_vec(),
        }
    }

    /// Commit every open game's batch (journal, then replies), in game
    /// order. The games stay open for the pass's next group, their
    /// snapshots and tips unwritten until [`Desk::settle`], unless the pass
    /// holds more games than the desk keeps in memory.
    /// Its file operations go through `files`.
    pub fn flush(&self, open: &mut Open, now: DateTime<Utc>, files: &Files) -> Result<(), Error> {
        let committed: Vec<String> =
            open.games.iter().filter(|(_, (_, b))| !b.is_empty()).map(|(id, _)| id.clone()).collect();
        let games = open.games.values_mut().map(|(l, batch)| (l, std::mem::take(batch))).collect();
        self.commit_batches(games, now, false, files)?;
        open.unsaved.extend(committed);
        // Each game holds its journal, archive and index open for the pass;
        // past a share of the process's descriptors, over all of a pass's
        // groups, they are let go after each group and opened again when
        // needed.
        if open.games.len() > games_with_open_files() {
            for (l, _) in open.games.values_mut() {
                l.close_files();
            }
        }
        // Kept for the pass's next groups, not read again for each.
        if let Some(c) = open.counts.as_mut() {
            super::hourly::save(c, &self.data);
        }
        if open.games.len() > self.cfg.limits.games_in_memory {
            self.settle(open)?;
        }
        Ok(())
    }

    /// The end of a pass's groups: write the snapshot, `seen` keys and tip
    /// of every game committed since the last settle, and keep those games
    /// for the next pass. The others open are as their files say; dropped.
    pub fn settle(&self, open: &mut Open) -> Result<(), Error> {
        let games = std::mem::take(&mut open.games);
        let mut saved = Vec::new();
        for (id, (mut l, _)) in games {
            if open.unsaved.remove(&id) {
                l.save()?;
                saved.push(l);
            }
        }
        self.keep(saved, true);
        Ok(())
    }
}

/// The PNGs drawn in one batch, by their SVG: a picture shared by several
/// letters is drawn once.
#[derive(Default)]
pub(super) struct Drawn(std::collections::HashMap<String, Option<Vec<u8>>>);

impl Drawn {
    /// Draws every distinct picture the letters will carry as PNG, on all
    /// cores ([`super::draw`]).
    pub(super) fn draw_all<'a>(&mut self, wanted: impl IntoIterator<Item = (&'a str, &'a str)>) {
        let mut todo: Vec<(&str, &str)> = Vec::new();
        for (name, svg) in wanted {
            if !self.0.contains_key(svg) && !todo.iter().any(|t| t.1 == svg) {
                todo.push((name, svg));
            }
        }
        let svgs: Vec<&str> = todo.iter().map(|t| t.1).collect();
        let pngs = super::draw::draw(&svgs);
        for ((name, svg), png) in todo.into_iter().zip(pngs) {
            let png = png.map_err(|e| warn!(map = %name, error = %e, "map not drawn as PNG")).ok();
            self.0.insert(svg.to_string(), png);
        }
    }
}

/// The pictures a letter carries as PNG, as (name, SVG drawn from).
pub(super) fn pictures<'a>(svgs: &'a [Map], maps: &str) -> impl Iterator<Item = (&'a str, &'a str)> {
    let wanted = maps != "none" && maps != "svg";
    svgs.iter().filter(move |_| wanted).map(|m| (m.name.as_str(), m.picture.as_deref().unwrap_or(&m.svg)))
}

/// Each map as the player chose (`MAPS`): a PNG (what every mail client
/// shows), the SVG it was drawn from (to zoom), both, or none (the text
/// map in the body is all). A map that cannot be drawn as PNG goes as SVG.
pub(super) fn attachments(svgs: &[Map], maps: &str, drawn: &mut Drawn) -> Vec<compose::Attached> {
    let mut out = Vec::new();
    if maps == "none" {
        return out;
    }
    drawn.draw_all(pictures(svgs, maps));
    for Map { name, svg, picture } in svgs {
        let mut png = None;
        if maps != "svg" {
            png = drawn.0.get(picture.as_ref().unwrap_or(svg)).cloned().flatten();
            if let Some(png) = &png {
                out.push(compose::Attached {
                    name: format!("{}.png", name.trim_end_matches(".svg")),
                    content_type: "image/png",
                    body: png.clone(),
                });
            }
        }
        if maps != "png" || png.is_none() {
            out.push(compose::Attached {
                name: name.clone(),
                content_type: "image/svg+xml",
                body: svg.clone().into_bytes(),
            });
        }
    }
    out
}

/// How many games a pass may hold with their files open (three each): an
/// eighth of the process's limit on descriptors, which leaves the rest to
/// the mail, the spool and the servers.
pub(super) fn games_with_open_files() -> usize {
    let soft = descriptor_limits().map_or(1024, |l| l.rlim_cur);
    usize::try_from(soft / 8).unwrap_or(usize::MAX).max(8)
}

/// The file system `p` is on.
pub(super) fn device(p: &Path) -> std::io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(p).map(|m| m.dev())
}

/// A sortable stamp for spool and inbox file names.
pub(super) fn spool_stamp(now: DateTime<Utc>, seq: u64) -> String {
    format!("{:020}.{seq:010}", now.timestamp_nanos_opt().unwrap_or(0))
}

pub(super) fn write_synced(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = fs::File::create(p)?;
    f.write_all(bytes)?;
    f.sync_all()
}
