//! (b) Espionage: sacking, a spy's secret quality on his first mission, the
//! opposed roll with the Security Officer's +1, the five outcome bands, and
//! every Information and Sabotage effect on the ledger. A spy's rolls are on
//! his own side's private stream; the side spied upon hears only what it
//! would notice (sabotage done to it, a spy it caught).

use super::ledger::quality_word;
use super::orders::{Order, Plan};
use super::{other, side_name, Rank, SpyStatus, State, GARRISON};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::Event;

/// How a mission came out, by the spy's total minus the other side's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Band {
    /// Greater by 2 or more: extra-successful, spy remains active.
    Extra,
    /// Greater by 1: successful, spy remains active.
    Success,
    /// Equal or 1 less: fails, spy remains active.
    Fail,
    /// 2-3 less: fails and the spy is lost (a bad failure).
    Lost,
    /// 4 or more less: the spy is executed after revealing one item.
    Executed,
}

impl Band {
    pub fn of(margin: i32) -> Band {
        match margin {
            m if m >= 2 => Band::Extra,
            1 => Band::Success,
            0 | -1 => Band::Fail,
            -3 | -2 => Band::Lost,
            _ => Band::Executed,
        }
    }
    pub fn text(self) -> &'static str {
        match self {
            Band::Extra => "mission extra-successful; the spy remains active",
            Band::Success => "mission successful; the spy remains active",
            Band::Fail => "mission fails, but the spy remains active",
            Band::Lost => "mission fails and the spy is lost",
            Band::Executed => "mission fails; the spy is captured and executed, but first is forced to reveal one information item about his own army",
        }
    }
    pub fn bad(self) -> bool {
        matches!(self, Band::Lost | Band::Executed)
    }
}

pub fn run(s: &mut State, plan: &Plan, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let side = s.active.clone();
    for name in &plan.sack {
        if let Some(spy) = s.army_mut(&side).spy_mut(name) {
            spy.status = SpyStatus::Sacked;
            ev.push(Event::to_role(
                &side,
                format!("{name} is sacked (no cost; replacing him will cost 1 Resolve Pt)."),
            ));
        }
    }
    for m in &plan.missions {
        mission(s, &side, m, dice, ev);
        // A mission that meets a Victory Condition ends the game at once:
        // the missions after it are not run.
        if s.check_end(ev) {
            return;
        }
    }
}

fn mission(s: &mut State, side: &str, order: &Order, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let Order::Mission { spy, key, target, walls } = order else { return };
    let stream = StreamId::role(side);
    let enemy = other(side);
    let Some(m) = s.data().mission(key).cloned() else { return };
    let Some(q) =
        s.army(side).spies.iter().find(|x| x.name == *spy && x.status == SpyStatus::Active).map(|x| x.quality)
    else {
        ev.push(Event::to_role(side, format!("{spy} is no longer active: no mission.")));
        return;
    };
    let quality = match q {
        Some(q) => q as i32,
        None => {
            let r = dice.roll(&stream, 6, &format!("quality of spy {spy}"), &Serves::high(side));
            let q = r.div_ceil(2) as u8;
            s.army_mut(side).spy_mut(spy).expect("active").quality = Some(q);
            ev.push(Event::to_role(
                side,
                format!("{spy} is untried: quality roll {r}, so quality {q} ({}) — a secret note.", quality_word(q)),
            ));
            q as i32
        }
    };
    let sr = dice.roll(&stream, 6, &format!("spy {spy}, mission roll"), &Serves::high(side)) as i32;
    // The defending roll is the moderator's secret: with the Security
    // Officer's +1 beside it, it would tell the spying side whether the
    // enemy has one.
    let dr = dice.roll(
        &StreamId::Moderator,
        6,
        &format!("spy {spy} of the {}, the defending roll", side_name(side)),
        &Serves::high(enemy),
    ) as i32;
    let security = i32::from(s.army(enemy).security());
    let (st, dt) = (sr + quality, dr + m.difficulty + security);
    let band = Band::of(st - dt);
    let head = format!("Spy {spy} ({}) — {} (difficulty {})", quality_word(quality as u8), m.title, m.difficulty);
    ev.push(Event::only(side, format!("{head}: spy {sr}+{quality} = {st}: {}.", band.text())));
    ev.push(Event::gm(format!(
        "{head}: spy {sr}+{quality} = {st} against {dr}+{}{} = {dt}: {}.",
        m.difficulty,
        if security == 1 { "+1 (Security Officer)" } else { "" },
        band.text()
    )));
    let title = m.title.clone();
    match band {
        Band::Extra | Band::Success => effect(s, side, key, target.as_deref(), walls, band == Band::Extra, dice, ev),
        Band::Fail => {}
        Band::Lost => s.army_mut(side).spy_mut(spy).expect("active").status = SpyStatus::Lost,
        Band::Executed => {
            s.army_mut(side).spy_mut(spy).expect("active").status = SpyStatus::Executed;
            confess(s, side, spy, &title, dice, ev);
        }
    }
    if band.bad() && key == "sabotage-support" {
        s.change_ls(1, "an enemy agent's clumsy agitation rallies the citizens", ev);
        ev.push(Event::to_role(side, "The failure backfires: Local Support for the Garrison rises by 1."));
    }
}

