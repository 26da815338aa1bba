//! `adjutant verify`: a player checks the dice from the mails they got, and
//! every kind of tampering is named (step and mail) with a non-zero exit.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bob's mails as plain .eml files (decoded bodies), so that a test can
/// edit their text as a forger would.
pub fn bobs_mails(t: &Table, dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let md = adjutant::mail::maildir::Maildir::open(&t.desk.outbox_of(BOB)).unwrap();
    let mut out = Vec::new();
    for (i, f) in md.list_new().unwrap().iter().enumerate() {
        let raw = std::fs::read(f).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
        let date = m.date().map(|d| d.to_rfc822()).unwrap_or_default();
        let text = format!(
            "From: <game@adjutant.local>\r\nTo: <{BOB}>\r\nSubject: {}\r\nDate: {date}\r\nMessage-ID: <{}>\r\nX-Adjutant-Game: {}\r\nX-Adjutant-Step: {}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
            m.subject().unwrap_or(""),
            m.message_id().unwrap_or(""),
            m.header_raw("X-Adjutant-Game").unwrap_or("").trim(),
            m.header_raw("X-Adjutant-Step").unwrap_or("").trim(),
            m.body_text(0).unwrap_or_default()
        );
        let p = dir.join(format!("{i:03}.eml"));
        std::fs::write(&p, text).unwrap();
        out.push(p);
    }
    out
}

fn verify(dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("verify").arg(dir).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

/// Edit the first mail whose text contains `find`: replace it by `with`.
fn tamper(files: &[PathBuf], find: &str, with: &str) -> String {
    for f in files {
        let s = std::fs::read_to_string(f).unwrap();
        if s.contains(find) {
            std::fs::write(f, s.replacen(find, with, 1)).unwrap();
            return f.file_name().unwrap().to_string_lossy().to_string();
        }
    }
    panic!("no mail contains {find:?}");
}

#[test]
fn a_player_verifies_the_dice_from_their_mail_and_tampering_is_named() {
    let (t, _) = crate::audit::played();
    let clean = t.dir.join("bob-clean");
    bobs_mails(&t, &clean);
    let (code, out) = verify(&clean);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("sent before the first accepted orders")
            && out.contains(" draw(s) regenerated from their seeds")
            && !out.contains(" 0 draw(s) regenerated"),
        "{out}"
    );

    // The escape roll's step, its link and draw as Bob saw them.
    let text: String =
        std::fs::read_dir(&clean).unwrap().flatten().map(|e| std::fs::read_to_string(e.path()).unwrap()).collect();
    let draw = text.lines().find(|l| l.starts_with("draw public 0 die 6 ")).expect("an escape roll").to_string();
    let face: u32 = draw.split_whitespace().nth(5).unwrap().parse().unwrap();
    let step_line = |needle: &str| {
        let i = text.find(needle).unwrap();
        text[..i].lines().rev().find(|l| l.starts_with("step: ")).unwrap().trim_start_matches("step: ").to_string()
    };
    let step = step_line(&draw);
    let link = text.lines().filter(|l| l.starts_with("link public: ")).nth(1).unwrap().to_string();

    type Edit = Box<dyn Fn(&[PathBuf]) -> String>;
    let cases: Vec<(&str, Edit, String)> = vec![
        (
            "a link that does not hash back",
            Box::new(move |f: &[PathBuf]| tamper(f, &link, &format!("link public: {}", "ab".repeat(32)))),
            "does not hash back".into(),
        ),
        (
            "a draw changed by one pip",
            Box::new({
                let draw = draw.clone();
                move |f: &[PathBuf]| {
                    tamper(f, &draw, &draw.replacen(&format!(" {face} |"), &format!(" {} |", face % 6 + 1), 1))
                }
            }),
            format!("step {step}, stream public, draw 0"),
        ),
        (
            "a skipped draw counter",
            Box::new({
                let draw = draw.clone();
                move |f: &[PathBuf]| tamper(f, &draw, &draw.replacen("draw public 0 ", "draw public 1 ", 1))
            }),
            "a gap".into(),
        ),
        (
            "a salt dropped",
            Box::new(|f: &[PathBuf]| tamper(f, "salt france: b2\n", "")),
            "your salt (france) is not in the list".into(),
        ),
        (
            // The order mails were sent in is the journal's, which their
            // Message-IDs name; a Date says nothing (a pass sends many in
            // one second).
            "anchors sent after the first orders",
            Box::new(|f: &[PathBuf]| {
                let welcome =
                    f.iter().find(|p| std::fs::read_to_string(p).unwrap().contains("BEGIN ADJUTANT ANCHORS")).unwrap();
                let s = std::fs::read_to_string(welcome).unwrap();
                let id = s.lines().find(|l| l.starts_with("Message-ID: ")).unwrap().to_string();
                let (game, rest) = id.trim_start_matches("Message-ID: <").split_once('.').unwrap();
                let later = format!("Message-ID: <{game}.99999-00000000.{}", rest.split_once('.').unwrap().1);
                std::fs::write(welcome, s.replacen(&id, &later, 1)).unwrap();
                welcome.file_name().unwrap().to_string_lossy().to_string()
            }),
            "were sent after your first accepted orders".into(),
        ),
    ];
    for (i, (what, edit, expect)) in cases.iter().enumerate() {
        let dir = t.dir.join(format!("bob-tampered-{i}"));
        let files = bobs_mails(&t, &dir);
        let mail = edit(&files);
        let (code, out) = verify(&dir);
        assert_eq!(code, 1, "{what} must fail: {out}");
        assert!(out.contains(expect.as_str()), "{what}: expected {expect:?} in:\n{out}");
        assert!(
            out.contains(&mail) || what.contains("salt") || what.contains("anchor"),
            "{what}: the mail {mail} is named:\n{out}"
        );
    }
}

