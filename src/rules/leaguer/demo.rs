//! `adjutant demo leaguer`: several Siege Turns through the desk — the
//! commanders send their Housekeeping (spies, officers, rallying, food,
//! policing), the moderator applies the Event Cards and reports the
//! table-top phases; the Garrison asks for terms by PRESS and the moderator
//! records the surrender — as a pure function of the state.

use super::{card_class, no_moves, Phase, Rank, SpyStatus, State, BESIEGERS, GARRISON, GM};
use crate::engine::DemoMail;

/// The moderator's table-top reports, one a Siege Turn.
const REPORTS: [&str; 5] = [
    "HITS Regiment Monferrato I 2\nHITS Swiss Guard 1\nFIRES +4\nPOWDER besiegers -3\nUNIT Regiment Monferrato I CLEAR\nDONE",
    "HITS Tercio Lombardia 3\nHITS Siege Battery 2\nUNIT Siege Battery SAFE\nPOWDER garrison -2\nRESOLVE garrison -2 breach in Curtain North\nWALL Curtain North 3",
    "HITS Regiment Monferrato II 3\nHITS Town Militia 1 DISEASE\nFIRES +3\nKILL Major Lanza\nPOWDER besiegers -4",
    "HITS Tercio Napoles 2\nHITS German Foot 1\nLS -1\nPOWDER garrison -3\nDONE",
    "HITS Swiss Guard 2\nHITS Bastion Battery 2\nFIRES +2\nPOWDER besiegers -3",
];

/// The mails sent before pass `pass`; `None` once the game is over.
pub fn mails(s: &State, pass: usize) -> Option<Vec<DemoMail>> {
    if s.outcome.is_some() || pass > 60 {
        return None;
    }
    if pass == 0 {
        // A first try with two mistakes: both are listed, nothing changes.
        return Some(vec![DemoMail::refused(
            BESIEGERS,
            "SPY Grammaticus INFO WALLZ\nRALLY Tercio Lombardia\nSALT alice-digs",
        )]);
    }
    let m = DemoMail::new;
    Some(match s.phase {
        Phase::Housekeeping => vec![m(&s.active, &orders(s, &s.active))],
        Phase::Event if s.card.as_deref().map(card_class) == Some("court") => {
            vec![m(GM, "RESOLVE garrison -1 court card: a quarrel among the officers\nDONE")]
        }
        Phase::Event => vec![m(GM, "NO EFFECT")],
        Phase::Table => match REPORTS.get((s.turn as usize).saturating_sub(1)) {
            Some(r) => vec![m(GM, r)],
            // The Garrison asks for terms; the moderator records them.
            None => vec![
                m(GARRISON, "PRESS besiegers The Governor asks for terms: the honours of war."),
                m(BESIEGERS, "PRESS garrison Granted: march out with colours flying."),
                m(GM, "SURRENDER garrison"),
            ],
        },
        Phase::Over => return None,
    })
}

/// A commander's Housekeeping: the no-moves rallying and policing, plus a
/// spy mission each, an officer by the worst-hit unit, food and fire
/// measures for the Garrison.
fn orders(s: &State, side: &str) -> String {
    let mut v: Vec<String> = no_moves(s, side).iter().map(|o| o.to_string()).filter(|o| o != "PASS").collect();
    let a = s.army(side);
    let missions: &[&str] = if side == "besiegers" {
        &["INFO FOOD", "SABOTAGE FIRE", "INFO LS", "SABOTAGE POWDER"]
    } else {
        &["INFO RESOLVE", "SABOTAGE DESERTION", "INFO POWDER"]
    };
    for (k, spy) in a.spies.iter().filter(|x| x.status == SpyStatus::Active).enumerate() {
        v.push(format!("SPY {} {}", spy.name, missions[(s.turn as usize / 2 + k) % missions.len()]));
    }
    if a.active_spies() < 2 && a.resolve > 10 {
        v.push(format!("RECRUIT SPY Agent {}", s.turn));
    }
    let worst = a.alive_units().filter(|u| u.hits > 0).max_by_key(|u| u.hits).map(|u| u.name.clone());
    let officer = a.officers.iter().find(|o| o.alive && o.rank == Rank::Senior).map(|o| o.name.clone());
    if let (Some(u), Some(o)) = (worst, officer) {
        v.push(format!("OFFICER {o} NEAR {u}"));
    }
    if side == "garrison" {
        if s.town.fires > 0 {
            v.push("FIRE DUTY Garrison Sappers".into());
        }
        if s.town.food <= 10 && s.town.measures_used.is_empty() {
            v.push("FOOD HORSES".into());
        }
        v.push(if s.town.ls >= 0 { "MEET MAYOR" } else { "MEET" }.into());
    }
    v.push(format!("SALT {side}-{}", s.turn));
    v.join("\n")
}
