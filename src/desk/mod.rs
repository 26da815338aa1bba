//! The desk: the only place that sequences side effects. Its decisions
//! are the referee's (`core/`, no I/O of its own); the rest of this folder
//! is the shell that feeds it and carries its decisions out: it reads the
//! inbox (`inbox.rs`, `pass.rs`, `daemon.rs`), loads and saves games
//! (`store.rs`, `seen.rs`, `archive.rs`), commits (`commit.rs`), sends
//! (`outbound.rs`) and creates games (`create.rs`).
//!
//! Crash safety rests on one order, kept in [`Desk::commit`]: replies are
//! written to `spool/tmp/`, the journal entries (with the replies' digests)
//! are appended and fsynced, then the replies move to `spool/new/` and the
//! snapshot is rewritten. A restart promotes spooled replies whose
//! Message-ID the journal holds and discards the others; the inbound message
//! is only marked processed after all that, and is recognised by its SHA-256
//! if it is seen again.

pub mod archive;
mod attempts;
mod commit;
pub mod core;
mod create;
mod daemon;
mod draw;
mod files;
mod held;
pub mod hourly;
mod inbox;
mod outbound;
pub mod pass;
pub mod seen;
pub mod store;
mod tips;

pub use self::core::{deadlines, letters, Batch, DeskState, GameState, Letter, PassReport, Referee};
use crate::config::{Config, Inbound as InCfg, Outbound as OutCfg};
use crate::dice;
use crate::journal::kinds;
use crate::mail::maildir::{safe_name, Maildir};
use attempts::Attempts;
use chrono::{DateTime, Utc};
pub use files::Files;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
pub use store::Loaded;
use tracing::warn;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Journal(#[from] crate::journal::Error),
    #[error("cannot {what} {path}: {source}")]
    Io { what: &'static str, path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Bad(String),
    #[error(transparent)]
    Imap(#[from] crate::mail::imap::Error),
    #[error(transparent)]
    Refused(#[from] self::core::Refused),
}

pub(super) fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |source| Error::Io { what, path: path.to_path_buf(), source }
}

/// The games a pass has touched, each with the entries and letters it owes:
/// committed together (group commit) before the messages that caused them
/// are marked processed.
#[derive(Default)]
pub struct Open {
    pub games: BTreeMap<String, (Loaded, Batch)>,
    /// The hourly reply and refusal counts, written with the commit.
    pub counts: Option<hourly::Counts>,
    /// Games committed by an earlier group of this pass whose snapshot,
    /// `seen` keys and tip are not written yet: they are written once, when
    /// the pass ends ([`Desk::settle`]), not once a group.
    pub unsaved: std::collections::BTreeSet<String>,
    /// The message in hand, noted for a crash to tell (opened at the
    /// pass's first message).
    attempts: Option<Attempts>,
    /// The game the message in hand named, once [`Desk::handle`] has read
    /// it: what a failure of that message drops.
    game_in_hand: Option<String>,
    /// The message in hand is for a held game, and waits in the inbox.
    waits: bool,
}

impl Open {
    /// Forget a game whose handling failed: what it holds in memory may be
    /// half done. Its committed groups are in its journal, from which it
    /// is rebuilt when next loaded (its tip is behind the journal).
    fn drop_game(&mut self, id: &str) {
        self.games.remove(id);
        self.unsaved.remove(id);
    }
}

/// What became of one message.
pub enum Handled {
    /// Handled (for the game named, if any).
    Done(Option<String>),
    /// Left where it is, for a later pass (its game is held).
    Waits,
    /// Could not be handled: to quarantine.
    Failed(Option<String>, String),
}

/// The data folder's lock (see [`Desk::lock`]).
pub struct DeskLock {
    _file: fs::File,
}

/// A request to create a game.
#[derive(Debug, Clone)]
pub struct NewGame {
    pub ruleset: String,
    pub scenario: Option<String>,
    pub players: Vec<(String, String)>,
    pub gm: Option<String>,
    pub deadline: Option<String>,
    pub dice: String,
    pub id: Option<String>,
    /// Roles without a player stay free, for JOIN by mail; the game
    /// starts when the last is taken.
    pub open: bool,
    /// With `open`: each JOIN waits for the moderator's APPROVE.
    pub approve: bool,
}

impl NewGame {
    /// A game of `ruleset` for `players` (role, address), with what
    /// `adjutant new` takes when told nothing else: the ruleset's first
    /// scenario, no moderator, no deadline, committed dice, an id made of
    /// the ruleset's name and six random hex digits.
    pub fn new(ruleset: &str, players: Vec<(String, String)>) -> NewGame {
        NewGame {
            ruleset: ruleset.into(),
            scenario: None,
            players,
            gm: None,
            deadline: None,
            dice: "committed".into(),
            id: None,
            open: false,
            approve: false,
        }
    }
}

/// The first part of the Message-ID of a letter of no game: a name no
/// game can have (a game id has no `_`), so that recovery never takes it
/// for a game's letter.
pub(super) const LOOSE: &str = "_loose";

/// The process's file-creation mask before the desk narrowed it.
static OPERATOR_UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();

/// The operator's umask, as it was before the first desk was opened.
pub fn operator_umask() -> u32 {
    OPERATOR_UMASK.get().copied().unwrap_or(0o022)
}

pub struct Desk {
    pub data: PathBuf,
    pub cfg: Config,
    key: Vec<u8>,
    /// Each game's deadline facts as its tip file said them, keyed by the
    /// tip's inode, time and length and the journal's length: an idle pass
    /// of a long-running daemon costs two `stat`s a game. A tip is always
    /// replaced by a new file after the journal grew, so a changed tip (this
    /// process or a CLI command) is never taken for the old one.
    /// Read from the data folder's tips index when first asked (a
    /// command that reads no deadline never reads it), so a cold pass
    /// costs the same two `stat`s a game (`tips.rs`).
    tips: std::sync::Mutex<Option<tips::Tips>>,
    /// Whether `tips` has learnt something since the index was written.
    tips_learnt: std::sync::atomic::AtomicBool,
    /// Games committed by this desk, kept for its next passes (a running
    /// daemon then loads a game from disk once, not once a pass).
    kept: std::sync::Mutex<Kept>,
    /// The recipient of each letter this desk spooled that the file
    /// transport may move whole (its file holds no CR), by spool file
    /// name: such a letter is moved without being read back. A letter
    /// spooled by another process (or before a crash) is read.
    spooled: std::sync::Mutex<HashMap<String, String>>,
    /// Letters the file transport delivered as they were released, to be
    /// counted by the next [`Desk::deliver`].
    released: std::sync::atomic::AtomicUsize,
    /// The outboxes letters were released into, opened (their folders
    /// made) once for the process rather than once a commit.
    outboxes: std::sync::Mutex<HashMap<String, Maildir>>,
}

/// The games a desk keeps in memory between passes, at most
/// `[limits] games_in_memory`, the least recently committed dropped first.
/// A game is taken back only while its tip, journal and snapshot on disk
/// are still the ones it wrote (every change to a game appends to its
/// journal and rewrites its tip, so a CLI command's change is seen, and a
/// snapshot edited by hand is rebuilt); otherwise it is loaded anew.
#[derive(Default)]
struct Kept {
    games: HashMap<String, KeptGame>,
    tick: u64,
}

struct KeptGame {
    /// When it was kept, to drop the oldest first.
    tick: u64,
    key: TipKey,
    /// The digest of the snapshot it wrote: a snapshot changed on disk
    /// since (by hand, or forged) makes the desk load the game anew, which
    /// rebuilds it from the journal, as a process starting would.
    snapshot: Option<[u8; 32]>,
    game: Loaded,
}

use tips::TipKey;

impl Desk {
    /// Open the data folder, creating it and the server key on first use.
    pub fn open(data: &Path, cfg: Config) -> Result<Desk, Error> {
        // The data folder holds every hidden fact and every player's reply
        // token: nothing in it is for the group or others. The mask is the
        // process's, so every file the desk writes (journal, snapshot,
        // spool, outboxes, archive) is created 0600 and every folder 0700.
        // The operator's own mask is kept first, for what lives outside the
        // data folder (an outbox another user's client reads).
        // SAFETY: umask only sets the process's file-creation mask.
        OPERATOR_UMASK.get_or_init(|| unsafe { libc::umask(0o077) } as u32);
        unsafe {
            libc::umask(0o077);
        }
        fs::create_dir_all(data).map_err(io("create", data))?;
        tighten(data);
        for d in ["games", "spool/tmp", "spool/new", "desk"] {
            fs::create_dir_all(data.join(d)).map_err(io("create", &data.join(d)))?;
        }
        let kp = data.join("server.key");
        let key = match fs::read_to_string(&kp) {
            Ok(k) => hex::decode(k.trim()).map_err(|_| Error::Bad(format!("cannot read {}: not hex", kp.display())))?,
            // Every player's reply token hangs on the key: a new one would
            // silently lock every player of every game out.
            Err(_) if store::any_game(data) => {
                return Err(Error::Bad(format!(
                    "{} is missing, but this data folder holds games: every player's reply token depends on it. Restore it from a backup; adjutant makes a new key only for an empty data folder",
                    kp.display()
                )))
            }
            Err(_) => {
                let k = os_random();
                crate::journal::write_atomic(&kp, hex::encode(k).as_bytes(), Some(0o600)).map_err(io("write", &kp))?;
                k.to_vec()
            }
        };
        cfg.deadlines.validate().map_err(Error::Bad)?;
        // A deadline for a kind of step no game has would silently do
        // nothing: refuse it by name.
        let known: Vec<&str> = crate::rules::ALL.iter().flat_map(|r| r.info().step_kinds.iter().copied()).collect();
        for k in cfg.deadlines.kinds.keys() {
            if !known.contains(&k.as_str()) {
                return Err(Error::Bad(format!(
                    "[deadlines] kinds: no game has a step of kind {k:?}; the kinds are: {}",
                    known.join(", ")
                )));
            }
        }
        let desk = Desk {
            data: data.to_path_buf(),
            cfg,
            key,
            tips: Default::default(),
            tips_learnt: Default::default(),
            kept: Default::default(),
            spooled: Default::default(),
            released: Default::default(),
            outboxes: Default::default(),
        };
        Maildir::open(&desk.inbox_path()).map_err(io("open inbox", &desk.inbox_path()))?;
        Ok(desk)
    }

    pub fn inbox_path(&self) -> PathBuf {
        match &self.cfg.inbound {
            InCfg::Maildir { path: Some(p) } => PathBuf::from(p),
            // `post` still drops messages here when the inbox is IMAP.
            InCfg::Maildir { path: None } | InCfg::Imap(_) => self.data.join("mail/inbox"),
        }
    }

    pub fn outbox_root(&self) -> PathBuf {
        match &self.cfg.outbound {
            OutCfg::File { path: Some(p) } => PathBuf::from(p),
            OutCfg::File { path: None } | OutCfg::Smtp(_) | OutCfg::Sendmail { .. } => self.data.join("mail/outbox"),
        }
    }

    /// The outbox Maildir of one recipient.
    pub fn outbox_of(&self, addr: &str) -> PathBuf {
        self.outbox_root().join(safe_name(&addr.to_lowercase()))
    }

    /// Open a recipient's outbox: under the data folder it is as private
    /// as the rest; one the operator put elsewhere follows the operator's
    /// umask, so a local mail client of another user can read it.
    fn open_outbox(&self, addr: &str) -> Result<Maildir, Error> {
        let p = self.outbox_of(addr);
        let root = self.outbox_root();
        let r = if root.starts_with(&self.data) {
            Maildir::open(&p)
        } else {
            let umask = operator_umask();
            // A folder the operator made keeps its mode; one made here
            // gets the operator's.
            let made = if root.exists() {
                Ok(())
            } else {
                use std::os::unix::fs::PermissionsExt;
                fs::create_dir_all(&root)
                    .and_then(|_| fs::set_permissions(&root, fs::Permissions::from_mode(0o777 & !umask)))
            };
            made.and_then(|_| Maildir::open_shared(&p, umask))
        };
        r.map_err(io("open outbox", &p))
    }

    /// The reply token of a role: an HMAC of game and role under the server
    /// key, so it needs no storage and cannot be guessed.
    pub fn token(&self, game: &str, role: &str) -> String {
        self.token_at(game, role, 0)
    }

    /// The token of a role's `epoch`-th player ([`Referee::token_at`]).
    pub fn token_at(&self, game: &str, role: &str, epoch: u32) -> String {
        self.referee().token_at(game, role, epoch)
    }

    pub fn reply_address(&self, game: &str, role: &str) -> String {
        self.reply_address_at(game, role, 0)
    }

    pub fn reply_address_at(&self, game: &str, role: &str, epoch: u32) -> String {
        self.referee().reply_address_at(game, role, epoch)
    }

    /// The referee of this data folder: this desk's configuration and key,
    /// and the desk itself as its vault.
    pub fn referee(&self) -> Referee<'_> {
        Referee { cfg: &self.cfg, key: &self.key, vault: self }
    }

    /// Every (role, address) that receives a game's mail: players, then the
    /// moderator as "gm".
    pub fn recipients(&self, l: &GameState) -> Vec<(String, String)> {
        self.referee().recipients(l)
    }

    /// One desk at a time works on the data folder: a pass, a game's
    /// creation, a post. Held for the duration, released on drop.
    pub fn lock(&self) -> Result<DeskLock, Error> {
        let p = self.data.join("desk/lock");
        let f = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&p).map_err(io("lock", &p))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: flock only uses the descriptor, which `f` keeps open.
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
                return Err(Error::Io { what: "lock", path: p, source: std::io::Error::last_os_error() });
            }
        }
        Ok(DeskLock { _file: f })
    }

    /// A game's deadline facts from its tip: read again only when the tip
    /// file changed since this desk last read it.
    fn due_of(&self, id: &str) -> Option<store::Due> {
        let key = self.tip_key(id)?;
        if let Some((_, due)) = self.with_tips(|t| t.get(id).filter(|(k, _)| *k == key).cloned()) {
            return due;
        }
        // Read and parsed outside the lock: the pass looks tips up on every
        // core.
        let due = store::read_tip(&self.data, id).and_then(|t| t.due);
        self.learn_tip(id, key, due.clone());
        due
    }

    /// The tips this desk knows: the index as read, and what it learnt since.
    fn with_tips<R>(&self, f: impl FnOnce(&mut tips::Tips) -> R) -> R {
        let mut tips = self.tips.lock().unwrap_or_else(|e| e.into_inner());
        f(tips.get_or_insert_with(|| tips::read(&self.data)))
    }

    /// Remember a game's deadline facts under the key of the tip they are
    /// from; the index is written again after the pass.
    fn learn_tip(&self, id: &str, key: TipKey, due: Option<store::Due>) {
        self.with_tips(|t| t.insert(id.to_string(), (key, due)));
        self.tips_learnt.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Write the tips index if a tip was read since it was last written:
    /// `ids` are the games in the folder. A failure costs the next cold
    /// pass its reads, nothing else, so it is logged.
    fn write_tips_index(&self, ids: &[String]) {
        if !self.tips_learnt.swap(false, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let tips = self.tips.lock().unwrap_or_else(|e| e.into_inner());
        let Some(tips) = tips.as_ref() else { return };
        if let Err(e) = tips::write(&self.data, tips, ids) {
            warn!(path = %tips::path(&self.data).display(), error = %e, "cannot write the tips index");
        }
    }

    /// What identifies the game's tip and journal as they are on disk now.
    fn tip_key(&self, id: &str) -> Option<TipKey> {
        use std::os::unix::fs::MetadataExt;
        let m = fs::metadata(store::tip_path(&self.data, id)).ok()?;
        // The journal's length too: every commit changes it, so a tip
        // rewritten within one tick of a coarse clock onto a reused inode
        // is still told apart.
        let j = fs::metadata(store::game_dir(&self.data, id).join("journal.toml")).ok()?;
        Some((m.ino(), m.modified().ok()?, m.len(), j.len()))
    }

    /// The games in the data folder (the folders with a journal).
    pub fn game_ids(&self) -> Result<Vec<String>, Error> {
        let mut v = self.game_folders()?;
        v.retain(|id| store::game_dir(&self.data, id).join("journal.toml").exists());
        Ok(v)
    }

    /// The names of the folders under `games/`, sorted.
    fn game_folders(&self) -> Result<Vec<String>, Error> {
        let dir = self.data.join("games");
        let mut v: Vec<String> = fs::read_dir(&dir)
            .map_err(io("read", &dir))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        v.sort();
        Ok(v)
    }

    pub fn load(&self, id: &str) -> Result<Loaded, Error> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner()).games.remove(id);
        match kept {
            Some(k)
                if Some(k.key) == self.tip_key(id)
                    && k.snapshot.is_some()
                    && k.snapshot == snapshot_digest(&k.game) =>
            {
                Ok(k.game)
            }
            _ => Ok(store::load(&self.data, id)?),
        }
    }

    /// How many games this desk keeps warm for its next pass.
    pub fn games_kept(&self) -> usize {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).games.len()
    }

    /// A pass turned out to be a backlog: drop every game kept warm, so the
    /// pages they hold are free for its pictures ([`Desk::keep`]); the pass
    /// loads the ones it needs.
    fn cool(&self) {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).games.clear();
    }

    /// Keep games just committed for the next pass, if `warm`; either way
    /// learn the deadline facts their tips now hold. Only games whose batch
    /// was committed are kept: what they hold in memory is then exactly
    /// what their snapshot says.
    ///
    /// A backlog's games are not kept warm: loaded between the pass's
    /// pictures, a thousand small games pin the pages those pictures freed,
    /// and the pass's peak memory grows by half (docs/performance.md). The
    /// next pass loads the few it needs.
    fn keep(&self, games: impl IntoIterator<Item = Loaded>, warm: bool) {
        let cap = if warm { self.cfg.limits.games_in_memory } else { 0 };
        let mut k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        for mut l in games {
            // A kept game holds no descriptor between passes (a thousand
            // games would hold thousands): its files open again when used.
            l.close_files();
            // Taken just after this desk's own commit, under the desk lock
            // that every writer takes: the key of what this game wrote.
            let Some(key) = self.tip_key(&l.game.id) else { continue };
            // The deadline facts its tip now holds, under the same key: the
            // pass's deadline scan need not read back the tip just written.
            self.learn_tip(&l.game.id, key, Some(store::Due::of(&l)));
            // What this desk just wrote, when it wrote the snapshot itself.
            let snapshot = l.saved.or_else(|| snapshot_digest(&l));
            if cap == 0 {
                continue;
            }
            k.tick += 1;
            let tick = k.tick;
            k.games.insert(l.game.id.clone(), KeptGame { tick, key, snapshot, game: l });
            if k.games.len() > cap {
                // Dropping the oldest costs a scan, but only once the
                // desk holds more games than it keeps.
                if let Some(old) = k.games.iter().min_by_key(|(_, g)| g.tick).map(|(id, _)| id.clone()) {
                    k.games.remove(&old);
                }
            }
        }
    }

    /// Load a game to look at it, writing nothing (no lock needed).
    pub fn peek(&self, id: &str) -> Result<Loaded, Error> {
        Ok(store::peek(&self.data, id)?)
    }

    /// Put a message into the local inbox (the embedded default's `post`).
    pub fn post(&self, raw: &[u8], now: DateTime<Utc>) -> Result<PathBuf, Error> {
        let inbox = Maildir::open(&self.inbox_path()).map_err(io("open inbox", &self.inbox_path()))?;
        let name = format!("{}.{}.adjutant", commit::spool_stamp(now, 0), &hex::encode(dice::sha256(raw))[..16]);
        inbox.deliver(&name, raw).map_err(io("deliver to inbox", &self.inbox_path()))
    }
}

