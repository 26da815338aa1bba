//! The generic game machine: a ruleset's typed rules behind one object-safe
//! interface, the step counter, accepted orders and salts. Pure: no I/O, no
//! clock, randomness only through the `Dice` handed in.

pub mod path;
pub mod view;

use crate::dice::Dice;
pub use path::{lookup, merge};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
pub use view::{Board, GraphBoard, Piece, Table, Track, TrackBoard, View, Viewer};

/// A problem with one order line: which line, why, and what would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineError {
    /// 1-based line number in the order text as the player wrote it.
    pub line: usize,
    pub text: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// A rule's complaint about an order, before the line is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub reason: String,
    pub suggestion: Option<String>,
}

impl Problem {
    pub fn new(reason: impl Into<String>) -> Problem {
        Problem { reason: reason.into(), suggestion: None }
    }
    pub fn hint(mut self, s: impl Into<String>) -> Problem {
        self.suggestion = Some(s.into());
        self
    }
}

/// Who may read an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    All,
    Role(String),
    Moderator,
    /// That role alone: the moderator reads the same fact, in full, in an
    /// event of its own.
    Only(String),
}

impl Audience {
    pub fn admits(&self, v: &Viewer) -> bool {
        match (self, v) {
            (Audience::All, _) => true,
            (Audience::Only(r), Viewer::Role(w)) => r == w,
            (Audience::Only(_), _) => false,
            (_, Viewer::Moderator) => true,
            (Audience::Role(r), Viewer::Role(w)) => r == w,
            _ => false,
        }
    }
}

/// Something that happened in a resolution, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub to: Audience,
    pub text: String,
}

impl Event {
    pub fn all(t: impl Into<String>) -> Event {
        Event { to: Audience::All, text: t.into() }
    }
    pub fn to_role(r: &str, t: impl Into<String>) -> Event {
        Event { to: Audience::Role(r.to_string()), text: t.into() }
    }
    /// For that role alone (see [`Audience::Only`]).
    pub fn only(r: &str, t: impl Into<String>) -> Event {
        Event { to: Audience::Only(r.to_string()), text: t.into() }
    }
    pub fn gm(t: impl Into<String>) -> Event {
        Event { to: Audience::Moderator, text: t.into() }
    }
}

/// What one awaited role is asked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Prompt {
    pub text: String,
    /// Order syntax with examples, shown in the prompt and in HELP.
    pub syntax: Vec<String>,
}

/// Who the open step waits for, cheaply: what the desk asks for control
/// flow (is this role awaited, is everyone in), without building prompts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Awaited {
    /// A short name for the kind of step (one of `RulesetInfo::step_kinds`).
    pub kind: String,
    pub roles: Vec<String>,
    /// Roles that may leave standing orders the step does not wait for.
    pub optional: Vec<String>,
}

impl Awaited {
    pub fn new(kind: &str, roles: &[&str]) -> Awaited {
        Awaited { kind: kind.to_string(), roles: roles.iter().map(|r| r.to_string()).collect(), optional: Vec::new() }
    }
}

/// The open step with what each role is asked: its kind, the awaited
/// roles' prompts, and the optional roles'.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Awaiting {
    /// A short name for the kind of step ("setup", "turn", "escape"); the
    /// desk picks deadlines per kind.
    pub kind: String,
    pub prompts: BTreeMap<String, Prompt>,
    /// Roles that may send orders now without being waited for (standing
    /// orders: an interrupt policy, a pre-answer): the step resolves
    /// without them, and hands the ruleset their orders if they came.
    #[serde(default)]
    pub optional: BTreeMap<String, Prompt>,
    /// A worked example for an awaited role, from its own position: shown
    /// under the prompt's syntax (`Rules::example`).
    #[serde(default)]
    pub examples: BTreeMap<String, Vec<String>>,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub winner: Option<String>,
    pub reason: String,
    /// Further winners, where a game has several (a side of allies).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// The roles that lost where no role won: a solo game's failure, the
    /// army that won being played by adjutant and nobody's role. Not
    /// saved with the state: the state's digest, which replay compares,
    /// stays what journals written before it recorded (an old journal
    /// replays forever), and only selfplay, which never reloads a game,
    /// reads it.
    #[serde(skip)]
    pub lost: Vec<String>,
}

impl Outcome {
    /// `winner` won.
    pub fn won(winner: impl Into<String>, reason: String) -> Outcome {
        Outcome { winner: Some(winner.into()), reason, also: Vec::new(), lost: Vec::new() }
    }

    /// Nobody won and nobody lost.
    pub fn drawn(reason: String) -> Outcome {
        Outcome { winner: None, reason, also: Vec::new(), lost: Vec::new() }
    }

