//! The reply's own text: what a player wrote, told apart from what their
//! mail client added around it — quoted text (`>`, `A>`, TAB-indented after
//! an attribution, `<blockquote>`), attribution lines of every common client
//! and their usual translations, the original message under a banner or a
//! bare header block, signatures and client footers. `format=flowed` is
//! un-wrapped (RFC 3676) and HTML is read as a person sees it. Every line
//! keeps its number in the body, and everything skipped is reported, so a
//! reply can say what was found when nothing was read.

/// The player's own lines, and what was skipped around them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// (1-based line number in the body, text), trimmed, in order.
    pub lines: Vec<(usize, String)>,
    pub skipped: Vec<Skipped>,
}

/// A run of lines left out, for the advice given when nothing was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// First line of the run.
    pub line: usize,
    pub kind: SkipKind,
    /// How many non-blank lines the run held.
    pub count: usize,
    /// The run's first line, as written.
    pub first: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipKind {
    Quote,
    Attribution,
    /// The original message under a banner or a header block: everything
    /// from there to the end.
    Original,
    Signature,
    Footer,
}

impl SkipKind {
    pub fn describe(self) -> &'static str {
        match self {
            SkipKind::Quote => "quoted text",
            SkipKind::Attribution => "an attribution line (the quoted message follows)",
            SkipKind::Original => "the original message your client added (read no further)",
            SkipKind::Signature => "your signature (after a \"-- \" line; read no further)",
            SkipKind::Footer => "a footer your mail client adds",
        }
    }
}

/// Physical lines of a text/plain body, numbered; with `flowed`, soft line
/// breaks are joined back (RFC 3676 section 4.2), each logical line
/// numbered by its first physical line. `delsp` drops the space before a
/// soft break (section 4.5).
pub fn unflow(text: &str, flowed: bool, delsp: bool) -> Vec<(usize, String)> {
    let physical = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if !flowed {
        return physical.enumerate().map(|(i, l)| (i + 1, l.to_string())).collect();
    }
    let mut out: Vec<(usize, String)> = Vec::new();
    // The paragraph being joined: (first line, quote depth, text).
    let mut open: Option<(usize, usize, String)> = None;
    let close = |p: (usize, usize, String), out: &mut Vec<(usize, String)>| {
        let (n, depth, text) = p;
        out.push((n, if depth == 0 { text } else { format!("{} {text}", ">".repeat(depth)) }));
    };
    for (i, raw) in physical.enumerate() {
        let depth = raw.bytes().take_while(|&b| b == b'>').count();
        let mut content = &raw[depth..];
        // Space-stuffing: one leading space was added by the sender.
        if let Some(c) = content.strip_prefix(' ') {
            content = c;
        }
        let signature = content == "-- ";
        let soft = !signature && content.ends_with(' ');
        let content = if soft && delsp { &content[..content.len() - 1] } else { content };
        match open.take() {
            Some((n, d, mut t)) if d == depth && !signature => {
                t.push_str(content);
                open = Some((n, d, t));
            }
            prev => {
                if let Some(p) = prev {
                    close(p, &mut out);
                }
                open = Some((i + 1, depth, content.to_string()));
            }
        }
        if !soft {
            if let Some(p) = open.take() {
                close(p, &mut out);
            }
        }
    }
    if let Some(p) = open.take() {
        close(p, &mut out);
    }
    out
}

