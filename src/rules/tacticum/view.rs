//! The board as every player sees it (the game hides nothing, brief 3.4),
//! the last move marked, and the prompt: the mover's formations and a few
//! legal moves written out, since by mail there is no board to look at.

use super::moves;
use super::orders::Shape;
use super::{army_title, Goal, Order, State, Who};
use crate::engine::view::{Board, Piece, SquareBoard, Table, View};
use crate::engine::{Prompt, Viewer};
use crate::rules::shared::squares::Sq;

/// Army colours for the SVG.
fn colour(army: &str) -> &'static str {
    match army {
        "black" | "legion" => "#222222",
        "white" | "raiders" => "#b8b8b8",
        "red" => "#b22222",
        _ => "#1f4e9c",
    }
}

pub fn view(s: &State, viewer: &Viewer) -> View {
    // X's set-up is sealed (S10-2): until every army stands, a consul
    // sees only its own side's armies, the public none.
    let shown_army = |a: usize| match (s.phase.as_str(), viewer) {
        ("setup", Viewer::Role(r)) => s.army_index(r).is_some_and(|m| s.friends(a, m)),
        ("setup", Viewer::Public) => false,
        _ => true,
    };
    let at = s.occupancy();
    let mut cells = Vec::new();
    let mut terrain = Vec::new();
    for row in 0..s.rows {
        for col in 0..s.columns {
            // Row 1 (Black's edge) is drawn at the bottom.
            let shown = s.rows - 1 - row;
            match at[s.index(Sq { col, row })] {
                Some(Who::Phantom(_)) => terrain.push((col, shown, '+')),
                Some(Who::Obstacle) if s.in_blocks(&s.terrain.water, Sq { col, row }) => {
                    terrain.push((col, shown, '~'))
                }
                None if s.in_blocks(&s.terrain.swamp, Sq { col, row }) => terrain.push((col, shown, '%')),
                Some(Who::Obstacle) => {
                    let rock = s.solo.as_ref().is_some_and(|x| x.rock.contains(&s.name(Sq { col, row })));
                    terrain.push((col, shown, if rock { '@' } else { '#' }))
                }
                Some(Who::Wall(_)) => {
                    let name = s.name(Sq { col, row });
                    let solo = s.solo.as_ref();
                    let kind = solo.and_then(|x| x.sections.get(&name)).map(String::as_str);
                    let gate = solo.is_some_and(|x| x.gates.contains(&name));
                    terrain.push((
                        col,
                        shown,
                        match kind {
                            Some("wood") => '=',
                            Some("tower") => 'T',
                            _ if gate => 'G',
                            _ => '#',
                        },
                    ))
                }
                None if s.in_fort(&s.name(Sq { col, row })) => terrain.push((col, shown, '=')),
                None if s.terrain.hilltops.contains(&s.name(Sq { col, row })) => terrain.push((col, shown, '^')),
                None if super::moves::on_hill(s, Sq { col, row }) => terrain.push((col, shown, ':')),
                Some(w) if w.is_unit() && !shown_army(w.army()) => {}
                Some(w) => {
                    let text = match w {
                        Who::Commander(_) => "C",
                        Who::Cavalry(..) => "H",
                        Who::Skirmisher(..) => "S",
                        Who::Grain(..) => "G",
                        Who::Eagle(_) => "E",
                        Who::Prisoner(_) => "P",
                        Who::Archer(..) => "A",
                        _ => "i",
                    };
                    cells.push((col, shown, Piece { side: s.armies[w.army()].name.clone(), text: text.into() }));
                }
                None => {}
            }
        }
    }
    let mut kinds = vec!["i Infantry"];
    if s.armies.iter().any(|a| !a.commander.is_empty() || s.example.iter().any(|e| !e.commander.is_empty())) {
        kinds.push("C Commander");
    }
    if s.armies.iter().any(|a| !a.prisoner.is_empty()) {
        kinds.push("P the Prisoner");
    }
    if s.armies.iter().any(|a| !a.archers.is_empty()) {
        kinds.push("A Archer (on a Tree)");
    }
    // In Solo I the Legion's one horseman is the Prefect (SO1-21).
    let prefect = |a: &super::Army| s.solo.as_ref().is_some_and(|x| x.fort.is_some() && x.legion == a.name);
    if s.armies.iter().any(|a| !a.cavalry.is_empty() && prefect(a)) {
        kinds.push("H the Prefect");
    }
    if s.armies.iter().any(|a| !a.cavalry.is_empty() && !prefect(a)) {
        kinds.push("H Cavalry");
    }
    if s.armies.iter().any(|a| !a.grain.is_empty()) {
        kinds.push("G Grain");
    }
    if s.armies.iter().any(|a| !a.skirmishers.is_empty()) {
        kinds.push("S Skirmisher");
    }
    if s.armies.iter().any(|a| !a.eagle.is_empty()) {
        kinds.push("E Eagle");
    }
    let mut legend = vec![kinds.join(", ")];
    // The picture's key names each glyph it draws as a colour; its notes
    // keep what is not about letters.
    let mut key: Vec<(char, String)> = Vec::new();
    let mut keyed = |g: char, name: &str| match key.iter_mut().find(|k| k.0 == g) {
        Some(k) => k.1.push_str(&format!(" or {name}")),
        None => key.push((g, name.to_string())),
    };
    let mut notes = vec![kinds.join(", ")];
    if !s.terrain.fort.is_empty() {
        let walls: Vec<String> = s.terrain.walls.iter().map(|w| w.replace('|', "-")).collect();
        legend.push(format!("=== the Fort {}, walls {} (elsewhere a gate)", s.terrain.fort.join(" "), walls.join(" ")));
        keyed('=', "the Fort");
        notes.push(format!("the Fort {}, walls {} (elsewhere a gate)", s.terrain.fort.join(" "), walls.join(" ")));
    }
    if !s.terrain.obstacles.is_empty() {
        let trees = if s.solo.is_some() { "Trees" } else { "trees, and squares off the map" };
        legend.push(format!("### {trees}"));
        keyed('#', trees);
    }
    if !s.terrain.water.is_empty() || !s.terrain.swamp.is_empty() {
        legend.push("~~~ water (nothing enters), %%% swamp (only Infantry crosses)".into());
        keyed('~', "water (nothing enters)");
        keyed('%', "swamp (only Infantry crosses)");
    }
    if !s.terrain.hill.is_empty() {
        legend.push(format!(
            "::: the hill {}; ^^^ hilltops {} (only a Commander stops there)",
            s.terrain.hill.join(" "),
            s.terrain.hilltops.join(" ")
        ));
        keyed(':', "the hill");
        keyed('^', "a hilltop (only a Commander stops there)");
    }
    let mut annex = None;
    if let Some(solo) = &s.solo {
        if solo.fort.is_some() {
            let towers = solo.sections.values().filter(|k| *k == "tower").count();
            legend.push(format!("the wall, row {}: === Wood, ### Stone, GGG a stone gate, TTT a Tower", solo.wall_row));
            let built = format!("({towers} of {} Towers built); the Raiders' home row is row {}", solo.towers, s.rows);
            legend.push(built.clone());
            legend.extend(super::solo::fort_lines(s));
            keyed('=', "Wood wall");
            keyed('#', "Stone wall");
            keyed('G', "stone gate");
            keyed('T', "Tower");
            notes.push(format!("the wall, row {} {built}", solo.wall_row));
            annex = super::solo::fort_board(s, colour(&solo.legion)).map(Box::new);
            if annex.is_none() {
                notes.extend(super::solo::fort_lines(s));
            }
        }
        if !solo.valley.is_empty() {
            let valley = format!(
                "the valley: columns {}-{} (2 spaces a move), the slopes (1)",
                solo.valley.first().cloned().unwrap_or_default(),
                solo.valley.last().cloned().unwrap_or_default()
            );
            legend.push(format!("{valley}; @@@ the Rock"));
            notes.push(valley);
            keyed('@', "the Rock");
        }
        if !solo.report.is_empty() {
            legend.push("The Raiders' last action:".into());
            legend.extend(solo.report.iter().map(|l| format!("  {l}")));
            notes.push("The Raiders' last action:".into());
            notes.extend(solo.report.iter().map(|l| format!("  {l}")));
        }
    }
    if let Some(p) = s.phantoms.first() {
        legend.push(format!(
            "+++ {} (count as {} units; only its Commander enters)",
            p.cells.join(" "),
            army_title(&p.army)
        ));
        keyed('+', &format!("counts as {} units; only its Commander enters", army_title(&p.army)));
    }
    let mut lines = vec![format!("{}, move {}.", s.title, s.turn + 1)];
    if let Some(l) = &s.last {
        let mut t = format!("Last move: {} {}", army_title(&l.army), l.order);
        if !l.captured.is_empty() {
            t.push_str(&format!(" (captured on {})", l.captured.join(", ")));
        }
        lines.push(t);
        if !l.moved.is_empty() {
            legend.push(format!("last move to {}", l.moved.join(" ")));
            notes.push(format!("last move to {}", l.moved.join(" ")));
        }
    }
    match &s.outcome {
        Some(o) => lines.push(match &o.winner {
            Some(w) if o.also.is_empty() => format!("{} has won: {}.", army_title(w), o.reason),
            Some(w) => {
                let all: Vec<String> = std::iter::once(w).chain(&o.also).map(|x| army_title(x)).collect();
                format!("{} have won together: {}.", all.join(" and "), o.reason)
            }
            // A solo game is drawn only at the step limit, which the engine
            // says, not the state: no winner here is the Legion's failure.
            None if s.solo.is_some() => format!("The Legion has failed: {}.", o.reason),
            None => format!("The game is drawn: {}.", o.reason),
        }),
        None => lines.push(match (s.phase.as_str(), &s.pending) {
            ("toss", _) => "The first player is being drawn.".to_string(),
            ("arrange", _) => "The Legion stocks the Fort.".to_string(),
            ("scout", _) => "The Legion places its Scout.".to_string(),
            ("setup", _) => format!(
                "Set-up, sealed until every army stands; waiting for {}.",
                s.unplaced.iter().map(|r| army_title(r)).collect::<Vec<_>>().join(", ")
            ),
            ("place", _) => format!("{} places two units on the hill.", army_title(&s.active)),
            ("respond", Some(p)) => {
                format!(
                    "{} chooses for {}.",
                    army_title(&p.asked),
                    p.questions.iter().map(|q| q.about.clone()).collect::<Vec<_>>().join(" and ")
                )
            }
            _ => format!("{} to move.", army_title(&s.active)),
        }),
    }
    let rows = s
        .armies
        .iter()
        .enumerate()
        .filter(|(i, _)| shown_army(*i))
        .map(|(i, a)| {
            // A side's objectives are every army's of it (X's partners).
            let mut goals: Vec<String> = s
                .objectives
                .iter()
                .filter(|o| s.army_index(&o.army).is_some_and(|x| s.friends(x, i)))
                .map(goal)
                .collect();
            if s.solo.as_ref().is_some_and(|x| x.kind == "escort" && x.raiders == a.name) {
                goals.push("free, silence or shoot the Prisoner".into());
            }
            vec![
                army_title(&a.name),
                s.on_board(i).to_string(),
                s.lost.get(&a.name).copied().unwrap_or(0).to_string(),
                goals.join("; "),
            ]
        })
        .collect();
    let mut marks = Vec::new();
    if let Some(l) = &s.last {
        for (list, glyph) in [(&l.moved, '>'), (&l.captured, 'x')] {
            for q in list.iter().filter_map(|c| s.sq(c)) {
                marks.push((q.col, s.rows - 1 - q.row, glyph));
            }
        }
    }
    let board = SquareBoard {
        marks,
        title: format!("The board (row 1 is {}'s edge, a its left)", army_title(&s.armies[0].name)),
        columns: s.columns,
        rows: s.rows,
        col_labels: (0..s.columns).map(|c| ((b'a' + c) as char).to_string()).collect(),
        row_labels: (0..s.rows).rev().map(|r| (r + 1).to_string()).collect(),
        cells,
        terrain,
        sides: s.armies.iter().map(|a| (a.name.clone(), colour(&a.name).to_string())).collect(),
        legend,
        key,
        notes,
        annex,
    };
    View {
        title: format!("Tacticum Invictus — {}", s.title),
        lines,
        tables: vec![Table {
            title: "Armies".into(),
            header: vec!["Army".into(), "Units".into(), "Lost".into(), "Wins by".into()],
            rows,
        }],
        boards: vec![Board::Squares(board)],
    }
}

