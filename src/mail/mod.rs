//! Mail in and out, knowing nothing of games: parsing inbound messages into
//! order text, Maildir folders, and composing outbound messages.

pub mod compose;
pub mod imap;
pub mod maildir;
pub mod parse;
pub mod reader;
pub mod smtp;
pub mod stored;
pub mod tls;

/// Split `local+detail@domain` into (local, detail, domain).
pub fn split_address(addr: &str) -> Option<(String, Option<String>, String)> {
    let (local, domain) = addr.trim().trim_matches(['<', '>']).rsplit_once('@')?;
    let (l, d) = match local.split_once('+') {
        Some((l, d)) => (l.to_string(), Some(d.to_string())),
        None => (local.to_string(), None),
    };
    Some((l, d, domain.to_lowercase()))
}

/// Address comparison as mail servers do it in practice: the domain is
/// case-insensitive, and so (by nearly every provider) is the local part.
pub fn same_address(a: &str, b: &str) -> bool {
    a.trim().trim_matches(['<', '>']).eq_ignore_ascii_case(b.trim().trim_matches(['<', '>']))
}
