//! The Housekeeping Phase in printed order: (a) Odd Jobs (Digging Standard,
//! Torrential Rain, fire fighting, food, the Event Card), then after the
//! card (b) Espionage, (c) Moving Officers, (d) Rallying, Recruits and
//! Replacements, Meeting with Citizens, Insurrection Control; the
//! moderator's ledger entries; the end of a Siege Turn.

use super::orders::{Order, Plan, Store, MEASURES};
use super::{
    card_class, card_name, espionage, full_deck, is_joker, other, possessive, side_name, Officer, Rank, Spy, SpyStatus,
    State, Unit, UnitKind, Whereabouts, BESIEGERS, GARRISON,
};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::Event;

/// What Torrential Rain means for the table, repeated wherever DS is 6.
pub const RAIN: &str = "no work on the surface, artillery may not move, artillery fire halves its dice (round ½ down)";

/// One part of the phase: the State, the commander's plan, the dice, the
/// events told.
type Part = fn(&mut State, &Plan, &mut dyn Dice, &mut Vec<Event>);

/// Run `parts` in order, the Victory Conditions checked after each: the
/// game ends as soon as one is met (the rulebook's "as soon as"), and
/// nothing after it happens. Returns whether the game is over.
fn in_order(parts: &[Part], s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) -> bool {
    for part in parts {
        part(s, plan, dice, ev);
        if s.check_end(ev) {
            return true;
        }
    }
    false
}

/// (a) Odd Jobs, for the side whose turn it is, up to and including the
/// Event Card draw (no card is drawn once the game is decided).
pub fn odd_jobs(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    ev.push(Event::all(format!("Siege Turn {}: {} Housekeeping.", s.turn, possessive(&side))));
    let parts: &[Part] = if side == BESIEGERS {
        &[|s, _, d, ev| digging_standard(s, d, ev), |s, _, d, ev| draw_card(s, d, ev)]
    } else {
        &[fire_fighting, |s, p, _, ev| food(s, p, ev), |s, _, d, ev| draw_card(s, d, ev)]
    };
    in_order(parts, s, plan, dice, ev);
}

fn digging_standard(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    match s.ds {
        None => {
            let d = dice.roll_n(&StreamId::Public, 2, 6, "Digging Standard set-up", &Serves::high(BESIEGERS));
            let (a, b) = (d[0], d[1]);
            s.ds = Some(a.min(b) as u8);
            ev.push(Event::all(format!(
                "Digging Standard set-up: the Commander rolls {a} and {b}; DS is the lower, {}.",
                a.min(b)
            )));
        }
        Some(ds) => {
            let r = dice.roll(&StreamId::Public, 6, "Digging Standard review", &Serves::high(BESIEGERS)) as u8;
            let new = if r < ds {
                ds - 1
            } else if r > ds {
                (ds + 1).min(6)
            } else {
                ds
            };
            s.ds = Some(new.max(1));
            let how = match r.cmp(&ds) {
                std::cmp::Ordering::Less => "lower: DS falls by 1",
                std::cmp::Ordering::Greater => "higher: DS rises by 1",
                std::cmp::Ordering::Equal => "equal: DS stays",
            };
            ev.push(Event::all(format!(
                "Digging Standard review: rolled {r} against DS {ds}, {how}; DS is now {new}."
            )));
        }
    }
    rain(s, ev);
}

/// DS 6 is Torrential Rain: every fire burning goes out.
fn rain(s: &mut State, ev: &mut Vec<Event>) {
    if s.ds != Some(6) {
        return;
    }
    let f = s.town.fires;
    s.town.fires = 0;
    ev.push(Event::all(format!(
        "Torrential Rain (DS 6): {}; no-one can beat DS 6 — {RAIN}.",
        if f > 0 { format!("all {f} fires in the town are extinguished") } else { "no fires are burning".into() }
    )));
}

