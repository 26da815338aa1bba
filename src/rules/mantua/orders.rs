//! Siege of Mantua order lines: parsing into typed orders, and their
//! canonical form (what is journaled and echoed back).

use super::{Phase, State, MAP};
use crate::engine::Problem;
use crate::rules::shared::names;
use crate::rules::shared::parse::{self, Line};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Serializable: orders held in the state (the Commands given with DOUBLE)
/// stay typed, never text to be read again against a changed board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Order {
    /// Set-up: put a block in a city.
    Place {
        block: String,
        at: String,
    },
    /// Normal move of one or more blocks that share an origin.
    Move {
        blocks: Vec<String>,
        to: String,
    },
    /// Interior Lines special move.
    Swap {
        a: String,
        b: String,
    },
    /// Reassign special move: reveal and reduce `from`, raise `to`.
    Reassign {
        from: String,
        to: String,
    },
    /// Escape step: try to escape by this route.
    Escape {
        to: String,
    },
    /// Escape step: accept battle.
    Stand,
    /// After the siege is lifted: up to two blocks gain one step.
    Strengthen {
        blocks: Vec<String>,
    },
    Pass,
    /// Battle: reveal a block in the battle (its strength is drawn from the Pool).
    Reveal {
        block: String,
    },
    /// Battle: put drawn units face-down in one of one's edge spaces, front first.
    Deploy {
        space: String,
        units: Vec<String>,
    },
    /// Battle: a Wing moves one space ahead, then may turn 90°.
    Advance {
        space: String,
        turn: Option<Side90>,
    },
    /// Battle: a Wing turns 90° in place (a Movement without leaving).
    Wheel {
        space: String,
        turn: Side90,
    },
    /// Battle: a Wing attacks the enemy Wing it faces.
    Strike {
        space: String,
    },
    /// Battle: Order a Retreat (ends the battle in one's loss).
    Retreat,
    /// Battle: use the Doubling Cube.
    Double,
    /// Battle: accept the doubled stakes.
    Accept,
    /// After a lost battle: reductions on one's blocks...
    Reduce {
        block: String,
        steps: u32,
    },
    /// ...and the retreat route of a defeated defender.
    RetreatTo {
        to: String,
    },
    /// After a won battle: units to upgrade, one per block that fought.
    Upgrade {
        units: Vec<String>,
    },
}

/// A 90° turn, from the Wing's own point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side90 {
    Left,
    Right,
}

impl fmt::Display for Side90 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if *self == Side90::Left { "LEFT" } else { "RIGHT" })
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Place { block, at } => write!(f, "PLACE {block} AT {at}"),
            Order::Move { blocks, to } => write!(f, "MOVE {} TO {to}", blocks.join(", ")),
            Order::Swap { a, b } => write!(f, "SWAP {a} WITH {b}"),
            Order::Reassign { from, to } => write!(f, "REASSIGN {from} TO {to}"),
            Order::Escape { to } => write!(f, "ESCAPE TO {to}"),
            Order::Stand => write!(f, "STAND"),
            Order::Strengthen { blocks } => write!(f, "STRENGTHEN {}", blocks.join(", ")),
            Order::Pass => write!(f, "PASS"),
            Order::Reveal { block } => write!(f, "REVEAL {block}"),
            Order::Deploy { space, units } => write!(f, "DEPLOY {space}: {}", units.join(", ")),
            Order::Advance { space, turn: None } => write!(f, "MOVE {space}"),
            Order::Advance { space, turn: Some(t) } => write!(f, "MOVE {space} {t}"),
            Order::Wheel { space, turn } => write!(f, "TURN {space} {turn}"),
            Order::Strike { space } => write!(f, "ATTACK {space}"),
            Order::Retreat => write!(f, "RETREAT"),
            Order::Double => write!(f, "DOUBLE"),
            Order::Accept => write!(f, "ACCEPT"),
            Order::Reduce { block, steps } => write!(f, "REDUCE {block} {steps}"),
            Order::RetreatTo { to } => write!(f, "RETREAT TO {to}"),
            Order::Upgrade { units } => write!(f, "UPGRADE {}", units.join(", ")),
        }
    }
}

/// One form of manoeuvre order. The prompt's syntax lines (also HELP),
/// the ruleset's vocabulary and the parser's "not an order for this step"
/// all come from this one table, so they cannot disagree.
struct Form {
    verb: &'static str,
    /// The line as the prompt shows it.
    line: &'static str,
    phases: &'static [Phase],
}

const FORMS: &[Form] = &[
    Form { verb: "PLACE", line: "PLACE <block> AT <city>", phases: &[Phase::Setup] },
    Form { verb: "MOVE", line: "MOVE <block>[, <block>...] TO <place>", phases: &[Phase::Turn] },
    Form {
        verb: "SWAP",
        line: "SWAP <block> WITH <block>               (Interior Lines special move)",
        phases: &[Phase::Turn],
    },
    Form {
        verb: "REASSIGN",
        line: "REASSIGN <block> TO <block>             (Reassign special move)",
        phases: &[Phase::Turn],
    },
    Form {
        verb: "PASS",
        line: "PASS                                    (move nothing this turn)",
        phases: &[Phase::Turn],
    },
    Form { verb: "ESCAPE", line: "ESCAPE TO <city>", phases: &[Phase::Escape] },
    Form { verb: "STAND", line: "STAND              (accept battle)", phases: &[Phase::Escape] },
    Form { verb: "STRENGTHEN", line: "STRENGTHEN <block>[, <block>]   up to two blocks", phases: &[Phase::LiftSiege] },
    Form { verb: "PASS", line: "PASS", phases: &[Phase::LiftSiege] },
];

