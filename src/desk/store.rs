//! A game's folder on disk: journal, snapshot, secrets and the raw-mail
//! archive; loading a game from its snapshot, or rebuilding it from the
//! journal when the snapshot is missing or behind.

pub use super::core::secrets::{chain_base, links_upto, Chain, Secrets, CHECKPOINT};
pub use super::core::state::{
    apply_moderator, count_missed, desk_state, parse_duration, valid_game_id as valid_id, DeskState,
};
use super::core::GameState;
use super::seen::Seen;
use crate::audit;
use crate::dice;
use crate::engine::{Envelope, Game};
use crate::journal::{self, kinds, Entry, Journal};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// What the desk writes beside the ruleset's state in `state.toml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    /// The journal entry this snapshot reflects, and the journal's length
    /// then: a journal longer than that means the snapshot is behind.
    pub seq: u64,
    pub hash: String,
    pub journal_len: u64,
    /// The journal's format (a snapshot from before it was pinned is of a
    /// legacy journal).
    #[serde(default = "legacy")]
    pub format: journal::Format,
    pub desk: DeskState,
    pub envelope: Envelope,
}

/// `state.toml` as a whole: a first line giving the length of the ruleset's
/// state, the state's own TOML, then the desk's part as `[snapshot]`. The
/// file reads as one TOML document, but adjutant reads the two parts
/// apart, so the state is neither escaped into a string nor parsed twice.
#[derive(Serialize, Deserialize)]
struct SnapshotPart {
    snapshot: Snapshot,
}

const SNAPSHOT_LINE: &str = "# adjutant snapshot (a cache of the journal): the ruleset's state is the next ";

fn encode_snapshot(snap: Snapshot, state: &str) -> String {
    let part = toml_text("snapshot", &snap);
    format!("{SNAPSHOT_LINE}{} bytes\n{state}\n{part}", state.len())
}

/// `value` as the TOML table `[name]` (the top level for ""), by the
/// journal's printer when it can spell it, else by the toml crate's.
fn toml_text<T: Serialize>(name: &str, value: &T) -> String {
    if let Ok(toml::Value::Table(t)) = toml::Value::try_from(value) {
        if let Some(text) = journal::table_text(name, &t) {
            return text;
        }
    }
    let text = if name.is_empty() { toml::to_string(value) } else { toml::to_string(&BTreeMap::from([(name, value)])) };
    text.expect("the desk's records serialize")
}

/// The desk's part and the state's text, or `None` for anything else (an
/// older snapshot, a torn one): the caller rebuilds from the journal.
fn decode_snapshot(text: &str) -> Option<(Snapshot, &str)> {
    let (first, rest) = text.split_once('\n')?;
    let n: usize = first.strip_prefix(SNAPSHOT_LINE)?.strip_suffix(" bytes")?.parse().ok()?;
    let state = rest.get(..n)?;
    let part: SnapshotPart = toml::from_str(rest.get(n..)?.strip_prefix('\n')?).ok()?;
    Some((part.snapshot, state))
}