/// The player's own text among numbered body lines.
pub fn own_text(lines: &[(usize, String)]) -> Reading {
    let mut r = Reading::default();
    // Quoted text or an attribution has been seen: from there on a
    // TAB-indented line is a quote too (s-nail's default quoting, also
    // between the player's lines when they answer point by point), while
    // before any quote it is the player's own.
    let mut quoting = false;
    let mut i = 0;
    while i < lines.len() {
        let (n, raw) = (&lines[i].0, lines[i].1.as_str());
        let t = raw.trim();
        if t == "--" {
            let count = lines[i..].iter().filter(|(_, l)| !l.trim().is_empty()).count();
            r.skip(*n, SkipKind::Signature, count, raw);
            break;
        }
        if is_quote(raw, quoting) {
            r.skip(*n, SkipKind::Quote, 1, raw);
            quoting = true;
            i += 1;
            continue;
        }
        if t.is_empty() {
            i += 1;
            continue;
        }
        if original_starts(lines, i) {
            let count = lines[i..].iter().filter(|(_, l)| !l.trim().is_empty()).count();
            r.skip(*n, SkipKind::Original, count, raw);
            break;
        }
        if is_attribution(t) {
            // A long attribution wrapped by the client ("On Sun, … at 1:00
            // PM adjutant <" / "game@…> wrote:"): its head is taken back.
            let mut first = (*n, raw.to_string());
            for back in 1..=2 {
                let Some(prev) = i.checked_sub(back).map(|k| &lines[k]) else { break };
                match r.lines.last() {
                    Some((m, l)) if *m == prev.0 && attribution_head(l) => {
                        first = (*m, prev.1.clone());
                        r.lines.pop();
                    }
                    _ => break,
                }
            }
            r.skip(first.0, SkipKind::Attribution, 1, &first.1);
            quoting = true;
            i += 1;
            continue;
        }
        if is_footer(t) {
            r.skip(*n, SkipKind::Footer, 1, raw);
        } else if !t.starts_with('#') {
            // A non-breaking space from HTML (&nbsp;) is a space to a reader.
            r.lines.push((*n, t.replace('\u{a0}', " ")));
        }
        i += 1;
    }
    r
}

impl Reading {
    /// Record a skipped line, joining it to the previous run of its kind.
    fn skip(&mut self, line: usize, kind: SkipKind, count: usize, text: &str) {
        if let Some(last) = self.skipped.last_mut() {
            if last.kind == kind && kind == SkipKind::Quote {
                if !text.trim().trim_start_matches(['>', ' ', '\t']).is_empty() {
                    last.count += count;
                }
                return;
            }
        }
        self.skipped.push(Skipped { line, kind, count, first: text.trim().to_string() });
    }
}

/// `>` quotes, `A> ` initials (The Bat!), and a TAB indent right after
/// other quoted text or an attribution.
fn is_quote(raw: &str, quoting: bool) -> bool {
    let t = raw.trim_start_matches([' ', '\u{a0}']);
    if t.starts_with('>') {
        return true;
    }
    let initials = t.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    if (1..=3).contains(&initials) && t[initials..].starts_with('>') {
        return true;
    }
    quoting && raw.starts_with('\t')
}

/// Words that end an attribution line ("… wrote:"), lowercase, in the
/// languages players are likely to write in.
const WROTE: &[&str] = &[
    "wrote",
    "writes",
    "a écrit",
    "a ecrit",
    "schrieb",
    "escribió",
    "escribio",
    "ha scritto",
    "scrisse",
    "schreef",
    "escreveu",
    "skrev",
    "skrifaði",
    "napisał",
    "napisał(a)",
    "napisal",
    "napsal",
    "kirjoitti",
    "írta",
    "написал",
    "написала",
    "написал(а)",
    "пишет",
    "yazdı",
    "έγραψε",
    "scrie",
    "a scris",
];

/// How attributions begin ("On …", "Le …", "Am …").
const OPENERS: &[&str] = &["on ", "le ", "am ", "el ", "il ", "op ", "em ", "den ", "dne ", "w dniu ", "på ", "в "];

/// One line of attribution: "On … wrote:", "X wrote:", "…, you wrote:",
/// their translations, and `* X [date]:`.
fn is_attribution(t: &str) -> bool {
    if t.chars().count() > 400 {
        return false;
    }
    let l = t.to_lowercase();
    let Some(body) = l.strip_suffix(':') else { return false };
    let body = body.trim_end();
    if WROTE.iter().any(|w| body == *w || body.ends_with(&format!(" {w}")) || body.ends_with(&format!(">{w}"))) {
        return true;
    }
    // German and Dutch put the writer after the verb ("Am … schrieb X <…>:").
    if OPENERS.iter().any(|o| l.starts_with(o)) && WROTE.iter().any(|w| body.contains(&format!(" {w} "))) {
        return true;
    }
    l.starts_with("* ") && body.ends_with(']')
}