/// An objective in words.
fn goal(o: &super::Objective) -> String {
    match o.kind {
        Goal::Trap => "trap Commander".into(),
        Goal::Reduce => format!("enemy at most {}", o.at_most),
        Goal::Reach => format!("Commander to {}", o.cells.join(" or ")),
        Goal::Capture => format!("capture {}", o.count),
        Goal::Eagle => "Cavalry by Eagle".into(),
        Goal::EliminateCavalry => "no enemy Cavalry".into(),
        Goal::CommandSquareRow => "Command Square on back row".into(),
        Goal::CaptureInfantry => format!("capture {} Infantry", o.count),
        Goal::Deliver => format!("{} Grain into the Fort", o.count),
        Goal::EnterFort => format!("{} units into the Fort", o.count),
        Goal::CaptureGrain => format!("capture {} Grain", o.count),
        Goal::SideLost => format!("enemy side loses {}", o.count),
        Goal::Wall => "the wall and its Towers".into(),
        Goal::Hilltop => "Commander on a hilltop".into(),
        Goal::RaiderRow => format!("a Raider on row {}", o.count),
        Goal::TooFew => format!("under {} Legion units", o.count),
        Goal::PrisonerRow => format!("the Prisoner to row {}", o.count),
    }
}

pub fn prompt(s: &State, role: &str) -> Prompt {
    match (s.phase.as_str(), &s.pending) {
        ("toss", _) => {
            return Prompt {
                text: "Who moves first is drawn by a die both players' SALTs seed (A-15): answer READY, with a SALT of your own if you like.".into(),
                syntax: vec!["READY".into()],
            }
        }
        ("arrange", _) => {
            return Prompt {
                text: "Arrange the Fort's supplies (SO1-9): name the six Fort cells that hold Wood; Stone fills the other six. The Prefect takes the first cube on a straight line each time a Build Formation is made, so plan the order you will need them in. With none by the deadline, Wood goes left and Stone right.".into(),
                syntax: super::solo::wood_default(s).iter().map(|o| o.to_string()).collect(),
            }
        }
        ("scout", _) => {
            let cells = s.solo.as_ref().map(|x| x.scout_cells.join(" or ")).unwrap_or_default();
            return Prompt {
                text: format!("Place your Scout, one more Infantry unit, anywhere on your left or right flank ({cells}), SO2-32. With none by the deadline it takes the first free flank square."),
                syntax: vec!["PLACE SCOUT b2".into()],
            };
        }
        ("setup", _) => {
            let Some(a) = s.army_index(role) else { return Prompt::default() };
            let partners: Vec<String> =
                s.side_armies(a).iter().skip(1).map(|&b| army_title(&s.armies[b].name)).collect();
            let army = &s.armies[a];
            return Prompt {
                text: format!(
                    "Set up your army ({}: a Commander, {} Cavalry and {} Infantry) in your side's first {} rows, one PLACE line a kind. {} sets up in the same rows: agree with them by PRESS now, since once play begins the two consuls of a side do not talk (S10-5). If you both name one square, neither army is placed and you are both asked again. The enemy's set-up stays sealed until every army stands. With no set-up by the deadline, the example below is used.",
                    army_title(role),
                    army.cavalry.len(),
                    army.infantry.len(),
                    s.setup_rows,
                    partners.join(" and ")
                ),
                syntax: super::deploy::example(s, a).iter().map(|o| o.to_string()).collect(),
            };
        }
        ("place", _) => {
            let a = s.army_index(role).map(|a| s.armies[a].reserve).unwrap_or(0);
            let example = super::moves::default_place(s, role).map(|v| Order::Place(v).to_string());
            return Prompt {
                text: format!(
                    "Place two of your units ({a} left) on open squares of the hill ({}), never on a hilltop ({}), and never so that they form a Square or Column with your units (S4-4, S4-5).",
                    s.terrain.hill.join(" "),
                    s.terrain.hilltops.join(" ")
                ),
                syntax: example.into_iter().collect(),
            };
        }
        ("respond", Some(p)) => {
            let asks: Vec<String> = p
                .questions
                .iter()
                .map(|q| {
                    let o: Vec<String> = q.options.iter().map(|o| o.to_string()).collect();
                    format!("{}: {}", q.about, o.join(" or "))
                })
                .collect();
            let why = match &p.charge {
                Some(c) => format!("{}'s {c} charges {}, which dodges to one side of the charge (S6-15)", army_title(&p.mover), p.questions.first().map(|q| q.about.clone()).unwrap_or_default()),
                None => format!("{}'s move forces some of your units to move (Disrupt S8-6, Disperse S8-9)", army_title(&p.mover)),
            };
            return Prompt {
                text: format!("{why}. Choose, one line each: {}.", asks.join("; ")),
                syntax: p.questions.iter().filter_map(|q| q.options.first().map(|o| o.to_string())).collect(),
            };
        }
        _ => {}
    }
    let legal = moves::legal(s, role);
    let blocks = |shape: Shape| -> Vec<String> {
        let mut v: Vec<String> = legal
            .iter()
            .filter_map(|o| match o {
                Order::Move { from, .. } | Order::Charge { column: from, .. } if from.shape() == shape => {
                    Some(from.name(s))
                }
                _ => None,
            })
            .collect();
        v.dedup();
        v.sort();
        v.dedup();
        v
    };
    let squares = blocks(Shape::Square);
    let columns = blocks(Shape::Column);
    let mut text = format!(
        "Your move ({}): one unit, one Square, one Column{}.",
        army_title(role),
        if s.lines { " or one Line" } else { "" }
    );
    if let Some(a) = s.army_index(role).filter(|&a| s.side_armies(a).len() > 1) {
        let names: Vec<String> = s.side_armies(a).iter().map(|&b| army_title(&s.armies[b].name)).collect();
        text.push_str(&format!(" You command the combined army, {} (S10-7).", names.join(" and ")));
    }
    if s.infantry_limit > 0 {
        text.push_str(&format!(" Infantry moves at most {} spaces.", s.infantry_limit));
    }
    if s.armies.iter().any(|a| a.name == role && a.formations) {
        text.push_str(&format!(
            " Your Squares that can move: {}. Your Columns that can move or charge: {}.",
            if squares.is_empty() { "none".into() } else { squares.join(", ") },
            if columns.is_empty() { "none".into() } else { columns.join(", ") }
        ));
    }
    let charges: Vec<String> =
        legal.iter().filter(|o| matches!(o, Order::Charge { .. })).map(|o| o.to_string()).collect();
    if !charges.is_empty() {
        text.push_str(&format!(" Charges open to you: {}.", charges.join(", ")));
    }
    let example = |shape: Shape| legal.iter().find(|o| matches!(o, Order::Move { from, .. } if from.shape() == shape));
    let mut syntax: Vec<String> = [Shape::Unit, Shape::Square, Shape::Column, Shape::Line]
        .iter()
        .filter_map(|&sh| example(sh).map(|o| o.to_string()))
        .collect();
    if let Some(c) = charges.first() {
        syntax.push(c.clone());
    }
    // One of each manoeuvre open now (Facing, Extend the Line, Rally on Me).
    for kind in ["TURN", "EXTEND", "RALLY"] {
        if let Some(o) = legal.iter().map(|o| o.to_string()).find(|o| o.starts_with(kind)) {
            syntax.push(o);
        }
    }
    if syntax.is_empty() {
        syntax.push("PASS (you have no legal move)".into());
    }
    if let Some(solo) = s.solo.as_ref().filter(|x| x.kind == "escort") {
        text = format!(
            "Your move (the Legion): one unit, the Prisoner or one Square (the only formation). Infantry moves 2 spaces within the valley (columns {}-{}), else 1; the Prisoner moves 1, and a Square holding it 1, without a Square's defence. While the Prisoner has an Infantry unit beside it, keep one there. Capture a Raider or an Archer by standing on two of its sides. Bring the Prisoner to row {}. The Raiders act after you.",
            solo.valley.first().cloned().unwrap_or_default(),
            solo.valley.last().cloned().unwrap_or_default(),
            s.rows
        );
        if solo.enter_due {
            text.push_str(" A 6 was rolled: one Infantry unit may come back on an empty square of row 1 this turn, before your action (ENTER c1).");
            syntax.insert(0, "ENTER c1".into());
        }
    }
    if let Some(solo) = s.solo.as_ref().filter(|x| x.fort.is_some()) {
        let cubes = super::solo::first_cubes(s);
        text.push_str(&format!(
            " The Raiders act after you. A move that makes a Build Formation (two of your units touching an open wall square, one of them just moved there) lets the Prefect fetch the first cube on a straight line and build it there: add SUPPLY <cube> TO <square>; in reach now: {}. Legion units never stand on row {}; a single unit passes a gate north or south.",
            if cubes.is_empty() { "none".to_string() } else { cubes.join(", ") },
            s.rows
        ));
        syntax.push(format!("SUPPLY {} TO c4", cubes.first().map(String::as_str).unwrap_or("Fb1")));
        if solo.restock > 0 {
            text.push_str(&format!(
                " {} destroyed Wood goes back into the Fort: RESTOCK <empty Fort cell> for each (else the first empty cells).",
                solo.restock
            ));
            syntax.push("RESTOCK Fa1".into());
        }
    }
    Prompt { text, syntax }
}
