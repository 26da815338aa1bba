//! What players really get verifies: every recipient's mailbox of every
//! game's demo, one folder (and one mbox) holding all of them with other
//! mail, and the mailboxes of games played at random by mail, checked by
//! `adjutant verify` and by the independent `scripts/verify_dice.py`,
//! which must agree game by game. A published journal that stops short of
//! the last tip a player holds fails against every player's mail.

use crate::support::*;
use adjutant::rules::shared::player::Pick;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `adjutant verify ARGS`: (exit code, what it printed).
pub(crate) fn verify(args: &[&Path]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("verify").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

/// `verify_dice.py --mail ARGS`: (exit code, what it printed).
fn python(args: &[&Path]) -> (i32, String) {
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/verify_dice.py"))
        .arg("--mail")
        .args(args)
        .output()
        .expect("python3 runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

/// Each game's verdict as a report prints it: `game <id>: VERIFIED…`.
fn verdicts(out: &str) -> BTreeMap<String, String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("game "))
        .filter_map(|l| {
            let (g, rest) = l.split_once(": ")?;
            let v = ["NOT VERIFIED", "NOT CHECKED", "VERIFIED"].into_iter().find(|v| rest.starts_with(v))?;
            Some((g.to_string(), v.to_string()))
        })
        .collect()
}

/// Both verifiers on `args` (with `--journal` files, if any, among them):
/// the same exit code and the same verdict for every game.
pub(crate) fn both(args: &[&Path]) -> (i32, BTreeMap<String, String>, String) {
    let (code, out) = verify(args);
    let (pcode, pout) = python(args);
    let (a, b) = (verdicts(&out), verdicts(&pout));
    assert!(!a.is_empty() || code == 3, "no verdict in\n{out}");
    assert_eq!(
        (code, &a),
        (pcode, &b),
        "the verifiers disagree on {args:?}:\n--- adjutant\n{out}\n--- verify_dice.py\n{pout}"
    );
    (code, a, out)
}

/// Every mail file under `dir`'s recipients' outboxes.
fn mail_files(outboxes: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(outboxes)
        .unwrap()
        .flatten()
        .flat_map(|r| std::fs::read_dir(r.path().join("new")).unwrap().flatten().map(|e| e.path()))
        .collect();
    v.sort();
    v
}

/// One mbox of `files`, as Thunderbird or mutt keeps a folder: a `From `
/// line before each message, `From ` at the start of a body line escaped.
fn mbox(files: &[PathBuf], extra: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut add = |raw: &[u8]| {
        out.extend_from_slice(b"From adjutant@example.org Fri Dec  4 17:41:25 2026\n");
        for line in raw.split_inclusive(|&b| b == b'\n') {
            if line.iter().skip_while(|&&b| b == b'>').take(5).eq(b"From ".iter()) {
                out.push(b'>');
            }
            out.extend_from_slice(line);
        }
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.push(b'\n');
    };
    for f in files {
        add(&std::fs::read(f).unwrap());
    }
    for e in extra {
        add(e);
    }
    out
}

#[test]
fn every_demo_mailbox_verifies_alone_and_all_together_and_a_cut_journal_fails() {
    let root = temp_dir("witness-demos");
    let all = root.join("all");
    std::fs::create_dir_all(all.join("cur")).unwrap();
    let mut exports = Vec::new();
    let mut games = Vec::new();
    for rules in adjutant::rules::ALL {
        let name = rules.info().name;
        let data = root.join(name);
        let out = output_within(
            Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("--data").arg(&data).args(["demo", name]),
            300,
        );
        assert!(out.status.success(), "demo {name}: {}", String::from_utf8_lossy(&out.stderr));
        let game = std::fs::read_dir(data.join("games")).unwrap().next().unwrap().unwrap().file_name();
        let game = game.to_string_lossy().to_string();
        let outboxes = data.join("mail/outbox");
        // Every recipient's own mailbox, as the demo left it.
        for r in std::fs::read_dir(&outboxes).unwrap().flatten() {
            let (code, v, out) = both(&[&r.path()]);
            assert_eq!(code, 0, "{name} {:?}:\n{out}", r.file_name());
            assert_eq!(v.get(&game).map(String::as_str), Some("VERIFIED"), "{out}");
            assert!(out.contains("the history up to journal entry"), "{out}");
        }
        // The size budget, as the default config sends the maps: no mail
        // over 256 KB, the median mail with a map under 128 KB.
        let mut with_map = Vec::new();
        for f in mail_files(&outboxes) {
            let bytes = std::fs::read(&f).unwrap();
            assert!(bytes.len() <= 256 * 1024, "{name}: {} is {} bytes", f.display(), bytes.len());
            if bytes.windows(20).any(|w| w == b"Content-Type: image/") {
                with_map.push(bytes.len());
            }
            std::fs::copy(&f, all.join("cur").join(f.file_name().unwrap())).unwrap();
        }
        with_map.sort();
        if let Some(median) = with_map.get(with_map.len() / 2) {
            assert!(*median < 128 * 1024, "{name}: the median mail with a map is {median} bytes");
        }
        // The journal the moderator may publish holds every tip; without
        // its last entry it fails against each player's mail.
        let export = root.join(format!("{name}-public.toml"));
        let o = Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .arg("--data")
            .arg(&data)
            .args(["audit", &game, "--export-public"])
            .arg(&export)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
        let text = std::fs::read_to_string(&export).unwrap();
        let cut = root.join(format!("{name}-public-cut.toml"));
        std::fs::write(&cut, &text[..text.rfind("[[entry]]").unwrap()]).unwrap();
        for r in std::fs::read_dir(&outboxes).unwrap().flatten() {
            let (code, _, out) = both(&[&r.path(), Path::new("--journal"), &export]);
            assert_eq!(code, 0, "{name} {:?} against the export:\n{out}", r.file_name());
            let (code, _, out) = both(&[&r.path(), Path::new("--journal"), &cut]);
            assert_eq!(code, 1, "{name} {:?} against the cut export:\n{out}", r.file_name());
            assert!(out.contains("entries were removed from its end"), "{out}");
        }
        // So does the game's own journal without its last witnessed entry
        // (the letters' own `mail` entries after it are no player's).
        let jp = data.join("games").join(&game).join("journal.toml");
        let es = adjutant::journal::read(&jp).unwrap();
        let last = es.iter().rposition(|e| e.kind != "mail").unwrap();
        let short = root.join(format!("{name}-journal-cut.toml"));
        std::fs::write(&short, es[..last].iter().map(|e| e.to_text()).collect::<String>()).unwrap();
        let (code, _, out) = both(&[&outboxes.join("alice_example.org"), Path::new("--journal"), &short]);
        assert_eq!(code, 1, "{out}");
        exports.push(export);
        games.push(game);
    }
    // One folder with all five games and three recipients each.
    let (code, v, out) = both(&[&all]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        v.keys().cloned().collect::<Vec<_>>(),
        {
            games.sort();
            games.clone()
        },
        "{out}"
    );
    assert!(v.values().all(|x| x == "VERIFIED"), "{out}");
    let mut args: Vec<&Path> = vec![&all];
    for e in &exports {
        args.push(Path::new("--journal"));
        args.push(e);
    }
    let (code, _, out) = both(&args);
    assert_eq!(code, 0, "{out}");
    // The same as one mbox, with another sender's mail, a mail of ours cut
    // short in transit, and an HTML-only forward of one of ours: the other
    // mail is counted, the broken ones named as skipped, nothing fails.
    let files = mail_files(&all.parent().unwrap().join(adjutant::rules::ALL[0].info().name).join("mail/outbox"));
    let ours = std::fs::read_to_string(
        files.iter().find(|f| std::fs::read_to_string(f).unwrap().contains("BEGIN ADJUTANT DICE")).unwrap(),
    )
    .unwrap();
    let truncated = &ours[..ours.find("-----END ADJUTANT DICE").unwrap()];
    let text = mail_parser::MessageParser::default().parse(ours.as_bytes()).unwrap().body_text(0).unwrap().to_string();
    let forward = format!(
        "From: <alice@example.org>\nTo: <friend@example.org>\nSubject: Fwd: my dice\nContent-Type: text/html\n\n<html><body><pre>{text}</pre></body></html>\n"
    );
    let other = b"From: <news@example.org>\nTo: <alice@example.org>\nSubject: weekly news\n\nFrom the editor: nothing about dice.\n";
    let mut everything: Vec<PathBuf> =
        std::fs::read_dir(all.join("cur")).unwrap().flatten().map(|e| e.path()).collect();
    everything.sort();
    let mb = root.join("Inbox");
    std::fs::write(&mb, mbox(&everything, &[truncated.as_bytes(), forward.as_bytes(), other])).unwrap();
    let (code, v, out) = both(&[&mb]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(v.len(), games.len(), "{out}");
    assert!(out.contains("1 mail(s) not from an adjutant game"), "{out}");
    assert_eq!(out.matches("skipped ").count(), 2, "the cut mail and the forward are named:\n{out}");
    // A folder with no mail of ours says so, with its own exit code.
    let none = root.join("none");
    std::fs::create_dir_all(none.join("cur")).unwrap();
    std::fs::write(none.join("cur/1.eml"), other).unwrap();
    let (code, _, out) = both(&[&none]);
    assert_eq!(code, 3, "{out}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Play a game of `ruleset` by mail with random legal orders (salts,
/// press, a refused line now and then, silent players left to the
/// deadline), at most `passes` passes.
fn play_by_mail(ruleset: &str, seed: u64, passes: usize) -> Table {
    let mut t =
        Table::game(&format!("witness-{ruleset}-{seed}"), ruleset, Some("72h"), "committed", Default::default());
    let mut rng = Pick::new(seed);
    let l = t.desk.load(&t.game).unwrap();
    let addr: BTreeMap<String, String> = t.desk.recipients(&l).into_iter().collect();
    for _ in 0..passes {
        let l = t.desk.load(&t.game).unwrap();
        if l.game.ended {
            break;
        }
        let a = l.game.awaiting();
        for role in a.prompts.keys() {
            let Some(from) = addr.get(role) else { continue };
            if rng.below(8) == 0 {
                continue; // silent: the deadline decides for them
            }
            let mut lines = l.game.rules.random_orders(l.game.state(), role, &mut |n| rng.below(n));
            if rng.below(3) == 0 && role != "gm" {
                lines.push(format!("SALT s{}", rng.below(10_000)));
            }
            if rng.below(6) == 0 {
                lines.push("PRESS ALL well met".into());
            }
            if rng.below(10) == 0 {
                lines.push("MOVE Nobody TO Nowhere".into()); // refused whole
            }
            t.send(role, from, &lines.join("\n"));
        }
        let before = l.game.step;
        t.pass();
        if t.step() == before {
            t.now += chrono::Duration::days(4);
            t.pass();
        }
    }
    t
}

#[test]
fn the_mailboxes_of_random_games_verify_for_both_verifiers() {
    // More seeds and longer games under WITNESS_GAMES (scripts/bench.sh).
    let seeds: u64 = std::env::var("WITNESS_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(2);
    let passes = if seeds > 2 { 200 } else { 30 };
    for rules in adjutant::rules::ALL {
        let name = rules.info().name;
        for seed in 1..=seeds {
            let t = play_by_mail(name, seed * 7919, passes);
            let root = t.desk.outbox_root();
            let (code, v, out) = both(&[&root]);
            assert_eq!(code, 0, "{name} seed {seed}:\n{out}");
            assert_eq!(v.get(&t.game).map(String::as_str), Some("VERIFIED"), "{out}");
            for who in [ALICE, BOB, CAROL] {
                let md = t.desk.outbox_of(who);
                if md.exists() {
                    let (code, _, out) = both(&[&md]);
                    assert_eq!(code, 0, "{name} seed {seed} {who}:\n{out}");
                }
            }
            // The last witnessed entry of the journal is the last tip the
            // players hold: every entry that changed what anyone saw.
            let jp = t.dir.join("games").join(&t.game).join("journal.toml");
            let es = adjutant::journal::read(&jp).unwrap();
            let last = es.iter().rev().find(|e| e.kind != "mail").unwrap().seq;
            assert!(
                out.contains(&format!("the history up to journal entry {last}")),
                "{name} seed {seed}: {last}\n{out}"
            );
        }
    }
}