    /// The players' roles `lost` failed, and no role won.
    pub fn failed(lost: Vec<String>, reason: String) -> Outcome {
        Outcome { winner: None, reason, also: Vec::new(), lost }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ScenarioInfo {
    pub name: String,
    pub roles: Vec<String>,
    pub about: String,
    /// Variants a game may add to the name (`frontier+easier`).
    pub variants: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RulesetInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub scenarios: Vec<ScenarioInfo>,
    /// Steps await the moderator (table-top results): a game needs one.
    pub moderated: bool,
    /// Every kind of step `awaiting` can name: the keys a deadline policy
    /// may set (`[deadlines] kinds`).
    pub step_kinds: &'static [&'static str],
    /// A game with no end of its own (no turn limit) is drawn after this
    /// many steps, so it always ends.
    pub step_limit: Option<u32>,
}

/// The words that make a line of a reply an order attempt (docs/mail.md): a
/// line that starts with one of the ruleset's verbs (or a near miss of
/// one) or names one of the role's units is parsed, and refused if bad;
/// other free text ("Hi,", "Thanks!") is ignored and quoted back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vocabulary {
    /// Every order keyword of the ruleset for this role, at any step (an
    /// order sent at the wrong step is an error, not prose).
    pub verbs: Vec<String>,
    /// Names this role may know: its own units and what its view shows of
    /// others' (never a hidden name: telling prose from an order must not
    /// reveal one).
    pub names: Vec<String>,
}

/// What the conformance test (random play of every ruleset) probes in
/// what one role reads while the game keeps its secrets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeakProbes {
    /// Strings that must appear nowhere the role reads: the other side's
    /// secret names and figures in this state.
    pub hidden: Vec<String>,
    /// Probe the events told to the role too, not only its view.
    pub events: bool,
}

/// One mail of `adjutant demo`: who sends it, its text, and whether the
/// demo means it to be refused (to show a rejection).
#[derive(Debug, Clone, PartialEq)]
pub struct DemoMail {
    pub role: String,
    pub text: String,
    pub refused: bool,
}

impl DemoMail {
    pub fn new(role: &str, text: &str) -> DemoMail {
        DemoMail { role: role.to_string(), text: text.to_string(), refused: false }
    }
    pub fn refused(role: &str, text: &str) -> DemoMail {
        DemoMail { role: role.to_string(), text: text.to_string(), refused: true }
    }
}

/// How hard the computer player thinks at a decision, counted in imagined
/// steps, never in time (rules read no clock): `candidates` submissions
/// weighed, each played forward `playouts` times, up to `horizon` steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effort {
    pub candidates: usize,
    pub playouts: usize,
    pub horizon: u32,
}

/// A game's rules with typed state and orders. Implemented once per game;
/// the engine reaches it through [`Ruleset`].
pub trait Rules: Send + Sync + 'static {
    type State: Clone + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// Serializable, so a ruleset holds orders in its state typed (the rest
    /// of a turn while a decision is awaited), never as text to re-read.
    type Order: Clone + fmt::Display + Serialize + DeserializeOwned;

    fn info(&self) -> RulesetInfo;
    fn setup(&self, scenario: &str) -> Result<Self::State, String>;
    /// Who the open step waits for (cheap: asked for control flow).
    fn awaited(&self, s: &Self::State) -> Awaited;
    /// What `role` is asked at the open step.
    fn prompt(&self, s: &Self::State, role: &str) -> Prompt;
    /// Parse one line of a role's orders for the open step.
    fn parse(&self, s: &Self::State, role: &str, line: &str) -> Result<Self::Order, Problem>;
    /// Check a whole submission; problems are keyed by the index of the
    /// order they belong to.
    fn validate(&self, s: &Self::State, role: &str, orders: &[Self::Order]) -> Vec<(usize, Problem)>;
    /// A worked example for the open step, from `role`'s own position and
    /// what it may see: shown in the prompt under the syntax, and only if
    /// it passes `validate` as a player's mail would.
    fn example(&self, _s: &Self::State, _role: &str) -> Vec<Self::Order> {
        Vec::new()
    }
    /// Of an accepted submission, the orders play may still skip or cut
    /// short (a roll, the enemy's reaction), each with why: the
    /// acknowledgment says so, so nothing accepted is skipped unannounced.
    fn conditions(&self, _s: &Self::State, _role: &str, _orders: &[Self::Order]) -> Vec<(usize, String)> {
        Vec::new()
    }
    /// The no-moves policy: what a silent role is taken to have ordered.
    fn default_orders(&self, s: &Self::State, role: &str) -> Vec<Self::Order>;
    /// What makes a line of `role`'s reply an order attempt.
    fn vocabulary(&self, s: &Self::State, role: &str) -> Vocabulary;
    /// The other side's secrets in this state, for the conformance test:
    /// a ruleset with hidden information says what it hides.
    fn leak_probes(&self, s: &Self::State, role: &str) -> LeakProbes;
    /// A check of `role`'s view beyond strings (a figure of the enemy's
    /// shown must be one the role was told); `Err` says what leaked.
    fn leak_check(&self, s: &Self::State, role: &str, view: &View) -> Result<(), String> {
        let _ = (s, role, view);
        Ok(())
    }
    /// A step of this kind is sealed (Tacticum X's set-up): who sent no
    /// orders is told only to that role and the moderator, since the
    /// defaults would show what the others cannot yet see.
    fn sealed(&self, kind: &str) -> bool {
        let _ = kind;
        false
    }
    /// Whether `from` may send PRESS to `to` (a role, or `all`) now: a
    /// scenario may forbid some talk (Tacticum X's partners, S10-5); the
    /// `Err` is the refusal the player reads.
    fn press_allowed(&self, s: &Self::State, from: &str, to: &str) -> Result<(), Problem> {
        let _ = (s, from, to);
        Ok(())
    }
    /// `adjutant demo`: the mails the players send before the daemon's
    /// pass number `pass`, in this state; `None` ends the demo. A ruleset
    /// without a scripted demo has none.
    fn demo(&self, s: &Self::State, pass: usize) -> Option<Vec<DemoMail>> {
        let _ = (s, pass);
        None
    }
    fn resolve(
        &self,
        s: &mut Self::State,
        orders: &BTreeMap<String, Vec<Self::Order>>,
        dice: &mut dyn Dice,
    ) -> Vec<Event>;
    fn view(&self, s: &Self::State, viewer: &Viewer) -> View;
    fn outcome(&self, s: &Self::State) -> Option<Outcome>;
    /// A random legal submission for `role`: the conformance test's player
    /// (and a stand-in for a role in civil disorder). `pick(n)` is in 0..n.
    fn random_orders(&self, s: &Self::State, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<Self::Order> {
        let _ = pick;
        self.default_orders(s, role)
    }
    /// The computer player's submission for `role` (`rules::shared::player`),
    /// made from what `role` may know and nothing else: the ruleset
    /// replaces every fact hidden from `role` before it searches. `None`:
    /// this ruleset has no computer player for `role`.
    fn think(&self, s: &Self::State, role: &str, effort: Effort, seed: u64) -> Option<Vec<Self::Order>> {
        let _ = (s, role, effort, seed);
        None
    }
}

