//! The desk on the embedded default: accepted orders, and every kind of bad
//! input answered clearly while nothing changes.

use crate::support::*;

#[test]
fn setup_orders_are_acknowledged_and_resolve_the_step() {
    let mut t = Table::new("happy");
    t.send("austria", ALICE, "PLACE Laudon AT Riva\nSALT hello-world");
    let r = t.pass();
    assert_eq!((r.accepted, r.resolved), (1, 0));
    let (s, body) = t.last(ALICE);
    assert!(s.contains("step 1: accepted"), "{s}");
    assert!(body.contains("PLACE Laudon AT Riva") && body.contains("hello-world"), "{body}");
    t.send("france", BOB, "place bonaparte at verona");
    let r = t.pass();
    assert_eq!(r.resolved, 1);
    let (s, body) = t.last(BOB);
    assert!(s.contains("step 1 resolved"), "{s}");
    assert!(body.contains("salt austria: hello-world"), "the dice block lists every salt: {body}");
    let (s, _) = t.last(ALICE);
    assert!(s.contains("[g1] step 2: your orders are awaited (turn); step 1 resolved"), "{s}");
    // A plain Reply to that mail (its subject names the open step) is
    // taken: the regression was a reply to the results being refused as
    // an answer to the resolved step.
    t.send_subject("austria", ALICE, &format!("Re: {s}"), "PASS");
    assert_eq!(t.pass().resolved, 1);
    assert_eq!(t.step(), 3);
}

#[test]
fn unknown_game_is_refused_politely() {
    let mut t = Table::new("nogame");
    let raw = format!("From: <{ALICE}>\r\nTo: <game+nosuch.0123456789abcdef@adjutant.local>\r\nSubject: hi\r\nMessage-ID: <x1@example.org>\r\n\r\nPASS\r\n");
    let before = t.digest();
    t.post_raw(raw.as_bytes());
    let r = t.pass();
    assert_eq!(r.refused, 1);
    let (_, body) = t.last(ALICE);
    assert!(body.contains("there is no game \"nosuch\""), "{body}");
    assert_eq!(t.digest(), before);
}

#[test]
fn no_reference_at_all_is_refused() {
    let mut t = Table::new("noref");
    let raw = format!("From: <{BOB}>\r\nTo: <game@adjutant.local>\r\nSubject: hi\r\nMessage-ID: <x2@example.org>\r\n\r\nPLACE Bonaparte AT Verona\r\n");
    t.post_raw(raw.as_bytes());
    assert_eq!(t.pass().refused, 1);
    assert!(t.last(BOB).1.contains("does not say which game"));
}

#[test]
fn spoofed_sender_is_refused_and_changes_nothing() {
    let mut t = Table::new("spoof");
    let before = t.digest();
    t.send("austria", "mallory@example.net", "PLACE Laudon AT Riva");
    let r = t.pass();
    assert_eq!((r.refused, r.accepted), (1, 0));
    assert!(t.last("mallory@example.net").1.contains("not sent from the address registered for austria"));
    assert_eq!(t.digest(), before);
    let l = t.desk.load(&t.game).unwrap();
    assert!(l.game.orders.is_empty());
}

#[test]
fn wrong_token_is_refused() {
    let mut t = Table::new("token");
    let raw = format!("From: <{ALICE}>\r\nTo: <game+g1.ffffffffffffffff@adjutant.local>\r\nSubject: hi\r\nMessage-ID: <x3@example.org>\r\n\r\nPLACE Laudon AT Riva\r\n");
    t.post_raw(raw.as_bytes());
    assert_eq!(t.pass().refused, 1);
    assert!(t.last(ALICE).1.contains("reply token does not belong"));
}

#[test]
fn unknown_place_gets_every_bad_line_with_a_suggestion() {
    let mut t = Table::new("place");
    let before = t.digest();
    t.send(
        "france",
        BOB,
        "PLACE Bonaparte AT Vienna\nPLACE Masena AT Caldiero\nPLACE Joubert AT Rivoli\nFLY Kilmaine TO Paris",
    );
    let r = t.pass();
    assert_eq!(r.rejected, 1);
    let (s, body) = t.last(BOB);
    assert!(s.contains("NOT accepted"), "{s}");
    assert!(body.contains("line 1: PLACE Bonaparte AT Vienna") && body.contains("did you mean Vicenza?"), "{body}");
    assert!(body.contains("line 2:") && body.contains("did you mean Masséna?"), "{body}");
    assert!(body.contains("line 4: FLY Kilmaine TO Paris"), "{body}");
    assert!(!body.contains("line 3:"), "a good line is not reported: {body}");
    assert_eq!(t.digest(), before);
    assert!(t.desk.load(&t.game).unwrap().game.orders.is_empty());
}

#[test]
fn illegal_move_and_two_networks_are_rejected() {
    let mut t = Table::new("illegal");
    t.setup();
    let before = t.digest();
    t.send("austria", ALICE, "MOVE Provera TO Verona");
    t.pass();
    let body = t.last(ALICE).1;
    assert!(
        body.contains("Verona is not adjacent to Friuli") && body.contains("from Friuli a block can move to"),
        "{body}"
    );
    t.send("austria", ALICE, "MOVE Provera TO Padova\nMOVE Davidovich TO Trento");
    t.pass();
    let body = t.last(ALICE).1;
    assert!(body.contains("not in communication with Provera"), "{body}");
    assert_eq!(t.digest(), before);
}

#[test]
fn moving_out_of_turn_is_rejected() {
    let mut t = Table::new("turn");
    t.setup();
    t.send("france", BOB, "MOVE Augereau TO Vicenza");
    t.pass();
    let body = t.last(BOB).1;
    assert!(body.contains("does not await orders from france"), "{body}");
}

