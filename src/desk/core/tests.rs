//! The referee on its own, with no disk: a game held in memory, a vault
//! of fixed secrets, mails given as bytes and the clock as a value. What
//! it decides is read from the batch it returns.

use super::hourly::Counts;
use super::mail::Outcome;
use super::*;
use crate::dice;
use crate::mail::parse;
use chrono::{DateTime, Utc};

const LEN: u32 = 50;

/// Secrets as the shell would keep them, made from fixed tops.
struct Memory {
    secrets: secrets::Secrets,
    anchors: BTreeMap<String, String>,
}

impl Memory {
    fn new(roles: &[String]) -> Memory {
        let (mut secrets, mut anchors) = (secrets::Secrets::default(), BTreeMap::new());
        for (i, s) in dice::stream_names(roles).iter().enumerate() {
            let top = [i as u8 + 1; 32];
            anchors.insert(s.clone(), dice::to_hex(&dice::anchor(&top, LEN)));
            secrets.add_chain(s, &top, LEN);
        }
        Memory { secrets, anchors }
    }
}

impl Vault for Memory {
    fn secrets(&self, _: &str) -> Result<secrets::Secrets, Refused> {
        Ok(self.secrets.clone())
    }
    fn anchors(&self, _: &str) -> Result<BTreeMap<String, String>, Refused> {
        Ok(self.anchors.clone())
    }
    fn fresh(&self) -> [u8; 32] {
        [7; 32]
    }
    fn opening(&self, _: &str, _: u32, _: &[(String, toml::Value)]) -> Result<Option<Reopening>, Refused> {
        Ok(None)
    }
    fn resolved(&self, _: &str, _: u32, _: u32) -> Result<Vec<crate::journal::kinds::Resolved>, Refused> {
        Ok(Vec::new())
    }
}

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z").unwrap().with_timezone(&Utc)
}

/// A game of the first ruleset registered (any would do: the referee knows
/// no game).
fn a_game() -> GameState {
    let rules = crate::rules::ALL[0];
    let scenario = rules.info().scenarios[0].name.clone();
    let game = Game::new("g1", rules, &scenario).unwrap();
    let players = game.roles.iter().map(|r| (r.clone(), format!("{r}@example.org"))).collect();
    let desk = DeskState { players, chain_len: LEN, ..DeskState::default() };
    GameState { game, desk, seen: Seen::default() }
}

fn mail(from: &str, id: &str, body: &str) -> parse::Inbound {
    let raw =
        format!("From: {from}\r\nTo: game@adjutant.local\r\nSubject: orders\r\nMessage-ID: <{id}>\r\n\r\n{body}\r\n");
    parse::parse(raw.as_bytes())
}

#[test]
fn a_pass_is_decided_in_memory_from_mail_bytes_and_a_clock() {
    let cfg = Config::default();
    let mut l = a_game();
    let vault = Memory::new(&l.game.roles);
    let referee = Referee { cfg: &cfg, key: b"server key", vault: &vault };
    let role = l.game.roles[0].clone();
    let token = referee.token_at("g1", &role, 0);

    // The first step opens: each awaited player gets a prompt, nothing
    // was written anywhere.
    let mut batch = Batch::default();
    referee.open_step(&mut l, &mut batch, now());
    referee.prompts(&l, &mut batch);
    assert!(batch.letters.iter().any(|x| x.to == format!("{role}@example.org")), "{:?}", batch.letters);

    // A stranger with the player's token is refused and answered; the
    // refusal is journaled, and the token's owner is untouched.
    let (mut batch, mut counts, mut report) = (Batch::default(), Counts::default(), PassReport::default());
    let forged = mail("mallory@example.net", "forged@x", "STATUS");
    let got = referee.handle(&mut l, &mut batch, &mut counts, &forged, "aa", &token, now(), &mut report).unwrap();
    assert!(matches!(got, Outcome::Journaled));
    assert_eq!(report.refused, 1);
    assert_eq!(batch.entries.iter().map(|e| e.0.as_str()).collect::<Vec<_>>(), ["received"]);
    assert_eq!(batch.entries[0].1.get("verdict").and_then(|v| v.as_str()), Some("refused"));
    assert_eq!(batch.letters.len(), 1);
    assert_eq!(batch.letters[0].to, "mallory@example.net");

    // The player's own mail is read and answered; the same mail again is
    // a duplicate and decides nothing.
    let own = mail(&format!("{role}@example.org"), "own@x", "STATUS");
    let mut batch = Batch::default();
    let got = referee.handle(&mut l, &mut batch, &mut counts, &own, "bb", &token, now(), &mut report).unwrap();
    assert!(matches!(got, Outcome::Journaled));
    assert!(batch.letters.iter().any(|x| x.to == format!("{role}@example.org")));
    let mut again = Batch::default();
    let got = referee.handle(&mut l, &mut again, &mut counts, &own, "bb", &token, now(), &mut report).unwrap();
    assert!(matches!(got, Outcome::Duplicate));
    assert!(again.is_empty());
    assert_eq!(report.duplicates, 1);
}
