//! Helpers for integration tests: a desk in a fresh folder with fixed
//! entropy, posting mail as a player, reading a recipient's outbox.

use adjutant::config::Config;
use adjutant::desk::{Desk, NewGame, PassReport};
use adjutant::mail::maildir::Maildir;
use chrono::{DateTime, TimeZone, Utc};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

pub const ALICE: &str = "alice@example.org";
pub const BOB: &str = "bob@example.org";
pub const CAROL: &str = "carol@example.org";

static N: AtomicU64 = AtomicU64::new(0);

pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "adjutant-it-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A folder removed when dropped, even by a failing test.
pub struct Cleanup(pub PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Entropy that is the same on every run: reproducible chain tops.
pub fn fixed_entropy() -> impl FnMut() -> [u8; 32] {
    let mut i = 0u8;
    move || {
        i = i.wrapping_add(1);
        adjutant::dice::sha256(&[b'e', i])
    }
}

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
}

pub struct Table {
    pub dir: PathBuf,
    pub desk: Desk,
    pub game: String,
    pub now: DateTime<Utc>,
}

impl Table {
    pub fn new(tag: &str) -> Table {
        Table::with(tag, Some("72h"), "committed")
    }

    /// Letters carry both maps here (the default is the PNG alone), so
    /// that what a test reads of a mail includes its SVG's text.
    pub fn with(tag: &str, deadline: Option<&str>, dice: &str) -> Table {
        let mut cfg = Config::default();
        cfg.mail.maps = "both".into();
        Table::configured(tag, deadline, dice, cfg)
    }

    pub fn configured(tag: &str, deadline: Option<&str>, dice: &str, cfg: Config) -> Table {
        Table::game(tag, "mantua", deadline, dice, cfg)
    }

    /// A game of `ruleset`: its first role played by Alice, its second by
    /// Bob, Carol moderating.
    pub fn game(tag: &str, ruleset: &str, deadline: Option<&str>, dice: &str, cfg: Config) -> Table {
        Table::in_scenario(tag, ruleset, None, deadline, dice, cfg)
    }

    /// [`Table::game`] in the scenario named (the ruleset's first if none).
    pub fn in_scenario(
        tag: &str,
        ruleset: &str,
        scenario: Option<&str>,
        deadline: Option<&str>,
        dice: &str,
        cfg: Config,
    ) -> Table {
        let dir = temp_dir(tag);
        let desk = Desk::open(&dir, cfg).unwrap();
        let info = adjutant::rules::find(ruleset).unwrap().info();
        let roles = info
            .scenarios
            .iter()
            .find(|s| scenario.is_some_and(|n| n.split('+').next() == Some(s.name.as_str())))
            .unwrap_or(&info.scenarios[0])
            .roles
            .clone();
        let req = NewGame {
            scenario: scenario.map(str::to_string),
            gm: Some(CAROL.into()),
            deadline: deadline.map(str::to_string),
            dice: dice.into(),
            id: Some("g1".into()),
            // Alice plays the first role, Bob the second (a solo game has
            // only Alice).
            ..NewGame::new(ruleset, roles.iter().cloned().zip([ALICE.to_string(), BOB.to_string()]).collect())
        };
        let game = desk.create(&req, t0(), &mut fixed_entropy()).unwrap();
        desk.deliver().unwrap();
        Table { dir, desk, game, now: t0() }
    }

    /// A whole raw message into the inbox.
    pub fn post_raw(&mut self, raw: &[u8]) {
        self.now += chrono::Duration::seconds(1);
        self.desk.post(raw, self.now).unwrap();
    }

    /// A plain reply from `from` to `role`'s reply address.
    pub fn send(&mut self, role: &str, from: &str, body: &str) {
        self.send_subject(role, from, "Re: orders", body);
    }

