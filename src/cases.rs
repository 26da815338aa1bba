//! Data-driven adjudication cases (docs/cases.md): one TOML file a case, run
//! three ways (directly, through a journal and its replay, and resumed from
//! a snapshot after every step) which must agree.
//!
//! ```toml
//! title = "..."
//! cites = "rulebook section and sentence"
//! ruleset = "mantua"
//! scenario = "standard"        # optional
//! dice = [3, 5]                # faces, consumed in order
//! shuffles = [[2, 0, 1]]       # optional: the permutations shuffles give, in order
//! [patch]                      # optional: merged into the set-up state
//! [replace]                    # optional: then set whole (arrays too: a sparse position)
//! [set]                        # optional: then single values at paths ("crt.rows.4.5" = "DE")
//! [[step]]                     # one submission each
//! role = "austria"
//! orders = ["MOVE Provera TO Piave"]
//! reject = ["not adjacent"]    # optional: the submission must be refused
//! reject_only = true           # optional: ...for these reasons and no others
//! [[step]]
//! deadline = true              # the deadline passes: silent roles get the no-moves orders
//! [expect]
//! events = ["Escape roll"]     # substrings each found in some event
//! no_events = []               # substrings found in no event
//! awaiting = ["france"]        # roles awaited at the end
//! [expect.seen_by]             # substrings found in events a role is told
//! france = ["retreats"]
//! [expect.unseen_by]           # substrings in no event a role is told ("gm": the moderator)
//! austria = ["Masséna"]
//! [expect.lengths]             # arrays in the state, by dotted path
//! "deck.draw" = 51
//! [expect.facts]               # dotted paths into the state (or one_of/contains/excludes)
//! "blocks.Provera.at" = "Piave"
//! ```

use crate::audit;
use crate::dice::{Dice, Scripted};
use crate::engine::{lookup, Event, Game, Viewer};
use crate::journal::{kinds, Journal};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub title: String,
    pub cites: String,
    pub ruleset: String,
    #[serde(default)]
    pub scenario: Option<String>,
    #[serde(default)]
    pub dice: Vec<u32>,
    #[serde(default)]
    pub shuffles: Vec<Vec<u32>>,
    #[serde(default)]
    pub patch: Option<toml::Table>,
    #[serde(default)]
    pub replace: Option<toml::Table>,
    /// Then single values set at dotted paths: one cell of a table, one
    /// field of one named item.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    #[serde(default, rename = "step")]
    pub steps: Vec<Step>,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub orders: Vec<String>,
    #[serde(default)]
    pub reject: Vec<String>,
    /// Refused for the `reject` reasons and no others: every problem
    /// matches one of them.
    #[serde(default)]
    pub reject_only: bool,
    /// The deadline passes: the step resolves now, every awaited role that
    /// gave no orders getting the no-moves orders.
    #[serde(default)]
    pub deadline: bool,
    /// The moderator's ROLLBACK: the game goes back to the state step
    /// `rollback` opened with, and goes on under the next step number.
    #[serde(default)]
    pub rollback: Option<u32>,
    /// With `reject`: substrings of the refusal's hints ("did you mean …"),
    /// which `reject` itself is never matched against.
    #[serde(default)]
    pub hints: Vec<String>,
    /// Accepted, with these substrings each in some note of what play may
    /// still skip (the acknowledgment's "may still skip or cut short").
    #[serde(default)]
    pub conditional: Vec<String>,
    /// What must hold right after this step.
    #[serde(default)]
    pub expect: Option<StepExpect>,
}

/// What must hold after one step: its own events, who is awaited and for
/// what kind of step, and facts of the state.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepExpect {
    /// Substrings each found in some event of this step (in this order
    /// when `in_order`).
    #[serde(default)]
    pub events: Vec<String>,
    #[serde(default)]
    pub in_order: bool,
    #[serde(default)]
    pub no_events: Vec<String>,
    #[serde(default)]
    pub awaiting: Option<Vec<String>>,
    /// The kind of the step now open ("turn", "respond", …).
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub facts: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub rolls: Rolls,
}

