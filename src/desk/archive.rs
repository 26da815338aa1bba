//! The raw-mail archive of a game: every inbound message it handled, in one
//! append-only mbox file (`games/<id>/mail.mbox`, mboxrd quoting, so any
//! mail reader opens it: `mutt -f`, `mail -f`), with an index
//! (`mail.idx`: the journal entry it came before, the message's SHA-256,
//! the offset and length of its quoted text) from which [`read`] gives back
//! its exact bytes. One file, not one a mail: a long game costs no inode
//! per message.
//!
//! Appends wait in memory until the commit writes them ([`Archive::flush`],
//! one write to each file a game a group, not two a message) and syncs the
//! file system before the journal says the message was received (a game
//! folder on another file system, which that sync does not reach, is synced
//! file by file: [`Archive::sync`]). A crash in mid-append
//! leaves a tail longer than the index says; the next append cuts it off.
//! The player's own file (the inbox) is never written through.

use chrono::{DateTime, Utc};
use std::collections::{HashSet, VecDeque};
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const MBOX: &str = "mail.mbox";
pub const INDEX: &str = "mail.idx";

/// One line of the index.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    seq: u64,
    sha: String,
    offset: u64,
    len: u64,
}

impl Line {
    fn parse(s: &str) -> Option<Line> {
        let mut w = s.split(' ');
        let l = Line {
            seq: w.next()?.parse().ok()?,
            sha: w.next()?.to_string(),
            offset: w.next()?.parse().ok()?,
            len: w.next()?.parse().ok()?,
        };
        w.next().is_none().then_some(l)
    }

    /// Where the mbox ends after this message: its text (which ends with a
    /// newline) and the blank line between messages.
    fn end(&self) -> u64 {
        self.offset + self.len + 1
    }
}

