//! `adjutant verify`: a player checks, from the mails adjutant sent them
//! and trusting nothing else, that the dice were fair and the history was
//! not rewritten. Every revealed link hashes back to the anchor of the
//! welcome mail (sent before their first orders), their own salt is in
//! each step's list unchanged, every draw they can see regenerates from its
//! seed under dice-v1 with no gap in the counters, no two mails tell two
//! stories about one journal entry, and a journal the operator publishes
//! holds every journal tip the mails carry.
//!
//! A folder may hold several games, several recipients' mail and mail of
//! other senders: mail is grouped by game (`X-Adjutant-Game`) and, within a
//! game, by recipient; what is not adjutant's is counted and left alone.
//! Mails are ordered by the journal entry their Message-ID names, never by
//! their `Date:` (a pass sends many in one second). Pure: the command line
//! reads the files and hands their bytes in.

use crate::dice::{self, Draw, DrawKind, Link};
use crate::journal::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// One of adjutant's mails, read.
#[derive(Debug, Clone, Default)]
pub struct Mail {
    /// Where it came from (a file, a message of an mbox), for the report.
    pub name: String,
    pub game: String,
    /// The recipient, lower-cased.
    pub to: String,
    /// The journal entry its Message-ID names (`<game>.<seq>.<n>…@`):
    /// the order mails were sent in.
    pub seq: Option<u64>,
    /// The step it was sent at (`X-Adjutant-Step`).
    pub step: Option<u32>,
    pub subject: String,
    /// Seconds since the epoch (the Date header), if it had one.
    pub date: Option<i64>,
    blocks: Blocks,
}

/// What a mail's text says, block by block.
#[derive(Debug, Clone, Default)]
struct Blocks {
    /// `You play: …`: `Some(None)` for the moderator.
    role: Option<Option<String>>,
    anchors: Vec<Anchors>,
    dice: Vec<StepBlock>,
    /// (stream, step, link) from a REVEAL block.
    reveal: Vec<(String, u32, Link)>,
    /// The JOURNAL block: (entry, hash).
    tip: Option<(u64, String)>,
    /// An acknowledgement of accepted orders: the step, and the salt it
    /// says was taken.
    ack: Option<(u32, Option<String>)>,
}

