//! Steps: opening one (its deadline, its prompts), resolving it (the
//! dice drawn from the committed chains, the results to everyone as they
//! may see them), renewing spent dice chains, ending the game, reminders
//! and civil disorder. Decisions only: entries and letters into a
//! [`Batch`].

use super::{deadlines, letters, secrets, state, Batch, GameState, Letter, Map, Referee, Refused};
use crate::dice::{self, Committed, Declared};
use crate::engine::Viewer;
use crate::journal::kinds;
use chrono::{DateTime, Utc};
use minijinja::context;
use std::collections::BTreeMap;

impl Referee<'_> {
    /// The welcome letter: the players, and the anchor of every dice stream,
    /// which a player needs before any order to check every die later.
    pub fn welcome(&self, l: &GameState, role: &str, email: &str, anchors: &BTreeMap<String, String>) -> Letter {
        let player_list: Vec<String> = l.desk.players.iter().map(|(r, e)| format!("{r} ({e})")).collect();
        let body = letters::fill(
            "welcome",
            context! {
                title => l.desk.title, game => l.game.id, role => if role == "gm" { "moderator" } else { role },
                players => player_list, gm => l.desk.gm, dice => l.desk.dice, chain_len => l.desk.chain_len,
                anchors_block => letters::anchors_block(&l.game.id, l.desk.chain_len, None, anchors),
            },
        );
        Letter {
            role: Some(role.to_string()),
            to: email.to_string(),
            subject: format!("[{}] welcome to {}", l.game.id, l.desk.title),
            body,
            svg: Vec::new(),
            in_reply_to: None,
        }
    }

    /// Every (role, address) that receives a game's mail: players, then the
    /// moderator as "gm".
    pub fn recipients(&self, l: &GameState) -> Vec<(String, String)> {
        // A side adjutant plays is sent no mail.
        let mut v: Vec<(String, String)> = l
            .desk
            .players
            .iter()
            .filter(|(_, e)| *e != super::computer::ADJUTANT)
            .map(|(r, e)| (r.clone(), e.clone()))
            .collect();
        if let Some(gm) = &l.desk.gm {
            v.push(("gm".into(), gm.clone()));
        }
        v
    }

    pub fn address_of(&self, l: &GameState, role: &str) -> Option<String> {
        if role == "gm" {
            l.desk.gm.clone()
        } else {
            l.desk.players.get(role).filter(|e| *e != super::computer::ADJUTANT).cloned()
        }
    }

    /// Set the deadline of a newly opened step (players awaited only), by
    /// the moderator's policy: the step's length or clock time, pushed past
    /// announced absences when the policy extends; resolution waits for the
    /// grace period after it.
    pub fn open_step(&self, l: &mut GameState, batch: &mut Batch, now: DateTime<Utc>) {
        let a = l.game.awaiting();
        let awaited: Vec<&String> = a.prompts.keys().filter(|r| *r != "gm").collect();
        let absences: Vec<(chrono::NaiveDate, chrono::NaiveDate)> = awaited
            .iter()
            .filter_map(|r| l.desk.absences.get(*r))
            .flatten()
            .filter_map(|(f, t)| Some((f.parse().ok()?, t.parse().ok()?)))
            .collect();
        // An open game's clock starts when its last free role is taken.
        let free = l.game.roles.iter().any(|r| !l.desk.players.contains_key(r));
        let at = if awaited.is_empty() || free {
            None
        } else {
            self.cfg.deadlines.deadline(now, &a.kind, l.desk.deadline_secs, &absences)
        };
        let args: Vec<String> =
            at.map(|t| vec![t.to_rfc3339(), (t + self.cfg.deadlines.grace()).to_rfc3339()]).unwrap_or_default();
        if args.first() != l.desk.deadline_at.as_ref() || args.get(1) != l.desk.resolve_at.as_ref() {
            let m = kinds::Moderator { action: kinds::Action::Deadline, args };
            state::apply_moderator(&mut l.desk, &m);
            batch.entry("deadline", &m);
        }
    }

    /// The open step's deadline as `role` reads it (their ZONE, else UTC).
    pub fn deadline_for(&self, l: &GameState, role: &str) -> Option<String> {
        l.desk.deadline_at.as_deref().map(|d| deadlines::show(d, l.desk.zones.get(role).map(String::as_str)))
    }

    /// Prompt letters to every awaited role.
    pub fn prompts(&self, l: &GameState, batch: &mut Batch) {
        let a = l.game.awaiting();
        for (role, p) in &a.prompts {
            let Some(to) = self.address_of(l, role) else {
                continue;
            };
            let viewer = letters::viewer_of(role);
            let view = l.game.view(&viewer);
            let body = letters::fill(
                "prompt",
                context! {
                    title => l.desk.title, step => l.game.step, kind => a.kind, prompt => p.text, syntax => p.syntax,
                    example => a.examples.get(role),
                    deadline => self.deadline_for(l, role), view => letters::view_text(&view),
                },
            );
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject: format!("[{}] step {}: your orders are awaited ({})", l.game.id, l.game.step, a.kind),
                body,
                svg: self.svg_for(l, &view),
                in_reply_to: None,
            });
        }
    }

    /// One SVG per board of the view: the map, then any display.
    pub fn svg_for(&self, l: &GameState, view: &crate::engine::View) -> Vec<Map> {
        view.boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let kind = if i == 0 { "map" } else { "display" };
                Map {
                    name: format!("{kind}-{}-step{}.svg", l.game.id, l.game.step),
                    svg: crate::render::svg::render_board(b, &view.title),
                    picture: crate::render::svg::picture(b),
                }
            })
            .collect()
    }

    /// Resolve the open step (silent roles get the no-moves orders) and
    /// queue the results. Returns false, changing nothing but a notice to the
    /// moderator, when declared dice are missing.
    pub fn resolve_step(&self, l: &mut GameState, batch: &mut Batch, now: DateTime<Utc>) -> Result<bool, Refused> {
        let k = l.game.step;
        let mut next = l.game.clone();
        let mut links = BTreeMap::new();
        let (res, draws) = if l.desk.dice == dice::Mode::Declared {
            let mut d = Declared::new(l.desk.declared.clone());
            let res = next.resolve(&mut d).map_err(Refused)?;
            if !d.missing.is_empty() {
                // Ask the moderator once a step, not at every pass.
                let gm = l.desk.gm.clone().filter(|_| l.desk.asked != k);
                if gm.is_some() {
                    let m = kinds::Moderator { action: kinds::Action::Asked, args: vec![k.to_string()] };
                    state::apply_moderator(&mut l.desk, &m);
                    batch.entry("asked", &m);
                }
                if let Some(gm) = gm {
                    batch.letters.push(Letter {
                        role: Some("gm".into()),
                        to: gm,
                        subject: format!("[{}] step {k}: dice to declare", l.game.id),
                        body: letters::fill(
                            "reply",
                            context! { text => format!(
                            "Step {k} cannot resolve until you declare these dice (DECLARE <label> <value>):\n{}\n",
                            d.missing.iter().map(|m| format!("  {m}")).collect::<Vec<_>>().join("\n")) },
                        ),
                        svg: Vec::new(),
                        in_reply_to: None,
                    });
                }
                return Ok(false);
            }
            (res, d.draws().to_vec())
        } else {
            let secrets = self.vault.secrets(&l.game.id)?;
            let salts = l.game.salts_for_seed();
            let mut seeds = BTreeMap::new();
            // A link is published only if it hashes back to the anchor the
            // journal committed for its chain: a changed secrets.toml is
            // refused here, before players are sent links that do not verify.
            let base = secrets::chain_base(l.desk.chain_len, k);
            let anchors = if base == 0 {
                self.vault.anchors(&l.game.id)?
            } else {
                l.desk.renewed.iter().find(|r| r.0 == base).map(|r| r.1.clone()).ok_or_else(|| {
                    Refused(format!("game {}: no renewed dice chain was committed for step {k}", l.game.id))
                })?
            };
            for stream in secrets.tops.keys() {
                let link = secrets.step_link(stream, l.desk.chain_len, k).ok_or_else(|| {
                    Refused(format!("secrets of {}: no chain of stream {stream} for step {k}", l.game.id))
                })?;
                if anchors.get(stream).and_then(|a| dice::from_hex(a)) != Some(dice::link_at(&link, k - base, 0)) {
                    return Err(Refused(format!(
                        "the dice chain of stream {stream} in the secrets.toml of game {} does not hash back to the anchor the journal committed: the file was changed or replaced; nothing is published. Restore it from a backup",
                        l.game.id
                    )));
                }
                links.insert(stream.clone(), dice::to_hex(&link));
                seeds.insert(stream.clone(), dice::seed(&l.game.id, k, stream, &link, &salts));
            }
            let mut c = Committed::new(seeds);
            let res = next.resolve(&mut c).map_err(Refused)?;
            if !c.unknown.is_empty() {
                return Err(Refused(format!("ruleset drew from unknown streams {:?}", c.unknown)));
            }
            (res, c.into_draws())
        };
        use crate::dice::Dice as _;
        let resolved = kinds::Resolved {
            step: k,
            step_kind: res.kind.clone(),
            orders: res.orders.clone(),
            defaulted: res.defaulted.clone(),
            salts: res.salts.clone(),
            links: links.clone(),
            draws: draws.clone(),
            events: res.events.clone(),
            digest: next.digest(),
        };
        batch.entry("resolved", &resolved);
        state::count_missed(&mut l.desk, &resolved);
        self.civil_disorder(l, batch, &resolved.defaulted);
        l.game = next;
        l.desk.declared.clear();
        // A draw is agreed within one step: a proposal lapses with it.
        l.desk.draw.clear();
        self.open_step(l, batch, now);
        let a = l.game.awaiting();
        let waiting: Vec<String> = a.prompts.keys().map(|r| letters::role_label(r)).collect();
        for (role, to) in self.recipients(l) {
            let viewer = letters::viewer_of(&role);
            let view = l.game.view(&viewer);
            let prompt = a.prompts.get(&role);
            let body = letters::fill(
                "results",
                context! {
                    title => l.desk.title, step => k, kind => res.kind,
                    // A sealed step's defaults are each role's own business.
                    defaulted => if l.game.rules.sealed(&res.kind) {
                        res.defaulted.iter().filter(|d| *d == &role || role == "gm").cloned().collect::<Vec<_>>().join(", ")
                    } else {
                        res.defaulted.join(", ")
                    },
                    events => letters::visible_events(&res.events, &viewer),
                    awaited => prompt.is_some(), next_step => l.game.step, next_kind => a.kind,
                    prompt => prompt.map(|p| p.text.clone()), syntax => prompt.map(|p| p.syntax.clone()).unwrap_or_default(),
                    example => a.examples.get(&role),
                    deadline => self.deadline_for(l, &role), waiting => waiting.join(", "),
                    view => letters::view_text(&view),
                    dice_block => letters::dice_block(&l.game.id, k, &res.salts, &links, &draws, &viewer),
                },
            );
            let subject = if prompt.is_some() {
                format!("[{}] step {}: your orders are awaited ({}); step {k} resolved", l.game.id, l.game.step, a.kind)
            } else if waiting.is_empty() {
                format!("[{}] step {k} resolved", l.game.id)
            } else {
                format!("[{}] step {k} resolved; waiting for {}", l.game.id, waiting.join(", "))
            };
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject,
                body,
                svg: self.svg_for(l, &view),
                in_reply_to: None,
            });
        }
        self.tell_observers(l, batch, &resolved);
        if let Some(o) = l.game.outcome() {
            self.end_game(l, batch, o.winner.clone(), &o.also, o.reason.clone())?;
        } else if l.desk.dice == dice::Mode::Committed && k.is_multiple_of(l.desk.chain_len.max(1)) {
            self.renew_chains(l, batch, k)?;
        }
        Ok(true)
    }

    /// Step `k` used the last link of the chains: commit fresh ones for the
    /// steps after it (docs/dice-v1.md, Commitment), before any order for step `k + 1` can
    /// be accepted. The new tops go into the batch's secrets, which the
    /// shell writes (fsynced) before its entries; the anchors go into the
    /// journal with this step and out to every player and the moderator.
    /// Tops come from the vault: the OS's randomness, as at creation.
    pub fn renew_chains(&self, l: &mut GameState, batch: &mut Batch, k: u32) -> Result<(), Refused> {
        let len = l.desk.chain_len;
        let mut secrets = self.vault.secrets(&l.game.id)?;
        let tops: BTreeMap<String, dice::Link> = secrets.tops.keys().map(|s| (s.clone(), self.vault.fresh())).collect();
        secrets.renew(k, &tops, len);
        batch.secrets = Some(secrets);
        let anchors: BTreeMap<String, String> =
            tops.iter().map(|(s, t)| (s.clone(), dice::to_hex(&dice::anchor(t, len)))).collect();
        batch.entry("renewed", &kinds::Renewed { base: k, chain_len: len, anchors: anchors.clone() });
        l.desk.renewed.retain(|r| r.0 != k);
        l.desk.renewed.push((k, anchors.clone()));
        let body = letters::fill(
            "renewed",
            context! { first => k + 1 - len, base => k, anchors_block => letters::anchors_block(&l.game.id, len, Some(k), &anchors) },
        );
        for (role, to) in self.recipients(l) {
            batch.letters.push(Letter {
                role: Some(role),
                to,
                subject: format!("[{}] new dice anchors from step {}", l.game.id, k + 1),
                body: body.clone(),
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
        Ok(())
    }

    /// End the game: journal it and reveal every link used to everyone.
    pub fn end_game(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        winner: Option<String>,
        also: &[String],
        reason: String,
    ) -> Result<(), Refused> {
        l.game.ended = true;
        batch.entry("ended", &kinds::Ended { reason: reason.clone(), winner: winner.clone(), also: also.to_vec() });
        let secrets = self.vault.secrets(&l.game.id)?;
        let used = l.game.step.saturating_sub(1);
        let all = secrets::links_upto(&secrets, l.desk.chain_len, used);
        let mut block =
            format!("-----BEGIN ADJUTANT REVEAL-----\nscheme: dice-v1\ngame: {}\nsteps: {used}\n", l.game.id);
        for (stream, ls) in &all {
            for (i, h) in ls.iter().enumerate() {
                block.push_str(&format!("link {stream} {}: {h}\n", i + 1));
            }
        }
        block.push_str("-----END ADJUTANT REVEAL-----\n");
        let result = match &winner {
            Some(w) if also.is_empty() => format!("Winner: {w} ({reason})."),
            Some(w) => format!("Winners: {w}, {} ({reason}).", also.join(", ")),
            None => format!("No winner ({reason})."),
        };
        // Observers see the end as the players do: the public view.
        let watching = l.desk.observers.iter().map(|a| (String::new(), a.clone()));
        for (role, to) in self.recipients(l).into_iter().chain(watching) {
            let view = l.game.view(&Viewer::Public);
            let body = letters::fill(
                "gameover",
                context! { title => l.desk.title, result => result, dice_block => block, view => letters::view_text(&view) },
            );
            batch.letters.push(Letter {
                role: Some(role).filter(|r| !r.is_empty()),
                to,
                subject: format!("[{}] game over", l.game.id),
                body,
                svg: self.svg_for(l, &view),
                in_reply_to: None,
            });
        }
        Ok(())
    }

    /// Reminders before the deadline, only to awaited roles whose orders
    /// are not in (and not in civil disorder).
    pub fn remind(&self, l: &mut GameState, batch: &mut Batch) {
        let a = l.game.awaiting();
        for (role, p) in &a.prompts {
            if l.game.orders.contains_key(role) || l.desk.disorder.contains(role) {
                continue;
            }
            let Some(to) = self.address_of(l, role) else { continue };
            let body = letters::fill(
                "reminder",
                context! { game => l.game.id, step => l.game.step, deadline => self.deadline_for(l, role), prompt => p.text },
            );
            batch.letters.push(Letter {
                role: Some(role.clone()),
                to,
                subject: format!(
                    "[{}] step {}: reminder, your orders are awaited ({})",
                    l.game.id, l.game.step, a.kind
                ),
                body,
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
        let m = kinds::Moderator { action: kinds::Action::Reminded, args: vec![l.game.step.to_string()] };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry("reminded", &m);
    }

    /// After a step a role missed: past the policy's count in a row, the
    /// role is put in civil disorder (the no-moves rule plays for it) and
    /// the moderator is asked for a replacement; or, under `missed =
    /// "adjutant"`, adjutant plays it.
    pub fn civil_disorder(&self, l: &mut GameState, batch: &mut Batch, defaulted: &[String]) {
        let limit = self.cfg.deadlines.missed_for_disorder;
        for role in defaulted {
            let n = l.desk.missed.get(role).copied().unwrap_or(0);
            if limit == 0 || n < limit || l.desk.disorder.contains(role) || role == "gm" {
                continue;
            }
            if self.cfg.deadlines.missed == "adjutant" && super::computer::can_play(&l.game, role) {
                self.hand_to_adjutant(l, batch, role, n);
                continue;
            }
            let m = kinds::Moderator { action: kinds::Action::Disorder, args: vec![role.clone()] };
            state::apply_moderator(&mut l.desk, &m);
            batch.entry("disorder", &m);
            let text = format!(
                "{role} has missed {n} steps in a row and is now in civil disorder: the no-moves rule plays for it until the moderator sends REPLACE {role} <email>."
            );
            for (r, to) in self.recipients(l) {
                if r == "gm" || r == *role {
                    batch.letters.push(Letter {
                        role: Some(r.clone()),
                        to,
                        subject: format!("[{}] {role} is in civil disorder", l.game.id),
                        body: letters::fill("reply", context! { text => text.clone() }),
                        svg: Vec::new(),
                        in_reply_to: None,
                    });
                }
            }
        }
    }

    /// Accept a held game's journal as it is: a `reanchored` entry, and a
    /// letter to every player and the moderator saying so, and how to
    /// check that nothing they were shown was cut. The commit that journals
    /// it writes the game's tip afresh. `end` is the journal's last entry
    /// and its hash.
    pub fn reanchor(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        end: (u64, &str),
        found: &str,
        reason: &str,
        by: &str,
    ) {
        let (seq, hash) = (end.0, end.1.to_string());
        batch.entry(
            "reanchored",
            &kinds::Reanchored {
                entry: seq,
                entry_hash: hash.clone(),
                found: found.to_string(),
                reason: reason.to_string(),
                by: by.to_string(),
            },
        );
        let who = if by == "gm" { "The moderator" } else { "The operator" };
        let text = format!(
            "adjutant keeps a record of where this game's journal ends, apart from the journal. That record did not vouch for the journal:\n  {found}\n\n{who} has accepted the journal as it is, ending at entry {seq} ({}…), and the game goes on from there.\nReason given: {reason}\n\nEvery mail adjutant sends you names the journal's last entry in its JOURNAL block. If a mail you hold names an entry after {seq}, or entry {seq} with another hash, the journal was cut or changed; this checks it:\n  adjutant verify --journal <the journal the moderator publishes> <your mail folder>\n",
            &hash[..16]
        );
        let body = letters::fill("reply", context! { text => text });
        for (role, to) in self.recipients(l) {
            batch.letters.push(Letter {
                role: Some(role),
                to,
                subject: format!("[{}] the game's journal was re-anchored at entry {seq}", l.game.id),
                body: body.clone(),
                svg: Vec::new(),
                in_reply_to: None,
            });
        }
    }
}
