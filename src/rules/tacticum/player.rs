//! adjutant's play of an army (`rules::shared::player`): the state as the
//! army may know it, and how good a position is for it.

use super::{Goal, State};
use crate::rules::shared::player::{Draw, Mind};
use crate::rules::shared::squares::Sq;

/// This game's computer player (`rules::shared::player`). It weighs twice
/// the configured candidates: in All Units, where a Trap or a Command
/// Square ends the game and nothing else does, that won 36 and 37 of 40
/// games against random play where a dozen won 28 and 29.
pub const MIND: Mind<State, super::Order> = Mind { believed, value, draw: Draw::Mixed(propose), may_stay, breadth: 2 };

/// A turn's move is required while the army has one (BT-4, A-8): no
/// order at all is what a silent player's deadline does, not a
/// choice adjutant makes. Elsewhere (a dodge, a placement) the no-moves
/// orders are one answer among the others.
fn may_stay(s: &State, role: &str) -> bool {
    s.phase != "turn" || !super::moves::can_act(s, role)
}

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

/// Solo I's Legion: an action that makes a Build Formation, with a SUPPLY
/// of any cube the Prefect can reach to any of its foci (random play
/// makes one rarely, and always fetches the first cube it can); in every
/// other scenario the random submission, drawn the same way.
pub fn propose(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<super::Order> {
    use super::{moves, solo, Order};
    let frontier = s.solo.as_ref().is_some_and(|x| x.kind == "frontier" && x.legion == role);
    let cubes = if frontier && s.phase == "turn" { solo::frontier::first_cubes(s) } else { Vec::new() };
    if !cubes.is_empty() {
        let all = moves::legal(s, role);
        let start = pick(all.len().max(1));
        for i in 0..all.len() {
            let action = &all[(start + i) % all.len()];
            let foci = solo::frontier::foci_after(s, role, action);
            if foci.is_empty() {
                continue;
            }
            let (c0, f0) = (pick(cubes.len()), pick(foci.len()));
            for k in 0..cubes.len() * foci.len() {
                let from = cubes[(c0 + k / foci.len()) % cubes.len()].clone();
                let to = foci[(f0 + k) % foci.len()];
                let orders = vec![action.clone(), Order::Supply { from, to }];
                if solo::validate(s, role, &orders).is_empty() {
                    return orders;
                }
            }
        }
    }
    crate::engine::Rules::random_orders(&super::Tacticum, s, role, pick)
}

/// What a square nearer a march's end is worth, in units: enough to
/// set the piece going, less than a unit lost on the way.
const MARCH: f64 = 0.25;

/// Units on the board, the side's against the enemies' (every objective
/// short of a Trap or a march is won by taking units: S3-9, the
/// scenarios' goals), with a Commander worth three units, since losing one
/// loses most scenarios and a Trapped one ends the game; and for the goals
/// won by a march (a Commander on a hilltop or a square, S4; the Prisoner
/// to the valley's end, SO2-1), how far each side's piece still has to go;
/// less what each side's Commander hemmed in to one or two ways out costs
/// it (BT-31).
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
                cells.iter().filter_map(|c| s.sq(c)).map(|c| f.steps(c)).min()
            };
            let left = match o.kind {
                Goal::Hilltop => to_cells(&army.commander, &s.terrain.hilltops)?,
                Goal::Reach => to_cells(&army.commander, &o.cells)?,
                Goal::PrisonerRow => u32::from((o.count as u8).saturating_sub(1).abs_diff(s.sq(&army.prisoner)?.row)),
                Goal::Wall => return Some(sign(a) * wall(s, a)),
                Goal::Deliver => to_fort(s, &army.grain, o.count)?,
                Goal::EnterFort => to_fort(s, army.infantry.iter().chain(&army.grain), o.count)?,
                _ => return None,
            };
            Some(-sign(a) * MARCH * f64::from(left))
        })
        .sum();
    // A Commander hemmed in to one or two ways out is a Trap the enemy's
    // next action may close: the search's few futures seldom hold the
    // random move that closes it, so the position itself must say so.
    let cornered: f64 =
        (0..s.armies.len()).filter_map(|a| Some(sign(a) * HEMMED * hemmed(super::moves::liberties(s, a)?))).sum();
    units + marches - cornered
}

