//! What each side sees of Braccio da Montone: the whole table (every
//! counter, CC, OP, VP, VL and the Heat are open, brief 3.8), but a
//! role's standing policies and pending plans only by that role and the
//! moderator; and what each step asks.

use super::flow::{can_activate, can_continuum, can_interrupt, eligible};
use super::orders::vertex_word;
use super::*;
use crate::engine::view::{HexBoard, HexCell};
use crate::engine::{Board, Piece, Table};

const COLOURS: [(&str, &str); 3] = [(BRACCIO, "#2b5fa8"), (MALATESTA, "#b0302a"), (LEAGUE, "#b0302a")];
/// The flat levels as the map shows them (8.2.5).
const LEVELS: [(char, &str, &str); 4] = [
    ('1', "flat level 1", "#f3eedc"),
    ('2', "flat level 2", "#e7dcb9"),
    ('3', "flat level 3", "#d8c795"),
    ('4', "flat level 4", "#c8b27a"),
];

/// Columns of the text map: 24 make 77 characters.
const WINDOW: i32 = 24;

fn hour(v: Vertex) -> u8 {
    match v {
        Vertex::NE => 1,
        Vertex::E => 3,
        Vertex::SE => 5,
        Vertex::SW => 7,
        Vertex::W => 9,
        Vertex::NW => 11,
    }
}

fn sees(viewer: &Viewer, role: &str) -> bool {
    match viewer {
        Viewer::Moderator => true,
        Viewer::Role(r) => r == role,
        Viewer::Public => false,
    }
}

/// Chances of 2d6 at or under `n`, never a 12 (4.1, 4.2), in 36ths.
pub fn chance(n: i32) -> i32 {
    super::throws_at_most(n.min(11))
}

fn step_line(s: &State) -> String {
    match &s.pending {
        Pending::Rows { roles } => format!(
            "Set-up: {} place{} units within their set-up rows (S1.1).",
            roles.iter().map(|r| side_name(r)).collect::<Vec<_>>().join(" and "),
            if roles.len() > 1 { " their" } else { "s its" }
        ),
        Pending::Setup { role, what } if what == "captain" => {
            format!("Free set-up: {} places a Captain ({}).", side_name(role), super::free::sec(s, "1"))
        }
        Pending::Setup { role, .. } => {
            format!("Free set-up: {} places its units ({}).", side_name(role), super::free::sec(s, "1.1"))
        }
        Pending::Activation { role } => format!("{} makes a Basic Activation.", side_name(role)),
        Pending::Continuum { role } => format!("{} may attempt a Continuum or pass.", side_name(role)),
        Pending::Interruptio { role, against } => {
            format!("{} may attempt an Interruptio against {against}'s successful Continuum.", side_name(role))
        }
        Pending::Confusion { role } => {
            format!("{} picks the enemy Battle its Confusion activates (16.1).", side_name(role))
        }
        Pending::Orders { role, captain, .. } => format!("{} gives {captain}'s orders.", side_name(role)),
        Pending::Over => "The battle is over.".into(),
    }
}

