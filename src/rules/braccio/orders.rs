//! Order syntax (brief 4): activation headers, plan lines and policy
//! lines, each with its canonical form. Parsing reads names, hex ids and
//! keywords only, never positions, so a stored plan re-parses the same at
//! execution; legality is the plan's validation and execution.

use super::*;
use crate::rules::shared::names;
use crate::rules::shared::parse::{self, Line};
use std::fmt;

pub const VERBS: &[&str] = &[
    "ACTIVATE",
    "CONTINUUM",
    "PASS",
    "INTERRUPT",
    "NO",
    "CONFUSION",
    "PLACE",
    "RALLY",
    "MOVE",
    "CHARGE",
    "CARICA",
    "FIRE",
    "REORGANIZE",
    "RETREAT",
    "ECHELON",
    "CAPTAIN",
    "GENERAL",
    "LEADER",
    "SQUAD",
    "COMBAT",
    "NEXT",
    "THEN",
    "WAIT",
    "REACT",
    "ADJUTANT",
    "ESCAPE",
];

/// One step of a path: a hex entered or a pivot to a facing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Step {
    Hex(String),
    Face(Vertex),
}

/// A policy line (brief 3.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PolicyLine {
    /// `ask`, `never`, `best` or a Battle's name; and a least CC.
    Interrupt(String, i32),
    Fire(String),
    Face(String, i32),
    Counter(String, i32),
    /// `keep` or `turn` after a retreat (10.7.1).
    Retreat(String),
    /// A Battle's Adjutant goes to this unit when its Captain falls (13.3).
    Adjutant(String, String),
    /// A Battle's Captain escapes to this hex if he can (13.2.2, 13.2.5).
    Escape(String, String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Order {
    Activate {
        battle: String,
        general: Vec<OrderKind>,
        /// A Battle entering the map: the line it is placed on and its
        /// units' facing (S2.10.2).
        at: Option<String>,
        face: Option<Vertex>,
    },
    Continuum {
        battle: String,
    },
    Pass,
    /// The enemy Battle a Confusion activates (16.1).
    Confusion {
        battle: String,
    },
    Interrupt {
        battle: String,
    },
    NoInterrupt,
    Move {
        unit: String,
        path: Vec<Step>,
        attack: Option<String>,
    },
    Charge {
        unit: String,
        path: Vec<Step>,
        attack: String,
    },
    Fire {
        unit: String,
        face: Option<Vertex>,
        at: String,
    },
    Reorganize {
        unit: String,
    },
    Retreat {
        unit: String,
        to: Option<String>,
    },
    /// Echeloned (5.4.6): swap with a unit in a rear hex; that unit, now
    /// in front, may attack.
    Echelon {
        unit: String,
        with: String,
        attack: Option<String>,
    },
    /// A School cavalry unit's Retreat or Echeloned order carried out
    /// straight to its rally point (14.3, 14.4), placed in `to`.
    Rally {
        unit: String,
        to: Option<String>,
        echelon: bool,
    },
    Captain {
        path: Vec<String>,
    },
    /// A Continuum's General Order, the first line of its plan (4.0 s1,
    /// 5.0.2).
    General {
        kinds: Vec<OrderKind>,
    },
    /// The active Battle's standard moved by a Move Order (16.2.3).
    Standard {
        path: Vec<String>,
    },
    Leader {
        leader: String,
        path: Vec<String>,
    },
    Squad {
        leader: String,
    },
    Combat {
        target: String,
        lead: Option<String>,
        /// The lead unit's pivot on its advance (10.9.1).
        advance: Option<Vertex>,
        /// The attacker kept should every unit rout (10.8.1).
        keep: Option<String>,
        /// The order the attackers other than the lead share its CH in
        /// (10.6.4).
        losses: Vec<String>,
    },
    Wait,
    /// The free set-up (S3.1): a Captain (by his Battle's name), a Squad
    /// Leader or a unit, with a unit's facing.
    Place {
        who: String,
        hex: String,
        face: Option<Vertex>,
    },
    /// The free set-up: a Braccesca Battle's rally point (S3.1.1).
    RallyPoint {
        battle: String,
        hex: String,
    },
    /// `NEXT CONTINUUM <battle>` or `NEXT PASS` (`pass`).
    Next {
        what: String,
    },
    Then,
    Policy(PolicyLine),
}

impl Order {
    /// A line that sets a policy rather than acting now.
    pub fn is_policy(&self) -> bool {
        matches!(self, Order::Policy(_))
    }
    /// The unit the line orders, if it orders one.
    pub fn unit(&self) -> Option<&str> {
        match self {
            Order::Move { unit, .. }
            | Order::Charge { unit, .. }
            | Order::Fire { unit, .. }
            | Order::Reorganize { unit }
            | Order::Retreat { unit, .. }
            | Order::Echelon { unit, .. }
            | Order::Rally { unit, .. } => Some(unit),
            _ => None,
        }
    }
    pub fn kind(&self) -> Option<OrderKind> {
        Some(match self {
            Order::Move { .. } => OrderKind::Move,
            Order::Charge { .. } => OrderKind::Charge,
            Order::Fire { .. } => OrderKind::Fire,
            Order::Reorganize { .. } => OrderKind::Reorganize,
            Order::Retreat { .. } | Order::Rally { echelon: false, .. } => OrderKind::Retreat,
            Order::Echelon { .. } | Order::Rally { echelon: true, .. } => OrderKind::Echelon,
            _ => return None,
        })
    }
}

pub fn vertex_word(v: Vertex) -> &'static str {
    match v {
        Vertex::NE => "NE",
        Vertex::E => "E",
        Vertex::SE => "SE",
        Vertex::SW => "SW",
        Vertex::W => "W",
        Vertex::NW => "NW",
    }
}

