//! The course of play by mail (3.0, 4.0-4.4; brief 3.3): a step awaits
//! one role; `resolve` applies its mail and runs on through every
//! automatic segment (plans, the other side's policies, rolls, passes)
//! until a decision no line and no policy answers. Continuum and
//! Interruptio rolls with the Sudden End, War Fortune and Heat (4.1, 4.2,
//! 4.4.1, 15.3, S2.7.1); the end of an activation with Victory Level
//! Acceleration (15.2.1).

use super::act;
use super::effects::{self, d2};
use super::melee;
use super::orders::PolicyLine;
use super::*;
use crate::dice::Serves;

/// A plan split at its `NEXT` and `THEN` (brief 3.5).
pub struct Split<'a> {
    pub head: &'a [Order],
    pub next: Option<String>,
    pub then: &'a [Order],
}

pub fn split(plan: &[Order]) -> Split<'_> {
    let n = plan.iter().position(|o| matches!(o, Order::Next { .. } | Order::Then)).unwrap_or(plan.len());
    let next = match plan.get(n) {
        Some(Order::Next { what }) => Some(what.clone()),
        _ => None,
    };
    let t = plan.iter().position(|o| matches!(o, Order::Then)).map(|i| i + 1).unwrap_or(plan.len());
    Split { head: &plan[..n], next, then: &plan[t.min(plan.len())..] }
}

/// Why `battle` may not be activated by `role` in a Basic Activation.
pub fn can_activate(s: &State, role: &str, battle: &str) -> Result<(), String> {
    let b = s.battle(battle).ok_or("no such Battle")?;
    if b.side != role {
        return Err(format!("{battle} is a {} Captain", side_name(&b.side)));
    }
    if b.removed {
        return Err(format!("{battle}'s Battle has left the game"));
    }
    if !s.first.is_empty() && s.first != super::free::ANY && s.first != battle {
        return Err(format!("the game begins with {}'s activation ({})", s.first, s.rule("S2.2", "S4.2")));
    }
    let entry = s.entries.iter().find(|e| e.battle == battle);
    if let Some(e) = entry.filter(|e| b.off_map || (!b.released && e.target > 0)) {
        let own = s.vl.get(role).copied().unwrap_or(0);
        if own < e.own_vl_min {
            return Err(format!(
                "{battle}'s Battle {} only once the {} VL is {} or more; it is {own} ({})",
                if b.off_map { "enters" } else { "can be activated" },
                side_name(role),
                e.own_vl_min,
                if b.off_map { "A43" } else { "S4.6.1" }
            ));
        }
    }
    if b.off_map {
        let e = entry.ok_or_else(|| format!("{battle}'s Battle is not on the map"))?;
        let o = s.other(role);
        let enemy_vl = s.vl.get(o).copied().unwrap_or(0);
        if enemy_vl < e.enemy_vl_min {
            return Err(format!(
                "{battle}'s Battle enters only once the {} VL is {} or more; it is {enemy_vl} (S2.10.2)",
                side_name(o),
                e.enemy_vl_min
            ));
        }
        if !e.after.is_empty() && s.battle(&e.after).map(|x| x.off_map).unwrap_or(true) {
            return Err(format!("{battle}'s Battle enters only after {}'s (A43)", e.after));
        }
        let own = s.vl.get(role).copied().unwrap_or(0);
        if e.vl_cost > 0 && own < e.vl_cost {
            return Err(format!(
                "its entry costs {} VL and the {} VL is {own} (S2.10.2, A24)",
                e.vl_cost,
                side_name(role)
            ));
        }
        if open_lines(s, role, e).is_empty() {
            return Err(if e.hexes.is_empty() {
                format!("an enemy unit stands in or beside every line {battle}'s Battle may enter on (S2.10.2)")
            } else {
                format!("too few of {battle}'s entry hexes are free and clear of enemy units (A43)")
            });
        }
    }
    if !s.confusion.is_empty() && s.confusion != battle {
        return Err(format!("Confusion (16.1): the enemy chose {}'s Battle for this activation", s.confusion));
    }
    // Only when the enemy could not act does a side activate again, and
    // then not the Captain just activated past the limit (4.3, 14.0.2,
    // A64).
    if s.marker == battle && b.school {
        return Err(format!(
            "a Braccesca Captain cannot make a second activation (14.0.2); {battle} was just activated"
        ));
    }
    if s.marker == battle && s.marker_count >= 2 {
        return Err(format!("{battle} has made two activations in a row (4.3)"));
    }
    Ok(())
}

