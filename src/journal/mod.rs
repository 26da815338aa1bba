//! The game journal (docs/journal-v1.md): an append-only, hash-chained list of TOML
//! `[[entry]]` tables, fsynced before anything that depends on it; plus the
//! atomic file writes the snapshot and secrets use.

pub mod kinds;

use serde::{de::DeserializeOwned, Serialize};
use sha2::{Digest, Sha256};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read journal {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write journal {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot parse journal {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("journal {path}: entry {seq} {message}")]
    Chain { path: PathBuf, seq: u64, message: String },
}

/// The hash an empty journal's first entry points back to.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One journal entry: the fixed fields and a kind-specific body.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub seq: u64,
    pub at: String,
    pub kind: String,
    pub prev: String,
    pub hash: String,
    pub body: toml::Table,
}

/// The journal formats adjutant reads. The first entry says which one a
/// journal is in (`format`, see `docs/journal-v1.md`); a journal without it
/// is from before the format was pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub enum Format {
    /// Before the format was pinned: an entry is hashed over what the
    /// `toml` 0.8 crate prints for it with sorted keys.
    #[serde(rename = "legacy")]
    Legacy,
    /// `adjutant-journal-1`: an entry is hashed over its canonical JSON
    /// (RFC 8785 key order and string escapes, integers in decimal, no
    /// floats), written by this module and nothing else.
    #[default]
    #[serde(rename = "adjutant-journal-1")]
    V1,
}

/// The `format` value of the first entry of a journal in [`Format::V1`].
pub const FORMAT_V1: &str = "adjutant-journal-1";

impl Format {
    /// The format of a journal, from its first entry.
    pub fn of(entries: &[Entry]) -> Result<Format, String> {
        match entries.first().map(|e| e.body.get("format")) {
            None | Some(None) => Ok(Format::Legacy),
            Some(Some(toml::Value::String(s))) if s == FORMAT_V1 => Ok(Format::V1),
            Some(Some(v)) => Err(format!(
                "the journal is in format {v}, which this adjutant does not know (a later version wrote it)"
            )),
        }
    }
}

/// The canonical JSON of a TOML value (journal-1): objects with keys in
/// ascending UTF-8 byte order, no white space, strings with RFC 8785's
/// escapes, integers in decimal. Floats and dates never appear in a journal.
pub fn canonical_json(v: &toml::Value, out: &mut String) {
    spell(v, out, &JSON);
}

/// How [`spell`] writes a value: as canonical JSON (hashed), or as the
/// journal's TOML (stored). The two differ only in these tokens, the key
/// form and TOML's escaping of DEL.
struct Spelling {
    comma: &'static str,
    colon: &'static str,
    open: &'static str,
    close: &'static str,
    toml: bool,
}

const JSON: Spelling = Spelling { comma: ",", colon: ":", open: "{", close: "}", toml: false };
const TOML: Spelling = Spelling { comma: ", ", colon: " = ", open: "{ ", close: " }", toml: true };

fn spell(v: &toml::Value, out: &mut String, sp: &Spelling) {
    match v {
        toml::Value::String(s) => quoted(s, out, sp.toml),
        toml::Value::Integer(i) => {
            use std::fmt::Write as _;
            let _ = write!(out, "{i}");
        }
        toml::Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        toml::Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(sp.comma);
                }
                spell(x, out, sp);
            }
            out.push(']');
        }
        toml::Value::Table(t) => spell_object(t.iter().map(|(k, v)| (k.as_str(), v)).collect(), out, sp),
        toml::Value::Float(_) | toml::Value::Datetime(_) => {
            panic!("a journal entry holds a float or a date, which journal-1 does not allow: {v}")
        }
    }
}

/// An object of these fields, keys in ascending UTF-8 byte order.
fn spell_object(mut fields: Vec<(&str, &toml::Value)>, out: &mut String, sp: &Spelling) {
    if fields.is_empty() {
        return out.push_str("{}");
    }
    fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out.push_str(sp.open);
    for (i, (k, v)) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sp.comma);
        }
        spell_key(k, out, sp);
        out.push_str(sp.colon);
        spell(v, out, sp);
    }
    out.push_str(sp.close);
}

/// A TOML document of one table (`[name]`, or the top level for an empty
/// name) whose values are strings,
/// integers, booleans, arrays and tables (nested ones written inline), by
/// the journal's printer, which is several times faster than the toml
/// crate's; `None` if the table holds a float or a date, which it does not
/// spell.
pub fn table_text(name: &str, t: &toml::Table) -> Option<String> {
    fn plain(v: &toml::Value) -> bool {
        match v {
            toml::Value::Float(_) | toml::Value::Datetime(_) => false,
            toml::Value::Array(a) => a.iter().all(plain),
            toml::Value::Table(t) => t.values().all(plain),
            _ => true,
        }
    }
    if !t.values().all(plain) {
        return None;
    }
    let mut out = if name.is_empty() { String::new() } else { format!("[{name}]\n") };
    spell_lines(t.iter().map(|(k, v)| (k.as_str(), v)).collect(), &mut out);
    Some(out)
}

