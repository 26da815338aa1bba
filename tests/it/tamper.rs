//! The operator's disk tampered with (docs/journal-v1.md, the tip): a journal cut at
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

/// Mail waiting in the local inbox, unhandled.
fn waiting(t: &Table) -> usize {
    std::fs::read_dir(t.dir.join("mail/inbox/new")).unwrap().count()
}

/// The moderator's notices that the game is held.
fn held_notices(t: &Table) -> Vec<(String, String)> {
    t.mails(CAROL).into_iter().filter(|m| m.0.contains("the game is held")).collect()
}

#[test]
fn a_journal_cut_at_an_entry_boundary_is_reported_by_audit_and_held_by_the_daemon() {
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
    // for the game waits in the inbox, nothing is appended, nothing is
    // sent, and nothing is set aside.
    let shortened = std::fs::read(&p).unwrap();
    let before = t.mails(ALICE).len();
    t.send("austria", ALICE, "STATUS");
    let r = t.pass();
    assert_eq!(r.quarantined, 0, "{r:?}");
    assert_eq!(waiting(&t), 1, "the mail waits");
    t.pass();
    assert_eq!(std::fs::read(&p).unwrap(), shortened, "nothing appended to the cut journal");
    assert_eq!(t.mails(ALICE).len(), before, "no reply from a cut history");
    // The moderator is told, once over two passes, why and what to do.
    let notices = held_notices(&t);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].1.contains("cut off") && notices[0].1.contains("REANCHOR"), "{}", notices[0].1);
    let e = t.desk.load(&t.game).err().expect("refused").to_string();
    assert!(e.contains("cut off") && e.contains(".tip"), "{e}");
    // The journal put back, the waiting mail is answered and the game goes on.
    std::fs::write(&p, &text).unwrap();
    t.pass();
    assert_eq!(waiting(&t), 0);
    assert_eq!(t.mails(ALICE).len(), before + 1);
}

/// A game of this adjutant keeps its tip from its first entry: a journal
/// cut and its tip file deleted with it is reported by audit, an ended
/// game is not reopened, and only the moderator's REANCHOR (journaled,
/// and told to every player) lets the game go on from the shorter history.
#[test]
fn a_cut_journal_without_its_tip_is_held_until_the_moderator_reanchors_it() {
    let mut t = Table::new("lost-tip");
    t.setup();
    t.send("gm", CAROL, "END austria the besiegers withdrew");
    t.pass();
    assert!(t.desk.load(&t.game).unwrap().game.ended);
    // Cut the end (the `ended` entry among the cut) and delete the tip.
    let p = journal(&t);
    let es = adjutant::journal::read(&p).unwrap();
    let ended = es.iter().position(|e| e.kind == "ended").unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    let mut cut = text.len();
    for _ in ended..es.len() {
        cut = text[..cut - 1].rfind("[[entry]]").unwrap();
    }
    std::fs::write(&p, &text[..cut]).unwrap();
    let tip = t.dir.join("secrets").join(format!("{}.tip", t.game));
    std::fs::remove_file(&tip).unwrap();
    let (ok, out) = audit_id(&t);
    assert!(!ok && out.contains(".tip is missing") && out.contains("REANCHOR"), "{out}");
    // The daemon does not reopen the ended game.
    let before = (t.mails(ALICE).len(), t.mails(BOB).len());
    t.send("austria", ALICE, "STATUS");
    t.now += chrono::Duration::days(10);
    t.pass();
    assert_eq!(waiting(&t), 1);
    assert_eq!((t.mails(ALICE).len(), t.mails(BOB).len()), before, "nothing sent to players");
    assert!(!tip.exists(), "no tip written for the cut journal");
    assert_eq!(held_notices(&t).len(), 1);
    // A player's REANCHOR is not read; the moderator's needs a reason.
    t.send("austria", ALICE, "REANCHOR let us go on");
    t.send("gm", CAROL, "REANCHOR");
    t.pass();
    assert_eq!(waiting(&t), 2, "the players' mails wait");
    assert!(t.last(CAROL).1.contains("REANCHOR needs a reason"), "{:?}", t.last(CAROL));
    assert!(!tip.exists());
    // The moderator's REANCHOR: journaled, every player told, the game goes
    // on from the shorter history, and the waiting mail is answered.
    let len = adjutant::journal::read(&p).unwrap().len();
    t.send("gm", CAROL, "REANCHOR the data folder was restored from an old backup");
    t.pass();
    let es = adjutant::journal::read(&p).unwrap();
    let r = es.iter().find(|e| e.kind == "reanchored").expect("journaled");
    assert_eq!(r.body["entry"].as_integer(), Some(len as i64));
    assert_eq!(r.body["by"].as_str(), Some("gm"));
    for who in [ALICE, BOB, CAROL] {
        assert!(
            t.mails(who).iter().any(|m| m.0.contains("re-anchored at entry") && m.1.contains("old backup")),
            "{who}"
        );
    }
    assert!(audit_id(&t).0, "{}", audit_id(&t).1);
    assert!(!t.desk.load(&t.game).unwrap().game.ended, "the moderator reopened it, in the open");
    t.pass();
    assert_eq!(waiting(&t), 0, "the waiting mails were handled");
    // Bob's mails show the cut: his game-over mail names an entry the
    // journal no longer holds.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("verify")
        .arg("--journal")
        .arg(&p)
        .arg(t.desk.outbox_of(BOB))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("game over"), "the game-over mail is named: {text}");
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
    // Told as damaged, not as cut (which REANCHOR could not mend).
    let e = t.desk.load(&t.game).err().expect("refused").to_string();
    assert!(e.contains("cannot parse journal") && !e.contains("cut off"), "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), damaged, "no whole entry dropped");
    // So is an entry damaged in the middle of the journal, which the
    // journal read entry by entry stops at.
    let first = whole.find("[[entry]]").unwrap();
    let second = first + 1 + whole[first + 1..].find("[[entry]]").unwrap();
    let middle = format!("{}[[entry]]\nat = \"broken\n{}", &whole[..first], &whole[second..]);
    std::fs::write(&p, &middle).unwrap();
    let e = t.desk.load(&t.game).err().expect("refused").to_string();
    assert!(e.contains("cannot parse journal") && !e.contains("cut off"), "{e}");
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
