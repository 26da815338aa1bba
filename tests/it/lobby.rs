//! The judge by mail: LIST, JOIN and OBSERVE at the game's plain address,
//! HISTORY, DRAW and CONCEDE with a player's token.

use super::support::*;
use adjutant::desk::{Desk, NewGame};
use std::sync::atomic::{AtomicUsize, Ordering};

const DAVE: &str = "dave@example.org";
const ERIN: &str = "erin@example.org";
static N: AtomicUsize = AtomicUsize::new(0);

/// An open Mantua game (no player yet), Carol moderating (approving each
/// join if `approve`).
fn open_table(tag: &str, approve: bool) -> Table {
    let dir = temp_dir(tag);
    let desk = Desk::open(&dir, Default::default()).unwrap();
    let req = NewGame {
        gm: Some(CAROL.into()),
        id: Some("g1".into()),
        deadline: Some("72h".into()),
        open: true,
        approve,
        ..NewGame::new("mantua", vec![])
    };
    let game = desk.create(&req, t0(), &mut fixed_entropy()).unwrap();
    desk.deliver().unwrap();
    Table { dir, desk, game, now: t0() }
}

/// A mail to the game's plain address.
fn plain(t: &mut Table, from: &str, body: &str) {
    let n = N.fetch_add(1, Ordering::SeqCst);
    let raw = format!(
        "From: <{from}>\r\nTo: <game@adjutant.local>\r\nSubject: hello\r\nMessage-ID: <lobby{n}@example.org>\r\n\r\n{body}\r\n"
    );
    t.post_raw(raw.as_bytes());
    t.pass();
}

