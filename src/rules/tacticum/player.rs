//! adjutant's play of an army (`rules::shared::player`): the state as the
//! army may know it, and how good a position is for it.

use super::State;

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

/// Units on the board, the side's against the enemies' (every objective
/// short of a Trap or a march is won by taking units: S3-9, the
/// scenarios' goals), with a Commander worth three units, since losing one
/// loses most scenarios and a Trapped one ends the game.
pub fn value(s: &State, role: &str) -> f64 {
    let Some(me) = s.army_index(role) else { return 0.0 };
    (0..s.armies.len())
        .map(|a| {
            let army = &s.armies[a];
            let worth = s.on_board(a) as f64 + if army.commander.is_empty() { 0.0 } else { 2.0 };
            if s.friends(a, me) {
                worth
            } else {
                -worth
            }
        })
        .sum()
}