/// A ruleset's state behind the object-safe interface.
pub struct AnyState(Box<dyn Any + Send + Sync>);

/// The object-safe face of [`Rules`], one value per game in `rules::ALL`.
pub trait Ruleset: Send + Sync {
    fn info(&self) -> RulesetInfo;
    fn setup(&self, scenario: &str) -> Result<AnyState, String>;
    fn load(&self, toml_text: &str) -> Result<AnyState, String>;
    fn save(&self, s: &AnyState) -> String;
    fn clone_state(&self, s: &AnyState) -> AnyState;
    fn awaited(&self, s: &AnyState) -> Awaited;
    /// The awaited (and optional) roles with their prompts.
    fn awaiting(&self, s: &AnyState) -> Awaiting;
    /// Parse and validate a submission; on success the canonical lines.
    fn check(&self, s: &AnyState, role: &str, lines: &[(usize, String)]) -> Result<Vec<String>, Vec<LineError>>;
    /// Of accepted canonical lines, those play may still skip, with why.
    fn conditions(&self, s: &AnyState, role: &str, canonical: &[String]) -> Vec<(usize, String)>;
    fn default_orders(&self, s: &AnyState, role: &str) -> Vec<String>;
    fn vocabulary(&self, s: &AnyState, role: &str) -> Vocabulary;
    fn leak_probes(&self, s: &AnyState, role: &str) -> LeakProbes;
    fn demo(&self, s: &AnyState, pass: usize) -> Option<Vec<DemoMail>>;
    fn leak_check(&self, s: &AnyState, role: &str, view: &View) -> Result<(), String>;
    fn press_allowed(&self, s: &AnyState, from: &str, to: &str) -> Result<(), Problem>;
    fn sealed(&self, kind: &str) -> bool;
    /// Resolve with canonical lines; fails only if a line no longer parses,
    /// which is a bug or a tampered journal, never a player's mistake.
    fn resolve(
        &self,
        s: &mut AnyState,
        orders: &BTreeMap<String, Vec<String>>,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, String>;
    fn view(&self, s: &AnyState, viewer: &Viewer) -> View;
    fn outcome(&self, s: &AnyState) -> Option<Outcome>;
    fn random_orders(&self, s: &AnyState, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<String>;
    fn think(&self, s: &AnyState, role: &str, effort: Effort, seed: u64) -> Option<Vec<String>>;
}

fn state<R: Rules>(s: &AnyState) -> &R::State {
    s.0.downcast_ref().expect("state belongs to this ruleset")
}

impl<R: Rules> Ruleset for R {
    fn info(&self) -> RulesetInfo {
        Rules::info(self)
    }
    fn setup(&self, scenario: &str) -> Result<AnyState, String> {
        Ok(AnyState(Box::new(Rules::setup(self, scenario)?)))
    }
    fn load(&self, text: &str) -> Result<AnyState, String> {
        let st: R::State = toml::from_str(text).map_err(|e| format!("cannot read {} state: {e}", self.info().name))?;
        Ok(AnyState(Box::new(st)))
    }
    fn save(&self, s: &AnyState) -> String {
        toml::to_string(state::<R>(s)).expect("ruleset state serializes to TOML")
    }
    fn clone_state(&self, s: &AnyState) -> AnyState {
        AnyState(Box::new(state::<R>(s).clone()))
    }
    fn awaited(&self, s: &AnyState) -> Awaited {
        Rules::awaited(self, state::<R>(s))
    }
    fn awaiting(&self, s: &AnyState) -> Awaiting {
        let st = state::<R>(s);
        let a = Rules::awaited(self, st);
        let prompts = |roles: &[String]| roles.iter().map(|r| (r.clone(), Rules::prompt(self, st, r))).collect();
        let examples = a
            .roles
            .iter()
            .filter_map(|r| {
                let example = Rules::example(self, st, r);
                let shown = !example.is_empty() && Rules::validate(self, st, r, &example).is_empty();
                shown.then(|| (r.clone(), example.iter().map(|o| o.to_string()).collect()))
            })
            .collect();
        Awaiting { prompts: prompts(&a.roles), optional: prompts(&a.optional), kind: a.kind, examples }
    }
    fn check(&self, s: &AnyState, role: &str, lines: &[(usize, String)]) -> Result<Vec<String>, Vec<LineError>> {
        let st = state::<R>(s);
        let mut errors = Vec::new();
        let mut orders = Vec::new();
        let mut at = Vec::new();
        for (n, text) in lines {
            match self.parse(st, role, text) {
                Ok(o) => {
                    orders.push(o);
                    at.push((*n, text.clone()));
                }
                Err(p) => {
                    errors.push(LineError { line: *n, text: text.clone(), reason: p.reason, suggestion: p.suggestion })
                }
            }
        }
        // Validate what parsed even if something did not, so the player
        // hears of every problem in one reply.
        for (i, p) in self.validate(st, role, &orders) {
            let (line, text) = at.get(i).cloned().unwrap_or((0, String::new()));
            errors.push(LineError { line, text, reason: p.reason, suggestion: p.suggestion });
        }
        if errors.is_empty() {
            Ok(orders.iter().map(|o| o.to_string()).collect())
        } else {
            errors.sort_by_key(|e| e.line);
            Err(errors)
        }
    }
    fn vocabulary(&self, s: &AnyState, role: &str) -> Vocabulary {
        Rules::vocabulary(self, state::<R>(s), role)
    }
    fn leak_probes(&self, s: &AnyState, role: &str) -> LeakProbes {
        Rules::leak_probes(self, state::<R>(s), role)
    }
    fn demo(&self, s: &AnyState, pass: usize) -> Option<Vec<DemoMail>> {
        Rules::demo(self, state::<R>(s), pass)
    }
    fn leak_check(&self, s: &AnyState, role: &str, view: &View) -> Result<(), String> {
        Rules::leak_check(self, state::<R>(s), role, view)
    }
    fn press_allowed(&self, s: &AnyState, from: &str, to: &str) -> Result<(), Problem> {
        Rules::press_allowed(self, state::<R>(s), from, to)
    }
    fn sealed(&self, kind: &str) -> bool {
        Rules::sealed(self, kind)
    }
    fn conditions(&self, s: &AnyState, role: &str, canonical: &[String]) -> Vec<(usize, String)> {
        let s = state::<R>(s);
        // Canonical lines parse, having been checked; an order that would
        // not is left out rather than misnumbered.
        let orders: Option<Vec<R::Order>> = canonical.iter().map(|l| self.parse(s, role, l).ok()).collect();
        orders.map(|o| Rules::conditions(self, s, role, &o)).unwrap_or_default()
    }
    fn default_orders(&self, s: &AnyState, role: &str) -> Vec<String> {
        Rules::default_orders(self, state::<R>(s), role).iter().map(|o| o.to_string()).collect()
    }
    fn resolve(
        &self,
        s: &mut AnyState,
        orders: &BTreeMap<String, Vec<String>>,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, String> {
        let mut typed = BTreeMap::new();
        for (role, lines) in orders {
            let st = state::<R>(s);
            let mut v = Vec::new();
            for l in lines {
                v.push(
                    self.parse(st, role, l)
                        .map_err(|p| format!("order {l:?} of {role} no longer parses: {}", p.reason))?,
                );
            }
            typed.insert(role.clone(), v);
        }
        let st: &mut R::State = s.0.downcast_mut().expect("state belongs to this ruleset");
        Ok(Rules::resolve(self, st, &typed, dice))
    }
    fn view(&self, s: &AnyState, viewer: &Viewer) -> View {
        Rules::view(self, state::<R>(s), viewer)
    }
    fn outcome(&self, s: &AnyState) -> Option<Outcome> {
        Rules::outcome(self, state::<R>(s))
    }
    fn random_orders(&self, s: &AnyState, role: &str, pick: &mut dyn FnMut(usize) -> usize) -> Vec<String> {
        Rules::random_orders(self, state::<R>(s), role, pick).iter().map(|o| o.to_string()).collect()
    }
    fn think(&self, s: &AnyState, role: &str, effort: Effort, seed: u64) -> Option<Vec<String>> {
        let orders = Rules::think(self, state::<R>(s), role, effort, seed)?;
        Some(orders.iter().map(|o| o.to_string()).collect())
    }
}

/// A game in play: ruleset state plus the step counter, the orders accepted
/// for the open step and the salts given for it.
pub struct Game {
    pub id: String,
    pub rules: &'static dyn Ruleset,
    pub scenario: String,
    pub roles: Vec<String>,
    /// The open step, 1-based: step `k` draws from chain link `k`.
    pub step: u32,
    pub orders: BTreeMap<String, Vec<String>>,
    pub salts: BTreeMap<String, String>,
    pub ended: bool,
    /// Private so that every change goes through a method that forgets
    /// `loaded` (a snapshot must never be written from stale text).
    state: AnyState,
    /// The text the state was read from, while it is unchanged: saving a
    /// game that only took orders then costs no serialization.
    loaded: Option<String>,
}

/// The generic part of a game, as kept in the snapshot.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Envelope {
    pub id: String,
    pub ruleset: String,
    pub scenario: String,
    pub roles: Vec<String>,
    pub step: u32,
    #[serde(default)]
    pub orders: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub salts: BTreeMap<String, String>,
    #[serde(default)]
    pub ended: bool,
}

/// What a resolution did, for the journal and the results mail.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub step: u32,
    pub kind: String,
    /// Orders used per role, defaults included.
    pub orders: BTreeMap<String, Vec<String>>,
    pub defaulted: Vec<String>,
    pub salts: BTreeMap<String, String>,
    pub events: Vec<Event>,
}

impl Game {
    /// A new game of `scenario`: a scenario's name, then any of its
    /// variants after `+` (`frontier+easier`), which the ruleset's set-up
    /// reads.
    pub fn new(id: &str, rules: &'static dyn Ruleset, scenario: &str) -> Result<Game, String> {
        let info = rules.info();
        let mut parts = scenario.split('+');
        let base = parts.next().unwrap_or("");
        let sc = info.scenarios.iter().find(|s| s.name == base).ok_or_else(|| {
            let names: Vec<_> = info.scenarios.iter().map(|s| s.name.as_str()).collect();
            format!("unknown scenario {base:?} for {}; known: {}", info.name, names.join(", "))
        })?;
        for v in parts {
            if !sc.variants.iter().any(|x| x == v) {
                return Err(format!(
                    "scenario {base} has no variant {v:?}; {}",
                    if sc.variants.is_empty() {
                        "it has none".to_string()
                    } else {
                        format!("its variants: {}", sc.variants.join(", "))
                    }
                ));
            }
        }
        let state = rules.setup(scenario)?;
        Ok(Game {
            id: id.to_string(),
            rules,
            scenario: scenario.to_string(),
            roles: sc.roles.clone(),
            step: 1,
            orders: BTreeMap::new(),
            salts: BTreeMap::new(),
            ended: false,
            state,
            loaded: None,
        })
    }

