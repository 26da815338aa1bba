//! Inbound messages: headers that matter, loop-safety signs, and the order
//! text (text/plain, else HTML as text), with quoted replies, signatures,
//! blank and `#` lines removed but each line's number kept.

use mail_parser::{HeaderValue, MessageParser};

/// What the desk needs of one inbound message.
#[derive(Debug, Clone, Default)]
pub struct Inbound {
    pub message_id: Option<String>,
    pub from: Option<String>,
    /// Every recipient address (To and Cc, plus Delivered-To / X-Original-To
    /// which keep the `+detail` when a server rewrites To).
    pub to: Vec<String>,
    pub subject: String,
    /// Set when the message must not be answered (auto-reply, bounce, list
    /// mail), with the reason.
    pub automatic: Option<String>,
    /// Order lines as (1-based line number in the body, text).
    pub lines: Vec<(usize, String)>,
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
    for h in ["Delivered-To", "X-Original-To"] {
        if let Some(v) = m.header_raw(h) {
            inb.to.push(v.trim().trim_matches(['<', '>']).to_string());
        }
    }
    inb.automatic = automatic(&m, inb.from.as_deref());
    let body = m.body_text(0);
    match body {
        Some(b) => inb.lines = order_lines(&b),
        None => inb.no_text = true,
    }
    inb
}

/// DESIGN.md 6, loop safety: never answer automatic mail.
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

/// The lines a player meant as orders, numbered as they appear in the body.
pub fn order_lines(body: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, raw) in body.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        // A signature separator ends the orders ("-- " by RFC 3676; many
        // clients drop the trailing space).
        if line == "-- " || line == "--" {
            break;
        }
        let t = line.trim();
        // "On Mon, 1 Jan 2026, Someone wrote:" starts the quoted original.
        if is_attribution(t) {
            break;
        }
        if t.starts_with('>') || t.is_empty() || t.starts_with('#') {
            continue;
        }
        // Outlook-style quoted originals.
        if t.starts_with("-----Original Message-----") || t.starts_with("________________________________") {
            break;
        }
        out.push((i + 1, t.to_string()));
    }
    out
}

fn is_attribution(t: &str) -> bool {
    let l = t.to_lowercase();
    (l.starts_with("on ") && l.ends_with("wrote:"))
        || (l.starts_with("le ") && l.ends_with("a écrit :"))
        || (l.starts_with("am ") && l.ends_with("schrieb:"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
