//! Leaguer through the desk and through its views: a Besieger's mail never
//! carries a Garrison secret (Food, Local Support, Resolve, spies'
//! qualities, the Security Officer, the walls) unless a spy reported it,
//! and then only as the dated report.

use crate::fullgame::play_out;
use crate::support::*;
use adjutant::dice::Scripted;
use adjutant::engine::{Board, Game, Viewer};

/// The figure shown on a track line of the ASCII status board
/// ("  Resolve (Garrison)     ? [???...] 0..30"), and its note.
fn track<'a>(text: &'a str, label: &str) -> Vec<(&'a str, bool)> {
    text.lines()
        .filter(|l| l.trim_start().starts_with(label) && l.contains(" ["))
        .map(|l| {
            let value = l.trim_start()[label.len()..].split_whitespace().next().unwrap_or("");
            (value, l.contains("(spy report, Siege Turn"))
        })
        .collect()
}

#[test]
fn besiegers_mail_never_shows_garrison_secrets() {
    let mut reported = 0;
    for seed in [3u64, 8] {
        let mut t = Table::game(&format!("leaguer{seed}"), "leaguer", None, "committed", Default::default());
        let steps = play_out(&mut t, seed, 600);
        let l = t.desk.load(&t.game).unwrap();
        assert!(l.game.outcome().is_some(), "seed {seed}: the siege ends ({steps} steps)");
        let state: adjutant::rules::leaguer::State = toml::from_str(&l.game.state_text()).unwrap();
        let garrison = state.army("garrison");
        let mut secrets: Vec<String> = [
            "Garrison: Resolve",
            "Garrison: Food",
            "Garrison Resolve ",
            "Garrison spies",
            "Garrison mining",
            "Food rations issued",
            "Local Support 1 →",
            "Local Support 0 →",
            "Local Support -",
            "Walls\n",
        ]
        .map(String::from)
        .to_vec();
        for spy in &garrison.spies {
            for q in ["poor", "competent", "exceptional"] {
                secrets.push(format!("{} ({q})", spy.name));
            }
            secrets.push(format!("Spy {} (", spy.name));
        }
        secrets.push("Provost Bruni".into());
        let mut mails = 0;
        for (subject, text) in t.mails_before_the_end(ALICE) {
            for s in &secrets {
                assert!(!text.contains(s.as_str()), "seed {seed}: a Besiegers' mail ({subject}) shows {s:?}");
            }
            for label in ["Resolve (Garrison)", "Local Support", "Food (turns)"] {
                for (value, from_spy) in track(&text, label) {
                    assert!(
                        value == "?" || from_spy,
                        "seed {seed}: {subject}: {label} shows {value} without a spy report"
                    );
                    reported += usize::from(from_spy);
                }
            }
            mails += 1;
        }
        assert!(mails > 8, "seed {seed}: {mails} mails checked; {:?}", l.game.outcome());
        assert_audits(&t.dir.join("games/g1/journal.toml"));
        eprintln!("seed {seed}: {steps} steps, {mails} Besiegers' mails checked, {:?}", l.game.outcome());
    }
    assert!(reported > 0, "some spy reported a Garrison figure, and the Besiegers' mail showed it");
}

