//! `adjutant demo [RULESET]`: a scripted game played through the real
//! pipeline (post -> run --once -> mails in the outboxes), printing what each
//! player received, and ending with an audit of the journal it leaves. What
//! the players send is the ruleset's own script (`Rules::demo`).

use crate::config::Config;
use crate::desk::{Desk, NewGame};
use crate::mail::maildir::Maildir;
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Table {
    desk: Desk,
    game: String,
    seen: BTreeMap<PathBuf, usize>,
    /// Role to address: the first role is Alice, the second Bob, the
    /// moderator Carol.
    players: BTreeMap<String, String>,
}

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const CAROL: &str = "carol@example.org";

impl Table {
    /// A player replies to their last prompt (to their reply address).
    fn send(&mut self, role: &str, text: &str) -> Result<()> {
        let from = self.players.get(role).cloned().unwrap_or_else(|| CAROL.to_string());
        println!("\n>>> {from} ({role}) sends:\n{}", indent(text));
        let to = self.desk.reply_address(&self.game, role);
        let raw = super::wrap_message(&from, &to, &format!("Re: [{}] orders", self.game), text.as_bytes());
        self.desk.post(&raw, chrono::Utc::now())?;
        Ok(())
    }

    /// One pass of the daemon, then print every new mail per recipient.
    fn pass(&mut self) -> Result<crate::desk::PassReport> {
        let r = self.desk.run_once(chrono::Utc::now())?;
        println!(
            "\n--- adjutant run --once: {} messages, {} accepted, {} rejected, {} steps resolved, {} mails sent",
            r.messages, r.accepted, r.rejected, r.resolved, r.sent
        );
        self.show_new()?;
        Ok(r)
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
                let maps = m.as_ref().map(|m| m.attachment_count()).unwrap_or(0);
                println!(
                    "\n=== mail to {who}: {subject}{}",
                    if maps > 0 { "  [map attached: PNG and SVG]" } else { "" }
                );
                println!("{}", body.trim_end());
            }
            self.seen.insert(md.root.clone(), files.len());
        }
        Ok(())
    }
}

/// The order letters were sent in, from their file names (their
/// Message-IDs, `<game>.<seq>-<tag>.<n>…`): the batch's first journal
/// entry, then the letter's place in the batch.
fn order_key(p: &Path) -> (u64, u64) {
    let n = p.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let parts: Vec<&str> = n.split('.').collect();
    let num = |i: usize| parts.get(i).and_then(|x| x.split('-').next()?.parse().ok()).unwrap_or(0);
    (num(1), num(2))
}

fn indent(t: &str) -> String {
    t.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

pub fn run(data: &Path, cfg: Config, ruleset: &str, scenario: Option<&str>) -> Result<i32> {
    let Some(rules) = crate::rules::find(ruleset) else {
        let names: Vec<&str> = crate::rules::ALL.iter().map(|r| r.info().name).collect();
        bail!("no ruleset {ruleset:?}; there are: {}", names.join(", "));
    };
    let info = rules.info();
    // Without a name, the first scenario that has a scripted demo.
    let scripted = |name: &str| rules.setup(name).ok().is_some_and(|st| rules.demo(&st, 0).is_some());
    let Some(sc) = info.scenarios.iter().find(|s| scenario.map_or_else(|| scripted(&s.name), |n| s.name == n)) else {
        let names: Vec<&str> = info.scenarios.iter().map(|s| s.name.as_str()).collect();
        bail!("{} has no scenario {scenario:?}; there are: {}", info.title, names.join(", "));
    };
    let roles = sc.roles.clone();
    let desk = Desk::open(data, cfg)?;
    let players: Vec<(String, String)> = roles.iter().cloned().zip([ALICE, BOB].map(String::from)).collect();
    let req = NewGame {
        scenario: Some(sc.name.clone()),
        gm: Some(CAROL.into()),
        deadline: Some("72h".into()),
        ..NewGame::new(ruleset, players.clone())
    };
    let game = desk.create(&req, chrono::Utc::now(), &mut crate::desk::os_random)?;
    desk.deliver()?;
    let cast: Vec<String> = players.iter().map(|(r, a)| format!("{r} {a}")).collect();
    println!("adjutant demo: {}, game {game}; {}, moderator {CAROL}", info.title, cast.join(", "));
    println!("data folder: {}", data.display());
    let mut t = Table { desk, game: game.clone(), seen: BTreeMap::new(), players: players.into_iter().collect() };
    t.show_new()?;
    let mut played = 0;
    for pass in 0.. {
        let l = t.desk.load(&game)?;
        if l.game.ended {
            break;
        }
        let Some(mails) = l.game.demo(pass) else { break };
        for m in &mails {
            t.send(&m.role, &m.text)?;
        }
        let r = t.pass()?;
        let meant = mails.iter().filter(|m| m.refused).count();
        if r.rejected != meant {
            bail!("the demo's own orders were refused at step {} (pass {pass}): {mails:?}", l.game.step);
        }
        played += 1;
    }
    if played == 0 {
        bail!("{} has no scripted demo", info.title);
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
