//! The game journal (DESIGN.md 5): an append-only, hash-chained list of TOML
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

impl Entry {
    /// The canonical TOML of the entry without its hash: sorted keys, the
    /// toml crate's formatting. What the hash covers.
    pub fn canonical(&self) -> String {
        let mut t = self.body.clone();
        t.insert("seq".into(), toml::Value::Integer(self.seq as i64));
        t.insert("at".into(), toml::Value::String(self.at.clone()));
        t.insert("kind".into(), toml::Value::String(self.kind.clone()));
        t.insert("prev".into(), toml::Value::String(self.prev.clone()));
        toml::to_string(&t).expect("a TOML table serializes")
    }

    pub fn compute_hash(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.prev.as_bytes());
        h.update(b"\n");
        h.update(self.canonical().as_bytes());
        hex::encode(h.finalize())
    }

    pub fn body<T: DeserializeOwned>(&self) -> Result<T, String> {
        toml::Value::Table(self.body.clone())
            .try_into()
            .map_err(|e| format!("entry {} ({}) has a malformed body: {e}", self.seq, self.kind))
    }

    /// The entry as journal text: one `[[entry]]` table.
    pub fn to_text(&self) -> String {
        let mut doc = toml::Table::new();
        doc.insert("entry".into(), toml::Value::Array(vec![toml::Value::Table(self.to_table())]));
        toml::to_string(&doc).expect("entry serializes") + "\n"
    }

    fn to_table(&self) -> toml::Table {
        let mut t = self.body.clone();
        t.insert("seq".into(), toml::Value::Integer(self.seq as i64));
        t.insert("at".into(), toml::Value::String(self.at.clone()));
        t.insert("kind".into(), toml::Value::String(self.kind.clone()));
        t.insert("prev".into(), toml::Value::String(self.prev.clone()));
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
}

impl Journal {
    /// Open for appending, trusting the tip given (from the snapshot) or
    /// reading it from the file.
    pub fn open(path: &Path) -> Result<Journal, Error> {
        let entries = if path.exists() { read(path)? } else { Vec::new() };
        let (last_seq, last_hash) = entries.last().map(|e| (e.seq, e.hash.clone())).unwrap_or((0, GENESIS.to_string()));
        Ok(Journal { path: path.to_path_buf(), last_seq, last_hash })
    }

    /// Open with a known tip, without reading the file (fast path for the
    /// desk, which keeps the tip in the snapshot).
    pub fn with_tip(path: &Path, last_seq: u64, last_hash: String) -> Journal {
        Journal { path: path.to_path_buf(), last_seq, last_hash }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append entries in one write and fsync them.
    pub fn append<B: Serialize>(&mut self, at: &str, items: &[(&str, B)]) -> Result<Vec<Entry>, Error> {
        let mut text = String::new();
        let mut out = Vec::new();
        for (kind, body) in items {
            let body = match toml::Value::try_from(body) {
                Ok(toml::Value::Table(t)) => t,
                Ok(_) | Err(_) => toml::Table::new(),
            };
            for k in ["seq", "at", "kind", "prev", "hash"] {
                assert!(!body.contains_key(k), "journal body of {kind} uses the reserved field {k}");
            }
            let mut e = Entry {
                seq: self.last_seq + 1,
                at: at.to_string(),
                kind: kind.to_string(),
                prev: self.last_hash.clone(),
                hash: String::new(),
                body,
            };
            e.hash = e.compute_hash();
            text.push_str(&e.to_text());
            self.last_seq = e.seq;
            self.last_hash = e.hash.clone();
            out.push(e);
        }
        let werr = |source| Error::Write { path: self.path.clone(), source };
        let mut f = OpenOptions::new().create(true).append(true).open(&self.path).map_err(werr)?;
        let before = f.metadata().map_err(werr)?.len();
        if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.sync_all()) {
            // A half-written entry would make the whole journal unreadable:
            // cut it off again (nothing was sent on the strength of it).
            let _ = f.set_len(before);
            let _ = f.sync_all();
            return Err(werr(e));
        }
        Ok(out)
    }
}

/// Read every entry, checking nothing but the syntax.
pub fn read(path: &Path) -> Result<Vec<Entry>, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    parse(&text).map_err(|message| Error::Parse { path: path.to_path_buf(), message })
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
/// returns the bytes dropped. A journal that does not parse even without
/// its last entry is left alone.
pub fn repair(path: &Path) -> Result<Option<usize>, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
    if parse(&text).is_ok() {
        return Ok(None);
    }
    let Some(cut) = text.rfind("\n[[entry]]").map(|i| i + 1) else { return Ok(None) };
    if parse(&text[..cut]).is_err() {
        return Ok(None);
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

/// Check sequence numbers and the hash chain; the first bad entry is named.
pub fn verify_chain(entries: &[Entry]) -> Result<(), (u64, String)> {
    let mut prev = GENESIS.to_string();
    for (i, e) in entries.iter().enumerate() {
        if e.seq != i as u64 + 1 {
            return Err((e.seq, format!("has seq {} where {} was expected", e.seq, i + 1)));
        }
        if e.prev != prev {
            return Err((e.seq, "does not point back to the previous entry's hash".into()));
        }
        let h = e.compute_hash();
        if h != e.hash {
            return Err((e.seq, format!("hash mismatch: recorded {}, computed {h}", e.hash)));
        }
        prev = e.hash.clone();
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct B {
        x: u32,
        s: String,
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
}
