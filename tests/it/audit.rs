//! `adjutant audit`: a journal played through the desk verifies, and
//! changing any single value in it (raw, or with the hash chain recomputed
//! to hide the edit) makes audit fail, naming the entry.

use crate::support::*;
use adjutant::journal::{self, Entry};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A game with set-up, moves, an Attack, an escape roll and salts.
pub fn played() -> (Table, PathBuf) {
    let mut t = Table::new("audit");
    t.send("austria", ALICE, "PLACE Laudon AT Riva\nSALT a1");
    t.send("france", BOB, "PLACE Bonaparte AT Verona\nSALT b1");
    t.pass();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Padova");
    t.pass();
    t.send("france", BOB, "MOVE Augereau, Dummy C TO Vicenza");
    t.pass();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Vicenza");
    t.pass();
    t.send("france", BOB, "ESCAPE TO Caldiero\nSALT b2");
    t.pass();
    let jp = t.dir.join("games/g1/journal.toml");
    (t, jp)
}

fn audit_cli(path: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("audit").arg(path).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

/// Change the first die of the first step that rolled one by one pip.
fn bump_first_die(es: &mut [Entry]) {
    let e = es
        .iter_mut()
        .find(|e| e.kind == "resolved" && e.body.get("draws").and_then(|d| d.as_array()).is_some_and(|a| !a.is_empty()))
        .expect("a step with a die roll");
    let d = e.body.get_mut("draws").unwrap().as_array_mut().unwrap()[0].as_table_mut().unwrap();
    let f = d["result"][0].as_integer().unwrap();
    d.insert("result".into(), toml::Value::Array(vec![toml::Value::Integer(f % 6 + 1)]));
}

/// Rewrite entries and recompute the chain, as a forger would.
pub(crate) fn rechain(entries: &mut [Entry]) -> String {
    let format = journal::Format::of(entries).unwrap();
    let mut prev = journal::GENESIS.to_string();
    let mut text = String::new();
    for e in entries.iter_mut() {
        e.prev = prev.clone();
        e.hash = e.compute_hash(format);
        prev = e.hash.clone();
    }
    for e in entries.iter() {
        text.push_str(&e.to_text());
    }
    text
}

#[test]
fn a_played_journal_verifies_with_statistics() {
    let (_t, jp) = played();
    let (code, out) = audit_cli(&jp);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("OK") && out.contains("d6: 1 rolls") && out.contains("chi-square"), "{out}");
}

