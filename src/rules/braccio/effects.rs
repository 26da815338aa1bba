//! What befalls units and Captains whoever's order caused it, shared by
//! the orders of segment 4 and the melee of segment 5: the activation
//! dice, command (5.1), terrain entry (8.2), fire and Reaction Fire
//! (10.1-10.4), reaction changes of orientation (6.2), Cohesion Hits and
//! rout (10.8), Disorganization (11.0), the lost Standard (16.2),
//! Captains in combat and their Adjutants (13.2-13.3) and Victory Points
//! (15.1). These call one another as the rules chain them (a hit
//! disorganizes, a rout loses the Standard, which disorganizes); nothing
//! here gives an order or resolves a melee.

use super::*;
use crate::dice::{Serves, StreamId};
use std::collections::BTreeSet;

pub fn d6(dice: &mut dyn Dice, label: &str, serves: &Serves) -> i32 {
    dice.roll(&StreamId::Public, 6, label, serves) as i32
}

pub fn d2(dice: &mut dyn Dice, label: &str, serves: &Serves) -> (i32, i32) {
    let v = dice.roll_n(&StreamId::Public, 2, 6, label, serves);
    (v[0] as i32, v[1] as i32)
}

/// Units of a Battle (a squad's, in a School Battle) in command (5.1,
/// 5.1.2): within the commander's radius by a path clear of enemy units,
/// or beside one that is, in a chain (A37, A39).
pub fn in_command(s: &State, battle: &str, squad: &str) -> BTreeSet<String> {
    let Some(b) = s.battle(battle) else { return BTreeSet::new() };
    let leader = if squad.is_empty() {
        &b.captain
    } else {
        match b.squads.iter().find(|q| q.letter == squad) {
            Some(q) => &q.leader,
            None => return BTreeSet::new(),
        }
    };
    let Some(at) = Hex::parse(&leader.hex) else { return BTreeSet::new() };
    let side = b.side.clone();
    let enemy = |h: Hex| s.unit_at(h).map(|u| u.side != side).unwrap_or(false);
    let reach = s.grid().reach(at, leader.radius.max(0) as u32, |_, n| (!enemy(n)).then_some(1), |_| false);
    let mine: Vec<&Unit> = s.units.iter().filter(|u| u.alive() && u.battle == battle && u.squad == squad).collect();
    let mut ok: BTreeSet<String> = mine
        .iter()
        .filter(|u| u.at().map(|h| reach.contains_key(&h)).unwrap_or(false))
        .map(|u| u.name.clone())
        .collect();
    loop {
        let more: Vec<String> = mine
            .iter()
            .filter(|u| !ok.contains(&u.name))
            .filter(|u| {
                let h = u.at().expect("alive");
                s.grid().neighbours(h).iter().any(|n| s.unit_at(*n).map(|x| ok.contains(&x.name)).unwrap_or(false))
            })
            .map(|u| u.name.clone())
            .collect();
        if more.is_empty() {
            return ok;
        }
        ok.extend(more);
    }
}

