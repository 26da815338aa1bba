//! Solo Scenario II, Prisoner Escort (SO2): the Legion walks the Prisoner
//! up a valley past a Rock, Raiders coming down their columns, Ambushers
//! closing in and Archers shooting on doubles (SO2-1..34, A-40..A-45).

use super::{choose, fail, Cand};
use crate::dice::{Dice, Serves, StreamId};
use crate::engine::{Event, Problem};
use crate::rules::shared::squares::Sq;
use crate::rules::tacticum::moves::{self, Effect};
use crate::rules::tacticum::orders::Shape;
use crate::rules::tacticum::{Order, State, Who};

fn solo(s: &State) -> &super::Solo {
    s.solo.as_ref().expect("a solo scenario")
}

fn army(s: &State, name: &str) -> usize {
    s.army_index(name).expect("the scenario's armies")
}

fn in_valley(s: &State, q: Sq) -> bool {
    solo(s).valley.contains(&((b'a' + q.col) as char).to_string())
}

/// Legion Infantry beside the Prisoner (SO2-18).
fn guards(s: &State) -> Vec<Sq> {
    let l = army(s, &solo(s).legion);
    let Some(p) = s.sq(&s.armies[l].prisoner) else { return Vec::new() };
    let get = s.who_at();
    s.board().neighbours(p).into_iter().filter(|&q| matches!(get(q), Some(Who::Infantry(a, _)) if a == l)).collect()
}

/// The escort's limits on a Legion move beyond the base rules: the Square
/// is the only formation (SO2-16); 2 spaces within the valley, else 1, and
/// 1 for a Square with the Prisoner or the Prisoner alone (SO2-15, 16, 18,
/// A-42); never leaving the Prisoner without a guard it has.
pub fn check_move(s: &State, a: usize, o: &Order, eff: &Effect) -> Result<(), Problem> {
    let l = army(s, &solo(s).legion);
    if a != l {
        return Ok(());
    }
    let (from, to) = match o {
        Order::Move { from, to, .. } => (from, to),
        Order::Charge { .. } => {
            return Err(Problem::new("the Square is the only formation here, and it does not charge (SO2-16)")
                .hint("capture by standing on two sides of a Raider (SO2-17)"))
        }
        _ => return Ok(()),
    };
    if !matches!(from.shape(), Shape::Unit | Shape::Square) {
        return Err(Problem::new("the Square is the only formation allowed (SO2-16)").hint("move one unit or a Square"));
    }
    let prisoner = s.sq(&s.armies[l].prisoner);
    let with_prisoner = prisoner.is_some_and(|p| from.cells().contains(&p));
    let valley = from.cells().iter().chain(to.cells().iter()).all(|&q| in_valley(s, q));
    let n = from.lo.col.abs_diff(to.lo.col) as u32 + from.lo.row.abs_diff(to.lo.row) as u32;
    let limit = if with_prisoner || !valley { 1 } else { 2 };
    if n > limit {
        let why = if with_prisoner {
            "the Prisoner moves 1 space, and a Square holding it 1 (SO2-16, SO2-18)"
        } else {
            "Infantry moves 2 spaces only within the valley, else 1 (SO2-15, A-42)"
        };
        return Err(Problem::new(format!("{why}; this is {n}")).hint("move 1 space"));
    }
    if !guards(s).is_empty() {
        let mut t = s.clone();
        moves::place_all(&mut t, eff);
        if guards(&t).is_empty() {
            return Err(Problem::new("the Prisoner must always have an Infantry unit beside it (SO2-18, A-45)")
                .hint("keep a unit beside the Prisoner, or move it beside one"));
        }
    }
    Ok(())
}

/// The Scouts variant's extra Infantry (SO2-32): on a flank square.
pub fn check_scout(s: &State, q: Sq) -> Result<(), Problem> {
    let cells = &solo(s).scout_cells;
    if !s.in_blocks(cells, q) {
        return Err(Problem::new(format!("{} is not on your left or right flank (SO2-32)", s.name(q)))
            .hint(format!("a square of {}", cells.join(" or "))));
    }
    if s.who_at()(q).is_some() {
        return Err(Problem::new(format!("{} is taken", s.name(q))).hint("an empty square"));
    }
    Ok(())
}

/// Place the Scout (the default: the first free flank square nearest the
/// valley's entrance, in reading order).
pub fn place_scout(s: &mut State, orders: &[Order], ev: &mut Vec<Event>) {
    let chosen = match orders.first() {
        Some(Order::Scout(q)) if check_scout(s, *q).is_ok() => Some(*q),
        // The deadline's default: the data's square if free, else the
        // first free flank square in reading order.
        _ => s
            .sq(&solo(s).scout_default)
            .into_iter()
            .chain((0..s.rows).flat_map(|r| (0..s.columns).map(move |c| Sq { col: c, row: r })))
            .find(|&q| check_scout(s, q).is_ok()),
    };
    let l = army(s, &solo(s).legion);
    if let Some(q) = chosen {
        let name = s.name(q);
        s.armies[l].infantry.push(name);
        ev.push(Event::all(format!("The Scout takes post at {} (SO2-32).", s.name(q))));
    }
    s.phase = "turn".into();
}