#[derive(Debug, Clone)]
struct Anchors {
    /// 0 for the welcome mail's; the step a renewal's chains follow.
    base: u32,
    chain_len: u32,
    anchors: BTreeMap<String, Link>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct StepBlock {
    step: u32,
    salts: BTreeMap<String, String>,
    links: BTreeMap<String, Link>,
    draws: Vec<Draw>,
}

/// What one stored message is to the verifier.
#[derive(Debug)]
pub enum Read {
    Ours(Box<Mail>),
    /// Mail of another sender, or of adjutant but of no game.
    NotOurs,
    /// Adjutant's, or looking like it, but not checkable: why.
    Skipped {
        game: Option<String>,
        why: String,
    },
}

const BLOCKS: [&str; 4] = ["ANCHORS", "DICE", "REVEAL", "JOURNAL"];

/// Read one stored message.
pub fn read_mail(name: &str, raw: &[u8]) -> Read {
    let skipped = |game: Option<&str>, why: &str| Read::Skipped { game: game.map(str::to_string), why: why.into() };
    let Some(m) = mail_parser::MessageParser::default().parse(raw) else {
        return skipped(None, "it cannot be read as a mail");
    };
    let game = m.header_raw("X-Adjutant-Game").map(|g| g.trim().to_string());
    let text = m.text_bodies().next().filter(|p| !p.is_text_html()).and_then(|p| p.text_contents());
    let Some(game) = game else {
        // A forward or a copy of one of ours has lost the headers that
        // say whose it is; what it holds cannot be trusted as ours.
        let marker = "-----BEGIN ADJUTANT ";
        let looks_ours = m.body_text(0).is_some_and(|b| b.contains(marker))
            || memchr::memmem::find(raw, marker.as_bytes()).is_some();
        return if looks_ours {
            skipped(None, "it holds an ADJUTANT block but not adjutant's headers (a forward or a copy); only the mail adjutant sent can be checked")
        } else {
            Read::NotOurs
        };
    };
    if !crate::desk::store::valid_id(&game) {
        return skipped(None, "its X-Adjutant-Game header names no game id");
    }
    let Some(text) = text else {
        // A mail cut short in transit may have lost the end of its text
        // part with the rest: say that, rather than blame its form.
        let whole = String::from_utf8_lossy(raw);
        if let Some(why) = BLOCKS.iter().find_map(|b| block(&whole, b).err()) {
            return skipped(Some(&game), &why);
        }
        return skipped(Some(&game), "it has no plain-text part (an HTML-only copy): the blocks cannot be read");
    };
    let body = text.replace("\r\n", "\n");
    let blocks = match blocks(&body, m.subject().unwrap_or("")) {
        Ok(b) => b,
        Err(why) => return skipped(Some(&game), &why),
    };
    Read::Ours(Box::new(Mail {
        name: name.to_string(),
        seq: m.message_id().and_then(|id| seq_of_id(id, &game)),
        step: m.header_raw("X-Adjutant-Step").and_then(|s| s.trim().parse().ok()),
        to: m.to().and_then(|a| a.first()).and_then(|a| a.address()).map(|a| a.to_lowercase()).unwrap_or_default(),
        subject: m.subject().unwrap_or("").to_string(),
        date: m.date().map(|d| d.to_timestamp()),
        game,
        blocks,
    }))
}

/// The journal entry one of our Message-IDs names: `<game>.<seq>-<tag>.<n>`
/// or `<game>.<seq>-<tag>.<n>.s<k>` (`<game>.<seq>.<n>…` from an older
/// adjutant), then `@domain`.
fn seq_of_id(id: &str, game: &str) -> Option<u64> {
    let local = id.trim().trim_matches(['<', '>']).split('@').next()?;
    let rest = local.strip_prefix(game)?.strip_prefix('.')?;
    let first = rest.split('.').next()?;
    first.split('-').next()?.parse().ok()
}

/// The text between each BEGIN and END line of block `name`; an error
/// when one is cut short.
fn block<'a>(body: &'a str, name: &str) -> Result<Vec<&'a str>, String> {
    let begin = format!("-----BEGIN ADJUTANT {name}-----");
    let end = format!("-----END ADJUTANT {name}-----");
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find(&begin) {
        let after = &rest[i + begin.len()..];
        let Some(j) = after.find(&end) else {
            return Err(format!("its {name} block is cut short (no END line): the mail is incomplete"));
        };
        out.push(&after[..j]);
        rest = &after[j + end.len()..];
    }
    Ok(out)
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.strip_prefix(key).and_then(|r| r.strip_prefix(':')).map(|v| v.trim())
}

fn link_hex(h: &str, what: &str) -> Result<Link, String> {
    dice::from_hex(h).ok_or_else(|| format!("the {what} {h:?} is not 32 bytes of hex"))
}

fn parse_draw(line: &str) -> Option<Draw> {
    // draw <stream> <n> <kind> <sides> <r1,r2,...>[ declared] | <label>
    let (head, label) = line.strip_prefix("draw ")?.split_once(" | ")?;
    let parts: Vec<&str> = head.split_whitespace().collect();
    let kind = match *parts.get(2)? {
        "die" => DrawKind::Die,
        "shuffle" => DrawKind::Shuffle,
        "pool" => DrawKind::Pool,
        _ => return None,
    };
    // A shuffle of nothing has an empty result: the field is then absent.
    let (result, declared) = match parts.get(4..)? {
        [] => (Vec::new(), false),
        ["declared"] => (Vec::new(), true),
        [r, rest @ ..] => {
            (r.split(',').map(|x| x.parse().ok()).collect::<Option<Vec<u32>>>()?, rest.first() == Some(&"declared"))
        }
    };
    if parts.len() > 6 {
        return None;
    }
    Some(Draw {
        stream: parts.first()?.to_string(),
        n: parts.get(1)?.parse().ok()?,
        label: label.trim_end().to_string(),
        kind,
        sides: parts.get(3)?.parse().ok()?,
        result,
        declared,
        // The mail's DICE block says what was drawn, not whom it served:
        // that is in the journal, for the fairness report.
        serves: None,
        good: None,
    })
}