fn games(t: &Table) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["--data", t.dir.to_str().unwrap(), "games"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn players_find_join_watch_look_back_and_agree_a_draw_by_mail() {
    let mut t = open_table("lobby", false);
    assert!(games(&t).contains("open: free austria, france"), "{}", games(&t));

    // LIST names the game and its free roles.
    plain(&mut t, DAVE, "LIST");
    let (_, body) = t.last(DAVE);
    assert!(body.contains("g1  mantua") && body.contains("free: austria, france"), "{body}");

    // JOIN: a named role, then the first free one; the welcome carries
    // the token; the second fills the game and starts it.
    plain(&mut t, ALICE, "JOIN g1 austria");
    let raw = String::from_utf8_lossy(&t.raw_mails(ALICE).pop().unwrap()).to_string();
    assert!(raw.contains("welcome") && raw.contains("+g1."), "{raw}");
    assert!(games(&t).contains("open: free france"));
    plain(&mut t, ALICE, "JOIN g1 france");
    assert!(t.last(ALICE).1.contains("you already play austria"), "{}", t.last(ALICE).1);
    plain(&mut t, DAVE, "JOIN g1 prussia");
    assert!(t.last(DAVE).1.contains("prussia is not a role"), "{}", t.last(DAVE).1);
    plain(&mut t, DAVE, "JOIN nosuchgame");
    assert!(t.last(DAVE).1.contains("no game \"nosuchgame\""), "{}", t.last(DAVE).1);
    plain(&mut t, BOB, "JOIN g1");
    let g = games(&t);
    assert!(g.contains("awaits austria, france") && g.contains("by "), "{g}");
    assert!(t.mails(BOB).iter().any(|m| m.0.contains("welcome")));
    assert!(t.mails(BOB).iter().any(|m| m.0.contains("your orders are awaited")), "the game started");
    plain(&mut t, DAVE, "JOIN g1");
    assert!(t.last(DAVE).1.contains("every role of game g1 is taken"), "{}", t.last(DAVE).1);

    // OBSERVE: the public results of each step, no hidden block.
    plain(&mut t, ERIN, "OBSERVE g1");
    assert!(t.last(ERIN).1.contains("You now observe game g1"), "{}", t.last(ERIN).1);
    assert!(games(&t).contains("observers: erin@example.org"));
    t.setup();
    let (subject, body) = t.last(ERIN);
    assert!(subject.contains("step 1 resolved (observer)"), "{subject}");
    for hidden in ["Laudon", "Bonaparte"] {
        assert!(!body.contains(hidden), "the observer saw {hidden}:\n{body}");
    }

    // HISTORY: Alice's own view of step 1 again, marked as a copy.
    t.send("austria", ALICE, "HISTORY 1");
    t.pass();
    let (subject, body) = t.last(ALICE);
    assert!(subject.contains("history of steps 1-1 (a copy)"), "{subject}");
    assert!(body.contains("=== step 1") && body.contains("Laudon"), "{body}");
    assert!(!body.contains("Bonaparte"), "never more than Alice saw: {body}");
    t.send("austria", ALICE, "HISTORY 7");
    t.pass();
    assert!(t.last(ALICE).1.contains("step 7 has not been resolved yet"), "{}", t.last(ALICE).1);

    // DRAW: one side's proposal, withdrawn, made again; both agree: drawn.
    t.send("austria", ALICE, "DRAW");
    t.pass();
    assert!(t.last(ALICE).1.contains("ends drawn if france agrees"), "{}", t.last(ALICE).1);
    t.send("austria", ALICE, "NO DRAW");
    t.pass();
    assert!(t.last(ALICE).1.contains("withdrawn"));
    t.send("austria", ALICE, "DRAW");
    t.pass();
    t.send("france", BOB, "DRAW");
    t.pass();
    assert!(t.desk.load(&t.game).unwrap().game.ended, "drawn");
    assert!(games(&t).contains("(ended)"), "{}", games(&t));
    assert!(t.last(ERIN).0.contains("game over"), "observers are told the end too");
    assert_audits_and_dice_verify(&t.dir.join("games/g1/journal.toml"), "drawn");
    // STOP OBSERVING.
    plain(&mut t, ERIN, "STOP OBSERVING g1");
    assert!(t.last(ERIN).1.contains("no longer observe"), "{}", t.last(ERIN).1);
}

#[test]
fn a_side_that_concedes_loses_and_the_moderator_removes_an_observer() {
    let mut t = Table::new("concede");
    t.setup();
    plain(&mut t, ERIN, "OBSERVE g1");
    t.send("gm", CAROL, "REMOVE OBSERVER erin@example.org");
    t.pass();
    assert!(t.last(CAROL).1.contains("erin@example.org no longer observes"), "{}", t.last(CAROL).1);
    // A draw proposal lapses when the step resolves.
    t.send("austria", ALICE, "DRAW");
    t.pass();
    t.send("gm", CAROL, "RESOLVE NOW");
    t.pass();
    t.send("france", BOB, "DRAW");
    t.pass();
    assert!(!t.desk.load(&t.game).unwrap().game.ended, "Alice's proposal had lapsed");
    t.send("france", BOB, "CONCEDE");
    t.pass();
    let l = t.desk.load(&t.game).unwrap();
    assert!(l.game.ended);
    assert!(t.mails(BOB).iter().any(|m| m.1.contains("You conceded: austria wins")), "{:?}", t.last(BOB));
    let journal = adjutant::journal::read(&t.dir.join("games/g1/journal.toml")).unwrap();
    let ended = journal.iter().rev().find(|e| e.kind == "ended").unwrap();
    assert_eq!(ended.body["winner"].as_str(), Some("austria"));
    assert_audits_and_dice_verify(&t.dir.join("games/g1/journal.toml"), "conceded");
}

#[test]
fn each_player_chooses_the_maps_their_mails_carry() {
    let mut t = Table::configured("maps", Some("72h"), "committed", adjutant::config::Config::default());
    t.send("france", BOB, "MAPS NONE");
    t.pass();
    assert!(t.last(BOB).1.contains("text only"), "{}", t.last(BOB).1);
    t.send("france", BOB, "MAPS JPEG");
    t.pass();
    assert!(t.last(BOB).1.contains("MAPS takes PNG"), "{}", t.last(BOB).1);
    t.setup();
    let bob = raw_with(&t, BOB, "step 1 resolved");
    assert!(bob.contains("resolved") && !bob.contains("Content-Type: image/"), "text only for Bob");
    let alice = raw_with(&t, ALICE, "step 1 resolved");
    assert!(alice.contains("image/png") && !alice.contains("image/svg+xml"), "the PNG alone for Alice by default");
    t.send("france", BOB, "MAPS BOTH");
    t.pass();
    t.send("france", BOB, "VIEW");
    t.pass();
    let bob = raw_with(&t, BOB, "your view");
    assert!(bob.contains("image/png") && bob.contains("image/svg+xml"), "both maps");
    // The choice outlives the snapshot: it is rebuilt from the journal.
    let journal = adjutant::journal::read(&t.dir.join("games/g1/journal.toml")).unwrap();
    let d = adjutant::desk::core::state::desk_state(&journal).unwrap();
    assert_eq!(d.maps.get("france").map(String::as_str), Some("both"));
}

/// The raw mail of `who` whose subject holds `subject`.
fn raw_with(t: &Table, who: &str, subject: &str) -> String {
    t.raw_mails(who)
        .into_iter()
        .map(|r| String::from_utf8_lossy(&r).to_string())
        .find(|m| m.lines().any(|l| l.starts_with("Subject:") && l.contains(subject)))
        .unwrap_or_else(|| panic!("no mail to {who} about {subject:?}"))
}

#[test]
fn the_moderator_approves_or_refuses_each_join_when_asked_to() {
    let mut t = open_table("approve", true);
    plain(&mut t, DAVE, "JOIN g1 austria");
    assert!(t.last(DAVE).1.contains("waits for the moderator's approval"), "{}", t.last(DAVE).1);
    assert!(t.last(CAROL).1.contains("APPROVE dave@example.org"), "{}", t.last(CAROL).1);
    assert!(games(&t).contains("open: free austria, france"), "not in yet");
    plain(&mut t, ERIN, "JOIN g1");
    t.send("gm", CAROL, "REFUSE erin@example.org");
    t.pass();
    assert!(t.last(ERIN).1.contains("did not take your request"), "{}", t.last(ERIN).1);
    t.send("gm", CAROL, "APPROVE dave@example.org");
    t.pass();
    assert!(t.mails(DAVE).iter().any(|m| m.0.contains("welcome")), "Dave is welcomed");
    assert!(games(&t).contains("open: free france"), "{}", games(&t));
    t.send("gm", CAROL, "APPROVE nobody@example.org");
    t.pass();
    assert!(
        t.last(CAROL).1.contains("No request from nobody@example.org"),
        "{:?}",
        t.mails(CAROL).iter().map(|m| m.0.clone()).collect::<Vec<_>>()
    );
    assert_audits_and_dice_verify(&t.dir.join("games/g1/journal.toml"), "approvals");
}
