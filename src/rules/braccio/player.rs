//! adjutant's play of a side (`rules::shared::player`): the state as the
//! side may know it, and how good a position is for it.

use super::State;

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

/// Victory Points won, levels counted at their worth (15.2), the side's
/// against the enemy's, with the combat units each side still has on the
/// field (a side with none loses, A64) and their order.
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
    points(role) - points(o) + 0.5 * (field(role) - field(o))
}
