//! Creating a game: its dice committed before any order exists (the
//! secrets written, the anchors journaled and mailed), its tip file from
//! before its first entry, its welcome mails and first prompts.

use super::core::{computer, Batch, DeskState, GameState};
use super::{archive, io, seen, store, Desk, Error, Loaded, NewGame};
use crate::dice;
use crate::engine::Game;
use crate::journal::{kinds, Journal};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::fs;
use tracing::info;

impl Desk {
    /// Create a game: journal, secrets, snapshot, welcome mails and the
    /// first prompts. `entropy` gives 32 fresh random bytes a call (the OS
    /// RNG in production, a fixed source in tests).
    pub fn create(
        &self,
        req: &NewGame,
        now: DateTime<Utc>,
        entropy: &mut dyn FnMut() -> [u8; 32],
    ) -> Result<String, Error> {
        let _lock = self.lock()?;
        let rules = crate::rules::find(&req.ruleset).ok_or_else(|| {
            let names: Vec<&str> = crate::rules::ALL.iter().map(|r| r.info().name).collect();
            Error::Bad(format!("unknown ruleset {:?}; known: {}", req.ruleset, names.join(", ")))
        })?;
        let info = rules.info();
        let scenario = req.scenario.clone().unwrap_or_else(|| info.scenarios[0].name.clone());
        let id = match &req.id {
            Some(id) if store::valid_id(id) => id.clone(),
            Some(id) => {
                return Err(Error::Bad(format!("game id {id:?} must be 1-40 lowercase letters, digits or '-'")))
            }
            None => format!("{}-{}", info.name, &hex::encode(entropy())[..6]),
        };
        let dir = store::game_dir(&self.data, &id);
        if dir.exists() {
            return Err(Error::Bad(format!("game {id} already exists")));
        }
        if info.moderated && req.gm.is_none() {
            return Err(Error::Bad(format!(
                "{} needs a moderator, who reports what happens on the table: give --gm EMAIL",
                info.name
            )));
        }
        if req.approve && (req.gm.is_none() || !req.open) {
            return Err(Error::Bad(
                "--approve is for an --open game with a moderator (--gm), who approves each JOIN".into(),
            ));
        }
        let mode = match req.dice.as_str() {
            "committed" => dice::Mode::Committed,
            "declared" => dice::Mode::Declared,
            other => return Err(Error::Bad(format!("dice mode {other:?}: use committed or declared"))),
        };
        if let Some(d) = &req.deadline {
            if store::parse_duration(d).is_none() {
                return Err(Error::Bad(format!("deadline {d:?}: write a length such as 72h, 3d or 90m")));
            }
        }
        let game = Game::new(&id, rules, &scenario).map_err(Error::Bad)?;
        let mut players = BTreeMap::new();
        for (role, email) in &req.players {
            if !game.roles.contains(role) {
                return Err(Error::Bad(format!(
                    "{role:?} is not a role of {} {scenario}; roles: {}",
                    info.name,
                    game.roles.join(", ")
                )));
            }
            if email.eq_ignore_ascii_case(computer::ADJUTANT) {
                if !computer::can_play(&game, role) {
                    return Err(Error::Bad(format!("{} has no computer player for {role}", info.title)));
                }
                players.insert(role.clone(), computer::ADJUTANT.to_string());
                continue;
            }
            if email.parse::<lettre::Address>().is_err() {
                return Err(Error::Bad(format!(
                    "{email:?} is not an e-mail address (for {role}); adjutant plays a side given as {role}=adjutant"
                )));
            }
            players.insert(role.clone(), email.clone());
        }
        if let Some(gm) = &req.gm {
            if gm.parse::<lettre::Address>().is_err() {
                return Err(Error::Bad(format!("{gm:?} is not an e-mail address (for --gm)")));
            }
        }
        for r in &game.roles {
            if !players.contains_key(r) && !req.open {
                return Err(Error::Bad(format!(
                    "no player for role {r}: add --player {r}=EMAIL, or --open to let players JOIN by mail"
                )));
            }
        }
        fs::create_dir_all(&dir).map_err(io("create", &dir))?;
        // The files a game appends to all its life are made with it, not by
        // its first mail in the middle of a pass.
        for f in [archive::MBOX, archive::INDEX, seen::FILE] {
            fs::File::create(dir.join(f)).map_err(io("create", &dir.join(f)))?;
        }
        // Commit to every stream before any order exists (dice-v1 step 1).
        let mut secrets = store::Secrets::default();
        let mut anchors = BTreeMap::new();
        let chain_len = self.cfg.limits.chain_length.max(2);
        for s in dice::stream_names(&game.roles) {
            let top = entropy();
            anchors.insert(s.clone(), dice::to_hex(&dice::anchor(&top, chain_len)));
            secrets.add_chain(&s, &top, chain_len);
        }
        for r in game.roles.iter().chain(std::iter::once(&"gm".to_string())) {
            secrets.tokens.insert(r.clone(), self.token(&id, r));
        }
        store::write_secrets(&dir, &secrets)?;
        let created = kinds::Created {
            game: id.clone(),
            ruleset: info.name.to_string(),
            scenario: scenario.clone(),
            roles: game.roles.clone(),
            players: players.clone(),
            gm: req.gm.clone(),
            dice: mode,
            chain_len,
            anchors: anchors.clone(),
            deadline: req.deadline.clone(),
            patch: None,
            replace: None,
            digest: game.digest(),
            tip_kept: true,
            approve: req.approve,
        };
        store::write_tip(&self.data, &id, &store::Tip::before_first_entry())?;
        let mut journal = Journal::open(&dir.join("journal.toml"))?;
        journal.append(&now.to_rfc3339(), &[("created", &created)])?;
        let mut loaded = Loaded {
            dir: dir.clone(),
            state: GameState {
                game,
                desk: DeskState {
                    title: info.title.to_string(),
                    players,
                    gm: req.gm.clone(),
                    dice: mode,
                    chain_len,
                    deadline_secs: req.deadline.as_deref().and_then(store::parse_duration),
                    approve: req.approve,
                    ..DeskState::default()
                },
                seen: seen::Seen::default(),
            },
            archive: Default::default(),
            journal,
            saved: None,
        };
        let mut batch = Batch::default();
        let referee = self.referee();
        for (role, email) in referee.recipients(&loaded) {
            batch.letters.push(referee.welcome(&loaded, &role, &email, &anchors));
        }
        referee.open_step(&mut loaded, &mut batch, now);
        referee.prompts(&loaded, &mut batch);
        referee.adjutant_turns(&mut loaded.state, &mut batch, now).map_err(|e| Error::Bad(e.0))?;
        self.commit(&mut loaded, batch, now)?;
        info!(game = %id, ruleset = info.name, "game created");
        Ok(id)
    }
}
