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
    // Nothing is in hand any more: the record is blank.
    let left = std::fs::read_to_string(t.dir.join("desk/handling")).unwrap_or_default();
    assert!(left.trim().is_empty(), "{left:?}");
    // The inbox is not wedged: the next mail is handled.
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert_eq!(t.pass().accepted, 1);
}

/// Every raw mail in a folder tree (a recipient's outbox: new/ and cur/).
fn raw_files(dir: &std::path::Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for sub in ["new", "cur"] {
        if let Ok(rd) = std::fs::read_dir(dir.join(sub)) {
            out.extend(rd.flatten().map(|e| std::fs::read(e.path()).unwrap()));
        }
    }
    out
}

/// The daemon binary killed at chosen points of its pass — after a mail is
/// handled and before its commit, with the archive and the replies written
/// but not synced, with replies spooled but not journaled,
/// after the journal and before the replies are released, after the commit
/// and before the inbox is marked, mid-delivery — several times, and twice
/// in a row at the same point, over two hundred mails, in groups of three
/// mails (a crash in a later group finds the earlier groups journaled,
/// their snapshots not yet written, and all marked but perhaps the last,
/// whose releases and marks the pass's threads may still be doing): every
/// mail ends
/// journaled once with exactly one reply, or quarantined with none (a mail
/// in hand when the daemon died twice is set aside by design); every
/// stranger gets one refusal; the journal audits.
#[test]
fn crashes_injected_at_every_point_lose_and_repeat_nothing() {
    let t = Table::new("inject");
    let to = t.desk.reply_address("g1", "austria");
    let mut ids = Vec::new();
    let mut strangers = 0;
    // One player sends two hundred mails in minutes: the hourly reply
    // limit is not what this test is about.
    let cfg = t.dir.join("adjutant.toml");
    std::fs::write(&cfg, "[limits]\nreplies_per_hour = 100000\ngroup_messages = 3\n").unwrap();
    let run = |crash: Option<String>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"));
        c.arg("--config").arg(&cfg).arg("--data").arg(&t.dir).arg("run").arg("--once");
        if let Some(at) = crash {
            c.env("ADJUTANT_CRASH_AT", at);
        }
        // An aborted process leaves no core file behind.
        use std::os::unix::process::CommandExt;
        // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let zero = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                libc::setrlimit(libc::RLIMIT_CORE, &zero);
                Ok(())
            });
        }
        c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().unwrap()
    };
    let points = ["archived", "written", "spooled", "journaled", "released", "flushed", "delivered"];
    let mut crashes = 0;
    for round in 0..24 {
        // Eight more mails each round (and a stranger's every third).
        for k in 0..8 {
            let i = ids.len();
            let at = if i % 2 == 0 { "Riva" } else { "Rovereto" };
            let raw = format!("From: <{ALICE}>\r\nTo: <{to}>\r\nSubject: set-up {i}\r\nMessage-ID: <in{i}@example.org>\r\n\r\nPLACE Laudon AT {at}\r\n");
            t.desk.post(raw.as_bytes(), t.now + chrono::Duration::seconds(k)).unwrap();
            ids.push(format!("in{i}@example.org"));
        }
        if round % 3 == 0 {
            let raw = format!("From: <stranger{strangers}@example.org>\r\nTo: <game@adjutant.local>\r\nSubject: hello\r\nMessage-ID: <st{strangers}@example.org>\r\n\r\nhello\r\n");
            t.desk.post(raw.as_bytes(), t.now).unwrap();
            strangers += 1;
        }
        // Each point twice in a row; a mail's archiving at a depth of one
        // to five mails into the pass.
        let point = points[(round / 2) % points.len()];
        let n = if point == "archived" { 1 + (round * 7) % 5 } else { 1 + round % 3 };
        if !run(Some(format!("{point}:{n}"))).success() {
            crashes += 1;
        }
    }
    assert!(crashes >= 20, "the injected crashes happened ({crashes})");
    for _ in 0..5 {
        assert!(run(None).success());
    }
    let inbox = Maildir::open(&t.desk.inbox_path()).unwrap();
    assert!(inbox.list_new().unwrap().is_empty(), "every mail was handled");
    // Journaled: each mail at most once.
    let jp = t.dir.join("games/g1/journal.toml");
    let entries = adjutant::journal::read(&jp).unwrap();
    let mut journaled: std::collections::BTreeMap<String, usize> = Default::default();
    let index = std::fs::read_to_string(t.dir.join("games/g1/mail.idx")).unwrap();
    for e in entries.iter().filter(|e| e.kind == "received") {
        let r: adjutant::journal::kinds::Received = e.body().unwrap();
        *journaled.entry(r.message_id.trim_matches(['<', '>']).to_string()).or_default() += 1;
        // Every journaled mail is in the game's archive, exactly as it came,
        // and archived once however often the pass was cut short.
        let kept = adjutant::desk::archive::read(&t.dir.join("games/g1"), &r.sha256).unwrap();
        assert!(kept.is_some(), "{} is journaled but not archived", r.message_id);
        let copies = index.lines().filter(|l| l.split(' ').nth(1) == Some(r.sha256.as_str())).count();
        assert_eq!(copies, 1, "{} archived {copies} times", r.message_id);
    }
    // Replies: by the Message-ID each answers.
    let mut replies: std::collections::BTreeMap<String, usize> = Default::default();
    for raw in raw_files(&t.desk.outbox_of(ALICE)) {
        let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
        let irt = match m.in_reply_to() {
            mail_parser::HeaderValue::Text(t) => Some(t.to_string()),
            mail_parser::HeaderValue::TextList(l) => l.first().map(|x| x.to_string()),
            _ => None,
        };
        if let Some(irt) = irt {
            *replies.entry(irt.trim_matches(['<', '>']).to_string()).or_default() += 1;
        }
    }
    let quarantined = std::fs::read_dir(t.dir.join("quarantine")).map(|d| d.count()).unwrap_or(0);
    let mut set_aside = 0;
    for id in &ids {
        match (journaled.get(id).copied().unwrap_or(0), replies.get(id).copied().unwrap_or(0)) {
            (1, 1) => {}
            (0, 0) => set_aside += 1,
            (j, r) => panic!("{id}: journaled {j} times, answered {r} times"),
        }
    }
    for i in 0..strangers {
        let n = raw_files(&t.desk.outbox_of(&format!("stranger{i}@example.org"))).len();
        if n != 1 {
            set_aside += 1;
            assert_eq!(n, 0, "stranger{i} got {n} refusals");
        }
    }
    assert!(set_aside <= quarantined, "{set_aside} mails unaccounted for, {quarantined} quarantined");
    assert!(set_aside < 20, "most mails went through ({set_aside} set aside)");
    assert_audits(&jp);
}