pub fn board(s: &State, title: String) -> HexBoard {
    let g = s.grid();
    let mut hexes = Vec::new();
    let place_of =
        |h: &str| s.map.place.iter().find(|p| p.hexes.first().map(|x| x == h).unwrap_or(false)).map(|p| p.name.clone());
    for h in g.hexes() {
        let id = h.to_string();
        // Flat hexes show their level (8.2.5): 1 to 4, shaded darker as
        // they rise.
        let glyph = match s.map.glyph(h) {
            '.' => char::from_digit((s.map.height(h) / 2).clamp(1, 4) as u32, 10).unwrap_or('.'),
            g => g,
        };
        let unit = s.unit_at(h);
        let leaders = super::effects::captains_in(s, h);
        // A rally standard (S2.5), or an army's standard with its carrier
        // (16.2).
        let standard = s
            .battles
            .iter()
            .find(|b| s.rally_standards && b.rally == id)
            .map(|b| format!("{} standard", b.name))
            .or_else(|| {
                s.standards
                    .iter()
                    .find(|x| !x.captured && s.unit(&x.carrier).map(|u| u.hex == id).unwrap_or(false))
                    .map(|x| format!("{}'s standard", x.battle))
            });
        let place = place_of(&id).or(standard).unwrap_or_default();
        let (piece, symbol, values, facing) = match unit {
            Some(u) => (
                Some(Piece { side: u.side.clone(), text: u.code.clone() }),
                if u.cavalry() { "cavalry" } else { "infantry" }.to_string(),
                format!("{}{}{}", u.q(), u.armour, if u.disorganized { "d" } else { "" }),
                hour(u.facing),
            ),
            None => match leaders.first().and_then(|n| leader_code(s, n)) {
                Some((side, code)) => {
                    (Some(Piece { side, text: format!("*{code}") }), "leader".into(), String::new(), 0)
                }
                None => (None, String::new(), String::new(), 0),
            },
        };
        hexes.push(HexCell {
            col: h.col,
            row: h.row,
            terrain: glyph,
            place,
            piece,
            symbol,
            values,
            crown: unit.is_some() && !leaders.is_empty(),
            facing,
        });
    }
    // The text map's window: around the units, or the last activation.
    let alive: Vec<Hex> = s.units.iter().filter_map(|u| u.at()).collect();
    let marks: Vec<Hex> = s.marks.iter().filter_map(|m| Hex::parse(m)).collect();
    let focus = if marks.is_empty() { &alive } else { &marks };
    let cols = |v: &[Hex]| (v.iter().map(|h| h.col).min().unwrap_or(1), v.iter().map(|h| h.col).max().unwrap_or(1));
    let (lo, hi) = cols(&alive);
    let (flo, fhi) = cols(focus);
    let (mut c0, mut c1) = ((lo - 2).max(1), (hi + 2).min(s.map.columns));
    if c1 - c0 + 1 > WINDOW {
        let mid = (flo + fhi) / 2;
        c0 = (mid - WINDOW / 2).clamp(1, (s.map.columns - WINDOW + 1).max(1));
        c1 = (c0 + WINDOW - 1).min(s.map.columns);
    }
    let rows: Vec<i32> = alive.iter().map(|h| h.row).collect();
    let r0 = (rows.iter().min().copied().unwrap_or(1) - 2).max(1);
    let r1 = (rows.iter().max().copied().unwrap_or(s.map.rows) + 2).min(s.map.rows);
    HexBoard {
        title,
        columns: s.map.columns,
        rows: s.map.rows,
        even_low: s.map.offset == Offset::EvenQ,
        hexes,
        hexsides: s.map.hexside.iter().map(|x| (x.a.clone(), x.b.clone(), x.kind.clone())).collect(),
        terrain: LEVELS
            .iter()
            .map(|(g, n, c)| (*g, n.to_string(), c.to_string()))
            .chain(
                s.terrain
                    .iter()
                    .filter(|t| t.glyph != "." && s.map.terrain.iter().any(|r| r.contains(t.glyph.as_str())))
                    .map(|t| (t.glyph.chars().next().unwrap_or('?'), t.name.clone(), t.colour.clone())),
            )
            .collect(),
        roads: Vec::new(),
        areas: Vec::new(),
        sides: COLOURS
            .iter()
            .filter(|(a, _)| s.roles().contains(a))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        legend: vec![
            // The key names a unit of the scenario's first squad.
            match s.units.iter().find(|u| !u.squad.is_empty()) {
                Some(u) => format!(
                    "b{}> = Braccesca, {}'s squad {} unit {}, facing E; *{} = a Captain alone",
                    u.code,
                    u.battle,
                    u.squad,
                    u.code.trim_start_matches(|c: char| !c.is_ascii_digit()),
                    &u.code[..1]
                ),
                None => "b code> = a Braccesca unit facing E; *code = a Captain alone".into(),
            },
            "Facing: / NE, > E, \\ SE, , SW, < W, ` NW; 1-4: flat levels, / between two".into(),
        ],
        window: Some([c0, c1, r0, r1]),
    }
}