/// A game loaded for handling mail: what the referee works on (its
/// `state`, which the game derefs to), and its files.
pub struct Loaded {
    pub dir: PathBuf,
    pub state: GameState,
    /// The raw-mail archive, as this load appends to it.
    pub archive: super::archive::Archive,
    pub journal: Journal,
    /// The SHA-256 of the snapshot this load last wrote, which its tip
    /// records: a running desk compares it with the file rather than read
    /// back what it just wrote.
    pub saved: Option<[u8; 32]>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no game {0:?}")]
    NoGame(String),
    #[error("cannot read game {id}: {message}")]
    Corrupt { id: String, message: String },
    /// Nothing vouches for the end of the game's journal (its tip file is
    /// missing, or the journal does not reach it): the game is left alone
    /// until it is re-anchored (REANCHOR) or the files are restored.
    #[error("game {id} is held: {message}")]
    Held { id: String, message: String },
    #[error(transparent)]
    Journal(#[from] journal::Error),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

fn legacy() -> journal::Format {
    journal::Format::Legacy
}

pub fn game_dir(data: &Path, id: &str) -> PathBuf {
    data.join("games").join(id)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// Does the data folder hold any game?
pub fn any_game(data: &Path) -> bool {
    fs::read_dir(data.join("games"))
        .map(|d| d.flatten().any(|e| e.path().join("journal.toml").exists()))
        .unwrap_or(false)
}

/// A game's secrets. Missing, they cannot be made again: the error names
/// the file and what depends on it.
pub fn read_secrets(dir: &Path) -> Result<Secrets, Error> {
    let p = dir.join("secrets.toml");
    let t = fs::read_to_string(&p).map_err(|e| Error::Corrupt {
        id: dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
        message: format!(
            "cannot read {} ({e}): it holds the game's dice chains, and no step can resolve without it. Restore it from a backup",
            p.display()
        ),
    })?;
    toml::from_str(&t)
        .map_err(|e| Error::Corrupt { id: dir.display().to_string(), message: format!("secrets.toml: {e}") })
}

pub fn write_secrets(dir: &Path, s: &Secrets) -> Result<(), Error> {
    let p = dir.join("secrets.toml");
    journal::write_atomic(&p, toml::to_string(s).expect("secrets serialize").as_bytes(), Some(0o600)).map_err(io(&p))
}

/// The journal's tip as adjutant last wrote it, kept apart from the
/// journal (`DATA/secrets/<game>.tip`): a journal that no longer reaches
/// it was cut, and a snapshot whose digest differs from the one recorded
/// here was not written by adjutant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tip {
    pub seq: u64,
    pub hash: String,
    pub journal_len: u64,
    /// SHA-256 of `state.toml` as written with this tip.
    pub snapshot: String,
    /// What the deadline pass needs to know whether to load the game.
    #[serde(default)]
    pub due: Option<Due>,
    /// The length of the game's `seen` file written with this tip (none
    /// from an older adjutant: the file is then rebuilt).
    #[serde(default)]
    pub seen_len: Option<u64>,
}

/// A game's deadline facts as of its last commit, kept in its tip so that
/// an idle pass need not load the game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Due {
    pub ended: bool,
    pub paused: bool,
    pub step: u32,
    pub reminded: u32,
    pub deadline_at: Option<String>,
    pub resolve_at: Option<String>,
}

/// Where a game's tip file lives: beside the other secrets, not in the
/// game's folder.
pub fn tip_path(data: &Path, id: &str) -> PathBuf {
    data.join("secrets").join(format!("{id}.tip"))
}

impl Tip {
    /// Does a journal that ends at entry `last`, and has hash `at` at the
    /// tip's entry, reach the tip? A cut at an entry boundary leaves a
    /// journal whose chain holds; only this tells.
    pub fn reached(&self, at: Option<&str>, last: u64) -> Result<(), String> {
        if self.seq == 0 || at == Some(self.hash.as_str()) {
            return Ok(());
        }
        Err(format!(
            "adjutant last wrote entry {} ({}…), which this journal {}: entries were cut off or replaced",
            self.seq,
            &self.hash[..self.hash.len().min(16)],
            if at.is_none() {
                format!("does not reach (it ends at entry {last})")
            } else {
                "holds with another hash".into()
            }
        ))
    }
}

/// What a deadline pass has to do for a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    Nothing,
    /// The step's resolution time (or its deadline) has passed.
    Resolve,
    /// The reminder before the deadline is due and not yet sent.
    Remind,
}

impl Due {
    pub fn of(l: &Loaded) -> Due {
        Due {
            ended: l.game.ended,
            paused: l.desk.paused,
            step: l.game.step,
            reminded: l.desk.reminded,
            deadline_at: l.desk.deadline_at.clone(),
            resolve_at: l.desk.resolve_at.clone(),
        }
    }

    /// What is due at `now`, with reminders `reminder` before a deadline.
    pub fn pending(&self, now: DateTime<Utc>, reminder: Option<chrono::Duration>) -> Pending {
        let when = |s: &Option<String>| {
            s.as_deref().and_then(|d| DateTime::parse_from_rfc3339(d).ok()).map(|d| d.with_timezone(&Utc))
        };
        if self.ended || self.paused {
            return Pending::Nothing;
        }
        if when(&self.resolve_at).or(when(&self.deadline_at)).is_some_and(|t| t <= now) {
            return Pending::Resolve;
        }
        match (reminder, when(&self.deadline_at)) {
            (Some(before), Some(at)) if self.reminded != self.step && now >= at - before && now < at => Pending::Remind,
            _ => Pending::Nothing,
        }
    }
}

/// The data folder a game folder (`DATA/games/<id>`) belongs to.
fn data_of(dir: &Path) -> &Path {
    dir.parent().and_then(Path::parent).unwrap_or(Path::new("."))
}

