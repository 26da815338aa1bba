//! What each side sees of La Guerre des Ducs: everything on the map (the
//! game is open, every die public), but the phasing side's queued attacks
//! only by their owner (brief 3.3); and what each step asks of a side.

use super::combat::{self, RetreatOption};
use super::movement::Position;
use super::{marginal, other, side_name, Map, Phase, State, Unit, ORF, SIDES, WULF};
use crate::engine::view::{HexBoard, HexCell};
use crate::engine::{Board, Piece, Prompt, Table, View, Viewer};
use crate::rules::shared::hex::Offset;

const COLOURS: [(&str, &str); 2] = [(ORF, "#2b5fa8"), (WULF, "#b0302a")];

fn sees_queue(s: &State, viewer: &Viewer) -> bool {
    match viewer {
        Viewer::Moderator => true,
        Viewer::Role(r) => *r == s.active,
        Viewer::Public => false,
    }
}

/// What the step is, in a line.
fn step_line(s: &State) -> String {
    match s.phase {
        Phase::Garrison => "Set-up: both garrison their cities and fortresses, unseen by each other.".into(),
        Phase::Placement => format!("Set-up: {} places counters inside its borders.", side_name(&s.active)),
        Phase::Move => {
            format!("Turn {}/{}: {}'s phase — moves and attacks.", s.turn, s.numbers.turns, side_name(&s.active))
        }
        Phase::Combat => {
            format!("Turn {}/{}: {} may order more attacks.", s.turn, s.numbers.turns, side_name(&s.active))
        }
        Phase::Retreat => {
            let who = s.fight.as_ref().and_then(|f| f.retreating.first()).cloned().unwrap_or_default();
            format!("Turn {}/{}: combat {} — {who} must retreat.", s.turn, s.numbers.turns, s.fights)
        }
        Phase::Losses => format!(
            "Turn {}/{}: combat {} — {} chooses its exchange losses.",
            s.turn,
            s.numbers.turns,
            s.fights,
            side_name(&s.active)
        ),
        Phase::Advance => {
            format!("Turn {}/{}: combat {} — {} may advance.", s.turn, s.numbers.turns, s.fights, side_name(&s.active))
        }
        Phase::Over => "The game is over.".into(),
    }
}

/// A counter's code on the map: `I10`, `D` for a lone duke, `I3*` with
/// its duke.
fn code(units: &[&Unit]) -> Option<Piece> {
    let unit = units.iter().find(|u| !u.duke());
    let duke = units.iter().any(|u| u.duke());
    let side = units.first()?.side.clone();
    let text = match (unit, duke) {
        (Some(u), true) => format!("{}*", u.id),
        (Some(u), false) => u.id.clone(),
        (None, _) => "D".into(),
    };
    Some(Piece { side, text })
}