/// The digest of a game's snapshot file as it is on disk.
fn snapshot_digest(l: &Loaded) -> Option<[u8; 32]> {
    fs::read(l.dir.join("state.toml")).ok().map(|b| dice::sha256(&b))
}

/// For the crash tests: `ADJUTANT_CRASH_AT=<point>:<n>` aborts the
/// process the n-th time it reaches `point` (one of "archived",
/// "written", "spooled", "journaled", "released", "flushed",
/// "delivered"), as a
/// power cut or an out-of-memory kill would at that moment. In a pass, the
/// releases and marks a point follows are given to the pass's threads
/// (`files.rs`), which may not have done them all yet: the crash then
/// finds them partly done. Unset, it costs one check of a value read once.
pub(crate) fn crash_point(point: &str) {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::OnceLock;
    static AT: OnceLock<Option<(String, u32)>> = OnceLock::new();
    static SEEN: AtomicU32 = AtomicU32::new(0);
    let at = AT.get_or_init(|| {
        let v = std::env::var("ADJUTANT_CRASH_AT").ok()?;
        let (p, n) = v.split_once(':')?;
        Some((p.to_string(), n.parse().ok()?))
    });
    if let Some((p, n)) = at {
        if p == point && SEEN.fetch_add(1, Ordering::SeqCst) + 1 == *n {
            std::process::abort();
        }
    }
}