/// Whether strace is here to kill the daemon at a chosen system call; CI
/// must have it (scripts/test.sh installs Debian's package).
fn have_strace() -> bool {
    let here = std::process::Command::new("strace").arg("-V").output().is_ok_and(|o| o.status.success());
    if !here {
        assert!(std::env::var("CI").is_err(), "CI injects crashes with strace: scripts/test.sh installs it");
        eprintln!("skipped: no strace");
    }
    here
}

/// `adjutant run --once` on `dir`, killed (SIGKILL, by strace) at the
/// `n`-th call of `syscall`, or run whole: whether it was killed.
fn run_killed_at(dir: &std::path::Path, kill: Option<(&str, usize)>) -> bool {
    let mut c = match kill {
        Some((call, n)) => {
            let mut c = std::process::Command::new("strace");
            c.args(["-f", "-o", "/dev/null", "-e"])
                .arg(format!("trace={call}"))
                .arg("-e")
                .arg(format!("inject={call}:signal=KILL:when={n}"))
                .arg(env!("CARGO_BIN_EXE_adjutant"));
            c
        }
        None => std::process::Command::new(env!("CARGO_BIN_EXE_adjutant")),
    };
    c.arg("--data").arg(dir).args(["run", "--once"]);
    let out = c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).output().unwrap();
    // strace reports the signal that ended the traced process.
    let killed = String::from_utf8_lossy(&out.stderr).contains("SIGKILL") || !out.status.success();
    if kill.is_none() {
        assert!(out.status.success(), "a whole pass fails: {}", String::from_utf8_lossy(&out.stderr));
    }
    killed
}

