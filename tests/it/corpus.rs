//! The reply corpus (tests/corpus/): replies produced by real mail clients
//! (scripts/client-corpus.sh) and faithful copies of what other clients
//! send, each with what must be read of it. Every reply goes through the
//! desk of a game made with the corpus's server key, so its reply address
//! is the one the clients answered: every one is accepted with exactly its
//! orders, its free text is quoted back, and every automatic mail goes
//! unanswered.

use crate::support::{temp_dir, ALICE, BOB, CAROL};
use adjutant::config::Config;
use adjutant::desk::{Desk, NewGame};
use adjutant::mail::parse;
use chrono::{TimeZone, Utc};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    client: String,
    layout: String,
    #[serde(default)]
    lines: Vec<String>,
    #[serde(default)]
    ignored: Vec<String>,
    #[serde(default)]
    automatic: bool,
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Every (mail, expectation) of the corpus, by name.
fn replies() -> Vec<(String, Vec<u8>, Expect)> {
    let dir = corpus().join("replies");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/corpus/replies")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            let raw = std::fs::read(&p).unwrap();
            let text = std::fs::read_to_string(p.with_extension("toml")).unwrap_or_else(|e| panic!("{name}.toml: {e}"));
            let exp: Expect = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}.toml: {e}"));
            (name, raw, exp)
        })
        .collect()
}

/// A desk holding the corpus game, as the clients saw it.
fn corpus_desk(tag: &str) -> (PathBuf, Desk) {
    let dir = temp_dir(tag);
    std::fs::copy(corpus().join("server.key"), dir.join("server.key")).unwrap();
    let desk = Desk::open(&dir, Config::default()).unwrap();
    let req = NewGame {
        gm: Some(CAROL.into()),
        deadline: Some("72h".into()),
        id: Some("corpus".into()),
        ..NewGame::new("mantua", vec![("austria".into(), ALICE.into()), ("france".into(), BOB.into())])
    };
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let mut entropy = crate::support::fixed_entropy();
    desk.create(&req, now, &mut entropy).unwrap();
    desk.deliver().unwrap();
    (dir, desk)
}

/// The mails in Alice's outbox, newest last, as (subject, body).
fn alice_mails(desk: &Desk) -> Vec<(String, String)> {
    crate::support::outbox(desk, ALICE)
}

/// The accepted lines an acknowledgement lists.
fn acknowledged(body: &str) -> Vec<String> {
    body.lines()
        .skip_while(|l| !l.contains("are accepted"))
        .skip(1)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn the_reader_finds_exactly_each_replys_own_lines() {
    let all = replies();
    assert!(all.len() >= 30, "the corpus holds {} replies", all.len());
    let mut failures = Vec::new();
    for (name, raw, exp) in &all {
        let inb = parse::parse(raw);
        if exp.automatic {
            if inb.automatic.is_none() {
                failures.push(format!("{name} ({}): not seen as automatic", exp.client));
            }
            continue;
        }
        let read: Vec<&str> = inb.lines.iter().map(|(_, l)| l.as_str()).collect();
        let orders: Vec<&str> = read.iter().copied().filter(|l| !exp.ignored.iter().any(|i| i == l)).collect();
        let free: Vec<&str> = read.iter().copied().filter(|l| exp.ignored.iter().any(|i| i == l)).collect();
        if orders != exp.lines || free != exp.ignored {
            failures.push(format!(
                "{name} ({}, {}):\n  read:     {read:?}\n  expected: {:?} + ignored {:?}",
                exp.client, exp.layout, exp.lines, exp.ignored
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} replies misread:\n{}", failures.len(), all.len(), failures.join("\n"));
}

#[test]
fn every_reply_is_accepted_through_the_desk_and_automatic_mail_unanswered() {
    let mut failures = Vec::new();
    // One desk for the whole corpus: each reply replaces the previous
    // submission for the step, so each is judged alone.
    let (dir, desk) = corpus_desk("corpus");
    let mut now = Utc.with_ymd_and_hms(2026, 3, 1, 13, 0, 0).unwrap();
    for (name, raw, exp) in replies() {
        now += chrono::Duration::seconds(10);
        let before = alice_mails(&desk).len();
        desk.post(&raw, now).unwrap();
        let r = desk.run_once(now).unwrap();
        let mails = alice_mails(&desk);
        if exp.automatic {
            if r.dropped != 1 || mails.len() != before {
                failures.push(format!("{name}: an automatic mail was answered ({r:?})"));
            }
            continue;
        }
        let Some((subject, body)) = mails.get(before..).and_then(|m| m.first()).cloned() else {
            failures.push(format!("{name}: no reply ({r:?})"));
            continue;
        };
        if r.accepted != 1 || !subject.contains("accepted") || subject.contains("NOT") {
            failures.push(format!("{name} ({}): {subject}\n{body}", exp.client));
            continue;
        }
        // The orders the ack lists are those of the expected lines (the
        // desk's commands, SALT and PRESS, are not orders).
        let expected: Vec<String> = exp
            .lines
            .iter()
            .filter(|l| !["SALT", "PRESS", "HELP", "STATUS", "VIEW"].iter().any(|c| l.to_uppercase().starts_with(c)))
            .map(|l| l.to_uppercase())
            .collect();
        let got: Vec<String> = acknowledged(&body).iter().map(|l| l.to_uppercase()).collect();
        if got != expected {
            failures.push(format!("{name}: acknowledged {got:?}, expected {expected:?}"));
        }
        for i in &exp.ignored {
            if !body.contains(&format!("\"{i}\"")) {
                failures.push(format!("{name}: the ack does not quote back {i:?}:\n{body}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_corpus_names_its_real_clients() {
    // The real-client part is produced by scripts/client-corpus.sh; each
    // file says which client made it.
    let real: Vec<String> =
        replies().iter().filter(|(_, _, e)| e.client.contains("(real)")).map(|r| r.0.clone()).collect();
    for client in ["mutt", "neomutt", "s-nail", "alpine"] {
        assert!(real.iter().any(|n| n.starts_with(client)), "no real {client} reply in tests/corpus/replies");
    }
    assert!(Path::new(&corpus().join("prompt-austria.eml")).exists());
}