    pub fn envelope(&self) -> Envelope {
        Envelope {
            id: self.id.clone(),
            ruleset: self.rules.info().name.to_string(),
            scenario: self.scenario.clone(),
            roles: self.roles.clone(),
            step: self.step,
            orders: self.orders.clone(),
            salts: self.salts.clone(),
            ended: self.ended,
        }
    }

    pub fn from_parts(env: Envelope, rules: &'static dyn Ruleset, state_text: &str) -> Result<Game, String> {
        Ok(Game {
            id: env.id,
            rules,
            scenario: env.scenario,
            roles: env.roles,
            step: env.step,
            orders: env.orders,
            salts: env.salts,
            ended: env.ended,
            state: rules.load(state_text)?,
            loaded: Some(state_text.to_string()),
        })
    }

    /// Take the game back to a state it had when a step opened (a
    /// rollback): the ruleset state from `state_text`, no orders or salts
    /// in, not ended, the open step numbered `step` (a number whose dice
    /// were never drawn).
    pub fn reopen(&mut self, state_text: &str, step: u32) -> Result<(), String> {
        self.state = self.rules.load(state_text)?;
        self.loaded = None;
        self.step = step;
        self.orders.clear();
        self.salts.clear();
        self.ended = false;
        Ok(())
    }

    /// The ruleset's state, to read (changes go through `resolve`, `patch`
    /// and `replace`).
    pub fn state(&self) -> &AnyState {
        &self.state
    }

