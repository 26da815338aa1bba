//! Hostile mail, measured (run with `cargo bench --bench hostile`): one
//! submission of many lines at two sizes, to show the cost grows with the
//! mail and not its square, a single line of 5 and 20 MB, and a flood of
//! 10,000 STATUS mails from one player under the default limits. Prints time and the process's peak
//! memory; asserts nothing about time.

use adjutant::config::Config;
use adjutant::desk::{Desk, NewGame};
use chrono::{TimeZone, Utc};
use std::time::Instant;

/// The process's peak resident memory so far, in MiB.
fn peak_mib() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    u.ru_maxrss as f64 / 1024.0
}

fn game(tag: &str) -> (std::path::PathBuf, Desk, String) {
    let dir = std::env::temp_dir().join(format!("adjutant-bench-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let desk = Desk::open(&dir, Config::default()).unwrap();
    let req = NewGame {
        id: Some("g1".into()),
        ..NewGame::new(
            "mantua",
            vec![("austria".into(), "a@example.org".into()), ("france".into(), "b@example.org".into())],
        )
    };
    let mut i = 0u8;
    let mut ent = move || {
        i = i.wrapping_add(1);
        adjutant::dice::sha256(&[i])
    };
    let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let id = desk.create(&req, t0, &mut ent).unwrap();
    desk.deliver().unwrap();
    (dir, desk, id)
}

fn main() {
    let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 13, 0, 0).unwrap();
    for (label, lines, line) in [
        ("50,000-line submission", 50_000, "PLACE Laudon AT Riva"),
        ("100,000-line submission", 100_000, "PLACE Laudon AT Riva"),
        ("200,000 one-character lines", 200_000, "x"),
    ] {
        let (dir, desk, id) = game("lines");
        let to = desk.reply_address(&id, "austria");
        let body: String = (0..lines).map(|_| format!("{line}\n")).collect();
        let raw = format!("From: <a@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\n\r\n{body}");
        desk.post(raw.as_bytes(), t0).unwrap();
        let started = Instant::now();
        let r = desk.run_once(t0).unwrap();
        println!(
            "{label} ({:.1} MB): handled in {:.3} s (rejected {}), peak memory so far {:.0} MiB",
            raw.len() as f64 / 1e6,
            started.elapsed().as_secs_f64(),
            r.rejected,
            peak_mib()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    // One line of many megabytes: refused unread, quoted back a few
    // hundred characters long.
    for mb in [5usize, 20] {
        let (dir, desk, id) = game("longline");
        let to = desk.reply_address(&id, "austria");
        let raw =
            format!("From: <a@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\n\r\nMOVE {}\r\n", "x".repeat(mb << 20));
        desk.post(raw.as_bytes(), t0).unwrap();
        let started = Instant::now();
        let r = desk.run_once(t0).unwrap();
        let biggest = std::fs::read_dir(desk.outbox_of("a@example.org").join("new"))
            .unwrap()
            .flatten()
            .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("NOT accepted")))
            .map(|e| e.metadata().unwrap().len())
            .max()
            .unwrap_or(0);
        println!(
            "a {mb} MB single line: handled in {:.3} s (rejected {}), the reply {biggest} bytes, peak memory so far {:.0} MiB",
            started.elapsed().as_secs_f64(),
            r.rejected,
            peak_mib()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    let (dir, desk, id) = game("flood");
    let to = desk.reply_address(&id, "france");
    for i in 0..10_000 {
        let raw = format!("From: <b@example.org>\r\nTo: <{to}>\r\nSubject: status\r\nMessage-ID: <f{i}@example.org>\r\n\r\nSTATUS\r\n");
        desk.post(raw.as_bytes(), t0).unwrap();
    }
    let started = Instant::now();
    let r = desk.run_once(t0).unwrap();
    let replies = std::fs::read_dir(desk.outbox_of("b@example.org").join("new")).map(|d| d.count()).unwrap_or(0);
    println!(
        "flood: 10,000 STATUS mails from one player handled in {:.2} s ({} messages); {replies} mails in the player's outbox (the welcome and prompt, 60 replies, one notice); peak memory {:.0} MiB",
        started.elapsed().as_secs_f64(),
        r.messages,
        peak_mib()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