/// A TOML table's fields, a line each, keys in ascending UTF-8 byte order.
fn spell_lines(mut fields: Vec<(&str, &toml::Value)>, out: &mut String) {
    fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (k, v) in fields {
        spell_key(k, out, &TOML);
        out.push_str(TOML.colon);
        spell(v, out, &TOML);
        out.push('\n');
    }
}

/// A key: always quoted in JSON; bare in TOML when it can be.
fn spell_key(k: &str, out: &mut String, sp: &Spelling) {
    if sp.toml && !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        out.push_str(k);
    } else {
        quoted(k, out, sp.toml);
    }
}

/// The bytes [`quoted`] escapes: [`ALWAYS`] (controls, `"` and `\\`), or
/// [`DEL`] in TOML only.
const ESCAPED: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = ALWAYS;
        b += 1;
    }
    t[b'"' as usize] = ALWAYS;
    t[b'\\' as usize] = ALWAYS;
    t[0x7f] = DEL;
    t
};
const ALWAYS: u8 = 1;
const DEL: u8 = 2;

/// A string in double quotes with JSON's escapes, which TOML's basic
/// strings share; TOML also wants DEL escaped (`del`), canonical JSON not.
fn quoted(s: &str, out: &mut String, del: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    // Every character escaped is ASCII, so the text between two of them is
    // copied whole (a byte below 0x80 never falls inside a UTF-8 sequence).
    // Whether a byte is escaped is looked up, not matched: every string of
    // every entry passes here twice (hashed, then written).
    let mask = if del { ALWAYS | DEL } else { ALWAYS };
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        if ESCAPED[b as usize] & mask == 0 {
            continue;
        }
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0c => "\\f",
            b'\r' => "\\r",
            // Other controls, and DEL in TOML.
            _ => "",
        };
        out.push_str(&s[from..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{:04x}", b));
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// A JSON string literal (for the fairness report's `--json`).
pub fn json_string(s: &str, out: &mut String) {
    quoted(s, out, false)
}

impl Entry {
    /// The entry without its hash, as a table: what the hash covers.
    fn unhashed(&self) -> toml::Table {
        let mut t = self.body.clone();
        t.insert("seq".into(), toml::Value::Integer(self.seq as i64));
        t.insert("at".into(), toml::Value::String(self.at.clone()));
        t.insert("kind".into(), toml::Value::String(self.kind.clone()));
        t.insert("prev".into(), toml::Value::String(self.prev.clone()));
        t
    }

    /// The canonical text of the entry without its hash, in `format`.
    pub fn canonical(&self, format: Format) -> String {
        match format {
            Format::Legacy => toml::to_string(&self.unhashed()).expect("a TOML table serializes"),
            Format::V1 => {
                let mut out = String::new();
                self.with_fields(false, |fields| spell_object(fields, &mut out, &JSON));
                out
            }
        }
    }

    /// SHA-256 over `prev`, a line feed and the canonical text.
    pub fn compute_hash(&self, format: Format) -> String {
        let mut h = Sha256::new();
        h.update(self.prev.as_bytes());
        h.update(b"\n");
        h.update(self.canonical(format).as_bytes());
        crate::dice::to_hex(&h.finalize().into())
    }

    pub fn body<T: DeserializeOwned>(&self) -> Result<T, String> {
        toml::Value::Table(self.body.clone())
            .try_into()
            .map_err(|e| format!("entry {} ({}) has a malformed body: {e}", self.seq, self.kind))
    }

    /// The entry as journal text: one `[[entry]]` table, a line a field,
    /// nested tables inline. Written here rather than by the toml crate,
    /// whose printer was most of the cost of journaling; the layout does
    /// not enter the hash (docs/journal-v1.md), and any TOML reader reads it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    /// [`Entry::to_text`], appended to `out`: a journal append spells its
    /// entries into one buffer rather than a string each.
    pub fn write_text(&self, out: &mut String) {
        out.push_str("[[entry]]\n");
        self.with_fields(true, |fields| spell_lines(fields, out));
        out.push('\n');
    }

    /// The entry's fields, the body's borrowed rather than cloned (the
    /// body was most of what a journal append copied), handed to `f`: what
    /// [`Entry::canonical`] and [`Entry::to_text`] spell. A body field named
    /// like a head field is shadowed by it, as in [`Entry::unhashed`].
    fn with_fields(&self, hash: bool, f: impl FnOnce(Vec<(&str, &toml::Value)>)) {
        let mut head = vec![
            ("at", toml::Value::String(self.at.clone())),
            ("kind", toml::Value::String(self.kind.clone())),
            ("prev", toml::Value::String(self.prev.clone())),
            ("seq", toml::Value::Integer(self.seq as i64)),
        ];
        if hash {
            head.push(("hash", toml::Value::String(self.hash.clone())));
        }
        let mut fields: Vec<(&str, &toml::Value)> = head.iter().map(|(k, v)| (*k, v)).collect();
        fields.extend(
            self.body.iter().filter(|(k, _)| !head.iter().any(|h| h.0 == k.as_str())).map(|(k, v)| (k.as_str(), v)),
        );
        f(fields);
    }

    #[cfg(test)]
    fn to_table(&self) -> toml::Table {
        let mut t = self.unhashed();
        t.insert("hash".into(), toml::Value::String(self.hash.clone()));
        t
    }

    fn from_table(mut t: toml::Table) -> Result<Entry, String> {
        let mut take_str = |k: &str| match t.remove(k) {
            Some(toml::Value::String(s)) => Ok(s),
            _ => Err(format!("missing or non-text field {k:?}")),
        };
        let at = take_str("at")?;
        let kind = take_str("kind")?;
        let prev = take_str("prev")?;
        let hash = take_str("hash")?;
        let seq = match t.remove("seq") {
            Some(toml::Value::Integer(i)) if i >= 0 => i as u64,
            _ => return Err("missing or bad field \"seq\"".into()),
        };
        Ok(Entry { seq, at, kind, prev, hash, body: t })
    }
}

/// A journal file and the tip of its chain.
pub struct Journal {
    path: PathBuf,
    pub last_seq: u64,
    pub last_hash: String,
    pub format: Format,
    /// The file, open for appending from the first append until
    /// [`Journal::close`]: a pass's groups open it once, not once each.
    file: Option<File>,
}

impl Journal {
    /// Open for appending, trusting the tip given (from the snapshot) or
    /// reading it from the file.
    pub fn open(path: &Path) -> Result<Journal, Error> {
        // Read entry by entry: only the first and the last matter.
        let (mut last_seq, mut last_hash) = (0, GENESIS.to_string());
        // A new journal is written in the current format.
        let mut format = Ok(Format::V1);
        if path.exists() {
            for (i, e) in entries(path)?.enumerate() {
                let e = e?;
                if i == 0 {
                    format = Format::of(std::slice::from_ref(&e));
                }
                last_seq = e.seq;
                last_hash = e.hash;
            }
        }
        let format = format.map_err(|message| Error::Parse { path: path.to_path_buf(), message })?;
        Ok(Journal { path: path.to_path_buf(), last_seq, last_hash, format, file: None })
    }

    /// Open with a known tip, without reading the file (fast path for the
    /// desk, which keeps the tip in the snapshot).
    pub fn with_tip(path: &Path, last_seq: u64, last_hash: String, format: Format) -> Journal {
        Journal { path: path.to_path_buf(), last_seq, last_hash, format, file: None }
    }

    /// Let the file go: a game the desk keeps in memory between passes
    /// holds no descriptor.
    pub fn close(&mut self) {
        self.file = None;
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries `items` would become if appended now at `at`, chained
    /// to the tip: what [`Journal::append`] writes, without writing it.
    pub fn chain<B: Serialize>(&self, at: &str, items: &[(&str, B)]) -> Vec<Entry> {
        self.link(
            at,
            items.iter().map(|(kind, body)| {
                let body = match toml::Value::try_from(body) {
                    Ok(toml::Value::Table(t)) => t,
                    Ok(_) | Err(_) => toml::Table::new(),
                };
                (kind.to_string(), body)
            }),
        )
    }

    /// Bodies made entries, chained to the tip.
    fn link(&self, at: &str, items: impl Iterator<Item = (String, toml::Table)>) -> Vec<Entry> {
        let mut out = Vec::new();
        self.link_onto(&mut out, at, items);
        out
    }

    /// Bodies made entries, chained onto `out` (entries already chained to
    /// the tip), or onto the tip when `out` is empty.
    fn link_onto(&self, out: &mut Vec<Entry>, at: &str, items: impl Iterator<Item = (String, toml::Table)>) {
        let (mut seq, mut prev) = match out.last() {
            Some(e) => (e.seq, e.hash.clone()),
            None => (self.last_seq, self.last_hash.clone()),
        };
        for (kind, mut body) in items {
            for k in ["seq", "at", "kind", "prev", "hash", "format"] {
                assert!(!body.contains_key(k), "journal body of {kind} uses the reserved field {k}");
            }
            // The first entry names the format the whole journal is in.
            if seq == 0 && self.format == Format::V1 {
                body.insert("format".into(), toml::Value::String(FORMAT_V1.into()));
            }
            let mut e = Entry { seq: seq + 1, at: at.to_string(), kind, prev, hash: String::new(), body };
            e.hash = e.compute_hash(self.format);
            seq = e.seq;
            prev = e.hash.clone();
            out.push(e);
        }
    }

    /// Append entries in one write and fsync them.
    pub fn append<B: Serialize>(&mut self, at: &str, items: &[(&str, B)]) -> Result<Vec<Entry>, Error> {
        self.append_with(at, items, true)
    }

    /// Append entries in one write, leaving them to a sync the caller makes
    /// for several journals at once; nothing may depend on them before.
    pub fn append_unsynced<B: Serialize>(&mut self, at: &str, items: &[(&str, B)]) -> Result<Vec<Entry>, Error> {
        self.append_with(at, items, false)
    }

    /// [`Journal::chain`] for bodies that are TOML tables already (the
    /// desk's batches), taken as they are rather than copied through
    /// serde: the entries [`Journal::write_linked`] then appends. Apart,
    /// so that a commit works out its hashes while its letters are still
    /// being written.
    pub fn link_values(&self, at: &str, items: Vec<(String, toml::Value)>) -> Vec<Entry> {
        let mut out = Vec::new();
        self.link_values_onto(&mut out, at, items);
        out
    }

    /// [`Journal::link_values`] chained onto `out`, entries this journal
    /// chained to its tip and has not written yet: a batch's letters carry
    /// the tip of its other entries, and their own `mail` entries, which
    /// name the letters' digests, follow.
    pub fn link_values_onto(&self, out: &mut Vec<Entry>, at: &str, items: Vec<(String, toml::Value)>) {
        self.link_onto(
            out,
            at,
            items.into_iter().map(|(kind, body)| match body {
                toml::Value::Table(t) => (kind, t),
                _ => (kind, toml::Table::new()),
            }),
        )
    }

    /// Append entries [`Journal::link_values`] chained to the tip (nothing
    /// appended since), in one write, leaving them to a sync the caller
    /// makes for several journals at once; nothing may depend on them
    /// before.
    pub fn write_linked(&mut self, entries: Vec<Entry>) -> Result<Vec<Entry>, Error> {
        if let Some(e) = entries.first().filter(|e| e.seq != self.last_seq + 1 || e.prev != self.last_hash) {
            let message = if e.seq == self.last_seq + 1 {
                format!("was chained to another hash of entry {} than the journal's", self.last_seq)
            } else {
                format!("was chained to entry {} but the journal ends at {}", e.seq - 1, self.last_seq)
            };
            return Err(Error::Chain { path: self.path.clone(), seq: e.seq, message });
        }
        self.write_entries(entries, false)
    }

    fn append_with<B: Serialize>(&mut self, at: &str, items: &[(&str, B)], sync: bool) -> Result<Vec<Entry>, Error> {
        let out = self.chain(at, items);
        self.write_entries(out, sync)
    }

    fn write_entries(&mut self, out: Vec<Entry>, sync: bool) -> Result<Vec<Entry>, Error> {
        let werr = |source| Error::Write { path: self.path.clone(), source };
        let f = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(OpenOptions::new().create(true).append(true).open(&self.path).map_err(werr)?),
        };
        let before = f.metadata().map_err(werr)?.len();
        // Spelled and written a slice at a time: a pass's thousands of
        // entries never sit in memory as one text (which cost more in fresh
        // pages than the spelling itself). A failed write is cut off whole.
        const SLICE: usize = 1 << 20;
        let mut text = String::with_capacity((out.len() * 1024).min(SLICE) + 64 * 1024);
        let mut written = Ok(());
        for (i, e) in out.iter().enumerate() {
            e.write_text(&mut text);
            if text.len() >= SLICE || i + 1 == out.len() {
                written = f.write_all(text.as_bytes());
                text.clear();
                if written.is_err() {
                    break;
                }
            }
        }
        if let Err(e) = written.and_then(|_| if sync { f.sync_all() } else { Ok(()) }) {
            // A half-written entry would make the whole journal unreadable:
            // cut it off again (nothing was sent on the strength of it).
            let _ = f.set_len(before);
            let _ = f.sync_all();
            self.file = None;
            return Err(werr(e));
        }
        if let Some(e) = out.last() {
            self.last_seq = e.seq;
            self.last_hash = e.hash.clone();
        }
        Ok(out)
    }
}

/// Read every entry, checking nothing but the syntax.
pub fn read(path: &Path) -> Result<Vec<Entry>, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    parse(&text).map_err(|message| Error::Parse { path: path.to_path_buf(), message })
}

/// Read the first entry only (the game's creation: its anchors), without
/// reading a long journal whole.
pub fn read_first(path: &Path) -> Result<Option<Entry>, Error> {
    use std::io::BufRead;
    let f = File::open(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    let mut text = String::new();
    for line in std::io::BufReader::new(f).lines() {
        let line = line.map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
        if line.trim_end() == "[[entry]]" && !text.trim().is_empty() {
            break;
        }
        text.push_str(&line);
        text.push('\n');
    }
    Ok(parse(&text).map_err(|message| Error::Parse { path: path.to_path_buf(), message })?.into_iter().next())
}

pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let arr = match doc.remove("entry") {
        Some(toml::Value::Array(a)) => a,
        None => Vec::new(),
        Some(_) => return Err("\"entry\" is not an array of tables".into()),
    };
    arr.into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            toml::Value::Table(t) => Entry::from_table(t).map_err(|m| format!("entry #{}: {m}", i + 1)),
            _ => Err(format!("entry #{} is not a table", i + 1)),
        })
        .collect()
}