pub fn read_tip(data: &Path, id: &str) -> Option<Tip> {
    fs::read_to_string(tip_path(data, id)).ok().and_then(|t| toml::from_str(&t).ok())
}

impl std::ops::Deref for Loaded {
    type Target = GameState;
    fn deref(&self) -> &GameState {
        &self.state
    }
}

impl std::ops::DerefMut for Loaded {
    fn deref_mut(&mut self) -> &mut GameState {
        &mut self.state
    }
}

impl Loaded {
    /// Let go of the game's open files (journal and archive): they open
    /// again when next written.
    pub fn close_files(&mut self) {
        self.journal.close();
        self.archive.close();
    }

    /// Write the snapshot, then the tip that vouches for it.
    pub fn save(&mut self) -> Result<(), Error> {
        let jp = self.journal.path();
        let journal_len = fs::metadata(jp).map(|m| m.len()).unwrap_or(0);
        let snap = Snapshot {
            seq: self.journal.last_seq,
            hash: self.journal.last_hash.clone(),
            journal_len,
            format: self.journal.format,
            desk: self.desk.clone(),
            envelope: self.game.envelope(),
        };
        let (seq, hash) = (snap.seq, snap.hash.clone());
        let text = encode_snapshot(snap, &self.game.snapshot_text());
        let p = self.dir.join("state.toml");
        // Written in place and not synced: a snapshot lost or torn (by the
        // power, or by a crash in mid-write) does not match the tip, and the
        // game is rebuilt from the journal.
        journal::write_in_place(&p, text.as_bytes()).map_err(io(&p))?;
        // After the journal is durable (a key here is a message journaled),
        // before the tip that records the file's length.
        let sp = self.dir.join(super::seen::FILE);
        let seen_len = self.seen.save(&sp).map_err(io(&sp))?;
        let digest = dice::sha256(text.as_bytes());
        self.saved = Some(digest);
        let tip = Tip {
            seq,
            hash,
            journal_len,
            snapshot: dice::to_hex(&digest),
            due: Some(Due::of(self)),
            seen_len: Some(seen_len),
        };
        write_tip(data_of(&self.dir), &self.game.id, &tip)
    }
}

/// Write a game's tip file. Not synced: the journal is, and a tip behind
/// the journal only means a rebuild that finds the journal reaching past
/// it. Written in place at a fixed size, so it is the old tip or the new
/// one. Its folder is made only the first time (a mkdir a game a pass was
/// a failing system call each).
pub fn write_tip(data: &Path, id: &str, tip: &Tip) -> Result<(), Error> {
    let tp = tip_path(data, id);
    let tip_text = toml_text("", tip);
    match journal::write_padded(&tp, tip_text.as_bytes(), TIP_SIZE) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(d) = tp.parent() {
                fs::create_dir_all(d).map_err(io(d))?;
            }
            journal::write_padded(&tp, tip_text.as_bytes(), TIP_SIZE).map_err(io(&tp))
        }
        r => r.map_err(io(&tp)),
    }
}

impl Tip {
    /// The tip of a journal not yet begun: a game's tip file exists from
    /// before its first entry, so a crash between the two never leaves a
    /// game whose journal nothing vouches for.
    pub fn before_first_entry() -> Tip {
        Tip {
            seq: 0,
            hash: journal::GENESIS.to_string(),
            journal_len: 0,
            snapshot: String::new(),
            due: None,
            seen_len: None,
        }
    }
}

/// The tip file's fixed size: room for a tip with both deadlines (a tip
/// is about 500 bytes; a longer one is renamed into place instead).
const TIP_SIZE: usize = 1024;

/// Load a game: the snapshot when its tip vouches for it and the journal
/// is as long as the tip says, else a replay (saved).
pub fn load(data: &Path, id: &str) -> Result<Loaded, Error> {
    load_with(data, id, true)
}

/// Load a game without writing anything (`show`, `games`: no desk lock).
pub fn peek(data: &Path, id: &str) -> Result<Loaded, Error> {
    load_with(data, id, false)
}

