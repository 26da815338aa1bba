//! Segment 5 (4.0 s5, 10.5-10.9): the declared attacks resolved in the
//! active player's order, with the column shifts and die modifiers of
//! 10.6.1-10.6.2, the SCT, Cohesion Losses shared and doubled, the
//! Disorganization chain, retreat, rout and advance; Captains' wounds,
//! Adjutants and escapes (13.2-13.3); Victory Points (15.1).

use super::act::{captains_in, d2, d6, disorganize};
use super::*;
use crate::dice::Serves;

/// One side of an SCT cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Res {
    Nothing,
    D,
    Ch(i32),
}

impl Res {
    pub fn ch(self) -> i32 {
        if let Res::Ch(n) = self {
            n
        } else {
            0
        }
    }
}

fn side(t: &str) -> Result<Res, String> {
    match t.trim() {
        "-" => Ok(Res::Nothing),
        "D" => Ok(Res::D),
        n => n
            .parse::<i32>()
            .ok()
            .filter(|n| *n > 0)
            .map(Res::Ch)
            .ok_or_else(|| format!("{n:?} is not -, D or a number")),
    }
}

/// An SCT cell "a/d".
pub fn cell(t: &str) -> Result<(Res, Res), String> {
    let (a, d) = t.split_once('/').ok_or("a cell is attacker/defender, as \"D/1\"")?;
    Ok((side(a)?, side(d)?))
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
        s.outcome = Some(Outcome { winner: Some(role.to_string()), reason: why, also: Vec::new() });
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
fn standard_lost(s: &mut State, carrier: &str, at: Hex, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
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
fn after_loss(s: &mut State, battle: &str, ev: &mut Vec<Event>) {
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

fn side_of_leader(s: &State, name: &str) -> Option<String> {
    super::act::leader_side(s, name)
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
        s.outcome = Some(Outcome { winner: Some(enemy.to_string()), reason: why, also: Vec::new() });
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

/// The melee segment (4.0 s5) for the attacks declared so far.
pub fn segment(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(act) = s.act.clone() else { return };
    if act.attacks.is_empty() {
        return;
    }
    // The order: COMBAT lines first, then first declaration (10.5.2).
    let mut targets: Vec<Combat> = Vec::new();
    for c in &act.combats {
        if let Some(name) = super::act::resolve_target(s, &c.target, &act.role) {
            if !targets.iter().any(|x| x.target == name) {
                targets.push(Combat { target: name, ..c.clone() });
            }
        }
    }
    for (_, t) in &act.attacks {
        if !targets.iter().any(|x| &x.target == t) {
            targets.push(Combat { target: t.clone(), ..Default::default() });
        }
    }
    ev.push(Event::all("Melee segment (4.0 s5, 10.5).".to_string()));
    for c in targets {
        if s.outcome.is_some() {
            break;
        }
        one(s, &c, dice, ev);
        capture_pending(s, dice, ev);
    }
    if let Some(a) = s.act.as_mut() {
        a.attacks.clear();
        a.carica.clear();
        a.combats.clear();
    }
}

/// Captains captured during an escape fall now (their VP die).
pub fn capture_pending(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let caught = std::mem::take(&mut s.captured);
    for (name, at) in caught {
        let Some(b) = s.battle_of_leader(&name).cloned() else {
            continue;
        };
        // Back where he was taken, so that his replacement is placed
        // from there (13.3).
        move_leader(s, &name, Hex::parse(&at));
        let squad = b.captain.name != name;
        fall(s, &b.name, &name, squad, dice, ev);
    }
}

/// The combat value of a Captain with a unit (13.2): the best of his
/// side's leaders of that unit's Battle stacked with it.
fn leader_bonus(s: &State, u: &Unit) -> (i32, String) {
    let Some(b) = s.battle(&u.battle) else { return (0, String::new()) };
    let mut best = (0, String::new());
    let here = u.hex.clone();
    let mut consider = |l: &Leader| {
        if l.hex == here && l.combat > best.0 {
            best = (l.combat, l.name.clone());
        }
    };
    consider(&b.captain);
    for q in &b.squads {
        consider(&q.leader);
    }
    best
}

/// One melee (10.6).
fn one(s: &mut State, fight: &Combat, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let (target, lead_named) = (fight.target.as_str(), fight.lead.as_str());
    let Some(act) = s.act.clone() else { return };
    let Some(d) = s.unit(target).cloned().filter(|u| u.alive()) else { return };
    let dh = d.at().expect("alive");
    let mut attackers: Vec<String> = act
        .attacks
        .iter()
        .filter(|(_, t)| t == target)
        .map(|(a, _)| a.clone())
        .filter(|a| s.unit(a).map(|u| u.alive() && s.front_hexes(u).contains(&dh)).unwrap_or(false))
        .collect();
    if let Some(i) = attackers.iter().position(|a| a == lead_named) {
        let l = attackers.remove(i);
        attackers.insert(0, l);
    }
    // 12.1.5: foot attacking a cavalry front hex, armour not higher.
    if d.cavalry() {
        for a in attackers.clone() {
            let u = s.unit(&a).cloned().expect("attacker");
            let ah = u.at().expect("alive");
            if !u.cavalry() && s.front_hexes(&d).contains(&ah) && u.armour_rank() <= d.armour_rank() {
                let (roll, said) = super::act::morale(s, &u, "morale before melee", dice);
                let bad = roll > u.q();
                ev.push(Event::all(format!(
                    "{a}, on foot, attacks the front of the cavalry {target}: {said} against quality {}: {} (12.1.5).",
                    u.q(),
                    if bad { "Disorganized, and its attack is called off" } else { "the attack goes in" }
                )));
                if bad {
                    disorganize(s, &a, false, dice, ev);
                    attackers.retain(|x| x != &a);
                }
            }
        }
    }
    if attackers.is_empty() {
        return;
    }
    // A12: attacking into terrain (or across a hexside) that would
    // Disorganize the attacker entering it.
    for a in attackers.clone() {
        let u = s.unit(&a).cloned().expect("attacker");
        let Some(ah) = u.at() else { continue };
        if let Some(what) = super::act::entry_disorganizes(s, &u, ah, dh).filter(|_| !u.disorganized) {
            ev.push(Event::all(format!("{a} attacks into terrain that Disorganizes it, as if it {what} (10.6.1).")));
            disorganize(s, &a, false, dice, ev);
        }
    }
    let lead = s.unit(&attackers[0]).cloned().expect("lead");
    let d = s.unit(target).cloned().expect("defender");
    let t = &s.tables;
    let mut shifts: Vec<(String, i32)> = Vec::new();
    // Position: the best arc of any attacker (10.6.1).
    let mut pos = 0;
    for a in &attackers {
        let ah = s.unit(a).and_then(|u| u.at()).expect("alive");
        match s.arc_of(&d, ah) {
            Some(Arc::Rear) => pos = pos.max(t.melee.rear),
            Some(Arc::Flank) => pos = pos.max(t.melee.flank),
            _ => {}
        }
    }
    if pos > 0 {
        shifts.push((if pos == t.melee.rear { "rear" } else { "flank" }.into(), pos));
    }
    if attackers.len() > 1 {
        shifts.push((
            format!("{} more attackers", attackers.len() - 1),
            (attackers.len() as i32 - 1) * t.melee.extra_attacker,
        ));
    }
    let ut = t.unit_type.get(lead.kind.name(), d.kind.name());
    if ut != 0 {
        shifts.push((format!("{} against {}", lead.kind.name(), d.kind.name()), ut));
    }
    let caricas =
        attackers.iter().filter(|a| act.carica.contains(a) && s.unit(a).map(|u| u.cavalry()).unwrap_or(false)).count()
            as i32;
    if caricas > 0 {
        shifts.push(("Carica!".into(), caricas * t.melee.carica));
    }
    let dis_att = attackers.iter().filter(|a| s.unit(a).map(|u| u.disorganized).unwrap_or(false)).count() as i32;
    let dis = if d.disorganized { t.melee.disorganized } else { 0 } - dis_att * t.melee.disorganized;
    if dis != 0 {
        shifts.push(("Disorganized units".into(), dis));
    }
    let ar = t.armour.get(&lead.armour, &d.armour);
    if ar != 0 {
        shifts.push((format!("armour {} against {}", lead.armour, d.armour), ar));
    }
    if let Some(tr) = s.terrain_at(dh).filter(|x| x.defender_shift != 0) {
        shifts.push((format!("defender in {}", tr.name), tr.defender_shift));
    }
    let dh_height = s.map.height(dh);
    let height_of = |a: &String| s.unit(a).and_then(|u| u.at()).map(|h| s.map.height(h)).unwrap_or(0);
    if attackers.iter().any(|a| height_of(a) > dh_height) {
        shifts.push(("higher ground".into(), t.melee.higher_ground));
    }
    if let Some(tr) = s.terrain_at(dh).filter(|x| x.uphill_shift != 0) {
        if attackers.iter().all(|a| height_of(a) < dh_height) {
            shifts.push((format!("attacking up onto {}", tr.name), tr.uphill_shift));
        }
    }
    // Every attacker across one special hexside (S4.7.4's escarpment).
    let across: Vec<Option<&HexsideKind>> =
        attackers.iter().map(|a| s.unit(a).and_then(|u| u.at()).and_then(|ah| s.hexside(ah, dh))).collect();
    if let Some(Some(k)) = across.first() {
        if k.across_shift != 0 && across.iter().all(|x| x.map(|y| y.kind == k.kind).unwrap_or(false)) {
            shifts.push((format!("attacking across the {}", k.name), k.across_shift));
        }
    }
    let raw: i32 = shifts.iter().map(|x| x.1).sum();
    let col = raw.clamp(t.melee.column_min, t.melee.column_max);
    // Die modifiers (10.6.2).
    let mut drm: Vec<(String, i32)> = vec![(format!("quality {} against {}", lead.q(), d.q()), lead.q() - d.q())];
    let best_att =
        attackers.iter().filter_map(|a| s.unit(a)).map(|u| leader_bonus(s, u)).max_by_key(|x| x.0).unwrap_or_default();
    if best_att.0 != 0 {
        drm.push((format!("{} with the attackers", best_att.1), best_att.0));
    }
    let def_bonus = leader_bonus(s, &d);
    if def_bonus.0 != 0 {
        drm.push((format!("{} with the defender", def_bonus.1), -def_bonus.0));
    }
    let attacked: Vec<&String> = act.attacks.iter().map(|x| &x.1).collect();
    let mut unattacked = std::collections::BTreeSet::new();
    for a in &attackers {
        let u = s.unit(a).expect("attacker");
        let ah = u.at().expect("alive");
        for e in s.zoc_from(ah, &u.side, u.cavalry()) {
            if e.name != target && !e.disorganized && !attacked.contains(&&e.name) {
                unattacked.insert(e.name.clone());
            }
        }
    }
    if !unattacked.is_empty() {
        drm.push((
            format!("unattacked enemies beside ({})", unattacked.iter().cloned().collect::<Vec<_>>().join(", ")),
            unattacked.len() as i32 * t.melee.adjacent_unattacked,
        ));
    }
    let drm_raw: i32 = drm.iter().map(|x| x.1).sum();
    let drm_total = drm_raw.clamp(-t.melee.drm_max, t.melee.drm_max);
    let (r1, r2) = d2(dice, &format!("melee on {dh}, lead {}", lead.name), &Serves::high(&lead.side));
    let roll = (r1 + r2 + drm_total).clamp(t.melee.roll_min, t.melee.roll_max);
    let c = &t.melee.cells[(roll - t.melee.roll_min) as usize][(col - t.melee.column_min) as usize];
    let (ra, rd) = cell(c).expect("checked at set-up");
    let show = |v: &[(String, i32)]| v.iter().map(|(n, x)| format!("{x:+} {n}")).collect::<Vec<_>>().join(", ");
    ev.push(Event::all(format!(
        "Melee: {} on {target} in {dh}. Columns: {} = {}{}. Die: {r1}+{r2}, modifiers {} = {drm_total:+}; roll {roll}. Result {c}.",
        attackers.join(", "),
        if shifts.is_empty() { "none".into() } else { show(&shifts) },
        col_name(col),
        if raw != col { " (capped, 10.6.1)" } else { "" },
        show(&drm)
    )));
    s.marks.push(dh.to_string());
    let double = lead.cavalry() && !d.cavalry() && lead.armour_rank() >= d.armour_rank();
    let att_ch = ra.ch();
    let def_table = rd.ch();
    let def_ch = if double { def_table * 2 } else { def_table };
    if double && def_table > 0 {
        ev.push(Event::all(format!(
            "{target} is foot attacked by cavalry of equal or higher armour: its CH are doubled to {def_ch} (12.1.6)."
        )));
    }
    // Who takes what (10.6.4): the first attacker CH to the lead, the
    // rest shared evenly among the others, in the order COMBAT … LOSSES
    // names them, else the earliest first (A13).
    let mut share: Vec<(String, i32)> = attackers.iter().map(|a| (a.clone(), 0)).collect();
    let mut others: Vec<usize> = (1..share.len()).collect();
    others.sort_by_key(|i| fight.losses.iter().position(|x| *x == share[*i].0).unwrap_or(usize::MAX));
    if att_ch > 0 {
        share[0].1 += 1;
        for k in 0..(att_ch - 1) as usize {
            let i = if others.is_empty() { 0 } else { others[k % others.len()] };
            share[i].1 += 1;
        }
    }
    // 10.8.1 (A63): if these CH would rout every attacker and the
    // defender, the attacker keeps one unit, the lead, at printed CR - 1,
    // scoring only the CH it keeps (A28).
    let routs = |name: &str, n: i32| s.unit(name).map(|u| u.ch + n >= u.cr).unwrap_or(false);
    let everyone =
        att_ch > 0 && def_ch > 0 && routs(target, def_ch) && share.iter().all(|(a, n)| *n > 0 && routs(a, *n));
    let mut disorganized_once = std::collections::BTreeSet::new();
    if everyone {
        // The unit COMBAT … KEEP names, if it attacked, else the lead.
        let k = share.iter().position(|(a, _)| *a == fight.keep).unwrap_or(0);
        let keep = &mut share[k];
        let u = s.unit(&keep.0).expect("lead");
        keep.1 = (u.cr - 1 - u.ch).max(0);
        ev.push(Event::all(format!(
            "Every unit would rout: the attacker keeps {} on the map with {} CH, Disorganized (10.8.1).",
            keep.0,
            u.cr - 1
        )));
        let name = keep.0.clone();
        s.unit_mut(&name).expect("lead").disorganized = true;
        disorganized_once.insert(name);
    }
    let mut hit: Vec<(String, i32)> = Vec::new();
    for (a, n) in &share {
        if *n > 0 {
            take_ch(s, a, *n, dice, ev);
            hit.push((a.clone(), *n));
        }
    }
    if def_ch > 0 {
        take_ch(s, target, def_ch, dice, ev);
        hit.push((target.to_string(), def_ch));
    }
    // Retreat (10.7), or a CH more where none is possible (10.7.2): the
    // defender's table CH above the attacker's, before the
    // Disorganizations (10.6's order).
    if def_table > att_ch && s.unit(target).map(|u| u.alive()).unwrap_or(false) {
        retreat(s, target, lead.at().expect("lead on map"), dice, ev);
    }
    // D results (to the lead only) and the Disorganization of every unit
    // that took CH, at most one a unit (10.6.6, A14).
    if ra == Res::D {
        let l = attackers[0].clone();
        if disorganized_once.insert(l.clone()) {
            disorganize(s, &l, false, dice, ev);
        }
    }
    if rd == Res::D && disorganized_once.insert(target.to_string()) {
        disorganize(s, target, false, dice, ev);
    }
    for (u, _) in &hit {
        if s.unit(u).map(|x| x.alive()).unwrap_or(false) && disorganized_once.insert(u.clone()) {
            disorganize(s, u, true, dice, ev);
        }
    }
    // Wound checks (13.2) for Captains with units that took CH and stand.
    for (u, _) in &hit {
        if let Some(x) = s.unit(u).cloned().filter(|x| x.alive()) {
            let h = x.at().expect("alive");
            for c in captains_in(s, h) {
                let roll = d6(dice, &format!("wound check, {c} (+{} CH)", x.ch), &Serves::high(s.other(&x.side)));
                let total = roll + x.ch;
                let wounded = total >= s.tables.wounds.threshold;
                ev.push(Event::all(format!(
                    "Wound check for {c} with {u}: {roll} + {} CH = {total}: {} (13.2).",
                    x.ch,
                    if wounded { "wounded" } else { "unharmed" }
                )));
                if wounded {
                    wounds_table(s, &c, dice, ev);
                }
            }
        }
    }
    // Advance (10.9): the lead unit must enter the emptied hex.
    if s.unit_at(dh).is_none() && s.unit(&lead.name).map(|u| u.alive()).unwrap_or(false) {
        advance(s, &lead.name, dh, fight.advance, dice, ev);
    }
}

/// A unit advances into an emptied hex (10.9; 12.1.4 for a charger whose
/// militia target routed before combat): no order needed, its Captains go
/// with it, it may turn one vertex (10.9.1), the terrain may Disorganize
/// it (8.2.4), and units it now flanks may pivot (6.2).
pub fn advance(s: &mut State, name: &str, into: Hex, face: Option<Vertex>, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(l) = s.unit(name).cloned() else { return };
    let Some(from) = l.at() else { return };
    if s.step(from, into, l.cavalry()).is_none() {
        return;
    }
    super::act::arrive(s, name, into, ev);
    for who in captains_in(s, from) {
        if side_of_leader(s, &who).as_deref() == Some(l.side.as_str()) {
            move_leader(s, &who, Some(into));
        }
    }
    ev.push(Event::all(format!("{name} advances into {into} (10.9).")));
    if let Some(v) = face {
        if l.facing.turns(v) <= 1 {
            s.unit_mut(name).expect("unit").facing = v;
            ev.push(Event::all(format!("{name} turns to {} as it advances (10.9.1).", orders::vertex_word(v))));
        } else {
            ev.push(Event::all(format!(
                "{name} may turn one vertex only on its advance (10.9.1): it keeps {}.",
                orders::vertex_word(l.facing)
            )));
        }
    }
    super::act::terrain_entry(s, name, from, into, dice, ev);
    if s.unit(name).map(|u| u.alive()).unwrap_or(false) {
        super::act::reaction_pivots(s, name, dice, ev);
        super::act::release_near(s, into, &l.side, ev);
    }
}

/// Put a leader in a hex, or off the map (`None`).
fn move_leader(s: &mut State, name: &str, to: Option<Hex>) {
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

pub fn col_name(c: i32) -> String {
    match c {
        0 => "column 0".into(),
        c if c > 0 => format!("column {c}R"),
        c => format!("column {}L", -c),
    }
}

/// A retreat (10.7.1, 10.7.2, reading A16; S2.8's Tiber, A17).
fn retreat(s: &mut State, name: &str, from_attacker: Hex, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let u = s.unit(name).cloned().expect("unit");
    let at = u.at().expect("alive");
    let g = s.grid();
    let Some(d) = g.direction(at, from_attacker) else { return };
    let away = d.turn(3);
    let candidates: Vec<Hex> = [away, away.turn(-1), away.turn(1)].iter().filter_map(|&x| g.neighbour(at, x)).collect();
    let free = |h: &Hex| s.step(at, *h, u.cavalry()).is_some() && s.unit_at(*h).is_none();
    let pick = if candidates.first().map(free).unwrap_or(false) {
        candidates.first().copied()
    } else {
        let sides: Vec<Hex> = candidates.iter().skip(1).copied().filter(free).collect();
        sides.iter().find(|h| !s.enemy_zoc(**h, &u.side, u.cavalry())).or(sides.first()).copied()
    };
    match pick {
        Some(h) => {
            super::act::arrive(s, name, h, ev);
            for c in captains_in(s, at) {
                if side_of_leader(s, &c).as_deref() == Some(u.side.as_str()) {
                    move_leader(s, &c, Some(h));
                }
            }
            ev.push(Event::all(format!("{name} retreats from {at} to {h} (10.7.1).")));
            if s.policies.get(&u.side).map(|p| p.retreat == "turn").unwrap_or(false) {
                let v = super::act::toward(s, h, from_attacker, u.facing);
                if v != u.facing {
                    s.unit_mut(name).expect("unit").facing = v;
                    ev.push(Event::all(format!(
                        "{name} turns to {} toward its attacker (10.7.1, REACT RETREAT TURN).",
                        orders::vertex_word(v)
                    )));
                }
            }
            s.marks.push(h.to_string());
            super::act::terrain_entry(s, name, at, h, dice, ev);
            if s.unit(name).map(|u| u.alive()).unwrap_or(false) {
                super::act::release_near(s, h, &u.side, ev);
            }
        }
        None => {
            let river = candidates.iter().any(|h| s.map.glyph(*h) == 't');
            if river {
                ev.push(Event::all(format!("{name} must retreat into the Tiber and is eliminated (S2.8).")));
                rout(s, name, dice, ev);
            } else {
                ev.push(Event::all(format!("{name} cannot retreat from {at}: 1 CH more (10.7.2).")));
                take_ch(s, name, 1, dice, ev);
            }
        }
    }
}