/// A facing: a vertex's compass name or its clock hour (brief 4).
pub fn vertex(t: &str) -> Option<Vertex> {
    Some(match parse::word(t).as_str() {
        "NE" | "1" => Vertex::NE,
        "E" | "3" => Vertex::E,
        "SE" | "5" => Vertex::SE,
        "SW" | "7" => Vertex::SW,
        "W" | "9" => Vertex::W,
        "NW" | "11" => Vertex::NW,
        _ => return None,
    })
}

fn path_text(p: &[Step]) -> String {
    p.iter()
        .map(|x| match x {
            Step::Hex(h) => h.clone(),
            Step::Face(v) => format!("FACE {}", vertex_word(*v)),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn join(parts: &[String]) -> String {
    parts.iter().filter(|p| !p.is_empty()).cloned().collect::<Vec<_>>().join(" ")
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = match self {
            Order::Activate { battle, general, at, face } => join(&[
                format!("ACTIVATE {battle}"),
                at.as_ref().map(|l| format!("AT {l}")).unwrap_or_default(),
                face.map(|v| format!("FACE {}", vertex_word(v))).unwrap_or_default(),
                if general.is_empty() {
                    String::new()
                } else {
                    format!("GENERAL {}", general.iter().map(|k| k.word()).collect::<Vec<_>>().join(" + "))
                },
            ]),
            Order::Continuum { battle } => format!("CONTINUUM {battle}"),
            Order::Pass => "PASS".into(),
            Order::Confusion { battle } => format!("CONFUSION {battle}"),
            Order::Interrupt { battle } => format!("INTERRUPT WITH {battle}"),
            Order::NoInterrupt => "NO INTERRUPT".into(),
            Order::Move { unit, path, attack } => join(&[
                format!("MOVE {unit}"),
                path_text(path),
                attack.as_ref().map(|a| format!("ATTACK {a}")).unwrap_or_default(),
            ]),
            Order::Charge { unit, path, attack } => {
                join(&[format!("CHARGE {unit}"), path_text(path), format!("ATTACK {attack}")])
            }
            Order::Fire { unit, face, at } => join(&[
                format!("FIRE {unit}"),
                face.map(|v| format!("FACE {}", vertex_word(v))).unwrap_or_default(),
                format!("AT {at}"),
            ]),
            Order::Reorganize { unit } => format!("REORGANIZE {unit}"),
            Order::Retreat { unit, to } => {
                join(&[format!("RETREAT {unit}"), to.as_ref().map(|h| format!("TO {h}")).unwrap_or_default()])
            }
            Order::Echelon { unit, with, attack } => join(&[
                format!("ECHELON {unit} WITH {with}"),
                attack.as_ref().map(|a| format!("ATTACK {a}")).unwrap_or_default(),
            ]),
            Order::Rally { unit, to, echelon } => join(&[
                format!("{} {unit} TO RALLY", if *echelon { "ECHELON" } else { "RETREAT" }),
                to.clone().unwrap_or_default(),
            ]),
            Order::Captain { path } => format!("CAPTAIN {}", path.join(" ")),
            Order::Standard { path } => format!("MOVE STANDARD {}", path.join(" ")),
            Order::General { kinds } => {
                format!("GENERAL {}", kinds.iter().map(|k| k.word()).collect::<Vec<_>>().join(" + "))
            }
            Order::Leader { leader, path } => format!("LEADER {leader} {}", path.join(" ")),
            Order::Squad { leader } => format!("SQUAD {leader}"),
            Order::Combat { target, lead, advance, keep, losses } => join(&[
                format!("COMBAT {target}"),
                lead.as_ref().map(|l| format!("LEAD {l}")).unwrap_or_default(),
                advance.map(|v| format!("ADVANCE FACE {}", vertex_word(v))).unwrap_or_default(),
                keep.as_ref().map(|k| format!("KEEP {k}")).unwrap_or_default(),
                if losses.is_empty() { String::new() } else { format!("LOSSES {}", losses.join(", ")) },
            ]),
            Order::Wait => "WAIT".into(),
            Order::Place { who, hex, face } => join(&[
                format!("PLACE {who} AT {hex}"),
                face.map(|v| format!("FACE {}", vertex_word(v))).unwrap_or_default(),
            ]),
            Order::RallyPoint { battle, hex } => format!("RALLY {battle} AT {hex}"),
            Order::Next { what } if what == "pass" => "NEXT PASS".into(),
            Order::Next { what } => format!("NEXT CONTINUUM {what}"),
            Order::Then => "THEN".into(),
            Order::Policy(p) => match p {
                PolicyLine::Interrupt(m, min) => {
                    let head = match m.as_str() {
                        "ask" => "INTERRUPT ASK".to_string(),
                        "never" => "INTERRUPT NEVER".to_string(),
                        "best" => "INTERRUPT WITH BEST".to_string(),
                        b => format!("INTERRUPT WITH {b}"),
                    };
                    if *min > 0 && m != "ask" && m != "never" {
                        format!("{head} MIN {min}")
                    } else {
                        head
                    }
                }
                PolicyLine::Fire(m) => format!("REACT FIRE {}", m.to_uppercase()),
                PolicyLine::Retreat(m) => format!("REACT RETREAT {}", m.to_uppercase()),
                PolicyLine::Adjutant(b, u) => format!("ADJUTANT {b} WITH {u}"),
                PolicyLine::Escape(b, h) => format!("ESCAPE {b} TO {h}"),
                PolicyLine::Face(m, n) | PolicyLine::Counter(m, n) => {
                    let what = if matches!(p, PolicyLine::Face(..)) { "FACE" } else { "COUNTERCHARGE" };
                    if m == "min" {
                        format!("REACT {what} MIN {n}")
                    } else {
                        format!("REACT {what} {}", m.to_uppercase())
                    }
                }
            },
        };
        f.write_str(&t)
    }
}

fn battle_name(s: &State, text: &str) -> Result<String, Problem> {
    let names: Vec<&str> = s.battles.iter().map(|b| b.name.as_str()).collect();
    // A Captain answers to his Battle's name, to his own (an Adjutant's),
    // and to the code the map shows for him (`*GA` alone in a hex).
    let folded = names::fold(text.trim_start_matches('*'));
    if let Some(b) = s.battles.iter().find(|b| names::fold(&b.captain.name) == names::fold(text)) {
        return Ok(b.name.clone());
    }
    let codes: Vec<&str> = s.battles.iter().map(|b| b.code.as_str()).collect();
    if let Some(i) = codes.iter().position(|c| names::fold(c) == folded) {
        return Ok(names[i].to_string());
    }
    names::find_labelled(&names, &codes, text, "Captain").map(|i| names[i].to_string())
}

/// A unit, by its name or by the code the map and the unit table show
/// (`GA1`).
fn unit_name(s: &State, text: &str) -> Result<String, Problem> {
    let names: Vec<&str> = s.units.iter().map(|u| u.name.as_str()).collect();
    let codes: Vec<&str> = s.units.iter().map(|u| u.code.as_str()).collect();
    names::find_labelled(&names, &codes, text, "unit").map(|i| names[i].to_string())
}

/// A piece to place: a unit, a Squad Leader, or a Captain (his Battle's
/// name).
fn piece_name(s: &State, text: &str) -> Result<String, Problem> {
    let mut names: Vec<&str> = s.units.iter().map(|u| u.name.as_str()).collect();
    let mut codes: Vec<String> = s.units.iter().map(|u| u.code.clone()).collect();
    for b in &s.battles {
        for q in &b.squads {
            names.push(q.leader.name.as_str());
            codes.push(format!("{}{}", b.code, q.letter));
        }
    }
    let folded = names::fold(text);
    let bare = names::fold(text.trim_start_matches('*'));
    if let Some(b) = s.battles.iter().find(|b| {
        names::fold(&b.name) == folded || names::fold(&b.captain.name) == folded || names::fold(&b.code) == bare
    }) {
        return Ok(b.name.clone());
    }
    let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
    names::find_labelled(&names, &codes, text.trim_start_matches('*'), "piece").map(|i| names[i].to_string())
}

/// A Squad Leader, by name or by the code the map shows (`GAa`).
fn leader_name(s: &State, text: &str) -> Result<String, Problem> {
    let names: Vec<&str> = s.battles.iter().flat_map(|b| b.squads.iter().map(|q| q.leader.name.as_str())).collect();
    let codes: Vec<String> =
        s.battles.iter().flat_map(|b| b.squads.iter().map(move |q| format!("{}{}", b.code, q.letter))).collect();
    let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
    names::find_labelled(&names, &codes, text.trim_start_matches('*'), "Squad Leader").map(|i| names[i].to_string())
}

fn hex_id(s: &State, t: &str) -> Result<String, Problem> {
    match Hex::parse(t) {
        Some(h) if s.grid().contains(h) => Ok(h.to_string()),
        Some(h) => Err(Problem::new(format!("{h} is off the map ({} columns, {} rows)", s.map.columns, s.map.rows))),
        None => {
            Err(Problem::new(format!("{t:?} is not a hex")).hint("write a hex as four digits, column then row: 2122"))
        }
    }
}

/// A target: a hex id, or a unit's name (kept as written canonically).
fn target(s: &State, t: &str) -> Result<String, Problem> {
    if Hex::parse(t.trim()).is_some() {
        hex_id(s, t.trim())
    } else {
        unit_name(s, t)
    }
}

/// `<unit> [<hex> | FACE <v>]…`: the unit's name is what comes before the
/// first hex or FACE.
fn unit_and_path(s: &State, text: &str) -> Result<(String, Vec<Step>), Problem> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let cut = words.iter().position(|w| Hex::parse(w).is_some() || parse::word(w) == "FACE").unwrap_or(words.len());
    if cut == 0 {
        return Err(Problem::new("the unit's name is missing").hint("MOVE Tartaglia-A1 1922 2022 ATTACK 2122"));
    }
    let unit = unit_name(s, &words[..cut].join(" "))?;
    let mut path = Vec::new();
    let mut i = cut;
    while i < words.len() {
        if parse::word(words[i]) == "FACE" {
            let v = words.get(i + 1).and_then(|w| vertex(w)).ok_or_else(|| {
                Problem::new("FACE needs a vertex").hint("FACE NE, E, SE, SW, W or NW (or the clock: 1 3 5 7 9 11)")
            })?;
            path.push(Step::Face(v));
            i += 2;
        } else {
            path.push(Step::Hex(hex_id(s, words[i])?));
            i += 1;
        }
    }
    Ok((unit, path))
}

/// A map line by its name or its ends (`2406-3003`).
fn line_name(s: &State, t: &str) -> Result<String, Problem> {
    let t = t.trim();
    if let Some(l) = s.map.line.iter().find(|l| format!("{}-{}", l.from, l.to) == t) {
        return Ok(l.name.clone());
    }
    let names: Vec<&str> = s.map.line.iter().map(|l| l.name.as_str()).collect();
    names::find(&names, t, "line").map(|i| names[i].to_string())
}

fn opt_hex(s: &State, t: &str) -> Result<Option<String>, Problem> {
    if t.trim().is_empty() {
        Ok(None)
    } else {
        hex_id(s, t.trim()).map(Some)
    }
}

fn hexes(s: &State, text: &str) -> Result<Vec<String>, Problem> {
    let v: Result<Vec<String>, Problem> = text.split_whitespace().map(|w| hex_id(s, w)).collect();
    let v = v?;
    if v.is_empty() {
        return Err(Problem::new("no hex given").hint("CAPTAIN 2021 2121: the hexes entered in turn"));
    }
    Ok(v)
}

/// A policy's mode: one of `allowed`, or `MIN <n>` where `min` allows it.
fn mode(t: &str, allowed: &[&str], min: bool, what: &str) -> Result<(String, i32), Problem> {
    let words: Vec<&str> = t.split_whitespace().collect();
    let first = words.first().map(|w| parse::word(w)).unwrap_or_default();
    if min && first == "MIN" {
        let n = parse::number(words.get(1).copied().unwrap_or(""), 0..=12, "MIN")?;
        return Ok(("min".into(), n));
    }
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(&first)) && words.len() == 1 {
        return Ok((first.to_lowercase(), 0));
    }
    let takes = if min { format!("{} or MIN <n>", allowed.join(", ")) } else { allowed.join(" or ") };
    Err(Problem::new(format!("REACT {what} takes {takes}")).hint(format!("REACT {what} {}", allowed[0])))
}

