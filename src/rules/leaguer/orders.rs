//! Leaguer order lines: the commanders' Housekeeping decisions and the
//! moderator's ledger entries, parsed into typed orders (names matched by
//! `rules::shared::names`) and checked against the ledger.

use super::{other, Army, Limits, Rank, SpyStatus, State, UnitKind, Whereabouts, BESIEGERS, GARRISON, GM};
use crate::engine::Problem;
use crate::rules::shared::{names, parse};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The once-per-game food measures, in printed order: keyword, what it
/// is, percent added (or turns added), Resolve and LS changes.
pub struct Measure {
    pub key: &'static str,
    pub title: &'static str,
    pub percent: i32,
    pub turns: i32,
    pub resolve: i32,
    pub ls: i32,
}

pub const MEASURES: &[Measure] = &[
    Measure { key: "RATIONS", title: "reduce rations for everyone", percent: 10, turns: 0, resolve: -3, ls: 0 },
    Measure { key: "REQUISITION", title: "requisition food from citizens", percent: 10, turns: 0, resolve: 0, ls: -1 },
    Measure { key: "HORSES", title: "slaughter all horses", percent: 0, turns: 3, resolve: 0, ls: -1 },
    Measure { key: "PETS", title: "slaughter domestic animals and pets", percent: 0, turns: 1, resolve: 0, ls: -1 },
    Measure { key: "EJECT", title: "eject unproductive citizens from town", percent: 33, turns: 0, resolve: 0, ls: -2 },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Recruit {
    Spy,
    Sappers,
    Miners,
    Named,
    Security,
}

impl Recruit {
    const ALL: [(Recruit, &'static str); 5] = [
        (Recruit::Spy, "SPY"),
        (Recruit::Sappers, "SAPPERS"),
        (Recruit::Miners, "MINERS"),
        (Recruit::Named, "NAMED"),
        (Recruit::Security, "SECURITY"),
    ];
    pub fn word(self) -> &'static str {
        Recruit::ALL.iter().find(|(r, _)| *r == self).map(|(_, w)| *w).unwrap_or("SPY")
    }
    /// Resolve Pts it costs: 1, Miners 3.
    pub fn cost(self) -> i32 {
        if self == Recruit::Miners {
            3
        } else {
            1
        }
    }
}

/// Serializable: the commander's orders wait in the state, typed, while
/// the moderator applies the Event Card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Order {
    // The commanders' Housekeeping.
    Food { measure: usize },
    FireDuty { unit: String },
    Sack { spy: String },
    Mission { spy: String, key: String, target: Option<String>, walls: Vec<String> },
    Officer { name: String, near: Vec<String> },
    Rally { units: Vec<String> },
    Recruit { what: Recruit, name: String },
    Promote { officer: String },
    Meet { mayor: bool },
    Police { units: Vec<String> },
    RiotHits { units: Vec<String> },
    Pass,
    // The moderator's ledger entries.
    Hits { side: String, unit: String, n: u32, lasting: bool },
    Kill { side: String, name: String },
    Resolve { side: String, delta: i32, why: String },
    Ls { delta: i32 },
    Stores { what: Store, side: String, delta: i32 },
    Fires { delta: i32 },
    Place { side: String, unit: String, at: Whereabouts },
    Wall { section: String, strength: i32 },
    Mining { side: String, text: String },
    Ds { value: u8 },
    Reinforce { side: String, kind: UnitKind, name: String },
    Victory { side: String, why: String },
    Surrender { side: String },
    Abandon,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Store {
    Food,
    Powder,
}

fn signed(n: i32) -> String {
    if n >= 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

fn place_word(w: Whereabouts) -> &'static str {
    match w {
        Whereabouts::Danger => "DANGER",
        Whereabouts::Clear => "CLEAR",
        Whereabouts::Safe => "SAFE",
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Food { measure } => write!(f, "FOOD {}", MEASURES[*measure].key),
            Order::FireDuty { unit } => write!(f, "FIRE DUTY {unit}"),
            Order::Sack { spy } => write!(f, "SACK {spy}"),
            Order::Mission { spy, key, target, walls } => {
                write!(f, "SPY {spy} {}", key.replace('-', " ").to_uppercase())?;
                if let Some(t) = target {
                    write!(f, " {t}")?;
                }
                if !walls.is_empty() {
                    write!(f, " {}", walls.join(", "))?;
                }
                Ok(())
            }
            Order::Officer { name, near } if near.is_empty() => write!(f, "OFFICER {name} NEAR NONE"),
            Order::Officer { name, near } => write!(f, "OFFICER {name} NEAR {}", near.join(", ")),
            Order::Rally { units } => write!(f, "RALLY {}", units.join(", ")),
            Order::Recruit { what, name } => write!(f, "RECRUIT {} {name}", what.word()),
            Order::Promote { officer } => write!(f, "PROMOTE {officer}"),
            Order::Meet { mayor: false } => write!(f, "MEET"),
            Order::Meet { mayor: true } => write!(f, "MEET MAYOR"),
            Order::Police { units } => write!(f, "POLICE {}", units.join(", ")),
            Order::RiotHits { units } => write!(f, "RIOT HITS {}", units.join(", ")),
            Order::Pass => write!(f, "PASS"),
            Order::Hits { side, unit, n, lasting } => {
                write!(f, "HITS {side} {unit} {n}{}", if *lasting { " DISEASE" } else { "" })
            }
            Order::Kill { side, name } => write!(f, "KILL {side} {name}"),
            Order::Resolve { side, delta, why } if why.is_empty() => write!(f, "RESOLVE {side} {}", signed(*delta)),
            Order::Resolve { side, delta, why } => write!(f, "RESOLVE {side} {} {why}", signed(*delta)),
            Order::Ls { delta } => write!(f, "LS {}", signed(*delta)),
            Order::Stores { what: Store::Food, delta, .. } => write!(f, "FOOD {}", signed(*delta)),
            Order::Stores { what: Store::Powder, side, delta } => write!(f, "POWDER {side} {}", signed(*delta)),
            Order::Fires { delta } => write!(f, "FIRES {}", signed(*delta)),
            Order::Place { side, unit, at } => write!(f, "UNIT {side} {unit} {}", place_word(*at)),
            Order::Wall { section, strength } => write!(f, "WALL {section} {strength}"),
            Order::Mining { side, text } => write!(f, "MINING {side} {text}"),
            Order::Ds { value } => write!(f, "DS {value}"),
            Order::Reinforce { side, kind, name } => {
                write!(f, "REINFORCE {side} {} {name}", kind.word().to_uppercase())
            }
            Order::Victory { side, why } => write!(f, "VICTORY {side} {why}"),
            Order::Surrender { side } => write!(f, "SURRENDER {side}"),
            Order::Abandon => write!(f, "ABANDON"),
            Order::Done => write!(f, "DONE"),
        }
    }
}

