//! Replaying and verifying a journal: the hash chain, every commitment link,
//! every draw regenerated from its seed, and every state digest. Used by
//! `adjutant audit`, and by the desk to rebuild a game whose snapshot is
//! missing or stale.

use crate::dice::{self, stats, Committed, Declared, Dice, Draw, Scripted};
use crate::engine::Game;
use crate::journal::{self, kinds, Entry};
use std::collections::BTreeMap;

/// Where and why a journal failed to verify.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("entry {seq}: {message}")]
pub struct Mismatch {
    pub seq: u64,
    pub message: String,
}

fn bad(seq: u64, message: impl Into<String>) -> Mismatch {
    Mismatch { seq, message: message.into() }
}

/// What a verified journal contained.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub game: String,
    pub ruleset: String,
    pub entries: usize,
    pub steps: u32,
    pub draws: usize,
    pub declared_draws: usize,
    pub orders_accepted: usize,
    pub orders_rejected: usize,
    pub dice_mode: String,
    pub ended: bool,
    /// Rollbacks, and the draws of the steps they voided (left out of
    /// `dice`: they decided nothing that stands, though every one was
    /// checked like the rest).
    pub rollbacks: usize,
    pub voided_draws: usize,
    pub dice: Vec<stats::DieSummary>,
    pub final_digest: String,
}

/// Replay a journal from creation; returns the game as it stands and the
/// summary, or the first entry that does not verify.
pub fn replay(entries: &[Entry]) -> Result<(Game, Summary), Mismatch> {
    replay_stream(entries.iter().cloned().map(Ok))
}

/// [`replay`] of entries read one at a time (`journal::entries`): memory
/// stays that of the game, whatever the journal's length.
pub fn replay_stream(entries: impl Iterator<Item = Result<Entry, Mismatch>>) -> Result<(Game, Summary), Mismatch> {
    let (game, sum, _) = replay_watching(entries, None, &mut |_, _| {})?;
    Ok((game, sum))
}

/// [`replay`], calling `watch` with the game as each entry left it (a
/// public page draws each step's public map from it).
pub fn replay_each(entries: &[Entry], watch: &mut dyn FnMut(&Game, &Entry)) -> Result<(Game, Summary), Mismatch> {
    let (game, sum, _) = replay_watching(entries.iter().cloned().map(Ok), None, watch)?;
    Ok((game, sum))
}

/// The game as it was when step `step` opened, as a rollback restores it.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    /// The ruleset state's text then, and its digest.
    pub state: String,
    pub digest: String,
    /// The entry that opened the step (its creation, the resolution
    /// before it, or a rollback that reopened it).
    pub seq: u64,
}

/// Where step `step` opened in the history that stands (not voided by a
/// rollback), with the game as it stands now; `None` for a step that never
/// opened or whose opening was voided.
pub fn opening(
    entries: impl Iterator<Item = Result<Entry, Mismatch>>,
    step: u32,
) -> Result<(Game, Option<Opening>), Mismatch> {
    let (game, _, o) = replay_watching(entries, Some(step), &mut |_, _| {})?;
    Ok((game, o))
}

/// Where each step of the standing history opened: its state digest and
/// the entry that opened it.
#[derive(Default)]
struct Openings {
    at: BTreeMap<u32, (String, u64)>,
    want: Option<u32>,
    found: Option<Opening>,
}

impl Openings {
    fn opened(&mut self, game: &Game, digest: &str, seq: u64) {
        self.at.insert(game.step, (digest.to_string(), seq));
        if self.want == Some(game.step) {
            self.found = Some(Opening { state: game.state_text(), digest: digest.to_string(), seq });
        }
    }

    /// Forget the openings from `step` on (a rollback voided them).
    fn void_from(&mut self, step: u32) {
        self.at.retain(|k, _| *k < step);
        if self.want.is_some_and(|w| w >= step) {
            self.found = None;
        }
    }
}