fn fire_fighting(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    rain(s, ev);
    let n = s.town.fires;
    if n > 0 {
        let duty = plan.fire_duty.as_ref().filter(|u| {
            s.army(GARRISON).unit(u).map(|u| u.kind == UnitKind::Sappers && !u.eliminated).unwrap_or(false)
        });
        let need = if duty.is_some() { 4 } else { 5 };
        let mut rolls = Vec::new();
        let (mut out, mut spread) = (0, 0);
        for k in 1..=n {
            let r =
                dice.roll(&StreamId::Public, 6, &format!("fire fighting, fire {k} of {n}"), &Serves::high(GARRISON));
            rolls.push(r.to_string());
            if r >= need {
                out += 1;
            } else if r == 1 {
                spread += 1;
            }
        }
        s.town.fires = n - out + spread;
        ev.push(Event::all(format!(
            "Fire fighting{}: {n} fire{} burning, rolls {} ({need}+ puts one out, 1 spreads it): {out} extinguished, {spread} new; {} now burning.",
            duty.map(|u| format!(" ({u} on fire duty)")).unwrap_or_default(),
            if n == 1 { "" } else { "s" },
            rolls.join("-"),
            s.town.fires
        )));
    }
    let fives = (s.town.fires / 5) as i32;
    if fives > 0 {
        let why = format!(
            "{} fires still burning ({fives} complete five{})",
            s.town.fires,
            if fives == 1 { "" } else { "s" }
        );
        s.change_ls(-fives, &why, ev);
    }
}

fn food(s: &mut State, plan: &Plan, ev: &mut Vec<Event>) {
    let before = s.town.food;
    s.town.food -= 1;
    ev.push(Event::to_role(GARRISON, format!("Food rations issued: Food {before} → {} turns in store.", s.town.food)));
    let Some(i) = plan.food else { return };
    let m = &MEASURES[i];
    if s.town.measures_used.iter().any(|u| u == m.key) || !s.army(GARRISON).led() {
        ev.push(Event::to_role(GARRISON, format!("The measure to {} cannot be taken now.", m.title)));
        return;
    }
    let base = s.town.food.max(0);
    let added = m.turns + if m.percent > 0 && base > 0 { s.data().rounding.apply(base * m.percent, 100) } else { 0 };
    s.town.food += added;
    s.town.measures_used.push(m.key.to_string());
    let pct = if m.percent > 0 {
        format!(" ({}% of {base}, rounded {})", m.percent, s.data().rounding.word())
    } else {
        String::new()
    };
    ev.push(Event::to_role(
        GARRISON,
        format!("The Governor orders them to {}: +{added} turns{pct}; Food is now {}.", m.title, s.town.food),
    ));
    let why = format!("the measure to {}", m.title);
    s.change_resolve(GARRISON, m.resolve, &why, ev);
    s.change_ls(m.ls, &why, ev);
}

fn draw_card(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    if s.deck.draw.is_empty() {
        let cards = if s.deck.shuffles == 0 { full_deck() } else { std::mem::take(&mut s.deck.discard) };
        shuffle(s, cards, dice);
    }
    let card = s.deck.draw.remove(0);
    if is_joker(&card) {
        s.deck.discard.clear();
        shuffle(s, full_deck(), dice);
        ev.push(Event::all(format!(
            "Event Card: {card} — the Event Deck is shuffled and re-started (all 54 cards, shuffle {}).",
            s.deck.shuffles
        )));
        return;
    }
    let class = card_class(&card);
    let note = match class {
        "court" => " — a court card: the scenario's instructions apply",
        "2" => " — a 2: Scenario Special",
        _ => "",
    };
    if s.data().event_asks.iter().any(|a| a == class) {
        ev.push(Event::all(format!("Event Card: {}{note}. The moderator applies its effect.", card_name(&card))));
        s.card = Some(card);
    } else {
        ev.push(Event::all(format!("Event Card: {}{note}; no instruction to apply: discarded.", card_name(&card))));
        s.deck.discard.push(card);
    }
}

