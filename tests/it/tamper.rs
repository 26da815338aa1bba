//! The operator's disk tampered with (DESIGN 5, issue 13): a journal cut at
//! an entry boundary, a forged snapshot, changed or missing secrets. Each is
//! reported or refused by name; none lets the game go on from a false
//! history or another player play a side.

use crate::support::*;
use adjutant::desk::Desk;
use std::path::PathBuf;

fn journal(t: &Table) -> PathBuf {
    t.dir.join("games").join(&t.game).join("journal.toml")
}

/// `adjutant --data DIR audit GAME`: (success, what it printed).
fn audit_id(t: &Table) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("--data")
        .arg(&t.dir)
        .arg("audit")
        .arg(&t.game)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).to_string())
}

#[test]
fn a_journal_cut_at_an_entry_boundary_is_reported_by_audit_and_refused_by_the_daemon() {
    let mut t = Table::new("cut");
    t.setup();
    t.send("austria", ALICE, "SALT before-the-cut");
    t.pass();
    assert!(audit_id(&t).0, "{}", audit_id(&t).1);
    // Cut the last two entries off at an entry boundary: the journal still
    // parses and its chain is intact.
    let p = journal(&t);
    let text = std::fs::read_to_string(&p).unwrap();
    let mut cut = text.len();
    for _ in 0..2 {
        cut = text[..cut - 1].rfind("[[entry]]").unwrap();
    }
    std::fs::write(&p, &text[..cut]).unwrap();
    assert!(adjutant::journal::verify_chain(&adjutant::journal::read(&p).unwrap()).is_ok());
    let (ok, out) = audit_id(&t);
    assert!(!ok && out.contains("cut off"), "{out}");
    // The daemon does not carry on from the shorter history: the next mail
    // for the game is set aside, nothing is appended, nothing is sent.
    let shortened = std::fs::read(&p).unwrap();
    let before = t.mails(ALICE).len();
    t.send("austria", ALICE, "STATUS");
    let r = t.pass();
    assert_eq!(r.quarantined, 1, "{r:?}");
    assert_eq!(std::fs::read(&p).unwrap(), shortened, "nothing appended to the cut journal");
    assert_eq!(t.mails(ALICE).len(), before, "no reply from a cut history");
    // The moderator is told, once, why and where the mail waits.
    let notices: Vec<_> = t.mails(CAROL).into_iter().filter(|m| m.0.contains("a mail was set aside")).collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].1.contains("cut off") && notices[0].1.contains("quarantine"), "{}", notices[0].1);
    let e = t.desk.load(&t.game).err().expect("refused").to_string();
    assert!(e.contains("cut off") && e.contains(".tip"), "{e}");
    // The journal put back, the game goes on.
    std::fs::write(&p, &text).unwrap();
    t.send("austria", ALICE, "STATUS");
    t.pass();
    assert_eq!(t.mails(ALICE).len(), before + 1);
}

#[test]
fn a_partial_last_entry_is_cut_but_a_whole_vouched_entry_never_is() {
    let mut t = Table::new("partial");
    t.setup();
    let p = journal(&t);
    let whole = std::fs::read_to_string(&p).unwrap();
    // The unsynced tail of a write that never finished: cut, kept aside.
    std::fs::write(&p, format!("{whole}[[entry]]\nat = \"2026-")).unwrap();
    std::fs::remove_file(t.dir.join("games").join(&t.game).join("state.toml")).unwrap();
    t.desk.load(&t.game).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), whole);
    // A last entry that adjutant wrote whole, damaged: left for a person.
    let last = whole.rfind("[[entry]]").unwrap();
    let damaged = format!("{}[[entry]]\nat = \"broken", &whole[..last]);
    std::fs::write(&p, &damaged).unwrap();
    std::fs::remove_file(t.dir.join("games").join(&t.game).join("state.toml")).unwrap();
    assert!(t.desk.load(&t.game).is_err());
    assert_eq!(std::fs::read_to_string(&p).unwrap(), damaged, "no whole entry dropped");
}

#[test]
fn a_forged_snapshot_is_rebuilt_and_cannot_change_who_plays_a_side() {
    let mut t = Table::new("forged");
    t.setup();
    let sp = t.dir.join("games").join(&t.game).join("state.toml");
    let text = std::fs::read_to_string(&sp).unwrap();
    assert!(text.contains(BOB));
    let mallory = "mallory@example.org";
    std::fs::write(&sp, text.replace(BOB, mallory)).unwrap();
    let l = t.desk.load(&t.game).unwrap();
    assert_eq!(l.desk.players["france"], BOB, "players come from the journal");
    assert!(!std::fs::read_to_string(&sp).unwrap().contains(mallory), "the snapshot was rewritten");
    // Mallory, with France's reply address, is refused.
    std::fs::write(&sp, std::fs::read_to_string(&sp).unwrap().replace(BOB, mallory)).unwrap();
    let before = t.journal_len();
    t.send("france", mallory, "PRESS austria hello");
    t.pass();
    let es = adjutant::journal::read(&journal(&t)).unwrap();
    assert!(es[before..]
        .iter()
        .any(|e| e.kind == "received" && e.body.get("verdict").and_then(|v| v.as_str()) == Some("refused")));
    assert!(!es.iter().any(|e| e.kind == "press"), "no press from the forger");
}

#[test]
fn missing_or_changed_secrets_fail_loudly() {
    let mut t = Table::new("secrets");
    t.setup();
    // A changed chain top: no link that does not hash back is published.
    let sp = t.dir.join("games").join(&t.game).join("secrets.toml");
    let good = std::fs::read_to_string(&sp).unwrap();
    let mut sec: toml::Table = toml::from_str(&good).unwrap();
    let tops = sec.get_mut("tops").unwrap().as_table_mut().unwrap();
    tops.insert("public".into(), toml::Value::String("11".repeat(32)));
    sec.remove("checkpoints");
    std::fs::write(&sp, toml::to_string(&sec).unwrap()).unwrap();
    let before = t.journal_len();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Padova");
    t.pass();
    assert_eq!(t.step(), 2, "step 2 did not resolve");
    let es = adjutant::journal::read(&journal(&t)).unwrap();
    assert!(!es[before..].iter().any(|e| e.kind == "resolved"));
    // Restored, it resolves.
    std::fs::write(&sp, &good).unwrap();
    t.now += chrono::Duration::days(10);
    t.pass();
    assert!(t.step() > 2);
    // Missing: the daemon will not start, and says which file.
    std::fs::remove_file(&sp).unwrap();
    let e = t.desk.check_games().expect_err("refused").to_string();
    assert!(e.contains("secrets.toml") && e.contains("Restore"), "{e}");
    std::fs::write(&sp, &good).unwrap();
    // A deleted server key is not silently made again while games exist.
    let kp = t.dir.join("server.key");
    let key = std::fs::read(&kp).unwrap();
    std::fs::remove_file(&kp).unwrap();
    let e = Desk::open(&t.dir, adjutant::config::Config::default()).err().expect("refused").to_string();
    assert!(e.contains("server.key") && e.contains("reply token"), "{e}");
    assert!(!kp.exists());
    std::fs::write(&kp, key).unwrap();
}
