//! Deadlines as a long-running game needs them: reminders only to the
//! silent, a grace period, early resolution after a delay, time zones,
//! announced absences, civil disorder, and a daemon that was down.

use crate::support::*;
use adjutant::config::Config;
use adjutant::desk::deadlines::Policy;

fn table(tag: &str, policy: Policy) -> Table {
    let cfg = Config { deadlines: policy, ..Config::default() };
    Table::configured(tag, Some("3h"), "committed", cfg)
}

#[test]
fn reminders_go_only_to_roles_not_yet_in() {
    let mut t = table("remind", Policy { reminder: Some("1h".into()), ..Policy::default() });
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    t.now += chrono::Duration::minutes(90);
    t.pass();
    assert!(!t.mails(BOB).iter().any(|m| m.0.contains("reminder")), "not yet: more than an hour to go");
    t.now += chrono::Duration::minutes(40);
    t.pass();
    assert!(t.last(BOB).0.contains("reminder"), "{:?}", t.last(BOB).0);
    assert!(!t.mails(ALICE).iter().any(|m| m.0.contains("reminder")), "alice's orders are in");
    let n = t.mails(BOB).len();
    t.now += chrono::Duration::minutes(10);
    t.pass();
    assert_eq!(t.mails(BOB).len(), n, "one reminder a step");
    t.now += chrono::Duration::minutes(60);
    assert_eq!(t.pass().resolved, 1);
}

#[test]
fn orders_in_the_grace_period_still_count() {
    let mut t = table("grace", Policy { grace: Some("30m".into()), ..Policy::default() });
    t.now += chrono::Duration::minutes(190);
    assert_eq!(t.pass().resolved, 0, "past the deadline, within the grace");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    let r = t.pass();
    assert_eq!((r.accepted, r.resolved), (2, 1), "{r:?}");
    assert!(!t.last(BOB).1.contains("No orders came"), "both sets counted");
}

#[test]
fn early_resolution_waits_a_little_for_revisions() {
    let mut t = table("early", Policy { early_delay: Some("10m".into()), ..Policy::default() });
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().resolved, 0, "everyone is in, but the delay runs");
    t.now += chrono::Duration::minutes(5);
    t.send("austria", ALICE, "PLACE Laudon AT Rovereto");
    t.pass();
    t.now += chrono::Duration::minutes(6);
    assert_eq!(t.pass().resolved, 1);
    let l = t.desk.load("g1").unwrap();
    assert!(l.game.state_text().contains("name = \"Laudon\"") && t.last(ALICE).1.contains("Austria sets up"));
    assert!(t.mails(ALICE).iter().any(|m| m.1.contains("Laudon") && m.1.contains("Rovereto")), "the revision counted");
}

/// A running daemon keeps each game's deadline facts between passes; a
/// change made by another process (here a second desk on the same folder,
/// as a CLI command would be) must still be seen at its next pass.
#[test]
fn a_running_desk_sees_a_deadline_another_process_moved() {
    let mut t = table("watch", Policy { early_delay: Some("10m".into()), ..Policy::default() });
    let watcher = adjutant::desk::Desk::open(&t.dir, t.desk.cfg.clone()).unwrap();
    assert_eq!(watcher.run_once(t.now).unwrap().resolved, 0, "nothing due for three hours");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().resolved, 0, "everyone is in; the step now resolves in ten minutes");
    let later = t.now + chrono::Duration::minutes(11);
    assert_eq!(watcher.run_once(later).unwrap().resolved, 1, "the watcher read the new tip");
}

