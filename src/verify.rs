//! `adjutant verify`: a player checks the dice from the mails adjutant sent
//! them, trusting nothing else: every revealed link hashes back to the
//! anchor of the welcome mail (dated before their first orders), their own
//! salt is in each step's list unchanged, and every draw they can see
//! regenerates from its seed under dice-v1 with no gap in the counters.
//! Pure: the command line reads the files and hands their text in.

use crate::dice::{self, Draw, DrawKind, Link};
use std::collections::BTreeMap;

/// One mail as the verifier needs it.
#[derive(Debug, Clone)]
pub struct Mail {
    /// Where it came from (a file name), for the report.
    pub name: String,
    pub subject: String,
    /// Seconds since the epoch (the Date header), if it had one.
    pub date: Option<i64>,
    pub body: String,
}

/// What the mails said, gathered.
#[derive(Debug, Default)]
struct Gathered {
    game: Option<String>,
    role: Option<String>,
    chain_len: u32,
    anchors: BTreeMap<String, Link>,
    anchor_mail: Option<(String, Option<i64>)>,
    /// Anchors of renewed chains, by the step they follow.
    renewed: BTreeMap<u32, BTreeMap<String, Link>>,
    /// step -> (mail, salts, links by stream, draws)
    steps: BTreeMap<u32, StepBlock>,
    /// stream -> step -> link, from REVEAL blocks
    revealed: BTreeMap<String, BTreeMap<u32, (Link, String)>>,
    /// step -> (salt the player was told was accepted, mail)
    own_salts: BTreeMap<u32, (String, String)>,
    first_order: Option<(i64, String)>,
    /// Journal tips named by results mails: (entry, hash, mail).
    tips: Vec<(u64, String, String)>,
}

#[derive(Debug, Default, Clone)]
struct StepBlock {
    mail: String,
    salts: BTreeMap<String, String>,
    links: BTreeMap<String, Link>,
    draws: Vec<Draw>,
}

/// The verdict: one line a step (and a few more), and whether all held.
#[derive(Debug, Default)]
pub struct Report {
    pub lines: Vec<String>,
    pub failures: usize,
}

impl Report {
    fn ok(&mut self, s: String) {
        self.lines.push(s);
    }
    fn fail(&mut self, s: String) {
        self.failures += 1;
        self.lines.push(format!("FAIL {s}"));
    }
}

fn block<'a>(body: &'a str, name: &str) -> Vec<&'a str> {
    let begin = format!("-----BEGIN ADJUTANT {name}-----");
    let end = format!("-----END ADJUTANT {name}-----");
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find(&begin) {
        let after = &rest[i + begin.len()..];
        let Some(j) = after.find(&end) else { break };
        out.push(&after[..j]);
        rest = &after[j + end.len()..];
    }
    out
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.strip_prefix(key).and_then(|r| r.strip_prefix(':')).map(|v| v.trim())
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
    Some(Draw {
        stream: parts.first()?.to_string(),
        n: parts.get(1)?.parse().ok()?,
        label: label.trim_end().to_string(),
        kind,
        sides: parts.get(3)?.parse().ok()?,
        result: parts.get(4)?.split(',').map(|x| x.parse().ok()).collect::<Option<Vec<u32>>>()?,
        declared: parts.get(5) == Some(&"declared"),
        // The mail's DICE block says what was drawn, not whom it served:
        // that is in the journal, for the fairness report.
        serves: None,
        good: None,
    })
}