/// How many draws were made, of those a filter picks: one filter or a list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(untagged)]
pub enum Rolls {
    #[default]
    None,
    One(RollCount),
    Many(Vec<RollCount>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RollCount {
    pub count: usize,
    /// A substring of the draw's label ("Escape roll", "fire").
    #[serde(default)]
    pub label: Option<String>,
    /// `die`, `shuffle` or `pool`.
    #[serde(default)]
    pub kind: Option<String>,
    /// The role the draw served.
    #[serde(default)]
    pub serves: Option<String>,
}

impl Rolls {
    fn counts(&self) -> &[RollCount] {
        match self {
            Rolls::None => &[],
            Rolls::One(c) => std::slice::from_ref(c),
            Rolls::Many(v) => v,
        }
    }

    fn check(&self, draws: &[crate::dice::Draw]) -> Result<(), String> {
        for c in self.counts() {
            let picked = draws.iter().filter(|d| {
                c.label.as_ref().is_none_or(|l| d.label.contains(l.as_str()))
                    && c.kind.as_ref().is_none_or(|k| format!("{:?}", d.kind).eq_ignore_ascii_case(k))
                    && c.serves.as_ref().is_none_or(|r| d.serves.as_ref() == Some(r))
            });
            let n = picked.count();
            if n != c.count {
                let all: Vec<String> = draws.iter().map(|d| format!("{} {:?}", d.label, d.result)).collect();
                return Err(format!(
                    "{n} draws match {}, expected {}; the draws were:\n  {}",
                    c.describe(),
                    c.count,
                    all.join("\n  ")
                ));
            }
        }
        Ok(())
    }
}

impl RollCount {
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(l) = &self.label {
            parts.push(format!("label {l:?}"));
        }
        if let Some(k) = &self.kind {
            parts.push(format!("kind {k}"));
        }
        if let Some(r) = &self.serves {
            parts.push(format!("serving {r}"));
        }
        if parts.is_empty() {
            "any".into()
        } else {
            parts.join(", ")
        }
    }
}

/// The state each step of the standing history opened with, by step:
/// what a rollback restores.
#[derive(Default)]
struct Openings(BTreeMap<u32, String>);

impl Openings {
    fn opened(&mut self, game: &Game) {
        self.0.insert(game.step, game.state_text());
    }