fn leader_code(s: &State, name: &str) -> Option<(String, String)> {
    for b in &s.battles {
        if b.captain.name == name {
            return Some((b.side.clone(), b.code.clone()));
        }
        if let Some(q) = b.squads.iter().find(|q| q.leader.name == name) {
            return Some((b.side.clone(), format!("{}{}", b.code, q.letter)));
        }
    }
    None
}

pub fn view(s: &State, viewer: &Viewer) -> View {
    let mut v = View { title: format!("Braccio da Montone — {}", scenario_title(s)), ..View::default() };
    v.lines.push(step_line(s));
    if let Some(o) = &s.outcome {
        v.lines.push(match &o.winner {
            Some(w) => format!("{} wins: {}.", side_name(w), o.reason),
            None => format!("A draw: {}.", o.reason),
        });
    }
    for role in s.roles() {
        v.lines.push(format!(
            "{}: VL {} of {}, VP {} (a level every {} VP).",
            side_name(role),
            s.vl.get(role).copied().unwrap_or(0),
            s.tables.victory.vl_win,
            s.vp.get(role).copied().unwrap_or(0),
            s.vp_per_vl.get(role).copied().unwrap_or(0)
        ));
    }
    for x in &s.standards {
        v.lines.push(if x.captured {
            format!("{}'s standard: captured (16.2.5).", x.battle)
        } else {
            let at = s.unit(&x.carrier).map(|u| u.hex.clone()).unwrap_or_default();
            format!("{}'s standard: with {} in {at} (16.2).", x.battle, x.carrier)
        });
    }
    if let Some(h) = &s.heat {
        let next = h.boxes.get(h.at - 1).copied().filter(|n| *n > 0 && h.at < h.boxes.len());
        v.lines.push(format!(
            "Heat: box {} of {}{}.",
            h.at,
            h.boxes.len(),
            next.map(|n| format!("; a Continuum or Interruptio roll of {n} or more raises it"))
                .unwrap_or_else(|| "; the last box".into())
        ));
    }
    if !s.marker.is_empty() {
        v.lines.push(format!(
            "Activation marker: {} ({} in a row); last activated: {}.",
            s.marker,
            s.marker_count,
            if s.last.is_empty() { "-" } else { &s.last }
        ));
    }
    if let Some(a) = &s.act {
        v.lines.push(format!("{} is active with {} OP left.", a.battle, s.op));
    }
    for role in s.roles() {
        if !sees(viewer, role) {
            continue;
        }
        let p = s.policies.get(role).cloned().unwrap_or_default();
        v.lines.push(format!("Standing policies of {role} (secret):"));
        for part in policy_text(&p).split("; ") {
            v.lines.push(format!("  {part}"));
        }
        if let Some(n) = s.next.get(role) {
            v.lines.push(format!(
                "Pending for {role} (secret): NEXT {}.",
                if n == "pass" { "PASS".into() } else { format!("CONTINUUM {n}") }
            ));
        }
        for p in s.plans.iter().filter(|p| p.role == role) {
            v.lines.push(format!("Pending plan of {role} (secret):"));
            v.lines.extend(p.lines.iter().map(|l| format!("  {l}")));
        }
    }
    for side in s.roles() {
        v.tables.push(captains_table(s, side));
    }
    for side in s.roles() {
        v.tables.push(units_table(s, side));
    }
    v.boards.push(Board::Hex(board(s, format!("{} — {}", scenario_title(s), s.map.name))));
    v
}

/// A side's Captains on the CAT and its Squad Leaders.
fn captains_table(s: &State, side: &str) -> Table {
    let mut rows = Vec::new();
    for b in s.battles.iter().filter(|b| b.side == side) {
        let state = if b.off_map {
            "off the map"
        } else if b.removed {
            "removed"
        } else if !b.released {
            "inactive"
        } else if b.school && b.rally.is_empty() {
            "School, standard lost"
        } else if b.school {
            "released, School"
        } else {
            "released"
        };
        rows.push(vec![
            format!("{}{}", b.captain.name, if b.adjutant { " (adjutant)" } else { "" }),
            format!("{}/{}", b.cc, b.cc0),
            state.to_string(),
            or_dash(&b.captain.hex),
            format!("{:+}", b.captain.combat),
            b.captain.radius.to_string(),
        ]);
        for q in &b.squads {
            rows.push(vec![
                format!("  {}", q.leader.name),
                String::new(),
                "Squad Leader".into(),
                or_dash(&q.leader.hex),
                format!("{:+}", q.leader.combat),
                q.leader.radius.to_string(),
            ]);
        }
    }
    Table {
        title: format!("{} Captains (CAT)", side_name(side)),
        header: ["Captain", "CC", "State", "Hex", "Mod", "Radius"].iter().map(|x| x.to_string()).collect(),
        rows,
    }
}