/// The Legion's turn: the reinforcement a 6 gave, if the player brings it
/// (`ENTER c1`, A-44), then the one action; a Prisoner left unguarded a
/// whole turn escapes (SO2-2, SO2-19).
pub fn try_turn(s: &mut State, role: &str, orders: &[Order], ev: &mut Vec<Event>) -> Result<(), (usize, Problem)> {
    let l = army(s, role);
    let action = super::one_action(orders, |o| matches!(o, Order::Enter(_)), "an ENTER line may go beside it")?;
    let mut entered = false;
    for (i, o) in orders.iter().enumerate() {
        let Order::Enter(q) = o else { continue };
        let due = solo(s).enter_due && s.armies[l].infantry.iter().any(String::is_empty);
        if !due || entered {
            return Err((i, Problem::new("no reinforcement is due: one comes on a 6 of the Raider die while an Infantry unit is off the board (SO2-30)").hint("leave the ENTER line out")));
        }
        if q.row != 0 || s.who_at()(*q).is_some() {
            return Err((
                i,
                Problem::new(format!("{} is not an empty square of your starting row, row 1 (SO2-30)", s.name(*q)))
                    .hint("ENTER c1"),
            ));
        }
        let k = s.armies[l].infantry.iter().position(String::is_empty).expect("an Infantry off the board");
        s.armies[l].infantry[k] = s.name(*q);
        entered = true;
        ev.push(Event::all(format!("An Infantry unit comes back at {} (SO2-30).", s.name(*q))));
    }
    if let Some(x) = s.solo.as_mut() {
        x.enter_due = false;
    }
    match action {
        None => moves::play(s, role, &Order::Pass, ev),
        Some(i) => {
            moves::check(s, role, &orders[i]).map_err(|p| (i, p))?;
            moves::play(s, role, &orders[i], ev);
        }
    }
    // The Prisoner that reaches the far row has arrived, guard or none
    // (the win is checked next).
    let arrived = s.sq(&s.armies[l].prisoner).is_some_and(|p| p.row + 1 == s.rows);
    if guards(s).is_empty() && !s.armies[l].prisoner.is_empty() && !arrived {
        fail(s, "the Prisoner has escaped: a whole Roman turn passed with no Infantry beside it (SO2-2)".into(), ev);
    }
    Ok(())
}

/// Raider units (not Archers) that stand beside the Prisoner.
fn raiders_beside_prisoner(s: &State) -> Vec<Sq> {
    let (l, r) = (army(s, &solo(s).legion), army(s, &solo(s).raiders));
    let Some(p) = s.sq(&s.armies[l].prisoner) else { return Vec::new() };
    let get = s.who_at();
    s.board()
        .neighbours(p)
        .into_iter()
        .filter(|&q| matches!(get(q), Some(w) if w.is_unit() && w.army() == r && !matches!(w, Who::Archer(..))))
        .collect()
}

/// Whether a Raider that just moved to `q` silences the Prisoner: Raiders
/// on two of its sides, the mover one of them (SO2-3, A-41).
fn silenced(s: &State, q: Sq) -> bool {
    let b = raiders_beside_prisoner(s);
    b.len() >= 2 && b.contains(&q)
}

/// The Raiders' action (SO2-10..14, 20..24, 31): the Raider die names a
/// column (1-4), the Ambushers (5) or the Legion's reinforcement (6); on
/// doubles with the Archer die, an Archer shoots.
pub fn raiders_turn(s: &mut State, dice: &mut dyn Dice, ev: &mut Vec<Event>) {
    let r = army(s, &solo(s).raiders);
    let l = army(s, &solo(s).legion);
    let d = dice.roll(&StreamId::Public, 6, "raider die", &Serves::nobody());
    let a = dice.roll(&StreamId::Public, 6, "archer die", &Serves::nobody());
    let mut report = vec![format!("Raider die {d}, Archer die {a}.")];
    if d == 6 {
        if s.armies[l].infantry.iter().any(String::is_empty) {
            report.push("No Raider moves; an Infantry unit may come back on row 1 next turn (ENTER, SO2-30).".into());
            s.solo.as_mut().expect("solo").enter_due = true;
        } else {
            report.push("No Raider moves, and no Infantry is off the board to come back (SO2-13, SO2-30).".into());
        }
    } else {
        let cands = candidates(s, r, d);
        match choose(s, cands, dice, &mut report) {
            Some(c) => make(s, r, &c, &mut report),
            None => report.push("No Raider can act.".into()),
        }
    }
    if s.outcome.is_none() && a == d {
        shoot(s, dice, &mut report);
    }
    let failed = s.outcome.clone();
    super::publish(s, report, ev);
    if let Some(o) = failed {
        ev.push(Event::all(format!("The Legion fails: {}.", o.reason)));
    }
}

