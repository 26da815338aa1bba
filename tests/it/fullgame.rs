//! Whole games through the desk: every step answered by mail with random
//! legal orders until the game ends, then every mail checked for leaks, the
//! journal audited, and the dice re-verified by the independent verifier.

use crate::support::*;
use adjutant::engine::Viewer;

struct Rng(u64);
impl Rng {
    fn pick(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        if n == 0 {
            0
        } else {
            (self.0 % n as u64) as usize
        }
    }
}

/// Play game g1 of `t` to its end (or `max` steps); returns the steps played.
pub fn play_out(t: &mut Table, seed: u64, max: u32) -> u32 {
    play_out_watching(t, seed, max, &mut |_| {})
}

/// As [`play_out`], calling `watch` after every pass (to look at the mail
/// while the game keeps its secrets).
pub fn play_out_watching(t: &mut Table, seed: u64, max: u32, watch: &mut dyn FnMut(&Table)) -> u32 {
    let mut rng = Rng(seed | 1);
    loop {
        let l = t.desk.load(&t.game).unwrap();
        if l.game.ended || l.game.step > max {
            return l.game.step - 1;
        }
        let a = l.game.awaiting();
        assert!(!a.prompts.is_empty(), "step {} awaits nobody", l.game.step);
        for role in a.prompts.keys() {
            let lines = l.game.rules.random_orders(l.game.state(), role, &mut |n| rng.pick(n));
            let from = match l.game.roles.iter().position(|r| r == role) {
                Some(0) => ALICE,
                Some(_) => BOB,
                None => CAROL,
            };
            let mut body = lines.join("\n");
            if rng.pick(4) == 0 {
                body.push_str(&format!("\nSALT s{}", rng.pick(1000)));
            }
            t.send(role, from, &body);
        }
        let step = l.game.step;
        t.pass();
        watch(t);
        let after = t.desk.load(&t.game).unwrap().game.step;
        assert!(
            after > step || t.desk.load(&t.game).unwrap().game.ended,
            "step {step} did not resolve: {:?}",
            t.last(ALICE)
        );
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).map(|w| w.to_lowercase()).collect()
}

#[test]
fn random_games_by_mail_end_audit_and_never_leak() {
    let mut ended_by_outcome = 0;
    let mut by_elimination = 0;
    for seed in [7u64, 11] {
        let mut t = Table::with(&format!("full{seed}"), None, "committed");
        let steps = play_out(&mut t, seed, 500);
        let l = t.desk.load(&t.game).unwrap();
        if l.game.outcome().is_some() {
            ended_by_outcome += 1;
        }
        assert!(steps > 5, "seed {seed}: {steps} steps");
        if l.game.outcome().map(|o| o.reason.contains("five or fewer")).unwrap_or(false) {
            by_elimination += 1;
        }
        // No mail to a side ever names an enemy counter (its Pool, its hand,
        // its face-down units): those ids are for their owner's eyes only.
        // Once the game is over everything is revealed: the last results
        // and the game-over mail are exempt.
        for (who, enemy) in [(ALICE, 'f'), (BOB, 'a')] {
            let ids: Vec<String> = (1..=28).map(|i| format!("{enemy}{i:02}")).collect();
            for (subject, text) in t.mails_before_the_end(who) {
                let ws = words(&text);
                if let Some(id) = ids.iter().find(|id| ws.contains(id)) {
                    panic!("seed {seed}: a mail to {who} ({subject:?}) names the enemy counter {id}");
                }
            }
        }
        // Views of a side never show the strength of an enemy block.
        let v = l.game.view(&Viewer::Role("austria".into()));
        if l.game.outcome().is_none() {
            assert!(
                v.tables.iter().all(|t| !t.title.starts_with("France blocks") || t.header.len() == 2),
                "seed {seed}"
            );
        }
        assert_audits_and_dice_verify(&t.dir.join("games/g1/journal.toml"), &format!("seed {seed}"));
    }
    assert_eq!(ended_by_outcome, 2, "both games end with a winner");
    assert!(by_elimination >= 1, "one game is won by eliminating enemy blocks");
}
