//! What each side may know of the siege ledger: its own Resolve, stores,
//! spies and their qualities; of the enemy, what stands on the table (units
//! and their loss counters, officers' figures, fires, the Digging Standard)
//! and the figures its spies reported, dated. The moderator sees it all,
//! and everyone sees it all once the game is over.

use super::housekeeping::{policing_required, rally_bonus, RAIN};
use super::ledger::quality_word;
use super::orders::{commander_syntax, measures_left, moderator_syntax, rallyable};
use super::{
    card_class, card_name, other, possessive, side_name, Phase, Rank, SpyStatus, State, BESIEGERS, GARRISON, GM,
};
use crate::engine::{Board, Prompt, Table, Track, TrackBoard, View, Viewer};

fn knows_all(s: &State, viewer: &Viewer, side: &str) -> bool {
    match viewer {
        Viewer::Moderator => true,
        Viewer::Role(r) => r == side || s.outcome.is_some(),
        Viewer::Public => s.outcome.is_some(),
    }
}

/// A figure of `side` as this viewer knows it: the truth, a dated spy
/// report, or nothing.
fn figure(s: &State, viewer: &Viewer, side: &str, item: &str, truth: i32) -> (Option<i32>, String) {
    if knows_all(s, viewer, side) {
        return (Some(truth), String::new());
    }
    let Viewer::Role(r) = viewer else { return (None, String::new()) };
    match s.intel.get(r).and_then(|l| l.iter().find(|i| i.item == item)) {
        Some(i) => {
            let n = i.value.split_whitespace().next().and_then(|w| w.parse().ok());
            (n, format!("spy report, Siege Turn {}", i.turn))
        }
        None => (None, String::new()),
    }
}

fn phase_line(s: &State) -> String {
    match s.phase {
        Phase::Housekeeping => format!("Siege Turn {}: {} Housekeeping Phase.", s.turn, possessive(&s.active)),
        Phase::Event => format!("Siege Turn {}: the moderator applies the Event Card.", s.turn),
        Phase::Table => {
            format!("Siege Turn {}: {} table-top phases (artillery, combat, movement).", s.turn, possessive(&s.active))
        }
        Phase::Over => "The game is over.".into(),
    }
}

pub fn view(s: &State, viewer: &Viewer) -> View {
    let mut v = View { title: format!("Leaguer — {}, Siege Turn {}", s.data().title, s.turn), ..View::default() };
    if s.data().sample {
        v.lines.push("(Sample scenario figures.)".into());
    }
    v.lines.push(phase_line(s));
    match s.ds {
        Some(6) => v.lines.push(format!("Digging Standard 6: Torrential Rain — {RAIN}.")),
        Some(d) => v.lines.push(format!("Digging Standard: {d} (work must beat it on a D6).")),
        None => {
            v.lines.push("Digging Standard: not set yet (the Besiegers' Commander rolls 2D6 in his first turn).".into())
        }
    }
    v.lines.push(format!("Fires burning in the town: {}.", s.town.fires));
    let last = s.deck.discard.last().map(|c| card_name(c)).unwrap_or_else(|| "none".into());
    v.lines.push(format!(
        "Event Deck: {} cards to draw, {} on the discard stack (last: {last}).",
        if s.deck.shuffles == 0 { 54 } else { s.deck.draw.len() },
        s.deck.discard.len()
    ));
    if let Some(c) = &s.card {
        v.lines.push(format!("Event Card in play: {}.", card_name(c)));
    }
    if let Some(o) = &s.outcome {
        v.lines.push(format!(
            "Result: {} ({}).",
            o.winner.as_deref().map(|w| format!("the {} win", side_name(w))).unwrap_or_else(|| "no winner".into()),
            o.reason
        ));
    }
    for side in [BESIEGERS, GARRISON] {
        ledger_lines(s, viewer, side, &mut v.lines);
    }
    v.boards.push(Board::Tracks(board(s, viewer)));
    for side in [BESIEGERS, GARRISON] {
        v.tables.push(units(s, viewer, side));
        v.tables.push(officers(s, viewer, side));
        if knows_all(s, viewer, side) {
            v.tables.push(spies(s, side));
        }
    }
    if knows_all(s, viewer, GARRISON) && !s.town.walls.is_empty() {
        v.tables.push(Table {
            title: "Walls".into(),
            header: vec!["Section".into(), "Strength".into()],
            rows: s.town.walls.iter().map(|w| vec![w.name.clone(), w.strength.to_string()]).collect(),
        });
    }
    v
}

