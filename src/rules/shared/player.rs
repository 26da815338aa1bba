//! The computer player's search, shared by every game it plays: Monte
//! Carlo over the legal-order generator. At a decision it draws a handful
//! of legal submissions (the no-moves orders among them) and plays each
//! forward a few times on the state as its side believes it (the others
//! answering with random legal orders, the dice imagined) up to its next
//! decision or the horizon, and keeps the submission whose futures the
//! game's evaluation rates best.
//!
//! It reads no clock: its effort is counted in imagined steps, so a
//! decision's cost is bounded and its choice repeats from its seed. It
//! never sees the game's dice: imagined dice come from a seed of its own.

use crate::dice::{sha256, Imagined};
use crate::engine::{Effort, Rules};
use std::collections::{BTreeMap, BTreeSet};

/// A won future outweighs any evaluation of a position.
const WON: f64 = 1.0e6;
/// A drawn future (Braccio's Sudden End, a step limit) is far worse than
/// any game still open, and far better than a lost one: the player plays
/// to win, and risks a draw only against a loss.
const DRAWN: f64 = -WON / 10.0;

/// splitmix64: the player's own choices among legal orders.
pub struct Pick(u64);

impl Pick {
    pub fn new(seed: u64) -> Pick {
        Pick(seed)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        if n == 0 {
            0
        } else {
            (z % n as u64) as usize
        }
    }
}

/// A game's own way to draw a purposeful submission (every counter
/// marching on the objectives, say), beside the random legal ones: where
/// a step moves many pieces, a handful of random submissions rarely holds
/// a plan.
pub type Propose<S, O> = fn(&S, &str, &mut dyn FnMut(usize) -> usize) -> Vec<O>;

/// Where a game's candidate submissions come from.
pub enum Draw<S, O> {
    /// The legal-order generator alone.
    Random,
    /// Half from the game's own proposals, half from the generator.
    Mixed(Propose<S, O>),
    /// The game's proposals alone: where random play makes choices a few
    /// futures cannot weigh. A roll whose rare outcome ends the game
    /// (Braccio's Sudden End, one chance in twelve) is missed by most sets
    /// of futures, and the search keeps the candidates whose futures were
    /// lucky; the proposals make those choices by the game's rules.
    Proposed(Propose<S, O>),
}

/// What a game gives its computer player: the state as a role may know
/// it (every fact hidden from the role replaced), how good a position is
/// for a role (higher is better), and where its candidates come from.
pub struct Mind<S, O> {
    pub believed: fn(&S, &str) -> S,
    pub value: fn(&S, &str) -> f64,
    pub draw: Draw<S, O>,
    /// Whether the no-moves orders are one of the role's choices here
    /// (`anytime` in most games: holding is a choice); where the rules
    /// require a move while one exists (Tacticum, BT-4), silence is only
    /// what a missed deadline does, and the player does not choose it.
    pub may_stay: fn(&S, &str) -> bool,
    /// How many times the configured candidates this game weighs (1 in
    /// most games). Where a submission is one action among hundreds
    /// (Tacticum), a dozen drawn at random seldom hold the one that closes
    /// a Trap; the configured effort stays every game's measure.
    pub breadth: usize,
}

/// The no-moves orders are always a choice.
pub fn anytime<S>(_: &S, _: &str) -> bool {
    true
}

impl<S, O> Mind<S, O> {
    /// The submission `role` makes in `s`: the best of the submissions
    /// weighed, searched on what `role` believes, never on `s` itself.
    pub fn think<R: Rules<State = S, Order = O>>(
        &self,
        rules: &R,
        s: &S,
        role: &str,
        effort: Effort,
        seed: u64,
    ) -> Vec<O> {
        choose(rules, &(self.believed)(s, role), role, effort, seed, self)
    }
}

/// The submission `role` makes in `believed`, the state as that role may
/// know it: the best of the submissions weighed by the mind's `value`.
/// The submissions weighed are drawn as the mind's `draw` says.
fn choose<R: Rules>(
    rules: &R,
    believed: &R::State,
    role: &str,
    effort: Effort,
    seed: u64,
    mind: &Mind<R::State, R::Order>,
) -> Vec<R::Order> {
    let mut pick = Pick::new(seed);
    let mut candidates: Vec<Vec<R::Order>> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut offer = |orders: Vec<R::Order>, candidates: &mut Vec<Vec<R::Order>>| {
        let key: Vec<String> = orders.iter().map(|o| o.to_string()).collect();
        if rules.validate(believed, role, &orders).is_empty() && seen.insert(key) {
            candidates.push(orders);
        }
    };
    if (mind.may_stay)(believed, role) {
        offer(rules.default_orders(believed, role), &mut candidates);
    }
    // Draws repeat where a step allows few submissions: a few more tries
    // than the candidates wanted, then the search goes with what it has.
    let wanted = effort.candidates.max(1) * mind.breadth.max(1);
    for i in 0..wanted * 3 {
        if candidates.len() >= wanted {
            break;
        }
        let orders = match &mind.draw {
            Draw::Proposed(p) => p(believed, role, &mut |n| pick.below(n)),
            Draw::Mixed(p) if i % 2 == 0 => p(believed, role, &mut |n| pick.below(n)),
            _ => rules.random_orders(believed, role, &mut |n| pick.below(n)),
        };
        offer(orders, &mut candidates);
    }
    if candidates.len() <= 1 {
        return candidates.pop().unwrap_or_else(|| rules.default_orders(believed, role));
    }
    // Every submission meets the same futures (the same imagined dice and
    // the same random answers, as far as the play allows): the weighing
    // compares submissions, not their luck.
    let futures: Vec<u64> = (0..effort.playouts.max(1)).map(|_| pick.below(usize::MAX) as u64).collect();
    let mut best = (f64::NEG_INFINITY, 0);
    for (i, mine) in candidates.iter().enumerate() {
        let total: f64 =
            futures.iter().map(|&f| future(rules, believed, role, mine, effort.horizon, f, &mind.value)).sum();
        if total > best.0 {
            best = (total, i);
        }
    }
    candidates.swap_remove(best.1)
}