    /// Take `game` back to step `to`'s opening; the state's text.
    fn roll_back(&mut self, game: &mut Game, to: u32, i: usize) -> Result<String, String> {
        let text = self.0.get(&to).cloned().ok_or_else(|| {
            format!("step {} rolls back to step {to}, which did not open in the history that stands", i + 1)
        })?;
        game.reopen(&text, game.step)?;
        self.0.retain(|k, _| *k < to);
        self.opened(game);
        Ok(text)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub events: Vec<String>,
    #[serde(default)]
    pub no_events: Vec<String>,
    #[serde(default)]
    pub awaiting: Option<Vec<String>>,
    #[serde(default)]
    pub facts: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub dice_left: Option<usize>,
    #[serde(default)]
    pub seen_by: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub unseen_by: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub lengths: BTreeMap<String, usize>,
    #[serde(default)]
    pub rolls: Rolls,
}

pub fn load(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read case {}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("cannot read case {}: {e}", path.display()))
}

/// Run one case file; `Err` says what failed.
pub fn run_file(path: &Path) -> Result<(), String> {
    let case = load(path)?;
    run(&case).map_err(|m| format!("{}: {m}", path.display()))
}

struct Run {
    game: Game,
    /// Every event, with its audience.
    told: Vec<Event>,
    events: Vec<String>,
    dice_left: usize,
    draws: Vec<crate::dice::Draw>,
}

/// The three runs must agree on the final state digest.
pub fn run(case: &Case) -> Result<(), String> {
    let direct = play(case, false)?;
    let resumed = play(case, true)?;
    if direct.game.digest() != resumed.game.digest() {
        return Err("resuming from a snapshot after every step reached a different state".into());
    }
    let replayed = through_journal(case)?;
    if replayed != direct.game.digest() {
        return Err("replaying the journal reached a different state".into());
    }
    check(case, &direct)
}

fn new_game(case: &Case) -> Result<Game, String> {
    let rules = crate::rules::find(&case.ruleset).ok_or_else(|| format!("unknown ruleset {:?}", case.ruleset))?;
    let scenario = case.scenario.clone().unwrap_or_else(|| rules.info().scenarios[0].name.clone());
    let mut g = Game::new("case", rules, &scenario)?;
    if let Some(p) = &case.patch {
        g.patch(p)?;
    }
    if let Some(r) = &case.replace {
        g.replace(r)?;
    }
    g.set(&case.set)?;
    Ok(g)
}

fn play(case: &Case, resume: bool) -> Result<Run, String> {
    let mut game = new_game(case)?;
    let mut dice = Scripted::new(&case.dice).with_shuffles(case.shuffles.clone());
    let mut told: Vec<Event> = Vec::new();
    let mut openings = Openings::default();
    openings.opened(&game);
    for (i, st) in case.steps.iter().enumerate() {
        let (before, drawn) = (told.len(), dice.draws().len());
        step(case, &mut game, &mut dice, &mut told, &mut openings, i, st)?;
        if !resume {
            if let Some(x) = &st.expect {
                check_step(&game, &told[before..], &dice.draws()[drawn..], x)
                    .map_err(|m| format!("after step {}: {m}", i + 1))?;
            }
        }
        if resume {
            let text = game.state_text();
            game = Game::from_parts(game.envelope(), game.rules, &text)?;
        }
    }
    let events = told.iter().map(|e| e.text.clone()).collect();
    Ok(Run { game, told, events, dice_left: dice.remaining(), draws: dice.draws().to_vec() })
}

/// Play one step of a case.
fn step(
    _case: &Case,
    game: &mut Game,
    dice: &mut Scripted,
    told: &mut Vec<Event>,
    openings: &mut Openings,
    i: usize,
    st: &Step,
) -> Result<(), String> {
    {
        if let Some(to) = st.rollback {
            if !st.role.is_empty() || !st.orders.is_empty() || !st.reject.is_empty() || st.deadline {
                return Err(format!("step {} is a rollback: it takes no role, orders, reject or deadline", i + 1));
            }
            openings.roll_back(game, to, i)?;
            return Ok(());
        }
        if st.deadline {
            let r = game.resolve(dice)?;
            told.extend(r.events);
            openings.opened(game);
            return Ok(());
        }
        let lines: Vec<(usize, String)> = st.orders.iter().enumerate().map(|(n, l)| (n + 1, l.clone())).collect();
        match game.check(&st.role, &lines) {
            Ok(canon) => {
                if !st.reject.is_empty() {
                    return Err(format!(
                        "step {} ({}) was accepted but should be refused for {:?}",
                        i + 1,
                        st.role,
                        st.reject
                    ));
                }
                let notes: Vec<String> =
                    game.conditions(&st.role, &canon).into_iter().map(|(l, why)| format!("{l}: {why}")).collect();
                if let Some(want) = unfound(&st.conditional, &notes) {
                    return Err(format!(
                        "step {} ({}): no line is said to be conditional on {want:?}; the notes were:\n  {}",
                        i + 1,
                        st.role,
                        notes.join("\n  ")
                    ));
                }
                game.accept(&st.role, canon);
            }
            Err(errs) => {
                // The reasons are what `reject` is matched against; the
                // hints, `hints`.
                let all: Vec<String> = errs.iter().map(|e| format!("line {}: {}", e.line, e.reason)).collect();
                let hints: Vec<&str> = errs.iter().filter_map(|e| e.suggestion.as_deref()).collect();
                if let Some(want) = unfound(&st.hints, &hints) {
                    return Err(format!(
                        "step {} ({}) was refused, but no hint says {want:?}: {}",
                        i + 1,
                        st.role,
                        hints.join("; ")
                    ));
                }
                if st.reject.is_empty() {
                    return Err(format!("step {} ({}) was refused: {}", i + 1, st.role, all.join("; ")));
                }
                if let Some(want) = unfound(&st.reject, &all) {
                    return Err(format!(
                        "step {} ({}) was refused, but not for {want:?}: {}",
                        i + 1,
                        st.role,
                        all.join("; ")
                    ));
                }
                if st.reject_only {
                    if let Some(extra) = all.iter().find(|a| !st.reject.iter().any(|w| a.contains(w.as_str()))) {
                        return Err(format!("step {} ({}) was also refused for {extra:?}", i + 1, st.role));
                    }
                }
                return Ok(());
            }
        }
        if game.complete() {
            let r = game.resolve(dice)?;
            told.extend(r.events);
            openings.opened(game);
            if dice.exhausted {
                return Err(format!("the case's dice ran out at step {}", i + 1));
            }
        }
    }
    Ok(())
}

/// The first of `wants` that no text contains: what a case's lists of
/// substrings (events, reasons, hints, notes) are checked with.
fn unfound<'a>(wants: &'a [String], texts: &[impl AsRef<str>]) -> Option<&'a String> {
    wants.iter().find(|w| !texts.iter().any(|t| t.as_ref().contains(w.as_str())))
}