/// A Disorganization (11.0): good order turns; a Disorganized unit rolls
/// and takes the difference with its quality in CH, at least 1 unless
/// `no_minimum` (melee, 10.6.6). Returns the CH taken.
pub fn disorganize(s: &mut State, name: &str, no_minimum: bool, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> i32 {
    let Some(u) = s.unit(name).cloned() else { return 0 };
    if !u.alive() {
        return 0;
    }
    if !u.disorganized {
        s.unit_mut(name).expect("unit").disorganized = true;
        ev.push(Event::all(format!("{name} is Disorganized.")));
        return 0;
    }
    let (roll, said) = morale(s, &u, "disorganization", dice);
    let diff = roll - u.q();
    let ch = if diff > 0 {
        diff
    } else if no_minimum {
        0
    } else {
        1
    };
    ev.push(Event::all(format!(
        "{name}, already Disorganized, rolls {said} against quality {}: {ch} CH{}.",
        u.q(),
        if diff <= 0 && !no_minimum { " (the minimum loss, 11.0)" } else { "" }
    )));
    if ch > 0 {
        take_ch(s, name, ch, dice, ev);
    }
    ch
}

/// A morale roll of `u` against its quality, a Disorganization if it
/// fails (6.2, 11.0, 12.1.4, 12.1.5, 12.2): a d6, less one with a friendly
/// standard in its hex or beside it (16.2.2, A32). The roll, and how the
/// results mail tells it.
pub fn morale(s: &State, u: &Unit, what: &str, dice: &mut dyn Dice) -> (i32, String) {
    let die = d6(dice, &format!("{what}, {}", u.name), &Serves::low(&u.side));
    if u.at().map(|h| standard_near(s, &u.side, h)).unwrap_or(false) {
        (die - 1, format!("{die} -1 for its standard (16.2.2) = {}", die - 1))
    } else {
        (die, die.to_string())
    }
}

/// Is a standard of `side` in `h` or beside it (16.2.2)?
pub fn standard_near(s: &State, side: &str, h: Hex) -> bool {
    s.standards
        .iter()
        .filter(|x| x.side == side && !x.captured)
        .any(|x| s.unit(&x.carrier).and_then(|u| u.at()).map(|c| s.grid().distance(c, h) <= 1).unwrap_or(false))
}

/// Entering a hex (from `from`) whose terrain, or the hexside crossed,
/// Disorganizes this kind (8.2.4, S4.7.4).
pub fn terrain_entry(s: &mut State, name: &str, from: Hex, h: Hex, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> bool {
    let Some(u) = s.unit(name).cloned() else { return false };
    let Some(what) = entry_disorganizes(s, &u, from, h) else { return false };
    ev.push(Event::all(format!("{name} {what}.")));
    disorganize(s, name, false, dice, ev);
    true
}

/// What about going from `from` into `h` Disorganizes `u`, if anything:
/// the terrain entered (8.2.4) or the hexside crossed (S4.7.4).
pub fn entry_disorganizes(s: &State, u: &Unit, from: Hex, h: Hex) -> Option<String> {
    match (s.terrain_at(h), s.hexside(from, h)) {
        (Some(t), _) if disorganizes(&t.disorganize, u) => Some(format!("enters {} at {h} (8.2.4)", t.name)),
        (_, Some(k)) if disorganizes(&k.disorganize, u) => {
            Some(format!("crosses the {} from {from} into {h} (S4.7.4)", k.name))
        }
        _ => None,
    }
}

/// Does terrain (or a hexside) that Disorganizes these kinds Disorganize
/// this unit (8.2.4)? The kinds are `cavalry`, `infantry` (foot,
/// crossbowmen included) and `militia`.
pub fn disorganizes(kinds: &[String], u: &Unit) -> bool {
    let kind = if u.militia { "militia" } else { u.kind.name() };
    kinds.iter().any(|k| k == kind || (k == "infantry" && kind == "crossbowmen"))
}

/// Is `to` within range, arc and line of sight of the crossbow `f`
/// (10.1.2, 10.2, 10.2.1, 10.2.2)? The range on success.
pub fn can_fire(s: &State, f: &Unit, to: Hex) -> Result<i32, String> {
    let at = f.at().ok_or("it is not on the map")?;
    let g = s.grid();
    let range = g.distance(at, to);
    if range == 0 || range > s.tables.fire.range {
        return Err(format!("{to} is {range} hexes away; the range is 1 to {} (10.1.2)", s.tables.fire.range));
    }
    if range == 1 {
        return if s.front_hexes(f).contains(&to) {
            Ok(1)
        } else {
            Err(format!("{to} is beside {} but not in its front (10.2.2)", f.name))
        };
    }
    if !in_arc(s, f, to) {
        return Err(format!("{to} is outside {}'s fire arc (10.1.2, Fig. 2)", f.name));
    }
    let (ha, hb) = (s.map.height(at), s.map.height(to));
    let blocks = |h: Hex| {
        s.unit_at(h).is_some()
            || s.terrain_at(h).map(|t| t.blocks_los).unwrap_or(false)
            || (s.map.height(h) > ha && s.map.height(h) > hb)
    };
    if !g.sight(at, to, blocks) {
        return Err(format!("no line of sight from {at} to {to} (10.2)"));
    }
    Ok(range)
}

/// The facing one vertex at most from `facing` that points most nearly
/// from `at` toward `to`.
pub fn toward(s: &State, at: Hex, to: Hex, facing: Vertex) -> Vertex {
    let g = s.grid();
    [facing, facing.turn(1), facing.turn(-1)]
        .into_iter()
        .min_by(|a, b| g.off_vertex(at, to, *a).total_cmp(&g.off_vertex(at, to, *b)))
        .unwrap_or(facing)
}

/// The fire arc (Fig. 2, reconstructed): within 30 degrees of the facing
/// vertex ("front-wedge"), or 60 ("wide").
pub fn in_arc(s: &State, f: &Unit, to: Hex) -> bool {
    let Some(a) = f.at() else { return false };
    let half = if s.tables.fire.arc == "wide" { 60.0 } else { 30.0 };
    s.grid().off_vertex(a, to, f.facing) <= half + 1e-6
}

/// One fire (10.3): 2d6 + current CR + modifiers against the table.
pub fn fire(s: &mut State, firer: &str, target: &str, how: &str, extra: i32, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let (Some(f), Some(t)) = (s.unit(firer).cloned(), s.unit(target).cloned()) else { return };
    let Some(to) = t.at() else { return };
    let Ok(range) = can_fire(s, &f, to) else { return };
    let need = s.tables.fire.need.get(&t.armour).and_then(|v| v.get((range - 1) as usize)).copied().unwrap_or(0);
    if need == 0 {
        ev.push(Event::all(format!(
            "{firer} cannot fire at {target} ({} armour at range {range}: \"-\", 10.3).",
            t.armour
        )));
        return;
    }
    s.unit_mut(firer).expect("firer").fired = true;
    let (a, b) = d2(dice, &format!("{how}, {firer} at {target}"), &Serves::high(&f.side));
    let mut mods = vec![(format!("CR {}", f.q()), f.q())];
    if extra != 0 {
        mods.push((
            if how.contains("reaction") { "after a reaction pivot" } else { "pivot before firing" }.into(),
            extra,
        ));
    }
    if f.disorganized {
        mods.push(("firer Disorganized".into(), s.tables.fire.firer_disorganized));
    }
    let terr = s.terrain_at(to).map(|x| (x.name.clone(), x.fire_target)).filter(|x| x.1 != 0);
    if let Some((n, v)) = terr {
        mods.push((format!("target in {n}"), v));
    }
    let total = a + b + mods.iter().map(|m| m.1).sum::<i32>();
    let hit = total >= need || (a == 6 && b == 6);
    let mods_text: Vec<String> = mods.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
    ev.push(Event::all(format!(
        "{} {firer} ({}) at {target} ({}, armour {}, range {range}): {a}+{b} {} = {total} against {need}: {}.",
        capital(how),
        f.hex,
        t.hex,
        t.armour,
        mods_text.join(" "),
        if hit {
            if total >= need {
                "hit"
            } else {
                "an unmodified 12 always hits (10.3.2)"
            }
        } else {
            "no effect"
        }
    )));
    s.marks.push(t.hex.clone());
    if hit {
        disorganize(s, target, false, dice, ev);
        if a == 6 && b == 6 {
            // 10.3.2: a Captain in the target hex has been hit.
            let there: Vec<String> = captains_in(s, to);
            for c in there {
                ev.push(Event::all(format!("{c} is in the target hex and is hit (10.3.2).")));
                wounds_table(s, &c, dice, ev);
            }
        }
        lose_carica(s, target, ev);
    }
}

/// A text with its first letter in capitals.
pub fn capital(t: &str) -> String {
    let mut c = t.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// 12.1.1: a charger Disorganized by fire or terrain loses its Carica!
/// and keeps an Attack (the default answer, brief 3.6).
pub fn lose_carica(s: &mut State, name: &str, ev: &mut Vec<Event>) {
    let disorg = s.unit(name).map(|u| u.disorganized).unwrap_or(false);
    if let Some(a) = s.act.as_mut() {
        if disorg && a.carica.iter().any(|c| c == name) {
            a.carica.retain(|c| c != name);
            ev.push(Event::all(format!("{name} is Disorganized and loses its Carica!; it keeps an Attack (12.1.1).")));
        }
    }
}

pub fn leader_side(s: &State, name: &str) -> Option<String> {
    s.battle_of_leader(name).map(|b| b.side.clone())
}

/// Leaders (Captains, Squad Leaders) in a hex.
pub fn captains_in(s: &State, h: Hex) -> Vec<String> {
    let id = h.to_string();
    let mut v = Vec::new();
    for b in s.battles.iter().filter(|b| !b.removed) {
        if b.captain.hex == id {
            v.push(b.captain.name.clone());
        }
        for q in &b.squads {
            if q.leader.hex == id {
                v.push(q.leader.name.clone());
            }
        }
    }
    v
}

/// Reaction Fire on exit (10.4.2, 7.2.1): before `name` leaves `from`,
/// each enemy crossbow whose front hex it is may fire, by policy.
pub fn exit_fire(s: &mut State, name: &str, from: Hex, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    reaction_fire(s, name, from, "reaction fire on exit", dice, ev);
}

/// Reaction Fire on entry (10.4.1): `name` ended its move in `at`.
pub fn entry_fire(s: &mut State, name: &str, at: Hex, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    reaction_fire(s, name, at, "reaction fire on entry", dice, ev);
}

/// Every enemy crossbow not yet Fired with `at` in its front fires at
/// `name`, if its owner's policy says so, while `name` stands (10.4).
pub fn reaction_fire(s: &mut State, name: &str, at: Hex, how: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let side = s.unit(name).map(|u| u.side.clone()).unwrap_or_default();
    let shooters: Vec<String> = s
        .units
        .iter()
        .filter(|f| f.alive() && f.side != side && f.kind == Kind::Crossbowmen && !f.fired)
        .filter(|f| s.front_hexes(f).contains(&at))
        .map(|f| f.name.clone())
        .collect();
    for f in shooters {
        if wants_fire(s, &f, name) && s.unit(name).map(|u| u.alive()).unwrap_or(false) {
            // 10.4.3: after a reaction pivot its fire is at -1.
            let pivoted = s.unit(&f).map(|x| x.pivoted).unwrap_or(false);
            let m = if pivoted { s.tables.fire.reaction_pivot } else { 0 };
            fire(s, &f, name, how, m, dice, ev);
        }
    }
}

/// The shooter's owner's REACT FIRE policy: `always`, `never`, or
/// `attackers` (only at a unit that declared an attack on it).
pub fn wants_fire(s: &State, shooter: &str, at: &str) -> bool {
    let side = s.unit(shooter).map(|u| u.side.clone()).unwrap_or_default();
    match s.policies.get(&side).map(|p| p.fire.as_str()).unwrap_or("always") {
        "never" => false,
        "attackers" => s.act.as_ref().map(|a| a.attacks.iter().any(|(x, t)| x == at && t == shooter)).unwrap_or(false),
        _ => true,
    }
}

/// Reaction pivots (6.2, A10): enemy units not already in an enemy ZOC
/// whose flank or rear hex `name` stopped in may turn one vertex towards
/// it, by policy; then a die against quality (6.2.1, 6.2.2).
pub fn reaction_pivots(s: &mut State, name: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(m) = s.unit(name).cloned() else { return };
    let Some(at) = m.at() else { return };
    let candidates: Vec<String> = s
        .units
        .iter()
        .filter(|r| r.alive() && r.side != m.side)
        .filter(|r| matches!(s.arc_of(r, at), Some(Arc::Flank) | Some(Arc::Rear)))
        .map(|r| r.name.clone())
        .collect();
    for rname in candidates {
        let r = s.unit(&rname).cloned().expect("unit");
        let rh = r.at().expect("alive");
        // "Already in enemy ZOC": before the mover arrived (A10).
        let before = s.zoc_from(rh, &r.side, r.cavalry()).any(|e| e.name != name);
        if before {
            continue;
        }
        let d = s.grid().direction(rh, at).expect("neighbour");
        // One vertex toward the mover: from a flank into the front, from
        // the rear onto a flank (brief C18).
        let rank = |v: Vertex| match v.arc(d) {
            Arc::Front => 0,
            Arc::Flank => 1,
            Arc::Rear => 2,
        };
        let to = [r.facing.turn(1), r.facing.turn(-1)].into_iter().min_by_key(|v| rank(*v)).expect("two turns");
        let free = !m.cavalry() && r.cavalry();
        let plus = if m.cavalry() && !r.cavalry() { 2 } else { 0 };
        let policy = s.policies.get(&r.side).cloned().unwrap_or_default();
        let go = match policy.face.as_str() {
            "always" => true,
            "never" => false,
            _ => free || r.q() - plus >= policy.face_min,
        };
        if !go {
            continue;
        }
        let r_mut = s.unit_mut(&rname).expect("unit");
        r_mut.facing = to;
        r_mut.pivoted = true;
        ev.push(Event::all(format!(
            "{rname} turns to face {} in answer to {name} stopping on its {} (6.2).",
            orders::vertex_word(to),
            if r.facing.arc(d) == Arc::Rear { "rear" } else { "flank" }
        )));
        if free {
            ev.push(Event::all(format!("{rname} is mounted and {name} on foot: no roll (6.2.1).")));
            continue;
        }
        let (roll, said) = morale(s, &r, "reaction pivot", dice);
        let total = roll + plus;
        ev.push(Event::all(format!(
            "Reaction pivot roll for {rname}: {said}{} = {total} against quality {}: {}.",
            if plus > 0 { " +2 (a mounted mover, 6.2.2)" } else { "" },
            r.q(),
            if total <= r.q() { "no penalty" } else { "Disorganized" }
        )));
        if total > r.q() {
            disorganize(s, &rname, false, dice, ev);
        }
    }
}

/// S2.6, A21: an inactive Battle is released when an enemy unit arrives
/// beside one of its units or its Captain.
pub fn release_near(s: &mut State, h: Hex, side: &str, ev: &mut Vec<Event>) {
    let near: BTreeSet<Hex> = s.grid().neighbours(h).into_iter().collect();
    let mut woken = Vec::new();
    // A Battle released only by its own roll (Testa, S4.6.1) is not woken.
    let by_roll = |b: &Battle| s.entries.iter().any(|e| e.battle == b.name && e.target > 0);
    for b in s.battles.iter().filter(|b| b.side != side && !b.released && !b.removed && !by_roll(b)) {
        let unit_near =
            s.units.iter().any(|u| u.battle == b.name && u.at().map(|x| near.contains(&x)).unwrap_or(false));
        let capt_near = Hex::parse(&b.captain.hex).map(|x| near.contains(&x)).unwrap_or(false);
        if unit_near || capt_near {
            woken.push(b.name.clone());
        }
    }
    for w in woken {
        s.battle_mut(&w).expect("battle").released = true;
        ev.push(Event::all(format!("An enemy unit arrives beside {w}'s Battle: it is released (S2.6).")));
    }
}

/// A unit enters a hex, by whatever means (a move, a retreat, an
/// advance, an Echeloned swap, a rally): an enemy standard there is taken
/// (S2.5), and an enemy Captain alone there must escape (13.2.5).
pub fn arrive(s: &mut State, unit: &str, to: Hex, ev: &mut Vec<Event>) {
    let side = s.unit(unit).map(|u| u.side.clone()).unwrap_or_default();
    s.unit_mut(unit).expect("unit").hex = to.to_string();
    s.marks.push(to.to_string());
    let id = to.to_string();
    let standards = s.rally_standards;
    for b in s.battles.iter_mut().filter(|b| standards && b.side != side && b.rally == id) {
        b.rally = String::new();
        ev.push(Event::all(format!(
            "{unit} enters {id}: {}'s standard is taken, and its Battle can no longer rally (S2.5).",
            b.name
        )));
    }
    for c in captains_in(s, to) {
        if leader_side(s, &c).as_deref() != Some(side.as_str()) && s.units.iter().filter(|x| x.hex == id).count() == 1 {
            escape(s, &c, to, ev);
        }
    }
}

/// Find the enemy unit a target names (a unit, or the unit in a hex).
pub fn resolve_target(s: &State, t: &str, side: &str) -> Option<String> {
    let u = match Hex::parse(t) {
        Some(h) => s.unit_at(h),
        None => s.unit(t),
    }?;
    (u.alive() && u.side != side).then(|| u.name.clone())
}

/// Add VP to a side and raise its VL as they pass the scenario's value
/// (15.2, A26); a VL of 12 wins (15.2.2).
pub fn add_vp(s: &mut State, role: &str, n: i32, why: &str, ev: &mut Vec<Event>) {
    if n <= 0 || s.outcome.is_some() {
        return;
    }
    let per = s.vp_per_vl.get(role).copied().unwrap_or(4).max(1);
    let vp = s.vp.entry(role.to_string()).or_insert(0);
    *vp += n;
    let mut up = 0;
    while *vp >= per {
        *vp -= per;
        up += 1;
    }
    let left = *vp;
    ev.push(Event::all(format!("{} scores {n} VP ({why}).", side_name(role))));
    if up > 0 {
        let vl = s.vl.entry(role.to_string()).or_insert(0);
        *vl += up;
        let vl = *vl;
        ev.push(Event::all(format!(
            "{} Victory Level rises to {vl} ({per} VP a level; {left} VP carried, 15.2).",
            side_name(role)
        )));
        win_on_vl(s, role, ev);
    }
}

pub fn win_on_vl(s: &mut State, role: &str, ev: &mut Vec<Event>) {
    if s.vl.get(role).copied().unwrap_or(0) >= s.tables.victory.vl_win && s.outcome.is_none() {
        let why = format!("{} Victory Level reached {} (15.2.2)", side_name(role), s.tables.victory.vl_win);
        ev.push(Event::all(format!("{why}: {} wins.", side_name(role))));
        s.outcome = Some(Outcome::won(role, why));
        s.pending = Pending::Over;
    }
}

/// A unit takes CH (10.6.5): VP for cavalry losses (A28), and a rout at
/// CH ≥ printed CR (10.8). True if it routed.
pub fn take_ch(s: &mut State, name: &str, n: i32, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> bool {
    let Some(u) = s.unit(name).cloned() else { return false };
    if n <= 0 || !u.alive() {
        return false;
    }
    let ch = (u.ch + n).min(u.cr);
    s.unit_mut(name).expect("unit").ch = ch;
    ev.push(Event::all(format!("{name} takes {n} CH (now {ch} of {}).", u.cr)));
    let enemy = s.other(&u.side);
    // VP for the CH the counter can take, not those past its rout (A28).
    let taken = ch - u.ch;
    if u.cavalry() {
        add_vp(s, enemy, taken * s.tables.victory.cavalry_per_ch, &format!("{taken} CH on the cavalry {name}"), ev);
    }
    if ch >= u.cr {
        rout(s, name, dice, ev);
        return true;
    }
    false
}

/// A unit routs (10.8): removed, VP to the enemy; Captains with it roll
/// on the Wounds Table and escape (13.2.2).
pub fn rout(s: &mut State, name: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(u) = s.unit(name).cloned() else { return };
    let Some(at) = u.at() else { return };
    s.unit_mut(name).expect("unit").hex = String::new();
    ev.push(Event::all(format!("{name} routs and leaves the field (10.8).")));
    let enemy = s.other(&u.side);
    let vp = if u.cavalry() { s.tables.victory.cavalry_rout } else { s.tables.victory.foot_rout };
    add_vp(s, enemy, vp, &format!("{name} routed"), ev);
    if let Some(a) = s.act.as_mut() {
        a.attacks.retain(|(x, t)| x != name && t != name);
        a.carica.retain(|x| x != name);
    }
    for c in captains_in(s, at) {
        if side_of_leader(s, &c).as_deref() == Some(u.side.as_str()) {
            ev.push(Event::all(format!("{c} was with {name}: straight to the Captain Wounds Table (13.2.2).")));
            if wounds_table(s, &c, dice, ev) {
                escape(s, &c, at, ev);
            }
        }
    }
    standard_lost(s, name, at, dice, ev);
    after_loss(s, &u.battle, ev);
}

/// 16.2.5, 15.1.1: the standard of a unit that routs is captured: 1 VL to
/// the captor, and its side rolls a die: every one of its units within
/// that many hexes suffers a Disorganization.
pub fn standard_lost(s: &mut State, carrier: &str, at: Hex, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(k) = s.standards.iter().position(|x| x.carrier == carrier && !x.captured) else { return };
    s.standards[k].captured = true;
    let (battle, side) = (s.standards[k].battle.clone(), s.standards[k].side.clone());
    let captor = s.other(&side);
    ev.push(Event::all(format!(
        "{battle}'s standard falls with {carrier}: it is captured, 1 VL to the {} (16.2.5, 15.1.1).",
        side_name(captor)
    )));
    *s.vl.entry(captor.to_string()).or_insert(0) += 1;
    win_on_vl(s, captor, ev);
    let radius = d6(dice, &format!("standard lost, {battle}: radius"), &Serves::low(&side));
    let near: Vec<String> = s
        .units
        .iter()
        .filter(|u| u.side == side && u.alive() && u.at().map(|h| s.grid().distance(h, at) <= radius).unwrap_or(false))
        .map(|u| u.name.clone())
        .collect();
    ev.push(Event::all(format!(
        "The {} roll {radius} for the lost standard: every unit of theirs within {radius} hexes of {at} suffers a Disorganization (15.1.1){}.",
        side_name(&side),
        if near.is_empty() { ": none" } else { "" }
    )));
    for n in near {
        disorganize(s, &n, false, dice, ev);
    }
}

/// 13.3.2: a Battle with no unit left leaves the game with its Captain.
pub fn after_loss(s: &mut State, battle: &str, ev: &mut Vec<Event>) {
    let any = s.units.iter().any(|u| u.battle == battle && u.alive());
    if let Some(b) = s.battle_mut(battle) {
        if !any && !b.removed {
            b.removed = true;
            b.captain.hex = String::new();
            for q in b.squads.iter_mut() {
                q.leader.hex = String::new();
            }
            ev.push(Event::all(format!("{battle}'s Battle has no unit left: its Captain leaves the game (13.3.2).")));
        }
    }
}

pub fn side_of_leader(s: &State, name: &str) -> Option<String> {
    leader_side(s, name)
}

/// The Captain Wounds Table (13.2.1, reconstructed). True if he lives.
pub fn wounds_table(s: &mut State, name: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> bool {
    let Some(b) = s.battle_of_leader(name).cloned() else {
        return true;
    };
    let squad = b.captain.name != name;
    let wounded_cc = s.tables.wounds.wounded_cc;
    let roll = d6(dice, &format!("wounds table, {name}"), &Serves::high(s.other(&b.side)));
    let face = s.tables.wounds.faces.get((roll - 1) as usize).cloned().unwrap_or_else(|| "unhurt".into());
    match face.as_str() {
        "killed" => {
            ev.push(Event::all(format!("Captain Wounds Table for {name}: {roll}, killed.")));
            fall(s, &b.name, name, squad, dice, ev);
            false
        }
        "wounded" if !squad => {
            let bb = s.battle_mut(&b.name).expect("battle");
            bb.cc = (bb.cc - wounded_cc).max(1);
            let cc = bb.cc;
            ev.push(Event::all(format!("Captain Wounds Table for {name}: {roll}, wounded: his CC falls to {cc}.")));
            true
        }
        _ => {
            ev.push(Event::all(format!(
                "Captain Wounds Table for {name}: {roll}, {}.",
                if squad && face == "wounded" { "wounded, which a Squad Leader ignores (14.2.3)" } else { "unhurt" }
            )));
            true
        }
    }
}

/// A Captain or Squad Leader killed or captured (13.3, 13.3.1, 14.2.3,
/// 15.1.1, A66).
pub fn fall(s: &mut State, battle: &str, name: &str, squad: bool, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(b) = s.battle(battle).cloned() else { return };
    let enemy = s.other(&b.side);
    if squad {
        add_vp(s, enemy, s.tables.victory.squad_leader, &format!("the Squad Leader {name} fell"), ev);
        let bb = s.battle_mut(battle).expect("battle");
        let q = bb.squads.iter_mut().find(|q| q.leader.name == name).expect("squad");
        replace(&mut q.leader, ev);
        let letter = q.letter.clone();
        seat(s, battle, &letter, ev);
        return;
    }
    if s.automatic_defeat.iter().any(|x| x == name) && s.outcome.is_none() {
        let why = format!("{name} is eliminated ({})", s.rule("S2.9", "S4.8"));
        ev.push(Event::all(format!("{why}: {} wins.", side_name(enemy))));
        s.outcome = Some(Outcome::won(enemy, why));
        s.pending = Pending::Over;
        return;
    }
    if b.captain.combat > 0 {
        let roll = d6(dice, &format!("VP for {name} (bonus {})", b.captain.combat), &Serves::high(enemy));
        add_vp(s, enemy, roll * b.captain.combat, &format!("{name} fell: {roll} x {}", b.captain.combat), ev);
    }
    let bb = s.battle_mut(battle).expect("battle");
    bb.cc = ((bb.cc + 1) / 2).max(1);
    let cc = bb.cc;
    ev.push(Event::all(format!("{battle}'s CC is halved to {cc} (13.3.1).")));
    replace(&mut bb.captain, ev);
    bb.adjutant = true;
    seat(s, battle, "", ev);
}

/// Turn the counter to its Adjutant side (13.3), or take him off.
fn replace(l: &mut Leader, ev: &mut Vec<Event>) {
    // The counter stays on its Adjutant side: an Adjutant who falls is
    // replaced again (A29).
    match l.adjutant.clone() {
        Some(d) if d.name == l.name => {
            ev.push(Event::all(format!("Another {} takes command (13.3, A29).", d.name)));
        }
        Some(d) => {
            ev.push(Event::all(format!("{} takes the place of {} (13.3).", d.name, l.name)));
            l.name = d.name;
            l.combat = d.combat;
            l.radius = d.radius;
        }
        None => {
            ev.push(Event::all(format!("{} has no one left to replace him.", l.name)));
            l.hex = String::new();
        }
    }
}

/// Place a replacement with the unit of his Battle (squad) nearest where
/// the fallen stood (the default of brief 3.6).
fn seat(s: &mut State, battle: &str, squad: &str, ev: &mut Vec<Event>) {
    let Some(b) = s.battle(battle).cloned() else { return };
    let l = if squad.is_empty() {
        b.captain.clone()
    } else {
        b.squads.iter().find(|q| q.letter == squad).expect("squad").leader.clone()
    };
    let Some(was) = Hex::parse(&l.hex) else { return };
    let g = s.grid();
    // The owner's ADJUTANT line, if its unit stands (13.3: "of your
    // choice"); else the nearest unit of the Battle (brief 3.6).
    let chosen = squad
        .is_empty()
        .then(|| s.policies.get(&b.side).and_then(|p| p.adjutant.get(battle)).cloned())
        .flatten()
        .and_then(|u| s.unit(&u).filter(|u| u.battle == battle).and_then(|u| u.at()));
    let best = chosen.or_else(|| {
        s.units
            .iter()
            .filter(|u| u.alive() && u.battle == battle && (squad.is_empty() || u.squad == squad))
            .filter_map(|u| u.at())
            .min_by_key(|h| (g.distance(was, *h), *h))
    });
    let bb = s.battle_mut(battle).expect("battle");
    let l = if squad.is_empty() {
        &mut bb.captain
    } else {
        &mut bb.squads.iter_mut().find(|q| q.letter == squad).expect("squad").leader
    };
    match best {
        Some(h) => {
            l.hex = h.to_string();
            ev.push(Event::all(format!("{} is placed with his Battle's unit in {h}.", l.name)));
        }
        None => l.hex = String::new(),
    }
}

/// A Captain's escape with 5 MP (13.2.2, 13.2.5): to the nearest hex
/// holding a unit of his side not beside an enemy, else the nearest hex
/// not beside one; none: captured.
pub fn escape(s: &mut State, name: &str, from: Hex, ev: &mut Vec<Event>) {
    let Some(side) = side_of_leader(s, name) else { return };
    let mine = s.battle_of_leader(name).map(|b| b.name.clone()).unwrap_or_default();
    // Never through an enemy unit, nor into an empty hex in an enemy
    // cavalry ZOC (13.1.1, 13.1.2).
    let reach = s.grid().reach(
        from,
        s.tables.movement.captain as u32,
        |f, n| match s.unit_at(n) {
            Some(u) if u.side != side => None,
            None if s.enemy_zoc(n, &side, true) => None,
            _ => s.step(f, n, true).map(|c| c as u32),
        },
        |_| false,
    );
    let safe =
        |h: &Hex| *h != from && !s.adjacent_enemy(*h, &side) && s.unit_at(*h).map(|u| u.side == side).unwrap_or(true);
    let nearest = |ok: &dyn Fn(&Hex) -> bool| {
        reach.iter().filter(|(h, _)| safe(h) && ok(h)).min_by_key(|(h, r)| (r.cost, **h)).map(|(h, _)| *h)
    };
    // The owner's ESCAPE line, where it is reachable and safe; else the
    // nearest unit of his Battle, else the nearest safe hex (brief 3.6).
    let wish = s
        .policies
        .get(&side)
        .filter(|_| s.battle(&mine).map(|b| b.captain.name == name).unwrap_or(false))
        .and_then(|p| p.escape.get(&mine))
        .and_then(|h| Hex::parse(h))
        .filter(|h| reach.contains_key(h) && safe(h));
    let dest = wish.or_else(|| {
        nearest(&|h: &Hex| s.unit_at(*h).map(|u| u.battle == mine).unwrap_or(false))
            .or_else(|| nearest(&|_: &Hex| true))
    });
    let battle = s.battle_of_leader(name).map(|b| b.name.clone()).expect("leader's battle");
    let squad = s.battle(&battle).map(|b| b.captain.name != name).unwrap_or(false);
    match dest {
        Some(h) => {
            let bb = s.battle_mut(&battle).expect("battle");
            let l = if squad {
                &mut bb.squads.iter_mut().find(|q| q.leader.name == name).expect("squad").leader
            } else {
                &mut bb.captain
            };
            l.hex = h.to_string();
            ev.push(Event::all(format!("{name} escapes from {from} to {h} (13.2.2).")));
        }
        None => {
            ev.push(Event::all(format!("{name} cannot leave {from} and is captured (13.2.2).")));
            // A capture is a fall (13.3); its VP die is rolled where the
            // dice are, in `capture_pending`. Taken, he leaves the hex at
            // once: nothing else may make him escape again.
            s.captured.push((name.to_string(), from.to_string()));
            move_leader(s, name, None);
        }
    }
}

/// Put a leader in a hex, or off the map (`None`).
pub fn move_leader(s: &mut State, name: &str, to: Option<Hex>) {
    let id = to.map(|h| h.to_string()).unwrap_or_default();
    for b in s.battles.iter_mut() {
        if b.captain.name == name {
            b.captain.hex = id.clone();
        }
        for q in b.squads.iter_mut() {
            if q.leader.name == name {
                q.leader.hex = id.clone();
            }
        }
    }
}