fn ledger_lines(s: &State, viewer: &Viewer, side: &str, out: &mut Vec<String>) {
    let a = s.army(side);
    let name = side_name(side);
    if knows_all(s, viewer, side) {
        out.push(format!("{name}: Resolve {}, powder {} loads.", a.resolve, a.powder));
        if side == GARRISON {
            out.push(format!(
                "Garrison: Food {} turns in store, Local Support {}; food measures left: {}.",
                s.town.food,
                s.town.ls,
                measures_left(s).join(", ")
            ));
            let need = policing_required(s.town.ls);
            if need > 0 {
                out.push(format!(
                    "Insurrection Control: LS {} calls for {} half-battalion(s) in the town.",
                    s.town.ls, need
                ));
            }
        }
        out.push(format!("{name} mining: {}", if a.mining.is_empty() { "none" } else { &a.mining }));
        if !a.led() {
            out.push(format!("{name}: no Commander and nobody to promote — no more rallying."));
        } else if a.commander().is_none() {
            out.push(format!("{name}: the Commander is dead — PROMOTE a Senior Officer or Engineer."));
        }
        if a.security() {
            out.push(format!("{name}: a Security Officer is in place (+1 against enemy spies)."));
        }
        if let Some(list) = s.intel.get(side) {
            for i in list {
                out.push(format!(
                    "{name} spies reported: {} of the {} was {} (Siege Turn {}).",
                    i.item,
                    side_name(other(side)),
                    i.value,
                    i.turn
                ));
            }
        }
    }
}

fn board(s: &State, viewer: &Viewer) -> TrackBoard {
    let mut tracks = Vec::new();
    for side in [BESIEGERS, GARRISON] {
        let a = s.army(side);
        let (value, note) = figure(s, viewer, side, "Resolve", a.resolve);
        // Fixed ends (the starting figure, a scenario fact): an end that
        // followed the figure would give it away.
        let max = s.data().start_resolve.get(side).copied().unwrap_or(0).max(10);
        tracks.push(Track { label: format!("Resolve ({})", side_name(side)), min: 0, max, value, note });
    }
    let (value, note) = figure(s, viewer, GARRISON, "Local Support", s.town.ls);
    tracks.push(Track { label: "Local Support".into(), min: -4, max: 6, value, note });
    let (value, note) = figure(s, viewer, GARRISON, "Food", s.town.food);
    tracks.push(Track { label: "Food (turns)".into(), min: 0, max: s.data().start_food.max(20), value, note });
    tracks.push(Track {
        label: "Fires".into(),
        min: 0,
        max: 15,
        value: Some(s.town.fires as i32),
        note: String::new(),
    });
    tracks.push(Track {
        label: "Digging Standard".into(),
        min: 1,
        max: 6,
        value: s.ds.map(i32::from),
        note: if s.ds == Some(6) { "Torrential Rain".into() } else { String::new() },
    });
    TrackBoard { title: format!("Siege status, Siege Turn {}", s.turn), tracks }
}

fn units(s: &State, viewer: &Viewer, side: &str) -> Table {
    let mine = knows_all(s, viewer, side);
    let mut header: Vec<String> =
        ["Unit", "Kind", "Hits", "Disease/desertion", "Status"].iter().map(|h| h.to_string()).collect();
    if mine {
        header.push("Where".into());
        header.push("Rally on".into());
    }
    let rows = s
        .army(side)
        .units
        .iter()
        .filter(|u| mine || u.kind.on_table())
        .map(|u| {
            let mut r = vec![
                u.name.clone(),
                u.kind.word().into(),
                u.hits.to_string(),
                u.lasting.to_string(),
                u.status().into(),
            ];
            if mine {
                r.push(format!("{:?}", u.place).to_lowercase());
                r.push(if u.eliminated || u.hits == 0 {
                    "-".into()
                } else {
                    format!("{}+", 6 - rally_bonus(s, side, u).len())
                });
            }
            r
        })
        .collect();
    Table { title: format!("{} units", side_name(side)), header, rows }
}

fn officers(s: &State, viewer: &Viewer, side: &str) -> Table {
    let mine = knows_all(s, viewer, side);
    let mut header = vec!["Name".to_string(), "Rank".into(), "State".into()];
    if mine {
        header.push("With units".into());
    }
    let rows = s
        .army(side)
        .officers
        .iter()
        // A Security Officer need have no figure on the table.
        .filter(|o| mine || o.rank != Rank::Security)
        .map(|o| {
            let mut r = vec![o.name.clone(), o.rank.title().into(), if o.alive { "alive" } else { "dead" }.into()];
            if mine {
                r.push(o.near.join(", "));
            }
            r
        })
        .collect();
    Table { title: format!("{} officers and named individuals", side_name(side)), header, rows }
}

