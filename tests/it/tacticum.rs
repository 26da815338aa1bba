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
        assert_audits_and_dice_verify(&journal, scenario);
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(text.contains("first player") || text.contains("first placer"), "{scenario}: the toss is journaled");
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

/// Both solo scenarios by mail, adjutant playing the Raiders: random legal
/// Legion orders (supplies and reinforcements included) through the desk
/// to an end, audited, the public dice re-verified by the player's script,
/// and every Raider action explained in the player's mail.
#[test]
fn solo_games_by_mail_with_adjutant_playing_the_raiders_audit() {
    for (seed, scenario) in [(11u64, "frontier"), (13, "frontier+easier"), (17, "escort"), (19, "escort+scouts")] {
        let mut t = Table::in_scenario(
            &format!("solo{seed}"),
            "tacticum",
            Some(scenario),
            None,
            "committed",
            Default::default(),
        );
        let steps = play_out_watching(&mut t, seed, 120, &mut |_| {});
        assert!(steps >= 3, "{scenario}: played for real ({steps} steps)");
        let journal = t.dir.join("games/g1/journal.toml");
        assert_audits_and_dice_verify(&journal, scenario);
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(text.contains("raider die"), "{scenario}: the Raiders' dice are journaled");
        let mails = t.mails(ALICE);
        assert!(mails.iter().any(|m| m.1.contains("Raider die")), "{scenario}: the Raiders' action is told");
        assert!(t.mails(BOB).is_empty(), "one player");
    }
}

