//! `adjutant demo mantua`: what the demo's players send, pass by pass — a
//! rejected set-up, salts, press, an attack, then a whole battle decided
//! by simple rules — as a pure function of the state.

use super::battle::{self, Stage};
use super::{other, Block, Phase, State, AUSTRIA, FRANCE};
use crate::engine::DemoMail;

/// The mails sent before pass `pass`; `None` once nothing is left to do.
pub fn mails(s: &State, pass: usize) -> Option<Vec<DemoMail>> {
    // A bound on the whole demo, whatever the dice: the policy below always
    // ends a battle, but a demo that could run on would hang the README's
    // first command.
    if pass >= LIMIT {
        return None;
    }
    let m = DemoMail::new;
    Some(match pass {
        // Set-up: Austria places a Tyrolean block; France first writes a
        // bad set-up (an unknown place), gets the rejection, then a good one.
        0 => vec![
            m(AUSTRIA, "PLACE Laudon AT Rovereto\nSALT schoenbrunn-1796"),
            DemoMail::refused(FRANCE, "PLACE Bonaparte AT Vienna\nPLACE Massena AT Caldiero"),
        ],
        1 => vec![m(
            FRANCE,
            "# Bonaparte with the reserve\nPLACE Bonaparte AT Verona\nPLACE Masséna AT Caldiero\nSALT rivoli",
        )],
        // Austria's first turn: moving two networks at once is refused.
        2 => vec![DemoMail::refused(AUSTRIA, "MOVE Provera TO Padova\nMOVE Davidovich TO Trento")],
        3 => vec![m(AUSTRIA, "MOVE Provera, Liptay TO Padova\nSALT alice-rolls")],
        // France: a word to the enemy, and Augereau's column to Vicenza.
        4 => {
            vec![m(FRANCE, "PRESS austria The Brenta is lovely this time of year.\nMOVE Augereau, Dummy C TO Vicenza")]
        }
        // Austria attacks Vicenza from Padova; France stands and fights.
        5 => vec![m(AUSTRIA, "MOVE Provera, Liptay TO Vicenza")],
        6 => vec![m(FRANCE, "STAND\nSALT bob-stands")],
        // The battle, decision by decision, as each player's prompt asks;
        // then the moderator ends the demo.
        _ if s.phase == Phase::Battle => {
            let b = s.battle.as_ref()?;
            vec![m(&b.side, &battle_orders(s, &b.side).join("\n"))]
        }
        _ if s.outcome.is_none() && pass < 200 => vec![m("gm", "STATUS\nEND")],
        _ => return None,
    })
}

/// More passes than any demo game takes (about 25 with these policies).
const LIMIT: usize = 100;

/// What the demo's players order in a battle: reveal a fighting block,
/// deploy in pairs from the middle, attack what they face or march ahead;
/// once time is out the attacker doubles, the defender accepts, and the side
/// with fewer units left, or with no Wing able to act, then retreats.
fn battle_orders(s: &State, role: &str) -> Vec<String> {
    let b = s.battle.as_ref().expect("a battle");
    match b.stage {
        Stage::Reveal => {
            let mut v = b.unrevealed.get(role).cloned().unwrap_or_default();
            v.sort_by_key(|n| s.block(n).map(|x| (x.dummy, x.leader)).unwrap_or_default());
            vec![format!("REVEAL {}", v[0])]
        }
        Stage::Deploy => {
            let row = b.edge(role);
            let mut hand = b.hand.iter();
            let mut v = Vec::new();
            for col in [2u8, 1, 3, 0, 4] {
                let there = b.wing_at(col, row).map(|j| b.wings[j].units.len()).unwrap_or(0);
                let units: Vec<&String> = hand.by_ref().take(2usize.min(3 - there)).collect();
                if !units.is_empty() {
                    let names: Vec<&str> = units.iter().map(|u| u.as_str()).collect();
                    v.push(format!("DEPLOY {}: {}", battle::space_name(col, row), names.join(", ")));
                }
            }
            v
        }
        Stage::Turn => {
            let mine = b.units_of(role);
            let theirs = b.units_of(other(role));
            let open = b.time.is_none() && b.time_set;
            if open && b.stakes >= 2 && mine < theirs {
                return vec!["RETREAT".into()];
            }
            let mut v = Vec::new();
            if open && b.cube.is_none() && role == b.attacker {
                v.push("DOUBLE".to_string());
            }
            let mut left = b.commands.get(role).copied().unwrap_or(3) as usize;
            for (i, w) in b.wings.iter().enumerate().filter(|(_, w)| w.side == role) {
                let sp = battle::space_name(w.col, w.row);
                let cost = match (b.faced(i), b.engaged(i)) {
                    (Some(_), Some(_)) => w.units.len(),
                    (Some(_), None) => 1,
                    _ => 1,
                };
                if cost > left {
                    continue;
                }
                if b.faced(i).is_some() {
                    v.push(format!("ATTACK {sp}"));
                } else if b.ahead(i).map(|(c, r)| b.wing_at(c, r).is_none()).unwrap_or(false) {
                    v.push(format!("MOVE {sp}"));
                } else {
                    continue;
                }
                left -= cost;
            }
            let acts = v.iter().any(|o| o != "DOUBLE");
            // Time is out and no Wing of ours can reach the enemy (they may
            // face away, or stand at the edge): passing would go on for
            // ever, so the side that cannot fight retreats.
            if !acts && b.time_set && b.time.is_none() {
                return vec!["RETREAT".into()];
            }
            if !acts {
                v.push("PASS".into());
            }
            v
        }
        Stage::Doubled => vec!["ACCEPT".into()],
        Stage::Reduce => {
            let mut v = Vec::new();
            let mut due = battle::due(s, role);
            let mut fought: Vec<&Block> = b
                .revealed
                .get(role)
                .into_iter()
                .flatten()
                .filter_map(|n| s.block(n))
                .filter(|x| !x.eliminated)
                .collect();
            fought.sort_by_key(|x| (x.leader, std::cmp::Reverse(x.strength)));
            for x in fought {
                let n = due.min(x.strength as u32 - 1);
                if n > 0 {
                    v.push(format!("REDUCE {} {n}", x.name));
                    due -= n;
                }
            }
            if let Some(r) = battle::retreat_routes(s, role).first() {
                v.push(format!("RETREAT TO {r}"));
            }
            v
        }
        Stage::Upgrade => vec!["PASS".into()],
    }
}
