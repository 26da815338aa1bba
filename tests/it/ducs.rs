//! La Guerre des Ducs through the desk: a whole game by mail with random
//! legal orders, audited and re-verified, and what Wulfenburg's mail never
//! shows: Orfburg's garrison before both are in, and Orfburg's queued
//! attacks before each is fought.

use crate::fullgame::play_out_watching;
use crate::support::*;
use adjutant::rules::ducs::State;

fn state(t: &Table) -> State {
    toml::from_str(&t.desk.load(&t.game).unwrap().game.state_text()).unwrap()
}

#[test]
fn a_game_by_mail_keeps_the_garrison_and_the_queue_private() {
    let mut queued_while_bob_read = 0;
    for seed in [5u64, 9] {
        let mut t = Table::game(&format!("ducs{seed}"), "ducs", None, "committed", Default::default());
        // Orfburg garrisons first and alone: Wulfenburg hears nothing of
        // where until its own garrison is in.
        let l = t.desk.load(&t.game).unwrap();
        let lines = l.game.rules.default_orders(l.game.state(), "orfburg");
        assert_eq!(lines.len(), 6, "{lines:?}");
        t.send("orfburg", ALICE, &lines.join("\n"));
        t.pass();
        let bob: String = t.mails(BOB).into_iter().map(|(s, b)| s + "\n" + &b).collect();
        for line in &lines {
            let (unit, hex) = line.trim_start_matches("PLACE ").split_once(" AT ").unwrap();
            assert!(!bob.contains(line.as_str()) && !bob.contains(&format!("{unit} at {hex}")), "{line}");
        }
        // Every mail Wulfenburg gets while an Orfburg attack waits in the
        // queue is free of it.
        let mut read = t.mails(BOB).len();
        let steps = play_out_watching(&mut t, seed, 600, &mut |t| {
            let s = state(t);
            let mails = t.mails(BOB);
            if s.active == "orfburg" && s.outcome.is_none() {
                for q in &s.queue {
                    let ids: Vec<&str> = q.attackers.iter().map(|n| n.trim_start_matches("ORF ")).collect();
                    let line = format!("ATTACK {} WITH {}", q.hex, ids.join(", "));
                    for (subject, body) in &mails[read..] {
                        assert!(!body.contains(&line), "Wulfenburg's mail {subject:?} shows Orfburg's queued {line}");
                        assert!(!body.contains("queued:"), "Wulfenburg's mail {subject:?} shows a queue");
                    }
                    queued_while_bob_read += 1;
                }
            }
            read = mails.len();
        });
        let l = t.desk.load(&t.game).unwrap();
        assert!(l.game.outcome().is_some(), "seed {seed}: the game ends ({steps} steps)");
        let journal = t.dir.join("games/g1/journal.toml");
        assert_audits_and_dice_verify(&journal, &format!("seed {seed}"));
    }
    assert!(queued_while_bob_read > 0, "some attack waited in the queue while Wulfenburg was mailed");
}