/// How far the pieces still to bring into V's Fort (`count` of them in:
/// Grain wagons delivered, Rebels entered, S5-12) have to go, through its
/// gate: the nearest ones not yet in; none where too few are left.
fn to_fort<'a>(s: &State, pieces: impl IntoIterator<Item = &'a String>, count: u32) -> Option<u32> {
    let fort = s.fort();
    let (inside, outside): (Vec<Sq>, Vec<Sq>) =
        pieces.into_iter().filter_map(|c| s.sq(c)).partition(|q| fort.contains(q));
    let far = super::moves::steps_to(s, &fort);
    let mut ways: Vec<u32> = outside.iter().map(|&q| far[s.index(q)]).filter(|&d| d != u32::MAX).collect();
    ways.sort_unstable();
    let wanted = (count as usize).checked_sub(inside.len())?;
    (ways.len() >= wanted).then(|| ways[..wanted].iter().sum())
}

/// What a Commander with few ways out costs its side, in units.
const HEMMED: f64 = 1.5;

/// How near a Trap a Commander with `ways` ways out (`moves::liberties`)
/// stands: one way out is one enemy action from a Trap, two nearly so.
fn hemmed(ways: usize) -> f64 {
    match ways {
        1 => 1.0,
        2 => 0.4,
        _ => 0.0,
    }
}

/// What a cube set in the wall is worth, in units (SO1-1: the wall is
/// won cube by cube, a Tower being two).
const CUBE: f64 = 0.5;
/// What an open wall square a Legion unit touches is worth: the first
/// half of a Build Formation (SO1-15).
const HALF: f64 = 0.1;
/// What each Stone the wall still needs beyond those left in the Fort
/// costs: Stone never comes back (only Wood does, SO1-16), so a wall short
/// of it cannot be finished.
const SHORT: f64 = 3.0;