/// Shuffle by a committed draw on the moderator's stream, so the order of
/// the deck stays secret until the game's end reveals the seeds.
fn shuffle(s: &mut State, cards: Vec<String>, dice: &mut dyn Dice) {
    s.deck.shuffles += 1;
    let perm = dice.shuffle(
        &StreamId::Moderator,
        cards.len(),
        &format!("Event Deck shuffle {}", s.deck.shuffles),
        &Serves::nobody(),
    );
    s.deck.draw = perm.iter().map(|&i| cards[i].clone()).collect();
}

/// (b) to (d), after the Event Card has been dealt with, each part only
/// while the game is undecided.
pub fn rest(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let parts: &[Part] = &[
        espionage::run,
        |s, p, _, ev| officers(s, p, ev),
        rally,
        |s, p, _, ev| recruits(s, p, ev),
        |s, p, d, ev| {
            if s.active == GARRISON {
                meet(s, p, d, ev)
            }
        },
        |s, p, d, ev| {
            if s.active == GARRISON {
                police(s, p, d, ev)
            }
        },
    ];
    in_order(parts, s, plan, dice, ev);
}

/// (c) Officers, the Commander and Named Individuals move; what matters to
/// adjutant is which units each is attached to or within 1 hex of.
fn officers(s: &mut State, plan: &Plan, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    let ls = s.town.ls;
    for (name, near) in &plan.officers {
        let a = s.army_mut(&side);
        let alive: Vec<String> =
            near.iter().filter(|u| a.unit(u).map(|u| !u.eliminated).unwrap_or(false)).cloned().collect();
        let Some(o) = a.officer_mut(name).filter(|o| o.alive) else {
            ev.push(Event::to_role(&side, format!("{name} is dead: not moved.")));
            continue;
        };
        if o.rank == Rank::Mayor && ls < 0 {
            ev.push(Event::to_role(&side, format!("{name} cannot be moved: Local Support is negative.")));
            continue;
        }
        o.near = alive.clone();
        let place = if alive.is_empty() { "with no unit".to_string() } else { format!("with {}", alive.join(", ")) };
        ev.push(Event::to_role(&side, format!("{name} moves: now {place}.")));
    }
}

/// The +1s a unit's rally rolls get, with their reasons.
pub fn rally_bonus(s: &State, side: &str, u: &Unit) -> Vec<String> {
    let mut why = Vec::new();
    let helper = s.army(side).officers.iter().find(|o| {
        o.alive
            && o.near.contains(&u.name)
            && (matches!(o.rank, Rank::Commander | Rank::Senior) || (o.rank == Rank::Mayor && s.town.ls >= 0))
    });
    if let Some(o) = helper {
        why.push(format!("+1 {} ({}) within 1 hex", o.name, o.rank.title()));
    }
    if u.place != Whereabouts::Danger {
        why.push("+1 out of immediate danger".into());
    }
    why
}

fn rally(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    if plan.rally.is_empty() {
        return;
    }
    if !s.army(&side).led() {
        ev.push(Event::to_role(&side, "There is no Commander to rally troops: no rallying this turn."));
        return;
    }
    for name in &plan.rally {
        let u = s.army(&side).unit(name).expect("validated").clone();
        let why_not = if u.eliminated {
            Some("it has been eliminated")
        } else if u.hits == 0 {
            Some("it has no hits that may be rallied")
        } else if u.silenced() && u.place != Whereabouts::Safe {
            Some("artillery with 2 hits is repaired only in the Safe Place")
        } else {
            None
        };
        if let Some(w) = why_not {
            ev.push(Event::to_role(&side, format!("{name} is skipped: {w}.")));
            continue;
        }
        let bonus = rally_bonus(s, &side, &u);
        let need = 6 - bonus.len() as u32;
        let rolls: Vec<u32> =
            // On the side's own stream: the enemy may count the counters
            // that come off, but the dice against their target would tell
            // how many +1s the unit had (a Mayor's tells LS is not negative).
            (1..=u.hits).map(|k| dice.roll(&StreamId::role(&side), 6, &format!("rally {name}, hit {k} of {}", u.hits), &Serves::high(&side))).collect();
        let removed = rolls.iter().filter(|&&r| r >= need).count() as u32;
        let unit = s.army_mut(&side).unit_mut(name).expect("validated");
        unit.hits -= removed;
        unit.hold = true;
        let shown = rolls.iter().map(|r| r.to_string()).collect::<Vec<_>>().join("-");
        let plural = if u.hits == 1 { "" } else { "s" };
        ev.push(Event::to_role(
            &side,
            format!(
                "Rallying {name} ({} hit{plural}, {need}+ to remove one{}): rolls {shown} — {removed} removed; Hold marker.",
                u.hits,
                if bonus.is_empty() { String::new() } else { format!(": {}", bonus.join(", ")) },
            ),
        ));
        // The enemy sees counters come off units on the table, not who
        // helped (a Mayor's help would tell that LS is not negative).
        if u.kind.on_table() {
            ev.push(Event::only(
                other(&side),
                format!(
                    "The {} rally {name} ({} hit{plural}): {removed} removed; Hold marker.",
                    side_name(&side),
                    u.hits
                ),
            ));
        }
        if removed == 0 {
            ev.push(Event::to_role(&side, format!("No loss counter came off {name}: rallying ends for this turn.")));
            break;
        }
    }
}

