//! The desk: the only place that sequences side effects. For each inbound
//! message it identifies game and role, checks, journals (fsync), spools the
//! replies, then marks the message processed; it resolves steps that are
//! complete or past their deadline and delivers the spool.
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
mod daemon;
pub mod deadlines;
mod files;
mod handle;
mod held;
pub mod hourly;
pub mod letters;
mod outbound;
pub mod pass;
pub mod seen;
pub mod store;

use crate::config::{Config, Inbound as InCfg, Outbound as OutCfg};
use crate::dice::{self, Committed, Declared};
use crate::engine::{Game, Viewer};
use crate::journal::{kinds, Journal};
use crate::mail::compose::{self, Outgoing};
use crate::mail::maildir::{safe_name, Maildir};
use attempts::Attempts;
use chrono::{DateTime, Utc};
pub use files::Files;
use hmac::{Hmac, Mac};
use minijinja::context;
use serde::Serialize;
use sha2::Sha256;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
pub use store::{DeskState, Loaded};
use tracing::{info, warn};

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
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |source| Error::Io { what, path: path.to_path_buf(), source }
}

/// A reply to be sent, before it has a Message-ID.
#[derive(Debug, Clone)]
pub struct Letter {
    /// Role the letter is for ("gm" for the moderator), or None for a
    /// stranger (refusals).
    pub role: Option<String>,
    pub to: String,
    pub subject: String,
    pub body: String,
    /// SVG attachments: (file name, SVG text).
    pub svg: Vec<(String, String)>,
    pub in_reply_to: Option<String>,
}

/// A batch on its way into the journal: its letters are in `spool/tmp`
/// under these names, its entries (with the letters' `mail` entries) not
/// yet appended.
pub struct Staged {
    linked: Vec<crate::journal::Entry>,
    spooled: Vec<String>,
}

/// Entries and letters one event produces, committed together.
#[derive(Default)]
pub struct Batch {
    pub entries: Vec<(String, toml::Value)>,
    pub letters: Vec<Letter>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.letters.is_empty()
    }

    pub fn entry<T: Serialize>(&mut self, kind: &str, body: &T) {
        self.entries.push((kind.to_string(), toml::Value::try_from(body).expect("journal bodies serialize")));
    }
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

/// What one pass did, for logs and tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PassReport {
    pub messages: usize,
    pub accepted: usize,
    pub rejected: usize,
    pub refused: usize,
    pub dropped: usize,
    pub duplicates: usize,
    pub quarantined: usize,
    pub resolved: usize,
    pub sent: usize,
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
        }
    }
}

/// The first part of the Message-ID of a letter of no game: a name no
/// game can have (a game id has no `_`), so that recovery never takes it
/// for a game's letter.
const LOOSE: &str = "_loose";

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
    tips: std::sync::Mutex<HashMap<String, (TipKey, Option<store::Due>)>>,
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