    /// The state's text for the snapshot: the text it was loaded from while
    /// nothing changed it (it reads back as the same state, though an older
    /// adjutant may have spelled it differently), else [`Game::state_text`].
    /// Replay compares [`Game::digest`], which never uses it.
    pub fn snapshot_text(&self) -> std::borrow::Cow<'_, str> {
        match &self.loaded {
            Some(t) => std::borrow::Cow::Borrowed(t),
            None => std::borrow::Cow::Owned(self.state_text()),
        }
    }

    /// Change the ruleset state by a patch (see [`merge`]): how a case or a
    /// moderator sets up a position other than the scenario's.
    pub fn patch(&mut self, patch: &toml::Table) -> Result<(), String> {
        self.edit(|t| {
            merge(t, patch);
            Ok(())
        })
    }

    /// Change the state as TOML and load it back (the ruleset checks it).
    fn edit(&mut self, change: impl FnOnce(&mut toml::Table) -> Result<(), String>) -> Result<(), String> {
        let mut t: toml::Table = toml::from_str(&self.state_text()).map_err(|e| e.to_string())?;
        change(&mut t)?;
        let text = toml::to_string(&t).map_err(|e| e.to_string())?;
        self.state = self.rules.load(&text)?;
        self.loaded = None;
        Ok(())
    }