/// Read the blocks of a mail's text. A line of a block that cannot be
/// read makes the whole mail unreadable (a client that mangled it): it is
/// skipped and named, never taken for a lie.
fn blocks(body: &str, subject: &str) -> Result<Blocks, String> {
    let mut b = Blocks::default();
    for name in BLOCKS {
        block(body, name)?;
    }
    if let Some(l) = body.lines().find_map(|l| l.strip_prefix("You play: ")) {
        let r = l.trim().trim_end_matches('.').trim().to_string();
        b.role = Some(Some(r).filter(|r| r != "moderator"));
    }
    for text in block(body, "ANCHORS")? {
        let mut a = Anchors { base: 0, chain_len: 0, anchors: BTreeMap::new() };
        for l in text.lines() {
            if let Some(v) = field(l, "base") {
                a.base = v.parse().map_err(|_| format!("its ANCHORS block has the base {v:?}"))?;
            } else if let Some(v) = field(l, "chain-length") {
                a.chain_len = v.parse().map_err(|_| format!("its ANCHORS block has the chain length {v:?}"))?;
            } else if let Some(rest) = l.strip_prefix("anchor ") {
                let (s, h) = rest.rsplit_once(": ").ok_or_else(|| format!("cannot read the line {l:?}"))?;
                a.anchors.insert(s.to_string(), link_hex(h, "anchor")?);
            }
        }
        b.anchors.push(a);
    }
    for text in block(body, "DICE")? {
        let mut sb = StepBlock::default();
        let mut step = None;
        for l in text.lines() {
            if let Some(v) = field(l, "step") {
                step = v.parse::<u32>().ok();
            } else if let Some(rest) = l.strip_prefix("salt ") {
                let (role, v) = rest.split_once(':').ok_or_else(|| format!("cannot read the line {l:?}"))?;
                sb.salts.insert(role.to_string(), v.trim().to_string());
            } else if let Some(rest) = l.strip_prefix("link ") {
                let (s, h) = rest.rsplit_once(": ").ok_or_else(|| format!("cannot read the line {l:?}"))?;
                sb.links.insert(s.to_string(), link_hex(h, "link")?);
            } else if l.starts_with("draw ") {
                sb.draws.push(parse_draw(l).ok_or_else(|| format!("cannot read the draw line {l:?}"))?);
            }
        }
        sb.step = step.ok_or("its DICE block names no step")?;
        b.dice.push(sb);
    }
    for text in block(body, "REVEAL")? {
        for l in text.lines() {
            // link <stream> <k>: <hex>
            let Some(rest) = l.strip_prefix("link ") else { continue };
            let read = || {
                let (head, h) = rest.rsplit_once(": ")?;
                let (s, k) = head.rsplit_once(' ')?;
                Some((s.to_string(), k.parse::<u32>().ok()?, dice::from_hex(h)?))
            };
            b.reveal.push(read().ok_or_else(|| format!("cannot read the REVEAL line {l:?}"))?);
        }
    }
    for text in block(body, "JOURNAL")? {
        let (mut seq, mut hash) = (None, None);
        for l in text.lines() {
            if let Some(v) = field(l, "entry") {
                seq = v.parse::<u64>().ok();
            } else if let Some(v) = field(l, "hash") {
                hash = Some(v.to_string());
            }
        }
        match (seq, hash) {
            (Some(k), Some(h)) if h.len() == 64 && h.bytes().all(|c| c.is_ascii_hexdigit()) => b.tip = Some((k, h)),
            _ => return Err("its JOURNAL block cannot be read".into()),
        }
    }
    // The acknowledgement of an order mail: "[g] step k: accepted".
    if let Some(k) = step_of_ack(subject) {
        let salt =
            body.lines().find_map(|l| l.trim().strip_prefix("Your salt for this step: ")).map(|s| s.trim().to_string());
        b.ack = Some((k, salt));
    }
    Ok(b)
}

fn step_of_ack(subject: &str) -> Option<u32> {
    let i = subject.find("] step ")?;
    let rest = &subject[i + 7..];
    let (k, tail) = rest.split_once(':')?;
    tail.trim().starts_with("accepted").then(|| k.trim().parse().ok()).flatten()
}

/// A mail as a person finds it again: its date, step and subject.
fn describe(m: &Mail) -> String {
    let date = m
        .date
        .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
        .map(|d| d.format("%-d %b %Y %H:%M UTC").to_string())
        .unwrap_or_else(|| "unknown date".into());
    let step = m.step.map(|k| format!(", step {k}")).unwrap_or_default();
    format!("your mail of {date}{step} (\"{}\", {})", m.subject, m.name)
}