/// Check what a step's `expect` says against the game after it and the
/// events it told.
fn check_step(game: &Game, events: &[Event], draws: &[crate::dice::Draw], x: &StepExpect) -> Result<(), String> {
    let texts: Vec<&str> = events.iter().map(|e| e.text.as_str()).collect();
    let mut from = 0;
    for want in &x.events {
        let at = texts[from..].iter().position(|e| e.contains(want.as_str())).map(|p| p + from);
        match at {
            Some(p) if x.in_order => from = p + 1,
            Some(_) => {}
            None if x.in_order && texts.iter().any(|e| e.contains(want.as_str())) => {
                return Err(format!("{want:?} comes out of order; the step's events were:\n  {}", texts.join("\n  ")))
            }
            None => {
                return Err(format!("no event of this step mentions {want:?}; they were:\n  {}", texts.join("\n  ")))
            }
        }
    }
    for not in &x.no_events {
        if let Some(e) = texts.iter().find(|e| e.contains(not.as_str())) {
            return Err(format!("an event of this step mentions {not:?}: {e}"));
        }
    }
    let a = game.awaiting();
    if let Some(want) = &x.awaiting {
        let got: Vec<String> = a.prompts.keys().cloned().collect();
        let mut w = want.clone();
        w.sort();
        if got != w {
            return Err(format!("awaiting {got:?}, expected {w:?}"));
        }
    }
    if let Some(k) = &x.kind {
        if &a.kind != k {
            return Err(format!("the open step is a {:?} step, expected {k:?}", a.kind));
        }
    }
    check_facts(game, &x.facts)?;
    x.rolls.check(draws)
}

/// Each fact holds of the game's state: a value equal, or a comparison
/// (`{ one_of = [...] }`, `{ contains = [...] }`, `{ excludes = [...] }`).
fn check_facts(game: &Game, facts: &BTreeMap<String, toml::Value>) -> Result<(), String> {
    let state: toml::Value = toml::from_str(&game.state_text()).map_err(|e| e.to_string())?;
    for (path, want) in facts {
        fact(lookup(&state, path), want).map_err(|m| format!("{path} {m}"))?;
    }
    Ok(())
}

fn fact(got: Option<&toml::Value>, want: &toml::Value) -> Result<(), String> {
    let items = |v: &toml::Value| -> Vec<toml::Value> {
        match v {
            toml::Value::Array(a) => a.clone(),
            toml::Value::Table(t) => t.keys().map(|k| toml::Value::from(k.as_str())).collect(),
            other => vec![other.clone()],
        }
    };
    let compare = want.as_table().filter(|t| t.len() == 1).and_then(|t| t.iter().next());
    match (compare, got) {
        (Some((op, list)), got) if ["one_of", "contains", "excludes"].contains(&op.as_str()) => {
            let list = list.as_array().ok_or_else(|| format!("{op} takes an array, not {list}"))?;
            match (op.as_str(), got) {
                ("one_of", Some(g)) if list.contains(g) => Ok(()),
                ("one_of", g) => Err(format!(
                    "is {}, expected one of {}",
                    g.map_or("absent".into(), |g| g.to_string()),
                    toml::Value::Array(list.clone())
                )),
                ("contains", Some(g)) => match list.iter().find(|w| !items(g).contains(w)) {
                    None => Ok(()),
                    Some(w) => Err(format!("is {g}, which lacks {w}")),
                },
                ("contains", None) => {
                    Err(format!("is not in the state; expected it to contain {}", toml::Value::Array(list.clone())))
                }
                (_, None) => Ok(()),
                (_, Some(g)) => match list.iter().find(|w| items(g).contains(w)) {
                    None => Ok(()),
                    Some(w) => Err(format!("is {g}, which holds {w}")),
                },
            }
        }
        (_, Some(g)) if g == want => Ok(()),
        (_, Some(g)) => Err(format!("is {g}, expected {want}")),
        (_, None) if want.as_str() == Some("") => Ok(()),
        (_, None) => Err(format!("is not in the state; expected {want}")),
    }
}

