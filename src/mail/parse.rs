//! Inbound messages: headers that matter, loop-safety signs, and the
//! reply's own text (text/plain, else HTML as text), read by [`reader`]
//! with each line's number kept.

use super::reader;
use mail_parser::{HeaderValue, MessageParser, MimeHeaders};

/// What the desk needs of one inbound message.
#[derive(Debug, Clone, Default)]
pub struct Inbound {
    pub message_id: Option<String>,
    pub from: Option<String>,
    /// Every recipient address (To and Cc, plus Delivered-To / X-Original-To
    /// which keep the `+detail` when a server rewrites To).
    pub to: Vec<String>,
    pub subject: String,
    /// The Message-IDs it answers: In-Reply-To first, then References
    /// newest first.
    pub replies_to: Vec<String>,
    /// Set when the message must not be answered (auto-reply, bounce, list
    /// mail), with the reason.
    pub automatic: Option<String>,
    /// The reply's own lines as (1-based line number in the body, text):
    /// quotes, attributions, the original, signatures, footers, blank and
    /// `#` lines left out (see [`reader`]).
    pub lines: Vec<(usize, String)>,
    /// What was left out, for the advice when nothing was read.
    pub skipped: Vec<reader::Skipped>,
    /// The message had no readable text part at all.
    pub no_text: bool,
}

fn text_of(v: &HeaderValue) -> Option<String> {
    match v {
        HeaderValue::Text(t) => Some(t.to_string()),
        HeaderValue::TextList(l) => l.first().map(|s| s.to_string()),
        _ => None,
    }
}

