//! What a viewer sees of a battle: the Battle Display as a grid (a
//! block's strength only to its owner, or to all once revealed), the
//! battle's table and a side's pools.

use super::*;

/// The Battle Display as `viewer_side` may see it (None: the moderator).
pub fn board(b: &Battle, viewer_side: Option<&str>, sees_all: bool) -> GridBoard {
    let d = &*DISPLAY;
    let mut g = GridBoard {
        title: format!("Battle of {}", b.target),
        columns: d.columns as u32,
        rows: d.rows as u32,
        row_labels: (0..d.rows).map(|r| format!("{}", (b'A' + r) as char)).collect(),
        col_labels: (1..=d.columns).map(|c| c.to_string()).collect(),
        cells: Vec::new(),
        sides: vec![(AUSTRIA.into(), "#c0392b".into()), (FRANCE.into(), "#2c5aa0".into())],
        legend: vec![
            "a space: its side and facing, then its units front first".into(),
            "id:level/MV (* face down): your unit; Llevel/MV: an enemy unit face up".into(),
            "?: an enemy unit face down".into(),
        ],
    };
    for w in &b.wings {
        let own = sees_all || viewer_side == Some(w.side.as_str());
        let units: Vec<String> = w
            .units
            .iter()
            .map(|u| match (own, u.up, counter(&u.id)) {
                (true, _, Some(c)) => format!("{}:{}/{}{}", u.id, c.level, c.mv, if u.up { "" } else { "*" }),
                (false, true, Some(c)) => format!("L{}/{}", c.level, c.mv),
                _ => "?".to_string(),
            })
            .collect();
        g.cells.push(GridCell {
            col: w.col as u32,
            row: w.row as u32,
            side: w.side.clone(),
            facing: w.facing.arrow(),
            lines: units,
        });
    }
    g
}

pub fn table(s: &State, b: &Battle, viewer_side: Option<&str>, sees_all: bool) -> Table {
    let mut t = Table { title: format!("Battle of {}", b.target), header: vec!["".into(), "".into()], rows: vec![] };
    t.rows.push(vec!["attacker".into(), side_name(&b.attacker).into()]);
    t.rows.push(vec!["stage".into(), format!("{:?} — awaiting {}", b.stage, side_name(&b.side))]);
    t.rows.push(vec!["stakes".into(), b.stakes.to_string()]);
    t.rows.push(vec![
        "doubling cube".into(),
        b.cube
            .as_deref()
            .map(|c| format!("held by {}", side_name(c)))
            .unwrap_or_else(|| "in the middle (both eligible once time is out)".into()),
    ]);
    t.rows.push(vec![
        "time".into(),
        match (b.time_set, b.time) {
            (false, _) => "not yet placed".into(),
            (true, Some(i)) => format!("space {}", DISPLAY.time_track[i]),
            (true, None) => "out: Retreat and Doubling open".into(),
        },
    ]);
    for side in [AUSTRIA, FRANCE] {
        let rev: Vec<String> = b
            .revealed
            .get(side)
            .into_iter()
            .flatten()
            .filter_map(|n| s.block(n))
            .map(|x| format!("{} {}", x.name, x.strength))
            .collect();
        let hidden = b.unrevealed.get(side).map(Vec::len).unwrap_or(0);
        t.rows.push(vec![
            format!("{} blocks", side_name(side)),
            format!("revealed: {}; unrevealed: {hidden}", if rev.is_empty() { "none".into() } else { rev.join(", ") }),
        ]);
        t.rows.push(vec![
            format!("{} commands", side_name(side)),
            b.commands.get(side).copied().unwrap_or(3).to_string(),
        ]);
        let broken = b.broken.get(side).map(Vec::len).unwrap_or(0);
        t.rows.push(vec![
            format!("{} units", side_name(side)),
            format!("{} on the display, {broken} broken", b.units_of(side)),
        ]);
    }
    if let Some(v) = viewer_side {
        if b.side == v && !b.hand.is_empty() {
            t.rows.push(vec!["your hand".into(), b.hand.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")]);
        }
    }
    if sees_all && !b.hand.is_empty() {
        t.rows.push(vec!["hand".into(), b.hand.iter().map(|u| describe(u)).collect::<Vec<_>>().join(", ")]);
    }
    t
}

/// A side's own Pool and Supply, by level (its owner and the moderator only).
pub fn pools_table(s: &State, side: &str) -> Table {
    let p = s.pools.get(side).cloned().unwrap_or_default();
    let count = |v: &Vec<String>, l: u8| {
        v.iter().filter(|u| counter(u).map(|c| c.level == l).unwrap_or(false)).count().to_string()
    };
    Table {
        title: format!("{} counters", side_name(side)),
        header: vec!["".into(), "Level 1".into(), "Level 2".into(), "Level 3".into(), "Level 4".into()],
        rows: vec![
            std::iter::once("Pool".to_string()).chain((1..=4).map(|l| count(&p.pool, l))).collect(),
            std::iter::once("Supply".to_string()).chain((1..=4).map(|l| count(&p.supply, l))).collect(),
        ],
    }
}