/// Whether a Raider may step onto `q` (the Rock only when Emboldened).
fn open_for_raider(s: &State, q: Sq) -> bool {
    match s.who_at()(q) {
        None => true,
        Some(Who::Obstacle) => solo(s).emboldened && solo(s).rock.contains(&s.name(q)),
        _ => false,
    }
}

fn candidates(s: &State, r: usize, d: u32) -> Vec<Cand> {
    let x = solo(s);
    let l = army(s, &x.legion);
    let get = s.who_at();
    let prisoner = s.sq(&s.armies[l].prisoner);
    let dist = |q: Sq| prisoner.map(|p| p.steps(q) as i32).unwrap_or(99);
    let mut out = Vec::new();
    let mut add = |from: Option<Sq>, to: Sq, kind: &'static str, sub: i32| {
        let mut t = s.clone();
        let (captures, silence) = match from {
            Some(f) => {
                let n = moves::make_move(&mut t, &s.armies[r].name, get(f).expect("a Raider"), to).len();
                (n, silenced(&t, to))
            }
            // A Surprise attack takes the unit where a reinforcement
            // enters (SO2-31).
            None => (matches!(get(to), Some(Who::Infantry(a, _)) if a == l) as usize, false),
        };
        let beside = prisoner.is_some_and(|p| p.steps(to) == 1);
        let tier = match kind {
            _ if silence => "win",
            _ if captures > 0 => "capture",
            "reinforce" => "reinforce",
            _ if beside => "press",
            "sidestep" => "sidestep",
            _ => "advance",
        };
        out.push(Cand { from, to, kind, tier: tier.into(), captures, sub });
    };
    let captured = s.armies[r].infantry.iter().any(String::is_empty);
    let raider_at = |q: Sq| matches!(get(q), Some(w) if w.army() == r && !matches!(w, Who::Archer(..)));
    let top = s.rows - 1;
    if d <= 4 {
        for c in 0..s.columns {
            if x.numbers.get(&((b'a' + c) as char).to_string()) != Some(&d) {
                continue;
            }
            let column: Vec<Sq> = (0..s.rows).map(|row| Sq { col: c, row }).filter(|&q| raider_at(q)).collect();
            if column.is_empty() {
                let q = Sq { col: c, row: top };
                if captured && prisoner != Some(q) && matches!(get(q), None | Some(Who::Infantry(..))) {
                    add(None, q, "reinforce", 0);
                }
            }
            for f in column {
                let k = slot(s, r, f);
                if x.ambushers.contains(&k) {
                    continue;
                }
                // Down the column, from the bottom round to the top
                // (SO2-20); blocked, a step aside (SO2-22).
                let ahead = Sq { col: c, row: if f.row == 0 { top } else { f.row - 1 } };
                if open_for_raider(s, ahead) {
                    add(Some(f), ahead, "advance", ahead.row as i32);
                } else {
                    for q in super::aside(s, f).into_iter().filter(|&q| open_for_raider(s, q)) {
                        add(Some(f), q, "sidestep", 0);
                    }
                }
            }
        }
    } else {
        for spot in x.ambush.iter().filter_map(|c| s.sq(c)) {
            if captured
                && !raider_at(spot)
                && prisoner != Some(spot)
                && matches!(get(spot), None | Some(Who::Infantry(..)))
            {
                add(None, spot, "reinforce", 0);
            }
        }
        for &k in &x.ambushers {
            let Some(f) = s.armies[r].infantry.get(k).and_then(|c| s.sq(c)) else { continue };
            // Toward the Prisoner, or into a capture (SO2-21); blocked,
            // up or down (SO2-22).
            let steps: Vec<Sq> = s.board().neighbours(f).into_iter().filter(|&q| open_for_raider(s, q)).collect();
            let closer: Vec<Sq> = steps.iter().copied().filter(|&q| dist(q) < dist(f)).collect();
            for &q in &steps {
                if closer.contains(&q) {
                    add(Some(f), q, "advance", dist(q));
                } else {
                    let mut t = s.clone();
                    if !moves::make_move(&mut t, &s.armies[r].name, get(f).expect("a Raider"), q).is_empty() {
                        add(Some(f), q, "advance", dist(q));
                    } else if closer.is_empty() && q.col == f.col {
                        add(Some(f), q, "sidestep", 0);
                    }
                }
            }
        }
    }
    out
}

