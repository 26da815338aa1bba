//! IV's placement (S4-4, S4-5, A-18): two units at a time on the hill.

use super::{Pos, Problem, Sq};
use crate::engine::Event;
use crate::rules::tacticum::orders::Block;
use crate::rules::tacticum::{army_title, Order, State};

/// IV's placement (S4-4, S4-5, A-18): two units (or the last one) on open
/// squares of the hill, never a hilltop, and none making a formation with
/// the army's units.
pub fn check_place(s: &State, role: &str, cells: &[Sq]) -> Result<(), Problem> {
    let a = s.army_index(role).ok_or_else(|| Problem::new(format!("{role} commands no army here")))?;
    let left = s.armies[a].reserve as usize;
    let want = left.min(2);
    if cells.len() != want {
        return Err(Problem::new(format!(
            "place {want} unit{} a turn ({left} left to place)",
            if want == 1 { "" } else { "s" }
        ))
        .hint(default_place(s, role).map(|v| Order::Place(v).to_string()).unwrap_or_else(|| "PLACE d3, d5".into())));
    }
    let mut t = s.clone();
    for &q in cells {
        let p = Pos::new(&t);
        let name = s.name(q);
        if !on_hill(s, q) {
            return Err(Problem::new(format!("{name} is outside the hill region (S4-4)"))
                .hint(format!("the hill is {}", s.terrain.hill.join(", "))));
        }
        if s.terrain.hilltops.contains(&name) {
            return Err(Problem::new(format!("{name} is a hilltop: units are never placed there (S4-4)"))
                .hint("place beside it"));
        }
        if !p.open(q) {
            return Err(
                Problem::new(format!("{}: place on an open square", p.describe(q))).hint("an open square of the hill")
            );
        }
        t.armies[a].infantry.push(name.clone());
        if let Some(f) = formed(&t, a, q) {
            return Err(Problem::new(format!(
                "{name} would form the {f}: no formation may be created while placing (S4-5)"
            ))
            .hint("place it apart from your other units"));
        }
    }
    Ok(())
}

/// Whether a square is on IV's hill.
pub fn on_hill(s: &State, q: Sq) -> bool {
    s.in_blocks(&s.terrain.hill, q)
}

/// A formation (named) that the unit at `q` makes with its army's units.
fn formed(s: &State, a: usize, q: Sq) -> Option<String> {
    let p = Pos::new(s);
    for (w, h) in [(1, 1), (0, 2), (2, 0)] {
        for b in Block::holding(q, (w, h), s.columns, s.rows) {
            if b.cells().iter().all(|&x| p.formation_unit(x, a)) {
                let what = if w == h { "Square" } else { "Column" };
                return Some(format!("{what} {}", b.name(s)));
            }
        }
    }
    None
}

/// Put the placer's units down.
pub fn place_units(s: &mut State, role: &str, cells: &[Sq], ev: &mut Vec<Event>) {
    let Some(a) = s.army_index(role) else { return };
    let names: Vec<String> = cells.iter().map(|&q| s.name(q)).collect();
    s.armies[a].reserve = s.armies[a].reserve.saturating_sub(names.len() as u32);
    s.armies[a].infantry.extend(names.iter().cloned());
    ev.push(Event::all(format!(
        "{} places {} ({} left to place).",
        army_title(role),
        names.join(", "),
        s.armies[a].reserve
    )));
}

/// The no-moves placement: the first legal squares nearest the placer's
/// own edge, from its left.
pub fn default_place(s: &State, role: &str) -> Option<Vec<Sq>> {
    let a = s.army_index(role)?;
    let want = (s.armies[a].reserve as usize).min(2);
    let south =
        s.armies[a].commander.is_empty() || s.sq(&s.armies[a].commander).map(|c| c.row < s.rows / 2).unwrap_or(true);
    let mut order: Vec<Sq> = (0..s.rows).flat_map(|r| (0..s.columns).map(move |c| Sq { col: c, row: r })).collect();
    if !south {
        order.reverse();
    }
    let mut chosen = Vec::new();
    for q in order {
        if chosen.len() == want {
            break;
        }
        let mut trial = chosen.clone();
        trial.push(q);
        // Each square checked as if the ones before it were placed.
        let mut t = s.clone();
        t.armies[a].reserve = trial.len() as u32;
        if check_place(&t, role, &trial).is_ok() {
            chosen = trial;
        }
    }
    (chosen.len() == want && want > 0).then_some(chosen)
}
