//! The real mail stack (Postfix + Dovecot on loopback) that scripts/test.sh
//! starts: its ports and CA, sending by SMTP, reading and appending by IMAP.
//! Tests that need it take the lock (one stack, shared mailboxes).

use adjutant::config::{Config, GameAddress, ImapConfig, Inbound, Limits, Outbound, Security, SmtpConfig};
use adjutant::mail::imap;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{SmtpTransport, Transport};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub const DOMAIN: &str = "adjutant.test";
pub const PASSWORD_ENV: &str = "ADJUTANT_TEST_MAIL_PASSWORD";

pub struct Stack {
    pub dir: PathBuf,
    env: HashMap<String, String>,
}

static LOCK: Mutex<()> = Mutex::new(());

/// The stack and a lock on it, or None (with a note) outside CI when
/// scripts/test.sh did not start one. In CI a missing stack is a failure.
pub fn stack() -> Option<(Stack, MutexGuard<'static, ()>)> {
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Ok(dir) = std::env::var("MAILSTACK_DIR") else {
        assert!(std::env::var("CI").is_err(), "CI runs the mail-path tests: scripts/test.sh must start the mail stack");
        eprintln!("skipped: no mail stack (run scripts/test.sh as root)");
        return None;
    };
    let text = std::fs::read_to_string(format!("{dir}/env")).expect("the mail stack's env file");
    let env = text
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.trim_matches(['\'', '"']).to_string()))
        .collect::<HashMap<_, _>>();
    // Safety of set_var: tests touching the stack hold the lock.
    std::env::set_var(PASSWORD_ENV, env.get("MAILSTACK_PASSWORD").cloned().unwrap_or_else(|| "secret".into()));
    Some((Stack { dir: dir.into(), env }, guard))
}

impl Stack {
    pub fn port(&self, k: &str) -> u16 {
        self.env[k].parse().unwrap()
    }
    pub fn ca(&self) -> String {
        self.env["MAILSTACK_CA"].clone()
    }

    /// scripts/mailstack.sh <cmd> DIR (stop-imap, start-imap, ...).
    pub fn script(&self, cmd: &str) {
        let st = std::process::Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/mailstack.sh"))
            .arg(cmd)
            .arg(&self.dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "mailstack.sh {cmd} failed");
    }

    pub fn imap_cfg(&self, user: &str) -> ImapConfig {
        ImapConfig {
            host: "127.0.0.1".into(),
            port: self.port("MAILSTACK_IMAP_PORT"),
            security: Security::Starttls,
            allow_plain: false,
            user: format!("{user}@{DOMAIN}"),
            password_env: Some(PASSWORD_ENV.into()),
            password_file: None,
            folder: "INBOX".into(),
            processed_folder: "adjutant-processed".into(),
            idle: true,
            idle_seconds: 2,
            poll_seconds: 1,
            batch: 50,
            ca_file: Some(self.ca()),
        }
    }

    pub fn smtp_cfg(&self) -> SmtpConfig {
        SmtpConfig {
            host: "127.0.0.1".into(),
            port: self.port("MAILSTACK_SUBMISSION_PORT"),
            security: Security::Starttls,
            allow_plain: false,
            user: Some(format!("game@{DOMAIN}")),
            password_env: Some(PASSWORD_ENV.into()),
            password_file: None,
            ca_file: Some(self.ca()),
            timeout_seconds: 10,
            retry_max_seconds: 2,
        }
    }

    /// The desk's configuration: the game mailbox over IMAP, replies by
    /// authenticated submission.
    pub fn config(&self) -> Config {
        Config {
            game: GameAddress { address: format!("game@{DOMAIN}"), name: "adjutant".into(), operator: None },
            inbound: Inbound::Imap(self.imap_cfg("game")),
            outbound: Outbound::Smtp(self.smtp_cfg()),
            limits: Limits { replies_per_hour: 100_000, ..Limits::default() },
            deadlines: Default::default(),
            publish: Default::default(),
            mail: Default::default(),
            player: Default::default(),
        }
    }

    /// The same as a TOML file for the daemon binary.
    pub fn config_file(&self, path: &std::path::Path) {
        let t = format!(
            r#"[game]
address = "game@{DOMAIN}"
name = "adjutant"

[inbound]
kind = "imap"
host = "127.0.0.1"
port = {}
security = "starttls"
user = "game@{DOMAIN}"
password_env = "{PASSWORD_ENV}"
ca_file = "{}"
idle_seconds = 2
poll_seconds = 1

[outbound]
kind = "smtp"
host = "127.0.0.1"
port = {}
security = "starttls"
user = "game@{DOMAIN}"
password_env = "{PASSWORD_ENV}"
ca_file = "{}"
retry_max_seconds = 2

[limits]
poll_seconds = 1
# The tests send hundreds of mails from one player in minutes.
replies_per_hour = 100000
"#,
            self.port("MAILSTACK_IMAP_PORT"),
            self.ca(),
            self.port("MAILSTACK_SUBMISSION_PORT"),
            self.ca()
        );
        std::fs::write(path, t).unwrap();
    }