/// The lines an entering Battle may be placed on (S2.10.2, A24): no
/// enemy unit in or beside any of its hexes, every hex free and passable,
/// one hex a unit at least. Each with its hexes, in order.
pub fn open_lines(s: &State, role: &str, e: &Entry) -> Vec<(String, Vec<Hex>)> {
    let g = s.grid();
    let need = s.units.iter().filter(|u| u.battle == e.battle).count();
    let enemy = |h: Hex| s.unit_at(h).map(|u| u.side != role).unwrap_or(false);
    if !e.hexes.is_empty() {
        // Hexes, not a line (A43): those free and clear of the enemy.
        let ok: Vec<Hex> = e
            .hexes
            .iter()
            .filter_map(|h| Hex::parse(h))
            .filter(|h| s.passable(*h) && s.unit_at(*h).is_none() && !g.neighbours(*h).into_iter().any(enemy))
            .collect();
        return if ok.len() >= need { vec![(String::new(), ok)] } else { Vec::new() };
    }
    e.lines
        .iter()
        .filter_map(|name| {
            let l = s.map.line.iter().find(|l| &l.name == name)?;
            let hexes: Vec<Hex> = g
                .line(Hex::parse(&l.from)?, Hex::parse(&l.to)?)
                .into_iter()
                .filter_map(|c| if let crate::rules::shared::hex::Crossing::One(h) = c { Some(h) } else { None })
                .collect();
            let closed = hexes.iter().any(|h| enemy(*h) || g.neighbours(*h).into_iter().any(enemy));
            let free = hexes.iter().filter(|h| s.passable(**h) && s.unit_at(**h).is_none()).count();
            (!closed && free >= need).then(|| (name.clone(), hexes))
        })
        .collect()
}

/// A Battle that begins inactive and is released by a roll (Testa,
/// S4.6.1): 2d6 of at least its target plus one for every two (or
/// fraction) enemy VL (A06). A failure is a pass: no CC spent, no VL
/// Acceleration, no Continuum (A07). True when the activation goes on.
fn activation_roll(s: &mut State, role: &str, battle: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> bool {
    let Some(b) = s.battle(battle) else { return true };
    let Some(e) = s.entries.iter().find(|e| e.battle == battle && e.target > 0 && !b.released) else { return true };
    let enemy_vl = s.vl.get(s.other(role)).copied().unwrap_or(0);
    let need = e.need(enemy_vl);
    let (a, b) = d2(dice, &format!("{battle}'s activation roll (needs {need})"), &Serves::high(role));
    if a + b >= need {
        ev.push(Event::all(format!(
            "{battle}'s activation roll: {a} + {b} = {} against {need} ({} + 1 for every two {} VL, {enemy_vl}): his Battle is activated (S4.6.1, A06).",
            a + b,
            e.target,
            side_name(s.other(role))
        )));
        true
    } else {
        ev.push(Event::all(format!(
            "{battle}'s activation roll: {a} + {b} = {} against {need}: it fails, and the {} player is considered to have passed (S4.6.1, A07).",
            a + b,
            side_name(role)
        )));
        false
    }
}

/// A Battle enters the map (S2.10.2): its VL cost paid, its CC on its
/// side's VL before the payment (A24), its units on the line in order.
fn enter(s: &mut State, role: &str, battle: &str, line: &str, face: Option<Vertex>, ev: &mut Vec<Event>) {
    let Some(e) = s.entries.iter().find(|e| e.battle == battle).cloned() else { return };
    let Some((_, hexes)) = open_lines(s, role, &e).into_iter().find(|(n, _)| n == line) else { return };
    let vl = s.vl.get(role).copied().unwrap_or(0);
    *s.vl.entry(role.to_string()).or_insert(0) -= e.vl_cost;
    let names: Vec<String> = s.units.iter().filter(|u| u.battle == battle).map(|u| u.name.clone()).collect();
    let free: Vec<Hex> =
        hexes.into_iter().filter(|h| s.passable(*h) && s.unit_at(*h).is_none()).take(names.len()).collect();
    // On a line, one facing for all (west unless named); on hexes, each
    // unit its own unless one is named.
    let lined = e.hexes.is_empty();
    for (n, h) in names.iter().zip(&free) {
        let u = s.unit_mut(n).expect("unit");
        u.hex = h.to_string();
        if let Some(v) = face.or(lined.then_some(Vertex::W)) {
            u.facing = v;
        }
    }
    let (lo, hi) = (s.tables.cat.min, s.tables.cat.max);
    let b = s.battle_mut(battle).expect("battle");
    b.off_map = false;
    b.released = true;
    b.captain.hex = free.first().map(|h| h.to_string()).unwrap_or_default();
    let at = free.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" ");
    if lined {
        let cc = vl.clamp(lo, hi);
        b.cc = cc;
        b.cc0 = cc;
        ev.push(Event::all(format!(
            "{battle}'s Battle enters on the {line} line ({at}), facing {}: {} VL paid, its CC on box {cc}, the {} VL before it (S2.10.2, A24).",
            orders::vertex_word(face.unwrap_or(Vertex::W)),
            e.vl_cost,
            side_name(role)
        )));
    } else {
        // At its initial value, whatever War Fortune did to it off the map.
        b.cc = b.cc0;
        let cc = b.cc;
        ev.push(Event::all(format!("{battle}'s Battle enters the map at {at}, its CC {cc} (S4.6, A43).")));
    }
}