    pub fn state_text(&self) -> String {
        self.rules.save(&self.state)
    }

    /// SHA-256 of the ruleset state's canonical TOML: what replay compares.
    pub fn digest(&self) -> String {
        crate::dice::to_hex(&crate::dice::sha256(self.state_text().as_bytes()))
    }

    /// The open step with every prompt (for mail).
    pub fn awaiting(&self) -> Awaiting {
        if self.over() {
            return Awaiting::default();
        }
        self.rules.awaiting(&self.state)
    }

    /// Who the open step waits for (for control flow).
    pub fn awaited(&self) -> Awaited {
        if self.over() {
            return Awaited::default();
        }
        self.rules.awaited(&self.state)
    }

    fn over(&self) -> bool {
        self.ended || self.outcome().is_some()
    }

    pub fn awaits(&self, role: &str) -> bool {
        self.awaited().roles.iter().any(|r| r == role)
    }

    /// May `role` send orders now: awaited, or free to leave standing
    /// orders?
    pub fn may_send(&self, role: &str) -> bool {
        let a = self.awaited();
        a.roles.iter().chain(&a.optional).any(|r| r == role)
    }

    /// What makes a line of `role`'s reply an order attempt.
    pub fn vocabulary(&self, role: &str) -> Vocabulary {
        self.rules.vocabulary(&self.state, role)
    }

    /// The other side's secrets, for the conformance test.
    pub fn leak_probes(&self, role: &str) -> LeakProbes {
        self.rules.leak_probes(&self.state, role)
    }

    /// What the players send before the demo's pass `pass`.
    pub fn demo(&self, pass: usize) -> Option<Vec<DemoMail>> {
        self.rules.demo(&self.state, pass)
    }

    /// The ruleset's own check of a view `role` reads.
    pub fn leak_check(&self, role: &str, view: &View) -> Result<(), String> {
        self.rules.leak_check(&self.state, role, view)
    }

    /// Whether `from` may send PRESS to `to` (a role or `all`) now.
    pub fn press_allowed(&self, from: &str, to: &str) -> Result<(), Problem> {
        self.rules.press_allowed(&self.state, from, to)
    }

    /// Check a role's submission against the open step without changing
    /// anything.
    pub fn check(&self, role: &str, lines: &[(usize, String)]) -> Result<Vec<String>, Vec<LineError>> {
        if !self.may_send(role) {
            return Err(vec![LineError {
                line: lines.first().map(|l| l.0).unwrap_or(0),
                text: lines.first().map(|l| l.1.clone()).unwrap_or_default(),
                reason: format!("step {} does not await orders from {role}", self.step),
                suggestion: Some("wait for your prompt; STATUS tells what the game awaits".into()),
            }]);
        }
        self.rules.check(&self.state, role, lines)
    }

    /// Of `role`'s accepted lines, those play may still skip, with why
    /// (line, reason).
    pub fn conditions(&self, role: &str, canonical: &[String]) -> Vec<(String, String)> {
        let notes = self.rules.conditions(&self.state, role, canonical);
        notes.into_iter().filter_map(|(i, why)| canonical.get(i).map(|l| (l.clone(), why))).collect()
    }

    pub fn accept(&mut self, role: &str, canonical: Vec<String>) {
        self.orders.insert(role.to_string(), canonical);
    }

    /// Every awaited role has orders in.
    pub fn complete(&self) -> bool {
        let a = self.awaited();
        !a.roles.is_empty() && a.roles.iter().all(|r| self.orders.contains_key(r))
    }

    /// Resolve the open step; silent roles get the no-moves orders. On
    /// success the step counter advances and orders and salts are cleared.
    pub fn resolve(&mut self, dice: &mut dyn Dice) -> Result<Resolution, String> {
        let a = self.awaited();
        let mut used = BTreeMap::new();
        let mut defaulted = Vec::new();
        for role in &a.roles {
            match self.orders.get(role) {
                Some(o) => {
                    used.insert(role.clone(), o.clone());
                }
                None => {
                    defaulted.push(role.clone());
                    used.insert(role.clone(), self.rules.default_orders(&self.state, role));
                }
            }
        }
        // Standing orders of roles not waited for go in as they came.
        for role in &a.optional {
            if let Some(o) = self.orders.get(role) {
                used.insert(role.clone(), o.clone());
            }
        }
        self.loaded = None;
        let events = self.rules.resolve(&mut self.state, &used, dice)?;
        let r =
            Resolution { step: self.step, kind: a.kind, orders: used, defaulted, salts: self.salts_for_seed(), events };
        self.step += 1;
        self.orders.clear();
        self.salts.clear();
        Ok(r)
    }