/// The last whole lines of the index (a batch's messages all come at its
/// end); none when there is no index yet. An index that cannot be read is
/// an error: the archive is then left exactly as it is.
fn tail(dir: &Path) -> std::io::Result<Vec<Line>> {
    let mut f = match fs::File::open(dir.join(INDEX)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    let start = len.saturating_sub(256 * 1024);
    let mut buf = Vec::new();
    f.seek(SeekFrom::Start(start))?;
    f.read_to_end(&mut buf)?;
    // The first line read may be cut by the seek, the last by a crash (a
    // line counts only with its newline).
    Ok(buf
        .split_inclusive(|&b| b == b'\n')
        .skip(usize::from(start > 0))
        .filter_map(|l| l.strip_suffix(b"\n"))
        .filter_map(|l| Line::parse(std::str::from_utf8(l).ok()?))
        .collect())
}

/// A game's archive as a pass appends to it: read from the index once,
/// then kept in memory.
#[derive(Debug, Default)]
pub struct Archive {
    tail: Option<Tail>,
}

#[derive(Debug)]
struct Tail {
    /// The digests of the messages archived last (those the index's tail
    /// lists, then those appended since), at most [`RECENT`]: a message
    /// handled again after a crash is among them, whichever journal entry
    /// it now comes before (a later group of the same pass may have been
    /// committed first).
    shas: HashSet<String>,
    order: VecDeque<String>,
    /// Where the archive ends, as the index vouches.
    end: u64,
    /// The mbox and the index, open for appending while the pass lasts
    /// (two opens a game a pass, not two a message): see
    /// [`Archive::close`].
    files: Option<(fs::File, fs::File)>,
    /// Appended since the last flush: the mbox's text and the index's
    /// lines, which `end` already counts.
    pending: (Vec<u8>, Vec<u8>),
    /// Closed since it was read: another process may have written the
    /// archive meanwhile, so `end` is checked against the file before the
    /// next append counts on it.
    closed: bool,
}

/// How much archived text waits in memory before it is written: a group of
/// large mails is not held twice (fetched and archived) until its commit.
const PENDING: usize = 1 << 20;

/// How many recent digests an archive remembers: twice the messages one
/// commit covers, as many as a crash can send back.
const RECENT: usize = 2 * crate::config::GROUP;

impl Tail {
    fn remember(&mut self, sha: &str) {
        if self.shas.insert(sha.to_string()) {
            self.order.push_back(sha.to_string());
            if self.order.len() > RECENT {
                if let Some(old) = self.order.pop_front() {
                    self.shas.remove(&old);
                }
            }
        }
    }
}

impl Archive {
    /// Archive `raw` (digest `sha`, handled before journal entry `seq`) in
    /// the game folder `dir`, once: a message archived lately (handled
    /// again after a crash) is not written twice. The same bytes are the
    /// same message, so one copy serves every time it came. Written by the
    /// next [`Archive::flush`]; a game whose work is dropped before it
    /// drops its archive too, and the message comes again.
    pub fn append(&mut self, dir: &Path, seq: u64, sha: &str, raw: &[u8], now: DateTime<Utc>) -> std::io::Result<()> {
        let t = match &mut self.tail {
            Some(t) => t,
            None => self.tail.insert(Tail::read(dir)?),
        };
        if std::mem::take(&mut t.closed) && t.pending.0.is_empty() {
            let len = fs::metadata(dir.join(MBOX)).map(|m| m.len()).ok();
            if len != Some(t.end) {
                *t = Tail::read(dir)?;
            }
        }
        if t.shas.contains(sha) {
            return Ok(());
        }
        let (mbox, idx) = &mut t.pending;
        let start = mbox.len();
        writeln!(mbox, "From adjutant {}", now.format("%a %b %e %H:%M:%S %Y"))?;
        let offset = t.end + (mbox.len() - start) as u64;
        let text = mbox.len();
        quote_into(raw, mbox);
        if mbox.len() == text || !mbox.ends_with(b"\n") {
            mbox.push(b'\n');
        }
        let len = mbox.len() - text;
        mbox.push(b'\n');
        writeln!(idx, "{seq} {sha} {offset} {len}")?;
        t.end += (mbox.len() - start) as u64;
        t.remember(sha);
        if t.pending.0.len() >= PENDING {
            // Written now, and its files let go: a pass over many games
            // holds no descriptor for a game it has not committed.
            self.flush(dir)?;
            self.close();
        }
        Ok(())
    }

    /// Write what was appended since the last flush, unsynced (the commit
    /// syncs). A write that fails leaves the archive to be read afresh,
    /// its torn tail cut, by the next append.
    pub fn flush(&mut self, dir: &Path) -> std::io::Result<()> {
        let Some(t) = &mut self.tail else { return Ok(()) };
        if t.pending.0.is_empty() {
            return Ok(());
        }
        let written = (|| {
            let (mbox, idx) = match &mut t.files {
                Some(f) => f,
                None => t.files.insert((
                    fs::OpenOptions::new().append(true).open(dir.join(MBOX))?,
                    fs::OpenOptions::new().create(true).append(true).open(dir.join(INDEX))?,
                )),
            };
            mbox.write_all(&t.pending.0)?;
            idx.write_all(&t.pending.1)
        })();
        match written {
            Ok(()) => {
                // Let the memory go, not only the text: a game kept
                // between passes keeps its archive.
                t.pending = Default::default();
                Ok(())
            }
            Err(e) => {
                self.tail = None;
                Err(e)
            }
        }
    }
}

impl Archive {
    /// Make what was written durable, file by file, and the folder that
    /// names them (the game's first mail creates both files): for a game
    /// folder on another file system than the data folder, which the
    /// commit's sync of the data folder does not reach. A failure names
    /// the file.
    pub fn sync(&self, dir: &Path) -> Result<(), (std::path::PathBuf, std::io::Error)> {
        for p in [dir.join(MBOX), dir.join(INDEX)] {
            match fs::File::open(&p) {
                Ok(f) => f.sync_all().map_err(|e| (p, e))?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err((p, e)),
            }
        }
        fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| (dir.to_path_buf(), e))
    }

    /// Let the files go: a game kept in memory between passes holds no
    /// descriptor (a thousand games would hold two thousand).
    pub fn close(&mut self) {
        if let Some(t) = &mut self.tail {
            t.files = None;
            t.closed = true;
        }
    }
}