/// Recruits and Replacements, or, with the Commander dead, only promotion.
fn recruits(s: &mut State, plan: &Plan, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    let a = s.army(&side);
    if a.commander().is_none() {
        let candidates = super::orders::candidates(s, &side);
        match &plan.promote {
            Some(p) if candidates.contains(p) => {
                let o = s.army_mut(&side).officer_mut(p).expect("candidate");
                o.rank = Rank::Commander;
                ev.push(Event::all(format!("{p} is promoted to command the {}.", side_name(&side))));
            }
            _ if candidates.is_empty() => {
                ev.push(Event::all(format!(
                    "The {} have no Commander and nobody to promote: they can no longer rally troops{}.",
                    side_name(&side),
                    if side == GARRISON { ", negotiate with the townspeople or manage the Food supply" } else { "" }
                )));
            }
            _ => ev.push(Event::to_role(
                &side,
                format!("The Commander is dead: PROMOTE one of {} (no cost).", candidates.join(", ")),
            )),
        }
        if !plan.recruits.is_empty() {
            ev.push(Event::to_role(&side, "With the Commander dead, nobody may be recruited this turn."));
        }
        return;
    }
    for (what, name) in &plan.recruits {
        use super::orders::Recruit;
        // The ledger may have changed since the orders were checked (the
        // moderator's entries for the Event Card).
        if super::orders::name_taken(s, &side, name) {
            ev.push(Event::to_role(&side, format!("{name} is not recruited: the name is now in use.")));
            continue;
        }
        let (left, words) = super::orders::room(s.army(&side), &s.data().limits, *what);
        if left == 0 {
            ev.push(Event::to_role(&side, format!("{name} is not recruited: {words}.")));
            continue;
        }
        let a = s.army_mut(&side);
        match what {
            Recruit::Spy => a.spies.push(Spy { name: name.clone(), quality: None, status: SpyStatus::Active }),
            Recruit::Sappers | Recruit::Miners => a.units.push(Unit::new(
                name,
                if *what == Recruit::Miners { UnitKind::Miners } else { UnitKind::Sappers },
                2,
                Whereabouts::Safe,
            )),
            Recruit::Named | Recruit::Security => a.officers.push(Officer {
                name: name.clone(),
                rank: if *what == Recruit::Named { Rank::Named } else { Rank::Security },
                alive: true,
                near: Vec::new(),
            }),
        }
        let label = match what {
            Recruit::Spy => "a spy",
            Recruit::Sappers => "a Sapper Team",
            Recruit::Miners => "Miners",
            Recruit::Named => "a Named Individual",
            Recruit::Security => "a Security Officer",
        };
        let text = format!("{} recruit {label}, {name}", side_name(&side));
        if matches!(what, Recruit::Sappers | Recruit::Named) {
            ev.push(Event::all(format!("The {text}.")));
        } else {
            ev.push(Event::to_role(&side, format!("The {text}.")));
        }
        s.change_resolve(&side, -what.cost(), &format!("recruiting {name}"), ev);
    }
}