/// One imagined future of `mine`: its step resolved with the others'
/// random orders, then every side playing at random until `role` decides
/// again, the game ends, or `horizon` steps have passed; rated for `role`.
/// Should `role` decide the very next step too, that step is played on
/// its no-moves orders first, so what its orders set going for the next
/// step (a roll to continue, say) is seen.
fn future<R: Rules>(
    rules: &R,
    believed: &R::State,
    role: &str,
    mine: &[R::Order],
    horizon: u32,
    seed: u64,
    value: &impl Fn(&R::State, &str) -> f64,
) -> f64 {
    let mut s = believed.clone();
    let mut pick = Pick::new(seed);
    let mut dice = Imagined::new(sha256(&seed.to_le_bytes()));
    for step in 0..horizon.max(1) {
        if rules.outcome(&s).is_some() {
            break;
        }
        let a = rules.awaited(&s);
        if a.roles.is_empty() || (step > 1 && a.roles.iter().any(|r| r == role)) {
            break;
        }
        let mut orders = BTreeMap::new();
        for r in &a.roles {
            let o = if step == 0 && r == role {
                mine.to_vec()
            } else if r == role {
                rules.default_orders(&s, r)
            } else {
                rules.random_orders(&s, r, &mut |n| pick.below(n))
            };
            orders.insert(r.clone(), o);
        }
        rules.resolve(&mut s, &orders, &mut dice);
    }
    match rules.outcome(&s) {
        Some(o) if o.winner.as_deref() == Some(role) || o.also.iter().any(|r| r == role) => WON,
        Some(o) if o.winner.is_some() => -WON,
        Some(_) => DRAWN,
        None => value(&s, role),
    }
}

/// Test support: a game's computer player is blind to what its side may
/// not know.
#[cfg(test)]
pub mod blind {
    use super::Pick;
    use crate::dice::Imagined;
    use crate::engine::{Effort, Rules};

    /// Plays three random games of `scenario` for up to `steps` steps. At
    /// each step, for every role, `secrets` changes what that role may not
    /// know; neither `believed` nor, every fifth step the role is awaited,
    /// the orders it thinks out may change. Fails too if `secrets` never
    /// changed anything, which would make the check empty.
    pub fn check<R: Rules>(
        rules: &R,
        scenario: &str,
        roles: &[&str],
        steps: u64,
        secrets: impl Fn(&R::State, &str, &mut Pick) -> R::State,
        believed: impl Fn(&R::State, &str) -> R::State,
    ) {
        let text = |s: &R::State| toml::to_string(s).expect("a state serializes");
        let effort = Effort { candidates: 4, playouts: 1, horizon: 2 };
        let mut pick = Pick::new(11);
        let mut changed_any = 0;
        for game in 0..3u8 {
            let mut s = rules.setup(scenario).expect("scenario");
            let mut dice = Imagined::new([game; 32]);
            for step in 0..steps {
                if rules.outcome(&s).is_some() {
                    break;
                }
                let a = rules.awaited(&s);
                for &role in roles {
                    let changed = secrets(&s, role, &mut pick);
                    changed_any += usize::from(text(&changed) != text(&s));
                    let why = format!("{scenario} game {game} step {step}, {role}");
                    assert_eq!(text(&believed(&s, role)), text(&believed(&changed, role)), "{why}");
                    if a.roles.iter().any(|r| r == role) && step % 5 == 0 {
                        let mine = |x: &R::State| {
                            let o = rules.think(x, role, effort, step).expect("a computer player");
                            o.iter().map(|o| o.to_string()).collect::<Vec<_>>()
                        };
                        assert_eq!(mine(&s), mine(&changed), "{why}: its orders");
                    }
                }
                let orders =
                    a.roles.iter().map(|r| (r.clone(), rules.random_orders(&s, r, &mut |n| pick.below(n)))).collect();
                rules.resolve(&mut s, &orders, &mut dice);
            }
        }
        assert!(changed_any > 0, "{scenario}: the secrets never changed, so nothing was checked");
    }
}