#[test]
fn malformed_mime_does_not_crash_or_change_anything() {
    let mut t = Table::new("mime");
    let before = t.digest();
    t.post_raw(b"\x00\xff\xfe garbage that is not a message at all");
    let to = t.desk.reply_address("g1", "france");
    let broken = format!(
        "From: <{BOB}>\r\nTo: <{to}>\r\nSubject: broken\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"zzz\"\r\n\r\n--zzz\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64!!!\r\n--zz"
    );
    t.post_raw(broken.as_bytes());
    let r = t.pass();
    assert_eq!(r.messages, 2);
    assert_eq!(r.accepted, 0);
    assert_eq!(t.digest(), before);
}

#[test]
fn empty_body_is_answered() {
    let mut t = Table::new("empty");
    t.send("france", BOB, "");
    let r = t.pass();
    assert_eq!(r.rejected, 1);
    assert!(t.last(BOB).1.contains("no order or command was found"));
}

/// A reply with `mb` MiB of attachment under its orders.
fn with_attachment(t: &Table, mb: usize) -> Vec<u8> {
    let to = t.desk.reply_address("g1", "france");
    let mut raw = format!(
        "From: <{BOB}>\r\nTo: <{to}>\r\nSubject: big\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nPLACE Bonaparte AT Verona\r\n--b\r\nContent-Type: image/jpeg\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    )
    .into_bytes();
    for _ in 0..mb * 1024 * 1024 / 77 {
        raw.extend_from_slice(&[b'A'; 76]);
        raw.extend_from_slice(b"\n");
    }
    raw.extend_from_slice(b"\r\n--b--\r\n");
    raw
}

#[test]
fn a_photo_attached_is_fine_and_a_huge_mail_refused_unread() {
    // An ordinary mail with a photo (10 MiB) is read.
    let mut t = Table::new("photo");
    t.post_raw(&with_attachment(&t, 10));
    let r = t.pass();
    assert_eq!((r.refused, r.accepted), (0, 1));
    // Past the 25 MiB default it is refused unread, and nothing changes.
    let mut t = Table::new("big");
    let before = t.digest();
    t.post_raw(&with_attachment(&t, 26));
    let r = t.pass();
    assert_eq!((r.refused, r.accepted), (1, 0));
    assert!(t.last(BOB).1.contains("the limit is"));
    assert_eq!(t.digest(), before);
}

#[test]
fn orders_for_a_step_already_resolved_are_rejected() {
    let mut t = Table::new("stale");
    t.setup();
    let before = t.digest();
    // France answers the set-up prompt again after the set-up resolved.
    t.send_subject("france", BOB, "Re: [g1] step 1: your orders are awaited (setup)", "PLACE Joubert AT Rivoli");
    let r = t.pass();
    assert_eq!(r.rejected, 1);
    assert!(t.last(BOB).1.contains("replies to step 1, which has already been resolved"));
    assert_eq!(t.digest(), before);
}

#[test]
fn the_same_message_twice_is_handled_once() {
    let mut t = Table::new("dupe");
    let to = t.desk.reply_address("g1", "austria");
    let raw = format!(
        "From: <{ALICE}>\r\nTo: <{to}>\r\nSubject: x\r\nMessage-ID: <same@example.org>\r\n\r\nPLACE Laudon AT Riva\r\n"
    );
    t.post_raw(raw.as_bytes());
    t.post_raw(raw.as_bytes());
    let r = t.pass();
    assert_eq!((r.accepted, r.duplicates), (1, 1));
    // In a later pass, from the game's own record of what it handled (not
    // the snapshot, which stays the size of the game's state) ...
    t.post_raw(raw.as_bytes());
    assert_eq!(t.pass().duplicates, 1);
    let dir = t.dir.join("games/g1");
    let snapshot = std::fs::read_to_string(dir.join("state.toml")).unwrap();
    assert!(!snapshot.contains("same@example.org"), "the snapshot holds no Message-IDs");
    // ... and when that record is cut short (a lost write), the game
    // rebuilds it from the journal rather than forget.
    let seen = dir.join("seen");
    assert_eq!(std::fs::metadata(&seen).unwrap().len(), 2 * 33, "two keys: the bytes and the Message-ID");
    std::fs::write(&seen, b"").unwrap();
    t.post_raw(raw.as_bytes());
    assert_eq!(t.pass().duplicates, 1);
    assert_eq!(std::fs::metadata(&seen).unwrap().len(), 2 * 33);
}

#[test]
fn auto_replies_and_bounces_get_no_answer() {
    let mut t = Table::new("auto");
    let to = t.desk.reply_address("g1", "austria");
    let n_before = t.mails(ALICE).len();
    t.post_raw(format!("From: <{ALICE}>\r\nTo: <{to}>\r\nAuto-Submitted: auto-replied\r\nSubject: Out of office\r\n\r\nI am away.\r\n").as_bytes());
    t.post_raw(
        format!("From: <MAILER-DAEMON@example.org>\r\nTo: <{to}>\r\nSubject: Undelivered\r\n\r\nbounce\r\n").as_bytes(),
    );
    t.post_raw(
        format!("From: <{ALICE}>\r\nTo: <{to}>\r\nPrecedence: bulk\r\nSubject: list\r\n\r\nPASS\r\n").as_bytes(),
    );
    let r = t.pass();
    assert_eq!(r.dropped, 3);
    assert_eq!(t.mails(ALICE).len(), n_before);
    assert!(t.mails("mailer-daemon@example.org").is_empty());
}

#[test]
fn refusals_are_rate_limited_so_loops_die_out() {
    let mut t = Table::new("loop");
    for _ in 0..20 {
        t.send("austria", "robot@example.net", "PLACE Laudon AT Riva");
    }
    let r = t.pass();
    assert_eq!(r.refused, 20);
    assert_eq!(t.mails("robot@example.net").len(), 5, "five refusals an hour at most");
}

#[test]
fn help_status_view_and_press() {
    let mut t = Table::new("cmds");
    t.send("france", BOB, "HELP\nSTATUS\nVIEW\nPRESS austria Bonjour, Vienne.");
    t.pass();
    let subjects: Vec<String> = t.mails(BOB).into_iter().map(|m| m.0).collect();
    assert!(
        subjects.iter().any(|s| s.contains("help"))
            && subjects.iter().any(|s| s.contains("status"))
            && subjects.iter().any(|s| s.contains("your view")),
        "{subjects:?}"
    );
    let press = t.mails(ALICE).into_iter().find(|m| m.0.contains("press from france")).expect("press relayed");
    assert!(press.1.contains("Bonjour, Vienne."));
    assert!(t.mails(CAROL).iter().all(|m| !m.0.contains("press")), "PRESS to austria is not sent to the moderator");
}

#[test]
fn bad_salt_and_bad_press_are_rejected_whole() {
    let mut t = Table::new("salt");
    t.send("austria", ALICE, &format!("PLACE Laudon AT Riva\nSALT {}", "x".repeat(80)));
    t.pass();
    let body = t.last(ALICE).1;
    assert!(body.contains("a salt is 1 to 64 printable"), "{body}");
    assert!(t.desk.load(&t.game).unwrap().game.orders.is_empty(), "all or nothing");
    t.send("austria", ALICE, "PRESS prussia hello");
    t.pass();
    assert!(t.last(ALICE).1.contains("PRESS needs a recipient"));
}

#[test]
fn deadline_applies_the_no_moves_rule() {
    let mut t = Table::with("deadline", Some("1h"), "committed");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    assert_eq!(t.step(), 1);
    t.now += chrono::Duration::hours(2);
    let r = t.pass();
    assert_eq!(r.resolved, 1);
    assert_eq!(t.step(), 2);
    let body = t.last(BOB).1;
    assert!(body.contains("No orders came from france"), "{body}");
}

#[test]
fn moderator_commands() {
    let mut t = Table::new("gm");
    t.send("gm", CAROL, "PAUSE");
    t.pass();
    assert!(t.desk.load(&t.game).unwrap().desk.paused);
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    t.pass();
    assert_eq!(t.step(), 1, "a paused game does not resolve");
    t.send("gm", CAROL, "RESUME\nRESOLVE NOW");
    t.pass();
    assert_eq!(t.step(), 2);
    t.send("gm", CAROL, "REPLACE france dave@example.org");
    t.pass();
    t.send("gm", CAROL, "DECLARE escape 4");
    t.pass();
    assert!(t.last(CAROL).1.contains("committed, not declared"));
    t.send("austria", ALICE, "MOVE Provera TO Piave");
    t.pass();
    assert!(t.mails("dave@example.org").iter().any(|m| m.0.contains("step 2 resolved")));
    // The replaced player's credential no longer works, even from the
    // new player's own address; the new player's does.
    t.send_subject("france", "dave@example.org", "Re: orders", "STATUS");
    t.pass();
    assert!(t.mails("dave@example.org").iter().any(|m| m.1.contains("reply token does not belong")));
    let to = t.desk.reply_address_at("g1", "france", 1);
    t.post_raw(format!("From: <dave@example.org>\r\nTo: <{to}>\r\nSubject: hello\r\n\r\nSTATUS\r\n").as_bytes());
    t.pass();
    assert!(t.last("dave@example.org").0.contains("status"), "{:?}", t.last("dave@example.org"));
    let welcome =
        t.mails("dave@example.org").into_iter().find(|m| m.0.contains("welcome")).expect("the replacement is welcomed");
    assert!(
        welcome.1.contains("BEGIN ADJUTANT ANCHORS")
            && welcome
                .1
                .contains(&t.mails(BOB)[0].1.lines().find(|l| l.starts_with("anchor public:")).unwrap().to_string())
    );
    t.send("gm", CAROL, "END");
    t.pass();
    let (s, body) = t.last(ALICE);
    assert!(s.contains("game over"), "{s}");
    assert!(body.contains("BEGIN ADJUTANT REVEAL") && body.contains("link role:france 1:"), "{body}");
    t.send("austria", ALICE, "PASS");
    t.pass();
    assert!(t.last(ALICE).1.contains("the game is over"));
}

#[test]
fn a_player_cannot_use_moderator_commands() {
    let mut t = Table::new("notgm");
    t.send("austria", ALICE, "END");
    t.pass();
    assert!(t.last(ALICE).0.contains("NOT accepted"));
    assert!(!t.desk.load(&t.game).unwrap().game.ended);
}

#[test]
fn resign_ends_the_game_for_the_other_side() {
    let mut t = Table::new("resign");
    t.send("france", BOB, "RESIGN");
    t.pass();
    let body = t.last(ALICE).1;
    assert!(body.contains("Winner: austria (france resigned)"), "{body}");
    // Regression: mail after the end (a "good game" with orders, a salt)
    // was journaled in a form audit then refused.
    t.send("austria", ALICE, "PASS\nSALT late");
    t.send("france", BOB, "SALT late");
    t.pass();
    crate::support::assert_audits(&t.dir.join("games/g1/journal.toml"));
}

#[test]
fn hostile_text_never_crashes_the_desk() {
    let mut t = Table::new("hostile");
    t.setup();
    let before = t.digest();
    // Characters whose lowercase is longer once sliced an order line off a
    // char boundary; huge durations overflowed date arithmetic.
    t.send("austria", ALICE, "MOVE İİİİİİİİ TO Verona\nPLACE İİİİİİİİİ AT Riva");
    t.send("gm", CAROL, "EXTEND 10000000000000000s\nEXTEND 100000000d");
    t.send("austria", ALICE, "ABSENT 2026-01-01 9999-12-31");
    let r = t.pass();
    assert_eq!((r.rejected, r.quarantined), (3, 0), "{r:?}");
    assert!(t.mails(CAROL).iter().any(|m| m.1.contains("cannot read the duration")));
    assert_eq!(t.digest(), before);
}

#[test]
fn a_broken_game_is_quarantined_and_the_others_go_on() {
    let mut t = Table::new("quarantine");
    let req = adjutant::desk::NewGame {
        id: Some("g2".into()),
        ..adjutant::desk::NewGame::new("mantua", vec![("austria".into(), ALICE.into()), ("france".into(), BOB.into())])
    };
    t.desk.create(&req, t0(), &mut fixed_entropy()).unwrap();
    // Game g2's journal is destroyed beyond repair (and its snapshot gone).
    std::fs::write(t.dir.join("games/g2/journal.toml"), "not a journal").unwrap();
    let _ = std::fs::remove_file(t.dir.join("games/g2/state.toml"));
    let to = t.desk.reply_address("g2", "austria");
    t.post_raw(format!("From: <{ALICE}>\r\nTo: <{to}>\r\nSubject: x\r\n\r\nPLACE Laudon AT Riva\r\n").as_bytes());
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    let r = t.pass();
    assert_eq!((r.quarantined, r.accepted), (1, 1), "{r:?}");
    assert_eq!(t.desk.set_aside().len(), 1);
    assert_eq!(t.pass().messages, 0, "the quarantined message is out of the inbox");
}

#[test]
fn a_partial_entry_left_by_a_crash_is_cut_off() {
    let mut t = Table::new("partial");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    let before = t.digest();
    let jp = t.dir.join("games/g1/journal.toml");
    let mut text = std::fs::read_to_string(&jp).unwrap();
    text.push_str("[[entry]]\nseq = 99\nkind = \"accep");
    std::fs::write(&jp, text).unwrap();
    std::fs::remove_file(t.dir.join("games/g1/state.toml")).unwrap();
    assert_eq!(t.digest(), before, "rebuilt without the partial entry");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().resolved, 1, "and the game goes on");
    crate::support::assert_audits(&jp);
}