/// After a crash in the middle of an append (a full disk, a power cut), the
/// journal may end in a partial entry that was never fsynced, so nothing
/// depends on it. Cut such a tail off, keeping a copy beside the journal;
/// returns the bytes dropped. Only a tail after entry `keep` (the last one
/// adjutant knows it wrote whole) and only a partial one, that does not
/// parse: a journal that does not parse even without its last entry, or
/// whose cut would drop entry `keep`, is left alone for a person to look at.
pub fn repair(path: &Path, keep: u64) -> Result<Option<usize>, Error> {
    // A whole journal, the common case, is told entry by entry, never
    // held whole in memory; only a damaged one is read at once.
    if entries(path)?.all(|e| e.is_ok()) {
        return Ok(None);
    }
    let text = fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    if parse(&text).is_ok() {
        return Ok(None);
    }
    let Some(cut) = text.rfind("\n[[entry]]").map(|i| i + 1) else { return Ok(None) };
    match parse(&text[..cut]) {
        Ok(es) if es.last().map(|e| e.seq).unwrap_or(0) >= keep => {}
        _ => return Ok(None),
    }
    let copy = path.with_extension(format!("toml.damaged-{}", text.len()));
    fs::write(&copy, &text).map_err(|source| Error::Write { path: copy.clone(), source })?;
    let f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|source| Error::Write { path: path.to_path_buf(), source })?;
    f.set_len(cut as u64)
        .and_then(|_| f.sync_all())
        .map_err(|source| Error::Write { path: path.to_path_buf(), source })?;
    Ok(Some(text.len() - cut))
}

