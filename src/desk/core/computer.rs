//! adjutant plays a side: a role whose player is `adjutant` (the
//! moderator's `REPLACE <role> ADJUTANT`, `new --player <role>=adjutant`,
//! or a role in civil disorder under `[deadlines] missed = "adjutant"`)
//! has its orders thought out by the ruleset's computer player as each
//! step opens, checked like a player's mail and journaled as accepted,
//! marked as adjutant's. It is sent no mail.

use super::{letters, state, Batch, GameState, Letter, Referee, Refused};
use crate::journal::kinds;
use chrono::{DateTime, Utc};
use minijinja::context;
use tracing::warn;

/// The player's name for a side adjutant plays, where an address would be.
pub const ADJUTANT: &str = "adjutant";

/// Steps one call resolves at most when they await only adjutant's sides:
/// every game ends well before (its rules, or its step limit), so this is
/// a guard, not a rule.
const STEPS_AT_ONCE: u32 = 5000;

/// The configured effort of the computer player (`[player]`).
pub fn effort(cfg: &crate::config::Config) -> crate::engine::Effort {
    let p = &cfg.player;
    crate::engine::Effort { candidates: p.candidates, playouts: p.playouts, horizon: p.horizon }
}

/// Whether adjutant plays `role`.
pub fn plays(d: &state::DeskState, role: &str) -> bool {
    d.players.get(role).is_some_and(|p| p == ADJUTANT)
}

/// Whether the ruleset has a computer player for `role` in this game.
pub fn can_play(game: &crate::engine::Game, role: &str) -> bool {
    let glance = crate::engine::Effort { candidates: 1, playouts: 1, horizon: 1 };
    game.think(role, glance).is_some()
}

impl Referee<'_> {
    /// adjutant's sides send their orders for the open step; a step that
    /// then awaits nobody else resolves at once, and so on. Returns the
    /// steps resolved.
    pub fn adjutant_turns(&self, l: &mut GameState, batch: &mut Batch, now: DateTime<Utc>) -> Result<u32, Refused> {
        let mut resolved = 0;
        while resolved < STEPS_AT_ONCE {
            self.adjutant_orders(l, batch);
            let a = l.game.awaited();
            let alone = !a.roles.is_empty() && a.roles.iter().all(|r| plays(&l.desk, r));
            if l.game.ended || l.desk.paused || !alone || !l.game.complete() || !self.resolve_step(l, batch, now)? {
                break;
            }
            resolved += 1;
        }
        Ok(resolved)
    }

    /// Resolve the open step, then any steps after it that await only
    /// adjutant's sides.
    pub fn resolve_steps(&self, l: &mut GameState, batch: &mut Batch, now: DateTime<Utc>) -> Result<bool, Refused> {
        if !self.resolve_step(l, batch, now)? {
            return Ok(false);
        }
        self.adjutant_turns(l, batch, now)?;
        Ok(true)
    }

    /// The orders of every awaited side adjutant plays and that has none
    /// in: the computer player's, or the no-moves orders should the game
    /// refuse them (a bug, logged), so a step never waits on adjutant.
    fn adjutant_orders(&self, l: &mut GameState, batch: &mut Batch) {
        // An open game waits for its last player before anyone plays.
        let started = l.game.roles.iter().all(|r| l.desk.players.contains_key(r));
        if l.game.ended || l.game.outcome().is_some() || !started {
            return;
        }
        for role in l.game.awaited().roles {
            if !plays(&l.desk, &role) || l.game.orders.contains_key(&role) {
                continue;
            }
            let thought = l.game.think(&role, effort(self.cfg)).unwrap_or_default();
            let numbered =
                |lines: &[String]| lines.iter().enumerate().map(|(i, t)| (i + 1, t.clone())).collect::<Vec<_>>();
            let canonical = match l.game.check(&role, &numbered(&thought)) {
                Ok(c) => c,
                Err(e) => {
                    warn!(game = %l.game.id, role, errors = ?e, "the computer player's orders are refused; the no-moves orders go in");
                    match l.game.check(&role, &numbered(&l.game.rules.default_orders(l.game.state(), &role))) {
                        Ok(c) => c,
                        Err(_) => continue,
                    }
                }
            };
            let step = l.game.step;
            batch.entry(
                "accepted",
                &kinds::Accepted { step, role: role.clone(), lines: canonical.clone(), by: Some(ADJUTANT.into()) },
            );
            l.game.accept(&role, canonical);
        }
    }

    /// The moderator's REPLACE: a new player is welcomed; adjutant takes
    /// the side where the game has a computer player for it, and the
    /// moderator's reply says which (`Some` text).
    pub fn replace(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        role: &str,
        email: &str,
    ) -> Result<Option<String>, Refused> {
        if email != ADJUTANT {
            let m =
                kinds::Moderator { action: kinds::Action::Replace, args: vec![role.to_string(), email.to_string()] };
            state::apply_moderator(&mut l.desk, &m);
            batch.entry("moderator", &m);
            // The new player needs the anchors before their first order,
            // as everyone had them (dice-v1, step 1).
            let anchors = self.vault.anchors(&l.game.id)?;
            batch.letters.push(self.welcome(l, role, email, &anchors));
            return Ok(None);
        }
        Ok(Some(self.replace_with_adjutant(l, batch, role)))
    }

    fn replace_with_adjutant(&self, l: &mut GameState, batch: &mut Batch, role: &str) -> String {
        if !can_play(&l.game, role) {
            let title = l.game.rules.info().title;
            return format!(
                "REPLACE {role} ADJUTANT: NOT done: {title} has no computer player for {role}. Nothing was changed."
            );
        }
        let m = kinds::Moderator { action: kinds::Action::Replace, args: vec![role.to_string(), ADJUTANT.into()] };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry("moderator", &m);
        format!("adjutant plays {role} from now on, from what {role} may see; its orders are journaled as adjutant's. REPLACE {role} <email> gives the side back to a player.")
    }

    /// A role in civil disorder under `[deadlines] missed = "adjutant"`:
    /// adjutant takes the side until the moderator's REPLACE gives it to a
    /// player; the moderator and the other players are told.
    pub fn hand_to_adjutant(&self, l: &mut GameState, batch: &mut Batch, role: &str, missed: u32) {
        // The player who dropped is told too: they may ask for the side back.
        let told = self.recipients(l);
        let m = kinds::Moderator { action: kinds::Action::Replace, args: vec![role.to_string(), ADJUTANT.into()] };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry("moderator", &m);
        let text = format!(
            "{role} has missed {missed} steps in a row: adjutant plays {role} from the next step, from what {role} may see, until the moderator sends REPLACE {role} <email>."
        );
        for (r, to) in told {
            batch.letters.push(Letter {
                role: Some(r),
                to,
                subject: format!("[{}] adjutant plays {role}", l.game.id),
                body: letters::fill("reply", context! { text => text.clone() }),
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
    }
}