/// The syntax shown in prompts for each kind of step; the worked example
/// under it is the ruleset's `example`, from the role's own blocks.
pub fn syntax(phase: &Phase) -> Vec<String> {
    FORMS.iter().filter(|f| f.phases.contains(phase)).map(|f| f.line.to_string()).collect()
}

/// Is `verb` an order of this phase (by the table)?
fn belongs(verb: &str, phase: &Phase) -> bool {
    FORMS.iter().any(|f| f.verb == verb && f.phases.contains(phase))
}

fn block_name(s: &State, role: &str, q: &str) -> Result<String, Problem> {
    let own: Vec<&str> = s.blocks.iter().filter(|b| b.side == role).map(|b| b.name.as_str()).collect();
    names::find(&own, q, "block").map(|i| own[i].to_string())
}

fn block_list(s: &State, role: &str, q: &str) -> Result<Vec<String>, Problem> {
    // "Provera and Liptay" reads naturally; accept it (no block's name
    // holds the word).
    let mut out = Vec::new();
    for q in parse::list_and(q) {
        out.push(block_name(s, role, q)?);
    }
    if out.is_empty() {
        return Err(Problem::new("no block named").hint("name at least one of your blocks"));
    }
    Ok(out)
}

pub(super) fn block_in(s: &State, role: &str, q: &str) -> Result<String, Problem> {
    block_name(s, role, q)
}

pub fn place_name(q: &str) -> Result<String, Problem> {
    let map = &*MAP;
    let names = map.names();
    names::find(&names, q, "place").map(|i| names[i].to_string())
}

/// The keywords of the manoeuvre orders (the table's verbs).
pub fn verbs() -> impl Iterator<Item = &'static str> {
    FORMS.iter().map(|f| f.verb)
}

/// Reads a manoeuvre order; a battle's orders are `battle::parse`'s.
pub fn parse(s: &State, role: &str, line: &str) -> Result<Order, Problem> {
    let line = line.trim();
    let Some(l) = Line::new(line) else { return Err(Problem::new("empty line")) };
    let (word, rest) = (l.key(), l.rest);
    let allowed = syntax(&s.phase);
    // The table says first whether the verb is an order of this step; only
    // then are its words read.
    if !belongs(&word, &s.phase) {
        return Err(Problem::new(format!("{:?} is not an order for this step", l.verb)).hint(allowed.join(" | ")));
    }
    let usage = |what: &str| Problem::new(format!("cannot read this {what} order")).hint(allowed.join(" | "));
    let order = match word.as_str() {
        "PLACE" => {
            let (b, at) = parse::split(rest, "at").ok_or_else(|| usage("PLACE"))?;
            Order::Place { block: block_name(s, role, b)?, at: place_name(at)? }
        }
        "MOVE" => {
            let (b, to) = parse::split(rest, "to").ok_or_else(|| usage("MOVE"))?;
            Order::Move { blocks: block_list(s, role, b)?, to: place_name(to)? }
        }
        "SWAP" => {
            let (a, b) = parse::split(rest, "with").ok_or_else(|| usage("SWAP"))?;
            Order::Swap { a: block_name(s, role, a)?, b: block_name(s, role, b)? }
        }
        "REASSIGN" => {
            let (a, b) = parse::split(rest, "to").ok_or_else(|| usage("REASSIGN"))?;
            Order::Reassign { from: block_name(s, role, a)?, to: block_name(s, role, b)? }
        }
        "ESCAPE" => Order::Escape { to: place_name(parse::optional(rest, "to"))? },
        "STAND" if rest.is_empty() => Order::Stand,
        "STRENGTHEN" => Order::Strengthen { blocks: block_list(s, role, rest)? },
        "PASS" if rest.is_empty() => Order::Pass,
        _ => {
            return Err(Problem::new(format!("{word:?} is not an order for this step")).hint(allowed.join(" | ")));
        }
    };
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rules;

    /// The table, the prompt and the parser agree: every form's verb is
    /// read as an order of its phases (a missing argument is a usage
    /// problem, never "not an order for this step"), and of no other.
    #[test]
    fn the_forms_table_drives_prompt_and_parser() {
        let mut s = super::super::Mantua.setup("standard").unwrap();
        for phase in [Phase::Setup, Phase::Turn, Phase::Escape, Phase::LiftSiege] {
            s.phase = phase.clone();
            for role in [super::super::AUSTRIA, super::super::FRANCE] {
                let shown: Vec<String> = syntax(&phase);
                for f in FORMS {
                    let here = FORMS.iter().any(|g| g.verb == f.verb && g.phases.contains(&phase));
                    assert_eq!(here, shown.iter().any(|l| l.starts_with(f.verb)), "{} in {phase:?}", f.verb);
                    let refused = match parse(&s, role, f.verb) {
                        Err(p) => p.reason.contains("is not an order for this step"),
                        Ok(_) => false,
                    };
                    assert_eq!(refused, !here, "{} in {phase:?} for {role}", f.verb);
                }
            }
        }
    }
}