fn spies(s: &State, side: &str) -> Table {
    let rows = s
        .army(side)
        .spies
        .iter()
        .map(|x| {
            vec![
                x.name.clone(),
                x.quality.map(|q| format!("{q} ({})", quality_word(q))).unwrap_or_else(|| "untried".into()),
                format!("{:?}", x.status).to_lowercase(),
            ]
        })
        .collect();
    Table {
        title: format!("{} spies (secret)", side_name(side)),
        header: vec!["Spy".into(), "Quality".into(), "State".into()],
        rows,
    }
}

pub fn prompt(s: &State, role: &str) -> Prompt {
    if role == GM {
        let text = match (s.phase, &s.card) {
            (Phase::Event, Some(c)) => {
                let note = s.data().events.get(card_class(c)).cloned().unwrap_or_default();
                format!(
                    "Event Card for {} turn (Siege Turn {}): {}. {note}\nEnter its effect on the ledger with the orders below (several lines if need be), or DONE if it has none. The Housekeeping then goes on: espionage, officers, rallying.",
                    possessive(&s.active),
                    s.turn,
                    card_name(c)
                )
            }
            _ => format!(
                "Report the table-top phases of Siege Turn {} ({} turn): hits on units, officers killed, breaches and other Resolve changes, powder spent, fires started, where units stand (for rallying), scenario conditions met; then DONE. Your reply ends the turn; {} Housekeeping comes next.",
                s.turn,
                possessive(&s.active),
                possessive(other(&s.active))
            ),
        };
        return Prompt { text, syntax: moderator_syntax() };
    }
    let a = s.army(role);
    let mut todo = Vec::new();
    if role == GARRISON {
        todo.push(format!(
            "(a) Food: {} turns in store, 1 is deducted this turn; a measure if you wish, applied to what is left (left: {}). Fires burning: {}{}.",
            s.town.food,
            measures_left(s).join(", "),
            s.town.fires,
            if s.town.fires > 0 { " — FIRE DUTY for sappers makes 4+ put one out" } else { "" }
        ));
    } else {
        todo.push("(a) Your Commander reviews the Digging Standard (rolled for you).".into());
    }
    let spies: Vec<String> = a
        .spies
        .iter()
        .filter(|x| x.status == SpyStatus::Active)
        .map(|x| format!("{} ({})", x.name, x.quality.map(quality_word).unwrap_or("untried")))
        .collect();
    todo.push(format!(
        "(b) Espionage: spies {} (at most 2; RECRUIT SPY costs 1 Resolve). Each may attempt one mission.",
        if spies.is_empty() { "none".into() } else { spies.join(", ") }
    ));
    todo.push(format!(
        "(c) Officers: say which units each is attached to or within 1 hex of (a Senior Officer or the Commander{} gives +1 when rallying); {}.",
        if role == GARRISON { ", or the Mayor while LS is not negative," } else { "" },
        if role == GARRISON {
            "none may go beyond the edge of the fortress (the Covered Way or an outwork)"
        } else {
            "none may go in advance of the heads of sap"
        }
    ));
    let hits = rallyable(s, role);
    todo.push(format!(
        "(d) Rallying, in order of priority (stops at the first unit that removes nothing): units with hits: {}.",
        if hits.is_empty() { "none".into() } else { hits.join(", ") }
    ));
    if a.commander().is_none() && a.led() {
        todo.push(format!(
            "Your Commander is dead: PROMOTE one of {} — nothing else may be done at Recruits.",
            super::orders::candidates(s, role).join(", ")
        ));
    }
    if role == GARRISON {
        let need = policing_required(s.town.ls);
        todo.push(format!(
            "Meet with citizens (MEET, or MEET MAYOR while LS is not negative). Insurrection Control: LS {} calls for {} half-battalion(s) of infantry{}.",
            s.town.ls,
            need,
            if need > 0 {
                " — POLICE them, or roll for each half short"
            } else {
                " — should LS fall to 0 or below during this phase (five fires, a food measure), the units you name in POLICE are used"
            }
        ));
    }
    Prompt {
        text: format!(
            "Siege Turn {}: {} Housekeeping. Send all your decisions in one reply (PASS if none):\n{}",
            s.turn,
            possessive(role),
            todo.join("\n")
        ),
        syntax: commander_syntax(s, role),
    }
}