/// The verdict on one game.
#[derive(Debug, Default)]
pub struct GameVerdict {
    pub game: String,
    /// What was checked, a line each; failures start with `FAIL`.
    pub lines: Vec<String>,
    pub failures: usize,
    /// What kept the dice from being checked at all (no welcome mail).
    pub incomplete: Option<String>,
    /// Mails of this game that could not be read: (mail, why).
    pub skipped: Vec<(String, String)>,
    pub mails: usize,
    /// Draws regenerated from their seeds.
    pub dice: usize,
    /// The last journal entry a mail witnessed.
    pub last_entry: Option<u64>,
}

impl GameVerdict {
    fn ok(&mut self, s: String) {
        self.lines.push(s);
    }
    fn fail(&mut self, s: String) {
        self.failures += 1;
        self.lines.push(format!("FAIL {s}"));
    }
    pub fn verified(&self) -> bool {
        self.failures == 0 && self.incomplete.is_none()
    }
}

/// A journal the operator published, as given on the command line.
pub struct Published<'a> {
    pub name: &'a str,
    pub entries: &'a [Entry],
}

impl Published<'_> {
    /// The game it is of (its first entry's).
    pub fn game(&self) -> Option<String> {
        self.entries.first()?.body.get("game")?.as_str().map(str::to_string)
    }
}

/// Check every game the mails are of, each on its own; `published` are
/// the journals the operator published, matched to their games. Games in
/// order of their ids.
pub fn verify_games(
    mails: Vec<Mail>,
    skipped: Vec<(Option<String>, String, String)>,
    published: &[Published],
) -> Vec<GameVerdict> {
    let mut by_game: BTreeMap<String, Vec<Mail>> = BTreeMap::new();
    for m in mails {
        by_game.entry(m.game.clone()).or_default().push(m);
    }
    let mut skipped_of: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (g, name, why) in skipped {
        if let Some(g) = g {
            by_game.entry(g.clone()).or_default();
            skipped_of.entry(g).or_default().push((name, why));
        }
    }
    by_game
        .into_iter()
        .map(|(game, mut mails)| {
            let journal = published.iter().find(|p| p.game().as_deref() == Some(game.as_str()));
            mails.sort_by(|a, b| {
                (a.seq.unwrap_or(u64::MAX), a.date, &a.name).cmp(&(b.seq.unwrap_or(u64::MAX), b.date, &b.name))
            });
            let mut v = verify_game(&game, &mails, journal);
            v.skipped = skipped_of.remove(&game).unwrap_or_default();
            v
        })
        .collect()
}

/// One game's mails, sorted by the order they were sent in.
fn verify_game(game: &str, mails: &[Mail], journal: Option<&Published>) -> GameVerdict {
    let mut v = GameVerdict { game: game.to_string(), mails: mails.len(), ..GameVerdict::default() };
    if mails.is_empty() {
        v.incomplete = Some("no mail of this game could be read".into());
        return v;
    }
    let mut by_to: BTreeMap<&str, Vec<&Mail>> = BTreeMap::new();
    for m in mails {
        by_to.entry(m.to.as_str()).or_default().push(m);
    }
    // The dice, recipient by recipient: each sees their own streams and
    // sent their own salts.
    let mut welcome: Option<(&str, &Anchors, &Mail)> = None;
    for (to, ms) in &by_to {
        let first = ms.iter().find_map(|m| m.blocks.anchors.iter().find(|a| a.base == 0).map(|a| (a, *m)));
        if let (Some((a, m)), Some((other_to, b, bm))) = (first, welcome) {
            if a.anchors != b.anchors {
                v.fail(format!(
                    "the welcome mails to {to} ({}) and to {other_to} ({}) show different dice anchors: the operator committed to two sets of dice",
                    m.name, bm.name
                ));
            }
        }
        if welcome.is_none() {
            welcome = first.map(|(a, m)| (*to, a, m));
        }
        check_recipient(game, to, ms, &mut v);
    }
    if welcome.is_none() {
        v.incomplete = Some(
            "no welcome mail (with the ANCHORS block) of this game is among these mails, so its dice cannot be checked: add it (it was the game's first mail to you)".into(),
        );
    }
    check_tips(mails, journal, &mut v);
    v
}