/// What identifies one version of a tip file.
type TipKey = (u64, std::time::SystemTime, u64, u64);

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

    /// The token of a role's `epoch`-th player: REPLACE moves a role to a
    /// new epoch, so the replaced player's credential stops working.
    pub fn token_at(&self, game: &str, role: &str, epoch: u32) -> String {
        let mut m = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length");
        m.update(game.as_bytes());
        m.update(&[0]);
        m.update(role.as_bytes());
        if epoch > 0 {
            m.update(&[0]);
            m.update(epoch.to_string().as_bytes());
        }
        hex::encode(m.finalize().into_bytes())[..16].to_string()
    }

    fn split_game_address(&self) -> (String, String) {
        let a = &self.cfg.game.address;
        let (l, d) = a.rsplit_once('@').unwrap_or((a.as_str(), "adjutant.local"));
        (l.to_string(), d.to_string())
    }

    pub fn reply_address(&self, game: &str, role: &str) -> String {
        self.reply_address_at(game, role, 0)
    }

    pub fn reply_address_at(&self, game: &str, role: &str, epoch: u32) -> String {
        let (l, d) = self.split_game_address();
        format!("{l}+{game}.{}@{d}", self.token_at(game, role, epoch))
    }

    /// Create a game: journal, secrets, snapshot, welcome mails and the
    /// first prompts. `entropy` gives 32 fresh random bytes a call (the OS
    /// RNG in production, a fixed source in tests).
    pub fn create(
        &self,
        req: &NewGame,
        now: DateTime<Utc>,
        entropy: &mut dyn FnMut() -> [u8; 32],
    ) -> Result<String, Error> {
        let _lock = self.lock()?;
        let rules = crate::rules::find(&req.ruleset).ok_or_else(|| {
            let names: Vec<&str> = crate::rules::ALL.iter().map(|r| r.info().name).collect();
            Error::Bad(format!("unknown ruleset {:?}; known: {}", req.ruleset, names.join(", ")))
        })?;
        let info = rules.info();
        let scenario = req.scenario.clone().unwrap_or_else(|| info.scenarios[0].name.clone());
        let id = match &req.id {
            Some(id) if store::valid_id(id) => id.clone(),
            Some(id) => {
                return Err(Error::Bad(format!("game id {id:?} must be 1-40 lowercase letters, digits or '-'")))
            }
            None => format!("{}-{}", info.name, &hex::encode(entropy())[..6]),
        };
        let dir = store::game_dir(&self.data, &id);
        if dir.exists() {
            return Err(Error::Bad(format!("game {id} already exists")));
        }
        if info.moderated && req.gm.is_none() {
            return Err(Error::Bad(format!(
                "{} needs a moderator, who reports what happens on the table: give --gm EMAIL",
                info.name
            )));
        }
        let mode = match req.dice.as_str() {
            "committed" => dice::Mode::Committed,
            "declared" => dice::Mode::Declared,
            other => return Err(Error::Bad(format!("dice mode {other:?}: use committed or declared"))),
        };
        if let Some(d) = &req.deadline {
            if store::parse_duration(d).is_none() {
                return Err(Error::Bad(format!("deadline {d:?}: write a length such as 72h, 3d or 90m")));
            }
        }
        let game = Game::new(&id, rules, &scenario).map_err(Error::Bad)?;
        let mut players = BTreeMap::new();
        for (role, email) in &req.players {
            if !game.roles.contains(role) {
                return Err(Error::Bad(format!(
                    "{role:?} is not a role of {} {scenario}; roles: {}",
                    info.name,
                    game.roles.join(", ")
                )));
            }
            if email.parse::<lettre::Address>().is_err() {
                return Err(Error::Bad(format!("{email:?} is not an e-mail address (for {role})")));
            }
            players.insert(role.clone(), email.clone());
        }
        if let Some(gm) = &req.gm {
            if gm.parse::<lettre::Address>().is_err() {
                return Err(Error::Bad(format!("{gm:?} is not an e-mail address (for --gm)")));
            }
        }
        for r in &game.roles {
            if !players.contains_key(r) {
                return Err(Error::Bad(format!("no player for role {r}: add --player {r}=EMAIL")));
            }
        }
        fs::create_dir_all(&dir).map_err(io("create", &dir))?;
        // The files a game appends to all its life are made with it, not by
        // its first mail in the middle of a pass.
        for f in [archive::MBOX, archive::INDEX, seen::FILE] {
            fs::File::create(dir.join(f)).map_err(io("create", &dir.join(f)))?;
        }
        // Commit to every stream before any order exists (dice-v1 step 1).
        let mut secrets = store::Secrets::default();
        let mut anchors = BTreeMap::new();
        let chain_len = self.cfg.limits.chain_length.max(2);
        for s in dice::stream_names(&game.roles) {
            let top = entropy();
            anchors.insert(s.clone(), dice::to_hex(&dice::anchor(&top, chain_len)));
            secrets.add_chain(&s, &top, chain_len);
        }
        for r in game.roles.iter().chain(std::iter::once(&"gm".to_string())) {
            secrets.tokens.insert(r.clone(), self.token(&id, r));
        }
        store::write_secrets(&dir, &secrets)?;
        let created = kinds::Created {
            game: id.clone(),
            ruleset: info.name.to_string(),
            scenario: scenario.clone(),
            roles: game.roles.clone(),
            players: players.clone(),
            gm: req.gm.clone(),
            dice: mode,
            chain_len,
            anchors: anchors.clone(),
            deadline: req.deadline.clone(),
            patch: None,
            replace: None,
            digest: game.digest(),
            tip_kept: true,
        };
        store::write_tip(&self.data, &id, &store::Tip::before_first_entry())?;
        let mut journal = Journal::open(&dir.join("journal.toml"))?;
        journal.append(&now.to_rfc3339(), &[("created", &created)])?;
        let mut loaded = Loaded {
            dir: dir.clone(),
            game,
            desk: DeskState {
                title: info.title.to_string(),
                players,
                gm: req.gm.clone(),
                dice: mode,
                chain_len,
                deadline_secs: req.deadline.as_deref().and_then(store::parse_duration),
                ..DeskState::default()
            },
            seen: seen::Seen::default(),
            archive: Default::default(),
            journal,
            saved: None,
        };
        let mut batch = Batch::default();
        for (role, email) in self.recipients(&loaded) {
            batch.letters.push(self.welcome(&loaded, &role, &email, &anchors));
        }
        self.open_step(&mut loaded, &mut batch, now);
        self.prompts(&loaded, &mut batch);
        self.commit(&mut loaded, batch, now)?;
        info!(game = %id, ruleset = info.name, "game created");
        Ok(id)
    }

    /// The welcome letter: the players, and the anchor of every dice stream,
    /// which a player needs before any order to check every die later.
    pub fn welcome(&self, l: &Loaded, role: &str, email: &str, anchors: &BTreeMap<String, String>) -> Letter {
        let player_list: Vec<String> = l.desk.players.iter().map(|(r, e)| format!("{r} ({e})")).collect();
        let body = letters::fill(
            "welcome",
            context! {
                title => l.desk.title, game => l.game.id, role => if role == "gm" { "moderator" } else { role },
                players => player_list, gm => l.desk.gm, dice => l.desk.dice, chain_len => l.desk.chain_len,
                anchors_block => letters::anchors_block(&l.game.id, l.desk.chain_len, None, anchors),
            },
        );
        Letter {
            role: Some(role.to_string()),
            to: email.to_string(),
            subject: format!("[{}] welcome to {}", l.game.id, l.desk.title),
            body,
            svg: Vec::new(),
            in_reply_to: None,
        }
    }

    /// The anchors of a game's streams, as its journal committed them
    /// (never recomputed from the secrets, which could have changed).
    pub fn anchors(&self, l: &Loaded) -> Result<BTreeMap<String, String>, Error> {
        let first = crate::journal::read_first(l.journal.path())?;
        let c: kinds::Created = first
            .ok_or_else(|| Error::Bad(format!("the journal of {} is empty", l.game.id)))?
            .body()
            .map_err(Error::Bad)?;
        Ok(c.anchors)
    }

    /// Every (role, address) that receives a game's mail: players, then the
    /// moderator as "gm".
    pub fn recipients(&self, l: &Loaded) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = l.desk.players.iter().map(|(r, e)| (r.clone(), e.clone())).collect();
        if let Some(gm) = &l.desk.gm {
            v.push(("gm".into(), gm.clone()));
        }
        v
    }

    pub fn address_of(&self, l: &Loaded, role: &str) -> Option<String> {
        if role == "gm" {
            l.desk.gm.clone()
        } else {
            l.desk.players.get(role).cloned()
        }
    }

    /// Set the deadline of a newly opened step (players awaited only), by
    /// the moderator's policy: the step's length or clock time, pushed past
    /// announced absences when the policy extends; resolution waits for the
    /// grace period after it.
    fn open_step(&self, l: &mut Loaded, batch: &mut Batch, now: DateTime<Utc>) {
        let a = l.game.awaiting();
        let awaited: Vec<&String> = a.prompts.keys().filter(|r| *r != "gm").collect();
        let absences: Vec<(chrono::NaiveDate, chrono::NaiveDate)> = awaited
            .iter()
            .filter_map(|r| l.desk.absences.get(*r))
            .flatten()
            .filter_map(|(f, t)| Some((f.parse().ok()?, t.parse().ok()?)))
            .collect();
        let at = if awaited.is_empty() {
            None
        } else {
            self.cfg.deadlines.deadline(now, &a.kind, l.desk.deadline_secs, &absences)
        };
        let args: Vec<String> =
            at.map(|t| vec![t.to_rfc3339(), (t + self.cfg.deadlines.grace()).to_rfc3339()]).unwrap_or_default();
        if args.first() != l.desk.deadline_at.as_ref() || args.get(1) != l.desk.resolve_at.as_ref() {
            let m = kinds::Moderator { action: kinds::Action::Deadline, args };
            store::apply_moderator(&mut l.desk, &m);
            batch.entry("deadline", &m);
        }
    }

    /// The open step's deadline as `role` reads it (their ZONE, else UTC).
    pub fn deadline_for(&self, l: &Loaded, role: &str) -> Option<String> {
        l.desk.deadline_at.as_deref().map(|d| deadlines::show(d, l.desk.zones.get(role).map(String::as_str)))
    }

    /// Prompt letters to every awaited role.
    fn prompts(&self, l: &Loaded, batch: &mut Batch) {
        let a = l.game.awaiting();
        for (role, p) in &a.prompts {
            let Some(to) = self.address_of(l, role) else {
                continue;
            };
            let viewer = letters::viewer_of(role);
            let view = l.game.view(&viewer);
            let body = letters::fill(
                "prompt",
                context! {
                    title => l.desk.title, step => l.game.step, kind => a.kind, prompt => p.text, syntax => p.syntax,
                    deadline => self.deadline_for(l, role), view => letters::view_text(&view),
                },
            );
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject: format!("[{}] step {}: your orders are awaited ({})", l.game.id, l.game.step, a.kind),
                body,
                svg: self.svg_for(l, &view),
                in_reply_to: None,
            });
        }
    }

    /// One SVG per board of the view: the map, then any display.
    fn svg_for(&self, l: &Loaded, view: &crate::engine::View) -> Vec<(String, String)> {
        view.boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let kind = if i == 0 { "map" } else { "display" };
                (
                    format!("{kind}-{}-step{}.svg", l.game.id, l.game.step),
                    crate::render::svg::render_board(b, &view.title),
                )
            })
            .collect()
    }

    /// Resolve the open step (silent roles get the no-moves orders) and
    /// queue the results. Returns false, changing nothing but a notice to the
    /// moderator, when declared dice are missing.
    pub fn resolve_step(&self, l: &mut Loaded, batch: &mut Batch, now: DateTime<Utc>) -> Result<bool, Error> {
        let k = l.game.step;
        let mut next = l.game.clone();
        let mut links = BTreeMap::new();
        let (res, draws) = if l.desk.dice == dice::Mode::Declared {
            let mut d = Declared::new(l.desk.declared.clone());
            let res = next.resolve(&mut d).map_err(Error::Bad)?;
            if !d.missing.is_empty() {
                // Ask the moderator once a step, not at every pass.
                let gm = l.desk.gm.clone().filter(|_| l.desk.asked != k);
                if gm.is_some() {
                    let m = kinds::Moderator { action: kinds::Action::Asked, args: vec![k.to_string()] };
                    store::apply_moderator(&mut l.desk, &m);
                    batch.entry("asked", &m);
                }
                if let Some(gm) = gm {
                    batch.letters.push(Letter {
                        role: Some("gm".into()),
                        to: gm,
                        subject: format!("[{}] step {k}: dice to declare", l.game.id),
                        body: letters::fill(
                            "reply",
                            context! { text => format!(
                            "Step {k} cannot resolve until you declare these dice (DECLARE <label> <value>):\n{}\n",
                            d.missing.iter().map(|m| format!("  {m}")).collect::<Vec<_>>().join("\n")) },
                        ),
                        svg: Vec::new(),
                        in_reply_to: None,
                    });
                }
                return Ok(false);
            }
            (res, d.draws().to_vec())
        } else {
            let secrets = store::read_secrets(&l.dir)?;
            let salts = l.game.salts_for_seed();
            let mut seeds = BTreeMap::new();
            // A link is published only if it hashes back to the anchor the
            // journal committed for its chain: a changed secrets.toml is
            // refused here, before players are sent links that do not verify.
            let base = store::chain_base(l.desk.chain_len, k);
            let anchors = if base == 0 {
                self.anchors(l)?
            } else {
                l.desk.renewed.iter().find(|r| r.0 == base).map(|r| r.1.clone()).ok_or_else(|| {
                    Error::Bad(format!("game {}: no renewed dice chain was committed for step {k}", l.game.id))
                })?
            };
            for stream in secrets.tops.keys() {
                let link = secrets.step_link(stream, l.desk.chain_len, k).ok_or_else(|| {
                    Error::Bad(format!("secrets of {}: no chain of stream {stream} for step {k}", l.game.id))
                })?;
                if anchors.get(stream).and_then(|a| dice::from_hex(a)) != Some(dice::link_at(&link, k - base, 0)) {
                    return Err(Error::Bad(format!(
                        "the dice chain of stream {stream} in {} does not hash back to the anchor the journal committed: secrets.toml was changed or replaced; nothing is published. Restore it from a backup",
                        l.dir.join("secrets.toml").display()
                    )));
                }
                links.insert(stream.clone(), dice::to_hex(&link));
                seeds.insert(stream.clone(), dice::seed(&l.game.id, k, stream, &link, &salts));
            }
            let mut c = Committed::new(seeds);
            let res = next.resolve(&mut c).map_err(Error::Bad)?;
            if !c.unknown.is_empty() {
                return Err(Error::Bad(format!("ruleset drew from unknown streams {:?}", c.unknown)));
            }
            (res, c.into_draws())
        };
        use crate::dice::Dice as _;
        let resolved = kinds::Resolved {
            step: k,
            step_kind: res.kind.clone(),
            orders: res.orders.clone(),
            defaulted: res.defaulted.clone(),
            salts: res.salts.clone(),
            links: links.clone(),
            draws: draws.clone(),
            events: res.events.clone(),
            digest: next.digest(),
        };
        batch.entry("resolved", &resolved);
        store::count_missed(&mut l.desk, &resolved);
        self.civil_disorder(l, batch, &resolved.defaulted);
        l.game = next;
        l.desk.declared.clear();
        self.open_step(l, batch, now);
        let a = l.game.awaiting();
        let waiting: Vec<String> = a.prompts.keys().map(|r| letters::role_label(r)).collect();
        for (role, to) in self.recipients(l) {
            let viewer = letters::viewer_of(&role);
            let view = l.game.view(&viewer);
            let prompt = a.prompts.get(&role);
            let body = letters::fill(
                "results",
                context! {
                    title => l.desk.title, step => k, kind => res.kind,
                    // A sealed step's defaults are each role's own business.
                    defaulted => if l.game.rules.sealed(&res.kind) {
                        res.defaulted.iter().filter(|d| *d == &role || role == "gm").cloned().collect::<Vec<_>>().join(", ")
                    } else {
                        res.defaulted.join(", ")
                    },
                    events => letters::visible_events(&res.events, &viewer),
                    awaited => prompt.is_some(), next_step => l.game.step, next_kind => a.kind,
                    prompt => prompt.map(|p| p.text.clone()), syntax => prompt.map(|p| p.syntax.clone()).unwrap_or_default(),
                    deadline => self.deadline_for(l, &role), waiting => waiting.join(", "),
                    view => letters::view_text(&view),
                    dice_block => letters::dice_block(&l.game.id, k, &res.salts, &links, &draws, &viewer),
                },
            );
            let subject = if prompt.is_some() {
                format!("[{}] step {}: your orders are awaited ({}); step {k} resolved", l.game.id, l.game.step, a.kind)
            } else if waiting.is_empty() {
                format!("[{}] step {k} resolved", l.game.id)
            } else {
                format!("[{}] step {k} resolved; waiting for {}", l.game.id, waiting.join(", "))
            };
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject,
                body,
                svg: self.svg_for(l, &view),
                in_reply_to: None,
            });
        }
        if let Some(o) = l.game.outcome() {
            self.end_game(l, batch, o.winner.clone(), &o.also, o.reason.clone())?;
        } else if l.desk.dice == dice::Mode::Committed && k.is_multiple_of(l.desk.chain_len.max(1)) {
            self.renew_chains(l, batch, k)?;
        }
        Ok(true)
    }

    /// Step `k` used the last link of the chains: commit fresh ones for the
    /// steps after it (DESIGN 4.1), before any order for step `k + 1` can
    /// be accepted. The new tops are written to the secrets first (fsynced),
    /// then the anchors go into the journal with this step and out to every
    /// player and the moderator. Tops come from the OS: the desk's own
    /// randomness, as at creation.
    fn renew_chains(&self, l: &mut Loaded, batch: &mut Batch, k: u32) -> Result<(), Error> {
        let len = l.desk.chain_len;
        let mut secrets = store::read_secrets(&l.dir)?;
        let tops: BTreeMap<String, dice::Link> = secrets.tops.keys().map(|s| (s.clone(), os_random())).collect();
        secrets.renew(k, &tops, len);
        store::write_secrets(&l.dir, &secrets)?;
        let anchors: BTreeMap<String, String> =
            tops.iter().map(|(s, t)| (s.clone(), dice::to_hex(&dice::anchor(t, len)))).collect();
        batch.entry("renewed", &kinds::Renewed { base: k, chain_len: len, anchors: anchors.clone() });
        l.desk.renewed.retain(|r| r.0 != k);
        l.desk.renewed.push((k, anchors.clone()));
        let body = letters::fill(
            "renewed",
            context! { first => k + 1 - len, base => k, anchors_block => letters::anchors_block(&l.game.id, len, Some(k), &anchors) },
        );
        for (role, to) in self.recipients(l) {
            batch.letters.push(Letter {
                role: Some(role),
                to,
                subject: format!("[{}] new dice anchors from step {}", l.game.id, k + 1),
                body: body.clone(),
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
        Ok(())
    }

    /// End the game: journal it and reveal every link used to everyone.
    pub fn end_game(
        &self,
        l: &mut Loaded,
        batch: &mut Batch,
        winner: Option<String>,
        also: &[String],
        reason: String,
    ) -> Result<(), Error> {
        l.game.ended = true;
        batch.entry("ended", &kinds::Ended { reason: reason.clone(), winner: winner.clone(), also: also.to_vec() });
        let secrets = store::read_secrets(&l.dir)?;
        let used = l.game.step.saturating_sub(1);
        let all = store::links_upto(&secrets, l.desk.chain_len, used);
        let mut block =
            format!("-----BEGIN ADJUTANT REVEAL-----\nscheme: dice-v1\ngame: {}\nsteps: {used}\n", l.game.id);
        for (stream, ls) in &all {
            for (i, h) in ls.iter().enumerate() {
                block.push_str(&format!("link {stream} {}: {h}\n", i + 1));
            }
        }
        block.push_str("-----END ADJUTANT REVEAL-----\n");
        let result = match &winner {
            Some(w) if also.is_empty() => format!("Winner: {w} ({reason})."),
            Some(w) => format!("Winners: {w}, {} ({reason}).", also.join(", ")),
            None => format!("No winner ({reason})."),
        };
        for (role, to) in self.recipients(l) {
            let view = l.game.view(&Viewer::Public);
            let body = letters::fill(
                "gameover",
                context! { title => l.desk.title, result => result, dice_block => block, view => letters::view_text(&view) },
            );
            batch.letters.push(Letter {
                role: Some(role),
                to,
                subject: format!("[{}] game over", l.game.id),
                body,
                svg: self.svg_for(l, &view),
                in_reply_to: None,
            });
        }
        Ok(())
    }

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
    fn commit_batches(
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
        let mut tips = self.tips.lock().unwrap_or_else(|e| e.into_inner());
        for (l, _, _) in &staged {
            tips.remove(&l.game.id);
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
    fn release(&self, name: &str) -> Result<(), Error> {
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
    fn move_to_outbox(&self, path: &Path, to: &str, mid: &str) -> bool {
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
    fn copy_to_outbox(&self, to: &str, mid: &str, local: &[u8]) -> Result<(), Error> {
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
    fn cached_outbox<'a>(&self, outboxes: &'a mut HashMap<String, Maildir>, to: &str) -> Result<&'a Maildir, Error> {
        if !outboxes.contains_key(to) {
            let md = self.open_outbox(to)?;
            outboxes.insert(to.to_string(), md);
        }
        Ok(&outboxes[to])
    }

    /// Make the journals just appended durable: one file-system sync for
    /// those on the data folder's file system, an fsync for any elsewhere.
    fn sync_journals<'a>(&self, journals: impl Iterator<Item = (&'a Path, bool)>) -> Result<(), Error> {
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
    fn stage(&self, l: &mut Loaded, mut batch: Batch, now: DateTime<Utc>, files: &Files) -> Result<Staged, Error> {
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
        for letter in letters.iter_mut() {
            letter.body.push_str(&block);
        }
        let mut mails = Vec::new();
        for (i, letter) in letters.iter().enumerate() {
            let (_, domain) = self.split_game_address();
            // A letter about a step (its subject says "[game] step k")
            // names it in its id too, so a reply (In-Reply-To, References)
            // tells which step it answers; other letters name none.
            // The batch's first entry and the start of its tip's hash: an
            // id never given twice, not even after a re-anchored journal
            // has numbered its entries again from a cut (a client drops a
            // mail whose id it has seen; a file transport would overwrite
            // the mail that showed the cut).
            let mid = match handle::replied_step(&letter.subject, &l.game.id) {
                Some(k) => format!("{}.{base}-{tag}.{i}.s{k}@{domain}", l.game.id),
                None => format!("{}.{base}-{tag}.{i}@{domain}", l.game.id),
            };
            // A letter that cannot be written (an address lettre refuses)
            // is left out, never allowed to stop the batch it belongs to.
            let epoch = letter.role.as_ref().and_then(|r| l.desk.epochs.get(r)).copied().unwrap_or(0);
            let bytes = match self.render(&l.game.id, l.game.step, epoch, letter, &mid, now) {
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
        let (_, domain) = self.split_game_address();
        let key = &key[..key.len().min(32)];
        let t = now.timestamp();
        let mut done = self.loose_record(t);
        if done.iter().any(|(k, _)| k == key) {
            return Ok(());
        }
        let mid = format!("{LOOSE}.{key}@{domain}");
        let bytes = self.render("-", 0, 0, letter, &mid, now)?;
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
    fn loose_record(&self, now: i64) -> Vec<(String, i64)> {
        fs::read_to_string(self.data.join("desk/refused"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once(' ').and_then(|(k, at)| Some((k.to_string(), at.parse().ok()?))))
            .filter(|(_, at)| now - at < 86_400)
            .collect()
    }

    fn render(
        &self,
        game: &str,
        step: u32,
        epoch: u32,
        letter: &Letter,
        mid: &str,
        now: DateTime<Utc>,
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
            attachments: attachments(&letter.svg),
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

    /// The form a letter is spooled in: the wire form (CRLF) for SMTP, the
    /// local form (LF) for the file transport, which then delivers the
    /// spool file itself. The journal's digest is always the wire form's.
    fn spool_form(&self, wire: &[u8]) -> Vec<u8> {
        match self.cfg.outbound {
            OutCfg::File { .. } => crlf_to_lf(wire),
            OutCfg::Smtp(_) | OutCfg::Sendmail { .. } => wire.to_vec(),
        }
    }

    /// The message `sha` is in hand: how many times its own reading or
    /// handling killed the process before (kept across a crash, in
    /// `DATA/desk/handling`).
    fn in_hand(&self, open: &mut Open, sha: &str) -> u32 {
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
    fn handled(&self, open: &mut Open) {
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
            self.peek(g).ok().and_then(|l| l.desk.gm).or_else(|| {
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
            c.save();
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
        self.keep(saved);
        Ok(())
    }

    /// Resolve every open step whose deadline has passed, and send the
    /// reminders that are due. Only games whose tip says something may be
    /// due are loaded (an idle pass reads one small file a game), and
    /// everything due is committed together.
    pub(crate) fn deadlines(&self, now: DateTime<Utc>, report: &mut PassReport) -> Result<(), Error> {
        use store::{Due, Pending};
        let reminder = self.cfg.deadlines.reminder();
        let mut due: Vec<(Loaded, Batch)> = Vec::new();
        for id in self.game_folders()? {
            // The tip's copy of the deadline facts spares loading the game
            // (a game without a tip, from an older adjutant, is loaded).
            match self.due_of(&id) {
                Some(d) if d.pending(now, reminder) == Pending::Nothing => continue,
                Some(_) => {}
                None if !store::game_dir(&self.data, &id).join("journal.toml").exists() => continue,
                None => {}
            }
            let mut l = match self.load(&id) {
                Ok(l) => l,
                Err(Error::Store(store::Error::Held { message, .. })) => {
                    self.tell_held(&id, &message, now)?;
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
                        if self.resolve_step(&mut l, &mut batch, now)? {
                            report.resolved += 1;
                        }
                    }
                    Pending::Remind => self.remind(&mut l, &mut batch),
                    Pending::Nothing => {}
                }
                Ok(batch)
            }));
            match r {
                Ok(Ok(batch)) if batch.is_empty() => {}
                Ok(Ok(batch)) => due.push((l, batch)),
                Ok(Err(e @ (Error::Io { .. } | Error::Journal(_)))) => return Err(e),
                Ok(Err(e)) => warn!(game = %id, error = %e, "cannot resolve the step; skipped"),
                Err(_) => warn!(game = %id, "resolving the step panicked; skipped"),
            }
        }
        self.commit_all(due.iter_mut().map(|(l, b)| (l, std::mem::take(b))).collect(), now)?;
        self.keep(due.into_iter().map(|(l, _)| l));
        Ok(())
    }

    /// A game's deadline facts from its tip: read again only when the tip
    /// file changed since this desk last read it.
    fn due_of(&self, id: &str) -> Option<store::Due> {
        let key = self.tip_key(id)?;
        let mut tips = self.tips.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, due)) = tips.get(id) {
            if *k == key {
                return due.clone();
            }
        }
        let due = store::read_tip(&self.data, id).and_then(|t| t.due);
        tips.insert(id.to_string(), (key, due.clone()));
        due
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

    /// Keep games just committed for the next pass. Only games whose batch
    /// was committed are kept: what they hold in memory is then exactly
    /// what their snapshot says.
    fn keep(&self, games: impl IntoIterator<Item = Loaded>) {
        let cap = self.cfg.limits.games_in_memory;
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
            let due = Some(store::Due::of(&l));
            self.tips.lock().unwrap_or_else(|e| e.into_inner()).insert(l.game.id.clone(), (key, due));
            // What this desk just wrote, when it wrote the snapshot itself.
            let snapshot = l.saved.or_else(|| snapshot_digest(&l));
            if cap == 0 {
                return;
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
        let name = format!("{}.{}.adjutant", spool_stamp(now, 0), &hex::encode(dice::sha256(raw))[..16]);
        inbox.deliver(&name, raw).map_err(io("deliver to inbox", &self.inbox_path()))
    }
}

impl Desk {
    /// Reminders before the deadline, only to awaited roles whose orders
    /// are not in (and not in civil disorder).
    fn remind(&self, l: &mut Loaded, batch: &mut Batch) {
        let a = l.game.awaiting();
        for (role, p) in &a.prompts {
            if l.game.orders.contains_key(role) || l.desk.disorder.contains(role) {
                continue;
            }
            let Some(to) = self.address_of(l, role) else { continue };
            let body = letters::fill(
                "reminder",
                context! { game => l.game.id, step => l.game.step, deadline => self.deadline_for(l, role), prompt => p.text },
            );
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject: format!(
                    "[{}] step {}: reminder, your orders are awaited ({})",
                    l.game.id, l.game.step, a.kind
                ),
                body,
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
        let m = kinds::Moderator { action: kinds::Action::Reminded, args: vec![l.game.step.to_string()] };
        store::apply_moderator(&mut l.desk, &m);
        batch.entry("reminded", &m);
    }

    /// After a step a role missed: past the policy's count in a row, the
    /// role is put in civil disorder (the no-moves rule plays for it) and
    /// the moderator is asked for a replacement.
    fn civil_disorder(&self, l: &mut Loaded, batch: &mut Batch, defaulted: &[String]) {
        let limit = self.cfg.deadlines.missed_for_disorder;
        for role in defaulted {
            let n = l.desk.missed.get(role).copied().unwrap_or(0);
            if limit == 0 || n < limit || l.desk.disorder.contains(role) || role == "gm" {
                continue;
            }
            let m = kinds::Moderator { action: kinds::Action::Disorder, args: vec![role.clone()] };
            store::apply_moderator(&mut l.desk, &m);
            batch.entry("disorder", &m);
            let text = format!(
                "{role} has missed {n} steps in a row and is now in civil disorder: the no-moves rule plays for it until the moderator sends REPLACE {role} <email>."
            );
            for (r, to) in self.recipients(l) {
                if r == "gm" || r == *role {
                    batch.letters.push(Letter {
                        role: Some(r.clone()),
                        to,
                        subject: format!("[{}] {role} is in civil disorder", l.game.id),
                        body: letters::fill("reply", context! { text => text.clone() }),
                        svg: Vec::new(),
                        in_reply_to: None,
                    });
                }
            }
        }
    }
}

/// The digest of a game's snapshot file as it is on disk.
fn snapshot_digest(l: &Loaded) -> Option<[u8; 32]> {
    fs::read(l.dir.join("state.toml")).ok().map(|b| dice::sha256(&b))
}

/// Each map as a PNG (what every mail client shows) and as the SVG it was
/// drawn from. A map that cannot be drawn as PNG still goes as SVG.
fn attachments(svgs: &[(String, String)]) -> Vec<compose::Attached> {
    let mut out = Vec::new();
    for (name, svg) in svgs {
        match crate::render::png::from_svg(svg) {
            Ok(png) => out.push(compose::Attached {
                name: format!("{}.png", name.trim_end_matches(".svg")),
                content_type: "image/png",
                body: png,
            }),
            Err(e) => warn!(map = %name, error = %e, "map not drawn as PNG"),
        }
        out.push(compose::Attached {
            name: name.clone(),
            content_type: "image/svg+xml",
            body: svg.clone().into_bytes(),
        });
    }
    out
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
fn tighten(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = fs::metadata(dir) else { return };
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        warn!(folder = %dir.display(), mode = format!("{:o}", mode & 0o777), "the data folder was open to others: now 0700");
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    }
}

/// A message's line ends as SMTP wants them, for a letter spooled in the
/// local form when the transport was the file transport.
fn lf_to_crlf(bytes: &[u8]) -> Vec<u8> {
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
fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
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

/// How many games a pass may hold with their files open (three each): an
/// eighth of the process's limit on descriptors, which leaves the rest to
/// the mail, the spool and the servers.
fn games_with_open_files() -> usize {
    let soft = descriptor_limits().map_or(1024, |l| l.rlim_cur);
    usize::try_from(soft / 8).unwrap_or(usize::MAX).max(8)
}

/// The file system `p` is on.
fn device(p: &Path) -> std::io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(p).map(|m| m.dev())
}

/// The process's soft and hard limits on open descriptors.
fn descriptor_limits() -> Option<libc::rlimit> {
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

/// The name an outbox gives a spooled letter: its spool file's name
/// (`stamp~index~message-id.eml`) after the stamp and the index.
fn mail_id(spool_name: &str) -> &str {
    spool_name.splitn(3, '~').nth(2).unwrap_or(spool_name)
}

/// A sortable stamp for spool and inbox file names.
fn spool_stamp(now: DateTime<Utc>, seq: u64) -> String {
    format!("{:020}.{seq:010}", now.timestamp_nanos_opt().unwrap_or(0))
}

fn write_synced(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = fs::File::create(p)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// 32 bytes from the operating system's CSPRNG: chain tops and server keys.
pub fn os_random() -> [u8; 32] {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the OS random source is available");
    b
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
