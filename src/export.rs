//! Public journals: what a moderator may publish of a game. Once the game
//! has ended everything but the players' addresses and private press goes
//! out, and audit replays it whole; during the game the still-hidden facts
//! (orders, private streams' links and draws, private events, the open
//! step's submissions) are withheld, and audit checks what is left: the
//! chain, every public link against its anchor, every public draw.

use crate::dice::{self, Draw};
use crate::journal::{self, Entry};

/// The kind of an export's stub for an entry it leaves out.
pub const WITHHELD: &str = "withheld";

/// The time of a stub while the game lasts.
const WITHHELD_AT: &str = "(withheld)";

/// Make the public journal of `entries` (a verified game journal).
pub fn export_public(entries: &[Entry]) -> Result<Vec<Entry>, String> {
    journal::verify_chain(entries).map_err(|(seq, m)| format!("entry {seq}: {m}"))?;
    // Ended, unless a rollback reopened the game after its end: then what
    // is still hidden stays withheld.
    let ended =
        entries.iter().rev().find(|e| e.kind == "ended" || e.kind == "rolled_back").is_some_and(|e| e.kind == "ended");
    let tip = entries.last().map(|e| e.hash.clone()).unwrap_or_default();
    let mut out = Vec::new();
    for e in entries {
        let mut b = e.body.clone();
        let keep = match e.kind.as_str() {
            "created" => {
                if let Some(toml::Value::Table(p)) = b.get_mut("players") {
                    let roles: Vec<String> = p.keys().cloned().collect();
                    for r in roles {
                        p.insert(r, toml::Value::String("(withheld)".into()));
                    }
                }
                b.remove("gm");
                let mut x = toml::Table::new();
                x.insert("source_tip".into(), toml::Value::String(tip.clone()));
                x.insert("source_entries".into(), toml::Value::Integer(entries.len() as i64));
                x.insert("redacted".into(), toml::Value::Boolean(!ended));
                b.insert("export".into(), toml::Value::Table(x));
                true
            }
            // The state a rollback restores holds what is hidden (block
            // strengths, policies) until the end; its step, reason and
            // what it voids are public.
            "rolled_back" => {
                if !ended {
                    b.insert("state".into(), toml::Value::String("(withheld)".into()));
                    b.insert("digest".into(), toml::Value::String("(withheld)".into()));
                }
                true
            }
            // Addresses and Message-IDs are the players' own, and an
            // observer's address theirs.
            "received" | "mail" | "undeliverable" | "observe" | "unobserve" => false,
            // Who took a role is public; their address is not.
            "join" => {
                if let Some(toml::Value::Array(a)) = b.get_mut("args") {
                    a.truncate(1);
                }
                true
            }
            "press" => b.get("to").and_then(|t| t.as_str()) == Some("all"),
            // Orders, salts and rejections are private until the end.
            "accepted" | "salt" | "rejected" => ended,
            "resolved" => {
                if !ended {
                    b.remove("orders");
                    b.insert("orders".into(), toml::Value::Table(toml::Table::new()));
                    if let Some(toml::Value::Table(l)) = b.get_mut("links") {
                        l.retain(|k, _| k == "public");
                    }
                    if let Some(toml::Value::Array(d)) = b.get_mut("draws") {
                        d.retain(|x| x.get("stream").and_then(|s| s.as_str()) == Some("public"));
                    }
                    if let Some(toml::Value::Array(ev)) = b.get_mut("events") {
                        ev.retain(|x| x.get("to").and_then(|s| s.as_str()) == Some("all"));
                    }
                    b.remove("digest");
                    b.insert("digest".into(), toml::Value::String("(withheld)".into()));
                }
                true
            }
            "moderator" => {
                // A replacement's address stays private.
                if b.get("action").and_then(|a| a.as_str()) == Some("replace") {
                    if let Some(toml::Value::Array(a)) = b.get_mut("args") {
                        a.truncate(1);
                    }
                }
                true
            }
            _ => true,
        };
        // Any other entry left out stays as a stub that holds nothing but
        // its place: every tip a player holds (docs/journal-v1.md) names
        // an entry of the export, so none goes unchecked, and one removed
        // from the end is missed. While the game lasts not even its time
        // is told (when a player wrote).
        let (kind, at) = if keep {
            (e.kind.clone(), e.at.clone())
        } else if e.kind == "mail" {
            // A letter's own record names the letter's digest, so no mail
            // can carry the tip of it: no player witnesses these, and they
            // are left out whole.
            continue;
        } else {
            b = toml::Table::new();
            (WITHHELD.to_string(), if ended { e.at.clone() } else { WITHHELD_AT.to_string() })
        };
        // Where the entry stands in the game's own journal: the tips
        // players received in their mails are checked against it.
        let mut src = toml::Table::new();
        src.insert("seq".into(), toml::Value::Integer(e.seq as i64));
        src.insert("hash".into(), toml::Value::String(e.hash.clone()));
        b.insert("source".into(), toml::Value::Table(src));
        out.push(Entry { seq: 0, at, kind, prev: String::new(), hash: String::new(), body: b });
    }
    // A rollback names the first entry it undoes by the game journal's
    // numbering; the export's is its own: the first entry kept from there.
    let numbering: Vec<u64> = out
        .iter()
        .map(|e| e.body.get("source").and_then(|s| s.get("seq")).and_then(|s| s.as_integer()).unwrap_or(0) as u64)
        .collect();
    for e in out.iter_mut().filter(|e| e.kind == "rolled_back") {
        if let Some(from) = e.body.get("voids_from").and_then(|v| v.as_integer()) {
            let at = numbering.iter().position(|s| *s >= from as u64).unwrap_or(numbering.len());
            e.body.insert("voids_from".into(), toml::Value::Integer(at as i64 + 1));
        }
    }
    let format = journal::Format::of(&out)?;
    let mut prev = journal::GENESIS.to_string();
    for (i, e) in out.iter_mut().enumerate() {
        e.seq = i as u64 + 1;
        e.prev = prev.clone();
        e.hash = e.compute_hash(format);
        prev = e.hash.clone();
    }
    Ok(out)
}

