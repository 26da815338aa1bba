//! `adjutant demo [mantua|leaguer]`: a scripted game played through the real
//! pipeline (post -> run --once -> mails in the outboxes), printing what each
//! player received, and ending with an audit of the journal it leaves.

use crate::config::Config;
use crate::desk::{Desk, NewGame};
use crate::mail::maildir::Maildir;
use crate::rules::leaguer;
use crate::rules::mantua::{self, battle, battle::Stage};
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Table {
    desk: Desk,
    game: String,
    seen: BTreeMap<PathBuf, usize>,
}

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const CAROL: &str = "carol@example.org";

impl Table {
    /// A player replies to their last prompt (to their reply address).
    fn send(&mut self, role: &str, from: &str, text: &str) -> Result<()> {
        println!("\n>>> {from} ({role}) sends:\n{}", indent(text));
        let to = self.desk.reply_address(&self.game, role);
        let raw = super::wrap_message(from, &to, &format!("Re: [{}] orders", self.game), text.as_bytes());
        self.desk.post(&raw, chrono::Utc::now())?;
        Ok(())
    }

    /// One pass of the daemon, then print every new mail per recipient.
    fn pass(&mut self) -> Result<()> {
        let r = self.desk.run_once(chrono::Utc::now())?;
        println!(
            "\n--- adjutant run --once: {} messages, {} accepted, {} rejected, {} steps resolved, {} mails sent",
            r.messages, r.accepted, r.rejected, r.resolved, r.sent
        );
        self.show_new()
    }

    fn show_new(&mut self) -> Result<()> {
        for who in [ALICE, BOB, CAROL] {
            let md = Maildir::open(&self.desk.outbox_of(who))?;
            let files = md.list_new()?;
            let start = *self.seen.get(&md.root).unwrap_or(&0);
            // Files are named by Message-ID: game.seq.n, so sort numerically.
            let mut files: Vec<_> = files.into_iter().collect();
            files.sort_by_key(|p| order_key(p));
            for f in files.iter().skip(start) {
                let raw = std::fs::read(f)?;
                let m = mail_parser::MessageParser::default().parse(&raw[..]);
                let (subject, body) = m
                    .as_ref()
                    .map(|m| {
                        (
                            m.subject().unwrap_or("").to_string(),
                            m.body_text(0).map(|b| b.to_string()).unwrap_or_default(),
                        )
                    })
                    .unwrap_or_default();
                let svg = m.as_ref().map(|m| m.attachment_count()).unwrap_or(0);
                println!("\n=== mail to {who}: {subject}{}", if svg > 0 { "  [SVG map attached]" } else { "" });
                println!("{}", body.trim_end());
            }
            self.seen.insert(md.root.clone(), files.len());
        }
        Ok(())
    }
}

