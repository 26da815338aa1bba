//! One mail, decided: where it goes (which game, or a refusal, or nothing
//! for automatic mail), whether its game has seen it, whether its sender
//! may speak for the role its reply token names, and then its orders and
//! commands, all or nothing, with the replies a flood of mail does not
//! multiply. Decisions into a [`Batch`]; the shell loads the game before
//! and archives the mail after.

use super::hourly::{Counts, Quota};
use super::orders::replied_step;
use super::orders::{
    clip, clipped, command, credential, problem, re, step_of_id, stops_reading, unlisted, Command, LONGEST_LINE,
    MODERATOR_WORDS, PLAYER_WORDS,
};
use super::{letters, seen, state, Batch, GameState, Letter, Loose, Map, PassReport, Referee, Refused};
use crate::engine::LineError;
use crate::journal::kinds;
use crate::mail::{parse, same_address, split_address};
use crate::rules::shared::names;
use chrono::{DateTime, Utc};
use minijinja::context;

/// Whether game `l` has handled this mail before: the same bytes, or the
/// same Message-ID from the same sender come by another path (one more
/// Received: line). Counted as a duplicate.
pub(super) fn seen_before(l: &GameState, inb: &parse::Inbound, sha: &str, report: &mut PassReport) -> bool {
    let from = inb.from.as_deref().unwrap_or_default();
    let again = seen::keys(sha, inb.message_id.as_deref().unwrap_or(""), from).iter().any(|k| l.seen.contains(k));
    report.duplicates += usize::from(again);
    again
}

/// The id a mail is journaled under: its Message-ID, else its digest's.
pub(super) fn mail_id(inb: &parse::Inbound, sha: &str) -> String {
    inb.message_id.clone().unwrap_or_else(|| format!("sha256-{}", &sha[..16]))
}

/// Where a mail goes, decided before any game is loaded.
pub enum Placed {
    /// Not to be answered (automatic mail, mail from the game's own
    /// address): dropped, with why.
    Drop(String),
    /// It names no game that can take it: refused, with why.
    Refuse(String),
    /// For game `gid`, with the reply token it carried.
    Game { gid: String, token: String },
    /// A command to the game's plain address (LIST, JOIN, OBSERVE).
    Lobby(super::lobby::Lobby),
}

/// What became of a mail its game was loaded for.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The game has handled this mail before (the same bytes, or the same
    /// Message-ID from the same sender): nothing done.
    Duplicate,
    /// Journaled (accepted, rejected or refused): the shell archives it.
    Journaled,
}