/// A commander's orders sorted by the part of the phase they belong to.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub food: Option<usize>,
    pub fire_duty: Option<String>,
    pub sack: Vec<String>,
    pub missions: Vec<Order>,
    pub officers: Vec<(String, Vec<String>)>,
    pub rally: Vec<String>,
    pub recruits: Vec<(Recruit, String)>,
    pub promote: Option<String>,
    pub meet: Option<bool>,
    pub police: Vec<String>,
    pub riot: Vec<String>,
}

impl Plan {
    pub fn of(orders: &[Order]) -> Plan {
        let mut p = Plan::default();
        for o in orders {
            match o {
                Order::Food { measure } => p.food = Some(*measure),
                Order::FireDuty { unit } => p.fire_duty = Some(unit.clone()),
                Order::Sack { spy } => p.sack.push(spy.clone()),
                Order::Mission { .. } => p.missions.push(o.clone()),
                Order::Officer { name, near } => p.officers.push((name.clone(), near.clone())),
                Order::Rally { units } => p.rally = units.clone(),
                Order::Recruit { what, name } => p.recruits.push((*what, name.clone())),
                Order::Promote { officer } => p.promote = Some(officer.clone()),
                Order::Meet { mayor } => p.meet = Some(*mayor),
                Order::Police { units } => p.police = units.clone(),
                Order::RiotHits { units } => p.riot = units.clone(),
                _ => {}
            }
        }
        p
    }
}

/// The commander's syntax, with examples from the ledger.
pub fn commander_syntax(s: &State, side: &str) -> Vec<String> {
    let a = s.army(side);
    let unit = a.alive_units().next().map(|u| u.name.clone()).unwrap_or_else(|| "<unit>".into());
    let officer = a.officers.iter().find(|o| o.alive).map(|o| o.name.clone()).unwrap_or_else(|| "<officer>".into());
    let spy = a.spies.iter().find(|x| x.status == SpyStatus::Active).map(|x| x.name.clone());
    let spy = spy.unwrap_or_else(|| "<spy>".into());
    let mut v = Vec::new();
    if side == GARRISON {
        v.push("FOOD RATIONS|REQUISITION|HORSES|PETS|EJECT   (a food measure: each once a game, one a turn)".into());
        v.push("FIRE DUTY <sappers unit>   (sappers fight the fires this turn: 4+ puts one out)".into());
    }
    v.push(format!("SPY {spy} INFO RESOLVE   (missions: {})", mission_words(s, side).join(" | ")));
    v.push("SPY <spy> KILL OFFICER <name>   SPY <spy> INFO WALLS <section>, <section>, <section>".into());
    v.push("SACK <spy>".into());
    v.push(format!("OFFICER {officer} NEAR {unit}   (units he is attached to or within 1 hex of; NEAR NONE)"));
    v.push(format!(
        "RALLY {unit}, <unit>, ...   (in order of priority; rallying stops at the first unit that removes nothing)"
    ));
    v.push("RECRUIT SPY|SAPPERS|MINERS|NAMED|SECURITY <new name>   (1 Resolve Pt each, Miners 3)".into());
    v.push("PROMOTE <senior officer or engineer>   (only when the Commander is dead)".into());
    if side == GARRISON {
        v.push("MEET   or   MEET MAYOR   (meet with citizens: 6 adds 1 to LS, 1 takes 1 off)".into());
        v.push("POLICE <infantry unit>, ...   (needed when LS is 0 or less)".into());
        v.push("RIOT HITS <unit>, ...   (where insurrection hits go, in order)".into());
    }
    v.push("PASS   (nothing to decide)".into());
    v
}

