//! Throughput benchmarks (run with `cargo bench --bench throughput`):
//! ingesting and answering order mails from the local Maildir across many
//! games, and auditing a 1,000-step journal. Prints the figures the README
//! quotes; asserts nothing about time.

use adjutant::config::Config;
use adjutant::desk::{Desk, NewGame};
use chrono::{TimeZone, Utc};
use std::time::Instant;

// The daemon's allocator (src/main.rs), so the figures are its own.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn entropy() -> impl FnMut() -> [u8; 32] {
    let mut i = 0u32;
    move || {
        i += 1;
        adjutant::dice::sha256(&i.to_le_bytes())
    }
}

/// Mantua game `{prefix}{g}` with its deadline, played by a{g} and f{g}.
fn numbered_mantua(prefix: &str, g: usize, deadline: &str) -> NewGame {
    NewGame {
        deadline: Some(deadline.into()),
        id: Some(format!("{prefix}{g}")),
        ..NewGame::new(
            "mantua",
            vec![("austria".into(), format!("a{g}@example.org")), ("france".into(), format!("f{g}@example.org"))],
        )
    }
}

/// What [`ingest`] measured, the desk it ran and its folder.
struct Ingest {
    secs: f64,
    cpu: f64,
    messages: usize,
    desk: Desk,
    dir: std::path::PathBuf,
}

