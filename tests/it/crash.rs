//! Crash safety on the embedded default: a message seen again after a crash
//! is not handled twice; replies spooled for journaled entries are sent,
//! those whose entries never landed are discarded. And no mail to one side
//! carries a hidden fact of the other.

use crate::support::*;
use adjutant::mail::maildir::Maildir;

#[test]
fn a_message_redelivered_after_a_crash_is_handled_once() {
    let mut t = Table::new("redeliver");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    let n = t.mails(ALICE).len();
    let jl = t.journal_len();
    // As if the daemon died after journaling but before moving the message
    // out of new/: it is there again.
    let inbox = Maildir::open(&t.desk.inbox_path()).unwrap();
    for f in inbox.list_cur().unwrap() {
        std::fs::copy(
            &f,
            t.desk.inbox_path().join("new").join(f.file_name().unwrap().to_string_lossy().replace(":2,S", "")),
        )
        .unwrap();
    }
    let r = t.pass();
    assert_eq!((r.duplicates, r.accepted), (1, 0));
    assert_eq!(t.mails(ALICE).len(), n, "no second acknowledgement");
    assert_eq!(t.journal_len(), jl, "nothing journaled twice");
}

#[test]
fn spooled_replies_follow_the_journal() {
    let mut t = Table::new("spool");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.pass();
    let n = t.mails(ALICE).len();
    let outbox = t.desk.outbox_of(ALICE).join("new");
    let delivered = std::fs::read_dir(&outbox).unwrap().flatten().next().unwrap().path();
    let name = delivered.file_name().unwrap().to_string_lossy().to_string();
    let bytes = std::fs::read(&delivered).unwrap();
    // A reply whose journal entry landed: released and delivered (again,
    // to the same file name, so the recipient has it once).
    std::fs::write(t.dir.join("spool/tmp").join(format!("00000000000000000001.0000000001~000~{name}")), &bytes)
        .unwrap();
    // A reply whose entries never landed: discarded.
    std::fs::write(t.dir.join("spool/tmp/00000000000000000002.0000000001~000~g1.999.0_adjutant.local.eml"), &bytes)
        .unwrap();
    t.pass();
    assert_eq!(t.mails(ALICE).len(), n);
    assert_eq!(std::fs::read_dir(t.dir.join("spool/tmp")).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(t.dir.join("spool/new")).unwrap().count(), 0);
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).map(|w| w.to_lowercase()).collect()
}

#[test]
fn no_mail_to_one_side_names_the_other_sides_blocks() {
    let mut t = Table::new("leak");
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona\nPLACE Masséna AT Caldiero");
    t.pass();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Padova");
    t.pass();
    t.send("france", BOB, "SWAP Joubert WITH Augereau\nMOVE Dummy C TO Vicenza");
    t.pass();
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Vicenza");
    t.pass();
    t.send("france", BOB, "ESCAPE TO Bassano");
    t.pass();
    t.send("austria", ALICE, "VIEW\nSTATUS");
    t.send("france", BOB, "VIEW\nSTATUS");
    t.pass();
    // The blocks that fought at Vicenza were revealed there; no other
    // enemy block, and no enemy counter (pool, hand, face-down unit), may
    // ever be named.
    let mut french: Vec<String> =
        ["bonaparte", "masséna", "joubert", "sérurier", "kilmaine", "rey"].map(String::from).to_vec();
    let mut austrian: Vec<String> =
        ["alvinczi", "wurmser", "davidovich", "vukassovich", "laudon", "quasdanovich", "mitrowsky", "bajalich"]
            .map(String::from)
            .to_vec();
    french.extend((1..=28).map(|i| format!("f{i:02}")));
    austrian.extend((1..=28).map(|i| format!("a{i:02}")));
    for (who, hidden) in [(ALICE, &french), (BOB, &austrian)] {
        let raws = t.raw_mails(who);
        assert!(raws.len() > 8, "{who} got mail");
        for raw in raws {
            let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
            let ws = words(&readable(&m));
            for h in hidden {
                assert!(!ws.iter().any(|w| w == h), "a mail to {who} ({:?}) names {h}", m.subject());
            }
        }
    }
}

#[test]
fn a_strangers_mail_handled_again_after_a_crash_gets_one_refusal() {
    let mut t = Table::new("refuse-once");
    let raw = b"From: <stranger@example.org>\r\nTo: <game@adjutant.local>\r\nSubject: hello\r\nMessage-ID: <s1@example.org>\r\n\r\nhello\r\n";
    t.post_raw(raw);
    t.pass();
    assert_eq!(t.mails("stranger@example.org").len(), 1);
    // The daemon died after spooling the refusal and before marking the
    // mail handled: the same mail is in the inbox again.
    t.post_raw(raw);
    t.pass();
    assert_eq!(t.mails("stranger@example.org").len(), 1, "one refusal, not two");
}

#[test]
fn a_mail_that_killed_the_daemon_twice_is_quarantined_unread() {
    let mut t = Table::new("wedge");
    let to = t.desk.reply_address("g1", "france");
    let raw = format!("From: <{BOB}>\r\nTo: <{to}>\r\nSubject: x\r\nMessage-ID: <w1@example.org>\r\n\r\nPLACE Bonaparte AT Verona\r\n");
    // Two earlier passes died while handling it (the count they left).
    let sha = adjutant::dice::to_hex(&adjutant::dice::sha256(raw.as_bytes()));
    std::fs::write(t.dir.join("desk/handling"), format!("{sha} 2")).unwrap();
    let before = t.digest();
    t.post_raw(raw.as_bytes());
    let r = t.pass();
    assert_eq!((r.quarantined, r.accepted), (1, 0));
    assert_eq!(t.digest(), before);
    assert!(!t.dir.join("desk/handling").exists());
    // The inbox is not wedged: the next mail is handled.
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().accepted, 1);
}
