//! What a move does (brief 3.2): the charge and the Dodge, then the flanks
//! every moved unit closes (BT-20..30, A-9) and the two-side captures
//! (S3-5, S5-7, A-17) judged at once, then VIII's Disrupt and Disperse as
//! forced moves, made at once or asked in a respond step.

use super::{check, engaged, Effect, Pos, Sq, STEPS};
use crate::engine::Event;
use crate::rules::tacticum::orders::Block;
use crate::rules::tacticum::{army_title, Last, Order, Pending, Question, State, Who};

/// Put a piece on a square ("" for off the board).
pub(super) fn place(s: &mut State, w: Who, cell: String) {
    match w {
        Who::Commander(a) => s.armies[a].commander = cell,
        Who::Infantry(a, k) => s.armies[a].infantry[k] = cell,
        Who::Cavalry(a, k) => s.armies[a].cavalry[k] = cell,
        Who::Eagle(a) => s.armies[a].eagle = cell,
        Who::Skirmisher(a, k) => s.armies[a].skirmishers[k] = cell,
        Who::Grain(a, k) => s.armies[a].grain[k] = cell,
        Who::Prisoner(a) => s.armies[a].prisoner = cell,
        Who::Archer(a, k) => s.armies[a].archers[k] = cell,
        Who::Obstacle => {}
        Who::Phantom(_) | Who::Wall(_) => {}
    }
}

/// Make the move and its captures (brief 3.2: the charge, then every flank
/// and two-side capture judged at once on the position after it). A charge
/// at a Cavalry that may dodge either way waits in `pending` for its
/// owner's choice.
pub fn play(s: &mut State, mover: &str, o: &Order, ev: &mut Vec<Event>) {
    let title = army_title(mover);
    let eff = match check(s, mover, o) {
        Ok(e) => e,
        // No order is the no-moves default of a silent player: the turn
        // is lost.
        Err(_) if *o == Order::Pass => {
            ev.push(Event::all(format!("{title} sent no move and loses the turn.")));
            s.last = Some(Last { army: mover.to_string(), order: "PASS".into(), ..Default::default() });
            return;
        }
        Err(p) => {
            ev.push(Event::all(format!("{title}'s {o} is void: {}.", p.reason)));
            return;
        }
    };
    if !eff.choice.is_empty() {
        let Order::Charge { at, .. } = o else { return };
        let owner = s.who_at()(*at).map(|w| s.armies[w.army()].name.clone()).unwrap_or_default();
        let options: Vec<String> = eff.choice.iter().map(|q| s.name(*q)).collect();
        let asked = s.chooser(&owner);
        ev.push(Event::all(format!(
            "{title}: {o}. The {} Cavalry at {} may dodge to {}: {} chooses.",
            army_title(&owner),
            s.name(*at),
            options.join(" or "),
            army_title(&asked)
        )));
        let about = format!("the Cavalry at {}", s.name(*at));
        let options = eff.choice.iter().map(|&q| Order::Dodge(q)).collect();
        s.pending = Some(Pending {
            mover: mover.to_string(),
            charge: Some(o.clone()),
            asked,
            questions: vec![Question { about, options }],
        });
        return;
    }
    finish(s, mover, o, eff, ev);
}

/// The charged Cavalry's owner chose (or the deadline chose the first side
/// in reading order): the dodge, then the rest of the charge.
pub fn respond(s: &mut State, p: &Pending, answers: &[Order], ev: &mut Vec<Event>) {
    // Each question takes its answer, or its first option (the default).
    let chosen: Vec<Order> = p
        .questions
        .iter()
        .filter_map(|q| answers.iter().find(|a| q.options.contains(a)).or(q.options.first()).cloned())
        .collect();
    let Some(charge) = &p.charge else {
        for o in &chosen {
            forced(s, o, ev);
        }
        return;
    };
    let Some(Order::Dodge(pick)) = chosen.first().cloned() else { return };
    let Ok(mut eff) = check(s, &p.mover, charge) else {
        ev.push(Event::all(format!("{}'s {} is void.", army_title(&p.mover), charge)));
        return;
    };
    let Order::Charge { at, .. } = *charge else { return };
    let cav = s.who_at()(at).expect("the charged Cavalry");
    eff.choice.clear();
    eff.dodge = Some((cav, pick));
    finish(s, &p.mover, charge, eff, ev);
}

