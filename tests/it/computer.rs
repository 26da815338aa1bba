//! adjutant plays a side: the moderator's REPLACE <role> ADJUTANT and back,
//! a game created with a side for adjutant, civil disorder handed to it,
//! and selfplay's orders always legal and free of what the side may not
//! know.

use crate::support::{assert_audits, t0, temp_dir, Table, ALICE, BOB, CAROL};
use adjutant::config::{Config, Deadlines};
use adjutant::desk::{Desk, NewGame};
use adjutant::engine::Effort;
use adjutant::rules::shared::player::Pick;
use adjutant::selfplay::{self, Player};

fn journal(t: &Table) -> std::path::PathBuf {
    t.dir.join("games").join(&t.game).join("journal.toml")
}

/// Alice's random legal orders for austria until the game awaits
/// nobody but her no more, or `steps` of hers have gone in.
fn alice_plays(t: &mut Table, steps: usize, seed: u64) {
    let mut pick = Pick::new(seed);
    for _ in 0..steps {
        let l = t.desk.load(&t.game).unwrap();
        if l.game.outcome().is_some() || l.game.ended {
            return;
        }
        let a = l.game.awaited();
        assert_eq!(a.roles, vec!["austria".to_string()], "step {}: only austria is ever waited for", l.game.step);
        let lines = l.game.rules.random_orders(l.game.state(), "austria", &mut |n| pick.below(n));
        let body = if lines.is_empty() { "PASS".to_string() } else { lines.join("\n") };
        drop(l);
        t.send("austria", ALICE, &body);
        t.pass();
    }
}

#[test]
fn the_moderator_hands_france_to_adjutant_and_back() {
    let mut t = Table::new("adj-replace");
    t.send("gm", CAROL, "REPLACE france ADJUTANT");
    t.pass();
    let l = t.desk.load(&t.game).unwrap();
    assert_eq!(l.game.awaited().roles, vec!["austria".to_string(), "france".to_string()]);
    assert!(l.game.orders.contains_key("france"), "adjutant's set-up is in at once");
    assert!(t.last(CAROL).1.contains("adjutant plays france"), "{:?}", t.last(CAROL));
    drop(l);
    let bob_had = t.mails(BOB).len();
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    assert_eq!(t.pass().resolved, 1);
    alice_plays(&mut t, 12, 5);
    assert!(t.step() > 4, "the game went on with adjutant answering: step {}", t.step());
    assert_eq!(t.mails(BOB).len(), bob_had, "the replaced player is sent nothing more");
    let text = std::fs::read_to_string(journal(&t)).unwrap();
    assert!(text.contains("by = \"adjutant\""), "adjutant's orders are marked as its own");
    assert!(!t.dir.join("mail/outbox/adjutant").exists(), "no letter is addressed to adjutant");
    assert_audits(&journal(&t));
    // A player takes the side back: the step waits for them again.
    t.send("gm", CAROL, "REPLACE france dave@example.org");
    t.pass();
    assert!(t.mails("dave@example.org").iter().any(|m| m.0.contains("welcome")));
    let l = t.desk.load(&t.game).unwrap();
    assert!(l.desk.players["france"] == "dave@example.org");
    assert_audits(&journal(&t));
}

#[test]
fn replace_adjutant_is_refused_where_a_game_has_no_computer_player() {
    let mut t = Table::game("adj-leaguer", "leaguer", Some("72h"), "declared", Config::default());
    let role = t.desk.load(&t.game).unwrap().game.roles[0].clone();
    t.send("gm", CAROL, &format!("REPLACE {role} ADJUTANT"));
    t.pass();
    let (_, body) = t.last(CAROL);
    assert!(body.contains("NOT done") && body.contains("no computer player"), "{body}");
    assert_ne!(t.desk.load(&t.game).unwrap().desk.players[&role], "adjutant");
}

