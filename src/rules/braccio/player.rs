//! adjutant's play of a side (`rules::shared::player`): the state as the
//! side may know it, and how good a position is for it.

use super::flow::{can_activate, eligible, general_problem};
use super::random::plan_with;
use super::{throws_at_most, Order, OrderKind, Pending, State};
use crate::rules::shared::player::{anytime, Draw, Mind};

/// This game's computer player (`rules::shared::player`).
/// Random submissions are not weighed: random play rolls a Continuum or
/// an Interruptio whatever the Sudden End's chance, which few futures show.
pub const MIND: Mind<State, Order> =
    Mind { believed, value, draw: Draw::Proposed(propose), may_stay: anytime, breadth: 1 };

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
/// that gives the Recovery General Order (5.4.7; Malatesta's, 14.0.1),
/// which alone raises a CC again, so the best released CCs stay high
/// and the Sudden End far (15.3); or one under a General Order, where
/// the Battle may give one (5.2); else the random decision without a
/// pre-committed NEXT, whose roll comes after this activation has
/// lowered a CC, a Braccesca School Battle's fought where it stands; no
/// Continuum; an Interruptio only where no roll can end the battle.
/// Where the side may never roll and its enemy may, one Captain holds
/// the side's best CC up instead of fighting (`anchor`).
///
/// No Continuum, not even where no roll can end the battle (each attempt
/// costs a CC, 4.1, and at Sant'Egidio may raise the Heat, S2.7.1): the
/// Braccesca weighing such Continuums at Sant'Egidio, where Malatesta
/// rolls none, won 398 of 500 games against random play, passing 395
/// (seeds 1 to 5); at L'Aquila, where the League may roll, 60 of 200
/// against 82, its draws up from 63 to 90. An Interruptio takes the
/// enemy's activation.
pub fn propose(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    match &s.pending {
        Pending::Activation { role: r } if r == role && s.first.is_empty() => match anchor(s, role) {
            Some(a) => held(s, role, &a, pick),
            None => activation(s, role, pick),
        },
        Pending::Continuum { role: r } if r == role => vec![Order::Pass],
        Pending::Interruptio { role: r, .. } if r == role && sudden_end(s) > 0.0 => vec![Order::NoInterrupt],
        _ => calm(s, role, pick),
    }
}

/// A Basic Activation: Recovery half the time, a General Order a quarter,
/// where the Battle drawn may give it; else the random decision.
fn activation(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let drawn = match pick(4) {
        0 | 1 => recovery(s, role, pick),
        2 => {
            let can = eligible(s, role, can_activate);
            can.get(pick(can.len().max(1))).and_then(|b| general(s, b, pick))
        }
        _ => None,
    };
    drawn.unwrap_or_else(|| {
        let v = calm(s, role, pick);
        match v.first() {
            Some(Order::Activate { battle, .. }) if s.battle(battle).is_some_and(|b| b.school) => standing(s, v),
            _ => v,
        }
    })
}

/// The Captain who holds `role`'s best CC up against the enemy's rolls:
/// the highest printed CC, where the side may never make a Continuum and
/// its enemy may (S2.6.1). Each of the enemy's Continuum rolls ends the
/// battle in a draw when it exceeds the two sides' best released CCs
/// (15.3), and the side's best is what it alone can keep high.
///
/// Against random play at Sant'Egidio, over 200 games on each of seeds 1,
/// 2 and 3, adjutant as Malatesta won 70, 77 and 67 of 100 holding
/// Pergola so, against 46, 49 and 41 holding none: its draws fell from
/// about half its games to about a quarter. At L'Aquila, where both
/// sides may roll and a sixth of adjutant's games as the League were
/// drawn, holding Caldora (CC 8, the League's best in the field) lost the
/// League 17 of 100 games, and the Braccesca won 7 more holding Braccio,
/// within the spread of 100 games; holding the best CC only once a roll
/// could end the battle lost all of Sant'Egidio's gain. So a side that
/// may roll holds none.
fn anchor(s: &State, role: &str) -> Option<String> {
    if s.may_continuum(role) || !s.may_continuum(s.other(role)) {
        return None;
    }
    s.captains(role).filter(|b| !b.off_map).max_by_key(|b| (b.cc0, b.cc)).map(|b| b.name.clone())
}

