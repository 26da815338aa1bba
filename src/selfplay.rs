//! `adjutant selfplay`: the computer player against random legal play (or
//! against itself) through the real engine on committed dice, with no
//! mail, and the baseline its rate is read against: random play on the
//! same sides. What the bench measures the player by, and what its test
//! checks:
//! every submission it makes is accepted as a player's mail would be, and
//! names nothing the ruleset's leak probes say its side may not know.

use crate::dice::{self, Committed};
use crate::engine::{Effort, Game, Ruleset};
use crate::rules::shared::player::Pick;
use std::collections::BTreeMap;

/// Who plays a side: random legal play (the conformance test's player)
/// or adjutant's computer player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Player {
    Random,
    Adjutant,
}

/// How one game ended for the side measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    Won,
    Lost,
    Drawn,
}

/// One game played.
#[derive(Debug, Clone)]
pub struct Played {
    /// The role measured (adjutant's, but in a baseline).
    pub role: String,
    pub result: Result,
    pub steps: u32,
    /// Submissions adjutant thought out (steps it was awaited).
    pub decisions: u32,
    /// The time those took, thinking alone (not the random side's orders
    /// nor the steps' resolution): what a player waits on.
    pub thinking: std::time::Duration,
    /// The longest of those decisions: the bound on effort is a bound on
    /// each decision, not on their mean.
    pub longest: std::time::Duration,
    pub reason: String,
    /// Whether the last step was decided by the side measured (the game
    /// ended on its orders) or by another.
    pub ended_on_mine: bool,
}

/// Games past this many steps are drawn (every ruleset ends well before).
const MAX_STEPS: u32 = 3000;

/// Play game number `n` of `scenario`, the side measured on its `n`-th
/// role (sides alternate from game to game) played by `mine`, the others
/// by `against`, the dice committed from `seed` and `n`. With random play
/// on the side measured, the baseline: what random play wins on the same
/// sides, dice and scenario. `Err` if adjutant ever made a submission the
/// game refuses: a bug.
pub fn play(
    rules: &'static dyn Ruleset,
    scenario: &str,
    seed: u64,
    n: usize,
    mine: Player,
    against: Player,
    effort: Effort,
) -> std::result::Result<Played, String> {
    let id = format!("selfplay-{seed}-{n}");
    let mut game = Game::new(&id, rules, scenario)?;
    let role = game.roles[n % game.roles.len()].clone();
    let mut pick = Pick::new(seed ^ (n as u64).wrapping_mul(0x9e37_79b9));
    // The side measured, when random, draws from a stream of its own: the
    // others' random orders stay those they play against adjutant, as far
    // as the play allows.
    let mut own = Pick::new(!(seed ^ (n as u64).wrapping_mul(0x9e37_79b9)));
    let streams = dice::stream_names(&game.roles);
    let mut decisions = 0;
    let mut thinking = std::time::Duration::ZERO;
    let mut longest = std::time::Duration::ZERO;
    let mut last_mine = false;
    while game.step <= MAX_STEPS && game.outcome().is_none() {
        let a = game.awaited();
        if a.roles.is_empty() {
            return Err(format!("{id} step {}: a step that awaits nobody, and no outcome", game.step));
        }
        last_mine = a.roles.contains(&role);
        for r in &a.roles {
            let by_adjutant = if *r == role { mine == Player::Adjutant } else { against == Player::Adjutant };
            let lines = if by_adjutant {
                decisions += u32::from(*r == role);
                let started = std::time::Instant::now();
                let lines = game
                    .think(r, effort)
                    .ok_or_else(|| format!("{} has no computer player for {r}", rules.info().name))?;
                if *r == role {
                    let took = started.elapsed();
                    thinking += took;
                    longest = longest.max(took);
                }
                // Its orders name nothing the side may not know: the same
                // probes the conformance test reads every view with.
                let hidden = game.leak_probes(r).hidden;
                if let Some(h) = hidden.iter().find(|h| lines.iter().any(|l| l.contains(h.as_str()))) {
                    return Err(format!(
                        "{id} step {}: adjutant's orders for {r} {lines:?} name {h:?}, hidden from it",
                        game.step
                    ));
                }
                lines
            } else if *r == role {
                rules.random_orders(game.state(), r, &mut |k| own.below(k))
            } else {
                rules.random_orders(game.state(), r, &mut |k| pick.below(k))
            };
            let numbered: Vec<(usize, String)> = lines.iter().enumerate().map(|(i, l)| (i + 1, l.clone())).collect();
            let canonical = game.check(r, &numbered).map_err(|e| {
                let who = if by_adjutant { "adjutant's" } else { "random" };
                format!("{id} step {}: {who} orders for {r} {lines:?} are refused: {e:?}", game.step)
            })?;
            game.accept(r, canonical);
        }
        let seeds: BTreeMap<String, dice::Link> = streams
            .iter()
            .map(|s| (s.clone(), dice::sha256(format!("selfplay/{seed}/{n}/{}/{s}", game.step).as_bytes())))
            .collect();
        game.resolve(&mut Committed::new(seeds))?;
    }
    let outcome = game.outcome();
    let result = match &outcome {
        Some(o) if o.winner.as_deref() == Some(&role) || o.also.contains(&role) => Result::Won,
        Some(o) if o.winner.is_some() || o.lost.contains(&role) => Result::Lost,
        _ => Result::Drawn,
    };
    let reason = outcome.map(|o| o.reason).unwrap_or_else(|| format!("no end after {MAX_STEPS} steps"));
    Ok(Played { role, result, steps: game.step - 1, decisions, thinking, longest, reason, ended_on_mine: last_mine })
}