/// A cold pass (cron's `run --once`, a restart) learns which games are due
/// from the data folder's tips index; an entry another process made stale
/// since, or an index damaged or gone, must never hide a deadline.
#[test]
fn a_cold_pass_trusts_the_tips_index_only_for_tips_unchanged_since() {
    let mut t = table("index", Policy { early_delay: Some("10m".into()), ..Policy::default() });
    let (dir, cfg) = (t.dir.clone(), t.desk.cfg.clone());
    let cold = |now| adjutant::desk::Desk::open(&dir, cfg.clone()).unwrap().run_once(now).unwrap().resolved;
    assert_eq!(cold(t.now), 0, "nothing due for three hours");
    let index = t.dir.join("secrets/tips.index");
    let written = std::fs::read_to_string(&index).expect("the pass wrote the index");
    assert!(written.lines().any(|l| l.starts_with("g1\t")), "{written}");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().resolved, 0, "everyone is in; the step now resolves in ten minutes");
    let later = t.now + chrono::Duration::minutes(11);
    // The index still says three hours, but g1's tip is not the one it saw.
    std::fs::write(&index, &written).unwrap();
    assert_eq!(cold(later), 1, "a stale entry is read again from the tip");
    // Damaged, or gone: the tips are read, and the index written anew.
    let later = later + chrono::Duration::hours(3) + chrono::Duration::minutes(1);
    std::fs::write(&index, "adjutant tips index 1\ng1\tgarbage\n").unwrap();
    assert_eq!(cold(later), 1, "a damaged index hides no deadline past");
    std::fs::remove_file(&index).unwrap();
    assert_eq!(cold(later), 0, "and nothing is resolved twice");
    assert!(std::fs::read_to_string(&index).is_ok_and(|x| x.contains("g1\t")), "rebuilt");
    assert_audits(&t.dir.join("games/g1/journal.toml"));
}

/// A running daemon also keeps the games it committed in memory; a game
/// another process wrote to since must be read from disk again, or the
/// daemon would chain its next entries onto an old tip and lose the other
/// process's orders.
#[test]
fn a_running_desk_takes_up_what_another_process_wrote_to_a_game_it_kept() {
    let mut t = table("kept", Policy { early_delay: Some("10m".into()), ..Policy::default() });
    let daemon = adjutant::desk::Desk::open(&t.dir, t.desk.cfg.clone()).unwrap();
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    assert_eq!(daemon.run_once(t.now).unwrap().accepted, 1, "the daemon now keeps g1");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().accepted, 1, "another process takes France's orders");
    t.send("austria", ALICE, "PLACE Laudon AT Rovereto");
    assert_eq!(daemon.run_once(t.now).unwrap().accepted, 1);
    let l = daemon.load("g1").unwrap();
    assert!(l.game.orders.contains_key("france"), "France's orders, written by the other process, are kept");
    assert!(l.game.orders["austria"].iter().any(|o| o.contains("Rovereto")));
    assert_audits(&t.dir.join("games/g1/journal.toml"));
}

/// A daemon keeps the games a pass touched warm for its next pass, however
/// many had mail; a pass with a backlog of steps due (more than 64 at once,
/// as after an outage) drops them before it resolves any and keeps none:
/// loaded between the backlog's pictures they would pin the memory those
/// freed (docs/performance.md). Nothing is lost either way.
#[test]
fn a_backlog_pass_keeps_no_game_warm() {
    let dir = temp_dir("backlog");
    let mut cfg = Config::default();
    cfg.limits.replies_per_hour = u32::MAX;
    cfg.mail.maps = "none".into();
    let desk = adjutant::desk::Desk::open(&dir, cfg).unwrap();
    let mut ent = fixed_entropy();
    let ids: Vec<String> = (0..70)
        .map(|g| {
            let players = vec![("austria".into(), format!("a{g}@example.org")), ("france".into(), BOB.into())];
            let req = adjutant::desk::NewGame {
                deadline: Some("3h".into()),
                id: Some(format!("b{g}")),
                ..adjutant::desk::NewGame::new("mantua", players)
            };
            desk.create(&req, t0(), &mut ent).unwrap()
        })
        .collect();
    let orders = |g: usize, round: usize| {
        let to = desk.reply_address(&ids[g], "austria");
        let raw = format!(
            "From: <a{g}@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <b{g}.{round}@example.org>\r\n\r\nPLACE Laudon AT Riva\r\n"
        );
        desk.post(raw.as_bytes(), t0()).unwrap();
    };
    (0..3).for_each(|g| orders(g, 0));
    let r = desk.run_once(t0()).unwrap();
    assert_eq!(r.accepted, 3, "{r:?}");
    assert_eq!(desk.games_kept(), 3, "a few games stay warm");
    (0..70).for_each(|g| orders(g, 1));
    assert_eq!(desk.run_once(t0()).unwrap().accepted, 70);
    assert_eq!(desk.games_kept(), 70, "mail for 70 games keeps them warm");
    let later = t0() + chrono::Duration::hours(4);
    assert_eq!(desk.run_once(later).unwrap().resolved, 70, "every step due, none lost");
    assert_eq!(desk.games_kept(), 0, "70 steps due at once is a backlog");
    (0..3).for_each(|g| orders(g, 2));
    assert_eq!(desk.run_once(later).unwrap().messages, 3);
    assert_eq!(desk.games_kept(), 3, "the next few are kept again");
    for id in &ids {
        assert_eq!(desk.load(id).unwrap().game.step, 2, "{id}");
        assert_audits(&dir.join(format!("games/{id}/journal.toml")));
    }
}