#[test]
fn html_only_quoted_printable_and_latin1_orders_are_read() {
    let mut t = Table::new("encodings");
    let to = t.desk.reply_address("g1", "france");
    let html = format!("From: <{BOB}>\r\nTo: <{to}>\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>PLACE Bonaparte AT Verona</p><div>PLACE Mass&eacute;na AT Caldiero</div></body></html>\r\n");
    t.post_raw(html.as_bytes());
    t.pass();
    let (s, body) = t.last(BOB);
    assert!(s.contains("accepted"), "{s}: {body}");
    assert!(body.contains("PLACE Masséna AT Caldiero"), "{body}");
    let mut latin = format!("From: <{ALICE}>\r\nTo: <{}>\r\nSubject: y\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nPLACE Laudon AT Riva\r\nOn Sun, 1 Mar 2026, adjutant wrote:\r\n> PLACE Davidovich AT Sal=F2\r\n", t.desk.reply_address("g1", "austria")).into_bytes();
    latin.extend_from_slice(b"");
    t.post_raw(&latin);
    t.pass();
    assert_eq!(t.step(), 2, "both set-ups accepted and resolved");
}

#[test]
fn a_ref_line_identifies_the_game_without_the_reply_address() {
    let mut t = Table::new("ref");
    let token = t.desk.token("g1", "austria");
    let raw = format!("From: <{ALICE}>\r\nTo: <game@adjutant.local>\r\nSubject: my orders\r\nMessage-ID: <ref1@example.org>\r\n\r\nREF g1.{token}\r\nPLACE Laudon AT Riva\r\n");
    t.post_raw(raw.as_bytes());
    let r = t.pass();
    assert_eq!(r.accepted, 1, "{r:?}");
    let raw = format!("From: <{BOB}>\r\nTo: <game@adjutant.local>\r\nSubject: REF g1.{} set-up\r\nMessage-ID: <ref2@example.org>\r\n\r\nPLACE Bonaparte AT Verona\r\n", t.desk.token("g1", "france"));
    t.post_raw(raw.as_bytes());
    assert_eq!(t.pass().resolved, 1);
}