/// The entries of a journal file one at a time, each parsed on its own, so
/// that a long journal is never held whole in memory (`audit`). An entry
/// starts at a line `[[entry]]`; such a line inside a multi-line string is
/// text, which shows as the entry before it not parsing without it.
pub struct Entries {
    lines: std::io::Lines<std::io::BufReader<File>>,
    path: PathBuf,
    buf: String,
    /// The buffer holds an entry's header line.
    started: bool,
}

/// Open a journal for reading entry by entry (see [`Entries`]).
pub fn entries(path: &Path) -> Result<Entries, Error> {
    use std::io::BufRead;
    let f = File::open(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    Ok(Entries {
        lines: std::io::BufReader::new(f).lines(),
        path: path.to_path_buf(),
        buf: String::new(),
        started: false,
    })
}

impl Entries {
    fn parse_one(&self) -> Option<Entry> {
        match parse(&self.buf) {
            Ok(mut es) if es.len() == 1 => es.pop(),
            _ => None,
        }
    }
}

impl Iterator for Entries {
    type Item = Result<Entry, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.lines.next() {
                None => {
                    if self.buf.trim().is_empty() {
                        return None;
                    }
                    let text = std::mem::take(&mut self.buf);
                    return Some(match parse(&text) {
                        Ok(mut es) if es.len() == 1 => Ok(es.pop().expect("one entry")),
                        Ok(es) => Err(Error::Parse {
                            path: self.path.clone(),
                            message: format!("{} entries where one was expected", es.len()),
                        }),
                        Err(message) => Err(Error::Parse { path: self.path.clone(), message }),
                    });
                }
                Some(Err(source)) => return Some(Err(Error::Read { path: self.path.clone(), source })),
                Some(Ok(line)) => {
                    if line.trim_end() == "[[entry]]" && self.started {
                        if let Some(e) = self.parse_one() {
                            self.buf = line + "\n";
                            return Some(Ok(e));
                        }
                    }
                    self.started |= line.trim_end() == "[[entry]]";
                    self.buf.push_str(&line);
                    self.buf.push('\n');
                }
            }
        }
    }
}