/// Why `battle` may not be the enemy Battle a Confusion activates (16.1,
/// A31): the other side's, released (not in reserve, A01).
pub fn can_confuse(s: &State, role: &str, battle: &str) -> Result<(), String> {
    let b = s.battle(battle).ok_or("no such Battle")?;
    if b.side == role {
        return Err(format!("{battle} is your own Captain: Confusion activates an opposing Battle (16.1)"));
    }
    if b.removed || !b.released || b.off_map {
        return Err(format!("{battle}'s Battle is in reserve (16.1, A01)"));
    }
    Ok(())
}

/// Why `battle` may not attempt a Continuum now (4.1, 4.3, 14.0.2,
/// S2.6.1).
pub fn can_continuum(s: &State, role: &str, battle: &str) -> Result<(), String> {
    let b = s.battle(battle).ok_or("no such Battle")?;
    if b.side != role {
        return Err(format!("{battle} is a {} Captain", side_name(&b.side)));
    }
    if !s.may_continuum(role) {
        return Err(format!("{} Captains can never make a Continuum (S2.6.1)", side_name(role)));
    }
    if b.removed || !b.released {
        return Err(format!("{battle}'s Battle is not released (A01)"));
    }
    if b.cc < 2 {
        return Err(format!("{battle} has CC {}; a Continuum needs CC 2 or more (4.1)", b.cc));
    }
    if s.marker == battle && s.marker_count >= 2 {
        return Err(format!("{battle} has made two activations in a row (4.3)"));
    }
    if b.school && s.last == battle {
        return Err(format!(
            "a Braccesca Captain cannot make a second activation (14.0.2); {battle} was just activated"
        ));
    }
    Ok(())
}

/// Why `battle` may not attempt an Interruptio now (4.2).
pub fn can_interrupt(s: &State, role: &str, battle: &str) -> Result<(), String> {
    let b = s.battle(battle).ok_or("no such Battle")?;
    if b.side != role {
        return Err(format!("{battle} is a {} Captain", side_name(&b.side)));
    }
    if b.removed || !b.released {
        return Err(format!("{battle}'s Battle is not released (A01)"));
    }
    if b.cc < 2 {
        return Err(format!("{battle} has CC {}; an Interruptio needs CC 2 or more (4.2)", b.cc));
    }
    Ok(())
}

/// The enemy Battles a Confusion may activate (16.1).
pub fn confusable(s: &State, role: &str) -> Vec<String> {
    s.battles.iter().filter(|b| can_confuse(s, role, &b.name).is_ok()).map(|b| b.name.clone()).collect()
}

pub fn eligible(s: &State, role: &str, test: Test) -> Vec<String> {
    s.battles.iter().filter(|b| b.side == role && test(s, role, &b.name).is_ok()).map(|b| b.name.clone()).collect()
}

/// A check of whether a role's Battle may do something now.
pub type Test = fn(&State, &str, &str) -> Result<(), String>;

/// Apply a mail's policy lines to its role (3.4): secret, told to the
/// owner alone.
fn set_policies(s: &mut State, role: &str, orders: &[Order], ev: &mut Vec<Event>) {
    let p = s.policies.entry(role.to_string()).or_default();
    for o in orders {
        let Order::Policy(line) = o else { continue };
        match line {
            PolicyLine::Interrupt(m, min) => {
                p.interrupt = m.clone();
                p.interrupt_min = *min;
            }
            PolicyLine::Fire(m) => p.fire = m.clone(),
            PolicyLine::Retreat(m) => p.retreat = m.clone(),
            PolicyLine::Adjutant(b, u) => {
                p.adjutant.insert(b.clone(), u.clone());
            }
            PolicyLine::Escape(b, h) => {
                p.escape.insert(b.clone(), h.clone());
            }
            PolicyLine::Face(m, n) => {
                p.face = m.clone();
                p.face_min = *n;
            }
            PolicyLine::Counter(m, n) => {
                p.counter = m.clone();
                p.counter_min = *n;
            }
        }
        ev.push(Event::only(role, format!("Your standing policy is now: {o}.")));
        ev.push(Event::gm(format!("{} policy: {o}.", side_name(role))));
    }
}