/// A forced move of Disrupt or Disperse, answered or by default: it
/// captures nothing and sets off nothing. One that the position no
/// longer allows (an earlier answer took its square) is skipped.
fn forced(s: &mut State, o: &Order, ev: &mut Vec<Event>) {
    let (from, to) = match *o {
        Order::StepOut { from, to } | Order::Disperse { from, to } => (from, to),
        Order::Rout(q) => (q, q),
        _ => return,
    };
    let (at_from, at_to) = {
        let get = s.who_at();
        (get(from), get(to))
    };
    match *o {
        Order::StepOut { .. } | Order::Disperse { .. } => match (at_from, at_to) {
            (Some(w), None) => {
                let what = if matches!(o, Order::Disperse { .. }) { "disperses" } else { "steps out" };
                ev.push(Event::all(format!(
                    "{} {} {what} to {}.",
                    army_title(&s.armies[w.army()].name),
                    s.name(from),
                    s.name(to)
                )));
                place(s, w, s.name(to));
            }
            _ => ev.push(Event::all(format!("{o}: no longer possible, skipped."))),
        },
        _ => {
            if let Some(w) = at_from.filter(|w| w.is_unit()) {
                rout(s, w, from, ev);
            }
        }
    }
}

fn rout(s: &mut State, w: Who, q: Sq, ev: &mut Vec<Event>) {
    let army = s.armies[w.army()].name.clone();
    ev.push(Event::all(format!("{} {} is routed.", army_title(&army), s.name(q))));
    place(s, w, String::new());
    count_loss(s, w);
}

/// VIII's Disperse and Disrupt after the mover's action (brief 3.2 step 4):
/// each forced move with one outcome is made at once; where the owner has
/// a choice, a respond step asks it.
fn after_effects(s: &mut State, mover: &str, eff: &Effect, ev: &mut Vec<Event>) {
    let Some(a) = s.army_index(mover) else { return };
    let mut questions: Vec<Question> = Vec::new();
    let mut asked = String::new();
    // Disperse (S8-9, A-27): a Cavalry that moved to an open square; every
    // enemy Skirmisher among the eight around it steps one square away
    // from it (to a square two away), or is routed.
    if let (Some((Who::Cavalry(..), cav)), None) = (eff.moves.first().copied(), eff.charged) {
        let near: Vec<Sq> = s.board().around(cav);
        for q in near {
            let p = Pos::new(s);
            let Some(w) = p.get(q).filter(|w| matches!(w, Who::Skirmisher(x, _) if !p.s.friends(*x, a))) else {
                continue;
            };
            let away: Vec<Sq> =
                STEPS.iter().filter_map(|&d| p.step(q, d, 1)).filter(|&t| p.open(t) && t.distance(cav) == 2).collect();
            match away.len() {
                0 => rout(s, w, q, ev),
                1 => forced(s, &Order::Disperse { from: q, to: away[0] }, ev),
                _ => {
                    asked = s.chooser(&s.armies[w.army()].name);
                    questions.push(Question {
                        about: format!("the Skirmisher at {}", s.name(q)),
                        options: away.iter().map(|&t| Order::Disperse { from: q, to: t }).collect(),
                    });
                }
            }
        }
    }
    // Disrupt (S8-6..8, A-26): the Skirmisher that moved and another of
    // its army both beside an enemy formation: one unit of it that is not
    // Engaged steps out, or one beside the Skirmishers is routed.
    if let (Some((Who::Skirmisher(..), m)), None) = (eff.moves.first().copied(), eff.charged) {
        let p = Pos::new(s);
        let mut seen: Vec<Block> = Vec::new();
        let mut found: Vec<(Block, Vec<Order>, usize)> = Vec::new();
        for inst in formations_beside(&p, a, m) {
            if seen.contains(&inst) {
                continue;
            }
            seen.push(inst);
            let cells = inst.cells();
            let touching = |q: Sq| STEPS.iter().filter_map(|&d| p.step(q, d, 1)).any(|x| cells.contains(&x));
            let others: Vec<Sq> = skirmishers(&p, a).into_iter().filter(|&x| x != m && touching(x)).collect();
            if others.is_empty() {
                continue;
            }
            let mut options: Vec<Order> = Vec::new();
            for &u in &cells {
                if engaged(&p, u) {
                    continue;
                }
                for d in STEPS {
                    if let Some(t) = p.step(u, d, 1).filter(|&t| p.open(t) && !cells.contains(&t)) {
                        options.push(Order::StepOut { from: u, to: t });
                    }
                }
            }
            if options.is_empty() {
                let by: Vec<Sq> = std::iter::once(m).chain(others.iter().copied()).collect();
                options = cells
                    .iter()
                    .filter(|&&u| !matches!(p.get(u), Some(Who::Commander(_) | Who::Eagle(_))))
                    .filter(|&&u| by.iter().any(|&k| k.steps(u) == 1))
                    .map(|&u| Order::Rout(u))
                    .collect();
            }
            found.push((inst, options, p.get(cells[0]).map(|w| w.army()).unwrap_or(0)));
        }
        for (inst, options, owner) in found {
            match options.len() {
                0 => {}
                1 => forced(s, &options[0], ev),
                _ => {
                    asked = s.chooser(&s.armies[owner].name);
                    questions.push(Question { about: format!("the disrupted {}", inst.name(s)), options });
                }
            }
        }
    }
    if !questions.is_empty() {
        let list: Vec<String> = questions.iter().map(|q| q.about.clone()).collect();
        ev.push(Event::all(format!("{} chooses for {}.", army_title(&asked), list.join(" and "))));
        s.pending = Some(Pending { mover: mover.to_string(), charge: None, asked, questions });
    }
}

