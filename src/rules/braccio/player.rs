//! adjutant's play of a side (`rules::shared::player`): the state as the
//! side may know it, and how good a position is for it.

use super::flow::{can_activate, eligible, general_problem};
use super::{Order, OrderKind, Pending, State};
use crate::rules::shared::player::Mind;

/// This game's computer player (`rules::shared::player`).
pub const MIND: Mind<State, Order> = Mind { believed, value, propose: Some(propose) };

/// The state as `role` may know it: the enemy's standing policies (3.4),
/// its secret plans and its NEXT pre-commitment are its own; the enemy
/// stands on the default policies and has planned nothing.
pub fn believed(s: &State, role: &str) -> State {
    let mut b = s.clone();
    let o = s.other(role);
    b.policies.remove(o);
    b.plans.retain(|p| p.role != o);
    b.next.remove(o);
    b
}

/// A submission with a purpose random play lacks: a Basic Activation
/// that gives the Recovery General Order (5.4.7), which alone raises a
/// CC again, so the best released CCs stay high and the Sudden End far
/// (15.3); else the random decision without a pre-committed NEXT, whose
/// roll the search cannot weigh; no Continuum, no Interruptio.
pub fn propose(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    match &s.pending {
        Pending::Activation { role: r } if r == role && s.first.is_empty() && pick(2) == 0 => {
            let can: Vec<String> = eligible(s, role, can_activate)
                .into_iter()
                .filter(|b| {
                    s.battle(b).is_some_and(|x| {
                        !x.off_map && general_problem(s, x, &[OrderKind::Recover]).is_ok() && x.cc < x.cc0
                    })
                })
                .collect();
            if !can.is_empty() {
                let battle = can[pick(can.len())].clone();
                return vec![Order::Activate { battle, general: vec![OrderKind::Recover], at: None, face: None }];
            }
            calm(s, role, pick)
        }
        Pending::Continuum { role: r } if r == role => vec![Order::Pass],
        Pending::Interruptio { role: r, .. } if r == role => vec![Order::NoInterrupt],
        _ => calm(s, role, pick),
    }
}

/// The random decision, cut before any NEXT.
fn calm(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut v = super::random::decision(s, role, false, pick);
    if let Some(i) = v.iter().position(|o| matches!(o, Order::Next { .. } | Order::Then)) {
        v.truncate(i);
    }
    v
}

/// What the chance of a Sudden End on the next roll weighs, in VP: the
/// best of 30, 60 and 0 over 40 games against random play (15.3 is a draw,
/// which the search scores far below an open game, but a single roll's
/// chance is rarely seen in a few futures).
const SUDDEN: f64 = 30.0;

/// Victory Points won, levels counted at their worth (15.2), the side's
/// against the enemy's, with the combat units each side still has on the
/// field (a side with none loses, A64) and their order; less the chance
/// that the next Continuum or Interruptio roll, whoever makes it, exceeds
/// the best released CCs and ends the battle in a draw (15.3): a side
/// that keeps a high CC released (Recovery, 5.4.7) keeps the battle going.
pub fn value(s: &State, role: &str) -> f64 {
    let o = s.other(role);
    let points = |side: &str| {
        let per = s.vp_per_vl.get(side).copied().unwrap_or(1).max(1);
        (s.vl.get(side).copied().unwrap_or(0) * per + s.vp.get(side).copied().unwrap_or(0)) as f64
    };
    let field = |side: &str| {
        s.units
            .iter()
            .filter(|u| u.side == side && u.alive())
            .map(|u| if u.disorganized { 0.5 } else { 1.0 })
            .sum::<f64>()
    };
    let best = |side: &str| s.captains(side).filter(|b| b.released).map(|b| b.cc).max();
    let risk = match (best(role), best(o)) {
        (Some(x), Some(y)) => 1.0 - below(x + y),
        _ => 0.0,
    };
    points(role) - points(o) + 0.5 * (field(role) - field(o)) - SUDDEN * risk
}

/// The chance that two dice show `n` or less.
fn below(n: i32) -> f64 {
    let ways = (1..=6).flat_map(|a| (1..=6).map(move |b| a + b)).filter(|&t| t <= n).count();
    ways as f64 / 36.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::braccio::{Braccio, Plan, Policy, BRACCIO, MALATESTA};
    use crate::rules::shared::player::{blind, Pick};

    /// `role`'s enemy with other standing policies, a secret plan and a
    /// NEXT of its own.
    fn other_secrets(s: &State, role: &str, pick: &mut Pick) -> State {
        let mut t = s.clone();
        let o = s.other(role).to_string();
        let fire = ["always", "never", "attackers"][pick.below(3)];
        t.policies.insert(o.clone(), Policy { fire: fire.into(), interrupt: "never".into(), ..Policy::default() });
        t.plans.push(Plan { role: o.clone(), lines: vec!["PASS".into()] });
        t.next.insert(o, "pass".into());
        t
    }

    #[test]
    fn what_adjutant_believes_and_plays_does_not_depend_on_the_enemys_secrets() {
        blind::check(&Braccio, "sant-egidio", &[BRACCIO, MALATESTA], 60, other_secrets, believed);
    }
}
