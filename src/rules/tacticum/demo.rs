//! `adjutant demo tacticum`: the opening of a Force-on-Force game, move by
//! move — a refused diagonal move, a Column's charge and a flank capture;
//! and `adjutant demo tacticum --scenario frontier`: a solo game's first
//! turns, the Fort stocked, three Build Formations and their supplies
//! (one a Tower on the centre gate) while adjutant moves the Raiders. Both
//! are pure functions of the state.

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

/// Solo I's opening: the Raiders, three rows away, cannot reach the wall
/// in these turns whatever the dice, so every line stays legal.
const FRONTIER: &[&str] = &[
    "WOOD Fa1, Fa2, Fa3, Fb1, Fb2, Fb3\nSALT demo-legion",
    // e4 and d3 touch d4: the Prefect runs through the gate to Fb1.
    "MOVE e3 TO e4\nSUPPLY Fb1 TO d4",
    // c4 and b3 touch b4; from Fb1 the Stone at Fc1 is in reach.
    "MOVE c3 TO c4\nSUPPLY Fc1 TO b4",
    // g4 and the Commander on f3 touch the gate f4: Stone on Stone, a Tower.
    "MOVE g3 TO g4\nSUPPLY Fd1 TO f4",
];

pub fn mails(s: &State, pass: usize) -> Option<Vec<DemoMail>> {
    if s.outcome.is_some() {
        return None;
    }
    if s.scenario == "frontier" {
        let text = FRONTIER.get(pass)?;
        let mut out = Vec::new();
        if pass == 2 {
            // d4 is built now: the wall blocks the move.
            out.push(DemoMail::refused("legion", "MOVE d3 TO d4"));
        }
        out.push(DemoMail::new("legion", text));
        return Some(out);
    }
    if s.scenario != "force-on-force" || pass > SCRIPT.len() + 2 {
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