#[test]
fn declared_dice_wait_for_the_moderator() {
    let mut t = Table::with("declared", None, "declared");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    t.pass();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Padova");
    t.pass();
    t.send("france", BOB, "MOVE Augereau TO Vicenza");
    t.pass();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Vicenza");
    t.pass();
    let step = t.step();
    t.send("france", BOB, "ESCAPE TO Bassano");
    t.pass();
    assert_eq!(t.step(), step, "the escape roll is not declared yet");
    let (s, body) = t.last(CAROL);
    assert!(s.contains("dice to declare") && body.contains("escape roll, France from Vicenza"), "{s}: {body}");
    // Declaring is enough: the step was complete and only waited for it.
    t.send("gm", CAROL, "DECLARE escape roll 2");
    t.pass();
    assert_eq!(t.step(), step + 1);
    assert!(t.last(BOB).1.contains("draw public 0 die 6 2 declared | escape roll"), "{}", t.last(BOB).1);
    let (ok, text) = audit(&t.dir.join("games/g1/journal.toml"));
    assert!(ok && text.contains("(1 declared, not verifiable)"), "{text}");
}

#[test]
fn free_text_is_ignored_and_quoted_back() {
    let mut t = Table::new("prose");
    t.send("france", BOB, "Hi,\nhere are my orders:\n\nPLACE Bonaparte AT Verona\n\nThanks!\nBob\n");
    let r = t.pass();
    assert_eq!((r.accepted, r.rejected), (1, 0));
    let ack = t.last(BOB).1;
    assert!(ack.contains("Not read as orders"), "{ack}");
    for l in ["line 1: \"Hi,\"", "line 2: \"here are my orders:\"", "line 6: \"Thanks!\"", "line 7: \"Bob\""] {
        assert!(ack.contains(l), "{l} missing from {ack}");
    }
}

#[test]
fn a_misspelled_order_in_friendly_prose_is_refused_with_its_line() {
    let mut t = Table::new("typo");
    let before = t.digest();
    t.send("france", BOB, "Hi,\n\nPLACE Bonaparte AT Verona\nPLCE Augereau AT Verona\nAugereau to Verona\n\nThanks!\n");
    let r = t.pass();
    assert_eq!((r.accepted, r.rejected), (0, 1));
    let (subject, body) = t.last(BOB);
    assert!(subject.contains("NOT accepted"), "{subject}");
    assert!(body.contains("line 4: PLCE Augereau AT Verona"), "{body}");
    assert!(body.contains("line 5: Augereau to Verona"), "{body}");
    assert!(body.contains("line 1: \"Hi,\""), "the free text is quoted back: {body}");
    assert_eq!(t.digest(), before);
}