fn gather(mails: &[Mail], r: &mut Report) -> Gathered {
    let mut g = Gathered::default();
    for m in mails {
        let body = m.body.replace("\r\n", "\n");
        if g.role.is_none() {
            // The moderator has no salt to look for.
            if let Some(l) = body.lines().find_map(|l| l.strip_prefix("You play: ")) {
                g.role = Some(l.trim_end_matches('.').trim().to_string()).filter(|r| r != "moderator");
            }
        }
        for b in block(&body, "ANCHORS") {
            // A renewal's block says which step its chains follow.
            let base = b.lines().find_map(|l| field(l, "base")).and_then(|v| v.parse::<u32>().ok()).unwrap_or(0);
            let mut anchors = BTreeMap::new();
            for l in b.lines() {
                if let Some(v) = field(l, "game") {
                    g.game = Some(v.to_string());
                } else if let Some(v) = field(l, "chain-length") {
                    g.chain_len = v.parse().unwrap_or(0);
                } else if let Some(rest) = l.strip_prefix("anchor ") {
                    if let Some((s, h)) = rest.rsplit_once(": ") {
                        match dice::from_hex(h) {
                            Some(a) => {
                                anchors.insert(s.to_string(), a);
                            }
                            None => r.fail(format!("{}: anchor of {s} is not 32 bytes of hex", m.name)),
                        }
                    }
                }
            }
            if base == 0 {
                g.anchors = anchors;
                g.anchor_mail = Some((m.name.clone(), m.date));
            } else {
                g.renewed.insert(base, anchors);
            }
        }
        for b in block(&body, "DICE") {
            let mut sb = StepBlock { mail: m.name.clone(), ..StepBlock::default() };
            let mut step = None;
            for l in b.lines() {
                if let Some(v) = field(l, "step") {
                    step = v.parse::<u32>().ok();
                } else if let Some(rest) = l.strip_prefix("salt ") {
                    if let Some((role, v)) = rest.split_once(':') {
                        sb.salts.insert(role.to_string(), v.trim().to_string());
                    }
                } else if let Some(rest) = l.strip_prefix("link ") {
                    if let Some((s, h)) = rest.rsplit_once(": ") {
                        if let Some(link) = dice::from_hex(h) {
                            sb.links.insert(s.to_string(), link);
                        } else {
                            r.fail(format!("{}: link of {s} is not 32 bytes of hex", m.name));
                        }
                    }
                } else if l.starts_with("draw ") {
                    match parse_draw(l) {
                        Some(d) => sb.draws.push(d),
                        None => r.fail(format!("{}: cannot read the draw line {l:?}", m.name)),
                    }
                }
            }
            if let Some(k) = step {
                g.steps.insert(k, sb);
            }
        }
        for b in block(&body, "REVEAL") {
            for l in b.lines() {
                // link <stream> <k>: <hex>
                let Some(rest) = l.strip_prefix("link ") else { continue };
                let Some((head, h)) = rest.rsplit_once(": ") else { continue };
                let Some((s, k)) = head.rsplit_once(' ') else { continue };
                if let (Ok(k), Some(link)) = (k.parse::<u32>(), dice::from_hex(h)) {
                    g.revealed.entry(s.to_string()).or_default().insert(k, (link, m.name.clone()));
                }
            }
        }
        for b in block(&body, "JOURNAL") {
            let (mut seq, mut hash) = (None, None);
            for l in b.lines() {
                if let Some(v) = field(l, "entry") {
                    seq = v.parse::<u64>().ok();
                } else if let Some(v) = field(l, "hash") {
                    hash = Some(v.to_string());
                }
            }
            match (seq, hash) {
                (Some(k), Some(h)) if h.len() == 64 && h.bytes().all(|c| c.is_ascii_hexdigit()) => {
                    g.tips.push((k, h, m.name.clone()))
                }
                _ => r.fail(format!("{}: cannot read its JOURNAL block", m.name)),
            }
        }
        // The acknowledgement of an order mail: "[g] step k: accepted".
        if let Some(k) = step_of_ack(&m.subject) {
            if let Some(d) = m.date {
                if g.first_order.as_ref().map(|f| d < f.0).unwrap_or(true) {
                    g.first_order = Some((d, m.name.clone()));
                }
            }
            if let Some(s) = body.lines().find_map(|l| l.trim().strip_prefix("Your salt for this step: ")) {
                g.own_salts.insert(k, (s.trim().to_string(), m.name.clone()));
            }
        }
    }
    g
}