/// A side's combat units: where, facing, quality and state.
fn units_table(s: &State, side: &str) -> Table {
    let rows = s
        .units
        .iter()
        .filter(|u| u.side == side)
        .map(|u| {
            let mut state = Vec::new();
            if s.battle(&u.battle).map(|b| b.off_map).unwrap_or(false) {
                state.push("off the map");
            } else if !u.alive() && !s.home.is_empty() {
                state.push("to place");
            } else if !u.alive() {
                state.push("routed");
            } else {
                if u.disorganized {
                    state.push("Disorganized");
                }
                if u.fired {
                    state.push("Fired");
                }
            }
            if u.militia {
                state.push("militia");
            }
            let kind = match u.kind {
                Kind::Cavalry => "cav",
                Kind::Infantry => "inf",
                Kind::Crossbowmen => "xbow",
            };
            let level = u.at().map(|h| format!("{}", s.map.height(h) as f64 / 2.0)).unwrap_or_else(|| "-".into());
            vec![
                u.name.clone(),
                u.code.clone(),
                or_dash(&u.hex),
                level,
                if u.alive() { vertex_word(u.facing).to_string() } else { "-".into() },
                format!("{} {}", kind, u.armour),
                format!("{}/{}", u.q(), u.cr),
                state.join(", "),
            ]
        })
        .collect();
    Table {
        title: format!("{} units", side_name(side)),
        header: ["Unit", "Code", "Hex", "Lv", "Face", "Kind", "CR", "State"].iter().map(|x| x.to_string()).collect(),
        rows,
    }
}

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.to_string()
    }
}

fn scenario_title(s: &State) -> String {
    let base = match s.scenario.as_str() {
        "sant-egidio" => "Sant'Egidio, 1416",
        x => x,
    };
    if s.options.is_empty() {
        base.to_string()
    } else {
        format!("{base} ({})", s.options.join(", "))
    }
}

pub fn policy_text(p: &Policy) -> String {
    let interrupt = match p.interrupt.as_str() {
        "ask" => "INTERRUPT ASK".to_string(),
        "never" => "INTERRUPT NEVER".to_string(),
        "best" => "INTERRUPT WITH BEST".to_string(),
        b => format!("INTERRUPT WITH {b}"),
    };
    let min = if p.interrupt_min > 0 { format!(" MIN {}", p.interrupt_min) } else { String::new() };
    let mode = |m: &str, n: i32| if m == "min" { format!("MIN {n}") } else { m.to_uppercase() };
    format!(
        "{interrupt}{min}; REACT FIRE {}; REACT FACE {}; REACT COUNTERCHARGE {}; REACT RETREAT {}",
        p.fire.to_uppercase(),
        mode(&p.face, p.face_min),
        mode(&p.counter, p.counter_min),
        p.retreat.to_uppercase()
    ) + &p.adjutant.iter().map(|(b, u)| format!("; ADJUTANT {b} WITH {u}")).collect::<String>()
        + &p.escape.iter().map(|(b, h)| format!("; ESCAPE {b} TO {h}")).collect::<String>()
}

/// What the free set-up's zones ask of `role` (S5.1.2, S5.1.3), if the
/// scenario has them.
fn zones_text(s: &State, role: &str) -> String {
    let Some(z) = &s.zones else { return String::new() };
    let line = format!("{}-{}", z.line[0], z.line[1]);
    if role == BRACCIO {
        format!(
            " West of the line {line}, never beside an enemy unit (S5.1.2); {} keeps his set-up unless the enemy is north of the Aterno, when he and his units may stand on flat ground of level 2-4 or a hill {} hexes or more from the line (S5.1.3).",
            z.keeps, z.keeps_distance
        )
    } else {
        format!(" On or east of the line {line}, all north or all south of the Aterno (S5.1.2).")
    }
}