#[test]
fn nothing_read_says_what_was_found() {
    let mut t = Table::new("nothing");
    t.send(
        "france",
        BOB,
        "On Sun, 1 Mar 2026, adjutant wrote:\n> PLACE <block> AT <city>\n> more\n\nThanks!\n-- \nBob\n",
    );
    let r = t.pass();
    assert_eq!(r.rejected, 1);
    let body = t.last(BOB).1;
    assert!(body.contains("no order or command was found"), "{body}");
    assert!(body.contains("line 1: an attribution line"), "{body}");
    assert!(body.contains("line 2: quoted text"), "{body}");
    assert!(body.contains("line 6: your signature"), "{body}");
    assert!(body.contains("line 5: \"Thanks!\""), "{body}");
}

#[test]
fn an_end_line_stops_reading() {
    let mut t = Table::new("end");
    // What follows END is not read, however long (a pasted original).
    let pasted: String = (0..600).map(|i| format!("PLCE whatever {i}\n")).collect();
    t.send("france", BOB, &format!("PLACE Bonaparte AT Verona\nEND\n{pasted}"));
    let r = t.pass();
    assert_eq!(r.accepted, 1);
}

#[test]
fn a_map_goes_as_png_and_svg_and_the_outbox_uses_lf() {
    use mail_parser::MimeHeaders;
    let t = Table::new("png");
    let raws = t.raw_mails(ALICE);
    let prompt = raws.iter().find(|r| String::from_utf8_lossy(r).contains("image/png")).expect("a mail with a map");
    assert!(!prompt.contains(&b'\r'), "Maildir files use LF line ends");
    let m = mail_parser::MessageParser::default().parse(&prompt[..]).unwrap();
    let names: Vec<(String, String)> = m
        .attachments()
        .map(|a| {
            let ct =
                a.content_type().map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or(""))).unwrap_or_default();
            (a.attachment_name().unwrap_or("").to_string(), ct)
        })
        .collect();
    assert_eq!(
        names,
        [
            ("map-g1-step1.png".to_string(), "image/png".to_string()),
            ("map-g1-step1.svg".to_string(), "image/svg+xml".to_string())
        ]
    );
    let png = m.attachments().next().unwrap().contents();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG, decoded from base64 intact");
}

#[test]
fn nothing_in_the_data_folder_is_readable_by_group_or_others() {
    use std::os::unix::fs::PermissionsExt;
    let mut t = Table::new("private");
    t.setup();
    t.send("austria", ALICE, "PRESS france hello");
    t.pass();
    fn walk(p: &std::path::Path, bad: &mut Vec<String>) {
        let mode = std::fs::symlink_metadata(p).unwrap().permissions().mode();
        if mode & 0o077 != 0 {
            bad.push(format!("{} {:o}", p.display(), mode & 0o777));
        }
        if p.is_dir() {
            for e in std::fs::read_dir(p).unwrap().flatten() {
                walk(&e.path(), bad);
            }
        }
    }
    let mut bad = Vec::new();
    walk(&t.dir, &mut bad);
    assert!(bad.is_empty(), "open to others: {bad:?}");
}

#[test]
fn an_outbox_the_operator_put_outside_the_data_folder_follows_the_operator_umask() {
    use std::os::unix::fs::PermissionsExt;
    let outside = std::env::temp_dir().join(format!("adjutant-outside-outbox-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    let cfg = adjutant::config::Config {
        outbound: adjutant::config::Outbound::File { path: Some(outside.to_string_lossy().to_string()) },
        ..Default::default()
    };
    let t = Table::configured("outside", Some("72h"), "committed", cfg);
    let umask = adjutant::desk::operator_umask();
    let mut files = 0;
    for who in std::fs::read_dir(&outside).unwrap().flatten() {
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&who.path()), 0o777 & !umask, "{}", who.path().display());
        for m in std::fs::read_dir(who.path().join("new")).unwrap().flatten() {
            assert_eq!(mode(&m.path()), 0o666 & !umask, "{}", m.path().display());
            files += 1;
        }
    }
    assert!(files >= 3, "the welcome mails are there");
    // The data folder itself stays private.
    let key = std::fs::metadata(t.dir.join("server.key")).unwrap().permissions().mode();
    assert_eq!(key & 0o077, 0);
    let _ = std::fs::remove_dir_all(&outside);
}

#[test]
fn a_flood_from_a_player_gets_one_notice_then_silence_and_limits_are_clear() {
    let mut t = Table::new("flood");
    let before = t.mails(BOB).len();
    for _ in 0..70 {
        t.send("france", BOB, "STATUS");
    }
    t.pass();
    let mails = t.mails(BOB);
    let got = &mails[before..];
    assert_eq!(got.len(), 61, "60 replies, then one notice");
    assert_eq!(got.iter().filter(|m| m.0.contains("too many replies this hour")).count(), 1);
    assert_eq!(got.iter().filter(|m| m.0.contains("status")).count(), 60);
    // An hour later, answers again.
    t.now += chrono::Duration::minutes(61);
    t.send("france", BOB, "STATUS");
    t.pass();
    assert_eq!(t.mails(BOB).len(), before + 62);
    // A long submission is refused unread, a long PRESS by its line, and a
    // rejection lists at most 50 problems.
    let long: String = (0..501).map(|i| format!("PLACE Nobody{i} AT Nowhere\n")).collect();
    t.send("france", BOB, &long);
    t.pass();
    assert!(t.last(BOB).1.contains("at most 500 are read"), "{}", t.last(BOB).1);
    t.send("france", BOB, &format!("PRESS austria {}", "x".repeat(2001)));
    t.pass();
    assert!(t.last(BOB).1.contains("line 1: PRESS austria xxx"), "{}", t.last(BOB).1);
    assert!(t.last(BOB).1.contains("at most 2000 characters"));
    let many: String = (0..80).map(|i| format!("PLACE Nobody{i} AT Nowhere\n")).collect();
    t.send("france", BOB, &many);
    t.pass();
    let body = t.last(BOB).1;
    assert!(body.contains("and 30 more problems, not listed"), "{body}");
    assert!(!body.contains("Nobody79"), "only the first 50 are listed");
}