/// Is this the public export of a game still in progress?
pub fn redacted(entries: &[Entry]) -> bool {
    entries
        .first()
        .and_then(|e| e.body.get("export"))
        .and_then(|x| x.get("redacted"))
        .and_then(|r| r.as_bool())
        .unwrap_or(false)
}

/// What a redacted export verified.
#[derive(Debug, Default)]
pub struct Checked {
    pub game: String,
    pub steps: usize,
    pub links: usize,
    pub draws: usize,
}

/// Verify a redacted export: its chain, every public link against the
/// public anchor, every public draw regenerated. The first failure is named.
pub fn verify_public(entries: &[Entry]) -> Result<Checked, crate::audit::Mismatch> {
    let bad = |seq: u64, message: String| crate::audit::Mismatch { seq, message };
    journal::verify_chain(entries).map_err(|(seq, m)| bad(seq, m))?;
    let first = entries.first().ok_or_else(|| bad(0, "the journal is empty".into()))?;
    let c: crate::journal::kinds::Created = first.body().map_err(|m| bad(first.seq, m))?;
    let mut tip = c
        .anchors
        .get("public")
        .and_then(|a| dice::from_hex(a))
        .ok_or_else(|| bad(first.seq, "no public anchor".into()))?;
    let mut tip_step = 0u32;
    let mut out = Checked { game: c.game.clone(), ..Checked::default() };
    for e in entries.iter().filter(|e| e.kind == "resolved" || e.kind == "renewed") {
        if e.kind == "renewed" {
            // Fresh chains: the next public link hashes back to this anchor.
            let r: crate::journal::kinds::Renewed = e.body().map_err(|m| bad(e.seq, m))?;
            tip = r
                .anchors
                .get("public")
                .and_then(|a| dice::from_hex(a))
                .ok_or_else(|| bad(e.seq, "no public anchor in the renewal".into()))?;
            tip_step = r.base;
            continue;
        }
        let r: crate::journal::kinds::Resolved = e.body().map_err(|m| bad(e.seq, m))?;
        out.steps += 1;
        let Some(link) = r.links.get("public").and_then(|h| dice::from_hex(h)) else {
            if r.draws.is_empty() {
                continue;
            }
            return Err(bad(e.seq, format!("step {}: public draws without the public link", r.step)));
        };
        let mut x = link;
        for _ in tip_step..r.step {
            x = dice::sha256(&x);
        }
        if r.step <= tip_step || x != tip {
            return Err(bad(e.seq, format!("step {}: the public link does not hash back to the previous one", r.step)));
        }
        tip = link;
        tip_step = r.step;
        out.links += 1;
        let seed = dice::seed(&c.game, r.step, "public", &link, &r.salts);
        let draws: Vec<&Draw> = r.draws.iter().filter(|d| d.stream == "public" && !d.declared).collect();
        for (i, d) in draws.iter().enumerate() {
            if d.n != i as u32 {
                return Err(bad(e.seq, format!("step {}: public draw counter {} where {i} was expected", r.step, d.n)));
            }
            let got = dice::regenerate(seed, &draws[..=i]);
            if got != d.result {
                return Err(bad(
                    e.seq,
                    format!(
                        "step {}: public draw {} ({}) records {:?}, dice-v1 gives {:?}",
                        r.step, d.n, d.label, d.result, got
                    ),
                ));
            }
            out.draws += 1;
        }
    }
    Ok(out)
}