/// What the demo's players order in a battle: reveal a fighting block,
/// deploy in pairs from the middle, attack what they face or march ahead;
/// once time is out the attacker doubles, the defender accepts, and the side
/// with fewer units left then retreats.
fn battle_orders(s: &mantua::State, role: &str) -> Vec<String> {
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
            let theirs = b.units_of(mantua::other(role));
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
            if v.is_empty() || v == ["DOUBLE"] {
                v.push("PASS".into());
            }
            v
        }
        Stage::Doubled => vec!["ACCEPT".into()],
        Stage::Reduce => {
            let mut v = Vec::new();
            let mut due = battle::due(s, role);
            let mut fought: Vec<&mantua::Block> = b
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

fn order_key(p: &Path) -> (u64, u64) {
    let n = p.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let parts: Vec<&str> = n.split('.').collect();
    let num = |i: usize| parts.get(i).and_then(|x| x.parse().ok()).unwrap_or(0);
    (num(1), num(2))
}

fn indent(t: &str) -> String {
    t.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

pub fn run(data: &Path, cfg: Config, ruleset: &str) -> Result<i32> {
    let (roles, title) = match ruleset {
        "mantua" => (["austria", "france"], "Siege of Mantua"),
        "leaguer" => (["besiegers", "garrison"], "Leaguer siege turns"),
        _ => bail!("there is a demo for: mantua, leaguer (asked for {ruleset:?})"),
    };
    let desk = Desk::open(data, cfg)?;
    let req = NewGame {
        ruleset: ruleset.into(),
        scenario: None,
        players: vec![(roles[0].into(), ALICE.into()), (roles[1].into(), BOB.into())],
        gm: Some(CAROL.into()),
        deadline: Some("72h".into()),
        dice: "committed".into(),
        id: None,
    };
    let game = desk.create(&req, chrono::Utc::now(), &mut crate::desk::os_random)?;
    desk.deliver()?;
    println!("adjutant demo: {title}, game {game}; {} {ALICE}, {} {BOB}, moderator {CAROL}", roles[0], roles[1]);
    println!("data folder: {}", data.display());
    let mut t = Table { desk, game: game.clone(), seen: BTreeMap::new() };
    t.show_new()?;
    if ruleset == "mantua" {
        mantua_demo(&mut t)?;
    } else {
        leaguer_demo(&mut t)?;
    }
    let jp = crate::desk::store::game_dir(data, &game).join("journal.toml");
    println!("\n--- adjutant audit {game}");
    let code = super::audit(data, &game, false, None)?;
    println!(
        "\njournal left at {}; run `adjutant --data {} audit {game}` to check it again.",
        jp.display(),
        data.display()
    );
    Ok(code)
}

fn mantua_demo(t: &mut Table) -> Result<()> {
    let game = t.game.clone();
    // Set-up: Austria places a Tyrolean block; France first writes a bad
    // set-up (an unknown place), gets the rejection, then a good one.
    t.send("austria", ALICE, "PLACE Laudon AT Rovereto\nSALT schoenbrunn-1796")?;
    t.send("france", BOB, "PLACE Bonaparte AT Vienna\nPLACE Massena AT Caldiero")?;
    t.pass()?;
    t.send(
        "france",
        BOB,
        "# Bonaparte with the reserve\nPLACE Bonaparte AT Verona\nPLACE Masséna AT Caldiero\nSALT rivoli",
    )?;
    t.pass()?;

    // Austria's first turn: moving two networks at once is refused.
    t.send("austria", ALICE, "MOVE Provera TO Padova\nMOVE Davidovich TO Trento")?;
    t.pass()?;
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Padova\nSALT alice-rolls")?;
    t.pass()?;

    // France: a word to the enemy, and Augereau's column to Vicenza.
    t.send("france", BOB, "PRESS austria The Brenta is lovely this time of year.\nMOVE Augereau, Dummy C TO Vicenza")?;
    t.pass()?;

    // Austria attacks Vicenza from Padova; France stands and fights.
    t.send("austria", ALICE, "MOVE Provera, Liptay TO Vicenza")?;
    t.pass()?;
    t.send("france", BOB, "STAND\nSALT bob-stands")?;
    t.pass()?;

    // The battle, decision by decision, as each player's prompt asks.
    for _ in 0..80 {
        let l = t.desk.load(&game)?;
        if l.game.ended {
            break;
        }
        let a = l.game.awaiting();
        let Some(role) = a.prompts.keys().next().cloned() else { break };
        if !matches!(a.kind.as_str(), "reveal" | "deploy" | "battle turn" | "doubled" | "reductions" | "upgrades") {
            break;
        }
        let state: mantua::State = toml::from_str(&l.game.state_text())?;
        let orders = battle_orders(&state, &role);
        let from = if role == "austria" { ALICE } else { BOB };
        t.send(&role, from, &orders.join("\n"))?;
        t.pass()?;
        if t.desk.load(&game)?.game.step == l.game.step {
            bail!("the demo's own orders were refused at step {}: {orders:?}", l.game.step);
        }
    }
    // The moderator ends the demo here.
    t.send("gm", CAROL, "STATUS\nEND")?;
    t.pass()?;

    Ok(())
}

/// The address each Leaguer role writes from.
fn leaguer_from(role: &str) -> &'static str {
    match role {
        "besiegers" => ALICE,
        "garrison" => BOB,
        _ => CAROL,
    }
}

/// Several Siege Turns of Leaguer through the desk: the commanders send
/// their Housekeeping (spies, officers, rallying, food, policing), the
/// moderator applies the Event Cards and reports the table-top phases; the
/// Garrison asks for terms by PRESS and the moderator records the surrender.
fn leaguer_demo(t: &mut Table) -> Result<()> {
    let game = t.game.clone();
    // A first try with two mistakes: both are listed, nothing changes.
    t.send("besiegers", ALICE, "SPY Grammaticus INFO WALLZ\nRALLY Tercio Lombardia\nSALT alice-digs")?;
    t.pass()?;
    let reports = [
        "HITS Regiment Monferrato I 2\nHITS Swiss Guard 1\nFIRES +4\nPOWDER besiegers -3\nUNIT Regiment Monferrato I CLEAR\nDONE",
        "HITS Tercio Lombardia 3\nHITS Siege Battery 2\nUNIT Siege Battery SAFE\nPOWDER garrison -2\nRESOLVE garrison -2 breach in Curtain North\nWALL Curtain North 3",
        "HITS Regiment Monferrato II 3\nHITS Town Militia 1 DISEASE\nFIRES +3\nKILL Major Lanza\nPOWDER besiegers -4",
        "HITS Tercio Napoles 2\nHITS German Foot 1\nLS -1\nPOWDER garrison -3\nDONE",
        "HITS Swiss Guard 2\nHITS Bastion Battery 2\nFIRES +2\nPOWDER besiegers -3",
    ];
    let mut table = 0;
    for _ in 0..30 {
        let l = t.desk.load(&game)?;
        if l.game.ended {
            break;
        }
        let a = l.game.awaiting();
        let Some(role) = a.prompts.keys().next().cloned() else { break };
        let state: leaguer::State = toml::from_str(&l.game.state_text())?;
        let text = match a.kind.as_str() {
            "housekeeping" => leaguer_orders(&state, &role),
            "event" if state.card.as_deref().map(leaguer::card_class) == Some("court") => {
                "RESOLVE garrison -1 court card: a quarrel among the officers\nDONE".to_string()
            }
            "event" => "NO EFFECT".to_string(),
            _ if table < reports.len() => {
                table += 1;
                reports[table - 1].to_string()
            }
            _ => {
                // The Garrison asks for terms; the moderator records them.
                t.send("garrison", BOB, "PRESS besiegers The Governor asks for terms: the honours of war.")?;
                t.send("besiegers", ALICE, "PRESS garrison Granted: march out with colours flying.")?;
                "SURRENDER garrison".to_string()
            }
        };
        t.send(&role, leaguer_from(&role), &text)?;
        t.pass()?;
        if t.desk.load(&game)?.game.step == l.game.step {
            bail!("the demo's own orders were refused at step {}: {text:?}", l.game.step);
        }
    }
    Ok(())
}

/// A commander's Housekeeping: the no-moves rallying and policing, plus a
/// spy mission each, an officer by the worst-hit unit, food and fire
/// measures for the Garrison.
fn leaguer_orders(s: &leaguer::State, side: &str) -> String {
    let mut v: Vec<String> = leaguer::no_moves(s, side).iter().map(|o| o.to_string()).filter(|o| o != "PASS").collect();
    let a = s.army(side);
    let missions: &[&str] = if side == "besiegers" {
        &["INFO FOOD", "SABOTAGE FIRE", "INFO LS", "SABOTAGE POWDER"]
    } else {
        &["INFO RESOLVE", "SABOTAGE DESERTION", "INFO POWDER"]
    };
    for (k, spy) in a.spies.iter().filter(|x| x.status == leaguer::SpyStatus::Active).enumerate() {
        v.push(format!("SPY {} {}", spy.name, missions[(s.turn as usize / 2 + k) % missions.len()]));
    }
    if a.active_spies() < 2 && a.resolve > 10 {
        v.push(format!("RECRUIT SPY Agent {}", s.turn));
    }
    let worst = a.alive_units().filter(|u| u.hits > 0).max_by_key(|u| u.hits).map(|u| u.name.clone());
    let officer = a.officers.iter().find(|o| o.alive && o.rank == leaguer::Rank::Senior).map(|o| o.name.clone());
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
