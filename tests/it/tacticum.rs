//! Tacticum Invictus through the desk: games by mail with random legal
//! orders in the scenarios whose steps go beyond a move each (the toss
//! for the first player, IV's placement, the respond steps of the Dodge,
//! Disrupt and Disperse), audited and their dice re-verified.

use crate::fullgame::play_out_watching;
use crate::support::*;

#[test]
fn games_by_mail_with_tosses_placements_and_respond_steps_audit() {
    let mut kinds = std::collections::BTreeSet::new();
    for (seed, scenario) in [(3u64, "high-ground"), (5, "seize-the-eagle"), (7, "all-units")] {
        let mut t = Table::in_scenario(
            &format!("tacticum{seed}"),
            "tacticum",
            Some(scenario),
            None,
            "committed",
            Default::default(),
        );
        let steps = play_out_watching(&mut t, seed, 150, &mut |t| {
            let l = t.desk.load(&t.game).unwrap();
            kinds.insert(l.game.awaiting().kind);
        });
        assert!(steps >= 5, "{scenario}: played for real ({steps} steps)");
        let journal = t.dir.join("games/g1/journal.toml");
        assert_audits(&journal);
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(text.contains("first player") || text.contains("first placer"), "{scenario}: the toss is journaled");
        let py = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/verify_dice.py"))
            .arg(&journal)
            .output()
            .unwrap();
        assert!(py.status.success(), "{scenario}: {}", String::from_utf8_lossy(&py.stdout));
        // Both players read the same board: the game hides nothing.
        let (alice, bob) = (t.last(ALICE).1, t.last(BOB).1);
        let board = |m: &str| m.lines().filter(|l| l.contains('|')).collect::<Vec<_>>().join("\n");
        if t.mails(ALICE).len() == t.mails(BOB).len() {
            assert_eq!(board(&alice), board(&bob), "{scenario}");
        }
    }
    // The toss, always the first step, is checked in each journal above.
    for k in ["place", "turn"] {
        assert!(kinds.contains(k), "a {k} step was played by mail: {kinds:?}");
    }
}
