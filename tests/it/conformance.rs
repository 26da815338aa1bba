//! Conformance over every registered ruleset: random legal play never
//! panics, every open step awaits someone, every game ends, views never
//! leak, and the journal replays to every state digest.

use adjutant::audit;
use adjutant::dice::{self, Committed, Dice};
use adjutant::engine::{Game, Viewer};
use adjutant::journal::{kinds, Journal};
use adjutant::render;
use adjutant::rules::shared::names;
use adjutant::rules::shared::player::Pick;
use std::collections::BTreeMap;

/// splitmix64: a test's own generator for choosing among legal orders.
/// A letter with an accent a player might type in a name.
fn accented(c: char) -> char {
    match c {
        'a' => 'à',
        'e' => 'é',
        'i' => 'ì',
        'o' => 'ò',
        'u' => 'ü',
        'A' => 'À',
        'E' => 'É',
        'O' => 'Ó',
        c => c,
    }
}

const CHAIN: u32 = 1000;
const MAX_STEPS: u32 = 3000;

pub(crate) struct Played {
    pub steps: u32,
    pub ended: bool,
    /// The game's journal, left in `dir`.
    pub journal: std::path::PathBuf,
}

/// Play one game of `rules` at random on committed dice, checking at every
/// step what every game must keep; the journal stays in `dir`.
pub(crate) fn play(rules: &'static dyn adjutant::engine::Ruleset, seed: u64, dir: &std::path::Path) -> Played {
    play_scenario(rules, &rules.info().scenarios[0].name, seed, dir)
}