fn load_with(data: &Path, id: &str, persist: bool) -> Result<Loaded, Error> {
    if !valid_id(id) {
        return Err(Error::NoGame(id.to_string()));
    }
    let dir = game_dir(data, id);
    let jp = dir.join("journal.toml");
    if !jp.exists() {
        return Err(Error::NoGame(id.to_string()));
    }
    let jlen = fs::metadata(&jp).map_err(io(&jp))?.len();
    let tip = read_tip(data, id);
    if let (Some(t), Ok(text)) = (&tip, fs::read(dir.join("state.toml"))) {
        let vouched = t.journal_len == jlen && t.snapshot == dice::to_hex(&dice::sha256(&text));
        let snap = if vouched { std::str::from_utf8(&text).ok().and_then(decode_snapshot) } else { None };
        match snap {
            Some((snap, state)) if vouched && snap.seq == t.seq && snap.hash == t.hash && snap.journal_len == jlen => {
                let seen = Seen::read(&dir.join(super::seen::FILE), t.seen_len);
                if let (Some(rules), Some(seen)) = (crate::rules::find(&snap.envelope.ruleset), seen) {
                    if let Ok(game) = Game::from_parts(snap.envelope, rules, state) {
                        return Ok(Loaded {
                            saved: None,
                            journal: Journal::with_tip(&jp, snap.seq, snap.hash, snap.format),
                            dir,
                            state: GameState { game, desk: snap.desk, seen },
                            archive: Default::default(),
                        });
                    }
                }
            }
            // Without the desk lock (`show`, `games`) the snapshot may be
            // read while the daemon overwrites it: not worth a warning.
            _ if t.journal_len == jlen && persist => {
                tracing::warn!(game = %id, "the snapshot is not the one adjutant wrote; rebuilt from the journal")
            }
            _ => {}
        }
    }
    rebuild_with(&dir, id, tip.as_ref(), persist)
}

/// Replay the journal to rebuild the game and the desk state; the journal
/// wins over any snapshot, but it must reach the tip adjutant wrote last.
pub fn rebuild(dir: &Path, id: &str) -> Result<Loaded, Error> {
    rebuild_with(dir, id, read_tip(data_of(dir), id).as_ref(), true)
}

/// Why nothing vouches for the end of a game's journal, if nothing does:
/// its tip file is missing (for a game whose tip was kept from its first
/// entry), or the journal does not reach it.
fn unvouched(dir: &Path, id: &str, tip: Option<&Tip>, read: &Read) -> Option<String> {
    let tp = tip_path(data_of(dir), id);
    match tip {
        Some(t) => {
            t.reached(read.at_tip.as_deref(), read.count).err().map(|m| {
                format!(
                    "{m}. Restore journal.toml from a backup ({} holds the tip adjutant wrote), or have the moderator accept the journal as it is with REANCHOR <reason>",
                    tp.display()
                )
            })
        }
        None if read.tip_kept => {
            Some(format!(
                "its tip file {} is missing, so nothing vouches that the journal (ending at entry {}) was not cut at its end. Restore the file from a backup, or have the moderator accept the journal as it is with REANCHOR <reason>",
                tp.display(),
                read.count
            ))
        }
        None if read.count > 0 => {
            tracing::warn!(game = %id, "no tip file for this game (an older adjutant): the journal is taken as it is");
            None
        }
        None => None,
    }
}

/// A game held for its journal's end ([`Error::Held`]), rebuilt from its
/// journal as it is and nothing written: what the moderator's REANCHOR,
/// `adjutant reanchor` and `adjutant games` work on.
pub fn load_held(data: &Path, id: &str) -> Result<Loaded, Error> {
    if !valid_id(id) || !game_dir(data, id).join("journal.toml").exists() {
        return Err(Error::NoGame(id.to_string()));
    }
    rebuild_inner(&game_dir(data, id), id, read_tip(data, id).as_ref(), false, true)
}

/// Why game `id`'s journal is not vouched for, if it is not (see
/// [`Error::Held`]); read without writing anything.
pub fn held_reason(data: &Path, id: &str) -> Option<String> {
    let dir = game_dir(data, id);
    let tip = read_tip(data, id);
    let mut read = Read::new(tip.as_ref());
    for e in journal::entries(&dir.join("journal.toml")).ok()? {
        read.note(&e.ok()?);
    }
    unvouched(&dir, id, tip.as_ref(), &read)
}

fn rebuild_with(dir: &Path, id: &str, tip: Option<&Tip>, persist: bool) -> Result<Loaded, Error> {
    rebuild_inner(dir, id, tip, persist, false)
}