/// Solo I's wall as `legion` has built it (SO1-1, SO1-19): the cubes set,
/// the open squares a unit of its already touches, less the Stone it can
/// no longer find for the Towers still wanting.
fn wall(s: &State, legion: usize) -> f64 {
    use super::solo::frontier::{builders_touching, open_wall};
    let Some(solo) = &s.solo else { return 0.0 };
    let kind = |k: &str| solo.sections.values().filter(|x| *x == k).count();
    let cubes = (kind("wood") + kind("stone") + 2 * kind("tower")) as f64;
    let open = open_wall(s);
    let touched = open.iter().filter(|&&q| builders_touching(s, legion, q) > 0).count();
    // Stone wanted: a top for each Tower missing, a base for each of those
    // beyond the Stone sections standing, and the open squares the Wood
    // (in the Fort or coming back to it) cannot fill.
    let fort = solo.fort.as_ref().map(|f| &f.cubes);
    let held = |k: &str| fort.map_or(0, |c| c.values().filter(|x| *x == k).count());
    let tops = (solo.towers as usize).saturating_sub(kind("tower"));
    let bases = tops.saturating_sub(kind("stone"));
    let wood = held("wood") + solo.restock as usize;
    let wanted = tops + bases.max(open.len().saturating_sub(wood));
    let short = wanted.saturating_sub(held("stone"));
    CUBE * cubes + HALF * touched as f64 - SHORT * short as f64
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

    /// Solo I after its arrange step, the Legion to act.
    fn frontier() -> State {
        use crate::engine::Rules;
        let mut s = Tacticum.setup("frontier").expect("the scenario");
        let orders = [("legion".to_string(), Tacticum.default_orders(&s, "legion"))].into_iter().collect();
        Tacticum.resolve(&mut s, &orders, &mut crate::dice::Imagined::new([3; 32]));
        assert_eq!(s.phase, "turn");
        s
    }

    /// Force-on-Force as set up (S1), Black to act.
    fn force_on_force() -> State {
        set_up("force-on-force")
    }

    /// A scenario as set up, its first turn to play.
    fn set_up(scenario: &str) -> State {
        use crate::engine::Rules;
        let mut s = Tacticum.setup(scenario).expect("the scenario");
        let mut dice = crate::dice::Imagined::new([3; 32]);
        while s.phase != "turn" {
            let a = Tacticum.awaited(&s);
            let orders = a.roles.iter().map(|r| (r.clone(), Tacticum.default_orders(&s, r))).collect();
            Tacticum.resolve(&mut s, &orders, &mut dice);
        }
        s
    }

    /// `army`'s piece on `from` set on `to`.
    fn shift(s: &State, army: &str, from: &str, to: &str) -> State {
        let mut t = s.clone();
        let a = t.army_index(army).expect("army");
        let army = &mut t.armies[a];
        for q in army.infantry.iter_mut().chain(&mut army.grain).chain(std::iter::once(&mut army.commander)) {
            if q == from {
                *q = to.to_string();
            }
        }
        t
    }

    /// Black's Commander as set up (f2, its line behind and beside it) has
    /// one way out, north; a piece stepping off its side opens more, and
    /// its side is worth a Commander one enemy piece short of a Trap more;
    /// in the open each of the four directions is one way out, however
    /// far its line runs; a White piece on f3 Traps it (BT-31).
    #[test]
    fn a_hemmed_in_commander_costs_its_side_and_a_line_is_one_way_out() {
        use crate::rules::tacticum::moves::{liberties, trapped};
        let s = force_on_force();
        let b = s.army_index("black").expect("black");
        assert_eq!(liberties(&s, b), Some(1));
        let open = shift(&s, "black", "e2", "e4");
        assert!(liberties(&open, b) > Some(2), "{:?}", liberties(&open, b));
        let gained = value(&open, "black") - value(&s, "black");
        assert!((gained - HEMMED).abs() < 1e-9, "{gained}");
        assert!((value(&s, "white") - value(&open, "white") - HEMMED).abs() < 1e-9);
        assert_eq!(liberties(&shift(&s, "black", "f2", "f5"), b), Some(4));
        let shut = shift(&s, "white", "a8", "f3");
        assert!(liberties(&shut, b) == Some(0) && trapped(&shut, b));
    }

    /// Where every position is worth the same, the search keeps the first
    /// submission it weighed: the no-moves orders, were they offered. In a
    /// turn with a move to make they are not (BT-4, A-8), so adjutant
    /// moves; where staying is a choice it stays.
    #[test]
    fn adjutant_moves_when_a_move_is_required() {
        use crate::engine::Effort;
        use crate::rules::shared::player::anytime;
        fn flat(_: &State, _: &str) -> f64 {
            0.0
        }
        let s = force_on_force();
        let effort = Effort { candidates: 6, playouts: 2, horizon: 4 };
        let required = Mind { believed, value: flat, draw: Draw::Random, may_stay, breadth: 1 };
        let free = Mind { believed, value: flat, draw: Draw::Random, may_stay: anytime, breadth: 1 };
        for seed in 0..4 {
            let o = required.think(&Tacticum, &s, "black", effort, seed);
            assert!(o.len() == 1 && !matches!(o[0], super::super::Order::Pass), "seed {seed}: {o:?}");
            assert_eq!(free.think(&Tacticum, &s, "black", effort, seed), [], "seed {seed}");
        }
    }

    /// Tacticum weighs twice the configured candidates, each in the same
    /// number of futures: the evaluation is read twice as often (a future
    /// of force-on-force's first turn never ends the game).
    #[test]
    fn tacticum_weighs_twice_the_configured_candidates() {
        use crate::engine::Effort;
        use std::sync::atomic::{AtomicUsize, Ordering};
        static READ: AtomicUsize = AtomicUsize::new(0);
        fn counted(_: &State, _: &str) -> f64 {
            READ.fetch_add(1, Ordering::Relaxed);
            0.0
        }
        let s = force_on_force();
        let effort = Effort { candidates: 5, playouts: 3, horizon: 2 };
        let reads = |breadth: usize| {
            READ.store(0, Ordering::Relaxed);
            Mind { believed, value: counted, draw: Draw::Random, may_stay, breadth }
                .think(&Tacticum, &s, "black", effort, 1);
            READ.load(Ordering::Relaxed)
        };
        assert_eq!((reads(1), reads(MIND.breadth)), (5 * 3, 10 * 3));
    }

    /// V: a Grain wagon's way into the Fort runs through its gate (k2-l2),
    /// so k3, beside its wall, is two steps out; each step the two nearest
    /// wagons take towards it is worth `MARCH` to the Legion, and so is
    /// each step a Rebel takes towards it to the Rebels (S5-12).
    #[test]
    fn a_march_into_the_fort_is_counted_through_its_gate() {
        use crate::rules::tacticum::moves::steps_to;
        // The Commander out of the column the wagons stand in, so that
        // moving them does not change its ways out.
        let s = shift(&set_up("resupply"), "black", "a2", "a4");
        let far = steps_to(&s, &s.fort());
        let at = |c: &str| far[s.index(s.sq(c).expect("a square"))];
        assert_eq!((at("k2"), at("k3"), at("l3")), (1, 2, 0));
        let on = shift(&s, "black", "d2", "h2");
        let gained = value(&on, "black") - value(&s, "black");
        assert!((gained - 4.0 * MARCH).abs() < 1e-9, "{gained}");
        // The third wagon, farther back, is not one of the two to deliver.
        assert_eq!(value(&shift(&s, "black", "b2", "c5"), "black"), value(&s, "black"));
        let rebel = shift(&s, "white", "j6", "k3");
        let lost = value(&s, "black") - value(&rebel, "black");
        assert!(lost > 0.0 && (value(&rebel, "white") - value(&s, "white") - lost).abs() < 1e-9, "{lost}");
    }

    #[test]
    fn the_wall_is_worth_its_cubes_less_the_stone_it_can_no_longer_find() {
        let s = frontier();
        let base = value(&s, "legion");
        // SO1-19: a Tower on a gate's Stone is a second cube.
        let mut tower = s.clone();
        let gate = tower.solo.as_ref().unwrap().gates[0].clone();
        tower.solo.as_mut().unwrap().sections.insert(gate, "tower".into());
        assert!((value(&tower, "legion") - base - CUBE).abs() < 1e-9);
        // With every Stone gone from the Fort the wall is six Stone short:
        // four Towers' tops, and two of the eight open squares the six
        // Wood cannot fill (one of them the fourth Tower's base).
        let mut bare = s.clone();
        bare.solo.as_mut().unwrap().fort.as_mut().unwrap().cubes.retain(|_, k| k != "stone");
        assert!((base - value(&bare, "legion") - 6.0 * SHORT).abs() < 1e-9, "{base} {}", value(&bare, "legion"));
    }

    #[test]
    fn in_solo_i_adjutant_proposes_building_and_the_build_is_accepted() {
        use crate::engine::Rules;
        let s = frontier();
        let mut pick = Pick::new(5);
        let mut built = 0;
        for _ in 0..20 {
            let orders = propose(&s, "legion", &mut |n| pick.below(n));
            if !orders.iter().any(|o| matches!(o, super::super::Order::Supply { .. })) {
                continue;
            }
            assert!(Tacticum.validate(&s, "legion", &orders).is_empty(), "{orders:?}");
            let mut t = s.clone();
            let all = [("legion".to_string(), orders)].into_iter().collect();
            Tacticum.resolve(&mut t, &all, &mut crate::dice::Imagined::new([4; 32]));
            let wall = |x: &State| x.solo.as_ref().unwrap().sections.clone();
            assert_ne!(wall(&t), wall(&s), "{:?} built nothing", all);
            built += 1;
        }
        assert!(built >= 10, "only {built} of 20 proposals built");
    }
}
