//! adjutant's play of a side (`rules::shared::player`): the state as the
//! side may know it, and how good a position is for it.

use super::{State, ORF, WULF};
use crate::rules::shared::hex::Hex;

/// The state as `role` may know it: the phasing side's queued attacks are
/// its own secret (3.3), so the other side's search never reads them.
pub fn believed(s: &State, role: &str) -> State {
    let mut b = s.clone();
    if s.active != role {
        b.queue.clear();
    }
    b
}

/// A position rated for Orfburg, whose conquest decides the game (R25,
/// R26): strength on the map, cities and fortresses held, Kaiserburg
/// held, Wulfenburg counters kept out of the land between the rivers, and
/// Orfburg's counters near Kaiserburg; Wulfenburg's rating is its opposite.
pub fn value(s: &State, role: &str) -> f64 {
    let strength = |side: &str| s.alive(side).map(|u| u.strength as f64).sum::<f64>();
    let mut v = 3.0 * (strength(ORF) - strength(WULF));
    let held = |side: &str| s.hexes.iter().filter(|h| h.control == side).count() as f64;
    v += 5.0 * (held(ORF) - held(WULF));
    let targets: Vec<Hex> = s.hexes.iter().filter(|h| h.objective).filter_map(|h| Hex::parse(&h.name)).collect();
    v += 20.0 * s.hexes.iter().filter(|h| h.objective && h.control == ORF).count() as f64;
    let zone: Vec<Hex> = s.hexes.iter().filter(|h| h.zone).filter_map(|h| Hex::parse(&h.name)).collect();
    v -= 4.0 * s.alive(WULF).filter(|u| u.at().is_some_and(|h| zone.contains(&h))).count() as f64;
    let near = |h: Hex| targets.iter().map(|&t| s.grid.distance(h, t)).min().unwrap_or(0) as f64;
    v -= 0.5 * s.alive(ORF).filter_map(|u| u.at()).map(near).sum::<f64>();
    if role == ORF {
        v
    } else {
        -v
    }
}