/// The mover's Skirmishers.
fn skirmishers(p: &Pos, a: usize) -> Vec<Sq> {
    let s = p.s;
    s.armies[a]
        .skirmishers
        .iter()
        .filter_map(|c| s.sq(c))
        .filter(|&q| matches!(p.get(q), Some(Who::Skirmisher(..))))
        .collect()
}

/// Enemy formations (Squares, Columns, Lines as their shapes make them,
/// A-3) with a unit beside `m`.
fn formations_beside(p: &Pos, a: usize, m: Sq) -> Vec<Block> {
    let s = p.s;
    let mut out = Vec::new();
    let mut shapes = vec![(1, 1), (0, 2), (2, 0)];
    if s.lines {
        shapes.push((3, 0));
    }
    for d in STEPS {
        let Some(u) = p.step(m, d, 1) else { continue };
        let Some(e) = p.get(u).filter(|w| w.is_unit() && !p.s.friends(w.army(), a)).map(|w| w.army()) else { continue };
        for &shape in &shapes {
            for b in Block::holding(u, shape, s.columns, s.rows) {
                if b.cells().iter().all(|&x| p.formation_unit(x, e)) && !out.contains(&b) {
                    out.push(b);
                }
            }
        }
    }
    out
}

fn finish(s: &mut State, mover: &str, o: &Order, eff: Effect, ev: &mut Vec<Event>) {
    let title = army_title(mover);
    ev.push(Event::all(format!("{title}: {o}.")));
    if let Some((w, q)) = eff.dodge {
        ev.push(Event::all(format!("The {} Cavalry dodges to {}.", army_title(&s.armies[w.army()].name), s.name(q))));
    }
    let captured = apply(s, mover, &eff);
    for (_, _, text) in &captured {
        ev.push(Event::all(text.clone()));
    }
    s.last = Some(Last {
        army: mover.to_string(),
        order: o.to_string(),
        moved: eff.moves.iter().map(|(_, q)| s.name(*q)).collect(),
        captured: captured.iter().map(|(_, q, _)| s.name(*q)).collect(),
    });
    after_effects(s, mover, &eff, ev);
}

/// Apply an effect; the pieces captured, with their squares and how.
pub(super) fn apply(s: &mut State, mover: &str, eff: &Effect) -> Vec<(Who, Sq, String)> {
    let a = s.army_index(mover).expect("the mover's army");
    let mut out = Vec::new();
    if let Some((w, q)) = eff.charged {
        let how = match eff.spent {
            Some(_) => format!(
                "{} Cavalry {} and the charging Cavalry are both eliminated.",
                army_title(&s.armies[w.army()].name),
                s.name(q)
            ),
            None => format!("{} {} captured by charging.", army_title(&s.armies[w.army()].name), s.name(q)),
        };
        place(s, w, String::new());
        out.push((w, q, how));
    }
    if let Some((w, _)) = eff.spent {
        // Eliminated, not captured: only the attacked Cavalry counts as a
        // capture.
        place(s, w, String::new());
    }
    if let Some((w, q)) = eff.dodge {
        place(s, w, s.name(q));
    }
    for (w, q) in &eff.moves {
        let name = s.name(*q);
        place(s, *w, name);
    }
    // The Prisoner, moved or not, captures nothing (SO2-17: the Legion's
    // Infantry captures, A-41: the mover is one of the two).
    let moved: Vec<Sq> = eff.moves.iter().filter(|(w, _)| !matches!(w, Who::Prisoner(_))).map(|(_, q)| *q).collect();
    // The dodged Cavalry counts as away while the charge's flanks are
    // judged: it neither is captured nor captures.
    if let Some((w, _)) = eff.dodge {
        place(s, w, String::new());
    }
    if !eff.quiet {
        out.append(&mut flanks(s, a, &moved));
    }
    if let Some((w, q)) = eff.dodge {
        place(s, w, s.name(q));
    }
    for (w, _, _) in &out {
        place(s, *w, String::new());
        count_loss(s, *w);
    }
    out
}

