//! Fairness by side: fair random games raise few alarms (the rate is
//! measured over many seeds and printed), a journal forged so that one
//! side's dice run high is flagged, and the report draws its per-side
//! curves, axes and band in headless Chromium.

use crate::conformance::play;
use adjutant::dice::Stream;
use adjutant::journal::{self, Entry};
use adjutant::report::{self, Fairness};
use std::process::Command;

fn ruleset(name: &str) -> &'static dyn adjutant::engine::Ruleset {
    adjutant::rules::find(name).unwrap()
}

/// Fair games of every ruleset: the share in which any side is flagged.
/// FAIRNESS_GAMES sets how many a ruleset (40 by default; the README's
/// figure is from 500).
#[test]
fn fair_dice_raise_few_alarms() {
    let dir = crate::support::temp_dir("fair");
    let per: u64 = std::env::var("FAIRNESS_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let (mut games, mut alarms, mut tested, mut low) = (0, 0, 0, 0);
    for rules in adjutant::rules::ALL {
        for seed in 0..per {
            let played = play(*rules, 5000 + seed, &dir);
            let g = report::gather(&journal::read(&played.journal).unwrap());
            let f = Fairness::of(&[g]);
            games += 1;
            tested += f.sides.len();
            low += f.sides.iter().filter(|t| t.p < 0.05).count();
            alarms += usize::from(f.sides.iter().any(|t| t.flagged()));
            assert_eq!(f.attributed, f.dice, "every die of a new journal names whom it served");
            let _ = std::fs::remove_file(&played.journal);
        }
    }
    let rate = alarms as f64 / games as f64;
    println!(
        "fair dice: {alarms} of {games} games flagged a side ({:.1}%); {low} of {tested} sides had p < 0.05 before adjustment ({:.1}%)",
        100.0 * rate,
        100.0 * low as f64 / tested.max(1) as f64
    );
    assert!(tested >= games, "every game scores its sides");
    assert!(rate <= 0.10, "a false alarm rate of {rate} is far above the 5% the adjustment allows");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every journaled draw, as a table a forger may edit.
fn draws_mut(entries: &mut [Entry]) -> impl Iterator<Item = &mut toml::Table> {
    entries
        .iter_mut()
        .filter(|e| e.kind == "resolved")
        .flat_map(|e| e.body.get_mut("draws").and_then(|d| d.as_array_mut()).into_iter().flatten())
        .filter_map(|d| d.as_table_mut())
}

/// A forger who re-draws one side's dice (the better of two); the caller
/// then recomputes the chain so that the journal still links up.
fn forge(entries: &mut [Entry], side: &str) {
    let mut other = Stream::new([7; 32]);
    for d in draws_mut(entries) {
        let serves = d.get("serves").and_then(|v| v.as_str()) == Some(side);
        let good = d.get("good").and_then(|v| v.as_str()).map(str::to_string);
        let (Some(sides), Some(f)) = (
            d.get("sides").and_then(|v| v.as_integer()),
            d.get("result").and_then(|r| r.get(0)).and_then(|v| v.as_integer()),
        ) else {
            continue;
        };
        if !serves || d.get("kind").and_then(|v| v.as_str()) != Some("die") {
            continue;
        }
        let g = other.die(sides as u32) as i64;
        let better = match good.as_deref() {
            Some("high") => f.max(g),
            Some("low") => f.min(g),
            _ => f,
        };
        d.insert("result".into(), toml::Value::Array(vec![toml::Value::Integer(better)]));
    }
}

#[test]
fn a_side_whose_dice_were_forged_high_is_flagged() {
    let dir = crate::support::temp_dir("forged-luck");
    // A Leaguer siege: both sides roll often (fires, rallies, spies).
    let played = play(ruleset("leaguer"), 11, &dir);
    let mut es = journal::read(&played.journal).unwrap();
    let honest = Fairness::of(&[report::gather(&es)]);
    assert!(honest.sides.iter().all(|t| !t.flagged()), "the honest game flags nobody");
    forge(&mut es, "garrison");
    let forged = dir.join("forged.toml");
    std::fs::write(&forged, crate::audit::rechain(&mut es)).unwrap();
    let f = Fairness::of(&[report::gather(&journal::read(&forged).unwrap())]);
    let garrison = f.sides.iter().find(|t| t.name == "garrison (leaguer)").expect("the garrison is scored");
    assert!(garrison.luck.rolls() >= 20, "enough dice to judge: {}", garrison.luck.rolls());
    assert!(garrison.p < 0.01 && garrison.flagged(), "p = {}", garrison.p);
    assert!(f.sides.iter().filter(|t| t.name != garrison.name).all(|t| !t.flagged()), "only the garrison");
    // The same figures as JSON, from the command line.
    let json = dir.join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("audit")
        .arg(&forged)
        .arg("--report")
        .arg(&json)
        .arg("--json")
        .output()
        .unwrap();
    assert!(json.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(text.contains("\"name\":\"garrison (leaguer)\"") && text.contains("\"flagged\":true"), "{text}");
    // The page: a table row and a curve per side, the note on many tests,
    // and, in a real browser, the curves, the band and the axes drawn.
    let html = dir.join("report.html");
    let ok = Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .arg("audit")
        .arg(&forged)
        .arg("--report")
        .arg(&html)
        .status()
        .unwrap();
    // The audit that follows the report catches the forger too: the dice
    // are not those the seeds give.
    assert_eq!(ok.code(), Some(1));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<strong>flagged</strong>") && page.contains("Reading these p-values"), "{page}");
    assert_eq!(page.matches("class=\"curve\"").count(), f.sides.len(), "a curve per side");
    assert!(page.contains("class=\"x-label\"") && page.contains("luck (pips above average)"));
    if crate::support::have_chromium() {
        let shot = dir.join("report.png");
        crate::support::chromium_screenshot(&html, &shot);
        for (what, colour) in [
            ("the first side's curve", &report::CURVES[0][1..]),
            ("the second side's curve", &report::CURVES[1][1..]),
            ("the band chance allows", "e4efe4"),
            ("the axes and their labels", "333333"),
        ] {
            let n = crate::support::ink(&shot, colour);
            assert!(n > 200, "{what} is drawn ({n} pixels of #{colour})");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_journal_from_before_attribution_still_reports() {
    let dir = crate::support::temp_dir("old-luck");
    let played = play(ruleset("mantua"), 3, &dir);
    let mut es = journal::read(&played.journal).unwrap();
    for d in draws_mut(&mut es) {
        d.remove("serves");
        d.remove("good");
    }
    crate::audit::rechain(&mut es);
    adjutant::audit::replay(&es).expect("an older journal still replays");
    let f = Fairness::of(&[report::gather(&es)]);
    assert_eq!((f.attributed, f.sides.len()), (0, 0), "nothing is scored, nothing is guessed");
    assert!(report::render(&[report::gather(&es)]).contains("0 of"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_draw_that_claims_another_side_is_caught_by_audit() {
    let dir = crate::support::temp_dir("claimed-luck");
    let played = play(ruleset("leaguer"), 11, &dir);
    let mut es = journal::read(&played.journal).unwrap();
    let d = draws_mut(&mut es)
        .find(|d| d.get("serves").and_then(|v| v.as_str()) == Some("garrison"))
        .expect("a draw for the garrison");
    d.insert("serves".into(), toml::Value::String("besiegers".into()));
    crate::audit::rechain(&mut es);
    let err = adjutant::audit::replay(&es).err().expect("the claim is refused");
    assert!(err.to_string().contains("says it served"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
