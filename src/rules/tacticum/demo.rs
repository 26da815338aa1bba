//! `adjutant demo tacticum`: the opening of a Force-on-Force game, move by
//! move — a refused diagonal move, a Column's charge and a flank capture —
//! as a pure function of the state.

use super::State;
use crate::engine::DemoMail;

/// Each move of the script, by the move number it is sent at.
const SCRIPT: &[(&str, &str)] = &[
    ("black", "MOVE e2 TO e3\nSALT demo-black"),
    ("white", "MOVE d7 TO d5\nSALT demo-white"),
    // d1, d2 and d3 now make a Column.
    ("black", "MOVE e3 TO d3"),
    ("white", "MOVE c7 TO c5"),
    ("black", "CHARGE d1:d3 AT d5"),
    ("white", "MOVE i7 TO i5"),
    // b5 closes the flank on c5 against the Column's lead at d5.
    ("black", "MOVE b1 TO b5"),
];

pub fn mails(s: &State, pass: usize) -> Option<Vec<DemoMail>> {
    if s.scenario != "force-on-force" || s.outcome.is_some() || pass > SCRIPT.len() + 2 {
        return None;
    }
    let (role, text) = SCRIPT.get(s.turn as usize)?;
    let mut out = Vec::new();
    if s.turn == 4 {
        // A diagonal move, refused with the two straight moves that would do.
        out.push(DemoMail::refused(role, "MOVE a1 TO b2"));
    }
    out.push(DemoMail::new(role, text));
    Some(out)
}