pub fn resolve(s: &mut State, orders: &BTreeMap<String, Vec<Order>>, dice: &mut dyn Dice) -> Vec<Event> {
    let mut ev = Vec::new();
    s.marks.clear();
    for (role, list) in orders {
        set_policies(s, role, list, &mut ev);
    }
    // Both sides at once; their policy lines and PASS place nothing.
    if let Pending::Rows { roles } = s.pending.clone() {
        super::rows::resolve(s, &roles, orders, &mut ev);
        return ev;
    }
    let Some(role) = s.pending.role().map(String::from) else { return ev };
    let mine: Vec<Order> =
        orders.get(&role).map(|l| l.iter().filter(|o| !o.is_policy()).cloned().collect()).unwrap_or_default();
    match s.pending.clone() {
        Pending::Activation { .. } => {
            let Some(Order::Activate { battle, general, at, face }) = mine.first().cloned() else {
                // A silent player with no Captain to name (A64).
                ev.push(Event::all(format!("{} has no Captain to activate: the turn passes.", side_name(&role))));
                pass_turn(s, &role, &mut ev);
                return ev;
            };
            s.first.clear();
            s.first_caricas = 0;
            if s.battle(&battle).map(|b| b.off_map).unwrap_or(false) {
                enter(s, &role, &battle, at.as_deref().unwrap_or(""), face, &mut ev);
            }
            if !activation_roll(s, &role, &battle, dice, &mut ev) {
                pass_turn(s, &role, &mut ev);
                return ev;
            }
            start(s, &role, &battle, Via::Basic, general, &mine[1..], dice, &mut ev);
        }
        Pending::Continuum { .. } => match mine.first() {
            Some(Order::Continuum { battle }) => {
                let plan = lines(&mine[1..]);
                attempt_continuum(s, &role, battle, plan, dice, &mut ev);
            }
            _ => {
                ev.push(Event::all(format!("{} passes.", side_name(&role))));
                pass_turn(s, &role, &mut ev);
            }
        },
        Pending::Interruptio { against, .. } => match mine.first() {
            Some(Order::Interrupt { battle }) => {
                let plan = lines(&mine[1..]);
                attempt_interrupt(s, &role, battle, plan, &against, dice, &mut ev);
            }
            _ => {
                ev.push(Event::all(format!("{} makes no Interruptio.", side_name(&role))));
                run_continuum(s, s.other(&role), &against, dice, &mut ev);
            }
        },
        Pending::Setup { what, .. } => super::free::resolve(s, &role, &what, &mine, &mut ev),
        Pending::Confusion { .. } => {
            let pick = match mine.first() {
                Some(Order::Confusion { battle }) => battle.clone(),
                _ => confusion_default(s, &role).unwrap_or_default(),
            };
            let owner = s.battle(&pick).map(|b| b.side.clone()).unwrap_or_else(|| s.other(&role).to_string());
            ev.push(Event::all(format!(
                "{} chooses {pick}'s Battle: {} activates it, then makes its own Basic Activation (16.1).",
                side_name(&role),
                side_name(&owner)
            )));
            s.confusion = pick;
            s.pending = Pending::Activation { role: owner };
        }
        Pending::Orders { captain, via, .. } => {
            if s.act.as_ref().map(|a| a.battle == captain).unwrap_or(false) {
                ev.push(Event::all(format!("{captain}'s activation goes on.")));
                run(s, &role, &mine, dice, &mut ev);
            } else {
                start(s, &role, &captain, via, Vec::new(), &mine, dice, &mut ev);
            }
        }
        Pending::Rows { .. } | Pending::Over => {}
    }
    ev
}

fn lines(plan: &[Order]) -> Option<Vec<String>> {
    (!plan.is_empty()).then(|| plan.iter().map(|o| o.to_string()).collect())
}

fn parse_plan(s: &State, role: &str, lines: &[String], ev: &mut Vec<Event>) -> Vec<Order> {
    let mut v = Vec::new();
    for l in lines {
        match orders::parse(s, role, l) {
            Ok(o) => v.push(o),
            Err(p) => ev.push(Event::all(format!("{l}: skipped, {}.", p.reason))),
        }
    }
    v
}