/// The daemon killed at every file system call of a pass, twice in a row
/// at the same call, then run whole: a player's valid order mail in hand
/// each time is journaled once and answered once (never set aside: its
/// deaths were none of its doing), and a stranger's mail is refused once.
#[test]
fn killed_twice_at_any_file_call_a_mail_is_answered_once_and_never_set_aside() {
    if !have_strace() {
        return;
    }
    let mut t = Table::with("killed-at-calls", None, "committed");
    let to = t.desk.reply_address("g1", "austria");
    t.post_raw(format!("From: <{ALICE}>\r\nTo: <{to}>\r\nSubject: set-up\r\nMessage-ID: <valid@example.org>\r\n\r\nPLACE Laudon AT Riva\r\n").as_bytes());
    t.post_raw(b"From: <stranger@example.org>\r\nTo: <game@adjutant.local>\r\nSubject: hello\r\nMessage-ID: <who@example.org>\r\n\r\nhello\r\n");
    let template = t.dir.clone();
    let copy = t.dir.with_extension("run");
    let mut kills = 0;
    for call in ["openat", "write", "pwrite64", "rename", "fsync", "syncfs", "mkdir", "ftruncate", "unlink"] {
        for n in 1.. {
            let _ = std::fs::remove_dir_all(&copy);
            let st = std::process::Command::new("cp").arg("-a").arg(&template).arg(&copy).status().unwrap();
            assert!(st.success());
            if !run_killed_at(&copy, Some((call, n))) {
                break; // the pass has fewer such calls
            }
            kills += 1;
            run_killed_at(&copy, Some((call, n)));
            run_killed_at(&copy, None);
            let what = format!("killed twice at {call} #{n}");
            let jp = copy.join("games/g1/journal.toml");
            let es = adjutant::journal::read(&jp).unwrap();
            let received = es
                .iter()
                .filter(|e| e.kind == "received" && e.body["message_id"].as_str() == Some("valid@example.org"))
                .count();
            assert_eq!(received, 1, "{what}: journaled {received} times");
            let desk = adjutant::desk::Desk::open(&copy, Default::default()).unwrap();
            let acks = raw_files(&desk.outbox_of(ALICE))
                .iter()
                .filter(|m| String::from_utf8_lossy(m).contains("In-Reply-To: <valid@example.org>"))
                .count();
            assert_eq!(acks, 1, "{what}: answered {acks} times");
            let refusals = raw_files(&desk.outbox_of("stranger@example.org")).len();
            assert_eq!(refusals, 1, "{what}: the stranger got {refusals} refusals");
            assert!(!copy.join("quarantine").exists(), "{what}: a mail was set aside");
            assert!(std::fs::read_dir(copy.join("mail/inbox/new")).unwrap().next().is_none(), "{what}: mail left");
        }
    }
    assert!(kills > 40, "the pass was killed at {kills} calls");
    let _ = std::fs::remove_dir_all(&copy);
}