impl Referee<'_> {
    /// Where `inb` (a mail of `size` bytes) goes. A mail without a
    /// Message-ID is given one from its bytes' digest `sha` first, so the
    /// replies to it can be told apart and counted like any other.
    pub fn place(&self, inb: &mut parse::Inbound, size: usize, sha: &str) -> Placed {
        if inb.message_id.is_none() {
            inb.message_id = Some(format!("sha256-{}@adjutant.invalid", &sha[..16]));
        }
        if let Some(why) = &inb.automatic {
            return Placed::Drop(format!("automatic message ({why})"));
        }
        let from = inb.from.clone().unwrap_or_default();
        // Mail from the game's own address (a reply to ourselves, a bounce
        // loop through a forwarder) is never answered.
        if split_address(&from)
            .zip(split_address(&self.cfg.game.address))
            .is_some_and(|(a, b)| a.0.eq_ignore_ascii_case(&b.0) && a.2 == b.2)
        {
            return Placed::Drop(format!("mail from the game's own address {from}"));
        }
        if size > self.cfg.limits.max_message_bytes {
            return Placed::Refuse(format!(
                "the message is {size} bytes; the limit is {}",
                self.cfg.limits.max_message_bytes
            ));
        }
        match (credential(inb), super::lobby::command(inb)) {
            (Some((gid, token)), _) => Placed::Game { gid, token },
            (None, Some(c)) => Placed::Lobby(c),
            (None, None) => Placed::Refuse(
                "it does not say which game it is for (no reply token in the address and no REF line; at this address LIST, JOIN <game>, OBSERVE <game> are read)".into(),
            ),
        }
    }

    /// A refusal of a mail no game can take, once for the mail's digest
    /// `sha`, within its sender's hourly allowance of refusals (a loop with
    /// another robot dies out).
    pub fn refusal(
        &self,
        counts: &mut Counts,
        inb: &parse::Inbound,
        why: &str,
        sha: &str,
        now: DateTime<Utc>,
    ) -> Option<Loose> {
        let from = inb.from.clone().unwrap_or_default();
        if from.is_empty() || from.parse::<lettre::Address>().is_err() || !self.may_reply(counts, &from, now) {
            return None;
        }
        let letter = Letter {
            role: None,
            to: from,
            subject: re(&inb.subject),
            body: letters::fill("refusal", context! { reason => why }),
            svg: Vec::new(),
            in_reply_to: inb.message_id.clone(),
        };
        Some(Loose { letter, key: sha.to_string() })
    }

    pub(super) fn may_reply(&self, counts: &mut Counts, from: &str, now: DateTime<Utc>) -> bool {
        counts.refusals.count(from, now.timestamp(), self.cfg.limits.refusals_per_hour) == Quota::Within
    }

    /// A mail for the game `l`, placed with `token`, whose bytes' digest is
    /// `sha`: the same mail again changes nothing; a sender who may not
    /// speak for the role the token names is refused (journaled, and
    /// answered within the hourly allowance); anything else is read as the
    /// role's submission.
    #[allow(clippy::too_many_arguments)]
    pub fn handle(
        &self,
        l: &mut GameState,
        batch: &mut Batch,
        counts: &mut Counts,
        inb: &parse::Inbound,
        sha: &str,
        token: &str,
        now: DateTime<Utc>,
        report: &mut PassReport,
    ) -> Result<Outcome, Refused> {
        let from = inb.from.clone().unwrap_or_default();
        let gid = l.game.id.clone();
        if seen_before(l, inb, sha, report) {
            return Ok(Outcome::Duplicate);
        }
        let mut roles: Vec<String> = l.game.roles.clone();
        roles.push("gm".into());
        let role =
            roles.into_iter().find(|r| self.token_at(&gid, r, l.desk.epochs.get(r).copied().unwrap_or(0)) == token);
        let mid = mail_id(inb, sha);
        let mut received = kinds::Received {
            message_id: mid.clone(),
            from: from.clone(),
            sha256: sha.to_string(),
            role: role.clone(),
            step: l.game.step,
            verdict: "refused".into(),
        };
        let refusal = match &role {
            None => Some("its reply token does not belong to this game".to_string()),
            Some(r) => match self.address_of(l, r) {
                Some(reg) if same_address(&reg, &from) => None,
                Some(_) => Some(format!("it was not sent from the address registered for {r}")),
                None => Some(format!("{r} has no registered address")),
            },
        };
        let refused = refusal.is_some();
        for k in seen::recorded(sha, &mid, &from, refused) {
            l.seen.insert(&k);
        }
        if let Some(why) = refusal {
            report.refused += 1;
            batch.entry("received", &received);
            if self.may_reply(counts, &from, now) {
                batch.letters.push(Letter {
                    role: None,
                    to: from.clone(),
                    subject: re(&inb.subject),
                    body: letters::fill("refusal", context! { reason => why }),
                    svg: Vec::new(),
                    in_reply_to: inb.message_id.clone(),
                });
            }
            return Ok(Outcome::Journaled);
        }
        let role = role.expect("identified");
        let before = batch.letters.len();
        self.submission(l, &role, inb, &mut received, batch, now, report)?;
        // A flood of mail from a player is handled, but not answered past
        // the hourly limit: one notice, then silence until the hour is over.
        let to_sender = |x: &Letter| x.in_reply_to.is_some() && x.in_reply_to == inb.message_id;
        if batch.letters[before..].iter().any(to_sender) {
            match counts.replies.count(&from, now.timestamp(), self.cfg.limits.replies_per_hour) {
                Quota::Within => {}
                Quota::JustOver => {
                    let mut kept: Vec<Letter> = batch.letters.drain(before..).filter(|x| !to_sender(x)).collect();
                    let text = format!(
                        "You have had {} replies from this game in the last hour. Your mail is still read, and orders that are accepted count, but there will be no more replies to you (not even to say an order was refused) until the hour is over. Send STATUS then to see what was accepted.",
                        self.cfg.limits.replies_per_hour
                    );
                    kept.push(Letter {
                        role: Some(role.clone()),
                        to: from.clone(),
                        subject: format!("[{gid}] too many replies this hour"),
                        body: letters::fill("reply", context! { text => text }),
                        svg: Vec::new(),
                        in_reply_to: inb.message_id.clone(),
                    });
                    batch.letters.extend(kept);
                }
                Quota::Over => {
                    let kept: Vec<Letter> = batch.letters.drain(before..).filter(|x| !to_sender(x)).collect();
                    batch.letters.extend(kept);
                }
            }
        }
        Ok(Outcome::Journaled)
    }

    #[allow(clippy::too_many_arguments)]
    fn submission(
        &self,
        l: &mut GameState,
        role: &str,
        inb: &parse::Inbound,
        received: &mut kinds::Received,
        batch: &mut Batch,
        now: DateTime<Utc>,
        report: &mut PassReport,
    ) -> Result<(), Refused> {
        let to = self.address_of(l, role).unwrap_or_default();
        let reply = |subject: String, body: String, svg: Vec<Map>| Letter {
            role: Some(role.to_string()),
            to: to.clone(),
            subject,
            body,
            svg,
            in_reply_to: inb.message_id.clone(),
        };
        let gid = l.game.id.clone();
        let step = l.game.step;
        let mut commands = Vec::new();
        let mut orders = Vec::new();
        let mut errors = Vec::new();
        // Free text: neither a command nor anything like an order.
        let mut ignored: Vec<(usize, String)> = Vec::new();
        let vocabulary = l.game.vocabulary(role);
        let mut verbs = vocabulary.verbs.clone();
        verbs.extend(PLAYER_WORDS.iter().map(|w| w.to_string()));
        if role == "gm" {
            verbs.extend(MODERATOR_WORDS.iter().map(|w| w.to_string()));
        }
        let limits = &self.cfg.limits;
        // A submission past the limit is refused unread: reading it is
        // what a flood would cost.
        // Lines after a stop line (END) are not read, so not counted.
        let own = inb.lines.iter().position(|(_, t)| stops_reading(role, &unlisted(t))).unwrap_or(inb.lines.len());
        let lines: &[(usize, String)] = if own > limits.max_lines {
            errors.push(problem(
                0,
                "",
                format!("the message has {own} lines of its own; at most {} are read", limits.max_lines),
                Some("send fewer lines, or split them over several messages"),
            ));
            &[]
        } else {
            &inb.lines
        };
        for (n, text) in lines {
            // "1. PASS", "- MOVE …", "• SALT x": a list the player made.
            let text = &unlisted(text);
            if text.split_whitespace().next().map(|w| w.eq_ignore_ascii_case("REF")).unwrap_or(false) {
                continue;
            }
            if stops_reading(role, text) {
                break;
            }
            // A line longer than any order is judged by its start alone:
            // refused if it starts like an order or a command, else free
            // text (a pasted document, an attachment a client showed as
            // text), quoted back clipped.
            let chars = text.chars().count();
            if chars > LONGEST_LINE {
                let start = clip(text);
                let word = start.split_whitespace().next().unwrap_or("").to_uppercase();
                let like_order = PLAYER_WORDS.contains(&word.as_str())
                    || MODERATOR_WORDS.contains(&word.as_str())
                    || names::order_attempt(&start, &verbs, &vocabulary.names);
                if like_order {
                    errors.push(problem(
                        *n,
                        text,
                        format!(
                            "the line is {chars} characters long; no order or command is longer than {LONGEST_LINE}"
                        ),
                        Some("one order a line; a long PRESS goes in several PRESS lines"),
                    ));
                } else {
                    ignored.push((*n, start));
                }
                continue;
            }
            match command(l, role, *n, text) {
                Some(Ok(Command::Press { text: t, .. })) if t.chars().count() > limits.max_press_chars => {
                    errors.push(problem(
                        *n,
                        &text.chars().take(60).collect::<String>(),
                        format!(
                            "a PRESS message is at most {} characters; this one has {}",
                            limits.max_press_chars,
                            t.chars().count()
                        ),
                        Some("shorten it, or send it in several PRESS lines"),
                    ))
                }
                Some(Ok(c)) => commands.push(c),
                Some(Err(e)) => errors.push(e),
                None if names::order_attempt(text, &verbs, &vocabulary.names) => orders.push((*n, text.clone())),
                None => ignored.push((*n, text.clone())),
            }
        }
        // Quoted back, but a page of prose does not make a page of reply.
        let more = ignored.len().saturating_sub(20);
        let mut ignored: Vec<String> =
            ignored.into_iter().take(20).map(|(n, t)| format!("line {n}: \"{}\"", clip(&t))).collect();
        if more > 0 {
            ignored.push(format!("and {more} more lines"));
        }
        // One answer per kind of question a message, and a bound on press:
        // a message cannot make the desk write a thousand replies.
        let mut asked = Vec::new();
        commands.retain(|c| match c {
            Command::Help | Command::Status | Command::View => {
                let k = std::mem::discriminant(c);
                let first = !asked.contains(&k);
                asked.push(k);
                first
            }
            _ => true,
        });
        if commands.iter().filter(|c| matches!(c, Command::Press { .. })).count() > 3 {
            errors.push(problem(
                0,
                "",
                "at most three PRESS lines a message",
                Some("send the rest in another message"),
            ));
        }
        let nothing_read = commands.is_empty() && orders.is_empty() && errors.is_empty();
        if nothing_read {
            errors.push(problem(
                0,
                "",
                if inb.no_text {
                    "the message has no text part to read orders from"
                } else {
                    "no order or command was found in your message"
                },
                Some("write one order per line, in the text of your reply (above or below the quote); HELP lists them"),
            ));
        }
        // What the reader found and left out, when nothing was read.
        let found: Vec<String> = if nothing_read { letters::skipped(&inb.skipped) } else { Vec::new() };
        // A reply to an old prompt names its step in the subject
        // ("Re: [game] step 3: ...") or in the Message-ID it answers
        // (`<game>.<seq>.<n>.s3@…`): orders for a step already resolved
        // must not be applied to the next one.
        let answered = inb.replies_to.iter().find_map(|id| step_of_id(id, &l.game.id));
        if let Some(k) = answered.or_else(|| replied_step(&inb.subject, &l.game.id)) {
            if k < l.game.step && !orders.is_empty() {
                errors.push(problem(
                    orders[0].0,
                    &orders[0].1,
                    format!(
                        "this replies to step {k}, which has already been resolved; the game is now at step {}",
                        l.game.step
                    ),
                    Some("reply to the latest prompt (or send STATUS to see what is awaited)"),
                ));
                orders.clear();
            }
        }
        if l.game.ended && !orders.is_empty() {
            errors.push(problem(orders[0].0, &orders[0].1, "the game is over; no more orders are taken", None));
            orders.clear();
        }
        if l.game.ended && commands.iter().any(|c| matches!(c, Command::Salt(_))) {
            // A salt only matters for a step still to resolve: none is left.
            errors.push(problem(0, "SALT", "the game is over; no salt is taken", None));
        }
        let mut canon = None;
        // The moderator's lines go to the ruleset when the open step awaits
        // the moderator (Leaguer's table-top reports); otherwise only the
        // desk's moderator commands are known.
        let gm_orders = role == "gm" && l.game.may_send("gm");
        if !orders.is_empty() && errors.is_empty() {
            if role == "gm" && !gm_orders {
                for (n, t) in &orders {
                    errors.push(problem(*n, t, "not a moderator command", Some("EXTEND <dur>, PAUSE, RESUME, REPLACE <role> <email>, RESOLVE NOW, END [<winner> <reason>], DECLARE <label> <value>, ROLLBACK <step> <reason>")));
                }
            } else {
                match l.game.check(role, &orders) {
                    Ok(c) => canon = Some(c),
                    Err(es) => errors.extend(es),
                }
            }
        } else if !orders.is_empty() && (role != "gm" || gm_orders) {
            // Report order problems too, so one reply lists every bad line.
            if let Err(es) = l.game.check(role, &orders) {
                errors.extend(es);
            }
        }
        // The step's syntax, told in a refusal and in HELP: its prompts are
        // only spelled out for those (most mails are neither).
        let syntax = if !errors.is_empty() || commands.iter().any(|c| matches!(c, Command::Help)) {
            let a = l.game.awaiting();
            a.prompts.get(role).or_else(|| a.optional.get(role)).map(|p| p.syntax.clone()).unwrap_or_default()
        } else {
            Vec::new()
        };
        if !errors.is_empty() {
            errors.sort_by_key(|e| e.line);
            if errors.len() > limits.max_errors {
                let more = errors.len() - limits.max_errors;
                errors.truncate(limits.max_errors);
                errors.push(problem(0, "", format!("and {more} more problems, not listed"), None));
            }
            let errors: Vec<LineError> = errors.into_iter().map(clipped).collect();
            report.rejected += 1;
            received.verdict = "rejected".into();
            batch.entry("received", received);
            batch.entry("rejected", &kinds::Rejected { step, role: role.to_string(), errors: errors.clone() });
            let body = letters::fill(
                "rejection",
                context! {
                    game => gid, step => step, errors => errors, syntax => syntax, ignored => ignored, found => found,
                    // The moderator's bare END ends the game.
                    stop => if role == "gm" { "END ORDERS" } else { "END" },
                },
            );
            batch.letters.push(reply(format!("[{gid}] step {step}: NOT accepted"), body, Vec::new()));
            return Ok(());
        }
        received.verdict = if canon.is_some() { "orders".into() } else { "command".into() };
        batch.entry("received", received);
        let mut salt = None;
        for c in &commands {
            if let Command::Salt(s) = c {
                salt = Some(s.clone());
            }
        }
        // What play may still skip, told on receipt (before the orders are
        // taken in: the check is of the state they were judged against).
        // Lines that share a reason are told under it once.
        let mut conditional: Vec<(Vec<String>, String)> = Vec::new();
        for (line, why) in canon.as_ref().map(|c| l.game.conditions(role, c)).unwrap_or_default() {
            match conditional.iter_mut().find(|(_, w)| *w == why) {
                Some((lines, _)) => lines.push(line),
                None => conditional.push((vec![line], why)),
            }
        }
        if let Some(c) = canon.clone() {
            report.accepted += 1;
            batch.entry("accepted", &kinds::Accepted { step, role: role.to_string(), lines: c.clone(), by: None });
            l.game.accept(role, c);
        }
        if let Some(s) = &salt {
            // A salt only matters for a step still to resolve.
            if role != "gm" && !l.game.ended {
                batch.entry("salt", &kinds::Salt { step, role: role.to_string(), salt: s.clone() });
                l.game.salts.insert(role.to_string(), s.clone());
            }
        }
        if canon.is_some() || salt.is_some() {
            let lines = canon.clone().or_else(|| l.game.orders.get(role).cloned()).unwrap_or_default();
            // Who is still awaited, in the prompts' order (by name), without
            // spelling their prompts.
            let mut awaited = l.game.awaited().roles;
            awaited.sort();
            awaited.dedup();
            let waiting: Vec<String> =
                awaited.iter().filter(|r| !l.game.orders.contains_key(*r)).map(|r| letters::role_label(r)).collect();
            let body = letters::fill(
                "ack",
                context! {
                    game => gid, step => step, lines => lines, salt => salt, waiting => waiting.join(", "),
                    ignored => ignored, conditional => conditional,
                },
            );
            batch.letters.push(reply(format!("[{gid}] step {step}: accepted"), body, Vec::new()));
        }
        if !ignored.is_empty() && canon.is_none() && salt.is_none() {
            // Nothing else answers this message: the free text is quoted
            // back all the same, so nothing is dropped unseen.
            let text = format!("Not read as orders:\n  {}\n", ignored.join("\n  "));
            batch.letters.push(reply(
                format!("[{gid}] not read as orders"),
                letters::fill("reply", context! { text => text }),
                Vec::new(),
            ));
        }
        let mut resolve_now = false;
        for c in commands {
            match c {
                Command::Salt(_) => {}
                Command::Reanchor => batch.letters.push(reply(
                    format!("[{gid}] nothing to re-anchor"),
                    letters::fill(
                        "reply",
                        context! { text => format!("Game {gid}'s journal reaches the entry adjutant last wrote (its tip), so there is nothing to re-anchor; nothing was changed.\nREANCHOR is for a game that adjutant holds because nothing vouches for its journal's end.\n") },
                    ),
                    Vec::new(),
                )),
                Command::Help => {
                    let mut text = String::from("Commands anyone can send:\n  HELP, STATUS, VIEW, SALT <text>, PRESS <role|ALL> <text>, RESIGN, ZONE <zone>, ABSENT <first day> <last day>\n  HISTORY <step> or HISTORY <from>-<to>: your own view of those steps' results again\n  MAPS PNG|SVG|BOTH|NONE: the maps your mails carry (NONE: text only)\n  DRAW: agree to a draw (the game ends drawn when every side still playing agrees within one step; the proposal lapses when the step resolves); NO DRAW withdraws it\n  CONCEDE: give up (in a two-side game the other side wins; with more sides, your pieces stand under the no-moves orders and the others play on)\nAt the game's plain address, no token needed: LIST, JOIN <game> [<role>], OBSERVE <game>, STOP OBSERVING <game>\n");
                    if role == "gm" {
                        text.push_str("Moderator commands:\n  EXTEND <dur>, PAUSE, RESUME, REPLACE <role> <email>, RESOLVE NOW, END [<winner> <reason>], DECLARE <label> <value>, ROLLBACK <step> <reason>, REMOVE OBSERVER <address>, APPROVE <address>, REFUSE <address>\n");
                    }
                    if syntax.is_empty() {
                        text.push_str("\nNo orders are awaited from you at this step.\n");
                        // A moderator who reports from the table (Leaguer's
                        // ledger) learns the words before the step asks.
                        let words = l.game.vocabulary(role).verbs;
                        if role == "gm" && !words.is_empty() {
                            text.push_str(&format!(
                                "Your reports from the table ({}) are read at the steps that await you.\n",
                                words.join(", ")
                            ));
                        }
                    } else {
                        text.push_str("\nOrders for this step:\n");
                        for s in &syntax {
                            text.push_str(&format!("  {s}\n"));
                        }
                    }
                    batch.letters.push(reply(
                        format!("[{gid}] help"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::Status => {
                    let a = l.game.awaiting();
                    let mut text = format!("Game {gid}, step {} ({}).\n", l.game.step, a.kind);
                    if l.game.ended {
                        text.push_str("The game is over.\n");
                    }
                    for r in a.prompts.keys() {
                        text.push_str(&format!(
                            "  {r}: {}\n",
                            if l.game.orders.contains_key(r) { "orders in" } else { "awaited" }
                        ));
                    }
                    if let Some(d) = self.deadline_for(l, role) {
                        text.push_str(&format!("Deadline: {d}.\n"));
                    }
                    if l.desk.paused {
                        text.push_str("The game is paused by the moderator.\n");
                    }
                    if let Some(o) = l.game.orders.get(role) {
                        text.push_str("Your accepted orders:\n");
                        for x in o {
                            text.push_str(&format!("  {x}\n"));
                        }
                    }
                    batch.letters.push(reply(
                        format!("[{gid}] status"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::View => {
                    let view = l.game.view(&letters::viewer_of(role));
                    let svg = self.svg_for(l, &view);
                    batch.letters.push(reply(
                        format!("[{gid}] your view"),
                        letters::fill("reply", context! { text => letters::view_text(&view) }),
                        svg,
                    ));
                }
                Command::Press { to: dest, text } => {
                    batch
                        .entry("press", &kinds::Press { from: role.to_string(), to: dest.clone(), text: text.clone() });
                    for (r, addr) in self.recipients(l) {
                        if r == role || !(dest == "all" || dest == r) {
                            continue;
                        }
                        let body =
                            letters::fill("press", context! { from => role, game => gid, to => dest, text => text });
                        batch.letters.push(Letter {
                            role: Some(r.clone()),
                            to: addr,
                            subject: format!("[{gid}] press from {role}"),
                            body,
                            svg: Vec::new(),
                            in_reply_to: None,
                        });
                    }
                }
                Command::Resign => {
                    batch.entry(
                        "moderator",
                        &kinds::Moderator { action: kinds::Action::Resign, args: vec![role.to_string()] },
                    );
                    let others: Vec<String> = l.game.roles.iter().filter(|r| *r != role).cloned().collect();
                    let winner = if others.len() == 1 { Some(others[0].clone()) } else { None };
                    if !l.game.ended {
                        self.end_game(l, batch, winner, &[], format!("{role} resigned"))?;
                    }
                }
                Command::Extend(secs) => {
                    let base = l
                        .desk
                        .deadline_at
                        .as_deref()
                        .and_then(|d| DateTime::parse_from_rfc3339(d).ok())
                        .map(|d| d.with_timezone(&Utc))
                        .unwrap_or(now);
                    let at = base + chrono::Duration::seconds(secs);
                    let resolve = (at + self.cfg.deadlines.grace()).to_rfc3339();
                    let at = at.to_rfc3339();
                    self.moderator(l, batch, kinds::Action::Deadline, vec![at.clone(), resolve]);
                    batch.letters.push(reply(
                        format!("[{gid}] deadline extended"),
                        letters::fill("reply", context! { text => format!("The deadline is now {at}.") }),
                        Vec::new(),
                    ));
                }
                Command::Zone(z) => {
                    self.moderator_as(l, batch, kinds::Action::Zone, vec![role.to_string(), z.clone()]);
                    let text = match self.deadline_for(l, role) {
                        Some(d) => format!("Deadlines are shown to you in {z} from now on. The current one: {d}."),
                        None => format!("Deadlines are shown to you in {z} from now on."),
                    };
                    batch.letters.push(reply(
                        format!("[{gid}] time zone set"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::Absent(from, to) => {
                    self.moderator_as(
                        l,
                        batch,
                        kinds::Action::Absent,
                        vec![role.to_string(), from.clone(), to.clone()],
                    );
                    // Under the "extend" policy a deadline falling while the
                    // player is away moves to the day after.
                    let mut text = format!("Noted: {role} is away from {from} to {to}.");
                    if self.cfg.deadlines.absent == "extend" && l.game.awaits(role) {
                        let inside =
                            l.desk.deadline_at.as_deref().and_then(|d| DateTime::parse_from_rfc3339(d).ok()).map(|d| {
                                let day = d.with_timezone(&Utc).date_naive().to_string();
                                day.as_str() >= from.as_str() && day.as_str() <= to.as_str()
                            });
                        if inside == Some(true) {
                            if let Some(next) = to
                                .parse::<chrono::NaiveDate>()
                                .ok()
                                .and_then(|t| t.succ_opt())
                                .and_then(|t| t.and_hms_opt(12, 0, 0))
                            {
                                let at = next.and_utc();
                                let resolve = (at + self.cfg.deadlines.grace()).to_rfc3339();
                                self.moderator(l, batch, kinds::Action::Deadline, vec![at.to_rfc3339(), resolve]);
                                text.push_str(&format!(
                                    " The deadline moves to {}.",
                                    self.deadline_for(l, role).unwrap_or_default()
                                ));
                            }
                        }
                    } else {
                        text.push_str(" The moderator's policy applies the no-moves rule to steps you miss.");
                    }
                    batch.letters.push(reply(
                        format!("[{gid}] absence noted"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::Pause => self.moderator(l, batch, kinds::Action::Pause, vec![]),
                Command::Resume => self.moderator(l, batch, kinds::Action::Resume, vec![]),
                Command::Replace { role: r, email } => {
                    if let Some(text) = self.replace(l, batch, &r, &email)? {
                        let body = letters::fill("reply", context! { text => text });
                        batch.letters.push(reply(format!("[{gid}] REPLACE {r}"), body, Vec::new()));
                    }
                }
                Command::ResolveNow => resolve_now = true,
                Command::Draw | Command::NoDraw | Command::Concede => {
                    let text = match c {
                        Command::Concede => self.concede(l, batch, role)?,
                        c => self.draw(l, batch, role, c == Command::Draw)?,
                    };
                    batch.letters.push(reply(
                        format!("[{gid}] {}", if text.contains("conceded") { "conceded" } else { "draw" }),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::History(from, to) => {
                    let text = self.history(l, role, from, to)?;
                    batch.letters.push(reply(
                        format!("[{gid}] history of steps {from}-{to} (a copy)"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::Maps(m) => {
                    self.moderator_as(l, batch, kinds::Action::Maps, vec![role.to_string(), m.clone()]);
                    let text = match m.as_str() {
                        "none" => "Your mails from this game come as text only from now on (the map is in the text). MAPS PNG brings the pictures back.".to_string(),
                        m => format!("Your mails from this game carry the map as {} from now on.", m.to_uppercase()),
                    };
                    batch.letters.push(reply(
                        format!("[{gid}] maps"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::Approve(a, yes) => {
                    let text = self.approve(l, batch, &a, yes, now)?;
                    batch.letters.push(reply(
                        format!("[{gid}] join request"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::RemoveObserver(a) => {
                    let text = self.remove_observer(l, batch, &a);
                    batch.letters.push(reply(
                        format!("[{gid}] observer"),
                        letters::fill("reply", context! { text => text }),
                        Vec::new(),
                    ));
                }
                Command::Rollback { step: k, reason } => {
                    if let Err(why) = self.rollback(l, batch, k, &reason, now)? {
                        batch.letters.push(reply(
                            format!("[{gid}] ROLLBACK {k}: NOT done"),
                            letters::fill("reply", context! { text => format!("Nothing was changed: {why}.\n") }),
                            Vec::new(),
                        ));
                    }
                }
                Command::End { winner, reason } => {
                    let args = winner.iter().chain(reason.iter()).cloned().collect();
                    batch.entry("moderator", &kinds::Moderator { action: kinds::Action::End, args });
                    if !l.game.ended {
                        let why = reason.unwrap_or_else(|| "ended by the moderator".into());
                        self.end_game(l, batch, winner, &[], why)?;
                    }
                }
                Command::Declare { label, values } => {
                    let v: Vec<String> = values.iter().map(|x| x.to_string()).collect();
                    self.moderator(l, batch, kinds::Action::Declare, vec![label, v.join(",")]);
                }
            }
        }
        // A side just handed to adjutant sends its orders now (none in
        // an ended game).
        report.resolved += self.adjutant_turns(l, batch, now)? as usize;
        if l.game.ended {
            return Ok(());
        }
        let players_complete = l.game.complete();
        // Everyone is in: resolve now, or after the policy's short delay
        // during which a player may still revise.
        let delay = self.cfg.deadlines.early_delay().filter(|d| *d > chrono::Duration::zero());
        if players_complete && !l.desk.paused && !resolve_now {
            if let Some(d) = delay {
                let at = (now + d).to_rfc3339();
                if l.desk.resolve_at.as_deref().map(|r| r > at.as_str()).unwrap_or(true) {
                    self.moderator_as(l, batch, kinds::Action::Early, vec![at]);
                }
                return Ok(());
            }
        }
        if ((players_complete && !l.desk.paused) || resolve_now) && self.resolve_steps(l, batch, now)? {
            report.resolved += 1;
        }
        Ok(())
    }

    /// A desk fact a player's command set (ZONE, ABSENT) or the desk itself
    /// (an early resolution time), journaled under its own kind.
    fn moderator_as(&self, l: &mut GameState, batch: &mut Batch, action: kinds::Action, args: Vec<String>) {
        let m = kinds::Moderator { action, args };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry(action.as_str(), &m);
    }

    fn moderator(&self, l: &mut GameState, batch: &mut Batch, action: kinds::Action, args: Vec<String>) {
        let m = kinds::Moderator { action, args };
        state::apply_moderator(&mut l.desk, &m);
        batch.entry("moderator", &m);
    }
}