/// Segments 1-3 of an activation (4.0), then the plan.
#[allow(clippy::too_many_arguments)]
fn start(
    s: &mut State,
    role: &str,
    battle: &str,
    via: Via,
    general: Vec<OrderKind>,
    plan: &[Order],
    dice: &mut dyn Dice,
    ev: &mut Vec<Event>,
) {
    let Some(b) = s.battle(battle).cloned() else { return };
    // A plan that opens with a General Order (a Continuum's, 4.0 s1);
    // never an Interruptio's (4.0 1.a), whose line is then skipped.
    let (general, plan) = match plan.first() {
        Some(Order::General { kinds }) if general.is_empty() && via != Via::Interruptio => (kinds.clone(), &plan[1..]),
        _ => (general, plan),
    };
    // A plan written before (THEN) meets the Battle as it is now.
    let general = match general_problem(s, &b, &general) {
        Err(why) if !general.is_empty() => {
            ev.push(Event::all(format!("The General Order: skipped, {why}; Individual Orders instead.")));
            Vec::new()
        }
        _ => general,
    };
    if !b.released {
        s.battle_mut(battle).expect("battle").released = true;
        let by_roll = s.entries.iter().any(|e| e.battle == battle && e.target > 0);
        ev.push(Event::all(if by_roll {
            format!("{battle}'s Battle is released by its activation roll (S4.6.1).")
        } else {
            format!("{battle}'s Battle is released by its Basic Activation (S2.6, A21).")
        }));
    }
    let op = if general.is_empty() { b.cc } else { 0 };
    let cc = (b.cc - 1).max(s.tables.cat.min);
    s.battle_mut(battle).expect("battle").cc = cc;
    if s.marker == battle {
        s.marker_count += 1;
    } else {
        s.marker = battle.to_string();
        s.marker_count = 1;
    }
    s.op = op;
    s.activations += 1;
    // Fired markers off (4.0 s3); one order a unit and one Countercharge
    // a unit an activation (5.0.1, 12.2); reaction pivots counted afresh.
    for u in s.units.iter_mut() {
        u.fired = false;
        u.ordered = false;
        u.countered = false;
        u.pivoted = false;
    }
    for bb in s.battles.iter_mut() {
        bb.captain.moved = false;
        for q in bb.squads.iter_mut() {
            q.leader.moved = false;
        }
    }
    let how = match via {
        Via::Basic => "Basic Activation",
        Via::Continuum => "Continuum",
        Via::Interruptio => "Interruptio",
    };
    let orders_text = if general.is_empty() {
        format!("Individual Orders, {op} OP")
    } else {
        format!("General Order {}", general.iter().map(|k| k.word()).collect::<Vec<_>>().join(" + "))
    };
    ev.push(Event::all(format!(
        "{} is active ({how}): {orders_text}; CC {} to {cc}; {} activation in a row.",
        b.captain.name,
        b.cc,
        if s.marker_count >= 2 { "second" } else { "first" }
    )));
    s.act = Some(Act {
        role: role.to_string(),
        battle: battle.to_string(),
        via,
        general: general.clone(),
        squad: String::new(),
        squads_done: Vec::new(),
        attacks: Vec::new(),
        carica: Vec::new(),
        combats: Vec::new(),
        standard_moved: false,
    });
    if general == [OrderKind::Recover] {
        let roll = effects::d6(dice, &format!("recovery, {battle}"), &Serves::high(role));
        let up = (roll + 1) / 2;
        let bb = s.battle_mut(battle).expect("battle");
        bb.cc = (bb.cc + up).min(bb.cc0);
        ev.push(Event::all(format!("Recovery: {roll}, halved up to {up}: {battle}'s CC rises to {} (5.4.7).", bb.cc)));
    }
    run(s, role, plan, dice, ev);
}

/// Run plan lines in the running activation; at its end (not a `WAIT`),
/// close it.
fn run(s: &mut State, role: &str, plan: &[Order], dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let sp = split(plan);
    for o in sp.head {
        if s.outcome.is_some() {
            break;
        }
        match o {
            Order::Wait => {
                let a = s.act.clone().expect("running");
                ev.push(Event::all(format!(
                    "{} waits to see: the activation goes on in the next mail ({} OP left).",
                    a.battle, s.op
                )));
                s.pending = Pending::Orders { role: role.to_string(), captain: a.battle, via: a.via };
                return;
            }
            Order::Squad { leader } => {
                melee::segment(s, dice, ev);
                let Some(a) = s.act.clone() else { return };
                let b = s.battle(&a.battle).cloned().expect("battle");
                let Some(q) = b.squads.iter().find(|q| &q.leader.name == leader) else { continue };
                // 14.2.1: the Squad Leader within the Captain's radius, by a
                // path clear of enemy units (5.1).
                let (cap, lh) = (Hex::parse(&b.captain.hex), Hex::parse(&q.leader.hex));
                let within = match (cap, lh) {
                    (Some(c), Some(l)) => {
                        let enemy = |h: Hex| s.unit_at(h).map(|u| u.side != b.side).unwrap_or(false);
                        s.grid()
                            .reach(l, b.captain.radius.max(0) as u32, |_, n| (!enemy(n)).then_some(1), |_| false)
                            .contains_key(&c)
                    }
                    _ => false,
                };
                let a = s.act.as_mut().expect("running");
                a.squads_done.push(q.letter.clone());
                if within {
                    a.squad = q.letter.clone();
                    ev.push(Event::all(format!("Squad {leader} takes its orders (14.1.2).")));
                } else {
                    a.squad = format!("{}?", q.letter);
                    ev.push(Event::all(format!(
                        "{leader} is beyond {}'s command radius: his squad cannot be activated (14.2.1).",
                        b.captain.name
                    )));
                }
            }
            o => act::line(s, o, dice, ev),
        }
        melee::capture_pending(s, dice, ev);
    }
    if s.outcome.is_none() {
        melee::segment(s, dice, ev);
        melee::capture_pending(s, dice, ev);
    }
    if let Some(n) = sp.next.clone() {
        s.next.insert(role.to_string(), n);
        s.plans.retain(|p| p.role != role);
        if let Some(l) = lines(sp.then) {
            s.plans.push(Plan { role: role.to_string(), lines: l });
        }
    }
    end_activation(s, role, dice, ev);
}