#[test]
fn a_game_created_with_a_side_for_adjutant_waits_only_for_the_player() {
    let dir = temp_dir("adj-new");
    let desk = Desk::open(&dir, Config::default()).unwrap();
    let req = NewGame {
        id: Some("g1".into()),
        ..NewGame::new("mantua", vec![("austria".into(), "adjutant".into()), ("france".into(), BOB.into())])
    };
    desk.create(&req, t0(), &mut crate::support::fixed_entropy()).unwrap();
    let l = desk.load("g1").unwrap();
    assert!(l.game.orders.contains_key("austria") && !l.game.orders.contains_key("france"));
    let roles = adjutant::rules::find("leaguer").unwrap().info().scenarios[0].roles.clone();
    let req = NewGame {
        id: Some("g2".into()),
        gm: Some(CAROL.into()),
        dice: "declared".into(),
        ..NewGame::new("leaguer", vec![(roles[0].clone(), "adjutant".into()), (roles[1].clone(), BOB.into())])
    };
    let err = desk.create(&req, t0(), &mut crate::support::fixed_entropy()).unwrap_err().to_string();
    assert!(err.contains("no computer player"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_side_in_civil_disorder_is_played_by_adjutant_under_that_policy() {
    let policy = Deadlines { missed_for_disorder: 1, missed: "adjutant".into(), ..Deadlines::default() };
    let mut t =
        Table::configured("adj-disorder", Some("3h"), "committed", Config { deadlines: policy, ..Config::default() });
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    t.now += chrono::Duration::hours(4);
    assert_eq!(t.pass().resolved, 1, "france missed the set-up");
    assert!(t.mails(BOB).iter().any(|m| m.0.contains("adjutant plays france")), "the dropped player is told");
    assert!(t.mails(CAROL).iter().any(|m| m.0.contains("adjutant plays france")), "and the moderator");
    let l = t.desk.load(&t.game).unwrap();
    assert_eq!(l.desk.players["france"], "adjutant");
    drop(l);
    alice_plays(&mut t, 6, 9);
    assert!(t.step() > 3, "step {}", t.step());
    assert_audits(&journal(&t));
}

/// Selfplay in every game with a computer player: each of adjutant's
/// submissions is accepted as a mail would be and names nothing its side
/// may not know (the ruleset's leak probes), or `play` fails.
#[test]
fn selfplay_orders_are_legal_and_free_of_hidden_facts() {
    let effort = Effort { candidates: 3, playouts: 1, horizon: 2 };
    for (ruleset, scenario) in
        [("mantua", "standard"), ("ducs", "campaign"), ("braccio", "braccio"), ("tacticum", "force-on-force")]
    {
        let rules = adjutant::rules::find(ruleset).unwrap();
        let scenario = rules
            .info()
            .scenarios
            .iter()
            .find(|s| s.name == scenario)
            .unwrap_or(&rules.info().scenarios[0])
            .name
            .clone();
        for n in 0..2 {
            for against in [Player::Random, Player::Adjutant] {
                let p = selfplay::play(rules, &scenario, 3, n, Player::Adjutant, against, effort)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert!(p.decisions > 0, "{ruleset}: adjutant made no decision");
            }
        }
    }
}

/// `adjutant selfplay` as the checks and the bench call it: the
/// rate of adjutant's side, the baseline of random play on the same sides
/// (no decision thought out, so none timed), and a clear refusal of an
/// opponent it does not know.
#[test]
fn selfplay_prints_adjutants_rate_and_the_baseline_of_random_play() {
    use std::process::Command;
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("selfplay").args(args).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, out, err) = run(&["mantua", "--games", "2", "--seed", "7"]);
    assert!(ok && out.starts_with("adjutant won ") && out.contains(" of 2 "), "{out}{err}");
    assert!(err.contains("game 1: adjutant as ") && err.contains("game 2: adjutant as "), "{err}");
    let (ok, out, err) = run(&["mantua", "--games", "2", "--seed", "7", "--baseline"]);
    assert!(ok && out.starts_with("random play won ") && out.contains(" of 2 "), "{out}{err}");
    assert!(!out.contains("decisions"), "the baseline thinks nothing out: {out}");
    assert!(err.contains("game 1: random play as "), "{err}");
    let (ok, _, err) = run(&["mantua", "--games", "1", "--against", "nobody"]);
    assert!(!ok && err.contains("write random or adjutant"), "{err}");
}

/// A baseline game is random play on both sides, the same from its seed.
#[test]
fn a_baseline_game_makes_no_decision_and_repeats_from_its_seed() {
    let rules = adjutant::rules::find("braccio").unwrap();
    let effort = Effort { candidates: 3, playouts: 1, horizon: 2 };
    let game = || selfplay::play(rules, "sant-egidio", 5, 1, Player::Random, Player::Random, effort).unwrap();
    let (a, b) = (game(), game());
    assert_eq!(a.decisions, 0);
    assert_eq!((a.result, a.steps, &a.reason), (b.result, b.steps, &b.reason));
}

/// A solo game's failure is the Legion's loss, not a draw: the Raiders
/// who win it are nobody's role (SO1-2..4, SO2-2..4); only the step limit
/// draws.
#[test]
fn a_solo_failure_counts_as_the_legions_loss() {
    let rules = adjutant::rules::find("tacticum").unwrap();
    let effort = Effort { candidates: 3, playouts: 1, horizon: 2 };
    let played: Vec<selfplay::Played> = (0..4)
        .map(|n| selfplay::play(rules, "escort", 1, n, Player::Random, Player::Random, effort).unwrap())
        .collect();
    for p in &played {
        assert_eq!(p.role, "legion");
        if p.reason.contains("its limit of") {
            assert_eq!(p.result, selfplay::Result::Drawn, "{}", p.reason);
        } else {
            assert_ne!(p.result, selfplay::Result::Drawn, "{}", p.reason);
        }
    }
    assert!(
        played.iter().any(|p| p.result == selfplay::Result::Lost),
        "{:?}",
        played.iter().map(|p| &p.reason).collect::<Vec<_>>()
    );
}
