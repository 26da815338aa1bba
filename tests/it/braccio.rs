//! Braccio da Montone: random play of Sant'Egidio on the engine (games
//! end, replay and keep each side's policies and plans secret), counting
//! mails per player per activation.

use crate::conformance::play_scenario;

#[test]
fn random_games_of_sant_egidio_end_replay_and_keep_secrets() {
    let dir = crate::support::temp_dir("braccio-random");
    let rules = adjutant::rules::find("braccio").unwrap();
    let games: u64 = std::env::var("BRACCIO_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(4);
    for seed in 0..games {
        let scenario = if seed % 2 == 0 { "sant-egidio" } else { "sant-egidio+short" };
        let p = play_scenario(rules, scenario, 100 + seed, &dir);
        assert!(p.ended, "{scenario} seed {seed}: the game ends ({} steps)", p.steps);
        if std::env::var("BRACCIO_SHOW").is_ok() {
            let text = std::fs::read_to_string(&p.journal).unwrap();
            let last: Vec<&str> = text.lines().filter(|l| l.contains("text =")).collect();
            eprintln!("{scenario} seed {seed}: {} steps; {:?}", p.steps, &last[last.len().saturating_sub(6)..]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