pub fn board(s: &State, title: String) -> HexBoard {
    let pos = Position::new(s);
    let map = &pos.map;
    let mut hexes = Vec::new();
    for h in s.grid.hexes() {
        let d = map.data(h);
        let t = map.terrain(h);
        let units = pos.occupants(h);
        // A place held by the side that did not own it says so, on the
        // map as in the legend.
        let place = match d {
            Some(d) if !d.place.is_empty() && !d.control.is_empty() && d.control != d.owner => {
                format!("{} [{}]", d.place, side_name(&d.control))
            }
            Some(d) => d.place.clone(),
            None => String::new(),
        };
        let glyph = t.glyph.chars().next().unwrap_or('.');
        if glyph == '.' && place.is_empty() && units.is_empty() {
            continue;
        }
        let unit = units.iter().find(|u| !u.duke()).or(units.first());
        let symbol = match unit.map(|u| u.kind.as_str()) {
            Some("duke") => "leader",
            Some(k) => k,
            None => "",
        };
        hexes.push(HexCell {
            col: h.col,
            row: h.row,
            terrain: glyph,
            place,
            piece: code(&units),
            symbol: symbol.to_string(),
            values: unit.map(|u| format!("{}-{}", u.strength, u.movement)).unwrap_or_default(),
            crown: units.len() > 1 && units.iter().any(|u| u.duke()),
            facing: 0,
        });
    }
    let mut hexsides = Vec::new();
    for x in &s.hexsides {
        let Some((a, b)) = x.name.split_once('-') else { continue };
        let kind = if x.river && x.bridge {
            "bridge"
        } else if x.river {
            "river"
        } else {
            "road"
        };
        hexsides.push((a.to_string(), b.to_string(), kind.to_string()));
    }
    let mut legend = vec![
        "oI3 = ORF I3, wC2 = WULF C2; * = with its duke; D = a duke alone".to_string(),
        format!(
            "Strength/MA: {}",
            ["infantry", "cavalry", "artillery", "duke"]
                .iter()
                .filter_map(|k| s
                    .units
                    .iter()
                    .find(|u| u.kind == *k)
                    .map(|u| format!("{k} {}/{}", u.strength, u.movement)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    let zone: Vec<String> = s.hexes.iter().filter(|h| h.zone).map(|h| h.name.clone()).collect();
    if let (Some(a), Some(b)) = (zone.first(), zone.last()) {
        legend.push(format!("Between the rivers: {} hexes, {a} to {b}", zone.len()));
    }
    HexBoard {
        title,
        columns: s.grid.columns,
        rows: s.grid.rows,
        even_low: s.grid.offset == Offset::EvenQ,
        hexes,
        hexsides,
        terrain: s
            .terrain
            .iter()
            .map(|t| (t.glyph.chars().next().unwrap_or('.'), t.name.clone(), t.colour.clone()))
            .collect(),
        roads: s.roads.iter().map(|r| (r.name.clone(), r.hexes.clone())).collect(),
        areas: vec![("between the rivers".into(), zone.clone())],
        sides: COLOURS.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        legend,
        window: None,
    }
}

pub fn view(s: &State, viewer: &Viewer) -> View {
    let mut v =
        View { title: format!("La Guerre des Ducs — turn {}/{}", s.turn, s.numbers.turns), ..View::default() };
    v.lines.push(step_line(s));
    if let Some(o) = &s.outcome {
        v.lines.push(format!(
            "Result: {} wins ({}).",
            o.winner.as_deref().map(side_name).unwrap_or("nobody"),
            o.reason
        ));
    }
    let map = Map::new(s);
    for side in SIDES {
        let held = s.hexes.iter().filter(|h| h.control == side).count();
        let lost = s.units.iter().filter(|u| u.side == side && u.eliminated).count();
        v.lines.push(format!("{}: {held} cities and fortresses held, {lost} counters lost.", side_name(side)));
    }
    if s.outcome.is_none() && !matches!(s.phase, Phase::Garrison | Phase::Placement) {
        let (won, why) = marginal(s);
        v.lines.push(if won {
            "If the game ended now: Orfburg (Kaiserburg held, the rivers' land kept).".to_string()
        } else {
            format!("If the game ended now: Wulfenburg ({}).", why.first().cloned().unwrap_or_default())
        });
    }
    if sees_queue(s, viewer) && !s.queue.is_empty() {
        v.lines.push(format!(
            "Your attacks still to fight (only you see them){}:",
            if s.more { ", then CONTINUE" } else { "" }
        ));
        for q in &s.queue {
            let ids: Vec<&str> = q.attackers.iter().map(|n| n.split_once(' ').map(|x| x.1).unwrap_or(n)).collect();
            v.lines.push(format!("  queued: ATTACK {} WITH {} (on {})", q.hex, ids.join(", "), q.targets.join(", ")));
        }
    }
    let pos = Position::new(s);
    for side in SIDES {
        let mut t = Table {
            title: format!("{} counters", side_name(side)),
            header: vec!["counter".into(), "str".into(), "MA".into(), "hex".into(), "notes".into()],
            rows: Vec::new(),
        };
        for u in s.units.iter().filter(|u| u.side == side) {
            let mut notes = Vec::new();
            if u.eliminated {
                notes.push("eliminated".to_string());
            } else if let Some(h) = u.at() {
                if !u.duke() && s.fanatised(side, h) {
                    notes.push("near its duke".into());
                }
                if pos.zoc(side, h).is_some() {
                    notes.push("in enemy ZOC".into());
                }
                if u.fought {
                    notes.push("has attacked".into());
                }
                if u.attacked {
                    notes.push("was attacked".into());
                }
            } else {
                notes.push("not placed".into());
            }
            let hex = u.at().map(|h| map.label(h)).unwrap_or_else(|| "-".into());
            t.rows.push(vec![u.id.clone(), u.strength.to_string(), u.movement.to_string(), hex, notes.join(", ")]);
        }
        v.tables.push(t);
    }
    let mut places = Table {
        title: "Cities and fortresses".into(),
        header: vec!["place".into(), "hex".into(), "kind".into(), "held by".into(), "notes".into()],
        rows: Vec::new(),
    };
    for h in s.hexes.iter().filter(|h| !h.control.is_empty() || !h.place.is_empty()) {
        let mut notes = Vec::new();
        if !h.capital.is_empty() {
            notes.push(format!("capital of {}", side_name(&h.capital)));
        }
        if h.objective {
            notes.push("Orfburg's objective".into());
        }
        if h.zone {
            notes.push("between the rivers".into());
        }
        let held = if h.control.is_empty() { "-".to_string() } else { side_name(&h.control).to_string() };
        places.rows.push(vec![h.place.clone(), h.name.clone(), h.terrain.clone(), held, notes.join(", ")]);
    }
    v.tables.push(places);
    let mut crt =
        Table { title: "Results table (rows: die + terrain)".into(), header: vec!["die".into()], rows: Vec::new() };
    crt.header.extend(s.crt.columns.iter().cloned());
    for (die, cells) in &s.crt.rows {
        let mut row = vec![die.clone()];
        row.extend(cells.iter().cloned());
        crt.rows.push(row);
    }
    v.tables.push(crt);
    v.boards.push(Board::Hex(board(s, format!("La Guerre des Ducs, turn {}", s.turn))));
    v
}

fn examples(s: &State, role: &str) -> (String, String) {
    let mine: Vec<&Unit> = s.alive(role).filter(|u| !u.duke()).collect();
    let a = mine.first().map(|u| u.id.clone()).unwrap_or_else(|| "I1".into());
    let b = mine.get(1).map(|u| u.id.clone()).unwrap_or_else(|| "C1".into());
    (a, b)
}

pub fn prompt(s: &State, role: &str) -> Prompt {
    let map = Map::new(s);
    let (a, b) = examples(s, role);
    let enemy_hex =
        s.alive(other(role)).filter_map(|u| u.at()).next().map(|h| h.to_string()).unwrap_or_else(|| "0605".into());
    match s.phase {
        Phase::Garrison => {
            let hexes = super::data::garrison_hexes(s, role);
            let list: Vec<String> = hexes.iter().map(|h| map.label(*h)).collect();
            Prompt {
                text: format!(
                    "Garrison each of your cities and fortresses with one unit (not the duke): {}. The other side's garrison stays hidden from you until both are in.",
                    list.join(", ")
                ),
                syntax: vec![
                    format!("PLACE I1 AT {}", hexes.first().map(|h| map.label(*h)).unwrap_or_default()),
                    "PLACE <unit> AT <hex or place>, one line for each city and fortress".into(),
                ],
            }
        }
        Phase::Placement => {
            let left: Vec<String> = s.units.iter().filter(|u| u.side == role && !u.on_map() && !u.eliminated).map(|u| u.id.clone()).collect();
            Prompt {
                text: format!(
                    "Place one or more counters inside your borders, on empty hexes (your duke may join a unit in a city or fortress). Still to place: {}.",
                    left.join(", ")
                ),
                syntax: vec![
                    format!("PLACE {} AT <hex>", left.first().cloned().unwrap_or_else(|| "I1".into())),
                    "PLACE Duke AT Orfburg (with the garrison of a city or fortress)".into(),
                ],
            }
        }
        Phase::Move => Prompt {
            text: format!(
                "Your phase, turn {}/{}. Move any of your counters (each within its movement allowance; roads and cities ½ MP, woods and heights 2; an enemy zone of control stops a move), then queue attacks: they are fought one by one in the order written, after all moves. Write CONTINUE to see their results and order more; PASS to do nothing.",
                s.turn, s.numbers.turns
            ),
            syntax: vec![
                format!("MOVE {a} TO <hex> [VIA <hex>]"),
                format!("ATTACK {enemy_hex} WITH {a}, {b} [ADVANCE {a} | HOLD]"),
                "CONTINUE".into(),
                "PASS".into(),
            ],
        },
        Phase::Combat => Prompt {
            text: "Your queued attacks are fought. Order more attacks with units that have not attacked, against counters not yet attacked, or PASS to end the phase.".into(),
            syntax: vec![format!("ATTACK {enemy_hex} WITH {a} [ADVANCE {a} | HOLD]"), "CONTINUE".into(), "PASS".into()],
        },
        Phase::Retreat => {
            let Some(f) = s.fight.as_ref() else { return Prompt::default() };
            let units: Vec<&Unit> = f.retreating.iter().filter_map(|n| s.unit(n)).collect();
            let Some(u) = units.first() else { return Prompt::default() };
            let mut syntax = Vec::new();
            let mut pushes = false;
            for x in &units {
                let options = combat::retreat_options(s, x, &f.retreaters);
                pushes |= options.iter().any(|o| matches!(o, RetreatOption::Push { .. }));
                syntax.extend(options.iter().map(|o| o.order(&x.id)));
            }
            let names: Vec<&str> = units.iter().map(|x| x.name.as_str()).collect();
            let text = if f.choose {
                format!(
                    "{} must retreat one hex from {}, and there is room for one of them only: choose the one that retreats; the other is removed (A20). Without your choice the duke is saved. Choose one:",
                    names.join(" and "),
                    u.hex
                )
            } else {
                format!(
                    "{} must retreat one hex from {} (never into an enemy zone of control, across a river or into a lake){}{}. Choose:",
                    names.join(" and "),
                    u.hex,
                    if pushes { "; with no empty hex a counter may take a friend's place, pushing the friend aside" } else { "" },
                    if units.len() > 1 { "; one RETREAT line a counter, in one mail or one at a time; two end in one hex only in a city or fortress" } else { "" }
                )
            };
            Prompt { text, syntax }
        }
        Phase::Losses => {
            let owed = s.fight.as_ref().map(|f| f.owed).unwrap_or(0);
            let sets = combat::loss_sets(s);
            Prompt {
                text: format!(
                    "Exchange: the defenders are removed; you lose close-combat attackers totalling at least {owed}, with none to spare. Choose one:"
                ),
                syntax: sets
                    .iter()
                    .map(|set| format!("LOSE {}", set.iter().map(|n| n.split_once(' ').map(|x| x.1).unwrap_or(n)).collect::<Vec<_>>().join(", ")))
                    .collect(),
            }
        }
        Phase::Advance => {
            let hex = s.fight.as_ref().map(|f| f.hex.clone()).unwrap_or_default();
            let cands = combat::advance_candidates(s);
            let mut syntax: Vec<String> =
                cands.iter().map(|n| format!("ADVANCE {}", n.split_once(' ').map(|x| x.1).unwrap_or(n))).collect();
            syntax.push("HOLD".into());
            Prompt {
                text: format!(
                    "The defender left {hex}. One of your attackers in close combat may occupy it, whatever the zones of control; the decision is final."
                ),
                syntax,
            }
        }
        Phase::Over => Prompt::default(),
    }
}