/// The end of an activation: VL Acceleration (15.2.1, S2.7.3), markers
/// off (10.1.3), the victory checks, then the Continuum segment.
fn end_activation(s: &mut State, role: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let battle = s.act.as_ref().map(|a| a.battle.clone()).unwrap_or_default();
    s.act = None;
    for u in s.units.iter_mut() {
        u.fired = false;
    }
    s.last = battle;
    if s.outcome.is_none() {
        let vl = s.vl.get(role).copied().unwrap_or(0);
        let (a, b) = d2(dice, &format!("VL acceleration, {role} (VL {vl})"), &Serves::low(role));
        let heat_end = s.heat.as_ref().map(|h| h.at >= h.boxes.len()).unwrap_or(false);
        if heat_end && a + b >= 11 {
            let why =
                format!("the Heat is in its last box and the VL Acceleration roll is {}: the day ends (S2.7.3)", a + b);
            let foe = s.other(BRACCIO);
            ev.push(Event::all(format!("{why}: {} victory.", side_name(foe))));
            s.outcome = Some(Outcome::won(foe, why));
            s.pending = Pending::Over;
            return;
        }
        if a + b <= vl {
            *s.vl.entry(role.to_string()).or_insert(0) += 1;
            ev.push(Event::all(format!(
                "VL Acceleration: {a}+{b} = {} against VL {vl}: {} VL rises to {} (15.2.1).",
                a + b,
                side_name(role),
                vl + 1
            )));
            effects::win_on_vl(s, role, ev);
        } else {
            ev.push(Event::all(format!("VL Acceleration: {a}+{b} = {} against VL {vl}: no change (15.2.1).", a + b)));
        }
    }
    ends(s, ev);
    if s.outcome.is_some() {
        s.pending = Pending::Over;
        return;
    }
    // After a Confusion activation its owner makes his own Basic
    // Activation, with no Continuum segment between (16.1, A31).
    if !s.confusion.is_empty() {
        s.confusion.clear();
        s.next.remove(role);
        s.plans.retain(|p| p.role != role);
        s.pending = Pending::Activation { role: role.to_string() };
        return;
    }
    continuum_segment(s, role, dice, ev);
}

/// A side with no combat unit on the map loses (A64).
fn ends(s: &mut State, ev: &mut Vec<Event>) {
    if s.outcome.is_some() {
        return;
    }
    for side in s.roles() {
        if !s.units.iter().any(|u| u.side == side && u.alive()) {
            let why = format!("{} has no combat unit left on the field (A64)", side_name(side));
            ev.push(Event::all(format!("{why}: {} wins.", side_name(s.other(side)))));
            s.outcome = Some(Outcome::won(s.other(side), why));
            return;
        }
    }
}

/// 3.0 segment 2: the pre-committed `NEXT`, else the step.
fn continuum_segment(s: &mut State, role: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let can = eligible(s, role, can_continuum);
    match s.next.remove(role) {
        Some(n) if n == "pass" => {
            ev.push(Event::all(format!("{} passes.", side_name(role))));
            pass_turn(s, role, ev);
        }
        Some(n) => match can_continuum(s, role, &n) {
            Ok(()) => {
                let plan = s.plans.iter().position(|p| p.role == role).map(|i| s.plans.remove(i).lines);
                attempt_continuum(s, role, &n, plan, dice, ev);
            }
            Err(why) => {
                s.plans.retain(|p| p.role != role);
                ev.push(Event::only(role, format!("Your NEXT CONTINUUM {n} cannot be carried out: {why}.")));
                ask_continuum(s, role, &can, ev);
            }
        },
        None => ask_continuum(s, role, &can, ev),
    }
}

fn ask_continuum(s: &mut State, role: &str, can: &[String], ev: &mut Vec<Event>) {
    if can.is_empty() {
        ev.push(Event::all(format!(
            "{} has no Captain who may attempt a Continuum: the turn passes.",
            side_name(role)
        )));
        pass_turn(s, role, ev);
    } else {
        s.pending = Pending::Continuum { role: role.to_string() };
    }
}

fn pass_turn(s: &mut State, role: &str, ev: &mut Vec<Event>) {
    s.confusion.clear();
    s.next.remove(role);
    s.plans.retain(|p| p.role != role);
    let o = s.other(role);
    if eligible(s, o, can_activate).is_empty() {
        if eligible(s, role, can_activate).is_empty() {
            let why = "neither side has a Captain left to activate (A64)".to_string();
            ev.push(Event::all(format!("{why}: the battle is a draw.")));
            s.outcome = Some(Outcome::drawn(why));
            s.pending = Pending::Over;
            return;
        }
        ev.push(Event::all(format!("{} has no Captain to activate: the initiative stays (A64).", side_name(o))));
        s.pending = Pending::Activation { role: role.to_string() };
        return;
    }
    s.pending = Pending::Activation { role: o.to_string() };
}