/// The hash chain checked one entry at a time: sequence numbers, links
/// back, hashes in the format the first entry names.
#[derive(Default)]
pub struct ChainCheck {
    format: Option<Format>,
    prev: Option<String>,
    count: u64,
}

impl ChainCheck {
    pub fn check(&mut self, e: &Entry) -> Result<(), (u64, String)> {
        let format = match self.format {
            Some(f) => f,
            None => {
                let f = Format::of(std::slice::from_ref(e)).map_err(|m| (e.seq, m))?;
                self.format = Some(f);
                f
            }
        };
        let expected = self.count + 1;
        if e.seq != expected {
            return Err((e.seq, format!("has seq {} where {expected} was expected", e.seq)));
        }
        if e.prev != *self.prev.get_or_insert_with(|| GENESIS.to_string()) {
            return Err((e.seq, "does not point back to the previous entry's hash".into()));
        }
        let h = e.compute_hash(format);
        if h != e.hash {
            return Err((e.seq, format!("hash mismatch: recorded {}, computed {h}", e.hash)));
        }
        self.prev = Some(e.hash.clone());
        self.count = expected;
        Ok(())
    }
}

/// Check sequence numbers and the hash chain, in the format the first entry
/// names; the first bad entry is named.
pub fn verify_chain(entries: &[Entry]) -> Result<(), (u64, String)> {
    let mut c = ChainCheck::default();
    entries.iter().try_for_each(|e| c.check(e))
}