    /// Every role's salt for the seed, empty where none was given.
    pub fn salts_for_seed(&self) -> BTreeMap<String, String> {
        self.roles.iter().map(|r| (r.clone(), self.salts.get(r).cloned().unwrap_or_default())).collect()
    }

    pub fn view(&self, viewer: &Viewer) -> View {
        self.rules.view(&self.state, viewer)
    }

    /// The computer player's submission for `role` at the open step, if
    /// the ruleset has a player for it. Its seed is the game, the step and
    /// the role, so a decision repeats; it names no dice of the game's.
    pub fn think(&self, role: &str, effort: Effort) -> Option<Vec<String>> {
        let h = crate::dice::sha256(format!("adjutant plays {}/{}/{role}", self.id, self.step).as_bytes());
        let seed = u64::from_le_bytes(h[..8].try_into().expect("a hash is longer than 8 bytes"));
        self.rules.think(&self.state, role, effort, seed)
    }

    /// How the game ended, if it has: the ruleset's own end, or a draw at
    /// its step limit.
    pub fn outcome(&self) -> Option<Outcome> {
        self.rules.outcome(&self.state).or_else(|| {
            let limit = self.rules.info().step_limit?;
            (self.step > limit).then(|| Outcome::drawn(format!("the game reached its limit of {limit} steps: a draw")))
        })
    }

    /// Set parts of the state whole, arrays included (where `patch` merges
    /// arrays of tables by name): a case's sparse position.
    pub fn replace(&mut self, with: &toml::Table) -> Result<(), String> {
        fn put(base: &mut toml::Table, with: &toml::Table) {
            for (k, v) in with {
                match (base.get_mut(k), v) {
                    (Some(toml::Value::Table(bt)), toml::Value::Table(wt)) => put(bt, wt),
                    _ => {
                        base.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        self.edit(|t| {
            put(t, with);
            Ok(())
        })
    }

    /// Set single values at dotted paths (`path::set`): one cell of a
    /// table, one field of one named item, without restating the rest.
    pub fn set(&mut self, values: &BTreeMap<String, toml::Value>) -> Result<(), String> {
        self.edit(|t| values.iter().try_for_each(|(p, v)| path::set(t, p, v.clone())))
    }
}

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            id: self.id.clone(),
            rules: self.rules,
            scenario: self.scenario.clone(),
            roles: self.roles.clone(),
            step: self.step,
            orders: self.orders.clone(),
            salts: self.salts.clone(),
            ended: self.ended,
            state: self.rules.clone_state(&self.state),
            loaded: self.loaded.clone(),
        }
    }
}

#[cfg(test)]
mod outcome_tests {
    use super::Outcome;

    /// A solo failure saves as the journals written before `lost` recorded
    /// it, so their digests still match on replay.
    #[test]
    fn a_failure_saves_as_a_game_with_no_winner_did() {
        let reason = "the Raiders win: the Prisoner is silenced".to_string();
        let failed = toml::to_string(&Outcome::failed(vec!["legion".into()], reason.clone())).unwrap();
        assert_eq!(failed, toml::to_string(&Outcome::drawn(reason)).unwrap());
        assert!(!failed.contains("lost"), "{failed}");
    }
}

#[cfg(test)]
mod audience_tests {
    use super::*;

    #[test]
    fn who_reads_an_event() {
        let (g, b) = (Viewer::Role("garrison".into()), Viewer::Role("besiegers".into()));
        let only = Audience::Only("garrison".into());
        assert!(only.admits(&g) && !only.admits(&b) && !only.admits(&Viewer::Moderator));
        let role = Audience::Role("garrison".into());
        assert!(role.admits(&g) && !role.admits(&b) && role.admits(&Viewer::Moderator));
        assert!(Audience::Moderator.admits(&Viewer::Moderator) && !Audience::Moderator.admits(&g));
        assert!(Audience::All.admits(&Viewer::Public));
    }
}

#[cfg(test)]
mod standing_orders_tests {
    //! A step that awaits one role and lets the other leave standing
    //! orders, on a ruleset made for the test (no game needs it yet).
    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Say(String);