fn rebuild_inner(dir: &Path, id: &str, tip: Option<&Tip>, persist: bool, held: bool) -> Result<Loaded, Error> {
    let jp = dir.join("journal.toml");
    let corrupt = |message: String| Error::Corrupt { id: id.to_string(), message };
    if persist {
        // Only the unsynced tail of the last write may be cut, never an
        // entry the tip vouches for.
        if let Some(n) = journal::repair(&jp, tip.map(|t| t.seq).unwrap_or(0))? {
            tracing::warn!(game = %id, bytes = n, "cut a partial entry off the end of the journal (kept a copy)");
        }
    }
    // Entry by entry, never the whole journal in memory: a game whose
    // snapshot cannot be used is rebuilt within the memory of its state,
    // whatever its journal's length.
    tracing::info!(game = %id, "rebuilding the game from its journal");
    let mut read = Read::new(tip);
    let mut desk = DeskState::default();
    let mut keys = Vec::new();
    let mut folded: Result<(), String> = Ok(());
    let mut format = None;
    // The first entry that could not be read: the journal is damaged, which
    // is what its reader is told (the tip's check would only see it short).
    let mut unread: Option<journal::Error> = None;
    let mut stream = journal::entries(&jp)?.map(|r| {
        r.inspect(|e| {
            read.note(e);
            if format.is_none() {
                format = Some(journal::Format::of(std::slice::from_ref(e)));
            }
            if folded.is_ok() {
                folded = desk_apply(&mut desk, &mut keys, e);
            }
        })
        .map_err(|e| {
            let m = audit::Mismatch { seq: read.count + 1, message: e.to_string() };
            unread.get_or_insert(e);
            m
        })
    });
    let replayed = audit::replay_stream(stream.by_ref());
    // The rest of a journal that did not replay, read for the tip's check,
    // which comes first: a journal cut or replaced is held, not corrupt.
    for r in stream.by_ref() {
        if r.is_err() {
            break;
        }
    }
    drop(stream);
    if let Some(e) = unread {
        return Err(e.into());
    }
    if let Some(message) = unvouched(dir, id, tip, &read) {
        if !held {
            return Err(Error::Held { id: id.to_string(), message });
        }
    }
    let (game, _) = replayed.map_err(|m| corrupt(m.to_string()))?;
    folded.map_err(corrupt)?;
    let format = format.unwrap_or(Ok(journal::Format::V1)).map_err(corrupt)?;
    let seen = Seen::from_keys(keys.iter().map(|k| k.as_str()));
    tracing::info!(game = %id, entries = read.count, "rebuilt the game from its journal");
    let mut l = Loaded {
        journal: Journal::with_tip(&jp, read.last_seq, read.last_hash, format),
        dir: dir.to_path_buf(),
        state: GameState { game, desk, seen },
        archive: Default::default(),
        saved: None,
    };
    if persist {
        l.save()?;
    }
    Ok(l)
}

/// What a journal read entry by entry tells the tip's check: how many
/// entries, the hash of the one the tip names, the last hash, and whether
/// its first entry says a tip was kept from the start.
struct Read {
    tip_seq: u64,
    count: u64,
    at_tip: Option<String>,
    last_seq: u64,
    last_hash: String,
    tip_kept: bool,
}

impl Read {
    fn new(tip: Option<&Tip>) -> Read {
        Read {
            tip_seq: tip.map_or(0, |t| t.seq),
            count: 0,
            at_tip: None,
            last_seq: 0,
            last_hash: journal::GENESIS.to_string(),
            tip_kept: false,
        }
    }

    fn note(&mut self, e: &Entry) {
        self.count += 1;
        if self.count == 1 {
            self.tip_kept = e.body::<kinds::Created>().ok().is_some_and(|c| c.tip_kept);
        }
        if self.count == self.tip_seq {
            self.at_tip = Some(e.hash.clone());
        }
        self.last_seq = e.seq;
        self.last_hash.clone_from(&e.hash);
    }
}