impl Tail {
    /// The index's end, and the mbox cut to it: anything after what the
    /// index vouches for is a torn append. (An index ahead of the file is
    /// a write the power took: messages then go at the file's end.)
    fn read(dir: &Path) -> std::io::Result<Tail> {
        let lines = tail(dir)?;
        // A torn last line of the index is closed, so the next one starts
        // on a line of its own.
        let ip = dir.join(INDEX);
        if let Ok(mut f) = fs::OpenOptions::new().read(true).append(true).open(&ip) {
            let len = f.metadata()?.len();
            let mut last = [0u8];
            if len > 0
                && f.seek(SeekFrom::Start(len - 1)).and_then(|_| f.read_exact(&mut last)).is_ok()
                && last[0] != b'\n'
            {
                f.write_all(b"\n")?;
            }
        }
        let mp = dir.join(MBOX);
        let mut mbox = fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(&mp)?;
        let len = mbox.metadata()?.len();
        // Lines for text the file does not hold are writes the power took
        // from the archive but not from the index: not trusted.
        let lines: Vec<&Line> = lines.iter().filter(|l| l.end() <= len).collect();
        let end = match lines.last() {
            // After what the index vouches for, a torn append: kept aside
            // (`mail.mbox.cut`), then cut off; the message comes again.
            Some(l) if len > l.end() => {
                let mut cut = Vec::new();
                mbox.seek(SeekFrom::Start(l.end()))?;
                mbox.read_to_end(&mut cut)?;
                fs::OpenOptions::new().create(true).append(true).open(dir.join("mail.mbox.cut"))?.write_all(&cut)?;
                mbox.set_len(l.end())?;
                l.end()
            }
            // No index to go by: nothing is cut.
            _ => len,
        };
        let mut t = Tail {
            shas: HashSet::new(),
            order: VecDeque::new(),
            end,
            files: None,
            pending: Default::default(),
            closed: false,
        };
        for l in lines {
            t.remember(&l.sha);
        }
        Ok(t)
    }
}

/// mboxrd: a line that begins with `From ` (after any `>`) gets one more
/// `>`, so that a reader never takes it for the start of a message.
fn quote_into(raw: &[u8], out: &mut Vec<u8>) {
    for line in raw.split_inclusive(|&b| b == b'\n') {
        let rest = &line[line.iter().take_while(|&&b| b == b'>').count()..];
        if rest.starts_with(b"From ") {
            out.push(b'>');
        }
        out.extend_from_slice(line);
    }
}

