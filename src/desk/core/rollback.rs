//! The moderator's ROLLBACK: the game taken back to the moment a step
//! opened, in the open. The journal gains a `rolled_back` entry (nothing
//! before it changes); the state is the one that step opened with, whose
//! digest the journal recorded then; the reopened step takes the next
//! number whose dice were never drawn, so no die is drawn twice; and every
//! player and the moderator are told why and what was undone.

use super::{letters, Batch, GameState, Letter, Referee, Refused};
use crate::journal::kinds;
use chrono::{DateTime, Utc};
use minijinja::context;

impl Referee<'_> {
    /// Roll `l` back to the opening of `to_step`. `Ok(Err(why))`: refused,
    /// nothing changed (the moderator is told why).
    pub fn rollback(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        to_step: u32,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<Result<(), String>, Refused> {
        let gid = l.game.id.clone();
        let open = l.game.step;
        if to_step > open {
            return Ok(Err(format!("step {to_step} has not opened; the game is at step {open}")));
        }
        if let Some(r) = l.desk.voided(to_step) {
            return Ok(Err(format!(
                "step {to_step} was undone by the rollback of {} (to step {}, which went on as step {}); roll back to step {} or later",
                r.at, r.to_step, r.step, r.step
            )));
        }
        let Some(back) = self.vault.opening(&gid, to_step, &batch.entries)? else {
            return Ok(Err(format!("step {to_step} did not open in this game's history")));
        };
        let earlier: Vec<u32> = l.desk.rollbacks.iter().flat_map(|r| r.voided_steps.clone()).collect();
        let voided_steps: Vec<u32> = (to_step..open).filter(|k| !earlier.contains(k)).collect();
        let entry = kinds::RolledBack {
            to_step,
            step: open,
            reason: reason.to_string(),
            by: "gm".into(),
            voids_from: back.opening.seq + 1,
            voided_steps: voided_steps.clone(),
            state: back.opening.state.clone(),
            digest: back.opening.digest.clone(),
        };
        // Orders in for the open step are undone too: gather them before
        // the game forgets them.
        let mut undone = back.orders.clone();
        for (role, lines) in &l.game.orders {
            let mine = undone.entry(role.clone()).or_default();
            if !mine.iter().any(|(k, _)| *k == open) {
                mine.push((open, lines.clone()));
            }
        }
        l.game.reopen(&back.opening.state, open).map_err(Refused)?;
        l.desk.rolled_back(&entry, &now.to_rfc3339());
        batch.entry("rolled_back", &entry);
        let what = match voided_steps.as_slice() {
            [] => "No step had been resolved since; only orders sent for it are undone.".to_string(),
            [k] => format!("The results of step {k} are undone."),
            ks => format!(
                "The results of steps {} are undone.",
                ks.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", ")
            ),
        };
        for (role, to) in self.recipients(l) {
            let orders: Vec<String> = undone
                .get(&role)
                .map(|v| v.iter().map(|(k, lines)| format!("step {k}: {}", lines.join(" / "))).collect())
                .unwrap_or_default();
            let body = letters::fill(
                "rollback",
                context! {
                    game => gid, to_step => to_step, step => open, reason => reason, what => what,
                    orders => orders, awaited => l.game.awaits(&role),
                },
            );
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject: format!("[{gid}] rolled back to step {to_step} by the moderator"),
                body,
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
        self.open_step(l, batch, now);
        self.prompts(l, batch);
        self.adjutant_turns(l, batch, now)?;
        Ok(Ok(()))
    }
}

/// The line every mail of a rolled-back game carries: a player sees each
/// rollback from their own mail alone.
pub fn note(rollbacks: &[super::state::Rollback]) -> String {
    let Some(last) = rollbacks.last() else { return String::new() };
    let times = if rollbacks.len() == 1 { "once".to_string() } else { format!("{} times", rollbacks.len()) };
    format!(
        "\nThis game was rolled back by its moderator {times}; the last, at {}: to step {} (going on as step {}), because: {}\n",
        last.at, last.to_step, last.step, last.reason
    )
}
