//! `adjutant demo braccio`: a battle of Sant'Egidio by mail. A refused
//! first mail (the battle must open with Baglioni, S2.2); the Malatestan
//! player's standing policies, sent while not awaited (an Interruptio
//! with the best Captain, Reaction Fire at every chance); then every
//! Braccesca activation pre-commits a Continuum with its plan (`NEXT
//! CONTINUUM … THEN …`), so the Malatestan policy answers it, and each
//! step's decider sends a plan that closes with the enemy, fires,
//! charges and attacks, until the battle ends. A pure function of the
//! state: its choices come from a counter seeded with the step.

use super::flow::{can_continuum, eligible};
use super::*;
use crate::engine::DemoMail;

/// More passes than a demo battle takes: CCs fall every activation, so
/// the Sudden End comes within some forty steps.
const LIMIT: usize = 160;

/// A deterministic chooser for the plan builder: the same state gives the
/// same mail.
fn chooser(seed: u64) -> impl FnMut(usize) -> usize {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    move |n: usize| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 33) % n.max(1) as u64) as usize
    }
}

fn text(o: &[Order]) -> String {
    o.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n")
}

pub fn mails(s: &State, pass: usize) -> Option<Vec<DemoMail>> {
    if pass >= LIMIT || s.outcome.is_some() {
        return None;
    }
    // The set-up rows await both sides at once (S1.1).
    if let Pending::Rows { roles } = &s.pending {
        let mut pick = chooser(pass as u64);
        return Some(
            roles.iter().map(|r| DemoMail::new(r, &text(&super::random::decision(s, r, true, &mut pick)))).collect(),
        );
    }
    let role = s.pending.role()?.to_string();
    if pass == 0 {
        return Some(vec![
            DemoMail::refused(BRACCIO, "ACTIVATE Tartaglia\nSQUAD Tartaglia-A\nMOVE Tartaglia-A1 1613"),
            DemoMail::new(MALATESTA, "# standing answers for the whole battle\nINTERRUPT WITH BEST MIN 3\nREACT FIRE ALWAYS\nSALT demo-malatesta"),
        ]);
    }
    let mut pick = chooser(s.activations as u64 * 7919 + pass as u64);
    // The step's decision with every unit acting; its own NEXT is the
    // demo's to choose, below.
    let mut orders = super::random::decision(s, &role, true, &mut pick);
    if let Some(i) = orders.iter().position(|o| matches!(o, Order::Next { .. } | Order::Then)) {
        orders.truncate(i);
    }
    // A Braccesca Basic Activation pre-commits a Continuum with its plan.
    if role == BRACCIO && matches!(s.pending, Pending::Activation { .. }) {
        let just =
            orders
                .first()
                .and_then(|o| if let Order::Activate { battle, .. } = o { Some(battle.clone()) } else { None });
        // The Captain with the best CC, if it is worth the risk of the
        // Sudden End (5 or more); else the turn passes.
        let next = eligible(s, BRACCIO, can_continuum)
            .into_iter()
            .filter(|b| Some(b) != just.as_ref())
            .max_by_key(|b| s.battle(b).map(|x| x.cc).unwrap_or(0))
            .filter(|b| s.battle(b).map(|x| x.cc >= 5).unwrap_or(false));
        match next {
            Some(n) => {
                let cc = s.battle(&n).map(|b| b.cc).unwrap_or(2);
                orders.push(Order::Next { what: n.clone() });
                orders.push(Order::Then);
                orders.extend(super::random::plan_with(s, &n, cc - 1, true, &mut pick));
            }
            None => orders.push(Order::Next { what: "pass".into() }),
        }
    } else if role == BRACCIO && matches!(s.pending, Pending::Continuum { .. }) {
        // Asked after a plan that made none: pass unless a Captain has CC 5.
        let best =
            eligible(s, BRACCIO, can_continuum).into_iter().max_by_key(|b| s.battle(b).map(|x| x.cc).unwrap_or(0));
        if best.as_ref().and_then(|b| s.battle(b)).map(|b| b.cc < 5).unwrap_or(true) {
            orders = vec![Order::Pass];
        }
    }
    let mut body = text(&orders);
    if pass == 1 {
        body.push_str("\nSALT demo-braccio");
    }
    Some(vec![DemoMail::new(&role, &body)])
}