fn replay_watching(
    mut entries: impl Iterator<Item = Result<Entry, Mismatch>>,
    want: Option<u32>,
    watch: &mut dyn FnMut(&Game, &Entry),
) -> Result<(Game, Summary, Option<Opening>), Mismatch> {
    let mut chain = journal::ChainCheck::default();
    let first = entries.next().transpose()?.ok_or_else(|| bad(0, "the journal is empty"))?;
    chain.check(&first).map_err(|(seq, m)| bad(seq, m))?;
    let first = &first;
    if first.kind != "created" {
        return Err(bad(first.seq, format!("the first entry is {:?}, not \"created\"", first.kind)));
    }
    let c: kinds::Created = first.body().map_err(|m| bad(first.seq, m))?;
    let rules =
        crate::rules::find(&c.ruleset).ok_or_else(|| bad(first.seq, format!("unknown ruleset {:?}", c.ruleset)))?;
    let mut game = Game::new(&c.game, rules, &c.scenario).map_err(|m| bad(first.seq, m))?;
    if c.patch.is_some() || c.replace.is_some() {
        if let Some(p) = &c.patch {
            game.patch(p).map_err(|m| bad(first.seq, m))?;
        }
        if let Some(r) = &c.replace {
            game.replace(r).map_err(|m| bad(first.seq, m))?;
        }
        // A patched position must at least answer what it awaits.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.awaiting()))
            .map_err(|_| bad(first.seq, "the patched position is impossible"))?;
    }
    if game.roles != c.roles {
        return Err(bad(first.seq, format!("roles {:?} differ from the scenario's {:?}", c.roles, game.roles)));
    }
    if game.digest() != c.digest {
        return Err(bad(first.seq, "the set-up does not reproduce the recorded state digest"));
    }
    let mut anchors = BTreeMap::new();
    for (stream, a) in &c.anchors {
        anchors.insert(
            stream.clone(),
            dice::from_hex(a).ok_or_else(|| bad(first.seq, format!("anchor of {stream} is not 32 bytes of hex")))?,
        );
    }
    if c.dice == dice::Mode::Committed {
        for s in dice::stream_names(&c.roles) {
            if !anchors.contains_key(&s) {
                return Err(bad(first.seq, format!("no anchor for stream {s}")));
            }
        }
    }
    let mut sum = Summary {
        game: c.game.clone(),
        ruleset: c.ruleset.clone(),
        entries: 1,
        dice_mode: c.dice.to_string(),
        ..Summary::default()
    };
    // Each draw with the step it belongs to: a rollback voids some.
    let mut all_draws: Vec<(u32, Draw)> = Vec::new();
    let mut openings = Openings { want, ..Openings::default() };
    openings.opened(&game, &c.digest, first.seq);
    let mut last_resolved = game.step.saturating_sub(1);
    let mut voided_steps: std::collections::BTreeSet<u32> = Default::default();
    // The last verified link of each stream: the anchor, then each revealed
    // link, then the anchor of a renewed chain.
    let mut tips = anchors.clone();
    // The step the chains in use start after (0, then each renewal's base).
    let mut chain_base = 0u32;
    for e in entries {
        let e = &e?;
        chain.check(e).map_err(|(seq, m)| bad(seq, m))?;
        sum.entries += 1;
        let seq = e.seq;
        // After the end nothing may change the game; mail, refusals and
        // the desk's own notes may still be journaled.
        if game.ended && matches!(e.kind.as_str(), "accepted" | "salt" | "resolved" | "created") {
            return Err(bad(seq, format!("a {:?} entry after the game ended", e.kind)));
        }
        match e.kind.as_str() {
            "accepted" => {
                let a: kinds::Accepted = e.body().map_err(|m| bad(seq, m))?;
                if a.step != game.step {
                    return Err(bad(seq, format!("orders for step {} while step {} is open", a.step, game.step)));
                }
                let lines: Vec<(usize, String)> = a.lines.iter().enumerate().map(|(i, l)| (i + 1, l.clone())).collect();
                let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.check(&a.role, &lines)))
                    .map_err(|_| bad(seq, "checking these orders panicked (forged orders)"))?;
                let canon = checked.map_err(|errs| {
                    bad(
                        seq,
                        format!(
                            "accepted orders of {} do not validate: {}",
                            a.role,
                            errs.iter().map(|e| e.reason.clone()).collect::<Vec<_>>().join("; ")
                        ),
                    )
                })?;
                if canon != a.lines {
                    return Err(bad(seq, "accepted orders are not in canonical form"));
                }
                game.accept(&a.role, canon);
                sum.orders_accepted += 1;
            }
            "rejected" => sum.orders_rejected += 1,
            "salt" => {
                let s: kinds::Salt = e.body().map_err(|m| bad(seq, m))?;
                if s.step != game.step {
                    return Err(bad(seq, format!("salt for step {} while step {} is open", s.step, game.step)));
                }
                game.salts.insert(s.role, s.salt);
            }
            "renewed" => {
                let r: kinds::Renewed = e.body().map_err(|m| bad(seq, m))?;
                let last = game.step.saturating_sub(1);
                if c.dice != dice::Mode::Committed {
                    return Err(bad(seq, "renews dice chains in a game without committed dice"));
                }
                if r.chain_len != c.chain_len || r.base != chain_base + c.chain_len || r.base != last {
                    return Err(bad(
                        seq,
                        format!(
                            "renews the chains after step {} (length {}), where the chains in use end at step {} and step {last} was the last resolved",
                            r.base,
                            r.chain_len,
                            chain_base + c.chain_len
                        ),
                    ));
                }
                let mut fresh = BTreeMap::new();
                for s in dice::stream_names(&c.roles) {
                    let a = r.anchors.get(&s).and_then(|a| dice::from_hex(a));
                    fresh.insert(
                        s.clone(),
                        a.ok_or_else(|| bad(seq, format!("no valid renewed anchor for stream {s}")))?,
                    );
                }
                tips = fresh;
                chain_base = r.base;
            }
            "resolved" => {
                let r: kinds::Resolved = e.body().map_err(|m| bad(seq, m))?;
                if c.dice == dice::Mode::Committed && r.step > chain_base + c.chain_len {
                    return Err(bad(
                        seq,
                        format!(
                            "resolves step {} beyond the dice chains committed (they end at step {})",
                            r.step,
                            chain_base + c.chain_len
                        ),
                    ));
                }
                // A forged journal must fail audit, never crash it.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_resolved(&mut game, &r, &c, &mut tips)))
                    .unwrap_or_else(|_| Err("replaying this step panicked (a forged or impossible position)".into()))
                    .map_err(|m| bad(seq, m))?;
                sum.steps += 1;
                sum.draws += r.draws.len();
                sum.declared_draws += r.draws.iter().filter(|d| d.declared).count();
                last_resolved = r.step;
                all_draws.extend(r.draws.into_iter().map(|d| (r.step, d)));
                if !game.ended {
                    openings.opened(&game, &r.digest, seq);
                }
            }
            "rolled_back" => {
                let b: kinds::RolledBack = e.body().map_err(|m| bad(seq, m))?;
                let (digest, opened) = openings.at.get(&b.to_step).cloned().ok_or_else(|| {
                    bad(seq, format!("rolls back to step {}, which did not open in the history that stands", b.to_step))
                })?;
                if b.step != last_resolved + 1 {
                    return Err(bad(
                        seq,
                        format!(
                            "reopens as step {}, where step {last_resolved} was the last resolved (its dice must never be drawn again)",
                            b.step
                        ),
                    ));
                }
                if b.digest != digest {
                    return Err(bad(
                        seq,
                        format!("records a state digest for step {} other than the one it opened with", b.to_step),
                    ));
                }
                let resolved: Vec<u32> = (b.to_step..=last_resolved).filter(|k| !voided_steps.contains(k)).collect();
                if b.voided_steps != resolved {
                    return Err(bad(
                        seq,
                        format!(
                            "voids steps {:?} where {resolved:?} were resolved since step {} opened",
                            b.voided_steps, b.to_step
                        ),
                    ));
                }
                if b.voids_from != opened + 1 {
                    return Err(bad(
                        seq,
                        format!(
                            "voids entries from {}, not those after step {} opened ({})",
                            b.voids_from,
                            b.to_step,
                            opened + 1
                        ),
                    ));
                }
                game.reopen(&b.state, b.step).map_err(|m| bad(seq, m))?;
                if game.digest() != b.digest {
                    return Err(bad(seq, "the state it restores does not have the digest step it names opened with"));
                }
                voided_steps.extend(b.voided_steps.iter().copied());
                openings.void_from(b.to_step);
                openings.opened(&game, &b.digest, seq);
                sum.rollbacks += 1;
            }
            "ended" => game.ended = true,
            _ => {}
        }
        watch(&game, e);
    }
    sum.ended = game.ended;
    sum.voided_draws = all_draws.iter().filter(|(k, _)| voided_steps.contains(k)).count();
    sum.dice = stats::summarize(all_draws.iter().filter(|(k, _)| !voided_steps.contains(k)).map(|(_, d)| d));
    sum.final_digest = game.digest();
    Ok((game, sum, openings.found))
}

