//! Segment 5 (4.0 s5, 10.5-10.9): the declared attacks resolved in the
//! active player's order, with the column shifts and die modifiers of
//! 10.6.1-10.6.2, the SCT, Cohesion Losses shared and doubled, retreat
//! and advance, and the captures pending at the segment's end. What the
//! losses set off (Disorganization, rout, Captains' wounds) is `effects`.

use super::effects::{
    self, captains_in, d2, d6, disorganize, fall, move_leader, rout, side_of_leader, take_ch, wounds_table,
};
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

/// The melee segment (4.0 s5) for the attacks declared so far.
pub fn segment(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(act) = s.act.clone() else { return };
    if act.attacks.is_empty() {
        return;
    }
    // The order: COMBAT lines first, then first declaration (10.5.2).
    let mut targets: Vec<Combat> = Vec::new();
    for c in &act.combats {
        if let Some(name) = effects::resolve_target(s, &c.target, &act.role) {
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
                let (roll, said) = effects::morale(s, &u, "morale before melee", dice);
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
        if let Some(what) = effects::entry_disorganizes(s, &u, ah, dh).filter(|_| !u.disorganized) {
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
    effects::arrive(s, name, into, ev);
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
    effects::terrain_entry(s, name, from, into, dice, ev);
    if s.unit(name).map(|u| u.alive()).unwrap_or(false) {
        effects::reaction_pivots(s, name, dice, ev);
        effects::release_near(s, into, &l.side, ev);
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
            effects::arrive(s, name, h, ev);
            for c in captains_in(s, at) {
                if side_of_leader(s, &c).as_deref() == Some(u.side.as_str()) {
                    move_leader(s, &c, Some(h));
                }
            }
            ev.push(Event::all(format!("{name} retreats from {at} to {h} (10.7.1).")));
            if s.policies.get(&u.side).map(|p| p.retreat == "turn").unwrap_or(false) {
                let v = effects::toward(s, h, from_attacker, u.facing);
                if v != u.facing {
                    s.unit_mut(name).expect("unit").facing = v;
                    ev.push(Event::all(format!(
                        "{name} turns to {} toward its attacker (10.7.1, REACT RETREAT TURN).",
                        orders::vertex_word(v)
                    )));
                }
            }
            s.marks.push(h.to_string());
            effects::terrain_entry(s, name, at, h, dice, ev);
            if s.unit(name).map(|u| u.alive()).unwrap_or(false) {
                effects::release_near(s, h, &u.side, ev);
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