#[test]
fn deadlines_are_shown_in_each_players_zone() {
    let mut t = table("zone", Policy::default());
    t.send("austria", ALICE, "ZONE Europe/Rome");
    t.send("france", BOB, "ZONE Mars/Olympus");
    t.pass();
    let (s, body) = t.last(ALICE);
    assert!(s.contains("time zone set") && body.contains("CET") && body.contains("UTC"), "{s}: {body}");
    assert!(t.last(BOB).1.contains("is not a time zone"));
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    t.pass();
    let body = t.last(ALICE).1;
    assert!(
        body.contains("Deadline:") && body.contains("CET"),
        "alice, awaited next, reads the deadline in Rome time: {body}"
    );
}

#[test]
fn an_absence_moves_the_deadline_under_the_extend_policy() {
    let mut t = table("absent", Policy::default());
    t.send("france", BOB, "ABSENT 2026-03-01 2026-03-05");
    t.pass();
    let body = t.last(BOB).1;
    assert!(body.contains("The deadline moves to") && body.contains("06 Mar 2026"), "{body}");
    t.now += chrono::Duration::hours(4);
    assert_eq!(t.pass().resolved, 0, "the original deadline no longer applies");
    let mut u = table("absent2", Policy { absent: "no-moves".into(), ..Policy::default() });
    u.send("france", BOB, "ABSENT 2026-03-01 2026-03-05");
    u.pass();
    assert!(u.last(BOB).1.contains("no-moves rule"));
    u.now += chrono::Duration::hours(4);
    assert_eq!(u.pass().resolved, 1);
}

#[test]
fn missing_steps_leads_to_civil_disorder_and_replace_ends_it() {
    let mut t = table("disorder", Policy { missed_for_disorder: 2, ..Policy::default() });
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    t.now += chrono::Duration::hours(4);
    assert_eq!(t.pass().resolved, 1, "france missed the set-up");
    assert!(!t.mails(CAROL).iter().any(|m| m.0.contains("civil disorder")));
    t.send("austria", ALICE, "PASS");
    t.pass();
    t.now += chrono::Duration::hours(4);
    assert_eq!(t.pass().resolved, 1, "france missed its first turn");
    assert!(
        t.mails(CAROL).iter().any(|m| m.0.contains("france is in civil disorder")),
        "the moderator is asked for a replacement"
    );
    assert!(t.mails(BOB).iter().any(|m| m.0.contains("civil disorder")));
    t.send("gm", CAROL, "REPLACE france dave@example.org");
    t.pass();
    let l = t.desk.load("g1").unwrap();
    assert!(l.desk.disorder.is_empty() && !l.desk.missed.contains_key("france"));
}

#[test]
fn a_daemon_down_past_a_deadline_resolves_once_on_start() {
    let mut t = table("down", Policy::default());
    t.now += chrono::Duration::hours(30);
    assert_eq!(t.pass().resolved, 1, "the missed deadline, once");
    assert_eq!(t.pass().resolved, 0, "and the next step has its own deadline");
    assert_eq!(t.step(), 2);
}

#[test]
fn a_deadline_kind_no_game_has_is_refused_by_name() {
    let dir = crate::support::temp_dir("kinds");
    let mut cfg = adjutant::config::Config::default();
    cfg.deadlines.kinds.insert("batle turn".into(), "24h".into());
    let err = match adjutant::desk::Desk::open(&dir, cfg) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a typo in a step kind was accepted"),
    };
    assert!(err.contains("\"batle turn\"") && err.contains("battle turn") && err.contains("housekeeping"), "{err}");
    let mut cfg = adjutant::config::Config::default();
    cfg.deadlines.kinds.insert("battle turn".into(), "24h".into());
    assert!(adjutant::desk::Desk::open(&dir, cfg).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}