/// Scenario X by mail, four consuls: a set-up is seen by no other role
/// before its step resolves, a clash between partners is told to them
/// alone while the other side's placement stays hidden from them, and once
/// play begins partners may not PRESS each other (nor ALL), only the
/// enemy (S10-2, S10-5; brief 3.3, A-34).
#[test]
fn consuls_set_up_sealed_by_mail_and_no_press_between_partners() {
    const DAVE: &str = "dave@example.org";
    const ERIN: &str = "erin@example.org";
    let dir = temp_dir("consuls");
    let desk = adjutant::desk::Desk::open(&dir, adjutant::config::Config::default()).unwrap();
    let players = [("white", ALICE), ("black", BOB), ("blue", DAVE), ("red", ERIN)];
    let req = adjutant::desk::NewGame {
        scenario: Some("consuls".into()),
        gm: Some(CAROL.into()),
        deadline: Some("72h".into()),
        id: Some("g1".into()),
        ..adjutant::desk::NewGame::new(
            "tacticum",
            players.iter().map(|(r, a)| (r.to_string(), a.to_string())).collect(),
        )
    };
    let game = desk.create(&req, t0(), &mut fixed_entropy()).unwrap();
    desk.deliver().unwrap();
    let mut t = Table { dir, desk, game, now: t0() };
    let board = |m: &str| m.lines().filter(|l| l.contains('|')).collect::<Vec<_>>().join("\n");

    // Partners plan together before play begins.
    t.send("black", BOB, "PRESS red Line up behind me on the right.");
    let black =
        "PLACE COMMANDER d2\nPLACE CAVALRY a1, a2\nPLACE INFANTRY b1, c1, d1, e1, f1, g1, b2, c2, e2, f2, g2, h3";
    t.send("black", BOB, black);
    t.send(
        "white",
        ALICE,
        "PLACE COMMANDER l10\nPLACE CAVALRY o11, o10\nPLACE INFANTRY n11, m11, l11, k11, j11, i11, n10, m10, k10, j10, i10, l9",
    );
    t.pass();
    assert!(t.mails(ERIN).iter().any(|m| m.0.contains("press from black")), "press before play is relayed");
    assert_eq!(t.step(), 1, "the set-up waits for all four");
    for who in [ALICE, DAVE, ERIN] {
        for (subject, body) in t.mails(who) {
            assert!(
                !body.contains("PLACE INFANTRY b1") && !board(&body).contains("bC"),
                "{who} reads Black's set-up in {subject}"
            );
        }
    }
    // Red names h3 too; Blue sends nothing and its deadline passes: neither
    // Black nor Red is placed; White and Blue (by the example) are, and that
    // Blue sent nothing is told to Blue alone, since the example would show
    // its army to the side still choosing.
    t.send(
        "red",
        ERIN,
        "PLACE COMMANDER l2\nPLACE CAVALRY o1, o2\nPLACE INFANTRY h3, i1, j1, k1, l1, m1, n1, i2, j2, k2, m2, n2",
    );
    t.pass();
    t.now += chrono::Duration::hours(73);
    t.pass();
    let (bob, alice) = (t.last(BOB).1, t.last(ALICE).1);
    assert!(bob.contains("both placed units on h3"), "{bob}");
    assert!(!alice.contains("both placed units"), "the clash is told to the partners alone");
    assert!(t.last(DAVE).1.contains("No orders came from blue"), "{}", t.last(DAVE).1);
    for who in [ALICE, BOB, ERIN] {
        assert!(!t.last(who).1.contains("No orders came from"), "{who} is told Blue sent nothing");
    }
    assert!(board(&alice).contains("wC") && board(&alice).contains("lC"), "White sees its side placed:\n{alice}");
    for who in [BOB, ERIN] {
        let b = board(&t.last(who).1);
        assert!(
            !b.contains("wC") && !b.contains("lC") && !b.contains("wi"),
            "{who} sees the enemy's sealed set-up:\n{b}"
        );
    }
    t.send("black", BOB, &black.replace("h3", "d3"));
    t.send(
        "red",
        ERIN,
        "PLACE COMMANDER l2\nPLACE CAVALRY o1, o2\nPLACE INFANTRY h3, i1, j1, k1, l1, m1, n1, i2, j2, k2, m2, n2",
    );
    t.pass();
    let b = board(&t.last(BOB).1);
    assert!(["bC", "rC", "wC", "lC"].iter().all(|p| b.contains(p)), "every army stands:\n{b}");

    // Play has begun: partners may not talk, the enemy may be written to.
    let erin_mails = t.mails(ERIN).len();
    t.send("black", BOB, "PRESS red Charge now!");
    t.pass();
    let reply = t.last(BOB).1;
    assert!(reply.contains("the two consuls of a side do not talk (S10-5)"), "{reply}");
    t.send("black", BOB, "PRESS ALL Hail, Romans.");
    t.pass();
    assert!(t.last(BOB).1.contains("PRESS ALL would reach your partner"));
    assert_eq!(t.mails(ERIN).len(), erin_mails, "nothing reached the partner");
    t.send("black", BOB, "PRESS white Yield, and live.");
    t.pass();
    assert!(t.mails(ALICE).iter().any(|m| m.0.contains("press from black")), "press to the enemy is relayed");
    // White, first in the turn order, moves; then Black moves a Red unit.
    t.send("white", ALICE, "MOVE l9 TO l8");
    t.pass();
    t.send("black", BOB, "MOVE n2 TO n3");
    t.pass();
    assert_eq!(t.step(), 5, "{}", t.last(BOB).1);
    assert_audits(&t.dir.join("games/g1/journal.toml"));
}

/// `adjutant demo tacticum` (a charge, the Dodge asked in a respond step, a
/// flank capture) and the solo demo run through the desk and end with a
/// passing audit.
#[test]
fn both_tacticum_demos_run_and_audit() {
    for (args, shows) in [
        (vec!["demo", "tacticum"], vec!["The White Cavalry dodges to c5.", "captured by flanking", "Black wins"]),
        (vec!["demo", "tacticum", "--scenario", "frontier"], vec!["The Prefect runs to Fd1", "Raider die"]),
    ] {
        let dir = temp_dir("tacticum-demo");
        let out = output_within(
            std::process::Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("--data").arg(&dir).args(&args),
            300,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {}\n{text}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(": OK"), "{args:?}: no passing audit in\n{text}");
        for s in shows {
            assert!(text.contains(s), "{args:?}: {s:?} not shown");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