fn meet(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Some(mayor) = plan.meet else { return };
    let g = s.army(GARRISON);
    let who = if mayor {
        g.officers.iter().find(|o| o.rank == Rank::Mayor && o.alive).filter(|_| s.town.ls >= 0)
    } else {
        g.commander()
    };
    let Some(who) = who.filter(|_| g.led()).map(|o| o.name.clone()) else {
        ev.push(Event::to_role(GARRISON, "The meeting with the citizens cannot take place."));
        return;
    };
    let r = dice.roll(&StreamId::role(GARRISON), 6, "meeting with citizens", &Serves::high(GARRISON));
    match r {
        6 => s.change_ls(1, &format!("{who} meets the citizens, rolled 6: the meeting has gone well"), ev),
        1 => s.change_ls(-1, &format!("{who} meets the citizens, rolled 1: the meeting has been a disaster"), ev),
        _ => ev.push(Event::to_role(GARRISON, format!("{who} meets the citizens, rolled {r}: nothing changes."))),
    }
}

/// Half-battalions of policing that Local Support calls for.
pub fn policing_required(ls: i32) -> u32 {
    match ls {
        l if l > 0 => 0,
        0 => 1,
        -1 => 2,
        -2 => 3,
        _ => 4,
    }
}

fn police(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    for u in s.army_mut(GARRISON).units.iter_mut() {
        u.police = false;
    }
    let need = policing_required(s.town.ls);
    if need == 0 {
        if !plan.police.is_empty() {
            ev.push(Event::to_role(
                GARRISON,
                "Local Support is positive: no policing is needed; the troops stay free.",
            ));
        }
        return;
    }
    let mut given = 0;
    let mut sent = Vec::new();
    for name in &plan.police {
        let g = s.army_mut(GARRISON);
        let Some(u) = g.unit_mut(name).filter(|u| !u.eliminated && u.kind == UnitKind::Infantry) else { continue };
        u.police = true;
        u.hold = true;
        given += u.halves;
        sent.push(name.clone());
    }
    let short = need.saturating_sub(given);
    let halves = |n: u32| match (n / 2, n % 2) {
        (0, 1) => "½".to_string(),
        (w, 1) => format!("{w}½"),
        (w, _) => w.to_string(),
    };
    let mut text = format!(
        "Insurrection Control: LS {} calls for {} battalion(s) in the town; {} provided{}",
        s.town.ls,
        halves(need),
        halves(given),
        if sent.is_empty() { String::new() } else { format!(" ({})", sent.join(", ")) }
    );
    if short == 0 {
        text.push('.');
        ev.push(Event::to_role(GARRISON, text));
        return;
    }
    let rolls: Vec<u32> = (1..=short)
        .map(|k| {
            dice.roll(
                &StreamId::role(GARRISON),
                6,
                &format!("insurrection, half-battalion short {k}"),
                &Serves::low(GARRISON),
            )
        })
        .collect();
    let hits = rolls.iter().filter(|&&r| r >= 5).count() as u32;
    text.push_str(&format!(
        "; short by {short} half-battalion(s): rolls {} (5 or 6 is a hit) — {hits} hit(s) on the Garrison.",
        rolls.iter().map(|r| r.to_string()).collect::<Vec<_>>().join("-")
    ));
    ev.push(Event::to_role(GARRISON, text));
    for _ in 0..hits {
        let Some(u) = riot_target(s, plan) else { break };
        s.hit(GARRISON, &u, 1, false, "Losses", ev);
    }
}

/// Where the Governor's insurrection hits go: the first unit of his RIOT
/// HITS list still in being, else the infantry with the fewest hits.
fn riot_target(s: &State, plan: &Plan) -> Option<String> {
    let g = s.army(GARRISON);
    plan.riot.iter().find(|n| g.unit(n).map(|u| !u.eliminated).unwrap_or(false)).cloned().or_else(|| {
        g.alive_units()
            .filter(|u| u.kind == UnitKind::Infantry)
            .min_by_key(|u| u.total_hits())
            .or_else(|| g.alive_units().next())
            .map(|u| u.name.clone())
    })
}

