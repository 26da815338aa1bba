//! The mail path through a real Dovecot and Postfix on loopback (run with
//! `scripts/bench.sh`, which starts them): messages per second ingested and
//! answered by the desk, beside the rate at which a plain IMAP client
//! fetches the same messages from the same server. Prints figures; asserts
//! nothing about time.

use adjutant::config::{Config, GameAddress, ImapConfig, Inbound, Limits, Outbound, Security, SmtpConfig};
use adjutant::desk::{Desk, NewGame};
use adjutant::mail::imap;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn main() {
    let Ok(dir) = std::env::var("MAILSTACK_DIR") else {
        println!("mailpath: no mail stack (run scripts/bench.sh); nothing measured");
        return;
    };
    let n: usize = std::env::var("BENCH_MAILS").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let env: HashMap<String, String> = std::fs::read_to_string(format!("{dir}/env"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.trim_matches(['\'', '"']).to_string()))
        .collect();
    std::env::set_var("BENCH_MAIL_PASSWORD", env["MAILSTACK_PASSWORD"].clone());
    let port = |k: &str| env[k].parse::<u16>().unwrap();
    let imap_cfg = ImapConfig {
        host: "127.0.0.1".into(),
        port: port("MAILSTACK_IMAP_PORT"),
        security: Security::Starttls,
        allow_plain: false,
        user: "game@adjutant.test".into(),
        password_env: Some("BENCH_MAIL_PASSWORD".into()),
        password_file: None,
        folder: "INBOX".into(),
        processed_folder: "adjutant-processed".into(),
        idle: false,
        idle_seconds: 2,
        poll_seconds: 1,
        batch: 50,
        ca_file: Some(env["MAILSTACK_CA"].clone()),
    };
    let smtp_cfg = SmtpConfig {
        host: "127.0.0.1".into(),
        port: port("MAILSTACK_SUBMISSION_PORT"),
        security: Security::Starttls,
        allow_plain: false,
        user: Some("game@adjutant.test".into()),
        password_env: Some("BENCH_MAIL_PASSWORD".into()),
        password_file: None,
        ca_file: Some(env["MAILSTACK_CA"].clone()),
        timeout_seconds: 10,
        retry_max_seconds: 2,
    };
    let cfg = Config {
        game: GameAddress { address: "game@adjutant.test".into(), name: "adjutant".into() },
        inbound: Inbound::Imap(imap_cfg.clone()),
        outbound: Outbound::Smtp(smtp_cfg),
        // Throughput, not flood protection: every mail is answered.
        limits: Limits { replies_per_hour: u32::MAX, ..Limits::default() },
        deadlines: Default::default(),
    };
    let data = std::env::temp_dir().join(format!("adjutant-bench-mail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let desk = Desk::open(&data, cfg).unwrap();
    let mut i = 0u8;
    let req = NewGame {
        ruleset: "mantua".into(),
        scenario: None,
        players: vec![("austria".into(), "alice@adjutant.test".into()), ("france".into(), "bob@adjutant.test".into())],
        gm: None,
        deadline: None,
        dice: "committed".into(),
        id: Some("bench".into()),
    };
    desk.create(&req, chrono::Utc::now(), &mut || {
        i += 1;
        adjutant::dice::sha256(&[i])
    })
    .unwrap();
    desk.deliver().unwrap();
    let to = desk.reply_address("bench", "austria");
    let mut s = imap::connect(&imap_cfg).unwrap();
    imap::ensure_folder(&mut s, "adjutant-processed").unwrap();
    // Empty the mailbox, then fill it with n order mails.
    s.select("INBOX").unwrap();
    let _ = s.store("1:*", "+FLAGS.SILENT (\\Deleted)");
    let _ = s.expunge();
    for k in 0..n {
        let raw = format!(
            "From: <alice@adjutant.test>\r\nTo: <{to}>\r\nSubject: set-up {k}\r\nMessage-ID: <bench{k}.{}@adjutant.test>\r\n\r\nPLACE Laudon AT {}\r\n",
            std::process::id(),
            if k % 2 == 0 { "Riva" } else { "Rovereto" }
        );
        s.append("INBOX", raw.as_bytes()).finish().unwrap();
    }
    // A plain IMAP client: fetch every message, in batches, nothing else.
    let start = Instant::now();
    let (_, uids) = imap::pending(&mut s, "INBOX").unwrap();
    let mut bytes = 0;
    for chunk in uids.chunks(50) {
        bytes += imap::fetch(&mut s, chunk).unwrap().iter().map(|m| m.1.len()).sum::<usize>();
    }
    let fetch = start.elapsed().as_secs_f64();
    println!(
        "mailpath: a plain IMAP client fetches {} messages ({bytes} bytes) in {fetch:.2} s: {:.0} messages/s",
        uids.len(),
        uids.len() as f64 / fetch
    );
    // The desk: fetch, identify, validate, journal, move to the processed
    // folder, answer each by SMTP submission through Postfix.
    let start = Instant::now();
    let r = desk.imap_pass(&mut s, &imap_cfg, &AtomicBool::new(false)).unwrap();
    let pass = start.elapsed().as_secs_f64();
    println!(
        "mailpath: the desk ingests and answers {} messages ({} replies sent by SMTP) in {pass:.2} s: {:.0} messages/s",
        r.messages,
        r.sent,
        r.messages as f64 / pass
    );
    let _ = s.logout();
    let _ = std::fs::remove_dir_all(&data);
}