fn check_resolved(
    game: &mut Game,
    r: &kinds::Resolved,
    c: &kinds::Created,
    tips: &mut BTreeMap<String, dice::Link>,
) -> Result<(), String> {
    if r.step != game.step {
        return Err(format!("resolves step {} while step {} is open", r.step, game.step));
    }
    let salts = game.salts_for_seed();
    if r.salts != salts {
        return Err(format!("salts {:?} differ from the salts given for the step {:?}", r.salts, salts));
    }
    // The orders used are the accepted ones, or the no-moves orders.
    let awaiting = game.awaiting();
    for role in awaiting.prompts.keys() {
        let used = r.orders.get(role).cloned().unwrap_or_default();
        let expected = match game.orders.get(role) {
            Some(o) => o.clone(),
            None => game.rules.default_orders(game.state(), role),
        };
        if used != expected {
            return Err(format!("orders used for {role} {used:?} are not the orders accepted {expected:?}"));
        }
    }
    if r.step_kind != awaiting.kind {
        return Err(format!("records a {:?} step where the game was at a {:?} step", r.step_kind, awaiting.kind));
    }
    let mut defaulted: Vec<String> =
        awaiting.prompts.keys().filter(|k| !game.orders.contains_key(*k)).cloned().collect();
    defaulted.sort();
    let mut recorded = r.defaulted.clone();
    recorded.sort();
    if recorded != defaulted {
        return Err(format!("records {recorded:?} as silent where {defaulted:?} were"));
    }
    // A role free to leave standing orders (an optional role) has its
    // accepted orders used, and only those.
    for role in awaiting.optional.keys() {
        if r.orders.get(role) != game.orders.get(role) {
            return Err(format!("the standing orders used for {role} are not the ones accepted"));
        }
    }
    if let Some(extra) =
        r.orders.keys().find(|k| !awaiting.prompts.contains_key(*k) && !awaiting.optional.contains_key(*k))
    {
        return Err(format!("records orders of {extra}, who was not awaited"));
    }
    let mut dice_impl: Box<dyn Dice> = match c.dice {
        dice::Mode::Committed => {
            let mut seeds = BTreeMap::new();
            for (stream, lh) in &r.links {
                let link = dice::from_hex(lh).ok_or_else(|| format!("link of {stream} is not 32 bytes of hex"))?;
                let prev = tips.get(stream).ok_or_else(|| format!("link for unknown stream {stream}"))?;
                if !dice::link_follows(&link, prev) {
                    return Err(format!("link {} of stream {stream} does not hash back to the previous link", r.step));
                }
                tips.insert(stream.clone(), link);
                seeds.insert(stream.clone(), dice::seed(&c.game, r.step, stream, &link, &salts));
            }
            for d in &r.draws {
                if !seeds.contains_key(&d.stream) {
                    return Err(format!(
                        "draw {} {} uses stream {} whose link is not revealed",
                        d.stream, d.n, d.stream
                    ));
                }
            }
            Box::new(Committed::new(seeds))
        }
        dice::Mode::Declared => {
            Box::new(Declared::new(r.draws.iter().map(|d| (d.label.clone(), d.result.clone())).collect()))
        }
        // A scripted shuffle takes no faces: dice and pool draws feed the
        // script again, shuffles their own permutations.
        _ => Box::new(
            Scripted::new(
                &r.draws
                    .iter()
                    .filter(|d| d.kind != dice::DrawKind::Shuffle)
                    .flat_map(|d| d.result.clone())
                    .collect::<Vec<_>>(),
            )
            .with_shuffles(
                r.draws.iter().filter(|d| d.kind == dice::DrawKind::Shuffle).map(|d| d.result.clone()).collect(),
            ),
        ),
    };
    let mut next = game.clone();
    let res = next.resolve(dice_impl.as_mut())?;
    let made = dice_impl.draws();
    // A journal from before draws named whom they served is read without
    // it; a newer one must name the role the ruleset declares.
    let attributed = |m: &Draw, d: &Draw| {
        let mut m = m.clone();
        if d.good.is_none() {
            (m.serves, m.good) = (None, None);
        }
        m
    };
    for (i, d) in r.draws.iter().enumerate() {
        match made.get(i).map(|m| attributed(m, d)) {
            None => return Err(format!("draw {} {} ({}) was not made on replay", d.stream, d.n, d.label)),
            Some(m) if m != *d => {
                let what = if m.result != d.result {
                    format!("recorded {:?}, regenerated {:?}", d.result, m.result)
                } else if m.n != d.n {
                    format!("has counter {} where the stream's draw is number {}", d.n, m.n)
                } else if m.sides != d.sides || m.kind != d.kind {
                    format!("records a {:?} of {}, the replay drew a {:?} of {}", d.kind, d.sides, m.kind, m.sides)
                } else if m.declared != d.declared {
                    format!("is marked declared={} where the replay gives declared={}", d.declared, m.declared)
                } else if (&m.serves, m.good) != (&d.serves, d.good) {
                    format!(
                        "says it served {:?} ({:?} good), the ruleset declares {:?} ({:?} good)",
                        d.serves, d.good, m.serves, m.good
                    )
                } else {
                    format!("is labelled {:?}, the replay drew {:?}", d.label, m.label)
                };
                return Err(format!("draw {} {} ({}) {what}", d.stream, d.n, d.label));
            }
            _ => {}
        }
    }
    if made.len() > r.draws.len() {
        return Err(format!("replay made {} draws, the journal records {}", made.len(), r.draws.len()));
    }
    if res.events != r.events {
        return Err("the events recorded differ from the events of the replay".into());
    }
    if next.digest() != r.digest {
        return Err("the state after the step does not match the recorded digest".into());
    }
    *game = next;
    Ok(())
}
