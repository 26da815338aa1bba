//! `adjutant demo tacticum`: a game of Seize the Eagle — the toss for the
//! first player, a refused diagonal move, a Column's charge at a Cavalry
//! that dodges in a respond step, and the flank capture of that Cavalry,
//! which wins; and `adjutant demo tacticum --scenario frontier`: a solo
//! game's first turns, the Fort stocked, three Build Formations and their
//! supplies (one a Tower on the centre gate) while adjutant moves the
//! Raiders. Both are pure functions of the state, whoever the toss picks.

use super::State;
use crate::engine::DemoMail;

/// Each army's moves in order: its `k`-th comes at its `k`-th turn, so
/// the script holds whichever army the toss sends first (Black's charge
/// always comes after White's Cavalry has reached d5).
const BLACK: &[&str] = &[
    "MOVE e2 TO e3",
    // d1, d2 and d3 now make a Column.
    "MOVE e3 TO d3",
    // The lead d3 charges the Cavalry two squares ahead: both its sides
    // are open, so White chooses the dodge.
    "CHARGE d1:d3 AT d5",
    // b5 and the Column's lead on d5 close the flank on c5: the last
    // White Cavalry is gone, and Black wins (S6-14).
    "MOVE b2 TO b5",
];
const WHITE: &[&str] = &["MOVE k8 TO k5", "MOVE k5 TO d5", "MOVE c7 TO c6", "MOVE j7 TO j6"];

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
    if s.scenario != "seize-the-eagle" || pass > 16 {
        return None;
    }
    match s.phase.as_str() {
        "toss" => Some(vec![
            DemoMail::new("black", "READY\nSALT demo-black"),
            DemoMail::new("white", "READY\nSALT demo-white"),
        ]),
        "respond" => Some(vec![DemoMail::new("white", "DODGE c5")]),
        _ => {
            let script = if s.active == "black" { BLACK } else { WHITE };
            let k = s.turn as usize / 2;
            let text = script.get(k)?;
            let mut out = Vec::new();
            if s.active == "black" && k == 1 {
                // A diagonal move, refused with the two straight moves
                // that would do.
                out.push(DemoMail::refused("black", "MOVE c2 TO d3"));
            }
            out.push(DemoMail::new(&s.active, text));
            Some(out)
        }
    }
}