/// What `adjutant case --verbose` shows of a case: each step's events,
/// who is then awaited and for what, and at the end the state's facts, so
/// a case writer sees what to assert.
pub fn explain(path: &Path) -> Result<String, String> {
    let case = load(path)?;
    let mut game = new_game(&case)?;
    let mut dice = Scripted::new(&case.dice).with_shuffles(case.shuffles.clone());
    let mut told = Vec::new();
    let mut openings = Openings::default();
    openings.opened(&game);
    let mut out = String::new();
    for (i, st) in case.steps.iter().enumerate() {
        let (before, drawn) = (told.len(), dice.draws().len());
        let what = step(&case, &mut game, &mut dice, &mut told, &mut openings, i, st);
        let a = game.awaiting();
        out.push_str(&format!(
            "step {} ({}): {}\n",
            i + 1,
            if let Some(k) = st.rollback {
                format!("rollback to {k}")
            } else if st.deadline {
                "deadline".into()
            } else {
                st.role.clone()
            },
            match &what {
                Ok(()) => format!(
                    "game step {}, a {:?} step awaiting {:?}",
                    game.step,
                    a.kind,
                    a.prompts.keys().collect::<Vec<_>>()
                ),
                Err(e) => format!("FAILS: {e}"),
            }
        ));
        for e in &told[before..] {
            out.push_str(&format!("    [{}] {}\n", audience(&e.to), e.text));
        }
        for d in &dice.draws()[drawn..] {
            let serves = d.serves.as_deref().map(|r| format!(" for {r}")).unwrap_or_default();
            out.push_str(&format!("    roll: {} ({:?} of {}) {:?}{serves}\n", d.label, d.kind, d.sides, d.result));
        }
        if what.is_err() {
            break;
        }
    }
    out.push_str(&format!("state:\n{}", game.state_text()));
    Ok(out)
}

fn audience(a: &crate::engine::Audience) -> String {
    format!("{a:?}").to_lowercase()
}