#[test]
fn a_spy_report_is_shown_dated_and_goes_stale() {
    let rules = adjutant::rules::find("leaguer").unwrap();
    let mut g = Game::new("v", rules, "sample").unwrap();
    // DS 3; a Joker on top of the deck (reshuffled, so no Event step).
    let patch: toml::Table =
        toml::from_str("ds = 3\ndeck = { draw = [\"Joker 1\"], discard = [], shuffles = 1 }").unwrap();
    g.patch(&patch).unwrap();
    let resolve_of = |g: &Game, role: &str, label: &str| {
        let v = g.view(&Viewer::Role(role.into()));
        v.boards
            .iter()
            .find_map(|b| match b {
                Board::Tracks(t) => t.tracks.iter().find(|t| t.label == label).map(|t| (t.value, t.note.clone())),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(resolve_of(&g, "besiegers", "Resolve (Garrison)").0, None);
    assert_eq!(resolve_of(&g, "besiegers", "Local Support").0, None);
    assert_eq!(resolve_of(&g, "garrison", "Resolve (Besiegers)").0, None);
    assert_eq!(resolve_of(&g, "garrison", "Resolve (Garrison)").0, Some(30));
    // DS review 3; quality 6 (3); spy 6 against 1 + 2 + 1 (Provost): extra success.
    let mut dice = Scripted::new(&[3, 6, 6, 1]);
    let c = g.check("besiegers", &[(1, "SPY Grammaticus INFO RESOLVE".into())]).unwrap();
    g.accept("besiegers", c);
    let r = g.resolve(&mut dice).unwrap();
    assert!(r.events.iter().any(|e| e.text.contains("extra-successful")), "{:?}", r.events);
    assert_eq!(resolve_of(&g, "besiegers", "Resolve (Garrison)"), (Some(30), "spy report, Siege Turn 1".into()));
    // The garrison never learns it was spied upon.
    let seen: Vec<_> = r.events.iter().filter(|e| e.to.admits(&Viewer::Role("garrison".into()))).collect();
    assert!(seen.iter().all(|e| !e.text.contains("Grammaticus")), "{seen:?}");
    // A breach costs the Garrison 5 Resolve: the report stays as it was.
    let c = g.check("gm", &[(1, "RESOLVE garrison -5 breach".into())]).unwrap();
    g.accept("gm", c);
    g.resolve(&mut dice).unwrap();
    assert_eq!(resolve_of(&g, "garrison", "Resolve (Garrison)").0, Some(25));
    assert_eq!(resolve_of(&g, "besiegers", "Resolve (Garrison)"), (Some(30), "spy report, Siege Turn 1".into()));
    let text = adjutant::render::ascii::render(&g.view(&Viewer::Role("besiegers".into())));
    assert!(text.contains("Besiegers spies reported: Resolve of the Garrison was 30 (Siege Turn 1)."), "{text}");
    assert!(!text.contains("Garrison: Resolve"), "{text}");
}

#[test]
fn the_moderator_reports_by_mail_and_ends_the_siege_with_a_winner() {
    let mut t = Table::game("leaguer-gm", "leaguer", None, "committed", Default::default());
    // Before a step awaits the moderator, HELP names the table's reports.
    t.send("gm", CAROL, "HELP");
    t.pass();
    let (_, help) = t.last(CAROL);
    assert!(help.contains("Your reports from the table (") && help.contains("HITS"), "{help}");
    t.send("besiegers", ALICE, "PASS");
    assert_eq!(t.pass().resolved, 1);
    // The Event Card awaits the moderator; a bad line is refused, with why.
    let (subject, body) = t.last(CAROL);
    assert!(subject.contains("your orders are awaited (event)"), "{subject}");
    assert!(body.contains("Event Card for the Besiegers' turn"), "{body}");
    t.send("gm", CAROL, "HITS Nowhere Regiment 2");
    t.pass();
    let (subject, body) = t.last(CAROL);
    assert!(subject.contains("NOT accepted"), "{subject}");
    assert!(body.contains("line 1: HITS Nowhere Regiment 2") && body.contains("no unit is called"), "{body}");
    t.send("gm", CAROL, "NO EFFECT");
    assert_eq!(t.pass().resolved, 1);
    // The table-top report: hits and a breach, then the Garrison's turn.
    t.send("gm", CAROL, "HITS garrison Swiss Guard 2\nRESOLVE garrison -2 breach in Curtain North");
    assert_eq!(t.pass().resolved, 1);
    let (_, bob) = t.last(BOB);
    assert!(bob.contains("Garrison: Resolve 26"), "{bob}");
    assert!(
        bob.contains("your orders are awaited")
            || t.mails(BOB).iter().any(|(s, _)| s.contains("awaited (housekeeping)"))
    );
    let (_, alice) = t.last(ALICE);
    assert!(alice.contains("Swiss Guard takes 2 hits"), "{alice}");
    assert!(!alice.contains("Resolve 26") && !alice.contains("breach"), "{alice}");
    // Terms agreed by PRESS; the moderator records them at any step.
    t.send("garrison", BOB, "PRESS besiegers We ask for the honours of war.");
    t.send("gm", CAROL, "END besiegers the Garrison surrenders with the honours of war");
    t.pass();
    let l = t.desk.load(&t.game).unwrap();
    assert!(l.game.ended);
    let journal = adjutant::journal::read(&t.dir.join("games/g1/journal.toml")).unwrap();
    let ended = journal.iter().find(|e| e.kind == "ended").expect("an ended entry");
    assert_eq!(ended.body["winner"].as_str(), Some("besiegers"));
    assert!(ended.body["reason"].as_str().unwrap().contains("honours of war"));
    assert_audits(&t.dir.join("games/g1/journal.toml"));
}

#[test]
fn a_leaguer_game_needs_a_moderator() {
    let dir = temp_dir("leaguer-nogm");
    let desk = adjutant::desk::Desk::open(&dir, Default::default()).unwrap();
    let req = adjutant::desk::NewGame {
        id: Some("g1".into()),
        ..adjutant::desk::NewGame::new(
            "leaguer",
            vec![("besiegers".into(), ALICE.into()), ("garrison".into(), BOB.into())],
        )
    };
    let e = desk.create(&req, t0(), &mut fixed_entropy()).unwrap_err();
    assert!(e.to_string().contains("needs a moderator"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's first command, for both demos: the scripted games run
/// through the desk and end with a passing audit.
#[test]
fn both_demos_run_and_audit() {
    for ruleset in ["mantua", "leaguer"] {
        let dir = temp_dir(&format!("demo-{ruleset}"));
        // A demo plays random dice; it must end whatever they are.
        let out = output_within(
            std::process::Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("--data").arg(&dir).args(["demo", ruleset]),
            300,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{ruleset}: {}\n{}", String::from_utf8_lossy(&out.stderr), text);
        assert!(text.contains(": OK"), "{ruleset}: no passing audit in\n{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