/// The first line of a wrapped attribution ("On Sun, 01 Mar 2026 13:00"
/// above "adjutant <g@…> wrote:"; Gmail's "On …, adjutant <" above
/// "game@…> wrote:"): it starts with an opening word. A line of the
/// player's own just above an attribution ("SALT me@home") is never taken.
fn attribution_head(l: &str) -> bool {
    let low = l.to_lowercase();
    OPENERS.iter().any(|o| low.starts_with(o))
}

/// Where the client put the original message unquoted below the reply:
/// a banner ("-----Original Message-----", "-------- Original message
/// --------" and translations), or a header block (From:/Sent:/To:/Subject:
/// and translations, possibly under a line of underscores).
fn original_starts(lines: &[(usize, String)], i: usize) -> bool {
    let t = lines[i].1.trim();
    if is_banner(t) {
        return true;
    }
    // Only the next dozen lines: a header block is compact, and a long
    // look-ahead from every "From:" line would make a hostile mail cost
    // the square of its length.
    let next_keys = |from: usize| {
        lines[from.min(lines.len())..]
            .iter()
            .take(12)
            .map(|(_, l)| l.trim())
            .filter(|l| !l.is_empty())
            .take(6)
            .filter(|l| header_key(l).is_some())
            .count()
    };
    if t.len() >= 10 && t.chars().all(|c| c == '_') {
        return next_keys(i + 1) >= 2;
    }
    matches!(header_key(t), Some(k) if FROM_KEYS.contains(&k.as_str())) && next_keys(i + 1) >= 2
}

/// "From" in the languages of Outlook, Samsung and the webmails.
const FROM_KEYS: &[&str] = &["from", "von", "de", "da", "van", "från", "fra", "od", "lähettäjä", "feladó", "от"];

/// The other keys of a quoted header block.
const HEADER_KEYS: &[&str] = &[
    "sent",
    "date",
    "to",
    "cc",
    "subject",
    "reply-to",
    "gesendet",
    "datum",
    "an",
    "betreff",
    "envoyé",
    "envoye",
    "à",
    "a",
    "objet",
    "inviato",
    "data",
    "oggetto",
    "enviado",
    "fecha",
    "para",
    "asunto",
    "assunto",
    "verzonden",
    "aan",
    "onderwerp",
    "skickat",
    "till",
    "ämne",
    "sendt",
    "til",
    "emne",
    "wysłano",
    "do",
    "temat",
    "kopia",
];

/// `Key: value` (or `*Key:* value`, Outlook's bold in plain text; or the
/// French `Key : value`) where the key is a header name a client writes.
fn header_key(t: &str) -> Option<String> {
    let t = t.trim_start_matches('*');
    let (k, v) = t.split_once(':')?;
    let k = k.trim().trim_end_matches('*').trim().to_lowercase();
    if v.trim().trim_start_matches('*').trim().is_empty() && !HEADER_KEYS.contains(&k.as_str()) {
        return None;
    }
    (FROM_KEYS.contains(&k.as_str()) || HEADER_KEYS.contains(&k.as_str())).then_some(k)
}

/// A dashed banner over a quoted or forwarded message.
fn is_banner(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "original",
        "message",
        "nachricht",
        "messaggio",
        "mensaje",
        "mensagem",
        "origine",
        "bericht",
        "forwarded",
        "weitergeleitet",
        "wiadomość",
        "meddelande",
        "viesti",
        "сообщение",
    ];
    let inner = t.trim_matches('-');
    t.starts_with("--") && t.ends_with("--") && inner.len() + 4 <= t.len() && {
        let l = inner.to_lowercase();
        WORDS.iter().any(|w| l.contains(w))
    }
}