    impl fmt::Display for Say {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "SAY {}", self.0)
        }
    }

    #[derive(Debug, Clone, Default, Serialize, Deserialize)]
    struct Log {
        said: Vec<String>,
    }

    struct Talk;

    impl Rules for Talk {
        type State = Log;
        type Order = Say;
        fn info(&self) -> RulesetInfo {
            RulesetInfo {
                name: "talk",
                title: "Talk",
                scenarios: vec![ScenarioInfo {
                    name: "one".into(),
                    roles: vec!["a".into(), "b".into()],
                    about: "".into(),
                    variants: vec!["loud".into()],
                }],
                moderated: false,
                step_kinds: &["talk"],
                step_limit: Some(3),
            }
        }
        fn setup(&self, _: &str) -> Result<Log, String> {
            Ok(Log::default())
        }
        fn awaited(&self, _: &Log) -> Awaited {
            Awaited { optional: vec!["b".into()], ..Awaited::new("talk", &["a"]) }
        }
        fn prompt(&self, _: &Log, _: &str) -> Prompt {
            Prompt { text: "say something".into(), syntax: vec!["SAY <word>".into()] }
        }
        fn parse(&self, _: &Log, _: &str, line: &str) -> Result<Say, Problem> {
            crate::rules::shared::parse::keyword(line, "SAY")
                .map(|w| Say(w.to_string()))
                .ok_or_else(|| Problem::new("not SAY"))
        }
        fn validate(&self, _: &Log, _: &str, _: &[Say]) -> Vec<(usize, Problem)> {
            Vec::new()
        }
        fn default_orders(&self, _: &Log, _: &str) -> Vec<Say> {
            vec![Say("nothing".into())]
        }
        fn vocabulary(&self, _: &Log, _: &str) -> Vocabulary {
            Vocabulary { verbs: vec!["SAY".into()], names: vec![] }
        }
        fn leak_probes(&self, _: &Log, _: &str) -> LeakProbes {
            LeakProbes::default()
        }
        fn resolve(&self, s: &mut Log, orders: &BTreeMap<String, Vec<Say>>, _: &mut dyn Dice) -> Vec<Event> {
            for (role, said) in orders {
                s.said.extend(said.iter().map(|x| format!("{role}: {}", x.0)));
            }
            Vec::new()
        }
        fn view(&self, _: &Log, _: &Viewer) -> View {
            View::default()
        }
        fn outcome(&self, _: &Log) -> Option<Outcome> {
            None
        }
    }

    static TALK: Talk = Talk;

    #[test]
    fn a_role_not_awaited_leaves_standing_orders_the_step_does_not_wait_for() {
        let mut g = Game::new("t", &TALK, "one").unwrap();
        assert!(g.may_send("b") && !g.awaits("b"));
        let c = g.check("b", &[(1, "say ready".into())]).unwrap();
        g.accept("b", c);
        assert!(!g.complete(), "b's standing order does not complete the step");
        g.accept("a", vec!["SAY hello".into()]);
        assert!(g.complete());
        let r = g.resolve(&mut crate::dice::Scripted::new(&[])).unwrap();
        assert!(r.defaulted.is_empty());
        let log: Log = toml::from_str(&g.state_text()).unwrap();
        assert_eq!(log.said, ["a: hello", "b: ready"]);
        // Next step, b silent: only a is defaulted; b is not made to speak.
        let r = g.resolve(&mut crate::dice::Scripted::new(&[])).unwrap();
        assert_eq!(r.defaulted, ["a"]);
        let log: Log = toml::from_str(&g.state_text()).unwrap();
        assert_eq!(log.said.len(), 3);
        // A role neither awaited nor optional is refused.
        assert!(g.check("c", &[(1, "SAY x".into())]).is_err());
    }

    #[test]
    fn the_snapshot_text_is_the_loaded_text_only_until_the_state_changes() {
        let mut g = Game::new("t", &TALK, "one").unwrap();
        g.accept("a", vec!["SAY hello".into()]);
        g.resolve(&mut crate::dice::Scripted::new(&[])).unwrap();
        // Spelled as an older writer might have: it reads as the same state.
        let older = "said = [ 'a: hello', 'b: nothing' ]\n";
        let mut g = Game::from_parts(g.envelope(), &TALK, older).unwrap();
        g.accept("a", vec!["SAY more".into()]);
        assert_eq!(g.snapshot_text(), older, "orders alone leave the state as it was read");
        g.resolve(&mut crate::dice::Scripted::new(&[])).unwrap();
        assert_eq!(g.snapshot_text(), g.state_text(), "after a resolution the state is written afresh");
        assert!(g.snapshot_text().contains("a: more"));
        let mut g = Game::from_parts(g.envelope(), &TALK, older).unwrap();
        g.patch(&toml::from_str("said = ['patched']").unwrap()).unwrap();
        assert!(g.snapshot_text().contains("patched"), "a moderator's patch is written too");
        let mut g = Game::from_parts(g.envelope(), &TALK, older).unwrap();
        g.replace(&toml::from_str("said = ['replaced']").unwrap()).unwrap();
        assert!(g.snapshot_text().contains("replaced"));
    }

    #[test]
    fn a_game_without_an_end_is_drawn_at_its_step_limit() {
        let mut g = Game::new("t", &TALK, "one").unwrap();
        for _ in 0..3 {
            assert!(g.outcome().is_none() && g.awaits("a"));
            g.resolve(&mut crate::dice::Scripted::new(&[])).unwrap();
        }
        let o = g.outcome().expect("drawn after three steps");
        assert_eq!(o.winner, None);
        assert!(o.reason.contains("limit of 3 steps"), "{}", o.reason);
        assert!(!g.awaits("a"), "nothing is awaited once it is over");
    }

    #[test]
    fn scenario_variants_are_checked_by_name() {
        assert!(Game::new("t", &TALK, "one+loud").is_ok());
        let e = Game::new("t", &TALK, "one+quiet").err().unwrap();
        assert!(e.contains("no variant \"quiet\"") && e.contains("loud"), "{e}");
        assert!(Game::new("t", &TALK, "two").err().unwrap().contains("unknown scenario"));
    }
}
