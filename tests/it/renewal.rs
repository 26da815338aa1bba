//! Chain renewal (docs/dice-v1.md, Commitment): a game outlives its dice chains. Before a
//! chain runs out, fresh anchors are committed in the journal and mailed to
//! every player; `audit`, `adjutant verify` (from each player's Maildir)
//! and `scripts/verify_dice.py` all follow the renewals.

use crate::support::*;
use std::process::Command;

/// A game with chains of `chain` steps played by deadlines until it ends (or
/// `max_steps`): every step resolves with the no-moves orders of whoever
/// stayed silent.
fn long_game(ruleset: &str, chain: u32, max_steps: u32) -> Table {
    let cfg = adjutant::config::Config {
        limits: adjutant::config::Limits { chain_length: chain, ..Default::default() },
        ..Default::default()
    };
    let mut t = Table::game("renewal", ruleset, Some("24h"), "committed", cfg);
    while t.step() <= max_steps && !t.desk.load(&t.game).unwrap().game.ended {
        t.now += chrono::Duration::hours(30);
        t.pass();
    }
    t
}

fn verify_maildir(t: &Table, who: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("verify").arg(t.desk.outbox_of(who)).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string())
}

fn python(args: &[&std::path::Path]) -> Option<(bool, String)> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/verify_dice.py");
    let out = Command::new("python3").arg(script).args(args).output().ok()?;
    Some((out.status.success(), String::from_utf8_lossy(&out.stdout).to_string()))
}

#[test]
fn a_game_outlives_its_dice_chains_and_every_verifier_follows_the_renewals() {
    const CHAIN: u32 = 50;
    let t = long_game("mantua", CHAIN, 200);
    let steps = t.step() - 1;
    assert!(steps >= 200, "the game went on for 200 steps ({steps})");
    let ended = t.desk.load(&t.game).unwrap().game.ended;
    let jp = t.dir.join("games").join(&t.game).join("journal.toml");
    let es = adjutant::journal::read(&jp).unwrap();
    let renewals: Vec<i64> =
        es.iter().filter(|e| e.kind == "renewed").map(|e| e.body["base"].as_integer().unwrap()).collect();
    // After the last step of each chain, unless the game ended with it.
    let expected: Vec<i64> =
        (1..).map(|i| i * CHAIN as i64).take_while(|b| *b < steps as i64 || (*b == steps as i64 && !ended)).collect();
    assert_eq!(renewals, expected, "a renewal after every {CHAIN} steps");
    assert_audits(&jp);
    // Every player (and the moderator) got each renewal's anchors, and
    // checks every die from their mail alone.
    for who in [ALICE, BOB, CAROL] {
        let got = t.mails(who).iter().filter(|m| m.0.contains("new dice anchors")).count();
        assert_eq!(got, renewals.len(), "{who}");
        let (code, out) = verify_maildir(&t, who);
        assert_eq!(code, 0, "{who}: {out}");
        assert!(out.contains("chains renewed after step(s) 50, 100, 150"), "{who}: {out}");
        if let Some((ok, out)) = python(&["--mail".as_ref(), &t.desk.outbox_of(who)]) {
            assert!(ok, "verify_dice.py --mail {who}: {out}");
        }
    }
    if let Some((ok, out)) = python(&[&jp]) {
        assert!(ok && out.contains("chains renewed after step(s) 50, 100, 150"), "verify_dice.py: {out}");
    }
    // The public export follows them too.
    let export = t.dir.join("public.toml");
    let public = adjutant::export::export_public(&es).unwrap();
    std::fs::write(&export, public.iter().map(|e| e.to_text()).collect::<String>()).unwrap();
    assert_audits(&export);
}

#[test]
fn a_forged_renewal_is_caught() {
    let t = long_game("mantua", 10, 22);
    let jp = t.dir.join("games").join(&t.game).join("journal.toml");
    // In the journal: a renewal whose anchor is not the chain the links
    // hash back to (re-hashed, so the chain itself holds).
    let mut es = adjutant::journal::read(&jp).unwrap();
    let r = es.iter_mut().find(|e| e.kind == "renewed").unwrap();
    r.body["anchors"].as_table_mut().unwrap().insert("public".into(), "ab".repeat(32).into());
    let format = adjutant::journal::Format::of(&es).unwrap();
    let mut prev = adjutant::journal::GENESIS.to_string();
    for e in es.iter_mut() {
        e.prev = prev.clone();
        e.hash = e.compute_hash(format);
        prev = e.hash.clone();
    }
    let m = adjutant::audit::replay(&es).err().expect("caught");
    assert!(m.message.contains("does not hash back"), "{}", m.message);
    // In a player's mail: a changed renewed anchor is named.
    let dir = t.dir.join("bob-decoded");
    let files = crate::verify::bobs_mails(&t, &dir);
    let f = files.iter().find(|p| std::fs::read_to_string(p).unwrap().contains("new dice anchors")).unwrap();
    let text = std::fs::read_to_string(f).unwrap();
    let line = text.lines().find(|l| l.starts_with("anchor public: ")).unwrap().to_string();
    std::fs::write(f, text.replace(&line, &format!("anchor public: {}", "cd".repeat(32)))).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("verify").arg(&dir).output().unwrap();
    let (code, out) = (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does not hash back to the anchor renewed after step"), "{out}");
}
