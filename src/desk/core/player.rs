//! What a player may ask beyond orders, as judges by mail let them: agree
//! a draw (DRAW, NO DRAW), concede (CONCEDE), have the results of past
//! steps again (HISTORY); and the observers who watch a game's public
//! view (told each step's public results; the moderator's REMOVE
//! OBSERVER). Draws and concessions change the game and are journaled;
//! HISTORY changes nothing.

use super::{letters, state, Batch, GameState, Letter, Referee, Refused};
use crate::engine::Viewer;
use crate::journal::kinds;
use minijinja::context;

impl Referee<'_> {
    /// The roles still playing: every role not conceded or in civil
    /// disorder.
    fn playing(&self, l: &GameState) -> Vec<String> {
        l.game.roles.iter().filter(|r| !l.desk.disorder.contains(r)).cloned().collect()
    }

    fn fact(&self, l: &mut GameState, batch: &mut Batch, action: kinds::Action, args: Vec<String>) {
        let m = kinds::Moderator { action, args };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry(action.as_str(), &m);
    }

    /// DRAW (`agree`) or NO DRAW from `role`: the reply's text. When every
    /// side still playing agrees within one step, the game ends drawn.
    pub fn draw(&self, l: &mut GameState, batch: &mut Batch, role: &str, agree: bool) -> Result<String, Refused> {
        if l.game.ended {
            return Ok("The game is over; there is no draw to agree.".into());
        }
        if !agree {
            if !l.desk.draw.contains(&role.to_string()) {
                return Ok("You had not proposed a draw at this step; nothing changed.".into());
            }
            self.fact(l, batch, kinds::Action::NoDraw, vec![role.to_string()]);
            return Ok("Your agreement to a draw is withdrawn.".into());
        }
        self.fact(l, batch, kinds::Action::Draw, vec![role.to_string()]);
        let playing = self.playing(l);
        let missing: Vec<String> = playing.iter().filter(|r| !l.desk.draw.contains(r)).cloned().collect();
        if missing.is_empty() {
            self.end_game(l, batch, None, &[], "a draw agreed by every side".into())?;
            return Ok("Every side agreed: the game ends drawn.".into());
        }
        Ok(format!(
            "Your agreement to a draw is noted for step {}. The game ends drawn if {} agree{} before the step resolves; otherwise the proposal lapses. NO DRAW withdraws it.",
            l.game.step,
            missing.iter().map(|r| letters::role_label(r)).collect::<Vec<_>>().join(", "),
            if missing.len() == 1 { "s" } else { "" }
        ))
    }

    /// CONCEDE from `role`: in a game of two sides the other side wins; in
    /// a game of more, the conceding side's pieces stay on the board under
    /// the no-moves orders (as in civil disorder) and its partners play on.
    pub fn concede(&self, l: &mut GameState, batch: &mut Batch, role: &str) -> Result<String, Refused> {
        if l.game.ended {
            return Ok("The game is over; there is nothing to concede.".into());
        }
        self.fact(l, batch, kinds::Action::Concede, vec![role.to_string()]);
        let playing = self.playing(l);
        match playing.as_slice() {
            [winner] => {
                let winner = winner.clone();
                self.end_game(l, batch, Some(winner.clone()), &[], format!("{role} conceded"))?;
                Ok(format!("You conceded: {} wins.", letters::role_label(&winner)))
            }
            [] => {
                self.end_game(l, batch, None, &[], format!("{role} conceded, the last side playing"))?;
                Ok("You conceded, the last side playing: the game is over.".into())
            }
            others => Ok(format!(
                "You conceded: your pieces stay where they are under the no-moves orders, and {} play on.",
                others.iter().map(|r| letters::role_label(r)).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// HISTORY: `role`'s own view of the results of steps `from` to `to`
    /// as they were mailed (their events and dice, never more than the
    /// role saw), marked as a copy.
    pub fn history(&self, l: &GameState, role: &str, from: u32, to: u32) -> Result<String, Refused> {
        let viewer = letters::viewer_of(role);
        let mut text = format!(
            "A copy, at your request, of what you were told of steps {from} to {to} of game {} (each step's events and the dice you may see; the maps are in the mails of the time):\n",
            l.game.id
        );
        for r in self.vault.resolved(&l.game.id, from, to)? {
            let undone = l.desk.rollbacks.iter().find(|b| b.voided_steps.contains(&r.step));
            text.push_str(&format!(
                "\n=== step {} ({}){}\n",
                r.step,
                r.step_kind,
                match undone {
                    Some(b) => format!(" — undone by the rollback of {} to step {}", b.at, b.to_step),
                    None => String::new(),
                }
            ));
            for e in letters::visible_events(&r.events, &viewer) {
                text.push_str(&format!("  {e}\n"));
            }
            text.push_str(&letters::dice_block(&l.game.id, r.step, &r.salts, &r.links, &r.draws, &viewer));
        }
        Ok(text)
    }

    /// OBSERVE or STOP OBSERVING from `address`: the reply's text.
    pub fn observe(&self, l: &mut GameState, batch: &mut Batch, address: &str, on: bool) -> String {
        let watching = l.desk.observers.iter().any(|a| a.eq_ignore_ascii_case(address));
        let gid = l.game.id.clone();
        match (on, watching) {
            (true, true) => format!("You already observe game {gid}."),
            (true, false) => {
                self.fact(l, batch, kinds::Action::Observe, vec![address.to_string()]);
                format!(
                    "You now observe game {gid} ({}): after each step you get its public results and map, what any spectator may see. STOP OBSERVING {gid} ends it.",
                    l.desk.title
                )
            }
            (false, true) => {
                self.fact(l, batch, kinds::Action::Unobserve, vec![address.to_string()]);
                format!("You no longer observe game {gid}.")
            }
            (false, false) => format!("You were not observing game {gid}; nothing changed."),
        }
    }

    /// The moderator's REMOVE OBSERVER: the reply's text.
    pub fn remove_observer(&self, l: &mut GameState, batch: &mut Batch, address: &str) -> String {
        if !l.desk.observers.iter().any(|a| a.eq_ignore_ascii_case(address)) {
            return format!("{address} does not observe this game; nothing changed.");
        }
        self.fact(l, batch, kinds::Action::Unobserve, vec![address.to_string()]);
        format!("{address} no longer observes this game.")
    }

    /// Each observer's letter about step `k`: the public events, the
    /// public map and the public dice, never a private one.
    pub(super) fn tell_observers(&self, l: &GameState, batch: &mut Batch, r: &kinds::Resolved) {
        let (k, events, salts, links, draws) = (r.step, &r.events, &r.salts, &r.links, &r.draws);
        if l.desk.observers.is_empty() {
            return;
        }
        let view = l.game.view(&Viewer::Public);
        let mut text =
            format!("Game {} ({}), step {k} resolved. What any spectator may see:\n\n", l.game.id, l.desk.title);
        for e in letters::visible_events(events, &Viewer::Public) {
            text.push_str(&format!("  {e}\n"));
        }
        text.push('\n');
        text.push_str(&letters::view_text(&view));
        text.push_str(&letters::dice_block(&l.game.id, k, salts, links, draws, &Viewer::Public));
        text.push_str(&format!("\nSTOP OBSERVING {} to the game's address ends these mails.\n", l.game.id));
        let svg = self.svg_for(l, &view);
        for to in &l.desk.observers {
            batch.letters.push(Letter {
                role: None,
                to: to.clone(),
                subject: format!("[{}] step {k} resolved (observer)", l.game.id),
                body: letters::fill("reply", context! { text => text.clone() }),
                svg: svg.clone(),
                in_reply_to: None,
            });
        }
    }
}