/// Flush every file written on the file system holding `path` in one call
/// (syncfs): how a group of spool files is made durable before the journal
/// entry that releases them, without an fsync per file.
pub fn sync_filesystem(path: &Path) -> std::io::Result<()> {
    let f = File::open(path)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: syncfs only reads the descriptor, which `f` keeps open.
        if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        f.sync_all()
    }
}

/// Replace a file by rename without waiting for the disk: for the snapshot,
/// which the journal can always rebuild.
pub fn write_replace(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("file")));
    fs::write(&tmp, data)?;
    fs::rename(&tmp, path)
}

/// Overwrite a small file in place at a fixed `size` (the text padded with
/// spaces), without waiting for the disk: one write at offset 0 and, once
/// the file has that size, no truncation, so a crash or a power cut leaves
/// the old text or the new one, never a file cut short or empty. Saves the
/// rename, which on ext4 also flushes the new file at once (the tip, a
/// game's every pass). Text that does not fit is renamed into place.
pub fn write_padded(path: &Path, data: &[u8], size: usize) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    if data.len() >= size {
        return write_replace(path, data);
    }
    let mut buf = Vec::with_capacity(size);
    buf.extend_from_slice(data);
    buf.resize(size - 1, b' ');
    buf.push(b'\n');
    let f = OpenOptions::new().write(true).create(true).truncate(false).open(path)?;
    f.write_all_at(&buf, 0)?;
    if f.metadata()?.len() != size as u64 {
        f.set_len(size as u64)?;
    }
    Ok(())
}

/// Overwrite a file in place, without waiting for the disk: no new inode,
/// for a file a digest kept elsewhere vouches for (the snapshot, checked
/// against its tip), so that one torn by a crash is known and rebuilt.
pub fn write_in_place(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let mut f = fs::OpenOptions::new().write(true).create(true).truncate(false).open(path)?;
    f.write_all(data)?;
    f.set_len(data.len() as u64)
}