fn captain_list(s: &State, role: &str, test: fn(&State, &str, &str) -> Result<(), String>, after: i32) -> String {
    let v: Vec<String> = eligible(s, role, test)
        .iter()
        .map(|b| {
            let cc = s.battle(b).map(|x| x.cc).unwrap_or(0);
            if after > 0 {
                format!("{b} CC {cc}: {}/36", chance(cc))
            } else {
                format!("{b} CC {cc}")
            }
        })
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

pub fn prompt(s: &State, role: &str) -> Prompt {
    let mut syntax = vec![
        "INTERRUPT ASK | NEVER | WITH <captain> [MIN n] | WITH BEST [MIN n]".to_string(),
        "REACT FIRE ALWAYS | NEVER | ATTACKERS".to_string(),
        "REACT FACE ALWAYS | NEVER | MIN n".to_string(),
        "REACT COUNTERCHARGE ALWAYS | NEVER | MIN n".to_string(),
        "ADJUTANT <captain> WITH <unit>   ESCAPE <captain> TO <hex>".to_string(),
    ];
    let mut plan = vec![
        "MOVE <unit> [<hex> | FACE <NE E SE SW W NW>]... [ATTACK <unit or hex>]",
        "CHARGE <unit> <hex>... ATTACK <unit or hex>   (M or H cavalry, 12.1)",
        "FIRE <unit> [FACE <v>] AT <unit or hex>",
        "REORGANIZE <unit>   RETREAT <unit> [TO <hex>]",
        "SQUAD <squad leader>   (School Battles: before that squad's orders)",
        "CAPTAIN <hex>...   LEADER <squad leader> <hex>...",
        "COMBAT <target> [LEAD <unit>] [KEEP <unit>] [LOSSES <unit>, ...]",
        "WAIT   (stop here: ask me again)",
        "NEXT CONTINUUM <captain> | NEXT PASS   THEN (the next plan follows)",
    ];
    if !s.standards.is_empty() {
        plan.push("MOVE STANDARD <hex>...   (1 OP, 16.2.3)");
    }
    let mine = || s.battles.iter().filter(|b| b.side == role && !b.removed).map(|b| b.name.clone()).collect::<Vec<_>>();
    let text = match &s.pending {
        Pending::Activation { role: r } if r == role => {
            syntax.insert(0, "ACTIVATE <captain> [GENERAL <order> [+ <order>]], then an order a line".into());
            syntax.extend(plan.iter().map(|x| x.to_string()));
            let first = if !s.confusion.is_empty() {
                format!(" Confusion (16.1): the enemy chose {}'s Battle for this activation.", s.confusion)
            } else if s.first.is_empty() {
                String::new()
            } else if s.first == super::free::ANY {
                format!(
                    " The battle opens with the Battle you choose, which must give at least one order ({}).",
                    super::free::sec(s, "2")
                )
            } else if s.first_caricas > 0 {
                format!(
                    " The battle opens with {}'s activation, which must give at least {} Carica! orders (S4.2).",
                    s.first, s.first_caricas
                )
            } else {
                format!(" The battle opens with {}'s activation, which must give at least one order (S2.2).", s.first)
            };
            format!(
                "Your Basic Activation (3.0): name a Captain and give his orders.{first} Your Captains: {}.",
                captain_list(s, role, can_activate, 0)
            )
        }
        Pending::Continuum { role: r } if r == role => {
            syntax.insert(0, "CONTINUUM <captain> and his plan (none: asked after the roll) | PASS".into());
            syntax.insert(1, "GENERAL <order> [+ <order>]   (a plan's first line: a General Order)".into());
            syntax.extend(plan.iter().map(|x| x.to_string()));
            format!(
                "You may attempt a Continuum (4.1: 2d6 at or under the Captain's CC; the CC falls one either way): {}. Or PASS.",
                captain_list(s, role, can_continuum, 1)
            )
        }
        Pending::Interruptio { role: r, against } if r == role => {
            syntax.insert(0, "INTERRUPT WITH <captain> and his plan | NO INTERRUPT".into());
            syntax.extend(plan.iter().map(|x| x.to_string()));
            format!(
                "{against}'s Continuum succeeded. You may attempt one Interruptio (4.2): {}. Or NO INTERRUPT.",
                captain_list(s, role, can_interrupt, 1)
            )
        }
        Pending::Rows { roles } if roles.iter().any(|r| r == role) => {
            syntax.insert(0, "PLACE <unit or leader> AT <hex> [FACE <v>] | PASS".into());
            format!(
                "Set-up (S1.1): these Battles have more hexes in their set-up rows than units, and you may \
                 place their units (and leaders) on any hexes of their rows, one unit a hex; a unit you do \
                 not name stays where it stands. PASS keeps the printed set-up. The other side chooses at \
                 the same time, unseen until both have. Rows: {}.",
                super::rows::describe(s, role)
            )
        }
        Pending::Setup { role: r, what } if r == role => {
            if what == "captain" {
                syntax.insert(0, "PLACE <captain> AT <hex>".into());
                format!(
                    "Free set-up ({}): place one Captain, then the other side places one.{} Still to place: {}.",
                    super::free::sec(s, "1"),
                    zones_text(s, role),
                    s.battles
                        .iter()
                        .filter(|b| b.side == role && !b.off_map && b.captain.hex.is_empty())
                        .map(|b| b.name.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                syntax.insert(0, "PLACE <unit> AT <hex> FACE <v>   PLACE <squad leader> AT <hex>".into());
                if s.rally_standards {
                    syntax.insert(1, "RALLY <battle> AT <hex>".into());
                }
                format!(
                    "Free set-up ({}): place every {} in one mail, each within its commander's radius and out of enemy ZOC (A42).{}",
                    super::free::sec(s, "1.1"),
                    match (role == BRACCIO, s.rally_standards) {
                        (true, true) => "Squad Leader and rally point within his Captain's radius, then every unit within its Squad Leader's",
                        (true, false) => "Squad Leader within his Captain's radius, then every unit within its Squad Leader's",
                        _ => "unit within its Captain's radius",
                    },
                    zones_text(s, role)
                )
            }
        }
        Pending::Confusion { role: r } if r == role => {
            syntax.insert(0, "CONFUSION <enemy captain>".into());
            format!(
                "Your Continuum failed with 10 or more: Confusion (16.1). Name the enemy Battle, not in reserve, \
                 that is activated now (its owner gives the orders, then makes his own Basic Activation): {}.",
                super::flow::confusable(s, role).join(", ")
            )
        }
        Pending::Orders { role: r, captain, via } if r == role => {
            syntax.extend(plan.iter().map(|x| x.to_string()));
            let op = if s.act.is_some() { s.op } else { s.battle(captain).map(|b| b.cc).unwrap_or(0) };
            format!(
                "{captain} is active ({}): send his plan ({op} OP{}).",
                match via {
                    Via::Basic => "Basic Activation",
                    Via::Continuum => "Continuum",
                    Via::Interruptio => "Interruptio: Individual Orders only",
                },
                if s.act.is_some() { " left" } else { "" }
            )
        }
        _ => format!("Not your decision now; your policies answer for you. Your Captains: {}.", mine().join(", ")),
    };
    Prompt { text, syntax }
}

/// The other role's secrets: its stored plans and its NEXT line, and the
/// line that shows its policies (brief 3.8).
pub fn leak_probes(s: &State, role: &str) -> LeakProbes {
    let o = s.other(role);
    let mut hidden =
        vec![format!("Standing policies of {o}"), format!("Pending plan of {o}"), format!("Pending for {o}")];
    for p in s.plans.iter().filter(|p| p.role == o) {
        hidden.extend(p.lines.iter().filter(|l| l.split_whitespace().count() > 2).cloned());
    }
    LeakProbes { hidden, events: true }
}
