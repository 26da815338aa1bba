//! The pinned journal format (docs/journal-v1.md): journals of finished
//! games written by adjutant are kept as fixtures that every later version
//! must audit and replay; changing how an entry is hashed breaks them.

use adjutant::journal::{self, Entry, Format};
use std::path::Path;

const FIXTURES: [(&str, &str, u32); 2] = [
    ("tests/fixtures/journals/mantua-v1.toml", "mantua", 26),
    ("tests/fixtures/journals/leaguer-v1.toml", "leaguer", 1),
];

fn fixture(path: &str) -> Vec<Entry> {
    journal::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn journals_of_finished_games_audit_and_replay() {
    for (path, ruleset, min_steps) in FIXTURES {
        let es = fixture(path);
        assert_eq!(Format::of(&es), Ok(Format::V1), "{path}");
        assert_eq!(es[0].body.get("format").and_then(|f| f.as_str()), Some(journal::FORMAT_V1));
        let (game, s) =
            adjutant::audit::replay(&es).unwrap_or_else(|m| panic!("{path}: entry {}: {}", m.seq, m.message));
        assert_eq!(s.ruleset, ruleset);
        assert!(s.ended && game.ended, "{path}: a finished game");
        assert!(s.steps >= min_steps, "{path}: {} steps", s.steps);
        assert!(s.draws > 0, "{path}: dice were rolled");
    }
}

#[test]
fn the_canonical_form_is_pinned() {
    for (path, ..) in FIXTURES {
        let es = fixture(path);
        // Another canonical form (the one of journals from before the
        // format was pinned) gives other hashes: the fixtures fail.
        for e in &es[..3] {
            assert_ne!(e.compute_hash(Format::Legacy), e.hash, "{path} entry {}", e.seq);
            assert_eq!(e.compute_hash(Format::V1), e.hash, "{path} entry {}", e.seq);
        }
        // The canonical text itself: sorted keys, no white space, escapes.
        let c = es[0].canonical(Format::V1);
        assert!(c.starts_with("{\"anchors\":{"), "{}", &c[..40]);
        assert!(c.contains(",\"format\":\"adjutant-journal-1\","));
        assert!(!c.contains(": ") && !c.contains('\n'));
    }
    let mut e = fixture(FIXTURES[0].0).remove(0);
    e.body.insert("note".into(), toml::Value::String("tab\there \"quoted\" back\\slash é \u{1}".into()));
    assert!(e.canonical(Format::V1).contains(r#""note":"tab\there \"quoted\" back\\slash é \u0001""#));
}

#[test]
fn a_journal_from_before_the_pinned_format_still_audits() {
    // Such a journal has no `format` and its entries are hashed over the
    // toml crate's printing.
    let mut es = fixture(FIXTURES[0].0);
    es[0].body.remove("format");
    let mut prev = journal::GENESIS.to_string();
    for e in es.iter_mut() {
        e.prev = prev.clone();
        e.hash = e.compute_hash(Format::Legacy);
        prev = e.hash.clone();
    }
    assert_eq!(Format::of(&es), Ok(Format::Legacy));
    let text: String = es.iter().map(|e| e.to_text()).collect();
    let back = journal::parse(&text).unwrap();
    adjutant::audit::replay(&back).unwrap_or_else(|m| panic!("entry {}: {}", m.seq, m.message));
}

#[test]
fn a_journal_in_an_unknown_format_is_refused_by_name() {
    let mut es = fixture(FIXTURES[1].0);
    es[0].body.insert("format".into(), toml::Value::String("adjutant-journal-9".into()));
    let m = adjutant::audit::replay(&es).err().expect("refused");
    assert!(m.message.contains("adjutant-journal-9"), "{}", m.message);
}

#[test]
fn the_fixtures_verify_with_the_independent_script() {
    if std::process::Command::new("python3").arg("--version").output().is_err() {
        return;
    }
    for (path, ..) in FIXTURES {
        let out = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/verify_dice.py"))
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("VERDICT: verified"), "{path}: {text}");
    }
}

#[test]
fn an_unknown_dice_mode_or_action_is_refused_when_read() {
    let mut es = fixture(FIXTURES[0].0);
    es[0].body.insert("dice".into(), toml::Value::String("loaded".into()));
    let mut prev = journal::GENESIS.to_string();
    for e in es.iter_mut() {
        e.prev = prev.clone();
        e.hash = e.compute_hash(Format::V1);
        prev = e.hash.clone();
    }
    let m = adjutant::audit::replay(&es).err().expect("refused");
    assert!(m.message.contains("loaded"), "{}", m.message);
    let mut es = fixture(FIXTURES[0].0);
    let d = es.iter_mut().find(|e| e.kind == "deadline").unwrap();
    d.body.insert("action".into(), toml::Value::String("explode".into()));
    let e = adjutant::desk::store::desk_state(&es).expect_err("refused");
    assert!(e.contains("explode"), "{e}");
}