/// The dice one recipient was shown.
fn check_recipient(game: &str, to: &str, mails: &[&Mail], v: &mut GameVerdict) {
    let who = if to.is_empty() { "the mails with no recipient".to_string() } else { to.to_string() };
    let role = mails.iter().find_map(|m| m.blocks.role.clone());
    let Some((anchor_mail, first)) =
        mails.iter().find_map(|m| m.blocks.anchors.iter().find(|a| a.base == 0).map(|a| (*m, a)))
    else {
        v.ok(format!("{who}: {} mail(s), no welcome mail among them: dice not checked", mails.len()));
        return;
    };
    let renewed: BTreeMap<u32, &BTreeMap<String, Link>> = mails
        .iter()
        .flat_map(|m| m.blocks.anchors.iter().filter(|a| a.base > 0).map(|a| (a.base, &a.anchors)))
        .collect();
    // The first accepted orders came after the anchors: by the journal
    // entries their ids name, else by their dates.
    let first_ack = mails.iter().find(|m| m.blocks.ack.is_some());
    if let Some(ack) = first_ack {
        let after = match (anchor_mail.seq, ack.seq) {
            (Some(a), Some(o)) => a <= o,
            _ => match (anchor_mail.date, ack.date) {
                (Some(a), Some(o)) => a <= o,
                _ => true,
            },
        };
        if !after {
            v.fail(format!(
                "{who}: the dice anchors ({}) were sent after your first accepted orders ({}): they were not committed in advance",
                anchor_mail.name, ack.name
            ));
        }
    }
    // Each step's block, once; the same step shown twice must agree.
    let mut steps: BTreeMap<u32, (&StepBlock, &Mail)> = BTreeMap::new();
    for m in mails {
        for sb in &m.blocks.dice {
            match steps.get(&sb.step) {
                Some((other, om)) if *other != sb => v.fail(format!(
                    "{who}: step {}: {} and {} show the dice of the step differently",
                    sb.step, m.name, om.name
                )),
                Some(_) => {}
                None => {
                    steps.insert(sb.step, (sb, m));
                }
            }
        }
    }
    // The last salt each accepted mail of a step took.
    let mut own_salts: BTreeMap<u32, (&str, &Mail)> = BTreeMap::new();
    for m in mails {
        if let Some((k, Some(s))) = &m.blocks.ack {
            own_salts.insert(*k, (s.as_str(), m));
        }
    }
    // Every link seen, per stream and step, must hash back to the one
    // before (or to the anchor).
    let mut links: BTreeMap<&str, BTreeMap<u32, (Link, &Mail)>> = BTreeMap::new();
    for m in mails {
        for (s, k, l) in &m.blocks.reveal {
            let e = links.entry(s.as_str()).or_default();
            if let Some((other, om)) = e.get(k) {
                if other != l {
                    v.fail(format!("{who}: step {k}, stream {s}: {} and {} show two different links", m.name, om.name));
                }
            }
            e.insert(*k, (*l, m));
        }
    }
    for (k, (sb, m)) in &steps {
        for (s, l) in &sb.links {
            let e = links.entry(s.as_str()).or_default();
            if let Some((other, om)) = e.get(k) {
                if other != l {
                    v.fail(format!("{who}: step {k}, stream {s}: {} and {} show two different links", m.name, om.name));
                }
            }
            e.insert(*k, (*l, m));
        }
    }
    let mut bad_links: BTreeSet<(&str, u32)> = BTreeSet::new();
    for (s, by_step) in &links {
        let Some(anchor) = first.anchors.get(*s) else {
            v.fail(format!("{who}: stream {s} has links but no anchor in the welcome mail ({})", anchor_mail.name));
            continue;
        };
        let (mut prev_k, mut prev) = (0u32, *anchor);
        for (k, (l, m)) in by_step {
            // A step after a renewal hashes back to the renewed anchor.
            let renewal = renewed.range(..*k).next_back().and_then(|(b, a)| a.get(*s).map(|a| (*b, *a)));
            if let Some((b, a)) = renewal.filter(|(b, _)| *b >= prev_k) {
                prev_k = b;
                prev = a;
            }
            // A chain serves `chain_len` steps after its base: a link past
            // them was never committed (and would cost a reader a long hash).
            let base = renewed.range(..*k).next_back().map(|(b, _)| *b).unwrap_or(0);
            if first.chain_len > 0 && *k > base + first.chain_len {
                v.fail(format!(
                    "{who}: step {k}, stream {s} ({}): a link past the chain committed for steps {} to {}",
                    m.name,
                    base + 1,
                    base + first.chain_len
                ));
                bad_links.insert((s, *k));
                continue;
            }
            let mut x = *l;
            for _ in 0..(k - prev_k) {
                x = dice::sha256(&x);
            }
            if x != prev {
                v.fail(format!(
                    "{who}: step {k}, stream {s} ({}): the link does not hash back to {}",
                    m.name,
                    if prev_k == 0 {
                        "the anchor".to_string()
                    } else if renewed.contains_key(&prev_k) {
                        format!("the anchor renewed after step {prev_k}")
                    } else {
                        format!("the link of step {prev_k}")
                    }
                ));
                bad_links.insert((s, *k));
            }
            prev_k = *k;
            prev = *l;
        }
    }
    let role_name = role.clone().flatten();
    // Every role of the game has a salt in each step's list (empty when it
    // sent none): the roles are those with a stream of their own.
    let roles: BTreeSet<&str> = first.anchors.keys().filter_map(|s| s.strip_prefix("role:")).collect();
    let mut regenerated = 0usize;
    for (k, (sb, m)) in &steps {
        let listed: BTreeSet<&str> = sb.salts.keys().map(String::as_str).collect();
        if !roles.is_empty() && listed != roles {
            v.fail(format!(
                "{who}: step {k} ({}): the salts are listed for {}, not for every role of the game ({})",
                m.name,
                listed.iter().copied().collect::<Vec<_>>().join(", "),
                roles.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some(role) = &role_name {
            match (sb.salts.get(role), own_salts.get(k)) {
                (None, _) => v.fail(format!("{who}: step {k} ({}): your salt ({role}) is not in the list", m.name)),
                (Some(shown), Some((yours, am))) if shown != yours => v.fail(format!(
                    "{who}: step {k} ({}): your salt was {yours:?} ({}) but the list shows {shown:?}",
                    m.name, am.name
                )),
                _ => {}
            }
        }
        let mut by_stream: BTreeMap<&str, Vec<&Draw>> = BTreeMap::new();
        for d in &sb.draws {
            by_stream.entry(d.stream.as_str()).or_default().push(d);
        }
        for (s, ds) in by_stream {
            let gaps = ds.iter().enumerate().filter(|(i, d)| d.n != *i as u32).count();
            if let Some((i, d)) = ds.iter().enumerate().find(|(i, d)| d.n != *i as u32) {
                v.fail(format!(
                    "{who}: step {k}, stream {s} ({}): draw counter {} where {i} was expected (a gap{})",
                    m.name,
                    d.n,
                    if gaps > 1 { format!(", and {} more", gaps - 1) } else { String::new() }
                ));
            }
            if ds.iter().any(|d| d.declared) {
                continue;
            }
            let Some(link) = sb.links.get(s) else {
                v.fail(format!("{who}: step {k}, stream {s} ({}): draws shown without their link", m.name));
                continue;
            };
            if bad_links.contains(&(s, *k)) || gaps > 0 {
                continue;
            }
            let seed = dice::seed(game, *k, s, link, &sb.salts);
            for (i, d) in ds.iter().enumerate() {
                let got = dice::regenerate(seed, &ds[..=i]);
                if got == d.result {
                    regenerated += 1;
                } else {
                    v.fail(format!(
                        "{who}: step {k}, stream {s}, draw {} ({}) in {}: shows {:?}, dice-v1 gives {:?}",
                        d.n, d.label, m.name, d.result, got
                    ));
                }
            }
        }
    }
    v.dice += regenerated;
    let role_text = match &role {
        Some(Some(r)) => format!(" ({r})"),
        Some(None) => " (the moderator)".into(),
        None => String::new(),
    };
    let renewals = if renewed.is_empty() {
        String::new()
    } else {
        format!(
            ", chains renewed after step(s) {}",
            renewed.keys().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
        )
    };
    v.ok(format!(
        "{who}{role_text}: {} mail(s); {} step(s) of dice, {regenerated} draw(s) regenerated from their seeds; every link back to the anchors of the welcome mail{renewals}, sent before the first accepted orders",
        mails.len(),
        steps.len(),
    ));
}

/// The journal tips the mails carry: no two mails may name one entry with
/// two hashes, and a published journal must hold every tip.
fn check_tips(mails: &[Mail], journal: Option<&Published>, v: &mut GameVerdict) {
    let mut tips: BTreeMap<u64, Vec<(&str, &Mail)>> = BTreeMap::new();
    for m in mails {
        if let Some((k, h)) = &m.blocks.tip {
            tips.entry(*k).or_default().push((h.as_str(), m));
        }
    }
    for (k, seen) in &tips {
        let (h0, m0) = seen[0];
        if let Some((_, m1)) = seen.iter().find(|(h, _)| *h != h0) {
            v.fail(format!(
                "journal entry {k} has one hash in {} and another in {}: the operator told two different histories",
                describe(m0),
                describe(m1)
            ));
        }
    }
    let Some((&last, last_seen)) = tips.iter().next_back() else {
        v.ok("no journal tip in these mails: the history is not witnessed (mails of an older adjutant)".into());
        return;
    };
    v.last_entry = Some(last);
    let witnessed = tips.values().map(Vec::len).sum::<usize>();
    let Some(j) = journal else {
        v.ok(format!(
            "history: {witnessed} mail(s) witness the journal up to entry {last}, and none contradicts another; give the journal the operator publishes with --journal to hold it to them"
        ));
        return;
    };
    if let Err((seq, m)) = crate::journal::verify_chain(j.entries) {
        v.fail(format!("the published journal {} is not a journal: entry {seq}: {m}", j.name));
        return;
    }
    let (hashes, end) = published_hashes(j.entries);
    let mut missing = 0;
    for (k, seen) in &tips {
        let (h, m) = seen[seen.len() - 1];
        match hashes.get(k) {
            Some(p) if p == h => {}
            Some(_) => v.fail(format!(
                "{} shows journal entry {k} with hash {}…, but the published journal {} has another: the history was changed after this mail went out",
                describe(m),
                &h[..16],
                j.name
            )),
            None if *k > end => missing += 1,
            None => v.fail(format!(
                "{} shows journal entry {k}, which the published journal {} does not hold: entries were removed or the history rewritten",
                describe(m),
                j.name
            )),
        }
    }
    if missing > 0 {
        let m = last_seen[last_seen.len() - 1].1;
        v.fail(format!(
            "the published journal {} stops at entry {end}, but {} already showed entry {last}{}: entries were removed from its end",
            j.name,
            describe(m),
            if missing > 1 { format!(" ({missing} of your mails show entries past its end)") } else { String::new() }
        ));
    } else {
        v.ok(format!(
            "history: the published journal {} holds every tip of {witnessed} mail(s), up to entry {last}",
            j.name
        ));
    }
}

/// Entry number to hash, as the published journal says them, and the last
/// entry it covers: in a public export each entry (a withheld one as a
/// stub) carries its place in the game's own journal (`source`); the
/// game's journal itself is its own.
fn published_hashes(journal: &[Entry]) -> (BTreeMap<u64, String>, u64) {
    let exported = journal.first().is_some_and(|e| e.body.contains_key("export"));
    let mut out = BTreeMap::new();
    for e in journal {
        if exported {
            let src = e.body.get("source");
            let seq = src.and_then(|s| s.get("seq")).and_then(|s| s.as_integer());
            let hash = src.and_then(|s| s.get("hash")).and_then(|s| s.as_str());
            if let (Some(seq), Some(hash)) = (seq, hash) {
                out.insert(seq as u64, hash.to_string());
            }
        } else {
            out.insert(e.seq, e.hash.clone());
        }
    }
    let end = out.keys().next_back().copied().unwrap_or(0);
    (out, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(name: &str, to: &str, seq: u64, subject: &str, body: &str) -> Mail {
        let raw = format!(
            "From: <game@adjutant.local>\nTo: <{to}>\nSubject: {subject}\nMessage-ID: <g1.{seq}-0badcafe.0@adjutant.local>\nX-Adjutant-Game: g1\nX-Adjutant-Step: 1\nContent-Type: text/plain\n\n{body}"
        );
        match read_mail(name, raw.as_bytes()) {
            Read::Ours(m) => *m,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn tip(seq: u64, hash: char) -> String {
        format!(
            "-----BEGIN ADJUTANT JOURNAL-----\ngame: g1\nentry: {seq}\nhash: {}\n-----END ADJUTANT JOURNAL-----\n",
            hash.to_string().repeat(64)
        )
    }

    #[test]
    fn a_message_id_names_its_entry_in_both_forms() {
        assert_eq!(seq_of_id("<g1.24-0a1b2c3d.0.s2@adjutant.local>", "g1"), Some(24));
        assert_eq!(seq_of_id("<g1.24.0.s2@adjutant.local>", "g1"), Some(24));
        assert_eq!(seq_of_id("<g1.7-0a1b2c3d.3@x>", "g1"), Some(7));
        assert_eq!(seq_of_id("<g12.7.3@x>", "g1"), None, "another game's id");
        assert_eq!(seq_of_id("<post.1@x>", "g1"), None);
    }

    #[test]
    fn a_draw_line_may_have_an_empty_result_and_a_declared_mark() {
        let d = parse_draw("draw public 0 shuffle 0  | nothing to shuffle").unwrap();
        assert!(d.result.is_empty() && !d.declared);
        let d = parse_draw("draw public 1 die 6 4 declared | escape roll").unwrap();
        assert_eq!((d.result, d.declared, d.label.as_str()), (vec![4], true, "escape roll"));
        assert!(parse_draw("draw public 1 die 6 x | bad").is_none());
        assert!(parse_draw("draw public 1 die 6 4 declared extra | bad").is_none());
    }

    /// Mails sent in one second, in any order, agree; a later mail naming
    /// an earlier tip (a re-send) is no contradiction; one entry with two
    /// hashes is, and both mails are named.
    #[test]
    fn only_one_entry_with_two_hashes_is_a_contradiction() {
        let a = mail("a", "p@x", 30, "[g1] step 3 resolved", &tip(31, 'a'));
        let b = mail("b", "p@x", 10, "[g1] step 1 resolved", &tip(11, 'b'));
        let again = mail("c", "p@x", 40, "[g1] your view", &tip(11, 'b'));
        let v = verify_games(vec![a.clone(), b.clone(), again], Vec::new(), &[]);
        assert_eq!(v[0].failures, 0, "{:?}", v[0].lines);
        assert_eq!(v[0].last_entry, Some(31));
        let forked = mail("d", "q@x", 12, "[g1] step 1 resolved", &tip(11, 'c'));
        let v = verify_games(vec![a, b, forked], Vec::new(), &[]);
        assert_eq!(v[0].failures, 1, "{:?}", v[0].lines);
        assert!(
            v[0].lines
                .iter()
                .any(|l| l.contains("entry 11") && l.contains("(\"[g1] step 1 resolved\", b)") && l.contains(", d)")),
            "{:?}",
            v[0].lines
        );
    }

    #[test]
    fn a_game_without_its_welcome_mail_is_not_checked_and_nothing_fails() {
        let v = verify_games(vec![mail("a", "p@x", 30, "[g1] step 3 resolved", &tip(31, 'a'))], Vec::new(), &[]);
        assert_eq!(v[0].failures, 0);
        assert!(v[0].incomplete.as_deref().is_some_and(|w| w.contains("welcome mail")));
    }

    #[test]
    fn a_block_cut_short_or_unreadable_skips_the_mail_by_name() {
        let cut = "From: <g@x>\nTo: <p@x>\nSubject: s\nX-Adjutant-Game: g1\n\n-----BEGIN ADJUTANT DICE-----\nscheme: dice-v1\nstep: 1\n";
        assert!(matches!(read_mail("m", cut.as_bytes()), Read::Skipped { why, .. } if why.contains("cut short")));
        let bad = "From: <g@x>\nTo: <p@x>\nSubject: s\nX-Adjutant-Game: g1\n\n-----BEGIN ADJUTANT DICE-----\nstep: 1\ndraw public zero die 6 4 | x\n-----END ADJUTANT DICE-----\n";
        assert!(matches!(read_mail("m", bad.as_bytes()), Read::Skipped { why, .. } if why.contains("draw line")));
        let other = "From: <news@x>\nTo: <p@x>\nSubject: news\n\nhello\n";
        assert!(matches!(read_mail("m", other.as_bytes()), Read::NotOurs));
    }
}