/// Play the case through a real journal in a temporary folder, then replay it.
fn through_journal(case: &Case) -> Result<String, String> {
    let mut game = new_game(case)?;
    let dir = std::env::temp_dir().join(format!(
        "adjutant-case-{}-{}",
        std::process::id(),
        crate::dice::to_hex(&crate::dice::sha256(case.title.as_bytes()))
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let jp = dir.join("journal.toml");
    let _ = std::fs::remove_file(&jp);
    let mut j = Journal::open(&jp).map_err(|e| e.to_string())?;
    let at = "2026-01-01T00:00:00+00:00";
    let created = kinds::Created {
        game: "case".into(),
        ruleset: case.ruleset.clone(),
        scenario: game.scenario.clone(),
        roles: game.roles.clone(),
        players: BTreeMap::new(),
        gm: None,
        dice: crate::dice::Mode::Scripted,
        chain_len: 0,
        anchors: BTreeMap::new(),
        deadline: None,
        // Values `set` at paths have no journal field: such a set-up is
        // journaled as the whole state it made.
        patch: if case.set.is_empty() { case.patch.clone() } else { None },
        replace: if case.set.is_empty() {
            case.replace.clone()
        } else {
            Some(toml::from_str(&game.state_text()).map_err(|e| e.to_string())?)
        },
        digest: game.digest(),
        tip_kept: false,
        approve: false,
    };
    j.append(at, &[("created", &created)]).map_err(|e| e.to_string())?;
    let mut dice = Scripted::new(&case.dice).with_shuffles(case.shuffles.clone());
    // Where each step of the standing history opened (its entry), and the
    // steps resolved in it: what a rollback entry names.
    let mut openings = Openings::default();
    openings.opened(&game);
    let mut opened_at: BTreeMap<u32, u64> = [(game.step, j.last_seq)].into();
    let mut resolved: Vec<u32> = Vec::new();
    for (i, st) in case.steps.iter().enumerate() {
        if let Some(to) = st.rollback {
            let from = opened_at.get(&to).copied().unwrap_or_default() + 1;
            let undone: Vec<u32> = resolved.iter().copied().filter(|k| *k >= to).collect();
            let step = game.step;
            let state = openings.roll_back(&mut game, to, i)?;
            let body = kinds::RolledBack {
                to_step: to,
                step,
                reason: "the case's rollback".into(),
                by: "gm".into(),
                voids_from: from,
                voided_steps: undone,
                state,
                digest: game.digest(),
            };
            j.append(at, &[("rolled_back", &body)]).map_err(|e| e.to_string())?;
            resolved.retain(|k| *k < to);
            opened_at.retain(|k, _| *k < to);
            opened_at.insert(game.step, j.last_seq);
            continue;
        }
        if !st.deadline {
            let lines: Vec<(usize, String)> = st.orders.iter().enumerate().map(|(n, l)| (n + 1, l.clone())).collect();
            let Ok(canon) = game.check(&st.role, &lines) else {
                continue;
            };
            j.append(
                at,
                &[(
                    "accepted",
                    &kinds::Accepted { step: game.step, role: st.role.clone(), lines: canon.clone(), by: None },
                )],
            )
            .map_err(|e| e.to_string())?;
            game.accept(&st.role, canon);
        }
        if st.deadline || game.complete() {
            let before = dice.draws().len();
            let r = game.resolve(&mut dice)?;
            let draws = dice.draws()[before..].to_vec();
            let body = kinds::Resolved {
                step: r.step,
                step_kind: r.kind,
                orders: r.orders,
                defaulted: r.defaulted,
                salts: r.salts,
                links: BTreeMap::new(),
                draws: renumber(draws),
                events: r.events,
                digest: game.digest(),
            };
            j.append(at, &[("resolved", &body)]).map_err(|e| e.to_string())?;
            resolved.push(r.step);
            openings.opened(&game);
            opened_at.insert(game.step, j.last_seq);
        }
    }
    let entries = crate::journal::read(&jp).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let (g, _) = audit::replay(&entries).map_err(|m| format!("replay failed: {m}"))?;
    Ok(g.digest())
}

/// A role's name as a viewer; "gm" is the moderator.
fn viewer_of(who: &str) -> Viewer {
    if who == "gm" {
        Viewer::Moderator
    } else {
        Viewer::Role(who.to_string())
    }
}

/// Draw counters restart at 0 each step, per stream.
fn renumber(mut draws: Vec<crate::dice::Draw>) -> Vec<crate::dice::Draw> {
    let mut n: BTreeMap<String, u32> = BTreeMap::new();
    for d in &mut draws {
        let c = n.entry(d.stream.clone()).or_default();
        d.n = *c;
        *c += 1;
    }
    draws
}

fn check(case: &Case, run: &Run) -> Result<(), String> {
    if let Some(want) = unfound(&case.expect.events, &run.events) {
        return Err(format!("no event mentions {want:?}; events were:\n  {}", run.events.join("\n  ")));
    }
    for not in &case.expect.no_events {
        if let Some(e) = run.events.iter().find(|e| e.contains(not.as_str())) {
            return Err(format!("an event mentions {not:?}: {e}"));
        }
    }
    if let Some(want) = &case.expect.awaiting {
        let got: Vec<String> = run.game.awaiting().prompts.keys().cloned().collect();
        let mut w = want.clone();
        w.sort();
        if got != w {
            return Err(format!("awaiting {got:?}, expected {w:?}"));
        }
    }
    check_facts(&run.game, &case.expect.facts)?;
    case.expect.rolls.check(&run.draws)?;
    let state: toml::Value = toml::from_str(&run.game.state_text()).map_err(|e| e.to_string())?;
    for (who, wants) in &case.expect.seen_by {
        let viewer = viewer_of(who);
        let seen: Vec<&str> = run.told.iter().filter(|e| e.to.admits(&viewer)).map(|e| e.text.as_str()).collect();
        if let Some(want) = unfound(wants, &seen) {
            return Err(format!("{who} is told nothing of {want:?}; {who} was told:\n  {}", seen.join("\n  ")));
        }
    }
    for (who, nots) in &case.expect.unseen_by {
        let viewer = viewer_of(who);
        for not in nots {
            if let Some(e) = run.told.iter().find(|e| e.to.admits(&viewer) && e.text.contains(not.as_str())) {
                return Err(format!("{who} is told {not:?}: {}", e.text));
            }
        }
    }
    for (path, n) in &case.expect.lengths {
        match lookup(&state, path).and_then(|v| v.as_array()) {
            Some(a) if a.len() == *n => {}
            Some(a) => return Err(format!("{path} holds {} items, expected {n}", a.len())),
            None => return Err(format!("{path} is not an array in the state")),
        }
    }
    if let Some(n) = case.expect.dice_left {
        if run.dice_left != n {
            return Err(format!("{} scripted dice left unused, expected {n}", run.dice_left));
        }
    }
    Ok(())
}