/// A folder made before the mask (or by hand) loses what the group and
/// others could do, with a line in the log.
pub(super) fn tighten(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = fs::metadata(dir) else { return };
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        warn!(folder = %dir.display(), mode = format!("{:o}", mode & 0o777), "the data folder was open to others: now 0700");
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    }
}

/// The process's soft and hard limits on open descriptors.
pub(super) fn descriptor_limits() -> Option<libc::rlimit> {
    // SAFETY: getrlimit only writes the struct it is given.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        (libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0).then_some(lim)
    }
}

/// Raise the soft limit on open descriptors to the hard one, as a server
/// does: it is often 1,024 where the hard one is far higher, and a pass
/// keeps a few files open for each game it touches (journal, archive,
/// index). The desk still lets them go early when the limit stays low
/// ([`Desk::flush`]).
pub fn raise_descriptor_limit() {
    if let Some(mut lim) = descriptor_limits().filter(|l| l.rlim_cur < l.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        // SAFETY: setrlimit only reads the struct given. A refusal leaves
        // the limit as it was, which the desk allows for.
        unsafe {
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

// Links mimalloc's C library, whose options the next functions set, into
// every program of the crate (the binary's allocator is mimalloc already).
use mimalloc as _;

extern "C" {
    /// mimalloc's option setter and getter (in the C library the
    /// `mimalloc` crate links; their Rust declarations sit behind a
    /// feature).
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    #[cfg(test)]
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (the same index in
/// its v2 and v3; a test below checks it).
const MI_OPTION_PURGE_DELAY: libc::c_int = 15;

/// Have the allocator give memory a pass frees back to the system after
/// 100 ms instead of mimalloc's default second: a pass over a backlog
/// frees a picture's pages many times a second, and with the default they
/// count against its peak (docs/performance.md: 65-67 MB over the bench's
/// 1,500 mails, 50-55 MB with this; no slower). `MIMALLOC_PURGE_DELAY`
/// still overrides it. For the binary, whose allocator is mimalloc.
pub fn return_freed_memory_promptly() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets an integer option; mimalloc reads it on each purge.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 100) };
    }
}

/// 32 bytes from the operating system's CSPRNG: chain tops and server keys.
pub fn os_random() -> [u8; 32] {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the OS random source is available");
    b
}

/// The desk is its referee's vault: a game's secrets from its
/// `secrets.toml`, its anchors from its journal's first entry (never
/// recomputed from the secrets, which could have changed), fresh chain
/// tops from the OS.
impl self::core::Vault for Desk {
    fn secrets(&self, game: &str) -> Result<store::Secrets, self::core::Refused> {
        store::read_secrets(&store::game_dir(&self.data, game)).map_err(|e| self::core::Refused(e.to_string()))
    }

    fn anchors(&self, game: &str) -> Result<BTreeMap<String, String>, self::core::Refused> {
        let jp = store::game_dir(&self.data, game).join("journal.toml");
        let first = crate::journal::read_first(&jp).map_err(|e| self::core::Refused(e.to_string()))?;
        let c: kinds::Created = first
            .ok_or_else(|| self::core::Refused(format!("the journal of {game} is empty")))?
            .body()
            .map_err(self::core::Refused)?;
        Ok(c.anchors)
    }

    fn fresh(&self) -> [u8; 32] {
        os_random()
    }

    /// Replays the game's journal, with the entries of this pass not yet
    /// written linked after it, to the step's opening: a rollback is rare,
    /// and the journal is the only record of every opening.
    fn opening(
        &self,
        game: &str,
        step: u32,
        pending: &[(String, toml::Value)],
    ) -> Result<Option<self::core::Reopening>, self::core::Refused> {
        let refused = |e: String| self::core::Refused(format!("the journal of {game} cannot be replayed: {e}"));
        let path = store::game_dir(&self.data, game).join("journal.toml");
        let mut entries = crate::journal::read(&path).map_err(|e| refused(e.to_string()))?;
        let (seq, hash) = entries.last().map(|e| (e.seq, e.hash.clone())).ok_or_else(|| refused("empty".into()))?;
        let format = crate::journal::Format::of(&entries).map_err(refused)?;
        let j = crate::journal::Journal::with_tip(&path, seq, hash, format);
        j.link_values_onto(&mut entries, "(pending)", pending.to_vec());
        let (_, found) =
            crate::audit::opening(entries.iter().cloned().map(Ok), step).map_err(|m| refused(m.to_string()))?;
        let Some(opening) = found else { return Ok(None) };
        let mut orders: BTreeMap<String, Vec<(u32, Vec<String>)>> = BTreeMap::new();
        for e in entries.iter().filter(|e| e.seq > opening.seq && e.kind == "accepted") {
            let a: kinds::Accepted = e.body().map_err(refused)?;
            orders.entry(a.role).or_default().push((a.step, a.lines));
        }
        Ok(Some(self::core::Reopening { opening, orders }))
    }

    fn resolved(&self, game: &str, from: u32, to: u32) -> Result<Vec<kinds::Resolved>, self::core::Refused> {
        let refused = |e: String| self::core::Refused(format!("the journal of {game} cannot be read: {e}"));
        let path = store::game_dir(&self.data, game).join("journal.toml");
        let mut out = Vec::new();
        // Read entry by entry: only the steps asked for are kept.
        for e in crate::journal::entries(&path).map_err(|e| refused(e.to_string()))? {
            let e = e.map_err(|e| refused(e.to_string()))?;
            if e.kind == "resolved" {
                let r: kinds::Resolved = e.body().map_err(refused)?;
                if (from..=to).contains(&r.step) {
                    out.push(r);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index set is the purge delay of the mimalloc linked: its default
    /// there is a second, and what is set reads back. A mimalloc whose
    /// options were renumbered fails here rather than setting another.
    #[test]
    fn the_option_set_is_mimallocs_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads and sets an integer option.
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 1000, "mimalloc's default purge delay");
        return_freed_memory_promptly();
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 100);
    }
}