/// A Basic Activation that keeps `anchor`'s CC as high as it goes: his
/// first activation releases him (S2.6, A21), for only a released
/// Captain's CC counts (15.3), and gives no order; where his CC is down
/// and he may, he gives the Recovery Order (5.4.7), whose step down
/// comes first (4.0 s2), and nothing else ever activates him, so that
/// no order lowers his CC and his units stay out of the enemy's ZOC,
/// where Recovery is barred. The other Battles fight as `activation`
/// draws them.
fn held(s: &State, role: &str, anchor: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let can = eligible(s, role, can_activate);
    let by =
        |general: Vec<OrderKind>| vec![Order::Activate { battle: anchor.to_string(), general, at: None, face: None }];
    if let Some(b) = s.battle(anchor).filter(|_| can.iter().any(|c| c == anchor)) {
        if !b.released {
            return by(vec![]);
        }
        if b.cc < b.cc0 && general_problem(s, b, &[OrderKind::Recover]).is_ok() {
            return by(vec![OrderKind::Recover]);
        }
    }
    let others = |v: &Vec<Order>| !matches!(v.first(), Some(Order::Activate { battle, .. }) if battle == anchor);
    // Drawn again, up to eight times, while the draw names the anchor:
    // where no other Battle may act, the anchor acts after all.
    let mut v = activation(s, role, pick);
    for _ in 0..8 {
        if others(&v) {
            break;
        }
        v = activation(s, role, pick);
    }
    v
}