#[test]
fn any_single_change_fails_audit() {
    let (t, jp) = played();
    let good = std::fs::read_to_string(&jp).unwrap();
    let entries = journal::read(&jp).unwrap();
    let escape = entries
        .iter()
        .rposition(|e| {
            e.kind == "resolved"
                && e.body.get("draws").and_then(|d| d.as_array()).map(|a| !a.is_empty()).unwrap_or(false)
        })
        .expect("an escape roll");
    let accepted = entries.iter().position(|e| e.kind == "accepted").unwrap();
    let tampered = t.dir.join("tampered.toml");

    // A raw edit breaks the hash chain at the edited entry.
    let face = entries[escape].body["draws"][0]["result"][0].as_integer().unwrap();
    let raw = good.replacen(&format!("result = [{face}]"), &format!("result = [{}]", face % 6 + 1), 1);
    assert_ne!(raw, good);
    std::fs::write(&tampered, &raw).unwrap();
    let (code, out) = audit_cli(&tampered);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("entry {}", entries[escape].seq)) && out.contains("hash mismatch"), "{out}");

    // Edits with the chain recomputed are caught by the replay.
    type Edit = Box<dyn Fn(&mut Entry)>;
    let cases: Vec<(&str, usize, Edit)> = vec![
        (
            "a die face",
            escape,
            Box::new(|e: &mut Entry| {
                let d = e.body.get_mut("draws").unwrap().as_array_mut().unwrap()[0].as_table_mut().unwrap();
                let f = d["result"][0].as_integer().unwrap();
                d.insert("result".into(), toml::Value::Array(vec![toml::Value::Integer(f % 6 + 1)]));
            }),
        ),
        (
            "an order",
            accepted,
            Box::new(|e: &mut Entry| {
                e.body.insert(
                    "lines".into(),
                    toml::Value::Array(vec![toml::Value::String("PLACE Laudon AT Rovereto".into())]),
                );
            }),
        ),
        (
            "a chain link",
            escape,
            Box::new(|e: &mut Entry| {
                e.body
                    .get_mut("links")
                    .unwrap()
                    .as_table_mut()
                    .unwrap()
                    .insert("public".into(), toml::Value::String("00".repeat(32)));
            }),
        ),
        (
            "a salt",
            escape,
            Box::new(|e: &mut Entry| {
                e.body
                    .get_mut("salts")
                    .unwrap()
                    .as_table_mut()
                    .unwrap()
                    .insert("france".into(), toml::Value::String("b3".into()));
            }),
        ),
        (
            "a state digest",
            escape,
            Box::new(|e: &mut Entry| {
                e.body.insert("digest".into(), toml::Value::String("ab".repeat(32)));
            }),
        ),
        (
            "an event",
            escape,
            Box::new(|e: &mut Entry| {
                let ev = e.body.get_mut("events").unwrap().as_array_mut().unwrap()[0].as_table_mut().unwrap();
                ev.insert("text".into(), toml::Value::String("France escapes in triumph.".into()));
            }),
        ),
    ];
    for (what, idx, edit) in cases {
        let mut es = entries.clone();
        edit(&mut es[idx]);
        std::fs::write(&tampered, rechain(&mut es)).unwrap();
        let (code, out) = audit_cli(&tampered);
        assert_eq!(code, 1, "changing {what} must fail audit: {out}");
        // An accepted order is only known to be wrong when the step that
        // used it is replayed; every other value fails at its own entry.
        let at = if what == "an order" {
            es.iter().skip(idx).find(|e| e.kind == "resolved").unwrap().seq
        } else {
            es[idx].seq
        };
        assert!(out.contains(&format!("FAILED at entry {at}:")), "changing {what}: {out}");
    }

    // Dropping an entry (the France salt) is caught too.
    let mut es: Vec<Entry> =
        entries.iter().filter(|e| !(e.kind == "salt" && e.body["salt"].as_str() == Some("b2"))).cloned().collect();
    for (i, e) in es.iter_mut().enumerate() {
        e.seq = i as u64 + 1;
    }
    std::fs::write(&tampered, rechain(&mut es)).unwrap();
    assert_eq!(audit_cli(&tampered).0, 1);
}

#[test]
fn a_lost_snapshot_is_rebuilt_from_the_journal() {
    let (t, _) = played();
    let before = t.digest();
    let state = t.dir.join("games/g1/state.toml");
    std::fs::remove_file(&state).unwrap();
    assert_eq!(t.digest(), before);
    // A snapshot behind the journal (as after a crash between the two) is
    // replaced by a replay: the journal wins.
    let l = t.desk.load("g1").unwrap();
    let old = std::fs::read_to_string(&state).unwrap();
    let stale = old.replace(&format!("seq = {}", l.journal.last_seq), &format!("seq = {}", l.journal.last_seq - 1));
    std::fs::write(&state, stale.replace("journal_len = ", "journal_len = 1")).unwrap();
    assert_eq!(t.digest(), before);
}

