//! The mail path through a real Dovecot and Postfix on loopback (run with
//! `scripts/bench.sh`, which starts them): messages per second ingested and
//! answered by the desk, beside the rate at which a plain IMAP client
//! fetches the same messages from the same server (the imap crate, and
//! Python's imaplib as the baseline) and the rate at which Python's smtplib
//! submits as many messages to the same Postfix. Prints
//! figures and ratios; asserts nothing about time.

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
        game: GameAddress { address: "game@adjutant.test".into(), name: "adjutant".into(), operator: None },
        inbound: Inbound::Imap(imap_cfg.clone()),
        outbound: Outbound::Smtp(smtp_cfg),
        // Throughput, not flood protection: every mail is answered.
        limits: Limits { replies_per_hour: u32::MAX, ..Limits::default() },
        deadlines: Default::default(),
        publish: Default::default(),
        mail: Default::default(),
        player: Default::default(),
    };
    let data = std::env::temp_dir().join(format!("adjutant-bench-mail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let desk = Desk::open(&data, cfg.clone()).unwrap();
    let mut i = 0u8;
    let req = NewGame {
        id: Some("bench".into()),
        ..NewGame::new(
            "mantua",
            vec![("austria".into(), "alice@adjutant.test".into()), ("france".into(), "bob@adjutant.test".into())],
        )
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
    // The baseline: Python's imaplib fetching the same messages the same
    // way (STARTTLS, batches of 50, BODY.PEEK[], nothing changed).
    let script = r#"
import imaplib, ssl, sys, time
host, port, ca, user, pw = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
m = imaplib.IMAP4(host, port)
m.starttls(ssl_context=ssl.create_default_context(cafile=ca))
m.login(user, pw)
m.select("INBOX", readonly=True)
t = time.time()
uids = m.uid("SEARCH", None, "ALL")[1][0].split()
n = 0
for i in range(0, len(uids), 50):
    n += sum(1 for x in m.uid("FETCH", b",".join(uids[i:i + 50]), "(BODY.PEEK[])")[1] if isinstance(x, tuple))
print(n, time.time() - t)
m.logout()
"#;
    let imaplib = python(
        script,
        &[&env["MAILSTACK_IMAP_PORT"], &env["MAILSTACK_CA"], "game@adjutant.test", &env["MAILSTACK_PASSWORD"]],
    )
    .and_then(|o| {
        let (n, secs) = o.split_once(' ').ok_or(o.clone())?;
        Ok((n.parse::<usize>().map_err(|e| e.to_string())?, secs.parse::<f64>().map_err(|e| e.to_string())?))
    });
    match &imaplib {
        Ok((got, secs)) => println!(
            "mailpath: Python's imaplib fetches {got} messages in {secs:.2} s: {:.0} messages/s",
            *got as f64 / secs
        ),
        Err(e) => println!("mailpath: the imaplib baseline failed: {e}"),
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
    if let Ok((got, secs)) = imaplib {
        println!(
            "mailpath: the desk's fetch runs at {:.2} of imaplib's rate; its whole pass (fetch, handle, journal, move, reply by SMTP) at {:.2}",
            (uids.len() as f64 / fetch) / (got as f64 / secs),
            (r.messages as f64 / pass) / (got as f64 / secs)
        );
    }
    // SMTP out alone: the replies to n more orders are spooled while the
    // server is unreachable, then sent in one delivery.
    let mut closed = cfg.clone();
    if let Outbound::Smtp(c) = &mut closed.outbound {
        c.port = 1;
    }
    let offline = Desk::open(&data, closed).unwrap();
    for k in 0..n {
        let raw = format!(
            "From: <alice@adjutant.test>\r\nTo: <{to}>\r\nSubject: again {k}\r\nMessage-ID: <again{k}.{}@adjutant.test>\r\n\r\nSALT s{k}\r\n",
            std::process::id()
        );
        s.append("INBOX", raw.as_bytes()).finish().unwrap();
    }
    offline.imap_pass(&mut s, &imap_cfg, &AtomicBool::new(false)).unwrap();
    let _ = std::fs::remove_file(data.join("desk/outbound.toml"));
    let start = Instant::now();
    let sent = desk.deliver().unwrap();
    let out_secs = start.elapsed().as_secs_f64();
    println!(
        "mailpath: the desk sends {sent} spooled replies by SMTP in {out_secs:.2} s: {:.0} messages/s",
        sent as f64 / out_secs
    );
    let _ = s.logout();
    // The baseline: Python's smtplib submitting as many messages of the
    // same size over one connection to the same Postfix.
    let script = r#"
import smtplib, ssl, sys, time
host, port, ca, user, pw, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
body = "PLACE Laudon AT Riva: accepted.\r\n" * 60
s = smtplib.SMTP(host, port)
s.starttls(context=ssl.create_default_context(cafile=ca))
s.login(user, pw)
t = time.time()
for i in range(n):
    s.sendmail(user, ["alice@adjutant.test"], "From: <%s>\r\nTo: <alice@adjutant.test>\r\nSubject: baseline %d\r\n\r\n%s" % (user, i, body))
print(time.time() - t)
s.quit()
"#;
    let secs = python(
        script,
        &[
            &env["MAILSTACK_SUBMISSION_PORT"],
            &env["MAILSTACK_CA"],
            "game@adjutant.test",
            &env["MAILSTACK_PASSWORD"],
            &r.sent.to_string(),
        ],
    )
    .and_then(|o| o.parse::<f64>().map_err(|e| format!("{e}: {o}")));
    match secs.map_err(|e| println!("mailpath: the smtplib baseline failed: {}", e.replace('\n', " | "))).ok() {
        Some(secs) => println!(
            "mailpath: smtplib submits {} messages over one connection in {secs:.2} s: {:.0} messages/s; the desk sends at {:.2} of that, and its whole pass (ingest and reply) runs at {:.2}",
            r.sent,
            r.sent as f64 / secs,
            (sent as f64 / out_secs) / (r.sent as f64 / secs),
            (r.messages as f64 / pass) / (r.sent as f64 / secs)
        ),
        None => println!("mailpath: no python3 smtplib baseline"),
    }
    let _ = std::fs::remove_dir_all(&data);
}

/// Run a Python baseline against 127.0.0.1 with these arguments after the
/// host; what it printed, or why it failed.
fn python(script: &str, args: &[&str]) -> Result<String, String> {
    let o = std::process::Command::new("python3")
        .args(["-c", script, "127.0.0.1"])
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).to_string());
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}