#[test]
fn orders_answering_an_old_prompt_by_in_reply_to_are_stale_and_a_second_path_is_a_duplicate() {
    let mut t = Table::new("stale");
    // The step-1 prompt Bob got.
    let old = t
        .raw_mails(BOB)
        .iter()
        .filter_map(|r| {
            mail_parser::MessageParser::default().parse(&r[..]).and_then(|m| m.message_id().map(String::from))
        })
        .find(|id| id.contains(".s1@"))
        .expect("a step-1 mail");
    t.setup();
    assert_eq!(t.step(), 2);
    let before = t.digest();
    let to = t.desk.reply_address("g1", "france");
    let raw = format!(
        "From: <{BOB}>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <replay1@example.org>\r\nIn-Reply-To: <{old}>\r\n\r\nPASS\r\n"
    );
    t.post_raw(raw.as_bytes());
    let r = t.pass();
    assert_eq!(r.rejected, 1);
    assert!(t.last(BOB).1.contains("this replies to step 1"), "{}", t.last(BOB).1);
    assert_eq!(t.digest(), before);
    // The same message by a second path (one more Received: line): seen.
    t.post_raw(format!("Received: from relay2.example.org\r\n{raw}").as_bytes());
    let r = t.pass();
    assert_eq!((r.duplicates, r.rejected), (1, 0));
}

#[test]
fn loops_late_salts_and_huge_subjects() {
    let mut t = Table::new("small");
    // Mail from the game's own address is never answered.
    let to = t.desk.reply_address("g1", "france");
    t.post_raw(format!("From: <game@adjutant.local>\r\nTo: <{to}>\r\nSubject: loop\r\n\r\nSTATUS\r\n").as_bytes());
    let r = t.pass();
    assert_eq!(r.dropped, 1);
    // A stranger's megabyte subject is not echoed back whole.
    let subject = "x".repeat(1_500_000);
    t.post_raw(
        format!("From: <stranger@example.org>\r\nTo: <game@adjutant.local>\r\nSubject: {subject}\r\n\r\nhello\r\n")
            .as_bytes(),
    );
    t.pass();
    let (s, _) = t.last("stranger@example.org");
    assert!(s.starts_with("Re: xxx") && s.chars().count() <= 204, "{} characters", s.chars().count());
    // After the end a SALT is refused, not acknowledged.
    t.send("gm", CAROL, "END");
    t.pass();
    t.send("france", BOB, "SALT too-late");
    let r = t.pass();
    assert_eq!(r.rejected, 1);
    assert!(t.last(BOB).1.contains("no salt is taken"), "{}", t.last(BOB).1);
}

#[test]
fn orders_in_a_numbered_list_are_orders() {
    let mut t = Table::new("list");
    t.send("france", BOB, "My orders:\n1. PLACE Bonaparte AT Verona\n2) SALT numbered\n- PLACE Masséna AT Caldiero\n");
    let r = t.pass();
    assert_eq!((r.accepted, r.rejected), (1, 0));
    let ack = t.last(BOB).1;
    assert!(ack.contains("PLACE Bonaparte AT Verona") && ack.contains("PLACE Masséna AT Caldiero"), "{ack}");
    assert!(ack.contains("Your salt for this step: numbered"), "{ack}");
}

#[test]
fn a_reply_to_the_ack_of_the_orders_that_completed_a_step_is_stale() {
    let mut t = Table::new("stale-ack");
    t.setup();
    // Bob's orders completed step 1: his acknowledgement is about step 1,
    // though it left in the same commit as step 2's prompts.
    let ack = t
        .raw_mails(BOB)
        .iter()
        .filter_map(|r| {
            let m = mail_parser::MessageParser::default().parse(&r[..])?;
            m.subject().filter(|s| s.contains("step 1: accepted"))?;
            m.message_id().map(String::from)
        })
        .next()
        .expect("Bob's acknowledgement");
    assert!(ack.contains(".s1@"), "{ack}");
    let to = t.desk.reply_address("g1", "france");
    let raw = format!("From: <{BOB}>\r\nTo: <{to}>\r\nSubject: Re: amended\r\nIn-Reply-To: <{ack}>\r\n\r\nPASS\r\n");
    t.post_raw(raw.as_bytes());
    assert_eq!(t.pass().rejected, 1);
    assert!(t.last(BOB).1.contains("this replies to step 1"), "{}", t.last(BOB).1);
}

#[test]
fn a_reply_finds_its_outbox_made_again_after_it_was_removed_by_hand() {
    let mut t = Table::new("outbox-gone");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    assert!(!t.mails(ALICE).is_empty());
    // The desk released its letters straight into this outbox; the folder
    // goes while it runs. The next letter cannot be moved there, so it is
    // delivered through the spool, which makes the folder again.
    std::fs::remove_dir_all(t.desk.outbox_of(ALICE)).unwrap();
    t.send("austria", ALICE, "PLACE Laudon AT Rovereto");
    assert_eq!(t.pass().accepted, 1);
    assert!(t.spool_empty(), "nothing left in the spool");
    // And the one after goes straight in again.
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    assert_eq!(t.pass().accepted, 1);
    let mails = t.mails(ALICE);
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(mails.iter().all(|m| m.0.contains("accepted")), "{mails:?}");
    assert!(t.spool_empty());
}