/// The moderator's entries: table-top results and event effects, in the
/// order written; the first entry that ends the game (a Victory Condition
/// met, or agreed terms) is the last applied.
pub fn moderator(s: &mut State, orders: &[Order], ev: &mut Vec<Event>) {
    for o in orders {
        let mut ending = None;
        match o {
            Order::Hits { side, unit, n, lasting } => {
                s.hit(side, unit, *n, *lasting, "From the table", ev);
            }
            Order::Kill { side, name } => s.kill(side, name, "From the table", ev),
            Order::Resolve { side, delta, why } => {
                let why = if why.is_empty() { "the moderator's entry".to_string() } else { why.clone() };
                s.change_resolve(side, *delta, &why, ev);
            }
            Order::Ls { delta } => s.change_ls(*delta, "the moderator's entry", ev),
            Order::Stores { what: Store::Food, delta, .. } => {
                let b = s.town.food;
                s.town.food += delta;
                ev.push(Event::to_role(GARRISON, format!("Food {b} → {} (moderator).", s.town.food)));
            }
            Order::Stores { what: Store::Powder, side, delta } => {
                let a = s.army_mut(side);
                let b = a.powder;
                a.powder += delta;
                ev.push(Event::to_role(
                    side,
                    format!("{} powder {b} → {} loads (moderator).", side_name(side), a.powder),
                ));
            }
            Order::Fires { delta } => {
                let b = s.town.fires;
                s.town.fires = (b as i32 + delta).max(0) as u32;
                ev.push(Event::all(format!("Fires in the town: {b} → {}.", s.town.fires)));
            }
            Order::Place { side, unit, at } => {
                if let Some(u) = s.army_mut(side).unit_mut(unit) {
                    u.place = *at;
                    let w = match at {
                        Whereabouts::Danger => "within 2 hexes of the enemy",
                        Whereabouts::Clear => "out of immediate danger",
                        Whereabouts::Safe => "in the Safe Place",
                    };
                    ev.push(Event::to_role(side, format!("{unit} is {w}.")));
                }
            }
            Order::Wall { section, strength } => {
                if let Some(w) = s.town.walls.iter_mut().find(|w| w.name == *section) {
                    w.strength = *strength;
                    ev.push(Event::to_role(GARRISON, format!("{section}: strength {strength}.")));
                }
            }
            Order::Mining { side, text } => {
                s.army_mut(side).mining = text.clone();
                ev.push(Event::to_role(side, format!("Mining status: {text}")));
            }
            Order::Ds { value } => {
                s.ds = Some(*value);
                ev.push(Event::all(format!("The Digging Standard is set to {value}.")));
                rain(s, ev);
            }
            Order::Reinforce { side, kind, name } => {
                s.army_mut(side).units.push(Unit::new(name, *kind, 2, Whereabouts::Clear));
                let text = format!("{name} ({}) joins the {}.", kind.word(), side_name(side));
                ev.push(if kind.on_table() { Event::all(text) } else { Event::to_role(side, text) });
            }
            Order::Victory { side, why } => ending = Some((Some(side.clone()), why.clone())),
            Order::Surrender { side } => {
                ending = Some((Some(other(side).to_string()), format!("the {} surrender", side_name(side))))
            }
            Order::Abandon => ending = Some((Some(GARRISON.to_string()), "the Besiegers abandon the siege".into())),
            _ => {}
        }
        if let Some((winner, why)) = ending {
            ev.push(Event::all(format!("The game ends: {why}.")));
            s.end(winner, why);
        }
        if s.check_end(ev) {
            return;
        }
    }
}

/// The table-top phases are reported: the turn passes to the other side.
pub fn end_turn(s: &mut State, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    for u in s.army_mut(&side).units.iter_mut() {
        u.hold = false;
    }
    s.turn += 1;
    s.active = other(&side).to_string();
    s.phase = super::Phase::Housekeeping;
    ev.push(Event::all(format!("Siege Turn {} begins: {} turn.", s.turn, possessive(&s.active))));
}