/// [`play`] in the scenario named.
pub(crate) fn play_scenario(
    rules: &'static dyn adjutant::engine::Ruleset,
    scenario: &str,
    seed: u64,
    dir: &std::path::Path,
) -> Played {
    let mut rng = Pick::new(seed);
    let scenario = scenario.to_string();
    let id = format!("conf-{seed}");
    let mut game = Game::new(&id, rules, &scenario).unwrap();
    let streams = dice::stream_names(&game.roles);
    let tops: BTreeMap<String, dice::Link> =
        streams.iter().map(|s| (s.clone(), dice::sha256(format!("{seed}/{s}").as_bytes()))).collect();
    let anchors = tops.iter().map(|(s, t)| (s.clone(), dice::to_hex(&dice::anchor(t, CHAIN)))).collect();
    let jp = dir.join(format!("{id}.toml"));
    let _ = std::fs::remove_file(&jp);
    let mut j = Journal::open(&jp).unwrap();
    let at = "2026-01-01T00:00:00+00:00";
    let created = kinds::Created {
        game: id.clone(),
        ruleset: rules.info().name.into(),
        scenario,
        roles: game.roles.clone(),
        players: BTreeMap::new(),
        gm: None,
        dice: adjutant::dice::Mode::Committed,
        chain_len: CHAIN,
        anchors,
        deadline: None,
        patch: None,
        replace: None,
        digest: game.digest(),
        tip_kept: false,
        approve: false,
    };
    j.append(at, &[("created", &created)]).unwrap();
    let mut ended = false;
    while game.step <= MAX_STEPS {
        let a = game.awaiting();
        if a.prompts.is_empty() {
            assert!(game.outcome().is_some(), "{id} step {}: a step that awaits nobody, and no outcome", game.step);
            ended = true;
            break;
        }
        for (role, prompt) in &a.prompts {
            // The prompt's syntax and the words the desk reads as orders
            // agree: every order a prompt shows starts with a verb of the
            // ruleset's vocabulary.
            let verbs = game.vocabulary(role).verbs;
            for line in &prompt.syntax {
                let verb = line.split_whitespace().next().unwrap_or("").to_uppercase();
                assert!(verbs.contains(&verb), "{id} step {}: {role}'s prompt shows {line:?}, whose verb {verb} is not in the vocabulary {verbs:?}", game.step);
            }
            // The worked example a prompt shows reads back as an accepted mail.
            if let Some(example) = a.examples.get(role) {
                let numbered: Vec<(usize, String)> =
                    example.iter().enumerate().map(|(i, l)| (i + 1, l.clone())).collect();
                if let Err(e) = game.check(role, &numbered) {
                    panic!("{id} step {}: {role}'s worked example {example:?} is refused: {e:?}", game.step);
                }
            }
            // The no-moves orders a silent role is given are always legal.
            let defaults = rules.default_orders(game.state(), role);
            let numbered: Vec<(usize, String)> = defaults.iter().enumerate().map(|(i, l)| (i + 1, l.clone())).collect();
            if let Err(e) = game.check(role, &numbered) {
                panic!("{id} step {}: the no-moves orders {defaults:?} of {role} are refused: {e:?}", game.step);
            }
            let lines = rules.random_orders(game.state(), role, &mut |n| rng.below(n));
            let numbered: Vec<(usize, String)> = lines.iter().enumerate().map(|(i, l)| (i + 1, l.clone())).collect();
            let canon = game
                .check(role, &numbered)
                .unwrap_or_else(|e| panic!("{id} step {}: random orders {lines:?} refused: {e:?}", game.step));
            // Keywords and names in any letter case, and names with
            // accents, read the same order (docs/mail.md).
            let vocab = game.vocabulary(role);
            let name_words: Vec<String> =
                vocab.names.iter().flat_map(|n| n.split_whitespace().map(|w| w.to_lowercase())).collect();
            let shuffled: Vec<(usize, String)> = numbered
                .iter()
                .map(|(n, l)| {
                    let words: Vec<String> = l
                        .split(' ')
                        .map(|w| {
                            let is_name = name_words.contains(&w.to_lowercase())
                                && !vocab.verbs.iter().any(|v| v.eq_ignore_ascii_case(w));
                            w.chars()
                                .map(|c| {
                                    let c = if is_name && rng.below(2) == 0 { accented(c) } else { c };
                                    if rng.below(2) == 0 {
                                        c.to_lowercase().collect::<String>()
                                    } else {
                                        c.to_uppercase().collect()
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    (*n, words.join(" "))
                })
                .collect();
            // (A name the player gives a newcomer keeps the letters given,
            // so the comparison ignores case and accents.)
            let fold = |c: &[String]| c.iter().map(|l| names::fold(l)).collect::<Vec<_>>();
            match game.check(role, &shuffled) {
                Ok(c) if fold(&c) == fold(&canon) => {}
                other => panic!("{id} step {}: {shuffled:?} read as {other:?}, not {canon:?}", game.step),
            }
            j.append(
                at,
                &[(
                    "accepted",
                    &kinds::Accepted { step: game.step, role: role.clone(), lines: canon.clone(), by: None },
                )],
            )
            .unwrap();
            game.accept(role, canon);
            if rng.below(3) == 0 {
                let salt = format!("salt-{}", rng.below(1000));
                j.append(at, &[("salt", &kinds::Salt { step: game.step, role: role.clone(), salt: salt.clone() })])
                    .unwrap();
                game.salts.insert(role.clone(), salt);
            }
        }
        let k = game.step;
        let salts = game.salts_for_seed();
        let links: BTreeMap<String, dice::Link> =
            tops.iter().map(|(s, t)| (s.clone(), dice::link_at(t, CHAIN, k))).collect();
        let seeds = links.iter().map(|(s, l)| (s.clone(), dice::seed(&id, k, s, l, &salts))).collect();
        let mut c = Committed::new(seeds);
        let r = game.resolve(&mut c).unwrap();
        assert!(c.unknown.is_empty());
        // Every draw says whom it served (a role of the game) or that it
        // served nobody: what the fairness report scores luck by.
        for d in c.draws() {
            assert!(d.good.is_some(), "{id} step {k}: the draw {:?} does not say whom it served", d.label);
            if let Some(r) = &d.serves {
                assert!(game.roles.contains(r), "{id} step {k}: the draw {:?} serves {r:?}, not a role", d.label);
            }
        }
        let body = kinds::Resolved {
            step: k,
            step_kind: r.kind,
            orders: r.orders,
            defaulted: r.defaulted,
            salts: r.salts,
            links: links.iter().map(|(s, l)| (s.clone(), dice::to_hex(l))).collect(),
            draws: c.into_draws(),
            events: r.events,
            digest: game.digest(),
        };
        j.append(at, &[("resolved", &body)]).unwrap();
        for role in game.roles.clone() {
            let viewer = Viewer::Role(role.clone());
            let v = game.view(&viewer);
            let mut text = render::ascii::render(&v) + &render::svg::render(&v);
            let probes = game.leak_probes(&role);
            if probes.events {
                // What a role is told must keep the other side's secrets
                // too, where a ruleset's events speak of them.
                for e in body.events.iter().filter(|e| e.to.admits(&viewer)) {
                    text.push_str(&e.text);
                    text.push('\n');
                }
            }
            if game.outcome().is_none() {
                if let Err(e) = game.leak_check(&role, &v) {
                    panic!("{id} step {k}: {e}");
                }
                for s in &probes.hidden {
                    assert!(!text.contains(s.as_str()), "{id} step {k}: the view of {role} shows {s:?}");
                }
            }
        }
    }
    let entries = adjutant::journal::read(&jp).unwrap();
    let (replayed, summary) = audit::replay(&entries).unwrap_or_else(|m| panic!("{id}: replay failed: {m}"));
    assert_eq!(replayed.digest(), game.digest(), "{id}: replay reached another state");
    assert_eq!(summary.steps, game.step - 1);
    Played { steps: game.step - 1, ended, journal: jp }
}

#[test]
fn random_play_of_every_ruleset() {
    let dir = crate::support::temp_dir("conformance");
    for rules in adjutant::rules::ALL {
        let mut ended = 0;
        let mut steps = 0;
        // Ten games a ruleset in the test suite; CONFORMANCE_GAMES=1000 for
        // a long soak (documented in the README).
        // The games go round the ruleset's scenarios and each of their
        // variants, so each is played at least once.
        let scenarios: Vec<String> = rules
            .info()
            .scenarios
            .iter()
            .flat_map(|s| std::iter::once(s.name.clone()).chain(s.variants.iter().map(|v| format!("{}+{v}", s.name))))
            .collect();
        let games: u64 = std::env::var("CONFORMANCE_GAMES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10)
            .max(scenarios.len() as u64);
        for seed in 0..games {
            let p = play_scenario(*rules, &scenarios[seed as usize % scenarios.len()], seed, &dir);
            steps += p.steps;
            ended += usize::from(p.ended);
        }
        assert_eq!(
            ended,
            games as usize,
            "{}: every game ends (or reaches a step only the moderator can close)",
            rules.info().name
        );
        assert!(steps > games as u32 * 3, "games were played for real: {steps} steps");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Garbage order lines, built from each ruleset's own words and hostile
/// text, never panic a ruleset: every one is accepted or refused with a
/// line, a reason and (where one helps) a suggestion.
#[test]
fn garbage_orders_are_refused_never_panic() {
    let hostile = [
        "",
        " ",
        "ſ NEAR ı",
        "NEAR",
        "NEAR NEAR",
        "-2147483648",
        "+2147483647",
        "999999999999999999999",
        "-",
        "+",
        ",",
        ",,,",
        ":",
        "TO",
        "AT",
        "WITH",
        "ALL",
        "NONE",
        "é",
        "🏰",
        "\u{202e}",
        "a\u{0}b",
        "Ma",
        "garrison",
        "besiegers",
        "DISEASE",
        "SECURITY OFFICER",
        "INFO",
        "KILL",
        "SABOTAGE",
        "LEFT",
        "RIGHT",
    ];
    let mut rng = Pick::new(42);
    for rules in adjutant::rules::ALL {
        let scenario = rules.info().scenarios[0].name.clone();
        let game = Game::new("garbage", *rules, &scenario).unwrap();
        let mut roles = game.roles.clone();
        roles.push("gm".into());
        // Words the ruleset itself uses: its syntax lines and its view.
        let mut vocab: Vec<String> = hostile.iter().map(|s| s.to_string()).collect();
        for p in game.awaiting().prompts.values() {
            for l in &p.syntax {
                vocab.extend(l.split_whitespace().map(String::from));
            }
        }
        let view = render::ascii::render(&game.view(&Viewer::Moderator));
        vocab.extend(view.split_whitespace().take(400).map(String::from));
        for _ in 0..3000 {
            let n = rng.below(6);
            let line: Vec<&str> = (0..n).map(|_| vocab[rng.below(vocab.len())].as_str()).collect();
            let line = line.join(if rng.below(3) == 0 { ", " } else { " " });
            for role in &roles {
                if let Err(errors) = rules.check(game.state(), role, &[(1, line.clone())]) {
                    assert!(errors.iter().all(|e| !e.reason.is_empty()), "{line:?}: {errors:?}");
                }
            }
        }
    }
}

/// Each ruleset's demo script (what `adjutant demo` sends) reaches its end
/// within a bounded number of passes whatever the dice (a whole Ducs game
/// of fifteen turns takes about fifty): the README's first command must
/// never hang. Played here on the engine alone, so that many seeds are
/// cheap; the moderator's desk commands (Mantua's END) end the script.
#[test]
fn every_demo_script_ends_whatever_the_dice() {
    let mut scripted = 0;
    for rules in adjutant::rules::ALL.iter().copied() {
        // Every scenario with a scripted demo of its own.
        let mut scripted_here = 0;
        for scenario in rules.info().scenarios.iter().map(|s| s.name.clone()) {
            if Game::new("demo", rules, &scenario).unwrap().demo(0).is_none() {
                continue;
            }
            scripted += 1;
            // 300 dice draws for a ruleset's first demo, 100 for another.
            let seeds = if scripted_here == 0 { 300u64 } else { 100 };
            scripted_here += 1;
            for seed in 0..seeds {
                play_demo(rules, &scenario, seed);
            }
        }
    }
    assert!(scripted >= adjutant::rules::ALL.len(), "every ruleset has a scripted demo ({scripted} scenarios)");
}

/// One demo game on the engine alone, its dice seeded by `seed`: the
/// script's mails pass by pass until it ends. The events told, in order.
pub(crate) fn play_demo(rules: &'static dyn adjutant::engine::Ruleset, scenario: &str, seed: u64) -> Vec<String> {
    play_demo_seeing(rules, scenario, seed, &mut |_| {})
}

/// `play_demo`, shown the game after each step resolves.
pub(crate) fn play_demo_seeing(
    rules: &'static dyn adjutant::engine::Ruleset,
    scenario: &str,
    seed: u64,
    see: &mut dyn FnMut(&Game),
) -> Vec<String> {
    let id = format!("demo-{seed}");
    let mut game = Game::new(&id, rules, scenario).unwrap();
    let mut events = Vec::new();
    let mut pass = 0;
    while game.outcome().is_none() {
        let Some(mails) = game.demo(pass) else { break };
        assert!(pass < 170, "{id}: the {} demo is still going at pass {pass}", rules.info().name);
        let mut at_the_desk = false;
        for m in &mails {
            if !game.roles.contains(&m.role) {
                at_the_desk = true;
                continue;
            }
            // Salts and press are the desk's, not the ruleset's.
            let lines: Vec<(usize, String)> = m
                .text
                .lines()
                .enumerate()
                .filter(|(_, l)| {
                    let w = l.split_whitespace().next().unwrap_or("#").to_uppercase();
                    !(w.starts_with('#') || w == "SALT" || w == "PRESS")
                })
                .map(|(i, l)| (i + 1, l.to_string()))
                .collect();
            if lines.is_empty() {
                continue;
            }
            match game.check(&m.role, &lines) {
                Ok(c) if !m.refused => game.accept(&m.role, c),
                Err(_) if m.refused => {}
                other => panic!("{id} pass {pass}: {} sent {:?}, read as {other:?}", m.role, m.text),
            }
        }
        if at_the_desk {
            break;
        }
        if game.complete() {
            let r = resolve_seeded(&mut game, &seed.to_string());
            events.extend(r.events.into_iter().map(|e| e.text));
            see(&game);
        }
        pass += 1;
    }
    events
}

/// Resolve the open step with committed dice whose links are derived from
/// `key`, the step and the stream: a random game that replays the same.
pub(crate) fn resolve_seeded(game: &mut Game, key: &str) -> adjutant::engine::Resolution {
    let k = game.step;
    let salts = game.salts_for_seed();
    let seeds = dice::stream_names(&game.roles)
        .iter()
        .map(|s| {
            let link = dice::sha256(format!("{key}/{s}/{k}").as_bytes());
            (s.clone(), dice::seed(&game.id, k, s, &link, &salts))
        })
        .collect();
    game.resolve(&mut Committed::new(seeds)).unwrap()
}