/// The consequences of a Continuum or Interruptio roll, in the order of
/// A04: Sudden End, success, the roller's -1, War Fortune, Heat. True if
/// it succeeded.
fn roll_for(
    s: &mut State,
    role: &str,
    battle: &str,
    what: &str,
    dice: &mut dyn Dice,
    ev: &mut Vec<Event>,
) -> (bool, i32) {
    let cc = s.battle(battle).map(|b| b.cc).unwrap_or(1);
    let (a, b) = d2(dice, &format!("{what}, {battle} (CC {cc})"), &Serves::low(role));
    let roll = a + b;
    // 15.3 with the CCs as they stand (A03), only while both sides have a
    // released Captain (A02).
    if let Some((x, y)) = s.sudden_end_ccs() {
        if roll > x + y {
            let why = format!("Sudden End (15.3): the {what} roll {roll} exceeds {x} + {y}, the best released CCs");
            ev.push(Event::all(format!("{why}: the battle is a draw.")));
            s.outcome = Some(Outcome::drawn(why));
            s.pending = Pending::Over;
            return (false, roll);
        }
    }
    let ok = s.tables.cat.roll.at_most(roll, cc);
    let bb = s.battle_mut(battle).expect("battle");
    bb.cc = (bb.cc - 1).max(1);
    let after = bb.cc;
    ev.push(Event::all(format!(
        "{} of {battle}: {a}+{b} = {roll} against CC {cc}: {}; CC {cc} to {after} ({}).",
        effects::capital(what),
        if ok { "success" } else { "failure" },
        if what == "continuum" { "4.1" } else { "4.2" }
    )));
    if roll == 12 {
        for x in s.battles.iter_mut().filter(|x| x.name != battle && !x.removed) {
            x.cc = (x.cc - 1).max(1);
        }
        ev.push(Event::all(
            "War Fortune: a 12; every other Captain's CC falls one box, reserves included (4.4.1).".to_string(),
        ));
    }
    heat(s, roll, ev);
    (ok, roll)
}

/// S2.7.1: a roll at or above the Heat box's number moves the counter up
/// a box, whose event then applies (S2.7.2, reconstructed).
fn heat(s: &mut State, roll: i32, ev: &mut Vec<Event>) {
    let Some(h) = s.heat.as_mut() else { return };
    if h.at >= h.boxes.len() {
        return;
    }
    let need = h.boxes[h.at - 1];
    if roll < need {
        return;
    }
    h.at += 1;
    let at = h.at;
    let events: Vec<_> = h.event.iter().filter(|e| e.at == at).cloned().collect();
    ev.push(Event::all(format!("The Heat rises to box {at} (a roll of {roll}, at least {need}; S2.7.1).")));
    for e in events {
        match e.kind.as_str() {
            "cc-minus" => {
                for b in s.battles.iter_mut().filter(|b| b.side == e.side && !b.removed) {
                    b.cc = (b.cc - e.amount).max(1);
                }
                ev.push(Event::all(format!(
                    "Heat event {}: every {} Captain's CC falls {}.",
                    e.number,
                    side_name(&e.side),
                    e.amount
                )));
            }
            "ma-minus" => ev.push(Event::all(format!(
                "Heat event {}: {} units{} move {} less.",
                e.number,
                side_name(&e.side),
                if e.armour.is_empty() { String::new() } else { format!(" of armour {}", e.armour) },
                e.amount
            ))),
            "release" => {
                for b in s.battles.iter_mut().filter(|b| b.side == e.side && !b.off_map) {
                    b.released = true;
                }
                ev.push(Event::all(format!(
                    "Heat event {}: every {} Battle is released.",
                    e.number,
                    side_name(&e.side)
                )));
            }
            _ => {}
        }
    }
}

fn attempt_continuum(
    s: &mut State,
    role: &str,
    battle: &str,
    plan: Option<Vec<String>>,
    dice: &mut dyn Dice,
    ev: &mut Vec<Event>,
) {
    let (ok, roll) = roll_for(s, role, battle, "continuum", dice, ev);
    if !ok {
        if s.outcome.is_some() {
            return;
        }
        // 16.1: a failure of 10 or more makes its player activate a
        // Battle of the enemy's, not in reserve (option `confusion`).
        if s.option("confusion") && roll >= 10 && !confusable(s, role).is_empty() {
            s.next.remove(role);
            s.plans.retain(|p| p.role != role);
            ev.push(Event::all(format!(
                "Confusion in battle: a failed Continuum of {roll} (16.1); {} must activate an enemy Battle.",
                side_name(role)
            )));
            s.pending = Pending::Confusion { role: role.to_string() };
            return;
        }
        pass_turn(s, role, ev);
        return;
    }
    // 3.a: the other side may answer with one Interruptio (4.2.2).
    let q = s.other(role);
    let can = eligible(s, q, can_interrupt);
    let p = s.policies.get(q).cloned().unwrap_or_default();
    if let Some(pl) = &plan {
        s.plans.retain(|x| x.role != role);
        s.plans.push(Plan { role: role.to_string(), lines: pl.clone() });
    }
    if can.is_empty() || p.interrupt == "never" {
        return run_continuum(s, role, battle, dice, ev);
    }
    if p.interrupt == "ask" {
        s.pending = Pending::Interruptio { role: q.to_string(), against: battle.to_string() };
        return;
    }
    // A standing choice: BEST (highest CC, scenario order) or a Captain,
    // with its least CC.
    let pick = if p.interrupt == "best" {
        can.iter()
            .max_by_key(|b| {
                (
                    s.battle(b).map(|x| x.cc).unwrap_or(0),
                    std::cmp::Reverse(s.battles.iter().position(|x| &x.name == *b)),
                )
            })
            .cloned()
    } else {
        can.iter().find(|b| **b == p.interrupt).cloned()
    };
    match pick.filter(|b| s.battle(b).map(|x| x.cc).unwrap_or(0) >= p.interrupt_min) {
        Some(b) => {
            ev.push(Event::all(format!("{} attempts an Interruptio with {b} (a standing policy).", side_name(q))));
            attempt_interrupt(s, q, &b, None, battle, dice, ev);
        }
        None => run_continuum(s, role, battle, dice, ev),
    }
}