/// The spec is implementable without our Rust: scripts/verify_dice.py, in
/// Python's standard library alone, verifies the same journal, and fails on
/// a die changed by one pip.
#[test]
fn the_independent_python_verifier_agrees() {
    let (t, jp) = played();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/verify_dice.py");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new("python3").arg(script).args(args).output().expect("python3 runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, out) = run(&["--vectors".as_ref()]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = run(&[jp.as_os_str()]);
    assert_eq!(code, 0, "{out}");
    let mut es = journal::read(&jp).unwrap();
    bump_first_die(&mut es);
    let tampered = t.dir.join("py-tampered.toml");
    std::fs::write(&tampered, rechain(&mut es)).unwrap();
    let (code, out) = run(&[tampered.as_os_str()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("dice-v1 gives"), "{out}");
    // And from the mail a player received: anchors, links and draws.
    let (code, out) = run(&["--mail".as_ref(), t.desk.outbox_of(BOB).as_os_str()]);
    assert_eq!(code, 0, "{out}");
}

/// A journal the moderator may publish: during the game the hidden facts
/// are withheld and audit checks what is left; after the end it replays
/// whole. Addresses never go out.
#[test]
fn the_public_export_withholds_what_is_hidden_and_still_verifies() {
    let (mut t, jp) = played();
    let export = t.dir.join("public.toml");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("audit").args(args).output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
    };
    let (code, out) = run(&[jp.as_os_str(), "--export-public".as_ref(), export.as_os_str()]);
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(&export).unwrap();
    for hidden in [ALICE, BOB, CAROL, "MOVE Provera", "PLACE Laudon", "You drew"] {
        assert!(!text.contains(hidden), "the public export shows {hidden:?}");
    }
    for e in journal::read(&export).unwrap().iter().filter(|e| e.kind == "resolved") {
        let links = e.body["links"].as_table().unwrap();
        assert!(links.keys().all(|k| k == "public"), "only public links go out: {links:?}");
    }
    let (code, out) = run(&[export.as_os_str()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("public export") && out.contains("1 public draws") && out.contains("not checked"), "{out}");
    // A public draw changed (and the chain recomputed) is caught.
    let mut es = journal::read(&export).unwrap();
    bump_first_die(&mut es);
    let forged = t.dir.join("public-forged.toml");
    std::fs::write(&forged, rechain(&mut es)).unwrap();
    let (code, out) = run(&[forged.as_os_str()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("dice-v1 gives"), "{out}");
    // After the end the export is whole, and audit replays it.
    t.send("gm", CAROL, "END");
    t.pass();
    let (code, _) = run(&[jp.as_os_str(), "--export-public".as_ref(), export.as_os_str()]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&export).unwrap();
    assert!(text.contains("MOVE Provera") && !text.contains(ALICE), "orders go out after the end, addresses never");
    let (code, out) = run(&[export.as_os_str()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("every state digest verified"), "{out}");
}

/// The fairness report: one self-contained page (no script, nothing
/// fetched) with the tables and the inline SVG plots, for a game or for a
/// whole data folder.
#[test]
fn the_fairness_report_is_a_self_contained_page() {
    let (t, jp) = played();
    let out = t.dir.join("report.html");
    let run = |what: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("audit").arg(what).arg("--report").arg(&out).output().unwrap()
    };
    assert!(run(&jp).status.success());
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert!(
        html.contains("d6: 1 rolls") && html.contains("chi-square") && html.contains("Luck by side and by player"),
        "{html}"
    );
    assert!(html.matches("<svg").count() >= 2, "a histogram and a luck curve");
    assert!(
        !html.contains("<script") && !html.contains("src=\"http") && !html.contains("href=\"http"),
        "nothing to fetch, nothing to run"
    );
    assert!(run(&t.dir).status.success(), "a report over the whole data folder");
    assert!(std::fs::read_to_string(&out).unwrap().contains("Games: g1"));
}

/// The report opens and draws in a real browser: headless Chromium (Debian's
/// package, installed by scripts/test.sh) renders it with the network shut,
/// and the screenshot holds the plots' bars.
#[test]
fn the_fairness_report_draws_in_headless_chromium() {
    if !crate::support::have_chromium() {
        return;
    }
    let (t, jp) = played();
    let html = t.dir.join("report.html");
    let shot = t.dir.join("report.png");
    assert!(Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("audit")
        .arg(&jp)
        .arg("--report")
        .arg(&html)
        .output()
        .unwrap()
        .status
        .success());
    crate::support::chromium_screenshot(&html, &shot);
    let n = crate::support::ink(&shot, "2c5aa0");
    assert!(n > 500, "the histogram's bars are drawn ({n} pixels of their colour)");
}

#[test]
fn audit_into_a_closed_pipe_ends_quietly() {
    let (t, _) = played();
    let jp = t.dir.join("games").join(&t.game).join("journal.toml");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' audit '{}' | true", env!("CARGO_BIN_EXE_adjutant"), jp.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
