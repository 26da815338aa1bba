//! adjutant's play of an army (`rules::shared::player`): the state as the
//! army may know it, and how good a position is for it.

use super::{Goal, State};
use crate::rules::shared::player::Mind;

/// This game's computer player (`rules::shared::player`).
pub const MIND: Mind<State, super::Order> = Mind { believed, value, propose: None };

/// The state as `role` may know it. Tacticum hides one thing: an enemy's
/// set-up in X before every army stands (S10-2), so while armies set up
/// every enemy stands as its printed example set-up, which is public.
pub fn believed(s: &State, role: &str) -> State {
    let mut b = s.clone();
    let Some(me) = s.army_index(role) else { return b };
    if s.phase == "setup" {
        for (a, army) in b.armies.iter_mut().enumerate() {
            if !s.friends(a, me) {
                if let Some(e) = s.example.get(a) {
                    *army = e.clone();
                }
            }
        }
    }
    b
}

/// What a square nearer a march's end is worth, in units: enough to
/// set the piece going, less than a unit lost on the way.
const MARCH: f64 = 0.25;

/// Units on the board, the side's against the enemies' (every objective
/// short of a Trap or a march is won by taking units: S3-9, the
/// scenarios' goals), with a Commander worth three units, since losing one
/// loses most scenarios and a Trapped one ends the game; and for the goals
/// won by a march (a Commander on a hilltop or a square, S4; the Prisoner
/// to the valley's end, SO2-1), how far each side's piece still has to go.
pub fn value(s: &State, role: &str) -> f64 {
    let Some(me) = s.army_index(role) else { return 0.0 };
    let sign = |a: usize| if s.friends(a, me) { 1.0 } else { -1.0 };
    let units: f64 = (0..s.armies.len())
        .map(|a| {
            let army = &s.armies[a];
            sign(a) * (s.on_board(a) as f64 + if army.commander.is_empty() { 0.0 } else { 2.0 })
        })
        .sum();
    let marches: f64 = s
        .objectives
        .iter()
        .filter_map(|o| {
            let a = s.army_index(&o.army)?;
            let army = &s.armies[a];
            let to_cells = |from: &str, cells: &[String]| {
                let f = s.sq(from)?;
                cells.iter().filter_map(|c| s.sq(c)).map(|c| f.col.abs_diff(c.col) + f.row.abs_diff(c.row)).min()
            };
            let left = match o.kind {
                Goal::Hilltop => to_cells(&army.commander, &s.terrain.hilltops)?,
                Goal::Reach => to_cells(&army.commander, &o.cells)?,
                Goal::PrisonerRow => (o.count as u8).saturating_sub(1).abs_diff(s.sq(&army.prisoner)?.row),
                _ => return None,
            };
            Some(-sign(a) * MARCH * f64::from(left))
        })
        .sum();
    units + marches
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::shared::player::{blind, Pick};
    use crate::rules::tacticum::Tacticum;

    /// While armies set up, every army not a friend of `role`'s already
    /// placed, as a consul's mail sent before `role`'s would leave it: its
    /// example set-up with its Infantry's squares dealt in another order.
    fn other_secrets(s: &State, role: &str, pick: &mut Pick) -> State {
        let mut t = s.clone();
        let Some(me) = s.army_index(role) else { return t };
        if s.phase == "setup" {
            for (a, army) in t.armies.iter_mut().enumerate() {
                if !s.friends(a, me) && s.example.get(a).is_some_and(|e| e.infantry.len() > 1) {
                    *army = s.example[a].clone();
                    let k = 1 + pick.below(army.infantry.len() - 1);
                    army.infantry.rotate_left(k);
                }
            }
        }
        t
    }

    #[test]
    fn what_adjutant_believes_and_plays_does_not_depend_on_the_enemys_secrets() {
        let roles = ["white", "black", "blue", "red"];
        blind::check(&Tacticum, "consuls", &roles, 12, other_secrets, believed);
    }
}