/// A line the mail client adds by itself under what the player wrote.
fn is_footer(t: &str) -> bool {
    const FOOTERS: &[&str] = &[
        "sent from my ",
        "sent from mail for windows",
        "sent from outlook",
        "sent from yahoo mail",
        "sent from proton mail",
        "sent from protonmail",
        "sent with proton mail",
        "sent from the all-new aol app",
        "sent via the samsung",
        "sent from samsung",
        "get outlook for ",
        "envoyé de mon ",
        "envoyé depuis ",
        "von meinem ",
        "gesendet von meinem ",
        "inviato da ",
        "enviado desde mi ",
        "enviado do meu ",
        "verzonden vanaf mijn ",
        "verstuurd vanaf mijn ",
        "skickat från min ",
    ];
    // Outlook links a word of its footer: "Sent from Mail<https://…> for
    // Windows".
    if t.len() > 300 {
        return false;
    }
    let mut l = t.to_lowercase();
    while let Some(a) = l.find("<http") {
        match l[a..].find('>') {
            Some(b) => l.replace_range(a..a + b + 1, ""),
            None => break,
        }
    }
    l.chars().count() < 100 && FOOTERS.iter().any(|f| l.starts_with(f))
}

/// HTML as a person sees it, as text: block elements and `<br>` break lines,
/// `<blockquote>` becomes `> ` quoting, `<head>`, `<style>` and `<script>`
/// are not shown, whitespace collapses outside `<pre>`, entities decoded.
pub fn html_to_text(html: &str) -> String {
    let mut w = HtmlText::default();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        w.text(&rest[..lt]);
        rest = &rest[lt..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map(|e| &after[e + 3..]).unwrap_or("");
            continue;
        }
        let end = tag_end(rest);
        let tag = if rest.as_bytes()[end - 1] == b'>' && end > 1 { &rest[1..end - 1] } else { &rest[1..end] };
        rest = &rest[end..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match name.as_str() {
            "head" | "style" | "script" | "title" if !closing => {
                let close = format!("</{name}");
                rest = find_ci(rest, &close).map(|k| &rest[k..]).unwrap_or("");
            }
            "br" => w.hard_break(),
            "blockquote" => {
                w.soft_break();
                // A quotation (type="cite", a client's *quote class) quotes;
                // a plain blockquote is only an indent (Gmail's indent
                // button) and its text is the player's.
                if closing {
                    if let Some(cited) = w.blocks.pop() {
                        w.depth = w.depth.saturating_sub(usize::from(cited));
                    }
                } else {
                    let t = tag.to_ascii_lowercase();
                    let attrs = t.get("blockquote".len()..).unwrap_or("");
                    let cited = attrs.contains("cite") || attrs.contains("quote");
                    w.blocks.push(cited);
                    w.depth += usize::from(cited);
                }
            }
            "pre" => {
                w.soft_break();
                w.pre = !closing;
            }
            "p" | "div" | "li" | "ul" | "ol" | "tr" | "table" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "hr"
            | "section" | "article" | "header" | "footer" | "dl" | "dt" | "dd" | "address" | "center" => w.soft_break(),
            "td" | "th" if closing => w.text(" "),
            _ => {}
        }
    }
    w.text(rest);
    w.soft_break();
    w.lines.join("\n")
}

/// The byte just past a tag's `>`, skipping `>` inside quoted attributes.
fn tag_end(s: &str) -> usize {
    let mut quote = None;
    for (i, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return i + 1,
            _ => {}
        }
    }
    s.len()
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    (0..h.len().saturating_sub(n.len() - 1)).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[derive(Default)]
struct HtmlText {
    lines: Vec<String>,
    line: String,
    depth: usize,
    /// For each open blockquote, whether it quotes.
    blocks: Vec<bool>,
    pre: bool,
}