/// One entry's part in the desk's facts and in the dedupe keys of every
/// message the journal received (its bytes' digest, and its Message-ID
/// when it had one).
fn desk_apply(desk: &mut DeskState, keys: &mut Vec<String>, e: &Entry) -> Result<(), String> {
    super::core::state::apply_entry(desk, e)?;
    if e.kind == "received" {
        let r: kinds::Received = e.body()?;
        keys.extend(super::seen::recorded(&r.sha256, &r.message_id, &r.from, r.verdict == "refused"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_deadline_pass_has_to_do() {
        let at =
            |h: i64| Some((DateTime::<Utc>::from_timestamp(0, 0).unwrap() + chrono::Duration::hours(h)).to_rfc3339());
        let now = DateTime::<Utc>::from_timestamp(0, 0).unwrap() + chrono::Duration::hours(10);
        let d = Due { ended: false, paused: false, step: 3, reminded: 2, deadline_at: at(12), resolve_at: at(13) };
        let day = Some(chrono::Duration::hours(24));
        assert_eq!(d.pending(now, None), Pending::Nothing);
        assert_eq!(d.pending(now, day), Pending::Remind);
        assert_eq!(Due { reminded: 3, ..d.clone() }.pending(now, day), Pending::Nothing, "reminded already");
        assert_eq!(Due { resolve_at: at(9), ..d.clone() }.pending(now, day), Pending::Resolve);
        assert_eq!(Due { resolve_at: None, deadline_at: at(10), ..d.clone() }.pending(now, None), Pending::Resolve);
        assert_eq!(Due { paused: true, resolve_at: at(9), ..d.clone() }.pending(now, day), Pending::Nothing);
        assert_eq!(Due { ended: true, resolve_at: at(9), ..d }.pending(now, day), Pending::Nothing);
    }

    #[test]
    fn a_snapshot_reads_back_in_two_parts_and_as_one_toml_document() {
        let snap = Snapshot {
            seq: 7,
            hash: "ab".repeat(32),
            journal_len: 4096,
            format: journal::Format::V1,
            desk: DeskState::default(),
            envelope: crate::engine::Envelope {
                id: "g1".into(),
                // The desk never reads a ruleset's state: any name will do.
                ruleset: "some-game".into(),
                scenario: "some-scenario".into(),
                roles: vec!["first".into(), "second".into()],
                step: 3,
                // What a player may write, awkward characters and all.
                orders: BTreeMap::from([
                    ("first".into(), vec!["MOVE \"A\" TO b\\c".into(), "PRESS é\t\u{7f}".into()]),
                    ("second".into(), vec![]),
                ]),
                salts: BTreeMap::from([("first".into(), "s 1".into())]),
                ended: false,
            },
        };
        let mut snap = snap;
        snap.desk.declared = vec![("gm".into(), vec![3, 6])];
        snap.desk.renewed = vec![(100, BTreeMap::from([("public".into(), "cd".repeat(32))]))];
        let state = "phase = \"Setup\"\nnote = \"\"\"\n[snapshot]\n\"\"\"\n\n[[pieces]]\nname = \"P1\"\n";
        let text = encode_snapshot(snap.clone(), state);
        let (back, st) = decode_snapshot(&text).unwrap();
        assert_eq!(st, state, "the state comes back byte for byte, even with `[snapshot]` in a string");
        assert_eq!((back.seq, back.hash, back.envelope), (snap.seq, snap.hash, snap.envelope));
        assert_eq!(toml::to_string(&back.desk).unwrap(), toml::to_string(&snap.desk).unwrap());
        let whole: toml::Table = toml::from_str(&text).unwrap();
        assert!(whole.contains_key("pieces") && whole["snapshot"]["seq"].as_integer() == Some(7));
        // Anything else is not a snapshot: the game is rebuilt instead.
        assert!(decode_snapshot(&text[..text.len() / 2]).is_none(), "torn");
        let lie = text.replacen(&format!("next {} bytes", state.len()), &format!("next {} bytes", state.len() + 1), 1);
        assert!(lie != text && decode_snapshot(&lie).is_none(), "a length that lies");
        assert!(decode_snapshot("seq = 7\nstate = \"\"\n").is_none(), "an older adjutant's snapshot");
    }

    #[test]
    fn the_desks_records_read_back_whichever_printer_spells_them() {
        // The journal's printer spells no float: the toml crate's then
        // does, and both read back as the same nested tables.
        let plain = toml::toml! { seq = 3
        [due]
        step = 2
        at = ["a", "b"] };
        let float = toml::toml! { seq = 3
        [due]
        step = 2.5 };
        for (name, t) in [("snapshot", &plain), ("snapshot", &float), ("", &plain), ("", &float)] {
            let text = toml_text(name, t);
            let back: toml::Table = toml::from_str(&text).unwrap();
            let back = if name.is_empty() { back } else { back[name].as_table().unwrap().clone() };
            assert_eq!(&back, t, "{name:?}: {text}");
        }
    }
}
