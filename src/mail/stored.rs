//! Mail as a person's client stores it, read back for `adjutant verify`:
//! Maildir folders (their `cur/` and `new/`, Maildir++ sub-folders
//! included), mbox files (Thunderbird's local folders, `mutt -f`, a
//! provider's export), single `.eml` files, and directories holding any of
//! them. Only reads; what the messages mean is the verifier's business.

use std::path::{Path, PathBuf};

/// One stored message: where it was found, and its bytes.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The file, and for a message inside an mbox its place there
    /// (`Inbox#12`): what a report names.
    pub name: String,
    pub raw: Vec<u8>,
}

/// Everything found under the paths given.
#[derive(Debug, Default)]
pub struct Found {
    pub messages: Vec<Stored>,
    /// Files that hold no mail (a client's indexes, notes): counted, not read.
    pub other_files: usize,
}

/// Files a mail client keeps beside its mail, never mail themselves.
fn is_client_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("dovecot")
        || lower.starts_with("courierimap")
        || lower.ends_with(".msf")
        || lower.ends_with(".sqlite")
        || lower.ends_with(".json")
        || lower.ends_with(".dat")
        || matches!(lower.as_str(), "maildirfolder" | "subscriptions" | ".ds_store" | "msgfilterrules.dat")
}

/// Read every message under `paths`. A path that does not exist or
/// cannot be read is an error naming it; inside a folder, a file that
/// cannot be read is counted among the other files.
pub fn read(paths: &[PathBuf]) -> Result<Found, String> {
    let mut found = Found::default();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        if meta.is_dir() {
            walk(p, &mut found, 0);
        } else {
            let raw = std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            take_file(&p.display().to_string(), raw, &mut found);
        }
    }
    Ok(found)
}

/// A folder, in name order so that a report reads the same each time. A
/// Maildir's `tmp/` holds deliveries not yet finished and is left alone.
fn walk(dir: &Path, found: &mut Found, depth: usize) {
    // A link loop or a pathological tree stops somewhere.
    if depth > 16 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        found.other_files += 1;
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    let maildir = dir.join("cur").is_dir() || dir.join("new").is_dir();
    for p in entries {
        let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let Ok(meta) = std::fs::symlink_metadata(&p) else { continue };
        if meta.is_dir() {
            if maildir && name == "tmp" {
                continue;
            }
            walk(&p, found, depth + 1);
        } else if meta.is_file() {
            if is_client_file(&name) {
                found.other_files += 1;
                continue;
            }
            match std::fs::read(&p) {
                Ok(raw) => take_file(&p.display().to_string(), raw, found),
                Err(_) => found.other_files += 1,
            }
        }
    }
}

/// A file: an mbox (it starts with a `From ` line) split into its
/// messages, else one message, else (no header at its top) not mail.
fn take_file(name: &str, raw: Vec<u8>, found: &mut Found) {
    if raw.starts_with(b"From ") {
        for (i, m) in split_mbox(&raw).into_iter().enumerate() {
            found.messages.push(Stored { name: format!("{name}#{}", i + 1), raw: m });
        }
    } else if looks_like_mail(&raw) {
        found.messages.push(Stored { name: name.to_string(), raw });
    } else {
        found.other_files += 1;
    }
}

/// Does the text start with a header line (`Name: value`)?
fn looks_like_mail(raw: &[u8]) -> bool {
    let first = raw.split(|&b| b == b'\n').next().unwrap_or(b"");
    match first.iter().position(|&b| b == b':') {
        Some(i) if i > 0 => first[..i].iter().all(|b| b.is_ascii_graphic() && *b != b':'),
        _ => false,
    }
}

/// The messages of an mbox: each begins at a `From ` line that starts the
/// file or follows a blank line. Lines the writer escaped (`>From `,
/// `>>From `: mboxrd, which Thunderbird and mutt read back the same way)
/// lose one `>`. The separator line is not part of the message.
pub fn split_mbox(raw: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut cur: Option<Vec<u8>> = None;
    let mut blank_before = true;
    for line in raw.split_inclusive(|&b| b == b'\n') {
        if blank_before && line.starts_with(b"From ") {
            if let Some(m) = cur.take() {
                out.push(trim_separator(m));
            }
            cur = Some(Vec::new());
            blank_before = false;
            continue;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        blank_before = body.is_empty();
        let Some(m) = cur.as_mut() else { continue };
        let quoted = line.iter().take_while(|&&b| b == b'>').count();
        if quoted > 0 && line[quoted..].starts_with(b"From ") {
            m.extend_from_slice(&line[1..]);
        } else {
            m.extend_from_slice(line);
        }
    }
    if let Some(m) = cur {
        out.push(trim_separator(m));
    }
    out
}

/// The blank line an mbox writer puts before the next `From ` line belongs
/// to the file, not to the message.
fn trim_separator(mut m: Vec<u8>) -> Vec<u8> {
    if m.ends_with(b"\r\n\r\n") {
        m.truncate(m.len() - 2);
    } else if m.ends_with(b"\n\n") {
        m.truncate(m.len() - 1);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thunderbird's and mutt's separators, an escaped `From ` line in a
    /// body, and a `From ` line that does not follow a blank line (part of
    /// a body, not a separator).
    #[test]
    fn an_mbox_splits_at_its_separators_only() {
        let mbox = b"From - Fri Dec 04 17:41:25 2026\nSubject: one\n\nbody one\n>From here on\nFrom inside a paragraph\n\nFrom alice@example.org Fri Dec  4 17:41:26 2026\nSubject: two\n\nbody two\n";
        let m = split_mbox(mbox);
        assert_eq!(m.len(), 2);
        assert_eq!(String::from_utf8_lossy(&m[0]), "Subject: one\n\nbody one\nFrom here on\nFrom inside a paragraph\n");
        assert_eq!(String::from_utf8_lossy(&m[1]), "Subject: two\n\nbody two\n");
    }

    #[test]
    fn a_file_without_a_header_line_is_not_mail() {
        assert!(looks_like_mail(b"Subject: x\n\nbody"));
        assert!(looks_like_mail(b"X-Adjutant-Game: g\r\n"));
        assert!(!looks_like_mail(b"just some notes\n"));
        assert!(!looks_like_mail(b": no name\n"));
        assert!(!looks_like_mail(b""));
    }
}