    pub fn send_subject(&mut self, role: &str, from: &str, subject: &str, body: &str) {
        let to = self.desk.reply_address(&self.game, role);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let raw = format!(
            "From: <{from}>\r\nTo: <{to}>\r\nSubject: {subject}\r\nMessage-ID: <t{n}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        );
        self.post_raw(raw.as_bytes());
    }

    pub fn pass(&mut self) -> PassReport {
        self.desk.run_once(self.now).unwrap()
    }

    /// Every mail a recipient has, oldest first, as (subject, text body).
    pub fn mails(&self, who: &str) -> Vec<(String, String)> {
        outbox(&self.desk, who)
    }

    /// Every raw mail a recipient has.
    pub fn raw_mails(&self, who: &str) -> Vec<Vec<u8>> {
        let md = Maildir::open(&self.desk.outbox_of(who)).unwrap();
        md.list_new().unwrap().iter().map(|f| std::fs::read(f).unwrap()).collect()
    }

    /// Every mail `who` got while the game kept its secrets, as (subject,
    /// body and attachments): once a game is over everything is revealed,
    /// so its game-over mail and its last results are left out.
    pub fn mails_before_the_end(&self, who: &str) -> Vec<(String, String)> {
        let l = self.desk.load(&self.game).unwrap();
        let over = l.game.ended || l.game.outcome().is_some();
        let journal = self.dir.join("games").join(&self.game).join("journal.toml");
        let last = adjutant::journal::read(&journal)
            .unwrap()
            .iter()
            .rev()
            .find(|e| e.kind == "resolved")
            .and_then(|e| e.body["step"].as_integer())
            .unwrap_or(0);
        let mut out = Vec::new();
        for raw in self.raw_mails(who) {
            let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
            let subject = m.subject().unwrap_or("").to_string();
            if subject.contains("game over") || (over && subject.contains(&format!("step {last} resolved"))) {
                continue;
            }
            out.push((subject, readable(&m)));
        }
        out
    }

    /// Nothing waits in the spool: every letter released and delivered.
    pub fn spool_empty(&self) -> bool {
        ["spool/tmp", "spool/new"].iter().all(|d| std::fs::read_dir(self.dir.join(d)).unwrap().next().is_none())
    }

    pub fn last(&self, who: &str) -> (String, String) {
        self.mails(who).pop().unwrap_or_default()
    }

    pub fn digest(&self) -> String {
        self.desk.load(&self.game).unwrap().game.digest()
    }

    pub fn step(&self) -> u32 {
        self.desk.load(&self.game).unwrap().game.step
    }

    pub fn journal_len(&self) -> usize {
        adjutant::journal::read(&self.dir.join("games").join(&self.game).join("journal.toml")).unwrap().len()
    }

    /// Both sides' set-up with the scenario placements: to turn 1.
    pub fn setup(&mut self) {
        self.send("austria", ALICE, "PLACE Laudon AT Riva");
        self.send("france", BOB, "PLACE Bonaparte AT Verona");
        let r = self.pass();
        assert_eq!(r.resolved, 1, "{r:?}");
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Every mail in a recipient's outbox, oldest first, as (subject, text
/// body).
pub fn outbox(desk: &Desk, who: &str) -> Vec<(String, String)> {
    let md = Maildir::open(&desk.outbox_of(who)).unwrap();
    let mut files = md.list_new().unwrap();
    // Delivery order: game mail is named <game>.<seq>-<tag>.<n>, a refusal
    // by the mail it answers, so the time each file was written decides.
    files.sort_by_key(|p| {
        let n = p.file_name().unwrap().to_string_lossy().to_string();
        let parts: Vec<u64> =
            n.split('.').skip(1).take(2).map(|x| x.split('-').next().unwrap().parse().unwrap_or(0)).collect();
        (std::fs::metadata(p).and_then(|m| m.modified()).ok(), parts)
    });
    files
        .iter()
        .map(|f| {
            let raw = std::fs::read(f).unwrap();
            let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
            (m.subject().unwrap_or("").to_string(), m.body_text(0).map(|b| b.to_string()).unwrap_or_default())
        })
        .collect()
}

/// A mail's text and its SVG maps, everything a leak could hide in (the PNG
/// is drawn from the SVG, and its bytes are no text to search).
pub fn readable(m: &mail_parser::Message) -> String {
    use mail_parser::MimeHeaders;
    let mut text = m.body_text(0).map(|b| b.to_string()).unwrap_or_default();
    for a in m.attachments() {
        if a.content_type().and_then(|c| c.subtype()) != Some("png") {
            text.push_str(&String::from_utf8_lossy(a.contents()));
        }
    }
    text
}

/// `adjutant audit JOURNAL`: (success, what it printed).
pub fn audit(journal: &std::path::Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("audit").arg(journal).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).to_string())
}

/// The journal verifies; otherwise fail with audit's own words.
pub fn assert_audits(journal: &std::path::Path) {
    let (ok, text) = audit(journal);
    assert!(ok, "audit of {} failed:\n{text}", journal.display());
}

/// A journal audited by adjutant and its dice re-verified by the player's
/// own script, `scripts/verify_dice.py`, which shares no code with it.
pub fn assert_audits_and_dice_verify(journal: &std::path::Path, what: &str) {
    assert_audits(journal);
    let py = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/verify_dice.py"))
        .arg(journal)
        .output()
        .unwrap();
    assert!(py.status.success(), "{what}: {}", String::from_utf8_lossy(&py.stdout));
}

/// Runs `cmd` to its end, or kills it after `secs` seconds and fails the
/// test with what it printed so far: a command that loops must fail its
/// test, not hold the whole suite until CI gives up.
pub fn output_within(cmd: &mut std::process::Command, secs: u64) -> std::process::Output {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the command starts");
    // Read both pipes as the child writes, so that a full pipe never stops it.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if std::time::Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            let text = String::from_utf8_lossy(&out.join().unwrap_or_default()).to_string();
            let tail: String = text.chars().rev().take(3000).collect::<Vec<_>>().into_iter().rev().collect();
            panic!("{cmd:?} did not end within {secs} s; the end of what it printed:\n{tail}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::process::Output { status, stdout: out.join().unwrap_or_default(), stderr: err.join().unwrap_or_default() }
}

/// Whether headless Chromium is here to render pages; CI must have it
/// (scripts/test.sh installs Debian's package).
pub fn have_chromium() -> bool {
    let here = Path::new("/usr/bin/chromium").exists();
    if !here {
        assert!(std::env::var("CI").is_err(), "CI renders pages in Chromium: scripts/test.sh installs it");
        eprintln!("skipped: no /usr/bin/chromium");
    }
    here
}

/// Render a local page in headless Chromium, with the network shut, into
/// a screenshot.
pub fn chromium_screenshot(html: &Path, shot: &Path) {
    let profile = shot.with_extension("profile");
    let mut child = Command::new("/usr/bin/chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1000,6000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", html.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let end = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < end {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    assert!(shot.exists(), "Chromium wrote a screenshot");
}

/// Pixels of a PNG close to the colour `rrggbb`.
pub fn ink(png: &Path, rrggbb: &str) -> usize {
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/png_ink.py"))
        .arg(png)
        .arg(rrggbb)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}