/// A Basic Activation that gives the Recovery General Order (5.4.7), by
/// a Battle drawn among those that may and whose CC is down: Malatesta's
/// only, for the Braccesca School gives no General Order (14.0.1).
fn recovery(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Option<Vec<Order>> {
    let can: Vec<String> = eligible(s, role, can_activate)
        .into_iter()
        .filter(|b| {
            s.battle(b)
                .is_some_and(|x| !x.off_map && general_problem(s, x, &[OrderKind::Recover]).is_ok() && x.cc < x.cc0)
        })
        .collect();
    let battle = can.get(pick(can.len().max(1)))?.clone();
    Some(vec![Order::Activate { battle, general: vec![OrderKind::Recover], at: None, face: None }])
}

/// A Basic Activation of `battle` under its General Order (5.2), the
/// double one where it has it (5.2.2): every unit in command may then act
/// whatever the CC, where Individual Orders reach one unit an OP, and a
/// CC falls an activation (4.0 s2). Random play never gives one. Each
/// unit closes, fires, attacks or charges as random play would; a unit
/// whose order the General Order does not give stands (5.2.1).
fn general(s: &State, battle: &str, pick: &mut dyn FnMut(usize) -> usize) -> Option<Vec<Order>> {
    let b = s.battle(battle).filter(|b| !b.off_map)?;
    let kinds: Vec<OrderKind> = if b.double_general.is_empty() {
        vec![OrderKind::Move]
    } else {
        b.double_general.iter().filter_map(|w| OrderKind::from_word(&w.to_uppercase())).collect()
    };
    general_problem(s, b, &kinds).ok()?;
    // Under a General Order the units' orders cost no OP (5.2): the plan
    // is bounded by the units in command, not by the CC.
    let lines = plan_with(s, battle, i32::MAX / 2, true, pick)
        .into_iter()
        .filter(|o| o.kind().is_none_or(|k| kinds.contains(&k)));
    let head = Order::Activate { battle: battle.to_string(), general: kinds.clone(), at: None, face: None };
    Some(std::iter::once(head).chain(lines).collect())
}

/// The chance that a Continuum or Interruptio roll now ends the battle:
/// two dice above the best released CCs of the two sides; none where
/// those make 12 or more, or a side has no released Captain (15.3, A02).
fn sudden_end(s: &State) -> f64 {
    s.sudden_end_ccs().map_or(0.0, |(x, y)| 1.0 - f64::from(throws_at_most(x + y)) / 36.0)
}

/// A Braccesca School Battle's plan (14.0) fought where its units stand:
/// no unit moves or charges, and no Disorganized unit attacks; its units
/// fire, attack what stands in front of them, reorganize or fall back as
/// random play drew them. The School's CC never rises again (no General
/// Order, so no Recovery: 14.0.1, 5.4.7); its horse yields a VP for every
/// CH it takes where foot yields VP only when it routs (15.1.1); and foot
/// that attacks the front of cavalry must first pass a morale test
/// (12.1.5). A line of horse that waits makes the enemy pay to come on.
/// Against random play, over 200 games as the Braccesca on seed 2: 71 won
/// with random plans, 98 with no approach moves, 131 with no moves at
/// all, 146 to 154 when no Disorganized unit attacks either.
fn standing(s: &State, mut v: Vec<Order>) -> Vec<Order> {
    v.retain(|o| match o {
        Order::Move { path, .. } | Order::Charge { path, .. } if !path.is_empty() => false,
        Order::Move { unit, attack: Some(_), .. } => s.unit(unit).is_some_and(|u| !u.disorganized),
        _ => true,
    });
    v
}

/// The random decision, cut before any NEXT.
fn calm(s: &State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Order> {
    let mut v = super::random::decision(s, role, false, pick);
    if let Some(i) = v.iter().position(|o| matches!(o, Order::Next { .. } | Order::Then)) {
        v.truncate(i);
    }
    v
}

/// What the chance of a Sudden End on the enemy's next roll weighs, in
/// VP (15.3 is a draw, which the search scores far below an open game,
/// but a single roll's chance is rarely seen in a few futures). Against
/// random play at Sant'Egidio, over 200 games as Malatesta on seed 3: 80
/// won at 30, 94 at 100, 88 at 200.
const SUDDEN: f64 = 100.0;

/// The chance that the enemy's next roll ends the battle (15.3). adjutant
/// rolls no Continuum, and an Interruptio only where no roll can end the
/// battle (`propose`), so the rolls that can are the enemy's: its
/// Continuums, and its Interruptios, which answer only Continuums. An
/// enemy that may never make a Continuum (Malatesta, S2.6.1) makes none.
fn threat(s: &State, role: &str) -> f64 {
    if s.may_continuum(s.other(role)) {
        sudden_end(s)
    } else {
        0.0
    }
}

/// Victory Points won, levels counted at their worth (15.2), the side's
/// against the enemy's, with the combat units each side still has on the
/// field (a side with none loses, A64) and their order; less the chance
/// that the enemy's next roll exceeds the best released CCs and ends the
/// battle in a draw (15.3): a side that keeps a high CC released
/// (Recovery, 5.4.7) keeps the battle going.
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
    points(role) - points(o) + 0.5 * (field(role) - field(o)) - SUDDEN * threat(s, role)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Effort, Rules};
    use crate::rules::braccio::effects::in_command;
    use crate::rules::braccio::{Braccio, Plan, Policy, Unit, BRACCIO, MALATESTA};
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

    /// A random Sant'Egidio game played until `at` holds, then every
    /// Captain released at `cc`.
    fn until(at: impl Fn(&State) -> bool, cc: i32) -> State {
        let rules = Braccio;
        let mut pick = Pick::new(5);
        let mut dice = crate::dice::Imagined::new([9; 32]);
        let mut s = rules.setup("sant-egidio").expect("scenario");
        for _ in 0..2000 {
            if at(&s) {
                for b in s.battles.iter_mut() {
                    b.cc = cc;
                    b.cc0 = b.cc0.max(cc);
                    b.released = true;
                }
                return s;
            }
            let a = rules.awaited(&s);
            let orders =
                a.roles.iter().map(|r| (r.clone(), rules.random_orders(&s, r, &mut |n| pick.below(n)))).collect();
            rules.resolve(&mut s, &orders, &mut dice);
        }
        panic!("not reached in 2000 random steps");
    }

    /// `braccio`'s Continuum awaited, every Captain released at `cc`.
    fn at_continuum(cc: i32) -> State {
        until(|s| matches!(&s.pending, Pending::Continuum { role } if role == BRACCIO), cc)
    }

    #[test]
    fn the_sudden_end_is_out_of_reach_only_where_the_best_released_ccs_make_twelve() {
        assert!(sudden_end(&at_continuum(5)) > 0.0, "5 + 5: a roll of 11 ends the battle (15.3)");
        assert_eq!(sudden_end(&at_continuum(6)), 0.0, "6 + 6: no two dice exceed 12");
        let mut s = at_continuum(2);
        for b in s.battles.iter_mut().filter(|b| b.side != BRACCIO) {
            b.released = false;
        }
        assert_eq!(sudden_end(&s), 0.0, "a side with no released Captain: no Sudden End (A02)");
    }

    /// At Sant'Egidio only the Braccesca may roll a Continuum (S2.6.1):
    /// Malatesta weighs the chance that its roll ends the battle, and the
    /// Braccesca, whose enemy rolls none, does not.
    #[test]
    fn only_an_enemy_that_may_roll_a_continuum_threatens_a_sudden_end() {
        let (near, far) = (at_continuum(3), at_continuum(6));
        assert!(sudden_end(&near) > 0.0 && sudden_end(&far) == 0.0, "3 + 3: a roll of 7 ends the battle");
        assert!(value(&near, MALATESTA) < value(&far, MALATESTA) - 10.0, "Malatesta fears the Braccesca's rolls");
        assert_eq!(value(&near, BRACCIO), value(&far, BRACCIO), "Malatesta rolls no Continuum");
    }

    /// The ban `threat` reads is the one the rules enforce: a Malatestan
    /// NEXT CONTINUUM is refused for it (S2.6.1), a Braccesca one is not.
    #[test]
    fn malatesta_may_not_precommit_a_continuum() {
        let rules = Braccio;
        for (role, other) in [(MALATESTA, "Pergola"), (BRACCIO, "Piccinino")] {
            let s =
                until(|s| s.first.is_empty() && matches!(&s.pending, Pending::Activation { role: r } if r == role), 6);
            let battle = eligible(&s, role, can_activate).into_iter().find(|b| b != other).expect("a Battle");
            let orders = vec![
                Order::Activate { battle, general: vec![], at: None, face: None },
                Order::Next { what: other.into() },
            ];
            let refused = rules.validate(&s, role, &orders).iter().any(|(_, p)| p.reason.contains("S2.6.1"));
            assert_eq!(refused, role == MALATESTA, "{role}: {:?}", rules.validate(&s, role, &orders));
        }
    }

    /// Random play would attempt the Continuum three times in four; the
    /// search, weighing random submissions, took it where its few futures
    /// happened to miss the Sudden End.
    #[test]
    fn adjutant_passes_the_continuum_it_could_roll() {
        let rules = Braccio;
        let effort = Effort { candidates: 12, playouts: 4, horizon: 6 };
        for cc in [3, 5, 8] {
            let s = at_continuum(cc);
            assert!(!eligible(&s, BRACCIO, super::super::flow::can_continuum).is_empty(), "CC {cc}: one could");
            for seed in 0..8 {
                let o = rules.think(&s, BRACCIO, effort, seed).expect("a computer player");
                assert!(matches!(o.as_slice(), [Order::Pass]), "CC {cc}, seed {seed}: {o:?}");
            }
        }
    }

    /// An Interruptio is proposed only where its roll cannot end the
    /// battle, and then it is.
    #[test]
    fn adjutant_interrupts_only_where_no_roll_ends_the_battle() {
        let at = |s: &State| matches!(&s.pending, Pending::Interruptio { role, .. } if role == MALATESTA);
        let mut pick = Pick::new(3);
        let proposed = |s: &State, pick: &mut Pick| {
            (0..20)
                .filter(|_| {
                    matches!(propose(s, MALATESTA, &mut |n| pick.below(n)).first(), Some(Order::Interrupt { .. }))
                })
                .count()
        };
        assert_eq!(proposed(&until(at, 5), &mut pick), 0, "5 + 5: a roll of 11 ends the battle");
        assert!(proposed(&until(at, 6), &mut pick) > 0, "6 + 6: no roll ends it");
    }

    /// Malatesta's Captains give General Orders, the double ones where
    /// the scenario grants them (S2.3), with only their orders beneath;
    /// Recovery, a General Order too, alone and by a Battle whose CC is
    /// down (5.4.7); the Braccesca School gives none, Recovery included
    /// (14.0.1).
    #[test]
    fn adjutant_gives_the_general_orders_and_recoveries_its_captains_may() {
        let rules = Braccio;
        let mut pick = Pick::new(8);
        for role in [MALATESTA, BRACCIO] {
            let s =
                until(|s| s.first.is_empty() && matches!(&s.pending, Pending::Activation { role: r } if r == role), 6);
            let mut doubles = 0;
            let mut generals = 0;
            let mut recoveries = 0;
            for _ in 0..60 {
                let o = activation(&s, role, &mut |n| pick.below(n));
                assert!(rules.validate(&s, role, &o).is_empty(), "{role}: {o:?}");
                let Some(Order::Activate { battle, general, .. }) = o.first() else { panic!("{o:?}") };
                if general.is_empty() {
                    continue;
                }
                assert_eq!(role, MALATESTA, "the Braccesca School gives no General Order, Recovery included: {o:?}");
                if general == &[OrderKind::Recover] {
                    let b = s.battle(battle).expect("battle");
                    assert!(o.len() == 1 && b.cc < b.cc0, "Recovery alone, by a Battle whose CC is down: {o:?}");
                    recoveries += 1;
                    continue;
                }
                generals += 1;
                doubles += usize::from(general.len() == 2);
                let b = s.battle(battle).expect("battle");
                assert_eq!(general.len(), b.double_general.len().max(1), "{battle}: {general:?}");
                assert!(o[1..].iter().all(|x| x.kind().is_some_and(|k| general.contains(&k))), "{o:?}");
            }
            if role == MALATESTA {
                assert!(generals > 10 && doubles > 0, "{generals} General Orders, {doubles} double");
                assert!(recoveries > 10, "{recoveries} Recoveries of 60");
            }
        }
    }

    /// Malatesta, who may never roll while the Braccesca may (S2.6.1),
    /// holds Pergola's CC 7 up: his first activation releases him with no
    /// order, his CC once down is recovered (5.4.7), and nothing else
    /// activates him. A side that may roll, or whose enemy may not, holds
    /// no Captain so.
    #[test]
    fn malatesta_holds_its_best_cc_up_with_one_captain() {
        let rules = Braccio;
        let mut pick = Pick::new(11);
        let s =
            until(|s| s.first.is_empty() && matches!(&s.pending, Pending::Activation { role } if role == MALATESTA), 6);
        assert_eq!(anchor(&s, MALATESTA).as_deref(), Some("Pergola"));
        assert_eq!(anchor(&s, BRACCIO), None, "Malatesta never rolls a Continuum");
        let laquila = rules.setup("laquila").expect("scenario");
        assert_eq!((anchor(&laquila, BRACCIO), anchor(&laquila, "league")), (None, None), "both sides may roll");

        let with = |released: bool, cc: i32| {
            let mut t = s.clone();
            let b = t.battle_mut("Pergola").expect("Pergola");
            (b.released, b.cc) = (released, cc);
            t
        };
        let mut only = |t: &State, general: Vec<OrderKind>| {
            let o = propose(t, MALATESTA, &mut |n| pick.below(n));
            assert!(rules.validate(t, MALATESTA, &o).is_empty(), "{o:?}");
            assert_eq!(o, vec![Order::Activate { battle: "Pergola".into(), general, at: None, face: None }]);
        };
        only(&with(false, 7), vec![]);
        let down = with(true, 6);
        let b = down.battle("Pergola").expect("Pergola");
        assert!(general_problem(&down, b, &[OrderKind::Recover]).is_ok(), "Pergola may recover here");
        only(&down, vec![OrderKind::Recover]);

        let full = with(true, 7);
        for _ in 0..60 {
            let o = propose(&full, MALATESTA, &mut |n| pick.below(n));
            assert!(rules.validate(&full, MALATESTA, &o).is_empty(), "{o:?}");
            assert!(
                !matches!(o.first(), Some(Order::Activate { battle, .. }) if battle == "Pergola"),
                "Pergola at his full CC is not activated: {o:?}"
            );
        }
    }

    /// A Braccesca School Battle's plan moves no unit and sends no
    /// Disorganized unit to attack, where random plans for the same
    /// Captain move units and send Disorganized ones to attack.
    #[test]
    fn the_school_fights_where_it_stands() {
        // A unit of a Battle that may be activated now, an enemy unit in
        // one of its front hexes.
        let facing_enemy = |s: &State, u: &Unit| {
            eligible(s, BRACCIO, can_activate).contains(&u.battle)
                && !u.ordered
                && in_command(s, &u.battle, &u.squad).contains(&u.name)
                && s.front_hexes(u).iter().any(|h| s.unit_at(*h).is_some_and(|e| e.side != u.side))
        };
        let mut s = until(
            |s| {
                s.first.is_empty()
                    && matches!(&s.pending, Pending::Activation { role } if role == BRACCIO)
                    && s.units.iter().filter(|u| u.side == BRACCIO && u.alive()).any(|u| facing_enemy(s, u))
            },
            6,
        );
        let engaged: Vec<String> = s
            .units
            .iter()
            .filter(|u| u.side == BRACCIO && u.alive() && facing_enemy(&s, u))
            .map(|u| u.name.clone())
            .collect();
        for u in s.units.iter_mut().filter(|u| engaged.contains(&u.name)) {
            u.disorganized = true;
        }
        let moves = |o: &[Order]| {
            o.iter().any(|x| matches!(x, Order::Move { path, .. } | Order::Charge { path, .. } if !path.is_empty()))
        };
        let disorganized_attacks = |o: &[Order]| {
            o.iter().any(|x| {
                matches!(x, Order::Move { unit, attack: Some(_), .. } if s.unit(unit).is_some_and(|u| u.disorganized))
            })
        };
        let mut pick = Pick::new(4);
        let random: Vec<Vec<Order>> = (0..60).map(|_| calm(&s, BRACCIO, &mut |n| pick.below(n))).collect();
        assert!(random.iter().filter(|o| moves(o)).count() > 5, "random plans move units");
        assert!(random.iter().any(|o| disorganized_attacks(o)), "random plans send Disorganized units to attack");
        for _ in 0..60 {
            let o = propose(&s, BRACCIO, &mut |n| pick.below(n));
            assert!(matches!(o.first(), Some(Order::Activate { .. })), "{o:?}");
            assert!(!moves(&o) && !disorganized_attacks(&o), "{o:?}");
        }
    }

    #[test]
    fn what_adjutant_believes_and_plays_does_not_depend_on_the_enemys_secrets() {
        blind::check(&Braccio, "sant-egidio", &[BRACCIO, MALATESTA], 60, other_secrets, believed);
    }
}
