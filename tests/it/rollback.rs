//! The moderator's ROLLBACK by mail: the game as it was when the step
//! opened, the journal only appended to, no die drawn twice, everyone
//! told, and audit and both verifiers content with the result.

use super::support::*;
use super::witness::both;
use adjutant::rules::shared::player::Pick;
use std::collections::BTreeMap;

/// What a step opened with: the state's digest, its kind and who it awaits.
#[derive(Debug, Clone, PartialEq)]
struct Opened {
    digest: String,
    kind: String,
    awaited: Vec<String>,
}

fn opened(t: &Table) -> Opened {
    let l = t.desk.load(&t.game).unwrap();
    let a = l.game.awaiting();
    Opened { digest: l.game.digest(), kind: a.kind.clone(), awaited: a.prompts.keys().cloned().collect() }
}

fn journal(t: &Table) -> std::path::PathBuf {
    t.dir.join("games").join(&t.game).join("journal.toml")
}

/// The moderator forces the open step (no-moves orders for the silent).
fn force(t: &mut Table) {
    t.send("gm", CAROL, "RESOLVE NOW");
    t.pass();
}

#[test]
fn a_mantua_rollback_by_mail_restores_the_step_and_play_goes_on() {
    let mut t = Table::new("rollback-mantua");
    t.setup();
    assert_eq!(t.step(), 2);
    let at_two = opened(&t);
    let bytes_before = std::fs::read(journal(&t)).unwrap();
    force(&mut t);
    force(&mut t);
    assert_eq!(t.step(), 4);
    assert_ne!(opened(&t).digest, at_two.digest, "the turns changed the game");

    // A player may not; a missing reason, a step not yet open: refused,
    // nothing changed.
    t.send("austria", ALICE, "ROLLBACK 2 I do not like it");
    t.pass();
    assert!(t.last(ALICE).1.contains("only the game's moderator may roll the game back"), "{}", t.last(ALICE).1);
    t.send("gm", CAROL, "ROLLBACK 2");
    t.pass();
    assert!(t.last(CAROL).1.contains("ROLLBACK needs a reason"), "{}", t.last(CAROL).1);
    t.send("gm", CAROL, "ROLLBACK 9 typo");
    t.pass();
    assert!(t.last(CAROL).1.contains("step 9 has not opened"), "{}", t.last(CAROL).1);
    assert_eq!(t.step(), 4);

    t.send("gm", CAROL, "ROLLBACK 2 Austria's orders were misread");
    t.pass();
    // The game is as step 2 opened, under a number whose dice were never
    // drawn; the journal before the rollback is untouched.
    assert_eq!(t.step(), 4);
    assert_eq!(opened(&t), at_two);
    let after = std::fs::read(journal(&t)).unwrap();
    assert_eq!(&after[..bytes_before.len()], &bytes_before[..]);
    for who in [ALICE, BOB, CAROL] {
        let mails = t.mails(who);
        let told = mails.iter().find(|m| m.0.contains("rolled back to step 2")).expect("told");
        assert!(told.1.contains("Austria's orders were misread"), "{}", told.1);
        assert!(told.1.contains("goes on from there as step 4"), "{}", told.1);
    }
    // Every mail after says so, and the prompts are out again.
    let (subject, body) = t.last(ALICE);
    assert!(subject.contains("step 4"), "{subject}");
    assert!(body.contains("This game was rolled back by its moderator once"), "{body}");
    // An undone step is no longer a target.
    t.send("gm", CAROL, "ROLLBACK 3 again");
    t.pass();
    assert!(t.last(CAROL).1.contains("was undone by the rollback"), "{}", t.last(CAROL).1);

    // Play goes on; audit and the Python verifier replay it all, the
    // voided draws included.
    force(&mut t);
    assert_eq!(t.step(), 5);
    assert_audits_and_dice_verify(&journal(&t), "after a rollback");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["--data", t.dir.to_str().unwrap(), "audit", &t.game])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("rolled back 1 time(s)"), "{text}");
    // An ended game comes back too: the end was the mistake.
    let at_five = opened(&t);
    t.send("gm", CAROL, "END");
    t.pass();
    assert!(t.desk.load(&t.game).unwrap().game.ended);
    t.send("gm", CAROL, "ROLLBACK 5 ended by mistake");
    t.pass();
    let l = t.desk.load(&t.game).unwrap();
    assert!(!l.game.ended, "reopened");
    assert_eq!(opened(&t), at_five);
    force(&mut t);
    assert_eq!(t.step(), 6);
    assert_audits_and_dice_verify(&journal(&t), "after a rollback of the end");
    // The public export withholds the restored state while the game
    // lasts, and verifies; each player's own mailbox verifies.
    let public = t.dir.join("public.toml");
    let bin = env!("CARGO_BIN_EXE_adjutant");
    let data_dir = t.dir.to_str().unwrap().to_string();
    let data = data_dir.as_str();
    let out = std::process::Command::new(bin)
        .args(["--data", data, "audit", &t.game, "--export-public", public.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let text = std::fs::read_to_string(&public).unwrap();
    assert!(text.contains("kind = \"rolled_back\"") && text.contains("ended by mistake"), "{text}");
    assert!(!text.contains("[state") && text.contains("state = \"(withheld)\""), "the state is withheld");
    let out = std::process::Command::new(bin).args(["audit", public.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    for who in [ALICE, BOB, CAROL] {
        let (code, _, out) = both(&[&t.desk.outbox_of(who)]);
        assert_eq!(code, 0, "{who}:\n{out}");
    }
    // Once the game is over the whole journal is public, and its export,
    // numbered anew, still replays with its rollbacks.
    t.send("gm", CAROL, "END");
    t.pass();
    let out = std::process::Command::new(bin)
        .args(["--data", data, "audit", &t.game, "--export-public", public.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let out = std::process::Command::new(bin).args(["audit", public.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("rolled back 2 time(s)"), "{text}");
}

#[test]
fn a_forged_rollback_entry_fails_audit() {
    let mut t = Table::new("rollback-forged");
    t.setup();
    force(&mut t);
    t.send("gm", CAROL, "ROLLBACK 2 a mistake");
    t.pass();
    // A rollback rewritten to reopen as an older step (whose dice were
    // drawn already), the chain rehashed after it: the audit names it.
    let path = journal(&t);
    let mut entries = adjutant::journal::read(&path).unwrap();
    let format = adjutant::journal::Format::of(&entries).unwrap();
    let i = entries.iter().position(|e| e.kind == "rolled_back").unwrap();
    entries[i].body.insert("step".into(), toml::Value::Integer(2));
    for j in i..entries.len() {
        entries[j].prev = entries[j - 1].hash.clone();
        entries[j].hash = entries[j].compute_hash(format);
    }
    let err = adjutant::audit::replay(&entries).err().expect("a forged rollback fails");
    assert!(err.message.contains("reopens as step 2"), "{err}");
    // So does one that restores another state than the step opened with.
    let mut entries = adjutant::journal::read(&path).unwrap();
    entries[i].body.insert("digest".into(), toml::Value::String("00".repeat(32)));
    for j in i..entries.len() {
        entries[j].prev = entries[j - 1].hash.clone();
        entries[j].hash = entries[j].compute_hash(format);
    }
    let err = adjutant::audit::replay(&entries).err().expect("a forged rollback fails");
    assert!(err.message.contains("state digest"), "{err}");
}

/// Random play of every game with rollbacks to random earlier openings:
/// each rollback gives back exactly the state that step opened with, the
/// game replays, and every mailbox verifies.
#[test]
fn random_games_with_random_rollbacks_replay_and_verify() {
    for rules in adjutant::rules::ALL {
        let name = rules.info().name;
        let mut t = Table::game(&format!("rollback-{name}"), name, Some("72h"), "committed", Default::default());
        let mut rng = Pick::new(name.len() as u64 * 104_729);
        let addr: BTreeMap<String, String> = {
            let l = t.desk.load(&t.game).unwrap();
            t.desk.recipients(&l).into_iter().collect()
        };
        let mut openings: BTreeMap<u32, Opened> = BTreeMap::new();
        openings.insert(t.step(), opened(&t));
        let mut rollbacks = 0;
        for _ in 0..24 {
            let l = t.desk.load(&t.game).unwrap();
            if rng.below(5) == 0 && openings.len() > 1 {
                // Back to an opening of the history that stands.
                let keys: Vec<u32> = openings.keys().copied().collect();
                let to = keys[rng.below(keys.len())];
                let want = openings[&to].clone();
                let open = l.game.step;
                t.send("gm", CAROL, &format!("ROLLBACK {to} random test {rollbacks}"));
                t.pass();
                assert_eq!(t.step(), open, "{name}: the reopened step takes the open step's number");
                assert_eq!(opened(&t), want, "{name}: back to step {to}");
                openings.retain(|k, _| *k < to);
                openings.insert(open, want);
                rollbacks += 1;
                continue;
            }
            if l.game.ended {
                break;
            }
            let a = l.game.awaiting();
            for role in a.prompts.keys() {
                let Some(from) = addr.get(role) else { continue };
                let lines = l.game.rules.random_orders(l.game.state(), role, &mut |n| rng.below(n));
                t.send(role, from, &lines.join("\n"));
            }
            let before = l.game.step;
            t.pass();
            if t.step() == before {
                force(&mut t);
            }
            let now = t.step();
            if now != before {
                openings.insert(now, opened(&t));
            }
        }
        assert!(rollbacks > 0, "{name}: no rollback was tried");
        assert_audits_and_dice_verify(&journal(&t), name);
        // The fairness report leaves out the same draws the audit marks
        // as undone.
        let entries = adjutant::journal::read(&journal(&t)).unwrap();
        let (_, sum) = adjutant::audit::replay(&entries).unwrap();
        assert_eq!(sum.rollbacks, rollbacks, "{name}");
        assert_eq!(adjutant::report::gather(&entries).voided, sum.voided_draws, "{name}");
        let (code, _, out) = both(&[&t.desk.outbox_root()]);
        assert_eq!(code, 0, "{name}:\n{out}");
    }
}