/// The To and Cc addresses of a message, reading its header only: how the
/// desk finds where a spooled reply goes without parsing its body.
pub fn recipients(raw: &[u8]) -> Vec<String> {
    let Some(m) = MessageParser::default().parse_headers(raw) else { return Vec::new() };
    [m.to(), m.cc()]
        .into_iter()
        .flatten()
        .flat_map(|a| a.iter().filter_map(|x| x.address()).map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The sender of a message and its subject, reading its header only (a
/// mail set aside because reading it whole killed the process is never
/// read whole again), or `None` for mail that must not be answered.
pub fn sender(raw: &[u8]) -> Option<(String, String)> {
    let m = MessageParser::default().parse_headers(&raw[..raw.len().min(64 * 1024)])?;
    let from = m.from().and_then(|a| a.first()).and_then(|a| a.address()).map(str::to_string)?;
    if automatic(&m, Some(&from)).is_some() {
        return None;
    }
    Some((from, m.subject().unwrap_or("").chars().filter(|c| !c.is_control()).take(200).collect()))
}

/// Parse a raw message. Never fails: a message mail-parser cannot read at all
/// comes back with no sender and no text, which the desk answers or drops.
pub fn parse(raw: &[u8]) -> Inbound {
    let Some(m) = MessageParser::default().parse(raw) else {
        return Inbound { no_text: true, ..Inbound::default() };
    };
    let mut inb = Inbound {
        message_id: m.message_id().map(|s| s.to_string()),
        from: m.from().and_then(|a| a.first()).and_then(|a| a.address()).map(|s| s.to_string()),
        subject: m.subject().unwrap_or("").to_string(),
        ..Inbound::default()
    };
    for a in [m.to(), m.cc()].into_iter().flatten() {
        inb.to.extend(a.iter().filter_map(|x| x.address()).map(|s| s.to_string()));
    }
    let ids = |v: &HeaderValue| -> Vec<String> {
        match v {
            HeaderValue::Text(t) => vec![t.to_string()],
            HeaderValue::TextList(l) => l.iter().map(|x| x.to_string()).collect(),
            _ => Vec::new(),
        }
    };
    inb.replies_to = ids(m.in_reply_to());
    inb.replies_to.extend(ids(m.references()).into_iter().rev());
    for h in ["Delivered-To", "X-Original-To"] {
        if let Some(v) = m.header_raw(h) {
            inb.to.push(v.trim().trim_matches(['<', '>']).to_string());
        }
    }
    inb.automatic = automatic(&m, inb.from.as_deref());
    match reading(&m) {
        Some(r) => {
            inb.lines = r.lines;
            inb.skipped = r.skipped;
        }
        None => inb.no_text = true,
    }
    inb
}

/// docs/mail.md, loop safety: never answer automatic mail.
fn automatic(m: &mail_parser::Message, from: Option<&str>) -> Option<String> {
    if let Some(v) = m.header_raw("Auto-Submitted") {
        let v = v.trim().to_ascii_lowercase();
        if !v.starts_with("no") {
            return Some(format!("Auto-Submitted: {v}"));
        }
    }
    if let Some(v) = m.header_raw("Precedence") {
        let v = v.trim().to_ascii_lowercase();
        if ["bulk", "junk", "list"].contains(&v.as_str()) {
            return Some(format!("Precedence: {v}"));
        }
    }
    // Older vacation programs mark their replies only so.
    for h in ["X-Autoreply", "X-Autorespond", "X-Autoresponder"] {
        if m.header_raw(h).is_some() {
            return Some(format!("{h} present"));
        }
    }
    if m.header_raw("List-Id").is_some() {
        return Some("List-Id present".into());
    }
    if let Some(rp) = text_of(m.return_path()) {
        if rp.trim().trim_matches(['<', '>']).is_empty() {
            return Some("empty return path (a bounce)".into());
        }
    } else if m.header_raw("Return-Path").map(|v| v.trim() == "<>").unwrap_or(false) {
        return Some("empty return path (a bounce)".into());
    }
    if let Some(f) = from {
        let local = f.split('@').next().unwrap_or("").to_ascii_lowercase();
        if local == "mailer-daemon" || local == "postmaster" {
            return Some(format!("sent by {f}"));
        }
    } else {
        return Some("no sender address".into());
    }
    None
}

/// The reply's own text of a parsed message: its inline text parts in
/// order (iOS splits the text around a photo), text/plain un-wrapped if
/// `format=flowed`, HTML read as a person sees it.
fn reading(m: &mail_parser::Message) -> Option<reader::Reading> {
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut flowed = false;
    for part in m.text_body.iter().filter_map(|&i| m.part(i)) {
        let Some((part_lines, f)) = lines_of(part) else { continue };
        flowed |= f;
        // Numbered on from the previous part, as one text.
        let base = lines.last().map(|l| l.0).unwrap_or(0);
        lines.extend(part_lines.into_iter().map(|(n, l)| (base + n, l)));
    }
    if lines.is_empty() {
        lines = html_lines(m);
        if lines.is_empty() {
            return None;
        }
    } else if !flowed && hard_wrapped(&lines) {
        // Gmail wraps its plain-text part at 76 columns; what the player
        // wrote is whole in the HTML alternative.
        let html = html_lines(m);
        if !html.is_empty() {
            lines = html;
        }
    }
    Some(reader::own_text(&lines))
}

/// Every inline HTML part as text, in order (Apple splits the HTML around
/// a photo), numbered on as one text.
fn html_lines(m: &mail_parser::Message) -> Vec<(usize, String)> {
    let mut lines: Vec<(usize, String)> = Vec::new();
    for part in m.html_body.iter().filter_map(|&i| m.part(i)).filter(|p| p.is_text_html()) {
        let Some((part_lines, _)) = lines_of(part) else { continue };
        let base = lines.last().map(|l| l.0).unwrap_or(0);
        lines.extend(part_lines.into_iter().map(|(n, l)| (base + n, l)));
    }
    lines
}

/// A text part's numbered lines, and whether it was `format=flowed`.
fn lines_of(part: &mail_parser::MessagePart) -> Option<(Vec<(usize, String)>, bool)> {
    let text = part.text_contents()?;
    if part.is_text_html() {
        return Some((reader::unflow(&reader::html_to_text(text), false, false), false));
    }
    let ct = part.content_type();
    let is = |k: &str, v: &str| ct.and_then(|c| c.attribute(k)).map(|x| x.eq_ignore_ascii_case(v)).unwrap_or(false);
    let flowed = is("format", "flowed");
    Some((reader::unflow(text, flowed, is("delsp", "yes")), flowed))
}

/// A plain text that looks wrapped by its sender: a line of the player's
/// own of 60 to 78 characters running straight into another.
fn hard_wrapped(lines: &[(usize, String)]) -> bool {
    lines.windows(2).any(|w| {
        let (a, b) = (w[0].1.trim_end(), w[1].1.trim());
        let n = a.chars().count();
        (60..=78).contains(&n) && !a.starts_with('>') && !b.is_empty() && !b.starts_with('>') && w[1].0 == w[0].0 + 1
    })
}

/// The lines a player meant as orders in a plain-text body, numbered as
/// they appear in it.
pub fn order_lines(body: &str) -> Vec<(usize, String)> {
    reader::own_text(&reader::unflow(body, false, false)).lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipients_come_from_the_header_alone() {
        let raw = b"From: g@x\r\nTo: Alice <alice@example.org>\r\nCc: <carol@example.org>\r\nSubject: s\r\n\r\nTo: mallory@example.org\r\n";
        assert_eq!(recipients(raw), vec!["alice@example.org".to_string(), "carol@example.org".to_string()]);
        assert!(recipients(b"no header at all").is_empty());
    }

    #[test]
    fn strips_quotes_signatures_and_comments() {
        let body = "MOVE Provera TO Piave\n\n# a comment\nSALT lucky\n-- \nAlice\n";
        assert_eq!(order_lines(body), vec![(1, "MOVE Provera TO Piave".into()), (4, "SALT lucky".into())]);
        let body = "PASS\nOn Mon, 1 Jan 2026 at 10:00, adjutant <g@x> wrote:\n> MOVE X TO Y\n";
        assert_eq!(order_lines(body), vec![(1, "PASS".into())]);
    }

    #[test]
    fn quoted_printable_and_html_only() {
        let raw = b"From: a@x.test\r\nTo: g@x.test\r\nSubject: t\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nMOVE Mass=C3=A9na TO Verona\r\n";
        let m = parse(raw);
        assert_eq!(m.lines, vec![(1, "MOVE Masséna TO Verona".into())]);
        let raw = b"From: a@x.test\r\nTo: g@x.test\r\nSubject: t\r\nContent-Type: text/html\r\n\r\n<html><body><p>PASS</p></body></html>\r\n";
        let m = parse(raw);
        assert!(m.lines.iter().any(|(_, l)| l == "PASS"), "{:?}", m.lines);
    }

    #[test]
    fn latin1_and_auto_replies() {
        let raw = b"From: a@x.test\r\nTo: g@x.test\r\nSubject: t\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\nMOVE Mass\xe9na TO Verona\r\n";
        assert_eq!(parse(raw).lines, vec![(1, "MOVE Masséna TO Verona".into())]);
        let raw = b"From: a@x.test\r\nAuto-Submitted: auto-replied\r\nSubject: away\r\n\r\nI am away\r\n";
        assert!(parse(raw).automatic.is_some());
        let raw = b"From: MAILER-DAEMON@x.test\r\nSubject: failure\r\n\r\nbounced\r\n";
        assert!(parse(raw).automatic.is_some());
    }
}