/// Ingest `per_game` order mails for each of `games` games in one pass.
fn ingest(tag: &str, games: usize, per_game: usize) -> Ingest {
    let dir = std::env::temp_dir().join(format!("adjutant-bench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Throughput, not flood protection: every mail is answered.
    let mut cfg = Config::default();
    cfg.limits.replies_per_hour = u32::MAX;
    // BENCH_GROUP: the messages a commit covers (`[limits] group_messages`).
    if let Some(g) = std::env::var("BENCH_GROUP").ok().and_then(|s| s.parse().ok()) {
        cfg.limits.group_messages = g;
    }
    let desk = Desk::open(&dir, cfg).unwrap();
    let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let mut ent = entropy();
    let mut ids = Vec::new();
    for g in 0..games {
        let req = numbered_mantua("b", g, "72h");
        ids.push(desk.create(&req, t0, &mut ent).unwrap());
    }
    desk.deliver().unwrap();
    // Order mails: each player revises their set-up again and again (each
    // accepted set replaces the last), a tenth of them with a mistake. A
    // first round of one mail a game is the process's first pass over the
    // games (each read from disk); the measured pass is a running daemon's,
    // which holds the games it committed (`[limits] games_in_memory`).
    let places = ["Rovereto", "Riva"];
    let mut n = 0;
    let post_round = |i: usize, n: &mut usize| {
        for (g, id) in ids.iter().enumerate() {
            let to = desk.reply_address(id, "austria");
            let body = if i % 10 == 9 {
                "PLACE Laudon AT Vienna".to_string()
            } else {
                format!("PLACE Laudon AT {}\nSALT s{i}", places[i % 2])
            };
            let raw = format!("From: <a{g}@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <m{n}@example.org>\r\n\r\n{body}\r\n");
            desk.post(raw.as_bytes(), t0 + chrono::Duration::seconds(*n as i64)).unwrap();
            *n += 1;
        }
    };
    post_round(per_game, &mut n);
    let start = Instant::now();
    desk.run_once(t0 + chrono::Duration::minutes(30)).unwrap();
    let first = start.elapsed().as_secs_f64();
    println!("first pass of the process over {games} games, one mail each: {:.2} s", first);
    for i in 0..per_game {
        post_round(i, &mut n);
    }
    if std::env::var_os("BENCH_PART").is_some() {
        // A profiler attached now sees the pass alone, not the set-up.
        eprintln!("ingest starts in 2 s: pid {}", std::process::id());
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    // Each timed part starts on a disk with nothing left to write back: a
    // sync inside it would otherwise wait for whatever came before (the
    // set-up's mail, another part's files, a removed folder).
    adjutant::journal::sync_filesystem(&dir).unwrap();
    let (start, cpu0) = (Instant::now(), cpu_seconds());
    let r = desk.run_once(t0 + chrono::Duration::hours(1)).unwrap();
    let (secs, cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu0);
    println!(
        "ingest: {} order mails across {games} games in {secs:.2} s, {:.2} s of CPU ({:.0} mails/s; {} accepted, {} rejected, {} replies written)",
        r.messages,
        cpu,
        r.messages as f64 / secs,
        r.accepted,
        r.rejected,
        r.sent
    );
    Ingest { secs, cpu, messages: r.messages, desk, dir }
}

/// The floor for a pass that writes a file a mail: 10,000 files of 2 KB
/// (the size of a reply) written, then one sync; files a second.
fn files_floor(dir: &std::path::Path) -> f64 {
    std::fs::create_dir_all(dir).unwrap();
    let blob = vec![b'x'; 2048];
    adjutant::journal::sync_filesystem(dir).unwrap();
    let start = Instant::now();
    for i in 0..10_000 {
        std::fs::write(dir.join(format!("a{i}")), &blob).unwrap();
    }
    adjutant::journal::sync_filesystem(dir).unwrap();
    10_000.0 / start.elapsed().as_secs_f64()
}

/// What the file operations of a mail cost by themselves, with no
/// handling: 10,000 inbound mails (put there first, not timed) each read
/// and moved from `new/` to `cur/`, a 2 KB reply written for each into a
/// spool, one sync, then each reply renamed into an outbox; mails a
/// second. The ceiling of the one-game pass on this disk.
fn mail_files_floor(dir: &std::path::Path) -> f64 {
    let sub = |s: &str| {
        let d = dir.join(s);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let (new, cur, spool, out) = (sub("new"), sub("cur"), sub("spool"), sub("out"));
    let mail = vec![b'm'; 300];
    for i in 0..10_000 {
        std::fs::write(new.join(format!("m{i}")), &mail).unwrap();
    }
    adjutant::journal::sync_filesystem(dir).unwrap();
    let blob = vec![b'x'; 2048];
    let start = Instant::now();
    for i in 0..10_000 {
        let m = new.join(format!("m{i}"));
        std::hint::black_box(std::fs::read(&m).unwrap());
        std::fs::rename(&m, cur.join(format!("m{i}:2,S"))).unwrap();
        std::fs::write(spool.join(format!("r{i}")), &blob).unwrap();
    }
    adjutant::journal::sync_filesystem(dir).unwrap();
    for i in 0..10_000 {
        std::fs::rename(spool.join(format!("r{i}")), out.join(format!("r{i}"))).unwrap();
    }
    10_000.0 / start.elapsed().as_secs_f64()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// User and system CPU time of this process so far: steadier than the
/// wall clock on a shared machine, where a sync may wait on other tenants.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct it is given and nothing else.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn main() {
    let games: usize = std::env::var("BENCH_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let per_game: usize = std::env::var("BENCH_MAILS").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    // BENCH_PART=one or thousand: only that ingest, for a profiler;
    // floors: only the two floors, in turns.
    if std::env::var("BENCH_PART").as_deref() == Ok("floors") {
        let dir = std::env::temp_dir().join(format!("adjutant-bench-floors-{}", std::process::id()));
        for r in 0..3 {
            let floor = files_floor(&dir.join(format!("files{r}")));
            let mail = mail_files_floor(&dir.join(format!("mail{r}")));
            println!(
                "files written all then synced once {floor:.0}/s; a mail's file operations alone {mail:.0}/s ({:.2})",
                mail / floor
            );
        }
        if std::env::var_os("BENCH_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(dir);
        }
        return;
    }
    if std::env::var("BENCH_PART").as_deref() == Ok("cold") {
        cold(std::env::var("BENCH_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(5000));
        return;
    }
    if std::env::var("BENCH_PART").as_deref() == Ok("rebuild") {
        rebuild(std::env::var("BENCH_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000));
        return;
    }
    if std::env::var("BENCH_PART").as_deref() == Ok("maps") {
        maps(std::env::var("BENCH_BACKLOG").ok().and_then(|s| s.parse().ok()).unwrap_or(1500));
        return;
    }
    let part = match std::env::var("BENCH_PART").as_deref() {
        Ok("one") => Some(ingest("one", 1, games * per_game)),
        Ok("thousand") => Some(ingest("thousand", 1000, (games * per_game / 1000).max(1))),
        _ => None,
    };
    if let Some(Ingest { dir, .. }) = part {
        // Each run's ~100 MB of games and mail must not pile up in /tmp,
        // unless BENCH_KEEP says so: runs compared in turns should not
        // follow a removal of 30,000 files, since ext4 then passes over the
        // freed inodes for minutes and every file made costs more.
        if std::env::var_os("BENCH_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(dir);
        }
        return;
    }
    let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let mut ent = entropy();
    let Ingest { secs, messages: n, dir, .. } = ingest("main", games, per_game);
    // The ratios, in rounds: in each, one game, the floor and a thousand
    // games, one after the other, so that each ratio compares runs made
    // under the same conditions of a shared disk (whose speed at making
    // files swings, for minutes, with how many it just freed); the medians
    // are the figures. Nothing is removed before the rounds end.
    let rounds: usize = std::env::var("BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3).max(1);
    let total = games * per_game;
    let (mut to_floor, mut to_one, mut folders) = (Vec::new(), Vec::new(), Vec::new());
    let (mut mail_floors, mut to_one_cpu) = (Vec::new(), Vec::new());
    let mut kept = None;
    for r in 0..rounds {
        let one = ingest(&format!("one{r}"), 1, total);
        let one_rate = one.messages as f64 / one.secs;
        let floor = files_floor(&dir.join(format!("files{r}")));
        let mail_floor = mail_files_floor(&dir.join(format!("mailfiles{r}")));
        // The same number of mails for a thousand games: a pass commits
        // once for all games, so the rate should hardly move.
        let many = ingest(&format!("thousand{r}"), 1000, (total / 1000).max(1));
        let many_rate = many.messages as f64 / many.secs;
        // CPU time swings less than the wall clock on a shared disk.
        let by_cpu = (many.messages as f64 / many.cpu) / (one.messages as f64 / one.cpu);
        to_one_cpu.push(by_cpu);
        to_floor.push(one_rate / floor);
        mail_floors.push(mail_floor / floor);
        to_one.push(many_rate / one_rate);
        println!(
            "round {}: one game {one_rate:.0} mails/s, files written all then synced once {floor:.0}/s ({:.2} of that floor); a mail's file operations alone {mail_floor:.0}/s ({:.2} of that floor; one game {:.2} of them); 1,000 games {many_rate:.0} mails/s ({:.2} of the one-game rate; {by_cpu:.2} by CPU time)",
            r + 1,
            one_rate / floor,
            mail_floor / floor,
            one_rate / mail_floor,
            many_rate / one_rate
        );
        folders.push(one.dir);
        if r + 1 == rounds {
            kept = Some((many.desk, many.dir));
        } else {
            folders.push(many.dir);
        }
    }
    println!(
        "ingest ratios, medians of {rounds} rounds: one-game ingest {:.2} of the write-all-then-sync floor (a mail's file operations alone: {:.2} of it); 1,000 games {:.2} of the one-game rate ({:.2} by CPU time); {games} games (one run, before the rounds) {:.0} mails/s",
        median(&mut to_floor),
        median(&mut mail_floors),
        median(&mut to_one),
        median(&mut to_one_cpu),
        n as f64 / secs
    );
    // Small files (the size of a reply) written and fsynced one by one.
    let bdir = dir.join("fsync");
    std::fs::create_dir_all(&bdir).unwrap();
    let blob = vec![b'x'; 2048];
    let start = Instant::now();
    for i in 0..1000 {
        use std::io::Write;
        let mut f = std::fs::File::create(bdir.join(format!("s{i}"))).unwrap();
        f.write_all(&blob).unwrap();
        f.sync_all().unwrap();
    }
    println!("baseline: a 2 KB file written and fsynced one by one {:.0}/s", 1000.0 / start.elapsed().as_secs_f64());
    let (desk_k, dk) = kept.expect("at least one round");
    // An idle pass over the thousand games (nothing in the inbox, no
    // deadline due) against reading their snapshots: the first pass of a
    // process (each game's tip read) and the next ones of a running
    // daemon (each tip only looked at).
    let pass = || {
        let start = Instant::now();
        desk_k.run_once(t0 + chrono::Duration::hours(2)).unwrap();
        start.elapsed().as_secs_f64()
    };
    let cold = pass();
    let idle_passes = 5;
    let idle = (0..idle_passes).map(|_| pass()).sum::<f64>() / idle_passes as f64;
    let start = Instant::now();
    let mut bytes = 0;
    for _ in 0..idle_passes {
        for e in std::fs::read_dir(dk.join("games")).unwrap().flatten() {
            bytes += std::fs::read(e.path().join("state.toml")).map(|b| b.len()).unwrap_or(0);
        }
    }
    let read = start.elapsed().as_secs_f64() / idle_passes as f64;
    println!(
        "idle pass over 1,000 games: first {:.1} ms, then {:.1} ms; reading their snapshots ({} KB): {:.1} ms; ratios {:.2} and {:.2}",
        cold * 1000.0,
        idle * 1000.0,
        bytes / idle_passes / 1024,
        read * 1000.0,
        cold / read,
        idle / read
    );
    for d in folders.iter().chain([&dk]) {
        let _ = std::fs::remove_dir_all(d);
    }

    // Leaguer: whole sieges resolved by the desk at their deadlines (the
    // commanders' no-moves orders, the moderator's DONE): each step's
    // resolution, journal entries and the three results mails.
    let ldir = dir.join("leaguer");
    std::fs::create_dir_all(&ldir).unwrap();
    let desk3 = Desk::open(&ldir, Config::default()).unwrap();
    let sieges = 20;
    let (mut steps, mut letters) = (0usize, 0usize);
    let start = Instant::now();
    for g in 0..sieges {
        let req = NewGame {
            gm: Some("gm@example.org".into()),
            id: Some(format!("siege{g}")),
            ..NewGame::new(
                "leaguer",
                vec![("besiegers".into(), "b@example.org".into()), ("garrison".into(), "g@example.org".into())],
            )
        };
        let id = desk3.create(&req, t0, &mut ent).unwrap();
        let mut l = desk3.load(&id).unwrap();
        let mut batch = adjutant::desk::Batch::default();
        while !l.game.ended && !l.game.awaiting().prompts.is_empty() && steps < 100_000 {
            desk3.referee().resolve_step(&mut l, &mut batch, t0).unwrap();
            steps += 1;
        }
        letters += batch.letters.len();
        desk3.commit(&mut l, batch, t0).unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "leaguer: {sieges} sieges to their end, {steps} steps resolved, journaled and mailed ({letters} mails) in {secs:.2} s ({:.0} steps/s)",
        steps as f64 / secs
    );

    // Inodes a game costs a step: a Mantua game played by its deadlines
    // for 200 steps, each step's orders sent by mail (archived), its
    // results mailed to three outboxes.
    let idir = dir.join("inodes");
    let mut icfg = Config::default();
    icfg.limits.replies_per_hour = u32::MAX;
    let desk4 = Desk::open(&idir, icfg).unwrap();
    let req = NewGame {
        gm: Some("gm@example.org".into()),
        deadline: Some("24h".into()),
        id: Some("inodes".into()),
        ..NewGame::new(
            "mantua",
            vec![("austria".into(), "a@example.org".into()), ("france".into(), "f@example.org".into())],
        )
    };
    desk4.create(&req, t0, &mut ent).unwrap();
    let count = |p: &std::path::Path| -> usize {
        fn walk(p: &std::path::Path) -> usize {
            1 + std::fs::read_dir(p).map(|d| d.flatten().map(|e| walk(&e.path())).sum()).unwrap_or(0)
        }
        walk(p)
    };
    let (before_all, before_game) = (count(&idir), count(&idir.join("games")));
    let mut now = t0;
    let to = desk4.reply_address("inodes", "austria");
    for k in 0..200 {
        let raw = format!("From: <a@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <i{k}@example.org>\r\n\r\nSALT s{k}\r\n");
        now += chrono::Duration::hours(30);
        desk4.post(raw.as_bytes(), now).unwrap();
        desk4.run_once(now).unwrap();
    }
    let steps4 = desk4.load("inodes").unwrap().game.step - 1;
    println!(
        "inodes: {steps4} steps of one game (a mail in, three results mails out each): {:.1} inodes a step in the data folder, {:.1} of them in the game's own folder (the rest: the outboxes of the file transport)",
        (count(&idir) - before_all) as f64 / steps4 as f64,
        (count(&idir.join("games")) - before_game) as f64 / steps4 as f64
    );

    if std::env::var("BENCH_SKIP_AUDIT").is_ok() {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    // A 1,000-step journal: a long quiet game (set-up, then turns passed).
    let jdir = dir.join("long");
    std::fs::create_dir_all(&jdir).unwrap();
    let desk2 = Desk::open(&jdir, Config::default()).unwrap();
    let mut l = long_game(&desk2, t0, &mut ent);
    let mut batch = adjutant::desk::Batch::default();
    let start = Instant::now();
    for _ in 0..1000 {
        desk2.referee().resolve_step(&mut l, &mut batch, t0).unwrap();
    }
    // Journal the steps (without the 3,000 mails they would send).
    batch.letters.clear();
    desk2.commit(&mut l, batch, t0).unwrap();
    let build = start.elapsed().as_secs_f64();
    let jp = jdir.join("games/long/journal.toml");
    let size = std::fs::metadata(&jp).unwrap().len();
    let start = Instant::now();
    let entries = adjutant::journal::read(&jp).unwrap();
    let (_, s) = adjutant::audit::replay(&entries).unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "audit: {} steps, {} entries, {:.1} MB journal verified and replayed in {secs:.3} s (built in {build:.2} s)",
        s.steps,
        s.entries,
        size as f64 / 1e6
    );
    // The same game to 10,000 steps, audited by the binary, which reads the
    // journal entry by entry: time and peak memory.
    let mut batch = adjutant::desk::Batch::default();
    for k in 1000..10_000 {
        desk2.referee().resolve_step(&mut l, &mut batch, t0).unwrap();
        if k % 1000 == 999 {
            batch.letters.clear();
            desk2.commit(&mut l, std::mem::take(&mut batch), t0).unwrap();
        }
    }
    let size = std::fs::metadata(&jp).unwrap().len();
    // Peak memory as /usr/bin/time reports it: a child's own figure would
    // start from this process's, which it is spawned from.
    let start = Instant::now();
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_adjutant"))
        .arg("audit")
        .arg(&jp)
        .output();
    let secs = start.elapsed().as_secs_f64();
    match out {
        Ok(o) => {
            let peak_kb: f64 =
                String::from_utf8_lossy(&o.stderr).lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or(0.0);
            println!(
                "audit: 10,000 steps, {:.1} MB journal, `adjutant audit` {} in {secs:.2} s, peak memory {:.1} MB ({:.1}x the file)",
                size as f64 / 1e6,
                if o.status.success() { "verified" } else { "FAILED" },
                peak_kb / 1024.0,
                peak_kb * 1024.0 / size as f64
            );
        }
        Err(_) => println!("audit: 10,000 steps: no /usr/bin/time to measure the peak memory"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What mailing maps costs: one pass over a backlog of `games` Mantua
/// games, each with one order mail and its deadline past (so the pass
/// resolves a step of each and mails its three results), run with `[mail]
/// maps = "png"` (the default) and with "none" on copies of one folder, in
/// turns, by `adjutant run --once` and by the daemon: steps/s and peak
/// memory of each.
fn maps(games: usize) {
    let dir = std::env::temp_dir().join(format!("adjutant-bench-maps-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let base = dir.join("base");
    // The backlog is made without maps: only the pass is measured.
    let mut cfg = Config::default();
    cfg.limits.replies_per_hour = u32::MAX;
    cfg.mail.maps = "none".into();
    let desk = Desk::open(&base, cfg).unwrap();
    let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let mut ent = entropy();
    for g in 0..games {
        let req = numbered_mantua("m", g, "24h");
        let id = desk.create(&req, t0, &mut ent).unwrap();
        let to = desk.reply_address(&id, "austria");
        let raw = format!("From: <a{g}@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <m{g}@example.org>\r\n\r\nSALT s{g}\r\n");
        desk.post(raw.as_bytes(), t0).unwrap();
    }
    desk.deliver().unwrap();
    drop(desk);
    let _ = std::fs::remove_dir_all(base.join("mail/outbox"));
    let outbox = |run: &std::path::Path| -> usize {
        std::fs::read_dir(run.join("mail/outbox"))
            .map(|d| d.flatten().map(|b| std::fs::read_dir(b.path().join("new")).map_or(0, |n| n.count())).sum())
            .unwrap_or(0)
    };
    for round in 0..2 {
        for maps in ["png", "none"] {
            let mut expected = 0;
            // `run --once` keeps no game warm (its process ends); the daemon
            // keeps up to `[limits] games_in_memory` (1,000 by default) for
            // its next passes, so its first pass over the backlog is
            // measured too: its peak memory is read from /proc while it
            // idles after that pass, then it is stopped.
            for daemon in [false, true] {
                let run = dir.join(format!("{maps}{round}{daemon}"));
                let copied = std::process::Command::new("cp").arg("-a").arg(&base).arg(&run).status();
                assert!(copied.is_ok_and(|s| s.success()), "cannot copy the backlog");
                let config = dir.join(format!("{maps}.toml"));
                let limits = "[limits]\nreplies_per_hour = 4294967295\n";
                std::fs::write(&config, format!("{limits}[mail]\nmaps = \"{maps}\"\n")).unwrap();
                let adjutant = |program: &str| {
                    let mut cmd = std::process::Command::new(program);
                    if program != env!("CARGO_BIN_EXE_adjutant") {
                        cmd.args(["-f", "%M", env!("CARGO_BIN_EXE_adjutant")]);
                    }
                    cmd.arg("--config").arg(&config).arg("--data").arg(&run).args(["-q", "run"]);
                    cmd
                };
                let start = Instant::now();
                let (secs, peak_mb, ok) = if daemon {
                    let spawned = adjutant(env!("CARGO_BIN_EXE_adjutant"))
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .spawn();
                    let Ok(mut child) = spawned else {
                        println!("maps: the daemon does not start");
                        return;
                    };
                    while outbox(&run) < expected && start.elapsed().as_secs() < 1800 {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                    let secs = start.elapsed().as_secs_f64();
                    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
                    let hwm_kb: f64 = status
                        .lines()
                        .find_map(|l| l.strip_prefix("VmHWM:"))
                        .and_then(|v| v.split_whitespace().next()?.parse().ok())
                        .unwrap_or(0.0);
                    // SAFETY: a signal to our own child, still unreaped.
                    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
                    let ok = child.wait().is_ok_and(|s| s.success()) && outbox(&run) == expected;
                    (secs, hwm_kb / 1024.0, ok)
                } else {
                    let Ok(o) = adjutant("/usr/bin/time").arg("--once").output() else {
                        println!("maps: no /usr/bin/time to measure the peak memory");
                        return;
                    };
                    let secs = start.elapsed().as_secs_f64();
                    let peak_kb: f64 = String::from_utf8_lossy(&o.stderr)
                        .lines()
                        .last()
                        .and_then(|l| l.trim().parse().ok())
                        .unwrap_or(0.0);
                    (secs, peak_kb / 1024.0, o.status.success())
                };
                let after = Desk::open(&run, Config::default()).unwrap();
                let steps: usize =
                    (0..games).map(|g| after.load(&format!("m{g}")).map_or(0, |l| l.game.step - 1) as usize).sum();
                let mails = outbox(&run);
                expected = mails;
                println!(
                    "maps = {maps:4}, {}: {games} order mails in one pass, {steps} steps resolved, {mails} mails sent, {secs:.1} s ({:.0} steps/s), peak memory {peak_mb:.0} MB{}",
                    if daemon { "daemon    " } else { "run --once" },
                    steps as f64 / secs,
                    if ok { "" } else { " (the pass FAILED)" }
                );
                let _ = std::fs::remove_dir_all(&run);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The time a command of the binary takes, and its peak memory in MB.
fn timed(args: &[std::ffi::OsString]) -> (f64, f64, bool) {
    let start = Instant::now();
    let o = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_adjutant"))
        .args(args)
        .output()
        .expect("/usr/bin/time runs the binary");
    let secs = start.elapsed().as_secs_f64();
    let peak_kb: f64 =
        String::from_utf8_lossy(&o.stderr).lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or(0.0);
    (secs, peak_kb / 1024.0, o.status.success())
}

/// Cold passes, as `run --once` from cron makes them (each a new
/// process): an idle pass over `games` games beside reading their
/// snapshots, and a pass with two order mails for each of 1,000 games
/// beside the same 2,000 mails to one game.
fn cold(games: usize) {
    let dir = std::env::temp_dir().join(format!("adjutant-bench-cold-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = Config::default();
    cfg.limits.replies_per_hour = u32::MAX;
    cfg.mail.maps = "none".into();
    let config = dir.join("adjutant.toml");
    let t0 = Utc::now();
    let mut ent = entropy();
    let make = |data: &std::path::Path, n: usize, ent: &mut dyn FnMut() -> [u8; 32]| {
        let desk = Desk::open(data, cfg.clone()).unwrap();
        for g in 0..n {
            let req = numbered_mantua("c", g, "720h");
            desk.create(&req, t0, ent).unwrap();
        }
        desk.deliver().unwrap();
        desk
    };
    let idle = dir.join("idle");
    drop(make(&idle, games, &mut ent));
    settle();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&config, "[limits]\nreplies_per_hour = 4294967295\n[mail]\nmaps = \"none\"\n").unwrap();
    let args = |data: &std::path::Path| -> Vec<std::ffi::OsString> {
        vec![
            "--config".into(),
            config.clone().into(),
            "--data".into(),
            data.into(),
            "-q".into(),
            "run".into(),
            "--once".into(),
        ]
    };
    let read_snapshots = || {
        let start = Instant::now();
        for e in std::fs::read_dir(idle.join("games")).unwrap().flatten() {
            let _ = std::fs::read(e.path().join("state.toml"));
        }
        start.elapsed().as_secs_f64()
    };
    for _ in 0..3 {
        let a = args(&idle);
        let (secs, peak, ok) = timed(&a);
        let read = read_snapshots();
        println!(
            "cold idle pass over {games} games: {secs:.2} s ({:.2} ms a game), peak {peak:.0} MB{}; reading their snapshots {read:.3} s; ratio {:.1}",
            secs * 1000.0 / games as f64,
            if ok { "" } else { " (FAILED)" },
            secs / read
        );
    }
    // Two order mails for each of 1,000 games, against the same 2,000 to
    // one game, each a cold pass on a copy of its folder.
    let many = dir.join("many");
    let one = dir.join("one");
    let post = |data: &std::path::Path, n: usize, per: usize| {
        let desk = Desk::open(data, cfg.clone()).unwrap();
        for g in 0..n {
            let to = desk.reply_address(&format!("c{g}"), "austria");
            for k in 0..per {
                let raw = format!("From: <a{g}@example.org>\r\nTo: <{to}>\r\nSubject: orders\r\nMessage-ID: <c{g}.{k}@example.org>\r\n\r\nSALT s{k}\r\n");
                desk.post(raw.as_bytes(), t0).unwrap();
            }
        }
    };
    drop(make(&many, 1000, &mut ent));
    drop(make(&one, 1, &mut ent));
    // The games' opening mails are dropped, but each player's outbox
    // stays, as it does in an installation once a game has begun (making
    // a thousand of them is not a cold pass's work).
    for base in [&many, &one] {
        for b in std::fs::read_dir(base.join("mail/outbox")).unwrap().flatten() {
            for m in std::fs::read_dir(b.path().join("new")).unwrap().flatten() {
                std::fs::remove_file(m.path()).unwrap();
            }
        }
    }
    post(&many, 1000, 2);
    post(&one, 1, 2000);
    // The file system's work swings from run to run on this VM's disk
    // (the same one-game pass takes 0.2-0.9 s): five rounds, and the
    // median of their ratios.
    let mut ratios = Vec::new();
    for round in 0..5 {
        let mut rates = Vec::new();
        for (name, base) in [("1,000 games", &many), ("one game", &one)] {
            let run = dir.join(format!("run{round}"));
            let _ = std::fs::remove_dir_all(&run);
            let copied = std::process::Command::new("cp").arg("-a").arg(base).arg(&run).status();
            assert!(copied.is_ok_and(|s| s.success()), "cannot copy");
            settle();
            let a = args(&run);
            let (secs, peak, ok) = timed(&a);
            rates.push(2000.0 / secs);
            println!(
                "cold run --once, 2,000 order mails to {name}: {secs:.2} s ({:.0} mails/s), peak {peak:.0} MB{}",
                2000.0 / secs,
                if ok { "" } else { " (FAILED)" }
            );
            let _ = std::fs::remove_dir_all(&run);
        }
        println!("cold run --once: 1,000 games / one game {:.2}", rates[0] / rates[1]);
        ratios.push(rates[0] / rates[1]);
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "cold run --once: 1,000 games / one game, median of {} rounds {:.2}",
        ratios.len(),
        ratios[ratios.len() / 2]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Write every dirty page to disk, so that a pass timed next starts as
/// cron finds an installation: its files on disk. A pass commits with a
/// file-system sync (syncfs), which would otherwise also write out what
/// the bench itself just made or copied, the more of it the more games.
fn settle() {
    let synced = std::process::Command::new("sync").status();
    assert!(synced.is_ok_and(|s| s.success()), "cannot sync");
}

/// A Mantua game "long", with a moderator, created and loaded: a long
/// quiet game once its steps are resolved by their deadlines.
fn long_game(desk: &Desk, t0: chrono::DateTime<Utc>, ent: &mut impl FnMut() -> [u8; 32]) -> adjutant::desk::Loaded {
    let req = NewGame {
        gm: Some("gm@example.org".into()),
        id: Some("long".into()),
        ..NewGame::new(
            "mantua",
            vec![("austria".into(), "a@example.org".into()), ("france".into(), "f@example.org".into())],
        )
    };
    desk.create(&req, t0, ent).unwrap();
    desk.load("long").unwrap()
}

/// A game of `steps` steps whose snapshot is lost (restored from a backup
/// of the journals alone, say): rebuilt from its journal by the first
/// command that loads it (`show`), against `audit` of the same journal
/// (which reads it entry by entry): time and peak memory of each.
fn rebuild(steps: usize) {
    let dir = std::env::temp_dir().join(format!("adjutant-bench-rebuild-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let desk = Desk::open(&dir, Config::default()).unwrap();
    let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let mut l = long_game(&desk, t0, &mut entropy());
    let mut batch = adjutant::desk::Batch::default();
    for k in 0..steps {
        desk.referee().resolve_step(&mut l, &mut batch, t0).unwrap();
        if k % 1000 == 999 || k + 1 == steps {
            batch.letters.clear();
            desk.commit(&mut l, std::mem::take(&mut batch), t0).unwrap();
        }
    }
    drop(l);
    drop(desk);
    let jp = dir.join("games/long/journal.toml");
    let size = std::fs::metadata(&jp).unwrap().len() as f64 / 1e6;
    for _ in 0..2 {
        let _ = std::fs::remove_file(dir.join("games/long/state.toml"));
        let args: Vec<std::ffi::OsString> =
            vec!["--data".into(), dir.clone().into(), "-q".into(), "show".into(), "long".into()];
        let (secs, peak, ok) = timed(&args);
        let audit: Vec<std::ffi::OsString> =
            vec!["--data".into(), dir.clone().into(), "-q".into(), "audit".into(), "long".into()];
        let (asecs, apeak, aok) = timed(&audit);
        println!(
            "rebuild: {steps} steps, {size:.1} MB journal, snapshot lost: `show` rebuilt it in {secs:.2} s, peak {peak:.0} MB{}; `audit` {asecs:.2} s, peak {apeak:.0} MB{}",
            if ok { "" } else { " (FAILED)" },
            if aok { "" } else { " (FAILED)" }
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
