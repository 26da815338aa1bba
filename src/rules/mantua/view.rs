//! What each side may see of Siege of Mantua: its own blocks' identities and
//! strengths; of the enemy, only where upright blocks stand and how many.

use super::{side_name, State, BESIEGED, FRANCE, MANTOVA, MAP};
use crate::engine::view::{BoardSpace, Stub};
use crate::engine::{Board, GraphBoard, Piece, Table, View, Viewer};

fn sees_identity(s: &State, viewer: &Viewer, side: &str) -> bool {
    match viewer {
        Viewer::Moderator => true,
        Viewer::Role(r) => r == side || s.outcome.is_some(),
        Viewer::Public => s.outcome.is_some(),
    }
}

pub fn view(s: &State, viewer: &Viewer) -> View {
    let mut v = View { title: format!("Siege of Mantua — game turn {}", s.turn), ..View::default() };
    v.lines.push(match s.phase {
        super::Phase::Setup => "Set-up: both sides place their blocks.".to_string(),
        super::Phase::Turn => format!("{} to move.", side_name(&s.active)),
        super::Phase::Escape => format!("{} must decide whether to Escape.", side_name(super::other(&s.active))),
        super::Phase::LiftSiege => "The siege has been lifted; Austria strengthens up to two blocks.".into(),
        super::Phase::Battle => {
            let b = s.battle.as_ref().expect("battle");
            format!("Battle of {}: awaiting {}.", b.target, side_name(&b.side))
        }
        super::Phase::Over => "The game is over.".into(),
    });
    v.lines.push(if s.siege { "Mantova is besieged.".into() } else { "The siege of Mantova has been lifted.".into() });
    if let Some(a) = &s.attack {
        let groups: Vec<String> = a.groups.iter().map(|g| format!("{} from {}", g.blocks.len(), g.entry)).collect();
        v.lines.push(format!("{} attacks {} ({}).", side_name(&a.attacker), a.target, groups.join("; ")));
    }
    for side in [super::AUSTRIA, FRANCE] {
        let lost = s.blocks.iter().filter(|b| b.side == side && b.eliminated).count();
        let left = s.alive(side).count();
        v.lines.push(format!("{}: {left} blocks on the map, {lost} eliminated.", side_name(side)));
    }
    if let Some(o) = &s.outcome {
        v.lines.push(format!("Result: {} ({}).", o.winner.as_deref().map(side_name).unwrap_or("no winner"), o.reason));
    }

    // Tables: a side's own blocks in full; the enemy's as counts per place.
    for side in [super::AUSTRIA, FRANCE] {
        if sees_identity(s, viewer, side) {
            let mut t = Table {
                title: format!("{} blocks", side_name(side)),
                header: vec!["block".into(), "strength".into(), "where".into(), "notes".into()],
                rows: vec![],
            };
            for b in s.blocks.iter().filter(|b| b.side == side) {
                let mut notes = Vec::new();
                if b.leader {
                    notes.push("leader");
                }
                if b.dummy {
                    notes.push("dummy");
                }
                if b.tyrolean {
                    notes.push("Tyrolean");
                }
                if b.eliminated {
                    notes.push("eliminated");
                }
                let at = if b.at == BESIEGED { "Mantova (besieged)".to_string() } else { b.at.clone() };
                t.rows.push(vec![
                    b.name.clone(),
                    if b.dummy { "-".into() } else { b.strength.to_string() },
                    at,
                    notes.join(", "),
                ]);
            }
            v.tables.push(t);
        } else {
            let mut t = Table {
                title: format!("{} blocks seen", side_name(side)),
                header: vec!["where".into(), "upright blocks".into()],
                rows: vec![],
            };
            let mut places: Vec<String> = s.alive(side).map(|b| b.at.clone()).collect();
            places.sort();
            places.dedup();
            for p in places {
                let n = s.alive(side).filter(|b| b.at == p).count();
                let at = if p == BESIEGED { "Mantova (besieged)".to_string() } else { p };
                t.rows.push(vec![at, n.to_string()]);
            }
            v.tables.push(t);
        }
    }

    let map = &*MAP;
    let legend = |viewer: &Viewer| match viewer {
        Viewer::Role(_) => vec![
            "Name n: your block and its strength".to_string(),
            "■: an enemy block, face down".into(),
            "[besieged]: shut in Mantova".into(),
        ],
        _ if s.outcome.is_none() && *viewer == Viewer::Public => {
            vec!["■: a block, face down".to_string(), "[besieged]: shut in Mantova".into()]
        }
        _ => vec!["Name n: a block and its strength".to_string(), "[besieged]: shut in Mantova".into()],
    };
    let mut board = GraphBoard {
        width: map.data.width,
        height: map.data.height,
        sides: vec![("austria".into(), "#c0392b".into()), ("france".into(), "#2c5aa0".into())],
        legend: legend(viewer),
        ..GraphBoard::default()
    };
    for sp in &map.data.spaces {
        let mut pieces = Vec::new();
        for b in
            s.blocks.iter().filter(|b| !b.eliminated && (b.at == sp.name || (sp.name == MANTOVA && b.at == BESIEGED)))
        {
            let text = if sees_identity(s, viewer, &b.side) {
                let mut t = if b.dummy { format!("{} (dummy)", b.name) } else { format!("{} {}", b.name, b.strength) };
                if b.at == BESIEGED {
                    t.push_str(" [besieged]");
                }
                t
            } else if b.at == BESIEGED {
                "■ [besieged]".into()
            } else {
                "■".into()
            };
            pieces.push(Piece { side: b.side.clone(), text });
        }
        board.spaces.push(BoardSpace { name: sp.name.clone(), kind: sp.kind.clone(), x: sp.x, y: sp.y, pieces });
    }
    for (a, adj) in map.adj.iter().enumerate() {
        for &b in adj {
            if a < b {
                board.links.push((a, b));
            }
        }
    }
    for e in &map.data.edges {
        let from = map.index(&e.from).expect("validated map");
        board.stubs.push(Stub { from, x: e.x, y: e.y, label: e.label.clone() });
    }
    v.boards.push(Board::Graph(board));
    // The battle being fought: its display and its facts, redacted; and a
    // side's own counters (never the enemy's).
    let (side, all) = match viewer {
        Viewer::Role(r) => (Some(r.as_str()), s.outcome.is_some()),
        Viewer::Moderator => (None, true),
        Viewer::Public => (None, s.outcome.is_some()),
    };
    if let Some(b) = &s.battle {
        v.tables.push(super::battle::table(s, b, side, all));
        v.boards.push(Board::Grid(super::battle::board(b, side, all)));
    }
    for x in [super::AUSTRIA, FRANCE] {
        if all || side == Some(x) {
            v.tables.push(super::battle::pools_table(s, x));
        }
    }
    v
}
