//! Mail bodies: each letter is a template in templates/ filled from a View
//! and the desk's envelope facts (game, step, deadlines, dice). No game state
//! reaches a template.

use crate::dice::Draw;
use crate::engine::{Audience, Event, View, Viewer};
use crate::render;
use minijinja::{context, Environment, Value};
use std::collections::BTreeMap;
use std::sync::LazyLock;

static ENV: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // The templates are part of the binary so a running daemon never reads
    // a half-edited file; they stay plain files in templates/ for editing.
    for (name, text) in [
        ("welcome", include_str!("../../../templates/welcome.txt")),
        ("prompt", include_str!("../../../templates/prompt.txt")),
        ("ack", include_str!("../../../templates/ack.txt")),
        ("rejection", include_str!("../../../templates/rejection.txt")),
        ("refusal", include_str!("../../../templates/refusal.txt")),
        ("results", include_str!("../../../templates/results.txt")),
        ("reminder", include_str!("../../../templates/reminder.txt")),
        ("gameover", include_str!("../../../templates/gameover.txt")),
        ("reply", include_str!("../../../templates/reply.txt")),
        ("press", include_str!("../../../templates/press.txt")),
        ("rollback", include_str!("../../../templates/rollback.txt")),
        ("renewed", include_str!("../../../templates/renewed.txt")),
    ] {
        env.add_template(name, text).expect("templates in templates/ parse");
    }
    env.set_keep_trailing_newline(true);
    env
});

/// Fill a template. Template errors are bugs in templates/, caught by tests.
pub fn fill(name: &str, ctx: Value) -> String {
    ENV.get_template(name).and_then(|t| t.render(ctx)).unwrap_or_else(|e| panic!("template {name} failed: {e:#}"))
}

/// What the reader left out of a message, a line each, for the reply that
/// says nothing was read.
pub fn skipped(runs: &[crate::mail::reader::Skipped]) -> Vec<String> {
    runs.iter()
        .map(|r| {
            let more = if r.count > 1 { format!(" (and {} more lines)", r.count - 1) } else { String::new() };
            let first: String = r.first.chars().take(70).collect();
            format!("line {}: {}: \"{first}\"{more}", r.line, r.kind.describe())
        })
        .collect()
}

/// The view as mailed: the ASCII rendering of what the viewer may see.
pub fn view_text(v: &View) -> String {
    render::ascii::render(v)
}

/// Events the viewer may read.
pub fn visible_events(events: &[Event], viewer: &Viewer) -> Vec<String> {
    events.iter().filter(|e| e.to.admits(viewer)).map(|e| e.text.clone()).collect()
}

/// May this viewer see draws and links of `stream`? (A name no game
/// writes is seen by the moderator alone.)
pub fn sees_stream(viewer: &Viewer, stream: &str) -> bool {
    match crate::dice::StreamId::parse(stream) {
        Some(id) => viewer.sees_stream(&id),
        None => *viewer == Viewer::Moderator,
    }
}

/// The ANCHORS block (dice-v1): the welcome mail's, and a renewal's with
/// the step its chains follow (`base`).
pub fn anchors_block(game: &str, chain_len: u32, base: Option<u32>, anchors: &BTreeMap<String, String>) -> String {
    let mut s = format!("-----BEGIN ADJUTANT ANCHORS-----\nscheme: dice-v1\ngame: {game}\nchain-length: {chain_len}\n");
    if let Some(b) = base {
        s.push_str(&format!("base: {b}\n"));
    }
    for (stream, a) in anchors {
        s.push_str(&format!("anchor {stream}: {a}\n"));
    }
    s.push_str("-----END ADJUTANT ANCHORS-----\n");
    s
}

/// The JOURNAL block (docs/journal-v1.md): the journal's tip after the
/// resolution a mail reports.
pub fn journal_block(game: &str, seq: u64, hash: &str) -> String {
    format!("\n-----BEGIN ADJUTANT JOURNAL-----\ngame: {game}\nentry: {seq}\nhash: {hash}\n-----END ADJUTANT JOURNAL-----\n")
}

/// The dice block of a results mail: a stable plain-text format (one fact a
/// line) that survives mail clients, documented in README "Checking the dice".
pub fn dice_block(
    game: &str,
    step: u32,
    salts: &BTreeMap<String, String>,
    links: &BTreeMap<String, String>,
    draws: &[Draw],
    viewer: &Viewer,
) -> String {
    let mut s = String::from("-----BEGIN ADJUTANT DICE-----\nscheme: dice-v1\n");
    s.push_str(&format!("game: {game}\nstep: {step}\n"));
    for (r, v) in salts {
        s.push_str(&format!("salt {r}: {v}\n"));
    }
    for (stream, l) in links {
        if sees_stream(viewer, stream) {
            s.push_str(&format!("link {stream}: {l}\n"));
        }
    }
    for d in draws.iter().filter(|d| sees_stream(viewer, &d.stream)) {
        let kind = match d.kind {
            crate::dice::DrawKind::Die => "die",
            crate::dice::DrawKind::Shuffle => "shuffle",
            crate::dice::DrawKind::Pool => "pool",
        };
        let r: Vec<String> = d.result.iter().map(|x| x.to_string()).collect();
        s.push_str(&format!(
            "draw {} {} {kind} {} {}{} | {}\n",
            d.stream,
            d.n,
            d.sides,
            r.join(","),
            if d.declared { " declared" } else { "" },
            d.label
        ));
    }
    s.push_str("-----END ADJUTANT DICE-----\n");
    s
}

/// A role as a player reads it: the moderator's key "gm" is "the moderator".
pub fn role_label(role: &str) -> String {
    if role == "gm" {
        "the moderator".into()
    } else {
        role.to_string()
    }
}

/// The audience of an event or letter, as a viewer.
pub fn viewer_of(role: &str) -> Viewer {
    if role == "gm" {
        Viewer::Moderator
    } else {
        Viewer::Role(role.to_string())
    }
}

pub fn audience_of(role: &str) -> Audience {
    if role == "gm" {
        Audience::Moderator
    } else {
        Audience::Role(role.to_string())
    }
}

pub fn empty() -> Value {
    context! {}
}