/// A game the desk keeps in memory between passes holds no file open: its
/// journal and archive are opened once a pass, when it has mail, and let
/// go when the pass ends (a thousand games kept would otherwise hold
/// thousands of descriptors).
#[test]
fn a_game_kept_between_passes_holds_no_file_open() {
    let mut t = Table::new("no-open-files");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("austria", ALICE, "PLACE Laudon AT Rovereto");
    assert_eq!(t.pass().accepted, 2);
    let games = t.dir.join("games").canonicalize().unwrap();
    let open: Vec<_> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .filter(|p| p.starts_with(&games))
        .collect();
    assert!(open.is_empty(), "still open after the pass: {open:?}");
    // And the files open again for the next mail, which is archived and
    // journaled after the last.
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    assert_eq!(t.pass().accepted, 1);
    let id = t.game.clone();
    let journal = std::fs::read_to_string(games.join(&id).join("journal.toml")).unwrap();
    assert_eq!(journal.matches("kind = \"accepted\"").count(), 3);
    let mbox = std::fs::read_to_string(games.join(&id).join("mail.mbox")).unwrap();
    assert_eq!(mbox.matches("From adjutant ").count(), 3);
    let entries = adjutant::journal::read(&games.join(&id).join("journal.toml")).unwrap();
    assert!(adjutant::journal::verify_chain(&entries).is_ok());
}

/// Under a tight limit on open files (64, soft and hard, as a strict
/// service manager may set), a pass over forty games with mail commits
/// every one: past a share of the limit, each game's journal and archive
/// are let go once written rather than held for the pass (three files a
/// game would need 120).
#[test]
fn a_pass_over_many_games_fits_a_low_limit_on_open_files() {
    use adjutant::config::Config;
    use adjutant::desk::{Desk, NewGame};
    let dir = temp_dir("few-files");
    let _cleanup = Cleanup(dir.clone());
    let desk = Desk::open(&dir, Config::default()).unwrap();
    let now = chrono::Utc::now();
    let mut ids = Vec::new();
    for g in 0..40 {
        let req = NewGame {
            id: Some(format!("m{g}")),
            ..NewGame::new(
                "mantua",
                vec![("austria".into(), format!("a{g}@example.org")), ("france".into(), format!("f{g}@example.org"))],
            )
        };
        ids.push(desk.create(&req, now, &mut fixed_entropy()).unwrap());
    }
    desk.deliver().unwrap();
    for (g, id) in ids.iter().enumerate() {
        let to = desk.reply_address(id, "austria");
        let raw = format!(
            "From: <a{g}@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <few{g}@example.org>\r\n\r\nPLACE Laudon AT Riva\r\n"
        );
        desk.post(raw.as_bytes(), now).unwrap();
    }
    drop(desk);
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"));
    c.arg("--data").arg(&dir).arg("run").arg("--once");
    use std::os::unix::process::CommandExt;
    // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let few = libc::rlimit { rlim_cur: 64, rlim_max: 64 };
            libc::setrlimit(libc::RLIMIT_NOFILE, &few);
            Ok(())
        });
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for id in &ids {
        let journal = std::fs::read_to_string(dir.join("games").join(id).join("journal.toml")).unwrap();
        assert_eq!(journal.matches("kind = \"accepted\"").count(), 1, "{id}: {journal}");
        let mbox = std::fs::read_to_string(dir.join("games").join(id).join("mail.mbox")).unwrap();
        assert_eq!(mbox.matches("From adjutant ").count(), 1, "{id}");
    }
    let quarantined = std::fs::read_dir(dir.join("quarantine")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(quarantined, 0);
}

/// A folder on another file system than the tests' data folders (tmpfs,
/// here), removed when dropped, even by a failing test; `None`, and the
/// test skipped with a line saying so, where there is no such place.
struct Elsewhere(std::path::PathBuf);

impl Elsewhere {
    fn new(tag: &str) -> Option<Elsewhere> {
        use std::os::unix::fs::MetadataExt;
        let dev = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.dev()).ok();
        let d = std::path::Path::new("/dev/shm").join(format!("adjutant-it-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        if std::fs::create_dir_all(&d).is_err() || dev(&d) == dev(&std::env::temp_dir()) {
            let _ = std::fs::remove_dir_all(&d);
            eprintln!("skipped: /dev/shm is not a writable file system apart from the data folder's");
            return None;
        }
        Some(Elsewhere(d))
    }
}