/// The orders of a General Order: one, or two for a double (5.2, 5.2.2).
fn general_kinds(text: &str) -> Result<Vec<OrderKind>, Problem> {
    let mut general = Vec::new();
    for k in text.split('+') {
        let k = OrderKind::from_word(k.trim()).ok_or_else(|| {
            Problem::new(format!("{:?} is not an order a General Order can give", k.trim()))
                .hint("GENERAL MOVE, CHARGE, FIRE, RETREAT, ECHELON or RECOVER; a double: GENERAL CHARGE + MOVE")
        })?;
        if k == OrderKind::Reorganize {
            return Err(Problem::new("Reorganization is an Individual Order only (5.4.3)"));
        }
        general.push(k);
    }
    if general.len() > 2 {
        return Err(Problem::new("a General Order names one order, or two for a double (5.2.2)"));
    }
    Ok(general)
}

pub fn parse(s: &State, role: &str, text: &str) -> Result<Order, Problem> {
    let l = Line::new(text).ok_or_else(|| Problem::new("empty line"))?;
    let rest = l.rest;
    Ok(match l.key().as_str() {
        "ACTIVATE" => {
            let (head, general) = match parse::split(rest, "GENERAL") {
                Some((b, kinds)) => (b, general_kinds(kinds)?),
                None => (rest, Vec::new()),
            };
            let (head, face) = match parse::split(head, "FACE") {
                Some((h, v)) => (h, Some(vertex(v).ok_or_else(|| Problem::new("FACE needs a vertex: NE E SE SW W NW"))?)),
                None => (head, None),
            };
            let (b, at) = match parse::split(head, "AT") {
                Some((b, l)) => (b, Some(line_name(s, l)?)),
                None => (head, None),
            };
            Order::Activate { battle: battle_name(s, b)?, general, at, face }
        }
        "CONTINUUM" => Order::Continuum { battle: battle_name(s, rest)? },
        "GENERAL" => Order::General { kinds: general_kinds(rest)? },
        "PASS" if rest.is_empty() => Order::Pass,
        "CONFUSION" => Order::Confusion { battle: battle_name(s, rest)? },
        "INTERRUPT" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.first().map(|w| parse::word(w)).as_deref() {
                Some("ASK") if words.len() == 1 => Order::Policy(PolicyLine::Interrupt("ask".into(), 0)),
                Some("NEVER") if words.len() == 1 => Order::Policy(PolicyLine::Interrupt("never".into(), 0)),
                Some("WITH") => {
                    let body = words[1..].join(" ");
                    let (who, min) = match parse::split(&body, "MIN") {
                        Some((w, n)) => (w.to_string(), parse::number(n, 1..=12, "MIN")?),
                        None => (body.clone(), 0),
                    };
                    if parse::word(&who) == "BEST" {
                        Order::Policy(PolicyLine::Interrupt("best".into(), min))
                    } else if min > 0 || !matches!(&s.pending, Pending::Interruptio { role: r, .. } if r == role) {
                        // Outside its own interruptio step the line is a
                        // standing policy (3.4).
                        Order::Policy(PolicyLine::Interrupt(battle_name(s, &who)?, min))
                    } else {
                        Order::Interrupt { battle: battle_name(s, &who)? }
                    }
                }
                _ => {
                    return Err(Problem::new("INTERRUPT what?").hint(
                        "INTERRUPT WITH <captain> (now), or a policy: INTERRUPT ASK, INTERRUPT NEVER, INTERRUPT WITH BEST MIN 5",
                    ))
                }
            }
        }
        "NO" if parse::word(rest) == "INTERRUPT" => Order::NoInterrupt,
        "MOVE" if parse::word(rest.split_whitespace().next().unwrap_or("")) == "STANDARD" => {
            let hexes_text = rest.split_once(char::is_whitespace).map(|x| x.1).unwrap_or("");
            Order::Standard { path: hexes(s, hexes_text)? }
        }
        "MOVE" => {
            let (body, attack) = match parse::split(rest, "ATTACK") {
                Some((b, t)) => (b, Some(target(s, t)?)),
                None => (rest, None),
            };
            let (unit, path) = unit_and_path(s, body)?;
            Order::Move { unit, path, attack }
        }
        "CHARGE" | "CARICA" => {
            let (body, t) = parse::split(rest, "ATTACK").ok_or_else(|| {
                Problem::new("a Carica! must attack an enemy unit (5.4.5)").hint("CHARGE Tartaglia-A1 1922 2022 ATTACK 2122")
            })?;
            let (unit, path) = unit_and_path(s, body)?;
            Order::Charge { unit, path, attack: target(s, t)? }
        }
        "FIRE" => {
            let (body, t) = parse::split(rest, "AT")
                .ok_or_else(|| Problem::new("FIRE needs a target").hint("FIRE Guido-5 AT Tartaglia-A1 (or AT 2122)"))?;
            let (unit, path) = unit_and_path(s, body)?;
            let face = match path.as_slice() {
                [] => None,
                [Step::Face(v)] => Some(*v),
                _ => return Err(Problem::new("a unit that fires does not move; it may pivot once first (5.4.2)")
                    .hint("FIRE Guido-5 FACE W AT 2122")),
            };
            Order::Fire { unit, face, at: target(s, t)? }
        }
        "REORGANIZE" | "REORGANISE" => Order::Reorganize { unit: unit_name(s, rest)? },
        "RETREAT" => match parse::split(rest, "TO") {
            Some((u, h)) => match parse::keyword(h, "RALLY") {
                Some(at) => Order::Rally { unit: unit_name(s, u)?, to: opt_hex(s, at)?, echelon: false },
                None => Order::Retreat { unit: unit_name(s, u)?, to: Some(hex_id(s, h)?) },
            },
            None => Order::Retreat { unit: unit_name(s, rest)?, to: None },
        },
        "ECHELON" | "ECHELONED" => {
            if let Some((u, h)) = parse::split(rest, "TO") {
                let at = parse::keyword(h, "RALLY").ok_or_else(|| {
                    Problem::new("ECHELON … TO RALLY, or ECHELON <unit> WITH <unit>")
                        .hint("ECHELON Tartaglia-A1 WITH Tartaglia-B1")
                })?;
                Order::Rally { unit: unit_name(s, u)?, to: opt_hex(s, at)?, echelon: true }
            } else {
                let (body, attack) = match parse::split(rest, "ATTACK") {
                    Some((b, t)) => (b, Some(target(s, t)?)),
                    None => (rest, None),
                };
                let (u, w) = parse::split(body, "WITH").ok_or_else(|| {
                    Problem::new("an Echeloned order names the unit behind it (5.4.6)")
                        .hint("ECHELON Tartaglia-A1 WITH Tartaglia-B1 [ATTACK <target>]")
                })?;
                Order::Echelon { unit: unit_name(s, u)?, with: unit_name(s, w)?, attack }
            }
        }
        "CAPTAIN" => Order::Captain { path: hexes(s, rest)? },
        "LEADER" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let cut = words.iter().position(|w| Hex::parse(w).is_some()).unwrap_or(words.len());
            Order::Leader { leader: leader_name(s, &words[..cut].join(" "))?, path: hexes(s, &words[cut..].join(" "))? }
        }
        "SQUAD" => Order::Squad { leader: leader_name(s, rest)? },
        "COMBAT" => {
            let (rest, losses) = match parse::split(rest, "LOSSES") {
                Some((b, l)) => (b, l.split(',').map(|u| unit_name(s, u.trim())).collect::<Result<Vec<_>, _>>()?),
                None => (rest, Vec::new()),
            };
            let (rest, keep) = match parse::split(rest, "KEEP") {
                Some((b, k)) => (b, Some(unit_name(s, k)?)),
                None => (rest, None),
            };
            let (body, advance) = match parse::split(rest, "ADVANCE") {
                Some((b, f)) => {
                    let v = parse::keyword(f, "FACE").and_then(vertex).ok_or_else(|| {
                        Problem::new("ADVANCE FACE needs a vertex (10.9.1)").hint("COMBAT 2222 LEAD Tartaglia-A1 ADVANCE FACE E")
                    })?;
                    (b, Some(v))
                }
                None => (rest, None),
            };
            match parse::split(body, "LEAD") {
                Some((t, u)) => Order::Combat { target: target(s, t)?, lead: Some(unit_name(s, u)?), advance, keep, losses },
                None => Order::Combat { target: target(s, body)?, lead: None, advance, keep, losses },
            }
        }
        "WAIT" if rest.is_empty() => Order::Wait,
        "ADJUTANT" => {
            let (b, u) = parse::split(rest, "WITH")
                .ok_or_else(|| Problem::new("ADJUTANT <captain> WITH <unit of his Battle>").hint("ADJUTANT Tartaglia WITH Tartaglia-A2"))?;
            Order::Policy(PolicyLine::Adjutant(battle_name(s, b)?, unit_name(s, u)?))
        }
        "ESCAPE" => {
            let (b, h) = parse::split(rest, "TO").ok_or_else(|| Problem::new("ESCAPE <captain> TO <hex>").hint("ESCAPE Braccio TO 1418"))?;
            Order::Policy(PolicyLine::Escape(battle_name(s, b)?, hex_id(s, h)?))
        }
        "PLACE" => {
            let (body, face) = match parse::split(rest, "FACE") {
                Some((b, v)) => (b, Some(vertex(v).ok_or_else(|| Problem::new("FACE needs a vertex: NE E SE SW W NW"))?)),
                None => (rest, None),
            };
            let (who, h) = parse::split(body, "AT")
                .ok_or_else(|| Problem::new("PLACE <piece> AT <hex>").hint("PLACE Pergola AT 2319, PLACE Pergola-1 AT 2419 FACE W"))?;
            Order::Place { who: piece_name(s, who)?, hex: hex_id(s, h)?, face }
        }
        "RALLY" => {
            let (b, h) = parse::split(rest, "AT").ok_or_else(|| Problem::new("RALLY <battle> AT <hex>").hint("RALLY Tartaglia AT 1114"))?;
            Order::RallyPoint { battle: battle_name(s, b)?, hex: hex_id(s, h)? }
        }
        "THEN" if rest.is_empty() => Order::Then,
        "NEXT" => {
            if parse::word(rest) == "PASS" {
                Order::Next { what: "pass".into() }
            } else if let Some(b) = parse::keyword(rest, "CONTINUUM") {
                Order::Next { what: battle_name(s, b)? }
            } else {
                return Err(Problem::new("NEXT CONTINUUM <captain> or NEXT PASS").hint("NEXT CONTINUUM Piccinino"));
            }
        }
        "REACT" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let what = words.first().map(|w| parse::word(w)).unwrap_or_default();
            let tail = words.get(1..).unwrap_or(&[]).join(" ");
            match what.as_str() {
                "FIRE" => Order::Policy(PolicyLine::Fire(mode(&tail, &["ALWAYS", "NEVER", "ATTACKERS"], false, "FIRE")?.0)),
                "FACE" => {
                    let (m, n) = mode(&tail, &["ALWAYS", "NEVER"], true, "FACE")?;
                    Order::Policy(PolicyLine::Face(m, n))
                }
                "RETREAT" => Order::Policy(PolicyLine::Retreat(mode(&tail, &["KEEP", "TURN"], false, "RETREAT")?.0)),
                "COUNTERCHARGE" => {
                    let (m, n) = mode(&tail, &["ALWAYS", "NEVER"], true, "COUNTERCHARGE")?;
                    Order::Policy(PolicyLine::Counter(m, n))
                }
                _ => {
                    return Err(Problem::new("REACT FIRE, REACT FACE, REACT COUNTERCHARGE or REACT RETREAT")
                        .hint("REACT FIRE ATTACKERS, REACT FACE MIN 4, REACT COUNTERCHARGE ALWAYS, REACT RETREAT TURN"))
                }
            }
        }
        _ => {
            return Err(Problem::new(format!("{:?} is not an order of Braccio da Montone", l.verb)).hint(
                "ACTIVATE, CONTINUUM, PASS, INTERRUPT, MOVE, CHARGE, FIRE, REORGANIZE, RETREAT, ECHELON, CAPTAIN, LEADER, SQUAD, COMBAT, NEXT, THEN, REACT",
            ))
        }
    })
}