impl HtmlText {
    fn text(&mut self, raw: &str) {
        let decoded = decode_entities(raw);
        for c in decoded.chars() {
            if self.pre && c == '\n' {
                self.hard_break();
            } else if c.is_whitespace() && c != '\u{a0}' && !self.pre {
                if !self.line.is_empty() && !self.line.ends_with(' ') {
                    self.line.push(' ');
                }
            } else if c != '\r' {
                self.line.push(c);
            }
        }
    }

    /// End the current line, if it holds anything.
    fn soft_break(&mut self) {
        if !self.line.trim().is_empty() {
            self.hard_break();
        } else {
            self.line.clear();
        }
    }

    /// End the current line even if empty (`<br>`).
    fn hard_break(&mut self) {
        let text = std::mem::take(&mut self.line);
        let text = text.trim_end_matches(' ');
        let text = text.trim_start_matches(' ');
        self.lines.push(if self.depth == 0 { text.to_string() } else { format!("{} {text}", ">".repeat(self.depth)) });
    }
}

/// `&amp;`, `&#233;`, `&#xE9;` and the named entities mail clients write.
fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    const NAMED: &[(&str, &str)] = &[
        ("nbsp", "\u{a0}"),
        ("amp", "&"),
        ("lt", "<"),
        ("gt", ">"),
        ("quot", "\""),
        ("apos", "'"),
        ("rsquo", "\u{2019}"),
        ("lsquo", "\u{2018}"),
        ("rdquo", "\u{201d}"),
        ("ldquo", "\u{201c}"),
        ("ndash", "\u{2013}"),
        ("mdash", "\u{2014}"),
        ("hellip", "\u{2026}"),
        ("laquo", "«"),
        ("raquo", "»"),
        ("copy", "©"),
        ("reg", "®"),
        ("euro", "€"),
        ("middot", "·"),
        ("szlig", "ß"),
        ("agrave", "à"),
        ("aacute", "á"),
        ("acirc", "â"),
        ("auml", "ä"),
        ("ccedil", "ç"),
        ("egrave", "è"),
        ("eacute", "é"),
        ("ecirc", "ê"),
        ("euml", "ë"),
        ("igrave", "ì"),
        ("iacute", "í"),
        ("icirc", "î"),
        ("iuml", "ï"),
        ("ntilde", "ñ"),
        ("ograve", "ò"),
        ("oacute", "ó"),
        ("ocirc", "ô"),
        ("ouml", "ö"),
        ("ugrave", "ù"),
        ("uacute", "ú"),
        ("ucirc", "û"),
        ("uuml", "ü"),
        ("Agrave", "À"),
        ("Eacute", "É"),
        ("Egrave", "È"),
        ("Ouml", "Ö"),
        ("Uuml", "Ü"),
        ("Auml", "Ä"),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(a) = rest.find('&') {
        out.push_str(&rest[..a]);
        rest = &rest[a..];
        // Only the next few bytes: an entity is short, and looking further
        // from every `&` would cost the square of a hostile mail's size.
        let semi = rest.as_bytes()[1..].iter().take(10).position(|&b| b == b';').map(|k| k + 1);
        let decoded = semi.and_then(|k| {
            let name = &rest[1..k];
            if let Some(num) = name.strip_prefix('#') {
                let v = match num.strip_prefix(['x', 'X']) {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => num.parse().ok(),
                };
                v.and_then(char::from_u32).map(|c| (c.to_string(), k))
            } else {
                NAMED.iter().find(|(n, _)| *n == name).map(|(_, v)| (v.to_string(), k))
            }
        });
        match decoded {
            Some((v, k)) => {
                out.push_str(&v);
                rest = &rest[k + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Vec<String> {
        own_text(&unflow(body, false, false)).lines.into_iter().map(|(_, l)| l).collect()
    }

    #[test]
    fn orders_above_below_and_between_quotes() {
        let top = "PASS\nSALT x\n\nOn Mon, 1 Jan 2026 at 10:00, adjutant <g@x> wrote:\n> MOVE X TO Y\n";
        assert_eq!(read(top), ["PASS", "SALT x"]);
        let bottom = "On Mon, 1 Jan 2026, adjutant wrote:\n> MOVE X TO Y\n> PLACE A AT B\n\nPASS\n";
        assert_eq!(read(bottom), ["PASS"]);
        let between = "adjutant wrote:\n> first question\nPASS\n> second\nSALT y\n";
        assert_eq!(read(between), ["PASS", "SALT y"]);
    }

    #[test]
    fn attribution_families_and_translations() {
        for a in [
            "On Sun, Mar 1, 2026 at 1:00 PM adjutant <game@adjutant.local> wrote:",
            "adjutant wrote:",
            "Sunday, March 1, 2026, 1:00:00 PM, you wrote:",
            "* adjutant <game@adjutant.local> [2026-03-01 13:00]:",
            "Le dim. 1 mars 2026 à 13:00, adjutant <game@adjutant.local> a écrit :",
            "Am So., 1. März 2026 um 13:00 Uhr schrieb adjutant <game@adjutant.local>:",
            "Il giorno dom 1 mar 2026 alle ore 13:00 adjutant <game@adjutant.local> ha scritto:",
            "El dom, 1 mar 2026 a las 13:00, adjutant (<game@adjutant.local>) escribió:",
            "Op zo 1 mrt 2026 om 13:00 schreef adjutant <game@adjutant.local>:",
        ] {
            assert!(is_attribution(a), "{a}");
        }
        assert!(!is_attribution("PRESS ALL I wrote: nothing"));
        assert!(!is_attribution("MOVE Provera TO Piave"));
        // Claws and Gmail wrap a long attribution over two lines.
        let claws =
            "On Sun, 01 Mar 2026 13:00:00 +0000\nadjutant <game@adjutant.local> wrote:\n\n> PLACE X AT Y\n\nPASS\n";
        assert_eq!(read(claws), ["PASS"]);
        let gmail = "PASS\n\nOn Sun, Mar 1, 2026 at 1:00 PM adjutant <\ngame@adjutant.local> wrote:\n\n> x\n";
        assert_eq!(read(gmail), ["PASS"]);
        // The player's own line just above an attribution stays theirs.
        let thunderbird = "PASS\nSALT me@home\nOn 3/1/26 13:00, adjutant wrote:\n> x\n";
        assert_eq!(read(thunderbird), ["PASS", "SALT me@home"]);
    }

    #[test]
    fn originals_under_banners_and_header_blocks() {
        let outlook = "PASS\r\n\r\n________________________________\r\nFrom: adjutant <game@adjutant.local>\r\nSent: Sunday, March 1, 2026 1:00 PM\r\nTo: alice@example.org\r\nSubject: [corpus] step 1\r\n\r\nPLACE <block> AT <city>\r\n";
        assert_eq!(read(outlook), ["PASS"]);
        let german = "PASS\nVon: adjutant <game@adjutant.local>\nGesendet: Sonntag, 1. März 2026 13:00\nAn: alice@example.org\nBetreff: x\n\nMOVE A TO B\n";
        assert_eq!(read(german), ["PASS"]);
        let french = "PASS\n\nDe : adjutant\nEnvoyé : dimanche\nÀ : alice\nObjet : x\nMOVE A TO B\n";
        assert_eq!(read(french), ["PASS"]);
        for banner in [
            "-----Original Message-----",
            "-------- Original message --------",
            "-------- Message d'origine --------",
            "-------- Ursprüngliche Nachricht --------",
        ] {
            assert_eq!(read(&format!("PASS\n{banner}\nMOVE A TO B\n")), ["PASS"], "{banner}");
        }
        // Not a banner: the player's own decoration.
        assert_eq!(read("--- my orders ---\nPASS\n"), ["--- my orders ---", "PASS"]);
        // One "From:" line alone is not a header block.
        assert_eq!(read("From: Vienna with love\nPASS\n"), ["From: Vienna with love", "PASS"]);
    }

    #[test]
    fn quotes_without_the_angle_bracket() {
        let the_bat = "Hello adjutant,\n\nSunday, March 1, 2026, you wrote:\n\nA> PLACE X AT Y\na> more\n\nPASS\n";
        assert_eq!(read(the_bat), ["Hello adjutant,", "PASS"]);
        let s_nail = "adjutant wrote:\n\n\tPLACE X AT Y\n\tmore\n\nPASS\n\tMOVE <block> TO <place>\nSALT x\n";
        assert_eq!(read(s_nail), ["PASS", "SALT x"]);
        // A TAB-indented line among the player's own lines stays theirs.
        assert_eq!(read("PASS\n\tSALT x\n"), ["PASS", "SALT x"]);
    }

    #[test]
    fn signatures_footers_and_comments() {
        assert_eq!(read("PASS\n# note\n-- \nAlice\nPLACE X AT Y\n"), ["PASS"]);
        assert_eq!(read("PASS\n\nSent from my iPhone\n"), ["PASS"]);
        assert_eq!(read("PASS\nGet Outlook for iOS\nVon meinem iPhone gesendet\n"), ["PASS"]);
        assert_eq!(
            read("PASS\nSent from Mail<https://go.microsoft.com/fwlink/?LinkId=550986> for Windows\n"),
            ["PASS"]
        );
        let r = own_text(&unflow("PASS\n-- \nAlice\nBob\n", false, false));
        assert_eq!(r.skipped[0].kind, SkipKind::Signature);
        assert_eq!(r.skipped[0].count, 3);
    }

    #[test]
    fn format_flowed_is_unwrapped() {
        let body =
            "PRESS ALL Greetings from Vienna: the Emperor sends \r\nhis regards\r\nPASS\r\n> quoted \r\n> more\r\n";
        let lines = unflow(body, true, false);
        assert_eq!(lines[0], (1, "PRESS ALL Greetings from Vienna: the Emperor sends his regards".into()));
        assert_eq!(lines[1], (3, "PASS".into()));
        assert_eq!(lines[2], (4, "> quoted more".into()));
        // DelSp=yes: the space before the break was added by the wrap.
        assert_eq!(unflow("MOVE a, b TO Ver \r\nona\r\n", true, true)[0].1, "MOVE a, b TO Verona");
        assert_eq!(unflow("MOVE a, b TO \r\nVerona\r\n", true, false)[0].1, "MOVE a, b TO Verona");
        // Space-stuffed lines and the signature line stay as they are.
        assert_eq!(unflow(" From here\r\n-- \r\nA\r\n", true, false)[1].1, "-- ");
    }

    #[test]
    fn html_as_a_person_sees_it() {
        let html = "<html><head><style>p{}</style></head><body><div dir=\"ltr\">Hi,<div>PLACE A&nbsp;AT B</div><div><br></div>--&nbsp;<br>Alice</div>\
            <div class=\"gmail_quote\"><div class=\"gmail_attr\">On Sun, Mar 1, 2026 adjutant &lt;g@x&gt; wrote:<br></div>\
            <blockquote class=\"gmail_quote\">PLACE &lt;block&gt; AT &lt;city&gt;<br>more</blockquote></div></body></html>";
        let text = html_to_text(html);
        assert!(text.contains("> PLACE <block> AT <city>"), "{text}");
        assert_eq!(read(&text), ["Hi,", "PLACE A AT B"]);
        // Gmail's indent button makes a plain blockquote: the player's text.
        let indented = "<div>PASS</div><blockquote style=\"margin:0 0 0 40px\">SALT x</blockquote>";
        assert_eq!(read(&html_to_text(indented)), ["PASS", "SALT x"]);
        let cited = "<div>PASS</div><blockquote type=\"cite\">PLACE A AT B</blockquote>";
        assert_eq!(read(&html_to_text(cited)), ["PASS"]);
        assert_eq!(decode_entities("caf&eacute; &#233;&#xE9; &bogus; a&b"), "café éé &bogus; a&b");
        // A long run of ampersands is read in linear time.
        assert_eq!(decode_entities(&"&".repeat(100_000)).len(), 100_000);
    }
}