impl Drop for Elsewhere {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Outboxes on another file system than the data folder (a mail spool on
/// its own disk): no rename reaches them, so each letter is copied there
/// from the spool, in its local form. An outbox removed there by hand
/// while the daemon runs is made again for the next letter.
#[test]
fn letters_reach_outboxes_on_another_file_system_even_one_removed_by_hand() {
    let Some(shm) = Elsewhere::new("outboxes") else { return };
    let root = &shm.0;
    let cfg = adjutant::config::Config {
        outbound: adjutant::config::Outbound::File { path: Some(root.display().to_string()) },
        ..Default::default()
    };
    let mut t = Table::configured("outbox-elsewhere", Some("72h"), "committed", cfg);
    assert!(t.desk.outbox_of(ALICE).starts_with(root));
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    assert_eq!(t.pass().accepted, 1);
    assert!(t.spool_empty(), "every letter copied out of the spool");
    assert!(t.last(ALICE).0.contains("accepted"), "{:?}", t.last(ALICE));
    // The desk holds this outbox open from the last pass; it goes.
    std::fs::remove_dir_all(t.desk.outbox_of(ALICE)).unwrap();
    t.send("austria", ALICE, "PLACE Laudon AT Rovereto");
    assert_eq!(t.pass().accepted, 1);
    assert!(t.spool_empty(), "the letter was copied into the outbox made again");
    let mails = t.raw_mails(ALICE);
    assert_eq!(mails.len(), 1, "only the letter after the removal");
    assert!(!mails[0].contains(&b'\r'), "a local letter ends its lines with LF");
    assert!(t.last(ALICE).1.contains("PLACE Laudon AT Rovereto"), "{:?}", t.last(ALICE));
}

/// A game folder on another file system than the data folder (a link
/// under `games/`): the data folder's sync does not reach it, so its
/// journal and archived mail are synced on their own. The game plays on,
/// its journal audits and its mail is archived. (Whether the syncs reach
/// the disk no test can tell without pulling the power: this runs that
/// path, nothing more.)
#[test]
fn a_game_folder_on_another_file_system_plays_on() {
    let Some(shm) = Elsewhere::new("game") else { return };
    let root = &shm.0;
    let mut t = Table::new("game-elsewhere");
    let dir = t.dir.join("games").join(&t.game);
    let moved = root.join(&t.game);
    // A copy, then a link in its place: a rename cannot cross file systems.
    std::fs::create_dir_all(&moved).unwrap();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        std::fs::copy(e.path(), moved.join(e.file_name())).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&moved, &dir).unwrap();
    t.send("austria", ALICE, "PLACE Laudon AT Riva\nSALT elsewhere");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    let r = t.pass();
    assert_eq!((r.accepted, r.resolved), (2, 1));
    assert_audits(&moved.join("journal.toml"));
    let mbox = std::fs::read_to_string(moved.join(adjutant::desk::archive::MBOX)).unwrap();
    assert!(mbox.contains("SALT elsewhere"), "{mbox}");
}

/// A letter left in the spool in its wire form (CRLF: spooled for SMTP,
/// delivered after the transport was changed to files) is copied, never
/// moved, into its outbox; an outbox the desk opened earlier and that was
/// removed by hand since is made again for it.
#[test]
fn a_letter_in_wire_form_reaches_an_outbox_removed_by_hand() {
    let mut t = Table::new("wire-form-outbox-gone");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    assert_eq!(t.pass().accepted, 1);
    std::fs::remove_dir_all(t.desk.outbox_of(ALICE)).unwrap();
    let raw = format!(
        "From: <game@example.org>\r\nTo: <{ALICE}>\r\nSubject: left in the spool\r\nMessage-ID: <left.1@example.org>\r\n\r\nStill here.\r\n"
    );
    let name = "00000000000000000001.0000000001~000~left.1@example.org.eml";
    std::fs::write(t.dir.join("spool/new").join(name), raw).unwrap();
    assert_eq!(t.desk.deliver().unwrap(), 1);
    assert!(t.spool_empty(), "the spool let it go");
    let mails = t.raw_mails(ALICE);
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(
        !mails[0].contains(&b'\r') && mails[0].ends_with(b"Still here.\n"),
        "{:?}",
        String::from_utf8_lossy(&mails[0])
    );
}

/// A mail refused for its From (a forger with a player's reply address)
/// records no Message-ID: the player's genuine mail with that id, sent
/// later, is handled, not dropped as a repeat, before a rebuild and after.
#[test]
fn a_forged_mail_cannot_squat_the_message_id_of_the_genuine_one() {
    let mut t = Table::new("squat");
    let to = t.desk.reply_address("g1", "france");
    let forged = format!("From: <mallory@example.org>\r\nTo: <{to}>\r\nSubject: x\r\nMessage-ID: <bob-1@example.org>\r\n\r\nPLACE Bonaparte AT Verona\r\n");
    t.post_raw(forged.as_bytes());
    let r = t.pass();
    assert_eq!(r.refused, 1, "{r:?}");
    let genuine = format!("From: <{BOB}>\r\nTo: <{to}>\r\nSubject: my set-up\r\nMessage-ID: <bob-1@example.org>\r\n\r\nPLACE Bonaparte AT Verona\r\n");
    t.post_raw(genuine.as_bytes());
    let r = t.pass();
    assert_eq!((r.accepted, r.duplicates), (1, 0), "{r:?}");
    // The same from the journal alone (snapshot and seen file gone): the
    // genuine mail's id is its sender's, the forger's is nobody's.
    let g = t.dir.join("games/g1");
    std::fs::remove_file(g.join("state.toml")).unwrap();
    std::fs::remove_file(g.join("seen")).unwrap();
    let again = format!(
        "From: <mallory@example.org>\r\nTo: <{to}>\r\nSubject: x\r\nMessage-ID: <bob-2@example.org>\r\n\r\nPASS\r\n"
    );
    t.post_raw(again.as_bytes());
    t.pass();
    let second =
        format!("From: <{BOB}>\r\nTo: <{to}>\r\nSubject: again\r\nMessage-ID: <bob-2@example.org>\r\n\r\nSTATUS\r\n");
    t.post_raw(second.as_bytes());
    let r = t.pass();
    assert_eq!(r.duplicates, 0, "{r:?}");
    assert!(t.last(BOB).0.contains("status"), "{:?}", t.last(BOB));
    // And the genuine mail seen again is a repeat.
    t.post_raw(genuine.as_bytes());
    assert_eq!(t.pass().duplicates, 1);
}

/// A single line of megabytes is refused unread and quoted back a few
/// hundred characters long: the reply, and the journal, stay small.
#[test]
fn a_giant_line_gets_a_small_reply() {
    for mb in [5usize, 20] {
        let mut t = Table::new("giant-line");
        let to = t.desk.reply_address("g1", "austria");
        let raw = format!("From: <{ALICE}>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <big{mb}@example.org>\r\n\r\nMOVE {}\r\nhello {}\r\n", "x".repeat(mb << 20), "y".repeat(1000));
        t.post_raw(raw.as_bytes());
        let started = std::time::Instant::now();
        let r = t.pass();
        assert_eq!(r.rejected, 1, "{r:?}");
        assert!(started.elapsed().as_secs() < 120, "a {mb} MB line took {:?}", started.elapsed());
        let reply =
            t.raw_mails(ALICE).into_iter().find(|m| String::from_utf8_lossy(m).contains("NOT accepted")).unwrap();
        assert!(reply.len() < 64 * 1024, "a {} byte reply to a {mb} MB line", reply.len());
        let text = t.last(ALICE).1;
        assert!(text.contains("more characters)") && text.contains("characters long"), "{text}");
        let journal = std::fs::metadata(t.dir.join("games/g1/journal.toml")).unwrap().len();
        assert!(journal < 64 * 1024, "the journal holds {journal} bytes");
    }
}