/// A piece its enemy removed, by capture or rout: counted for the
/// objectives that count them.
pub(super) fn count_loss(s: &mut State, w: Who) {
    let army = s.armies[w.army()].name.clone();
    match w {
        Who::Infantry(..) => *s.lost_infantry.entry(army.clone()).or_insert(0) += 1,
        Who::Grain(..) => *s.lost_grain.entry(army.clone()).or_insert(0) += 1,
        _ => {}
    }
    *s.lost.entry(army).or_insert(0) += 1;
}

/// The flanks every moved unit closes, and the Rebels' two-side
/// captures, judged together on the position after the move.
fn flanks(s: &State, a: usize, moved: &[Sq]) -> Vec<(Who, Sq, String)> {
    let p = Pos::new(s);
    let mut out: Vec<(Who, Sq, String)> = Vec::new();
    let add = |w: Who, q: Sq, text: String, out: &mut Vec<(Who, Sq, String)>| {
        if !out.iter().any(|x| x.1 == q) {
            out.push((w, q, text));
        }
    };
    for &m in moved {
        for d in STEPS {
            let mut run = Vec::new();
            let mut n = 1;
            let end = loop {
                match p.step(m, d, n) {
                    // The Prisoner is nobody's flank end and never flanked:
                    // it is silenced or shot, not captured (SO2-3, SO2-4).
                    Some(q) if matches!(p.get(q), Some(Who::Prisoner(_))) => break None,
                    Some(q) => match p.get(q) {
                        Some(w) if w.is_unit() && !p.s.friends(w.army(), a) => run.push((w, q)),
                        // An Archer captures only by its shot (SO2-26).
                        Some(w) if p.s.friends(w.army(), a) && !matches!(w, Who::Archer(..)) => break Some(q),
                        _ => break None,
                    },
                    // The board's edge is never a flank end.
                    None => break None,
                }
                n += 1;
            };
            let Some(end) = end else { continue };
            // A Skirmisher at either end flanks one unit only (S8-11, A-28).
            let skirmisher_end = [m, end].iter().any(|&x| matches!(p.get(x), Some(Who::Skirmisher(..))));
            if skirmisher_end && run.len() != 1 {
                continue;
            }
            for (w, q) in run {
                // A Commander or an Eagle is never captured (BT-11, BT-28,
                // A-20); a unit of a Square is immune to flanks (BT-14,
                // BT-27).
                if matches!(w, Who::Commander(_) | Who::Eagle(_)) || p.in_square(q) {
                    continue;
                }
                // The two ends, in reading order (row 1 first, then a..).
                let (x, y) = if (m.row, m.col) <= (end.row, end.col) { (m, end) } else { (end, m) };
                let text = format!(
                    "{} {} captured by flanking ({}–{}).",
                    army_title(&s.armies[w.army()].name),
                    s.name(q),
                    s.name(x),
                    s.name(y)
                );
                add(w, q, text, &mut out);
            }
        }
    }
    if s.two_sides.contains(&s.armies[a].name) {
        for &m in moved {
            for d in STEPS {
                let Some(q) = p.step(m, d, 1) else { continue };
                let Some(w) = p.get(q).filter(|w| w.is_unit() && !p.s.friends(w.army(), a)) else { continue };
                // III: a unit alone (no friend beside it); V: any unit not
                // in a Square (S3-5, S5-7, A-17).
                let immune = if s.two_sides_mode == "except-square" { p.in_square(q) } else { p.supported(q) };
                if matches!(w, Who::Commander(_) | Who::Eagle(_) | Who::Prisoner(_)) || immune {
                    continue;
                }
                let touching: Vec<String> = STEPS
                    .iter()
                    .filter_map(|&e| p.step(q, e, 1))
                    .filter(|&x| matches!(p.get(x), Some(v) if v.is_unit() && p.s.friends(v.army(), a) && !matches!(v, Who::Prisoner(_) | Who::Archer(..))))
                    .map(|x| s.name(x))
                    .collect();
                if touching.len() >= 2 {
                    let how = if s.two_sides_mode == "except-square" { "touched" } else { "alone and touched" };
                    let text = format!(
                        "{} {} captured: {how} on two sides ({}).",
                        army_title(&s.armies[w.army()].name),
                        s.name(q),
                        touching.join(", ")
                    );
                    add(w, q, text, &mut out);
                }
            }
        }
    }
    out
}