/// The Raider slot that stands on `q`.
fn slot(s: &State, r: usize, q: Sq) -> usize {
    let name = s.name(q);
    s.armies[r].infantry.iter().position(|c| *c == name).unwrap_or(usize::MAX)
}

fn make(s: &mut State, r: usize, c: &Cand, report: &mut Vec<String>) {
    let name = s.armies[r].name.clone();
    let Some(from) = c.from else {
        let there = s.who_at()(c.to);
        if let Some(w @ Who::Infantry(..)) = there {
            moves::remove(s, w);
            report.push(format!("Surprise attack: the Infantry at {} is captured (SO2-31).", s.name(c.to)));
        }
        let Some(k) = super::bring_back(s, r, c.to) else { return };
        let spot = solo(s).ambush.contains(&s.name(c.to));
        let x = s.solo.as_mut().expect("solo");
        x.ambushers.retain(|&a| a != k);
        if spot {
            x.ambushers.push(k);
        }
        report.push(format!("A captured Raider comes back at {} (SO2-31).", s.name(c.to)));
        return;
    };
    report.push(format!("The Raider at {} moves to {}.", s.name(from), s.name(c.to)));
    let who = s.who_at()(from).expect("a Raider");
    for (_, _, text) in moves::make_move(s, &name, who, c.to) {
        report.push(text);
    }
    if silenced(s, c.to) {
        let b: Vec<String> = raiders_beside_prisoner(s).iter().map(|&q| s.name(q)).collect();
        super::lost(s, format!("the Prisoner is silenced: Raiders on two of its sides ({}) (SO2-3)", b.join(", ")));
    }
}

/// On doubles one Archer shoots along its row (SO2-26..28, A-43): the
/// Prisoner if in a clear line (the Legion fails), else the Infantry whose
/// loss hurts most by the target ladder; the Rock and Raiders stop the
/// arrow, Trees do not.
fn shoot(s: &mut State, dice: &mut dyn Dice, report: &mut Vec<String>) {
    let (l, r) = (army(s, &solo(s).legion), army(s, &solo(s).raiders));
    let get = s.who_at();
    let prisoner = s.sq(&s.armies[l].prisoner);
    let guards = guards(s);
    let mut options: Vec<((u8, u32), Sq, Sq)> = Vec::new();
    for q in s.armies[r].archers.iter().filter_map(|c| s.sq(c)) {
        for dc in [-1i32, 1] {
            let mut c = q.col as i32 + dc;
            while c >= 0 && c < s.columns as i32 {
                let t = Sq { col: c as u8, row: q.row };
                match get(t) {
                    None => {}
                    Some(Who::Obstacle) if !solo(s).rock.contains(&s.name(t)) => {}
                    Some(Who::Prisoner(_)) => {
                        options.push(((0, 0), q, t));
                        break;
                    }
                    Some(Who::Infantry(a, _)) if a == l => {
                        let near =
                            prisoner.map(|p| p.col.abs_diff(t.col) as u32 + p.row.abs_diff(t.row) as u32).unwrap_or(99);
                        let tier = match (guards.contains(&t), guards.len()) {
                            (true, 1) => (1, 0),
                            (true, _) => (2, 0),
                            _ => (3, near),
                        };
                        options.push((tier, q, t));
                        break;
                    }
                    _ => break,
                }
                c += dc;
            }
        }
    }
    options.sort_by_key(|(k, a, t)| (*k, a.row, a.col, t.row, t.col));
    let Some(best) = options.first().map(|o| o.0) else {
        report.push("Doubles: an Archer shot, but no Archer has a target in its row (SO2-26, SO2-27).".into());
        return;
    };
    let tied: Vec<(Sq, Sq)> = options.iter().filter(|o| o.0 == best).map(|o| (o.1, o.2)).collect();
    let (archer, target) = if tied.len() == 1 {
        tied[0]
    } else {
        let n = tied.len();
        let k = super::tie_break(n, "archer tie-break", dice);
        let list: Vec<String> = tied.iter().map(|(a, t)| format!("{} at {}", s.name(*a), s.name(*t))).collect();
        report.push(format!("Archers tied: {}; tie-break d{n} = {k}.", list.join("; ")));
        tied[k - 1]
    };
    let why = match best.0 {
        0 => "the Prisoner in a clear line",
        1 => "the only Infantry beside the Prisoner",
        2 => "an Infantry beside the Prisoner",
        _ => "the Infantry nearest the Prisoner",
    };
    report.push(format!("Doubles: the Archer at {} shoots {}, {why} (SO2-28).", s.name(archer), s.name(target)));
    let hit = get(target);
    drop(get);
    match hit {
        Some(Who::Prisoner(_)) => {
            super::lost(s, format!("an Archer shot the Prisoner from {} (SO2-4)", s.name(archer)));
        }
        Some(w) => moves::remove(s, w),
        None => {}
    }
}
