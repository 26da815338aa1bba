//! The mail path through a real Postfix and Dovecot on loopback (started by
//! scripts/test.sh): players send by SMTP and read by IMAP, the desk reads
//! its mailbox by IMAP and answers by authenticated submission.

use crate::stack::{body, stack, subject, Stack, DOMAIN};
use adjutant::desk::Desk;
use adjutant::mail::imap;
use std::sync::atomic::AtomicBool;

fn addr(user: &str) -> String {
    format!("{user}@{DOMAIN}")
}

fn new_game(st: &Stack, tag: &str) -> (std::path::PathBuf, Desk) {
    let (dir, desk) = st.fresh_game(tag);
    assert_eq!(desk.deliver().unwrap(), 5, "welcome to three, first prompts to two");
    (dir, desk)
}

fn player(role: &str) -> String {
    addr(match role {
        "austria" => "alice",
        "france" => "bob",
        _ => "carol",
    })
}

#[test]
fn a_game_played_by_smtp_and_imap() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, desk) = new_game(&st, "real-game");
    assert!(st.wait_for("alice", "INBOX", 2, 15), "alice gets her welcome and prompt over IMAP");
    let c = st.imap_cfg("game");
    let mut s = imap::connect(&c).unwrap();
    imap::ensure_folder(&mut s, &c.processed_folder).unwrap();
    let stop = AtomicBool::new(false);
    let mut seed = 99u64;
    let mut pick = move |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        if n == 0 {
            0
        } else {
            ((seed >> 33) % n as u64) as usize
        }
    };
    let mut received = 0;
    for _ in 0..25 {
        let l = desk.load("g1").unwrap();
        if l.game.ended {
            break;
        }
        let a = l.game.awaiting();
        for role in a.prompts.keys() {
            let lines = l.game.rules.random_orders(l.game.state(), role, &mut pick);
            st.send(
                &player(role),
                &desk.reply_address("g1", role),
                &format!("Re: [g1] step {}", l.game.step),
                &lines.join("\n"),
            );
            received += 1;
        }
        assert!(st.wait_for("game", "adjutant-processed", 0, 1));
        assert!(st.wait_for("game", "INBOX", a.prompts.len(), 15), "orders reach the game mailbox");
        let r = desk.imap_pass(&mut s, &c, &stop).unwrap();
        assert_eq!(r.accepted, a.prompts.len(), "{r:?}");
        assert!(desk.load("g1").unwrap().game.step > l.game.step);
    }
    let _ = s.logout();
    assert_eq!(st.count("game", "INBOX"), 0, "every handled message left the inbox");
    assert_eq!(st.count("game", "adjutant-processed"), received, "and waits in the processed folder, not deleted");
    let step = desk.load("g1").unwrap().game.step;
    // Each player has, over IMAP, the results of every step.
    let want = format!("step {} resolved", step - 1);
    assert!(
        (0..50).any(|_| {
            let has = st.inbox("bob").iter().any(|m| subject(m).contains(&want));
            if !has {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            has
        }),
        "bob reads the latest results over IMAP"
    );
    let bob = st.inbox("bob");
    assert!(bob.iter().any(|m| subject(m).contains("welcome") && body(m).contains("BEGIN ADJUTANT ANCHORS")));
    crate::support::assert_audits(&dir.join("games/g1/journal.toml"));
    // What Bob really got, as Dovecot keeps it (its index files beside the
    // mail, read and unread mail in cur/ and new/): both verifiers pass it,
    // and it witnesses the journal up to its last entry a player saw.
    let maildir = st.dir.join(format!("mail/{DOMAIN}/bob/Maildir"));
    assert!(maildir.join("cur").is_dir(), "{}", maildir.display());
    for cmd in [
        vec![env!("CARGO_BIN_EXE_adjutant").to_string(), "verify".into()],
        vec!["python3".into(), concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/verify_dice.py").into(), "--mail".into()],
    ] {
        let out = std::process::Command::new(&cmd[0]).args(&cmd[1..]).arg(&maildir).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("game g1: VERIFIED"), "{cmd:?}:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn spoofed_automatic_bounced_and_looping_mail_through_real_servers() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, desk) = new_game(&st, "real-bad");
    assert!(st.wait_for("alice", "INBOX", 2, 15));
    let alice_before = st.count("alice", "INBOX");
    let to = desk.reply_address("g1", "austria");
    // Spoofed: mallory writes with alice's credential.
    st.send(&addr("mallory"), &to, "Re: orders", "PLACE Laudon AT Riva");
    // The spoof is in before the robot below starts: Postfix does not keep
    // the order of mails queued together, and the refusal budget (five an
    // hour) must meet the spoof first for the count below to hold.
    assert!(st.wait_for("game", "INBOX", 1, 15), "the spoof reaches the game mailbox");
    // An auto-responder answering a prompt.
    let auto = format!(
        "From: <{}>\r\nTo: <{to}>\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <ooo1@{DOMAIN}>\r\n\r\nI am away.\r\n",
        addr("alice")
    );
    st.send_raw(&addr("alice"), &to, auto.as_bytes());
    // A bounce: null return path, from the mailer daemon.
    let bounce = format!(
        "From: <MAILER-DAEMON@{DOMAIN}>\r\nTo: <{to}>\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-ID: <b1@{DOMAIN}>\r\n\r\nThis is the mail system.\r\n"
    );
    st.send_raw("", &to, bounce.as_bytes());
    // A robot that answers every refusal: at most five answers an hour.
    for i in 0..8 {
        st.send(&addr("mallory"), &format!("game@{DOMAIN}"), &format!("loop {i}"), "hello?");
    }
    assert!(st.wait_for("game", "INBOX", 11, 20), "all eleven reach the game mailbox");
    let c = st.imap_cfg("game");
    let mut s = imap::connect(&c).unwrap();
    imap::ensure_folder(&mut s, &c.processed_folder).unwrap();
    let r = desk.imap_pass(&mut s, &c, &AtomicBool::new(false)).unwrap();
    let _ = s.logout();
    assert_eq!((r.messages, r.accepted, r.dropped, r.refused), (11, 0, 2, 9), "{r:?}");
    assert!(st.wait_for("mallory", "INBOX", 5, 15));
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(st.count("mallory", "INBOX"), 5, "the spoof's refusal and four loop answers; the rest are dropped");
    let refusal =
        st.inbox("mallory").into_iter().find(|m| body(m).contains("not sent from the address registered for austria"));
    assert!(refusal.is_some(), "the spoofed sender is told why");
    assert_eq!(st.count("alice", "INBOX"), alice_before, "no answer to the auto-reply");
    assert!(desk.load("g1").unwrap().game.orders.is_empty(), "nothing changed");
    let _ = std::fs::remove_dir_all(&dir);
}