pub fn moderator_syntax() -> Vec<String> {
    [
        "HITS <unit> <n> [DISEASE]   (loss counters from the table; DISEASE for disease/desertion)",
        "KILL <officer or named individual>",
        "RESOLVE <besiegers|garrison> <+n|-n> [reason]   (breaches, event cards)",
        "LS <+n|-n>   (the Garrison's Resolve moves with it)",
        "FOOD <+n|-n>   POWDER <side> <+n|-n>   FIRES <+n|-n>",
        "UNIT <unit> DANGER|CLEAR|SAFE   (DANGER: within 2 hexes of the enemy; SAFE: in the Safe Place)",
        "WALL <section> <strength>   MINING <side> <text>   DS <1-6>",
        "REINFORCE <side> INFANTRY|ARTILLERY|SAPPERS|MINERS <name>",
        "VICTORY <side> <reason>   SURRENDER <side>   ABANDON   (the game ends)",
        "DONE   (nothing more to record)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Missions the side may attempt, as order words.
pub fn mission_words(s: &State, side: &str) -> Vec<String> {
    s.data()
        .missions
        .iter()
        .filter(|m| m.open_to(side))
        .map(|m| {
            let w = m.key.replace('-', " ").to_uppercase();
            if m.key == "kill-officer" {
                format!("{w} <name>")
            } else {
                w
            }
        })
        .collect()
}

fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

fn list(text: &str) -> Vec<String> {
    parse::list(text).into_iter().map(String::from).collect()
}

fn unit_of(s: &State, side: &str, q: &str) -> Result<String, Problem> {
    let names: Vec<&str> = s.army(side).units.iter().map(|u| u.name.as_str()).collect();
    let i = names::find(&names, q, "unit")?;
    Ok(names[i].to_string())
}

/// The moderator names a unit or officer of either army, with its side in
/// front where both armies have the name ("HITS garrison Swiss Guard 2").
fn either(s: &State, q: &str, what: &str, officers: bool) -> Result<(String, String), Problem> {
    let mut labels = Vec::new();
    let mut keys = Vec::new();
    for side in [BESIEGERS, GARRISON] {
        let a = s.army(side);
        let names: Vec<&String> = if officers {
            a.officers.iter().map(|o| &o.name).collect()
        } else {
            a.units.iter().map(|u| &u.name).collect()
        };
        for n in names {
            labels.push(n.clone());
            keys.push((side.to_string(), n.clone()));
            labels.push(format!("{side} {n}"));
            keys.push((side.to_string(), n.clone()));
        }
    }
    let fq = names::fold(q);
    let exact: Vec<usize> = (0..labels.len()).filter(|&i| names::fold(&labels[i]) == fq).collect();
    if exact.iter().any(|&i| keys[i].0 != keys[exact[0]].0) {
        let n = &keys[exact[0]].1;
        let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        return Err(Problem::new(format!("both armies have {article} {what} called {n:?}"))
            .hint(format!("put the side first: besiegers {n} or garrison {n}")));
    }
    if let Some(&i) = exact.first() {
        return Ok(keys[i].clone());
    }
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    let i = names::find(&refs, q, what)?;
    Ok(keys[i].clone())
}

fn units_of(s: &State, side: &str, text: &str) -> Result<Vec<String>, Problem> {
    let v = list(text);
    if v.is_empty() {
        return Err(Problem::new("no unit is named").hint("name units separated by commas"));
    }
    v.iter().map(|q| unit_of(s, side, q)).collect()
}

fn officer_of(s: &State, side: &str, q: &str) -> Result<String, Problem> {
    let names: Vec<&str> = s.army(side).officers.iter().map(|o| o.name.as_str()).collect();
    let i = names::find(&names, q, "officer")?;
    Ok(names[i].to_string())
}

/// The target word for the enemy's Security Officer, whoever he is.
pub const SECURITY_TARGET: &str = "SECURITY OFFICER";

/// An enemy officer a spy may be sent to kill. The enemy's Security
/// Officer is targeted by his office (`KILL OFFICER SECURITY OFFICER`),
/// never by name: he may have no figure on the table, and a "did you mean"
/// must not tell his name or whether there is one.
fn target_of(s: &State, enemy: &str, q: &str) -> Result<String, Problem> {
    if ["security", "security officer"].contains(&names::fold(q).as_str()) {
        return Ok(SECURITY_TARGET.to_string());
    }
    let names: Vec<&str> =
        s.army(enemy).officers.iter().filter(|o| o.rank != Rank::Security).map(|o| o.name.as_str()).collect();
    let i = names::find(&names, q, "enemy officer")?;
    Ok(names[i].to_string())
}

fn side_of(q: &str) -> Result<String, Problem> {
    let sides = [BESIEGERS, GARRISON];
    let i = names::find(&sides, q, "side")?;
    Ok(sides[i].to_string())
}

/// A name a commander or the moderator gives a newcomer: it must read
/// back the same in every order that names it.
fn check_name(name: &str, form: &str) -> Result<(), Problem> {
    if name.is_empty() {
        return Err(Problem::new("a newcomer needs a name").hint(form.to_string()));
    }
    if name.chars().count() > 40 || !name.chars().all(|c| c.is_alphanumeric() || " -'.".contains(c)) {
        return Err(Problem::new("a name is at most 40 letters, digits, spaces, hyphens, dots or apostrophes")
            .hint(form.to_string()));
    }
    if !name.chars().any(char::is_alphabetic) {
        return Err(Problem::new("a name needs at least one letter").hint(form.to_string()));
    }
    let reserved = [
        "NEAR",
        "NONE",
        "INFO",
        "SABOTAGE",
        "KILL",
        "HITS",
        "DISEASE",
        "DESERTION",
        "DANGER",
        "CLEAR",
        "SAFE",
        "SECURITY",
    ];
    let first = name.split_whitespace().next().unwrap_or("").to_uppercase();
    let side = ["BESIEGERS", "GARRISON"].contains(&first.as_str());
    if side || name.split_whitespace().any(|w| reserved.contains(&w.to_uppercase().as_str())) {
        return Err(Problem::new(format!(
            "a name may not start with a side nor contain an order word ({})",
            reserved.join(", ")
        ))
        .hint(form.to_string()));
    }
    Ok(())
}

fn number(q: &str, what: &str) -> Result<i32, Problem> {
    parse::number(q, -999..=999, what)
}

/// Parse one line of `role`'s orders. Names are matched here; whether the
/// order is allowed now is `validate`'s question.
/// The keywords of a commander's orders (`parse`).
pub const VERBS: &[&str] = &[
    "FOOD", "FIRE", "SACK", "SPY", "OFFICER", "RALLY", "RECRUIT", "PROMOTE", "MEET", "POLICE", "RIOT", "DONE", "PASS",
];

/// The keywords of the moderator's orders (`parse_gm`).
pub const GM_VERBS: &[&str] = &[
    "HITS",
    "KILL",
    "RESOLVE",
    "LS",
    "FOOD",
    "POWDER",
    "FIRES",
    "UNIT",
    "WALL",
    "MINING",
    "DS",
    "REINFORCE",
    "VICTORY",
    "SURRENDER",
    "ABANDON",
    "DONE",
    "PASS",
    "NO",
];

pub fn parse(s: &State, role: &str, line: &str) -> Result<Order, Problem> {
    let w = words(line);
    let Some(first) = w.first() else { return Err(Problem::new("empty line")) };
    let key = parse::word(first);
    let rest = line.trim()[first.len()..].trim();
    if role == GM {
        return parse_gm(s, &key, rest, &w);
    }
    let side = role;
    let unknown = || {
        Problem::new(format!("{first:?} is not a Housekeeping order"))
            .hint("orders: FOOD, FIRE DUTY, SPY, SACK, OFFICER, RALLY, RECRUIT, PROMOTE, MEET, POLICE, RIOT HITS, PASS")
    };
    match key.as_str() {
        "FOOD" => {
            let q = rest.to_uppercase();
            let q = q.split_whitespace().next().unwrap_or("");
            let keys: Vec<&str> = MEASURES.iter().map(|m| m.key).collect();
            let i = names::find(&keys, q, "food measure")
                .map_err(|p| p.hint("FOOD RATIONS, FOOD REQUISITION, FOOD HORSES, FOOD PETS or FOOD EJECT"))?;
            Ok(Order::Food { measure: i })
        }
        "FIRE" => Ok(Order::FireDuty { unit: unit_of(s, side, parse::optional(rest, "duty"))? }),
        "SACK" => Ok(Order::Sack { spy: spy_of(s, side, rest)? }),
        "SPY" => parse_mission(s, side, &w[1..]),
        "OFFICER" => {
            let (who, tail) = parse::split(rest, "near").ok_or_else(|| {
                Problem::new("OFFICER needs NEAR").hint("OFFICER <name> NEAR <unit>, <unit> (or NEAR NONE)")
            })?;
            let name = officer_of(s, side, who)?;
            let near = if tail.eq_ignore_ascii_case("none") { Vec::new() } else { units_of(s, side, tail)? };
            Ok(Order::Officer { name, near })
        }
        "RALLY" => Ok(Order::Rally { units: units_of(s, side, rest)? }),
        "RECRUIT" => {
            let kw = w.get(1).map(|x| parse::word(x)).unwrap_or_default();
            if ["SENIOR", "OFFICER", "ENGINEER", "COMMANDER"].contains(&kw.as_str()) {
                return Err(Problem::new(
                    "no extra Senior Officers or Engineers may be added once the game has started",
                )
                .hint("RECRUIT SPY|SAPPERS|MINERS|NAMED|SECURITY <new name>; PROMOTE replaces a dead Commander"));
            }
            let what = Recruit::ALL.iter().find(|(_, k)| *k == kw).map(|(r, _)| *r).ok_or_else(|| {
                Problem::new(format!("cannot recruit {kw:?}"))
                    .hint("RECRUIT SPY|SAPPERS|MINERS|NAMED|SECURITY <new name>")
            })?;
            let name = w[2..].join(" ");
            check_name(&name, &format!("RECRUIT {kw} <name>"))?;
            Ok(Order::Recruit { what, name })
        }
        "PROMOTE" => Ok(Order::Promote { officer: officer_of(s, side, rest)? }),
        "MEET" => match names::fold(rest).as_str() {
            "" | "governor" => Ok(Order::Meet { mayor: false }),
            "mayor" => Ok(Order::Meet { mayor: true }),
            _ => Err(Problem::new("MEET takes nothing or MAYOR").hint("MEET (the Governor) or MEET MAYOR")),
        },
        "POLICE" => Ok(Order::Police { units: units_of(s, side, rest)? }),
        "RIOT" => Ok(Order::RiotHits { units: units_of(s, side, parse::optional(rest, "hits"))? }),
        "PASS" if rest.is_empty() => Ok(Order::Pass),
        _ => Err(unknown()),
    }
}

fn spy_of(s: &State, side: &str, q: &str) -> Result<String, Problem> {
    let names: Vec<&str> = s.army(side).spies.iter().map(|x| x.name.as_str()).collect();
    let i = names::find(&names, q, "spy")?;
    Ok(names[i].to_string())
}

fn parse_mission(s: &State, side: &str, w: &[&str]) -> Result<Order, Problem> {
    let at =
        w.iter().position(|x| ["INFO", "SABOTAGE", "KILL"].contains(&parse::word(x).as_str())).ok_or_else(|| {
            Problem::new("no mission named")
                .hint(format!("SPY <spy> <mission>: {}", mission_words(s, side).join(" | ")))
        })?;
    let spy = spy_of(s, side, &w[..at].join(" "))?;
    let kind = parse::word(w[at]).to_lowercase();
    let what = w.get(at + 1).map(|x| parse::word(x).to_lowercase()).unwrap_or_default();
    let key = format!("{kind}-{what}");
    if s.data().mission(&key).is_none() {
        return Err(Problem::new(format!("no mission {:?}", w[at..].join(" ")))
            .hint(format!("missions: {}", mission_words(s, side).join(" | "))));
    }
    let tail = w.get(at + 2..).map(|t| t.join(" ")).unwrap_or_default();
    let enemy = other(side);
    let (target, walls) = match key.as_str() {
        "kill-officer" => (Some(target_of(s, enemy, &tail)?), Vec::new()),
        "info-walls" => {
            let names: Vec<&str> = s.town.walls.iter().map(|x| x.name.as_str()).collect();
            let picked = list(&tail)
                .iter()
                .map(|q| names::find(&names, q, "wall section").map(|i| names[i].to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            (None, picked)
        }
        _ if !tail.is_empty() => {
            return Err(Problem::new(format!("unexpected {tail:?} after the mission")).hint("SPY <spy> <mission>"))
        }
        _ => (None, Vec::new()),
    };
    Ok(Order::Mission { spy, key, target, walls })
}

fn parse_gm(s: &State, key: &str, rest: &str, w: &[&str]) -> Result<Order, Problem> {
    // The last word after the keyword; `upto_last` is what comes before it.
    let last = if w.len() > 1 { w[w.len() - 1] } else { "" };
    let upto_last = || rest[..rest.len() - last.len()].trim();
    match key {
        "HITS" => {
            let (body, lasting) = match parse::word(last).as_str() {
                "DISEASE" | "DESERTION" => (upto_last(), true),
                _ => (rest, false),
            };
            let n_word = body.split_whitespace().last().unwrap_or("");
            let n = number(n_word, "hits")?;
            if n < 1 {
                return Err(Problem::new("hits are at least 1").hint("HITS <unit> <n> [DISEASE]"));
            }
            let (side, unit) = either(s, body[..body.len() - n_word.len()].trim(), "unit", false)?;
            Ok(Order::Hits { side, unit, n: n as u32, lasting })
        }
        "KILL" => {
            let (side, name) = either(s, rest, "officer", true)?;
            Ok(Order::Kill { side, name })
        }
        "RESOLVE" => {
            let side = side_of(w.get(1).copied().unwrap_or(""))?;
            let delta = number(w.get(2).copied().unwrap_or(""), "Resolve")?;
            Ok(Order::Resolve { side, delta, why: w.get(3..).map(|t| t.join(" ")).unwrap_or_default() })
        }
        "LS" => Ok(Order::Ls { delta: number(rest, "Local Support")? }),
        "FOOD" => Ok(Order::Stores { what: Store::Food, side: GARRISON.into(), delta: number(rest, "Food")? }),
        "POWDER" => {
            let side = side_of(w.get(1).copied().unwrap_or(""))?;
            Ok(Order::Stores { what: Store::Powder, side, delta: number(w.get(2).copied().unwrap_or(""), "powder")? })
        }
        "FIRES" => Ok(Order::Fires { delta: number(rest, "fires")? }),
        "UNIT" => {
            let at = match parse::word(last).as_str() {
                "DANGER" => Whereabouts::Danger,
                "CLEAR" => Whereabouts::Clear,
                "SAFE" => Whereabouts::Safe,
                _ => return Err(Problem::new("where is the unit?").hint("UNIT <unit> DANGER|CLEAR|SAFE")),
            };
            let (side, unit) = either(s, upto_last(), "unit", false)?;
            Ok(Order::Place { side, unit, at })
        }
        "WALL" => {
            let names: Vec<&str> = s.town.walls.iter().map(|x| x.name.as_str()).collect();
            let i = names::find(&names, upto_last(), "wall section")?;
            Ok(Order::Wall { section: names[i].to_string(), strength: number(last, "strength")? })
        }
        "MINING" => {
            let side = side_of(w.get(1).copied().unwrap_or(""))?;
            let text = w.get(2..).map(|t| t.join(" ")).unwrap_or_default();
            if text.is_empty() {
                return Err(Problem::new("MINING needs the status text").hint("MINING <side> <text>"));
            }
            Ok(Order::Mining { side, text })
        }
        "DS" => match rest.parse::<u8>() {
            Ok(v @ 1..=6) => Ok(Order::Ds { value: v }),
            _ => Err(Problem::new("the Digging Standard is 1 to 6").hint("DS 3")),
        },
        "REINFORCE" => {
            let side = side_of(w.get(1).copied().unwrap_or(""))?;
            let kind = match w.get(2).map(|x| parse::word(x)).as_deref() {
                Some("INFANTRY") => UnitKind::Infantry,
                Some("ARTILLERY") => UnitKind::Artillery,
                Some("SAPPERS") => UnitKind::Sappers,
                Some("MINERS") => UnitKind::Miners,
                _ => {
                    return Err(Problem::new("which kind of unit?")
                        .hint("REINFORCE <side> INFANTRY|ARTILLERY|SAPPERS|MINERS <name>"))
                }
            };
            let name = w.get(3..).map(|t| t.join(" ")).unwrap_or_default();
            check_name(&name, "REINFORCE <side> <kind> <name>")?;
            Ok(Order::Reinforce { side, kind, name })
        }
        "VICTORY" => {
            let side = side_of(w.get(1).copied().unwrap_or(""))?;
            let why = w.get(2..).map(|t| t.join(" ")).unwrap_or_default();
            if why.is_empty() {
                return Err(Problem::new("say which condition was met").hint("VICTORY garrison relief army arrived"));
            }
            Ok(Order::Victory { side, why })
        }
        "SURRENDER" => Ok(Order::Surrender { side: side_of(rest)? }),
        "ABANDON" => Ok(Order::Abandon),
        "DONE" | "PASS" => Ok(Order::Done),
        "NO" if rest.eq_ignore_ascii_case("effect") => Ok(Order::Done),
        _ => Err(Problem::new(format!("{:?} is not a moderator order for this game", w[0])).hint(
            "HITS, KILL, RESOLVE, LS, FOOD, POWDER, FIRES, UNIT, WALL, MINING, DS, REINFORCE, VICTORY, SURRENDER, ABANDON, DONE",
        )),
    }
}

/// Is the whole submission allowed now? Problems keyed by order index.
pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    if role == GM {
        let ends = orders
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o, Order::Victory { .. } | Order::Surrender { .. } | Order::Abandon))
            .map(|(i, _)| i)
            .collect::<Vec<_>>();
        for &i in ends.iter().skip(1) {
            out.push((i, Problem::new("only one of VICTORY, SURRENDER and ABANDON a submission")));
        }
        for (i, o) in orders.iter().enumerate() {
            if let Some(p) = check_gm(s, o) {
                out.push((i, p));
            }
        }
        return out;
    }
    let side = role;
    let a = s.army(side);
    let seen = |i: usize, kind: &str, out: &mut Vec<(usize, Problem)>, done: &mut Vec<String>| {
        if done.iter().any(|d| d == kind) {
            out.push((i, Problem::new(format!("only one {kind} order a turn"))));
        }
        done.push(kind.to_string());
    };
    let mut done = Vec::new();
    let mut mission_spies: Vec<&str> = Vec::new();
    let rallying: Vec<&str> = orders
        .iter()
        .filter_map(|o| if let Order::Rally { units } = o { Some(units) } else { None })
        .flatten()
        .map(String::as_str)
        .collect();
    let mut sacked: Vec<&str> =
        orders.iter().filter_map(|o| if let Order::Sack { spy } = o { Some(spy.as_str()) } else { None }).collect();
    sacked.sort();
    sacked.dedup();
    let mut targets: Vec<&str> = Vec::new();
    let garrison_only = |i: usize, what: &str, out: &mut Vec<(usize, Problem)>| {
        if side != GARRISON {
            out.push((i, Problem::new(format!("{what} is for the Garrison only"))));
            true
        } else {
            false
        }
    };
    for (i, o) in orders.iter().enumerate() {
        match o {
            Order::Food { measure } => {
                if garrison_only(i, "a food measure", &mut out) {
                    continue;
                }
                seen(i, "FOOD", &mut out, &mut done);
                let m = &MEASURES[*measure];
                if s.town.measures_used.iter().any(|u| u == m.key) {
                    out.push((
                        i,
                        Problem::new(format!("the Garrison has already chosen to {} (once per game)", m.title))
                            .hint(format!("measures left: {}", measures_left(s).join(", "))),
                    ));
                }
                if !a.led() {
                    out.push((i, Problem::new("with no Governor the Garrison can no longer manage the Food supply")));
                }
            }
            Order::FireDuty { unit } => {
                if garrison_only(i, "fire duty in the town", &mut out) {
                    continue;
                }
                seen(i, "FIRE DUTY", &mut out, &mut done);
                let u = a.unit(unit).expect("parsed");
                if u.kind != UnitKind::Sappers || u.eliminated {
                    out.push((i, Problem::new(format!("{unit} is not a sapper unit in being")).hint("name sappers")));
                } else if rallying.contains(&unit.as_str()) {
                    out.push((
                        i,
                        Problem::new(format!("{unit} rallies this turn and may do nothing else"))
                            .hint("put other sappers on fire duty, or leave them out of RALLY"),
                    ));
                }
            }
            Order::Sack { spy } if a.spies.iter().all(|x| x.name != *spy || x.status != SpyStatus::Active) => {
                out.push((i, Problem::new(format!("{spy} is not an active spy of yours"))));
            }
            Order::Mission { spy, key, target, walls } => {
                let m = s.data().mission(key).expect("parsed");
                if !m.open_to(side) {
                    out.push((
                        i,
                        Problem::new(format!("the {} may not attempt: {}", super::side_name(side), m.title))
                            .hint(format!("missions: {}", mission_words(s, side).join(" | "))),
                    ));
                }
                if a.spies.iter().all(|x| x.name != *spy || x.status != SpyStatus::Active) {
                    out.push((i, Problem::new(format!("{spy} is not an active spy of yours"))));
                } else if sacked.contains(&spy.as_str()) {
                    out.push((i, Problem::new(format!("{spy} is sacked in this same message"))));
                }
                if mission_spies.contains(&spy.as_str()) {
                    out.push((i, Problem::new(format!("{spy} already has a mission this turn"))));
                }
                mission_spies.push(spy);
                if let Some(t) = target {
                    if targets.contains(&t.as_str()) {
                        out.push((i, Problem::new(format!("another spy is already sent to kill {t} this turn"))));
                    }
                    targets.push(t);
                }
                if key == "kill-commander" && s.army(other(side)).commander().is_none() {
                    out.push((
                        i,
                        Problem::new("the enemy has no living Commander at present")
                            .hint("KILL OFFICER <name> for another officer"),
                    ));
                }
                if let Some(t) = target.as_ref().filter(|t| *t != SECURITY_TARGET) {
                    let o = s.army(other(side)).officer(t).expect("parsed");
                    if o.rank == Rank::Commander {
                        out.push((
                            i,
                            Problem::new(format!("{t} is the enemy Commander"))
                                .hint(format!("SPY {spy} KILL COMMANDER (difficulty 5)")),
                        ));
                    } else if !o.alive {
                        out.push((i, Problem::new(format!("{t} is already dead"))));
                    }
                }
                if key == "info-walls" {
                    let want = s.town.walls.len().min(3);
                    let mut w = walls.clone();
                    w.sort();
                    w.dedup();
                    if w.len() != want || walls.len() != want {
                        out.push((
                            i,
                            Problem::new(format!("pick {want} different wall sections"))
                                .hint(format!("sections: {}", section_names(s).join(", "))),
                        ));
                    }
                }
            }
            Order::Officer { name, near } => {
                let o = a.officer(name).expect("parsed");
                if !o.alive {
                    out.push((i, Problem::new(format!("{name} is dead"))));
                }
                if o.rank == Rank::Mayor && s.town.ls < 0 {
                    out.push((i, Problem::new("the Town Mayor may be moved only while Local Support is not negative")));
                }
                for u in near {
                    if a.unit(u).map(|u| u.eliminated).unwrap_or(true) {
                        out.push((i, Problem::new(format!("{u} has been eliminated"))));
                    }
                }
            }
            Order::Rally { units } => {
                seen(i, "RALLY", &mut out, &mut done);
                if !a.led() {
                    out.push((
                        i,
                        Problem::new(
                            "the army has no Commander and nobody left to promote: it can no longer rally troops",
                        ),
                    ));
                }
                for (k, name) in units.iter().enumerate() {
                    let u = a.unit(name).expect("parsed");
                    if units[..k].contains(name) {
                        out.push((i, Problem::new(format!("{name} is named twice"))));
                    } else if u.eliminated {
                        out.push((i, Problem::new(format!("{name} has been eliminated and may not be rallied"))));
                    } else if u.hits == 0 {
                        out.push((
                            i,
                            Problem::new(format!(
                                "{name} has no hits that may be rallied{}",
                                if u.lasting > 0 { " (disease/desertion hits never are)" } else { "" }
                            ))
                            .hint(match rallyable(s, side) {
                                v if v.is_empty() => "no unit of yours has hits that may be rallied".to_string(),
                                v => format!("units with hits: {}", v.join(", ")),
                            }),
                        ));
                    } else if u.silenced() && u.place != super::Whereabouts::Safe {
                        out.push((
                            i,
                            Problem::new(format!(
                                "{name} is artillery with 2 hits: it may be repaired only in the Safe Place"
                            ))
                            .hint("the moderator records UNIT <unit> SAFE once it is there"),
                        ));
                    }
                }
            }
            Order::Recruit { what, name } => {
                if a.commander().is_none() {
                    out.push((
                        i,
                        Problem::new("only a living Commander may recruit")
                            .hint("PROMOTE a Senior Officer or Engineer first"),
                    ));
                }
                let again = orders[..i]
                    .iter()
                    .any(|o| matches!(o, Order::Recruit { name: n, .. } if names::fold(n) == names::fold(name)));
                if name_taken(s, side, name) || again {
                    out.push((i, Problem::new(format!("the name {name:?} is already in use")).hint("choose another")));
                }
                if *what == Recruit::Security {
                    seen(i, "RECRUIT SECURITY", &mut out, &mut done);
                }
                // This recruit and those of its kind before it must fit the
                // room the army has (a spy sacked in the same orders frees one).
                let (mut left, words) = room(a, &s.data().limits, *what);
                if *what == Recruit::Spy {
                    left += sacked.len();
                }
                let nth =
                    orders[..=i].iter().filter(|o| matches!(o, Order::Recruit { what: w, .. } if w == what)).count();
                if nth > left {
                    let p = Problem::new(words);
                    out.push((i, if *what == Recruit::Spy { p.hint("SACK one first (it costs nothing)") } else { p }));
                }
            }
            Order::Promote { officer } => {
                seen(i, "PROMOTE", &mut out, &mut done);
                let o = a.officer(officer).expect("parsed");
                if a.commander().is_some() {
                    out.push((i, Problem::new("the Commander is alive: there is nobody to replace")));
                } else if !o.alive || !matches!(o.rank, Rank::Senior | Rank::Engineer) {
                    out.push((
                        i,
                        Problem::new(format!("{officer} is not a living Senior Officer or Engineer"))
                            .hint(format!("candidates: {}", candidates(s, side).join(", "))),
                    ));
                }
            }
            Order::Meet { mayor } => {
                if garrison_only(i, "a meeting with citizens", &mut out) {
                    continue;
                }
                seen(i, "MEET", &mut out, &mut done);
                // Recruits and Replacements (where a dead Governor is
                // replaced) come before the meeting in the printed order.
                let promoted = orders.iter().any(|o| matches!(o, Order::Promote { .. }));
                if !*mayor && a.led() && a.commander().is_none() && !promoted {
                    out.push((
                        i,
                        Problem::new("the Governor is dead: nobody meets the citizens in his name")
                            .hint("PROMOTE his successor in the same orders (the meeting comes after Recruits), or MEET MAYOR"),
                    ));
                }
                if !a.led() {
                    out.push((
                        i,
                        Problem::new("with no Governor the Garrison can no longer negotiate with the townspeople"),
                    ));
                }
                if *mayor {
                    let alive = a.officers.iter().any(|o| o.rank == Rank::Mayor && o.alive);
                    if !alive {
                        out.push((i, Problem::new("the Town Mayor is not alive").hint("MEET (the Governor)")));
                    } else if s.town.ls < 0 {
                        out.push((
                            i,
                            Problem::new("the Mayor may meet the citizens only while LS is not negative")
                                .hint("MEET (the Governor)"),
                        ));
                    }
                }
            }
            Order::Police { units } | Order::RiotHits { units } => {
                let what = if matches!(o, Order::Police { .. }) { "POLICE" } else { "RIOT HITS" };
                if garrison_only(i, what, &mut out) {
                    continue;
                }
                seen(i, what, &mut out, &mut done);
                for (k, name) in units.iter().enumerate() {
                    let u = a.unit(name).expect("parsed");
                    if what == "POLICE" && rallying.contains(&name.as_str()) {
                        out.push((
                            i,
                            Problem::new(format!("{name} rallies this turn and may do nothing else"))
                                .hint("police the town with other infantry, or leave it out of RALLY"),
                        ));
                    } else if units[..k].contains(name) {
                        out.push((i, Problem::new(format!("{name} is named twice"))));
                    } else if u.eliminated {
                        out.push((i, Problem::new(format!("{name} has been eliminated"))));
                    } else if what == "POLICE" && u.kind != UnitKind::Infantry {
                        out.push((i, Problem::new(format!("{name} is not infantry: only infantry polices the town"))));
                    }
                }
            }
            // The moderator's orders never parse for a commander.
            _ => {}
        }
    }
    out
}

/// How many more recruits of a kind the army may take on now, and the
/// limit in words: at most 2 spies, one Security Officer, the scenario's
/// limits for sappers, miners and Named Individuals.
pub fn room(a: &Army, lim: &Limits, what: Recruit) -> (usize, String) {
    match what {
        Recruit::Spy => {
            (2usize.saturating_sub(a.active_spies()), "an army may have at most 2 spies at any moment".into())
        }
        Recruit::Security => (usize::from(!a.security()), "the army already has a Security Officer".into()),
        Recruit::Sappers => (
            lim.sappers.saturating_sub(a.count(UnitKind::Sappers)),
            format!("the scenario allows {} sapper teams", lim.sappers),
        ),
        Recruit::Miners if lim.miners == 0 => (0, "this scenario has no mining".into()),
        Recruit::Miners => (
            lim.miners.saturating_sub(a.count(UnitKind::Miners)),
            format!("the scenario allows {} miner units", lim.miners),
        ),
        Recruit::Named => {
            let n = a.officers.iter().filter(|o| o.rank == Rank::Named && o.alive).count();
            (lim.named.saturating_sub(n), format!("the scenario allows {} Named Individuals", lim.named))
        }
    }
}

fn check_gm(s: &State, o: &Order) -> Option<Problem> {
    match o {
        Order::Hits { side, unit, .. } => s
            .army(side)
            .unit(unit)
            .filter(|u| u.eliminated)
            .map(|_| Problem::new(format!("{unit} is already eliminated"))),
        Order::Kill { side, name } => {
            s.army(side).officer(name).filter(|o| !o.alive).map(|_| Problem::new(format!("{name} is already dead")))
        }
        Order::Reinforce { side, name, .. } => name_taken(s, side, name)
            .then(|| Problem::new(format!("the name {name:?} is already in use")).hint("choose another")),
        // Commanders' orders never parse for the moderator.
        _ => None,
    }
}

/// A newcomer's name must not be one its own army uses, nor one the
/// enemy shows on the table (the enemy's spies and Security Officer are
/// not checked: that would tell their names).
pub fn name_taken(s: &State, side: &str, name: &str) -> bool {
    let f = names::fold(name);
    let a = s.army(side);
    let e = s.army(other(side));
    a.units
        .iter()
        .map(|u| &u.name)
        .chain(a.officers.iter().map(|o| &o.name))
        .chain(a.spies.iter().map(|x| &x.name))
        .chain(e.units.iter().filter(|u| u.kind.on_table()).map(|u| &u.name))
        .chain(e.officers.iter().filter(|o| o.rank != Rank::Security).map(|o| &o.name))
        .any(|n| names::fold(n) == f)
}

pub fn measures_left(s: &State) -> Vec<String> {
    MEASURES.iter().filter(|m| !s.town.measures_used.iter().any(|u| u == m.key)).map(|m| m.key.to_string()).collect()
}

fn section_names(s: &State) -> Vec<String> {
    s.town.walls.iter().map(|w| w.name.clone()).collect()
}

pub fn rallyable(s: &State, side: &str) -> Vec<String> {
    s.army(side).alive_units().filter(|u| u.hits > 0).map(|u| u.name.clone()).collect()
}

pub fn candidates(s: &State, side: &str) -> Vec<String> {
    s.army(side)
        .officers
        .iter()
        .filter(|o| o.alive && matches!(o.rank, Rank::Senior | Rank::Engineer))
        .map(|o| o.name.clone())
        .collect()
}