    /// Send a message over SMTP (port 2525, STARTTLS, no AUTH) as a player's
    /// mail client would. `raw` is a whole message; `from` may be empty (a
    /// bounce's null return path).
    pub fn send_raw(&self, from: &str, to: &str, raw: &[u8]) {
        let tls = TlsParameters::builder("127.0.0.1".into())
            .add_root_certificate(Certificate::from_pem(&std::fs::read(self.ca()).unwrap()).unwrap())
            .build_rustls()
            .unwrap();
        let t = SmtpTransport::builder_dangerous("127.0.0.1")
            .port(self.port("MAILSTACK_SMTP_PORT"))
            .tls(Tls::Required(tls))
            .build();
        let env = lettre::address::Envelope::new(
            if from.is_empty() { None } else { Some(from.parse().unwrap()) },
            vec![to.parse().unwrap()],
        )
        .unwrap();
        t.send_raw(&env, raw).unwrap();
    }

    pub fn send(&self, from: &str, to: &str, subject: &str, body: &str) {
        let n = Instant::now().elapsed().as_nanos() ^ (std::process::id() as u128);
        let raw = format!(
            "From: <{from}>\r\nTo: <{to}>\r\nSubject: {subject}\r\nMessage-ID: <{n}.{}@{DOMAIN}>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            rand_tag()
        );
        self.send_raw(from, to, raw.as_bytes());
    }

    pub fn session(&self, user: &str) -> imap::Session {
        imap::connect(&self.imap_cfg(user)).expect("IMAP login")
    }

    /// Every message in a user's INBOX.
    pub fn inbox(&self, user: &str) -> Vec<Vec<u8>> {
        let mut s = self.session(user);
        let (_, uids) = imap::pending(&mut s, "INBOX").unwrap();
        let v = imap::fetch(&mut s, &uids).unwrap().into_iter().map(|(_, r)| r).collect();
        let _ = s.logout();
        v
    }

    pub fn count(&self, user: &str, folder: &str) -> usize {
        let mut s = self.session(user);
        let n = match imap::pending(&mut s, folder) {
            Ok((_, uids)) => uids.len(),
            Err(_) => 0,
        };
        let _ = s.logout();
        n
    }

    /// Empty a user's INBOX and processed folder.
    pub fn clear(&self, user: &str) {
        let mut s = self.session(user);
        for f in ["INBOX", "adjutant-processed"] {
            if s.select(f).is_ok() {
                let _ = s.store("1:*", "+FLAGS.SILENT (\\Deleted)");
                let _ = s.expunge();
            }
        }
        let _ = s.logout();
    }

    /// Put a message straight into a user's INBOX (no SMTP needed).
    pub fn append(&self, user: &str, raw: &[u8]) {
        let mut s = self.session(user);
        s.append("INBOX", raw).finish().unwrap();
        let _ = s.logout();
    }

    /// Wait until Postfix's queue holds no mail (at most `secs` seconds).
    pub fn queue_drained(&self, secs: u64) -> bool {
        let queue = self.dir.join("spool/postfix");
        let end = Instant::now() + Duration::from_secs(secs);
        let empty = || {
            ["maildrop", "incoming", "active", "deferred", "hold"].iter().all(|q| {
                fn files(p: &std::path::Path) -> usize {
                    std::fs::read_dir(p)
                        .map(|d| d.flatten().map(|e| if e.path().is_dir() { files(&e.path()) } else { 1 }).sum())
                        .unwrap_or(0)
                }
                files(&queue.join(q)) == 0
            })
        };
        while Instant::now() < end {
            if empty() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// Wait until a user's INBOX holds at least `n` messages.
    pub fn wait_for(&self, user: &str, folder: &str, n: usize, secs: u64) -> bool {
        let end = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < end {
            if self.count(user, folder) >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Stack {
    /// Empty every test mailbox and create game g1 (Austria alice, France
    /// bob, moderator carol) in a fresh data folder; its first mails wait
    /// in the spool.
    pub fn fresh_game(&self, tag: &str) -> (PathBuf, adjutant::desk::Desk) {
        // Mail an earlier test left in Postfix's queue (a burst, an outage
        // held on purpose) would land after the mailboxes are cleared.
        self.queue_drained(30);
        for u in ["game", "alice", "bob", "carol", "mallory"] {
            self.clear(u);
        }
        let dir = crate::support::temp_dir(tag);
        let desk = adjutant::desk::Desk::open(&dir, self.config()).unwrap();
        let req = adjutant::desk::NewGame {
            gm: Some(format!("carol@{DOMAIN}")),
            id: Some("g1".into()),
            ..adjutant::desk::NewGame::new(
                "mantua",
                vec![("austria".into(), format!("alice@{DOMAIN}")), ("france".into(), format!("bob@{DOMAIN}"))],
            )
        };
        desk.create(&req, chrono::Utc::now(), &mut crate::support::fixed_entropy()).unwrap();
        (dir, desk)
    }
}

fn rand_tag() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst))
}

pub fn subject(raw: &[u8]) -> String {
    mail_parser::MessageParser::default().parse(raw).and_then(|m| m.subject().map(str::to_string)).unwrap_or_default()
}

pub fn body(raw: &[u8]) -> String {
    mail_parser::MessageParser::default()
        .parse(raw)
        .and_then(|m| m.body_text(0).map(|b| b.to_string()))
        .unwrap_or_default()
}