fn attempt_interrupt(
    s: &mut State,
    role: &str,
    battle: &str,
    plan: Option<Vec<String>>,
    against: &str,
    dice: &mut dyn Dice,
    ev: &mut Vec<Event>,
) {
    let active = s.other(role);
    if !roll_for(s, role, battle, "interruptio", dice, ev).0 {
        if s.outcome.is_none() {
            run_continuum(s, active, against, dice, ev);
        }
        return;
    }
    // 4.2.1: the Continuum's activation is lost, its plan and NEXT too.
    s.plans.retain(|p| p.role != active);
    s.next.remove(active);
    ev.push(Event::all(format!("{battle} interrupts: {against}'s Continuum activation is lost (4.2.1).")));
    match plan {
        Some(l) => {
            let p = parse_plan(s, role, &l, ev);
            start(s, role, battle, Via::Interruptio, Vec::new(), &p, dice, ev);
        }
        None => {
            s.pending = Pending::Orders { role: role.to_string(), captain: battle.to_string(), via: Via::Interruptio }
        }
    }
}

/// 3.c: the Continuum activation, from its plan, or a step for one.
fn run_continuum(s: &mut State, role: &str, battle: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let plan = s.plans.iter().position(|p| p.role == role).map(|i| s.plans.remove(i).lines);
    match plan {
        Some(l) => {
            let p = parse_plan(s, role, &l, ev);
            start(s, role, battle, Via::Continuum, Vec::new(), &p, dice, ev);
        }
        None => {
            s.pending = Pending::Orders { role: role.to_string(), captain: battle.to_string(), via: Via::Continuum }
        }
    }
}

/// The Confusion's default (brief 3.6): the opposing Battle, not in
/// reserve, with the lowest CC, the first in scenario order on a tie.
pub fn confusion_default(s: &State, role: &str) -> Option<String> {
    super::flow::confusable(s, role)
        .into_iter()
        .min_by_key(|b| (s.battle(b).map(|x| x.cc).unwrap_or(0), s.battles.iter().position(|x| &x.name == b)))
}

/// Why this General Order may not be given (5.2, 5.2.2, 5.4.7, 13.3,
/// 14.0.1).
pub fn general_problem(s: &State, b: &Battle, general: &[OrderKind]) -> Result<(), String> {
    if b.school {
        return Err(format!(
            "{}'s Battle follows the Braccesca School and cannot give a General Order (14.0.1)",
            b.name
        ));
    }
    if b.adjutant {
        return Err(format!("{} is an Adjutant and cannot give a General Order (13.3)", b.captain.name));
    }
    if general.len() == 2 {
        let mut want: Vec<&str> = b.double_general.iter().map(String::as_str).collect();
        let mut got: Vec<String> = general.iter().map(|k| k.word().to_lowercase()).collect();
        want.sort();
        got.sort();
        if b.double_general.is_empty() {
            return Err(format!("{} has no double General Order (5.2.2)", b.name));
        }
        if want != got.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(format!(
                "{}'s double General Order is {} (5.2.2)",
                b.name,
                b.double_general.iter().map(|x| x.to_uppercase()).collect::<Vec<_>>().join(" + ")
            ));
        }
    }
    if general.contains(&OrderKind::Recover) {
        if general.len() > 1 {
            return Err("Recovery is a General Order of its own (5.4.7)".into());
        }
        if b.cc - 1 > 5 {
            return Err(format!(
                "{}'s CC will be {} after this activation's step down; Recovery needs 5 or less (5.4.7, A33)",
                b.name,
                b.cc - 1
            ));
        }
        let in_zoc = s.units.iter().any(|u| {
            u.alive() && u.battle == b.name && u.at().map(|h| s.enemy_zoc(h, &u.side, u.cavalry())).unwrap_or(false)
        });
        if in_zoc {
            return Err(format!("a unit of {}'s Battle is in an enemy ZOC: no Recovery (5.4.7)", b.name));
        }
    }
    Ok(())
}