#[allow(clippy::too_many_arguments)]
fn effect(
    s: &mut State,
    side: &str,
    key: &str,
    target: Option<&str>,
    walls: &[String],
    extra: bool,
    dice: &mut dyn Dice,
    ev: &mut Vec<Event>,
) {
    let stream = StreamId::role(side);
    let enemy = other(side);
    let half = |r: u32, s: &State| s.data().rounding.apply(r as i32, 2);
    match key {
        k if k.starts_with("info-") => {
            let (item, value) = s.figure(enemy, k, walls);
            s.learn(side, &item, value, "Spy report", ev);
        }
        "sabotage-food" => {
            let r = dice.roll(&stream, 6, "food contamination", &Serves::high(side));
            let n = if extra { r as i32 } else { half(r, s) };
            let b = s.town.food;
            s.town.food -= n;
            ev.push(Event::to_role(side, format!("The Garrison's food and water are spoiled: -{n} turns of Food.")));
            ev.push(Event::to_role(
                GARRISON,
                format!("Sabotage! Food and water contaminated: Food {b} → {} turns in store.", s.town.food),
            ));
        }
        "sabotage-desertion" => {
            let n = if extra {
                half(dice.roll(&stream, 6, "desertion, number of hits", &Serves::high(side)), s) as u32
            } else {
                1
            };
            for k in 1..=n {
                // Among the units on the table: the die's size must not
                // count the enemy's miners.
                let alive: Vec<String> =
                    s.army(enemy).alive_units().filter(|u| u.kind.on_table()).map(|u| u.name.clone()).collect();
                if alive.is_empty() {
                    break;
                }
                let i = dice.roll(
                    &stream,
                    alive.len() as u32,
                    &format!("desertion, unit for hit {k}"),
                    &Serves::neither(side),
                ) as usize
                    - 1;
                s.hit(enemy, &alive[i], 1, true, "Desertion", ev);
            }
        }
        "sabotage-powder" => {
            let mut n = dice.roll(&stream, 6, "powder damage, first die", &Serves::high(side)) as i32;
            if extra {
                n += dice.roll(&stream, 6, "powder damage, second die", &Serves::high(side)) as i32;
            }
            let a = s.army_mut(enemy);
            let b = a.powder;
            a.powder = (a.powder - n).max(0);
            let after = a.powder;
            ev.push(Event::to_role(side, format!("Sabotage done: the enemy's powder store loses {n} loads.")));
            ev.push(Event::to_role(
                enemy,
                format!("Sabotage! The powder store is damaged: powder {b} → {after} loads."),
            ));
        }
        "sabotage-support" => {
            s.change_ls(-1, "Sabotage: agitators turn the citizens against the Garrison", ev);
            ev.push(Event::to_role(side, "Local Support for the Garrison falls by 1 (and its Resolve with it)."));
        }
        "sabotage-fire" => {
            let n = if extra { 2 } else { 1 };
            s.town.fires += n;
            ev.push(Event::all(format!(
                "{} in the town ({} now burning).",
                if n == 1 { "A fire breaks out" } else { "Two fires break out" },
                s.town.fires
            )));
        }
        "kill-officer" => {
            let t = match target {
                Some(super::orders::SECURITY_TARGET) => {
                    let so = s.army(enemy).officers.iter().find(|o| o.rank == Rank::Security && o.alive);
                    so.map(|o| o.name.clone())
                }
                t => t.map(str::to_string),
            };
            match t {
                // Killed meanwhile (by the moderator's entries for the card).
                Some(t) if s.army(enemy).officer(&t).map(|o| !o.alive).unwrap_or(true) => {
                    ev.push(Event::to_role(side, format!("{t} was already dead.")))
                }
                Some(t) => s.kill(enemy, &t, "Assassinated by a spy", ev),
                None => ev.push(Event::gm("There was no Security Officer to kill.")),
            }
        }
        "kill-commander" => {
            let cinc = s.army(enemy).officers.iter().find(|o| o.rank == Rank::Commander && o.alive);
            match cinc.map(|o| o.name.clone()) {
                Some(c) => s.kill(enemy, &c, "Assassinated by a spy", ev),
                None => ev.push(Event::to_role(side, "The enemy Commander was already dead.")),
            }
        }
        _ => {}
    }
}

/// A captured spy reveals one information item about his own army, chosen
/// by a die on his captors' stream among the items they may seek.
fn confess(s: &mut State, side: &str, spy: &str, mission: &str, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let captors = other(side);
    let stream = StreamId::role(captors);
    let items: Vec<String> = s
        .data()
        .missions
        .iter()
        .filter(|m| m.key.starts_with("info-") && m.open_to(captors))
        .map(|m| m.key.clone())
        .collect();
    ev.push(Event::to_role(
        side,
        format!("{spy} has been captured and executed; he was forced to reveal something of ours first."),
    ));
    if items.is_empty() {
        return;
    }
    // Which secret the enemy learns: a pick, no face better than another.
    let k =
        dice.roll(&stream, items.len() as u32, &format!("what the captured spy {spy} reveals"), &Serves::neither(side))
            as usize
            - 1;
    let mut walls = Vec::new();
    if items[k] == "info-walls" {
        let n = s.town.walls.len();
        let perm = dice.shuffle(&stream, n, "wall sections the captured spy reveals", &Serves::neither(side));
        walls = perm.iter().take(3).map(|&i| s.town.walls[i].name.clone()).collect();
    }
    ev.push(Event::to_role(
        captors,
        format!("An enemy spy, {spy}, is caught attempting: {mission}. He is executed, but first is forced to talk."),
    ));
    let (item, value) = s.figure(side, &items[k], &walls);
    s.learn(captors, &item, value, &format!("Under interrogation {spy} reveals"), ev);
}