fn step_of_ack(subject: &str) -> Option<u32> {
    let i = subject.find("] step ")?;
    let rest = &subject[i + 7..];
    let (k, tail) = rest.split_once(':')?;
    tail.trim().starts_with("accepted").then(|| k.trim().parse().ok()).flatten()
}

/// Check everything the mails allow.
pub fn verify(mails: &[Mail]) -> Report {
    verify_against(mails, None)
}

/// The entry `seq` of the game's journal as published: in a public export
/// the entry carries its place in the game's own journal (`source`); in the
/// journal itself it is the entry.
fn published_hash(journal: &[crate::journal::Entry], seq: u64) -> Option<String> {
    let exported = journal.first().is_some_and(|e| e.body.contains_key("export"));
    journal.iter().find_map(|e| {
        if exported {
            let src = e.body.get("source")?;
            (src.get("seq")?.as_integer()? as u64 == seq).then(|| src.get("hash")?.as_str().map(str::to_string))?
        } else {
            (e.seq == seq).then(|| e.hash.clone())
        }
    })
}

/// [`verify`], and with the journal the moderator published (a public
/// export, or the whole journal once the game is over): every journal tip
/// the mails named must be in it with the same hash, so a history rewritten
/// after the mails went out is caught even if its chain was re-hashed.
pub fn verify_against(mails: &[Mail], journal: Option<&[crate::journal::Entry]>) -> Report {
    let mut r = Report::default();
    let g = gather(mails, &mut r);
    let mut last: Option<(u64, &str)> = None;
    for (seq, hash, m) in &g.tips {
        if let Some((k, lm)) = last {
            if *seq < k {
                r.fail(format!("{m} names journal entry {seq}, before entry {k} named by the earlier {lm}: the journal went backwards"));
            }
        }
        last = Some((*seq, m));
        match journal {
            None => {}
            Some(j) => match published_hash(j, *seq) {
                Some(h) if h == *hash => {}
                Some(_) => r.fail(format!(
                    "{m} names journal entry {seq} with hash {}…, but the published journal has another: the history was changed after this mail went out",
                    &hash[..16]
                )),
                None => r.fail(format!(
                    "{m} names journal entry {seq} ({}…), which the published journal does not hold: entries were removed or the history rewritten",
                    &hash[..16]
                )),
            },
        }
    }
    if !g.tips.is_empty() {
        match journal {
            Some(_) => r.ok(format!("{} journal tip(s) from these mails found in the published journal", g.tips.len())),
            None => r.ok(format!(
                "{} journal tip(s) in these mails (latest: entry {}); give the published journal with --journal to hold it to them",
                g.tips.len(),
                g.tips.last().map(|t| t.0).unwrap_or(0)
            )),
        }
    }
    let Some(game) = g.game.clone() else {
        r.fail("no welcome mail with the ANCHORS block among these mails: nothing to check against".into());
        return r;
    };
    r.ok(format!("game {game}, anchors for {} streams, chain length {}", g.anchors.len(), g.chain_len));
    if !g.renewed.is_empty() {
        r.ok(format!(
            "renewed chains after step(s) {}",
            g.renewed.keys().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
        ));
    }
    if let (Some((am, Some(ad))), Some((od, om))) = (&g.anchor_mail, &g.first_order) {
        if ad > od {
            r.fail(format!("the anchors ({am}) are dated after your first accepted orders ({om}): they were not committed in advance"));
        } else {
            r.ok("the anchors were mailed before your first orders".into());
        }
    }
    // Every link seen, per stream and step, must hash back to the one
    // before (or to the anchor).
    let mut links: BTreeMap<String, BTreeMap<u32, (Link, String)>> = g.revealed.clone();
    for (k, sb) in &g.steps {
        for (s, l) in &sb.links {
            let e = links.entry(s.clone()).or_default();
            if let Some((other, m)) = e.get(k) {
                if other != l {
                    r.fail(format!("step {k}, stream {s}: {} and {m} show two different links", sb.mail));
                }
            }
            e.insert(*k, (*l, sb.mail.clone()));
        }
    }
    let mut bad_links: Vec<(String, u32)> = Vec::new();
    for (s, by_step) in &links {
        let Some(anchor) = g.anchors.get(s) else {
            r.fail(format!("stream {s} has links but no anchor in the welcome mail"));
            continue;
        };
        let (mut prev_k, mut prev) = (0u32, *anchor);
        for (k, (l, m)) in by_step {
            // A step after a renewal hashes back to the renewed anchor.
            let renewal = g.renewed.range(..*k).next_back().and_then(|(b, a)| a.get(s).map(|a| (*b, *a)));
            if let Some((b, a)) = renewal.filter(|(b, _)| *b >= prev_k) {
                prev_k = b;
                prev = a;
            }
            let mut x = *l;
            for _ in 0..(k - prev_k) {
                x = dice::sha256(&x);
            }
            if x != prev {
                r.fail(format!(
                    "step {k}, stream {s} ({m}): the link does not hash back to {}",
                    if prev_k == 0 {
                        "the anchor".to_string()
                    } else if g.renewed.contains_key(&prev_k) {
                        format!("the anchor renewed after step {prev_k}")
                    } else {
                        format!("the link of step {prev_k}")
                    }
                ));
                bad_links.push((s.clone(), *k));
            }
            prev_k = *k;
            prev = *l;
        }
    }
    for (k, sb) in &g.steps {
        let mut notes = Vec::new();
        let mut ok = true;
        if let Some(role) = &g.role {
            match (sb.salts.get(role), g.own_salts.get(k)) {
                (None, _) => {
                    ok = false;
                    r.fail(format!("step {k} ({}): your salt ({role}) is not in the list", sb.mail));
                }
                (Some(shown), Some((yours, am))) if shown != yours => {
                    ok = false;
                    r.fail(format!(
                        "step {k} ({}): your salt was {yours:?} ({am}) but the list shows {shown:?}",
                        sb.mail
                    ));
                }
                _ => {}
            }
        }
        let mut by_stream: BTreeMap<&str, Vec<&Draw>> = BTreeMap::new();
        for d in &sb.draws {
            by_stream.entry(d.stream.as_str()).or_default().push(d);
        }
        for (s, ds) in by_stream {
            for (i, d) in ds.iter().enumerate() {
                if d.n != i as u32 {
                    ok = false;
                    r.fail(format!(
                        "step {k}, stream {s} ({}): draw counter {} where {i} was expected (a gap)",
                        sb.mail, d.n
                    ));
                }
            }
            if ds.iter().any(|d| d.declared) {
                notes.push(format!("{s}: {} declared, not verifiable", ds.len()));
                continue;
            }
            let Some(link) = sb.links.get(s) else {
                ok = false;
                r.fail(format!("step {k}, stream {s} ({}): draws shown without their link", sb.mail));
                continue;
            };
            if bad_links.contains(&(s.to_string(), *k)) {
                ok = false;
                continue;
            }
            let seed = dice::seed(&game, *k, s, link, &sb.salts);
            for (i, d) in ds.iter().enumerate() {
                let got = dice::regenerate(seed, &ds[..=i]);
                if got != d.result {
                    ok = false;
                    r.fail(format!(
                        "step {k}, stream {s}, draw {} ({}) in {}: shows {:?}, dice-v1 gives {:?}",
                        d.n, d.label, sb.mail, d.result, got
                    ));
                }
            }
            notes.push(format!("{s}: {} draw(s) regenerated", ds.len()));
        }
        if ok {
            r.ok(format!(
                "step {k}: verified ({})",
                if notes.is_empty() { "no draws".to_string() } else { notes.join("; ") }
            ));
        }
    }
    if g.steps.is_empty() {
        r.ok("no results mail among these mails: only the anchors were read".into());
    }
    r
}