/// A mail whose own reading kills the process twice (an abort while it is
/// parsed) is set aside on the third pass; its sender and the game's
/// moderator are told, and `games` and `run --check` list it.
#[test]
fn a_mail_that_kills_its_reading_twice_is_set_aside_and_everyone_told() {
    let mut t = Table::with("poison", None, "committed");
    let to = t.desk.reply_address("g1", "france");
    t.post_raw(format!("From: <{BOB}>\r\nTo: <{to}>\r\nSubject: my set-up\r\nMessage-ID: <poison@example.org>\r\n\r\nPLACE Bonaparte AT Verona\r\n").as_bytes());
    let run = |crash: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"));
        c.arg("--data").arg(&t.dir).args(["run", "--once"]);
        if crash {
            c.env("ADJUTANT_CRASH_AT", "reading:1");
        }
        use std::os::unix::process::CommandExt;
        // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let zero = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                libc::setrlimit(libc::RLIMIT_CORE, &zero);
                Ok(())
            });
        }
        c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().unwrap()
    };
    assert!(!run(true).success());
    assert!(!run(true).success());
    assert!(run(true).success(), "the third pass sets it aside before reading it");
    let aside = t.desk.set_aside();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(aside[0].contains("game g1") && aside[0].contains(BOB), "{aside:?}");
    let told = t.mails(BOB);
    assert!(told.iter().any(|m| m.0.contains("set aside unread") && m.0.contains("my set-up")), "{told:?}");
    assert!(t.mails(CAROL).iter().any(|m| m.0.contains("a mail was set aside") && m.1.contains(BOB)));
    let games = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("--data")
        .arg(&t.dir)
        .arg("games")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&games.stdout).contains("set aside: 1 mail(s)"));
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("--data")
        .arg(&t.dir)
        .args(["run", "--check"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&check.stdout).contains("set aside: 1 mail(s)"));
    // Nothing of it was journaled; the inbox is not wedged.
    assert_eq!(t.pass().messages, 0);
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    let r = t.pass();
    assert_eq!(r.accepted, 1, "{r:?} {:?}", t.last(BOB));
}

/// The moderator's ROLLBACK in hand when the daemon is killed, at every
/// file system call of the pass, then run whole: the rollback happens
/// once (one `rolled_back` entry, one mail to each player about it), the
/// game is as the step opened, and the journal audits.
#[test]
fn a_rollback_killed_at_any_file_call_happens_once() {
    if !have_strace() {
        return;
    }
    let mut t = Table::with("rollback-killed", None, "committed");
    t.setup();
    let at_two = t.digest();
    for _ in 0..2 {
        t.send("gm", CAROL, "RESOLVE NOW");
        t.pass();
    }
    assert_eq!(t.step(), 4);
    t.send("gm", CAROL, "ROLLBACK 2 a misread order");
    let template = t.dir.clone();
    let copy = t.dir.with_extension("run");
    let mut kills = 0;
    for call in ["openat", "write", "rename", "fsync", "unlink"] {
        for n in 1.. {
            let _ = std::fs::remove_dir_all(&copy);
            let st = std::process::Command::new("cp").arg("-a").arg(&template).arg(&copy).status().unwrap();
            assert!(st.success());
            if !run_killed_at(&copy, Some((call, n))) {
                break;
            }
            kills += 1;
            run_killed_at(&copy, None);
            let what = format!("killed at {call} #{n}");
            let jp = copy.join("games/g1/journal.toml");
            let es = adjutant::journal::read(&jp).unwrap();
            assert_eq!(es.iter().filter(|e| e.kind == "rolled_back").count(), 1, "{what}");
            let (game, _) = adjutant::audit::replay(&es).unwrap_or_else(|m| panic!("{what}: {m}"));
            assert_eq!((game.step, game.digest()), (4, at_two.clone()), "{what}");
            let desk = adjutant::desk::Desk::open(&copy, Default::default()).unwrap();
            let told = raw_files(&desk.outbox_of(ALICE))
                .iter()
                .filter(|m| String::from_utf8_lossy(m).contains("rolled back to step 2 by the moderator"))
                .count();
            assert_eq!(told, 1, "{what}: Alice was told {told} times");
        }
    }
    assert!(kills > 20, "the pass was killed at {kills} calls");
    let _ = std::fs::remove_dir_all(&copy);
}