/// `adjutant verify --journal PUBLISHED MAILS`.
fn verify_against(dir: &Path, journal: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("verify")
        .arg("--journal")
        .arg(journal)
        .arg(dir)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

/// Rewrite entries and recompute the chain, as a forger with the disk
/// would: the journal audits again, on its own.
fn rehash(entries: &mut [adjutant::journal::Entry]) {
    let format = adjutant::journal::Format::of(entries).unwrap();
    let mut prev = adjutant::journal::GENESIS.to_string();
    for e in entries.iter_mut() {
        e.prev = prev.clone();
        e.hash = e.compute_hash(format);
        prev = e.hash.clone();
    }
}

#[test]
fn a_rehashed_history_is_caught_by_the_tips_in_the_players_mails() {
    let (mut t, jp) = crate::audit::played();
    t.send("austria", ALICE, "PRESS all a word to everyone");
    t.pass();
    // The deadline passes: the next results mail names a tip after the press.
    t.now += chrono::Duration::days(4);
    t.pass();
    // France resigns: the game-over mail names the tip after the end.
    t.send("france", BOB, "RESIGN");
    t.pass();
    assert!(t.desk.load(&t.game).unwrap().game.ended);
    let mails = t.dir.join("bob-tips");
    let files = bobs_mails(&t, &mails);
    let tips = files.iter().filter(|f| std::fs::read_to_string(f).unwrap().contains("BEGIN ADJUTANT JOURNAL")).count();
    assert!(tips >= 4, "every results mail names the journal's tip ({tips})");
    // The honest export holds every tip.
    let export = t.dir.join("public.toml");
    let (ok, out) = {
        let o = Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .arg("audit")
            .arg(&jp)
            .arg("--export-public")
            .arg(&export)
            .output()
            .unwrap();
        (o.status.success(), String::from_utf8_lossy(&o.stdout).to_string())
    };
    assert!(ok, "{out}");
    let (code, out) = verify_against(&mails, &export);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("holds every tip of"), "{out}");
    let (code, out) = verify_against(&mails, &jp);
    assert_eq!(code, 0, "the whole journal too: {out}");

    // Each edit, re-hashed so that the journal audits on its own, is
    // caught from Bob's mails alone.
    type Edit = fn(&mut adjutant::journal::Entry) -> bool;
    let edits: [(&str, Edit); 5] = [
        ("a player's address", |e| {
            e.kind == "created" && {
                e.body["players"].as_table_mut().unwrap().insert("france".into(), "mallory@example.org".into());
                true
            }
        }),
        ("a press", |e| {
            e.kind == "press" && {
                e.body.insert("text".into(), "something else".into());
                true
            }
        }),
        ("a deadline", |e| {
            e.kind == "deadline" && {
                e.body.insert("args".into(), toml::Value::Array(vec!["2030-01-01T00:00:00+00:00".into()]));
                true
            }
        }),
        ("the time of an order", |e| {
            e.kind == "accepted" && {
                e.at = "2026-01-01T00:00:00+00:00".into();
                true
            }
        }),
        ("the end", |e| {
            e.kind == "ended" && {
                e.body.insert("reason".into(), "something else".into());
                true
            }
        }),
    ];
    for (what, edit) in edits {
        let mut es = adjutant::journal::read(&jp).unwrap();
        assert!(es.iter_mut().any(edit), "the journal has {what}");
        rehash(&mut es);
        let forged = t.dir.join("forged.toml");
        std::fs::write(&forged, es.iter().map(|e| e.to_text()).collect::<String>()).unwrap();
        assert!(adjutant::journal::verify_chain(&es).is_ok(), "the forged chain holds on its own");
        let (code, out) = verify_against(&mails, &forged);
        assert_eq!(code, 1, "{what}: {out}");
        assert!(
            out.contains("the history was changed")
                || out.contains("does not hold")
                || out.contains("removed from its end"),
            "{what}: {out}"
        );
    }
}
