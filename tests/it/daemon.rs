//! The daemon binary (`adjutant run`) against the real mail stack: outages
//! of the IMAP and SMTP servers, SIGKILL at random points, a burst of 1,000
//! messages, and a clean stop on SIGTERM.

use crate::stack::{body, stack, subject, Stack, DOMAIN, PASSWORD_ENV};
use adjutant::desk::Desk;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn addr(user: &str) -> String {
    format!("{user}@{DOMAIN}")
}

struct Daemon {
    child: Child,
}

impl Daemon {
    fn start(dir: &Path, cfg: &Path) -> Daemon {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("daemon.log")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .arg("--config")
            .arg(cfg)
            .arg("--data")
            .arg(dir)
            .arg("run")
            .env("ADJUTANT_LOG", "info")
            .env(PASSWORD_ENV, "secret")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        Daemon { child }
    }
    fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
    /// SIGTERM, then the exit status (within `secs`).
    fn term(mut self, secs: u64) -> Option<std::process::ExitStatus> {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let end = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < end {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        None
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn setup(st: &Stack, tag: &str) -> (PathBuf, PathBuf) {
    let (dir, _) = st.fresh_game(tag);
    let cfg = dir.join("adjutant.toml");
    st.config_file(&cfg);
    (dir, cfg)
}

fn reply_to(dir: &Path, st: &Stack, role: &str) -> String {
    Desk::open(dir, st.config()).unwrap().reply_address("g1", role)
}

fn wait(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

fn step(dir: &Path, st: &Stack) -> u32 {
    Desk::open(dir, st.config()).unwrap().load("g1").unwrap().game.step
}

#[test]
fn the_daemon_rides_out_imap_and_smtp_outages_and_stops_cleanly() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, cfg) = setup(&st, "outage");
    let d = Daemon::start(&dir, &cfg);
    assert!(wait(20, || st.count("alice", "INBOX") >= 2), "the spooled welcome and prompt go out");

    // SMTP down: Austria's set-up still arrives (put straight into the
    // mailbox), is handled, and its acknowledgement waits in the spool.
    st.script("stop-smtp");
    let to = reply_to(&dir, &st, "austria");
    st.append(
        "game",
        format!(
            "From: <{}>\r\nTo: <{to}>\r\nSubject: set-up\r\nMessage-ID: <o1@{DOMAIN}>\r\n\r\nPLACE Laudon AT Riva\r\n",
            addr("alice")
        )
        .as_bytes(),
    );
    assert!(wait(20, || st.count("game", "INBOX") == 0), "handled while SMTP is down");
    let spooled = || std::fs::read_dir(dir.join("spool/new")).map(|d| d.count()).unwrap_or(0);
    assert!(wait(5, || spooled() >= 1), "the acknowledgement waits in the spool");
    let before = st.count("alice", "INBOX");
    st.script("start-smtp");
    assert!(wait(30, || st.count("alice", "INBOX") > before), "and is delivered once SMTP is back");
    assert!(wait(10, || spooled() == 0));

    // IMAP down: France's set-up is sent by SMTP; Postfix holds it until
    // Dovecot is back; the daemon reconnects and resolves the step.
    st.script("stop-imap");
    std::thread::sleep(Duration::from_secs(2));
    st.send(&addr("bob"), &reply_to(&dir, &st, "france"), "set-up", "PLACE Bonaparte AT Verona");
    std::thread::sleep(Duration::from_secs(2));
    st.script("start-imap");
    assert!(wait(150, || step(&dir, &st) == 2), "the step resolves after the IMAP outage");
    assert!(wait(30, || st.inbox("bob").iter().any(|m| subject(m).contains("step 1 resolved"))));

    // SIGTERM: the daemon finishes and exits 0.
    let status = d.term(40).expect("the daemon stops on SIGTERM");
    assert!(status.success(), "{status:?}");
    let log = std::fs::read_to_string(dir.join("daemon.log")).unwrap_or_default();
    assert!(log.contains("reconnecting") || log.contains("IMAP connection failed"), "the outage was seen: {log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigkill_at_random_points_loses_and_repeats_nothing() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, cfg) = setup(&st, "sigkill");
    let to = reply_to(&dir, &st, "austria");
    let n = 150;
    // Austria revises its set-up n times; each revision is acknowledged.
    for i in 0..n {
        let place = if i % 2 == 0 { "Riva" } else { "Rovereto" };
        st.append(
            "game",
            format!(
                "From: <{}>\r\nTo: <{to}>\r\nSubject: set-up {i}\r\nMessage-ID: <k{i}@{DOMAIN}>\r\n\r\nPLACE Laudon AT {place}\r\nSALT k{i}\r\n",
                addr("alice")
            )
            .as_bytes(),
        );
    }
    let mut seed = 12345u64;
    let mut kills = 0;
    let spooled = || std::fs::read_dir(dir.join("spool/new")).map(|d| d.count()).unwrap_or(0);
    while (st.count("game", "INBOX") > 0 || spooled() > 0) && kills < 40 {
        let d = Daemon::start(&dir, &cfg);
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        // Short lives: the daemon is fast, and the test needs it killed mid-work.
        std::thread::sleep(Duration::from_millis(40 + (seed >> 33) % 200));
        d.kill9();
        kills += 1;
    }
    assert!(kills >= 3, "the daemon was killed mid-work several times ({kills})");
    let d = Daemon::start(&dir, &cfg);
    assert!(wait(60, || st.count("game", "INBOX") == 0), "every message handled in the end");
    // Welcome + prompt, then one acknowledgement per revision.
    assert!(wait(60, || st.count("alice", "INBOX") >= n + 2), "every acknowledgement sent");
    std::thread::sleep(Duration::from_secs(2));
    let _ = d.term(40);
    let mails = st.inbox("alice");
    let mut ids: Vec<String> = mails
        .iter()
        .filter_map(|m| {
            mail_parser::MessageParser::default().parse(&m[..]).and_then(|p| p.message_id().map(str::to_string))
        })
        .collect();
    let total = ids.len();
    ids.sort();
    ids.dedup();
    // SMTP has no idempotent send: a kill after the server took a message
    // and before its spool file is gone sends it again, with the same
    // Message-ID. That is the only repeat allowed: at most one per kill.
    assert!(total - ids.len() <= kills, "{} repeats for {kills} kills", total - ids.len());
    let mut acks: Vec<String> = mails
        .iter()
        .filter(|m| subject(m).contains("accepted"))
        .filter_map(|m| {
            mail_parser::MessageParser::default().parse(&m[..]).and_then(|p| p.message_id().map(str::to_string))
        })
        .collect();
    acks.sort();
    acks.dedup();
    assert_eq!(acks.len(), n, "one acknowledgement per revision, none lost ({kills} kills)");
    let entries = adjutant::journal::read(&dir.join("games/g1/journal.toml")).unwrap();
    let received = entries.iter().filter(|e| e.kind == "received").count();
    assert_eq!(received, n, "each message journaled once");
    // ... and in the game's archive, exactly as it came.
    for e in entries.iter().filter(|e| e.kind == "received") {
        let r: adjutant::journal::kinds::Received = e.body().unwrap();
        let kept = adjutant::desk::archive::read(&dir.join("games/g1"), &r.sha256).unwrap();
        assert!(kept.is_some(), "{} is journaled but not archived", r.message_id);
    }
    let l = Desk::open(&dir, st.config()).unwrap().load("g1").unwrap();
    let last = if (n - 1) % 2 == 0 { "Riva" } else { "Rovereto" };
    assert_eq!(l.game.orders["austria"], vec![format!("PLACE Laudon AT {last}")], "the last revision counts");
    assert_eq!(l.game.salts["austria"], format!("k{}", n - 1));
    assert!(body(mails.last().unwrap()).len() > 10);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_burst_of_a_thousand_messages() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, cfg) = setup(&st, "burst");
    let to = reply_to(&dir, &st, "austria");
    let n = 1000;
    let mut s = st.session("game");
    for i in 0..n {
        let raw = format!(
            "From: <{}>\r\nTo: <{to}>\r\nSubject: set-up {i}\r\nMessage-ID: <burst{i}@{DOMAIN}>\r\n\r\nPLACE Laudon AT {}\r\n",
            addr("alice"),
            if i % 2 == 0 { "Riva" } else { "Rovereto" }
        );
        s.append("INBOX", raw.as_bytes()).finish().unwrap();
    }
    let _ = s.logout();
    let started = Instant::now();
    let d = Daemon::start(&dir, &cfg);
    assert!(wait(300, || st.count("game", "INBOX") == 0), "all handled");
    assert!(wait(300, || st.count("alice", "INBOX") >= n + 2), "all answered");
    let secs = started.elapsed().as_secs_f64();
    eprintln!("burst: {n} messages handled and answered through Dovecot and Postfix in {secs:.1} s");
    let _ = d.term(40);
    assert_eq!(st.count("game", "adjutant-processed"), n);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_check_says_what_works_in_plain_words() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, cfg) = setup(&st, "check");
    let run = |password: &str| {
        Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .arg("--config")
            .arg(&cfg)
            .arg("--data")
            .arg(&dir)
            .args(["run", "--check"])
            .env(PASSWORD_ENV, password)
            .output()
            .unwrap()
    };
    let ok = run("secret");
    let text = String::from_utf8_lossy(&ok.stdout).to_string();
    assert!(ok.status.success(), "{text}");
    assert!(
        text.contains("logged in as game@adjutant.test")
            && text.contains("IDLE offered")
            && text.contains("connected and logged in"),
        "{text}"
    );
    let bad = run("wrong");
    let text = String::from_utf8_lossy(&bad.stdout).to_string();
    assert_eq!(bad.status.code(), Some(1), "{text}");
    assert!(text.contains("inbound: FAILED") && text.contains("refused the login"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_permanent_smtp_failure_is_journaled_and_reported_to_the_moderator() {
    let Some((st, _lock)) = stack() else { return };
    for u in ["game", "alice", "bob", "carol"] {
        st.clear(u);
    }
    let dir = crate::support::temp_dir("5xx");
    let desk = Desk::open(&dir, st.config()).unwrap();
    // A player at a domain the test server does not take: Postfix refuses
    // the recipient with a 5xx at once.
    let req = adjutant::desk::NewGame {
        gm: Some(addr("carol")),
        id: Some("g1".into()),
        ..adjutant::desk::NewGame::new(
            "mantua",
            vec![("austria".into(), addr("alice")), ("france".into(), "zed@elsewhere.example".into())],
        )
    };
    desk.create(&req, chrono::Utc::now(), &mut crate::support::fixed_entropy()).unwrap();
    let sent = desk.deliver().unwrap();
    assert_eq!(sent, 3, "alice's two mails and carol's welcome go; zed's two are refused");
    assert_eq!(std::fs::read_dir(dir.join("spool/failed")).unwrap().count(), 2);
    let entries = adjutant::journal::read(&dir.join("games/g1/journal.toml")).unwrap();
    assert_eq!(entries.iter().filter(|e| e.kind == "undeliverable").count(), 2);
    desk.deliver().unwrap();
    assert!(wait(20, || st
        .inbox("carol")
        .iter()
        .any(|m| subject(m).contains("could not be delivered") && body(m).contains("zed@elsewhere.example"))));
    crate::support::assert_audits(&dir.join("games/g1/journal.toml"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_while_idling_stops_within_a_second() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, cfg) = setup(&st, "idle-stop");
    // A long IDLE, as in production: the stop must not wait for its end.
    let text = std::fs::read_to_string(&cfg).unwrap().replace("idle_seconds = 2", "idle_seconds = 30");
    std::fs::write(&cfg, text).unwrap();
    let d = Daemon::start(&dir, &cfg);
    assert!(wait(20, || st.count("alice", "INBOX") >= 2), "the first pass has run");
    // The pass is over in milliseconds; the daemon now idles.
    std::thread::sleep(Duration::from_secs(3));
    let t = Instant::now();
    let status = d.term(30).expect("the daemon stops on SIGTERM");
    let took = t.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(1), "the daemon took {took:?} to leave IDLE and stop");
    let log = std::fs::read_to_string(dir.join("daemon.log")).unwrap_or_default();
    assert!(log.contains("stopped"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_smtp_password_keeps_every_reply_until_it_is_fixed() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, _) = st.fresh_game("535");
    // The password comes from a file the moderator can correct.
    let pw = dir.join("smtp-password");
    std::fs::write(&pw, "wrong").unwrap();
    let mut cfg = st.config();
    if let adjutant::config::Outbound::Smtp(c) = &mut cfg.outbound {
        c.password_env = None;
        c.password_file = Some(pw.to_string_lossy().to_string());
    }
    let desk = Desk::open(&dir, cfg).unwrap();
    let spooled = || std::fs::read_dir(dir.join("spool/new")).map(|d| d.count()).unwrap_or(0);
    let waiting = spooled();
    assert!(waiting >= 3, "the welcome mails wait in the spool");
    // 535: the log-in is refused. Nothing is given up.
    assert_eq!(desk.deliver().unwrap(), 0);
    assert_eq!(spooled(), waiting, "every reply is kept");
    assert!(!dir.join("spool/failed").exists() || std::fs::read_dir(dir.join("spool/failed")).unwrap().count() == 0);
    let entries = adjutant::journal::read(&dir.join("games/g1/journal.toml")).unwrap();
    assert_eq!(entries.iter().filter(|e| e.kind == "undeliverable").count(), 0);
    // The password fixed, after the back-off, all of them go.
    std::fs::write(&pw, std::env::var(PASSWORD_ENV).unwrap()).unwrap();
    assert!(wait(30, || {
        let _ = desk.deliver();
        spooled() == 0
    }));
    assert!(wait(20, || st.count("alice", "INBOX") >= 2));
    // The moderator, who could not be told while it lasted, is told once.
    assert!(wait(30, || {
        let _ = desk.deliver();
        st.inbox("carol").iter().any(|m| subject(m).contains("sending mail failed"))
    }));
    let notice = st.inbox("carol").into_iter().find(|m| subject(m).contains("sending mail failed")).unwrap();
    let text = body(&notice);
    assert!(text.contains("535") || text.to_lowercase().contains("auth"), "the notice says why: {text}");
    let _ = desk.deliver();
    let notices = st.inbox("carol").iter().filter(|m| subject(m).contains("sending mail failed")).count();
    assert_eq!(notices, 1, "one notice for the outage");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Postfix answers 450 for one recipient until dropped (even by a failing
/// test): `recipient_access` emptied and reread.
struct Slow<'a>(&'a Stack);

impl<'a> Slow<'a> {
    fn mailbox(st: &'a Stack, who: &str) -> Slow<'a> {
        std::fs::write(
            st.dir.join("etc/postfix/recipient_access"),
            format!("{who} 450 4.2.1 Mailbox busy, try again later\n"),
        )
        .unwrap();
        st.script("reload-smtp");
        // The daemons restart when idle: give them a moment.
        std::thread::sleep(Duration::from_secs(1));
        Slow(st)
    }
}

impl Drop for Slow<'_> {
    fn drop(&mut self) {
        let _ = std::fs::write(self.0.dir.join("etc/postfix/recipient_access"), "");
        self.0.script("reload-smtp");
    }
}

/// One recipient's server answering 450 holds no one else's mail: the
/// others' letters go at once, that recipient's wait in the spool (backed
/// off on their own) and go in order once their server takes mail again.
#[test]
fn one_recipients_temporary_failure_holds_no_one_else() {
    let Some((st, _lock)) = stack() else { return };
    let (dir, desk) = st.fresh_game("slow-recipient");
    let spooled = || std::fs::read_dir(dir.join("spool/new")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(spooled(), 5, "welcome to three, first prompts to two");
    let slow = Slow::mailbox(&st, &addr("bob"));
    // Postfix's daemons restart on reload: wait until Bob is refused.
    assert!(wait(20, || {
        let _ = desk.deliver();
        spooled() <= 2
    }));
    assert_eq!(spooled(), 2, "Alice's and Carol's mail went; Bob's two wait");
    let state = std::fs::read_to_string(dir.join("desk/outbound.toml")).unwrap();
    assert!(state.contains(&addr("bob")) && state.contains("450"), "{state}");
    // Alice's next reply is not held behind Bob's.
    let to = desk.reply_address("g1", "austria");
    let raw = format!(
        "From: <{}>\r\nTo: <{to}>\r\nSubject: set-up\r\nMessage-ID: <slow1@{DOMAIN}>\r\n\r\nPLACE Laudon AT Riva\r\n",
        addr("alice")
    );
    desk.post(raw.as_bytes(), chrono::Utc::now()).unwrap();
    desk.run_once(chrono::Utc::now()).unwrap();
    assert_eq!(spooled(), 2, "the acknowledgement went, Bob's still wait");
    assert!(wait(20, || st.inbox("alice").iter().any(|m| subject(m).contains("accepted"))));
    // Bob's server takes mail again: his two go. The desk hands them over
    // in the spool's order (welcome first), the way a refusal kept them
    // together above; Postfix may deliver two letters of one session in
    // either order, so his mailbox is read as a set.
    drop(slow);
    assert!(wait(30, || {
        let _ = desk.deliver();
        spooled() == 0
    }));
    assert!(wait(20, || st.count("bob", "INBOX") >= 2));
    let mut bob: Vec<String> = st.inbox("bob").iter().map(|m| subject(m)).collect();
    bob.sort_by_key(|s| !s.contains("welcome"));
    assert!(bob.len() == 2 && bob[0].contains("welcome") && bob[1].contains("awaited"), "{bob:?}");
    let state = std::fs::read_to_string(dir.join("desk/outbound.toml")).unwrap_or_default();
    assert!(!state.contains(&addr("bob")), "Bob's back-off is forgotten: {state}");
    let _ = std::fs::remove_dir_all(&dir);
}