fn unquote(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        let quotes = line.iter().take_while(|&&b| b == b'>').count();
        if quotes > 0 && line[quotes..].starts_with(b"From ") {
            out.extend_from_slice(&line[1..]);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The exact bytes of an archived message whose SHA-256 (hex) begins with
/// `sha`, if the archive holds it.
pub fn read(dir: &Path, sha: &str) -> std::io::Result<Option<Vec<u8>>> {
    let index = match fs::read_to_string(dir.join(INDEX)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(l) = index.lines().rev().filter_map(Line::parse).find(|l| l.sha.starts_with(sha)) else {
        return Ok(None);
    };
    let mut f = fs::File::open(dir.join(MBOX))?;
    f.seek(SeekFrom::Start(l.offset))?;
    let mut text = vec![0; l.len as usize];
    f.read_exact(&mut text)?;
    let mut raw = unquote(&text);
    // The newline added to a message that did not end with one.
    if crate::dice::to_hex(&crate::dice::sha256(&raw)) != l.sha {
        raw.pop();
    }
    Ok((crate::dice::to_hex(&crate::dice::sha256(&raw)) == l.sha).then_some(raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{sha256, to_hex};
    use chrono::TimeZone;

    #[test]
    fn messages_come_back_exactly_and_a_torn_tail_is_cut() {
        let dir = std::env::temp_dir().join(format!("adjutant-archive-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
        let a = b"From: <a@x>\r\nSubject: x\r\n\r\nFrom the hills\r\n>From the sea\r\nPASS\r\n".to_vec();
        let b = b"From: <b@x>\r\n\r\nno newline at the end".to_vec();
        let (sa, sb) = (to_hex(&sha256(&a)), to_hex(&sha256(&b)));
        // A message appended, then written as a commit does.
        let once = |arc: &mut Archive, seq: u64, sha: &str, raw: &[u8]| {
            arc.append(&dir, seq, sha, raw, now).unwrap();
            arc.flush(&dir).unwrap();
        };
        let mut arc = Archive::default();
        arc.append(&dir, 2, &sa, &a, now).unwrap();
        // Nothing is written before the commit's flush.
        assert_eq!(fs::metadata(dir.join(MBOX)).unwrap().len(), 0);
        assert!(arc.tail.as_ref().is_some_and(|t| t.files.is_none()));
        arc.flush(&dir).unwrap();
        once(&mut arc, 2, &sa, &a);
        // Handled again after a crash: a new pass, the archive read afresh,
        // before the same entry or a later one (another group of the pass
        // was committed first).
        once(&mut Archive::default(), 2, &sa, &a);
        once(&mut Archive::default(), 7, &sa, &a);
        // A game whose work is dropped before the flush writes nothing.
        Archive::default().append(&dir, 3, &sb, &b, now).unwrap();
        once(&mut arc, 2, &sb, &b);
        // Its files stay open for the pass, and go when it settles.
        assert!(arc.tail.as_ref().is_some_and(|t| t.files.is_some()));
        arc.close();
        assert!(arc.tail.as_ref().is_some_and(|t| t.files.is_none()));
        // Between two passes another process archived a message: the kept
        // archive sees the file grew and reads its end again, so the next
        // message's offset is right.
        let o = b"From: <o@x>\r\n\r\nother\r\n".to_vec();
        let so = to_hex(&sha256(&o));
        once(&mut Archive::default(), 2, &so, &o);
        let q = b"From: <q@x>\r\n\r\nlater\r\n".to_vec();
        let sq = to_hex(&sha256(&q));
        once(&mut arc, 3, &sq, &q);
        arc.close();
        assert_eq!(read(&dir, &so).unwrap(), Some(o));
        assert_eq!(read(&dir, &sq).unwrap(), Some(q));
        let mbox = fs::read_to_string(dir.join(MBOX)).unwrap();
        assert_eq!(mbox.matches("\nFrom ").count() + usize::from(mbox.starts_with("From ")), 4, "{mbox}");
        assert!(mbox.contains("\r\n>From the hills") && mbox.contains(">>From the sea"));
        assert_eq!(read(&dir, &sa).unwrap(), Some(a.clone()));
        assert_eq!(read(&dir, &sb[..16]).unwrap(), Some(b.clone()));
        // A crash in mid-append: the tail is cut before the next message.
        let clean = fs::metadata(dir.join(MBOX)).unwrap().len();
        let mut f = fs::OpenOptions::new().append(true).open(dir.join(MBOX)).unwrap();
        f.write_all(b"From adjutant Sun Mar  1 12:00:00 2026\nFrom: <c@x>\r\nTORN").unwrap();
        let c = b"From: <c@x>\r\n\r\nPASS\r\n".to_vec();
        let sc = to_hex(&sha256(&c));
        // ... and a torn line at the end of the index too.
        let mut i = fs::OpenOptions::new().append(true).open(dir.join(INDEX)).unwrap();
        i.write_all(b"3 0123").unwrap();
        once(&mut Archive::default(), 3, &sc, &c);
        assert_eq!(read(&dir, &sc).unwrap(), Some(c));
        let after = fs::read_to_string(dir.join(MBOX)).unwrap();
        assert_eq!(after.matches("From adjutant").count(), 5, "the torn message is gone: {after}");
        assert!(after.len() as u64 > clean && !after.contains("TORN"));
        assert_eq!(read(&dir, &sa).unwrap(), Some(a));
        assert!(fs::read_to_string(dir.join("mail.mbox.cut")).unwrap().contains("TORN"), "the cut tail is kept");
        // An index line for text the archive lost (a power cut) is not
        // trusted: the message is archived again.
        let d = b"From: <d@x>\r\n\r\nPASS\r\n".to_vec();
        let sd = to_hex(&sha256(&d));
        let mut i = fs::OpenOptions::new().append(true).open(dir.join(INDEX)).unwrap();
        i.write_all(format!("4 {sd} 999999 10\n").as_bytes()).unwrap();
        once(&mut Archive::default(), 4, &sd, &d);
        assert_eq!(read(&dir, &sd).unwrap(), Some(d));
        // Without an index (deleted), nothing already archived is cut.
        let before = fs::metadata(dir.join(MBOX)).unwrap().len();
        fs::remove_file(dir.join(INDEX)).unwrap();
        once(&mut Archive::default(), 5, &sc, b"x");
        assert!(fs::metadata(dir.join(MBOX)).unwrap().len() > before);
        // An empty message is archived as one empty line, and comes back.
        let se = to_hex(&sha256(b""));
        once(&mut Archive::default(), 6, &se, b"");
        assert_eq!(read(&dir, &se).unwrap(), Some(Vec::new()));
        // A mail larger than what may wait in memory is written at once,
        // and its buffer let go.
        let big = vec![b'x'; PENDING + 10];
        let sbig = to_hex(&sha256(&big));
        let before = fs::metadata(dir.join(MBOX)).unwrap().len();
        let mut arc = Archive::default();
        arc.append(&dir, 7, &sbig, &big, now).unwrap();
        assert!(fs::metadata(dir.join(MBOX)).unwrap().len() > before + PENDING as u64);
        assert!(arc.tail.as_ref().is_some_and(|t| t.pending.0.capacity() == 0));
        assert_eq!(read(&dir, &sbig).unwrap(), Some(big));
        let _ = fs::remove_dir_all(&dir);
    }
}