/// Write a file atomically: temp file, fsync, rename, fsync the folder.
pub fn write_atomic(path: &Path, data: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("file")));
    {
        let mut f = File::create(&tmp)?;
        #[cfg(unix)]
        if let Some(m) = mode {
            use std::os::unix::fs::PermissionsExt;
            f.set_permissions(fs::Permissions::from_mode(m))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        f.write_all(data)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The steps a moderator's rollback undid, from a journal's `rolled_back`
/// entries: their draws stay checkable but decided nothing that stands.
pub fn undone_steps(entries: &[Entry]) -> Vec<u32> {
    entries
        .iter()
        .filter(|e| e.kind == "rolled_back")
        .filter_map(|e| e.body::<kinds::RolledBack>().ok())
        .flat_map(|b| b.voided_steps)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_padded_file_keeps_its_size_and_reads_as_its_last_text() {
        let dir = std::env::temp_dir().join(format!("adjutant-padded-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.tip");
        write_padded(&p, b"seq = 12\nhash = \"long\"\n", 64).unwrap();
        write_padded(&p, b"seq = 3\n", 64).unwrap();
        let text = fs::read_to_string(&p).unwrap();
        assert_eq!(text.len(), 64, "no truncation once the size is reached");
        let t: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(t.len(), 1, "the old text is gone: {text:?}");
        assert_eq!(t["seq"].as_integer(), Some(3));
        // Text too long for the size is renamed into place whole.
        let long = format!("note = \"{}\"\n", "x".repeat(100));
        write_padded(&p, long.as_bytes(), 64).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), long);
        let _ = fs::remove_dir_all(&dir);
    }

    #[derive(Serialize)]
    struct B {
        x: u32,
        s: String,
    }

    #[test]
    fn a_quoted_string_escapes_what_json_and_toml_want_and_copies_the_rest() {
        let s = "plain é 😀 \" \\ \u{8}\t\n\u{c}\r \u{1} \u{1f} \u{7f} end";
        let (mut json, mut toml_text) = (String::new(), String::new());
        quoted(s, &mut json, false);
        quoted(s, &mut toml_text, true);
        assert_eq!(json, r#""plain é 😀 \" \\ \b\t\n\f\r \u0001 \u001f \u{7f} end""#.replace("\\u{7f}", "\u{7f}"));
        assert_eq!(serde_json_like(&json), s, "JSON reads it back");
        assert!(toml_text.contains("\\u007f") && !json.contains("\\u007f"));
        let back: toml::Table = toml::from_str(&format!("x = {toml_text}")).unwrap();
        assert_eq!(back["x"].as_str(), Some(s), "TOML reads it back");
    }

    /// Every ASCII character, one string: TOML reads the journal's
    /// spelling back as it was, and canonical JSON leaves only controls,
    /// `"` and `\\` escaped.
    #[test]
    fn every_ascii_character_is_quoted_so_that_it_reads_back() {
        let s: String = (0u8..0x80).map(char::from).collect();
        let (mut json, mut toml_text) = (String::new(), String::new());
        quoted(&s, &mut json, false);
        quoted(&s, &mut toml_text, true);
        let back: toml::Table = toml::from_str(&format!("x = {toml_text}")).unwrap();
        assert_eq!(back["x"].as_str(), Some(s.as_str()));
        assert_eq!(serde_json_like(&json), s);
        let bare = json.chars().filter(|c| (' '..='~').contains(c) || *c == '\u{7f}').count();
        assert_eq!(bare, json.len(), "{json}");
    }

    /// A JSON string literal read back by the TOML reader, whose basic
    /// strings take the same escapes (DEL, which TOML wants escaped and
    /// canonical JSON leaves bare, escaped first).
    fn serde_json_like(lit: &str) -> String {
        let t: toml::Table = toml::from_str(&format!("x = {}", lit.replace('\u{7f}', "\\u007f"))).unwrap();
        t["x"].as_str().unwrap().to_string()
    }

    #[test]
    fn the_entry_printer_reads_back_as_the_same_entry() {
        // Every entry of the checked-in journals, and one with every kind of
        // character a player can put in a press or an order.
        let mut all = Vec::new();
        for f in ["mantua-v1.toml", "leaguer-v1.toml"] {
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/journals").join(f);
            all.extend(parse(&fs::read_to_string(p).unwrap()).unwrap());
        }
        let mut odd = all[1].clone();
        let nasty = "quote \" back\\ tab\t nl\n cr\r bell\u{7} del\u{7f} nul\u{0} é 漢 \u{1F600} [[entry]] ''' \"\"\"";
        odd.body.insert("text".into(), toml::Value::String(nasty.into()));
        odd.body.insert("weird key.with \"dots\"".into(), toml::Value::Integer(-7));
        let mut t = toml::Table::new();
        t.insert(
            "".into(),
            toml::Value::Array(vec![toml::Value::Boolean(true), toml::Value::Table(toml::Table::new())]),
        );
        t.insert("nested".into(), toml::Value::Array(vec![toml::Value::Table(t.clone())]));
        odd.body.insert("deep".into(), toml::Value::Table(t));
        all.push(odd);
        let text: String = all.iter().map(|e| e.to_text()).collect();
        let back = parse(&text).unwrap();
        assert_eq!(back.len(), all.len());
        for (a, b) in all.iter().zip(&back) {
            assert_eq!(a.to_table(), b.to_table());
            // The hashed text is the canonical JSON of the whole table,
            // borrowed field by field or cloned, and the checked-in
            // entries' hashes hold.
            let mut whole = String::new();
            canonical_json(&toml::Value::Table(a.unhashed()), &mut whole);
            assert_eq!(a.canonical(Format::V1), whole);
        }
        for e in &all[..all.len() - 1] {
            assert_eq!(e.compute_hash(Format::V1), e.hash, "entry {} of a checked-in journal", e.seq);
        }
        assert!(text.lines().filter(|l| *l == "[[entry]]").count() == all.len(), "a value never spans lines");
    }

    #[test]
    fn chain_detects_any_edit() {
        let dir = std::env::temp_dir().join(format!("adj-journal-{}", std::process::id()));
        let _ = fs::create_dir_all(&dir);
        let p = dir.join("j.toml");
        let _ = fs::remove_file(&p);
        let mut j = Journal::open(&p).unwrap();
        j.append("2026-01-01T00:00:00Z", &[("a", B { x: 1, s: "one".into() }), ("b", B { x: 2, s: "two".into() })])
            .unwrap();
        let mut j = Journal::open(&p).unwrap();
        assert_eq!(j.last_seq, 2);
        j.append("2026-01-01T00:00:01Z", &[("c", B { x: 3, s: "three".into() })]).unwrap();
        let es = read(&p).unwrap();
        assert_eq!(es.len(), 3);
        verify_chain(&es).unwrap();
        let text = fs::read_to_string(&p).unwrap();
        let bad = text.replace("x = 2", "x = 5");
        let es = parse(&bad).unwrap();
        assert_eq!(verify_chain(&es).unwrap_err().0, 2);
        let _ = fs::remove_dir_all(&dir);
    }

    /// Entries chained while the journal's tip was another (something was
    /// appended between) are refused whole, and the journal is unchanged;
    /// chained to the tip, they append and verify.
    #[test]
    fn linked_entries_are_written_only_onto_the_tip_they_were_chained_to() {
        let dir = std::env::temp_dir().join(format!("adj-journal-linked-{}", std::process::id()));
        let _ = fs::create_dir_all(&dir);
        let p = dir.join("j.toml");
        let _ = fs::remove_file(&p);
        let mut j = Journal::open(&p).unwrap();
        let body = |x: u32| vec![("a".to_string(), toml::Value::try_from(B { x, s: "s".into() }).unwrap())];
        let stale = j.link_values("2026-01-01T00:00:00Z", body(1));
        j.append("2026-01-01T00:00:00Z", &[("b", B { x: 2, s: "two".into() })]).unwrap();
        let before = fs::read(&p).unwrap();
        let said = j.write_linked(stale).unwrap_err().to_string();
        assert!(said.contains("chained to entry 0") && said.contains("ends at 1"), "{said}");
        assert_eq!(fs::read(&p).unwrap(), before);
        let fresh = j.link_values("2026-01-01T00:00:01Z", body(3));
        j.write_linked(fresh).unwrap();
        verify_chain(&read(&p).unwrap()).unwrap();
        assert_eq!(j.last_seq, 2);
        // Chained to an entry 2 of another journal: the right number, the
        // wrong hash.
        let q = dir.join("other.toml");
        let _ = fs::remove_file(&q);
        let mut other = Journal::open(&q).unwrap();
        other
            .append("2026-01-01T00:00:00Z", &[("c", B { x: 4, s: "c".into() }), ("d", B { x: 5, s: "d".into() })])
            .unwrap();
        let foreign = other.link_values("2026-01-01T00:00:02Z", body(6));
        let before = fs::read(&p).unwrap();
        let said = j.write_linked(foreign).unwrap_err().to_string();
        assert!(said.contains("another hash of entry 2"), "{said}");
        assert_eq!(fs::read(&p).unwrap(), before);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn entries_one_at_a_time_are_the_entries_even_when_a_text_holds_an_entry_header() {
        let dir = std::env::temp_dir().join(format!("adj-journal-stream-{}", std::process::id()));
        let _ = fs::create_dir_all(&dir);
        let p = dir.join("j.toml");
        let _ = fs::remove_file(&p);
        let mut j = Journal::open(&p).unwrap();
        let tricky = "line one\n[[entry]]\nseq = 99\n[entry.x]\n".to_string();
        j.append("2026-01-01T00:00:00Z", &[("a", B { x: 1, s: tricky.clone() }), ("b", B { x: 2, s: "two".into() })])
            .unwrap();
        j.append("2026-01-01T00:00:01Z", &[("c", B { x: 3, s: "three".into() })]).unwrap();
        let whole = read(&p).unwrap();
        let streamed: Vec<Entry> = entries(&p).unwrap().map(|e| e.unwrap()).collect();
        assert_eq!(streamed, whole);
        assert_eq!(streamed[0].body["s"].as_str(), Some(tricky.as_str()));
        let mut c = ChainCheck::default();
        streamed.iter().for_each(|e| c.check(e).unwrap());
        // A damaged last entry is an error, not a silent end.
        let text = fs::read_to_string(&p).unwrap();
        fs::write(&p, format!("{text}[[entry]]\nseq = \"broken")).unwrap();
        assert!(entries(&p).unwrap().last().unwrap().is_err());
        let _ = fs::remove_dir_all(&dir);
    }
}
